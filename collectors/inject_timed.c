/* inject_timed.c — launches that cannot be replayed (inject.h, "kernels that
 * cannot be replayed"), timed from their own execution.
 *
 * A collective (NCCL's all-reduce, ...) waits for the same kernel on the
 * other GPUs of its job: replayed alone, once per pass, it would wait for
 * ever or fail (CUDA_ERROR_INVALID_VALUE was seen).  A CUDA graph with a host
 * function or another node the tool cannot make again cannot be replayed
 * node by node.  Such a launch runs once, as the program makes it, with a
 * CUDA event recorded on its stream just before it (at the launch's entry)
 * and one just after (at its exit): the time between them is its duration,
 * the launch's own latency of a few microseconds included.  No counter can
 * be read without a replay (the default set needs 5 passes on GH100), so the
 * run has its duration alone and says why (gm_run.not_replayed).
 *
 * The events are read when they have completed: after each batch and graph
 * replay (the context was synchronized), at the next timed launch, and at
 * exit (waiting up to a bound: a collective whose peers are gone never ends,
 * and the run then says so).  Called with gmi.lock held.
 */
#include "inject.h"
#include "inject_internal.h"

#include "../core/buf.h"
#include "../core/catalog.h"
#include "../core/results.h"

#include <cuda.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Open the session (the results' header) and check the context; false
 * (counted, said) when the launch cannot be timed. */
static bool S_can_time(CUcontext ctx, long long n)
{
    if (gmi.stopped || !gmi_session_open(ctx)) {
        gmi.status.failed += n;
        return false;
    }
    if (gmi.ctx_dead || ctx != gmi.ctx) {
        gmi.status.not_profilable += n;
        gmi_note("launches in a context other than the device's primary context are not "
                 "profiled");
        return false;
    }
    return true;
}

/* A new slot with its first event recorded on s; -1 (error said) when the
 * events cannot be made. */
