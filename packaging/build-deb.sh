#!/usr/bin/env bash
# Builds the Debian package out/gbgbridge-shell_<version>_<arch>.deb from this source tree.
#
#   packaging/build-deb.sh            release build, package, validate, lintian
#   packaging/build-deb.sh --clean    the same from an empty .build-release
#   packaging/build-deb.sh --build-only  compile the program only (no package, no apt-get)
#   packaging/build-deb.sh --print-resolved  print the release build's resolved Swift packages in the
#                                      format of packaging/resolved-versions.txt
#
# Installs its own Debian build dependencies (only the missing ones). The package is
# reproducible: the Swift packages are the exact versions of packaging/resolved-versions.txt, every
# timestamp comes from the last commit (SOURCE_DATE_EPOCH), and the package is assembled twice and
# the two files are compared byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

package=gbgbridge-shell
app_id=io.gbgbridge.Shell
scratch=.build-release
out=out
work=$out/work

resolved_versions=packaging/resolved-versions.txt
icon_sizes=(16 24 32 48 64 128 256 512)
# The user documentation installed in /usr/share/doc/gbgbridge-shell/docs/ (the manual page lists it).
installed_docs=(headless.md webdriver.md journey-window.md camera.md web-camera.md nfc.md mrz.md wayland.md)

clean=0
build_only=0
print_resolved=0
for arg in "$@"; do
    case "$arg" in
        --clean) clean=1 ;;
        --build-only) build_only=1 ;;
        --print-resolved) print_resolved=1 ;;
        -h | --help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "build-deb.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done

say() { echo "build-deb: $*" >&2; }
fail() { echo "build-deb: error: $*" >&2; exit 1; }

install_build_dependencies() {
    local needed=(
        dpkg-dev fakeroot lintian desktop-file-utils appstream python3 binutils debugedit xz-utils gettext
        librsvg2-bin
        pkg-config libwebkit2gtk-4.1-dev libgtk-3-dev libv4l-dev libpcsclite-dev libssl-dev libopenjp2-7-dev
        libtesseract-dev libopencv-core-dev libopencv-imgproc-dev libopencv-objdetect-dev libopencv-dnn-dev opencv-data
        libzxing-dev
    )
    local missing=() p
    for p in "${needed[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return
    [ "$(id -u)" = 0 ] || fail "missing build dependencies (install as root): ${missing[*]}"
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -o DPkg::Lock::Timeout=600 >/dev/null
    apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}" >/dev/null
}

find_swift() {
    if [ -n "${SWIFT:-}" ]; then echo "$SWIFT"
    elif command -v swift >/dev/null 2>&1; then command -v swift
    elif [ -x /opt/swift/usr/bin/swift ]; then echo /opt/swift/usr/bin/swift
    else fail "no Swift toolchain: put swift on PATH or set SWIFT"
    fi
}

# The Swift packages the build resolved (SwiftPM's workspace state), one per line:
# identity version revision location.
resolved_packages() {
    /usr/bin/python3 - "$scratch/workspace-state.json" <<'PYTHON'
import json, sys
with open(sys.argv[1]) as state:
    dependencies = json.load(state)["object"]["dependencies"]
for dependency in sorted(dependencies, key=lambda d: d["packageRef"]["identity"]):
    checkout = dependency["state"].get("checkoutState", {})
    print(dependency["packageRef"]["identity"], checkout.get("version") or "-", checkout.get("revision") or "-",
          dependency["packageRef"]["location"])
PYTHON
}

# Package.swift accepts ranges; the shipped program is built with the pins of
# packaging/resolved-versions.txt, given to SwiftPM as its Package.resolved (the one in the tree,
# never committed, is put back afterwards) and enforced with --force-resolved-versions.
pin_dependencies() {
    if [ -f Package.resolved ]; then
        cp -p Package.resolved "$scratch/Package.resolved.saved"
        trap 'mv -f "$scratch/Package.resolved.saved" Package.resolved' EXIT
    else
        trap 'rm -f Package.resolved' EXIT
    fi
    /usr/bin/python3 - "$resolved_versions" >Package.resolved <<'PYTHON'
import json, sys
pins = []
with open(sys.argv[1]) as recorded:
    for line in recorded:
        if line.strip() and not line.startswith("#"):
            identity, version, revision, location = line.split()
            pins.append({"identity": identity, "kind": "remoteSourceControl", "location": location,
                         "state": {"revision": revision, "version": version}})
print(json.dumps({"pins": pins, "version": 2}, indent=2))
PYTHON
}

