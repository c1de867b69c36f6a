/* diff_verdict.c — one verdict per layout: the rows of a diff grouped by
 * experiment and variant (a program's kernel), the most severe status first,
 * and one line that says what moved ("1 -> 32-way shared load conflict,
 * +55..93% time in all 4 runs").  Pure functions of the rows' statuses, so
 * a caller that rejudges rows after gm_diff_compute (history gate) gets
 * verdicts that agree with them.
 */
#include "diff.h"

#include "../core/buf.h"
#include "../core/catalog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* Grouping and order                                                       */
/* ======================================================================== */

static const gm_run *S_run(const gm_diff_row *r)
{
    return r->head ? r->head : r->base;
}

static int S_str_cmp(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* Rows of a verdict: whole-run rows first (a failed or missing run), then
 * time, counts, rates. */
static int S_class(const gm_diff_row *r)
{
    switch (r->role) {
    case GM_DIFF_ROLE_RUN: return 0;
    case GM_DIFF_ROLE_TIME: return 1;
    case GM_DIFF_ROLE_COUNT: return 2;
    case GM_DIFF_ROLE_RATE: return 3;
    }
    return 3;
}

/* The catalog's order of metrics (time first; names it does not know last). */
static size_t S_metric_rank(const gm_diff_row *r)
{
    if (!r->metric || strcmp(r->metric, GM_DIFF_TIME) == 0)
        return 0;
    for (size_t i = 0; i < gm_catalog_len; i++)
        if (strcmp(gm_catalog[i].name, r->metric) == 0)
            return i + 1;
    return gm_catalog_len + 1;
}

/* A row and its index, for qsort (which passes no context). */
typedef struct {
    const gm_diff_row *r;
    size_t i;
} S_ref;

static int S_group_key_cmp(const gm_diff_row *x, const gm_diff_row *y)
{
    const gm_run *a = S_run(x), *b = S_run(y);
    int c = S_str_cmp(a->experiment, b->experiment);
    return c ? c : S_str_cmp(a->variant, b->variant);
}

/* Within a verdict: class, status, metric, then pairing order (the runs in
 * the order they were paired: by parameters). */
static int S_in_group_cmp(const gm_diff_row *x, const gm_diff_row *y)
{
    int c = S_class(x) - S_class(y);
    if (c)
        return c;
    if (x->status != y->status)
        return (int)x->status - (int)y->status;
    size_t mx = S_metric_rank(x), my = S_metric_rank(y);
    if (mx != my)
        return mx < my ? -1 : 1;
    if (mx == gm_catalog_len + 1 && (c = S_str_cmp(x->metric, y->metric)))
        return c;
    return (x->order > y->order) - (x->order < y->order);
}

static int S_ref_cmp(const void *pa, const void *pb)
{
    const gm_diff_row *x = ((const S_ref *)pa)->r, *y = ((const S_ref *)pb)->r;
    int c = S_group_key_cmp(x, y);
    return c ? c : S_in_group_cmp(x, y);
}

static int S_group_cmp(const void *pa, const void *pb)
{
    const gm_diff_group *x = pa, *y = pb;
    if (x->status != y->status)
        return (int)x->status - (int)y->status;
    if (x->rates_only != y->rates_only)
        return (int)x->rates_only - (int)y->rates_only;
    double mx = isnan(x->magnitude) ? -1.0 : x->magnitude;
    double my = isnan(y->magnitude) ? -1.0 : y->magnitude;
    if (mx != my)
        return mx < my ? 1 : -1;
    return (x->order > y->order) - (x->order < y->order);
}

static bool S_moved(gm_diff_status s)
{
    return s == GM_DIFF_REGRESSED || s == GM_DIFF_IMPROVED || s == GM_DIFF_CHANGED;
}

bool gm_diff_row_repeats(const gm_diff *d, const gm_diff_row *r)
{
    (void)d;
    if (!r->metric || !r->base || !r->head)
        return false;
    /* the other row exists when either run has what it is made from */
    if (strcmp(r->metric, GM_M_DURATION) == 0 && r->role == GM_DIFF_ROLE_RATE)
        return r->base->timing.present || r->head->timing.present;
    if (strcmp(r->metric, GM_M_DRAM_PCT) == 0) {
        const gm_metric *b = gm_run_metric(r->base, GM_M_DRAM_RATE);
        const gm_metric *h = gm_run_metric(r->head, GM_M_DRAM_RATE);
        return (b && gm_value_present(&b->value)) || (h && gm_value_present(&h->value));
    }
    return false;
}

/* ======================================================================== */
/* The line                                                                 */
/* ======================================================================== */

/* A percentage as the line gives it: whole numbers from 10 up (points from
 * 100 up), one decimal below. */
static void S_pct(gm_buf *b, double v, bool points)
{
    double a = fabs(v);
    if (a >= (points ? 99.95 : 9.95))
        gm_buf_printf(b, "%.0f", a);
    else
        gm_buf_printf(b, "%.1f", a);
}

/* "+55..93%", "-20..31%", "-5..+20%", "+55%": the range of relative changes
 * lo..hi (in percent, or points with unit "pp"). */
static void S_range(gm_buf *b, double lo, double hi, const char *unit)
{
    gm_buf x = GM_BUF_INIT, y = GM_BUF_INIT;
    bool points = strcmp(unit, "pp") == 0;
    S_pct(&x, lo, points);
    S_pct(&y, hi, points);
    bool same = strcmp(x.data, y.data) == 0 && (lo >= 0) == (hi >= 0);
    if (same) {
        gm_buf_printf(b, "%s%s", lo < 0 ? "-" : "+", x.data);
    } else if (lo >= 0) {
        gm_buf_printf(b, "+%s..%s", x.data, y.data);
    } else if (hi <= 0) {
        gm_buf_printf(b, "-%s..%s", y.data, x.data);
    } else {
        gm_buf_printf(b, "-%s..+%s", x.data, y.data);
    }
    gm_buf_puts(b, unit);
    gm_buf_free(&x);
    gm_buf_free(&y);
}

/* A row's change as the line gives it: percent, or points for a percentage. */
static double S_change(const gm_diff_row *r, bool *points)
{
    *points = r->unit && strcmp(r->unit, "%") == 0;
    if (*points)
        return r->delta;
    return isfinite(r->ratio) ? (r->ratio - 1.0) * 100.0 : NAN;
}

static const char *S_label(const gm_diff_row *r)
{
    return r->info ? r->info->label : r->metric;
}

/* "32", "1.1": wavefronts per instruction (whole from 10 up), or sectors per
 * request ("19.6", "4"). */
static void S_ways(gm_buf *b, double w, bool whole)
{
    if ((whole && w >= 9.95) || fabs(w - round(w)) < 0.05)
        gm_buf_printf(b, "%.0f", w);
    else
        gm_buf_printf(b, "%.1f", w);
}

static void S_ways_range(gm_buf *b, double lo, double hi, bool whole)
{
    gm_buf x = GM_BUF_INIT, y = GM_BUF_INIT;
    S_ways(&x, lo, whole);
    S_ways(&y, hi, whole);
    gm_buf_puts(b, x.data);
    if (strcmp(x.data, y.data) != 0)
        gm_buf_printf(b, "..%s", y.data);
    gm_buf_free(&x);
    gm_buf_free(&y);
}

static double S_num(const gm_run *run, const char *name)
{
    const gm_metric *m = run ? gm_run_metric(run, name) : NULL;
    if (!m || (m->value.kind != GM_V_INT && m->value.kind != GM_V_REAL))
        return NAN;
    return gm_value_num(&m->value);
}

typedef struct {
    const gm_diff *d;
    const size_t *rows;
    size_t n;
    gm_buf *b;
    size_t parts;          /* phrases written */
    bool explained;        /* a count or the time moved: rates are shown beside them */
} S_line;

static void S_sep(S_line *l)
{
    if (l->parts++)
        gm_buf_puts(l->b, ", ");
}

/* Shared-memory conflicts of one direction, as N-way: wavefronts per shared
 * instruction (1 is conflict-free for 4-byte accesses), or conflicts per
 * instruction plus one without the wavefronts.  false when no run of the
 * verdict moved in them or no instruction count says how many ways. */
static bool S_shared_phrase(S_line *l, const char *confl, const char *waves, const char *inst,
                            const char *what)
{
    double blo = INFINITY, bhi = -INFINITY, hlo = INFINITY, hhi = -INFINITY;
    bool any = false;
    for (size_t k = 0; k < l->n; k++) {
        const gm_diff_row *r = &l->d->rows[l->rows[k]];
        if (!r->metric || !S_moved(r->status) || r->role != GM_DIFF_ROLE_COUNT ||
            (strcmp(r->metric, confl) != 0 && strcmp(r->metric, waves) != 0))
            continue;
        double w[2];
        for (int s = 0; s < 2; s++) {
            const gm_run *run = s ? r->head : r->base;
            double n = S_num(run, inst), wf = S_num(run, waves), cf = S_num(run, confl);
            w[s] = !(n > 0) ? NAN : !isnan(wf) ? wf / n : !isnan(cf) ? cf / n + 1.0 : NAN;
        }
        if (isnan(w[0]) || isnan(w[1]))
            return false;
        any = true;
        blo = fmin(blo, w[0]), bhi = fmax(bhi, w[0]);
        hlo = fmin(hlo, w[1]), hhi = fmax(hhi, w[1]);
    }
    if (!any)
        return false;
    S_sep(l);
    S_ways_range(l->b, blo, bhi, true);
    gm_buf_puts(l->b, " → ");
    S_ways_range(l->b, hlo, hhi, true);
    gm_buf_printf(l->b, "-way %s conflict", what);
    return true;
}

/* The moved rows of one metric: their change's range; false when none. */
static bool S_metric_range(const S_line *l, const char *metric, double *lo, double *hi,
                           bool *points)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t k = 0; k < l->n; k++) {
        const gm_diff_row *r = &l->d->rows[l->rows[k]];
        if (!r->metric || strcmp(r->metric, metric) != 0 || !S_moved(r->status))
            continue;
        double c = S_change(r, points);
        if (isnan(c))
            continue;
        *lo = fmin(*lo, c);
        *hi = fmax(*hi, c);
    }
    return isfinite(*lo);
}

