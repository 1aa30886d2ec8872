/*
 * timeline_html.c: see timeline_html.h. The page is written straight to a FILE as text; every
 * string from a capture (kernel names are C++ signatures full of < > &) goes through xml().
 *
 * Layout, in SVG user units (the SVG scales to the page width; 1200 units wide):
 *   a label column on the left, then per lane a grey band holding its boxes: NVTX rows, the host
 *   lane, a gap that the launch arrows cross, the GPU lanes (one per stream), the time axis.
 */
#define _GNU_SOURCE
#include "timeline_html.h"
#include "wb_grade.h"
#include "wb_capture.h"
#include "report.h"
#include "wb_base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WIDTH 1200.0
#define LABEL_X 10.0
#define PLOT_X0 190.0
#define PLOT_X1 1184.0

/* ---- text --------------------------------------------------------------------------------- */

/* s as XML character data or attribute text; control characters (invalid in XML) become '?'. */
static void xml(FILE *f, const char *s) {
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(ch < 0x20 && ch != '\n' && ch != '\t' ? '?' : ch, f);
        }
    }
}

/* s escaped for HTML into buf (a message's %s argument). */
static const char *escaped(const char *s, char *buf, size_t cap) {
    FILE *m = fmemopen(buf, cap, "w");
    if (!m) return "";
    xml(m, s);
    fclose(m);
    buf[cap - 1] = '\0';
    return buf;
}

/* The width of s in a px sans-serif font, from DejaVu Sans's advances (the font headless Chromium
 * and many Linux desktops fall back to, and wider than most): an estimate on the wide side, so
 * that a label measured to fit its room does fit it. */
static double text_width(const char *s, double px) {
    double em = 0;
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if ((ch & 0xC0) == 0x80) continue; /* a UTF-8 continuation byte: counted with its lead */
        if (strchr("il.,:;'|!j", ch)) em += 0.30;
        else if (strchr("ftr ()[]-", ch)) em += 0.42;
        else if (ch == 'm' || ch == 'w') em += 0.98;
        else if (ch == 'M' || ch == 'W') em += 1.0;
        else if (ch >= 'A' && ch <= 'Z') em += 0.78;
        else if (ch >= '0' && ch <= '9') em += 0.64;
        else if (strchr("<>=+~*", ch)) em += 0.84;
        else em += 0.64;
    }
    return em * px * 1.03;
}

/* name shortened (wb_fit_name_start) to what fits room units of 11px text, into buf; returns the
 * characters of the name it shows, 0 when none would be legible ("c..." says nothing: the hover
 * names it). */
static size_t fit_label(const char *name, double room, char *buf, size_t cap) {
    if (room < 20) return 0;
    size_t cols = (size_t)((room - 6) / 3.3) + 1, whole = wb_columns(name) + 1;
    if (cols > whole) cols = whole;
    do {
        wb_fit_name_start(name, --cols, buf, cap);
    } while (cols > 0 && text_width(buf, 11) > room - 6);
    size_t n = cols ? wb_columns(buf) : 0, cut = strstr(buf, "...") && !strstr(name, "...") ? 3 : 0;
    return n >= cut + (cut ? 4 : 2) ? n - cut : 0;
}

/* A box's name: inside the box (w units wide) when it fits whole or the box holds 12 characters
 * of it; else wherever more of it shows: inside, shortened with "...", or in dark text on the
 * lane beside the box, to its right (room units before the next box of its row) or to its left
 * (from *used, where the row's last box or label ends). Nothing when none would be legible; the
 * box's <title> holds the full name for the hover. *used moves past what was drawn. */
static void box_label(FILE *f, double x, double y, double w, double room, double *used, const char *name, const char *cls) {
    char inside[512], right[512], left[512];
    double room_left = x - *used - 2;
    size_t in = fit_label(name, w, inside, sizeof inside), out = fit_label(name, room, right, sizeof right);
    size_t lft = fit_label(name, room_left, left, sizeof left);
    int whole_inside = in > 0 && !strcmp(inside, name);
    if (x + w > *used) *used = x + w;
    if (whole_inside || in >= 12 || (in >= out && in >= lft)) {
        if (!in) return;
        fprintf(f, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\">", cls, x + 3, y);
        xml(f, inside);
    } else if (out >= lft) {
        fprintf(f, "<text class=\"box-label outside-label\" x=\"%.1f\" y=\"%.1f\">", x + w + 3, y);
        xml(f, right);
        *used = x + w + 3 + text_width(right, 11);
    } else {
        fprintf(f, "<text class=\"box-label outside-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x - 3, y);
        xml(f, left);
    }
    fputs("</text>", f);
}

/* A box of a row (an NVTX depth, the host lane, a GPU stream) and the free room to its right. */
typedef struct {
    size_t i;      /* the range, call or work it draws */
    long row;
    double x, w, room;
} placed_box;

static int placed_cmp(const void *a, const void *b) {
    const placed_box *p = a, *q = b;
    if (p->row != q->row) return (p->row > q->row) - (p->row < q->row);
    return (p->x > q->x) - (p->x < q->x);
}

/* Sorts the boxes by row and start; each one's room reaches the next box of its row, or the end
 * of the plot. */
static void place_boxes(placed_box *b, size_t n) {
    qsort(b, n, sizeof *b, placed_cmp);
    for (size_t k = 0; k < n; k++) {
        double next = k + 1 < n && b[k + 1].row == b[k].row ? b[k + 1].x : PLOT_X1 + 2;
        b[k].room = next - (b[k].x + b[k].w) - 2;
    }
}

static double us(uint64_t ns) { return (double)ns / 1000.0; }

/* ---- the step ------------------------------------------------------------------------------- */

typedef struct {
    const wb_capture *c;
    const char *variant;
    int rank;                /* the process drawn (0 for one process): one timeline per rank */
    long range;              /* the step's range, or -1: the whole profiled window */
    size_t which, of;        /* this is step `which` (1-based) of `of` in the window */
    int median;              /* chosen as the median of several */
    uint32_t thread;         /* the host thread shown */
    uint64_t start, end;     /* the step on the host */
    uint64_t lo, hi;         /* the span drawn: the step and the GPU work it launched, padded */
    char *launched_here;     /* per kernel, then per op: launched inside the step */
    size_t n_kernels, n_ops, n_api;
    uint64_t gpu_busy_ns;
    double x_scale;          /* units per ns */
    /* output bounded like input (docs/limits.md): past the cap, what starts after `cut` is not drawn */
    uint64_t cut;            /* the last instant drawn, or UINT64_MAX: all of the step */
    size_t cap;              /* at most this many items drawn (work, host calls, ranges) */
    size_t undrawn_kernels, undrawn_memsets, undrawn_memcpys, undrawn_api, undrawn_ranges;
    uint64_t undrawn_gpu_ns; /* the GPU time of the work not drawn */
} step_view;

static double xpos(const step_view *s, uint64_t t) {
    if (t < s->lo) t = s->lo;
    if (t > s->hi) t = s->hi;
    return PLOT_X0 + (double)(t - s->lo) * s->x_scale;
}

static const char *pick_range_name(const wb_capture *c) {
    const char *best = NULL;
    size_t best_n = 0;
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        if (!strcmp(r->name, "step") && !r->is_mark && r->end != WB_OPEN_END && wb_in_profiled_window(c, r->rank, r->start, r->end))
            return "step";
    }
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        if (r->depth != 0 || r->is_mark || r->end == WB_OPEN_END || !wb_in_profiled_window(c, r->rank, r->start, r->end)) continue;
        size_t n = 0;
        for (size_t j = 0; j < c->n_ranges; j++)
            n += !strcmp(c->ranges[j].name, r->name) && c->ranges[j].depth == 0 &&
                 wb_in_profiled_window(c, c->ranges[j].rank, c->ranges[j].start, c->ranges[j].end);
        if (n > best_n) best = r->name, best_n = n;
    }
    return best;
}

