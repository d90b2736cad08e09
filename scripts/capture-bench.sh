#!/usr/bin/env bash
# Capture benchmarks (preview cost per frame, capture-to-response); prints numbers, asserts nothing.
# Results are recorded in docs/capture.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1
swift build -c release --product gbgbridge-capture-bench
exec xvfb-run -a -s "-screen 0 1280x1024x24" .build/release/gbgbridge-capture-bench "$@"