/* "ld sectors +300% (sectors/request 4 → 16)": global sectors with the
 * sectors per request of base and head, from the requests. */
static void S_count_phrase(S_line *l, const gm_diff_row *first)
{
    double lo, hi;
    bool points;
    if (!S_metric_range(l, first->metric, &lo, &hi, &points)) {
        S_sep(l);
        gm_buf_printf(l->b, "%s %s", S_label(first), first->status == GM_DIFF_CHANGED ?
                      "changed" : first->status == GM_DIFF_REGRESSED ? "worse" : "better");
        return;
    }
    S_sep(l);
    gm_buf_printf(l->b, "%s ", S_label(first));
    S_range(l->b, lo, hi, points ? "pp" : "%");
    const char *req = strcmp(first->metric, GM_M_LD_SECTORS) == 0 ? GM_M_LD_REQUESTS
                    : strcmp(first->metric, GM_M_ST_SECTORS) == 0 ? GM_M_ST_REQUESTS : NULL;
    if (!req)
        return;
    double blo = INFINITY, bhi = -INFINITY, hlo = INFINITY, hhi = -INFINITY;
    for (size_t k = 0; k < l->n; k++) {
        const gm_diff_row *r = &l->d->rows[l->rows[k]];
        if (!r->metric || strcmp(r->metric, first->metric) != 0 || !S_moved(r->status))
            continue;
        double qb = S_num(r->base, req), qh = S_num(r->head, req);
        if (!(qb > 0) || !(qh > 0))
            return;
        double sb = gm_value_num(&r->vbase) / qb, sh = gm_value_num(&r->vhead) / qh;
        blo = fmin(blo, sb), bhi = fmax(bhi, sb), hlo = fmin(hlo, sh), hhi = fmax(hhi, sh);
    }
    if (!isfinite(blo))
        return;
    gm_buf_puts(l->b, " (sectors/request ");
    S_ways_range(l->b, blo, bhi, false);
    gm_buf_puts(l->b, " → ");
    S_ways_range(l->b, hlo, hhi, false);
    gm_buf_putc(l->b, ')');
}

