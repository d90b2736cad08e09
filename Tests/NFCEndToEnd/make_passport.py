"""Makes a test passport for the virtual chip: its data groups, a test CSCA and Document Signer,
EF.SOD signed by them, and an unrelated "foreign" CSCA.

    make_passport.py --out DIR [--photo-format jpeg|jp2] [--photo-size normal|large] [--tamper dg1|dg2] [--key-type ec|rsa]
                     [--chip-auth none|aes|3des] [--active-auth none|rsa|ec] [--clone] [--forged-card-security]
                     [--forge KIND] [--extra-details]
                     [--document-number L898902C] [--birth 690806] [--expiry 940623] [--can 123456]

Writes EF.COM.bin, DG1.bin, DG2.bin, EF.SOD.bin, passport.json (the MRZ fields and the card access number), csca.pem,
ds.pem, foreign-csca.pem (with their keys), and revocation lists (crl-empty.pem and crl-revoked.pem from the CSCA,
the second revoking the Document Signer; foreign-crl.pem from the foreign CSCA) into DIR. Certificates and keys come from the openssl command;
the face is drawn with Pillow. Test data only: nothing here is a real document.

--chip-auth adds DG14.bin offering Chip Authentication (ECDH on NIST P-256, then AES-128 or 3DES
secure messaging) with its public key in explicit curve parameters, and ca.key, the chip's private key;
and CardSecurity.bin (a SignedData by the Document Signer) offering the same key to PACE with Chip
Authentication Mapping.
--active-auth adds DG15.bin with an Active Authentication public key (RSA-2048 or EC P-256) and aa.key;
for EC, DG14 also names the signature algorithm (ECDSA, SHA-256). --clone models a copied chip:
DG14, DG15 and EF.SOD stay those of the genuine keys, but ca.key and aa.key are unrelated fresh keys.
--forged-card-security models a copy that brings its own EF.CardSecurity: a fresh ca.key, offered in a
CardSecurity.bin signed by the foreign CSCA rather than the Document Signer (DG14 keeps the genuine key).
--extra-details adds DG11.bin (full name, another name, personal number, full date of birth, place of
birth, address, profession) and DG12.bin (issuing authority, date of issue in packed BCD, date and
time of personalization).
--photo-size large makes the face about 60 KB (JPEG), so DG2 reaches past the 32 KB that READ BINARY
with its offset in P1-P2 can address: the rest is read with READ BINARY B1 (offset in DO54).

--forge KIND makes a forgery that passive authentication must not accept (see FORGERIES). The
attacker's certificates (attacker-csca.pem, attacker-ds.pem and the like, with their keys) are left
in DIR too. Unless the forgery says otherwise, EF.CardSecurity is signed as EF.SOD is, and the chip
holds the private keys of the DG14 and DG15 it serves. Exit status 3: this openssl cannot make the
forgery (e.g. no MD5 signatures).
"""

import argparse
import datetime
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import NameOID
from PIL import Image, ImageDraw

from virtual_passport import ec_multiply

# id-CA-ECDH-3DES-CBC-CBC and id-CA-ECDH-AES-CBC-CMAC-128 (0.4.0.127.0.7.2.2.3.2.1 and .2).
CHIP_AUTH_OIDS = {"3des": bytes.fromhex("04007F00070202030201"), "aes": bytes.fromhex("04007F00070202030202")}
# id-PK-ECDH (0.4.0.127.0.7.2.2.1.2).
PK_ECDH_OID = bytes.fromhex("04007F000702020102")
# id-PACE-ECDH-CAM-AES-CBC-CMAC-128 (0.4.0.127.0.7.2.2.4.6.2) and id-SecurityObject (0.4.0.127.0.7.3.2.1), the
# content type of EF.CardSecurity.
PACE_CAM_OID = bytes.fromhex("04007F00070202040602")
SECURITY_OBJECT_TYPE = "0.4.0.127.0.7.3.2.1"
# id-icao-mrtd-security-aaProtocolObject (2.23.136.1.1.5) and ecdsa-plain-SHA256 (0.4.0.127.0.7.1.1.4.1.3).
ACTIVE_AUTH_OID = bytes.fromhex("678108010105")
ECDSA_PLAIN_SHA256_OID = bytes.fromhex("04007F00070101040103")
# id-icao-mrtd-security-ldsSecurityObject (2.23.136.1.1.1), the content type of EF.SOD.
LDS_SECURITY_OBJECT_TYPE = "2.23.136.1.1.1"

# The holder of the specimen passport, and the one whose data a forger puts on the chip instead.
GENUINE_HOLDER = "ERIKSSON<<ANNA<MARIA"
ATTACKER_HOLDER = "MALLORY<<EVE"

