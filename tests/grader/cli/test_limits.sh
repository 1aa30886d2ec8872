#!/bin/bash
# test_limits.sh GRADER: the grader refuses what would hang it or exhaust it (docs/limits.md), with
# exit 2, the file named, within seconds: special files (FIFOs, devices, directories) and oversized
# files in every place a file is read; and lessons with more variants than a fixed array held.
. "$(dirname "$0")/lib.sh"
make_course
cd "$WORK"

# run SECONDS CMD...: the command's output in $out and status in $rc; 124 if it ran too long
run() {
    local limit=$1
    shift
    out=$(timeout "$limit" "$@" 2>&1)
    rc=$?
}

# ---- special files and sizes, where each kind of file is read ----------------------------------
mkfifo "$WORK/fifo"
truncate -s 2049M "$WORK/huge.json"   # sparse: takes no disk
truncate -s 2M "$WORK/big.yaml"

run 20 "$GRADER" check 00_probe --reveal --replay /dev/zero
expect_rc 2 $rc "--replay /dev/zero"   # grew to 17 GB over 55 s before
contains "$out" "/dev/zero: the capture file is a character device, not a regular file" "--replay /dev/zero names the file"
run 20 "$GRADER" check 00_probe --reveal --replay=/dev/zero
expect_rc 2 $rc "--replay=/dev/zero"
contains "$out" "/dev/zero: the capture file is a character device, not a regular file" "--replay=/dev/zero names the file"
run 20 "$GRADER" check 00_probe --reveal --replay "$WORK/fifo"
expect_rc 2 $rc "--replay FIFO"        # waited forever before
contains "$out" "$WORK/fifo: the capture file is a FIFO (named pipe), not a regular file" "--replay FIFO names the file"
run 20 "$GRADER" check 00_probe --reveal --replay="$WORK/lessons"
expect_rc 2 $rc "--replay a directory"
contains "$out" "the capture file is a directory, not a regular file" "--replay a directory"
run 20 "$GRADER" check 00_probe --reveal --replay "$WORK/huge.json"
expect_rc 2 $rc "--replay a file over 2 GiB"
contains "$out" "huge.json: the capture file is 2148532224 bytes, larger than the 2147483648 bytes" "capture size bound"

run 20 "$GRADER" check 00_probe --predictions "$WORK/fifo"
expect_rc 2 $rc "--predictions FIFO"
contains "$out" "the predictions file is a FIFO (named pipe), not a regular file" "--predictions FIFO"
run 20 "$GRADER" check 00_probe --predictions "$WORK/big.yaml"
expect_rc 2 $rc "--predictions over 1 MiB"
contains "$out" "big.yaml: the predictions file is 2097152 bytes, larger than the 1048576 bytes" "predictions size bound"
printf 'lesson: 00_probe\npredictions:\n  # caf\xe9\n  - {id: a, range: r, kernels: 1}\n' >"$WORK/latin1.yaml"
run 20 "$GRADER" check 00_probe --predictions "$WORK/latin1.yaml"
expect_rc 2 $rc "Latin-1 predictions"
contains "$out" "latin1.yaml:3:8: the predictions file is not UTF-8 text (byte 0xE9 here" "Latin-1 byte at its line"

run 20 "$GRADER" diff /dev/zero "$PROBE_REC"
expect_rc 2 $rc "diff /dev/zero"
contains "$out" "/dev/zero: the capture or recording is a character device" "diff /dev/zero"
run 20 "$GRADER" diff "$WORK/fifo" "$PROBE_REC"
expect_rc 2 $rc "diff FIFO"
# a JSON file of another format: the message quotes the format (read after it was freed before)
echo '{"format": "chrome-trace-of-another-tool"}' >"$WORK/other.json"
run 20 "$GRADER" diff "$WORK/other.json" "$PROBE_REC"
expect_rc 2 $rc "diff of another format"
contains "$out" "(format is chrome-trace-of-another-tool)" "diff quotes the other format"

# lesson.yaml and the answer key as FIFOs (a copy of the probe lesson)
mkdir -p lessons/02_fifo/traces expectations
cp lessons/00_probe/traces/sm_90.json lessons/02_fifo/traces/
mkfifo lessons/02_fifo/lesson.yaml
run 20 "$GRADER" check lessons/02_fifo --reveal
expect_rc 2 $rc "lesson.yaml FIFO"
contains "$out" "lesson.yaml: the lesson.yaml is a FIFO (named pipe), not a regular file" "lesson.yaml FIFO"
rm lessons/02_fifo/lesson.yaml
lesson_yaml 02_fifo >lessons/02_fifo/lesson.yaml
mkfifo expectations/02_fifo.yaml
run 20 "$GRADER" verify lessons/02_fifo --replay
expect_rc 2 $rc "answer key FIFO"
contains "$out" "02_fifo.yaml: the answer key is a FIFO (named pipe), not a regular file" "answer key FIFO"
rm -rf lessons/02_fifo expectations/02_fifo.yaml

# ---- a lesson with 70 variants (a 64-entry stack array overflowed in verify, check and record) --
mkdir -p lessons/03_many/traces
python3 - "$PROBE_REC" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
eager = [r for r in rec["runs"] if r["variant"] == "eager"][0]
rec["lesson"] = "03_many"
rec["runs"] = [dict(eager, variant="v%d" % i) for i in range(70)]
json.dump(rec, open("lessons/03_many/traces/sm_90.json", "w"))
lines = ["lesson: 03_many", "title: seventy variants", "binary: wb_probe", "variants:"]
for i in range(70):
    lines += ["  - name: v%d" % i, "    args: [%s]" % ", ".join(json.dumps(a) for a in eager["args"])]
lines += ["ranges: [two_kernels]", "questions:",
          "  - {id: k, variant: v69, range: two_kernels, facts: [kernels], ask: \"How many kernels?\"}"]
open("lessons/03_many/lesson.yaml", "w").write("\n".join(lines) + "\n")
open("expectations/03_many.yaml", "w").write(
    "lesson: 03_many\narchitectures:\n  sm_90:\n    status: verified\n    predictions:\n"
    "      - {id: k, variant: v69, range: two_kernels, kernels: 2}\nexplanations: {k: \"Two launches.\"}\n")
open("many.yaml", "w").write("lesson: 03_many\npredictions:\n  - {id: k, variant: v69, range: two_kernels, kernels: 2}\n")
PY
run 60 "$GRADER" verify lessons/03_many --replay
expect_rc 0 $rc "verify, 70 variants"
contains "$out" "holds: 1 facts" "verify, 70 variants"
run 60 "$GRADER" check lessons/03_many --reveal
expect_rc 0 $rc "check --reveal, 70 variants"
contains "$out" "v69" "check --reveal shows the last variant"
run 60 "$GRADER" check lessons/03_many --predictions many.yaml
expect_rc 0 $rc "check, 70 variants"
run 60 "$GRADER" lint lessons/03_many
lacks "$out" "recording-unusable" "lint checks all 70 variants' runs"

finish
