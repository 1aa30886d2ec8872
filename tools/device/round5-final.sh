#!/bin/bash
# Round 5's closing GPU run, one call: the GPT-2 124M benchmark against PyTorch in the same run
# (tools/device/lesson04-run.sh: engine B=16 eager and --graph, B=32 --graph, PyTorch eager and
# torch.compile, a CUPTI profile), then tools/device/keys-final.sh (lessons 04 and 06 recorded
# again and their keys checked, every GPU test, every other key live x3).
#   tools/device/round5-final.sh BUILD_DIR     (results: $OUT/bench/results.tgz, $OUT/keys/final.tgz)
set -u
B=${1:-build-dev}
mkdir -p "$OUT/bench" "$OUT/keys"
OUT=$OUT/bench GPUTESTS=0 RECORD=0 COMPILE_TIMEOUT=${COMPILE_TIMEOUT:-120} ENGINE="b16-eager b16-graph b32-graph b16-graph-again" \
    tools/device/lesson04-run.sh "$B" 2>&1 | grep -E "RESULT|^--" 
OUT=$OUT/keys OTHERS=${OTHERS:-0} tools/device/keys-final.sh "$B" 2>&1 | grep -vE "^\s+(PASS|ok)" | tail -60
