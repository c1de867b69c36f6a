/* md_limits.c — "Where the bytes go and what limits it": in each
 * experiment's section, one run per layout at the point its contrast is
 * answered, followed down the memory hierarchy as ncu's Memory Workload
 * Analysis chart follows it (global requests, the sectors L1 sees and its hit
 * rate, L2's hit rate, the bytes DRAM moves and at what share of the
 * ceiling, occupancy), then one sentence per layout naming what limits it
 * (limits.h).
 */
#include "md_int.h"

#include "../core/say.h"
#include "contrast.h"
#include "limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* At most this many layouts (a program: kernels, by share of time). */
#define S_MAX_ROWS 10

/* How many of the parameters of `run` take the value they take in `ref`. */
static int S_shared_params(const gm_run *run, const gm_run *ref)
{
    int k = 0;
    for (size_t i = 0; ref && i < run->n_params; i++) {
        const gm_param *q = gm_run_param(ref, run->params[i].name);
        if (!q)
            continue;
        gm_buf x = GM_BUF_INIT, y = GM_BUF_INIT;
        gm_fmt_value(&x, &run->params[i].value);
        gm_fmt_value(&y, &q->value);
        k += strcmp(x.data, y.data) == 0;
        gm_buf_free(&x);
        gm_buf_free(&y);
    }
    return k;
}

static double S_work(const gm_run *r)
{
    double x = 0;
    const gm_value *v[] = {&r->bytes_read, &r->bytes_written, &r->flops};
    for (size_t i = 0; i < 3; i++)
        if (gm_value_present(v[i]) && gm_value_num(v[i]) > 0)
            x += gm_value_num(v[i]);
    return x;
}

static bool S_has(const gm_run *const *rows, size_t n, const gm_run *run)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i] == run)
            return true;
    return false;
}

static bool S_variant_in(const gm_run *const *rows, size_t n, const char *variant)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i]->variant && variant && !strcmp(rows[i]->variant, variant))
            return true;
    return false;
}

/* The rows: the anchors (a contrast's two sides), then for each other
 * variant the passed run nearest them (most parameters in common, then
 * profiled, then the largest work).  Returns how many. */
static size_t S_rows(const gm_section *s, const gm_run *a, const gm_run *b, const gm_run **rows)
{
    size_t n = 0;
    if (a)
        rows[n++] = a;
    if (b && b != a)
        rows[n++] = b;
    for (size_t i = 0; i < s->n_runs && n < S_MAX_ROWS; i++) {
        const gm_run *v = s->runs[i];
        if (!gm_run_passed(v) || S_variant_in(rows, n, v->variant))
            continue;
        const gm_run *best = NULL;
        int best_score = -1;
        for (size_t j = i; j < s->n_runs; j++) {
            const gm_run *x = s->runs[j];
            if (!gm_run_passed(x) || !x->variant || !v->variant || strcmp(x->variant, v->variant))
                continue;
            int score = 4 * (S_shared_params(x, a) + S_shared_params(x, b)) + 2 * (x->n_metrics > 0);
            if (score > best_score || (score == best_score && S_work(x) > S_work(best))) {
                best = x;
                best_score = score;
            }
        }
        /* a variant never profiled (a host version) has no hierarchy to show */
        if (best && best->n_metrics && !S_has(rows, n, best))
            rows[n++] = best;
    }
    return n;
}

/* A program's kernels: those that take the most time (the section's order). */
static size_t S_program_rows(const gm_section *s, const gm_run **rows)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_runs && n < S_MAX_ROWS; i++)
        if (gm_run_passed(s->runs[i]))
            rows[n++] = s->runs[i];
    return n;
}

/* "16.0 MiB (91.2%)": a count or bytes with a share, "—" when absent. */
static void S_count_pct(gm_buf *b, double count, double pct)
{
    if (!isfinite(count)) {
        gm_buf_puts(b, DASH);
        return;
    }
    if (isfinite(pct))
        gm_say(b, "{} ({} hit)", GM_COUNT(count), GM_PCT(pct));
    else
        gm_say(b, "{}", GM_COUNT(count));
}

/* "88.0% hit", "—" when absent. */
static void S_hit(gm_buf *b, double pct)
{
    if (isfinite(pct))
        gm_say(b, "{} hit", GM_PCT(pct));
    else
        gm_buf_puts(b, DASH);
}

/* "3.1% of 100%": achieved occupancy of the theoretical, the achieved alone
 * when the launch does not record the theoretical, "—" when absent. */
static void S_occupancy(gm_buf *b, const gm_limits *l)
{
    if (isfinite(l->occupancy) && isfinite(l->theoretical))
        gm_say(b, "{} of {}", GM_PCT(l->occupancy), GM_PCT(l->theoretical));
    else if (isfinite(l->occupancy))
        gm_say(b, "{}", GM_PCT(l->occupancy));
    else
        gm_buf_puts(b, DASH);
}

/* "2,658 GB/s (79.0%)": a bandwidth with its share of the ceiling, "—" when
 * absent. */
static void S_gbs_pct(gm_buf *b, double gbs, double pct)
{
    if (isfinite(gbs))
        gm_say(b, "{} ({})", GM_GBS(gbs), GM_PCT(pct));
    else
        gm_buf_puts(b, DASH);
}

