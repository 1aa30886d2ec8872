/*
 * facts.h: the value of a count fact (kernels, gemms, api_calls, memcpys, ...) in one occurrence
 * of its range (the occurrences and what belongs to them: occurrences.h, in the capture layer).
 */
#ifndef WB_FACTS_H
#define WB_FACTS_H

#include "wb_capture.h"
#include "wb_predict.h"

/* The value of one count fact in one occurrence (time facts and bound: time_facts.h). */
long wb_count_fact(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);

#endif
