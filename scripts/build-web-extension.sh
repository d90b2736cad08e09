#!/bin/sh
# Builds the web-process extension (Sources/WebProcessExtension, C) into a directory of its own, the one
# WebKitGTK is told to load extensions from: web-extension/libgbgbridge-web-extension.so beside SwiftPM's
# debug and release directories (where the programs built there look for it), or the directory given. It is built with the C compiler, not SwiftPM: a SwiftPM library links the Swift runtime,
# which the web process must not need.
#   scripts/build-web-extension.sh [OUTPUT_DIRECTORY] [EXTRA_CFLAGS...]
set -eu
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
out=${1:-$(dirname "$(swift build --show-bin-path)")/web-extension}
[ $# -eq 0 ] || shift
mkdir -p "$out"
# shellcheck disable=SC2046 # pkg-config prints words
${CC:-$(command -v cc || command -v clang)} -shared -fPIC -O2 -Wall -Wextra -Werror -fvisibility=hidden "$@" \
    -o "$out/libgbgbridge-web-extension.so.tmp" Sources/WebProcessExtension/extension.c \
    $(pkg-config --cflags --libs webkit2gtk-web-extension-4.1)
mv "$out/libgbgbridge-web-extension.so.tmp" "$out/libgbgbridge-web-extension.so"
