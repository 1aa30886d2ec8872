/*
 * trace_diff.c: see trace_diff.h. Kernel sequences are aligned with a longest common subsequence
 * (sequences are a few hundred kernels at most under the grader; longer ones are compared by
 * counts only, which the range rows show anyway).
 */
#define _GNU_SOURCE
#include "trace_diff.h"
#include "wb_base.h"
#include "wb_course.h"
#include "wb_capture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ALIGN 2000 /* longest sequence aligned kernel by kernel */

/* ---- growing arrays of count pairs -------------------------------------------------------- */

typedef struct {
    wb_count_pair *items;
    size_t n;
    int oom;
} pairs;

static wb_count_pair *pair_for(pairs *p, const char *name) {
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->items[i].name, name)) return &p->items[i];
    wb_count_pair *q = realloc(p->items, (p->n + 1) * sizeof *q);
    if (!q) {
        p->oom = 1;
        return NULL;
    }
    p->items = q;
    q[p->n] = (wb_count_pair){name, 0, 0};
    return &q[p->n++];
}

/* ---- what lies in the profiled window ----------------------------------------------------- */

static uint64_t launched_at(const wb_capture *c, long api, uint64_t start) { return api >= 0 ? c->api[api].start : start; }

static int kernel_in_window(const wb_capture *c, const wb_kernel *k) {
    uint64_t t = launched_at(c, k->api, k->start);
    return wb_in_profiled_window(c, k->rank, t, t);
}

static int op_in_window(const wb_capture *c, const wb_gpu_op *o) {
    uint64_t t = launched_at(c, o->api, o->start);
    return wb_in_profiled_window(c, o->rank, t, t);
}

static int api_in_window(const wb_capture *c, const wb_api_call *a) {
    return !a->nested && wb_in_profiled_window(c, a->rank, a->start, a->start);
}

static void window_totals(const wb_capture *c, int side, wb_capture_diff *d, pairs *kernels, pairs *api) {
    size_t nk = 0, ncpy = 0, nset = 0, napi = 0;
    uint64_t ns = 0;
    for (size_t i = 0; i < c->n_kernels; i++) {
        const wb_kernel *k = &c->kernels[i];
        if (!kernel_in_window(c, k)) continue;
        nk++;
        ns += k->end - k->start;
        wb_count_pair *p = pair_for(kernels, k->name);
        if (p) *(side ? &p->b : &p->a) += 1;
    }
    for (size_t i = 0; i < c->n_ops; i++) {
        if (!op_in_window(c, &c->ops[i])) continue;
        if (c->ops[i].kind == WB_GPU_MEMCPY) ncpy++;
        else nset++;
    }
    for (size_t i = 0; i < c->n_api; i++) {
        if (!api_in_window(c, &c->api[i])) continue;
        napi++;
        wb_count_pair *p = pair_for(api, c->api[i].name);
        if (p) *(side ? &p->b : &p->a) += 1;
    }
    uint64_t wall = 0; /* the profiled windows' durations (a capture without windows: none) */
    for (size_t i = 0; i < c->n_windows; i++)
        if (c->windows[i].end != WB_OPEN_END && c->windows[i].end > c->windows[i].start) wall += c->windows[i].end - c->windows[i].start;
    if (side) {
        d->kernels_b = nk, d->memcpys_b = ncpy, d->memsets_b = nset, d->api_b = napi, d->gpu_ns_b = ns, d->wall_ns_b = wall;
    } else {
        d->kernels_a = nk, d->memcpys_a = ncpy, d->memsets_a = nset, d->api_a = napi, d->gpu_ns_a = ns, d->wall_ns_a = wall;
    }
}

/* ---- ranges ------------------------------------------------------------------------------- */

/* Range names with an occurrence in the window, by the start of their first one. */
static size_t range_names(const wb_capture *c, const char **out, size_t cap) {
    size_t n = 0;
    /* ranges are not sorted by time in the capture: pick the earliest unseen name each round */
    for (;;) {
        long best = -1;
        for (size_t i = 0; i < c->n_ranges; i++) {
            const wb_range *r = &c->ranges[i];
            if (r->is_mark || r->end == WB_OPEN_END || !wb_in_profiled_window(c, r->rank, r->start, r->end)) continue;
            int seen = 0;
            for (size_t j = 0; j < n && !seen; j++) seen = !wb_range_name_cmp(out[j], r->name);
            if (!seen && (best < 0 || r->start < c->ranges[best].start)) best = (long)i;
        }
        if (best < 0 || n >= cap) return n;
        out[n++] = c->ranges[best].name;
    }
}

