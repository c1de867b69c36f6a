/* findings_check.c — the rules on a run's check and on the address-trace
 * model (findings_rules.h; docs/findings.md): validation (the output differs
 * from the CPU reference, or the run stopped with an error), not-run (it did
 * not run at this size), model-mismatch (the counters and the model differ
 * beyond the tolerance), and gm_model_check (findings.h), which holds the
 * model to the same counts.
 */
#include "findings_rules.h"

#include "runs.h"
#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A reason or note quoted in prose: escaped, without its final period (the
 * sentence around it supplies one). */
static void S_quote(gm_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    while (n && (s[n - 1] == '.' || s[n - 1] == ' ' || s[n - 1] == '\n'))
        n--;
    char *t = gm_xmalloc(n + 1);
    if (n)
        memcpy(t, s, n);
    t[n] = '\0';
    gm_esc_md(b, t);
    free(t);
}

static bool S_same_value(const gm_value *a, const gm_value *b)
{
    bool pa = gm_value_present(a), pb = gm_value_present(b);
    if (!pa || !pb)
        return pa == pb;
    if (a->kind == GM_V_STR || b->kind == GM_V_STR)
        return a->kind == b->kind && gm_find_streq(a->s, b->s);
    return gm_value_num(a) == gm_value_num(b);
}

void gm_find_rule_validation(gm_find_ctx *c, const gm_run *run)
{
    const gm_check *k = &run->check;
    gm_buf b = GM_BUF_INIT;
    gm_find_run_label(&b, c, run);
    if (k->status == GM_CHECK_FAILED) {
        gm_buf_puts(&b, " failed its check against the CPU reference");
        bool detail = false;
        if (k->mismatches > 0 && k->checked > 0) {
            gm_buf_puts(&b, ": ");
            gm_fmt_count(&b, (double)k->mismatches);
            gm_buf_puts(&b, " of ");
            gm_fmt_count(&b, (double)k->checked);
            gm_buf_puts(&b, k->checked == 1 ? " element differs" : " elements differ");
            detail = true;
            if (k->has_first_mismatch) {
                gm_buf_puts(&b, ", the first at index ");
                gm_fmt_count(&b, (double)k->first_index);
                gm_buf_puts(&b, " (");
                gm_fmt_general(&b, k->first_value, 9);
                gm_buf_puts(&b, " where ");
                gm_fmt_general(&b, k->first_expected, 9);
                gm_buf_puts(&b, " was expected)");
            }
            double me = gm_value_num(&k->max_abs_error);
            if (isfinite(me) && isfinite(k->tolerance)) {
                gm_buf_puts(&b, "; largest absolute error ");
                gm_fmt_general(&b, me, 6);
                gm_buf_puts(&b, " against a tolerance of ");
                gm_fmt_general(&b, k->tolerance, 6);
            }
        }
        if (!detail && k->reason) {
            gm_buf_puts(&b, ": ");
            S_quote(&b, k->reason);
        }
        gm_buf_puts(&b, ". Its time and counters are left out of every comparison and finding.");
    } else {
        gm_buf_puts(&b, " stopped with an error");
        if (k->reason) {
            gm_buf_puts(&b, ": ");
            S_quote(&b, k->reason);
        }
        gm_buf_puts(&b, ". No time or counter of it is used.");
    }
    gm_find_add(c, GM_RULE_VALIDATION, GM_SEV_PROBLEM, run, 0.0, NAN,
                "make the kernel's output match the reference before reading its time or "
                "counters, which say nothing about the layout of a kernel that computes the wrong "
                "result.", &b);
}

static bool S_same_params(const gm_run *a, const gm_run *b)
{
    if (a->n_params != b->n_params)
        return false;
    for (size_t i = 0; i < a->n_params; i++) {
        const gm_param *q = gm_run_param(b, a->params[i].name);
        if (!q || !S_same_value(&q->value, &a->params[i].value))
            return false;
    }
    return true;
}

