/*
 * yaml_doc.h: a YAML file loaded with libyaml's document API, with the checks every grader input
 * needs: missing, empty, binary or oversized files; syntax errors with line and column; unknown
 * and duplicate keys; scalars of the wrong type. Every error names the file and the position.
 */
#ifndef WB_YAML_DOC_H
#define WB_YAML_DOC_H

#include "error.h"

#include <yaml.h>

/* Bounds on every YAML input (predictions, lesson.yaml, answer keys; docs/limits.md).
 * They are hand-written files of a few hundred values; the bounds keep the cost of reading a
 * hostile one to milliseconds and a few MB (libyaml's scanner is quadratic in nesting depth, and
 * duplicate-key checks in the number of keys). Each refusal is exit 2 with file, line and column. */
#define WB_YAML_MAX_BYTES (1u << 20) /* 1 MiB */
#define WB_YAML_MAX_DEPTH 32L        /* lists and mappings inside each other */
#define WB_YAML_MAX_KEYS 1000L       /* keys in one mapping */
#define WB_YAML_MAX_ITEMS 10000L     /* entries in one list */
#define WB_YAML_MAX_NODES 200000L    /* values in the file, an alias counting as the values it repeats */
#define WB_YAML_MAX_ANCHORS 1000L    /* &name definitions */

typedef struct {
    char *path;
    char *text;       /* the file's bytes, NUL-terminated */
    size_t length;
    yaml_document_t doc;
    int loaded;
    long regex_size;  /* expanded size of the re: patterns read so far (regex_limits.h) */
} wb_yaml;

/* Loads path. what ("predictions file", "lesson.yaml", ...) goes into messages. Errors: exit 2. */
int wb_yaml_load(const char *path, const char *what, wb_yaml *y, wb_error *err);
/* Same from a buffer in memory (tests, fuzzing); path is only used in messages. */
int wb_yaml_load_buffer(const char *path, const char *what, const char *data, size_t length, wb_yaml *y,
                        wb_error *err);
void wb_yaml_free(wb_yaml *y);

/* The 1-based line and column of byte offset in text, counting line breaks as libyaml does
 * (\r\n, \r, \n, U+0085, U+2028, U+2029) and columns in characters: one rule for the reader's
 * messages and for editors that rewrite values at positions the parser reported. */
void wb_yaml_position(const char *text, size_t length, size_t offset, int *line, int *column);

yaml_node_t *wb_yaml_root(wb_yaml *y);
int wb_yaml_line(const yaml_node_t *n);   /* 1-based */
int wb_yaml_column(const yaml_node_t *n); /* 1-based */

/* An error at node n: "path:line:col: message". Returns WB_EXIT_INPUT. */
int wb_yaml_fail(wb_error *err, const wb_yaml *y, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The node must be a mapping whose keys are plain strings from allowed (NULL-terminated), each
 * at most once. what names the mapping in messages ("prediction 'eager-kernels'"). */
int wb_yaml_expect_mapping(wb_yaml *y, yaml_node_t *n, const char *what, const char *const *allowed, wb_error *err);
int wb_yaml_expect_sequence(wb_yaml *y, yaml_node_t *n, const char *what, wb_error *err);

/* The value for key in mapping n, or NULL. */
yaml_node_t *wb_yaml_get(wb_yaml *y, yaml_node_t *n, const char *key);

/* ~, null, Null, NULL or an empty plain scalar. */
int wb_yaml_is_null(const yaml_node_t *n);

/* A scalar's text (not a copy; valid while y lives). */
const char *wb_yaml_scalar(const yaml_node_t *n);

/* A non-empty string scalar; *out is a malloc'd copy. */
int wb_yaml_string(wb_yaml *y, yaml_node_t *n, const char *what, char **out, wb_error *err);

/* A count: a plain decimal integer 0..WB_YAML_MAX_COUNT, or ~ (then *out = -1 when allow_null). */
#define WB_YAML_MAX_COUNT 1000000
int wb_yaml_count(wb_yaml *y, yaml_node_t *n, const char *what, int allow_null, int *out, wb_error *err);

/* A decimal number: plain digits with at most one '.', e.g. 180, 40.5, 0.25 (no sign, no
 * exponent), at most max; or ~ (then *null_out = 1 when allow_null). */
int wb_yaml_decimal(wb_yaml *y, yaml_node_t *n, const char *what, int allow_null, double max, double *out, int *null_out,
                    wb_error *err);

/* [a-z0-9-]+, at most 64 characters: ids and variant names. */
int wb_is_slug(const char *s);

#endif
