#!/bin/bash
# i18n_catalog.sh SRC: every message of the grader that goes through gettext (_(), N_(),
# wb_ngettext; C_() and NC_() with a msgctxt; in scripts/, wb_say) has a translation in each
# catalog grader/po/LANG.po, and each catalog compiles with msgfmt --check (format directives that
# match the English, a valid header and plural forms).
# The keywords are those of the wb_pot target (grader/po/CMakeLists.txt).
set -u
SRC=$1
WORK=$(mktemp -d /tmp/wb-i18n-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
failures=0
cd "$SRC" || exit 1
find grader/src -name '*.c' | sort >"$WORK/files"
xgettext --from-code=UTF-8 --language=C --keyword=_ --keyword=N_ --keyword=wb_ngettext:1,2 --keyword=C_:1c,2 \
    --keyword=NC_:1c,2 --keyword=wb_pgettext:1c,2 --no-location \
    -f "$WORK/files" -o "$WORK/workbench.pot" || { echo "FAIL: xgettext"; exit 1; }
xgettext --from-code=UTF-8 --language=Shell -k --keyword=wb_say --keyword=wb_gettext --join-existing --no-location \
    -o "$WORK/workbench.pot" scripts/*.sh || { echo "FAIL: xgettext of scripts/"; exit 1; }
n=$(grep -c '^msgid ' "$WORK/workbench.pot")
[ "$n" -gt 50 ] || { echo "FAIL: only $n messages extracted: are the keywords right?"; failures=$((failures + 1)); }
for po in grader/po/*.po; do
    # msgcmp: each message of the sources is in the catalog, translated (untranslated and fuzzy
    # entries count as missing)
    msgcmp "$po" "$WORK/workbench.pot" || { echo "FAIL: $po lacks the translations above"; failures=$((failures + 1)); }
    msgfmt --check --statistics -o /dev/null "$po" || { echo "FAIL: msgfmt --check $po"; failures=$((failures + 1)); }
done
[ $failures -eq 0 ] && echo "catalogs complete: $n messages" || exit 1
