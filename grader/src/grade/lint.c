/*
 * lint.c: see lint.h. Each check_* function adds issues and never stops the others: one run
 * shows everything that is wrong with a lesson. Grading goes through the grader's own code
 * (grade.h), so what lint accepts is what `grader check` and `grader verify` will do.
 */
#define _GNU_SOURCE
#include "lint.h"
#include "wb_predict.h"
#include "wb_course.h"
#include "wb_capture.h"
#include "facts.h"
#include "grade.h"
#include "wb_base.h"
#include "sealed_key.h"
#include "name_leaks.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <fcntl.h>
#include <glob.h>
#include <spawn.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

/* ---- the report ----------------------------------------------------------------------------- */

/* The checks only a GPU can satisfy: a recording to replay, answers verified on the hardware. */
static int gpu_only(const char *check) { return !strcmp(check, "recording-missing") || !strcmp(check, "key-no-verified"); }

static const char *severity_name(wb_lint_severity s) {
    return s == WB_LINT_ERROR ? "error" : s == WB_LINT_PENDING ? "pending" : "warning";
}

/* The same word for a reader: translated in the text report (the JSON keeps the names above). */
static const char *severity_text(wb_lint_severity s) {
    return s == WB_LINT_ERROR ? _("error") : s == WB_LINT_PENDING ? _("pending") : _("warning");
}

static void add(wb_lint_report *r, wb_lint_severity sev, const char *check, const char *path, int line, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void add(wb_lint_report *r, wb_lint_severity sev, const char *check, const char *path, int line, const char *fmt, ...) {
    wb_lint_issue *p = realloc(r->items, (r->n + 1) * sizeof *p);
    if (!p) {
        r->out_of_memory = 1;
        return;
    }
    r->items = p;
    wb_lint_issue *x = &p[r->n++];
    memset(x, 0, sizeof *x);
    x->severity = sev;
    snprintf(x->check, sizeof x->check, "%s", check);
    snprintf(x->path, sizeof x->path, "%s", path);
    x->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->message, sizeof x->message, fmt, ap);
    va_end(ap);
    if (sev == WB_LINT_ERROR && r->draft && gpu_only(check)) x->severity = sev = WB_LINT_PENDING;
    if (sev == WB_LINT_ERROR) r->errors++;
    else if (sev == WB_LINT_PENDING) r->pending++;
    else r->warnings++;
}

/* An error message from a reader ("path:line:col: text"), split back into place and text. */
static void add_reader_error(wb_lint_report *r, const char *check, const char *path, const char *message) {
    size_t n = strlen(path);
    int line = 0;
    const char *text = message;
    if (!strncmp(message, path, n) && message[n] == ':') {
        text = message + n + 1;
        char *end;
        long v = strtol(text, &end, 10);
        if (end != text) {
            line = (int)v;
            text = end;
            if (*text == ':') {
                strtol(text + 1, &end, 10);
                if (end != text + 1) text = end;
            }
        }
        while (*text == ':' || *text == ' ') text++;
    }
    add(r, WB_LINT_ERROR, check, path, line, "%s", text);
}

void wb_lint_report_free(wb_lint_report *r) {
    free(r->items);
    memset(r, 0, sizeof *r);
}

size_t wb_lint_count(const wb_lint_report *r, const char *check) {
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) n += !strcmp(r->items[i].check, check);
    return n;
}

static int is_translation_issue(const wb_lint_issue *x) { return !strncmp(x->check, "translation-", 12); }

void wb_lint_report_print(FILE *f, const wb_lint_report *r) {
    for (size_t i = 0, heading = 0; i < r->n; i++) {
        const wb_lint_issue *x = &r->items[i];
        if (is_translation_issue(x) && !heading++) fprintf(f, _("%s: Japanese catalog (i18n/ja.yaml, the key's .ja.yaml):\n"), r->lesson);
        char place[4300], line[5600];
        if (x->line > 0) snprintf(place, sizeof place, "%s:%d: ", x->path, x->line);
        else snprintf(place, sizeof place, "%s: ", x->path);
        snprintf(line, sizeof line, "%s%s: %s [%s]", place, severity_text(x->severity), x->message, x->check);
        wb_cli_print_line(f, line, 0, 4); /* one issue a line in English, as compilers print them */
    }
}

json_t *wb_lint_report_json(const wb_lint_report *r) {
    json_t *issues = json_array();
    for (size_t i = 0; i < r->n; i++) {
        const wb_lint_issue *x = &r->items[i];
        json_array_append_new(issues, json_pack("{s:s, s:s, s:s, s:o, s:s}", "severity",
                                                severity_name(x->severity), "check", x->check, "path",
                                                x->path, "line", x->line > 0 ? json_integer(x->line) : json_null(), "message",
                                                x->message));
    }
    return json_pack("{s:s, s:s, s:b, s:I, s:I, s:I, s:o}", "lesson", r->lesson, "dir", r->lesson_dir, "draft", r->draft,
                     "errors", (json_int_t)r->errors, "warnings", (json_int_t)r->warnings, "pending", (json_int_t)r->pending,
                     "issues", issues);
}

/* ---- helpers -------------------------------------------------------------------------------- */

/* "lessons/01_x/../../expectations/01_x.yaml" -> "expectations/01_x.yaml", textually. */
static void normalize(const char *in, char *out, size_t cap) {
    char buf[4096], *parts[256];
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", in);
    int absolute = buf[0] == '/';
    for (char *save = NULL, *t = strtok_r(buf, "/", &save); t && n < 256; t = strtok_r(NULL, "/", &save)) {
        if (!strcmp(t, ".")) continue;
        if (!strcmp(t, "..") && n > 0 && strcmp(parts[n - 1], "..")) {
            n--;
            continue;
        }
        parts[n++] = t;
    }
    out[0] = '\0';
    if (absolute) snprintf(out, cap, "/");
    for (size_t i = 0; i < n; i++) snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? "/" : "", parts[i]);
    if (!out[0]) snprintf(out, cap, ".");
}

/* Line (1-based) of the first line of path that contains text; 0 when none. */
static int line_of(const char *path, const char *text) {
    FILE *f = wb_open_regular_file(path);
    if (!f) return 0;
    char line[4096];
    int n = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, text)) found = n;
    }
    fclose(f);
    return found;
}

static int has_todo(const char *s) { return s && strstr(s, "TODO") != NULL; }

/* ---- lesson.yaml, CMakeLists.txt, README.md ------------------------------------------------- */

