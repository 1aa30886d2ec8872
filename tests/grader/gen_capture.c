/*
 * gen_capture.c: writes a large synthetic lesson whose trace is known by construction, to measure
 * (bench/capture_scale.sh) and test (cli_capture_scale) how grading grows with the capture's size.
 *
 *   wb_gen_capture OUT_DIR STEPS [LAYERS]
 *
 * writes OUT_DIR/lessons/99_scale/{lesson.yaml, predictions.yaml, traces/sm_90.json}. The
 * recording looks like a real one (lessons/04_gpt2_autodiff/traces/sm_90.json): ~1,500
 * initialisation API calls before the profiled window (cuGetProcAddress, cuDeviceGetAttribute), one
 * warm-up step outside the window, then STEPS training steps of a LAYERS-layer model, each with
 * nested NVTX ranges (step > forward > layer > attention|mlp, step > backward > layer_backward,
 * step > optimizer), cuBLAS GEMMs launched through cuLaunchKernelEx, our kernels through
 * cudaLaunchKernel (with the driver call CUDA makes inside it, nested on the same thread),
 * cudaGetLastError after each launch, memsets and copies, and a second host thread polling events
 * while the steps run (its calls belong to no range of the main thread).
 *
 * predictions.yaml holds the right count for every fact, derived here from the construction and
 * not from the grader: `grader check` must score every fact right. About 1 MB of JSON per 7 steps
 * of 12 layers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAIN_THREAD 13713408u
#define POLL_THREAD 13713920u

typedef struct {
    FILE *api, *kernels, *ops_copy, *ops_set, *ranges; /* one temporary file per section */
    int n_api, n_kernels, n_copy, n_set, n_ranges;
    unsigned long long t;     /* the host clock, ns */
    unsigned long long gpu_t; /* when the GPU is next free */
    unsigned corr;
    unsigned range_id;
} gen;

static const char *const GEMM_NAMES[] = {
    "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT",
    "nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopB_NNT",
    "nvjet_sm90_tst_192x128_64x5_1x2_h_bz_TNN",
    "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_coopA_NTN",
};
static const char *const OWN_NAMES[] = {
    "void k_layernorm_forward<__nv_bfloat16>(__nv_bfloat16*, float*, float*, __nv_bfloat16 const*, __nv_bfloat16 const*, "
    "__nv_bfloat16 const*, long, long)",
    "void k_softmax_forward<__nv_bfloat16, 256>(__nv_bfloat16*, __nv_bfloat16 const*, float, long, long)",
    "void k_gelu_forward<__nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16 const*, long)",
    "void k_layernorm_backward_vec<__nv_bfloat16, 8>(__nv_bfloat16*, float*, float*, __nv_bfloat16 const*, "
    "__nv_bfloat16 const*, float const*, float const*, __nv_bfloat16 const*, long, long)",
    "void k_adamw_update<__nv_bfloat16>(__nv_bfloat16*, float*, float*, __nv_bfloat16 const*, float, float, float, float, "
    "float, long)",
};
static const char *const OWN_MANGLED[] = {
    "_Z19k_layernorm_forwardI13__nv_bfloat16EvPT_PfS3_PKS1_S5_S5_ll",
    "_Z17k_softmax_forwardI13__nv_bfloat16Li256EEvPT_PKS1_fll",
    "_Z14k_gelu_forwardI13__nv_bfloat16EvPT_PKS1_l",
    "_Z24k_layernorm_backward_vecI13__nv_bfloat16Li8EEvPT_PfS3_PKS1_S5_PKfS7_S5_ll",
    "_Z14k_adamw_updateI13__nv_bfloat16EvPT_PfS3_PKS1_fffffl",
};
enum { LN_FWD, SOFTMAX, GELU, LN_BWD, ADAMW };

static void sep(FILE *f, int n) { fputs(n ? ",\n" : "\n", f); }

static void api(gen *g, const char *name, unsigned thread, unsigned long long start, unsigned long long end, unsigned corr) {
    sep(g->api, g->n_api++);
    fprintf(g->api,
            "{\"name\": \"%s\", \"domain\": \"%s\", \"start\": %llu, \"end\": %llu, \"correlation_id\": %u, \"thread\": %u, "
            "\"return\": 0}",
            name, strncmp(name, "cuda", 4) ? "driver" : "runtime", start, end, corr, thread);
}

/* A host call on the main thread taking dur ns; returns its correlation id. */
static unsigned call(gen *g, const char *name, unsigned dur) {
    unsigned c = ++g->corr;
    api(g, name, MAIN_THREAD, g->t, g->t + dur, c);
    g->t += dur + 150;
    return c;
}

