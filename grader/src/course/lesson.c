/* lesson.c: reads lesson.yaml (see lesson.h). Unknown keys are errors, so a typo never drops a
 * question silently. */
#include "lesson.h"
#include "wb_base.h"
#include "wb_predict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const TOP_KEYS[] = {"lesson", "title", "binary", "variants", "ranges", "questions", "work", "draft",
                                       "world_size", NULL};
static const char *const VARIANT_KEYS[] = {"name", "program", "args", "about", "params", "world_size", "part", NULL};
static const char *const QUESTION_KEYS[] = {"id", "variant", "range", "facts", "ask", "hints", "tolerance", "rank", NULL};

/* A multi-process lesson runs at most this many ranks per variant (a host has at most 8 or 16
 * GPUs; a few processes may share one). */
#define WB_MAX_LESSON_RANKS 64
static const char *const WORK_KEYS[] = {"variant", "range", "flops", "bytes", NULL};

static void free_strings(char **v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

void wb_lesson_free(wb_lesson *l) {
    for (size_t i = 0; i < l->n_variants; i++) {
        free(l->variants[i].name);
        free(l->variants[i].about);
        free(l->variants[i].part);
        free_strings(l->variants[i].args, l->variants[i].n_args);
        free_strings(l->variants[i].program, l->variants[i].n_program);
        for (size_t j = 0; j < l->variants[i].n_params; j++) free(l->variants[i].params[j].name);
        free(l->variants[i].params);
    }
    free(l->variants);
    for (size_t i = 0; i < l->n_questions; i++) {
        wb_question *q = &l->questions[i];
        free(q->id);
        free(q->variant);
        free(q->range);
        free(q->ask);
        free_strings(q->facts, q->n_facts);
        free_strings(q->hints, q->n_hints);
    }
    free(l->questions);
    for (size_t i = 0; i < l->n_work; i++) {
        free(l->work[i].variant);
        free(l->work[i].range);
        free(l->work[i].flops_text);
        free(l->work[i].bytes_text);
    }
    free(l->work);
    free_strings(l->ranges, l->n_ranges);
    free(l->dir);
    free(l->path);
    free(l->lesson);
    free(l->title);
    free(l->binary);
    wb_translation_drop(l->ja);
    memset(l, 0, sizeof *l);
}

/* A list of strings (args may be numbers in YAML: "64" and 64 both become "64"). */
static int read_string_list(wb_yaml *y, yaml_node_t *n, const char *what, int allow_empty, char ***out, size_t *count,
                            wb_error *err) {
    if (wb_yaml_expect_sequence(y, n, what, err)) return err->code;
    size_t len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (!allow_empty && len == 0) return wb_yaml_fail(err, y, n, _("%s is empty"), what);
    *out = calloc(len + 1, sizeof **out);
    if (!*out) return wb_yaml_fail(err, y, n, _("out of memory"));
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *item = yaml_document_get_node(&y->doc, n->data.sequence.items.start[i]);
        *count = i + 1;
        if (!item || item->type != YAML_SCALAR_NODE)
            return wb_yaml_fail(err, y, item, _("entries of %s must be plain values"), what);
        (*out)[i] = strdup(wb_yaml_scalar(item));
    }
    return 0;
}

