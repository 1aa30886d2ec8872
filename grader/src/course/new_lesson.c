/*
 * new_lesson.c: see new_lesson.h. The files are written from templates below, with @LESSON@
 * (NN_name), @NUMBER@ (NN), @BINARY@ and @TITLE@ substituted. lesson.yaml is written first and
 * read back with the grader's own reader, so a skeleton the grader cannot read is never left
 * behind; the predictions template is made from what was read.
 */
#define _GNU_SOURCE
#include "new_lesson.h"
#include "learner_files.h"
#include "lesson.h"
#include "wb_base.h"
#include "template.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the files ------------------------------------------------------------------------------ */

static const char MAIN_CU[] =
    "/*\n"
    " * Lesson @LESSON@: @TITLE_C@\n"
    " *\n"
    " * TODO: what one step does, in the terms a PyTorch user knows. This skeleton (made by\n"
    " * `grader new`) computes y = a * x + b on fp32 vectors with one kernel and checks it against a\n"
    " * CPU reference: replace the computation, keep the structure.\n"
    " *\n"
    " *     @BINARY@ [--variant eager] [--size N] [--steps S] [--warmup W] [--seed X]\n"
    " *\n"
    " * Variants\n"
    " *   eager   one kernel launch per step\n"
    " *\n"
    " * Program order (common/wb_lesson.c, every lesson's frame): setup, warm-up steps (module loading\n"
    " * and library heuristics happen here, outside the measurement), then --steps measured steps\n"
    " * between cudaProfilerStart and cudaProfilerStop (the window the grader grades), then the CPU\n"
    " * reference check.\n"
    " *\n"
    " * NVTX ranges (the lesson's interface: lesson.yaml lists them and `grader lint` checks them\n"
    " * against the recordings):\n"
    " *   step   one measured step, from its first launch to the end of its synchronize\n"
    " *   axpy   the k_axpy launch\n"
    " *   sync   the cudaDeviceSynchronize that ends every step (common/wb_steps.c)\n"
    " *\n"
    " * Exit status: 0 when the result matches the CPU reference, 1 on any CUDA error or a wrong\n"
    " * result, 2 on bad usage.\n"
    " */\n"
    "#include <cuda_runtime.h>\n"
    "#include <nvtx3/nvToolsExt.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "\n"
    "#include \"wb_check.h\"\n"
    "#include \"wb_compare.h\"\n"
    "#include \"wb_lesson.h\"\n"
    "#include \"wb_random.h\"\n"
    "\n"
    "/* fp32 in, fp32 out, one multiply-add per element: far under 1e-5 from the double reference. */\n"
    "#define TOLERANCE 1e-5\n"
    "\n"
    "/* ---- kernels -------------------------------------------------------------------------------- */\n"
    "\n"
    "/* y (n) = a * x (n) + b (n), one thread per element. Memory-bound: 12 bytes moved per 2 flops. */\n"
    "__global__ void k_axpy(float *y, const float *x, const float *b, float a, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + b[i];\n"
    "}\n"
    "\n"
    "/* ---- host launchers ------------------------------------------------------------------------- */\n"
    "\n"
    "static int axpy(float *y, const float *x, const float *b, float a, int n, cudaStream_t stream) {\n"
    "    const int block = 256;\n"
    "    k_axpy<<<(n + block - 1) / block, block, 0, stream>>>(y, x, b, a, n);\n"
    "    CUDA_CHECK_LAUNCH();\n"
    "    return WB_OK;\n"
    "}\n"
    "\n"
    "/* ---- the lesson's state --------------------------------------------------------------------- */\n"
    "\n"
    "typedef struct {\n"
    "    int n;                   /* vector length (--size) */\n"
    "    float a;                 /* the scalar */\n"
    "    float *x;                /* (n) input */\n"
    "    float *b;                /* (n) input */\n"
    "    float *y;                /* (n) output */\n"
    "    float *x_host, *b_host;  /* (n) the same inputs on the host, for the reference */\n"
    "    cudaStream_t stream;     /* every launch goes here (made by common/wb_lesson.c) */\n"
    "} lesson;\n"
    "\n"
    "static int lesson_init(void *ctx, wb_lesson_run *run) {\n"
    "    lesson *L = (lesson *)ctx;\n"
    "    int n = L->n;\n"
    "    L->a = 0.5f;\n"
    "    L->stream = run->stream;\n"
    "    L->x_host = (float *)malloc((size_t)n * sizeof(float));\n"
    "    L->b_host = (float *)malloc((size_t)n * sizeof(float));\n"
    "    if (!L->x_host || !L->b_host) {\n"
    "        fprintf(stderr, \"out of host memory for size %d\\n\", n);\n"
    "        return WB_FAIL;\n"
    "    }\n"
    "    wb_rng rng;\n"
    "    wb_rng_seed(&rng, run->seed);\n"
    "    wb_fill_uniform(L->x_host, (size_t)n, &rng, -1.0f, 1.0f);\n"
    "    wb_fill_uniform(L->b_host, (size_t)n, &rng, -1.0f, 1.0f);\n"
    "    CUDA_CHECK(cudaMalloc((void **)&L->x, (size_t)n * sizeof(float)));\n"
    "    CUDA_CHECK(cudaMalloc((void **)&L->b, (size_t)n * sizeof(float)));\n"
    "    CUDA_CHECK(cudaMalloc((void **)&L->y, (size_t)n * sizeof(float)));\n"
    "    CUDA_CHECK(cudaMemcpy(L->x, L->x_host, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));\n"
    "    CUDA_CHECK(cudaMemcpy(L->b, L->b_host, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));\n"
    "    /* NaN bits in the output, so an output nobody writes cannot pass the check */\n"
    "    CUDA_CHECK(cudaMemset(L->y, 0xFF, (size_t)n * sizeof(float)));\n"
    "    return WB_OK;\n"
    "}\n"
    "\n"
    "/* Frees what lesson_init made; safe on a partly built lesson. Errors are ignored: we are leaving. */\n"
    "static void lesson_free(void *ctx) {\n"
    "    lesson *L = (lesson *)ctx;\n"
    "    cudaFree(L->x);\n"
    "    cudaFree(L->b);\n"
    "    cudaFree(L->y);\n"
    "    free(L->x_host);\n"
    "    free(L->b_host);\n"
    "}\n"
    "\n"
    "/* ---- one step ------------------------------------------------------------------------------- */\n"
    "\n"
    "/* The step's launches, each in its own NVTX range. common/wb_steps.c wraps them in the `step`\n"
    " * range, times them and ends the step with the synchronize (range `sync`). */\n"
    "static int forward(void *ctx) {\n"
    "    lesson *L = (lesson *)ctx;\n"
    "    nvtxRangePushA(\"axpy\");\n"
    "    int rc = axpy(L->y, L->x, L->b, L->a, L->n, L->stream);\n"
    "    nvtxRangePop();\n"
    "    return rc;\n"
    "}\n"
    "\n"
    "/* ---- checking ------------------------------------------------------------------------------- */\n"
    "\n"
    "/* Compares y with a double-precision reference computed from the same inputs. */\n"
    "static int check_result(const void *ctx) {\n"
    "    const lesson *L = (const lesson *)ctx;\n"
    "    float *out = (float *)malloc((size_t)L->n * sizeof(float));\n"
    "    double *ref = (double *)malloc((size_t)L->n * sizeof(double));\n"
    "    int rc = WB_FAIL;\n"
    "    if (!out || !ref) {\n"
    "        fprintf(stderr, \"out of host memory for the check\\n\");\n"
    "    } else if (cudaMemcpy(out, L->y, (size_t)L->n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {\n"
    "        fprintf(stderr, \"copying y back failed\\n\");\n"
    "    } else {\n"
    "        for (int i = 0; i < L->n; i++) ref[i] = (double)L->a * L->x_host[i] + L->b_host[i];\n"
    "        rc = wb_check_close(\"y = a * x + b\", out, ref, (size_t)L->n, TOLERANCE) == 0 ? WB_OK : WB_FAIL;\n"
    "    }\n"
    "    free(out);\n"
    "    free(ref);\n"
    "    return rc;\n"
    "}\n"
    "\n"
    "/* ---- main ----------------------------------------------------------------------------------- */\n"
    "\n"
    "/* The run's shape, in the header line and in the RESULT line (with the steps' medians). */\n"
    "static void describe(const void *ctx, char *words, size_t cap) {\n"
    "    snprintf(words, cap, \"size %d\", ((const lesson *)ctx)->n);\n"
    "}\n"
    "\n"
    "static void report(const void *ctx, const wb_steps *timed, wb_result *r) {\n"
    "    wb_result_add(r, \"size=%d\", ((const lesson *)ctx)->n);\n"
    "    wb_result_steps(r, timed);\n"
    "    wb_result_host_times(r, timed);\n"
    "}\n"
    "\n"
    "int main(int argc, char **argv) {\n"
    "    lesson L = {};\n"
    "    L.n = 1 << 20; /* vector length */\n"
    "    const wb_opt options[] = {WB_INT_HELP(\"size\", &L.n, 1, 1 << 28, \"N\", \"vector length\")};\n"
    "    static const char *const variants[] = {\"eager\", NULL};\n"
    "\n"
    "    wb_lesson_spec spec = {};\n"
    "    spec.name = \"@LESSON@\";\n"
    "    spec.variants = variants;\n"
    "    spec.variant_help = \"eager: one kernel launch per step\";\n"
    "    spec.options = options;\n"
    "    spec.n_options = 1;\n"
    "    spec.steps = 20; /* lesson.yaml uses 3 to keep recordings small */\n"
    "    spec.warmup = 5;\n"
    "    spec.gpu = WB_GPU_STREAM;\n"
    "    spec.fns = {lesson_init, forward, NULL, check_result, describe, report, lesson_free, NULL};\n"
    "    return wb_lesson_main(&spec, &L, argc, argv);\n"
    "}\n";

