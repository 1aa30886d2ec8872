/*
 * fact_family.h: the functions of each family of fact kinds, for the table in fact_kinds.c.
 * Private to the predict layer: the layers above reach them through wb_fact_kinds().
 */
#ifndef WB_FACT_FAMILY_H
#define WB_FACT_FAMILY_H

#include "fact_kinds.h"

/* facts_kernels.c: kernels, gemms, kernels_named */
long wb_count_kernels(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
long wb_count_gemms(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
long wb_count_kernels_named(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
void wb_describe_kernels(const wb_fact *f, const char *range, char *buf, size_t cap);
void wb_describe_gemms(const wb_fact *f, const char *range, char *buf, size_t cap);
void wb_describe_kernels_named(const wb_fact *f, const char *range, char *buf, size_t cap);
int wb_ready_kernel_key(wb_fact *f, long *regex_budget, char *why, size_t cap);

/* facts_api.c: api_calls */
int wb_check_api_key(const char *key, char *why, size_t cap);
long wb_count_api_calls(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
void wb_describe_api_calls(const wb_fact *f, const char *range, char *buf, size_t cap);
int wb_api_in_source(const char *key, const char *source);
int wb_api_in_capture(const char *key, const wb_capture *c);

/* facts_copies.c: memsets, memcpys, memcpys_named */
long wb_count_memsets(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
long wb_count_memcpys(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
long wb_count_memcpys_named(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
void wb_describe_memsets(const wb_fact *f, const char *range, char *buf, size_t cap);
void wb_describe_memcpys(const wb_fact *f, const char *range, char *buf, size_t cap);
void wb_describe_memcpys_named(const wb_fact *f, const char *range, char *buf, size_t cap);

/* facts_streams.c: streams, overlap_us */
long wb_count_streams(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
long wb_count_overlap_us(const wb_capture *c, const wb_occurrence *o, const wb_fact *f);
void wb_describe_streams(const wb_fact *f, const char *range, char *buf, size_t cap);
void wb_describe_overlap_us(const wb_fact *f, const char *range, char *buf, size_t cap);

/* facts_time.c: gpu_us, wall_us, bound (and wb_fact_bound_value, fact_kinds.h) */
double wb_gpu_time_of(double gpu_us, double wall_us);
double wb_wall_time_of(double gpu_us, double wall_us);
void wb_describe_gpu_us(const wb_fact *f, const char *range, char *buf, size_t cap);
void wb_describe_wall_us(const wb_fact *f, const char *range, char *buf, size_t cap);
void wb_describe_bound(const wb_fact *f, const char *range, char *buf, size_t cap);

#endif