/* params: {n: 4096, batch: 8}: names of the work expressions, numeric values. */
static int read_params(wb_yaml *y, yaml_node_t *map, wb_variant *var, wb_error *err) {
    char what[160];
    snprintf(what, sizeof what, _("'params' of variant '%s'"), var->name);
    if (wb_yaml_expect_mapping(y, map, what, NULL, err)) return err->code;
    size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
    var->params = calloc(n + 1, sizeof *var->params);
    if (!var->params) return wb_yaml_fail(err, y, map, _("out of memory"));
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *k = yaml_document_get_node(&y->doc, map->data.mapping.pairs.start[i].key);
        yaml_node_t *v = yaml_document_get_node(&y->doc, map->data.mapping.pairs.start[i].value);
        const char *name = wb_yaml_scalar(k);
        int ok = name && ((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_') && strlen(name) <= 64;
        for (const char *c = name; ok && *c; c++) ok = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
        if (!ok) return wb_yaml_fail(err, y, k, _("%s: a parameter name is a-z, 0-9 and _, starting with a letter"), what);
        var->params[i].name = strdup(name);
        var->n_params = i + 1;
        char vwhat[256];
        snprintf(vwhat, sizeof vwhat, _("parameter '%s' of variant '%s'"), name, var->name);
        int open;
        if (wb_yaml_decimal(y, v, vwhat, 0, 1e15, &var->params[i].value, &open, err)) return err->code;
    }
    return 0;
}

/* tolerance: 30% or 0.3 */
static int read_tolerance(wb_yaml *y, yaml_node_t *n, const char *qid, double *out, wb_error *err) {
    const char *s = n && n->type == YAML_SCALAR_NODE ? wb_yaml_scalar(n) : NULL;
    char *end = NULL;
    double v = s && s[strspn(s, "0123456789.%")] == '\0' ? strtod(s, &end) : 0;
    int percent = end && end[0] == '%' && end[1] == '\0';
    if (percent) v /= 100;
    if (!s || !end || end == s || (*end && !percent) || s[0] == '-' || s[0] == '+' || !(v > 0 && v < 1))
        return wb_yaml_fail(err, y, n, _("question '%s': 'tolerance' is a share of the actual value above 0 and below 1, "
                                         "written 30%% or 0.3"), qid);
    *out = v;
    return 0;
}

static int eval_work(wb_yaml *y, yaml_node_t *entry, const char *key, const wb_variant *var, const char *what, char **text,
                     double *out, wb_error *err) {
    yaml_node_t *n = wb_yaml_get(y, entry, key);
    if (!n) return wb_yaml_fail(err, y, entry, _("%s is missing: declare it as a number or an expression of the variant's params"), what);
    if (n->type != YAML_SCALAR_NODE || !*wb_yaml_scalar(n))
        return wb_yaml_fail(err, y, n, _("%s must be a number or an expression such as 2*n*n*n"), what);
    *text = strdup(wb_yaml_scalar(n));
    const char *names[64];
    double values[64];
    size_t k = 0;
    for (; var && k < var->n_params && k < 64; k++) names[k] = var->params[k].name, values[k] = var->params[k].value;
    wb_expr_params params = {names, values, k};
    char message[512];
    size_t offset;
    if (wb_expr_eval(*text, &params, out, message, sizeof message, &offset) != 0)
        return wb_yaml_fail(err, y, n, _("%s '%s': %s (at character %zu)"), what, *text, message, offset + 1);
    if (*out < 0) return wb_yaml_fail(err, y, n, _("%s '%s' is %g; work cannot be negative"), what, *text, *out);
    return 0;
}

/* work: [{variant, range, flops, bytes}]: one entry per (variant, range) at most. */
static int read_work(wb_yaml *y, yaml_node_t *list, wb_lesson *l, wb_error *err) {
    if (wb_yaml_expect_sequence(y, list, "'work'", err)) return err->code;
    size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
    l->work = calloc(n + 1, sizeof *l->work);
    if (!l->work) return wb_yaml_fail(err, y, list, _("out of memory"));
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *wn = yaml_document_get_node(&y->doc, list->data.sequence.items.start[i]);
        wb_work *w = &l->work[i];
        l->n_work = i + 1;
        if (wb_yaml_expect_mapping(y, wn, _("a 'work' entry"), WORK_KEYS, err)) return err->code;
        w->line = wb_yaml_line(wn);
        yaml_node_t *variant = wb_yaml_get(y, wn, "variant");
        const wb_variant *var = l->n_variants == 1 ? &l->variants[0] : NULL;
        if (variant) {
            if (wb_yaml_string(y, variant, "'variant'", &w->variant, err)) return err->code;
            if (!(var = wb_lesson_variant(l, w->variant))) return wb_yaml_fail(err, y, variant, _("work: no variant '%s'"), w->variant);
        } else if (l->n_variants > 1) {
            return wb_yaml_fail(err, y, wn, "%s", _("a 'work' entry needs a 'variant': the lesson has several"));
        }
        yaml_node_t *range = wb_yaml_get(y, wn, "range");
        if (wb_yaml_string(y, range ? range : wn, _("a work entry's 'range'"), &w->range, err)) return err->code;
        if (!wb_lesson_has_range(l, w->range)) return wb_yaml_fail(err, y, range, _("work: range '%s' is not in 'ranges'"), w->range);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(l->work[j].range, w->range) && !strcmp(l->work[j].variant ? l->work[j].variant : "", w->variant ? w->variant : ""))
                return wb_yaml_fail(err, y, wn, _("work for range '%s' of variant '%s' is declared twice (first at line %d)"), w->range,
                                    var ? var->name : "?", l->work[j].line);
        char what[256];
        snprintf(what, sizeof what, _("'flops' of range '%s' (variant %s)"), w->range, var ? var->name : "?");
        if (eval_work(y, wn, "flops", var, what, &w->flops_text, &w->flops, err))
            return err->code;
        snprintf(what, sizeof what, _("'bytes' of range '%s' (variant %s)"), w->range, var ? var->name : "?");
        if (eval_work(y, wn, "bytes", var, what, &w->bytes_text, &w->bytes, err))
            return err->code;
    }
    return 0;
}

