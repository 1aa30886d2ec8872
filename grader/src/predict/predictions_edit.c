/*
 * predictions_edit.c: see predictions_edit.h. The write is crash-safe: the backup is complete and
 * on disk before the file is touched, the new text goes to a temporary file of this process
 * (same folder, same mode), on disk before it replaces the file by a rename, and the folder is
 * synced after it. A kill at any point leaves the old file or the new one, whole.
 */
#define _GNU_SOURCE
#include "predictions_edit.h"
#include "wb_base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Length of the null token at p: "~", "null", "Null", "NULL", or 0 for an empty value. -1 when
 * something else is there (the file changed since it was read). */
static long null_token_length(const char *p, size_t left) {
    static const char *const tokens[] = {"~", "null", "Null", "NULL"};
    for (size_t t = 0; t < 4; t++) {
        size_t n = strlen(tokens[t]);
        if (left >= n && !strncmp(p, tokens[t], n) && (left == n || strchr(" \t#,}]", p[n]) || wb_yaml_break_at(p + n, left - n)))
            return (long)n;
    }
    if (left == 0 || *p == '#' || wb_yaml_break_at(p, left)) return 0;
    return -1;
}

typedef struct { long offset, length; int value; const char *text; } edit_span;

static int edit_span_cmp(const void *a, const void *b) {
    long x = ((const edit_span *)a)->offset, y = ((const edit_span *)b)->offset;
    return (x > y) - (x < y);
}

char *wb_predictions_fill_text(const char *path, const char *text, size_t length, const wb_answer_edit *edits, size_t n,
                               wb_error *err) {
    edit_span *s = calloc(n + 1, sizeof *s);
    if (!s) return wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory")), NULL;
    for (size_t i = 0; i < n; i++) {
        long off = wb_yaml_offset_of(text, length, edits[i].line, edits[i].column);
        long len = off >= 0 ? null_token_length(text + off, length - (size_t)off) : -1;
        if (len < 0) {
            free(s);
            wb_fail_at(err, WB_EXIT_INPUT, path, edits[i].line, edits[i].column,
                       "%s", _("expected ~ here; the file changed while the grader was asking. Nothing was written"));
            return NULL;
        }
        s[i] = (edit_span){off, len, edits[i].value, edits[i].text[0] ? edits[i].text : NULL};
    }
    qsort(s, n, sizeof *s, edit_span_cmp);
    size_t cap = length + n * 20 + 1, out_len = 0;
    char *out = malloc(cap);
    if (!out) {
        free(s);
        return wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory")), NULL;
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

/* ---- writing --------------------------------------------------------------------------------- */

static int write_all(int fd, const char *data, size_t n) {
    for (size_t done = 0; done < n;) {
        ssize_t w = write(fd, data + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        done += (size_t)w;
    }
    return 0;
}

/* The temporary file in two halves, with a kill point between them (a torn write). */
static int write_halves(int fd, const char *data, size_t n) {
    if (write_all(fd, data, n / 2)) return -1;
    wb_kill_point("predictions", 4);
    return write_all(fd, data + n / 2, n - n / 2);
}

static int sync_dir_of(const char *file) {
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", file);
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* A new file named base, base.2, base.3, ... (never one that exists), with the given mode. */
static int create_new(const char *base, const char *sep, mode_t mode, char *name, size_t cap) {
    for (int k = 1; k < 10000; k++) {
        if (k == 1) snprintf(name, cap, "%s", base);
        else snprintf(name, cap, "%s%s%d", base, sep, k);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0) {
            fchmod(fd, mode); /* the umask must not loosen or tighten it */
            return fd;
        }
        if (errno != EEXIST) return -1;
    }
    return -1;
}

int wb_predictions_fill(const char *path, const wb_answer_edit *edits, size_t n, int keep_backup, char *backup,
                        size_t backup_cap, wb_error *err) {
    /* a symlinked file is written where it points: the link stays a link */
    char target[PATH_MAX];
    if (!realpath(path, target)) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot reopen the predictions file to write answers"), path);
    /* Read again, through the reader's bound: the file the grader read may have changed since */
    struct stat st;
    size_t length = 0;
    char *text;
    wb_error read_err = {0};
    if (wb_read_file_and_stat(path, N_("predictions file"), WB_YAML_MAX_BYTES, &text, &length, &st, &read_err))
        return wb_fail(err, read_err.code, _("%s (reopened to write answers: nothing was written)"), read_err.message);
    char *updated = wb_predictions_fill_text(path, text, length, edits, n, err);
    if (!updated) {
        free(text);
        return err->code;
    }
    mode_t mode = st.st_mode & 07777;
    int rc = 0;
    /* 1. the backup, whole and on disk, before anything changes */
    char bak_base[PATH_MAX + 8], bak[PATH_MAX + 16] = "";
    int fd;
    if (keep_backup) {
        snprintf(bak_base, sizeof bak_base, "%s.bak", path);
        fd = create_new(bak_base, ".", mode, bak, sizeof bak);
        wb_kill_point("predictions", 1);
        if (fd < 0 || write_all(fd, text, length) || fsync(fd)) {
            if (fd >= 0) close(fd), unlink(bak);
            rc = wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the backup %s; nothing was changed"), path, bak);
            goto out;
        }
        close(fd);
    }
    wb_kill_point("predictions", 2);
    /* 2. the new text in a temporary file of this process, next to the target */
    char tmp_base[PATH_MAX + 40], tmp[PATH_MAX + 60];
    snprintf(tmp_base, sizeof tmp_base, "%s.partial.%ld", target, (long)getpid());
    fd = create_new(tmp_base, "-", mode, tmp, sizeof tmp);
    wb_kill_point("predictions", 3);
    size_t updated_length = strlen(updated);
    if (fd < 0 || write_halves(fd, updated, updated_length) || (wb_kill_point("predictions", 5), fsync(fd))) {
        if (fd >= 0) close(fd), unlink(tmp);
        rc = bak[0] ? wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the answers (is the disk full?); your file is unchanged, and kept as %s"),
                              path, bak)
                    : wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the answers (is the disk full?); your file is unchanged"), path);
        goto out;
    }
    close(fd);
    wb_kill_point("predictions", 6);
    /* 3. the switch, then the folder on disk */
    if (rename(tmp, target) != 0) {
        unlink(tmp);
        rc = bak[0] ? wb_fail(err, WB_EXIT_INPUT, _("%s: cannot replace the file with the answers; it is unchanged, and kept as %s"),
                              path, bak)
                    : wb_fail(err, WB_EXIT_INPUT, _("%s: cannot replace the file with the answers; it is unchanged"), path);
        goto out;
    }
    wb_kill_point("predictions", 7);
    sync_dir_of(target);
    wb_kill_point("predictions", 8);
    if (backup) snprintf(backup, backup_cap, "%s", bak);
out:
    free(text);
    free(updated);
    return rc;
}

int wb_predictions_leftover(const char *path, char *found, size_t cap) {
    char target[PATH_MAX], dir[PATH_MAX], base[PATH_MAX];
    if (!realpath(path, target)) return 0;
    snprintf(dir, sizeof dir, "%s", target);
    snprintf(base, sizeof base, "%s.partial", basename(target));
    DIR *d = opendir(dirname(dir));
    if (!d) return 0;
    int count = 0;
    size_t n = strlen(base);
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, base, n) && (e->d_name[n] == '\0' || e->d_name[n] == '.')) {
            if (!count++) snprintf(found, cap, "%s/%s", dir, e->d_name);
        }
    closedir(d);
    return count;
}
