/*
 * test_answers_hidden.c: nothing graded is shown before it is predicted. Before predicting, a
 * learner reads the lesson's README down to the <!-- reveal --> line and its questions (the ask
 * and the hints: the template and `grader check` show them), and before any lesson the top
 * README, docs/course-guide.md and the facts' definitions it sends them to, docs/predictions.md.
 * None of those texts may hold an answer of an answer key:
 *
 *   counts        an answer of 3 or more of a count fact (kernels, calls, copies, streams, ...),
 *                 in digits or as a word (three to twenty). Counts of 0, 1 and 2 are in every
 *                 sentence ("one stream", "two GEMMs") and cannot be banned from prose, except
 *                 right after "actual" or "predicted", where they are a report's.
 *   times         a time with its unit (us, µs, ms, s) within the question's tolerance of a time
 *                 answer: a learner who copied it would be graded right. (A number with a unit
 *                 is a time only, never a count.)
 *   explanations  any run of 8 words of an explanation.
 * What it cannot see: an answer said in other words ("nothing overlaps here"), a small count, or
 * arithmetic that yields one; those stay the authors' to avoid.
 *
 * A lesson's texts are checked against its own key (every architecture); the course texts against
 * every key. Numbers that count nothing are skipped: parts of names, decimals and versions
 * (sm_90, 13.0), numbers written with a leading zero (lesson 04), ranges (01-03), percentages and
 * an ordered list's item numbers. What remains and is a given of the question (lesson 05's 8
 * chunks, a matrix size) is listed in `givens` below with its reason; anything else fails, named
 * by file, line and the answer it shows.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wb_course.h"
#include "wb_predict.h"

/* ---- what may not be shown ------------------------------------------------------------------ */

typedef struct {
    double value;     /* a count, or microseconds */
    double tolerance; /* time answers: right within tolerance x value */
    int is_time;
    char what[200];   /* "05_streams serial-pipeline kernels" */
} answer;

typedef struct {
    answer *answers;
    size_t n_answers;
    char **explanations, **explanation_what;
    size_t n_explanations;
} hidden;

static void add_answer(hidden *h, double value, double tolerance, int is_time, const char *fmt, ...) {
    h->answers = realloc(h->answers, (h->n_answers + 1) * sizeof *h->answers);
    cr_assert(h->answers);
    answer *a = &h->answers[h->n_answers++];
    a->value = value;
    a->tolerance = tolerance;
    a->is_time = is_time;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->what, sizeof a->what, fmt, ap);
    va_end(ap);
}

static void add_explanation(hidden *h, const char *text, const char *what) {
    h->explanations = realloc(h->explanations, (h->n_explanations + 1) * sizeof *h->explanations);
    h->explanation_what = realloc(h->explanation_what, (h->n_explanations + 1) * sizeof *h->explanation_what);
    cr_assert(h->explanations && h->explanation_what);
    h->explanations[h->n_explanations] = strdup(text);
    h->explanation_what[h->n_explanations++] = strdup(what);
}

static void hidden_free(hidden *h) {
    for (size_t i = 0; i < h->n_explanations; i++) {
        free(h->explanations[i]);
        free(h->explanation_what[i]);
    }
    free(h->explanations);
    free(h->explanation_what);
    free(h->answers);
    memset(h, 0, sizeof *h);
}

