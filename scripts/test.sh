#!/bin/bash
# test.sh: the second command of the quick start, and what CI runs (.ci/run). Builds everything
# and runs the whole test suite. Tests labelled gpu report themselves skipped without a GPU.
set -u
WB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$WB_ROOT/scripts/deps.sh"
wb_ensure_packages || exit 1
wb_find_nvcc || exit 1
BUILD=${WB_BUILD_DIR:-$WB_ROOT/build}
wb_build "$BUILD" || { echo "build failed: see the messages above" >&2; exit 1; }
cd "$BUILD" && ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)" "$@"
