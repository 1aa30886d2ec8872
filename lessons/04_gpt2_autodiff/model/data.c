/* data.c: see data.h. */
#include "data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_check.h"
#include "wb_random.h"

static const char *NAMES[] = {"Lily", "Tim", "Sue", "Ben", "Mia", "Max", "Anna", "Tom"};
static const char *WHO[] = {"a little girl", "a little boy", "a small dog", "a happy cat", "a kind bird"};
static const char *PLACES[] = {"the park", "the forest", "the beach", "the garden", "the store", "the lake"};
static const char *THINGS[] = {"a big tree", "a red ball", "a shiny stone", "a blue box", "a funny hat", "a small boat"};
static const char *FEEL[] = {"happy", "excited", "curious", "sad", "scared", "proud"};
static const char *DO[] = {"play with", "look at", "share", "find", "hold", "show her mom"};

#define PICK(a) a[wb_rng_next(&rng) % (sizeof a / sizeof a[0])]

char *wb_builtin_corpus(size_t bytes, uint64_t seed, size_t *n_out) {
    size_t cap = bytes + 1024, n = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    wb_rng rng;
    wb_rng_seed(&rng, seed);
    while (n < bytes) {
        const char *name = PICK(NAMES), *place = PICK(PLACES), *thing = PICK(THINGS);
        char story[1024];
        int k = snprintf(story, sizeof story,
                         "One day, %s named %s went to %s. %s saw %s. %s was very %s. "
                         "%s wanted to %s it. \"Look!\" said %s. At the end of the day, %s went home.\n\n",
                         PICK(WHO), name, place, name, thing, name, PICK(FEEL), name, PICK(DO), name, name);
        if (k < 0) break;
        if (n + (size_t)k >= cap) break;
        memcpy(s + n, story, (size_t)k);
        n += (size_t)k;
    }
    s[n] = 0;
    *n_out = n;
    return s;
}

char *wb_read_file(const char *path, size_t *n_out) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long len = ftell(f);
    rewind(f);
    char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!s || fread(s, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(s);
        fclose(f);
        return NULL;
    }
    fclose(f);
    s[len] = 0;
    *n_out = (size_t)len;
    return s;
}

void wb_loader_init(wb_loader *l, const int32_t *tokens, size_t n) {
    l->tokens = tokens;
    l->n = n;
    l->pos = 0;
}

int wb_loader_next(wb_loader *l, int B, int T, int32_t *x, int32_t *y) {
    if (l->n < (size_t)T + 2) {
        fprintf(stderr, "data: %zu tokens are too few for sequences of %d\n", l->n, T);
        return WB_FAIL;
    }
    for (int b = 0; b < B; b++) {
        if (l->pos + (size_t)T + 1 > l->n) l->pos = 0;
        memcpy(x + (size_t)b * T, l->tokens + l->pos, (size_t)T * 4);
        memcpy(y + (size_t)b * T, l->tokens + l->pos + 1, (size_t)T * 4);
        l->pos += (size_t)T;
    }
    return WB_OK;
}
