#!/bin/bash
# cli_concurrent.sh GRADER: the grader's state under load and under kills, without a GPU (replay).
#   - 16 `grader check` runs of one lesson at once: every one exits 0, none loses its attempt
#     (progress.json counts 16), each has its own run folder;
#   - a kill at every step of writing progress.json (WB_TEST_KILL_AT=progress:K) leaves a progress
#     file that reads (the old one or the new one), and the next check counts on from it.
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
  WB_TEST_KILL_AT=progress:$k "$GRADER" check $L --predictions $WORK/right.yaml > /dev/null 2>&1
  rc=$?
  [ $rc = 137 ] || fail "progress:$k: exit $rc, expected the kill (137)"
  now=$(attempts)
  if [ $k -le 3 ]; then
    [ "$now" = "$before" ] || fail "progress:$k (before the rename): $now attempts, expected $before"
  else
    [ "$now" = $((before + 1)) ] || fail "progress:$k (after the rename): $now attempts, expected $((before + 1))"
    before=$now
  fi
  rm -f "$WORK"/.workbench/progress.json.partial.*
done
"$GRADER" check $L --predictions $WORK/right.yaml > /dev/null 2>&1 || fail "a check after the kills failed"
[ "$(attempts)" = $((before + 1)) ] || fail "after the kills: $(attempts) attempts, expected $((before + 1))"

[ $failures = 0 ] && echo "cli_concurrent: all passed"
exit $failures
