/* device.c: see device.h. */
#include "device.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wb_probe_device(char *arch, size_t arch_cap, char *name, size_t name_cap) {
    const char *force = getenv("WB_FORCE_REPLAY");
    if (force && *force && strcmp(force, "0") != 0) return 0;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) return 0;
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return 0;
    snprintf(arch, arch_cap, "sm_%d%d", prop.major, prop.minor);
    snprintf(name, name_cap, "%s", prop.name);
    return n;
}
