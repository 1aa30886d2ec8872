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
# the guides the issue asks for exist and link where they say
for doc in course-guide authoring kernel-names troubleshooting lesson-format; do
    [ -f "$SRC/docs/$doc.md" ] || fail "docs/$doc.md is missing"
done
grep -q "lesson-format.md" "$SRC/docs/authoring.md" || fail "docs/authoring.md does not link the lesson format"
finish
