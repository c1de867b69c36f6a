/* runs.c — the run analysis the report's text and charts share: which runs
 * passed, their median time, which of them do the same work (the comparison
 * group of a section), the parameters that vary, and the sweep of a section.
 */
#include "runs.h"

#include "../core/catalog.h"
#include "../core/escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers -------------------------------------------------------- */

static bool S_streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static bool S_value_eq(const gm_value *a, const gm_value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case GM_V_ABSENT: return true;
    case GM_V_INT: return a->i == b->i;
    case GM_V_REAL: return a->r == b->r;
    case GM_V_STR: return S_streq(a->s, b->s);
    }
    return false;
}

/* Order for sorting parameter values: numbers by value, then strings. */
static int S_value_cmp(const gm_value *a, const gm_value *b)
{
    bool an = a->kind == GM_V_INT || a->kind == GM_V_REAL;
    bool bn = b->kind == GM_V_INT || b->kind == GM_V_REAL;
    if (an && bn) {
        double x = gm_value_num(a), y = gm_value_num(b);
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (an != bn)
        return an ? -1 : 1;
    if (a->kind == GM_V_STR && b->kind == GM_V_STR)
        return strcmp(a->s ? a->s : "", b->s ? b->s : "");
    return (int)a->kind - (int)b->kind;
}

bool gm_run_passed(const gm_run *run)
{
    return run->check.status == GM_CHECK_PASSED || run->check.status == GM_CHECK_NO_REFERENCE;
}

bool gm_run_is_program(const gm_run *run)
{
    return run->check.status == GM_CHECK_NO_REFERENCE;
}

double gm_run_total_ms(const gm_run *run)
{
    if (!run->timing.present || !run->timing.samples || !run->timing.n)
        return NAN;
    double t = 0;
    for (size_t i = 0; i < run->timing.n; i++)
        t += run->timing.samples[i];
    return t;
}

double gm_run_launches(const gm_run *run)
{
    return gm_run_is_program(run) && run->timing.present && run->timing.n > 0
               ? (double)run->timing.n : 1.0;
}

double gm_run_dram_gbs(const gm_run *run)
{
    double rd = gm_run_metric_num(run, GM_M_DRAM_RD), wr = gm_run_metric_num(run, GM_M_DRAM_WR);
    double t = gm_run_total_ms(run) / gm_run_launches(run);
    if (!gm_run_is_program(run))
        t = gm_run_median_ms(run);
    if (!(rd >= 0) || !(wr >= 0) || !(t > 0))
        return NAN;
    return (rd + wr) / (t * 1e6);
}

bool gm_section_is_program(const gm_section *s)
{
    for (size_t i = 0; i < s->n_runs; i++)
        if (!gm_run_is_program(s->runs[i]))
            return false;
    return s->n_runs > 0;
}

double gm_run_median_ms(const gm_run *run)
{
    if (!run->timing.present || !isfinite(run->timing.median))
        return NAN;
    return run->timing.median;
}

double gm_run_shared_wpi(const gm_run *run, bool store)
{
    double waves = gm_run_metric_num(run, store ? GM_M_SH_ST_WAVES : GM_M_SH_LD_WAVES);
    double inst = gm_run_metric_num(run, store ? GM_M_SH_ST_INST : GM_M_SH_LD_INST);
    if (!(inst > 0) || isnan(waves))
        return NAN;
    return waves / inst;
}

/* ---- the address-trace model's figures ------------------------------------------ */

double gm_run_predicted(const gm_run *run, const char *name)
{
    if (!run->prediction.present)
        return NAN;
    const gm_metric *m = gm_prediction_metric(&run->prediction, name);
    return m ? gm_value_num(&m->value) : NAN;
}

bool gm_run_has_prediction(const gm_run *run)
{
    return run->prediction.present && run->prediction.n_metrics > 0;
}

double gm_run_predicted_spr(const gm_run *run, bool store)
{
    /* from the counts when both are there (the model gives both, and the
     * ratio of counts is what ncu's ratio metric is) */
    double sec = gm_run_predicted(run, store ? GM_M_ST_SECTORS : GM_M_LD_SECTORS);
    double req = gm_run_predicted(run, store ? GM_M_ST_REQUESTS : GM_M_LD_REQUESTS);
    if (sec >= 0 && req > 0)
        return sec / req;
    return gm_run_predicted(run, store ? GM_M_ST_SPR : GM_M_LD_SPR);
}

double gm_run_predicted_shared_wpi(const gm_run *run, bool store)
{
    double waves = gm_run_predicted(run, store ? GM_M_SH_ST_WAVES : GM_M_SH_LD_WAVES);
    double inst = gm_run_predicted(run, store ? GM_M_SH_ST_INST : GM_M_SH_LD_INST);
    return waves >= 0 && inst > 0 ? waves / inst : NAN;
}

/* ---- sections ------------------------------------------------------------- */

static void S_push_run(const gm_run ***v, size_t *n, const gm_run *run)
{
    *v = gm_xrealloc((void *)*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = run;
}

bool gm_runs_same_work(const gm_run *a, const gm_run *b)
{
    return S_value_eq(&a->bytes_read, &b->bytes_read) &&
           S_value_eq(&a->bytes_written, &b->bytes_written) && S_value_eq(&a->flops, &b->flops);
}

static double S_work_bytes(const gm_run *run)
{
    double r = gm_value_num(&run->bytes_read), w = gm_value_num(&run->bytes_written);
    return (isnan(r) ? 0 : r) + (isnan(w) ? 0 : w);
}

static void S_section_group(gm_section *s)
{
    /* Partition the passed runs by the work they do and keep the largest part. */
    const gm_run *rep_best = NULL;
    size_t best_count = 0;
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *a = s->runs[i];
        if (!gm_run_passed(a))
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = gm_run_passed(s->runs[j]) && gm_runs_same_work(s->runs[j], a);
        if (seen)
            continue;
        size_t count = 0;
        for (size_t j = i; j < s->n_runs; j++)
            count += gm_run_passed(s->runs[j]) && gm_runs_same_work(s->runs[j], a);
        if (count > best_count ||
            (count == best_count && S_work_bytes(a) > S_work_bytes(rep_best))) {
            best_count = count;
            rep_best = a;
        }
    }
    if (!rep_best)
        return;
    for (size_t i = 0; i < s->n_runs; i++)
        if (gm_run_passed(s->runs[i]) && gm_runs_same_work(s->runs[i], rep_best))
            S_push_run(&s->group, &s->n_group, s->runs[i]);

    size_t timed = 0;
    for (size_t i = 0; i < s->n_group; i++) {
        const gm_run *run = s->group[i];
        double t = gm_run_median_ms(run);
        if (isnan(t))
            continue;
        timed++;
        if (!s->best || t < gm_run_median_ms(s->best))
            s->best = run;
        if (!s->worst || t >= gm_run_median_ms(s->worst))
            s->worst = run;
    }
    if (timed < 2)
        s->best = s->worst = NULL;
}

static void S_section_sweep(gm_section *s)
{
    const char *p = s->exp->sweep_param;
    if (!p)
        return;
    double first = NAN;
    for (size_t i = 0; i < s->n_runs; i++) {
        if (!gm_run_passed(s->runs[i]))
            continue;
        const gm_param *q = gm_run_param(s->runs[i], p);
        if (!q || (q->value.kind != GM_V_INT && q->value.kind != GM_V_REAL))
            continue;
        double x = gm_value_num(&q->value);
        if (isnan(first))
            first = x;
        else if (x != first) {
            s->has_sweep = true;
            return;
        }
    }
}

/* A program's kernels: largest GPU time (all launches) first; stable, so
 * equal times keep the file's order.  The suite's runs keep the file's order. */
static void S_sort_by_time(gm_section *s)
{
    if (!gm_section_is_program(s))
        return;
    for (size_t i = 1; i < s->n_runs; i++) {
        const gm_run *x = s->runs[i];
        double tx = gm_run_total_ms(x);
        size_t j = i;
        while (j > 0) {
            double tp = gm_run_total_ms(s->runs[j - 1]);
            if (!(isfinite(tx) && (!isfinite(tp) || tx > tp)))
                break;
            s->runs[j] = s->runs[j - 1];
            j--;
        }
        s->runs[j] = x;
    }
}

void gm_sections_build(const gm_results *r, gm_sections *out)
{
    out->n = 0;
    out->v = gm_xcalloc(r->n_experiments + r->n_runs + 1, sizeof *out->v);
    for (size_t i = 0; i < r->n_experiments; i++) {
        const gm_experiment *e = &r->experiments[i];
        bool dup = false;
        for (size_t j = 0; j < out->n && !dup; j++)
            dup = S_streq(out->v[j].exp->id, e->id);
        if (dup)
            continue;
        gm_section *s = &out->v[out->n++];
        s->exp = e;
        s->listed = true;
    }
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        const char *id = run->experiment ? run->experiment : "";
        gm_section *s = NULL;
        for (size_t j = 0; j < out->n && !s; j++)
            if (S_streq(out->v[j].exp->id, id))
                s = &out->v[j];
        if (!s) {
            s = &out->v[out->n++];
            s->synth.id = (char *)id;
            s->synth.title = (char *)id;
            s->exp = &s->synth;  /* out->v is never reallocated: the pointer stays valid */
        }
        S_push_run(&s->runs, &s->n_runs, run);
        switch (run->check.status) {
        case GM_CHECK_PASSED: s->n_passed++; break;
        case GM_CHECK_FAILED: s->n_failed++; break;
        case GM_CHECK_NOT_RUN: s->n_not_run++; break;
        case GM_CHECK_ERROR: s->n_error++; break;
        case GM_CHECK_NO_REFERENCE: s->n_passed++, s->n_unchecked++; break;
        }
    }
    for (size_t j = 0; j < out->n; j++) {
        S_sort_by_time(&out->v[j]);
        S_section_group(&out->v[j]);
        S_section_sweep(&out->v[j]);
    }
}

