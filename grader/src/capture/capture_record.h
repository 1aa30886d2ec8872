/*
 * capture_record.h: one record of a capture's lists (an API call, a kernel, a range, ...), read
 * as fast as the file allows.
 *
 * Almost every record the capture library writes is a flat object of plain values: integers,
 * ASCII strings without escapes, null, true, false, and lists of three integers. Such a record is
 * scanned here in place, without building a JSON tree (jansson costs ~40 allocations a record;
 * a 200 MB capture holds 800,000 records, and their trees were 80% of its load time). Anything
 * else (an escape, a non-ASCII byte, a fraction, a nested object, a duplicate key, a syntax
 * error) is left to jansson, which reads it or reports the error with its position: the scan
 * accepts only what jansson would read the same way, and test_capture_reader checks that both
 * give the same capture.
 */
#ifndef WB_CAPTURE_RECORD_H
#define WB_CAPTURE_RECORD_H

#include <jansson.h>
#include <stddef.h>

typedef enum { WB_V_MISSING, WB_V_INT, WB_V_STR, WB_V_NULL, WB_V_TRUE, WB_V_FALSE, WB_V_TRIPLE, WB_V_OTHER } wb_vkind;

typedef struct {
    wb_vkind kind;
    long long i;         /* WB_V_INT */
    const char *s;       /* WB_V_STR: not NUL-terminated */
    size_t n;
    int t[3];            /* WB_V_TRIPLE */
} wb_val;

#define WB_RECORD_MAX_FIELDS 32

typedef struct {
    const char *key[WB_RECORD_MAX_FIELDS];
    size_t key_len[WB_RECORD_MAX_FIELDS];
    wb_val val[WB_RECORD_MAX_FIELDS];
    int n;
} wb_fast_record;

/* A record read either way. */
typedef struct {
    json_t *json;                /* read by jansson, or NULL */
    const wb_fast_record *fast;  /* scanned in place, or NULL */
} wb_record;

/* Scans the flat object at data[*pos]; 1 with *pos past it, or 0 (pos unchanged) when jansson
 * must read it. */
int wb_record_scan(const char *data, size_t length, size_t *pos, wb_fast_record *out);

/* Test switch: 0 makes every record go through jansson (to compare both ways). */
void wb_record_fast_scan(int on);
int wb_record_fast_scan_on(void);

int wb_record_is_object(const wb_record *r);
wb_val wb_record_get(const wb_record *r, const char *key);
/* A string value equal to lit. */
int wb_val_is(const wb_val *v, const char *lit);

#endif
