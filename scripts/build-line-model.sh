#!/usr/bin/env bash
# Builds the line model of the MRZ scanner, Resources/ocr/mrz-lines.onnx: a small fully
# convolutional network that reads one whole zone line with a CTC output (no character
# segmentation), trained with PyTorch on OCR-B (fonts-ocr-b) printed and photographed many ways
# (scripts/lib/line_training.py, which builds on scripts/lib/glyph_training.py), then trained
# further on zone lines cut from generated photos exactly as the scanner cuts them. See docs/mrz.md.
#
#   scripts/build-line-model.sh                      build into Resources/ocr/mrz-lines.onnx
#   scripts/build-line-model.sh --output FILE        write the model elsewhere
#   scripts/build-line-model.sh --pretrained FILE    skip the first phase: FILE is its result
#
# Two phases, one command:
#  1. pre-training on 2,400 rendered lines, 6 epochs (seed 4207): .build/line-model/pretrained.onnx
#     (the previous model, sha256 db9cf80d...fc10, was this phase's result);
#  2. cut lines: photos of Benchmarks/mrz/make-mrz-set.py with training seeds of their own (5001
#     and 5002 for training, 5003 held out; never the benchmark's 27 nor the development set's
#     101), each cut by the locator and ZoneCrop in every preparation and prepared by the line
#     reader (`gbgbridge-mrz-bench --dump-lines`, reading with the phase-1 model, which keeps a
#     crop only when every line read within a third of its characters), then the phase-1 network
#     trained further on those lines (a large share) mixed with 1,200 freshly rendered ones.
# The bench needs Resources/ocr/ocrb.traineddata (scripts/build-ocrb-model.sh) and a release
# build of gbgbridge-mrz-bench, which this makes.
#
# The model is tracked in git (a few hundred kilobytes), so setup and packaging do not run this;
# run it after changing the training script, and record the new checksum in docs/mrz.md.
# PyTorch 2.5.1 (CPU), onnx (its ONNX exporter needs it), numpy and Pillow at pinned versions come from PyPI into a virtual
# environment under .build/ (made once). Reproducible: every random choice comes from seeded
# generators and PyTorch runs deterministic kernels on two threads. Takes about an hour on two
# shared cores (phase 1 about 30 minutes, the photos and their cut lines 15, phase 2 10 to 15).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

output=Resources/ocr/mrz-lines.onnx
pretrained=
while [ $# -gt 0 ]; do
    case "$1" in
        --output) shift; output=${1:?--output needs a file} ;;
        --pretrained) shift; pretrained=${1:?--pretrained needs a file} ;;
        -h | --help) sed -n '2,23s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "build-line-model.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

. scripts/lib/packages.sh
ensure_packages build-line-model "${LINE_MODEL_PACKAGES[@]}" "${MRZ_BENCH_PACKAGES[@]}"
if [ ! -s Resources/ocr/ocrb.traineddata ]; then
    echo "build-line-model: Resources/ocr/ocrb.traineddata is missing (scripts/build-ocrb-model.sh builds it)" >&2
    exit 1
fi
venv=.build/line-model-venv
requirements=('torch==2.5.1' 'onnx==1.17.0' 'numpy==1.26.4' 'pillow==10.4.0')
if ! "$venv/bin/python" -c 'import torch, onnx, numpy, PIL' 2>/dev/null; then
    echo "build-line-model: installing ${requirements[*]} in $venv" >&2
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}" >&2
fi
work=.build/line-model
mkdir -p "$(dirname "$output")" "$work"
train() {
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=2 MKL_NUM_THREADS=2 PYTHONHASHSEED=0 \
        "$venv/bin/python" scripts/lib/line_training.py "$@"
}

# Phase 1: rendered lines only.
if [ -z "$pretrained" ]; then
    pretrained=$work/pretrained.onnx
    train "$pretrained"
fi

# The cut lines: photos of training seeds, cut and prepared by the scanner's own code.
swift build -c release --product gbgbridge-mrz-bench >&2
models=$work/models
mkdir -p "$models"
ln -sf "$PWD/Resources/ocr/ocrb.traineddata" "$models/ocrb.traineddata"
cp "$pretrained" "$models/mrz-lines.onnx"
cut_lines() { # seed, good and hard photos, real-looking photos
    local set=$work/set-$1 lines=$work/cut-$1
    if [ ! -s "$set/manifest.json" ]; then
        /usr/bin/python3 Benchmarks/mrz/make-mrz-set.py --out "$set" --count "$2" --real "$3" --seed "$1" --jobs 2
    fi
    rm -rf "$lines"
    .build/release/gbgbridge-mrz-bench --set "$set" --model "$models/ocrb.traineddata" --jobs 2 --dump-lines "$lines"
}
cut_lines 5001 60 100
cut_lines 5002 140 260
cut_lines 5003 20 40

# Phase 2: the phase-1 network trained further, mostly on the cut lines.
train "$output" --start-from "$pretrained" --cut-lines "$work/cut-5001" --cut-lines "$work/cut-5002" \
    --check-cut-lines "$work/cut-5003" --lines 1200 --seed 4307 --check-seed 4208 --epochs 2 --learning-rate 1e-3
echo "build-line-model: wrote $output ($(stat -c %s "$output") bytes, sha256 $(sha256sum "$output" | cut -d' ' -f1))"
