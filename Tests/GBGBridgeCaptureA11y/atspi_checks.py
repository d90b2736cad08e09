"""Helpers shared by the AT-SPI checks: TAP-style checks, tree walks, finding an application, moving the focus,
pressing keys, reading what a test host prints."""
import queue
import sys
import threading
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

failures = 0
checks = 0


def check(condition, name, detail=""):
    global failures, checks
    checks += 1
    if condition:
        print(f"ok {checks} - {name}")
    else:
        failures += 1
        print(f"not ok {checks} - {name}" + (f": {detail}" if detail else ""))
    sys.stdout.flush()


def walk(node, depth=0):
    yield node, depth
    for index in range(node.get_child_count()):
        child = node.get_child_at_index(index)
        if child is not None:
            yield from walk(child, depth + 1)


def find_app(name, timeout=20):
    loop_until = GLib.get_monotonic_time() + timeout * 1_000_000
    while GLib.get_monotonic_time() < loop_until:
        desktop = Atspi.get_desktop(0)
        for index in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(index)
            if app is not None and app.get_name() == name:
                return app
        GLib.usleep(200_000)
    return None


def pump_until(predicate, seconds):
    """Runs the main context (which delivers AT-SPI events) until predicate() holds or time runs out."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        while context.pending():
            context.iteration(False)
        if predicate():
            return True
        time.sleep(0.05)
    return False


def focused_names(dialog):
    return [node.get_name() for node, _ in walk(dialog) if node.get_state_set().contains(Atspi.StateType.FOCUSED)]


def focus(node):
    """Moves the keyboard focus to node, as a screen reader's "focus this" does."""
    return Atspi.Component.grab_focus(node)


RETURN = 0xFF0D  # the Return keysym


def press_key(keysym):
    """Presses and releases keysym as a keyboard would: the accessibility registry synthesises it (XTest), so
    it arrives in the window that has the keyboard focus."""
    return Atspi.generate_keyboard_event(keysym, None, Atspi.KeySynthType.SYM)


class HostLines:
    """The lines a running test host prints, read on a thread and collected while the main context runs."""

    def __init__(self, process):
        self.seen = []
        self._lines = queue.Queue()
        threading.Thread(target=lambda: [self._lines.put(line.strip()) for line in process.stdout],
                         daemon=True).start()

    def _collect(self):
        while not self._lines.empty():
            self.seen.append(self._lines.get())

    def wait_for(self, line, seconds=60):
        """Whether line was printed (now or within seconds)."""
        def arrived():
            self._collect()
            return line in self.seen
        return pump_until(arrived, seconds)

    def starting_with(self, prefix, seconds=0):
        """The lines printed so far (waiting up to seconds for one) that start with prefix."""
        def arrived():
            self._collect()
            return any(line.startswith(prefix) for line in self.seen)
        pump_until(arrived, seconds)
        self._collect()
        return [line for line in self.seen if line.startswith(prefix)]


def summary():
    """Prints the count line; returns the exit status (0 when every check passed)."""
    print(f"# {checks} checks, {failures} failed")
    return 0 if failures == 0 and checks > 0 else 1


def run(main):
    """Runs main(), then prints the count line and exits 0 only when every check passed."""
    try:
        main()
    finally:
        status = summary()
    sys.exit(status)