void gm_sections_free(gm_sections *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free((void *)s->v[i].runs);
        free((void *)s->v[i].group);
    }
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

/* Does parameter `name` take more than one value (or go missing) among runs? */
static bool S_param_varies(const gm_run *const *runs, size_t n, const char *name)
{
    const gm_param *first = NULL;
    for (size_t i = 0; i < n; i++) {
        const gm_param *p = gm_run_param(runs[i], name);
        if (!p)
            return true;
        if (!first)
            first = p;
        else if (!S_value_eq(&first->value, &p->value))
            return true;
    }
    return false;
}

void gm_runs_params(const gm_run *const *set, size_t n, const gm_run *run, const char *skip,
                    gm_buf *b)
{
    bool any = false;
    gm_buf_puts(b, "");
    for (size_t i = 0; i < run->n_params; i++) {
        const gm_param *p = &run->params[i];
        if (S_streq(p->name, skip) || !S_param_varies(set, n, p->name))
            continue;
        gm_buf_printf(b, "%s%s=", any ? ", " : "", p->name ? p->name : "");
        gm_fmt_value(b, &p->value);
        any = true;
    }
}

void gm_runs_case_label(const gm_run *const *set, size_t n, const gm_run *run, const char *skip,
                        gm_buf *b)
{
    gm_buf_puts(b, run->variant ? run->variant : "");
    gm_buf tmp = GM_BUF_INIT;
    gm_runs_params(set, n, run, skip, &tmp);
    if (tmp.len)
        gm_buf_printf(b, " (%s)", tmp.data);
    gm_buf_free(&tmp);
}

