#!/bin/sh
# replay_and_fuzz.sh EXE CORPUS SEED RUNS MAX_LEN: what ctest runs for each fuzz target, the same
# way on every run of a commit:
#   1. every committed input of CORPUS (seeds, and every crash, out-of-memory and timeout input
#      found so far) run once, whole;
#   2. RUNS mutated inputs from random seed SEED, starting from the corpus in file-name order.
# Both under -rss_limit_mb=512 (a single allocation above it fails too) and -timeout=10: an input
# costing more memory or time than that is a failure, whatever it returns. New inputs go to a
# scratch folder in the current directory; the committed corpus is never written.
# Two libFuzzer features would make runs differ, so they are off here (campaigns keep them):
# -reload=0, else it rereads that folder every second (timing); -use_cmp=0, else the operands of
# compares feed its dictionary, and pointers among them change with address randomisation
# (measured: 349 and 358 edges covered on two runs of one commit with it, 359 every time without).
# EXE is a libFuzzer binary or the standalone driver (same flags). Long, non-reproducible campaigns
# that add to the corpus: scripts/fuzz-campaign.sh.
set -eu
exe=$1 corpus=$2 seed=$3 runs=$4 max_len=$5
limits="-rss_limit_mb=512 -timeout=10"
name=$(basename "$corpus")
rm -rf "$name.new" && mkdir "$name.new"
inputs=$(find "$corpus" -maxdepth 1 -type f | LC_ALL=C sort)
[ -n "$inputs" ] || { echo "$corpus: no inputs" >&2; exit 1; }
echo "== replaying $(echo "$inputs" | wc -l) committed inputs of $corpus"
# shellcheck disable=SC2086 # one argument per file; corpus file names hold no spaces
if ! "$exe" $limits $inputs >"$name.replay.log" 2>&1; then
    tail -n 60 "$name.replay.log"
    echo "FAILED: a committed input of $corpus fails (log: $PWD/$name.replay.log)" >&2
    exit 1
fi
tail -n 2 "$name.replay.log"
echo "== fuzzing: -seed=$seed -runs=$runs -max_len=$max_len"
seeds=$(echo "$inputs" | paste -sd, -)
"$exe" $limits -seed="$seed" -runs="$runs" -max_len="$max_len" -reload=0 -use_cmp=0 -print_final_stats=1 -seed_inputs="$seeds" "$name.new"
