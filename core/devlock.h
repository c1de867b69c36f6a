/* devlock.h — processes that share one GPU take turns profiling it.
 *
 * Two CUPTI range-profiler sessions on one device at once fail (the counters
 * are the device's, not the process's), and two suites timed on one GPU at
 * once measure each other.  Ranks of an MPI job or Slurm tasks placed on the
 * same GPU therefore hold an exclusive flock(2) on a file named by the
 * device's UUID while they use it: the second one waits its turn instead of
 * failing.  The lock goes with the process (the kernel drops it when the
 * descriptor closes, on exit or crash), so a killed rank never leaves the
 * GPU locked.
 *
 * The file is $GPUMEM_REPORT_LOCK_DIR/gpumem-report-<uuid>.lock, else
 * /tmp/gpumem-report-<uuid>.lock: one directory every job on the node sees
 * (a job's private $TMPDIR would hide the lock from other jobs).
 */
#ifndef GM_DEVLOCK_H
#define GM_DEVLOCK_H

#include "gm_error.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int fd;             /* -1 when not held */
    char *path;
    double waited_s;    /* wall time spent waiting for the lock, all acquisitions */
    long long waits;    /* acquisitions that had to wait */
    long long turns;    /* acquisitions */
} gm_devlock;

#define GM_DEVLOCK_INIT {-1, NULL, 0.0, 0, 0}

/* The lock file's path for a device UUID (caller frees).  Characters other
 * than letters, digits, '-' and '_' become '_'. */
char *gm_devlock_path(const char *uuid);

/* Take the lock (blocking).  When another process holds it, on_wait (may be
 * NULL) is called once with the lock file's path before waiting.  The file is
 * created readable by everyone (flock works on a read-only descriptor, so
 * another user's process can take it too).  GM_ERR_IO when the file cannot be
 * opened or locked. */
gm_status gm_devlock_acquire(gm_devlock *lk, const char *uuid,
                             void (*on_wait)(void *ctx, const char *path), void *ctx,
                             gm_error *err);

/* Give the lock up (keeps the counters; the lock can be taken again). */
void gm_devlock_release(gm_devlock *lk);

/* Release and free the path. */
void gm_devlock_free(gm_devlock *lk);

#ifdef __cplusplus
}
#endif

#endif
