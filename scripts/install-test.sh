#!/usr/bin/env bash
# Install test of the Debian package on a clean Debian 12 system:
# builds the .deb (packaging/build-deb.sh, which also runs lintian), creates a fresh
# `debootstrap --variant=minbase bookworm` root, installs the package there with
# `apt-get install -y ./<package>.deb`, runs the installed shell headless on the demo
# journey with scripted captures, checks that LANGUAGE=de gives a German message, purges the
# package and checks that none of its files remain. Everything mounted is unmounted again.
#
#   scripts/install-test.sh               build the .deb, then test it
#   scripts/install-test.sh --deb FILE    test an existing .deb
#   scripts/install-test.sh --keep-root   leave the (unmounted) root for inspection
#
# Needs root (debootstrap, chroot, mount). The minbase root and the downloaded packages
# are cached under .cache/debootstrap/ (remove that folder for a cold run).
# Mirror: DEBIAN_MIRROR, else the first Debian mirror in /etc/apt/sources.list*;
# security updates from DEBIAN_SECURITY_MIRROR, else "<mirror>-security".
# Logs, the shell's output and a screenshot of the finished journey go to out/install-test/.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

package=gbgbridge-shell
suite=bookworm
cache=.cache/debootstrap
logs=out/install-test

deb=
keep_root=0
while [ $# -gt 0 ]; do
    case "$1" in
        --deb) deb=${2:?--deb needs a file}; shift ;;
        --keep-root) keep_root=1 ;;
        -h | --help) sed -n '2,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "install-test.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

started=$SECONDS
phase_started=$SECONDS
timings=()
say() { echo "install-test: $*" >&2; }
fail() { echo "install-test: FAILED: $*" >&2; exit 1; }
phase_done() {
    timings+=("$(printf '%-34s %4d s' "$1" $((SECONDS - phase_started)))")
    phase_started=$SECONDS
}

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot and mount)"
for tool in debootstrap chroot mount umount findmnt convert; do
    command -v "$tool" >/dev/null || fail "$tool is not installed"
done

