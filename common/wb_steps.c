/* wb_steps.c: see wb_steps.h. The order of the CUDA calls inside the NVTX ranges below is what the
 * lessons' answer keys count; change it and every recorded trace and verified key needs redoing. */
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_check.h" /* after cuda_runtime_api.h: CUDA_CHECK needs the runtime API */
#include "wb_steps.h"
#include "wb_timing.h"

/* ---- one step ------------------------------------------------------------------------------- */

void wb_step_init(wb_step *s, cudaStream_t stream, wb_forward_fn forward, void *ctx) {
    s->stream = stream;
    s->forward = forward;
    s->ctx = ctx;
    s->graph = NULL;
}

int wb_step_capture(wb_step *s) {
    CUDA_CHECK(cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeGlobal));
    int rc = s->forward(s->ctx);
    cudaGraph_t graph = NULL;
    cudaError_t end = cudaStreamEndCapture(s->stream, &graph); /* always end a capture we began */
    if (rc != WB_OK) {
        if (graph) cudaGraphDestroy(graph);
        fprintf(stderr, "graph capture failed: forward() reported an error while capturing\n");
        return WB_FAIL;
    }
    CUDA_CHECK(end);
    cudaGraphExec_t exec = NULL;
    cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph); /* the executable graph keeps what it needs */
    CUDA_CHECK(inst);
    s->graph = exec;
    return WB_OK;
}

/* The step's contents: everything between its first and its last CUDA call is inside `step`. */
static int step_body(const wb_step *s, cudaEvent_t start, cudaEvent_t stop, wb_step_times *t) {
    double t0 = wb_now_us();
    if (start) CUDA_CHECK(cudaEventRecord(start, s->stream));
    if (s->graph) {
        nvtxRangePushA("graph_launch");
        cudaError_t err = cudaGraphLaunch(s->graph, s->stream);
        nvtxRangePop();
        CUDA_CHECK(err);
    } else {
        WB_TRY(s->forward(s->ctx));
    }
    if (stop) CUDA_CHECK(cudaEventRecord(stop, s->stream));
    double t1 = wb_now_us();
    nvtxRangePushA("sync");
    cudaError_t err = cudaDeviceSynchronize(); /* also reports errors of kernels that ran */
    nvtxRangePop();
    CUDA_CHECK(err);
    double t2 = wb_now_us();
    if (t) {
        t->launch_us = t1 - t0;
        t->sync_us = t2 - t1;
        t->wall_us = t2 - t0;
    }
    return WB_OK;
}

int wb_step_run(const wb_step *s, cudaEvent_t start, cudaEvent_t stop, wb_step_times *t) {
    nvtxRangePushA("step");
    int rc = step_body(s, start, stop, t);
    nvtxRangePop();
    return rc;
}

void wb_step_free(wb_step *s) {
    if (s->graph) cudaGraphExecDestroy(s->graph);
    memset(s, 0, sizeof *s);
}

/* ---- the measured steps --------------------------------------------------------------------- */

/* The arrays and the 2n events; outside the profiled window: creating an event is a CUDA call,
 * and no measured step should pay for it. */
static int steps_alloc(wb_steps *m, int n) {
    m->n = n;
    m->events = (cudaEvent_t *)calloc((size_t)2 * n, sizeof *m->events);
    m->span_us = (double *)malloc((size_t)n * sizeof *m->span_us);
    m->launch_us = (double *)malloc((size_t)n * sizeof *m->launch_us);
    m->sync_us = (double *)malloc((size_t)n * sizeof *m->sync_us);
    m->wall_us = (double *)malloc((size_t)n * sizeof *m->wall_us);
    if (!m->events || !m->span_us || !m->launch_us || !m->sync_us || !m->wall_us) {
        fprintf(stderr, "out of host memory for %d steps\n", n);
        return WB_FAIL;
    }
    for (int i = 0; i < 2 * n; i++) CUDA_CHECK(cudaEventCreate(&m->events[i]));
    return WB_OK;
}

int wb_steps_measure(wb_steps *m, const wb_step *s, int warmup, int n) {
    memset(m, 0, sizeof *m);
    for (int i = 0; i < warmup; i++) WB_TRY(wb_step_run(s, NULL, NULL, NULL));
    WB_TRY(steps_alloc(m, n));
    CUDA_CHECK(cudaProfilerStart());
    for (int i = 0; i < n; i++) {
        wb_step_times t;
        WB_TRY(wb_step_run(s, m->events[2 * i], m->events[2 * i + 1], &t));
        m->launch_us[i] = t.launch_us;
        m->sync_us[i] = t.sync_us;
        m->wall_us[i] = t.wall_us;
    }
    CUDA_CHECK(cudaProfilerStop());
    for (int i = 0; i < n; i++) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, m->events[2 * i], m->events[2 * i + 1]));
        m->span_us[i] = 1e3 * ms;
    }
    return WB_OK;
}

void wb_steps_print(const wb_steps *m) {
    wb_print_timing_header();
    wb_print_timing_row("GPU span per step (events)", m->span_us, m->n);
    wb_print_timing_row("host: launch calls", m->launch_us, m->n);
    wb_print_timing_row("host: cudaDeviceSynchronize", m->sync_us, m->n);
    wb_print_timing_row("wall time per step", m->wall_us, m->n);
    fputs(WB_SPAN_NOTE, stdout);
}

void wb_steps_free(wb_steps *m) {
    if (m->events)
        for (int i = 0; i < 2 * m->n; i++)
            if (m->events[i]) cudaEventDestroy(m->events[i]);
    free(m->events);
    free(m->span_us);
    free(m->launch_us);
    free(m->sync_us);
    free(m->wall_us);
    memset(m, 0, sizeof *m);
}