static long long S_begin(CUstream s, long long index)
{
    gmi_timed_collect(0);
    CUevent e0 = NULL, e1 = NULL;
    CUresult r = cuEventCreate(&e0, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
        r = cuEventCreate(&e1, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
        r = cuEventRecord(e0, s);
    if (r != CUDA_SUCCESS) {
        const char *n = NULL;
        (void)cuGetErrorName(r, &n);
        gmi.status.failed++;
        gmi_error("cuda", "launch %lld: cannot record an event around it (%s): not timed", index,
                  n ? n : "?");
        if (e0)
            (void)cuEventDestroy(e0);
        if (e1)
            (void)cuEventDestroy(e1);
        return -1;
    }
    if (gmi.n_timed == gmi.cap_timed) {
        gmi.cap_timed = gmi.cap_timed ? 2 * gmi.cap_timed : 16;
        gmi.timed = gm_xrealloc(gmi.timed, gmi.cap_timed * sizeof *gmi.timed);
    }
    struct gmi_timed *t = &gmi.timed[gmi.n_timed];
    memset(t, 0, sizeof *t);
    t->e0 = e0;
    t->e1 = e1;
    t->stream = s;
    t->index = index;
    t->range = gmi_range_path();
    t->id = ++gmi.timed_ids;
    gmi.n_timed++;
    gmi_exit_hook();
    return t->id;
}

/* The entry of slot id, or NULL. */
static struct gmi_timed *S_slot(long long id)
{
    for (size_t i = 0; i < gmi.n_timed; i++)
        if (gmi.timed[i].id == id)
            return &gmi.timed[i];
    return NULL;
}

void gmi_memory_shared(const char *why)
{
    if (gmi.shared[0] || gmi.opts.replay_shared)
        return;
    if (gmi.n_pending)
        gmi_batch_end("memory shared with other processes or GPUs");
    snprintf(gmi.shared, sizeof gmi.shared, "%s", why);
    gmi_note("launches after this process shared memory with other processes or GPUs (or ran "
             "a collective) were timed, not replayed: restoring memory for a replay could "
             "undo what they write into it");
    gmi_debug("memory shared: %s; later launches are timed, not replayed", why);
}

long long gmi_timed_launch(const gmi_launch *L, const char *symbol, long long index,
                           CUcontext ctx, const char *why, bool collective)
{
    if (gmi.n_pending)
        gmi_batch_end("a kernel that cannot be replayed");
    if (!S_can_time(ctx, 1))
        return -1;
    CUstream s = L->ptsz && !L->stream ? CU_STREAM_PER_THREAD : L->stream;
    long long slot = S_begin(s, index);
    struct gmi_timed *t = S_slot(slot);
    if (!t)
        return -1;
    t->symbol = gm_xstrdup(symbol);
    t->L = *L;
    t->L.params = NULL, t->L.extra = NULL, t->L.config = NULL;
    gm_buf b = GM_BUF_INIT;
    if (collective)
        gm_buf_printf(&b, "%s: it may wait on other GPUs, processes or the host, so a replay of "
                          "it alone might never end; it ran once, as the program made it", why);
    else
        gm_buf_printf(&b, "run after %s: they may write into its memory at any time, and "
                          "restoring it for a replay could undo their writes; it ran once, as "
                          "the program made it", why);
    t->why = gm_buf_detach(&b);
    gmi.status.timed++;
    gmi_debug("launch %lld %s: not replayed (%s), timed", index, symbol, why);
    return slot;
}

long long gmi_timed_graph(const struct gmi_graph *g, CUstream s, long long index, CUcontext ctx,
                          const char *why_not)
{
    if (!S_can_time(ctx, 0))
        return -1;
    long long slot = S_begin(s, index);
    struct gmi_timed *t = S_slot(slot);
    if (!t)
        return -1;
    t->graph = g->id;
    t->graph_kernels = g->n_kernels;
    gm_buf names = GM_BUF_INIT, why = GM_BUF_INIT;
    gm_buf_puts(&names, "");
    for (size_t i = 0; i < g->n_kernels; i++) {
        if (i == 8) {
            gm_buf_printf(&names, ", ... (%zu in all)", g->n_kernels);
            break;
        }
        char *d = gmi_demangle(g->symbols[i]);
        char *sh = gmi_short_name(d);
        gm_buf_printf(&names, "%s%s", i ? ", " : "", sh);
        free(d);
        free(sh);
    }
    t->kernels = gm_buf_detach(&names);
    gm_buf_printf(&why, "a CUDA graph that cannot be replayed node by node (%s%s): timed "
                        "whole, as it ran once; its %zu kernel node%s (%s) not counted one by one",
                  g->refusal ? "" : "run after ", why_not, g->n_kernels,
                  g->n_kernels == 1 ? "" : "s", t->kernels);
    t->why = gm_buf_detach(&why);
    gmi.status.timed++;
    gmi_debug("CUDA graph %lld: not replayed (%s), timed whole", g->id, why_not);
    return slot;
}

void gmi_timed_end(long long slot, bool launched)
{
    struct gmi_timed *t = S_slot(slot);
    if (!t)
        return;
    if (launched && cuEventRecord(t->e1, t->stream) == CUDA_SUCCESS)
        t->ended = true;
    else
        t->failed = true;
}

/* The run of a timed launch: its duration (ms; NaN when unknown, late: why). */
static void S_run(const struct gmi_timed *t, double ms, const char *late)
{
    gm_run *run = gm_results_add_run(&gmi.results);
    run->experiment = gm_xstrdup("app");
    if (t->symbol) {
        run->kernel = gmi_demangle(t->symbol);
    } else {
        gm_buf b = GM_BUF_INIT;
        gm_buf_printf(&b, "CUDA-graph-%lld", t->graph);   /* one word: the name the report shows */
        run->kernel = gm_buf_detach(&b);
        gm_run_set_param(run, "graph", gm_vint(t->graph));
    }
    run->variant = gmi_short_name(run->kernel);
    gm_run_set_param(run, "launch", gm_vint(t->index));
    if (t->range)
        gm_run_set_param(run, "range", gm_vstr(t->range));
    if (t->symbol) {
        run->has_launch = true;
        gmi_launch_shape(&t->L, &run->launch);
    }
    for (size_t m = 0; m < gmi.n_metrics; m++) {
        bool dur = m == gmi.duration_index && isfinite(ms);
        gm_run_set_metric(run, gmi.metrics[m], dur ? gm_vreal(ms * 1e6) : gm_vabsent(),
                          gmc_session_metric_unit(gmi.session, m));
    }
    if (isfinite(ms)) {
        gm_timing_set_samples(&run->timing, &ms, 1);
        run->timing.present = true;
        run->timing.warmup = 0;
        run->timing.l2_flushed = false;
    }
    run->check.status = GM_CHECK_NO_REFERENCE;
    run->check.reason = gm_xstrdup("a program's output is its own; nothing to compare it with");
    run->not_replayed = gm_xstrdup(t->why);
    gm_run_add_note(run, "not replayed: %s; its duration measured from CUDA events recorded on "
                    "its stream just before and after it (the launch's own latency included); "
                    "no counter can be read without replaying it%s%s",
                    t->why, late ? "; " : "", late ? late : "");
}

static void S_drop(size_t i)
{
    struct gmi_timed *t = &gmi.timed[i];
    (void)cuEventDestroy(t->e0);
    (void)cuEventDestroy(t->e1);
    free(t->symbol);
    free(t->kernels);
    free(t->range);
    free(t->why);
    memmove(&gmi.timed[i], &gmi.timed[i + 1], (gmi.n_timed - i - 1) * sizeof *gmi.timed);
    gmi.n_timed--;
}

void gmi_timed_collect(double wait_s)
{
    if (!gmi.n_timed)
        return;
    double deadline = gmi_now() + wait_s;
    bool any = false;
    for (size_t i = 0; i < gmi.n_timed;) {
        struct gmi_timed *t = &gmi.timed[i];
        if (t->failed) {   /* the program's launch failed: nothing ran */
            gmi.status.timed--;
            S_drop(i);
            continue;
        }
        if (!t->ended) {   /* its call has not returned yet (another thread) */
            i++;
            continue;
        }
        CUresult q = cuEventQuery(t->e1);
        while (q == CUDA_ERROR_NOT_READY && wait_s > 0 && gmi_now() < deadline) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            q = cuEventQuery(t->e1);
        }
        if (q == CUDA_ERROR_NOT_READY && wait_s <= 0) {
            i++;
            continue;
        }
        float ms = NAN;
        if (q != CUDA_SUCCESS || cuEventElapsedTime(&ms, t->e0, t->e1) != CUDA_SUCCESS)
            ms = NAN;
        S_run(t, ms, q == CUDA_ERROR_NOT_READY
                         ? "it had not finished when the program exited (its duration unknown)"
                     : isnan(ms) ? "its events could not be read (its duration unknown)"
                                 : NULL);
        any = true;
        S_drop(i);
    }
    if (any && (gmi.results.n_runs <= 256 || gmi.results.n_runs % 64 == 0))
        gmi_write_runs();
}
