/* wb_lesson.c: see wb_lesson.h. Plain C over the CUDA runtime, cuBLAS and cuBLASLt (C APIs). */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_check.h" /* after the CUDA headers: CUDA_CHECK and CUBLAS_CHECK need their APIs */
#include "wb_lesson.h"
#include "wb_timing.h"

/* ---- the RESULT line ------------------------------------------------------------------------ */

void wb_result_add(wb_result *r, const char *fmt, ...) {
    if (r->len + 2 >= sizeof r->text) return;
    r->text[r->len++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->text + r->len, sizeof r->text - r->len, fmt, ap);
    va_end(ap);
    if (n > 0) r->len += (size_t)n < sizeof r->text - r->len ? (size_t)n : sizeof r->text - r->len - 1;
}

void wb_result_steps(wb_result *r, const wb_steps *timed) {
    wb_result_add(r, "steps=%d gpu_span_us=%.2f wall_us=%.2f", timed->n, wb_median(timed->span_us, timed->n),
                  wb_median(timed->wall_us, timed->n));
}

void wb_result_host_times(wb_result *r, const wb_steps *timed) {
    wb_result_add(r, "launch_us=%.2f sync_us=%.2f", wb_median(timed->launch_us, timed->n),
                  wb_median(timed->sync_us, timed->n));
}

/* ---- options -------------------------------------------------------------------------------- */

/* The frame's options around the lesson's: --variant first, then the lesson's, then the steps. */
typedef struct {
    const char *variant;
    int steps, warmup, seed;
    wb_opt all[WB_OPTS_MAX];
    int n;
    char defaults[WB_OPTS_MAX][32]; /* each option's value before parsing, for the usage */
} options;

static void options_build(options *o, const wb_lesson_spec *spec) {
    o->variant = spec->variants[0];
    o->steps = spec->steps;
    o->warmup = spec->warmup;
    o->seed = 1;
    o->n = 0;
    o->all[o->n++] = (wb_opt){"variant", WB_OPT_STRING, &o->variant, 0, 0, NULL, spec->variant_help, NULL};
    for (int i = 0; i < spec->n_options && o->n < WB_OPTS_MAX - 3; i++) o->all[o->n++] = spec->options[i];
    o->all[o->n++] = (wb_opt){"steps", WB_OPT_INT, &o->steps, 1, 100000, "S",
                              "measured steps, between cudaProfilerStart and cudaProfilerStop", NULL};
    o->all[o->n++] = (wb_opt){"warmup", WB_OPT_INT, &o->warmup, 0, 100000, "W", "unmeasured steps before them", NULL};
    o->all[o->n++] = (wb_opt){"seed", WB_OPT_INT, &o->seed, 0, 1 << 30, "X", "seed of the random inputs", NULL};
    for (int i = 0; i < o->n; i++) {
        const wb_opt *p = &o->all[i];
        char *d = o->defaults[i];
        switch (p->kind) {
        case WB_OPT_INT: snprintf(d, sizeof o->defaults[i], "%d", *(const int *)p->value); break;
        case WB_OPT_I64: snprintf(d, sizeof o->defaults[i], "%lld", *(const long long *)p->value); break;
        case WB_OPT_DOUBLE: snprintf(d, sizeof o->defaults[i], "%g", *(const double *)p->value); break;
        case WB_OPT_STRING: snprintf(d, sizeof o->defaults[i], "%s", *(const char *const *)p->value); break;
        default: d[0] = '\0';
        }
    }
}

/* usage: PROG [--variant a|b] [--size N] ... then one line per option, its default after it. */
static void usage(FILE *f, const char *prog, const wb_lesson_spec *spec, const options *o) {
    char variants[256] = "";
    for (int i = 0; spec->variants[i]; i++)
        snprintf(variants + strlen(variants), sizeof variants - strlen(variants), "%s%s", i ? "|" : "", spec->variants[i]);
    fprintf(f, "usage: %s", prog);
    int indent = 7 + (int)strlen(prog), col = indent, width = 0;
    for (int i = 0; i < o->n; i++) {
        char item[300];
        const wb_opt *p = &o->all[i];
        if (p->kind == WB_OPT_FLAG) snprintf(item, sizeof item, " [--%s]", p->name);
        else snprintf(item, sizeof item, " [--%s %s]", p->name, i == 0 ? variants : p->metavar ? p->metavar : "VALUE");
        if (col + (int)strlen(item) > 100) {
            fprintf(f, "\n%*s", indent - 1, "");
            col = indent - 1;
        }
        fputs(item, f);
        col += (int)strlen(item);
        if ((int)strlen(p->name) > width) width = (int)strlen(p->name);
    }
    fputc('\n', f);
    for (int i = 0; i < o->n; i++) {
        const wb_opt *p = &o->all[i];
        fprintf(f, "  --%-*s  ", width, p->name);
        for (const char *h = p->help ? p->help : ""; *h; h++) {
            fputc(*h, f);
            if (*h == '\n') fprintf(f, "%*s", width + 6, "");
        }
        if (o->defaults[i][0]) fprintf(f, " (default %s)", o->defaults[i]);
        fputc('\n', f);
    }
    if (spec->example) fprintf(f, "  %s\n", spec->example);
}