/* A fact a question names: a kind of the table (fact_kinds.h), its key readied as a predictions
 * file's would be (kernels_named.re:PATTERN keeps the limits of regex_limits.h and compiles: the
 * template copies it into every learner's file). */
static int check_fact(wb_yaml *y, yaml_node_t *facts, const wb_question *q, const char *label, wb_error *err) {
    const char *key;
    const wb_fact_kind_info *kind = wb_fact_kind_of_label(label, &key);
    if (!kind) {
        size_t n;
        const wb_fact_kind_info *kinds = wb_fact_kinds(&n);
        char names[512] = "";
        for (size_t i = 0; i < n; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s%s", i ? ", " : "", kinds[i].name,
                     kinds[i].keyed ? ".KEY" : "");
        return wb_yaml_fail(err, y, facts, _("question '%s': '%s' is not a fact (%s)"), q->id, label, names);
    }
    if (!kind->ready_key) return 0;
    wb_fact f = {.kind = kind->kind, .key = (char *)key};
    char why[512];
    if (kind->ready_key(&f, &y->regex_size, why, sizeof why)) return wb_yaml_fail(err, y, facts, _("question '%s': %s"), q->id, why);
    if (f.has_regex) regfree(&f.regex);
    return 0;
}

/* world_size: N (1 to WB_MAX_LESSON_RANKS). */
static int read_world_size(wb_yaml *y, yaml_node_t *n, const char *what, int *out, wb_error *err) {
    if (wb_yaml_count(y, n, what, 0, out, err)) return err->code;
    if (*out < 1 || *out > WB_MAX_LESSON_RANKS)
        return wb_yaml_fail(err, y, n, _("%s is the number of processes the program starts, 1 to %d; found %d"), what,
                            WB_MAX_LESSON_RANKS, *out);
    return 0;
}

/* program: [python3, SCRIPT]: SCRIPT a relative path inside the lesson folder (no '..'). The
 * interpreter is the one word python3, replaced at run time by WB_PYTHON when set. */
static int read_program(wb_yaml *y, yaml_node_t *n, wb_variant *var, wb_error *err) {
    char what[160];
    snprintf(what, sizeof what, _("'program' of variant '%s'"), var->name);
    if (read_string_list(y, n, what, 0, &var->program, &var->n_program, err)) return err->code;
    const char *script = var->n_program == 2 ? var->program[1] : "";
    int inside = script[0] && script[0] != '/' && strcmp(script, "..") && strncmp(script, "../", 3) && !strstr(script, "/../") &&
                 !(strlen(script) >= 3 && !strcmp(script + strlen(script) - 3, "/.."));
    if (var->n_program != 2 || strcmp(var->program[0], "python3") || !inside)
        return wb_yaml_fail(err, y, n, _("%s is [python3, SCRIPT], SCRIPT a path inside the lesson folder such as "
                                         "torch/linear.py (its flags go in 'args')"), what);
    return 0;
}