FORGERIES = {
    "signer-confusion": "EF.SOD (over the attacker's DG1) carries [the genuine Document Signer, the attacker's "
                        "signer, issued by an attacker CSCA]; its SignerInfo names and is signed by the attacker's",
    "signer-confusion-name": "as signer-confusion, but the attacker's signer has the genuine Document Signer's "
                             "subject and issuer names (its own key and serial number, signed by itself)",
    "signer-confusion-twin": "as signer-confusion-name, with the genuine Document Signer's serial number and "
                             "authority key identifier too: EF.SOD's signer identifier matches both certificates",
    "two-signers": "EF.SOD over the attacker's DG1 with two SignerInfos: the genuine one (copied from the genuine "
                   "EF.SOD) and the attacker's",
    "self-signed-signer": "EF.SOD over the attacker's DG1 signed by a self-signed certificate only",
    "ca-signer": "EF.SOD signed by a CA certificate (basicConstraints CA:TRUE) the test CSCA issued",
    "csca-signs": "EF.SOD signed by the test CSCA's own key and certificate",
    "no-digital-signature": "EF.SOD signed by a Document Signer whose keyUsage lacks digitalSignature",
    "expired-signer": "EF.SOD signed today (signingTime) by a Document Signer valid 1991-2001",
    "expired-signer-no-time": "as expired-signer, without signed attributes (no signingTime)",
    "wrong-content-type": "EF.SOD's eContentType is id-data instead of the LDS Security Object's",
    "weak-digest": "EF.SOD signed with MD5 (by an RSA Document Signer of the test CSCA when the passport's is EC)",
    "swapped-dg1": "the genuine EF.SOD with DG1 of another holder",
    "forged-dg15": "an attacker's DG15 (its key in aa.key), EF.SOD re-signed by an attacker's self-signed "
                   "Document Signer; needs --active-auth",
    "card-security-signer-confusion": "the genuine EF.SOD, and an EF.CardSecurity offering the chip's own fresh "
                                      "key, carrying [the genuine Document Signer, the attacker's signer] and "
                                      "signed by the attacker's; needs --chip-auth",
    "weak-aa-exponent-1": "DG15 holds an RSA-2048 key with public exponent 1, so the chip answers Active "
                          "Authentication with no private key at all; needs --active-auth rsa",
    "weak-aa-rsa512": "DG15 holds an RSA-512 key (the chip holds its private key); needs --active-auth rsa",
    "weak-aa-secp112r1": "DG15 holds an ECDSA key on secp112r1 (the chip holds its private key); needs --active-auth ec",
    "weak-signer": "EF.SOD signed by a Document Signer of the test CSCA with an RSA-512 key, exponent 3",
    "signer-key-cert-sign": "EF.SOD signed by a Document Signer (no CA flag) whose key usage adds keyCertSign",
    "key-of-another-document": "genuine data and EF.SOD, but the chip opens with the key of document K03X99999 "
                               "(passport.json gives that key), as an emulator of copied data does",
    "sod-duplicate-dg1": "EF.SOD lists DG1 twice: first a wrong hash, then the right one (the last entry would win)",
    "sod-duplicate-dg1-right-first": "EF.SOD lists DG1 twice: first the right hash, then a wrong one",
    "sod-unknown-version": "the LDSSecurityObject has version 2, which ICAO Doc 9303-10 does not know",
    "sod-content-type-attribute": "EF.SOD's signed contentType attribute says id-data while its content is an "
                                  "LDS Security Object (signed properly over those attributes)",
}

# secp112r1 (SEC 2): p, a, b, the generator and its order; no library here signs on it.
SECP112R1 = {
    "p": 0xDB7C2ABF62E35E668076BEAD208B, "a": 0xDB7C2ABF62E35E668076BEAD2088, "b": 0x659EF8BA043916EEDE8911702B22,
    "gx": 0x09487239995A5EE76B55F9C2F098, "gy": 0xA89CE5AF8724C0A23E0E0FF77500, "n": 0xDB7C2ABF62E35E7628DFAC6561C5,
}
# id-ecPublicKey (1.2.840.10045.2.1), secp112r1 (1.3.132.0.6), rsaEncryption (1.2.840.113549.1.1.1).
EC_PUBLIC_KEY_OID = bytes.fromhex("2A8648CE3D0201")
SECP112R1_OID = bytes.fromhex("2B81040006")
RSA_ENCRYPTION_OID = bytes.fromhex("2A864886F70D010101")


