/* diff.c — compare a head results file against a base one: the analysis.
 *
 * Sections: the noise test (Mann–Whitney U), thresholds, pairing runs,
 * judging rows, comparing how the two files were collected, the verdict.
 * The renderers (Markdown, HTML, JSON) are in diff_render.c.
 */
#include "diff.h"

#include "runs.h"

#include "../core/buf.h"
#include "../core/fmt.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
/* Thresholds and directions                                                */
/* ======================================================================== */

/* The defaults; the constants in diff.h give the measured noise each sits
 * above.
 *  - time (event-timed median of repeated launches): 5 %, and the samples
 *    must differ (Mann–Whitney, alpha 0.05).  Between criterion.rs's 1 %
 *    noise band and asv's factor 1.1: clocks are not locked during
 *    collection, so medians move by a few percent with boost state.
 *  - deterministic counts and the ratios made from them (global sectors,
 *    requests, instructions, shared instructions, sectors/request,
 *    efficiency): exact.  For a given kernel and input they are a function of
 *    the addresses the threads touch, so any change is a change in the code.
 *  - shared conflicts and wavefronts: 1 % and 0.05 per shared instruction.
 *    They follow the addresses too, but the L1TEX data stage they count also
 *    serves global traffic, and the collisions with it depend on timing.
 *  - DRAM bytes (one value per run, varies with what L2 holds and evicts):
 *    2 % and 2 MiB.  A layout change worth reporting moves them by whole
 *    sectors per request (tens of percent of what the kernel moves).
 *  - DRAM bytes/second: 10 % and 10 GB/s (a kernel moving a few KiB has a
 *    rate that means nothing).
 *  - percentages that vary (% of peak, L1 hit rate, occupancy): 5 percentage
 *    points, absolute: a relative band misbehaves near 0 (0.4 % -> 0.6 % is
 *    +50 %); the L2 hit rate: 10 points.
 *  - profiler duration: 20 %.  A single profiled pass has no sample set to
 *    test, so the band is wider than the event timing's; the timing row is
 *    the time gate.
 *  - metrics the catalog does not know: 5 %, direction "neither". */
gm_threshold gm_diff_default_threshold(const char *metric)
{
    if (metric && strcmp(metric, GM_DIFF_TIME) == 0)
        return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_TIME_REL, GM_FLOOR_NONE, 0.0};
    const gm_metric_info *info = gm_catalog_find(metric);
    if (!info)
        return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_UNKNOWN_REL, GM_FLOOR_NONE, 0.0};
    if (info->deterministic)
        return (gm_threshold){GM_THR_EXACT, 0.0, GM_FLOOR_NONE, 0.0};
    if (gm_diff_inst_metric(metric))
        return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_SHARED_REL, GM_FLOOR_PER_INST,
                              GM_DIFF_SHARED_PER_INST};
    if (strcmp(metric, GM_M_L2_HIT) == 0)
        return (gm_threshold){GM_THR_ABSOLUTE, GM_DIFF_L2_HIT_POINTS, GM_FLOOR_NONE, 0.0};
    if (strcmp(info->unit, "%") == 0)
        return (gm_threshold){GM_THR_ABSOLUTE, GM_DIFF_PCT_POINTS, GM_FLOOR_NONE, 0.0};
    if (strcmp(info->unit, "byte") == 0)
        return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_DRAM_BYTES_REL, GM_FLOOR_ABSOLUTE,
                              GM_DIFF_DRAM_BYTES_FLOOR};
    if (strcmp(info->unit, "byte/second") == 0)
        return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_DRAM_RATE_REL, GM_FLOOR_ABSOLUTE,
                              GM_DIFF_DRAM_RATE_FLOOR};
    return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_DURATION_REL, GM_FLOOR_NONE, 0.0};
}

const char *gm_diff_inst_metric(const char *metric)
{
    if (!metric)
        return NULL;
    if (strcmp(metric, GM_M_SH_LD_CONFL) == 0 || strcmp(metric, GM_M_SH_LD_WAVES) == 0)
        return GM_M_SH_LD_INST;
    if (strcmp(metric, GM_M_SH_ST_CONFL) == 0 || strcmp(metric, GM_M_SH_ST_WAVES) == 0)
        return GM_M_SH_ST_INST;
    return NULL;
}

gm_direction gm_diff_direction(const char *metric)
{
    if (metric && strcmp(metric, GM_DIFF_TIME) == 0)
        return GM_BETTER_LOWER;
    const gm_metric_info *info = gm_catalog_find(metric);
    return info ? info->better : GM_BETTER_NEITHER;
}

/* Counts: what the code decides for a given input (sectors, requests,
 * instructions), and what it moves through the memory system (conflicts,
 * wavefronts, DRAM bytes).  Rates: what divides one of them by another or by
 * time, or by a peak.  A name the catalog does not know is a count when ncu
 * would sum it (".sum", not a percentage or a rate), a rate otherwise. */
gm_diff_role gm_diff_metric_role(const char *metric)
{
    if (!metric)
        return GM_DIFF_ROLE_RUN;
    if (strcmp(metric, GM_DIFF_TIME) == 0)
        return GM_DIFF_ROLE_TIME;
    const gm_metric_info *info = gm_catalog_find(metric);
    if (info) {
        static const char *const rate_units[] = {"%", "byte/second", "sector/request", "ns"};
        for (size_t i = 0; i < sizeof rate_units / sizeof rate_units[0]; i++)
            if (strcmp(info->unit, rate_units[i]) == 0)
                return GM_DIFF_ROLE_RATE;
        return GM_DIFF_ROLE_COUNT;
    }
    size_t n = strlen(metric);
    bool sum = n > 4 && strcmp(metric + n - 4, ".sum") == 0;
    return sum && !strstr(metric, "pct") && !strstr(metric, "per_second") ? GM_DIFF_ROLE_COUNT
                                                                           : GM_DIFF_ROLE_RATE;
}

const char *gm_diff_role_name(gm_diff_role r)
{
    switch (r) {
    case GM_DIFF_ROLE_RUN: return "run";
    case GM_DIFF_ROLE_TIME: return "time";
    case GM_DIFF_ROLE_COUNT: return "count";
    case GM_DIFF_ROLE_RATE: return "rate";
    }
    return "run";
}

