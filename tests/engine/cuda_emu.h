/*
 * cuda_emu.h: just enough of CUDA, run on the CPU, to execute lesson 04's CUDA backend
 * (engine/cuda/, compiled as C++ with WB_CUDA_EMULATION) where no GPU is. It checks
 * the backend's host logic (shapes, strides, which kernel, which cuBLASLt layout and op) and its
 * kernels' indexing and arithmetic, not performance or the hardware's memory model.
 *
 *   threads   every thread of a block is a fiber (ucontext) on the calling thread, run in turn by
 *             a scheduler until it waits at a barrier or ends; blocks run one after another, so
 *             one buffer serves as shared memory and `__shared__` arrays become function statics.
 *             Switching fibers costs a user-space context switch, not an OS thread's wake-up, so
 *             the tests cost CPU time alone, whatever else the machine runs; a block whose threads
 *             all wait at barriers that cannot complete (a barrier in divergent code) aborts
 *   sync      __syncthreads and __syncwarp are barriers; a warp shuffle goes through a per-warp
 *             exchange array
 *   WMMA      a fragment holds its whole 16 x 16 tile in every lane (each lane computes the full
 *             product, lane 0 stores it), with a warp barrier around each collective load/store
 *   wgmma     wgmma.mma_async m64nNk16 bf16 -> f32 (sm_90a): the warpgroup (128 threads) meets at a
 *             barrier, posts A fragments when A comes from registers, and each thread computes its
 *             own accumulators, reading A and B from shared memory through the descriptor as the
 *             PTX ISA defines it (canonical K- or MN-major layout, then the 128-byte swizzle applied
 *             to the address); fence, commit and wait are no-ops, as the product is done at the call
 *   cp.async  16-byte copies queued per thread: the destination is poisoned (all ones, a bf16
 *             NaN) when the copy is issued and written at cp.async.wait_group, so that reading it
 *             in between, by any thread, shows: before the wait (a missing wait or barrier), or
 *             while another warp still reads the old contents (a missing barrier before a refill).
 *             The source is read only when the copy is valid; zeros are written otherwise.
 *   runtime   cudaMalloc is malloc, copies are memcpy, the stream is the calling thread
 *   cuBLASLt  cublasLtMatmul is a column-major reference GEMM that honours TRANSA/TRANSB, the
 *             layouts' leading dimensions and batch strides, beta with a C apart from D, and the
 *             BIAS, GELU_AUX(_BIAS) and DGELU epilogues
 */
#ifndef WB_CUDA_EMU_H
#define WB_CUDA_EMU_H

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <type_traits>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h> /* fiber switches told to AddressSanitizer */
#define EMU_ASAN 1
#endif

#define WB_CUDA_EMULATION 1

/* ---- language ---- */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(x)
#define __shared__ static /* blocks run one at a time: a function static is the block's shared memory */

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    dim3() = default;
    dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct emu_idx {
    unsigned x = 0, y = 0, z = 0;
};
/* the running fiber's indices: the scheduler sets them before it resumes a fiber */
inline emu_idx threadIdx, blockIdx;
inline unsigned emu_tid; /* linear thread id in the block: warps are groups of 32 */
inline dim3 blockDim, gridDim;

struct emu_barrier;
inline void emu_wait(const emu_barrier *b, unsigned generation); /* to the scheduler until b moves on */
struct emu_barrier {
    unsigned expected = 0, arrived = 0, generation = 0;
    void arrive_and_wait() {
        const unsigned g = generation;
        if (++arrived == expected) {
            arrived = 0, generation++;
            return;
        }
        emu_wait(this, g);
    }
};
struct emu_block {
    emu_barrier block;
    emu_barrier warp[32];
    float xchg[32][32];
    emu_barrier wgroup[8]; /* per warpgroup (128 threads): wgmma */
    float wga[8][64][16];  /* warpgroup-collective exchange (wgmma's A from registers) */
};
inline emu_block *emu_cur;
alignas(1024) inline unsigned char emu_dynamic_smem[256 * 1024]; /* 1024: wgmma's swizzled tiles */
#define FA_DYNAMIC_SHARED(name) unsigned char *name = emu_dynamic_smem

