/*
 * versions.h: the software a capture ran on, beyond the GPU line (report.h's wb_capture_describe):
 * PyTorch and Triton for PyTorch variants, and what differs from the recording an answer key was
 * verified against. A kernel name is chosen by cuBLAS, PyTorch or Triton at their version, so a
 * learner on other versions may see other names (and other counts where Inductor decides what to
 * fuse) without being wrong about the GPU: the report says so before grading.
 */
#ifndef WB_VERSIONS_H
#define WB_VERSIONS_H

#include "wb_capture.h"

#include <stddef.h>

/* "PyTorch 2.11.0+cu130 (built for CUDA 13.0), Triton 3.6.0, cuBLAS 13.1.0" from the recording's
 * first PyTorch run (the cuBLAS its process loaded), or NULL when it has none. */
const char *wb_recording_pytorch(const wb_recording *r, char *buf, size_t cap);

/* What differs between a live capture and the reference recording (the answer key's): GPU,
 * driver, CUDA runtime, cuBLAS, PyTorch, Triton, as "cuBLAS 13.1.0 here, 13.0.2 in the recording;
 * ..." into buf. Returns 0 when nothing differs (buf ""). */
int wb_versions_differ(const wb_recording *live, const wb_recording *reference, char *buf, size_t cap);

/* The sentence that follows a difference: which facts may legitimately differ, kernel names
 * first. */
extern const char WB_VERSIONS_MAY_DIFFER[];

#endif
