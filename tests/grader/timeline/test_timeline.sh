#!/bin/bash
# test_timeline.sh GRADER: the offline timeline of every lesson, as a learner opens it.
#
# For each lesson with a recording, `grader check` grades the answer key's values (replaying the
# recording, no GPU), then headless Chromium loads the timeline.html it wrote next to trace.json:
# once for the DOM after parsing (--dump-dom), once for a screenshot. check_timeline.py compares
# both with what the recording holds. Skipped (exit 77) where Chromium is not installed.
set -u
GRADER=$1
SRC=${WB_SOURCE_DIR:?WB_SOURCE_DIR must name the checkout (ctest sets it)}
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROMIUM" ]; then
    echo "SKIPPED: no Chromium here to render the timeline (Debian: apt-get install chromium; .ci/run installs it)"
    exit 77
fi
WORK=$(mktemp -d /tmp/wb-timeline-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export NO_COLOR=1 WB_FORCE_REPLAY=1 WB_ROOT=$SRC WB_STATE_DIR=$WORK/state
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
chromium_run() { # what-to-do-flags... URL: a fresh profile each time, nothing fetched, no first-run work
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$(mktemp -d "$WORK/profile-XXXXXX")" "$@" 2>>"$WORK/chromium.log"
}

lessons=0
for recording in "$SRC"/lessons/*/traces/sm_*.json; do
    [ -f "$recording" ] || continue
    dir=$(dirname "$(dirname "$recording")")
    lesson=$(basename "$dir")
    key=$SRC/expectations/$lesson.yaml
    lessons=$((lessons + 1))
    # the answer key's values as a predictions file: the predictions list of its first architecture
    answers=$WORK/$lesson.yaml
    { echo "lesson: $lesson"; echo "predictions:"
      awk '/^    predictions:/{on=1;next} on && /^[^ ]/{exit} on && /^ {0,4}[a-z]/{exit} on' "$key" | sed 's/^    //'; } > "$answers"
    "$GRADER" check "$dir" --predictions "$answers" --replay "$recording" --format json > "$WORK/report.json" 2>"$WORK/stderr"; rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then fail "$lesson: grader check exit $rc: $(cat "$WORK/stderr")"; continue; fi
    read -r html variants < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["timeline_file"], " ".join(r["summary"]))' "$WORK/report.json")
    [ -f "$html" ] || { fail "$lesson: no timeline.html where the report says ($html)"; continue; }
    [ -f "$(dirname "$html")/trace.json" ] || fail "$lesson: timeline.html is not next to trace.json"
    grep -qiE '<script|<link|src="http|href="http|@import|url\(http' "$html" && fail "$lesson: the page fetches or runs something"
    chromium_run --dump-dom "file://$html" > "$WORK/$lesson.dom.html" || fail "$lesson: chromium --dump-dom failed"
    chromium_run --screenshot="$WORK/$lesson.png" --window-size=1280,760 "file://$html" >/dev/null || fail "$lesson: screenshot failed"
    python3 "$(dirname "$0")/check_timeline.py" "$recording" "$WORK/$lesson.dom.html" "$WORK/$lesson.png" $variants ||
        fail "$lesson: the rendered timeline does not show the step (see above)"
    [ -n "${WB_KEEP_SCREENSHOTS:-}" ] && cp "$WORK/$lesson.png" "$WB_KEEP_SCREENSHOTS/$lesson.png"
    echo "checked $lesson: variants $variants"
done
[ "$lessons" -gt 0 ] || fail "no lesson recordings found under $SRC/lessons"
if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed ($lessons lessons)"
