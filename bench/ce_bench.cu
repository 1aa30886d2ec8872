/*
 * ce_bench.cu: lesson 04's cross-entropy kernels (engine/cuda/softmax.cu) timed alone at GPT-2
 * 124M's shape (B T = 16384 rows of 50304 bf16 logits, vocabulary 50257): the two-kernel path that
 * evaluation and any backward not seeded at the loss take (k_ce_lse, then k_ce_backward storing the
 * gradient), against the fused classifier k_ce_fused, as the engine launches it and at other block
 * sizes and caps on the blocks per SM (a dynamic shared-memory request that only limits occupancy),
 * in one run on one GPU.
 *
 *   bench_ce [ROWS [ITERS]]
 *
 * Times are CUDA-event means over ITERS launches after 3 warm-up launches. GB/s counts each row
 * read once from DRAM and each gradient element written once (the fused kernel's second read of a
 * row should come from L2: that is what the figure shows). Every fused variant's lse and gradient
 * are compared, to the bit, with the two-kernel path's.
 */
#include <stdint.h>
#include <vector>

#include "cuda_common.cuh"
#include "softmax.cu"
#include "bench_timing.cuh"

static int iters = 20;

template <typename F>
static double time_us(F launch) { return event_time_us(launch, iters); } /* bench_timing.cuh */

/* logits of a spread like a trained model's (uniform in [-8, 8)), from a hash of the index */
__global__ void k_init(bf16 *x, int32_t *t, int64_t n, int64_t rows, int vocab) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 32;
        x[i] = __float2bfloat16((float)(h >> 40) * (16.0f / 16777216.0f) - 8.0f);
        if (i < rows) t[i] = (int32_t)(h % (uint64_t)vocab);
    }
}

/* Experiments (not in the engine), each measured beside k_ce_fused: raw bf16 vectors in registers
 * (4 or 8 per thread in flight in each pass, one rescale per group), the second pass from L2 (the
 * first pass reads each row backwards, as row_lse does) or from a copy of the row in shared memory
 * (SMEM: 100.6 KB a block, 2 blocks per SM, the second read off L2 altogether). bf16, 16-byte
 * aligned rows only. */
__device__ __forceinline__ void unpack8(const uint4 &u, float *x) {
    const bf16 *b = (const bf16 *)&u;
    UNROLL
    for (int e = 0; e < 8; e++) x[e] = __bfloat162float(b[e]);
}
template <int NV, bool SMEM, int MIN_BLOCKS = 2>
__global__ void __launch_bounds__(512, MIN_BLOCKS) k_ce_x(bf16 *__restrict__ gl, float *__restrict__ lse, const bf16 *__restrict__ logits,
                                                 const int32_t *__restrict__ t, int64_t N, int64_t Vp, int64_t V) {
    extern __shared__ uint4 srow[];
    __shared__ float sm[32], ss[32], zs;
    const int bd = blockDim.x, tid = threadIdx.x, nv = (int)(Vp / 8), Vi = (int)V;
    const uint4 *l = (const uint4 *)(logits + blockIdx.x * Vp);
    uint4 *o = (uint4 *)(gl + blockIdx.x * Vp);
    const float L2E = 1.4426950408889634f;
    float m2 = -INFINITY, s = 0.0f;
    for (int i0 = tid; i0 < nv; i0 += NV * bd) {
        uint4 u[NV];
        UNROLL
        for (int q = 0; q < NV; q++) {
            int i = i0 + q * bd, j = SMEM ? i : nv - 1 - i;
            if (i < nv) u[q] = l[j];
        }
        float mx = -INFINITY; /* unpacked twice (max, then sum): raw vectors keep the registers low */
        UNROLL
        for (int q = 0; q < NV; q++) {
            int i = i0 + q * bd, j = SMEM ? i : nv - 1 - i;
            if (SMEM && i < nv) srow[j] = u[q];
            float x[8];
            unpack8(u[q], x);
            UNROLL
            for (int e = 0; e < 8; e++)
                if (i < nv && 8 * j + e < Vi) mx = fmaxf(mx, x[e]);
        }
        const float mn = fmaxf(m2, mx * L2E);
        if (mn == -INFINITY) continue;
        s = m2 == -INFINITY ? 0.0f : s * exp2f(m2 - mn);
        UNROLL
        for (int q = 0; q < NV; q++) {
            int i = i0 + q * bd, j = SMEM ? i : nv - 1 - i;
            float x[8];
            unpack8(u[q], x);
            UNROLL
            for (int e = 0; e < 8; e++)
                if (i < nv && 8 * j + e < Vi) s += exp2f(fmaf(x[e], L2E, -mn));
        }
        m2 = mn;
    }
    float m = m2 == -INFINITY ? -INFINITY : m2 * (1.0f / L2E);
    for (int off = 16; off > 0; off >>= 1) {
        float mo = __shfl_xor_sync(0xffffffffu, m, off), so = __shfl_xor_sync(0xffffffffu, s, off);
        lse_merge(m, s, mo, so);
    }
    if (tid % 32 == 0) sm[tid / 32] = m, ss[tid / 32] = s;
    __syncthreads();
    if (tid == 0) {
        for (int k = 1; k < bd / 32; k++) lse_merge(m, s, sm[k], ss[k]);
        zs = m + logf(s);
        lse[blockIdx.x] = zs;
    }
    __syncthreads();
    const float z = zs, k = 1.0f / (float)N;
    const int tr = t[blockIdx.x];
    for (int i0 = tid; i0 < nv; i0 += NV * bd) {
        uint4 u[NV];
        UNROLL
        for (int q = 0; q < NV; q++) {
            int i = i0 + q * bd;
            if (i < nv) u[q] = SMEM ? srow[i] : __ldcs(l + i);
        }
        UNROLL
        for (int q = 0; q < NV; q++) {
            int i = i0 + q * bd;
            if (i >= nv) break;
            float x[8];
            unpack8(u[q], x);
            pack8<bf16> r;
            UNROLL
            for (int e = 0; e < 8; e++) {
                int c = 8 * i + e;
                st(&r.v[e], c < Vi ? k * (__expf(x[e] - z) - (c == tr ? 1.0f : 0.0f)) : 0.0f);
            }
            __stcs(o + i, *(const uint4 *)&r);
        }
    }
}

