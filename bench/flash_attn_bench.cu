/*
 * flash_attn_bench.cu: lesson 04's flash-attention kernels timed alone at GPT-2 124M's shape
 * (B=16, H=12, T=1024, head size 64, causal, bf16; q, k, v strided views of one (B, T, 3 C)
 * buffer as the model passes them): the engine's, through the CUDA backend's own attention and
 * attention_backward (every kernel and memset each launches), beside the mma.sync kernels of
 * rounds 4-5 (flash_attn_mma.cuh), in one run.
 *
 *   bench_flash_attn [B H T [ITERS]]     (bench/flash_attn_bench.sh runs it with PyTorch's SDPA)
 *
 * Times are CUDA-event means over ITERS launches after 3 warm-up launches. TFLOP/s counts the
 * causal half: forward 4 B H T^2 D / 2, backward 2.5 times that (five products instead of two;
 * FlashAttention's convention). The engine's outputs are compared with the mma.sync kernels'
 * (relative L2 error); tests/engine checks the kernels against CPU references.
 */
#include <stdint.h>
#include <vector>

#include "bench_timing.cuh"
#include "attention.cuh"

namespace mma { /* its own namespace: the engine's kernels of the same names stay apart */
#include "flash_attn_mma.cuh"
}

/* the backward's pre and finish kernels, the engine's (attention_backward.cu), which the mma.sync
 * version launched too */
__global__ void k_flash_bwd_pre(AttnDesc a, int64_t rows, int vec);
__global__ void k_flash_dq_finish(AttnDesc a, int64_t n8, int vec);

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

