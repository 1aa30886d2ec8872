/*
 * gpu_wgmma.cu: wgmma_check.cuh's cases on the GPU (sm_90a: Hopper). Exit 77 (skipped) without a
 * GPU of compute capability 9.x, 1 if a case fails. wgmma_emu.cpp runs the same cases on the CPU.
 */
#include "wgmma.cuh"

#define WG_CHECK_LAUNCH(kern, threads, smem_bytes, ...)                                                 \
    do {                                                                                               \
        cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (smem_bytes));          \
        kern<<<1, (threads), (smem_bytes)>>>(__VA_ARGS__);                                             \
    } while (0)
#include "wgmma_check.cuh"

int main(void) {
    int n = 0;
    cudaDeviceProp prop;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0 || cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    if (prop.major != 9) {
        printf("SKIP: %s is compute capability %d.%d; wgmma needs 9.x\n", prop.name, prop.major, prop.minor);
        return 77;
    }
    int fails = wg_check_all();
    printf("%s: %d case(s) failed on %s\n", fails ? "FAIL" : "PASS", fails, prop.name);
    return fails ? 1 : 0;
}
