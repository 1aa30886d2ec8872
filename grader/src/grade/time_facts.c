/* time_facts.c: see time_facts.h for the rules. */
#include "time_facts.h"

#include <math.h>
#include <string.h>

int wb_time_band_decimals(double actual) { return actual < 10 ? 2 : 1; }

void wb_time_band(double actual, double tolerance, double *from, double *to) {
    double scale = pow(10, wb_time_band_decimals(actual));
    /* the 1e-6 keeps an end that is already a printed value (400 x 0.75 = 300) where it is */
    *from = ceil(actual * (1 - tolerance) * scale - 1e-6) / scale;
    *to = floor(actual * (1 + tolerance) * scale + 1e-6) / scale;
    if (*from > *to) *from = *to = round(actual * scale) / scale; /* a band narrower than one printed step */
}

int wb_time_within(double predicted, double actual, double tolerance) {
    double from, to;
    wb_time_band(actual, tolerance, &from, &to);
    return predicted >= from && predicted <= to;
}

int wb_bound_of(double gpu_us, double wall_us, const wb_work *work, const wb_calibration *cal, wb_bound_inputs *in) {
    memset(in, 0, sizeof *in);
    in->gpu_us = gpu_us;
    in->wall_us = wall_us;
    if (work) in->flops = work->flops, in->bytes = work->bytes;
    if (cal && cal->present) {
        in->matrix_flops_per_s = cal->matrix_flops_per_s;
        in->copy_bytes_per_s = cal->copy_bytes_per_s;
        in->compute_us = in->flops / in->matrix_flops_per_s * 1e6;
        in->memory_us = in->bytes / in->copy_bytes_per_s * 1e6;
    }
    in->floor_us = in->compute_us > in->memory_us ? in->compute_us : in->memory_us;
    if (gpu_us < WB_OVERHEAD_SHARE * wall_us) return WB_BOUND_OVERHEAD;
    return in->compute_us > in->memory_us ? WB_BOUND_COMPUTE : WB_BOUND_MEMORY;
}
