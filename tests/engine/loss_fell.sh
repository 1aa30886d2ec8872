#!/bin/sh
# loss_fell.sh PROGRAM ARGS...: runs lesson 04's training program and passes only when it exits 0
# and its summary line ("summary: ... loss FIRST -> LAST") shows the training loss fell. Prints
# the program's output when it does not. With --expect-flat first (tests/engine/CMakeLists.txt):
# passes only when the loss did NOT fall, so that a run with --lr 0 proves this check can fail.
expect=fell
[ "$1" = --expect-flat ] && { expect=flat; shift; }
out=$("$@" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
    printf '%s\n' "$out"
    echo "loss_fell.sh: the program exited $rc" >&2
    exit 1
fi
line=$(printf '%s\n' "$out" | grep '^summary:' | tail -1)
first=$(printf '%s\n' "$line" | sed -n 's/.*loss \([-0-9.e+]*\) -> \([-0-9.e+]*\).*/\1/p')
last=$(printf '%s\n' "$line" | sed -n 's/.*loss \([-0-9.e+]*\) -> \([-0-9.e+]*\).*/\2/p')
if [ -z "$first" ] || [ -z "$last" ]; then
    printf '%s\n' "$out"
    echo "loss_fell.sh: no 'summary: ... loss A -> B' line in the output" >&2
    exit 1
fi
fell=$(awk -v a="$first" -v b="$last" 'BEGIN { print (b < a) ? "fell" : "flat" }')
echo "loss $first -> $last: $fell (expected: $expect)"
[ "$fell" = "$expect" ] || { printf '%s\n' "$out" | tail -15; exit 1; }
