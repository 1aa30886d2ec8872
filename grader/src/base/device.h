/*
 * device.h: is there a CUDA device here, and which architecture? Decides live capture or replay.
 */
#ifndef WB_DEVICE_H
#define WB_DEVICE_H

#include <stddef.h>

/* Number of usable CUDA devices (0 without a GPU or driver); fills arch ("sm_90") and name for
 * device 0. WB_FORCE_REPLAY=1 makes it report none (tests, and learners without a GPU). */
int wb_probe_device(char *arch, size_t arch_cap, char *name, size_t name_cap);

#endif