inline void __syncthreads() { emu_cur->block.arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_cur->warp[emu_tid / 32].arrive_and_wait(); }
inline float __shfl_xor_sync(unsigned, float v, int o) {
    int w = emu_tid / 32, lane = emu_tid % 32;
    emu_cur->xchg[w][lane] = v;
    __syncwarp();
    float r = emu_cur->xchg[w][lane ^ o];
    __syncwarp();
    return r;
}
inline float atomicAdd(float *p, float v) { return std::atomic_ref<float>(*p).fetch_add(v); }
inline float __uint_as_float(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
inline float emu_expf(float x) { return expf(x); }
#define __expf emu_expf /* glibc declares an __expf of its own, not for linking */
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
/* the GPU's is x times an approximate reciprocal of y (2 ulp for |y| in [2^-126, 2^126]; 0 past
 * 2^126): the kernels call it only with y in [1, 2], where both agree to rounding */
inline float __fdividef(float x, float y) { return x / y; }

/* ---- bf16 ---- */
struct __nv_bfloat16 {
    uint16_t bits;
};
inline float __bfloat162float(__nv_bfloat16 h) {
    uint32_t u = (uint32_t)h.bits << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
inline __nv_bfloat16 __float2bfloat16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu)) return __nv_bfloat16{(uint16_t)((u >> 16) | 0x40)};
    u += 0x7fffu + ((u >> 16) & 1u);
    return __nv_bfloat16{(uint16_t)(u >> 16)};
}
inline std::mutex emu_atomic_mutex;
inline __nv_bfloat16 atomicAdd(__nv_bfloat16 *p, __nv_bfloat16 v) {
    std::lock_guard<std::mutex> lock(emu_atomic_mutex);
    __nv_bfloat16 old = *p;
    *p = __float2bfloat16(__bfloat162float(old) + __bfloat162float(v));
    return old;
}
struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
};
inline __nv_bfloat162 atomicAdd(__nv_bfloat162 *p, __nv_bfloat162 v) { /* each half atomically, as on the GPU */
    return __nv_bfloat162{atomicAdd(&p->x, v.x), atomicAdd(&p->y, v.y)};
}
struct alignas(16) uint4 {
    unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
struct alignas(8) float2 {
    float x, y;
};
inline float2 make_float2(float x, float y) { return float2{x, y}; }
/* streaming (evict-first) loads and stores: cache hints only, plain accesses here */
template <typename V>
inline V __ldcs(const V *p) { return *p; }
template <typename V>
inline void __stcs(V *p, V v) { *p = v; }
struct alignas(16) float4 {
    float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

/* ---- the last-block-finishes pattern (cuda_common.cuh's tree_finish): blocks run one after
 * another here, so the counter's last arrival is simply the block that runs last of its group ---- */
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned atomicAdd(unsigned *p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
inline float4 __ldcg(const float4 *p) { return *p; }

/* ---- WMMA ---- */
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
template <typename Use, int M, int N, int K, typename T, typename Layout = void>
struct fragment {
    float x[16][16];
};
template <typename Use, typename T, typename L>
void fill_fragment(fragment<Use, 16, 16, 16, T, L> &f, float v) {
    for (auto &row : f.x)
        for (float &e : row) e = v;
}
template <typename Use, typename L>
void load_matrix_sync(fragment<Use, 16, 16, 16, __nv_bfloat16, L> &f, const __nv_bfloat16 *p, unsigned ldm) {
    if ((uintptr_t)p % 32) { fprintf(stderr, "wmma: load from a pointer not 32-byte aligned\n"); abort(); }
    __syncwarp();
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++)
            f.x[i][j] = __bfloat162float(std::is_same<L, row_major>::value ? p[i * ldm + j] : p[j * ldm + i]);
    __syncwarp();
}
inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, float> &f, const float *p, unsigned ldm, layout_t l) {
    if ((uintptr_t)p % 32) { fprintf(stderr, "wmma: load from a pointer not 32-byte aligned\n"); abort(); }
    __syncwarp();
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) f.x[i][j] = l == mem_row_major ? p[i * ldm + j] : p[j * ldm + i];
    __syncwarp();
}
inline void store_matrix_sync(float *p, const fragment<accumulator, 16, 16, 16, float> &f, unsigned ldm, layout_t l) {
    if ((uintptr_t)p % 32) { fprintf(stderr, "wmma: store to a pointer not 32-byte aligned\n"); abort(); }
    __syncwarp();
    if (emu_tid % 32 == 0)
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) (l == mem_row_major ? p[i * ldm + j] : p[j * ldm + i]) = f.x[i][j];
    __syncwarp();
}
template <typename LA, typename LB>
void mma_sync(fragment<accumulator, 16, 16, 16, float> &d, const fragment<matrix_a, 16, 16, 16, __nv_bfloat16, LA> &a,
              const fragment<matrix_b, 16, 16, 16, __nv_bfloat16, LB> &b, const fragment<accumulator, 16, 16, 16, float> &c) {
    float r[16][16];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            float s = c.x[i][j];
            for (int k = 0; k < 16; k++) s += a.x[i][k] * b.x[k][j];
            r[i][j] = s;
        }
    memcpy(d.x, r, sizeof r);
}
} // namespace wmma
} // namespace nvcuda

