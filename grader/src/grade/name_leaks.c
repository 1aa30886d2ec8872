/*
 * name_leaks.c: see name_leaks.h. Every pair of a text and a question is tried: a lesson has a few
 * dozen questions and words, a run a few hundred distinct kernel names, so this costs
 * milliseconds.
 */
#define _GNU_SOURCE
#include "name_leaks.h"
#include "wb_base.h"
#include "wb_predict.h"

#include <ctype.h>
#include <regex.h>
#include <string.h>
#include <strings.h>

/* Whether the reader's text is read before the asker is predicted. */
static int read_before(const wb_lesson *l, const wb_question *reader, const wb_question *asker) {
    if (!reader) return 1;
    const char *rp = wb_lesson_variant_part(l, reader->variant), *ap = wb_lesson_variant_part(l, asker->variant);
    return !strcmp(rp, ap) || (!strcmp(rp, WB_MAIN_PART) && strcmp(ap, WB_MAIN_PART));
}

/* Whether the fact's key matches text: its text inside it (case-insensitive), or its "re:" regex. */
static int key_matches(const char *key, const char *text) {
    if (strncmp(key, "re:", 3)) return strcasestr(text, key) != NULL;
    long budget = 0;
    regex_t re;
    char why[256];
    if (wb_regex_compile(key + 3, &budget, &re, why, sizeof why)) return 0;
    int hit = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return hit;
}

/* A kernel of the variant's run whose name holds word and matches key. */
static int names_a_kernel(const wb_capture *c, const char *word, const char *key) {
    for (size_t i = 0; i < c->n_kernels; i++)
        if (c->kernels[i].name && strstr(c->kernels[i].name, word) && key_matches(key, c->kernels[i].name)) return 1;
    return 0;
}

typedef struct {
    const wb_lesson *l;
    const wb_recording *rec;
    const char *shown;
    void (*found)(const wb_name_leak *leak, void *ctx);
    void *ctx;
} search;

/* The leaks of one word of the reader's text, one per asker. */
static void try_word(search *s, const wb_question *reader, const char *where, const char *word) {
    for (size_t i = 0; i < s->l->n_questions; i++) {
        const wb_question *asker = &s->l->questions[i];
        if (asker == reader || !read_before(s->l, reader, asker)) continue;
        if ((s->shown && strstr(s->shown, word)) || (asker->ask && strstr(asker->ask, word))) continue;
        const char *variant = asker->variant ? asker->variant : s->l->n_variants == 1 ? s->l->variants[0].name : NULL;
        const wb_run *run = variant ? wb_recording_run(s->rec, variant) : NULL;
        if (!run) continue;
        for (size_t j = 0; j < asker->n_facts; j++) {
            const char *key = NULL;
            const wb_fact_kind_info *kind = wb_fact_kind_of_label(asker->facts[j], &key);
            if (!kind || !kind->keyed || !key || !strcasecmp(key, word) || !key_matches(key, word)) continue;
            if (!names_a_kernel(&run->capture, word, key)) continue;
            wb_name_leak leak = {.reader = reader, .where = where, .asker = asker, .key = asker->facts[j]};
            snprintf(leak.word, sizeof leak.word, "%s", word);
            s->found(&leak, s->ctx);
            break;
        }
    }
}

/* Each word of text (letters, digits and _), once. */
static void try_text(search *s, const wb_question *reader, const char *where, const char *text) {
    char seen[4096] = " ";
    for (const char *p = text; p && *p;) {
        if (!isalnum((unsigned char)*p) && *p != '_') {
            p++;
            continue;
        }
        size_t n = 0;
        while (isalnum((unsigned char)p[n]) || p[n] == '_') n++;
        char word[256], padded[260];
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), p);
        snprintf(padded, sizeof padded, " %s ", word);
        if (!strstr(seen, padded)) {
            if (strlen(seen) + strlen(padded) < sizeof seen) {
                strcat(seen, word);
                strcat(seen, " ");
            }
            try_word(s, reader, where, word);
        }
        p += n;
    }
}

void wb_find_name_leaks(const wb_lesson *l, const wb_recording *rec, const char *shown,
                        void (*found)(const wb_name_leak *leak, void *ctx), void *ctx) {
    search s = {l, rec, shown, found, ctx};
    for (size_t i = 0; i < l->n_ranges; i++) try_text(&s, NULL, "ranges", l->ranges[i]);
    for (size_t i = 0; i < l->n_questions; i++) {
        try_text(&s, &l->questions[i], "range", l->questions[i].range);
        try_text(&s, &l->questions[i], "ask", l->questions[i].ask);
    }
}
