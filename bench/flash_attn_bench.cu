/*
 * flash_attn_bench.cu: lesson 04's flash-attention kernels (engine/cuda/attention.cu) timed alone
 * at GPT-2 124M's shape (B=16, H=12, T=1024, head size 64, causal, bf16; q, k, v strided views of
 * one (B, T, 3 C) buffer as the model passes them), beside round 3's kernels
 * (flash_attn_r3.cuh) and the current kernels compiled for fewer blocks per SM, in one run.
 *
 *   bench_flash_attn [B H T [ITERS]]     (bench/flash_attn_bench.sh runs it with PyTorch's SDPA)
 *
 * Times are CUDA-event means over ITERS launches after 3 warm-up launches. TFLOP/s counts the
 * causal half: forward 4 B H T^2 D / 2, backward 2.5 times that (five products instead of two;
 * FlashAttention's convention). Each variant's outputs are compared with round 3's (relative L2
 * error); tests/engine checks the kernels against CPU references.
 */
#include <stdint.h>
#include <vector>

#include "bench_timing.cuh"
#include "cuda/cuda_common.cuh"

namespace r3 {
#include "flash_attn_r3.cuh"
}
#undef FA_FWD_SMEM
#undef FA_BWD_SMEM
namespace r4 { /* the engine's kernels (every copy in its own namespace: no overload from another) */
#include "cuda/attention.cu"
}
namespace lb { /* the same kernels, register allocation for one block per SM fewer (no cap: 1) */
#undef FA_FWD_MIN_BLOCKS
#undef FA_BWD_MIN_BLOCKS
#define FA_FWD_MIN_BLOCKS 2
#define FA_BWD_MIN_BLOCKS 1
#include "cuda/attention.cu"
}


static int iters = 20;

template <typename F>
static double time_us(F launch) {
    return event_time_us(launch, iters);
}

static double rel_err_bf16(const bf16 *dev_a, const bf16 *dev_b, size_t n) {
    std::vector<bf16> a(n), b(n);
    CK(cudaMemcpy(a.data(), dev_a, n * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), dev_b, n * 2, cudaMemcpyDeviceToHost));
    double d = 0, r = 0;
    for (size_t i = 0; i < n; i++) {
        double x = __bfloat162float(a[i]), y = __bfloat162float(b[i]);
        d += (x - y) * (x - y), r += y * y;
    }
    return r > 0 ? sqrt(d / r) : sqrt(d);
}
static double rel_err_f32(const float *dev_a, const float *dev_b, size_t n) {
    std::vector<float> a(n), b(n);
    CK(cudaMemcpy(a.data(), dev_a, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), dev_b, n * 4, cudaMemcpyDeviceToHost));
    double d = 0, r = 0;
    for (size_t i = 0; i < n; i++) d += (double)(a[i] - b[i]) * (a[i] - b[i]), r += (double)b[i] * b[i];
    return r > 0 ? sqrt(d / r) : sqrt(d);
}

__global__ void k_fill_random(bf16 *p, size_t n, uint64_t seed, float amp) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
    p[i] = __float2bfloat16(amp * ((float)(x >> 40) / (float)(1u << 24) * 2.0f - 1.0f));
}

/* one descriptor layout for both namespaces' kernels (the same struct, declared twice) */
template <typename Desc>
static Desc make_desc(bf16 *qkv, bf16 *out, bf16 *g, bf16 *gqkv, float *lse, float *D, float *dq, int B, int H, int T) {
    Desc a;
    memset(&a, 0, sizeof a);
    const int64_t C = (int64_t)H * 64;
    a.q = qkv, a.k = qkv + C, a.v = qkv + 2 * C, a.out = out, a.o = out, a.g = g, a.lse = lse, a.D = D, a.dq = dq;
    a.gq = gqkv, a.gk = gqkv + C, a.gv = gqkv + 2 * C;
    int64_t *qkv_views[6] = {a.qs, a.ks, a.vs, a.gqs, a.gks, a.gvs}, *o_views[2] = {a.os, a.gs};
    for (int64_t *s : qkv_views) s[0] = (int64_t)T * 3 * C, s[1] = 64, s[2] = 3 * C;
    for (int64_t *s : o_views) s[0] = (int64_t)T * C, s[1] = 64, s[2] = C;
    a.H = H, a.T = T, a.scale = 0.125f;
    return a;
}

