/*
 * wgmma.cuh: Hopper's warpgroup matrix multiply (wgmma.mma_async, sm_90a) for the attention
 * kernels: 64 x N x 16 bf16 products with f32 accumulators, issued by a warpgroup (4 warps, 128
 * consecutive threads), with B (and A, or A from registers) read by the tensor cores straight from
 * shared memory through a 64-bit matrix descriptor. This is what lifts the shared-memory bound of
 * mma.sync + ldmatrix kernels (every operand byte through the registers of every warp that uses it):
 * docs/performance-history.md has the counts.
 *
 * Shared tiles: rows of exactly 64 bf16 (128 bytes) in the 128-byte swizzle (16-byte chunk c of row r
 * is stored at chunk c ^ (r % 8): the 8 rows of a 1024-byte group spread over all banks), each tile's
 * base 1024-byte aligned. One such tile serves as a K-major operand (its rows are M or N, its 64
 * columns K) or as an MN-major one (its rows are K, its 64 columns M or N): the PTX ISA's canonical
 * layouts ((8,m),(T,2k)):((8T,SBO),(1,T)) and ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)) under
 * Swizzle<3,4,3>, T = 8 bf16, SBO = 1024 bytes (8 rows).
 *
 * The MMA is asynchronous: issue (wg_fence first when registers it reads were just written), commit,
 * and read the accumulators only after wg_wait. tests/engine/cuda_emu.h emulates every function here
 * on the CPU from the PTX ISA's definitions; tests/engine/wgmma_check.cuh checks the emulation and
 * the GPU against the same float reference.
 */
#ifndef WB_WGMMA_CUH
#define WB_WGMMA_CUH

#include "cuda_common.cuh"

/* 1 where these instructions exist: the CPU emulation, nvcc's host pass, and device code for sm_90a;
 * 0 in device code for the fatbin's other architectures, whose kernels then only __trap() (the
 * backend never launches them there: cuda_attention_supported) */
#if defined(WB_CUDA_EMULATION) || !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_AVAILABLE 1
#else
#define WG_AVAILABLE 0
#endif

/* element index of (row, col) in a swizzled tile */
__device__ __forceinline__ int wg_sw128(int row, int col) { return row * 64 + ((((col >> 3) ^ (row & 7))) << 3) + (col & 7); }

#ifndef WB_CUDA_EMULATION
__device__ __forceinline__ uint32_t wg_smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
#endif

/* descriptor fields: start address, leading and stride byte offsets (each >> 4, 14 bits), base offset 0
 * (tiles 1024-aligned), swizzle mode 1 = 128 bytes */
__device__ __forceinline__ uint64_t wg_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
    return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)((lbo & 0x3FFFF) >> 4) << 16 |
           (uint64_t)((sbo & 0x3FFFF) >> 4) << 32 | 1ull << 62;
}
/* K-major operand from a swizzled tile: M (or N) index = tile row from row0 (a multiple of 8), K index
 * = tile column from k0 (a multiple of 16; stepping k moves the start inside the 128-byte row, as the
 * hardware applies the swizzle to the address). LBO is unused for swizzled K-major layouts (1). */
__device__ __forceinline__ uint64_t wg_desc_kmajor(const bf16 *tile, int row0, int k0) {
    return wg_desc(wg_smem_addr(tile) + row0 * 128 + k0 * 2, 16, 1024);
}
/* MN-major operand (tnspA / tnspB = 1): K index = tile row from k0 (a multiple of 8), M (or N) index =
 * tile column from mn0 (a multiple of 8), the operand's M/N extent within the tile's 64 columns. LBO
 * (the next 64 M/N columns) is then never used; it is given SBO's value so that the one tile layout is
 * described whichever of the two offsets the hardware reads for the K step. */
__device__ __forceinline__ uint64_t wg_desc_mnmajor(const bf16 *tile, int k0, int mn0) {
    return wg_desc(wg_smem_addr(tile) + k0 * 128 + mn0 * 2, 1024, 1024);
}

#ifndef WB_CUDA_EMULATION
/* D (64 x N, f32) = A (64 x 16) B (16 x N) + (acc ? D : 0). ss: A and B from shared memory (TA, TB:
 * 1 = MN-major); rs: A from registers, the m64k16 fragment (warp w of the warpgroup holds rows 16 w ..
 * 16 w + 15 in mma.sync m16n8k16's A layout). Accumulators: thread t, w = t / 32, g = (t % 32) / 4,
 * c = t % 4: d[4 j + {0, 1}] = D[16 w + g][8 j + 2 c + {0, 1}], d[4 j + {2, 3}] = the same 8 rows
 * below. */
template <int TA, int TB>
__device__ __forceinline__ void wg_mma_ss_n32(float d[16], uint64_t a, uint64_t b, int acc) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
                 "}, %16, %17, p, 1, 1, %19, %20;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(acc), "n"(TA), "n"(TB));
}
template <int TB>
__device__ __forceinline__ void wg_mma_rs_n32(float d[16], const uint32_t a[4], uint64_t b, int acc) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
                 "}, {%16, %17, %18, %19}, %20, p, 1, 1, %22;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc), "n"(TB));
}
template <int TA, int TB>
__device__ __forceinline__ void wg_mma_ss_n64(float d[32], uint64_t a, uint64_t b, int acc) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                 "}, %32, %33, p, 1, 1, %35, %36;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(acc), "n"(TA), "n"(TB));
}
template <int TB>
__device__ __forceinline__ void wg_mma_rs_n64(float d[32], const uint32_t a[4], uint64_t b, int acc) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                 "}, {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc), "n"(TB));
}
template <int TA, int TB>
__device__ __forceinline__ void wg_mma_ss_n128(float d[64], uint64_t a, uint64_t b, int acc) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(acc), "n"(TA), "n"(TB));
}
template <int TB>
__device__ __forceinline__ void wg_mma_rs_n128(float d[64], const uint32_t a[4], uint64_t b, int acc) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc), "n"(TB));
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
/* shared memory written by threads (st.shared, cp.async) made visible to the tensor cores' reads */
__device__ __forceinline__ void wg_fence_smem() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
/* keeps the compiler from moving accumulator reads or writes across an MMA still in flight */
template <int N>
__device__ __forceinline__ void wg_fence_acc(float d[N]) {
    for (int i = 0; i < N; i++) asm volatile("" : "+f"(d[i])::"memory");
}
#endif

template <int N, int TA, int TB>
__device__ __forceinline__ void wg_mma_ss(float d[N / 2], uint64_t a, uint64_t b, int acc) {
    static_assert(N == 32 || N == 64 || N == 128, "wg_mma_ss: N is 32, 64 or 128");
    if constexpr (N == 32) wg_mma_ss_n32<TA, TB>(d, a, b, acc);
    else if constexpr (N == 64) wg_mma_ss_n64<TA, TB>(d, a, b, acc);
    else wg_mma_ss_n128<TA, TB>(d, a, b, acc);
}
template <int N, int TB>
__device__ __forceinline__ void wg_mma_rs(float d[N / 2], const uint32_t a[4], uint64_t b, int acc) {
    static_assert(N == 32 || N == 64 || N == 128, "wg_mma_rs: N is 32, 64 or 128");
    if constexpr (N == 32) wg_mma_rs_n32<TB>(d, a, b, acc);
    else if constexpr (N == 64) wg_mma_rs_n64<TB>(d, a, b, acc);
    else wg_mma_rs_n128<TB>(d, a, b, acc);
}

#endif /* WB_WGMMA_CUH */