static int by_start(const void *x, const void *y, void *ctx) {
    const wb_capture *c = ctx;
    uint64_t a = c->kernels[*(const long *)x].start, b = c->kernels[*(const long *)y].start;
    return (a > b) - (a < b);
}

/* The kernel names of one occurrence in GPU order (malloc'd array of borrowed names). */
static const char **occurrence_sequence(const wb_capture *c, const wb_occurrence *o) {
    long *idx = malloc((o->n_kernels + 1) * sizeof *idx);
    const char **names = malloc((o->n_kernels + 1) * sizeof *names);
    if (!idx || !names) {
        free(idx);
        free(names);
        return NULL;
    }
    if (o->n_kernels) memcpy(idx, o->kernels, o->n_kernels * sizeof *idx); /* an empty range has no array */
    qsort_r(idx, o->n_kernels, sizeof *idx, by_start, (void *)c);
    for (size_t i = 0; i < o->n_kernels; i++) names[i] = c->kernels[idx[i]].name;
    free(idx);
    return names;
}

typedef struct {
    size_t occurrences;
    double kernels, api, memcpys, memsets, gpu_ns, wall_ns;
    const char **sequence; size_t n_sequence;   /* of the first occurrence */
    int varies;
    pairs api_names;                            /* totals over occurrences; divided later */
} range_side;

static int measure_range(const wb_capture *c, const char *name, range_side *s) {
    memset(s, 0, sizeof *s);
    wb_occurrences occ;
    if (wb_find_occurrences(c, name, &occ)) return -1;
    s->occurrences = occ.n;
    for (size_t i = 0; i < occ.n; i++) {
        const wb_occurrence *o = &occ.items[i];
        s->kernels += (double)o->n_kernels;
        s->api += (double)o->n_api;
        if (o->end > o->start) s->wall_ns += (double)(o->end - o->start);
        for (size_t j = 0; j < o->n_ops; j++) {
            if (c->ops[o->ops[j]].kind == WB_GPU_MEMCPY) s->memcpys += 1;
            else s->memsets += 1;
        }
        for (size_t j = 0; j < o->n_kernels; j++) s->gpu_ns += (double)(c->kernels[o->kernels[j]].end - c->kernels[o->kernels[j]].start);
        for (size_t j = 0; j < o->n_api; j++) {
            wb_count_pair *p = pair_for(&s->api_names, c->api[o->api[j]].name);
            if (p) p->a += 1;
        }
        const char **seq = occurrence_sequence(c, o);
        if (!seq) {
            wb_occurrences_free(&occ);
            return -1;
        }
        if (i == 0) {
            s->sequence = seq;
            s->n_sequence = o->n_kernels;
            continue;
        }
        if (o->n_kernels != s->n_sequence) s->varies = 1;
        for (size_t j = 0; j < o->n_kernels && !s->varies; j++)
            if (strcmp(seq[j], s->sequence[j])) s->varies = 1;
        free(seq);
    }
    if (occ.n) {
        double n = (double)occ.n;
        s->kernels /= n, s->api /= n, s->memcpys /= n, s->memsets /= n, s->gpu_ns /= n, s->wall_ns /= n;
        for (size_t i = 0; i < s->api_names.n; i++) s->api_names.items[i].a /= n;
    }
    wb_occurrences_free(&occ);
    return s->api_names.oom ? -1 : 0;
}

