/*
 * timeline_html.h: the offline picture of a check, one self-contained HTML file (inline CSS and
 * SVG, no script, no font or file fetched) that any browser opens without a network.
 *
 * For each run (variant) of the recording, one measured step as an SVG timeline:
 *   - the NVTX ranges of the step, nested by depth;
 *   - a host lane: every API call of the step's thread (calls the runtime made inside another
 *     call on a thinner row below);
 *   - a GPU lane per stream: each kernel, memset and memcpy; work that another step launched
 *     but that runs in the span shown is drawn faded;
 *   - an arrow from each launching call to the work it launched;
 *   - a time axis with ticks (microseconds from the start of the step);
 *   - full names, durations and launch shapes on hover (SVG <title>, which needs no script);
 * then per range of the step a bar of its wall time and the GPU time of its work, with the
 * range's floor (the least time its declared work can take on this GPU) where one is given, and
 * a table of the step's GPU work in order.
 *
 * Which step: an occurrence of the range named "step" in the profiled window (else of the
 * top-level range that occurs most often there; else the whole window); of several, the one
 * whose wall time is the median (the lower one of the middle two), so the picture shows a
 * typical step rather than the first or an outlier. The page says which one it is.
 */
#ifndef WB_TIMELINE_HTML_H
#define WB_TIMELINE_HTML_H

#include "wb_capture.h"
#include "wb_base.h"
#include "wb_course.h"

#include <stdio.h>

/* A range's floor, from the lesson's time facts (the work it declares against the GPU's
 * measured ceilings). */
typedef struct {
    const char *variant; /* NULL: every variant */
    const char *range;
    double floor_ns;
    const char *bound;   /* "memory", "compute", ...; may be NULL */
} wb_range_floor;

typedef struct {
    const char *lesson;
    const char *source;            /* "live" or "replay" */
    const wb_range_floor *floors;  /* may be NULL */
    size_t n_floors;
} wb_timeline_context;

/* The floors of the ranges whose work the lesson declares (lesson.yaml `work`), on the GPU the
 * recording's calibration measured: the larger of flops / matrix rate and bytes / copy bandwidth
 * (time_facts.h's rule), bound "compute" or "memory" after the larger one. Up to cap into out;
 * returns how many (0 without a calibration or declared work). */
size_t wb_timeline_floors(const wb_lesson *l, const wb_recording *rec, wb_range_floor *out, size_t cap);

/* The page for every run of rec. Returns 0, or WB_EXIT_INPUT when out of memory. */
int wb_timeline_html(FILE *f, const wb_timeline_context *ctx, const wb_recording *rec, wb_error *err);
/* Output bounded like input (docs/limits.md): a step draws at most wb_timeline_max_items() items
 * (its GPU work, its thread's API calls and its NVTX ranges); past that, the picture, the range
 * bars and the work table stop before the first item over the bound, and a paragraph counts what
 * starts later (kernels, memsets, memcpys and their GPU time, API calls, ranges).
 * WB_TIMELINE_MAX_ITEMS sets the bound (tests lower it). */
#define WB_TIMELINE_MAX_ITEMS_DEFAULT 5000
size_t wb_timeline_max_items(void);

int wb_timeline_html_write(const char *path, const wb_timeline_context *ctx, const wb_recording *rec, wb_error *err);

#endif
