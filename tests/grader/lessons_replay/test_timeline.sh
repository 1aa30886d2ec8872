#!/bin/bash
# test_timeline.sh GRADER: the offline timeline of every lesson, as a learner opens it.
#
# For each lesson with a recording, `grader check` grades the answer key's values (replaying the
# recording, no GPU), then headless Chromium loads the timeline.html it wrote next to trace.json:
# once for the DOM after parsing (--dump-dom), once for a screenshot. check_timeline.py compares
# both with what the recording holds. A third load runs label_check.js on a copy of the page and
# check_labels.py reads what it measured: no text cut at the picture's edge or out of its box, and
# every GPU box of lesson 01 named. Skipped (exit 77) where Chromium is not installed.
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROMIUM" ]; then
    echo "SKIPPED: no Chromium here to render the timeline (Debian: apt-get install chromium; .ci/run installs it)"
    exit 77
fi
. "$(dirname "$0")/lib.sh"

chromium_run() { # flags... URL: a fresh profile each time, nothing fetched, no first-run work
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$(mktemp -d "$WORK/profile-XXXXXX")" "$@" 2>>"$WORK/chromium.log"
}

check_lesson() { # RECORDING LESSON_DIR LESSON ANSWERS
    local recording=$1 dir=$2 lesson=$3 answers=$4 rc html variants
    "$GRADER" check "$dir" --predictions "$answers" --replay "$recording" --format json > "$WORK/report.json" 2>"$WORK/stderr"; rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then fail "$lesson: grader check exit $rc: $(cat "$WORK/stderr")"; return; fi
    read -r html variants < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["timeline_file"], " ".join(r["summary"]))' "$WORK/report.json")
    [ -f "$html" ] || { fail "$lesson: no timeline.html where the report says ($html)"; return; }
    [ -f "$(dirname "$html")/trace.json" ] || fail "$lesson: timeline.html is not next to trace.json"
    grep -qiE '<script|<link|src="http|href="http|@import|url\(http' "$html" && fail "$lesson: the page fetches or runs something"
    chromium_run --dump-dom "file://$html" > "$WORK/$lesson.dom.html" || fail "$lesson: chromium --dump-dom failed"
    chromium_run --screenshot="$WORK/$lesson.png" --window-size=1280,760 "file://$html" >/dev/null || fail "$lesson: screenshot failed"
    python3 "$HERE/check_timeline.py" "$recording" "$WORK/$lesson.dom.html" "$WORK/$lesson.png" $variants ||
        fail "$lesson: the rendered timeline does not show the step (see above)"
    # the labels as Chromium lays them out: measured by a script run on a copy of the page
    { cat "$html"; printf '<script>\n'; cat "$HERE/label_check.js"; printf '</script>\n'; } > "$WORK/$lesson.labels.html"
    chromium_run --window-size=1280,760 --dump-dom "file://$WORK/$lesson.labels.html" > "$WORK/$lesson.labels.dom" ||
        fail "$lesson: chromium --dump-dom of the label check failed"
    python3 "$HERE/check_labels.py" "$WORK/$lesson.labels.dom" "$lesson" || fail "$lesson: labels cut or unnamed (see above)"
    if [ -n "${WB_KEEP_SCREENSHOTS:-}" ]; then cp "$WORK/$lesson.png" "$WB_KEEP_SCREENSHOTS/$lesson.png"; fi
    echo "checked $lesson: variants $variants"
}

for_each_recording check_lesson
finish
