#!/usr/bin/env bash
# The MRZ benchmark: generates the document photo set (Benchmarks/mrz/make-mrz-set.py, 520 frames
# of 1920x1080, good and hard) and reads every frame as a still, a first part of them also as a
# live preview, with the OCR-B model (scripts/build-ocrb-model.sh). Prints the table recorded in
# docs/mrz.md; fails only when a wrong zone was accepted (which must never happen), never on a
# share or a time.
#
#   scripts/mrz-bench.sh [--no-build] [--set DIR] [--live N] [extra gbgbridge-mrz-bench options]
#   scripts/mrz-bench.sh --generate-only [--set DIR]   only makes the photo set (the suite does this
#                                                      in the background, ahead of the benchmark)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
. scripts/lib/packages.sh
ensure_packages mrz-bench "${MRZ_BENCH_PACKAGES[@]}" "${OCR_MODEL_PACKAGES[@]}"

build=1
generate_only=0
set_dir=.build/mrz-set
live=40
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --generate-only) generate_only=1 ;;
        --set) set_dir=$2; shift ;;
        --live) live=$2; shift ;;
        *) extra+=("$1") ;;
    esac
    shift
done

if ! /usr/bin/python3 Benchmarks/mrz/check_set.py "$set_dir" >/dev/null 2>&1; then
    echo "mrz-bench: generating the photo set in $set_dir" >&2
    start=$SECONDS
    /usr/bin/python3 Benchmarks/mrz/make-mrz-set.py --out "$set_dir" >/dev/null
    echo "mrz-bench: 520 photos in $((SECONDS - start)) s" >&2
fi
[ $generate_only = 0 ] || exit 0
scripts/build-ocrb-model.sh >&2
[ $build = 1 ] && swift build -c release --product gbgbridge-mrz-bench >&2
report=$(mktemp)
trap 'rm -f "$report"' EXIT
"$(swift build -c release --show-bin-path)/gbgbridge-mrz-bench" --set "$set_dir" \
    --model Resources/ocr/ocrb.traineddata --live "$live" "${extra[@]}" | tee "$report"
# The wrong-reads columns (still and live) of the "all" row must both be 0.
wrong=$(awk -F'|' '$2 ~ /^ all / { gsub(/ /, "", $5); gsub(/ /, "", $7); print $5 + $7 }' "$report")
if [ "${wrong:-x}" != 0 ]; then
    echo "mrz-bench: a wrong zone was accepted (${wrong:-no summary row})" >&2
    exit 1
fi
