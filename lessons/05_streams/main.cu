/*
 * Lesson 05: streams, copies and overlap. A pipeline uploads chunks of input to the GPU, runs a
 * kernel on each chunk and downloads each result, in four ways that differ in two choices: where
 * the host buffers live (pageable malloc memory or pinned cudaMallocHost memory) and how many
 * streams the chunks are spread over.
 *
 *     lesson_05_streams [--variant serial|pinned|overlapped|pageable-async|default-stream] [--chunks N]
 *                       [--chunk-mib M] [--streams S] [--work K] [--steps S] [--warmup W]
 *
 * Variants
 *   serial          pageable buffers, cudaMemcpy and a kernel on the legacy default stream: the
 *                   textbook first CUDA program. Each copy returns when it is done.
 *   pinned          pinned buffers, cudaMemcpyAsync and the kernel on one stream of our own. The
 *                   host no longer waits for each copy, and a pinned copy needs no staging, but
 *                   one stream still runs its work in order: nothing overlaps.
 *   overlapped      pinned buffers, chunk c on stream c % S: while chunk 1 computes, chunk 2
 *                   uploads and chunk 0 downloads. Events fork the streams off the step's stream
 *                   and join them back, so the step's timing events and its end cover them all.
 *   pageable-async  the overlapped program, line for line, on pageable buffers: S streams and
 *                   cudaMemcpyAsync everywhere, and yet the copies serialise (see README).
 *   default-stream  the overlapped program with its streams made by plain cudaStreamCreate
 *                   (blocking streams) and one cudaMemsetAsync per chunk whose stream argument
 *                   was left out: it runs on the legacy default stream, which serialises them.
 *
 * What it shows: the copy engines and the SMs are separate hardware, so a copy and a kernel can
 * run at the same time, but only when they are on different streams, the host has issued both,
 * and the copy is a DMA straight from pinned memory. The kernel's work (--work) is sized so that
 * computing a chunk takes about as long as copying it over PCIe on the H200 (see README for the
 * measured rates); then the overlapped pipeline takes less than half the time of the pinned one,
 * which runs the same operations one after another.
 *
 * Program order (common/wb_lesson.c, every lesson's frame): setup (buffers, streams, events,
 * random input), warm-up steps, --steps measured steps between cudaProfilerStart and
 * cudaProfilerStop (common/wb_steps.c), one chunk's stages timed on their own (outside the
 * profiled window), then the check of every chunk's result against a CPU reference.
 *
 * NVTX ranges (the lesson's interface; lesson.yaml lists them; * = made by common/wb_steps.c):
 *   step *     one measured step: the pipeline, then the synchronize
 *   pipeline   every chunk, with the event calls that fork and join the streams
 *   chunk      one chunk: its upload, compute and download (--chunks of them per pipeline)
 *   clear      the chunk's cudaMemsetAsync on the legacy default stream     (default-stream)
 *   upload     the chunk's host-to-device copy call
 *   compute    the chunk's kernel launch
 *   download   the chunk's device-to-host copy call
 *   sync *     the cudaDeviceSynchronize that ends every step
 *
 * Exit status: 0 when every chunk's result matches the CPU reference, 1 on any CUDA error or a
 * wrong result, 2 on bad usage.
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_args.h"
#include "wb_check.h"
#include "wb_compare.h"
#include "wb_lesson.h"
#include "wb_random.h"
#include "wb_timing.h"

/* y <- DECAY * y + x: a first-order recurrence, the kind of per-element loop a filter runs. With
 * DECAY 1/2 it settles at y = 2x, and every step is one fused multiply-add. */
#define DECAY 0.5f
#define BLOCK 256
/* Elements of the output compared with the CPU reference, spread evenly over every chunk. */
#define CHECK_ELEMENTS 4096
/* The GPU and the CPU run the same fmaf steps in the same order, and fmaf rounds once (IEEE 754)
 * on both: the results agree to the bit. The tolerance only forgives a different compiler. */
#define TOLERANCE 1e-6
/* Stage timings: each stage of chunk 0 is timed this many times, the median printed. */
#define STAGE_REPEATS 5

/* ---- kernel --------------------------------------------------------------------------------- */

/* y (n) = `work` steps of y <- DECAY * y + x from y = x; one thread per element. A stand-in for
 * real per-chunk work whose cost we can set: each step is one FMA that depends on the last, so
 * the kernel's time is work * n / (the GPU's FMA rate), and it reads and writes each element
 * once. */
