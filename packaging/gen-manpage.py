#!/usr/bin/python3
"""Writes the gbgbridge-shell(1) manual page from the program's own description of its
command line (swift-argument-parser's `--experimental-dump-help` JSON), so the page and
`--help` cannot drift apart.

    gen-manpage.py PROGRAM VERSION EXTRA_SECTIONS > gbgbridge-shell.1

The date comes from SOURCE_DATE_EPOCH. EXTRA_SECTIONS is roff text appended verbatim
(entries that continue ENVIRONMENT, then FILES, EXAMPLES, SEE ALSO). Paragraphs of the discussion that start with "Exit status:"
or "Environment:" become the EXIT STATUS and ENVIRONMENT sections.
"""

import json
import os
import re
import subprocess
import sys
import time


def roff(text):
    """Escapes plain text for roff: backslashes, hyphens, and control characters at line start."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def option_synopsis(argument):
    names = []
    for name in argument.get("names", []):
        prefix = "--" if name["kind"] == "long" else "-"
        names.append("\\fB" + roff(prefix + name["name"]) + "\\fR")
    label = ", ".join(names)
    if argument["kind"] == "option":
        label += " \\fI" + roff(argument.get("valueName", "value")) + "\\fR"
    return label


def description_sections(discussion):
    """Splits the discussion into DESCRIPTION paragraphs and the special sections."""
    description, special = [], {}
    for paragraph in re.split(r"\n\s*\n", discussion.strip()):
        heading = paragraph.split("\n", 1)[0].strip().rstrip(":").lower()
        if heading == "exit status" and "\n" in paragraph:
            items = []
            for line in paragraph.split("\n")[1:]:
                match = re.match(r"\s*(\S+)\s+(.*)", line)
                if match:
                    items.append(".TP\n.B " + roff(match.group(1)) + "\n" + roff(match.group(2)))
            special["EXIT STATUS"] = "\n".join(items)
        elif heading.startswith("environment"):
            match = re.match(r"\s*Environment:\s*(.*)", paragraph, flags=re.S)
            if match:
                # "NAME text; NAME text.": one entry per variable.
                items = []
                for entry in re.split(r";\s+(?=[A-Z][A-Z0-9_]+\s)", " ".join(match.group(1).split())):
                    variable, _, body = entry.partition(" ")
                    body = body.rstrip(".") + "."
                    items.append(".TP\n.B " + roff(variable) + "\n" + roff(body[:1].upper() + body[1:]))
                special["ENVIRONMENT"] = "\n".join(items)
            else:
                description.append(roff(" ".join(paragraph.split())))
        elif re.search(r"^\s", paragraph, flags=re.M):
            description.append(".nf\n" + roff(paragraph) + "\n.fi")
        else:
            description.append(roff(" ".join(paragraph.split())))
    return description, special


def main():
    program, version, extra_path = sys.argv[1:4]
    dump = subprocess.run([program, "--experimental-dump-help"], check=True, capture_output=True, text=True)
    command = json.loads(dump.stdout)["command"]
    name = command["commandName"]
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    date = time.strftime("%Y-%m-%d", time.gmtime(epoch))

    arguments = [a for a in command.get("arguments", []) if a.get("shouldDisplay", True)]
    positionals = [a for a in arguments if a["kind"] == "positional"]
    options = [a for a in arguments if a["kind"] != "positional"]
    description, special = description_sections(command.get("discussion", ""))

    out = []
    out.append('.TH "%s" "1" "%s" "%s %s" "User Commands"' % (name.upper(), date, name, version))
    out.append(".SH NAME")
    out.append(roff(name) + " \\- " + roff(command.get("abstract", "").rstrip(".")))
    out.append(".SH SYNOPSIS")
    synopsis = "\\fB" + roff(name) + "\\fR [\\fIoptions\\fR]"
    for argument in positionals:
        label = "\\fI" + roff(argument.get("valueName", "argument")) + "\\fR"
        synopsis += " [" + label + "]" if argument.get("isOptional") else " " + label
    out.append(synopsis)
    out.append(".SH DESCRIPTION")
    out.append(roff(command.get("abstract", "")))
    for paragraph in description:
        out.append(".PP")
        out.append(paragraph)
    if positionals:
        out.append(".SH ARGUMENTS")
        for argument in positionals:
            out.append(".TP")
            out.append("\\fI" + roff(argument.get("valueName", "argument")) + "\\fR")
            out.append(roff(argument.get("abstract", "")))
    out.append(".SH OPTIONS")
    for argument in options:
        out.append(".TP")
        out.append(option_synopsis(argument))
        text = argument.get("abstract", "")
        if argument.get("defaultValue") not in (None, "", "false") and argument["kind"] == "option":
            text += " (default: " + argument["defaultValue"] + ")"
        out.append(roff(text))
        if argument.get("discussion"):
            out.append(roff(argument["discussion"]))
    for section in ("EXIT STATUS", "ENVIRONMENT"):
        # ENVIRONMENT always has its heading: EXTRA_SECTIONS starts with further entries of it.
        if section in special or section == "ENVIRONMENT":
            out.append(".SH " + section)
        if section in special:
            out.append(special[section])
    with open(extra_path, encoding="utf-8") as extra:
        out.append(extra.read().rstrip("\n"))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
