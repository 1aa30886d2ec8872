/* wb_parallel.c: see wb_parallel.h. */
#define _GNU_SOURCE /* sched_getaffinity: the cores a container or taskset leaves us */
#include "wb_parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 256

int wb_host_threads(void) {
    const char *env = getenv("WB_HOST_THREADS");
    if (env && *env) {
        char *end;
        long k = strtol(env, &end, 10);
        if (*end == '\0' && k >= 1 && k <= MAX_THREADS) return (int)k;
    }
    cpu_set_t set;
    long cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
}

typedef struct {
    void (*fn)(void *ctx, size_t from, size_t to);
    void *ctx;
    size_t from, to;
} slice;

static void *slice_main(void *arg) {
    slice *s = (slice *)arg;
    s->fn(s->ctx, s->from, s->to);
    return NULL;
}

void wb_parallel_for(size_t n, size_t ops_per_index, void (*fn)(void *ctx, size_t from, size_t to), void *ctx) {
    if (n == 0) return;
    size_t min_indices = WB_PARALLEL_MIN_OPS / (ops_per_index ? ops_per_index : 1) + 1;
    size_t k = (size_t)wb_host_threads();
    if (k > n / min_indices) k = n / min_indices;
    if (k <= 1) {
        fn(ctx, 0, n);
        return;
    }
    slice s[MAX_THREADS];
    pthread_t thread[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (size_t i = 0; i < k; i++) s[i] = (slice){fn, ctx, n * i / k, n * (i + 1) / k};
    for (size_t i = 1; i < k; i++) started[i] = pthread_create(&thread[i], NULL, slice_main, &s[i]) == 0;
    slice_main(&s[0]);
    for (size_t i = 1; i < k; i++) {
        if (started[i]) pthread_join(thread[i], NULL);
        else slice_main(&s[i]); /* no thread to be had: the caller does it */
    }
}