/* The ncu name behind a name or a catalog label; the text itself otherwise. */
static const char *S_resolve(const char *metric)
{
    for (size_t i = 0; i < gm_catalog_len; i++)
        if (strcmp(gm_catalog[i].label, metric) == 0)
            return gm_catalog[i].name;
    return metric;
}

/* The floor after the comma: "2MiB", "1e10", "0.05/inst", "0" (none). */
static gm_status S_floor_parse(const char *spec, const char *metric, const char *text,
                               gm_threshold *t, gm_error *err)
{
    while (*text == ' ')
        text++;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v) || v < 0.0)
        return gm_fail(err, GM_ERR_VALUE,
                       "--threshold: '%s': floor '%s' is not a non-negative number "
                       "(like 2MiB, 1e10 or 0.05/inst)", spec, text);
    while (*end == ' ')
        end++;
    static const struct {
        const char *suffix;
        double scale;
    } bytes[] = {{"KiB", 1024.0}, {"MiB", 1024.0 * 1024.0}, {"GiB", 1024.0 * 1024.0 * 1024.0}};
    gm_floor_kind kind = GM_FLOOR_ABSOLUTE;
    if (strncmp(end, "/inst", 5) == 0) {
        if (!gm_diff_inst_metric(S_resolve(metric)))
            return gm_fail(err, GM_ERR_VALUE,
                           "--threshold: '%s': a floor per instruction (/inst) applies only "
                           "to shared-memory conflicts and wavefronts (sh ld conflicts, sh st "
                           "conflicts, sh ld wavefronts, sh st wavefronts)", spec);
        kind = GM_FLOOR_PER_INST;
        end += 5;
    } else {
        for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
            size_t n = strlen(bytes[i].suffix);
            if (strncmp(end, bytes[i].suffix, n) == 0) {
                v *= bytes[i].scale;
                end += n;
                break;
            }
        }
    }
    while (*end == ' ')
        end++;
    if (*end)
        return gm_fail(err, GM_ERR_VALUE,
                       "--threshold: '%s': unexpected '%s' after the floor (units: KiB, MiB, "
                       "GiB or /inst)", spec, end);
    t->floor_kind = v > 0.0 ? kind : GM_FLOOR_NONE;
    t->floor = v > 0.0 ? v : 0.0;
    return GM_OK;
}

gm_status gm_threshold_parse(const char *spec, char **metric, gm_threshold *thr, gm_error *err)
{
    *metric = NULL;
    const char *eq = spec ? strrchr(spec, '=') : NULL;
    if (!eq || eq == spec || !eq[1])
        return gm_fail(err, GM_ERR_VALUE,
                       "--threshold: '%s' is not METRIC=VALUE[,FLOOR] (VALUE: 5%%, 0.5 or "
                       "exact; FLOOR: 2MiB, 1e10, 0.05/inst)", spec ? spec : "");
    size_t n = (size_t)(eq - spec);
    char *name = gm_xmalloc(n + 1);
    memcpy(name, spec, n);
    name[n] = '\0';

    const char *val = eq + 1;
    const char *comma = strchr(val, ',');
    size_t vlen = comma ? (size_t)(comma - val) : strlen(val);
    char *bound = gm_xmalloc(vlen + 1);
    memcpy(bound, val, vlen);
    bound[vlen] = '\0';
    while (vlen > 0 && bound[vlen - 1] == ' ')
        bound[--vlen] = '\0';

    gm_threshold t = {GM_THR_EXACT, 0.0, GM_FLOOR_NONE, 0.0};
    gm_status st = GM_OK;
    if (strcasecmp(bound, "exact") == 0) {
        if (comma)
            st = gm_fail(err, GM_ERR_VALUE,
                         "--threshold: '%s': 'exact' takes no floor", spec);
    } else {
        char *end = NULL;
        errno = 0;
        double v = strtod(bound, &end);
        if (end == bound || errno == ERANGE || !isfinite(v) || v < 0.0) {
            st = gm_fail(err, GM_ERR_VALUE,
                         "--threshold: '%s': '%s' is not a non-negative number, "
                         "a percentage like 5%% or 'exact'", spec, bound);
        } else {
            while (*end == ' ')
                end++;
            if (*end == '%') {
                t = (gm_threshold){GM_THR_RELATIVE, v / 100.0, GM_FLOOR_NONE, 0.0};
                end++;
            } else {
                t = (gm_threshold){GM_THR_ABSOLUTE, v, GM_FLOOR_NONE, 0.0};
            }
            if (*end)
                st = gm_fail(err, GM_ERR_VALUE,
                             "--threshold: '%s': unexpected '%s' after the number", spec, end);
        }
        if (st == GM_OK && comma)
            st = S_floor_parse(spec, name, comma + 1, &t, err);
    }
    free(bound);
    if (st != GM_OK) {
        free(name);
        return st;
    }
    *metric = name;
    *thr = t;
    return GM_OK;
}

gm_status gm_diff_pair_parse(const char *spec, gm_diff_pair *p, gm_error *err)
{
    p->from = p->to = NULL;
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return gm_fail(err, GM_ERR_VALUE,
                       "--pair: '%s' is not OLD=NEW (names of base and head runs: "
                       "EXPERIMENT/VARIANT or VARIANT, one '*' allowed)", spec);
    size_t n = (size_t)(eq - spec);
    char *from = gm_xmalloc(n + 1);
    memcpy(from, spec, n);
    from[n] = '\0';
    const char *to = eq + 1;
    const char *why = NULL;
    const char *sf = strchr(from, '*'), *st = strchr(to, '*');
    if (sf && strchr(sf + 1, '*'))
        why = "OLD has more than one '*'";
    else if (st && strchr(st + 1, '*'))
        why = "NEW has more than one '*'";
    else if (st && !sf)
        why = "NEW has a '*' but OLD has none to match it";
    else if (strchr(to, '=') )
        why = "more than one '='";
    else if ((strchr(from, '/') != NULL) != (strchr(to, '/') != NULL))
        why = "give EXPERIMENT/VARIANT on both sides or VARIANT on both";
    if (why) {
        free(from);
        return gm_fail(err, GM_ERR_VALUE, "--pair: '%s': %s", spec, why);
    }
    p->from = from;
    p->to = gm_xstrdup(to);
    return GM_OK;
}

bool gm_threshold_equal(const gm_threshold *a, const gm_threshold *b)
{
    if (a->kind != b->kind || (a->kind != GM_THR_EXACT && a->value != b->value))
        return false;
    return a->floor_kind == b->floor_kind &&
           (a->floor_kind == GM_FLOOR_NONE || a->floor == b->floor);
}