__global__ void k_recurrence(float *y, const float *x, size_t n, int work) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = x[i], yi = xi;
    for (int k = 0; k < work; k++) yi = fmaf(yi, DECAY, xi);
    y[i] = yi;
}

/* ---- the lesson's state --------------------------------------------------------------------- */

typedef enum { VARIANT_SERIAL, VARIANT_PINNED, VARIANT_OVERLAPPED, VARIANT_PAGEABLE_ASYNC, VARIANT_DEFAULT_STREAM } variant;

typedef struct {
    double upload_us, compute_us, download_us; /* medians over STAGE_REPEATS */
} stage_times;

typedef struct {
    variant v;
    int chunks;             /* pieces the input is cut into (--chunks) */
    int chunk_mib;          /* MiB per chunk (--chunk-mib) */
    int streams;            /* --streams: the lanes of overlapped, pageable-async and default-stream */
    size_t chunk_elems;     /* floats per chunk */
    int work;               /* recurrence steps per element (--work) */
    int pinned;             /* host buffers from cudaMallocHost (1) or malloc (0) */
    int async;              /* cudaMemcpyAsync (1) or cudaMemcpy (0) */
    int stray_memset;       /* default-stream: a cudaMemsetAsync on the legacy stream per chunk */
    float *host_in;         /* (chunks * chunk_elems) the input, on the host */
    float *host_out;        /* (chunks * chunk_elems) the results, downloaded into here */
    float *dev_in;          /* (chunks * chunk_elems) the input, uploaded chunk by chunk */
    float *dev_out;         /* (chunks * chunk_elems) the kernel's results */
    cudaStream_t stream;    /* the step's stream (timing events, fork, join); serial: legacy default */
    int n_lanes;            /* streams the chunks are spread over */
    cudaStream_t *lanes;    /* (n_lanes) chunk c runs on lanes[c % n_lanes] */
    cudaEvent_t fork;       /* recorded on stream at the start: every lane waits for it */
    cudaEvent_t *joined;    /* (n_lanes) recorded on each lane at the end: stream waits for them */
    stage_times stages;     /* one chunk's stages alone, after the measured steps */
} lesson;

static int lesson_init(void *ctx, wb_lesson_run *run) {
    lesson *L = (lesson *)ctx;
    variant v = L->v = (variant)run->variant;
    int chunks = L->chunks;
    L->chunk_elems = ((size_t)L->chunk_mib << 20) / sizeof(float);
    L->pinned = v == VARIANT_PINNED || v == VARIANT_OVERLAPPED || v == VARIANT_DEFAULT_STREAM;
    L->async = v != VARIANT_SERIAL;
    L->stray_memset = v == VARIANT_DEFAULT_STREAM;
    size_t bytes = (size_t)chunks * L->chunk_elems * sizeof(float);

    if (L->pinned) {
        CUDA_CHECK(cudaMallocHost((void **)&L->host_in, bytes));
        CUDA_CHECK(cudaMallocHost((void **)&L->host_out, bytes));
    } else {
        L->host_in = (float *)malloc(bytes);
        L->host_out = (float *)malloc(bytes);
        if (!L->host_in || !L->host_out) {
            fprintf(stderr, "out of host memory for %d chunks of %d MiB\n", chunks, L->chunk_mib);
            return WB_FAIL;
        }
    }
    CUDA_CHECK(cudaMalloc((void **)&L->dev_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&L->dev_out, bytes));

    /* Random input; the output filled with NaN bits (and so every page touched now, not during
     * the measurement), so that a chunk nobody downloads cannot pass the check. */
    wb_rng rng;
    wb_rng_seed(&rng, run->seed);
    wb_fill_uniform(L->host_in, (size_t)chunks * L->chunk_elems, &rng, -1.0f, 1.0f);
    memset(L->host_out, 0xFF, bytes);

    /* serial runs on the legacy default stream (0), as a first CUDA program does; the others on
     * non-blocking streams, which never wait for the default stream. */
    L->n_lanes = v == VARIANT_OVERLAPPED || v == VARIANT_PAGEABLE_ASYNC || v == VARIANT_DEFAULT_STREAM ? L->streams : 1;
    L->lanes = (cudaStream_t *)calloc((size_t)L->n_lanes, sizeof *L->lanes);
    L->joined = (cudaEvent_t *)calloc((size_t)L->n_lanes, sizeof *L->joined);
    if (!L->lanes || !L->joined) {
        fprintf(stderr, "out of host memory for %d streams\n", L->n_lanes);
        return WB_FAIL;
    }
    if (v != VARIANT_SERIAL) CUDA_CHECK(cudaStreamCreateWithFlags(&L->stream, cudaStreamNonBlocking));
    run->stream = L->stream; /* the step's: its timing events and the forks and joins go there */
    if (L->n_lanes == 1) {
        L->lanes[0] = L->stream;
    } else {
        /* Events used only for ordering: no timestamps, which makes recording them cheaper. */
        CUDA_CHECK(cudaEventCreateWithFlags(&L->fork, cudaEventDisableTiming));
        for (int s = 0; s < L->n_lanes; s++) {
            /* Non-blocking: never ordered against the legacy default stream. default-stream
             * makes them with plain cudaStreamCreate, as most code does: blocking streams. */
            if (L->stray_memset) CUDA_CHECK(cudaStreamCreate(&L->lanes[s]));
            else CUDA_CHECK(cudaStreamCreateWithFlags(&L->lanes[s], cudaStreamNonBlocking));
            CUDA_CHECK(cudaEventCreateWithFlags(&L->joined[s], cudaEventDisableTiming));
        }
    }
    return WB_OK;
}

