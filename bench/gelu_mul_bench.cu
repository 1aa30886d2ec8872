/*
 * gelu_mul_bench.cu: bench_gelu_mul, lesson 03's gelu(g) * u timed alone.
 *
 *     bench_gelu_mul [--rows R] [--cols C] [--iters N] [--impl LIST] [--flush write|read|none]
 *                    [--no-flush] [--seed X]
 *
 * Times k_gelu_mul alone on (rows, cols) (default 8192 x 3072, the MLP's intermediate),
 * against the floor that bandwidth sets, and checks it; see gelu_mul_bench() at the end. --impl
 * times other implementations of the same function beside it (cache hints, a flat grid-stride
 * kernel with more bytes in flight; "all" for the usual set): issue 3's experiments, with the
 * predictions written above gelu_mul_impls. They exist only here: the lesson's variants
 * (lessons/03_mlp/main.cu) always launch k_gelu_mul, so its recorded trace and answer key
 * hold. Output: one RESULT line per timing,
 *     RESULT lesson=03_mlp bench=gelu_mul impl=row layout=separate rows=8192 cols=3072
 *            flush=write gpu_us=41.00 bytes=150994944 gbps=3682.8 path=row grid=8192 ...
 * (one line in the output), which bench/lessons_bench.py reads.
 *
 * The lesson's own kernels and launchers (k_gelu_mul, gelu_launch, ...) are in
 * lessons/03_mlp/pointwise.cu, linked into both programs; lessons/03_mlp/pointwise.cuh declares
 * them and holds the device math they share with the alternatives here.
 *
 * Exit status: 0 when every result matched the CPU reference, 1 on a CUDA error or a wrong
 * result, 2 on bad usage.
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pointwise.cuh"
#include "wb_activations.h"
#include "wb_args.h"
#include "wb_bf16.h"
#include "wb_check.h"
#include "wb_upload.h"
#include "wb_compare.h"
#include "wb_random.h"
#include "wb_timing.h"

/* h is bf16: rounded once, by up to 2^-9 of itself (the lesson's own tolerance, in
 * lessons/03_mlp/main.cu). */
#define TOLERANCE 1e-2

/* Written before every timed launch, so that each launch starts with a cold L2 (H200: 50 MiB of
 * L2) and reads its inputs from HBM, as inside the real MLP. */
#define L2_FLUSH_BYTES (256u << 20)

/* ---- kernels: other ways to write k_gelu_mul ------------------------------------------- */

/*
 * Issue 3 asks whether k_gelu_mul can get closer to the copy bandwidth (41.0 us against a
 * 36.4 us floor on the H200, 2026-11-29, tied with torch.compile's Triton kernel). These
 * alternatives compute the same function; `bench_gelu_mul --impl NAME` times them (the lesson's
 * variants always launch k_gelu_mul, lessons/03_mlp/main.cu, so its recorded trace and
 * answer key hold).
 * Two ideas, alone and together:
 *   cache hints  each byte is used once, so keep it from displacing anything: __ldcs/__stcs
 *                (ld/st.global.cs: evict first in L1 and L2), or ld.global.nc.L1::no_allocate
 *                with a 256-byte L2 prefetch (the read-only path, no L1 line) and __stcs stores.
 *                (k_gelu_mul's own loads already compile to ld.global.nc, the read-only
 *                path, since g and u are const __restrict__; its stores are plain.)
 *   flat grid    a grid the size of the machine (multiprocessors x resident blocks, from the
 *                occupancy API) looping over the flattened tensor in tiles, each thread loading
 *                V 16-byte chunks of g and V of u before it uses any: more bytes in flight per
 *                thread, no per-row blocks to start and retire.
 */
enum { HINT_NONE = 0, HINT_CS = 1, HINT_NC = 2 };

template <int HINT> __device__ __forceinline__ uint4 load16(const bf16 *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    if constexpr (HINT == HINT_CS) {
        return __ldcs(q);
    } else if constexpr (HINT == HINT_NC) {
        uint4 v; /* not volatile: the loads may be scheduled freely, like the plain ones */
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(q));
        return v;
    } else {
        return *q;
    }
}

template <int HINT> __device__ __forceinline__ void store16(bf16 *p, uint4 v) {
    uint4 *q = reinterpret_cast<uint4 *>(p);
    if constexpr (HINT == HINT_NONE)
        *q = v;
    else
        __stcs(q, v);
}

/* 8 elements of h = gelu(g) * u, in registers. */
__device__ __forceinline__ uint4 gelu_mul8(uint4 g, uint4 u) {
    float fg[8], fu[8];
    unpack_bf16x8(g, fg);
    unpack_bf16x8(u, fu);
#pragma unroll
    for (int j = 0; j < 8; j++) fg[j] = gelu_tanh(fg[j]) * fu[j];
    return pack_bf16x8(fg);
}

/* k_gelu_mul's mapping (same arguments, same launch plan) with cache hints. */
template <int HINT>
__global__ void __launch_bounds__(1024) k_gelu_mul_row(bf16 *__restrict__ h, int ld_h,
                                                            const bf16 *__restrict__ g,
                                                            const bf16 *__restrict__ u, int ld_gu,
                                                            int rows, int cols, int vectorized) {
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= rows) return;
    const bf16 *g_row = g + (size_t)row * ld_gu;
    const bf16 *u_row = u + (size_t)row * ld_gu;
    bf16 *h_row = h + (size_t)row * ld_h;
    int done = 0;
    if (vectorized) {
        int chunks = cols / 8;
        for (int c = threadIdx.x; c < chunks; c += blockDim.x)
            store16<HINT>(h_row + 8 * c, gelu_mul8(load16<HINT>(g_row + 8 * c), load16<HINT>(u_row + 8 * c)));
        done = chunks * 8;
    }
    for (int j = done + (int)threadIdx.x; j < cols; j += blockDim.x)
        h_row[j] = __float2bfloat16(gelu_tanh(__bfloat162float(g_row[j])) * __bfloat162float(u_row[j]));
}

#define FLAT_THREADS 256

