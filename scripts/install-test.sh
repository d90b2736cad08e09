#!/usr/bin/env bash
# Install test of the Debian package on a clean Debian 12 system:
# builds the .deb (packaging/build-deb.sh, which also runs lintian), creates a fresh
# `debootstrap --variant=minbase bookworm` root, publishes the package in a signed apt repository
# (packaging/apt-repo.sh, reprepro) and installs it there as a fleet does (the repository's key in
# /etc/apt/keyrings, `apt-get install gbgbridge-shell`), runs the installed shell headless on the
# demo journey with scripted captures, checks that LANGUAGE=de gives a German message; then
# publishes a newer version and checks that `apt-get upgrade` brings it, and that neither a
# repository rolled back to the older version, nor the older package published again, nor indexes
# signed by another key take the machine back; purges the package and checks that none of its files
# remain. Everything mounted is unmounted again.
#
#   scripts/install-test.sh               build the .deb, then test it
#   scripts/install-test.sh --deb FILE    test an existing .deb
#   scripts/install-test.sh --keep-root   leave the (unmounted) root for inspection
#   scripts/install-test.sh --deb FILE --repository-only   only install, upgrade and purge
#                                          (for any package named gbgbridge-shell)
#
# Needs root (debootstrap, chroot, mount). The minbase root and the downloaded packages
# are cached under .cache/debootstrap/ (remove that folder for a cold run).
# Mirror: DEBIAN_MIRROR, else the first Debian mirror in /etc/apt/sources.list*;
# security updates from DEBIAN_SECURITY_MIRROR, else "<mirror>-security".
# Logs, the shell's output and a screenshot of the finished journey go to out/install-test/.
# The checks are a Python unittest program, Tests/InstallTest/test_install.py (the root, its mounts
# and the repositories in debian_root.py); this script builds the package when needed and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
logs=out/install-test

deb=
keep_root=0
repository_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --deb) deb=${2:?--deb needs a file}; shift ;;
        --keep-root) keep_root=1 ;;
        --repository-only) repository_only=1 ;;
        -h | --help) sed -n '2,29s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "install-test.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

[ "$(id -u)" = 0 ] || { echo "install-test: FAILED: needs root (debootstrap, chroot and mount)" >&2; exit 1; }
mkdir -p "$logs"
rm -f "$logs"/*
if [ -z "$deb" ]; then
    echo "install-test: building the package" >&2
    packaging/build-deb.sh | tee "$logs/build-deb.txt"
    deb=$(sed -n 's/^package: *//p' "$logs/build-deb.txt")
fi
[ -f "$deb" ] || { echo "install-test: FAILED: no package file $deb" >&2; exit 1; }
export INSTALL_TEST_DEB="$(realpath "$deb")" INSTALL_TEST_KEEP_ROOT=$keep_root INSTALL_TEST_REPOSITORY_ONLY=$repository_only
cd Tests/InstallTest
exec /usr/bin/python3 -m unittest -v test_install
