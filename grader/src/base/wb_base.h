/*
 * wb_base.h: the public header of the grader's base layer, the one header of grader/src/base/ that
 * the layers above include. The helpers every floor of the grader uses: errors and exit codes,
 * bounded file reading, paths, the terminal and text that fits it, YAML documents and the lines of
 * a YAML file, regular expressions under limits, JSON streaming, work expressions and the pieces
 * of option handling, and the language of messages (gettext).
 *
 * Uses only: nothing of the grader (docs/grader-layers.md draws the floors).
 */
#ifndef WB_LAYER_BASE_H
#define WB_LAYER_BASE_H

#include "cli.h"
#include "device.h"
#include "error.h"
#include "i18n.h"
#include "json_stream.h"
#include "kill_point.h"
#include "paths.h"
#include "read_file.h"
#include "regex_limits.h"
#include "term.h"
#include "term_clean.h"
#include "text_fit.h"
#include "timings.h"
#include "work_expr.h"
#include "yaml_doc.h"
#include "yaml_lines.h"

#endif
