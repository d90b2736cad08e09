#!/usr/bin/env bash
# nfc.read end to end: the built gbgbridge-shell reads the project's virtual passport through a
# private pcscd with Debian's vpcd reader driver (Tests/NFCEndToEnd: a full read from a journey
# page, JPEG 2000 faces, tampered DG1 and DG2, a foreign CSCA, wrong MRZ, not a passport, the card
# removed mid-read, no document in time, no reader, no PC/SC service, bad requests, 100 reads in a row).
#   scripts/nfc-test.sh [--no-build] [unittest arguments...]
# Needs root (the private pcscd runs in namespaces of its own); installs what it needs when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

build=1
if [ "${1:-}" = --no-build ]; then build=0; shift; fi

packages=(pcscd vsmartcard-vpcd python3-pyscard python3-pycryptodome python3-pil iproute2 openssl xvfb xauth)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "nfc-test: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -o DPkg::Lock::Timeout=600 >/dev/null
    apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}" >/dev/null
fi
[ $build = 1 ] && swift build --product gbgbridge-shell
export GBGBRIDGE_SHELL="$(swift build --show-bin-path)/gbgbridge-shell"
cd Tests/NFCEndToEnd
exec /usr/bin/python3 -m unittest -v "${@:-test_nfc_read}"
