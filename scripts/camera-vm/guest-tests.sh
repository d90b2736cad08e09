#!/bin/bash
# Runs inside the vivid guest (as root, in a chroot of the host's file system).
# Two phases of the camera tests, each a separate run of the host-built test bundle:
#   main          as root, both vivid cameras present
#   unprivileged  as nobody, who may not open the root-only device nodes
# A phase fails when its tests fail, or when not exactly the expected number of tests passed
# (the host counts them from the bundle's test list), so no test can pass by not running.
set -uo pipefail
results=/run/camera-vm
bundle=$CAMERA_VM_BUNDLE
export NO_COLOR=1
cd "$CAMERA_VM_REPO"

ls -l /dev/video* >"$results/devices.txt" 2>&1
echo "guest booted and ready after $(cut -d' ' -f1 /proc/uptime) s"

status=0
run_phase() {
    local phase=$1 suites=$2 expected=$3
    shift 3
    local log=$results/$phase.log filters=() begin
    begin=$(cut -d' ' -f1 /proc/uptime)
    for suite in $suites; do filters+=(--filter "$suite"); done
    "$@" env GBGBRIDGE_CAMERA_VM="$phase" "$bundle" --testing-library swift-testing --no-parallel "${filters[@]}" >"$log" 2>&1
    local result=$?
    local passed skipped
    passed=$(grep -c '^✔ Test .*() passed' "$log")
    skipped=$(grep -c 'skipped' "$log")
    local seconds
    seconds=$(awk -v a="$begin" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
    echo "phase $phase: exit $result, $passed of $expected tests passed, $skipped skipped, $seconds s" | tee -a "$log"
    if ((result != 0 || passed != expected || skipped != 0)); then
        echo "phase $phase FAILED" | tee -a "$log"
        status=1
    fi
}

# The web route: a WebKitGTK page's getUserMedia through GStreamer to vivid, and the page and
# native capture taking turns on the cameras (the test host's web-camera-vivid scenario).
run_web_phase() {
    local log=$results/web.log begin result checks failed seconds
    begin=$(cut -d' ' -f1 /proc/uptime)
    # The page is served on the loopback interface, which the guest does not bring up by itself.
    ip link set lo up 2>/dev/null || busybox ip link set lo up
    mkdir -p /tmp/web-home /tmp/web-run
    chmod 0700 /tmp/web-run
    # WebKitGTK offers the page the cameras of a PipeWire session, through the desktop portal: start them.
    export HOME=/tmp/web-home XDG_RUNTIME_DIR=/tmp/web-run NO_AT_BRIDGE=1
    # A private session bus: WirePlumber and PipeWire expect one.
    export DBUS_SESSION_BUS_ADDRESS=unix:path=/tmp/web-run/bus
    dbus-daemon --session --fork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS" >"$results/dbus.log" 2>&1
    pipewire >"$results/pipewire.log" 2>&1 &
    local pipewire=$!
    # WebKit asks the desktop portal's Camera interface for the PipeWire remote.
    /usr/libexec/xdg-desktop-portal >"$results/portal.log" 2>&1 &
    local portal=$!
    sleep 5
    WIREPLUMBER_DEBUG=3 wireplumber >"$results/wireplumber.log" 2>&1 &
    local wireplumber=$!
    local waited=0
    until pw-cli ls Node 2>/dev/null | grep -q 'Video/Source' || ((waited >= 90)); do
        sleep 3
        waited=$((waited + 3))
    done
    pw-cli ls Node >"$results/pipewire-nodes.log" 2>&1
    echo "PipeWire camera nodes after $waited s: $(grep -c 'Video/Source' "$results/pipewire-nodes.log")"
    xvfb-run -a -s "-screen 0 1280x1024x24" "$CAMERA_VM_WEB_HOST" web-camera-vivid >"$log" 2>&1
    result=$?
    kill "$portal" "$wireplumber" "$pipewire" 2>/dev/null
    wait "$portal" "$wireplumber" "$pipewire" 2>/dev/null
    checks=$(grep -c '^ok ' "$log")
    failed=$(grep -c '^not ok' "$log")
    seconds=$(awk -v a="$begin" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
    echo "phase web: exit $result, $checks checks passed, $failed failed, $seconds s" | tee -a "$log"
    if ((result != 0 || failed != 0 || checks == 0)); then
        echo "phase web FAILED" | tee -a "$log"
        status=1
    fi
}

run_phase main "$CAMERA_VM_MAIN_SUITES" "$CAMERA_VM_MAIN_EXPECTED"
[[ -n ${CAMERA_VM_WEB_HOST:-} ]] && run_web_phase
run_phase unprivileged "$CAMERA_VM_UNPRIVILEGED_SUITES" "$CAMERA_VM_UNPRIVILEGED_EXPECTED" setpriv --reuid=65534 --regid=65534 --clear-groups
exit $status
