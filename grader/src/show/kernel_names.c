/*
 * kernel_names.c: see kernel_names.h. One decoder per family, tried in order; each splits the
 * name at '_' and labels the tokens it recognises. Sources for each family's fields are in
 * docs/kernel-names.md; in short:
 *   - CUTLASS 2 and 3 procedural names: CUTLASS's profiler documentation (media/docs/profiler.md)
 *     and its layout letters (functionality.md: N column-major, T row-major).
 *   - Triton kernels of torch.compile: PyTorch Inductor's source (codegen/triton.py builds
 *     "triton_" + category[:3] + "_" + fused op names + "_" + counter).
 *   - PyTorch ATen: the kernel templates in aten/src/ATen/native/cuda (CUDALoops.cuh, Reduce.cuh).
 *   - cuBLAS (nvjet, xmma, ampere_*): not documented by NVIDIA. Fields marked "evidence" rest on
 *     the H200 captures of this project (see the notes they carry); the rest are "undocumented".
 */
#define _GNU_SOURCE
#include "kernel_names.h"
#include "wb_base.h"

#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- small helpers -------------------------------------------------------------------------- */

static void field(wb_kernel_explanation *e, const char *token, const char *what, wb_name_basis basis, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void field(wb_kernel_explanation *e, const char *token, const char *what, wb_name_basis basis, const char *fmt, ...) {
    if (e->n_fields >= WB_EXPLAIN_MAX_FIELDS) return;
    wb_name_field *f = &e->fields[e->n_fields++];
    snprintf(f->token, sizeof f->token, "%s", token);
    snprintf(f->what, sizeof f->what, "%s", what);
    f->basis = basis;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->meaning, sizeof f->meaning, fmt, ap);
    va_end(ap);
}

