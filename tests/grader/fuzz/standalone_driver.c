/*
 * standalone_driver.c: runs a libFuzzer target without libFuzzer, where clang's fuzzer runtime
 * is missing. Same command line as libFuzzer for what the test suite and fuzz-campaign.sh use:
 *
 *   fuzz_X FILE...                  run each file once (replaying a corpus)
 *   fuzz_X [flags] DIR...           run every file of the folders (in name order), then mutations
 *                                   of them (bit flips, byte changes, insertions, deletions,
 *                                   truncations, splices)
 *     -seed=N        the mutations' random seed (default 1): the same seed, the same inputs
 *     -runs=N        how many mutated inputs (default 20000)
 *     -max_total_time=S  stop after S seconds instead (campaigns only: not reproducible)
 *     -max_len=N     longest mutated input in bytes (default 65536)
 *     -timeout=S     an input running longer than S seconds is a failure (default 10)
 *     -rss_limit_mb=N  a process larger than N MB after an input is a failure (default 2048)
 *     -seed_inputs=F1,F2,...  more starting inputs, in this order
 *
 * Without coverage feedback it finds less than libFuzzer, but it runs the same bounds. A failing
 * input is written to crash-N, timeout-N or oom-N in the current folder, as libFuzzer does, and
 * the driver exits non-zero.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct { uint8_t *data; size_t size; } blob;

/* ---- the input being run, saved when it fails ------------------------------------------------- */

static const uint8_t *current;
static size_t current_size;
static long current_index;

/* Async-signal-safe: called from the alarm handler and ASan's death callback. */
static void save_current(const char *kind) {
    char name[64];
    int n = snprintf(name, sizeof name, "%s-%ld", kind, current_index);
    if (n <= 0) return;
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    for (size_t off = 0; current && off < current_size;) {
        ssize_t w = write(fd, current + off, current_size - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(fd);
    const char msg[] = "standalone fuzz driver: failing input written to ";
    (void)!write(2, msg, sizeof msg - 1);
    (void)!write(2, name, (size_t)n);
    (void)!write(2, "\n", 1);
}

static void on_alarm(int sig) {
    (void)sig;
    const char msg[] = "standalone fuzz driver: an input ran past -timeout\n";
    (void)!write(2, msg, sizeof msg - 1);
    save_current("timeout");
    _exit(70);
}

static void on_death(void) { save_current("crash"); }
static void on_signal(int sig) {
    save_current("crash");
    signal(sig, SIG_DFL);
    raise(sig);
}

/* AddressSanitizer calls this before it exits on a finding (weak: absent without ASan). */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static long rss_limit_mb = 2048;
static unsigned timeout_s = 10;

static void run_one(const uint8_t *data, size_t size) {
    current = data;
    current_size = size;
    alarm(timeout_s);
    LLVMFuzzerTestOneInput(data, size);
    alarm(0);
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) == 0 && u.ru_maxrss / 1024 > rss_limit_mb) {
        fprintf(stderr, "standalone fuzz driver: the process reached %ld MB, over -rss_limit_mb=%ld\n", u.ru_maxrss / 1024,
                rss_limit_mb);
        save_current("oom");
        exit(71);
    }
    current_index++;
}

/* ---- mutations -------------------------------------------------------------------------------- */

