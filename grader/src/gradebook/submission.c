/*
 * submission.c: see submission.h. Building walks the progress file's per-fact gradings; reading
 * checks every field the gradebook uses (types, ranges, names that become file names or YAML),
 * so that the import works only on what this file validated.
 */
#define _GNU_SOURCE
#include "submission.h"
#include "wb_grade.h"
#include "wb_predict.h"
#include "wb_base.h"

#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building ------------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The keys of an object in byte order (malloc'd array of borrowed strings). */
static const char **sorted_keys(json_t *o, size_t *n) {
    *n = 0;
    const char **keys = calloc(json_object_size(o) + 1, sizeof *keys);
    const char *k;
    json_t *v;
    if (!keys) return NULL;
    json_object_foreach(o, k, v) keys[(*n)++] = k;
    qsort(keys, *n, sizeof *keys, cmp_str);
    return keys;
}

static json_t *grading_copy(json_t *g) {
    static const char *const KEYS[] = {"predicted", "actual", "right", "graded_at", "source", "arch", "gpu", NULL};
    json_t *out = json_object();
    for (int i = 0; out && KEYS[i]; i++) {
        json_t *v = json_object_get(g, KEYS[i]);
        json_object_set(out, KEYS[i], v ? v : json_null());
    }
    return out;
}

static json_t *questions_of(json_t *kept) {
    size_t nq, nf;
    const char **ids = sorted_keys(kept, &nq);
    json_t *out = json_array();
    for (size_t i = 0; ids && out && i < nq; i++) {
        json_t *q = json_object_get(kept, ids[i]), *facts = json_object_get(q, "facts");
        json_t *rank = json_object_get(q, "rank");
        json_t *item = json_pack("{s:s, s:O?, s:O?, s:I, s:[]}", "id", ids[i], "variant", json_object_get(q, "variant"),
                                 "range", json_object_get(q, "range"), "rank",
                                 json_is_integer(rank) ? json_integer_value(rank) : (json_int_t)-1, "facts");
        const char **labels = sorted_keys(facts, &nf);
        for (size_t j = 0; item && labels && j < nf; j++) {
            json_t *f = json_object_get(facts, labels[j]);
            json_array_append_new(json_object_get(item, "facts"),
                                  json_pack("{s:s, s:o, s:o}", "fact", labels[j], "first",
                                            grading_copy(json_object_get(f, "first")), "latest",
                                            grading_copy(json_object_get(f, "latest"))));
        }
        free(labels);
        json_array_append_new(out, item);
    }
    free(ids);
    return out;
}

int wb_submission_build(const wb_course_identity *course, json_t *progress, const char *const *lessons, size_t n_lessons,
                        const char *learner, const char *grader_version, FILE *notes, json_t **out, wb_error *err) {
    *out = NULL;
    for (size_t k = 0; k < n_lessons; k++)
        if (!wb_course_identity_lesson(course, lessons[k]))
            return wb_fail(err, WB_EXIT_INPUT, _("lesson %s is not one of the course's (a draft, or not a lesson here)"), lessons[k]);
    json_t *ids = json_object(), *list = json_array();
    json_t *root = json_pack("{s:s, s:i, s:s, s:s, s:{s:s, s:o}, s:o}", "format", WB_SUBMISSION_FORMAT, "version",
                             WB_SUBMISSION_VERSION, "grader_version", grader_version, "learner", learner, "course", "id",
                             course->id, "lessons", ids, "lessons", list);
    if (!root) return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
    json_t *done = json_object_get(progress, "lessons");
    for (size_t i = 0; i < course->n; i++) {
        const char *name = course->lessons[i];
        int asked = n_lessons == 0;
        for (size_t k = 0; k < n_lessons; k++) asked |= !strcmp(lessons[k], name);
        if (!asked) continue;
        json_t *e = json_object_get(done, name), *kept = json_object_get(e, "questions");
        if (!json_is_object(kept) || json_object_size(kept) == 0) {
            /* whole sentences, one per reason: a translation orders them its own way */
            int older = e && json_object_get(e, "first_total");
            if (n_lessons) {
                json_decref(root);
                if (older)
                    return wb_fail(err, WB_EXIT_INPUT, _("lesson %s was graded by a grader that did not keep each fact's "
                                                         "first try yet: grade it first (grader check %s), then submit"),
                                   name, name);
                return wb_fail(err, WB_EXIT_INPUT,
                               _("lesson %s has not been graded yet: grade it first (grader check %s), then submit"), name, name);
            }
            if (notes && older)
                fprintf(notes, _("note: lesson %s was graded by a grader that did not keep each fact's first try yet: left out\n"),
                        name);
            else if (notes)
                fprintf(notes, _("note: lesson %s has not been graded yet: left out\n"), name);
            continue;
        }
        json_object_set_new(ids, name, json_string(course->lesson_ids[i]));
        json_t *state = json_object_get(e, "state"), *attempts = json_object_get(e, "attempts");
        json_array_append_new(list, json_pack("{s:s, s:s, s:I, s:b, s:o}", "lesson", name, "state",
                                              json_is_string(state) ? json_string_value(state) : "graded", "attempts",
                                              json_is_integer(attempts) ? json_integer_value(attempts) : (json_int_t)0,
                                              "revealed_before_grading",
                                              json_is_true(json_object_get(e, "revealed_without_predictions")), "questions",
                                              questions_of(kept)));
    }
    if (json_array_size(list) == 0) {
        json_decref(root);
        return wb_fail(err, WB_EXIT_INPUT, _("no lesson has been graded yet: grade one first (grader check), then submit"));
    }
    *out = root;
    return 0;
}

