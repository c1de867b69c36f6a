/* diff_judge.c — judging a pair of runs: their check, the time row (its
 * threshold, then the rank test, the spread of its launches or the floor for
 * one sample), one row per metric (threshold, floor, role: a count gates, a
 * rate is shown beside it), a time that moved alone; and the row of a run
 * on one side only.  The rank test (Mann–Whitney U) is here too.
 */
#include "diff_int.h"

#include "../core/buf.h"
#include "../core/fmt.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* The noise test                                                           */
/* ======================================================================== */

typedef struct {
    double v;
    int group;   /* 0: x, 1: y */
} S_obs;

static int S_obs_cmp(const void *a, const void *b)
{
    double x = ((const S_obs *)a)->v, y = ((const S_obs *)b)->v;
    return (x > y) - (x < y);
}

/* P(U <= u) under the null hypothesis for sample sizes m and n without ties.
 * Every one of the C(m+n, m) orderings of the pooled sample is equally
 * likely; f(i, j, k) counts those of i x's and j y's with U = k.  Looking at
 * the largest value: if it is an x it beats all j y's, so
 *     f(i, j, k) = f(i-1, j, k-j) + f(i, j-1, k),
 * with f(i, 0, 0) = f(0, j, 0) = 1.  Only k <= u is needed (each term reads
 * smaller k only), which keeps 49 x 49 samples near 49*49*u additions.  Only
 * additions of positive numbers, so doubles keep a relative error near 1e-16
 * even where the counts (up to C(98, 49) ~ 2.5e28) exceed 64-bit integers. */
static double S_exact_cdf(size_t m, size_t n, double u)
{
    if (u < 0.0)
        return 0.0;
    size_t K = (size_t)floor(u + 1e-9);
    if (K >= m * n)
        return 1.0;
    size_t stride = K + 1;
    double *prev = gm_xcalloc((n + 1) * stride, sizeof *prev);
    double *cur = gm_xcalloc((n + 1) * stride, sizeof *cur);
    for (size_t j = 0; j <= n; j++)
        prev[j * stride] = 1.0;   /* i = 0: no x, U = 0 */
    for (size_t i = 1; i <= m; i++) {
        memset(cur, 0, (n + 1) * stride * sizeof *cur);
        cur[0] = 1.0;             /* j = 0: no y, U = 0 */
        for (size_t j = 1; j <= n; j++) {
            double *c = cur + j * stride, *left = cur + (j - 1) * stride, *up = prev + j * stride;
            size_t top = i * j < K ? i * j : K;
            for (size_t k = 0; k <= top; k++)
                c[k] = left[k] + (k >= j ? up[k - j] : 0.0);
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    const double *f = prev + n * stride;
    double below = 0.0;
    for (size_t k = 0; k <= K; k++)
        below += f[k];
    /* C(m+n, m) = prod (n+i)/i, each step exact up to rounding. */
    double total = 1.0;
    for (size_t i = 1; i <= m; i++)
        total = total * (double)(n + i) / (double)i;
    free(prev);
    free(cur);
    return below / total;
}

gm_mwu gm_mann_whitney(const double *x, size_t n1, const double *y, size_t n2)
{
    gm_mwu r = {GM_MWU_NONE, n1, n2, NAN, NAN, NAN, NAN, false};
    if (!x || !y || n1 == 0 || n2 == 0)
        return r;
    size_t n = n1 + n2;
    S_obs *o = gm_xmalloc(n * sizeof *o);
    for (size_t i = 0; i < n1; i++)
        o[i] = (S_obs){x[i], 0};
    for (size_t i = 0; i < n2; i++)
        o[n1 + i] = (S_obs){y[i], 1};
    qsort(o, n, sizeof *o, S_obs_cmp);

    /* Mid-ranks: a group of t equal values at sorted positions i..i+t-1 all
     * get the average rank (i+1 + i+t) / 2; sum(t^3 - t) feeds the variance
     * correction below. */
    double r1 = 0.0, tie_sum = 0.0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && o[j].v == o[i].v)
            j++;
        double t = (double)(j - i);
        double rank = ((double)(i + 1) + (double)j) / 2.0;
        for (size_t k = i; k < j; k++)
            if (o[k].group == 0)
                r1 += rank;
        tie_sum += t * t * t - t;
        i = j;
    }
    free(o);

    double dn1 = (double)n1, dn2 = (double)n2, dn = (double)n;
    r.u1 = r1 - dn1 * (dn1 + 1.0) / 2.0;
    r.u = fmin(r.u1, dn1 * dn2 - r.u1);
    r.ties = tie_sum > 0.0;

    if (!r.ties && n1 < 50 && n2 < 50) {
        /* The null distribution of U is symmetric about n1*n2/2, so the
         * two-sided p is twice the lower tail at the smaller U. */
        r.method = GM_MWU_EXACT;
        r.p = fmin(1.0, 2.0 * S_exact_cdf(n1, n2, r.u));
        return r;
    }

    /* Normal approximation: E[U] = n1 n2 / 2,
     * Var[U] = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))),
     * z = (|U1 - E[U]| - 1/2) / sd, p = 2 (1 - Phi(z)) = erfc(z / sqrt 2). */
    r.method = GM_MWU_NORMAL;
    double mean = dn1 * dn2 / 2.0;
    double var = dn1 * dn2 / 12.0 * ((dn + 1.0) - tie_sum / (dn * (dn - 1.0)));
    if (!(var > 0.0)) {
        r.z = 0.0;      /* every value equal: nothing to tell the samples apart */
        r.p = 1.0;
        return r;
    }
    double d = fabs(r.u1 - mean) - 0.5;
    if (d < 0.0)
        d = 0.0;
    r.z = d / sqrt(var);
    r.p = fmin(1.0, erfc(r.z / sqrt(2.0)));
    return r;
}