const char *gm_diff_unit_short(const char *unit)
{
    return unit && strcmp(unit, "%") == 0 ? "pp" : unit;
}

/* A floor in bytes in the largest of KiB, MiB, GiB it reaches, when it is a
 * whole number of thousandths of that unit (2 MiB, 1.5 KiB); bytes otherwise. */
static void S_floor_text(const gm_threshold *t, const char *unit, char *out, size_t n)
{
    if (t->floor_kind == GM_FLOOR_PER_INST) {
        snprintf(out, n, "%g/inst", t->floor);
        return;
    }
    if (unit && strcmp(unit, "byte") == 0) {
        static const char *const names[] = {"GiB", "MiB", "KiB"};
        double scale = 1024.0 * 1024.0 * 1024.0;
        for (int i = 0; i < 3; i++, scale /= 1024.0) {
            if (t->floor < scale)
                continue;
            if (fmod(t->floor * 1000.0, scale) == 0.0) {
                snprintf(out, n, "%g %s", t->floor / scale, names[i]);
                return;
            }
            break;
        }
    }
    const char *u = gm_diff_unit_short(unit);
    snprintf(out, n, "%g%s%s", t->floor, u && *u ? " " : "", u ? u : "");
}

void gm_threshold_format(const gm_threshold *t, const char *unit, char *out, size_t n)
{
    const char *u = gm_diff_unit_short(unit);
    int k = 0;
    switch (t->kind) {
    case GM_THR_EXACT: k = snprintf(out, n, "exact"); break;
    case GM_THR_RELATIVE: k = snprintf(out, n, "%g %%", t->value * 100.0); break;
    case GM_THR_ABSOLUTE:
        k = snprintf(out, n, "%g%s%s", t->value, u && *u ? " " : "", u ? u : "");
        break;
    }
    if (t->floor_kind != GM_FLOOR_NONE && k >= 0 && (size_t)k + 2 < n) {
        snprintf(out + k, n - (size_t)k, ", ");
        S_floor_text(t, unit, out + k + 2, n - (size_t)k - 2);
    }
}

/* ======================================================================== */
/* Statuses                                                                 */
/* ======================================================================== */

const char *gm_diff_status_name(gm_diff_status s)
{
    switch (s) {
    case GM_DIFF_REGRESSED: return "regressed";
    case GM_DIFF_FAILED: return "failed";
    case GM_DIFF_INCOMPARABLE: return "incomparable";
    case GM_DIFF_IMPROVED: return "improved";
    case GM_DIFF_CHANGED: return "changed";
    case GM_DIFF_NEW: return "new";
    case GM_DIFF_REMOVED: return "removed";
    case GM_DIFF_NOISE: return "within noise";
    case GM_DIFF_UNCHANGED: return "unchanged";
    case GM_DIFF_N_STATUS: break;
    }
    return "?";
}

/* Singular and plural for the verdict line. */
static const char *const S_count_word[GM_DIFF_N_STATUS][2] = {
    {"regression", "regressions"},
    {"failed run", "failed runs"},
    {"incomparable", "incomparable"},
    {"improvement", "improvements"},
    {"changed", "changed"},
    {"new", "new"},
    {"removed", "removed"},
    {"within noise", "within noise"},
    {"unchanged", "unchanged"},
};

/* ======================================================================== */
/* Pairing runs                                                             */
/* ======================================================================== */

typedef struct {
    const gm_run *run;
    size_t index;              /* position in its file, for messages */
    const gm_param **params;   /* sorted by name */
    const char *exp, *var;     /* the names it pairs by: the run's, or a --pair rule's */
    char *renamed;             /* owned storage of exp and var when a rule renamed them */
    bool prog;                 /* a program's kernel: var is its identity, params unused */
    char *ident;               /* prog: "\x01" NVTX range "\x1f" kernel (owned) */
    long long first;           /* prog: index of its first launch in the program; -1 */
} S_key;

