#!/bin/bash
# gpu_capture.sh GRADER PROBE: live capture on a real GPU (ctest label gpu).
#  1. grader verify on the probe: its answer key is known by construction of probe.cu, so this
#     checks that the capture sees what the program does (kernels, API calls, NVTX nesting, graphs).
#  2. A lesson that exits 1 and one that crashes: the capture is written anyway (complete=false and
#     the signal for the crash), with the records made before the end.
#  3. grader check live, then the trace file: valid Chrome-trace JSON with kernels and flows.
set -u
GRADER=$1 PROBE=$2
SRC=${WB_SOURCE_DIR:?}/tests/grader/probe
WORK=$(mktemp -d /tmp/wb-gpu-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cp -r "$SRC"/. "$WORK"/
rm -rf "$WORK/.workbench" "$WORK"/lessons/*/traces
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

$GRADER verify $WORK/lessons/00_probe || fail "answer key by construction does not hold live"

CUPTI=$("$(dirname "$0")"/find_cupti.sh)
CAPLIB=$(dirname "$GRADER")/../lib/libwb_capture.so
for mode in fail crash; do
  CUDA_INJECTION64_PATH=$CAPLIB NVTX_INJECTION64_PATH=$CUPTI WB_CAPTURE_OUT=$WORK/$mode.json $PROBE --$mode --steps 2
  rc=$?
  [ $rc -ne 0 ] || fail "probe --$mode exited 0"
  python3 - "$WORK/$mode.json" "$mode" <<'PY' || fail "capture after --$mode"
import json, sys
c = json.load(open(sys.argv[1])); mode = sys.argv[2]
assert c["format"] == "gpu-workbench-capture"
assert len(c["kernels"]) >= 8, len(c["kernels"])           # warm-up + 2 steps, 4 kernels each at least
assert any(r["name"] == "step" for r in c["ranges"])
if mode == "crash":
    assert c["complete"] is False and c["process"]["signal"] == 11, (c["complete"], c["process"])
else:
    assert c["complete"] is True
assert c["versions"]["driver"] and c["versions"]["runtime"], c["versions"]
PY
done

cat > $WORK/right.yaml <<'Y'
lesson: 00_probe
predictions:
  - id: two-kernels
    variant: eager
    range: two_kernels
    kernels: 2
    kernels_named: {wb_probe_scale: 2}
  - id: graph
    variant: graph
    range: two_kernels
    api_calls: {cudaGraphLaunch: 1, cudaLaunchKernel: 0}
Y
out=$($GRADER check $WORK/lessons/00_probe --predictions $WORK/right.yaml 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "live check exit $rc"
grep -q "graded against a live capture" <<<"$out" || fail "not a live capture"
trace=$(grep -o '/[^ ]*trace.json' <<<"$out" | head -1)
python3 - "$trace" <<'PY' || fail "trace"
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
k = [e for e in ev if e.get("cat") == "kernel"]
s = [e for e in ev if e.get("ph") == "s"]; f = [e for e in ev if e.get("ph") == "f"]
assert k and len(s) == len(f) >= len(k), (len(k), len(s), len(f))
assert any("wb_probe_scale" in e["name"] for e in k)
assert any(e.get("cat") == "nvtx" and e["name"] == "inner" for e in ev)
PY
[ $failures -eq 0 ] && echo "gpu_capture: all cases passed" || { echo "gpu_capture: $failures failure(s)"; exit 1; }
