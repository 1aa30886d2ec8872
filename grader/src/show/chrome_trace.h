/*
 * chrome_trace.h: a Chrome Trace Event JSON file (ui.perfetto.dev and chrome://tracing open it).
 *
 * For each run (variant) of a recording, three processes:
 *   "<variant>: host API"  one thread lane per OS thread, runtime and driver API calls
 *   "<variant>: GPU"       one lane per CUDA stream: kernels, memcpys, memsets
 *   "<variant>: NVTX"      one lane per OS thread, the ranges, nested by time
 * and a flow arrow from every launching API call to the kernel or copy it launched. A run of
 * several processes (ranks, docs/capture-format.md) has the three per rank, named
 * "<variant> rank <r>: ...": one host, NVTX and GPU lane set per process.
 *
 * What it shows: ui.perfetto.dev and chrome://tracing open a JSON trace zoomed to fit all of its
 * events and read no viewport hint from the file (Perfetto's JSON reader takes traceEvents,
 * systemTraceEvents and displayTimeUnit, and ignores the last), so a trace of the whole run would
 * open on a second of start-up with the measured steps a sliver at its end. By default each
 * run's part is therefore its profiled window (cudaProfilerStart to Stop, 5% of its length added
 * on each side), times in microseconds from the start of that span; records straddling an edge
 * are clipped (an NVTX range says so in args.clipped_to_the_shown_span). whole_run = 1 keeps
 * every record, times from the run's first record. A capture without a window is shown whole.
 */
#ifndef WB_CHROME_TRACE_H
#define WB_CHROME_TRACE_H

#include "wb_capture.h"
#include "wb_base.h"

#include <jansson.h>

/* Output bounded like input (docs/limits.md): a file holds at most wb_trace_max_records() API
 * calls, kernels, memsets, memcpys and NVTX ranges, shared evenly by its processes (each rank of
 * each run); a process with more is written up to the time of its first record past its share,
 * and an instant event "trace cut here" there says how many records follow (otherData's
 * records_left_out adds them up). WB_TRACE_MAX_RECORDS sets the bound (tests lower it). */
#define WB_TRACE_MAX_RECORDS_DEFAULT 400000
size_t wb_trace_max_records(void);

/* The trace as a JSON object (caller json_decref's it). */
json_t *wb_chrome_trace(const wb_recording *rec); /* the profiled windows */
json_t *wb_chrome_trace_of(const wb_recording *rec, int whole_run);
int wb_chrome_trace_write(const wb_recording *rec, const char *path, wb_error *err);
/* left_out (may be NULL) gets the records the bound left out. */
int wb_chrome_trace_write_of(const wb_recording *rec, int whole_run, const char *path, size_t *left_out, wb_error *err);

#endif