int main(int argc, char **argv) {
    const int64_t N = argc > 1 ? atoll(argv[1]) : 16384, Vp = 50304, V = 50257;
    if (argc > 2) iters = atoi(argv[2]);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s: %d SMs, L2 %d MB; logits [%lld, %lld] bf16, vocabulary %lld, %d iterations\n", prop.name,
           prop.multiProcessorCount, prop.l2CacheSize >> 20, (long long)N, (long long)Vp, (long long)V, iters);
    bf16 *x, *g, *g_ref;
    int32_t *t;
    float *lse, *lse_ref, *gloss;
    const size_t bytes = (size_t)N * Vp * sizeof(bf16);
    CK(cudaMalloc(&x, bytes));
    CK(cudaMalloc(&g, bytes));
    CK(cudaMalloc(&g_ref, bytes));
    CK(cudaMalloc(&t, N * sizeof(int32_t)));
    CK(cudaMalloc(&lse, N * sizeof(float)));
    CK(cudaMalloc(&lse_ref, N * sizeof(float)));
    CK(cudaMalloc(&gloss, sizeof(float)));
    const float one = 1.0f;
    CK(cudaMemcpy(gloss, &one, sizeof one, cudaMemcpyHostToDevice));
    k_init<<<4 * prop.multiProcessorCount, 256>>>(x, t, N * Vp, N, (int)V);
    CK(cudaGetLastError());

    const double gb_lse = bytes / 1e9, gb_fused = 2.0 * bytes / 1e9;
    double us_lse = time_us([&] { k_ce_lse<bf16><<<(unsigned)N, 256>>>(lse_ref, x, Vp, V, 1); });
    double us_bwd = time_us([&] { k_ce_backward<bf16><<<(unsigned)N, 256>>>(g_ref, gloss, lse_ref, x, t, N, Vp, V, 1, 0); });
    printf("two kernels: k_ce_lse %.1f us (%.0f GB/s) + k_ce_backward %.1f us (%.0f GB/s) = %.1f us\n", us_lse,
           gb_lse / us_lse * 1e6, us_bwd, gb_fused / us_bwd * 1e6, us_lse + us_bwd);

    std::vector<uint16_t> h_ref((size_t)N * Vp), h((size_t)N * Vp);
    std::vector<float> hl_ref(N), hl(N);
    CK(cudaMemcpy(h_ref.data(), g_ref, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hl_ref.data(), lse_ref, N * sizeof(float), cudaMemcpyDeviceToHost));
    auto check = [&]() {
        CK(cudaMemcpy(h.data(), g, bytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hl.data(), lse, N * sizeof(float), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        if (memcmp(h.data(), h_ref.data(), bytes))
            for (size_t i = 0; i < h.size(); i++) bad += h[i] != h_ref[i];
        for (int64_t i = 0; i < N; i++) bad += memcmp(&hl[i], &hl_ref[i], 4) != 0;
        return bad;
    };

    /* the engine's launch first, before any attribute changes the kernel's configuration */
    double us = time_us([&] { k_ce_fused<bf16><<<(unsigned)N, CE_FUSED_THREADS>>>(g, lse, x, t, N, Vp, V, 1); });
    printf("fused, as the engine launches it (%d threads): %.1f us (%.0f GB/s), %.1f us less than the two kernels, "
           "%zu values differ\n", CE_FUSED_THREADS, us, gb_fused / us * 1e6, us_lse + us_bwd - us, check());
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_ce_fused<bf16>, CE_FUSED_THREADS, 0));
    printf("  %d blocks (rows) per SM resident: %d rows in flight, %.1f MB of logits\n", occ,
           occ * prop.multiProcessorCount, occ * prop.multiProcessorCount * Vp * 2 / 1e6);

    CK(cudaFuncSetAttribute(k_ce_fused<bf16>, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    CK(cudaFuncSetAttribute(k_ce_fused<bf16>, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024));
    const int threads[3] = {256, 512, 1024};
    for (int ti = 0; ti < 3; ti++) {
        for (int cap = 0; cap <= 4; cap++) { /* cap 0: as many as fit */
            /* shared memory that lets at most `cap` blocks share an SM's 228 KB (1 KB reserved a block) */
            size_t smem = cap ? (228u * 1024 / (cap + 1) + 1024) : 0;
            int nb = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_ce_fused<bf16>, threads[ti], smem));
            if (cap && nb != cap) continue; /* the cap is not what limits it */
            us = time_us([&] { k_ce_fused<bf16><<<(unsigned)N, threads[ti], smem>>>(g, lse, x, t, N, Vp, V, 1); });
            printf("fused, %4d threads, %d blocks/SM (%5.1f MB of rows in flight): %7.1f us (%4.0f GB/s), %zu values differ\n",
                   threads[ti], nb, nb * prop.multiProcessorCount * Vp * 2 / 1e6, us, gb_fused / us * 1e6, check());
        }
    }
    /* the experiments: lse within 1e-5 and the gradient within 1 bf16 ulp of the two-kernel path's */
    auto check_close = [&]() {
        CK(cudaMemcpy(h.data(), g, bytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hl.data(), lse, N * sizeof(float), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t i = 0; i < h.size(); i++) bad += abs((int)h[i] - (int)h_ref[i]) > 1;
        for (int64_t i = 0; i < N; i++) bad += fabsf(hl[i] - hl_ref[i]) > 1e-5f * fabsf(hl_ref[i]);
        return bad;
    };
    struct variant {
        const char *name;
        void (*k)(bf16 *, float *, const bf16 *, const int32_t *, int64_t, int64_t, int64_t);
        size_t smem;
    };
    const variant vs[5] = {{"L2, 4 vectors", k_ce_x<4, false>, 0},
                           {"L2, 4 vectors, 3/SM", k_ce_x<4, false, 3>, 0},
                           {"L2, 8 vectors", k_ce_x<8, false>, 0},
                           {"shared row, 4 vectors", k_ce_x<4, true>, (size_t)Vp * 2},
                           {"shared row, 8 vectors", k_ce_x<8, true>, (size_t)Vp * 2}};
    for (const variant &v : vs) {
        CK(cudaFuncSetAttribute(v.k, cudaFuncAttributeMaxDynamicSharedMemorySize, 110 * 1024));
        for (int th : {512, 256}) {
            int nb = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, v.k, th, v.smem));
            us = time_us([&] { v.k<<<(unsigned)N, th, v.smem>>>(g, lse, x, t, N, Vp, V); });
            printf("experiment %-22s %4d threads, %d blocks/SM: %7.1f us (%4.0f GB/s), %zu values off\n", v.name, th, nb,
                   us, gb_fused / us * 1e6, check_close());
        }
    }
    CK(cudaFree(x));
    CK(cudaFree(g));
    CK(cudaFree(g_ref));
    CK(cudaFree(t));
    CK(cudaFree(lse));
    CK(cudaFree(lse_ref));
    CK(cudaFree(gloss));
    return 0;
}
