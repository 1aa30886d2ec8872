// gpu_present: exit 0 when a CUDA device can be used, 77 (ctest's "skipped") otherwise.
#include <cuda_runtime.h>
#include <stdio.h>

int main(void) {
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || n == 0) {
        printf("no CUDA device (%s): GPU test skipped\n", err != cudaSuccess ? cudaGetErrorString(err) : "count 0");
        return 77;
    }
    return 0;
}