static int wall_cmp(const void *a, const void *b, void *ctx) {
    const wb_capture *c = ctx;
    const wb_range *x = &c->ranges[((const wb_occurrence *)a)->range], *y = &c->ranges[((const wb_occurrence *)b)->range];
    uint64_t dx = x->end - x->start, dy = y->end - y->start;
    return (dx > dy) - (dx < dy);
}

static int work_rank(const wb_capture *c, size_t i) { return i < c->n_kernels ? c->kernels[i].rank : c->ops[i - c->n_kernels].rank; }

static int u32_cmp(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int u64_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

size_t wb_timeline_max_items(void) {
    const char *v = getenv("WB_TIMELINE_MAX_ITEMS");
    char *end;
    unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
    return v && *v && !*end && n > 0 ? (size_t)n : WB_TIMELINE_MAX_ITEMS_DEFAULT;
}

static int in_step_ranges(const step_view *s, const wb_range *r);

static uint64_t work_start(const wb_capture *c, size_t i) { return i < c->n_kernels ? c->kernels[i].start : c->ops[i - c->n_kernels].start; }
static uint64_t work_end(const wb_capture *c, size_t i) { return i < c->n_kernels ? c->kernels[i].end : c->ops[i - c->n_kernels].end; }

/* 1 when API call i is one the host lane of s draws (before any cut). */
static int host_call(const step_view *s, size_t i, uint64_t hi) {
    const wb_api_call *a = &s->c->api[i];
    return a->rank == s->rank && a->thread == s->thread && a->end >= s->start && a->start <= hi;
}

/* The cap on what one step draws: the step's work, its thread's calls and its ranges, up to
 * (hi). When there are more than s->cap, the drawing stops before the first item past the cap
 * (s->cut) and what starts later is counted for the summary instead. 0, or -1 out of memory. */
static int step_cut(step_view *s, uint64_t hi) {
    const wb_capture *c = s->c;
    s->cut = UINT64_MAX;
    s->cap = wb_timeline_max_items();
    size_t n = 0, total = c->n_kernels + c->n_ops + c->n_api + c->n_ranges;
    uint64_t *starts = malloc((total + 1) * sizeof *starts);
    if (!starts) return -1;
    for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) /* its own work, and any other that runs while it is drawn */
        if (s->launched_here[i] || (work_rank(c, i) == s->rank && work_end(c, i) >= s->start && work_start(c, i) <= hi))
            starts[n++] = work_start(c, i) < s->start ? s->start : work_start(c, i);
    for (size_t i = 0; i < c->n_api; i++)
        if (host_call(s, i, hi)) starts[n++] = c->api[i].start;
    for (size_t i = 0; i < c->n_ranges; i++)
        if (in_step_ranges(s, &c->ranges[i])) starts[n++] = c->ranges[i].start;
    if (n > s->cap) {
        qsort(starts, n, sizeof *starts, u64_cmp);
        uint64_t first_out = starts[s->cap];
        s->cut = first_out > s->start ? first_out - 1 : s->start;
        for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) {
            if (!s->launched_here[i] || work_start(c, i) <= s->cut) continue;
            if (i < c->n_kernels) s->undrawn_kernels++;
            else if (c->ops[i - c->n_kernels].kind == WB_GPU_MEMSET) s->undrawn_memsets++;
            else s->undrawn_memcpys++;
            s->undrawn_gpu_ns += work_end(c, i) - work_start(c, i);
        }
        for (size_t i = 0; i < c->n_api; i++)
            s->undrawn_api += host_call(s, i, hi) && !c->api[i].nested && c->api[i].start > s->cut;
        for (size_t i = 0; i < c->n_ranges; i++) s->undrawn_ranges += in_step_ranges(s, &c->ranges[i]) && c->ranges[i].start > s->cut;
    }
    free(starts);
    return 0;
}

/* Chooses the step of rank and what belongs to it. Returns 0, or -1 when out of memory. */
static int step_build(step_view *s, const wb_capture *c, const char *variant, int rank) {
    memset(s, 0, sizeof *s);
    s->c = c;
    s->variant = variant;
    s->rank = rank;
    s->range = -1;
    s->launched_here = calloc(c->n_kernels + c->n_ops + 1, 1);
    if (!s->launched_here) return -1;
    const char *name = pick_range_name(c);
    wb_occurrences occ = {0};
    if (name && wb_find_occurrences_on(c, name, rank, &occ)) return -1;
    if (occ.n > 0) {
        wb_occurrence *by_wall = malloc(occ.n * sizeof *by_wall);
        if (!by_wall) {
            wb_occurrences_free(&occ);
            return -1;
        }
        memcpy(by_wall, occ.items, occ.n * sizeof *by_wall);
        qsort_r(by_wall, occ.n, sizeof *by_wall, wall_cmp, (void *)c);
        const wb_occurrence *o = &by_wall[(occ.n - 1) / 2];
        for (size_t i = 0; i < occ.n; i++)
            if (occ.items[i].range == o->range) s->which = i + 1;
        s->of = occ.n;
        s->median = occ.n > 1;
        s->range = o->range;
        const wb_range *r = &c->ranges[o->range];
        s->thread = r->thread;
        s->start = r->start;
        s->end = r->end;
        for (size_t i = 0; i < o->n_kernels; i++) s->launched_here[o->kernels[i]] = 1;
        for (size_t i = 0; i < o->n_ops; i++) s->launched_here[c->n_kernels + o->ops[i]] = 1;
        s->n_kernels = o->n_kernels;
        s->n_ops = o->n_ops;
        s->n_api = o->n_api;
        free(by_wall);
    } else {
        /* no range to show a step of: the whole profiled window, on the busiest host thread */
        s->start = UINT64_MAX;
        s->end = 0;
        size_t n_windows = 0;
        for (size_t i = 0; i < c->n_windows; i++) {
            if (c->windows[i].rank != rank) continue;
            n_windows++;
            if (c->windows[i].start < s->start) s->start = c->windows[i].start;
            uint64_t e = c->windows[i].end == WB_OPEN_END ? c->windows[i].start : c->windows[i].end;
            if (e > s->end) s->end = e;
        }
        if (n_windows == 0) s->start = c->t0;
        uint32_t *threads = malloc((c->n_api + 1) * sizeof *threads);
        if (!threads) return -1;
        size_t n_threads = 0, best = 0;
        for (size_t i = 0; i < c->n_api; i++) {
            const wb_api_call *a = &c->api[i];
            if (a->rank != rank) continue;
            if (n_windows == 0 && a->end > s->end) s->end = a->end;
            threads[n_threads++] = a->thread;
        }
        qsort(threads, n_threads, sizeof *threads, u32_cmp); /* the busiest thread: the longest run of one id */
        for (size_t i = 0, run = 0; i < n_threads; i++) {
            run = i && threads[i] == threads[i - 1] ? run + 1 : 1;
            if (run > best) best = run, s->thread = threads[i];
        }
        free(threads);
        if (s->start > s->end) s->start = s->end; /* a rank with no API call at all */
        for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) {
            long api = i < c->n_kernels ? c->kernels[i].api : c->ops[i - c->n_kernels].api;
            if (api < 0 || c->api[api].rank != rank || c->api[api].start < s->start || c->api[api].start > s->end) continue;
            s->launched_here[i] = 1;
            if (i < c->n_kernels) s->n_kernels++;
            else s->n_ops++;
        }
        for (size_t i = 0; i < c->n_api; i++)
            s->n_api += !c->api[i].nested && c->api[i].rank == rank && c->api[i].thread == s->thread && c->api[i].start >= s->start &&
                        c->api[i].start <= s->end;
    }
    wb_occurrences_free(&occ);
    /* the span: the step, and the GPU work it launched however late it ran */
    uint64_t hi = s->end;
    for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) {
        if (!s->launched_here[i]) continue;
        uint64_t st = i < c->n_kernels ? c->kernels[i].start : c->ops[i - c->n_kernels].start;
        uint64_t e = i < c->n_kernels ? c->kernels[i].end : c->ops[i - c->n_kernels].end;
        if (e > hi) hi = e;
        s->gpu_busy_ns += e - st;
    }
    if (step_cut(s, hi)) return -1;
    if (s->cut != UINT64_MAX) hi = s->cut;
    uint64_t pad = (hi - s->start) / 60 + 1;
    s->lo = s->start > pad ? s->start - pad : 0;
    s->hi = hi + pad;
    if (s->cut != UINT64_MAX) s->lo = s->start, s->hi = s->cut; /* nothing outside what was counted, not even padding */
    s->x_scale = (PLOT_X1 - PLOT_X0) / (double)(s->hi - s->lo);
    return 0;
}

