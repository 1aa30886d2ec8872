#!/bin/bash
# ranks_capture.sh GRADER RANKS: the capture of a multi-process lesson, live on ONE GPU (ctest
# label gpu). The ranks program (tests/grader/ranks/lessons/00_ranks/ranks.cu) starts two processes
# of itself with WB_RANK and WB_WORLD_SIZE set; rank r launches r + 2 kernels per step.
#  1. The capture library alone: each rank writes $WB_CAPTURE_OUT.rank<r> with its rank and the
#     world size in the head, the launcher (no CUDA call) writes nothing.
#  2. grader verify: the answer key known by construction holds live (per rank and over both).
#  3. grader check: the merged recording holds both ranks' kernels with the right rank (7 and 10:
#     a warm-up launch and 3 steps each), the rank files are gone, the trace has lanes per rank.
#  4. world_size 3 declared for a program that starts 2: exit 3, naming rank 2 as missing.
set -u
GRADER=$1 RANKS=$2
SRC=${WB_SOURCE_DIR:?}/tests/grader/ranks
WORK=$(mktemp -d /tmp/wb-gpu-ranks-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cp -r "$SRC"/. "$WORK"/
rm -rf "$WORK/.workbench" "$WORK"/lessons/*/traces
export WB_STATE_DIR=$WORK/state NO_COLOR=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

CUPTI=$("$(dirname "$0")"/find_cupti.sh)
CAPLIB=$(dirname "$GRADER")/../lib/libwb_capture.so
CUDA_INJECTION64_PATH=$CAPLIB NVTX_INJECTION64_PATH=$CUPTI WB_CAPTURE_OUT=$WORK/direct.json "$RANKS" --ranks 2 --steps 2 ||
  fail "the ranks program failed under the capture library"
[ ! -e "$WORK/direct.json" ] || fail "the launcher, which makes no CUDA call, wrote a capture"
python3 - "$WORK/direct.json" <<'PY' || fail "the ranks' own capture files"
import json, sys
for r in (0, 1):
    c = json.load(open(f"{sys.argv[1]}.rank{r}"))
    assert c["rank"] == r and c["world_size"] == 2 and c["complete"], (r, c.get("rank"), c.get("world_size"))
    k = [x for x in c["kernels"] if "wb_ranks_add" in x["name"]]
    assert len(k) == 1 + 2 * (r + 2), (r, len(k))        # warm-up + 2 steps of r + 2
    assert not any("rank" in x for x in c["kernels"]), "a rank's own file tags no record"
PY

$GRADER verify "$WORK/lessons/00_ranks" || fail "the answer key by construction does not hold live"

out=$($GRADER check "$WORK/lessons/00_ranks" --predictions "$WORK/one-wrong.yaml" 2>&1); rc=$?
echo "$out"
[ $rc -eq 1 ] || fail "live check with one wrong fact: exit $rc, expected 1"
grep -q "graded against a live capture" <<<"$out" || fail "not a live capture"
grep -q "Score: 8 of 9 facts right" <<<"$out" || fail "score"
trace=$(grep -o '/[^ ]*trace.json' <<<"$out" | head -1)
run=$(dirname "$trace")
ls "$run"/*.rank* >/dev/null 2>&1 && fail "rank files left in $run after the merge"
python3 - "$run/recording.json" "$trace" <<'PY' || fail "the merged recording or its trace"
import json, sys
rec = json.load(open(sys.argv[1]))
c = rec["runs"][0]["capture"]
assert c["world_size"] == 2 and len(c["ranks"]) == 2, c.get("world_size")
assert c["ranks"][0]["process"]["pid"] != c["ranks"][1]["process"]["pid"]
for part in ("api_calls", "kernels", "memcpys", "memsets", "ranges", "profiler_windows"):
    assert all(x["rank"] in (0, 1) for x in c[part]), part
k = {r: sum(1 for x in c["kernels"] if x["rank"] == r and "wb_ranks_add" in x["name"]) for r in (0, 1)}
assert k == {0: 7, 1: 10}, k
w = {r: sum(1 for x in c["ranges"] if x["rank"] == r and x["name"] == "work") for r in (0, 1)}
assert w == {0: 3, 1: 3}, w
t = json.load(open(sys.argv[2]))
names = [e["args"]["name"] for e in t["traceEvents"] if e.get("ph") == "M" and e["name"] == "process_name"]
assert sum(n.startswith("two rank 0: GPU") for n in names) == 1 and sum(n.startswith("two rank 1: GPU") for n in names) == 1, names
PY

sed -i 's/^world_size: 2$/world_size: 3/' "$WORK/lessons/00_ranks/lesson.yaml"
out=$($GRADER check "$WORK/lessons/00_ranks" --predictions "$WORK/one-wrong.yaml" 2>&1); rc=$?
echo "$out" | tail -5
[ $rc -eq 3 ] || fail "a missing rank: exit $rc, expected 3"
grep -q "rank 2 of its 3" <<<"$out" || fail "the missing rank is not named"

[ $failures -eq 0 ] && echo "ranks_capture: all cases passed" || { echo "ranks_capture: $failures failure(s)"; exit 1; }
