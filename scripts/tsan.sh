#!/usr/bin/env bash
# Runs the core and blocking-work tests under ThreadSanitizer (separate build directory .build-tsan).
#   scripts/tsan.sh --build-only   only build them
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1}"
if [ "${1:-}" = --build-only ]; then
    exec swift build --build-tests --sanitize=thread --scratch-path .build-tsan
fi
exec swift test --sanitize=thread --scratch-path .build-tsan --filter GBGBridgeTests --filter BlockingWorkTests "$@"
