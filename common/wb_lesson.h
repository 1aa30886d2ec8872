/*
 * wb_lesson.h: the frame every lesson program runs in (common/wb_lesson.c), so that a lesson's
 * main.cu holds what the lesson teaches (its kernels, its forward pass, its check against the CPU)
 * and nothing another lesson repeats. A lesson describes itself in one table and hands it over:
 *
 *     int main(int argc, char **argv) {
 *         lesson L = {};
 *         L.n = 64;                                   // the default of the lesson's own option
 *         const wb_opt options[] = {WB_INT_HELP("size", &L.n, 1, 16384, "N", "x is N x N")};
 *         static const char *const variants[] = {"eager", "graph", NULL};
 *         wb_lesson_spec spec = {};
 *         spec.name = "01_matmul_add";
 *         spec.variants = variants;
 *         ...                                         // its options, defaults, set-up
 *         spec.fns = {lesson_init, forward, NULL, check_result, describe, report, lesson_free, NULL};
 *         return wb_lesson_main(&spec, &L, argc, argv);
 *     }
 *
 * What wb_lesson_main does, in this order:
 *   1. the options: --variant NAME, the lesson's own, --steps S, --warmup W, --seed X; --help
 *      prints the usage made from the table; bad usage says why and exits 2 before any CUDA call
 *      (the lesson's validate callback judges combinations, e.g. a matrix over 2^31 elements);
 *   2. set-up: a non-blocking stream (graph capture needs one that is not the legacy default
 *      stream), with WB_GPU_CUBLAS a cuBLAS handle on it and a workspace of ours (so that no step
 *      allocates and a captured GEMM works), with WB_GPU_CUBLASLT a cuBLASLt handle too; the
 *      multiprocessor count; meanwhile, on a second thread, the lesson's prepare (host work only);
 *      then the lesson's init; then cudaDeviceSynchronize (the lesson's
 *      uploads ran on the legacy default stream, which a non-blocking stream does not wait for);
 *   3. the steps (common/wb_steps.h): for the graph variant, one eager step (libraries choose their
 *      algorithms and load their kernels outside the capture) and the capture; then the warm-up
 *      steps and the measured steps between cudaProfilerStart and cudaProfilerStop;
 *   4. the lesson's after_steps, if any (work outside the profiled window), the header line
 *      ("lesson NN_name: variant V, <describe>, S measured steps"), the lesson's check, the timing
 *      table, the lesson's report (its own lines, and the RESULT line's fields), the RESULT line;
 *   5. tear-down, on every path: the lesson's free, then the handles, the workspace, the stream.
 * Exit status: 0 when the result matched the CPU reference, 1 on a CUDA or cuBLAS error or a
 * wrong result, 2 on bad usage.
 *
 * The NVTX ranges are the lesson's (its forward pushes them) and wb_steps.c's (step,
 * graph_launch, sync): the frame adds none and makes no CUDA call inside the profiled window.
 */
#ifndef WB_LESSON_H
#define WB_LESSON_H

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stddef.h>

#include "wb_args.h"
#include "wb_steps.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuBLAS scratch memory: ours, so that no variant allocates inside a step and graph capture works
 * (a captured GEMM cannot allocate); 32 MiB is what NVIDIA recommends for Hopper. */
#define WB_LESSON_WORKSPACE_BYTES (32u << 20)

/* What the frame sets up before the lesson's init (wb_lesson_spec.gpu, or'd; 0: nothing, and the
 * lesson's init chooses the step's stream itself). */
enum {
    WB_GPU_STREAM = 1,   /* a non-blocking stream, where the step runs */
    WB_GPU_CUBLAS = 2,   /* a cuBLAS handle on that stream, with the workspace (implies the stream) */
    WB_GPU_CUBLASLT = 4, /* a cuBLASLt handle (its matmuls take the workspace as an argument; implies the stream) */
};