static int read_variants(wb_yaml *y, yaml_node_t *list, wb_lesson *l, wb_error *err) {
    if (wb_yaml_expect_sequence(y, list, "'variants'", err)) return err->code;
    size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
    if (n == 0) return wb_yaml_fail(err, y, list, "%s", _("'variants' is empty; a lesson runs at least one variant"));
    l->variants = calloc(n, sizeof *l->variants);
    if (!l->variants) return wb_yaml_fail(err, y, list, _("out of memory"));
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *v = yaml_document_get_node(&y->doc, list->data.sequence.items.start[i]);
        wb_variant *var = &l->variants[i];
        l->n_variants = i + 1;
        if (wb_yaml_expect_mapping(y, v, _("a variant"), VARIANT_KEYS, err)) return err->code;
        if (wb_yaml_string(y, wb_yaml_get(y, v, "name") ? wb_yaml_get(y, v, "name") : v, _("a variant's 'name'"), &var->name, err))
            return err->code;
        if (!wb_is_slug(var->name)) return wb_yaml_fail(err, y, v, _("variant name '%s' may use only a-z, 0-9 and '-'"), var->name);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(l->variants[j].name, var->name)) return wb_yaml_fail(err, y, v, _("variant '%s' is listed twice"), var->name);
        yaml_node_t *program = wb_yaml_get(y, v, "program");
        if (program && read_program(y, program, var, err)) return err->code;
        yaml_node_t *args = wb_yaml_get(y, v, "args");
        if (!args) return wb_yaml_fail(err, y, v, _("variant '%s' has no 'args' (use [] for none)"), var->name);
        if (read_string_list(y, args, _("a variant's 'args'"), 1, &var->args, &var->n_args, err)) return err->code;
        yaml_node_t *about = wb_yaml_get(y, v, "about");
        if (about && wb_yaml_string(y, about, "'about'", &var->about, err)) return err->code;
        yaml_node_t *params = wb_yaml_get(y, v, "params");
        if (params && read_params(y, params, var, err)) return err->code;
        yaml_node_t *ws = wb_yaml_get(y, v, "world_size");
        char what[160];
        snprintf(what, sizeof what, _("'world_size' of variant '%s'"), var->name);
        if (ws && read_world_size(y, ws, what, &var->world_size, err)) return err->code;
        yaml_node_t *part = wb_yaml_get(y, v, "part");
        if (part) {
            if (wb_yaml_string(y, part, "'part'", &var->part, err)) return err->code;
            if (!wb_is_slug(var->part) || strlen(var->part) > 32)
                return wb_yaml_fail(err, y, part, _("part name '%s' of variant '%s' may use only a-z, 0-9 and '-' (32 at most)"),
                                    var->part, var->name);
            if (!strcmp(var->part, WB_MAIN_PART)) free(var->part), var->part = NULL; /* said explicitly */
        }
    }
    int main_part = 0;
    const char *parts[WB_MAX_PARTS + 1];
    size_t n_parts = wb_lesson_parts(l, parts, WB_MAX_PARTS + 1);
    for (size_t i = 0; i < l->n_variants; i++) main_part |= l->variants[i].part == NULL;
    if (!main_part)
        return wb_yaml_fail(err, y, list, "%s", _("every variant names a 'part': the lesson's main part (what grader check LESSON "
                                    "grades) needs at least one variant without 'part'"));
    if (n_parts > WB_MAX_PARTS) return wb_yaml_fail(err, y, list, _("more than %d parts"), WB_MAX_PARTS);
    return 0;
}

