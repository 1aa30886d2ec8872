/* facts_kernels.c: the kernel facts: kernels, gemms (gemm_families.h decides) and kernels_named
 * (a name's substring, or a regex for "re:" keys). */
#define _GNU_SOURCE
#include "fact_family.h"

#include <stdio.h>
#include <string.h>

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

/* "re:PATTERN" keys compile once, within the file's budget of regex_limits.h. */
int wb_ready_kernel_key(wb_fact *f, long *regex_budget, char *why, size_t cap) {
    if (!f->key || strncmp(f->key, "re:", 3) != 0) return 0;
    char refused[448];
    if (wb_regex_compile(f->key + 3, regex_budget, &f->regex, refused, sizeof refused))
        return snprintf(why, cap, _("the regex '%.64s%s' %s"), f->key + 3, strlen(f->key + 3) > 64 ? "..." : "", refused), -1;
    f->has_regex = 1;
    return 0;
}

int wb_fact_name_matches(const wb_fact *f, const char *kernel_name) {
    if (!kernel_name || !f->key) return 0; /* only kernels_named facts have a key */
    if (f->has_regex) return regexec(&f->regex, kernel_name, 0, NULL, 0) == 0;
    return strcasestr(kernel_name, f->key) != NULL;
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
