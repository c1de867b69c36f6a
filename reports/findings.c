/* findings.c — rules on the numbers of each run, ranked and folded into the
 * findings of a report (findings.h; docs/findings.md).  The explanations of
 * each experiment are in explain.c; what both read of a run is in
 * findings_internal.h (findings_util.c).
 *
 * Layout: reading a run (what only the rules read), the context (the runs of
 * each experiment, labels, peers), the rules, ranking, the Markdown list.
 */
#include "findings_internal.h"
#include "srclines.h"

#include "../core/catalog.h"
#include "runs.h"
#include "../core/escape.h"
#include "../core/fmt.h"

#include <math.h>
#include <stdio.h>
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

/* ---- reading a run ----------------------------------------------------------- */

static double S_need(const gm_run *run)
{
    return gm_value_num(&run->bytes_read) + gm_value_num(&run->bytes_written);
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

/* Peers: runs of the same experiment doing the same useful work (runs.h),
 * whose times compare directly. */
static bool S_same_work(const gm_run *a, const gm_run *b)
{
    return gm_find_streq(a->experiment, b->experiment) && gm_runs_same_work(a, b);
}

/* The constant-cache serialisation the model reports in a prediction note
 * (core/model.c): "Constant memory (no metric above): N warp loads traced,
 * D distinct addresses each on average; ...".  No hardware counter gives it.
 * Parsed by hand: strtod would follow the locale's decimal point. */
static bool S_const_note(const gm_run *run, double *loads, double *distinct)
{
    static const char head[] = "Constant memory (no metric above): ";
    if (!run->prediction.present)
        return false;
    for (size_t i = 0; i < run->prediction.n_notes; i++) {
        const char *s = run->prediction.notes[i];
        if (!s || strncmp(s, head, sizeof head - 1) != 0)
            continue;
        s += sizeof head - 1;
        double n = 0, d = 0, scale = 0;
        bool any = false;
        for (; *s >= '0' && *s <= '9'; s++, any = true)
            n = n * 10 + (*s - '0');
        static const char mid[] = " warp loads traced, ";
        if (!any || strncmp(s, mid, sizeof mid - 1) != 0)
            continue;
        s += sizeof mid - 1;
        any = false;
        for (; (*s >= '0' && *s <= '9') || (*s == '.' && scale == 0); s++) {
            if (*s == '.') {
                scale = 1;
                continue;
            }
            any = true;
            if (scale > 0) {
                scale /= 10;
                d += scale * (*s - '0');
            } else {
                d = d * 10 + (*s - '0');
            }
        }
        if (!any || strncmp(s, " distinct addresses", 19) != 0)
            continue;
        *loads = n;
        *distinct = d;
        return true;
    }
    return false;
}

/* ---- context: the runs of each experiment, labels, peers ---------------------- */

typedef struct {
    const gm_results *r;
    double copy_gbs;            /* the measured ceiling (runs.h: gm_results_ceiling_gbs), NaN if unknown */
    double ceiling_gbs;         /* copy_gbs, else the theoretical bandwidth; NaN if neither */
    char **params;              /* per run: parameters varying within its experiment */
    const gm_run **peer;        /* per run: its fastest peer (S_fastest_peer) */
    double *weigh;              /* per run: what its saving is weighed against (S_weigh_ms) */
    size_t *exp_of;             /* per run: its experiment's number (gm_find_streq on the ids) */
    size_t *members, *exp_start;/* runs of experiment e in file order:
                                   members[exp_start[e] .. exp_start[e + 1]) */
    gm_findings *out;
    size_t cap;
} S_ctx;

/* `variant` (params), escaped */
static void S_label(gm_buf *b, const gm_run *run, const char *params)
{
    gm_find_code(b, run->variant);
    if (params && *params) {
        gm_buf_puts(b, " (");
        gm_find_text(b, params);
        gm_buf_puts(b, ")");
    }
}

static size_t S_index(const gm_results *r, const gm_run *run) { return (size_t)(run - r->runs); }

static void S_run_label(gm_buf *b, const S_ctx *c, const gm_run *run)
{
    S_label(b, run, c->params[S_index(c->r, run)]);
}

/* The fastest passed run doing the same work as `run` (possibly run itself);
 * NULL when run has no time.  Ties go to the first in the file.  Found for
 * every run at once (S_peers_build). */
static const gm_run *S_fastest_peer(const S_ctx *c, const gm_run *run)
{
    if (!isfinite(gm_find_time_of(run)) || gm_run_is_program(run))
        return NULL;   /* a program's kernels do different work: never compared */
    return c->peer[S_index(c->r, run)];
}

/* Order of experiment ids as gm_find_streq sees them: absent first. */
static int S_id_cmp(const char *a, const char *b)
{
    if (!a || !b)
        return a ? 1 : b ? -1 : 0;
    return strcmp(a, b);
}

typedef struct {
    const gm_run *run;
    size_t i;   /* its index in the file */
} S_numbered;

static int S_by_exp_work(const void *pa, const void *pb)
{
    const S_numbered *a = pa, *b = pb;
    int c = S_id_cmp(a->run->experiment, b->run->experiment);
    if (!c)
        c = gm_runs_work_cmp(a->run, b->run);
    return c ? c : a->i < b->i ? -1 : a->i > b->i;
}

/* Each run's fastest peer and experiment, each program experiment's GPU time,
 * from the runs sorted by experiment and work (n log n where asking every run
 * about every other is n^2): runs of one experiment doing the same work
 * stand together, in file order. */
static void S_peers_build(S_ctx *c)
{
    const gm_results *r = c->r;
    size_t n = r->n_runs;
    S_numbered *ord = gm_xmalloc((n ? n : 1) * sizeof *ord);
    for (size_t i = 0; i < n; i++)
        ord[i] = (S_numbered){&r->runs[i], i};
    qsort(ord, n, sizeof *ord, S_by_exp_work);
    c->peer = gm_xcalloc(n ? n : 1, sizeof *c->peer);
    c->exp_of = gm_xcalloc(n ? n : 1, sizeof *c->exp_of);
    size_t n_exp = 0;
    for (size_t i = 0, j; i < n; i = j) {
        const gm_run *a = ord[i].run;
        if (i && gm_find_streq(ord[i - 1].run->experiment, a->experiment))
            n_exp--;   /* the same experiment as the part before */
        for (j = i + 1; j < n && S_same_work(ord[j].run, a); j++)
            ;
        const gm_run *best = NULL;
        for (size_t k = i; k < j; k++) {
            const gm_run *x = ord[k].run;
            c->exp_of[ord[k].i] = n_exp;
            if (!gm_run_passed(x) || !isfinite(gm_find_time_of(x)) || !S_same_work(x, x))
                continue;
            if (!best || gm_find_time_of(x) < gm_find_time_of(best))
                best = x;
        }
        for (size_t k = i; k < j; k++)
            c->peer[ord[k].i] = S_same_work(ord[k].run, ord[k].run) ? best : NULL;
        n_exp++;
    }
    /* the runs of each experiment in file order, and a program's GPU time */
    c->exp_start = gm_xcalloc(n_exp + 2, sizeof *c->exp_start);
    c->members = gm_xmalloc((n ? n : 1) * sizeof *c->members);
    double *all = gm_xcalloc(n_exp + 1, sizeof *all);
    for (size_t i = 0; i < n; i++)
        c->exp_start[c->exp_of[i] + 2]++;
    for (size_t e = 2; e < n_exp + 2; e++)
        c->exp_start[e] += c->exp_start[e - 1];
    for (size_t i = 0; i < n; i++) {
        const gm_run *x = &r->runs[i];
        c->members[c->exp_start[c->exp_of[i] + 1]++] = i;
        double t = gm_run_total_ms(x);
        if (gm_run_is_program(x) && isfinite(t))
            all[c->exp_of[i]] += t;
    }
    c->weigh = gm_xmalloc((n ? n : 1) * sizeof *c->weigh);
    for (size_t i = 0; i < n; i++)
        c->weigh[i] = all[c->exp_of[i]] > 0 ? all[c->exp_of[i]] : NAN;
    free(all);
    free(ord);
}

/* A run is named by the parameters that vary among its experiment's runs:
 * c->params, one string per run ("" when none vary). */
static void S_params_build(S_ctx *c)
{
    const gm_results *r = c->r;
    c->params = gm_xcalloc(r->n_runs ? r->n_runs : 1, sizeof *c->params);
    gm_sections ss;
    gm_sections_build(r, &ss);
    for (size_t i = 0; i < ss.n; i++) {
        const gm_section *s = &ss.v[i];
        for (size_t k = 0; k < s->n_runs; k++) {
            gm_buf b = GM_BUF_INIT;
            gm_buf_puts(&b, "");
            gm_vary_params(&s->vary, s->runs[k], NULL, &b);
            c->params[S_index(r, s->runs[k])] = gm_buf_detach(&b);
        }
    }
    gm_sections_free(&ss);
}

/* Frees what S_params_build and S_peers_build made (not the findings). */
static void S_ctx_free(S_ctx *c)
{
    for (size_t i = 0; i < c->r->n_runs; i++)
        free(c->params[i]);
    free(c->params);
    free((void *)c->peer);
    free(c->weigh);
    free(c->exp_of);
    free(c->members);
    free(c->exp_start);
}

static const gm_experiment *S_exp(const gm_results *r, const char *id)
{
    return id ? gm_results_experiment(r, id) : NULL;
}

/* ---- the rules ----------------------------------------------------------------- */

/* The GPU time a run's saving is weighed against: for a program's kernel,
 * every profiled launch of its experiment; in the suite, the run's own time. */
static double S_weigh_ms(const S_ctx *c, const gm_run *run)
{
    if (!gm_run_is_program(run))
        return gm_find_time_of(run);
    return c->weigh[S_index(c->r, run)];
}

/* Launches a run's values stand for: a program's grouped run, one per timing
 * sample; else 1. */
static double S_launches(const gm_run *run)
{
    return gm_run_is_program(run) && run->timing.n > 0 ? (double)run->timing.n : 1.0;
}

typedef struct {
    double ms, share;   /* over all the run's launches; NaN when unknown */
    /* The cap of the device's theoretical DRAM bandwidth (S_estimate): */
    bool capped;        /* the time x excess / total estimate was more than it allows */
    double wanted_ms;   /* that estimate, over all launches */
    double keep;        /* DRAM bytes per launch the kernel would still move */
    double t;           /* ms per launch */
    double floor_ms;    /* keep at the theoretical bandwidth, per launch */
    double need_gbs;    /* what the estimate would need; infinite when it is the whole time */
    double peak_gbs;    /* the theoretical bandwidth */
} S_saving;

static const S_saving S_NO_SAVING = {NAN, NAN, false, NAN, NAN, NAN, NAN, NAN, NAN};

/* The model (findings.h): per launch, min(time x excess / total, excess bytes
 * at the ceiling bandwidth), and never more than leaves the time the DRAM
 * bytes the kernel would still move (its DRAM bytes less dram_removed) take
 * at the device's theoretical bandwidth; over all the run's launches.
 * dram_removed: the DRAM bytes per launch not moving the excess would spare
 * (NaN: the kernel's DRAM bytes are unknown, no cap). */
static S_saving S_estimate(const S_ctx *c, const gm_run *run, double excess, double total,
                           double excess_bytes, double dram_removed)
{
    S_saving sv = S_NO_SAVING;
    double t = gm_find_time_of(run);
    if (gm_run_is_program(run)) {   /* the mean launch: values are per launch */
        double tt = gm_run_total_ms(run);
        t = isfinite(tt) && tt > 0 ? tt / S_launches(run) : NAN;
    }
    if (!isfinite(t) || !(total > 0) || !(excess >= 0))
        return sv;
    double ms = t * fmin(1.0, excess / total);
    if (isfinite(c->ceiling_gbs) && c->ceiling_gbs > 0 && excess_bytes >= 0)
        ms = fmin(ms, excess_bytes / (c->ceiling_gbs * 1e6));   /* GB/s -> bytes per ms */
    double rd = gm_find_m(run, GM_M_DRAM_RD), wr = gm_find_m(run, GM_M_DRAM_WR);
    double peak = gm_value_num(&c->r->device.theoretical_bandwidth_gbs);
    if (rd >= 0 && wr >= 0 && peak > 0 && dram_removed >= 0) {
        double keep = fmax(0.0, rd + wr - dram_removed);
        double floor_ms = keep / (peak * 1e6);
        double cap = fmax(0.0, t - floor_ms);
        if (ms > cap) {
            sv.capped = true;
            sv.wanted_ms = ms * S_launches(run);
            sv.keep = keep;
            sv.t = t;
            sv.floor_ms = floor_ms;
            sv.need_gbs = t - ms > 0 ? keep / ((t - ms) * 1e6) : INFINITY;
            sv.peak_gbs = peak;
            ms = cap;
        }
    }
    sv.ms = ms * S_launches(run);
    double w = S_weigh_ms(c, run);
    sv.share = w > 0 ? sv.ms / w : NAN;
    return sv;
}

/* Is a saving under the floor of a warning (findings.h)? */
static bool S_minor(double ms, double share)
{
    return !(ms >= GM_FIND_SAVE_MIN_MS && isfinite(share) && share >= GM_FIND_SAVE_MIN_SHARE);
}

/* " (28.4% of the program's profiled GPU time)" */
static void S_share_text(gm_buf *b, const gm_run *run, double share)
{
    if (!isfinite(share))
        return;
    gm_buf_puts(b, " (");
    if (share > 0 && share < 0.0005)   /* what would print as 0.0% */
        gm_buf_puts(b, "under 0.1%");
    else
        gm_fmt_pct(b, 100.0 * share);
    gm_buf_puts(b, gm_run_is_program(run) ? " of the program's profiled GPU time)"
                                          : " of its time)");
}

/* "Not moving the excess would save about 18.5 µs (28.4% of the program's GPU
 * time)." and, where the device's theoretical DRAM bandwidth caps it, why.
 * Returns the severity the estimate gives. */
static gm_severity S_saving_text(gm_buf *b, const gm_run *run, S_saving sv, const char *what)
{
    if (!isfinite(sv.ms))
        return GM_SEV_WARNING;
    bool launches = gm_run_is_program(run) && run->timing.n > 1;
    if (sv.capped && !(sv.ms > 0)) {
        gm_buf_printf(b, "Not moving the excess %s would save no time: ", what);
        gm_buf_puts(b, launches ? "a launch" : "it");
        gm_buf_puts(b, " would still move ");
        gm_fmt_bytes(b, sv.keep);
        gm_buf_puts(b, " through DRAM, which takes its whole ");
        gm_fmt_ms(b, sv.t);
        gm_buf_puts(b, " even at the device's theoretical DRAM bandwidth (");
        gm_fmt_gbs(b, sv.peak_gbs);
        gm_buf_puts(b, "). ");
        return GM_SEV_INFO;
    }
    gm_buf_printf(b, "Not moving the excess %s would save about ", what);
    gm_fmt_ms(b, sv.ms);
    S_share_text(b, run, sv.share);
    gm_buf_puts(b, launches ? " over its launches. " : ". ");
    if (sv.capped) {
        gm_buf_puts(b, "That is capped by the device's theoretical DRAM bandwidth: ");
        gm_buf_puts(b, launches ? "a launch" : "it");
        gm_buf_puts(b, " would still move ");
        gm_fmt_bytes(b, sv.keep);
        gm_buf_puts(b, " through DRAM, ");
        gm_fmt_ms(b, sv.floor_ms);
        gm_buf_puts(b, launches ? " of the " : " of its ");
        gm_fmt_ms(b, sv.t);
        gm_buf_puts(b, launches ? " a launch takes on average, at " : " at ");
        gm_fmt_gbs(b, sv.peak_gbs);
        gm_buf_puts(b, "; the ");
        gm_fmt_ms(b, sv.wanted_ms);
        gm_buf_puts(b, " that the excess's share of the traffic suggests would need ");
        if (isfinite(sv.need_gbs))
            gm_fmt_gbs(b, sv.need_gbs);
        else
            gm_buf_puts(b, "it in no time at all");
        gm_buf_puts(b, ". ");
    }
    return S_minor(sv.ms, sv.share) ? GM_SEV_INFO : GM_SEV_WARNING;
}

static void S_add_saving(S_ctx *c, gm_rule rule, gm_severity sev, const gm_run *run, double cost,
                         double lost_ms, S_saving sv, const char *fix, gm_buf *msg);

static void S_add(S_ctx *c, gm_rule rule, gm_severity sev, const gm_run *run, double cost,
                  double lost_ms, const char *fix, gm_buf *msg)
{
    S_add_saving(c, rule, sev, run, cost, lost_ms, S_NO_SAVING, fix, msg);
}

static void S_add_saving(S_ctx *c, gm_rule rule, gm_severity sev, const gm_run *run, double cost,
                         double lost_ms, S_saving sv, const char *fix, gm_buf *msg)
{
    gm_findings *f = c->out;
    if (f->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 32;
        f->v = gm_xrealloc(f->v, c->cap * sizeof *f->v);
    }
    size_t i = S_index(c->r, run);
    gm_finding *x = &f->v[f->n++];
    memset(x, 0, sizeof *x);
    x->rule = rule;
    x->severity = sev;
    x->run = run;
    x->run_index = i;
    x->experiment = run->experiment;
    x->variant = run->variant;
    x->params = gm_xstrdup(c->params[i]);
    x->cost = isfinite(cost) && cost > 0 ? cost : 0.0;
    x->lost_ms = lost_ms;
    x->saved_ms = sv.ms;
    x->saved_share = sv.share;
    x->minor = isfinite(sv.ms) && S_minor(sv.ms, sv.share);
    x->fix = gm_xstrdup(fix);
    x->configs = 1;
    while (msg->len && msg->data[msg->len - 1] == ' ')
        msg->data[--msg->len] = '\0';
    gm_buf_puts(msg, "");
    x->message = gm_buf_detach(msg);
}

/* "It takes 229.6 µs, 4.6× the 50.0 µs of `float4`, the fastest run doing the
 * same work. "  Only when it is slower than that by GM_FIND_TIME_CLOSE. */
static double S_vs_fastest(gm_buf *b, const S_ctx *c, const gm_run *run)
{
    const gm_run *p = S_fastest_peer(c, run);
    if (!p || p == run)
        return NAN;
    double t = gm_find_time_of(run), tp = gm_find_time_of(p);
    if (t >= tp * GM_FIND_TIME_CLOSE) {
        gm_buf_puts(b, "It takes ");
        gm_fmt_ms(b, t);
        gm_buf_puts(b, ", ");
        gm_fmt_ratio(b, t / tp);
        gm_buf_puts(b, " the ");
        gm_fmt_ms(b, tp);
        gm_buf_puts(b, " of ");
        S_run_label(b, c, p);
        gm_buf_puts(b, gm_run_is_program(run) ? ", the fastest kernel profiled in the program. "
                                              : ", the fastest run doing the same work. ");
    }
    return t - tp;
}

static void S_rule_validation(S_ctx *c, const gm_run *run)
{
    const gm_check *k = &run->check;
    gm_buf b = GM_BUF_INIT;
    S_run_label(&b, c, run);
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
    S_add(c, GM_RULE_VALIDATION, GM_SEV_PROBLEM, run, 0.0, NAN,
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

static void S_rule_not_run(S_ctx *c, const gm_run *run)
{
    const gm_results *r = c->r;
    gm_buf b = GM_BUF_INIT;
    S_run_label(&b, c, run);
    gm_buf_puts(&b, " did not run");
    if (run->check.reason) {
        gm_buf_puts(&b, ": ");
        S_quote(&b, run->check.reason);
    }
    gm_buf_puts(&b, ". ");
    double need = S_need(run), mem = (double)r->device.global_memory_bytes;
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
    size_t en = c->exp_of[S_index(r, run)];
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
    const gm_experiment *e = S_exp(r, run->experiment);
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
    S_add(c, GM_RULE_NOT_RUN, others ? GM_SEV_WARNING : GM_SEV_INFO, run, 0.0, NAN,
          "run it at a size its inputs and outputs fit, or make it allocate less.", &b);
}

/* What to change about uncoalesced loads or stores, by the shape of the
 * waste: one extra sector or so per request is a misaligned start; under
 * one sector's worth of bytes per request is a few lanes each writing
 * alone (a reduction's result); anything else is a stride. */
static const char *S_fix_sectors(const gm_find_glob *g, bool store)
{
    if (g->ideal >= 2.0 && g->spr <= g->ideal * 1.3)
        return "align the start of each warp's access to 32 bytes (pad the rows, or offset the "
               "array), so that its requests do not straddle a sector.";
    if (g->ideal < 1.0)
        return store ? "gather the results in shared memory (or across the warp with shuffles) "
                       "and write them from consecutive threads, so that a store request fills "
                       "whole sectors."
                     : "have the threads of a warp load consecutive elements together, so that "
                       "a request's sectors hold the bytes the warp uses.";
    return store ? "make consecutive threads write consecutive addresses (`threadIdx.x` on the "
                   "fastest-varying index), or write through a shared-memory tile where the "
                   "pattern is a transpose."
                 : "make consecutive threads read consecutive addresses (`threadIdx.x` on the "
                   "fastest-varying index), or read through a shared-memory tile where the "
                   "pattern is a transpose.";
}

static void S_rule_uncoalesced(S_ctx *c, const gm_run *run, bool store)
{
    gm_find_glob g = gm_find_global(run, store);
    if (!gm_find_uncoalesced(&g))
        return;
    gm_buf b = GM_BUF_INIT;
    S_run_label(&b, c, run);
    gm_buf_puts(&b, store ? " writes to " : " fetches ");
    gm_fmt_fixed(&b, g.spr, 1);
    gm_buf_printf(&b, " sectors per global %s request where ", store ? "store" : "load");
    gm_fmt_fixed(&b, g.ideal, 1);
    gm_buf_printf(&b, " would hold the bytes its threads %s", store ? "write" : "ask for");
    if (g.ideal_model) {
        gm_buf_puts(&b, " (the address-trace model's figure)");
    } else {
        gm_buf_puts(&b, " (");
        gm_fmt_fixed(&b, g.spr, 1);
        gm_buf_puts(&b, " × its ");
        gm_fmt_pct(&b, g.eff);
        gm_buf_puts(&b, " efficiency)");
    }
    if (isfinite(g.excess)) {
        gm_buf_puts(&b, ": ");
        gm_fmt_count(&b, g.excess);
        gm_buf_puts(&b, " excess sectors of ");
        gm_fmt_count(&b, g.sectors);
    }
    if (isfinite(g.wasted)) {
        gm_buf_puts(&b, isfinite(g.excess) ? ", and " : ": ");
        gm_fmt_bytes(&b, g.wasted);
        gm_buf_puts(&b, store ? " of sector bytes that no thread wrote"
                              : " fetched that no thread uses");
    }
    gm_buf_puts(&b, ". ");
    double lost = S_vs_fastest(&b, c, run);
    double cost = isfinite(g.wasted) ? g.wasted : g.excess * SECTOR_BYTES;
    /* the unit: the L1TEX global sectors, loads and stores */
    gm_find_glob other = gm_find_global(run, !store);
    double total = g.sectors + (other.sectors >= 0 ? other.sectors : 0.0);
    /* DRAM bytes the excess sectors cost: at most the bytes DRAM moved in
     * that direction beyond the sectors the threads need (the caches serve
     * the rest), never more than the excess */
    double dram = gm_find_m(run, store ? GM_M_DRAM_WR : GM_M_DRAM_RD);
    double removed = dram >= 0 && isfinite(g.excess)
                         ? fmin(g.excess * SECTOR_BYTES,
                                fmax(0.0, dram - (g.sectors - g.excess) * SECTOR_BYTES))
                         : NAN;
    S_saving sv = S_estimate(c, run, g.excess, total, g.excess * SECTOR_BYTES, removed);
    gm_severity sev = S_saving_text(&b, run, sv, "sectors");
    S_add_saving(c, store ? GM_RULE_UNCOALESCED_STORE : GM_RULE_UNCOALESCED_LOAD, sev, run, cost,
                 lost, sv, S_fix_sectors(&g, store), &b);
}

static void S_rule_uncoalesced_load(S_ctx *c, const gm_run *run)
{
    S_rule_uncoalesced(c, run, false);
}

static void S_rule_uncoalesced_store(S_ctx *c, const gm_run *run)
{
    S_rule_uncoalesced(c, run, true);
}

static void S_rule_banks(S_ctx *c, const gm_run *run, bool store)
{
    gm_find_shr s = gm_find_shared(run, store);
    if (!gm_find_conflicted(&s))
        return;
    const char *kind = store ? "store" : "load";
    gm_buf b = GM_BUF_INIT;
    S_run_label(&b, c, run);
    if (s.per_request) {
        /* some instructions ran with every thread predicated off: per
         * instruction the figure would sit under the ideal of a request */
        gm_buf_puts(&b, " needs ");
        gm_fmt_fixed(&b, s.wpr, 2);
        gm_buf_printf(&b, " wavefronts per shared %s request where 1 would do: ", kind);
        gm_find_ways(&b, s.ways);
        gm_buf_puts(&b, ", ");
        gm_fmt_count(&b, s.excess);
        gm_buf_puts(&b, " excess wavefronts over the ");
        gm_fmt_count(&b, s.req);
        gm_buf_puts(&b, " requests it made, each served after the other (");
        gm_buf_puts(&b, s.src == GM_FIND_IDEAL_MODEL ? "the address-trace model's requests"
                                               : "its wavefronts less the measured bank conflicts");
        gm_buf_puts(&b, "; of its ");
        gm_fmt_count(&b, s.inst);
        gm_buf_printf(&b, " shared %s instructions the others ran with every thread predicated "
                          "off). ", kind);
    } else {
        gm_buf_puts(&b, " needs ");
        gm_fmt_fixed(&b, s.wpi, 2);
        gm_buf_printf(&b, " wavefronts per shared %s instruction where ", kind);
        gm_fmt_fixed(&b, s.ideal, 2);
        gm_buf_puts(&b, s.src == GM_FIND_IDEAL_MODEL
                            ? " is ideal (the address-trace model's figure)"
                        : s.src == GM_FIND_IDEAL_COUNTER
                            ? " is ideal (wavefronts less the measured bank conflicts)"
                            : " is ideal for 4-byte accesses (no conflict counter "
                              "or prediction was recorded)");
        gm_buf_puts(&b, ": ");
        gm_find_ways(&b, s.ways);
        gm_buf_puts(&b, ", ");
        gm_fmt_count(&b, s.excess);
        gm_buf_puts(&b, " excess wavefronts over ");
        gm_fmt_count(&b, s.inst);
        gm_buf_puts(&b, " instructions, each served after the other. ");
    }
    double lost = S_vs_fastest(&b, c, run);
    /* the unit: the shared-memory data stage, load and store wavefronts; no
     * DRAM byte is spared */
    gm_find_shr o = gm_find_shared(run, !store);
    double total = s.waves + (o.known ? o.waves : 0.0);
    S_saving sv = S_estimate(c, run, s.excess, total, s.excess * WAVEFRONT_BYTES, 0.0);
    gm_severity sev = S_saving_text(&b, run, sv, "wavefronts");
    S_add_saving(c, store ? GM_RULE_BANK_CONFLICT_STORE : GM_RULE_BANK_CONFLICT_LOAD, sev, run,
                 s.excess * WAVEFRONT_BYTES, lost, sv,
                 "make the threads of a warp touch consecutive 4-byte words of shared memory, "
                 "or pad the array by one word in every 32 (a tile `[N][N + 1]`), so that no two "
                 "threads of a request fall in one bank.", &b);
}

static void S_rule_banks_load(S_ctx *c, const gm_run *run)
{
    S_rule_banks(c, run, false);
}

static void S_rule_banks_store(S_ctx *c, const gm_run *run)
{
    S_rule_banks(c, run, true);
}

static void S_rule_overfetch(S_ctx *c, const gm_run *run)
{
    double rd = gm_find_m(run, GM_M_DRAM_RD), wr = gm_find_m(run, GM_M_DRAM_WR);
    double nr = gm_value_num(&run->bytes_read), nw = gm_value_num(&run->bytes_written);
    bool fr = rd >= 0 && nr > 0 && rd >= GM_FIND_DRAM_OVERFETCH * nr;
    bool fw = wr >= 0 && nw > 0 && wr >= GM_FIND_DRAM_OVERFETCH * nw;
    if (!fr && !fw)
        return;
    double excess = (fr ? rd - nr : 0) + (fw ? wr - nw : 0);
    gm_buf b = GM_BUF_INIT;
    S_run_label(&b, c, run);
    gm_buf_puts(&b, " makes DRAM ");
    if (fr) {
        gm_buf_puts(&b, "read ");
        gm_fmt_bytes(&b, rd);
        gm_buf_puts(&b, ", ");
        gm_fmt_ratio(&b, rd / nr);
        gm_buf_puts(&b, " the ");
        gm_fmt_bytes(&b, nr);
        gm_buf_puts(&b, " it must read");
    }
    if (fw) {
        gm_buf_puts(&b, fr ? ", and write " : "write ");
        gm_fmt_bytes(&b, wr);
        gm_buf_puts(&b, ", ");
        gm_fmt_ratio(&b, wr / nw);
        gm_buf_puts(&b, " the ");
        gm_fmt_bytes(&b, nw);
        gm_buf_puts(&b, " it must write");
    }
    double pct = gm_find_m(run, GM_M_DRAM_PCT);
    if (isfinite(pct)) {
        gm_buf_puts(&b, ", with DRAM at ");
        gm_fmt_pct(&b, pct);
        gm_buf_puts(&b, " of its peak");
    }
    gm_buf_puts(&b, ": ");
    gm_fmt_bytes(&b, excess);
    gm_buf_puts(&b, " more than the computation needs. ");
    gm_find_glob g = gm_find_global(run, false);
    if (fr && gm_find_uncoalesced(&g)) {
        gm_buf_puts(&b, "Its global loads fetch ");
        gm_fmt_ratio(&b, g.spr / g.ideal);
        gm_buf_puts(&b, " the sectors their bytes need, so whole sectors travel for a few of "
                        "their bytes. ");
    }
    /* the unit: DRAM, bytes read and written */
    S_saving sv = S_estimate(c, run, excess, (rd >= 0 ? rd : 0.0) + (wr >= 0 ? wr : 0.0), excess,
                             excess);
    gm_severity sev = S_saving_text(&b, run, sv, "bytes");
    S_add_saving(c, GM_RULE_DRAM_OVERFETCH, sev, run, excess, NAN, sv,
                 fr && gm_find_uncoalesced(&g)
                     ? "coalesce the loads (consecutive threads on consecutive addresses), so "
                       "that the sectors DRAM delivers hold bytes the threads use."
                     : "read each input from DRAM once, keeping what several threads or "
                       "passes reuse in shared memory or registers instead of fetching it again.",
                 &b);
}

static void S_rule_l2(S_ctx *c, const gm_run *run)
{
    gm_find_glob g = gm_find_global(run, false);
    double rd = gm_find_m(run, GM_M_DRAM_RD), nr = gm_value_num(&run->bytes_read);
    if (!gm_find_uncoalesced(&g) || !(g.sectors >= 0) || !(nr > 0) || !(rd >= 0))
        return;
    double fetched = g.sectors * SECTOR_BYTES;
    if (fetched < nr * (1.0 + GM_FIND_SECTOR_EXCESS) || rd > GM_FIND_L2_ABSORB_DRAM * nr)
        return;
    gm_buf b = GM_BUF_INIT;
    S_run_label(&b, c, run);
    gm_buf_puts(&b, " fetches ");
    gm_fmt_bytes(&b, fetched);
    gm_buf_puts(&b, " in global-load sectors (");
    gm_fmt_fixed(&b, g.spr, 1);
    gm_buf_puts(&b, " per request where ");
    gm_fmt_fixed(&b, g.ideal, 1);
    gm_buf_puts(&b, " would do) for the ");
    gm_fmt_bytes(&b, nr);
    gm_buf_puts(&b, " it must read, yet DRAM reads only ");
    gm_fmt_bytes(&b, rd);
    gm_buf_puts(&b, " (");
    gm_fmt_ratio(&b, rd / nr);
    gm_buf_puts(&b, "): the extra sectors are found in the caches, so they cost tag lookups and "
                    "L1–L2 transfers, not DRAM bytes. ");
    const gm_run *p = S_fastest_peer(c, run);
    double lost = NAN;
    if (p == run) {
        gm_buf_puts(&b, gm_run_is_program(run) ? "It is the fastest kernel profiled in the program."
                                               : "It is the fastest run doing the same work.");
    } else if (p) {
        double t = gm_find_time_of(run), tp = gm_find_time_of(p);
        lost = t - tp;
        if (t <= tp * GM_FIND_TIME_CLOSE)
            gm_buf_puts(&b, "It takes ");
        else
            gm_buf_puts(&b, "Still, it takes ");
        gm_fmt_ratio(&b, t / tp);
        gm_buf_puts(&b, " the time of ");
        S_run_label(&b, c, p);
        gm_buf_puts(&b, gm_run_is_program(run) ? ", the fastest kernel profiled in the program ("
                                               : ", the fastest run doing the same work (");
        gm_fmt_ms(&b, t);
        gm_buf_puts(&b, " against ");
        gm_fmt_ms(&b, tp);
        gm_buf_puts(&b, t <= tp * GM_FIND_TIME_CLOSE ? "): little or no time is lost."
                                                     : "): the extra sectors still cost time.");
    }
    S_add(c, GM_RULE_L2_ABSORBS, GM_SEV_INFO, run, 0.0, lost,
          "nothing for DRAM; aligning each warp's accesses to 32-byte sectors would spare "
          "only the extra L1–L2 transfers.", &b);
}

/* A run whose bytes are under GM_FIND_SMALL_FRACTION of the copy
 * measurement's: too short for its bytes to dominate its time. */
static bool S_is_small(const S_ctx *c, double need)
{
    double cb = gm_value_num(&c->r->device.copy_bandwidth_bytes);
    return cb > 0 && need < cb * GM_FIND_SMALL_FRACTION;
}

/* "It moves only 2.1 MB in 4.2 µs, where the copy bandwidth was measured
 * moving 1.1 GB: ..." */
static void S_small(gm_buf *b, const S_ctx *c, double need, double t)
{
    gm_buf_puts(b, "It moves only ");
    gm_fmt_bytes(b, need);
    gm_buf_puts(b, " in ");
    gm_fmt_ms(b, t);
    gm_buf_printf(b, ", where %s was measured moving ", gm_results_ceiling_name(c->r));
    gm_fmt_bytes(b, gm_value_num(&c->r->device.copy_bandwidth_bytes));
    gm_buf_puts(b, ": a kernel this short spends much of its time starting and draining, "
                   "not streaming bytes. ");
}

/* What the two bandwidth rules read of a run (not-memory-bound and
 * dram-underused): its time and the bytes it must move against the copy
 * bandwidth, how busy DRAM is, and whether its accesses waste sectors or
 * wavefronts.  known: false when the time, the bytes, the copy bandwidth or
 * the DRAM utilisation is missing (then neither rule fires). */
typedef struct {
    bool known;
    bool bw_bound;        /* its experiment is about bandwidth */
    double t, need, copy, pct;
    double gbs;           /* the useful bytes' rate */
    double t_copy;        /* ms the bytes take at the copy bandwidth */
    double forgone;       /* bytes the copy rate moves in t, less need */
    gm_find_glob ld, st;
    gm_find_shr sl, ss;
    bool clean;           /* no excess sectors or wavefronts */
    double lost;          /* ms against its fastest peer; NaN when it is the fastest */
} S_bw;

static S_bw S_bw_read(const S_ctx *c, const gm_run *run)
{
    S_bw w;
    memset(&w, 0, sizeof w);
    const gm_experiment *e = S_exp(c->r, run->experiment);
    w.bw_bound = e && e->bandwidth_bound;
    double t = gm_find_time_of(run), need = S_need(run), copy = c->copy_gbs;
    double pct = gm_find_m(run, GM_M_DRAM_PCT);
    if (!isfinite(t) || !(need > 0) || !(copy > 0) || !isfinite(pct))
        return w;
    w.known = true;
    w.t = t, w.need = need, w.copy = copy, w.pct = pct;
    w.gbs = need / (t * 1e6);            /* bytes / (ms * 1e-3) / 1e9 */
    w.t_copy = need / (copy * 1e6);      /* ms the bytes take at the copy bandwidth */
    w.forgone = copy * 1e6 * t - need;   /* bytes the copy rate moves in t, less need */
    w.ld = gm_find_global(run, false), w.st = gm_find_global(run, true);
    w.sl = gm_find_shared(run, false), w.ss = gm_find_shared(run, true);
    w.clean = !gm_find_uncoalesced(&w.ld) && !gm_find_uncoalesced(&w.st) &&
              !gm_find_conflicted(&w.sl) && !gm_find_conflicted(&w.ss);
    const gm_run *p = S_fastest_peer(c, run);
    w.lost = p && p != run ? t - gm_find_time_of(p) : NAN;
    return w;
}

/* The not-memory-bound test; dram-underused fires only where it does not. */
static bool S_bw_idle(const S_bw *w)
{
    return w->known && w->pct < GM_FIND_DRAM_IDLE_PCT &&
           w->gbs < GM_FIND_BW_SLOW_FRACTION * w->copy && w->clean;
}

static void S_rule_not_memory_bound(S_ctx *c, const gm_run *run)
{
    S_bw w = S_bw_read(c, run);
    if (!S_bw_idle(&w))
        return;
    double t = w.t, need = w.need, copy = w.copy, pct = w.pct, t_copy = w.t_copy;
    const gm_find_glob ld = w.ld;
    const gm_find_shr sl = w.sl;
    gm_buf b = GM_BUF_INIT;
    S_run_label(&b, c, run);
    gm_buf_puts(&b, " is limited by something other than memory: DRAM runs at ");
    gm_fmt_pct(&b, pct);
    gm_buf_puts(&b, " of its peak");
    if (ld.known) {
        gm_buf_puts(&b, ", its global loads fetch ");
        gm_fmt_fixed(&b, ld.spr, 1);
        gm_buf_puts(&b, " sectors per request against an ideal of ");
        gm_fmt_fixed(&b, ld.ideal, 1);
    }
    if (sl.known) {
        gm_buf_puts(&b, ", its shared loads take ");
        gm_fmt_fixed(&b, sl.wpi, 2);
        gm_buf_puts(&b, " wavefronts per instruction against an ideal of ");
        gm_fmt_fixed(&b, sl.ideal, 2);
    }
    gm_buf_puts(&b, ", yet it takes ");
    gm_fmt_ms(&b, t);
    gm_buf_puts(&b, ", ");
    gm_fmt_ratio(&b, t / t_copy);
    gm_buf_puts(&b, " the ");
    gm_fmt_ms(&b, t_copy);
    gm_buf_puts(&b, " its ");
    gm_fmt_bytes(&b, need);
    gm_buf_printf(&b, " would take at %s (", gm_results_ceiling_name(c->r));
    gm_fmt_gbs(&b, copy);
    gm_buf_puts(&b, "). ");
    double fl = gm_value_num(&run->flops);
    if (fl > 0) {
        gm_buf_puts(&b, "It performs ");
        gm_fmt_flop(&b, fl);
        gm_buf_puts(&b, " at ");
        gm_fmt_flop(&b, fl / (t * 1e-3));
        gm_buf_puts(&b, "/s. ");
    }
    bool small = S_is_small(c, need);
    if (small) {
        S_small(&b, c, need, t);
    } else {
        gm_buf_puts(&b, "The time goes to arithmetic, latency or synchronisation rather than "
                        "to moving bytes");
        double l2 = gm_find_m(run, GM_M_L2_HIT);
        if (l2 >= 50.0) {
            gm_buf_puts(&b, "; L2 serves ");
            gm_fmt_pct(&b, l2);
            gm_buf_puts(&b, " of its sectors, so L2 bandwidth is a candidate too");
        }
        gm_buf_puts(&b, ". ");
    }
    /* A warning only where bandwidth is the point and size is not the
     * explanation. */
    S_add(c, GM_RULE_NOT_MEMORY_BOUND, w.bw_bound && !small ? GM_SEV_WARNING : GM_SEV_INFO, run,
          w.forgone, w.lost,
          small ? "give each launch more work (a larger problem, or several batched into one "
                  "launch), since a kernel this short cannot stream."
                : "look at its instructions and stalls (Nsight Compute's source and warp-state "
                  "views), not at its memory layout, which is not what limits it.",
          &b);
}

static void S_rule_dram_underused(S_ctx *c, const gm_run *run)
{
    S_bw w = S_bw_read(c, run);
    if (!w.known || S_bw_idle(&w))
        return;
    double t = w.t, need = w.need, copy = w.copy, pct = w.pct, gbs = w.gbs;
    const gm_find_glob ld = w.ld;
    const gm_find_shr sl = w.sl;
    if (!w.bw_bound || pct >= GM_FIND_DRAM_LOW_PCT || gbs >= GM_FIND_BW_LOW_FRACTION * copy)
        return;
    gm_buf b = GM_BUF_INIT;
    S_run_label(&b, c, run);
    gm_buf_puts(&b, " moves the ");
    gm_fmt_bytes(&b, need);
    gm_buf_puts(&b, " it must read and write at ");
    gm_fmt_gbs(&b, gbs);
    gm_buf_puts(&b, ", ");
    gm_fmt_pct(&b, 100.0 * gbs / copy);
    gm_buf_printf(&b, " of %s measured on this device (", gm_results_ceiling_name(c->r));
    gm_fmt_gbs(&b, copy);
    gm_buf_puts(&b, "), while DRAM runs at ");
    gm_fmt_pct(&b, pct);
    gm_buf_puts(&b, " of its peak: DRAM is not what limits it. ");
    if (gm_find_uncoalesced(&ld)) {
        gm_buf_puts(&b, "Its global loads fetch ");
        gm_fmt_fixed(&b, ld.spr, 1);
        gm_buf_puts(&b, " sectors per request where ");
        gm_fmt_fixed(&b, ld.ideal, 1);
        gm_buf_puts(&b, " would do, so the load path moves ");
        gm_fmt_ratio(&b, ld.spr / ld.ideal);
        gm_buf_puts(&b, " the sectors it needs. ");
    }
    if (gm_find_conflicted(&sl)) {
        gm_buf_puts(&b, "Its shared loads suffer ");
        gm_find_ways(&b, sl.ways);
        gm_buf_puts(&b, ". ");
    }
    bool small = S_is_small(c, need);
    if (small)
        S_small(&b, c, need, t);
    /* Info when size alone explains it (no excess sectors or wavefronts). */
    S_add(c, GM_RULE_DRAM_UNDERUSED,
          small && w.clean ? GM_SEV_INFO : GM_SEV_WARNING, run,
          w.forgone, w.lost,
          gm_find_uncoalesced(&ld) ? "coalesce its loads first (consecutive threads on consecutive "
                                     "addresses), since the load path moves sectors nobody uses."
          : gm_find_conflicted(&sl) ? "remove the bank conflicts first (pad the shared tile by one "
                                      "column), then put more bytes in flight."
          : small && w.clean ? "give each launch more work (a larger problem, or several "
                               "batched into one launch), since a kernel this short cannot "
                               "stream."
                             : "put more bytes in flight per thread by loading `float4` (16 "
                               "bytes per thread) or unrolling, so that each thread has several "
                               "independent loads outstanding.",
          &b);
}

static void S_rule_constant(S_ctx *c, const gm_run *run)
{
    double loads, d;
    if (!S_const_note(run, &loads, &d) || d < GM_FIND_CONST_SERIAL)
        return;
    const gm_prediction *p = &run->prediction;
    double scale = p->scaled && p->warps_traced > 0 && p->warps_total > 0
                       ? (double)p->warps_total / (double)p->warps_traced : 1.0;
    gm_buf b = GM_BUF_INIT;
    S_run_label(&b, c, run);
    gm_buf_puts(&b, " reads constant memory at ");
    gm_fmt_fixed(&b, d, 2);
    gm_buf_puts(&b, " distinct addresses per warp load on average, so the constant cache serves "
                    "each load in ");
    gm_fmt_fixed(&b, d, 2);
    gm_buf_puts(&b, " passes where one broadcast would do. No hardware counter measures this: "
                    "the figure is the address-trace model's, from ");
    gm_fmt_count(&b, loads);
    gm_buf_puts(&b, " traced warp loads. ");
    double lost = S_vs_fastest(&b, c, run);
    /* cost: each extra pass holds the constant cache for a cycle in which it
     * could have broadcast one 4-byte word to 32 lanes, 128 B of operands */
    S_add(c, GM_RULE_CONSTANT_SERIAL, GM_SEV_WARNING, run,
          (d - 1.0) * loads * scale * WAVEFRONT_BYTES, lost,
          "read constant memory at one address per warp (an index uniform across the warp), "
          "or move a table read at per-thread indices to global memory, which serves a warp's "
          "32 addresses in one request.", &b);
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

static void S_rule_model(S_ctx *c, const gm_run *run)
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
    S_run_label(&b, c, run);
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
    S_add(c, GM_RULE_MODEL_MISMATCH, GM_SEV_WARNING, run, cost, NAN,
          "check the kernel's indexing against its address trace (`kernels/trace_*.c`) and "
          "correct whichever of the two is wrong.", &b);
}

/* ---- the rule table ------------------------------------------------------------ */

/* Which runs a rule reads, by their check.  A run whose check failed or that
 * stopped with an error gets only a validation finding: no other rule reads
 * its numbers, and no comparison of another run uses them (S_peers_build
 * leaves it out).  A run that did not run has no numbers. */
typedef enum {
    S_ON_NUMBERS = 0,   /* passed, or measured with no reference */
    S_ON_FAILED,        /* failed its check or stopped with an error */
    S_ON_NOT_RUN
} S_on;

static S_on S_reads(const gm_run *run)
{
    switch (run->check.status) {
    case GM_CHECK_FAILED:
    case GM_CHECK_ERROR:
        return S_ON_FAILED;
    case GM_CHECK_NOT_RUN:
        return S_ON_NOT_RUN;
    case GM_CHECK_PASSED:
    case GM_CHECK_NO_REFERENCE:
        break;
    }
    return S_ON_NUMBERS;
}

/* Every rule, one row each: its stable id and title (gm_rule_id,
 * gm_rule_title), the runs it reads, and the function that adds its finding
 * to a run when it fires.  gm_findings_build tries the rows in this order on
 * every run; the order of the findings is their rank, not this order. */
static const struct {
    const char *id, *title;
    S_on on;
    void (*fire)(S_ctx *c, const gm_run *run);
} S_rules[GM_RULE_COUNT] = {
    [GM_RULE_VALIDATION] = {"validation", "Output check failed", S_ON_FAILED,
                            S_rule_validation},
    [GM_RULE_NOT_RUN] = {"not-run", "Not run at this size", S_ON_NOT_RUN, S_rule_not_run},
    [GM_RULE_UNCOALESCED_LOAD] = {"uncoalesced-load", "Uncoalesced global loads", S_ON_NUMBERS,
                                  S_rule_uncoalesced_load},
    [GM_RULE_UNCOALESCED_STORE] = {"uncoalesced-store", "Uncoalesced global stores", S_ON_NUMBERS,
                                   S_rule_uncoalesced_store},
    [GM_RULE_BANK_CONFLICT_LOAD] = {"bank-conflict-load", "Shared-memory bank conflicts on loads",
                                    S_ON_NUMBERS, S_rule_banks_load},
    [GM_RULE_BANK_CONFLICT_STORE] = {"bank-conflict-store",
                                     "Shared-memory bank conflicts on stores", S_ON_NUMBERS,
                                     S_rule_banks_store},
    [GM_RULE_DRAM_OVERFETCH] = {"dram-overfetch", "DRAM moves bytes nobody asked for",
                                S_ON_NUMBERS, S_rule_overfetch},
    [GM_RULE_L2_ABSORBS] = {"l2-absorbs", "L2 absorbs the excess sectors", S_ON_NUMBERS,
                            S_rule_l2},
    [GM_RULE_DRAM_UNDERUSED] = {"dram-underused", "Low DRAM utilisation", S_ON_NUMBERS,
                                S_rule_dram_underused},
    [GM_RULE_NOT_MEMORY_BOUND] = {"not-memory-bound", "Bound by something other than memory",
                                  S_ON_NUMBERS, S_rule_not_memory_bound},
    [GM_RULE_CONSTANT_SERIAL] = {"constant-serialised", "Constant-memory reads serialised",
                                 S_ON_NUMBERS, S_rule_constant},
    [GM_RULE_MODEL_MISMATCH] = {"model-mismatch", "Model and measurement disagree", S_ON_NUMBERS,
                                S_rule_model},
};

const char *gm_rule_id(gm_rule rule)
{
    return (unsigned)rule < GM_RULE_COUNT ? S_rules[rule].id : "unknown";
}

const char *gm_rule_title(gm_rule rule)
{
    return (unsigned)rule < GM_RULE_COUNT ? S_rules[rule].title : "Unknown rule";
}

const char *gm_severity_name(gm_severity s)
{
    switch (s) {
    case GM_SEV_INFO:
        return "info";
    case GM_SEV_WARNING:
        return "warning";
    case GM_SEV_PROBLEM:
        return "problem";
    }
    return "unknown";
}

/* ---- ranking ---------------------------------------------------------------- */

static int S_rank_cmp(const void *pa, const void *pb)
{
    const gm_finding *a = pa, *b = pb;
    if (a->severity != b->severity)
        return a->severity > b->severity ? -1 : 1;
    double sa = isfinite(a->saved_ms) ? a->saved_ms : -1, sb = isfinite(b->saved_ms) ? b->saved_ms : -1;
    if (sa != sb)
        return sa > sb ? -1 : 1;
    if (a->cost != b->cost)
        return a->cost > b->cost ? -1 : 1;
    if (a->run_index != b->run_index)
        return a->run_index < b->run_index ? -1 : 1;
    return (int)a->rule - (int)b->rule;
}

static bool S_same_group(const gm_finding *a, const gm_finding *b)
{
    return a->rule == b->rule && gm_find_streq(a->experiment, b->experiment) &&
           gm_find_streq(a->variant, b->variant);
}

/* Pointers into one array of ranked findings: rule, experiment, variant (0
 * exactly when S_same_group), then rank. */
static int S_group_cmp(const void *pa, const void *pb)
{
    gm_finding *const *pa_ = pa, *const *pb_ = pb;
    const gm_finding *a = *pa_, *b = *pb_;
    if (a->rule != b->rule)
        return a->rule < b->rule ? -1 : 1;
    int c = S_id_cmp(a->experiment, b->experiment);
    if (!c)
        c = S_id_cmp(a->variant, b->variant);
    return c ? c : a < b ? -1 : a > b;
}

/* Groups of the same rule, experiment and variant (a sweep fires the same
 * rule at many sizes): each finding learns its group's size, and the first
 * in rank order is the group's lead.  out is ranked. */
static void S_fold(gm_findings *out)
{
    /* sorted by rule, experiment, variant, then rank, each group stands
     * together with its lead first */
    gm_finding **ord = gm_xmalloc((out->n ? out->n : 1) * sizeof *ord);
    for (size_t i = 0; i < out->n; i++)
        ord[i] = &out->v[i];
    qsort(ord, out->n, sizeof *ord, S_group_cmp);
    for (size_t i = 0, j; i < out->n; i = j) {
        for (j = i + 1; j < out->n && S_same_group(ord[i], ord[j]); j++)
            ;
        for (size_t k = i; k < j; k++) {
            ord[k]->similar = j - i;
            ord[k]->lead = k == i;
        }
    }
    free(ord);
}

/* A program run's launch configuration, as its row names it: "1024x1x1/64x1x1". */
static void S_config(gm_buf *b, const gm_run *run)
{
    if (run->has_launch)
        gm_buf_printf(b, "%ux%ux%u/%ux%ux%u", run->launch.grid[0], run->launch.grid[1],
                      run->launch.grid[2], run->launch.block[0], run->launch.block[1],
                      run->launch.block[2]);
    else
        gm_find_code(b, run->variant);
}

/* The run whose per-line counters speak for x: its own; else, for a program,
 * a run of the same kernel (the per-line pass counts one launch of each
 * kernel); else one of the same layout (the suite measures one case of each). */
static const gm_run *S_lines_run(const gm_results *r, const gm_finding *x)
{
    if (x->run && x->run->source_lines.present)
        return x->run;
    if (x->run && gm_run_is_program(x->run) && x->run->kernel)
        for (size_t i = 0; i < r->n_runs; i++) {
            const gm_run *o = &r->runs[i];
            if (o->source_lines.present && o->kernel &&
                gm_find_streq(o->experiment, x->experiment) &&
                strcmp(o->kernel, x->run->kernel) == 0)
                return o;
        }
    return gm_srclines_run_of(r, x->experiment, x->variant);
}

/* A finding about uncoalesced accesses or bank conflicts names the line that
 * causes it when its layout has per-source-line counters (issue 14): the
 * line with the largest excess, and its share of the excess of all the lines
 * of that kind of access (issue 26: a warning named an instruction holding
 * 1.3 % of it, as a share of all sectors). */
static void S_name_lines(const gm_results *r, gm_findings *out)
{
    for (size_t i = 0; i < out->n; i++) {
        gm_finding *x = &out->v[i];
        const char *op;
        bool shared;
        switch (x->rule) {
        case GM_RULE_UNCOALESCED_LOAD: op = "LDG"; shared = false; break;
        case GM_RULE_UNCOALESCED_STORE: op = "STG"; shared = false; break;
        case GM_RULE_BANK_CONFLICT_LOAD: op = "LDS"; shared = true; break;
        case GM_RULE_BANK_CONFLICT_STORE: op = "STS"; shared = true; break;
        default: continue;
        }
        const gm_run *run = S_lines_run(r, x);
        if (!run || !run->source_lines.status ||
            strcmp(run->source_lines.status, "collected") != 0)
            continue;
        const gm_srclines *sl = &run->source_lines;
        const gm_srcline *top = gm_srclines_top(sl, shared, op);
        if (!top)
            continue;
        long long excess = shared ? gm_srcline_excess_wavefronts(top)
                                  : gm_srcline_excess_sectors(top);
        /* the excess of every line of this kind of access, and how many */
        size_t holders = 0;
        long long all = gm_srclines_excess_of(sl, shared, op, &holders);
        bool mine = run == x->run || (run->kernel && x->run && x->run->kernel &&
                                      strcmp(run->kernel, x->run->kernel) == 0 &&
                                      gm_run_is_program(run));
        const char *unit = sl->line_info ? "line" : "instruction";
        gm_buf b = GM_BUF_INIT;
        gm_buf_puts(&b, x->message ? x->message : "");
        gm_buf_printf(&b, " The %s: ", unit);
        gm_srcline_cite_md(&b, top);
        if (!mine) {
            gm_buf_puts(&b, " (per-line counters of another case of this layout).");
            free(x->message);
            x->message = gm_buf_detach(&b);
            continue;
        }
        gm_buf_puts(&b, " (");
        gm_fmt_count(&b, (double)excess);
        gm_buf_puts(&b, shared ? " excess wavefronts" : " excess sectors");
        if (all > 0) {
            gm_buf_puts(&b, ", ");
            gm_fmt_pct(&b, 100.0 * (double)excess / (double)all);
            gm_buf_printf(&b, " of the excess of its %s", shared ? "shared" : "global");
            gm_buf_puts(&b, x->rule == GM_RULE_UNCOALESCED_LOAD || x->rule == GM_RULE_BANK_CONFLICT_LOAD
                                ? " loads" : " stores");
        }
        if (run != x->run && run->has_launch) {   /* another configuration's launch */
            gm_buf_puts(&b, ", in one launch of ");
            S_config(&b, run);
            gm_buf_puts(&b, ")");
        } else {
            gm_buf_puts(&b, ", in one launch)");
        }
        if (holders > 1 && 2 * excess < all) {
            gm_buf_puts(&b, "; the rest is spread over ");
            gm_fmt_count(&b, (double)(holders - 1));
            gm_buf_printf(&b, " more %s%s", unit, holders - 1 == 1 ? "" : "s");
        }
        gm_buf_puts(&b, ".");
        free(x->message);
        x->message = gm_buf_detach(&b);
    }
}

/* ---- one finding per kernel across its launch configurations --------------------- */

/* The NVTX range of a program's run, from its notes ("NVTX range: a/b"). */
static const char *S_range_note(const gm_run *run)
{
    static const char head[] = "NVTX range: ";
    for (size_t i = 0; i < run->n_notes; i++)
        if (run->notes[i] && strncmp(run->notes[i], head, sizeof head - 1) == 0)
            return run->notes[i] + sizeof head - 1;
    return NULL;
}

/* Findings of one kernel, range and rule of a program (its launch
 * configurations are different runs). */
static bool S_same_kernel(const gm_finding *a, const gm_finding *b)
{
    return a->rule == b->rule && a->run && b->run && gm_run_is_program(a->run) &&
           gm_run_is_program(b->run) && a->run->kernel && b->run->kernel &&
           gm_find_streq(a->experiment, b->experiment) &&
           strcmp(a->run->kernel, b->run->kernel) == 0 &&
           gm_find_streq(S_range_note(a->run), S_range_note(b->run));
}

/* Which of two findings leads a kernel's group: the larger saving, then the
 * larger cost, then the first in the file. */
static bool S_leads(const gm_finding *a, const gm_finding *b)
{
    double sa = isfinite(a->saved_ms) ? a->saved_ms : -1, sb = isfinite(b->saved_ms) ? b->saved_ms : -1;
    if (sa != sb)
        return sa > sb;
    if (a->cost != b->cost)
        return a->cost > b->cost;
    return a->run_index < b->run_index;
}

static void S_finding_free(gm_finding *x)
{
    free(x->params);
    free(x->message);
    free(x->fix);
}

/* A program's kernel launched at several configurations (five block sizes)
 * gave one finding per configuration, the same words five times (issue 26):
 * one finding per kernel, range and rule, led by the configuration that
 * saves most, saying where else the rule fires and what all of them would
 * save together. */
static void S_merge_configs(gm_findings *out)
{
    bool *gone = gm_xcalloc(out->n ? out->n : 1, sizeof *gone);
    for (size_t i = 0; i < out->n; i++) {
        if (gone[i])
            continue;
        size_t lead = i, n = 1;
        for (size_t j = i + 1; j < out->n; j++)
            if (!gone[j] && S_same_kernel(&out->v[i], &out->v[j])) {
                n++;
                if (S_leads(&out->v[j], &out->v[lead]))
                    lead = j;
            }
        if (n == 1)
            continue;
        gm_finding *x = &out->v[lead];
        double ms = 0, share = 0, cost = 0;
        bool all_ms = true;
        gm_severity sev = GM_SEV_INFO;
        gm_buf others = GM_BUF_INIT;
        gm_buf_puts(&others, "");
        size_t k = 0;
        for (size_t j = i; j < out->n; j++) {
            gm_finding *y = &out->v[j];
            if (gone[j] || (j != i && !S_same_kernel(&out->v[i], y)))
                continue;
            all_ms &= isfinite(y->saved_ms);
            ms += isfinite(y->saved_ms) ? y->saved_ms : 0.0;
            share += isfinite(y->saved_share) ? y->saved_share : 0.0;
            cost += y->cost;
            if (y->severity > sev)
                sev = y->severity;
            if (y == x)
                continue;
            gm_buf_puts(&others, k++ ? ", " : "");
            S_config(&others, y->run);
        }
        gm_buf b = GM_BUF_INIT;
        gm_buf_puts(&b, x->message);
        gm_buf_printf(&b, " The same rule fires on its %zu other launch configuration%s (", n - 1,
                      n - 1 == 1 ? "" : "s");
        gm_buf_put(&b, others.data, others.len);
        gm_buf_puts(&b, ")");
        if (all_ms) {
            gm_buf_printf(&b, "; over all %zu, not moving the excess would save about ", n);
            gm_fmt_ms(&b, ms);
            S_share_text(&b, x->run, share);
            x->saved_ms = ms;
            x->saved_share = share;
            x->minor = S_minor(ms, share);
            sev = x->minor ? GM_SEV_INFO : GM_SEV_WARNING;
        }
        gm_buf_puts(&b, ".");
        gm_buf_free(&others);
        free(x->message);
        x->message = gm_buf_detach(&b);
        x->cost = cost;
        x->severity = sev;
        x->configs = n;
        for (size_t j = i; j < out->n; j++)
            if (j != lead && !gone[j] && (j == i || S_same_kernel(&out->v[i], &out->v[j])))
                gone[j] = true;
    }
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (gone[i]) {
            S_finding_free(&out->v[i]);
            continue;
        }
        out->v[kept++] = out->v[i];
    }
    out->n = kept;
    free(gone);
}

/* ---- building the findings ------------------------------------------------------- */

void gm_findings_build(const gm_results *r, gm_findings *out)
{
    memset(out, 0, sizeof *out);
    double copy = gm_results_ceiling_gbs(r, NULL);
    double theo = gm_value_num(&r->device.theoretical_bandwidth_gbs);
    S_ctx c = {r, copy, copy > 0 ? copy : theo > 0 ? theo : NAN, NULL, NULL, NULL, NULL, NULL, NULL,
               out, 0};
    S_params_build(&c);
    S_peers_build(&c);
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        S_on on = S_reads(run);
        for (size_t k = 0; k < GM_RULE_COUNT; k++)
            if (S_rules[k].on == on)
                S_rules[k].fire(&c, run);
    }
    S_ctx_free(&c);

    S_name_lines(r, out);
    S_merge_configs(out);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, S_rank_cmp);
    S_fold(out);
}