static void note(wb_kernel_explanation *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(wb_kernel_explanation *e, const char *fmt, ...) {
    if (e->n_notes >= WB_EXPLAIN_MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->notes[e->n_notes++], sizeof e->notes[0], fmt, ap);
    va_end(ap);
}

static void family(wb_kernel_explanation *e, const char *name, const char *summary) {
    snprintf(e->family, sizeof e->family, "%s", name);
    snprintf(e->summary, sizeof e->summary, "%s", summary);
}

const char *wb_name_basis_label(wb_name_basis b) {
    switch (b) {
    case WB_BASIS_DOCUMENTED: return N_("documented");
    case WB_BASIS_SOURCE: return N_("source");
    case WB_BASIS_CONVENTION: return N_("convention");
    case WB_BASIS_EVIDENCE: return N_("evidence (undocumented)");
    case WB_BASIS_UNDOCUMENTED: return N_("undocumented");
    }
    return "?";
}

/* Splits s at sep into at most max tokens (pointers into buf). */
static size_t split(const char *s, char sep, char *buf, size_t cap, char **tok, size_t max) {
    snprintf(buf, cap, "%s", s);
    size_t n = 0;
    char *p = buf;
    while (n < max) {
        tok[n++] = p;
        char *q = strchr(p, sep);
        if (!q) break;
        *q = '\0';
        p = q + 1;
    }
    return n;
}

/* "256x128" or "128x128x64": 2 or 3 positive numbers joined by 'x'. Returns how many (0: not). */
static int dims(const char *t, int out[3]) {
    int n = 0;
    const char *p = t;
    while (n < 3) {
        if (!isdigit((unsigned char)*p)) return 0;
        char *end;
        long v = strtol(p, &end, 10);
        out[n++] = (int)v;
        p = end;
        if (*p == '\0') break;
        if (*p != 'x') return 0;
        p++;
    }
    return *p == '\0' && n >= 2 ? n : 0;
}

static int all_of(const char *t, const char *letters, size_t min, size_t max) {
    size_t n = strlen(t);
    if (n < min || n > max) return 0;
    for (; *t; t++)
        if (!strchr(letters, *t)) return 0;
    return 1;
}

/* Data type words used by CUTLASS, cuBLAS and ATen, their meanings in the learner's language (a
 * bare type name such as "int8" is the same in every language: not in the catalog). */
static const char *type_word(const char *t) {
    static const struct { const char *word, *meaning; } types[] = {
        {"bf16", N_("bfloat16 (8-bit exponent, 7-bit mantissa)")},
        {"f16", N_("fp16 (IEEE half precision)")},
        {"fp16", N_("fp16 (IEEE half precision)")},
        {"f32", N_("fp32 (single precision)")},
        {"fp32", N_("fp32 (single precision)")},
        {"tf32", N_("tf32 (fp32 range, 10-bit mantissa: tensor-core input format)")},
        {"f64", N_("fp64 (double precision)")},
        {"fp64", N_("fp64 (double precision)")},
        {"e4m3", "fp8 e4m3"},
        {"e5m2", "fp8 e5m2"},
        {"fp8", "fp8"},
        {"s8", "int8"},
        {"i8", "int8"},
        {"u8", "uint8"},
        {"s32", "int32"},
        {"i32", "int32"},
        {"s4", "int4"},
        {"void", N_("none (the kernel reads no C matrix)")},
        {NULL, NULL},
    };
    for (size_t i = 0; types[i].word; i++)
        if (!strcmp(t, types[i].word)) return _(types[i].meaning);
    return NULL;
}

/* Tensor-core instruction shapes as names write them: s16816 is an m16n8k16 MMA. */
static const char *mma_shape(const char *digits) {
    static const struct { const char *code, *shape; } shapes[] = {
        {"884", "m8n8k4"},      {"1688", "m16n8k8"},   {"16816", "m16n8k16"}, {"16832", "m16n8k32"},
        {"16864", "m16n8k64"},  {"8816", "m8n8k16"},   {"8832", "m8n8k32"},   {"161616", "m16n16k16"},
        {"32816", "m32n8k16"},  {"81616", "m8n16k16"}, {NULL, NULL},
    };
    for (size_t i = 0; shapes[i].code; i++)
        if (!strcmp(digits, shapes[i].code)) return shapes[i].shape;
    return NULL;
}

/* Activation and bias words that name a fused epilogue; their meanings in the learner's language. */
static const char *epilogue_word(const char *t) {
    static const struct { const char *word, *meaning; } words[] = {
        {"bias", N_("adds a bias vector in the epilogue")},
        {"gelu", N_("applies GELU in the epilogue")},
        {"relu", N_("applies ReLU in the epilogue")},
        {"silu", N_("applies SiLU in the epilogue")},
        {"swish", N_("applies swish (SiLU) in the epilogue")},
        {"sigmoid", N_("applies a sigmoid in the epilogue")},
        {"tanh", N_("applies tanh in the epilogue")},
        {"dgelu", N_("multiplies by the GELU derivative (backward) in the epilogue")},
        {"drelu", N_("multiplies by the ReLU derivative (backward) in the epilogue")},
        {"bgrad", N_("reduces a bias gradient in the epilogue")},
        {"bgrada", N_("reduces a bias gradient (over A) in the epilogue")},
        {"bgradb", N_("reduces a bias gradient (over B) in the epilogue")},
        {"aux", N_("writes an auxiliary output in the epilogue")},
        {NULL, NULL},
    };
    for (size_t i = 0; words[i].word; i++)
        if (!strcasecmp(t, words[i].word)) return _(words[i].meaning);
    return NULL;
}

/* A short name for an architecture token: sm90 -> "sm_90 (Hopper)". */
static void arch_name(const char *t, char *buf, size_t cap) {
    int cc = atoi(t + 2);
    const char *gen = cc >= 120 ? _("Blackwell (consumer)") : cc >= 100 ? "Blackwell" : cc >= 90 ? "Hopper" : cc >= 89 ? "Ada"
                    : cc >= 80 ? "Ampere" : cc >= 75 ? "Turing" : cc >= 70 ? "Volta" : _("pre-Volta");
    snprintf(buf, cap, "sm_%d%s (%s)", cc, t[strlen(t) - 1] == 'a' ? "a" : "", gen);
}

/* The row-major reading of cuBLAS's two operation letters, for C code that passes its operands
 * swapped (C^T = B^T A^T: lessons 01-03 do this; see lessons/01_matmul_add/main.cu). hedge: the
 * letters are not known to be operation letters (the note says so before reading them). */
static void row_major_reading(wb_kernel_explanation *e, char op1, char op2, int hedge) {
    /* TRANSLATORS: a parenthesis closing the sentence "Read that way, TN means row-major C = A @ B^T%s." */
    const char *example = op1 == 'T' && op2 == 'N' ? _(" (B stored (out, in), like nn.Linear's weight: lesson 02's 'TN' GEMM)")
                        : op1 == 'N' && op2 == 'N' ? _(" (the plain product: lesson 01)") : "";
    const char *a = op2 == 'T' ? "A^T" : "A", *b = op1 == 'T' ? "B^T" : "B";
    if (hedge)
        note(e, _("Layout letters for row-major C code: cuBLAS is column-major, and a row-major matrix read column-major is "
                  "its transpose, so row-major code computes C^T = B^T A^T and passes its second operand first. If these "
                  "letters are cuBLAS's operation letters (not documented for these names; nvjet's are, in our captures): "
                  "Each letter says whether cuBLAS reads that operand as stored (N) or transposed (T). Read that way, %c%c "
                  "means row-major C = %s @ %s%s."),
             op1, op2, a, b, example);
    else
        note(e, _("Layout letters for row-major C code: cuBLAS is column-major, and a row-major matrix read column-major is "
                  "its transpose, so row-major code computes C^T = B^T A^T and passes its second operand first. Each letter "
                  "says whether cuBLAS reads that operand as stored (N) or transposed (T). Read that way, %c%c means "
                  "row-major C = %s @ %s%s."),
             op1, op2, a, b, example);
}

/* ---- family decoders: each returns 1 when it recognised the name -------------------------- */

/* nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT (cuBLAS 12.8+ on Hopper and Blackwell). */
static int explain_nvjet(const char *base, wb_kernel_explanation *e) {
    if (strncmp(base, "nvjet_", 6) != 0) return 0;
    family(e, N_("cuBLAS nvjet"), N_("cuBLAS's GEMM kernels on Hopper and Blackwell from cuBLAS 12.8 on (cuBLASLt picks them for "
                              "cublasGemmEx, cublasLtMatmul, torch.matmul, ...). NVIDIA does not document their names."));
    char buf[512], *tok[32];
    size_t n = split(base, '_', buf, sizeof buf, tok, 32);
    int dim_index = 0;
    for (size_t i = 1; i < n; i++) {
        const char *t = tok[i];
        int d[3], nd = dims(t, d);
        if (!strncmp(t, "sm", 2) && isdigit((unsigned char)t[2])) {
            char arch[64];
            arch_name(t, arch, sizeof arch);
            field(e, t, NC_("kernel name field", "architecture"), WB_BASIS_EVIDENCE,
                  _("built for %s: the number is the compute capability of the GPU in every capture of ours "
                    "(nvjet_sm90_* on an H200), and names seen elsewhere follow it (nvjet_sm100_* on Blackwell)"), arch);
        } else if (nd == 2 && dim_index == 0) {
            dim_index++;
            field(e, t, NC_("kernel name field", "tile"), WB_BASIS_EVIDENCE,
                  _("very likely the output tile one thread block computes (%d x %d elements of C): in every capture of "
                    "ours that is not persistent, tiles x blocks = the output size (256x256 with 64x8 tiles: 128 blocks)"),
                  d[0], d[1]);
        } else if (nd == 2 && dim_index == 1) {
            dim_index++;
            field(e, t, NC_("kernel name field", "k-tile x stages"), WB_BASIS_EVIDENCE,
                  _("very likely the K depth of a tile (%d) and the number of pipeline stages in shared memory (%d): "
                    "(tile_m + tile_n) x %d x 2 bytes (bf16) x %d stages plus about 16 KiB is the dynamic shared memory "
                    "CUPTI recorded for every (bf16) nvjet kernel we captured"), d[0], d[1], d[0], d[1]);
        } else if (nd == 2 && dim_index == 2) {
            dim_index++;
            field(e, t, NC_("kernel name field", "cluster"), WB_BASIS_EVIDENCE,
                  _("very likely the thread-block cluster shape (%d blocks): the product equals the cluster size CUPTI "
                    "records (1x4 with cluster (4,1,1), 1x2 with (2,1,1)); which number is which dimension is "
                    "undocumented"), d[0] * d[1]);
        } else if (!strcmp(t, "bias")) {
            field(e, t, NC_("kernel name field", "epilogue"), WB_BASIS_EVIDENCE, "%s",
                  _("adds a bias in the GEMM's epilogue: the word appears exactly when the cuBLASLt call asks for "
                    "CUBLASLT_EPILOGUE_BIAS in our captures (lesson 02: nvjet_..._bz_TNT becomes nvjet_..._bz_bias_TNT)"));
        } else if (epilogue_word(t)) {
            field(e, t, NC_("kernel name field", "epilogue"), WB_BASIS_UNDOCUMENTED,
                  _("an activation's name: probably a fused epilogue (%s), as 'bias' is in our captures; not evidenced"),
                  epilogue_word(t));
        } else if (all_of(t, "NT", 2, 3) && i == n - 1) {
            if (t[2])
                field(e, t, NC_("kernel name field", "layout"), WB_BASIS_EVIDENCE, "%s",
                      _("operation letters: the first two matched the transa/transb arguments of the cuBLAS call in every "
                        "capture of ours (CUBLAS_OP_N,N -> NNT; CUBLAS_OP_T,N -> TNT); the third letter's meaning is "
                        "undocumented"));
            else
                field(e, t, NC_("kernel name field", "layout"), WB_BASIS_EVIDENCE, "%s",
                      _("operation letters: the first two matched the transa/transb arguments of the cuBLAS call in every "
                        "capture of ours (CUBLAS_OP_N,N -> NNT; CUBLAS_OP_T,N -> TNT)"));
            row_major_reading(e, t[0], t[1], 0);
        } else {
            field(e, t, "?", WB_BASIS_UNDOCUMENTED, _("undocumented: NVIDIA does not say what '%s' means in nvjet names"), t);
        }
    }
    note(e, "%s", _("No NVIDIA document explains nvjet names. Fields marked 'evidence' are inferred from launch data of "
                    "kernels we captured on an H200 (grid, cluster, shared memory); those marked 'undocumented' are not "
                    "guessed at."));
    return 1;
}

/* sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cgasize1x2x1_... (cuBLAS <= 12.x). */
static int explain_xmma(const char *base, wb_kernel_explanation *e) {
    const char *x = strstr(base, "xmma_");
    if (!x) return 0;
    family(e, N_("cuBLAS/cuDNN xmma"), N_("NVIDIA's internal xmma kernel templates, shipped in cuBLAS (suffix _cublas) and cuDNN; "
                                   "cuBLAS's Hopper GEMMs before nvjet. The naming is not documented."));
    char buf[512], *tok[40];
    size_t n = split(base, '_', buf, sizeof buf, tok, 40);
    int types_seen = 0, layout_seen = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = tok[i];
        int d[3];
        if (!*t) continue;
        if (!strncmp(t, "sm", 2) && isdigit((unsigned char)t[2])) {
            char arch[64];
            arch_name(t, arch, sizeof arch);
            field(e, t, NC_("kernel name field", "architecture"), WB_BASIS_CONVENTION, _("built for %s"), arch);
        } else if (!strcmp(t, "xmma")) {
            field(e, t, NC_("kernel name field", "library"), WB_BASIS_CONVENTION, "%s", _("NVIDIA's xmma templates"));
        } else if (!strcmp(t, "gemm") || !strcmp(t, "fprop") || !strcmp(t, "dgrad") || !strcmp(t, "wgrad")) {
            field(e, t, NC_("kernel name field", "operation"), WB_BASIS_CONVENTION, "%s",
                  !strcmp(t, "gemm") ? _("a matrix multiply") : !strcmp(t, "fprop") ? _("a convolution, forward")
                  : !strcmp(t, "dgrad") ? _("a convolution's data gradient") : _("a convolution's weight gradient"));
        } else if (!strncmp(t, "tilesize", 8) && dims(t + 8, d)) {
            field(e, t, NC_("kernel name field", "tile"), WB_BASIS_CONVENTION, 
                  _("thread-block tile M x N x K = %s (the word says so; undocumented)"), t + 8);
        } else if (!strncmp(t, "cgasize", 7) && dims(t + 7, d)) {
            field(e, t, NC_("kernel name field", "cluster"), WB_BASIS_CONVENTION,
                  _("cluster shape %s (CGA, NVIDIA's hardware name for a thread-block cluster)"), t + 7);
        } else if (!strncmp(t, "warpgroupsize", 13)) {
            field(e, t, NC_("kernel name field", "warpgroups"), WB_BASIS_CONVENTION, _("warpgroups (4 warps each) per block: %s"),
                  t + 13);
        } else if (!strncmp(t, "warpsize", 8)) {
            field(e, t, NC_("kernel name field", "warps"), WB_BASIS_CONVENTION, _("warps per block, as M x N x K: %s"), t + 8);
        } else if (!strncmp(t, "stage", 5) && isdigit((unsigned char)t[5])) {
            field(e, t, NC_("kernel name field", "stages"), WB_BASIS_CONVENTION, _("%s pipeline stages in shared memory"), t + 5);
        } else if (!strncmp(t, "tensor", 6) && dims(t + 6, d)) {
            field(e, t, NC_("kernel name field", "instruction"), WB_BASIS_CONVENTION, _("tensor-core MMA instruction shape %s"),
                  t + 6);
        } else if (!layout_seen && all_of(t, "nt", 2, 2)) {
            layout_seen = 1;
            field(e, t, NC_("kernel name field", "layout"), WB_BASIS_UNDOCUMENTED, "%s",
                  _("two layout letters (n, t); what they name is undocumented for cuBLAS's names (see the note)"));
            row_major_reading(e, (char)toupper((unsigned char)t[0]), (char)toupper((unsigned char)t[1]), 1);
        } else if (types_seen < 3 && (strstr(t, "bf16") || strstr(t, "f16") || strstr(t, "f32") || strstr(t, "f64") ||
                                      strstr(t, "tf32") || strstr(t, "e4m3") || strstr(t, "i8"))) {
            types_seen++;
            field(e, t, NC_("kernel name field", "types"), WB_BASIS_UNDOCUMENTED,
                  _("data types (%s); which operands each group names is undocumented"), t);
        } else if (!strcmp(t, "cublas")) {
            field(e, t, NC_("kernel name field", "shipped in"), WB_BASIS_CONVENTION, "cuBLAS");
        } else {
            field(e, t, "?", WB_BASIS_UNDOCUMENTED, "%s", C_("kernel name field meaning", "undocumented"));
        }
    }
    return 1;
}

/* ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn, volta_sgemm_128x64_nn (cuBLAS). */
static int explain_cublas_arch(const char *base, wb_kernel_explanation *e) {
    static const char *const archs[] = {"maxwell_", "pascal_", "volta_", "turing_", "ampere_", "ada_", "hopper_", NULL};
    const char *const *a = archs;
    for (; *a; a++)
        if (!strncmp(base, *a, strlen(*a))) break;
    if (!*a || !strstr(base, "gemm")) return 0;
    family(e, N_("cuBLAS (architecture-named)"), N_("cuBLAS's GEMM kernels named after the GPU generation (Volta to Ampere, and "
                                             "Hopper before nvjet). NVIDIA does not document the naming; several fields "
                                             "follow CUTLASS's documented scheme."));
    char buf[512], *tok[32];
    size_t n = split(base, '_', buf, sizeof buf, tok, 32);
    int after_gemm = 0, tile_seen = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = tok[i];
        int d[3], nd = dims(t, d);
        const char *g = strstr(t, "gemm");
        if (i == 0) {
            field(e, t, NC_("kernel name field", "architecture"), WB_BASIS_CONVENTION, _("built for %s GPUs"), t);
        } else if (g) {
            after_gemm = 1;
            size_t plen = (size_t)(g - t);
            char prefix[32];
            snprintf(prefix, sizeof prefix, "%.*s", (int)plen, t);
            if (plen == 1) {
                field(e, t, NC_("kernel name field", "operation"), WB_BASIS_CONVENTION,
                      _("BLAS %cgemm: a GEMM in %s on CUDA cores (no tensor cores)"), prefix[0],
                      prefix[0] == 's' ? "fp32" : prefix[0] == 'd' ? "fp64" : prefix[0] == 'h' ? "fp16"
                      : prefix[0] == 'c' ? _("complex fp32") : prefix[0] == 'z' ? _("complex fp64") : "?");
            } else if (plen > 1 && mma_shape(prefix + 1)) {
                field(e, t, NC_("kernel name field", "instruction"), WB_BASIS_CONVENTION,
                      _("tensor-core GEMM: %s accumulation (%c), MMA instruction %s (as in CUTLASS's documented names)"),
                      prefix[0] == 's' ? "fp32" : prefix[0] == 'h' ? "fp16" : prefix[0] == 'i' ? "int32" : "?", prefix[0],
                      mma_shape(prefix + 1));
            } else {
                field(e, t, NC_("kernel name field", "operation"), WB_BASIS_UNDOCUMENTED, _("a GEMM; the prefix '%s' is undocumented"),
                      prefix);
            }
        } else if (type_word(t)) {
            field(e, t, after_gemm ? NC_("kernel name field", "output type") : NC_("kernel name field", "input type"),
                  WB_BASIS_CONVENTION, "%s", type_word(t));
        } else if (nd == 2 && !tile_seen) {
            tile_seen = 1;
            field(e, t, NC_("kernel name field", "tile"), WB_BASIS_CONVENTION,
                  _("thread-block tile M x N = %d x %d (CUTLASS's convention; undocumented for cuBLAS)"), d[0], d[1]);
        } else if (nd == 2 && i > 0 && !strcmp(tok[i - 1], "stages")) {
            field(e, t, NC_("kernel name field", "k-tile x stages"), WB_BASIS_CONVENTION,
                  _("K depth %d and %d pipeline stages (CUTLASS's convention; undocumented for cuBLAS)"), d[0], d[1]);
        } else if (!strcmp(t, "stages")) {
            continue;
        } else if (all_of(t, "nt", 2, 2) && i == n - 1) {
            field(e, t, NC_("kernel name field", "layout"), WB_BASIS_UNDOCUMENTED, "%s",
                  _("two layout letters (n, t); what they name is undocumented for cuBLAS's names (see the note)"));
            row_major_reading(e, (char)toupper((unsigned char)t[0]), (char)toupper((unsigned char)t[1]), 1);
        } else if (epilogue_word(t)) {
            field(e, t, NC_("kernel name field", "epilogue"), WB_BASIS_CONVENTION, "%s", epilogue_word(t));
        } else {
            field(e, t, "?", WB_BASIS_UNDOCUMENTED, "%s", C_("kernel name field meaning", "undocumented"));
        }
    }
    return 1;
}