/*
 * Flat grid: the (rows, cols) problem as one list of 16-byte chunks. When g, u and h are each
 * contiguous (ld_gu = ld_h = cols) the list is the flattened tensor, n / 8 chunks, and the last
 * n % 8 elements are done one by one by block 0; otherwise (the merged layout) chunk c is column
 * chunk c % (cols / 8) of row c / (cols / 8), which needs cols, ld_gu and ld_h multiples of 8
 * (the launcher checks, and falls back to the row mapping). Block b takes tiles b, b + grid, ...
 * of V * FLAT_THREADS chunks; in a tile, thread t loads chunks t, t + FLAT_THREADS, ... of g and
 * of u (each warp's access is 512 contiguous bytes), all 2V loads before the first use.
 */
/* One tile of k_gelu_mul_flat. FULL: every chunk of the tile exists (all tiles but the last),
 * so the 2V loads go out without a bounds test between them. */
template <int V, int HINT, bool FULL>
__device__ __forceinline__ void gelu_mul_flat_tile(bf16 *__restrict__ h, int ld_h, const bf16 *__restrict__ g,
                                                   const bf16 *__restrict__ u, int ld_gu, int per_row,
                                                   int contiguous, int base, int chunks) {
    uint4 vg[V], vu[V];
    size_t at_h[V];
#pragma unroll
    for (int k = 0; k < V; k++) {
        int c = base + k * FLAT_THREADS + (int)threadIdx.x;
        vg[k] = vu[k] = make_uint4(0u, 0u, 0u, 0u);
        at_h[k] = 0;
        if (FULL || c < chunks) {
            size_t at_gu;
            if (contiguous) {
                at_gu = at_h[k] = (size_t)c * 8;
            } else { /* an integer division per chunk: ~20 instructions against ~150 of math */
                int r = c / per_row, cc = c - r * per_row;
                at_gu = (size_t)r * ld_gu + (size_t)cc * 8;
                at_h[k] = (size_t)r * ld_h + (size_t)cc * 8;
            }
            vg[k] = load16<HINT>(g + at_gu);
            vu[k] = load16<HINT>(u + at_gu);
        }
    }
#pragma unroll
    for (int k = 0; k < V; k++)
        if (FULL || base + k * FLAT_THREADS + (int)threadIdx.x < chunks)
            store16<HINT>(h + at_h[k], gelu_mul8(vg[k], vu[k]));
}

template <int V, int HINT>
__global__ void __launch_bounds__(FLAT_THREADS) k_gelu_mul_flat(bf16 *__restrict__ h, int ld_h,
                                                                     const bf16 *__restrict__ g,
                                                                     const bf16 *__restrict__ u, int ld_gu,
                                                                     int rows, int cols, int contiguous) {
    const size_t n = (size_t)rows * cols;
    const int per_row = cols / 8;
    const int chunks = contiguous ? (int)(n / 8) : rows * per_row;
    const int tile = V * FLAT_THREADS;
    for (int base = blockIdx.x * tile; base < chunks; base += gridDim.x * tile) {
        if (base + tile <= chunks)
            gelu_mul_flat_tile<V, HINT, true>(h, ld_h, g, u, ld_gu, per_row, contiguous, base, chunks);
        else
            gelu_mul_flat_tile<V, HINT, false>(h, ld_h, g, u, ld_gu, per_row, contiguous, base, chunks);
    }
    if (contiguous && blockIdx.x == 0)
        for (size_t j = (size_t)chunks * 8 + threadIdx.x; j < n; j += FLAT_THREADS)
            h[j] = __float2bfloat16(gelu_tanh(__bfloat162float(g[j])) * __bfloat162float(u[j]));
}

/* --flush read: reads a buffer much larger than L2, so L2 ends up holding clean
 * lines of it (a memset, the default flush, leaves L2 full of dirty lines that the timed kernel
 * then has to write back to HBM). The sink store never happens but keeps the loads. */
__global__ void __launch_bounds__(256) k_l2_read_flush(const uint4 *__restrict__ p, size_t n16, unsigned *sink) {
    unsigned acc = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = p[i]; /* plain loads: evict-first ones would only recycle a corner of L2 */
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;
}

/* A control: what a launch costs between two events when the kernel does nothing. */
__global__ void k_empty(void) {}

/* ---- host launchers ------------------------------------------------------------------------- */

/*
 * The implementations of h = gelu(g) * u. `row` is the lesson's own launcher and
 * kernel; the others are the alternatives above. "all" means the list in GELU_MUL_IMPLS_ALL.
 *
 * Predictions, written before any of them ran (H200, [8192, 3072], L2 flushed by a 256 MiB
 * memset before each launch, CUDA events; floor 36.4 us at the 4.145 TB/s copy bandwidth).
 * Bytes in flight: the 16-byte loads of g and u one thread issues before its first use, times
 * the threads resident on an SM (registers from `nvcc -Xptxas -v`, sm_90, CUDA 13.0; no spills
 * anywhere). Little's law asks for about 4.8 TB/s x ~1 us loaded latency = 4.8 MB on the chip,
 * 36 KB per SM:
 *   row       32 regs, 384-thread blocks, 5 per SM: 1920 threads x 32 B = 60 KB/SM, but only
 *             at the start of each block's short life. Measured 41.0 us (88.8%).
 *   row_cs    31 regs, same mapping; evict-first changes which lines L2 keeps, not how many
 *             bytes move: 41.0 +- 0.3 us (no change beyond the spread).
 *   row_nc    31 regs: 41.0 +- 0.3 us; at most 0.5 us better if the 256-byte L2 prefetch helps
 *             DRAM page locality.
 *   flat1     32 regs, 8 blocks of 256 per SM: 2048 threads x 32 B = 64 KB/SM all the time; no
 *             blocks to start and retire, one partial tile at the end: 40.5 us.
 *   flat2     32 regs, 2048 threads x 64 B = 128 KB/SM: 40.3 us.
 *   flat4     59 regs, 4 blocks: 1024 threads x 128 B = 128 KB/SM: 40.2 us.
 *   flat8     107-128 regs, 2 blocks: 512 threads x 256 B = 128 KB/SM: 40.2 us, no better.
 *   flat4_cs, flat4_nc  (the combinations; 59-61 regs): 40.0 us, i.e. <= 2.5% better than row.
 * All of them stay above the 38.3 us target, because (a) row already had ~twice the bytes in
 * flight that Little's law asks for, and (b) three times of 2026-11-29 fit a fixed cost per
 * launch: row (6 bytes per element, 41.0 us), k_mul (the same 6 bytes with no gelu math,
 * 40.9 us: the math is hidden) and k_gelu (4 bytes, 30.1 us) fit t = 8.3 us + bytes /
 * 4.6 TB/s (two-point fit, read/write mixes differ). The memset flush leaves up to 50 MB of
 * dirty lines in L2, which the timed kernel writes back as its traffic evicts them (50 MB at
 * 4.6 TB/s: 11 us), plus the event and launch gaps (`empty` control: 1-3 us). Hence:
 *   --flush read  (clean L2): every implementation 5-6 us faster (row ~35 us, above 100% of
 *             the copy bandwidth as measured), torch.compile's Triton kernel likewise;
 *   CUPTI kernel durations 1-2 us under the event times;
 *   `copy`, a cudaMemcpyAsync of the same 151 MB under the same memset flush: 41-43 us, no
 *             faster than row: at this size and with this flush, a copy gets ~89% too.
 * Where the measurements miss these, find out why before changing the kernels further.
 */