/* Aligns two sequences; appends added/removed/renamed changes. */
static int align(const char **a, size_t n, const char **b, size_t m, wb_seq_change **out, size_t *n_out) {
    *out = NULL;
    *n_out = 0;
    if (n > MAX_ALIGN || m > MAX_ALIGN) return 0;
    /* lcs[i][j]: longest common subsequence of a[i..] and b[j..] */
    unsigned short *lcs = calloc((n + 1) * (m + 1), sizeof *lcs);
    wb_seq_change *ch = calloc(n + m + 1, sizeof *ch);
    if (!lcs || !ch) {
        free(lcs);
        free(ch);
        return -1;
    }
#define L(i, j) lcs[(i) * (m + 1) + (j)]
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            L(i, j) = !strcmp(a[i], b[j]) ? (unsigned short)(L(i + 1, j + 1) + 1) : L(i + 1, j) > L(i, j + 1) ? L(i + 1, j) : L(i, j + 1);
    size_t i = 0, j = 0, k = 0;
    while (i < n || j < m) {
        if (i < n && j < m && !strcmp(a[i], b[j])) {
            i++, j++;
            continue;
        }
        /* a gap: the removals and additions up to the next match, paired position by position */
        size_t i0 = i, j0 = j;
        while (i < n || j < m) {
            if (i < n && j < m && !strcmp(a[i], b[j])) break;
            if (j >= m || (i < n && L(i + 1, j) >= L(i, j + 1))) i++;
            else j++;
        }
        size_t r = i - i0, s = j - j0, p = r < s ? r : s;
        for (size_t q = 0; q < p; q++)
            ch[k++] = (wb_seq_change){WB_SEQ_RENAMED, (long)(i0 + q), (long)(j0 + q), a[i0 + q], b[j0 + q]};
        for (size_t q = p; q < r; q++) ch[k++] = (wb_seq_change){WB_SEQ_REMOVED, (long)(i0 + q), -1, a[i0 + q], NULL};
        for (size_t q = p; q < s; q++) ch[k++] = (wb_seq_change){WB_SEQ_ADDED, -1, (long)(j0 + q), NULL, b[j0 + q]};
    }
#undef L
    free(lcs);
    *out = ch;
    *n_out = k;
    return 0;
}

static int differ(double x, double y) { return fabs(x - y) > 1e-9; }

static int diff_range(const wb_capture *a, const wb_capture *b, const char *name, wb_range_diff *r) {
    range_side x, y;
    memset(r, 0, sizeof *r);
    r->name = name;
    int rc = measure_range(a, name, &x);
    if (!rc) rc = measure_range(b, name, &y);
    else memset(&y, 0, sizeof y);
    if (!rc) {
        r->occ_a = x.occurrences, r->occ_b = y.occurrences;
        r->kernels_a = x.kernels, r->kernels_b = y.kernels, r->api_a = x.api, r->api_b = y.api;
        r->memcpys_a = x.memcpys, r->memcpys_b = y.memcpys, r->memsets_a = x.memsets, r->memsets_b = y.memsets;
        r->gpu_ns_a = x.gpu_ns, r->gpu_ns_b = y.gpu_ns;
        r->wall_ns_a = x.wall_ns, r->wall_ns_b = y.wall_ns;
        r->varies_a = x.varies, r->varies_b = y.varies;
        if (x.occurrences && y.occurrences)
            rc = align(x.sequence, x.n_sequence, y.sequence, y.n_sequence, &r->changes, &r->n_changes);
        /* API names whose means differ */
        pairs api = {0};
        for (size_t i = 0; i < x.api_names.n; i++) {
            wb_count_pair *p = pair_for(&api, x.api_names.items[i].name);
            if (p) p->a = x.api_names.items[i].a;
        }
        for (size_t i = 0; i < y.api_names.n; i++) {
            wb_count_pair *p = pair_for(&api, y.api_names.items[i].name);
            if (p) p->b = y.api_names.items[i].a;
        }
        size_t k = 0;
        for (size_t i = 0; i < api.n; i++)
            if (differ(api.items[i].a, api.items[i].b)) api.items[k++] = api.items[i];
        r->api = api.items;
        r->n_api = k;
        if (api.oom) rc = -1;
    }
    free(x.sequence);
    free(y.sequence);
    free(x.api_names.items);
    free(y.api_names.items);
    return rc;
}

static int range_differs(const wb_range_diff *r) {
    return r->occ_a != r->occ_b || differ(r->kernels_a, r->kernels_b) || differ(r->api_a, r->api_b) ||
           differ(r->memcpys_a, r->memcpys_b) || differ(r->memsets_a, r->memsets_b) || r->n_changes || r->n_api;
}

