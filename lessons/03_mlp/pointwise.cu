/*
 * pointwise.cu: lesson 03's three pointwise kernels and their launchers, declared in pointwise.cuh.
 *
 * main.cu's variants launch them (eager: k_gelu then k_mul; fused, merged and graph:
 * k_gelu_mul); bench/gelu_mul_bench.cu times the same kernels alone beside issue 3's
 * alternatives, so both programs link this one file and the lesson's recorded kernels are the
 * ones the bench measures.
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "pointwise.cuh" /* bf16, gelu_tanh, unpack_bf16x8, pack_bf16x8 */
#include "wb_check.h"

/* ---- kernels -------------------------------------------------------------------------------- */

/* Eager, like PyTorch's two pointwise kernels: a (n) = gelu(g (n)), then h (n) = a * u.
 * Each thread owns 8 consecutive elements: one 16-byte access per array when vectorized (all
 * pointers 16-byte aligned, checked by the host), element by element otherwise and for the last
 * n % 8 elements. */
__global__ void __launch_bounds__(256) k_gelu(bf16 *a, const bf16 *g, size_t n, int vectorized) {
    size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 8;
    if (i >= n) return;
    if (vectorized && i + 8 <= n) {
        float f[8];
        unpack_bf16x8(*reinterpret_cast<const uint4 *>(g + i), f);
#pragma unroll
        for (int j = 0; j < 8; j++) f[j] = gelu_tanh(f[j]);
        *reinterpret_cast<uint4 *>(a + i) = pack_bf16x8(f);
    } else {
        size_t end = i + 8 < n ? i + 8 : n;
        for (size_t j = i; j < end; j++) a[j] = __float2bfloat16(gelu_tanh(__bfloat162float(g[j])));
    }
}

__global__ void __launch_bounds__(256) k_mul(bf16 *h, const bf16 *a, const bf16 *u, size_t n, int vectorized) {
    size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 8;
    if (i >= n) return;
    if (vectorized && i + 8 <= n) {
        float fa[8], fu[8];
        unpack_bf16x8(*reinterpret_cast<const uint4 *>(a + i), fa);
        unpack_bf16x8(*reinterpret_cast<const uint4 *>(u + i), fu);
#pragma unroll
        for (int j = 0; j < 8; j++) fa[j] *= fu[j];
        *reinterpret_cast<uint4 *>(h + i) = pack_bf16x8(fa);
    } else {
        size_t end = i + 8 < n ? i + 8 : n;
        for (size_t j = i; j < end; j++)
            h[j] = __float2bfloat16(__bfloat162float(a[j]) * __bfloat162float(u[j]));
    }
}

/*
 * Fused: h (rows, cols) = gelu(g) * u in one pass. g and u are (rows, cols) with row stride
 * ld_gu: separate tensors (ld_gu = cols) or the two halves of each row of the merged GEMM's
 * output (u = g + cols, ld_gu = 2 * cols). h has row stride ld_h.
 *
 * Block shape (blockDim.x threads per row, blockDim.y rows per block) comes from the row length
 * at run time (gelu_mul_plan_for), so one compiled kernel serves every shape. When vectorized,
 * thread x of a row handles 16-byte chunks x, x + blockDim.x, ... (8 bf16 each: at cols = 3072,
 * 384 threads and exactly one chunk each), then the last cols % 8 elements one by one. Memory
 * traffic is the minimum, 6 bytes per element (read g and u, write h); the math is ~15 fp32
 * instructions per element, well hidden behind it.
 */
__global__ void __launch_bounds__(1024) k_gelu_mul(bf16 *__restrict__ h, int ld_h,
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
        for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
            float fg[8], fu[8];
            unpack_bf16x8(reinterpret_cast<const uint4 *>(g_row)[c], fg);
            unpack_bf16x8(reinterpret_cast<const uint4 *>(u_row)[c], fu);
#pragma unroll
            for (int j = 0; j < 8; j++) fg[j] = gelu_tanh(fg[j]) * fu[j];
            reinterpret_cast<uint4 *>(h_row)[c] = pack_bf16x8(fg);
        }
        done = chunks * 8;
    }
    for (int j = done + (int)threadIdx.x; j < cols; j += blockDim.x)
        h_row[j] = __float2bfloat16(gelu_tanh(__bfloat162float(g_row[j])) * __bfloat162float(u_row[j]));
}

/* ---- host launchers ------------------------------------------------------------------------- */

int gelu_launch(bf16 *a, const bf16 *g, size_t n, cudaStream_t stream) {
    const int block = 256;
    size_t threads = (n + 7) / 8;
    int vectorized = wb_aligned16(a) && wb_aligned16(g);
    k_gelu<<<(unsigned)((threads + block - 1) / block), block, 0, stream>>>(a, g, n, vectorized);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

int mul_launch(bf16 *h, const bf16 *a, const bf16 *u, size_t n, cudaStream_t stream) {
    const int block = 256;
    size_t threads = (n + 7) / 8;
    int vectorized = wb_aligned16(h) && wb_aligned16(a) && wb_aligned16(u);
    k_mul<<<(unsigned)((threads + block - 1) / block), block, 0, stream>>>(h, a, u, n, vectorized);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

/*
 * Launch parameters for k_gelu_mul, chosen from the row length when called (the idea of
 * Liger's calculate_settings): enough threads per row that each does about one 16-byte chunk,
 * rounded up to whole warps and capped at 1024 (longer rows loop); short rows (under 32 chunks)
 * get a power of two of threads and share a block of 256 so that blocks stay full. The plan
 * (grid, block, vectorized) is pointwise.cuh's gelu_mul_plan.
 */
gelu_mul_plan gelu_mul_plan_for(const bf16 *h, int ld_h, const bf16 *g, const bf16 *u, int ld_gu, int rows,
                                int cols) {
    gelu_mul_plan p;
    p.vectorized = wb_aligned16(h) && wb_aligned16(g) && wb_aligned16(u) && ld_h % 8 == 0 && ld_gu % 8 == 0;
    int units = p.vectorized ? cols / 8 : cols; /* work items per row */
    if (units < 1) units = 1;
    int per_row;
    if (units >= 32) {
        per_row = (units + 31) / 32 * 32;
        if (per_row > 1024) per_row = 1024;
    } else {
        per_row = 1;
        while (per_row < units) per_row *= 2;
    }
    int rows_per_block = per_row >= 256 ? 1 : 256 / per_row;
    p.block = dim3((unsigned)per_row, (unsigned)rows_per_block, 1);
    p.grid = dim3((unsigned)((rows + rows_per_block - 1) / rows_per_block), 1, 1);
    return p;
}

int gelu_mul_launch(bf16 *h, int ld_h, const bf16 *g, const bf16 *u, int ld_gu, int rows, int cols,
                    cudaStream_t stream) {
    gelu_mul_plan p = gelu_mul_plan_for(h, ld_h, g, u, ld_gu, rows, cols);
    k_gelu_mul<<<p.grid, p.block, 0, stream>>>(h, ld_h, g, u, ld_gu, rows, cols, p.vectorized);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

/* For bench_gelu_mul's report (registers per thread); never called by the lesson's variants. */
cudaError_t gelu_mul_attributes(cudaFuncAttributes *attr) {
    return cudaFuncGetAttributes(attr, k_gelu_mul);
}