typedef struct {
    const char *name;
    int vec;  /* 0: gelu_mul_plan_for's block per row; 1, 2, 4, 8: the flat grid, V chunks per array per thread */
    int hint; /* HINT_NONE, HINT_CS, HINT_NC */
    const char *about;
} gelu_mul_impl;

static const gelu_mul_impl gelu_mul_impls[] = {
    {"row", 0, HINT_NONE, "k_gelu_mul, the lesson's: a block per row, 16-byte chunks"},
    {"row_cs", 0, HINT_CS, "row mapping, __ldcs/__stcs (evict first)"},
    {"row_nc", 0, HINT_NC, "row mapping, ld.global.nc.L1::no_allocate.L2::256B + __stcs"},
    {"flat1", 1, HINT_NONE, "flat grid-stride, 1 chunk of g and of u per thread per tile"},
    {"flat2", 2, HINT_NONE, "flat grid-stride, 2 chunks each"},
    {"flat4", 4, HINT_NONE, "flat grid-stride, 4 chunks each"},
    {"flat8", 8, HINT_NONE, "flat grid-stride, 8 chunks each"},
    {"flat1_cs", 1, HINT_CS, "flat1 with __ldcs/__stcs"},
    {"flat2_cs", 2, HINT_CS, "flat2 with __ldcs/__stcs"},
    {"flat4_cs", 4, HINT_CS, "flat4 with __ldcs/__stcs"},
    {"flat8_cs", 8, HINT_CS, "flat8 with __ldcs/__stcs"},
    {"flat1_nc", 1, HINT_NC, "flat1 with no-allocate loads + __stcs"},
    {"flat2_nc", 2, HINT_NC, "flat2 with no-allocate loads + __stcs"},
    {"flat4_nc", 4, HINT_NC, "flat4 with no-allocate loads + __stcs"},
    {"flat8_nc", 8, HINT_NC, "flat8 with no-allocate loads + __stcs"},
};
#define N_GELU_MUL_IMPLS ((int)(sizeof gelu_mul_impls / sizeof gelu_mul_impls[0]))
#define GELU_MUL_IMPLS_ALL "row,row_cs,row_nc,flat1,flat2,flat4,flat8,flat4_cs,flat4_nc"

/* How one implementation launched, for the report. */
typedef struct {
    dim3 grid, block;
    const char *path; /* "row", "flat", "flat-2d" (merged layout) or "row-fallback" */
    int regs;         /* registers per thread of the kernel that runs */
    int per_sm;       /* flat: resident blocks per multiprocessor (occupancy API) */
    int vectorized;   /* row: gelu_mul_plan_for's choice */
} gelu_mul_launch_info;

typedef struct {
    bf16 *h;
    const bf16 *g, *u;
    int ld_h, ld_gu, rows, cols, contiguous;
    unsigned grid;
} flat_args;

/* The (V, HINT) instance of k_gelu_mul_flat: launched, or (when `occupancy` is given) asked
 * how many blocks fit on a multiprocessor and how many registers it uses. */
template <int V, int HINT>
static int flat_call(const flat_args *a, cudaStream_t s, int *occupancy, int *regs) {
    if (occupancy) {
        cudaFuncAttributes attr;
        CUDA_CHECK(cudaFuncGetAttributes(&attr, k_gelu_mul_flat<V, HINT>));
        *regs = attr.numRegs;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(occupancy, k_gelu_mul_flat<V, HINT>,
                                                                 FLAT_THREADS, 0));
        return WB_OK;
    }
    k_gelu_mul_flat<V, HINT><<<a->grid, FLAT_THREADS, 0, s>>>(a->h, a->ld_h, a->g, a->u, a->ld_gu,
                                                                   a->rows, a->cols, a->contiguous);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int flat_dispatch(int vec, int hint, const flat_args *a, cudaStream_t s, int *occupancy, int *regs) {
#define FLAT_CASE(V, H)                                                                            \
    if (vec == V && hint == H) return flat_call<V, H>(a, s, occupancy, regs)
    FLAT_CASE(1, HINT_NONE); FLAT_CASE(2, HINT_NONE); FLAT_CASE(4, HINT_NONE); FLAT_CASE(8, HINT_NONE);
    FLAT_CASE(1, HINT_CS); FLAT_CASE(2, HINT_CS); FLAT_CASE(4, HINT_CS); FLAT_CASE(8, HINT_CS);
    FLAT_CASE(1, HINT_NC); FLAT_CASE(2, HINT_NC); FLAT_CASE(4, HINT_NC); FLAT_CASE(8, HINT_NC);
#undef FLAT_CASE
    fprintf(stderr, "no flat kernel for %d chunks and hint %d\n", vec, hint);
    return WB_FAIL;
}

