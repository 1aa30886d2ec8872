/* facts_time.c: gpu_us, wall_us and bound. They are not counted per occurrence: grade.c takes
 * them from the range's times (range_times.h) and the bound rule (time_facts.h). */
#include "fact_family.h"

#include <stdio.h>

void wb_describe_gpu_us(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("GPU time of the work launched in range '%s', in microseconds"), range);
}

void wb_describe_wall_us(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("host time from the start of range '%s' to its end, in microseconds"), range);
}

void wb_describe_bound(const wb_fact *f, const char *range, char *buf, size_t cap) {
    snprintf(buf, cap, _("where range '%s' spends its time: overhead (1), memory (2) or compute (3)"), range);
}
