#!/usr/bin/env bash
# nfc.read end to end: the built gbgbridge-shell reads the project's virtual passport through a
# private pcscd with Debian's vpcd reader driver (Tests/NFCEndToEnd: a full read from a journey
# page, JPEG 2000 faces, tampered DG1 and DG2, a foreign CSCA, wrong MRZ, not a passport, the card
# removed mid-read, no document in time, no reader, no PC/SC service, bad requests, 100 reads in a row;
# test_forgeries: forged passports that must not pass as genuine, hostile chips that must fail cleanly;
# test_chip_interop: vsmartcard's vicc as an ePass, status words outside DO'99', re-openings after
# Chip Authentication, and the wire words of chips that break the rules or answer too slowly;
# test_kiosk_chip_window: a kiosk's idle wipe closes the chip-reading window nobody answered).
#   scripts/nfc-test.sh [--no-build] [unittest arguments...]
# Needs root (the private pcscd runs in namespaces of its own); installs what it needs when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

build=1
if [ "${1:-}" = --no-build ]; then build=0; shift; fi

. scripts/lib/packages.sh
# x11-utils (xwininfo) and libxtst-dev (the click helper): the kiosk test lists the windows and clicks.
ensure_packages nfc-test "${VIRTUAL_PASSPORT_PACKAGES[@]}" "${XVFB_PACKAGES[@]}" x11-utils libxtst-dev
[ $build = 1 ] && swift build --product gbgbridge-shell
export GBGBRIDGE_SHELL="$(swift build --show-bin-path)/gbgbridge-shell"
cd Tests/NFCEndToEnd
if [ $# -eq 0 ]; then set -- test_nfc_read test_forgeries test_chip_interop test_kiosk_chip_window; fi
exec /usr/bin/python3 -m unittest -v "$@"