void gm_find_rule_not_run(gm_find_ctx *c, const gm_run *run)
{
    const gm_results *r = c->r;
    gm_buf b = GM_BUF_INIT;
    gm_find_run_label(&b, c, run);
    gm_buf_puts(&b, " did not run");
    if (run->check.reason) {
        gm_buf_puts(&b, ": ");
        S_quote(&b, run->check.reason);
    }
    gm_buf_puts(&b, ". ");
    double need = gm_find_need(run), mem = (double)r->device.global_memory_bytes;
    if (isfinite(need) && mem > 0 && need > mem) {
        gm_buf_puts(&b, "Its inputs and outputs alone take ");
        gm_fmt_bytes(&b, need);
        gm_buf_puts(&b, ", more than the ");
        gm_fmt_bytes(&b, mem);
        gm_buf_puts(&b, " of device memory. ");
    }
    /* Other layouts that ran with exactly these parameters: then this one
     * "should" have fitted, and the finding is a warning. */
    size_t others = 0;
    size_t en = c->exp_of[gm_find_index(r, run)];
    const size_t *mine_v = c->members + c->exp_start[en];
    size_t n_mine = c->exp_start[en + 1] - c->exp_start[en];
    for (size_t i = 0; i < n_mine; i++) {
        const gm_run *x = &r->runs[mine_v[i]];
        if (x == run || !gm_run_passed(x) || gm_find_streq(x->variant, run->variant) ||
            !S_same_params(x, run))
            continue;
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++) {
            const gm_run *y = &r->runs[mine_v[j]];
            dup = gm_run_passed(y) && gm_find_streq(y->variant, x->variant) &&
                  S_same_params(y, run);
        }
        if (dup)
            continue;
        gm_buf_puts(&b, others ? ", " : "With the same parameters, ");
        gm_find_code(&b, x->variant);
        others++;
    }
    if (others)
        gm_buf_puts(&b, " ran. ");
    /* The largest value of the swept parameter at which this layout ran. */
    const gm_experiment *e = gm_find_exp(r, run->experiment);
    const char *sp = e ? e->sweep_param : NULL;
    const gm_param *mine = sp ? gm_run_param(run, sp) : NULL;
    if (mine && isfinite(gm_value_num(&mine->value))) {
        const gm_param *top = NULL;
        for (size_t i = 0; i < n_mine; i++) {
            const gm_run *x = &r->runs[mine_v[i]];
            if (!gm_run_passed(x) || !gm_find_streq(x->variant, run->variant))
                continue;
            const gm_param *q = gm_run_param(x, sp);
            if (q && isfinite(gm_value_num(&q->value)) &&
                (!top || gm_value_num(&q->value) > gm_value_num(&top->value)))
                top = q;
        }
        if (top) {
            gm_buf_puts(&b, "The largest ");
            gm_find_code(&b, sp);
            gm_buf_puts(&b, " at which ");
            gm_find_code(&b, run->variant);
            gm_buf_puts(&b, " ran is ");
            gm_buf v = GM_BUF_INIT;
            gm_fmt_value(&v, &top->value);
            gm_find_text(&b, v.data);
            gm_buf_free(&v);
            gm_buf_puts(&b, ".");
        }
    }
    gm_find_add(c, GM_RULE_NOT_RUN, others ? GM_SEV_WARNING : GM_SEV_INFO, run, 0.0, NAN,
                "run it at a size its inputs and outputs fit, or make it allocate less.", &b);
}

/* The counts the model is held to.  Deterministic counts only: ratios follow
 * from them, the bank-conflict counter is not exact even for conflict-free
 * code, and DRAM bytes and hit rates depend on caching the model does not
 * simulate. */
static const struct {
    const char *name;
    double bytes;   /* cost per count of difference */
} S_model_counts[] = {
    {GM_M_LD_SECTORS, SECTOR_BYTES},   {GM_M_LD_REQUESTS, 0},
    {GM_M_ST_SECTORS, SECTOR_BYTES},   {GM_M_ST_REQUESTS, 0},
    {GM_M_LD_INST, 0},                 {GM_M_ST_INST, 0},
    {GM_M_SH_LD_WAVES, WAVEFRONT_BYTES}, {GM_M_SH_ST_WAVES, WAVEFRONT_BYTES},
    {GM_M_SH_LD_INST, 0},              {GM_M_SH_ST_INST, 0},
};
#define S_N_MODEL_COUNTS (sizeof S_model_counts / sizeof S_model_counts[0])