/* Every answer and explanation of a lesson's key, into h. */
static void add_key(hidden *h, const wb_lesson *l, const wb_answer_key *k) {
    for (size_t a = 0; a < k->n_archs; a++) {
        const wb_prediction_set *s = &k->archs[a].answers;
        for (size_t i = 0; i < s->n; i++) {
            const wb_prediction *p = &s->items[i];
            for (size_t j = 0; j < p->n_facts; j++) {
                const wb_fact *f = &p->facts[j];
                if (f->kind == WB_FACT_BOUND || f->predicted < 0) continue;
                if (wb_fact_is_time(f->kind))
                    add_answer(h, f->value, wb_lesson_tolerance(l, p->id), 1, "%s %s %s (%s)", l->lesson, p->id,
                               f->label, k->archs[a].arch);
                else
                    add_answer(h, f->predicted, 0, 0, "%s %s %s (%s)", l->lesson, p->id, f->label, k->archs[a].arch);
            }
        }
    }
    for (size_t i = 0; i < k->n_explanations; i++) {
        char what[300];
        snprintf(what, sizeof what, "%s's explanation of %s", l->lesson, k->explanation_ids[i]);
        add_explanation(h, k->explanations[i], what);
    }
}

/* ---- what is a given ------------------------------------------------------------------------ */

typedef struct {
    const char *where;  /* a prefix of the text's name: "lessons/05_streams/", "README.md" */
    const char *phrase; /* the text around the number (or a run of explanation words), verbatim */
    const char *reason;
} given;

