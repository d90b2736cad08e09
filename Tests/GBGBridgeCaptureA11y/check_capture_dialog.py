#!/usr/bin/env python3
"""The capture dialog as a screen reader sees it, over AT-SPI.

Runs gbgbridge-dialog-testhost (path in argv[1]) showing a selfie capture dialog with a hint, walks its
accessible tree and checks that every button, the camera picker, the status and hint lines and the preview
have a non-empty name and a fitting role; then presses Capture and checks that the countdown numbers and
the "photo taken" status are announced (object:announcement). Then, in document dialogs, Return with the
focus moved as a screen reader moves it: on Cancel it cancels and takes no photo; on Retake it goes back to
the live picture and sends nothing; with the focus on no button it captures; on Use photo it sends. Last,
document auto-capture: its cue is a named progress bar that fills, "Hold still, taking the photo…" is
announced once, then the automatic photo, which is shown for review and not sent. Prints one line per check,
exits 1 on any failure. Run it on a private session bus with the accessibility bus: see
scripts/capture-a11y-test.sh.
"""
import os
import subprocess
import sys
import tempfile
import time
import threading

import atspi_checks
from atspi_checks import (RETURN, Atspi, GLib, HostLines, check, find_app, focus, focused_names, press_key,
                          pump_until, walk)

DOCUMENT_TITLE = "Photo of your document"
HOLD_STILL = "Hold still, taking the photo…"


def open_document_dialog(host, state, *options):
    """Starts the test host with a document dialog in state; returns (process, lines, dialog or None)."""
    process = subprocess.Popen([host, "show", state, "--hold", "120", *options], stdout=subprocess.PIPE, text=True)
    lines = HostLines(process)
    check(lines.wait_for(f"READY {state}"), f"the test host shows the document dialog ({state})", lines.seen)
    dialogs = []

    def found():
        # This run's application (an earlier run's may still be listed for a moment).
        desktop = Atspi.get_desktop(0)
        apps = [desktop.get_child_at_index(i) for i in range(desktop.get_child_count())]
        for app in apps:
            if app is not None and app.get_name() == "gbgbridge-dialog-testhost" \
                    and app.get_process_id() == process.pid:
                windows = [app.get_child_at_index(i) for i in range(app.get_child_count())]
                dialogs.extend(w for w in windows if w is not None and w.get_name() == DOCUMENT_TITLE)
        return bool(dialogs)
    check(pump_until(found, 20), "the document dialog is on the accessibility bus")
    return process, lines, (dialogs[0] if dialogs else None)


def button(dialog, name):
    buttons = [node for node, _ in walk(dialog) if node.get_role() == Atspi.Role.PUSH_BUTTON
               and node.get_name() == name and node.get_state_set().contains(Atspi.StateType.SHOWING)]
    return buttons[0] if buttons else None


def preview(dialog):
    previews = [node for node, _ in walk(dialog) if node.get_name() == "Camera preview"]
    return previews[0] if previews else None


def is_live(dialog):
    node = preview(dialog)
    return node is not None and node.get_role() == Atspi.Role.VIDEO and "Live" in node.get_description()


def is_still(dialog):
    node = preview(dialog)
    return node is not None and node.get_role() == Atspi.Role.IMAGE and "Still" in node.get_description()


def return_on(dialog, name):
    """Moves the focus to the button called name, waits until it has it, and presses Return."""
    target = button(dialog, name)
    check(target is not None and focus(target), f"the focus can be moved to {name}")
    check(pump_until(lambda: focused_names(dialog) == [name], 10), f"the focus is on {name}", focused_names(dialog))
    press_key(RETURN)


def stop(process):
    process.kill()
    process.wait(timeout=20)


