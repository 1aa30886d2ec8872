/*
 * capture_inject.c: the CUPTI injection entry point of libwb_capture.so.
 *
 * The grader starts a lesson program with CUDA_INJECTION64_PATH naming this library; the CUDA
 * driver loads it during cuInit and calls InitializeInjection(), so lesson programs link no
 * capture code and run unchanged under other tools. We enable CUPTI's activity API for kernels,
 * memcpys, memsets, runtime and driver API calls, NVTX markers and devices, copy every record
 * into the store as buffers complete, and write one JSON capture file (capture_write.c) when the
 * process exits: normally (atexit), or on a fatal signal (best effort, guarded by an alarm so a
 * wedged driver cannot hang the grader).
 *
 * Environment:
 *   WB_CAPTURE_OUT          where to write the capture (default: wb-capture-<pid>.json)
 *   WB_RANK, WB_WORLD_SIZE  set by a multi-process lesson in each rank before its first CUDA call:
 *                           the capture then goes to $WB_CAPTURE_OUT.rank<r>, with the rank and
 *                           the world size in its header, and the grader merges the ranks' files
 *                           (docs/capture-format.md, "Several processes")
 *   NVTX_INJECTION64_PATH   must name this library (capture_nvtx.c forwards NVTX to the libcupti
 *                           it records with), or CUPTI receives no NVTX ranges; the grader sets it
 *                           (recorded in the capture so a missing one can be reported)
 */
#include "capture_store.h"
#include "capture_write.h"
#include "timings.h"

#include <cuda.h>
#include <cupti.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* CUDA 13's CUPTI delivers Kernel10 and Memcpy6 records; CUDA 12's, Kernel9 and Memcpy5. */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 wb_cupti_kernel;
typedef CUpti_ActivityMemcpy6 wb_cupti_memcpy;
#else
typedef CUpti_ActivityKernel9 wb_cupti_kernel;
typedef CUpti_ActivityMemcpy5 wb_cupti_memcpy;
#endif

#define ACTIVITY_BUFFER_BYTES (8u << 20)
#define CRASH_FLUSH_SECONDS 10

static atomic_int capture_written;
static uint64_t cupti_start_ns;
static int cupti_ok;

/* Library code: report and return, never exit. The lesson keeps running without a capture. */
static int cupti_check(CUptiResult rc, const char *expr, int line) {
    if (rc == CUPTI_SUCCESS) return 0;
    const char *msg = NULL;
    cuptiGetResultString(rc, &msg);
    fprintf(stderr, "[wb-capture] %s failed at capture_inject.c:%d: %s\n", expr, line,
            msg ? msg : "unknown CUPTI error");
    return -1;
}
#define CUPTI_TRY(expr) cupti_check((expr), #expr, __LINE__)

/* ---- turning CUPTI records into store records ------------------------------------------- */

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": the suffix is CUPTI's ABI version, not part of
 * the name a learner writes. Copies into buf. */
static const char *strip_version_suffix(const char *name, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", name ? name : "?");
    char *v = strrchr(buf, '_');
    if (v && v[1] == 'v' && v[2] >= '0' && v[2] <= '9') {
        char *d = v + 2;
        while (*d >= '0' && *d <= '9') d++;
        if (*d == '\0') *v = '\0';
    }
    return buf;
}

static void take_api(const CUpti_ActivityAPI *a, wb_api_domain domain) {
    const char *raw = NULL;
    CUpti_CallbackDomain cb_domain =
        domain == WB_API_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    if (cuptiGetCallbackName(cb_domain, a->cbid, &raw) != CUPTI_SUCCESS) raw = NULL;
    char buf[256];
    wb_rec_api r = {
        .name = wb_store_intern(strip_version_suffix(raw, buf, sizeof buf)),
        .domain = domain,
        .start = a->start,
        .end = a->end,
        .correlation_id = a->correlationId,
        .thread_id = a->threadId,
        .return_value = a->returnValue,
    };
    wb_store_add_api(&r);
}

