/* sealed_key.c: see sealed_key.h. The crypto is OpenSSL's (EVP: SHA-256, AES-256-GCM, RAND). */
#define _GNU_SOURCE
#include "sealed_key.h"
#include "wb_predict.h"
#include "wb_base.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEALED_FORMAT "gpu-workbench-sealed-key"
#define SALT_BYTES 16
#define IV_BYTES 12
#define TAG_BYTES 16
#define SEALED_MAX_BYTES ((size_t)4 << 20)

const char *wb_sealed_key_path(const char *lesson_dir, const char *lesson, char *buf, size_t cap) {
    char yaml[4200];
    wb_answer_key_path(lesson_dir, lesson, yaml, sizeof yaml);
    size_t n = strlen(yaml);
    if (n > 5 && !strcmp(yaml + n - 5, ".yaml")) yaml[n - 5] = '\0';
    snprintf(buf, cap, "%s.sealed.json", yaml);
    return buf;
}

/* ---- hex ------------------------------------------------------------------------------------- */

static char *to_hex(const unsigned char *b, size_t n) {
    char *s = malloc(2 * n + 1);
    for (size_t i = 0; s && i < n; i++) snprintf(s + 2 * i, 3, "%02x", b[i]);
    return s;
}

/* Decodes hex into a malloc'd buffer; NULL when it is not hex. */
static unsigned char *from_hex(const char *s, size_t *n) {
    size_t len = s ? strlen(s) : 1;
    if (len % 2) return NULL;
    unsigned char *b = malloc(len / 2 + 1);
    for (size_t i = 0; b && i < len / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return free(b), NULL;
        b[i] = (unsigned char)v;
    }
    *n = len / 2;
    return b;
}

/* ---- the key of one question ------------------------------------------------------------------ */

/* "gpu-workbench-seal v1\nLESSON\nID\nARCH\nlabel=value\n..." over the question's exact facts in
 * lesson.yaml's order; values[i] is the answer of q->facts[i], or -1 for a time fact (left out). */
static void seal_key(const char *lesson, const wb_question *q, const char *arch, const long *values, const unsigned char *salt,
                     unsigned char key[32]) {
    size_t cap = 256 + strlen(lesson) + strlen(q->id) + strlen(arch), n = 0;
    for (size_t i = 0; i < q->n_facts; i++) cap += strlen(q->facts[i]) + 24;
    char *text = malloc(cap);
    if (!text) {
        memset(key, 0, 32);
        return;
    }
    n += (size_t)snprintf(text + n, cap - n, "gpu-workbench-seal v1\n%s\n%s\n%s\n", lesson, q->id, arch);
    for (size_t i = 0; i < q->n_facts; i++)
        if (values[i] >= 0) n += (size_t)snprintf(text + n, cap - n, "%s=%ld\n", q->facts[i], values[i]);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned int out = 0;
    if (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL) || !EVP_DigestUpdate(md, salt, SALT_BYTES) ||
        !EVP_DigestUpdate(md, text, n) || !EVP_DigestFinal_ex(md, key, &out))
        memset(key, 0, 32);
    EVP_MD_CTX_free(md);
    free(text);
}

/* A time (within a band): not sealed into a key, since no two runs give the same value. */
static int is_time_label(const char *label) {
    const wb_fact_kind_info *kind = wb_fact_kind_of_label(label, NULL);
    return kind && kind->value->banded;
}

/* ---- writing ------------------------------------------------------------------------------------- */

static const wb_fact *fact_labelled(const wb_prediction *p, const char *label) {
    for (size_t i = 0; i < p->n_facts; i++)
        if (!strcmp(p->facts[i].label, label)) return &p->facts[i];
    return NULL;
}

/* One explanation sealed under one architecture's answers; NULL when that architecture does not
 * answer every exact fact of the question. */