static void check_lesson_text(wb_lint_report *r, const wb_lesson *l) {
    if (has_todo(l->title)) add(r, WB_LINT_ERROR, "lesson-todo", l->path, line_of(l->path, "title:"), _("the title still says TODO"));
    for (size_t i = 0; i < l->n_questions; i++) {
        const wb_question *q = &l->questions[i];
        if (has_todo(q->ask)) add(r, WB_LINT_ERROR, "lesson-todo", l->path, q->line, _("question '%s' still says TODO"), q->id);
        for (size_t j = 0; j < q->n_facts; j++)
            for (size_t k = 0; k < j; k++)
                if (!strcmp(q->facts[j], q->facts[k]))
                    add(r, WB_LINT_ERROR, "lesson-facts-duplicate", l->path, q->line, _("question '%s' asks for %s twice"), q->id,
                        q->facts[j]);
    }
}

static void check_cmake(wb_lint_report *r, const wb_lesson *l) {
    char path[4200];
    snprintf(path, sizeof path, "%s/CMakeLists.txt", l->dir);
    FILE *f = wb_open_regular_file(path);
    if (!f) {
        add(r, WB_LINT_WARNING, "cmake-missing", path, 0, _("no CMakeLists.txt: the build does not make %s here (a lesson has "
                                                          "wb_add_lesson(%s SOURCES main.cu))"), l->binary, l->binary);
        return;
    }
    char line[4096], target[256] = "";
    int n = 0, at = 0;
    while (!target[0] && fgets(line, sizeof line, f)) {
        n++;
        char *p = strstr(line, "wb_add_lesson(");
        if (p && !strchr(line, '#')) {
            p += 14;
            while (*p == ' ') p++;
            size_t len = strcspn(p, " )\t\n");
            snprintf(target, sizeof target, "%.*s", (int)len, p);
            at = n;
        }
    }
    fclose(f);
    if (!target[0]) add(r, WB_LINT_ERROR, "cmake-binary", path, 0, _("no wb_add_lesson(%s ...): the program is not built"), l->binary);
    else if (strcmp(target, l->binary) != 0)
        add(r, WB_LINT_ERROR, "cmake-binary", path, at, _("builds %s, but lesson.yaml runs binary %s"), target, l->binary);
}

static void check_readme(wb_lint_report *r, const wb_lesson *l) {
    char path[4200];
    snprintf(path, sizeof path, "%s/README.md", l->dir);
    if (!wb_file_exists(path)) {
        add(r, WB_LINT_WARNING, "readme-missing", path, 0, _("no README.md: the lesson text (what to predict, then past the "
                                                           "<!-- reveal --> line what the trace shows)"));
        return;
    }
    if (!line_of(path, "<!-- reveal -->"))
        add(r, WB_LINT_WARNING, "readme-reveal", path, 0, _("no <!-- reveal --> line: learners cannot tell where the spoilers start"));
    int todo = line_of(path, "TODO");
    if (todo) add(r, WB_LINT_ERROR, "readme-todo", path, todo, _("the lesson text still says TODO"));
}

/* ---- the title ------------------------------------------------------------------------------ */

