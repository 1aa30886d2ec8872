/*
 * gradebook_report.h: the gradebook's report (gradebook_stats.h) written out: text that fits 80
 * columns, CSV (RFC 4180: CRLF rows, fields with a comma, quote or line break quoted, quotes
 * doubled; text that a spreadsheet would take for a formula, starting with = + - @, gets a leading
 * apostrophe), JSON (every figure; NAN as null) and one offline HTML page (gradebook_html.c).
 */
#ifndef WB_GRADEBOOK_REPORT_H
#define WB_GRADEBOOK_REPORT_H

#include "gradebook_stats.h"

#include <jansson.h>
#include <stdio.h>

/* CSV tables: one row per fact, per question, or per learner and lesson. */
typedef enum { WB_GB_TABLE_FACTS, WB_GB_TABLE_QUESTIONS, WB_GB_TABLE_LEARNERS } wb_gb_table;

void wb_gb_report_text(FILE *f, const wb_gb_report *r, int width);
void wb_gb_report_csv(FILE *f, const wb_gb_report *r, wb_gb_table table);
json_t *wb_gb_report_json(const wb_gb_report *r);
void wb_gb_report_html(FILE *f, const wb_gb_report *r);

/* The rule the discrimination index follows, in one sentence (every format states it). */
extern const char WB_GB_DISCRIMINATION_RULE[];

#endif
