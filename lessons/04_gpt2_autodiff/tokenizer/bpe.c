/* bpe.c: see bpe.h. */
#include "bpe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_check.h"

#define BPE_MAGIC "WBBPE\0\0\0"
#define BPE_VERSION 1u
#define MAX_CHUNK 64 /* longer runs (rows of dashes, long numbers) are cut */

/* ---------------------------------------------------------------------------------------------
 * hash maps: u64 -> i64 (pairs), and bytes -> entry (chunks), open addressing
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    uint64_t *keys;
    int64_t *vals;
    size_t cap, n;
} u64map;

#define EMPTY UINT64_MAX

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int u64map_init(u64map *m, size_t cap) {
    m->cap = cap;
    m->n = 0;
    m->keys = malloc(cap * sizeof *m->keys);
    m->vals = calloc(cap, sizeof *m->vals);
    if (!m->keys || !m->vals) return WB_FAIL;
    memset(m->keys, 0xff, cap * sizeof *m->keys);
    return WB_OK;
}

static void u64map_free(u64map *m) {
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
}

static int64_t *u64map_slot(u64map *m, uint64_t key, int create);

static int u64map_grow(u64map *m) {
    u64map n;
    if (u64map_init(&n, m->cap * 2) != WB_OK) return WB_FAIL;
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i] != EMPTY) *u64map_slot(&n, m->keys[i], 1) = m->vals[i];
    u64map_free(m);
    *m = n;
    return WB_OK;
}

/* The value slot of key; NULL when absent and !create (or out of memory). */
static int64_t *u64map_slot(u64map *m, uint64_t key, int create) {
    if (create && (m->n + 1) * 2 > m->cap && u64map_grow(m) != WB_OK) return NULL;
    size_t i = mix64(key) & (m->cap - 1);
    while (m->keys[i] != EMPTY) {
        if (m->keys[i] == key) return &m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    if (!create) return NULL;
    m->keys[i] = key;
    m->vals[i] = 0;
    m->n++;
    return &m->vals[i];
}

static uint64_t pair_key(int32_t a, int32_t b) { return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b; }

typedef struct {
    char *s; /* NULL: empty slot */
    int len;
    int64_t count;
    int32_t *toks;
    int ntoks;
} chunk_entry;

typedef struct {
    chunk_entry *e;
    size_t cap, n;
} chunkmap;

static uint64_t hash_bytes(const char *s, int n) {
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int chunkmap_init(chunkmap *m, size_t cap) {
    m->e = calloc(cap, sizeof *m->e);
    m->cap = cap;
    m->n = 0;
    return m->e ? WB_OK : WB_FAIL;
}

static void chunkmap_free(chunkmap *m) {
    if (!m->e) return;
    for (size_t i = 0; i < m->cap; i++) free(m->e[i].s), free(m->e[i].toks);
    free(m->e);
    m->e = NULL;
}

static chunk_entry *chunkmap_get(chunkmap *m, const char *s, int n, int create) {
    if (create && (m->n + 1) * 2 > m->cap) {
        chunkmap g;
        if (chunkmap_init(&g, m->cap * 2) != WB_OK) return NULL;
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->e[i].s) continue;
            size_t j = hash_bytes(m->e[i].s, m->e[i].len) & (g.cap - 1);
            while (g.e[j].s) j = (j + 1) & (g.cap - 1);
            g.e[j] = m->e[i];
        }
        g.n = m->n;
        free(m->e);
        *m = g;
    }
    size_t i = hash_bytes(s, n) & (m->cap - 1);
    while (m->e[i].s) {
        if (m->e[i].len == n && !memcmp(m->e[i].s, s, (size_t)n)) return &m->e[i];
        i = (i + 1) & (m->cap - 1);
    }
    if (!create) return NULL;
    chunk_entry *e = &m->e[i];
    e->s = malloc((size_t)n);
    if (!e->s) return NULL;
    memcpy(e->s, s, (size_t)n);
    e->len = n;
    e->count = 0;
    m->n++;
    return e;
}

/* ---------------------------------------------------------------------------------------------
 * pre-tokenization: GPT-2-like chunks
 * ------------------------------------------------------------------------------------------ */
enum { CL_LETTER, CL_DIGIT, CL_SPACE, CL_PUNCT };

