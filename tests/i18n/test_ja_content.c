/*
 * test_ja_content.c: the Japanese course text says what the English says, as far as a machine can
 * tell without reading Japanese. For every lessons/NN_name/i18n/ja.yaml, expectations/NN_name.ja.yaml,
 * README.ja.md and lessons/NN_name/README.ja.md of the checkout:
 *
 *   - it parses, and names only questions (or explanations) that exist in the English;
 *   - a question keeps the English's number of hints, hint i translating hint i;
 *   - every number of the English text appears in the Japanese, and every number of the Japanese
 *     appears in the English, or as an English number word ("two kernels": 2つ), or is 1 (an
 *     English "a" often becomes 1 in Japanese counters: 1ステップ);
 *   - every code-like token (k_bias_add, cudaLaunchKernel, aten::mm, main.cu) and every `span`
 *     of the English appears unchanged in the Japanese, and the Japanese invents none;
 *   - a README keeps its headings and table rows, its code blocks to the byte (the quick start's
 *     commands, the programs' output), and the reveal line, and nothing above it in Japanese (a
 *     number, a `span`) that is not above it in English: a translation never moves an answer
 *     before its question.
 *
 * Full-width digits and Latin letters are refused in the Japanese: they would hide a number or a
 * name from these checks. Whether a translation is stale (its English changed since) is grader
 * lint's check, not this one's. The first tests check the checker itself on made-up pairs.
 */
#define _GNU_SOURCE
#include "wb_base.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- tokens ---------------------------------------------------------------------------------- */

#define MAX_TOKENS 4096
#define TOKEN_CAP 256

typedef struct {
    int n;
    char t[MAX_TOKENS][TOKEN_CAP];
} tokens;

static int has_token(const tokens *s, const char *t) {
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->t[i], t)) return 1;
    return 0;
}

static void add_token(tokens *s, const char *p, size_t len) {
    if (len == 0 || len >= TOKEN_CAP || s->n >= MAX_TOKENS) return;
    char t[TOKEN_CAP];
    memcpy(t, p, len);
    t[len] = 0;
    if (!has_token(s, t)) strcpy(s->t[s->n++], t);
}

