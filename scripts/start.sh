#!/bin/bash
# start.sh: the first command of the quick start. Sets up what is missing, builds the workbench,
# says what to read first, and starts the course: `grader check lessons/01_matmul_add` (extra
# arguments go to grader check), which asks the lesson's questions on a terminal. On a machine
# without a GPU the grader replays the lesson's H200 recording.
set -u
WB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$WB_ROOT/scripts/deps.sh"
wb_ensure_packages || exit 1
wb_find_nvcc || exit 1
wb_build "$WB_ROOT/build" || { echo "build failed: see the messages above" >&2; exit 1; }
cd "$WB_ROOT" || exit 1
cat <<'TEXT'

Built. The course starts with lesson 01. Before answering anything, read
  lessons/01_matmul_add/README.md   down to the line <!-- reveal --> (past it are the answers)
  lessons/01_matmul_add/main.cu     the program the questions are about
Then grader check asks the lesson's questions here and grades your answers.
TEXT
if [ -t 0 ] && [ -t 1 ]; then
    read -r -p "(Ctrl-C stops here; scripts/start.sh starts again.) Press Enter when you have read them: " _ || exit 1
fi
exec build/bin/grader check lessons/01_matmul_add "$@"
