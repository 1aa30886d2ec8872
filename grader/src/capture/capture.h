/*
 * capture.h: one lesson process as the capture library saw it (docs/capture-format.md), and a
 * recording: one capture per variant of a lesson, as `grader record` stores it in traces/.
 *
 * Times are nanoseconds on CUPTI's clock. After loading, every API call knows whether it is
 * nested inside another call on its thread, every kernel, memcpy and memset knows the API call
 * that launched it (through the correlation id), and every NVTX range knows its parent.
 *
 * Cost: a capture is read one record at a time (json_stream.h) into the compact structs below;
 * names are stored once each (a capture holds a few hundred distinct names for a million
 * records). Loading, linking and each lookup below grow with the capture's size times a log, never
 * with ranges times API calls: docs/capture-format.md has the measured figures.
 */
#ifndef WB_CAPTURE_H
#define WB_CAPTURE_H

#include "wb_base.h"

#include <stddef.h>
#include <stdint.h>

#define WB_OPEN_END UINT64_MAX /* a range or window still open when the process ended */

typedef struct {
    char *name;          /* plain name, e.g. cudaLaunchKernel */
    int driver;          /* 1: driver API, 0: runtime API */
    uint64_t start, end;
    uint32_t correlation_id, thread;
    uint32_t return_value;
    int nested;          /* inside another API call on the same thread (made by the runtime itself) */
    int rank;            /* the process of a multi-process lesson that made it (0 for one process) */
} wb_api_call;

typedef struct {
    char *name, *mangled;
    int grid[3], block[3], cluster[3];
    int registers_per_thread, static_shared, dynamic_shared;
    uint32_t device, stream;
    uint64_t start, end;
    uint32_t correlation_id, graph_id;
    long api;            /* index of the launching API call, or -1 */
    int rank;
} wb_kernel;

typedef enum { WB_GPU_MEMCPY, WB_GPU_MEMSET } wb_gpu_op_kind;

typedef struct {
    wb_gpu_op_kind kind;
    char copy_kind[8];   /* memcpy: "HtoD", "DtoD", ... */
    char src_kind[16], dst_kind[16]; /* memcpy: "pageable", "pinned", "device", ...; "" when unknown */
    int async;           /* memcpy: 1 when an async API call issued it, 0 when not, -1 unknown */
    uint64_t bytes;
    uint32_t device, stream;
    uint64_t start, end;
    uint32_t correlation_id, graph_id;
    long api;
    int rank;
} wb_gpu_op;

typedef struct {
    char *name, *domain; /* domain NULL for the default domain */
    int is_mark;         /* an instantaneous marker */
    uint64_t start, end; /* end WB_OPEN_END when never closed */
    uint32_t thread;
    long parent;         /* enclosing range on the same thread, or -1 */
    int depth;
    int rank;
} wb_range;

typedef struct { uint64_t start, end; int rank; } wb_window;

typedef struct wb_strings wb_strings; /* the names of one capture, each stored once (capture.c) */

/* Lookups built once by wb_capture_link (capture_link.c), so that attribution never scans. */
typedef struct {
    long *api_by_time;      /* (n_api) API calls by (thread, start) */
    size_t *launch_first;   /* (n_api + 1) API call i launched launched[launch_first[i] .. launch_first[i+1]) */
    long *launched;         /* (n_kernels + n_ops) kernel k as k, memcpy/memset o as n_kernels + o */
    long *ranges_by_name;   /* (n_ranges) ranges by (name, start) */
    uint64_t *window_reach; /* (n_windows) the latest end among a rank's windows[first..i] (sorted by rank, start) */
    size_t *window_first;   /* (world_size + 1) rank r's windows are windows[window_first[r] .. window_first[r+1]) */
} wb_capture_index;

