/*
 * gradebook_stats.c: see gradebook_stats.h. A lesson at a time: its learners' scores, then the
 * cohort's first tries as a learners x facts matrix (-1 where a learner has no first try of a
 * fact), from which every figure is computed. 500 learners x 50 facts is 25,000 cells.
 */
#define _GNU_SOURCE
#include "gradebook_stats.h"
#include "gradebook_db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_col(sqlite3_stmt *s, int col) {
    const unsigned char *t = sqlite3_column_text(s, col);
    return strdup(t ? (const char *)t : "");
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **s, wb_error *err) {
    if (sqlite3_prepare_v2(db, sql, -1, s, NULL) == SQLITE_OK) return 0;
    return wb_gradebook_fail(db, _("%s: cannot read the gradebook: %s"), err);
}

/* Pearson's r of n pairs; NAN under 2 pairs or when either side does not vary. */
static double pearson(const double *x, const double *y, size_t n) {
    if (n < 2) return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) mx += x[i], my += y[i];
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    /* equal values whose mean is not exactly representable leave rounding dust, not variance */
    if (sxx <= 1e-12 * (double)n || syy <= 1e-12 * (double)n) return NAN;
    return sxy / sqrt(sxx * syy);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of n sorted values, interpolating linearly between order statistics. */
static double quantile(const double *v, size_t n, double q) {
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    if (lo + 1 >= n) return v[n - 1];
    return v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]);
}

static wb_gb_flags flags_of(long learners, double share, double discrimination) {
    wb_gb_flags f = {0, 0};
    if (learners < WB_GB_MIN_LEARNERS) return f;
    f.most_missed = share < WB_GB_MOST_MISSED;
    f.not_discriminating = isnan(discrimination) || discrimination < WB_GB_LOW_DISCRIMINATION;
    return f;
}

/* ---- one lesson ------------------------------------------------------------------------------ */

typedef struct {
    long long id;
    size_t question;  /* index in the lesson's questions */
} fact_ref;

static int learners_of(sqlite3 *db, wb_gb_lesson *l, long long **ids, wb_error *err) {
    sqlite3_stmt *s;
    const char *sql =
        "SELECT ll.learner_id, n.name, ll.status, ll.revealed_first,"
        " (SELECT group_concat(DISTINCT a.graded_against) FROM attempts a JOIN facts f ON f.id = a.fact_id"
        "   WHERE a.learner_id = ll.learner_id AND f.lesson = ll.lesson AND a.try = 'first'),"
        " (SELECT total(a.right) FROM attempts a JOIN facts f ON f.id = a.fact_id WHERE a.learner_id = ll.learner_id AND f.lesson = ll.lesson AND a.try = 'first'),"
        " (SELECT count(*) FROM attempts a JOIN facts f ON f.id = a.fact_id WHERE a.learner_id = ll.learner_id AND f.lesson = ll.lesson AND a.try = 'first'),"
        " (SELECT total(a.right) FROM attempts a JOIN facts f ON f.id = a.fact_id WHERE a.learner_id = ll.learner_id AND f.lesson = ll.lesson AND a.try = 'latest'),"
        " (SELECT count(*) FROM attempts a JOIN facts f ON f.id = a.fact_id WHERE a.learner_id = ll.learner_id AND f.lesson = ll.lesson AND a.try = 'latest')"
        " FROM learner_lessons ll JOIN learners n ON n.id = ll.learner_id WHERE ll.lesson = ? ORDER BY n.name";
    if (prepare(db, sql, &s, err)) return err->code;
    sqlite3_bind_text(s, 1, l->name, -1, SQLITE_STATIC);
    size_t cap = 0;
    *ids = NULL;
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (l->n_learners == cap) {
            cap = cap ? 2 * cap : 64;
            l->learners = realloc(l->learners, cap * sizeof *l->learners);
            *ids = realloc(*ids, cap * sizeof **ids);
            if (!l->learners || !*ids) break;
        }
        wb_gb_learner *x = &l->learners[l->n_learners];
        (*ids)[l->n_learners++] = sqlite3_column_int64(s, 0);
        x->name = dup_col(s, 1);
        x->status = dup_col(s, 2);
        x->revealed_first = sqlite3_column_int(s, 3);
        x->against = dup_col(s, 4);
        x->first_right = (long)sqlite3_column_double(s, 5);
        x->first_total = sqlite3_column_int(s, 6);
        x->latest_right = (long)sqlite3_column_double(s, 7);
        x->latest_total = sqlite3_column_int(s, 8);
        x->in_cohort = !strcmp(x->status, "regraded") && !x->revealed_first;
        l->cohort += x->in_cohort;
    }
    sqlite3_finalize(s);
    if (l->n_learners && (!l->learners || !*ids)) return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
    return 0;
}