static void step_free(step_view *s) {
    free(s->launched_here);
    s->launched_here = NULL;
}

static int visible(const step_view *s, uint64_t start, uint64_t end) { return end >= s->lo && start <= s->hi; }

/* ---- the timeline ----------------------------------------------------------------------------- */

/* Vertical layout of one timeline. */
typedef struct {
    double nvtx_y, nvtx_row;  int nvtx_rows;
    double host_y, host_h, nested_y;
    double gpu_y, gpu_h, gpu_gap;
    uint32_t streams[64]; int n_streams;
    double axis_y, height;
} layout;

/* A range of the step drawn: in it, and starting before any cut. */
static int drawn_range(const step_view *s, const wb_range *r) { return in_step_ranges(s, r) && r->start <= s->cut; }

static int in_step_ranges(const step_view *s, const wb_range *r) {
    if (r->rank != s->rank) return 0;
    if (s->range < 0) return !r->is_mark && r->end != WB_OPEN_END && r->thread == s->thread && r->start >= s->start && r->end <= s->end;
    const wb_range *step = &s->c->ranges[s->range];
    return !r->is_mark && r->end != WB_OPEN_END && r->thread == step->thread && r->start >= step->start && r->end <= step->end &&
           r->depth >= step->depth;
}

static int stream_of(const step_view *s, size_t i, uint32_t *stream, uint64_t *start, uint64_t *end) {
    const wb_capture *c = s->c;
    if (i < c->n_kernels) *stream = c->kernels[i].stream, *start = c->kernels[i].start, *end = c->kernels[i].end;
    else *stream = c->ops[i - c->n_kernels].stream, *start = c->ops[i - c->n_kernels].start, *end = c->ops[i - c->n_kernels].end;
    return work_rank(c, i) == s->rank && visible(s, *start, *end);
}

static void layout_build(const step_view *s, layout *l) {
    memset(l, 0, sizeof *l);
    const wb_capture *c = s->c;
    int base = s->range >= 0 ? c->ranges[s->range].depth : 0, deepest = -1;
    for (size_t i = 0; i < c->n_ranges; i++)
        if (drawn_range(s, &c->ranges[i]) && c->ranges[i].depth - base > deepest) deepest = c->ranges[i].depth - base;
    l->nvtx_rows = deepest + 1;
    l->nvtx_row = 20;
    l->nvtx_y = 34;
    l->host_y = l->nvtx_y + l->nvtx_rows * l->nvtx_row + (l->nvtx_rows ? 12 : 0);
    l->host_h = 24;
    l->nested_y = l->host_y + l->host_h + 2;
    l->gpu_y = l->nested_y + 10 + 46; /* room for the launch arrows */
    l->gpu_h = 28;
    l->gpu_gap = 8;
    for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) {
        uint32_t stream;
        uint64_t a, b;
        if (!stream_of(s, i, &stream, &a, &b)) continue;
        int seen = 0;
        for (int k = 0; k < l->n_streams && !seen; k++) seen = l->streams[k] == stream;
        if (!seen && l->n_streams < 64) l->streams[l->n_streams++] = stream;
    }
    for (int i = 1; i < l->n_streams; i++) /* streams in id order */
        for (int j = i; j > 0 && l->streams[j - 1] > l->streams[j]; j--) {
            uint32_t t = l->streams[j];
            l->streams[j] = l->streams[j - 1];
            l->streams[j - 1] = t;
        }
    int lanes = l->n_streams ? l->n_streams : 1;
    l->axis_y = l->gpu_y + lanes * (l->gpu_h + l->gpu_gap) + 4;
    l->height = l->axis_y + 40;
}

static double stream_y(const layout *l, uint32_t stream) {
    for (int k = 0; k < l->n_streams; k++)
        if (l->streams[k] == stream) return l->gpu_y + k * (l->gpu_h + l->gpu_gap);
    return -1;
}

/* 1, 2 or 5 times a power of ten, so that about eight ticks span the step. */
static double tick_step_ns(double span_ns) {
    double raw = span_ns / 8.0, p = pow(10.0, floor(log10(raw > 1 ? raw : 1)));
    return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

static void print_us(FILE *f, double v_us) {
    if (fabs(v_us - round(v_us)) < 1e-9) fprintf(f, "%.0f", v_us);
    else if (fabs(v_us * 10 - round(v_us * 10)) < 1e-6) fprintf(f, "%.1f", v_us);
    else fprintf(f, "%.2f", v_us);
}

static void axis(FILE *f, const step_view *s, const layout *l) {
    double step = tick_step_ns((double)(s->hi - s->start));
    fprintf(f, "<g class=\"axis\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", PLOT_X0, l->axis_y, PLOT_X1, l->axis_y);
    for (double t = 0; s->start + (uint64_t)t <= s->hi; t += step) {
        double x = xpos(s, s->start + (uint64_t)t);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, l->nvtx_y - 6, x, l->axis_y);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, l->axis_y, x, l->axis_y + 5);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">", x, l->axis_y + 17);
        print_us(f, t / 1000.0);
        fputs("</text>", f);
    }
    fprintf(f, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\">%s</text></g>\n", (PLOT_X0 + PLOT_X1) / 2, l->axis_y + 33,
            _("microseconds from the start of the step"));
}

