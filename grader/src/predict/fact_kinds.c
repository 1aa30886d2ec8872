/*
 * fact_kinds.c: the table of fact kinds (fact_kinds.h). A row per kind, in the order a
 * prediction's facts are read and reported: counts, then the keyed counts, then the times.
 */
#include "fact_family.h"

#include <string.h>

#define COUNT &wb_fact_count_value
#define TIME &wb_fact_time_value
#define BOUND &wb_fact_bound_value

static const wb_fact_kind_info KINDS[] = {
    /* kind                  name            keyed value  check_key            count                   describe
     *                                                    ready_key            time_of                 in_source         in_capture */
    {WB_FACT_KERNELS,       "kernels",       0,    COUNT, NULL,                wb_count_kernels,       wb_describe_kernels,
                                                          NULL,                NULL,                   NULL,             NULL},
    {WB_FACT_GEMMS,         "gemms",         0,    COUNT, NULL,                wb_count_gemms,         wb_describe_gemms,
                                                          NULL,                NULL,                   NULL,             NULL},
    {WB_FACT_MEMSETS,       "memsets",       0,    COUNT, NULL,                wb_count_memsets,       wb_describe_memsets,
                                                          NULL,                NULL,                   NULL,             NULL},
    {WB_FACT_MEMCPYS,       "memcpys",       0,    COUNT, NULL,                wb_count_memcpys,       wb_describe_memcpys,
                                                          NULL,                NULL,                   NULL,             NULL},
    {WB_FACT_STREAMS,       "streams",       0,    COUNT, NULL,                wb_count_streams,       wb_describe_streams,
                                                          NULL,                NULL,                   NULL,             NULL},
    {WB_FACT_KERNELS_NAMED, "kernels_named", 1,    COUNT, NULL,                wb_count_kernels_named, wb_describe_kernels_named,
                                                          wb_ready_kernel_key, NULL,                   NULL,             NULL},
    {WB_FACT_API_CALLS,     "api_calls",     1,    COUNT, wb_check_api_key,    wb_count_api_calls,     wb_describe_api_calls,
                                                          NULL,                NULL,                   wb_api_in_source, wb_api_in_capture},
    {WB_FACT_MEMCPYS_NAMED, "memcpys_named", 1,    COUNT, wb_memcpy_key_check, wb_count_memcpys_named, wb_describe_memcpys_named,
                                                          NULL,                NULL,                   NULL,             NULL},
    {WB_FACT_OVERLAP_US,    "overlap_us",    0,    TIME,  NULL,                wb_count_overlap_us,    wb_describe_overlap_us,
                                                          NULL,                NULL,                   NULL,             NULL},
    {WB_FACT_GPU_US,        "gpu_us",        0,    TIME,  NULL,                NULL,                   wb_describe_gpu_us,
                                                          NULL,                wb_gpu_time_of,         NULL,             NULL},
    {WB_FACT_WALL_US,       "wall_us",       0,    TIME,  NULL,                NULL,                   wb_describe_wall_us,
                                                          NULL,                wb_wall_time_of,        NULL,             NULL},
    {WB_FACT_BOUND,         "bound",         0,    BOUND, NULL,                NULL,                   wb_describe_bound,
                                                          NULL,                NULL,                   NULL,             NULL},
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

const wb_fact_value_type *wb_fact_value_of(const wb_fact *f) { return wb_fact_kind_get(f->kind)->value; }

const wb_fact_kind_info *wb_fact_kind_of_label(const char *label, const char **key) {
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
        size_t len = strlen(KINDS[i].name);
        if (strncmp(label, KINDS[i].name, len)) continue;
        if (!KINDS[i].keyed && !label[len]) {
            if (key) *key = NULL;
            return &KINDS[i];
        }
        if (KINDS[i].keyed && label[len] == '.' && label[len + 1]) {
            if (key) *key = label + len + 1;
            return &KINDS[i];
        }
    }
    return NULL;
}

const wb_fact_value_type *wb_fact_value_named(const char *name) {
    for (size_t i = 0; name && i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (!strcmp(KINDS[i].value->name, name)) return KINDS[i].value;
    return NULL;
}
