/* json_stream.c: see json_stream.h. */
#include "json_stream.h"
#include "i18n.h"

#include <string.h>

#define MAX_SKIP_DEPTH 2048 /* jansson's own nesting limit: deeper input is refused, never a stack overflow */

int json_syntax_error(json_cursor *c, size_t pos, const char *text) {
    /* line and column of pos, counted as jansson counts them (columns in UTF-8 characters); the
     * scan costs one pass over the text, once, on the way out */
    int line = 1, column = 1;
    for (size_t i = 0; i < pos && i < c->length; i++) {
        unsigned char b = (unsigned char)c->data[i];
        if (b == '\n') line++, column = 1;
        else if ((b & 0xC0) != 0x80) column++;
    }
    return wb_fail_at(c->err, WB_EXIT_INPUT, c->what, line, column,
                      _("not valid JSON: %s (the file is truncated or corrupt; re-record it)"), text);
}

static void skip_space(json_cursor *c) {
    while (c->pos < c->length && strchr(" \t\r\n", c->data[c->pos]) && c->data[c->pos]) c->pos++;
}

char json_peek(json_cursor *c) {
    skip_space(c);
    return c->pos < c->length ? c->data[c->pos] : 0;
}

json_t *json_next_value(json_cursor *c) {
    skip_space(c);
    if (c->pos >= c->length) {
        json_syntax_error(c, c->pos, _("unexpected end of input"));
        return NULL;
    }
    json_error_t jerr, again;
    const size_t flags = JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES;
    json_t *v = json_loadb(c->data + c->pos, c->length - c->pos, flags, &jerr);
    /* jansson reports a failed allocation as out of memory, with no reason, or (inside a string)
     * as a syntax error: a text that parses on a second try was fine, memory was short */
    json_t *retry = v ? NULL : json_loadb(c->data + c->pos, c->length - c->pos, flags, &again);
    if (!v && (json_error_code(&jerr) == json_error_out_of_memory || !jerr.text[0] || retry)) {
        json_decref(retry);
        wb_fail(c->err, WB_EXIT_INPUT, _("%s: out of memory while reading it; nothing was graded"), c->what);
        return NULL;
    }
    if (!v || jerr.position <= 0) {
        /* jerr.position counts from the value's first byte */
        json_syntax_error(c, c->pos + (jerr.position > 0 ? (size_t)jerr.position : 0), v ? _("value expected") : jerr.text);
        json_decref(v);
        return NULL;
    }
    c->pos += (size_t)jerr.position;
    return v;
}

static int expect_char(json_cursor *c, char want, const char *text) {
    if (json_peek(c) != want) return json_syntax_error(c, c->pos, text);
    c->pos++;
    return 0;
}

int json_walk_object(json_cursor *c, json_member_fn member, void *ctx) {
    if (expect_char(c, '{', _("'{' expected"))) return c->err->code;
    if (json_peek(c) == '}') {
        c->pos++;
        return 0;
    }
    for (;;) {
        if (json_peek(c) != '"') return json_syntax_error(c, c->pos, _("string or '}' expected"));
        json_t *k = json_next_value(c);
        if (!k) return c->err->code;
        char key[256];
        snprintf(key, sizeof key, "%s", json_string_value(k));
        json_decref(k);
        if (expect_char(c, ':', _("':' expected"))) return c->err->code;
        int rc = member(c, key, ctx);
        if (rc) return rc;
        char next = json_peek(c);
        c->pos++;
        if (next == '}') return 0;
        if (next != ',') return json_syntax_error(c, c->pos - 1, _("',' or '}' expected"));
    }
}

int json_walk_array(json_cursor *c, json_item_fn item, void *ctx) {
    if (expect_char(c, '[', _("'[' expected"))) return c->err->code;
    if (json_peek(c) == ']') {
        c->pos++;
        return 0;
    }
    for (size_t i = 0;; i++) {
        int rc = item(c, i, ctx);
        if (rc) return rc;
        char next = json_peek(c);
        c->pos++;
        if (next == ']') return 0;
        if (next != ',') return json_syntax_error(c, c->pos - 1, _("',' or ']' expected"));
    }
}

static int skip_at(json_cursor *c, int depth);

static int skip_member(json_cursor *c, const char *key, void *ctx) {
    (void)key;
    return skip_at(c, *(int *)ctx);
}

static int skip_item(json_cursor *c, size_t index, void *ctx) {
    (void)index;
    return skip_at(c, *(int *)ctx);
}

static int skip_at(json_cursor *c, int depth) {
    char first = json_peek(c);
    if (first != '{' && first != '[') {
        json_t *v = json_next_value(c);
        json_decref(v);
        return v ? 0 : c->err->code;
    }
    if (depth >= MAX_SKIP_DEPTH) return json_syntax_error(c, c->pos, _("nested too deeply"));
    int inner = depth + 1;
    return first == '{' ? json_walk_object(c, skip_member, &inner) : json_walk_array(c, skip_item, &inner);
}

int json_skip_value(json_cursor *c) { return skip_at(c, 0); }

int json_expect_end(json_cursor *c) {
    if (json_peek(c) != 0 || c->pos < c->length) return json_syntax_error(c, c->pos, _("end of file expected"));
    return 0;
}
