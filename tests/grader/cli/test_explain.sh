#!/bin/bash
# test_explain.sh GRADER: `grader explain` on names from the H200 captures and on other families,
# as text and JSON, and on every kernel of a recording with its launch data.
. "$(dirname "$0")/lib.sh"

out=$("$GRADER" explain nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT 2>&1); rc=$?
expect_rc 0 $rc "an nvjet name"
contains "$out" "family: cuBLAS nvjet" "family"
contains "$out" "GEMM:   yes" "counted as a GEMM"
contains "$out" "256x128" "tile"
contains "$out" "cluster [evidence (undocumented)]" "cluster, and what it rests on"
contains "$out" "tst                          ? [undocumented]" "undocumented parts said to be so"
contains "$out" "row-major C = A @ B^T" "layout letters for row-major code"

json=$("$GRADER" explain --format json cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x256x64_1x2x1_0_tnn_align8 \
    triton_poi_fused_add_mul_0 "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >(int)" 2>&1)
expect_rc 0 $? "several names, json"
python3 - "$json" <<'PY' || fail "explain --format json"
import json, sys
k = json.loads(sys.argv[1])["kernels"]
assert [x["family"] for x in k] == ["CUTLASS 3", "Triton (torch.compile)", "PyTorch ATen"], [x["family"] for x in k]
tile = [f for f in k[0]["fields"] if f["field"] == "tile"][0]
assert tile["token"] == "128x256x64" and tile["basis"] == "documented", tile
assert k[0]["gemm"] and not k[1]["gemm"], k
PY

# a lesson not graded yet: refused off a terminal, nothing shown; --reveal shows it and is recorded
out=$("$GRADER" explain --trace "$PROBE_REC:eager" </dev/null 2>&1); rc=$?
expect_rc 2 $rc "--trace of a lesson not graded yet, off a terminal"
contains "$out" "lesson 00_probe is not graded yet" "says why"
lacks "$out" "== variant eager" "shows nothing"
lacks "$out" "nvjet" "shows no kernel name"

# every kernel of a recording, with what CUPTI recorded about its launch
out=$("$GRADER" explain --trace "$PROBE_REC:eager" --reveal 2>&1); rc=$?
expect_rc 0 $rc "--trace recording:variant"
contains "$out" "== variant eager" "the variant"
lacks "$out" "== variant graph" "only that variant"
python3 - "$PROBE_REC" "$out" <<'PY' || fail "every kernel name of the run is explained"
import json, sys
rec = json.load(open(sys.argv[1]))
run = [r for r in rec["runs"] if r["variant"] == "eager"][0]
names = {k["name"] for k in run["capture"]["kernels"]}
for n in names:
    assert n + "\n" in sys.argv[2], n
PY
contains "$out" "launch: " "launch data"
grep -q '"revealed_by": "grader explain --trace"' "$WORK/.workbench/progress.json" || fail "explain --trace --reveal is recorded"
contains "$out" "cluster (" "the recorded cluster of nvjet kernels"
# the project's own kernels: where they are defined
out=$(WB_ROOT=$SRC "$GRADER" explain "wb_probe_scale(float*, int, float)" 2>&1)
contains "$out" "family: compiled from source" "own kernel"
contains "$out" "source: tests/grader/probe/lessons/00_probe/probe.cu:" "where it is defined"
# a plain name the course does not define is not called the program's own
out=$(WB_ROOT=$SRC "$GRADER" explain "totally_unknown_kernel(float*)" 2>&1)
lacks "$out" "compiled from" "an unknown name is not claimed as the program's own"
contains "$out" "family: plain kernel name" "said to be a plain name"
contains "$out" "It is not defined in this" "and that it comes from elsewhere"

# errors
"$GRADER" explain >/dev/null 2>&1; expect_rc 2 $? "no name"
out=$("$GRADER" explain --trace /tmp/no/such.json 2>&1); rc=$?
expect_rc 2 $rc "missing trace file"
contains "$out" "/tmp/no/such.json" "names it"
"$GRADER" explain x --trace "$PROBE_REC" >/dev/null 2>&1; expect_rc 2 $? "names and --trace"
"$GRADER" explain x --format xml >/dev/null 2>&1; expect_rc 2 $? "bad --format"
out=$("$GRADER" explain --help 2>&1); expect_rc 0 $? "--help"
contains "$out" "usage: grader explain NAME..." "--help"
finish