/* Frees what lesson_init made; safe on a partly built lesson. Errors are ignored: we are leaving. */
static void lesson_free(void *ctx) {
    lesson *L = (lesson *)ctx;
    if (L->n_lanes > 1)
        for (int s = 0; s < L->n_lanes; s++) {
            if (L->lanes[s]) cudaStreamDestroy(L->lanes[s]);
            if (L->joined[s]) cudaEventDestroy(L->joined[s]);
        }
    if (L->fork) cudaEventDestroy(L->fork);
    if (L->stream) cudaStreamDestroy(L->stream);
    if (L->pinned) {
        cudaFreeHost(L->host_in);
        cudaFreeHost(L->host_out);
    } else {
        free(L->host_in);
        free(L->host_out);
    }
    cudaFree(L->dev_in);
    cudaFree(L->dev_out);
    free(L->lanes);
    free(L->joined);
}

/* ---- one chunk's stages --------------------------------------------------------------------- */

/* cudaMemcpy (serial) or cudaMemcpyAsync on `stream`, in the NVTX range `stage`. */
static int copy(const lesson *L, const char *stage, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                cudaStream_t stream) {
    nvtxRangePushA(stage);
    cudaError_t err = L->async ? cudaMemcpyAsync(dst, src, bytes, kind, stream) : cudaMemcpy(dst, src, bytes, kind);
    nvtxRangePop();
    CUDA_CHECK(err);
    return WB_OK;
}

static int upload(const lesson *L, int c, cudaStream_t stream) {
    size_t off = (size_t)c * L->chunk_elems;
    return copy(L, "upload", L->dev_in + off, L->host_in + off, L->chunk_elems * sizeof(float), cudaMemcpyHostToDevice,
                stream);
}

static int compute(const lesson *L, int c, cudaStream_t stream) {
    size_t off = (size_t)c * L->chunk_elems;
    unsigned grid = (unsigned)((L->chunk_elems + BLOCK - 1) / BLOCK);
    nvtxRangePushA("compute");
    k_recurrence<<<grid, BLOCK, 0, stream>>>(L->dev_out + off, L->dev_in + off, L->chunk_elems, L->work);
    cudaError_t err = cudaGetLastError(); /* launch errors are reported here */
    nvtxRangePop();
    CUDA_CHECK(err);
    return WB_OK;
}

static int download(const lesson *L, int c, cudaStream_t stream) {
    size_t off = (size_t)c * L->chunk_elems;
    return copy(L, "download", L->host_out + off, L->dev_out + off, L->chunk_elems * sizeof(float),
                cudaMemcpyDeviceToHost, stream);
}

/* default-stream only: zero the chunk's output before the kernel writes it, a defensive habit (the
 * kernel writes every element anyway) that costs a few microseconds. The stream argument is left
 * out, as C++ allows: it defaults to 0, the legacy default stream. An operation there waits for
 * all earlier work of every blocking stream, and all their later work waits for it: one such call
 * per chunk puts the chunks back in single file. */
static int clear(const lesson *L, int c) {
    size_t off = (size_t)c * L->chunk_elems;
    nvtxRangePushA("clear");
    cudaError_t err = cudaMemsetAsync(L->dev_out + off, 0, L->chunk_elems * sizeof(float));
    nvtxRangePop();
    CUDA_CHECK(err);
    return WB_OK;
}

