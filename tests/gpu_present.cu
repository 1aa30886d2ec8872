// gpu_present [N]: exit 0 when N CUDA devices (default 1) can be used, 77 (ctest's "skipped") otherwise.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = 0, want = argc > 1 ? atoi(argv[1]) : 1;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || n == 0) {
        printf("no CUDA device (%s): GPU test skipped\n", err != cudaSuccess ? cudaGetErrorString(err) : "count 0");
        return 77;
    }
    if (n < want) {
        printf("%d CUDA device%s, the test needs %d: skipped\n", n, n == 1 ? "" : "s", want);
        return 77;
    }
    return 0;
}
