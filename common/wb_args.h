/*
 * wb_args.h: checked numbers from the command line, and the messages for what getopt_long
 * refuses, shared by the lesson programs (getopt_long does the rest).
 */
#ifndef WB_ARGS_H
#define WB_ARGS_H

#include <getopt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *out = s as a decimal int in [lo, hi]; 0 on success, -1 (out untouched) when s is empty, has
 * anything after the number, or is out of range. */
int wb_parse_int(const char *s, int lo, int hi, int *out);
/* The same for a 64-bit integer and for a finite decimal number (strtod syntax: 3e-4, 0.1). */
int wb_parse_i64(const char *s, long long lo, long long hi, long long *out);
int wb_parse_double(const char *s, double lo, double hi, double *out);

/* A numeric option --name N, stored into exactly one of i, d, ll (the others NULL), checked
 * against [lo, hi]. A program keeps a table of them beside its other long options. */
typedef struct {
    const char *name;
    int *i;
    double *d;
    long long *ll;
    double lo, hi;
} wb_num_option;

/* Appends one required_argument entry per numeric option (val = first_val + its index) after the
 * *n entries of longs, then the terminating zero entry; -1 when that would pass cap entries. */
int wb_num_options_append(struct option *longs, int *n, int cap, const wb_num_option *nums, int n_nums, int first_val);
/* Stores arg into the option's variable: 0, or -1 after saying on stderr what is wrong with it
 * ("--layers: 'abc' is not a whole number in [1, 1000]"). */
int wb_num_option_set(const wb_num_option *num, const char *arg);
/* For what getopt_long (opterr = 0) returned '?' or ':': says "unknown option: --x" or "an option
 * needs a value: --x" on stderr; returns -1. */
int wb_option_refused(char **argv);
/* After the options: -1 (said on stderr) when arguments are left over, else 0. */
int wb_options_done(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