static const char CMAKELISTS[] = "wb_add_lesson(@BINARY@ SOURCES main.cu)\n";

static const char LESSON_YAML[] =
    "# Lesson @LESSON@, made by `grader new`. docs/lesson-format.md describes every key;\n"
    "# `grader lint lessons/@LESSON@` checks this file against the predictions template, the answer\n"
    "# key and the recordings. After editing the questions, remake the template with\n"
    "# `grader template lessons/@LESSON@ > lessons/@LESSON@/predictions.template.yaml`.\n"
    "lesson: @LESSON@\n"
    "title: @TITLE_YAML@\n"
    "binary: @BINARY@\n"
    "variants:\n"
    "  - name: eager\n"
    "    args: [--variant, eager, --steps, \"3\"]\n"
    "    about: \"one kernel launch per step\"\n"
    "ranges: [step, axpy, sync]\n"
    "questions:\n"
    "  - id: step-kernels\n"
    "    variant: eager\n"
    "    range: step\n"
    "    facts: [kernels, api_calls.cudaLaunchKernel]\n"
    "    ask: \"How many kernels run in one step, and how many cudaLaunchKernel calls does the host make for them?\"\n"
    "    hints:\n"
    "      - \"Count the <<<...>>> launches inside one step of main.cu.\"\n"
    "      - \"A <<<...>>> launch goes through the runtime's cudaLaunchKernel.\"\n";