const char *gm_mwu_method_name(gm_mwu_method m)
{
    switch (m) {
    case GM_MWU_NONE: return "none";
    case GM_MWU_EXACT: return "exact";
    case GM_MWU_NORMAL: return "normal";
    }
    return "none";
}

/* ======================================================================== */
/* Judging rows                                                             */
/* ======================================================================== */

static gm_diff_row *S_row(gm_diff_ctx *c, gm_diff_status st, const gm_run *b, const gm_run *h)
{
    gm_diff *d = c->d;
    if (d->n_rows == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        d->rows = gm_xrealloc(d->rows, c->cap * sizeof *d->rows);
    }
    gm_diff_row *r = &d->rows[d->n_rows++];
    memset(r, 0, sizeof *r);
    r->status = st;
    r->base = b;
    r->head = h;
    r->vbase = gm_vabsent();
    r->vhead = gm_vabsent();
    r->delta = NAN;
    r->ratio = NAN;
    r->magnitude = NAN;
    r->noise_floor = NAN;
    r->role = GM_DIFF_ROLE_RUN;
    r->gates = true;
    r->floor = 0.0;
    r->per_inst = NAN;
    r->test = (gm_mwu){GM_MWU_NONE, 0, 0, NAN, NAN, NAN, NAN, false};
    r->order = d->n_rows - 1;
    return r;
}

/* The row's threshold: the last --threshold naming its metric (as with
 * repeated options elsewhere), else the default; r->thr_given says which. */
static void S_threshold_for(const gm_diff_ctx *c, gm_diff_row *r, const char *metric)
{
    const gm_metric_info *info = gm_catalog_find(metric);
    for (size_t i = c->opts->n_overrides; i-- > 0;) {
        const char *o = c->opts->overrides[i].metric;
        if (strcmp(o, metric) == 0 || (info && strcmp(o, info->label) == 0)) {
            r->thr = c->opts->overrides[i].thr;
            r->thr_given = true;
            return;
        }
    }
    r->thr = gm_diff_default_threshold(metric);
    r->thr_given = false;
}

/* A numeric copy of a metric value: strings are not compared. */
static gm_value S_num_value(const gm_value *v)
{
    if (v->kind == GM_V_INT)
        return gm_vint(v->i);
    if (v->kind == GM_V_REAL)
        return gm_vreal(v->r);
    return gm_vabsent();
}

static bool S_beyond(const gm_threshold *t, const gm_value *vb, const gm_value *vh)
{
    double b = gm_value_num(vb), h = gm_value_num(vh);
    switch (t->kind) {
    case GM_THR_EXACT:
        if (vb->kind == GM_V_INT && vh->kind == GM_V_INT)
            return vb->i != vh->i;
        /* Reals made from the same counts: allow rounding in the last digits
         * (a ratio computed in another order), nothing a measurement shows. */
        return fabs(h - b) > 1e-12 * fmax(fabs(h), fabs(b));
    case GM_THR_RELATIVE:
        /* "5%" flags a change of 5 % or more (rounding of the ratio aside) */
        return fabs(h - b) >= t->value * fabs(b) * (1.0 - 1e-9) && h != b;
    case GM_THR_ABSOLUTE:
        return fabs(h - b) > t->value;
    }
    return true;
}

