/* children.c — a batch of this program's children, a few at a time
 * (children.h). */
#include "children.h"

#include "../core/proc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gm_status gm_children_width(size_t *width, size_t deflt, gm_error *err)
{
    const char *env = getenv("GPUMEM_REPORT_JOBS");
    *width = deflt ? deflt : 1;
    if (!env || !*env)
        return GM_OK;
    char *end;
    errno = 0;
    long v = strtol(env, &end, 10);
    if (*end != '\0' || errno || v < 1 || v > 64) {
        *width = 1;
        return gm_fail(err, GM_ERR_VALUE,
                       "GPUMEM_REPORT_JOBS='%.40s' is not a whole number from 1 to 64", env);
    }
    *width = (size_t)v;
    return GM_OK;
}

int gm_child_result(const gm_proc_result *r, double timeout_s, gm_buf *out, char *err,
                    size_t cap)
{
    if (out && r->out.len)
        gm_buf_put(out, r->out.data, r->out.len);
    snprintf(err, cap, "%s", r->err.data ? r->err.data : "");
    for (char *p = err; *p; p++)
        if (*p == '\n' && p[1])
            *p = ' ';
    size_t len = strlen(err);
    while (len && err[len - 1] == '\n')
        err[--len] = '\0';
    if (r->timed_out) {   /* a hung kernel or child: the pass goes on without it */
        snprintf(err, cap, "stopped after %.0f s", timeout_s);
        return 124;
    }
    return r->code;
}

/* The result of one finished child into job. */
static void S_job_result(gm_child_job *job, gm_proc_result *r, double timeout_s)
{
    gm_buf_free(&job->out);
    job->rc = gm_child_result(r, timeout_s, &job->out, job->err, sizeof job->err);
    job->seconds = r->seconds;
}

/* Jobs idx[0..n) in waves of at most width. */
static void S_waves(gm_child_job *jobs, const size_t *idx, size_t n, size_t width,
                    double timeout_s, void (*started)(size_t, void *), void *ctx)
{
    gm_proc *procs = gm_xcalloc(width, sizeof *procs);
    gm_proc **ps = gm_xcalloc(width, sizeof *ps);
    gm_proc_spec *specs = gm_xcalloc(width, sizeof *specs);
    size_t *who = gm_xcalloc(width, sizeof *who);
    for (size_t at = 0; at < n;) {
        size_t k = 0;
        for (; k < width && at < n; at++) {
            gm_child_job *job = &jobs[idx[at]];
            specs[k] = (gm_proc_spec){.argv = job->args, .out = GM_PROC_CAPTURE,
                                      .err = GM_PROC_CAPTURE, .err_tail = sizeof job->err - 1,
                                      .own_group = true, .death_signal = SIGKILL,
                                      .timeout_s = timeout_s};
            if (started)
                started(idx[at], ctx);
            gm_error perr = {GM_OK, ""};
            if (gm_proc_start(&procs[k], &specs[k], NULL, &perr) != GM_OK) {
                snprintf(job->err, sizeof job->err, "%s", perr.message);
                job->rc = 127;
                job->seconds = 0;
                continue;
            }
            ps[k] = &procs[k];
            who[k++] = idx[at];
        }
        gm_proc_wait(ps, k);
        for (size_t j = 0; j < k; j++) {
            S_job_result(&jobs[who[j]], &procs[j].res, timeout_s);
            gm_proc_result_free(&procs[j].res);
        }
    }
    free(who);
    free(specs);
    free(ps);
    free(procs);
}

void gm_children_run(gm_child_job *jobs, size_t n, size_t width, double timeout_s,
                       void (*started)(size_t i, void *ctx), void *ctx)
{
    if (width < 1)
        width = 1;
    size_t *idx = gm_xcalloc(n ? n : 1, sizeof *idx);
    for (size_t i = 0; i < n; i++) {
        idx[i] = i;
        jobs[i].rc = -1;
        jobs[i].err[0] = '\0';
        jobs[i].retried = false;
    }
    S_waves(jobs, idx, n, width, timeout_s, started, ctx);
    size_t again = 0;
    if (width > 1 && n > 1)
        for (size_t i = 0; i < n; i++)
            if (jobs[i].rc != 0 && jobs[i].rc != 124) {
                jobs[i].retried = true;
                idx[again++] = i;
            }
    S_waves(jobs, idx, again, 1, timeout_s, NULL, NULL);
    free(idx);
}

