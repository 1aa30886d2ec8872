/*
 * read_file.c: see read_file.h. The file is opened with O_NONBLOCK, so that opening a FIFO never
 * waits for a writer, then fstat decides: only a regular file is read, and only up to the bound
 * (a file that grows while it is read is caught by reading one byte past it).
 */
#include "read_file.h"
#include "i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return _("a directory");
    if (S_ISFIFO(mode)) return _("a FIFO (named pipe)");
    if (S_ISCHR(mode)) return _("a character device");
    if (S_ISBLK(mode)) return _("a block device");
    if (S_ISSOCK(mode)) return _("a socket");
    return _("not a regular file");
}

/* An fd on a regular file, or -1 with err set (or with errno set and err untouched when quiet). */
static int open_regular(const char *path, const char *what, struct stat *st, wb_error *err) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (!err) return -1;
        if (e == ENOENT)
            wb_fail(err, WB_EXIT_INPUT, _("%s: no such %s. Check the path%s"), path, _(what),
                    strstr(what, "prediction") ? _(", or copy the lesson's template predictions.yaml") : "");
        else if (e == ENXIO)
            wb_fail(err, WB_EXIT_INPUT, _("%s: the %s is a socket, not a regular file; give the file itself (docs/limits.md)"), path,
                    _(what));
        else
            wb_fail(err, WB_EXIT_INPUT, _("%s: cannot open the %s: %s"), path, _(what), strerror(e));
        return -1;
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        if (err) wb_fail(err, WB_EXIT_INPUT, _("%s: cannot read the %s: %s"), path, _(what), strerror(e));
        errno = e;
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        if (err)
            wb_fail(err, WB_EXIT_INPUT, _("%s: the %s is %s, not a regular file; give the file itself (docs/limits.md)"), path,
                    _(what), kind_of(st->st_mode));
        errno = EINVAL;
        return -1;
    }
    return fd;
}

int wb_read_file(const char *path, const char *what, size_t max_bytes, char **text, size_t *length, wb_error *err) {
    struct stat st;
    return wb_read_file_and_stat(path, what, max_bytes, text, length, &st, err);
}

int wb_read_file_and_stat(const char *path, const char *what, size_t max_bytes, char **text, size_t *length, struct stat *stp,
                          wb_error *err) {
    *text = NULL;
    *length = 0;
    struct stat st;
    memset(&st, 0, sizeof st);
    int fd = open_regular(path, what, &st, err);
    if (fd < 0) return err->code;
    *stp = st;
    if ((unsigned long long)st.st_size > max_bytes) {
        close(fd);
        return wb_fail(err, WB_EXIT_INPUT, _("%s: the %s is %lld bytes, larger than the %zu bytes the grader reads; is it the "
                       "right file? (docs/limits.md)"), path, _(what), (long long)st.st_size, max_bytes);
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return wb_fail(err, WB_EXIT_INPUT, _("%s: out of memory reading the %s (%zu bytes)"), path, _(what), cap);
    }
    for (;;) {
        if (n == cap) { /* it grew since fstat: read on, up to the bound */
            if (cap > max_bytes) break;
            size_t grown = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *p = realloc(buf, grown + 1);
            if (!p) {
                free(buf);
                close(fd);
                return wb_fail(err, WB_EXIT_INPUT, _("%s: out of memory reading the %s"), path, _(what));
            }
            buf = p;
            cap = grown;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot read the %s: %s"), path, _(what), strerror(e));
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
    if (n > max_bytes) {
        free(buf);
        return wb_fail(err, WB_EXIT_INPUT, _("%s: the %s grew past the %zu bytes the grader reads while it was read (docs/limits.md)"),
                       path, _(what), max_bytes);
    }
    buf[n] = '\0';
    *text = buf;
    *length = n;
    return 0;
}

FILE *wb_open_regular_file(const char *path) {
    struct stat st;
    memset(&st, 0, sizeof st);
    int fd = open_regular(path, "file", &st, NULL);
    if (fd < 0) return NULL;
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "r");
    if (!f) close(fd);
    return f;
}
