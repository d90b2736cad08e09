"""Fixtures for driving gbgbridge-shell through WebKitWebDriver with Selenium.

GBGBRIDGE_SHELL names the shell binary (default: the debug build in .build/debug).
Each test gets its own WebKitWebDriver (a free port) and its own shell process.
"""

import json
import os
import pathlib
import time

import shutil

import pytest
from selenium import webdriver
from selenium.webdriver.webkitgtk.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHELL = os.environ.get("GBGBRIDGE_SHELL", str(ROOT / ".build" / "debug" / "gbgbridge-shell"))
DRIVER = shutil.which("WebKitWebDriver") or "/usr/bin/WebKitWebDriver"
ARTIFACTS = pathlib.Path(os.environ.get("WEBDRIVER_ARTIFACTS", ROOT / ".build" / "webdriver-artifacts"))


def shell_options(*shell_args):
    """Capabilities that make WebKitWebDriver start gbgbridge-shell with these options."""
    options = webdriver.WebKitGTKOptions()
    options.binary_location = SHELL
    # The name the shell reports; WebKitWebDriver refuses a session whose browserName differs.
    options.set_capability("browserName", "gbgbridge-shell")
    for argument in ("--automation", *shell_args):
        options.add_argument(argument)
    return options


class Session:
    """One WebDriver session on one shell, with the shell's message log."""

    def __init__(self, tmp_path, shell_args, environment=None):
        self.log_path = tmp_path / "messages.jsonl"
        options = shell_options("--message-log", str(self.log_path), *shell_args)
        # WebKitWebDriver passes its environment on to the shell it starts.
        # The suites read the demo's English texts: whatever the caller's language, the shell runs in English.
        env = {key: value for key, value in os.environ.items() if key not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
        env = dict(env, LANG="C.UTF-8", **(environment or {}))
        self.service = Service(executable_path=DRIVER, log_output=str(tmp_path / "driver.log"), env=env)
        started = time.monotonic()
        self.driver = webdriver.WebKitGTK(options=options, service=self.service)
        self.start_seconds = time.monotonic() - started
        self.shell_pid = find_shell(self.service.process.pid)

    def messages(self):
        """The bridge traffic so far: one dict per line of the message log."""
        with open(self.log_path, encoding="utf-8") as log:
            return [json.loads(line) for line in log if line.strip()]

    def quit(self):
        if self.driver.session_id is None:  # a test already ended the session itself
            self.service.stop()
            return
        self.driver.quit()


def children(pid):
    """Direct children of pid, from /proc."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def is_running(pid):
    """Whether pid exists and is not a zombie waiting to be reaped."""
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def find_shell(driver_pid):
    for pid in children(driver_pid):
        try:
            command = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
        except OSError:
            continue
        if command.endswith("gbgbridge-shell"):
            return pid
    raise AssertionError("WebKitWebDriver started no gbgbridge-shell")


@pytest.fixture
def session_factory(tmp_path):
    """Starts sessions; after the test, quits them and checks no shell or WebKit process is left."""
    sessions = []

    def start(*shell_args, environment=None):
        session = Session(tmp_path, shell_args, environment)
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        family = [session.shell_pid, *children(session.shell_pid)]
        session.quit()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(is_running(pid) for pid in family):
            time.sleep(0.1)
        left = [pid for pid in family if is_running(pid)]
        assert not left, f"processes left after the session ended: {left}"
