#!/usr/bin/env python3
"""The capture dialog as a screen reader sees it, over AT-SPI.

Runs gbgbridge-capture-testhost (path in argv[1]) showing a selfie capture dialog with a hint, walks its
accessible tree and checks that every button, the camera picker, the status and hint lines and the preview
have a non-empty name and a fitting role; then presses Capture and checks that the countdown numbers and
the "photo taken" status are announced (object:announcement). Prints one line per check, exits 1 on any
failure. Run it on a private session bus with the accessibility bus: see scripts/capture-a11y-test.sh.
"""
import os
import subprocess
import sys
import tempfile
import time
import threading

import atspi_checks
from atspi_checks import Atspi, GLib, check, find_app, walk



def main():
    host = sys.argv[1]
    announcements = []

    def on_announcement(event):
        text = event.any_data if isinstance(event.any_data, str) else str(event.any_data)
        announcements.append(text)
        if text.startswith("Photo taken"):
            Atspi.event_quit()

    listener = Atspi.EventListener.new(on_announcement)
    listener.register("object:announcement")

    # The host presses Capture once this file exists: after the checks of the first state,
    # however long a loaded machine takes for them.
    press_capture = os.path.join(tempfile.mkdtemp(prefix="gbgbridge-a11y-"), "press-capture")
    process = subprocess.Popen(
        [host, "show", "hint", "--kind", "selfie", "--press-capture-when", press_capture, "--hold", "120"],
        stdout=subprocess.PIPE, text=True)
    ready = process.stdout.readline().strip()
    check(ready == "READY hint", "the test host shows the dialog", ready)
    lines = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()

    app = find_app("gbgbridge-capture-testhost")
    check(app is not None, "the test host is on the accessibility bus")
    if app is None:
        process.kill()
        return

    dialog = None
    for index in range(app.get_child_count()):
        window = app.get_child_at_index(index)
        if window is not None and window.get_name() == "Take a selfie":
            dialog = window
    check(dialog is not None, "the dialog is a top-level accessible named after its title")
    if dialog is None:
        process.kill()
        return
    check(dialog.get_role() == Atspi.Role.DIALOG, "the capture window has the dialog role", dialog.get_role_name())

    nodes = [node for node, _ in walk(dialog)]
    by_role = {}
    for node in nodes:
        by_role.setdefault(node.get_role(), []).append(node)
    for node, depth in walk(dialog):
        print("# " + "  " * depth + f"{node.get_role_name()}: {node.get_name()!r} — {node.get_description()!r}")

    buttons = by_role.get(Atspi.Role.PUSH_BUTTON, [])
    names = sorted(button.get_name() for button in buttons)
    check(set(names) >= {"Capture", "Retake", "Use photo", "Retry", "Cancel"}, "every button is there by name", names)
    for button in buttons:
        check(bool(button.get_name()) and "_" not in button.get_name() and bool(button.get_description()),
              f"button {button.get_name()!r} has a name and a description", button.get_description())

    pickers = by_role.get(Atspi.Role.COMBO_BOX, [])
    check(len(pickers) == 1 and pickers[0].get_name() == "Camera", "the camera picker is named",
          [p.get_name() for p in pickers])
    if pickers:
        labelled = [r.get_target(0).get_name() for r in pickers[0].get_relation_set()
                    if r.get_relation_type() == Atspi.RelationType.LABELLED_BY and r.get_n_targets() > 0]
        check(labelled == ["Camera:"], "the picker is labelled by Ca_mera:", labelled)
        menu_items = [node.get_name() for node, _ in walk(pickers[0]) if node.get_role() == Atspi.Role.MENU_ITEM]
        check(menu_items and not any("/dev/" in item for item in menu_items), "picker entries show no device paths",
              menu_items)

    statusbars = by_role.get(Atspi.Role.STATUS_BAR, [])
    status_names = [s.get_name() for s in statusbars]
    check(len(statusbars) == 2 and all(status_names), "the status and hint lines are named status bars", status_names)
    check(any(name.startswith("Glare") for name in status_names), "the hint is exposed", status_names)

    previews = by_role.get(Atspi.Role.VIDEO, [])
    check(len(previews) == 1 and previews[0].get_name() == "Camera preview", "the preview is a named video")
    if previews:
        check("Live" in previews[0].get_description(), "the preview says it is live", previews[0].get_description())
        states = previews[0].get_state_set()
        check(states.contains(Atspi.StateType.SHOWING), "the preview is showing")

    # Focus arrives with the window's activation, which a loaded machine delivers late: look for
    # up to 10 s.
    deadline = time.monotonic() + 10
    while True:
        focused = [node for node, _ in walk(dialog) if node.get_state_set().contains(Atspi.StateType.FOCUSED)]
        if focused or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    check([node.get_name() for node in focused] == ["Capture"], "the focus is on Capture",
          [node.get_name() for node in focused])

    # Press Capture: the countdown (3, 2, 1) and the still photo must be announced.
    open(press_capture, "w").close()
    GLib.timeout_add(12000, lambda: Atspi.event_quit() or False)
    Atspi.event_main()
    check(["3", "2", "1"] == [text for text in announcements if text in ("1", "2", "3")],
          "the countdown numbers are announced", announcements)
    check(any(text.startswith("Photo taken") for text in announcements), "the still photo is announced",
          announcements)
    if previews:
        check(previews[0].get_role() == Atspi.Role.IMAGE and "Still" in previews[0].get_description(),
              "the reviewed photo is an image described as a still", previews[0].get_description())
    process.kill()
    process.wait(timeout=20)


atspi_checks.run(main)