arch=$(dpkg --print-architecture)
mirror=${DEBIAN_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    /etc/apt/sources.list.d/*.sources 2>/dev/null \
    | grep -v '^[[:space:]]*#' | grep -o -E 'https?://[^[:space:]]+/debian/?([[:space:]]|$)' \
    | head -n 1 | tr -d '[:space:]' || true)}
mirror=${mirror%/}
mirror=${mirror:-http://deb.debian.org/debian}
security_mirror=${DEBIAN_SECURITY_MIRROR:-$mirror-security}

mkdir -p "$logs" "$cache/apt-archives/partial"
rm -f "$logs"/*

# 1. The package.
if [ -z "$deb" ]; then
    say "building the package"
    packaging/build-deb.sh | tee "$logs/build-deb.txt"
    deb=$(sed -n 's/^package: *//p' "$logs/build-deb.txt")
    phase_done "build .deb + lintian"
fi
[ -f "$deb" ] || fail "no package file $deb"
deb=$(realpath "$deb")

# 2. A clean root, and everything that must be undone.
root=$(mktemp -d "${TMPDIR:-/var/tmp}/gbgbridge-install-test.XXXXXX")
chmod 0755 "$root"
cleanup() {
    local status=$? pid mount
    set +e
    [ $status = 0 ] || printf '  %s\n' "${timings[@]}" >&2
    for pid in /proc/[0-9]*; do
        [ "$(readlink "$pid/root" 2>/dev/null)" = "$root" ] && kill -KILL "${pid#/proc/}" 2>/dev/null
    done
    for mount in $(findmnt -r -n -o TARGET | grep -F "$root/" | sort -r); do
        umount "$mount" 2>/dev/null || umount -l "$mount"
    done
    if findmnt -r -n -o TARGET | grep -q -F "$root/"; then
        echo "install-test: could not unmount everything under $root; leaving it" >&2
        status=1
    elif [ $keep_root = 1 ]; then
        echo "install-test: root kept at $root" >&2
    else
        rm -rf --one-file-system "$root"
    fi
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tarball=$cache/$suite-minbase-$arch.tar
if [ -f "$tarball" ]; then
    say "unpacking the cached $suite minbase root"
    tar -C "$root" --numeric-owner -xpf "$tarball"
    chmod 0755 "$root"
    phase_done "minbase root from the cache"
else
    say "debootstrap --variant=minbase $suite from $mirror"
    debootstrap --variant=minbase --arch="$arch" "$suite" "$root" "$mirror" >"$logs/debootstrap.txt" 2>&1 \
        || { tail -n 20 "$logs/debootstrap.txt" >&2; fail "debootstrap failed"; }
    tar -C "$root" --numeric-owner -cpf "$tarball.partial" . && mv "$tarball.partial" "$tarball"
    phase_done "debootstrap minbase root"
fi
minbase_size=$(du -s -x -m "$root" | cut -f1)

# What a Debian 12 installation has in its sources, and this host's apt date checks.
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security_mirror $suite-security main
EOF
apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' >"$root/etc/apt/apt.conf.d/99install-test" || true
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"

mount -t proc proc "$root/proc"
mount -t sysfs -o ro sysfs "$root/sys"
mount -t tmpfs -o mode=0755,nosuid devtmpfs "$root/dev"
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
    IFS=: read -r name major minor <<<"$node"
    mknod -m 0666 "$root/dev/$name" c "$major" "$minor"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mkdir -m 0755 "$root/dev/pts"
mkdir -m 1777 "$root/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts "$root/dev/pts"
ln -s pts/ptmx "$root/dev/ptmx"
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
mount --bind "$cache/apt-archives" "$root/var/cache/apt/archives"
chown "$(chroot "$root" id -u _apt)" "$root/var/cache/apt/archives/partial"

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"; }

# 3. Install, the way a user does.
say "apt-get install -y ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
in_root apt-get update >"$logs/apt.txt" 2>&1 || { tail -n 20 "$logs/apt.txt" >&2; fail "apt-get update failed"; }
in_root sh -c "cd /tmp && apt-get install -y -o DPkg::Options::=--force-unsafe-io ./$(basename "$deb")" >>"$logs/apt.txt" 2>&1 \
    || { tail -n 30 "$logs/apt.txt" >&2; fail "apt-get install failed"; }
installed_size=$(du -s -x -m --exclude=./var/cache/apt/archives "$root" | cut -f1)
phase_done "apt-get install (with dependencies)"

# 4. Run the installed shell headless on the demo journey.
fixtures=Tests/ShellTests/Fixtures
for image in document-mrz-td3.png selfie.jpg; do
    [ -f "$fixtures/$image" ] || fail "missing test image $fixtures/$image"
done
install -d -m 0755 "$root/tmp/journey"
# A data page whose machine-readable zone the installed OCR model must read.
install -m 0644 "$fixtures/document-mrz-td3.png" "$root/tmp/journey/document.png"
install -m 0644 "$fixtures/selfie.jpg" "$root/tmp/journey/"
in_root useradd --create-home --shell /bin/sh journey
chown "$(in_root id -u journey):$(in_root id -g journey)" "$root/tmp/journey"

shell_command=(
    "$package" --headless
    --document-image /tmp/journey/document.png --selfie-image /tmp/journey/selfie.jpg
    --exit-on journey.complete --timeout 60
    --message-log /tmp/journey/messages.jsonl --screenshot /tmp/journey/screenshot.png
)
say "running: ${shell_command[*]}"
run_status=0
timeout 180 chroot --userspec=journey:journey "$root" /usr/bin/env -i \
    HOME=/home/journey USER=journey PATH=/usr/bin:/bin LANG=C.UTF-8 \
    DBUS_SESSION_BUS_ADDRESS=disabled: NO_AT_BRIDGE=1 \
    "${shell_command[@]}" >"$logs/shell-stdout.txt" 2>"$logs/shell-stderr.txt" || run_status=$?
cp "$root/tmp/journey/messages.jsonl" "$root/tmp/journey/screenshot.png" "$logs/" 2>/dev/null || true
phase_done "headless demo journey"
if [ $run_status != 0 ]; then
    tail -n 30 "$logs/shell-stderr.txt" >&2
    fail "the installed shell exited with status $run_status (see $logs/shell-stderr.txt)"
fi
head -c 1 "$logs/shell-stdout.txt" | grep -q '{' \
    || fail "the shell finished but printed no journey.complete data on stdout"
grep -q '"outcome":"completed"' "$logs/shell-stdout.txt" \
    || fail "the demo journey did not report outcome completed: $(head -c 300 "$logs/shell-stdout.txt")"
say "journey finished: $(head -c 300 "$logs/shell-stdout.txt")"
grep -q '"mrz":"read"' "$logs/shell-stdout.txt" \
    || fail "the installed shell did not read the data page's machine-readable zone: $(head -c 600 "$logs/shell-stdout.txt")"
# The screenshot shows the finished page: window-sized, and a blank spot of the finish card
# full white (a first run's stalled renderer once left the cards greyed mid-fade).
screenshot_size=$(convert "$logs/screenshot.png" -format '%wx%h' info: 2>&1) \
    || fail "no readable screenshot $logs/screenshot.png: $screenshot_size"
[ "$screenshot_size" = 1280x900 ] || fail "the screenshot is $screenshot_size, not 1280x900"
finish_card=$(convert "$logs/screenshot.png" -crop 1x1+700+720 -depth 8 txt:- 2>&1 | tail -n 1)
case "$finish_card" in
    *"(255,255,255)"*) ;;
    *) fail "the screenshot does not show the finished demo (pixel 700,720: $finish_card)" ;;
