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
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

package=gbgbridge-shell
suite=bookworm
cache=.cache/debootstrap
logs=out/install-test

deb=
keep_root=0
repository_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --deb) deb=${2:?--deb needs a file}; shift ;;
        --keep-root) keep_root=1 ;;
        --repository-only) repository_only=1 ;;
        -h | --help) sed -n '2,27s/^# \{0,1\}//p' "$0"; exit 0 ;;
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
for tool in debootstrap chroot mount umount findmnt convert reprepro gpg; do
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
# The organisation's side: its signing key and repository, outside the root.
archive=$(mktemp -d "${TMPDIR:-/var/tmp}/gbgbridge-archive.XXXXXX")
cleanup() {
    local status=$? pid mount
    set +e
    gpgconf --homedir "$archive/gnupg" --kill all 2>/dev/null
    rm -rf "$archive"
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

# 3. Install, the way a fleet does: from the organisation's signed repository.
version=$(dpkg-deb -f "$deb" Version)
export GNUPGHOME=$archive/gnupg
install -d -m 0700 "$GNUPGHOME"
archive_key() { # NAME: a new signing key; prints its fingerprint
    gpg --batch --passphrase '' --quick-gen-key "$1 <archive@gbgbridge.invalid>" ed25519 sign 1d 2>/dev/null
    gpg --batch --with-colons --list-secret-keys -- "$1" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }'
}
repository=$archive/repository
packaging/apt-repo.sh init "$repository" "$(archive_key "GBG Bridge test archive")" 2>>"$logs/apt-repo.txt" \
    || fail "packaging/apt-repo.sh init failed: $(tail -n 5 "$logs/apt-repo.txt")"
packaging/apt-repo.sh publish "$repository" "$deb" 2>>"$logs/apt-repo.txt" \
    || fail "packaging/apt-repo.sh publish failed: $(tail -n 5 "$logs/apt-repo.txt")"
# What the root's web server would serve, copied in as a file: repository.
serve() { rm -rf "$root/srv/gbgbridge-apt" && cp -a "$1" "$root/srv/gbgbridge-apt"; }
serve "$repository/public"
cp -a "$repository/public" "$archive/first-publication"
install -D -m 0644 "$repository/public/gbgbridge-archive-keyring.gpg" "$root/etc/apt/keyrings/gbgbridge.gpg"
echo "deb [signed-by=/etc/apt/keyrings/gbgbridge.gpg] file:/srv/gbgbridge-apt bookworm main" \
    >"$root/etc/apt/sources.list.d/gbgbridge.list"
apt_log() { # STEP COMMAND...: runs an apt command in the root, its output appended to apt.txt
    local step=$1
    shift
    echo "### $step" >>"$logs/apt.txt"
    in_root "$@" >>"$logs/apt.txt" 2>&1
}
# Later updates read the organisation's source only (Debian's indexes are fresh from the install).
repository_only_update=(-o Dir::Etc::SourceList=/etc/apt/sources.list.d/gbgbridge.list -o Dir::Etc::SourceParts=-
    -o APT::Get::List-Cleanup=0)
installed_version() { in_root dpkg-query -W -f='${Version}' "$package" 2>/dev/null || true; }
say "apt-get install -y $package from the signed repository"
apt_log "apt-get update" apt-get update || { tail -n 20 "$logs/apt.txt" >&2; fail "apt-get update failed"; }
apt_log "apt-get install" apt-get install -y -o DPkg::Options::=--force-unsafe-io "$package" \
    || { tail -n 30 "$logs/apt.txt" >&2; fail "apt-get install failed"; }
[ "$(installed_version)" = "$version" ] || fail "apt installed $package $(installed_version), not $version"
in_root apt-cache policy "$package" | grep -q -F "file:/srv/gbgbridge-apt bookworm/main" \
    || fail "apt-cache policy does not show $package coming from the repository: $(in_root apt-cache policy "$package")"
installed_size=$(du -s -x -m --exclude=./var/cache/apt/archives "$root" | cut -f1)
phase_done "apt-get install from the repository"

