"""Runs vsmartcard's vicc (Debian's vsmartcard-vpicc) as an ICAO passport (`vicc -t ePass`) that
serves the files of a passport made by make_passport.py, for testing the reader against a chip
implementation that is not the project's own.

    vicc_passport.py --passport DIR --port PORT [--verbose]

vicc's ePass does Basic Access Control and secure messaging with its own code; only the file
system it serves is this passport's (EF.COM, DG1, DG2, EF.SOD), where vicc's own generator would
ask for an MRZ and a photo on the terminal. Debian installs vicc's library outside Python's path
and for PyCrypto, where Debian ships PyCryptodome as Cryptodome: both are bridged here. vicc's
secure messaging also predates Python 3's bytes, and fails on every protected command as Debian
ships it; python3_bytes stands in for those parts, keeping vicc's choices (no DO99). BAC, the file
system and the command handling are vicc's own.
"""

import argparse
import importlib
import importlib.abc
import importlib.util
import logging
import sys
from pathlib import Path

VICC_LIBRARY = Path("/usr/lib/python3/site-packages/virtualsmartcard")
FILES = {0x011E: "EF.COM", 0x0101: "DG1", 0x0102: "DG2", 0x011D: "EF.SOD"}
EMRTD_AID = bytes.fromhex("A0000002471001")


class CryptoAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `Crypto.X` (PyCrypto's name, which vicc imports) as `Cryptodome.X`."""

    def find_spec(self, name, path=None, target=None):
        if name == "Crypto" or name.startswith("Crypto."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("Cryptodome" + spec.name[len("Crypto"):])

    def exec_module(self, module):
        pass


def tlv(tag, value):
    """One BER-TLV object with a one-byte tag."""
    length = len(value)
    encoded = bytes([length]) if length < 0x80 else bytes([0x81, length]) if length < 0x100 else \
        bytes([0x82]) + length.to_bytes(2, "big")
    return bytes([tag]) + encoded + value


def python3_bytes():
    """Byte-safe stand-ins for the vicc code that still treats Python 2 strings and bytes alike and
    so fails under Python 3 in every protected exchange. They keep vicc's choices: a command's DO87
    or DO85 and DO97 checked against DO8E; an answer's data in DO87, a MAC over it for success
    only, and no DO99 at all. vicc's BAC, file system, command handling and MAC primitive stay."""
    from virtualsmartcard import CryptoUtils, TLVutils
    from virtualsmartcard.cards.ePass import ePass_SE
    from virtualsmartcard.SWutils import SW, SwError
    from virtualsmartcard.utils import C_APDU

    def operation_on_string(first, second, operation):
        if len(first) != len(second):
            raise ValueError("string1 and string2 must be of equal length")
        return bytes(operation(a, b) for a, b in zip(bytes(first), bytes(second)))

    def compute_cryptographic_checksum(self, p1, p2, data):
        # vicc writes the counter in as few bytes as it needs; ICAO's counter is always 8 bytes.
        if p1 != 0x8E or p2 != 0x80:
            raise SwError(SW["ERR_INCORRECTP1P2"])
        self.ssc += 1
        return CryptoUtils.crypto_checksum("CC", self.cct.key, self.ssc.to_bytes(8, "big") + data)

    def parse_SM_CAPDU(self, capdu, authenticate_header):
        mac_input = b""
        if authenticate_header:
            mac_input = CryptoUtils.append_padding(
                self.cct.blocklength, bytes([capdu.cla, capdu.ins, capdu.p1, capdu.p2]))
        data, expected, checked = b"", None, False
        for tag, _, value in TLVutils.unpack(bytes(capdu.data)):
            value = bytes(value)
            if tag in (0x85, 0x87, 0x97):
                mac_input += tlv(tag, value)
            if tag in (0x85, 0x87):
                cryptogram = value[1:] if tag == 0x87 else value
                data = CryptoUtils.strip_padding(self.ct.blocklength, self.decipher(tag, 0x80, cryptogram))
            elif tag == 0x97:
                expected = int.from_bytes(value, "big") or (256 if len(value) == 1 else 65536)
            elif tag == 0x8E:
                padded = CryptoUtils.append_padding(self.cct.blocklength, mac_input)
                if self.compute_cryptographic_checksum(0x8E, 0x80, padded) != value:
                    raise SwError(SW["ERR_SECMESSOBJECTSINCORRECT"])
                checked = True
        if not checked:
            raise SwError(SW["ERR_SECMESSOBJECTSMISSING"])
        return C_APDU(cla=capdu.cla & ~0x0C, ins=capdu.ins, p1=capdu.p1, p2=capdu.p2, le=expected, data=data)

    def protect_response(self, sw, result):
        response = b""
        if result:
            response += tlv(0x87, b"\x01" + self.encipher(0x82, 0x80, bytes(result)))
        if sw == SW["NORMAL"]:
            padded = CryptoUtils.append_padding(self.cct.blocklength, response)
            response += tlv(0x8E, self.compute_cryptographic_checksum(0x8E, 0x80, padded))
        return sw, response

    CryptoUtils.operation_on_string = operation_on_string
    ePass_SE.compute_cryptographic_checksum = compute_cryptographic_checksum
    ePass_SE.parse_SM_CAPDU = parse_SM_CAPDU
    ePass_SE.protect_response = protect_response


def passport_card(folder):
    """vicc's MF with the eMRTD application holding the passport's files, and vicc's passport SAM."""
    from virtualsmartcard.SmartcardFilesystem import DF, MF, TransparentStructureEF
    from virtualsmartcard.cards.ePass import PassportSAM

    mf = MF()
    application = DF(parent=mf, fid=4, dfname=EMRTD_AID, bertlv_data=[])
    for fid, name in FILES.items():
        application.append(TransparentStructureEF(
            parent=application, fid=fid, filedescriptor=0, data=(folder / f"{name}.bin").read_bytes()))
    mf.append(application)
    return mf, PassportSAM(mf)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passport", required=True, type=Path)
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--verbose", action="store_true")
    options = parser.parse_args()
    sys.path.insert(0, str(VICC_LIBRARY))
    sys.meta_path.insert(0, CryptoAlias())
    from virtualsmartcard import CardGenerator, VirtualSmartcard

    python3_bytes()

    card = passport_card(options.passport)
    CardGenerator.CardGenerator.generateCard = lambda generator: generator.setCard(*card)
    icc = VirtualSmartcard.VirtualICC(
        None, "ePass", "127.0.0.1", options.port, logginglevel=logging.DEBUG if options.verbose else logging.INFO)
    print(f"vicc ePass on the reader at 127.0.0.1:{options.port}", flush=True)
    icc.run()


if __name__ == "__main__":
    sys.exit(main())
