#!/bin/sh
# Transport benchmark: the Swift stack (gbgbridge-webkit-bench) and the minimal C
# WebKitGTK echo host (the floor) on the same page, under Xvfb, alternating runs.
# The floor runs twice: with the page posting objects, and posting JSON strings
# (as webview/webview hosts do). Prints the median of each number over the runs
# and the ratios ours / object floor and ours / string floor.
# Usage: scripts/bench-webkit.sh [runs]   (default 3)
#   BENCH_SWIFT_FLAGS="-Xswiftc -Osize" scripts/bench-webkit.sh   builds the Swift side with
#   those flags instead (in .build-bench-flags), e.g. as the .deb's program is optimised.
set -eu
cd "$(dirname "$0")/.."
runs=${1:-3}
out=.build/bench
mkdir -p "$out"
rm -f "$out"/swift-*.txt "$out"/floor-*.txt "$out"/strings-*.txt
export DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1

# shellcheck disable=SC2086 # the flags are words
if [ -n "${BENCH_SWIFT_FLAGS:-}" ]; then set -- --scratch-path .build-bench-flags $BENCH_SWIFT_FLAGS; else set --; fi
swift build -c release --product gbgbridge-webkit-bench "$@" >/dev/null 2>&1
bench="$(swift build -c release "$@" --show-bin-path)/gbgbridge-webkit-bench"
gcc -O2 -o "$out/gbgbridge-c-floor" Benchmarks/c-floor/echo-host.c \
    $(pkg-config --cflags --libs webkit2gtk-4.1)

run() {
    xvfb-run -a -s "-screen 0 1280x1024x24" "$@" Benchmarks/bench-page.html
}
i=1
while [ "$i" -le "$runs" ]; do
    run "$bench" > "$out/swift-$i.txt"
    run "$out/gbgbridge-c-floor" > "$out/floor-$i.txt"
    run "$out/gbgbridge-c-floor" --strings > "$out/strings-$i.txt"
    i=$((i + 1))
done

echo "WebKitGTK transport benchmark, median of $runs runs (lower is better for ms, higher for per_s)"
awk '
    function median(list,    n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return a[int((n + 1) / 2)]
    }
    FILENAME ~ /swift-/ { if (!($1 in ours)) order[++n] = $1; ours[$1] = ours[$1] " " $2; next }
    FILENAME ~ /strings-/ { strings[$1] = strings[$1] " " $2; next }
    { floor[$1] = floor[$1] " " $2 }
    function ratio(a, b) { return (b + 0 != 0) ? sprintf("%.2f", a / b) : "-" }
    END {
        printf "%-34s %10s %10s %10s %8s %8s\n", "measure", "ours", "obj floor", "str floor", "/obj", "/str"
        for (i = 1; i <= n; i++) {
            k = order[i]; o = median(ours[k]); f = median(floor[k]); t = median(strings[k])
            printf "%-34s %10s %10s %10s %8s %8s\n", k, o, f, t, ratio(o, f), ratio(o, t)
        }
    }' "$out"/swift-*.txt "$out"/floor-*.txt "$out"/strings-*.txt
