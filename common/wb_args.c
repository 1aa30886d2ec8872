/* wb_args.c: see wb_args.h. */
#include "wb_args.h"

#include <errno.h>
#include <math.h>
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