static void kernel_record(gen *g, const char *name, const char *mangled, unsigned corr, unsigned dur, int gemm) {
    unsigned long long start = g->gpu_t > g->t ? g->gpu_t : g->t + 2000;
    g->gpu_t = start + dur;
    sep(g->kernels, g->n_kernels++);
    fprintf(g->kernels,
            "{\"name\": \"%s\", \"mangled\": \"%s\", \"grid\": [%d, %d, 1], \"block\": [%d, 1, 1], \"cluster\": [%d, 1, 1], "
            "\"registers_per_thread\": %d, \"static_shared_bytes\": 0, \"dynamic_shared_bytes\": %d, \"device\": 0, "
            "\"stream\": 7, \"start\": %llu, \"end\": %llu, \"correlation_id\": %u, \"graph_id\": 0, \"graph_node_id\": 0}",
            name, mangled, gemm ? 2 : 64, gemm ? 66 : 1, gemm ? 384 : 256, gemm ? 2 : 0, gemm ? 168 : 32, gemm ? 213188 : 0,
            start, start + dur, corr);
}

/* cuBLAS: a GEMM through the driver's cuLaunchKernelEx, after a cudaGetDevice. */
static void gemm(gen *g, int which) {
    call(g, "cudaGetDevice", 300);
    call(g, "cuKernelGetAttribute", 400);
    unsigned c = call(g, "cuLaunchKernelEx", 3000);
    kernel_record(g, GEMM_NAMES[which % 4], GEMM_NAMES[which % 4], c, 20000 + 1000 * (unsigned)which, 1);
}

/* <<<...>>>: cudaLaunchKernel, the driver call the runtime makes inside it, cudaGetLastError. */
static void launch(gen *g, int which) {
    unsigned c = ++g->corr;
    unsigned long long start = g->t;
    api(g, "cuKernelGetName", MAIN_THREAD, start + 500, start + 900, ++g->corr); /* nested: not counted */
    api(g, "cudaLaunchKernel", MAIN_THREAD, start, start + 2500, c);
    g->t += 2650;
    kernel_record(g, OWN_NAMES[which], OWN_MANGLED[which], c, 5000, 0);
    call(g, "cudaGetLastError", 100);
}

static void memset_async(gen *g) {
    unsigned c = call(g, "cudaMemsetAsync", 2000);
    unsigned long long start = g->gpu_t > g->t ? g->gpu_t : g->t + 2000;
    g->gpu_t = start + 1500;
    sep(g->ops_set, g->n_set++);
    fprintf(g->ops_set,
            "{\"bytes\": 4194304, \"value\": 0, \"device\": 0, \"stream\": 7, \"start\": %llu, \"end\": %llu, "
            "\"correlation_id\": %u, \"graph_id\": 0}",
            start, start + 1500, c);
}

static void memcpy_sync(gen *g, const char *kind) {
    unsigned c = call(g, "cudaMemcpy", 9000);
    unsigned long long start = g->gpu_t > g->t - 8000 ? g->gpu_t : g->t - 8000;
    sep(g->ops_copy, g->n_copy++);
    fprintf(g->ops_copy,
            "{\"kind\": \"%s\", \"bytes\": 65536, \"device\": 0, \"stream\": 7, \"start\": %llu, \"end\": %llu, "
            "\"correlation_id\": %u, \"graph_id\": 0}",
            kind, start, start + 3000, c);
    if (g->gpu_t < start + 3000) g->gpu_t = start + 3000;
}

/* Ranges nest, so each is written when it closes; the caller keeps its start. */
static unsigned long long open_range(gen *g) {
    unsigned long long s = g->t;
    g->t += 200;
    return s;
}

static void close_range(gen *g, const char *name, unsigned long long start) {
    g->t += 200;
    sep(g->ranges, g->n_ranges++);
    fprintf(g->ranges, "{\"kind\": \"range\", \"name\": \"%s\", \"domain\": null, \"start\": %llu, \"end\": %llu, \"thread\": %u, "
            "\"id\": %u}", name, start, g->t, MAIN_THREAD, ++g->range_id);
    g->t += 200;
}

/* The second thread: one cudaEventQuery every 40 us of the main thread's time. */
static void poll_until(gen *g, unsigned long long *next_poll) {
    while (*next_poll < g->t) {
        api(g, "cudaEventQuery", POLL_THREAD, *next_poll, *next_poll + 700, ++g->corr);
        *next_poll += 40000;
    }
}

