/*
 * wb_upload.h: bf16 inputs for the GPU, from floats on the host, and the rows of a bf16 output a
 * lesson's check compares with its CPU reference.
 *
 * Rounds the host floats to bf16 in place (so the CPU reference starts from exactly the values
 * the GPU sees: wb_bf16.h) and copies the bf16 bits to device memory. Plain C over the CUDA
 * runtime; returns WB_OK or WB_FAIL after saying why.
 */
#ifndef WB_UPLOAD_H
#define WB_UPLOAD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst: n bf16 values on the device; host: n floats, rounded to bf16 in place. */
int wb_upload_bf16(void *dst, float *host, size_t n);

/* The check's sample of an (m, cols) row-major matrix: `rows` rows (rows <= m) spread evenly from
 * the first to the last. wb_download_sampled_rows_bf16 decodes them from bf16 on the device into
 * out (rows, cols); wb_gather_sampled_rows copies the same rows of a float matrix on the host (the
 * reference's inputs). */
int wb_download_sampled_rows_bf16(float *out, const void *dev, int m, int cols, int rows);
void wb_gather_sampled_rows(float *out, const float *host, int m, int cols, int rows);

#ifdef __cplusplus
}
#endif

#endif
