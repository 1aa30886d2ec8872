/*
 * flash_fwd_variants.cuh: earlier versions of the engine's k_flash_fwd (included after
 * engine/cuda/attention_forward.cu, whose tile steps and loader they reuse), timed beside it by
 * bench_flash_attn: the first version (two K/V buffers, two barriers a tile, the general loader
 * wg_load_rows_sw128) and the same with the engine's loader specialised to its block (fa_fwd_load).
 */
#define FA_V1_SMEM ((FA_FWD_ROWS + 4 * FA_FWD_KEYS) * 128)
/* The first version (18:28 UTC: 103.1 us): two K/V buffers, two barriers a tile, the general loader */
__global__ void __launch_bounds__(FA_FWD_THREADS, 2) k_flash_fwd_v1(AttnDesc a, int vec) {
#if WG_AVAILABLE
    FA_DYNAMIC_SHARED(smem);
    /* every tile 1024-byte aligned (the swizzle's period): Q 128 rows, then K and V, two buffers each */
    bf16 *Qs = (bf16 *)smem, *Ks = Qs + FA_FWD_ROWS * 64, *Vs = Ks + 2 * FA_FWD_KEYS * 64;
    /* grid (B*H, query tiles): blocks start in linear order (x fastest), so every head's longest
     * rows (the most key tiles) go first and the short ones fill the tail */
    const int T = a.T, nqt = (T + FA_FWD_ROWS - 1) / FA_FWD_ROWS, qt = nqt - 1 - (int)blockIdx.y;
    const int bh = blockIdx.x, b = bh / a.H, h = bh % a.H, q0 = qt * FA_FWD_ROWS;
    const int wg = threadIdx.x / 128, w = (threadIdx.x / 32) % 4, g = (threadIdx.x % 32) / 4;
    const int r0 = q0 + 64 * wg; /* the warpgroup's first row */
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1];
    const float sl2 = a.scale * FA_LOG2E; /* scores in log2 units: exp2 is one instruction */
    const int kt_end = q0 / FA_FWD_KEYS; /* the diagonal tile (128 rows, 128 keys: the tiles line up) */
    wg_load_rows_sw128(Qs, qg, a.qs[2], q0, FA_FWD_ROWS, T, vec);
    wg_load_rows_sw128(Ks, kg, a.ks[2], 0, FA_FWD_KEYS, T, vec);
    wg_load_rows_sw128(Vs, vg, a.vs[2], 0, FA_FWD_KEYS, T, vec);
    cp_async_commit();
    float o[32], mr[2] = {-INFINITY, -INFINITY}, lr[2] = {0.0f, 0.0f};
    UNROLL
    for (int i = 0; i < 32; i++) o[i] = 0.0f;
    const int row[2] = {r0 + 16 * w + g, r0 + 16 * w + g + 8};
    const bf16 *Qw = Qs + 64 * 64 * wg; /* the warpgroup's 64 rows (8 row groups of 1024 bytes) */
    for (int kt = 0; kt <= kt_end; kt++) {
        const int buf = kt & 1, k0 = kt * FA_FWD_KEYS;
        if (kt < kt_end) { /* the next tile into the other buffer (every warpgroup left it at the last barrier) */
            wg_load_rows_sw128(Ks + (buf ^ 1) * FA_FWD_KEYS * 64, kg, a.ks[2], k0 + FA_FWD_KEYS, FA_FWD_KEYS, T, vec);
            wg_load_rows_sw128(Vs + (buf ^ 1) * FA_FWD_KEYS * 64, vg, a.vs[2], k0 + FA_FWD_KEYS, FA_FWD_KEYS, T, vec);
        }
        cp_async_commit();
        cp_async_wait<1>(); /* all but the newest group: tile kt (and Q) have landed */
        wg_fence_smem();    /* this thread's copies, visible to the tensor cores after the barrier */
        __syncthreads();
        const bf16 *Kt = Ks + buf * FA_FWD_KEYS * 64, *Vt = Vs + buf * FA_FWD_KEYS * 64;
        if (r0 < T) { /* (a warpgroup whose rows all lie past T has nothing to do) */
            if (kt < kt_end)
                fa_fwd_tile<128, false>(o, mr, lr, Qw, Kt, Vt, k0, row, T, sl2);
            else if (wg == 0) /* the diagonal: rows q0 .. q0 + 63 see only keys up to q0 + 63 */
                fa_fwd_tile<64, true>(o, mr, lr, Qw, Kt, Vt, k0, row, T, sl2);
            else
                fa_fwd_tile<128, true>(o, mr, lr, Qw, Kt, Vt, k0, row, T, sl2);
        }
        __syncthreads(); /* every warpgroup is done with buffer buf before it is refilled */
    }
    fa_fwd_store(a.out + b * a.os[0] + h * a.os[1], a.os[2], a.lse + (int64_t)bh * T, o, mr, lr, row, T, vec);
