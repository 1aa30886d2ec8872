#!/bin/sh
# graph_matches_eager.sh PROGRAM ARGS...: lesson 04's training program run twice, eagerly and with
# --graph (the second step captured as one CUDA graph, then replayed); passes when both runs lower
# the loss and their final losses agree within 1% (the same kernels in the same order; only the
# float atomics of the embedding and attention pullbacks may add in another order).
out_e=$("$@" 2>&1) || { printf '%s\n' "$out_e"; exit 1; }
out_g=$("$@" --graph 2>&1) || { printf '%s\n' "$out_g"; exit 1; }
loss() { printf '%s\n' "$1" | sed -n 's/^summary: .*loss \([-0-9.e+]*\) -> \([-0-9.e+]*\).*/\1 \2/p'; }
set -- $(loss "$out_e") $(loss "$out_g")
[ $# -eq 4 ] || { printf '%s\n%s\n' "$out_e" "$out_g"; echo "graph_matches_eager.sh: no summary lines" >&2; exit 1; }
echo "eager loss $1 -> $2, graph loss $3 -> $4"
awk -v a0="$1" -v a="$2" -v b0="$3" -v b="$4" 'BEGIN {
    d = a - b; if (d < 0) d = -d
    exit !(a < a0 && b < b0 && d <= 0.01 * a) }' || { printf '%s\n' "$out_g" | tail -12; exit 1; }
