/*
 * work_expr.h: the arithmetic of lesson.yaml's work declarations: "2*n*n*n", "2*(3*n*n + n)".
 * Numbers (180, 2.5, 1e9), parameter names of the variant ([a-z_][a-z0-9_]*), + - * /, and
 * parentheses; the usual precedence, left to right. Evaluated in double precision.
 */
#ifndef WB_WORK_EXPR_H
#define WB_WORK_EXPR_H

#include <stddef.h>

typedef struct {
    const char *const *names; /* the parameters */
    const double *values;
    size_t n;
} wb_expr_params;

/* Evaluates text. On failure returns -1 and writes why into message (e.g. "'m' is not a
 * parameter (there are: n)", "division by zero"), with *offset the 0-based column of the problem. */
int wb_expr_eval(const char *text, const wb_expr_params *params, double *out, char *message, size_t cap, size_t *offset);

#endif
