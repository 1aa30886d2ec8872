/* wb_args.c: see wb_args.h. */
#include "wb_args.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Stores arg into the option's variable: 0, or -1 after saying what is wrong with it. */
static int opt_set(const wb_opt *o, const char *arg) {
    int bad = 0;
    switch (o->kind) {
    case WB_OPT_INT: bad = wb_parse_int(arg, (int)o->lo, (int)o->hi, (int *)o->value); break;
    case WB_OPT_I64: bad = wb_parse_i64(arg, (long long)o->lo, (long long)o->hi, (long long *)o->value); break;
    case WB_OPT_DOUBLE: bad = wb_parse_double(arg, o->lo, o->hi, (double *)o->value); break;
    case WB_OPT_STRING: *(const char **)o->value = arg; return 0;
    case WB_OPT_FLAG: *(int *)o->value = 1; return 0;
    case WB_OPT_CALL: return o->set(o->value, arg);
    }
    if (!bad) return 0;
    if (o->kind == WB_OPT_DOUBLE) fprintf(stderr, "--%s: '%s' is not a number in [%g, %g]\n", o->name, arg, o->lo, o->hi);
    else fprintf(stderr, "--%s: '%s' is not a whole number in [%.0f, %.0f]\n", o->name, arg, o->lo, o->hi);
    return -1;
}

int wb_opts_parse(const wb_opt *opts, int n, int argc, char **argv) {
    enum { FIRST = 1000 };
    struct option longs[WB_OPTS_MAX + 2];
    if (n < 0 || n > WB_OPTS_MAX) {
        fprintf(stderr, "wb_opts_parse: %d options, more than the %d a table may have\n", n, WB_OPTS_MAX);
        return -1;
    }
    for (int i = 0; i < n; i++)
        longs[i] = (struct option){opts[i].name, opts[i].kind == WB_OPT_FLAG ? no_argument : required_argument, 0, FIRST + i};
    longs[n] = (struct option){"help", no_argument, 0, 'h'};
    longs[n + 1] = (struct option){0, 0, 0, 0};
    optind = 0, opterr = 0; /* 0: glibc starts over (1 would keep its state from an earlier parse) */
    int c;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        if (c == 'h') return 1;
        if (c < FIRST || c >= FIRST + n) {
            const char *arg = argv[optind - 1];
            fprintf(stderr, "%s: %s\n",
                    !optopt ? "unknown option" : strchr(arg, '=') ? "an option without a value was given one"
                                                                  : "an option needs a value",
                    arg);
            return -1;
        }
        if (opt_set(&opts[c - FIRST], optarg) != 0) return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "unexpected argument '%s' (options start with --)\n", argv[optind]);
        return -1;
    }
    return 0;
}