/* ---- reading -------------------------------------------------------------------------------- */

static int bad(wb_error *err, const char *path, const char *where, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int bad(wb_error *err, const char *path, const char *where, const char *fmt, ...) {
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return wb_fail(err, WB_EXIT_INPUT,
                   _("%s: %s: %s. It is not a submission as grader submit writes it (docs/gradebook.md): ask the "
                   "learner to run grader submit again and send the file as it is"),
                   path, where, what);
}

/* A string of 1..max bytes without control characters. */
static int text_ok(json_t *v, size_t max) {
    if (!json_is_string(v)) return 0;
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (n == 0 || n > max || strlen(s) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return 0;
    return 1;
}

static int id_ok(json_t *v) {
    if (!text_ok(v, 64)) return 0;
    const char *s = json_string_value(v);
    return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(s);
}

/* "sm_90", "sm_90a": it names a recording file, traces/<arch>.json. */
static int arch_ok(json_t *v) {
    if (!text_ok(v, 12)) return 0;
    const char *s = json_string_value(v);
    if (strncmp(s, "sm_", 3) || !(s[3] >= '0' && s[3] <= '9')) return 0;
    size_t d = strspn(s + 3, "0123456789");
    return s[3 + d] == '\0' || (s[3 + d] >= 'a' && s[3 + d] <= 'z' && s[4 + d] == '\0');
}

static int value_ok(json_t *v, const char *kind) {
    const wb_fact_value_type *type = wb_fact_value_named(kind);
    double value;
    return type && type->from_json(v, &value) == 0;
}

static int check_grading(const char *path, const char *where, json_t *g, const char *kind, wb_error *err) {
    char at[600];
    snprintf(at, sizeof at, "%s", where);
    if (!json_is_object(g)) return bad(err, path, at, _("not an object"));
    if (!value_ok(json_object_get(g, "predicted"), kind))
        return bad(err, path, at, _("'predicted' is no %s value"), kind);
    json_t *actual = json_object_get(g, "actual");
    if (!json_is_null(actual) && !value_ok(actual, kind)) return bad(err, path, at, _("'actual' is no %s value, nor null"), kind);
    if (!json_is_boolean(json_object_get(g, "right"))) return bad(err, path, at, _("'right' is not true or false"));
    const char *source = json_string_value(json_object_get(g, "source"));
    if (!source || (strcmp(source, "live") && strcmp(source, "replay")))
        return bad(err, path, at, _("'source' is neither live nor replay"));
    if (!arch_ok(json_object_get(g, "arch"))) return bad(err, path, at, _("'arch' is no GPU architecture (sm_90)"));
    json_t *gpu = json_object_get(g, "gpu");
    if (!json_is_string(gpu) || json_string_length(gpu) > 255) return bad(err, path, at, _("'gpu' is no GPU name"));
    if (!text_ok(json_object_get(g, "graded_at"), 40)) return bad(err, path, at, _("'graded_at' is no time"));
    return 0;
}

static int check_lesson(const char *path, json_t *l, size_t index, wb_error *err) {
    char at[800];
    snprintf(at, sizeof at, "lessons[%zu]", index);
    if (!json_is_object(l)) return bad(err, path, at, _("not an object"));
    if (!text_ok(json_object_get(l, "lesson"), 255)) return bad(err, path, at, _("'lesson' is no lesson name"));
    snprintf(at, sizeof at, "lesson %s", json_string_value(json_object_get(l, "lesson")));
    json_t *attempts = json_object_get(l, "attempts");
    if (!json_is_integer(attempts) || json_integer_value(attempts) < 0) return bad(err, path, at, _("'attempts' is no count"));
    if (!json_is_boolean(json_object_get(l, "revealed_before_grading")))
        return bad(err, path, at, _("'revealed_before_grading' is not true or false"));
    json_t *qs = json_object_get(l, "questions");
    if (!json_is_array(qs) || json_array_size(qs) == 0 || json_array_size(qs) > 1000)
        return bad(err, path, at, _("'questions' is not a list of 1 to 1000 questions"));
    size_t i, j;
    json_t *q, *f;
    json_array_foreach(qs, i, q) {
        char qat[1000];
        snprintf(qat, sizeof qat, "%s, questions[%zu]", at, i);
        if (!json_is_object(q) || !id_ok(json_object_get(q, "id"))) return bad(err, path, qat, _("'id' is no question id ([a-z0-9-])"));
        snprintf(qat, sizeof qat, "%s, question %s", at, json_string_value(json_object_get(q, "id")));
        json_t *variant = json_object_get(q, "variant"), *rank = json_object_get(q, "rank"), *facts = json_object_get(q, "facts");
        if (!json_is_null(variant) && variant && !text_ok(variant, 255)) return bad(err, path, qat, _("'variant' is no name"));
        if (!text_ok(json_object_get(q, "range"), 255)) return bad(err, path, qat, _("'range' is no range name"));
        if (!json_is_integer(rank) || json_integer_value(rank) < -1 || json_integer_value(rank) > 4096)
            return bad(err, path, qat, _("'rank' is no rank (-1 for all)"));
        if (!json_is_array(facts) || json_array_size(facts) == 0 || json_array_size(facts) > 1000)
            return bad(err, path, qat, _("'facts' is not a list of 1 to 1000 facts"));
        json_array_foreach(facts, j, f) {
            json_t *label = json_object_get(f, "fact");
            const char *kind = text_ok(label, 300) ? wb_fact_label_kind(json_string_value(label)) : NULL;
            if (!kind) return bad(err, path, qat, _("facts[%zu]: 'fact' is no fact of the predictions schema"), j);
            char fat[1400];
            snprintf(fat, sizeof fat, "%s, fact %s, first", qat, json_string_value(label));
            if (check_grading(path, fat, json_object_get(f, "first"), kind, err)) return err->code;
            snprintf(fat, sizeof fat, "%s, fact %s, latest", qat, json_string_value(label));
            if (check_grading(path, fat, json_object_get(f, "latest"), kind, err)) return err->code;
        }
    }
    return 0;
}

static int check_schema(const char *path, json_t *root, wb_error *err) {
    /* not bad(): "the top level" where bad() names a field would be a fragment in the sentence */
    if (!json_is_object(root))
        return wb_fail(err, WB_EXIT_INPUT,
                       _("%s: the top level: not a JSON object. It is not a submission as grader submit writes it "
                       "(docs/gradebook.md): ask the learner to run grader submit again and send the file as it is"),
                       path);
    const char *format = json_string_value(json_object_get(root, "format"));
    if (!format || strcmp(format, WB_SUBMISSION_FORMAT)) return bad(err, path, "format", "not \"" WB_SUBMISSION_FORMAT "\"");
    json_t *version = json_object_get(root, "version");
    if (!json_is_integer(version)) return bad(err, path, "version", _("missing"));
    if (json_integer_value(version) != WB_SUBMISSION_VERSION)
        return wb_fail(err, WB_EXIT_INPUT, _("%s: version %lld of the submission format; this grader reads version %d: import it "
                       "with the grader of the course it was made for"), path, (long long)json_integer_value(version),
                       WB_SUBMISSION_VERSION);
    if (!text_ok(json_object_get(root, "learner"), 200)) return bad(err, path, "learner", _("no name of 1 to 200 characters"));
    if (!text_ok(json_object_get(root, "grader_version"), 64)) return bad(err, path, "grader_version", _("missing"));
    json_t *course = json_object_get(root, "course");
    if (!text_ok(json_object_get(course, "id"), WB_IDENTITY_CAP - 1)) return bad(err, path, "course.id", _("missing"));
    if (!json_is_object(json_object_get(course, "lessons"))) return bad(err, path, "course.lessons", _("not an object"));
    json_t *lessons = json_object_get(root, "lessons");
    if (!json_is_array(lessons) || json_array_size(lessons) == 0 || json_array_size(lessons) > 1000)
        return bad(err, path, "lessons", _("not a list of 1 to 1000 lessons"));
    size_t i, k;
    json_t *l, *other;
    json_array_foreach(lessons, i, l) {
        if (check_lesson(path, l, i, err)) return err->code;
        json_array_foreach(lessons, k, other) if (k < i && json_equal(json_object_get(other, "lesson"), json_object_get(l, "lesson")))
            return bad(err, path, "lessons", _("lesson %s is there twice"), json_string_value(json_object_get(l, "lesson")));
    }
    return 0;
}

int wb_submission_load(const char *path, json_t **out, char sha256[WB_IDENTITY_CAP], wb_error *err) {
    *out = NULL;
    char *text;
    size_t length;
    if (wb_read_file(path, "submission", WB_SUBMISSION_MAX_BYTES, &text, &length, err)) return err->code;
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_Digest(text, length, d, &n, EVP_sha256(), NULL);
    strcpy(sha256, "sha256:");
    for (unsigned i = 0; i < n; i++) sprintf(sha256 + 7 + 2 * i, "%02x", d[i]);
    json_error_t jerr;
    json_t *root = json_loadb(text, length, JSON_REJECT_DUPLICATES, &jerr);
    free(text);
    if (!root)
        return wb_fail_at(err, WB_EXIT_INPUT, path, jerr.line, jerr.column,
                          _("not a JSON document (%s): cut short or damaged on the way? Ask the learner to send the file "
                          "grader submit wrote again"), jerr.text);
    if (check_schema(path, root, err)) {
        json_decref(root);
        return err->code;
    }
    *out = root;
    return 0;
}

int wb_submission_check_course(const char *path, json_t *submission, const wb_course_identity *course, wb_error *err) {
    json_t *c = json_object_get(submission, "course");
    const char *id = json_string_value(json_object_get(c, "id"));
    if (strcmp(id, course->id) != 0)
        return wb_fail(err, WB_EXIT_INPUT,
                       _("%s: made against another course (course id %.19s..., this checkout's is %.19s...): its lessons' "
                       "questions or recordings differ. Import it in the checkout the learners' release was made from"),
                       path, id, course->id);
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(submission, "lessons"), i, l) {
        const char *name = json_string_value(json_object_get(l, "lesson"));
        const char *want = wb_course_identity_lesson(course, name);
        const char *got = json_string_value(json_object_get(json_object_get(c, "lessons"), name));
        if (!want) return wb_fail(err, WB_EXIT_INPUT, _("%s: lesson %s is not one of this course's lessons"), path, name);
        if (!got || strcmp(got, want))
            return wb_fail(err, WB_EXIT_INPUT, _("%s: lesson %s was graded against other questions or recordings than this "
                           "checkout's: import it in the checkout the learners' release was made from"), path, name);
    }
    return 0;
}
