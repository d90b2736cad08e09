"""A virtual eMRTD chip (ICAO Doc 9303) for tests: Basic Access Control, secure messaging and
the files made by make_passport.py, served to pcscd through the vpcd reader driver.

    virtual_passport.py --passport DIR --port PORT [--not-passport] [--remove-after N | --slip-after N]

The card connects to the vpcd driver on 127.0.0.1:PORT, as a card is placed on a reader; closing
the connection takes it off. scripts/virtual-passport.sh runs the driver's pcscd and this card in
a network namespace of their own, so the driver's port is reachable from nowhere else. Each
message on the socket is a 2-byte big-endian length and a payload: a 1-byte payload is a control
code (0 power off, 1 power on, 2 reset, 4 send the ATR), anything longer is a command APDU.

--remove-after N closes the connection before the Nth APDU: the card leaves the reader mid-read.
--slip-after N does the same, then puts the card back at once (a document that slipped).
--not-passport makes the card answer SELECT of the eMRTD application with 6A82.
"""

import argparse
import hashlib
import json
import os
import socket
import struct
import sys
import time
from pathlib import Path

from Cryptodome.Cipher import DES, DES3

EMRTD_AID = bytes.fromhex("A0000002471001")
# An ISO 14443 contactless card as PC/SC part 3 presents it.
ATR = bytes.fromhex("3B8880010000000000000000" + "09")
FILES = {0x011E: "EF.COM", 0x0101: "DG1", 0x0102: "DG2", 0x011D: "EF.SOD"}


def sw(value):
    return struct.pack(">H", value)


def pad(data):
    data = data + b"\x80"
    return data + b"\x00" * (-len(data) % 8)


def unpad(data):
    return data[:data.rindex(b"\x80")]


def retail_mac(key, data):
    """ISO/IEC 9797-1 MAC algorithm 3 with DES, padding method 2."""
    data = pad(data)
    ka, kb = key[:8], key[8:16]
    state = DES.new(ka, DES.MODE_CBC, iv=bytes(8)).encrypt(data)[-8:]
    return DES.new(ka, DES.MODE_ECB).encrypt(DES.new(kb, DES.MODE_ECB).decrypt(state))


def derive(seed, counter):
    digest = hashlib.sha1(seed + struct.pack(">I", counter)).digest()[:16]
    return bytes(b & 0xFE | (bin(b & 0xFE).count("1") + 1) % 2 for b in digest)


def tdes(key, data, encrypt):
    cipher = DES3.new(key + key[:8], DES3.MODE_CBC, iv=bytes(8))
    return cipher.encrypt(data) if encrypt else cipher.decrypt(data)


def check_digit(text):
    total = 0
    for index, character in enumerate(text):
        value = int(character) if character.isdigit() else (ord(character) - 55 if character.isalpha() else 0)
        total += value * [7, 3, 1][index % 3]
    return str(total % 10)


def parse_tlvs(data):
    """(tag, value) pairs of single-byte-tag BER-TLV objects."""
    objects = []
    index = 0
    while index < len(data):
        tag = data[index]
        length = data[index + 1]
        index += 2
        if length & 0x80:
            count = length & 0x7F
            length = int.from_bytes(data[index:index + count], "big")
            index += count
        objects.append((tag, data[index:index + length]))
        index += length
    return objects


def tlv(tag, value):
    length = len(value)
    if length < 0x80:
        encoded = bytes([length])
    elif length < 0x100:
        encoded = bytes([0x81, length])
    else:
        encoded = bytes([0x82]) + struct.pack(">H", length)
    return bytes([tag]) + encoded + value


