/*
 * timings.h: where a grader command's wall time goes. With WB_TIMINGS=1 in the environment each
 * phase mark prints one line to stderr, `timing: PHASE  +S.SSS s  (T.TTT s since exec)`, the
 * seconds since the previous mark and since the process was started by the kernel (so the first
 * mark includes the program's loading). Unset, a mark costs one getenv on first use. The variable
 * reaches the lesson programs too, whose capture library reports its own start and write.
 */
#ifndef WB_TIMINGS_H
#define WB_TIMINGS_H

/* Prints the phase that just ended, when WB_TIMINGS is set and not "0". */
void wb_timing_mark(const char *phase);

/* 1 when WB_TIMINGS asks for the marks. */
int wb_timings_on(void);

#endif
