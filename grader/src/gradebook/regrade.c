/* regrade.c: see regrade.h. */
#define _GNU_SOURCE
#include "regrade.h"
#include "wb_predict.h"
#include "wb_capture.h"
#include "wb_grade.h"
#include "wb_base.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What grading against one architecture needs, loaded once. */
typedef struct {
    char arch[16];
    int have_recording;
    wb_recording rec;
} arch_files;

struct wb_regrade_lesson {
    int loaded;
    wb_lesson lesson;
    arch_files *archs;
    size_t n_archs;
    int key_state; /* 0 not looked at, 1 loaded, -1 none or unreadable */
    wb_answer_key key;
};

int wb_regrader_init(wb_regrader *r, const char *root, wb_error *err) {
    memset(r, 0, sizeof *r);
    snprintf(r->root, sizeof r->root, "%s", root);
    if (wb_course_identity_get(root, &r->identity, err)) return err->code;
    r->lessons = calloc(r->identity.n + 1, sizeof *r->lessons);
    if (!r->lessons) {
        wb_course_identity_free(&r->identity);
        return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
    }
    return 0;
}

void wb_regrader_free(wb_regrader *r) {
    for (size_t i = 0; r->lessons && i < r->identity.n; i++) {
        wb_regrade_lesson *l = &r->lessons[i];
        if (l->loaded) wb_lesson_free(&l->lesson);
        for (size_t a = 0; a < l->n_archs; a++)
            if (l->archs[a].have_recording) wb_recording_free(&l->archs[a].rec);
        free(l->archs);
        if (l->key_state > 0) wb_answer_key_free(&l->key);
    }
    free(r->lessons);
    wb_course_identity_free(&r->identity);
    memset(r, 0, sizeof *r);
}

static wb_regrade_lesson *lesson_of(wb_regrader *r, const char *name, wb_error *err) {
    for (size_t i = 0; i < r->identity.n; i++) {
        if (strcmp(r->identity.lessons[i], name)) continue;
        wb_regrade_lesson *l = &r->lessons[i];
        if (!l->loaded) {
            char dir[4400];
            snprintf(dir, sizeof dir, "%s/lessons/%s", r->root, name);
            if (wb_lesson_load(dir, &l->lesson, err)) return NULL;
            l->loaded = 1;
        }
        return l;
    }
    wb_fail(err, WB_EXIT_INPUT, _("lesson %s is not one of the course's"), name);
    return NULL;
}

const wb_lesson *wb_regrader_lesson(wb_regrader *r, const char *name, wb_error *err) {
    wb_regrade_lesson *l = lesson_of(r, name, err);
    return l ? &l->lesson : NULL;
}

/* The recording of arch (loaded once), or NULL when the lesson has none. */
static const wb_recording *recording_of(wb_regrade_lesson *l, const char *arch, wb_error *err, int *failed) {
    *failed = 0;
    for (size_t a = 0; a < l->n_archs; a++)
        if (!strcmp(l->archs[a].arch, arch)) return l->archs[a].have_recording ? &l->archs[a].rec : NULL;
    arch_files *grown = realloc(l->archs, (l->n_archs + 1) * sizeof *grown);
    if (!grown) {
        *failed = wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
        return NULL;
    }
    l->archs = grown;
    arch_files *f = &l->archs[l->n_archs++];
    memset(f, 0, sizeof *f);
    snprintf(f->arch, sizeof f->arch, "%s", arch);
    char path[4600];
    snprintf(path, sizeof path, "%s/traces/%s.json", l->lesson.dir, arch);
    if (!wb_file_exists(path)) return NULL;
    if (wb_recording_load(path, &f->rec, err)) {
        *failed = err->code;
        return NULL;
    }
    f->have_recording = 1;
    return &f->rec;
}

/* The answer key's verified answers for arch, or NULL. */
static const wb_prediction_set *key_answers(wb_regrade_lesson *l, const char *arch) {
    if (l->key_state == 0) {
        char path[4600];
        wb_answer_key_path(l->lesson.dir, l->lesson.lesson, path, sizeof path);
        wb_error ignored = {0};
        l->key_state = wb_file_exists(path) && wb_answer_key_load(path, &l->key, &ignored) == 0 ? 1 : -1;
    }
    if (l->key_state < 0) return NULL;
    const wb_arch_answers *a = wb_answer_key_arch(&l->key, arch);
    return a && a->verified ? &a->answers : NULL;
}

/* ---- the submitted gradings ---------------------------------------------------------------- */

/* A time in microseconds as a predictions file writes it: "180.5" (no exponent, no trailing zeros). */
static void time_text(double us, char *buf, size_t cap) {
    snprintf(buf, cap, "%.6f", us);
    char *end = buf + strlen(buf) - 1;
    while (end > buf && *end == '0') *end-- = '\0';
    if (*end == '.') *end = '\0';
}

static void value_text(json_t *v, const char *kind, char *buf, size_t cap) {
    const wb_fact_value_type *type = wb_fact_value_named(kind);
    double value;
    if (!v || json_is_null(v) || !type || type->from_json(v, &value)) snprintf(buf, cap, "%s", "");
    else if (type->banded) time_text(value, buf, cap);
    else type->text(value, buf, cap);
}

