/* term_clean.c: see term_clean.h. */
#include "term_clean.h"

#include <stdio.h>

const char *wb_term_clean(const char *s, char *buf, size_t cap) {
    size_t o = 0;
    if (cap == 0) return buf;
    for (const unsigned char *p = (const unsigned char *)s; *p && o + 1 < cap; p++) {
        unsigned c = *p;
        unsigned c1 = c == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F ? p[1] : 0; /* a C1 control in UTF-8 */
        if (c == '\t') {
            buf[o++] = ' ';
        } else if (c < 0x20 || c == 0x7F || c1) {
            if (o + 5 > cap) break;
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02X", c1 ? c1 : c);
            if (c1) p++;
        } else {
            buf[o++] = (char)c;
        }
    }
    buf[o] = '\0';
    return buf;
}
