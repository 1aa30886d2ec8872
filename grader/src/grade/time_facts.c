/* time_facts.c: see time_facts.h for the rules. */
#include "time_facts.h"

#include <math.h>
#include <string.h>

int wb_time_within(double predicted, double actual, double tolerance) {
    return fabs(predicted - actual) <= tolerance * actual;
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
