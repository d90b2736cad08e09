#!/usr/bin/python3
"""Writes the seed corpora of the chip fuzz targets into Fuzz/Corpus-chip/<target>/, one folder per
ChipFileParser case. The files come from the test passport generator (Tests/NFCEndToEnd/make_passport.py)
in two set-ups, with small faces drawn here so DG2 seeds stay a few KB, MRZ seeds of every format, and
EF.CardAccess as the virtual passport serves it. Keys are fresh each run, so regenerating changes the
signed files; run it only to renew the seeds on purpose.

    Fuzz/make_chip_corpus.py [--out Fuzz/Corpus-chip]

Needs python3-pil and python3-pycryptodome (Debian) and the openssl command.
"""

import argparse
import io
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATOR_DIR = ROOT / "Tests" / "NFCEndToEnd"
sys.path.insert(0, str(GENERATOR_DIR))

from PIL import Image, ImageDraw  # noqa: E402

import make_passport  # noqa: E402
import virtual_passport  # noqa: E402

# Two passports: AES Chip Authentication with RSA Active Authentication and an RSA Document Signer;
# 3DES Chip Authentication with EC Active Authentication and an EC Document Signer.
SETUPS = {
    "aes-rsa": ["--chip-auth", "aes", "--active-auth", "rsa", "--extra-details", "--key-type", "rsa"],
    "3des-ec": ["--chip-auth", "3des", "--active-auth", "ec", "--extra-details", "--key-type", "ec",
                "--photo-format", "jp2"],
}
# Which generated file seeds which target.
GENERATED = {
    "common": "EF.COM.bin", "dg1": "DG1.bin", "dg11": "DG11.bin", "dg12": "DG12.bin", "dg14": "DG14.bin",
    "dg15": "DG15.bin", "securityObject": "EF.SOD.bin", "cardSecurity": "CardSecurity.bin",
}
# ICAO Doc 9303 specimens: TD1 (with a document number longer than nine characters) and TD2.
TD1_MRZ = "I<UTOD23145890<7349<<<<<<<<<<<3407127M9507122UTO<<<<<<<<<<<2STEVENSON<<PETER<JOHN<<<<<<<<<"
TD2_MRZ = "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<L898902C<3UTO6908061F9406236<<<<<<<8"


def tiny_face():
    """A 24 x 30 face, just enough for an image header and a few blocks of data."""
    image = Image.new("RGB", (24, 30), (214, 226, 236))
    draw = ImageDraw.Draw(image)
    draw.ellipse((5, 4, 19, 22), fill=(233, 196, 160))
    draw.point([(9, 11), (15, 11)], fill=(40, 60, 90))
    draw.rectangle((3, 23, 21, 30), fill=(60, 80, 120))
    return image


def encoded(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, **options)
    return buffer.getvalue()


def face_seeds():
    """DG2 files with a tiny face: baseline and progressive JPEG, a JP2 file, a bare JPEG 2000
    codestream, a JP2 with tiles, precincts and two quality layers, and one with the biometric data
    block tagged 7F2E."""
    image = tiny_face()
    jpeg = encoded(image, format="JPEG", quality=60)
    faces = {
        "dg2-jpeg.bin": make_passport.data_group_2(jpeg, "jpeg"),
        "dg2-jpeg-progressive.bin": make_passport.data_group_2(
            encoded(image, format="JPEG", quality=60, progressive=True), "jpeg"),
        "dg2-jp2.bin": make_passport.data_group_2(
            encoded(image, format="JPEG2000", quality_mode="rates", quality_layers=[20]), "jp2"),
        "dg2-j2k-codestream.bin": make_passport.data_group_2(
            encoded(image, format="JPEG2000", no_jp2=True, quality_mode="rates", quality_layers=[20]), "jp2"),
        "dg2-jp2-tiles-precincts.bin": make_passport.data_group_2(
            encoded(image, format="JPEG2000", tile_size=(16, 16), num_resolutions=3, codeblock_size=(16, 16),
                    precinct_size=(32, 32), progression="RPCL", quality_mode="rates", quality_layers=[30, 10]),
            "jp2"),
    }
    record = make_passport.facial_record(jpeg, "jpeg")
    instance = make_passport.tlv(0x7F60, make_passport.tlv(0x7F2E, record))
    faces["dg2-7f2e.bin"] = make_passport.tlv(0x75, make_passport.tlv(
        0x7F61, make_passport.tlv(0x02, b"\x01") + instance))
    return faces


