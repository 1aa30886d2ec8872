/* wb_upload.c: see wb_upload.h. */
#include <cuda_runtime_api.h>

#include "wb_upload.h"
#include "wb_bf16.h"
#include "wb_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Sample r of `rows`, spread from row 0 to row m - 1. */
static size_t sampled_row(int r, int rows, int m) {
    return rows > 1 ? (size_t)((long long)r * (m - 1) / (rows - 1)) : 0;
}

int wb_download_sampled_rows_bf16(float *out, const void *dev, int m, int cols, int rows) {
    uint16_t *bits = (uint16_t *)malloc((size_t)cols * sizeof *bits);
    if (!bits) {
        fprintf(stderr, "out of host memory (%d bf16 values)\n", cols);
        return WB_FAIL;
    }
    for (int r = 0; r < rows; r++) {
        const uint16_t *row = (const uint16_t *)dev + sampled_row(r, rows, m) * cols;
        cudaError_t err = cudaMemcpy(bits, row, (size_t)cols * sizeof *bits, cudaMemcpyDeviceToHost);
        if (err != cudaSuccess) {
            free(bits);
            CUDA_CHECK(err);
        }
        wb_bf16_decode(out + (size_t)r * cols, bits, (size_t)cols);
    }
    free(bits);
    return WB_OK;
}

void wb_gather_sampled_rows(float *out, const float *host, int m, int cols, int rows) {
    for (int r = 0; r < rows; r++)
        memcpy(out + (size_t)r * cols, host + sampled_row(r, rows, m) * cols, (size_t)cols * sizeof *out);
}
