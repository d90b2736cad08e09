#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/, a package of its own), replays every saved corpus, then
# fuzzes each target with new inputs:
#   json   GBGBridgeFuzz: the bridge core's JSON parser/writer and the host's receive path,
#          for FUZZ_SECONDS (default 60), corpus Fuzz/Corpus
#   tlv common dg1 dg2 dg11 dg12 dg14 dg15 cardAccess cardSecurity securityObject
#          EMRTDFuzz with CHIP_FUZZ_TARGET set: the chip file parsers (EMRTD's ChipFileParser),
#          for FUZZ_CHIP_SECONDS each (default 8), corpora Fuzz/Corpus-chip/<target>
#   mrz    MRZReaderFuzz: OCR text read as a machine-readable zone (MRZReader), for
#          FUZZ_CHIP_SECONDS (default 8), corpus Fuzz/Corpus-mrz
#   mrzimage  MRZImageFuzz: a small photo searched for zones and cut into crops (MRZScanner, no
#          OCR), for FUZZ_CHIP_SECONDS (default 8), corpus Fuzz/Corpus-mrzimage
#   ocrmodel  OCRModelFuzz: a Tesseract model file's table of contents and component starts
#          (OCREngine's TrainedDataLayout), for FUZZ_CHIP_SECONDS (default 8), corpus Fuzz/Corpus-ocrmodel
#
#   scripts/fuzz.sh                  every target
#   scripts/fuzz.sh dg2 tlv          only these (e.g. FUZZ_CHIP_SECONDS=3600 scripts/fuzz.sh dg2)
#   scripts/fuzz.sh --build-only     only build the targets (the suite does this in the background)
#
# Targets are fuzzed FUZZ_JOBS at a time (default: one per core); each uses one core.
#
# Prints one line per target, e.g. `fuzz dg2: 324163 executions in 9.3 s, corpus 328, no crashes`.
# Exits non-zero when a target crashes, leaks, times out or runs out of memory, in the replay or
# while fuzzing; the input that did it is saved in Fuzz/Findings/<target>/ and replayed by every
# later run until the parser is fixed (then move it into the target's corpus). Logs are in
# Fuzz/.build/fuzz/logs/.
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
export PATH="$PATH:/opt/swift/usr/bin"
export SWIFT_BACKTRACE=enable=no
json_seconds="${FUZZ_SECONDS:-60}"
chip_seconds="${FUZZ_CHIP_SECONDS:-8}"
jobs="${FUZZ_JOBS:-$(nproc)}"
build_only=0
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi
build_path=.build/fuzz
chip_targets=(tlv common dg1 dg2 dg11 dg12 dg14 dg15 cardAccess cardSecurity securityObject)

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json "${chip_targets[@]}" mrz mrzimage ocrmodel)
for target in "${targets[@]}"; do
    if [ "$target" != json ] && [ "$target" != mrz ] && [ "$target" != mrzimage ] && [ "$target" != ocrmodel ] \
        && [[ " ${chip_targets[*]} " != *" $target "* ]]; then
        echo "fuzz.sh: unknown target $target (json ${chip_targets[*]} mrz mrzimage ocrmodel)" >&2
        exit 2
    fi
done

# SwiftPM does not notice files added to a path dependency unless the manifest changes,
# so make it plan the build again.
touch Package.swift
swift build -c release --sanitize fuzzer \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld --build-path "$build_path"
bin="$build_path/release"
[ $build_only = 0 ] || exit 0

logs="$build_path/logs"
mkdir -p "$logs"
failed=()

# The binary, corpus, dictionary and longest input of `target`, and whether each new input is
# checked for leaks as it is found; CHIP_FUZZ_TARGET is exported for chip targets.
configure() {
    local target=$1
    leaks_per_input=1
    if [ "$target" = json ]; then
        fuzzer="$bin/GBGBridgeFuzz" corpus=Corpus dict=json.dict max_len=4096 seconds=$json_seconds
        unset CHIP_FUZZ_TARGET
    elif [ "$target" = mrz ]; then
        # Longer than MRZText.maximumBytes, so the size limit is fuzzed too.
        fuzzer="$bin/MRZReaderFuzz" corpus=Corpus-mrz dict=mrz.dict max_len=9000 seconds=$chip_seconds
        unset CHIP_FUZZ_TARGET
    elif [ "$target" = ocrmodel ]; then
        fuzzer="$bin/OCRModelFuzz" corpus=Corpus-ocrmodel dict=ocrmodel.dict max_len=4096 seconds=$chip_seconds
        unset CHIP_FUZZ_TARGET
    elif [ "$target" = mrzimage ]; then
        fuzzer="$bin/MRZImageFuzz" corpus=Corpus-mrzimage dict=mrz.dict max_len=70000 seconds=$chip_seconds
        unset CHIP_FUZZ_TARGET
    else
        fuzzer="$bin/EMRTDFuzz" corpus="Corpus-chip/$target" dict=chip.dict seconds=$chip_seconds
        max_len=$([ "$target" = dg2 ] && echo 65536 || echo 8192)
        export CHIP_FUZZ_TARGET="$target"
    fi
    # libcrypto fills caches as new inputs reach new algorithms, so nearly every new input of the
    # targets it parses looks like a leak and costs a full heap scan (3 to 12 times fewer
    # executions). Those check for leaks at exit instead, and per input in the replay.
    case "$target" in dg15 | cardSecurity | securityObject) leaks_per_input=0 ;; esac
    findings="Findings/$target"
    mkdir -p "$findings"
}