/* Fill delta, ratio, magnitude; decide improved / regressed / changed /
 * unchanged from the threshold and the row's floor (the caller sets r->floor
 * and adds the noise test for time).  A change counts when it is beyond
 * both; a NaN floor (no instruction count to scale it) leaves the threshold
 * alone to decide. */
static void S_judge(gm_diff_row *r)
{
    double b = gm_value_num(&r->vbase), h = gm_value_num(&r->vhead);
    r->delta = h - b;
    if (b != 0.0)
        r->ratio = h / b;
    else if (h == 0.0)
        r->ratio = 1.0;
    if (b == h)
        r->magnitude = 0.0;
    else if (b == 0.0 || h == 0.0 || !(r->ratio > 0.0))
        r->magnitude = INFINITY;
    else
        r->magnitude = fabs(log(r->ratio));
    if (!S_beyond(&r->thr, &r->vbase, &r->vhead) || fabs(r->delta) <= r->floor) {
        r->status = GM_DIFF_UNCHANGED;
        return;
    }
    if (r->better == GM_BETTER_NEITHER) {
        r->status = GM_DIFF_CHANGED;
        return;
    }
    bool worse = r->better == GM_BETTER_LOWER ? h > b : h < b;
    r->status = worse ? GM_DIFF_REGRESSED : GM_DIFF_IMPROVED;
}

/* A metric's value in a run as a number; NaN when absent or not a number. */
static double S_metric_num(const gm_run *run, const char *name)
{
    const gm_metric *m = gm_run_metric(run, name);
    if (!m || (m->value.kind != GM_V_INT && m->value.kind != GM_V_REAL))
        return NAN;
    return gm_value_num(&m->value);
}

/* r->floor (and r->per_inst) from the threshold: an absolute floor as it is;
 * a per-instruction one times N, the larger of the two runs' shared
 * instruction counts of the metric's direction.  The larger, because the
 * noise grows with the shared traffic, and a change in the count of
 * instructions is the instruction row's to report. */
static void S_floor(gm_diff_row *r, const gm_run *b, const gm_run *h)
{
    r->floor = 0.0;
    r->per_inst = NAN;
    if (r->thr.floor_kind == GM_FLOOR_ABSOLUTE) {
        r->floor = r->thr.floor;
    } else if (r->thr.floor_kind == GM_FLOOR_PER_INST) {
        const char *im = gm_diff_inst_metric(r->metric);
        double ib = im ? S_metric_num(b, im) : NAN, ih = im ? S_metric_num(h, im) : NAN;
        double n = isnan(ib) ? ih : isnan(ih) ? ib : fmax(ib, ih);
        if (isnan(n)) {
            r->floor = NAN;
            snprintf(r->note, sizeof r->note,
                     "no shared instruction count: judged by the threshold alone");
            return;
        }
        r->floor = r->thr.floor * n;
        double b0 = gm_value_num(&r->vbase), h0 = gm_value_num(&r->vhead);
        if (n > 0.0)
            r->per_inst = (h0 - b0) / n;
    }
}

bool gm_diff_check_bad(const gm_run *r)
{
    return r->check.status == GM_CHECK_FAILED || r->check.status == GM_CHECK_ERROR;
}

/* Whether the rank test can reach alpha with n1 and n2 samples: its
 * smallest two-sided p is 2 / C(n1 + n2, n1) (one side all below the other,
 * no ties).  1 against 20 gives 0.095, 3 against 3 gives 0.1. */
static bool S_can_test(size_t n1, size_t n2, double alpha)
{
    if (n1 == 0 || n2 == 0)
        return false;
    double c = 1.0;
    for (size_t i = 1; i <= n1 && c < 1e300; i++)
        c = c * (double)(n2 + i) / (double)i;
    return 2.0 / c < alpha;
}

/* (max - min) / median of a side's samples: the spread of the kernel's own
 * repeated launches; NaN with fewer than two. */
static double S_spread(const gm_timing *t)
{
    if (!t->samples || t->n < 2 || !(t->median > 0.0))
        return NAN;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < t->n; i++) {
        lo = fmin(lo, t->samples[i]);
        hi = fmax(hi, t->samples[i]);
    }
    return (hi - lo) / t->median;
}

/* A time row's noise: the rank test where the samples can reach alpha, else
 * the spread of each side's launches, else the floor for one sample; a time
 * judged improved or regressed that is within it is noise. */
