#!/bin/bash
# gpu_python_nvtx.sh GRADER: a PyTorch script's NVTX ranges reach the capture (ctest label gpu).
# The grader runs tests/grader/torch_probe's script under the capture library, as it runs every
# lesson's PyTorch variant, and grades facts known by construction: the script's own range `step`
# and PyTorch's per-operator ranges aten::t and aten::mm (emit_nvtx; their names carry
# ", seq = N, op_id = M", compared up to the comma). It fails when any of them stops arriving
# (the grader then refuses the capture, or the range never occurs). Skipped (77) where python3
# cannot import a PyTorch that sees a GPU.
set -u
GRADER=$1
SRC=${WB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/grader/torch_probe
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null ||
    { echo "skipped: python3 has no PyTorch that sees a GPU"; exit 77; }
WORK=$(mktemp -d /tmp/wb-torch-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cp -r "$SRC"/. "$WORK"/
cat > $WORK/right.yaml <<'Y'
lesson: 00_torch
predictions:
  - id: step
    range: step
    kernels: 1
    gemms: 1
  - id: transpose
    range: aten::t
    kernels: 0
    memcpys: 0
  - id: mm
    range: aten::mm
    kernels: 1
    gemms: 1
Y
out=$(WB_STATE_DIR=$WORK/state NO_COLOR=1 $GRADER check $WORK/lessons/00_torch --predictions $WORK/right.yaml 2>&1); rc=$?
echo "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[ $rc -eq 0 ] || fail "live check of the PyTorch probe exit $rc (3: no NVTX ranges arrived or the script failed)"
grep -q "graded against a live capture" <<<"$out" || fail "not a live capture"
grep -q "PyTorch " <<<"$out" || fail "the report does not name the PyTorch version"
grep -q "aten::mm" <<<"$out" || fail "the range table has no aten::mm"
[ $failures -eq 0 ] && echo "gpu_python_nvtx: ok"
exit $((failures > 0))