/* the low (hi = 0) or high bf16 of a 32-bit register, as a float */
inline float emu_bf16_half(uint32_t v, int hi) { return __bfloat162float(__nv_bfloat16{(uint16_t)(hi ? v >> 16 : v & 0xffffu)}); }
/* Skew (0: off): the scheduler resumes the lowest-numbered thread that can run, instead of each in
 * turn, so that warpgroup 0 runs as far ahead of the others as the barriers let it: a refill of shared
 * memory that another warpgroup still reads (a missing __syncthreads) meets the poison of cp.async,
 * a tile read before every thread's copies landed holds another tile. */
inline int emu_skew = 0;

/* ---- wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 (engine/cuda/wgmma.cuh) ----
 * A descriptor holds a shared address (>> 4), the leading and stride byte offsets (>> 4), a base
 * offset and the swizzle mode; the emulation takes only the 128-byte swizzle with base offset 0, the
 * one wgmma.cuh builds. Element (mn, k) of a K-major operand sits at
 *   start + (mn % 8) 128 + (mn / 8) SBO + (k % 8) 2 + (k / 8) 16,
 * of an MN-major one at
 *   start + (mn % 8) 2 + ((mn / 8) % 8) 16 + (mn / 64) LBO + (k % 8) 128 + (k / 8) SBO,
 * and the swizzle XORs address bits 4-6 with bits 7-9 (Swizzle<3,4,3>). */
inline uint32_t wg_smem_addr(const void *p) {
    const unsigned char *c = (const unsigned char *)p;
    if (c < emu_dynamic_smem || c >= emu_dynamic_smem + sizeof emu_dynamic_smem || (uintptr_t)p % 16) {
        fprintf(stderr, "wgmma: operand %p not 16-byte aligned in dynamic shared memory\n", p);
        abort();
    }
    return (uint32_t)(c - emu_dynamic_smem);
}
inline float emu_wg_operand(uint64_t desc, bool mn_major, int mn, int k) {
    if (desc >> 62 != 1 || (desc >> 49 & 7)) {
        fprintf(stderr, "wgmma: descriptor %016llx: not the 128-byte swizzle with base offset 0\n", (unsigned long long)desc);
        abort();
    }
    uint32_t start = (uint32_t)(desc & 0x3FFF) << 4, lbo = (uint32_t)(desc >> 16 & 0x3FFF) << 4, sbo = (uint32_t)(desc >> 32 & 0x3FFF) << 4;
    uint32_t off = mn_major ? (mn % 8) * 2 + (mn / 8 % 8) * 16 + (mn / 64) * lbo + (k % 8) * 128 + (k / 8) * sbo
                            : (mn % 8) * 128 + (mn / 8) * sbo + (k % 8) * 2 + (k / 8) * 16;
    uint32_t addr = start + off;
    addr ^= (addr >> 7 & 7) << 4;
    if (addr + 2 > sizeof emu_dynamic_smem) {
        fprintf(stderr, "wgmma: operand element past shared memory\n");
        abort();
    }
    uint16_t bits;
    memcpy(&bits, emu_dynamic_smem + addr, 2);
    return __bfloat162float(__nv_bfloat16{bits});
}
/* areg: A from registers (m64k16 fragments, warp w rows 16 w .., mma.sync's A layout), else from adesc */
template <int N>
inline void emu_wg_mma(float *d, const uint32_t *areg, uint64_t adesc, bool ta, uint64_t bdesc, bool tb, int acc) {
    const int wg = emu_tid / 128, t = emu_tid % 128, w = t / 32, g = t % 32 / 4, c = t % 4;
    float (*A)[16] = emu_cur->wga[wg];
    emu_cur->wgroup[wg].arrive_and_wait(); /* every thread is here, and done with the last call's A */
    if (areg)
        for (int j = 0; j < 2; j++) {
            A[16 * w + g][2 * c + j] = emu_bf16_half(areg[0], j);
            A[16 * w + g + 8][2 * c + j] = emu_bf16_half(areg[1], j);
            A[16 * w + g][2 * c + 8 + j] = emu_bf16_half(areg[2], j);
            A[16 * w + g + 8][2 * c + 8 + j] = emu_bf16_half(areg[3], j);
        }
    emu_cur->wgroup[wg].arrive_and_wait();
    for (int j = 0; j < N / 8; j++)
        for (int e = 0; e < 4; e++) {
            const int row = 16 * w + g + (e >= 2 ? 8 : 0), col = 8 * j + 2 * c + (e & 1);
            float s = acc ? d[4 * j + e] : 0.0f;
            for (int k = 0; k < 16; k++)
                s += (areg ? A[row][k] : emu_wg_operand(adesc, ta, row, k)) * emu_wg_operand(bdesc, tb, col, k);
            d[4 * j + e] = s;
        }
}
template <int TA, int TB> inline void wg_mma_ss_n32(float d[16], uint64_t a, uint64_t b, int acc) { emu_wg_mma<32>(d, nullptr, a, TA, b, TB, acc); }
template <int TA, int TB> inline void wg_mma_ss_n64(float d[32], uint64_t a, uint64_t b, int acc) { emu_wg_mma<64>(d, nullptr, a, TA, b, TB, acc); }
template <int TA, int TB> inline void wg_mma_ss_n128(float d[64], uint64_t a, uint64_t b, int acc) { emu_wg_mma<128>(d, nullptr, a, TA, b, TB, acc); }
template <int TB> inline void wg_mma_rs_n32(float d[16], const uint32_t a[4], uint64_t b, int acc) { emu_wg_mma<32>(d, a, 0, 0, b, TB, acc); }
template <int TB> inline void wg_mma_rs_n64(float d[32], const uint32_t a[4], uint64_t b, int acc) { emu_wg_mma<64>(d, a, 0, 0, b, TB, acc); }
template <int TB> inline void wg_mma_rs_n128(float d[64], const uint32_t a[4], uint64_t b, int acc) { emu_wg_mma<128>(d, a, 0, 0, b, TB, acc); }
inline void wg_fence() {}
inline void wg_commit() {}
template <int N> inline void wg_wait() {}
inline void wg_fence_smem() {}
template <int N> inline void wg_fence_acc(float *) {}