def der_length(length):
    if length < 0x80:
        return bytes([length])
    body = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def tlv(tag, value):
    """A BER-TLV element; `tag` is an int of one or more bytes."""
    tag_bytes = tag.to_bytes((tag.bit_length() + 7) // 8 or 1, "big")
    return tag_bytes + der_length(len(value)) + value


def check_digit(text):
    weights = [7, 3, 1]
    total = 0
    for index, character in enumerate(text):
        if character.isdigit():
            value = int(character)
        elif character.isalpha():
            value = ord(character) - ord("A") + 10
        else:
            value = 0
        total += value * weights[index % 3]
    return str(total % 10)


def td3_mrz(number, birth, expiry, holder=GENUINE_HOLDER):
    """A TD3 MRZ for `holder` (the ICAO specimen's by default), with the given key fields and correct check digits."""
    number = (number + "<" * 9)[:9]
    line1 = ("P<UTO" + holder + "<" * 44)[:44]
    optional = "ZE184226B<<<<<"
    optional_check = check_digit(optional)
    body = number + check_digit(number) + "UTO" + birth + check_digit(birth) + "F" + expiry + check_digit(expiry)
    body += optional + optional_check
    composite = body[0:10] + body[13:20] + body[21:43]
    line2 = body + check_digit(composite)
    assert len(line2) == 44, line2
    return line1 + "\n" + line2


def face_image(photo_format, large=False):
    """A face-like picture, about 20 KB as JPEG (about 60 KB when large)."""
    image = Image.new("RGB", (420, 540), (214, 226, 236))
    draw = ImageDraw.Draw(image)
    draw.ellipse((110, 90, 310, 350), fill=(233, 196, 160), outline=(120, 80, 60), width=3)
    draw.pieslice((100, 60, 320, 250), 180, 360, fill=(90, 60, 40))
    draw.ellipse((155, 190, 185, 210), fill=(40, 60, 90))
    draw.ellipse((235, 190, 265, 210), fill=(40, 60, 90))
    draw.line((210, 215, 200, 265, 220, 265), fill=(150, 100, 80), width=3)
    draw.arc((165, 260, 255, 310), 20, 160, fill=(160, 60, 60), width=4)
    draw.rectangle((90, 360, 330, 540), fill=(60, 80, 120))
    for step in range(0, 540, 6):
        draw.line((0, step, 60, step + 30), fill=(200 - step % 40, 215, 228), width=2)
        draw.line((360, step, 420, step + 20), fill=(205, 212 + step % 30, 230), width=2)
    if large:
        image = image.resize((840, 1080))
    buffer = io.BytesIO()
    if photo_format == "jp2":
        image.save(buffer, "JPEG2000", quality_mode="rates", quality_layers=[40])
    else:
        image.save(buffer, "JPEG", quality=85 if large else 82)
    return buffer.getvalue()


def facial_record(image, photo_format):
    """An ISO/IEC 19794-5 facial record holding one image."""
    image_data_type = 1 if photo_format == "jp2" else 0
    # Facial information block: 20 bytes, no feature points.
    facial_information = (
        (20 + 12 + len(image)).to_bytes(4, "big")  # block length
        + (0).to_bytes(2, "big")  # feature points
        + bytes([2, 0])  # gender female, eye colour unspecified
        + bytes([0]) + (0).to_bytes(3, "big")  # hair colour, property mask
        + (0).to_bytes(2, "big")  # expression
        + bytes([0, 0, 0])  # pose angles
        + bytes([0, 0, 0])  # pose angle uncertainty
    )
    image_information = bytes([1, image_data_type]) + (420).to_bytes(2, "big") + (540).to_bytes(2, "big") + bytes(
        [1, 0]) + (0).to_bytes(2, "big") + (0).to_bytes(2, "big")
    record = facial_information + image_information + image
    header = b"FAC\x00" + b"010\x00" + (14 + len(record)).to_bytes(4, "big") + (1).to_bytes(2, "big")
    return header + record


def data_group_2(image, photo_format):
    header_template = tlv(0xA1, tlv(0x80, b"\x01\x01") + tlv(0x87, b"\x01\x01") + tlv(0x88, b"\x00\x08"))
    instance = tlv(0x7F60, header_template + tlv(0x5F2E, facial_record(image, photo_format)))
    group = tlv(0x7F61, tlv(0x02, b"\x01") + instance)
    return tlv(0x75, group)


def extra_details():
    """DG11 and DG12 for the specimen holder (ICAO Doc 9303-10, 4.7.11 and 4.7.12)."""
    personal = [
        (0x5F0E, b"ERIKSSON<<ANNA<MARIA"), (0x5F10, b"UTO-1969-0806-4"), (0x5F2B, b"19690806"),
        (0x5F11, b"ZENITH<UTO"), (0x5F42, b"12 HARBOUR ROAD<ZENITH<UTO"), (0x5F13, b"CARTOGRAPHER"),
    ]
    # Other names: 5F0F elements in an A0 template, after their count (02).
    other_names = tlv(0xA0, tlv(0x02, b"\x01") + tlv(0x5F0F, b"LINDQVIST<<ANNA"))
    dg11 = tlv(0x6B, tlv(0x5C, b"".join(tag.to_bytes(2, "big") for tag, _ in personal) + b"\x5f\x0f")
               + b"".join(tlv(tag, value) for tag, value in personal) + other_names)
    document = [
        (0x5F19, b"UTOPIA PASSPORT OFFICE<ZENITH"), (0x5F26, bytes.fromhex("20120415")),
        (0x5F55, b"20120415093000"),
    ]
    dg12 = tlv(0x6C, tlv(0x5C, b"".join(tag.to_bytes(2, "big") for tag, _ in document))
               + b"".join(tlv(tag, value) for tag, value in document))
    return dg11, dg12


def openssl(*arguments, cwd):
    return subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True).stdout