# What went wrong, from a libFuzzer log, and where the input that did it was saved.
diagnose() {
    local log=$1 kind
    if grep -q "ERROR: libFuzzer: timeout" "$log"; then kind=timeout
    elif grep -q "ERROR: libFuzzer: out-of-memory" "$log"; then kind="out of memory"
    elif grep -q "ERROR: LeakSanitizer" "$log"; then kind=leak
    elif grep -q "ERROR: AddressSanitizer" "$log"; then
        kind="crash ($(grep -m1 -o "AddressSanitizer: [a-z-]*" "$log"))"
    elif grep -q "Fatal error:" "$log"; then kind="crash (Swift $(grep -m1 -o "Fatal error:.*" "$log"))"
    elif grep -q "ERROR: libFuzzer: deadly signal" "$log"; then kind="crash (trap or signal)"
    else kind="failure"
    fi
    local artifact
    artifact=$(grep -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //')
    echo "$kind${artifact:+, input saved as Fuzz/$artifact}"
}

# Reports a failed run: the summary line and the end of its log (the sanitizer's stack).
report_failure() {
    local label=$1 log=$2
    failed+=("$label")
    echo "$label: FAILED: $(diagnose "$log")"
    echo "--- end of $log"
    grep -v "^#[0-9]" "$log" | tail -n 40
    echo "---"
}

echo "== replaying the saved corpora and findings"
for target in "${targets[@]}"; do
    configure "$target"
    log="$logs/replay-$target.log"
    inputs=$(find "$corpus" "$findings" -type f | wc -l)
    if "$fuzzer" -runs=0 -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$findings/" \
        "$corpus" "$findings" >"$log" 2>&1; then
        echo "replay $target: $inputs inputs, no crashes"
    else
        report_failure "replay $target" "$log"
    fi
done

echo "== fuzzing new inputs (json for ${json_seconds} s, each chip target and mrz for ${chip_seconds} s, $jobs at a time)"
# Fuzzes one target with new inputs; its outcome goes to $logs/outcome-$target, read back in order below.
fuzz_target() {
    local target=$1
    configure "$target"
    # New inputs go to a scratch directory per target, so the saved corpora only change on
    # purpose (copy interesting files from there into the corpus); later runs start from them too.
    local found="$build_path/found/$target" log="$logs/fuzz-$target.log" start status=0 elapsed
    mkdir -p "$found"
    start=$(date +%s.%N)
    "$fuzzer" -max_total_time="$seconds" -dict="$dict" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -detect_leaks="$leaks_per_input" -print_final_stats=1 -artifact_prefix="$findings/" \
        "$found" "$corpus" >"$log" 2>&1 || status=$?
    elapsed=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
    local executions corpus_size
    executions=$(grep -o "stat::number_of_executed_units: [0-9]*" "$log" | grep -o "[0-9]*$" || echo "?")
    corpus_size=$(grep -o "corp: [0-9]*" "$log" | tail -1 | grep -o "[0-9]*$" || echo "?")
    if [ $status = 0 ]; then
        echo "fuzz $target: $executions executions in $elapsed s, corpus $corpus_size, no crashes" \
            >"$logs/outcome-$target"
    else
        echo failed >"$logs/outcome-$target"
    fi
}
# Each target runs on one core, so up to $jobs of them run side by side (the longest, json, first).
running=0
for target in "${targets[@]}"; do
    rm -f "$logs/outcome-$target"
    if [ $running -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz_target "$target" &
    running=$((running + 1))
done
wait || true
for target in "${targets[@]}"; do
    outcome=$(cat "$logs/outcome-$target" 2>/dev/null || echo failed)
    if [ "$outcome" = failed ]; then
        report_failure "fuzz $target" "$logs/fuzz-$target.log"
    else
        echo "$outcome"
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: ${#failed[@]} failed: ${failed[*]} (reproducers in Fuzz/Findings/)" >&2
    exit 1
fi
