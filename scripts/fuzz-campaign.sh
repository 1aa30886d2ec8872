#!/bin/bash
# fuzz-campaign.sh TARGET [SECONDS]: a long fuzzing campaign on one target (predictions, lesson,
# answer_key or capture), default 600 s, at the lowest CPU priority. Unlike the ctest runs it is not
# reproducible (random seed, libFuzzer's full feature set) and it keeps the coverage it gains in
# .workbench/fuzz/TARGET between campaigns. Every input that fails (crash, out of memory above
# 512 MB, timeout above 10 s, leak) is copied into tests/grader/fuzz/corpus_TARGET/ as
# found-KIND-HASH, so that every later ctest run replays it: fix the grader, then commit the input
# with the fix. Prints the figures to quote: executions, coverage, peak memory. docs/fuzzing.md.
set -u
WB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
target=${1:-}
seconds=${2:-600}
case "$target" in
    predictions | lesson | answer_key) max_len=16384 ;;
    capture) max_len=65536 ;;
    *) echo "usage: scripts/fuzz-campaign.sh predictions|lesson|answer_key|capture [SECONDS]" >&2; exit 2 ;;
esac
case "$seconds" in '' | *[!0-9]*) echo "SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
BUILD=${WB_BUILD_DIR:-$WB_ROOT/build}
[ -f "$BUILD/CMakeCache.txt" ] || { echo "$BUILD: not configured; run scripts/test.sh first (or set WB_BUILD_DIR)" >&2; exit 2; }
cmake --build "$BUILD" --target "fuzz_$target" >/dev/null || { echo "building fuzz_$target failed" >&2; exit 1; }
exe=$BUILD/tests/fuzz_$target
corpus=$WB_ROOT/tests/grader/fuzz/corpus_$target
work=$WB_ROOT/.workbench/fuzz/$target
mkdir -p "$work/corpus" "$work/findings"
log=$work/campaign-$(date -u +%Y%m%dT%H%M%SZ).log
echo "fuzz_$target for $seconds s (log: $log)"
# The kept corpus first: libFuzzer adds what it finds there, never to the committed one.
( cd "$work/findings" && nice -n 19 "$exe" -max_total_time="$seconds" -rss_limit_mb=512 -timeout=10 -max_len="$max_len" \
      -print_final_stats=1 "$work/corpus" "$corpus" ) >"$log" 2>&1
rc=$?
found=0
for f in "$work"/findings/crash-* "$work"/findings/oom-* "$work"/findings/timeout-* "$work"/findings/leak-*; do
    [ -f "$f" ] || continue
    kind=$(basename "$f" | cut -d- -f1)
    dest=$corpus/found-$kind-$(sha1sum "$f" | cut -c1-12)
    cp "$f" "$dest" && rm -f "$f"
    echo "FOUND ($kind): $dest"
    found=$((found + 1))
done
grep -E "^#[0-9]+[[:space:]]+(DONE|INITED)|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)" "$log" | tail -n 6
grep -E "^standalone fuzz driver" "$log" | tail -n 1
if [ "$found" -gt 0 ] || [ "$rc" -ne 0 ]; then
    tail -n 40 "$log"
    echo "fuzz_$target: $found failing input(s) added to $corpus (exit $rc): fix them and commit them with the fix" >&2
    exit 1
fi
echo "fuzz_$target: nothing found in $seconds s"