def make_key(folder, name, key_type):
    """A private key (RSA-2048 or EC on NIST P-256) as NAME.key in PEM."""
    key_options = (["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"] if key_type == "rsa"
                   else ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
    openssl("genpkey", *key_options, "-out", f"{name}.key", cwd=folder)


def make_certificates(folder, key_type):
    """A CSCA, a Document Signer it issued, and a foreign CSCA, as PEM files with their keys."""
    key_options = (
        ["-newkey", "rsa:2048"] if key_type == "rsa" else ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"])
    for name, subject in [("csca", "/C=UT/O=Utopia Test/CN=Utopia Test CSCA"),
                          ("foreign-csca", "/C=ZZ/O=Elsewhere Test/CN=Elsewhere Test CSCA")]:
        openssl("req", "-x509", *key_options, "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.pem",
                "-subj", subject, "-days", "3650", "-sha256",
                "-addext", "basicConstraints=critical,CA:TRUE,pathlen:0",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=folder)
    openssl("req", "-new", *key_options, "-nodes", "-keyout", "ds.key", "-out", "ds.csr",
            "-subj", "/C=UT/O=Utopia Test/CN=Utopia Test Document Signer", cwd=folder)
    (folder / "ds.ext").write_text("keyUsage=critical,digitalSignature\nbasicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", "ds.csr", "-CA", "csca.pem", "-CAkey", "csca.key", "-CAcreateserial",
            "-out", "ds.pem", "-days", "3650", "-sha256", "-extfile", "ds.ext", cwd=folder)
    for name in ["csca", "foreign-csca", "ds"]:
        openssl("x509", "-in", f"{name}.pem", "-outform", "DER", "-out", f"{name}.der", cwd=folder)
    make_revocation_lists(folder)


def make_revocation_lists(folder):
    """CRLs: crl-empty.pem and crl-revoked.pem (the Document Signer revoked) from the CSCA, and
    foreign-crl.pem from the foreign CSCA."""
    work = folder / "ca-database"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    for issuer, outputs in [("csca", ["crl-empty.pem", "crl-revoked.pem"]), ("foreign-csca", ["foreign-crl.pem"])]:
        (work / "index.txt").write_text("")
        (work / "crlnumber").write_text("01\n")
        (work / "ca.cnf").write_text(
            "[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\ncrlnumber = crlnumber\n"
            "default_md = sha256\ndefault_crl_days = 3650\n")
        authority = ["-config", "ca.cnf", "-keyfile", str(folder / f"{issuer}.key"), "-cert", str(folder / f"{issuer}.pem")]
        for index, output in enumerate(outputs):
            if index == 1:
                openssl("ca", *authority, "-revoke", str(folder / "ds.pem"), "-crl_reason", "keyCompromise", cwd=work)
            openssl("ca", *authority, "-gencrl", "-out", str(folder / output), cwd=work)
    shutil.rmtree(work)


def save_key(folder, name, key):
    """Writes `key` as NAME.key (PKCS #8 PEM) for the openssl command."""
    (folder / f"{name}.key").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def load_certificate(folder, name):
    return x509.load_pem_x509_certificate((folder / f"{name}.pem").read_bytes())


def load_key(folder, name):
    return serialization.load_pem_private_key((folder / f"{name}.key").read_bytes(), password=None)


def new_key(key_type):
    if key_type == "rsa":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return ec.generate_private_key(ec.SECP256R1())


def distinguished_name(country, organization, common_name):
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, country),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def key_usage(*uses):
    names = ["digital_signature", "content_commitment", "key_encipherment", "data_encipherment", "key_agreement",
             "key_cert_sign", "crl_sign", "encipher_only", "decipher_only"]
    return x509.KeyUsage(**{name: name in uses for name in names})


@dataclass
class CertificateRequest:
    """What a certificate made with python3-cryptography says; the issuer defaults to the subject itself."""
    subject: x509.Name
    key: object
    issuer: x509.Name = None
    issuer_key: object = None
    serial: int = None
    not_before: datetime.datetime = None
    not_after: datetime.datetime = None
    ca: bool = False
    uses: tuple = ("digital_signature",)
    authority_key_identifier: x509.AuthorityKeyIdentifier = None


def issue(folder, name, request):
    """Makes NAME.pem and NAME.key from `request`."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    issuer_key = request.issuer_key or request.key
    builder = (x509.CertificateBuilder()
               .subject_name(request.subject)
               .issuer_name(request.issuer or request.subject)
               .public_key(request.key.public_key())
               .serial_number(request.serial or x509.random_serial_number())
               .not_valid_before(request.not_before or now - datetime.timedelta(days=1))
               .not_valid_after(request.not_after or now + datetime.timedelta(days=3650))
               .add_extension(key_usage(*request.uses), critical=True)
               .add_extension(x509.BasicConstraints(ca=request.ca, path_length=0 if request.ca else None),
                              critical=request.ca)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(request.key.public_key()), critical=False))
    authority = request.authority_key_identifier or x509.AuthorityKeyIdentifier.from_issuer_public_key(
        issuer_key.public_key())
    builder = builder.add_extension(authority, critical=False)
    certificate = builder.sign(issuer_key, hashes.SHA256())
    (folder / f"{name}.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    save_key(folder, name, request.key)
    return certificate


@dataclass(frozen=True)
class Signer:
    """Who signs a SignedData, and how: `decoys` are certificate files put before the signer's in
    `certificates`; `plain_data` labels the content id-data instead of its own type."""
    certificate: str
    key: str
    digest: str = "sha256"
    signed_attributes: bool = True
    decoys: tuple = ()
    plain_data: bool = False


GENUINE_SIGNER = Signer("ds.pem", "ds.key")


def sign(folder, content, content_type, signer):
    """A SignedData (DER) over `content`, signed with openssl cms as `signer` says."""
    with tempfile.TemporaryDirectory() as scratch:
        source, output = Path(scratch) / "content.der", Path(scratch) / "signed.der"
        source.write_bytes(content)
        arguments = ["cms", "-sign", "-nodetach", "-binary", "-in", str(source), "-md", signer.digest,
                     "-signer", signer.certificate, "-inkey", signer.key, "-outform", "DER", "-out", str(output)]
        if not signer.plain_data:
            arguments += ["-econtent_type", content_type]
        if not signer.signed_attributes:
            arguments.append("-noattr")
        openssl(*arguments, cwd=folder)
        signed = output.read_bytes()
    if signer.decoys:
        certificates = [certificate_der(folder, name) for name in (*signer.decoys, signer.certificate)]
        signed = with_certificates(signed, certificates)
    return signed


def certificate_der(folder, name):
    return x509.load_pem_x509_certificate((folder / name).read_bytes()).public_bytes(serialization.Encoding.DER)


def der_element(data, index=0):
    """(tag, start of the content, end) of the DER element at `index`; CMS needs single-byte tags only."""
    tag, length = data[index], data[index + 1]
    index += 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(data[index:index + count], "big")
        index += count
    return tag, index, index + length


def der_children(content):
    """The elements (whole encodings) one after another in `content`."""
    elements, index = [], 0
    while index < len(content):
        _, _, end = der_element(content, index)
        elements.append(content[index:end])
        index = end
    return elements


def content_of(element):
    _, start, end = der_element(element)
    return element[start:end]


def signed_data_fields(content_info):
    """The fields of ContentInfo's SignedData: version, digestAlgorithms, encapContentInfo,
    [0] certificates, [1] crls (when there), signerInfos."""
    _, explicit = der_children(content_of(content_info))
    return der_children(content_of(content_of(explicit)))


def content_info(fields):
    signed_data_oid = tlv(0x06, bytes.fromhex("2A864886F70D010702"))
    return tlv(0x30, signed_data_oid + tlv(0xA0, tlv(0x30, b"".join(fields))))


def with_certificates(signed, certificates):
    """`signed` with `certificates` (DER) as its certificates, in this order rather than DER's sorted one."""
    fields = [tlv(0xA0, b"".join(certificates)) if field[0] == 0xA0 else field for field in signed_data_fields(signed)]
    return content_info(fields)


def with_signer_info_of(signed, other):
    """`signed` with the SignerInfo of `other` before its own (and its digest algorithm, when new)."""
    fields = signed_data_fields(signed)
    copied = der_children(content_of(signed_data_fields(other)[-1]))
    algorithms = der_children(content_of(fields[1]))
    for signer_info in copied:
        algorithm = der_children(content_of(signer_info))[2]
        if algorithm not in algorithms:
            algorithms.append(algorithm)
    fields[1] = tlv(0x31, b"".join(algorithms))
    fields[-1] = tlv(0x31, b"".join(copied) + content_of(fields[-1]))
    return content_info(fields)


@dataclass
class Forgery:
    """How a forgery signs EF.SOD and EF.CardSecurity, and what it does to the data groups."""
    sod_signer: Signer = GENUINE_SIGNER
    card_security_signer: Signer = None
    attacker_data: bool = False
    genuine_signer_info: bool = False
    swapped_dg1: bool = False
    fresh_chip_key: bool = False
    # "exponent-1", "rsa512" or "secp112r1": DG15's key (and the chip's) replaced by a weak one.
    weak_active_auth: str = None
    # Another document's number: the key the chip opens with.
    chip_key_number: str = None
    # "duplicate-dg1", "duplicate-dg1-right-first" or "unknown-version": the LDSSecurityObject's own fault.
    security_object_fault: str = None
    # The contentType signed attribute changed to id-data (and the attributes signed again).
    content_type_attribute: bool = False


def attacker_authority(folder, key_type):
    """An attacker's CSCA and a Document Signer it issued (attacker-csca, attacker-ds): a proper
    Document Signer profile that no trusted CSCA vouches for."""
    csca_key = new_key(key_type)
    csca_name = distinguished_name("ZZ", "Mallory Test", "Mallory Test CSCA")
    issue(folder, "attacker-csca", CertificateRequest(csca_name, csca_key, ca=True, uses=("key_cert_sign", "crl_sign")))
    issue(folder, "attacker-ds", CertificateRequest(
        distinguished_name("ZZ", "Mallory Test", "Mallory Test Document Signer"), new_key(key_type),
        issuer=csca_name, issuer_key=csca_key))
    return Signer("attacker-ds.pem", "attacker-ds.key")


def plan_forgery(kind, folder, key_type):
    """The Forgery of `kind`, making the certificates it needs in `folder` (the genuine ones exist)."""
    if kind is None:
        return Forgery()
    genuine_ds, csca = load_certificate(folder, "ds"), load_certificate(folder, "csca")
    csca_key = load_key(folder, "csca")
    if kind == "signer-confusion":
        signer = attacker_authority(folder, key_type)
        return Forgery(Signer(signer.certificate, signer.key, decoys=("ds.pem",)), attacker_data=True)
    if kind in ("signer-confusion-name", "signer-confusion-twin"):
        twin = kind == "signer-confusion-twin"
        authority = genuine_ds.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value
        issue(folder, "lookalike-ds", CertificateRequest(
            genuine_ds.subject, new_key(key_type), issuer=genuine_ds.issuer,
            serial=genuine_ds.serial_number if twin else None, authority_key_identifier=authority if twin else None))
        return Forgery(Signer("lookalike-ds.pem", "lookalike-ds.key", decoys=("ds.pem",)), attacker_data=True)
    if kind == "two-signers":
        signer = attacker_authority(folder, key_type)
        return Forgery(Signer(signer.certificate, signer.key, decoys=("ds.pem",)), attacker_data=True,
                       genuine_signer_info=True)
    if kind == "self-signed-signer":
        issue(folder, "self-signed-ds", CertificateRequest(
            distinguished_name("UT", "Utopia Test", "Utopia Test Self-Signed Signer"), new_key(key_type)))
        return Forgery(Signer("self-signed-ds.pem", "self-signed-ds.key"), attacker_data=True)
    if kind == "ca-signer":
        issue(folder, "ca-ds", CertificateRequest(
            distinguished_name("UT", "Utopia Test", "Utopia Test CA Signer"), new_key(key_type), issuer=csca.subject,
            issuer_key=csca_key, ca=True, uses=("digital_signature", "key_cert_sign")))
        return Forgery(Signer("ca-ds.pem", "ca-ds.key"))
    if kind == "csca-signs":
        return Forgery(Signer("csca.pem", "csca.key"))
    if kind == "no-digital-signature":
        issue(folder, "non-signing-ds", CertificateRequest(
            distinguished_name("UT", "Utopia Test", "Utopia Test Non-Signing Signer"), new_key(key_type),
            issuer=csca.subject, issuer_key=csca_key, uses=("content_commitment",)))
        return Forgery(Signer("non-signing-ds.pem", "non-signing-ds.key"))
    if kind in ("expired-signer", "expired-signer-no-time"):
        utc = datetime.timezone.utc
        issue(folder, "expired-ds", CertificateRequest(
            distinguished_name("UT", "Utopia Test", "Utopia Test Expired Signer"), new_key(key_type),
            issuer=csca.subject, issuer_key=csca_key, not_before=datetime.datetime(1991, 1, 1, tzinfo=utc),
            not_after=datetime.datetime(2001, 12, 31, 23, 59, 59, tzinfo=utc)))
        return Forgery(Signer("expired-ds.pem", "expired-ds.key", signed_attributes=kind == "expired-signer"))
    if kind == "wrong-content-type":
        return Forgery(Signer("ds.pem", "ds.key", plain_data=True))
    if kind == "weak-digest":
        # openssl cms signs MD5 with RSA only: an EC passport gets an RSA Document Signer from its CSCA.
        signer = Signer("ds.pem", "ds.key", digest="md5")
        try:
            sign(folder, b"probe", LDS_SECURITY_OBJECT_TYPE, signer)
        except subprocess.CalledProcessError:
            issue(folder, "rsa-ds", CertificateRequest(
                distinguished_name("UT", "Utopia Test", "Utopia Test RSA Document Signer"), new_key("rsa"),
                issuer=csca.subject, issuer_key=csca_key))
            signer = Signer("rsa-ds.pem", "rsa-ds.key", digest="md5")
            try:
                sign(folder, b"probe", LDS_SECURITY_OBJECT_TYPE, signer)
            except subprocess.CalledProcessError:
                print("make_passport: this openssl cannot sign with MD5", file=sys.stderr)
                sys.exit(3)
        return Forgery(signer)
    if kind == "swapped-dg1":
        return Forgery(swapped_dg1=True)
    if kind == "forged-dg15":
        issue(folder, "attacker-self-signed-ds", CertificateRequest(
            distinguished_name("ZZ", "Mallory Test", "Mallory Test Self-Signed Signer"), new_key(key_type)))
        return Forgery(Signer("attacker-self-signed-ds.pem", "attacker-self-signed-ds.key"))
    if kind.startswith("weak-aa-"):
        return Forgery(weak_active_auth=kind[len("weak-aa-"):])
    if kind == "weak-signer":
        openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:512", "-pkeyopt", "rsa_keygen_pubexp:3",
                "-out", "weak-ds-own.key", cwd=folder)
        issue(folder, "weak-ds", CertificateRequest(
            distinguished_name("UT", "Utopia Test", "Utopia Test Weak Document Signer"), load_key(folder, "weak-ds-own"),
            issuer=csca.subject, issuer_key=csca_key))
        return Forgery(Signer("weak-ds.pem", "weak-ds.key"))
    if kind == "signer-key-cert-sign":
        issue(folder, "cert-signing-ds", CertificateRequest(
            distinguished_name("UT", "Utopia Test", "Utopia Test Certificate-Signing Signer"), new_key(key_type),
            issuer=csca.subject, issuer_key=csca_key, uses=("digital_signature", "key_cert_sign")))
        return Forgery(Signer("cert-signing-ds.pem", "cert-signing-ds.key"))
    if kind == "key-of-another-document":
        return Forgery(chip_key_number="K03X99999")
    if kind.startswith("sod-") and kind != "sod-content-type-attribute":
        return Forgery(security_object_fault=kind[len("sod-"):])
    if kind == "sod-content-type-attribute":
        return Forgery(content_type_attribute=True)
    if kind == "card-security-signer-confusion":
        signer = attacker_authority(folder, key_type)
        return Forgery(card_security_signer=Signer(signer.certificate, signer.key, decoys=("ds.pem",)),
                       fresh_chip_key=True)
    raise ValueError(kind)


