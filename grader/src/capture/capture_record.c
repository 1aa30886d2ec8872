/* capture_record.c: see capture_record.h. */
#include "capture_record.h"

#include <string.h>

static int fast_on = 1;
void wb_record_fast_scan(int on) { fast_on = on; }
int wb_record_fast_scan_on(void) { return fast_on; }

static void space(const char *d, size_t len, size_t *p) {
    while (*p < len && (d[*p] == ' ' || d[*p] == '\n' || d[*p] == '\t' || d[*p] == '\r')) (*p)++;
}

/* An integer as JSON writes it (no leading zeros, no fraction or exponent) that fits a long long
 * (CUPTI's timestamps have 19 digits); anything larger is jansson's to judge. */
static int scan_int(const char *d, size_t len, size_t *p, long long *out) {
    size_t i = *p;
    int neg = i < len && d[i] == '-';
    if (neg) i++;
    size_t first = i;
    unsigned long long v = 0;
    while (i < len && d[i] >= '0' && d[i] <= '9' && i - first < 19) v = v * 10 + (unsigned)(d[i++] - '0');
    if (v > 9223372036854775807ULL) return 0;
    size_t digits = i - first;
    if (digits == 0 || (digits > 1 && d[first] == '0')) return 0;
    if (i < len && ((d[i] >= '0' && d[i] <= '9') || d[i] == '.' || d[i] == 'e' || d[i] == 'E')) return 0;
    *out = neg ? -(long long)v : (long long)v;
    *p = i;
    return 1;
}

/* A string of printable ASCII without escapes; s points past the opening quote. */
static int scan_str(const char *d, size_t len, size_t *p, const char **s, size_t *n) {
    size_t i = *p;
    if (i >= len || d[i] != '"') return 0;
    size_t start = ++i;
    while (i < len && d[i] != '"') {
        unsigned char c = (unsigned char)d[i];
        if (c < 0x20 || c >= 0x7F || c == '\\') return 0;
        i++;
    }
    if (i >= len) return 0;
    *s = d + start;
    *n = i - start;
    *p = i + 1;
    return 1;
}

static int word(const char *d, size_t len, size_t *p, const char *w) {
    size_t n = strlen(w);
    if (*p + n > len || strncmp(d + *p, w, n)) return 0;
    *p += n;
    return 1;
}

static int scan_value(const char *d, size_t len, size_t *p, wb_val *v) {
    memset(v, 0, sizeof *v);
    if (*p >= len) return 0;
    char c = d[*p];
    if (c == '"') return v->kind = WB_V_STR, scan_str(d, len, p, &v->s, &v->n);
    if (c == '-' || (c >= '0' && c <= '9')) return v->kind = WB_V_INT, scan_int(d, len, p, &v->i);
    if (c == 'n') return v->kind = WB_V_NULL, word(d, len, p, "null");
    if (c == 't') return v->kind = WB_V_TRUE, word(d, len, p, "true");
    if (c == 'f') return v->kind = WB_V_FALSE, word(d, len, p, "false");
    if (c != '[') return 0;
    /* exactly three integers */
    (*p)++;
    for (int k = 0; k < 3; k++) {
        long long x;
        space(d, len, p);
        if (!scan_int(d, len, p, &x) || x < -2147483647LL || x > 2147483647LL) return 0;
        v->t[k] = (int)x;
        space(d, len, p);
        if (*p >= len || d[*p] != (k < 2 ? ',' : ']')) return 0;
        (*p)++;
    }
    v->kind = WB_V_TRIPLE;
    return 1;
}

int wb_record_scan(const char *d, size_t len, size_t *pos, wb_fast_record *out) {
    if (!fast_on) return 0;
    size_t p = *pos;
    out->n = 0;
    space(d, len, &p);
    if (p >= len || d[p] != '{') return 0;
    p++;
    space(d, len, &p);
    if (p < len && d[p] == '}') return 0; /* empty: let jansson (and the field checks) say what is missing */
    for (;;) {
        if (out->n == WB_RECORD_MAX_FIELDS) return 0;
        int k = out->n;
        space(d, len, &p);
        if (!scan_str(d, len, &p, &out->key[k], &out->key_len[k])) return 0;
        for (int j = 0; j < k; j++) /* a duplicate key: jansson reports it */
            if (out->key_len[j] == out->key_len[k] && !memcmp(out->key[j], out->key[k], out->key_len[k])) return 0;
        space(d, len, &p);
        if (p >= len || d[p] != ':') return 0;
        p++;
        space(d, len, &p);
        if (!scan_value(d, len, &p, &out->val[k])) return 0;
        out->n++;
        space(d, len, &p);
        if (p >= len) return 0;
        if (d[p] == '}') break;
        if (d[p] != ',') return 0;
        p++;
    }
    *pos = p + 1;
    return 1;
}

int wb_record_is_object(const wb_record *r) { return r->fast || json_is_object(r->json); }

wb_val wb_record_get(const wb_record *r, const char *key) {
    wb_val v = {WB_V_MISSING, 0, NULL, 0, {0, 0, 0}};
    if (r->fast) {
        size_t n = strlen(key);
        for (int i = 0; i < r->fast->n; i++)
            if (r->fast->key_len[i] == n && !memcmp(r->fast->key[i], key, n)) return r->fast->val[i];
        return v;
    }
    json_t *j = json_object_get(r->json, key);
    if (!j) return v;
    if (json_is_integer(j)) v.kind = WB_V_INT, v.i = (long long)json_integer_value(j);
    else if (json_is_string(j)) v.kind = WB_V_STR, v.s = json_string_value(j), v.n = json_string_length(j);
    else if (json_is_null(j)) v.kind = WB_V_NULL;
    else if (json_is_true(j)) v.kind = WB_V_TRUE;
    else if (json_is_false(j)) v.kind = WB_V_FALSE;
    else if (json_is_array(j) && json_array_size(j) == 3 && json_is_integer(json_array_get(j, 0)) &&
             json_is_integer(json_array_get(j, 1)) && json_is_integer(json_array_get(j, 2))) {
        v.kind = WB_V_TRIPLE;
        for (int k = 0; k < 3; k++) v.t[k] = (int)json_integer_value(json_array_get(j, (size_t)k));
    } else {
        v.kind = WB_V_OTHER;
    }
    return v;
}

int wb_val_is(const wb_val *v, const char *lit) {
    return v->kind == WB_V_STR && v->n == strlen(lit) && !memcmp(v->s, lit, v->n);
}
