/* claim.h — one output, one writer: two processes of a job never write the
 * same file.
 *
 * `torchrun --nproc-per-node 2 gpumem-report --json run.json -- ...` (a
 * pattern without %r) had both ranks write run.json, the second rename
 * replacing the first: one rank's results lost without a word.  Before it
 * runs, a process therefore claims each results and report path it will
 * write, after pattern expansion: an exclusive flock(2) on a claim file
 * beside it, ".NAME.claim", held until the process ends (the kernel drops
 * the lock when it exits or is killed).  A second process finds the lock
 * held and is refused before it starts, with a message naming the path,
 * who holds it, and saying to put %r or %p in the pattern.
 *
 * The claim file records its holder: pid, host, rank (when a launcher set
 * one) and the job (the launcher's job id, gm_claim_job_key).  A process of
 * the same job but another rank that comes after the first one has ended (a
 * short program, ranks started seconds apart) finds that record and is
 * refused too.  So that it can, the claim file stays when the process ends
 * if a job and a rank are known; otherwise it is removed.
 *
 * Left alone (no claim, nothing refused): "-" and streams (output.h), and a
 * claim file that cannot be made or locked (a directory that does not exist
 * or cannot be written, a file system without locks): the write itself then
 * reports what is wrong, as before.  The output rule of output.h is
 * unchanged: the claim is a separate file, never the output.
 */
#ifndef GM_CLAIM_H
#define GM_CLAIM_H

#include "gm_error.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int fd;        /* the locked claim file; -1 when nothing is held */
    char *path;    /* the claim file */
    bool keep;     /* left in place when released (a job and a rank are known) */
    int cleanup;   /* its gm_cleanup slot (output.h) when not kept; -1 otherwise */
} gm_claim;

#define GM_CLAIM_INIT {-1, NULL, false, -1}

/* Claim `path` (an output, patterns expanded) for this process.  GM_OK when
 * claimed or left alone (see above); GM_ERR_VALUE, nothing held, when
 * another process holds it, or when it was claimed by another rank of this
 * job; the message names path and the holder. */
gm_status gm_claim_take(gm_claim *c, const char *path, gm_error *err);

/* Give the claim up (unlocked; the file removed unless kept).  Idempotent. */
void gm_claim_release(gm_claim *c);

/* The claim file of `path`: ".NAME.claim" in its directory (caller frees);
 * NULL when path names no file (empty, or ending in '/'). */
char *gm_claim_path(const char *path);

/* This process's job as its launcher names it, "VAR=value;..." from those
 * set of SLURM_JOB_ID, SLURM_STEP_ID, PMIX_NAMESPACE,
 * OMPI_MCA_ess_base_jobid, PALS_APID and TORCHELASTIC_RUN_ID (with
 * MASTER_ADDR and MASTER_PORT, which tell one torchrun from the next when
 * its run id is the default); values reduced to safe characters.  NULL when
 * none is set (caller frees). */
char *gm_claim_job_key(void);

#ifdef __cplusplus
}
#endif

#endif