static int read_questions(wb_yaml *y, yaml_node_t *list, wb_lesson *l, wb_error *err) {
    if (wb_yaml_expect_sequence(y, list, "'questions'", err)) return err->code;
    size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
    if (n == 0) return wb_yaml_fail(err, y, list, "%s", _("'questions' is empty"));
    l->questions = calloc(n, sizeof *l->questions);
    if (!l->questions) return wb_yaml_fail(err, y, list, _("out of memory"));
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *qn = yaml_document_get_node(&y->doc, list->data.sequence.items.start[i]);
        wb_question *q = &l->questions[i];
        l->n_questions = i + 1;
        if (wb_yaml_expect_mapping(y, qn, _("a question"), QUESTION_KEYS, err)) return err->code;
        q->line = wb_yaml_line(qn);
        yaml_node_t *id = wb_yaml_get(y, qn, "id");
        if (wb_yaml_string(y, id ? id : qn, _("a question's 'id'"), &q->id, err)) return err->code;
        if (!wb_is_slug(q->id)) return wb_yaml_fail(err, y, id, _("question id '%s' may use only a-z, 0-9 and '-'"), q->id);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(l->questions[j].id, q->id)) return wb_yaml_fail(err, y, id, _("question id '%s' is used twice"), q->id);
        yaml_node_t *variant = wb_yaml_get(y, qn, "variant");
        if (variant) {
            if (wb_yaml_string(y, variant, "'variant'", &q->variant, err)) return err->code;
            if (!wb_lesson_variant(l, q->variant)) return wb_yaml_fail(err, y, variant, _("question '%s': no variant '%s'"), q->id, q->variant);
        } else if (l->n_variants > 1) {
            return wb_yaml_fail(err, y, qn, _("question '%s' needs a 'variant': the lesson has several"), q->id);
        }
        yaml_node_t *range = wb_yaml_get(y, qn, "range");
        if (wb_yaml_string(y, range ? range : qn, _("a question's 'range'"), &q->range, err)) return err->code;
        if (!wb_lesson_has_range(l, q->range))
            return wb_yaml_fail(err, y, range, _("question '%s': range '%s' is not in 'ranges'"), q->id, q->range);
        yaml_node_t *facts = wb_yaml_get(y, qn, "facts");
        if (!facts) return wb_yaml_fail(err, y, qn, _("question '%s' has no 'facts' (e.g. [kernels, gemms])"), q->id);
        if (read_string_list(y, facts, "'facts'", 0, &q->facts, &q->n_facts, err)) return err->code;
        for (size_t j = 0; j < q->n_facts; j++)
            if (check_fact(y, facts, q, q->facts[j], err)) return err->code;
        yaml_node_t *ask = wb_yaml_get(y, qn, "ask");
        if (wb_yaml_string(y, ask ? ask : qn, _("a question's 'ask'"), &q->ask, err)) return err->code;
        yaml_node_t *hints = wb_yaml_get(y, qn, "hints");
        if (hints && read_string_list(y, hints, "'hints'", 1, &q->hints, &q->n_hints, err)) return err->code;
        q->tolerance = WB_DEFAULT_TOLERANCE;
        yaml_node_t *tolerance = wb_yaml_get(y, qn, "tolerance");
        if (tolerance && read_tolerance(y, tolerance, q->id, &q->tolerance, err)) return err->code;
        q->rank = -1;
        yaml_node_t *rank = wb_yaml_get(y, qn, "rank");
        if (rank) {
            char what[160];
            snprintf(what, sizeof what, _("'rank' of question '%s'"), q->id);
            if (wb_yaml_count(y, rank, what, 0, &q->rank, err)) return err->code;
            const char *qv = q->variant ? q->variant : l->variants[0].name;
            int ws = wb_lesson_world_size(l, qv);
            if (q->rank >= ws)
                return wb_yaml_fail(err, y, rank,
                                    wb_ngettext("question '%s': rank %d, but variant %s runs %d process (ranks 0 to %d); "
                                                "set world_size, or ask about a lower rank",
                                                "question '%s': rank %d, but variant %s runs %d processes (ranks 0 to %d); "
                                                "set world_size, or ask about a lower rank", (unsigned long)ws),
                                    q->id, q->rank, qv, ws, ws - 1);
        }
    }
    return 0;
}

