/*
 * summary.h: the tables shown after grading (the reveal), per run:
 *   - kernel summary, like Nsight Systems' cuda_gpu_kern_sum: time %, total, instances, avg,
 *     median, min, max, name; over the kernels launched inside the profiled window;
 *   - range breakdown: for each NVTX range, occurrences in the window and, per occurrence, kernels,
 *     API calls, wall time of the range and GPU time of its kernels.
 */
#ifndef WB_SUMMARY_H
#define WB_SUMMARY_H

#include "capture.h"

#include <jansson.h>
#include <stdio.h>

typedef struct {
    const char *name;
    size_t instances;
    uint64_t total_ns, min_ns, max_ns;
    double avg_ns, median_ns;
    int gemm;
} wb_kernel_row;

typedef struct {
    const char *name;
    size_t occurrences;
    double kernels, api_calls, wall_ns, gpu_ns; /* means per occurrence; gpu_ns: kernels, memcpys, memsets */
    int depth;                                  /* nesting depth of the first occurrence */
} wb_range_row;

typedef struct {
    wb_kernel_row *kernels; size_t n_kernels;
    wb_range_row *ranges; size_t n_ranges;
    uint64_t kernel_total_ns;
} wb_summary;

int wb_summary_build(const wb_capture *c, wb_summary *out); /* 0, or -1 out of memory */
void wb_summary_free(wb_summary *s);
void wb_summary_print(FILE *f, const char *variant, const wb_capture *c, const wb_summary *s, int max_rows);
json_t *wb_summary_json(const wb_summary *s);

#endif
