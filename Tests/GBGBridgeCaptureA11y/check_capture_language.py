#!/usr/bin/env python3
"""The capture dialog and the chip-reading window in another language, as a screen reader reads them.

Usage: check_capture_language.py HOST LANGUAGE LOCALE_DIR

Runs gbgbridge-dialog-testhost (HOST) under LANGUAGE with the catalogues in LOCALE_DIR, showing a
document and then a selfie dialog (live, with a hint), a document dialog while its auto-capture cue runs,
then the chip-reading window reading and after a failure, and checks over AT-SPI that no name, description or text in the window is an English message
whose translation differs: no English is left. Expects the caller's environment to select the language
(LANGUAGE, a UTF-8 locale) and a private session bus.
"""
import ast
import warnings
import gettext
import re
import subprocess
import sys

import atspi_checks
from atspi_checks import Atspi, check, find_app, walk


def english_messages(template):
    """The msgids of the template (single-line and continued entries)."""
    messages, current, in_id = [], None, False
    for line in open(template, encoding="utf-8"):
        if line.startswith("msgid "):
            current, in_id = ast.literal_eval(line[6:]), True
        elif line.startswith('"') and in_id:
            current += ast.literal_eval(line)
        else:
            if in_id and current:
                messages.append(current)
            in_id = False
    return messages


def texts_of(dialog):
    """Every name, description and text a screen reader can read in the dialog."""
    for node, _ in walk(dialog):
        for text in (node.get_name(), node.get_description()):
            if text:
                yield text
        try:
            content = node.get_text_iface()
            if content is not None:
                yield content.get_text(0, content.get_character_count())
        except Exception:  # noqa: BLE001 - not every node has text
            pass


warnings.filterwarnings("ignore", category=DeprecationWarning)


def main():
    host, language, locale_dir = sys.argv[1:4]
    catalogue = gettext.translation("gbgbridge-shell", locale_dir, languages=[language])
    # English messages that read differently in this language, with placeholders as wildcards.
    changed = [m for m in english_messages("po/gbgbridge-shell.pot") if catalogue.gettext(m) != m]
    patterns = [re.compile("^" + re.sub(r"\\\{\w+\\\}", ".*", re.escape(m.replace("_", ""))) + "$") for m in changed]
    check(len(changed) > 50, f"{language}: the catalogue translates the messages", len(changed))

    for kind, arguments in [("document", ["show", "hint", "--kind", "document"]),
                            ("selfie", ["show", "hint", "--kind", "selfie"]),
                            ("document auto-capture", ["show", "autocapture", "--auto-capture-hold", "60"]),
                            ("chip reading", ["nfc", "reading"]), ("chip failure", ["nfc", "failed"])]:
        process = subprocess.Popen([host, *arguments, "--hold", "6"], stdout=subprocess.PIPE, text=True)
        process.stdout.readline()
        app = find_app("gbgbridge-dialog-testhost")
        dialogs = [] if app is None else [app.get_child_at_index(i) for i in range(app.get_child_count())]
        dialogs = [d for d in dialogs if d is not None and d.get_role() == Atspi.Role.DIALOG]
        check(len(dialogs) == 1, f"{language}, {kind}: the dialog is on the accessibility bus")
        texts = sorted(set(text for dialog in dialogs for text in texts_of(dialog)))
        english = [t for t in texts if any(p.match(t.replace("_", "")) for p in patterns)]
        check(len(texts) > (3 if kind.startswith("chip") else 8) and not english,
              f"{language}, {kind}: no English left in {len(texts)} texts",
              english or texts)
        print("# " + " | ".join(texts))
        process.kill()
        process.wait()


atspi_checks.run(main)