const char *wb_lesson_dir_name(const char *lesson_dir, char *buf, size_t cap) {
    size_t len = strlen(lesson_dir);
    while (len > 1 && lesson_dir[len - 1] == '/') len--;
    size_t start = len;
    while (start > 0 && lesson_dir[start - 1] != '/') start--;
    snprintf(buf, cap, "%.*s", (int)(len - start), lesson_dir + start);
    return buf;
}

/* data NULL: read lesson_dir/lesson.yaml. */
static int load_lesson(const char *lesson_dir, const char *data, size_t length, wb_lesson *l, wb_error *err) {
    memset(l, 0, sizeof *l);
    char path[4096];
    snprintf(path, sizeof path, "%s/lesson.yaml", lesson_dir);
    l->dir = strdup(lesson_dir);
    l->path = strdup(path);
    wb_yaml y;
    int rc = data ? wb_yaml_load_buffer(path, N_("lesson.yaml"), data, length, &y, err) : wb_yaml_load(path, N_("lesson.yaml"), &y, err);
    if (rc) {
        /* the reader's message says the file is missing; a folder without lesson.yaml is no lesson
         * at all, which says more (decided on the file, never on the message: it is translated) */
        struct stat st;
        if (!data && stat(path, &st) != 0 && errno == ENOENT)
            snprintf(err->message, sizeof err->message,
                     _("%s: no lesson here (no lesson.yaml). Give a lesson folder such as lessons/01_matmul_add"), lesson_dir);
        goto out;
    }
    yaml_node_t *root = wb_yaml_root(&y);
    if ((rc = wb_yaml_expect_mapping(&y, root, "lesson.yaml", TOP_KEYS, err))) goto out;
    static const char *const required[] = {"lesson", "title", "binary", "variants", "ranges", "questions"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!wb_yaml_get(&y, root, required[i])) {
            rc = wb_yaml_fail(err, &y, root, _("lesson.yaml has no '%s'"), required[i]);
            goto out;
        }
    if ((rc = wb_yaml_string(&y, wb_yaml_get(&y, root, "lesson"), "'lesson'", &l->lesson, err))) goto out;
    char dir_name[256];
    wb_lesson_dir_name(lesson_dir, dir_name, sizeof dir_name);
    if (strcmp(dir_name, l->lesson) != 0) {
        rc = wb_yaml_fail(err, &y, wb_yaml_get(&y, root, "lesson"), _("'lesson: %s' does not match the folder name '%s'"),
                          l->lesson, dir_name);
        goto out;
    }
    if ((rc = wb_yaml_string(&y, wb_yaml_get(&y, root, "title"), "'title'", &l->title, err))) goto out;
    if ((rc = wb_yaml_string(&y, wb_yaml_get(&y, root, "binary"), "'binary'", &l->binary, err))) goto out;
    yaml_node_t *draft = wb_yaml_get(&y, root, "draft");
    if (draft) {
        const char *d = wb_yaml_scalar(draft);
        if (!d || (strcmp(d, "true") && strcmp(d, "false"))) {
            rc = wb_yaml_fail(err, &y, draft, "%s", _("'draft' is true or false"));
            goto out;
        }
        l->draft = !strcmp(d, "true");
    }
    l->world_size = 1;
    yaml_node_t *world_size = wb_yaml_get(&y, root, "world_size");
    if (world_size && (rc = read_world_size(&y, world_size, "'world_size'", &l->world_size, err))) goto out;
    if ((rc = read_variants(&y, wb_yaml_get(&y, root, "variants"), l, err))) goto out;
    if ((rc = read_string_list(&y, wb_yaml_get(&y, root, "ranges"), "'ranges'", 0, &l->ranges, &l->n_ranges, err))) goto out;
    long regex_budget = 0;
    for (size_t i = 0; i < l->n_ranges; i++) {
        if (strchr(l->ranges[i], ',')) {
            rc = wb_yaml_fail(err, &y, wb_yaml_get(&y, root, "ranges"), _("range '%s': names are compared up to their first comma "
                                "(docs/predictions.md, \"Range names\"), so a listed name has none"), l->ranges[i]);
            goto out;
        }
        regex_t re;
        char why[512];
        if (wb_range_is_pattern(l->ranges[i])) {
            if (wb_regex_compile(l->ranges[i] + 3, &regex_budget, &re, why, sizeof why)) {
                rc = wb_yaml_fail(err, &y, wb_yaml_get(&y, root, "ranges"), _("range '%s': the regex '%s' %s"), l->ranges[i],
                                  l->ranges[i] + 3, why);
                goto out;
            }
            regfree(&re);
        }
    }
    if ((rc = read_questions(&y, wb_yaml_get(&y, root, "questions"), l, err))) goto out;
    if (wb_yaml_get(&y, root, "work")) rc = read_work(&y, wb_yaml_get(&y, root, "work"), l, err);
out:
    wb_yaml_free(&y);
    if (rc) wb_lesson_free(l); /* callers return on failure: nothing half-read is left to leak */
    return rc;
}