void gm_findings_free(gm_findings *f)
{
    for (size_t i = 0; i < f->n; i++)
        S_finding_free(&f->v[i]);
    free(f->v);
    memset(f, 0, sizeof *f);
}

gm_finding_list gm_findings_for_experiment(const gm_findings *f, const char *experiment_id)
{
    gm_finding_list l = {NULL, 0};
    for (size_t i = 0; i < f->n; i++) {
        if (!gm_find_streq(f->v[i].experiment, experiment_id))
            continue;
        l.v = gm_xrealloc(l.v, (l.n + 1) * sizeof *l.v);
        l.v[l.n++] = &f->v[i];
    }
    return l;
}

/* ---- the Markdown list ------------------------------------------------------------ */

size_t gm_findings_md(const gm_findings *f, const char *experiment_id, size_t max,
                      bool leads_only, gm_buf *out)
{
    return gm_findings_md_except(f, experiment_id, max, leads_only, 0u, out);
}

/* Would the list show x? */
static bool S_selected(const gm_finding *x, const char *experiment_id, bool leads_only,
                       unsigned skip_rules)
{
    return (!experiment_id || gm_find_streq(x->experiment, experiment_id)) &&
           (!leads_only || x->lead) && !(skip_rules & GM_RULE_BIT(x->rule)) &&
           !(!experiment_id && leads_only && x->minor);
}