static void lane_band(FILE *f, double y, double h, const char *title, const char *subtitle) {
    fprintf(f, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", PLOT_X0 - 4, y - 2,
            PLOT_X1 - PLOT_X0 + 8, h + 4);
    fprintf(f, "<text class=\"lane-title\" x=\"%.1f\" y=\"%.1f\">", LABEL_X, y + (subtitle ? h / 2 - 1 : h / 2 + 4));
    xml(f, title);
    fputs("</text>", f);
    if (subtitle) {
        fprintf(f, "<text class=\"lane-sub\" x=\"%.1f\" y=\"%.1f\">", LABEL_X, y + h / 2 + 12);
        xml(f, subtitle);
        fputs("</text>", f);
    }
}

/* The grey bands and titles of every lane, drawn first so that grid lines and boxes lie on them. */
static void bands(FILE *f, const step_view *s, const layout *l) {
    char title[128], sub[300];
    fputs("<g class=\"bands\">", f);
    if (l->nvtx_rows) lane_band(f, l->nvtx_y, l->nvtx_rows * l->nvtx_row - 2, _("NVTX ranges"), NULL);
    if (s->c->world_size > 1) snprintf(sub, sizeof sub, _("rank %d, thread %u"), s->rank, s->thread);
    else snprintf(sub, sizeof sub, _("thread %u"), s->thread);
    lane_band(f, l->host_y, l->host_h + 12, _("host API calls"), sub);
    for (int k = 0; k < l->n_streams; k++) {
        if (s->c->world_size > 1) snprintf(title, sizeof title, _("rank %d stream %u"), s->rank, l->streams[k]);
        else snprintf(title, sizeof title, _("GPU stream %u"), l->streams[k]);
        snprintf(sub, sizeof sub, "%s", s->c->gpu);
        lane_band(f, stream_y(l, l->streams[k]), l->gpu_h, title, sub);
    }
    fputs("</g>\n", f);
}

static void nvtx_lane(FILE *f, const step_view *s, const layout *l) {
    const wb_capture *c = s->c;
    if (l->nvtx_rows == 0) return;
    int base = s->range >= 0 ? c->ranges[s->range].depth : 0;
    placed_box *boxes = calloc(c->n_ranges + 1, sizeof *boxes);
    if (!boxes) return;
    size_t n = 0;
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        if (!drawn_range(s, r)) continue;
        double x = xpos(s, r->start), w = xpos(s, r->end) - x;
        boxes[n++] = (placed_box){i, r->depth - base, x, w < 1 ? 1 : w, 0};
    }
    place_boxes(boxes, n);
    fprintf(f, "<g class=\"lane\" data-lane=\"nvtx\">");
    double used = 0;
    for (size_t k = 0; k < n; k++) {
        const wb_range *r = &c->ranges[boxes[k].i];
        if (k == 0 || boxes[k].row != boxes[k - 1].row) used = PLOT_X0 - 4; /* a new row */
        int row = (int)boxes[k].row;
        double x = boxes[k].x, w = boxes[k].w, y = l->nvtx_y + row * l->nvtx_row;
        fprintf(f, "<g class=\"range depth%d\" data-name=\"", row % 5);
        xml(f, r->name);
        fprintf(f, "\"><title>%s ", _("range"));
        xml(f, r->name);
        fputc('\n', f);
        fprintf(f, _("%.2f &#181;s, from %.2f &#181;s"), us(r->end - r->start), us(r->start - s->start));
        fputs("</title>", f);
        fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\"/>", x, y, w, l->nvtx_row - 3);
        box_label(f, x, y + 12.5, w, boxes[k].room, &used, r->name, "box-label dark");
        fputs("</g>", f);
    }
    fputs("</g>\n", f);
    free(boxes);
}

/* Calls that launched GPU work, calls that wait for it, and the rest. */
static const char *api_class(const wb_capture *c, size_t i, const char *launchers) {
    if (launchers[i]) return "api launch";
    if (strstr(c->api[i].name, "Synchronize") || strstr(c->api[i].name, "Query")) return "api sync";
    return "api other";
}

static void host_lane(FILE *f, const step_view *s, const layout *l, const char *launchers) {
    const wb_capture *c = s->c;
    placed_box *boxes = calloc(c->n_api + 1, sizeof *boxes);
    if (!boxes) return;
    size_t n = 0;
    for (size_t i = 0; i < c->n_api; i++) {
        const wb_api_call *a = &c->api[i];
        if (a->rank != s->rank || a->thread != s->thread || !visible(s, a->start, a->end)) continue;
        double x = xpos(s, a->start), w = xpos(s, a->end) - x;
        boxes[n++] = (placed_box){i, a->nested, x, w < 1 ? 1 : w, 0};
    }
    place_boxes(boxes, n);
    fprintf(f, "<g class=\"lane\" data-lane=\"host\">");
    double used = PLOT_X0 - 4;
    for (size_t k = 0; k < n; k++) {
        size_t i = boxes[k].i;
        const wb_api_call *a = &c->api[i];
        double x = boxes[k].x, w = boxes[k].w;
        double y = a->nested ? l->nested_y : l->host_y, h = a->nested ? 8 : l->host_h;
        fprintf(f, "<g class=\"%s%s\" data-name=\"", a->nested ? "api nested" : api_class(c, i, launchers),
                a->start < s->start || a->start > s->end ? " outside" : "");
        xml(f, a->name);
        fputs("\"><title>", f);
        xml(f, a->name);
        fprintf(f, " %s\n", a->driver ? _("(driver API)") : _("(runtime API)"));
        fprintf(f, _("%.2f &#181;s, from %.2f &#181;s"), us(a->end - a->start), ((double)a->start - (double)s->start) / 1000.0);
        if (a->nested) fprintf(f, "\n%s", _("made by the runtime inside another call"));
        fputs("</title>", f);
        fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\"/>", x, y, w, h);
        if (!a->nested) box_label(f, x, y + 16, w, boxes[k].room, &used, a->name, "box-label");
        fputs("</g>", f);
    }
    fputs("</g>\n", f);
    free(boxes);
}

