#!/bin/bash
# cli_concurrent.sh GRADER: the grader's state under load and under kills, without a GPU (replay).
#   - 16 `grader check` runs of one lesson at once: every one exits 0, none loses its attempt
#     (progress.json counts 16), each has its own run folder;
#   - a kill at every step of writing progress.json (WB_TEST_KILL_AT=progress:K) leaves a progress
#     file that reads (the old one or the new one), and the next check counts on from it and removes
#     the progress.json.partial.PID the killed writers left;
#   - a grading is recorded before anything captured is shown: when the progress file cannot be
#     read or written (garbage, empty, 20 MB, a folder, a FIFO, the lock a folder, a full disk),
#     check shows no actual value and no trace, exits 2 and leaves no run folder, and once the
#     state is mended the next check is still the first try;
#   - what failures leave: no truncated trace when the disk fills while writing it, no run folder
#     from a replay that failed.
set -u
GRADER=$1
SRC=${WB_SOURCE_DIR:?}/tests/grader/probe
WORK=$(mktemp -d /tmp/wb-concurrent-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cp -r "$SRC"/. "$WORK"/
rm -rf "$WORK/.workbench"
L=$WORK/lessons/00_probe
export WB_FORCE_REPLAY=1 NO_COLOR=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cat > $WORK/right.yaml <<'Y'
lesson: 00_probe
predictions:
  - id: two-kernels
    variant: eager
    range: two_kernels
    kernels: 2
Y
attempts() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["lessons"]["00_probe"]["attempts"])' \
    "$WORK/.workbench/progress.json" 2>/dev/null || echo unreadable
}

# --- 16 at once ----------------------------------------------------------------------------------
pids=()
for i in $(seq 1 16); do
  ( "$GRADER" check $L --predictions $WORK/right.yaml > $WORK/out.$i 2>&1; echo $? > $WORK/rc.$i ) &
  pids+=($!)
done
wait "${pids[@]}"
for i in $(seq 1 16); do
  rc=$(cat $WORK/rc.$i)
  [ "$rc" = 0 ] || fail "concurrent check $i: exit $rc: $(tail -2 $WORK/out.$i)"