static void step(gen *g, int layers, unsigned long long *next_poll) {
    unsigned long long s = open_range(g), f = open_range(g);
    for (int l = 0; l < layers; l++) {
        unsigned long long ly = open_range(g);
        launch(g, LN_FWD);
        unsigned long long at = open_range(g);
        gemm(g, 0);
        launch(g, SOFTMAX);
        gemm(g, 1);
        close_range(g, "attention", at);
        unsigned long long m = open_range(g);
        gemm(g, 2);
        launch(g, GELU);
        gemm(g, 3);
        close_range(g, "mlp", m);
        close_range(g, "layer", ly);
        poll_until(g, next_poll);
    }
    close_range(g, "forward", f);
    unsigned long long b = open_range(g);
    for (int l = 0; l < layers; l++) {
        unsigned long long lb = open_range(g);
        memset_async(g);
        gemm(g, 0);
        gemm(g, 1);
        launch(g, LN_BWD);
        gemm(g, 2);
        gemm(g, 3);
        close_range(g, "layer_backward", lb);
        poll_until(g, next_poll);
    }
    close_range(g, "backward", b);
    unsigned long long o = open_range(g);
    launch(g, ADAMW);
    memcpy_sync(g, "DtoH"); /* the loss */
    close_range(g, "optimizer", o);
    call(g, "cudaStreamSynchronize", 2000);
    close_range(g, "step", s);
    if (g->t < g->gpu_t) g->t = g->gpu_t + 1000;
}

static int copy_section(FILE *out, FILE *part) {
    char buf[1 << 16];
    size_t n;
    rewind(part);
    while ((n = fread(buf, 1, sizeof buf, part)) > 0)
        if (fwrite(buf, 1, n, out) != n) return -1;
    return ferror(part) ? -1 : 0;
}

