#!/usr/bin/env bash
# Checks the Swift sources against .swift-format (the toolchain's `swift format`). Fails on any
# finding. `scripts/lint.sh --fix` rewrites the files in place first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
paths=(Package.swift Sources Tests Benchmarks Fuzz Examples)
if [ "${1:-}" = --fix ]; then
    swift format format --in-place --recursive --parallel "${paths[@]}"
fi
swift format lint --strict --recursive --parallel "${paths[@]}"
