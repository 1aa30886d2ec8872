#!/bin/bash
# First look on the GPU machine: does the capture work there, what do the records look like.
# Usage (device tool): carry build-lead; run tools/device/first-probe.sh build-lead
set -u
B=${1:-build}
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
ls -la /usr/local/cuda/targets/x86_64-linux/lib/ | grep -E "cupti|cublas" | head
CUPTI=$(ls /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13* | head -1)
echo "CUPTI=$CUPTI"
cap() { # name, binary args...
  local name=$1; shift
  CUDA_INJECTION64_PATH=$PWD/$B/lib/libwb_capture.so NVTX_INJECTION64_PATH=$CUPTI WB_CAPTURE_OUT=$R/$name.json "$@"
  echo "== $name exit $? size $(stat -c %s $R/$name.json 2>/dev/null)"
}
cap probe-eager $B/bin/wb_probe
cap probe-graph $B/bin/wb_probe --graph
cap probe-crash $B/bin/wb_probe --crash --steps 1
cap probe-fail $B/bin/wb_probe --fail --steps 1
for l in 01_matmul_add 02_linear 03_mlp; do
  bin=$B/bin/lesson_$l
  [ -x $bin ] && cap lesson-$l $bin --steps 3
done
python3 - <<'PY'
import json, os, collections
R = os.environ["OUT"] + "/r"
for f in sorted(os.listdir(R)):
    if not f.endswith(".json"): continue
    d = json.load(open(os.path.join(R, f)))
    print("###", f, "complete", d["complete"], "cupti", d["cupti_enabled"], "dropped", d["dropped_records"], "versions", d["versions"], "devices", d["devices"], "windows", d["profiler_windows"])
    api = d["api_calls"]; ks = d["kernels"]
    print(" api", len(api), "kernels", len(ks), "memcpys", len(d["memcpys"]), "memsets", len(d["memsets"]), "ranges", len(d["ranges"]))
    print(" api names", collections.Counter((a["domain"], a["name"]) for a in api).most_common(40))
    print(" kernel names", collections.Counter(k["name"][:100] for k in ks).most_common(10))
    # nested API calls: same thread, inside another
    by_t = collections.defaultdict(list)
    for a in api: by_t[a["thread"]].append(a)
    nested = collections.Counter()
    for t, calls in by_t.items():
        calls.sort(key=lambda a: (a["start"], -a["end"]))
        stack = []
        for a in calls:
            while stack and stack[-1]["end"] < a["end"]: stack.pop()
            if stack: nested[(stack[-1]["name"], a["domain"], a["name"])] += 1
            stack.append(a)
    print(" nested (outer, domain, inner)", nested.most_common(20))
    corr = collections.Counter(a["correlation_id"] for a in api)
    print(" duplicated correlation ids", sum(1 for c in corr.values() if c > 1))
PY
echo "== grader verify probe (live)"
$B/bin/grader verify tests/grader/probe/lessons/00_probe; echo "verify exit $?"
echo "== grader record probe"
$B/bin/grader record tests/grader/probe/lessons/00_probe; echo "record exit $?"
cp tests/grader/probe/lessons/00_probe/traces/*.json $R/ 2>/dev/null
echo "== grader check crash lesson"
$B/bin/grader check tests/grader/probe/lessons/00_crash; echo "check crash exit $?"
cd $OUT && tar czf results.tgz r && ls -la $OUT
