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

/* A reason or note quoted in prose, without its final period (the sentence
 * around it supplies one): a copy to free, to be escaped as GM_TEXT. */
static char *S_quote(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    while (n && (s[n - 1] == '.' || s[n - 1] == ' ' || s[n - 1] == '\n'))
        n--;
    char *t = gm_xmalloc(n + 1);
    if (n)
        memcpy(t, s, n);
    t[n] = '\0';
    return t;
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
    gm_buf who = gm_find_label(c, run);
    char *reason = k->reason ? S_quote(k->reason) : NULL;
    gm_buf b = GM_BUF_INIT;
    if (k->status == GM_CHECK_FAILED) {
        gm_say(&b, "{} failed its check against the CPU reference", GM_BUF(&who));
        bool detail = k->mismatches > 0 && k->checked > 0;
        if (detail) {
            gm_say(&b, ": {} of {} {}", GM_COUNT((double)k->mismatches),
                   GM_COUNT((double)k->checked),
                   GM_LIT(k->checked == 1 ? "element differs" : "elements differ"));
            if (k->has_first_mismatch)
                gm_say(&b, ", the first at index {} ({} where {} was expected)",
                       GM_COUNT((double)k->first_index), GM_GENERAL(k->first_value, 9),
                       GM_GENERAL(k->first_expected, 9));
            double me = gm_value_num(&k->max_abs_error);
            if (isfinite(me) && isfinite(k->tolerance))
                gm_say(&b, "; largest absolute error {} against a tolerance of {}",
                       GM_GENERAL(me, 6), GM_GENERAL(k->tolerance, 6));
        }
        if (!detail && reason)
            gm_say(&b, ": {}", GM_TEXT(reason));
        gm_buf_puts(&b, ". Its time and counters are left out of every comparison and finding.");
    } else if (reason) {
        gm_say(&b, "{} stopped with an error: {}. No time or counter of it is used.",
               GM_BUF(&who), GM_TEXT(reason));
    } else {
        gm_say(&b, "{} stopped with an error. No time or counter of it is used.", GM_BUF(&who));
    }
    free(reason);
    gm_buf_free(&who);
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
    gm_buf who = gm_find_label(c, run);
    gm_buf b = GM_BUF_INIT;
    if (run->check.reason) {
        char *reason = S_quote(run->check.reason);
        gm_say(&b, "{} did not run: {}. ", GM_BUF(&who), GM_TEXT(reason));
        free(reason);
    } else {
        gm_say(&b, "{} did not run. ", GM_BUF(&who));
    }
    gm_buf_free(&who);
    double need = gm_find_need(run), mem = (double)r->device.global_memory_bytes;
    if (isfinite(need) && mem > 0 && need > mem)
        gm_say(&b, "Its inputs and outputs alone take {}, more than the {} of device memory. ",
               GM_BYTES(need), GM_BYTES(mem));
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
        gm_say(&b, others ? ", {}" : "With the same parameters, {}", GM_CODE(x->variant));
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
        if (top)
            gm_say(&b, "The largest {} at which {} ran is {}.", GM_CODE(sp), GM_CODE(run->variant),
                   GM_VALUE(&top->value));
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
    /* for a traced launch, what the hardware adds to the tracer's counts:
     * shared wavefronts of blocks out of step, instructions issued with every
     * thread predicated off (no thread accesses memory, so the tracer sees
     * none); anything else is a difference the tool cannot explain */
    bool waves = false, insts = false, other = false;
    for (size_t i = 0; i < S_N_MODEL_COUNTS; i++) {
        double m, p;
        if (S_model_count(run, i, &m, &p) >= 0)
            continue;
        const char *name = S_model_counts[i].name;
        bool more = m > p;
        if (more && (strcmp(name, GM_M_SH_LD_WAVES) == 0 || strcmp(name, GM_M_SH_ST_WAVES) == 0))
            waves = true;
        else if (more && (strcmp(name, GM_M_SH_LD_INST) == 0 ||
                          strcmp(name, GM_M_SH_ST_INST) == 0 ||
                          strcmp(name, GM_M_LD_INST) == 0 || strcmp(name, GM_M_ST_INST) == 0))
            insts = true;
        else
            other = true;
        double d = m - p;
        const gm_metric_info *info = gm_catalog_find(S_model_counts[i].name);
        gm_buf_puts(&list, n ? "; " : "");
        gm_say(&list, "{} {} measured against {} predicted",
               GM_LIT(info ? info->label : S_model_counts[i].name), GM_COUNT(m), GM_COUNT(p));
        if (p != 0)
            gm_say(&list, " ({}%)", GM_SIGNED(100.0 * d / p, 1));
        cost += fabs(d) * S_model_counts[i].bytes;
        n++;
    }
    if (!n) {
        gm_buf_free(&list);
        return;
    }
    gm_buf who = gm_find_label(c, run);
    gm_buf b = GM_BUF_INIT;
    if (gm_run_gpu_traced(run)) {
        /* a program's launch, counted from its real addresses (core/srclines.h):
         * only what the hardware adds can part the two */
        gm_say(&b, "{}: the counters and the tracer's counts of the same launch differ by more "
                   "than {}: {}. The tracer counted this launch's real addresses under the "
                   "model's rules",
               GM_BUF(&who), GM_PCT(100.0 * tol), GM_BUF(&list));
        if (waves)
            gm_buf_puts(&b, "; shared-memory wavefronts run above that count when blocks share "
                            "an SM out of step (docs/model.md)");
        if (insts)
            gm_buf_puts(&b, "; the hardware counts an instruction each time a warp issues it, "
                            "also with every thread predicated off (the idle steps of a tree "
                            "reduction), where the tracer sees only threads that access memory");
        if (other)
            gm_buf_puts(&b, "; the other differences are the tool's fault");
        gm_buf_puts(&b, ".");
        gm_buf_free(&who);
        gm_buf_free(&list);
        gm_find_add(c, GM_RULE_MODEL_MISMATCH, other ? GM_SEV_WARNING : GM_SEV_INFO, run, cost,
                    NAN,
                    other ? "report it with the `--source-lines sass` counts of the kernel "
                            "beside it: the hardware's per-line counters decide."
                          : "nothing in the kernel: the differences are how the hardware counts "
                            "and schedules, not where the kernel accesses memory.",
                    &b);
        return;
    }
    gm_say(&b, "{}: the counters and the address-trace model differ by more than {}: {}. ",
           GM_BUF(&who), GM_PCT(100.0 * tol), GM_BUF(&list));
    gm_buf_free(&who);
    gm_buf_free(&list);
    if (run->prediction.scaled)
        gm_say(&b, "The model traced {} of {} warps and scaled the counts. ",
               GM_COUNT((double)run->prediction.warps_traced),
               GM_COUNT((double)run->prediction.warps_total));
    gm_buf_puts(&b, "Either the kernel does not access memory as its trace says, or the hardware "
                    "counts something the model leaves out.");
    gm_find_add(c, GM_RULE_MODEL_MISMATCH, GM_SEV_WARNING, run, cost, NAN,
                "check the kernel's indexing against its address trace (`kernels/trace_*.c`) and "
                "correct whichever of the two is wrong.", &b);
}
