/*
 * json_stream.h: walks a large JSON text one value at a time, so that a 200 MB capture is never
 * held as one jansson tree (a tree costs about 15 bytes of memory per byte of JSON).
 *
 * The walker handles only the structure of the objects and lists it is asked to enter ({, }, [,
 * ], commas and colons); every value inside them (a key, a number, one record of a list) is parsed
 * by jansson on its own and can be freed at once. Syntax errors carry the line and column in the
 * whole text.
 *
 *   json_cursor cur = {text, length, 0, "file.json", err};
 *   json_walk_object(&cur, member, ctx);   // member(cur, key, ctx) must consume the value
 */
#ifndef WB_JSON_STREAM_H
#define WB_JSON_STREAM_H

#include "error.h"

#include <jansson.h>
#include <stddef.h>

typedef struct {
    const char *data;
    size_t length, pos;   /* the text and how far the walk has got */
    const char *what;     /* the file, for messages */
    wb_error *err;
} json_cursor;

/* The next value as a jansson tree (NULL with err set on a syntax error). */
json_t *json_next_value(json_cursor *c);
/* Skips the next value without keeping it; objects and lists are walked, so memory stays small. */
int json_skip_value(json_cursor *c);
/* The first non-space character at the cursor, or 0 at the end. */
char json_peek(json_cursor *c);

typedef int (*json_member_fn)(json_cursor *c, const char *key, void *ctx);
typedef int (*json_item_fn)(json_cursor *c, size_t index, void *ctx);
/* Calls member for each key of the object at the cursor (keys longer than 255 bytes arrive cut);
 * duplicate keys are the callback's business. Returns the first non-zero result. */
int json_walk_object(json_cursor *c, json_member_fn member, void *ctx);
/* Calls item for each entry of the list at the cursor; item consumes it. */
int json_walk_array(json_cursor *c, json_item_fn item, void *ctx);
/* After the whole text: only white space may follow. */
int json_expect_end(json_cursor *c);

/* A syntax error at the cursor (or pos), as "file:line:column: not valid JSON: ..." (exit 2). */
int json_syntax_error(json_cursor *c, size_t pos, const char *text);

#endif