def card_security(public_key):
    """The SecurityInfos of EF.CardSecurity: PACE-CAM (AES-128 on P-256, parameters 12), Chip Authentication
    and its public key (a SubjectPublicKeyInfo)."""
    return [
        tlv(0x30, tlv(0x06, PACE_CAM_OID) + tlv(0x02, b"\x02") + tlv(0x02, b"\x0c")),
        tlv(0x30, tlv(0x06, CHIP_AUTH_OIDS["aes"]) + tlv(0x02, b"\x01")),
        tlv(0x30, tlv(0x06, PK_ECDH_OID) + public_key),
    ]


def lds_security_object(groups, fault=None):
    """LDSSecurityObject (version 0, SHA-256) over the complete data group files; `fault` as in Forgery."""
    sha256 = tlv(0x30, tlv(0x06, bytes.fromhex("608648016503040201")))
    entries = [tlv(0x30, tlv(0x02, bytes([number])) + tlv(0x04, hashlib.sha256(content).digest()))
               for number, content in sorted(groups.items())]
    if fault in ("duplicate-dg1", "duplicate-dg1-right-first"):
        wrong = tlv(0x30, tlv(0x02, b"\x01") + tlv(0x04, hashlib.sha256(b"another holder").digest()))
        entries = [wrong, *entries] if fault == "duplicate-dg1" else [entries[0], wrong, *entries[1:]]
    version = b"\x02" if fault == "unknown-version" else b"\x00"
    return tlv(0x30, tlv(0x02, version) + sha256 + tlv(0x30, b"".join(entries)))


