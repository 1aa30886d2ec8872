/* wb_args.c: see wb_args.h. */
#include "wb_args.h"

#include <errno.h>
#include <stdlib.h>

int wb_parse_int(const char *s, int lo, int hi, int *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!s[0] || *end || errno == ERANGE || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}
