/*
 * wgmma_emu.cpp: wgmma_check.cuh's cases on the CPU emulation of wgmma (cuda_emu.h). gpu_wgmma.cu
 * runs the same cases on the GPU.
 */
#include "cuda_runtime_emu.h"

#include "wgmma.cuh"

#define WG_CHECK_LAUNCH(kern, threads, smem_bytes, ...) emu_launch(dim3(1), dim3(threads), [&] { kern(__VA_ARGS__); })
#include "wgmma_check.cuh"

int main(void) {
    int fails = wg_check_all();
    printf("%s: %d case(s) failed\n", fails ? "FAIL" : "PASS", fails);
    return fails ? 1 : 0;
}
