/*
 * test_predictions_save.c: saving interactive answers into the learner's file safely.
 *   - an answer lands on the fact asked whatever line breaks the file holds (libyaml's rule:
 *     \r\n, lone \r, NEL, U+2028, U+2029, a byte order mark);
 *   - the file keeps its mode, a symlink stays a symlink (its target is written), no size cut up
 *     to the reader's bound (1 MiB); a file grown past it, or swapped for a FIFO, since it was read
 *     is refused with exit 2 naming it, and nothing is written;
 *   - a kill at every step of the save (WB_TEST_KILL_AT, kill_point.h) leaves the old file or the
 *     new one whole, the backup whole, and a leftover temporary file that the next run can name.
 */
#include "predictions.h"
#include "predictions_edit.h"
#include "yaml_doc.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define HEAD "lesson: 01_matmul_add\npredictions:\n"
#define BODY "  - id: eager-step\n    variant: eager\n    range: step\n    api_calls: {cuLaunchKernelEx: ~, cudaLaunchKernel: ~}\n"

/* Fills every open fact (cuLaunchKernelEx with 3, cudaLaunchKernel with 7) at the positions the
 * parser reports, then parses the result: each value must be on its own fact. */
static void fill_and_check(const char *text, size_t length) {
    wb_prediction_set p;
    wb_error err = {0};
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", text, length, &p, &err), 0, "%s", err.message);
    wb_answer_edit edits[4];
    size_t n = 0;
    for (size_t j = 0; j < p.items[0].n_facts; j++) {
        const wb_fact *f = &p.items[0].facts[j];
        edits[n++] = (wb_answer_edit){.line = f->line, .column = f->column, .value = strstr(f->label, "cuLaunchKernelEx") ? 3 : 7};
    }
    wb_predictions_free(&p);
    cr_assert_eq(n, 2);
    char *out = wb_predictions_fill_text("p.yaml", text, length, edits, n, &err);
    cr_assert_not_null(out, "%s", err.message);
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", out, strlen(out), &p, &err), 0, "%s", err.message);
    for (size_t j = 0; j < p.items[0].n_facts; j++) {
        const wb_fact *f = &p.items[0].facts[j];
        cr_assert_eq(f->predicted, strstr(f->label, "cuLaunchKernelEx") ? 3 : 7, "%s got %ld", f->label, f->predicted);
    }
    wb_predictions_free(&p);
    free(out);
}

Test(predictions_save, answers_land_on_the_fact_asked_whatever_the_line_breaks) {
    /* each break ends a comment line, as libyaml reads it */
    const char *comments[] = {
        "# a comment ending in a LINE SEPARATOR\xe2\x80\xa8",
        "# then a PARAGRAPH SEPARATOR\xe2\x80\xa9# and another comment\n",
        "# NEL\xc2\x85",
        "# a lone CR\r# then more\n",
        "# Windows line ends\r\n",
    };
    for (size_t i = 0; i < sizeof comments / sizeof comments[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s" HEAD BODY, comments[i]);
        fill_and_check(text, strlen(text));
    }
    /* all of them, a byte order mark first, and CR LF throughout */
    char text[2048] = "\xef\xbb\xbf";
    for (size_t i = 0; i < sizeof comments / sizeof comments[0]; i++) strcat(text, comments[i]);
    strcat(text, "lesson: 01_matmul_add\r\npredictions:\r\n  - id: eager-step\r\n    variant: eager\r\n    range: step\r\n"
                 "    api_calls: {cuLaunchKernelEx: ~, cudaLaunchKernel: ~}\r\n");
    fill_and_check(text, strlen(text));
}

/* ---- files ---------------------------------------------------------------------------------- */

static char dir[64];

static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/wb-save-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void write_file(const char *path, const char *text, size_t n, mode_t mode) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, n), (ssize_t)n);
    close(fd);
    chmod(path, mode);
}

static char *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    *n = fread(buf, 1, (size_t)size, f);
    buf[*n] = '\0';
    fclose(f);
    return buf;
}