/* Numbers: a run of digits, with a decimal part when a '.' and a digit follow (4.2, 137.4). */
static void numbers(const char *s, tokens *out) {
    for (const char *p = s; *p;) {
        if (!isdigit((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *b = p;
        while (isdigit((unsigned char)*p)) p++;
        if (*p == '.' && isdigit((unsigned char)p[1])) {
            p++;
            while (isdigit((unsigned char)*p)) p++;
        }
        add_token(out, b, (size_t)(p - b));
    }
}

static int word_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':'; }

/* A token that only code has: an underscore, "::", camelCase (a lower-case letter then an
 * upper-case one), or a '.' between two runs of at least two letters or digits (main.cu,
 * torch.add; not e.g). Plain words and plain numbers are not code. */
static int code_like(const char *t, size_t len) {
    int alpha = 0;
    for (size_t i = 0; i < len; i++) {
        if (isalpha((unsigned char)t[i])) alpha = 1;
        if (t[i] == '_') return alpha || len > 1;
        if (t[i] == ':' && i + 1 < len && t[i + 1] == ':') return 1;
        if (i > 0 && islower((unsigned char)t[i - 1]) && isupper((unsigned char)t[i])) return 1;
    }
    if (!alpha) return 0;
    for (size_t i = 2; i + 2 < len; i++)
        if (t[i] == '.' && isalnum((unsigned char)t[i - 1]) && isalnum((unsigned char)t[i - 2]) &&
            isalnum((unsigned char)t[i + 1]) && isalnum((unsigned char)t[i + 2]))
            return 1;
    return 0;
}

static void identifiers(const char *s, tokens *out) {
    for (const char *p = s; *p;) {
        if (!word_char(*p)) {
            p++;
            continue;
        }
        const char *b = p;
        while (word_char(*p)) p++;
        const char *e = p;
        while (e > b && (e[-1] == '.' || e[-1] == ':')) e--; /* a sentence's full stop or colon */
        while (b < e && (*b == '.' || *b == ':')) b++;
        if (code_like(b, (size_t)(e - b))) add_token(out, b, (size_t)(e - b));
    }
}

/* `spans`, inner whitespace collapsed to one space (a span may wrap across lines). */
static void code_spans(const char *s, tokens *out) {
    for (const char *p = strchr(s, '`'); p; p = strchr(p, '`')) {
        const char *e = strchr(p + 1, '`');
        if (!e) break;
        char t[TOKEN_CAP];
        size_t n = 0;
        for (const char *q = p + 1; q < e && n + 1 < sizeof t; q++) {
            int sp = isspace((unsigned char)*q);
            if (sp && (n == 0 || t[n - 1] == ' ')) continue;
            t[n++] = sp ? ' ' : *q;
        }
        add_token(out, t, n);
        p = e + 1;
    }
}

/* Numbers an English text spells as words (each counts as written in digits). */
static void number_words(const char *s, tokens *out) {
    static const struct {
        const char *word, *digits;
    } words[] = {{"one", "1"},     {"once", "1"},      {"first", "1"},     {"single", "1"},    {"two", "2"},
                 {"twice", "2"},   {"second", "2"},    {"both", "2"},      {"double", "2"},    {"pair", "2"},
                 {"three", "3"},   {"third", "3"},     {"four", "4"},      {"fourth", "4"},    {"quarter", "4"},
                 {"five", "5"},    {"six", "6"},       {"seven", "7"},     {"eight", "8"},     {"nine", "9"},     {"ninth", "9"},
                 {"ten", "10"},    {"tenth", "10"},    {"eleven", "11"},   {"twelve", "12"},   {"twenty", "20"},
                 {"hundred", "100"}, {"thousand", "1000"}, {"million", "1000000"}, {"half", "2"}};
    for (const char *p = s; *p;) {
        if (!isalpha((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *b = p;
        while (isalpha((unsigned char)*p)) p++;
        size_t len = (size_t)(p - b);
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
            size_t wl = strlen(words[i].word);
            /* "kernels" -> no; "two" / "Two" / "twos" -> yes */
            if ((len == wl || (len == wl + 1 && b[wl] == 's')) && !strncasecmp(b, words[i].word, wl))
                add_token(out, words[i].digits, strlen(words[i].digits));
        }
    }
}

/* Full-width digits (U+FF10..FF19) and Latin letters (U+FF21..FF3A, U+FF41..FF5A): EF BC 90-99,
 * EF BC A1-BA, EF BD 81-9A in UTF-8. */
static const char *full_width_alnum(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (p[0] != 0xEF || !p[1] || !p[2]) continue;
        if (p[1] == 0xBC && ((p[2] >= 0x90 && p[2] <= 0x99) || (p[2] >= 0xA1 && p[2] <= 0xBA))) return (const char *)p;
        if (p[1] == 0xBD && p[2] >= 0x81 && p[2] <= 0x9A) return (const char *)p;
    }
    return NULL;
}

/* The code of a Markdown text, line by line: fenced blocks (fences included) and indented blocks
 * (4 spaces, after a blank line or another code line). A translation keeps it to the byte. */
static char *code_lines(const char *s) {
    size_t cap = strlen(s) + 1, n = 0;
    char *out = malloc(cap);
    cr_assert(out);
    int fence = 0, prev_code = 0, prev_blank = 1;
    for (const char *p = s; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int blank = 1;
        for (size_t i = 0; i < len; i++)
            if (!isspace((unsigned char)p[i])) blank = 0;
        int take = 0;
        if (!strncmp(p, "```", 3)) fence = !fence, take = 1, prev_code = 0;
        else if (fence) take = 1;
        else if (len > 4 && !strncmp(p, "    ", 4) && !blank && (prev_blank || prev_code)) take = prev_code = 1;
        else prev_code = 0;
        if (take) {
            memcpy(out + n, p, len);
            n += len;
            out[n++] = '\n';
        }
        prev_blank = blank;
        p = e ? e + 1 : p + len;
    }
    out[n] = 0;
    return out;
}

/* Lines of a Markdown text outside fenced blocks that start with prefix (headings: "#", table
 * rows: "|"): a translation keeps the English's structure. */
static int count_lines_starting(const char *s, const char *prefix) {
    int n = 0, fence = 0;
    for (const char *p = s; *p;) {
        if (!strncmp(p, "```", 3)) fence = !fence;
        else if (!fence && !strncmp(p, prefix, strlen(prefix))) n++;
        const char *e = strchr(p, '\n');
        p = e ? e + 1 : p + strlen(p);
    }
    return n;
}

/* The first line where two texts differ, into buf (for a failure message). */
static const char *first_difference(const char *a, const char *b, char *buf, size_t cap) {
    const char *la = a, *lb = b; /* the starts of the current lines */
    for (; *a && *a == *b; a++, b++)
        if (*a == '\n') la = a + 1, lb = b + 1;
    snprintf(buf, cap, "English: \"%.*s\", Japanese: \"%.*s\"", (int)strcspn(la, "\n"), la, (int)strcspn(lb, "\n"), lb);
    return buf;
}

/* ---- comparing one English text with its Japanese ------------------------------------------------ */

typedef struct {
    int problems;
    char first[2048]; /* the first few, for the failure message */
} verdict;

static void problem(verdict *v, const char *fmt, const char *what) {
    char line[400];
    snprintf(line, sizeof line, fmt, what);
    if (v->problems++ < 6) {
        size_t n = strlen(v->first);
        snprintf(v->first + n, sizeof v->first - n, "\n    %s", line);
    }
}

/* ja says what en says: numbers, code tokens and spans, both ways. */
static void compare(const char *en, const char *ja, verdict *v) {
    static tokens en_n, ja_n, en_w, en_id, ja_id, en_sp, ja_sp;
    en_n.n = ja_n.n = en_w.n = en_id.n = ja_id.n = en_sp.n = ja_sp.n = 0;
    numbers(en, &en_n), numbers(ja, &ja_n), number_words(en, &en_w);
    identifiers(en, &en_id), identifiers(ja, &ja_id);
    code_spans(en, &en_sp), code_spans(ja, &ja_sp);
    for (int i = 0; i < en_n.n; i++)
        if (!has_token(&ja_n, en_n.t[i])) problem(v, "the English number %s is missing", en_n.t[i]);
    for (int i = 0; i < ja_n.n; i++)
        if (!has_token(&en_n, ja_n.t[i]) && !has_token(&en_w, ja_n.t[i]) && strcmp(ja_n.t[i], "1"))
            problem(v, "the number %s is not in the English", ja_n.t[i]);
    for (int i = 0; i < en_id.n; i++)
        if (!has_token(&ja_id, en_id.t[i])) problem(v, "the English's %s is missing", en_id.t[i]);
    for (int i = 0; i < ja_id.n; i++)
        if (!has_token(&en_id, ja_id.t[i])) problem(v, "%s is not in the English", ja_id.t[i]);
    for (int i = 0; i < en_sp.n; i++)
        if (!has_token(&ja_sp, en_sp.t[i])) problem(v, "the English's `%s` is missing", en_sp.t[i]);
    for (int i = 0; i < ja_sp.n; i++)
        if (!has_token(&en_sp, ja_sp.t[i])) problem(v, "`%s` is not in the English", ja_sp.t[i]);
    const char *fw = full_width_alnum(ja);
    if (fw) problem(v, "a full-width digit or letter: \"%.24s\"", fw);
}

/* Nothing above ja's reveal line that is not above en's: numbers and spans. */
static void compare_above_reveal(const char *en_above, const char *ja_above, verdict *v) {
    static tokens en_n, ja_n, en_w, en_sp, ja_sp;
    en_n.n = ja_n.n = en_w.n = en_sp.n = ja_sp.n = 0;
    numbers(en_above, &en_n), numbers(ja_above, &ja_n), number_words(en_above, &en_w);
    code_spans(en_above, &en_sp), code_spans(ja_above, &ja_sp);
    for (int i = 0; i < ja_n.n; i++)
        if (!has_token(&en_n, ja_n.t[i]) && !has_token(&en_w, ja_n.t[i]) && strcmp(ja_n.t[i], "1"))
            problem(v, "above the reveal line: the number %s is only below it in the English", ja_n.t[i]);
    for (int i = 0; i < ja_sp.n; i++)
        if (!has_token(&en_sp, ja_sp.t[i])) problem(v, "above the reveal line: `%s` is only below it in the English", ja_sp.t[i]);
}

/* ---- the checker checks itself ------------------------------------------------------------------ */

static int problems_of(const char *en, const char *ja) {
    verdict v = {0};
    compare(en, ja, &v);
    return v.problems;
}

Test(checker, accepts_a_faithful_translation) {
    cr_expect_eq(problems_of("At size 4096 the GEMM does 2 x 4096^3 = 137.4 GFLOP. How many kernels does k_bias_add launch?",
                             "サイズ 4096 では GEMM は 2 x 4096^3 = 137.4 GFLOP を計算します。k_bias_add はカーネルをいくつ起動しますか？"),
                 0);
    cr_expect_eq(problems_of("Two kernels, one GEMM, in a step.", "1ステップにカーネル2つ、GEMM 1つ。"), 0);
}

Test(checker, finds_a_changed_number) {
    cr_expect_eq(problems_of("About 15.5 us for 67 MB.", "67 MB に対して約 15.6 us。"), 2); /* 15.5 missing, 15.6 invented */
    cr_expect_eq(problems_of("reads 4096^2 values", "4096^3 個の値を読みます"), 2); /* 2 missing, 3 invented */
    cr_expect_eq(problems_of("Two kernels.", "カーネルは3つです。"), 1);
}

Test(checker, finds_a_changed_or_dropped_name) {
    cr_expect_eq(problems_of("launched with cuLaunchKernelEx", "cudaLaunchKernelEx で起動されます"), 2);
    cr_expect_eq(problems_of("aten::t launches nothing", "転置は何も起動しません"), 1);
    cr_expect_eq(problems_of("read main.cu", "main.c を読んでください"), 1);
    cr_expect_eq(problems_of("the `step` range", "`sync` レンジ"), 2);
}

Test(checker, refuses_full_width_digits) {
    cr_expect_eq(problems_of("2 kernels", "カーネル２つ（2）"), 1);
}

Test(checker, finds_an_answer_moved_above_the_reveal_line) {
    verdict v = {0};
    compare_above_reveal("1. How many kernels? Time it in microseconds.", "1. カーネルはいくつ？ 時間（約 172 us）は？", &v);
    cr_expect_eq(v.problems, 1, "%s", v.first);
}

Test(checker, finds_a_changed_command) {
    const char *en = "Run:\n\n    scripts/start.sh\n    scripts/test.sh\n\nDone.\n```sh\nmake\n```\n";
    char *same = code_lines("実行:\n\n    scripts/start.sh\n    scripts/test.sh\n\n完了。\n```sh\nmake\n```\n");
    char *changed = code_lines("実行:\n\n    scripts/start.sh\n    scripts/tests.sh\n\n完了。\n```sh\nmake\n```\n");
    char *code = code_lines(en);
    cr_expect_str_eq(code, "    scripts/start.sh\n    scripts/test.sh\n```sh\nmake\n```\n");
    cr_expect_str_eq(same, code);
    cr_expect_str_neq(changed, code);
    free(same), free(changed), free(code);
}

/* ---- the checkout's files ------------------------------------------------------------------------- */

static char root[4096];

static void find_root(void) {
    const char *s = getenv("WB_SOURCE_DIR");
    cr_assert(s && *s, "WB_SOURCE_DIR is not set (ctest sets it)");
    snprintf(root, sizeof root, "%s", s);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n, "%s: read failed", path);
    s[n] = 0;
    fclose(f);
    return s;
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static int is_hex(const char *s, size_t len) {
    if (!s || strlen(s) != len) return 0;
    for (size_t i = 0; i < len; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i])) return 0;
    return 1;
}

static yaml_node_t *get(wb_yaml *y, yaml_node_t *n, const char *key) {
    return n && n->type == YAML_MAPPING_NODE ? wb_yaml_get(y, n, key) : NULL;
}

static const char *str(yaml_node_t *n) { return n && n->type == YAML_SCALAR_NODE ? wb_yaml_scalar(n) : NULL; }

static void load(const char *path, wb_yaml *y) {
    wb_error err = {0};
    cr_assert_eq(wb_yaml_load(path, "translation", y, &err), 0, "%s", err.message);
}

static void expect_same(const char *file, const char *what, const char *en, const char *ja) {
    cr_expect(ja && *ja, "%s: %s: no Japanese text", file, what);
    if (!en || !ja) return;
    verdict v = {0};
    compare(en, ja, &v);
    cr_expect_eq(v.problems, 0, "%s: %s: %d problem(s):%s", file, what, v.problems, v.first);
}

/* The English question with this id in lesson.yaml's questions list, or NULL. */
static yaml_node_t *english_question(wb_yaml *en, const char *id) {
    yaml_node_t *qs = get(en, wb_yaml_root(en), "questions");
    if (!qs || qs->type != YAML_SEQUENCE_NODE) return NULL;
    for (yaml_node_item_t *it = qs->data.sequence.items.start; it < qs->data.sequence.items.top; it++) {
        yaml_node_t *q = yaml_document_get_node(&en->doc, *it);
        const char *qid = str(get(en, q, "id"));
        if (qid && !strcmp(qid, id)) return q;
    }
    return NULL;
}

static int check_lesson_translation(const char *lesson_dir) {
    char ja_path[4400], en_path[4400];
    snprintf(ja_path, sizeof ja_path, "%s/i18n/ja.yaml", lesson_dir);
    snprintf(en_path, sizeof en_path, "%s/lesson.yaml", lesson_dir);
    if (!exists(ja_path)) return 0;
    wb_yaml ja = {0}, en = {0};
    load(ja_path, &ja), load(en_path, &en);
    yaml_node_t *root_ja = wb_yaml_root(&ja);
    cr_expect(is_hex(str(get(&ja, root_ja, "translates")), 40), "%s: translates: is not a 40-hex commit", ja_path);
    yaml_node_t *title = get(&ja, root_ja, "title");
    cr_expect(is_hex(str(get(&ja, title, "en_sha")), 64), "%s: title: en_sha is not a sha256", ja_path);
    expect_same(ja_path, "title", str(get(&en, wb_yaml_root(&en), "title")), str(get(&ja, title, "text")));
    yaml_node_t *qs = get(&ja, root_ja, "questions");
    cr_assert(qs && qs->type == YAML_MAPPING_NODE, "%s: questions: is not a mapping", ja_path);
    int count = 0;
    for (yaml_node_pair_t *p = qs->data.mapping.pairs.start; p < qs->data.mapping.pairs.top; p++, count++) {
        const char *id = str(yaml_document_get_node(&ja.doc, p->key));
        yaml_node_t *q = yaml_document_get_node(&ja.doc, p->value);
        yaml_node_t *eq = english_question(&en, id);
        cr_expect(eq, "%s: question '%s' is not in %s", ja_path, id, en_path);
        if (!eq) continue;
        cr_expect(is_hex(str(get(&ja, q, "en_sha")), 64), "%s: %s: en_sha is not a sha256", ja_path, id);
        char what[300];
        snprintf(what, sizeof what, "%s ask", id);
        expect_same(ja_path, what, str(get(&en, eq, "ask")), str(get(&ja, q, "ask")));
        yaml_node_t *eh = get(&en, eq, "hints"), *jh = get(&ja, q, "hints");
        int en_hints = eh && eh->type == YAML_SEQUENCE_NODE ? (int)(eh->data.sequence.items.top - eh->data.sequence.items.start) : 0;
        int ja_hints = jh && jh->type == YAML_SEQUENCE_NODE ? (int)(jh->data.sequence.items.top - jh->data.sequence.items.start) : 0;
        cr_expect(!jh || jh->type == YAML_SEQUENCE_NODE, "%s: %s: hints: is not a list", ja_path, id);
        cr_expect_eq(ja_hints, en_hints, "%s: %s: %d hint(s), the English has %d", ja_path, id, ja_hints, en_hints);
        for (int i = 0; i < en_hints && i < ja_hints; i++) {
            snprintf(what, sizeof what, "%s hint %d", id, i + 1);
            expect_same(ja_path, what, str(yaml_document_get_node(&en.doc, eh->data.sequence.items.start[i])),
                        str(yaml_document_get_node(&ja.doc, jh->data.sequence.items.start[i])));
        }
    }
    wb_yaml_free(&ja), wb_yaml_free(&en);
    return count;
}

static int check_key_translation(const char *ja_path) {
    char en_path[4400];
    snprintf(en_path, sizeof en_path, "%.*s.yaml", (int)(strlen(ja_path) - strlen(".ja.yaml")), ja_path);
    cr_assert(exists(en_path), "%s: no English answer key %s beside it", ja_path, en_path);
    wb_yaml ja = {0}, en = {0};
    load(ja_path, &ja), load(en_path, &en);
    cr_expect(is_hex(str(get(&ja, wb_yaml_root(&ja), "translates")), 40), "%s: translates: is not a 40-hex commit", ja_path);
    yaml_node_t *ex = get(&ja, wb_yaml_root(&ja), "explanations");
    yaml_node_t *en_ex = get(&en, wb_yaml_root(&en), "explanations");
    cr_assert(ex && ex->type == YAML_MAPPING_NODE, "%s: explanations: is not a mapping", ja_path);
    int count = 0;
    for (yaml_node_pair_t *p = ex->data.mapping.pairs.start; p < ex->data.mapping.pairs.top; p++, count++) {
        const char *id = str(yaml_document_get_node(&ja.doc, p->key));
        yaml_node_t *e = yaml_document_get_node(&ja.doc, p->value);
        const char *en_text = str(get(&en, en_ex, id));
        cr_expect(en_text, "%s: explanation '%s' is not in %s", ja_path, id, en_path);
        cr_expect(is_hex(str(get(&ja, e, "en_sha")), 64), "%s: %s: en_sha is not a sha256", ja_path, id);
        if (en_text) expect_same(ja_path, id, en_text, str(get(&ja, e, "text")));
    }
    wb_yaml_free(&ja), wb_yaml_free(&en);
    return count;
}

static const char REVEAL[] = "\n<!-- reveal -->\n";

static void check_readme(const char *dir) {
    char ja_path[4400], en_path[4400];
    snprintf(ja_path, sizeof ja_path, "%s/README.ja.md", dir);
    snprintf(en_path, sizeof en_path, "%s/README.md", dir);
    char *ja = slurp(ja_path), *en = slurp(en_path);
    cr_assert(en, "%s: no %s beside it", ja_path, en_path);
    const char *head = "<!-- translates: README.md @ ";
    cr_expect(!strncmp(ja, head, strlen(head)), "%s: the first line is not \"%s<commit> -->\"", ja_path, head);
    const char *c = ja + strlen(head), *nl = strchr(ja, '\n');
    cr_expect(nl && nl - c == 44 && !strncmp(c + 40, " -->", 4), "%s: the first line does not end in a 40-hex commit and -->", ja_path);
    char commit[41] = {0};
    memcpy(commit, c, 40);
    cr_expect(is_hex(commit, 40), "%s: translates: %s is not a 40-hex commit", ja_path, commit);
    const char *body = nl ? nl + 1 : ja;
    expect_same(ja_path, "the whole text", en, body);
    static const char *const structure[][2] = {{"#", "headings"}, {"|", "table rows"}};
    for (size_t i = 0; i < 2; i++) {
        int n_en = count_lines_starting(en, structure[i][0]), n_ja = count_lines_starting(body, structure[i][0]);
        cr_expect_eq(n_ja, n_en, "%s: %d %s, the English has %d", ja_path, n_ja, structure[i][1], n_en);
    }
    char *en_code = code_lines(en), *ja_code = code_lines(body), diff[600];
    cr_expect_str_eq(ja_code, en_code, "%s: the code blocks differ from the English's: %s", ja_path,
                     first_difference(en_code, ja_code, diff, sizeof diff));
    free(en_code), free(ja_code);
    const char *en_rev = strstr(en, REVEAL), *ja_rev = strstr(body, REVEAL);
    cr_expect(!en_rev == !ja_rev, "%s: the English %s the reveal line, the Japanese %s", ja_path, en_rev ? "has" : "has no",
              ja_rev ? "has it" : "has not");
    if (ja_rev) cr_expect(!strstr(ja_rev + 1, REVEAL), "%s: the reveal line appears twice", ja_path);
    if (en_rev && ja_rev) {
        char *en_above = strndup(en, (size_t)(en_rev - en)), *ja_above = strndup(body, (size_t)(ja_rev - body));
        verdict v = {0};
        compare_above_reveal(en_above, ja_above, &v);
        cr_expect_eq(v.problems, 0, "%s: %d problem(s):%s", ja_path, v.problems, v.first);
        free(en_above), free(ja_above);
    }
    free(ja), free(en);
}

static int sorted_entries(const char *dir, struct dirent ***list) {
    int n = scandir(dir, list, NULL, alphasort);
    cr_assert(n >= 0, "cannot list %s", dir);
    return n;
}

Test(checkout, lesson_translations) {
    find_root();
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/lessons", root);
    struct dirent **e;
    int n = sorted_entries(dir, &e), files = 0;
    for (int i = 0; i < n; i++) {
        char lesson[4400];
        snprintf(lesson, sizeof lesson, "%s/%s", dir, e[i]->d_name);
        if (isdigit((unsigned char)e[i]->d_name[0]) && check_lesson_translation(lesson) > 0) files++;
        free(e[i]);
    }
    free(e);
    cr_log_info("%d lesson translation(s) checked", files);
}

Test(checkout, key_translations) {
    find_root();
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/expectations", root);
    struct dirent **e;
    int n = sorted_entries(dir, &e);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(e[i]->d_name);
        if (len > 8 && !strcmp(e[i]->d_name + len - 8, ".ja.yaml")) {
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", dir, e[i]->d_name);
            check_key_translation(path);
        }
        free(e[i]);
    }
    free(e);
}

Test(checkout, readmes) {
    find_root();
    char path[4400], dir[4200];
    snprintf(path, sizeof path, "%s/README.ja.md", root);
    if (exists(path)) check_readme(root);
    snprintf(dir, sizeof dir, "%s/lessons", root);
    struct dirent **e;
    int n = sorted_entries(dir, &e);
    for (int i = 0; i < n; i++) {
        char lesson[4400];
        snprintf(lesson, sizeof lesson, "%s/%s", dir, e[i]->d_name);
        snprintf(path, sizeof path, "%s/README.ja.md", lesson);
        if (isdigit((unsigned char)e[i]->d_name[0]) && exists(path)) check_readme(lesson);
        free(e[i]);
    }
    free(e);
}