int wb_diff_captures(const wb_capture *a, const wb_capture *b, wb_capture_diff *d) {
    memset(d, 0, sizeof *d);
    pairs kernels = {0}, api = {0};
    window_totals(a, 0, d, &kernels, &api);
    window_totals(b, 1, d, &kernels, &api);
    d->kernel_names = kernels.items, d->n_kernel_names = kernels.n;
    d->api_names = api.items, d->n_api_names = api.n;
    if (kernels.oom || api.oom) goto oom;

    const char **names = calloc(a->n_ranges + b->n_ranges + 1, sizeof *names);
    if (!names) goto oom;
    size_t n = range_names(a, names, a->n_ranges + b->n_ranges);
    const char **more = calloc(b->n_ranges + 1, sizeof *more);
    size_t m = more ? range_names(b, more, b->n_ranges) : 0;
    for (size_t i = 0; i < m; i++) {
        int seen = 0;
        for (size_t j = 0; j < n && !seen; j++) seen = !wb_range_name_cmp(names[j], more[i]);
        if (!seen) names[n++] = more[i];
    }
    free(more);
    d->ranges = calloc(n + 1, sizeof *d->ranges);
    if (!d->ranges) {
        free(names);
        goto oom;
    }
    for (size_t i = 0; i < n; i++) {
        d->n_ranges = i + 1;
        if (diff_range(a, b, names[i], &d->ranges[i])) {
            free(names);
            goto oom;
        }
    }
    free(names);

    d->differs = d->kernels_a != d->kernels_b || d->memcpys_a != d->memcpys_b || d->memsets_a != d->memsets_b ||
                 d->api_a != d->api_b;
    for (size_t i = 0; i < d->n_kernel_names; i++) d->differs |= differ(d->kernel_names[i].a, d->kernel_names[i].b);
    for (size_t i = 0; i < d->n_api_names; i++) d->differs |= differ(d->api_names[i].a, d->api_names[i].b);
    for (size_t i = 0; i < d->n_ranges; i++) d->differs |= range_differs(&d->ranges[i]);
    return 0;
oom:
    wb_capture_diff_free(d);
    return -1;
}

void wb_capture_diff_free(wb_capture_diff *d) {
    for (size_t i = 0; i < d->n_ranges; i++) {
        free(d->ranges[i].changes);
        free(d->ranges[i].api);
    }
    free(d->ranges);
    free(d->kernel_names);
    free(d->api_names);
    memset(d, 0, sizeof *d);
}

/* ---- output ------------------------------------------------------------------------------- */

/* A kernel name shortened to what the terminal leaves after a 24-column prefix (text_fit.h). */
static const char *short_name(const char *name, char *buf, size_t cap) {
    return wb_fit_name(name, (size_t)(wb_term_width(stdout) - 24), buf, cap);
}

static void change_text(char *buf, size_t cap, double a, double b, int percent) {
    if (!differ(a, b)) snprintf(buf, cap, "%s", _("same"));
    else if (percent && a > 0) snprintf(buf, cap, "%+.1f%%", 100.0 * (b - a) / a);
    else snprintf(buf, cap, "%+g", b - a);
}

/* One row of the tables: indent, then the label padded to 34 display columns (a Japanese label's
 * characters take two each), A, B and the change. */
static void row_at(FILE *f, const char *indent, const char *label, double a, double b, int percent, const char *fmt) {
    char ca[32], cb[32], ch[32], text[160];
    snprintf(ca, sizeof ca, fmt, a);
    snprintf(cb, sizeof cb, fmt, b);
    change_text(ch, sizeof ch, a, b, percent);
    snprintf(text, sizeof text, "%s%s", indent, label);
    fputs("  ", f);
    wb_pad(f, text, 34);
    fprintf(f, " %12s %12s  %s\n", ca, cb, ch);
}

static void row(FILE *f, const char *label, double a, double b, int percent, const char *fmt) {
    row_at(f, "", label, a, b, percent, fmt);
}

/* "2 occurrences", "1 kernel": a count and its noun; format is the catalog's plural form for n. */
static const char *counted(char *buf, size_t cap, const char *format, double n) {
    snprintf(buf, cap, format, n);
    return buf;
}
#define PLURAL(n) ((n) == 1 ? 1UL : 2UL)