static void describe_work(FILE *f, const step_view *s, size_t i) {
    const wb_capture *c = s->c;
    if (i < c->n_kernels) {
        const wb_kernel *k = &c->kernels[i];
        xml(f, k->name);
        fputc('\n', f);
        fprintf(f, _("%.2f &#181;s, from %.2f &#181;s; grid (%d, %d, %d), block (%d, %d, %d)"), us(k->end - k->start),
                ((double)k->start - (double)s->start) / 1000.0, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
                k->block[2]);
        if (wb_is_gemm(k->name, NULL)) fprintf(f, "\n%s", _("a matrix multiply (GEMM)"));
        if (k->graph_id) {
            fputc('\n', f);
            fprintf(f, _("from CUDA graph %u"), k->graph_id);
        }
    } else {
        const wb_gpu_op *o = &c->ops[i - c->n_kernels];
        if (o->kind == WB_GPU_MEMCPY) fprintf(f, _("memcpy %s, %llu bytes"), o->copy_kind, (unsigned long long)o->bytes);
        else fprintf(f, _("memset, %llu bytes"), (unsigned long long)o->bytes);
        fputc('\n', f);
        fprintf(f, _("%.2f &#181;s, from %.2f &#181;s"), us(o->end - o->start), ((double)o->start - (double)s->start) / 1000.0);
    }
    long api = i < c->n_kernels ? c->kernels[i].api : c->ops[i - c->n_kernels].api;
    if (api >= 0) {
        fprintf(f, "\n%s ", _("launched by"));
        xml(f, c->api[api].name);
    }
    if (!s->launched_here[i]) fprintf(f, "\n%s", _("launched outside this step"));
}

static void work_name(const wb_capture *c, size_t i, char *buf, size_t cap) {
    if (i < c->n_kernels) snprintf(buf, cap, "%s", c->kernels[i].name);
    else if (c->ops[i - c->n_kernels].kind == WB_GPU_MEMCPY) snprintf(buf, cap, "memcpy %s", c->ops[i - c->n_kernels].copy_kind);
    else snprintf(buf, cap, "memset");
}

static void gpu_lanes(FILE *f, const step_view *s, const layout *l) {
    const wb_capture *c = s->c;
    placed_box *boxes = calloc(c->n_kernels + c->n_ops + 1, sizeof *boxes);
    if (!boxes) return;
    size_t n = 0;
    for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) {
        uint32_t stream;
        uint64_t start, end;
        if (!stream_of(s, i, &stream, &start, &end)) continue;
        double x = xpos(s, start), w = xpos(s, end) - x;
        boxes[n++] = (placed_box){i, stream, x, w < 1.2 ? 1.2 : w, 0};
    }
    place_boxes(boxes, n);
    size_t k = 0;
    for (int lane = 0; lane < l->n_streams; lane++) {
        fprintf(f, "<g class=\"lane\" data-lane=\"gpu\" data-stream=\"%u\">", l->streams[lane]);
        double y = stream_y(l, l->streams[lane]);
        while (k < n && boxes[k].row < (long)l->streams[lane]) k++; /* a stream past the 64 lanes drawn */
        double used = PLOT_X0 - 4;
        for (; k < n && boxes[k].row == (long)l->streams[lane]; k++) {
            size_t i = boxes[k].i;
            const char *cls = i >= c->n_kernels ? (c->ops[i - c->n_kernels].kind == WB_GPU_MEMCPY ? "memcpy" : "memset")
                              : wb_is_gemm(c->kernels[i].name, NULL) ? "kernel gemm" : "kernel";
            char name[2048];
            work_name(c, i, name, sizeof name);
            double x = boxes[k].x, w = boxes[k].w;
            fprintf(f, "<g class=\"work %s%s\" data-name=\"", cls, s->launched_here[i] ? "" : " outside");
            xml(f, name);
            fputs("\"><title>", f);
            describe_work(f, s, i);
            fprintf(f, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\"/>", x, y, w, l->gpu_h);
            box_label(f, x, y + l->gpu_h / 2 + 4, w, boxes[k].room, &used, name, "box-label");
            fputs("</g>", f);
        }
        fputs("</g>\n", f);
    }
    free(boxes);
    if (l->n_streams == 0)
        fprintf(f, "<text class=\"lane-sub\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", PLOT_X0, l->gpu_y + 16, _("no GPU work ran in this step"));
}

static void arrows(FILE *f, const step_view *s, const layout *l) {
    const wb_capture *c = s->c;
    fputs("<g class=\"arrows\">", f);
    for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) {
        uint32_t stream;
        uint64_t start, end;
        long api = i < c->n_kernels ? c->kernels[i].api : c->ops[i - c->n_kernels].api;
        if (api < 0 || !stream_of(s, i, &stream, &start, &end)) continue;
        const wb_api_call *a = &c->api[api];
        if (a->rank != s->rank || a->thread != s->thread || !visible(s, a->start, a->end)) continue;
        double x1 = (xpos(s, a->start) + xpos(s, a->end)) / 2, y1 = (a->nested ? l->nested_y + 8 : l->host_y + l->host_h);
        double x2 = xpos(s, start) + 0.6, y2 = stream_y(l, stream) - 1;
        double my = (y1 + y2) / 2;
        char name[2048];
        work_name(c, i, name, sizeof name);
        fprintf(f, "<path class=\"arrow\" d=\"M%.2f %.1f C%.2f %.1f %.2f %.1f %.2f %.1f\"><title>", x1, y1, x1, my, x2, my, x2, y2);
        /* "CALL launched WORK", in the language's word order: both names escaped first */
        char *call = NULL, *work = NULL;
        size_t n_call = 0, n_work = 0;
        FILE *m = open_memstream(&call, &n_call);
        if (m) xml(m, a->name), fclose(m);
        m = open_memstream(&work, &n_work);
        if (m) xml(m, name), fclose(m);
        fprintf(f, _("%s launched %s"), call ? call : "", work ? work : "");
        free(call);
        free(work);
        fputs("</title></path>", f);
    }
    fputs("</g>\n", f);
}

static void timeline_svg(FILE *f, const step_view *s) {
    layout l;
    layout_build(s, &l);
    const wb_capture *c = s->c;
    char *launchers = calloc(c->n_api + 1, 1);
    for (size_t i = 0; launchers && i < c->n_kernels + c->n_ops; i++) {
        long api = i < c->n_kernels ? c->kernels[i].api : c->ops[i - c->n_kernels].api;
        if (api >= 0) launchers[api] = 1;
    }
    static const char none[1] = {0};
    char label[1200];
    if (c->world_size > 1) snprintf(label, sizeof label, _("timeline of one step of variant %s, rank %d"), s->variant, s->rank);
    else snprintf(label, sizeof label, _("timeline of one step of variant %s"), s->variant);
    fprintf(f, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
               "aria-label=\"", WIDTH, l.height);
    xml(f, label);
    fputs("\">\n<defs><marker id=\"arrowhead\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" "
          "orient=\"auto-start-reverse\"><path d=\"M0 0 L8 4 L0 8 z\" class=\"arrowhead\"/></marker></defs>\n", f);
    bands(f, s, &l);
    axis(f, s, &l);
    nvtx_lane(f, s, &l);
    host_lane(f, s, &l, launchers ? launchers : none);
    gpu_lanes(f, s, &l);
    arrows(f, s, &l);
    fputs("</svg>\n", f);
    free(launchers);
}

/* ---- per range: wall time, GPU time, floor ----------------------------------------------------- */

static const wb_range_floor *find_floor(const wb_timeline_context *ctx, const char *variant, const char *range) {
    for (size_t i = 0; i < ctx->n_floors; i++) {
        const wb_range_floor *fl = &ctx->floors[i];
        if (!strcmp(fl->range, range) && (!fl->variant || !strcmp(fl->variant, variant))) return fl;
    }
    return NULL;
}

