/*
 * predictions.c: reads and validates predictions (see predictions.h). Everything a learner can
 * get wrong gets one message with file, line and column, and exit code 2.
 */
#define _GNU_SOURCE
#include "predictions.h"
#include "fact_kinds.h"
#include "wb_capture.h"
#include "wb_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TOP_KEYS[] = {"lesson", "predictions", NULL};
static const char *const ITEM_FIELDS[] = {"id", "variant", "range", "rank"}; /* and a key per fact kind (fact_kinds.h) */

int wb_fact_is_time(wb_fact_kind kind) { return wb_fact_kind_get(kind)->value->banded; }

const char *wb_fact_value_text(const wb_fact *f, char *buf, size_t cap) {
    const wb_fact_value_type *type = wb_fact_value_of(f);
    if (f->predicted < 0) snprintf(buf, cap, "~");
    else if (type->banded) snprintf(buf, cap, "%g", f->value);
    else type->text(f->predicted, buf, cap);
    return buf;
}

static void fact_free(wb_fact *f) {
    free(f->key);
    free(f->label);
    if (f->has_regex) regfree(&f->regex);
}

static void prediction_free(wb_prediction *p) {
    free(p->id);
    free(p->variant);
    free(p->range);
    for (size_t i = 0; i < p->n_facts; i++) fact_free(&p->facts[i]);
    free(p->facts);
}

void wb_predictions_free(wb_prediction_set *s) {
    for (size_t i = 0; i < s->n; i++) prediction_free(&s->items[i]);
    free(s->items);
    free(s->lesson);
    free(s->path);
    memset(s, 0, sizeof *s);
}

static wb_fact *add_fact(wb_prediction *p) {
    wb_fact *f = realloc(p->facts, (p->n_facts + 1) * sizeof *f);
    if (!f) return NULL;
    p->facts = f;
    memset(&f[p->n_facts], 0, sizeof *f);
    return &f[p->n_facts++];
}

static int read_fact(wb_yaml *y, yaml_node_t *value, wb_prediction *p, wb_fact_kind kind, const char *key,
                           const char *label, wb_error *err) {
    char what[320];
    snprintf(what, sizeof what, _("'%s' of prediction '%s'"), label, p->id);
    int v;
    double us = 0;
    if (wb_fact_kind_get(kind)->value->read(y, value, what, &v, &us, err)) return err->code;
    wb_fact *f = add_fact(p);
    if (!f) return wb_yaml_fail(err, y, value, "%s", _("out of memory"));
    f->kind = kind;
    f->key = key ? strdup(key) : NULL;
    f->label = strdup(label);
    f->predicted = v;
    f->value = us;
    f->line = wb_yaml_line(value);
    f->column = wb_yaml_column(value);
    return 0;
}

/* A keyed kind's map (api_calls: {cudaLaunchKernel: 2}): each key checked and readied by its row. */
static int read_keyed_facts(wb_yaml *y, yaml_node_t *map, wb_prediction *p, const wb_fact_kind_info *info, wb_error *err) {
    wb_fact_kind kind = info->kind;
    const char *group = info->name;
    char what[320];
    snprintf(what, sizeof what, _("'%s' of prediction '%s'"), group, p->id);
    if (wb_yaml_expect_mapping(y, map, what, NULL, err)) return err->code;
    for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = yaml_document_get_node(&y->doc, pair->key);
        yaml_node_t *v = yaml_document_get_node(&y->doc, pair->value);
        const char *key = wb_yaml_scalar(k);
        if (!key || !*key) return wb_yaml_fail(err, y, k, _("%s: a key is empty"), what);
        char why[512];
        if (info->check_key && info->check_key(key, why, sizeof why)) return wb_yaml_fail(err, y, k, "%s: %s", what, why);
        char label[320];
        snprintf(label, sizeof label, "%s.%s", group, key);
        if (read_fact(y, v, p, kind, key, label, err)) return err->code;
        wb_fact *f = &p->facts[p->n_facts - 1];
        if (info->ready_key && info->ready_key(f, &y->regex_size, why, sizeof why))
            return wb_yaml_fail(err, y, k, "%s: %s", what, why);
    }
    return 0;
}

