/*
 * wb_activations.h: CPU references of activation functions, in double, header-only plain C.
 *
 * The GPU kernels that compute these in fp32 (often with a cheaper but exactly equivalent
 * formula) are checked against these; tests/lessons checks these against known values.
 */
#ifndef WB_ACTIVATIONS_H
#define WB_ACTIVATIONS_H

#include <math.h>

/*
 * GELU with the tanh approximation: PyTorch's gelu(x, approximate="tanh"), GPT-2's "gelu_new".
 *     gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
 * e.g. gelu(1) = 0.8411919906..., gelu(-1) = -0.1588080093...
 */
static inline double wb_gelu_tanh(double x) {
    const double sqrt_2_over_pi = 0.79788456080286535588;
    return 0.5 * x * (1.0 + tanh(sqrt_2_over_pi * (x + 0.044715 * x * x * x)));
}

#endif