static AttnDesc make_desc(bf16 *qkv, bf16 *out, bf16 *g, bf16 *gqkv, float *lse, float *D, float *dq, int B, int H, int T) {
    AttnDesc a;
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

/* a (B, H, T, 64) bf16 view with the given strides */
static wb_tensor view4(bf16 *p, int B, int H, int T, int64_t sb, int64_t sh, int64_t st) {
    wb_tensor t;
    memset(&t, 0, sizeof t);
    t.data = p, t.dtype = WB_BF16, t.ndim = 4;
    t.shape[0] = B, t.shape[1] = H, t.shape[2] = T, t.shape[3] = 64;
    t.stride[0] = sb, t.stride[1] = sh, t.stride[2] = st, t.stride[3] = 1;
    return t;
}

int main(int argc, char **argv) {
    int B = 16, H = 12, T = 1024;
    if (argc >= 4) B = atoi(argv[1]), H = atoi(argv[2]), T = atoi(argv[3]);
    if (argc >= 5) iters = atoi(argv[4]);
    if (B < 1 || H < 1 || T < 1 || iters < 1) {
        fprintf(stderr, "usage: %s [B H T [ITERS]] (positive numbers)\n", argv[0]);
        return 2;
    }
    wb_backend *be = NULL;
    if (wb_backend_cuda_create(&be, 0) != WB_OK) {
        fprintf(stderr, "bench_flash_attn: no CUDA backend (is there a GPU?)\n");
        return 3;
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
    CK(cudaFuncSetAttribute(mma::k_flash_fwd, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_FWD_SMEM));
    CK(cudaFuncSetAttribute(mma::k_flash_bwd, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_BWD_SMEM));
    AttnDesc am = make_desc(qkv, out_ref, g, gqkv_ref, lse_ref, D, dq, B, H, T);
    const int64_t sq = 3 * C, sbq = (int64_t)T * 3 * C, so = C, sbo = (int64_t)T * C; /* t and b strides */
    const wb_tensor q = view4(qkv, B, H, T, sbq, 64, sq), k = view4(qkv + C, B, H, T, sbq, 64, sq);
    const wb_tensor v = view4(qkv + 2 * C, B, H, T, sbq, 64, sq), o = view4(out, B, H, T, sbo, 64, so);
    const wb_tensor o_ref = view4(out_ref, B, H, T, sbo, 64, so), go = view4(g, B, H, T, sbo, 64, so);
    const wb_tensor gq = view4(gqkv, B, H, T, sbq, 64, sq), gk = view4(gqkv + C, B, H, T, sbq, 64, sq);
    const wb_tensor gv = view4(gqkv + 2 * C, B, H, T, sbq, 64, sq);
    wb_tensor l, l_ref; /* (B, H, T) f32 */
    memset(&l, 0, sizeof l);
    l.data = lse, l.dtype = WB_F32, l.ndim = 3, l.shape[0] = B, l.shape[1] = H, l.shape[2] = T;
    l.stride[0] = (int64_t)H * T, l.stride[1] = T, l.stride[2] = 1;
    l_ref = l, l_ref.data = lse_ref;
    const double scale = 0.125;
    auto engine = [&](int rc) {
        if (rc != WB_OK) {
            fprintf(stderr, "bench_flash_attn: the engine's attention failed\n");
            exit(3);
        }
    };

    /* ---- forward ---- */
    const dim3 gf = mma::fa_fwd_grid(B * H, T), gb = mma::fa_bwd_grid(B * H, T);
    double t_mma_fwd = time_us([&] { mma::k_flash_fwd<<<gf, FA_FWD_THREADS, FA_FWD_SMEM>>>(am, 1); });
    double t_eng_fwd = time_us([&] { engine(be->attention(be, &o, &l, &q, &k, &v, scale)); });
    CK(cudaDeviceSynchronize());
    double eo = rel_err_bf16(out, out_ref, n_o), el = rel_err_f32(lse, lse_ref, rows);
    printf("RESULT fwd %-44s %8.1f us %6.1f TFLOP/s (x12 layers: %6.0f us)\n", "mma.sync kernels (rounds 4-5)", t_mma_fwd,
           fwd_flop / t_mma_fwd / 1e6, 12 * t_mma_fwd);
    printf("RESULT fwd %-44s %8.1f us %6.1f TFLOP/s (x12 layers: %6.0f us)  vs mma.sync: out %.1e lse %.1e\n",
           "engine (be->attention)", t_eng_fwd, fwd_flop / t_eng_fwd / 1e6, 12 * t_eng_fwd, eo, el);

    /* ---- backward, both from the mma.sync forward's out and lse ---- */
    const unsigned pre_blocks = blocks_for(rows, 32), fin_blocks = blocks_for(rows * 8, 256);
    auto mma_bwd = [&] {
        k_flash_bwd_pre<<<pre_blocks, 256>>>(am, rows, 1);
        CK(cudaMemsetAsync(dq, 0, (size_t)rows * 64 * 4));
        mma::k_flash_bwd<<<gb, FA_BWD_THREADS, FA_BWD_SMEM>>>(am, 1);
        k_flash_dq_finish<<<fin_blocks, 256>>>(am, rows * 8, 1);
    };
    double t_mma_main = time_us([&] { mma::k_flash_bwd<<<gb, FA_BWD_THREADS, FA_BWD_SMEM>>>(am, 1); });
    double t_mma_bwd = time_us(mma_bwd);
    CK(cudaMemset(gqkv_ref, 0, n_qkv * 2)); /* the reference gradient: stored, not accumulated (acc 0) */
    mma_bwd();
    double t_eng_bwd = time_us([&] { engine(be->attention_backward(be, &gq, &gk, &gv, &go, &o_ref, &l_ref, &q, &k, &v, scale, 0)); });
    CK(cudaDeviceSynchronize());
    double eg = rel_err_bf16(gqkv, gqkv_ref, n_qkv);
    /* without q's gradient: no dq memset, no finish kernel, no dQ atomics in the main kernel */
    double t_eng_nodq = time_us([&] { engine(be->attention_backward(be, NULL, &gk, &gv, &go, &o_ref, &l_ref, &q, &k, &v, scale, 0)); });
    printf("RESULT bwd %-44s %8.1f us (main kernel %7.1f us) %6.1f TFLOP/s (x12 layers: %6.0f us)\n",
           "mma.sync kernels (rounds 4-5), all of it", t_mma_bwd, t_mma_main, bwd_flop / t_mma_bwd / 1e6, 12 * t_mma_bwd);
    /* the engine launches the same pre, memset and finish as the mma.sync version: its main kernel
     * is its total less theirs */
    printf("RESULT bwd %-44s %8.1f us (main kernel ~%6.1f us) %6.1f TFLOP/s (x12 layers: %6.0f us)  vs mma.sync: dqkv %.1e\n",
           "engine (be->attention_backward), all of it", t_eng_bwd, t_eng_bwd - (t_mma_bwd - t_mma_main), bwd_flop / t_eng_bwd / 1e6,
           12 * t_eng_bwd, eg);
    printf("RESULT bwd %-44s %8.1f us\n", "engine without q's gradient (gq NULL)", t_eng_nodq);
    be->destroy(be);
    return 0;
}
