/*
 * regex_limits.h: the bounds a `re:` pattern (kernels_named keys, in predictions, answer keys and
 * lesson.yaml alike) must keep before glibc's regcomp sees it (docs/predictions.md, "Limits").
 *
 * regcomp expands a counted repetition by copying its operand: ((a{255}){255}){255} becomes
 * 16.6 million parts, and its epsilon-closure tables grow with the square of the parts (3 GB and
 * 10 s measured for such a key). Back-references make matching exponential. So a pattern is
 * measured first, by its length, its group nesting, its repetition counts and its size once every
 * count is expanded, and refused with a message when one is over. Measured here (2 cores):
 * the worst pattern within the limits, (a?){1000}, compiles in 0.2 s and 9 MB.
 */
#ifndef WB_REGEX_LIMITS_H
#define WB_REGEX_LIMITS_H

#include <regex.h>
#include <stddef.h>

#define WB_REGEX_MAX_LENGTH 256    /* bytes of pattern */
#define WB_REGEX_MAX_DEPTH 16      /* groups inside groups */
#define WB_REGEX_MAX_COUNT 255     /* the largest count in {m} or {m,n} */
#define WB_REGEX_MAX_SIZE 1000     /* parts once every repetition is expanded, per pattern */
#define WB_REGEX_MAX_FILE_SIZE 4000 /* the same summed over the patterns of one file */

/* The expanded size of an extended (ERE) pattern, or -1 with the reason in why ("back-references
 * (\1 to \9) are not supported ..."), when it breaks one of the limits above. A pattern this
 * accepts may still be invalid: regcomp says so. */
long wb_regex_size(const char *pattern, char *why, size_t cap);

/* Measures pattern, adds its size to *file_size (the sum over one file, WB_REGEX_MAX_FILE_SIZE)
 * and compiles it as kernels_named matches it: extended, case-insensitive, match or no match.
 * 0, or -1 with why completing "the regex 'P' ...": "is refused: ..." or "is not a valid ...". */
int wb_regex_compile(const char *pattern, long *file_size, regex_t *out, char *why, size_t cap);

#endif
