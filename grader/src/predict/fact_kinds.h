/*
 * fact_kinds.h: every kind of fact a prediction can hold, one row each of one table
 * (fact_kinds.c), as main.c lists the commands. A row says the kind's name in the predictions
 * file, whether it is a map of keys (kernels_named: {gelu: 1}), how it is compared, how a key is
 * validated, how it is counted in one occurrence of a range, and how it is asked at the prompt.
 * The predictions reader, the grading and `grader check`'s questions loop over the table; each
 * family of kinds keeps its functions in one file (facts_kernels.c, facts_api.c, facts_copies.c,
 * facts_streams.c, facts_time.c). docs/fact-kinds.md shows how to add one.
 */
#ifndef WB_FACT_KINDS_H
#define WB_FACT_KINDS_H

#include "predictions.h"
#include "wb_capture.h"

#include <stddef.h>

/* How a fact's value is written, asked and compared. */
typedef enum {
    WB_FACT_VALUE_COUNT, /* a whole number, right when equal on every occurrence */
    WB_FACT_VALUE_TIME,  /* microseconds, right within a tolerance of the median occurrence (time_facts.h) */
    WB_FACT_VALUE_BOUND, /* a wb_bound by name, right when every occurrence has it */
} wb_fact_value;

typedef struct {
    wb_fact_kind kind;
    const char *name;    /* its key in a prediction: "kernels", "api_calls" */
    int keyed;           /* 1: a map KEY: value, each key its own fact ("api_calls.cudaLaunchKernel") */
    wb_fact_value value;
    /* keyed kinds: 0 when key is valid, else -1 with the reason in why (NULL: every key is) */
    int (*check_key)(const char *key, char *why, size_t cap);
    /* the actual value in one occurrence, -1 when out of memory (NULL: graded from the range's
     * times by grade.c, as gpu_us, wall_us and bound are) */
    long (*count)(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
    /* the question `grader check` asks for an open (~) value of this fact in range */
    void (*describe)(const wb_fact *f, const char *range, char *buf, size_t cap);
} wb_fact_kind_info;

/* The table, in the order facts are read and reported; *n rows. */
const wb_fact_kind_info *wb_fact_kinds(size_t *n);
/* The row of kind (every wb_fact_kind has one). */
const wb_fact_kind_info *wb_fact_kind_get(wb_fact_kind kind);

#endif
