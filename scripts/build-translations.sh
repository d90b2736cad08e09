#!/usr/bin/env bash
# Compiles each po/<lang>.po named in po/LINGUAS to OUTDIR/<lang>/LC_MESSAGES/gbgbridge-shell.mo.
#
#   scripts/build-translations.sh OUTDIR
#
# A development build looks for its catalogues in <executable dir>/locale, so after
# `swift build` run: scripts/build-translations.sh "$(swift build --show-bin-path)/locale".
# Each file is written to a temporary name and renamed, so parallel runs never see half a file.
set -euo pipefail
out=${1:?usage: build-translations.sh OUTDIR}
cd "$(dirname "$0")/.."
command -v msgfmt >/dev/null || { echo "build-translations.sh: msgfmt is missing (apt-get install gettext)" >&2; exit 1; }
case "$out" in /*) ;; *) out=$OLDPWD/$out ;; esac

domain=gbgbridge-shell
for lang in $(sed -e 's/#.*//' po/LINGUAS); do
    dir=$out/$lang/LC_MESSAGES
    mkdir -p "$dir"
    msgfmt --check -o "$dir/.$domain.mo.$$" "po/$lang.po"
    mv -f "$dir/.$domain.mo.$$" "$dir/$domain.mo"
done
