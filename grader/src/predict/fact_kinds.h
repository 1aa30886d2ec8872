/*
 * fact_kinds.h: every kind of fact a prediction can hold, one row each of one table
 * (fact_kinds.c), as main.c lists the commands. A row says the kind's name in the predictions
 * file, whether it is a map of keys (kernels_named: {gelu: 1}), its type of value (how a value is
 * read, written, asked, compared and shown), how a key is validated and readied, how it is counted
 * in one occurrence of a range, how it is asked at the prompt and how lint finds it in a source.
 * The predictions reader, the grading, the report, lint, verify, the JSON writers and `grader
 * check`'s questions loop over the table; each family of kinds keeps its functions in one file
 * (facts_kernels.c, facts_api.c, facts_copies.c, facts_streams.c, facts_time.c; the count and
 * time value types are in fact_values.c). docs/fact-kinds.md shows how to add one.
 */
#ifndef WB_FACT_KINDS_H
#define WB_FACT_KINDS_H

#include "predictions.h"
#include "predictions_edit.h"
#include "wb_capture.h"

#include <jansson.h>
#include <stddef.h>

/* A type of value: how a fact's value is read, written, asked, compared and shown. Kinds share
 * them: wb_fact_count_value, wb_fact_time_value (fact_values.c), wb_fact_bound_value
 * (facts_time.c). */
typedef struct {
    const char *name; /* "count", "time", "bound": what a grading's JSON calls it (grading_facts.h) */
    /* 1: microseconds in wb_fact.value, right within a tolerance of the median occurrence
     * (time_facts.h); 0: a whole value in wb_fact.predicted, right when the same in every occurrence */
    int banded;
    /* 1: judged by the bound rule from the range's times and declared work (time_facts.h), which
     * needs the work declared in lesson.yaml and the GPU's calibration */
    int judged;
    /* a predictions file's value (a YAML scalar, or ~: *predicted = -1; times: *us) */
    int (*read)(wb_yaml *y, yaml_node_t *node, const char *what, int *predicted, double *us, wb_error *err);
    /* a whole value as text: "5", "memory" (banded: "180.5", a time as grade.h shows one) */
    void (*text)(double v, char *buf, size_t cap);
    /* a value as JSON: an integer, microseconds, a name */
    json_t *(*to_json)(double v);
    /* a JSON value read back (a submitted grading): 0 with *v, -1 when j is no value of this type */
    int (*from_json)(json_t *j, double *v);
    /* an answer typed at the prompt as an edit of the file; 0 when it is no answer */
    int (*answer)(const char *s, wb_answer_edit *e);
    /* the line the prompt prints after a typed line that is no answer (indented, with its newline) */
    void (*ask_again)(char *buf, size_t cap);
    /* lint: the value in w made wrong for sure: a count by offset, a time by factor (2 when factor
     * is 1), a bound the next one */
    void (*make_wrong)(wb_fact *w, int offset, double factor);
} wb_fact_value_type;

extern const wb_fact_value_type wb_fact_count_value, wb_fact_time_value, wb_fact_bound_value;

typedef struct {
    wb_fact_kind kind;
    const char *name;    /* its key in a prediction: "kernels", "api_calls" */
    int keyed;           /* 1: a map KEY: value, each key its own fact ("api_calls.cudaLaunchKernel") */
    const wb_fact_value_type *value;
    /* keyed kinds: 0 when key is valid, else -1 with the reason in why (NULL: every key is) */
    int (*check_key)(const char *key, char *why, size_t cap);
    /* the actual value in one occurrence, -1 when out of memory (NULL: graded from the range's
     * times, by time_of or the bound rule) */
    long (*count)(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
    /* the question `grader check` asks for an open (~) value of this fact in range */
    void (*describe)(const wb_fact *f, const char *range, char *buf, size_t cap);
    /* keyed kinds: readies f->key for matching (kernels_named compiles a "re:" regex within the
     * budget of regex_limits.h); 0, or -1 with the reason in why (NULL: nothing to ready) */
    int (*ready_key)(wb_fact *f, long *regex_budget, char *why, size_t cap);
    /* times with no count: the range's time it is (gpu_us, wall_us) */
    double (*time_of)(double gpu_us, double wall_us);
    /* keyed kinds lint looks for in the lesson's program (NULL: not looked for): 1 when its source
     * names key, or a capture of it holds key; lint warns when neither does (a typo?) */
    int (*in_source)(const char *key, const char *source);
    int (*in_capture)(const char *key, const wb_capture *c);
} wb_fact_kind_info;

/* The table, in the order facts are read and reported; *n rows. */
const wb_fact_kind_info *wb_fact_kinds(size_t *n);
/* The row of kind (every wb_fact_kind has one). */
const wb_fact_kind_info *wb_fact_kind_get(wb_fact_kind kind);
/* The type of f's value. */
const wb_fact_value_type *wb_fact_value_of(const wb_fact *f);
/* The row of a fact's label as lesson.yaml and reports write it ("gpu_us", "api_calls.cudaMemcpy"),
 * its key in *key when keyed (key may be NULL); NULL when the label is no fact. */
const wb_fact_kind_info *wb_fact_kind_of_label(const char *label, const char **key);
/* The value type named name ("count", "time", "bound"), NULL when none is. */
const wb_fact_value_type *wb_fact_value_named(const char *name);

#endif
