/* history_series.c — what the history shows: where a series changes (change
 * points), each layout of an experiment over commit order with its key values
 * and the steps found in them, and the gate of a new run against the history
 * (history.h, history_private.h).
 */
#include "history_private.h"

#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/srclines.h"

#include <sqlite3.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* Change points                                                            */
/* ======================================================================== */

size_t gm_steps_exact(const double *v, size_t n, size_t *steps)
{
    size_t k = 0;
    double last = NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        if (!isnan(last) && v[i] != last)
            steps[k++] = i;
        last = v[i];
    }
    return k;
}

static int S_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double S_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *t = gm_xmalloc(n * sizeof *t);
    memcpy(t, v, n * sizeof *t);
    qsort(t, n, sizeof *t, S_dcmp);
    double m = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    free(t);
    return m;
}

/* How far a change at mid (segments [lo, mid) and [mid, hi) of the present
 * points x) is beyond what it must reach: >= 1 passes.  The segments'
 * medians must differ by min_rel, min_abs and GM_STEP_SIGMAS standard errors
 * of the difference of two segment levels (noise sd_abs per point); with
 * samples, a Mann–Whitney test of up to 3 points each side must give
 * p < GM_STEP_ALPHA (else 0). */
static double S_step_score(const double *x, const size_t *at, size_t lo, size_t mid, size_t hi,
                           double sd_abs, double min_rel, double min_abs,
                           const double *const *samples, const size_t *n_samples)
{
    double before = S_median(x + lo, mid - lo), after = S_median(x + mid, hi - mid);
    double diff = fabs(after - before);
    double se = sd_abs * sqrt(1.0 / (double)(mid - lo) + 1.0 / (double)(hi - mid));
    double need = fmax(fmax(min_abs, min_rel * fabs(before)), GM_STEP_SIGMAS * se);
    if (diff == 0)
        return 0;
    double score = need > 0 ? diff / need : INFINITY;
    if (score < 1.0 || !samples || !n_samples)
        return score;
    size_t nbs = 0, nas = 0;
    for (size_t p = mid - (mid - lo > 3 ? 3 : mid - lo); p < mid; p++)
        nbs += samples[at[p]] ? n_samples[at[p]] : 0;
    for (size_t p = mid; p < mid + (hi - mid > 3 ? 3 : hi - mid); p++)
        nas += samples[at[p]] ? n_samples[at[p]] : 0;
    if (!nbs || !nas)
        return score;
    double *bs = gm_xmalloc(nbs * sizeof *bs), *as = gm_xmalloc(nas * sizeof *as);
    size_t i = 0;
    for (size_t p = mid - (mid - lo > 3 ? 3 : mid - lo); p < mid; p++)
        for (size_t q = 0; samples[at[p]] && q < n_samples[at[p]]; q++)
            bs[i++] = samples[at[p]][q];
    i = 0;
    for (size_t p = mid; p < mid + (hi - mid > 3 ? 3 : hi - mid); p++)
        for (size_t q = 0; samples[at[p]] && q < n_samples[at[p]]; q++)
            as[i++] = samples[at[p]][q];
    gm_mwu t = gm_mann_whitney(bs, nbs, as, nas);
    free(bs);
    free(as);
    return t.p < GM_STEP_ALPHA ? score : 0;
}

/* The best piecewise constant fit of y[0..m), beta the penalty per change:
 * the boundaries of its segments, oldest first, in b (room for m + 2):
 * b[0] = 0 < b[1] < ... < b[nb-1] = m.  Returns nb. */
static size_t S_partition(const double *y, size_t m, double beta, size_t *b)
{
    /* optimal partitioning: F[i] = min over j of F[j] + cost(j, i) + beta,
     * segments of at least 2 points except the last (a change at the newest
     * commit is seen at once) */
    double *F = gm_xmalloc((m + 1) * sizeof *F), *s1 = gm_xmalloc((m + 1) * sizeof *s1),
           *s2 = gm_xmalloc((m + 1) * sizeof *s2);
    size_t *prev = gm_xmalloc((m + 1) * sizeof *prev);
    s1[0] = s2[0] = 0;
    for (size_t i = 0; i < m; i++)
        s1[i + 1] = s1[i] + y[i], s2[i + 1] = s2[i] + y[i] * y[i];
    F[0] = -beta;
    for (size_t i = 1; i <= m; i++) {
        F[i] = INFINITY;
        prev[i] = 0;
        for (size_t j = 0; j < i; j++) {
            if (i - j < 2 && i != m)
                continue;
            if (j > 0 && !isfinite(F[j]))
                continue;
            double len = (double)(i - j), sum = s1[i] - s1[j];
            double cost = (s2[i] - s2[j]) - sum * sum / len;
            double f = F[j] + cost + beta;
            if (f < F[i])
                F[i] = f, prev[i] = j;
        }
    }
    /* the boundaries, oldest first */
    size_t nb = 0;
    for (size_t i = m; i > 0; i = prev[i])
        b[nb++] = i;
    b[nb++] = 0;
    for (size_t i = 0; i < nb / 2; i++) {
        size_t t = b[i];
        b[i] = b[nb - 1 - i];
        b[nb - 1 - i] = t;
    }
    free(F);
    free(s1);
    free(s2);
    free(prev);
    return nb;
}

