/*
 * test_trace.c: the Chrome trace writer, its output read back with jansson and checked: the
 * lanes (host API per thread, GPU per stream, NVTX), complete events with durations, and one
 * flow arrow from each launching call to its kernel. Also the kernel summary and range table.
 */
#include "capture_builder.h"
#include "chrome_trace.h"
#include "summary.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <unistd.h>

static void make(wb_recording *rec) {
    wb_capture *c = build_recording(rec);
    add_range(c, "step", 1000, 9000, 11);
    add_range(c, "inner", 1500, 3000, 11);
    add_api(c, "cudaLaunchKernel", 2000, 2500, 1, 11);
    add_kernel(c, "k_gelu", 3000, 4000, 1, 7);
    add_api(c, "cuLaunchKernelEx", 5000, 5300, 2, 11);
    add_kernel(c, "nvjet_sm90_tst_64x8", 6000, 8000, 2, 13);
    add_api(c, "cudaMemcpyAsync", 8100, 8200, 3, 11);
    add_op(c, WB_GPU_MEMCPY, 8300, 8400, 3, 13);
    add_window(c, 900, 9500);
    build_finish(c);
}

static json_t *events_of(json_t *trace) { return json_object_get(trace, "traceEvents"); }

static const char *str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

Test(trace, written_file_is_valid_chrome_trace_json) {
    wb_recording rec;
    make(&rec);
    char path[] = "/tmp/wb-trace-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    wb_error err = {0};
    cr_assert_eq(wb_chrome_trace_write(&rec, path, &err), 0, "%s", err.message);
    json_error_t jerr;
    json_t *t = json_load_file(path, 0, &jerr);
    cr_assert_not_null(t, "unreadable trace: %s", jerr.text);
    json_t *ev = events_of(t);
    cr_assert(json_is_array(ev));
    cr_assert_str_eq(str(t, "displayTimeUnit"), "ns");

    int kernels = 0, apis = 0, ranges = 0, copies = 0, flows_s = 0, flows_f = 0, names = 0;
    json_int_t host_pid = -1, gpu_pid = -1, nvtx_pid = -1;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *ph = str(e, "ph");
        cr_assert_not_null(ph, "every event has a phase");
        cr_assert(json_is_integer(json_object_get(e, "pid")));
        if (!strcmp(ph, "M")) {
            if (!strcmp(str(e, "name"), "process_name")) {
                const char *n = str(json_object_get(e, "args"), "name");
                json_int_t pid = json_integer_value(json_object_get(e, "pid"));
                if (strstr(n, "host API")) host_pid = pid;
                if (strstr(n, "GPU")) gpu_pid = pid;
                if (strstr(n, "NVTX")) nvtx_pid = pid;
                names++;
            }
            continue;
        }
        cr_assert(json_is_number(json_object_get(e, "ts")), "event without ts");
        const char *cat = str(e, "cat");
        if (!strcmp(ph, "X")) {
            cr_assert(json_is_number(json_object_get(e, "dur")));
            cr_assert_geq(json_number_value(json_object_get(e, "dur")), 0.0);
            if (!strcmp(cat, "kernel")) kernels++;
            else if (!strcmp(cat, "runtime API") || !strcmp(cat, "driver API")) apis++;
            else if (!strcmp(cat, "nvtx")) ranges++;
            else if (!strcmp(cat, "memcpy")) copies++;
        }
        if (!strcmp(ph, "s")) flows_s++;
        if (!strcmp(ph, "f")) {
            flows_f++;
            cr_assert_str_eq(str(e, "bp"), "e");
        }
    }
    cr_assert_eq(names, 3, "three processes: host API, GPU, NVTX");
    cr_assert_eq(kernels, 2);
    cr_assert_eq(apis, 3);
    cr_assert_eq(ranges, 2);
    cr_assert_eq(copies, 1);
    cr_assert_eq(flows_s, 3, "one arrow per kernel or copy");
    cr_assert_eq(flows_f, 3);

    /* lanes: kernels on their stream's lane of the GPU process; times relative to the first record */
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *cat = str(e, "cat");
        if (!cat) continue;
        json_int_t pid = json_integer_value(json_object_get(e, "pid")), tid = json_integer_value(json_object_get(e, "tid"));
        if (!strcmp(cat, "kernel")) {
            cr_assert_eq(pid, gpu_pid);
            if (!strcmp(str(e, "name"), "k_gelu")) {
                cr_assert_eq(tid, 7);
                /* the window 900..9500 ns plus 5% of its 8600 ns on each side: shown from 470 ns */
                cr_assert_float_eq(json_number_value(json_object_get(e, "ts")), 2.53, 1e-9, "3000 ns - 470 ns = 2.53 us");
                cr_assert_float_eq(json_number_value(json_object_get(e, "dur")), 1.0, 1e-9);
                cr_assert(json_is_false(json_object_get(json_object_get(e, "args"), "gemm")));
            } else {
                cr_assert_eq(tid, 13);
                cr_assert(json_is_true(json_object_get(json_object_get(e, "args"), "gemm")));
            }
        }
        if (!strcmp(cat, "runtime API") || !strcmp(cat, "driver API")) {
            cr_assert_eq(pid, host_pid);
            cr_assert_eq(tid, 11);
        }
        if (!strcmp(cat, "nvtx")) cr_assert_eq(pid, nvtx_pid);
    }
    /* each flow start pairs with one finish of the same id */
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *s = json_array_get(ev, i);
        if (strcmp(str(s, "ph"), "s")) continue;
        int matched = 0;
        for (size_t j = 0; j < json_array_size(ev); j++) {
            json_t *f = json_array_get(ev, j);
            if (!strcmp(str(f, "ph"), "f") && json_equal(json_object_get(f, "id"), json_object_get(s, "id"))) matched++;
        }
        cr_assert_eq(matched, 1);
    }
    json_decref(t);
    unlink(path);
    wb_recording_free(&rec);
}