static const char README_MD[] =
    "# Lesson @NUMBER@: @TITLE@\n"
    "\n"
    "TODO: what this lesson is about in two or three sentences, and what the learner should take\n"
    "away from it.\n"
    "\n"
    "## Run it\n"
    "\n"
    "    cmake --build build\n"
    "    build/bin/@BINARY@ --variant eager\n"
    "\n"
    "## Predict\n"
    "\n"
    "Read `main.cu`, then write down what you expect the program to launch. `grader check` asks each\n"
    "question on the terminal and keeps your answers in `predictions.yaml` (made from the lesson's\n"
    "`predictions.template.yaml`, which git tracks; yours it ignores). You may also edit that file by\n"
    "hand: replace every `~`, the comment above each prediction is its question. Then it grades them:\n"
    "\n"
    "    grader check lessons/@LESSON@\n"
    "\n"
    "Stuck? `grader hint @LESSON@` gives one hint at a time. Do not read past the line below before\n"
    "your predictions are graded.\n"
    "\n"
    "<!-- reveal -->\n"
    "\n"
    "## What the trace shows\n"
    "\n"
    "TODO: what ran and why (expectations/@LESSON@.yaml explains each question), and what to look\n"
    "at in the trace (open it at https://ui.perfetto.dev).\n";

static const char ANSWER_KEY[] =
    "# Answer key of lesson @LESSON@: an UNVERIFIED skeleton made by `grader new`. Nothing here was\n"
    "# checked on a GPU. To finish it:\n"
    "#   1. on a GPU machine: grader record lessons/@LESSON@   (writes lessons/@LESSON@/traces/sm_NN.json)\n"
    "#   2. write the answers for that architecture below (uncomment and fill in the block)\n"
    "#   3. grader verify lessons/@LESSON@ --replay            (the key must hold against the recording)\n"
    "#   4. set status: verified, say where in verified_on, and run grader lint lessons/@LESSON@\n"
    "# Until then `grader lint` reports this lesson as unfinished.\n"
    "lesson: @LESSON@\n"
    "architectures: {}\n"
    "#  sm_90:\n"
    "#    status: unverified\n"
    "#    verified_on: \"GPU, driver, CUDA, cuBLAS, date\"\n"
    "#    predictions:\n"
    "#      - id: step-kernels\n"
    "#        variant: eager\n"
    "#        range: step\n"
    "#        kernels: 0\n"
    "#        api_calls: {cudaLaunchKernel: 0}\n"
    "explanations:\n"
    "  step-kernels: \"TODO: why one step launches what it launches\"\n";

