#!/usr/bin/env bash
# The MRZ benchmark: generates the document photo set (Benchmarks/mrz/make-mrz-set.py, seed 27:
# 520 frames of 1920x1080, good and hard, and 200 real-looking ones) and reads every frame as a
# still, a first part of them also as a live preview, with the OCR-B model
# (scripts/build-ocrb-model.sh). Meanwhile, on the other core, a peer (PassportEye with
# Tesseract's stock English model, in a virtual environment made here) reads a fixed third of the
# images (the first of each split and every third after it); the two are set side by side on
# those images. Prints the tables recorded in docs/mrz.md; fails only when a wrong access key was
# given (which must never happen), never on a share or a time.
#
#   scripts/mrz-bench.sh [--no-build] [--no-peer] [--set DIR] [--live N] [--peer-every N]
#                        [extra gbgbridge-mrz-bench options]
#   scripts/mrz-bench.sh --generate-only [--set DIR]   only makes the photo set (the suite does this
#                                                      in the background, ahead of the benchmark)
#   scripts/mrz-bench.sh --peer-only FILE [--set DIR]  only runs the peer, writing its results to FILE
#                                                      (the suite runs it in the background too)
#   scripts/mrz-bench.sh --peer-results FILE ...       sets the peer's results in FILE beside ours
#                                                      instead of running the peer here
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
. scripts/lib/packages.sh
ensure_packages mrz-bench "${MRZ_BENCH_PACKAGES[@]}" "${OCR_MODEL_PACKAGES[@]}" "${MRZ_PEER_PACKAGES[@]}"

build=1
generate_only=0
peer=1
set_dir=.build/mrz-set
live=40
peer_every=3
peer_only=
peer_results=
real=200
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --no-peer) peer=0 ;;
        --generate-only) generate_only=1 ;;
        --peer-only) peer_only=$2; shift ;;
        --peer-results) peer_results=$2; shift ;;
        --set) set_dir=$2; shift ;;
        --live) live=$2; shift ;;
        --peer-every) peer_every=$2; shift ;;
        *) extra+=("$1") ;;
    esac
    shift
done

if ! /usr/bin/python3 Benchmarks/mrz/check_set.py "$set_dir" --min-real "$real" >/dev/null 2>&1; then
    echo "mrz-bench: generating the photo set in $set_dir" >&2
    start=$SECONDS
    rm -rf "$set_dir"
    /usr/bin/python3 Benchmarks/mrz/make-mrz-set.py --out "$set_dir" --real "$real" >/dev/null
    echo "mrz-bench: $((520 + real)) photos in $((SECONDS - start)) s" >&2
fi
[ $generate_only = 0 ] || exit 0

# Runs the peer (PassportEye 2.2.2 and what it needs, from PyPI, installed once per build folder)
# on its third of the set: results to $1, its messages to $1.log.
run_peer() {
    local venv=.build/mrz-peer-venv
    if ! "$venv/bin/python" -c 'import passporteye' 2>/dev/null; then
        echo "mrz-bench: installing PassportEye in $venv" >&2
        rm -rf "$venv"
        /usr/bin/python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check 'PassportEye==2.2.2' >&2
    fi
    "$venv/bin/python" Benchmarks/mrz/peer_passporteye.py "$set_dir" --out "$1" \
        --every "$peer_every" --jobs 1 2>"$1.log"
}
if [ -n "$peer_only" ]; then
    rm -f "$peer_only"
    run_peer "$peer_only"
    exit
fi

scripts/build-ocrb-model.sh >&2
[ $build = 1 ] && swift build -c release --product gbgbridge-mrz-bench >&2

work=$(mktemp -d)
peer_pid=
cleanup() {
    [ -z "$peer_pid" ] || kill "$peer_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
peer_json=$work/peer.json
if [ $peer = 1 ] && [ -n "$peer_results" ] && [ -s "$peer_results" ]; then
    # The peer read its third ahead of this run (on the same set).
    peer_json=$peer_results
elif [ $peer = 1 ]; then
    [ -z "$peer_results" ] || echo "mrz-bench: no peer results in $peer_results; running the peer now" >&2
    run_peer "$peer_json" &
    peer_pid=$!
fi
"$(swift build -c release --show-bin-path)/gbgbridge-mrz-bench" --set "$set_dir" \
    --model Resources/ocr/ocrb.traineddata --live "$live" --results "$work/ours.json" "${extra[@]}" \
    | tee "$work/report"
if [ $peer = 1 ]; then
    if [ -z "$peer_pid" ] || wait "$peer_pid"; then
        peer_pid=
        echo
        cat "$peer_json.log" >&2 2>/dev/null || true
        /usr/bin/python3 Benchmarks/mrz/compare_peer.py "$set_dir" --ours "$work/ours.json" --peer "$peer_json"
    else
        peer_pid=
        echo "mrz-bench: the peer did not finish:" >&2
        tail -5 "$peer_json.log" >&2
    fi
fi
# The wrong-keys column of the "keys all" row must be 0.
wrong=$(awk -F'|' '$2 ~ /^ keys all / { gsub(/ /, "", $5); print $5 }' "$work/report")
if [ "${wrong:-x}" != 0 ]; then
    echo "mrz-bench: a wrong access key was given (${wrong:-no summary row})" >&2
    exit 1
fi