/* The counts that moved, most severe first, at most three phrases. */
static void S_counts(S_line *l)
{
    const char *done[64];
    size_t nd = 0, shown = 0, more = 0;
    for (size_t k = 0; k < l->n; k++) {
        const gm_diff_row *r = &l->d->rows[l->rows[k]];
        if (r->role != GM_DIFF_ROLE_COUNT || !S_moved(r->status) || !r->metric)
            continue;
        const char *fam = r->metric;
        bool ld = strcmp(fam, GM_M_SH_LD_CONFL) == 0 || strcmp(fam, GM_M_SH_LD_WAVES) == 0;
        bool st = strcmp(fam, GM_M_SH_ST_CONFL) == 0 || strcmp(fam, GM_M_SH_ST_WAVES) == 0;
        if (ld)
            fam = GM_M_SH_LD_CONFL;
        if (st)
            fam = GM_M_SH_ST_CONFL;
        bool seen = false;
        for (size_t i = 0; i < nd && !seen; i++)
            seen = strcmp(done[i], fam) == 0;
        if (seen || nd == sizeof done / sizeof done[0])
            continue;
        done[nd++] = fam;
        if (shown == 3) {
            more++;
            continue;
        }
        shown++;
        if (ld && S_shared_phrase(l, GM_M_SH_LD_CONFL, GM_M_SH_LD_WAVES, GM_M_SH_LD_INST,
                                  "shared load"))
            continue;
        if (st && S_shared_phrase(l, GM_M_SH_ST_CONFL, GM_M_SH_ST_WAVES, GM_M_SH_ST_INST,
                                  "shared store"))
            continue;
        S_count_phrase(l, r);
    }
    if (more)
        gm_buf_printf(l->b, " and %zu more count%s", more, more == 1 ? "" : "s");
}