void wb_capture_diff_print(FILE *f, const wb_capture_diff *d, const char *label_a, const char *label_b) {
    char buf[80];
    wb_pad(f, _("Whole profiled window"), 35);
    fprintf(f, " %12s %12s  %s\n", "A", "B", _("change"));
    row(f, _("kernels"), (double)d->kernels_a, (double)d->kernels_b, 0, "%.0f");
    row(f, _("GPU time of kernels (us)"), (double)d->gpu_ns_a / 1e3, (double)d->gpu_ns_b / 1e3, 1, "%.2f");
    if (d->wall_ns_a || d->wall_ns_b) row(f, _("wall time of the window (us)"), (double)d->wall_ns_a / 1e3, (double)d->wall_ns_b / 1e3, 1, "%.2f");
    row(f, "memcpys", (double)d->memcpys_a, (double)d->memcpys_b, 0, "%.0f");
    row(f, "memsets", (double)d->memsets_a, (double)d->memsets_b, 0, "%.0f");
    row(f, _("API calls"), (double)d->api_a, (double)d->api_b, 0, "%.0f");
    fprintf(f, "  %s\n", _("kernel launches by name:"));
    for (size_t i = 0; i < d->n_kernel_names; i++) {
        const wb_count_pair *p = &d->kernel_names[i];
        char label[96];
        snprintf(label, sizeof label, "  %s", short_name(p->name, buf, sizeof buf));
        if (strlen(label) > 34) {
            fprintf(f, "  %s\n", label);
            row(f, "", p->a, p->b, 0, "%.0f");
        } else {
            row(f, label, p->a, p->b, 0, "%.0f");
        }
    }
    int any = 0;
    for (size_t i = 0; i < d->n_api_names; i++)
        if (differ(d->api_names[i].a, d->api_names[i].b)) {
            if (!any++) fprintf(f, "  %s\n", _("API calls that differ:"));
            row_at(f, "  ", d->api_names[i].name, d->api_names[i].a, d->api_names[i].b, 0, "%.0f");
        }

    fprintf(f, "\n%s\n", _("NVTX ranges (per occurrence: the mean over occurrences)"));
    if (d->n_ranges == 0) fprintf(f, "  %s\n", _("(no NVTX ranges in either profiled window)"));
    for (size_t i = 0; i < d->n_ranges; i++) {
        const wb_range_diff *r = &d->ranges[i];
        char occ[64], kern[64], api[64];
        if (!r->occ_b || !r->occ_a) {
            double k = r->occ_a ? r->kernels_a : r->kernels_b;
            fputs("\n  ", f);
            fprintf(f, r->occ_a ? _("%s: only in A (%s, %s each)") : _("%s: only in B (%s, %s each)"), r->name,
                    counted(occ, sizeof occ, wb_ngettext("%.0f occurrence", "%.0f occurrences", PLURAL(r->occ_a + r->occ_b)),
                            (double)(r->occ_a + r->occ_b)),
                    counted(kern, sizeof kern, wb_ngettext("%g kernel", "%g kernels", PLURAL(k)), k));
            fputc('\n', f);
            continue;
        }
        if (!range_differs(r)) {
            char line[600];
            snprintf(line, sizeof line, _("%s: %s in each, the same launches (%s, %s each)"), r->name,
                     counted(occ, sizeof occ, wb_ngettext("%.0f occurrence", "%.0f occurrences", PLURAL(r->occ_a)), (double)r->occ_a),
                     counted(kern, sizeof kern, wb_ngettext("%g kernel", "%g kernels", PLURAL(r->kernels_a)), r->kernels_a),
                     counted(api, sizeof api, wb_ngettext("%g API call", "%g API calls", PLURAL(r->api_a)), r->api_a));
            fputs("\n  ", f);
            wb_wrap(f, line, 2, 4, wb_term_width(f));
            row_at(f, "  ", _("GPU time (us)"), r->gpu_ns_a / 1e3, r->gpu_ns_b / 1e3, 1, "%.2f");
            row_at(f, "  ", _("wall time (us)"), r->wall_ns_a / 1e3, r->wall_ns_b / 1e3, 1, "%.2f");
            continue;
        }
        fputs("\n  ", f);
        fprintf(f, _("%s: %s in A, %zu in B"), r->name,
                counted(occ, sizeof occ, wb_ngettext("%.0f occurrence", "%.0f occurrences", PLURAL(r->occ_a)), (double)r->occ_a),
                r->occ_b);
        fputc('\n', f);
        row_at(f, "  ", _("kernels"), r->kernels_a, r->kernels_b, 0, "%g");
        row_at(f, "  ", _("API calls"), r->api_a, r->api_b, 0, "%g");
        for (size_t k = 0; k < r->n_api; k++) row_at(f, "    ", r->api[k].name, r->api[k].a, r->api[k].b, 0, "%g");
        if (differ(r->memcpys_a, r->memcpys_b)) row(f, "  memcpys", r->memcpys_a, r->memcpys_b, 0, "%g");
        if (differ(r->memsets_a, r->memsets_b)) row(f, "  memsets", r->memsets_a, r->memsets_b, 0, "%g");
        row_at(f, "  ", _("GPU time (us)"), r->gpu_ns_a / 1e3, r->gpu_ns_b / 1e3, 1, "%.2f");
        row_at(f, "  ", _("wall time (us)"), r->wall_ns_a / 1e3, r->wall_ns_b / 1e3, 1, "%.2f");
        for (size_t k = 0; k < r->n_changes; k++) {
            const wb_seq_change *c = &r->changes[k];
            char b2[80];
            /* the action word padded to 10 columns, so that the kernel numbers line up */
            fputs("    ", f);
            if (c->kind == WB_SEQ_RENAMED) {
                wb_pad(f, _("renamed"), 10);
                fprintf(f, _("kernel %ld: %s"), c->pos_a + 1, short_name(c->a, buf, sizeof buf));
                fprintf(f, "\n              -> %s\n", short_name(c->b, b2, sizeof b2));
            } else if (c->kind == WB_SEQ_REMOVED) {
                wb_pad(f, _("removed"), 10);
                fprintf(f, _("kernel %ld: %s"), c->pos_a + 1, short_name(c->a, buf, sizeof buf));
                fputc('\n', f);
            } else {
                wb_pad(f, _("added"), 10);
                fprintf(f, _("kernel %ld: %s"), c->pos_b + 1, short_name(c->b, buf, sizeof buf));
                fputc('\n', f);
            }
        }
        if (r->varies_a || r->varies_b) {
            char line[600];
            snprintf(line, sizeof line, _("note: the occurrences of %s in %s launch different kernels; the sequence compared is the "
                                          "first occurrence's"),
                     r->name, r->varies_a && r->varies_b ? _("A and B") : r->varies_a ? "A" : "B");
            fputs("    ", f);
            fputs(line, f);
            fputc('\n', f);
        }
    }
    fprintf(f, "\n%s\n", d->differs ? _("The captures launch different work.") : _("Same launches in both."));
    wb_wrap(f, _("The verdict (and exit code) counts launches, calls, copies and names; the times above are one run each, "
                 "shown as measured: they vary between runs, so they never decide it."), 0, 0, wb_term_width(f));
    (void)label_a;
    (void)label_b;
}

