/*
 * tolerance.h: how a time fact (overlap_us) is graded. Times vary run to run, so a time is right
 * when it lies within a band around the prediction, not when it is equal; and a range that occurs
 * several times is judged by its median occurrence, so that one slow step does not decide.
 *
 *     right  <=>  |predicted - median| <= tolerance * median      (tolerance 0.25 by default)
 *
 * the rule of the time facts gpu_us and wall_us (docs/predictions.md). A measured 0 (nothing
 * overlapped, to the microsecond) is matched only by a prediction of 0: "nothing overlaps" is a
 * claim that is checked exactly.
 */
#ifndef WB_TOLERANCE_H
#define WB_TOLERANCE_H

#include <stddef.h>

#define WB_TIME_TOLERANCE 0.25 /* relative: 25% of the measured value */

int wb_within_tolerance(long predicted, long actual, double tolerance);

/* The median of n >= 1 values (the lower middle one when n is even, so that it is a value that
 * occurred); -1 when n is 0 or out of memory. */
long wb_median_long(const long *values, size_t n);

#endif