void gm_runs_case_md(const gm_run *const *set, size_t n, const gm_run *run, const char *skip,
                     gm_buf *b)
{
    gm_esc_md_code(b, run->variant ? run->variant : "");
    gm_buf tmp = GM_BUF_INIT;
    gm_runs_params(set, n, run, skip, &tmp);
    if (tmp.len) {
        gm_buf_puts(b, " (");
        gm_esc_md(b, tmp.data);
        gm_buf_puts(b, ")");
    }
    gm_buf_free(&tmp);
}

void gm_section_group_label(const gm_section *s, gm_buf *b)
{
    gm_buf_puts(b, "");
    if (!s->n_group)
        return;
    const gm_run *first = s->group[0];
    bool any = false;
    for (size_t i = 0; i < first->n_params; i++) {
        const gm_param *p = &first->params[i];
        if (S_param_varies(s->group, s->n_group, p->name))
            continue;
        gm_buf_printf(b, "%s%s=", any ? ", " : "", p->name ? p->name : "");
        gm_fmt_value(b, &p->value);
        any = true;
    }
}

/* Sort a line's runs by the swept parameter (insertion sort: lines are short). */
static void S_sort_line(gm_sweep_line *l, const char *p)
{
    for (size_t i = 1; i < l->n; i++)
        for (size_t j = i; j > 0; j--) {
            const gm_param *a = gm_run_param(l->runs[j - 1], p), *b = gm_run_param(l->runs[j], p);
            if (S_value_cmp(&a->value, &b->value) <= 0)
                break;
            const gm_run *t = l->runs[j];
            l->runs[j] = l->runs[j - 1];
            l->runs[j - 1] = t;
        }
}