static json_t *ab(double a, double b) { return json_pack("{s:f, s:f}", "a", a, "b", b); }
static json_t *abi(size_t a, size_t b) { return json_pack("{s:I, s:I}", "a", (json_int_t)a, "b", (json_int_t)b); }

json_t *wb_capture_diff_json(const wb_capture_diff *d) {
    json_t *kn = json_array(), *an = json_array(), *ranges = json_array();
    for (size_t i = 0; i < d->n_kernel_names; i++)
        json_array_append_new(kn, json_pack("{s:s, s:I, s:I}", "name", d->kernel_names[i].name, "a",
                                            (json_int_t)d->kernel_names[i].a, "b", (json_int_t)d->kernel_names[i].b));
    for (size_t i = 0; i < d->n_api_names; i++)
        json_array_append_new(an, json_pack("{s:s, s:I, s:I}", "name", d->api_names[i].name, "a", (json_int_t)d->api_names[i].a,
                                            "b", (json_int_t)d->api_names[i].b));
    for (size_t i = 0; i < d->n_ranges; i++) {
        const wb_range_diff *r = &d->ranges[i];
        json_t *changes = json_array(), *api = json_array();
        static const char *const kinds[] = {"added", "removed", "renamed"};
        for (size_t k = 0; k < r->n_changes; k++) {
            const wb_seq_change *c = &r->changes[k];
            json_array_append_new(changes, json_pack("{s:s, s:o, s:o, s:s?, s:s?}", "kind", kinds[c->kind], "position_a",
                                                     c->pos_a >= 0 ? json_integer(c->pos_a) : json_null(), "position_b",
                                                     c->pos_b >= 0 ? json_integer(c->pos_b) : json_null(), "a", c->a, "b", c->b));
        }
        for (size_t k = 0; k < r->n_api; k++)
            json_array_append_new(api, json_pack("{s:s, s:f, s:f}", "name", r->api[k].name, "a", r->api[k].a, "b", r->api[k].b));
        json_array_append_new(ranges, json_pack("{s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:b, s:b}}", "name",
                                                r->name, "differs", range_differs(r), "occurrences", abi(r->occ_a, r->occ_b),
                                                "kernels", ab(r->kernels_a, r->kernels_b), "api_calls", ab(r->api_a, r->api_b),
                                                "memcpys", ab(r->memcpys_a, r->memcpys_b), "memsets",
                                                ab(r->memsets_a, r->memsets_b), "gpu_ns", ab(r->gpu_ns_a, r->gpu_ns_b),
                                                "wall_ns", ab(r->wall_ns_a, r->wall_ns_b), "api_calls_by_name", api, "kernel_changes", changes, "occurrences_vary", "a",
                                                r->varies_a, "b", r->varies_b));
    }
    json_t *window = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "kernels", abi(d->kernels_a, d->kernels_b), "gpu_ns",
                               abi(d->gpu_ns_a, d->gpu_ns_b), "wall_ns", abi(d->wall_ns_a, d->wall_ns_b), "memcpys", abi(d->memcpys_a, d->memcpys_b), "memsets",
                               abi(d->memsets_a, d->memsets_b), "api_calls", abi(d->api_a, d->api_b));
    return json_pack("{s:b, s:o, s:o, s:o, s:o}", "differs", d->differs, "window", window, "kernel_names", kn,
                     "api_calls_by_name", an, "ranges", ranges);
}

