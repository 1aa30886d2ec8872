/*
 * arena.c: bump allocation in chunks, reset every step (see engine.h).
 *
 * Why chunks: the first step does not know how much it needs. It grows by adding chunks (the only
 * step that calls cudaMalloc); the reset after it merges them into one, so every later step runs
 * without allocating and its gradient arena is cleared by one memset.
 */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_check.h"

#define WB_ALIGN 256

static int chunk_new(wb_arena *a, size_t size, wb_arena_chunk **out) {
    wb_arena_chunk *c = calloc(1, sizeof *c);
    if (!c) return WB_FAIL;
    void *p = NULL;
    if (a->be) {
        if (a->be->alloc(a->be, &p, size) != WB_OK) {
            free(c);
            fprintf(stderr, "arena %s: cannot allocate %zu MiB\n", a->name, size >> 20);
            return WB_FAIL;
        }
    } else {
        p = aligned_alloc(WB_ALIGN, (size + WB_ALIGN - 1) / WB_ALIGN * WB_ALIGN);
        if (!p) {
            free(c);
            fprintf(stderr, "arena %s: out of host memory (%zu MiB)\n", a->name, size >> 20);
            return WB_FAIL;
        }
    }
    c->base = p;
    c->size = size;
    *out = c;
    return WB_OK;
}

static void chunk_free(wb_arena *a, wb_arena_chunk *c) {
    if (a->be) a->be->free(a->be, c->base);
    else free(c->base);
    free(c);
}

int wb_arena_init(wb_arena *a, wb_backend *be, size_t chunk_size, const char *name) {
    a->be = be;
    a->head = a->cur = NULL;
    a->chunk_size = chunk_size < (1u << 20) ? (1u << 20) : chunk_size;
    a->used = a->peak = 0;
    a->name = name;
    if (chunk_new(a, a->chunk_size, &a->head) != WB_OK) return WB_FAIL;
    a->cur = a->head;
    return WB_OK;
}

void *wb_arena_alloc(wb_arena *a, size_t bytes) {
    size_t need = (bytes + WB_ALIGN - 1) / WB_ALIGN * WB_ALIGN;
    if (need == 0) need = WB_ALIGN;
    while (a->cur) {
        wb_arena_chunk *c = a->cur;
        if (c->size - c->used >= need) {
            void *p = c->base + c->used;
            c->used += need;
            a->used += need;
            if (a->used > a->peak) a->peak = a->used;
            return p;
        }
        if (!c->next) {
            size_t size = need > a->chunk_size ? need : a->chunk_size;
            if (chunk_new(a, size, &c->next) != WB_OK) return NULL;
        }
        a->cur = c->next;
    }
    return NULL;
}

int wb_arena_reset(wb_arena *a) {
    if (a->head && a->head->next) {
        /* More than one chunk was needed: replace them all by one that holds the peak. */
        size_t total = 0;
        for (wb_arena_chunk *c = a->head; c; c = c->next) total += c->size;
        wb_arena_chunk *c = a->head;
        while (c) {
            wb_arena_chunk *n = c->next;
            chunk_free(a, c);
            c = n;
        }
        a->head = NULL;
        if (a->chunk_size < total) a->chunk_size = total;
        if (chunk_new(a, total, &a->head) != WB_OK) return WB_FAIL;
    }
    for (wb_arena_chunk *c = a->head; c; c = c->next) c->used = 0;
    a->cur = a->head;
    a->used = 0;
    return WB_OK;
}

void wb_arena_free(wb_arena *a) {
    wb_arena_chunk *c = a->head;
    while (c) {
        wb_arena_chunk *n = c->next;
        chunk_free(a, c);
        c = n;
    }
    a->head = a->cur = NULL;
}
