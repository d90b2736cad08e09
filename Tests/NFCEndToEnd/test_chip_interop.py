"""nfc.read end to end against chips that are not the project's virtual passport as it usually
behaves: vsmartcard's vicc as an ePass (an independent chip implementation, which sends no DO'99'),
the virtual passport with the status word in the trailer only, chips that force the session to be
opened again after Chip Authentication, and chips whose answers break the rules.

What must hold: a protected answer without DO'99' whose MAC checks is read; a status word that no
MAC covers never makes a verdict better; after any re-opening Chip Authentication is redone or
its verdict withdrawn; and each failure says what happened (a chip that answers too much is not
"moved or removed").

Run by scripts/nfc-test.sh (as root); environment as for test_nfc_read: GBGBRIDGE_SHELL.
"""

import json
import os
import shutil
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import test_forgeries
from passport_sandbox import exports, make_passport, sandbox
from test_forgeries import APDU_TIMEOUT, ForgeryAndHostileChipTests

VICC = Path("/usr/bin/vicc")

PASSPORTS = {
    "plain": [],
    "genuine": ["--chip-auth", "aes", "--active-auth", "ec"],
    "chip-auth-aes": ["--chip-auth", "aes"],
    "chip-auth-3des": ["--chip-auth", "3des"],
    "extra-details": ["--extra-details"],
    "active-auth": ["--active-auth", "ec"],
}


