/*
 * capture_store.c: growable arrays of copied CUPTI records, and an intern table for strings.
 *
 * Kernel and API names repeat thousands of times in a training step, so strings are interned:
 * one copy per distinct name, looked up through a small open-addressing hash table.
 */
#include "capture_store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t store_mutex = PTHREAD_MUTEX_INITIALIZER;
static wb_store store;

void wb_store_lock(void) { pthread_mutex_lock(&store_mutex); }
void wb_store_unlock(void) { pthread_mutex_unlock(&store_mutex); }
wb_store *wb_store_get(void) { return &store; }

/* Grows *items to hold one more element of elem_size bytes. */
static int grow(void **items, size_t *cap, size_t n, size_t elem_size) {
    if (n < *cap) return 0;
    size_t new_cap = *cap ? *cap * 2 : 1024;
    void *p = realloc(*items, new_cap * elem_size);
    if (!p) return -1;
    *items = p;
    *cap = new_cap;
    return 0;
}

#define DEFINE_ADD(fn, type, field)                                                          \
    int fn(const type *r) {                                                                  \
        wb_store_lock();                                                                     \
        int rc = grow((void **)&store.field, &store.cap_##field, store.n_##field, sizeof *r); \
        if (rc == 0) store.field[store.n_##field++] = *r;                                    \
        else store.out_of_memory++;                                                          \
        wb_store_unlock();                                                                   \
        return rc;                                                                           \
    }

DEFINE_ADD(wb_store_add_api, wb_rec_api, api)
DEFINE_ADD(wb_store_add_kernel, wb_rec_kernel, kernels)
DEFINE_ADD(wb_store_add_memcpy, wb_rec_memcpy, memcpys)
DEFINE_ADD(wb_store_add_memset, wb_rec_memset, memsets)
DEFINE_ADD(wb_store_add_marker, wb_rec_marker, markers)

void wb_store_add_device(const wb_rec_device *r) {
    wb_store_lock();
    int known = 0;
    for (size_t i = 0; i < store.n_devices; i++)
        if (store.devices[i].id == r->id) known = 1;
    if (!known && store.n_devices < sizeof store.devices / sizeof store.devices[0])
        store.devices[store.n_devices++] = *r;
    wb_store_unlock();
}

/* ---- string interning ------------------------------------------------------------------- */

static pthread_mutex_t intern_mutex = PTHREAD_MUTEX_INITIALIZER;
static char **intern_slots;
static size_t intern_cap, intern_count;

static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int intern_rehash(size_t new_cap) {
    char **slots = calloc(new_cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < intern_cap; i++) {
        if (!intern_slots[i]) continue;
        size_t j = fnv1a(intern_slots[i]) & (new_cap - 1);
        while (slots[j]) j = (j + 1) & (new_cap - 1);
        slots[j] = intern_slots[i];
    }
    free(intern_slots);
    intern_slots = slots;
    intern_cap = new_cap;
    return 0;
}

const char *wb_store_intern(const char *s) {
    if (!s) return NULL;
    const char *result = NULL;
    pthread_mutex_lock(&intern_mutex);
    if ((intern_count + 1) * 2 > intern_cap && intern_rehash(intern_cap ? intern_cap * 2 : 256) != 0)
        goto done;
    size_t j = fnv1a(s) & (intern_cap - 1);
    while (intern_slots[j] && strcmp(intern_slots[j], s) != 0) j = (j + 1) & (intern_cap - 1);
    if (!intern_slots[j]) {
        intern_slots[j] = strdup(s);
        if (!intern_slots[j]) goto done;
        intern_count++;
    }
    result = intern_slots[j];
done:
    pthread_mutex_unlock(&intern_mutex);
    return result;
}
