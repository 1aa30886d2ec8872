/*
 * occurrences.h: range attribution, the heart of grading.
 *
 * An occurrence is one instance of a named NVTX range that lies wholly inside the profiled window
 * (the cudaProfilerStart/Stop pairs; the whole run when the program has none). What belongs to it:
 *   - API calls made on the range's thread that start inside it (calls nested inside another API
 *     call, made by the CUDA runtime itself, are not counted on their own);
 *   - kernels, memcpys and memsets whose launching API call belongs to it, however late they run
 *     on the GPU: a kernel launched in the range and finishing after it still counts.
 * Nested ranges: an inner range's work also belongs to every range around it.
 *
 * Several processes (a capture merged from ranks, docs/capture-format.md): a range holds only the
 * work of its own rank (its thread is that process's), and each rank's profiled window applies to
 * its own ranges. Asked for one rank, the occurrences are that rank's. Asked for all ranks, the
 * k-th occurrence joins the k-th occurrence of the range on every rank that has one: its work is
 * all of theirs, and it spans from the earliest start to the latest end among them.
 */
#ifndef WB_OCCURRENCES_H
#define WB_OCCURRENCES_H

#include "capture.h"

typedef struct {
    long range;                    /* index in capture->ranges (joined over ranks: the lowest rank's) */
    int rank;                      /* the rank it is on, or -1 when joined over several */
    size_t n_ranks;                /* how many ranks' occurrences it joins (1 for one process) */
    uint64_t start, end;           /* the range's (joined: earliest start, latest end) */
    long *api; size_t n_api;       /* top-level API calls */
    long *kernels; size_t n_kernels;
    long *ops; size_t n_ops;       /* memcpys and memsets */
} wb_occurrence;

typedef struct {
    wb_occurrence *items;
    size_t n;
} wb_occurrences;

/* 1 when [start, end] of rank lies inside one of that rank's profiled windows (or it has none). */
int wb_in_profiled_window(const wb_capture *c, int rank, uint64_t start, uint64_t end);

/* WB_ALL_RANKS: facts over every rank (the default of a prediction without `rank:`). */
#define WB_ALL_RANKS (-1)

/* The occurrences of range_name in the profiled window, in time order, over all ranks. Returns
 * 0, or -1 when out of memory. */
int wb_find_occurrences(const wb_capture *c, const char *range_name, wb_occurrences *out);
/* The same for one rank, or joined over all of them with WB_ALL_RANKS (the same as
 * wb_find_occurrences). A capture of one process is rank 0. */
int wb_find_occurrences_on(const wb_capture *c, const char *range_name, int rank, wb_occurrences *out);
/* The one occurrence that ranges[range] is on its own rank (n = 1), as wb_find_occurrences_on
 * lists it for that rank, or none (n = 0) where it would not (a mark, never closed, outside the
 * window): what a caller going range by range needs, at the cost of that range's work, not of
 * every range of its name. */
int wb_find_occurrence_of(const wb_capture *c, long range, wb_occurrences *out);
void wb_occurrences_free(wb_occurrences *o);

#endif
