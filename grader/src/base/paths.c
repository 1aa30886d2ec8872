/* paths.c: see paths.h. */
#define _GNU_SOURCE
#include "paths.h"
#include "i18n.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int wb_file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int wb_is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int wb_exists_not_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

int wb_exe_dir(char *buf, size_t cap) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = '\0';
    snprintf(buf, cap, "%s", dirname(exe));
    return 0;
}

int wb_find_capture_library(char *buf, size_t cap, wb_error *err) {
    const char *env = getenv("WB_CAPTURE_LIBRARY");
    if (env && *env) {
        if (wb_file_exists(env)) return snprintf(buf, cap, "%s", env), 0;
        return wb_fail(err, WB_EXIT_CAPTURE, _("WB_CAPTURE_LIBRARY=%s: no such file; unset it or point it at libwb_capture.so"), env);
    }
    char dir[4096];
    if (wb_exe_dir(dir, sizeof dir) == 0) {
        snprintf(buf, cap, "%s/../lib/libwb_capture.so", dir);
        if (wb_file_exists(buf)) return 0;
        snprintf(buf, cap, "%s/libwb_capture.so", dir);
        if (wb_file_exists(buf)) return 0;
    }
    return wb_fail(err, WB_EXIT_CAPTURE, "%s", _("cannot find libwb_capture.so next to the grader (build/lib/); rebuild with "
                                               "cmake --build build, or set WB_CAPTURE_LIBRARY"));
}

/* The real path of a library the dynamic loader finds by name, or -1. */
static int loader_path(const char *soname, char *buf, size_t cap) {
    void *h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (!h) return -1;
    struct link_map *map = NULL;
    int rc = -1;
    if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) {
        char *real = realpath(map->l_name, NULL);
        if (real) {
            snprintf(buf, cap, "%s", real);
            free(real);
            rc = 0;
        }
    }
    dlclose(h);
    return rc;
}

int wb_find_cupti_library(char *buf, size_t cap, wb_error *err) {
    const char *env = getenv("WB_CUPTI_LIBRARY");
    if (env && *env) {
        if (wb_file_exists(env)) return snprintf(buf, cap, "%s", env), 0;
        return wb_fail(err, WB_EXIT_CAPTURE, _("WB_CUPTI_LIBRARY=%s: no such file"), env);
    }
#ifdef WB_CUPTI_BUILD_PATH
    if (wb_file_exists(WB_CUPTI_BUILD_PATH)) {
        char *real = realpath(WB_CUPTI_BUILD_PATH, NULL);
        if (real) {
            snprintf(buf, cap, "%s", real);
            free(real);
            return 0;
        }
    }
#endif
    static const char *const sonames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};
    for (size_t i = 0; i < sizeof sonames / sizeof sonames[0]; i++)
        if (loader_path(sonames[i], buf, cap) == 0) return 0;
    static const char *const candidates[] = {
        "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so",
        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
        "/usr/local/cuda/lib64/libcupti.so",
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (wb_file_exists(candidates[i])) {
            char *real = realpath(candidates[i], NULL);
            snprintf(buf, cap, "%s", real ? real : candidates[i]);
            free(real);
            return 0;
        }
    return wb_fail(err, WB_EXIT_CAPTURE, "%s", _("cannot find libcupti.so (CUDA's profiling library). Install the CUDA toolkit's "
                                               "CUPTI, or set WB_CUPTI_LIBRARY to its path (docs/troubleshooting.md)"));
}

int wb_find_lesson_binary(const char *binary, char *buf, size_t cap, wb_error *err) {
    char dir[4096];
    const char *env = getenv("WB_BIN_DIR");
    if (env && *env) snprintf(dir, sizeof dir, "%s", env);
    else if (wb_exe_dir(dir, sizeof dir) != 0) return wb_fail(err, WB_EXIT_CAPTURE, "%s", _("cannot locate the grader's own folder"));
    snprintf(buf, cap, "%s/%s", dir, binary);
    if (access(buf, X_OK) == 0) return 0;
    if (access(buf, F_OK) == 0)
        return wb_fail(err, WB_EXIT_CAPTURE, _("%s: the lesson program is there but is not executable (%s). Make it "
                         "executable (chmod +x) or rebuild it: cmake --build build"), buf, strerror(errno));
    return wb_fail(err, WB_EXIT_CAPTURE, _("%s: the lesson program is not built. Run: cmake --build build"), buf);
}

const char *wb_root_dir(const char *lesson_dir, char *buf, size_t cap) {
    char *real = realpath(lesson_dir, NULL);
    if (!real) {
        snprintf(buf, cap, "%s/../..", lesson_dir);
        return buf;
    }
    char *parent = dirname(real); /* .../lessons */
    snprintf(buf, cap, "%s", dirname(parent));
    free(real);
    return buf;
}

int wb_mkdir_p(const char *path) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int wb_state_dir(const char *root, char *buf, size_t cap, wb_error *err) {
    const char *env = getenv("WB_STATE_DIR");
    if (env && *env) snprintf(buf, cap, "%s", env);
    else snprintf(buf, cap, "%s/.workbench", root);
    if (wb_mkdir_p(buf) != 0)
        return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot create the grader's state folder: %s (set WB_STATE_DIR to a writable "
                         "folder)"), buf, strerror(errno));
    return 0;
}

void wb_utc_now(char *iso, size_t iso_cap, char *stamp, size_t stamp_cap) {
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    if (iso) strftime(iso, iso_cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (stamp) strftime(stamp, stamp_cap, "%Y%m%d-%H%M%S", &tm);
}