size_t gm_steps_noisy(const double *v, size_t n, double min_rel, double min_abs,
                      const double *const *samples, const size_t *n_samples, size_t *steps)
{
    /* the present points, in order */
    size_t m = 0, *at = gm_xmalloc((n ? n : 1) * sizeof *at);
    double *x = gm_xmalloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            at[m] = i, x[m++] = v[i];
    size_t k = 0;
    if (m < 2)
        goto out;
    /* relative to the series' level, so that sigma and the penalty are too */
    double scale = fabs(S_median(x, m));
    if (!(scale > 0)) {
        for (size_t i = 0; i < m; i++)
            scale = fmax(scale, fabs(x[i]));
        if (!(scale > 0))
            goto out;   /* all zero */
    }
    double *y = gm_xmalloc(m * sizeof *y), *d = gm_xmalloc(m * sizeof *d);
    for (size_t i = 0; i < m; i++)
        y[i] = x[i] / scale;
    for (size_t i = 1; i < m; i++)
        d[i - 1] = fabs(y[i] - y[i - 1]);
    /* noise: the median absolute successive difference, which a few steps do
     * not move, times 1.4826 (normal consistency) / sqrt 2 (a difference of
     * two points has twice the variance); at least 0.1 % of the level */
    double sigma = fmax(1.4826 * S_median(d, m - 1) / sqrt(2.0), 1e-3);
    double beta = GM_STEP_PENALTY * sigma * sigma * log((double)m);

    size_t *b = gm_xmalloc((m + 2) * sizeof *b);
    size_t nb = S_partition(y, m, beta, b);
    /* b[0] = 0 < b[1] < ... < b[nb-1] = m: drop the weakest change that is
     * not large enough, compare its neighbours again, until all are */
    for (;;) {
        size_t worst = 0;
        double worst_score = INFINITY;
        for (size_t q = 1; q + 1 < nb; q++) {
            double sc = S_step_score(x, at, b[q - 1], b[q], b[q + 1], sigma * scale, min_rel,
                                     min_abs, samples, n_samples);
            if (sc < 1.0 && sc < worst_score)
                worst = q, worst_score = sc;
        }
        if (worst == 0)
            break;
        memmove(&b[worst], &b[worst + 1], (nb - worst - 1) * sizeof *b);
        nb--;
    }
    for (size_t q = 1; q + 1 < nb; q++)
        steps[k++] = at[b[q]];
    free(b);
    free(y);
    free(d);
out:
    free(at);
    free(x);
    return k;
}

/* ======================================================================== */
/* Reading series                                                           */
/* ======================================================================== */

static void S_exp_free(gmh_exp *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->s[i].variant);
        free(e->s[i].params);
        free(e->s[i].run);
    }
    free(e->s);
    free(e->exp);
}

typedef struct {
    long long id;
    size_t point;
    char *variant, *params;
    double median;
} S_row;

static int S_row_cmp(const void *a, const void *b)
{
    const S_row *x = a, *y = b;
    int c = strcmp(x->variant, y->variant);
    return c ? c : strcmp(x->params, y->params);
}

/* The layouts of one experiment over the points res[0..n): per variant, the
 * parameter set found in the most points (ties: the slowest, i.e. the
 * largest problem). */
static gm_status S_load_exp(gm_history *h, const gmh_res *res, size_t n, const char *exp,
                            gmh_exp *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    out->exp = gm_xstrdup(exp);
    sqlite3_stmt *st = NULL;
    gm_status s = gmh_prepare(h, "SELECT id, variant, params, median_ms FROM runs "
                                 "WHERE result_id = ?1 AND experiment = ?2", &st, err);
    if (s != GM_OK)
        return s;
    S_row *rows = NULL;
    size_t nr = 0, cap = 0;
    for (size_t p = 0; p < n && s == GM_OK; p++) {
        if (!gmh_bind_int(st, 1, res[p].id) || !gmh_bind_text(st, 2, exp)) {
            s = gmh_fail_db(h, err, "binding an experiment");
            break;
        }
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            if (nr == cap) {
                cap = cap ? 2 * cap : 64;
                rows = gm_xrealloc(rows, cap * sizeof *rows);
            }
            S_row *r = &rows[nr++];
            r->id = (long long)sqlite3_column_int64(st, 0);
            r->point = p;
            r->variant = gmh_col_text(st, 1);
            r->params = gmh_col_text(st, 2);
            r->median = sqlite3_column_type(st, 3) == SQLITE_NULL ? NAN
                                                                  : sqlite3_column_double(st, 3);
        }
        if (rc != SQLITE_DONE || sqlite3_reset(st) != SQLITE_OK)
            s = gmh_fail_db(h, err, "reading runs");
    }
    sqlite3_finalize(st);
    if (nr)
        qsort(rows, nr, sizeof *rows, S_row_cmp);
    /* runs of one variant are adjacent, and within it those of one params */
    for (size_t i = 0; s == GM_OK && i < nr;) {
        size_t j = i;
        while (j < nr && strcmp(rows[j].variant, rows[i].variant) == 0)
            j++;
        size_t best = i, best_n = 0;
        double best_med = -1;
        for (size_t a = i; a < j;) {
            size_t b = a;
            double med = -1;
            while (b < j && strcmp(rows[b].params, rows[a].params) == 0) {
                if (isfinite(rows[b].median) && rows[b].median > med)
                    med = rows[b].median;
                b++;
            }
            if (b - a > best_n || (b - a == best_n && med > best_med))
                best = a, best_n = b - a, best_med = med;
            a = b;
        }
        out->s = gm_xrealloc(out->s, (out->n + 1) * sizeof *out->s);
        gmh_series *se = &out->s[out->n++];
        se->variant = gm_xstrdup(rows[best].variant);
        se->params = gm_xstrdup(rows[best].params);
        se->run = gm_xmalloc((n ? n : 1) * sizeof *se->run);
        for (size_t p = 0; p < n; p++)
            se->run[p] = -1;
        for (size_t a = i; a < j; a++)
            if (strcmp(rows[a].params, se->params) == 0)
                se->run[rows[a].point] = rows[a].id;
        i = j;
    }
    for (size_t i = 0; i < nr; i++) {
        free(rows[i].variant);
        free(rows[i].params);
    }
    free(rows);
    return s;
}

