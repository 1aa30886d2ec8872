#!/bin/bash
# test_parts.sh GRADER: a lesson in two parts (lesson.yaml: `part: pytorch` on a variant). Plain
# `grader check LESSON` grades the main part alone, with the other part's values still open;
# `--part pytorch` grades the other; each keeps its own score and first try (filling in one part
# is no edit of the other), and grader list and the check's closing line name the next part.
. "$(dirname "$0")/lib.sh"
make_course
cd "$WORK"
P=lessons/00_probe/predictions.yaml
# the probe's graph variant becomes the lesson's second part
python3 - lessons/00_probe/lesson.yaml <<'PY'
import sys
p = sys.argv[1]
text = open(p).read().replace('  - name: graph\n', '  - name: graph\n    part: pytorch\n', 1)
open(p, "w").write(text)
PY
grep -q "part: pytorch" lessons/00_probe/lesson.yaml || fail "set-up: no part in lesson.yaml"
out=$("$GRADER" lint lessons/00_probe 2>&1); rc=$?
expect_rc 0 $rc "a lesson with parts lints clean: $out"

out=$("$GRADER" list 2>&1)
contains "$out" "--part pytorch" "list shows the other part as a row of its own"
contains "$out" "Next: grader check lessons/00_probe" "the main part comes first"
lacks "$out" "Next: grader check lessons/00_probe --part" "the main part comes first"

# the main part's answers, the other part's still open
right_predictions $P 00_probe
python3 - $P <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
out, in_graph = [], False
for l in lines:
    if l.startswith("  - id: "): in_graph = l.endswith("graph-kernels")
    if in_graph and l.startswith("    kernels: "): l = "    kernels: ~"
    if in_graph and l.startswith("    api_calls: "): l = "    api_calls: {cudaGraphLaunch: ~}"
    out.append(l)
open(p, "w").write("\n".join(out))
PY
out=$("$GRADER" check lessons/00_probe </dev/null 2>&1); rc=$?
expect_rc 0 $rc "the main part is graded while the other part's values are open: $out"
contains "$out" "Score: 6 of 6 facts right" "only the main part's facts are graded"
lacks "$out" "graph-kernels" "nothing of the other part is graded or shown"
contains "$out" "Next: grader check lessons/00_probe --part pytorch" "the check's closing line names the next part"
out=$(LANG=ja_JP.UTF-8 "$GRADER" check lessons/00_probe </dev/null 2>&1)
contains "$out" "次: grader check lessons/00_probe --part pytorch" "the check's closing line in Japanese"
out=$("$GRADER" list 2>&1)
contains "$out" "6/6 first try" "the main part's first try"
contains "$out" "Next: grader check lessons/00_probe --part pytorch" "list: the other part comes next"

# the reveal gate is per part too: the graded main part's captures may be compared, the other
# part's not before it is predicted (off a terminal: refused, nothing recorded)
out=$("$GRADER" diff lessons/00_probe:eager lessons/00_probe:eager </dev/null 2>&1); rc=$?
expect_rc 0 $rc "diff within the graded main part: $out"
out=$("$GRADER" diff lessons/00_probe:eager lessons/00_probe:graph </dev/null 2>&1); rc=$?
expect_rc 2 $rc "diff showing a variant of the part not graded yet"
contains "$out" "grader check 00_probe --part pytorch" "says which part to predict first"
python3 - "$WORK/.workbench/progress.json" <<'PY' || fail "a refused reveal records nothing"
import json, sys
e = json.load(open(sys.argv[1]))["lessons"]["00_probe"]
assert "revealed_without_predictions" not in e.get("parts", {}).get("pytorch", {}), e
PY

# the other part: open values are refused (nothing shown), then answered and graded
out=$("$GRADER" check lessons/00_probe --part pytorch </dev/null 2>&1); rc=$?
expect_rc 2 $rc "the other part with its values open"
contains "$out" "graph-kernels" "names the open values of that part"
lacks "$out" "Score:" "nothing graded"
sed -i 's/kernels: ~/kernels: 2/; s/cudaGraphLaunch: ~/cudaGraphLaunch: 1/' $P
out=$("$GRADER" list 2>&1)
lacks "$out" "regraded" "filling in the other part is no edit of the graded main part"
contains "$out" "ready to check" "the other part is predicted"
out=$("$GRADER" check lessons/00_probe --part pytorch </dev/null 2>&1); rc=$?
expect_rc 0 $rc "the other part graded"
contains "$out" "Score: 2 of 2 facts right" "only the other part's facts"
contains "$out" "Next: grader check lessons/01_two" "then the next lesson"
python3 - "$WORK/.workbench/progress.json" <<'PY' || fail "progress keeps each part's first try"
import json, sys
e = json.load(open(sys.argv[1]))["lessons"]["00_probe"]
assert e["first_total"] == 6 and e["first_right"] == 6, e
p = e["parts"]["pytorch"]
assert p["first_total"] == 2 and p["state"] == "graded" and p["attempts"] == 1, p
assert "first" in e["questions"]["graph-kernels"]["facts"]["kernels"], "each question's first try kept with the lesson's"
PY

# a wrong answer in the main part: its latest score changes, its first try and the other part's stay
sed -i '0,/gemms: 1/s//gemms: 3/' $P
out=$("$GRADER" check lessons/00_probe </dev/null 2>&1); rc=$?
expect_rc 1 $rc "a wrong main answer"
out=$("$GRADER" list 2>&1)
contains "$out" "5/6 now, first try 6/6" "the main part regraded, its first try kept"
contains "$out" "2/2 first try" "the other part's first try untouched"
out=$("$GRADER" list --format json 2>&1)
python3 - <<PY || fail "list --format json: parts and next_part"
import json
d = json.loads('''$out''')
l = [x for x in d["lessons"] if x["lesson"] == "00_probe"][0]
assert l["parts"][0]["part"] == "pytorch" and l["parts"][0]["state"] == "graded", l
assert d["next"].endswith("01_two") and d["next_part"] is None, d
PY

# asking for what is not there
out=$("$GRADER" check lessons/00_probe --part nope </dev/null 2>&1); rc=$?
expect_rc 2 $rc "an unknown part"
contains "$out" "has no part 'nope' (its parts: main, pytorch)" "names the lesson's parts"
out=$("$GRADER" check lessons/00_probe --part main --variant graph </dev/null 2>&1); rc=$?
expect_rc 2 $rc "a variant of another part"
contains "$out" "variant graph of lesson 00_probe is in part pytorch" "says where the variant is"
out=$("$GRADER" check lessons/00_probe --variant graph </dev/null 2>&1); rc=$?
expect_rc 0 $rc "--variant alone grades the variant in its own part"

# a lesson whose every variant names a part has no main part: refused, with its line
sed -i 's/^  - name: eager$/  - name: eager\n    part: other/' lessons/00_probe/lesson.yaml
out=$("$GRADER" lint lessons/00_probe 2>&1); rc=$?
[ $rc -ne 0 ] || fail "lint accepts a lesson without a main part"
contains "$out" "needs at least one variant without 'part'" "says what is missing"
finish
