"""nfc.read end to end: the built gbgbridge-shell reads the project's virtual passport through a
private pcscd with the vpcd reader driver, from a journey page, headless.

Run by scripts/nfc-test.sh (which builds nothing): /usr/bin/python3 -m unittest discover -s Tests/NFCEndToEnd
Environment: GBGBRIDGE_SHELL (the shell binary), NFC_SANDBOX (a scratch folder).
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from passport_sandbox import ROOT, exports, make_passport, sandbox

JOURNEY = ROOT / "Tests" / "NFCEndToEnd" / "journey-nfc.html"
SHELL = os.environ.get("GBGBRIDGE_SHELL", str(ROOT / ".build" / "debug" / "gbgbridge-shell"))


class ChipReadingTests(unittest.TestCase):
    """One private pcscd for the whole class; a card (passport variant) per test."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = Path(tempfile.mkdtemp(prefix="gbgbridge-nfc-"))
        cls.sandbox_dir = cls.scratch / "sandbox"
        cls.sandbox_dir.mkdir()
        cls.environment = exports(sandbox("start", str(cls.sandbox_dir)))
        cls.reader = cls.environment.get("NFC_READER", "Virtual PCD")
        cls.passports = {}
        for name, options in {
            "valid": [],
            "jp2": ["--photo-format", "jp2"],
            "tampered-dg1": ["--tamper", "dg1"],
            "tampered-dg2": ["--tamper", "dg2"],
            "genuine-aes-rsa": ["--chip-auth", "aes", "--active-auth", "rsa"],
            "genuine-3des-ec": ["--chip-auth", "3des", "--active-auth", "ec"],
            "clone": ["--chip-auth", "aes", "--active-auth", "ec", "--clone"],
            "forged-card-security": ["--chip-auth", "aes", "--forged-card-security"],
            "extra-details": ["--extra-details"],
            "large-photo": ["--photo-size", "large"],
        }.items():
            folder = cls.scratch / name
            make_passport(folder, *options)
            cls.passports[name] = folder
        cls.holder = json.loads((cls.passports["valid"] / "passport.json").read_text())

    @classmethod
    def tearDownClass(cls):
        sandbox("remove", str(cls.sandbox_dir), check=False)
        sandbox("stop", str(cls.sandbox_dir), check=False)
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def tearDown(self):
        sandbox("remove", str(self.sandbox_dir), check=False)

    # Helpers

    def insert(self, passport="valid", *options):
        sandbox("card", str(self.sandbox_dir), "--passport", str(self.passports[passport]), *options)

    def key(self, **overrides):
        key = {
            "documentNumber": self.holder["documentNumber"],
            "dateOfBirth": self.holder["dateOfBirth"],
            "dateOfExpiry": self.holder["dateOfExpiry"],
        }
        key.update(overrides)
        return key

    def start_journey(self, query, *options, environment=None, timeout=90):
        """Starts the shell on the fixture journey; returns (process, log path)."""
        url = JOURNEY.as_uri() + "?" + "&".join(f"{k}={v}" for k, v in query.items())
        log = self.scratch / f"messages-{time.monotonic_ns()}.jsonl"
        env = dict(os.environ)
        env.update(self.environment if environment is None else environment)
        process = subprocess.Popen(
            [SHELL, url, "--headless", "--exit-on", "journey.complete", "--timeout", str(timeout), "--message-log",
             str(log), "--nfc-reader", self.reader, *options],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        return process, log

    def finish_journey(self, process, timeout=120):
        stdout, stderr = process.communicate(timeout=timeout)
        return process.returncode, json.loads(stdout) if stdout.strip() else None, stderr

    def run_journey(self, query, *options, environment=None, timeout=90):
        """Runs the shell on the fixture journey; returns (exit status, journey.complete data, stderr, log path)."""
        process, log = self.start_journey(query, *options, environment=environment, timeout=timeout)
        status, result, stderr = self.finish_journey(process, timeout=timeout + 30)
        return status, result, stderr, log

    def wait_for_request(self, log, action="nfc.read", timeout=60):
        """Waits until the message log shows the page's request for `action`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if log.exists() and f'"action":"{action}"' in log.read_text().replace(" ", ""):
                return
            time.sleep(0.1)
        self.fail(f"the journey did not ask for {action}")

    def single_read(self, query, *options, **keywords):
        status, result, stderr, log = self.run_journey(query, *options, **keywords)
        self.assertEqual(status, 0, stderr)
        self.assertNotIn("failure", result, stderr)
        self.assertEqual(len(result["reads"]), 1, result)
        return result, result["reads"][0], log, stderr

    # The read itself

    def test_full_read_with_trusted_csca(self):
        self.insert()
        result, read, log, stderr = self.single_read(
            self.key(), "--csca", str(self.passports["valid"] / "csca.pem"))
        self.assertEqual(result["capability"], {"supported": True, "version": "1.0"})
        self.assertEqual(read["status"], "success", read)
        self.assertTrue(read["chipRead"])
        self.assertEqual(read["documentNumber"], self.holder["documentNumber"].rstrip("<"))
        self.assertEqual(read["dateOfBirth"], self.holder["dateOfBirth"])
        self.assertEqual(read["dateOfExpiry"], self.holder["dateOfExpiry"])
        self.assertEqual(read["surname"], "ERIKSSON")
        self.assertEqual(read["givenNames"], "ANNA MARIA")
        self.assertTrue(read["mrzCheckDigitsValid"])
        self.assertEqual(len(read["mrz"].replace("\n", "")), 88)
        self.assertEqual(read["photoMimeType"], "image/jpeg")
        self.assertEqual(read["photoStart"], "/9j/")
        self.assertGreater(read["photoLength"], 10_000)
        self.assertEqual(read["dataGroupsRead"], ["DG1", "DG2"])
        self.assertEqual(read["accessControl"], "BAC")
        verdict = read["passiveAuthentication"]
        self.assertEqual(verdict["status"], "valid", verdict)
        self.assertEqual(verdict["dataGroupsMatched"], ["DG1", "DG2"])
        self.assertEqual(verdict["dataGroupsMismatched"], [])
        self.assertIn("CN=", verdict["signer"])
        # Nothing personal in the message log or on stderr: neither the key sent nor what the chip said.
        text = log.read_text()
        for secret in [self.holder["documentNumber"].rstrip("<"), "ERIKSSON", self.holder["dateOfBirth"]]:
            self.assertNotIn(secret, text)
            self.assertNotIn(secret, stderr)
        # The face is reduced to its size: a hash of it would link the holder across log files.
        self.assertRegex(text, r'"photo":\s*"<redacted image, \d+ bytes>"')
        self.assertNotIn("sha256", text)

    def test_key_from_the_whole_mrz_and_short_apdus(self):
        self.insert()
        mrz = self.holder["mrz"].replace("\n", "")
        _, read, _, _ = self.single_read({"mrz": mrz}, "--nfc-short-apdus")
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["passiveAuthentication"]["status"], "unknownIssuer")

    def test_jpeg2000_face_is_converted_to_jpeg(self):
        self.insert("jp2")
        _, read, _, _ = self.single_read(self.key())
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["photoMimeType"], "image/jpeg")
        self.assertEqual(read["photoStart"], "/9j/")

    def test_face_past_32_kb_is_read_with_odd_read_binary(self):
        # Past offset 32767, READ BINARY B1 (offset in DO54, data in DO53, DO85 under secure messaging),
        # with 3DES (BAC) and AES (PACE) secure messaging, extended and short reads.
        passport = self.passports["large-photo"]
        photo_bytes = json.loads((passport / "passport.json").read_text())["photoBytes"]
        self.assertGreater(photo_bytes, 40_000)
        for card_options, shell_options in [([], []), ([], ["--nfc-short-apdus"]), (["--pace"], []),
                                            (["--pace"], ["--nfc-short-apdus"])]:
            with self.subTest(card=card_options, shell=shell_options):
                self.insert("large-photo", *card_options)
                _, read, _, _ = self.single_read(self.key(), "--csca", str(passport / "csca.pem"), *shell_options)
                self.assertEqual(read["status"], "success", read)
                self.assertEqual(read["accessControl"], "PACE" if card_options else "BAC")
                self.assertEqual(read["photoLength"], 4 * ((photo_bytes + 2) // 3))
                self.assertEqual(read["passiveAuthentication"]["status"], "valid")
                sandbox("remove", str(self.sandbox_dir), check=False)

    def test_document_placed_after_the_request(self):
        process, log = self.start_journey(self.key())
        self.wait_for_request(log)
        time.sleep(0.5)
        self.insert()
        status, result, stderr = self.finish_journey(process)
        self.assertEqual(status, 0, stderr)
        self.assertEqual(result["reads"][0]["status"], "success", result)

    def test_document_that_slips_is_read_again(self):
        self.insert("valid", "--slip-after", "12")
        _, read, _, _ = self.single_read(self.key())
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["dataGroupsRead"], ["DG1", "DG2"])

    # PACE

    def test_pace_with_the_mrz(self):
        self.insert("valid", "--pace")
        _, read, _, _ = self.single_read(self.key(), "--csca", str(self.passports["valid"] / "csca.pem"))
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["accessControl"], "PACE")
        self.assertEqual(read["surname"], "ERIKSSON")
        self.assertEqual(read["passiveAuthentication"]["status"], "valid")

    def test_pace_with_the_card_access_number_on_a_chip_without_bac(self):
        self.insert("valid", "--pace-only")
        for options in [[], ["--nfc-short-apdus"]]:
            with self.subTest(options=options):
                result, read, log, stderr = self.single_read({"can": self.holder["can"]}, *options)
                self.assertEqual(read["status"], "success", read)
                self.assertEqual(read["accessControl"], "PACE")
                self.assertEqual(read["dateOfBirth"], self.holder["dateOfBirth"])
                self.assertGreater(read["photoLength"], 10_000)
                self.assertNotIn(self.holder["can"], log.read_text())
                self.assertNotIn(self.holder["can"], stderr)

    def test_mrz_on_a_chip_without_bac_uses_pace(self):
        self.insert("valid", "--pace-only")
        _, read, _, _ = self.single_read(self.key())
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["accessControl"], "PACE")

    def test_wrong_card_access_number_is_access_denied(self):
        self.insert("valid", "--pace")
        _, read, _, _ = self.single_read({"can": "000000"})
        self.assert_error(read, "error", "ACCESS_DENIED", True)
        self.assertIn("card access number", read["error"]["message"])

    def test_card_access_number_on_a_chip_without_pace(self):
        self.insert()
        _, read, _, _ = self.single_read({"can": self.holder["can"]})
        self.assert_error(read, "error", "PACE_NOT_SUPPORTED", True)

    # Passive authentication

    def test_tampered_data_groups_are_invalid(self):
        for variant, group in [("tampered-dg1", "DG1"), ("tampered-dg2", "DG2")]:
            with self.subTest(variant):
                self.insert(variant)
                _, read, _, _ = self.single_read(
                    self.key(), "--csca", str(self.passports[variant] / "csca.pem"))
                self.assertEqual(read["status"], "success", read)
                verdict = read["passiveAuthentication"]
                self.assertEqual(verdict["status"], "invalid", verdict)
                self.assertEqual(verdict["dataGroupsMismatched"], [group])
                sandbox("remove", str(self.sandbox_dir))

    def test_revocation_lists_from_the_csca_are_checked(self):
        passport = self.passports["valid"]
        self.insert()
        for lists, status, revocation in [([], "valid", "notChecked"), (["crl-empty.pem"], "valid", "notRevoked"),
                                          (["crl-revoked.pem"], "invalid", "revoked"),
                                          (["foreign-crl.pem"], "valid", "notChecked")]:
            with self.subTest(lists=lists):
                store = self.scratch / ("store-" + "-".join(lists))
                store.mkdir(exist_ok=True)
                for name in ["csca.pem", *lists]:
                    shutil.copy(passport / name, store / name)
                _, read, _, stderr = self.single_read(self.key(), "--csca", str(store))
                verdict = read["passiveAuthentication"]
                self.assertEqual((verdict["status"], verdict["revocation"]), (status, revocation), verdict)
                usable = 0 if lists in ([], ["foreign-crl.pem"]) else 1
                self.assertIn(f"trusted CSCA certificates: 1, revocation lists: {usable} (from {store})", stderr)
                if revocation == "revoked":
                    self.assertIn("revoked by its CSCA", verdict["reason"])
                if lists == ["foreign-crl.pem"]:
                    self.assertIn("signed by none of the CSCA certificates, ignored: 1", stderr)
        # One PEM file holding the CSCA and its list.
        bundle = self.scratch / "csca-with-crl.pem"
        bundle.write_text((passport / "csca.pem").read_text() + (passport / "crl-revoked.pem").read_text())
        _, read, _, _ = self.single_read(self.key(), "--csca", str(bundle))
        self.assertEqual(read["passiveAuthentication"]["revocation"], "revoked", read)

    def test_foreign_csca_is_unknown_issuer(self):
        self.insert()
        _, read, _, _ = self.single_read(self.key(), "--csca", str(self.passports["valid"] / "foreign-csca.pem"))
        verdict = read["passiveAuthentication"]
        self.assertEqual(verdict["status"], "unknownIssuer", verdict)
        self.assertEqual(verdict["dataGroupsMatched"], ["DG1", "DG2"])

    # Errors

    def assert_error(self, read, status, code, recoverable):
        self.assertEqual(read["status"], status, read)
        self.assertEqual(read["error"]["code"], code, read)
        self.assertEqual(read["error"]["recoverable"], recoverable, read)
        self.assertTrue(read["error"]["message"])

    # Chip and Active Authentication

    def test_genuine_chip_passes_chip_and_active_authentication(self):
        for passport, access, chip, active in [
            ("genuine-aes-rsa", [], "ECDH-AES-128", "RSA-ISO9796-2-SHA-1"),
            ("genuine-3des-ec", [], "ECDH-3DES", "ECDSA-SHA-256"),
            ("genuine-aes-rsa", ["--pace"], "ECDH-AES-128", "RSA-ISO9796-2-SHA-1"),
        ]:
            with self.subTest(passport=passport, access=access):
                self.insert(passport, *access)
                _, read, _, _ = self.single_read(self.key(), "--csca", str(self.passports[passport] / "csca.pem"))
                self.assertEqual(read["status"], "success", read)
                self.assertEqual(read["accessControl"], "PACE" if access else "BAC")
                self.assertEqual(read["dataGroupsRead"], ["DG1", "DG2", "DG14", "DG15"])
                verdict = read["passiveAuthentication"]
                self.assertEqual(verdict["status"], "valid", verdict)
                self.assertEqual(verdict["dataGroupsMatched"], ["DG1", "DG2", "DG14", "DG15"])
                self.assertEqual(read["chipAuthentication"], {"status": "valid", "algorithm": chip})
                self.assertEqual(read["activeAuthentication"], {"status": "valid", "algorithm": active})
                self.assertEqual(read["surname"], "ERIKSSON")
                sandbox("remove", str(self.sandbox_dir), check=False)

    def test_cloned_chip_fails_both_and_is_still_read(self):
        self.insert("clone")
        _, read, _, _ = self.single_read(self.key(), "--csca", str(self.passports["clone"] / "csca.pem"))
        self.assertEqual(read["status"], "success", read)
        # The copied data is the genuine, signed data ...
        self.assertEqual(read["passiveAuthentication"]["status"], "valid", read["passiveAuthentication"])
        self.assertEqual(read["dataGroupsRead"], ["DG1", "DG2", "DG14", "DG15"])
        # ... but the chip cannot prove it holds the keys.
        self.assertEqual(read["chipAuthentication"]["status"], "invalid", read["chipAuthentication"])
        self.assertEqual(read["chipAuthentication"]["algorithm"], "ECDH-AES-128")
        self.assertIn("reason", read["chipAuthentication"])
        self.assertEqual(read["activeAuthentication"]["status"], "invalid", read["activeAuthentication"])
        self.assertEqual(read["activeAuthentication"]["algorithm"], "ECDSA-256")
        self.assertEqual(read["surname"], "ERIKSSON")

    def test_pace_with_chip_authentication_mapping(self):
        # The chip lists PACE-CAM before generic mapping; the host runs CAM, which proves the chip
        # within PACE, so Chip Authentication with DG14 is not run as well.
        passport = self.passports["genuine-aes-rsa"]
        for key, options in [(self.key(), []), ({"can": self.holder["can"]}, ["--nfc-short-apdus"])]:
            with self.subTest(key=sorted(key), options=options):
                self.insert("genuine-aes-rsa", "--pace-cam")
                _, read, _, _ = self.single_read(key, "--csca", str(passport / "csca.pem"), *options)
                self.assertEqual(read["status"], "success", read)
                self.assertEqual(read["accessControl"], "PACE")
                self.assertEqual(read["chipAuthentication"], {"status": "valid", "algorithm": "PACE-CAM-AES-128"})
                self.assertEqual(read["activeAuthentication"]["status"], "valid")
                self.assertEqual(read["passiveAuthentication"]["status"], "valid")
                self.assertEqual(read["dataGroupsRead"], ["DG1", "DG2", "DG14", "DG15"])
                sandbox("remove", str(self.sandbox_dir), check=False)

    def test_cloned_chip_fails_chip_authentication_mapping(self):
        self.insert("clone", "--pace-cam")
        _, read, _, _ = self.single_read(self.key(), "--csca", str(self.passports["clone"] / "csca.pem"))
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["passiveAuthentication"]["status"], "valid")
        verdict = read["chipAuthentication"]
        self.assertEqual((verdict["status"], verdict["algorithm"]), ("invalid", "PACE-CAM-AES-128"), verdict)
        self.assertIn("EF.CardSecurity", verdict["reason"])
        self.assertEqual(read["surname"], "ERIKSSON")

    def test_copy_with_its_own_card_security_is_not_taken_for_genuine(self):
        # The chip proves the key of an EF.CardSecurity it brought along, signed by someone else than
        # the document's signer and trusted by no CSCA here: the proof counts for nothing.
        self.insert("forged-card-security", "--pace-cam")
        passport = self.passports["forged-card-security"]
        _, read, _, _ = self.single_read(self.key(), "--csca", str(passport / "csca.pem"))
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["passiveAuthentication"]["status"], "valid")
        verdict = read["chipAuthentication"]
        self.assertEqual((verdict["status"], verdict["algorithm"]), ("unverifiedKey", "PACE-CAM-AES-128"), verdict)
        self.assertIn("EF.CardSecurity", verdict["reason"])
        self.assertEqual(read["chipVerdict"], "notGenuine")
        self.assertIn("KEY_NOT_SIGNED", [reason["code"] for reason in read["chipVerdictReasons"]])

    def test_chip_without_security_keys_reports_not_supported(self):
        self.insert()
        _, read, _, _ = self.single_read(self.key())
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["chipAuthentication"], {"status": "notSupported"})
        self.assertEqual(read["activeAuthentication"], {"status": "notSupported"})

    # DG11 and DG12

    def test_additional_details_when_asked_for(self):
        self.insert("extra-details")
        _, read, log, stderr = self.single_read(
            dict(self.key(), dataGroups="DG11,DG12"), "--csca", str(self.passports["extra-details"] / "csca.pem"))
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["dataGroupsRead"], ["DG1", "DG2", "DG11", "DG12"])
        self.assertEqual(read["passiveAuthentication"]["dataGroupsMatched"], ["DG1", "DG2", "DG11", "DG12"])
        self.assertEqual(read["additionalPersonalDetails"], {
            "fullName": "ERIKSSON, ANNA MARIA", "otherNames": ["LINDQVIST, ANNA"], "personalNumber": "UTO-1969-0806-4",
            "fullDateOfBirth": "19690806", "placeOfBirth": "ZENITH, UTO", "address": "12 HARBOUR ROAD, ZENITH, UTO",
            "profession": "CARTOGRAPHER"})
        self.assertEqual(read["additionalDocumentDetails"], {
            "issuingAuthority": "UTOPIA PASSPORT OFFICE ZENITH", "dateOfIssue": "20120415",
            "personalizationDateTime": "20120415093000"})
        text = log.read_text()
        for secret in ["ZENITH", "CARTOGRAPHER", "LINDQVIST", "19690806"]:
            self.assertNotIn(secret, text)
            self.assertNotIn(secret, stderr)

    def test_additional_details_only_when_asked_for_and_present(self):
        self.insert("extra-details")
        _, read, _, _ = self.single_read(self.key())
        self.assertEqual(read["dataGroupsRead"], ["DG1", "DG2"])
        self.assertNotIn("additionalPersonalDetails", read)
        sandbox("remove", str(self.sandbox_dir), check=False)
        self.insert()
        _, read, _, _ = self.single_read(dict(self.key(), dataGroups="DG11"))
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["dataGroupsRead"], ["DG1", "DG2"])
        self.assertNotIn("additionalPersonalDetails", read)

    def run_demo(self, key, document=None):
        """Runs the bundled demo journey unattended with the chip's key in its URL; returns journey.complete's data."""
        query = "&".join(f"{name}={value}" for name, value in key.items())
        url = (ROOT / "Resources" / "demo" / "index.html").as_uri() + "?autostart=1" + ("&" + query if query else "")
        fixtures = ROOT / "Tests" / "ShellTests" / "Fixtures"
        env = dict(os.environ, **self.environment)
        done = subprocess.run(
            [SHELL, url, "--headless", "--exit-on", "journey.complete", "--timeout", "90", "--nfc-reader", self.reader,
             "--document-image", str(document or fixtures / "document.png"), "--selfie-image",
             str(fixtures / "selfie.jpg"),
             "--csca", str(self.passports["genuine-aes-rsa"] / "csca.pem")],
            capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        return json.loads(done.stdout)

    def test_demo_journey_reads_the_chip_with_the_key_in_its_url(self):
        self.insert("genuine-aes-rsa")
        result = self.run_demo(self.key())
        self.assertEqual(result["outcome"], "completed", result)
        chip = result["steps"]["chip"]
        self.assertEqual(chip["status"], "success", chip)
        self.assertEqual(
            {key: chip[key] for key in ["accessControl", "chipVerdict", "passiveAuthentication", "chipAuthentication",
                                        "activeAuthentication"]},
            {"accessControl": "BAC", "chipVerdict": "genuine", "passiveAuthentication": "valid",
             "chipAuthentication": "valid", "activeAuthentication": "valid"})
        self.assertGreater(chip["photoBytes"], 10_000)
        # The demo tells the host verdicts only, never the holder's data.
        for secret in ["ERIKSSON", "L898902C", "690806"]:
            self.assertNotIn(secret, json.dumps(result))

    def test_demo_journey_opens_the_chip_from_the_photo_of_the_data_page(self):
        self.insert("genuine-aes-rsa")
        holder = json.loads((self.passports["genuine-aes-rsa"] / "passport.json").read_text())
        page = self.data_page(holder["mrz"].split("\n"), "demo-data-page")
        result = self.run_demo({}, document=page)
        self.assertEqual(result["outcome"], "completed", result)
        self.assertEqual(result["steps"]["document"]["mrz"], "read", result)
        chip = result["steps"]["chip"]
        self.assertEqual(chip["status"], "success", chip)
        self.assertEqual(chip["keySource"], "photo", chip)
        self.assertEqual(chip["printedMRZ"], "agrees", chip)
        self.assertEqual(chip["chipVerdict"], "genuine", chip)

    def test_demo_journey_chip_step_is_optional(self):
        self.insert()
        result = self.run_demo({})
        self.assertEqual(result["outcome"], "completed", result)
        self.assertEqual(result["steps"]["chip"], {"status": "skipped", "code": "NO_KEY"})
        result = self.run_demo(self.key(dateOfBirth="6908"))
        self.assertEqual(result["steps"]["chip"], {"status": "skipped", "code": "INVALID_KEY"})
        result = self.run_demo(self.key(documentNumber="X00000000"))
        self.assertEqual(result["outcome"], "completed", result)
        self.assertEqual(result["steps"]["chip"], {"status": "error", "code": "ACCESS_DENIED", "recoverable": True})

    # The key from the photo of the data page

    def data_page(self, lines, name):
        """Renders a photo of a data page with these MRZ lines (Benchmarks/mrz/make-mrz-set.py); returns its path."""
        path = self.scratch / f"{name}.png"
        subprocess.run(
            ["/usr/bin/python3", str(ROOT / "Benchmarks" / "mrz" / "make-mrz-set.py"), "--document", "--lines", *lines,
             "--out", str(path), "--seed", "9"], check=True, capture_output=True, timeout=60)
        return path

    def test_chip_opens_with_the_mrz_read_from_the_photo_of_its_data_page(self):
        self.insert()
        lines = self.holder["mrz"].split("\n")
        page = self.data_page(lines, "data-page")
        result, read, log, stderr = self.single_read(
            {"capture": "1", "keyFrom": "documentCapture"}, "--document-image", str(page))
        self.assertEqual(result["documentCapture"], "success", result)
        mrz = result["documentMRZ"]
        self.assertEqual(mrz["status"], "read", mrz)
        self.assertEqual(mrz["lines"], lines)
        self.assertEqual(mrz["fields"]["documentNumber"], self.holder["documentNumber"].rstrip("<"))
        self.assertEqual(read["status"], "success", read)
        self.assertTrue(read["chipRead"])
        self.assertEqual(read["printedMRZ"], {"compared": True, "agrees": True, "differences": [], "source": "photo"})
        # The zone read from the photo is personal data: redacted in what the host logs of its own
        # answers, like the chip's (this fixture journey echoes it back in journey.complete).
        text = "\n".join(line for line in log.read_text().splitlines() if '"native-to-web"' in line)
        for secret in [self.holder["documentNumber"].rstrip("<"), "ERIKSSON"]:
            self.assertNotIn(secret, text)
            self.assertNotIn(secret, stderr)

    def test_printed_page_of_another_person_is_told_apart_from_the_chip(self):
        # The same key fields (so the chip opens) under another name: a forged page over a genuine chip.
        self.insert()
        lines = self.holder["mrz"].split("\n")
        forged = ("P<UTOSMITH<<ANNA<MARIA").ljust(44, "<")
        page = self.data_page([forged, lines[1]], "forged-page")
        result, read, _, _ = self.single_read({"capture": "1", "keyFrom": "documentCapture"}, "--document-image", str(page))
        self.assertEqual(result["documentMRZ"]["status"], "read", result)
        self.assertEqual(read["status"], "success", read)
        self.assertEqual(read["printedMRZ"]["agrees"], False, read)
        self.assertEqual(read["printedMRZ"]["differences"], ["surname"], read)

    def test_key_from_the_photo_without_a_read_zone(self):
        self.insert()
        # No capture at all, then a capture whose photo has no zone (the shell tests' plain document).
        _, read, _, _ = self.single_read({"keyFrom": "documentCapture"})
        self.assert_error(read, "error", "MRZ_NOT_READ", True)
        plain = ROOT / "Tests" / "ShellTests" / "Fixtures" / "document.png"
        result, read, _, _ = self.single_read(
            {"capture": "1", "keyFrom": "documentCapture"}, "--document-image", str(plain))
        # Its zone is drawn but not a real one: seen, never read.
        self.assertIn(result["documentMRZ"]["status"], ["notFound", "unverified"], result)
        self.assertNotIn("lines", result["documentMRZ"])
        self.assert_error(read, "error", "MRZ_NOT_READ", True)
        # A typed key still works, and the answer says nothing was compared.
        _, read, _, _ = self.single_read(self.key())
        self.assertEqual(read["printedMRZ"], {"compared": False}, read)

    def test_wrong_mrz_is_access_denied(self):
        self.insert()
        _, read, _, _ = self.single_read(self.key(documentNumber="X00000000"))
        self.assert_error(read, "error", "ACCESS_DENIED", True)

    def test_not_a_travel_document(self):
        self.insert("valid", "--not-passport")
        _, read, _, _ = self.single_read(self.key())
        self.assert_error(read, "error", "NOT_A_TRAVEL_DOCUMENT", True)

    def test_card_removed_mid_read(self):
        self.insert("valid", "--remove-after", "12")
        _, read, _, _ = self.single_read(self.key())
        self.assert_error(read, "error", "CHIP_READ_FAILED", True)

    def test_card_removed_during_chip_authentication_is_a_failed_read(self):
        # BAC takes 4 APDUs, EF.COM 2, DG14 3: the 10th is MSE:Set AT of Chip Authentication. A card
        # that leaves then is a lost read, not a chip that failed to prove itself.
        self.insert("genuine-aes-rsa", "--remove-after", "10")
        _, read, _, _ = self.single_read(self.key())
        self.assert_error(read, "error", "CHIP_READ_FAILED", True)

    def test_no_document_in_time(self):
        started = time.monotonic()
        _, read, _, _ = self.single_read(self.key(), "--nfc-timeout", "2")
        self.assert_error(read, "error", "NO_DOCUMENT", True)
        self.assertLess(time.monotonic() - started, 60)

    def test_bad_requests(self):
        self.insert()
        _, read, _, _ = self.single_read({"documentNumber": "L898902C"})
        self.assert_error(read, "error", "INVALID_REQUEST", False)
        _, read, _, _ = self.single_read({"can": "12345"})
        self.assert_error(read, "error", "INVALID_REQUEST", False)
        for groups in ["DG3", "DG11,DG99", "[11]"]:
            _, read, _, _ = self.single_read(dict(self.key(), dataGroups=groups))
            self.assert_error(read, "error", "INVALID_REQUEST", False)
            self.assertIn("DG11, DG12", read["error"]["message"])

    def test_no_matching_reader(self):
        status, result, stderr, _ = self.run_journey(self.key(), "--nfc-reader", "No Such Reader")
        self.assertEqual(status, 0, stderr)
        self.assertIsNone(result["capability"])
        self.assert_error(result["reads"][0], "unsupported", "NFC_NOT_AVAILABLE", False)
        self.assertIn("No Such Reader", stderr)

    def test_nfc_reader_none(self):
        status, result, stderr, _ = self.run_journey(self.key(), "--nfc-reader", "none")
        self.assertEqual(status, 0, stderr)
        self.assertIsNone(result["capability"])
        self.assert_error(result["reads"][0], "unsupported", "NFC_NOT_AVAILABLE", False)

    def test_pcsc_service_not_running(self):
        environment = dict(self.environment)
        environment["PCSCLITE_CSOCK_NAME"] = str(self.scratch / "no-such-pcscd.comm")
        status, result, stderr, _ = self.run_journey(self.key(), environment=environment)
        self.assertEqual(status, 0, stderr)
        self.assertIsNone(result["capability"])
        self.assert_error(result["reads"][0], "unsupported", "NFC_NOT_AVAILABLE", False)

    def test_one_hundred_reads_in_a_row(self):
        self.insert()
        query = self.key()
        query["reads"] = "100"
        status, result, stderr, _ = self.run_journey(
            query, "--csca", str(self.passports["valid"] / "csca.pem"), timeout=600)
        self.assertEqual(status, 0, stderr)
        self.assertEqual(result["statuses"], {"success/valid": 100}, result)


if __name__ == "__main__":
    unittest.main()
