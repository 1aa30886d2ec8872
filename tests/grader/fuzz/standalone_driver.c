/*
 * standalone_driver.c: runs a libFuzzer target without libFuzzer, where clang's fuzzer runtime
 * is missing: every seed in the corpus folder, then random mutations of them (bit flips, byte
 * changes, insertions, deletions, truncations, splices) from a fixed seed, so a failure repeats.
 * Understands the two libFuzzer flags the test suite uses: -runs=N and -max_total_time=S.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct { uint8_t *data; size_t size; } blob;

static size_t mutate(uint8_t *buf, size_t size, size_t cap, const blob *seeds, size_t n_seeds) {
    int rounds = 1 + (int)(next() % 4);
    for (int r = 0; r < rounds; r++) {
        size_t at = size ? next() % size : 0;
        switch (next() % 7) {
        case 0: if (size) buf[at] ^= (uint8_t)(1u << (next() % 8)); break;
        case 1: if (size) buf[at] = (uint8_t)next(); break;
        case 2: if (size < cap) { memmove(buf + at + 1, buf + at, size - at); buf[at] = "{}[]:,\"-~\n 0#&*!'9"[next() % 18]; size++; } break;
        case 3: if (size) { memmove(buf + at, buf + at + 1, size - at - 1); size--; } break;
        case 4: size = at; break;
        case 5: { /* splice a piece of another seed */
            const blob *s = &seeds[next() % n_seeds];
            if (!s->size) break;
            size_t from = next() % s->size, len = 1 + next() % 64;
            if (from + len > s->size) len = s->size - from;
            if (at + len > cap) len = cap - at;
            memcpy(buf + at, s->data + from, len);
            if (at + len > size) size = at + len;
            break;
        }
        case 6: if (size && size < cap) { size_t len = 1 + next() % 16; if (at + len > size) len = size - at; if (size + len <= cap) { memmove(buf + at + len, buf + at, size - at); size += len; } } break;
        }
    }
    return size;
}

int main(int argc, char **argv) {
    long runs = 20000;
    double max_seconds = 20;
    const char *corpus = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "-runs=", 6)) runs = atol(argv[i] + 6);
        else if (!strncmp(argv[i], "-max_total_time=", 16)) max_seconds = atof(argv[i] + 16);
        else if (argv[i][0] != '-') corpus = argv[i];
    }
    if (!corpus) {
        fprintf(stderr, "usage: %s [-runs=N] [-max_total_time=S] CORPUS_DIR\n", argv[0]);
        return 2;
    }
    blob seeds[256];
    size_t n = 0;
    DIR *d = opendir(corpus);
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 256) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", corpus, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        seeds[n].data = malloc(1 << 20);
        seeds[n].size = fread(seeds[n].data, 1, 1 << 20, f);
        fclose(f);
        LLVMFuzzerTestOneInput(seeds[n].data, seeds[n].size);
        n++;
    }
    if (d) closedir(d);
    if (!n) {
        fprintf(stderr, "%s: no seeds\n", corpus);
        return 2;
    }
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    clock_t start = clock();
    long done = 0;
    for (; done < runs && (double)(clock() - start) / CLOCKS_PER_SEC < max_seconds; done++) {
        const blob *s = &seeds[next() % n];
        memcpy(buf, s->data, s->size);
        size_t size = mutate(buf, s->size, cap, seeds, n);
        LLVMFuzzerTestOneInput(buf, size);
    }
    printf("standalone fuzz driver: %zu seeds, %ld mutated inputs, no crash\n", n, done);
    free(buf);
    for (size_t i = 0; i < n; i++) free(seeds[i].data);
    return 0;
}