/* CUTLASS 3's kernel and epilogue schedule words (its GEMM design docs describe the schedules); their
 * meanings in the learner's language. */
static const char *schedule_word(const char *t) {
    static const struct { const char *word, *meaning; } words[] = {
        {"warpspecialized", N_("warp-specialized kernel: producer warps load tiles (TMA) while consumer warps compute")},
        {"cooperative", N_("cooperative schedule: the consumer warpgroups work on one output tile together")},
        {"pingpong", N_("ping-pong schedule: two consumer warpgroups alternate between output tiles")},
        {"persistent", N_("persistent kernel: each block loops over several output tiles")},
        {"epi", N_("the epilogue schedule follows")},
        {"tma", N_("through the Tensor Memory Accelerator (with epi: the epilogue stores C and D with TMA)")},
        {"nosmem", N_("the epilogue does not stage its output in shared memory")},
        {"stream", N_("stream-K: the K loop is split across blocks to balance the work")},
        {NULL, NULL},
    };
    for (size_t i = 0; words[i].word; i++)
        if (!strcmp(t, words[i].word)) return _(words[i].meaning);
    return NULL;
}

/* A layout letter of CUTLASS's procedural names (functionality.md): t row-major, n column-major. */
static const char *storage(char letter) { return letter == 't' ? _("row-major") : _("column-major"); }

/* The CUTLASS 3 procedural name (profiler.md, "CUTLASS 3.0 GEMM procedural names"):
 * cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_bf16_bf16_128x256x64_1x2x1_0_tnn_align8_... */
static int explain_cutlass3(const char *base, wb_kernel_explanation *e) {
    const char *p = strstr(base, "cutlass3x_");
    if (!p) return 0;
    family(e, N_("CUTLASS 3"), N_("a kernel generated by CUTLASS 3.x's library generator; its procedural name is documented in "
                           "CUTLASS's profiler guide (media/docs/profiler.md)."));
    char buf[512], *tok[40];
    size_t n = split(p, '_', buf, sizeof buf, tok, 40);
    static const char *const type_roles[] = {"A", "B", N_("accumulator"), "C", "D"}; /* the letters in every language */
    int n_types = 0, dims_seen = 0, layout_seen = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = tok[i];
        int d[3], nd = dims(t, d);
        const char *g = strstr(t, "gemm");
        if (!strcmp(t, "cutlass3x")) {
            field(e, t, NC_("kernel name field", "generator"), WB_BASIS_DOCUMENTED, "%s", _("generated through the CUTLASS 3 API"));
        } else if (!strncmp(t, "sm", 2) && isdigit((unsigned char)t[2])) {
            char arch[64];
            arch_name(t, arch, sizeof arch);
            field(e, t, NC_("kernel name field", "architecture"), WB_BASIS_DOCUMENTED, _("targets %s"), arch);
        } else if (!strcmp(t, "tensorop") || !strcmp(t, "simt") || !strcmp(t, "wmmatensorop") || !strcmp(t, "sptensorop")) {
            field(e, t, NC_("kernel name field", "opcode class"), WB_BASIS_DOCUMENTED, "%s",
                  !strcmp(t, "simt") ? _("CUDA cores (no tensor cores)") : !strcmp(t, "sptensorop") ? _("sparse tensor cores")
                                                                                                    : _("tensor cores"));
        } else if (g) {
            char core[64];
            snprintf(core, sizeof core, "%.*s", (int)(g - t), t);
            if (core[0] && dims(core + 1, d))
                field(e, t, NC_("kernel name field", "instruction"), WB_BASIS_DOCUMENTED,
                      _("%s accumulation (%c); tensor-core instruction shape %s"),
                      core[0] == 's' ? "fp32" : core[0] == 'h' ? "fp16" : core[0] == 'i' ? "int32" : "?", core[0], core + 1);
            else if (core[0])
                field(e, t, NC_("kernel name field", "instruction"), WB_BASIS_DOCUMENTED,
                      _("instruction '%s' (see the profiler guide)"), core);
            else
                field(e, t, NC_("kernel name field", "operation"), WB_BASIS_DOCUMENTED, "%s", _("a GEMM"));
        } else if (type_word(t) && !dims_seen) {
            field(e, t, NC_("kernel name field", "type"), WB_BASIS_SOURCE, "%s: %s", n_types < 5 ? _(type_roles[n_types]) : "?",
                  type_word(t));
            n_types++;
        } else if (nd == 3 && dims_seen == 0) {
            dims_seen++;
            field(e, t, NC_("kernel name field", "tile"), WB_BASIS_DOCUMENTED, _("thread-block tile M x N x K = %d x %d x %d"),
                  d[0], d[1], d[2]);
        } else if (nd == 3 && dims_seen == 1) {
            dims_seen++;
            field(e, t, NC_("kernel name field", "cluster"), WB_BASIS_DOCUMENTED, _("thread-block cluster shape %d x %d x %d"),
                  d[0], d[1], d[2]);
        } else if (dims_seen == 2 && isdigit((unsigned char)t[0]) && !nd) {
            dims_seen++;
            field(e, t, NC_("kernel name field", "stages"), WB_BASIS_DOCUMENTED, "%s",
                  !strcmp(t, "0") ? _("pipeline stages chosen automatically (CollectiveBuilder); 0 is not zero stages")
                                  : _("the number of pipeline stages"));
        } else if (!layout_seen && all_of(t, "nt", 3, 3)) {
            layout_seen = 1;
            field(e, t, NC_("kernel name field", "layout"), WB_BASIS_DOCUMENTED,
                  _("storage of A, B, C: %s, %s, %s (n: column-major, t: row-major)"), storage(t[0]), storage(t[1]),
                  storage(t[2]));
        } else if (!strncmp(t, "align", 5)) {
            field(e, t, NC_("kernel name field", "alignment"), WB_BASIS_DOCUMENTED,
                  _("A and B are accessed %s elements at a time (their largest alignment)"), t + 5);
        } else if (epilogue_word(t)) {
            field(e, t, NC_("kernel name field", "epilogue"), WB_BASIS_SOURCE, "%s", epilogue_word(t));
        } else if (schedule_word(t)) {
            field(e, t, NC_("kernel name field", "schedule"), WB_BASIS_DOCUMENTED, "%s", schedule_word(t));
        } else {
            field(e, t, "?", WB_BASIS_UNDOCUMENTED, "%s", _("not covered by the profiler guide"));
        }
    }
    return 1;
}