def with_content_type_attribute(folder, signed, signer, content_type_oid):
    """`signed` with its contentType signed attribute set to `content_type_oid` (DER content) and the
    attributes signed again with the signer's key, so that only the disagreement is wrong."""
    fields = signed_data_fields(signed)
    signer_info = der_children(content_of(fields[-1]))[0]
    parts = der_children(content_of(signer_info))
    index = next(i for i, part in enumerate(parts) if part[0] == 0xA0)
    content_type = tlv(0x06, bytes.fromhex("2A864886F70D010903"))
    attributes = [tlv(0x30, content_type + tlv(0x31, tlv(0x06, content_type_oid)))
                  if der_children(content_of(attribute))[0] == content_type else attribute
                  for attribute in der_children(content_of(parts[index]))]
    attributes.sort()
    key = load_key(folder, signer.key.removesuffix(".key"))
    to_sign = tlv(0x31, b"".join(attributes))
    if isinstance(key, rsa.RSAPrivateKey):
        signature = key.sign(to_sign, padding.PKCS1v15(), hashes.SHA256())
    else:
        signature = key.sign(to_sign, ec.ECDSA(hashes.SHA256()))
    parts[index] = tlv(0xA0, b"".join(attributes))
    parts[index + 2] = tlv(0x04, signature)
    fields[-1] = tlv(0x31, tlv(0x30, b"".join(parts)))
    return content_info(fields)