int main(int argc, char **argv) {
    int B = 16, H = 12, T = 1024;
    if (argc >= 4) B = atoi(argv[1]), H = atoi(argv[2]), T = atoi(argv[3]);
    if (argc >= 5) iters = atoi(argv[4]);
    if (B < 1 || H < 1 || T < 1 || iters < 1) {
        fprintf(stderr, "usage: %s [B H T [ITERS]] (positive numbers)\n", argv[0]);
        return 2;
    }
    const int64_t C = (int64_t)H * 64, rows = (int64_t)B * H * T, rows4 = (rows + 3) / 4 * 4;
    const size_t n_qkv = (size_t)B * T * 3 * C, n_o = (size_t)B * T * C;
    bf16 *qkv, *out, *out_ref, *g, *gqkv, *gqkv_ref;
    float *lse, *lse_ref, *scratch;
    CK(cudaMalloc(&qkv, n_qkv * 2));
    CK(cudaMalloc(&gqkv, n_qkv * 2));
    CK(cudaMalloc(&gqkv_ref, n_qkv * 2));
    CK(cudaMalloc(&out, n_o * 2));
    CK(cudaMalloc(&out_ref, n_o * 2));
    CK(cudaMalloc(&g, n_o * 2));
    CK(cudaMalloc(&lse, rows * 4));
    CK(cudaMalloc(&lse_ref, rows * 4));
    CK(cudaMalloc(&scratch, (rows4 + rows * 64) * 4));
    float *D = scratch, *dq = scratch + rows4;
    k_fill_random<<<(unsigned)((n_qkv + 255) / 256), 256>>>(qkv, n_qkv, 1, 2.0f); /* scores ~ N(0, 1.8) */
    k_fill_random<<<(unsigned)((n_o + 255) / 256), 256>>>(g, n_o, 2, 1.0f);
    CK(cudaDeviceSynchronize());

    const double fwd_flop = 4.0 * B * H * (double)T * T * 64 / 2, bwd_flop = 2.5 * fwd_flop;
    printf("flash attention B=%d H=%d T=%d D=64 causal bf16, %d iterations; forward %.1f GFLOP, backward %.1f GFLOP\n",
           B, H, T, iters, fwd_flop / 1e9, bwd_flop / 1e9);
    const int R3_FWD_SMEM = 5 * FA_TILE * 2, R3_BWD_SMEM = 7 * FA_TILE * 2 + 4 * 64 * 4;
    CK(cudaFuncSetAttribute(r3::k_flash_fwd, cudaFuncAttributeMaxDynamicSharedMemorySize, R3_FWD_SMEM));
    CK(cudaFuncSetAttribute(r3::k_flash_bwd, cudaFuncAttributeMaxDynamicSharedMemorySize, R3_BWD_SMEM));
    CK(cudaFuncSetAttribute(r4::k_flash_fwd, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_FWD_SMEM));
    CK(cudaFuncSetAttribute(r4::k_flash_bwd, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_BWD_SMEM));
    CK(cudaFuncSetAttribute(lb::k_flash_fwd, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_FWD_SMEM));
    CK(cudaFuncSetAttribute(lb::k_flash_bwd, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_BWD_SMEM));

    /* ---- forward ---- */
    r3::AttnDesc a3 = make_desc<r3::AttnDesc>(qkv, out_ref, g, gqkv_ref, lse_ref, D, dq, B, H, T);
    r4::AttnDesc a4 = make_desc<r4::AttnDesc>(qkv, out, g, gqkv, lse, D, dq, B, H, T);
    lb::AttnDesc al = make_desc<lb::AttnDesc>(qkv, out, g, gqkv, lse, D, dq, B, H, T);
    const dim3 g3((unsigned)(B * H), (unsigned)((T + 63) / 64)), gf = r4::fa_fwd_grid(B * H, T), gb = r4::fa_bwd_grid(B * H, T);
    struct { const char *name; double us, eo, el; } fr[3];
    fr[0] = {"round 3 (64 rows a block, 1 row tile a warp)", time_us([&] { r3::k_flash_fwd<<<g3, 128, R3_FWD_SMEM>>>(a3, 1); }), 0, 0};
    fr[1].name = "round 4 (128 rows a block, 2 row tiles a warp, 3 blocks/SM)";
    fr[1].us = time_us([&] { r4::k_flash_fwd<<<gf, FA_FWD_THREADS, FA_FWD_SMEM>>>(a4, 1); });
    fr[1].eo = rel_err_bf16(out, out_ref, n_o), fr[1].el = rel_err_f32(lse, lse_ref, rows);
    CK(cudaMemset(out, 0, n_o * 2));
    fr[2].name = "round 4 compiled for 2 blocks/SM (248 registers)";
    fr[2].us = time_us([&] { lb::k_flash_fwd<<<gf, FA_FWD_THREADS, FA_FWD_SMEM>>>(al, 1); });
    fr[2].eo = rel_err_bf16(out, out_ref, n_o), fr[2].el = rel_err_f32(lse, lse_ref, rows);
    for (auto &r : fr)
        printf("RESULT fwd %-62s %8.1f us %6.1f TFLOP/s (x12 layers: %6.0f us)  vs r3: out %.1e lse %.1e\n", r.name, r.us,
               fwd_flop / r.us / 1e6, 12 * r.us, r.eo, r.el);

    /* ---- backward: D, the dq memset, the main kernel, the dq finish; inputs from round 3's forward ---- */
    a4.o = out_ref, a4.lse = lse_ref, al.o = out_ref, al.lse = lse_ref;
    const unsigned pre_blocks = blocks_for(rows, 32), fin_blocks = blocks_for(rows * 8, 256);
    double t_pre = time_us([&] { r4::k_flash_bwd_pre<<<pre_blocks, 256>>>(a4, rows, 1); });
    double t_set = time_us([&] { CK(cudaMemsetAsync(dq, 0, (size_t)rows * 64 * 4)); });
    double t_fin = time_us([&] { r4::k_flash_dq_finish<<<fin_blocks, 256>>>(a4, rows * 8, 1); });
    auto grad_err = [&](auto run_main) {
        CK(cudaMemset(gqkv, 0, n_qkv * 2));
        CK(cudaMemset(dq, 0, (size_t)rows * 64 * 4));
        r4::k_flash_bwd_pre<<<pre_blocks, 256>>>(a4, rows, 1);
        run_main();
        r4::k_flash_dq_finish<<<fin_blocks, 256>>>(a4, rows * 8, 1);
        CK(cudaDeviceSynchronize());
        return rel_err_bf16(gqkv, gqkv_ref, n_qkv);
    };
    r4::AttnDesc a4n = a4; /* no query gradient: the dQ product and its atomics left out */
    a4n.dq = NULL, a4n.gq = NULL;
    struct { const char *name; double us, eg; } br[4];
    br[0] = {"round 3 (64 keys a block, 16 a warp, 3 blocks/SM)", time_us([&] { r3::k_flash_bwd<<<g3, 128, R3_BWD_SMEM>>>(a3, 1); }), 0};
    /* the reference gradient: round 3's kernels from zero (after their timing, which accumulates into it) */
    CK(cudaMemset(gqkv_ref, 0, n_qkv * 2));
    CK(cudaMemset(dq, 0, (size_t)rows * 64 * 4));
    r3::k_flash_bwd_pre<<<pre_blocks, 256>>>(a3, rows, 1);
    r3::k_flash_bwd<<<g3, 128, R3_BWD_SMEM>>>(a3, 1);
    r3::k_flash_dq_finish<<<fin_blocks, 256>>>(a3, rows * 8, 1);
    CK(cudaDeviceSynchronize());
    br[1] = {"round 4 (128 keys, 8 warps a block, halves of 32 queries, 2 blocks/SM)", time_us([&] { r4::k_flash_bwd<<<gb, FA_BWD_THREADS, FA_BWD_SMEM>>>(a4, 1); }),
             grad_err([&] { r4::k_flash_bwd<<<gb, FA_BWD_THREADS, FA_BWD_SMEM>>>(a4, 1); })};
    br[2] = {"round 4 compiled for 1 block/SM (no register cap)", time_us([&] { lb::k_flash_bwd<<<gb, FA_BWD_THREADS, FA_BWD_SMEM>>>(al, 1); }),
             grad_err([&] { lb::k_flash_bwd<<<gb, FA_BWD_THREADS, FA_BWD_SMEM>>>(al, 1); })};
    br[3] = {"round 4 without dQ (no dS product, no atomics)", time_us([&] { r4::k_flash_bwd<<<gb, FA_BWD_THREADS, FA_BWD_SMEM>>>(a4n, 1); }), 0};
    printf("RESULT bwd k_flash_bwd_pre %.1f us, dq memset %.1f us, k_flash_dq_finish %.1f us\n", t_pre, t_set, t_fin);
    for (auto &r : br) {
        double all = r.us + t_pre + t_set + t_fin;
        printf("RESULT bwd %-62s %8.1f us (with pre, memset, finish %7.1f us) %6.1f TFLOP/s (x12 layers: %6.0f us)  vs r3: dqkv %.1e\n",
               r.name, r.us, all, bwd_flop / all / 1e6, 12 * all, r.eg);
    }
    return 0;
}
