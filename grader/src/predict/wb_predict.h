/*
 * wb_predict.h: the public header of the grader's predict layer, the one header of
 * grader/src/predict/ that the layers above include. The learner's predictions and the
 * instructors' answer keys: their schema, read from YAML, the table of fact kinds (fact_kinds.h),
 * and the crash-safe save of answers typed at the prompt.
 *
 * Uses only: base, capture (docs/grader-layers.md draws the floors). Private to the layer, not
 * included here: fact_family.h.
 */
#ifndef WB_LAYER_PREDICT_H
#define WB_LAYER_PREDICT_H

#include "answer_key.h"
#include "fact_kinds.h"
#include "fact_kinds.h"
#include "predictions.h"
#include "predictions_edit.h"
#include "translation.h"

#endif