static int byte_class(unsigned char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80) return CL_LETTER;
    if (c >= '0' && c <= '9') return CL_DIGIT;
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v') return CL_SPACE;
    return CL_PUNCT;
}

/* End of the chunk that starts at i. */
static size_t chunk_end(const unsigned char *s, size_t n, size_t i) {
    size_t j = i + 1;
    int cls;
    if (s[i] == ' ' && j < n && byte_class(s[j]) != CL_SPACE) {
        cls = byte_class(s[j]); /* a word with its leading space */
        j++;
    } else if (byte_class(s[i]) == CL_SPACE) {
        /* whitespace, leaving a last ' ' to the word that follows it */
        while (j < n && byte_class(s[j]) == CL_SPACE &&
               !(s[j] == ' ' && j + 1 < n && byte_class(s[j + 1]) != CL_SPACE))
            j++;
        return j - i > MAX_CHUNK ? i + MAX_CHUNK : j;
    } else {
        cls = byte_class(s[i]);
    }
    while (j < n && byte_class(s[j]) == cls && j - i < MAX_CHUNK) j++;
    return j;
}

/* ---------------------------------------------------------------------------------------------
 * training
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    int32_t *sym;
    int n;
    int64_t count;
} word;

static void pair_add(u64map *pc, int32_t a, int32_t b, int64_t d) {
    int64_t *v = u64map_slot(pc, pair_key(a, b), 1);
    if (v) *v += d;
}

static int build_tables(wb_bpe *bpe);

int wb_bpe_train(wb_bpe *bpe, const char *text, size_t n, int vocab_size, int verbose) {
    memset(bpe, 0, sizeof *bpe);
    if (vocab_size < 256) {
        fprintf(stderr, "bpe: vocab_size must be at least 256\n");
        return WB_FAIL;
    }
    const unsigned char *s = (const unsigned char *)text;
    chunkmap chunks;
    if (chunkmap_init(&chunks, 1 << 16) != WB_OK) return WB_FAIL;
    for (size_t i = 0; i < n;) {
        size_t j = chunk_end(s, n, i);
        chunk_entry *e = chunkmap_get(&chunks, text + i, (int)(j - i), 1);
        if (!e) goto oom;
        e->count++;
        i = j;
    }
    word *words = calloc(chunks.n ? chunks.n : 1, sizeof *words);
    if (!words) goto oom;
    size_t nw = 0;
    for (size_t i = 0; i < chunks.cap; i++) {
        chunk_entry *e = &chunks.e[i];
        if (!e->s) continue;
        word *w = &words[nw++];
        w->sym = malloc((size_t)e->len * sizeof *w->sym);
        if (!w->sym) goto oom;
        for (int k = 0; k < e->len; k++) w->sym[k] = (unsigned char)e->s[k];
        w->n = e->len;
        w->count = e->count;
    }
    chunkmap_free(&chunks);

    u64map pc;
    if (u64map_init(&pc, 1 << 16) != WB_OK) goto oom;
    for (size_t i = 0; i < nw; i++)
        for (int k = 0; k + 1 < words[i].n; k++) pair_add(&pc, words[i].sym[k], words[i].sym[k + 1], words[i].count);

    int want = vocab_size - 256;
    bpe->merges = malloc((size_t)(want ? want : 1) * sizeof *bpe->merges);
    if (!bpe->merges) goto oom;
    for (int m = 0; m < want; m++) {
        uint64_t best = EMPTY;
        int64_t best_count = 1; /* a pair seen once is not worth a token */
        for (size_t i = 0; i < pc.cap; i++)
            if (pc.keys[i] != EMPTY && (pc.vals[i] > best_count || (pc.vals[i] == best_count && best != EMPTY &&
                                                                     pc.keys[i] < best))) {
                best = pc.keys[i];
                best_count = pc.vals[i];
            }
        if (best == EMPTY) break;
        int32_t a = (int32_t)(best >> 32), b = (int32_t)(best & 0xffffffffu), id = 256 + m;
        bpe->merges[m][0] = a;
        bpe->merges[m][1] = b;
        bpe->n_merges = m + 1;
        for (size_t i = 0; i < nw; i++) {
            word *w = &words[i];
            for (int k = 0; k + 1 < w->n; k++) {
                if (w->sym[k] != a || w->sym[k + 1] != b) continue;
                if (k > 0) pair_add(&pc, w->sym[k - 1], a, -w->count);
                pair_add(&pc, a, b, -w->count);
                if (k + 2 < w->n) pair_add(&pc, b, w->sym[k + 2], -w->count);
                w->sym[k] = id;
                memmove(&w->sym[k + 1], &w->sym[k + 2], (size_t)(w->n - k - 2) * sizeof *w->sym);
                w->n--;
                if (k > 0) pair_add(&pc, w->sym[k - 1], id, w->count);
                if (k + 1 < w->n) pair_add(&pc, id, w->sym[k + 1], w->count);
            }
        }
        if (verbose && (m + 1) % 1000 == 0) fprintf(stderr, "bpe: %d merges\n", m + 1);
    }
    u64map_free(&pc);
    for (size_t i = 0; i < nw; i++) free(words[i].sym);
    free(words);
    bpe->vocab_size = 256 + bpe->n_merges;
    return build_tables(bpe);
