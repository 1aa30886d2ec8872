/* facts_time.c: gpu_us, wall_us and bound. They are not counted per occurrence: grading takes
 * them from the range's times (range_times.h), gpu_us and wall_us as they are, bound by the rule
 * of time_facts.h. The bound's type of value, a name, is here too. */
#include "fact_family.h"

#include <stdio.h>
#include <string.h>

double wb_gpu_time_of(double gpu_us, double wall_us) { return gpu_us; }

double wb_wall_time_of(double gpu_us, double wall_us) { return wall_us; }

void wb_describe_gpu_us(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("GPU time of the work launched in range '%s', in microseconds"), range);
}

void wb_describe_wall_us(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("host time from the start of range '%s' to its end, in microseconds"), range);
}

void wb_describe_bound(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("where range '%s' spends its time: overhead (1), memory (2) or compute (3)"), range);
}

/* ---- a bound's value: its name ------------------------------------------------------------------ */

static const char *const BOUND_NAMES[WB_BOUND_COUNT] = {"overhead", "memory", "compute"};

const char *wb_bound_name(int bound) { return bound >= 0 && bound < WB_BOUND_COUNT ? BOUND_NAMES[bound] : "?"; }

int wb_bound_parse(const char *s) {
    for (int i = 0; s && i < WB_BOUND_COUNT; i++)
        if (!strcmp(s, BOUND_NAMES[i])) return i;
    return -1;
}

static int bound_read(wb_yaml *y, yaml_node_t *node, const char *what, int *predicted, double *us, wb_error *err) {
    *us = 0;
    *predicted = wb_yaml_is_null(node) ? -1 : wb_bound_parse(wb_yaml_scalar(node));
    if (*predicted < 0 && !wb_yaml_is_null(node))
        return wb_yaml_fail(err, y, node, _("%s must be overhead, memory or compute (or ~), found '%s'"), what,
                            node && node->type == YAML_SCALAR_NODE ? wb_yaml_scalar(node) : _("a list or mapping"));
    return 0;
}

static void bound_text(double v, char *buf, size_t cap) { snprintf(buf, cap, "%s", wb_bound_name((int)v)); }

static json_t *bound_json(double v) { return json_string(wb_bound_name((int)v)); }

static int bound_from_json(json_t *j, double *v) {
    int b = json_is_string(j) ? wb_bound_parse(json_string_value(j)) : -1;
    if (b < 0) return -1;
    *v = b;
    return 0;
}

/* A name, or its number in the prompt: 1 overhead, 2 memory, 3 compute. */
static int bound_answer(const char *s, wb_answer_edit *e) {
    int b = s[0] >= '1' && s[0] <= '0' + WB_BOUND_COUNT && !s[1] ? s[0] - '1' : wb_bound_parse(s);
    if (b < 0) return 0;
    snprintf(e->text, sizeof e->text, "%s", wb_bound_name(b));
    return 1;
}

static void bound_ask_again(char *buf, size_t cap) {
    snprintf(buf, cap, "  %s\n", _("overhead, memory or compute (or 1, 2, 3), please (Enter skips, q stops)"));
}

static void bound_make_wrong(wb_fact *w, int offset, double factor) { w->predicted = (w->predicted + 1) % WB_BOUND_COUNT; }

const wb_fact_value_type wb_fact_bound_value = {
    "bound", 0, 1, bound_read, bound_text, bound_json, bound_from_json, bound_answer, bound_ask_again, bound_make_wrong,
};
