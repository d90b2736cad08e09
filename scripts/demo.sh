#!/usr/bin/env bash
# Builds gbgbridge-shell and runs the bundled demo journey.
#
#   scripts/demo.sh            with $DISPLAY: opens the demo journey in a window (your camera answers
#                              the captures, your smart-card reader the chip step); without: runs it
#                              unattended under xvfb-run, answering the captures from the test fixture
#                              images and, as root, the chip step from a virtual passport behind a
#                              private pcscd, and prints the result
#   scripts/demo.sh ARGS...    extra gbgbridge-shell options, e.g. --camera /dev/video2 or --inspector
#
# Installs the Debian packages it needs first (apt-get install -y; nothing happens when they are
# already there). Environment: SWIFT (the swift binary), OUT (where the headless screenshot, message
# log and virtual passport go, default .build/demo), DEMO_CHIP=0 (leave the virtual passport out).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

. scripts/lib/packages.sh
packages=("${BUILD_PACKAGES[@]}" "${XVFB_PACKAGES[@]}")
# Without a display, the chip step reads a virtual passport: a private pcscd in namespaces of its
# own, which needs root.
chip=0
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ "$(id -u)" -eq 0 ] && [ "${DEMO_CHIP:-1}" != 0 ]; then
    chip=1
    packages+=("${VIRTUAL_PASSPORT_PACKAGES[@]}")
fi
ensure_packages demo "${packages[@]}"

swift=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
echo "demo: building gbgbridge-shell" >&2
"$swift" build --product gbgbridge-shell >&2
scripts/build-web-extension.sh >&2
shell="$("$swift" build --show-bin-path)/gbgbridge-shell"
scripts/build-translations.sh "$("$swift" build --show-bin-path)/locale"
export GBGBRIDGE_RESOURCES="$root/Resources"

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    echo "demo: opening the demo journey in a window" >&2
    exec "$shell" "$@"
fi

out=${OUT:-$root/.build/demo}
mkdir -p "$out"
fixtures="$root/Tests/ShellTests/Fixtures"
echo "demo: no display; running the demo journey headless with scripted captures" >&2
journey=()
if [ "$chip" = 1 ]; then
    # A test passport (the ICAO specimen holder, with Chip and Active Authentication keys), opened
    # with PACE with Chip Authentication Mapping; its key goes to the demo in the URL.
    passport="$out/passport"
    sandbox="$out/nfc"
    scripts/virtual-passport.sh stop "$sandbox" >/dev/null 2>&1 || true
    /usr/bin/python3 Tests/NFCEndToEnd/make_passport.py --out "$passport" --chip-auth aes --active-auth ec
    eval "$(scripts/virtual-passport.sh start "$sandbox")"
    trap 'scripts/virtual-passport.sh stop "$sandbox" >/dev/null 2>&1 || true' EXIT
    scripts/virtual-passport.sh card "$sandbox" --passport "$passport" --pace-cam
    key="documentNumber=L898902C&dateOfBirth=690806&dateOfExpiry=940623"
    journey=("file://$root/Resources/demo/index.html?autostart=1&$key"
        --nfc-reader "$NFC_READER" --csca "$passport/csca.pem")
    echo "demo: the chip step reads a virtual passport (a test document) on '$NFC_READER'" >&2
else
    echo "demo: the chip step is left out (its virtual passport needs root; DEMO_CHIP=0 also leaves it out)" >&2
fi
started=$(date +%s%N)
status=0
result=$(DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1 xvfb-run -a -s "-screen 0 1280x1400x24" \
    "$shell" "${journey[@]}" --document-image "$fixtures/document.png" --selfie-image "$fixtures/selfie.jpg" \
    --exit-on journey.complete --timeout 60 --window-size 1280x1400 \
    --screenshot "$out/demo.png" --message-log "$out/messages.jsonl" "$@") || status=$?
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
printf 'demo: journey result (exit status %d, %d.%03d s end to end):\n' "$status" $((elapsed_ms / 1000)) $((elapsed_ms % 1000)) >&2
echo "$result"
echo "demo: screenshot: $out/demo.png" >&2
echo "demo: message log: $out/messages.jsonl" >&2
exit "$status"
