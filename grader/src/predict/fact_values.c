/*
 * fact_values.c: the two types of value most kinds share (fact_kinds.h): a count, a whole number
 * right when every occurrence has it, and a time, microseconds right within a band around the
 * median occurrence (time_facts.h). The bound's type is with its kind, in facts_time.c.
 */
#include "fact_kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A time fact above this many microseconds (a minute) is a typo, not a lesson step. */
#define MAX_TIME_US 60e6

/* ---- counts ----------------------------------------------------------------------------------- */

static int count_read(wb_yaml *y, yaml_node_t *node, const char *what, int *predicted, double *us, wb_error *err) {
    *us = 0;
    return wb_yaml_count(y, node, what, 1, predicted, err) ? err->code : 0;
}

static void count_text(double v, char *buf, size_t cap) { snprintf(buf, cap, "%ld", (long)v); }

static json_t *count_json(double v) { return json_integer((json_int_t)v); }

static int count_from_json(json_t *j, double *v) {
    if (!json_is_integer(j) || json_integer_value(j) < 0 || json_integer_value(j) > WB_YAML_MAX_COUNT) return -1;
    *v = (double)json_integer_value(j);
    return 0;
}

/* The same rule as the file's: a whole number of at most 7 digits, within WB_YAML_MAX_COUNT. */
static int count_answer(const char *s, wb_answer_edit *e) {
    size_t len = strlen(s);
    if (len == 0 || strspn(s, "0123456789") != len || len > 7 || atol(s) > WB_YAML_MAX_COUNT) return 0;
    e->value = atoi(s);
    return 1;
}

static void count_ask_again(char *buf, size_t cap) {
    snprintf(buf, cap, _("  a whole number from 0 to %d, please (Enter skips, q stops)\n"), WB_YAML_MAX_COUNT);
}

static void count_make_wrong(wb_fact *w, int offset, double factor) { w->predicted += offset; }

const wb_fact_value_type wb_fact_count_value = {
    "count", 0, 0, count_read, count_text, count_json, count_from_json, count_answer, count_ask_again, count_make_wrong,
};

/* ---- times ------------------------------------------------------------------------------------ */

static int time_read(wb_yaml *y, yaml_node_t *node, const char *what, int *predicted, double *us, wb_error *err) {
    int open;
    if (wb_yaml_decimal(y, node, what, 1, MAX_TIME_US, us, &open, err)) return err->code;
    *predicted = open ? -1 : 0;
    return 0;
}

static void time_text(double v, char *buf, size_t cap) { snprintf(buf, cap, "%.1f", v); }

static json_t *time_json(double v) { return json_real(v); }

static int time_from_json(json_t *j, double *v) {
    if (!json_is_number(j) || json_number_value(j) < 0 || json_number_value(j) > MAX_TIME_US) return -1;
    *v = json_number_value(j);
    return 0;
}

/* Decimal microseconds, kept as typed: "180", "40.5". */
static int time_answer(const char *s, wb_answer_edit *e) {
    size_t len = strlen(s), dots = 0;
    for (size_t i = 0; i < len; i++) dots += s[i] == '.';
    if (len == 0 || len >= sizeof e->text || strspn(s, "0123456789.") != len || dots > 1 || len == dots) return 0;
    snprintf(e->text, sizeof e->text, "%s", s);
    return 1;
}

static void time_ask_again(char *buf, size_t cap) {
    snprintf(buf, cap, "  %s\n", _("a number of microseconds such as 180 or 40.5, please (Enter skips, q stops)"));
}

/* A time of 0 ("nothing overlaps") has no factor of 2 to miss by: 1 us is wrong instead. */
static void time_make_wrong(wb_fact *w, int offset, double factor) {
    w->value = w->value > 0 ? w->value * (factor == 1 ? 2 : factor) : 1;
}

const wb_fact_value_type wb_fact_time_value = {
    "time", 1, 0, time_read, time_text, time_json, time_from_json, time_answer, time_ask_again, time_make_wrong,
};