def weak_active_auth_key(folder, kind):
    """DG15's SubjectPublicKeyInfo for a weak key of `kind`, with what the chip needs to answer in
    aa-raw.json: for exponent-1, the modulus of a fresh RSA-2048 key with e = 1 (the "signature" is
    the message itself); for rsa512, an RSA-512 key; for secp112r1, a key on that curve."""
    (folder / "aa.key").unlink(missing_ok=True)
    if kind == "secp112r1":
        curve = SECP112R1
        private = int.from_bytes(hashlib.sha256(b"weak" + str(folder).encode()).digest(), "big") % (curve["n"] - 1) + 1
        x, y = ec_multiply(curve, private, (curve["gx"], curve["gy"]))
        (folder / "aa-raw.json").write_text(json.dumps({"kind": "ecdsa", **{k: hex(v) for k, v in curve.items()},
                                                        "d": hex(private)}))
        algorithm = tlv(0x30, tlv(0x06, EC_PUBLIC_KEY_OID) + tlv(0x06, SECP112R1_OID))
        return tlv(0x30, algorithm + tlv(0x03, b"\x00\x04" + x.to_bytes(14, "big") + y.to_bytes(14, "big")))
    if kind == "rsa512":
        openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:512", "-out", "aa-weak.key", cwd=folder)
        numbers = load_key(folder, "aa-weak").private_numbers()
        modulus, exponent, private = numbers.public_numbers.n, numbers.public_numbers.e, numbers.d
    else:
        modulus, exponent, private = rsa.generate_private_key(65537, 2048).public_key().public_numbers().n, 1, 1
    (folder / "aa-raw.json").write_text(json.dumps({"kind": "rsa", "n": hex(modulus), "d": hex(private)}))

    def integer(value):
        return tlv(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))

    algorithm = tlv(0x30, tlv(0x06, RSA_ENCRYPTION_OID) + b"\x05\x00")
    return tlv(0x30, algorithm + tlv(0x03, b"\x00" + tlv(0x30, integer(modulus) + integer(exponent))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--photo-format", choices=["jpeg", "jp2"], default="jpeg")
    parser.add_argument("--photo-size", choices=["normal", "large"], default="normal")
    parser.add_argument("--tamper", choices=["dg1", "dg2"])
    parser.add_argument("--key-type", choices=["ec", "rsa"], default="ec")
    parser.add_argument("--document-number", default="L898902C")
    parser.add_argument("--birth", default="690806")
    parser.add_argument("--expiry", default="940623")
    parser.add_argument("--can", default="123456", help="the card access number, for PACE")
    parser.add_argument("--chip-auth", choices=["none", "aes", "3des"], default="none")
    parser.add_argument("--active-auth", choices=["none", "rsa", "ec"], default="none")
    parser.add_argument("--clone", action="store_true", help="chip keys unrelated to DG14 and DG15")
    parser.add_argument("--forged-card-security", action="store_true",
                        help="a Chip Authentication key unrelated to DG14, offered in an EF.CardSecurity signed by "
                             "the foreign CSCA instead of the Document Signer")
    parser.add_argument("--forge", choices=sorted(FORGERIES), metavar="KIND",
                        help="a forgery: " + "; ".join(f"{kind}: {text}" for kind, text in FORGERIES.items()))
    parser.add_argument("--extra-details", action="store_true", help="add DG11 and DG12")
    options = parser.parse_args()
    if options.forge == "forged-dg15" and options.active_auth == "none":
        parser.error("--forge forged-dg15 needs --active-auth")
    if options.forge and options.forge.startswith("weak-aa-") and options.active_auth != (
            "ec" if options.forge == "weak-aa-secp112r1" else "rsa"):
        parser.error(f"--forge {options.forge} needs --active-auth {'ec' if 'secp' in options.forge else 'rsa'}")
    if options.forge == "card-security-signer-confusion" and options.chip_auth == "none":
        parser.error("--forge card-security-signer-confusion needs --chip-auth")
    folder = options.out.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    # Left from an earlier run into the same folder, these would make the chip offer what this passport does not.
    for name in ["DG11.bin", "DG12.bin", "DG14.bin", "DG15.bin", "CardSecurity.bin", "ca.key", "aa.key", "aa-raw.json"]:
        (folder / name).unlink(missing_ok=True)

    number = options.document_number.upper()
    mrz = td3_mrz(number, options.birth, options.expiry)
    dg1 = tlv(0x61, tlv(0x5F1F, mrz.replace("\n", "").encode("ascii")))
    image = face_image(options.photo_format, large=options.photo_size == "large")
    dg2 = data_group_2(image, options.photo_format)
    groups = {1: dg1, 2: dg2}
    if options.extra_details:
        groups[11], groups[12] = extra_details()
    security_infos = []
    card_security_infos = []
    if options.chip_auth != "none":
        make_key(folder, "ca", "ec")
        # Real passports give the Chip Authentication key with the curve's parameters spelled out.
        public = openssl("ec", "-in", "ca.key", "-param_enc", "explicit", "-pubout", "-outform", "DER", cwd=folder)
        security_infos.append(tlv(0x30, tlv(0x06, CHIP_AUTH_OIDS[options.chip_auth]) + tlv(0x02, b"\x01")))
        security_infos.append(tlv(0x30, tlv(0x06, PK_ECDH_OID) + public))
        # EF.CardSecurity offers the same key to PACE with Chip Authentication Mapping (on P-256, parameters 12).
        card_security_infos = card_security(public)
    if options.active_auth != "none":
        make_key(folder, "aa", options.active_auth)
        groups[15] = tlv(0x6F, openssl("pkey", "-in", "aa.key", "-pubout", "-outform", "DER", cwd=folder))
    if options.active_auth == "ec":
        security_infos.append(
            tlv(0x30, tlv(0x06, ACTIVE_AUTH_OID) + tlv(0x02, b"\x01") + tlv(0x06, ECDSA_PLAIN_SHA256_OID)))
    if security_infos:
        # DER orders the elements of a SET OF by their encodings.
        groups[14] = tlv(0x6E, tlv(0x31, b"".join(sorted(security_infos))))
    tags = b"\x61\x75" + bytes(tag for number, tag in [(11, 0x6B), (12, 0x6C), (14, 0x6E), (15, 0x6F)] if number in groups)
    common = tlv(0x60, tlv(0x5F01, b"0107") + tlv(0x5F36, b"040000") + tlv(0x5C, tags))

    make_certificates(folder, options.key_type)
    forgery = plan_forgery(options.forge, folder, options.key_type)
    # EF.CardSecurity's signer: EF.SOD's, or for a forged one the foreign CSCA (no Document Signer).
    card_security_signer = forgery.card_security_signer or forgery.sod_signer
    if options.forged_card_security:
        card_security_signer = Signer("foreign-csca.pem", "foreign-csca.key")
    if options.clone or options.forged_card_security or forgery.fresh_chip_key:
        # The copied files keep the genuine public keys; the private keys stayed in the genuine chip.
        if options.chip_auth != "none":
            make_key(folder, "ca", "ec")
        if options.forged_card_security or forgery.fresh_chip_key:
            # A copy that brings an EF.CardSecurity of its own, with its own key, signed by a signer of its own.
            public = openssl("ec", "-in", "ca.key", "-param_enc", "explicit", "-pubout", "-outform", "DER", cwd=folder)
            card_security_infos = card_security(public)
        if options.active_auth != "none" and options.clone:
            make_key(folder, "aa", options.active_auth)

    if forgery.weak_active_auth:
        groups[15] = tlv(0x6F, weak_active_auth_key(folder, forgery.weak_active_auth))
    genuine_groups = dict(groups)
    if forgery.attacker_data:
        # The forger's own holder, with the key fields of the genuine document (so the chip opens as before).
        mrz = td3_mrz(number, options.birth, options.expiry, holder=ATTACKER_HOLDER)
        groups[1] = dg1 = tlv(0x61, tlv(0x5F1F, mrz.replace("\n", "").encode("ascii")))
    signed = sign(folder, lds_security_object(groups, forgery.security_object_fault), LDS_SECURITY_OBJECT_TYPE,
                  forgery.sod_signer)
    if forgery.content_type_attribute:
        # id-data (1.2.840.113549.1.7.1) in the signed attribute, the LDS Security Object in the content.
        signed = with_content_type_attribute(folder, signed, forgery.sod_signer, bytes.fromhex("2A864886F70D010701"))
    if forgery.genuine_signer_info:
        genuine = sign(folder, lds_security_object(genuine_groups), LDS_SECURITY_OBJECT_TYPE, GENUINE_SIGNER)
        signed = with_signer_info_of(signed, genuine)
    sod = tlv(0x77, signed)
    if card_security_infos:
        (folder / "CardSecurity.bin").write_bytes(sign(
            folder, tlv(0x31, b"".join(sorted(card_security_infos))), SECURITY_OBJECT_TYPE, card_security_signer))

    if forgery.swapped_dg1:
        # Another holder's DG1 (its MRZ keeps this chip's key fields) beside the genuine EF.SOD.
        other = td3_mrz(number, options.birth, options.expiry, holder=ATTACKER_HOLDER)
        dg1 = tlv(0x61, tlv(0x5F1F, other.replace("\n", "").encode("ascii")))
    if options.tamper == "dg1":
        # Another holder's birth date in the MRZ, after signing.
        dg1 = dg1.replace(options.birth.encode(), b"700101", 1)
    elif options.tamper == "dg2":
        # One byte of the picture changed, after signing.
        index = len(dg2) - 100
        dg2 = dg2[:index] + bytes([dg2[index] ^ 0x01]) + dg2[index + 1:]

    files = [("EF.COM", common), ("DG1", dg1), ("DG2", dg2), ("EF.SOD", sod)]
    files += [(f"DG{number}", groups[number]) for number in (11, 12, 14, 15) if number in groups]
    for name, content in files:
        (folder / f"{name}.bin").write_bytes(content)
    (folder / "passport.json").write_text(json.dumps({
        "documentNumber": forgery.chip_key_number
        or (options.document_number.upper() + "<" * 9)[:max(9, len(options.document_number))],
        "dateOfBirth": options.birth, "dateOfExpiry": options.expiry, "mrz": mrz, "can": options.can,
        "photoFormat": options.photo_format, "photoBytes": len(image), "tampered": options.tamper,
        "chipAuthentication": options.chip_auth, "activeAuthentication": options.active_auth, "clone": options.clone,
        "forgery": options.forge,
    }, indent=2))

if __name__ == "__main__":
    main()