/* "+55..93% time in all 4 runs", "time within noise". */
static void S_time(S_line *l, size_t n_runs, bool counts_moved)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t moved = 0, noise = 0, rows = 0, shown_only = 0;
    for (size_t k = 0; k < l->n; k++) {
        const gm_diff_row *r = &l->d->rows[l->rows[k]];
        if (r->role != GM_DIFF_ROLE_TIME || !r->base || !r->head)
            continue;
        rows++;
        noise += r->status == GM_DIFF_NOISE;
        if (!S_moved(r->status) || !isfinite(r->ratio))
            continue;
        moved++;
        shown_only += !r->gates;
        lo = fmin(lo, (r->ratio - 1.0) * 100.0);
        hi = fmax(hi, (r->ratio - 1.0) * 100.0);
    }
    if (moved) {
        S_sep(l);
        S_range(l->b, lo, hi, "%");
        gm_buf_puts(l->b, " time");
        if (n_runs > 1 && moved == n_runs)
            gm_buf_printf(l->b, " in all %zu runs", n_runs);
        else if (n_runs > 1)
            gm_buf_printf(l->b, " in %zu of %zu runs", moved, n_runs);
        if (shown_only == moved)
            gm_buf_puts(l->b, " (not profiled: not gated)");
    } else if (rows && counts_moved) {
        S_sep(l);
        gm_buf_puts(l->b, noise ? "time within noise" : "time unchanged");
    }
}

/* "L1 hit -45pp, L2 hit -10pp": at most two rates that moved, beside the
 * counts (or alone: "only rates moved"). */
