/*
 * wgmma_check.cuh: engine/cuda/wgmma.cuh's products checked against a float64 reference, every
 * operand form the attention kernels use: A and B K-major or MN-major in shared memory, A from
 * registers, N = 32, 64 and 128, operands that start inside a tile (rows 64.., columns 32..), two
 * warpgroups in one block, and acc = 0 ignoring what the accumulators held (NaN here).
 *
 * The same source runs on the GPU (gpu_wgmma.cu, sm_90a) and on the CPU emulation
 * (wgmma_emu.cpp, tests/engine/cuda_emu.h): the GPU shows that wgmma.cuh's descriptors and
 * fragment layouts are the hardware's, the emulation that cuda_emu.h reads them the same way, so
 * the attention kernels' CI tests (flash_emu.cpp) mean what they say. The includer defines
 * WG_CHECK_LAUNCH(kernel, threads, smem_bytes, args...) and includes wgmma.cuh first.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <vector>

/* A: (128, 64) row-major (M x K: warpgroup wg takes rows 64 wg ..), B: (64, 128) row-major (K x N).
 * D: (128, N) f32. boff: the first column of B used (B's operand is columns boff .. boff + N - 1). */
template <int N, int TA, int TB, int RS>
__global__ void k_wg_check(const bf16 *A, const bf16 *B, float *D, int boff) {
#if WG_AVAILABLE
    FA_DYNAMIC_SHARED(smem);
    bf16 *ta = (bf16 *)smem, *tb = ta + 128 * 64; /* 16 KB each */
    const int tid = threadIdx.x, wg = tid / 128, t = tid % 128, w = t / 32, g = t % 32 / 4, c = t % 4;
    /* A: K-major, one tile of 128 rows (M) x 64 (K); MN-major, one 64 x 64 tile per warpgroup (rows K, columns M) */
    for (int i = tid; i < 128 * 64; i += blockDim.x) {
        int m = i / 64, k = i % 64;
        if (TA) ta[(m / 64) * 64 * 64 + wg_sw128(k, m % 64)] = A[i];
        else ta[wg_sw128(m, k)] = A[i];
    }
    /* B: K-major, rows N (128) x 64 (K); MN-major, rows K (64) x columns N (the first 64) */
    for (int i = tid; i < 64 * 128; i += blockDim.x) {
        int k = i / 128, n = i % 128;
        if (TB) { if (n < 64) tb[wg_sw128(k, n)] = B[i]; }
        else tb[wg_sw128(n, k)] = B[i];
    }
    wg_fence_smem();
    __syncthreads();
    float d[N / 2];
    for (int i = 0; i < N / 2; i++) d[i] = NAN; /* acc = 0 on the first k-step must ignore it */
    wg_fence();
    for (int s = 0; s < 4; s++) {
        uint64_t db = TB ? wg_desc_mnmajor(tb, 16 * s, boff) : wg_desc_kmajor(tb, boff, 16 * s);
        if (RS) {
            uint32_t a[4];
            const bf16 *r0 = A + (int64_t)(64 * wg + 16 * w + g) * 64 + 16 * s + 2 * c, *r8 = r0 + 8 * 64;
            /* two adjacent bf16, the lower column in the lower half */
            a[0] = *(const uint32_t *)r0, a[1] = *(const uint32_t *)r8;
            a[2] = *(const uint32_t *)(r0 + 8), a[3] = *(const uint32_t *)(r8 + 8);
            wg_mma_rs<N, TB>(d, a, db, s > 0);
        } else {
            uint64_t da = TA ? wg_desc_mnmajor(ta + wg * 64 * 64, 16 * s, 0) : wg_desc_kmajor(ta, 64 * wg, 16 * s);
            wg_mma_ss<N, TA, TB>(d, da, db, s > 0);
        }
    }
    wg_commit();
    wg_wait<0>();
    wg_fence_acc<N / 2>(d);
    for (int j = 0; j < N / 8; j++)
        for (int e = 0; e < 4; e++) {
            int row = 64 * wg + 16 * w + g + (e >= 2 ? 8 : 0), col = 8 * j + 2 * c + (e & 1);
            D[row * N + col] = d[4 * j + e];
        }
#else
    __trap();
#endif
}

