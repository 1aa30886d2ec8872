#!/bin/bash
# Lesson 04 on the GPU machine in one call: the engine's GPU tests, the GPT-2 124M benchmark
# (engine eager and --graph at B=16 and B=32, PyTorch eager and torch.compile in the same run), a
# CUPTI profile of one 124M step summarised per kernel, and lesson 04's recording with a live
# check of its answer key (VERIFY=N: grader verify --repeat N; 0: record only).
#   tools/device/lesson04-run.sh BUILD_DIR      (run from the repository root; writes under $OUT)
# Environment: TORCH=0 skips PyTorch, COMPILE_TIMEOUT (s, default 240) bounds torch.compile's run,
# PROFILE=0 skips the profile, RECORD=0 skips the recording, BENCH=0 the engine benchmark (ENGINE:
# which of its configurations, default all), GPUTESTS=0 the ctest run of the gpu label, TRAIN=N
# adds a training run of N steps on lessons/04_gpt2_autodiff/data/train.txt (scripts/get_data.sh)
# for docs/performance.md. Everything comes back as $OUT/results.tgz (the device tool returns
# only a few files).
set -u
B=${1:-build}
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=${OUT:-/tmp}/r
mkdir -p "$R"
exec > >(tee "$R/log.txt") 2>&1
L=lessons/04_gpt2_autodiff
BIN=$B/bin/lesson_04_gpt2_autodiff
CUPTI=$(ls /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13* 2>/dev/null | head -1)
t0=$(date +%s)
stamp() { echo "-- $(( $(date +%s) - t0 )) s: $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader

if [ "${GPUTESTS:-1}" = 1 ]; then
stamp "GPU tests (engine and lesson 04)"
ctest --test-dir "$B" -L gpu -R "engine|lesson_04" --output-on-failure > "$R/ctest.txt" 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$R/ctest.txt" | head -20
fi
WB_SOURCE_DIR=$PWD "$B/bin/gpu_engine_fixture" > "$R/fixture.txt" 2>&1; grep -E "rel|passed|FAIL" "$R/fixture.txt" | head -40

run_engine() { # name, args...
    local name=$1; shift
    case " ${ENGINE:-$name} " in *" $name "*) ;; *) return ;; esac
    timeout 120 "$BIN" --backend cuda --preset 124m --data random --vocab 50257 --steps 25 --profile-warmup 5 \
        --log-every 25 --eval-batches 1 --no-checkpoint --out /tmp/b-$name "$@" > "$R/bench-$name.txt" 2>&1
    local r=$(sed -n 's/^summary: .*median \([0-9.]*\) ms\/step, \([0-9]*\) tok\/s, MFU \([0-9.]*\)%.*/\2 \1 \3/p' "$R/bench-$name.txt")
    echo "RESULT engine-$name tokens_per_s=${r%% *} rest=${r#* } (ms/step MFU%)" | tee -a "$R/results.txt"
}
if [ "${BENCH:-1}" = 1 ]; then
stamp "benchmark: engine"
run_engine b16-eager
run_engine b16-graph --graph
run_engine b32-eager --batch 32
run_engine b32-graph --batch 32 --graph
run_engine b16-bmm --attn bmm
fi
if [ "${TORCH:-1}" = 1 ]; then
    stamp "benchmark: PyTorch eager, then torch.compile (bounded to ${COMPILE_TIMEOUT:-240} s)"
    timeout 120 python3 bench/gpt2_torch.py --steps 20 --warmup 5 --modes eager 2>&1 | grep RESULT | tee -a "$R/results.txt"
    timeout "${COMPILE_TIMEOUT:-240}" python3 bench/gpt2_torch.py --steps 20 --warmup 5 --modes compile 2>&1 | grep -E "RESULT|Error" | tee -a "$R/results.txt"
    run_engine b16-graph-again --graph
fi
if [ "${PROFILE:-1}" = 1 ]; then
    stamp "profile: one CUPTI capture of 3 steps, B=16, --attn flash"
    CUDA_INJECTION64_PATH=$PWD/$B/lib/libwb_capture.so NVTX_INJECTION64_PATH=$CUPTI WB_CAPTURE_OUT=$R/prof.json \
        timeout 120 "$BIN" --backend cuda --preset 124m --data random --vocab 50257 --steps 5 --profile-warmup 2 \
        --log-every 1 --no-checkpoint --out /tmp/prof > "$R/prof-run.txt" 2>&1
    python3 tools/device/capture_summary.py "$R/prof.json" > "$R/prof-summary.txt" 2>&1
    head -40 "$R/prof-summary.txt"; rm -f "$R/prof.json"
fi
if [ "${RECORD:-1}" = 1 ]; then
    stamp "lesson 04: record, replay check, live check"
    "$B/bin/grader" record $L 2>&1 | tail -3
    cp $L/traces/sm_90.json "$R/l04-sm_90.json"; ls -la $L/traces/; cp .workbench/runs/04_gpt2_autodiff/*record*/lesson-*.log "$R/" 2>/dev/null
    "$B/bin/grader" verify $L --replay 2>&1 | tail -30
    [ "${VERIFY:-0}" -gt 0 ] && "$B/bin/grader" verify $L --repeat "$VERIFY" 2>&1 | grep -v "^running" | tail -30
fi
if [ "${TRAIN:-0}" -gt 0 ]; then
    stamp "training run: $TRAIN steps on $L/data/train.txt"
    timeout 200 "$BIN" --backend cuda --layers 12 --heads 12 --width 768 --context 256 --batch 32 --vocab 8192 \
        --data $L/data/train.txt --steps "$TRAIN" --warmup 200 --lr 3e-4 --eval-every 250 --eval-batches 8 \
        --sample-every 1000 --sample-len 48 --log-every 50 --graph --no-checkpoint --out /tmp/train \
        > "$R/train.txt" 2>&1
    echo "train rc=$?"; grep -E "^val|^summary|^validation|^sample|^data|^model|^tokenizer" "$R/train.txt" | head -40
fi
stamp "done"
cat "$R/results.txt"
cd "${OUT:-/tmp}" && tar czf results.tgz r && rm -rf r && ls -la