size_t gm_findings_count_minor(const gm_findings *f, unsigned skip_rules)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++)
        n += f->v[i].minor && f->v[i].lead && !(skip_rules & GM_RULE_BIT(f->v[i].rule));
    return n;
}

size_t gm_findings_count(const gm_findings *f, const char *experiment_id, bool leads_only,
                         unsigned skip_rules)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++)
        n += S_selected(&f->v[i], experiment_id, leads_only, skip_rules);
    return n;
}

size_t gm_findings_md_except(const gm_findings *f, const char *experiment_id, size_t max,
                             bool leads_only, unsigned skip_rules, gm_buf *out)
{
    size_t shown = 0;
    for (size_t i = 0; i < f->n && (!max || shown < max); i++) {
        const gm_finding *x = &f->v[i];
        if (!S_selected(x, experiment_id, leads_only, skip_rules))
            continue;
        static const char *const sev[] = {"Info", "Warning", "Problem"};
        gm_buf_printf(out, "- **%s** (%s): ", sev[x->severity], gm_rule_id(x->rule));
        if (!experiment_id) {
            gm_buf_puts(out, "in ");
            gm_find_code(out, x->experiment);
            gm_buf_puts(out, ", ");
        }
        gm_buf_puts(out, x->message);
        if (leads_only && x->similar > 1) {
            gm_buf_puts(out, " The same rule fires on ");
            gm_fmt_count(out, (double)(x->similar - 1));
            gm_buf_puts(out, x->similar == 2 ? " more run of " : " more runs of ");
            gm_find_code(out, x->variant);
            gm_buf_puts(out, ".");
        }
        if (x->fix && *x->fix) {
            gm_buf_puts(out, " What to change: ");
            gm_buf_puts(out, x->fix);
        }
        gm_buf_putc(out, '\n');
        shown++;
    }
    if (shown)
        gm_buf_putc(out, '\n');
    return shown;
}
