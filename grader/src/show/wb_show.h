/*
 * wb_show.h: the public header of the grader's show layer, the one header of grader/src/show/ that
 * the layers above include. What the learner sees once graded: the report, the kernel summary, the
 * Chrome and HTML timelines, the diff of two captures and what a kernel's name says.
 *
 * Uses only: base, capture, predict, course, grade (docs/grader-layers.md draws the floors).
 */
#ifndef WB_LAYER_SHOW_H
#define WB_LAYER_SHOW_H

#include "chrome_trace.h"
#include "kernel_names.h"
#include "report.h"
#include "summary.h"
#include "timeline_html.h"
#include "trace_diff.h"
#include "versions.h"

#endif