/* ---- writing -------------------------------------------------------------------------------- */

typedef struct {
    const char *lesson, *number, *binary, *title, *title_yaml, *title_c;
} substitutions;

/* tmpl with every @KEY@ replaced; malloc'd. */
static char *substitute(const char *tmpl, const substitutions *s) {
    const struct { const char *key, *value; } keys[] = {
        {"@LESSON@", s->lesson}, {"@NUMBER@", s->number}, {"@BINARY@", s->binary},
        {"@TITLE_YAML@", s->title_yaml}, {"@TITLE_C@", s->title_c}, {"@TITLE@", s->title},
    };
    size_t cap = strlen(tmpl) + 1;
    for (const char *p = tmpl; (p = strchr(p, '@')); p++) cap += 512 + strlen(s->title) + strlen(s->title_yaml) + strlen(s->title_c);
    char *out = malloc(cap), *o = out;
    if (!out) return NULL;
    for (const char *p = tmpl; *p;) {
        int done = 0;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0] && *p == '@'; k++) {
            size_t n = strlen(keys[k].key);
            if (!strncmp(p, keys[k].key, n)) {
                o += sprintf(o, "%s", keys[k].value);
                p += n;
                done = 1;
                break;
            }
        }
        if (!done) *o++ = *p++;
    }
    *o = '\0';
    return out;
}

/* Creates path (never replacing a file: "x" mode) with text. */
static int write_new(const char *path, const char *text, wb_error *err) {
    FILE *f = fopen(path, "wx");
    if (!f) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot create it: %s"), path, strerror(errno));
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    if (fclose(f) != 0) ok = 0;
    if (!ok) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write it"), path);
    return 0;
}

int wb_next_lesson_number(const char *root) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/lessons", root);
    DIR *d = opendir(dir);
    int highest = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && e->d_name[1] >= '0' && e->d_name[1] <= '9' && e->d_name[2] == '_') {
            int n = (e->d_name[0] - '0') * 10 + (e->d_name[1] - '0');
            if (n > highest) highest = n;
        }
    if (d) closedir(d);
    return highest + 1;
}

/* A lesson folder with the same NN_ prefix, or the same name after it, into buf; 0 when there is one. */
static int lesson_taken(const char *root, int number, const char *name, char *buf, size_t cap) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/lessons", root);
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = -1;
    char prefix[8];
    snprintf(prefix, sizeof prefix, "%02d_", number);
    while (d && found < 0 && (e = readdir(d))) {
        const char *s = e->d_name;
        int numbered = s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' && s[2] == '_';
        if (numbered && (!strncmp(s, prefix, 3) || !strcmp(s + 3, name))) {
            snprintf(buf, cap, "%s", s);
            found = 0;
        }
    }
    if (d) closedir(d);
    return found;
}

static int valid_name(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 48 || !(s[0] >= 'a' && s[0] <= 'z')) return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) return 0;
    return s[n - 1] != '_';
}

