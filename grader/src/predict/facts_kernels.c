/* facts_kernels.c: the kernel facts: kernels, gemms (gemm_families.h decides) and kernels_named
 * (a name's substring, or a regex for "re:" keys). */
#include "fact_family.h"

#include <stdio.h>

long wb_count_kernels(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) { return (long)o->n_kernels; }

long wb_count_gemms(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) {
    long n = 0;
    for (size_t i = 0; i < o->n_kernels; i++) n += wb_is_gemm(c->kernels[o->kernels[i]].name, NULL);
    return n;
}

long wb_count_kernels_named(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) {
    long n = 0;
    for (size_t i = 0; i < o->n_kernels; i++) n += wb_fact_name_matches(f, c->kernels[o->kernels[i]].name);
    return n;
}

void wb_describe_kernels(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("GPU kernels launched in range '%s' (memsets and memcpys not counted)"), range);
}

void wb_describe_gemms(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", _("of those kernels, matrix multiplies (GEMMs)"));
}

void wb_describe_kernels_named(const wb_fact *f, const char *range, char *buf, size_t cap) {
    if (f->has_regex) snprintf(buf, cap, _("kernels in range '%s' whose name matches /%s/"), range, f->key + 3);
    else snprintf(buf, cap, _("kernels in range '%s' whose name contains '%s'"), range, f->key);
}