static int questions_of(sqlite3 *db, wb_gb_lesson *l, fact_ref **refs, size_t *n_refs, wb_error *err) {
    sqlite3_stmt *s;
    const char *sql = "SELECT q.id, q.ask, f.id, f.label, f.kind FROM facts f JOIN questions q ON q.lesson = f.lesson AND q.id = f.question"
                      " WHERE f.lesson = ? ORDER BY q.position, q.id, f.position, f.label";
    if (prepare(db, sql, &s, err)) return err->code;
    sqlite3_bind_text(s, 1, l->name, -1, SQLITE_STATIC);
    size_t cap = 0, qcap = 0;
    *refs = NULL;
    *n_refs = 0;
    int oom = 0;
    while (!oom && sqlite3_step(s) == SQLITE_ROW) {
        const char *qid = (const char *)sqlite3_column_text(s, 0);
        if (!l->n_questions || strcmp(l->questions[l->n_questions - 1].id, qid)) {
            if (l->n_questions == qcap) {
                qcap = qcap ? 2 * qcap : 16;
                wb_gb_question *g = realloc(l->questions, qcap * sizeof *g);
                if (!g) { oom = 1; break; }
                l->questions = g;
            }
            wb_gb_question *q = &l->questions[l->n_questions++];
            memset(q, 0, sizeof *q);
            q->id = dup_col(s, 0);
            q->ask = dup_col(s, 1);
        }
        wb_gb_question *q = &l->questions[l->n_questions - 1];
        wb_gb_fact *grown = realloc(q->facts, (q->n_facts + 1) * sizeof *grown);
        if (*n_refs == cap) {
            cap = cap ? 2 * cap : 64;
            fact_ref *r = realloc(*refs, cap * sizeof *r);
            if (r) *refs = r;
            else oom = 1;
        }
        if (grown) q->facts = grown;
        if (!grown || oom) {
            oom = 1;
            break;
        }
        wb_gb_fact *f = &q->facts[q->n_facts++];
        memset(f, 0, sizeof *f);
        f->label = dup_col(s, 3);
        f->kind = dup_col(s, 4);
        (*refs)[(*n_refs)++] = (fact_ref){sqlite3_column_int64(s, 2), l->n_questions - 1};
    }
    sqlite3_finalize(s);
    return oom ? wb_fail(err, WB_EXIT_INPUT, _("out of memory")) : 0;
}

static long index_of(const long long *ids, size_t n, long long id) {
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id) return (long)i;
    return -1;
}

/* The wrong answers of fact column c, most common first. */
static void tally_wrong(char **answers, const signed char *right, size_t n_learners, size_t n_facts, size_t c, wb_gb_fact *f) {
    typedef struct { const char *a; long n; } tally;
    tally *t = calloc(n_learners + 1, sizeof *t);
    size_t nt = 0;
    if (!t) return;
    for (size_t i = 0; i < n_learners; i++) {
        size_t cell = i * n_facts + c;
        if (right[cell] != 0 || !answers[cell]) continue;
        size_t k = 0;
        while (k < nt && strcmp(t[k].a, answers[cell])) k++;
        if (k == nt) t[nt++] = (tally){answers[cell], 0};
        t[k].n++;
    }
    for (size_t out = 0; out < WB_GB_WRONG_ANSWERS && out < nt; out++) {
        size_t best = out;
        for (size_t k = out + 1; k < nt; k++)
            if (t[k].n > t[best].n || (t[k].n == t[best].n && strcmp(t[k].a, t[best].a) < 0)) best = k;
        tally tmp = t[out];
        t[out] = t[best];
        t[best] = tmp;
        snprintf(f->wrong[out].answer, sizeof f->wrong[out].answer, "%s", t[out].a);
        f->wrong[out].count = t[out].n;
        f->n_wrong = out + 1;
    }
    free(t);
}

