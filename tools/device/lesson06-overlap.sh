#!/bin/bash
# (The capture of a lesson-06 rank goes to $WB_CAPTURE_OUT.rank<r>.)
# Why lesson 06's overlap_us moves from run to run: GPT-2 124M on one rank captured 3 times at each
# of several batch sizes, each capture's backward range summarised by overlap_probe.py (busy,
# overlap, the compute stream's idle gaps, each oneRankReduce kernel's overlapped share).
#   tools/device/lesson06-overlap.sh BUILD_DIR "1 2 4" [BINARY...]   (from the repository root; logs in $OUT/r)
# BINARY: lesson 06 builds to compare (default BUILD_DIR/bin/lesson_06_data_parallel); RUNS per batch (3).
set -u
B=${1:-build-dev}
. tools/device/gpu-env.sh
CUPTI=$(ls /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13* 2>/dev/null | head -1)
batches=${2:-1 2 4}; shift 2 2>/dev/null || shift $#
for bin in ${@:-$B/bin/lesson_06_data_parallel}; do
for batch in $batches; do
    for i in $(seq ${RUNS:-3}); do
        rm -f /tmp/ov.json.rank0
        CUDA_INJECTION64_PATH=$PWD/$B/lib/libwb_capture.so NVTX_INJECTION64_PATH=$CUPTI WB_CAPTURE_OUT=/tmp/ov.json \
            timeout 120 $bin --variant overlap --world-size 1 --preset 124m --batch $batch \
            --data random --steps 2 --profile-warmup 1 > $R/ov-$(basename $bin)-b$batch-$i.txt 2>&1 || { echo "$bin batch $batch run $i failed"; tail -5 $R/ov-$(basename $bin)-b$batch-$i.txt; }
        echo "$(basename $bin) batch $batch run $i: $(python3 tools/device/overlap_probe.py /tmp/ov.json.rank0 backward)"
    done
done
done