static int row_call(int hint, const gelu_mul_plan *p, bf16 *h, int ld_h, const bf16 *g, const bf16 *u,
                    int ld_gu, int rows, int cols, cudaStream_t s, int *regs) {
    cudaFuncAttributes attr;
    switch (hint) {
    case HINT_NONE:
        if (regs) CUDA_CHECK(gelu_mul_attributes(&attr));
        else WB_TRY(gelu_mul_launch(h, ld_h, g, u, ld_gu, rows, cols, s)); /* the lesson's own launcher */
        break;
    case HINT_CS:
        if (regs) CUDA_CHECK(cudaFuncGetAttributes(&attr, k_gelu_mul_row<HINT_CS>));
        else k_gelu_mul_row<HINT_CS><<<p->grid, p->block, 0, s>>>(h, ld_h, g, u, ld_gu, rows, cols, p->vectorized);
        break;
    case HINT_NC:
        if (regs) CUDA_CHECK(cudaFuncGetAttributes(&attr, k_gelu_mul_row<HINT_NC>));
        else k_gelu_mul_row<HINT_NC><<<p->grid, p->block, 0, s>>>(h, ld_h, g, u, ld_gu, rows, cols, p->vectorized);
        break;
    default: fprintf(stderr, "unknown cache hint %d\n", hint); return WB_FAIL;
    }
    if (regs) *regs = attr.numRegs;
    else CUDA_CHECK_LAUNCH();
    return WB_OK;
}

/*
 * Plans implementation `im` on (rows, cols): the flat grid is sized from the occupancy API
 * (multiprocessors x resident blocks, capped at one tile per block); when the layout does not
 * allow 16-byte chunks over whole rows (unaligned rows, or cols % 8 != 0 with row strides),
 * a flat implementation falls back to the row mapping with the same cache hints. Host queries
 * only, made once per layout and outside the timed launches.
 */
static int gelu_mul_impl_plan(const gelu_mul_impl *im, const bf16 *h, int ld_h, const bf16 *g, const bf16 *u,
                              int ld_gu, int rows, int cols, gelu_mul_launch_info *info) {
    int aligned = wb_aligned16(h) && wb_aligned16(g) && wb_aligned16(u);
    int contiguous = ld_h == cols && ld_gu == cols;
    int flat_ok = aligned && (contiguous || (cols % 8 == 0 && ld_h % 8 == 0 && ld_gu % 8 == 0));
    *info = gelu_mul_launch_info{};
    if (im->vec > 0 && flat_ok) {
        int dev = 0, sms = 0, per_sm = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        WB_TRY(flat_dispatch(im->vec, im->hint, NULL, 0, &per_sm, &info->regs));
        if (per_sm < 1) {
            fprintf(stderr, "%s: no block of %d threads fits on a multiprocessor\n", im->name, FLAT_THREADS);
            return WB_FAIL;
        }
        long long chunks = contiguous ? (long long)rows * cols / 8 : (long long)rows * (cols / 8);
        long long tile = (long long)im->vec * FLAT_THREADS;
        long long grid = (long long)sms * per_sm, tiles = (chunks + tile - 1) / tile;
        if (grid > tiles) grid = tiles;
        if (grid < 1) grid = 1; /* fewer than 8 elements: block 0 does the tail alone */
        info->grid = dim3((unsigned)grid, 1, 1);
        info->block = dim3(FLAT_THREADS, 1, 1);
        info->path = contiguous ? "flat" : "flat-2d";
        info->per_sm = per_sm;
        return WB_OK;
    }
    gelu_mul_plan p = gelu_mul_plan_for(h, ld_h, g, u, ld_gu, rows, cols);
    info->grid = p.grid;
    info->block = p.block;
    info->vectorized = p.vectorized;
    info->path = im->vec > 0 ? "row-fallback" : "row";
    return row_call(im->hint, NULL, NULL, 0, NULL, NULL, 0, 0, 0, 0, &info->regs);
}

/* Launches implementation `im` as planned by gelu_mul_impl_plan for the same arguments. */
static int gelu_mul_impl_launch(const gelu_mul_impl *im, const gelu_mul_launch_info *info, bf16 *h, int ld_h,
                                const bf16 *g, const bf16 *u, int ld_gu, int rows, int cols, cudaStream_t s) {
    if (info->path[0] == 'f') { /* flat, flat-2d */
        flat_args a = {h, g, u, ld_h, ld_gu, rows, cols, ld_h == cols && ld_gu == cols, info->grid.x};
        return flat_dispatch(im->vec, im->hint, &a, s, NULL, NULL);
    }
    gelu_mul_plan p;
    p.grid = info->grid;
    p.block = info->block;
    p.vectorized = info->vectorized;
    return row_call(im->hint, &p, h, ld_h, g, u, ld_gu, rows, cols, s, NULL);
}

/* ---- checking ------------------------------------------------------------------------------- */

/* ref (rows, cols) = gelu(g) * u in double, from the host copies of g and u (row stride ld_gu). */
static double *gelu_mul_reference(const float *g, const float *u, int ld_gu, int rows, int cols) {
    double *ref = (double *)malloc((size_t)rows * cols * sizeof *ref);
    if (!ref) {
        fprintf(stderr, "out of host memory for the reference\n");
        return NULL;
    }
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++) {
            size_t i = (size_t)r * ld_gu + j;
            ref[(size_t)r * cols + j] = wb_gelu_tanh(g[i]) * u[i];
        }
    return ref;
}

/* Elements the kernel bench keeps poisoned past the end of h: a write there is a bug. */
#define GUARD_ELEMS 64

/*
 * Reads back h (rows, cols, row stride ld_h; h was filled with 0xFF, a NaN, before the launch)
 * and checks it three ways: the relative error over the whole tensor against the reference
 * (wb_check_close; an element left unwritten is a NaN and fails it); every element on its own,
 * within 1% of itself + 1e-6 (rounding h to bf16 moves it by at most 2^-9 of itself; the bound
 * catches a few misplaced chunks that a norm over 25M elements would average away); and the
 * poison in the padding of each row (ld_h > cols) and in GUARD_ELEMS after the last row must be
 * intact: nothing wrote out of bounds. The buffer must hold rows * ld_h + GUARD_ELEMS elements.
 */