static void fact_figures(const signed char *right, char **answers, const double *errors, const wb_gb_lesson *l,
                         size_t n_facts, size_t c, wb_gb_fact *f, double *x, double *y, double *e) {
    size_t n = 0, ne = 0;
    for (size_t i = 0; i < l->n_learners; i++) {
        const signed char *row = right + i * n_facts;
        if (row[c] < 0) continue;
        f->learners++;
        f->right += row[c];
        if (!isnan(errors[i * n_facts + c])) e[ne++] = errors[i * n_facts + c];
        long others = 0, others_right = 0;
        for (size_t k = 0; k < n_facts; k++)
            if (k != c && row[k] >= 0) others++, others_right += row[k];
        if (others) x[n] = row[c], y[n] = (double)others_right / (double)others, n++;
    }
    f->right_share = f->learners ? (double)f->right / (double)f->learners : NAN;
    f->discrimination = pearson(x, y, n);
    f->flags = flags_of(f->learners, f->right_share, f->discrimination);
    if (!strcmp(f->kind, "time")) {
        f->error_n = (long)ne;
        qsort(e, ne, sizeof *e, cmp_double);
        f->error_q1 = ne ? quantile(e, ne, 0.25) : NAN;
        f->error_median = ne ? quantile(e, ne, 0.5) : NAN;
        f->error_q3 = ne ? quantile(e, ne, 0.75) : NAN;
    } else {
        tally_wrong(answers, right, l->n_learners, n_facts, c, f);
    }
}

static void question_figures(const signed char *right, const fact_ref *refs, const wb_gb_lesson *l, size_t n_facts, size_t qi,
                             wb_gb_question *q, double *x, double *y) {
    size_t n = 0;
    long all_right = 0;
    double sum = 0;
    for (size_t i = 0; i < l->n_learners; i++) {
        const signed char *row = right + i * n_facts;
        long in = 0, in_right = 0, out = 0, out_right = 0;
        for (size_t k = 0; k < n_facts; k++) {
            if (row[k] < 0) continue;
            if (refs[k].question == qi) in++, in_right += row[k];
            else out++, out_right += row[k];
        }
        if (!in) continue;
        double share = (double)in_right / (double)in;
        q->learners++;
        all_right += in_right == in;
        sum += share;
        if (out) x[n] = share, y[n] = (double)out_right / (double)out, n++;
    }
    q->all_right_share = q->learners ? (double)all_right / (double)q->learners : NAN;
    q->mean_share = q->learners ? sum / (double)q->learners : NAN;
    q->discrimination = pearson(x, y, n);
    q->flags = flags_of(q->learners, q->all_right_share, q->discrimination);
}

