#!/usr/bin/env bash
# Installs the Debian packages needed to build GBG Bridge for Linux and run its tests.
# Idempotent: apt-get only installs what is missing.
set -euo pipefail

. "$(dirname "$0")/lib/packages.sh"
packages=(
    "${BUILD_PACKAGES[@]}"
    # the fuzzing build links with lld
    lld
    # display-less runs of the shell and the WebKitGTK tests
    "${XVFB_PACKAGES[@]}" imagemagick
    # the window tests: WM_CLASS and icon (xwininfo, xprop); the SVG icon loader; a self-signed certificate
    x11-utils librsvg2-common openssl
    # the capture dialog's AT-SPI test: a private session bus, the accessibility bus, Python bindings
    dbus-daemon at-spi2-core python3-gi gir1.2-atspi-2.0
    # the web route to the camera: WebKitGTK captures through PipeWire's GStreamer device provider
    gstreamer1.0-pipewire
    # PipeWire cameras and Wayland sessions, without hardware or a display
    "${PIPEWIRE_TEST_PACKAGES[@]}" "${WAYLAND_TEST_PACKAGES[@]}"
    # the camera tests: a vivid camera in a QEMU guest
    qemu-system-x86 busybox-static v4l-utils kmod cpio
    # the WebDriver tests: WebKitGTK's WebDriver server, a venv for Selenium from PyPI
    webkit2gtk-driver python3-venv
    # the chip-reading tests: the virtual passport
    "${VIRTUAL_PASSPORT_PACKAGES[@]}"
    # packaging and its install test
    dpkg-dev debhelper fakeroot lintian desktop-file-utils appstream debootstrap help2man librsvg2-bin
    # the signed apt repository and its test
    reprepro gnupg
    # the OCR-B model that the OCR engine's tests read with; its measurements compare it with
    # Tesseract's stock English model
    "${OCR_MODEL_PACKAGES[@]}" tesseract-ocr-eng
)
ensure_packages setup "${packages[@]}"
# Built here, not tracked: about 30 seconds, and nothing to do when it is up to date.
"$(dirname "$0")/build-ocrb-model.sh"
# Photos of faces (and of no face) for the selfie window tests and benchmark, from Debian's scikit-image.
"$(dirname "$0")/face-pictures.sh"

if ! command -v swift >/dev/null 2>&1; then
    if [ -x /opt/swift/usr/bin/swift ]; then
        echo "setup: Swift is at /opt/swift/usr/bin; add it to PATH" >&2
    else
        echo "setup: no Swift toolchain found (need Swift 6.x on PATH)" >&2
        exit 1
    fi
fi