Test(trace, summary_groups_kernels_and_ranges) {
    wb_recording rec;
    make(&rec);
    wb_summary s;
    cr_assert_eq(wb_summary_build(&rec.runs[0].capture, &s), 0);
    cr_assert_eq(s.n_kernels, 2);
    cr_assert_str_eq(s.kernels[0].name, "nvjet_sm90_tst_64x8", "sorted by total time");
    cr_assert_eq(s.kernels[0].total_ns, 2000);
    cr_assert(s.kernels[0].gemm);
    cr_assert_eq(s.kernels[1].instances, 1);
    cr_assert_eq(s.kernel_total_ns, 3000);
    cr_assert_eq(s.n_ranges, 2);
    cr_assert_str_eq(s.ranges[0].name, "step");
    cr_assert_float_eq(s.ranges[0].kernels, 2.0, 1e-9);
    cr_assert_float_eq(s.ranges[0].api_calls, 3.0, 1e-9);
    cr_assert_float_eq(s.ranges[0].gpu_ns, 3100.0, 1e-9, "two kernels (3000 ns) and the copy (100 ns)");
    cr_assert_float_eq(s.ranges[0].wall_ns, 8000.0, 1e-9);
    cr_assert_float_eq(s.ranges[1].kernels, 1.0, 1e-9, "inner holds the gelu launch");
    char buf[8192] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    wb_table_style style = {10, 200, 0};
    wb_summary_print(f, "eager", &rec.runs[0].capture, &s, &style);
    fclose(f);
    cr_assert(strstr(buf, "nvjet_sm90_tst_64x8  [gemm]"), "%s", buf);
    wb_summary_free(&s);
    wb_recording_free(&rec);
}

/* A copy's name says the host side's memory kind when the capture has it (pageable copies are
 * the slow, staged ones), and its args carry both kinds and the async flag. */
