#!/usr/bin/env bash
# Builds the line model of the MRZ scanner, Resources/ocr/mrz-lines.onnx: a small fully
# convolutional network that reads one whole zone line with a CTC output (no character
# segmentation), trained with PyTorch on OCR-B (fonts-ocr-b) printed and photographed many ways
# (scripts/lib/line_training.py, which builds on scripts/lib/glyph_training.py). See docs/mrz.md.
#
#   scripts/build-line-model.sh                 build into Resources/ocr/mrz-lines.onnx
#   scripts/build-line-model.sh --output FILE   write the model elsewhere
#
# The model is tracked in git (a few hundred kilobytes), so setup and packaging do not run this;
# run it after changing the training script, and record the new checksum in docs/mrz.md.
# PyTorch 2.5.1 (CPU), onnx (its ONNX exporter needs it), numpy and Pillow at pinned versions come from PyPI into a virtual
# environment under .build/ (made once). Reproducible: every random choice comes from seeded
# generators and PyTorch runs deterministic kernels on two threads. Takes about 30 minutes on two
# cores.
set -euo pipefail
cd "$(dirname "$0")/.."

output=Resources/ocr/mrz-lines.onnx
while [ $# -gt 0 ]; do
    case "$1" in
        --output) shift; output=${1:?--output needs a file} ;;
        -h | --help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "build-line-model.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

. scripts/lib/packages.sh
ensure_packages build-line-model "${LINE_MODEL_PACKAGES[@]}"
venv=.build/line-model-venv
requirements=('torch==2.5.1' 'onnx==1.17.0' 'numpy==1.26.4' 'pillow==10.4.0')
if ! "$venv/bin/python" -c 'import torch, onnx, numpy, PIL' 2>/dev/null; then
    echo "build-line-model: installing ${requirements[*]} in $venv" >&2
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}" >&2
fi
mkdir -p "$(dirname "$output")"
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=2 MKL_NUM_THREADS=2 PYTHONHASHSEED=0 \
    "$venv/bin/python" scripts/lib/line_training.py "$output"
echo "build-line-model: wrote $output ($(stat -c %s "$output") bytes, sha256 $(sha256sum "$output" | cut -d' ' -f1))"
