/*
 * wb_steps.h: the steps a lesson program times, and the timing table it prints.
 *
 * Every lesson measures the same way. A step is the lesson's forward pass (or one replay of it
 * from a CUDA graph) followed by cudaDeviceSynchronize, so that each step's GPU work ends inside
 * the step. --steps of them run between cudaProfilerStart and cudaProfilerStop (the window the
 * grader reads); a pair of CUDA events around each step's launches gives its GPU time, the host
 * clock its launch, synchronize and wall times.
 *
 *     static int step_forward(void *ctx) { return forward((lesson *)ctx); }  // the lesson's launches
 *
 *     wb_step step = {0};                  // zeroed: both free functions are safe on every path
 *     wb_steps timed = {0};
 *     wb_step_init(&step, L.stream, step_forward, &L);
 *     if (graph_variant)                   // one eager step, then record it: steps replay the graph
 *         if (wb_step_run(&step, NULL, NULL, NULL) != WB_OK || wb_step_capture(&step) != WB_OK) ...
 *     if (wb_steps_measure(&timed, &step, warmup, steps) != WB_OK) ...
 *     wb_steps_print(&timed);              // the table; the medians: wb_median(timed.span_us, steps)
 *     wb_steps_free(&timed);
 *     wb_step_free(&step);
 *
 * NVTX ranges of a step (part of every lesson's interface; lesson.yaml lists them):
 *   step          the whole step: first event, launches, last event, the synchronize
 *   graph_launch  the cudaGraphLaunch call, when the step replays a graph; otherwise the
 *                 forward's own ranges stand here
 *   sync          the cudaDeviceSynchronize that ends every step
 * The CUDA calls inside `step` are, in order: cudaEventRecord (timed steps), the forward's calls
 * or one cudaGraphLaunch, cudaEventRecord (timed steps), cudaDeviceSynchronize. Nothing else.
 *
 * Plain C (the CUDA runtime API is C): built into wb_common, which C tests link too.
 */
#ifndef WB_STEPS_H
#define WB_STEPS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Launches one forward pass on the step's stream; WB_OK or WB_FAIL (having said why). */
typedef int (*wb_forward_fn)(void *ctx);

/* What one step runs: forward(ctx) eagerly, or, once captured, one replay of its graph. */
typedef struct {
    cudaStream_t stream;    /* the lesson's stream: forward launches there, events and replays too */
    wb_forward_fn forward;
    void *ctx;              /* forward's argument: the lesson's state */
    cudaGraphExec_t graph;  /* NULL until wb_step_capture; then every step replays it */
} wb_step;

/* Host-side times of one step, in microseconds. */
typedef struct {
    double launch_us; /* from the step's start until every launch call has returned */
    double sync_us;   /* inside cudaDeviceSynchronize, i.e. waiting for the GPU */
    double wall_us;   /* the whole step */
} wb_step_times;

/* Sets the fields; no CUDA call. stream: not the legacy default stream (capture needs another). */
void wb_step_init(wb_step *s, cudaStream_t stream, wb_forward_fn forward, void *ctx);

/* Records forward(ctx) into a graph (nothing runs while capturing) and instantiates it; from
 * then on wb_step_run replays it. Run one eager step first, so that libraries choose their
 * algorithms and load their kernels outside the capture. The first replay uploads the graph. */
int wb_step_capture(wb_step *s);

/* One step, inside the `step` range. start and stop, when not NULL, are recorded around the
 * launches for the GPU-time column; t, when not NULL, receives the host times. */
int wb_step_run(const wb_step *s, cudaEvent_t start, cudaEvent_t stop, wb_step_times *t);

/* Destroys the graph, if any; safe on a zeroed wb_step. Errors are ignored: we are leaving. */
void wb_step_free(wb_step *s);

/* The measured steps: their events and times. */
typedef struct {
    int n;                /* measured steps */
    cudaEvent_t *events;  /* (n, 2): step i's start at 2i, its stop at 2i + 1 */
    double *span_us;      /* (n) between the step's two events: its GPU span, idle waits included */
    double *launch_us;    /* (n) wb_step_times of each step */
    double *sync_us;      /* (n) */
    double *wall_us;      /* (n) */
} wb_steps;

/* The program's measurement, in this order: `warmup` untimed steps of s (module loading, library
 * heuristics, graph upload happen there); the 2n events (creating one is a CUDA call: none
 * inside the profiled window); cudaProfilerStart, n timed steps, cudaProfilerStop; the events'
 * elapsed times. The profiled window holds nothing but the steps. n >= 1. Fills m, which
 * wb_steps_free releases, after a failure too. */
int wb_steps_measure(wb_steps *m, const wb_step *s, int warmup, int n);

/* What the events measure, printed under the timing table: the GPU span between the step's first
 * and last CUDA events, idle waits for the host's launches included, is not the GPU time the
 * grader's gpu_us adds up (the durations of the kernels and copies themselves). */
#define WB_SPAN_NOTE                                                                              \
    "GPU span: from a CUDA event before the step's first launch to one after its\n"              \
    "last, idle waits for the host included; the grader's gpu_us instead sums the\n"            \
    "durations of the kernels and copies themselves.\n"

/* The timing table: header, then the GPU span (events), host launch calls, host
 * cudaDeviceSynchronize and wall time per step, each as median, min, max; then WB_SPAN_NOTE. */
void wb_steps_print(const wb_steps *m);

/* Destroys the events and frees the arrays; safe on a zeroed or partly built wb_steps. */
void wb_steps_free(wb_steps *m);

#ifdef __cplusplus
}
#endif

#endif
