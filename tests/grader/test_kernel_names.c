/*
 * test_kernel_names.c: `grader explain` decodes each family's names into the right fields, says
 * what each field rests on (never "documented" for cuBLAS's undocumented names), agrees with the
 * grader's GEMM table, and docs/kernel-names.md lists exactly that table.
 */
#include "capture.h"
#include "course_fixture.h"
#include "gemm_families.h"
#include "kernel_names.h"

#include <criterion/criterion.h>
#include <dirent.h>

static wb_kernel_explanation e;

static const wb_name_field *field_of(const char *token) {
    for (size_t i = 0; i < e.n_fields; i++)
        if (!strcmp(e.fields[i].token, token)) return &e.fields[i];
    cr_assert_fail("no field '%s' in the explanation of %s (family %s)", token, e.name, e.family);
    return NULL;
}

static void expect_field(const char *token, const char *what, wb_name_basis basis) {
    const wb_name_field *f = field_of(token);
    cr_expect_str_eq(f->what, what, "%s: field %s", e.name, token);
    cr_expect_eq(f->basis, basis, "%s: field %s is '%s'", e.name, token, wb_name_basis_label(f->basis));
}

static int has_note(const char *text) {
    for (size_t i = 0; i < e.n_notes; i++)
        if (strstr(e.notes[i], text)) return 1;
    return 0;
}

Test(explain, nvjet_fields_and_what_they_rest_on) {
    wb_explain_kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", &e);
    cr_expect_str_eq(e.family, "cuBLAS nvjet");
    cr_expect(e.gemm);
    expect_field("sm90", "architecture", WB_BASIS_EVIDENCE);
    expect_field("256x128", "tile", WB_BASIS_EVIDENCE);
    expect_field("64x4", "k-tile x stages", WB_BASIS_EVIDENCE);
    expect_field("1x2", "cluster", WB_BASIS_EVIDENCE);
    expect_field("TNT", "layout", WB_BASIS_EVIDENCE);
    /* not documented by NVIDIA and not evidenced: said so, not guessed */
    expect_field("tst", "?", WB_BASIS_UNDOCUMENTED);
    expect_field("h", "?", WB_BASIS_UNDOCUMENTED);
    expect_field("bz", "?", WB_BASIS_UNDOCUMENTED);
    expect_field("coopA", "?", WB_BASIS_UNDOCUMENTED);
    for (size_t i = 0; i < e.n_fields; i++)
        cr_expect(e.fields[i].basis != WB_BASIS_DOCUMENTED && e.fields[i].basis != WB_BASIS_SOURCE,
                  "nvjet field %s claims documentation NVIDIA does not publish", e.fields[i].token);
    cr_expect(has_note("No NVIDIA document explains nvjet names"));
    cr_expect(has_note("row-major C = A @ B^T"), "TN read for row-major code");
}

Test(explain, nvjet_bias_epilogue_and_plain_layout) {
    wb_explain_kernel("nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT", &e);
    expect_field("bias", "epilogue", WB_BASIS_EVIDENCE);
    wb_explain_kernel("nvjet_sm90_tst_64x8_64x16_1x4_h_bz_NNT", &e);
    cr_expect(has_note("row-major C = A @ B (the plain product"));
}

Test(explain, cutlass3_procedural_name_is_documented) {
    wb_explain_kernel("cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_bf16_bf16_128x256x64_1x2x1_0_tnn_align8_"
                      "warpspecialized_cooperative_epi_tma", &e);
    cr_expect_str_eq(e.family, "CUTLASS 3");
    cr_expect(e.gemm);
    expect_field("128x256x64", "tile", WB_BASIS_DOCUMENTED);
    expect_field("1x2x1", "cluster", WB_BASIS_DOCUMENTED);
    expect_field("0", "stages", WB_BASIS_DOCUMENTED);
    expect_field("tnn", "layout", WB_BASIS_DOCUMENTED);
    expect_field("align8", "alignment", WB_BASIS_DOCUMENTED);
    expect_field("s64x128x16gemm", "instruction", WB_BASIS_DOCUMENTED);
    cr_expect(strstr(field_of("tnn")->meaning, "row-major, column-major, column-major"), "%s", field_of("tnn")->meaning);
    cr_expect(strstr(e.fields[4].meaning, "A:") && strstr(e.fields[6].meaning, "accumulator"), "types by position");
    expect_field("cooperative", "schedule", WB_BASIS_DOCUMENTED);
}