static int is_count_word(const char *w, size_t n) {
    static const char *const words[] = {"no", "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                                        "ten", "single", NULL};
    if (n && w[0] >= '0' && w[0] <= '9') return 1;
    for (const char *const *x = words; *x; x++)
        if (strlen(*x) == n && !strncasecmp(w, *x, n)) return 1;
    return 0;
}

static int is_fact_word(const char *w, size_t n) {
    static const char *const words[] = {"kernel", "kernels", "gemm", "gemms", "launch", "launches", "memset", "memsets",
                                        "memcpy", "memcpys", "copy", "copies", "call", "calls", "stream", "streams", NULL};
    for (const char *const *x = words; *x; x++)
        if (strlen(*x) == n && !strncasecmp(w, *x, n)) return 1;
    return 0;
}

/* A title like "five kernels, then four" or "one GEMM, one bias kernel" gives answers away: a
 * count, then (at most one word later) what a question counts. */
static void check_title(wb_lint_report *r, const wb_lesson *l) {
    const char *w[64];
    size_t len[64], n = 0;
    for (const char *p = l->title; *p && n < 64;) {
        while (*p && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) p++;
        if (!*p) break;
        w[n] = p;
        while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_') p++;
        len[n] = (size_t)(p - w[n]);
        n++;
    }
    for (size_t i = 0; i < n; i++) {
        if (!is_count_word(w[i], len[i])) continue;
        for (size_t j = i + 1; j < n && j <= i + 2; j++)
            if (is_fact_word(w[j], len[j])) {
                add(r, WB_LINT_WARNING, "title-count", l->path, line_of(l->path, "title:"), _("the title says '%.*s': grader list "
                    "shows it before the learner predicts, so it gives an answer away"), (int)(w[j] + len[j] - w[i]), w[i]);
                return;
            }
    }
}

/* ---- the template ------------------------------------------------------------------------- */

static void check_template(wb_lint_report *r, const wb_lesson *l) {
    char path[4200];
    wb_template_path(l->dir, path, sizeof path);
    if (!wb_file_exists(path)) {
        add(r, WB_LINT_ERROR, "template-missing", path, 0, _("no predictions template; make it with: grader template %s --write"),
            l->dir);
        return;
    }
    wb_prediction_set p;
    wb_error err = {0};
    if (wb_predictions_load(path, &p, &err)) {
        add_reader_error(r, "template-unreadable", path, err.message);
        return;
    }
    wb_template_issue issues[64];
    size_t n = wb_template_compare(l, &p, issues, 64);
    for (size_t i = 0; i < n && i < 64; i++)
        add(r, WB_LINT_ERROR, "template", path, issues[i].line, "%s", issues[i].message);
    if (n > 64) add(r, WB_LINT_ERROR, "template", path, 0, _("... and %zu more differences"), n - 64);
    if (n) add(r, WB_LINT_ERROR, "template", path, 0, _("remake it from lesson.yaml: grader template %s > %s (a learner's "
                   "answers live in predictions.yaml beside it, never here)"), l->dir, path);
    wb_predictions_free(&p);
}

/* ---- declared work -------------------------------------------------------------------------- */

/* Every question that asks a judged fact (bound) needs its range's work declared, or no one can be graded. */
static void check_work(wb_lint_report *r, const wb_lesson *l) {
    for (size_t i = 0; i < l->n_questions; i++) {
        const wb_question *q = &l->questions[i];
        const char *v = q->variant ? q->variant : l->n_variants == 1 ? l->variants[0].name : NULL;
        for (size_t j = 0; j < q->n_facts; j++) {
            const wb_fact_kind_info *kind = wb_fact_kind_of_label(q->facts[j], NULL);
            if (kind && kind->value->judged && !wb_lesson_work(l, v, q->range))
                add(r, WB_LINT_ERROR, "work-missing", l->path, q->line, _("question '%s' asks the %s of range '%s' (variant %s), "
                    "but 'work:' declares no FLOPs and bytes for it"), q->id, q->facts[j], q->range, v ? v : "?");
        }
    }
}

/* ---- the answer key ----------------------------------------------------------------------- */

static const wb_fact *fact_labelled(const wb_prediction *p, const char *label) {
    for (size_t i = 0; i < p->n_facts; i++)
        if (!strcmp(p->facts[i].label, label)) return &p->facts[i];
    return NULL;
}

static const char *question_variant(const wb_question *q, const wb_lesson *l) {
    return q->variant ? q->variant : l->n_variants == 1 ? l->variants[0].name : NULL;
}

static void check_arch_answers(wb_lint_report *r, const wb_lesson *l, const wb_answer_key *k, const wb_arch_answers *a) {
    wb_lint_severity sev = a->verified ? WB_LINT_ERROR : WB_LINT_WARNING;
    const char *status = a->verified ? _("verified") : _("unverified");
    char list[1024];
    for (size_t i = 0; i < a->answers.n; i++) {
        const wb_prediction *p = &a->answers.items[i];
        if (p->variant && !wb_lesson_variant(l, p->variant))
            add(r, WB_LINT_ERROR, "key-unknown", k->path, p->line, _("%s answer '%s': no variant '%s' in lesson.yaml (it has: %s)"),
                a->arch, p->id, p->variant, wb_lesson_variant_list(l, list, sizeof list));
        if (!p->variant && l->n_variants > 1)
            add(r, WB_LINT_ERROR, "key-unknown", k->path, p->line, _("%s answer '%s' needs a variant: the lesson has several"),
                a->arch, p->id);
        if (!wb_lesson_has_range(l, p->range))
            add(r, WB_LINT_ERROR, "key-unknown", k->path, p->line, _("%s answer '%s': range '%s' is not in lesson.yaml's ranges"),
                a->arch, p->id, p->range);
        if (!wb_lesson_question(l, p->id))
            add(r, WB_LINT_WARNING, "key-extra", k->path, p->line, _("%s answers '%s', which lesson.yaml does not ask: verify "
                                                                   "checks it, learners are never asked"), a->arch, p->id);
    }
    for (size_t i = 0; i < l->n_questions; i++) {
        const wb_question *q = &l->questions[i];
        const wb_prediction *p = wb_predictions_find(&a->answers, q->id);
        if (!p) {
            add(r, sev, "key-unanswered", k->path, 0, _("%s (%s) does not answer question '%s' (lesson.yaml line %d)"), a->arch,
                status, q->id, q->line);
            continue;
        }
        const char *qv = question_variant(q, l), *pv = wb_prediction_variant(p, l);
        if ((qv || pv) && (!qv || !pv || strcmp(qv, pv)))
            add(r, sev, "key-mismatch", k->path, p->line, _("%s answer '%s' is about variant %s, the question about %s"), a->arch,
                p->id, pv ? pv : _("(none)"), qv ? qv : _("(none)"));
        if (strcmp(q->range, p->range))
            add(r, sev, "key-mismatch", k->path, p->line, _("%s answer '%s' is about range %s, the question about %s"), a->arch,
                p->id, p->range, q->range);
        if (q->rank != p->rank)
            add(r, sev, "key-mismatch", k->path, p->line, _("%s answer '%s' is about %s, the question about %s"), a->arch, p->id,
                p->rank < 0 ? _("all ranks") : _("one rank ('rank:')"), q->rank < 0 ? _("all ranks") : _("one rank ('rank:')"));
        for (size_t j = 0; j < q->n_facts; j++)
            if (!fact_labelled(p, q->facts[j]))
                add(r, sev, "key-unanswered", k->path, p->line, _("%s (%s) answer '%s' lacks %s, which the question asks"), a->arch,
                    status, p->id, q->facts[j]);
    }
}

static void check_key(wb_lint_report *r, const wb_lesson *l, const wb_answer_key *k) {
    if (strcmp(k->lesson, l->lesson) != 0)
        add(r, WB_LINT_ERROR, "key-lesson", k->path, line_of(k->path, "lesson:"), _("'lesson: %s', but this is the key of %s"),
            k->lesson, l->lesson);
    size_t verified = 0;
    for (size_t i = 0; i < k->n_archs; i++) {
        verified += (size_t)k->archs[i].verified;
        check_arch_answers(r, l, k, &k->archs[i]);
    }
    if (!verified)
        add(r, WB_LINT_ERROR, "key-no-verified", k->path, line_of(k->path, "architectures:"),
            _("no verified architecture: record the lesson on a GPU (grader record), write that architecture's answers, check "
            "them (grader verify --replay) and mark them status: verified"));
    for (size_t i = 0; i < l->n_questions; i++) {
        const char *e = wb_answer_key_explanation_en(k, l->questions[i].id);
        if (!e)
            add(r, WB_LINT_ERROR, "explanation-missing", k->path, line_of(k->path, "explanations:"),
                _("no explanation for question '%s': learners see one after grading"), l->questions[i].id);
        else if (has_todo(e))
            add(r, WB_LINT_ERROR, "explanation-todo", k->path, line_of(k->path, e), _("the explanation of '%s' still says TODO"),
                l->questions[i].id);
    }
    for (size_t i = 0; i < k->n_explanations; i++)
        if (!wb_lesson_question(l, k->explanation_ids[i]))
            add(r, WB_LINT_WARNING, "explanation-unknown", k->path, 0, _("an explanation for '%s', which is not a question of "
                                                                       "lesson.yaml (a typo?)"), k->explanation_ids[i]);
}

/* ---- the Japanese catalog --------------------------------------------------------------------- */

/* 1 when some lesson of the course beside this one has a Japanese translation: the course is then
 * translated, and a lesson or a question without a translation is worth a warning. A course
 * nobody translates gets none. */
static int course_translated(const wb_lesson *l) {
    char pattern[4300];
    snprintf(pattern, sizeof pattern, "%s/../*/i18n/ja.yaml", l->dir);
    glob_t g;
    int found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return found;
}

static void translation_entry(wb_lint_report *r, const wb_translation *t, const wb_translated *e, const char *what,
                              const char *english) {
    char sha[65];
    wb_sha256_hex(english, sha);
    if (!e)
        add(r, WB_LINT_WARNING, "translation-missing", t->path, 0, _("%s has no Japanese translation (en_sha %s)"), what, sha);
    else if (strcmp(e->en_sha, sha) != 0)
        add(r, WB_LINT_WARNING, "translation-stale", t->path, e->line, _("the Japanese %s translates an older English text: "
            "translate it again from the English as it is now and set en_sha: %s (until then learners see the English)"), what, sha);
}

/* git's answer to whether README.md differs now from its version at commit: 1 differs, 0 the same,
 * -1 unknown (no git, not a repository, a commit this clone lacks: a release or a shallow clone). */
static int git_status(char *const argv[]);

static int readme_changed_since(const char *dir, const char *commit) {
    char object[80];
    snprintf(object, sizeof object, "%s^{commit}", commit);
    char *known[] = {"git", "-C", (char *)dir, "rev-parse", "-q", "--verify", object, NULL};
    if (git_status(known) != 0) return -1; /* outside a repository, git diff would compare two files */
    char *diff[] = {"git", "-C", (char *)dir, "diff", "--quiet", (char *)commit, "--", "README.md", NULL};
    int rc = git_status(diff);
    return rc == 1 ? 1 : rc == 0 ? 0 : -1;
}

/* git's exit status, quietly; -1 when it cannot run. */
static int git_status(char *const argv[]) {
    posix_spawn_file_actions_t io;
    posix_spawn_file_actions_init(&io);
    posix_spawn_file_actions_addopen(&io, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&io, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int status = 0, rc = posix_spawnp(&pid, "git", &io, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&io);
    if (rc != 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

/* README.ja.md opens with <!-- translates: README.md @ COMMIT -->: warn when README.md changed since. */
static void check_readme_translation(wb_lint_report *r, const wb_lesson *l) {
    char path[4400], line[512], commit[64] = "";
    snprintf(path, sizeof path, "%s/README.ja.md", l->dir);
    FILE *f = fopen(path, "r");
    if (!f) return;
    int ok = fgets(line, sizeof line, f) && sscanf(line, "<!-- translates: README.md @ %40[0-9a-f] -->", commit) == 1 &&
             strlen(commit) == 40;
    fclose(f);
    if (!ok) {
        add(r, WB_LINT_WARNING, "translation-commit", path, 1, _("the first line does not name the English it translates: "
            "<!-- translates: README.md @ COMMIT --> (git log -1 --format=%%H -- README.md)"));
        return;
    }
    if (readme_changed_since(l->dir, commit) == 1)
        add(r, WB_LINT_WARNING, "translation-stale", path, 1, _("README.md changed since %.12s, the commit this translates "
            "(git diff %.12s -- README.md shows what to carry over; then name the new commit)"), commit, commit);
}

/* Issues about translations go at the end of the report, under the Japanese catalog's heading. */
static void check_translations(wb_lint_report *r, const wb_lesson *l, const wb_answer_key *k) {
    char path[4400], what[512];
    int translated = course_translated(l);
    check_readme_translation(r, l);
    wb_lesson_translation_path(l->dir, "ja", path, sizeof path);
    if (l->ja_error[0]) {
        add_reader_error(r, "translation-unreadable", path, l->ja_error);
    } else if (!l->ja) {
        if (translated)
            add(r, WB_LINT_WARNING, "translation-missing", path, 0, _("no Japanese translation of this lesson's title and questions "
                "(other lessons have one; docs/i18n.md says how to write it)"));
    } else {
        if (l->title) translation_entry(r, l->ja, l->ja->title, _("title"), l->title);
        for (size_t i = 0; i < l->n_questions; i++) {
            const wb_question *q = &l->questions[i];
            const wb_translated *e = wb_translation_find(l->ja, q->id);
            char *source = wb_question_source(q);
            snprintf(what, sizeof what, _("question '%s'"), q->id);
            if (source) translation_entry(r, l->ja, e, what, source);
            free(source);
            if (e && e->n_hints != q->n_hints)
                add(r, WB_LINT_WARNING, "translation-hints", l->ja->path, e->line,
                    wb_ngettext("question '%s' has %zu hint in English and %zu in Japanese: a learner sees the English ones",
                                "question '%s' has %zu hints in English and %zu in Japanese: a learner sees the English ones",
                                q->n_hints),
                    q->id, q->n_hints, e->n_hints);
        }
        for (size_t i = 0; i < l->ja->n; i++)
            if (!wb_lesson_question(l, l->ja->items[i].id))
                add(r, WB_LINT_WARNING, "translation-unknown", l->ja->path, l->ja->items[i].line, _("a translation of '%s', which "
                    "is not a question of lesson.yaml"), l->ja->items[i].id);
    }
    if (!k) return;
    wb_key_translation_path(k->path, "ja", path, sizeof path);
    if (k->ja_error[0]) {
        add_reader_error(r, "translation-unreadable", path, k->ja_error);
    } else if (!k->ja) {
        if (translated)
            add(r, WB_LINT_WARNING, "translation-missing", path, 0, _("no Japanese translation of the answer key's explanations"));
    } else {
        for (size_t i = 0; i < l->n_questions; i++) {
            const char *english = wb_answer_key_explanation_en(k, l->questions[i].id);
            snprintf(what, sizeof what, _("explanation of '%s'"), l->questions[i].id);
            if (english) translation_entry(r, k->ja, wb_translation_find(k->ja, l->questions[i].id), what, english);
        }
        for (size_t i = 0; i < k->ja->n; i++)
            if (!wb_lesson_question(l, k->ja->items[i].id))
                add(r, WB_LINT_WARNING, "translation-unknown", k->ja->path, k->ja->items[i].line, _("a translation of the "
                    "explanation of '%s', which is not a question of lesson.yaml"), k->ja->items[i].id);
    }
}

/* ---- recordings ------------------------------------------------------------------------------ */

typedef struct {
    char path[4400];
    wb_recording rec;
    int usable;        /* loaded, for this lesson, every variant present and usable */
} recording;

static size_t load_recordings(wb_lint_report *r, const wb_lesson *l, recording **out) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/traces", l->dir);
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d) return 0;
    char names[64][256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 64) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".json") && strlen(e->d_name) < 256) snprintf(names[n++], 256, "%s", e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    recording *recs = calloc(n + 1, sizeof *recs);
    if (!recs) {
        r->out_of_memory = 1;
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        recording *x = &recs[i];
        snprintf(x->path, sizeof x->path, "%s/%s", dir, names[i]);
        wb_error err = {0};
        if (wb_recording_load(x->path, &x->rec, &err)) {
            add_reader_error(r, "recording-unreadable", x->path, err.message);
            continue;
        }
        x->usable = 1;
    }
    *out = recs;
    return n;
}

static int same_args(const wb_variant *v, const wb_run *run) {
    if (v->n_args != run->n_args) return 0;
    for (size_t i = 0; i < v->n_args; i++)
        if (strcmp(v->args[i], run->args[i])) return 0;
    return 1;
}

static void args_text(char *const *args, size_t n, char *buf, size_t cap) {
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? " " : "", args[i]);
}

