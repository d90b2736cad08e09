#!/usr/bin/env bash
# Installs the Debian packages needed to build GBG Bridge for Linux and run its tests.
# Idempotent: apt-get only installs what is missing.
set -euo pipefail

packages=(
    # build
    build-essential pkg-config libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libv4l-dev lld python3
    # chip reading: PC/SC, libcrypto, OpenJPEG
    libpcsclite-dev libssl-dev libopenjp2-7-dev
    # translations: xgettext, msgmerge, msgfmt
    gettext
    # display-less runs of the shell and the WebKitGTK tests
    xvfb xauth imagemagick
    # the window tests: WM_CLASS and icon (xwininfo, xprop); the SVG icon loader; a self-signed certificate
    x11-utils librsvg2-common openssl
    # the capture dialog's AT-SPI test: a private session bus, the accessibility bus, Python bindings
    dbus-daemon at-spi2-core python3-gi gir1.2-atspi-2.0
    # the web route to the camera: WebKitGTK captures through PipeWire's GStreamer device provider
    gstreamer1.0-pipewire
    # the camera tests: a vivid camera in a QEMU guest
    qemu-system-x86 busybox-static v4l-utils kmod cpio
    # the WebDriver tests: WebKitGTK's WebDriver server, a venv for Selenium from PyPI
    webkit2gtk-driver python3-venv
    # the chip-reading tests: a private pcscd, the vpcd driver, the virtual passport's Python modules
    pcscd vsmartcard-vpcd python3-pyscard python3-pycryptodome python3-pil iproute2
    # packaging and its install test
    dpkg-dev debhelper fakeroot lintian desktop-file-utils appstream debootstrap help2man
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -o DPkg::Lock::Timeout=600 >/dev/null
    apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
    if [ -x /opt/swift/usr/bin/swift ]; then
        echo "setup: Swift is at /opt/swift/usr/bin; add it to PATH" >&2
    else
        echo "setup: no Swift toolchain found (need Swift 6.x on PATH)" >&2
        exit 1
    fi
fi
