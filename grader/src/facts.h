/*
 * facts.h: range attribution, the heart of grading.
 *
 * An occurrence is one instance of a named NVTX range that lies wholly inside the profiled window
 * (the cudaProfilerStart/Stop pairs; the whole run when the program has none). What belongs to it:
 *   - API calls made on the range's thread that start inside it (calls nested inside another API
 *     call, made by the CUDA runtime itself, are not counted on their own);
 *   - kernels, memcpys and memsets whose launching API call belongs to it, however late they run
 *     on the GPU: a kernel launched in the range and finishing after it still counts.
 * Nested ranges: an inner range's work also belongs to every range around it.
 */
#ifndef WB_FACTS_H
#define WB_FACTS_H

#include "capture.h"
#include "predictions.h"

typedef struct {
    long range;                    /* index in capture->ranges */
    long *api; size_t n_api;       /* top-level API calls */
    long *kernels; size_t n_kernels;
    long *ops; size_t n_ops;       /* memcpys and memsets */
} wb_occurrence;

typedef struct {
    wb_occurrence *items;
    size_t n;
} wb_occurrences;

/* 1 when [start, end] lies inside a profiled window (or the capture has none). */
int wb_in_profiled_window(const wb_capture *c, uint64_t start, uint64_t end);

/* The occurrences of range_name in the profiled window, in time order. Returns 0, or -1 when out
 * of memory. */
int wb_find_occurrences(const wb_capture *c, const char *range_name, wb_occurrences *out);
void wb_occurrences_free(wb_occurrences *o);

/* The value of one count fact in one occurrence (time facts and bound: time_facts.h). */
long wb_count_fact(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);

#endif
