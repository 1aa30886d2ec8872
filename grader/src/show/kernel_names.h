/*
 * kernel_names.h: what a kernel's name says (`grader explain`, docs/kernel-names.md).
 *
 * A kernel's name is chosen by whoever wrote or generated it. Some vendors document their naming
 * (CUTLASS's procedural names, BLAS's type letters), some name kernels in open source (PyTorch's
 * ATen and Inductor), and some document nothing (cuBLAS's nvjet, xmma and ampere_* names). Every
 * decoded field says which of these it rests on, so a learner can tell a documented fact from an
 * inference from captures and from a field whose meaning nobody outside NVIDIA knows.
 *
 * Whether a kernel is a GEMM is not decided here: gemm_families.c decides, and the explanation
 * reports its verdict.
 */
#ifndef WB_KERNEL_NAMES_H
#define WB_KERNEL_NAMES_H

#include "wb_capture.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* What a field's meaning rests on. */
typedef enum {
    WB_BASIS_DOCUMENTED,   /* the vendor's documentation states it */
    WB_BASIS_SOURCE,       /* the vendor's open source code generates it */
    WB_BASIS_CONVENTION,   /* a long-standing convention (BLAS type letters) or a self-describing word */
    WB_BASIS_EVIDENCE,     /* undocumented; inferred from captures (the note says which) */
    WB_BASIS_UNDOCUMENTED, /* undocumented; meaning unknown */
} wb_name_basis;

typedef struct {
    char token[96];        /* the part of the name, e.g. "256x128" */
    char what[48];         /* short field name, English (an id; printed translated): "tile", "cluster", ... */
    char meaning[1024];    /* in the learner's language (Japanese takes 3 bytes a character) */
    wb_name_basis basis;
} wb_name_field;

#define WB_EXPLAIN_MAX_FIELDS 32
#define WB_EXPLAIN_MAX_NOTES 6

typedef struct {
    char name[2048];       /* as given (truncated) */
    char base[256];        /* the function or procedural name without template arguments and signature */
    char family[64];       /* "cuBLAS nvjet", "CUTLASS 3", "Triton (torch.compile)", ... (English: printed translated) */
    char summary[1024];    /* one line about the family (English: printed translated) */
    int gemm;              /* wb_is_gemm's verdict */
    const wb_gemm_family *gemm_family;
    wb_name_field fields[WB_EXPLAIN_MAX_FIELDS];
    size_t n_fields;
    char notes[WB_EXPLAIN_MAX_NOTES][1536]; /* in the learner's language */
    size_t n_notes;
} wb_kernel_explanation;

/* Decodes name (demangled as captured, or an Itanium-mangled _Z... name). Never fails: an
 * unknown name gets family "unrecognized". */
void wb_explain_kernel(const char *name, wb_kernel_explanation *out);

/* "documented", "source", "convention", "evidence (undocumented)", "undocumented". */
const char *wb_name_basis_label(wb_name_basis b);

void wb_kernel_explanation_print(FILE *f, const wb_kernel_explanation *e);
json_t *wb_kernel_explanation_json(const wb_kernel_explanation *e);

/* Where a kernel of the project is defined: the first "__global__ ... base(" in the .cu/.cuh
 * files under root/lessons, root/common and root/tests, as "path:line" into where. 0 when found. */
int wb_find_kernel_source(const char *root, const char *base, char *where, size_t cap);

#endif
