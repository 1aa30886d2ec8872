/*
 * cmd_release.c: `grader release DIR`, the learner's copy of the course (like nbgrader's release
 * step). DIR gets the checkout's files as they are, except:
 *
 *   expectations/NN_name.yaml   replaced by NN_name.sealed.json: no answer values, explanations
 *                               sealed until grader check grades their question (sealed_key.h)
 *   draft lessons               left out, with their keys (lesson.yaml draft: true), sealed or not
 *   anything else in            left out: editor backups (*.yaml~, *.orig), subfolders, old keys;
 *   expectations/               a release holds only what a learner needs
 *   copies of answer keys       left out wherever they are (the fuzz corpus keeps older keys): a
 *                               text file with an `architectures:` line and a `lesson:` line
 *                               naming a course lesson is an answer key
 *   learners' and local files   predictions.yaml and its backups, .workbench/, .git/, the build folders,
 *                               .dev/ (helpers' worktrees) are never copied
 *
 * Files keep their mode (scripts stay executable); symbolic links are copied as links. DIR must
 * not exist yet, or be empty, and must not be inside the checkout's lessons/.
 */
#define _GNU_SOURCE
#include "wb_predict.h"
#include "wb_base.h"
#include "commands.h"
#include "wb_course.h"
#include "wb_grade.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char RELEASE_USAGE[] = N_(
    "usage: grader release DIR\n"
    "\n"
    "Writes a learner's copy of the course to DIR (a new or empty folder): every file of the\n"
    "checkout except the answer keys, which become expectations/NN_name.sealed.json (no answer\n"
    "values; each explanation opens once grader check has graded its question against a capture\n"
    "that agrees with the verified answers), draft lessons and their keys, any other file of\n"
    "expectations/ and any copy of a key elsewhere, learners' predictions and local state\n"
    "(.workbench, .git, build folders). Hand DIR to learners as it is, or commit it to a repository\n"
    "of its own. docs/releasing.md says what the sealing does and does not protect against.\n"
    "\n"
    "exit: 0 written, 2 bad usage, DIR not empty, or a lesson or answer key that cannot be read\n");

typedef struct {
    const char *root;       /* the checkout */
    const char *dest;       /* DIR */
    char dest_real[PATH_MAX];
    wb_course course;
    size_t files, keys, skipped_drafts, skipped_keys; /* skipped_keys: key copies and other files of expectations/ */
} release;

static int skip_name(const char *rel, const char *name, int is_dir) {
    if (!strcmp(name, ".git") || !strcmp(name, ".workbench") || !strcmp(name, "__pycache__")) return 1;
    if (!strcmp(name, WB_PREDICTIONS_FILE) || !strncmp(name, WB_PREDICTIONS_FILE ".", strlen(WB_PREDICTIONS_FILE) + 1)) return 1;
    if (!rel[0] && is_dir && (!strncmp(name, "build", 5) || !strcmp(name, ".dev"))) return 1; /* top level only */
    return 0;
}

static int is_draft_lesson(const release *r, const char *rel) {
    for (size_t i = 0; i < r->course.n; i++) {
        char want[4400];
        snprintf(want, sizeof want, "lessons/%s", r->course.names[i]);
        if (r->course.draft && r->course.draft[i] && !strcmp(rel, want)) return 1;
    }
    return 0;
}

static int is_course_lesson(const release *r, const char *name, int drafts_too) {
    for (size_t i = 0; i < r->course.n; i++)
        if (!strcmp(r->course.names[i], name)) return drafts_too || !(r->course.draft && r->course.draft[i]);
    return 0;
}

/* expectations/NAME.yaml of a course lesson that is not a draft: its name, else NULL. */
static const char *key_of(const release *r, const char *rel, char *lesson, size_t cap) {
    size_t n = strlen(rel);
    if (strncmp(rel, "expectations/", 13) || n < 18 || strcmp(rel + n - 5, ".yaml") || strchr(rel + 13, '/')) return NULL;
    snprintf(lesson, cap, "%.*s", (int)(n - 18), rel + 13);
    return is_course_lesson(r, lesson, 0) ? lesson : NULL;
}