/* The CUTLASS 2 procedural name: cutlass_tensorop_s16816gemm_f16_128x128_32x5_nt_align8, and the
 * cutlass_80_... kernels cuBLAS ships. */
static int explain_cutlass2(const char *base, wb_kernel_explanation *e) {
    const char *p = strstr(base, "cutlass_");
    if (!p || strstr(base, "cutlass3x_")) return 0;
    family(e, N_("CUTLASS 2"), N_("a kernel named by CUTLASS 2.x's library generator (cuBLAS also ships CUTLASS-built kernels named "
                           "this way). The profiler guide (media/docs/profiler.md) lists names with their tile and stage "
                           "arguments."));
    char buf[512], *tok[40];
    size_t n = split(p, '_', buf, sizeof buf, tok, 40);
    int dims_seen = 0, after_gemm = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = tok[i];
        int d[3], nd = dims(t, d);
        const char *g = strstr(t, "gemm");
        if (!strcmp(t, "cutlass")) {
            field(e, t, NC_("kernel name field", "library"), WB_BASIS_DOCUMENTED, "CUTLASS");
        } else if (i == 1 && isdigit((unsigned char)t[0]) && !nd) {
            field(e, t, NC_("kernel name field", "architecture"), WB_BASIS_CONVENTION, _("built for sm_%s"), t);
        } else if (!strcmp(t, "tensorop") || !strcmp(t, "simt") || !strcmp(t, "wmma") || !strcmp(t, "sptensorop")) {
            field(e, t, NC_("kernel name field", "opcode class"), WB_BASIS_DOCUMENTED, "%s",
                  !strcmp(t, "simt") ? _("CUDA cores (no tensor cores)") : !strcmp(t, "wmma") ? _("tensor cores through WMMA")
                                                                                              : _("tensor cores"));
        } else if (g) {
            after_gemm = 1;
            char core[64];
            snprintf(core, sizeof core, "%.*s", (int)(g - t), t);
            if (strlen(core) == 1)
                field(e, t, NC_("kernel name field", "operation"), WB_BASIS_CONVENTION, "BLAS %cgemm: %s", core[0],
                      core[0] == 's' ? "fp32" : core[0] == 'd' ? "fp64" : core[0] == 'h' ? "fp16" : "?");
            else if (core[0] && mma_shape(core + 1))
                field(e, t, NC_("kernel name field", "instruction"), WB_BASIS_DOCUMENTED,
                      _("%s accumulation (%c); MMA instruction %s"),
                      core[0] == 's' ? "fp32" : core[0] == 'h' ? "fp16" : core[0] == 'i' ? "int32" : "?", core[0],
                      mma_shape(core + 1));
            else
                field(e, t, NC_("kernel name field", "operation"), WB_BASIS_DOCUMENTED, _("a GEMM (%s)"), t);
        } else if (type_word(t)) {
            field(e, t, after_gemm ? NC_("kernel name field", "type") : NC_("kernel name field", "input type"),
                  WB_BASIS_DOCUMENTED, "%s", type_word(t));
        } else if (nd == 2 && dims_seen == 0) {
            dims_seen++;
            field(e, t, NC_("kernel name field", "tile"), WB_BASIS_DOCUMENTED, _("thread-block tile M x N = %d x %d"), d[0], d[1]);
        } else if (nd == 2 && dims_seen == 1) {
            dims_seen++;
            field(e, t, NC_("kernel name field", "k-tile x stages"), WB_BASIS_DOCUMENTED, _("K depth %d, %d pipeline stages"),
                  d[0], d[1]);
        } else if (all_of(t, "nt", 2, 3)) {
            field(e, t, NC_("kernel name field", "layout"), WB_BASIS_DOCUMENTED,
                  _("storage of A and B: %s, %s (n: column-major, t: row-major)"), storage(t[0]), storage(t[1]));
        } else if (!strncmp(t, "align", 5)) {
            field(e, t, NC_("kernel name field", "alignment"), WB_BASIS_DOCUMENTED, _("operands accessed %s elements at a time"),
                  t + 5);
        } else if (epilogue_word(t)) {
            field(e, t, NC_("kernel name field", "epilogue"), WB_BASIS_SOURCE, "%s", epilogue_word(t));
        } else {
            field(e, t, "?", WB_BASIS_UNDOCUMENTED, "%s", _("not covered by the profiler guide"));
        }
    }
    return 1;
}

/* cutlass::device_kernel<...GemmUniversal...> and cutlass::Kernel<...>: a template instance. */
static int explain_cutlass_template(const char *name, const char *base, wb_kernel_explanation *e) {
    if (strncmp(base, "cutlass::", 9) != 0) return 0;
    family(e, N_("CUTLASS (template instance)"), N_("a CUTLASS kernel instantiated from C++ templates; the template arguments "
                                             "spell out its configuration."));
    const char *s = name;
    int k = 0;
    static const char *const roles[] = {NC_("kernel name field", "thread-block tile"), NC_("kernel name field", "warp tile"),
                                        NC_("kernel name field", "instruction shape")};
    while ((s = strstr(s, "GemmShape<")) && k < 3) {
        s += 10;
        char shape[64];
        size_t len = strcspn(s, ">");
        snprintf(shape, sizeof shape, "%.*s", (int)len, s);
        field(e, shape, roles[k], WB_BASIS_DOCUMENTED, _("%s M, N, K = %s (cutlass::gemm::device::Gemm's template order)"),
              C_("kernel name field", roles[k]), shape);
        k++;
    }
    const char *layout = name;
    int l = 0;
    while (l < 3 && (layout = strstr(layout, "layout::"))) {
        layout += 8;
        if (!strncmp(layout, "RowMajor", 8) || !strncmp(layout, "ColumnMajor", 11)) {
            field(e, layout[0] == 'R' ? "RowMajor" : "ColumnMajor",
                  l == 0 ? NC_("kernel name field", "layout A") : l == 1 ? NC_("kernel name field", "layout B")
                                                                         : NC_("kernel name field", "layout C"),
                  WB_BASIS_DOCUMENTED, "%s", layout[0] == 'R' ? _("row-major") : _("column-major"));
            l++;
        }
    }
    static const char *const epilogues[] = {"LinearCombinationRelu", "LinearCombinationGELU", "LinearCombinationSilu",
                                            "LinearCombinationSigmoid", "LinearCombinationBias", "GELU", "ReLu", NULL};
    for (const char *const *x = epilogues; *x; x++)
        if (strstr(name, *x)) {
            field(e, *x, NC_("kernel name field", "epilogue"), WB_BASIS_DOCUMENTED, _("the epilogue functor: %s"), *x);
            break;
        }
    return 1;
}

