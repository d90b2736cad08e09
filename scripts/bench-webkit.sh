#!/usr/bin/env bash
# Transport benchmark: the Swift stack (gbgbridge-webkit-bench) and the minimal C WebKitGTK echo host
# (the floor) on the same page, under Xvfb. The floor runs twice: with the page posting objects, and
# posting JSON strings (as webview/webview hosts do). Each repetition runs the three once, in an order
# that rotates from one repetition to the next, so no program always runs first or last. Beside the
# page's own numbers, the web process below each program is sampled (resident set and minor page
# faults when the program ends, peak resident set; scripts/lib/webprocess-sampler.py).
#
# Prints, per measure: the median of each program with its min and max over the runs, and ours
# against the better floor for that measure (the lower for times, memory and faults, the higher for
# rates), so no ratio is flattered by picking the slower floor.
#
# Usage: scripts/bench-webkit.sh [runs]   (default 5)
#   BENCH_SWIFT_FLAGS="-Xswiftc -Osize" scripts/bench-webkit.sh   builds the Swift side with
#   those flags instead (in .build-bench-flags), e.g. as the .deb's program is optimised.
#   GBGBRIDGE_WEB_EXTENSION_DIR=off scripts/bench-webkit.sh   measures the delivery path without the
#   web-process extension (deliveries evaluated in the relay's world).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
out=.build/bench
mkdir -p "$out"
rm -f "$out"/swift-*.txt "$out"/floor-*.txt "$out"/strings-*.txt
export DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1

flags=()
# shellcheck disable=SC2206 # the flags are words
if [ -n "${BENCH_SWIFT_FLAGS:-}" ]; then flags=(--scratch-path .build-bench-flags $BENCH_SWIFT_FLAGS); fi
swift build -c release --product gbgbridge-webkit-bench "${flags[@]}" >/dev/null 2>&1
bench="$(swift build -c release "${flags[@]}" --show-bin-path)/gbgbridge-webkit-bench"
# The web-process extension where the program looks for it (GBGBRIDGE_WEB_EXTENSION_DIR=off measures without).
scripts/build-web-extension.sh "$(dirname "$(dirname "$bench")")/web-extension"
# shellcheck disable=SC2046 # pkg-config's words
gcc -O2 -o "$out/gbgbridge-c-floor" Benchmarks/c-floor/echo-host.c $(pkg-config --cflags --libs webkit2gtk-4.1)

# run NAME INDEX PROGRAM [ARGS...]: one run on the page, its numbers and its web process's in $out/NAME-INDEX.txt.
run() {
    local name=$1 index=$2
    shift 2
    xvfb-run -a -s "-screen 0 1280x1024x24" "$@" Benchmarks/bench-page.html >"$out/$name-$index.txt" &
    local program=$!
    /usr/bin/python3 scripts/lib/webprocess-sampler.py "$program" >"$out/$name-$index.web" &
    local sampler=$!
    wait "$program"
    wait "$sampler"
    cat "$out/$name-$index.web" >>"$out/$name-$index.txt"
    rm -f "$out/$name-$index.web"
}
programs=(swift floor strings)
for ((i = 1; i <= runs; i++)); do
    for ((k = 0; k < 3; k++)); do
        case ${programs[(i + k) % 3]} in
            swift) run swift "$i" "$bench" ;;
            floor) run floor "$i" "$out/gbgbridge-c-floor" ;;
            strings) run strings "$i" "$out/gbgbridge-c-floor" --strings ;;
        esac
    done
done

echo "WebKitGTK transport benchmark, $runs rotated runs: median [min-max]; lower is better but for per_s"
awk '
    function sorted(list, a,    n, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n
    }
    function median(list,    a, n) { n = sorted(list, a); return n ? a[int((n + 1) / 2)] : "" }
    function spread(list,    a, n) { n = sorted(list, a); return n ? median(list) " [" a[1] "-" a[n] "]" : "-" }
    FILENAME ~ /swift-/ { if (!($1 in ours)) order[++n] = $1; ours[$1] = ours[$1] " " $2; next }
    FILENAME ~ /strings-/ { strings[$1] = strings[$1] " " $2; next }
    { floor[$1] = floor[$1] " " $2 }
    END {
        printf "%-30s %-26s %-26s %-26s %7s\n", "measure", "ours", "object floor", "string floor", "/best"
        for (i = 1; i <= n; i++) {
            k = order[i]; o = median(ours[k]); f = median(floor[k]); t = median(strings[k])
            higher = (k ~ /per_s$/)
            best = f
            if (t != "" && (f == "" || (higher ? t + 0 > f + 0 : t + 0 < f + 0))) best = t
            r = (best + 0 != 0) ? sprintf("%.2f", o / best) : "-"
            printf "%-30s %-26s %-26s %-26s %7s\n", k, spread(ours[k]), spread(floor[k]), spread(strings[k]), r
        }
    }' "$out"/swift-*.txt "$out"/floor-*.txt "$out"/strings-*.txt