static void take_kernel(const wb_cupti_kernel *k) {
    wb_rec_kernel r = {
        .mangled = wb_store_intern(k->name ? k->name : "?"),
        .grid = {k->gridX, k->gridY, k->gridZ},
        .block = {k->blockX, k->blockY, k->blockZ},
        .cluster = {k->clusterX, k->clusterY, k->clusterZ},
        .registers_per_thread = k->registersPerThread,
        .static_shared = k->staticSharedMemory,
        .dynamic_shared = k->dynamicSharedMemory,
        .stream_id = k->streamId,
        .device_id = k->deviceId,
        .context_id = k->contextId,
        .start = k->start,
        .end = k->end,
        .correlation_id = k->correlationId,
        .graph_id = k->graphId,
        .graph_node_id = k->graphNodeId,
    };
    wb_store_add_kernel(&r);
}

static void take_memcpy(const wb_cupti_memcpy *m) {
    wb_rec_memcpy r = {
        .copy_kind = m->copyKind, .src_kind = m->srcKind, .dst_kind = m->dstKind,
        .async = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0, .bytes = m->bytes, .stream_id = m->streamId,
        .device_id = m->deviceId, .start = m->start, .end = m->end,
        .correlation_id = m->correlationId, .graph_id = m->graphId,
    };
    wb_store_add_memcpy(&r);
}

static void take_memset(const CUpti_ActivityMemset4 *m) {
    wb_rec_memset r = {
        .value = m->value, .bytes = m->bytes, .stream_id = m->streamId,
        .device_id = m->deviceId, .start = m->start, .end = m->end,
        .correlation_id = m->correlationId, .graph_id = m->graphId,
    };
    wb_store_add_memset(&r);
}

static void take_marker(const CUpti_ActivityMarker2 *m) {
    wb_rec_marker r = {
        .id = m->id,
        .flags = (uint32_t)m->flags,
        .timestamp = m->timestamp,
        .thread_id = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0,
        .name = wb_store_intern(m->name),
        .domain = wb_store_intern(m->domain),
    };
    wb_store_add_marker(&r);
}

static void take_device(const CUpti_ActivityDevice5 *d) {
    wb_rec_device r = {
        .cc_major = (int)d->computeCapabilityMajor,
        .cc_minor = (int)d->computeCapabilityMinor,
        .multiprocessors = d->numMultiprocessors,
        .global_memory_bytes = d->globalMemorySize,
        .id = d->id,
        .seen = 1,
    };
    snprintf(r.name, sizeof r.name, "%s", d->name ? d->name : "unknown");
    wb_store_add_device(&r);
}

static void take_record(const CUpti_Activity *rec) {
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME: take_api((const CUpti_ActivityAPI *)rec, WB_API_RUNTIME); break;
    case CUPTI_ACTIVITY_KIND_DRIVER: take_api((const CUpti_ActivityAPI *)rec, WB_API_DRIVER); break;
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: take_kernel((const wb_cupti_kernel *)rec); break;
    case CUPTI_ACTIVITY_KIND_MEMCPY: take_memcpy((const wb_cupti_memcpy *)rec); break;
    case CUPTI_ACTIVITY_KIND_MEMSET: take_memset((const CUpti_ActivityMemset4 *)rec); break;
    case CUPTI_ACTIVITY_KIND_MARKER: take_marker((const CUpti_ActivityMarker2 *)rec); break;
    case CUPTI_ACTIVITY_KIND_DEVICE: take_device((const CUpti_ActivityDevice5 *)rec); break;
    default: break;
    }
}

/* ---- CUPTI buffer callbacks ------------------------------------------------------------- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = aligned_alloc(8, ACTIVITY_BUFFER_BYTES);
    *size = *buffer ? ACTIVITY_BUFFER_BYTES : 0;
    *max_records = 0; /* as many as fit */
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                      size_t size, size_t valid_size) {
    CUpti_Activity *rec = NULL;
    for (;;) {
        CUptiResult rc = cuptiActivityGetNextRecord(buffer, valid_size, &rec);
        if (rc == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
        if (CUPTI_TRY(rc) != 0) break;
        take_record(rec);
    }
    size_t dropped = 0;
    if (CUPTI_TRY(cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped)) == 0 && dropped) {
        wb_store_lock();
        wb_store_get()->dropped_records += dropped;
        wb_store_unlock();
    }
    free(buffer);
}

