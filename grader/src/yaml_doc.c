/*
 * yaml_doc.c: see yaml_doc.h.
 *
 * The whole file is read into memory first, so that the checks libyaml does not make (empty,
 * binary, too large) come before parsing, and so that predictions_edit.c can rewrite values at
 * the positions the parser reports.
 */
#include "yaml_doc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_whole_file(const char *path, const char *what, char **text, size_t *length, wb_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return wb_fail(err, WB_EXIT_INPUT, "%s: no such %s. Check the path%s", path, what,
                           strstr(what, "prediction") ? ", or copy the lesson's predictions.template.yaml" : "");
        return wb_fail(err, WB_EXIT_INPUT, "%s: cannot open the %s: %s", path, what, strerror(errno));
    }
    char *buf = malloc(WB_YAML_MAX_BYTES + 2);
    if (!buf) {
        fclose(f);
        return wb_fail(err, WB_EXIT_INPUT, "%s: out of memory reading the %s", path, what);
    }
    size_t n = fread(buf, 1, WB_YAML_MAX_BYTES + 1, f);
    int read_error = ferror(f);
    fclose(f);
    if (read_error) {
        free(buf);
        return wb_fail(err, WB_EXIT_INPUT, "%s: cannot read the %s (is it a directory?)", path, what);
    }
    if (n > WB_YAML_MAX_BYTES) {
        free(buf);
        return wb_fail(err, WB_EXIT_INPUT, "%s: the %s is larger than %u bytes; is it the right file?", path,
                       what, WB_YAML_MAX_BYTES);
    }
    buf[n] = '\0';
    *text = buf;
    *length = n;
    return 0;
}

/* Line (1-based) of byte offset off in text. */
static int line_of_offset(const char *text, size_t off) {
    int line = 1;
    for (size_t i = 0; i < off; i++)
        if (text[i] == '\n') line++;
    return line;
}

