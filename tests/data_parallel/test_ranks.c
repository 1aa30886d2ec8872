/*
 * test_ranks.c: lesson 06's launcher (lessons/06_data_parallel/ranks.c) without a GPU. It runs
 * itself as the launcher and as its ranks, the way the lesson does:
 *
 *   test_ranks DIR share N   N ranks; rank 0 makes a 128-byte id (its pid and the time), every
 *                            rank writes what it holds to DIR/rank<r>; the launcher then checks
 *                            that all N files exist and are equal, and that each rank saw
 *                            WB_RANK and WB_WORLD_SIZE
 *   test_ranks DIR fail N    rank N-1 exits 3 at once, the others wait for ever for an id that
 *                            never comes (as they would inside NCCL): the launcher must stop them
 *                            and return 3 within seconds
 * Prints PASS or FAIL; exit 0 only on PASS.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ranks.h"

static int run_rank(const dp_rank_info *id, const char *dir, const char *mode) {
    unsigned char blob[128] = {0};
    if (!strcmp(mode, "fail")) {
        if (id->rank == id->world - 1) return 3;
        if (id->rank > 0) {
            dp_share_id(id, blob, sizeof blob); /* rank 0 never sends: waits until stopped */
            return 0;
        }
        pause(); /* rank 0: stopped by the launcher */
        return 0;
    }
    if (id->rank == 0) snprintf((char *)blob, sizeof blob, "id of pid %d at %ld", (int)getpid(), (long)time(NULL));
    if (dp_share_id(id, blob, sizeof blob) != 0) return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d", dir, id->rank);
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    fprintf(f, "%d %d ", id->rank, id->world);
    fwrite(blob, 1, sizeof blob, f);
    return fclose(f) == 0 ? 0 : 1;
}

static int check_shared(const char *dir, int n) {
    char first[256] = {0};
    for (int r = 0; r < n; r++) {
        char path[4096], buf[256] = {0}, want[32];
        snprintf(path, sizeof path, "%s/rank%d", dir, r);
        FILE *f = fopen(path, "rb");
        if (!f) return printf("FAIL: rank %d wrote nothing\n", r), 1;
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        int skip = snprintf(want, sizeof want, "%d %d ", r, n);
        if (got < (size_t)skip + 128 || memcmp(buf, want, (size_t)skip))
            return printf("FAIL: rank %d: wrong rank or world size\n", r), 1;
        if (r == 0) memcpy(first, buf + skip, 128);
        else if (memcmp(first, buf + skip, 128)) return printf("FAIL: rank %d holds another id\n", r), 1;
        if (!first[0]) return printf("FAIL: the id is empty\n"), 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s DIR share|fail N\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1], *mode = argv[2];
    int n = atoi(argv[3]);
    dp_rank_info id;
    int is_rank = dp_rank_from_env(&id);
    if (is_rank < 0) return 2;
    if (is_rank) return run_rank(&id, dir, mode);

    time_t t0 = time(NULL);
    int rc = dp_launch_ranks(n, argv);
    if (!strcmp(mode, "fail")) {
        if (rc != 3) return printf("FAIL: the launcher returned %d, not the failing rank's 3\n", rc), 1;
        if (time(NULL) - t0 > 20) return printf("FAIL: the other ranks were not stopped\n"), 1;
        printf("PASS: rank %d failed with 3; the launcher stopped the others and returned 3\n", n - 1);
        return 0;
    }
    if (rc != 0) return printf("FAIL: the launcher returned %d\n", rc), 1;
    if (check_shared(dir, n)) return 1;
    printf("PASS: %d ranks started, each with its WB_RANK and WB_WORLD_SIZE, and all hold rank 0's id\n", n);
    return 0;
}