static int S_param_name_cmp(const void *a, const void *b)
{
    const gm_param *x = *(const gm_param *const *)a, *y = *(const gm_param *const *)b;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int S_str_cmp(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* Absent < numbers < strings; numbers by value, so 1024 and 1024.0 pair. */
static int S_value_cmp(const gm_value *a, const gm_value *b)
{
    int ca = a->kind == GM_V_ABSENT ? 0 : a->kind == GM_V_STR ? 2 : 1;
    int cb = b->kind == GM_V_ABSENT ? 0 : b->kind == GM_V_STR ? 2 : 1;
    if (ca != cb)
        return ca - cb;
    if (ca == 1) {
        double x = gm_value_num(a), y = gm_value_num(b);
        return (x > y) - (x < y);
    }
    if (ca == 2)
        return S_str_cmp(a->s, b->s);
    return 0;
}

/* The key two runs pair by: experiment, variant and parameters; for a
 * program's kernels, experiment (the program), identity (kernel and NVTX
 * range) and parameters (none, or those a merge adds: the rank), their
 * launch configurations being what may change. */
static int S_key_cmp(const S_key *a, const S_key *b)
{
    if (a->prog != b->prog)
        return (int)a->prog - (int)b->prog;
    int c = S_str_cmp(a->exp, b->exp);
    if (c)
        return c;
    if ((c = S_str_cmp(a->var, b->var)))
        return c;
    size_t n = a->run->n_params < b->run->n_params ? a->run->n_params : b->run->n_params;
    for (size_t i = 0; i < n; i++) {
        if ((c = S_str_cmp(a->params[i]->name, b->params[i]->name)))
            return c;
        if ((c = S_value_cmp(&a->params[i]->value, &b->params[i]->value)))
            return c;
    }
    return (a->run->n_params > b->run->n_params) - (a->run->n_params < b->run->n_params);
}

/* Launch configurations in a fixed order: none first, then grid, block,
 * shared memory. */
static int S_launch_cmp(const gm_run *a, const gm_run *b)
{
    if (a->has_launch != b->has_launch)
        return (int)a->has_launch - (int)b->has_launch;
    if (!a->has_launch)
        return 0;
    for (int i = 0; i < 3; i++)
        if (a->launch.grid[i] != b->launch.grid[i])
            return a->launch.grid[i] < b->launch.grid[i] ? -1 : 1;
    for (int i = 0; i < 3; i++)
        if (a->launch.block[i] != b->launch.block[i])
            return a->launch.block[i] < b->launch.block[i] ? -1 : 1;
    return (a->launch.shared_bytes > b->launch.shared_bytes) -
           (a->launch.shared_bytes < b->launch.shared_bytes);
}

static int S_key_sort(const void *a, const void *b)
{
    const S_key *x = a, *y = b;
    int c = S_key_cmp(x, y);
    if (c == 0 && x->prog && (c = S_launch_cmp(x->run, y->run)) == 0)
        c = (x->first > y->first) - (x->first < y->first);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* A kernel of a program (gpumem-report -- PROGRAM): no reference to check
 * against, or any named kernel of a program's file (size set "app", as the
 * injection library writes it), so a launch that failed pairs as its
 * kernel. */
static bool S_is_program(const gm_results *r, const gm_run *run)
{
    return gm_run_is_program(run) ||
           (run->kernel && r->collection.size_set && strcmp(r->collection.size_set, "app") == 0);
}

/* The NVTX range the launches ran in, from the note the injection library
 * writes ("NVTX range: outer/inner"); "" outside any range. */
static const char *S_range(const gm_run *run)
{
    static const char pre[] = "NVTX range: ";
    for (size_t i = 0; i < run->n_notes; i++)
        if (run->notes[i] && strncmp(run->notes[i], pre, sizeof pre - 1) == 0)
            return run->notes[i] + sizeof pre - 1;
    return "";
}

/* The index of the run's first launch in the program, from its notes
 * ("launch 7 of the program", "2 launches (launches 4, 5 of the program)");
 * -1 when none says. */
static long long S_first_launch(const gm_run *run)
{
    for (size_t i = 0; i < run->n_notes; i++) {
        const char *n = run->notes[i];
        long long v;
        if (!n)
            continue;
        const char *p = strstr(n, "(launches ");
        if (p && sscanf(p + 10, "%lld", &v) == 1)
            return v;
        if (sscanf(n, "launch %lld of the program", &v) == 1)
            return v;
    }
    return -1;
}

/* A program kernel's variant without what the injection library adds to
 * tell launches apart (" 64x64x1/32x8x1", " #5"), into out. */
static void S_stem(const char *var, char *out, size_t n)
{
    snprintf(out, n, "%s", var ? var : "");
    char *sp = strrchr(out, ' ');
    if (sp && sp[1] == '#' && sp[2] && strspn(sp + 2, "0123456789") == strlen(sp + 2))
        *sp = '\0';
    sp = strrchr(out, ' ');
    unsigned g[3], k[3];
    int used = 0;
    if (sp && sscanf(sp + 1, "%ux%ux%u/%ux%ux%u%n", &g[0], &g[1], &g[2], &k[0], &k[1], &k[2],
                     &used) == 6 && sp[1 + used] == '\0')
        *sp = '\0';
}

/* A --pair pattern against a name: at most one '*', which matches any run of
 * characters (captured in *cap, *cap_len). */
static bool S_glob(const char *pat, const char *s, const char **cap, size_t *cap_len)
{
    const char *star = strchr(pat, '*');
    if (!star) {
        *cap = s + strlen(s);
        *cap_len = 0;
        return strcmp(pat, s) == 0;
    }
    size_t pre = (size_t)(star - pat), suf = strlen(star + 1), n = strlen(s);
    if (n < pre + suf || strncmp(pat, s, pre) != 0 || strcmp(star + 1, s + n - suf) != 0)
        return false;
    *cap = s + pre;
    *cap_len = n - pre - suf;
    return true;
}

/* The first rule whose FROM matches the run renames it: "EXP/VARIANT" rules
 * match the pair, bare "VARIANT" rules the variant in any experiment; a
 * program's kernel is matched by its variant, then by its stem (the variant
 * without a launch configuration), so one rule covers every configuration.
 * Returns the rule's index or -1. */
static long S_rename(S_key *k, const gm_diff_pair *pairs, size_t n_pairs)
{
    const char *exp = k->run->experiment ? k->run->experiment : "";
    char stem[512];
    S_stem(k->run->variant, stem, sizeof stem);
    const char *vars[2] = {k->run->variant ? k->run->variant : "", stem};
    for (size_t i = 0; i < n_pairs; i++) {
        const gm_diff_pair *p = &pairs[i];
        bool full = strchr(p->from, '/') != NULL;
        for (int v = 0; v < (k->prog ? 2 : 1); v++) {
            gm_buf name = GM_BUF_INIT;
            if (full)
                gm_buf_printf(&name, "%s/%s", exp, vars[v]);
            else
                gm_buf_puts(&name, vars[v]);
            const char *cap;
            size_t cap_len;
            bool hit = S_glob(p->from, name.data ? name.data : "", &cap, &cap_len);
            if (!hit) {
                gm_buf_free(&name);
                continue;
            }
            gm_buf to = GM_BUF_INIT;
            if (!full)
                gm_buf_printf(&to, "%s/", exp);
            for (const char *t = p->to; *t; t++) {
                if (*t == '*')
                    gm_buf_printf(&to, "%.*s", (int)cap_len, cap);
                else
                    gm_buf_putc(&to, *t);
            }
            gm_buf_free(&name);
            k->renamed = gm_buf_detach(&to);
            char *slash = strchr(k->renamed, '/');
            if (slash) {
                *slash = '\0';
                k->exp = k->renamed;
                k->var = slash + 1;
            } else {   /* FROM had a '/', TO none: a rule not from gm_diff_pair_parse */
                k->var = k->renamed;
            }
            return (long)i;
        }
    }
    return -1;
}

/* A renamed program kernel pairs with the head kernel of that experiment
 * whose variant, or stem, is the new name: it takes that kernel's identity
 * (the first such in head's order). */
static void S_rename_program(S_key *k, const S_key *head, size_t n_head)
{
    for (size_t j = 0; j < n_head; j++) {
        const S_key *h = &head[j];
        if (!h->prog || S_str_cmp(h->run->experiment, k->exp) != 0)
            continue;
        char stem[512];
        S_stem(h->run->variant, stem, sizeof stem);
        if (S_str_cmp(h->run->variant, k->var) == 0 || strcmp(stem, k->var) == 0) {
            k->var = h->ident;
            return;
        }
    }
}

/* The runs of r sorted by pairing key; base runs renamed by the --pair rules
 * first (hits[i] counts the runs rule i renamed; pairs may be NULL).  With
 * programs, a program's kernels are keyed by kernel and NVTX range (a
 * renamed one by the head kernel it names: head, n_head); without, every run
 * by experiment, variant and parameters (gm_diff_run_key_cmp). */
static S_key *S_keys(const gm_results *r, const gm_diff_pair *pairs, size_t n_pairs,
                     size_t *hits, bool programs, const S_key *head, size_t n_head)
{
    S_key *k = gm_xcalloc(r->n_runs ? r->n_runs : 1, sizeof *k);
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        k[i].run = run;
        k[i].index = i;
        k[i].exp = run->experiment;
        k[i].var = run->variant;
        k[i].first = -1;
        if (programs && S_is_program(r, run)) {
            k[i].prog = true;
            gm_buf id = GM_BUF_INIT;
            gm_buf_printf(&id, "\x01%s\x1f%s", S_range(run), run->kernel ? run->kernel : "");
            k[i].ident = gm_buf_detach(&id);
            k[i].var = k[i].ident;
            k[i].first = S_first_launch(run);
        }
        long rule = S_rename(&k[i], pairs, n_pairs);
        if (rule >= 0 && hits)
            hits[rule]++;
        if (rule >= 0 && k[i].prog)
            S_rename_program(&k[i], head, n_head);
        k[i].params = gm_xcalloc(run->n_params ? run->n_params : 1, sizeof *k[i].params);
        for (size_t p = 0; p < run->n_params; p++)
            k[i].params[p] = &run->params[p];
        qsort(k[i].params, run->n_params, sizeof *k[i].params, S_param_name_cmp);
    }
    qsort(k, r->n_runs, sizeof *k, S_key_sort);
    return k;
}

static void S_keys_free(S_key *k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(k[i].params);
        free(k[i].renamed);
        free(k[i].ident);
    }
    free(k);
}

