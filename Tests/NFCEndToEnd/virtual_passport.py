"""A virtual eMRTD chip (ICAO Doc 9303) for tests: Basic Access Control, PACE, secure messaging
and the files made by make_passport.py, served to pcscd through the vpcd reader driver.

    virtual_passport.py --passport DIR --port PORT [--pace | --pace-only | --pace-cam] [--not-passport]
                        [--remove-after N | --slip-after N] [--hostile KIND [ARGUMENT]] [--strict-reads]
                        [--no-status-object]

The card connects to the vpcd driver on 127.0.0.1:PORT, as a card is placed on a reader; closing
the connection takes it off. scripts/virtual-passport.sh runs the driver's pcscd and this card in
a network namespace of their own, so the driver's port is reachable from nowhere else. Each
message on the socket is a 2-byte big-endian length and a payload: a 1-byte payload is a control
code (0 power off, 1 power on, 2 reset, 4 send the ATR), anything longer is a command APDU.

--remove-after N closes the connection before the Nth APDU: the card leaves the reader mid-read.
--slip-after N does the same, then puts the card back at once (a document that slipped).
--not-passport makes the card answer SELECT of the eMRTD application with 6A82.
--pace offers PACE (ECDH generic mapping on NIST P-256, AES-128 secure messaging) in EF.CardAccess,
with the MRZ or the card access number from passport.json; BAC still works. --pace-only also
switches BAC off (GET CHALLENGE answers 6982), as some newer ID cards do. --pace-cam lists PACE
with Chip Authentication Mapping (AES-128) before generic mapping: after the mutual authentication
the chip sends CA_IC = SK_IC^-1 * SK_Map,IC (SK_IC from ca.key) in 8A, encrypted under the session
key with IV = E(KS_enc, all ones), and serves CardSecurity.bin as EF.CardSecurity (011D outside the
application, under secure messaging). Needs a passport made with --chip-auth.

When the folder holds them, the chip also serves DG11.bin and DG12.bin (make_passport.py
--extra-details), and DG14.bin and DG15.bin with ca.key and aa.key (--chip-auth, --active-auth). Chip Authentication, under secure messaging, in the
variant DG14 offers: for AES, MSE:Set AT (22 41 A4) with the protocol, then GENERAL AUTHENTICATE
(86) with the terminal's ephemeral P-256 key in 7C/80; for 3DES, MSE:Set KAT (22 41 A6) with the
key in 91. The chip answers under the old keys, then takes the keys of the ECDH secret, SSC 0.
Active Authentication: INTERNAL AUTHENTICATE (88) of an 8-byte challenge, signed with ISO/IEC
9796-2 scheme 1 and SHA-1 for RSA, with ECDSA SHA-256 (r || s) for EC.

--strict-reads logs "READ PAST END <file> <offset> <length>" on stderr whenever a READ BINARY asks
for bytes past the end of its file; the answer is as always: the bytes that remain with 6282, or
6B00 when none do. --hostile KIND [ARGUMENT] makes a chip that misbehaves (see HOSTILE): it stops
answering, answers slowly or a byte at a time, or serves malformed files; it says so on stderr.
--no-status-object leaves DO99 out of protected answers: the status word travels in the trailer
only, as vsmartcard's vicc and some chips send it.
"""

import argparse
import hashlib
import io
import json
import os
import socket
import struct
import sys
import time
from pathlib import Path

from Cryptodome.Cipher import AES, DES, DES3
from Cryptodome.Hash import CMAC, SHA256
from Cryptodome.PublicKey import ECC, RSA
from Cryptodome.Signature import DSS

EMRTD_AID = bytes.fromhex("A0000002471001")
# An ISO 14443 contactless card as PC/SC part 3 presents it.
ATR = bytes.fromhex("3B8880010000000000000000" + "09")
FILES = {0x011E: "EF.COM", 0x0101: "DG1", 0x0102: "DG2", 0x011D: "EF.SOD"}
OPTIONAL_FILES = {0x010B: "DG11", 0x010C: "DG12", 0x010E: "DG14", 0x010F: "DG15"}
CARD_ACCESS = 0x011C
# id-PACE-ECDH-GM-AES-CBC-CMAC-128 (0.4.0.127.0.7.2.2.4.2.2) with standardized domain parameters 12
# (NIST P-256), as EF.CardAccess lists it.
PACE_OID = bytes.fromhex("04007F00070202040202")
CARD_ACCESS_CONTENT = bytes.fromhex("31143012060A" + PACE_OID.hex() + "020102") + bytes.fromhex("02010C")
# id-PACE-ECDH-CAM-AES-CBC-CMAC-128 (0.4.0.127.0.7.2.2.4.6.2), listed before generic mapping with --pace-cam.
PACE_CAM_OID = bytes.fromhex("04007F00070202040602")
CARD_ACCESS_WITH_CAM = bytes.fromhex(
    "3128" + "3012060A" + PACE_CAM_OID.hex() + "02010202010C" + "3012060A" + PACE_OID.hex() + "02010202010C")