# 4. Run the installed shell headless on the demo journey.
if [ $repository_only = 0 ]; then
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
fi

# 5. Upgrades come from the repository, and nothing takes the machine back.
newer_version=$version+upgrade.test
repack() { # DEB VERSION OUTPUT: the same package under another version
    local tree=$archive/repack
    rm -rf "$tree"
    dpkg-deb -R "$1" "$tree"
    sed -i "s/^Version: .*/Version: $2/" "$tree/DEBIAN/control"
    dpkg-deb --root-owner-group -Zxz -b "$tree" "$3" >/dev/null
}
repack "$deb" "$newer_version" "$archive/${package}_${newer_version}_$arch.deb"
packaging/apt-repo.sh publish "$repository" "$archive/${package}_${newer_version}_$arch.deb" 2>>"$logs/apt-repo.txt" \
    || fail "publishing $newer_version failed: $(tail -n 5 "$logs/apt-repo.txt")"
serve "$repository/public"
say "apt-get update && apt-get upgrade -y: $version to $newer_version"
apt_log "apt-get update (newer version)" apt-get update "${repository_only_update[@]}" || { tail -n 20 "$logs/apt.txt" >&2; fail "apt-get update failed"; }
apt_log "apt-get upgrade" apt-get upgrade -y -o DPkg::Options::=--force-unsafe-io \
    || { tail -n 30 "$logs/apt.txt" >&2; fail "apt-get upgrade failed"; }
[ "$(installed_version)" = "$newer_version" ] \
    || fail "apt-get upgrade left $package at $(installed_version), not $newer_version"
phase_done "apt-get upgrade from the repository"

# The older package published again: the repository refuses it.
if packaging/apt-repo.sh publish "$repository" "$deb" 2>>"$logs/apt-repo.txt"; then
    fail "packaging/apt-repo.sh published $version over $newer_version"
fi
# The repository as it was before the upgrade (old, validly signed indexes, as a stale mirror or an
# attacker replays them): apt keeps the newer installed version.
serve "$archive/first-publication"
apt_log "apt-get update (rolled back repository)" apt-get update "${repository_only_update[@]}" || true
apt_log "apt-get upgrade (rolled back repository)" apt-get upgrade -y || true
[ "$(installed_version)" = "$newer_version" ] \
    || fail "a rolled-back repository took $package from $newer_version to $(installed_version)"
# Indexes signed by a key the machine does not trust: apt refuses them, and what they offer.
intruder_version=$version+zz.intruder
repack "$deb" "$intruder_version" "$archive/intruder.deb"
packaging/apt-repo.sh init "$archive/intruder" "$(archive_key "Intruder")" 2>>"$logs/apt-repo.txt" \
    && packaging/apt-repo.sh publish "$archive/intruder" "$archive/intruder.deb" 2>>"$logs/apt-repo.txt" \
    || fail "could not make the intruder's repository: $(tail -n 5 "$logs/apt-repo.txt")"
serve "$archive/intruder/public"
intruder_update=$(in_root apt-get update "${repository_only_update[@]}" 2>&1 || true)
printf '### apt-get update (another key)\n%s\n' "$intruder_update" >>"$logs/apt.txt"
grep -q -E "NO_PUBKEY|is not signed|signatures couldn't be verified" <<<"$intruder_update" \
    || fail "apt-get update did not refuse indexes signed by a key the machine does not trust: $intruder_update"
apt_log "apt-get upgrade (another key)" apt-get upgrade -y || true
[ "$(installed_version)" = "$newer_version" ] \
    || fail "indexes signed by another key took $package to $(installed_version)"
in_root apt-cache policy "$package" | grep -q -F "$intruder_version" \
    && fail "apt offers $intruder_version from indexes signed by another key"
serve "$repository/public"
apt_log "apt-get update (back to the repository)" apt-get update "${repository_only_update[@]}" || fail "apt-get update failed"
phase_done "downgrade and foreign-key refusals"

# 6. Purge, and check that nothing of the package is left.
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