int wb_lesson_load(const char *lesson_dir, wb_lesson *l, wb_error *err) {
    int rc = load_lesson(lesson_dir, NULL, 0, l, err);
    char ja[4200];
    if (!rc) l->ja = wb_translation_load_beside(wb_lesson_translation_path(l->dir, "ja", ja, sizeof ja), WB_TRANSLATION_LESSON,
                                                l->ja_error, sizeof l->ja_error);
    return rc;
}

char *wb_question_source(const wb_question *q) {
    size_t n = strlen(q->ask) + 1;
    for (size_t i = 0; i < q->n_hints; i++) n += strlen(q->hints[i]) + 1;
    char *s = malloc(n);
    if (!s) return NULL;
    size_t at = (size_t)sprintf(s, "%s", q->ask);
    for (size_t i = 0; i < q->n_hints; i++) at += (size_t)sprintf(s + at, "\n%s", q->hints[i]);
    return s;
}

/* The question's translation when it is of the English as it is now, else NULL. */
static const wb_translated *fresh_question(const wb_lesson *l, const wb_question *q) {
    const wb_translated *t = wb_i18n_is_ja() ? wb_translation_find(l->ja, q->id) : NULL;
    if (!t) return NULL;
    char *source = wb_question_source(q);
    int fresh = source && wb_translation_fresh(t->en_sha, source);
    free(source);
    return fresh ? t : NULL;
}

const char *wb_lesson_title_text(const wb_lesson *l) {
    const wb_translated *t = wb_i18n_is_ja() && l->ja ? l->ja->title : NULL;
    return t && l->title && wb_translation_fresh(t->en_sha, l->title) ? t->text : l->title;
}

const char *wb_question_ask(const wb_lesson *l, const wb_question *q) {
    const wb_translated *t = fresh_question(l, q);
    return t ? t->text : q->ask;
}

const char *wb_question_hint(const wb_lesson *l, const wb_question *q, size_t i) {
    const wb_translated *t = fresh_question(l, q);
    return t && t->n_hints == q->n_hints && i < t->n_hints ? t->hints[i] : i < q->n_hints ? q->hints[i] : NULL;
}

int wb_lesson_load_buffer(const char *lesson_dir, const char *data, size_t length, wb_lesson *l, wb_error *err) {
    return load_lesson(lesson_dir, data ? data : "", length, l, err);
}

const wb_variant *wb_lesson_variant(const wb_lesson *l, const char *name) {
    for (size_t i = 0; i < l->n_variants; i++)
        if (!strcmp(l->variants[i].name, name)) return &l->variants[i];
    return NULL;
}

int wb_variant_is_python(const wb_variant *v) { return v && v->program != NULL; }

const char *wb_variant_part(const wb_variant *v) { return v && v->part ? v->part : WB_MAIN_PART; }