/* triton_poi_fused_add_mul_0 (torch.compile / Inductor). */
static int explain_triton(const char *base, wb_kernel_explanation *e) {
    if (strncmp(base, "triton_", 7) != 0) return 0;
    family(e, N_("Triton (torch.compile)"), N_("a Triton kernel generated by PyTorch Inductor (torch.compile). Inductor builds "
                                        "the name as triton_<category>_<fused ops>_<counter> (torch/_inductor/codegen/"
                                        "triton.py)."));
    static const struct { const char *code, *meaning; } cats[] = {
        {"poi", N_("pointwise: one output element per input position (add, mul, activations, casts), fused")},
        {"red", N_("reduction (sum, max, mean, softmax's statistics...) over a dimension, looping over it")},
        {"per", N_("persistent reduction: the whole reduced dimension fits in one block, so no loop")},
        {"tem", N_("template: a hand-written Triton template, usually a matmul (mm, addmm, bmm) with its epilogue fused")},
        {"for", N_("foreach: one kernel applying an op to a list of tensors (optimizer steps)")},
        {"unk", N_("unknown category")},
        {NULL, NULL},
    };
    const char *rest = base + 7;
    size_t i = 0;
    for (; cats[i].code; i++)
        if (!strncmp(rest, cats[i].code, 3) && (rest[3] == '_' || rest[3] == '\0')) break;
    if (!cats[i].code) {
        field(e, base, "?", WB_BASIS_UNDOCUMENTED, "%s", _("a triton_ name without an Inductor category"));
        return 1;
    }
    char cat[4];
    snprintf(cat, sizeof cat, "%.3s", rest);
    field(e, cat, NC_("kernel name field", "category"), WB_BASIS_SOURCE, "%s", _(cats[i].meaning));
    rest += 3;
    if (*rest == '_') rest++;
    /* trailing _N: the counter */
    const char *last = strrchr(rest, '_');
    char ops[256] = "";
    if (last && last[1] && strspn(last + 1, "0123456789") == strlen(last + 1)) {
        snprintf(ops, sizeof ops, "%.*s", (int)(last - rest), rest);
        if (ops[0])
            field(e, ops, NC_("kernel name field", "fused ops"), WB_BASIS_SOURCE, "%s",
                  _("the ATen ops fused into this kernel, joined by '_' (Inductor's descriptive names)"));
        field(e, last + 1, NC_("kernel name field", "counter"), WB_BASIS_SOURCE, "%s",
              _("a counter that keeps kernel names unique in the compiled program"));
    } else if (rest[0]) {
        snprintf(ops, sizeof ops, "%s", rest);
        field(e, ops, NC_("kernel name field", "fused ops"), WB_BASIS_SOURCE, "%s", _("the ATen ops fused into this kernel"));
    }
    if (!strcmp(cat, "tem")) {
        char buf[256], *tok[32];
        size_t n = split(ops, '_', buf, sizeof buf, tok, 32);
        for (size_t j = 0; j < n; j++)
            if (epilogue_word(tok[j]))
                field(e, tok[j], NC_("kernel name field", "epilogue"), WB_BASIS_SOURCE, "%s", epilogue_word(tok[j]));
    }
    return 1;
}

/* The identifier in name containing key: "at::native::CUDAFunctor_add<float>" -> "CUDAFunctor_add". */
static int identifier_with(const char *name, const char *key, char *out, size_t cap) {
    const char *k = strstr(name, key);
    if (!k) return 0;
    const char *s = k, *t = k;
    while (s > name && (isalnum((unsigned char)s[-1]) || s[-1] == '_')) s--;
    while (isalnum((unsigned char)*t) || *t == '_') t++;
    snprintf(out, cap, "%.*s", (int)(t - s), s);
    return 1;
}

/* at::native::vectorized_elementwise_kernel<4, ...> and friends (eager PyTorch). */
static int explain_aten(const char *name, const char *base, wb_kernel_explanation *e) {
    if (!strstr(base, "at::native::") && !strstr(base, "at::cuda::") && strncmp(base, "cunn_", 5) != 0 &&
        !strstr(base, "at_cuda_detail"))
        return 0;
    family(e, N_("PyTorch ATen"), N_("one of eager PyTorch's own CUDA kernels (aten/src/ATen/native/cuda): each op launches one "
                              "or a few of these; the template arguments name the op."));
    const char *fn = strrchr(base, ':');
    fn = fn ? fn + 1 : base;
    const char *args = strchr(name, '<');
    const char *kernel = NC_("kernel name field", "kernel");
    if (!strcmp(fn, "vectorized_elementwise_kernel") && args)
        field(e, fn, kernel, WB_BASIS_SOURCE,
              _("element-wise loop with vectorized loads of %d elements per access (template argument vec_size, "
                "CUDALoops.cuh)"), atoi(args + 1));
    else if (!strcmp(fn, "elementwise_kernel") && args)
        field(e, fn, kernel, WB_BASIS_SOURCE,
              _("element-wise loop, %d threads per block, %d elements per thread (template arguments nt, vt)"), atoi(args + 1),
              atoi(strchr(args, ',') ? strchr(args, ',') + 1 : args));
    else if (!strcmp(fn, "unrolled_elementwise_kernel"))
        field(e, fn, kernel, WB_BASIS_SOURCE, "%s",
              _("element-wise loop, unrolled, without vector loads (unaligned or non-contiguous tensors, or casts)"));
    else if (!strcmp(fn, "reduce_kernel"))
        field(e, fn, kernel, WB_BASIS_SOURCE, "%s", _("ATen's generic reduction (sum, mean, max, norms: Reduce.cuh)"));
    else
        field(e, fn, kernel, WB_BASIS_SOURCE, "%s", _("an ATen kernel"));
    char op[128];
    static const char *const keys[] = {"Functor", "functor", "KernelImpl", "_kernel_cuda", "_kernel_impl", NULL};
    for (const char *const *k = keys; *k; k++)
        if (args && identifier_with(args, *k, op, sizeof op) && strcmp(op, fn)) {
            field(e, op, NC_("kernel name field", "op"), WB_BASIS_SOURCE, "%s",
                  _("the operation, from the functor or function it was instantiated with"));
            break;
        }
    if (strstr(name, "c10::BFloat16"))
        field(e, "c10::BFloat16", NC_("kernel name field", "type"), WB_BASIS_SOURCE, "%s", _("bfloat16 elements"));
    else if (strstr(name, "c10::Half"))
        field(e, "c10::Half", NC_("kernel name field", "type"), WB_BASIS_SOURCE, "%s", _("fp16 elements"));
    return 1;
}

