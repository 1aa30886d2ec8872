/* facts_copies.c: memsets, memcpys, and memcpys_named (copies by direction, memory and issue:
 * overlap.h's keys). */
#include "fact_family.h"

#include <stdio.h>

long wb_count_memsets(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) {
    long n = 0;
    for (size_t i = 0; i < o->n_ops; i++) n += c->ops[o->ops[i]].kind == WB_GPU_MEMSET;
    return n;
}

long wb_count_memcpys(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) {
    long n = 0;
    for (size_t i = 0; i < o->n_ops; i++) n += c->ops[o->ops[i]].kind == WB_GPU_MEMCPY;
    return n;
}

long wb_count_memcpys_named(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) {
    long n = 0;
    for (size_t i = 0; i < o->n_ops; i++) n += wb_memcpy_matches(&c->ops[o->ops[i]], f->key);
    return n;
}

void wb_describe_memsets(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("memset operations on the GPU in range '%s'"), range);
}

void wb_describe_memcpys(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("memcpy operations in range '%s'"), range);
}

void wb_describe_memcpys_named(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("memcpys in range '%s' that are '%s'"), range, f->key);
}