static int range_bars(FILE *f, const wb_timeline_context *ctx, const step_view *s, wb_error *err) {
    const wb_capture *c = s->c;
    size_t n = 0;
    long *rows = calloc(c->n_ranges + 1, sizeof *rows);
    double *gpu = calloc(c->n_ranges + 1, sizeof *gpu);
    if (!rows || !gpu) goto oom;
    double scale_ns = 1;
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        if (!drawn_range(s, r)) continue;
        wb_occurrences occ; /* this range's own: all of its name's made this quadratic (1.6 s of a 200 MB capture) */
        if (wb_find_occurrence_of(c, (long)i, &occ)) goto oom;
        for (size_t k = 0; k < occ.n; k++) {
            for (size_t q = 0; q < occ.items[k].n_kernels; q++)
                gpu[n] += (double)(c->kernels[occ.items[k].kernels[q]].end - c->kernels[occ.items[k].kernels[q]].start);
            for (size_t q = 0; q < occ.items[k].n_ops; q++)
                gpu[n] += (double)(c->ops[occ.items[k].ops[q]].end - c->ops[occ.items[k].ops[q]].start);
        }
        wb_occurrences_free(&occ);
        const wb_range_floor *fl = find_floor(ctx, s->variant, r->name);
        double wall = (double)(r->end - r->start), top = wall > gpu[n] ? wall : gpu[n];
        if (fl && fl->floor_ns > top) top = fl->floor_ns;
        if (top > scale_ns) scale_ns = top;
        rows[n++] = (long)i;
    }
    if (n == 0) {
        free(rows);
        free(gpu);
        return 0;
    }
    int base = s->range >= 0 ? c->ranges[s->range].depth : 0, any_floor = 0;
    for (size_t k = 0; k < n; k++) any_floor |= find_floor(ctx, s->variant, c->ranges[rows[k]].name) != NULL;
    /* names in the label column (shortened with "...", whole in the hover); the values at the
     * right, on two lines when a floor adds its own */
    double row_h = any_floor ? 32 : 26, x0 = PLOT_X0, x1 = PLOT_X1 - 330, height = 12 + n * row_h;
    fprintf(f, "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
               "aria-label=\"%s\">\n", WIDTH, height, _("time per range"));
    for (size_t k = 0; k < n; k++) {
        const wb_range *r = &c->ranges[rows[k]];
        const wb_range_floor *fl = find_floor(ctx, s->variant, r->name);
        double y = 6 + k * row_h, wall = (double)(r->end - r->start);
        double w_wall = (x1 - x0) * wall / scale_ns, w_gpu = (x1 - x0) * gpu[k] / scale_ns;
        double indent = 12.0 * (r->depth - base), name_room = PLOT_X0 - 8 - LABEL_X - (indent < 120 ? indent : 120);
        char shown[512];
        size_t cols = wb_columns(r->name) + 1;
        do { /* 13px semibold: a tenth wider than the regular weight */
            wb_fit_name_start(r->name, --cols, shown, sizeof shown);
        } while (cols > 1 && text_width(shown, 13 * 1.1) > name_room);
        fprintf(f, "<g class=\"bar-row\" data-name=\"");
        xml(f, r->name);
        fprintf(f, "\"><text class=\"lane-title\" x=\"%.1f\" y=\"%.1f\"><title>", PLOT_X0 - 8 - name_room, y + 14);
        xml(f, r->name);
        fputs("</title>", f);
        xml(f, shown);
        fprintf(f, "</text><rect class=\"bar-wall\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"18\" rx=\"2\"><title>", x0, y,
                w_wall > 1 ? w_wall : 1);
        fprintf(f, _("wall time of the range: %.2f &#181;s"), wall / 1000);
        fprintf(f, "</title></rect><rect class=\"bar-gpu\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"10\" rx=\"2\"><title>", x0,
                y + 4, w_gpu);
        fprintf(f, _("GPU time of the work launched in the range: %.2f &#181;s"), gpu[k] / 1000);
        fputs("</title></rect>", f);
        if (fl) {
            double xf = x0 + (x1 - x0) * fl->floor_ns / scale_ns;
            fprintf(f, "<line class=\"floor\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"><title>", xf, y - 2, xf, y + 20);
            fprintf(f, _("floor: %.2f &#181;s"), fl->floor_ns / 1000);
            fprintf(f, "%s%s</title></line>", fl->bound ? ", " : "", fl->bound ? fl->bound : "");
        }
        fprintf(f, "<text class=\"bar-value\" x=\"%.1f\" y=\"%.1f\">", x1 + 10, y + (fl ? 10 : 14));
        fprintf(f, _("wall %.2f &#181;s, GPU %.2f &#181;s"), wall / 1000, gpu[k] / 1000);
        if (fl) {
            fprintf(f, "<tspan x=\"%.1f\" dy=\"14\">", x1 + 10);
            fprintf(f, _("floor %.2f &#181;s"), fl->floor_ns / 1000);
            double share = gpu[k] > 0 ? 100.0 * fl->floor_ns / gpu[k] : 0;
            /* a floor far under the GPU time (launch-bound work) would round to "0%" */
            if (share > 0 && share < 0.5) fputs(/* xgettext:no-c-format */ _(" (under 1% of the GPU time)"), f);
            else if (gpu[k] > 0) fprintf(f, _(" (%.0f%% of the GPU time)"), share);
            fputs("</tspan>", f);
        }
        fputs("</text></g>\n", f);
    }
    fputs("</svg>\n", f);
    if (!any_floor && ctx->n_floors > 0) fprintf(f, "<p class=\"note\">%s</p>\n", _("No floor is declared for these ranges."));
    free(rows);
    free(gpu);
    return 0;
oom:
    free(rows);
    free(gpu);
    return wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory while drawing the timeline"));
}

/* ---- the step's GPU work as a table -------------------------------------------------------------- */

static int start_cmp(const void *a, const void *b, void *ctx) {
    const step_view *s = ctx;
    uint32_t st;
    uint64_t x, y, e;
    stream_of(s, *(const size_t *)a, &st, &x, &e);
    stream_of(s, *(const size_t *)b, &st, &y, &e);
    return (x > y) - (x < y);
}

