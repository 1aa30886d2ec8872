/*
 * term_clean.h: text from a capture or a lesson's output made safe for a terminal. Kernel and
 * range names come from the program that was profiled, and a name holding an escape sequence
 * (ESC [ 2 J, a title change, a hyperlink) must not act on the learner's terminal: control bytes
 * (C0, DEL and the C1 controls U+0080..U+009F) are shown as \xNN instead. Only text output is
 * cleaned; JSON output keeps names exact.
 */
#ifndef WB_TERM_CLEAN_H
#define WB_TERM_CLEAN_H

#include <stddef.h>

/* s with its control characters written as \xNN, into buf (cut to fit); returns buf. Tabs
 * become spaces. */
const char *wb_term_clean(const char *s, char *buf, size_t cap);

#endif
