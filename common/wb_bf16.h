/*
 * wb_bf16.h: bf16 values on the host, plain C (usable from .c tests and .cu lessons): one value
 * inline here, whole arrays in wb_bf16.c (wb_common), on every core when they are large.
 *
 * bf16 is the top half of an IEEE float: the same 8 exponent bits, 7 stored mantissa bits, so
 * rounding to bf16 moves a value by at most 2^-8 of itself (0.4%), by about 0.17% on average
 * (root mean square over random values). Lessons keep bf16 data on the host as raw
 * uint16_t bits, copy them to the GPU as __nv_bfloat16, and give the CPU reference the rounded
 * floats: the reference then starts from exactly the values the GPU sees.
 *
 *     float x[n]; uint16_t xb[n];
 *     wb_fill_normal(x, n, &rng, 1.0f);
 *     wb_bf16_encode(xb, x, n);     // xb: bits for the GPU; x: now rounded to bf16 in place
 */
#ifndef WB_BF16_H
#define WB_BF16_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Round to nearest, ties to even (what __float2bfloat16_rn does on the GPU). NaN stays NaN
 * (quiet); values past the largest bf16 round to infinity, as on the GPU. */
static inline uint16_t wb_bf16_from_float(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static inline float wb_bf16_to_float(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* f rounded to the nearest bf16, returned as a float. */
static inline float wb_bf16_round(float f) { return wb_bf16_to_float(wb_bf16_from_float(f)); }

#ifdef __cplusplus
extern "C" {
#endif

/* bits[i] = bf16(x[i]), and x[i] is replaced by that rounded value. */
void wb_bf16_encode(uint16_t *bits, float *x, size_t n);

#ifdef __cplusplus
}
#endif

/* x[i] = float(bits[i]) */
static inline void wb_bf16_decode(float *x, const uint16_t *bits, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = wb_bf16_to_float(bits[i]);
}

#endif