static void work_table(FILE *f, const step_view *s) {
    const wb_capture *c = s->c;
    size_t n = 0, *order = calloc(c->n_kernels + c->n_ops + 1, sizeof *order);
    if (!order) return;
    for (size_t i = 0; i < c->n_kernels + c->n_ops; i++)
        if (s->launched_here[i] && work_start(c, i) <= s->cut) order[n++] = i;
    qsort_r(order, n, sizeof *order, start_cmp, (void *)s);
    fputs("<details><summary>", f);
    fprintf(f, wb_ngettext("The %zu piece of GPU work this step launched, in order",
                           "The %zu pieces of GPU work this step launched, in order", n), n);
    fprintf(f, "</summary>\n<table>\n<tr><th>#</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th></tr>\n", _("stream"),
            _("start (&#181;s)"), _("duration (&#181;s)"), _("launched by"), _("name"));
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        uint32_t stream;
        uint64_t start, end;
        stream_of(s, i, &stream, &start, &end);
        char name[2048];
        work_name(c, i, name, sizeof name);
        long api = i < c->n_kernels ? c->kernels[i].api : c->ops[i - c->n_kernels].api;
        fprintf(f, "<tr><td>%zu</td><td>%u</td><td>%.2f</td><td>%.2f</td><td>", k + 1, stream,
                ((double)start - (double)s->start) / 1000.0, us(end - start));
        xml(f, api >= 0 ? c->api[api].name : "");
        fputs("</td><td class=\"name\">", f);
        xml(f, name);
        fputs("</td></tr>\n", f);
    }
    size_t rest = s->undrawn_kernels + s->undrawn_memsets + s->undrawn_memcpys;
    if (rest) {
        fputs("<tr class=\"undrawn\"><td colspan=\"6\">", f);
        fprintf(f, _("and %zu more, not listed (docs/limits.md)"), rest);
        fputs("</td></tr>\n", f);
    }
    fputs("</table></details>\n", f);
    free(order);
}

size_t wb_timeline_floors(const wb_lesson *l, const wb_recording *rec, wb_range_floor *out, size_t cap) {
    size_t n = 0;
    if (!rec->calibration.present) return 0;
    for (size_t i = 0; i < l->n_work && n < cap; i++) {
        const wb_work *w = &l->work[i];
        wb_bound_inputs in;
        wb_bound_of(0, 0, w, &rec->calibration, &in);
        if (in.floor_us <= 0) continue;
        out[n++] = (wb_range_floor){w->variant, w->range, in.floor_us * 1000.0,
                                    in.compute_us > in.memory_us ? _("compute-bound: FLOPs over the GEMM rate")
                                                                 : _("memory-bound: bytes over the copy bandwidth")};
    }
    return n;
}

/* ---- the page ------------------------------------------------------------------------------------ */

