#!/usr/bin/env bash
# Builds the libFuzzer target for the bridge core (JSON parser/writer and the host's
# receive path), replays the saved corpus, then fuzzes for FUZZ_SECONDS (default 60).
# Exits non-zero when the fuzzer finds a crash, leak or timeout.
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
export SWIFT_BACKTRACE=enable=no
seconds="${FUZZ_SECONDS:-60}"
build_path=.build/fuzz

# SwiftPM does not notice files added to a path dependency unless the manifest changes,
# so make it plan the build again.
touch Package.swift
swift build --product GBGBridgeFuzz -c release --sanitize fuzzer \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld --build-path "$build_path"
fuzzer="$build_path/release/GBGBridgeFuzz"

# New inputs the fuzzer finds go to a scratch directory, so the saved corpus only
# changes on purpose (copy interesting files from there into Fuzz/Corpus).
found="$build_path/found-corpus"
artifacts="$build_path/artifacts/"
mkdir -p "$found" "$artifacts"

echo "== replaying the saved corpus"
"$fuzzer" -runs=0 -dict=json.dict -artifact_prefix="$artifacts" Corpus

echo "== fuzzing for ${seconds}s"
"$fuzzer" -max_total_time="$seconds" -dict=json.dict -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts" "$found" Corpus
