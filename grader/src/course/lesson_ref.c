/* lesson_ref.c: see lesson_ref.h. */
#include "lesson_ref.h"
#include "course.h"
#include "wb_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int all_digits(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

int wb_resolve_lesson(const char *arg, char *dir, size_t cap, wb_error *err) {
    char yaml[4200];
    snprintf(yaml, sizeof yaml, "%s/lesson.yaml", arg);
    if (wb_exists_not_dir(yaml)) { /* a lesson.yaml that is a FIFO is refused by the reader, by name */
        snprintf(dir, cap, "%s", arg);
        return 0;
    }
    if (wb_is_dir(arg) && strchr(arg, '/'))
        return wb_fail(err, WB_EXIT_INPUT, _("%s: not a lesson folder (it has no lesson.yaml)"), arg);

    char root[4096];
    wb_course course;
    wb_error root_err = {0};
    if (wb_find_root(root, sizeof root, &root_err) || wb_course_load(root, &course, &root_err))
        return wb_fail(err, WB_EXIT_INPUT, _("%s: no such lesson folder, and %s"), arg, root_err.message);
    long number = all_digits(arg) && strlen(arg) <= 2 ? strtol(arg, NULL, 10) : -1;
    long found = -1;
    for (size_t i = 0; i < course.n && found < 0; i++) {
        const char *name = course.names[i];
        if (!strcmp(name, arg) || !strcmp(name + 3, arg) || (number >= 0 && strtol(name, NULL, 10) == number)) found = (long)i;
    }
    if (found >= 0) {
        snprintf(dir, cap, "%s", course.dirs[found]);
        wb_course_free(&course);
        return 0;
    }
    char list[2048] = "";
    for (size_t i = 0; i < course.n; i++) {
        strncat(list, course.names[i], sizeof list - strlen(list) - 1);
        if (i + 1 < course.n) strncat(list, ", ", sizeof list - strlen(list) - 1);
    }
    wb_fail(err, WB_EXIT_INPUT, _("no lesson '%s' in %s/lessons (there: %s)"), arg, root, course.n ? list : _("none"));
    wb_course_free(&course);
    return WB_EXIT_INPUT;
}
