#!/usr/bin/env bash
# The shell as a WebDriver browser: Selenium (Python, from PyPI) drives the bundled demo journey
# through Debian's WebKitWebDriver and gbgbridge-shell --automation, under Xvfb
# (Tests/WebDriver: every step with the test-pattern camera, cancelled captures, session start, the
# chip step typed by keyboard against the virtual passport (root: it needs a private pcscd); each
# test checks that no shell or WebKit process outlives its session).
#   scripts/webdriver-test.sh [--no-build] [pytest arguments...]
# Installs webkit2gtk-driver and python3-venv when missing, and keeps the venv in .build/webdriver-venv.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

build=1
if [ "${1:-}" = --no-build ]; then build=0; shift; fi

# The chip step's test reads the virtual passport (Tests/NFCEndToEnd) behind a private pcscd.
. scripts/lib/packages.sh
ensure_packages webdriver-test webkit2gtk-driver python3-venv "${XVFB_PACKAGES[@]}" "${VIRTUAL_PASSPORT_PACKAGES[@]}"

venv=.build/webdriver-venv
if [ ! -x "$venv/bin/pytest" ]; then
    echo "webdriver-test: making $venv (selenium, pytest from PyPI)" >&2
    # Debian's python3 with its venv module, not another python3 earlier on PATH.
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "selenium>=4.20,<5" "pytest>=7"
fi

bin="$(swift build --show-bin-path)"
if [ $build = 1 ]; then swift build --product gbgbridge-shell >&2 && scripts/build-web-extension.sh "$bin/../web-extension"; fi
[ -x "$bin/gbgbridge-shell" ] || { echo "webdriver-test: no $bin/gbgbridge-shell (build it first)" >&2; exit 1; }

export GBGBRIDGE_SHELL="$bin/gbgbridge-shell"
export PYTHONDONTWRITEBYTECODE=1
export WEBDRIVER_ARTIFACTS="$PWD/.build/webdriver-artifacts"
DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1 xvfb-run -a -s "-screen 0 1280x1024x24" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir Tests/WebDriver Tests/WebDriver "$@"