def return_activates_the_focused_button(host):
    """Return activates the button with the focus; the default action only runs with the focus on no button."""
    announcements = []
    listener = Atspi.EventListener.new(
        lambda event: announcements.append(event.any_data if isinstance(event.any_data, str) else str(event.any_data)))
    listener.register("object:announcement")

    # Live picture, focus on Cancel: Return cancels, no photo is taken.
    process, lines, dialog = open_document_dialog(host, "live")
    if dialog is not None:
        check(is_live(dialog), "the live picture is shown")
        return_on(dialog, "Cancel")
        finished = lines.starting_with("FINISHED", 10)
        check(finished == ["FINISHED cancelled"], "Return on Cancel cancels", finished)
        check(not any(text.startswith("Photo taken") for text in announcements) and not is_still(dialog),
              "Return on Cancel takes no photo", announcements)
    stop(process)

    # Reviewing a photo, focus on Retake: back to the live picture, nothing sent.
    unfocus = os.path.join(tempfile.mkdtemp(prefix="gbgbridge-a11y-"), "unfocus")
    process, lines, dialog = open_document_dialog(host, "review", "--unfocus-when", unfocus)
    if dialog is None:
        stop(process)
        return
    check(is_still(dialog), "the photo is shown for review")
    check(pump_until(lambda: focused_names(dialog) == ["Use photo"], 10), "the focus is on Use photo in review",
          focused_names(dialog))
    return_on(dialog, "Retake")
    check(pump_until(lambda: is_live(dialog), 10), "Return on Retake goes back to the live picture")
    pump_until(lambda: False, 1)
    check(lines.starting_with("FINISHED") == [], "Return on Retake sends nothing", lines.seen)

    # Focus on no button: Return does the default action (Capture).
    before = len(announcements)
    open(unfocus + "-1", "w").close()
    check(lines.wait_for("UNFOCUSED 1", 30), "the test host takes the focus off every widget", lines.seen)
    check(pump_until(lambda: focused_names(dialog) == [], 10), "no widget has the focus", focused_names(dialog))
    press_key(RETURN)
    check(pump_until(lambda: is_still(dialog), 10), "Return with the focus on no button takes the photo")
    check(pump_until(lambda: any(t.startswith("Photo taken") for t in announcements[before:]), 5),
          "the still photo is announced", announcements[before:])
    check(lines.starting_with("FINISHED") == [], "taking the photo sends nothing yet", lines.seen)

    # Focus on Use photo: Return sends.
    return_on(dialog, "Use photo")
    finished = lines.starting_with("FINISHED", 60)
    check(finished == ["FINISHED document"], "Return on Use photo sends the photo", finished)
    stop(process)
    listener.deregister("object:announcement")


def bar_value(node):
    try:
        return Atspi.Value.get_current_value(node)
    except Exception:  # noqa: BLE001 - no value interface: no progress to read
        return -1


def auto_capture_is_shown_and_announced(host):
    """The auto-capture cue is a named progress bar that fills; its start and the photo are announced."""
    announcements = []
    listener = Atspi.EventListener.new(
        lambda event: announcements.append(event.any_data if isinstance(event.any_data, str) else str(event.any_data)))
    listener.register("object:announcement")
    # Auto-capture starts once this file exists (after the checks of the idle cue), and takes 3 s to fill.
    start = os.path.join(tempfile.mkdtemp(prefix="gbgbridge-a11y-"), "auto-capture")
    process, lines, dialog = open_document_dialog(
        host, "autocapture", "--auto-capture-when", start, "--auto-capture-hold", "3")
    if dialog is None:
        stop(process)
        listener.deregister("object:announcement")
        return
    bars = [node for node, _ in walk(dialog) if node.get_role() == Atspi.Role.PROGRESS_BAR]
    check(len(bars) == 1 and bars[0].get_name() == "Automatic photo", "the auto-capture cue is a named progress bar",
          [bar.get_name() for bar in bars])
    if not bars:
        stop(process)
        listener.deregister("object:announcement")
        return
    bar = bars[0]
    check(bool(bar.get_description()), "the cue says what it does", bar.get_description())
    check(not bar.get_state_set().contains(Atspi.StateType.SHOWING) or bar_value(bar) <= 0,
          "the cue is empty before auto-capture runs", bar_value(bar))

    open(start, "w").close()
    check(pump_until(lambda: HOLD_STILL in announcements, 30), "'Hold still, taking the photo…' is announced",
          announcements)
    check(pump_until(lambda: bar_value(bar) > 0, 10), "the cue fills", bar_value(bar))
    check(pump_until(lambda: any(t.startswith("Photo taken automatically") for t in announcements), 30),
          "the automatic photo is announced", announcements)
    check(pump_until(lambda: is_still(dialog), 10), "the automatic photo is shown for review")
    check(announcements.count(HOLD_STILL) == 1, "'Hold still' is announced once", announcements)
    pump_until(lambda: False, 1)
    check(lines.starting_with("FINISHED") == [], "the automatic photo is not sent before Use photo", lines.seen)
    stop(process)
    listener.deregister("object:announcement")


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

    app = find_app("gbgbridge-dialog-testhost")
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
    listener.deregister("object:announcement")
    process.kill()
    process.wait(timeout=20)

    return_activates_the_focused_button(host)
    auto_capture_is_shown_and_announced(host)


atspi_checks.run(main)