static int check_gelu_mul(const char *name, const bf16 *h, int ld_h, const double *ref, int rows, int cols) {
    size_t n = (size_t)rows * cols, span = (size_t)rows * ld_h + GUARD_ELEMS;
    uint16_t *bits = (uint16_t *)malloc(span * sizeof *bits);
    float *out = (float *)malloc(n * sizeof(float));
    int rc = WB_FAIL;
    if (!bits || !out) {
        fprintf(stderr, "out of host memory for the check\n");
        goto done;
    }
    {
        cudaError_t err = cudaMemcpy(bits, h, span * sizeof *bits, cudaMemcpyDeviceToHost);
        if (err != cudaSuccess) {
            fprintf(stderr, "copying h back failed: %s\n", cudaGetErrorString(err));
            goto done;
        }
    }
    for (int r = 0; r < rows; r++) wb_bf16_decode(out + (size_t)r * cols, bits + (size_t)r * ld_h, (size_t)cols);
    if (wb_check_close(name, out, ref, n, TOLERANCE) != 0) goto done;
    {
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < n; i++) {
            double d = fabs((double)out[i] - ref[i]);
            if (!(d <= 1e-2 * fabs(ref[i]) + 1e-6) && bad++ == 0) first = i;
        }
        size_t stray = 0;
        for (int r = 0; r < rows; r++)
            for (int j = cols; j < ld_h; j++) stray += bits[(size_t)r * ld_h + j] != 0xFFFFu;
        for (size_t i = (size_t)rows * ld_h; i < span; i++) stray += bits[i] != 0xFFFFu;
        if (bad) {
            printf("check %-24s %zu of %zu elements off by more than 1%% + 1e-6; first at row %zu, "
                   "col %zu: %.6g, expected %.6g FAIL\n", name, bad, n, first / cols, first % cols,
                   out[first], ref[first]);
            goto done;
        }
        if (stray) {
            printf("check %-24s %zu elements written outside h (row padding or past the end) FAIL\n", name, stray);
            goto done;
        }
        printf("check %-24s every element within 1%% + 1e-6, nothing written out of bounds PASS\n", name);
    }
    rc = WB_OK;
done:
    free(bits);
    free(out);
    return rc;
}

/* ---- timing --------------------------------------------------------------------------------- */

/*
 * Before each timed launch, the L2 (H200: 50 MiB) is flushed one of two ways:
 *   write  cudaMemsetAsync of L2_FLUSH_BYTES (the default, and what triton.testing.do_bench and
 *          the PyTorch side of bench/lessons_bench.py do): L2 is left full of dirty lines, which
 *          the timed kernel pays to write back as its own traffic evicts them;
 *   read   k_l2_read_flush over the same bytes: L2 is left full of clean lines.
 * Inside the MLP neither holds (the GEMM before k_gelu_mul leaves part of g and u in L2):
 * the two bracket what a launch costs.
 */
/* How L2 is flushed before each timed launch (--flush). */
typedef enum { FLUSH_NONE, FLUSH_WRITE, FLUSH_READ } flush_mode;
static const char *const flush_names[] = {"none", "write", "read"}; /* by flush_mode */

typedef struct {
    flush_mode mode;
    void *buf;     /* L2_FLUSH_BYTES */
    unsigned grid; /* read: blocks of 256 threads */
} l2_flusher;

static int l2_flush(const l2_flusher *f, int i, cudaStream_t s) {
    if (f->mode == FLUSH_WRITE) {
        CUDA_CHECK(cudaMemsetAsync(f->buf, i & 0xFF, L2_FLUSH_BYTES, s));
    } else if (f->mode == FLUSH_READ) {
        k_l2_read_flush<<<f->grid, 256, 0, s>>>((const uint4 *)f->buf, L2_FLUSH_BYTES / 16, (unsigned *)f->buf);
        CUDA_CHECK_LAUNCH();
    }
    return WB_OK;
}

/* Times one launch `iters` times; the median in us. Every launch is bracketed by its own pair of
 * events, after an L2 flush. Everything is queued before the one synchronize at the end, so the
 * GPU never waits for the host between the events of a pair and the times are the kernel's
 * alone, not launch latency (but they do include the gap between the start event and the
 * kernel's first block, and after its last: see the `empty` control). */
typedef int (*launch_fn)(void *ctx, cudaStream_t stream);

static int time_launches(launch_fn fn, void *ctx, int iters, const l2_flusher *flush, cudaStream_t stream,
                         double *median_us) {
    double *us = (double *)malloc((size_t)iters * sizeof *us);
    cudaEvent_t *ev = (cudaEvent_t *)calloc((size_t)2 * iters, sizeof *ev);
    int rc = WB_FAIL;
    cudaError_t err = cudaSuccess;
    if (!us || !ev) {
        fprintf(stderr, "out of host memory\n");
        goto done;
    }
    for (int i = 0; i < 2 * iters && err == cudaSuccess; i++) err = cudaEventCreate(&ev[i]);
    if (err != cudaSuccess) goto cuda_failed;
    for (int i = 0; i < 3; i++) /* warm-up: module loading, clocks */
        if (fn(ctx, stream) != WB_OK) goto done;
    for (int i = 0; i < iters; i++) {
        if (l2_flush(flush, i, stream) != WB_OK) goto done;
        err = cudaEventRecord(ev[2 * i], stream);
        if (err != cudaSuccess) goto cuda_failed;
        if (fn(ctx, stream) != WB_OK) goto done;
        err = cudaEventRecord(ev[2 * i + 1], stream);
        if (err != cudaSuccess) goto cuda_failed;
    }
    err = cudaStreamSynchronize(stream);
    for (int i = 0; i < iters && err == cudaSuccess; i++) {
        float ms = 0.0f;
        err = cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]);
        us[i] = 1e3 * ms;
    }
    if (err != cudaSuccess) goto cuda_failed;
    *median_us = wb_median(us, iters);
    rc = WB_OK;
    goto done;
