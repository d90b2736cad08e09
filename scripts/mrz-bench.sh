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
real=200
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --no-peer) peer=0 ;;
        --generate-only) generate_only=1 ;;
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
scripts/build-ocrb-model.sh >&2
[ $build = 1 ] && swift build -c release --product gbgbridge-mrz-bench >&2

work=$(mktemp -d)
peer_pid=
cleanup() {
    [ -z "$peer_pid" ] || kill "$peer_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
if [ $peer = 1 ]; then
    # PassportEye 2.2.2 and what it needs, from PyPI, once per build folder.
    venv=.build/mrz-peer-venv
    if ! "$venv/bin/python" -c 'import passporteye' 2>/dev/null; then
        echo "mrz-bench: installing PassportEye in $venv" >&2
        rm -rf "$venv"
        /usr/bin/python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check 'PassportEye==2.2.2' >&2
    fi
    "$venv/bin/python" Benchmarks/mrz/peer_passporteye.py "$set_dir" --out "$work/peer.json" \
        --every "$peer_every" --jobs 1 2>"$work/peer.log" &
    peer_pid=$!
fi
"$(swift build -c release --show-bin-path)/gbgbridge-mrz-bench" --set "$set_dir" \
    --model Resources/ocr/ocrb.traineddata --live "$live" --results "$work/ours.json" "${extra[@]}" \
    | tee "$work/report"
if [ $peer = 1 ]; then
    if wait "$peer_pid"; then
        peer_pid=
        echo
        cat "$work/peer.log" >&2
        /usr/bin/python3 Benchmarks/mrz/compare_peer.py "$set_dir" --ours "$work/ours.json" --peer "$work/peer.json"
    else
        peer_pid=
        echo "mrz-bench: the peer did not finish:" >&2
        tail -5 "$work/peer.log" >&2
    fi
fi
# The wrong-keys column of the "keys all" row must be 0.
wrong=$(awk -F'|' '$2 ~ /^ keys all / { gsub(/ /, "", $5); print $5 }' "$work/report")
if [ "${wrong:-x}" != 0 ]; then
    echo "mrz-bench: a wrong access key was given (${wrong:-no summary row})" >&2
    exit 1
fi
