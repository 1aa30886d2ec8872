/*
 * test_gemm.c: GEMM classification on real kernel names: cuBLAS on Hopper (captured on the H200,
 * no "gemm" in them), cuBLAS/CUTLASS on Ampere (from the Hugging Face series' A100 traces), and
 * kernels that are not matrix multiplies.
 */
#include "gemm_families.h"

#include <criterion/criterion.h>

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
    "gelu_kernel(__nv_bfloat16*, __nv_bfloat16 const*, unsigned long, int)",
    "mul_kernel(__nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16 const*, unsigned long, int)",
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