cuda_failed:
    fprintf(stderr, "timing failed: %s\n", cudaGetErrorString(err));
done:
    if (ev)
        for (int i = 0; i < 2 * iters; i++)
            if (ev[i]) cudaEventDestroy(ev[i]);
    free(ev);
    free(us);
    return rc;
}

typedef struct {
    bf16 *h, *g, *u, *a;
    int ld_h, ld_gu, rows, cols;
    const gelu_mul_impl *impl;  /* bench_gelu_mul */
    gelu_mul_launch_info info;  /* its plan for this layout */
    void *copy_dst;             /* bench_copy */
    const void *copy_src;
    size_t copy_bytes;
} bench_args;

static int bench_gelu_mul(void *ctx, cudaStream_t s) {
    bench_args *b = (bench_args *)ctx;
    return gelu_mul_impl_launch(b->impl, &b->info, b->h, b->ld_h, b->g, b->u, b->ld_gu, b->rows, b->cols, s);
}
static int bench_gelu(void *ctx, cudaStream_t s) {
    bench_args *b = (bench_args *)ctx;
    return gelu_launch(b->a, b->g, (size_t)b->rows * b->cols, s);
}
static int bench_mul(void *ctx, cudaStream_t s) {
    bench_args *b = (bench_args *)ctx;
    return mul_launch(b->h, b->a, b->u, (size_t)b->rows * b->cols, s);
}
static int bench_copy(void *ctx, cudaStream_t s) {
    bench_args *b = (bench_args *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(b->copy_dst, b->copy_src, b->copy_bytes, cudaMemcpyDeviceToDevice, s));
    return WB_OK;
}
static int bench_empty(void *ctx, cudaStream_t s) {
    (void)ctx;
    k_empty<<<1, 32, 0, s>>>();
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

/* Times fn inside an NVTX range "kb BENCH IMPL LAYOUT": when the run is captured (CUPTI, e.g.
 * by bench/lessons_bench.py through libwb_capture.so), the range finds the kernels' own
 * durations. Without a capture the range costs nothing. */
static int time_in_range(const char *what, const char *impl, const char *layout, launch_fn fn, void *ctx,
                         int iters, const l2_flusher *flush, cudaStream_t s, double *us) {
    char range[96];
    snprintf(range, sizeof range, "kb %s %s %s", what, impl, layout);
    nvtxRangePushA(range);
    int rc = time_launches(fn, ctx, iters, flush, s, us);
    nvtxRangePop();
    return rc;
}

/* One human-readable line and one RESULT line (space-separated key=value, no spaces in values)
 * per timing; bench/lessons_bench.py reads the RESULT lines. */
static void bench_report(const char *what, const char *impl, const char *layout, int rows, int cols,
                         flush_mode flush, const gelu_mul_launch_info *info, double us, double bytes) {
    char launch[128] = "";
    if (info)
        snprintf(launch, sizeof launch, " path=%s grid=%u block=%ux%u regs=%d per_sm=%d", info->path,
                 info->grid.x, info->block.x, info->block.y, info->regs, info->per_sm);
    printf("%-8s %-9s %-9s %6d x %-6d %9.2f us %8.1f GB/s %s\n", what, impl, layout, rows, cols, us,
           bytes / us * 1e-3, launch);
    printf("RESULT lesson=03_mlp bench=%s impl=%s layout=%s rows=%d cols=%d flush=%s gpu_us=%.2f bytes=%.0f "
           "gbps=%.1f%s\n", what, impl, layout, rows, cols, flush_names[flush], us, bytes, bytes / us * 1e-3, launch);
}

/* ---- command line --------------------------------------------------------------------------- */

/* --flush NAME: none, write or read. 0 on success, -1 for an unknown name. */
static int parse_flush(const char *name, flush_mode *out) {
    for (int i = 0; i < 3; i++)
        if (strcmp(name, flush_names[i]) == 0) {
            *out = (flush_mode)i;
            return 0;
        }
    return -1;
}

/* Parses --impl: names from gelu_mul_impls or "all" (GELU_MUL_IMPLS_ALL), comma-separated, into
 * ids[0..*n) (at most cap; id 0 is row, k_gelu_mul itself). A name may come twice: "all,row" times row first and last, which shows the drift
 * over one run. */
static int parse_impls(const char *list, int *ids, int cap, int *n) {
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf) return -1;
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "all") == 0) {
            char all[] = GELU_MUL_IMPLS_ALL;
            for (char *s2 = NULL, *t = strtok_r(all, ",", &s2); t; t = strtok_r(NULL, ",", &s2))
                for (int i = 0; i < N_GELU_MUL_IMPLS; i++)
                    if (strcmp(t, gelu_mul_impls[i].name) == 0) {
                        if (*n >= cap) return -1;
                        ids[(*n)++] = i;
                    }
            continue;
        }
        int id = -1;
        for (int i = 0; i < N_GELU_MUL_IMPLS; i++)
            if (strcmp(tok, gelu_mul_impls[i].name) == 0) id = i;
        if (id < 0 || *n >= cap) return -1;
        ids[(*n)++] = id;
    }
    return *n > 0 ? 0 : -1;
}

/* The option table's callbacks for --flush and --impl: 0, or -1 after saying why. */
typedef struct {
    flush_mode flush;
    int ids[64]; /* implementations to time */
    int n;
} bench_choice;

static int set_flush(void *c, const char *arg) {
    if (parse_flush(arg, &((bench_choice *)c)->flush) == 0) return 0;
    fprintf(stderr, "--flush: '%s' is not none, write or read\n", arg);
    return -1;
}

static int set_impls(void *c, const char *arg) {
    bench_choice *b = (bench_choice *)c;
    if (parse_impls(arg, b->ids, (int)(sizeof b->ids / sizeof b->ids[0]), &b->n) == 0) return 0;
    fprintf(stderr, "--impl: '%s' names an unknown implementation (or too many)\n", arg);
    return -1;
}

/* ---- the bench ------------------------------------------------------------------------------ */

