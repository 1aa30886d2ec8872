/*
 * regex_limits.c: measures an extended regular expression the way glibc's regcomp will build it
 * (see regex_limits.h). A recursive descent over alternation, concatenation, pieces and atoms,
 * counting one part per atom, two per group, one per '|' and per '*', and multiplying a piece by
 * the copies its repetition makes: '+' two (a+ is aa*), {m} m, {m,n} n, {m,} m+1. Sizes saturate
 * at BIG, so no count overflows. Anything regcomp would reject is left for regcomp to report.
 */
#include "regex_limits.h"
#include "i18n.h"

#include <stdio.h>
#include <string.h>

#define BIG (1L << 30)

typedef struct {
    const char *p;
    int depth;
    char *why;
    size_t cap;
    int failed;
} scan;

static long saturate(long v) { return v > BIG ? BIG : v; }

static long refuse(scan *s, const char *msg) {
    if (!s->failed) snprintf(s->why, s->cap, "%s", msg);
    s->failed = 1;
    return 0;
}

/* [...]: a bracket expression is one part. Skips [:class:], [=x=] and [.x.] inside it. */
static void skip_bracket(scan *s) {
    s->p++; /* [ */
    if (*s->p == '^') s->p++;
    if (*s->p == ']') s->p++;
    while (*s->p && *s->p != ']') {
        if (s->p[0] == '[' && (s->p[1] == ':' || s->p[1] == '=' || s->p[1] == '.')) {
            char close = s->p[1];
            const char *end = s->p + 2;
            while (*end && !(end[0] == close && end[1] == ']')) end++;
            s->p = *end ? end + 2 : end;
            continue;
        }
        s->p++;
    }
    if (*s->p) s->p++; /* ] (an unterminated bracket is regcomp's error to report) */
}

/* A decimal number of at most 9 digits at s->p, or -1 when there is none. */
static long number(scan *s) {
    if (*s->p < '0' || *s->p > '9') return -1;
    long v = 0;
    int digits = 0;
    while (*s->p >= '0' && *s->p <= '9') {
        if (++digits <= 9) v = v * 10 + (*s->p - '0');
        s->p++;
    }
    return digits > 9 ? BIG : v;
}

/* {m}, {m,}, {m,n}, {,n}: the number of copies regcomp makes, or 0 after refusing. */
static long interval(scan *s) {
    const char *start = s->p++;
    long lo = number(s), hi = lo;
    if (*s->p == ',') {
        s->p++;
        hi = number(s);
        if (lo < 0) lo = 0;
        if (hi < 0) hi = -2; /* unbounded */
    }
    if (*s->p != '}' || (lo < 0 && hi < 0 && hi != -2)) {
        s->p = start + 1;
        return refuse(s, _("'{' begins a repetition count such as {2} or {1,3}; write \\{ for a literal brace"));
    }
    s->p++;
    if (lo > WB_REGEX_MAX_COUNT || hi > WB_REGEX_MAX_COUNT) {
        char msg[320];
        snprintf(msg, sizeof msg, _("a repetition count above %d (%.*s); write a smaller count or '+'"), WB_REGEX_MAX_COUNT,
                 (int)(s->p - start > 24 ? 24 : s->p - start), start);
        return refuse(s, msg);
    }
    if (hi == -2) return lo + 1;
    return hi > lo ? hi : lo;
}

static long alternation(scan *s);

/* One atom and its repetitions. */
static long piece(scan *s) {
    long size = 1;
    char c = *s->p;
    if (c == '(') {
        if (++s->depth > WB_REGEX_MAX_DEPTH) {
            char msg[192];
            snprintf(msg, sizeof msg, _("groups nested deeper than %d"), WB_REGEX_MAX_DEPTH);
            return refuse(s, msg);
        }
        s->p++;
        size = 2 + alternation(s);
        if (*s->p == ')') s->p++;
        s->depth--;
    } else if (c == '[') {
        skip_bracket(s);
    } else if (c == '\\') {
        if (s->p[1] >= '1' && s->p[1] <= '9')
            return refuse(s, _("back-references (\\1 to \\9) are not supported: they make matching exponential"));
        s->p += s->p[1] ? 2 : 1;
    } else {
        s->p++; /* a literal, '.', '^', '$', or a stray '*' '+' '?' '{' that regcomp judges */
    }
    for (int ops = 0;; ops++) {
        if (s->failed) return 0;
        c = *s->p;
        /* a**, a+*, a{2}? : POSIX leaves them undefined, and glibc nests them at a cost that the
         * part count does not see (a then 60 '*' and 4 '+', 991 parts: 0.3 s; 7 '+': 15 s, 640 MB) */
        if (ops > 0 && (c == '*' || c == '?' || c == '+' || c == '{'))
            return refuse(s, _("one repetition right after another (a**, a+?, a{2}*) is undefined in POSIX regexes; write one, "
                               "or group the first: (a{2})*"));
        if (c == '*' || c == '?') size = saturate(size + 1), s->p++;
        else if (c == '+') size = saturate(2 * size + 1), s->p++;
        else if (c == '{') size = saturate(size * interval(s) + 1);
        else break;
    }
    return size;
}

static long alternation(scan *s) {
    long size = 0;
    while (*s->p && !s->failed) {
        if (*s->p == ')' && s->depth > 0) break;
        if (*s->p == '|') {
            size = saturate(size + 1);
            s->p++;
            continue;
        }
        size = saturate(size + piece(s));
    }
    return size;
}

long wb_regex_size(const char *pattern, char *why, size_t cap) {
    if (strlen(pattern) > WB_REGEX_MAX_LENGTH) {
        snprintf(why, cap, _("the pattern is longer than %d characters"), WB_REGEX_MAX_LENGTH);
        return -1;
    }
    scan s = {pattern, 0, why, cap, 0};
    long size = 0;
    while (*s.p && !s.failed) {
        size = saturate(size + alternation(&s));
        if (*s.p == ')') s.p++; /* an unmatched ')': regcomp's to judge */
    }
    if (s.failed) return -1;
    if (size > WB_REGEX_MAX_SIZE) {
        if (size >= BIG)
            snprintf(why, cap, _("the pattern is too large once its repetitions are expanded (over %ld parts, at most %d): "
                                 "counts inside counts multiply; simplify it"), size, WB_REGEX_MAX_SIZE);
        else
            snprintf(why, cap, _("the pattern is too large once its repetitions are expanded (%ld parts, at most %d): "
                                 "counts inside counts multiply; simplify it"), size, WB_REGEX_MAX_SIZE);
        return -1;
    }
    return size;
}

int wb_regex_compile(const char *pattern, long *file_size, regex_t *out, char *why, size_t cap) {
    char reason[448];
    long size = wb_regex_size(pattern, reason, sizeof reason);
    if (size < 0) {
        snprintf(why, cap, _("is refused: %s (docs/limits.md)"), reason);
        return -1;
    }
    *file_size += size;
    if (*file_size > WB_REGEX_MAX_FILE_SIZE) {
        snprintf(why, cap, _("is refused: the regexes of this file add up to more than %d parts once their repetitions "
                   "are expanded; simplify them (docs/limits.md)"), WB_REGEX_MAX_FILE_SIZE);
        return -1;
    }
    int rc = regcomp(out, pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (rc != 0) {
        regerror(rc, out, reason, sizeof reason);
        snprintf(why, cap, _("is not a valid POSIX extended regex: %s"), reason);
        return -1;
    }
    return 0;
}
