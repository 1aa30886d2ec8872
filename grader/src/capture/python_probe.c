/* python_probe.c: see python_probe.h. */
#define _GNU_SOURCE
#include "python_probe.h"
#include "wb_base.h"
#include "run_lesson.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROBE_MARK "WB_PYTHON_PROBE "
#define PROBE_TIMEOUT_S 120 /* importing torch takes 2-10 s on a cold disk */

/* One line of JSON after the mark; an import failure is an answer too, with its exception. */
static const char PROBE_CODE[] =
    "import json\n"
    "a = {}\n"
    "try:\n"
    "    import torch\n"
    "    a['torch'] = torch.__version__\n"
    "    a['torch_cuda'] = torch.version.cuda or ''\n"
    "    a['cuda'] = bool(torch.cuda.is_available())\n"
    "except Exception as e:\n"
    "    a['error'] = 'import torch failed: %s: %s' % (type(e).__name__, e)\n"
    "try:\n"
    "    import triton\n"
    "    a['triton'] = triton.__version__\n"
    "except Exception:\n"
    "    pass\n"
    "print('" PROBE_MARK "' + json.dumps(a), flush=True)\n";

int wb_find_python(char *buf, size_t cap) {
    const char *name = getenv("WB_PYTHON");
    if (!name || !*name) name = "python3";
    if (strchr(name, '/')) {
        snprintf(buf, cap, "%s", name);
        return access(name, X_OK) == 0 ? 0 : -1;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        snprintf(buf, cap, "%.*s/%s", (int)len, len ? p : ".", name);
        if (access(buf, X_OK) == 0 && wb_file_exists(buf)) return 0;
        p += len + (p[len] == ':');
    }
    snprintf(buf, cap, "%s", name);
    return -1;
}

static void copy_string(json_t *o, const char *key, char *buf, size_t cap) {
    const char *s = json_string_value(json_object_get(o, key));
    snprintf(buf, cap, "%s", s ? s : "");
}

int wb_python_probe_parse(const char *output, wb_python_info *info) {
    const char *line = output ? strstr(output, PROBE_MARK) : NULL;
    if (!line) return -1;
    line += strlen(PROBE_MARK);
    json_t *a = json_loadb(line, strcspn(line, "\n"), 0, NULL);
    if (!json_is_object(a)) {
        json_decref(a);
        return -1;
    }
    copy_string(a, "torch", info->torch, sizeof info->torch);
    copy_string(a, "torch_cuda", info->torch_cuda, sizeof info->torch_cuda);
    copy_string(a, "triton", info->triton, sizeof info->triton);
    const char *error = json_string_value(json_object_get(a, "error"));
    info->usable = 0;
    /* error: the exception as Python said it, in Python's words */
    if (error) snprintf(info->why, sizeof info->why, _("%s (with %s)"), error, info->python);
    else if (!json_is_true(json_object_get(a, "cuda")))
        snprintf(info->why, sizeof info->why,
                 info->torch_cuda[0] ? _("PyTorch %s (%s) sees no CUDA device: torch.cuda.is_available() is False")
                                     : _("PyTorch %s (%s) sees no CUDA device: torch.cuda.is_available() is False (a CPU-only "
                                         "build of PyTorch)"),
                 info->torch, info->python);
    else info->usable = 1;
    json_decref(a);
    return 0;
}

/* The last non-empty line of text, cut to fit. */
static void last_line(const char *text, char *buf, size_t cap) {
    buf[0] = '\0';
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        if (len) snprintf(buf, cap, "%.*s", (int)(len < 300 ? len : 300), p);
        p += len + (p[len] == '\n');
    }
}

const wb_python_info *wb_python_probe(const char *log_dir) {
    static wb_python_info info;
    static int asked;
    if (asked) return &info;
    asked = 1;
    memset(&info, 0, sizeof info);
    if (wb_find_python(info.python, sizeof info.python) != 0) {
        snprintf(info.why, sizeof info.why, _("no Python interpreter: %s is not on PATH (WB_PYTHON names another)"), info.python);
        info.python[0] = '\0';
        return &info;
    }
    char log[4200];
    snprintf(log, sizeof log, "%s/python-probe.log", log_dir);
    char *args[] = {"-c", (char *)PROBE_CODE};
    wb_launch launch = {info.python, args, 2, NULL, log, NULL, NULL, PROBE_TIMEOUT_S};
    wb_launch_result res;
    wb_error err = {0};
    if (wb_launch_lesson(&launch, &res, &err)) {
        snprintf(info.why, sizeof info.why, "%s", err.message);
        return &info;
    }
    char *text = NULL;
    size_t n = 0;
    wb_error read_err = {0};
    (void)wb_read_file(log, N_("the Python probe's output"), 1 << 20, &text, &n, &read_err);
    if (wb_python_probe_parse(text, &info) != 0) {
        char tail[320];
        last_line(text, tail, sizeof tail);
        /* how it ended: a sentence each, so that a translation can word each its own way */
        snprintf(info.why, sizeof info.why,
                 res.timed_out          ? _("%s timed out without saying whether it has PyTorch%s%s (its output: %s)")
                 : res.exit_code == 127 ? _("%s could not be started without saying whether it has PyTorch%s%s (its output: %s)")
                                        : _("%s ended without saying whether it has PyTorch%s%s (its output: %s)"),
                 info.python, tail[0] ? ": " : "", tail, log);
    }
    free(text);
    return &info;
}
