#include "ranks.h"

#include "charts.h"
#include "../core/escape.h"
#include "../core/fmt.h"

#include <math.h>
#include <string.h>

#define DASH "—"

static void S_who(gm_buf *b, const gm_process *p)
{
    gm_buf_puts(b, "host ");
    gm_esc_md(b, p->host ? p->host : DASH);
    if (p->rank.kind == GM_V_INT) {
        gm_buf_printf(b, ", rank %lld", p->rank.i);
        if (p->rank_var) {
            gm_buf_puts(b, " (");
            gm_esc_md(b, p->rank_var);
            gm_buf_puts(b, ")");
        }
    }
    gm_buf_printf(b, ", pid %lld", p->pid);
}

static void S_wait(gm_buf *b, const gm_process *p)
{
    double w = gm_value_num(&p->lock_wait_seconds);
    if (p->lock_waits > 0) {
        gm_buf_puts(b, "waited ");
        gm_fmt_num(b, w, 3);
        gm_buf_printf(b, " s in %lld of %lld turn%s", p->lock_waits, p->lock_turns,
                      p->lock_turns == 1 ? "" : "s");
    } else if (isfinite(w)) {
        gm_buf_printf(b, "never waited (%lld turn%s)", p->lock_turns,
                      p->lock_turns == 1 ? "" : "s");
    } else {
        gm_buf_puts(b, DASH);
    }
}

void gm_md_process_rows(gm_buf *b, const gm_results *r)
{
    const gm_process *p = &r->collection.process;
    if (!p->present)
        return;
    gm_buf_puts(b, "| Process | ");
    S_who(b, p);
    if (p->device_uuid) {
        gm_buf_puts(b, "; GPU ");
        gm_esc_md_code(b, p->device_uuid);
    }
    gm_buf_puts(b, " |\n");
    if (p->lock_waits > 0) {
        gm_buf_puts(b, "| GPU shared | another process was using this GPU: this one waited ");
        gm_fmt_num(b, gm_value_num(&p->lock_wait_seconds), 3);
        gm_buf_puts(b, " s for its turn");
        if (p->lock_turns > 1)
            gm_buf_printf(b, " (%lld of its %lld turns had to wait)", p->lock_waits,
                          p->lock_turns);
        gm_buf_puts(b, ". Processes on one GPU profile one at a time, so neither counts nor "
                       "times the other's kernels |\n");
    }
}

void gm_md_ranks(gm_buf *b, const gm_results *r)
{
    const gm_collection *c = &r->collection;
    if (!c->n_ranks)
        return;
    gm_buf_printf(b, "## Ranks\n\nThese results gather %zu ranks of one job "
                     "(`gpumem-report merge`); each run carries its rank as a parameter.\n\n",
                  c->n_ranks);
    gm_buf_puts(b, "| Rank | Host | PID | GPU | Runs | GPU time of its runs | Waited for the GPU |\n"
                   "|---:|---|---:|---|---:|---:|---|\n");
    for (size_t i = 0; i < c->n_ranks; i++) {
        const gm_process *p = &c->ranks[i];
        size_t n = 0;
        double t = 0;
        bool any_t = false;
        for (size_t k = 0; k < r->n_runs; k++) {
            const gm_param *rp = gm_run_param(&r->runs[k], "rank");
            if (!rp || p->rank.kind != GM_V_INT || gm_value_num(&rp->value) != (double)p->rank.i)
                continue;
            n++;
            double ms = gm_run_total_ms(&r->runs[k]);
            if (isfinite(ms)) {
                t += ms;
                any_t = true;
            }
        }
        if (p->rank.kind == GM_V_INT)
            gm_buf_printf(b, "| %lld | ", p->rank.i);
        else
            gm_buf_puts(b, "| " DASH " | ");
        gm_esc_md(b, p->host ? p->host : DASH);
        gm_buf_printf(b, " | %lld | ", p->pid);
        if (p->device_uuid)
            gm_esc_md_code(b, p->device_uuid);
        else
            gm_buf_puts(b, DASH);
        gm_buf_printf(b, " | %zu | ", n);
        gm_fmt_ms(b, any_t ? t : NAN);
        gm_buf_puts(b, " | ");
        S_wait(b, p);
        gm_buf_puts(b, " |\n");
    }
    gm_buf_puts(b, "\n");
}
