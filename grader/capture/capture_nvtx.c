/*
 * capture_nvtx.c: libwb_capture.so as the process's NVTX injection library.
 *
 * NVTX hands a program's ranges to whatever library NVTX_INJECTION64_PATH names, by calling its
 * InitializeInjectionNvtx2 (nvtx3/nvtxDetail/nvtxInit.h). CUPTI records them only when that
 * library is the very copy of libcupti whose activity API the capture enabled. A process may hold
 * two copies: `import torch` maps PyTorch's own libcupti.so.13 (site-packages/nvidia/cu13/lib)
 * before CUDA starts, and this library's CUPTI calls then bind to that copy, while a path to the
 * toolkit's libcupti in NVTX_INJECTION64_PATH loads a second one that records ranges nobody reads
 * (H200, PyTorch 2.11: kernels arrived, 0 of 7 ranges). So the grader names this library, and its
 * entry points forward to the libcupti this library is bound to, found from the address of a CUPTI
 * function it calls (dladdr), never by a name or path that could load another copy: one copy for
 * C programs and Python programs alike, whichever loaded libcupti first.
 *
 * The loader's three entry points all take one pointer (the export table getter) and return
 * nonzero on success; each is forwarded to libcupti's own symbol of the same name.
 */
#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <stdio.h>

typedef int (*nvtx_init_fn)(void *export_table);

/* libcupti's entry point `symbol` in the copy this library's CUPTI calls go to, or NULL (said on
 * stderr: the ranges are then lost, and the grader reports a capture without NVTX). */
static nvtx_init_fn bound_cupti_entry(const char *symbol, nvtx_init_fn self) {
    Dl_info info;
    if (!dladdr((void *)cuptiActivityEnable, &info) || !info.dli_fname) {
        fprintf(stderr, "[wb-capture] cannot tell which libcupti this process uses (dladdr); NVTX ranges are not captured\n");
        return NULL;
    }
    void *cupti = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD); /* already mapped: never a second copy */
    nvtx_init_fn f = cupti ? (nvtx_init_fn)dlsym(cupti, symbol) : NULL;
    if (cupti) dlclose(cupti); /* drops only the reference dlopen added */
    if (!f || f == self) {
        fprintf(stderr, "[wb-capture] %s has no %s; NVTX ranges are not captured\n", info.dli_fname, symbol);
        return NULL;
    }
    return f;
}

#define FORWARD_NVTX_ENTRY(name)                                          \
    int name(void *export_table) {                                        \
        nvtx_init_fn f = bound_cupti_entry(#name, (nvtx_init_fn)name);    \
        return f ? f(export_table) : 0;                                   \
    }

FORWARD_NVTX_ENTRY(InitializeInjectionNvtx2)          /* NVTX 3 (header-only, what lessons and PyTorch use) */
FORWARD_NVTX_ENTRY(InitializeInjectionNvtxExtension)  /* NVTX 3 extensions: payloads, counters, memory */
FORWARD_NVTX_ENTRY(InitializeInjectionNvtx)           /* libnvToolsExt.so.1 of older toolkits */