static void S_time_noise(gm_diff_row *r, const gm_timing *tb, const gm_timing *th, double alpha)
{
    if (tb->samples && th->samples) {
        r->test = gm_mann_whitney(tb->samples, tb->n, th->samples, th->n);
        r->noise = S_can_test(tb->n, th->n, alpha) ? GM_NOISE_TEST : GM_NOISE_SPREAD;
    } else {
        r->test.n1 = tb->n, r->test.n2 = th->n;
    }
    if (r->noise == GM_NOISE_SPREAD) {
        double sb = S_spread(tb), sh = S_spread(th);
        if (isnan(sb) && isnan(sh)) {
            r->noise = GM_NOISE_ONE_SAMPLE;
            r->noise_floor = GM_DIFF_ONE_SAMPLE_REL;
        } else {
            r->noise_floor = isnan(sb) ? sh : isnan(sh) ? sb : fmax(sb, sh);
        }
    }
    if (r->status != GM_DIFF_IMPROVED && r->status != GM_DIFF_REGRESSED)
        return;
    double rel = fabs(r->delta) / fabs(gm_value_num(&r->vbase));
    if (r->test.method == GM_MWU_NONE) {
        snprintf(r->note, sizeof r->note, "no samples to test: threshold only");
    } else if (r->noise == GM_NOISE_TEST && !(r->test.p < alpha)) {
        snprintf(r->note, sizeof r->note, "would be %s, but p = %.3g >= %g",
                 gm_diff_status_name(r->status), r->test.p, alpha);
        r->status = GM_DIFF_NOISE;
    } else if (r->noise == GM_NOISE_SPREAD && !(rel > r->noise_floor)) {
        snprintf(r->note, sizeof r->note,
                 "would be %s, but %.3g %% is within the spread of its %zu and %zu "
                 "launches (%.3g %%)", gm_diff_status_name(r->status), rel * 100.0, tb->n,
                 th->n, r->noise_floor * 100.0);
        r->status = GM_DIFF_NOISE;
    } else if (r->noise == GM_NOISE_ONE_SAMPLE && !(rel > r->noise_floor)) {
        snprintf(r->note, sizeof r->note,
                 "would be %s, but one launch a side: %.3g %% is within the floor for one "
                 "sample (%g %%)", gm_diff_status_name(r->status), rel * 100.0,
                 r->noise_floor * 100.0);
        r->status = GM_DIFF_NOISE;
    } else if (r->noise == GM_NOISE_SPREAD) {
        snprintf(r->note, sizeof r->note, "%zu and %zu launches: beyond their spread (%.3g %%)",
                 tb->n, th->n, r->noise_floor * 100.0);
    } else if (r->noise == GM_NOISE_ONE_SAMPLE) {
        snprintf(r->note, sizeof r->note, "one launch a side: beyond the floor for one "
                 "sample (%g %%)", r->noise_floor * 100.0);
    }
}

static void S_time_row(gm_diff_ctx *c, const gm_run *b, const gm_run *h)
{
    const gm_timing *tb = &b->timing, *th = &h->timing;
    if (!tb->present && !th->present)
        return;
    gm_diff_row *r = S_row(c, GM_DIFF_NEW, b, h);
    r->metric = GM_DIFF_TIME;
    r->unit = "ms";
    r->better = GM_BETTER_LOWER;
    r->role = GM_DIFF_ROLE_TIME;
    r->gates = true;
    S_threshold_for(c, r, GM_DIFF_TIME);
    if (tb->present)
        r->vbase = gm_vreal(tb->median);
    if (th->present)
        r->vhead = gm_vreal(th->median);
    if (!gm_value_present(&r->vbase) || !gm_value_present(&r->vhead)) {
        r->status = gm_value_present(&r->vhead) ? GM_DIFF_NEW : GM_DIFF_REMOVED;
        if (tb->present != th->present)
            return;
        r->status = GM_DIFF_INCOMPARABLE;
        snprintf(r->note, sizeof r->note, "no median");
        return;
    }
    S_floor(r, b, h);
    if (tb->l2_flushed != th->l2_flushed) {
        S_judge(r);
        r->status = GM_DIFF_INCOMPARABLE;
        snprintf(r->note, sizeof r->note, "L2 flushed before each repetition in %s only",
                 tb->l2_flushed ? "base" : "head");
        return;
    }
    if (tb->gated != th->gated) {
        S_judge(r);
        r->status = GM_DIFF_INCOMPARABLE;
        snprintf(r->note, sizeof r->note,
                 "launches gated (no host time in a sample) in %s only",
                 tb->gated ? "base" : "head");
        return;
    }
    S_judge(r);
    S_time_noise(r, tb, th, c->d->alpha);
}

