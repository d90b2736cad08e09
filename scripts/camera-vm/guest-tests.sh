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

run_phase main "$CAMERA_VM_MAIN_SUITES" "$CAMERA_VM_MAIN_EXPECTED"
run_phase unprivileged "$CAMERA_VM_UNPRIVILEGED_SUITES" "$CAMERA_VM_UNPRIVILEGED_EXPECTED" setpriv --reuid=65534 --regid=65534 --clear-groups
exit $status