static FILE *open_in(const char *dir, const char *name, const char *mode) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    if (!f) fprintf(stderr, "wb_gen_capture: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

static int write_recording(const char *traces, int steps, int layers) {
    gen g = {0};
    g.t = 1796000053000000000ull;
    g.api = tmpfile(), g.kernels = tmpfile(), g.ops_copy = tmpfile(), g.ops_set = tmpfile(), g.ranges = tmpfile();
    if (!g.api || !g.kernels || !g.ops_copy || !g.ops_set || !g.ranges) return -1;
    /* initialisation, as CUDA 13 does it: most of every real recording */
    for (int i = 0; i < 880; i++) call(&g, "cuGetProcAddress", 200);
    for (int i = 0; i < 334; i++) call(&g, "cuDeviceGetAttribute", 100);
    for (int i = 0; i < 35; i++) memcpy_sync(&g, "HtoD");
    unsigned long long next_poll = g.t;
    step(&g, layers, &next_poll); /* warm-up, outside the window */
    call(&g, "cudaProfilerStart", 1000);
    unsigned long long window_start = g.t;
    for (int i = 0; i < steps; i++) step(&g, layers, &next_poll);
    unsigned long long window_end = g.t;
    call(&g, "cudaProfilerStop", 1000);
    for (int i = 0; i < 24; i++) call(&g, "cudaEventDestroy", 300);

    FILE *out = open_in(traces, "sm_90.json", "w");
    if (!out) return -1;
    fprintf(out, "{\"format\": \"gpu-workbench-recording\", \"version\": 1, \"lesson\": \"99_scale\", "
                 "\"recorded_at\": \"2026-12-01T00:00:00Z\", \"runs\": [{\"variant\": \"train\", \"args\": [], "
                 "\"exit_code\": 0, \"signal\": null, \"capture\": {\"format\": \"gpu-workbench-capture\", \"version\": 1, "
                 "\"complete\": true, \"cupti_enabled\": true, \"nvtx_injection\": \"/usr/lib/libcupti.so\", "
                 "\"process\": {\"pid\": 1, \"argv\": [\"wb_scale\"], \"written_at\": \"2026-12-01T00:00:00Z\", \"signal\": null}, "
                 "\"versions\": {\"driver\": 13000, \"runtime\": 13000, \"cupti\": 130001, \"cublas\": \"13.1.0\"}, "
                 "\"devices\": [{\"id\": 0, \"name\": \"NVIDIA H200\", \"compute_capability\": \"9.0\", \"arch\": \"sm_90\", "
                 "\"multiprocessors\": 132}], \"dropped_records\": 0, \"lost_records\": 0,\n"
                 "\"profiler_windows\": [{\"start\": %llu, \"end\": %llu}],\n",
            window_start, window_end);
    const char *names[] = {"api_calls", "kernels", "memcpys", "memsets", "ranges"};
    FILE *parts[] = {g.api, g.kernels, g.ops_copy, g.ops_set, g.ranges};
    int rc = 0;
    for (int i = 0; i < 5 && !rc; i++) {
        fprintf(out, "%s\"%s\": [", i ? ",\n" : "", names[i]);
        rc = copy_section(out, parts[i]);
        fputs("]", out);
    }
    fputs("}}]}\n", out);
    if (fclose(out) != 0) rc = -1;
    for (int i = 0; i < 5; i++) fclose(parts[i]);
    fprintf(stderr, "wb_gen_capture: %d API calls, %d kernels, %d memcpys, %d memsets, %d ranges\n", g.n_api, g.n_kernels,
            g.n_copy, g.n_set, g.n_ranges);
    return rc;
}

/* The counts per occurrence, by construction of step() above. */
static int write_lesson(const char *dir, int layers) {
    FILE *y = open_in(dir, "lesson.yaml", "w");
    if (!y) return -1;
    fprintf(y, "# Synthetic lesson written by wb_gen_capture (tests/grader/gen_capture.c): a large recording.\n"
               "lesson: 99_scale\ntitle: \"scale: a large synthetic recording\"\nbinary: wb_scale\n"
               "variants:\n  - name: train\n    args: []\n"
               "ranges: [step, forward, layer, attention, mlp, backward, layer_backward, optimizer]\n"
               "questions:\n  - id: step\n    variant: train\n    range: step\n    facts: [kernels]\n"
               "    ask: \"How many kernels does one step launch?\"\n");
    if (fclose(y) != 0) return -1;
    FILE *p = open_in(dir, "predictions.yaml", "w");
    if (!p) return -1;
    int L = layers;
    fprintf(p, "lesson: 99_scale\npredictions:\n");
    fprintf(p, "  - {id: step, range: step, kernels: %d, gemms: %d, memsets: %d, memcpys: 1,\n"
               "     api_calls: {cudaLaunchKernel: %d, cuLaunchKernelEx: %d, cuKernelGetName: 0, cudaEventQuery: 0,\n"
               "                 cudaGetLastError: %d, cudaStreamSynchronize: 1}}\n",
            12 * L + 1, 8 * L, L, 4 * L + 1, 8 * L, 4 * L + 1);
    fprintf(p, "  - {id: forward, range: forward, kernels: %d, gemms: %d, memsets: 0, kernels_named: {softmax: %d}}\n", 7 * L,
            4 * L, L);
    fprintf(p, "  - {id: layer, range: layer, kernels: 7, gemms: 4, api_calls: {cudaLaunchKernel: 3, cudaGetDevice: 4}}\n");
    fprintf(p, "  - {id: attention, range: attention, kernels: 3, gemms: 2, kernels_named: {\"re:^nvjet_.*_TNT$\": 1}}\n");
    fprintf(p, "  - {id: mlp, range: mlp, kernels: 3, gemms: 2, kernels_named: {gelu: 1}}\n");
    fprintf(p, "  - {id: backward, range: backward, kernels: %d, gemms: %d, memsets: %d}\n", 5 * L, 4 * L, L);
    fprintf(p, "  - {id: layer-backward, range: layer_backward, kernels: 5, memsets: 1, api_calls: {cudaMemsetAsync: 1}}\n");
    fprintf(p, "  - {id: optimizer, range: optimizer, kernels: 1, memcpys: 1, api_calls: {cudaMemcpy: 1}}\n");
    return fclose(p);
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4 || atoi(argv[2]) <= 0 || (argc == 4 && atoi(argv[3]) <= 0)) {
        fprintf(stderr, "usage: wb_gen_capture OUT_DIR STEPS [LAYERS]   (about 1 MB per 7 steps of 12 layers)\n");
        return 2;
    }
    int steps = atoi(argv[2]), layers = argc == 4 ? atoi(argv[3]) : 12;
    char dir[4096], traces[4200];
    snprintf(dir, sizeof dir, "%s/lessons", argv[1]);
    mkdir(argv[1], 0755);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/lessons/99_scale", argv[1]);
    mkdir(dir, 0755);
    snprintf(traces, sizeof traces, "%s/traces", dir);
    mkdir(traces, 0755);
    if (write_lesson(dir, layers) || write_recording(traces, steps, layers)) return 1;
    return 0;
}