static const given givens[] = {
    /* the course texts: numbers that count nothing a key counts */
    {"README.md", "3 occurrences", "the example report's range ran in 3 profiled steps (--steps 3), a given"},
    {"README.md", "Debian 12", "an operating system's version"},
    {"README.md", "CUDA 12 or 13", "toolkit versions"},
    {"README.md", "toolkit 12 or 13", "toolkit versions"},
    {"README.md", "SQLite 3", "a library's version"},
    {"README.md", "issue 3's", "an issue's number"},
    {"README.md", "3 the lesson program failed", "an exit code"},
    {"README.md", "a GeGLU MLP: three GEMMs", "lesson 03's three nn.Linear layers, the MLP's definition"},
    {"README.md", "one stream vs three", "lesson 05's stream counts by design (--streams 3)"},
    {"docs/course-guide.md", "3 occurrences", "the example report's range ran in 3 profiled steps, a given"},
    {"docs/course-guide.md", "Score: 7 of 8 facts right", "an example score, not a fact of a trace"},
    {"docs/course-guide.md", "a GeGLU MLP: three GEMMs", "lesson 03's three nn.Linear layers, the MLP's definition"},
    {"docs/course-guide.md", "one stream or three", "lesson 05's stream counts by design (--streams 3)"},
    {"docs/course-guide.md", "three processes", "Perfetto's processes per variant"},
    {"docs/course-guide.md", "(`stream 7`)", "an example of a lane's name"},
    {"docs/course-guide.md", "newest 5 run folders", "how many run folders the grader keeps"},
    {"docs/course-guide.md", "ten minutes", "how long a run folder is kept at least"},
    {"docs/predictions.md", "words (`five`), quoted numbers (`\"5\"`)", "examples of values the grader rejects"},
    {"docs/predictions.md", "CUDA 13's CUPTI", "a toolkit's version"},
    {"docs/predictions.md", "seq = 7, op_id = 5`, `aten::addmm, seq = 12, op_id = 9`",
     "examples of the sequence numbers PyTorch appends to a range's name"},
    {"docs/predictions.md", "rank 1 launching 3 give `kernels: 5`", "the example of a sum over ranks, of no lesson"},
    {"docs/predictions.md", "stream 7 of rank 0 and stream 7 of rank 1", "the example of streams over ranks"},
    {"docs/predictions.md", "8192^3", "the calibration's GEMM"},
    {"docs/predictions.md", "15 timed runs after 3 warm-up runs", "the calibration's runs"},
    {"docs/predictions.md", "(exit 3:", "an exit code"},
    {"docs/predictions.md", "Three facts about", "the section's three fact kinds"},
    {"docs/predictions.md", "Three operations together", "the example of how overlap counts, of no lesson"},
    /* lesson 01 */
    {"lessons/01_matmul_add/", "about 100 MB, 24 us at 4.2 TB/s",
     "the hint's floor arithmetic for the 4096 step (its givens); near small-step-time's wall time only by chance"},
    /* lesson 03 */
    {"lessons/03_mlp/", "Three `nn.Linear` layers", "the MLP's definition: three projections"},
    {"lessons/03_mlp/", "three `nn.Linear` without", "the module's definition"},
    {"lessons/03_mlp/", "three GEMMs of 38.7 GFLOP each", "the MLP's definition, with the work the time question needs"},
    {"lessons/03_mlp/", "three nn.Linear", "the module's definition"},
    {"lessons/03_mlp/", "builds the block four ways", "the lesson's four variants"},
    {"lessons/03_mlp/", "`Wg` and `Wu` stored back to back as one `(2*hidden, dim)` weight",
     "the merged variant's definition"},
    {"lessons/03_mlp/", "Wg and Wu stored back to back as one (2*hidden, dim)", "the merged variant's definition"},
    {"lessons/03_mlp/", "one `k_gelu_mul` that computes `gelu(g) * u` in one pass", "the fused variant's definition"},
    {"lessons/03_mlp/", "mul reads gelu(g) and u and writes",
     "the ask's own arithmetic for PyTorch's multiply (the eager k_mul does the same by definition)"},
    {"lessons/03_mlp/", "reads g and u once and writes h once", "the ask's definition of a fused kernel's floor"},
    /* lesson 04 */
    {"lessons/04_gpt2_autodiff/", "The engine in five rules", "the README's section"},
    {"lessons/04_gpt2_autodiff/", "rule 3", "the README's rule number"},
    {"lessons/04_gpt2_autodiff/", "ten AdamW steps", "what the fixture test compares"},
    {"lessons/04_gpt2_autodiff/", "10 AdamW losses", "what the fixture test compares"},
    {"lessons/04_gpt2_autodiff/", "2 layers, width 64, 2 heads, 4 x 64 tokens a step) for three steps",
     "the tiny model's configuration and the profiled steps"},
    {"lessons/04_gpt2_autodiff/", "steps 3 to 5 replay the step captured in step 2", "the --graph run's schedule"},
    {"lessons/04_gpt2_autodiff/", "12 heads of 64", "GPT-2 124M's configuration"},
    {"lessons/04_gpt2_autodiff/", "12 layers", "GPT-2 124M's configuration"},
    {"lessons/04_gpt2_autodiff/", "nothing changes for 12 heads", "GPT-2 124M's configuration"},
    {"lessons/04_gpt2_autodiff/", "recomputes the probabilities and does five products per tile pair",
     "flash attention's backward algorithm, which the hint states so that the learner can weigh it"},
    {"lessons/04_gpt2_autodiff/",
     "An add passes its gradient on without a copy: an input whose gradient is not written yet takes the output's "
     "gradient memory (an alias)",
     "the engine's rule 3, stated so that the learner can apply it"},
    {"lessons/04_gpt2_autodiff/", "A view's gradient is the same view over the gradient memory.** So the pullback of a view",
     "the engine's rule 4, stated so that the learner can apply it"},
    {"lessons/04_gpt2_autodiff/", "The first pullback that writes a whole gradient stores it",
     "the engine's rule 3, stated so that the learner can apply it"},
    {"lessons/04_gpt2_autodiff/", "the first pullback that writes a whole gradient stores it",
     "the engine's rule 3, which the hint recalls"},
    /* lesson 05 */
    {"lessons/05_streams/", "8 chunks", "the program's --chunks 8, stated so that the learner can count"},
    {"lessons/05_streams/", "4 MiB", "a chunk's size"},
    {"lessons/05_streams/", "c % 3", "the program's stream assignment (--streams 3)"},
    {"lessons/05_streams/", "one chunk: 8 per pipeline", "the chunk range's occurrences: the 8 chunks"},
    {"lessons/05_streams/", "its three streams are made", "the program creates three streams (--streams 3)"},
    {"lessons/05_streams/", "Three streams do not help", "the program creates three streams (--streams 3)"},
    {"lessons/05_streams/", "Draw three lanes", "a hint's method: three stages"},
    {"lessons/05_streams/", "Draw the three lanes", "a hint's method: three stages"},
    {"lessons/05_streams/", "three operations at once do not count three times", "the hint's rule for counting overlap"},
    {"lessons/05_streams/", "chunk's three stages", "upload, compute, download"},
    {"lessons/05_streams/", "A chunk's three operations", "upload, compute, download"},
    {"lessons/05_streams/", "A device-to-host copy into pageable memory cannot return before the data has arrived",
     "the CUDA runtime's documented rule, which the hint states so that the learner can apply it"},
    /* lesson 06 */
    {"lessons/06_data_parallel/", "A bucket closes once it holds 25 MiB (26.2 MB) or more",
     "the bucket rule (--bucket-mb 25), a given"},
};