/* Same line: same variant and the same value of every parameter but the swept one. */
static bool S_same_line(const gm_run *a, const gm_run *b, const char *sweep)
{
    if (!S_streq(a->variant, b->variant) || a->n_params != b->n_params)
        return false;
    for (size_t i = 0; i < a->n_params; i++) {
        const gm_param *p = &a->params[i];
        if (S_streq(p->name, sweep))
            continue;
        const gm_param *q = gm_run_param(b, p->name);
        if (!q || !S_value_eq(&p->value, &q->value))
            return false;
    }
    return true;
}

static bool S_numeric_param(const gm_run *run, const char *name)
{
    const gm_param *p = gm_run_param(run, name);
    return p && (p->value.kind == GM_V_INT || p->value.kind == GM_V_REAL);
}

void gm_section_sweep(const gm_section *s, gm_sweep_plan *out)
{
    memset(out, 0, sizeof *out);
    const char *p = s->exp->sweep_param;
    out->param = p;
    if (!p)
        return;
    out->lines = gm_xcalloc(s->n_runs + 1, sizeof *out->lines);
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *run = s->runs[i];
        if (!gm_run_passed(run))
            continue;
        if (!S_numeric_param(run, p)) {
            if (!gm_run_param(run, p) && out->n_flat < 4)
                S_push_run(&out->flat, &out->n_flat, run);
            continue;
        }
        size_t l = 0;
        while (l < out->n_lines && !S_same_line(out->lines[l].runs[0], run, p))
            l++;
        if (l == out->n_lines) {
            if (out->n_lines == GM_MAX_SWEEP_LINES)
                continue;
            out->n_lines++;
        }
        S_push_run(&out->lines[l].runs, &out->lines[l].n, run);
        S_push_run(&out->runs, &out->n_runs, run);
    }
    for (size_t l = 0; l < out->n_lines; l++)
        S_sort_line(&out->lines[l], p);
}

void gm_sweep_plan_free(gm_sweep_plan *p)
{
    for (size_t l = 0; l < p->n_lines; l++)
        free((void *)p->lines[l].runs);
    free(p->lines);
    free((void *)p->runs);
    free((void *)p->flat);
    memset(p, 0, sizeof *p);
}


double gm_results_ceiling_gbs(const gm_results *r, bool *attainable)
{
    double a = gm_value_num(&r->device.attainable_bandwidth_gbs);
    bool att = gm_value_present(&r->device.attainable_bandwidth_gbs) && a > 0;
    if (attainable)
        *attainable = att;
    if (att)
        return a;
    double c = gm_value_num(&r->device.copy_bandwidth_gbs);
    return c > 0 ? c : NAN;
}

const char *gm_results_ceiling_name(const gm_results *r)
{
    bool att;
    gm_results_ceiling_gbs(r, &att);
    return att ? "the attainable bandwidth" : "the copy bandwidth";
}
