/* predictions_edit.c: see predictions_edit.h. */
#include "predictions_edit.h"
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Byte offset of (line, column), columns counted in characters as libyaml counts them (one per
 * UTF-8 character). -1 when the file has no such position. */
static long offset_of(const char *text, size_t length, int line, int column) {
    size_t i = 0;
    for (int l = 1; l < line; l++) {
        while (i < length && text[i] != '\n') i++;
        if (i >= length) return -1;
        i++;
    }
    for (int c = 1; c < column; c++) {
        if (i >= length || text[i] == '\n') return -1;
        i++;
        while (i < length && ((unsigned char)text[i] & 0xC0) == 0x80) i++; /* continuation bytes */
    }
    return (long)i;
}

/* Length of the null token at p: "~", "null", "Null", "NULL", or 0 for an empty value. -1 when
 * something else is there (the file changed since it was read). */
static long null_token_length(const char *p, size_t left) {
    static const char *const tokens[] = {"~", "null", "Null", "NULL"};
    for (size_t t = 0; t < 4; t++) {
        size_t n = strlen(tokens[t]);
        if (left >= n && !strncmp(p, tokens[t], n) && (left == n || strchr(" \t\r\n#,}]", p[n]))) return (long)n;
    }
    if (left == 0 || strchr("\r\n#", *p)) return 0;
    return -1;
}

typedef struct { long offset, length; int value; const char *text; } splice;

static int splice_cmp(const void *a, const void *b) {
    long x = ((const splice *)a)->offset, y = ((const splice *)b)->offset;
    return (x > y) - (x < y);
}

char *wb_predictions_fill_text(const char *path, const char *text, size_t length, const wb_answer_edit *edits, size_t n,
                               wb_error *err) {
    splice *s = calloc(n + 1, sizeof *s);
    if (!s) return wb_fail(err, WB_EXIT_INPUT, "out of memory"), NULL;
    for (size_t i = 0; i < n; i++) {
        long off = offset_of(text, length, edits[i].line, edits[i].column);
        long len = off >= 0 ? null_token_length(text + off, length - (size_t)off) : -1;
        if (len < 0) {
            free(s);
            wb_fail_at(err, WB_EXIT_INPUT, path, edits[i].line, edits[i].column,
                       "expected ~ here; the file changed while the grader was asking. Nothing was written");
            return NULL;
        }
        s[i] = (splice){off, len, edits[i].value, edits[i].text[0] ? edits[i].text : NULL};
    }
    qsort(s, n, sizeof *s, splice_cmp);
    size_t cap = length + n * 20 + 1, out_len = 0;
    char *out = malloc(cap);
    if (!out) {
        free(s);
        return wb_fail(err, WB_EXIT_INPUT, "out of memory"), NULL;
    }
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(out + out_len, text + pos, (size_t)s[i].offset - pos);
        out_len += (size_t)s[i].offset - pos;
        /* an empty value follows "key:" directly: keep a space before the number */
        int need_space = s[i].length == 0 && s[i].offset > 0 && text[s[i].offset - 1] == ':';
        if (s[i].text)
            out_len += (size_t)snprintf(out + out_len, cap - out_len, "%s%.15s", need_space ? " " : "", s[i].text);
        else
            out_len += (size_t)snprintf(out + out_len, cap - out_len, "%s%d", need_space ? " " : "", s[i].value);
        pos = (size_t)(s[i].offset + s[i].length);
    }
    memcpy(out + out_len, text + pos, length - pos);
    out_len += length - pos;
    out[out_len] = '\0';
    free(s);
    return out;
}

static int copy_bytes(const char *path, const char *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, n, f);
    int rc = fclose(f);
    return w == n && rc == 0 ? 0 : -1;
}

int wb_predictions_fill(const char *path, const wb_answer_edit *edits, size_t n, char *backup, size_t backup_cap,
                        wb_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return wb_fail(err, WB_EXIT_INPUT, "%s: cannot reopen the predictions file to write answers", path);
    char *text = malloc(1 << 21);
    size_t length = text ? fread(text, 1, (1 << 21) - 1, f) : 0;
    fclose(f);
    if (!text) return wb_fail(err, WB_EXIT_INPUT, "out of memory");
    text[length] = '\0';
    char *updated = wb_predictions_fill_text(path, text, length, edits, n, err);
    if (!updated) {
        free(text);
        return err->code;
    }
    /* backup first: never lose what the learner wrote */
    char bak[4200];
    snprintf(bak, sizeof bak, "%s.bak", path);
    for (int k = 2; wb_file_exists(bak) && k < 10000; k++) snprintf(bak, sizeof bak, "%s.bak.%d", path, k);
    int rc = 0;
    if (copy_bytes(bak, text, length) != 0) {
        rc = wb_fail(err, WB_EXIT_INPUT, "%s: cannot write the backup %s; nothing was changed", path, bak);
    } else {
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.partial", path);
        if (copy_bytes(tmp, updated, strlen(updated)) != 0 || rename(tmp, path) != 0)
            rc = wb_fail(err, WB_EXIT_INPUT, "%s: cannot write the answers (the backup %s holds your file)", path, bak);
        else if (backup)
            snprintf(backup, backup_cap, "%s", bak);
    }
    free(text);
    free(updated);
    return rc;
}