/* A metric of a run (NaN when absent); "time": the median in ms. */
static gm_status S_value(gm_history *h, sqlite3_stmt *met, sqlite3_stmt *med, long long run,
                         const char *metric, double *v, gm_error *err)
{
    *v = NAN;
    if (run < 0)
        return GM_OK;
    bool time = strcmp(metric, GM_DIFF_TIME) == 0;
    sqlite3_stmt *st = time ? med : met;
    if (!gmh_bind_int(st, 1, run) || (!time && !gmh_bind_text(st, 2, metric)))
        return gmh_fail_db(h, err, "binding a metric");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        *v = sqlite3_column_double(st, 0);
    if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || sqlite3_reset(st) != SQLITE_OK)
        return gmh_fail_db(h, err, "reading a metric");
    return GM_OK;
}

/* Whether a run's times were taken behind the launch gate: 1 or 0; -1 for no run. */
static gm_status S_gated(gm_history *h, sqlite3_stmt *st, long long run, int *g, gm_error *err)
{
    *g = -1;
    if (run < 0)
        return GM_OK;
    if (!gmh_bind_int(st, 1, run))
        return gmh_fail_db(h, err, "binding a run");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *g = sqlite3_column_int(st, 0) != 0;
    if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || sqlite3_reset(st) != SQLITE_OK)
        return gmh_fail_db(h, err, "reading a run");
    return GM_OK;
}

static gm_status S_samples(gm_history *h, sqlite3_stmt *st, long long run, double **out,
                           size_t *n, gm_error *err)
{
    *out = NULL;
    *n = 0;
    if (run < 0)
        return GM_OK;
    if (!gmh_bind_int(st, 1, run))
        return gmh_fail_db(h, err, "binding a run");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 32;
            *out = gm_xrealloc(*out, cap * sizeof **out);
        }
        (*out)[(*n)++] = sqlite3_column_double(st, 0);
    }
    if (rc != SQLITE_DONE || sqlite3_reset(st) != SQLITE_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
        return gmh_fail_db(h, err, "reading samples");
    }
    return GM_OK;
}

/* ======================================================================== */
/* The key values of an experiment and their steps                          */
/* ======================================================================== */

/* The key counters of the trend report, after the median time. */
const char *const gmh_key_metrics[] = {
    GM_DIFF_TIME, GM_M_LD_SECTORS, GM_M_ST_SECTORS, GM_M_LD_REQUESTS, GM_M_ST_REQUESTS,
    GM_M_SH_LD_CONFL, GM_M_SH_ST_CONFL, GM_M_DRAM_RD,
};
_Static_assert(sizeof gmh_key_metrics / sizeof gmh_key_metrics[0] == GMH_NKEY,
               "GMH_NKEY (history_private.h) counts gmh_key_metrics");

static bool S_mexact(const char *m)
{
    const gm_metric_info *i = gm_catalog_find(m);
    return i && i->deterministic;
}

void gmh_table_free(gmh_table *t)
{
    S_exp_free(&t->e);
    free(t->v);
    free(t->steps);
    free(t->gates);
    for (size_t i = 0; i < t->n_lsteps; i++) {
        free(t->lsteps[i].loc);
        free(t->lsteps[i].from);
        free(t->lsteps[i].text);
        free(t->lsteps[i].params);
    }
    free(t->lsteps);
}

/* The per-line counts of one run, as the lines table holds them. */
typedef struct {
    gm_srcline *v;
    char **loc;   /* where each line was labelled when stored */
    size_t n;
    bool have;    /* the run's per-line counts were collected */
} S_lines;

static void S_lines_free(S_lines *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].file);
        free(l->v[i].function);
        free(l->v[i].text);
        free(l->loc[i]);
    }
    free(l->v);
    free(l->loc);
    memset(l, 0, sizeof *l);
}