Test(explain, cutlass2_name_inside_cublas_wrapper) {
    wb_explain_kernel("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>("
                      "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)", &e);
    cr_expect_str_eq(e.family, "CUTLASS 2");
    cr_expect_str_eq(e.base, "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8");
    expect_field("32x32", "tile", WB_BASIS_DOCUMENTED);
    expect_field("128x2", "k-tile x stages", WB_BASIS_DOCUMENTED);
    expect_field("tn", "layout", WB_BASIS_DOCUMENTED);
    cr_expect(strstr(field_of("s161616gemm")->meaning, "m16n16k16"));
    wb_explain_kernel("cutlass_tensorop_s16816gemm_relu_f16_128x128_32x5_nt_align8", &e);
    expect_field("relu", "epilogue", WB_BASIS_SOURCE);
}

Test(explain, cutlass_template_instance) {
    wb_explain_kernel("void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined<"
                      "cutlass::gemm::GemmShape<128, 128, 8>, cutlass::layout::RowMajor, cutlass::layout::ColumnMajor, "
                      "cutlass::gemm::GemmShape<32, 64, 8>, cutlass::gemm::GemmShape<1, 1, 1>>, "
                      "cutlass::epilogue::thread::LinearCombinationRelu<float, 1, float, float>>>(...)", &e);
    cr_expect_str_eq(e.family, "CUTLASS (template instance)");
    expect_field("128, 128, 8", "thread-block tile", WB_BASIS_DOCUMENTED);
    expect_field("32, 64, 8", "warp tile", WB_BASIS_DOCUMENTED);
    expect_field("LinearCombinationRelu", "epilogue", WB_BASIS_DOCUMENTED);
}

Test(explain, architecture_named_cublas) {
    wb_explain_kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn", &e);
    cr_expect_str_eq(e.family, "cuBLAS (architecture-named)");
    expect_field("128x128", "tile", WB_BASIS_CONVENTION);
    expect_field("64x3", "k-tile x stages", WB_BASIS_CONVENTION);
    expect_field("ldg8", "?", WB_BASIS_UNDOCUMENTED);
    expect_field("f2f", "?", WB_BASIS_UNDOCUMENTED);
    expect_field("tn", "layout", WB_BASIS_UNDOCUMENTED);
    cr_expect(has_note("If these letters are cuBLAS's operation letters"), "hedged: not documented for these names");
    wb_explain_kernel("volta_sgemm_128x64_nn", &e);
    cr_expect(strstr(field_of("sgemm")->meaning, "fp32") && strstr(field_of("sgemm")->meaning, "no tensor cores"));
}

Test(explain, xmma) {
    wb_explain_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cgasize1x2x1_warpgroupsize2x1x1_"
                      "execute_segment_k_off_kernel__5x_cublas", &e);
    cr_expect_str_eq(e.family, "cuBLAS/cuDNN xmma");
    cr_expect(e.gemm);
    expect_field("tilesize128x256x64", "tile", WB_BASIS_CONVENTION);
    expect_field("cgasize1x2x1", "cluster", WB_BASIS_CONVENTION);
    expect_field("bf16bf16", "types", WB_BASIS_UNDOCUMENTED);
}

Test(explain, triton_kernels_of_torch_compile) {
    wb_explain_kernel("triton_poi_fused_add_mul_0", &e);
    cr_expect_str_eq(e.family, "Triton (torch.compile)");
    cr_expect(!e.gemm);
    expect_field("poi", "category", WB_BASIS_SOURCE);
    expect_field("fused_add_mul", "fused ops", WB_BASIS_SOURCE);
    expect_field("0", "counter", WB_BASIS_SOURCE);
    wb_explain_kernel("triton_red_fused__softmax_1", &e);
    cr_expect(strstr(field_of("red")->meaning, "reduction"));
    wb_explain_kernel("triton_per_fused_native_layer_norm_2", &e);
    cr_expect(strstr(field_of("per")->meaning, "persistent"));
    wb_explain_kernel("triton_tem_fused_addmm_gelu_3", &e);
    cr_expect(e.gemm, "Inductor's matmul templates are GEMMs");
    expect_field("gelu", "epilogue", WB_BASIS_SOURCE);
}

