#!/usr/bin/env bash
# Builds gbgbridge-shell and runs the bundled demo journey.
#
#   scripts/demo.sh            with $DISPLAY: opens the demo journey in a window (your camera answers
#                              the captures, your smart-card reader the chip step); without: runs it
#                              unattended under xvfb-run and prints the result: the document photo is a
#                              rendered photograph of a test passport's data page, whose machine-readable
#                              zone the shell reads; as root, the chip step reads that same passport from a
#                              virtual chip behind a private pcscd, opened with the key read from the photo
#   scripts/demo.sh ARGS...    extra gbgbridge-shell options, e.g. --camera /dev/video2 or --inspector
#
# Installs the Debian packages it needs first (apt-get install -y; nothing happens when they are
# already there). Environment: SWIFT (the swift binary), OUT (where the headless screenshot, message
# log and virtual passport go, default .build/demo), DEMO_CHIP=0 (leave the virtual passport out).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

. scripts/lib/packages.sh
packages=("${BUILD_PACKAGES[@]}" "${XVFB_PACKAGES[@]}" "${OCR_MODEL_PACKAGES[@]}")
# Without a display, the chip step reads a virtual passport: a private pcscd in namespaces of its
# own, which needs root.
chip=0
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ "$(id -u)" -eq 0 ] && [ "${DEMO_CHIP:-1}" != 0 ]; then
    chip=1
    packages+=("${VIRTUAL_PASSPORT_PACKAGES[@]}")
fi
# Without a display, the document step is answered with a rendered photo of a data page.
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then packages+=("${MRZ_BENCH_PACKAGES[@]}"); fi
ensure_packages demo "${packages[@]}"

swift=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
echo "demo: building gbgbridge-shell" >&2
"$swift" build --product gbgbridge-shell >&2
scripts/build-web-extension.sh >&2
shell="$("$swift" build --show-bin-path)/gbgbridge-shell"
scripts/build-translations.sh "$("$swift" build --show-bin-path)/locale"
# The OCR-B model that reads document photos' machine-readable zones (nothing to do when it is up to date).
scripts/build-ocrb-model.sh >&2
export GBGBRIDGE_RESOURCES="$root/Resources"

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    echo "demo: opening the demo journey in a window" >&2
    exec "$shell" "$@"
fi

out=${OUT:-$root/.build/demo}
mkdir -p "$out"
fixtures="$root/Tests/ShellTests/Fixtures"
echo "demo: no display; running the demo journey headless with scripted captures" >&2
# The test passport: the ICAO specimen holder, with Chip and Active Authentication keys.
passport="$out/passport"
/usr/bin/python3 Tests/NFCEndToEnd/make_passport.py --out "$passport" --chip-auth aes --active-auth ec >/dev/null
# Its data page photographed on a desk (a fixed seed, so every run shows the same photo): the
# document step answers with it, and the shell reads its machine-readable zone.
mapfile -t zone < <(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["mrz"])' \
    "$passport/passport.json")
/usr/bin/python3 Benchmarks/mrz/make-mrz-set.py --document --lines "${zone[@]}" --seed 1 --quality good \
    --out "$out/data-page.jpg" >/dev/null
journey=()
if [ "$chip" = 1 ]; then
    # The same passport's chip behind a private pcscd, opened with PACE with Chip Authentication
    # Mapping. The journey gets no key: it asks for the chip with the key read from the photo.
    sandbox="$out/nfc"
    scripts/virtual-passport.sh stop "$sandbox" >/dev/null 2>&1 || true
    eval "$(scripts/virtual-passport.sh start "$sandbox")"
    trap 'scripts/virtual-passport.sh stop "$sandbox" >/dev/null 2>&1 || true' EXIT
    scripts/virtual-passport.sh card "$sandbox" --passport "$passport" --pace-cam
    journey=("file://$root/Resources/demo/index.html?autostart=1"
        --nfc-reader "$NFC_READER" --csca "$passport/csca.pem")
    echo "demo: the chip step reads the photographed passport's virtual chip (a test document) on '$NFC_READER'" >&2
else
    echo "demo: the chip step is left out (its virtual passport needs root; DEMO_CHIP=0 also leaves it out)" >&2
fi
started=$(date +%s%N)
status=0
result=$(DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1 xvfb-run -a -s "-screen 0 1280x1400x24" \
    "$shell" "${journey[@]}" --document-image "$out/data-page.jpg" --selfie-image "$fixtures/selfie.jpg" \
    --exit-on journey.complete --timeout 60 --window-size 1280x1400 \
    --screenshot "$out/demo.png" --message-log "$out/messages.jsonl" "$@") || status=$?
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
printf 'demo: journey result (exit status %d, %d.%03d s end to end):\n' "$status" $((elapsed_ms / 1000)) $((elapsed_ms % 1000)) >&2
echo "$result"
echo "demo: screenshot: $out/demo.png" >&2
echo "demo: message log: $out/messages.jsonl" >&2
exit "$status"