def mrz_seeds():
    return {f"dg1-{name}.bin": make_passport.tlv(0x61, make_passport.tlv(0x5F1F, mrz.encode("ascii")))
            for name, mrz in [("td1", TD1_MRZ), ("td2", TD2_MRZ)]}


def tlv_seeds(generated):
    """Plain and nested BER-TLV, every length form, and the small real files."""
    tlv = make_passport.tlv
    seeds = {
        "long-lengths.bin": bytes.fromhex("0481") + bytes([3]) + b"abc" + bytes.fromhex("048200020102")
        + bytes.fromhex("04830000010a"),
        "nested-with-padding.bin": tlv(0x30, tlv(0x31, tlv(0x7F61, tlv(0x5F2E, b"\xff\xd8\xff")))) + b"\x00\xff"
        + tlv(0x77, b""),
        "multi-byte-tags.bin": tlv(0x5F1F, b"X") + tlv(0x7F2E, tlv(0x5F2E, b"Y")) + bytes.fromhex("9F8101010A"),
    }
    for target, name in [("common", "EF.COM.bin"), ("dg11", "DG11.bin"), ("dg14", "DG14.bin")]:
        seeds[f"{target}.bin"] = generated["aes-rsa"][name]
    return seeds


def list_and_weak_key_seeds():
    """Seeds by target: DG11 and DG12 lists as ICAO Doc 9303-10 counts them (A0, 02, then 5F0F or
    5F1A), and DG15 keys the key policy refuses (RSA with e = 1, RSA-512, secp112r1)."""
    tlv = make_passport.tlv
    other_names = tlv(0xA0, tlv(0x02, b"\x02") + tlv(0x5F0F, b"LINDQVIST<<ANNA") + tlv(0x5F0F, b"BERG<<A"))
    other_persons = tlv(0xA0, tlv(0x02, b"\x01") + tlv(0x5F1A, b"ERIKSSON<<LARS"))
    seeds = {
        "dg11": {"other-names-counted.bin": tlv(0x6B, tlv(0x5F0E, b"ERIKSSON<<ANNA<MARIA") + other_names)},
        "dg12": {"other-persons-counted.bin": tlv(0x6C, tlv(0x5F19, b"UTOPIA") + other_persons)},
        "dg15": {},
    }
    with tempfile.TemporaryDirectory() as scratch:
        for kind in ["exponent-1", "rsa512", "secp112r1"]:
            seeds["dg15"][f"weak-{kind}.bin"] = tlv(0x6F, make_passport.weak_active_auth_key(Path(scratch), kind))
    return seeds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "Fuzz" / "Corpus-chip")
    options = parser.parse_args()
    corpora = {}
    generated = {}
    with tempfile.TemporaryDirectory() as scratch:
        for setup, arguments in SETUPS.items():
            folder = Path(scratch) / setup
            subprocess.run([sys.executable, str(GENERATOR_DIR / "make_passport.py"), "--out", str(folder), *arguments],
                           check=True)
            generated[setup] = {path.name: path.read_bytes() for path in folder.glob("*.bin")}
    for target, name in GENERATED.items():
        corpora[target] = {}
        for setup, files in generated.items():
            if name in files and files[name] not in corpora[target].values():
                corpora[target][f"{setup}.bin"] = files[name]
    corpora["dg1"].update(mrz_seeds())
    corpora["common"]["dg1-dg2-only.bin"] = make_passport.tlv(0x60, make_passport.tlv(0x5F01, b"0107")
                                                              + make_passport.tlv(0x5C, b"\x61\x75"))
    corpora["dg2"] = face_seeds()
    corpora["cardAccess"] = {
        "pace-gm.bin": virtual_passport.CARD_ACCESS_CONTENT, "pace-cam-and-gm.bin": virtual_passport.CARD_ACCESS_WITH_CAM}
    corpora["tlv"] = tlv_seeds(generated)
    for target, seeds in list_and_weak_key_seeds().items():
        corpora[target].update(seeds)
    for target, seeds in corpora.items():
        folder = options.out / target
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for name, content in seeds.items():
            (folder / name).write_bytes(content)
        print(f"{target}: {len(seeds)} seeds, {sum(len(content) for content in seeds.values())} bytes")


if __name__ == "__main__":
    main()