int wb_new_lesson_create(const wb_new_lesson *req, char *out_dir, size_t cap, wb_error *err) {
    const char *name = req->name;
    int number = req->number;
    if (name[0] >= '0' && name[0] <= '9' && name[1] >= '0' && name[1] <= '9' && name[2] == '_') {
        int given = (name[0] - '0') * 10 + (name[1] - '0');
        if (number >= 0 && number != given)
            return wb_fail(err, WB_EXIT_INPUT, _("'%s' says number %02d but --number says %02d; give one"), name, given, number);
        number = given;
        name += 3;
    }
    if (!valid_name(name))
        return wb_fail(err, WB_EXIT_INPUT, _("'%s' is not a lesson name: use lowercase letters, digits and '_', starting with a "
                       "letter (at most 48), e.g. attention or 05_attention"), req->name);
    if (number < 0) number = wb_next_lesson_number(req->root);
    if (number < 1 || number > 99) return wb_fail(err, WB_EXIT_INPUT, _("lesson number %d is outside 01..99"), number);

    char lessons[4200], lesson[128], dir[4400], keys[4200], key[4400], taken[256];
    snprintf(lessons, sizeof lessons, "%s/lessons", req->root);
    snprintf(lesson, sizeof lesson, "%02d_%s", number, name);
    snprintf(dir, sizeof dir, "%s/%s", lessons, lesson);
    snprintf(keys, sizeof keys, "%s/expectations", req->root);
    snprintf(key, sizeof key, "%s/%s.yaml", keys, lesson);
    if (!wb_is_dir(lessons)) return wb_fail(err, WB_EXIT_INPUT, _("%s: no lessons folder here; run grader new in the checkout"), lessons);
    if (wb_is_dir(dir) || wb_file_exists(dir)) return wb_fail(err, WB_EXIT_INPUT, _("%s already exists; nothing was changed"), dir);
    if (lesson_taken(req->root, number, name, taken, sizeof taken) == 0)
        return wb_fail(err, WB_EXIT_INPUT, _("lessons/%s exists: %s; nothing was changed"), taken,
                       strcmp(taken + 3, name) ? _("course order is the number, pick another with --number")
                                               : _("a lesson by that name exists, pick another name"));
    if (wb_file_exists(key)) return wb_fail(err, WB_EXIT_INPUT, _("%s already exists; nothing was changed"), key);

    char number_text[8], binary[160], title[512], title_yaml[1100];
    snprintf(number_text, sizeof number_text, "%02d", number);
    snprintf(binary, sizeof binary, "lesson_%s", lesson);
    if (req->title && req->title[0]) snprintf(title, sizeof title, "%s", req->title);
    else snprintf(title, sizeof title, "TODO: a one-line title for %s", name);
    for (const unsigned char *c = (const unsigned char *)title; *c; c++)
        if (*c < 0x20 || *c == 0x7F)
            return wb_fail(err, WB_EXIT_INPUT, _("the title must be one line of text (it holds a control character 0x%02X)"), *c);
    /* in main.cu the title sits in a comment: a "*" "/" inside would end it, and the file would
     * not compile (nor, with it, any lesson of the build) */
    char title_c[1100];
    size_t oc = 0;
    for (const char *c = title; *c && oc + 3 < sizeof title_c; c++) {
        title_c[oc++] = *c;
        if (c[0] == '*' && c[1] == '/') title_c[oc++] = ' ';
        if (c[0] == '/' && c[1] == '*') title_c[oc++] = ' '; /* no nested comment opener either (-Wcomment) */
    }
    title_c[oc] = '\0';
    /* always quoted: titles hold ':' and '#' often enough */
    size_t o = 0;
    title_yaml[o++] = '"';
    for (const char *c = title; *c && o + 3 < sizeof title_yaml; c++) {
        if (*c == '"' || *c == '\\') title_yaml[o++] = '\\';
        title_yaml[o++] = *c;
    }
    title_yaml[o++] = '"';
    title_yaml[o] = '\0';
    substitutions subs = {lesson, number_text, binary, title, title_yaml, title_c};

    if (mkdir(dir, 0755) != 0)
        return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot create it: %s; nothing was changed"), dir, strerror(errno));
    if (wb_mkdir_p(keys) != 0) {
        rmdir(dir);
        return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot create it"), keys);
    }
    static const struct { const char *file, *tmpl; } files[] = {
        {"lesson.yaml", LESSON_YAML}, {"main.cu", MAIN_CU}, {"CMakeLists.txt", CMAKELISTS}, {"README.md", README_MD},
    };
    char written[8][4600];
    size_t n_written = 0;
    int rc = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0] && !rc; i++) {
        char *text = substitute(files[i].tmpl, &subs);
        snprintf(written[n_written], sizeof written[0], "%s/%s", dir, files[i].file);
        rc = text ? write_new(written[n_written], text, err) : wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
        if (!rc) n_written++;
        free(text);
    }
    /* the template, from lesson.yaml as the grader reads it */
    wb_lesson l;
    if (!rc && !(rc = wb_lesson_load(dir, &l, err))) {
        char *text = wb_predictions_template(&l);
        wb_template_path(dir, written[n_written], sizeof written[0]);
        rc = text ? write_new(written[n_written], text, err) : wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
        if (!rc) n_written++;
        free(text);
        wb_lesson_free(&l);
    }
    if (!rc) {
        char *text = substitute(ANSWER_KEY, &subs);
        snprintf(written[n_written], sizeof written[0], "%s", key);
        rc = text ? write_new(key, text, err) : wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
        if (!rc) n_written++;
        free(text);
    }
    if (rc) { /* leave nothing half made */
        for (size_t i = 0; i < n_written; i++) unlink(written[i]);
        rmdir(dir);
        return rc;
    }
    snprintf(out_dir, cap, "%s", dir);
    return 0;
}