static int collect(json_t *lesson, const char *try, wb_regraded *out) {
    size_t n = 0, i, j;
    json_t *q, *f;
    json_array_foreach(json_object_get(lesson, "questions"), i, q) n += json_array_size(json_object_get(q, "facts"));
    out->facts = calloc(n + 1, sizeof *out->facts);
    out->n = 0;
    if (!out->facts) return -1;
    json_array_foreach(json_object_get(lesson, "questions"), i, q) json_array_foreach(json_object_get(q, "facts"), j, f) {
        wb_regraded_fact *x = &out->facts[out->n++];
        json_t *g = json_object_get(f, try);
        x->question = json_string_value(json_object_get(q, "id"));
        x->label = json_string_value(json_object_get(f, "fact"));
        x->kind = wb_fact_label_kind(x->label); /* validated: the label is a fact of the schema */
        x->source = json_string_value(json_object_get(g, "source"));
        x->arch = json_string_value(json_object_get(g, "arch"));
        x->gpu = json_string_value(json_object_get(g, "gpu"));
        x->graded_at = json_string_value(json_object_get(g, "graded_at"));
        value_text(json_object_get(g, "predicted"), x->kind, x->predicted, sizeof x->predicted);
        value_text(json_object_get(g, "actual"), x->kind, x->actual, sizeof x->actual);
        x->submitted_right = x->right = json_is_true(json_object_get(g, "right"));
        x->error_share = NAN;
        x->against = WB_AGAINST_NOTHING;
        snprintf(x->against_text, sizeof x->against_text, "nothing for %s", x->arch);
    }
    return 0;
}

/* The facts of one architecture as a predictions file (YAML; strings as JSON, which YAML reads). */
static char *predictions_yaml(const char *lesson_name, json_t *lesson, const wb_regraded *g, const char *arch, size_t *len) {
    char *text = NULL;
    FILE *m = open_memstream(&text, len);
    if (!m) return NULL;
    fprintf(m, "lesson: %s\npredictions:\n", lesson_name);
    size_t k = 0, i, j;
    json_t *q, *f;
    size_t n_kinds;
    const wb_fact_kind_info *kinds = wb_fact_kinds(&n_kinds);
    json_array_foreach(json_object_get(lesson, "questions"), i, q) {
        size_t first = k, n = json_array_size(json_object_get(q, "facts")), mine = 0;
        for (j = 0; j < n; j++) mine += !strcmp(g->facts[first + j].arch, arch);
        k += n;
        if (!mine) continue;
        char *s = json_dumps(json_object_get(q, "id"), JSON_ENCODE_ANY);
        fprintf(m, "  - id: %s\n", s);
        free(s);
        if (json_is_string(json_object_get(q, "variant"))) {
            s = json_dumps(json_object_get(q, "variant"), JSON_ENCODE_ANY);
            fprintf(m, "    variant: %s\n", s);
            free(s);
        }
        s = json_dumps(json_object_get(q, "range"), JSON_ENCODE_ANY);
        fprintf(m, "    range: %s\n", s);
        free(s);
        long long rank = json_integer_value(json_object_get(q, "rank"));
        if (rank >= 0) fprintf(m, "    rank: %lld\n", rank);
        for (j = 0; j < n; j++) {
            const wb_regraded_fact *x = &g->facts[first + j];
            if (strcmp(x->arch, arch) || strchr(x->label, '.')) continue;
            fprintf(m, "    %s: %s\n", x->label, x->predicted);
        }
        for (size_t grp = 0; grp < n_kinds; grp++) { /* a keyed kind's facts: one map */
            if (!kinds[grp].keyed) continue;
            int open = 0;
            const char *group = kinds[grp].name;
            size_t glen = strlen(group);
            json_array_foreach(json_object_get(q, "facts"), j, f) {
                const wb_regraded_fact *x = &g->facts[first + j];
                if (strcmp(x->arch, arch) || strncmp(x->label, group, glen) || x->label[glen] != '.') continue;
                json_t *key = json_string(x->label + glen + 1);
                s = json_dumps(key, JSON_ENCODE_ANY);
                json_decref(key);
                if (open) fputs(", ", m);
                else fprintf(m, "    %s: {", group);
                fprintf(m, "%s: %s", s, x->predicted);
                open = 1;
                free(s);
            }
            if (open) fprintf(m, "}\n");
        }
    }
    if (fclose(m) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static wb_regraded_fact *find_fact(wb_regraded *g, const char *arch, const char *question, const char *label) {
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->facts[i].arch, arch) && !strcmp(g->facts[i].question, question) && !strcmp(g->facts[i].label, label))
            return &g->facts[i];
    return NULL;
}

/* ---- grading one architecture's facts ------------------------------------------------------- */

