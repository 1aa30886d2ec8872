#!/bin/sh
# same_as_lesson04.sh PROBE RANKS TOLERANCE LESSON04 LESSON06 OUTDIR [LESSON06 ARGS...]
# Trains the same tiny GPT-2 on the same tokens twice: lesson 04 on one GPU with a batch of 4, and
# lesson 06 with RANKS ranks of 4/RANKS sequences each (the same global batch), for 12 steps, and
# compares the printed losses (and, with TOLERANCE 0, the gradient norms) step by step:
#   TOLERANCE 0    every "loss X | lr Y | norm Z" line identical (one rank computes what lesson 04 does)
#   TOLERANCE t    every loss within a relative t of lesson 04's (bf16 gradients averaged over ranks
#                  round differently from one batch's), and lesson 06's loss fell
# Exits 77 (skipped) when fewer than RANKS GPUs are usable (PROBE RANKS says so).
probe=$1 ranks=$2 tol=$3 l04=$4 l06=$5 out=$6
shift 6
"$probe" "$ranks" || exit 77
export NCCL_NVLS_ENABLE=0
common="--data builtin --builtin-bytes 200000 --vocab 512 --layers 2 --heads 1 --width 64 --context 64 --steps 12 --seed 1337"
mkdir -p "$out"
# shellcheck disable=SC2086
"$l04" --backend cuda --batch 4 $common --sample-len 0 --eval-batches 1 --no-checkpoint --out "$out/l04" >"$out/l04.log" 2>&1 ||
    { cat "$out/l04.log"; echo "same_as_lesson04.sh: lesson 04 failed" >&2; exit 1; }
# shellcheck disable=SC2086
"$l06" --world-size "$ranks" --batch $((4 / ranks)) $common "$@" >"$out/l06.log" 2>&1 ||
    { cat "$out/l06.log"; echo "same_as_lesson04.sh: lesson 06 failed" >&2; exit 1; }
steps() { grep '^step ' "$1" | awk -F'|' '{ gsub(/ +$/, "", $4); print $2 "|" $3 "|" $4 }'; }
steps "$out/l04.log" >"$out/l04.steps"
steps "$out/l06.log" >"$out/l06.steps"
[ "$(wc -l <"$out/l04.steps")" -eq 12 ] && [ "$(wc -l <"$out/l06.steps")" -eq 12 ] ||
    { cat "$out/l06.log"; echo "same_as_lesson04.sh: want 12 step lines from each program" >&2; exit 1; }
if [ "$tol" = 0 ]; then
    diff "$out/l04.steps" "$out/l06.steps" || { echo "same_as_lesson04.sh: one rank differs from lesson 04" >&2; exit 1; }
    echo "12 steps: loss, learning rate and gradient norm identical to lesson 04's"
    exit 0
fi
paste -d'|' "$out/l04.steps" "$out/l06.steps" | awk -F'|' -v tol="$tol" '
    { split($1, a, " "); split($4, b, " "); d = (a[2] - b[2]) / a[2]; if (d < 0) d = -d; if (d > worst) worst = d
      if (NR == 1) first = b[2]; last = b[2]; print "lesson 04 " a[2] "   lesson 06 " b[2] }
    END { printf "largest relative difference %.5f (allowed %s); lesson 06 loss %s -> %s\n", worst, tol, first, last
          exit !(worst <= tol && last < first) }'
