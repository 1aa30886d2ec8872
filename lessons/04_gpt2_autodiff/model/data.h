/*
 * data.h: training text and token batches.
 *
 * wb_builtin_corpus writes a small generated corpus of children's-story sentences ("One day, a
 * little girl named Lily went to the park..."), deterministic in its seed: the tests and the
 * grader's lesson variants use it, so they need no download. Real runs pass --data FILE (any
 * UTF-8 text; scripts/get_data.sh fetches TinyStories or falls back to the King James Bible).
 */
#ifndef WB_DATA_H
#define WB_DATA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A malloc'ed NUL-terminated text of about `bytes` bytes. */
char *wb_builtin_corpus(size_t bytes, uint64_t seed, size_t *n_out);
/* The whole file, malloc'ed and NUL-terminated. */
char *wb_read_file(const char *path, size_t *n_out);

/* Consecutive (B, T) windows over a token array, inputs and next-token targets. */
typedef struct {
    const int32_t *tokens;
    size_t n;
    size_t pos;
} wb_loader;

void wb_loader_init(wb_loader *l, const int32_t *tokens, size_t n);
/* Fills x and y (B*T each); wraps to the start at the end. Needs n > T + 1. */
int wb_loader_next(wb_loader *l, int B, int T, int32_t *x, int32_t *y);

#ifdef __cplusplus
}
#endif

#endif
