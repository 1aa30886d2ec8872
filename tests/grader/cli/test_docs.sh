#!/bin/bash
# test_docs.sh GRADER: every command's page, docs/commands/<name>.md, opens with a usage block that
# is exactly what `grader <name> --help` (and `grader help <name>`) prints; every command in
# `grader --help` has a page, and every page a command. The pages of check, verify and record are
# written with those commands; while one is missing it is reported, not failed.
. "$(dirname "$0")/lib.sh"
DOCS=$SRC/docs/commands

commands=$("$GRADER" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
[ -n "$commands" ] || fail "grader --help lists no commands"
for c in $commands; do
    page=$DOCS/$c.md
    if [ ! -f "$page" ]; then
        case $c in
        check | verify | record) echo "note: $page is not written yet" ;;
        *) fail "grader $c has no page $page" ;;
        esac
        continue
    fi
    # the first fenced block of the page
    awk '/^```/ { if (on) exit; on = 1; next } on' "$page" >"$WORK/doc-$c"
    "$GRADER" $c --help >"$WORK/help-$c" 2>&1; rc=$?
    expect_rc 0 $rc "grader $c --help"
    diff -u "$WORK/doc-$c" "$WORK/help-$c" >"$WORK/diff-$c" || fail "docs/commands/$c.md and grader $c --help differ:
$(cat "$WORK/diff-$c")"
    "$GRADER" help $c >"$WORK/help2-$c" 2>&1
    cmp -s "$WORK/help-$c" "$WORK/help2-$c" || fail "grader help $c and grader $c --help differ"
    head -1 "$page" | grep -qx "# grader $c" || fail "$page: the title is not '# grader $c'"
done
for page in "$DOCS"/*.md; do
    c=$(basename "$page" .md)
    grep -qx "$c" <<<"$commands" || fail "$page documents no command of grader --help"
done
# every `$ grader ...` example of the command pages that only reads (diff, explain, lint, list, hint)
# runs as shown in the checkout, replaying: exit 0 or 1, never 2 (a file that does not exist, an
# option that is not one). The learner here has graded every lesson, so the reveal gate lets the
# examples through.
STATE=$WORK/docs-state
mkdir -p "$STATE"
python3 - "$SRC" "$STATE/progress.json" <<'PY'
import glob, json, os, sys
lessons = {os.path.basename(os.path.dirname(p)): {"state": "graded", "right": 1, "total": 1, "first_right": 1,
           "first_total": 1, "first_hash": "", "predictions_hash": ""}
           for p in glob.glob(os.path.join(sys.argv[1], "lessons", "*", "lesson.yaml"))}
json.dump({"format": "gpu-workbench-progress", "version": 1, "lessons": lessons}, open(sys.argv[2], "w"))
PY
examples=0
while IFS= read -r args; do
    case $args in diff* | explain* | lint* | list* | hint*) ;; *) continue ;; esac
    examples=$((examples + 1))
    (cd "$SRC" && WB_ROOT=$SRC WB_STATE_DIR=$STATE WB_FORCE_REPLAY=1 eval "\"\$GRADER\" $args" >"$WORK/example.out" 2>&1)
    rc=$?
    [ $rc -le 1 ] || fail "the docs' example 'grader $args' exits $rc: $(head -c 300 "$WORK/example.out")"
done < <(grep -h '^    \$ grader ' "$DOCS"/*.md | sed 's/^    \$ grader //; s/ *#.*$//')
[ $examples -ge 5 ] || fail "only $examples examples found in docs/commands"

# the course guide names what the tool makes: the trace's process names and a run folder's files
make_course
right_predictions "$WORK/lessons/00_probe/predictions.yaml" 00_probe
run_out=$(cd "$WORK" && "$GRADER" check 00_probe </dev/null 2>&1)
run_dir=$(dirname "$(grep -o '/[^ ]*trace.json' <<<"$run_out" | head -1)")
[ -d "$run_dir" ] || fail "no run folder from a check: $run_out"
python3 - "$run_dir/trace.json" "$SRC/docs/course-guide.md" <<'PY' || fail "the course guide's process names are not the trace's"
import json, re, sys
trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"] if isinstance(trace, dict) else trace
guide = open(sys.argv[2]).read()
for e in events:
    if e.get("name") != "process_name":
        continue
    name = e["args"]["name"]
    generic = re.sub(r"^[a-z0-9-]+: ", "<variant>: ", name)
    generic = re.sub(r"GPU \(.*\)$", "GPU (<GPU name>)", generic)
    assert "`%s`" % generic in guide, "process %r (as %r) is not in the guide" % (name, generic)
PY
for f in "$run_dir"/*; do
    grep -qF "\`$(basename "$f")\`" "$SRC/docs/course-guide.md" || fail "the course guide does not name $(basename "$f"), which a check writes"
done

# the guides the issue asks for exist and link where they say
for doc in course-guide authoring kernel-names troubleshooting lesson-format; do
    [ -f "$SRC/docs/$doc.md" ] || fail "docs/$doc.md is missing"
done
grep -q "lesson-format.md" "$SRC/docs/authoring.md" || fail "docs/authoring.md does not link the lesson format"
finish