class ChipInteroperabilityTests(ForgeryAndHostileChipTests):
    """The forgery suite's harness (one private pcscd, a card per test) on the passports above."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = Path(tempfile.mkdtemp(prefix="gbgbridge-interop-"))
        cls.sandbox_dir = cls.scratch / "sandbox"
        cls.sandbox_dir.mkdir()
        cls.passports = {}
        cls.unmakeable = {}

        def make(name):
            folder = cls.scratch / name
            make_passport(folder, *PASSPORTS[name])
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

    extra_query = {}

    def key(self, name):
        return dict(super().key(name), **self.extra_query)

    def assert_read_fails_with(self, run, code, recoverable, within):
        """Exactly one error answer `code` with `recoverable`, whose sentence does not say the document moved."""
        self.assertIsNone(run.killed_because, f"the shell was killed: {run.killed_because}\n{run.stderr}")
        self.assertEqual(run.exit_status, 0, f"exit {run.exit_status}\n{run.stderr}")
        self.assertEqual(len(run.answers), 1, run.answers)
        read = run.result["reads"][0]
        self.assertEqual(read["status"], "error", read)
        self.assertEqual((read["error"]["code"], read["error"]["recoverable"]), (code, recoverable), read)
        self.assertTrue(read["error"]["message"])
        self.assertNotIn("moved", read["error"]["message"], read)
        self.assertLess(run.answer_delay(), within, read)
        return read

    # vicc, an independent chip

    def vicc_read(self, *shell_options):
        """A run of the shell on the plain passport's files served by vicc instead of the virtual passport."""
        passport = self.passport("plain")
        card = test_forgeries.sandbox

        def vicc_instead(command, *arguments, **keywords):
            return card("vicc" if command == "card" else command, *arguments, **keywords)

        test_forgeries.sandbox = vicc_instead
        try:
            return self.run_shell("plain", "--csca", str(passport / "csca.pem"), *shell_options)
        finally:
            test_forgeries.sandbox = card

    @unittest.skipUnless(VICC.exists(), "vsmartcard-vpicc is not installed")
    def test_vicc_epass_reads_with_extended_and_short_reads(self):
        photo_bytes = json.loads((self.passport("plain") / "passport.json").read_text())["photoBytes"]
        for options in [(), ("--nfc-short-apdus",)]:
            with self.subTest(options=options):
                run = self.vicc_read(*options)
                self.assertIsNone(run.killed_because, run.stderr)
                self.assertEqual(run.exit_status, 0, run.stderr)
                read = run.result["reads"][0]
                self.assertEqual(read["status"], "success", read)
                self.assertEqual(read["accessControl"], "BAC")
                self.assertEqual(read["surname"], "ERIKSSON")
                self.assertEqual(read["dataGroupsRead"], ["DG1", "DG2"])
                # The JPEG face comes through unchanged: its base64 is exactly as long as the file's.
                self.assertEqual(read["photoLength"], 4 * ((photo_bytes + 2) // 3))
                self.assertEqual(read["passiveAuthentication"]["status"], "valid", read["passiveAuthentication"])
                self.assertNotEqual(read["chipVerdict"], "genuine", read)

    # The status word in the trailer only

    def test_answers_without_status_object_read_genuine(self):
        for card in [["--no-status-object"], ["--no-status-object", "--pace"]]:
            with self.subTest(card=card):
                read = self.read("genuine", card=card)
                self.assertEqual(read["passiveAuthentication"]["status"], "valid")
                self.assertEqual(read["chipAuthentication"]["status"], "valid", read["chipAuthentication"])
                self.assertEqual(read["activeAuthentication"]["status"], "valid", read["activeAuthentication"])
                self.assertEqual(read["chipVerdict"], "genuine", read)

    def test_unauthenticated_refusal_of_a_signed_data_group_fails_the_read(self):
        # DG11 is listed in EF.COM and signed in EF.SOD; the chip says "not found" in a trailer no MAC covers.
        self.extra_query = {"dataGroups": "DG11,DG12"}
        run = self.run_shell("extra-details", "--csca", str(self.passport("extra-details") / "csca.pem"),
                             card=["--no-status-object", "--hostile", "withhold-dg11"])
        read = self.assert_read_fails_with(run, "CHIP_PROTOCOL_ERROR", recoverable=False, within=15)
        self.assertIn("DG11", read["error"].get("detail", ""), read)

    def test_unauthenticated_refusal_of_the_active_authentication_key_is_not_genuine(self):
        read = self.read("active-auth", card=["--no-status-object", "--hostile", "hide-dg15"])
        self.assertEqual(read["activeAuthentication"]["status"], "invalid", read["activeAuthentication"])
        self.assertEqual(read["chipVerdict"], "notGenuine", read)

    # Re-opening the session after Chip Authentication

    def test_chip_authentication_is_redone_after_a_reopening(self):
        for name, card, proof in [("chip-auth-aes", [], "CHIP AUTHENTICATION 2"),
                                  ("chip-auth-3des", [], "CHIP AUTHENTICATION 2"),
                                  ("chip-auth-aes", ["--pace-cam"], "PACE-CAM 2")]:
            with self.subTest(name, card=card):
                read = self.read(name, card=[*card, "--hostile", "reopen-after-ca"])
                log = self.card_log()
                self.assertIn("REFUSED EXTENDED READ", log)
                self.assertIn(proof, log, "the chip was not asked to prove itself again")
                self.assertEqual(read["chipAuthentication"]["status"], "valid", read["chipAuthentication"])
                self.assertEqual(read["chipVerdict"], "genuine", read)

    def test_chip_that_will_not_authenticate_after_a_reopening_is_not_genuine(self):
        for name, card in [("chip-auth-aes", []), ("chip-auth-3des", []), ("chip-auth-aes", ["--pace-cam"])]:
            with self.subTest(name, card=card):
                read = self.read(name, card=[*card, "--hostile", "reopen-refuse-ca"])
                # Everything after the re-opening was read under keys the chip never proved.
                self.assertNotEqual(read["chipVerdict"], "genuine", read)
                self.assertNotEqual(read["chipAuthentication"]["status"], "valid", read["chipAuthentication"])
                self.assertIn("REFUSED EXTENDED READ", self.card_log())

    # Words: what happened, not "moved or removed"

    def test_chip_that_chains_its_answer_for_ever(self):
        run = self.hostile_read("chain-forever")
        self.assert_read_fails_with(run, "CHIP_PROTOCOL_ERROR", recoverable=False, within=15)

    def test_chip_too_slow_for_the_deadlines(self):
        run = self.hostile_read("slow", "1.5", nfc_timeout=4)
        self.assert_read_fails_with(run, "CHIP_TIMEOUT", recoverable=True, within=4 + APDU_TIMEOUT + 2)
        run = self.hostile_read("mute-at", "14")
        self.assert_read_fails_with(run, "CHIP_TIMEOUT", recoverable=True, within=APDU_TIMEOUT + 2.5)


def load_tests(loader, standard_tests, pattern):
    """Only the tests of this file (not the forgery suite's, whose harness it borrows)."""
    suite = unittest.TestSuite()
    for name in loader.getTestCaseNames(ChipInteroperabilityTests):
        if name in vars(ChipInteroperabilityTests):
            suite.addTest(ChipInteroperabilityTests(name))
    return suite


if __name__ == "__main__":
    unittest.main()
