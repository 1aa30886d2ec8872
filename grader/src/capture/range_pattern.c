/*
 * range_pattern.c: range names given as "re:PATTERN" (docs/predictions.md, "Range names"). A
 * program names some ranges after what it ran, a kernel, a shape, a counter; a question that named
 * such a range would show the learner the very name it asks them to predict. A pattern names them
 * all instead: a POSIX extended regex, case-insensitive, matched against a range's name up to its
 * first comma, as plain names are compared. Lookups by pattern scan every range (O(n), a regexec
 * each): the sorted index cannot serve a pattern, and a capture's few thousand ranges cost little.
 */
#define _GNU_SOURCE
#include "capture.h"
#include "wb_base.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

int wb_range_is_pattern(const char *name) { return name && !strncmp(name, "re:", 3); }

/* The part of name before its first comma, matched by a compiled pattern. */
static int matches(const regex_t *re, const char *name) {
    char *head = strndup(name, strcspn(name, ","));
    if (!head) return -1;
    int hit = regexec(re, head, 0, NULL, 0) == 0;
    free(head);
    return hit;
}

static int compile(const char *pattern, regex_t *re) {
    long budget = 0;
    char why[512];
    return wb_regex_compile(pattern + 3, &budget, re, why, sizeof why);
}

int wb_range_name_matches(const char *want, const char *name) {
    if (!wb_range_is_pattern(want)) return !wb_range_name_cmp(want, name);
    regex_t re;
    if (compile(want, &re)) return 0;
    int hit = matches(&re, name);
    regfree(&re);
    return hit > 0;
}

static int by_start(const void *a, const void *b, void *ctx) {
    const wb_capture *c = ctx;
    long i = *(const long *)a, j = *(const long *)b;
    uint64_t x = c->ranges[i].start, y = c->ranges[j].start;
    if (x != y) return x < y ? -1 : 1;
    return (i > j) - (i < j);
}

long wb_capture_ranges_matching(const wb_capture *c, const char *pattern, long **out) {
    *out = NULL;
    regex_t re;
    if (compile(pattern, &re)) return -1;
    long *v = malloc((c->n_ranges ? c->n_ranges : 1) * sizeof *v);
    long n = 0;
    for (size_t i = 0; v && i < c->n_ranges; i++) {
        int hit = matches(&re, c->ranges[i].name);
        if (hit < 0) {
            free(v);
            v = NULL;
        } else if (hit) v[n++] = (long)i;
    }
    regfree(&re);
    if (!v) return -1;
    qsort_r(v, (size_t)n, sizeof *v, by_start, (void *)c);
    *out = v;
    return n;
}
