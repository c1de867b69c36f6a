/* profile.h — glue between the suite runner and the CUPTI collector: profiles a
 * batch of validated cases and stores each metric in its gm_run under the exact
 * Nsight Compute name, with the unit ncu prints. */
#ifndef GM_PROFILE_H
#define GM_PROFILE_H

#include "../collectors/gm_collector.h"
#include "../kernels/suite.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    gmc_session *session;    /* open, owned by the caller */
    size_t max_launches;     /* the session's cfg.max_launches */
    double seconds;          /* wall time spent in gmc_profile_batch, accumulated */
    int batches;
} gm_profiler;

/* The runner's profile hook (gm_suite_opts.profile with ctx = gm_profiler*).
 * Profiles cases[0..n) in batches of at most max_launches: before every launch
 * of every pass, a case that is not idempotent is reset (inputs restored,
 * outputs poisoned).  Counts (".sum" metrics with integral values) are stored
 * as integers, everything else as reals; a value CUPTI did not give is absent. */
gm_status gm_profile_cases(void *ctx, gm_case *const *cases, size_t n, gm_run *const *runs,
                           gm_error *err);

/* Map a collector status to the CLI's status: no driver/device -> NO_DEVICE,
 * permission -> PERMISSION, unknown metric/bad list -> VALUE, else PROFILER. */
gm_status gm_status_from_gmc(gmc_status s);

#ifdef __cplusplus
}
#endif

#endif
