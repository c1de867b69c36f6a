#include "devlock.h"

#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

char *gm_devlock_path(const char *uuid)
{
    const char *dir = getenv("GPUMEM_REPORT_LOCK_DIR");
    if (!dir || !*dir)
        dir = "/tmp";
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s/gpumem-report-", dir);
    for (const char *p = uuid && *uuid ? uuid : "unknown"; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_';
        gm_buf_putc(&b, ok ? c : '_');
    }
    gm_buf_puts(&b, ".lock");
    return gm_buf_detach(&b);
}

static int S_flock(int fd, int op)
{
    int r;
    do
        r = flock(fd, op);
    while (r != 0 && errno == EINTR);
    return r;
}

gm_status gm_devlock_acquire(gm_devlock *lk, const char *uuid,
                             void (*on_wait)(void *ctx, const char *path), void *ctx,
                             gm_error *err)
{
    if (lk->fd >= 0)
        return GM_OK;
    if (!lk->path)
        lk->path = gm_devlock_path(uuid);
    /* open first, create only when missing: with fs.protected_regular an
     * O_CREAT open of another user's file in sticky /tmp is refused */
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 3; tries++) {
        fd = open(lk->path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
            fd = open(lk->path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST && errno != ENOENT)
            break;
    }
    if (fd < 0)
        return gm_fail(err, GM_ERR_IO, "cannot open the GPU's lock file %s: %s", lk->path,
                       strerror(errno));
    /* the umask may have taken read access from others: give it back (only
     * the owner can, and only the owner needs to) */
    struct stat sb;
    if (fstat(fd, &sb) == 0 && sb.st_uid == geteuid() && (sb.st_mode & 0444) != 0444)
        (void)fchmod(fd, (sb.st_mode & 07777) | 0444);
    lk->turns++;
    if (S_flock(fd, LOCK_EX | LOCK_NB) == 0) {
        lk->fd = fd;
        return GM_OK;
    }
    if (errno != EWOULDBLOCK) {
        int e = errno;
        close(fd);
        return gm_fail(err, GM_ERR_IO, "cannot lock %s: %s", lk->path, strerror(e));
    }
    if (on_wait)
        on_wait(ctx, lk->path);
    double t0 = S_now();
    if (S_flock(fd, LOCK_EX) != 0) {
        int e = errno;
        close(fd);
        return gm_fail(err, GM_ERR_IO, "cannot lock %s: %s", lk->path, strerror(e));
    }
    lk->waited_s += S_now() - t0;
    lk->waits++;
    lk->fd = fd;
    return GM_OK;
}

void gm_devlock_release(gm_devlock *lk)
{
    if (lk->fd < 0)
        return;
    (void)S_flock(lk->fd, LOCK_UN);
    close(lk->fd);
    lk->fd = -1;
}

void gm_devlock_free(gm_devlock *lk)
{
    gm_devlock_release(lk);
    free(lk->path);
    lk->path = NULL;
}
