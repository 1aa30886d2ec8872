/*
 * gpu_fixture.c: the whole GPT-2 on the CUDA backend against the PyTorch fixture (f32 and bf16,
 * fused and primitive ops). Label `gpu`; exits 1 when a comparison fails, 77 without a GPU.
 */
#include <stdio.h>

#include "fixture.h"
#include "wb_check.h"

int main(void) {
    char path[4096];
    gpt2_fixture fx;
    if (fixture_load(&fx, fixture_path(path, sizeof path)) != WB_OK) return 1;
    wb_backend *be;
    if (wb_backend_cuda_create(&be, 0) != WB_OK) return 77;
    printf("device: %s\n", be->device_name);
    /* f32: cuBLASLt with f32 compute (no TF32), so close to the CPU's f32 figures.
     * bf16: every stored activation is rounded to 8 bits of mantissa, against PyTorch's f32 model:
     * the error of a whole model compounds over layers (logits, the loss), and a gradient tensor
     * that is small in norm (a layer-norm bias) carries the relative error of every rounding above
     * it, so these are looser than the 1e-3 to 1e-2 of one bf16 op (gpu_ops.c). The ten AdamW
     * losses: 3.3e-3 measured on the emulated backend. */
    fixture_tolerances f32 = {1e-4, 1e-4, 1e-3, 1e-2, 1e-3};
    fixture_tolerances bf16 = {3e-2, 2e-2, 8e-2, 3e-1, 1e-2};
    int fails = 0;
    fails += fixture_compare(&fx, be, WB_F32, 0, &f32) != WB_OK;
    fails += fixture_compare(&fx, be, WB_F32, 1, &f32) != WB_OK;
    fails += fixture_compare(&fx, be, WB_BF16, 0, &bf16) != WB_OK;
    fails += fixture_compare(&fx, be, WB_BF16, 1, &bf16) != WB_OK;
    fails += fixture_compare(&fx, be, WB_BF16, 2, &bf16) != WB_OK; /* the flash-attention kernels */
    fails += fixture_compare(&fx, be, WB_F32, 2, &f32) != WB_OK;   /* f32: falls back to bmm + softmax */
    printf("%d passed, %d failed\n", 6 - fails, fails);
    be->destroy(be);
    fixture_free(&fx);
    return fails ? 1 : 0;
}