# The build must have used exactly the recorded packages, no more and no fewer.
check_resolved_packages() {
    local recorded resolved
    recorded=$(grep -v -e '^#' -e '^[[:space:]]*$' "$resolved_versions" | LC_ALL=C sort)
    resolved=$(resolved_packages | LC_ALL=C sort)
    if [ "$recorded" != "$resolved" ]; then
        diff <(echo "$recorded") <(echo "$resolved") | sed 's/^/  /' >&2 || true
        fail "the release build resolved other Swift packages than $resolved_versions (< recorded, > resolved); after a deliberate update, write the new pins there (packaging/build-deb.sh --print-resolved)"
    fi
}

build_binary() {
    local swift build_flags
    swift=$(find_swift)
    if [ $clean = 1 ]; then rm -rf "$scratch"; fi
    mkdir -p "$scratch"
    pin_dependencies
    build_flags=(
        -c release --scratch-path "$scratch" --product "$package" --force-resolved-versions
        --static-swift-stdlib --disable-local-rpath
        -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
        # Source paths end up in the program (#fileID, C __FILE__ in assertions); map the
        # checkout's folder away so the bytes do not depend on where the tree was cloned.
        -Xswiftc -file-prefix-map -Xswiftc "$top=."
        -Xcc "-ffile-prefix-map=$top=." -Xcxx "-ffile-prefix-map=$top=."
        # Size. Optimise for size (the hot paths are in WebKit; see docs/packaging.md for the
        # numbers), one section per function and datum so the linker drops what nothing
        # reaches, export no symbols (an exported symbol is never dropped), and let lld fold
        # identical functions.
        -Xswiftc -Osize -Xcc -Os
        -Xswiftc -Xfrontend -Xswiftc -function-sections
        -Xcc -ffunction-sections -Xcc -fdata-sections -Xcxx -ffunction-sections -Xcxx -fdata-sections
        -Xswiftc -use-ld=lld -Xlinker --icf=all -Xlinker --no-export-dynamic
        # Depends: only the libraries the program uses. Tesseract's and WebKitGTK's pkg-config files
        # name libraries (libarchive, libcurl, ATK, ...) that nothing of the program calls.
        -Xswiftc -ld-path="$top/packaging/ld-as-needed"
    )
    local lld
    lld=$(dirname "$swift")/ld.lld
    [ -x "$lld" ] || lld=$(command -v ld.lld) || fail "no ld.lld next to $swift or on PATH"
    export GBGBRIDGE_LLD=$lld
    say "swift build ${build_flags[*]}"
    "$swift" build "${build_flags[@]}" >&2
    binary="$("$swift" build "${build_flags[@]}" --show-bin-path)/$package"
    [ -x "$binary" ] || fail "the build produced no $binary"
    check_resolved_packages
    refuse_icu
}

# The program must stay free of Foundation's internationalisation layer: its ICU data
# alone triples the package. One `import Foundation` anywhere (ours or a dependency's)
# brings it back, so the build stops and says where to look.
refuse_icu() {
    if nm "$binary" | grep -q -E ' icudt[0-9]+_dat$'; then
        fail "$binary links Foundation's ICU data: a module (ours or a dependency's) imports Foundation instead of FoundationEssentials; grep -rn '^import Foundation\$' Sources $scratch/checkouts/*/Sources finds it"
    fi
}

