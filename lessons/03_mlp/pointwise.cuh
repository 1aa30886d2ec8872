/*
 * pointwise.cuh: the part of lesson 03 that main.cu shares with bench/gelu_mul_bench.cu.
 *
 * The fp32 device math of the pointwise kernels is defined here, inline, so that the lesson's
 * kernels (k_gelu, k_mul, k_gelu_mul in pointwise.cu) and the bench's alternative
 * implementations of gelu(g) * u compute exactly the same function. The launchers below are
 * pointwise.cu's: main.cu's variants call them, and bench_gelu_mul times them.
 */
#ifndef LESSON_03_POINTWISE_CUH
#define LESSON_03_POINTWISE_CUH

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "wb_bf16x8.cuh" /* unpack_bf16x8, pack_bf16x8, wb_aligned16: 8 bf16 values as one 16-byte access */

typedef __nv_bfloat16 bf16;

/* ---- device math ---------------------------------------------------------------------------- */

/*
 * gelu with the tanh approximation, in fp32:
 *     0.5 x (1 + tanh(s)),  s = sqrt(2/pi) (x + 0.044715 x^3)
 * Since 0.5 (1 + tanh(s)) = 1 / (1 + exp(-2s)), this is exactly x / (1 + exp(-2s)): one fast
 * exponential (__expf: a multiply and the hardware ex2) and one fast divide, instead of tanhf's
 * long instruction sequence, which would make the pointwise kernels compete with their own
 * memory traffic for issue slots. For very negative x, exp(-2s) overflows to inf and x / inf
 * gives -0, the right limit. Error: a few fp32 ulps, far under bf16's 2^-9.
 */
__device__ __forceinline__ float gelu_tanh(float x) {
    const float sqrt_2_over_pi = 0.7978845608f;
    float s = sqrt_2_over_pi * (x + 0.044715f * x * x * x);
    return __fdividef(x, 1.0f + __expf(-2.0f * s));
}

/* ---- the launchers (pointwise.cu) ------------------------------------------------------------ */

/* a (n) = gelu(g (n)): one k_gelu launch. */
int gelu_launch(bf16 *a, const bf16 *g, size_t n, cudaStream_t stream);

/* h (n) = a (n) * u (n): one k_mul launch. */
int mul_launch(bf16 *h, const bf16 *a, const bf16 *u, size_t n, cudaStream_t stream);

/* k_gelu_mul's launch parameters for a shape (see gelu_mul_plan_for in pointwise.cu). */
typedef struct {
    dim3 grid, block;
    int vectorized; /* 16-byte accesses: every row start 16-byte aligned */
} gelu_mul_plan;

gelu_mul_plan gelu_mul_plan_for(const bf16 *h, int ld_h, const bf16 *g, const bf16 *u, int ld_gu, int rows,
                                int cols);

/* h (rows, cols; row stride ld_h) = gelu(g) * u (rows, cols; row stride ld_gu): one
 * k_gelu_mul launch, planned by gelu_mul_plan_for. */
int gelu_mul_launch(bf16 *h, int ld_h, const bf16 *g, const bf16 *u, int ld_gu, int rows, int cols,
                    cudaStream_t stream);

/* cudaFuncGetAttributes of k_gelu_mul (bench_gelu_mul reports its registers). */
cudaError_t gelu_mul_attributes(cudaFuncAttributes *attr);

#endif