static void S_value_text(gm_buf *b, const gm_value *v)
{
    switch (v->kind) {
    case GM_V_ABSENT: gm_buf_puts(b, "null"); break;
    case GM_V_INT: gm_buf_printf(b, "%lld", v->i); break;
    case GM_V_REAL: gm_buf_printf(b, "%.15g", v->r); break;
    case GM_V_STR: gm_buf_puts(b, v->s ? v->s : ""); break;
    }
}

void gm_diff_params_text(gm_buf *b, const gm_run *run)
{
    const gm_param **p = gm_xcalloc(run->n_params ? run->n_params : 1, sizeof *p);
    for (size_t i = 0; i < run->n_params; i++)
        p[i] = &run->params[i];
    qsort(p, run->n_params, sizeof *p, S_param_name_cmp);
    for (size_t i = 0; i < run->n_params; i++) {
        if (i)
            gm_buf_puts(b, ", ");
        gm_buf_puts(b, p[i]->name ? p[i]->name : "");
        gm_buf_putc(b, '=');
        S_value_text(b, &p[i]->value);
    }
    free(p);
}

/* Two runs of one file with the same key cannot be paired; a program's
 * kernels may share one (several launch configurations: S_pair_programs). */
static gm_status S_duplicates(const S_key *k, size_t n, const char *name, gm_error *err)
{
    for (size_t i = 1; i < n; i++) {
        if (!k[i].prog && S_key_cmp(&k[i - 1], &k[i]) == 0) {
            gm_buf pb = GM_BUF_INIT;
            gm_diff_params_text(&pb, k[i].run);
            gm_status s = gm_fail(err, GM_ERR_VALUE,
                                  "%s: runs[%zu] and runs[%zu] have the same experiment '%s', "
                                  "variant '%s' and parameters (%s): cannot pair them",
                                  name, k[i - 1].index, k[i].index,
                                  k[i].run->experiment ? k[i].run->experiment : "",
                                  k[i].run->variant ? k[i].run->variant : "",
                                  pb.data ? pb.data : "");
            gm_buf_free(&pb);
            return s;
        }
    }
    return GM_OK;
}

int gm_diff_run_key_cmp(const gm_run *a, const gm_run *b)
{
    gm_results ra = {0}, rb = {0};
    ra.runs = (gm_run *)a, ra.n_runs = 1;
    rb.runs = (gm_run *)b, rb.n_runs = 1;
    S_key *ka = S_keys(&ra, NULL, 0, NULL, false, NULL, 0);
    S_key *kb = S_keys(&rb, NULL, 0, NULL, false, NULL, 0);
    int c = S_key_cmp(&ka[0], &kb[0]);
    S_keys_free(ka, 1);
    S_keys_free(kb, 1);
    return c;
}

gm_status gm_diff_check_file(const gm_results *r, const char *name, gm_error *err)
{
    S_key *k = S_keys(r, NULL, 0, NULL, false, NULL, 0);
    gm_status st = S_duplicates(k, r->n_runs, name ? name : "base", err);
    S_keys_free(k, r->n_runs);
    return st;
}

/* ======================================================================== */
/* Judging rows                                                             */
/* ======================================================================== */

typedef struct {
    gm_diff *d;
    size_t cap;
    const gm_diff_options *opts;
} S_ctx;

static gm_diff_row *S_row(S_ctx *c, gm_diff_status st, const gm_run *b, const gm_run *h)
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
static void S_threshold_for(const S_ctx *c, gm_diff_row *r, const char *metric)
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
        return fabs(h - b) > t->value * fabs(b);
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

static bool S_check_bad(const gm_run *r)
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

