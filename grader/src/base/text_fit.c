/* text_fit.c: see text_fit.h. */
#include "text_fit.h"
#include "term_clean.h"

#include <string.h>

size_t wb_columns(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80; /* continuation bytes take no column */
    return n;
}

static size_t columns_n(const char *s, size_t bytes) {
    size_t n = 0;
    for (size_t i = 0; i < bytes; i++) n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

static void newline(FILE *f, int indent) {
    fputc('\n', f);
    fprintf(f, "%*s", indent, "");
}

int wb_wrap_open(FILE *f, const char *text, int col, int indent, int width) {
    int fresh = 1;       /* nothing written on this line yet after its indent or the caller's prefix */
    int paragraph = 0;   /* a blank line was seen: the next word starts a new paragraph */
    const char *line = text;
    while (*line) {
        size_t len = strcspn(line, "\n");
        const char *end = line + len, *p = line;
        if (len == 0) {
            paragraph = !fresh || paragraph;
        } else {
            /* a line of its own: an item of a list or an indented (code) line */
            int own = line[0] == ' ' || ((line[0] == '-' || line[0] == '*') && line[1] == ' ');
            if (paragraph && !fresh) {
                fputc('\n', f);
                newline(f, indent);
                col = indent, fresh = 1;
            } else if (own && !fresh) {
                newline(f, indent);
                col = indent, fresh = 1;
            }
            paragraph = 0;
            if (own && line[0] == ' ') { /* keep the indentation of a code line */
                while (*p == ' ') p++;
                fprintf(f, "%.*s", (int)(p - line), line);
                col += (int)(p - line);
            }
            while (p < end) {
                while (p < end && *p == ' ') p++;
                if (p >= end) break;
                size_t bytes = 0;
                while (p + bytes < end && p[bytes] != ' ') bytes++;
                int n = (int)columns_n(p, bytes);
                if (!fresh && col + 1 + n > width) {
                    newline(f, indent);
                    col = indent, fresh = 1;
                } else if (fresh && col + n > width && col > indent) {
                    newline(f, indent);
                    col = indent;
                }
                if (!fresh) fputc(' ', f), col++;
                fprintf(f, "%.*s", (int)bytes, p);
                col += n, fresh = 0;
                p += bytes;
            }
        }
        line = *end ? end + 1 : end;
    }
    return col;
}

void wb_wrap(FILE *f, const char *text, int col, int indent, int width) {
    wb_wrap_open(f, text, col, indent, width);
    fputc('\n', f);
}

/* The byte offset at which column `col` of s starts. */
static size_t byte_of_column(const char *s, size_t col) {
    size_t i = 0;
    for (size_t c = 0; s[i] && c < col; c++) {
        i++;
        while (((unsigned char)s[i] & 0xC0) == 0x80) i++;
    }
    return i;
}

/* Index of the '(' that opens the parameter list ending name[n-1] == ')', or -1. */
static long parameter_list(const char *name, size_t n) {
    if (n == 0 || name[n - 1] != ')') return -1;
    int depth = 0;
    for (long i = (long)n - 1; i >= 0; i--) {
        if (name[i] == ')') depth++;
        else if (name[i] == '(' && --depth == 0) return i;
    }
    return -1;
}

static const char *fit(const char *name, size_t width, char *buf, size_t cap, int middle) {
    if (cap == 0) return buf;
    wb_term_clean(name, buf, cap); /* a name from a capture never sends control bytes to the terminal */
    if (wb_columns(buf) <= width) return buf;
    if (!strncmp(buf, "void ", 5)) memmove(buf, buf + 5, strlen(buf + 5) + 1);
    size_t n = strlen(buf);
    long open = parameter_list(buf, n);
    if (open >= 0 && (size_t)open + 2 < n && (size_t)open + 6 <= cap) strcpy(buf + open, "(...)");
    if (wb_columns(buf) <= width) return buf;
    /* cut out the middle, leaving room for "...": a kernel name's start says its family and its
     * end its variant (nvjet's layout letters _TNT, a _bias epilogue), so both stay */
    size_t cols = wb_columns(buf);
    if (width <= 3) {
        buf[0] = '\0';
        return buf;
    }
    size_t head = middle ? (width - 3 + 1) / 2 : width - 3, tail = width - 3 - head;
    size_t head_end = byte_of_column(buf, head), tail_start = byte_of_column(buf, cols - tail);
    memmove(buf + head_end + 3, buf + tail_start, strlen(buf + tail_start) + 1);
    memcpy(buf + head_end, "...", 3);
    return buf;
}

const char *wb_fit_name(const char *name, size_t width, char *buf, size_t cap) { return fit(name, width, buf, cap, 1); }

const char *wb_fit_name_start(const char *name, size_t width, char *buf, size_t cap) { return fit(name, width, buf, cap, 0); }
