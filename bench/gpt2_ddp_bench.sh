#!/bin/sh
# gpt2_ddp_bench.sh: lesson 06's data-parallel GPT-2 124M training throughput on 1, 2, 4 and 8
# GPUs at a fixed batch per GPU (B=16, T=1024, bf16, random tokens), next to PyTorch DDP, eager and
# torch.compile, through torchrun, in the same run on the same GPUs; at 1 GPU also lesson 04 (the
# same engine without NCCL). Scaling efficiency: tokens/s on N GPUs / (N x tokens/s on 1).
#
#   bench/gpt2_ddp_bench.sh [BUILD_DIR]        (default build; run from the repository root)
#
# Environment: GPUS (default "1 2 4 8"; counts above the machine's GPUs are skipped), BATCH (16),
# STEPS (20 measured), WARMUP (5), MODES (PyTorch, "eager,compile"), SKIP_TORCH=1,
# COMPILE_TIMEOUT (s, default 300, per GPU count), RESULTS (a file that collects the RESULT lines).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0), as the GPU machine requires.
set -eu
build=${1:-build}
bin06=$build/bin/lesson_06_data_parallel
bin04=$build/bin/lesson_04_gpt2_autodiff
steps=${STEPS:-20} warmup=${WARMUP:-5} batch=${BATCH:-16}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
[ -x "$bin06" ] || { echo "gpt2_ddp_bench.sh: $bin06 not built (no NCCL found at configure?)" >&2; exit 2; }
have=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
res=${RESULTS:-$(mktemp)}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
summary() { sed -n 's/^summary: .*median \([0-9.]*\) ms\/step, \([0-9]*\) tok\/s.*/\2 \1/p' "$1"; }

for n in ${GPUS:-1 2 4 8}; do
    if [ "$n" -gt "$have" ]; then echo "== $n GPUs: skipped ($have on this machine) =="; continue; fi
    for v in overlap no-overlap; do
        echo "== lesson 06, --variant $v, $n GPU(s) =="
        timeout 300 "$bin06" --variant "$v" --world-size "$n" --preset 124m --batch "$batch" --data random \
            --steps $((steps + warmup)) --profile-warmup "$warmup" --log-every 0 >"$log/$v-$n.txt" 2>&1 || true
        grep -E '^(buckets|ranks|summary)' "$log/$v-$n.txt" || tail -5 "$log/$v-$n.txt"
        r=$(summary "$log/$v-$n.txt"); [ -n "$r" ] || r="failed failed"
        echo "RESULT engine-dp-$v gpus=$n tokens_per_s=${r% *} ms_per_step=${r#* }" | tee -a "$res"
    done
    if [ "$n" = 1 ] && [ -x "$bin04" ]; then
        echo "== lesson 04 (no NCCL), 1 GPU =="
        timeout 300 "$bin04" --backend cuda --preset 124m --batch "$batch" --data random --vocab 50257 \
            --steps $((steps + warmup)) --profile-warmup "$warmup" --log-every 0 --eval-batches 1 --no-checkpoint \
            --out "$log/l04" >"$log/l04.txt" 2>&1 || true
        r=$(summary "$log/l04.txt"); [ -n "$r" ] || r="failed failed"
        echo "RESULT engine-lesson04 gpus=1 tokens_per_s=${r% *} ms_per_step=${r#* }" | tee -a "$res"
    fi
    if [ "${SKIP_TORCH:-0}" != 1 ]; then
        for mode in $(echo "${MODES:-eager,compile}" | tr , ' '); do
            t=150; [ "$mode" = compile ] && t=${COMPILE_TIMEOUT:-300}
            echo "== PyTorch DDP $mode, $n GPU(s) (at most $t s) =="
            timeout "$t" torchrun --standalone --nproc_per_node "$n" "$(dirname "$0")/gpt2_ddp_torch.py" \
                --batch "$batch" --steps "$steps" --warmup "$warmup" --modes "$mode" >"$log/torch-$mode-$n.txt" 2>&1 || true
            if grep -q '^RESULT' "$log/torch-$mode-$n.txt"; then
                grep '^RESULT' "$log/torch-$mode-$n.txt" | tee -a "$res"
            else
                tail -5 "$log/torch-$mode-$n.txt"
                echo "RESULT pytorch-ddp-$mode gpus=$n tokens_per_s=failed ms_per_step=failed" | tee -a "$res"
            fi
        done
    fi
done

echo
echo "GPT-2 124M training, $batch x 1024 tokens per GPU, bf16 (median of $steps steps)"
printf '%-24s %5s %14s %10s %11s\n' contender gpus tokens/s ms/step efficiency
grep '^RESULT' "$res" | sed 's/^RESULT //' | while read -r name g tps ms rest; do
    n=${g#gpus=} t=${tps#tokens_per_s=}
    one=$(grep "^RESULT $name gpus=1 " "$res" | head -1 | sed 's/.*tokens_per_s=\([0-9]*\).*/\1/')
    eff=$(awk -v t="$t" -v o="$one" -v n="$n" 'BEGIN { if (t + 0 > 0 && o + 0 > 0) printf "%.1f%%", 100 * t / (n * o); else print "-" }')
    printf '%-24s %5s %14s %10s %11s\n' "$name" "$n" "$t" "${ms#ms_per_step=}" "$eff"
done
