/*
 * wb_bf16x8.cuh: 8 bf16 values as one 16-byte access, for the lessons' element-wise kernels.
 *
 * A warp that loads 16 bytes per thread moves 512 bytes in one instruction; loading the same
 * bytes 2 at a time takes eight, and an element-wise kernel whose instructions cannot keep up
 * with HBM falls short of the copy bandwidth (lesson 02's first bias kernel reached 30% of it
 * that way). Device code only: include from .cu files.
 */
#ifndef WB_BF16X8_CUH
#define WB_BF16X8_CUH

#include <cuda_bf16.h>
#include <stdint.h>

__device__ __forceinline__ void unpack_bf16x8(uint4 v, float f[8]) {
    const __nv_bfloat162 *p = reinterpret_cast<const __nv_bfloat162 *>(&v);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float2 t = __bfloat1622float2(p[i]);
        f[2 * i] = t.x;
        f[2 * i + 1] = t.y;
    }
}

__device__ __forceinline__ uint4 pack_bf16x8(const float f[8]) {
    uint4 v;
    __nv_bfloat162 *p = reinterpret_cast<__nv_bfloat162 *>(&v);
#pragma unroll
    for (int i = 0; i < 4; i++) p[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
    return v;
}

/* 16-byte accesses need 16-byte aligned addresses (cudaMalloc gives 256). */
static inline int wb_aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

#endif
