#!/bin/bash
# test.sh: the second command of the quick start, and what CI runs (.ci/run). Builds everything
# and runs the whole test suite. Tests labelled gpu report themselves skipped without a GPU.
set -u
WB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$WB_ROOT/scripts/deps.sh"
wb_ensure_packages || exit 1
wb_find_nvcc || exit 1
BUILD=${WB_BUILD_DIR:-$WB_ROOT/build}
if ! wb_build "$BUILD"; then
    wb_say "build failed: see the messages above" >&2
    exit 1
fi
# The suite compares the grader's English output: it runs in English whatever the shell's locale
# (the tests of the Japanese set their own LANG).
# (LC_ALL first: bash re-reads the locale at each change, and warns when a Japanese locale named
# by LANG is not installed)
export LC_ALL=C.UTF-8 LANG=C.UTF-8
unset LANGUAGE LC_MESSAGES LC_ALL
cd "$BUILD" || exit 1
ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)" "$@"
rc=$?
# The translations' warnings (stale or missing Japanese, docs/i18n.md) never fail the suite, so
# ctest would not show them: the full run lists them here, for CI's log.
if [ $# -eq 0 ]; then
    warnings=$(cd "$WB_ROOT" && NO_COLOR=1 "$BUILD/bin/grader" lint 2>&1 | grep -F "[translation-")
    if [ -n "$warnings" ]; then
        echo
        echo "Translations to bring in step (grader lint, docs/i18n.md):"
        echo "$warnings"
    fi
fi
exit $rc
