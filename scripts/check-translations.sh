#!/usr/bin/env bash
# Fails when a translation is missing: the template po/gbgbridge-shell.pot is out of date with
# the tr() strings in Sources/, a message or label is written without tr(), a language in
# po/LINGUAS has no .po, or a catalogue has untranslated, fuzzy or obsolete entries or does
# not pass `msgfmt --check`. Fast (no build).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v msgfmt >/dev/null || { echo "check-translations.sh: msgfmt is missing (apt-get install gettext)" >&2; exit 1; }

status=0
scripts/update-translations.sh --check || status=1

# Text for a person written as a bare literal where tr() belongs (messages, errors, labels), in
# the code whose text is fully translated (add a folder here once its strings are wrapped).
# A line that is meant to stay English says why with "// untranslated: <reason>", at its end or
# on the line above it.
translated_code=(Sources/gbgbridge-shell Sources/GBGBridgeGTK/Window Sources/GBGBridgeGTK/Transport/LoadFailureClassifier.swift Sources/GBGBridgeCapture Sources/Cameras)
unwrapped=$(find "${translated_code[@]}" -name '*.swift' -print0 | sort -z | xargs -0 awk '
    FNR == 1 { previous = "" }
    /(\.usage|ValidationError|Error\(description:|showNotice|ShellOutput\.(note|error|warning)|gtk_label_new|gtk_label_set_text|gtk_button_new_with_(mnemonic|label)|gtk_window_set_title|gtk_dialog_add_button|message:|reason:)\(? ?"[A-Za-z]/ \
        && $0 !~ /\/\/ untranslated:/ && previous !~ /^[ \t]*\/\/ untranslated:/ { print FILENAME ":" FNR ":" $0 }
    { previous = $0 }')
if [ -n "$unwrapped" ]; then
    printf '%s\n' "$unwrapped" >&2
    echo "translations: the lines above show text without tr(); wrap it, or end the line with // untranslated: <reason>" >&2
    status=1
fi
for lang in $(sed -e 's/#.*//' po/LINGUAS); do
    po=po/$lang.po
    if [ ! -f "$po" ]; then
        echo "translations: po/LINGUAS lists $lang but $po is missing" >&2
        status=1
        continue
    fi
    # The catalogue must also match the template exactly: no string missing, none left over.
    merged=$(msgmerge --quiet --no-wrap "$po" po/gbgbridge-shell.pot -o - 2>&1) || { echo "$merged" >&2; status=1; continue; }
    if ! statistics=$(printf '%s\n' "$merged" | msgfmt --check --statistics -o /dev/null - 2>&1); then
        echo "translations: $po: $statistics" >&2
        status=1
        continue
    fi
    echo "translations: $po: $statistics" >&2
    case "$statistics" in
        *untranslated* | *fuzzy*)
            echo "translations: $po is incomplete; translate the entries msgattrib --untranslated --only-fuzzy lists" >&2
            status=1 ;;
    esac
    if printf '%s\n' "$merged" | grep -q '^#~'; then
        echo "translations: $po has obsolete entries; run scripts/update-translations.sh" >&2
        status=1
    fi
done
exit $status