inline void emu_check_shared(const void *p, size_t bytes, const char *what) {
    const unsigned char *c = (const unsigned char *)p;
    if ((uintptr_t)p % 16 || c < emu_dynamic_smem || c + bytes > emu_dynamic_smem + sizeof emu_dynamic_smem) {
        fprintf(stderr, "%s: address %p not 16-byte aligned in shared memory\n", what, p);
        abort();
    }
}

/* ---- cp.async.cg.shared.global 16 bytes (zero-filled when !valid), commit_group, wait_group ---- */
struct emu_cp {
    void *dst;
    const void *src;
    bool valid;
};
inline std::vector<emu_cp> emu_cp_open_of[1024];                /* per thread of the block */
inline std::vector<std::vector<emu_cp>> emu_cp_groups_of[1024];
#define emu_cp_open emu_cp_open_of[emu_tid]
#define emu_cp_groups emu_cp_groups_of[emu_tid]
inline void cp_async_16(void *dst, const void *src, bool valid) {
    emu_check_shared(dst, 16, "cp.async destination");
    if (valid && (uintptr_t)src % 16) {
        fprintf(stderr, "cp.async: source %p not 16-byte aligned\n", src);
        abort();
    }
    memset(dst, 0xff, 16); /* undefined until the wait */
    emu_cp_open.push_back({dst, src, valid});
}
inline void cp_async_commit() {
    emu_cp_groups.push_back(std::move(emu_cp_open));
    emu_cp_open.clear();
}
inline void emu_cp_complete(const std::vector<emu_cp> &grp) {
    for (const emu_cp &c : grp) {
        if (c.valid) memcpy(c.dst, c.src, 16);
        else memset(c.dst, 0, 16);
    }
}
template <int N>
inline void cp_async_wait() { /* every group but the N most recent is complete */
    while (emu_cp_groups.size() > (size_t)N) {
        emu_cp_complete(emu_cp_groups.front());
        emu_cp_groups.erase(emu_cp_groups.begin());
    }
}
inline void emu_cp_drain() { /* a block that ends with copies in flight: they land anyway */
    cp_async_commit();
    cp_async_wait<0>();
}

inline float fa_exp2(float x) { return exp2f(x); }
inline uint32_t pack_bf16x2(float lo, float hi) {
    return (uint32_t)__float2bfloat16(lo).bits | (uint32_t)__float2bfloat16(hi).bits << 16;
}

/* ---- launches: each block's threads are fibers on the calling thread ---- */
enum { EMU_MAX_THREADS = 1024, EMU_STACK = 256 * 1024 };
struct emu_fiber {
    ucontext_t ctx;
    unsigned char *stack; /* EMU_STACK bytes, the lowest page a guard */
    bool done;
    const emu_barrier *waits; /* at this barrier until it leaves generation `gen`, or NULL */
    unsigned gen;
    void *asan_fake_stack;
};
inline emu_fiber emu_fibers[EMU_MAX_THREADS];
inline ucontext_t emu_sched_ctx;
inline const std::function<void()> *emu_body;
#ifdef EMU_ASAN
inline const void *emu_sched_stack;
inline size_t emu_sched_stack_size;
#endif

