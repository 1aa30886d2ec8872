#!/bin/bash
# test_flow.sh GRADER: the learner's flow at a terminal (driven through a pseudo-terminal,
# pty_drive.py) and its edges: the answers shown and confirmed before the first grading; Ctrl-C
# while answering keeps what was typed; skipping on a terminal says to run check again; a partial
# check (--variant) is not the lesson's first try; --reveal of a fully predicted lesson says so;
# check --reveal, diff and verify ask first on a terminal. Every no, q or Ctrl-C there is a stop on
# request: exit 0, nothing shown, the files kept, and a note that says what to do next.
. "$(dirname "$0")/lib.sh"
make_course
cd "$WORK"
PTY="python3 $(dirname "$0")/pty_drive.py --timeout 60"
P=lessons/00_probe/predictions.yaml
P2=lessons/01_two/predictions.yaml
progress() { # STATE_DIR python-expression-over-p: asserts on the lesson entries
    python3 -c "import json,sys; p=json.load(open('$1/progress.json'))['lessons']; assert $2, p" || fail "progress: $2"
}

# --- before the first grading, the answers are shown and must be confirmed ------------------------
export WB_STATE_DIR=$WORK/state-confirm
right_predictions $P 00_probe
before=$(sha256sum $P)
out=$($PTY "[y/N]" "n\n" -- "$GRADER" check 00_probe 2>&1); rc=$?
expect_rc 0 $rc "first grading declined: stopping on request is no error"
lacks "$out" "grader check:" "declined: not reported as an error"
contains "$(squash "$out")" "run grader check 00_probe again" "declined: says what to do next"
[ "$(sha256sum $P)" = "$before" ] || fail "declined: the predictions file changed"
contains "$out" "Your answers" "shows the answers"
contains "$(squash "$out")" "two-kernels (eager, two_kernels): kernels 2, kernels_named.wb_probe_scale 2, api_calls.cudaLaunchKernel 2" "each answer with its values"
lacks "$out" "Score" "declined: nothing graded"
lacks "$out" "Kernels of variant" "declined: nothing shown"
[ -f $WB_STATE_DIR/progress.json ] && progress $WB_STATE_DIR "'first_total' not in p.get('00_probe', {})"
out=$($PTY "[y/N]" "y\n" -- "$GRADER" check 00_probe 2>&1); rc=$?
expect_rc 0 $rc "first grading confirmed"
contains "$out" "Score: 8 of 8" "graded after yes"
out=$($PTY -- "$GRADER" check 00_probe 2>&1); rc=$?
expect_rc 0 $rc "a later grading"
lacks "$out" "Grade them now?" "only the first grading asks"

# --- the confirmation shows each answer as the file holds it: decimals, bounds by name ----------------
export WB_STATE_DIR=$WORK/state-values
L01=$SRC/lessons/01_matmul_add
sed -e 's/^\( *gpu_us:\).*/\1 8.5/' -e 's/^\( *wall_us:\).*/\1 25/' -e 's/^\( *kernels:\).*/\1 2/' \
    -e 's/^\( *bound:\).*/\1 ~/' -e '/bound:/!s/^\( *[a-zA-Z_]*: \)~$/\11/' $L01/predictions.template.yaml >"$WORK/values.yaml"
# the bounds are answered at the prompt: by name, then by the number the prompt gives compute (3)
out=$($PTY "? " "overhead\n" "+? " "3\n" "[y/N]" "n\n" -- "$GRADER" check $L01 --predictions "$WORK/values.yaml" 2>&1); rc=$?
contains "$(squash "$out")" "small-step-time (eager, step): gpu_us 8.5, wall_us 25, bound compute" "decimals and a bound by name"
contains "$(squash "$out")" "large-step (eager-4096, step): kernels 2, gemms 1, memsets 1, bound overhead" "the bound typed by name"
grep -q "bound: compute" "$WORK/values.yaml" || fail "3 at the prompt is compute in the file"
lacks "$out" "bound 2" "no bound as a number"

# --- a time question states its own tolerance from lesson.yaml (lesson 06's overlap: 35%) -----------
export WB_STATE_DIR=$WORK/state-tolerance
L06=$SRC/lessons/06_data_parallel
sed -e 's/^\( *bound:\) ~$/\1 compute/' -e '/overlap_us:/!s/^\( *[a-zA-Z_]*: \)~$/\11/' $L06/predictions.template.yaml >"$WORK/l06.yaml"
out=$($PTY "? " "q\n" -- "$GRADER" check $L06 --predictions "$WORK/l06.yaml" 2>&1); rc=$?
expect_rc 0 $rc "q at lesson 06's overlap question"
contains "$(squash "$out")" "Times are right within 35% of the measured value" "the overlap question states its 35%"
lacks "$out" "25%" "no other tolerance stated for it"