static gm_status S_lines_load(gm_history *h, sqlite3_stmt *stat, sqlite3_stmt *lines,
                              long long run, S_lines *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    if (run < 0)
        return GM_OK;
    if (!gmh_bind_int(stat, 1, run))
        return gmh_fail_db(h, err, "binding a run");
    int rc = sqlite3_step(stat);
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(stat, 0);
        out->have = t && strcmp((const char *)t, "collected") == 0;
    }
    if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || sqlite3_reset(stat) != SQLITE_OK)
        return gmh_fail_db(h, err, "reading a run");
    if (!out->have)
        return GM_OK;
    if (!gmh_bind_int(lines, 1, run))
        return gmh_fail_db(h, err, "binding a run");
    size_t cap = 0;
    while ((rc = sqlite3_step(lines)) == SQLITE_ROW) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 32;
            out->v = gm_xrealloc(out->v, cap * sizeof *out->v);
            out->loc = gm_xrealloc(out->loc, cap * sizeof *out->loc);
        }
        gm_srcline *l = &out->v[out->n];
        memset(l, 0, sizeof *l);
        out->loc[out->n++] = gmh_col_text(lines, 0);
        l->text = sqlite3_column_type(lines, 1) == SQLITE_NULL ? NULL : gmh_col_text(lines, 1);
        l->count[GM_SL_SECTORS] = (long long)sqlite3_column_int64(lines, 2);
        l->count[GM_SL_SECTORS_IDEAL] = (long long)sqlite3_column_int64(lines, 3);
        l->count[GM_SL_WAVEFRONTS] = (long long)sqlite3_column_int64(lines, 4);
        l->count[GM_SL_WAVEFRONTS_IDEAL] = (long long)sqlite3_column_int64(lines, 5);
        l->file = sqlite3_column_type(lines, 6) == SQLITE_NULL ? NULL : gmh_col_text(lines, 6);
        l->line = (long long)sqlite3_column_int64(lines, 7);
        l->function = sqlite3_column_type(lines, 8) == SQLITE_NULL ? NULL
                                                                  : gmh_col_text(lines, 8);
        l->pc = sqlite3_column_type(lines, 9) == SQLITE_NULL
                    ? -1 : (long long)sqlite3_column_int64(lines, 9);
    }
    if (rc != SQLITE_DONE || sqlite3_reset(lines) != SQLITE_OK) {
        S_lines_free(out);
        return gmh_fail_db(h, err, "reading source lines");
    }
    return GM_OK;
}

/* A line's step, appended to t: x (commit prev) and y (commit point), one of
 * them NULL for a line on one side only. */
static void S_lstep_add(gmh_table *t, size_t series, size_t prev, size_t point,
                        const char *params, const S_lines *a, size_t i, const S_lines *b,
                        size_t j)
{
    const gm_srcline *x = i != GM_SL_NONE ? &a->v[i] : NULL;
    const gm_srcline *y = j != GM_SL_NONE ? &b->v[j] : NULL;
    long long xs0 = x ? gm_srcline_excess_sectors(x) : 0;
    long long xw0 = x ? gm_srcline_excess_wavefronts(x) : 0;
    long long xs1 = y ? gm_srcline_excess_sectors(y) : 0;
    long long xw1 = y ? gm_srcline_excess_wavefronts(y) : 0;
    if (xs0 == xs1 && xw0 == xw1)
        return;
    const gm_srcline *any = y ? y : x;
    const char *loc = y ? b->loc[j] : a->loc[i];
    /* where it was, when the line moved or its file is labelled otherwise */
    const char *from = x && y && strcmp(a->loc[i], b->loc[j]) != 0 ? a->loc[i] : NULL;
    t->lsteps = gm_xrealloc(t->lsteps, (t->n_lsteps + 1) * sizeof *t->lsteps);
    t->lsteps[t->n_lsteps++] = (gmh_lstep){
        .series = series, .point = point, .prev = prev, .params = gm_xstrdup(params),
        .loc = gm_xstrdup(loc), .text = any->text ? gm_xstrdup(any->text) : NULL,
        .from = from ? gm_xstrdup(from) : NULL, .xs = {xs0, xs1}, .xw = {xw0, xw1}};
}

/* The lines whose excess differs between a (commit prev) and b (commit
 * point), appended to t: lines matched as the diff matches them
 * (gm_srclines_match: by path relative to the source root, moved lines by
 * their code). */
static void S_lines_compare(gmh_table *t, size_t series, size_t prev, size_t point,
                            const char *params, const S_lines *a, const S_lines *b)
{
    size_t *match = gm_xmalloc((a->n ? a->n : 1) * sizeof *match);
    bool *paired = gm_xcalloc(b->n ? b->n : 1, sizeof *paired);
    gm_srclines_match(a->v, a->n, b->v, b->n, match);
    for (size_t i = 0; i < a->n; i++) {
        if (match[i] != GM_SL_NONE)
            paired[match[i]] = true;
        S_lstep_add(t, series, prev, point, params, a, i, b, match[i]);
    }
    for (size_t j = 0; j < b->n; j++)
        if (!paired[j])
            S_lstep_add(t, series, prev, point, params, a, GM_SL_NONE, b, j);
    free(match);
    free(paired);
}

/* Per layout, the lines whose excess changed from each commit with per-line
 * counts to the next one with them.  The per-line pass counts one case per
 * layout, not necessarily the series' size: the run of the layout with
 * collected per-line counts is used (the series' parameters when they have
 * them), and two commits are compared only when that run has the same
 * parameters in both. */
