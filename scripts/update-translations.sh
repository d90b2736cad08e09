#!/usr/bin/env bash
# Extracts every tr("...") string of Sources/ into po/gbgbridge-shell.pot, then merges the
# template into each language's po/<lang>.po (new strings appear untranslated, changed ones
# fuzzy). Run it after changing user-facing text, then translate what it reports.
#
#   scripts/update-translations.sh            update the template and every .po
#   scripts/update-translations.sh --check    only check that the template is up to date (exit 1 if not)
set -euo pipefail
cd "$(dirname "$0")/.."

domain=gbgbridge-shell
template=po/$domain.pot

check=0
for arg in "$@"; do
    case "$arg" in
        --check) check=1 ;;
        -h | --help) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "update-translations.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done
command -v xgettext >/dev/null || { echo "update-translations.sh: xgettext is missing (apt-get install gettext)" >&2; exit 1; }

# Swift is close enough to C for xgettext as long as tr() gets a plain one-line literal.
# No date and no line numbers: the template changes only when the strings do.
extract() {
    echo "# Messages of GBG Bridge for Linux (gbgbridge-shell and its journey window)."
    echo "# Made by scripts/update-translations.sh from Sources/; do not edit by hand."
    git ls-files -z --cached --others --exclude-standard -- 'Sources/*.swift' 'Sources/**/*.swift' \
        | LC_ALL=C sort -z \
        | xargs -0 xgettext --language=C --keyword= --keyword=tr --from-code=UTF-8 --add-location=file \
            --sort-by-file --no-wrap --package-name="$domain" --msgid-bugs-address=none \
            --copyright-holder= -o - 2>"$warnings" \
        | sed -e '/^"POT-Creation-Date: /d' -e '1,/^#,/{/^# /d;/^#$/d}'
    # Multi-line and raw Swift literals confuse the C scanner; they are never inside tr().
    grep -v -E 'warning: unterminated (string literal|character constant)' "$warnings" >&2 || true
}

fresh=$(mktemp)
warnings=$(mktemp)
trap 'rm -f "$fresh" "$warnings"' EXIT
extract >"$fresh"
[ -s "$fresh" ] || { echo "update-translations.sh: xgettext found no strings" >&2; exit 1; }

if [ $check = 1 ]; then
    if ! cmp -s "$fresh" "$template"; then
        diff -u "$template" "$fresh" | head -n 40 >&2 || true
        echo "translations: $template is out of date with Sources/; run scripts/update-translations.sh and translate the new strings" >&2
        exit 1
    fi
    exit 0
fi

cp "$fresh" "$template"
for po in po/*.po; do
    [ -e "$po" ] || continue
    msgmerge --quiet --update --backup=none --no-wrap --add-location=file --sort-by-file "$po" "$template"
    printf '%s: ' "$po" >&2
    msgfmt --check --statistics -o /dev/null "$po"
done
