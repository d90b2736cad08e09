"""nfc.read end to end against forged passports and hostile chips: the built gbgbridge-shell reads
virtual passports made with make_passport.py --forge, and chips run with virtual_passport.py
--hostile, through a private pcscd.

Forgeries must never come out genuine: chipVerdict, its reasons and the passive, chip and active
authentication verdicts must agree with each other and with what was forged. Hostile chips must end
in exactly one CHIP_READ_FAILED answer, in bounded time and memory, without the shell crashing.
Every successful read is served with --strict-reads: no READ BINARY may ask past a file's end.

Run by scripts/nfc-test.sh (as root); environment as for test_nfc_read: GBGBRIDGE_SHELL.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from passport_sandbox import exports, make_passport, sandbox
from test_nfc_read import JOURNEY, SHELL

NOT_GENUINE_CODES = {"PASSIVE_AUTHENTICATION_INVALID", "CHIP_AUTHENTICATION_INVALID", "ACTIVE_AUTHENTICATION_INVALID",
                     "KEY_NOT_SIGNED", "ACCESS_KEY_MISMATCH"}
NOT_CHECKED_CODES = {"UNKNOWN_ISSUER", "PASSIVE_AUTHENTICATION_NOT_CHECKED", "NO_CLONE_CHECK"}
PASSIVE_AUTHENTICATION_CODES = {"invalid": "PASSIVE_AUTHENTICATION_INVALID", "unknownIssuer": "UNKNOWN_ISSUER",
                                "notChecked": "PASSIVE_AUTHENTICATION_NOT_CHECKED"}
GENUINE_SIGNER = "Utopia Test Document Signer"
ATTACKER_SIGNER = "Mallory Test Document Signer"

# What the hostile-chip runs allow the shell: seconds per APDU, and a peak resident size far above
# its usual one (about 200 MB) but far below what decoding a 46000 x 46000 face would take.
APDU_TIMEOUT = 2
PEAK_MEMORY_MB = 700
# Past this the shell is killed at once, to spare the machine.
MEMORY_GUARD_MB = 2500

PASSPORTS = {
    "genuine": ["--chip-auth", "aes", "--active-auth", "ec"],
    "plain": [],
    "large-photo": ["--photo-size", "large"],
    "signer-confusion": ["--forge", "signer-confusion", "--chip-auth", "aes", "--active-auth", "ec"],
    "signer-confusion-name": ["--forge", "signer-confusion-name", "--active-auth", "ec"],
    "signer-confusion-twin": ["--forge", "signer-confusion-twin"],
    "two-signers": ["--forge", "two-signers"],
    "self-signed-signer": ["--forge", "self-signed-signer"],
    "ca-signer": ["--forge", "ca-signer"],
    "csca-signs": ["--forge", "csca-signs"],
    "no-digital-signature": ["--forge", "no-digital-signature"],
    "expired-signer": ["--forge", "expired-signer"],
    # No signingTime: the signer's validity counts at the earlier of today and the date of expiry (2034).
    "expired-signer-no-time": ["--forge", "expired-signer-no-time", "--expiry", "340101"],
    "wrong-content-type": ["--forge", "wrong-content-type"],
    "weak-digest": ["--forge", "weak-digest"],
    "swapped-dg1": ["--forge", "swapped-dg1"],
    "forged-dg15": ["--forge", "forged-dg15", "--active-auth", "ec"],
    "card-security-signer-confusion": ["--forge", "card-security-signer-confusion", "--chip-auth", "aes"],
    "clone-with-active-auth": ["--active-auth", "ec", "--clone"],
    "weak-aa-exponent-1": ["--forge", "weak-aa-exponent-1", "--active-auth", "rsa"],
    "weak-aa-rsa512": ["--forge", "weak-aa-rsa512", "--active-auth", "rsa"],
    "weak-aa-secp112r1": ["--forge", "weak-aa-secp112r1", "--active-auth", "ec"],
    "weak-signer": ["--forge", "weak-signer", "--active-auth", "ec"],
    "signer-key-cert-sign": ["--forge", "signer-key-cert-sign", "--active-auth", "ec"],
    "key-of-another-document": ["--forge", "key-of-another-document", "--chip-auth", "aes", "--active-auth", "ec"],
    "sod-duplicate-dg1": ["--forge", "sod-duplicate-dg1", "--active-auth", "ec"],
    "sod-duplicate-dg1-right-first": ["--forge", "sod-duplicate-dg1-right-first", "--active-auth", "ec"],
    "sod-unknown-version": ["--forge", "sod-unknown-version", "--active-auth", "ec"],
    "sod-content-type-attribute": ["--forge", "sod-content-type-attribute", "--active-auth", "ec"],
}


class ShellRun:
    """One run of the shell on the fixture journey: its exit, its output, and what it cost."""

    def __init__(self, exit_status, result, stderr, log, peak_memory_mb, killed_because=None):
        self.exit_status = exit_status
        self.result = result
        self.stderr = stderr
        self.peak_memory_mb = peak_memory_mb
        self.killed_because = killed_because
        self.messages = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def nfc_messages(self, direction, kind):
        return [record for record in self.messages if record.get("dir") == direction
                and record["message"].get("type") == kind and record["message"]["payload"].get("action") == "nfc.read"]

    @property
    def answers(self):
        """The shell's nfc.read responses in the message log."""
        return self.nfc_messages("native-to-web", "response")

    def answer_delay(self):
        """Seconds from the page's nfc.read request to the shell's (first) answer."""
        request = self.nfc_messages("web-to-native", "request")[0]
        return (self.answers[0]["t"] - request["t"]) / 1000


