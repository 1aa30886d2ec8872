#!/bin/bash
# test_gradebook_html.sh GRADER: the gradebook's HTML report as an instructor opens it, offline.
# A synthetic cohort (gen_cohort.py) is imported, `grader gradebook report --format html` writes
# the page, headless Chromium renders it (--dump-dom, and a screenshot), and check_html.py reads
# every fact's figures back from the rendered page and compares them with the JSON report.
# Skipped (exit 77) where Chromium is not installed.
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROMIUM" ]; then
    echo "SKIPPED: no Chromium here to render the report (Debian: apt-get install chromium; .ci/run installs it)"
    exit 77
fi
. "$(dirname "$0")/../cli/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
export WB_ROOT=$SRC

chromium_run() { # flags... URL: a fresh profile each time, nothing fetched, no first-run work
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$(mktemp -d "$WORK/profile-XXXXXX")" "$@" 2>>"$WORK/chromium.log"
}

python3 "$HERE/gen_cohort.py" "$GRADER" "$SRC" "$WORK/cohort" 30 23 || { fail "gen_cohort.py failed"; finish; }
"$GRADER" gradebook import "$WORK/cohort/submissions" --db "$WORK/gb.db" >/dev/null || fail "import"
"$GRADER" gradebook report --db "$WORK/gb.db" --format json >"$WORK/report.json" || fail "report --format json"
"$GRADER" gradebook report --db "$WORK/gb.db" --format html --out "$WORK/report.html"; rc=$?
expect_rc 0 $rc "report --format html --out"
grep -qiE '<script|<link|src="http|href="http|@import|url\(' "$WORK/report.html" && fail "the page fetches or runs something"
chromium_run --dump-dom "file://$WORK/report.html" >"$WORK/dom.html" || fail "chromium --dump-dom failed"
chromium_run --screenshot="$WORK/report.png" --window-size=1280,900 "file://$WORK/report.html" >/dev/null || fail "screenshot failed"
python3 "$HERE/check_html.py" "$WORK/report.json" "$WORK/dom.html" "$WORK/report.png" ||
    fail "the rendered page does not show the report (see above)"
finish
