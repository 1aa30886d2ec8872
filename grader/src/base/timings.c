/* timings.c: see timings.h. */
#define _GNU_SOURCE
#include "timings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_BOOTTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* When the kernel started this process, on the boot clock: /proc/self/stat's field 22, in clock
 * ticks since boot. Negative when it cannot be read. */
static double process_start_s(void) {
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return -1;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p) return -1;
    unsigned long long start = 0;
    int field = 2;
    for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " "))
        if (++field == 22) {
            start = strtoull(tok, NULL, 10);
            break;
        }
    long hz = sysconf(_SC_CLK_TCK);
    return field == 22 && hz > 0 ? (double)start / (double)hz : -1;
}

int wb_timings_on(void) {
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("WB_TIMINGS");
        on = v && *v && strcmp(v, "0") != 0;
    }
    return on;
}

void wb_timing_mark(const char *phase) {
    if (!wb_timings_on()) return;
    static double start = -2, last;
    fflush(stdout); /* the marks land among what has been printed so far */
    double t = now_s();
    if (start == -2) {
        start = process_start_s();
        last = start >= 0 ? start : t;
        if (start < 0) start = t;
    }
    fprintf(stderr, "timing: %-34s +%7.3f s  (%7.3f s since exec)\n", phase, t - last, t - start);
    last = t;
}
