/*
 * overlap.h: what a range's GPU work did at the same time: how many streams it ran on, how long
 * two or more of its operations ran at once, and which kind of copy each memcpy was.
 *
 * The operations of an occurrence (occurrences.h) are its kernels, memcpys and memsets. Times are
 * CUPTI's start and end of each on the GPU, so they describe the device, not the host's calls:
 *
 *     stream 13  [== upload 0 ==][== upload 1 ==]
 *     stream 14                  [== compute 0 ==][== download 0 ==]
 *                                ^^^^^^^^^^^^^^^^ overlap: two operations at once
 *
 * Overlap is the measure of the set of instants at which at least two operations run (the union
 * of their pairwise intersections), so three operations running together for 10 us count 10 us,
 * not 30, and two that merely touch (one ends when the next starts) count nothing.
 */
#ifndef WB_OVERLAP_H
#define WB_OVERLAP_H

#include "capture.h"
#include "occurrences.h"

#include <stddef.h>
#include <stdint.h>

/* Distinct (device, stream) pairs among the occurrence's kernels, memcpys and memsets. */
long wb_occurrence_streams(const wb_capture *c, const wb_occurrence *o);

/* Nanoseconds during which two or more of the occurrence's operations ran at once; 0 when it
 * has fewer than two, and -1 when out of memory. */
int64_t wb_occurrence_overlap_ns(const wb_capture *c, const wb_occurrence *o);

/*
 * memcpys_named keys: one or more words separated by spaces, each a condition the copy must meet.
 *   direction  HtoD DtoH DtoD HtoH PtoP (CUPTI's copy kind; at most one per key)
 *   memory     pageable pinned device managed: the source or the destination lives there
 *   issue      async (issued by an asynchronous call such as cudaMemcpyAsync), sync
 * Case-insensitive: "HtoD pageable" counts host-to-device copies from pageable memory.
 * wb_memcpy_key_check returns 0 for a valid key, else -1 with the reason in why.
 */
int wb_memcpy_key_check(const char *key, char *why, size_t cap);
/* 1 when the copy meets every word of a valid key; memsets never match. */
int wb_memcpy_matches(const wb_gpu_op *op, const char *key);

#endif