/* ---- set-up and tear-down ------------------------------------------------------------------- */

static int gpu_init(wb_lesson_run *run, int gpu) {
    CUDA_CHECK(cudaDeviceGetAttribute(&run->sms, cudaDevAttrMultiProcessorCount, 0));
    if (!gpu) return WB_OK;
    CUDA_CHECK(cudaStreamCreateWithFlags(&run->stream, cudaStreamNonBlocking));
    if (gpu & (WB_GPU_CUBLAS | WB_GPU_CUBLASLT)) CUDA_CHECK(cudaMalloc(&run->workspace, WB_LESSON_WORKSPACE_BYTES));
    if (gpu & WB_GPU_CUBLAS) {
        CUBLAS_CHECK(cublasCreate(&run->cublas));
        CUBLAS_CHECK(cublasSetStream(run->cublas, run->stream));
        CUBLAS_CHECK(cublasSetWorkspace(run->cublas, run->workspace, WB_LESSON_WORKSPACE_BYTES));
    }
    if (gpu & WB_GPU_CUBLASLT) CUBLAS_CHECK(cublasLtCreate(&run->lt));
    return WB_OK;
}

/* Safe on a partly built run. Errors are ignored: we are leaving. */
static void gpu_free(wb_lesson_run *run, int gpu) {
    if (run->lt) cublasLtDestroy(run->lt);
    if (run->cublas) cublasDestroy(run->cublas);
    cudaFree(run->workspace);
    if (gpu && run->stream) cudaStreamDestroy(run->stream);
    run->lt = NULL;
    run->cublas = NULL;
    run->workspace = NULL;
    run->stream = NULL;
}

/* ---- the run -------------------------------------------------------------------------------- */

static int run_lesson(const wb_lesson_spec *spec, void *L, wb_lesson_run *run) {
    wb_step step = {0};   /* one step: forward() eagerly, or (graph) one replay of its capture */
    wb_steps timed = {0}; /* the measured steps' events and times */
    int rc = WB_FAIL;

    if (gpu_init(run, spec->gpu) != WB_OK || spec->fns.init(L, run) != WB_OK) goto done;
    /* The uploads and memsets of init ran on the legacy default stream, which a non-blocking
     * stream does not wait for: finish them before the first step. */
    if (cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "the lesson's set-up failed on the GPU: %s\n", cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    wb_step_init(&step, run->stream, spec->fns.forward, L);
    if (spec->graph_variant && !strcmp(spec->variants[run->variant], spec->graph_variant)) {
        /* One eager step first, so libraries pick their algorithms and load their kernels outside
         * the capture; then record the step into a graph, which every later step replays. */
        if (wb_step_run(&step, NULL, NULL, NULL) != WB_OK || wb_step_capture(&step) != WB_OK) goto done;
    }
    if (wb_steps_measure(&timed, &step, run->warmup, run->steps) != WB_OK) goto done;
    if (spec->fns.after_steps && spec->fns.after_steps(L) != WB_OK) goto done;

    char words[256] = "";
    if (spec->fns.describe) spec->fns.describe(L, words, sizeof words);
    printf("lesson %s: variant %s%s%s, %d measured steps\n", spec->name, spec->variants[run->variant],
           words[0] ? ", " : "", words, run->steps);
    if (spec->fns.check(L) != WB_OK) {
        fprintf(stderr, "FAIL: the result differs from the CPU reference\n");
        goto done;
    }
    wb_steps_print(&timed);
    wb_result r = {"", 0};
    if (spec->fns.report) {
        spec->fns.report(L, &timed, &r);
    } else {
        wb_result_steps(&r, &timed);
        wb_result_host_times(&r, &timed);
    }
    printf("RESULT lesson=%s variant=%s%s\n", spec->name, spec->variants[run->variant], r.text);
    rc = WB_OK;
done:
    wb_steps_free(&timed);
    wb_step_free(&step);
    spec->fns.free(L);
    gpu_free(run, spec->gpu);
    return rc;
}

int wb_lesson_main(const wb_lesson_spec *spec, void *L, int argc, char **argv) {
    options o;
    options_build(&o, spec);
    int parsed = wb_opts_parse(o.all, o.n, argc, argv);
    if (parsed == 1) {
        usage(stdout, argv[0], spec, &o);
        return EXIT_SUCCESS;
    }
    wb_lesson_run run;
    memset(&run, 0, sizeof run);
    run.variant = -1;
    for (int i = 0; parsed == 0 && spec->variants[i]; i++)
        if (!strcmp(o.variant, spec->variants[i])) run.variant = i;
    if (parsed == 0 && run.variant < 0) fprintf(stderr, "unknown variant '%s'\n", o.variant);
    if (parsed != 0 || run.variant < 0) {
        usage(stderr, argv[0], spec, &o);
        return 2;
    }
    const char *why = spec->validate ? spec->validate(L) : NULL;
    if (why) {
        fprintf(stderr, "%s: %s\n", argv[0], why);
        return 2;
    }
    run.steps = o.steps;
    run.warmup = o.warmup;
    run.seed = (unsigned long long)o.seed;
    return run_lesson(spec, L, &run) == WB_OK ? EXIT_SUCCESS : EXIT_FAILURE;
}