static json_t *seal_one(const wb_lesson *l, const wb_question *q, const wb_arch_answers *a, const char *text, const char *lang,
                        wb_error *err) {
    const wb_prediction *p = wb_predictions_find(&a->answers, q->id);
    if (!p) return NULL;
    long *values = calloc(q->n_facts + 1, sizeof *values);
    if (!values) return wb_fail(err, WB_EXIT_INPUT, _("out of memory")), NULL;
    for (size_t i = 0; i < q->n_facts; i++) {
        const wb_fact *f = fact_labelled(p, q->facts[i]);
        if (is_time_label(q->facts[i]) || (f && wb_fact_is_time(f->kind))) values[i] = -1;
        else if (!f) return free(values), NULL;
        else values[i] = f->predicted;
    }
    unsigned char salt[SALT_BYTES], iv[IV_BYTES], key[32], tag[TAG_BYTES];
    size_t n = strlen(text);
    unsigned char *data = malloc(n + 16);
    int ok = data && RAND_bytes(salt, SALT_BYTES) == 1 && RAND_bytes(iv, IV_BYTES) == 1;
    if (ok) seal_key(l->lesson, q, a->arch, values, salt, key);
    free(values);
    EVP_CIPHER_CTX *c = ok ? EVP_CIPHER_CTX_new() : NULL;
    int len = 0, fin = 0;
    ok = c && EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, key, iv) &&
         EVP_EncryptUpdate(c, data, &len, (const unsigned char *)text, (int)n) && EVP_EncryptFinal_ex(c, data + len, &fin) &&
         EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, TAG_BYTES, tag);
    EVP_CIPHER_CTX_free(c);
    json_t *o = NULL;
    if (ok) {
        char *hs = to_hex(salt, SALT_BYTES), *hi = to_hex(iv, IV_BYTES), *hd = to_hex(data, (size_t)(len + fin)),
             *ht = to_hex(tag, TAG_BYTES);
        if (hs && hi && hd && ht)
            o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "id", q->id, "arch", a->arch, "salt", hs, "iv", hi, "data", hd, "tag", ht);
        if (o && lang) json_object_set_new(o, "lang", json_string(lang));
        free(hs), free(hi), free(hd), free(ht);
    }
    free(data);
    if (!o) wb_fail(err, WB_EXIT_INPUT, _("cannot seal the explanation of '%s' (OpenSSL or memory)"), q->id);
    return o;
}

int wb_sealed_key_write(const wb_lesson *l, const wb_answer_key *key, const char *path, wb_error *err) {
    json_t *archs = json_object(), *sealed = json_array();
    int rc = 0;
    for (size_t i = 0; i < key->n_archs; i++) {
        const wb_arch_answers *a = &key->archs[i];
        json_object_set_new(archs, a->arch, json_pack("{s:s, s:s?}", "status", a->verified ? "verified" : "unverified",
                                                      "verified_on", a->verified_on));
    }
    for (size_t i = 0; i < l->n_questions && !rc; i++) {
        const wb_question *q = &l->questions[i];
        const char *text = wb_answer_key_explanation_en(key, q->id);
        /* the Japanese explanation, sealed the same way, when it translates the English as it is now */
        const wb_translated *ja = text ? wb_translation_find(key->ja, q->id) : NULL;
        if (ja && !wb_translation_fresh(ja->en_sha, text)) ja = NULL;
        for (size_t j = 0; text && j < key->n_archs && !rc; j++) {
            json_t *o = seal_one(l, q, &key->archs[j], text, NULL, err);
            if (o) json_array_append_new(sealed, o);
            else if (err->code) rc = err->code;
            json_t *t = o && ja ? seal_one(l, q, &key->archs[j], ja->text, "ja", err) : NULL;
            if (t) json_array_append_new(sealed, t);
            else if (err->code) rc = err->code;
        }
    }
    json_t *doc = json_pack("{s:s, s:i, s:s, s:s, s:o, s:o}", "format", SEALED_FORMAT, "version", 1, "lesson", l->lesson,
                            "about", "grader release: answers withheld; each explanation opens once grader check has "
                                     "graded its question (docs/releasing.md)",
                            "architectures", archs, "explanations", sealed);
    if (!rc) {
        FILE *f = fopen(path, "wx");
        if (!f) rc = wb_fail(err, WB_EXIT_INPUT, _("%s: cannot create it (it may exist already)"), path);
        else if (json_dumpf(doc, f, JSON_INDENT(2)) != 0 || fputc('\n', f) == EOF || fclose(f) != 0)
            rc = wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write it"), path);
    }
    json_decref(doc);
    return rc;
}

/* ---- opening ------------------------------------------------------------------------------------ */

static char *open_one(json_t *o, const unsigned char key[32]) {
    size_t niv, nd, nt;
    unsigned char *iv = from_hex(json_string_value(json_object_get(o, "iv")), &niv);
    unsigned char *data = from_hex(json_string_value(json_object_get(o, "data")), &nd);
    unsigned char *tag = from_hex(json_string_value(json_object_get(o, "tag")), &nt);
    char *text = data ? malloc(nd + 1) : NULL;
    int ok = iv && data && tag && text && niv == IV_BYTES && nt == TAG_BYTES && nd < (size_t)1 << 30;
    EVP_CIPHER_CTX *c = ok ? EVP_CIPHER_CTX_new() : NULL;
    int len = 0, fin = 0;
    ok = c && EVP_DecryptInit_ex(c, EVP_aes_256_gcm(), NULL, key, iv) &&
         EVP_DecryptUpdate(c, (unsigned char *)text, &len, data, (int)nd) &&
         EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, TAG_BYTES, tag) && EVP_DecryptFinal_ex(c, (unsigned char *)text + len, &fin) > 0;
    EVP_CIPHER_CTX_free(c);
    free(iv), free(data), free(tag);
    if (!ok) return free(text), NULL;
    text[len + fin] = '\0';
    return text;
}

