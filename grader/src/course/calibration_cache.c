/* calibration_cache.c: see calibration_cache.h. */
#define _GNU_SOURCE
#include "calibration_cache.h"
#include "wb_base.h"

#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CACHE_FORMAT "gpu-workbench-calibration-cache"

int wb_sha256_file(const char *path, char *hex, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || cap < 65) {
        if (fd >= 0) close(fd);
        return -1;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
    unsigned char buf[1 << 16], md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    ssize_t n = 0;
    while (ok && (n = read(fd, buf, sizeof buf)) > 0) ok = EVP_DigestUpdate(ctx, buf, (size_t)n) == 1;
    ok = ok && n == 0 && EVP_DigestFinal_ex(ctx, md, &len) == 1;
    EVP_MD_CTX_free(ctx);
    close(fd);
    for (unsigned int i = 0; ok && i < len; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return ok ? 0 : -1;
}

void wb_calibration_key_path(wb_calibration_key *k) { snprintf(k->path, sizeof k->path, "%s/%s.json", k->dir, k->uuid); }

int wb_calibration_key_of(const char *cache_dir, const char *binary, wb_calibration_key *k) {
    memset(k, 0, sizeof *k);
    if (wb_device_identity(k->uuid, sizeof k->uuid, k->driver, sizeof k->driver) != 0) return -1;
    if (wb_sha256_file(binary, k->binary_sha256, sizeof k->binary_sha256) != 0) return -1;
    snprintf(k->dir, sizeof k->dir, "%s", cache_dir);
    wb_calibration_key_path(k);
    return 0;
}

static const char *str_of(json_t *o, const char *name) {
    const char *v = json_string_value(json_object_get(o, name));
    return v ? v : "";
}

char *wb_calibration_cached(const wb_calibration_key *k, time_t now, char *measured_at, size_t cap) {
    char *text = NULL;
    size_t length;
    wb_error ignored = {0};
    if (wb_read_file(k->path, N_("calibration cache"), 1u << 16, &text, &length, &ignored)) return NULL;
    json_t *root = json_loadb(text, length, 0, NULL);
    free(text);
    json_int_t at = json_integer_value(json_object_get(root, "measured_at_unix"));
    json_t *cal = json_object_get(root, "calibration");
    char *out = NULL;
    if (root && !strcmp(str_of(root, "format"), CACHE_FORMAT) && !strcmp(str_of(root, "gpu_uuid"), k->uuid) &&
        !strcmp(str_of(root, "driver"), k->driver) && !strcmp(str_of(root, "calibration_sha256"), k->binary_sha256) &&
        at > 0 && at <= (json_int_t)now && (json_int_t)now - at < WB_CALIBRATION_MAX_AGE_S && json_is_object(cal)) {
        out = json_dumps(cal, JSON_COMPACT);
        snprintf(measured_at, cap, "%s", str_of(root, "measured_at"));
    }
    json_decref(root);
    return out;
}

void wb_calibration_store(const wb_calibration_key *k, const char *text, time_t now) {
    json_t *cal = json_loads(text, 0, NULL);
    if (!json_is_object(cal) || wb_mkdir_p(k->dir) != 0) {
        json_decref(cal);
        return;
    }
    char iso[32], tmp[4500];
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_t *root = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:I, s:o}", "format", CACHE_FORMAT, "version", 1, "gpu_uuid",
                             k->uuid, "driver", k->driver, "calibration_sha256", k->binary_sha256, "measured_at", iso,
                             "measured_at_unix", (json_int_t)now, "calibration", cal);
    snprintf(tmp, sizeof tmp, "%s.partial.%ld", k->path, (long)getpid());
    if (root && json_dump_file(root, tmp, JSON_INDENT(2)) == 0 && rename(tmp, k->path) == 0) tmp[0] = '\0';
    if (tmp[0]) unlink(tmp);
    json_decref(root);
}
