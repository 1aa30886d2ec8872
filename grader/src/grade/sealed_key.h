/*
 * sealed_key.h: an answer key for a learner's copy of the course (grader release).
 *
 * expectations/NN_name.sealed.json replaces expectations/NN_name.yaml there. It keeps which
 * architectures were verified and on what, and no answer values: each question's explanation is
 * sealed (AES-256-GCM, OpenSSL) under a key derived (SHA-256, with a random salt) from the lesson,
 * the question, the architecture and the answer of each exact fact the question asks (counts,
 * names, bound; not times, which vary by run). grader check grades against the capture as
 * always, then opens an explanation with the values the capture showed: it opens only once the
 * learner's check has graded every exact fact of that question, and only when the capture agrees
 * with the verified answers.
 *
 * Threat model (docs/releasing.md): this keeps answers and explanations out of sight, not out of
 * reach. The counts are small numbers (a question's few facts can be guessed by trying them all),
 * and the recordings a learner replays hold every captured fact; a learner who wants to cheat
 * can. What it stops is reading the answers by accident, or by opening the key file.
 */
#ifndef WB_SEALED_KEY_H
#define WB_SEALED_KEY_H

#include "wb_predict.h"
#include "wb_base.h"
#include "grade.h"
#include "wb_course.h"

#include <stddef.h>

/* "<root>/expectations/<lesson>.sealed.json", root being the folder above lessons/. */
const char *wb_sealed_key_path(const char *lesson_dir, const char *lesson, char *buf, size_t cap);

/* Writes the sealed form of key (for lesson l) to path; refuses to replace a file. */
int wb_sealed_key_write(const wb_lesson *l, const wb_answer_key *key, const char *path, wb_error *err);

/* The explanations that open with what this grading captured (the capture of architecture arch),
 * as an answer key that holds explanations only (no architectures). *sealed counts those that
 * stayed sealed although their question was graded (the capture differs from the verified
 * answers). */
int wb_sealed_key_open(const char *path, const wb_lesson *l, const char *arch, const wb_grade *g, wb_answer_key *out,
                       size_t *sealed, wb_error *err);

#endif