/* Other libraries: recognised, not decoded. */
static int explain_other_library(const char *base, wb_kernel_explanation *e) {
    /* anywhere: the text may stand after a namespace or prefix; else the name must start with it
     * (a project's own k_flash_fwd is not FlashAttention's flash_fwd_kernel). */
    static const struct { const char *prefix, *fam, *summary; int anywhere; } libs[] = {
        {"cublasLt::", N_("cuBLASLt helper"), N_("a cuBLASLt helper kernel (split-K reduction, epilogue, layout transform)"), 1},
        {"gemv", N_("cuBLAS gemv"), N_("a cuBLAS matrix-vector product (gemv2T/gemv2N/gemvNSP); one operand is a vector"), 0},
        {"internal::gemvx", N_("cuBLAS gemv"), N_("a cuBLAS matrix-vector product"), 1},
        {"splitKreduce", N_("cuBLAS split-K reduction"), N_("sums the partial products of a split-K GEMM; multiplies nothing"), 1},
        {"cub::", N_("CUB"), N_("a CUB device-wide primitive (sort, scan, reduce, select)"), 1},
        {"thrust::", N_("Thrust"), N_("a Thrust algorithm's kernel"), 1},
        {"nccl", N_("NCCL"), N_("an NCCL collective (all-reduce, all-gather, ...)"), 0},
        {"flash_fwd", N_("FlashAttention"), N_("a FlashAttention kernel"), 0},
        {"flash_bwd", N_("FlashAttention"), N_("a FlashAttention kernel"), 0},
        {"flash::", N_("FlashAttention"), N_("a FlashAttention kernel"), 1},
        {"pytorch_flash::", N_("FlashAttention"), N_("PyTorch's copy of the FlashAttention kernels"), 1},
        {"fmha", N_("fused attention"), N_("a fused multi-head attention kernel (cuDNN, PyTorch's mem-efficient attention)"), 1},
        {"cudnn", N_("cuDNN"), N_("a cuDNN kernel"), 1},
        {NULL, NULL, NULL, 0},
    };
    for (size_t i = 0; libs[i].prefix; i++) {
        const char *at = strcasestr(base, libs[i].prefix);
        if (at && (at == base || libs[i].anywhere)) {
            family(e, libs[i].fam, libs[i].summary);
            return 1;
        }
    }
    return 0;
}

/* A plain kernel from source: "k_bias_add(__nv_bfloat16*, ...)". */
static int explain_own(const char *name, const char *base, wb_kernel_explanation *e) {
    if (strstr(base, "::")) return 0;
    /* The name alone does not say where it was compiled: grader explain looks for its definition
     * in the course's source and says which (cmd_explain.c). */
    family(e, N_("plain kernel name"), N_("a plain __global__ function name, the kind a program's own CUDA source defines; the "
                                   "name alone does not say which program or library it comes from."));
    if (!strncmp(base, "wb_", 3))
        note(e, "%s", _("The wb_ prefix marks this project's own kernels (common/ and the grader's probe)."));
    else if (!strncmp(base, "k_", 2))
        note(e, "%s", _("The k_ prefix marks the course's own kernels (the lessons and lesson 04's engine)."));
    const char *params = strchr(name, '(');
    if (params) {
        /* whole identifiers only: "__nv_bfloat16" holds "float" */
        static const struct { const char *c, *type; } types[] = {
            {"__nv_bfloat16", "bf16"}, {"nv_bfloat16", "bf16"}, {"__half", "fp16"}, {"half", "fp16"},
            {"double", "fp64"}, {"float", "fp32"}, {"int8_t", "int8"}, {"__nv_fp8_e4m3", "fp8 e4m3"},
            {"__nv_fp8_e5m2", "fp8 e5m2"}, {NULL, NULL},
        };
        char seen[128] = "";
        for (const char *p = params; *p;) {
            if (!(isalnum((unsigned char)*p) || *p == '_')) {
                p++;
                continue;
            }
            const char *q = p;
            while (isalnum((unsigned char)*q) || *q == '_') q++;
            for (size_t i = 0; types[i].c; i++)
                if ((size_t)(q - p) == strlen(types[i].c) && !strncmp(p, types[i].c, (size_t)(q - p)) &&
                    !strstr(seen, types[i].type))
                    snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s%s", seen[0] ? ", " : "", types[i].type);
            p = q;
        }
        if (seen[0])
            field(e, params, NC_("kernel name field", "parameters"), WB_BASIS_CONVENTION,
                  _("its parameter types say it works on %s data"), seen);
    }
    const char *words[] = {"bias", "gelu", "relu", "silu", NULL};
    for (const char **w = words; *w; w++)
        if (strcasestr(base, *w)) {
            note(e, _("Its name says '%s': a separate kernel doing what a GEMM epilogue could fuse (see lesson 02)."), *w);
            break;
        }
    return 1;
}

/* ---- the name's base ---------------------------------------------------------------------- */

/* Itanium-mangled "_Z10k_bias_addP..." or "_ZN2at6native...E..." -> "k_bias_add", "at::native::...". */
static int demangle_base(const char *s, char *out, size_t cap) {
    if (strncmp(s, "_Z", 2) != 0) return 0;
    s += 2;
    int nested = *s == 'N';
    if (nested) s++;
    out[0] = '\0';
    while (isdigit((unsigned char)*s)) {
        char *end;
        long len = strtol(s, &end, 10);
        if (len <= 0 || (size_t)len > strlen(end)) break;
        snprintf(out + strlen(out), cap - strlen(out), "%s%.*s", out[0] ? "::" : "", (int)len, end);
        s = end + len;
        if (!nested) break;
        while (*s == 'I') { /* skip template args of a nested name: we only want the names */
            int depth = 0;
            do {
                if (*s == 'I') depth++;
                else if (*s == 'E') depth--;
                s++;
            } while (*s && depth > 0);
        }
    }
    return out[0] != '\0';
}

/* Strips "void ", template arguments and the signature: "void at::native::f<4, ...>(int, ...)" ->
 * "at::native::f". Procedural names inside cutlass::Kernel<...> wrappers are taken out. */
static void base_name(const char *name, char *out, size_t cap) {
    while (!strncmp(name, "void ", 5)) name += 5;
    static const char anon[] = "(anonymous namespace)";
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < cap; p++) {
        if (*p == '(' && !strncmp(p, anon, sizeof anon - 1)) {
            n += (size_t)snprintf(out + n, cap - n, "%s", anon);
            p += sizeof anon - 2;
            continue;
        }
        if (*p == '<' || *p == '(') break;
        out[n++] = *p;
    }
    out[n < cap ? n : cap - 1] = '\0';
    /* CUTLASS library kernels wrap a type named after the procedural name:
     * cutlass::Kernel2<cutlass_80_tensorop_..._align8>(...), cutlass::device_kernel<cutlass3x_...>(...) */
    const char *inner = strchr(name, '<');
    if (inner && (!strcmp(out, "cutlass::Kernel") || !strcmp(out, "cutlass::Kernel2") || !strcmp(out, "cutlass::device_kernel"))) {
        inner++;
        size_t len = strcspn(inner, "<>,(: ");
        if (!strncmp(inner, "cutlass_", 8) || !strncmp(inner, "cutlass3x_", 10)) snprintf(out, cap, "%.*s", (int)len, inner);
    }
}

