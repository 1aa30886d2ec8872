/*
 * wb_grade.h: the public header of the grader's grade layer, the one header of grader/src/grade/
 * that the layers above include. Grading: the value of each fact in a capture (facts.h,
 * time_facts.h), predictions graded against it (grade.h), sealed answer keys, and the lint that
 * grades a lesson's own key against its recording.
 *
 * Uses only: base, capture, predict, course (docs/grader-layers.md draws the floors).
 */
#ifndef WB_LAYER_GRADE_H
#define WB_LAYER_GRADE_H

#include "facts.h"
#include "grade.h"
#include "lint.h"
#include "sealed_key.h"
#include "time_facts.h"

#endif