typedef struct {
    char gpu[256];
    char arch[16];       /* "sm_90" */
    char compute_capability[16];
    int multiprocessors;
    long long driver_version, runtime_version, cupti_version; /* -1 when unknown */
    char cublas_version[32];                                  /* "" when unknown */
    int complete, cupti_enabled, signal;
    char rank_problems[160];  /* merged from several processes: the ranks whose own capture was not
                                 complete or had no CUPTI ("rank 1: incomplete (signal 11)"); "" */
    int nvtx_injected;
    char written_at[32];
    uint64_t dropped_records, lost_records;
    wb_window *windows; size_t n_windows;                     /* cudaProfilerStart/Stop pairs */
    wb_api_call *api; size_t n_api;
    wb_kernel *kernels; size_t n_kernels;
    wb_gpu_op *ops; size_t n_ops;                              /* memcpys and memsets */
    wb_range *ranges; size_t n_ranges;
    uint64_t t0;         /* earliest timestamp: traces start here */
    uint64_t api_dropped_outside_window; /* API records grader record left out (the run's field) */
    int world_size;      /* processes merged into this capture (docs/capture-format.md, "Several
                            processes"); 1 for a single process. Every record's rank is below it.
                            Thread ids, correlation ids and streams are per process: every link
                            and lookup below keys on (rank, ...). */
    wb_strings *strings; /* owns every name above */
    wb_capture_index index;
} wb_capture;

typedef struct {
    char *variant;
    char **args; size_t n_args;
    int exit_code;       /* -1 when killed by a signal */
    int signal;
    int timed_out;       /* stopped by the grader for running past its time limit */
    char *output;        /* what the program printed (stdout and stderr as a terminal shows them), or NULL */
    int python;          /* a PyTorch variant: a Python script run by the interpreter */
    char torch[64], torch_cuda[32], triton[64]; /* its PyTorch, the CUDA PyTorch was built for, Triton; "" unknown */
    wb_capture capture;
} wb_run;

/* The GPU's ceilings, measured by the calibration program (grader/calibrate) on the GPU a capture
 * was made on, just before the lesson ran. Time facts' `bound` is judged against them. */
typedef struct {
    int present;
    double copy_bytes_per_s;   /* a large device-to-device cudaMemcpyAsync: bytes read + written per second */
    double matrix_flops_per_s; /* a large bf16 cuBLAS GEMM (fp32 accumulation) on random data */
    char gpu[256];
    char method[512];          /* sizes and repetitions, as the program reports them */
} wb_calibration;

/* One more live run of every variant, kept as the times of its ranges only (grader record
 * --repeat N keeps N-1 of these beside the full captures): enough to check that time facts hold
 * in every run, at a fraction of a capture's size. */
typedef struct {
    char *variant, *range;
    double *gpu_us, *wall_us; /* per occurrence, in time order */
    size_t n;
    int per_rank, rank;       /* per_rank 1: rank `rank`'s occurrences; 0 (as zeroed): over all ranks */
} wb_range_times;

typedef struct {
    wb_range_times *items;
    size_t n;
} wb_repeat;

typedef struct {
    char *path;          /* where it was read from, or NULL */
    char *lesson;
    char *recorded_at;
    wb_run *runs; size_t n_runs;
    wb_calibration calibration;
    wb_repeat *repeats; size_t n_repeats;
} wb_recording;

/* Reads a capture file written by libwb_capture.so. Corrupt files: exit 2 naming the field. */
int wb_capture_load(const char *path, wb_capture *out, wb_error *err);
int wb_capture_load_buffer(const char *what, const char *data, size_t length, wb_capture *out, wb_error *err);
void wb_capture_free(wb_capture *c);

/* Recordings: traces/sm_90.json. */
int wb_recording_load(const char *path, wb_recording *out, wb_error *err);
int wb_recording_load_buffer(const char *what, const char *data, size_t length, wb_recording *out, wb_error *err);
/* Writes a recording whose runs hold the capture files named in capture_paths, their text copied
 * as it is (never held as a JSON tree), each run's output, the calibration (when present) and
 * the repeats; with trim (the same runs, decoded), without the API records that wb_api_keep
 * leaves out (grader record). Through a temporary file of this process and a rename. */