/* ---- sides ------------------------------------------------------------------------------------ */

void wb_diff_side_free(wb_diff_side *s) {
    wb_recording_free(&s->rec);
    memset(s, 0, sizeof *s);
}

/* A capture or a recording, told apart by its "format"; the file is read once (read_file.c). */
static int load_file(const char *path, wb_diff_side *s, wb_error *err) {
    char *text = NULL;
    size_t length = 0;
    if (wb_read_file(path, N_("capture or recording"), WB_CAPTURE_MAX_BYTES, &text, &length, err)) return err->code;
    json_error_t jerr;
    json_t *root = json_loadb(text, length, 0, &jerr);
    if (!root) {
        free(text);
        return wb_fail_at(err, WB_EXIT_INPUT, path, jerr.line, jerr.column, _("not a capture or recording: %s"), jerr.text);
    }
    /* the format is copied: it lives in root, freed before the message that quotes it */
    const char *format_value = json_string_value(json_object_get(root, "format"));
    char format[128];
    snprintf(format, sizeof format, "%s", format_value ? format_value : "missing");
    int recording = format_value && !strcmp(format_value, "gpu-workbench-recording");
    int capture = format_value && !strcmp(format_value, "gpu-workbench-capture");
    json_decref(root);
    snprintf(s->path, sizeof s->path, "%s", path);
    int rc = 0;
    if (recording) {
        if (!(rc = wb_recording_load_buffer(path, text, length, &s->rec, err))) s->rec.path = strdup(path);
    } else if (!capture) {
        rc = wb_fail(err, WB_EXIT_INPUT, _("%s: neither a recording (traces/sm_NN.json) nor a capture file (format is %s)"), path,
                     format);
    } else {
        s->is_capture = 1;
        s->rec.runs = calloc(1, sizeof *s->rec.runs);
        if (!s->rec.runs) {
            free(text);
            return wb_fail(err, WB_EXIT_INPUT, _("%s: out of memory"), path);
        }
        s->rec.n_runs = 1;
        s->rec.runs[0].variant = strdup("capture");
        s->rec.lesson = strdup("");
        s->rec.path = strdup(path);
        if (!(rc = wb_capture_load_buffer(path, text, length, &s->rec.runs[0].capture, err)))
            s->rec.recorded_at = strdup(s->rec.runs[0].capture.written_at);
    }
    free(text);
    return rc;
}

static int load_lesson(const char *dir, wb_diff_side *s, wb_error *err) {
    wb_lesson lesson;
    if (wb_lesson_load(dir, &lesson, err)) return err->code;
    char path[4096];
    int rc = wb_find_recording(&lesson, NULL, path, sizeof path, err);
    wb_lesson_free(&lesson);
    return rc ? rc : load_file(path, s, err);
}

