/* answer_key.c: reads expectations/NN_name.yaml (see answer_key.h). */
#include "answer_key.h"
#include "wb_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TOP_KEYS[] = {"lesson", "architectures", "explanations", NULL};
static const char *const ARCH_KEYS[] = {"status", "verified_on", "predictions", NULL};

void wb_answer_key_free(wb_answer_key *k) {
    for (size_t i = 0; i < k->n_archs; i++) {
        free(k->archs[i].arch);
        free(k->archs[i].verified_on);
        wb_predictions_free(&k->archs[i].answers);
    }
    free(k->archs);
    for (size_t i = 0; i < k->n_explanations; i++) {
        free(k->explanation_ids[i]);
        free(k->explanations[i]);
    }
    free(k->explanation_ids);
    free(k->explanations);
    wb_translation_drop(k->ja);
    free(k->path);
    free(k->lesson);
    memset(k, 0, sizeof *k);
}

static int read_arch(wb_yaml *y, const char *lesson, const char *arch, yaml_node_t *n, wb_arch_answers *a, wb_error *err) {
    char what[128];
    snprintf(what, sizeof what, _("architecture '%s'"), arch);
    if (wb_yaml_expect_mapping(y, n, what, ARCH_KEYS, err)) return err->code;
    a->arch = strdup(arch);
    yaml_node_t *status = wb_yaml_get(y, n, "status");
    const char *s = wb_yaml_scalar(status);
    if (!s || (strcmp(s, "verified") && strcmp(s, "unverified")))
        return wb_yaml_fail(err, y, status ? status : n, _("%s: 'status' must be verified or unverified"), what);
    a->verified = !strcmp(s, "verified");
    yaml_node_t *on = wb_yaml_get(y, n, "verified_on");
    if (on && wb_yaml_string(y, on, "'verified_on'", &a->verified_on, err)) return err->code;
    yaml_node_t *list = wb_yaml_get(y, n, "predictions");
    if (!list) return wb_yaml_fail(err, y, n, _("%s has no 'predictions'"), what);
    snprintf(what, sizeof what, _("the predictions of architecture '%s'"), arch);
    if (wb_predictions_from_node(y, list, what, &a->answers, err)) return err->code;
    a->answers.path = strdup(y->path);
    a->answers.lesson = strdup(lesson);
    /* An answer key answers: a ~ here is an unfinished key, not a question. */
    for (size_t i = 0; i < a->answers.n; i++)
        for (size_t j = 0; j < a->answers.items[i].n_facts; j++) {
            const wb_fact *f = &a->answers.items[i].facts[j];
            if (f->predicted < 0)
                return wb_fail_at(err, WB_EXIT_INPUT, y->path, f->line, f->column,
                                  _("the answer key leaves %s of '%s' as ~; every answer needs a value"),
                                  f->label, a->answers.items[i].id);
        }
    return 0;
}