/* Range names of a run (ranges of the default NVTX domain, anywhere in the run). */
static int run_has_range(const wb_run *run, const char *name) {
    const wb_capture *c = &run->capture;
    for (size_t i = 0; i < c->n_ranges; i++)
        if (!c->ranges[i].is_mark && !c->ranges[i].domain && wb_range_name_matches(name, c->ranges[i].name)) return 1;
    return 0;
}

static void check_recording(wb_lint_report *r, const wb_lesson *l, recording *x) {
    wb_recording *rec = &x->rec;
    if (strcmp(rec->lesson, l->lesson) != 0) {
        add(r, WB_LINT_ERROR, "recording-lesson", x->path, 0, _("a recording of lesson %s, not %s"), rec->lesson, l->lesson);
        x->usable = 0;
        return;
    }
    const char *arch = rec->runs[0].capture.arch;
    char expected[64];
    snprintf(expected, sizeof expected, "%s.json", arch);
    const char *base = strrchr(x->path, '/');
    if (strcmp(base ? base + 1 : x->path, expected))
        add(r, WB_LINT_WARNING, "recording-name", x->path, 0, _("recorded on %s, so grader record would name it %s"), arch, expected);

    const char **variants = calloc(l->n_variants + 1, sizeof *variants);
    size_t n_variants = 0;
    char a[1024], b[1024];
    if (!variants) {
        add(r, WB_LINT_ERROR, "out-of-memory", x->path, 0, _("out of memory"));
        x->usable = 0;
        return;
    }
    for (size_t i = 0; i < l->n_variants; i++) {
        const wb_variant *v = &l->variants[i];
        const wb_run *run = wb_recording_run(rec, v->name);
        if (!run) {
            add(r, WB_LINT_ERROR, "recording-variant", x->path, 0, _("no run of variant '%s'; re-record: grader record %s"), v->name,
                l->dir);
            x->usable = 0;
            continue;
        }
        variants[n_variants++] = v->name;
        if (!same_args(v, run)) {
            args_text(run->args, run->n_args, a, sizeof a);
            args_text(v->args, v->n_args, b, sizeof b);
            add(r, WB_LINT_ERROR, "recording-args", x->path, 0, _("variant '%s' was recorded with [%s], but lesson.yaml now runs "
                "[%s]; re-record: grader record %s"), v->name, a, b, l->dir);
        }
    }
    for (size_t i = 0; i < rec->n_runs; i++)
        if (!wb_lesson_variant(l, rec->runs[i].variant))
            add(r, WB_LINT_WARNING, "recording-variant-extra", x->path, 0, _("a run of variant '%s', which lesson.yaml does not "
                "have"), rec->runs[i].variant);
    wb_error err = {0};
    if (wb_check_usable(rec, l, variants, n_variants, NULL, &err)) {
        add(r, WB_LINT_ERROR, "recording-unusable", x->path, 0, "%s", err.message);
        x->usable = 0;
    }
    free(variants);

    /* ranges: lesson.yaml's list is the program's interface, both ways */
    int ranges_line = line_of(l->path, "ranges:");
    for (size_t i = 0; i < l->n_ranges; i++) {
        int found = 0;
        for (size_t j = 0; j < rec->n_runs && !found; j++) found = run_has_range(&rec->runs[j], l->ranges[i]);
        if (!found)
            add(r, WB_LINT_ERROR, "range-not-emitted", l->path, ranges_line, _("range '%s' is listed, but no run of %s has it: "
                "the program never emits it (or emits it before CUDA starts, where the capture cannot see it)"), l->ranges[i],
                x->path);
    }
    const char *reported[256];
    size_t n_reported = 0;
    for (size_t j = 0; j < rec->n_runs; j++) {
        const wb_capture *c = &rec->runs[j].capture;
        for (size_t i = 0; i < c->n_ranges; i++) {
            const wb_range *g = &c->ranges[i];
            /* a name with a call's numbers after a comma is one of PyTorch's per-operator ranges: the
             * operators a script reaches are PyTorch's business, not the lesson's interface */
            if (g->is_mark || g->domain || wb_lesson_lists_range(l, g->name) || strchr(g->name, ',')) continue;
            int seen = 0;
            for (size_t k = 0; k < n_reported && !seen; k++) seen = !strcmp(reported[k], g->name);
            if (seen) continue;
            if (n_reported < 256) reported[n_reported++] = g->name;
            add(r, WB_LINT_ERROR, "range-not-listed", l->path, ranges_line, _("range '%s' occurs in %s (variant %s) but is not in "
                "'ranges'"), g->name, x->path, rec->runs[j].variant);
        }
    }
    /* every question's range inside the profiled window of its variant */
    for (size_t i = 0; i < l->n_questions; i++) {
        const wb_question *q = &l->questions[i];
        const char *v = question_variant(q, l);
        const wb_run *run = v ? wb_recording_run(rec, v) : NULL;
        if (!run) continue;
        wb_occurrences occ;
        if (q->rank >= wb_capture_ranks(&run->capture)) {
            int ranks = wb_capture_ranks(&run->capture);
            add(r, WB_LINT_ERROR, "question-rank-absent", l->path, q->line,
                wb_ngettext("question '%s' asks about rank %d of variant %s, but %s holds %d process",
                            "question '%s' asks about rank %d of variant %s, but %s holds %d processes", (unsigned long)ranks),
                q->id, q->rank, v, x->path, ranks);
            continue;
        }
        if (wb_find_occurrences_on(&run->capture, q->range, q->rank < 0 ? WB_ALL_RANKS : q->rank, &occ)) {
            r->out_of_memory = 1;
            continue;
        }
        if (occ.n == 0)
            add(r, WB_LINT_ERROR, "question-range-absent", l->path, q->line, _("question '%s' asks about range '%s' of variant %s, "
                "but it never occurs inside the profiled window (cudaProfilerStart to Stop) of %s"), q->id, q->range, v, x->path);
        wb_occurrences_free(&occ);
    }
}