oom:
    fprintf(stderr, "bpe: out of memory\n");
    return WB_FAIL;
}

/* token bytes and the pair -> rank map, from the merges */
static int build_tables(wb_bpe *bpe) {
    int V = bpe->vocab_size;
    bpe->token_bytes = calloc((size_t)V, sizeof *bpe->token_bytes);
    bpe->token_len = calloc((size_t)V, sizeof *bpe->token_len);
    u64map *rank = malloc(sizeof *rank);
    chunkmap *cache = malloc(sizeof *cache);
    if (!bpe->token_bytes || !bpe->token_len || !rank || !cache) return WB_FAIL;
    if (u64map_init(rank, 1024) != WB_OK || chunkmap_init(cache, 1 << 12) != WB_OK) return WB_FAIL;
    bpe->rank = rank;
    bpe->cache = cache;
    for (int i = 0; i < 256; i++) {
        bpe->token_bytes[i] = malloc(1);
        if (!bpe->token_bytes[i]) return WB_FAIL;
        bpe->token_bytes[i][0] = (uint8_t)i;
        bpe->token_len[i] = 1;
    }
    for (int m = 0; m < bpe->n_merges; m++) {
        int32_t a = bpe->merges[m][0], b = bpe->merges[m][1], id = 256 + m;
        if (a < 0 || b < 0 || a >= id || b >= id) {
            fprintf(stderr, "bpe: merge %d refers to a later token\n", m);
            return WB_FAIL;
        }
        int la = bpe->token_len[a], lb = bpe->token_len[b];
        bpe->token_bytes[id] = malloc((size_t)(la + lb));
        if (!bpe->token_bytes[id]) return WB_FAIL;
        memcpy(bpe->token_bytes[id], bpe->token_bytes[a], (size_t)la);
        memcpy(bpe->token_bytes[id] + la, bpe->token_bytes[b], (size_t)lb);
        bpe->token_len[id] = la + lb;
        int64_t *r = u64map_slot(rank, pair_key(a, b), 1);
        if (!r) return WB_FAIL;
        *r = m;
    }
    return WB_OK;
}

void wb_bpe_free(wb_bpe *bpe) {
    if (bpe->token_bytes)
        for (int i = 0; i < bpe->vocab_size; i++) free(bpe->token_bytes[i]);
    free(bpe->token_bytes);
    free(bpe->token_len);
    free(bpe->merges);
    if (bpe->rank) u64map_free(bpe->rank);
    free(bpe->rank);
    if (bpe->cache) chunkmap_free(bpe->cache);
    free(bpe->cache);
    memset(bpe, 0, sizeof *bpe);
}

/* ---------------------------------------------------------------------------------------------
 * encode / decode
 * ------------------------------------------------------------------------------------------ */
/* Applies the merges to one chunk in rank order; sym has room for len tokens. Returns the count. */
static int encode_chunk(const wb_bpe *bpe, const unsigned char *s, int len, int32_t *sym) {
    int n = len;
    for (int k = 0; k < n; k++) sym[k] = s[k];
    for (;;) {
        int64_t best = INT64_MAX;
        for (int k = 0; k + 1 < n; k++) {
            int64_t *r = u64map_slot(bpe->rank, pair_key(sym[k], sym[k + 1]), 0);
            if (r && *r < best) best = *r;
        }
        if (best == INT64_MAX) return n;
        int32_t a = bpe->merges[best][0], b = bpe->merges[best][1];
        int o = 0;
        for (int k = 0; k < n; k++) {
            if (k + 1 < n && sym[k] == a && sym[k + 1] == b) {
                sym[o++] = 256 + (int32_t)best;
                k++;
            } else {
                sym[o++] = sym[k];
            }
        }
        n = o;
    }
}

