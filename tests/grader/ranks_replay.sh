#!/bin/bash
# ranks_replay.sh GRADER: the ranks lesson (two processes, tests/grader/ranks) in replay of its
# H200 recording: its answer key (true by construction of ranks.cu) holds, a check grades facts
# per rank and over both ranks, and the trace and timeline have lanes per rank.
set -u
GRADER=$1
SRC=${WB_SOURCE_DIR:?}/tests/grader/ranks
WORK=$(mktemp -d /tmp/wb-ranks-replay-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cp -r "$SRC"/. "$WORK"/
export WB_STATE_DIR=$WORK/state
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[ -f "$WORK/lessons/00_ranks/traces/sm_90.json" ] || { echo "no recording of the ranks lesson"; exit 1; }

$GRADER verify "$WORK/lessons/00_ranks" || fail "the answer key by construction does not hold in replay"

out=$($GRADER check "$WORK/lessons/00_ranks" --predictions "$WORK/one-wrong.yaml" 2>&1); rc=$?
echo "$out"
[ $rc -eq 1 ] || fail "check with one wrong fact: exit $rc, expected 1"
grep -q "Score: 8 of 9 facts right" <<<"$out" || fail "score"
grep -q "range work, rank 1, 3 occurrences" <<<"$out" || fail "the report does not say which rank"
trace=$(grep -o '/[^ ]*trace.json' <<<"$out" | head -1)
python3 - "$trace" "$(dirname "$trace")/timeline.html" <<'PY' || fail "trace or timeline lanes per rank"
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"}
for r in (0, 1):
    for part in ("host API", "NVTX ranges"):
        assert f"two rank {r}: {part}" in names.values(), (r, part, names)
gpu = {r: [p for p, n in names.items() if n.startswith(f"two rank {r}: GPU")] for r in (0, 1)}
assert all(len(v) == 1 for v in gpu.values()), gpu
k = {r: sum(1 for e in ev if e.get("cat") == "kernel" and e["pid"] == gpu[r][0]) for r in (0, 1)}
# the profiled window shows the 3 steps of each rank: 2 and 3 launches per step
assert k[0] >= 6 and k[1] >= 9 and k[0] < k[1], k
html = open(sys.argv[2]).read()
assert "Rank 0 of 2" in html and "Rank 1 of 2" in html, "timeline without a part per rank"
PY
# recordings whose ranks do not add up are refused (exit 3, naming the rank), never graded
tamper() { # NAME PYTHON: a copy of the recording changed by PYTHON (c is each run's capture)
    python3 - "$WORK/lessons/00_ranks/traces/sm_90.json" "$WORK/$1.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for run in r["runs"]:
    c = run["capture"]
    exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PY
}
refused() { # NAME WANT...: check against that copy exits 3 and says each WANT
    local name=$1 out rc w
    shift
    out=$($GRADER check "$WORK/lessons/00_ranks" --predictions "$WORK/one-wrong.yaml" --replay "$WORK/$name.json" 2>&1); rc=$?
    [ $rc -eq 3 ] || fail "$name: exit $rc, expected 3 (refused)"
    grep -q "Score:" <<<"$out" && fail "$name: graded anyway"
    for w in "$@"; do grep -qF -- "$w" <<<"$out" || fail "$name: the refusal does not say '$w': $out"; done
}
tamper world3 'c["world_size"] = 3'
refused world3 "world_size 3" "rank 2"
tamper world1 'c["world_size"] = 1; c["ranks"] = c["ranks"][:1]'
refused world1 "world_size 1" "rank 1"
tamper noheader 'c["ranks"] = c["ranks"][:1]'
refused noheader "rank 1" "header"
tamper norank 'del c["ranges"][1]["rank"]'
refused norank "no rank" "range"

[ $failures -eq 0 ] && echo "ranks_replay: all cases passed" || { echo "ranks_replay: $failures failure(s)"; exit 1; }