esac

# The installed message catalogues: LANGUAGE=de gives German messages.
german_status=0
german=$(chroot --userspec=journey:journey "$root" /usr/bin/env -i HOME=/home/journey PATH=/usr/bin:/bin \
    LANG=C.UTF-8 LANGUAGE=de "$package" --timeout -5 2>&1 >/dev/null) || german_status=$?
printf '%s\n' "$german" >"$logs/shell-german.txt"
[ $german_status = 2 ] || fail "LANGUAGE=de $package --timeout -5 exited with status $german_status, not 2: $german"
case "$german" in
    *"Fehler: --timeout muss eine Anzahl Sekunden"*) say "German message: $german" ;;
    *) fail "LANGUAGE=de $package did not print a German message: $german" ;;
esac
phase_done "German message catalogue"

# The web-process extension (the delivery path): where the program looks for it, and loadable there.
extension=/usr/lib/$package/web-extension/libgbgbridge-web-extension.so
[ -f "$root$extension" ] || fail "no web-process extension $extension in the package"
extension_libraries=$(in_root ldd "$extension" 2>&1) || fail "ldd $extension failed: $extension_libraries"
if grep -q "not found" <<<"$extension_libraries"; then
    fail "the web-process extension needs libraries the package does not bring: $extension_libraries"
fi
grep -q libswift <<<"$extension_libraries" && fail "the web-process extension links the Swift runtime"
phase_done "web-process extension"

# Shell completions for bash, zsh and fish, written by the option parser.
for completion in "/usr/share/bash-completion/completions/$package" "/usr/share/zsh/vendor-completions/_$package" \
    "/usr/share/fish/vendor_completions.d/$package.fish"; do
    [ -s "$root$completion" ] || fail "no shell completion $completion in the package"
    grep -q -- "message-log" "$root$completion" || fail "$completion does not offer --message-log"
done
phase_done "shell completions"

# 5. Purge, and check that nothing of the package is left.
in_root dpkg-query -L "$package" >"$logs/package-files.txt"
in_root dpkg --purge "$package" >>"$logs/apt.txt" 2>&1 || fail "dpkg --purge failed"
left=()
while IFS= read -r path; do
    case "$path" in
        "/usr/share/$package" | "/usr/share/$package/"* | "/usr/share/doc/$package" | "/usr/share/doc/$package/"*)
            [ -e "$root$path" ] && left+=("$path") ;;
        *) [ -e "$root$path" ] && [ ! -d "$root$path" ] && left+=("$path") ;;
    esac
done <"$logs/package-files.txt"
[ ${#left[@]} = 0 ] || fail "left behind after dpkg --purge: ${left[*]}"
in_root dpkg-query -W "$package" >/dev/null 2>&1 && fail "dpkg still knows $package after the purge"
phase_done "dpkg --purge and leftover check"

echo "install test passed"
printf '  %s\n' "${timings[@]}"
echo "  total                              $((SECONDS - started)) s"
echo "  .deb size                          $(stat -c %s "$deb") bytes"
echo "  Installed-Size                     $(dpkg-deb -f "$deb" Installed-Size) KiB"
echo "  minbase root                       $minbase_size MB"
echo "  root with the package installed    $installed_size MB"
