#!/usr/bin/env bash
# A private PC/SC stack with a virtual passport, for tests and benchmarks. Never touches the
# system's pcscd: the private pcscd runs in mount and network namespaces of its own, where
# /run/pcscd is a folder of DIR; clients reach it through PCSCLITE_CSOCK_NAME=DIR/run/pcscd.comm.
#
#   scripts/virtual-passport.sh start DIR [PORT]   start pcscd with the vpcd reader; prints export lines
#   scripts/virtual-passport.sh card DIR OPTIONS   put a card on the reader (Tests/NFCEndToEnd/virtual_passport.py
#                                                  options, e.g. --passport P [--remove-after N] [--not-passport])
#   scripts/virtual-passport.sh vicc DIR --passport P
#                                                  put vsmartcard's vicc on the reader as an ePass serving P's
#                                                  files (Tests/NFCEndToEnd/vicc_passport.py; vsmartcard-vpicc)
#   scripts/virtual-passport.sh remove DIR         take the card off the reader
#   scripts/virtual-passport.sh stop DIR           stop everything started in DIR
#
# The vpcd driver listens for cards on PORT of the namespace's own loopback, which nothing outside
# it can reach; the card joins that namespace. Needs root (namespaces), Debian's pcscd,
# vsmartcard-vpcd, iproute2, python3-pyscard and python3-pycryptodome.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { sed -n '2,17p' "$0" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
driver=/usr/lib/pcsc/drivers/serial/libifdvpcd.so
export PCSCLITE_CSOCK_NAME="$dir/run/pcscd.comm"

reader_name="Virtual PCD 00 00"
port_of() { cat "$dir/port"; }

wait_for_reader() {
    for _ in $(seq 1 100); do
        if [ -S "$PCSCLITE_CSOCK_NAME" ] && /usr/bin/python3 - "$reader_name" <<'PY' 2>/dev/null; then return 0; fi
import sys
from smartcard.System import readers
sys.exit(0 if any(str(r) == sys.argv[1] for r in readers()) else 1)
PY
        sleep 0.1
    done
    echo "virtual-passport: the private pcscd did not show '$reader_name' (see $dir/pcscd.log)" >&2
    return 1
}

# card_is present|absent: whether pcscd sees a card that answers on the reader (twice in a row).
card_is() {
    /usr/bin/python3 - "$reader_name" "$1" <<'PY' 2>/dev/null
import sys
import time
from smartcard.System import readers
from smartcard.Exceptions import CardConnectionException, NoCardException
from smartcard.scard import SCARD_LEAVE_CARD

def present():
    reader = next(r for r in readers() if str(r) == sys.argv[1])
    connection = reader.createConnection()
    try:
        # Leave the card as it is: a reader of the card may be mid-read.
        connection.connect(disposition=SCARD_LEAVE_CARD)
        connection.getATR()
        connection.disconnect()
        return True
    except (NoCardException, CardConnectionException):
        return False

wanted = sys.argv[2] == "present"
first = present()
time.sleep(0.05)
sys.exit(0 if first == wanted and present() == wanted else 1)
PY
}

case "$command" in
start)
    [ -x "$driver" ] || [ -f "$driver" ] || { echo "virtual-passport: vsmartcard-vpcd is not installed" >&2; exit 1; }
    command -v pcscd >/dev/null || { echo "virtual-passport: pcscd is not installed" >&2; exit 1; }
    "$0" stop "$dir" >/dev/null 2>&1 || true
    port=${3:-$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
    echo "$port" >"$dir/port"
    mkdir -p "$dir/reader.conf.d" "$dir/run"
    cat >"$dir/reader.conf.d/vpcd" <<CONF
FRIENDLYNAME "Virtual PCD"
DEVICENAME   /dev/null:$port
LIBPATH      $driver
CHANNELID    $port
CONF
    # setsid: the daemon outlives this script. Its namespaces keep /run/pcscd and the port private.
    setsid unshare --mount --net --propagation private sh -c \
        'ip link set lo up && mkdir -p /run/pcscd && mount --bind "$1/run" /run/pcscd &&
         exec pcscd --foreground -c "$1/reader.conf.d"' \
        sh "$dir" >"$dir/pcscd.log" 2>&1 </dev/null &
    echo $! >"$dir/pcscd.pid"
    wait_for_reader
    echo "export PCSCLITE_CSOCK_NAME='$PCSCLITE_CSOCK_NAME'"
    echo "export NFC_READER='$reader_name'"
    echo "export NFC_PORT='$port'"
    ;;
card | vicc)
    shift 2
    card_program=virtual_passport.py
    [ "$command" = vicc ] && card_program=vicc_passport.py
    "$0" remove "$dir" >/dev/null 2>&1 || true
    setsid nsenter --net="/proc/$(cat "$dir/pcscd.pid")/ns/net" \
        /usr/bin/python3 "$root/Tests/NFCEndToEnd/$card_program" --port "$(port_of)" "$@" \
        >"$dir/card.log" 2>&1 </dev/null &
    echo $! >"$dir/card.pid"
    # Present once pcscd has seen the card (it polls the driver).
    for _ in $(seq 1 100); do
        card_is present && exit 0
        kill -0 "$(cat "$dir/card.pid")" 2>/dev/null || { cat "$dir/card.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "virtual-passport: the card did not appear on '$reader_name'" >&2
    exit 1
    ;;
remove)
    if [ -f "$dir/card.pid" ]; then
        kill "$(cat "$dir/card.pid")" 2>/dev/null || true
        rm -f "$dir/card.pid"
        # Gone once pcscd has noticed (the next card must not meet the last one's state).
        if [ -S "$PCSCLITE_CSOCK_NAME" ]; then
            for _ in $(seq 1 100); do card_is absent && break; sleep 0.1; done
        fi
    fi
    ;;
stop)
    "$0" remove "$dir"
    if [ -f "$dir/pcscd.pid" ]; then
        pid=$(cat "$dir/pcscd.pid")
        # The pid is unshare's, which exec'd sh, which exec'd pcscd: the same process.
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$dir/pcscd.pid"
    fi
    ;;
*)
    sed -n '2,17p' "$0" >&2
    exit 2
    ;;
esac
