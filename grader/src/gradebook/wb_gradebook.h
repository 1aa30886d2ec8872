/*
 * wb_gradebook.h: the public header of the grader's gradebook layer, the one header of
 * grader/src/gradebook/ that the commands include. An instructor's cohort: learners' submissions
 * (submission.h), regraded against the course's files (regrade.h), stored in a SQLite gradebook
 * (gradebook_db.h, gradebook_import.h) and reported per question (gradebook_stats.h,
 * gradebook_report.h). docs/gradebook.md is the guide.
 *
 * Uses only: base, capture, predict, course, grade, show (docs/grader-layers.md draws the floors).
 */
#ifndef WB_LAYER_GRADEBOOK_H
#define WB_LAYER_GRADEBOOK_H

#include "gradebook_db.h"
#include "gradebook_import.h"
#include "gradebook_report.h"
#include "gradebook_stats.h"
#include "regrade.h"
#include "submission.h"

#endif