# --- q at a prompt stops: no error, no list of open values, nothing graded -------------------------
export WB_STATE_DIR=$WORK/state-stop
rm -f $P2
out=$($PTY "? " "2\n" "? " "q\n" -- "$GRADER" check 01_two 2>&1); rc=$?
expect_rc 0 $rc "q at a prompt"
contains "$out" "Saved 1 answer" "q saves what was typed"
contains "$out" "Stopped" "q says it stopped"
lacks "$out" "predictions.yaml:" "q lists no open values as diagnostics"
lacks "$out" "grader check:" "q is not reported as an error"
lacks "$out" "Score" "q grades nothing"
out=$($PTY "? " "q\n" -- "$GRADER" check 01_two 2>&1); rc=$?
expect_rc 0 $rc "q at the first prompt"
lacks "$out" "predictions.yaml:" "q at the first prompt lists no open values"

# --- Ctrl-C while answering keeps the answers typed so far ---------------------------------------
export WB_STATE_DIR=$WORK/state-interrupt
rm -f $P2
out=$($PTY "? " "2\n" "? " "\x03" -- "$GRADER" check 01_two 2>&1); rc=$?
expect_rc 0 $rc "Ctrl-C while answering: stopping on request is no error"
lacks "$out" "grader check:" "Ctrl-C is not reported as an error"
contains "$out" "Interrupted" "says it was interrupted"
contains "$out" "Saved 1 answer" "saves what was typed"
grep -q "kernels: 2" $P2 || fail "the answer typed before Ctrl-C is in the file"
[ "$(grep -c ': ~$' $P2)" -eq 7 ] || fail "the other answers are still ~"

# --- skipping on a terminal: the message says to run check again, not to use a terminal -----------
out=$($PTY "? " "\n" "? " "q\n" -- "$GRADER" check 01_two 2>&1); rc=$?
expect_rc 0 $rc "skipped on a terminal, then q"
contains "$out" "Run grader check again to answer them" "says to run check again"
lacks "$out" "run grader check on a terminal" "does not send a terminal user to a terminal"

# --- a partial check is not the lesson's first try -----------------------------------------------
export WB_STATE_DIR=$WORK/state-partial
right_predictions $P 00_probe
sed -i 's/gemms: 1/gemms: 2/' $P # one eager fact wrong; graph (2 facts) all right
"$GRADER" check 00_probe --variant graph </dev/null >/dev/null 2>&1; expect_rc 0 $? "check --variant graph"
progress $WB_STATE_DIR "'first_total' not in p['00_probe'] and p['00_probe']['first_by_variant']['graph'] == {'right': 2, 'total': 2}"
out=$("$GRADER" list 2>&1)
lacks "$out" "2/2" "a partial check is no lesson score"
"$GRADER" check 00_probe </dev/null >/dev/null 2>&1; expect_rc 1 $? "the full check"
progress $WB_STATE_DIR "p['00_probe']['first_total'] == 8 and p['00_probe']['first_right'] == 7"
out=$("$GRADER" list 2>&1)
contains "$out" "7/8 first try" "the first try covers every fact"
"$GRADER" check 00_probe --variant graph </dev/null >/dev/null 2>&1
out=$("$GRADER" list 2>&1)
contains "$out" "7/8 first try" "a later partial check leaves the lesson's score alone"

# --- --reveal of a fully predicted lesson -------------------------------------------------------
export WB_STATE_DIR=$WORK/state-reveal
right_predictions $P 00_probe
out=$("$GRADER" check 00_probe --reveal </dev/null 2>&1); rc=$?
expect_rc 0 $rc "--reveal, predictions complete"
contains "$out" "revealed before your predictions were graded" "says the predictions were there"
lacks "$out" "revealed without predictions" "does not say there were none"
rm -f $P2
out=$("$GRADER" check 01_two --reveal </dev/null 2>&1)
contains "$out" "revealed without predictions" "no predictions: says so"