/* A copy of an answer key anywhere in the tree: a text file with a line `architectures:` and a
 * line `lesson: NAME` naming a lesson of the course (what every key starts with). Reads the
 * first 64 KiB; a key puts both lines at its top. */
static int is_key_copy(const release *r, const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return 0;
    char buf[1 << 16];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    if (memchr(buf, '\0', (size_t)n)) return 0;
    int arch = 0, lesson = 0;
    for (char *line = buf; line && *line && !(arch && lesson);) {
        char *next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (!strncmp(line, "architectures:", 14)) arch = 1;
        if (!strncmp(line, "lesson:", 7)) {
            char name[256];
            if (sscanf(line + 7, " %255[A-Za-z0-9_\"']", name) == 1) {
                char *q = name;
                if (*q == '"' || *q == '\'') q++;
                q[strcspn(q, "\"'")] = '\0';
                lesson = is_course_lesson(r, q, 1);
            }
        }
        line = next;
    }
    return arch && lesson;
}

static int copy_file(const char *from, const char *to, mode_t mode, wb_error *err) {
    int in = open(from, O_RDONLY | O_NONBLOCK);
    if (in < 0) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot read it: %s"), from, strerror(errno));
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL, mode & 0777);
    if (out < 0) {
        close(in);
        return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot create it: %s"), to, strerror(errno));
    }
    char buf[1 << 16];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            rc = -1;
            break;
        }
    if (n < 0) rc = -1;
    close(in);
    if (close(out) != 0) rc = -1;
    return rc ? wb_fail(err, WB_EXIT_INPUT, _("%s: cannot copy it to %s"), from, to) : 0;
}

static int seal_key_file(release *r, const char *lesson, const char *to_dir, wb_error *err) {
    char lesson_dir[4400], key_path[4400], out[4600];
    snprintf(lesson_dir, sizeof lesson_dir, "%s/lessons/%s", r->root, lesson);
    wb_lesson l;
    wb_answer_key k;
    if (wb_lesson_load(lesson_dir, &l, err)) return err->code;
    wb_answer_key_path(lesson_dir, lesson, key_path, sizeof key_path);
    int rc = wb_answer_key_load(key_path, &k, err);
    if (!rc) {
        snprintf(out, sizeof out, "%s/%s.sealed.json", to_dir, lesson);
        rc = wb_sealed_key_write(&l, &k, out, err);
        wb_answer_key_free(&k);
        if (!rc) r->keys++;
    }
    wb_lesson_free(&l);
    return rc;
}

static int copy_tree(release *r, const char *rel, wb_error *err) {
    char from[4400], to[4400];
    snprintf(from, sizeof from, "%s%s%s", r->root, rel[0] ? "/" : "", rel);
    snprintf(to, sizeof to, "%s%s%s", r->dest, rel[0] ? "/" : "", rel);
    char real[PATH_MAX];
    if (realpath(from, real) && !strcmp(real, r->dest_real)) return 0; /* DIR inside the checkout */
    if (rel[0] && mkdir(to, 0755) != 0 && errno != EEXIST) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot create it"), to);
    DIR *d = opendir(from);
    if (!d) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot read the folder"), from);
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char child[4400], src[4700], dst[4700], lesson[256];
        snprintf(child, sizeof child, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(src, sizeof src, "%s/%s", from, e->d_name);
        snprintf(dst, sizeof dst, "%s/%s", to, e->d_name);
        struct stat st;
        if (lstat(src, &st) != 0) continue;
        if (skip_name(rel, e->d_name, S_ISDIR(st.st_mode))) continue;
        int in_expectations = !strcmp(rel, "expectations");
        if (S_ISDIR(st.st_mode)) {
            if (is_draft_lesson(r, child)) {
                r->skipped_drafts++;
                continue;
            }
            if (in_expectations) {
                r->skipped_keys++;
                continue;
            }
            rc = copy_tree(r, child, err);
        } else if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(src, target, sizeof target - 1);
            if (n >= 0) {
                target[n] = '\0';
                if (symlink(target, dst) != 0) rc = wb_fail(err, WB_EXIT_INPUT, _("%s: cannot create the link"), dst);
            }
        } else if (S_ISREG(st.st_mode)) {
            if (key_of(r, child, lesson, sizeof lesson)) {
                rc = seal_key_file(r, lesson, to, err);
            } else if (in_expectations || is_key_copy(r, src)) {
                r->skipped_keys++; /* a draft's key, an editor's backup, an old copy of a key */
            } else if (!(rc = copy_file(src, dst, st.st_mode, err))) {
                r->files++;
            }
        }
    }
    closedir(d);
    return rc;
}

