/*
 * wb_upload.h: bf16 inputs for the GPU, from floats on the host.
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

#ifdef __cplusplus
}
#endif

#endif