# Strips the program, then writes the man page from the program's own description of its
# options (the same data --help prints), so the two cannot drift apart; every option --help
# lists is checked.
strip_and_generate_manpage() {
    local stripped=$work/$package
    strip --remove-section=.comment --remove-section=.note -o "$stripped" "$binary"
    # .swift_modhash holds the compiler's hashes for incremental code generation; nothing
    # reads them at run time, and they differ from build to build. Zeroing them (in place,
    # so the RELRO layout stays) and recomputing the build ID from the contents makes two
    # clean builds give the same bytes.
    local modhash_size
    modhash_size=$(readelf -S -W "$stripped" | awk '$2 == ".swift_modhash" { print $6 }')
    if [ -n "$modhash_size" ]; then
        head -c $((16#$modhash_size)) /dev/zero >"$work/modhash-zeros"
        objcopy --update-section .swift_modhash="$work/modhash-zeros" "$stripped"
    fi
    debugedit --build-id --build-id-seed="${package}_$version" "$stripped" >/dev/null
    /usr/bin/python3 packaging/gen-manpage.py "$stripped" "$version" packaging/man-extra.roff \
        >"$work/$package.1"
    local option
    sed 's/\\-/-/g' "$work/$package.1" >"$work/$package.1.txt"
    for option in $("$stripped" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
        grep -q -F -- "$option" "$work/$package.1.txt" \
            || fail "the man page does not mention $option from --help"
    done
}

# Lays out the package tree under $1 and builds the .deb $2 from it.
assemble() {
    local root=$1 deb=$2 file
    rm -rf "$root"
    umask 022

    install -D -m 0755 "$work/$package" "$root/usr/bin/$package"
    # The web-process extension (the delivery path, docs/transport.md): where the program looks for it,
    # ../lib/<package>/web-extension from its own directory.
    install -D -m 0644 "$work/web-extension/stripped.so" \
        "$root/usr/lib/$package/web-extension/libgbgbridge-web-extension.so"

    git ls-files -z -- Resources | while IFS= read -r -d '' file; do
        case "$file" in
            Resources/icons/* | Resources/linux/*) ;;
            */README.md)
                local note=${file#Resources/}
                install -D -m 0644 "$file" "$root/usr/share/doc/$package/README.${note%%/*}.md" ;;
            *) install -D -m 0644 "$file" "$root/usr/share/$package/${file#Resources/}" ;;
        esac
    done
    # The OCR-B model is built, not tracked (scripts/build-ocrb-model.sh, run before assembling).
    install -D -m 0644 Resources/ocr/ocrb.traineddata "$root/usr/share/$package/ocr/ocrb.traineddata"
    # Shell completions, written by the option parser itself so they never drift from --help.
    install -d -m 0755 "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
        "$root/usr/share/fish/vendor_completions.d"
    # bash-completion sources the file: no "#!" line (lintian: bash-completion-with-hashbang).
    "$work/$package" --generate-completion-script bash | sed '1{/^#!/d}' \
        >"$root/usr/share/bash-completion/completions/$package"
    "$work/$package" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_$package"
    "$work/$package" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/$package.fish"
    chmod 0644 "$root/usr/share/bash-completion/completions/$package" "$root/usr/share/zsh/vendor-completions/_$package" \
        "$root/usr/share/fish/vendor_completions.d/$package.fish"
    install -D -m 0644 "Resources/linux/$app_id.desktop" "$root/usr/share/applications/$app_id.desktop"
    install -D -m 0644 "Resources/linux/$app_id.metainfo.xml" "$root/usr/share/metainfo/$app_id.metainfo.xml"
    install -D -m 0644 "Resources/icons/$app_id.svg" "$root/usr/share/icons/hicolor/scalable/apps/$app_id.svg"
    local size
    for size in "${icon_sizes[@]}"; do
        install -D -m 0644 "$work/icons/$size.png" "$root/usr/share/icons/hicolor/${size}x$size/apps/$app_id.png"
    done
    # Message catalogues: /usr/share/locale/<lang>/LC_MESSAGES/gbgbridge-shell.mo
    scripts/build-translations.sh "$root/usr/share/locale"
    find "$root/usr/share/locale" -type d -exec chmod 0755 {} + && find "$root/usr/share/locale" -type f -exec chmod 0644 {} +

    install -d -m 0755 "$root/usr/share/man/man1" "$root/usr/share/doc/$package"
    gzip -9 -n -c "$work/$package.1" >"$root/usr/share/man/man1/$package.1.gz"
    install -m 0644 packaging/debian/copyright "$root/usr/share/doc/$package/copyright"
    # The documentation --help and the manual page name as docs/...
    install -d -m 0755 "$root/usr/share/doc/$package/docs"
    for file in "${installed_docs[@]}"; do
        gzip -9 -n -c "docs/$file" >"$root/usr/share/doc/$package/docs/$file.gz"
        chmod 0644 "$root/usr/share/doc/$package/docs/$file.gz"
    done
    gzip -9 -n -c packaging/debian/changelog >"$root/usr/share/doc/$package/changelog.gz"
    install -D -m 0644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/$package"
    chmod 0644 "$root/usr/share/man/man1/$package.1.gz" "$root/usr/share/doc/$package/changelog.gz"

    install -d -m 0755 "$root/DEBIAN"
    (cd packaging && dpkg-gencontrol -p"$package" -ldebian/changelog -cdebian/control \
        -T"$top/$work/substvars" -f"$top/$work/files" -P"$top/$root")
    (cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum >DEBIAN/md5sums)
    chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

    find "$root" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
    dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
}

validate() {
    local deb=$1
    say "desktop-file-validate, appstreamcli validate"
    desktop-file-validate "Resources/linux/$app_id.desktop"
    appstreamcli validate --no-net --explain "Resources/linux/$app_id.metainfo.xml" >&2

    say "lintian --pedantic -I -E"
    local lintian_output
    lintian_output=$(lintian --pedantic -I -E --fail-on error,warning,info,pedantic "$deb" 2>&1 \
        | grep -v -E '^(running with root privileges is not recommended!|N: .*)$' || true)
    printf '%s\n' "$lintian_output" >"$out/lintian.txt"
    if [ -n "$lintian_output" ]; then
        printf '%s\n' "$lintian_output" >&2
        fail "lintian reported the tags above"
    fi
}

# Every file that states the version agrees with VERSION (scripts/release.sh --check), and the
# program built from them says it too.
check_versions() {
    local program
    scripts/release.sh --check
    [ "$(tr -d '[:space:]' <VERSION)" = "$version" ] || fail "VERSION and packaging/debian/changelog differ"
    program=$("$binary" --version | head -n 1 | cut -d' ' -f2)
    [ "$program" = "$version" ] \
        || fail "the program says version $program, VERSION $version (Sources/gbgbridge-shell/ShellVersion.swift)"
}

if [ $print_resolved = 1 ]; then
    [ -f "$scratch/workspace-state.json" ] || fail "no release build in $scratch yet: run packaging/build-deb.sh --build-only"
    resolved_packages
    exit 0
fi
if [ $build_only = 1 ]; then
    build_binary
    exit 0
fi
install_build_dependencies
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
export TZ=UTC LC_ALL=C.UTF-8
version=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
arch=$(dpkg --print-architecture)
deb=$out/${package}_${version}_${arch}.deb

mkdir -p "$work"
build_binary
check_versions
strip_and_generate_manpage
rm -f "$work/substvars"
(cd packaging && dpkg-shlibdeps -T"$top/$work/substvars" -e"$top/$work/$package" 2>&1 \
    | grep -v "binaries to analyze should already be installed" >&2 || true)
grep -q '^shlibs:Depends=' "$work/substvars" || fail "dpkg-shlibdeps found no dependencies"

say "building the web-process extension (scripts/build-web-extension.sh)"
scripts/build-web-extension.sh "$work/web-extension" -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
    "-ffile-prefix-map=$top=." -Wl,-z,relro -Wl,-z,now
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
    -o "$work/web-extension/stripped.so" "$work/web-extension/libgbgbridge-web-extension.so"
say "rendering the icon at ${icon_sizes[*]} pixels (rsvg-convert)"
mkdir -p "$work/icons"
for size in "${icon_sizes[@]}"; do
    rsvg-convert --width "$size" --height "$size" --keep-aspect-ratio --format png \
        --output "$work/icons/$size.png" "Resources/icons/$app_id.svg"
done
say "building the OCR-B model (scripts/build-ocrb-model.sh)"
scripts/build-ocrb-model.sh >&2
say "assembling the package twice"
assemble "$work/root-a" "$work/a.deb"
assemble "$work/root-b" "$work/b.deb"
cmp -s "$work/a.deb" "$work/b.deb" || fail "two assemblies of the package differ: not reproducible"
mv "$work/a.deb" "$deb"
rm -f "$work/b.deb"

validate "$deb"

echo "package:        $deb"
echo "size:           $(stat -c %s "$deb") bytes"
echo "sha256:         $(sha256sum "$deb" | cut -d' ' -f1)"
dpkg-deb -f "$deb" Installed-Size Depends Recommends | sed 's/^/control:        /'