static int empty_or_missing(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d))) empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

int cmd_release(int argc, char **argv) {
    const char *dest = NULL; /* the learner's copy */
    size_t n = 0;
    wb_cli_spec spec = {.command = "release", .usage = RELEASE_USAGE, .operands = &dest, .n_operands = &n, .max_operands = 1,
                        .min_operands = 1, .missing = N_("where to? e.g. grader release ../course-release"),
                        .too_many = N_("one folder (also got %s)")};
    int parsed = wb_cli_parse(&spec, argc, argv);
    if (parsed) return parsed == WB_CLI_HELP ? WB_EXIT_OK : parsed;
    wb_error err = {0};
    char root[4096];
    release r = {0};
    if (wb_find_root(root, sizeof root, &err) || wb_course_load(root, &r.course, &err)) {
        wb_cli_error("release", err.message);
        return err.code;
    }
    int rc = 0;
    if (!empty_or_missing(dest)) {
        rc = wb_fail(&err, WB_EXIT_INPUT, _("%s: not empty; give a new or empty folder (nothing is ever overwritten)"), dest);
    } else if (wb_mkdir_p(dest) != 0 || !realpath(dest, r.dest_real)) {
        rc = wb_fail(&err, WB_EXIT_INPUT, _("%s: cannot create it: %s"), dest, strerror(errno));
    } else {
        char lessons[4200];
        snprintf(lessons, sizeof lessons, "%s/lessons/", root);
        char *root_real = realpath(lessons, NULL);
        if (root_real && !strncmp(r.dest_real, root_real, strlen(root_real)))
            rc = wb_fail(&err, WB_EXIT_INPUT, _("%s: inside the course's lessons/; give a folder outside it"), dest);
        free(root_real);
    }
    r.root = root;
    r.dest = dest;
    if (!rc) rc = copy_tree(&r, "", &err);
    if (rc) {
        wb_cli_error("release", err.message);
    } else {
        char line[12000];
        size_t len = 0;
        len += (size_t)snprintf(line + len, sizeof line - len, _("Released the course of %s to %s: %zu files, "), root, dest, r.files);
        if (len < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len, wb_ngettext("%zu answer key sealed", "%zu answer keys sealed", r.keys),
                                    r.keys);
        if (r.skipped_drafts && len < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len,
                                    wb_ngettext(", %zu draft lesson left out", ", %zu draft lessons left out", r.skipped_drafts),
                                    r.skipped_drafts);
        if (r.skipped_keys && len < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len,
                                    wb_ngettext(", %zu other key file left out", ", %zu other key files left out", r.skipped_keys),
                                    r.skipped_keys);
        if (len < sizeof line)
            snprintf(line + len, sizeof line - len, "%s", _(".\nLearners start with scripts/start.sh in that copy (docs/releasing.md)."));
        wb_cli_print_line(stdout, line, 0, 0);
    }
    wb_course_free(&r.course);
    return rc;
}
