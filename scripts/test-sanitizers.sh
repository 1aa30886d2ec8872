#!/bin/bash
# test-sanitizers.sh: builds the project with AddressSanitizer and UndefinedBehaviorSanitizer in a
# second build folder (build-asan, or $WB_ASAN_BUILD_DIR) and runs every test that runs without a
# GPU there: the grader, its unit and command-line tests, the engine's CPU and emulation tests.
# Any sanitizer finding fails the test it happens in. CI runs it after scripts/test.sh (.ci/run).
# The fuzz targets are left out here: they are sanitizer builds already, run by scripts/test.sh.
set -u
WB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$WB_ROOT/scripts/deps.sh"
wb_ensure_packages || exit 1
wb_find_nvcc || exit 1
BUILD=${WB_ASAN_BUILD_DIR:-$WB_ROOT/build-asan}
generator=""
command -v ninja >/dev/null && [ ! -f "$BUILD/CMakeCache.txt" ] && generator="-G Ninja"
cmake -S "$WB_ROOT" -B "$BUILD" $generator -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWB_SANITIZE=ON -DWB_BUILD_FUZZ=OFF >/dev/null ||
    { echo "configuring $BUILD failed" >&2; exit 1; }
cmake --build "$BUILD" --parallel "$(nproc 2>/dev/null || echo 2)" || { echo "sanitized build failed: see the messages above" >&2; exit 1; }
# halt_on_error and abort: a finding ends the process with a failing status, whatever the test expects.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# test_engine_cuda_emu (the CUDA backend on its CPU emulation) runs whole, on its own, after the
# others, instead of as its two ctest parts: under the sanitizers it costs ten times its plain CPU
# time (314 s against 31: ASan's swapcontext interceptor, docs/fuzzing.md), so no ctest TIMEOUT
# has to allow for a sanitized build. A filtered run (arguments given) leaves it out. docs/fuzzing.md.
# the suite runs in English whatever the shell's locale (as in scripts/test.sh)
# (LC_ALL first: bash re-reads the locale at each change, and warns when a Japanese locale named
# by LANG is not installed)
export LC_ALL=C.UTF-8 LANG=C.UTF-8
unset LANGUAGE LC_MESSAGES LC_ALL
cd "$BUILD" || exit 1
rc=0
ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)" -LE gpu -E '^test_engine_cuda_emu_[0-9]' "$@" || rc=1
if [ $# -eq 0 ]; then
    start=$(date +%s)
    if ./tests/test_engine_cuda_emu >test_engine_cuda_emu.log 2>&1; then
        echo "test_engine_cuda_emu under the sanitizers: $(tail -n 1 test_engine_cuda_emu.log) ($(($(date +%s) - start)) s)"
    else
        tail -n 40 test_engine_cuda_emu.log
        echo "test_engine_cuda_emu failed under the sanitizers (log: $BUILD/test_engine_cuda_emu.log)" >&2
        rc=1
    fi
fi
exit $rc
