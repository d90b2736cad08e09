#!/usr/bin/env bash
# Checks the Swift sources against .swift-format (the toolchain's `swift format`), the licensing
# of every file against REUSE.toml (`reuse lint`, REUSE 3.3), and docs/architecture.md's module
# table and layering against Package.swift and the imports (scripts/check-architecture.py), and the
# line length of the package's description (lintian's limit). Fails on any finding.
#   scripts/lint.sh --fix   rewrites the Swift files in place first
# reuse comes from PyPI (Debian 12's 1.1 predates REUSE.toml), pinned, in a virtual environment
# under .build/ made on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
. scripts/lib/packages.sh
ensure_packages lint python3-venv python3-pip

paths=(Package.swift Sources Tests Benchmarks Fuzz Examples)
if [ "${1:-}" = --fix ]; then
    swift format format --in-place --recursive --parallel "${paths[@]}"
fi
swift format lint --strict --recursive --parallel "${paths[@]}"
/usr/bin/python3 scripts/check-architecture.py
# The package's description as lintian (the .deb stage) holds it: continuation lines of at most 80 characters.
if awk '/^Description:/ { description = 1; next } !/^ / { description = 0 }
    description && length > 80 { print FILENAME ":" FNR ": " length " characters (lintian allows 80)"; found = 1 }
    END { exit !found }' packaging/debian/control >&2; then
    exit 1
fi

reuse_version=6.2.0
venv=.build/reuse-venv
if [ "$("$venv/bin/reuse" --version 2>/dev/null | head -1)" != "reuse, version $reuse_version" ]; then
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "reuse==$reuse_version" >&2
fi
"$venv/bin/reuse" lint --lines
