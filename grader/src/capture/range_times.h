/*
 * range_times.h: how long each occurrence of a range took, on the GPU and on the host.
 *
 * Per occurrence of a range (occurrences.h says which work belongs to it):
 *   gpu_us   the summed GPU durations (end - start) of its kernels, memsets and memcpys, in us;
 *            a kernel that finishes after the range ended counts in full.
 *   wall_us  the range's host time, end - start, in us.
 * These are measurements of a capture: a repeated recording keeps them per run (wb_range_times),
 * and the time facts (time_facts.h, in the grading layer) compare predictions with their medians.
 */
#ifndef WB_RANGE_TIMES_H
#define WB_RANGE_TIMES_H

#include "capture.h"
#include "occurrences.h"

double wb_occurrence_gpu_us(const wb_capture *c, const wb_occurrence *o);
double wb_occurrence_wall_us(const wb_capture *c, const wb_occurrence *o);

/* Each occurrence's GPU and wall time of a range, as a repeat keeps them, on one rank or over all
 * (WB_ALL_RANKS). 0, or -1 when out of memory. */
int wb_range_times_of(const wb_capture *c, const char *variant, const char *range, int rank, wb_range_times *out);

/* The median of v (n >= 1); v is not changed. 0 when n == 0. */
double wb_median(const double *v, size_t n);

#endif