static gm_status S_table_lines(gm_history *h, gmh_table *t, const gmh_res *res, size_t n,
                               gm_error *err)
{
    sqlite3_stmt *stat = NULL, *lines = NULL, *pick = NULL;
    gm_status s;
    if ((s = gmh_prepare(h, "SELECT id, params FROM runs WHERE result_id = ?1 AND "
                            "experiment = ?2 AND variant = ?3 AND lines_status = 'collected' "
                            "ORDER BY params = ?4 DESC, params LIMIT 1", &pick, err)) != GM_OK ||
        (s = gmh_prepare(h, "SELECT lines_status FROM runs WHERE id = ?1", &stat, err)) != GM_OK ||
        (s = gmh_prepare(h, "SELECT loc, text, sectors, sectors_ideal, wavefronts, "
                            "wavefronts_ideal, file, line, function, pc FROM lines "
                            "WHERE run_id = ?1 ORDER BY loc", &lines, err)) != GM_OK)
        goto done;
    for (size_t si = 0; si < t->e.n && s == GM_OK; si++) {
        const gmh_series *se = &t->e.s[si];
        S_lines last = {0};
        size_t last_p = 0;
        char *last_params = NULL;
        for (size_t p = 0; p < n && s == GM_OK; p++) {
            if (!gmh_bind_int(pick, 1, res[p].id) || !gmh_bind_text(pick, 2, t->e.exp) ||
                !gmh_bind_text(pick, 3, se->variant) || !gmh_bind_text(pick, 4, se->params)) {
                s = gmh_fail_db(h, err, "binding a run");
                break;
            }
            int rc = sqlite3_step(pick);
            long long run = rc == SQLITE_ROW ? (long long)sqlite3_column_int64(pick, 0) : -1;
            char *params = rc == SQLITE_ROW ? gmh_col_text(pick, 1) : NULL;
            if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || sqlite3_reset(pick) != SQLITE_OK) {
                free(params);
                s = gmh_fail_db(h, err, "finding a run with per-line counts");
                break;
            }
            S_lines cur;
            if ((s = S_lines_load(h, stat, lines, run, &cur, err)) != GM_OK || !cur.have) {
                free(params);
                continue;
            }
            t->n_lpoints++;
            if (last.have && strcmp(last_params, params) == 0)
                S_lines_compare(t, si, last_p, p, params, &last, &cur);
            S_lines_free(&last);
            free(last_params);
            last = cur;
            last_params = params;
            last_p = p;
        }
        S_lines_free(&last);
        free(last_params);
    }
done:
    sqlite3_finalize(pick);
    sqlite3_finalize(stat);
    sqlite3_finalize(lines);
    return s;
}

/* The steps of the median time (metric m) of layout si over the points
 * 0..n, at[0..*k): change points tested with the runs' samples, less the
 * commits where the launch gate came or went (t->gates, room *gcap). */
static gm_status S_time_steps(gm_history *h, gmh_table *t, sqlite3_stmt *smp, sqlite3_stmt *gat,
                              size_t si, size_t m, size_t n, size_t *gcap, size_t *at,
                              size_t *k, gm_error *err)
{
    const gmh_series *se = &t->e.s[si];
    const double *v = &GMH_V(t, si, m, 0, n);
    gm_status s = GM_OK;
    double **sm = gm_xcalloc(n ? n : 1, sizeof *sm);
    size_t *sn = gm_xcalloc(n ? n : 1, sizeof *sn);
    for (size_t p = 0; p < n && s == GM_OK; p++)
        s = S_samples(h, smp, se->run[p], &sm[p], &sn[p], err);
    *k = s == GM_OK ? gm_steps_noisy(v, n, GM_DIFF_TIME_REL, 0.0,
                                     (const double *const *)sm, sn, at)
                    : 0;
    for (size_t p = 0; p < n; p++)
        free(sm[p]);
    free(sm);
    free(sn);
    /* Where the times start (or stop) being taken behind the launch
     * gate, a change is the method's: noted, not called a step. */
    int prev = -1;
    for (size_t p = 0; p < n && s == GM_OK; p++) {
        int g = -1;
        s = S_gated(h, gat, se->run[p], &g, err);
        if (s != GM_OK || g < 0 || !isfinite(v[p]))
            continue;
        if (prev >= 0 && g != prev) {
            if (t->n_gates == *gcap) {
                *gcap = *gcap ? 2 * *gcap : 8;
                t->gates = gm_xrealloc(t->gates, *gcap * sizeof *t->gates);
            }
            t->gates[t->n_gates++] = (gmh_step){si, m, p, prev, g, false};
            size_t kept = 0;
            for (size_t i = 0; i < *k; i++)
                if (at[i] != p)
                    at[kept++] = at[i];
            *k = kept;
        }
        prev = g;
    }
    return s;
}

/* The steps of a noisy counter (metric) of layout se over the points 0..n,
 * at[0..*k): change points beyond the diff's bound. */
static gm_status S_counter_steps(gm_history *h, sqlite3_stmt *met, sqlite3_stmt *med,
                                 const gmh_series *se, const char *metric, const double *v,
                                 size_t n, size_t *at, size_t *k, gm_error *err)
{
    gm_status s = GM_OK;
    /* the diff's bounds: shared conflicts per shared instruction,
     * DRAM bytes 2 % and 2 MiB, others 5 % */
    gm_threshold thr = gm_diff_default_threshold(metric);
    double floor = thr.floor_kind == GM_FLOOR_ABSOLUTE ? thr.floor : 0.0;
    const char *im = gm_diff_inst_metric(metric);
    if (thr.floor_kind == GM_FLOOR_PER_INST && im) {
        double inst = NAN;
        for (size_t p = n; p-- > 0 && isnan(inst) && s == GM_OK;)
            s = S_value(h, met, med, se->run[p], im, &inst, err);
        floor = isfinite(inst) ? thr.floor * inst : 0.0;
    }
    *k = gm_steps_noisy(v, n, thr.kind == GM_THR_RELATIVE ? thr.value : 0.05, floor, NULL, NULL,
                        at);
    return s;
}