static int read_prediction(wb_yaml *y, yaml_node_t *item, size_t index, const char *list_what, wb_prediction *p,
                           wb_error *err) {
    char what[320];
    snprintf(what, sizeof what, _("entry %zu of %s"), index + 1, list_what);
    size_t n_kinds, n_keys = 0;
    const wb_fact_kind_info *kinds = wb_fact_kinds(&n_kinds);
    const char *keys[sizeof ITEM_FIELDS / sizeof ITEM_FIELDS[0] + 32];
    for (size_t i = 0; i < sizeof ITEM_FIELDS / sizeof ITEM_FIELDS[0]; i++) keys[n_keys++] = ITEM_FIELDS[i];
    for (size_t i = 0; i < n_kinds && n_keys + 1 < sizeof keys / sizeof keys[0]; i++) keys[n_keys++] = kinds[i].name;
    keys[n_keys] = NULL;
    if (wb_yaml_expect_mapping(y, item, what, keys, err)) return err->code;
    p->line = wb_yaml_line(item);
    yaml_node_t *id = wb_yaml_get(y, item, "id");
    if (!id) return wb_yaml_fail(err, y, item, _("%s has no 'id'; give it one like 'eager-kernels'"), what);
    if (wb_yaml_string(y, id, "'id'", &p->id, err)) return err->code;
    if (!wb_is_slug(p->id))
        return wb_yaml_fail(err, y, id, _("id '%s' may use only a-z, 0-9 and '-' (at most 64 characters)"), p->id);
    snprintf(what, sizeof what, _("prediction '%s'"), p->id);

    yaml_node_t *variant = wb_yaml_get(y, item, "variant");
    if (variant && wb_yaml_string(y, variant, "'variant'", &p->variant, err)) return err->code;
    yaml_node_t *range = wb_yaml_get(y, item, "range");
    if (!range) return wb_yaml_fail(err, y, item, _("%s has no 'range'; name the NVTX range it is about"), what);
    if (wb_yaml_string(y, range, "'range'", &p->range, err)) return err->code;
    p->rank = -1;
    yaml_node_t *rank = wb_yaml_get(y, item, "rank");
    char rank_what[360];
    snprintf(rank_what, sizeof rank_what, _("'rank' of %s"), what);
    if (rank && wb_yaml_count(y, rank, rank_what, 0, &p->rank, err)) return err->code;

    /* Facts in the table's order, so reports read the same whatever order the file uses. */
    for (size_t i = 0; i < n_kinds; i++) {
        yaml_node_t *v = wb_yaml_get(y, item, kinds[i].name);
        if (!v) continue;
        if (kinds[i].keyed ? read_keyed_facts(y, v, p, &kinds[i], err) : read_fact(y, v, p, kinds[i].kind, NULL, kinds[i].name, err))
            return err->code;
    }
    if (p->n_facts == 0) {
        char names[512] = "";
        for (size_t i = 0; i < n_kinds; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", kinds[i].name);
        return wb_yaml_fail(err, y, item, _("%s predicts nothing; add at least one of %s"), what, names);
    }
    return 0;
}

int wb_predictions_from_node(wb_yaml *y, yaml_node_t *list, const char *what, wb_prediction_set *out, wb_error *err) {
    if (wb_yaml_expect_sequence(y, list, what, err)) return err->code;
    size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
    if (n == 0) return wb_yaml_fail(err, y, list, _("%s is empty; it needs at least one prediction"), what);
    out->items = calloc(n, sizeof *out->items);
    if (!out->items) return wb_yaml_fail(err, y, list, "%s", _("out of memory"));
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *item = yaml_document_get_node(&y->doc, list->data.sequence.items.start[i]);
        out->n = i + 1;
        if (read_prediction(y, item, i, what, &out->items[i], err)) return err->code;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(out->items[j].id, out->items[i].id))
                return wb_yaml_fail(err, y, wb_yaml_get(y, item, "id"), _("id '%s' is used twice (first at line %d); ids must be unique"),
                                    out->items[i].id, out->items[j].line);
    }
    return 0;
}

static int predictions_from_yaml(wb_yaml *y, wb_prediction_set *out, wb_error *err) {
    yaml_node_t *root = wb_yaml_root(y);
    if (wb_yaml_expect_mapping(y, root, _("the predictions file"), TOP_KEYS, err)) return err->code;
    yaml_node_t *lesson = wb_yaml_get(y, root, "lesson");
    if (!lesson) return wb_yaml_fail(err, y, root, "%s", _("missing 'lesson:' (the lesson folder's name, e.g. 01_matmul_add)"));
    if (wb_yaml_string(y, lesson, "'lesson'", &out->lesson, err)) return err->code;
    yaml_node_t *list = wb_yaml_get(y, root, "predictions");
    if (!list) return wb_yaml_fail(err, y, root, "%s", _("missing 'predictions:' (a list of predictions)"));
    return wb_predictions_from_node(y, list, "'predictions'", out, err);
}

int wb_predictions_load_buffer(const char *path, const char *data, size_t length, wb_prediction_set *out,
                               wb_error *err) {
    wb_yaml y;
    memset(out, 0, sizeof *out);
    int rc = wb_yaml_load_buffer(path, N_("predictions file"), data, length, &y, err);
    if (!rc) rc = predictions_from_yaml(&y, out, err);
    out->path = strdup(path);
    wb_yaml_free(&y);
    if (rc) wb_predictions_free(out);
    return rc;
}

int wb_predictions_load(const char *path, wb_prediction_set *out, wb_error *err) {
    wb_yaml y;
    memset(out, 0, sizeof *out);
    int rc = wb_yaml_load(path, N_("predictions file"), &y, err);
    if (!rc) rc = predictions_from_yaml(&y, out, err);
    out->path = strdup(path);
    wb_yaml_free(&y);
    if (rc) wb_predictions_free(out);
    return rc;
}


size_t wb_predictions_open(const wb_prediction_set *s) {
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = 0; j < s->items[i].n_facts; j++)
            if (s->items[i].facts[j].predicted < 0) n++;
    return n;
}

const wb_prediction *wb_predictions_find(const wb_prediction_set *s, const char *id) {
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->items[i].id, id)) return &s->items[i];
    return NULL;
}