/* ---- the key against the recordings --------------------------------------------------------- */

/* The lesson's questions as a learner answers them: the asked facts, valued from the key and made
 * wrong: counts plus offset, a bound the next one; with time_factor != 1, only the time facts,
 * times time_factor. Items and facts are shallow copies (freed with view_free, never
 * wb_predictions_free). */
static int lesson_view(const wb_lesson *l, const wb_prediction_set *answers, int offset, double time_factor, wb_prediction_set *out) {
    memset(out, 0, sizeof *out);
    out->path = answers->path;
    out->lesson = answers->lesson;
    out->items = calloc(l->n_questions + 1, sizeof *out->items);
    if (!out->items) return -1;
    for (size_t i = 0; i < l->n_questions; i++) {
        const wb_question *q = &l->questions[i];
        const wb_prediction *a = wb_predictions_find(answers, q->id);
        if (!a) continue;
        wb_prediction *p = &out->items[out->n++];
        *p = *a;
        p->facts = calloc(q->n_facts + 1, sizeof *p->facts);
        p->n_facts = 0;
        if (!p->facts) return -1;
        for (size_t j = 0; j < q->n_facts; j++) {
            const wb_fact *f = fact_labelled(a, q->facts[j]);
            if (!f || (time_factor != 1 && !wb_fact_is_time(f->kind))) continue;
            wb_fact *w = &p->facts[p->n_facts++];
            *w = *f;
            wb_fact_value_of(f)->make_wrong(w, offset, time_factor);
        }
    }
    return 0;
}