/* Where phrase occurs in text at start, any run of white space matching any other: its end, else 0. */
static size_t phrase_at(const char *text, size_t start, const char *phrase) {
    size_t t = start;
    for (const char *p = phrase; *p;) {
        if (isspace((unsigned char)*p)) {
            if (!isspace((unsigned char)text[t])) return 0;
            while (isspace((unsigned char)*p)) p++;
            while (isspace((unsigned char)text[t])) t++;
        } else if (text[t] == *p) {
            t++;
            p++;
        } else {
            return 0;
        }
    }
    return t;
}

static int given_covers(const char *where, const char *text, size_t pos, size_t len) {
    for (size_t g = 0; g < sizeof givens / sizeof givens[0]; g++) {
        if (strncmp(where, givens[g].where, strlen(givens[g].where))) continue;
        for (size_t start = 0; text[start]; start++) {
            size_t end = start <= pos ? phrase_at(text, start, givens[g].phrase) : 0;
            if (end && pos + len <= end) return 1;
            if (start > pos) break;
        }
    }
    return 0;
}

/* ---- finding them --------------------------------------------------------------------------- */

typedef struct {
    char *text;
    size_t n, len, cap;
} problems;

static void problem(problems *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0);
    if (p->len + (size_t)n + 2 > p->cap) {
        p->cap = (p->len + (size_t)n + 2) * 2;
        p->text = realloc(p->text, p->cap);
        cr_assert(p->text);
    }
    memcpy(p->text + p->len, line, (size_t)n);
    p->len += (size_t)n;
    p->text[p->len++] = '\n';
    p->text[p->len] = 0;
    p->n++;
    free(line);
}

static int word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int line_of(const char *text, size_t pos) {
    int line = 1;
    for (size_t i = 0; i < pos; i++) line += text[i] == '\n';
    return line;
}

/* The text around pos on one line, for the message. */
static void context(const char *text, size_t pos, size_t len, char *out, size_t cap) {
    size_t s = pos > 40 ? pos - 40 : 0, e = pos + len + 30;
    size_t n = strlen(text);
    if (e > n) e = n;
    size_t o = 0;
    for (size_t i = s; i < e && o + 1 < cap; i++) out[o++] = text[i] == '\n' ? ' ' : text[i];
    out[o] = 0;
}

static int time_matches(const answer *a, double us) {
    if (!a->is_time) return 0;
    if (a->value == 0) return us == 0;
    return fabs(us - a->value) <= a->tolerance * a->value + 1e-9;
}

/* One number of a text: is it an answer? any_count: also counts below 3 (after "actual"). */
static void check_number(problems *p, const hidden *h, const char *where, const char *text, size_t pos,
                         size_t len, double value, int integer, double time_us, int any_count) {
    for (size_t i = 0; i < h->n_answers; i++) {
        const answer *a = &h->answers[i];
        /* a number with a time unit is a time, and only a time */
        int hit = a->is_time ? time_us >= 0 && time_matches(a, time_us)
                             : time_us < 0 && integer && value == a->value && (value >= 3 || any_count);
        if (any_count && a->is_time && !hit) hit = time_matches(a, value);
        if (!hit) continue;
        if (given_covers(where, text, pos, len)) return;
        char ctx[160];
        context(text, pos, len, ctx, sizeof ctx);
        problem(p, "%s:%d: \"%.*s\" shows %s (%g) before it is predicted: ...%s...", where, line_of(text, pos),
                (int)len, text + pos, a->what, a->value, ctx);
        return;
    }
}

