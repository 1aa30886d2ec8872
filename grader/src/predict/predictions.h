/*
 * predictions.h: the core predictions schema (docs/predictions.md), read from the learner's file
 * and, with the same code, from the predictions lists of answer keys.
 *
 *   lesson: 03_mlp
 *   predictions:
 *     - id: eager-kernels       # [a-z0-9-]+, unique
 *       variant: eager          # required when the lesson has several variants
 *       range: mlp_fwd          # an NVTX range name
 *       rank: 0                 # multi-process lessons: facts of this rank only (default: all ranks)
 *       kernels: 5              # facts: a count, or ~ for "not predicted yet"
 *       gemms: 3
 *       kernels_named: {gelu: 1, "re:^nvjet": 3}
 *       api_calls: {cudaLaunchKernel: 2}
 *       memsets: 2
 *       memcpys: 0
 *       memcpys_named: {HtoD pageable: 8}  # copies by direction and memory (overlap.h)
 *       streams: 3              # distinct streams of the range's GPU work
 *       overlap_us: 400         # GPU time with two or more operations at once
 *       gpu_us: 180             # time facts (docs/predictions.md): microseconds, decimals allowed,
 *       wall_us: 40             #   right within the question's tolerance (default 25%)
 *       bound: memory           # overhead, memory or compute, by the grader's one rule
 */
#ifndef WB_PREDICTIONS_H
#define WB_PREDICTIONS_H

#include "wb_base.h"

#include <regex.h>

typedef enum {
    WB_FACT_KERNELS,
    WB_FACT_GEMMS,
    WB_FACT_MEMSETS,
    WB_FACT_MEMCPYS,
    WB_FACT_KERNELS_NAMED,
    WB_FACT_API_CALLS,
    WB_FACT_STREAMS,       /* streams and overlap: overlap.h */
    WB_FACT_MEMCPYS_NAMED,
    WB_FACT_OVERLAP_US,    /* time facts (this and the next two): microseconds, graded within a tolerance */
    WB_FACT_GPU_US,
    WB_FACT_WALL_US,
    WB_FACT_BOUND,    /* a wb_bound, graded exactly */
} wb_fact_kind;

/* Where a range's time goes (the rule: docs/predictions.md, time_facts.h). */
typedef enum { WB_BOUND_OVERHEAD, WB_BOUND_MEMORY, WB_BOUND_COMPUTE, WB_BOUND_COUNT } wb_bound;
const char *wb_bound_name(int bound); /* "overhead", ...; "?" when out of range */
int wb_bound_parse(const char *s);    /* -1 when s is no bound's name */

/* 1 for overlap_us, gpu_us and wall_us: values in microseconds (wb_fact.value), graded on the
 * median occurrence within a tolerance (time_facts.h) instead of exactly on every occurrence. */
int wb_fact_is_time(wb_fact_kind kind);

typedef struct {
    wb_fact_kind kind;
    char *key;        /* kernels_named: the text or "re:regex"; api_calls: the API name;
                         memcpys_named: the copy words; else NULL */
    char *label;      /* "kernels", "gemms", "kernels_named.gelu", "api_calls.cudaLaunchKernel" */
    int predicted;    /* -1 for ~; bound: a wb_bound; time facts: 0 once predicted (value holds it) */
    double value;     /* time facts: the predicted microseconds */
    int line, column; /* of the value, 1-based */
    regex_t regex;    /* kernels_named with "re:" keys */
    int has_regex;
} wb_fact;

typedef struct {
    char *id, *variant, *range; /* variant may be NULL */
    int rank;                   /* one rank's facts, or -1 (WB_ALL_RANKS): over every rank */
    wb_fact *facts;
    size_t n_facts;
    int line;
} wb_prediction;

typedef struct {
    char *path;
    char *lesson;
    wb_prediction *items;
    size_t n;
} wb_prediction_set;

/* Reads a predictions file. Errors (exit 2) name the file, line and column. */
int wb_predictions_load(const char *path, wb_prediction_set *out, wb_error *err);
int wb_predictions_load_buffer(const char *path, const char *data, size_t length, wb_prediction_set *out,
                               wb_error *err);
/* Reads a predictions list (a YAML sequence node) of an already loaded document: answer keys. */
int wb_predictions_from_node(wb_yaml *y, yaml_node_t *list, const char *what, wb_prediction_set *out, wb_error *err);
void wb_predictions_free(wb_prediction_set *s);

/* Number of facts still ~. */
size_t wb_predictions_open(const wb_prediction_set *s);
const wb_prediction *wb_predictions_find(const wb_prediction_set *s, const char *id);

/* A fact's predicted value as text: "5", "180.5", "memory", "~". */
const char *wb_fact_value_text(const wb_fact *f, char *buf, size_t cap);

/* Matching used by kernels_named: case-insensitive substring, or the regex for "re:" keys. */
int wb_fact_name_matches(const wb_fact *f, const char *kernel_name);

#endif
