#!/usr/bin/env bash
# WebDriver sessions in parallel on this machine (1, 2 and 4 by default): session start time and
# journeys per minute, each session driving the demo journey to the end. Prints numbers, asserts
# nothing; the results are recorded in docs/webdriver.md. Uses the venv of scripts/webdriver-test.sh.
#   scripts/webdriver-bench.sh [--levels 1,2,4] [--journeys 3]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin" PYTHONDONTWRITEBYTECODE=1
venv=.build/webdriver-venv
[ -x "$venv/bin/python" ] || { echo "webdriver-bench: run scripts/webdriver-test.sh once first (it makes $venv)" >&2; exit 1; }
swift build -c release --product gbgbridge-shell >&2
exec "$venv/bin/python" Benchmarks/webdriver/bench.py "$(swift build -c release --show-bin-path)/gbgbridge-shell" "$@"