/* A time that moved with no count of its run moving the same way is judged
 * against the noise between sessions too (GM_DIFF_TIME_ALONE_*, diff.h),
 * unless --threshold set time's bound; the time of a run with no counter on
 * either side (a loop on the host, a launch too long to profile) is shown
 * and not gated: nothing measured says the code changed.  rows[t]: the time
 * row; rows[from, to): the run's metric rows. */
static void S_time_alone(gm_diff_ctx *c, size_t t, size_t from, size_t to)
{
    gm_diff_row *r = &c->d->rows[t];
    if (r->thr_given || (r->status != GM_DIFF_REGRESSED && r->status != GM_DIFF_IMPROVED &&
                         r->status != GM_DIFF_NOISE))
        return;
    bool counted = false, with = false;
    for (size_t k = from; k < to; k++) {
        const gm_diff_row *m = &c->d->rows[k];
        if (m->role != GM_DIFF_ROLE_COUNT)
            continue;
        counted |= gm_value_present(&m->vbase) || gm_value_present(&m->vhead);
        with |= m->status == GM_DIFF_CHANGED || m->status == r->status;
    }
    if (!counted) {
        if (r->status == GM_DIFF_NOISE)
            return;
        snprintf(r->note, sizeof r->note, "%s; not profiled (no counter): not gated",
                 r->status == GM_DIFF_REGRESSED ? "slower" : "faster");
        r->status = GM_DIFF_CHANGED;
        r->gates = false;
        return;
    }
    if (with || r->status == GM_DIFF_NOISE)
        return;
    r->alone = true;
    double rel = fabs(r->delta) / fabs(gm_value_num(&r->vbase));
    if (rel >= GM_DIFF_TIME_ALONE_REL * (1.0 - 1e-9) && fabs(r->delta) > GM_DIFF_TIME_ALONE_MS) {
        if (!r->note[0])
            snprintf(r->note, sizeof r->note, "no count moved: beyond the noise between "
                     "sessions (%g %% and %g us)", GM_DIFF_TIME_ALONE_REL * 100.0,
                     GM_DIFF_TIME_ALONE_MS * 1000.0);
        return;
    }
    gm_buf q = GM_BUF_INIT;
    gm_fmt_quantity(&q, r->delta, "ms", true);
    snprintf(r->note, sizeof r->note, "would be %s, but no count moved: %+.3g %% (%s) is "
             "within the noise between sessions (%g %% and %g us)",
             gm_diff_status_name(r->status), (r->ratio - 1.0) * 100.0, q.data ? q.data : "",
             GM_DIFF_TIME_ALONE_REL * 100.0, GM_DIFF_TIME_ALONE_MS * 1000.0);
    gm_buf_free(&q);
    r->status = GM_DIFF_NOISE;
}

/* The row's role, and whether it gates: a rate only when --threshold named
 * it; the profiler's duration is the time of a run that has no event timing
 * on either side (then it gates as time did), a rate beside the median
 * otherwise. */
static void S_role(gm_diff_row *r, const gm_run *b, const gm_run *h)
{
    r->role = gm_diff_metric_role(r->metric);
    if (strcmp(r->metric, GM_M_DURATION) == 0 && !b->timing.present && !h->timing.present)
        r->role = GM_DIFF_ROLE_TIME;
    r->gates = r->role != GM_DIFF_ROLE_RATE || r->thr_given;
}

/* A rate beyond its threshold that does not gate is shown as changed, with
 * the way it moved: the counts beside it are what the gate judges. */
static void S_rate_judged(gm_diff_row *r)
{
    if (r->gates || (r->status != GM_DIFF_REGRESSED && r->status != GM_DIFF_IMPROVED))
        return;
    snprintf(r->note, sizeof r->note, "%s; a rate, not gated",
             r->status == GM_DIFF_REGRESSED ? "worse" : "better");
    r->status = GM_DIFF_CHANGED;
}