static const char *const number_words[] = {"three",   "four",     "five",     "six",     "seven",   "eight",
                                           "nine",    "ten",      "eleven",   "twelve",  "thirteen", "fourteen",
                                           "fifteen", "sixteen",  "seventeen", "eighteen", "nineteen", "twenty"};

/* Microseconds for a unit at s ("us", "µs", "ms", "s" as a whole word), or -1; *ulen its length. */
static double unit_scale(const char *s, size_t *ulen) {
    static const struct { const char *unit; double scale; } units[] = {
        {"us", 1}, {"\xc2\xb5s", 1}, {"ms", 1e3}, {"s", 1e6}};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t n = strlen(units[u].unit);
        if (!strncmp(s, units[u].unit, n) && !word_char(s[n])) {
            *ulen = n;
            return units[u].scale;
        }
    }
    return -1;
}

static int after_word(const char *text, size_t pos, const char *word) {
    size_t n = strlen(word);
    return pos > n && text[pos - 1] == ' ' && !strncmp(text + pos - 1 - n, word, n) &&
           (pos - 1 - n == 0 || !word_char(text[pos - 2 - n]));
}

static void check_numbers(problems *p, const hidden *h, const char *where, const char *text) {
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i++) {
        if (isdigit((unsigned char)text[i]) && (i == 0 || (!word_char(text[i - 1]) && !strchr(".-/\\", text[i - 1])))) {
            size_t j = i;
            while (j < n && isdigit((unsigned char)text[j])) j++;
            int integer = 1;
            if (text[j] == '.' && isdigit((unsigned char)text[j + 1])) {
                integer = 0;
                j++;
                while (j < n && isdigit((unsigned char)text[j])) j++;
            }
            size_t len = j - i;
            double value = strtod(text + i, NULL);
            int skip = word_char(text[j]) || text[j] == '%' ||
                       (strchr(".-/:", text[j]) && text[j] && isdigit((unsigned char)text[j + 1])) ||
                       (text[i] == '0' && len > 1 && integer);
            size_t b = i;
            while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t')) b--;
            if ((b == 0 || text[b - 1] == '\n') && text[j] == '.' && integer) skip = 1; /* "3. Check" */
            if (!skip) {
                size_t k = j, ulen = 0;
                if (text[k] == ' ') k++;
                double scale = unit_scale(text + k, &ulen);
                double time_us = scale > 0 ? value * scale : -1;
                int any = after_word(text, i, "actual") || after_word(text, i, "predicted");
                check_number(p, h, where, text, i, scale > 0 ? k + ulen - i : len, value, integer, time_us, any);
            }
            i = j;
            continue;
        }
        if (isalpha((unsigned char)text[i]) && (i == 0 || !word_char(text[i - 1]))) {
            size_t j = i;
            while (j < n && word_char(text[j])) j++;
            for (size_t w = 0; w < sizeof number_words / sizeof number_words[0]; w++)
                if (strlen(number_words[w]) == j - i && !strncasecmp(text + i, number_words[w], j - i))
                    check_number(p, h, where, text, i, j - i, (double)(w + 3), 1, -1, 0);
            i = j - 1;
        }
    }
}

