#!/bin/sh
# Transport benchmark: the Swift stack (gbgbridge-webkit-bench) and the minimal C
# WebKitGTK echo host (the floor) on the same page, under Xvfb; prints a table
# with the ratio. Usage: scripts/bench-webkit.sh
set -eu
cd "$(dirname "$0")/.."
out=.build/bench
mkdir -p "$out"
export DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1

swift build -c release --product gbgbridge-webkit-bench >/dev/null
gcc -O2 -o "$out/gbgbridge-c-floor" Benchmarks/c-floor/echo-host.c \
    $(pkg-config --cflags --libs webkit2gtk-4.1)

run() {
    xvfb-run -a -s "-screen 0 1280x1024x24" "$@" Benchmarks/bench-page.html
}
run "$(swift build -c release --show-bin-path)/gbgbridge-webkit-bench" > "$out/swift.txt"
run "$out/gbgbridge-c-floor" > "$out/floor.txt"

awk '
    FNR == NR { ours[$1] = $2; order[++n] = $1; next }
    { floor[$1] = $2 }
    END {
        printf "%-34s %14s %14s %8s\n", "measure", "ours", "C floor", "ratio"
        for (i = 1; i <= n; i++) {
            k = order[i]
            ratio = (floor[k] + 0 != 0) ? sprintf("%.2f", ours[k] / floor[k]) : "-"
            printf "%-34s %14s %14s %8s\n", k, ours[k], floor[k], ratio
        }
    }' "$out/swift.txt" "$out/floor.txt"