static uint64_t wg_rng = 0x9E3779B97F4A7C15ull;
static float wg_rand() { /* multiples of 1/64 in [-2, 2): exact in bf16, products exact in f32 */
    wg_rng = wg_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((int)(wg_rng >> 40) % 256 - 128) / 64.0f;
}

/* one case: 0 if D matches the reference (relative L2 error under 1e-6: the inputs' products and
 * their sums over 64 terms are exact in f32 up to rounding of the sums) */
template <int N, int TA, int TB, int RS>
static int wg_case(const char *name, int boff) {
    std::vector<bf16> ha(128 * 64), hb(64 * 128);
    std::vector<float> fa(ha.size()), fb(hb.size()), hd(128 * N);
    for (size_t i = 0; i < ha.size(); i++) ha[i] = __float2bfloat16(wg_rand()), fa[i] = __bfloat162float(ha[i]);
    for (size_t i = 0; i < hb.size(); i++) hb[i] = __float2bfloat16(wg_rand()), fb[i] = __bfloat162float(hb[i]);
    bf16 *da, *db;
    float *dd;
    if (cudaMalloc((void **)&da, ha.size() * 2) || cudaMalloc((void **)&db, hb.size() * 2) || cudaMalloc((void **)&dd, hd.size() * 4)) {
        printf("FAIL %s: cudaMalloc\n", name);
        return 1;
    }
    cudaMemcpy(da, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice);
    WG_CHECK_LAUNCH((k_wg_check<N, TA, TB, RS>), 256, 2 * 128 * 64 * 2, da, db, dd, boff);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(hd.data(), dd, hd.size() * 4, cudaMemcpyDeviceToHost);
    cudaFree(da), cudaFree(db), cudaFree(dd);
    if (e != cudaSuccess) {
        printf("FAIL %s: %s\n", name, cudaGetErrorString(e));
        return 1;
    }
    double num = 0, den = 0;
    int bad = -1;
    for (int m = 0; m < 128; m++)
        for (int n = 0; n < N; n++) {
            double ref = 0;
            for (int k = 0; k < 64; k++) ref += (double)fa[m * 64 + k] * fb[k * 128 + boff + n];
            double x = hd[m * N + n];
            if (!(fabs(x - ref) <= 1e-3 * (1 + fabs(ref))) && bad < 0) bad = m * N + n;
            num += (x - ref) * (x - ref), den += ref * ref;
        }
    double err = sqrt(num / den);
    if (bad >= 0 || !(err < 1e-6)) {
        printf("FAIL %s: relative L2 error %.2e; first wrong D[%d][%d] = %g\n", name, err, bad / N, bad % N,
               bad >= 0 ? hd[bad] : 0.0);
        return 1;
    }
    printf("PASS %s (relative L2 error %.1e)\n", name, err);
    return 0;
}

/* every case; returns the number that failed */
static int wg_check_all(void) {
    int fails = 0;
    fails += wg_case<64, 0, 0, 0>("ss N=64, A and B K-major", 0);
    fails += wg_case<128, 0, 0, 0>("ss N=128, A and B K-major", 0);
    fails += wg_case<32, 0, 0, 0>("ss N=32, A and B K-major, B from row 32", 32);
    fails += wg_case<64, 1, 1, 0>("ss N=64, A and B MN-major", 0);
    fails += wg_case<32, 1, 1, 0>("ss N=32, A and B MN-major, B from column 32", 32);
    fails += wg_case<64, 0, 1, 0>("ss N=64, A K-major, B MN-major", 0);
    fails += wg_case<64, 0, 1, 1>("rs N=64, B MN-major", 0);
    fails += wg_case<128, 0, 0, 1>("rs N=128, B K-major", 0);
    fails += wg_case<32, 0, 1, 1>("rs N=32, B MN-major from column 32", 32);
    return fails;
}
