/*
 * bucket_plan.c: the bucket plan (bucket_plan.h says what and why).
 */
#include "bucket_plan.h"

#include <stdlib.h>
#include <string.h>

/* What the sorts compare, copied beside each index (qsort has no context argument). */
typedef struct {
    int ready;
    int64_t offset;
    int index;
} sort_key;

static int by_ready(const void *a, const void *b) {
    const sort_key *p = a, *q = b;
    if (p->ready != q->ready) return p->ready < q->ready ? -1 : 1;
    return p->offset > q->offset ? -1 : p->offset < q->offset; /* later in the block first */
}

static int by_offset(const void *a, const void *b) {
    const sort_key *p = a, *q = b;
    return p->offset < q->offset ? -1 : p->offset > q->offset;
}

static sort_key key_of(const dp_param *params, int i) { return (sort_key){params[i].ready, params[i].offset, i}; }

int dp_plan_build(dp_plan *plan, const dp_param *params, int n, size_t elem_bytes, size_t cap_bytes) {
    memset(plan, 0, sizeof *plan);
    if (n < 1 || cap_bytes == 0 || elem_bytes == 0) return -1;
    for (int i = 0; i < n; i++)
        if (params[i].offset < 0 || params[i].numel < 1) return -1;
    sort_key *keys = malloc((size_t)n * sizeof *keys);
    plan->order = malloc((size_t)n * sizeof *plan->order);
    plan->buckets = malloc((size_t)n * sizeof *plan->buckets); /* at most one per parameter */
    plan->ranges = malloc((size_t)n * sizeof *plan->ranges);
    if (!keys || !plan->order || !plan->buckets || !plan->ranges) goto fail;
    plan->n_params = n;
    for (int i = 0; i < n; i++) keys[i] = key_of(params, i);
    qsort(keys, (size_t)n, sizeof *keys, by_offset);
    for (int i = 1; i < n; i++)
        if (keys[i - 1].offset + params[keys[i - 1].index].numel > keys[i].offset) goto fail; /* overlap */
    qsort(keys, (size_t)n, sizeof *keys, by_ready);
    for (int i = 0; i < n; i++) plan->order[i] = keys[i].index;

    dp_bucket *b = NULL;
    for (int i = 0; i < n; i++) {
        const dp_param *p = &params[plan->order[i]];
        if (!b || b->bytes >= cap_bytes) { /* DDP's rule: a bucket closes once it reaches the cap */
            b = &plan->buckets[plan->n_buckets++];
            memset(b, 0, sizeof *b);
            b->first = i;
        }
        b->count++;
        b->bytes += (size_t)p->numel * elem_bytes;
        b->ready = p->ready; /* the order is by ready: the last one's is the bucket's */
    }
    for (int k = 0; k < plan->n_buckets; k++) { /* ranges: the bucket's gradients by offset, merged */
        b = &plan->buckets[k];
        for (int i = 0; i < b->count; i++) keys[i] = key_of(params, plan->order[b->first + i]);
        qsort(keys, (size_t)b->count, sizeof *keys, by_offset);
        b->range_first = plan->n_ranges;
        for (int i = 0; i < b->count; i++) {
            const dp_param *p = &params[keys[i].index];
            dp_range *last = b->n_ranges ? &plan->ranges[plan->n_ranges - 1] : NULL;
            if (last && last->offset + last->numel == p->offset) {
                last->numel += p->numel;
            } else {
                plan->ranges[plan->n_ranges++] = (dp_range){p->offset, p->numel};
                b->n_ranges++;
            }
        }
    }
    free(keys);
    return 0;
fail:
    free(keys);
    dp_plan_free(plan);
    return -1;
}

void dp_plan_free(dp_plan *plan) {
    free(plan->order);
    free(plan->buckets);
    free(plan->ranges);
    memset(plan, 0, sizeof *plan);
}