typedef struct {
    const wb_calibration *calibration; /* may be NULL */
    const wb_repeat *repeats;
    size_t n_repeats;
    const wb_recording *trim;          /* may be NULL */
} wb_recording_extras;
int wb_recording_write(const char *path, const char *lesson, const char *recorded_at, const wb_run *runs,
                       const char *const *capture_paths, size_t n_runs, const wb_recording_extras *extras, wb_error *err);
/* The calibration object of a recording, from the calibration program's JSON output. */
int wb_calibration_from_json(const char *what, const char *data, size_t length, wb_calibration *out, wb_error *err);
void wb_repeat_free(wb_repeat *r);
/* Whether a trimmed recording keeps API record i: a capture without profiler windows keeps all;
 * else the calls that overlap a window and the launches of every kernel, memcpy and memset (most
 * of a recording is ~1,500 initialisation calls such as cuGetProcAddress, never graded). */
int wb_api_keep(const wb_capture *c, size_t i);
/* The recorded_at of a recording, read without its runs. 0, or -1 when unreadable. */
int wb_recording_recorded_at(const char *path, char *buf, size_t cap);
void wb_recording_free(wb_recording *r);
const wb_run *wb_recording_run(const wb_recording *r, const char *variant);

/* Facts and lookups derived after loading (also used by tests that build captures by hand; call
 * it again after adding records). Returns 0, or -1 when out of memory: then the capture must not
 * be graded (no link is half made). */
int wb_capture_link(wb_capture *c);
void wb_capture_index_free(wb_capture_index *x);

/* Gives every record without a rank (-1) the rank fallback; returns the highest rank of any
 * record, -1 when there is none. */
int wb_capture_settle_ranks(wb_capture *c, int fallback);

/* How many processes a capture holds: its world_size, at least 1 (also before linking). */
static inline int wb_capture_ranks(const wb_capture *c) { return c->world_size > 1 ? c->world_size : 1; }

/* A copy of s (n bytes) owned by the capture, shared with every equal name. NULL when out of
 * memory. */
char *wb_capture_intern(wb_capture *c, const char *s, size_t n);

/* Lookups (after wb_capture_link). Each returns a count and points *out at indices, in time order. */
/* API calls made by rank on thread that start in [from, to]. */
size_t wb_capture_api_between(const wb_capture *c, int rank, uint32_t thread, uint64_t from, uint64_t to, const long **out);
/* What API call api launched: kernel k as k, memcpy/memset o as n_kernels + o. */
size_t wb_capture_launched_by(const wb_capture *c, long api, const long **out);
/* Range names compare up to their first comma: PyTorch's per-operator ranges carry a call's
 * numbers after one ("aten::addmm, seq = 7, op_id = 5"), and a question names the operator
 * ("aten::addmm"). strcmp's order over those parts. */
int wb_range_name_cmp(const char *a, const char *b);
/* The ranges and marks named name (compared by wb_range_name_cmp). */
size_t wb_capture_ranges_named(const wb_capture *c, const char *name, const long **out);
/* range_pattern.c: a range name "re:PATTERN" names every range whose name, up to its first comma,
 * the POSIX extended regex matches (case-insensitive): for ranges a program names after what it
 * ran (an Inductor kernel), which a question must not spell out. */
int wb_range_is_pattern(const char *name);
/* Whether a range's name is the one want names: equal up to the first comma, or matched by it when
 * want is a pattern (0 for a pattern that does not compile: lesson.yaml's reader refuses those). */
int wb_range_name_matches(const char *want, const char *name);
/* The ranges and marks a pattern matches, in time order, in a new array *out (free it); their
 * count, or -1 (*out NULL) when out of memory or when the pattern does not compile. */
long wb_capture_ranges_matching(const wb_capture *c, const char *pattern, long **out);

#endif