/* One row of the table; the Markdown forms end it with what limits the run. */
static void S_row(gm_buf *b, const gm_vary *v, const gm_run *run, const gm_limits *l, bool html)
{
    gm_buf name = GM_BUF_INIT, sectors = GM_BUF_INIT, l2 = GM_BUF_INIT, bw = GM_BUF_INIT,
           occ = GM_BUF_INIT;
    md_case(&name, v, run, NULL);
    S_occupancy(&occ, l);
    S_count_pct(&sectors, l->sectors, l->l1_hit);
    S_hit(&l2, l->l2_hit);
    S_gbs_pct(&bw, l->dram_gbs, l->dram_pct);
    gm_say_arg requests = isfinite(l->requests) ? GM_COUNT(l->requests) : GM_LIT(DASH);
    if (html) {
        gm_say(b, "| {} | {} | {} | {} | {} | {} | {} |\n", GM_BUF(&name), requests,
               GM_BUF(&sectors), GM_BUF(&l2), GM_BYTES(l->dram_bytes), GM_BUF(&bw),
               GM_BUF(&occ));
    } else {
        gm_buf limit = GM_BUF_INIT;
        gm_limits_short_md(&limit, l);
        gm_say(b, "| {} | {} | {} | {} | {} | {} | {} | {} |\n", GM_BUF(&name), requests,
               GM_BUF(&sectors), GM_BUF(&l2), GM_BYTES(l->dram_bytes), GM_BUF(&bw),
               GM_BUF(&occ), GM_BUF(&limit));
        gm_buf_free(&limit);
    }
    gm_buf_free(&name);
    gm_buf_free(&sectors);
    gm_buf_free(&l2);
    gm_buf_free(&bw);
    gm_buf_free(&occ);
}

void md_limits(gm_buf *b, const gm_results *r, const gm_section *s, bool html)
{
    const gm_run *rows[S_MAX_ROWS];
    size_t n = 0;
    gm_buf at = GM_BUF_INIT;
    gm_buf_puts(&at, "");
    bool program = gm_section_is_program(s);
    gm_contrast c, cp;
    bool have = !program && gm_contrast_find(s, &c);
    bool profiled = have && c.pair.a->n_metrics && c.pair.b->n_metrics;
    bool fallback = have && !profiled && gm_contrast_find_profiled(s, &cp);
    if (program) {
        n = S_program_rows(s, rows);
    } else if (have) {
        const gm_contrast *use = fallback ? &cp : &c;
        n = S_rows(s, use->pair.a, use->pair.b, rows);
        gm_pair_at_md(&at, s->exp->contrast_a, s->exp->contrast_b, &use->pair);
    } else {
        const gm_run *anchor = s->best ? s->best : NULL;
        n = S_rows(s, anchor, NULL, rows);
        gm_buf label = GM_BUF_INIT;
        if (anchor)
            gm_section_group_label(s, &label);
        if (label.len)
            md_text(&at, label.data);
        gm_buf_free(&label);
    }
    bool any = false;
    for (size_t i = 0; i < n; i++)
        any |= rows[i]->n_metrics > 0;
    if (!n || !any) {
        gm_buf_free(&at);
        return;
    }
    gm_ceiling ceil;
    gm_results_ceiling(r, &ceil);
    gm_vary v;
    gm_vary_build(rows, n, &v);

    gm_buf_puts(b, "**Where the bytes go and what limits it**");
    if (at.len)
        gm_say(b, " at {}", GM_BUF(&at));
    if (fallback) {
        gm_buf p = GM_BUF_INIT;
        gm_pair_at_md(&p, s->exp->contrast_a, s->exp->contrast_b, &c.pair);
        gm_say(b, ", the largest point profiled ({} was timed but not profiled)",
               p.len ? GM_BUF(&p) : GM_LIT("the question's point"));
        gm_buf_free(&p);
    }
    gm_buf_puts(b, program ? ", the kernels that take the most time down the memory hierarchy "
                             "(requests, then L1, L2, DRAM):\n\n"
                           : ", one run per layout down the memory hierarchy (requests, then "
                             "L1, L2, DRAM):\n\n");
    bool att = ceil.attainable;
    /* the page: the table, then a sentence per layout; the Markdown forms, brief,
     * put the verdict in a last column */
    gm_say(b,
           html ? "| {} | Requests | → L1 sectors | → L2 | → DRAM bytes | DRAM bandwidth "
                  "(% of {}) | Occupancy |\n|---|---:|---:|---:|---:|---:|---:|\n"
                : "| {} | Requests | → L1 sectors | → L2 | → DRAM bytes | DRAM bandwidth "
                  "(% of {}) | Occupancy | Limited by |\n|---|---:|---:|---:|---:|---:|---:|---|\n",
           GM_LIT(program ? "Kernel" : "Layout"), GM_LIT(att ? "attainable" : "copy bandwidth"));
    gm_limits *lim = gm_xcalloc(n, sizeof *lim);
    for (size_t i = 0; i < n; i++) {
        gm_limits_of(rows[i], &ceil, r->device.sm_count, &lim[i]);
        S_row(b, &v, rows[i], &lim[i], html);
    }
    gm_buf_puts(b, "\n");
    for (size_t i = 0; i < n && html; i++) {
        gm_buf name = GM_BUF_INIT, verdict = GM_BUF_INIT;
        md_case(&name, &v, rows[i], NULL);
        gm_limits_verdict_md(&verdict, rows[i], &lim[i], NULL);
        gm_say(b, "- {}: {}\n", GM_BUF(&name), GM_BUF(&verdict));
        gm_buf_free(&name);
        gm_buf_free(&verdict);
    }
    if (html)
        gm_buf_puts(b, "\n");
    free(lim);
    gm_vary_free(&v);
    gm_buf_free(&at);
}