static void view_free(wb_prediction_set *v) {
    for (size_t i = 0; i < v->n; i++) free(v->items[i].facts);
    free(v->items);
    memset(v, 0, sizeof *v);
}

static void describe_actual(const wb_graded_fact *g, char *buf, size_t cap) {
    if (g->actual >= 0) {
        wb_graded_actual_text(g, buf, cap);
        if (g->is_time) {
            char band[128];
            snprintf(buf + strlen(buf), cap - strlen(buf), _(" us (right from %s)"), wb_graded_band_text(g, band, sizeof band));
        }
        return;
    }
    if (g->n_occurrences == 0) {
        snprintf(buf, cap, "%s", _("nothing (the range never occurs in the profiled window)"));
        return;
    }
    snprintf(buf, cap, "%s", _("values that differ by occurrence:"));
    for (size_t i = 0; i < g->n_occurrences && i < 12; i++) {
        char value[64];
        wb_fact_value_of(g->fact)->text((double)g->per_occurrence[i], value, sizeof value);
        snprintf(buf + strlen(buf), cap - strlen(buf), " %s", value);
    }
}

/* The facts of the key graded from the range's times (no count in the table: gpu_us, wall_us,
 * bound), against each repeat the recording keeps (grader record --repeat N): every one must hold
 * in every run, or it would be graded by luck. Repeats keep GPU and wall times only: a time the
 * table counts (overlap_us) is checked by grader verify --repeat. */
static int from_range_times(const wb_fact *f) { return !wb_fact_kind_get(f->kind)->count; }

static void check_repeats(wb_lint_report *r, const wb_lesson *l, const wb_answer_key *k, const wb_arch_answers *a, recording *x,
                          wb_lint_severity sev) {
    size_t timed = 0;
    for (size_t i = 0; i < a->answers.n; i++)
        for (size_t j = 0; j < a->answers.items[i].n_facts; j++) {
            const wb_fact *f = &a->answers.items[i].facts[j];
            timed += (size_t)from_range_times(f);
        }
    if (!timed) return;
    if (x->rec.n_repeats == 0) {
        add(r, WB_LINT_WARNING, "time-no-repeats", x->path, 0,
            wb_ngettext("the key has %zu time fact, but this recording keeps no repeats, so nothing shows they hold in every "
                        "run; re-record with grader record %s --repeat 3",
                        "the key has %zu time facts, but this recording keeps no repeats, so nothing shows they hold in every "
                        "run; re-record with grader record %s --repeat 3", timed),
            timed, l->dir);
        return;
    }
    char pred[64], actual[512];
    for (size_t rep = 0; rep < x->rec.n_repeats; rep++) {
        const wb_repeat *t = &x->rec.repeats[rep];
        for (size_t i = 0; i < a->answers.n; i++) {
            const wb_prediction *p = &a->answers.items[i];
            const char *variant = wb_prediction_variant(p, l);
            const wb_range_times *times = NULL;
            for (size_t m = 0; m < t->n && !times; m++)
                if (variant && !strcmp(t->items[m].variant, variant) && !strcmp(t->items[m].range, p->range) &&
                    (p->rank < 0 ? !t->items[m].per_rank : t->items[m].per_rank && t->items[m].rank == p->rank))
                    times = &t->items[m];
            for (size_t j = 0; j < p->n_facts; j++) {
                const wb_fact *f = &p->facts[j];
                if (!from_range_times(f)) continue;
                if (!times) {
                    add(r, sev, "time-unstable", x->path, 0, _("repeat %zu holds no times of range '%s' (variant %s); re-record with "
                        "grader record %s --repeat 3"), rep + 2, p->range, variant ? variant : "?", l->dir);
                    continue;
                }
                wb_graded_fact g = {.prediction = p, .fact = f, .variant = variant, .predicted = f->predicted,
                                    .tolerance = wb_lesson_tolerance(l, p->id)};
                if (wb_grade_time_values(&g, NULL, times->gpu_us, times->wall_us, times->n, wb_lesson_work(l, variant, p->range),
                                         &x->rec.calibration)) {
                    r->out_of_memory = 1;
                } else if (!g.right) {
                    describe_actual(&g, actual, sizeof actual);
                    add(r, sev, "time-unstable", k->path, f->line, _("%s answers %s of '%s' with %s, which held in the recorded run "
                        "but not in repeat %zu of %s, where it is %s: widen the question's tolerance or ask about a steadier range"),
                        a->arch, f->label, p->id, wb_fact_value_text(f, pred, sizeof pred), rep + 2, x->path, actual);
                }
                free(g.per_occurrence), free(g.gpu_us), free(g.wall_us), free(g.per_us);
            }
        }
    }
}

