/*
 * yaml_doc.c: see yaml_doc.h.
 *
 * The whole file is read into memory first (read_file.c: regular files of at most 1 MiB), so that
 * the checks libyaml does not make (empty, binary, not UTF-8, too deep, too many keys) come before
 * parsing, and so that predictions_edit.c can rewrite values at the positions the parser reports.
 *
 * Messages are in the learner's language (i18n.h); `what` names the file ("predictions file",
 * marked N_ by the caller, translated here) or, in the node checks, a part of it the caller has
 * already put in words. libyaml's own words (its problem and context) stay English.
 */
#include "yaml_doc.h"
#include "i18n.h"
#include "read_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line breaks as libyaml counts them: \r\n, \r, \n, NEL (U+0085), LS (U+2028) and PS (U+2029).
 * Returns the byte length of the break at p (0 when none). */
static size_t line_break_at(const char *p, const char *end) {
    const unsigned char *u = (const unsigned char *)p;
    if (u[0] == '\r') return (p + 1 < end && u[1] == '\n') ? 2 : 1;
    if (u[0] == '\n') return 1;
    if (u[0] == 0xC2 && p + 1 < end && u[1] == 0x85) return 2;
    if (u[0] == 0xE2 && p + 2 < end && u[1] == 0x80 && (u[2] == 0xA8 || u[2] == 0xA9)) return 3;
    return 0;
}

void wb_yaml_position(const char *text, size_t length, size_t offset, int *line, int *column) {
    const char *p = text, *end = text + (offset < length ? offset : length);
    int l = 1, c = 1;
    while (p < end) {
        size_t br = line_break_at(p, text + length);
        if (br) {
            l++;
            c = 1;
            p += br;
            continue;
        }
        if (((unsigned char)*p & 0xC0) != 0x80) c++; /* columns count characters, not UTF-8 bytes */
        p++;
    }
    *line = l;
    *column = c;
}

/* The offset of the first byte that does not begin a well-formed UTF-8 character (no overlong
 * forms, no surrogates, nothing past U+10FFFF), or length. */
static size_t first_non_utf8(const char *text, size_t length) {
    const unsigned char *u = (const unsigned char *)text;
    size_t i = 0;
    while (i < length) {
        unsigned c = u[i];
        size_t n = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3 : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
        if (n == 0 || i + n > length) return i;
        for (size_t k = 1; k < n; k++)
            if ((u[i + k] & 0xC0) != 0x80) return i;
        if ((c == 0xE0 && u[i + 1] < 0xA0) || (c == 0xED && u[i + 1] > 0x9F) || (c == 0xF0 && u[i + 1] < 0x90) ||
            (c == 0xF4 && u[i + 1] > 0x8F))
            return i;
        i += n;
    }
    return length;
}

