#!/bin/bash
# start.sh: the first command of the quick start. Sets up what is missing, builds the workbench,
# and starts the course: `grader check lessons/01_matmul_add` (extra arguments go to grader check).
# On a machine without a GPU the grader replays the lesson's H200 recording.
set -u
WB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$WB_ROOT/scripts/deps.sh"
wb_ensure_packages || exit 1
wb_find_nvcc || exit 1
wb_build "$WB_ROOT/build" || { echo "build failed: see the messages above" >&2; exit 1; }
cd "$WB_ROOT" && exec build/bin/grader check lessons/01_matmul_add "$@"