Test(trace, memcpy_names_their_host_memory_kind) {
    wb_recording rec;
    make(&rec);
    wb_gpu_op *o = &rec.runs[0].capture.ops[0];
    strcpy(o->copy_kind, "HtoD");
    strcpy(o->src_kind, "pageable");
    strcpy(o->dst_kind, "device");
    o->async = 1;
    json_t *t = wb_chrome_trace(&rec);
    json_t *e, *copy = NULL;
    size_t i;
    json_array_foreach(events_of(t), i, e) if (str(e, "cat") && !strcmp(str(e, "cat"), "memcpy")) copy = e;
    cr_assert_not_null(copy);
    cr_assert_str_eq(str(copy, "name"), "memcpy HtoD (pageable) 4096 B");
    json_t *args = json_object_get(copy, "args");
    cr_assert_str_eq(str(args, "src_kind"), "pageable");
    cr_assert_str_eq(str(args, "dst_kind"), "device");
    cr_assert(json_is_true(json_object_get(args, "async")));
    json_decref(t);
    wb_recording_free(&rec);
}

/* The events of one kind (cat) and name in a trace; the first one into *first. */
static int count_named(json_t *trace, const char *cat, const char *name, json_t **first) {
    json_t *ev = events_of(trace);
    int n = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        if (!str(e, "cat") || strcmp(str(e, "cat"), cat) || strcmp(str(e, "name"), name)) continue;
        if (n++ == 0 && first) *first = e;
    }
    return n;
}

/* A run whose profiled window (10..20 us) sits after start-up work (cuInit at 0.1 us) and inside
 * a range that spans the whole program ("main"). */
static void make_startup(wb_recording *rec) {
    wb_capture *c = build_recording(rec);
    add_range(c, "main", 50, 40000, 11);
    add_api(c, "cuInit", 100, 900, 1, 11);
    add_api(c, "cudaLaunchKernel", 12000, 12500, 2, 11);
    add_kernel(c, "k_gelu", 13000, 14000, 2, 7);
    add_api(c, "cudaDeviceSynchronize", 30000, 31000, 3, 11);
    add_window(c, 10000, 20000);
    build_finish(c);
}

Test(trace, opens_on_the_profiled_window) {
    wb_recording rec;
    make_startup(&rec);
    json_t *t = wb_chrome_trace(&rec), *e = NULL;
    cr_assert_eq(count_named(t, "driver API", "cuInit", NULL), 0, "start-up before the window is left out");
    cr_assert_eq(count_named(t, "runtime API", "cudaDeviceSynchronize", NULL), 0, "after the window: left out");
    cr_assert_eq(count_named(t, "kernel", "k_gelu", &e), 1);
    /* shown from 10000 - 5% of 10000 = 9500 ns */
    cr_assert_float_eq(json_number_value(json_object_get(e, "ts")), 3.5, 1e-9);
    cr_assert_eq(count_named(t, "nvtx", "main", &e), 1, "the enclosing range stays, clipped");
    cr_assert_float_eq(json_number_value(json_object_get(e, "ts")), 0.0, 1e-9);
    cr_assert_float_eq(json_number_value(json_object_get(e, "dur")), 11.0, 1e-9, "9500..20500 ns");
    cr_assert(json_is_true(json_object_get(json_object_get(e, "args"), "clipped_to_the_shown_span")));
    cr_assert_eq(count_named(t, "launch", "launch", NULL), 2, "the arrow of the launch in the window");
    json_decref(t);

    t = wb_chrome_trace_of(&rec, 1);
    cr_assert_eq(count_named(t, "driver API", "cuInit", &e), 1, "the whole run keeps start-up");
    cr_assert_float_eq(json_number_value(json_object_get(e, "ts")), 0.05, 1e-9, "from the first record, 50 ns");
    cr_assert_eq(count_named(t, "runtime API", "cudaDeviceSynchronize", NULL), 1);
    json_decref(t);
    wb_recording_free(&rec);
}

