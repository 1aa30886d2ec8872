/* wb_args.c: see wb_args.h. */
#include "wb_args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int wb_parse_int(const char *s, int lo, int hi, int *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!s[0] || *end || errno == ERANGE || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

int wb_parse_i64(const char *s, long long lo, long long hi, long long *out) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!s[0] || *end || errno == ERANGE || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int wb_parse_double(const char *s, double lo, double hi, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (!s[0] || *end || errno == ERANGE || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int wb_num_options_append(struct option *longs, int *n, int cap, const wb_num_option *nums, int n_nums, int first_val) {
    if (*n + n_nums + 1 > cap) return -1;
    for (int i = 0; i < n_nums; i++) longs[(*n)++] = (struct option){nums[i].name, required_argument, 0, first_val + i};
    longs[*n] = (struct option){0, 0, 0, 0};
    return 0;
}

int wb_num_option_set(const wb_num_option *num, const char *arg) {
    int bad = num->i    ? wb_parse_int(arg, (int)num->lo, (int)num->hi, num->i)
              : num->ll ? wb_parse_i64(arg, (long long)num->lo, (long long)num->hi, num->ll)
                        : wb_parse_double(arg, num->lo, num->hi, num->d);
    if (!bad) return 0;
    if (num->d) fprintf(stderr, "--%s: '%s' is not a number in [%g, %g]\n", num->name, arg, num->lo, num->hi);
    else fprintf(stderr, "--%s: '%s' is not a whole number in [%.0f, %.0f]\n", num->name, arg, num->lo, num->hi);
    return -1;
}

int wb_option_refused(char **argv) {
    fprintf(stderr, "%s: %s\n", optopt ? "an option needs a value" : "unknown option", argv[optind - 1]);
    return -1;
}

int wb_options_done(int argc, char **argv) {
    if (optind >= argc) return 0;
    fprintf(stderr, "unexpected argument '%s' (options start with --)\n", argv[optind]);
    return -1;
}
