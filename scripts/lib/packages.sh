# Debian package groups and an idempotent installer, shared by the scripts that need them, so that
# what one script installs for a job cannot drift from what another installs for the same job.
#   . scripts/lib/packages.sh; ensure_packages NAME "${BUILD_PACKAGES[@]}" ...

# Building the shell and everything it links: WebKitGTK and GTK, V4L2, GStreamer (PipeWire cameras),
# PC/SC, libcrypto, OpenJPEG, Tesseract, the gettext tools for the message catalogues, and OpenCV's
# object detection with the cascades of opencv-data for the selfie's face guidance (also needed at run time),
# OpenCV's dnn module for the MRZ scanner's line reader, and zxing-cpp for barcode.read (PDF417 and QR codes).
BUILD_PACKAGES=(
    build-essential pkg-config libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libv4l-dev python3
    libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev zlib1g-dev
    libpcsclite-dev libssl-dev libopenjp2-7-dev libtesseract-dev gettext
    libopencv-core-dev libopencv-imgproc-dev libopencv-objdetect-dev libopencv-dnn-dev opencv-data
    libzxing-dev
)
# PipeWire cameras without hardware: a private PipeWire and WirePlumber, GStreamer's PipeWire
# elements and its test source for a virtual camera node.
PIPEWIRE_TEST_PACKAGES=(
    pipewire pipewire-bin wireplumber gstreamer1.0-pipewire gstreamer1.0-tools gstreamer1.0-plugins-base
    gstreamer1.0-plugins-good dbus-daemon dbus-bin xdg-desktop-portal
    xdg-desktop-portal-gtk libglib2.0-bin
)
# Wayland sessions without a display: weston's headless backend, cage (a kiosk compositor, headless
# through wlroots) and grim for screenshots of a wlroots compositor.
WAYLAND_TEST_PACKAGES=(weston cage grim)
# The OCR-B model for machine-readable zones (scripts/build-ocrb-model.sh): Tesseract's training
# tools, the font, and Pillow to render the training pages.
OCR_MODEL_PACKAGES=(tesseract-ocr fonts-ocr-b python3-pil)
# The glyph model of the MRZ scanner's second reader (scripts/build-glyph-model.sh): the font,
# Pillow to render and photograph the training lines, numpy to train the network.
GLYPH_MODEL_PACKAGES=(fonts-ocr-b python3-pil python3-numpy)
# The line model of the MRZ scanner (scripts/build-line-model.sh): the font and Python's venv;
# PyTorch, numpy and Pillow come from PyPI at pinned versions into a virtual environment.
LINE_MODEL_PACKAGES=(fonts-ocr-b python3-venv)
# The MRZ benchmark's photo generator (Benchmarks/mrz/make-mrz-set.py): Pillow and numpy, OCR-B
# for the zone and DejaVu Sans for the rest of the document.
MRZ_BENCH_PACKAGES=(python3-pil python3-numpy fonts-ocr-b fonts-dejavu-core)
# The MRZ benchmark's peer: PassportEye (from PyPI, in a virtual environment the benchmark makes)
# runs Tesseract with its stock English model.
MRZ_PEER_PACKAGES=(python3-venv python3-pip tesseract-ocr tesseract-ocr-eng)
# Display-less runs of the shell, and a window manager for the tests whose behaviour depends on one
# (a kiosk window iconified by the window manager; started only by those tests).
XVFB_PACKAGES=(xvfb xauth openbox)
# The virtual passport: a private pcscd with the vpcd driver, and the chip's Python modules
# (python3-cryptography makes the forged passports' certificates).
VIRTUAL_PASSPORT_PACKAGES=(
    pcscd vsmartcard-vpcd vsmartcard-vpicc python3-pyscard python3-pycryptodome python3-pil python3-cryptography iproute2
    openssl
)

# ensure_packages WHO PACKAGE...: installs those of PACKAGE... that are missing (apt-get, through
# sudo when not root), saying so on stderr as WHO; does nothing when all are there.
ensure_packages() {
    local who=$1
    shift
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    ((${#missing[@]})) || return 0
    echo "$who: installing ${missing[*]}" >&2
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -o DPkg::Lock::Timeout=600 >/dev/null
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}" >/dev/null
}
