/*
 * chrome_trace.h: a Chrome Trace Event JSON file (ui.perfetto.dev and chrome://tracing open it).
 *
 * For each run (variant) of a recording, three processes:
 *   "<variant>: host API"  one thread lane per OS thread, runtime and driver API calls
 *   "<variant>: GPU"       one lane per CUDA stream: kernels, memcpys, memsets
 *   "<variant>: NVTX"      one lane per OS thread, the ranges, nested by time
 * and a flow arrow from every launching API call to the kernel or copy it launched.
 * Times are microseconds from the run's first record.
 */
#ifndef WB_CHROME_TRACE_H
#define WB_CHROME_TRACE_H

#include "capture.h"
#include "error.h"

#include <jansson.h>

/* The trace as a JSON object (caller json_decref's it). */
json_t *wb_chrome_trace(const wb_recording *rec);
int wb_chrome_trace_write(const wb_recording *rec, const char *path, wb_error *err);

#endif