gm_status gmh_table_load(gm_history *h, const gmh_res *res, size_t n, const char *exp,
                         gmh_table *t, gm_error *err)
{
    memset(t, 0, sizeof *t);
    gm_status s = S_load_exp(h, res, n, exp, &t->e, err);
    if (s != GM_OK)
        return s;
    sqlite3_stmt *met = NULL, *med = NULL, *smp = NULL, *gat = NULL;
    size_t gcap = 0;
    if ((s = gmh_prepare(h, "SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2", &met,
                         err)) != GM_OK ||
        (s = gmh_prepare(h, "SELECT median_ms FROM runs WHERE id = ?1", &med, err)) != GM_OK ||
        (s = gmh_prepare(h, "SELECT gated FROM runs WHERE id = ?1", &gat, err)) != GM_OK ||
        (s = gmh_prepare(h, "SELECT ms FROM samples WHERE run_id = ?1 ORDER BY i", &smp, err)) !=
            GM_OK)
        goto done;
    t->v = gm_xmalloc((t->e.n * GMH_NKEY * n + 1) * sizeof *t->v);
    size_t cap = 0;
    for (size_t si = 0; si < t->e.n && s == GM_OK; si++) {
        const gmh_series *se = &t->e.s[si];
        for (size_t m = 0; m < GMH_NKEY && s == GM_OK; m++) {
            for (size_t p = 0; p < n && s == GM_OK; p++) {
                s = S_value(h, met, med, se->run[p], gmh_key_metrics[m], &GMH_V(t, si, m, p, n),
                            err);
                double x = GMH_V(t, si, m, p, n);
                if (isfinite(x) && x != 0)
                    t->used[m] = true;
            }
            if (s != GM_OK)
                break;
            const double *v = &GMH_V(t, si, m, 0, n);
            size_t *at = gm_xmalloc((n ? n : 1) * sizeof *at), k;
            bool exact = S_mexact(gmh_key_metrics[m]);
            if (exact)
                k = gm_steps_exact(v, n, at);
            else if (strcmp(gmh_key_metrics[m], GM_DIFF_TIME) == 0)
                s = S_time_steps(h, t, smp, gat, si, m, n, &gcap, at, &k, err);
            else
                s = S_counter_steps(h, met, med, se, gmh_key_metrics[m], v, n, at, &k, err);
            for (size_t i = 0; i < k; i++) {
                if (t->n_steps == cap) {
                    cap = cap ? 2 * cap : 16;
                    t->steps = gm_xrealloc(t->steps, cap * sizeof *t->steps);
                }
                size_t q = at[i];
                double before = NAN;
                for (size_t b = q; b-- > 0 && isnan(before);)
                    before = v[b];
                t->steps[t->n_steps++] = (gmh_step){si, m, q, before, v[q], exact};
            }
            free(at);
        }
    }
    if (s == GM_OK)
        s = S_table_lines(h, t, res, n, err);
done:
    sqlite3_finalize(met);
    sqlite3_finalize(med);
    sqlite3_finalize(smp);
    sqlite3_finalize(gat);
    return s;
}

/* ======================================================================== */
/* The gate                                                                 */
/* ======================================================================== */

/* The group of head's settings, less head itself (commit: its commit as the
 * history stores it) and trees with uncommitted changes (no commit anyone
 * can check out) when there are clean ones: their indexes in all, in commit
 * order, into idx (room for all->n).  Returns their count; *any_clean: clean
 * trees were there. */
static size_t S_gate_group(const gmh_resv *all, const gm_results *head, const char *commit,
                           const char *settings, size_t *idx, bool *any_clean)
{
    size_t n = 0;
    *any_clean = false;
    for (size_t i = 0; i < all->n; i++)
        *any_clean |= strcmp(all->v[i].settings, settings) == 0 && all->v[i].dirty == 0;
    for (size_t i = 0; i < all->n; i++) {
        const gmh_res *r = &all->v[i];
        if (strcmp(r->settings, settings) != 0 || (*any_clean && r->dirty != 0))
            continue;
        if (strcmp(r->commit, commit) == 0 &&
            r->dirty == head->dirty &&
            strcmp(r->taken_at, head->taken_at ? head->taken_at : "unknown") == 0)
            continue;
        idx[n++] = i;
    }
    return n;
}

/* The stored results file of latest, read back as name (base: the caller
 * frees it when GM_OK). */
static gm_status S_gate_base(gm_history *h, const gmh_res *latest, const char *name,
                             gm_results *base, gm_error *err)
{
    sqlite3_stmt *js = NULL;
    gm_status s;
    if ((s = gmh_prepare(h, "SELECT json FROM results WHERE id = ?1", &js, err)) != GM_OK)
        goto out;
    if (!gmh_bind_int(js, 1, latest->id)) {
        s = gmh_fail_db(h, err, "binding a result");
        goto out;
    }
    if (sqlite3_step(js) != SQLITE_ROW) {
        s = gmh_fail_db(h, err, "reading a stored results file");
        goto out;
    }
    const unsigned char *text = sqlite3_column_text(js, 0);
    s = gm_results_read_string(text ? (const char *)text : "", name, base, err);
out:
    sqlite3_finalize(js);
    return s;
}

