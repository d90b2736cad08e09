#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, and runs every stage.
#   scripts/test.sh                    everything
#   scripts/test.sh --skip-camera-vm   everything but the camera tests in the vivid VM
#   scripts/test.sh --skip-install-test  everything but the .deb install test
# Skipped stages are reported as skipped in the summary, never silently.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
export SWIFT_BACKTRACE=enable=no

skip_camera_vm=0
skip_install_test=0
for arg in "$@"; do
    case "$arg" in
        --skip-camera-vm) skip_camera_vm=1 ;;
        --skip-install-test) skip_install_test=1 ;;
        *) echo "test.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done

passed=0 failed=0 skipped=0
summary=() failures=()
mkdir -p .build/stage-logs
rm -f .build/stage-logs/*
# Each stage's output goes to the terminal and to .build/stage-logs/NN.log; a failed stage's failing
# lines (12 at most) are repeated after the summary, so the end of a long CI log says what failed, not only where.
stage() {
    local name=$1; shift
    local start=$SECONDS
    local log; log=.build/stage-logs/$(printf '%02d' $((passed + failed + 1))).log
    echo "::: $name" >&2
    if "$@" 2>&1 | tee "$log"; then
        passed=$((passed + 1)); summary+=("ok      $name ($((SECONDS - start)) s)")
    else
        failed=$((failed + 1)); summary+=("FAILED  $name ($((SECONDS - start)) s)")
        failures+=("--- $name ($log):")
        mapfile -t -O "${#failures[@]}" failures < <(
            grep -a -E '✘|error:|FAIL|Traceback|AssertionError|Expectation failed|out of date|is missing|incomplete|obsolete' "$log" | cut -c1-400 | tail -n 12)
    fi
}
skip() { skipped=$((skipped + 1)); summary+=("skipped $1 ($2)"); }
# A stage that runs in the background while the next ones run in the foreground: its output goes to
# .build/stage-logs/ID.log (printed when it is waited for), its exit status to ID.status, its time to
# ID.time; `background_stage_result ID` is then run as a stage of its own.
background_stage() {
    local id=$1; shift
    rm -f ".build/stage-logs/$id.status"
    ( start=$SECONDS; status=0; "$@" >".build/stage-logs/$id.log" 2>&1 || status=$?
      echo $((SECONDS - start)) >".build/stage-logs/$id.time"; echo $status >".build/stage-logs/$id.status" ) &
}
background_stage_result() {
    local id=$1
    while [ ! -s ".build/stage-logs/$id.status" ]; do sleep 2; done
    cat ".build/stage-logs/$id.log"
    echo "(ran in the background for $(cat ".build/stage-logs/$id.time") s)"
    [ "$(cat ".build/stage-logs/$id.status")" = 0 ]
}

xvfb() {
    DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1 \
        xvfb-run -a -s "-screen 0 1280x1024x24" "$@"
}

# The debug build, the web-process extension beside it, and the message catalogues where the shell looks for
# them (<bin>/locale).
build() {
    swift build --build-tests && scripts/build-web-extension.sh \
        && scripts/build-translations.sh "$(swift build --show-bin-path)/locale"
}

stage "install build and test packages" scripts/setup.sh
stage "translations: template up to date, catalogues complete" scripts/check-translations.sh
stage "format and licensing: swift format lint against .swift-format, reuse lint against REUSE.toml" scripts/lint.sh
stage "build (debug, with tests) and message catalogues" build
# Four runs of the Swift tests. The shell tests go first, on a machine with nothing else to do:
# their demo journey's screenshot checks the page's final look, and heavy load can still catch
# a fade in progress. The capture window tests run one at a time, apart from the WebKit scenario
# hosts and the shell processes that load the machine: a capture dialog is modal, so its input
# grab would swallow the key presses another test sends to its own dialog.
stage "shell tests: the built gbgbridge-shell as a process (Xvfb)" \
    xvfb swift test --skip-build --filter ShellTests --skip 'Kiosk(Privacy|Wipe|ErrorPage|Idle)Tests'
# Apart, so their clicks, window manager, crashes and servers do not load the machine while the
# demo journey's screenshot is checked.
stage "kiosk and privacy: nothing leaves a kiosk or reaches the disk, nothing of one person for the next (Xvfb)" \
    xvfb swift test --skip-build --filter 'Kiosk(Privacy|Wipe|ErrorPage|Idle)Tests'
# The ThreadSanitizer build, the fuzz targets and the release build of the .deb stage compile in the background, at
# the lowest CPU priority, while the other Xvfb stages run (those mostly wait for WebKit and the X
# server). Their stages wait for them; a failed background build is simply redone there.
mkdir -p .build
rm -f .build/examples-test.status
(
    nice -n 19 swift build -c release --product gbgbridge-mrz-bench
    nice -n 19 swift build -c release --product gbgbridge-selfie-bench
    nice -n 19 scripts/tsan.sh --build-only
    nice -n 19 scripts/fuzz.sh --build-only
    [ $skip_install_test = 1 ] || nice -n 19 packaging/build-deb.sh --build-only
    # The embedder's path (a scratch clone tagged by scripts/release.sh, Examples/ built against the
    # tag): mostly a build of the whole package again, so it runs here; its stage shows the outcome.
    status=0
    nice -n 19 scripts/examples-test.sh >.build/examples-test.log 2>&1 || status=$?
    echo "$status" >.build/examples-test.status
) >.build/background-builds.log 2>&1 &
background_builds=$!
wait_for_background_builds() { wait "$background_builds" || true; }
# The MRZ benchmark's 720 photos are rendered meanwhile too (about 150 s of Python), then its peer
# (PassportEye) reads its third of them; the benchmark's stage waits for both, sets the peer's
# results beside its own, and does either itself if it failed here.
rm -f .build/mrz-peer.json
(
    nice -n 19 scripts/mrz-bench.sh --generate-only
    nice -n 19 scripts/mrz-bench.sh --peer-only .build/mrz-peer.json
) >.build/mrz-set-generation.log 2>&1 &
mrz_set_generation=$!
stage "unit and WebKitGTK transport tests (Xvfb)" \
    xvfb swift test --skip-build --skip ShellTests --skip GBGBridgeCaptureTests --skip NFCReadWindowTests
# The chip end-to-end tests mostly wait for the virtual passport; they run beside the window tests
# (their one window is on an X server of its own).
background_stage nfc scripts/nfc-test.sh --no-build
stage "capture and chip-reading window tests: real GTK windows, one at a time (Xvfb)" \
    xvfb swift test --skip-build --no-parallel --filter GBGBridgeCaptureTests --filter NFCReadWindowTests
stage "PipeWire cameras: a private PipeWire and WirePlumber with a virtual camera; capture, sharing, hot-plug" \
    scripts/pipewire-test.sh --no-build
stage "nfc.read end to end: a virtual passport behind a private pcscd" background_stage_result nfc
wait "$mrz_set_generation" || true
stage "MRZ benchmark: 720 generated document photos (200 real-looking) read as stills, 40 as a live preview, PassportEye beside it on a third (docs/mrz.md)" \
    scripts/mrz-bench.sh --peer-results .build/mrz-peer.json
stage "selfie face finding benchmark: detection, false faces, two faces, CPU per 720p frame (docs/selfie-guidance.md)" \
    scripts/selfie-bench.sh
stage "WebDriver: Selenium drives the demo journey through WebKitWebDriver (Xvfb)" scripts/webdriver-test.sh --no-build
stage "Wayland, no X server: the journey, capture dialog and camera prompt under headless weston, the window tests, WebDriver, a kiosk under cage" \
    scripts/wayland-test.sh --no-build
stage "capture dialog and chip-reading window: AT-SPI names, roles, announcements; fit on small screens" scripts/capture-a11y-test.sh --no-build
wait_for_background_builds
stage "core tests under ThreadSanitizer" scripts/tsan.sh
# 30 s of new inputs for the JSON target and 8 s for each chip parser, two targets at a time, keep
# the suite within its time budget; run scripts/fuzz.sh alone for longer (docs/fuzzing.md).
stage "fuzz: corpus replay, JSON 30 s, each chip parser 8 s" env FUZZ_SECONDS=30 FUZZ_CHIP_SECONDS=8 scripts/fuzz.sh
# The examples were built and run in the background; a failure there is run again here, where it
# only rebuilds what changed.
examples_test() {
    cat .build/examples-test.log >&2 2>/dev/null || true
    [ "$(cat .build/examples-test.status 2>/dev/null)" = 0 ] || scripts/examples-test.sh
}
stage "release and embedding: scripts/release.sh tags a scratch clone, Examples/ build against the tag by version" \
    examples_test
if [ $skip_camera_vm = 1 ]; then skip "camera tests in the vivid VM" "--skip-camera-vm"
else stage "camera tests in the vivid VM" scripts/camera-vm-test.sh --no-build; fi
if [ $skip_install_test = 1 ]; then skip ".deb build, lintian and install test" "--skip-install-test"
else stage ".deb build, lintian and install test" scripts/install-test.sh; fi

echo
printf '%s\n' "${summary[@]}"
if [ ${#failures[@]} -gt 0 ]; then
    echo
    echo "What failed:"
    printf '%s\n' "${failures[@]}"
fi
echo "stages: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