static void check_replay(wb_lint_report *r, const wb_lesson *l, const wb_answer_key *k, recording *x) {
    const char *arch = x->rec.runs[0].capture.arch;
    const wb_arch_answers *a = wb_answer_key_arch(k, arch);
    if (!a) {
        add(r, WB_LINT_WARNING, "key-no-arch", k->path, 0, _("no answers for %s, the architecture of %s: learners replaying it get "
            "no explanations checked"), arch, x->path);
        return;
    }
    wb_error err = {0};
    if (wb_predictions_check_lesson(&a->answers, l, &err)) return; /* already reported as key-unknown */
    wb_lint_severity sev = a->verified ? WB_LINT_ERROR : WB_LINT_WARNING;
    char actual[512];

    /* grader verify --replay: every answer of the key holds */
    wb_grade g;
    if (wb_grade_predictions(&a->answers, l, &x->rec, &g, &err)) {
        add(r, WB_LINT_ERROR, "key-differs", x->path, 0, "%s", err.message);
        return;
    }
    for (size_t i = 0; i < g.n; i++) {
        const wb_graded_fact *f = &g.facts[i];
        if (f->right) continue;
        describe_actual(f, actual, sizeof actual);
        char pred[64];
        add(r, sev, "key-differs", k->path, f->fact->line, _("%s (%s) answers %s of '%s' with %s, but %s has %s"), arch,
            a->verified ? _("verified") : _("unverified"), f->fact->label, f->prediction->id, wb_graded_predicted_text(f, pred, sizeof pred),
            x->path, actual);
    }
    wb_grade_free(&g);

    check_repeats(r, l, k, a, x, sev);

    /* a time prediction off by a factor of 2 either way is wrong */
    for (int half = 0; half < 2; half++) {
        wb_prediction_set off;
        double factor = half ? 0.5 : 2.0;
        if (lesson_view(l, &a->answers, 0, factor, &off)) {
            r->out_of_memory = 1;
            view_free(&off);
            return;
        }
        if (off.n && wb_grade_predictions(&off, l, &x->rec, &g, &err) == 0) {
            for (size_t j = 0; j < g.n; j++)
                if (g.facts[j].right)
                    add(r, sev, "time-too-lenient", k->path, g.facts[j].fact->line, _("%s of question '%s' is graded right even "
                        "at %s the key's value (%g us against %s): a tolerance that wide cannot tell a good estimate from a "
                        "bad one"), g.facts[j].fact->label, g.facts[j].prediction->id, half ? _("half") : _("twice"),
                        g.facts[j].predicted_us, x->path);
            wb_grade_free(&g);
        }
        view_free(&off);
    }

    /* every question can be failed: graded against the answers off by one, some fact is wrong */
    wb_prediction_set wrong;
    if (lesson_view(l, &a->answers, 1, 1, &wrong)) {
        r->out_of_memory = 1;
        view_free(&wrong);
        return;
    }
    if (wrong.n && wb_grade_predictions(&wrong, l, &x->rec, &g, &err) == 0) {
        for (size_t i = 0; i < wrong.n; i++) {
            size_t facts = 0, right = 0;
            for (size_t j = 0; j < g.n; j++)
                if (g.facts[j].prediction == &wrong.items[i]) facts++, right += (size_t)g.facts[j].right;
            if (facts > 0 && right == facts)
                add(r, sev, "cannot-fail", k->path, wrong.items[i].line, _("question '%s' is graded right even with every answer "
                    "off by one against %s: it cannot be failed"), wrong.items[i].id, x->path);
        }
        wb_grade_free(&g);
    }
    view_free(&wrong);
}

/* ---- the program's source ---------------------------------------------------------------------- */

typedef struct {
    char *text;
    size_t len, cap;
} source_text;

static void append_sources(source_text *s, const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (!d || depth > 4) {
        if (d) closedir(d);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "traces")) continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (wb_is_dir(path)) {
            append_sources(s, path, depth + 1);
            continue;
        }
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (strcmp(dot, ".c") && strcmp(dot, ".cu") && strcmp(dot, ".h") && strcmp(dot, ".cuh") && strcmp(dot, ".cpp") &&
                     strcmp(dot, ".hpp") && strcmp(dot, ".py")))
            continue;
        FILE *f = wb_open_regular_file(path); /* a FIFO named x.cu is skipped, never waited on */
        if (!f) continue;
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0 && s->len < (64u << 20)) {
            if (s->len + n + 1 > s->cap) {
                size_t cap = (s->cap + n) * 2;
                char *p = realloc(s->text, cap);
                if (!p) break;
                s->text = p;
                s->cap = cap;
            }
            memcpy(s->text + s->len, buf, n);
            s->len += n;
            s->text[s->len] = '\0';
        }
        fclose(f);
    }
    closedir(d);
}

/* A key of kind among the recordings' captures (api_calls: a call of any run). */
static int recordings_hold(recording *recs, size_t n_recs, const wb_fact_kind_info *kind, const char *key) {
    for (size_t i = 0; i < n_recs; i++)
        for (size_t j = 0; recs[i].usable && j < recs[i].rec.n_runs; j++)
            if (kind->in_capture && kind->in_capture(key, &recs[i].rec.runs[j].capture)) return 1;
    return 0;
}

/* range among the ranges of the variant's runs in the recordings: for a PyTorch variant, PyTorch
 * names its own (an operator's, Dynamo's), which no lesson source spells out */
static int recordings_range(recording *recs, size_t n_recs, const char *variant, const char *range) {
    for (size_t i = 0; variant && i < n_recs; i++) {
        const wb_run *run = recs[i].usable ? wb_recording_run(&recs[i].rec, variant) : NULL;
        if (run && run_has_range(run, range)) return 1;
    }
    return 0;
}

/* Every range a question asks about is a string in the program's source (the lesson's files,
 * scripts included, and the shared common/ helpers, which emit the step harness's ranges) or, for
 * the ranges PyTorch makes, in a recording of the question's PyTorch variant; every API a question counts
 * is named in the source or seen in a recording. */
static void check_source(wb_lint_report *r, const wb_lesson *l, recording *recs, size_t n_recs) {
    source_text s = {0};
    char root[4096], common[4200];
    append_sources(&s, l->dir, 0);
    wb_root_dir(l->dir, root, sizeof root);
    snprintf(common, sizeof common, "%s/common", root);
    append_sources(&s, common, 0);
    if (!s.text) {
        add(r, WB_LINT_WARNING, "source-missing", l->dir, 0, _("no program source (.c, .cu, .h, .py) found to check questions against"));
        return;
    }
    for (size_t i = 0; i < l->n_questions; i++) {
        const wb_question *q = &l->questions[i];
        char quoted[600];
        snprintf(quoted, sizeof quoted, "\"%s\"", q->range);
        const char *qv = question_variant(q, l);
        int by_pytorch = qv && wb_variant_is_python(wb_lesson_variant(l, qv)) && recordings_range(recs, n_recs, qv, q->range);
        if (!strstr(s.text, quoted) && !by_pytorch)
            add(r, WB_LINT_ERROR, "range-not-in-source", l->path, q->line, _("question '%s' asks about range '%s', but the "
                "program's source never names it (\"%s\" in %s or common/): a typo, or a range it cannot emit"), q->id, q->range,
                q->range, l->dir);
        for (size_t j = 0; j < q->n_facts; j++) {
            const char *key;
            const wb_fact_kind_info *kind = wb_fact_kind_of_label(q->facts[j], &key);
            if (!kind || !kind->in_source || kind->in_source(key, s.text) || recordings_hold(recs, n_recs, kind, key)) continue;
            add(r, WB_LINT_WARNING, "api-not-in-source", l->path, q->line, _("question '%s' counts %s, which neither the "
                "program's source nor any recording names: a typo?"), q->id, key);
        }
    }
    free(s.text);
}

/* ---- names shown before they are predicted ---------------------------------------------------- */

typedef struct {
    wb_lint_report *r;
    const wb_lesson *l;
    int ranges_line;
} leak_report;