static int check_text(const char *path, const char *what, const char *text, size_t length, wb_error *err) {
    int line, column;
    const char *nul = memchr(text, '\0', length);
    if (nul) {
        wb_yaml_position(text, length, (size_t)(nul - text), &line, &column);
        return wb_fail_at(err, WB_EXIT_INPUT, path, line, column,
                          _("the %s is not a text file (it holds a NUL byte); expected YAML"), _(what));
    }
    size_t bad = first_non_utf8(text, length);
    if (bad < length) {
        wb_yaml_position(text, length, bad, &line, &column);
        return wb_fail_at(err, WB_EXIT_INPUT, path, line, column,
                          _("the %s is not UTF-8 text (byte 0x%02X here; Latin-1 perhaps): save it as UTF-8"), _(what),
                          (unsigned char)text[bad]);
    }
    int has_content = 0;
    for (size_t i = 0; i < length && !has_content;) {
        /* skip blank space and whole comment lines */
        if (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n') { i++; continue; }
        if (text[i] == '#') { while (i < length && text[i] != '\n') i++; continue; }
        if (strncmp(text + i, "---", 3) == 0 || strncmp(text + i, "...", 3) == 0) { i += 3; continue; }
        has_content = 1;
    }
    if (!has_content)
        return wb_fail(err, WB_EXIT_INPUT, _("%s: the %s is empty; expected YAML (see docs/predictions.md)"), path, _(what));
    return 0;
}

/* libyaml's error as "path:line:col: YAML syntax error ...". A reader error (bytes that are not
 * UTF-8) carries only a byte offset, which is turned into the line and column it falls on. */
static int parser_error(const yaml_parser_t *parser, const char *path, const char *what, const char *text, size_t length,
                        wb_error *err) {
    const char *problem = parser->problem ? parser->problem : _("unknown error");
    int line = (int)parser->problem_mark.line + 1, column = (int)parser->problem_mark.column + 1;
    if (parser->error == YAML_READER_ERROR) {
        wb_yaml_position(text, length, parser->problem_offset, &line, &column);
        return wb_fail_at(err, WB_EXIT_INPUT, path, line, column,
                          _("the %s is not UTF-8 text (%s, byte 0x%02X): save it as UTF-8"), _(what), problem,
                          (unsigned)parser->problem_value & 0xFF);
    }
    if (parser->error == YAML_MEMORY_ERROR)
        return wb_fail(err, WB_EXIT_INPUT, _("%s: out of memory parsing the %s"), path, _(what));
    if (parser->context)
        return wb_fail_at(err, WB_EXIT_INPUT, path, line, column, _("YAML syntax error in the %s: %s (%s, which began at line %d)"),
                          _(what), problem, parser->context, (int)parser->context_mark.line + 1);
    return wb_fail_at(err, WB_EXIT_INPUT, path, line, column, _("YAML syntax error in the %s: %s"), _(what), problem);
}

/* ---- the structure bounds (yaml_doc.h), checked on libyaml's events before any tree is built ---- */

typedef struct {
    char *name;
    long nodes; /* the anchored value's size in values, aliases inside it expanded */
} anchor;

typedef struct {
    int mapping;       /* else a sequence */
    long entries;      /* values in it so far (a mapping counts keys and values) */
    long nodes_before; /* nodes counted before it began */
    char *anchor;      /* its anchor, recorded when it ends */
} open_collection;

typedef struct {
    const char *path, *what;
    wb_error *err;
    open_collection stack[WB_YAML_MAX_DEPTH];
    int depth;
    long nodes;
    anchor *anchors;
    size_t n_anchors;
} structure;

static int structure_fail(structure *st, const yaml_mark_t *m, const char *fmt, long limit) {
    char msg[512];
    snprintf(msg, sizeof msg, fmt, limit);
    return wb_fail_at(st->err, WB_EXIT_INPUT, st->path, (int)m->line + 1, (int)m->column + 1, _("the %s %s (docs/limits.md)"),
                      _(st->what), msg);
}

static int remember_anchor(structure *st, const char *name, long nodes) {
    if (!name) return 0;
    if (st->n_anchors >= WB_YAML_MAX_ANCHORS) return -1;
    anchor *a = realloc(st->anchors, (st->n_anchors + 1) * sizeof *a);
    if (!a) return -1;
    st->anchors = a;
    a[st->n_anchors].name = strdup(name);
    a[st->n_anchors].nodes = nodes;
    st->n_anchors++;
    return 0;
}

static long anchor_nodes(const structure *st, const char *name) {
    for (size_t i = st->n_anchors; i-- > 0;) /* the latest definition of a name wins */
        if (st->anchors[i].name && !strcmp(st->anchors[i].name, name)) return st->anchors[i].nodes;
    return 1; /* undefined: libyaml's loader reports it */
}

/* Counts a value (nodes: its expanded size) into the collection it is in. */
static int count_value(structure *st, const yaml_event_t *e, long nodes) {
    st->nodes += nodes;
    if (st->nodes > WB_YAML_MAX_NODES)
        return structure_fail(st, &e->start_mark, _("holds more than %ld values (aliases count as the values they repeat)"),
                              WB_YAML_MAX_NODES);
    if (st->depth == 0) return 0;
    open_collection *c = &st->stack[st->depth - 1];
    c->entries++;
    if (c->mapping && c->entries > 2L * WB_YAML_MAX_KEYS)
        return structure_fail(st, &e->start_mark, _("has a mapping with more than %ld keys"), WB_YAML_MAX_KEYS);
    if (!c->mapping && c->entries > WB_YAML_MAX_ITEMS)
        return structure_fail(st, &e->start_mark, _("has a list with more than %ld entries"), WB_YAML_MAX_ITEMS);
    return 0;
}

static int structure_event(structure *st, const yaml_event_t *e) {
    switch (e->type) {
    case YAML_SCALAR_EVENT:
        if (count_value(st, e, 1)) return -1;
        if (e->data.scalar.anchor && remember_anchor(st, (const char *)e->data.scalar.anchor, 1))
            return structure_fail(st, &e->start_mark, _("defines more than %ld anchors (&name)"), WB_YAML_MAX_ANCHORS);
        return 0;
    case YAML_ALIAS_EVENT:
        return count_value(st, e, anchor_nodes(st, (const char *)e->data.alias.anchor));
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        if (count_value(st, e, 1)) return -1;
        if (st->depth == WB_YAML_MAX_DEPTH)
            return structure_fail(st, &e->start_mark, _("nests lists and mappings more than %ld deep"), WB_YAML_MAX_DEPTH);
        open_collection *c = &st->stack[st->depth++];
        c->mapping = e->type == YAML_MAPPING_START_EVENT;
        c->entries = 0;
        c->nodes_before = st->nodes - 1;
        const yaml_char_t *name = c->mapping ? e->data.mapping_start.anchor : e->data.sequence_start.anchor;
        c->anchor = name ? strdup((const char *)name) : NULL;
        return 0;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        if (st->depth == 0) return 0;
        open_collection *c = &st->stack[--st->depth];
        int rc = remember_anchor(st, c->anchor, st->nodes - c->nodes_before);
        free(c->anchor);
        c->anchor = NULL;
        if (rc) return structure_fail(st, &e->start_mark, _("defines more than %ld anchors (&name)"), WB_YAML_MAX_ANCHORS);
        return 0;
    }
    default:
        return 0;
    }
}