/* The open positions of a predictions file. */
static size_t open_edits(const char *path, wb_answer_edit *edits) {
    wb_prediction_set p;
    wb_error err = {0};
    cr_assert_eq(wb_predictions_load(path, &p, &err), 0, "%s", err.message);
    size_t n = 0;
    for (size_t j = 0; j < p.items[0].n_facts; j++)
        edits[n++] = (wb_answer_edit){.line = p.items[0].facts[j].line, .column = p.items[0].facts[j].column, .value = 5};
    wb_predictions_free(&p);
    return n;
}

Test(predictions_save, keeps_mode_follows_symlinks_and_never_cuts) {
    make_dir();
    /* a file just under the reader's 1 MiB bound (an older writer cut files at 2 MiB, a fixed
     * buffer): a long comment block after the predictions */
    size_t head = strlen(HEAD BODY), pad = WB_YAML_MAX_BYTES - 4096;
    char *text = malloc(head + pad + 1);
    strcpy(text, HEAD BODY);
    for (size_t i = 0; i < pad; i += 64) {
        memset(text + head + i, '#', 63);
        text[head + i + 63] = '\n';
    }
    text[head + pad] = '\0';
    size_t length = head + pad;
    char real[128], link[128];
    snprintf(real, sizeof real, "%s/real.yaml", dir);
    snprintf(link, sizeof link, "%s/predictions.yaml", dir);
    write_file(real, HEAD BODY, head, 0600);
    wb_answer_edit edits[4];
    size_t n = open_edits(real, edits);
    write_file(real, text, length, 0600);
    cr_assert_eq(symlink("real.yaml", link), 0);
    char backup[4200];
    wb_error err = {0};
    int rc = wb_predictions_fill(link, edits, n, 1, backup, sizeof backup, &err);
    cr_assert_eq(rc, 0, "%s", err.message);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the symlink was replaced by a plain file");
    cr_assert_eq(stat(real, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
    size_t got;
    char *after = read_file(real, &got);
    cr_assert_eq(got, length, "the file was cut: %zu bytes of %zu", got, length); /* ~ became 5: same length */
    cr_assert_eq(memcmp(after, HEAD "  - id: eager-step\n    variant: eager\n    range: step\n"
                                    "    api_calls: {cuLaunchKernelEx: 5, cudaLaunchKernel: 5}\n", head), 0, "%.300s", after);
    cr_assert_eq(memcmp(after + head, text + head, pad), 0);
    char *bak = read_file(backup, &got);
    cr_assert_not_null(bak, "no backup at %s", backup);
    cr_assert_eq(got, length, "the backup was cut");
    cr_assert_eq(memcmp(bak, text, length), 0);
    cr_assert_eq(stat(backup, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600, "backup mode %o", st.st_mode & 0777);
    char left[4200];
    cr_assert_eq(wb_predictions_leftover(link, left, sizeof left), 0, "a clean save leaves %s", left);
    free(after);
    free(bak);
    free(text);
    unlink(backup), unlink(link), unlink(real), rmdir(dir);
}

/* The file changed between the reading and the save: grown past the bound, or swapped for a FIFO
 * (the save used to open it blocking, and read any size). */
Test(predictions_save, a_file_grown_past_the_bound_or_swapped_is_refused_unchanged, .timeout = 60) {
    make_dir();
    char path[128], backup[4200] = "";
    snprintf(path, sizeof path, "%s/predictions.yaml", dir);
    write_file(path, HEAD BODY, strlen(HEAD BODY), 0644);
    wb_answer_edit edits[4];
    size_t n = open_edits(path, edits);
    size_t big = WB_YAML_MAX_BYTES + 1;
    char *text = malloc(big + 1);
    memset(text, '#', big);
    memcpy(text, HEAD BODY, strlen(HEAD BODY));
    text[big] = '\0';
    write_file(path, text, big, 0644);
    wb_error err = {0};
    cr_assert_eq(wb_predictions_fill(path, edits, n, 1, backup, sizeof backup, &err), WB_EXIT_INPUT);
    cr_assert(!strncmp(err.message, path, strlen(path)) && strstr(err.message, "larger than the 1048576 bytes") &&
              strstr(err.message, "nothing was written"), "%s", err.message);
    size_t got;
    char *after = read_file(path, &got);
    cr_assert(got == big && !memcmp(after, text, big), "the file was changed");
    char bak[160];
    snprintf(bak, sizeof bak, "%s.bak", path);
    cr_assert_eq(access(bak, F_OK), -1, "a backup was written");
    char left[4200];
    cr_assert_eq(wb_predictions_leftover(path, left, sizeof left), 0, "%s", left);
    free(after);
    free(text);
    /* a FIFO: refused at once, never waited on (no writer ever comes) */
    unlink(path);
    cr_assert_eq(mkfifo(path, 0644), 0);
    memset(&err, 0, sizeof err);
    cr_assert_eq(wb_predictions_fill(path, edits, n, 1, backup, sizeof backup, &err), WB_EXIT_INPUT);
    cr_assert(!strncmp(err.message, path, strlen(path)) && strstr(err.message, "a FIFO (named pipe), not a regular file"), "%s",
              err.message);
    cr_assert_eq(access(bak, F_OK), -1, "a backup was written");
    unlink(path), rmdir(dir);
}

/* One save in a child that kills itself at step k. */
static void save_killed_at(const char *path, int k) {
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        char at[32];
        snprintf(at, sizeof at, "predictions:%d", k);
        setenv("WB_TEST_KILL_AT", at, 1);
        wb_answer_edit edits[4];
        wb_prediction_set p;
        wb_error err = {0};
        if (wb_predictions_load(path, &p, &err)) _exit(3);
        size_t n = 0;
        for (size_t j = 0; j < p.items[0].n_facts; j++)
            edits[n++] = (wb_answer_edit){.line = p.items[0].facts[j].line, .column = p.items[0].facts[j].column, .value = 5};
        _exit(wb_predictions_fill(path, edits, n, 1, NULL, 0, &err) ? 2 : 0);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    if (k <= 8) cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "step %d: the child was not killed", k);
    else cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "step %d: the save failed", k);
}

Test(predictions_save, a_kill_at_every_step_loses_nothing) {
    const char *old = HEAD BODY;
    const char *new_text = HEAD "  - id: eager-step\n    variant: eager\n    range: step\n"
                                "    api_calls: {cuLaunchKernelEx: 5, cudaLaunchKernel: 5}\n";
    for (int k = 1; k <= 9; k++) { /* 9: no kill */
        make_dir();
        char path[128], bak[160];
        snprintf(path, sizeof path, "%s/predictions.yaml", dir);
        snprintf(bak, sizeof bak, "%s.bak", path);
        write_file(path, old, strlen(old), 0640);
        save_killed_at(path, k);
        size_t n;
        char *now = read_file(path, &n);
        cr_assert_not_null(now);
        int renamed = k >= 7; /* steps 7 and 8 come after the rename */
        cr_assert_str_eq(now, renamed ? new_text : old, "step %d: the file holds neither the old nor the new text", k);
        char *b = read_file(bak, &n);
        if (k >= 2) cr_assert(b && !strcmp(b, old), "step %d: the backup is not whole", k);
        char left[4200] = "";
        int leftovers = wb_predictions_leftover(path, left, sizeof left);
        if (k >= 3 && k <= 6) { /* the temporary file exists from step 3 until the rename */
            cr_assert_eq(leftovers, 1, "step %d: the interrupted save's temporary file is not found", k);
            cr_assert(strstr(left, "predictions.yaml.partial."), "%s", left);
            unlink(left);
        } else {
            cr_assert_eq(leftovers, 0, "step %d: %s", k, left);
        }
        free(now);
        free(b);
        unlink(bak), unlink(path), rmdir(dir);
    }
}
