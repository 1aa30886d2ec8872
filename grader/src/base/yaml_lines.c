/* yaml_lines.c: see yaml_lines.h (libyaml's scanner: IS_BREAK, IS_CRLF and SKIP_LINE). */
#include "yaml_lines.h"

size_t wb_yaml_break_at(const char *p, size_t left) {
    const unsigned char *u = (const unsigned char *)p;
    if (left == 0) return 0;
    if (u[0] == '\r') return left >= 2 && u[1] == '\n' ? 2 : 1;
    if (u[0] == '\n') return 1;
    if (left >= 2 && u[0] == 0xC2 && u[1] == 0x85) return 2;                                 /* NEL */
    if (left >= 3 && u[0] == 0xE2 && u[1] == 0x80 && (u[2] == 0xA8 || u[2] == 0xA9)) return 3; /* LS, PS */
    return 0;
}

static size_t bom_length(const char *text, size_t length) {
    const unsigned char *u = (const unsigned char *)text;
    return length >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF ? 3 : 0;
}

int wb_yaml_line_of(const char *text, size_t length, size_t off) {
    int line = 1;
    if (off > length) off = length;
    for (size_t i = bom_length(text, length); i < off;) {
        size_t b = wb_yaml_break_at(text + i, length - i);
        if (b) {
            line++;
            i += b;
        } else {
            i++;
        }
    }
    return line;
}

long wb_yaml_offset_of(const char *text, size_t length, int line, int column) {
    size_t i = bom_length(text, length);
    for (int l = 1; l < line; l++) {
        size_t b;
        while (i < length && !(b = wb_yaml_break_at(text + i, length - i))) i++;
        if (i >= length) return -1;
        i += b;
    }
    for (int c = 1; c < column; c++) {
        if (i >= length || wb_yaml_break_at(text + i, length - i)) return -1;
        i++;
        while (i < length && ((unsigned char)text[i] & 0xC0) == 0x80) i++; /* continuation bytes */
    }
    return (long)i;
}
