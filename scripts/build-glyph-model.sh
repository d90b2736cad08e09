#!/usr/bin/env bash
# Builds the glyph model of the MRZ scanner's second reader, Resources/ocr/mrz-glyphs.bin: a small
# network that names one character cell of a zone, trained with numpy on OCR-B (fonts-ocr-b)
# printed and photographed many ways (scripts/lib/glyph_training.py). See docs/mrz.md.
#
#   scripts/build-glyph-model.sh                 build into Resources/ocr/mrz-glyphs.bin
#   scripts/build-glyph-model.sh --output FILE   write the model elsewhere
#
# The model is tracked in git (a few hundred kilobytes), so setup and packaging do not run this;
# run it after changing the training script, and record the new checksum in docs/mrz.md.
# Reproducible: every random choice comes from seeded generators and numpy runs on one thread, so
# the same script, font, numpy and Pillow give the same bytes. Takes 10 to 15 minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

output=Resources/ocr/mrz-glyphs.bin
while [ $# -gt 0 ]; do
    case "$1" in
        --output) shift; output=${1:?--output needs a file} ;;
        -h | --help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "build-glyph-model.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

. scripts/lib/packages.sh
ensure_packages build-glyph-model "${GLYPH_MODEL_PACKAGES[@]}"
mkdir -p "$(dirname "$output")"
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
    /usr/bin/python3 scripts/lib/glyph_training.py "$output"
echo "build-glyph-model: wrote $output ($(stat -c %s "$output") bytes, sha256 $(sha256sum "$output" | cut -d' ' -f1))"
