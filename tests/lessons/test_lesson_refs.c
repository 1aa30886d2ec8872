/*
 * test_lesson_refs.c: the CPU references that lessons 01-03 check their GPU results against.
 * A wrong reference would pass wrong kernels (or fail right ones), so it is pinned to values
 * computed independently (Python's math module, float64).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_activations.h"
#include "wb_args.h"
#include "wb_bf16.h"
#include "wb_compare.h"
#include "wb_random.h"

Test(gelu_tanh, known_values) {
    /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), evaluated in Python */
    const double x[] = {0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 10.0};
    const double want[] = {0.0, 0.8411919906082768, -0.15880800939172324, 0.34571400982514394,
                           1.954597694087775, -0.0036373920817729943, 10.0};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        cr_expect(fabs(wb_gelu_tanh(x[i]) - want[i]) <= 1e-15 * (1.0 + fabs(want[i])),
                  "gelu_tanh(%g) = %.17g, want %.17g", x[i], wb_gelu_tanh(x[i]), want[i]);
}

Test(gelu_tanh, limits) {
    cr_expect(wb_gelu_tanh(-30.0) == 0.0, "gelu_tanh(-30) = %g, want 0", wb_gelu_tanh(-30.0));
    cr_expect(wb_gelu_tanh(30.0) == 30.0, "gelu_tanh(30) = %g, want 30", wb_gelu_tanh(30.0));
    cr_expect(isnan(wb_gelu_tanh(NAN)));
}

/* The sigmoid form the GPU kernels use, x / (1 + exp(-2 s)), is the same function. */
Test(gelu_tanh, sigmoid_form_matches) {
    for (double x = -8.0; x <= 8.0; x += 0.01) {
        double s = 0.79788456080286535588 * (x + 0.044715 * x * x * x);
        double alt = x / (1.0 + exp(-2.0 * s));
        cr_expect(fabs(alt - wb_gelu_tanh(x)) <= 1e-13 * (1.0 + fabs(x)), "x = %g: %.17g vs %.17g", x,
                  alt, wb_gelu_tanh(x));
    }
}

Test(bf16, exact_values_round_trip) {
    const float exact[] = {0.0f, 1.0f, -2.0f, 0.5f, 3.0f, 1.0078125f /* 1 + 2^-7 */, 65536.0f};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        cr_expect(wb_bf16_round(exact[i]) == exact[i], "%g does not survive bf16", exact[i]);
    cr_expect(wb_bf16_from_float(1.0f) == 0x3F80);
    cr_expect(wb_bf16_from_float(-2.0f) == 0xC000);
}

Test(bf16, rounds_to_nearest_even) {
    /* Between 1 and 1 + 2^-7 the halfway point 1 + 2^-8 rounds to the even mantissa, 1. */
    cr_expect(wb_bf16_round(1.00390625f) == 1.0f);
    /* Between 1 + 2^-7 (odd mantissa) and 1 + 2^-6 the halfway point rounds up, to the even one. */
    cr_expect(wb_bf16_round(1.01171875f) == 1.015625f);
    /* Just over halfway rounds up. */
    cr_expect(wb_bf16_round(1.004f) == 1.0078125f);
    /* 8 significant bits: rounding moves a value by at most 2^-8 of itself. */
    for (float f = 0.001f; f < 1000.0f; f *= 1.01f)
        cr_expect(fabsf(wb_bf16_round(f) - f) <= f * (1.0f / 256.0f), "%g -> %g", f, wb_bf16_round(f));
}

Test(bf16, specials) {
    cr_expect(isnan(wb_bf16_round(NAN)));
    cr_expect(isinf(wb_bf16_round(INFINITY)));
    cr_expect(isinf(wb_bf16_round(3.4e38f)), "past the largest bf16 rounds to infinity");
    cr_expect(wb_bf16_to_float(0xFFFF) != wb_bf16_to_float(0xFFFF), "0xFFFF (the lessons' unwritten-output fill) is NaN");
}

Test(bf16, encode_rounds_in_place) {
    float x[3] = {1.00390625f, -0.1f, 300.7f};
    uint16_t bits[3];
    wb_bf16_encode(bits, x, 3);
    for (int i = 0; i < 3; i++) cr_expect(x[i] == wb_bf16_to_float(bits[i]));
    float back[3];
    wb_bf16_decode(back, bits, 3);
    for (int i = 0; i < 3; i++) cr_expect(back[i] == x[i]);
}

