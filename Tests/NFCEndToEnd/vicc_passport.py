"""Runs vsmartcard's vicc (Debian's vsmartcard-vpicc) as an ICAO passport (`vicc -t ePass`) that
serves the files of a passport made by make_passport.py, for testing the reader against a chip
implementation that is not the project's own.

    vicc_passport.py --passport DIR --port PORT [--verbose]

vicc's ePass does Basic Access Control and secure messaging with its own code; only the file
system it serves is this passport's (EF.COM, DG1, DG2, EF.SOD), where vicc's own generator would
ask for an MRZ and a photo on the terminal. Debian installs vicc's library outside Python's path
and for PyCrypto, where Debian ships PyCryptodome as Cryptodome: both are bridged here, nothing
else of vicc is changed.
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

    card = passport_card(options.passport)
    CardGenerator.CardGenerator.generateCard = lambda generator: generator.setCard(*card)
    icc = VirtualSmartcard.VirtualICC(
        None, "ePass", "127.0.0.1", options.port, logginglevel=logging.DEBUG if options.verbose else logging.INFO)
    print(f"vicc ePass on the reader at 127.0.0.1:{options.port}", flush=True)
    icc.run()


if __name__ == "__main__":
    sys.exit(main())