static void S_metric_rows(gm_diff_ctx *c, const gm_run *b, const gm_run *h)
{
    /* Base's metrics in their order, then those only head has. */
    for (int side = 0; side < 2; side++) {
        const gm_run *from = side == 0 ? b : h;
        for (size_t i = 0; i < from->n_metrics; i++) {
            const gm_metric *m = &from->metrics[i];
            if (!m->name)
                continue;
            const gm_metric *mb = gm_run_metric(b, m->name);
            const gm_metric *mh = gm_run_metric(h, m->name);
            if (side == 1 && mb)
                continue;   /* already done from base's side */
            if (mb != m && side == 0)
                continue;   /* a repeated name: the first one counts */
            if (side == 1 && mh != m)
                continue;
            bool pb = mb && gm_value_present(&mb->value);
            bool ph = mh && gm_value_present(&mh->value);
            if (!pb && !ph)
                continue;
            gm_diff_row *r = S_row(c, GM_DIFF_UNCHANGED, b, h);
            r->metric = m->name;
            r->info = gm_catalog_find(m->name);
            r->unit = (mh && mh->unit) ? mh->unit : (mb ? mb->unit : NULL);
            r->better = gm_diff_direction(m->name);
            S_threshold_for(c, r, m->name);
            S_role(r, b, h);
            if (pb)
                r->vbase = S_num_value(&mb->value);
            if (ph)
                r->vhead = S_num_value(&mh->value);
            if (!pb || !ph) {
                r->status = ph ? GM_DIFF_NEW : GM_DIFF_REMOVED;
                continue;
            }
            if (!gm_value_present(&r->vbase) || !gm_value_present(&r->vhead)) {
                r->status = GM_DIFF_INCOMPARABLE;
                snprintf(r->note, sizeof r->note, "not a number");
                continue;
            }
            S_floor(r, b, h);
            if (gm_diff_str_cmp(mb->unit, mh->unit) != 0) {
                S_judge(r);
                r->status = GM_DIFF_INCOMPARABLE;
                snprintf(r->note, sizeof r->note, "units differ: '%s' vs '%s'",
                         mb->unit ? mb->unit : "", mh->unit ? mh->unit : "");
                continue;
            }
            S_judge(r);
            S_rate_judged(r);
        }
    }
}

static void S_check_note(char *out, size_t n, const char *side, const gm_run *r)
{
    const gm_check *k = &r->check;
    if (k->status == GM_CHECK_FAILED && !k->reason)
        snprintf(out, n, "%s: %lld of %lld elements differ", side, k->mismatches, k->checked);
    else
        snprintf(out, n, "%s: %s%s%.100s", side, gm_check_status_name(k->status),
                 k->reason ? ": " : "", k->reason ? k->reason : "");
}

void gm_diff_judge_pair(gm_diff_ctx *c, const gm_run *b, const gm_run *h)
{
    bool bb = gm_diff_check_bad(b), hb = gm_diff_check_bad(h);
    if (bb || hb) {
        /* Numbers from a kernel whose output is wrong are not worth comparing. */
        gm_diff_row *r = S_row(c, GM_DIFF_FAILED, b, h);
        S_check_note(r->note, sizeof r->note, hb ? "head" : "base", hb ? h : b);
        return;
    }
    bool bn = b->check.status == GM_CHECK_NOT_RUN, hn = h->check.status == GM_CHECK_NOT_RUN;
    if (bn || hn) {
        gm_diff_row *r = S_row(c, bn && hn ? GM_DIFF_UNCHANGED : GM_DIFF_INCOMPARABLE, b, h);
        if (bn && hn)
            snprintf(r->note, sizeof r->note, "not run in either%s%.120s",
                     h->check.reason ? ": " : "", h->check.reason ? h->check.reason : "");
        else
            S_check_note(r->note, sizeof r->note, hn ? "head" : "base", hn ? h : b);
        return;
    }
    size_t t = c->d->n_rows;
    S_time_row(c, b, h);
    size_t from = c->d->n_rows;
    S_metric_rows(c, b, h);
    if (from > t)
        S_time_alone(c, t, from, c->d->n_rows);
}

void gm_diff_judge_single(gm_diff_ctx *c, const gm_run *run, bool is_head)
{
    gm_diff_row *r = S_row(c, is_head ? GM_DIFF_NEW : GM_DIFF_REMOVED,
                           is_head ? NULL : run, is_head ? run : NULL);
    if (is_head && gm_diff_check_bad(run)) {
        r->status = GM_DIFF_FAILED;
        S_check_note(r->note, sizeof r->note, "head (new run)", run);
        return;
    }
    if (run->timing.present) {
        if (is_head)
            r->vhead = gm_vreal(run->timing.median);
        else
            r->vbase = gm_vreal(run->timing.median);
        r->unit = "ms";
    }
}