# EF.CardSecurity shares EF.SOD's file identifier, but sits beside EF.CardAccess, outside the application.
CARD_SECURITY = 0x1011D
# id-CA-ECDH-3DES-CBC-CBC and id-CA-ECDH-AES-CBC-CMAC-128 (0.4.0.127.0.7.2.2.3.2.1 and .2), as DG14 lists them.
CHIP_AUTH_OIDS = {"3des": bytes.fromhex("04007F00070202030201"), "aes": bytes.fromhex("04007F00070202030202")}
P256 = ECC._curves["p256"]
GENERATOR = ECC.EccPoint(P256.Gx, P256.Gy, "P-256")
FILE_NAMES = {**FILES, **OPTIONAL_FILES, CARD_ACCESS: "EF.CardAccess", CARD_SECURITY: "EF.CardSecurity"}

HOSTILE = {
    "mute-at": "from the Nth APDU on (ARGUMENT N), answers nothing, neither APDUs nor the reader's ATR "
               "requests, and keeps the connection open",
    "slow": "answers every APDU after ARGUMENT seconds (default 1.5)",
    "drip": "READ BINARY answers one byte (9000) however many were asked for",
    "deep-nesting": "DG2 is 20,000 nested SEQUENCEs (about 100 KB)",
    "jp2-bomb": "DG2's face is a JP2 of a few hundred bytes whose headers (ihdr, SIZ) declare 46000 x 46000 pixels",
    "length-past-end": "DG1's header claims 64 bytes more than the chip serves",
    "inner-length-past-end": "DG1's MRZ element (5F1F) claims 20 bytes more than DG1 holds",
    "huge-length": "DG2's header claims 16 MB (FFFFFF bytes)",
    "truncated": "DG2 is cut in half, its header unchanged",
    "no-sod": "SELECT of EF.SOD answers 6A82",
    "hide-dg15": "a copy hiding its Active Authentication key: EF.COM leaves DG15 out and SELECT of DG15 answers "
                 "6A82, though EF.SOD still signs its hash",
    "chain-forever": "READ BINARY of DG2 answers 61FF (more to come), and GET RESPONSE 255 bytes and 61FF again, "
                     "for ever",
    "reopen-after-ca": "after Chip Authentication (or PACE-CAM), refuses the first extended READ BINARY with a plain "
                       "6700, which ends secure messaging; Chip Authentication works again afterwards",
    "reopen-refuse-ca": "as reopen-after-ca, but refuses Chip Authentication and PACE-CAM (6A80) once the session was "
                        "opened again",
    "withhold-dg11": "SELECT of DG11 answers 6A82, though EF.COM lists it and EF.SOD signs it",
}


def log(text):
    print(text, file=sys.stderr, flush=True)


def der_header(tag, length):
    """A tag (one or two bytes, as an int) and a DER length of any size."""
    tag_bytes = tag.to_bytes(2 if tag > 0xFF else 1, "big")
    if length < 0x80:
        return tag_bytes + bytes([length])
    body = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return tag_bytes + bytes([0x80 | len(body)]) + body


def split_header(data):
    """(header, content) of the one-byte-tag TLV that starts `data`."""
    length = data[1]
    size = 2 + (length & 0x7F if length & 0x80 else 0)
    return data[:size], data[size:]


def deeply_nested(depth=20_000):
    """DG2 made of `depth` SEQUENCEs, each holding the next."""
    value = b""
    for _ in range(depth):
        value = der_header(0x30, len(value)) + value
    return der_header(0x75, len(value)) + value