void wb_explain_kernel(const char *name, wb_kernel_explanation *e) {
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    char demangled[256];
    int mangled = demangle_base(name, demangled, sizeof demangled);
    if (mangled) snprintf(e->base, sizeof e->base, "%s", demangled);
    else base_name(name, e->base, sizeof e->base);
    const char *base = e->base;

    e->gemm = wb_is_gemm(mangled ? base : name, &e->gemm_family);
    if (!(explain_nvjet(base, e) || explain_xmma(base, e) || explain_cublas_arch(base, e) || explain_cutlass3(base, e) ||
          explain_cutlass2(base, e) || explain_cutlass_template(name, base, e) || explain_triton(base, e) ||
          explain_aten(name, base, e) || explain_other_library(base, e) || explain_own(name, base, e)))
        family(e, N_("unrecognized"), N_("no known library's naming: the name is whatever its author chose"));
    if (mangled)
        note(e, _("This is a mangled C++ name (demangle it with c++filt); only its function name, %s, was decoded."), base);
    if (e->gemm)
        note(e, _("The grader counts it as a GEMM (gemms facts): it matches the '%s' family of docs/kernel-names.md."),
             e->gemm_family ? e->gemm_family->family : "?");
    else
        note(e, "%s", _("The grader does not count it as a GEMM: no family of docs/kernel-names.md matches."));
}

/* ---- output ------------------------------------------------------------------------------- */

/* text, wrapped at width columns, each line after the first indented by indent. */
/* text from column indent, wrapped at word boundaries to the terminal's width (text_fit.h). */
static void print_wrapped(FILE *f, const char *text, int indent) { wb_wrap(f, text, indent, indent, wb_term_width(f)); }

/* "  family: cuBLAS nvjet": the label padded to 8 columns, then the text. */
static void print_label(FILE *f, const char *label, const char *text) {
    fputs("  ", f);
    wb_pad(f, label, 8);
    fprintf(f, "%s\n", text);
}

void wb_kernel_explanation_print(FILE *f, const wb_kernel_explanation *e) {
    wb_wrap(f, e->name, 0, 4, wb_term_width(f)); /* the full name, its parameters on further lines where long */
    /* the labels padded to 8 columns (a Japanese label's characters take two each); everything in
     * the learner's language but the name's own parts (tokens) */
    if (strcmp(e->base, e->name)) print_label(f, _("name:"), e->base);
    print_label(f, _("family:"), _(e->family));
    fputs("          ", f);
    print_wrapped(f, _(e->summary), 10);
    print_label(f, "GEMM:", e->gemm ? _("yes") : _("no"));
    if (e->n_fields) fprintf(f, "  %s\n", _("fields:"));
    for (size_t i = 0; i < e->n_fields; i++) {
        const wb_name_field *x = &e->fields[i];
        char token[40];
        if (strlen(x->token) > 28) snprintf(token, sizeof token, "%.25s...", x->token);
        else snprintf(token, sizeof token, "%s", x->token);
        fprintf(f, "    %-28s %s [%s]\n      ", token, C_("kernel name field", x->what), _(wb_name_basis_label(x->basis)));
        print_wrapped(f, x->meaning, 6);
    }
    for (size_t i = 0; i < e->n_notes; i++) {
        fputs("  ", f);
        wb_pad(f, _("note:"), 6);
        print_wrapped(f, e->notes[i], 8);
    }
}

/* The family, the field names and the bases stay English: they are ids a script compares (and
 * docs/kernel-names.md names); the summary, meanings and notes are prose, in the learner's language
 * (wb_explain_kernel wrote the meanings and notes in it). */
json_t *wb_kernel_explanation_json(const wb_kernel_explanation *e) {
    json_t *fields = json_array(), *notes = json_array();
    for (size_t i = 0; i < e->n_fields; i++) {
        const wb_name_field *x = &e->fields[i];
        json_array_append_new(fields, json_pack("{s:s, s:s, s:s, s:s, s:b}", "token", x->token, "field", x->what, "meaning",
                                                x->meaning, "basis", wb_name_basis_label(x->basis), "documented",
                                                x->basis == WB_BASIS_DOCUMENTED || x->basis == WB_BASIS_SOURCE ||
                                                    x->basis == WB_BASIS_CONVENTION));
    }
    for (size_t i = 0; i < e->n_notes; i++) json_array_append_new(notes, json_string(e->notes[i]));
    return json_pack("{s:s, s:s, s:s, s:s, s:b, s:s?, s:o, s:o}", "name", e->name, "base", e->base, "family", e->family,
                     "summary", _(e->summary), "gemm", e->gemm, "gemm_family", e->gemm_family ? e->gemm_family->family : NULL,
                     "fields", fields, "notes", notes);
}

/* ---- finding a project kernel's source ---------------------------------------------------- */

static int search_file(const char *path, const char *base, char *where, size_t cap, const char *root) {
    FILE *f = wb_open_regular_file(path);
    if (!f) return -1;
    char line[4096];
    int n = 0, found = -1;
    size_t blen = strlen(base);
    while (found < 0 && fgets(line, sizeof line, f)) {
        n++;
        if (!strstr(line, "__global__")) continue;
        for (const char *p = strstr(line, base); p; p = strstr(p + 1, base)) {
            int starts = p == line || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
            const char *q = p + blen;
            while (*q == ' ') q++;
            if (starts && (*q == '(' || *q == '<')) {
                size_t rl = strlen(root);
                snprintf(where, cap, "%s:%d", !strncmp(path, root, rl) && path[rl] == '/' ? path + rl + 1 : path, n);
                found = 0;
                break;
            }
        }
    }
    fclose(f);
    return found;
}

static int search_dir(const char *dir, const char *base, char *where, size_t cap, const char *root, int depth) {
    if (depth > 6) return -1;
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *ent;
    char **names = NULL;
    size_t n = 0;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.' || !strncmp(ent->d_name, "build", 5)) continue;
        char **p = realloc(names, (n + 1) * sizeof *p);
        if (!p) break;
        names = p;
        names[n++] = strdup(ent->d_name);
    }
    closedir(d);
    /* sorted, so the answer does not depend on the file system's order */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    int found = -1;
    for (size_t i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (found < 0 && stat(path, &st) == 0) {
            size_t len = strlen(names[i]);
            if (S_ISDIR(st.st_mode)) found = search_dir(path, base, where, cap, root, depth + 1);
            else if ((len > 3 && !strcmp(names[i] + len - 3, ".cu")) || (len > 4 && !strcmp(names[i] + len - 4, ".cuh")))
                found = search_file(path, base, where, cap, root);
        }
        free(names[i]);
    }
    free(names);
    return found;
}

int wb_find_kernel_source(const char *root, const char *base, char *where, size_t cap) {
    if (!base[0] || strstr(base, "::")) return -1;
    static const char *const dirs[] = {"lessons", "common", "tests", NULL};
    for (const char *const *d = dirs; *d; d++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%s", root, *d);
        if (search_dir(dir, base, where, cap, root, 0) == 0) return 0;
    }
    return -1;
}
