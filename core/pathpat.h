/* pathpat.h — who this process is among many (host, rank, pid), and output
 * paths that say so: "run-%h-%r.json" under srun or mpirun writes one file
 * per rank without a wrapper script.
 *
 *   %h  host name, up to its first dot ("node012")
 *   %d  CUDA device ordinal the run uses
 *   %r  rank: the first set of RANK (torchrun), SLURM_PROCID,
 *       OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, MV2_COMM_WORLD_RANK,
 *       PALS_RANKID; a process that no launcher started is rank 0 of one
 *   %l  local rank (on its node): the first set of LOCAL_RANK, SLURM_LOCALID,
 *       OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, PALS_LOCAL_RANKID,
 *       MV2_COMM_WORLD_LOCAL_RANK; 0 when none is
 *   %p  process id
 *   %%  a percent sign
 * Any other character after % is an error, so a typo never names a file.
 * Every value goes in as a safe piece of one file name: only letters,
 * digits, '.', '_' and '-', anything else replaced by '_', and a value that
 * is empty or dots only ("..") becomes "_", so no expansion adds a '/', a
 * control character, ".." or an empty path component.
 */
#ifndef GM_PATHPAT_H
#define GM_PATHPAT_H

#include "gm_error.h"
#include "results.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The launcher variables that carry a rank (and a local rank), in the order
 * they are believed. */
extern const char *const gm_rank_vars[];
extern const int gm_n_rank_vars;
extern const char *const gm_local_rank_vars[];
extern const int gm_n_local_rank_vars;

/* The rank from the environment: true and *rank set when one of gm_rank_vars
 * is set (*var names it); false with *rank = 0 when none is.  A set variable
 * that is not digits only (no sign, no space, not empty) or not below
 * GM_RANK_LIMIT (2^20) is GM_ERR_VALUE naming it and quoting its value (the
 * status goes to *st; GM_OK otherwise). */
bool gm_rank_from_env(long long *rank, const char **var, gm_status *st, gm_error *err);
/* The same for the local rank (gm_local_rank_vars). */
bool gm_local_rank_from_env(long long *rank, const char **var, gm_status *st, gm_error *err);

/* The host name up to its first dot, '/' replaced by '_' (caller frees);
 * "unknown-host" when gethostname fails. */
char *gm_host_short(void);

typedef struct {
    const char *host;   /* NULL: gm_host_short() */
    int device;         /* < 0: unknown, and %d is an error */
    long long pid;      /* <= 0: getpid() */
} gm_path_vars;

/* pattern with every %-sequence replaced (*out: caller frees).  GM_ERR_VALUE
 * for an unknown sequence, a % at the end, %d with no device, a bad rank
 * variable, or an empty result; the message quotes the pattern. */
gm_status gm_path_expand(const char *pattern, const gm_path_vars *v, char **out, gm_error *err);

/* Fill the identity of this process: host, rank (and the variable it came
 * from), pid; present = true.  A bad rank variable is GM_ERR_VALUE. */
gm_status gm_process_identify(gm_process *p, gm_error *err);

/* pattern holds %c (c one of h d r l p); "%%" does not count. */
bool gm_path_uses(const char *pattern, char c);

#ifdef __cplusplus
}
#endif

#endif
