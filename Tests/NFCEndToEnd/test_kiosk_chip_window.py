"""A kiosk's wipe ends the chip read of the person who walked away: the built gbgbridge-shell in
kiosk mode under a virtual display, the private pcscd's vpcd reader with no card on it, a click
that asks nfc.read, then nobody. After the idle reset the chip-reading window must be gone, so
that the next person does not find the previous person's read ("No document was found", Cancel,
Try again) over their session.

Run by scripts/nfc-test.sh. Needs cc and the X11 and XTest headers (libx11-dev, libxtst-dev) for
the click helper of the shell tests (Tests/ShellTests/Fixtures/click.c), and xwininfo.
"""

import os
import shutil
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from passport_sandbox import ROOT, exports, sandbox

JOURNEY = ROOT / "Tests" / "NFCEndToEnd" / "kiosk-chip.html"
CLICK_SOURCE = ROOT / "Tests" / "ShellTests" / "Fixtures" / "click.c"
SHELL = os.environ.get("GBGBRIDGE_SHELL", str(ROOT / ".build" / "debug" / "gbgbridge-shell"))
CHIP_WINDOW_TITLE = "Read the document's chip"


def have_tools():
    return all(shutil.which(tool) for tool in ["cc", "xvfb-run", "xwininfo"])


@unittest.skipUnless(have_tools(), "needs cc, xvfb-run and xwininfo")
class KioskChipWindowTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = Path(tempfile.mkdtemp(prefix="gbgbridge-kiosk-chip-"))
        cls.sandbox_dir = cls.scratch / "sandbox"
        cls.sandbox_dir.mkdir()
        cls.environment = exports(sandbox("start", str(cls.sandbox_dir)))
        cls.reader = cls.environment.get("NFC_READER", "Virtual PCD")
        cls.click = cls.scratch / "click"
        subprocess.run(["cc", "-o", str(cls.click), str(CLICK_SOURCE), "-lX11", "-lXtst"], check=True)

    @classmethod
    def tearDownClass(cls):
        sandbox("stop", str(cls.sandbox_dir), check=False)
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def wait_for(self, what, condition, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            if self.process.poll() is not None:
                self.fail(f"the shell ended (status {self.process.returncode}) before {what}: {self.stderr()}")
            time.sleep(0.2)
        self.fail(f"no {what} within {timeout} s: {self.stderr()}")

    def stderr(self):
        return self.errors.read_text(errors="replace") if self.errors.exists() else ""

    def window_names(self):
        result = subprocess.run(["xwininfo", "-display", self.display, "-root", "-tree"],
                                capture_output=True, text=True)
        return result.stdout

    def test_kiosk_wipe_closes_the_chip_window(self):
        log = self.scratch / "messages.jsonl"
        self.errors = self.scratch / "stderr.txt"
        display_file = self.scratch / "display"
        query = "documentNumber=L898902C3&dateOfBirth=740812&dateOfExpiry=120415"
        env = dict(os.environ)
        env.update(self.environment)
        env.update({"DBUS_SESSION_BUS_ADDRESS": "disabled:", "NO_AT_BRIDGE": "1", "LANG": "C.UTF-8",
                    "SHELL_BINARY": SHELL, "JOURNEY": JOURNEY.as_uri() + "?" + query, "READER": self.reader,
                    "LOG": str(log), "ERRORS": str(self.errors), "DISPLAY_FILE": str(display_file)})
        for key in ["LANGUAGE", "LC_ALL", "LC_MESSAGES"]:
            env.pop(key, None)
        # The shortest idle reset the options allow (5 s; 20 s while a host window waits for the
        # person), no warning, and a chip read that gives up waiting for a document after 3 s,
        # so the window asks "No document was found" with Cancel and Try again, and nobody answers.
        script = ('echo "$DISPLAY" > "$DISPLAY_FILE"; exec "$SHELL_BINARY" "$JOURNEY" --kiosk --idle-reset 5 '
                  '--idle-warning 0 --nfc-reader "$READER" --nfc-timeout 3 --message-log "$LOG" '
                  '--timeout 150 2>"$ERRORS"')
        self.process = subprocess.Popen(
            ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24 -ac", "bash", "-c", script], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.wait_for("display", lambda: display_file.exists() and display_file.read_text().strip(), 30)
            self.display = display_file.read_text().strip()
            self.wait_for("journey page", lambda: log.exists() and '"host.ready"' in log.read_text(), 60)
            time.sleep(1)
            # A person taps the page: it asks nfc.read, and the idle timer starts from this input.
            subprocess.run([str(self.click), self.display, "640", "512"], check=True)
            self.wait_for("chip-reading window", lambda: CHIP_WINDOW_TITLE in self.window_names(), 30)
            self.wait_for("kiosk wipe", lambda: "the session was wiped" in self.stderr(), 60)
            time.sleep(2)
            self.assertNotIn(CHIP_WINDOW_TITLE, self.window_names(),
                             "the chip-reading window survived the kiosk wipe")
            self.assertIn("Nobody used the journey for 20 s", self.stderr())
            # The next session's page is up and waits for its own person, with no chip window.
            self.wait_for("next session", lambda: log.read_text().count('"host.ready"') >= 2, 30)
            self.assertNotIn(CHIP_WINDOW_TITLE, self.window_names())
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()


if __name__ == "__main__":
    unittest.main()