/*
 * gelu(g) * u alone on (rows, cols), by each implementation asked for (--impl), in three
 * layouts, each checked against the CPU before it is timed:
 *   separate  g and u are their own (rows, cols) tensors            (the fused variant)
 *   merged    g and u are the halves of each (rows, 2*cols) row      (the merged variant)
 *   padded    rows of ld = cols rounded up to 8: 16-byte accesses plus a scalar tail; only
 *             when cols % 8 != 0, where the other two fall back to element-wise accesses
 * then, on the separate layout's inputs, the eager pair k_gelu + k_mul, and two
 * controls: `copy`, a cudaMemcpyAsync that moves the same bytes (3 bytes per element read and
 * written: what a copy achieves at this size, under the same flush), and `empty`, a kernel that
 * does nothing (the events' and launch's own share of every time). Times are medians over
 * --iters launches, each after an L2 flush. Bytes = read g and u, write h: 6 per element.
 * Fresh random inputs for each layout; h is poisoned before every checked launch.
 */
static int gelu_mul_bench(int rows, int cols, int iters, flush_mode flush_how, const int *impl_ids, int n_impls,
                          uint64_t seed) {
    size_t n = (size_t)rows * cols;
    int ld_pad = (cols + 7) / 8 * 8;
    size_t n_big = (size_t)rows * 2 * ld_pad; /* holds (rows, 2*cols) and two (rows, ld_pad) */
    size_t n_h = n_big + GUARD_ELEMS;         /* h: any layout's rows, then the guard */
    float *g_host = (float *)malloc(n_big * sizeof(float));
    float *u_host = (float *)malloc(n * sizeof(float));
    double *ref = NULL;
    bf16 *g = NULL, *u = NULL, *gu = NULL, *h = NULL, *a = NULL;
    l2_flusher flush = {flush_how, NULL, 0};
    cudaStream_t stream = NULL;
    int rc = WB_FAIL;
    wb_rng rng;
    wb_rng_seed(&rng, seed);
    if (!g_host || !u_host) {
        fprintf(stderr, "out of host memory\n");
        goto done;
    }
#define BENCH_CUDA(expr)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,                   \
                    cudaGetErrorString(e_));                                                       \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)
    BENCH_CUDA(cudaMalloc((void **)&g, n * sizeof(bf16)));
    BENCH_CUDA(cudaMalloc((void **)&u, n * sizeof(bf16)));
    BENCH_CUDA(cudaMalloc((void **)&gu, n_big * sizeof(bf16)));
    BENCH_CUDA(cudaMalloc((void **)&h, n_h * sizeof(bf16)));
    BENCH_CUDA(cudaMalloc((void **)&a, n * sizeof(bf16)));
    if (flush.mode != FLUSH_NONE) {
        BENCH_CUDA(cudaMalloc(&flush.buf, L2_FLUSH_BYTES));
        BENCH_CUDA(cudaMemset(flush.buf, 0x5A, L2_FLUSH_BYTES));
        int dev = 0, sms = 0;
        BENCH_CUDA(cudaGetDevice(&dev));
        BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        flush.grid = (unsigned)sms * 8;
    }
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    printf("gelu_mul bench: rows %d, cols %d, %d launches each, L2 flush before each: %s\n", rows, cols, iters,
           flush_how == FLUSH_NONE ? "none" : flush_how == FLUSH_WRITE ? "write (memset)" : "read");
    for (int i = 0; i < n_impls; i++)
        printf("  impl %-9s %s\n", gelu_mul_impls[impl_ids[i]].name, gelu_mul_impls[impl_ids[i]].about);
    {
        const char *layouts[] = {"separate", "merged", "padded"};
        for (int l = 0; l < 3; l++) {
            if (l == 2 && cols % 8 == 0) continue;
            bench_args b = {};
            b.rows = rows;
            b.cols = cols;
            b.h = h;
            b.ld_h = l == 2 ? ld_pad : cols;
            const float *g_ref, *u_ref; /* host copies of what b.g and b.u point at */
            if (l == 0) { /* g and u: their own (rows, cols) tensors */
                b.g = g;
                b.u = u;
                b.ld_gu = cols;
                wb_fill_normal(g_host, n, &rng, 1.5f);
                wb_fill_normal(u_host, n, &rng, 1.5f);
                if (wb_upload_bf16(g, g_host, n) != WB_OK || wb_upload_bf16(u, u_host, n) != WB_OK) goto done;
                g_ref = g_host;
                u_ref = u_host;
            } else { /* g and u inside one buffer gu, mirrored on the host by g_host */
                size_t elems;
                if (l == 1) { /* (rows, 2*cols): [g | u] per row */
                    b.g = gu;
                    b.u = gu + cols;
                    b.ld_gu = 2 * cols;
                    elems = (size_t)rows * 2 * cols;
                } else {      /* two (rows, ld_pad) blocks, rows padded to a multiple of 8 */
                    b.g = gu;
                    b.u = gu + (size_t)rows * ld_pad;
                    b.ld_gu = ld_pad;
                    elems = n_big;
                }
                wb_fill_normal(g_host, elems, &rng, 1.5f);
                if (wb_upload_bf16(gu, g_host, elems) != WB_OK) goto done;
                g_ref = g_host + (b.g - gu);
                u_ref = g_host + (b.u - gu);
            }
            free(ref);
            ref = gelu_mul_reference(g_ref, u_ref, b.ld_gu, rows, cols);
            if (!ref) goto done;
            for (int i = 0; i < n_impls; i++) {
                const gelu_mul_impl *im = &gelu_mul_impls[impl_ids[i]];
                b.impl = im;
                if (gelu_mul_impl_plan(im, b.h, b.ld_h, b.g, b.u, b.ld_gu, rows, cols, &b.info) != WB_OK) goto done;
                BENCH_CUDA(cudaMemset(h, 0xFF, n_h * sizeof(bf16))); /* NaN until written */
                BENCH_CUDA(cudaDeviceSynchronize()); /* default-stream copies done before `stream` reads */
                if (bench_gelu_mul(&b, stream) != WB_OK) goto done;
                BENCH_CUDA(cudaStreamSynchronize(stream));
                char name[64];
                snprintf(name, sizeof name, "gelu_mul %s %s", im->name, layouts[l]);
                if (check_gelu_mul(name, h, b.ld_h, ref, rows, cols) != WB_OK) {
                    fprintf(stderr, "FAIL: gelu_mul impl %s (%s layout) differs from the CPU reference\n",
                            im->name, layouts[l]);
                    goto done;
                }
                double us;
                if (time_in_range("gelu_mul", im->name, layouts[l], bench_gelu_mul, &b, iters, &flush, stream, &us) !=
                    WB_OK)
                    goto done;
                bench_report("gelu_mul", im->name, layouts[l], rows, cols, flush_how, &b.info, us, 6.0 * (double)n);
            }
            if (l != 0) continue;
            /* The eager pair on the same separate g and u, checked through h like the fused kernels. */
            b.a = a;
            BENCH_CUDA(cudaMemset(h, 0xFF, n_h * sizeof(bf16)));
            BENCH_CUDA(cudaDeviceSynchronize());
            if (bench_gelu(&b, stream) != WB_OK || bench_mul(&b, stream) != WB_OK) goto done;
            BENCH_CUDA(cudaStreamSynchronize(stream));
            if (check_gelu_mul("gelu then mul", h, cols, ref, rows, cols) != WB_OK) {
                fprintf(stderr, "FAIL: k_gelu + k_mul differ from the CPU reference\n");
                goto done;
            }
            double us_gelu, us_mul;
            if (time_in_range("gelu", "eager", "separate", bench_gelu, &b, iters, &flush, stream, &us_gelu) != WB_OK ||
                time_in_range("mul", "eager", "separate", bench_mul, &b, iters, &flush, stream, &us_mul) != WB_OK)
                goto done;
            bench_report("gelu", "eager", "separate", rows, cols, flush_how, NULL, us_gelu, 4.0 * (double)n);
            bench_report("mul", "eager", "separate", rows, cols, flush_how, NULL, us_mul, 6.0 * (double)n);
        }
    }
    {
        /* Controls. copy: 3 bytes per element read and 3 written, gu -> h (both hold >= 4 bytes
         * per element), the gelu_mul kernels' 6 bytes per element. */
        bench_args b = {};
        b.copy_dst = h;
        b.copy_src = gu;
        b.copy_bytes = 3 * n;
        double us_copy, us_empty;
        if (time_in_range("copy", "memcpy", "flat", bench_copy, &b, iters, &flush, stream, &us_copy) != WB_OK ||
            time_in_range("empty", "empty", "none", bench_empty, &b, iters, &flush, stream, &us_empty) != WB_OK)
            goto done;
        bench_report("copy", "memcpy", "flat", rows, cols, flush_how, NULL, us_copy, 6.0 * (double)n);
        bench_report("empty", "empty", "none", rows, cols, flush_how, NULL, us_empty, 0.0);
    }
