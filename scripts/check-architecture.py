#!/usr/bin/env python3
"""Checks docs/architecture.md against the package: the module table names every library and
executable module of the package with the project modules and packages it depends on, as
Package.swift declares them (C system libraries and shims aside), and the layering the document
promises holds in Package.swift and in the sources' imports:

- the protocol core (GBGBridge) depends on nothing and imports no GTK, WebKit or device library;
- a capability module (one that depends on GBGBridgeCapabilities, other than the journey window's
  module and the app) depends neither on the journey window's module (GBGBridgeGTK) nor on another
  capability module;
- the device services (Cameras, CardReaders) and the toolkit import no capability module.

    scripts/check-architecture.py [DUMP.json]

DUMP.json is `swift package dump-package`'s output (made here when not given). Exits 1 with
each difference on a line of its own.
"""
import json
import pathlib
import re
import subprocess
import sys

top = pathlib.Path(__file__).resolve().parent.parent
if len(sys.argv) > 1:
    manifest = json.loads(pathlib.Path(sys.argv[1]).read_text())
else:
    manifest = json.loads(
        subprocess.run(["swift", "package", "dump-package"], cwd=top, check=True, capture_output=True, text=True).stdout
    )

targets = {t["name"]: t for t in manifest["targets"]}


def is_c_module(name):
    t = targets.get(name)
    return t is not None and (t["type"] == "system-target" or re.fullmatch(r"C[A-Z].*", name) is not None)


def dependencies(name):
    """Project modules (C aside) and packages that target `name` declares."""
    found = set()
    for dependency in targets[name].get("dependencies", []):
        if "byName" in dependency:
            found.add(dependency["byName"][0])
        elif "target" in dependency:
            found.add(dependency["target"][0])
        elif "product" in dependency:
            found.add(dependency["product"][1] or dependency["product"][0])
    return {d for d in found if not is_c_module(d)}


documented = {}
text = (top / "docs/architecture.md").read_text()
table = text[text.index("| module | what it holds | imports |") :].split("\n\n")[0]
for line in table.splitlines():
    row = re.fullmatch(r"\| `([A-Za-z0-9-]+)` \|(.*)\| (.*) \|", line)
    if not row:
        continue
    name, imports = row.group(1), row.group(3)
    if imports.strip() in ("nothing", "Foundation only"):
        documented[name] = set()
        continue
    if name == "gbgbridge-shell":
        documented[name] = None  # "all of the above": checked by the build, not here
        continue
    names = set()
    for part in re.split(r",\s*(?![^()]*\))", imports):
        word = re.match(r"\s*([A-Za-z0-9-]+)", part)
        if word and not is_c_module(word.group(1)):
            names.add(word.group(1))
    documented[name] = names

problems = []
shipped = [
    n
    for n, t in targets.items()
    if t["type"] in ("regular", "executable")
    and not is_c_module(n)
    and not n.endswith("TestSupport")
    and not (n.startswith("gbgbridge-") and n != "gbgbridge-shell")
]
for name in shipped:
    if name not in documented:
        problems.append(f"docs/architecture.md: the module table has no row for {name}")
        continue
    if documented[name] is None:
        continue
    declared = dependencies(name)
    if documented[name] != declared:
        missing = sorted(declared - documented[name])
        extra = sorted(documented[name] - declared)
        problems.append(
            f"docs/architecture.md: {name}'s imports differ from Package.swift"
            + (f"; not in the table: {', '.join(missing)}" if missing else "")
            + (f"; in the table but not declared: {', '.join(extra)}" if extra else "")
        )
for name in documented:
    if name not in targets:
        problems.append(f"docs/architecture.md: the module table names {name}, which is not a module of the package")


def imports_of(name):
    folder = top / (targets[name].get("path") or f"Sources/{name}")
    found = {}
    for source in folder.rglob("*.swift"):
        for line in source.read_text().splitlines():
            match = re.match(r"\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|func|var)\s+)?(\w+)", line)
            if match:
                found.setdefault(match.group(1), source.relative_to(top))
    return found


if dependencies("GBGBridge"):
    problems.append(f"GBGBridge (the protocol core) depends on {', '.join(sorted(dependencies('GBGBridge')))}")
for module, source in imports_of("GBGBridge").items():
    if module.startswith("C") or module in targets:
        problems.append(f"{source}: the protocol core imports {module}")

capabilities = [
    n
    for n in shipped
    if "GBGBridgeCapabilities" in dependencies(n) and n not in ("GBGBridgeGTK", "gbgbridge-shell")
]
for name in capabilities:
    for other in ["GBGBridgeGTK"] + [c for c in capabilities if c != name]:
        if other in dependencies(name):
            problems.append(f"capability module {name} depends on {other}")
        source = imports_of(name).get(other)
        if source:
            problems.append(f"{source}: capability module {name} imports {other}")
for name in ["Cameras", "CardReaders", "GBGBridgeToolkit"]:
    for other in capabilities + ["GBGBridgeCapabilities", "GBGBridgeGTK"]:
        if other in dependencies(name) or other in imports_of(name):
            problems.append(f"{name} (beneath the capabilities) depends on {other}")

for problem in problems:
    print(problem)
if problems:
    sys.exit(1)
print(f"architecture: {len(shipped)} modules as documented; capability modules: {', '.join(sorted(capabilities))}")
