/*
 * wb_course.h: the public header of the grader's course layer, the one header of
 * grader/src/course/ that the layers above include. The course around the captures: a lesson's
 * lesson.yaml, the course's lessons and how a learner names one, the learner's files and progress,
 * consent to reveal, hints, templates, new lessons, a lesson's recordings, and acquiring a capture
 * of a lesson, live or recorded.
 *
 * Uses only: base, capture, predict (docs/grader-layers.md draws the floors).
 */
#ifndef WB_LAYER_COURSE_H
#define WB_LAYER_COURSE_H

#include "acquire.h"
#include "calibration_cache.h"
#include "consent.h"
#include "course.h"
#include "course_identity.h"
#include "course_status.h"
#include "hints.h"
#include "learner_files.h"
#include "lesson.h"
#include "lesson_parts.h"
#include "lesson_ref.h"
#include "new_lesson.h"
#include "progress.h"
#include "recordings.h"
#include "template.h"

#endif
