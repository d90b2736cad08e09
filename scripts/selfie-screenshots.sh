#!/usr/bin/env bash
# Paints the selfie window showing each face hint (and the green oval of a right face) under Xvfb, from a
# camera playing the test pictures, into DIR/<language>/selfie-<hint>.png for English and German, and
# (with ImageMagick) one sheet of all of them per language, DIR/selfie-hints-<language>.png, as in
# docs/images.
#   scripts/selfie-screenshots.sh [DIR]      (default .build/selfie-screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin" DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1
out=$(realpath -m "${1:-.build/selfie-screenshots}")
scripts/face-pictures.sh
swift build --build-tests >&2
scripts/build-web-extension.sh >&2
scripts/build-translations.sh .build/selfie-locale >&2
for language in en de; do
    mkdir -p "$out/$language"
    GBGBRIDGE_SCREENSHOT_DIR=$out/$language LANGUAGE=$language LC_ALL=C.UTF-8 \
        GBGBRIDGE_LOCALEDIR=$(realpath .build/selfie-locale) \
        xvfb-run -a -s "-screen 0 1280x1024x24" swift test --skip-build --filter 'SelfieFaceWindowTests/screenshotsOfEachHint'
    if command -v montage >/dev/null && command -v convert >/dev/null; then
        shots=()
        for hint in noFace severalFaces moveCloser moveBack centreFace faceCamera tooDark unevenLight right; do
            shots+=("$out/$language/selfie-$hint.png")
        done
        montage "${shots[@]}" -geometry 480x360+4+4 -tile 3x3 "$out/sheet.png"
        convert "$out/sheet.png" -colors 256 "PNG8:$out/selfie-hints-$language.png"
        rm -f "$out/sheet.png"
    fi
done
echo "selfie-screenshots: $out" >&2
