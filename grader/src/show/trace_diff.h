/*
 * trace_diff.h: what changed between two captures (`grader diff`): two variants of a lesson, two
 * lessons, or one lesson on two GPUs.
 *
 * Everything is compared inside the profiled window, as the grader grades it:
 *   - whole window: kernels, GPU time of kernels, memcpys, memsets, top-level API calls, and the
 *     count of every kernel name and API name;
 *   - by NVTX range (matched by name): occurrences, and per occurrence (the mean over them)
 *     kernels, API calls by name, memcpys, memsets and GPU time; and the kernel sequence of the
 *     first occurrence, aligned so that a kernel at the same position under another name shows as
 *     renamed, not as one removed and one added.
 * Names are borrowed from the captures, which must outlive the diff.
 */
#ifndef WB_TRACE_DIFF_H
#define WB_TRACE_DIFF_H

#include "wb_capture.h"
#include "wb_base.h"

#include <jansson.h>
#include <stdio.h>

typedef enum { WB_SEQ_ADDED, WB_SEQ_REMOVED, WB_SEQ_RENAMED } wb_seq_change_kind;

typedef struct {
    wb_seq_change_kind kind;
    long pos_a, pos_b;        /* 0-based positions in the sequences; -1 where absent */
    const char *a, *b;        /* kernel names; NULL where absent */
} wb_seq_change;

typedef struct {
    const char *name;
    double a, b;              /* count (whole window) or mean per occurrence (ranges) */
} wb_count_pair;

typedef struct {
    const char *name;
    size_t occ_a, occ_b;
    double kernels_a, kernels_b, api_a, api_b, memcpys_a, memcpys_b, memsets_a, memsets_b;
    double gpu_ns_a, gpu_ns_b;
    double wall_ns_a, wall_ns_b;                /* the range's own duration on the host clock */
    wb_seq_change *changes; size_t n_changes;
    wb_count_pair *api; size_t n_api;           /* API names whose per-occurrence means differ */
    int varies_a, varies_b;                     /* its occurrences launch different kernel sequences */
} wb_range_diff;

typedef struct {
    size_t kernels_a, kernels_b, memcpys_a, memcpys_b, memsets_a, memsets_b, api_a, api_b;
    uint64_t gpu_ns_a, gpu_ns_b;
    uint64_t wall_ns_a, wall_ns_b;                       /* the profiled windows' durations */
    wb_count_pair *kernel_names; size_t n_kernel_names;  /* every name, in order of first launch */
    wb_count_pair *api_names; size_t n_api_names;        /* every API name */
    wb_range_diff *ranges; size_t n_ranges;              /* A's ranges in time order, then B's others */
    int differs;              /* any count or name differs; times are shown, never part of this verdict */
} wb_capture_diff;

int wb_diff_captures(const wb_capture *a, const wb_capture *b, wb_capture_diff *out); /* 0, or -1 out of memory */
void wb_capture_diff_free(wb_capture_diff *d);

void wb_capture_diff_print(FILE *f, const wb_capture_diff *d, const char *label_a, const char *label_b);
json_t *wb_capture_diff_json(const wb_capture_diff *d);

/* ---- what `grader diff` compares ----------------------------------------------------------- */

/* One side of a diff: a recording (traces/sm_90.json), a capture file, or a lesson folder (its
 * recording for this machine, else its newest), each optionally followed by ":variant". */
typedef struct {
    char spec[4200];          /* as given */
    char path[4200];          /* the file read */
    char variant[128];        /* "" when none was named */
    wb_recording rec;         /* a capture file is wrapped as a recording with one run "capture" */
    int is_capture;
} wb_diff_side;

int wb_diff_side_load(const char *spec, wb_diff_side *out, wb_error *err);
void wb_diff_side_free(wb_diff_side *s);

/* The runs to compare, paired: by the named variants, or, when neither side names one, by
 * variant name (every variant both have). *n pairs into a and b (arrays of cap); the variants
 * only one side has go to only_a / only_b (NULL-terminated lists of at most cap). Exit 2 when
 * nothing can be paired. */
int wb_diff_pair_runs(const wb_diff_side *x, const wb_diff_side *y, const wb_run **a, const wb_run **b, size_t cap,
                      size_t *n, const char **only_a, const char **only_b, wb_error *err);

#endif