Test(explain, pytorch_aten) {
    wb_explain_kernel("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
                      "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda(c10::BFloat16)#1}, "
                      "at::detail::Array<char*, 2> >(int, at::detail::Array<char*, 2>)", &e);
    cr_expect_str_eq(e.family, "PyTorch ATen");
    cr_expect_str_eq(e.base, "at::native::vectorized_elementwise_kernel");
    cr_expect(strstr(field_of("vectorized_elementwise_kernel")->meaning, "4 elements"));
    expect_field("GeluCUDAKernelImpl", "op", WB_BASIS_SOURCE);
    expect_field("c10::BFloat16", "type", WB_BASIS_SOURCE);
    wb_explain_kernel("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
                      "at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> "
                      "const&)::{lambda(int)#1}>(int, ...)", &e);
    expect_field("CUDAFunctor_add", "op", WB_BASIS_SOURCE);
    wb_explain_kernel("void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, false>(...)", &e);
    cr_expect_str_eq(e.family, "PyTorch ATen");
    cr_expect(field_of("softmax_warp_forward") != NULL);
}

Test(explain, own_kernels_and_mangled_names) {
    wb_explain_kernel("k_bias_add(__nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16 const*, int, int)", &e);
    cr_expect_str_eq(e.family, "plain kernel name", "the name alone does not say it is the program's own");
    cr_expect_str_eq(e.base, "k_bias_add");
    cr_expect(!e.gemm);
    cr_expect(strstr(e.fields[0].meaning, "bf16 data"), "%s", e.fields[0].meaning);
    cr_expect(!strstr(e.fields[0].meaning, "fp32"), "__nv_bfloat16 is not float: %s", e.fields[0].meaning);
    cr_expect(has_note("epilogue could fuse"));
    cr_expect(has_note("k_ prefix marks the course's own kernels"));
    wb_explain_kernel("_Z10k_bias_addP13__nv_bfloat16PKS_S2_ii", &e);
    cr_expect_str_eq(e.base, "k_bias_add");
    cr_expect(has_note("mangled"));
    wb_explain_kernel("_ZN2at6native29vectorized_elementwise_kernelILi4EZNS0_xEEvi", &e);
    cr_expect_str_eq(e.base, "at::native::vectorized_elementwise_kernel");
    cr_expect_str_eq(e.family, "PyTorch ATen");
}

Test(explain, helper_libraries_are_not_gemms) {
    wb_explain_kernel("void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, false>(...)", &e);
    cr_expect_str_eq(e.family, "cuBLASLt helper");
    cr_expect(!e.gemm, "split-K reduction multiplies nothing");
    wb_explain_kernel("void cub::DeviceReduceKernel<...>(...)", &e);
    cr_expect_str_eq(e.family, "CUB");
    wb_explain_kernel("a-name-nobody-knows::x", &e);
    cr_expect_str_eq(e.family, "unrecognized");
}

/* Every kernel of the H200 recordings, C and PyTorch variants: the family each belongs to, and
 * the GEMM verdict is the grader's own. */
static void check_recording(const char *path) {
    wb_recording rec;
    wb_error err = {0};
    cr_assert_eq(wb_recording_load(path, &rec, &err), 0, "%s", err.message);
    size_t checked = 0;
    for (size_t r = 0; r < rec.n_runs; r++)
        for (size_t k = 0; k < rec.runs[r].capture.n_kernels; k++) {
            const char *name = rec.runs[r].capture.kernels[k].name;
            wb_explain_kernel(name, &e);
            cr_expect_eq(e.gemm, wb_is_gemm(name, NULL), "%s", name);
            if (!strncmp(name, "nvjet_", 6)) {
                cr_expect_str_eq(e.family, "cuBLAS nvjet", "%s", name);
                int tile = 0, cluster = 0;
                for (size_t i = 0; i < e.n_fields; i++) {
                    tile |= !strcmp(e.fields[i].what, "tile");
                    cluster |= !strcmp(e.fields[i].what, "cluster");
                }
                cr_expect(tile && cluster, "%s: tile and cluster decoded", name);
            } else if (strstr(name, "xmma_") || strstr(name, "cublasLt::")) { /* cuBLASLt's own (epilogues, split-K) */
                cr_expect(strcmp(e.family, "compiled from source") != 0, "%s: a cuBLAS kernel, family %s", name, e.family);
            } else if (!strncmp(name, "void at::native::", 17)) { /* the PyTorch variants' own kernels */
                cr_expect_str_eq(e.family, "PyTorch ATen", "%s", name);
            } else if (!strncmp(name, "triton_", 7)) { /* Inductor's, of the torch.compile variants */
                cr_expect_str_eq(e.family, "Triton (torch.compile)", "%s", name);
            } else {
                cr_expect_str_eq(e.family, "plain kernel name", "%s", name);
            }
            checked++;
        }
    cr_expect(checked > 0);
    wb_recording_free(&rec);
}

