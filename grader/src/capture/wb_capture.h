/*
 * wb_capture.h: the public header of the grader's capture layer, the one header of
 * grader/src/capture/ that the layers above include. What a lesson run captured: reading captures
 * and recordings (capture.h), merging the ranks of a multi-process run, writing a recording,
 * launching a lesson program under CUPTI, which kernels are matrix multiplies, which work belongs
 * to each occurrence of an NVTX range (occurrences.h), its streams, overlap and copies (overlap.h)
 * and its times (range_times.h).
 *
 * Uses only: base (docs/grader-layers.md draws the floors). Private to the layer, not included
 * here: capture_record.h.
 */
#ifndef WB_LAYER_CAPTURE_H
#define WB_LAYER_CAPTURE_H

#include "capture.h"
#include "capture_merge.h"
#include "gemm_families.h"
#include "occurrences.h"
#include "overlap.h"
#include "python_probe.h"
#include "range_times.h"
#include "run_lesson.h"

#endif