static int lesson_figures(sqlite3 *db, wb_gb_lesson *l, wb_error *err) {
    long long *learner_ids = NULL;
    fact_ref *refs = NULL;
    size_t n_facts = 0;
    int rc = learners_of(db, l, &learner_ids, err);
    if (!rc) rc = questions_of(db, l, &refs, &n_facts, err);
    size_t cells = l->n_learners * n_facts + 1;
    signed char *right = malloc(cells);
    char **answers = calloc(cells, sizeof *answers);
    double *errors = malloc(cells * sizeof *errors);
    double *x = malloc((l->n_learners + 1) * sizeof *x), *y = malloc((l->n_learners + 1) * sizeof *y);
    double *e = malloc((l->n_learners + 1) * sizeof *e);
    long long *fact_ids = malloc((n_facts + 1) * sizeof *fact_ids);
    if (!rc && (!right || !answers || !errors || !x || !y || !e || !fact_ids)) rc = wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
    sqlite3_stmt *s = NULL;
    if (!rc) {
        memset(right, -1, cells);
        for (size_t i = 0; i < cells; i++) errors[i] = NAN;
        for (size_t k = 0; k < n_facts; k++) fact_ids[k] = refs[k].id;
        rc = prepare(db,
                     "SELECT a.learner_id, a.fact_id, a.right, a.predicted, a.error_share FROM attempts a"
                     " JOIN facts f ON f.id = a.fact_id WHERE f.lesson = ? AND a.try = 'first'",
                     &s, err);
    }
    if (!rc) {
        sqlite3_bind_text(s, 1, l->name, -1, SQLITE_STATIC);
        while (sqlite3_step(s) == SQLITE_ROW) {
            long i = index_of(learner_ids, l->n_learners, sqlite3_column_int64(s, 0));
            long k = index_of(fact_ids, n_facts, sqlite3_column_int64(s, 1));
            if (i < 0 || k < 0 || !l->learners[i].in_cohort) continue;
            size_t cell = (size_t)i * n_facts + (size_t)k;
            right[cell] = (signed char)(sqlite3_column_int(s, 2) != 0);
            answers[cell] = dup_col(s, 3);
            if (sqlite3_column_type(s, 4) != SQLITE_NULL) errors[cell] = sqlite3_column_double(s, 4);
        }
        sqlite3_finalize(s);
        size_t c = 0;
        for (size_t qi = 0; qi < l->n_questions; qi++) {
            wb_gb_question *q = &l->questions[qi];
            for (size_t j = 0; j < q->n_facts; j++, c++) fact_figures(right, answers, errors, l, n_facts, c, &q->facts[j], x, y, e);
            question_figures(right, refs, l, n_facts, qi, q, x, y);
        }
    }
    for (size_t i = 0; answers && i < cells; i++) free(answers[i]);
    free(answers);
    free(right);
    free(errors);
    free(x);
    free(y);
    free(e);
    free(fact_ids);
    free(refs);
    free(learner_ids);
    return rc;
}

/* ---- the report -------------------------------------------------------------------------------- */

int wb_gb_report_build(sqlite3 *db, wb_gb_report *r, wb_error *err) {
    memset(r, 0, sizeof *r);
    sqlite3_stmt *s;
    if (prepare(db, "SELECT (SELECT id FROM course), (SELECT count(*) FROM learners), (SELECT count(*) FROM submissions)", &s, err))
        return err->code;
    if (sqlite3_step(s) == SQLITE_ROW) {
        r->course = dup_col(s, 0);
        r->learners = sqlite3_column_int(s, 1);
        r->submissions = sqlite3_column_int(s, 2);
    }
    sqlite3_finalize(s);
    if (prepare(db, "SELECT name, title FROM lessons ORDER BY position, name", &s, err)) return err->code;
    size_t cap = 0;
    int rc = 0;
    while (!rc && sqlite3_step(s) == SQLITE_ROW) {
        if (r->n_lessons == cap) {
            cap = cap ? 2 * cap : 8;
            wb_gb_lesson *g = realloc(r->lessons, cap * sizeof *g);
            if (!g) { rc = wb_fail(err, WB_EXIT_INPUT, _("out of memory")); break; }
            r->lessons = g;
        }
        wb_gb_lesson *l = &r->lessons[r->n_lessons++];
        memset(l, 0, sizeof *l);
        l->name = dup_col(s, 0);
        l->title = dup_col(s, 1);
    }
    sqlite3_finalize(s);
    for (size_t i = 0; i < r->n_lessons && !rc; i++) rc = lesson_figures(db, &r->lessons[i], err);
    if (rc) wb_gb_report_free(r);
    return rc;
}

void wb_gb_report_free(wb_gb_report *r) {
    for (size_t i = 0; i < r->n_lessons; i++) {
        wb_gb_lesson *l = &r->lessons[i];
        for (size_t j = 0; j < l->n_learners; j++) free(l->learners[j].name), free(l->learners[j].status), free(l->learners[j].against);
        for (size_t q = 0; q < l->n_questions; q++) {
            for (size_t f = 0; f < l->questions[q].n_facts; f++) free(l->questions[q].facts[f].label), free(l->questions[q].facts[f].kind);
            free(l->questions[q].facts);
            free(l->questions[q].id);
            free(l->questions[q].ask);
        }
        free(l->questions);
        free(l->learners);
        free(l->name);
        free(l->title);
    }
    free(r->lessons);
    free(r->course);
    memset(r, 0, sizeof *r);
}
