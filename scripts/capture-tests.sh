#!/usr/bin/env bash
# Capture UI tests: the GTK capture window and coordinator under Xvfb with synthetic cameras, the selfie
# package and HPKE seal, encoders and the V4L2 error mapping. Needs xvfb-run (package xvfb).
set -euo pipefail
cd "$(dirname "$0")/.."
export DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1
swift build --build-tests
scripts/build-web-extension.sh
exec xvfb-run -a -s "-screen 0 1280x1024x24" swift test --skip-build --filter GBGBridgeCaptureTests "$@"
