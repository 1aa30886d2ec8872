#!/bin/sh
# run_lessons_bench.sh [lessons_bench.py options]: the lessons 01-03 benchmark on a GPU machine.
#
# Run from the repository root with a build folder made on the development machine and carried
# here: `tools/gpu-run bench lessons` runs it so (docs/gpu-machine.md); by hand,
#     WB_BUILD_DIR=build-gpu bench/run_lessons_bench.sh           # report in $OUT/bench.md
# It times PyTorch (eager and torch.compile) and every lesson variant in one run, with bench_gelu_mul
# (lesson 03's gelu * u kernel alone) over every implementation of it (--impl all), runs the lesson
# programs again under the build's CUPTI capture library ($build/lib/libwb_capture.so; libcupti
# from CUDA's usual places or $WB_CUPTI_LIBRARY) for kernel durations, summarises the SASS of the
# gelu * u kernels when cuobjdump is there, and prints one markdown report ($OUT/bench.md, with
# bench.json and sass_lesson_03.txt beside it). Exit 0 when everything ran (timings are
# reported, not asserted); 1 when something failed, e.g. a kernel that differs from the CPU.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${WB_BUILD_DIR:-build}
for prog in lesson_03_mlp bench_gelu_mul; do
    if [ ! -x "$build/bin/$prog" ]; then
        echo "run_lessons_bench.sh: $build/bin/$prog not found; build first (cmake --build $build)" >&2
        exit 2
    fi
done
if [ -d "$build/devlibs" ]; then
    LD_LIBRARY_PATH="$root/$build/devlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>/dev/null || true
PYTHONUNBUFFERED=1 # progress lines reach the log as they happen
export PYTHONUNBUFFERED
exec python3 bench/lessons_bench.py --bin "$build/bin" --lib "$build/lib" "$@"
