/* work_expr.c: a recursive-descent evaluator for work_expr.h's grammar:
 *     expr   = term { ("+" | "-") term }
 *     term   = factor { ("*" | "/") factor }
 *     factor = number | name | "(" expr ")" | "-" factor
 */
#include "work_expr.h"
#include "i18n.h"

#include <math.h>
#include <stdarg.h>
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

static double fail(parser *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static double fail(parser *s, const char *fmt, ...) {
    if (!s->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->message, s->cap, fmt, ap);
        va_end(ap);
    }
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
    if (++s->depth > MAX_DEPTH) return fail(s, "%s", _("too deeply nested"));
    double v = 0;
    char c = *s->p;
    if (c == '(') {
        s->p++;
        v = expr(s);
        skip_space(s);
        if (*s->p != ')') v = fail(s, "%s", _("a ')' is missing"));
        else s->p++;
    } else if (c == '-') {
        s->p++;
        v = -factor(s);
    } else if ((c >= '0' && c <= '9') || c == '.') {
        char *end;
        v = strtod(s->p, &end);
        if (end == s->p) v = fail(s, "%s", _("a number is malformed"));
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
            int shown = (int)(len > 64 ? 64 : len);
            s->p = start;
            v = s->params->n ? fail(s, _("'%.*s' is not a parameter of the variant (it has: %s)"), shown, start, list)
                             : fail(s, _("'%.*s' is not a parameter of the variant (it has none; add params: {NAME: VALUE} to "
                                         "the variant)"), shown, start);
        }
    } else {
        v = c ? fail(s, _("expected a number, a parameter or '(' at '%c'"), c)
              : fail(s, "%s", _("expected a number, a parameter or '(' at the end"));
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
        if (op == '/' && w == 0 && !s->failed) return fail(s, "%s", _("division by zero"));
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
    if (!s.failed && *s.p) fail(&s, _("unexpected '%c' (use numbers, parameters, + - * / and parentheses)"), *s.p);
    if (!s.failed && !isfinite(v)) fail(&s, "%s", _("the value is not finite"));
    *offset = (size_t)(s.p - text);
    if (s.failed) return -1;
    *out = v;
    return 0;
}