static double S_model_tol(const gm_run *run)
{
    return run->prediction.scaled ? GM_FIND_MODEL_TOL_SCALED : GM_FIND_MODEL_TOL;
}

/* Count i of the model's: 0 when either figure is absent, 1 when they agree,
 * -1 when they differ beyond the tolerance (and by a whole count). */
static int S_model_count(const gm_run *run, size_t i, double *m, double *p)
{
    *m = gm_find_m(run, S_model_counts[i].name);
    *p = gm_find_pm(run, S_model_counts[i].name);
    if (!isfinite(*m) || !isfinite(*p))
        return 0;
    double d = *m - *p;
    return fabs(d) < 1.0 || fabs(d) <= S_model_tol(run) * fabs(*p) ? 1 : -1;
}

gm_model_verdict gm_model_check(const gm_run *run, double *tolerance)
{
    if (tolerance)
        *tolerance = S_model_tol(run);
    if (!run->prediction.present)
        return GM_MODEL_NONE;
    gm_model_verdict v = GM_MODEL_NONE;
    for (size_t i = 0; i < S_N_MODEL_COUNTS; i++) {
        double m, p;
        int k = S_model_count(run, i, &m, &p);
        if (k < 0)
            return GM_MODEL_DIFFERS;
        if (k > 0)
            v = GM_MODEL_AGREES;
    }
    return v;
}

void gm_find_rule_model(gm_find_ctx *c, const gm_run *run)
{
    if (!run->prediction.present)
        return;
    double tol = S_model_tol(run);
    gm_buf list = GM_BUF_INIT;
    double cost = 0;
    size_t n = 0;
    for (size_t i = 0; i < S_N_MODEL_COUNTS; i++) {
        double m, p;
        if (S_model_count(run, i, &m, &p) >= 0)
            continue;
        double d = m - p;
        const gm_metric_info *info = gm_catalog_find(S_model_counts[i].name);
        gm_buf_puts(&list, n ? "; " : "");
        gm_buf_puts(&list, info ? info->label : S_model_counts[i].name);
        gm_buf_puts(&list, " ");
        gm_fmt_count(&list, m);
        gm_buf_puts(&list, " measured against ");
        gm_fmt_count(&list, p);
        gm_buf_puts(&list, " predicted");
        if (p != 0) {
            gm_buf_puts(&list, " (");
            gm_fmt_signed(&list, 100.0 * d / p, 1);
            gm_buf_puts(&list, "%)");
        }
        cost += fabs(d) * S_model_counts[i].bytes;
        n++;
    }
    if (!n) {
        gm_buf_free(&list);
        return;
    }
    gm_buf b = GM_BUF_INIT;
    gm_find_run_label(&b, c, run);
    gm_buf_puts(&b, ": the counters and the address-trace model differ by more than ");
    gm_fmt_pct(&b, 100.0 * tol);
    gm_buf_puts(&b, ": ");
    gm_buf_put(&b, list.data, list.len);
    gm_buf_puts(&b, ". ");
    gm_buf_free(&list);
    if (run->prediction.scaled) {
        gm_buf_puts(&b, "The model traced ");
        gm_fmt_count(&b, (double)run->prediction.warps_traced);
        gm_buf_puts(&b, " of ");
        gm_fmt_count(&b, (double)run->prediction.warps_total);
        gm_buf_puts(&b, " warps and scaled the counts. ");
    }
    gm_buf_puts(&b, "Either the kernel does not access memory as its trace says, or the hardware "
                    "counts something the model leaves out.");
    gm_find_add(c, GM_RULE_MODEL_MISMATCH, GM_SEV_WARNING, run, cost, NAN,
                "check the kernel's indexing against its address trace (`kernels/trace_*.c`) and "
                "correct whichever of the two is wrong.", &b);
}