/* The run the options chose and what the frame set up for it; the lesson's init receives it. */
typedef struct {
    int variant;             /* index into wb_lesson_spec.variants */
    int steps;               /* measured steps */
    int warmup;              /* unmeasured steps before them */
    unsigned long long seed; /* of the random inputs */
    cudaStream_t stream;     /* made by the frame (any WB_GPU_*); else the lesson's init sets it (or
                                leaves 0, the legacy default stream). The step runs on it. */
    cublasHandle_t cublas;   /* WB_GPU_CUBLAS: on stream, with workspace */
    cublasLtHandle_t lt;     /* WB_GPU_CUBLASLT */
    void *workspace;         /* WB_LESSON_WORKSPACE_BYTES on the device (WB_GPU_CUBLAS or CUBLASLT) */
    int sms;                 /* the GPU's multiprocessors */
} wb_lesson_run;

/* The fields of the RESULT line after "RESULT lesson=NN_name variant=V", added in order. */
typedef struct {
    char text[1024];
    size_t len;
} wb_result;

/* Appends " " and the formatted text ("size=%d"). */
void wb_result_add(wb_result *r, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "steps=S gpu_span_us=... wall_us=...": the medians of the measured steps (the span is the
 * events', WB_SPAN_NOTE: not the grader's gpu_us). */
void wb_result_steps(wb_result *r, const wb_steps *timed);
/* "launch_us=... sync_us=...": the medians of the host's launch calls and of its synchronize. */
void wb_result_host_times(wb_result *r, const wb_steps *timed);

/* The lesson's own functions, in the order the frame calls them. L is the lesson's state. */
typedef struct {
    int (*init)(void *L, wb_lesson_run *run);   /* allocate, upload, plan; WB_OK or WB_FAIL */
    int (*forward)(void *L);                    /* one step's launches, in their NVTX ranges */
    int (*after_steps)(void *L);                /* NULL, or work after the profiled window */
    int (*check)(const void *L);                /* the result against the CPU; WB_OK or WB_FAIL */
    void (*describe)(const void *L, char *words, size_t cap); /* the header's shape: "size 64" */
    void (*report)(const void *L, const wb_steps *timed, wb_result *r); /* the lesson's lines after the
                                   timing table, and the RESULT fields (NULL: wb_result_steps and
                                   wb_result_host_times alone) */
    void (*free)(void *L);                      /* safe on a partly built or zeroed lesson */
    int (*prepare)(void *L, unsigned long long seed); /* NULL, or the host's own work before init (the
                                   random inputs, the CPU reference the check compares with), run on
                                   a second thread while the frame starts the CUDA context and the
                                   cuBLAS handles: start-up then costs the longer of the two, not
                                   their sum (its fills, bf16 encoding and CPU references spread
                                   over the cores: wb_parallel.h). No CUDA call in it: the GPU is
                                   not touched, and the calls the capture records stay on one
                                   thread in one order. */
} wb_lesson_fns;

/* A lesson program, as wb_lesson_main runs it. */
typedef struct {
    const char *name;                 /* "01_matmul_add": the header and the RESULT line */
    const char *const *variants;      /* names, NULL-terminated; the first is the default */
    const char *variant_help;         /* --variant's line in the usage ("\n" continues it) */
    const char *graph_variant;        /* the variant whose step is replayed from a CUDA graph, or NULL */
    const wb_opt *options;            /* the lesson's own options (WB_INT_HELP: with their usage) */
    int n_options;
    int steps, warmup;                /* defaults of --steps and --warmup */
    int gpu;                          /* WB_GPU_* */
    wb_lesson_fns fns;
    const char *(*validate)(const void *L); /* NULL, or why the options cannot run (exit 2) */
    const char *example;                    /* NULL, or a last usage line ("e.g. ...") */
} wb_lesson_spec;

/* Runs the lesson (see the top of this file); returns the process's exit status. */
int wb_lesson_main(const wb_lesson_spec *spec, void *L, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
