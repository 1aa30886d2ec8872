#!/bin/bash
# test_quickstart.sh SRC PTY_DRIVE: the README's two commands in order, as a new learner runs them
# on a fresh clone without a GPU (replaying the H200 recordings), answering at the prompts:
#
#   scripts/start.sh   through a pseudo-terminal: Enter after reading, a number for every question,
#                      y to grade; then again in Japanese (LANG=ja_JP.UTF-8, the learner's state reset)
#   scripts/test.sh    the suite's tests that read the checkout's lessons (-R below)
#
# and then: no tracked file changed and nothing untracked shows in git status, the answers are in
# the learner's ignored predictions.yaml, the lesson is graded in the progress file.
#
# Bounded in time by two choices: both commands build only the grader (WB_BUILD_TARGETS; the
# lesson programs are not needed to replay), and test.sh runs only the tests that read the
# lesson folders a learner's answers sit in: lint_lessons (the test a tracked template with
# answers broke) and each lesson's verify --replay. The rest of the suite works on temporary
# copies and never reads a learner's files.
set -u
SRC=$1
PTY=$2
WORK=$(mktemp -d /tmp/wb-quickstart-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CLONE=$WORK/clone
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# a fresh clone of what is tracked now (the working tree's version of each tracked file)
mkdir -p "$CLONE"
git -C "$SRC" ls-files -z | (cd "$SRC" && while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
    tar -C "$SRC" --null -T - -cf - | tar -C "$CLONE" -xf -
git -C "$CLONE" init -q && git -C "$CLONE" add -A &&
    git -C "$CLONE" -c user.name=quickstart -c user.email=quickstart@localhost commit -qm "fresh clone" || { echo "cannot make the clone"; exit 1; }

unset WB_ROOT WB_STATE_DIR WB_BUILD_DIR WB_SOURCE_DIR
export WB_FORCE_REPLAY=1 NO_COLOR=1 WB_BUILD_TARGETS=grader
command -v ccache >/dev/null && export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache

# 1. scripts/start.sh at a terminal
cd "$CLONE"
out=$(python3 "$PTY" --timeout 900 "(q stops here):" "\n" "+? " "1\n" "[y/N]" "y\n" -- scripts/start.sh 2>&1); rc=$?
echo "$out" | tail -n 40
[ $rc = 0 ] || [ $rc = 1 ] || fail "start.sh: exit $rc, expected 0 or 1 (graded)"
grep -qF "README.md" <<<"$out" || fail "start.sh does not say which README to read first"
grep -qF "Score:" <<<"$out" || fail "start.sh did not grade lesson 01"
P=lessons/01_matmul_add/predictions.yaml
[ -f $P ] || fail "no learner's file $P"
# the lesson's main part is answered; its part pytorch (the PyTorch questions) comes next, on its own
python3 - $P <<'PY' || fail "$P: the main part's values are not all answered, or the PyTorch part's are"
import re, sys
variant, open_in = None, {"main": 0, "torch": 0}
for line in open(sys.argv[1]):
    m = re.match(r"\s+variant: (\S+)", line)
    if m: variant = m.group(1)
    if re.search(r":\s*~\s*$", line) and variant:
        open_in["torch" if variant.startswith("torch") else "main"] += 1
assert open_in["main"] == 0 and open_in["torch"] > 0, open_in
PY
git check-ignore -q $P || fail "git does not ignore $P"
python3 - .workbench/progress.json <<'PY' || fail "lesson 01 is not graded in the progress file"
import json, sys
p = json.load(open(sys.argv[1]))["lessons"]["01_matmul_add"]
assert p["state"] == "graded" and p["first_total"] > 0, p
PY
# run again, start.sh goes on to what comes next, lesson 01's part pytorch, instead of grading the
# C part again
out=$(python3 "$PTY" --timeout 300 "(q stops here):" "q\n" -- scripts/start.sh 2>&1); rc=$?
[ $rc = 0 ] || fail "start.sh again, q before the questions: exit $rc"
grep -qE "grader check [^ ]*lessons/01_matmul_add --part pytorch" <<<"$(tr -s ' \r\n' '   ' <<<"$out")" ||
    fail "start.sh again does not go to lesson 01's part pytorch: $out"
grep -qF "Score:" <<<"$out" && fail "start.sh again graded something"
status=$(git status --porcelain)
[ -z "$status" ] || fail "start.sh changed the checkout: $status"

# 1b. the same first command in Japanese, as a learner whose locale is Japanese starts the course
# (the locale need not be installed): the learner's state is reset, the build is kept
rm -rf .workbench lessons/01_matmul_add/predictions.yaml*
ask_ja=$(LANGUAGE=ja LC_ALL=C.UTF-8 TEXTDOMAINDIR=build/share/locale gettext -d workbench "Press Enter when you have read them (q stops here): ")
[ "${ask_ja% }" != "Press Enter when you have read them (q stops here):" ] || fail "the catalog has no Japanese for the first prompt"
out=$(LANG=ja_JP.UTF-8 python3 "$PTY" --timeout 900 "${ask_ja% }" "\n" "+? " "1\n" "[y/N]" "y\n" -- scripts/start.sh 2>&1); rc=$?
echo "$out" | tail -n 20
[ $rc = 0 ] || [ $rc = 1 ] || fail "start.sh in Japanese: exit $rc, expected 0 or 1 (graded)"
grep -qE "次のレッスン: .*lessons/01_matmul_add" <<<"$out" || fail "start.sh in Japanese does not name the next lesson in Japanese"
readme=lessons/01_matmul_add/README.md
[ -f lessons/01_matmul_add/README.ja.md ] && readme=lessons/01_matmul_add/README.ja.md
grep -qF "$readme" <<<"$(tr -d ' \r\n' <<<"$out")" || fail "start.sh in Japanese does not name $readme to read first"
grep -qF "スコア:" <<<"$out" || fail "start.sh in Japanese did not grade lesson 01 in Japanese"
if [ -f lessons/01_matmul_add/i18n/ja.yaml ]; then
    grep -qF "$(python3 -c 'import yaml,sys; print("".join(next(iter(yaml.safe_load(open(sys.argv[1]))["questions"].values()))["ask"].split())[:20])' \
        lessons/01_matmul_add/i18n/ja.yaml 2>/dev/null)" <<<"$(tr -d '\r\n ' <<<"$out")" || fail "the first question is not asked in Japanese"
fi
status=$(git status --porcelain)
[ -z "$status" ] || fail "start.sh in Japanese changed the checkout: $status"

# 2. scripts/test.sh (from a Japanese shell: the suite pins its own locale)
out=$(LANG=ja_JP.UTF-8 scripts/test.sh -R '^(lint_lessons|lesson_.*_verify_replay_.*)$' 2>&1); rc=$?
echo "$out" | tail -n 15
[ $rc = 0 ] || fail "test.sh after answering: exit $rc"
grep -q "tests passed, 0 tests failed" <<<"$out" || fail "test.sh ran no tests, or some failed"
grep -qE "lint_lessons .*Passed" <<<"$out" || fail "lint_lessons did not pass"
grep -qF "setlocale" <<<"$out" && fail "test.sh warns about a Japanese locale this machine lacks: $(grep -F setlocale <<<"$out")"
status=$(git status --porcelain)
[ -z "$status" ] || fail "test.sh changed the checkout: $status"

[ $failures -eq 0 ] && echo "quickstart: all checks passed" || { echo "quickstart: $failures failure(s)"; exit 1; }