/* data NULL: read the file at path. */
static int load_key(const char *path, const char *data, size_t length, wb_answer_key *k, wb_error *err) {
    memset(k, 0, sizeof *k);
    k->path = strdup(path);
    wb_yaml y;
    int rc = data ? wb_yaml_load_buffer(path, N_("answer key"), data, length, &y, err) : wb_yaml_load(path, N_("answer key"), &y, err);
    if (rc) goto out;
    yaml_node_t *root = wb_yaml_root(&y);
    if ((rc = wb_yaml_expect_mapping(&y, root, _("the answer key"), TOP_KEYS, err))) goto out;
    yaml_node_t *lesson = wb_yaml_get(&y, root, "lesson");
    if ((rc = wb_yaml_string(&y, lesson ? lesson : root, "'lesson'", &k->lesson, err))) goto out;
    yaml_node_t *archs = wb_yaml_get(&y, root, "architectures");
    if (!archs) { /* checking root in its place passed, then archs was read: found by fuzz_answer_key */
        rc = wb_yaml_fail(err, &y, root, "%s", _("the answer key has no 'architectures' (sm_90: {status: ..., predictions: [...]})"));
        goto out;
    }
    if ((rc = wb_yaml_expect_mapping(&y, archs, "'architectures'", NULL, err))) goto out;
    size_t n = (size_t)(archs->data.mapping.pairs.top - archs->data.mapping.pairs.start);
    k->archs = calloc(n ? n : 1, sizeof *k->archs);
    for (size_t i = 0; i < n && k->archs; i++) {
        yaml_node_pair_t *p = &archs->data.mapping.pairs.start[i];
        const char *arch = wb_yaml_scalar(yaml_document_get_node(&y.doc, p->key));
        k->n_archs = i + 1;
        if (strncmp(arch, "sm_", 3) != 0) {
            rc = wb_yaml_fail(err, &y, yaml_document_get_node(&y.doc, p->key), _("'%s' is not an architecture like sm_90"), arch);
            goto out;
        }
        if ((rc = read_arch(&y, k->lesson, arch, yaml_document_get_node(&y.doc, p->value), &k->archs[i], err))) goto out;
    }
    yaml_node_t *expl = wb_yaml_get(&y, root, "explanations");
    if (expl) {
        if ((rc = wb_yaml_expect_mapping(&y, expl, "'explanations'", NULL, err))) goto out;
        size_t m = (size_t)(expl->data.mapping.pairs.top - expl->data.mapping.pairs.start);
        k->explanation_ids = calloc(m + 1, sizeof(char *));
        k->explanations = calloc(m + 1, sizeof(char *));
        for (size_t i = 0; i < m && k->explanations; i++) {
            yaml_node_pair_t *p = &expl->data.mapping.pairs.start[i];
            k->n_explanations = i + 1;
            k->explanation_ids[i] = strdup(wb_yaml_scalar(yaml_document_get_node(&y.doc, p->key)));
            if ((rc = wb_yaml_string(&y, yaml_document_get_node(&y.doc, p->value), _("an explanation"), &k->explanations[i], err)))
                goto out;
        }
    }
out:
    wb_yaml_free(&y);
    if (rc) {
        char *keep = k->path;
        k->path = NULL;
        wb_answer_key_free(k);
        k->path = keep;
    }
    return rc;
}

int wb_answer_key_load(const char *path, wb_answer_key *k, wb_error *err) {
    int rc = load_key(path, NULL, 0, k, err);
    char ja[4200];
    if (!rc) k->ja = wb_translation_load_beside(wb_key_translation_path(path, "ja", ja, sizeof ja), WB_TRANSLATION_KEY, k->ja_error,
                                                sizeof k->ja_error);
    return rc;
}

int wb_answer_key_load_buffer(const char *path, const char *data, size_t length, wb_answer_key *k, wb_error *err) {
    return load_key(path, data ? data : "", length, k, err);
}

const wb_arch_answers *wb_answer_key_arch(const wb_answer_key *k, const char *arch) {
    for (size_t i = 0; i < k->n_archs; i++)
        if (!strcmp(k->archs[i].arch, arch)) return &k->archs[i];
    return NULL;
}

const char *wb_answer_key_explanation(const wb_answer_key *k, const char *id) {
    const char *english = wb_answer_key_explanation_en(k, id);
    const wb_translated *t = english && wb_i18n_is_ja() ? wb_translation_find(k->ja, id) : NULL;
    return t && wb_translation_fresh(t->en_sha, english) ? t->text : english;
}

const char *wb_answer_key_explanation_en(const wb_answer_key *k, const char *id) {
    for (size_t i = 0; i < k->n_explanations; i++)
        if (!strcmp(k->explanation_ids[i], id)) return k->explanations[i];
    return NULL;
}

const char *wb_answer_key_path(const char *lesson_dir, const char *lesson, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/../../expectations/%s.yaml", lesson_dir, lesson);
    return buf;
}
