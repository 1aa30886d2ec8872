#!/bin/bash
# gradebook_bench.sh [GRADER] [LEARNERS]: how long importing and regrading a cohort takes
# (docs/performance.md). tests/grader/gradebook/gen_cohort.py makes LEARNERS (default 500)
# submissions of every learners' lesson of this checkout from its fixed seed; `grader gradebook
# import` reads, validates, regrades and stores them into a new gradebook, timed by /usr/bin/time
# (wall and CPU: on a shared machine the CPU time is the figure that does not depend on the
# neighbours), then the report is timed the same way. Runs on the CPU only: no GPU is needed.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GRADER=${1:-$ROOT/build/bin/grader}
LEARNERS=${2:-500}
WORK=$(mktemp -d /tmp/wb-gradebook-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export WB_ROOT=$ROOT
python3 "$ROOT/tests/grader/gradebook/gen_cohort.py" "$GRADER" "$ROOT" "$WORK" "$LEARNERS"
echo "cohort: $LEARNERS submissions, $(du -sh "$WORK/submissions" | cut -f1); $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "import: %e s wall, %U s user, %S s system, %M KB peak" \
    "$GRADER" gradebook import "$WORK/submissions" --db "$WORK/gb.db" | tail -1
/usr/bin/time -f "report: %e s wall, %U s user, %S s system" \
    "$GRADER" gradebook report --db "$WORK/gb.db" --format json >/dev/null
echo "gradebook: $(du -h "$WORK/gb.db" | cut -f1); load average after $(cut -d' ' -f1-3 /proc/loadavg)"