/* Each timed run of base given the samples of its run in the results
 * all.v[idx[from..n)] pooled. */
static gm_status S_gate_pool(gm_history *h, gm_results *base, const gmh_resv *all,
                             const size_t *idx, size_t from, size_t n, gm_error *err)
{
    sqlite3_stmt *smp = NULL;
    gm_status s;
    /* only samples taken as the latest's were (with or without the launch
     * gate): a pool across the change would mix the host's time into it */
    if ((s = gmh_prepare(h, "SELECT s.ms FROM samples s JOIN runs ru ON s.run_id = ru.id "
                            "WHERE ru.result_id = ?1 AND ru.experiment = ?2 AND ru.variant = ?3 "
                            "AND ru.params = ?4 AND ru.gated = ?5 ORDER BY s.i", &smp, err)) !=
        GM_OK)
        return s;
    for (size_t i = 0; i < base->n_runs && s == GM_OK; i++) {
        gm_run *run = &base->runs[i];
        if (!run->timing.present)
            continue;
        gm_buf pt = GM_BUF_INIT;
        gm_diff_params_text(&pt, run);
        double *pool = NULL;
        size_t np = 0, cap = 0;
        for (size_t k = from; k < n && s == GM_OK; k++) {
            if (!gmh_bind_int(smp, 1, all->v[idx[k]].id) ||
                !gmh_bind_text(smp, 2, run->experiment ? run->experiment : "") ||
                !gmh_bind_text(smp, 3, run->variant ? run->variant : "") ||
                !gmh_bind_text(smp, 4, pt.data ? pt.data : "") ||
                !gmh_bind_int(smp, 5, run->timing.gated)) {
                s = gmh_fail_db(h, err, "binding a run");
                break;
            }
            int rc;
            while ((rc = sqlite3_step(smp)) == SQLITE_ROW) {
                if (np == cap) {
                    cap = cap ? 2 * cap : 64;
                    pool = gm_xrealloc(pool, cap * sizeof *pool);
                }
                pool[np++] = sqlite3_column_double(smp, 0);
            }
            if (rc != SQLITE_DONE || sqlite3_reset(smp) != SQLITE_OK)
                s = gmh_fail_db(h, err, "reading samples");
        }
        if (np)
            gm_timing_set_samples(&run->timing, pool, np);
        free(pool);
        gm_buf_free(&pt);
    }
    sqlite3_finalize(smp);
    return s;
}

/* A time beyond the pooled samples but inside the range the medians of
 * those commits (all.v[idx[from..n)]) already took is the history's noise,
 * not a change (the medians of 7 µs kernels wandered from 5.8 to 11.2 µs
 * over the committed example's commits with no change to their code): such
 * rows of d become GM_DIFF_NOISE, with a note. */
static gm_status S_gate_noise(gm_history *h, gm_diff *d, const gmh_resv *all, const size_t *idx,
                              size_t from, size_t n, gm_error *err)
{
    sqlite3_stmt *smp = NULL;
    gm_status s;
    if ((s = gmh_prepare(h, "SELECT median_ms FROM runs WHERE result_id = ?1 AND experiment = ?2 "
                            "AND variant = ?3 AND params = ?4 AND gated = ?5", &smp, err)) !=
        GM_OK)
        return s;
    for (size_t i = 0; i < d->n_rows && s == GM_OK; i++) {
        gm_diff_row *r = &d->rows[i];
        if (!r->metric || strcmp(r->metric, GM_DIFF_TIME) != 0 || !r->base || !r->head ||
            (r->status != GM_DIFF_REGRESSED && r->status != GM_DIFF_IMPROVED))
            continue;
        gm_buf pt = GM_BUF_INIT;
        gm_diff_params_text(&pt, r->base);
        double lo = INFINITY, hi = -INFINITY;
        for (size_t k = from; k < n && s == GM_OK; k++) {
            if (!gmh_bind_int(smp, 1, all->v[idx[k]].id) ||
                !gmh_bind_text(smp, 2, r->base->experiment ? r->base->experiment : "") ||
                !gmh_bind_text(smp, 3, r->base->variant ? r->base->variant : "") ||
                !gmh_bind_text(smp, 4, pt.data ? pt.data : "") ||
                !gmh_bind_int(smp, 5, r->base->timing.gated)) {
                s = gmh_fail_db(h, err, "binding a run");
                break;
            }
            int rc = sqlite3_step(smp);
            if (rc == SQLITE_ROW && sqlite3_column_type(smp, 0) != SQLITE_NULL) {
                double m = sqlite3_column_double(smp, 0);
                lo = fmin(lo, m);
                hi = fmax(hi, m);
            }
            if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || sqlite3_reset(smp) != SQLITE_OK)
                s = gmh_fail_db(h, err, "reading medians");
        }
        gm_buf_free(&pt);
        double v = gm_value_num(&r->vhead), t = r->thr.kind == GM_THR_RELATIVE ? r->thr.value : 0;
        bool inside = r->status == GM_DIFF_REGRESSED ? v <= hi * (1 + t) : v >= lo * (1 - t);
        if (isfinite(lo) && inside) {
            d->counts[r->status]--;
            d->counts[GM_DIFF_NOISE]++;
            r->status = GM_DIFF_NOISE;
            gm_buf nb = GM_BUF_INIT;
            gm_buf_puts(&nb, "inside the medians of the last commits, ");
            gm_fmt_quantity(&nb, lo, "ms", false);
            gm_buf_puts(&nb, " to ");
            gm_fmt_quantity(&nb, hi, "ms", false);
            snprintf(r->note, sizeof r->note, "%s", nb.data);
            gm_buf_free(&nb);
        }
    }
    sqlite3_finalize(smp);
    return s;
}

