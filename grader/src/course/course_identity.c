/* course_identity.c: see course_identity.h. */
#define _GNU_SOURCE
#include "course_identity.h"
#include "wb_base.h"

#include <dirent.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex_of(const unsigned char *d, unsigned n, char *out) {
    for (unsigned i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", d[i]);
}

/* sha256 hex of a file's bytes, into hex (65 bytes). */
static int hash_file(const char *path, char *hex, wb_error *err) {
    FILE *f = wb_open_regular_file(path);
    if (!f) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot read it to identify the course (is the checkout complete?)"), path);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    unsigned char buf[1 << 16], d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    size_t got;
    while (ok && (got = fread(buf, 1, sizeof buf, f)) > 0) ok = EVP_DigestUpdate(ctx, buf, got);
    ok = ok && !ferror(f) && EVP_DigestFinal_ex(ctx, d, &n);
    fclose(f);
    EVP_MD_CTX_free(ctx);
    if (!ok) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot read it to identify the course"), path);
    hex_of(d, n, hex);
    return 0;
}

static void hash_text(const char *text, size_t len, char *out) {
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_Digest(text, len, d, &n, EVP_sha256(), NULL);
    strcpy(out, "sha256:");
    hex_of(d, n, out + 7);
}

static int is_recording(const struct dirent *e) {
    size_t n = strlen(e->d_name);
    return n > 5 && !strcmp(e->d_name + n - 5, ".json") && e->d_name[0] != '.';
}

/* The text the lesson's identity is the hash of (malloc'd into *text). */
static int lesson_text(const char *dir, char **text, size_t *len, wb_error *err) {
    char path[4400], hex[65];
    FILE *m = open_memstream(text, len);
    if (!m) return wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
    snprintf(path, sizeof path, "%s/lesson.yaml", dir);
    int rc = hash_file(path, hex, err);
    if (!rc) fprintf(m, "lesson.yaml %s\n", hex);
    struct dirent **names = NULL;
    snprintf(path, sizeof path, "%s/traces", dir);
    int n = rc ? 0 : scandir(path, &names, is_recording, alphasort);
    for (int i = 0; i < n; i++) {
        if (!rc) {
            snprintf(path, sizeof path, "%s/traces/%s", dir, names[i]->d_name);
            rc = hash_file(path, hex, err);
            if (!rc) fprintf(m, "traces/%s %s\n", names[i]->d_name, hex);
        }
        free(names[i]);
    }
    free(names);
    if (fclose(m) != 0 && !rc) rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
    return rc;
}

int wb_course_identity_get(const char *root, wb_course_identity *out, wb_error *err) {
    memset(out, 0, sizeof *out);
    wb_course course;
    if (wb_course_load(root, &course, err)) return err->code;
    wb_course_drop_drafts(&course);
    out->lessons = calloc(course.n + 1, sizeof *out->lessons);
    out->lesson_ids = calloc(course.n + 1, sizeof *out->lesson_ids);
    char *all = NULL;
    size_t all_len = 0;
    FILE *m = open_memstream(&all, &all_len);
    int rc = out->lessons && out->lesson_ids && m ? 0 : wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
    for (size_t i = 0; i < course.n && !rc; i++) {
        char *text = NULL;
        size_t len = 0;
        if ((rc = lesson_text(course.dirs[i], &text, &len, err))) break;
        hash_text(text, len, out->lesson_ids[i]);
        free(text);
        out->lessons[i] = strdup(course.names[i]);
        out->n = i + 1;
        if (!out->lessons[i]) rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
        else fprintf(m, "%s %s\n", course.names[i], out->lesson_ids[i] + 7);
    }
    if (m && fclose(m) != 0 && !rc) rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
    if (!rc) hash_text(all, all_len, out->id);
    free(all);
    wb_course_free(&course);
    if (rc) wb_course_identity_free(out);
    return rc;
}

void wb_course_identity_free(wb_course_identity *c) {
    for (size_t i = 0; c->lessons && i < c->n; i++) free(c->lessons[i]);
    free(c->lessons);
    free(c->lesson_ids);
    memset(c, 0, sizeof *c);
}

const char *wb_course_identity_lesson(const wb_course_identity *c, const char *lesson) {
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->lessons[i], lesson)) return c->lesson_ids[i];
    return NULL;
}
