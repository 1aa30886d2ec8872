/*
 * capture_write.h: writes the store as one capture file (docs/capture-format.md, version 1).
 */
#ifndef WB_CAPTURE_WRITE_H
#define WB_CAPTURE_WRITE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int signal_number;          /* 0 after a normal exit, else the fatal signal being handled */
    uint64_t cupti_start_ns;    /* CUPTI timestamp when the injection started */
    int cupti_enabled;          /* 0 when CUPTI refused to start (no records can follow) */
    const char *nvtx_injection; /* NVTX_INJECTION64_PATH as the process saw it, or NULL */
    int rank;                   /* WB_RANK of a multi-process lesson's rank, or -1 (a single process) */
    int world_size;             /* its WB_WORLD_SIZE, or -1 when unset or no number */
} wb_capture_meta;

/* Returns 0, or -1 with a message in err. Reads the store under its lock. */
int wb_capture_write(const char *path, const wb_capture_meta *meta, char *err, size_t err_cap);

#endif