/* The verdict's heading, and what head was judged against: the group
 * all.v[idx[0..n)], its latest for the counters, idx[from..n) for the
 * times. */
static void S_gate_head_md(gm_buf *b, const gm_diff *d, const char *head_name, const char *dev,
                           const gmh_resv *all, const size_t *idx, size_t from, size_t n,
                           bool any_clean)
{
    const gmh_res *latest = &all->v[idx[n - 1]];
    char *g = gm_diff_gate_line(d);
    gm_buf_puts(b, "### gpumem-report history gate: ");
    gm_esc_md(b, g);
    free(g);
    gm_buf_puts(b, "\n\n");
    gm_esc_md_code(b, head_name ? head_name : "head");
    gm_buf_puts(b, " against the history of ");
    gm_esc_md(b, dev);
    gm_buf_printf(b, " with the same collection settings (%zu results%s): counters against the "
                     "latest, ", n, any_clean ? ", clean trees only" : "");
    gmh_md_commit(b, latest);
    gm_buf_puts(b, " (");
    gmh_md_when(b, latest);
    gm_buf_printf(b, "); times against the samples of the last %zu (", n - from);
    for (size_t k = from; k < n; k++) {
        gm_buf_puts(b, k > from ? ", " : "");
        gmh_md_commit(b, &all->v[idx[k]]);
    }
    gm_buf_puts(b, ") pooled, with the diff's thresholds and noise test; a time inside the "
                   "range of those commits' medians (widened by its threshold) is within "
                   "noise.\n\n");
}

gm_status gm_history_gate(gm_history *h, const gm_results *head, const char *head_name,
                          const gm_diff_options *opts, const gm_diff_render *render,
                          bool warn_only, char **md, char **json, bool *fail, gm_error *err)
{
    *md = NULL;
    if (json)
        *json = NULL;
    *fail = true;
    char *settings = gm_history_settings(head);
    const char *dev = head->device.name ? head->device.name : "unknown GPU";
    gmh_resv all;
    gm_status s = gmh_load_results(h, dev, &all, err);
    if (s != GM_OK) {
        free(settings);
        return s;
    }
    size_t *idx = gm_xmalloc((all.n ? all.n : 1) * sizeof *idx);
    bool any_clean;
    char *commit = NULL;
    size_t n = 0;
    gm_results base;
    bool have_base = false;
    gm_diff d;
    bool have_diff = false;
    if ((s = gm_history_resolve_commit(h, head->commit, &commit, err)) != GM_OK)
        goto out;
    n = S_gate_group(&all, head, commit, settings, idx, &any_clean);
    if (n == 0) {
        s = gm_fail(err, GM_ERR_VALUE,
                    "%s: the history holds no run of %s collected with these settings (%s): "
                    "add some with `gpumem-report history add`", h->path, dev, settings);
        goto out;
    }
    const gmh_res *latest = &all.v[idx[n - 1]];
    char name[96];
    snprintf(name, sizeof name, "history:%.12s", latest->commit);
    if ((s = S_gate_base(h, latest, name, &base, err)) != GM_OK)
        goto out;
    have_base = true;
    /* each run's samples, pooled from the last GM_GATE_POOL results */
    size_t pool_from = n > GM_GATE_POOL ? n - GM_GATE_POOL : 0;
    if ((s = S_gate_pool(h, &base, &all, idx, pool_from, n, err)) != GM_OK)
        goto out;
    gm_diff_options o = opts ? *opts : (gm_diff_options){0};
    o.base_name = name;
    o.head_name = head_name;
    if ((s = gm_diff_compute(&base, head, &o, &d, err)) != GM_OK)
        goto out;
    have_diff = true;
    if ((s = S_gate_noise(h, &d, &all, idx, pool_from, n, err)) != GM_OK)
        goto out;
    *fail = gm_diff_has_regression(&d) || (!d.comparable && !o.force);

    gm_buf b = GM_BUF_INIT;
    S_gate_head_md(&b, &d, head_name, dev, &all, idx, pool_from, n, any_clean);
    gm_diff_render ro = {.only_changed = true};
    if (render)
        ro = *render;
    ro.base_name = name;
    ro.head_name = head_name;
    char *dm = gm_diff_to_markdown(&d, &ro);
    /* the diff's own heading and row counts stay: they say what was compared */
    gm_buf_puts(&b, dm);
    free(dm);
    *md = gm_buf_detach(&b);
    if (json)
        *json = gm_diff_to_json(&d, &ro, *fail && !warn_only ? 1 : 0);
out:
    if (have_diff)
        gm_diff_free(&d);
    if (have_base)
        gm_results_free(&base);
    free(idx);
    free(commit);
    free(settings);
    gmh_resv_free(&all);
    return s;
}
