#!/bin/bash
# Unpacks Debian's kernel package into a guest kernel for the camera tests: the uncompressed
# kernel image (boots faster under TCG than vmlinuz), the modules for vivid, virtio, 9p and
# overlayfs, and a busybox initramfs that loads them and runs the job.
# Usage: prepare-kernel.sh KERNEL_PACKAGE OUTPUT_DIR
set -euo pipefail
package=$1
output=$2
here=$(cd "$(dirname "$0")" && pwd)
version=${package#linux-image-}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$output"
mkdir -p "$output"

(cd "$work" && apt-get download "$package" >/dev/null 2>&1) \
    || (apt-get update -o DPkg::Lock::Timeout=600 >/dev/null && cd "$work" && apt-get download "$package" >/dev/null)
deb=$(ls "$work"/*.deb)

tree=$work/tree
mkdir -p "$tree"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tree" --wildcards \
    './boot/vmlinuz-*' './lib/modules/*/modules.*' \
    './lib/modules/*/kernel/drivers/media/*' './lib/modules/*/kernel/drivers/virtio/*' \
    './lib/modules/*/kernel/fs/*' './lib/modules/*/kernel/net/9p/*'

# The kernel image: the xz payload of vmlinuz is an ELF with a PVH entry point.
vmlinuz=$tree/boot/vmlinuz-$version
offset=$(LC_ALL=C grep -obUaP '\xFD7zXZ\x00' "$vmlinuz" | head -1 | cut -d: -f1)
[[ -n $offset ]] || { echo "no xz payload in $vmlinuz" >&2; exit 1; }
tail -c +$((offset + 1)) "$vmlinuz" | xz -dc >"$output/vmlinux" 2>/dev/null || true
[[ $(head -c 4 "$output/vmlinux" | od -An -tx1 | tr -d ' ') == 7f454c46 ]] \
    || { echo "could not extract the kernel ELF from $vmlinuz" >&2; exit 1; }

# Modules in load order.
depmod -b "$tree" "$version"
root=$work/initramfs
mkdir -p "$root"/{bin,dev,proc,sys,modules,mnt/host,mnt/rw,mnt/root}
order=()
for module in virtio_pci 9pnet_virtio 9p overlay vivid; do
    while read -r verb path _; do
        [[ $verb == insmod ]] || continue
        name=$(basename "$path")
        [[ " ${order[*]} " == *" $name "* ]] && continue
        cp "$path" "$root/modules/$name"
        order+=("$name")
    done < <(modprobe -d "$tree" -S "$version" --show-depends "$module")
done
printf '%s\n' "${order[@]}" >"$root/modules/order"

# v4l2loopback, built against the guest kernel's headers (extracted, not installed), gives
# cameras that deliver only YUYV or only MJPEG, as many real webcams do.
headers=$work/headers
mkdir -p "$headers"
(cd "$work" && apt-get download v4l2loopback-dkms "linux-headers-$version" \
    "linux-headers-${version%-*}-common" "linux-kbuild-$(cut -d. -f1,2 <<<"${version%%-*}")" >/dev/null 2>&1)
for deb in "$work"/v4l2loopback-dkms_*.deb "$work"/linux-headers-*.deb "$work"/linux-kbuild-*.deb; do
    dpkg-deb -x "$deb" "$headers"
done
sed -i "s|/usr/src/|$headers/usr/src/|" "$headers/usr/src/linux-headers-$version/Makefile"
loopback_source=$(ls -d "$headers"/usr/src/v4l2loopback-*)
make -s -C "$headers/usr/src/linux-headers-$version" M="$loopback_source" modules >"$work/loopback-build.log" 2>&1 \
    || { cat "$work/loopback-build.log" >&2; exit 1; }
cp "$loopback_source/v4l2loopback.ko" "$root/modules/v4l2loopback.ko"
echo v4l2loopback.ko >>"$root/modules/order"

cp /bin/busybox "$root/bin/busybox"
cp "$here/init.sh" "$root/init"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 >"$output/initramfs.cpio.gz")
echo "$package" >"$output/ready"