/* " word word ... " in lower case: the words of a text, for matching runs of them. */
static char *words_of(const char *text) {
    size_t n = strlen(text);
    char *out = malloc(n + 3), *o = out;
    cr_assert(out);
    *o++ = ' ';
    for (size_t i = 0; i < n; i++) {
        if (word_char(text[i])) *o++ = (char)tolower((unsigned char)text[i]);
        else if (o[-1] != ' ') *o++ = ' ';
    }
    if (o[-1] != ' ') *o++ = ' ';
    *o = 0;
    return out;
}

enum { RUN_WORDS = 8 };

static int given_words(const char *where, const char *run) {
    for (size_t g = 0; g < sizeof givens / sizeof givens[0]; g++) {
        if (strncmp(where, givens[g].where, strlen(givens[g].where))) continue;
        char *w = words_of(givens[g].phrase);
        int in = strstr(w, run) != NULL;
        free(w);
        if (in) return 1;
    }
    return 0;
}

static void check_explanations(problems *p, const hidden *h, const char *where, const char *text) {
    char *tw = words_of(text);
    for (size_t e = 0; e < h->n_explanations; e++) {
        char *ew = words_of(h->explanations[e]);
        /* the starts of the explanation's words */
        size_t starts[4096], ns = 0;
        for (size_t i = 0; ew[i] && ew[i + 1] && ns < 4096; i++)
            if (ew[i] == ' ') starts[ns++] = i;
        for (size_t s = 0; s + RUN_WORDS < ns; s++) {
            size_t len = starts[s + RUN_WORDS] - starts[s] + 1;
            char run[1024];
            if (len >= sizeof run) continue;
            memcpy(run, ew + starts[s], len);
            run[len] = 0;
            if (strstr(tw, run) && !given_words(where, run)) {
                problem(p, "%s: \"%s\" is %s, shown before it is predicted", where, run + 1, h->explanation_what[e]);
                break;
            }
        }
        free(ew);
    }
    free(tw);
}

static void check_text(problems *p, const hidden *h, const char *where, const char *text) {
    check_numbers(p, h, where, text);
    check_explanations(p, h, where, text);
}

/* ---- the course ----------------------------------------------------------------------------- */

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot read %s", path);
    char *buf = NULL;
    size_t cap = 0;
    FILE *m = open_memstream(&buf, &cap);
    char chunk[8192];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) fwrite(chunk, 1, got, m);
    fclose(f);
    fclose(m);
    return buf;
}

static const char *source_dir(void) {
    const char *s = getenv("WB_SOURCE_DIR");
    cr_assert(s, "WB_SOURCE_DIR is not set (ctest sets it)");
    return s;
}

/* Checks every lesson's texts against its key, and the course texts against all keys. */
static void check_course(const char *root, problems *p) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/lessons", root);
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    cr_assert(n > 0, "cannot list %s", dir);
    hidden all = {0};
    int keys = 0;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char ldir[4200], kpath[4400], where[4400];
        snprintf(ldir, sizeof ldir, "%s/%s", dir, name);
        snprintf(kpath, sizeof kpath, "%s/expectations/%s.yaml", root, name);
        char yaml[4300];
        snprintf(yaml, sizeof yaml, "%s/lesson.yaml", ldir);
        if (!isdigit((unsigned char)name[0]) || access(yaml, R_OK) || access(kpath, R_OK)) continue;
        wb_lesson l;
        wb_answer_key k;
        wb_error err = {0};
        cr_assert(wb_lesson_load(ldir, &l, &err) == 0, "%s", err.message);
        cr_assert(wb_answer_key_load(kpath, &k, &err) == 0, "%s", err.message);
        hidden own = {0};
        add_key(&own, &l, &k);
        add_key(&all, &l, &k);
        cr_assert(own.n_answers > 0 && own.n_explanations > 0, "%s: no answers read", kpath);
        keys++;

        snprintf(where, sizeof where, "%s/README.md", ldir);
        char *readme = read_text(where);
        char *reveal = strstr(readme, "<!-- reveal -->");
        if (reveal) *reveal = 0;
        snprintf(where, sizeof where, "lessons/%s/README.md", name);
        check_text(p, &own, where, readme);
        free(readme);
        for (size_t q = 0; q < l.n_questions; q++) {
            const wb_question *Q = &l.questions[q];
            snprintf(where, sizeof where, "lessons/%s/lesson.yaml:%d (%s, ask)", name, Q->line, Q->id);
            if (Q->ask) check_text(p, &own, where, Q->ask);
            for (size_t j = 0; j < Q->n_hints; j++) {
                snprintf(where, sizeof where, "lessons/%s/lesson.yaml:%d (%s, hint %zu)", name, Q->line, Q->id, j + 1);
                check_text(p, &own, where, Q->hints[j]);
            }
        }
        hidden_free(&own);
        wb_answer_key_free(&k);
        wb_lesson_free(&l);
    }
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
    cr_assert(keys > 0, "no lesson with an answer key under %s", dir);
    static const char *const course_texts[] = {"README.md", "docs/course-guide.md", "docs/predictions.md"};
    for (size_t c = 0; c < sizeof course_texts / sizeof course_texts[0]; c++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", root, course_texts[c]);
        char *text = read_text(path);
        check_text(p, &all, course_texts[c], text);
        free(text);
    }
    hidden_free(&all);
}

