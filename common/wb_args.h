/*
 * wb_args.h: checked numbers from the command line (getopt_long does the rest).
 */
#ifndef WB_ARGS_H
#define WB_ARGS_H

#ifdef __cplusplus
extern "C" {
#endif

/* *out = s as a decimal int in [lo, hi]; 0 on success, -1 (out untouched) when s is empty, has
 * anything after the number, or is out of range. */
int wb_parse_int(const char *s, int lo, int hi, int *out);
/* The same for a 64-bit integer and for a finite decimal number (strtod syntax: 3e-4, 0.1). */
int wb_parse_i64(const char *s, long long lo, long long hi, long long *out);
int wb_parse_double(const char *s, double lo, double hi, double *out);

#ifdef __cplusplus
}
#endif

#endif
