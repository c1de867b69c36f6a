/* results_file.c — a results file read from a path: the input rule every
 * command that reads one goes through (what the path names, its size, that
 * it is text), then the reader (results_read.c). */
#include "results.h"
#include "results_int.h"

#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t S_size_limit = GM_RESULTS_SIZE_LIMIT;

void gm_results_set_size_limit(size_t bytes)
{
    S_size_limit = bytes ? bytes : GM_RESULTS_SIZE_LIMIT;
}

size_t gm_results_size_limit(void)
{
    return S_size_limit;
}

/* The input rule every reader of a results file goes through: what path
 * names is opened without waiting (a FIFO with no writer would block an
 * open), and must be a regular file or a pipe handed over as an open
 * descriptor (/dev/stdin, /dev/fd/N); a directory, a device, a socket or a
 * named FIFO is refused, named as what it is.  Returns the descriptor, in
 * blocking mode, or -1 with err filled. */
static int S_open_input(const char *path, gm_error *err)
{
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == EISDIR)
            gm_fail(err, GM_ERR_IO, "%s: a directory, not a results file", path);
        else
            gm_fail(err, GM_ERR_IO, "%s: cannot open: %s", path, strerror(e));
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        gm_fail(err, GM_ERR_IO, "%s: cannot read: %s", path, strerror(e));
        return -1;
    }
    const char *what = NULL;
    if (S_ISDIR(sb.st_mode))
        what = "a directory";
    else if (S_ISCHR(sb.st_mode))
        what = isatty(fd) ? "a terminal" : "a character device";
    else if (S_ISBLK(sb.st_mode))
        what = "a block device";
    else if (S_ISSOCK(sb.st_mode))
        what = "a socket";
    else if (S_ISFIFO(sb.st_mode) && strcmp(path, "/dev/stdin") != 0 &&
             strncmp(path, "/dev/fd/", 8) != 0 && strncmp(path, "/proc/self/fd/", 14) != 0)
        what = "a FIFO (named pipe)";
    else if (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode))
        what = "not a regular file";
    if (what) {
        close(fd);
        gm_fail(err, GM_ERR_IO,
                "%s: %s, not a results file (a results file is read from a regular file, or "
                "from a pipe as /dev/stdin)", path, what);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        gm_fail(err, GM_ERR_IO, "%s: cannot read: %s", path, strerror(e));
        return -1;
    }
    return fd;
}

/* The bytes of path by the input rule (S_open_input), at most the size
 * limit, with no NUL byte; into b (NUL-terminated). */
static gm_status S_slurp(const char *path, gm_buf *b, gm_error *err)
{
    int fd = S_open_input(path, err);
    if (fd < 0)
        return err ? err->status : GM_ERR_IO;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return gm_fail(err, GM_ERR_IO, "%s: cannot read: %s", path, strerror(e));
    }
    struct stat sb;
    bool too_large = false;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode)) {
        if ((unsigned long long)sb.st_size > S_size_limit)
            too_large = true;
        else
            gm_buf_reserve(b, (size_t)sb.st_size + 1);   /* one allocation, no regrowth */
    }
    char chunk[65536];
    size_t n;
    while (!too_large && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        const char *nul = memchr(chunk, '\0', n);
        if (nul) {
            /* no JSON text holds a raw NUL byte: a binary file */
            size_t at = b->len + (size_t)(nul - chunk);
            fclose(f);
            return gm_fail(err, GM_ERR_PARSE,
                           "%s: not a results file: a NUL byte at offset %zu (binary data, "
                           "not JSON text)", path, at);
        }
        gm_buf_put(b, chunk, n);
        too_large = b->len > S_size_limit;   /* a pipe or a file that goes on and on */
    }
    if (too_large) {
        fclose(f);
        return gm_fail(err, GM_ERR_VALUE,
                       "%s: input too large: more than the limit of %zu bytes for a results "
                       "file; raise it with GPUMEM_REPORT_MAX_INPUT=BYTES (K, M, G suffixes)",
                       path, S_size_limit);
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        return gm_fail(err, GM_ERR_IO, "%s: cannot read: %s", path, strerror(e));
    }
    fclose(f);
    if (!b->data)
        gm_buf_puts(b, "");
    return GM_OK;
}

gm_status gm_results_read_file_text(const char *path, gm_results *out, char **text,
                                    gm_error *err)
{
    memset(out, 0, sizeof *out);
    if (text)
        *text = NULL;
    gm_buf b = GM_BUF_INIT;
    gm_status st = S_slurp(path, &b, err);
    if (st == GM_OK)
        st = gm_results_read_buffer(b.data, b.len, path, out, err);
    if (st == GM_OK && text)
        *text = gm_buf_detach(&b);
    gm_buf_free(&b);
    return st;
}

gm_status gm_results_read_file(const char *path, gm_results *out, gm_error *err)
{
    return gm_results_read_file_text(path, out, NULL, err);
}
