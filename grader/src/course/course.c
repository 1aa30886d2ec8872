/* course.c: see course.h. */
#define _GNU_SOURCE
#include "course.h"
#include "lesson.h"
#include "wb_base.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int has_lessons(const char *root) {
    char p[4200];
    snprintf(p, sizeof p, "%s/lessons", root);
    return wb_is_dir(p);
}

int wb_find_root(char *buf, size_t cap, wb_error *err) {
    const char *env = getenv("WB_ROOT");
    if (env && *env) {
        if (has_lessons(env)) return snprintf(buf, cap, "%s", env), 0;
        return wb_fail(err, WB_EXIT_INPUT, _("WB_ROOT=%s has no lessons/ folder"), env);
    }
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) && has_lessons(cwd)) return snprintf(buf, cap, "%s", cwd), 0;
    char exe[4096];
    if (wb_exe_dir(exe, sizeof exe) == 0) {
        char up[4200];
        snprintf(up, sizeof up, "%s/../..", exe);
        char *real = realpath(up, NULL);
        if (real && has_lessons(real)) {
            snprintf(buf, cap, "%s", real);
            free(real);
            return 0;
        }
        free(real);
    }
    return wb_fail(err, WB_EXIT_INPUT, "%s", _("cannot find the course (a folder with lessons/). Run the grader from the checkout, "
                         "or give a lesson folder such as lessons/01_matmul_add"));
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int wb_course_load(const char *root, wb_course *out, wb_error *err) {
    memset(out, 0, sizeof *out);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/lessons", root);
    DIR *d = opendir(dir);
    if (!d) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot open the lessons folder"), dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0;
    while ((e = readdir(d))) {
        if (!(e->d_name[0] >= '0' && e->d_name[0] <= '9' && e->d_name[1] >= '0' && e->d_name[1] <= '9' && e->d_name[2] == '_'))
            continue;
        char yaml[4600];
        snprintf(yaml, sizeof yaml, "%s/%s/lesson.yaml", dir, e->d_name);
        if (!wb_file_exists(yaml)) continue;
        char **p = realloc(names, (n + 1) * sizeof *p);
        if (!p) break;
        names = p;
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str); /* qsort wants a valid pointer even for 0 */
    out->names = names;
    out->n = n;
    out->dirs = calloc(n + 1, sizeof *out->dirs);
    out->draft = calloc(n + 1, sizeof *out->draft);
    for (size_t i = 0; i < n && out->dirs; i++) {
        out->dirs[i] = malloc(4600);
        snprintf(out->dirs[i], 4600, "%s/%s", dir, names[i]);
        wb_lesson l;
        wb_error ignored = {0};
        if (out->draft && wb_lesson_load(out->dirs[i], &l, &ignored) == 0) {
            out->draft[i] = l.draft;
            wb_lesson_free(&l);
        }
    }
    return 0;
}

size_t wb_course_drop_drafts(wb_course *c) {
    size_t kept = 0, n = c->n;
    for (size_t i = 0; i < n; i++) {
        if (c->draft && c->draft[i]) {
            free(c->names[i]);
            if (c->dirs) free(c->dirs[i]);
            continue;
        }
        c->names[kept] = c->names[i];
        if (c->dirs) c->dirs[kept] = c->dirs[i];
        if (c->draft) c->draft[kept] = 0;
        kept++;
    }
    c->n = kept;
    return n - kept;
}

void wb_course_free(wb_course *c) {
    for (size_t i = 0; i < c->n; i++) {
        free(c->names[i]);
        if (c->dirs) free(c->dirs[i]);
    }
    free(c->names);
    free(c->dirs);
    free(c->draft);
    memset(c, 0, sizeof *c);
}
