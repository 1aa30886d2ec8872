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

int wb_device_identity(char *uuid, size_t uuid_cap, char *driver, size_t driver_cap) {
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return -1;
    const unsigned char *b = (const unsigned char *)prop.uuid.bytes;
    snprintf(uuid, uuid_cap, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    driver[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r"); /* "NVRM version: NVIDIA UNIX ... Kernel Module  580.159.04  ..." */
    char line[512];
    if (f && fgets(line, sizeof line, f)) {
        const char *m = strstr(line, "Kernel Module");
        char version[64];
        if (m && sscanf(m + strlen("Kernel Module"), " %63s", version) == 1) snprintf(driver, driver_cap, "%s", version);
    }
    if (f) fclose(f);
    int cuda = 0;
    if (!driver[0] && cudaDriverGetVersion(&cuda) == cudaSuccess && cuda > 0) snprintf(driver, driver_cap, "cuda %d", cuda);
    return driver[0] ? 0 : -1;
}
