#!/bin/busybox sh
# Guest init for the camera tests: load the modules (vivid with two capture devices,
# v4l2loopback with two more fed by the tests),
# mount the host's root read-only with a tmpfs overlay, run the job in it, power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

for module in $(cat /modules/order); do
    case $module in
        vivid.ko) insmod /modules/$module n_devs=2 node_types=0x1,0x1 ;;
        v4l2loopback.ko) insmod /modules/$module devices=2 video_nr=10,11 exclusive_caps=1,1 \
            card_label=YUYV-Loopback,MJPEG-Loopback ;;
        *) insmod /modules/$module ;;
    esac
done

mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro hostroot /mnt/host
mount -t tmpfs -o size=512m tmpfs /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay -o lowerdir=/mnt/host,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /mnt/root
mkdir -p /mnt/root/run/camera-vm /mnt/root/dev /mnt/root/proc /mnt/root/sys /mnt/root/tmp
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results /mnt/root/run/camera-vm
mount -o bind /dev /mnt/root/dev
mount -t proc proc /mnt/root/proc
mount -t sysfs sysfs /mnt/root/sys
# /tmp stays the host's (read-only below, writable through the overlay): the checkout under
# test may live there.
chmod 1777 /mnt/root/tmp

chroot /mnt/root /bin/sh /run/camera-vm/job.sh >/mnt/root/run/camera-vm/guest.log 2>&1
echo $? >/mnt/root/run/camera-vm/status
sync
reboot -f
