/* overlap.c: see overlap.h. */
#define _GNU_SOURCE
#include "overlap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- streams -------------------------------------------------------------------------------- */

static int u64_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

long wb_occurrence_streams(const wb_capture *c, const wb_occurrence *o) {
    size_t n = o->n_kernels + o->n_ops;
    if (n == 0) return 0;
    uint64_t *ids = malloc(n * sizeof *ids);
    if (!ids) return -1;
    for (size_t i = 0; i < o->n_kernels; i++) {
        const wb_kernel *k = &c->kernels[o->kernels[i]];
        ids[i] = (uint64_t)k->rank << 48 | (uint64_t)k->device << 32 | k->stream; /* stream ids are per process */
    }
    for (size_t i = 0; i < o->n_ops; i++) {
        const wb_gpu_op *op = &c->ops[o->ops[i]];
        ids[o->n_kernels + i] = (uint64_t)op->rank << 48 | (uint64_t)op->device << 32 | op->stream;
    }
    qsort(ids, n, sizeof *ids, u64_cmp);
    long distinct = 1;
    for (size_t i = 1; i < n; i++) distinct += ids[i] != ids[i - 1];
    free(ids);
    return distinct;
}

/* ---- overlap -------------------------------------------------------------------------------- */

/* An operation's start (+1) or end (-1). At equal times ends sort first, so that an operation
 * starting exactly when another ends does not count as running with it. Each rank is swept on
 * its own: two processes' work running at once on their own GPUs is no overlap within a step,
 * and over all ranks the overlap is the sum of theirs. */
typedef struct {
    uint64_t t;
    int delta;
    int rank;
} edge;

static int edge_cmp(const void *a, const void *b) {
    const edge *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->t != y->t) return (x->t > y->t) - (x->t < y->t);
    return x->delta - y->delta;
}

static void add_interval(edge *e, size_t *n, int rank, uint64_t start, uint64_t end) {
    if (end <= start) return; /* zero-length (or clock-skewed) records run with nothing */
    e[(*n)++] = (edge){start, +1, rank};
    e[(*n)++] = (edge){end, -1, rank};
}

int64_t wb_occurrence_overlap_ns(const wb_capture *c, const wb_occurrence *o) {
    size_t cap = 2 * (o->n_kernels + o->n_ops), n = 0;
    if (cap < 4) return 0;
    edge *e = malloc(cap * sizeof *e);
    if (!e) return -1;
    for (size_t i = 0; i < o->n_kernels; i++) {
        const wb_kernel *k = &c->kernels[o->kernels[i]];
        add_interval(e, &n, k->rank, k->start, k->end);
    }
    for (size_t i = 0; i < o->n_ops; i++) {
        const wb_gpu_op *op = &c->ops[o->ops[i]];
        add_interval(e, &n, op->rank, op->start, op->end);
    }
    qsort(e, n, sizeof *e, edge_cmp);
    /* Sweep: between consecutive edges the number of running operations is constant. */
    uint64_t overlap = 0;
    int running = 0;
    for (size_t i = 0; i < n; i++) {
        running += e[i].delta;
        if (running >= 2 && i + 1 < n && e[i + 1].rank == e[i].rank) overlap += e[i + 1].t - e[i].t;
    }
    free(e);
    return (int64_t)overlap;
}

/* ---- copy kinds ----------------------------------------------------------------------------- */

static const char *const DIRECTIONS[] = {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP", NULL};
static const char *const MEMORIES[] = {"pageable", "pinned", "device", "managed", NULL};

static int in_list(const char *const *list, const char *word) {
    for (; *list; list++)
        if (!strcasecmp(*list, word)) return 1;
    return 0;
}

/* Calls visit(word, ctx) for each space-separated word of key; stops at the first nonzero. */
static int each_word(const char *key, int (*visit)(const char *word, void *ctx), void *ctx) {
    char word[32];
    for (const char *p = key; *p;) {
        while (*p == ' ') p++;
        size_t len = strcspn(p, " ");
        if (len == 0) break;
        if (len >= sizeof word) len = sizeof word - 1; /* longer than any valid word: stays invalid */
        memcpy(word, p, len);
        word[len] = 0;
        int rc = visit(word, ctx);
        if (rc) return rc;
        p += strcspn(p, " ");
    }
    return 0;
}

typedef struct {
    int words, directions;
    char *why;
    size_t cap;
} key_check;

static int check_word(const char *word, void *ctx) {
    key_check *k = ctx;
    k->words++;
    if (in_list(DIRECTIONS, word)) {
        if (++k->directions > 1) {
            snprintf(k->why, k->cap, _("a copy has one direction; '%s' is a second one"), word);
            return -1;
        }
        return 0;
    }
    if (in_list(MEMORIES, word) || !strcasecmp(word, "async") || !strcasecmp(word, "sync")) return 0;
    snprintf(k->why, k->cap, _("'%s' is not a copy word; use HtoD, DtoH, DtoD, HtoH, PtoP, pageable, pinned, device, "
                               "managed, async or sync, separated by spaces (e.g. 'HtoD pageable')"), word);
    return -1;
}

int wb_memcpy_key_check(const char *key, char *why, size_t cap) {
    key_check k = {0, 0, why, cap};
    if (each_word(key, check_word, &k)) return -1;
    if (k.words == 0) {
        snprintf(why, cap, _("the key names no copy word (e.g. HtoD, DtoH, pageable, pinned, async)"));
        return -1;
    }
    return 0;
}

static int word_fails(const char *word, void *ctx) {
    const wb_gpu_op *op = ctx;
    if (in_list(DIRECTIONS, word)) return strcasecmp(op->copy_kind, word) != 0;
    if (in_list(MEMORIES, word)) return strcasecmp(op->src_kind, word) != 0 && strcasecmp(op->dst_kind, word) != 0;
    if (!strcasecmp(word, "async")) return op->async != 1;
    if (!strcasecmp(word, "sync")) return op->async != 0;
    return 1;
}

int wb_memcpy_matches(const wb_gpu_op *op, const char *key) {
    if (op->kind != WB_GPU_MEMCPY) return 0;
    return each_word(key, word_fails, (void *)op) == 0;
}
