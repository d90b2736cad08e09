#!/usr/bin/env bash
# Chip-read benchmark against the virtual passport (20 KB JPEG face): time per step (EF.CardAccess,
# access control, each file, passive authentication) and in total, with extended and with short
# APDUs, and the APDU count; for a chip with BAC only, one that offers PACE (ECDH generic mapping,
# P-256, AES-128), one with BAC, Chip Authentication (ECDH P-256, AES-128) and Active
# Authentication (ECDSA P-256), the same opened with PACE with Chip Authentication Mapping, and one
# with a 60 KB face (DG2 read past offset 32767 with READ BINARY B1). Prints numbers; never fails on
# them. Results: docs/nfc.md.
#   scripts/nfc-bench.sh [ROUNDS]     (default 50; needs root, like scripts/nfc-test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
rounds=${1:-50}
swift build -c release --product gbgbridge-nfc-bench >&2
bench="$(swift build -c release --show-bin-path)/gbgbridge-nfc-bench"
work=$(mktemp -d)
trap 'scripts/virtual-passport.sh stop "$work/sandbox" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
/usr/bin/python3 Tests/NFCEndToEnd/make_passport.py --out "$work/passport"
eval "$(scripts/virtual-passport.sh start "$work/sandbox")"
echo "virtual passport: DG2 $(stat -c %s "$work/passport/DG2.bin") bytes; reader '$NFC_READER' (pcscd + vpcd on loopback)"
/usr/bin/python3 Tests/NFCEndToEnd/make_passport.py --out "$work/secured" --chip-auth aes --active-auth ec
/usr/bin/python3 Tests/NFCEndToEnd/make_passport.py --out "$work/large" --photo-size large
echo "large-face passport: DG2 $(stat -c %s "$work/large/DG2.bin") bytes"
for card in "passport" "passport --pace" "secured" "secured --pace-cam" "large"; do
    set -- $card
    scripts/virtual-passport.sh card "$work/sandbox" --passport "$work/$1" "${@:2}"
    "$bench" "$NFC_READER" L898902C 690806 940623 "$work/$1/csca.pem" "$rounds"
done
