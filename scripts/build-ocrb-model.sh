#!/usr/bin/env bash
# Builds the OCR-B model for machine-readable zones, Resources/ocr/ocrb.traineddata, from Debian
# alone: fonts-ocr-b's OCRB.otf rendered by scripts/lib/render-ocrb-training.py (python3-pil),
# then Tesseract's legacy-engine training tools from tesseract-ocr (box.train,
# unicharset_extractor, mftraining, cntraining, combine_tessdata). See docs/mrz.md.
#
#   scripts/build-ocrb-model.sh           build unless the model is up to date
#   scripts/build-ocrb-model.sh --force   build again
#   scripts/build-ocrb-model.sh --output FILE   write the model elsewhere
#
# Idempotent: the model's inputs (this script, the renderer, the font, the Tesseract version) are
# hashed into FILE.inputs, and a model whose hash matches is left alone. Reproducible: the pages
# come from a seeded generator and the training tools are deterministic, so the same inputs give
# the same bytes. Takes about 30 seconds on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

output=$top/Resources/ocr/ocrb.traineddata
force=0
while [ $# -gt 0 ]; do
    case "$1" in
        --force) force=1 ;;
        --output) shift; output=$(realpath -m "${1:?--output needs a file}") ;;
        -h | --help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "build-ocrb-model.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
case "$output" in
    *.traineddata) ;;
    *) echo "build-ocrb-model.sh: the model's file name must end in .traineddata" >&2; exit 2 ;;
esac

. scripts/lib/packages.sh
ensure_packages build-ocrb-model "${OCR_MODEL_PACKAGES[@]}"

start=$SECONDS
font=/usr/share/fonts/opentype/ocr-b/OCRB.otf
inputs=$(
    {
        sha256sum scripts/build-ocrb-model.sh scripts/lib/render-ocrb-training.py "$font" | cut -d' ' -f1
        dpkg-query -W -f='${Version}\n' tesseract-ocr libtesseract5 python3-pil
    } | sha256sum | cut -d' ' -f1
)
if [ $force = 0 ] && [ -s "$output" ] && [ "$(cat "$output.inputs" 2>/dev/null)" = "$inputs" ]; then
    echo "build-ocrb-model: $output is up to date ($(stat -c %s "$output") bytes)"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ocrb-model.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The tools print progress by the hundred lines; their output is kept for a failure only.
run() { "$@" >>"$work/log" 2>&1 || { cat "$work/log" >&2; echo "build-ocrb-model: $1 failed" >&2; exit 1; }; }

/usr/bin/python3 scripts/lib/render-ocrb-training.py "$work"
cd "$work"
# One feature file (.tr) a page, two pages at a time.
printf '%s\n' ocrb.OCRB.exp*.png | xargs -P 2 -I{} sh -c \
    'tesseract "$1" "${1%.png}" box.train >"${1%.png}.log" 2>&1 || { cat "${1%.png}.log"; exit 1; }' page {}
run unicharset_extractor ./*.box
# One font: fixed pitch; not italic, bold, serif or fraktur.
echo "OCRB 0 0 1 0 0" >font_properties
# No shapeclustering: Tesseract's training guide keeps it for Indic scripts; mftraining writes
# the shape table itself.
# A prototype needs 40 % of a character's samples, not the default 62.5 %: the degraded pages
# vary too much for the default, which leaves a character only the few features all its samples
# share.
run mftraining --clusterconfig_min_samples_fraction 0.4 \
    -F font_properties -U unicharset -O ocrb.unicharset ./*.tr
run cntraining ./*.tr
for part in inttemp pffmtable normproto shapetable; do mv "$part" "ocrb.$part"; done
run combine_tessdata ocrb.
mkdir -p "$(dirname "$output")"
install -m 0644 ocrb.traineddata "$output"
echo "$inputs" >"$output.inputs"
echo "build-ocrb-model: wrote $output ($(stat -c %s "$output") bytes) in $((SECONDS - start)) s"
