#include "profile.h"

#include "../core/buf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    gm_case *const *cases;
    gm_error *err;          /* first callback failure lands here */
    gm_status failed;
} S_batch;

static int S_prepare(void *user, size_t i)
{
    S_batch *b = user;
    gm_case *c = b->cases[i];
    if (c->variant->idempotent || !c->variant->reset)
        return 0;
    gm_status st = c->variant->reset(c, 0, b->err);
    if (st != GM_OK)
        b->failed = st;
    return st == GM_OK ? 0 : 1;
}

static int S_launch(void *user, size_t i)
{
    S_batch *b = user;
    gm_case *c = b->cases[i];
    gm_status st = c->variant->launch(c, 0, b->err);
    if (st != GM_OK)
        b->failed = st;
    return st == GM_OK ? 0 : 1;
}

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A counter total is an integer count: keep it an integer in the results file. */
static gm_value S_value(const char *name, double v)
{
    size_t len = strlen(name);
    bool sum = len > 4 && strcmp(name + len - 4, ".sum") == 0;
    if (sum && isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
        return gm_vint((long long)v);
    return gm_vreal(v);
}

gm_status gm_status_from_gmc(gmc_status s)
{
    switch (s) {
    case GMC_OK: return GM_OK;
    case GMC_ERR_NO_DRIVER:
    case GMC_ERR_NO_DEVICE: return GM_ERR_NO_DEVICE;
    case GMC_ERR_PERMISSION: return GM_ERR_PERMISSION;
    case GMC_ERR_UNSUPPORTED_DEVICE: return GM_ERR_UNSUPPORTED;
    case GMC_ERR_UNKNOWN_METRIC:
    case GMC_ERR_BAD_METRIC_LIST:
    case GMC_ERR_ARG: return GM_ERR_VALUE;
    case GMC_ERR_NOMEM: return GM_ERR_NOMEM;
    default: return GM_ERR_PROFILER;
    }
}

gm_status gm_profile_cases(void *ctx, gm_case *const *cases, size_t n, gm_run *const *runs,
                           gm_error *err)
{
    gm_profiler *p = ctx;
    size_t nm = gmc_session_n_metrics(p->session);
    size_t chunk = p->max_launches ? p->max_launches : 1;
    double *values = gm_xmalloc(chunk * nm * sizeof *values);
    for (size_t at = 0; at < n; at += chunk) {
        size_t k = n - at < chunk ? n - at : chunk;
        S_batch b = {cases + at, err, GM_OK};
        gmc_error cerr = {GMC_OK, ""};
        double t0 = S_now();
        gmc_status st = gmc_profile_batch(p->session, k, S_prepare, S_launch, &b, values, &cerr);
        p->seconds += S_now() - t0;
        p->batches++;
        if (st != GMC_OK) {
            free(values);
            if (b.failed != GM_OK)   /* a case's own callback failed: its message is in err */
                return b.failed;
            return gm_fail(err, gm_status_from_gmc(st), "profiling %s/%s (batch of %zu): %s",
                           cases[at]->variant->experiment->id, cases[at]->variant->name, k,
                           cerr.message);
        }
        for (size_t i = 0; i < k; i++)
            for (size_t m = 0; m < nm; m++) {
                const char *name = gmc_session_metric_name(p->session, m);
                gm_run_set_metric(runs[at + i], name, S_value(name, values[i * nm + m]),
                                  gmc_session_metric_unit(p->session, m));
            }
    }
    free(values);
    return GM_OK;
}
