/*
 * calibration_cache.h: a calibration (the GPU's measured copy bandwidth and matrix rate) kept per
 * GPU so that a check need not measure again (about a second of CUDA and cuBLAS start-up and
 * timing). One file per GPU, <cache folder>/<GPU UUID>.json, holding the calibration program's
 * output and what it was measured under. It is reused only while all of these hold:
 *   - the same GPU (its UUID: another GPU of the same model has its own file);
 *   - the same driver (the kernel module's version: a driver update can change both ceilings);
 *   - the same calibration program (its SHA-256: a changed method measures something else);
 *   - measured less than a day ago (power limits and clocks, which none of the above sees, can
 *     change; a day bounds how long a stale ceiling can judge `bound` facts).
 * Every measurement replaces the file; a file that does not read or match is ignored.
 */
#ifndef WB_CALIBRATION_CACHE_H
#define WB_CALIBRATION_CACHE_H

#include <stddef.h>
#include <time.h>

#define WB_CALIBRATION_MAX_AGE_S (24 * 3600)

typedef struct {
    char uuid[64], driver[64], binary_sha256[65];
    char dir[4096], path[4400]; /* the cache folder and this GPU's file in it */
} wb_calibration_key;

/* The key of device 0 (device.h) and the calibration program at binary; -1 when unknown. */
int wb_calibration_key_of(const char *cache_dir, const char *binary, wb_calibration_key *k);

/* Fills k's path from its fields (for a key made by hand, in tests). */
void wb_calibration_key_path(wb_calibration_key *k);

/* The cached calibration's JSON text (to free) when its file matches k and it was measured less
 * than WB_CALIBRATION_MAX_AGE_S before now, with when it was measured in measured_at; else NULL. */
char *wb_calibration_cached(const wb_calibration_key *k, time_t now, char *measured_at, size_t cap);

/* Replaces the cached calibration with text (the calibration program's JSON), measured at now.
 * Through a temporary file and a rename; a cache that cannot be written is no error. */
void wb_calibration_store(const wb_calibration_key *k, const char *text, time_t now);

/* SHA-256 of a file as 64 hex digits into hex (cap >= 65); -1 when it cannot be read. */
int wb_sha256_file(const char *path, char *hex, size_t cap);

#endif
