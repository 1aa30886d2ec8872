/*
 * test_fixture.c: the engine's GPT-2 on the CPU backend against the PyTorch fixture: logits, loss,
 * every parameter gradient and the losses of 10 AdamW steps (f32 and f64, fused and primitive
 * ops). Fails, naming the command that makes it, while the fixture is not committed.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "fixture.h"
#include "wb_check.h"

static void run_fixture(wb_dtype dtype, int ops, const fixture_tolerances *tol) {
    char path[4096];
    gpt2_fixture fx;
    fixture_path(path, sizeof path);
    cr_assert_eq(fixture_load(&fx, path), WB_OK, "cannot load the GPT-2 fixture %s (see the message above)", path);
    wb_backend *be;
    cr_assert_eq(wb_backend_cpu_create(&be), WB_OK);
    int rc = fixture_compare(&fx, be, dtype, ops, tol);
    fflush(stdout);
    cr_expect_eq(rc, WB_OK, "the engine's GPT-2 differs from PyTorch (see the table above)");
    be->destroy(be);
    fixture_free(&fx);
}

/* The fixture is float64 PyTorch rounded to float32: f64 here agrees to the rounding; f32 to
 * float32 arithmetic over a few hundred terms. */
Test(fixture, cpu_f64) {
    fixture_tolerances tol = {1e-6, 1e-6, 1e-5, 1e-4, 1e-5};
    run_fixture(WB_F64, 0, &tol);
}

Test(fixture, cpu_f32) {
    fixture_tolerances tol = {1e-5, 1e-5, 1e-4, 1e-3, 1e-4};
    run_fixture(WB_F32, 0, &tol);
}

Test(fixture, cpu_f64_fused_attention) {
    fixture_tolerances tol = {1e-6, 1e-6, 1e-5, 1e-4, 1e-5};
    run_fixture(WB_F64, 2, &tol);
}

Test(fixture, cpu_f64_primitive_ops) {
    fixture_tolerances tol = {1e-6, 1e-6, 1e-5, 1e-4, 1e-5};
    run_fixture(WB_F64, 1, &tol);
}

