/* facts_api.c: api_calls, the top-level CUDA runtime and driver calls made in a range, by name. */
#include "fact_family.h"

#include <stdio.h>
#include <string.h>

static int is_api_name(const char *s) {
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
    return 1;
}

/* "cudaLaunchKernel_v7000": CUPTI's versioned name, which a capture never records. */
static int has_version_suffix(const char *s) {
    const char *v = strrchr(s, '_');
    if (!v || v[1] != 'v' || !v[2]) return 0;
    for (v += 2; *v; v++)
        if (*v < '0' || *v > '9') return 0;
    return 1;
}

int wb_check_api_key(const char *key, char *why, size_t cap) {
    if (!is_api_name(key)) return snprintf(why, cap, _("'%s' is not an API name (like cudaLaunchKernel)"), key), -1;
    if (has_version_suffix(key))
        return snprintf(why, cap, _("write the plain API name without its _vNNNN suffix, e.g. '%.*s'"), (int)(strrchr(key, '_') - key), key),
               -1;
    return 0;
}

long wb_count_api_calls(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) {
    long n = 0;
    for (size_t i = 0; i < o->n_api; i++) n += strcmp(c->api[o->api[i]].name, f->key) == 0;
    return n;
}

void wb_describe_api_calls(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("calls to %s made in range '%s'"), f->key, range);
}

static int is_ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* The name as a whole identifier; a <<<...>>> launch is a cudaLaunchKernel the source never spells out. */
int wb_api_in_source(const char *key, const char *source) {
    size_t n = strlen(key);
    for (const char *p = source; p && (p = strstr(p, key)); p += n)
        if ((p == source || !is_ident(p[-1])) && !is_ident(p[n])) return 1;
    return !strcmp(key, "cudaLaunchKernel") && strstr(source, "<<<");
}

int wb_api_in_capture(const char *key, const wb_capture *c) {
    for (size_t k = 0; k < c->n_api; k++)
        if (c->api[k].name && !strcmp(c->api[k].name, key)) return 1;
    return 0;
}
