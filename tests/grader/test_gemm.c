/*
 * test_gemm.c: GEMM classification on real kernel names: cuBLAS on Hopper (captured on the H200,
 * no "gemm" in them), cuBLAS/CUTLASS on Ampere (from the Hugging Face series' A100 traces), and
 * kernels that are not matrix multiplies.
 */
#define _GNU_SOURCE /* strcasestr */
#include "gemm_families.h"

#include <criterion/criterion.h>
#include <string.h>

static const char *const GEMMS[] = {
    "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT",              /* H200, cublasGemmEx bf16 */
    "nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT",                 /* H200, nn.Linear with bias */
    "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn", /* A100 */
    "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1_tn_align8",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
    "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>(...)",
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(Params)",
    "triton_tem_fused_mm_0",
    "NVJET_SM90_UPPERCASE",
};

static const char *const NOT_GEMMS[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>(...)",
    "k_gelu(__nv_bfloat16*, __nv_bfloat16 const*, unsigned long, int)",
    "k_mul(__nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16 const*, unsigned long, int)",
    "void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float>(...)",
    "triton_poi_fused_gelu_mul_0",
    "wb_probe_scale(float*, int, float)",
    "",
};

Test(gemm, recognises_matrix_multiply_families) {
    for (size_t i = 0; i < sizeof GEMMS / sizeof GEMMS[0]; i++) {
        const wb_gemm_family *family = NULL;
        cr_assert(wb_is_gemm(GEMMS[i], &family), "not classified as a GEMM: %s", GEMMS[i]);
        cr_assert_not_null(family);
        cr_assert_not_null(family->about);
    }
}

Test(gemm, leaves_other_kernels_alone) {
    for (size_t i = 0; i < sizeof NOT_GEMMS / sizeof NOT_GEMMS[0]; i++)
        cr_assert(!wb_is_gemm(NOT_GEMMS[i], NULL), "classified as a GEMM: %s", NOT_GEMMS[i]);
    cr_assert(!wb_is_gemm(NULL, NULL));
}

Test(gemm, names_the_family_that_matched) {
    const wb_gemm_family *family = NULL;
    cr_assert(wb_is_gemm("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", &family));
    cr_assert_str_eq(family->family, "cuBLAS nvjet");
    size_t n = 0;
    const wb_gemm_family *all = wb_gemm_families(&n);
    cr_assert_geq(n, 5);
    cr_assert_str_eq(all[0].pattern, "nvjet");
}

/* The same answer and family as a plain strcasestr over the table (the reference the faster
 * search must keep), in any case and at any length: names past the 1 KiB lowered copy too. */
static const wb_gemm_family *reference(const char *name) {
    if (strcasestr(name, "splitKreduce") || strcasestr(name, "reduce_kernel")) return NULL;
    size_t n;
    const wb_gemm_family *all = wb_gemm_families(&n);
    for (size_t i = 0; i < n; i++)
        if (strcasestr(name, all[i].pattern)) return &all[i];
    return NULL;
}

Test(gemm, any_case_and_any_length_match_the_reference) {
    const char *parts[] = {"CUTLASS_", "Cutlass::", "SPLITKREDUCE_", "xMMa", "GeMv", "_kernel", "void f<", "WGMMA", "s16816",
                           "Triton_Tem_Fused_BMM", "Reduce_Kernel", "nv", "jet", "gem", "m"};
    size_t np = sizeof parts / sizeof parts[0];
    static char name[3000];
    unsigned seed = 1;
    for (int t = 0; t < 4000; t++) {
        size_t len = 0, target = (size_t)(t % 4 == 0 ? 2500 : 60);
        while (len < target) {
            seed = seed * 1103515245u + 12345u;
            const char *p = parts[(seed >> 16) % np];
            size_t k = strlen(p);
            if (len + k >= target) break;
            memcpy(name + len, p, k);
            len += k;
        }
        name[len] = '\0';
        const wb_gemm_family *family = (const wb_gemm_family *)1, *want = reference(name);
        cr_assert_eq(wb_is_gemm(name, &family), want != NULL, "%s", name);
        cr_assert_eq(family, want, "%s", name);
    }
}
