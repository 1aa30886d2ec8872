/*
 * bpe.h: a byte-level BPE tokenizer, trained in C on the training text.
 *
 * Tokens 0..255 are the bytes; token 256 + i is merge i (a pair of earlier tokens). Any byte
 * string encodes, and decoding concatenates the tokens' bytes, so every UTF-8 file round-trips.
 * Text is first cut into chunks the way GPT-2 does (a word with its leading space, a run of
 * digits, a run of punctuation, whitespace), and merges never cross a chunk boundary.
 *
 * Training counts the pairs inside the distinct chunks (weighted by how often each occurs) and
 * repeatedly merges the most frequent pair (ties: the smaller pair of ids). Cost: one pass over
 * the distinct chunks per merge; a 4 MB text and 4096 tokens take a few seconds.
 *
 * File format (little-endian): "WBBPE\0\0\0", u32 version (1), u32 vocab_size, u32 n_merges,
 * then n_merges pairs of u32 (left, right).
 */
#ifndef WB_BPE_H
#define WB_BPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int vocab_size;          /* 256 + n_merges */
    int n_merges;
    int32_t (*merges)[2];    /* (n_merges, 2) */
    /* derived */
    uint8_t **token_bytes;   /* (vocab_size) the bytes of each token */
    int *token_len;          /* (vocab_size) */
    void *rank;              /* pair -> merge index (hash map) */
    void *cache;             /* chunk -> tokens, filled while encoding */
} wb_bpe;

/* Learns vocab_size - 256 merges from text (vocab_size >= 256). */
int wb_bpe_train(wb_bpe *bpe, const char *text, size_t n, int vocab_size, int verbose);
int wb_bpe_save(const wb_bpe *bpe, const char *path);
int wb_bpe_load(wb_bpe *bpe, const char *path);
void wb_bpe_free(wb_bpe *bpe);

/* Encodes text into *out (malloc'ed, *n_out tokens). */
int wb_bpe_encode(wb_bpe *bpe, const char *text, size_t n, int32_t **out, size_t *n_out);
/* Decodes tokens into a malloc'ed NUL-terminated string. */
char *wb_bpe_decode(const wb_bpe *bpe, const int32_t *tokens, size_t n);

#ifdef __cplusplus
}
#endif

#endif
