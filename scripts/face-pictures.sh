#!/usr/bin/env bash
# Photos for the selfie window tests and benchmark: scikit-image's sample pictures (public domain or
# CC0; astronaut.png is a NASA portrait) taken from Debian's python3-skimage package without installing
# it (apt-get download, dpkg-deb -x), into .build/face-pictures. Nothing to do when they are there.
#   scripts/face-pictures.sh [FOLDER]
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-.build/face-pictures}
pictures=(astronaut.png camera.png coffee.png chelsea.png rocket.jpg brick.png grass.png gravel.png page.png
    text.png moon.png horse.png coins.png hubble_deep_field.jpg motorcycle_left.png retina.jpg ihc.png
    lfw_subset.npy)
missing=0
for picture in "${pictures[@]}"; do [ -s "$target/$picture" ] || missing=1; done
[ $missing = 1 ] || exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
(cd "$work" && apt-get download python3-skimage >/dev/null 2>&1) || {
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -o DPkg::Lock::Timeout=600 >/dev/null
    (cd "$work" && apt-get download python3-skimage >/dev/null 2>&1)
} || { echo "face-pictures: cannot download python3-skimage" >&2; exit 1; }
chmod -R a+rwx "$work"
dpkg-deb -x "$work"/python3-skimage_*.deb "$work/root"
mkdir -p "$target"
for picture in "${pictures[@]}"; do
    cp "$work/root/usr/lib/python3/dist-packages/skimage/data/$picture" "$target/$picture"
done
echo "face-pictures: ${#pictures[@]} pictures in $target" >&2