static int check_text(const char *path, const char *what, const char *text, size_t length, wb_error *err) {
    const char *nul = memchr(text, '\0', length);
    if (nul)
        return wb_fail_at(err, WB_EXIT_INPUT, path, line_of_offset(text, (size_t)(nul - text)), 0,
                          "the %s is not a text file (it holds a NUL byte); expected YAML", what);
    int has_content = 0;
    for (size_t i = 0; i < length && !has_content;) {
        /* skip blank space and whole comment lines */
        if (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n') { i++; continue; }
        if (text[i] == '#') { while (i < length && text[i] != '\n') i++; continue; }
        if (strncmp(text + i, "---", 3) == 0 || strncmp(text + i, "...", 3) == 0) { i += 3; continue; }
        has_content = 1;
    }
    if (!has_content)
        return wb_fail(err, WB_EXIT_INPUT, "%s: the %s is empty; expected YAML (see docs/predictions.md)", path, what);
    return 0;
}

int wb_yaml_load_buffer(const char *path, const char *what, const char *data, size_t length, wb_yaml *y,
                        wb_error *err) {
    memset(y, 0, sizeof *y);
    y->path = strdup(path);
    y->text = malloc(length + 1);
    if (!y->path || !y->text) return wb_fail(err, WB_EXIT_INPUT, "%s: out of memory", path);
    memcpy(y->text, data, length);
    y->text[length] = '\0';
    y->length = length;
    if (check_text(path, what, y->text, length, err)) return err->code;

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return wb_fail(err, WB_EXIT_INPUT, "%s: cannot start the YAML parser", path);
    yaml_parser_set_input_string(&parser, (const unsigned char *)y->text, length);
    int rc = 0;
    if (!yaml_parser_load(&parser, &y->doc)) {
        const char *problem = parser.problem ? parser.problem : "unknown error";
        if (parser.context)
            rc = wb_fail_at(err, WB_EXIT_INPUT, path, (int)parser.problem_mark.line + 1,
                            (int)parser.problem_mark.column + 1, "YAML syntax error in the %s: %s (%s, which began at line %d)",
                            what, problem, parser.context, (int)parser.context_mark.line + 1);
        else
            rc = wb_fail_at(err, WB_EXIT_INPUT, path, (int)parser.problem_mark.line + 1,
                            (int)parser.problem_mark.column + 1, "YAML syntax error in the %s: %s", what, problem);
        yaml_parser_delete(&parser);
        return rc;
    }
    y->loaded = 1;
    if (!yaml_document_get_root_node(&y->doc)) {
        rc = wb_fail(err, WB_EXIT_INPUT, "%s: the %s holds no YAML document", path, what);
    } else {
        yaml_document_t second;
        if (yaml_parser_load(&parser, &second)) {
            if (yaml_document_get_root_node(&second))
                rc = wb_fail_at(err, WB_EXIT_INPUT, path, (int)yaml_document_get_root_node(&second)->start_mark.line + 1, 0,
                                "the %s holds a second YAML document (after '---'); keep one", what);
            yaml_document_delete(&second);
        }
    }
    yaml_parser_delete(&parser);
    return rc;
}

int wb_yaml_load(const char *path, const char *what, wb_yaml *y, wb_error *err) {
    char *text = NULL;
    size_t length = 0;
    memset(y, 0, sizeof *y);
    if (read_whole_file(path, what, &text, &length, err)) return err->code;
    int rc = wb_yaml_load_buffer(path, what, text, length, y, err);
    free(text);
    return rc;
}

void wb_yaml_free(wb_yaml *y) {
    if (y->loaded) yaml_document_delete(&y->doc);
    free(y->path);
    free(y->text);
    memset(y, 0, sizeof *y);
}

yaml_node_t *wb_yaml_root(wb_yaml *y) { return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL; }
int wb_yaml_line(const yaml_node_t *n) { return n ? (int)n->start_mark.line + 1 : 0; }
int wb_yaml_column(const yaml_node_t *n) { return n ? (int)n->start_mark.column + 1 : 0; }

int wb_yaml_fail(wb_error *err, const wb_yaml *y, const yaml_node_t *n, const char *fmt, ...) {
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wb_fail_at(err, WB_EXIT_INPUT, y->path, wb_yaml_line(n), wb_yaml_column(n), "%s", msg);
}

static const char *node_kind(const yaml_node_t *n) {
    switch (n->type) {
    case YAML_SCALAR_NODE: return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "a plain value" : "a quoted string";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

const char *wb_yaml_scalar(const yaml_node_t *n) {
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int wb_yaml_is_null(const yaml_node_t *n) {
    if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
    const char *v = wb_yaml_scalar(n);
    return !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL") || !strcmp(v, "");
}

int wb_yaml_expect_sequence(wb_yaml *y, yaml_node_t *n, const char *what, wb_error *err) {
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return wb_yaml_fail(err, y, n, "%s must be a list (lines starting with '- '), found %s", what,
                            n ? node_kind(n) : "nothing");
    return 0;
}

int wb_yaml_expect_mapping(wb_yaml *y, yaml_node_t *n, const char *what, const char *const *allowed, wb_error *err) {
    if (!n || n->type != YAML_MAPPING_NODE)
        return wb_yaml_fail(err, y, n, "%s must be a mapping of 'key: value' lines, found %s", what,
                            n ? node_kind(n) : "nothing");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&y->doc, p->key);
        if (!k || k->type != YAML_SCALAR_NODE)
            return wb_yaml_fail(err, y, k, "%s: keys must be plain words, found %s", what, k ? node_kind(k) : "nothing");
        const char *key = wb_yaml_scalar(k);
        for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
            const char *earlier = wb_yaml_scalar(yaml_document_get_node(&y->doc, q->key));
            if (earlier && !strcmp(earlier, key))
                return wb_yaml_fail(err, y, k, "%s: key '%s' appears twice; keep one", what, key);
        }
        if (!allowed) continue;
        int known = 0;
        for (const char *const *a = allowed; *a; a++)
            if (!strcmp(*a, key)) known = 1;
        if (!known) {
            char list[512] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 1);
                if (a[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return wb_yaml_fail(err, y, k, "%s: unknown key '%s' (allowed: %s)", what, key, list);
        }
    }
    return 0;
}

yaml_node_t *wb_yaml_get(wb_yaml *y, yaml_node_t *n, const char *key) {
    if (!n || n->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *k = wb_yaml_scalar(yaml_document_get_node(&y->doc, p->key));
        if (k && !strcmp(k, key)) return yaml_document_get_node(&y->doc, p->value);
    }
    return NULL;
}

int wb_yaml_string(wb_yaml *y, yaml_node_t *n, const char *what, char **out, wb_error *err) {
    if (!n || n->type != YAML_SCALAR_NODE || wb_yaml_is_null(n))
        return wb_yaml_fail(err, y, n, "%s must be a non-empty text, found %s", what,
                            !n ? "nothing" : wb_yaml_is_null(n) ? "~ (empty)" : node_kind(n));
    *out = strdup(wb_yaml_scalar(n));
    return *out ? 0 : wb_yaml_fail(err, y, n, "out of memory");
}

int wb_yaml_count(wb_yaml *y, yaml_node_t *n, const char *what, int allow_null, int *out, wb_error *err) {
    if (allow_null && wb_yaml_is_null(n)) {
        *out = -1;
        return 0;
    }
    if (!n || n->type != YAML_SCALAR_NODE)
        return wb_yaml_fail(err, y, n, "%s must be a whole number%s, found %s", what, allow_null ? " or ~" : "",
                            n ? node_kind(n) : "nothing");
    const char *v = wb_yaml_scalar(n);
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return wb_yaml_fail(err, y, n, "%s must be a whole number%s, found the quoted string \"%s\"; remove the quotes",
                            what, allow_null ? " or ~" : "", v);
    if (v[0] == '-' && v[1] >= '0' && v[1] <= '9')
        return wb_yaml_fail(err, y, n, "%s is %s, but counts cannot be negative", what, v);
    size_t len = strlen(v);
    int digits = len > 0;
    for (size_t i = 0; i < len; i++)
        if (v[i] < '0' || v[i] > '9') digits = 0;
    if (!digits)
        return wb_yaml_fail(err, y, n, "%s must be a whole number%s, found '%s'", what, allow_null ? " or ~" : "", v);
    if (len > 7 || atol(v) > WB_YAML_MAX_COUNT)
        return wb_yaml_fail(err, y, n, "%s is %s, more than %d; no lesson comes near that: check the number", what,
                            v, WB_YAML_MAX_COUNT);
    *out = atoi(v);
    return 0;
}

int wb_yaml_decimal(wb_yaml *y, yaml_node_t *n, const char *what, int allow_null, double max, double *out, int *null_out,
                    wb_error *err) {
    *null_out = 0;
    if (allow_null && wb_yaml_is_null(n)) {
        *null_out = 1;
        return 0;
    }
    if (!n || n->type != YAML_SCALAR_NODE)
        return wb_yaml_fail(err, y, n, "%s must be a number%s, found %s", what, allow_null ? " or ~" : "", n ? node_kind(n) : "nothing");
    const char *v = wb_yaml_scalar(n);
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return wb_yaml_fail(err, y, n, "%s must be a number%s, found the quoted string \"%s\"; remove the quotes", what,
                            allow_null ? " or ~" : "", v);
    if (v[0] == '-' && ((v[1] >= '0' && v[1] <= '9') || v[1] == '.'))
        return wb_yaml_fail(err, y, n, "%s is %s, but it cannot be negative", what, v);
    size_t len = strlen(v), digits = 0, dots = 0;
    for (size_t i = 0; i < len; i++) {
        if (v[i] >= '0' && v[i] <= '9') digits++;
        else if (v[i] == '.') dots++;
        else digits = 0, dots = 2, i = len; /* anything else: not a number */
    }
    if (digits == 0 || dots > 1 || len > 16)
        return wb_yaml_fail(err, y, n, "%s must be a number like 180 or 40.5%s, found '%s'", what, allow_null ? " (or ~)" : "", v);
    double d = strtod(v, NULL);
    if (d > max) return wb_yaml_fail(err, y, n, "%s is %s, more than %g: check the number and its unit", what, v, max);
    *out = d;
    return 0;
}

int wb_is_slug(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 64) return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-')) return 0;
    return 1;
}
