#!/bin/bash
# start.sh: the first command of the quick start. Sets up what is missing, builds the workbench,
# and goes on with the course: `grader check` (extra arguments go to it) takes the next lesson not
# graded yet, names its README and program, and asks its questions on a terminal. Run again, it
# goes on to the next lesson. On a machine without a GPU the grader replays the H200 recordings.
set -u
WB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$WB_ROOT/scripts/deps.sh"
wb_lang_from_args "$@" # its messages in the grader's language (scripts/i18n.sh)
wb_ensure_packages || exit 1
wb_find_nvcc || exit 1
if ! wb_build "$WB_ROOT/build"; then
    wb_say "build failed: see the messages above" >&2
    exit 1
fi
cd "$WB_ROOT" || exit 1
echo
wb_say "Built. grader check takes the next lesson you have not graded (lesson 01 the first time), names
what to read before its questions, asks them here and grades your answers."
exec build/bin/grader check "$@"
