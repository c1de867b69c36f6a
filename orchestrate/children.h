/* children.h — a batch of this program's children, a few at a time.
 *
 * The suite's per-source-line pass starts one child per layout (the SASS
 * path, cli/cmd_sass.c) or a few trace children (cli/cmd_trace.c).  Each
 * runs through core/proc.h in a process group of its own, killed with this
 * process and at its time limit; its stdout is captured, the end of its
 * stderr kept.  At most `width` run at once, in waves, in order.  A child
 * that fails while others run beside it (out of GPU memory, say) runs once
 * more alone, after the rest, and keeps that result.
 *
 * Part of orchestrate/ (program.h says what the layer is). */
#ifndef GM_ORCH_CHILDREN_H
#define GM_ORCH_CHILDREN_H

#include "../core/buf.h"
#include "../core/gm_error.h"
#include "../core/proc.h"

#include <stdbool.h>
#include <stddef.h>

/* One child: args in (NULL-terminated, args[0] a path); out (stdout), err
 * (the end of stderr, newlines as spaces, or why it could not start), rc
 * (exit code, 128 + a signal, 124 when stopped at the time limit, 127 when
 * it could not start) and seconds out; retried: it failed beside others and
 * ran once more alone. */
typedef struct {
    char *const *args;
    gm_buf out;
    char err[600];
    int rc;
    double seconds;
    bool retried;
} gm_child_job;

/* A finished child's result as the per-line pass reports it: its stdout
 * appended to out (NULL: dropped), the end of its stderr in err[0..cap) with
 * newlines as spaces (or "stopped after N s" when it ran past timeout_s);
 * returns its exit code, 128 + a signal, or 124 when stopped. */
int gm_child_result(const gm_proc_result *r, double timeout_s, gm_buf *out, char *err,
                    size_t cap);

/* Run jobs[0..n), at most width at once; started(i, ctx) (may be NULL) as
 * job i starts (not again for its retry).  Free each job's out with
 * gm_buf_free. */
void gm_children_run(gm_child_job *jobs, size_t n, size_t width, double timeout_s,
                     void (*started)(size_t i, void *ctx), void *ctx);

/* How many children of the per-line pass run at once: GPUMEM_REPORT_JOBS
 * (1..64); deflt when unset.  Another value: *width 1 and an error that
 * names it. */
/* The SASS path's default, 4: the suite's per-line pass (43 SASS children)
 * took 22.8 s one at a time, 13.2 s four at a time and 12.1 s eight at a
 * time, with the same counts (H200, bench/results/probe-extra-2026-11-27-
 * 4c8175d.txt); four keep the device memory of the children to four
 * cases'.  The tracer's, 4 too: each child traces whole experiments
 * (gm_srclines_deal), and a traced kernel of one block (the chain DP) leaves
 * the rest of the GPU to the others. */
#define GM_CHILDREN_WIDTH_SASS 4
#define GM_CHILDREN_WIDTH_TRACE 4
gm_status gm_children_width(size_t *width, size_t deflt, gm_error *err);

#endif
