#!/usr/bin/env python3
"""The chip-reading window as a screen reader sees it, over AT-SPI.

Runs gbgbridge-dialog-testhost (path in argv[1]) showing the chip-reading window waiting for a document,
then steps it through a read (opening the chip, personal details, photo with a progress bar) that fails
when the document is lost. Checks names, roles and focus in each state, that no device name is read, that
the placement picture is a named image, and that each new step and the failure are announced once
(object:announcement), not every progress tick; then that Return activates the focused button: Try again
retries, and with the focus moved to Cancel, Return cancels and does not retry. Last, a read that succeeds:
"Done" is announced with the check mark's picture, and the window closes by itself.
Prints one line per check, exits 1 on any failure. Run it on a private session bus with the accessibility bus: see
scripts/capture-a11y-test.sh.
"""
import os
import queue
import subprocess
import sys
import tempfile
import threading

import atspi_checks
from atspi_checks import RETURN, Atspi, check, find_app, focus, focused_names, press_key, pump_until, walk

TITLE = "Read the document's chip"


def showing(node):
    return node.get_state_set().contains(Atspi.StateType.SHOWING)


def nodes_by_role(dialog, role):
    return [node for node, _ in walk(dialog) if node.get_role() == role and showing(node)]


def main():
    host = sys.argv[1]
    announcements = []
    listener = Atspi.EventListener.new(
        lambda event: announcements.append(event.any_data if isinstance(event.any_data, str) else str(event.any_data)))
    listener.register("object:announcement")

    prefix = os.path.join(tempfile.mkdtemp(prefix="gbgbridge-nfc-a11y-"), "advance")
    process = subprocess.Popen(
        [host, "nfc", "waiting", "--advance-when", prefix, "--hold", "120", "--confirm-seconds", "8"],
        stdout=subprocess.PIPE, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.strip()) for line in process.stdout], daemon=True).start()
    seen = []

    def ready(state):
        def arrived():
            while not lines.empty():
                seen.append(lines.get())
            return f"READY {state}" in seen
        return pump_until(arrived, 60)

    check(ready("waiting"), "the test host shows the window waiting for a document", seen)
    app = find_app("gbgbridge-dialog-testhost")
    check(app is not None, "the test host is on the accessibility bus")
    if app is None:
        process.kill()
        return
    dialogs = [app.get_child_at_index(i) for i in range(app.get_child_count())]
    dialogs = [d for d in dialogs if d is not None and d.get_name() == TITLE]
    check(len(dialogs) == 1, "the window is a top-level accessible named after its title")
    if not dialogs:
        process.kill()
        return
    dialog = dialogs[0]
    check(dialog.get_role() == Atspi.Role.DIALOG, "the window has the dialog role", dialog.get_role_name())
    for node, depth in walk(dialog):
        print("# " + "  " * depth + f"{node.get_role_name()}: {node.get_name()!r} — {node.get_description()!r}")

    labels = [node.get_name() for node in nodes_by_role(dialog, Atspi.Role.LABEL)]
    check("Place your document on the reader" in labels, "the heading is read", labels)
    everything = [text for node, _ in walk(dialog) for text in (node.get_name(), node.get_description()) if text]
    check(not any("ACR122U" in text or "PICC" in text for text in everything), "no device name is read",
          everything)
    images = nodes_by_role(dialog, Atspi.Role.IMAGE)
    pictures = [image for image in images if "passport" in (image.get_name() or "")]
    check(len(pictures) == 1 and "identity card" in pictures[0].get_name() and pictures[0].get_description(),
          "the picture of where to lay a passport or a card is a named, described image",
          [(image.get_name(), image.get_description()) for image in images])
    statusbars = [node.get_name() for node in nodes_by_role(dialog, Atspi.Role.STATUS_BAR)]
    check(len(statusbars) == 1 and statusbars[0], "the instruction is a named status bar", statusbars)
    buttons = nodes_by_role(dialog, Atspi.Role.PUSH_BUTTON)
    check([b.get_name() for b in buttons] == ["Cancel"], "only Cancel is offered while waiting",
          [b.get_name() for b in buttons])
    for button in buttons:
        check(bool(button.get_description()), f"button {button.get_name()!r} has a description")
    check(pump_until(lambda: focused_names(dialog) == ["Cancel"], 10), "the focus is on Cancel", focused_names(dialog))

    announced_before = len(announcements)
    open(prefix + "-1", "w").close()
    check(ready("reading"), "the window moves on to reading", seen)
    bars = nodes_by_role(dialog, Atspi.Role.PROGRESS_BAR)
    check(len(bars) == 1 and bars[0].get_name() == "Reading progress", "the progress bar is named",
          [b.get_name() for b in bars])
    if bars:
        # The third of four files, half read: 2.5 of 4.
        fraction = Atspi.Value.get_current_value(bars[0]) / (Atspi.Value.get_maximum_value(bars[0]) or 1)
        check(0.6 < fraction < 0.65, "the progress bar's value is half way through the photo", fraction)
    reading = announcements[announced_before:]
    check(reading == ["Opening the chip…", "Reading your personal details", "Reading your photo"],
          "each step is announced once, not each progress tick", reading)

    announced_before = len(announcements)
    open(prefix + "-2", "w").close()
    check(ready("failed"), "the window shows the failure", seen)
    pump_until(lambda: len(announcements) >= announced_before + 2, 5)
    failing = announcements[announced_before:]
    check(len(failing) == 2 and failing[0] == "Checking the document's signature"
          and failing[1].startswith("The chip could not be read.") and "Try again" in failing[1],
          "the signature check and the failure with what to do are announced", failing)
    buttons = nodes_by_role(dialog, Atspi.Role.PUSH_BUTTON)
    check(sorted(b.get_name() for b in buttons) == ["Cancel", "Try again"], "Try again is offered after the failure",
          [b.get_name() for b in buttons])
    check(pump_until(lambda: focused_names(dialog) == ["Try again"], 10), "the focus moves to Try again",
          focused_names(dialog))
    check(not nodes_by_role(dialog, Atspi.Role.PROGRESS_BAR), "the progress bar is gone after the failure")

    # Return activates the focused button: Try again retries; moved to Cancel, Return cancels, not retries.
    def drain():
        while not lines.empty():
            seen.append(lines.get())
        return seen

    press_key(RETURN)
    check(pump_until(lambda: "RETRIED" in drain(), 10), "Return on Try again tries again", seen)
    retries = drain().count("RETRIED")
    cancel = [b for b in nodes_by_role(dialog, Atspi.Role.PUSH_BUTTON) if b.get_name() == "Cancel"]
    check(len(cancel) == 1 and focus(cancel[0]), "the focus can be moved to Cancel")
    check(pump_until(lambda: focused_names(dialog) == ["Cancel"], 10), "the focus is on Cancel",
          focused_names(dialog))
    press_key(RETURN)
    check(pump_until(lambda: "CANCELLED" in drain(), 10), "Return on Cancel cancels", seen)
    pump_until(lambda: False, 0.5)
    check(drain().count("RETRIED") == retries, "Return on Cancel does not try again", seen)

    announced_before = len(announcements)
    open(prefix + "-3", "w").close()
    check(ready("done"), "the window shows the read is done", seen)
    pump_until(lambda: "Done. You can take your document." in announcements[announced_before:], 5)
    check("Done. You can take your document." in announcements[announced_before:], "\"Done\" is announced",
          announcements[announced_before:])
    labels = [node.get_name() for node in nodes_by_role(dialog, Atspi.Role.LABEL)]
    check("Done" in labels, "the heading says Done", labels)
    images = [image.get_name() for image in nodes_by_role(dialog, Atspi.Role.IMAGE)]
    check(any("check mark" in (name or "") for name in images), "the picture is a check mark", images)
    buttons = [b.get_name() for b in nodes_by_role(dialog, Atspi.Role.PUSH_BUTTON)]
    check(buttons == ["Close"], "only Close is offered", buttons)
    check(pump_until(lambda: "CLOSED" in drain(), 20), "the window closes by itself", seen)
    check(drain().count("CANCELLED") == 1, "closing after Done is no cancel", seen)
    process.kill()
    process.wait(timeout=20)


atspi_checks.run(main)