def jp2_bomb():
    """DG2 whose face is a tiny JP2 that declares itself 46000 x 46000 pixels (8.5 gigabytes per
    component decoded; 46000^2 still fits the 32-bit sample counts decoders check)."""
    from make_passport import data_group_2
    from PIL import Image

    picture = Image.new("RGB", (24, 24))
    picture.putdata([(x * 10, y * 10, (x + y) * 5) for y in range(24) for x in range(24)])
    buffer = io.BytesIO()
    picture.save(buffer, "JPEG2000", quality_mode="rates", quality_layers=[20])
    image = bytearray(buffer.getvalue())
    side = (46000).to_bytes(4, "big")
    ihdr = image.index(b"ihdr") + 4
    image[ihdr:ihdr + 8] = side + side
    # SIZ: marker, Lsiz, Rsiz, then Xsiz, Ysiz, XOsiz, YOsiz, XTsiz, YTsiz: one 46000 x 46000 tile.
    siz = image.index(b"\xff\x51") + 6
    image[siz:siz + 24] = side + side + bytes(8) + side + side
    return data_group_2(bytes(image), "jp2")


def hostile_files(kind, files):
    """`files` changed as the hostile chip `kind` serves them."""
    files = dict(files)
    dg1_header, dg1_content = split_header(files[0x0101])
    if kind == "deep-nesting":
        files[0x0102] = deeply_nested()
    elif kind == "jp2-bomb":
        files[0x0102] = jp2_bomb()
    elif kind == "length-past-end":
        files[0x0101] = der_header(0x61, len(dg1_content) + 64) + dg1_content
    elif kind == "inner-length-past-end":
        mrz = dg1_content[3:]
        files[0x0101] = dg1_header + der_header(0x5F1F, len(mrz) + 20) + mrz
    elif kind == "huge-length":
        files[0x0102] = bytes([0x75, 0x83, 0xFF, 0xFF, 0xFF]) + split_header(files[0x0102])[1]
    elif kind == "truncated":
        files[0x0102] = files[0x0102][:len(files[0x0102]) // 2]
    elif kind == "no-sod":
        del files[0x011D]
    elif kind == "withhold-dg11":
        files.pop(0x010B, None)
    elif kind == "hide-dg15":
        files.pop(0x010F, None)
        files[0x011E] = without_listed_tag(files[0x011E], 0x6F)
    return files


def without_listed_tag(common, tag):
    """EF.COM with `tag` left out of its tag list (5C, its last element)."""
    _, content = split_header(common)
    position = content.rindex(b"\x5c")
    tags = content[position + 2:position + 2 + content[position + 1]]
    content = content[:position] + bytes([0x5C, len(tags) - (tag in tags)]) + tags.replace(bytes([tag]), b"")
    return der_header(0x60, len(content)) + content


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


def pad16(data):
    data = data + b"\x80"
    return data + b"\x00" * (-len(data) % 16)


def cmac8(key, data):
    return CMAC.new(key, data, ciphermod=AES).digest()[:8]


def kdf_aes128(secret, counter):
    return hashlib.sha1(secret + struct.pack(">I", counter)).digest()[:16]


def encode_point(point):
    return b"\x04" + int(point.x).to_bytes(32, "big") + int(point.y).to_bytes(32, "big")


def decode_point(data):
    """A P-256 point from its uncompressed encoding; ValueError when it is not one."""
    if len(data) != 65 or data[0] != 4:
        raise ValueError("not an uncompressed P-256 point")
    point = ECC.EccPoint(int.from_bytes(data[1:33], "big"), int.from_bytes(data[33:], "big"), "P-256")
    if point.is_point_at_infinity():
        raise ValueError("the point at infinity")
    return point


def private_key(path):
    """The EC or RSA private key in the PEM file at `path`; None when there is no such file."""
    if not path.exists():
        return None
    text = path.read_text()
    try:
        return ECC.import_key(text)
    except ValueError:
        return RSA.import_key(text)


def ec_multiply(curve, scalar, point):
    """`scalar` * `point` on a short Weierstrass curve (affine coordinates, double and add)."""
    p, a = curve["p"], curve["a"]

    def add(first, second):
        if first is None:
            return second
        if second is None:
            return first
        if first[0] == second[0] and (first[1] + second[1]) % p == 0:
            return None
        if first == second:
            slope = (3 * first[0] * first[0] + a) * pow(2 * first[1], -1, p) % p
        else:
            slope = (second[1] - first[1]) * pow(second[0] - first[0], -1, p) % p
        x = (slope * slope - first[0] - second[0]) % p
        return x, (slope * (first[0] - x) - first[1]) % p

    result = None
    while scalar:
        if scalar & 1:
            result = add(result, point)
        point = add(point, point)
        scalar >>= 1
    return result


class RawKey:
    """A key no library here takes (make_passport.py's weak Active Authentication keys): RSA as its
    modulus and private exponent (e = 1 gives d = 1), or ECDSA on a curve given by its numbers."""

    def __init__(self, numbers):
        self.kind = numbers.pop("kind")
        self.numbers = {name: int(value, 16) for name, value in numbers.items()}

    def sign(self, challenge):
        if self.kind == "rsa":
            n, d = self.numbers["n"], self.numbers["d"]
            size = (n.bit_length() + 7) // 8
            return pow(int.from_bytes(iso9796_message(size, challenge), "big"), d, n).to_bytes(size, "big")
        curve = self.numbers
        order = curve["n"]
        size = (order.bit_length() + 7) // 8
        digest = int.from_bytes(SHA256.new(challenge).digest(), "big") >> max(0, 256 - order.bit_length())
        while True:
            nonce = int.from_bytes(os.urandom(size + 8), "big") % (order - 1) + 1
            r = ec_multiply(curve, nonce, (curve["gx"], curve["gy"]))[0] % order
            s = pow(nonce, -1, order) * (digest + r * curve["d"]) % order
            if r and s:
                return r.to_bytes(size, "big") + s.to_bytes(size, "big")


def raw_key(path):
    """The RawKey in the JSON file at `path`; None when there is no such file."""
    return RawKey(json.loads(path.read_text())) if path.exists() else None


def iso9796_message(size, challenge):
    """ISO/IEC 9796-2 scheme 1 with partial message recovery and SHA-1 (trailer BC), `size` bytes long."""
    recoverable = os.urandom(size - 22)
    return b"\x6a" + recoverable + hashlib.sha1(recoverable + challenge).digest() + b"\xbc"


def random_scalar():
    return int.from_bytes(os.urandom(40), "big") % (int(P256.order) - 1) + 1


def token(k_mac, point, oid=PACE_OID):
    """PACE authentication token: the CMAC of the public key data object of `point`."""
    key_data = tlv(0x06, oid) + tlv(0x86, encode_point(point))
    return cmac8(k_mac, bytes([0x7F, 0x49, len(key_data)]) + key_data)


class SecureSession:
    """The chip's side of secure messaging: 3DES after BAC, AES after PACE."""

    def __init__(self, k_enc, k_mac, ssc, aes):
        self.k_enc, self.k_mac, self.ssc, self.aes = k_enc, k_mac, ssc, aes

    def counter(self):
        return self.ssc.to_bytes(16 if self.aes else 8, "big")

    def mac(self, data):
        return cmac8(self.k_mac, pad16(data)) if self.aes else retail_mac(self.k_mac, data)

    def pad(self, data):
        return pad16(data) if self.aes else pad(data)

    def crypt(self, data, encrypt):
        if self.aes:
            iv = AES.new(self.k_enc, AES.MODE_ECB).encrypt(self.counter())
            cipher = AES.new(self.k_enc, AES.MODE_CBC, iv=iv)
            return cipher.encrypt(data) if encrypt else cipher.decrypt(data)
        return tdes(self.k_enc, data, encrypt)


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
    def __init__(self, folder, not_passport, pace=False, bac=True, pace_cam=False, hostile=None, strict_reads=False,
                 status_object=True):
        holder = json.loads((folder / "passport.json").read_text())
        number = holder["documentNumber"]
        seed_input = (number + check_digit(number) + holder["dateOfBirth"] + check_digit(holder["dateOfBirth"])
                      + holder["dateOfExpiry"] + check_digit(holder["dateOfExpiry"]))
        seed = hashlib.sha1(seed_input.encode()).digest()[:16]
        self.k_enc, self.k_mac = derive(seed, 1), derive(seed, 2)
        # PACE passwords by reference: 1 the MRZ, 2 the card access number.
        self.pace_passwords = {1: hashlib.sha1(seed_input.encode()).digest(), 2: holder["can"].encode()}
        self.files = {fid: (folder / f"{name}.bin").read_bytes() for fid, name in FILES.items()}
        self.files.update({fid: (folder / f"{name}.bin").read_bytes() for fid, name in OPTIONAL_FILES.items()
                           if (folder / f"{name}.bin").exists()})
        self.chip_auth_key = private_key(folder / "ca.key")
        self.active_auth_key = private_key(folder / "aa.key") or raw_key(folder / "aa-raw.json")
        # The Chip Authentication variant DG14 offers, given a key for it: "aes", "3des" or None.
        dg14 = self.files.get(0x010E, b"") if self.chip_auth_key is not None else b""
        self.chip_auth = next((name for name, oid in CHIP_AUTH_OIDS.items() if tlv(0x06, oid) in dg14), None)
        if pace:
            self.files[CARD_ACCESS] = CARD_ACCESS_CONTENT
        # PACE with Chip Authentication Mapping proves the key of EF.CardSecurity (ca.key's, on a genuine chip).
        self.pace_oids = [PACE_OID]
        if pace_cam:
            self.files[CARD_ACCESS] = CARD_ACCESS_WITH_CAM
            self.files[CARD_SECURITY] = (folder / "CardSecurity.bin").read_bytes()
            self.pace_oids.append(PACE_CAM_OID)
        if hostile:
            self.files = hostile_files(hostile, self.files)
        self.drip = hostile == "drip"
        self.hostile = hostile
        # Without DO99 the status word travels in the trailer only, as some chips and emulators send it.
        self.status_object = status_object
        self.chip_authentications = 0
        self.refused_extended_read = False
        self.strict_reads = strict_reads
        self.not_passport = not_passport
        self.pace, self.bac = pace, bac
        self.reset()

    def reset(self):
        self.application = False
        self.challenge = None
        self.session = None
        self.selected = None
        self.pace_state = None
        # The session in which MSE:Set AT chose Chip Authentication, and the one it leads to.
        self.chip_auth_session = None
        self.next_session = None

    # APDU handling

    def answer(self, apdu):
        cla, ins, p1, p2 = apdu[:4]
        body = apdu[4:]
        data, le = parse_body(body)
        if cla == 0x0C:
            return self.protected(cla, ins, p1, p2, data)
        if ins == 0xC0 and self.hostile == "chain-forever":
            return os.urandom(255) + sw(0x61FF)
        if ins == 0x86 and cla in (0x00, 0x10) and self.pace:
            return self.general_authenticate(cla, data)
        if cla != 0x00:
            return sw(0x6E00)
        if ins == 0xA4 and p1 == 0x04:
            if data == EMRTD_AID and not self.not_passport:
                self.reset()
                self.application = True
                return sw(0x9000)
            return sw(0x6A82)
        # EF.CardAccess is readable in the clear, before and after the application is selected.
        if ins == 0xA4 and p1 == 0x02 and int.from_bytes(data, "big") == CARD_ACCESS:
            self.session = None
            if CARD_ACCESS not in self.files:
                return sw(0x6A82)
            self.selected = CARD_ACCESS
            return sw(0x9000)
        if ins == 0xB0 and self.selected == CARD_ACCESS and self.session is None:
            content, status = self.dispatch(ins, p1, p2, b"", le)
            return content + sw(status)
        if ins == 0x22 and p1 == 0xC1 and p2 == 0xA4 and self.pace:
            return self.set_authentication_template(data)
        if not self.application:
            return sw(0x6985)
        if ins == 0x84 and not self.bac:
            return sw(0x6982)
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
        self.session = SecureSession(derive(seed, 1), derive(seed, 2), ssc, aes=False)
        self.challenge = None
        return answer + sw(0x9000)

    def set_authentication_template(self, data):
        """MSE:Set AT for PACE: the protocol (80) must be the one offered, the password (83) 1 or 2."""
        objects = dict(parse_tlvs(data))
        if objects.get(0x80) not in self.pace_oids or objects.get(0x83, b"\x00")[0] not in self.pace_passwords:
            return sw(0x6A80)
        if 0x84 in objects and objects[0x84] != b"\x0c":
            return sw(0x6A80)
        if self.hostile == "reopen-refuse-ca" and self.refused_extended_read and objects[0x80] == PACE_CAM_OID:
            log("REFUSED CHIP AUTHENTICATION MAPPING after the re-opening")
            return sw(0x6A80)
        self.session = None
        self.application = False
        self.pace_state = {"password": self.pace_passwords[objects[0x83][0]], "step": 1, "oid": objects[0x80]}
        return sw(0x9000)

    def general_authenticate(self, cla, data):
        """The chip's side of PACE's four steps; any misstep ends the attempt."""
        state, self.pace_state = self.pace_state, None
        objects = dict(parse_tlvs(data)) if data[:1] == b"\x7c" else {}
        inner = dict(parse_tlvs(objects.get(0x7C, b"")))
        step = state["step"] if state else 0
        last = cla == 0x00
        if step == 0 or last != (step == 4):
            return sw(0x6985)
        try:
            if step == 1:
                state["nonce"] = os.urandom(16)
                k_pi = kdf_aes128(state["password"], 3)
                answer = tlv(0x80, AES.new(k_pi, AES.MODE_CBC, iv=bytes(16)).encrypt(state["nonce"]))
            elif step == 2:
                terminal = decode_point(inner[0x81])
                key = random_scalar()
                shared = terminal * key
                state["generator"] = GENERATOR * int.from_bytes(state["nonce"], "big") + shared
                state["mapping_key"] = key
                answer = tlv(0x82, encode_point(GENERATOR * key))
            elif step == 3:
                terminal = decode_point(inner[0x83])
                key = random_scalar()
                mine = state["generator"] * key
                if encode_point(mine) == inner[0x83]:
                    return sw(0x6A80)
                secret = int((terminal * key).x).to_bytes(32, "big")
                state.update(terminal=terminal, mine=mine, k_enc=kdf_aes128(secret, 1), k_mac=kdf_aes128(secret, 2))
                answer = tlv(0x84, encode_point(mine))
            else:
                if inner.get(0x85) != token(state["k_mac"], state["mine"], state["oid"]):
                    return sw(0x6300)
                self.session = SecureSession(state["k_enc"], state["k_mac"], 0, aes=True)
                answer = tlv(0x86, token(state["k_mac"], state["terminal"], state["oid"]))
                if state["oid"] == PACE_CAM_OID:
                    answer += tlv(0x8A, self.chip_authentication_data(state))
                    self.chip_authentications += 1
                    log(f"PACE-CAM {self.chip_authentications}")
        except (KeyError, ValueError):
            return sw(0x6A80)
        state["step"] = step + 1
        if step < 4:
            self.pace_state = state
        answer = tlv(0x7C, answer)
        return answer + sw(0x9000)

    def chip_authentication_data(self, state):
        """CA_IC = SK_IC^-1 * SK_Map,IC mod n, padded and encrypted with IV = E(KS_enc, all ones)."""
        order = int(P256.order)
        secret = int(self.chip_auth_key.d)
        value = pow(secret, -1, order) * state["mapping_key"] % order
        iv = AES.new(state["k_enc"], AES.MODE_ECB).encrypt(b"\xff" * 16)
        return AES.new(state["k_enc"], AES.MODE_CBC, iv=iv).encrypt(pad16(value.to_bytes(32, "big")))

    def protected(self, cla, ins, p1, p2, data):
        session = self.session
        if session is None:
            return sw(0x6988)
        objects = parse_tlvs(data)
        mac_input = b""
        encrypted = None
        expected = None
        given_mac = None
        # Odd instructions (READ BINARY B1) carry their cryptogram in DO85, without a padding indicator.
        odd = ins & 1 == 1
        for tag, value in objects:
            if tag == 0x87 and not odd:
                mac_input += tlv(0x87, value)
                encrypted = value[1:]
            elif tag == 0x85 and odd:
                mac_input += tlv(0x85, value)
                encrypted = value
            elif tag in (0x85, 0x87):
                self.session = None
                return sw(0x6988)
            elif tag == 0x97:
                mac_input += tlv(0x97, value)
                number = int.from_bytes(value, "big")
                expected = number or (256 if len(value) == 1 else 65536)
            elif tag == 0x8E:
                given_mac = value
        session.ssc += 1
        header = session.pad(bytes([cla, ins, p1, p2]))
        if given_mac is None or session.mac(session.counter() + header + mac_input) != given_mac:
            self.session = None
            return sw(0x6988)
        if (self.hostile in ("reopen-after-ca", "reopen-refuse-ca") and self.chip_authentications
                and not self.refused_extended_read and ins in (0xB0, 0xB1) and (expected or 0) > 256):
            log("REFUSED EXTENDED READ after Chip Authentication")
            self.refused_extended_read = True
            self.session = None
            return sw(0x6700)
        if self.hostile == "chain-forever" and ins == 0xB0 and self.selected == 0x0102:
            return sw(0x61FF)
        plain = unpad(session.crypt(encrypted, encrypt=False)) if encrypted is not None else b""
        if ins == 0xA4 and p1 == 0x04:
            # Selecting the application under PACE's secure messaging keeps the session.
            self.application = plain == EMRTD_AID and not self.not_passport
            data_out, status = b"", 0x9000 if self.application else 0x6A82
        elif not self.application and ins == 0xA4 and p1 == 0x02 and plain == b"\x01\x1d" and CARD_SECURITY in self.files:
            self.selected = CARD_SECURITY
            data_out, status = b"", 0x9000
        elif not self.application and ins in (0xB0, 0xB1) and self.selected == CARD_SECURITY:
            data_out, status = self.dispatch(ins, p1, p2, plain, expected)
        elif not self.application:
            data_out, status = b"", 0x6985
        else:
            data_out, status = self.dispatch(ins, p1, p2, plain, expected)
        session.ssc += 1
        response = b""
        if data_out:
            cryptogram = session.crypt(session.pad(data_out), encrypt=True)
            response += tlv(0x85, cryptogram) if odd else tlv(0x87, b"\x01" + cryptogram)
        if self.status_object:
            response += tlv(0x99, sw(status))
        response += tlv(0x8E, session.mac(session.counter() + response))
        if self.next_session is not None:
            # Chip Authentication answers under the old keys; the new ones take over from the next command.
            self.session, self.next_session = self.next_session, None
            self.chip_authentications += 1
            log(f"CHIP AUTHENTICATION {self.chip_authentications}")
        return response + sw(0x9000 if self.status_object else status)

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
            asked = expected or 256
            self.check_read(offset, asked)
            if offset >= len(content):
                return b"", 0x6B00
            if self.drip:
                return content[offset:offset + 1], 0x9000
            chunk = content[offset:offset + asked]
            # Fewer bytes than asked for: the end of the file came first.
            return chunk, 0x9000 if len(chunk) == asked else 0x6282
        if ins == 0xB1:
            return self.read_binary_beyond_32k(data, expected)
        if ins == 0x22 and p1 == 0x41 and p2 in (0xA4, 0xA6):
            return self.set_chip_authentication(p2, data)
        if ins == 0x86 and self.chip_auth == "aes":
            return self.chip_authenticate(data)
        if ins == 0x88 and self.active_auth_key is not None:
            return self.internal_authenticate(data)
        return b"", 0x6D00

    def read_binary_beyond_32k(self, data, expected):
        """READ BINARY B1: the offset in DO54, the data answered in DO53 (tag and length count against Le)."""
        if self.selected is None:
            return b"", 0x6986
        objects = parse_tlvs(data)
        if len(objects) != 1 or objects[0][0] != 0x54:
            return b"", 0x6A80
        offset = int.from_bytes(objects[0][1], "big")
        content = self.files[self.selected]
        room = expected or 256
        size = room - (2 if room - 2 < 0x80 else 3 if room - 3 < 0x100 else 4)
        self.check_read(offset, size)
        if offset >= len(content):
            return b"", 0x6B00
        if self.drip:
            return tlv(0x53, content[offset:offset + 1]), 0x9000
        chunk = content[offset:offset + size]
        return tlv(0x53, chunk), 0x9000 if len(chunk) == size else 0x6282

    def check_read(self, offset, length):
        """With --strict-reads, logs a READ BINARY of the selected file that reaches past its end."""
        if self.strict_reads and offset + length > len(self.files[self.selected]):
            log(f"READ PAST END {FILE_NAMES[self.selected]} {offset} {length}")

    def set_chip_authentication(self, p2, data):
        """MSE:Set AT (A4) choosing Chip Authentication in AES, or MSE:Set KAT (A6) doing it in 3DES."""
        if self.hostile == "reopen-refuse-ca" and self.refused_extended_read:
            log("REFUSED CHIP AUTHENTICATION after the re-opening")
            return b"", 0x6A80
        try:
            objects = dict(parse_tlvs(data))
            if p2 == 0xA4 and self.chip_auth == "aes" and objects.get(0x80) == CHIP_AUTH_OIDS["aes"]:
                self.chip_auth_session = self.session
                return b"", 0x9000
            if p2 == 0xA6 and self.chip_auth == "3des":
                self.next_session = self.chip_auth_keys(decode_point(objects[0x91]))
                return b"", 0x9000
        except (IndexError, KeyError, ValueError):
            pass
        return b"", 0x6A80

    def chip_authenticate(self, data):
        """GENERAL AUTHENTICATE of Chip Authentication in AES: the terminal's key in 7C/80."""
        if self.chip_auth_session is not self.session:
            return b"", 0x6985
        self.chip_auth_session = None
        try:
            objects = dict(parse_tlvs(data)) if data[:1] == b"\x7c" else {}
            terminal = decode_point(dict(parse_tlvs(objects[0x7C]))[0x80])
        except (IndexError, KeyError, ValueError):
            return b"", 0x6A80
        self.next_session = self.chip_auth_keys(terminal)
        return tlv(0x7C, b""), 0x9000

    def chip_auth_keys(self, terminal):
        """Secure messaging with the keys of the ECDH secret of the chip's key and the terminal's."""
        secret = int((terminal * int(self.chip_auth_key.d)).x).to_bytes(32, "big")
        if self.chip_auth == "aes":
            return SecureSession(kdf_aes128(secret, 1), kdf_aes128(secret, 2), 0, aes=True)
        return SecureSession(derive(secret, 1), derive(secret, 2), 0, aes=False)

    def internal_authenticate(self, challenge):
        """Active Authentication: the terminal's 8-byte challenge signed with the chip's private key."""
        key = self.active_auth_key
        if len(challenge) != 8:
            return b"", 0x6700
        if isinstance(key, RawKey):
            return key.sign(challenge), 0x9000
        if isinstance(key, RSA.RsaKey):
            size = key.size_in_bytes()
            message = iso9796_message(size, challenge)
            return pow(int.from_bytes(message, "big"), int(key.d), int(key.n)).to_bytes(size, "big"), 0x9000
        return DSS.new(key, "fips-186-3", encoding="binary").sign(SHA256.new(challenge)), 0x9000


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


def serve(chip, port, remove_after, slip_after, mute_at=None, delay=0):
    """Stays on the reader until vpcd goes away; `remove_after` takes the card off for good at that
    APDU, `slip_after` takes it off and puts it back; from APDU `mute_at` on the chip answers
    nothing; `delay` seconds pass before each answer to an APDU."""
    apdus = 0
    muted = False
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
                if muted:
                    continue
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
                if mute_at is not None and apdus >= mute_at:
                    log(f"MUTE from APDU {apdus} ({message[:4].hex()})")
                    muted = True
                    continue
                if delay:
                    time.sleep(delay)
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
    access = parser.add_mutually_exclusive_group()
    access.add_argument("--pace", action="store_true", help="offer PACE as well as BAC")
    access.add_argument("--pace-only", action="store_true", help="offer PACE, refuse BAC")
    access.add_argument("--pace-cam", action="store_true",
                        help="offer PACE with Chip Authentication Mapping (and generic mapping) as well as BAC")
    parser.add_argument("--remove-after", type=int)
    parser.add_argument("--slip-after", type=int)
    parser.add_argument("--hostile", nargs="+", metavar=("KIND", "ARGUMENT"),
                        help="a misbehaving chip: " + "; ".join(f"{kind}: {text}" for kind, text in HOSTILE.items()))
    parser.add_argument("--strict-reads", action="store_true",
                        help="log every READ BINARY that asks for bytes past its file's end")
    parser.add_argument("--no-status-object", action="store_true",
                        help="protected answers carry no DO99: the status word travels in the trailer only")
    options = parser.parse_args()
    hostile, argument = (options.hostile + [None])[:2] if options.hostile else (None, None)
    if hostile is not None and (hostile not in HOSTILE or len(options.hostile) > 2):
        parser.error(f"--hostile: one of {', '.join(HOSTILE)}, with mute-at's N or slow's seconds")
    if hostile == "mute-at" and not (argument or "").isdigit():
        parser.error("--hostile mute-at needs the number of the first APDU left unanswered")
    if hostile:
        log(f"HOSTILE {' '.join(options.hostile)}")
    chip = Chip(options.passport, options.not_passport, pace=options.pace or options.pace_only or options.pace_cam,
                bac=not options.pace_only, pace_cam=options.pace_cam, hostile=hostile,
                strict_reads=options.strict_reads, status_object=not options.no_status_object)
    serve(chip, options.port, options.remove_after, options.slip_after,
          mute_at=int(argument) if hostile == "mute-at" else None,
          delay=float(argument or 1.5) if hostile == "slow" else 0)


if __name__ == "__main__":
    sys.exit(main())
