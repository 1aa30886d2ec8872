/*
 * gemm_families.h: which kernels the grader counts as matrix multiplies ("gemms").
 *
 * Kernel names are the only evidence, and on Hopper cuBLAS's names do not even contain "gemm"
 * (nvjet_sm90_tst_...). So the grader keeps one table of name families, documented in
 * docs/kernel-names.md; this is the only place that decides. Matching is case-insensitive, on
 * the demangled name.
 */
#ifndef WB_GEMM_FAMILIES_H
#define WB_GEMM_FAMILIES_H

#include <stddef.h>

typedef struct {
    const char *pattern;   /* substring, case-insensitive */
    const char *family;    /* short family name for reports */
    const char *about;     /* one line for docs and `grader explain` */
} wb_gemm_family;

/* 1 when name is a matrix-multiply kernel; *family (may be NULL) gets the family's entry. */
int wb_is_gemm(const char *kernel_name, const wb_gemm_family **family);

/* The table, for docs and tests. */
const wb_gemm_family *wb_gemm_families(size_t *count);

#endif
