/* facts_streams.c: streams (distinct streams of a range's GPU work) and overlap_us (time with two
 * or more of its operations at once), measured by overlap.h. */
#include "fact_family.h"

#include <stdio.h>

long wb_count_streams(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) { return wb_occurrence_streams(c, o); }

long wb_count_overlap_us(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) {
    int64_t ns = wb_occurrence_overlap_ns(c, o);
    return ns < 0 ? -1 : (long)((ns + 500) / 1000); /* whole microseconds, rounded */
}

void wb_describe_streams(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("distinct streams the GPU work of range '%s' ran on"), range);
}

void wb_describe_overlap_us(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("microseconds with two or more GPU operations of range '%s' at once"), range);
}
