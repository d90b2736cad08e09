"""Wayland compositors, process groups and pictures for the Wayland session tests (test_wayland.py).

Every process a test starts in the background leads a process group of its own (a new session), so
that ending the group also ends what it started: weston's own clients (weston-desktop-shell,
weston-keyboard), the shell's WebKit processes, cage's client.
"""

import atexit
import os
import re
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests" / "ShellTests" / "Fixtures"
SCRATCH = Path(os.environ.get("SCRATCH_PATH", ROOT / ".build"))
if not SCRATCH.is_absolute():
    SCRATCH = ROOT / SCRATCH
SHELL = Path(os.environ.get("GBGBRIDGE_SHELL", SCRATCH / "debug" / "gbgbridge-shell"))
ARTIFACTS = Path(os.environ.get("WAYLAND_ARTIFACTS", SCRATCH / "wayland-artifacts")).resolve()
WESTON_SOCKET = "gbgbridge-wayland"


def session_environment():
    """The shell's environment inside a compositor: Wayland only, no session bus, no accessibility bus."""
    env = dict(os.environ)
    for name in ["DISPLAY", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR"]:
        env.pop(name, None)
    env.update({"GDK_BACKEND": "wayland", "DBUS_SESSION_BUS_ADDRESS": "disabled:", "NO_AT_BRIDGE": "1",
                "LANG": "C.UTF-8", "GBGBRIDGE_RESOURCES": str(ROOT / "Resources")})
    return env


def wait_until(condition, timeout, interval=0.1):
    """Polls condition every interval seconds; whether it held within timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def read(path):
    """The text of a log, or "" when it does not exist (yet)."""
    try:
        return Path(path).read_text(errors="replace")
    except FileNotFoundError:
        return ""


def log_tail(path, lines=40):
    """The last lines of a shell's stderr without the shell's own bracketed log lines, for failure messages."""
    kept = [line for line in read(path).splitlines() if not line.startswith("[")]
    return "\n".join(kept[-lines:]) or "(nothing else on stderr)"


def picture_facts(path):
    """(width, height, number of colours) of a picture, from ImageMagick; None when it is not one."""
    done = subprocess.run(["convert", str(path), "-format", "%w %h %k", "info:"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return None
    width, height, colours = (int(value) for value in done.stdout.split())
    return width, height, colours


class ProcessGroups:
    """Processes started as leaders of process groups of their own, ended together by end_all.

    Whatever is left when Python exits (an interrupted run skips tearDown) is ended then.
    """

    every = []

    def __init__(self):
        self.leaders = []
        ProcessGroups.every.append(self)

    @staticmethod
    def end_everything():
        """Ends the groups of every ProcessGroups still holding some."""
        for groups in ProcessGroups.every:
            groups.end_all()

    def start(self, argv, **options):
        """Starts argv in a new session (its own process group) and keeps it for end_all."""
        process = subprocess.Popen([str(argument) for argument in argv], start_new_session=True, **options)
        self.leaders.append(process)
        return process

    @staticmethod
    def alive(process):
        """Whether anything of the process's group is still running (the leader reaped first)."""
        process.poll()
        try:
            os.killpg(process.pid, 0)
            return True
        except ProcessLookupError:
            return False

    def end(self, process, grace=5.0):
        """Ends one group: SIGTERM, then SIGKILL after grace seconds."""
        self.end_all([process], grace)

    def end_all(self, processes=None, grace=5.0):
        """SIGTERM to every group, then SIGKILL to each that is left after grace seconds."""
        processes = list(self.leaders if processes is None else processes)
        for process in processes:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for process in processes:
            if not wait_until(lambda: not self.alive(process), grace):
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            if process in self.leaders:
                self.leaders.remove(process)


class Weston:
    """A private headless weston: pixman renderer, one 1280x1024 output, no Xwayland, no seat."""

    def __init__(self, work, groups):
        self.work = Path(work)
        self.log = self.work / "weston.log"
        runtime = self.work / "weston-runtime"
        runtime.mkdir(mode=0o700)
        self.env = session_environment()
        self.env.update({"XDG_RUNTIME_DIR": str(runtime), "WAYLAND_DISPLAY": WESTON_SOCKET})
        self.socket = runtime / WESTON_SOCKET
        # --use-pixman: the default headless renderer draws nothing, and screenshots would be black.
        # --debug: weston-screenshooter's protocol. No --xwayland: no X server. weston's headless backend
        # has no input devices, so it offers no wl_seat (no keyboard, no pointer); GTK then has no default seat.
        self.process = groups.start(
            ["weston", "--backend=headless-backend.so", f"--socket={WESTON_SOCKET}", "--width=1280",
             "--height=1024", "--use-pixman", "--idle-time=0", "--no-config", "--debug", f"--log={self.log}"],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def screenshot(self, name):
        """weston's screenshot of its whole output, kept as ARTIFACTS/NAME.png; an error message or None."""
        for stale in self.work.glob("wayland-screenshot-*.png"):
            stale.unlink()
        done = subprocess.run(["weston-screenshooter"], cwd=self.work, env=self.env, capture_output=True,
                              text=True, timeout=30)
        if done.returncode != 0:
            return f"weston-screenshooter failed (status {done.returncode}): {done.stderr.strip()}"
        taken = sorted(self.work.glob("wayland-screenshot-*.png"))
        if not taken:
            return "weston-screenshooter wrote no wayland-screenshot-*.png"
        taken[-1].replace(ARTIFACTS / f"{name}.png")
        return None


atexit.register(ProcessGroups.end_everything)


def interrupt_on_sigterm():
    """SIGTERM interrupts the run like Ctrl+C, so that the exit handlers end what it started."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, interrupt)


# Lines of a WAYLAND_DEBUG=client log.
APP_ID = re.compile(r'xdg_toplevel@[0-9]*\.set_app_id\("([^"]*)"\)')
CHILD_TOPLEVEL = re.compile(r"xdg_toplevel@[0-9]*\.set_parent\(xdg_toplevel@[0-9]*\)")
NEW_TOPLEVEL = re.compile(r"xdg_surface@[0-9]*\.get_toplevel\(new id xdg_toplevel@([0-9]*)\)")
FULLSCREEN = re.compile(r"xdg_toplevel@[0-9]*\.set_fullscreen")
KIOSK_GEOMETRY = re.compile(r"xdg_surface@[0-9]*\.set_window_geometry\(0, 0, 1280, 720\)")