class Chip:
    def __init__(self, folder, not_passport):
        holder = json.loads((folder / "passport.json").read_text())
        number = holder["documentNumber"]
        seed_input = (number + check_digit(number) + holder["dateOfBirth"] + check_digit(holder["dateOfBirth"])
                      + holder["dateOfExpiry"] + check_digit(holder["dateOfExpiry"]))
        seed = hashlib.sha1(seed_input.encode()).digest()[:16]
        self.k_enc, self.k_mac = derive(seed, 1), derive(seed, 2)
        self.files = {fid: (folder / f"{name}.bin").read_bytes() for fid, name in FILES.items()}
        self.not_passport = not_passport
        self.reset()

    def reset(self):
        self.application = False
        self.challenge = None
        self.session = None  # (ks_enc, ks_mac, ssc)
        self.selected = None

    # APDU handling

    def answer(self, apdu):
        cla, ins, p1, p2 = apdu[:4]
        body = apdu[4:]
        data, le = parse_body(body)
        if cla == 0x0C:
            return self.protected(cla, ins, p1, p2, data)
        if cla != 0x00:
            return sw(0x6E00)
        if ins == 0xA4 and p1 == 0x04:
            if data == EMRTD_AID and not self.not_passport:
                self.reset()
                self.application = True
                return sw(0x9000)
            return sw(0x6A82)
        if not self.application:
            return sw(0x6985)
        if ins == 0x84:
            self.challenge = os.urandom(8)
            return self.challenge + sw(0x9000)
        if ins == 0x82:
            return self.external_authenticate(data)
        if ins in (0xA4, 0xB0, 0xB1):
            return sw(0x6982)
        return sw(0x6D00)

    def external_authenticate(self, data):
        if self.challenge is None or len(data) != 40 or retail_mac(self.k_mac, data[:32]) != data[32:]:
            self.challenge = None
            return sw(0x6300)
        plain = tdes(self.k_enc, data[:32], encrypt=False)
        rnd_ifd, rnd_ic, k_ifd = plain[:8], plain[8:16], plain[16:32]
        if rnd_ic != self.challenge:
            self.challenge = None
            return sw(0x6300)
        k_ic = os.urandom(16)
        answer = tdes(self.k_enc, rnd_ic + rnd_ifd + k_ic, encrypt=True)
        answer += retail_mac(self.k_mac, answer)
        seed = bytes(a ^ b for a, b in zip(k_ifd, k_ic))
        ssc = int.from_bytes(rnd_ic[4:] + rnd_ifd[4:], "big")
        self.session = [derive(seed, 1), derive(seed, 2), ssc]
        self.challenge = None
        return answer + sw(0x9000)

    def protected(self, cla, ins, p1, p2, data):
        if self.session is None:
            return sw(0x6988)
        ks_enc, ks_mac, ssc = self.session
        objects = parse_tlvs(data)
        mac_input = b""
        plain = b""
        expected = None
        given_mac = None
        for tag, value in objects:
            if tag == 0x87:
                mac_input += tlv(0x87, value)
                plain = unpad(tdes(ks_enc, value[1:], encrypt=False))
            elif tag == 0x97:
                mac_input += tlv(0x97, value)
                number = int.from_bytes(value, "big")
                expected = number or (256 if len(value) == 1 else 65536)
            elif tag == 0x8E:
                given_mac = value
        ssc += 1
        header = pad(bytes([cla, ins, p1, p2]))
        if given_mac is None or retail_mac(ks_mac, ssc.to_bytes(8, "big") + header + mac_input) != given_mac:
            self.session = None
            return sw(0x6988)
        data_out, status = self.dispatch(ins, p1, p2, plain, expected)
        ssc += 1
        response = b""
        if data_out:
            response += tlv(0x87, b"\x01" + tdes(ks_enc, pad(data_out), encrypt=True))
        response += tlv(0x99, sw(status))
        response += tlv(0x8E, retail_mac(ks_mac, ssc.to_bytes(8, "big") + response))
        self.session[2] = ssc
        return response + sw(0x9000)

    def dispatch(self, ins, p1, p2, data, expected):
        if ins == 0xA4 and p1 == 0x02:
            fid = int.from_bytes(data, "big")
            if fid not in self.files:
                return b"", 0x6A82
            self.selected = fid
            return b"", 0x9000
        if ins == 0xB0:
            if self.selected is None:
                return b"", 0x6986
            content = self.files[self.selected]
            offset = (p1 & 0x7F) << 8 | p2
            if offset >= len(content):
                return b"", 0x6B00
            chunk = content[offset:offset + (expected or 256)]
            # Fewer bytes than asked for: the end of the file came first.
            return chunk, 0x9000 if len(chunk) == (expected or 256) else 0x6282
        return b"", 0x6D00


def parse_body(body):
    """Command data and Le of a short or extended APDU body (after the 4 header bytes)."""
    if not body:
        return b"", None
    if len(body) == 1:
        return b"", body[0] or 256
    if body[0] == 0 and len(body) >= 3:
        if len(body) == 3:
            return b"", int.from_bytes(body[1:3], "big") or 65536
        length = int.from_bytes(body[1:3], "big")
        data = body[3:3 + length]
        rest = body[3 + length:]
        return data, (int.from_bytes(rest, "big") or 65536) if rest else None
    length = body[0]
    data = body[1:1 + length]
    rest = body[1 + length:]
    return data, (rest[0] or 256) if rest else None


def receive(connection, count):
    data = b""
    while len(data) < count:
        # vpcd writes a message's length and its payload separately; acknowledging at once keeps
        # Nagle's algorithm on its side from holding the payload back for a delayed ACK (40 ms).
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        part = connection.recv(count - len(data))
        if not part:
            raise ConnectionError("vpcd closed the connection")
        data += part
    return data


def serve(chip, port, remove_after, slip_after):
    """Stays on the reader until vpcd goes away; `remove_after` takes the card off for good at that
    APDU, `slip_after` takes it off and puts it back."""
    apdus = 0
    while True:
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        connection.settimeout(None)
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        print(f"virtual passport on the reader at 127.0.0.1:{port}", flush=True)
        chip.reset()
        try:
            while True:
                length = struct.unpack(">H", receive(connection, 2))[0]
                message = receive(connection, length)
                if length == 1:
                    if message[0] in (0, 1, 2):
                        chip.reset()
                    elif message[0] == 4:
                        connection.sendall(struct.pack(">H", len(ATR)) + ATR)
                    continue
                apdus += 1
                if remove_after is not None and apdus >= remove_after:
                    return
                if slip_after is not None and apdus == slip_after:
                    break
                answer = chip.answer(message)
                connection.sendall(struct.pack(">H", len(answer)) + answer)
        except (ConnectionError, OSError):
            return
        finally:
            connection.close()
        # Off the reader for half a second, as a hand lifting the document and putting it back.
        time.sleep(0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passport", required=True, type=Path)
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--not-passport", action="store_true")
    parser.add_argument("--remove-after", type=int)
    parser.add_argument("--slip-after", type=int)
    options = parser.parse_args()
    serve(Chip(options.passport, options.not_passport), options.port, options.remove_after, options.slip_after)


if __name__ == "__main__":
    sys.exit(main())