Test(explain, every_kernel_of_the_recordings) {
    char path[4200];
    fixture_probe_recording(path, sizeof path);
    check_recording(path);
    char lessons[4200];
    snprintf(lessons, sizeof lessons, "%s/lessons", fixture_source_dir());
    DIR *d = opendir(lessons);
    struct dirent *ent;
    while (d && (ent = readdir(d))) {
        if (ent->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s/traces/sm_90.json", lessons, ent->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        fclose(f);
        check_recording(path);
    }
    if (d) closedir(d);
}

Test(explain, json_has_every_field_and_its_basis) {
    wb_explain_kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", &e);
    json_t *j = wb_kernel_explanation_json(&e);
    cr_expect_str_eq(json_string_value(json_object_get(j, "family")), "cuBLAS nvjet");
    cr_expect(json_is_true(json_object_get(j, "gemm")));
    json_t *fields = json_object_get(j, "fields");
    cr_expect_eq(json_array_size(fields), e.n_fields);
    json_t *tst = json_array_get(fields, 1);
    cr_expect_str_eq(json_string_value(json_object_get(tst, "token")), "tst");
    cr_expect_str_eq(json_string_value(json_object_get(tst, "basis")), "undocumented");
    cr_expect(json_is_false(json_object_get(tst, "documented")));
    json_decref(j);
}

/* ---- docs/kernel-names.md lists the GEMM table of gemm_families.c ---------------------------- */

/* The cells of the table rows between <!-- NAME:begin --> and <!-- NAME:end -->: up to cap rows of
 * 3 cells, backticks around the first cell dropped. */
static size_t doc_rows(const char *doc, const char *name, char rows[][3][512], size_t cap) {
    char begin[128], end[128];
    snprintf(begin, sizeof begin, "<!-- %s:begin -->", name);
    snprintf(end, sizeof end, "<!-- %s:end -->", name);
    const char *p = strstr(doc, begin), *q = strstr(doc, end);
    cr_assert(p && q && p < q, "docs/kernel-names.md lacks the %s markers", name);
    size_t n = 0;
    for (const char *line = strchr(p, '\n') + 1; line < q && n < cap; line = strchr(line, '\n') + 1) {
        char row[2048];
        snprintf(row, sizeof row, "%.*s", (int)strcspn(line, "\n"), line);
        if (row[0] != '|' || !strncmp(row, "|---", 4) || strstr(row, "| pattern |")) continue;
        const char *c = row + 1;
        for (int k = 0; k < 3; k++) {
            size_t w = strcspn(c, "|");
            const char *a = c, *b = c + w;
            while (a < b && (*a == ' ' || *a == '`')) a++;
            while (b > a && (b[-1] == ' ' || b[-1] == '`')) b--;
            snprintf(rows[n][k], 512, "%.*s", (int)(b - a), a);
            c += w + (c[w] == '|');
        }
        n++;
    }
    return n;
}

Test(explain, docs_list_the_gemm_families_in_the_same_order) {
    char path[4200];
    snprintf(path, sizeof path, "%s/docs/kernel-names.md", fixture_source_dir());
    char *doc = fixture_read(path);
    static char rows[64][3][512];
    size_t n = doc_rows(doc, "gemm-families", rows, 64), count;
    const wb_gemm_family *f = wb_gemm_families(&count);
    cr_expect_eq(n, count, "docs/kernel-names.md lists %zu families, gemm_families.c has %zu", n, count);
    for (size_t i = 0; i < n && i < count; i++) {
        cr_expect_str_eq(rows[i][0], f[i].pattern, "row %zu", i + 1);
        cr_expect_str_eq(rows[i][1], f[i].family, "row %zu", i + 1);
        cr_expect_str_eq(rows[i][2], f[i].about, "row %zu", i + 1);
    }
    /* the exclusions listed are exclusions: a name holding one is no GEMM even if it says gemm */
    size_t m = doc_rows(doc, "gemm-exclusions", rows, 64);
    cr_expect(m > 0);
    for (size_t i = 0; i < m; i++) {
        char name[600];
        snprintf(name, sizeof name, "cublasLt::%s_gemm_nvjet", rows[i][0]);
        cr_expect(!wb_is_gemm(name, NULL), "docs list %s as an exclusion, the grader does not exclude it", rows[i][0]);
    }
    free(doc);
}