static void S_time_row(S_ctx *c, const gm_run *b, const gm_run *h)
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
static void S_time_alone(S_ctx *c, size_t t, size_t from, size_t to)
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
    if (rel > GM_DIFF_TIME_ALONE_REL && fabs(r->delta) > GM_DIFF_TIME_ALONE_MS) {
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

static void S_metric_rows(S_ctx *c, const gm_run *b, const gm_run *h)
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
            if (S_str_cmp(mb->unit, mh->unit) != 0) {
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

static void S_pair_runs(S_ctx *c, const gm_run *b, const gm_run *h)
{
    bool bb = S_check_bad(b), hb = S_check_bad(h);
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

/* Pair two runs (or, for a new or removed one, write its row), marking the
 * rows of a program's kernels. */
static void S_pair(S_ctx *c, const S_key *b, const S_key *h)
{
    size_t from = c->d->n_rows;
    S_pair_runs(c, b->run, h->run);
    for (size_t k = from; k < c->d->n_rows; k++)
        c->d->rows[k].program = b->prog;
    c->d->n_runs_paired++;
}

static void S_single_run(S_ctx *c, const gm_run *run, bool is_head);

static void S_single(S_ctx *c, const S_key *k, bool is_head)
{
    size_t from = c->d->n_rows;
    S_single_run(c, k->run, is_head);
    for (size_t r = from; r < c->d->n_rows; r++)
        c->d->rows[r].program = k->prog;
    if (is_head)
        c->d->n_runs_new++;
    else
        c->d->n_runs_removed++;
}

/* A program's kernel pairs by kernel and NVTX range, whatever its launch
 * configuration: the base and head runs of one kernel and range (b, nb; h,
 * nh, sorted by configuration, then first launch) pair where their
 * configurations agree, then the rest in order (a changed grid or block);
 * what is left is new or removed. */
static void S_pair_programs(S_ctx *c, const S_key *b, size_t nb, const S_key *h, size_t nh)
{
    bool *bu = gm_xcalloc(nb, sizeof *bu), *hu = gm_xcalloc(nh, sizeof *hu);
    for (size_t i = 0; i < nb; i++)
        for (size_t j = 0; j < nh && !bu[i]; j++)
            if (!hu[j] && S_launch_cmp(b[i].run, h[j].run) == 0) {
                S_pair(c, &b[i], &h[j]);
                bu[i] = hu[j] = true;
            }
    size_t j = 0;
    for (size_t i = 0; i < nb; i++) {
        if (bu[i])
            continue;
        while (j < nh && hu[j])
            j++;
        if (j == nh)
            break;
        S_pair(c, &b[i], &h[j]);
        bu[i] = hu[j] = true;
    }
    for (size_t i = 0; i < nb; i++)
        if (!bu[i])
            S_single(c, &b[i], false);
    for (size_t k = 0; k < nh; k++)
        if (!hu[k])
            S_single(c, &h[k], true);
    free(bu);
    free(hu);
}

static void S_single_run(S_ctx *c, const gm_run *run, bool is_head)
{
    gm_diff_row *r = S_row(c, is_head ? GM_DIFF_NEW : GM_DIFF_REMOVED,
                           is_head ? NULL : run, is_head ? run : NULL);
    if (is_head && S_check_bad(run)) {
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

/* ======================================================================== */
/* How the files were collected                                             */
/* ======================================================================== */

static void S_push(char ***list, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void S_push(char ***list, size_t *n, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    *list = gm_xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[(*n)++] = gm_xstrdup(tmp);
}

#define S_S(x) ((x) ? (x) : "(unknown)")

static bool S_in_list(char **l, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (S_str_cmp(l[i], s) == 0)
            return true;
    return false;
}

static void S_metric_set_diff(gm_diff *d, const gm_collection *b, const gm_collection *h)
{
    gm_buf only_b = GM_BUF_INIT, only_h = GM_BUF_INIT;
    size_t nb = 0, nh = 0;
    for (size_t i = 0; i < b->n_metrics; i++)
        if (!S_in_list(h->metrics, h->n_metrics, b->metrics[i])) {
            gm_buf_printf(&only_b, "%s%s", nb++ ? ", " : "", S_S(b->metrics[i]));
        }
    for (size_t i = 0; i < h->n_metrics; i++)
        if (!S_in_list(b->metrics, b->n_metrics, h->metrics[i])) {
            gm_buf_printf(&only_h, "%s%s", nh++ ? ", " : "", S_S(h->metrics[i]));
        }
    if (nb || nh)
        S_push(&d->reasons, &d->n_reasons,
               "metrics requested differ: %zu only in base%s%.200s%s, %zu only in head%s%.200s%s",
               nb, nb ? " (" : "", nb ? only_b.data : "", nb ? ")" : "",
               nh, nh ? " (" : "", nh ? only_h.data : "", nh ? ")" : "");
    gm_buf_free(&only_b);
    gm_buf_free(&only_h);
}

static void S_compare_files(gm_diff *d)
{
    const gm_results *b = d->base, *h = d->head;
    char ***R = &d->reasons, ***N = &d->notes;
    size_t *nr = &d->n_reasons, *nn = &d->n_notes;
    const gm_device *db = &b->device, *dh = &h->device;
    const gm_collection *cb = &b->collection, *ch = &h->collection;

    if (b->schema_version != h->schema_version)
        S_push(R, nr, "results schema: version %d vs %d", b->schema_version, h->schema_version);
    if (S_str_cmp(db->name, dh->name))
        S_push(R, nr, "GPU: '%s' vs '%s'", S_S(db->name), S_S(dh->name));
    if (S_str_cmp(db->chip, dh->chip))
        S_push(R, nr, "GPU chip: '%s' vs '%s'", S_S(db->chip), S_S(dh->chip));
    if (db->cc_major != dh->cc_major || db->cc_minor != dh->cc_minor)
        S_push(R, nr, "compute capability: %d.%d vs %d.%d", db->cc_major, db->cc_minor,
               dh->cc_major, dh->cc_minor);
    if (db->sm_count != dh->sm_count)
        S_push(R, nr, "SM count: %d vs %d", db->sm_count, dh->sm_count);
    if (db->memory_clock_khz != dh->memory_clock_khz)
        S_push(R, nr, "memory clock: %lld kHz vs %lld kHz", db->memory_clock_khz,
               dh->memory_clock_khz);
    if (db->memory_bus_width_bits != dh->memory_bus_width_bits)
        S_push(R, nr, "memory bus: %d bits vs %d bits", db->memory_bus_width_bits,
               dh->memory_bus_width_bits);
    if (S_str_cmp(db->driver_version, dh->driver_version))
        S_push(R, nr, "driver: %s vs %s", S_S(db->driver_version), S_S(dh->driver_version));
    if (db->cuda_driver_api != dh->cuda_driver_api)
        S_push(R, nr, "CUDA driver API: %d vs %d", db->cuda_driver_api, dh->cuda_driver_api);
    if (db->cupti_api != dh->cupti_api)
        S_push(R, nr, "CUPTI API: %lld vs %lld", db->cupti_api, dh->cupti_api);

    S_metric_set_diff(d, cb, ch);
    if (cb->cache_flush != ch->cache_flush)
        S_push(R, nr, "L2 flush before each profiled pass: %s vs %s",
               cb->cache_flush ? "yes" : "no", ch->cache_flush ? "yes" : "no");
    if (S_str_cmp(cb->clock_control, ch->clock_control))
        S_push(R, nr, "clock control: %s vs %s", S_S(cb->clock_control), S_S(ch->clock_control));
    if (S_str_cmp(cb->size_set, ch->size_set))
        S_push(R, nr, "size set: %s vs %s", S_S(cb->size_set), S_S(ch->size_set));
    if (S_str_cmp(cb->replay_mode, ch->replay_mode))
        S_push(R, nr, "replay mode: %s vs %s", S_S(cb->replay_mode), S_S(ch->replay_mode));
    if (S_str_cmp(cb->range_mode, ch->range_mode))
        S_push(R, nr, "range mode: %s vs %s", S_S(cb->range_mode), S_S(ch->range_mode));

    /* Differences that change how much the samples say, not what they measure. */
    if (db->cuda_runtime != dh->cuda_runtime)
        S_push(N, nn, "CUDA runtime: %d vs %d", db->cuda_runtime, dh->cuda_runtime);
    if (cb->timing_warmup != ch->timing_warmup)
        S_push(N, nn, "timing warm-up launches: %d vs %d", cb->timing_warmup, ch->timing_warmup);
    if (cb->timing_repetitions != ch->timing_repetitions)
        S_push(N, nn, "timed repetitions: %d vs %d", cb->timing_repetitions,
               ch->timing_repetitions);
    if (b->origin && strcmp(b->origin, "measured") != 0)
        S_push(N, nn, "base origin: %s", b->origin);
    if (h->origin && strcmp(h->origin, "measured") != 0)
        S_push(N, nn, "head origin: %s", h->origin);
    if (b->commit && h->commit && strcmp(b->commit, h->commit) == 0)
        S_push(N, nn, "base and head are the same commit");
}

/* ======================================================================== */
/* The comparison                                                           */
/* ======================================================================== */

static bool S_metric_known(const gm_results *r, const char *name)
{
    for (size_t i = 0; i < r->n_runs; i++)
        if (gm_run_metric(&r->runs[i], name))
            return true;
    for (size_t i = 0; i < r->collection.n_metrics; i++)
        if (S_str_cmp(r->collection.metrics[i], name) == 0)
            return true;
    return false;
}

static bool S_judged(gm_diff_status s)
{
    return s == GM_DIFF_REGRESSED || s == GM_DIFF_IMPROVED || s == GM_DIFF_CHANGED ||
           s == GM_DIFF_NOISE || s == GM_DIFF_UNCHANGED;
}

/* Every --threshold names a metric one of the files or the catalog knows, and
 * every --pair rule has both sides. */
static gm_status S_check_options(const gm_results *base, const gm_results *head,
                                 const gm_diff_options *opts, gm_error *err)
{
    for (size_t i = 0; i < opts->n_overrides; i++) {
        const char *m = opts->overrides[i].metric;
        bool known = strcmp(m, GM_DIFF_TIME) == 0 || gm_catalog_find(m) ||
                     S_metric_known(base, m) || S_metric_known(head, m);
        for (size_t k = 0; !known && k < gm_catalog_len; k++)
            known = strcmp(gm_catalog[k].label, m) == 0;
        if (!known)
            return gm_fail(err, GM_ERR_VALUE,
                           "--threshold: no metric '%s': give 'time', an ncu metric name "
                           "or a catalog label (gpumem-report list --metrics)", m);
    }

    for (size_t i = 0; i < opts->n_pairs; i++) {
        const gm_diff_pair *p = &opts->pairs[i];
        if (!p->from || !p->to || !*p->from || !*p->to)
            return gm_fail(err, GM_ERR_VALUE, "--pair: rule %zu is empty", i + 1);
    }
    return GM_OK;
}

/* The keys of both files' runs, base's renamed by the --pair rules; *kb and
 * *kh are set (the caller frees them) only when each file's runs can be told
 * apart and every rule renamed a run. */
static gm_status S_keys_checked(const gm_results *base, const gm_results *head,
                                const gm_diff_options *opts, const char *bname,
                                const char *hname, S_key **kb_out, S_key **kh_out,
                                gm_error *err)
{
    /* each file alone first: two runs with one name cannot be told apart */
    gm_status st = gm_diff_check_file(base, bname, err);
    if (st == GM_OK)
        st = gm_diff_check_file(head, hname, err);
    if (st != GM_OK)
        return st;
    size_t *hits = gm_xcalloc(opts->n_pairs ? opts->n_pairs : 1, sizeof *hits);
    S_key *kh = S_keys(head, NULL, 0, NULL, true, NULL, 0);
    S_key *kb = S_keys(base, opts->pairs, opts->n_pairs, hits, true, kh, head->n_runs);
    for (size_t i = 0; i < opts->n_pairs && st == GM_OK; i++)
        if (hits[i] == 0)
            st = gm_fail(err, GM_ERR_VALUE,
                         "--pair %s=%s: no run of %s is named '%s' (experiment/variant, or "
                         "variant; '*' matches any text)", opts->pairs[i].from,
                         opts->pairs[i].to, bname, opts->pairs[i].from);
    free(hits);
    if (st == GM_OK)
        st = S_duplicates(kb, base->n_runs, bname, err);
    if (st == GM_OK)
        st = S_duplicates(kh, head->n_runs, hname, err);
    if (st != GM_OK) {
        S_keys_free(kb, base->n_runs);
        S_keys_free(kh, head->n_runs);
        return st;
    }
    *kb_out = kb;
    *kh_out = kh;
    return GM_OK;
}

/* Both files' runs in key order (kb, nb; kh, nh), side by side: a key on one
 * side only is a new or removed run; equal keys pair, a program's kernels by
 * S_pair_programs. */
static void S_pair_keys(S_ctx *c, const S_key *kb, size_t nb, const S_key *kh, size_t nh)
{
    size_t i = 0, j = 0;
    while (i < nb || j < nh) {
        int cmp = i == nb ? 1 : j == nh ? -1 : S_key_cmp(&kb[i], &kh[j]);
        if (cmp < 0) {
            S_single(c, &kb[i++], false);
        } else if (cmp > 0) {
            S_single(c, &kh[j++], true);
        } else if (!kb[i].prog) {
            S_pair(c, &kb[i++], &kh[j++]);
        } else {
            size_t i2 = i, j2 = j;
            while (i2 < nb && S_key_cmp(&kb[i], &kb[i2]) == 0)
                i2++;
            while (j2 < nh && S_key_cmp(&kh[j], &kh[j2]) == 0)
                j2++;
            S_pair_programs(c, kb + i, i2 - i, kh + j, j2 - j);
            i = i2;
            j = j2;
        }
    }
}

/* Files collected differently, without --force: every judged row says what
 * it would be and is incomparable. */
static void S_mark_incomparable(gm_diff *d)
{
    for (size_t r = 0; r < d->n_rows; r++) {
        gm_diff_row *row = &d->rows[r];
        if (!S_judged(row->status))
            continue;
        snprintf(row->note, sizeof row->note, "collected differently; would be %s",
                 gm_diff_status_name(row->status));
        row->status = GM_DIFF_INCOMPARABLE;
    }
}

gm_status gm_diff_compute(const gm_results *base, const gm_results *head,
                          const gm_diff_options *opts, gm_diff *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    gm_diff_options none = {0};
    if (!opts)
        opts = &none;
    const char *bname = opts->base_name ? opts->base_name : "base";
    const char *hname = opts->head_name ? opts->head_name : "head";

    S_key *kb = NULL, *kh = NULL;
    gm_status st = S_check_options(base, head, opts, err);
    if (st == GM_OK)
        st = S_keys_checked(base, head, opts, bname, hname, &kb, &kh, err);
    if (st != GM_OK)
        return st;

    gm_diff *d = out;
    d->base = base;
    d->head = head;
    d->alpha = opts->alpha > 0.0 ? opts->alpha : 0.05;
    d->allow_missing = opts->allow_missing;
    d->n_pairs = opts->n_pairs;
    S_compare_files(d);
    d->comparable = d->n_reasons == 0;
    d->forced = !d->comparable && opts->force;

    S_ctx c = {d, 0, opts};
    S_pair_keys(&c, kb, base->n_runs, kh, head->n_runs);
    S_keys_free(kb, base->n_runs);
    S_keys_free(kh, head->n_runs);

    if (!d->comparable && !opts->force)
        S_mark_incomparable(d);
    gm_diff_sort_rows(d);
    for (size_t r = 0; r < d->n_rows; r++)
        d->counts[d->rows[r].status]++;
    return GM_OK;
}

void gm_diff_free(gm_diff *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_reasons; i++)
        free(d->reasons[i]);
    for (size_t i = 0; i < d->n_notes; i++)
        free(d->notes[i]);
    free(d->reasons);
    free(d->notes);
    free(d->rows);
    memset(d, 0, sizeof *d);
}

static size_t S_head_failed(const gm_diff *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_rows; i++)
        if (d->rows[i].status == GM_DIFF_FAILED && d->rows[i].head &&
            S_check_bad(d->rows[i].head))
            n++;
    return n;
}

bool gm_diff_has_regression(const gm_diff *d)
{
    return d->counts[GM_DIFF_REGRESSED] || S_head_failed(d) ||
           (d->n_runs_removed && !d->allow_missing) || d->n_runs_paired == 0;
}

char *gm_diff_gate_line(const gm_diff *d)
{
    gm_buf b = GM_BUF_INIT;
    size_t reg = d->counts[GM_DIFF_REGRESSED], bad = S_head_failed(d);
    bool fail = gm_diff_has_regression(d);
    if (!d->comparable && !d->forced)
        gm_buf_puts(&b, "not judged: base and head were collected differently");
    else
        gm_buf_puts(&b, fail ? "fail: " : "pass: ");
    if (d->comparable || d->forced) {
        size_t k = 0;
        if (reg) {
            gm_diff_group *g;
            size_t ng = gm_diff_groups(d, &g), nl = 0;
            bool layouts = false;
            for (size_t i = 0; i < ng; i++)
                if (g[i].status == GM_DIFF_REGRESSED) {
                    nl++;
                    layouts |= !g[i].program;
                }
            gm_diff_groups_free(g, ng);
            gm_buf_printf(&b, "%s%zu %s in %zu %s%s", k++ ? ", " : "", reg,
                          reg == 1 ? "regression" : "regressions", nl,
                          layouts ? "layout" : "kernel", nl == 1 ? "" : "s");
        }
        if (bad)
            gm_buf_printf(&b, "%s%zu %s in head", k++ ? ", " : "", bad,
                          bad == 1 ? "run failed validation" : "runs failed validation");
        if (d->n_runs_paired == 0)
            gm_buf_printf(&b, "%snothing paired (%zu runs in base, %zu in head)", k++ ? ", " : "",
                          d->base->n_runs, d->head->n_runs);
        if (d->n_runs_removed && d->n_runs_paired)
            gm_buf_printf(&b, "%s%zu of %zu runs missing from head%s", k++ ? ", " : "",
                          d->n_runs_removed, d->base->n_runs,
                          d->allow_missing ? " (accepted: --allow-missing)" : "");
        if (!fail && !d->n_runs_removed)
            gm_buf_printf(&b, "%sno regressions", k++ ? ", " : "");
        if (d->counts[GM_DIFF_IMPROVED])
            gm_buf_printf(&b, ", %zu %s", d->counts[GM_DIFF_IMPROVED],
                          d->counts[GM_DIFF_IMPROVED] == 1 ? "improvement" : "improvements");
        gm_buf_printf(&b, " (%zu runs paired", d->n_runs_paired);
        if (d->n_runs_new)
            gm_buf_printf(&b, ", %zu new", d->n_runs_new);
        gm_buf_putc(&b, ')');
    }
    return gm_buf_detach(&b);
}

char *gm_diff_verdict(const gm_diff *d)
{
    gm_buf b = GM_BUF_INIT;
    if (d->counts[GM_DIFF_REGRESSED] == 0)
        gm_buf_puts(&b, "no regressions");
    for (int s = 0; s < GM_DIFF_N_STATUS; s++) {
        size_t n = d->counts[s];
        if (n == 0)
            continue;
        if (b.len)
            gm_buf_puts(&b, ", ");
        gm_buf_printf(&b, "%zu %s", n, S_count_word[s][n != 1]);
    }
    if (d->n_rows == 0)
        gm_buf_puts(&b, ", nothing to compare");
    return gm_buf_detach(&b);
}
