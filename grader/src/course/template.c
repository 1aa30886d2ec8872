/*
 * template.c: see template.h. The text is built in a growing buffer; the layout follows
 * docs/lesson-format.md (count facts first, then kernels_named and api_calls as block mappings),
 * which is also the order the predictions reader grades facts in.
 */
#define _GNU_SOURCE
#include "template.h"
#include "learner_files.h"
#include "wb_predict.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text;
    size_t len, cap;
    int oom;
} buffer;

static void put(buffer *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buffer *b, const char *fmt, ...) {
    if (b->oom) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)n;
        char *p = realloc(b->text, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->text = p;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->text + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Words YAML would read as something other than a string. */
static int special_word(const char *s) {
    static const char *const words[] = {"~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
                                        "yes", "Yes", "no", "No", "on", "On", "off", "Off", NULL};
    for (const char *const *w = words; *w; w++)
        if (!strcmp(s, *w)) return 1;
    char *end;
    (void)strtod(s, &end);
    return *end == '\0';
}

const char *wb_yaml_quote(const char *s, char *buf, size_t cap) {
    int plain = s[0] != '\0' && !special_word(s);
    for (const char *c = s; *c && plain; c++)
        plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' ||
                (*c == '-' && c != s);
    if (plain) {
        snprintf(buf, cap, "%s", s);
        return buf;
    }
    size_t o = 0;
    if (cap < 3) return "\"\"";
    buf[o++] = '"';
    for (const char *c = s; *c && o + 3 < cap; c++) {
        if (*c == '"' || *c == '\\') buf[o++] = '\\';
        if (*c == '\n') {
            buf[o++] = '\\';
            buf[o++] = 'n';
            continue;
        }
        buf[o++] = *c;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

/* The question text as comment lines, one per line of text. */
static void put_comment(buffer *b, const char *indent, const char *label, const char *text) {
    const char *line = text;
    int first = 1;
    while (*line) {
        size_t n = strcspn(line, "\n");
        put(b, "%s# %s%.*s\n", indent, first ? label : "   ", (int)n, line);
        first = 0;
        line += n;
        if (*line == '\n') line++;
    }
}

static int seen_before(char *const *facts, size_t i) {
    for (size_t j = 0; j < i; j++)
        if (!strcmp(facts[j], facts[i])) return 1;
    return 0;
}

/* The note in English (the template's words) or in the learner's language. */
static const char *tolerance_note(const wb_question *q, int localized, char *buf, size_t cap) {
    int asks_time = 0;
    for (size_t j = 0; j < q->n_facts && !asks_time; j++) {
        const wb_fact_kind_info *kind = wb_fact_kind_of_label(q->facts[j], NULL);
        asks_time = kind && kind->value->banded;
    }
    const char *english = N_("Times are right within %g%% of the measured value (the median occurrence).");
    if (asks_time) snprintf(buf, cap, localized ? _(english) : english, 100 * q->tolerance);
    else if (cap) buf[0] = '\0';
    return buf;
}

const char *wb_question_tolerance_note(const wb_question *q, char *buf, size_t cap) { return tolerance_note(q, 0, buf, cap); }
const char *wb_question_tolerance_note_localized(const wb_question *q, char *buf, size_t cap) { return tolerance_note(q, 1, buf, cap); }

/* localized: the comments in the learner's language (the learner's copy), else in English (the
 * committed template); the YAML itself is the same. */
static char *render_template(const wb_lesson *l, int localized) {
    buffer b = {0};
    char q[1024];
    const char *heading[] = {
        N_("# Predictions for lesson %s: %s\n"),
        N_("# Your copy is predictions.yaml (grader check makes it from %s; git ignores it).\n"),
        N_("# Replace every ~ there with a whole number (your prediction), then run: grader check lessons/%s\n"),
        N_("# Stuck? grader hint %s shows the lesson's hints, one at a time.\n"),
    };
    for (size_t i = 0; i < 4 && localized; i++) heading[i] = _(heading[i]);
    put(&b, heading[0], l->lesson, localized ? wb_lesson_title_text(l) : l->title);
    put(&b, heading[1], WB_TEMPLATE_FILE);
    put(&b, heading[2], l->lesson);
    put(&b, heading[3], l->lesson);
    put(&b, "lesson: %s\n", wb_yaml_quote(l->lesson, q, sizeof q));
    put(&b, "predictions:\n");
    size_t n_kinds;
    const wb_fact_kind_info *kinds = wb_fact_kinds(&n_kinds);
    for (size_t i = 0; i < l->n_questions; i++) {
        const wb_question *x = &l->questions[i];
        put(&b, "%s", i ? "\n" : "");
        put_comment(&b, "  ", "Q: ", localized ? wb_question_ask(l, x) : x->ask);
        char note[240];
        if (tolerance_note(x, localized, note, sizeof note)[0]) put_comment(&b, "  ", "   ", note);
        put(&b, "  - id: %s\n", wb_yaml_quote(x->id, q, sizeof q));
        if (x->variant) put(&b, "    variant: %s\n", wb_yaml_quote(x->variant, q, sizeof q));
        put(&b, "    range: %s\n", wb_yaml_quote(x->range, q, sizeof q));
        if (x->rank >= 0) put(&b, "    rank: %d\n", x->rank);
        /* the plain kinds first, then each keyed kind's map, each in the table's order */
        for (size_t k = 0; k < n_kinds; k++)
            for (size_t j = 0; !kinds[k].keyed && j < x->n_facts; j++)
                if (!strcmp(x->facts[j], kinds[k].name) && !seen_before(x->facts, j)) put(&b, "    %s: ~\n", kinds[k].name);
        for (size_t k = 0; k < n_kinds; k++) {
            int header = 0;
            for (size_t j = 0; kinds[k].keyed && j < x->n_facts; j++) {
                const char *key;
                if (wb_fact_kind_of_label(x->facts[j], &key) != &kinds[k] || seen_before(x->facts, j)) continue;
                if (!header) put(&b, "    %s:\n", kinds[k].name);
                header = 1;
                put(&b, "      %s: ~\n", wb_yaml_quote(key, q, sizeof q));
            }
        }
    }
    if (b.oom) {
        free(b.text);
        return NULL;
    }
    return b.text;
}

char *wb_predictions_template(const wb_lesson *l) { return render_template(l, 0); }
char *wb_predictions_template_localized(const wb_lesson *l) { return render_template(l, 1); }

/* ---- comparison -------------------------------------------------------------------------- */

typedef struct {
    wb_template_issue *issues;
    size_t cap, n;
} issues;

static void issue(issues *s, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void issue(issues *s, int line, const char *fmt, ...) {
    if (s->n < s->cap) {
        va_list ap;
        va_start(ap, fmt);
        s->issues[s->n].line = line;
        vsnprintf(s->issues[s->n].message, sizeof s->issues[s->n].message, fmt, ap);
        va_end(ap);
    }
    s->n++;
}

static int same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

size_t wb_template_compare(const wb_lesson *l, const wb_prediction_set *p, wb_template_issue *out, size_t cap) {
    issues s = {out, cap, 0};
    if (p->lesson && strcmp(p->lesson, l->lesson) != 0)
        issue(&s, 1, _("'lesson: %s' but the folder is lesson %s"), p->lesson, l->lesson);
    for (size_t i = 0; i < l->n_questions; i++) {
        const wb_question *x = &l->questions[i];
        const wb_prediction *y = wb_predictions_find(p, x->id);
        if (!y) {
            issue(&s, 0, _("question '%s' (lesson.yaml line %d) is not in the template"), x->id, x->line);
            continue;
        }
        /* A lesson with one variant may or may not name it; both read the same. */
        const char *xv = x->variant, *yv = y->variant;
        if (l->n_variants == 1) {
            if (!xv) xv = l->variants[0].name;
            if (!yv) yv = l->variants[0].name;
        }
        if (!same(xv, yv))
            issue(&s, y->line, _("prediction '%s': variant %s, but lesson.yaml asks about %s"), y->id, yv ? yv : _("(none)"),
                  xv ? xv : _("(none)"));
        if (!same(x->range, y->range))
            issue(&s, y->line, _("prediction '%s': range %s, but lesson.yaml asks about %s"), y->id, y->range, x->range);
        if (x->rank != y->rank)
            issue(&s, y->line, y->rank < 0 ? _("prediction '%s': all ranks, but lesson.yaml asks about one rank (its 'rank:')")
                               : x->rank < 0 ? _("prediction '%s': one rank, but lesson.yaml asks about all ranks")
                                             : _("prediction '%s': one rank, but lesson.yaml asks about one rank (its 'rank:')"),
                  y->id);
        for (size_t j = 0; j < x->n_facts; j++) {
            int found = 0;
            for (size_t k = 0; k < y->n_facts && !found; k++) found = !strcmp(y->facts[k].label, x->facts[j]);
            if (!found) issue(&s, y->line, _("prediction '%s' lacks %s, which lesson.yaml asks for"), y->id, x->facts[j]);
        }
        for (size_t k = 0; k < y->n_facts; k++) {
            const wb_fact *f = &y->facts[k];
            int asked = 0;
            for (size_t j = 0; j < x->n_facts && !asked; j++) asked = !strcmp(f->label, x->facts[j]);
            if (!asked) issue(&s, f->line, _("prediction '%s' has %s, which lesson.yaml does not ask for"), y->id, f->label);
            if (f->predicted >= 0)
                issue(&s, f->line, _("prediction '%s': %s is %d; a template ships every value as ~"), y->id, f->label, f->predicted);
        }
    }
    for (size_t i = 0; i < p->n; i++)
        if (!wb_lesson_question(l, p->items[i].id))
            issue(&s, p->items[i].line, _("prediction '%s' answers no question of lesson.yaml"), p->items[i].id);
    return s.n;
}