Test(trace, thread_ids_above_2_to_the_31_keep_their_names) {
    wb_recording rec;
    make_startup(&rec);
    wb_capture *c = &rec.runs[0].capture;
    const uint32_t big = 3559854080u; /* a real pthread-derived id from lesson 03's recording */
    for (size_t i = 0; i < c->n_api; i++) c->api[i].thread = big;
    for (size_t i = 0; i < c->n_ranges; i++) c->ranges[i].thread = big;
    json_t *t = wb_chrome_trace(&rec), *ev = events_of(t);
    int named_host = 0, named_nvtx = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        if (strcmp(str(e, "ph"), "M") || strcmp(str(e, "name"), "thread_name")) continue;
        json_int_t tid = json_integer_value(json_object_get(e, "tid"));
        cr_assert_geq(tid, 0, "no lane id turns negative");
        if (tid == (json_int_t)big && !strcmp(str(json_object_get(e, "args"), "name"), "thread 3559854080")) {
            json_int_t pid = json_integer_value(json_object_get(e, "pid"));
            if (pid == 1) named_host++;
            if (pid == 3) named_nvtx++;
        }
    }
    cr_assert_eq(named_host, 1, "the host API lane of thread 3559854080 is named");
    cr_assert_eq(named_nvtx, 1, "the NVTX lane of thread 3559854080 is named");
    json_decref(t);
    wb_recording_free(&rec);
}

/* Names come back from the trace exactly as the capture holds them, whatever bytes they have
 * (the writer escapes by hand: quotes, backslashes, control bytes; UTF-8 as it is), and a name
 * longer than the writer's buffer is written whole. Times keep their nanoseconds. */
Test(trace, names_with_escapes_and_long_names_come_back_whole) {
    wb_recording rec;
    wb_capture *c = build_recording(&rec);
    static char long_name[200001];
    for (size_t i = 0; i < sizeof long_name - 1; i++) long_name[i] = (char)('a' + i % 26);
    const char *names[] = {"say \"hi\"", "back\\slash", "tab\there\nnew line\x01\x1f", "caf\xc3\xa9 \xe2\x9c\x93", long_name};
    size_t n = sizeof names / sizeof names[0];
    for (size_t i = 0; i < n; i++) {
        add_api(c, "cudaLaunchKernel", 2000 + i * 1000, 2100 + i * 1000, (uint32_t)(i + 1), 11);
        add_kernel(c, names[i], 2200 + i * 1000, 2301 + i * 1000, (uint32_t)(i + 1), 7);
        add_range(c, names[i], 1999 + i * 1000, 2999 + i * 1000, 11);
    }
    build_finish(c);
    json_t *t = wb_chrome_trace(&rec), *ev = events_of(t);
    cr_assert_not_null(t, "the trace is valid JSON");
    size_t kernels = 0, ranges = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *cat = str(e, "cat");
        if (!cat || (strcmp(cat, "kernel") && strcmp(cat, "nvtx"))) continue;
        size_t k = strcmp(cat, "kernel") ? ranges++ : kernels++;
        cr_assert_lt(k, n);
        cr_assert_str_eq(str(e, "name"), names[k]);
        /* the capture starts at 1999 ns (the first range), so times count from there */
        uint64_t start = strcmp(cat, "kernel") ? 1999 + k * 1000 : 2200 + k * 1000, dur = strcmp(cat, "kernel") ? 1000 : 101;
        cr_assert_float_eq(json_number_value(json_object_get(e, "ts")), (double)(start - 1999) / 1000, 1e-9);
        cr_assert_float_eq(json_number_value(json_object_get(e, "dur")), (double)dur / 1000, 1e-9);
    }
    cr_assert_eq(kernels, n);
    cr_assert_eq(ranges, n);
    json_decref(t);
    wb_recording_free(&rec);
}