static int against_recording(const char *path, wb_regrade_lesson *l, json_t *lesson, const char *try, const wb_recording *rec,
                             const char *arch, wb_regraded *g, wb_error *err) {
    size_t len = 0;
    char *yaml = predictions_yaml(l->lesson.lesson, lesson, g, arch, &len);
    if (!yaml) return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
    char what[4400];
    /* the name the predictions reader gives its errors: a sentence per try ("first", "latest"),
     * since Japanese does not say the try where English does */
    if (strcmp(try, "first") == 0)
        snprintf(what, sizeof what, _("%s (lesson %s, first try, as a predictions file)"), path, l->lesson.lesson);
    else
        snprintf(what, sizeof what, _("%s (lesson %s, latest try, as a predictions file)"), path, l->lesson.lesson);
    wb_prediction_set p;
    wb_grade grade;
    int rc = wb_predictions_load_buffer(what, yaml, len, &p, err);
    free(yaml);
    if (rc) return rc;
    if (!(rc = wb_predictions_check_lesson(&p, &l->lesson, err)) && !(rc = wb_grade_predictions(&p, &l->lesson, rec, &grade, err))) {
        for (size_t i = 0; i < grade.n; i++) {
            const wb_graded_fact *x = &grade.facts[i];
            wb_regraded_fact *f = find_fact(g, arch, x->prediction->id, x->fact->label);
            if (!f) continue;
            f->right = x->right != 0;
            if (x->actual < 0) f->actual[0] = '\0';
            else if (x->is_time) time_text(round(x->actual_us * 10) / 10, f->actual, sizeof f->actual);
            else wb_graded_actual_text(x, f->actual, sizeof f->actual);
            if (x->is_time && x->actual >= 0 && x->actual_us > 0) f->error_share = (x->predicted_us - x->actual_us) / x->actual_us;
            f->against = WB_AGAINST_RECORDING;
            snprintf(f->against_text, sizeof f->against_text, "recording %s", arch);
        }
        wb_grade_free(&grade);
    }
    if (rc == WB_EXIT_CAPTURE) /* the course's own recording lacks what its questions need */
        rc = wb_fail(err, WB_EXIT_INPUT, _("%s: cannot regrade lesson %s against its recording %s (fix the course, then import again)"),
                     path, l->lesson.lesson, arch);
    wb_predictions_free(&p);
    return rc;
}

static void against_key(wb_regrade_lesson *l, const wb_prediction_set *answers, const char *arch, wb_regraded *g) {
    for (size_t i = 0; i < g->n; i++) {
        wb_regraded_fact *x = &g->facts[i];
        if (strcmp(x->arch, arch)) continue;
        const wb_prediction *p = wb_predictions_find(answers, x->question);
        const wb_fact *k = NULL;
        for (size_t j = 0; p && j < p->n_facts && !k; j++)
            if (!strcmp(p->facts[j].label, x->label)) k = &p->facts[j];
        if (!k || k->predicted < 0) continue; /* the key does not answer it: stays unverified */
        wb_fact_value_text(k, x->actual, sizeof x->actual);
        if (wb_fact_value_of(k)->banded) {
            double want = k->value, got = strtod(x->predicted, NULL);
            x->right = fabs(got - want) <= wb_lesson_tolerance(&l->lesson, x->question) * want;
            time_text(want, x->actual, sizeof x->actual);
            if (want > 0) x->error_share = (got - want) / want;
        } else { /* both written by the type's text: "5", "memory" */
            x->right = !strcmp(x->predicted, x->actual);
        }
        x->against = WB_AGAINST_KEY;
        snprintf(x->against_text, sizeof x->against_text, "key %s", arch);
    }
}

int wb_regrade(wb_regrader *r, const char *path, json_t *lesson, const char *try, wb_regraded *out, wb_error *err) {
    memset(out, 0, sizeof *out);
    const char *name = json_string_value(json_object_get(lesson, "lesson"));
    wb_regrade_lesson *l = lesson_of(r, name, err);
    if (!l) return err->code;
    if (collect(lesson, try, out)) return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
    int rc = 0;
    /* the gradebook's statistics are per question of the course: none other may come in */
    for (size_t i = 0; i < out->n && !rc; i++)
        if (!wb_lesson_question(&l->lesson, out->facts[i].question))
            rc = wb_fail(err, WB_EXIT_INPUT, _("%s: lesson %s has no question '%s' (its lesson.yaml asks others): it is not a "
                         "submission of this course; ask the learner to run grader submit again"), path, name,
                         out->facts[i].question);
    /* each architecture the gradings name, in order of first appearance */
    for (size_t i = 0; i < out->n && !rc; i++) {
        const char *arch = out->facts[i].arch;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) seen = !strcmp(out->facts[j].arch, arch);
        if (seen) continue;
        int failed;
        const wb_recording *rec = recording_of(l, arch, err, &failed);
        if (failed) rc = failed;
        else if (rec) rc = against_recording(path, l, lesson, try, rec, arch, out, err);
        else {
            const wb_prediction_set *answers = key_answers(l, arch);
            if (answers) against_key(l, answers, arch, out);
        }
    }
    if (rc) wb_regraded_free(out);
    return rc;
}

void wb_regraded_free(wb_regraded *g) {
    free(g->facts);
    g->facts = NULL;
    g->n = 0;
}
