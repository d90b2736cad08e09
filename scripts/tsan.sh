#!/usr/bin/env bash
# Runs the core tests under ThreadSanitizer (separate build directory .build-tsan).
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1}"
exec swift test --sanitize=thread --scratch-path .build-tsan --filter GBGBridgeTests "$@"