def memory_mb(pid):
    """The peak resident size (VmHWM) of process `pid` so far, in MB; 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


class ForgeryAndHostileChipTests(unittest.TestCase):
    """One private pcscd for the whole class; a card (passport and chip behaviour) per test."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = Path(tempfile.mkdtemp(prefix="gbgbridge-forgeries-"))
        cls.sandbox_dir = cls.scratch / "sandbox"
        cls.sandbox_dir.mkdir()
        cls.passports = {}
        cls.unmakeable = {}

        def make(name):
            folder = cls.scratch / name
            try:
                make_passport(folder, *PASSPORTS[name])
            except subprocess.CalledProcessError as error:
                if error.returncode != 3:
                    raise
                cls.unmakeable[name] = error.stderr.decode(errors="replace").strip()
                return
            cls.passports[name] = folder

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            list(pool.map(make, PASSPORTS))
        cls.environment = exports(sandbox("start", str(cls.sandbox_dir)))
        cls.reader = cls.environment.get("NFC_READER", "Virtual PCD")

    @classmethod
    def tearDownClass(cls):
        sandbox("remove", str(cls.sandbox_dir), check=False)
        sandbox("stop", str(cls.sandbox_dir), check=False)
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def tearDown(self):
        sandbox("remove", str(self.sandbox_dir), check=False)

    # Helpers

    def passport(self, name):
        if name in self.unmakeable:
            self.skipTest(f"cannot make {name}: {self.unmakeable[name]}")
        return self.passports[name]

    def key(self, name):
        holder = json.loads((self.passport(name) / "passport.json").read_text())
        return {field: holder[field] for field in ["documentNumber", "dateOfBirth", "dateOfExpiry"]}

    def card_log(self):
        return (self.sandbox_dir / "card.log").read_text()

    def run_shell(self, name, *shell_options, card=(), deadline=60):
        """Puts passport `name` on the reader (virtual_passport.py options `card`), runs the shell on the
        fixture journey and watches it: killed past `deadline` seconds or MEMORY_GUARD_MB."""
        sandbox("card", str(self.sandbox_dir), "--passport", str(self.passport(name)), *card)
        url = JOURNEY.as_uri() + "?" + "&".join(f"{k}={v}" for k, v in self.key(name).items())
        run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=self.scratch))
        log, stdout_path, stderr_path = run_dir / "messages.jsonl", run_dir / "stdout", run_dir / "stderr"
        environment = dict(os.environ, **self.environment)
        with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
            process = subprocess.Popen(
                [SHELL, url, "--headless", "--exit-on", "journey.complete", "--timeout", str(deadline),
                 "--message-log", str(log), "--nfc-reader", self.reader, *shell_options],
                stdout=stdout, stderr=stderr, env=environment)
        started = time.monotonic()
        peak, killed_because = 0.0, None
        while True:
            pid, raw_status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, memory_mb(process.pid))
            if killed_because is None and peak > MEMORY_GUARD_MB:
                killed_because = f"its peak memory passed {MEMORY_GUARD_MB} MB"
            elif killed_because is None and time.monotonic() - started > deadline + 30:
                killed_because = f"it ran past {deadline + 30} s"
            if killed_because:
                os.kill(process.pid, signal.SIGKILL)
            time.sleep(0.05)
        # Reaped here (for its own rusage), not by Popen.
        status = process.returncode = os.waitstatus_to_exitcode(raw_status)
        peak = max(peak, usage.ru_maxrss / 1024)
        output = stdout_path.read_text()
        return ShellRun(status, json.loads(output) if output.strip() else None, stderr_path.read_text(), log, peak,
                        killed_because)

    def read(self, name, *shell_options, trusted=True, card=()):
        """The one nfc.read answer of a normal run on passport `name` (its CSCA trusted unless told),
        which read no file past its end."""
        csca = ["--csca", str(self.passport(name) / "csca.pem")] if trusted else []
        run = self.run_shell(name, *csca, *shell_options, card=["--strict-reads", *card])
        self.assertIsNone(run.killed_because, run.stderr)
        self.assertEqual(run.exit_status, 0, run.stderr)
        self.assertIsNotNone(run.result, run.stderr)
        self.assertNotIn("failure", run.result, run.stderr)
        self.assertEqual(len(run.answers), 1, run.answers)
        read = run.result["reads"][0]
        self.assertEqual(read["status"], "success", read)
        self.assertNotIn("READ PAST END", self.card_log())
        self.assert_verdict_follows_the_contract(read)
        return read

    def codes(self, read):
        return [reason["code"] for reason in read["chipVerdictReasons"]]

    def assert_verdict_follows_the_contract(self, read):
        """chipVerdict and its reasons agree with each other and with the three authentications."""
        verdict = read.get("chipVerdict")
        self.assertIn(verdict, ["genuine", "notGenuine", "notChecked"], read)
        self.assertIn("chipVerdictReasons", read)
        codes = self.codes(read)
        for reason in read["chipVerdictReasons"]:
            self.assertTrue(reason.get("message"), reason)
        self.assertLessEqual(set(codes), NOT_GENUINE_CODES | NOT_CHECKED_CODES, codes)
        expected = "notGenuine" if set(codes) & NOT_GENUINE_CODES else "notChecked" if codes else "genuine"
        self.assertEqual(verdict, expected, read["chipVerdictReasons"])
        passive = read["passiveAuthentication"]["status"]
        if passive in PASSIVE_AUTHENTICATION_CODES:
            self.assertIn(PASSIVE_AUTHENTICATION_CODES[passive], codes)
        for field, code in [("chipAuthentication", "CHIP_AUTHENTICATION_INVALID"),
                            ("activeAuthentication", "ACTIVE_AUTHENTICATION_INVALID")]:
            status = read[field]["status"]
            if status == "invalid":
                self.assertIn(code, codes)
            if status == "valid":
                # Only passive authentication can vouch for the key a chip proved it holds.
                self.assertEqual(passive, "valid", f"{field} valid with passive authentication {passive}")
        if verdict == "genuine":
            self.assertEqual(passive, "valid")
            self.assertIn("valid", [read["chipAuthentication"]["status"], read["activeAuthentication"]["status"]])

    def assert_forgery_not_genuine(self, read, passive_statuses):
        """Not genuine, and passive authentication one of `passive_statuses` (never valid)."""
        self.assertNotEqual(read["chipVerdict"], "genuine", read)
        verdict = read["passiveAuthentication"]
        self.assertIn(verdict["status"], passive_statuses, verdict)
        self.assertNotEqual(verdict["status"], "valid")
        self.assertTrue(verdict.get("reason"), verdict)

    def assert_signer_is_not_genuine(self, read):
        signer = read["passiveAuthentication"].get("signer", "")
        self.assertNotIn(GENUINE_SIGNER, signer, read["passiveAuthentication"])

    # Genuine chips

    def test_genuine_chip_is_genuine_and_read_within_its_files(self):
        # Read with --strict-reads, as every read here: no READ BINARY past a file's end.
        read = self.read("genuine")
        self.assertEqual(read["chipVerdict"], "genuine", read)
        self.assertEqual(read["chipVerdictReasons"], [])
        self.assertEqual(read["passiveAuthentication"]["status"], "valid")
        self.assertEqual(read["chipAuthentication"]["status"], "valid")
        self.assertEqual(read["activeAuthentication"]["status"], "valid")
        self.assertIn(GENUINE_SIGNER, read["passiveAuthentication"]["signer"])

    def test_face_past_32_kb_with_short_apdus_is_read_within_its_file(self):
        # READ BINARY B1 in short APDUs: Le covers DO53's tag and length, and the last read asks for
        # exactly what is left.
        read = self.read("large-photo", "--nfc-short-apdus")
        self.assertEqual(read["passiveAuthentication"]["status"], "valid")

    def test_genuine_chip_without_a_trusted_csca_is_not_checked(self):
        read = self.read("genuine", trusted=False)
        self.assertEqual(read["chipVerdict"], "notChecked", read)
        self.assertEqual(self.codes(read), ["UNKNOWN_ISSUER"])
        self.assertEqual(read["passiveAuthentication"]["status"], "unknownIssuer")
        # The chip proved its keys, but nothing vouches for them.
        self.assertEqual(read["chipAuthentication"]["status"], "unverifiedKey", read["chipAuthentication"])
        self.assertEqual(read["activeAuthentication"]["status"], "unverifiedKey", read["activeAuthentication"])

    def test_genuine_data_without_chip_keys_may_be_a_copy(self):
        read = self.read("plain")
        self.assertEqual(read["passiveAuthentication"]["status"], "valid")
        self.assertEqual(read["chipVerdict"], "notChecked", read)
        self.assertEqual(self.codes(read), ["NO_CLONE_CHECK"])

    def test_copy_hiding_its_active_authentication_key(self):
        # A copy whose genuine EF.SOD signs DG15 leaves DG15 out of EF.COM, so as not to be asked to
        # sign a challenge it cannot sign: the proof it dodged counts as failed.
        read = self.read("clone-with-active-auth", card=["--hostile", "hide-dg15"])
        self.assertEqual(read["passiveAuthentication"]["status"], "valid")
        self.assertNotIn("DG15", read["dataGroupsRead"])
        self.assertEqual(read["activeAuthentication"]["status"], "invalid", read["activeAuthentication"])
        self.assertIn("DG15", read["activeAuthentication"]["reason"])
        self.assertEqual(read["chipVerdict"], "notGenuine")
        self.assertIn("ACTIVE_AUTHENTICATION_INVALID", self.codes(read))

    # Forgeries: who signed EF.SOD

    def test_signer_confusion_with_the_attackers_own_keys(self):
        # The attack: any name, any face, the chip's own keys in DG14 and DG15, and the
        # genuine Document Signer's certificate placed first in EF.SOD for a verifier to report.
        read = self.read("signer-confusion")
        self.assertEqual(read["surname"], "MALLORY")
        self.assert_forgery_not_genuine(read, ["unknownIssuer"])
        self.assert_signer_is_not_genuine(read)
        self.assertIn(ATTACKER_SIGNER, read["passiveAuthentication"]["signer"])
        self.assertEqual(read["chipVerdict"], "notChecked")
        self.assertIn("UNKNOWN_ISSUER", self.codes(read))
        self.assertEqual(read["chipAuthentication"]["status"], "unverifiedKey", read["chipAuthentication"])
        self.assertEqual(read["activeAuthentication"]["status"], "unverifiedKey", read["activeAuthentication"])

    def test_signer_confusion_with_the_genuine_signers_names(self):
        # The signer claims the genuine Document Signer's subject and the trusted CSCA as issuer, but
        # that CSCA never signed it.
        read = self.read("signer-confusion-name")
        self.assert_forgery_not_genuine(read, ["invalid", "unknownIssuer"])
        self.assertEqual(read["activeAuthentication"]["status"], "unverifiedKey", read["activeAuthentication"])

    def test_signer_confusion_with_a_twin_of_the_genuine_signer(self):
        # Subject, issuer, serial number and authority key identifier all the genuine Document
        # Signer's: EF.SOD's signer identifier names both certificates. Which one counts is not
        # the contract's to say; that the result is not valid is.
        read = self.read("signer-confusion-twin")
        self.assert_forgery_not_genuine(read, ["invalid", "unknownIssuer", "notChecked"])

    def test_two_signer_infos(self):
        read = self.read("two-signers")
        self.assert_forgery_not_genuine(read, ["invalid"])
        self.assertEqual(read["chipVerdict"], "notGenuine")

    def test_self_signed_signer(self):
        read = self.read("self-signed-signer")
        self.assert_forgery_not_genuine(read, ["unknownIssuer"])
        self.assert_signer_is_not_genuine(read)
        self.assertEqual(read["chipVerdict"], "notChecked")

    def test_forged_dg15_with_a_self_signed_signer(self):
        read = self.read("forged-dg15")
        self.assert_forgery_not_genuine(read, ["unknownIssuer"])
        self.assert_signer_is_not_genuine(read)
        self.assertEqual(read["activeAuthentication"]["status"], "unverifiedKey", read["activeAuthentication"])

    # Forgeries: a signer of the trusted CSCA that is no Document Signer

    def test_ca_certificate_as_signer(self):
        read = self.read("ca-signer")
        self.assert_forgery_not_genuine(read, ["invalid"])
        self.assertEqual(read["chipVerdict"], "notGenuine")

    def test_csca_signs_the_security_object_itself(self):
        # A CA as signer is invalid; the CSCA is also self-signed, which the contract calls unknownIssuer.
        read = self.read("csca-signs")
        self.assert_forgery_not_genuine(read, ["invalid", "unknownIssuer"])

    def test_signer_without_digital_signature_key_usage(self):
        read = self.read("no-digital-signature")
        self.assert_forgery_not_genuine(read, ["invalid"])
        self.assertEqual(read["chipVerdict"], "notGenuine")

    def test_expired_signer(self):
        for name in ["expired-signer", "expired-signer-no-time"]:
            with self.subTest(name):
                read = self.read(name)
                self.assert_forgery_not_genuine(read, ["invalid"])
                self.assertEqual(read["chipVerdict"], "notGenuine")

    # Forgeries: the security object's own fields, the data groups

    def test_wrong_content_type(self):
        read = self.read("wrong-content-type")
        self.assert_forgery_not_genuine(read, ["invalid"])
        self.assertEqual(read["chipVerdict"], "notGenuine")

    def test_md5_digest(self):
        read = self.read("weak-digest")
        self.assert_forgery_not_genuine(read, ["invalid"])
        self.assertEqual(read["chipVerdict"], "notGenuine")

    def test_dg1_of_another_holder(self):
        read = self.read("swapped-dg1")
        self.assert_forgery_not_genuine(read, ["invalid"])
        self.assertEqual(read["passiveAuthentication"]["dataGroupsMismatched"], ["DG1"])
        self.assertEqual(read["chipVerdict"], "notGenuine")

    def test_card_security_signer_confusion(self):
        # Genuine EF.SOD and DG14; PACE-CAM proves a key of the chip's own EF.CardSecurity, which
        # carries the genuine Document Signer's certificate but is signed by the attacker's.
        read = self.read("card-security-signer-confusion", card=["--pace-cam"])
        self.assertEqual(read["passiveAuthentication"]["status"], "valid", read["passiveAuthentication"])
        verdict = read["chipAuthentication"]
        self.assertEqual((verdict["status"], verdict.get("algorithm")), ("unverifiedKey", "PACE-CAM-AES-128"), verdict)
        self.assertEqual(read["chipVerdict"], "notGenuine", read)
        self.assertIn("KEY_NOT_SIGNED", self.codes(read))

    def test_reasons_name_no_file_and_say_each_thing_once(self):
        # A CSCA store that did not issue this chip's signer, given by its path.
        foreign = self.passport("genuine") / "foreign-csca.pem"
        read = self.read("genuine", "--csca", str(foreign), trusted=False)
        self.assertEqual(read["passiveAuthentication"]["status"], "unknownIssuer")
        texts = [reason["message"] for reason in read["chipVerdictReasons"]] + [read["passiveAuthentication"]["reason"]]
        for text in texts:
            self.assertNotIn(str(self.passport("genuine")), text)
            self.assertNotIn("foreign-csca", text)
        self.assertEqual(read["chipVerdictReasons"],
                         [{"code": "UNKNOWN_ISSUER", "message": "no trusted CSCA issued the Document Signer"}])

    # Forgeries: weak keys

    def test_weak_active_authentication_keys(self):
        # e = 1 (the chip holds no private key: its "signature" is the message itself), RSA-512,
        # and secp112r1: each signed by the genuine Document Signer, each proves nothing.
        for name, weakness in [("weak-aa-exponent-1", "exponent is 1"), ("weak-aa-rsa512", "RSA-512"),
                               ("weak-aa-secp112r1", "112-bit curve")]:
            with self.subTest(name):
                read = self.read(name)
                self.assertEqual(read["passiveAuthentication"]["status"], "valid", read["passiveAuthentication"])
                verdict = read["activeAuthentication"]
                self.assertEqual(verdict["status"], "invalid", verdict)
                self.assertIn("too weak", verdict["reason"])
                self.assertIn(weakness, verdict["reason"])
                self.assertEqual(read["chipVerdict"], "notGenuine")
                self.assertIn("ACTIVE_AUTHENTICATION_INVALID", self.codes(read))

    def test_weak_document_signer(self):
        # RSA-512 with e = 3, issued by the trusted CSCA.
        read = self.read("weak-signer")
        self.assert_forgery_not_genuine(read, ["invalid"])
        self.assertIn("RSA-512", read["passiveAuthentication"]["reason"])
        self.assertEqual(read["chipVerdict"], "notGenuine")
        # The chip's own proof cannot stand in for a signature that anyone could have made.
        self.assertNotEqual(read["activeAuthentication"]["status"], "valid")

    def test_signer_that_may_sign_certificates(self):
        read = self.read("signer-key-cert-sign")
        self.assert_forgery_not_genuine(read, ["invalid"])
        self.assertIn("key usage", read["passiveAuthentication"]["reason"])
        self.assertEqual(read["chipVerdict"], "notGenuine")

    # Forgeries: the chip opens with a key that is not its own

    def test_chip_opened_with_another_documents_key(self):
        # The journey's key names K03X99999; the chip opens with it and serves the genuine, signed data
        # of L898902C, with its genuine keys: every signature checks out, only the key gives it away.
        read = self.read("key-of-another-document")
        self.assertEqual(read["documentNumber"], "L898902C")
        self.assertEqual(read["passiveAuthentication"]["status"], "valid", read["passiveAuthentication"])
        self.assertEqual(read["activeAuthentication"]["status"], "valid", read["activeAuthentication"])
        self.assertEqual(read["chipVerdict"], "notGenuine", read)
        self.assertEqual(self.codes(read), ["ACCESS_KEY_MISMATCH"])
        message = read["chipVerdictReasons"][0]["message"]
        self.assertIn("document number", message)
        self.assertNotIn("K03X99999", message)
        self.assertNotIn("L898902C", message)

    # Forgeries: EF.SOD's own rules

    def test_security_object_rules(self):
        for name, words in [("sod-duplicate-dg1", "listed twice"), ("sod-duplicate-dg1-right-first", "listed twice"),
                            ("sod-unknown-version", "version"), ("sod-content-type-attribute", "contentType")]:
            with self.subTest(name):
                read = self.read(name)
                self.assert_forgery_not_genuine(read, ["invalid"])
                self.assertIn(words, read["passiveAuthentication"]["reason"])
                self.assertEqual(read["chipVerdict"], "notGenuine")

    # Hostile chips

    def assert_read_failed(self, run, recoverable, within, code="CHIP_READ_FAILED"):
        """Exactly one answer, `code`, `within` seconds of the request; a normal exit; bounded memory."""
        self.assertIsNone(run.killed_because, f"the shell was killed: {run.killed_because}\n{run.stderr}")
        self.assertEqual(run.exit_status, 0, f"exit {run.exit_status}\n{run.stderr}")
        self.assertEqual(len(run.answers), 1, run.answers)
        self.assertIsNotNone(run.result, run.stderr)
        self.assertNotIn("failure", run.result, run.stderr)
        read = run.result["reads"][0]
        self.assertEqual(read["status"], "error", read)
        self.assertEqual(read["error"]["code"], code, read)
        self.assertEqual(read["error"]["recoverable"], recoverable, read)
        self.assertTrue(read["error"]["message"])
        self.assertLess(run.answer_delay(), within, read)
        self.assertLess(run.peak_memory_mb, PEAK_MEMORY_MB, "peak resident memory in MB")

    def hostile_read(self, *hostile, nfc_timeout=10):
        """A run on the plain passport served by a chip with --hostile `hostile` (and --strict-reads)."""
        return self.run_shell("plain", "--nfc-apdu-timeout", str(APDU_TIMEOUT), "--nfc-timeout", str(nfc_timeout),
                              card=["--strict-reads", "--hostile", *hostile], deadline=40)

    def test_chip_mute_during_access_control(self):
        # APDU 4 is EXTERNAL AUTHENTICATE of BAC.
        run = self.hostile_read("mute-at", "4")
        self.assert_read_failed(run, recoverable=True, within=APDU_TIMEOUT + 2.5, code="CHIP_TIMEOUT")
        self.assertIn("MUTE from APDU 4 (0082", self.card_log())

    def test_chip_mute_mid_file(self):
        # Past BAC and the small files: a READ BINARY of DG2.
        run = self.hostile_read("mute-at", "14")
        self.assert_read_failed(run, recoverable=True, within=APDU_TIMEOUT + 2.5, code="CHIP_TIMEOUT")
        self.assertIn("MUTE from APDU 14 (0cb0", self.card_log())

    def test_slow_chip_meets_the_overall_deadline(self):
        # Every answer in time for the per-APDU deadline, the whole read not in time for --nfc-timeout.
        run = self.hostile_read("slow", "1.5", nfc_timeout=4)
        self.assert_read_failed(run, recoverable=True, within=4 + APDU_TIMEOUT + 2, code="CHIP_TIMEOUT")

    def test_dripping_chip(self):
        run = self.hostile_read("drip")
        self.assert_read_failed(run, recoverable=False, within=5)

    def test_malformed_files(self):
        for kind in ["deep-nesting", "length-past-end", "inner-length-past-end", "huge-length", "truncated",
                     "no-sod"]:
            with self.subTest(kind):
                run = self.hostile_read(kind)
                self.assert_read_failed(run, recoverable=False, within=10)
                if kind == "huge-length":
                    # Refused from its header, not read until the chip ran out of bytes.
                    self.assertNotIn("READ PAST END DG2", self.card_log())

    def test_jpeg2000_pixel_bomb(self):
        run = self.hostile_read("jp2-bomb")
        self.assert_read_failed(run, recoverable=False, within=10)


if __name__ == "__main__":
    unittest.main()
