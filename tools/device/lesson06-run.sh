#!/bin/bash
# Lesson 06 on the GPU machine in one call: its GPU tests (one rank = lesson 04 exactly; the 2- and
# 4-rank comparisons skip themselves below 2 and 4 GPUs), its recording (grader record: every
# variant of lesson.yaml), then the benchmark bench/gpt2_ddp_bench.sh for the GPU counts the
# machine has (lesson 06 overlap and no-overlap, lesson 04 at 1 GPU, PyTorch DDP eager and
# torch.compile through torchrun). Everything comes back as $OUT/results.tgz.
#
#   tools/device/lesson06-run.sh BUILD_DIR      (run from the repository root)
#
# How the build gets NCCL: the lesson is built on the development machine, whose CUDA 13 folder has
# nccl.h and libnccl.so (NCCL 2.28.9, the nvidia-nccl-cu13 wheel's files), with a carried build
# folder (PROTOCOL.md; bundle-libs would copy the 218 MB libnccl.so.2, so delete it from devlibs:
# the carry limit is 64 MiB). Here the loader takes libnccl.so.2 from python3's nvidia-nccl-cu13
# package (site-packages/nvidia/nccl/lib), put first on LD_LIBRARY_PATH below.
# Environment: GPUS (benchmark GPU counts, default every count of 1 2 4 8 the machine has),
# COMPILE_TIMEOUT (s, torch.compile's run per GPU count, default 150), RECORD=0, BENCH=0, TESTS=0,
# REPEAT=N (grader record --repeat N, default 1), VERIFY=N (then grader verify --repeat N, default 0).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0) in every run, as the GPU machine requires.
set -u
B=${1:-build}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
NCCL_DIR=$(python3 -c "import nvidia.nccl as n; print(list(n.__path__)[0])" 2>/dev/null)
export LD_LIBRARY_PATH=${NCCL_DIR:+$NCCL_DIR/lib:}$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
export WB_STATE_DIR=${WB_STATE_DIR:-/tmp/wb-state}
R=${OUT:-/tmp}/r
mkdir -p "$R"
exec > >(tee "$R/log.txt") 2>&1
L=lessons/06_data_parallel
t0=$(date +%s)
stamp() { echo "-- $(( $(date +%s) - t0 )) s: $*"; }
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
nvidia-smi topo -m 2>/dev/null | head -12
echo "NCCL: ${NCCL_DIR:-not found in python3} ($(python3 -m pip show nvidia-nccl-cu13 2>/dev/null | grep ^Version))"
ldd "$B/bin/lesson_06_data_parallel" | grep -E "nccl|not found"

if [ "${TESTS:-1}" = 1 ]; then
    stamp "lesson 06 GPU tests"
    ctest --test-dir "$B" -L gpu -R "dp_" --output-on-failure >"$R/ctest.txt" 2>&1
    grep -E "tests passed|tests failed|Failed|Skipped|Passed|\*\*\*" "$R/ctest.txt" | head -20
    cp "$B"/gpu_dp_one_rank_is_lesson_04/l06.log "$R/one-rank-l06.log" 2>/dev/null
fi
if [ "${RECORD:-1}" = 1 ]; then
    stamp "lesson 06: record"
    timeout 300 "$B/bin/grader" record $L --repeat "${REPEAT:-1}" 2>&1 | tail -5
    cp $L/traces/sm_90.json "$R/l06-sm_90.json" 2>/dev/null; ls -la $L/traces/ 2>/dev/null
    cp "$WB_STATE_DIR"/runs/06_data_parallel/*/lesson-*.log "$R/" 2>/dev/null
fi
if [ "${VERIFY:-0}" -gt 0 ]; then
    stamp "lesson 06: grader verify --repeat $VERIFY"
    timeout 300 "$B/bin/grader" verify $L --repeat "$VERIFY" 2>&1 | grep -v "^running" | tail -12
fi
if [ "${BENCH:-1}" = 1 ]; then
    stamp "benchmark"
    COMPILE_TIMEOUT=${COMPILE_TIMEOUT:-150} RESULTS=$R/bench.txt bench/gpt2_ddp_bench.sh "$B"
fi
stamp "done"
cd "${OUT:-/tmp}" && tar czf results.tgz r && rm -rf r && ls -la