#undef BENCH_CUDA
    rc = WB_OK;
done:
    cudaFree(g);
    cudaFree(u);
    cudaFree(gu);
    cudaFree(h);
    cudaFree(a);
    cudaFree(flush.buf);
    if (stream) cudaStreamDestroy(stream);
    free(g_host);
    free(u_host);
    free(ref);
    return rc;
}

/* ---- main ----------------------------------------------------------------------------------- */

static void usage(const char *prog) {
    fprintf(stderr,
            "usage: %s [--rows R] [--cols C] [--iters N] [--impl LIST] [--flush write|read|none]\n"
            "          [--no-flush] [--seed X]\n"
            "  --rows, --cols   the shape of g, u and h (default 8192 x 3072: lesson 03's tokens x hidden)\n"
            "  --iters    timed launches per kernel (default 50)\n"
            "  --impl     which implementations of gelu(g) * u, comma-separated;\n"
            "             all stands for " GELU_MUL_IMPLS_ALL "; default row\n"
            "             (k_gelu_mul, what lesson 03's variants launch). Any of:\n"
            "            ",
            prog);
    for (int i = 0; i < N_GELU_MUL_IMPLS; i++) fprintf(stderr, " %s", gelu_mul_impls[i].name);
    fprintf(stderr,
            "\n"
            "  --flush    how L2 is flushed before each timed launch: write (a memset, default),\n"
            "             read (a kernel reads a buffer, leaving L2 clean) or none\n"
            "  --no-flush the same as --flush none, whatever --flush says\n"
            "  --seed     random inputs (default 1)\n");
}

int main(int argc, char **argv) {
    int rows = 8192, cols = 3072;   /* lesson 03's intermediate: (batch 64 * seq 128, hidden) */
    int iters = 50;                 /* timed launches per kernel */
    int seed = 1;                   /* random inputs */
    bench_choice c = {FLUSH_WRITE, {0}, 1}; /* cold L2 before each launch; row alone */
    int no_flush = 0;

    const wb_opt options[] = {
        WB_INT("rows", &rows, 1, 1 << 24), WB_INT("cols", &cols, 1, 1 << 20), WB_INT("iters", &iters, 1, 100000),
        WB_CALL("impl", &c, set_impls),    WB_CALL("flush", &c, set_flush),   WB_FLAG("no-flush", &no_flush),
        WB_INT("seed", &seed, 0, 1 << 30),
    };
    switch (wb_opts_parse(options, (int)(sizeof options / sizeof options[0]), argc, argv)) {
    case 1: usage(argv[0]); return 0;
    case -1: usage(argv[0]); return 2;
    }
    if (no_flush) c.flush = FLUSH_NONE;
    if ((long long)rows * 2 * cols > (1ll << 31)) {
        fprintf(stderr, "%s: --rows x --cols too large (2 x rows x cols must stay under 2^31)\n", argv[0]);
        return 2;
    }
    return gelu_mul_bench(rows, cols, iters, c.flush, c.ids, c.n, (uint64_t)seed) == WB_OK ? EXIT_SUCCESS
                                                                                               : EXIT_FAILURE;
}
