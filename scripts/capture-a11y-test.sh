#!/usr/bin/env bash
# The capture dialog and the chip-reading window as assistive technologies see them, plus the
# capture dialog's size on small screens:
#   - AT-SPI: each window on a private session bus with the accessibility bus, checked from Python
#     (Tests/GBGBridgeCaptureA11y/check_capture_dialog.py, check_nfc_window.py): names, roles, focus,
#     announcements;
#   - size: the dialog fits the work area of 1024x600 and 1366x768 screens;
#   - languages: in each language of po/LINGUAS, no English is left in either window's accessible texts.
#   scripts/capture-a11y-test.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

bin="$(swift build --show-bin-path)"
if [ "${1:-}" != --no-build ]; then
    swift build --product gbgbridge-dialog-testhost >&2
    scripts/build-translations.sh "$bin/locale" >&2
fi
host="$bin/gbgbridge-dialog-testhost"
[ -x "$host" ] || { echo "capture-a11y-test: no $host (build it first)" >&2; exit 1; }

failed=0
for screen in 1024x600 1366x768; do
    line=$(DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1 \
        xvfb-run -a -s "-screen 0 ${screen}x24" "$host" size 2>/dev/null | grep '^window' || true)
    read -r _ width height _ area_width area_height <<<"${line:-x 0 0 x 0 0}"
    if [ "${width:-0}" -gt 0 ] && [ "$width" -le "$area_width" ] && [ "$height" -le "$area_height" ]; then
        echo "ok - on a $screen screen the dialog is ${width}x${height} (work area ${area_width}x${area_height})"
    else
        echo "not ok - on a $screen screen the dialog does not fit: '${line:-no output}'"
        failed=1
    fi
done

# Debian's python3-gi belongs to /usr/bin/python3 (not to a python3 from pyenv or a venv earlier on PATH).
# GTK loads the AT-SPI bridge unless told not to; the accessibility bus is started on demand
# (org.a11y.Bus on the private session bus).
unset NO_AT_BRIDGE GTK_A11Y
xvfb-run -a -s "-screen 0 1280x1024x24" \
    dbus-run-session -- /usr/bin/python3 Tests/GBGBridgeCaptureA11y/check_capture_dialog.py "$host" || failed=1
xvfb-run -a -s "-screen 0 1280x1024x24" \
    dbus-run-session -- /usr/bin/python3 Tests/GBGBridgeCaptureA11y/check_nfc_window.py "$host" || failed=1

# The same dialog in each translated language: no English left in what a screen reader reads.
for language in $(sed -e "s/#.*//" po/LINGUAS); do
    LANGUAGE=$language LC_ALL=C.UTF-8 GBGBRIDGE_LOCALEDIR="$bin/locale" xvfb-run -a -s "-screen 0 1280x1024x24" \
        dbus-run-session -- /usr/bin/python3 Tests/GBGBridgeCaptureA11y/check_capture_language.py \
        "$host" "$language" "$bin/locale" || failed=1
done
exit $failed
