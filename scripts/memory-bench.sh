#!/bin/sh
# Peak memory of the shell process for large bridge messages, under Xvfb.
# Prints the shell's peak resident set (VmHWM) for a page at rest, for 30 accepted
# 60 MiB events, and for one rejected 1 GiB event, plus the page's own view; `request` times one
# 60 MiB request while small queries go on (the page reports both). Extra shell options go in
# MEMORY_BENCH_SHELL_OPTIONS (e.g. "--message-log /tmp/log.jsonl").
# Usage: scripts/memory-bench.sh [rest|accepted|oversize|request ...]   (builds the release shell first)
set -eu
cd "$(dirname "$0")/.."
export DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1
swift build -c release --product gbgbridge-shell >/dev/null 2>&1
shell="$(swift build -c release --show-bin-path)/gbgbridge-shell"
page="$(pwd)/Benchmarks/memory/big-messages.html"
out=.build/bench
mkdir -p "$out"

# Runs the shell on the page with $1 as fragment; prints the peak RSS in MiB and the page's result.
measure() {
    # shellcheck disable=SC2086 # the options are words
    xvfb-run -a "$shell" --headless --camera none --no-console --exit-on bench.done --timeout 300 \
        ${MEMORY_BENCH_SHELL_OPTIONS:-} \
        "file://$page#$1" > "$out/memory-$1.json" 2> "$out/memory-$1.err" &
    wrapper=$!
    peak=0
    last=0
    pid=""
    start=$(date +%s.%N)
    while kill -0 "$wrapper" 2>/dev/null; do
        [ -n "$pid" ] || pid=$(pgrep -n -f "^$shell " || true)
        if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
            kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
            [ "${kb:-0}" -gt "$peak" ] && peak=$kb
            rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
            [ -n "$rss" ] && last=$rss
        fi
        sleep 0.05
    done
    wait "$wrapper" || true
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    printf '%-9s shell peak RSS %5d MiB, at the end %5d MiB, %5.1f s   page: %s\n' \
        "$1" $((peak / 1024)) $((last / 1024)) "$seconds" "$(cat "$out/memory-$1.json")"
}
for mode in ${*:-rest accepted oversize}; do measure "$mode"; done
