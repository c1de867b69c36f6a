/* inject_batch.c — the replays (inject.h, "batches"): a batch of the program's
 * profiled launches, replayed once per pass from the CUPTI checkpoint its
 * first launch found, with the memsets and copies the program made between
 * them, or a launch whose arguments cannot be copied, alone; the program's
 * memory restored after either, and the runs they give.
 */
#include "gm_collector.h"
#include "inject.h"
#include "inject_internal.h"

#include "../core/buf.h"
#include "../core/results.h"

#include <cuda.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what every replay shares ---------------------------------------------------------- */

static gm_value S_value(const char *name, double v)
{
    if (gmi_metric_sums(name) && isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
        return gm_vint((long long)v);
    return gm_vreal(v);
}

static void S_add_run(const gmi_launch *L, const char *symbol, long long index, const char *range,
                      const double *values, const char *how)
{
    gm_run *run = gm_results_add_run(&gmi.results);
    run->experiment = gm_xstrdup("app");
    run->kernel = gmi_demangle(symbol);
    run->variant = gmi_short_name(run->kernel);
    gm_run_set_param(run, "launch", gm_vint(index));
    if (range)
        gm_run_set_param(run, "range", gm_vstr(range));
    run->has_launch = true;
    gmi_launch_shape(L, &run->launch);
    for (size_t m = 0; m < gmi.n_metrics; m++)
        gm_run_set_metric(run, gmi.metrics[m], S_value(gmi.metrics[m], values[m]),
                          gmc_session_metric_unit(gmi.session, m));
    if (gmi.duration_index < gmi.n_metrics && isfinite(values[gmi.duration_index])) {
        double ms = values[gmi.duration_index] * 1e-6;   /* ns -> ms */
        gm_timing_set_samples(&run->timing, &ms, 1);
        run->timing.present = true;
        run->timing.warmup = 0;
        run->timing.l2_flushed = gmi.opts.flush_l2;
    }
    run->check.status = GM_CHECK_NO_REFERENCE;
    run->check.reason = gm_xstrdup("a program's output is its own; nothing to compare it with");
    gm_run_add_note(run, "profiled inside the program: %d passes, %s%s",
                    gmc_session_passes(gmi.session), how,
                    gmi.opts.flush_l2 ? "; L2 flushed before the launch in each pass" : "");
}

/* Wait for everything ctx has enqueued, then save its device memory into cp,
 * adding the time to the totals.  NULL when saved; else the error kind
 * ("cuda": the program's earlier work failed, "checkpoint") with the words in
 * msg. */
static const char *S_sync_save(gmi_checkpoint *cp, CUcontext ctx, char *msg, size_t cap)
{
    double t0 = gmi_now();
    CUresult cr = cuCtxSynchronize();
    double t1 = gmi_now();
    gmi.t_sync += t1 - t0;
    if (cr != CUDA_SUCCESS) {
        const char *n = NULL;
        (void)cuGetErrorName(cr, &n);
        snprintf(msg, cap, "the program's earlier work failed (%s)", n ? n : "?");
        return "cuda";
    }
    memset(cp, 0, sizeof *cp);
    cp->structSize = GMI_CHECKPOINT_SIZE;
    cp->ctx = ctx;
    CUptiResult r = cuptiCheckpointSave(cp);
    gmi.t_save += gmi_now() - t1;
    if (r != CUPTI_SUCCESS) {
        const char *d = NULL;
        (void)cuptiGetResultString(r, &d);
        snprintf(msg, cap, "cannot save the program's memory (cuptiCheckpointSave: %s)",
                 d ? d : "?");
        return "checkpoint";
    }
    return NULL;
}

/* Replay n launches once per pass into gmi.values (gmc_profile_batch), adding
 * where the time went to the totals the status line reports. */
static gmc_status S_passes(size_t n, int (*prepare)(void *, size_t),
                           int (*launch)(void *, size_t), void *user, gmc_error *e)
{
    for (size_t k = 0; k < n * gmi.n_metrics; k++)
        gmi.values[k] = NAN;
    double t0 = gmi_now();
    gmc_status st = gmc_profile_batch(gmi.session, n, prepare, launch, user, gmi.values, e);
    gmi.t_batch += gmi_now() - t0;
    gmc_session_info si;
    gmc_session_info_get(gmi.session, &si);
    gmi.t_config += si.batch_config_seconds;
    gmi.t_passes += si.batch_pass_seconds - si.batch_config_seconds;
    gmi.t_decode += si.batch_decode_seconds;
    gmi.t_startstop += si.batch_start_stop_seconds;
    gmi.reenabled += si.batch_reenabled;
    return st;
}

/* ---- a launch alone --------------------------------------------------------------------- */

typedef struct {
    const gmi_launch *launch;
    gmi_checkpoint *cp;
    char why[256];
} S_replay;

static int S_prepare(void *user, size_t i)
{
    (void)i;
    S_replay *rp = user;
    CUptiResult r = cuptiCheckpointRestore(rp->cp);
    if (r != CUPTI_SUCCESS) {
        const char *d = NULL;
        (void)cuptiGetResultString(r, &d);
        snprintf(rp->why, sizeof rp->why, "cuptiCheckpointRestore: %s (%d)", d ? d : "?", (int)r);
        return 1;
    }
    return 0;
}

static int S_launch_again(void *user, size_t i)
{
    (void)i;
    S_replay *rp = user;
    CUresult r = gmi_relaunch(rp->launch);
    if (r != CUDA_SUCCESS) {
        const char *n = NULL;
        (void)cuGetErrorName(r, &n);
        snprintf(rp->why, sizeof rp->why, "relaunch: %s (%d)", n ? n : "?", (int)r);
        return 1;
    }
    return 0;
}

/* Profile the launch about to be enqueued.  Called with gmi.lock held and
 * gmi_busy set; every CUDA call of the program is blocked behind us on this
 * thread. */
void gmi_profile(const gmi_launch *L, const char *symbol, long long index, CUcontext ctx)
{
    if (!gmi_session_open(ctx)) {
        gmi.status.failed++;
        return;
    }
    if (gmi.ctx_dead || ctx != gmi.ctx) {
        gmi.status.not_profilable++;
        gmi_note(gmi.ctx_dead ? "launches after the program destroyed the device's primary context "
                                "(cudaDeviceReset) are not profiled"
                              : "launches in a context other than the device's primary context are "
                                "not profiled");
        return;
    }
    /* The checkpoint must see the program's memory as this launch will:
     * everything enqueued before it has finished. */
    gmi_checkpoint cp;
    char why[256];
    const char *kind = S_sync_save(&cp, ctx, why, sizeof why);
    if (kind) {
        gmi.status.failed++;
        gmi_error(kind, "launch %lld (%s): %s: not profiled", index, symbol, why);
        return;
    }
    S_replay rp = {L, &cp, ""};
    gmc_error e = {GMC_OK, ""};
    gmc_status st = S_passes(1, S_prepare, S_launch_again, &rp, &e);
    /* Whatever happened, the program's launch must find its memory as it left it. */
    double t5 = gmi_now();
    CUptiResult r = cuptiCheckpointRestore(&cp);
    CUresult sr = cuCtxSynchronize();
    (void)cuCtxSetCurrent(ctx);
    gmi.t_restore += gmi_now() - t5;
    if (r != CUPTI_SUCCESS || sr != CUDA_SUCCESS) {
        gmi.stopped = true;
        gmi_error("restore", "launch %lld (%s): the program's memory could not be restored after "
                  "profiling (restore %d, synchronize %d); its results may be wrong. Nothing "
                  "more is profiled", index, symbol, (int)r, (int)sr);
    }
    (void)cuptiCheckpointFree(&cp);
    if (st != GMC_OK) {
        gmi.status.failed++;
        gmi_error(gmi_kind_of(st), "launch %lld (%s): %s%s%s", index, symbol, e.message,
                  rp.why[0] ? ": " : "", rp.why);
        return;
    }
    char *range = gmi_range_path();
    S_add_run(L, symbol, index, range, gmi.values,
              "replayed alone, from the memory it found (CUPTI checkpoint): its arguments could "
              "not be copied for a batch");
    free(range);
    gmi.status.profiled++;
    gmi.single++;
    gmi_debug("profiled launch %lld %s", index, symbol);
    if (gmi.results.n_runs <= 256 || gmi.results.n_runs % 64 == 0)
        gmi_write_runs();
    gmi_write_status();
}

/* ---- batches (inject.h, "batches") -------------------------------------------------------- */

/* How long the exit handler waits for launches still running (a collective
 * whose peers are gone never ends): then their runs say so. */
#define S_EXIT_WAIT_S 10.0

static CUresult S_op_make(const struct gmi_op *o)
{
    switch (o->kind) {
    case GMI_OP_MEMSET8:
        return cuMemsetD8Async(o->dst, (unsigned char)o->value, o->n, NULL);
    case GMI_OP_MEMSET16:
        return cuMemsetD16Async(o->dst, (unsigned short)o->value, o->n, NULL);
    case GMI_OP_MEMSET32:
        return cuMemsetD32Async(o->dst, o->value, o->n, NULL);
    case GMI_OP_COPY_DTOD:
        return cuMemcpyDtoDAsync(o->dst, o->src, o->n, NULL);
    case GMI_OP_COPY_ANY:
        return cuMemcpyAsync(o->dst, o->src, o->n, NULL);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

/* Record the call (params: its functionParams) as an operation of the open
 * batch; false when it cannot be (then it ends the batch). */
bool gmi_op_record(gmi_op_kind kind, const void *params)
{
    struct gmi_op o = {kind, 0, 0, 0, 0, gmi.n_pending};
    switch (kind) {
    case GMI_OP_MEMSET8: {
        const gmi_memset8_params *a = params;
        o.dst = a->dst, o.value = a->v, o.n = a->n;
        break;
    }
    case GMI_OP_MEMSET16: {
        const gmi_memset16_params *a = params;
        o.dst = a->dst, o.value = a->v, o.n = a->n;
        break;
    }
    case GMI_OP_MEMSET32: {
        const gmi_memset32_params *a = params;
        o.dst = a->dst, o.value = a->v, o.n = a->n;
        break;
    }
    case GMI_OP_COPY_DTOD: {
        const gmi_copy_params *a = params;
        o.dst = a->dst, o.src = a->src, o.n = a->n;
        break;
    }
    default:
        return false;
    }
    if (gmi.n_ops == gmi.cap_ops) {
        gmi.cap_ops = gmi.cap_ops ? 2 * gmi.cap_ops : 16;
        gmi.ops = gm_xrealloc(gmi.ops, gmi.cap_ops * sizeof *gmi.ops);
    }
    gmi.ops[gmi.n_ops++] = o;
    return true;
}

typedef struct {
    struct gmi_pending *p;
    char why[256];
} S_batch_replay;

/* Before launch i of a pass: the memory the first launch found (i = 0), then
 * the memsets and copies the program made before launch i; launch i > 0
 * otherwise finds what launch i - 1's replay left. */
static int S_batch_prepare(void *user, size_t i)
{
    S_batch_replay *rp = user;
    if (i == 0) {
        CUptiResult r = cuptiCheckpointRestore(&gmi.before);
        if (r != CUPTI_SUCCESS) {
            const char *d = NULL;
            (void)cuptiGetResultString(r, &d);
            snprintf(rp->why, sizeof rp->why, "cuptiCheckpointRestore: %s (%d)", d ? d : "?",
                     (int)r);
            return 1;
        }
    }
    for (size_t k = 0; k < gmi.n_ops; k++) {
        if (gmi.ops[k].before != i)
            continue;
        CUresult r = S_op_make(&gmi.ops[k]);
        if (r != CUDA_SUCCESS) {
            const char *n = NULL;
            (void)cuGetErrorName(r, &n);
            snprintf(rp->why, sizeof rp->why, "memset or copy before launch %lld: %s (%d)",
                     rp->p[i].index, n ? n : "?", (int)r);
            return 1;
        }
    }
    return 0;
}

static int S_batch_launch(void *user, size_t i)
{
    S_batch_replay *rp = user;
    CUresult r = gmi_relaunch(&rp->p[i].L);
    if (r != CUDA_SUCCESS) {
        const char *n = NULL;
        (void)cuGetErrorName(r, &n);
        snprintf(rp->why, sizeof rp->why, "relaunch of launch %lld: %s (%d)", rp->p[i].index,
                 n ? n : "?", (int)r);
        return 1;
    }
    return 0;
}

static void S_batch_count_end(const char *why)
{
    size_t k, n = sizeof gmi.ends / sizeof gmi.ends[0];
    for (k = 0; k < n && gmi.ends[k].why[0]; k++)
        if (strcmp(gmi.ends[k].why, why) == 0)
            break;
    if (k == n)
        return;
    if (!gmi.ends[k].why[0])
        snprintf(gmi.ends[k].why, sizeof gmi.ends[k].why, "%s", why);
    gmi.ends[k].n++;
}

/* Save the memory the batch left, replay its n launches once per pass from
 * the memory its first launch found, and restore what it left.  The
 * collector's status; e and rp->why say what failed. */
static gmc_status S_batch_profile(size_t n, S_batch_replay *rp, gmc_error *e)
{
    gmi_checkpoint after;
    gmc_status st = GMC_ERR_LAUNCH;
    bool saved = !S_sync_save(&after, gmi.ctx, e->message, sizeof e->message);
    if (saved)
        st = S_passes(n, S_batch_prepare, S_batch_launch, rp, e);
    /* The program goes on from the memory it left, whatever happened. */
    double t5 = gmi_now();
    CUptiResult rr = saved ? cuptiCheckpointRestore(&after) : CUPTI_SUCCESS;
    CUresult sr = cuCtxSynchronize();
    gmi.t_restore += gmi_now() - t5;
    if (rr != CUPTI_SUCCESS || sr != CUDA_SUCCESS) {
        gmi.stopped = true;
        gmi_error("restore", "the program's memory could not be restored after profiling "
                  "launches %lld to %lld (restore %d, synchronize %d); its results may be "
                  "wrong. Nothing more is profiled", gmi.pending[0].index, gmi.pending[n - 1].index,
                  (int)rr, (int)sr);
    }
    if (saved)
        (void)cuptiCheckpointFree(&after);
    (void)cuptiCheckpointFree(&gmi.before);
    return st;
}

/* The batch's n launches as runs when its replay went well (st), else counted
 * as failed, with the reason. */
static void S_batch_results(size_t n, gmc_status st, const gmc_error *e,
                            const S_batch_replay *rp)
{
    if (st == GMC_OK) {
        const char *how = "replayed in a batch of the program's profiled launches, from the "
                          "memory the batch's first launch found (CUPTI checkpoint)";
        for (size_t i = 0; i < n; i++) {
            struct gmi_pending *p = &gmi.pending[i];
            S_add_run(&p->L, p->symbol, p->index, p->range, gmi.values + i * gmi.n_metrics, how);
        }
        gmi.status.profiled += (long long)n;
        gmi.batches++;
        gmi.batched += (long long)n;
        if (gmi.results.n_runs <= 256 || gmi.results.n_runs / 64 != (gmi.results.n_runs - n) / 64)
            gmi_write_runs();
    } else {
        gmi.status.failed += (long long)n;
        gmi_error(gmi_kind_of(st), "launches %lld to %lld (%s ...): %s%s%s", gmi.pending[0].index,
                  gmi.pending[n - 1].index, gmi.pending[0].symbol, e->message,
                  rp->why[0] ? ": " : "", rp->why);
    }
}

/* Replay the open batch and close it.  Called with gmi.lock held and gmi_busy
 * set, at the entry of the call that ends it (why: its name), so nothing the
 * program enqueued after the batch has run. */
void gmi_batch_end(const char *why)
{
    size_t n = gmi.n_pending;
    if (n == 0)
        return;
    S_batch_count_end(why);
    gmi_debug("batch of %zu launches ended by %s", n, why);
    CUcontext cur = NULL;
    (void)cuCtxGetCurrent(&cur);
    (void)cuCtxSetCurrent(gmi.ctx);
    gmc_error e = {GMC_OK, ""};
    S_batch_replay rp = {gmi.pending, ""};
    gmc_status st = S_batch_profile(n, &rp, &e);
    S_batch_results(n, st, &e, &rp);
    for (size_t i = 0; i < n; i++)
        gmi_pending_free(&gmi.pending[i]);
    for (size_t k = 0; k < gmi.n_ops; k++)
        gmi.ops_replayed += gmi.ops[k].before < n;
    gmi.n_ops = 0;
    __atomic_store_n(&gmi.n_pending, 0, __ATOMIC_RELEASE);
    gmi_timed_collect(0);   /* the context was synchronized: earlier timings are done */
    gmi_write_status();
    (void)cuCtxSetCurrent(cur);
}

/* At exit, registered when the first batch opens or the first launch is
 * timed (so it runs before the CUDA runtime's own exit handlers, registered
 * earlier): the last batch, and the timings not yet read. */
static void S_at_exit_batch(void)
{
    pthread_mutex_lock(&gmi.lock);
    gmi_busy = 1;
    if (__atomic_load_n(&gmi.n_pending, __ATOMIC_ACQUIRE) && !gmi.ctx_dead)
        gmi_batch_end("the program's exit");
    if (gmi.n_timed && !gmi.ctx_dead) {
        gmi_timed_collect(S_EXIT_WAIT_S);
        gmi_write_runs();
    }
    gmi_busy = 0;
    pthread_mutex_unlock(&gmi.lock);
}

void gmi_exit_hook(void)
{
    if (gmi.exit_hook)
        return;
    gmi.exit_hook = true;
    if (atexit(S_at_exit_batch) != 0)
        gmi_error("io", "atexit failed: the launches after the program's last CUDA call that "
                        "ends a batch may be missing");
}

/* Add the launch about to be enqueued to the open batch, opening one when
 * there is none.  false: it could not be copied (profile it on its own).
 * Called with gmi.lock held and gmi_busy set. */
bool gmi_batch_add(const gmi_launch *L, const char *symbol, long long index, CUcontext ctx)
{
    struct gmi_pending p;
    if (!gmi_pending_copy(&p, L))
        return false;
    if (gmi.n_pending == GMI_BATCH_MAX)
        gmi_batch_end("a full batch");
    if (gmi.stopped) {
        gmi_pending_free(&p);
        gmi.status.failed++;
        return true;
    }
    if (gmi.n_pending == 0) {
        /* The checkpoint must see the program's memory as this launch will. */
        char why[256];
        const char *kind = S_sync_save(&gmi.before, ctx, why, sizeof why);
        if (kind) {
            gmi.status.failed++;
            gmi_error(kind, "launch %lld (%s): %s: not profiled", index, symbol, why);
            gmi_pending_free(&p);
            return true;
        }
        gmi_exit_hook();
        if (!gmi.pending)
            gmi.pending = gm_xcalloc(GMI_BATCH_MAX, sizeof *gmi.pending);
    }
    p.symbol = gm_xstrdup(symbol);
    p.index = index;
    p.range = gmi_range_path();
    struct gmi_pending *slot = &gmi.pending[gmi.n_pending];
    *slot = p;
    /* extra and config point into the struct itself: at its new place now */
    if (slot->L.extra)
        slot->L.extra = slot->extra;
    if (slot->L.config)
        slot->L.config = &slot->config;
    __atomic_store_n(&gmi.n_pending, gmi.n_pending + 1, __ATOMIC_RELEASE);
    gmi_debug("launch %lld %s: batched (%zu)", index, symbol, gmi.n_pending);
    return true;
}

/* ---- a CUDA graph, node by node (inject.h, "CUDA graphs") ---------------------------------- */

typedef struct {
    struct gmi_graph *g;
    size_t from;               /* the chunk's first kernel node */
    gmi_checkpoint *start;     /* the memory that node finds */
    char why[256];
} S_graph_run;

/* Before node from + i of a pass: the chunk's memory (i = 0), then the
 * graph's memsets and copies that precede the node. */
static int S_graph_prepare(void *user, size_t i)
{
    S_graph_run *rp = user;
    if (i == 0) {
        CUptiResult r = cuptiCheckpointRestore(rp->start);
        if (r != CUPTI_SUCCESS) {
            const char *d = NULL;
            (void)cuptiGetResultString(r, &d);
            snprintf(rp->why, sizeof rp->why, "cuptiCheckpointRestore: %s (%d)", d ? d : "?",
                     (int)r);
            return 1;
        }
    }
    for (size_t k = 0; k < rp->g->n_ops; k++) {
        if (rp->g->ops[k].before != rp->from + i)
            continue;
        CUresult r = S_op_make(&rp->g->ops[k]);
        if (r != CUDA_SUCCESS) {
            const char *n = NULL;
            (void)cuGetErrorName(r, &n);
            snprintf(rp->why, sizeof rp->why, "memset or copy node before kernel node %zu: %s (%d)",
                     rp->from + i, n ? n : "?", (int)r);
            return 1;
        }
    }
    return 0;
}

static int S_graph_launch(void *user, size_t i)
{
    S_graph_run *rp = user;
    CUresult r = gmi_relaunch(&rp->g->kernels[rp->from + i].L);
    if (r != CUDA_SUCCESS) {
        const char *n = NULL;
        (void)cuGetErrorName(r, &n);
        snprintf(rp->why, sizeof rp->why, "relaunch of kernel node %zu: %s (%d)", rp->from + i,
                 n ? n : "?", (int)r);
        return 1;
    }
    return 0;
}

/* One chunk's selected nodes as runs. */
static void S_graph_runs(const struct gmi_graph *g, size_t from, size_t n, const bool *sel,
                         const long long *index, const char *range)
{
    for (size_t i = from; i < from + n; i++) {
        if (!sel[i])
            continue;
        const struct gmi_pending *p = &g->kernels[i];
        char how[256];
        snprintf(how, sizeof how, "in a CUDA graph (graph %lld, kernel node %zu of %zu): "
                 "replayed node by node from the memory the graph's launch found (CUPTI "
                 "checkpoint)", g->id, i + 1, g->n_kernels);
        S_add_run(&p->L, p->symbol, index[i], range, gmi.values + (i - from) * gmi.n_metrics, how);
        gm_run_set_param(&gmi.results.runs[gmi.results.n_runs - 1], "graph", gm_vint(g->id));
        gmi.status.profiled++;
    }
}

static size_t S_count_sel(const bool *sel, size_t from, size_t upto)
{
    size_t k = 0;
    for (size_t i = from; i < upto; i++)
        k += sel[i];
    return k;
}

/* The per-line pass keeps the first launch of each kernel (inject_replay.c):
 * for the graph's selected nodes of kernels not kept yet, the nodes are made
 * once more from the memory the graph's launch found (c0), with its memsets
 * and copies, each such node kept just before it runs.  Outside the profiler's
 * passes, which restore c0 first.  gmi_busy set. */
static void S_graph_capture(struct gmi_graph *g, const bool *sel, const long long *index,
                            size_t upto, gmi_checkpoint *c0)
{
    bool want = false;
    for (size_t i = 0; i < upto && !want; i++)
        want = sel[i] && gmi_capture_wants(g->kernels[i].symbol);
    if (!want || cuptiCheckpointRestore(c0) != CUPTI_SUCCESS)
        return;
    for (size_t i = 0; i < upto; i++) {
        for (size_t k = 0; k < g->n_ops; k++)
            if (g->ops[k].before == i && S_op_make(&g->ops[k]) != CUDA_SUCCESS)
                return;
        if (sel[i] && gmi_capture_wants(g->kernels[i].symbol)) {
            char *name = gmi_demangle(g->kernels[i].symbol);
            gmi_capture_launch(&g->kernels[i].L, g->kernels[i].symbol, name, index[i], gmi.ctx);
            free(name);
        }
        if (gmi_relaunch(&g->kernels[i].L) != CUDA_SUCCESS)
            return;
    }
    (void)cuCtxSynchronize();
}

void gmi_graph_replay(struct gmi_graph *g, const bool *sel, const long long *index, size_t upto,
                      const char *range)
{
    CUcontext cur = NULL;
    (void)cuCtxGetCurrent(&cur);
    (void)cuCtxSetCurrent(gmi.ctx);
    gmi_checkpoint c0;
    char why[256];
    const char *kind = S_sync_save(&c0, gmi.ctx, why, sizeof why);
    if (kind) {
        gmi.status.failed += (long long)S_count_sel(sel, 0, upto);
        gmi_error(kind, "CUDA graph %lld: %s: its kernels are not profiled", g->id, why);
        (void)cuCtxSetCurrent(cur);
        return;
    }
    for (size_t i = 0; i < upto; i++) {   /* extra and config point into the copy */
        struct gmi_pending *p = &g->kernels[i];
        if (p->L.extra)
            p->L.extra = p->extra;
        if (p->L.config)
            p->L.config = &p->config;
    }
    S_graph_capture(g, sel, index, upto, &c0);
    for (size_t from = 0; from < upto; from += GMI_BATCH_MAX) {
        size_t n = upto - from < GMI_BATCH_MAX ? upto - from : GMI_BATCH_MAX;
        /* a later chunk starts from what the last pass of the one before left:
         * the memory after node from - 1 */
        gmi_checkpoint ck;
        S_graph_run rp = {g, from, &c0, ""};
        gmc_error e = {GMC_OK, ""};
        if (from > 0 && (kind = S_sync_save(&ck, gmi.ctx, e.message, sizeof e.message))) {
            gmi.status.failed += (long long)S_count_sel(sel, from, upto);
            gmi_error(kind, "CUDA graph %lld, kernel nodes %zu to %zu: %s", g->id, from + 1, upto,
                      e.message);
            break;
        }
        if (from > 0)
            rp.start = &ck;
        gmc_status st = S_passes(n, S_graph_prepare, S_graph_launch, &rp, &e);
        if (from > 0)
            (void)cuptiCheckpointFree(&ck);
        if (st != GMC_OK) {
            gmi.status.failed += (long long)S_count_sel(sel, from, upto);
            gmi_error(gmi_kind_of(st), "CUDA graph %lld, kernel nodes %zu to %zu (%s ...): %s%s%s",
                      g->id, from + 1, upto, g->kernels[from].symbol, e.message,
                      rp.why[0] ? ": " : "", rp.why);
            break;
        }
        S_graph_runs(g, from, n, sel, index, range);
        gmi.graph_nodes += (long long)n;
    }
    /* The program's launch of the graph finds its memory as it left it. */
    double t5 = gmi_now();
    CUptiResult rr = cuptiCheckpointRestore(&c0);
    CUresult sr = cuCtxSynchronize();
    gmi.t_restore += gmi_now() - t5;
    if (rr != CUPTI_SUCCESS || sr != CUDA_SUCCESS) {
        gmi.stopped = true;
        gmi_error("restore", "CUDA graph %lld: the program's memory could not be restored after "
                  "profiling its kernels (restore %d, synchronize %d); its results may be wrong. "
                  "Nothing more is profiled", g->id, (int)rr, (int)sr);
    }
    (void)cuptiCheckpointFree(&c0);
    gmi.graph_replays++;
    gmi_timed_collect(0);
    if (gmi.results.n_runs <= 256 || gmi.graph_replays % 16 == 0)
        gmi_write_runs();   /* (all of them at exit) */
    gmi_write_status();
    (void)cuCtxSetCurrent(cur);
}
