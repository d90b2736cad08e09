#!/bin/bash
# Runs the V4L2 camera tests against the kernel's vivid test driver inside a QEMU guest.
#
# This machine's kernel has no V4L2, so the script boots Debian's own kernel under TCG with
# vivid loaded (two capture devices), shares the host's root file system read-only over 9p
# and runs the host-built test bundle in the guest. Exit status: the tests' status.
#
# Usage: scripts/camera-vm-test.sh [--no-build]
#   --no-build   reuse the test bundle already built by `swift build --build-tests`
# Environment: CAMERA_VM_TIMEOUT (seconds, default 600), CAMERA_VM_CACHE (default .cache/camera-vm),
#   CAMERA_VM_WEB=1 adds phase web: a WebKitGTK page's getUserMedia against vivid (not yet passing:
#   WebKitGTK 2.50 captures through PipeWire, which the guest does not run; see docs/web-camera.md)
set -euo pipefail

# Swift Testing suites (type names) run in the guest, per phase. Each must run and pass: the
# expected count comes from the bundle's own test list, so a skipped or missing test fails.
main_suites="VividCameraTests LoopbackCameraTests CameraDetectorTests VividFrameSourceTests"
unprivileged_suites="UnprivilegedCameraTests CameraDetectorTests UnprivilegedFrameSourceTests"

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${CAMERA_VM_CACHE:-$repo/.cache/camera-vm}
timeout_seconds=${CAMERA_VM_TIMEOUT:-600}
build=1
[[ ${1:-} == --no-build ]] && build=0
started=$(date +%s.%N)

say() { printf '[camera-vm] %s\n' "$*" >&2; }
elapsed() { awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# 1. Host packages (idempotent; apt is only called when something is missing).
packages=(qemu-system-x86 busybox-static v4l-utils libv4l-dev kmod cpio xz-utils make gcc-12 libjpeg-turbo-progs)
web=${CAMERA_VM_WEB:-0}
memory=1024
if [[ $web == 1 ]]; then
    packages+=(xvfb xauth gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-pipewire pipewire-bin wireplumber libspa-0.2-modules xdg-desktop-portal dbus-daemon)
    memory=2048
fi
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -o DPkg::Lock::Timeout=600 "${missing[@]}" >&2 \
        || { apt-get update -o DPkg::Lock::Timeout=600 >&2 && apt-get install -y -o DPkg::Lock::Timeout=600 "${missing[@]}" >&2; }
fi

# 2. Guest kernel, modules and initramfs, cached per kernel package.
resolve_kernel() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }'; }
kernel_package=$(resolve_kernel)
if [[ -z $kernel_package ]]; then
    apt-get update -o DPkg::Lock::Timeout=600 >&2
    kernel_package=$(resolve_kernel)
fi
[[ -n $kernel_package ]] || { say "cannot resolve the kernel package behind linux-image-amd64"; exit 1; }
# The cache key covers the scripts that build the guest image, so a change to them rebuilds it.
image_recipe=$(cat "$repo/scripts/camera-vm/prepare-kernel.sh" "$repo/scripts/camera-vm/init.sh" | sha256sum | cut -c1-12)
kernel_dir=$cache/$kernel_package-$image_recipe
if [[ ! -f $kernel_dir/ready ]]; then
    say "preparing $kernel_package in $kernel_dir"
    "$repo/scripts/camera-vm/prepare-kernel.sh" "$kernel_package" "$kernel_dir"
fi

# 3. The test bundle, built on the host.
if ((build)); then
    say "building the test bundle"
    (cd "$repo" && swift build --build-tests >&2)
fi
bin_path=$(cd "$repo" && swift build --show-bin-path)
bundle=$(find "$bin_path" -maxdepth 1 -name '*PackageTests.xctest' -type f | head -1)
[[ -x $bundle ]] || { say "no test bundle in $bin_path: run swift build --build-tests"; exit 1; }

listing=$("$bundle" --testing-library swift-testing --list-tests 2>/dev/null)
count_tests() {
    local total=0 suite
    for suite in $1; do
        total=$((total + $(grep -c "\.$suite/" <<<"$listing" || true)))
    done
    echo "$total"
}
main_expected=$(count_tests "$main_suites")
unprivileged_expected=$(count_tests "$unprivileged_suites")
((main_expected > 0 && unprivileged_expected > 0)) || { say "no camera tests found in $bundle"; exit 1; }

# 4. Boot the guest; it runs scripts/camera-vm/guest-tests.sh and writes results to the share.
results=$cache/run.$$
for stale in "$cache"/run.*; do
    [[ -d $stale ]] && ! kill -0 "${stale##*.}" 2>/dev/null && rm -rf "$stale"
done
mkdir -p "$results"
chmod 0777 "$results"
cat >"$results/job.sh" <<JOB
export CAMERA_VM_REPO='$repo'
export CAMERA_VM_BUNDLE='$bundle'
export CAMERA_VM_MAIN_SUITES='$main_suites' CAMERA_VM_MAIN_EXPECTED=$main_expected
export CAMERA_VM_WEB_HOST='$( ((web)) && echo "$bin_path/gbgbridge-gtk-testhost")'
export CAMERA_VM_UNPRIVILEGED_SUITES='$unprivileged_suites' CAMERA_VM_UNPRIVILEGED_EXPECTED=$unprivileged_expected
exec /bin/bash '$repo/scripts/camera-vm/guest-tests.sh'
JOB
say "booting the guest ($(elapsed) s so far)"
set +e
timeout --foreground "$timeout_seconds" qemu-system-x86_64 \
    -accel tcg,thread=multi -cpu max -smp 2 -m "$memory" \
    -display none -monitor none -serial "file:$results/console.log" -no-reboot \
    -kernel "$kernel_dir/vmlinux" -initrd "$kernel_dir/initramfs.cpio.gz" \
    -append "console=ttyS0 loglevel=3 panic=-1 rdinit=/init" \
    -fsdev local,id=hostroot,path=/,security_model=none,readonly=on \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
    -fsdev local,id=results,path="$results",security_model=none \
    -device virtio-9p-pci,fsdev=results,mount_tag=results
qemu_status=$?
set -e
boot_seconds=$(elapsed)

# 5. Report.
for phase in main web unprivileged; do
    if [[ -f $results/$phase.log ]]; then
        printf '\n===== camera tests, phase %s (in the vivid guest) =====\n' "$phase"
        cat "$results/$phase.log"
    fi
done
status=1
if [[ -f $results/status ]]; then
    status=$(cat "$results/status")
else
    say "the guest did not finish (qemu exit $qemu_status); console:"
    tail -n 40 "$results/console.log" >&2 || true
fi
if [[ -f $results/guest.log ]]; then
    if ((status != 0)); then
        say "guest log:"
        cat "$results/guest.log" >&2
    else
        grep -E '^(guest|phase)' "$results/guest.log" | sed 's/^/[camera-vm] /' >&2
    fi
fi
say "camera tests exit status $status, total $boot_seconds s"
((status == 0)) && rm -rf "$results"
exit "$status"
