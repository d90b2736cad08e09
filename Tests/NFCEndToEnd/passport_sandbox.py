"""The private PC/SC stack with a virtual passport (scripts/virtual-passport.sh), for Python tests.

Used by the nfc.read end-to-end tests and by the WebDriver test of the demo journey's chip step.
"""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SANDBOX_SCRIPT = ROOT / "scripts" / "virtual-passport.sh"
MAKE_PASSPORT = ROOT / "Tests" / "NFCEndToEnd" / "make_passport.py"
VPCD_DRIVER = Path("/usr/lib/pcsc/drivers/serial/libifdvpcd.so")
PYTHON = "/usr/bin/python3"


def sandbox(*arguments, check=True):
    """Runs scripts/virtual-passport.sh and returns its stdout."""
    done = subprocess.run(
        ["bash", str(SANDBOX_SCRIPT), *arguments], capture_output=True, text=True, timeout=60)
    if check and done.returncode != 0:
        raise RuntimeError(f"virtual-passport.sh {' '.join(arguments)} failed: {done.stderr}")
    return done.stdout


def exports(text):
    """The variables of `export NAME=value` lines (values may be single-quoted)."""
    values = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("export "):
            continue
        name, _, value = line[len("export "):].partition("=")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[name] = value
    return values


def make_passport(folder, *options):
    """Makes a virtual passport (make_passport.py OPTIONS) in folder."""
    subprocess.run(
        [PYTHON, str(MAKE_PASSPORT), "--out", str(folder), *options], check=True, capture_output=True, timeout=120)