int wb_bpe_encode(wb_bpe *bpe, const char *text, size_t n, int32_t **out, size_t *n_out) {
    size_t cap = n + 16, k = 0;
    int32_t *toks = malloc(cap * sizeof *toks);
    if (!toks) return WB_FAIL;
    const unsigned char *s = (const unsigned char *)text;
    int32_t buf[MAX_CHUNK];
    for (size_t i = 0; i < n;) {
        size_t j = chunk_end(s, n, i);
        int len = (int)(j - i);
        chunk_entry *e = chunkmap_get(bpe->cache, text + i, len, 1);
        if (!e) {
            free(toks);
            return WB_FAIL;
        }
        if (!e->toks) {
            e->ntoks = encode_chunk(bpe, s + i, len, buf);
            e->toks = malloc((size_t)e->ntoks * sizeof *e->toks);
            if (!e->toks) {
                free(toks);
                return WB_FAIL;
            }
            memcpy(e->toks, buf, (size_t)e->ntoks * sizeof *buf);
        }
        memcpy(toks + k, e->toks, (size_t)e->ntoks * sizeof *toks);
        k += (size_t)e->ntoks;
        i = j;
    }
    *out = toks;
    *n_out = k;
    return WB_OK;
}

char *wb_bpe_decode(const wb_bpe *bpe, const int32_t *tokens, size_t n) {
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        if (tokens[i] >= 0 && tokens[i] < bpe->vocab_size) len += (size_t)bpe->token_len[tokens[i]];
    char *s = malloc(len + 1), *p = s;
    if (!s) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (tokens[i] < 0 || tokens[i] >= bpe->vocab_size) continue; /* padding ids: skipped */
        memcpy(p, bpe->token_bytes[tokens[i]], (size_t)bpe->token_len[tokens[i]]);
        p += bpe->token_len[tokens[i]];
    }
    *p = 0;
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * files
 * ------------------------------------------------------------------------------------------ */
int wb_bpe_save(const wb_bpe *bpe, const char *path) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return WB_FAIL;
    }
    uint32_t hdr[3] = {BPE_VERSION, (uint32_t)bpe->vocab_size, (uint32_t)bpe->n_merges};
    int ok = fwrite(BPE_MAGIC, 1, 8, f) == 8 && fwrite(hdr, sizeof hdr, 1, f) == 1 &&
             fwrite(bpe->merges, sizeof *bpe->merges, (size_t)bpe->n_merges, f) == (size_t)bpe->n_merges;
    ok = (fclose(f) == 0) && ok;
    if (!ok) fprintf(stderr, "%s: write failed\n", path);
    return ok ? WB_OK : WB_FAIL;
}

int wb_bpe_load(wb_bpe *bpe, const char *path) {
    memset(bpe, 0, sizeof *bpe);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return WB_FAIL;
    }
    char magic[8];
    uint32_t hdr[3];
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, BPE_MAGIC, 8) || fread(hdr, sizeof hdr, 1, f) != 1) {
        fprintf(stderr, "%s: not a tokenizer file (magic WBBPE expected)\n", path);
        fclose(f);
        return WB_FAIL;
    }
    if (hdr[0] != BPE_VERSION || hdr[2] + 256 != hdr[1]) {
        fprintf(stderr, "%s: tokenizer version %u (expected %u) or bad sizes; retrain it\n", path, hdr[0], BPE_VERSION);
        fclose(f);
        return WB_FAIL;
    }
    bpe->n_merges = (int)hdr[2];
    bpe->vocab_size = (int)hdr[1];
    bpe->merges = malloc((size_t)(bpe->n_merges ? bpe->n_merges : 1) * sizeof *bpe->merges);
    if (!bpe->merges || fread(bpe->merges, sizeof *bpe->merges, (size_t)bpe->n_merges, f) != (size_t)bpe->n_merges) {
        fprintf(stderr, "%s: truncated\n", path);
        fclose(f);
        return WB_FAIL;
    }
    fclose(f);
    return build_tables(bpe);
}