Test(answers_hidden, in_what_a_learner_reads_before_predicting) {
    problems p = {0};
    check_course(source_dir(), &p);
    if (p.n) fprintf(stderr, "%s", p.text);
    cr_expect(p.n == 0, "%zu answers shown before they are predicted (listed above): reword the text, or list a "
                        "given in this test's `givens` with its reason", p.n);
    free(p.text);
}

/* ---- the detector itself -------------------------------------------------------------------- */

Test(answers_hidden, finds_counts_times_and_explanations) {
    hidden h = {0};
    add_answer(&h, 8, 0, 0, "memsets");
    add_answer(&h, 24, 0, 0, "operations");
    add_answer(&h, 2, 0, 0, "kernels");
    add_answer(&h, 2045, 0.25, 1, "wall_us");
    add_explanation(&h, "The legacy default stream waits for every blocking stream before it runs a memset.", "expl");
    struct {
        const char *text;
        size_t want;
    } cases[] = {
        {"default-stream adds 8 memsets", 1},
        {"the same 24 operations per step", 1},
        {"eight memsets", 1},
        {"a step lasts about 2.0 ms", 1},
        {"a step lasts about 1700 us", 1},
        {"a step lasts about 1500 us", 0},
        {"two operations together for 24 us", 0},
        {"WRONG kernels predicted 1 actual 2", 1},
        {"two kernels", 0},
        {"lesson 08 and lessons 01-08, sm_80, CUDA 8.0, within 8%, 24x faster", 0},
        {"1. Read\n8. Overlapped: how many?", 0},
        {"It waits for every blocking stream before it runs a memset, always.", 1},
        {"the legacy default stream waits", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        problems p = {0};
        check_text(&p, &h, "test", cases[i].text);
        cr_expect(p.n == cases[i].want, "\"%s\": %zu found, want %zu\n%s", cases[i].text, p.n, cases[i].want,
                  p.text ? p.text : "");
        free(p.text);
    }
    hidden_free(&h);
}

Test(answers_hidden, a_given_is_allowed_where_listed_only) {
    hidden h = {0};
    add_answer(&h, 8, 0, 0, "kernels");
    problems p = {0};
    check_text(&p, &h, "lessons/05_streams/README.md", "for each of 8 chunks");
    cr_expect(p.n == 0, "%s", p.text ? p.text : "");
    check_text(&p, &h, "lessons/05_streams/README.md", "8 kernels run");
    check_text(&p, &h, "lessons/03_mlp/README.md", "for each of 8 chunks");
    cr_expect(p.n == 2, "%zu found, want 2:\n%s", p.n, p.text ? p.text : "");
    free(p.text);
    hidden_free(&h);
}
