/*
 * capture_store.h: the records the capture library collects inside a lesson process.
 *
 * CUPTI hands us activity records in buffers that it reuses, so every record we keep is copied
 * here (strings included) the moment its buffer completes. Appends are serialised by one mutex:
 * CUPTI may complete buffers on its own worker thread while the program's threads flush theirs.
 */
#ifndef WB_CAPTURE_STORE_H
#define WB_CAPTURE_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef enum { WB_API_RUNTIME = 0, WB_API_DRIVER = 1 } wb_api_domain;

typedef struct {
    const char *name;        /* without the _vNNNN suffix, e.g. "cudaLaunchKernel" */
    wb_api_domain domain;
    uint64_t start, end;     /* ns, CUPTI clock */
    uint32_t correlation_id;
    uint32_t thread_id;
    uint32_t return_value;
} wb_rec_api;

typedef struct {
    const char *mangled;     /* as the driver reports it */
    const char *demangled;   /* same as mangled for extern "C" kernels */
    int32_t grid[3], block[3];
    uint32_t cluster[3];
    uint16_t registers_per_thread;
    int32_t static_shared, dynamic_shared;
    uint32_t stream_id, device_id, context_id;
    uint64_t start, end;
    uint32_t correlation_id;
    uint32_t graph_id;       /* 0 when not launched from a CUDA graph */
    uint64_t graph_node_id;
} wb_rec_kernel;

typedef struct {
    uint8_t copy_kind;       /* CUpti_ActivityMemcpyKind */
    uint8_t src_kind, dst_kind; /* CUpti_ActivityMemoryKind: pageable, pinned, device, ... */
    uint8_t async;           /* CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC: issued by an async API call */
    uint64_t bytes;
    uint32_t stream_id, device_id;
    uint64_t start, end;
    uint32_t correlation_id;
    uint32_t graph_id;
} wb_rec_memcpy;

typedef struct {
    uint32_t value;
    uint64_t bytes;
    uint32_t stream_id, device_id;
    uint64_t start, end;
    uint32_t correlation_id;
    uint32_t graph_id;
} wb_rec_memset;

/* One NVTX marker event as CUPTI reports it: a range's start and its end arrive as two records
 * that share an id; an instantaneous mark arrives as one. */
typedef struct {
    uint32_t id;
    uint32_t flags;          /* CUpti_ActivityFlag: MARKER_START, MARKER_END, MARKER_INSTANTANEOUS */
    uint64_t timestamp;
    uint32_t thread_id;
    const char *name;        /* NULL on end records */
    const char *domain;      /* NULL for the default domain */
} wb_rec_marker;

typedef struct {
    char name[256];
    int cc_major, cc_minor;
    uint32_t multiprocessors;
    uint64_t global_memory_bytes;
    uint32_t id;
    int seen;
} wb_rec_device;

typedef struct {
    wb_rec_api *api;         size_t n_api, cap_api;
    wb_rec_kernel *kernels;  size_t n_kernels, cap_kernels;
    wb_rec_memcpy *memcpys;  size_t n_memcpys, cap_memcpys;
    wb_rec_memset *memsets;  size_t n_memsets, cap_memsets;
    wb_rec_marker *markers;  size_t n_markers, cap_markers;
    wb_rec_device devices[16]; size_t n_devices;
    uint64_t dropped_records;
    size_t out_of_memory;    /* records we could not keep because malloc failed */
} wb_store;

/* Appends return 0, or -1 when memory ran out (the record is counted as lost). */
void wb_store_lock(void);
void wb_store_unlock(void);
wb_store *wb_store_get(void);              /* the process-wide store; call under the lock */
int wb_store_add_api(const wb_rec_api *r);
int wb_store_add_kernel(const wb_rec_kernel *r);
int wb_store_add_memcpy(const wb_rec_memcpy *r);
int wb_store_add_memset(const wb_rec_memset *r);
int wb_store_add_marker(const wb_rec_marker *r);
void wb_store_add_device(const wb_rec_device *r);
const char *wb_store_intern(const char *s); /* a copy that lives until exit; NULL stays NULL */

#endif