inline void emu_wait(const emu_barrier *b, unsigned generation) {
    emu_fiber &f = emu_fibers[emu_tid];
    f.waits = b, f.gen = generation;
#ifdef EMU_ASAN
    __sanitizer_start_switch_fiber(&f.asan_fake_stack, emu_sched_stack, emu_sched_stack_size);
#endif
    swapcontext(&f.ctx, &emu_sched_ctx); /* resumed once b->generation != generation */
#ifdef EMU_ASAN
    __sanitizer_finish_switch_fiber(f.asan_fake_stack, &emu_sched_stack, &emu_sched_stack_size);
#endif
}
inline void emu_fiber_main() {
#ifdef EMU_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &emu_sched_stack, &emu_sched_stack_size);
#endif
    (*emu_body)();
    emu_cp_drain();
    emu_fibers[emu_tid].done = true;
#ifdef EMU_ASAN
    __sanitizer_start_switch_fiber(nullptr, emu_sched_stack, emu_sched_stack_size); /* this fiber ends */
#endif
} /* returns to uc_link: the scheduler */

inline void emu_launch(dim3 grid, dim3 block, const std::function<void()> &f) {
    const unsigned threads = block.x * block.y * block.z;
    if (threads == 0 || threads > EMU_MAX_THREADS) {
        fprintf(stderr, "emu_launch: %u threads a block\n", threads);
        abort();
    }
    gridDim = grid;
    blockDim = block;
    emu_body = &f;
    for (unsigned t = 0; t < threads; t++)
        if (!emu_fibers[t].stack) {
            void *m = mmap(nullptr, EMU_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE)) {
                fprintf(stderr, "emu_launch: no memory for a fiber's stack\n");
                abort();
            }
            emu_fibers[t].stack = (unsigned char *)m;
        }
    static emu_block b; /* large (the exchange arrays); blocks run one at a time */
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                b.block = emu_barrier{threads};
                for (unsigned w = 0; w < 32; w++) b.warp[w] = emu_barrier{threads > 32 * w + 32 ? 32 : threads > 32 * w ? threads - 32 * w : 0};
                for (unsigned w = 0; w < 8; w++) b.wgroup[w] = emu_barrier{threads > 128 * w + 128 ? 128 : threads > 128 * w ? threads - 128 * w : 0};
                emu_cur = &b;
                blockIdx = {bx, by, bz};
                for (unsigned t = 0; t < threads; t++) {
                    emu_fiber &fb = emu_fibers[t];
                    fb.done = false, fb.waits = nullptr;
                    getcontext(&fb.ctx);
                    fb.ctx.uc_stack.ss_sp = fb.stack + 4096;
                    fb.ctx.uc_stack.ss_size = EMU_STACK - 4096;
                    fb.ctx.uc_link = &emu_sched_ctx;
                    makecontext(&fb.ctx, emu_fiber_main, 0);
                }
                /* Run a thread until it waits at a barrier or ends, then the next one that can run:
                 * the following one in turn, or with emu_skew the lowest-numbered one. */
                unsigned left = threads, t = 0;
                for (;;) {
                    unsigned tries = 0;
                    while (tries < threads) {
                        emu_fiber &fb = emu_fibers[t];
                        if (!fb.done && (!fb.waits || fb.waits->generation != fb.gen)) break;
                        t = t + 1 == threads ? 0 : t + 1, tries++;
                    }
                    if (tries == threads) break;
                    emu_fiber &fb = emu_fibers[t];
                    fb.waits = nullptr;
                    emu_tid = t;
                    threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
                    void *fake = nullptr;
#ifdef EMU_ASAN
                    __sanitizer_start_switch_fiber(&fake, fb.stack + 4096, EMU_STACK - 4096);
#endif
                    swapcontext(&emu_sched_ctx, &fb.ctx);
#ifdef EMU_ASAN
                    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
                    (void)fake;
                    if (fb.done) left--;
                    t = emu_skew ? 0 : t + 1 == threads ? 0 : t + 1;
                }
                if (left > 0) {
                    fprintf(stderr, "emu_launch: block (%u, %u, %u): %u threads wait at barriers that cannot "
                                    "complete (a barrier in divergent code?)\n", bx, by, bz, left);
                    abort();
                }
            }
}


#endif
