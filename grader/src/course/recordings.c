/* recordings.c: see recordings.h. */
#define _GNU_SOURCE
#include "recordings.h"
#include "wb_capture.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

int wb_find_recording(const wb_lesson *lesson, const char *arch, char *path, size_t cap, wb_error *err) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/traces", lesson->dir);
    if (arch) {
        snprintf(path, cap, "%s/%s.json", dir, arch);
        if (wb_file_exists(path)) return 0;
    }
    DIR *d = opendir(dir);
    char best[4096] = "", best_when[64] = "";
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        char candidate[4400];
        snprintf(candidate, sizeof candidate, "%s/%s", dir, e->d_name);
        char when[64];
        if (wb_recording_recorded_at(candidate, when, sizeof when) == 0 && strcmp(when, best_when) > 0) {
            snprintf(best_when, sizeof best_when, "%s", when);
            snprintf(best, sizeof best, "%s", candidate);
        }
    }
    if (d) closedir(d);
    if (!best[0])
        return wb_fail(err, WB_EXIT_CAPTURE, _("%s: no recording to replay (no traces/*.json) and no GPU to capture live. Record one on a "
                       "GPU machine with: grader record %s"), dir, lesson->dir);
    snprintf(path, cap, "%s", best);
    return 0;
}
