/*
 * wb_timing.h: medians of per-step timings and the short table every lesson prints.
 *
 * Time on the GPU comes from CUDA events recorded around each measured step (wb_steps.h records
 * them); wall time per step from a host monotonic clock. Plain host code, no CUDA.
 */
#ifndef WB_TIMING_H
#define WB_TIMING_H

#ifdef __cplusplus
extern "C" {
#endif

double wb_now_us(void);                         /* CLOCK_MONOTONIC, microseconds */
double wb_median(const double *values, int n);  /* copies, sorts; n >= 1 */

/* One row of the timing table: "label  median  min  max  (n steps)", times in microseconds. */
void wb_print_timing_header(void);
void wb_print_timing_row(const char *label, const double *us, int n);

#ifdef __cplusplus
}
#endif

#endif