static void report_leak(const wb_name_leak *leak, void *ctx) {
    leak_report *x = ctx;
    char what[512];
    if (leak->reader)
        snprintf(what, sizeof what, _("question '%s' names %s in its %s"), leak->reader->id, leak->word, leak->where);
    else
        snprintf(what, sizeof what, _("'ranges' names %s"), leak->word);
    add(x->r, WB_LINT_ERROR, "question-names-kernel", x->l->path, leak->reader ? leak->reader->line : x->ranges_line,
        _("%s, a kernel that question '%s' asks the learner to predict (%s): the name answers it before it is predicted. Ask "
          "about such a range by a pattern (range: \"re:...\", docs/predictions.md, \"Range names\") or leave the name out"),
        what, leak->asker->id, leak->key);
}

/* lesson.yaml's ranges and questions name no kernel another question asks to be predicted,
 * unless the learner is shown it first: in the program's sources or the README before its reveal
 * line (name_leaks.h). */
static void check_name_leaks(wb_lint_report *r, const wb_lesson *l, recording *recs, size_t n_recs) {
    source_text s = {0};
    char root[4096], common[4200], readme[4200];
    append_sources(&s, l->dir, 0);
    wb_root_dir(l->dir, root, sizeof root);
    snprintf(common, sizeof common, "%s/common", root);
    append_sources(&s, common, 0);
    snprintf(readme, sizeof readme, "%s/README.md", l->dir);
    char *text = NULL;
    size_t length = 0;
    wb_error err = {0};
    if (wb_file_exists(readme) && !wb_read_file(readme, "README.md", 16u << 20, &text, &length, &err)) {
        char *reveal = strstr(text, "<!-- reveal -->");
        if (reveal) *reveal = '\0';
        size_t n = strlen(text), have = s.text ? s.len : 0;
        char *joined = realloc(s.text, have + n + 2);
        if (joined) {
            joined[have] = '\n';
            memcpy(joined + have + 1, text, n + 1);
            s.text = joined;
        }
    }
    free(text);
    leak_report x = {r, l, line_of(l->path, "ranges:")};
    for (size_t i = 0; i < n_recs; i++)
        if (recs[i].usable) {
            wb_find_name_leaks(l, &recs[i].rec, s.text, report_leak, &x);
            break; /* one recording names the kernels: another architecture's would repeat each issue */
        }
    free(s.text);
}

/* ---- the lesson ----------------------------------------------------------------------------- */

int wb_lint_not_a_lesson(const char *dir, wb_lint_report *r) {
    memset(r, 0, sizeof *r);
    snprintf(r->lesson_dir, sizeof r->lesson_dir, "%s", dir);
    wb_lesson_dir_name(dir, r->lesson, sizeof r->lesson);
    add(r, WB_LINT_ERROR, "lesson-missing", dir, 0, _("a lesson folder (NN_ prefix) without lesson.yaml: the course skips it "
                                                    "(grader new makes a complete one)"));
    return r->out_of_memory ? -1 : 0;
}

int wb_lint_lesson(const char *lesson_dir, wb_lint_report *r) {
    memset(r, 0, sizeof *r);
    snprintf(r->lesson_dir, sizeof r->lesson_dir, "%s", lesson_dir);
    wb_lesson_dir_name(lesson_dir, r->lesson, sizeof r->lesson);
    wb_lesson l;
    wb_error err = {0};
    char yaml[4200];
    snprintf(yaml, sizeof yaml, "%s/lesson.yaml", lesson_dir);
    if (wb_lesson_load(lesson_dir, &l, &err)) {
        add_reader_error(r, "lesson-yaml", yaml, err.message);
        return r->out_of_memory ? -1 : 0;
    }
    r->draft = l.draft;
    check_lesson_text(r, &l);
    check_title(r, &l);
    check_cmake(r, &l);
    check_readme(r, &l);
    check_template(r, &l);
    check_work(r, &l);

    char raw[4400], key_path[4400];
    wb_answer_key_path(l.dir, l.lesson, raw, sizeof raw);
    normalize(raw, key_path, sizeof key_path);
    wb_answer_key key;
    int have_key = 0;
    char sealed_raw[4400], sealed[4400];
    wb_sealed_key_path(l.dir, l.lesson, sealed_raw, sizeof sealed_raw);
    normalize(sealed_raw, sealed, sizeof sealed);
    if (!wb_file_exists(key_path) && wb_file_exists(sealed)) {
        /* a released copy (grader release): the answers are withheld, so the key's checks are the
         * instructor's, made before releasing */
        add(r, WB_LINT_WARNING, "key-sealed", sealed, 0, _("a released course: the answer key is sealed, so its checks "
            "against the questions and recordings ran where the course was released"));
    } else if (!wb_file_exists(key_path)) {
        add(r, WB_LINT_ERROR, "key-missing", key_path, 0, _("no answer key for %s (grader new makes a skeleton)"), l.lesson);
    } else {
        wb_error kerr = {0};
        if (wb_answer_key_load(key_path, &key, &kerr)) {
            add_reader_error(r, "key-unreadable", key_path, kerr.message);
            wb_answer_key_free(&key);
        } else {
            have_key = 1;
            check_key(r, &l, &key);
        }
    }

    recording *recs = NULL;
    size_t n = load_recordings(r, &l, &recs);
    if (n == 0) {
        char traces[4200];
        snprintf(traces, sizeof traces, "%s/traces", l.dir);
        add(r, WB_LINT_ERROR, "recording-missing", traces, 0, _("no recording: learners without a GPU cannot check this lesson, and "
            "nothing here can be checked against what the program does. On a GPU: grader record %s"), l.dir);
    }
    check_source(r, &l, recs, n);
    check_name_leaks(r, &l, recs, n);
    for (size_t i = 0; i < n; i++) {
        if (!recs[i].usable) continue;
        check_recording(r, &l, &recs[i]);
        if (recs[i].usable && have_key) check_replay(r, &l, &key, &recs[i]);
    }
    if (have_key)
        for (size_t i = 0; i < key.n_archs; i++) {
            if (!key.archs[i].verified) continue;
            int recorded = 0;
            for (size_t j = 0; j < n && !recorded; j++)
                recorded = recs[j].rec.n_runs && !strcmp(recs[j].rec.runs[0].capture.arch, key.archs[i].arch);
            if (!recorded)
                add(r, WB_LINT_WARNING, "verified-without-recording", key_path, 0, _("%s is marked verified, but there is no %s "
                    "recording in traces/ to check it against here"), key.archs[i].arch, key.archs[i].arch);
        }
    for (size_t i = 0; i < n; i++) wb_recording_free(&recs[i].rec);
    free(recs);
    check_translations(r, &l, have_key ? &key : NULL);
    if (have_key) wb_answer_key_free(&key);
    wb_lesson_free(&l);
    return r->out_of_memory ? -1 : 0;
}