int wb_diff_side_load(const char *spec, wb_diff_side *s, wb_error *err) {
    memset(s, 0, sizeof *s);
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    char yaml[4300];
    snprintf(yaml, sizeof yaml, "%s/lesson.yaml", spec);
    int rc;
    if (wb_exists_not_dir(spec)) rc = load_file(spec, s, err); /* a FIFO or device: refused by name */
    else if (wb_file_exists(yaml)) rc = load_lesson(spec, s, err);
    else {
        char prefix[4200], dir[4096];
        const char *colon = strrchr(spec, ':');
        snprintf(prefix, sizeof prefix, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
        if (colon) snprintf(s->variant, sizeof s->variant, "%s", colon + 1);
        wb_error ref_err = {0};
        if (colon && !colon[1]) return wb_fail(err, WB_EXIT_INPUT, _("%s: no variant after ':'"), spec);
        if (wb_exists_not_dir(prefix)) rc = load_file(prefix, s, err);
        else if (wb_resolve_lesson(prefix, dir, sizeof dir, &ref_err) == 0) rc = load_lesson(dir, s, err);
        else
            return wb_fail(err, WB_EXIT_INPUT, _("%s: no such recording, capture file or lesson (%s)"), prefix, ref_err.message);
    }
    if (rc) return rc;
    if (s->variant[0] && s->is_capture)
        return wb_fail(err, WB_EXIT_INPUT, _("%s: a capture file holds one run; drop ':%s'"), s->path, s->variant);
    if (s->variant[0] && !wb_recording_run(&s->rec, s->variant)) {
        char list[1024] = "";
        for (size_t i = 0; i < s->rec.n_runs; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", s->rec.runs[i].variant);
        return wb_fail(err, WB_EXIT_INPUT, _("%s has no variant '%s' (it has: %s)"), s->path, s->variant, list);
    }
    return 0;
}

static void variant_list(const wb_diff_side *s, char *buf, size_t cap) {
    buf[0] = '\0';
    for (size_t i = 0; i < s->rec.n_runs; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? ", " : "", s->rec.runs[i].variant);
}

int wb_diff_pair_runs(const wb_diff_side *x, const wb_diff_side *y, const wb_run **a, const wb_run **b, size_t cap,
                      size_t *n, const char **only_a, const char **only_b, wb_error *err) {
    *n = 0;
    only_a[0] = only_b[0] = NULL;
    const wb_run *rx = x->variant[0] ? wb_recording_run(&x->rec, x->variant) : x->rec.n_runs == 1 ? &x->rec.runs[0] : NULL;
    const wb_run *ry = y->variant[0] ? wb_recording_run(&y->rec, y->variant) : y->rec.n_runs == 1 ? &y->rec.runs[0] : NULL;
    char list[1024];
    if (rx && !ry && !y->variant[0]) ry = x->variant[0] ? wb_recording_run(&y->rec, rx->variant) : NULL;
    if (ry && !rx && !x->variant[0]) rx = y->variant[0] ? wb_recording_run(&x->rec, ry->variant) : NULL;
    if (rx && ry) {
        a[0] = rx, b[0] = ry, *n = 1;
        return 0;
    }
    if (rx || ry) {
        const wb_diff_side *many = rx ? y : x;
        variant_list(many, list, sizeof list);
        return wb_fail(err, WB_EXIT_INPUT, _("%s holds several variants (%s): name one, e.g. %s:%s"), many->spec, list, many->spec,
                       many->rec.runs[0].variant);
    }
    /* both hold several and neither names one: pair every variant by name */
    size_t na = 0, nb = 0;
    for (size_t i = 0; i < x->rec.n_runs; i++) {
        const wb_run *other = wb_recording_run(&y->rec, x->rec.runs[i].variant);
        if (other && *n < cap) a[*n] = &x->rec.runs[i], b[(*n)++] = other;
        else if (!other && na + 1 < cap) only_a[na++] = x->rec.runs[i].variant;
    }
    for (size_t i = 0; i < y->rec.n_runs; i++)
        if (!wb_recording_run(&x->rec, y->rec.runs[i].variant) && nb + 1 < cap) only_b[nb++] = y->rec.runs[i].variant;
    only_a[na] = only_b[nb] = NULL;
    if (*n == 0) {
        char other[1024];
        variant_list(x, list, sizeof list);
        variant_list(y, other, sizeof other);
        return wb_fail(err, WB_EXIT_INPUT, _("%s (%s) and %s (%s) have no variant in common: name one on each side, e.g. %s:%s"),
                       x->spec, list, y->spec, other, x->spec, x->rec.runs[0].variant);
    }
    return 0;
}
