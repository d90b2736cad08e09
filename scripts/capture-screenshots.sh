#!/usr/bin/env bash
# Renders the capture dialog in each state, in the light and the dark Adwaita theme, into
# docs/images/capture-<state>-<light|dark>[-<language>].png (the dialog is painted into an image
# under Xvfb with synthetic cameras, by gbgbridge-dialog-testhost).
#   scripts/capture-screenshots.sh                          English
#   scripts/capture-screenshots.sh --language de [--locale-dir DIR]
#       LANGUAGE=de, files end in -de; DIR holds <lang>/LC_MESSAGES/gbgbridge-shell.mo
#   --out DIR   write somewhere else than docs/images
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

language="" locale_dir="" out=docs/images
while [ $# -gt 0 ]; do
    case "$1" in
        --language) language=$2; shift 2 ;;
        --locale-dir) locale_dir=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "capture-screenshots: unknown option $1" >&2; exit 2 ;;
    esac
done

swift build --product gbgbridge-dialog-testhost >&2
host="$(swift build --show-bin-path)/gbgbridge-dialog-testhost"
mkdir -p "$out"

suffix=""
if [ -n "$language" ]; then
    export LANGUAGE=$language
    # gettext ignores LANGUAGE in the C locale.
    export LC_ALL=${LC_ALL:-C.UTF-8}
    suffix="-$language"
fi
[ -n "$locale_dir" ] && export GBGBRIDGE_LOCALEDIR=$(realpath "$locale_dir")
export DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1

for theme in light dark; do
    [ $theme = light ] && gtk_theme=Adwaita || gtk_theme=Adwaita:dark
    for state in live hint countdown review disconnected; do
        file="$out/capture-$state-$theme$suffix.png"
        GTK_THEME=$gtk_theme xvfb-run -a -s "-screen 0 1366x768x24" \
            "$host" show "$state" --screenshot "$file" >/dev/null
        echo "$file ($(($(stat -c %s "$file") / 1024)) KiB)"
    done
done
