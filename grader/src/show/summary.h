/*
 * summary.h: the tables shown after grading (the reveal), per run:
 *   - kernel summary, like Nsight Systems' cuda_gpu_kern_sum: time %, total, instances, avg,
 *     median, min, max, name; over the kernels launched inside the profiled window;
 *   - range breakdown: for each NVTX range, occurrences in the window and, per occurrence, kernels,
 *     memsets, memcpys, API calls, wall time of the range and GPU time of its work;
 *   - API calls by name and memsets/memcpys by kind, over the window (graded facts count them).
 *
 * Printed tables fit a width (term.h's wb_term_width): the kernel table shows avg, median, min
 * and max from 120 columns on, only the average below; a kernel name is shortened to the columns
 * left (text_fit.h: parameters first, then its end) unless long_names is set. JSON always has
 * every field and the full names.
 */
#ifndef WB_SUMMARY_H
#define WB_SUMMARY_H

#include "wb_capture.h"

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
    double kernels, memsets, memcpys, api_calls, wall_ns, gpu_ns; /* means per occurrence; gpu_ns: kernels, memcpys, memsets */
    int depth;                                  /* nesting depth of the first occurrence */
} wb_range_row;

typedef struct {
    const char *name;           /* e.g. cudaLaunchKernel */
    size_t count;               /* top-level calls (not those the runtime made inside another call) */
    uint64_t total_ns;
} wb_api_row;

typedef struct {
    char name[64];              /* "memset", "memcpy HtoD (pageable)" */
    size_t count;
    uint64_t bytes, total_ns;
} wb_copy_row;

typedef struct {
    wb_kernel_row *kernels; size_t n_kernels;
    wb_range_row *ranges; size_t n_ranges;
    wb_api_row *api; size_t n_api;       /* by count, most first */
    wb_copy_row *copies; size_t n_copies;
    uint64_t kernel_total_ns;
} wb_summary;

typedef struct {
    int max_rows;               /* per table; 0: all */
    int width;                  /* columns to fit */
    int long_names;             /* 1: full kernel names, whatever the width */
} wb_table_style;

int wb_summary_build(const wb_capture *c, wb_summary *out); /* 0, or -1 out of memory */
void wb_summary_free(wb_summary *s);
void wb_summary_print(FILE *f, const char *variant, const wb_capture *c, const wb_summary *s, const wb_table_style *style);
json_t *wb_summary_json(const wb_summary *s);

#endif
