/*
 * cuda_emu.h: just enough of CUDA, run on the CPU, to execute lesson 04's CUDA backend
 * (engine/backend_cuda.cu, compiled as C++ with WB_CUDA_EMULATION) where no GPU is. It checks
 * the backend's host logic (shapes, strides, which kernel, which cuBLASLt layout and op) and its
 * kernels' indexing and arithmetic, not performance or the hardware's memory model.
 *
 *   threads   every thread of a block is a worker of a persistent pool; blocks run one after
 *             another, so one buffer serves as shared memory and `__shared__` arrays become
 *             function statics
 *   sync      __syncthreads and __syncwarp are barriers; a warp shuffle goes through a per-warp
 *             exchange array
 *   WMMA      a fragment holds its whole 16 x 16 tile in every lane (each lane computes the full
 *             product, lane 0 stores it), with a warp barrier around each collective load/store
 *   runtime   cudaMalloc is malloc, copies are memcpy, the stream is the calling thread
 *   cuBLASLt  cublasLtMatmul is a column-major reference GEMM that honours TRANSA/TRANSB, the
 *             layouts' leading dimensions and batch strides, beta and the BIAS epilogue
 */
#ifndef WB_CUDA_EMU_H
#define WB_CUDA_EMU_H

#include <atomic>
#include <barrier>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#define WB_CUDA_EMULATION 1

/* ---- language ---- */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(x)
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
inline thread_local emu_idx threadIdx, blockIdx;
inline thread_local unsigned emu_tid; /* linear thread id in the block: warps are groups of 32 */
inline dim3 blockDim, gridDim;

struct emu_block {
    std::barrier<> *block;
    std::barrier<> *warp[32];
    float xchg[32][32];
};
inline thread_local emu_block *emu_cur;
alignas(128) inline unsigned char emu_dynamic_smem[256 * 1024];
#define FA_DYNAMIC_SHARED(name) unsigned char *name = emu_dynamic_smem

inline void __syncthreads() { emu_cur->block->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_cur->warp[emu_tid / 32]->arrive_and_wait(); }
inline float __shfl_xor_sync(unsigned, float v, int o) {
    int w = emu_tid / 32, lane = emu_tid % 32;
    emu_cur->xchg[w][lane] = v;
    __syncwarp();
    float r = emu_cur->xchg[w][lane ^ o];
    __syncwarp();
    return r;
}
inline float atomicAdd(float *p, float v) { return std::atomic_ref<float>(*p).fetch_add(v); }
inline float emu_expf(float x) { return expf(x); }
#define __expf emu_expf /* glibc declares an __expf of its own, not for linking */
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }

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
struct alignas(16) uint4 {
    unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }

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

/* ---- launches: a persistent pool of 1024 workers runs each block ---- */
#include <semaphore>
struct emu_pool {
    std::vector<std::thread> workers;
    std::vector<std::binary_semaphore *> start;
    std::binary_semaphore finished{0};
    std::atomic<unsigned> remaining{0};
    bool shutdown = false;
    std::function<void()> body;
    emu_block *blk = nullptr;
    dim3 block_idx;
    emu_pool() {
        for (unsigned t = 0; t < 1024; t++) start.push_back(new std::binary_semaphore(0));
        for (unsigned t = 0; t < 1024; t++) workers.emplace_back([this, t] { run(t); });
    }
    void run(unsigned t) {
        for (;;) {
            start[t]->acquire(); /* the semaphores order body, blk and block_idx before this */
            if (shutdown) return;
            threadIdx = {t, 0, 0};
            emu_tid = t;
            blockIdx = {block_idx.x, block_idx.y, block_idx.z};
            emu_cur = blk;
            body();
            if (remaining.fetch_sub(1) == 1) finished.release();
        }
    }
    void block(unsigned threads, const dim3 &bi, emu_block *b, const std::function<void()> &f) {
        body = f, blk = b, block_idx = bi;
        remaining.store(threads);
        for (unsigned t = 0; t < threads; t++) start[t]->release();
        finished.acquire();
    }
    ~emu_pool() {
        shutdown = true;
        for (unsigned t = 0; t < 1024; t++) start[t]->release();
        for (auto &w : workers) w.join();
        for (auto *s : start) delete s;
    }
};

inline void emu_launch(dim3 grid, dim3 block, const std::function<void()> &f) {
    static emu_pool pool;
    unsigned threads = block.x * block.y * block.z;
    gridDim = grid;
    blockDim = block;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                emu_block b;
                std::barrier<> bar((std::ptrdiff_t)threads);
                std::barrier<> *warps[32];
                unsigned nw = (threads + 31) / 32;
                for (unsigned w = 0; w < nw; w++) warps[w] = new std::barrier<>((std::ptrdiff_t)(threads - w * 32 < 32 ? threads - w * 32 : 32));
                b.block = &bar;
                for (unsigned w = 0; w < nw; w++) b.warp[w] = warps[w];
                if (block.y == 1 && block.z == 1) {
                    pool.block(threads, dim3(bx, by, bz), &b, f);
                } else {
                    pool.block(threads, dim3(bx, by, bz), &b, [&] {
                        unsigned t = threadIdx.x; /* linear id -> (x, y, z) */
                        threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
                        f();
                    });
                }
                for (unsigned w = 0; w < nw; w++) delete warps[w];
            }
}

#endif