/* ---- command-line numbers (common/wb_args.c): what every lesson's flags go through ---------- */

Test(lesson_args, parses_numbers_in_range_only) {
    int v = -7;
    cr_assert_eq(wb_parse_int("64", 1, 16384, &v), 0);
    cr_assert_eq(v, 64);
    cr_assert_eq(wb_parse_int("16384", 1, 16384, &v), 0, "the upper bound is included");
    cr_assert_eq(v, 16384);
    v = -7;
    const char *bad[] = {"", "0", "16385", "12x", "x12", "1e3", "-5", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(wb_parse_int(bad[i], 1, 16384, &v), -1, "accepted '%s'", bad[i]);
    cr_assert_eq(v, -7, "a rejected value leaves the output alone");
}

/* The option table every lesson program's options go through (wb_opts_parse). */
static int preset_calls;
static int set_preset(void *layers, const char *name) {
    preset_calls++;
    if (strcmp(name, "big")) {
        fprintf(stderr, "--preset: unknown preset '%s'\n", name);
        return -1;
    }
    *(int *)layers = 48;
    return 0;
}

static int parse_with_table(int argc, char **argv, int *layers, double *lr, long long *seed) {
    static const char *data;
    static int graph;
    const wb_opt opts[] = {
        WB_INT("layers", layers, 1, 1000), WB_DOUBLE("lr", lr, 0, 10), WB_I64("seed", seed, 0, 9e18),
        WB_STRING("data", &data),          WB_FLAG("graph", &graph),
        WB_CALL("preset", layers, set_preset),
    };
    data = "builtin", graph = 0;
    int rc = wb_opts_parse(opts, 6, argc, argv);
    if (rc == 0) cr_assert(graph == 0 || !strcmp(data, "stories"), "flag and string taken together in the test");
    return rc;
}

Test(lesson_args, option_table_stores_each_kind) {
    int layers = 0;
    double lr = 0;
    long long seed = 0;
    char *argv[] = {"prog", "--layers", "12", "--lr=3e-4", "--seed", "123456789012", "--data", "stories", "--graph", NULL};
    cr_assert_eq(parse_with_table(9, argv, &layers, &lr, &seed), 0);
    cr_assert_eq(layers, 12);
    cr_assert_float_eq(lr, 3e-4, 1e-12);
    cr_assert_eq(seed, 123456789012LL);
}

Test(lesson_args, option_table_applies_options_in_order) {
    int layers = 0;
    double lr = 0;
    long long seed = 0;
    char *preset_then_layers[] = {"prog", "--preset", "big", "--layers", "6", NULL};
    cr_assert_eq(parse_with_table(5, preset_then_layers, &layers, &lr, &seed), 0);
    cr_assert_eq(layers, 6, "an option after --preset overrides it");
    char *layers_then_preset[] = {"prog", "--layers", "6", "--preset", "big", NULL};
    cr_assert_eq(parse_with_table(5, layers_then_preset, &layers, &lr, &seed), 0);
    cr_assert_eq(layers, 48, "--preset after an option overrides it");
    cr_assert_eq(preset_calls, 2);
}

Test(lesson_args, option_table_says_help) {
    int layers = 0;
    double lr = 0;
    long long seed = 0;
    char *help[] = {"prog", "--layers", "3", "--help", NULL};
    cr_assert_eq(parse_with_table(4, help, &layers, &lr, &seed), 1);
    char *h[] = {"prog", "-h", NULL};
    cr_assert_eq(parse_with_table(2, h, &layers, &lr, &seed), 1);
}

Test(lesson_args, option_table_names_what_is_wrong, .init = cr_redirect_stderr) {
    int layers = 0;
    double lr = 0;
    long long seed = 0;
    char *bad_number[] = {"prog", "--layers", "abc", NULL};
    cr_assert_eq(parse_with_table(3, bad_number, &layers, &lr, &seed), -1);
    char *unknown[] = {"prog", "--colour", NULL};
    cr_assert_eq(parse_with_table(2, unknown, &layers, &lr, &seed), -1);
    char *no_value[] = {"prog", "--lr", NULL};
    cr_assert_eq(parse_with_table(2, no_value, &layers, &lr, &seed), -1);
    char *left_over[] = {"prog", "--layers", "2", "extra", NULL};
    cr_assert_eq(parse_with_table(4, left_over, &layers, &lr, &seed), -1);
    cr_assert_eq(layers, 2, "options before the stray argument were taken");
    char *bad_preset[] = {"prog", "--preset", "huge", NULL};
    cr_assert_eq(parse_with_table(3, bad_preset, &layers, &lr, &seed), -1);
    char *flag_value[] = {"prog", "--graph=yes", NULL};
    cr_assert_eq(parse_with_table(2, flag_value, &layers, &lr, &seed), -1);
    fflush(stderr);
    cr_assert_stderr_eq_str("--layers: 'abc' is not a whole number in [1, 1000]\n"
                            "unknown option: --colour\n"
                            "an option needs a value: --lr\n"
                            "unexpected argument 'extra' (options start with --)\n"
                            "--preset: unknown preset 'huge'\n"
                            "an option without a value was given one: --graph=yes\n");
}

Test(lesson_args, option_table_refuses_to_overflow, .init = cr_redirect_stderr) {
    static wb_opt many[WB_OPTS_MAX + 1];
    static int v;
    for (int i = 0; i <= WB_OPTS_MAX; i++) many[i] = (wb_opt)WB_FLAG("x", &v);
    char *argv[] = {"prog", NULL};
    cr_assert_eq(wb_opts_parse(many, WB_OPTS_MAX + 1, 1, argv), -1);
}

/* Lesson 03's reference multiplies by nn.Linear-shaped weights without transposing them: the same
 * double sums in the same order as wb_cpu_matmul on the transposed weight, bit for bit, at a
 * shape with odd sizes; and a small product worked by hand. */
Test(cpu_matmul_nt, equals_matmul_of_the_transpose) {
    enum { M = 3, N = 37, K = 101 };
    static float a[M * K], w[N * K], wt[K * N];
    static double ref_nt[M * N], ref[M * N];
    wb_rng rng;
    wb_rng_seed(&rng, 7);
    wb_fill_normal(a, M * K, &rng, 1.0f);
    wb_fill_uniform(w, N * K, &rng, -1.0f, 1.0f);
    for (int j = 0; j < N; j++)
        for (int p = 0; p < K; p++) wt[p * N + j] = w[j * K + p];
    wb_cpu_matmul_nt(ref_nt, a, w, M, N, K);
    wb_cpu_matmul(ref, a, wt, M, N, K);
    cr_assert(memcmp(ref_nt, ref, sizeof ref) == 0, "not the same sums");
    const float a2[] = {1, 2, 3, 4, 5, 6};  /* (2, 3) */
    const float w2[] = {1, 0, -1, 2, 1, 0}; /* (2, 3): rows are the outputs */
    double out[4];
    wb_cpu_matmul_nt(out, a2, w2, 2, 2, 3);
    const double want[] = {-2, 4, -2, 13};
    for (int i = 0; i < 4; i++) cr_expect(out[i] == want[i], "out[%d] = %g, want %g", i, out[i], want[i]);
}

/* A large fill runs on several threads, each slice from where the generator stands at its first
 * value: every value, and the state left behind, equal drawing them one by one. */
Test(random_fill, threads_draw_the_values_one_thread_would) {
    const size_t n = (3u << 20) + 7; /* above the threshold, not a multiple of any thread count */
    float *x = malloc(n * sizeof *x), *want = malloc(n * sizeof *want);
    cr_assert(x && want);
    wb_rng fill_rng, one_rng;
    wb_rng_seed(&fill_rng, 42);
    wb_rng_seed(&one_rng, 42);
    wb_fill_normal(x, n, &fill_rng, 1.5f);
    for (size_t i = 0; i < n; i++) want[i] = 1.5f * wb_rng_normal(&one_rng);
    cr_assert(memcmp(x, want, n * sizeof *x) == 0, "normal values differ");
    cr_assert_eq(fill_rng.state, one_rng.state, "the generator is left elsewhere");
    wb_fill_uniform(x, n, &fill_rng, -0.25f, 0.75f);
    for (size_t i = 0; i < n; i++) want[i] = -0.25f + (0.75f - -0.25f) * wb_rng_uniform(&one_rng);
    cr_assert(memcmp(x, want, n * sizeof *x) == 0, "uniform values differ");
    cr_assert_eq(fill_rng.state, one_rng.state);
    free(x);
    free(want);
}