static void S_rates(S_line *l, bool alone)
{
    const char *done[2];
    size_t nd = 0;
    for (size_t k = 0; k < l->n && nd < 2; k++) {
        const gm_diff_row *r = &l->d->rows[l->rows[k]];
        if (r->role != GM_DIFF_ROLE_RATE || !S_moved(r->status) || !r->metric ||
            gm_diff_row_repeats(l->d, r))
            continue;
        bool seen = false;
        for (size_t i = 0; i < nd && !seen; i++)
            seen = strcmp(done[i], r->metric) == 0;
        /* sectors per request: said with the sectors already */
        const char *sectors = strcmp(r->metric, GM_M_LD_SPR) == 0 ? GM_M_LD_SECTORS
                            : strcmp(r->metric, GM_M_ST_SPR) == 0 ? GM_M_ST_SECTORS : NULL;
        double lo, hi;
        bool points;
        if (seen || (sectors && S_metric_range(l, sectors, &lo, &hi, &points)) ||
            !S_metric_range(l, r->metric, &lo, &hi, &points))
            continue;
        gm_buf_puts(l->b, nd ? ", " : alone ? "only rates moved: "
                                  : l->explained ? "; beside them: " : "; rates: ");
        done[nd++] = r->metric;
        gm_buf_printf(l->b, "%s ", S_label(r));
        S_range(l->b, lo, hi, points ? "pp" : "%");
    }
    if (nd)
        l->parts++;
}

/* Whole runs: failed, missing, new, not comparable. */
static void S_runs(S_line *l)
{
    size_t n[GM_DIFF_N_STATUS] = {0}, mb = 0, mh = 0;
    const char *note[GM_DIFF_N_STATUS] = {0};
    for (size_t k = 0; k < l->n; k++) {
        const gm_diff_row *r = &l->d->rows[l->rows[k]];
        if (r->metric) {
            if (r->role != GM_DIFF_ROLE_TIME && r->base && r->head) {
                mb += r->status == GM_DIFF_REMOVED;
                mh += r->status == GM_DIFF_NEW;
            }
            if (r->status == GM_DIFF_INCOMPARABLE && !note[GM_DIFF_INCOMPARABLE])
                n[GM_DIFF_INCOMPARABLE]++, note[GM_DIFF_INCOMPARABLE] = r->note;
            continue;
        }
        n[r->status]++;
        if (!note[r->status])
            note[r->status] = r->note;
    }
    if (n[GM_DIFF_FAILED]) {
        S_sep(l);
        gm_buf_printf(l->b, "%s", note[GM_DIFF_FAILED]);
        if (n[GM_DIFF_FAILED] > 1)
            gm_buf_printf(l->b, " (%zu runs)", n[GM_DIFF_FAILED]);
    }
    if (n[GM_DIFF_INCOMPARABLE]) {
        S_sep(l);
        gm_buf_printf(l->b, "cannot be compared: %s", note[GM_DIFF_INCOMPARABLE]);
    }
    if (n[GM_DIFF_REMOVED]) {
        S_sep(l);
        gm_buf_printf(l->b, "missing from head (%zu run%s)", n[GM_DIFF_REMOVED],
                      n[GM_DIFF_REMOVED] == 1 ? "" : "s");
    }
    if (n[GM_DIFF_NEW]) {
        S_sep(l);
        gm_buf_printf(l->b, "new in head (%zu run%s)", n[GM_DIFF_NEW],
                      n[GM_DIFF_NEW] == 1 ? "" : "s");
    }
    if (mb) {
        S_sep(l);
        gm_buf_printf(l->b, "%zu value%s only in base", mb, mb == 1 ? "" : "s");
    }
    if (mh) {
        S_sep(l);
        gm_buf_printf(l->b, "%zu value%s only in head", mh, mh == 1 ? "" : "s");
    }
}

static char *S_summary(const gm_diff *d, const gm_diff_group *g)
{
    gm_buf b = GM_BUF_INIT;
    S_line l = {d, g->rows, g->n_rows, &b, 0, false};
    S_runs(&l);
    size_t before = l.parts;
    S_counts(&l);
    bool counts = l.parts > before;
    S_time(&l, g->n_runs, counts);
    l.explained = l.parts > before;
    S_rates(&l, l.parts == 0);
    if (!l.parts)
        gm_buf_puts(&b, g->status == GM_DIFF_NOISE ? "time within noise" : "nothing moved");
    return gm_buf_detach(&b);
}

