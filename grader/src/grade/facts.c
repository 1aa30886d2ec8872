/* facts.c: the value of a count fact in one occurrence (facts.h). */
#include "facts.h"
#include "wb_capture.h"

long wb_count_fact(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) {
    const wb_fact_kind_info *k = wb_fact_kind_get(f->kind);
    return k->count ? k->count(c, o, f) : 0; /* time facts and bound are not counts: time_facts.h */
}