done
[ "$(attempts)" = 16 ] || fail "16 concurrent checks recorded $(attempts) attempts"
runs=$(ls "$WORK/.workbench/runs/00_probe" | wc -l)
[ "$runs" = 16 ] || fail "16 concurrent checks made $runs run folders"
traces=$(ls "$WORK"/.workbench/runs/00_probe/*/trace.json | wc -l)
[ "$traces" = 16 ] || fail "16 checks left $traces trace files (shared folders?)"
ls "$WORK/.workbench" | grep -q partial && fail "a temporary progress file was left behind"

# --- a kill at every step of the progress write ------------------------------------------------
before=$(attempts)
for k in 1 2 3 4; do
  { WB_TEST_KILL_AT=progress:$k "$GRADER" check $L --predictions $WORK/right.yaml > /dev/null 2>&1; } 2>/dev/null
  rc=$?
  [ $rc = 137 ] || fail "progress:$k: exit $rc, expected the kill (137)"
  now=$(attempts)
  if [ $k -le 3 ]; then
    [ "$now" = "$before" ] || fail "progress:$k (before the rename): $now attempts, expected $before"
    [ $k = 1 ] || ls "$WORK"/.workbench/progress.json.partial.* >/dev/null 2>&1 ||
      fail "progress:$k left no partial file (the test needs one)"
  else
    [ "$now" = $((before + 1)) ] || fail "progress:$k (after the rename): $now attempts, expected $((before + 1))"
    before=$now
  fi
done
"$GRADER" check $L --predictions $WORK/right.yaml > /dev/null 2>&1 || fail "a check after the kills failed"
[ "$(attempts)" = $((before + 1)) ] || fail "after the kills: $(attempts) attempts, expected $((before + 1))"
ls "$WORK"/.workbench/progress.json.partial.* >/dev/null 2>&1 && fail "progress.json.partial.PID left by killed saves is still there"

# --- nothing shown unless recorded ---------------------------------------------------------------
# shows_nothing WHAT STATE_DIR: a check against that state shows nothing captured and records nothing
shows_nothing() {
    local what=$1 state=$2 out rc
    out=$(WB_STATE_DIR=$state timeout 60 "$GRADER" check "$L" --predictions "$WORK/right.yaml" </dev/null 2>&1); rc=$?
    [ $rc = 2 ] || fail "$what: exit $rc, expected 2"
    for shown in "actual" "Kernels of variant" "trace.json" "timeline.html" "Score:"; do
        grep -qF -- "$shown" <<<"$out" && fail "$what: shows '$shown' although nothing was recorded"
    done
    # error messages wrap at the terminal's width: join the lines before looking for the sentence
    tr -s ' \n' '  ' <<<"$out" | grep -qF "Nothing of the capture was shown" || fail "$what: does not say that nothing was shown: $out"
    [ -z "$(ls -A "$state/runs/00_probe" 2>/dev/null)" ] || fail "$what: left a run folder: $(ls "$state/runs/00_probe")"
}

# first_try STATE_DIR: with the state mended, the next check is graded and recorded as the first try
first_try() {
    local what=$1 state=$2
    WB_STATE_DIR=$state "$GRADER" check "$L" --predictions "$WORK/right.yaml" </dev/null >/dev/null 2>&1
    python3 - "$state/progress.json" <<'PY' || fail "$what: the mended state's next check is not recorded as the first try"
import json, sys
p = json.load(open(sys.argv[1]))["lessons"]["00_probe"]
assert p["first_total"] == 1 and p["first_right"] == 1 and p["attempts"] == 1, p
PY
}

s=$WORK/garbage; mkdir -p "$s"; echo '{not json' >"$s/progress.json"
shows_nothing "garbage progress file" "$s"; rm "$s/progress.json"; first_try garbage "$s"
s=$WORK/empty; mkdir -p "$s"; : >"$s/progress.json"
shows_nothing "empty progress file" "$s"; rm "$s/progress.json"; first_try empty "$s"
s=$WORK/huge; mkdir -p "$s"; head -c 20000000 /dev/zero | tr '\0' ' ' >"$s/progress.json"
shows_nothing "20 MB progress file" "$s"; rm "$s/progress.json"; first_try huge "$s"
s=$WORK/folder; mkdir -p "$s/progress.json"
shows_nothing "progress file a folder" "$s"; rmdir "$s/progress.json"; first_try folder "$s"
s=$WORK/fifo; mkdir -p "$s"; mkfifo "$s/progress.json"
shows_nothing "progress file a FIFO" "$s"; rm "$s/progress.json"; first_try fifo "$s"
s=$WORK/lock; mkdir -p "$s/progress.lock"
shows_nothing "progress lock a folder" "$s"; rmdir "$s/progress.lock"; first_try lock "$s"
# a full disk: no file may grow (writes fail with EFBIG, as with ENOSPC)
s=$WORK/full; mkdir -p "$s/runs"
(trap '' XFSZ; ulimit -f 0; shows_nothing "full disk" "$s"; exit $failures) || failures=$((failures + 1))
first_try "full disk" "$s"

# the disk fills while the traces are written (after the grading was recorded): no truncated file
s=$WORK/fills; mkdir -p "$s"
(trap '' XFSZ; ulimit -f 8; WB_STATE_DIR=$s "$GRADER" check "$L" --predictions "$WORK/right.yaml" </dev/null >/dev/null 2>&1)
for f in "$s"/runs/00_probe/*/*; do
    [ -e "$f" ] || continue
    case $f in
        *.json) python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$f" 2>/dev/null || fail "a truncated $f was left" ;;
        *.html) grep -q '</html>' "$f" || fail "a truncated $f was left" ;;
    esac
done

# a replay that fails (a recording that cannot be read) leaves no empty run folder
s=$WORK/badrec; mkdir -p "$s"; echo '{' >"$WORK/bad.json"
WB_STATE_DIR=$s "$GRADER" check "$L" --predictions "$WORK/right.yaml" --replay "$WORK/bad.json" </dev/null >/dev/null 2>&1
[ -z "$(ls -A "$s/runs/00_probe" 2>/dev/null)" ] || fail "a failed replay left a run folder"


[ $failures = 0 ] && echo "cli_concurrent: all passed"
exit $failures
