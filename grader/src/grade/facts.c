/* facts.c: the value of a count fact in one occurrence (facts.h). */
#include "facts.h"
#include "wb_capture.h"

#include <string.h>

long wb_count_fact(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) {
    long n = 0;
    switch (f->kind) {
    case WB_FACT_KERNELS: return (long)o->n_kernels;
    case WB_FACT_GEMMS:
        for (size_t i = 0; i < o->n_kernels; i++) n += wb_is_gemm(c->kernels[o->kernels[i]].name, NULL);
        return n;
    case WB_FACT_KERNELS_NAMED:
        for (size_t i = 0; i < o->n_kernels; i++) n += wb_fact_name_matches(f, c->kernels[o->kernels[i]].name);
        return n;
    case WB_FACT_API_CALLS:
        for (size_t i = 0; i < o->n_api; i++) n += strcmp(c->api[o->api[i]].name, f->key) == 0;
        return n;
    case WB_FACT_MEMSETS:
        for (size_t i = 0; i < o->n_ops; i++) n += c->ops[o->ops[i]].kind == WB_GPU_MEMSET;
        return n;
    case WB_FACT_MEMCPYS:
        for (size_t i = 0; i < o->n_ops; i++) n += c->ops[o->ops[i]].kind == WB_GPU_MEMCPY;
        return n;
    case WB_FACT_MEMCPYS_NAMED:
        for (size_t i = 0; i < o->n_ops; i++) n += wb_memcpy_matches(&c->ops[o->ops[i]], f->key);
        return n;
    case WB_FACT_STREAMS: return wb_occurrence_streams(c, o);
    case WB_FACT_OVERLAP_US: {
        int64_t ns = wb_occurrence_overlap_ns(c, o);
        return ns < 0 ? -1 : (long)((ns + 500) / 1000); /* whole microseconds, rounded */
    }
    case WB_FACT_GPU_US:
    case WB_FACT_WALL_US:
    case WB_FACT_BOUND: return 0; /* not counts: time_facts.h */
    }
    return 0;
}
