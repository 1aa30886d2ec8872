/* learner_files.c: see learner_files.h. */
#define _GNU_SOURCE
#include "learner_files.h"
#include "wb_base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A template is a few kilobytes; anything this large is not one. */
#define TEMPLATE_MAX (1 << 20)

void wb_template_path(const char *lesson_dir, char *buf, size_t cap) { snprintf(buf, cap, "%s/" WB_TEMPLATE_FILE, lesson_dir); }

void wb_learner_predictions_path(const char *lesson_dir, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/" WB_PREDICTIONS_FILE, lesson_dir);
}

int wb_predictions_to_read(const char *lesson_dir, char *buf, size_t cap) {
    wb_learner_predictions_path(lesson_dir, buf, cap);
    if (wb_file_exists(buf)) return 0;
    wb_template_path(lesson_dir, buf, cap);
    return wb_file_exists(buf) ? 0 : -1;
}

/* The template's bytes (malloc'd, NUL-terminated), through the one bounded reader (read_file.h). */
static char *read_template(const char *lesson_dir, size_t *length, wb_error *err) {
    char path[4200];
    wb_template_path(lesson_dir, path, sizeof path);
    if (!wb_file_exists(path)) {
        wb_fail(err, WB_EXIT_INPUT, _("%s: no predictions template in this lesson; an instructor makes it with: grader "
                  "template %s --write"), path, lesson_dir);
        return NULL;
    }
    char *text = NULL;
    if (wb_read_file(path, N_("predictions template"), TEMPLATE_MAX, &text, length, err)) return NULL;
    return text;
}

/* Writes data to path through path.partial and a rename: a reader sees the old file or the new
 * one, never half of one. exclusive: refuse when path exists (link instead of rename). */
static int write_whole(const char *path, const char *data, size_t n, int exclusive, wb_error *err) {
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write it: %s"), tmp, strerror(errno));
    ssize_t w = write(fd, data, n);
    int closed = close(fd);
    int rc = w == (ssize_t)n && closed == 0 ? 0 : -1;
    if (!rc && exclusive) {
        rc = link(tmp, path);
        if (rc && errno == EEXIST) {
            unlink(tmp);
            return wb_fail(err, WB_EXIT_INPUT, _("%s: exists already; it is left as it is"), path);
        }
        if (!rc) unlink(tmp);
    } else if (!rc) {
        rc = rename(tmp, path);
    }
    if (rc) {
        int e = errno;
        unlink(tmp);
        return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write it: %s"), path, strerror(e));
    }
    return 0;
}

int wb_learner_predictions(const char *lesson_dir, char *buf, size_t cap, int *created, wb_error *err) {
    *created = 0;
    wb_learner_predictions_path(lesson_dir, buf, cap);
    if (wb_file_exists(buf)) return 0;
    size_t n = 0;
    char *text = read_template(lesson_dir, &n, err);
    if (!text) return err->code;
    int rc = write_whole(buf, text, n, 1, err);
    free(text);
    if (!rc) *created = 1;
    return rc;
}

int wb_is_untouched_template(const char *path) {
    char dir[4200], template_path[4300];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    wb_template_path(dir, template_path, sizeof template_path);
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    wb_error ignored = {0};
    int same = wb_file_exists(template_path) && !wb_read_file(path, N_("predictions file"), TEMPLATE_MAX, &a, &na, &ignored) &&
               !wb_read_file(template_path, N_("predictions template"), TEMPLATE_MAX, &b, &nb, &ignored) && na == nb &&
               !memcmp(a, b, na);
    free(a);
    free(b);
    return same;
}

int wb_backup_path(const char *path, char *buf, size_t cap) {
    snprintf(buf, cap, "%s.bak", path);
    for (int k = 2; wb_file_exists(buf); k++) {
        if (k >= 10000) return -1;
        snprintf(buf, cap, "%s.bak.%d", path, k);
    }
    return 0;
}

int wb_learner_reset(const char *lesson_dir, char *backup, size_t backup_cap, wb_error *err) {
    char path[4200];
    backup[0] = '\0';
    wb_learner_predictions_path(lesson_dir, path, sizeof path);
    size_t n = 0;
    char *text = read_template(lesson_dir, &n, err); /* first: without a template, change nothing */
    if (!text) return err->code;
    int rc = 0;
    if (wb_file_exists(path) && !wb_is_untouched_template(path)) {
        /* link, not rename: a backup that appeared meanwhile is never replaced, and the learner's
         * file stays in place until its copy exists */
        char bak[4300];
        if (wb_backup_path(path, bak, sizeof bak) != 0 || link(path, bak) != 0)
            rc = wb_fail(err, WB_EXIT_INPUT, _("%s: cannot keep a backup (%s); nothing was changed"), path, strerror(errno));
        else
            snprintf(backup, backup_cap, "%s", bak);
    }
    if (!rc) rc = write_whole(path, text, n, 0, err);
    free(text);
    return rc;
}
