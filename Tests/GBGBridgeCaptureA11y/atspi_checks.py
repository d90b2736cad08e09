"""Helpers shared by the AT-SPI checks: TAP-style checks, tree walks, finding an application."""
import sys

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
