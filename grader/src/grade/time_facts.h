/*
 * time_facts.h: the time facts gpu_us, wall_us and bound (docs/predictions.md, "Time facts").
 *
 * Per occurrence of a range, gpu_us and wall_us as range_times.h measures them, and
 *   bound    overhead when gpu_us < 0.5 x wall_us (the GPU idles while the host works); else
 *            compute when flops / matrix rate > bytes / copy bandwidth (the declared work over
 *            the calibrated ceilings), else memory.
 * gpu_us and wall_us are the median over the occurrences; a prediction is right when
 * |predicted - actual| <= tolerance x actual. bound is right when every occurrence has it.
 */
#ifndef WB_TIME_FACTS_H
#define WB_TIME_FACTS_H

#include "wb_capture.h"
#include "wb_course.h"
#include "wb_predict.h"

#define WB_OVERHEAD_SHARE 0.5 /* GPU time under this share of wall time: overhead */

/* The band of right predictions as shown and graded: actual x (1 - tolerance) to actual x
 * (1 + tolerance), each end rounded inward to the decimals shown (2 under 10 us, else 1), so that
 * both printed ends are right and nothing printed outside them is. */
int wb_time_band_decimals(double actual);
void wb_time_band(double actual, double tolerance, double *from, double *to);
/* 1 when predicted lies in that band. */
int wb_time_within(double predicted, double actual, double tolerance);

/* What the bound rule used, for the report. */
typedef struct {
    double gpu_us, wall_us;           /* the occurrence's (or the medians, for the report) */
    double flops, bytes;              /* declared */
    double matrix_flops_per_s, copy_bytes_per_s;
    double compute_us, memory_us;     /* flops / rate, bytes / bandwidth */
    double floor_us;                  /* the larger of the two: no faster on this GPU */
} wb_bound_inputs;

/* Fills in (from gpu_us, wall_us, work and calibration) and returns the bound. */
int wb_bound_of(double gpu_us, double wall_us, const wb_work *work, const wb_calibration *cal, wb_bound_inputs *in);

#endif
