#!/usr/bin/env bash
# A signed apt repository of gbgbridge-shell, made with reprepro, for organisations that install and
# upgrade the program on many machines with apt.
#
#   packaging/apt-repo.sh init DIR KEY         a new repository in DIR whose indexes KEY signs
#   packaging/apt-repo.sh publish DIR DEB...   adds packages (each must be newer than what DIR has)
#   packaging/apt-repo.sh list DIR             the packages DIR serves
#
# KEY is a GnuPG key id or fingerprint whose secret key is in the keyring (GNUPGHOME as usual).
# `init` writes DIR/conf/ (reprepro's configuration, keep it with the repository's sources) and the
# public key as DIR/public/gbgbridge-archive-keyring.gpg; DIR/public/ is what a web server serves.
# Clients add it with:
#
#   sudo install -D -m 0644 gbgbridge-archive-keyring.gpg /etc/apt/keyrings/gbgbridge.gpg
#   echo "deb [signed-by=/etc/apt/keyrings/gbgbridge.gpg] https://apt.example.org/gbgbridge bookworm main" \
#       | sudo tee /etc/apt/sources.list.d/gbgbridge.list
#   sudo apt-get update && sudo apt-get install gbgbridge-shell
#
# The indexes are valid for REPO_VALID_FOR (default 30d) after each publish: a mirror or attacker
# that keeps serving old (validly signed) indexes is refused by apt once they expire, so publish
# (or `reprepro -b DIR export`) again within that time. See docs/packaging.md.
set -euo pipefail

codename=bookworm
package=gbgbridge-shell
say() { echo "apt-repo: $*" >&2; }
fail() { echo "apt-repo: error: $*" >&2; exit 1; }
usage() { sed -n '2,8s/^# \{0,1\}//p' "$0"; }

command -v reprepro >/dev/null || fail "reprepro is not installed (apt-get install reprepro)"
command -v gpg >/dev/null || fail "gpg is not installed (apt-get install gnupg)"

[ $# -ge 1 ] || { usage >&2; exit 2; }
action=$1
shift

repository() {
    reprepro --basedir "$dir" --outdir "$dir/public" --silent "$@"
}

case "$action" in
    init)
        [ $# = 2 ] || { usage >&2; exit 2; }
        dir=$1 key=$2
        [ ! -e "$dir/conf/distributions" ] || fail "$dir already has a repository"
        fingerprint=$(gpg --batch --with-colons --list-secret-keys -- "$key" 2>/dev/null \
            | awk -F: '$1 == "fpr" { print $10; exit }')
        [ -n "$fingerprint" ] || fail "no secret key $key in the keyring (GNUPGHOME=${GNUPGHOME:-~/.gnupg})"
        mkdir -p "$dir/conf" "$dir/public"
        cat >"$dir/conf/distributions" <<EOF
Origin: GBG Bridge for Linux
Label: GBG Bridge for Linux
Suite: stable
Codename: $codename
Architectures: amd64
Components: main
Description: gbgbridge-shell, the desktop host for identity-verification web journeys
SignWith: $fingerprint
ValidFor: ${REPO_VALID_FOR:-30d}
EOF
        gpg --batch --export -- "$fingerprint" >"$dir/public/gbgbridge-archive-keyring.gpg"
        [ -s "$dir/public/gbgbridge-archive-keyring.gpg" ] || fail "could not export the public key"
        repository export "$codename"
        say "repository in $dir, signed by $fingerprint; serve $dir/public/"
        ;;
    publish)
        [ $# -ge 2 ] || { usage >&2; exit 2; }
        dir=$1
        shift
        [ -f "$dir/conf/distributions" ] || fail "$dir has no repository (packaging/apt-repo.sh init)"
        for deb in "$@"; do
            [ -f "$deb" ] || fail "no package file $deb"
            name=$(dpkg-deb -f "$deb" Package)
            version=$(dpkg-deb -f "$deb" Version)
            [ "$name" = "$package" ] || fail "$deb is $name, not $package"
            current=$(repository --list-format '${version}\n' list "$codename" "$package" | head -n 1)
            if [ -n "$current" ] && ! dpkg --compare-versions "$version" gt "$current"; then
                fail "$deb is version $version, not newer than the published $current: a repository never goes back"
            fi
            repository includedeb "$codename" "$deb"
            say "published $name $version${current:+ (was $current)}"
        done
        ;;
    list)
        [ $# = 1 ] || { usage >&2; exit 2; }
        dir=$1
        repository list "$codename"
        ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
esac
