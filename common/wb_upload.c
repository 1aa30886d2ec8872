/* wb_upload.c: see wb_upload.h. */
#include <cuda_runtime_api.h>

#include "wb_upload.h"
#include "wb_bf16.h"
#include "wb_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int wb_upload_bf16(void *dst, float *host, size_t n) {
    uint16_t *bits = (uint16_t *)malloc(n * sizeof *bits);
    if (!bits) {
        fprintf(stderr, "out of host memory (%zu bf16 values)\n", n);
        return WB_FAIL;
    }
    wb_bf16_encode(bits, host, n);
    cudaError_t err = cudaMemcpy(dst, bits, n * sizeof *bits, cudaMemcpyHostToDevice);
    free(bits);
    CUDA_CHECK(err);
    return WB_OK;
}