#else
    __trap();
#endif
}



/* The first version with the engine's specialised loader (fa_fwd_load) */
__global__ void __launch_bounds__(FA_FWD_THREADS, 2) k_flash_fwd_v1ld(AttnDesc a, int vec) {
#if WG_AVAILABLE
    FA_DYNAMIC_SHARED(smem);
    /* every tile 1024-byte aligned (the swizzle's period): Q 128 rows, then K and V, two buffers each */
    bf16 *Qs = (bf16 *)smem, *Ks = Qs + FA_FWD_ROWS * 64, *Vs = Ks + 2 * FA_FWD_KEYS * 64;
    /* grid (B*H, query tiles): blocks start in linear order (x fastest), so every head's longest
     * rows (the most key tiles) go first and the short ones fill the tail */
    const int T = a.T, nqt = (T + FA_FWD_ROWS - 1) / FA_FWD_ROWS, qt = nqt - 1 - (int)blockIdx.y;
    const int bh = blockIdx.x, b = bh / a.H, h = bh % a.H, q0 = qt * FA_FWD_ROWS;
    const int wg = threadIdx.x / 128, w = (threadIdx.x / 32) % 4, g = (threadIdx.x % 32) / 4;
    const int r0 = q0 + 64 * wg; /* the warpgroup's first row */
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1];
    const float sl2 = a.scale * FA_LOG2E; /* scores in log2 units: exp2 is one instruction */
    const int kt_end = q0 / FA_FWD_KEYS; /* the diagonal tile (128 rows, 128 keys: the tiles line up) */
    fa_fwd_load(Qs, qg, a.qs[2], q0, T, vec);
    fa_fwd_load(Ks, kg, a.ks[2], 0, T, vec);
    fa_fwd_load(Vs, vg, a.vs[2], 0, T, vec);
    cp_async_commit();
    float o[32], mr[2] = {-INFINITY, -INFINITY}, lr[2] = {0.0f, 0.0f};
    UNROLL
    for (int i = 0; i < 32; i++) o[i] = 0.0f;
    const int row[2] = {r0 + 16 * w + g, r0 + 16 * w + g + 8};
    const bf16 *Qw = Qs + 64 * 64 * wg; /* the warpgroup's 64 rows (8 row groups of 1024 bytes) */
    for (int kt = 0; kt <= kt_end; kt++) {
        const int buf = kt & 1, k0 = kt * FA_FWD_KEYS;
        if (kt < kt_end) { /* the next tile into the other buffer (every warpgroup left it at the last barrier) */
            fa_fwd_load(Ks + (buf ^ 1) * FA_FWD_KEYS * 64, kg, a.ks[2], k0 + FA_FWD_KEYS, T, vec);
            fa_fwd_load(Vs + (buf ^ 1) * FA_FWD_KEYS * 64, vg, a.vs[2], k0 + FA_FWD_KEYS, T, vec);
        }
        cp_async_commit();
        cp_async_wait<1>(); /* all but the newest group: tile kt (and Q) have landed */
        wg_fence_smem();    /* this thread's copies, visible to the tensor cores after the barrier */
        __syncthreads();
        const bf16 *Kt = Ks + buf * FA_FWD_KEYS * 64, *Vt = Vs + buf * FA_FWD_KEYS * 64;
        if (r0 < T) { /* (a warpgroup whose rows all lie past T has nothing to do) */
            if (kt < kt_end)
                fa_fwd_tile<128, false>(o, mr, lr, Qw, Kt, Vt, k0, row, T, sl2);
            else if (wg == 0) /* the diagonal: rows q0 .. q0 + 63 see only keys up to q0 + 63 */
                fa_fwd_tile<64, true>(o, mr, lr, Qw, Kt, Vt, k0, row, T, sl2);
            else
                fa_fwd_tile<128, true>(o, mr, lr, Qw, Kt, Vt, k0, row, T, sl2);
        }
        __syncthreads(); /* every warpgroup is done with buffer buf before it is refilled */
    }
    fa_fwd_store(a.out + b * a.os[0] + h * a.os[1], a.os[2], a.lse + (int64_t)bh * T, o, mr, lr, row, T, vec);
#else
    __trap();
#endif
}


