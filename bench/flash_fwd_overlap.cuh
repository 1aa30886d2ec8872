/*
 * flash_fwd_overlap.cuh: an experiment beside the engine's k_flash_fwd (included after
 * engine/cuda/attention_forward.cu, whose tile steps it reuses), timed by bench_flash_attn: the
 * products overlap the softmax inside each warpgroup (FlashAttention-3's intra-warpgroup
 * pipelining), in steps of 64 keys (half a 128-key tile) so that it fits 128 registers and two
 * blocks per SM. Per step u: S_u = Q K_u^T and O += P_{u-1} V_{u-1} are issued together, the
 * softmax of S_u runs while P V is still in the tensor cores, and O is rescaled after it lands.
 * Live: S 32 + two P 16 + O 32 registers. K and V have three 128-key buffers (tile j + 1 loads
 * while tile j and the second half of tile j - 1 are read), one barrier a tile.
 * Measured (PERF_NOTES.md, Round 6): 108.1 and 106.9 us against the plain kernel's 103.9 and 102.8.
 */
#define FA_OV_SMEM ((FA_FWD_ROWS + 6 * FA_FWD_KEYS) * 128) /* Q, K x 3, V x 3: 114688 bytes */

/* step u's S and softmax into P_u (pc), the previous step's P V (pp) in flight meanwhile (P = 0
 * before the first). P alternates between two arrays, never copied: a copy lets ptxas give both the
 * same registers, and then the softmax's writes to P_u would meet P_{u-1} still being read by the
 * tensor cores, which it avoids by serialising the MMAs. */
template <bool EDGE>
__device__ __forceinline__ void fa_ov_step(float o[32], float mr[2], float lr[2], uint32_t pp[4][4], uint32_t pc[4][4],
                                           const bf16 *Qw, const bf16 *Kh, const bf16 *Vprev, int k0, const int row[2],
                                           int T, float sl2) {
    float s[32], mu[2], alpha[2];
    fa_fwd_scores<64>(s, Qw, Kh);
    wg_commit();
    fa_fwd_pv<64>(o, pp, Vprev);
    wg_commit();
    wg_wait<1>(); /* S has landed; P V may still run */
    wg_fence_acc<32>(s);
    fa_fwd_max<64, EDGE>(s, mr, mu, alpha, k0, row, T, sl2);
    lr[0] *= alpha[0], lr[1] *= alpha[1];
    fa_fwd_exp<64>(s, pc, lr, mu, sl2);
    wg_wait<0>();
    wg_fence_acc<32>(o);
    UNROLL
    for (int i = 0; i < 32; i++) o[i] *= alpha[(i >> 1) & 1];
}

__global__ void __launch_bounds__(FA_FWD_THREADS, 2) k_flash_fwd_overlap(AttnDesc a, int vec) {
#if WG_AVAILABLE
    FA_DYNAMIC_SHARED(smem);
    bf16 *Qs = (bf16 *)smem, *Ks = Qs + FA_FWD_ROWS * 64, *Vs = Ks + 3 * FA_FWD_KEYS * 64;
    const int T = a.T, nqt = (T + FA_FWD_ROWS - 1) / FA_FWD_ROWS, qt = nqt - 1 - (int)blockIdx.y;
    const int bh = blockIdx.x, b = bh / a.H, h = bh % a.H, q0 = qt * FA_FWD_ROWS;
    const int wg = threadIdx.x / 128, w = (threadIdx.x / 32) % 4, g = (threadIdx.x % 32) / 4;
    const int r0 = q0 + 64 * wg;
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1];
    const float sl2 = a.scale * FA_LOG2E;
    const int kt_end = q0 / FA_FWD_KEYS; /* the diagonal tile */
    wg_load_rows_sw128(Qs, qg, a.qs[2], q0, FA_FWD_ROWS, T, vec);
    wg_load_rows_sw128(Ks, kg, a.ks[2], 0, FA_FWD_KEYS, T, vec);
    wg_load_rows_sw128(Vs, vg, a.vs[2], 0, FA_FWD_KEYS, T, vec);
    cp_async_commit();
    float o[32], mr[2] = {-INFINITY, -INFINITY}, lr[2] = {0.0f, 0.0f};
    uint32_t pa[4][4], pb[4][4]; /* P of alternate steps; pa: none (0) before the first */
    UNROLL
    for (int i = 0; i < 32; i++) o[i] = 0.0f;
    UNROLL
    for (int i = 0; i < 16; i++) pa[i / 4][i % 4] = 0u;
    const int row[2] = {r0 + 16 * w + g, r0 + 16 * w + g + 8};
    const bf16 *Qw = Qs + 64 * 64 * wg;
    const bf16 *Vprev = Vs; /* the V half of the previous step (any loaded one before the first: P = 0) */
    for (int kt = 0;; kt++) {
        const int k0 = kt * FA_FWD_KEYS;
        cp_async_wait<0>(); /* tile kt (and Q) */
        wg_fence_smem();
        __syncthreads(); /* ... landed for all, and every warpgroup is past tile kt - 1 */
        const bf16 *Kt = Ks + (kt % 3) * FA_FWD_KEYS * 64, *Vt = Vs + (kt % 3) * FA_FWD_KEYS * 64;
        if (kt == kt_end) { /* the diagonal tile, then the last P V */
            if (r0 < T && wg == 0) { /* rows q0 .. q0 + 63 see only the first half */
                fa_ov_step<true>(o, mr, lr, pa, pb, Qw, Kt, Vprev, k0, row, T, sl2);
                fa_fwd_pv<64>(o, pb, Vt);
                wg_commit();
                wg_wait<0>();
            } else if (r0 < T) {
                fa_ov_step<false>(o, mr, lr, pa, pb, Qw, Kt, Vprev, k0, row, T, sl2);
                fa_ov_step<true>(o, mr, lr, pb, pa, Qw, Kt + 64 * 64, Vt, k0 + 64, row, T, sl2);
                fa_fwd_pv<64>(o, pa, Vt + 64 * 64);
                wg_commit();
                wg_wait<0>();
            }
            wg_fence_acc<32>(o);
            break;
        }
        const int nb = (kt + 1) % 3;
        wg_load_rows_sw128(Ks + nb * FA_FWD_KEYS * 64, kg, a.ks[2], k0 + FA_FWD_KEYS, FA_FWD_KEYS, T, vec);
        wg_load_rows_sw128(Vs + nb * FA_FWD_KEYS * 64, vg, a.vs[2], k0 + FA_FWD_KEYS, FA_FWD_KEYS, T, vec);
        cp_async_commit();
        if (r0 < T) {
            fa_ov_step<false>(o, mr, lr, pa, pb, Qw, Kt, Vprev, k0, row, T, sl2);
            fa_ov_step<false>(o, mr, lr, pb, pa, Qw, Kt + 64 * 64, Vt, k0 + 64, row, T, sl2);
        }
        Vprev = Vt + 64 * 64;
    }
    fa_fwd_store(a.out + b * a.os[0] + h * a.os[1], a.os[2], a.lse + (int64_t)bh * T, o, mr, lr, row, T, vec);
#else
    __trap();
#endif
}
