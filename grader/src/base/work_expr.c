/* work_expr.c: a recursive-descent evaluator for work_expr.h's grammar:
 *     expr   = term { ("+" | "-") term }
 *     term   = factor { ("*" | "/") factor }
 *     factor = number | name | "(" expr ")" | "-" factor
 */
#include "work_expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *text, *p;
    const wb_expr_params *params;
    char *message;
    size_t cap;
    int failed;
    int depth;
} parser;

#define MAX_DEPTH 64 /* nesting of parentheses: hand-written expressions stay far below */

static double fail(parser *s, const char *fmt, const char *arg) {
    if (!s->failed) snprintf(s->message, s->cap, fmt, arg);
    s->failed = 1;
    return 0;
}

static void skip_space(parser *s) {
    while (*s->p == ' ' || *s->p == '\t') s->p++;
}

static double expr(parser *s);

static double factor(parser *s) {
    skip_space(s);
    if (s->failed) return 0;
    if (++s->depth > MAX_DEPTH) return fail(s, "%s", "too deeply nested");
    double v = 0;
    char c = *s->p;
    if (c == '(') {
        s->p++;
        v = expr(s);
        skip_space(s);
        if (*s->p != ')') v = fail(s, "%s", "a ')' is missing");
        else s->p++;
    } else if (c == '-') {
        s->p++;
        v = -factor(s);
    } else if ((c >= '0' && c <= '9') || c == '.') {
        char *end;
        v = strtod(s->p, &end);
        if (end == s->p) v = fail(s, "%s", "a number is malformed");
        s->p = end;
    } else if ((c >= 'a' && c <= 'z') || c == '_') {
        const char *start = s->p;
        while ((*s->p >= 'a' && *s->p <= 'z') || (*s->p >= '0' && *s->p <= '9') || *s->p == '_') s->p++;
        size_t len = (size_t)(s->p - start);
        size_t i = 0;
        while (i < s->params->n && !(strlen(s->params->names[i]) == len && !strncmp(s->params->names[i], start, len))) i++;
        if (i < s->params->n) {
            v = s->params->values[i];
        } else {
            char list[256] = "";
            for (size_t k = 0; k < s->params->n; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", s->params->names[k]);
            char what[400];
            snprintf(what, sizeof what, "'%.*s' is not a parameter of the variant (%s%s)", (int)(len > 64 ? 64 : len), start,
                     s->params->n ? "it has: " : "it has none; add params: {NAME: VALUE} to the variant", list);
            s->p = start;
            v = fail(s, "%s", what);
        }
    } else {
        char what[8] = "the end";
        if (c) snprintf(what, sizeof what, "'%c'", c);
        v = fail(s, "expected a number, a parameter or '(' at %s", what);
    }
    s->depth--;
    return v;
}

static double term(parser *s) {
    double v = factor(s);
    for (;;) {
        skip_space(s);
        char op = *s->p;
        if (s->failed || (op != '*' && op != '/')) return v;
        s->p++;
        double w = factor(s);
        if (op == '/' && w == 0 && !s->failed) return fail(s, "%s", "division by zero");
        v = op == '*' ? v * w : v / w;
    }
}

static double expr(parser *s) {
    double v = term(s);
    for (;;) {
        skip_space(s);
        char op = *s->p;
        if (s->failed || (op != '+' && op != '-')) return v;
        s->p++;
        double w = term(s);
        v = op == '+' ? v + w : v - w;
    }
}

int wb_expr_eval(const char *text, const wb_expr_params *params, double *out, char *message, size_t cap, size_t *offset) {
    parser s = {text, text, params, message, cap, 0, 0};
    double v = expr(&s);
    skip_space(&s);
    if (!s.failed && *s.p) {
        char what[8];
        snprintf(what, sizeof what, "'%c'", *s.p);
        fail(&s, "unexpected %s (use numbers, parameters, + - * / and parentheses)", what);
    }
    if (!s.failed && !isfinite(v)) fail(&s, "%s", "the value is not finite");
    *offset = (size_t)(s.p - text);
    if (s.failed) return -1;
    *out = v;
    return 0;
}
