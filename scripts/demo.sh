#!/usr/bin/env bash
# Builds gbgbridge-shell and runs the bundled demo journey.
#
#   scripts/demo.sh            with $DISPLAY: opens the demo journey in a window (your camera answers
#                              the captures); without: runs it unattended under xvfb-run, answering
#                              the captures from the test fixture images, and prints the result
#   scripts/demo.sh ARGS...    extra gbgbridge-shell options, e.g. --camera /dev/video2 or --inspector
#
# Installs the Debian packages it needs first (apt-get install -y; nothing happens when they are
# already there). Environment: SWIFT (the swift binary), OUT (where the headless screenshot and
# message log go, default .build/demo).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

packages=(libwebkit2gtk-4.1-dev libgtk-3-dev libv4l-dev xvfb xauth gettext)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "demo: installing ${missing[*]}" >&2
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -o DPkg::Lock::Timeout=600 >/dev/null
    "${sudo[@]}" apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}" >/dev/null
fi

swift=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
echo "demo: building gbgbridge-shell" >&2
"$swift" build --product gbgbridge-shell >&2
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
started=$(date +%s%N)
status=0
result=$(DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1 xvfb-run -a -s "-screen 0 1280x1024x24" \
    "$shell" --document-image "$fixtures/document.png" --selfie-image "$fixtures/selfie.jpg" \
    --exit-on journey.complete --timeout 60 \
    --screenshot "$out/demo.png" --message-log "$out/messages.jsonl" "$@") || status=$?
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
printf 'demo: journey result (exit status %d, %d.%03d s end to end):\n' "$status" $((elapsed_ms / 1000)) $((elapsed_ms % 1000)) >&2
echo "$result"
echo "demo: screenshot: $out/demo.png" >&2
echo "demo: message log: $out/messages.jsonl" >&2
exit "$status"
