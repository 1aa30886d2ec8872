#!/bin/bash
# capture_scale.sh [BUILD_DIR] [STEPS...]: how grading grows with the size of a capture. For each
# STEPS, writes the synthetic lesson of tests/grader/gen_capture.c (a 12-layer training step: about
# 160 kB of JSON per step, 1260 steps = 200 MB) and times `grader check --replay` on it with
# /usr/bin/time -v: size, wall and CPU seconds, peak resident memory. Runs on the CPU machine (no
# GPU needed); the figures go into docs/capture-format.md.
set -eu
BUILD=${1:-build}
shift || true
STEPS=${*:-"40 190 1260"}
WORK=$(mktemp -d /tmp/wb-scale-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
printf '%-8s %10s %9s %9s %9s %10s %s\n' steps "size (MB)" "wall (s)" "user (s)" "sys (s)" "peak (MB)" score
for n in $STEPS; do
  "$BUILD/tests/wb_gen_capture" "$WORK/$n" "$n" 2>/dev/null
  trace=$WORK/$n/lessons/99_scale/traces/sm_90.json
  WB_STATE_DIR=$WORK/$n/state NO_COLOR=1 /usr/bin/time -v "$BUILD/bin/grader" check "$WORK/$n/lessons/99_scale" \
    --replay "$trace" > "$WORK/$n/out.txt" 2> "$WORK/$n/time.txt" || true
  size=$(stat -c %s "$trace")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/$n/time.txt")
  user=$(sed -n 's/.*User time (seconds): //p' "$WORK/$n/time.txt")
  sys=$(sed -n 's/.*System time (seconds): //p' "$WORK/$n/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/$n/time.txt")
  score=$(grep -o 'Score: .*' "$WORK/$n/out.txt" || echo "no score (see the grader's output)")
  printf '%-8s %10.1f %9s %9s %9s %10.0f %s\n' "$n" "$(awk "BEGIN {print $size / 1e6}")" "$wall" "$user" "$sys" \
    "$(awk "BEGIN {print $rss / 1024}")" "$score"
  rm -rf "$WORK/$n"
done
