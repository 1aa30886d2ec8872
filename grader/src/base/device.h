/*
 * device.h: is there a CUDA device here, and which architecture? Decides live capture or replay.
 */
#ifndef WB_DEVICE_H
#define WB_DEVICE_H

#include <stddef.h>

/* Number of usable CUDA devices (0 without a GPU or driver); fills arch ("sm_90") and name for
 * device 0. WB_FORCE_REPLAY=1 makes it report none (tests, and learners without a GPU). */
int wb_probe_device(char *arch, size_t arch_cap, char *name, size_t name_cap);

/* Device 0's identity, for caching what was measured on it: its UUID ("GPU-" and 32 hex digits,
 * from the CUDA runtime) and the driver's version (the kernel module's, from
 * /proc/driver/nvidia/version, else the CUDA version the driver supports). 0 when both are known. */
int wb_device_identity(char *uuid, size_t uuid_cap, char *driver, size_t driver_cap);

#endif
