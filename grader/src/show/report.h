/*
 * report.h: the grading report, as text for people or as one JSON object (--format json) for
 * tools. Both carry the same facts: right or wrong, predicted and actual, each occurrence's value
 * where they differ, and the score.
 */
#ifndef WB_REPORT_H
#define WB_REPORT_H

#include "wb_predict.h"
#include "wb_capture.h"
#include "wb_grade.h"

#include <jansson.h>
#include <stdio.h>

typedef struct {
    const char *lesson;
    const char *source;            /* "live" or "replay" */
    const wb_recording *recording; /* what was graded */
    const wb_answer_key *key;      /* explanations; may be NULL */
    const wb_lesson *lesson_yaml;  /* its work declarations, for the time table; may be NULL */
    const char *versions_differ;   /* live: what differs from the answer key's recording (versions.h); NULL or "" */
} wb_report_context;

/* "13.0" from 13000 */
const char *wb_cuda_version_string(long long v, char *buf, size_t cap);

/* One line: "NVIDIA H200 (sm_90), driver 13.0, CUDA runtime 13.0, cuBLAS 13.1.0". */
const char *wb_capture_describe(const wb_capture *c, char *buf, size_t cap);

void wb_report_text(FILE *f, const wb_report_context *ctx, const wb_grade *g);
/* After grading: per range with declared work in the graded variants, the floor time (the larger
 * of FLOPs over the matrix rate and bytes over the copy bandwidth), the measured GPU time (median
 * over occurrences), their ratio, the achieved TFLOP/s and TB/s, and the bound. Part of
 * wb_report_text and (as "work") of wb_report_json. */
void wb_report_work_text(FILE *f, const wb_report_context *ctx, const wb_grade *g);
json_t *wb_report_json(const wb_report_context *ctx, const wb_grade *g);

/* --format json promises one JSON object on stdout, failures included:
 * {"error": {"exit_code": N, "message": "..."}}. */
void wb_report_json_error(FILE *f, int exit_code, const char *message);

#endif