size_t wb_lesson_parts(const wb_lesson *l, const char **out, size_t cap) {
    size_t n = 0;
    if (cap) out[n++] = WB_MAIN_PART;
    for (size_t i = 0; i < l->n_variants; i++) {
        const char *p = wb_variant_part(&l->variants[i]);
        size_t k = 0;
        while (k < n && strcmp(out[k], p)) k++;
        if (k == n && n < cap) out[n++] = p;
        else if (k == n) return cap + 1; /* more than cap */
    }
    return n;
}

int wb_lesson_has_part(const wb_lesson *l, const char *part) {
    const char *parts[WB_MAX_PARTS];
    size_t n = wb_lesson_parts(l, parts, WB_MAX_PARTS);
    for (size_t i = 0; i < n && i < WB_MAX_PARTS; i++)
        if (!strcmp(parts[i], part)) return 1;
    return 0;
}

const char *wb_lesson_part_list(const wb_lesson *l, char *buf, size_t cap) {
    const char *parts[WB_MAX_PARTS];
    size_t n = wb_lesson_parts(l, parts, WB_MAX_PARTS);
    buf[0] = '\0';
    for (size_t i = 0; i < n && i < WB_MAX_PARTS; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? ", " : "", parts[i]);
    return buf;
}

const char *wb_lesson_variant_part(const wb_lesson *l, const char *variant) {
    return wb_variant_part(variant ? wb_lesson_variant(l, variant) : NULL);
}

int wb_lesson_world_size(const wb_lesson *l, const char *variant) {
    const wb_variant *v = variant ? wb_lesson_variant(l, variant) : NULL;
    if (v && v->world_size > 0) return v->world_size;
    return l->world_size > 0 ? l->world_size : 1;
}

const wb_question *wb_lesson_question(const wb_lesson *l, const char *id) {
    for (size_t i = 0; i < l->n_questions; i++)
        if (!strcmp(l->questions[i].id, id)) return &l->questions[i];
    return NULL;
}

const wb_work *wb_lesson_work(const wb_lesson *l, const char *variant, const char *range) {
    for (size_t i = 0; i < l->n_work; i++) {
        const wb_work *w = &l->work[i];
        const char *wv = w->variant ? w->variant : (l->n_variants == 1 ? l->variants[0].name : NULL);
        if (!strcmp(w->range, range) && wv && variant && !strcmp(wv, variant)) return w;
    }
    return NULL;
}

double wb_lesson_tolerance(const wb_lesson *l, const char *question_id) {
    const wb_question *q = l ? wb_lesson_question(l, question_id) : NULL;
    return q ? q->tolerance : WB_DEFAULT_TOLERANCE;
}

int wb_lesson_has_range(const wb_lesson *l, const char *range) {
    for (size_t i = 0; i < l->n_ranges; i++)
        if (!strcmp(l->ranges[i], range)) return 1;
    return 0;
}

int wb_lesson_lists_range(const wb_lesson *l, const char *emitted) {
    for (size_t i = 0; i < l->n_ranges; i++)
        if (wb_range_name_matches(l->ranges[i], emitted)) return 1;
    return 0;
}

static const char *join(char *buf, size_t cap, size_t n, const char *(*get)(const wb_lesson *, size_t), const wb_lesson *l) {
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        strncat(buf, get(l, i), cap - strlen(buf) - 1);
        if (i + 1 < n) strncat(buf, ", ", cap - strlen(buf) - 1);
    }
    return buf;
}
static const char *variant_at(const wb_lesson *l, size_t i) { return l->variants[i].name; }
static const char *range_at(const wb_lesson *l, size_t i) { return l->ranges[i]; }
const char *wb_lesson_variant_list(const wb_lesson *l, char *buf, size_t cap) { return join(buf, cap, l->n_variants, variant_at, l); }
const char *wb_lesson_range_list(const wb_lesson *l, char *buf, size_t cap) { return join(buf, cap, l->n_ranges, range_at, l); }
