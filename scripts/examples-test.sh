#!/usr/bin/env bash
# The path an embedder takes, from a tag: clones the current commit into a scratch folder, makes the
# release tag there with scripts/release.sh --no-packages (so its checks run too), then builds the
# programs of Examples/ against that clone by version (GBGBRIDGE_PACKAGE_URL=file://..., the
# examples' `.upToNextMinor(from:)` requirement) and the web-process extension from the dependency's
# checkout, runs the headless core example, and checks that the journey window example refuses a
# missing URL before it opens anything.
#
#   scripts/examples-test.sh
#
# Only committed changes are tested (the clone is of HEAD). The examples' build folder,
# .build-examples/, is kept between runs, so a second run compiles only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
export PATH="$PATH:/opt/swift/usr/bin"

say() { echo "examples-test: $*" >&2; }
fail() { echo "examples-test: FAILED: $*" >&2; exit 1; }

[ -z "$(git status --porcelain --untracked-files=no)" ] \
    || say "the working tree has uncommitted changes; only the commit $(git rev-parse --short HEAD) is tested"

scratch=$top/.build-examples
# A fixed place, so the package's location (and with it SwiftPM's checkout and build folders) stays
# the same from run to run.
origin=$scratch/origin/gbgbridge-linux
rm -rf "$origin"
mkdir -p "$(dirname "$origin")"
git clone --quiet --no-checkout "$top" "$origin"
# Exactly this commit, even when it is a detached HEAD no branch reaches (as in CI).
git -C "$origin" fetch --quiet "$top" HEAD
git -C "$origin" checkout --quiet --detach FETCH_HEAD
git -C "$origin" config user.name "GBG Bridge release test"
git -C "$origin" config user.email "release-test@gbgbridge.invalid"
version=$(tr -d '[:space:]' <"$origin/VERSION")
# The version may be tagged already where this tree came from; the test makes the tag itself.
git -C "$origin" tag -d "$version" >/dev/null 2>&1 || true

say "scripts/release.sh --no-packages in a scratch clone"
(cd "$origin" && scripts/release.sh --no-packages) || fail "scripts/release.sh refused to tag the clone"
git -C "$origin" rev-parse -q --verify "refs/tags/$version" >/dev/null || fail "no tag $version in the clone"

export GBGBRIDGE_PACKAGE_URL="file://$origin"
examples=(--package-path "$origin/Examples" --scratch-path "$scratch/build")
say "resolving Examples/ against $GBGBRIDGE_PACKAGE_URL by version"
swift package "${examples[@]}" resolve >&2
resolved=$(swift package "${examples[@]}" show-dependencies --format json)
resolved_version=$(/usr/bin/python3 -c '
import json, sys
tree = json.loads(sys.stdin.read())
for dependency in tree["dependencies"]:
    if dependency["identity"] == "gbgbridge-linux":
        print(dependency["version"])
' <<<"$resolved")
[ "$resolved_version" = "$version" ] \
    || fail "Examples/ resolved gbgbridge-linux at '$resolved_version', not the tag $version"
say "resolved gbgbridge-linux $resolved_version"

say "building the examples"
swift build "${examples[@]}" >&2
bin=$(swift build "${examples[@]}" --show-bin-path)

# The web-process extension, built from the dependency's checkout the way the README says, lands where
# the journey window looks for it.
"$scratch/build/checkouts/gbgbridge-linux/scripts/build-web-extension.sh" "$(dirname "$bin")/web-extension"
[ -f "$bin/../web-extension/libgbgbridge-web-extension.so" ] \
    || fail "the web-process extension is not at $bin/../web-extension"

say "running headless-core"
"$bin/headless-core" || fail "headless-core exited with status $?"

status=0
usage=$("$bin/journey-window" 2>&1) || status=$?
[ $status = 2 ] || fail "journey-window without a URL exited with status $status, not 2: $usage"
case "$usage" in
    *"usage: journey-window URL"*) ;;
    *) fail "journey-window without a URL printed no usage: $usage" ;;
esac
say "passed: release tag $version, examples built against it, headless-core answered every request"
