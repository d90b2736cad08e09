#!/usr/bin/env bash
# Wayland sessions, with no X server anywhere: a private headless weston (pixman renderer, one
# 1280x1024 output, no Xwayland) and a private cage (wlroots' headless backend) as a kiosk
# compositor. DISPLAY is unset and GDK_BACKEND=wayland, so nothing can fall back to X11.
#   1. the demo journey, unattended (scripted captures), to journey.complete: its result, its
#      --screenshot not blank, and the xdg_toplevel app_id it announces (WAYLAND_DEBUG)
#   2. a capture through the real capture dialog (test-pattern camera, auto-capture): the dialog
#      is an xdg_toplevel child (set_parent) of the journey window; weston's screenshot of both;
#      the same for the camera permission prompt of a page that calls getUserMedia
#   3. the DMA-BUF guard: with a stand-in /proc/driver/nvidia/version (root only, a private mount
#      namespace) the shell sets WEBKIT_DISABLE_DMABUF_RENDERER=1 and says so; not when it is set
#   4. the capture and chip-reading window test suites (swift test) under weston, but for two tests
#      skipped by name (one reads X11 properties, one needs a keyboard the compositor lacks)
#   5. WebDriver: Selenium drives the demo journey (Tests/WebDriver/test_demo_journey.py) under
#      weston, when scripts/webdriver-test.sh has made its venv
#   6. kiosk mode under cage: fullscreen on cage's 1280x720 output, grim's screenshot not blank
# The steps are a Python unittest program, Tests/WaylandSessions/test_wayland.py (one test per step,
# the compositors and process groups in wayland_session.py); this script installs what they need,
# builds, and runs them.
#   scripts/wayland-test.sh [--no-build] [unittest arguments...]
#   scripts/wayland-test.sh --no-build test_wayland.WestonSessionTests.test_2_capture_dialog_and_camera_prompt
# Environment: SCRATCH_PATH (SwiftPM's --scratch-path, default .build), WAYLAND_ARTIFACTS (where
# the screenshots and logs are kept, default <scratch>/wayland-artifacts).
# Installs weston, cage and grim when missing. cage refuses to run as root: as root, cage and the
# shell inside it run as nobody.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

build=1
if [ "${1:-}" = --no-build ]; then build=0; shift; fi

. scripts/lib/packages.sh
ensure_packages wayland-test "${WAYLAND_TEST_PACKAGES[@]}" imagemagick util-linux

scratch=(--scratch-path "${SCRATCH_PATH:-.build}")
bin="$(swift build "${scratch[@]}" --show-bin-path)"
if [ $build = 1 ]; then swift build --build-tests "${scratch[@]}" >&2 && scripts/build-web-extension.sh "$bin/../web-extension"; fi
shell="$bin/gbgbridge-shell"
[ -x "$shell" ] || { echo "wayland-test: no $shell (build it first)" >&2; exit 1; }
[ -d "$bin/locale" ] || scripts/build-translations.sh "$bin/locale" >&2

artifacts=${WAYLAND_ARTIFACTS:-${SCRATCH_PATH:-.build}/wayland-artifacts}
mkdir -p "$artifacts"
export WAYLAND_ARTIFACTS="$(cd "$artifacts" && pwd)"
export SCRATCH_PATH="$(cd "${SCRATCH_PATH:-.build}" && pwd)"
export GBGBRIDGE_SHELL="$shell"
cd Tests/WaylandSessions
if [ $# -eq 0 ]; then set -- test_wayland; fi
exec /usr/bin/python3 -m unittest -v "$@"
