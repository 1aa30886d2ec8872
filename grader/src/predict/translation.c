/* translation.c: see translation.h. */
#define _GNU_SOURCE
#include "translation.h"

#include <stdlib.h>
#include <string.h>

static const char *const LESSON_KEYS[] = {"translates", "title", "questions", NULL};
static const char *const KEY_KEYS[] = {"translates", "explanations", NULL};
static const char *const TITLE_KEYS[] = {"en_sha", "text", NULL};
static const char *const QUESTION_KEYS[] = {"en_sha", "ask", "hints", NULL};

static void entry_free(wb_translated *e) {
    free(e->id), free(e->en_sha), free(e->text);
    for (size_t i = 0; i < e->n_hints; i++) free(e->hints[i]);
    free(e->hints);
}

void wb_translation_free(wb_translation *t) {
    if (t->title) entry_free(t->title);
    free(t->title);
    for (size_t i = 0; i < t->n; i++) entry_free(&t->items[i]);
    free(t->items), free(t->path), free(t->translates);
    memset(t, 0, sizeof *t);
}

static int is_sha(const char *s) { return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64; }

/* {en_sha: ..., text|ask: ..., hints: [...]} into e. */
static int read_entry(wb_yaml *y, yaml_node_t *n, const char *id, const char *const *keys, const char *text_key, wb_translated *e,
                      wb_error *err) {
    char what[300];
    snprintf(what, sizeof what, _("the translation of '%s'"), id);
    int rc = wb_yaml_expect_mapping(y, n, what, keys, err);
    if (rc) return rc;
    e->id = strdup(id);
    e->line = wb_yaml_line(n);
    yaml_node_t *sha = wb_yaml_get(y, n, "en_sha"), *text = wb_yaml_get(y, n, text_key);
    if (!sha || !text)
        return wb_yaml_fail(err, y, n, _("%s needs en_sha (tools/i18n_sha.py prints it) and %s"), what, text_key);
    if ((rc = wb_yaml_string(y, sha, "en_sha", &e->en_sha, err)) || (rc = wb_yaml_string(y, text, text_key, &e->text, err))) return rc;
    if (!is_sha(e->en_sha)) return wb_yaml_fail(err, y, sha, _("en_sha of '%s' is not a SHA-256 in hex (64 digits 0-9a-f)"), id);
    yaml_node_t *hints = wb_yaml_get(y, n, "hints");
    if (!hints) return 0;
    if ((rc = wb_yaml_expect_sequence(y, hints, "hints", err))) return rc;
    size_t m = (size_t)(hints->data.sequence.items.top - hints->data.sequence.items.start);
    e->hints = calloc(m + 1, sizeof *e->hints);
    if (!e->hints) return wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
    for (size_t i = 0; i < m; i++) {
        e->n_hints = i + 1;
        if ((rc = wb_yaml_string(y, yaml_document_get_node(&y->doc, hints->data.sequence.items.start[i]), _("a hint"), &e->hints[i], err)))
            return rc;
    }
    return 0;
}

int wb_translation_load(const char *path, wb_translation_kind kind, wb_translation *t, wb_error *err) {
    memset(t, 0, sizeof *t);
    wb_yaml y;
    int rc = wb_yaml_load(path, N_("translation"), &y, err);
    t->path = strdup(path);
    if (rc) goto out;
    yaml_node_t *root = wb_yaml_root(&y);
    const char *list_key = kind == WB_TRANSLATION_LESSON ? "questions" : "explanations";
    if ((rc = wb_yaml_expect_mapping(&y, root, _("the translation"), kind == WB_TRANSLATION_LESSON ? LESSON_KEYS : KEY_KEYS, err)))
        goto out;
    yaml_node_t *translates = wb_yaml_get(&y, root, "translates");
    if (translates && (rc = wb_yaml_string(&y, translates, "'translates'", &t->translates, err))) goto out;
    yaml_node_t *title = kind == WB_TRANSLATION_LESSON ? wb_yaml_get(&y, root, "title") : NULL;
    if (title) {
        if (!(t->title = calloc(1, sizeof *t->title))) { rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory")); goto out; }
        if ((rc = read_entry(&y, title, "title", TITLE_KEYS, "text", t->title, err))) goto out;
    }
    yaml_node_t *list = wb_yaml_get(&y, root, list_key);
    if (!list) goto out;
    char what[64];
    snprintf(what, sizeof what, "'%s'", list_key);
    if ((rc = wb_yaml_expect_mapping(&y, list, what, NULL, err))) goto out;
    size_t m = (size_t)(list->data.mapping.pairs.top - list->data.mapping.pairs.start);
    if (!(t->items = calloc(m + 1, sizeof *t->items))) { rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory")); goto out; }
    for (size_t i = 0; i < m; i++) {
        yaml_node_pair_t *p = &list->data.mapping.pairs.start[i];
        t->n = i + 1;
        rc = read_entry(&y, yaml_document_get_node(&y.doc, p->value), wb_yaml_scalar(yaml_document_get_node(&y.doc, p->key)),
                        kind == WB_TRANSLATION_LESSON ? QUESTION_KEYS : TITLE_KEYS, kind == WB_TRANSLATION_LESSON ? "ask" : "text",
                        &t->items[i], err);
        if (rc) goto out;
    }
out:
    wb_yaml_free(&y);
    if (rc) wb_translation_free(t);
    return rc;
}

wb_translation *wb_translation_load_beside(const char *path, wb_translation_kind kind, char *error, size_t cap) {
    error[0] = '\0';
    if (!wb_file_exists(path)) return NULL;
    wb_error err = {0};
    wb_translation *t = calloc(1, sizeof *t);
    if (t && !wb_translation_load(path, kind, t, &err)) return t;
    snprintf(error, cap, "%s", t ? err.message : _("out of memory"));
    free(t);
    return NULL;
}

void wb_translation_drop(wb_translation *t) {
    if (t) wb_translation_free(t);
    free(t);
}

const wb_translated *wb_translation_find(const wb_translation *t, const char *id) {
    for (size_t i = 0; t && i < t->n; i++)
        if (!strcmp(t->items[i].id, id)) return &t->items[i];
    return NULL;
}

int wb_translation_fresh(const char *en_sha, const char *english) {
    char hex[65];
    wb_sha256_hex(english, hex);
    return en_sha && !strcmp(en_sha, hex);
}

const char *wb_lesson_translation_path(const char *lesson_dir, const char *lang, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/i18n/%s.yaml", lesson_dir, lang);
    return buf;
}

const char *wb_key_translation_path(const char *key_path, const char *lang, char *buf, size_t cap) {
    size_t n = strlen(key_path);
    if (n > 5 && !strcmp(key_path + n - 5, ".yaml")) n -= 5;
    snprintf(buf, cap, "%.*s.%s.yaml", (int)n, key_path, lang);
    return buf;
}