/* Upload, compute, download, in order on one stream: the stream's order is all the ordering a
 * chunk needs. */
static int run_chunk(const lesson *L, int c) {
    cudaStream_t stream = L->lanes[c % L->n_lanes];
    nvtxRangePushA("chunk");
    int rc = L->stray_memset ? clear(L, c) : WB_OK;
    if (rc == WB_OK) rc = upload(L, c, stream);
    if (rc == WB_OK) rc = compute(L, c, stream);
    if (rc == WB_OK) rc = download(L, c, stream);
    nvtxRangePop();
    return rc;
}

/* ---- one step ------------------------------------------------------------------------------- */

/* Every chunk. With several lanes, the step's stream (where wb_steps records its timing events)
 * forks them at the start and joins them at the end: without the fork a lane could start before
 * the step's start event, without the join the stop event would not wait for the lanes. */
static int pipeline_body(const lesson *L) {
    int lanes = L->n_lanes > 1;
    if (lanes) {
        CUDA_CHECK(cudaEventRecord(L->fork, L->stream));
        for (int s = 0; s < L->n_lanes; s++) CUDA_CHECK(cudaStreamWaitEvent(L->lanes[s], L->fork, 0));
    }
    for (int c = 0; c < L->chunks; c++) WB_TRY(run_chunk(L, c));
    if (lanes)
        for (int s = 0; s < L->n_lanes; s++) {
            CUDA_CHECK(cudaEventRecord(L->joined[s], L->lanes[s]));
            CUDA_CHECK(cudaStreamWaitEvent(L->stream, L->joined[s], 0));
        }
    return WB_OK;
}

static int pipeline(void *ctx) {
    nvtxRangePushA("pipeline");
    int rc = pipeline_body((const lesson *)ctx);
    nvtxRangePop();
    return rc;
}

/* ---- one chunk's stages on their own -------------------------------------------------------- */

/* Times each stage of chunk 0 alone, with events on its stream, after the profiled window: what
 * a stage costs when nothing runs beside it, the numbers an overlapped pipeline is judged by. */
static int time_stages(void *ctx) {
    lesson *L = (lesson *)ctx;
    stage_times *t = &L->stages;
    cudaStream_t stream = L->lanes[0];
    cudaEvent_t ev[4];
    double us[3][STAGE_REPEATS];
    for (int i = 0; i < 4; i++) CUDA_CHECK(cudaEventCreate(&ev[i]));
    for (int r = 0; r < STAGE_REPEATS; r++) {
        CUDA_CHECK(cudaEventRecord(ev[0], stream));
        WB_TRY(upload(L, 0, stream));
        CUDA_CHECK(cudaEventRecord(ev[1], stream));
        WB_TRY(compute(L, 0, stream));
        CUDA_CHECK(cudaEventRecord(ev[2], stream));
        WB_TRY(download(L, 0, stream));
        CUDA_CHECK(cudaEventRecord(ev[3], stream));
        CUDA_CHECK(cudaEventSynchronize(ev[3]));
        for (int s = 0; s < 3; s++) {
            float ms = 0.0f;
            CUDA_CHECK(cudaEventElapsedTime(&ms, ev[s], ev[s + 1]));
            us[s][r] = 1e3 * ms;
        }
    }
    for (int i = 0; i < 4; i++) CUDA_CHECK(cudaEventDestroy(ev[i]));
    t->upload_us = wb_median(us[0], STAGE_REPEATS);
    t->compute_us = wb_median(us[1], STAGE_REPEATS);
    t->download_us = wb_median(us[2], STAGE_REPEATS);
    return WB_OK;
}

/* ---- checking ------------------------------------------------------------------------------- */

/* CHECK_ELEMENTS outputs, spread over all chunks, against the same recurrence run on the CPU. */
static int check_result(const void *ctx) {
    const lesson *L = (const lesson *)ctx;
    size_t n = (size_t)L->chunks * L->chunk_elems;
    size_t m = n < CHECK_ELEMENTS ? n : CHECK_ELEMENTS;
    float *out = (float *)malloc(m * sizeof *out);
    double *ref = (double *)malloc(m * sizeof *ref);
    int rc = WB_FAIL;
    if (!out || !ref) {
        fprintf(stderr, "out of host memory for the check\n");
    } else {
        for (size_t j = 0; j < m; j++) {
            size_t i = m > 1 ? j * (n - 1) / (m - 1) : 0;
            float x = L->host_in[i], y = x;
            for (int k = 0; k < L->work; k++) y = fmaf(y, DECAY, x);
            out[j] = L->host_out[i];
            ref[j] = y;
        }
        rc = wb_check_close("y = recurrence(x)", out, ref, m, TOLERANCE) == 0 ? WB_OK : WB_FAIL;
    }
    free(out);
    free(ref);
    return rc;
}

