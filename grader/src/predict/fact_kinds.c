/*
 * fact_kinds.c: the table of fact kinds (fact_kinds.h). A row per kind, in the order a
 * prediction's facts are read and reported: counts, then the keyed counts, then the times.
 */
#include "fact_family.h"

static const wb_fact_kind_info KINDS[] = {
    /* kind                  name            keyed  value                 check_key         count                    describe */
    {WB_FACT_KERNELS,       "kernels",       0, WB_FACT_VALUE_COUNT, NULL,             wb_count_kernels,        wb_describe_kernels},
    {WB_FACT_GEMMS,         "gemms",         0, WB_FACT_VALUE_COUNT, NULL,             wb_count_gemms,          wb_describe_gemms},
    {WB_FACT_MEMSETS,       "memsets",       0, WB_FACT_VALUE_COUNT, NULL,             wb_count_memsets,        wb_describe_memsets},
    {WB_FACT_MEMCPYS,       "memcpys",       0, WB_FACT_VALUE_COUNT, NULL,             wb_count_memcpys,        wb_describe_memcpys},
    {WB_FACT_STREAMS,       "streams",       0, WB_FACT_VALUE_COUNT, NULL,             wb_count_streams,        wb_describe_streams},
    {WB_FACT_KERNELS_NAMED, "kernels_named", 1, WB_FACT_VALUE_COUNT, NULL,             wb_count_kernels_named,  wb_describe_kernels_named},
    {WB_FACT_API_CALLS,     "api_calls",     1, WB_FACT_VALUE_COUNT, wb_check_api_key, wb_count_api_calls,      wb_describe_api_calls},
    {WB_FACT_MEMCPYS_NAMED, "memcpys_named", 1, WB_FACT_VALUE_COUNT, wb_memcpy_key_check, wb_count_memcpys_named, wb_describe_memcpys_named},
    {WB_FACT_OVERLAP_US,    "overlap_us",    0, WB_FACT_VALUE_TIME,  NULL,             wb_count_overlap_us,     wb_describe_overlap_us},
    {WB_FACT_GPU_US,        "gpu_us",        0, WB_FACT_VALUE_TIME,  NULL,             NULL,                    wb_describe_gpu_us},
    {WB_FACT_WALL_US,       "wall_us",       0, WB_FACT_VALUE_TIME,  NULL,             NULL,                    wb_describe_wall_us},
    {WB_FACT_BOUND,         "bound",         0, WB_FACT_VALUE_BOUND, NULL,             NULL,                    wb_describe_bound},
};

const wb_fact_kind_info *wb_fact_kinds(size_t *n) {
    *n = sizeof KINDS / sizeof KINDS[0];
    return KINDS;
}

const wb_fact_kind_info *wb_fact_kind_get(wb_fact_kind kind) {
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (KINDS[i].kind == kind) return &KINDS[i];
    return &KINDS[0]; /* unreachable: every kind has its row (test_fact_kinds checks) */
}
