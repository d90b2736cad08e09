#!/usr/bin/env bash
# Selfie face finding benchmark: detection rate, false faces, two faces, CPU per 720p preview frame.
# Prints numbers, asserts nothing; results are recorded in docs/selfie-guidance.md.
#   scripts/selfie-bench.sh [FRAMES [SEED]]   (default 200 of each kind, seed 4101: the reported one;
#                                             tune with another)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
scripts/face-pictures.sh
swift build -c release --product gbgbridge-selfie-bench
exec .build/release/gbgbridge-selfie-bench .build/face-pictures "${1:-200}" ${2:+"$2"}