/* ---- main ----------------------------------------------------------------------------------- */

/* The run's shape, in the header line. */
static void describe(const void *ctx, char *words, size_t cap) {
    const lesson *L = (const lesson *)ctx;
    snprintf(words, cap, "%d chunks of %d MiB, %d stream%s, work %d", L->chunks, L->chunk_mib, L->n_lanes,
             L->n_lanes == 1 ? "" : "s", L->work);
}

/* One chunk's stages alone, the pipeline's wall time against their sum, and the RESULT fields. */
static void report(const void *ctx, const wb_steps *timed, wb_result *r) {
    const lesson *L = (const lesson *)ctx;
    const stage_times *st = &L->stages;
    double mib = (double)(L->chunk_elems * sizeof(float)) / 1048576.0;
    double sum = L->chunks * (st->upload_us + st->compute_us + st->download_us);
    double wall = wb_median(timed->wall_us, timed->n);
    printf("one chunk alone: upload %.1f us (%.1f GB/s), compute %.1f us, download %.1f us (%.1f GB/s)\n",
           st->upload_us, mib * 1048576.0 / st->upload_us / 1e3, st->compute_us, st->download_us,
           mib * 1048576.0 / st->download_us / 1e3);
    printf("sum of the stages of %d chunks: %.1f us; wall time per step: %.1f us (%.2f of the sum)\n", L->chunks, sum,
           wall, wall / sum);
    wb_result_add(r, "chunks=%d chunk_mib=%.0f streams=%d work=%d", L->chunks, mib, L->n_lanes, L->work);
    wb_result_steps(r, timed);
    wb_result_add(r, "upload_us=%.2f compute_us=%.2f download_us=%.2f stage_sum_us=%.2f", st->upload_us,
                  st->compute_us, st->download_us, sum);
}

static const char *validate(const void *ctx) {
    const lesson *L = (const lesson *)ctx;
    if ((long long)L->chunks * L->chunk_mib > 8192)
        return "more than 8 GiB of input (--chunks x --chunk-mib); use fewer or smaller chunks";
    return NULL;
}

int main(int argc, char **argv) {
    lesson L = {};
    L.chunks = 8;     /* pieces of the input */
    L.chunk_mib = 4;  /* 4 MiB: copies long enough to run at PCIe's full rate */
    L.streams = 3;    /* upload, compute and download of three chunks at once */
    L.work = 2048;    /* sized so one chunk computes about as long as it copies */
    const wb_opt options[] = {
        WB_INT_HELP("chunks", &L.chunks, 1, 256, "N", "pieces the input is cut into"),
        WB_INT_HELP("chunk-mib", &L.chunk_mib, 1, 1024, "M", "MiB of floats per chunk"),
        WB_INT_HELP("streams", &L.streams, 2, 32, "S", "streams of overlapped, pageable-async and default-stream"),
        WB_INT_HELP("work", &L.work, 0, 1 << 20, "K", "recurrence steps per element, the kernel's cost"),
    };
    static const char *const variants[] = {"serial", "pinned", "overlapped", "pageable-async", "default-stream", NULL};

    wb_lesson_spec spec = {};
    spec.name = "05_streams";
    spec.variants = variants;
    spec.variant_help = "serial: pageable memory, cudaMemcpy, default stream; pinned: pinned memory,\n"
                        "cudaMemcpyAsync, one stream; overlapped: pinned, chunks over S streams;\n"
                        "pageable-async: overlapped's program on pageable memory; default-stream:\n"
                        "overlapped's with blocking streams and a memset per chunk on the legacy\n"
                        "default stream";
    spec.options = options;
    spec.n_options = 4;
    spec.steps = 10; /* lesson.yaml uses 3 */
    spec.warmup = 2;
    spec.gpu = 0; /* its own streams: serial runs on the legacy default stream */
    spec.fns = {lesson_init, pipeline, time_stages, check_result, describe, report, lesson_free, NULL};
    spec.validate = validate;
    return wb_lesson_main(&spec, &L, argc, argv);
}
