/*
 * test_host_threads.c: the host work lessons do before their first step (random inputs, bf16
 * encoding, CPU references) is spread over the cores (common/wb_parallel.h); the bytes it makes
 * must not depend on how many. Each is run with WB_HOST_THREADS=1 and with several counts, at
 * sizes large enough to be cut into that many slices, and compared byte for byte.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_bf16.h"
#include "wb_compare.h"
#include "wb_parallel.h"
#include "wb_random.h"

static void use_threads(int k) {
    char text[16];
    snprintf(text, sizeof text, "%d", k);
    cr_assert_eq(setenv("WB_HOST_THREADS", text, 1), 0);
}

static const int counts[] = {2, 3, 8, 13}; /* compared with 1 */

Test(host_threads, count_from_the_environment) {
    use_threads(5);
    cr_assert_eq(wb_host_threads(), 5);
    setenv("WB_HOST_THREADS", "0", 1);
    cr_assert_geq(wb_host_threads(), 1, "a count of 0 falls back to the cores");
    setenv("WB_HOST_THREADS", "lots", 1);
    cr_assert_geq(wb_host_threads(), 1);
}

/* What the slices of one call saw: each index's visits, and how many slices there were. */
typedef struct {
    unsigned char *seen;
    int slices;
} cover;

static void mark(void *arg, size_t from, size_t to) {
    cover *c = (cover *)arg;
    for (size_t i = from; i < to; i++) c->seen[i]++;
    __atomic_fetch_add(&c->slices, 1, __ATOMIC_RELAXED);
}

/* Every index once, in as many slices as asked when the work allows, one when it is small. */
Test(host_threads, slices_cover_every_index_once) {
    const size_t n = 100003;
    cover c = {calloc(n, 1), 0};
    cr_assert(c.seen);
    use_threads(7);
    wb_parallel_for(n, 1000, mark, &c);
    cr_assert_eq(c.slices, 7);
    for (size_t i = 0; i < n; i++) cr_assert_eq(c.seen[i], 1, "index %zu visited %d times", i, c.seen[i]);
    memset(c.seen, 0, n);
    c.slices = 0;
    wb_parallel_for(n, 1, mark, &c); /* 100003 operations: not worth a second thread */
    cr_assert_eq(c.slices, 1);
    for (size_t i = 0; i < n; i++) cr_assert_eq(c.seen[i], 1);
    free(c.seen);
}

/* Skipping n draws lands where n draws of wb_rng_next do. */
Test(rng_skip, lands_where_stepping_does) {
    const uint64_t steps[] = {0, 1, 2, 3, 63, 64, 65, 1000003};
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        wb_rng skipped, stepped;
        wb_rng_seed(&skipped, 1234 + s);
        wb_rng_seed(&stepped, 1234 + s);
        wb_rng_skip(&skipped, steps[s]);
        for (uint64_t i = 0; i < steps[s]; i++) (void)wb_rng_next(&stepped);
        cr_assert_eq(skipped.state, stepped.state, "after %llu draws", (unsigned long long)steps[s]);
    }
}

/* Lesson 03's host work in small: inputs filled and encoded, then a reference of sampled rows. */
enum { TOKENS = 96, DIM = 200, HIDDEN = 1100, ROWS = 32 };

typedef struct {
    float x[TOKENS * DIM], w[HIDDEN * DIM], w_down[DIM * HIDDEN], extra[(1 << 20) + 13];
    uint16_t x_bits[TOKENS * DIM], w_bits[HIDDEN * DIM], extra_bits[(1 << 20) + 13];
    double g[ROWS * HIDDEN], y[ROWS * HIDDEN];
    uint64_t rng_after;
} host_work;

static void host_work_run(host_work *h) {
    wb_rng rng;
    wb_rng_seed(&rng, 1);
    wb_fill_normal(h->x, TOKENS * DIM, &rng, 1.0f);
    wb_fill_uniform(h->w, HIDDEN * DIM, &rng, -0.1f, 0.1f);
    wb_fill_uniform(h->w_down, DIM * HIDDEN, &rng, -0.05f, 0.05f);
    wb_fill_normal(h->extra, (1 << 20) + 13, &rng, 3.0f); /* over a million: slices of any count */
    h->rng_after = rng.state;
    wb_bf16_encode(h->x_bits, h->x, TOKENS * DIM);
    wb_bf16_encode(h->w_bits, h->w, HIDDEN * DIM);
    wb_bf16_encode(h->extra_bits, h->extra, (1 << 20) + 13);
    wb_cpu_matmul_nt(h->g, h->x, h->w, ROWS, HIDDEN, DIM);      /* x's rows @ w^T, w (HIDDEN, DIM) */
    wb_cpu_matmul(h->y, h->x + DIM, h->w_down, ROWS, HIDDEN, DIM); /* x's rows from the second @ w_down (DIM, HIDDEN) */
}

#define SAME(field) cr_assert(memcmp(one->field, many->field, sizeof one->field) == 0, #field " differs on %d threads", k)

Test(host_threads, same_bytes_on_any_count) {
    host_work *one = malloc(sizeof *one), *many = malloc(sizeof *many);
    cr_assert(one && many);
    use_threads(1);
    host_work_run(one);
    /* An independent look at one value of each reference: the plain sum, in index order. */
    double g0 = 0.0, y0 = 0.0;
    for (int p = 0; p < DIM; p++) g0 += (double)one->x[p] * one->w[(size_t)(HIDDEN - 1) * DIM + p];
    for (int p = 0; p < DIM; p++) y0 += (double)one->x[DIM + p] * one->w_down[(size_t)p * HIDDEN + 7];
    cr_assert_eq(one->g[HIDDEN - 1], g0);
    cr_assert_eq(one->y[7], y0);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int k = counts[c];
        memset(many, 0xA5, sizeof *many);
        use_threads(k);
        host_work_run(many);
        SAME(x);
        SAME(w);
        SAME(w_down);
        SAME(extra);
        SAME(x_bits);
        SAME(w_bits);
        SAME(extra_bits);
        SAME(g);
        SAME(y);
        cr_assert_eq(one->rng_after, many->rng_after, "the generator is left elsewhere on %d threads", k);
    }
    free(one);
    free(many);
}
