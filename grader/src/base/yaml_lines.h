/*
 * yaml_lines.h: lines and columns counted exactly as libyaml counts them, so that a position the
 * YAML reader reported (a node's line and column) finds the same byte in the file.
 *
 * libyaml ends a line at \n, at \r\n (one break), at a lone \r, and at the Unicode breaks NEL
 * (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029), comments included; columns
 * count characters (one per UTF-8 sequence); a UTF-8 byte order mark at the start is not part of
 * line 1. Any code that turns a reported position into an offset, or an offset into a line, uses
 * these.
 */
#ifndef WB_YAML_LINES_H
#define WB_YAML_LINES_H

#include <stddef.h>

/* Bytes of the line break at p (left bytes remain), 0 when there is none. */
size_t wb_yaml_break_at(const char *p, size_t left);

/* The 1-based line of byte offset off. */
int wb_yaml_line_of(const char *text, size_t length, size_t off);

/* The byte offset of 1-based (line, column), or -1 when the text has no such position. */
long wb_yaml_offset_of(const char *text, size_t length, int line, int column);

#endif
