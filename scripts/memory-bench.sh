#!/bin/sh
# Peak memory of the shell process for large bridge messages, under Xvfb.
# Prints the shell's peak resident set (VmHWM) for a page at rest, for 30 accepted
# 60 MiB events, and for one rejected 1 GiB event, plus the page's own view; `request` times one
# 60 MiB request while small queries go on (the page reports both); `captures` makes 60 document
# captures in a row answered with a 16.5 MiB PNG (--document-image). The web process is sampled too.
# Extra shell options go in
# MEMORY_BENCH_SHELL_OPTIONS (e.g. "--message-log /tmp/log.jsonl").
# Usage: scripts/memory-bench.sh [rest|accepted|oversize|request|captures ...]   (builds the release shell first)
set -eu
cd "$(dirname "$0")/.."
export DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1
swift build -c release --product gbgbridge-shell >/dev/null 2>&1
shell="$(swift build -c release --show-bin-path)/gbgbridge-shell"
scripts/build-web-extension.sh >/dev/null
page="$(pwd)/Benchmarks/memory/big-messages.html"
out=.build/bench
mkdir -p "$out"

# For `captures`: a 16.5 MiB document photo (noise, so PNG cannot shrink it), made once.
photo=$out/noise-2400x2400.png
if echo " ${*:-} " | grep -q ' captures '; then
    [ -s "$photo" ] || python3 - "$photo" <<'PY'
import os, struct, sys, zlib
width = height = 2400
raw = b"".join(b"\0" + os.urandom(width * 3) for _ in range(height))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
fi
# Runs the shell on the page with $1 as fragment; prints the peak RSS in MiB and the page's result.
measure() {
    options=${MEMORY_BENCH_SHELL_OPTIONS:-}
    [ "$1" != captures ] || options="$options --document-image $photo"
    # shellcheck disable=SC2086 # the options are words
    xvfb-run -a "$shell" --headless --camera none --no-console --exit-on bench.done --timeout 300 \
        $options \
        "file://$page#$1" > "$out/memory-$1.json" 2> "$out/memory-$1.err" &
    wrapper=$!
    peak=0
    last=0
    pid=""
    web=""
    webpeak=0
    weblast=0
    start=$(date +%s.%N)
    while kill -0 "$wrapper" 2>/dev/null; do
        [ -n "$pid" ] || pid=$(pgrep -n -f "^$shell " || true)
        if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
            kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
            [ "${kb:-0}" -gt "$peak" ] && peak=$kb
            rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
            [ -n "$rss" ] && last=$rss
            [ -n "$web" ] || web=$(pgrep -n -P "$pid" -f WebKitWebProcess || true)
        fi
        if [ -n "$web" ] && [ -r "/proc/$web/status" ]; then
            kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$web/status" 2>/dev/null || echo 0)
            [ "${kb:-0}" -gt "$webpeak" ] && webpeak=$kb
            rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$web/status" 2>/dev/null || echo 0)
            [ -n "$rss" ] && weblast=$rss
        fi
        sleep 0.05
    done
    wait "$wrapper" || true
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    printf '%-9s shell peak RSS %5d MiB, at the end %5d MiB; web process peak %5d MiB, at the end %5d MiB; %5.1f s   page: %s\n' \
        "$1" $((peak / 1024)) $((last / 1024)) $((webpeak / 1024)) $((weblast / 1024)) "$seconds" \
        "$(cat "$out/memory-$1.json")"
}
for mode in ${*:-rest accepted oversize}; do measure "$mode"; done
