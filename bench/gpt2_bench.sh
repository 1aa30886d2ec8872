#!/bin/sh
# gpt2_bench.sh: lesson 04's GPT-2 124M training throughput next to PyTorch eager and
# torch.compile, in one run on the same GPU (B=16, T=1024, bf16, vocabulary 50304, random tokens).
#
#   bench/gpt2_bench.sh [BUILD_DIR]        (default build; run from the repository root)
#
# Prints a RESULT line per contender (the engine twice: --attn bmm and --attn flash) and a
# small table. Environment: STEPS (default 20 measured
# steps), WARMUP (5), MODES (PyTorch modes, default "eager,compile"), SKIP_TORCH=1, CPU=1 (also
# the CPU backend on a small configuration), ATTNS (engine spellings, default "bmm flash").
set -eu
build=${1:-build}
bin=$build/bin/lesson_04_gpt2_autodiff
steps=${STEPS:-20}
warmup=${WARMUP:-5}
[ -x "$bin" ] || { echo "gpt2_bench.sh: $bin not built" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for attn in ${ATTNS:-bmm flash}; do
    echo "== engine (CUDA backend, bf16, --attn $attn) =="
    "$bin" --backend cuda --attn "$attn" --preset 124m --data random --vocab 50257 --steps $((steps + warmup)) \
        --profile-warmup "$warmup" --log-every 5 --out "$out/ours" | tee "$out/$attn.run"
    r=$(sed -n 's/^summary: .*median \([0-9.]*\) ms\/step, \([0-9]*\) tok\/s.*/\2 \1/p' "$out/$attn.run")
    [ -n "$r" ] || r="failed failed"
    echo "RESULT engine-cuda-bf16-$attn tokens_per_s=${r% *} ms_per_step=${r#* }" | tee "$out/$attn.log"
done

if [ "${CPU:-0}" = 1 ]; then
    echo "== engine (CPU backend, f32, small configuration) =="
    "$bin" --backend cpu --layers 4 --heads 4 --width 128 --context 128 --batch 8 --data random --vocab 2048 \
        --steps 8 --profile-warmup 2 --log-every 4 --out "$out/cpu" | tee "$out/cpu.log"
    cpu=$(sed -n 's/^summary: .*median \([0-9.]*\) ms\/step, \([0-9]*\) tok\/s.*/\2 \1/p' "$out/cpu.log")
    echo "RESULT engine-cpu-f32-small tokens_per_s=${cpu% *} ms_per_step=${cpu#* }" | tee -a "$out/cpu.res"
fi

if [ "${SKIP_TORCH:-0}" != 1 ]; then
    echo "== PyTorch =="
    python3 "$(dirname "$0")/gpt2_torch.py" --steps "$steps" --warmup "$warmup" --modes "${MODES:-eager,compile}" \
        | tee "$out/torch.log"
fi

echo
echo "GPT-2 124M training, B=16 T=1024 bf16 (median of $steps steps)"
printf '%-24s %14s %12s\n' contender tokens/s ms/step
grep -h '^RESULT' "$out"/*.log "$out"/*.res /dev/null 2>/dev/null | sed 's/^RESULT //' | sort -u | while read -r name tps ms rest; do
    printf '%-24s %14s %12s\n' "$name" "${tps#tokens_per_s=}" "${ms#ms_per_step=}"
done
