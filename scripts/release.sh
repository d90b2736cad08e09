#!/usr/bin/env bash
# Makes a release of the version in VERSION: checks the tree, builds the Debian package, tags the
# commit and writes the release notes.
#
#   scripts/release.sh                  check, build the .deb, tag, write out/release/<version>/
#   scripts/release.sh --no-packages    check, tag and write the notes, build nothing
#   scripts/release.sh --check          only check that every place agrees on the version
#   scripts/release.sh --sign           make a GPG-signed tag (git tag -s) instead of an annotated one
#
# The checks: the working tree is clean (no changes, no untracked files); VERSION is a semantic
# version (MAJOR.MINOR.PATCH) above every existing version tag; the program
# (Sources/gbgbridge-shell/ShellVersion.swift), packaging/debian/changelog and the newest release of
# the metainfo say the same version; CHANGELOG.md has a dated section for it with at least one entry;
# the dependency line of README.md and Examples/Package.swift reaches it.
# The tag is the bare version (0.2.0), the form SwiftPM resolves `from:` requirements against.
# The notes (notes.md: the version's CHANGELOG.md section) and, with packages, the .deb and its
# SHA256SUMS go to out/release/<version>/. Nothing is pushed: `git push origin <version>` publishes it.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=release
build_packages=1
sign=0
for arg in "$@"; do
    case "$arg" in
        --check) mode=check ;;
        --no-packages) build_packages=0 ;;
        --sign) sign=1 ;;
        -h | --help) sed -n '2,18s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "release.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done

say() { echo "release: $*" >&2; }
fail() { echo "release: error: $*" >&2; exit 1; }

app_id=io.gbgbridge.Shell
[ -f VERSION ] || fail "no VERSION file"
version=$(tr -d '[:space:]' <VERSION)
[[ $version =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] \
    || fail "VERSION says '$version', not a semantic version MAJOR.MINOR.PATCH"

# Every place that states the version, each checked against VERSION.
check_versions() {
    local program debian metainfo
    program=$(sed -n 's/^ *static let current = "\([^"]*\)".*/\1/p' Sources/gbgbridge-shell/ShellVersion.swift)
    [ "$program" = "$version" ] \
        || fail "Sources/gbgbridge-shell/ShellVersion.swift says '$program', VERSION says $version"
    debian=$(sed -n '1s/^[a-z0-9.+-]* (\([^)]*\)).*/\1/p' packaging/debian/changelog)
    [ "$debian" = "$version" ] \
        || fail "the newest entry of packaging/debian/changelog is '$debian', VERSION says $version"
    metainfo=$(grep -o -m 1 '<release version="[^"]*"' "Resources/linux/$app_id.metainfo.xml" | cut -d'"' -f2)
    [ "$metainfo" = "$version" ] \
        || fail "the newest release in Resources/linux/$app_id.metainfo.xml is '$metainfo', VERSION says $version"
    grep -q -E "^## \[$version\] - [0-9]{4}-[0-9]{2}-[0-9]{2}\$" CHANGELOG.md \
        || fail "CHANGELOG.md has no section '## [$version] - YYYY-MM-DD'"
    [ -n "$(release_notes)" ] || fail "CHANGELOG.md's section for $version lists no changes"
    # What embedders are told to write, in the README and the examples, reaches this version.
    local file requirement
    for file in README.md Examples/Package.swift; do
        requirement=$(grep -o -m 1 'upToNextMinor(from: "[^"]*")' "$file" | cut -d'"' -f2 || true)
        [ "${requirement%.*}" = "${version%.*}" ] \
            || fail "$file asks for .upToNextMinor(from: \"$requirement\"), which does not reach $version"
    done
}

# The version's section of CHANGELOG.md, without its heading.
release_notes() {
    awk -v heading="## [$version] - " '
        index($0, heading) == 1 { inside = 1; next }
        inside && /^## / { exit }
        inside && /^\[[^]]*\]: / { exit }
        inside { print }
    ' CHANGELOG.md | sed -e '/./,$!d' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

check_versions
say "VERSION, ShellVersion.swift, packaging/debian/changelog, the metainfo, CHANGELOG.md, README.md and Examples/ agree on $version"
[ $mode = check ] && exit 0

[ -z "$(git status --porcelain --untracked-files=normal)" ] \
    || fail "the working tree has changes or untracked files (git status); a release is made from a commit"
if git rev-parse -q --verify "refs/tags/$version" >/dev/null; then
    fail "the tag $version exists already (on $(git rev-parse --short "$version^{commit}"))"
fi
newest=$(git tag --list | grep -E '^v?[0-9]+\.[0-9]+\.[0-9]+$' | sed 's/^v//' | sort -V | tail -n 1 || true)
if [ -n "$newest" ] && [ "$(printf '%s\n%s\n' "$newest" "$version" | sort -V | tail -n 1)" != "$version" ]; then
    fail "$version is not above the newest version tag $newest"
fi

out=out/release/$version
rm -rf "$out"
mkdir -p "$out"
if [ $build_packages = 1 ]; then
    say "building the Debian package (packaging/build-deb.sh)"
    packaging/build-deb.sh | tee "$out/build-deb.txt"
    deb=$(sed -n 's/^package: *//p' "$out/build-deb.txt")
    [ -f "$deb" ] || fail "packaging/build-deb.sh made no package"
    cp "$deb" "$out/"
    (cd "$out" && sha256sum -- *.deb >SHA256SUMS)
fi

{
    echo "# GBG Bridge for Linux $version"
    echo
    release_notes
} >"$out/notes.md"

tag_flags=(-a)
[ $sign = 1 ] && tag_flags=(-s)
git tag "${tag_flags[@]}" -F "$out/notes.md" "$version"
say "tagged $(git rev-parse --short HEAD) as $version; notes in $out/notes.md"
[ $build_packages = 1 ] && say "package and SHA256SUMS in $out/"
say "publish with: git push origin $version"
