/*
 * gpu_graph.c: a captured step's small memset nodes (cuBLASLt's 4-byte counters) become kernel
 * nodes (backend_cuda.cu, graph_end) that zero exactly what the memsets zeroed; large memsets
 * keep their node. Label `gpu`; exits 1 when a check fails, 77 without a GPU.
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "wb_check.h"

#define SMALL 64
#define BIG 65536

static int check(const unsigned char *p, size_t n, size_t zero_from, size_t zero_to, const char *what) {
    for (size_t i = 0; i < n; i++) {
        unsigned char want = i >= zero_from && i < zero_to ? 0 : 0xAB;
        if (p[i] != want) {
            printf("FAIL %s: byte %zu is 0x%02x, expected 0x%02x\n", what, i, p[i], want);
            return 1;
        }
    }
    printf("PASS %s\n", what);
    return 0;
}

int main(void) {
    wb_backend *be;
    if (wb_backend_cuda_create(&be, 0) != WB_OK) return 77;
    static unsigned char host[BIG], poison[BIG];
    memset(poison, 0xAB, sizeof poison);
    void *small = NULL, *big = NULL;
    int fails = be->alloc(be, &small, SMALL) != WB_OK || be->alloc(be, &big, BIG) != WB_OK;
    /* the recording: a 4-byte memset (as cuBLASLt's) and a 64 KB one; capturing runs nothing */
    fails += fails || be->graph_begin(be) != WB_OK || be->memset0(be, (char *)small + 8, 4) != WB_OK ||
             be->memset0(be, big, BIG) != WB_OK || be->graph_end(be) != WB_OK;
    int replaced = fails ? -1 : wb_backend_cuda_graph_small_memsets(be);
    printf("%s small memset nodes replaced: %d (expected 1)\n", replaced == 1 ? "PASS" : "FAIL", replaced);
    fails += replaced != 1;
    for (int launch = 0; launch < 2 && !fails; launch++) { /* poisoned before every replay */
        fails += be->to_device(be, small, poison, SMALL) != WB_OK || be->to_device(be, big, poison, BIG) != WB_OK;
        fails += fails || be->graph_launch(be, NULL) != WB_OK || be->sync(be) != WB_OK;
        fails += fails || be->to_host(be, host, small, SMALL) != WB_OK;
        fails += fails || check(host, SMALL, 8, 12, "the 4-byte memset, now a kernel node");
        fails += fails || be->to_host(be, host, big, BIG) != WB_OK;
        fails += fails || check(host, BIG, 0, BIG, "the 64 KB memset, still a memset node");
    }
    be->free(be, small), be->free(be, big);
    be->destroy(be);
    printf("%s\n", fails ? "FAILED" : "all passed");
    return fails ? 1 : 0;
}