static size_t mutate(uint8_t *buf, size_t size, size_t cap, const blob *seeds, size_t n_seeds) {
    int rounds = 1 + (int)(next() % 4);
    for (int r = 0; r < rounds; r++) {
        size_t at = size ? next() % size : 0;
        switch (next() % 7) {
        case 0: if (size) buf[at] ^= (uint8_t)(1u << (next() % 8)); break;
        case 1: if (size) buf[at] = (uint8_t)next(); break;
        case 2: if (size < cap) { memmove(buf + at + 1, buf + at, size - at); buf[at] = "{}[]:,\"-~\n 0#&*!'9(|?"[next() % 21]; size++; } break;
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

/* ---- corpus ----------------------------------------------------------------------------------- */

static int read_file(const char *path, blob *b) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 1 << 16;
    b->data = malloc(cap);
    b->size = 0;
    size_t got;
    while (b->data && (got = fread(b->data + b->size, 1, cap - b->size, f)) > 0) {
        b->size += got;
        if (b->size == cap) b->data = realloc(b->data, cap *= 2);
    }
    fclose(f);
    return b->data ? 0 : -1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends every regular file of dir, in name order (readdir's order differs between machines). */
static void add_folder(const char *dir, blob **seeds, size_t *n) {
    DIR *d = opendir(dir);
    if (!d) return;
    char **names = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        names = realloc(names, (count + 1) * sizeof *names);
        names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        blob b;
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && read_file(path, &b) == 0) {
            *seeds = realloc(*seeds, (*n + 1) * sizeof **seeds);
            (*seeds)[(*n)++] = b;
        }
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv) {
    long runs = 20000, seed = 1;
    double max_seconds = 0;
    size_t max_len = 1 << 16;
    blob *seeds = NULL;
    size_t n = 0;
    int files_only = 1, any = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "-runs=", 6)) runs = atol(a + 6);
        else if (!strncmp(a, "-seed=", 6)) seed = atol(a + 6);
        else if (!strncmp(a, "-max_total_time=", 16)) max_seconds = atof(a + 16);
        else if (!strncmp(a, "-max_len=", 9)) max_len = (size_t)atol(a + 9);
        else if (!strncmp(a, "-timeout=", 9)) timeout_s = (unsigned)atoi(a + 9);
        else if (!strncmp(a, "-rss_limit_mb=", 14)) rss_limit_mb = atol(a + 14);
        else if (!strncmp(a, "-seed_inputs=", 13)) {
            files_only = 0;
            any = 1;
            char *list = strdup(a + 13);
            for (char *save = NULL, *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
                blob b;
                if (read_file(f, &b) != 0) { fprintf(stderr, "%s: cannot read it\n", f); return 2; }
                seeds = realloc(seeds, (n + 1) * sizeof *seeds);
                seeds[n++] = b;
            }
            free(list);
        }
        else if (a[0] == '-') continue; /* other libFuzzer flags: not ours */
        else {
            struct stat st;
            any = 1;
            if (stat(a, &st) == 0 && S_ISDIR(st.st_mode)) {
                files_only = 0;
                add_folder(a, &seeds, &n);
            } else {
                blob b;
                if (read_file(a, &b) != 0) { fprintf(stderr, "%s: cannot read it\n", a); return 2; }
                seeds = realloc(seeds, (n + 1) * sizeof *seeds);
                seeds[n++] = b;
            }
        }
    }
    if (!any) {
        fprintf(stderr, "usage: %s [-seed=N] [-runs=N] [-max_len=N] [-timeout=S] [-rss_limit_mb=N] CORPUS_DIR... | FILE...\n", argv[0]);
        return 2;
    }
    if (!n) {
        fprintf(stderr, "no inputs in the corpus\n");
        return 2;
    }
    signal(SIGALRM, on_alarm);
    signal(SIGSEGV, on_signal);
    signal(SIGABRT, on_signal);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_death);
    rng = 0x2545F4914F6CDD1Dull ^ (uint64_t)seed * 0x9E3779B97F4A7C15ull;
    if (!rng) rng = 1;
    for (size_t i = 0; i < n; i++) run_one(seeds[i].data, seeds[i].size);
    long done = 0;
    if (!files_only) {
        uint8_t *buf = malloc(max_len);
        time_t start = time(NULL);
        for (; max_seconds > 0 ? difftime(time(NULL), start) < max_seconds : done < runs; done++) {
            const blob *s = &seeds[next() % n];
            size_t size = s->size < max_len ? s->size : max_len;
            memcpy(buf, s->data, size);
            size = mutate(buf, size, max_len, seeds, n);
            run_one(buf, size);
        }
        free(buf);
    }
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    printf("standalone fuzz driver: %zu corpus inputs, %ld mutated inputs from seed %ld, no failure, peak %ld MB\n", n, done,
           seed, u.ru_maxrss / 1024);
    for (size_t i = 0; i < n; i++) free(seeds[i].data);
    free(seeds);
    return 0;
}