/* One pass over the events: refuses a document past the structure bounds as soon as it gets there,
 * so that 400,000 nested '[' cost microseconds, and reports syntax errors. */
static int check_structure(const char *path, const char *what, const char *text, size_t length, wb_error *err) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot start the YAML parser"), path);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, length);
    structure st = {.path = path, .what = what, .err = err};
    int rc = 0, done = 0;
    while (!done && !rc) {
        yaml_event_t e;
        if (!yaml_parser_parse(&parser, &e)) {
            rc = parser_error(&parser, path, what, text, length, err);
            break;
        }
        if (structure_event(&st, &e)) rc = err->code;
        done = e.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&e);
    }
    for (int i = 0; i < st.depth; i++) free(st.stack[i].anchor);
    for (size_t i = 0; i < st.n_anchors; i++) free(st.anchors[i].name);
    free(st.anchors);
    yaml_parser_delete(&parser);
    return rc;
}

int wb_yaml_load_buffer(const char *path, const char *what, const char *data, size_t length, wb_yaml *y,
                        wb_error *err) {
    memset(y, 0, sizeof *y);
    y->path = strdup(path);
    y->text = malloc(length + 1);
    if (!y->path || !y->text) return wb_fail(err, WB_EXIT_INPUT, _("%s: out of memory"), path);
    memcpy(y->text, data, length);
    y->text[length] = '\0';
    y->length = length;
    if (check_text(path, what, y->text, length, err)) return err->code;
    if (check_structure(path, what, y->text, length, err)) return err->code;

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot start the YAML parser"), path);
    yaml_parser_set_input_string(&parser, (const unsigned char *)y->text, length);
    int rc = 0;
    if (!yaml_parser_load(&parser, &y->doc)) {
        rc = parser_error(&parser, path, what, y->text, length, err);
        yaml_parser_delete(&parser);
        return rc;
    }
    y->loaded = 1;
    if (!yaml_document_get_root_node(&y->doc)) {
        rc = wb_fail(err, WB_EXIT_INPUT, _("%s: the %s holds no YAML document"), path, _(what));
    } else {
        yaml_document_t second;
        if (yaml_parser_load(&parser, &second)) {
            if (yaml_document_get_root_node(&second))
                rc = wb_fail_at(err, WB_EXIT_INPUT, path, (int)yaml_document_get_root_node(&second)->start_mark.line + 1, 0,
                                _("the %s holds a second YAML document (after '---'); keep one"), _(what));
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
    if (wb_read_file(path, what, WB_YAML_MAX_BYTES, &text, &length, err)) return err->code;
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
    case YAML_SCALAR_NODE: return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? _("a plain value") : _("a quoted string");
    case YAML_SEQUENCE_NODE: return _("a list");
    case YAML_MAPPING_NODE: return _("a mapping");
    default: return _("nothing");
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
        return wb_yaml_fail(err, y, n, _("%s must be a list (lines starting with '- '), found %s"), what,
                            n ? node_kind(n) : _("nothing"));
    return 0;
}

int wb_yaml_expect_mapping(wb_yaml *y, yaml_node_t *n, const char *what, const char *const *allowed, wb_error *err) {
    if (!n || n->type != YAML_MAPPING_NODE)
        return wb_yaml_fail(err, y, n, _("%s must be a mapping of 'key: value' lines, found %s"), what,
                            n ? node_kind(n) : _("nothing"));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&y->doc, p->key);
        if (!k || k->type != YAML_SCALAR_NODE)
            return wb_yaml_fail(err, y, k, _("%s: keys must be plain words, found %s"), what, k ? node_kind(k) : _("nothing"));
        const char *key = wb_yaml_scalar(k);
        for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
            const char *earlier = wb_yaml_scalar(yaml_document_get_node(&y->doc, q->key));
            if (earlier && !strcmp(earlier, key))
                return wb_yaml_fail(err, y, k, _("%s: key '%s' appears twice; keep one"), what, key);
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
            return wb_yaml_fail(err, y, k, _("%s: unknown key '%s' (allowed: %s)"), what, key, list);
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
        return wb_yaml_fail(err, y, n, _("%s must be a non-empty text, found %s"), what,
                            !n ? _("nothing") : wb_yaml_is_null(n) ? _("~ (empty)") : node_kind(n));
    *out = strdup(wb_yaml_scalar(n));
    return *out ? 0 : wb_yaml_fail(err, y, n, "%s", _("out of memory"));
}

int wb_yaml_count(wb_yaml *y, yaml_node_t *n, const char *what, int allow_null, int *out, wb_error *err) {
    if (allow_null && wb_yaml_is_null(n)) {
        *out = -1;
        return 0;
    }
    if (!n || n->type != YAML_SCALAR_NODE)
        return wb_yaml_fail(err, y, n, allow_null ? _("%s must be a whole number or ~, found %s") : _("%s must be a whole number, found %s"),
                            what, n ? node_kind(n) : _("nothing"));
    const char *v = wb_yaml_scalar(n);
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return wb_yaml_fail(err, y, n,
                            allow_null ? _("%s must be a whole number or ~, found the quoted string \"%s\"; remove the quotes")
                                       : _("%s must be a whole number, found the quoted string \"%s\"; remove the quotes"),
                            what, v);
    if (v[0] == '-' && v[1] >= '0' && v[1] <= '9')
        return wb_yaml_fail(err, y, n, _("%s is %s, but counts cannot be negative"), what, v);
    size_t len = strlen(v);
    int digits = len > 0;
    for (size_t i = 0; i < len; i++)
        if (v[i] < '0' || v[i] > '9') digits = 0;
    if (!digits)
        return wb_yaml_fail(err, y, n, allow_null ? _("%s must be a whole number or ~, found '%s'") : _("%s must be a whole number, found '%s'"),
                            what, v);
    if (len > 7 || atol(v) > WB_YAML_MAX_COUNT)
        return wb_yaml_fail(err, y, n, _("%s is %s, more than %d; no lesson comes near that: check the number"), what,
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
        return wb_yaml_fail(err, y, n, allow_null ? _("%s must be a number or ~, found %s") : _("%s must be a number, found %s"), what,
                            n ? node_kind(n) : _("nothing"));
    const char *v = wb_yaml_scalar(n);
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return wb_yaml_fail(err, y, n,
                            allow_null ? _("%s must be a number or ~, found the quoted string \"%s\"; remove the quotes")
                                       : _("%s must be a number, found the quoted string \"%s\"; remove the quotes"),
                            what, v);
    if (v[0] == '-' && ((v[1] >= '0' && v[1] <= '9') || v[1] == '.'))
        return wb_yaml_fail(err, y, n, _("%s is %s, but it cannot be negative"), what, v);
    size_t len = strlen(v), digits = 0, dots = 0;
    for (size_t i = 0; i < len; i++) {
        if (v[i] >= '0' && v[i] <= '9') digits++;
        else if (v[i] == '.') dots++;
        else digits = 0, dots = 2, i = len; /* anything else: not a number */
    }
    if (digits == 0 || dots > 1 || len > 16)
        return wb_yaml_fail(err, y, n,
                            allow_null ? _("%s must be a number like 180 or 40.5 (or ~), found '%s'")
                                       : _("%s must be a number like 180 or 40.5, found '%s'"),
                            what, v);
    double d = strtod(v, NULL);
    if (d > max) return wb_yaml_fail(err, y, n, _("%s is %s, more than %g: check the number and its unit"), what, v, max);
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