static const char STYLE[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:#1f2328;"
    "background:#fff;margin:24px auto;max-width:1240px;padding:0 16px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 2px;border-top:1px solid #d0d7de;padding-top:16px}\n"
    "h3{font-size:15px;margin:18px 0 4px}.meta,.note{color:#57606a}.step{margin:2px 0 8px}\n"
    "svg{width:100%;height:auto;display:block}\n"
    "svg text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif}\n"
    ".legend span{display:inline-block;margin:2px 14px 2px 0}.legend i{display:inline-block;width:12px;height:12px;"
    "border-radius:2px;vertical-align:-1px;margin-right:5px}\n"
    ".band{fill:#f3f5f8}.grid{stroke:#d8dee4;stroke-width:1}.axis line{stroke:#6e7781}.tick{font-size:11px;fill:#57606a;"
    "text-anchor:middle}.axis-title{font-size:12px;fill:#57606a;text-anchor:middle}\n"
    ".lane-title{font-size:13px;font-weight:600;fill:#24292f}.lane-sub{font-size:11px;fill:#6e7781}\n"
    ".box-label{font-size:11px;fill:#fff;pointer-events:none}.box-label.dark,.box-label.outside-label{fill:#1f2328}\n"
    ".range rect{stroke:#fff;stroke-width:.5}.range.depth0 rect{fill:#f2c14e}.range.depth1 rect{fill:#f6a57a}"
    ".range.depth2 rect{fill:#a7d3a0}.range.depth3 rect{fill:#9fd0ea}.range.depth4 rect{fill:#d5bde4}\n"
    ".api.launch rect{fill:#c8453c}.api.sync rect{fill:#8c959f}.api.other rect{fill:#57606a}.api.nested rect{fill:#afb8c1}"
    ".api.outside{opacity:.45}\n"
    ".work rect{stroke:#fff;stroke-width:.5}.kernel rect{fill:#e07b39}.kernel.gemm rect{fill:#2f6db5}"
    ".memcpy rect{fill:#3f9a4f}.memset rect{fill:#8a5cc2}.work.outside{opacity:.35}\n"
    ".arrow{fill:none;stroke:#6e7781;stroke-width:1;opacity:.75;marker-end:url(#arrowhead)}.arrowhead{fill:#6e7781}\n"
    "g.work:hover rect,g.api:hover rect,g.range:hover rect{stroke:#1f2328;stroke-width:1.5}"
    ".arrow:hover{stroke:#1f2328;opacity:1;stroke-width:2}\n"
    ".swatch{display:inline-block;width:22px;height:10px;border-radius:2px;vertical-align:0}.swatch.wall{background:#d0d7de}"
    ".swatch.gpu{background:#2f6db5}.bar-wall{fill:#d0d7de}.bar-gpu{fill:#2f6db5}.floor{stroke:#1f2328;stroke-width:2}.bar-value{font-size:12px;fill:#24292f}\n"
    "table{border-collapse:collapse;font-size:12px;margin-top:6px}td,th{border-bottom:1px solid #eaeef2;padding:3px 8px;"
    "text-align:right;vertical-align:top}td.name,th:last-child,td:nth-child(5){text-align:left}td.name{font-family:ui-monospace,"
    "'DejaVu Sans Mono',monospace;word-break:break-all}summary{cursor:pointer;color:#0969da;margin-top:10px}\n";

static void legend(FILE *f) {
    static const char *items[][2] = {
        {"#f2c14e", N_("NVTX range")},     {"#c8453c", N_("API call that launched GPU work")}, {"#8c959f", N_("synchronize")},
        {"#57606a", N_("other API call")}, {"#2f6db5", N_("GEMM kernel")},                     {"#e07b39", N_("other kernel")},
        {"#3f9a4f", "memcpy"},             {"#8a5cc2", "memset"},
    };
    fputs("<p class=\"legend\">", f);
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
        fprintf(f, "<span><i style=\"background:%s\"></i>%s</span>", items[i][0], _(items[i][1]));
    fprintf(f, "<span>%s</span></p>\n", _("faded: outside the step, or launched outside it &#8195; arrow: a launch and what it launched"));
}

/* One rank's step: its timeline, range bars and work table (the whole run for one process). */
static int rank_part(FILE *f, const wb_timeline_context *ctx, const wb_run *run, int rank, wb_error *err) {
    step_view s;
    if (step_build(&s, &run->capture, run->variant, rank)) {
        step_free(&s);
        return wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory while drawing the timeline"));
    }
    const wb_capture *c = &run->capture;
    if (c->world_size > 1) {
        fprintf(f, "<h3 class=\"rank\" data-rank=\"%d\">", rank);
        fprintf(f, _("Rank %d of %d"), rank, c->world_size);
        fputs("</h3>\n", f);
    }
    fputs("<p class=\"step\">", f);
    if (s.range >= 0) {
        char name[1024];
        fprintf(f, _("Range <b>%s</b>, occurrence %zu of %zu in the profiled window%s. "), escaped(c->ranges[s.range].name, name, sizeof name),
                s.which, s.of, s.median ? _(" (the one of median wall time)") : "");
    } else {
        fputs(_("The whole profiled window (the program marks no step range). "), f);
    }
    size_t memsets = 0;
    for (size_t i = 0; i < c->n_ops; i++) memsets += s.launched_here[c->n_kernels + i] && c->ops[i].kind == WB_GPU_MEMSET;
    char calls[64], kernels[64], sets[64], copies[64];
    snprintf(calls, sizeof calls, wb_ngettext("%zu API call", "%zu API calls", s.n_api), s.n_api);
    snprintf(kernels, sizeof kernels, wb_ngettext("%zu kernel", "%zu kernels", s.n_kernels), s.n_kernels);
    snprintf(sets, sizeof sets, wb_ngettext("%zu memset", "%zu memsets", memsets), memsets);
    snprintf(copies, sizeof copies, wb_ngettext("%zu memcpy", "%zu memcpys", s.n_ops - memsets), s.n_ops - memsets);
    fprintf(f, _("Wall time %.2f &#181;s. It made %s (not counting those the runtime made inside them) and launched %s, %s and %s, "
                 "which ran %.2f &#181;s on the GPU."), us(s.end - s.start), calls, kernels, sets, copies, us(s.gpu_busy_ns));
    fputs("</p>\n", f);
    if (s.cut != UINT64_MAX) {
        char ranges[64];
        snprintf(calls, sizeof calls, wb_ngettext("%zu API call", "%zu API calls", s.undrawn_api), s.undrawn_api);
        snprintf(kernels, sizeof kernels, wb_ngettext("%zu kernel", "%zu kernels", s.undrawn_kernels), s.undrawn_kernels);
        snprintf(sets, sizeof sets, wb_ngettext("%zu memset", "%zu memsets", s.undrawn_memsets), s.undrawn_memsets);
        snprintf(copies, sizeof copies, wb_ngettext("%zu memcpy", "%zu memcpys", s.undrawn_memcpys), s.undrawn_memcpys);
        snprintf(ranges, sizeof ranges, wb_ngettext("%zu range", "%zu ranges", s.undrawn_ranges), s.undrawn_ranges);
        fprintf(f, "<p class=\"undrawn\" data-kernels=\"%zu\" data-memsets=\"%zu\" data-memcpys=\"%zu\" data-api=\"%zu\" "
                   "data-ranges=\"%zu\" data-gpu-ns=\"%llu\">",
                s.undrawn_kernels, s.undrawn_memsets, s.undrawn_memcpys, s.undrawn_api, s.undrawn_ranges,
                (unsigned long long)s.undrawn_gpu_ns);
        fprintf(f, _("Drawn: the first %.2f &#181;s of the step, its first %zu items (GPU work, host calls and ranges: at most %zu, "
                     "docs/limits.md). Not drawn, as they start later: %s, %s and %s, which ran %.2f &#181;s on the GPU; %s; %s."),
                us(s.cut - s.start), s.cap, s.cap, kernels, sets, copies, us(s.undrawn_gpu_ns), calls, ranges);
        fputs("</p>\n", f);
    }
    timeline_svg(f, &s);
    fprintf(f, "<h3>%s</h3>\n", _("Per range: wall time <i class=\"swatch wall\"></i> and the GPU time of the work it launched "
                                  "<i class=\"swatch gpu\"></i>"));
    int rc = range_bars(f, ctx, &s, err);
    if (!rc) work_table(f, &s);
    step_free(&s);
    return rc;
}

/* A variant: one part per rank of its processes, each drawn on its own (ranks run their steps
 * at their own times). */
static int run_section(FILE *f, const wb_timeline_context *ctx, const wb_run *run, wb_error *err) {
    fprintf(f, "<section class=\"variant\" data-variant=\"");
    xml(f, run->variant);
    char name[1024];
    fputs("\">\n<h2>", f);
    fprintf(f, _("Variant %s"), escaped(run->variant, name, sizeof name));
    fputs("</h2>\n", f);
    if (run->capture.world_size > 1) {
        fputs("<p class=\"note\">", f);
        fprintf(f, _("%d processes (ranks) ran this variant: each has its own host, NVTX and GPU lanes below."),
                run->capture.world_size);
        fputs("</p>\n", f);
    }
    int rc = 0;
    for (int r = 0; r < wb_capture_ranks(&run->capture) && !rc; r++) rc = rank_part(f, ctx, run, r, err);
    fputs("</section>\n", f);
    return rc;
}

int wb_timeline_html(FILE *f, const wb_timeline_context *ctx, const wb_recording *rec, wb_error *err) {
    char lesson[1024];
    escaped(ctx->lesson, lesson, sizeof lesson);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", wb_i18n_lang());
    fprintf(f, _("Lesson %s: one measured step"), lesson);
    /* Japanese glyphs: Noto Sans CJK JP where installed (Debian fonts-noto-cjk), else the system's */
    fprintf(f, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n<h1>", STYLE,
            wb_i18n_is_ja() ? "body,svg text{font-family:'Noto Sans CJK JP','Noto Sans JP',system-ui,sans-serif}\n" : "");
    fprintf(f, _("Lesson %s: one measured step per variant"), lesson);
    fputs("</h1>\n<p class=\"meta\">", f);
    if (rec->n_runs) {
        char desc[512];
        xml(f, wb_capture_describe(&rec->runs[0].capture, desc, sizeof desc));
        fputs(_(". "), f); /* the end of a sentence */
    }
    if (ctx->source && !strcmp(ctx->source, "replay")) {
        char path[4200], when[256];
        fprintf(f, _("Replayed from the recording %s, made %s. "), escaped(rec->path ? rec->path : "?", path, sizeof path),
                rec->recorded_at ? escaped(rec->recorded_at, when, sizeof when) : _("at an unknown time"));
    } else {
        fputs(_("Captured live by grader check. "), f);
    }
    fprintf(f, "%s</p>\n", _("Hover over a box for its full name and times."));
    legend(f);
    if (ctx->n_floors == 0)
        fprintf(f, "<p class=\"note\">%s</p>\n",
                _("Per range, a bar compares its wall time with the GPU time of the work it launched. A floor (the "
                  "least time the range's work can take on this GPU, from the FLOPs and bytes the lesson declares for it and the "
                  "GPU's measured ceilings) is drawn on the bar once the lesson declares that work; this one declares none."));
    int rc = 0;
    for (size_t i = 0; i < rec->n_runs && !rc; i++) rc = run_section(f, ctx, &rec->runs[i], err);
    fprintf(f, "<p class=\"note\">%s</p>\n</body>\n</html>\n",
            _("Made by gpu-workbench's grader check. Times are CUPTI's: API calls on the host clock, GPU work "
              "as the GPU ran it. The same capture opens in ui.perfetto.dev through trace.json beside this file."));
    return rc;
}

int wb_timeline_html_write(const char *path, const wb_timeline_context *ctx, const wb_recording *rec, wb_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the timeline (is the folder writable?)"), path);
    int rc = wb_timeline_html(f, ctx, rec, err);
    if (fclose(f) != 0 && !rc) rc = wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the timeline (disk full?)"), path);
    if (rc) unlink(path); /* no truncated page left behind */
    return rc;
}