/* ---- writing the capture at exit -------------------------------------------------------- */

/* WB_RANK and WB_WORLD_SIZE: a decimal number below 65536, else -1 (unset or not a number). */
static int env_number(const char *name) {
    const char *v = getenv(name);
    if (!v || !*v || strlen(v) > 5) return -1;
    for (const char *c = v; *c; c++)
        if (*c < '0' || *c > '9') return -1;
    int n = atoi(v);
    return n < 65536 ? n : -1;
}

static void write_capture_once(int signal_number) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&capture_written, &expected, 1)) return;
    wb_timing_mark("capture: the program's own work");
    if (cupti_ok) CUPTI_TRY(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    wb_timing_mark("capture: CUPTI flush");

    const char *base = getenv("WB_CAPTURE_OUT");
    char fallback[64];
    if (!base || !*base) {
        snprintf(fallback, sizeof fallback, "wb-capture-%d.json", (int)getpid());
        base = fallback;
    }
    /* One file per rank of a multi-process lesson: the ranks share WB_CAPTURE_OUT (they inherit
     * it), so each adds its rank to the name. A WB_RANK that is no number is reported and the
     * plain path used: the grader then names the rank as missing. */
    int rank = env_number("WB_RANK");
    if (rank < 0 && getenv("WB_RANK"))
        fprintf(stderr, "[wb-capture] WB_RANK=%s is not a rank number (0, 1, ...); writing the capture to %s\n",
                getenv("WB_RANK"), base);
    char ranked[4200];
    const char *out = base;
    if (rank >= 0) {
        snprintf(ranked, sizeof ranked, "%s.rank%d", base, rank);
        out = ranked;
    }
    wb_capture_meta meta = {
        .signal_number = signal_number,
        .cupti_start_ns = cupti_start_ns,
        .cupti_enabled = cupti_ok,
        .nvtx_injection = getenv("NVTX_INJECTION64_PATH"),
        .rank = rank,
        .world_size = rank >= 0 ? env_number("WB_WORLD_SIZE") : -1,
    };
    char err[512];
    if (wb_capture_write(out, &meta, err, sizeof err) != 0)
        fprintf(stderr, "[wb-capture] could not write the capture to %s: %s\n", out, err);
    wb_timing_mark("capture: capture file written");
}

static void at_exit(void) { write_capture_once(0); }

static void on_fatal_signal(int sig) {
    /* Not async-signal-safe, and cannot be: CUPTI must flush and the file must be written. The
     * alarm bounds the damage if the driver is wedged; the default action then ends the process. */
    signal(SIGALRM, SIG_DFL);
    alarm(CRASH_FLUSH_SECONDS);
    write_capture_once(sig);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signal_handlers(void) {
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        struct sigaction sa;
        struct sigaction old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sa.sa_flags = SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        /* Leave handlers the program installed itself alone. */
        if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(fatal[i], &sa, NULL);
    }
}

/* ---- entry point ------------------------------------------------------------------------ */

int InitializeInjection(void) {
    wb_timing_mark("capture: injected (exec to cuInit)");
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_DEVICE,  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        CUPTI_ACTIVITY_KIND_MEMCPY,  CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
        CUPTI_ACTIVITY_KIND_MARKER,
    };
    if (CUPTI_TRY(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) != 0)
        goto register_exit;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (CUPTI_TRY(cuptiActivityEnable(kinds[i])) != 0) goto register_exit;
    if (CUPTI_TRY(cuptiGetTimestamp(&cupti_start_ns)) != 0) goto register_exit;
    cupti_ok = 1;

register_exit:
    wb_timing_mark("capture: CUPTI enabled");
    /* Even when CUPTI refused (e.g. CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), a capture is written:
     * it says cupti_enabled=false, which the grader turns into a clear message. */
    atexit(at_exit);
    install_signal_handlers();
    return 1;
}