/* ======================================================================== */
/* Building                                                                 */
/* ======================================================================== */

size_t gm_diff_groups(const gm_diff *d, gm_diff_group **out)
{
    *out = NULL;
    if (!d->n_rows)
        return 0;
    S_ref *ref = gm_xmalloc(d->n_rows * sizeof *ref);
    for (size_t i = 0; i < d->n_rows; i++)
        ref[i] = (S_ref){&d->rows[i], i};
    qsort(ref, d->n_rows, sizeof *ref, S_ref_cmp);
    size_t *idx = gm_xmalloc(d->n_rows * sizeof *idx);
    for (size_t i = 0; i < d->n_rows; i++)
        idx[i] = ref[i].i;
    free(ref);
    gm_diff_group *g = gm_xcalloc(d->n_rows, sizeof *g);
    size_t ng = 0;
    for (size_t a = 0; a < d->n_rows;) {
        size_t e = a + 1;
        while (e < d->n_rows && S_group_key_cmp(&d->rows[idx[a]], &d->rows[idx[e]]) == 0)
            e++;
        gm_diff_group *v = &g[ng++];
        const gm_run *run = S_run(&d->rows[idx[a]]);
        v->experiment = run->experiment;
        v->variant = run->variant;
        v->program = d->rows[idx[a]].program;
        v->n_rows = e - a;
        v->rows = gm_xmalloc(v->n_rows * sizeof *v->rows);
        memcpy(v->rows, idx + a, v->n_rows * sizeof *v->rows);
        /* the status: the most severe of its rows, a rate that moved (which
         * gates nothing) counting only where nothing else did */
        v->status = GM_DIFF_N_STATUS;
        v->order = (size_t)-1;
        bool rate = false;
        for (size_t k = 0; k < v->n_rows; k++) {
            const gm_diff_row *r = &d->rows[v->rows[k]];
            if (r->order < v->order)
                v->order = r->order;
            if (r->role == GM_DIFF_ROLE_RATE && r->status == GM_DIFF_CHANGED)
                rate = true;
            else if (r->status < v->status)
                v->status = r->status;
        }
        v->rates_only = rate && (v->status == GM_DIFF_N_STATUS || v->status == GM_DIFF_NOISE ||
                                 v->status == GM_DIFF_UNCHANGED);
        if (v->rates_only)
            v->status = GM_DIFF_CHANGED;
        v->magnitude = NAN;
        for (size_t k = 0; k < v->n_rows; k++) {
            const gm_diff_row *r = &d->rows[v->rows[k]];
            /* the runs: distinct pairs, counted once each */
            bool first = true;
            for (size_t q = 0; q < k && first; q++) {
                const gm_diff_row *o = &d->rows[v->rows[q]];
                first = !(o->base == r->base && o->head == r->head);
            }
            v->n_runs += first;
            if (r->status != v->status)
                continue;
            if (!isnan(r->magnitude) && !(r->magnitude <= v->magnitude))
                v->magnitude = r->magnitude;
        }
        a = e;
    }
    qsort(g, ng, sizeof *g, S_group_cmp);
    for (size_t i = 0; i < ng; i++)
        g[i].summary = S_summary(d, &g[i]);
    free(idx);
    *out = g;
    return ng;
}

void gm_diff_groups_free(gm_diff_group *v, size_t n)
{
    for (size_t i = 0; i < n && v; i++) {
        free(v[i].rows);
        free(v[i].summary);
    }
    free(v);
}

void gm_diff_sort_rows(gm_diff *d)
{
    gm_diff_group *g;
    size_t ng = gm_diff_groups(d, &g);
    if (!ng)
        return;
    gm_diff_row *rows = gm_xmalloc(d->n_rows * sizeof *rows);
    size_t k = 0;
    for (size_t i = 0; i < ng; i++)
        for (size_t j = 0; j < g[i].n_rows; j++)
            rows[k++] = d->rows[g[i].rows[j]];
    memcpy(d->rows, rows, d->n_rows * sizeof *rows);
    free(rows);
    gm_diff_groups_free(g, ng);
}