# --- on a terminal, check --reveal and diff ask before showing an ungraded lesson ------------------
export WB_STATE_DIR=$WORK/state-ask
out=$($PTY "[y/N]" "n\n" -- "$GRADER" check 00_probe --reveal 2>&1); rc=$?
expect_rc 0 $rc "check --reveal declined"
lacks "$out" "grader check:" "check --reveal declined: no error"
contains "$out" "Predict first" "check --reveal declined: says what to do next"
lacks "$out" "Kernels of variant" "declined: nothing shown"
out=$($PTY "[y/N]" "n\n" -- "$GRADER" diff 01_two:eager 01_two:graph 2>&1); rc=$?
expect_rc 0 $rc "diff declined"
lacks "$out" "grader diff:" "diff declined: no error"
contains "$out" "Predict lesson 01_two first" "diff declined: says what to do next"
lacks "$out" "cudaGraphLaunch" "declined: nothing shown"
out=$($PTY "[y/N]" "y\n" -- "$GRADER" diff 01_two:eager 01_two:graph 2>&1); rc=$?
expect_rc 1 $rc "diff confirmed"
contains "$out" "cudaGraphLaunch" "confirmed: the diff"
progress $WB_STATE_DIR "p['01_two']['revealed_by'] == 'grader diff' and '00_probe' not in p"
out=$($PTY "[y/N]" "n\n" -- "$GRADER" explain --trace lessons/00_probe/traces/sm_90.json:eager 2>&1); rc=$?
expect_rc 0 $rc "explain --trace declined"
lacks "$out" "grader explain:" "explain --trace declined: no error"
lacks "$out" "wb_probe_scale" "explain --trace declined: nothing shown"
out=$($PTY -- "$GRADER" diff 01_two:eager 01_two:graph 2>&1); rc=$?
lacks "$out" "Show them anyway?" "asked once: the lesson is revealed now"
# --- verify of a lesson not graded yet shows the key's answers only after asking, like diff -----------
export WB_STATE_DIR=$WORK/state-verify
out=$($PTY "[y/N]" "n\n" -- "$GRADER" verify 00_probe 2>&1); rc=$?
expect_rc 0 $rc "verify declined"
lacks "$out" "grader verify:" "verify declined: no error"
contains "$out" "not graded yet" "verify says why it asks"
lacks "$out" "holds" "declined: no verdict"
lacks "$out" "kernels 2" "declined: no answer shown"
[ -f $WB_STATE_DIR/progress.json ] && progress $WB_STATE_DIR "'00_probe' not in p"
out=$($PTY "[y/N]" "y\n" -- "$GRADER" verify 00_probe 2>&1); rc=$?
expect_rc 0 $rc "verify confirmed"
contains "$out" "holds" "confirmed: the verdict"
progress $WB_STATE_DIR "p['00_probe']['revealed_by'] == 'grader verify'"
export WB_STATE_DIR=$WORK/state-verify2
out=$($PTY -- "$GRADER" verify 00_probe --reveal 2>&1); rc=$?
expect_rc 0 $rc "verify --reveal does not ask"
lacks "$out" "[y/N]" "--reveal: no question"
"$GRADER" verify 00_probe </dev/null >/dev/null 2>&1; expect_rc 0 $? "verify in a script (an instructor's) runs"

# --- check without a lesson names the next lesson's README and program before its questions ---------
export WB_STATE_DIR=$WORK/state-next
rm -f $P $P2
out=$($PTY "stops here):" "\n" "? " "q\n" -- "$GRADER" check 2>&1); rc=$?
expect_rc 0 $rc "check without a lesson, q"
python3 - "$out" <<'PY' || fail "the README and program are named before the first question"
import sys
out = sys.argv[1]
first_q = out.find("?")
for name in ("lessons/00_probe/README.md", "lessons/00_probe/probe.cu"):
    i = out.find(name)
    assert 0 <= i < first_q, "%s at %d, first question at %d:\n%s" % (name, i, first_q, out)
PY

out=$($PTY "stops here):" "q\n" -- "$GRADER" check 2>&1); rc=$?
expect_rc 0 $rc "check without a lesson, q before the questions"
lacks "$out" "? " "q before the questions: none asked"

# --- every check keeps only the last few run folders per lesson (1-2 MB of traces each) ---------------
export WB_STATE_DIR=$WORK/state-runs
R=$WB_STATE_DIR/runs/00_probe
mkdir -p $R
for i in 1 2 3 4 5 6 7; do mkdir $R/2020010$i-000000-1; echo x >$R/2020010$i-000000-1/trace.json; touch -d '2020-01-0'$i $R/2020010$i-000000-1; done
mkdir $R/20190101-000000-1 # old by its name, but written just now: a check may still be using it
right_predictions $P 00_probe
"$GRADER" check 00_probe </dev/null >/dev/null 2>&1
n=$(ls $R | wc -l)
[ "$n" = 6 ] || fail "run folders after a check: $n, expected 6 (the newest 5 and the young one): $(ls $R | tr '\n' ' ')"
[ -d $R/20200104-000000-1 ] || fail "one of the newest 5 was removed"
[ -d $R/20200103-000000-1 ] && fail "an old run folder past the newest 5 was kept"
[ -d $R/20190101-000000-1 ] || fail "a run folder written just now was removed"
ls $R | grep -qv '^20200\|^2019' || fail "the new run folder is gone"
finish