/* 1 when o is the sealed explanation of question id for arch, in lang (NULL: the English one). */
static int sealed_for(json_t *o, const char *id, const char *arch, const char *lang) {
    const char *oid = json_string_value(json_object_get(o, "id")), *oarch = json_string_value(json_object_get(o, "arch"));
    const char *olang = json_string_value(json_object_get(o, "lang"));
    return oid && oarch && !strcmp(oid, id) && !strcmp(oarch, arch) && (lang ? olang && !strcmp(olang, lang) : !olang);
}

/* The text of one sealed explanation, opened with the captured values; NULL when they do not open it. */
static char *open_sealed(json_t *o, const char *lesson, const wb_question *q, const char *arch, const long *values) {
    size_t ns;
    unsigned char *salt = from_hex(json_string_value(json_object_get(o, "salt")), &ns), key[32];
    if (!salt || ns != SALT_BYTES) {
        free(salt);
        return NULL;
    }
    seal_key(lesson, q, arch, values, salt, key);
    free(salt);
    return open_one(o, key);
}

/* Adds text as the Japanese of question id's explanation english to out (which then owns text). */
static int add_translated(wb_answer_key *out, const char *id, const char *english, char *text) {
    if (!out->ja && !(out->ja = calloc(1, sizeof *out->ja))) return 0;
    wb_translated *items = realloc(out->ja->items, (out->ja->n + 1) * sizeof *items);
    if (!items) return 0;
    out->ja->items = items;
    wb_translated *e = &items[out->ja->n];
    memset(e, 0, sizeof *e);
    char sha[65];
    wb_sha256_hex(english, sha);
    e->id = strdup(id), e->en_sha = strdup(sha), e->text = text;
    if (!e->id || !e->en_sha) return free(e->id), free(e->en_sha), 0;
    out->ja->n++;
    return 1;
}

int wb_sealed_key_open(const char *path, const wb_lesson *l, const char *arch, const wb_grade *g, wb_answer_key *out,
                       size_t *sealed, wb_error *err) {
    memset(out, 0, sizeof *out);
    *sealed = 0;
    char *raw = NULL;
    size_t length = 0;
    if (wb_read_file(path, N_("sealed answer key"), SEALED_MAX_BYTES, &raw, &length, err)) return err->code;
    json_error_t jerr;
    json_t *doc = json_loadb(raw, length, 0, &jerr);
    free(raw);
    json_t *list = json_object_get(doc, "explanations");
    if (!doc || strcmp(json_string_value(json_object_get(doc, "format")) ? json_string_value(json_object_get(doc, "format")) : "",
                       SEALED_FORMAT) || !json_is_array(list)) {
        json_decref(doc);
        return wb_fail_at(err, WB_EXIT_INPUT, path, doc ? 0 : jerr.line, 0, _("not a sealed answer key (grader release writes them)"));
    }
    out->path = strdup(path);
    out->lesson = strdup(l->lesson);
    out->explanation_ids = calloc(l->n_questions + 1, sizeof *out->explanation_ids);
    out->explanations = calloc(l->n_questions + 1, sizeof *out->explanations);
    long *values = calloc(l->n_questions ? 64 + 1 : 1, sizeof *values);
    for (size_t i = 0; i < l->n_questions && out->explanations && out->explanation_ids; i++) {
        const wb_question *q = &l->questions[i];
        long *v = realloc(values, (q->n_facts + 1) * sizeof *v);
        if (!v) break;
        values = v;
        int graded = 1;
        for (size_t j = 0; j < q->n_facts && graded; j++) {
            values[j] = -1;
            if (is_time_label(q->facts[j])) continue;
            const wb_graded_fact *found = NULL;
            for (size_t k = 0; k < g->n && !found; k++)
                if (!strcmp(g->facts[k].prediction->id, q->id) && !strcmp(g->facts[k].fact->label, q->facts[j])) found = &g->facts[k];
            if (!found) graded = 0; /* this check did not grade it: the explanation stays sealed */
            else if (!wb_fact_is_time(found->fact->kind)) values[j] = found->actual;
        }
        if (!graded) continue;
        int opened = 0, tried = 0;
        size_t idx;
        json_t *o;
        json_array_foreach(list, idx, o) {
            if (opened || !sealed_for(o, q->id, arch, NULL)) continue;
            tried = 1;
            char *text = open_sealed(o, l->lesson, q, arch, values);
            if (!text) continue;
            out->explanation_ids[out->n_explanations] = strdup(q->id);
            out->explanations[out->n_explanations++] = text;
            opened = 1;
        }
        /* the explanation in the language chosen opens with the same answers */
        json_array_foreach(list, idx, o) {
            if (!opened || !wb_i18n_is_ja() || !sealed_for(o, q->id, arch, "ja")) continue;
            char *text = open_sealed(o, l->lesson, q, arch, values);
            if (text && add_translated(out, q->id, out->explanations[out->n_explanations - 1], text)) break;
            free(text);
        }
        if (tried && !opened) ++*sealed;
    }
    free(values);
    json_decref(doc);
    return 0;
}
