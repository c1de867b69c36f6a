/* charts.c — the report's charts as chart specs (chart.h writes their gnuplot),
 * the gnuplot run that draws a page's charts (one run: gnuplot.c), and SVG
 * inlining for HTML.
 */
#include "charts.h"

#include "findings.h"   /* GM_FIND_PREDICATED */

#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/output.h"
#include "gnuplot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- what a chart plots --------------------------------------------------- */

typedef enum {
    Q_GBS,       /* effective bandwidth, GB/s */
    Q_TIME,      /* median time, ms */
    Q_LD_SPR,
    Q_ST_SPR,
    Q_LD_EFF,
    Q_ST_EFF,
    Q_DRAM_PCT,
    Q_DRAM_RD,   /* MiB */
    Q_DRAM_WR,   /* MiB */
    Q_SH_LD_WPI,
    Q_SH_ST_WPI,
    Q_SHARE      /* a program's kernel: its GPU time over all launches, ms; charted as a
                    % of the group's (S_bar_chart) */
} S_quantity;

/* shared wavefronts per instruction, or per request made (S_shared, below) */
static double S_q_shared(const gm_run *run, bool store);

/* What the report's bar and line charts draw of quantity q in run. */
static double S_q(const gm_run *run, S_quantity q)
{
    switch (q) {
    case Q_GBS: return gm_run_effective_gbs(run);
    case Q_TIME: return gm_run_median_ms(run);
    case Q_LD_SPR: return gm_run_metric_num(run, GM_M_LD_SPR);
    case Q_ST_SPR: return gm_run_metric_num(run, GM_M_ST_SPR);
    case Q_LD_EFF: return gm_run_metric_num(run, GM_M_LD_EFF);
    case Q_ST_EFF: return gm_run_metric_num(run, GM_M_ST_EFF);
    case Q_DRAM_PCT: return gm_run_metric_num(run, GM_M_DRAM_PCT);
    case Q_DRAM_RD: return gm_run_metric_num(run, GM_M_DRAM_RD) / (1024.0 * 1024.0);
    case Q_DRAM_WR: return gm_run_metric_num(run, GM_M_DRAM_WR) / (1024.0 * 1024.0);
    case Q_SH_LD_WPI: return S_q_shared(run, false);
    case Q_SH_ST_WPI: return S_q_shared(run, true);
    case Q_SHARE: return gm_run_total_ms(run);
    }
    return NAN;
}

/* The model's figure for a quantity it predicts; NaN for the others. */
static double S_q_pred(const gm_run *run, S_quantity q)
{
    switch (q) {
    case Q_LD_SPR: return gm_run_predicted_spr(run, false);
    case Q_ST_SPR: return gm_run_predicted_spr(run, true);
    case Q_SH_LD_WPI: return gm_run_predicted_shared_wpi(run, false);
    case Q_SH_ST_WPI: return gm_run_predicted_shared_wpi(run, true);
    default: return NAN;
    }
}

/* ---- ideals ---------------------------------------------------------------- */

/* A figure within 5 % of a power of two from 1 up, that power: a warp of
 * aligned W-byte accesses asks for W sectors a request (4 for 4-byte, 8 for
 * 8-byte, 16 for 16-byte), and averages over partly active warps land near. */
static double S_snap(double v)
{
    if (!(v > 0))
        return NAN;
    double p = fmax(1.0, exp2(round(log2(v))));
    return fabs(v - p) <= 0.05 * p ? p : v;
}

/* The sectors per request that would hold the bytes a request asks for, as
 * the findings reckon it (findings_internal.h, S_global): sectors per
 * request x the share of the fetched bytes used, the model's figures where
 * it predicted both, else the counters'; at least 1 sector; NaN unknown. */
static double S_spr_ideal(const gm_run *run, bool store)
{
    double pspr = gm_run_predicted_spr(run, store);
    double peff = gm_run_predicted(run, store ? GM_M_ST_EFF : GM_M_LD_EFF);
    double sec = gm_run_metric_num(run, store ? GM_M_ST_SECTORS : GM_M_LD_SECTORS);
    double req = gm_run_metric_num(run, store ? GM_M_ST_REQUESTS : GM_M_LD_REQUESTS);
    double spr = sec >= 0 && req > 0 ? sec / req
                                     : gm_run_metric_num(run, store ? GM_M_ST_SPR : GM_M_LD_SPR);
    double eff = gm_run_metric_num(run, store ? GM_M_ST_EFF : GM_M_LD_EFF);
    double ideal = NAN;
    if (isfinite(pspr) && pspr > 0 && isfinite(peff) && peff > 0)
        ideal = pspr * fmin(peff, 100.0) / 100.0;
    else if (isfinite(spr) && spr > 0 && isfinite(eff) && eff > 0)
        ideal = spr * fmin(eff, 100.0) / 100.0;
    return isfinite(ideal) ? S_snap(fmax(1.0, ideal)) : NAN;
}

/* A run's shared loads or stores as a chart draws them, against their
 * ideal, as the findings reckon it (findings_internal.h, S_shared).  The
 * ideal wavefronts per instruction are the model's wavefronts less its
 * conflicts, else the counters' (NVIDIA's conflict counter is wavefronts
 * less the ideal), else 1 (4-byte accesses); 2 for 8-byte, 4 for 16-byte
 * accesses.  Under GM_FIND_PREDICATED most instructions ran with every
 * thread predicated off and made no request: per instruction the figure
 * would sit under the ideal of a request, so the chart draws wavefronts per
 * request made (wavefronts / (wavefronts - conflicts)) against an ideal of
 * 1, as the finding's sentence counts them. */
typedef struct {
    double value;        /* wavefronts per instruction, or per request made */
    double ideal;        /* of the value */
    bool per_request;
} S_shw;

static S_shw S_shared(const gm_run *run, bool store)
{
    const char *nw = store ? GM_M_SH_ST_WAVES : GM_M_SH_LD_WAVES;
    const char *ni = store ? GM_M_SH_ST_INST : GM_M_SH_LD_INST;
    const char *nc = store ? GM_M_SH_ST_CONFL : GM_M_SH_LD_CONFL;
    S_shw f = {gm_run_shared_wpi(run, store), NAN, false};
    double waves = gm_run_metric_num(run, nw), inst = gm_run_metric_num(run, ni);
    if (!(isfinite(f.value) && waves >= 0))
        return f;
    double pw = gm_run_predicted(run, nw), pc = gm_run_predicted(run, nc);
    double pi = gm_run_predicted(run, ni), c = gm_run_metric_num(run, nc);
    double ideal = 1.0;
    if (pw >= 0 && pc >= 0 && pw - pc > 0 && pi > 0)
        ideal = (pw - pc) / pi;
    else if (isfinite(c) && c >= 0 && waves - c > 0)
        ideal = (waves - c) / inst;
    if (ideal < GM_FIND_PREDICATED) {
        f.value = waves / (inst * ideal);
        f.ideal = 1.0;
        f.per_request = true;
    } else {
        f.ideal = S_snap(ideal);
    }
    return f;
}

static double S_q_shared(const gm_run *run, bool store)
{
    return S_shared(run, store).value;
}

/* The measured figure the model predicts (per instruction, as the model's
 * figure is), for the chart of the two. */
static double S_q_measured(const gm_run *run, S_quantity q)
{
    if (q == Q_SH_LD_WPI || q == Q_SH_ST_WPI)
        return gm_run_shared_wpi(run, q == Q_SH_ST_WPI);
    return S_q(run, q);
}

/* Quantity q's ideal in run: the best its access pattern allows; NaN for a
 * quantity without one, or where it is unknown. */
static double S_q_ideal(const gm_run *run, S_quantity q)
{
    switch (q) {
    case Q_LD_SPR: return S_spr_ideal(run, false);
    case Q_ST_SPR: return S_spr_ideal(run, true);
    case Q_SH_LD_WPI: return S_shared(run, false).ideal;
    case Q_SH_ST_WPI: return S_shared(run, true).ideal;
    default: return NAN;
    }
}

static bool S_any(const gm_run *const *runs, size_t n, S_quantity q)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(S_q(runs[i], q)))
            return true;
    return false;
}

/* A label from the catalog ("ld sectors/req"), so the charts and the tables agree. */
static const char *S_label(const char *metric, const char *fallback)
{
    const gm_metric_info *m = gm_catalog_find(metric);
    return m ? m->label : fallback;
}

static const char *S_q_label(S_quantity q)
{
    switch (q) {
    case Q_GBS: return "effective bandwidth";
    case Q_TIME: return "median time";
    case Q_LD_SPR: return S_label(GM_M_LD_SPR, "ld sectors/req");
    case Q_ST_SPR: return S_label(GM_M_ST_SPR, "st sectors/req");
    case Q_LD_EFF: return S_label(GM_M_LD_EFF, "ld efficiency");
    case Q_ST_EFF: return S_label(GM_M_ST_EFF, "st efficiency");
    case Q_DRAM_PCT: return S_label(GM_M_DRAM_PCT, "DRAM % peak");
    case Q_DRAM_RD: return S_label(GM_M_DRAM_RD, "DRAM read");
    case Q_DRAM_WR: return S_label(GM_M_DRAM_WR, "DRAM written");
    case Q_SH_LD_WPI: return "shared ld wavefronts/inst";
    case Q_SH_ST_WPI: return "shared st wavefronts/inst";
    case Q_SHARE: return "share of the GPU time";
    }
    return "";
}

/* One family of charts: what it shows, in which unit, with which guides. */
typedef struct {
    const char *what;        /* chart title after the experiment's */
    const char *ylabel;
    S_quantity q[2];         /* up to two quantities side by side (ld, st) */
    int nq;
    bool from_zero;          /* y axis starts at 0 */
    bool pct;                /* y axis to at least 100 */
    double ideal;            /* the ideal where no run tells its own (S_q_ideal); NaN: none */
    const char *ideal_label;
} S_family;

#define S_MAX_FAMILIES 5

/* The chart families that apply to these runs, in report order. */
static int S_families(const gm_results *r, const gm_experiment *e, const gm_run *const *runs,
                      size_t n, S_family *f, double *copy_gbs)
{
    int k = 0;
    *copy_gbs = NAN;
    bool program = n > 0;
    for (size_t i = 0; i < n; i++)
        program = program && gm_run_is_program(runs[i]);
    if (program && S_any(runs, n, Q_SHARE)) {
        /* a program's kernels do different work: where its time goes, not who is fastest */
        f[k++] = (S_family){"share of the GPU time", "% of the profiled kernels' time",
                            {Q_SHARE, Q_SHARE}, 1, true, false, NAN, NULL};
    } else if (e->bandwidth_bound && S_any(runs, n, Q_GBS)) {
        f[k++] = (S_family){"effective bandwidth", "GB/s (10^9 B/s)", {Q_GBS, Q_GBS}, 1, true,
                            false, NAN, NULL};
        *copy_gbs = gm_results_ceiling_gbs(r, NULL);
    } else if (S_any(runs, n, Q_TIME)) {
        f[k++] = (S_family){"median kernel time", "ms", {Q_TIME, Q_TIME}, 1, true, false, NAN,
                            NULL};
    }
    S_family spr = {"sectors per request", "sectors/request", {Q_LD_SPR, Q_ST_SPR}, 0, true,
                    false, 4.0, "ideal for 4-byte accesses: 4"};
    S_family eff = {"global memory efficiency", "% of fetched bytes used", {Q_LD_EFF, Q_ST_EFF},
                    0, true, true, NAN, NULL};
    S_family dram = {"DRAM throughput", "% of peak", {Q_DRAM_PCT, Q_DRAM_PCT}, 0, true, true,
                     NAN, NULL};
    S_family dramb = {"DRAM traffic", "MiB", {Q_DRAM_RD, Q_DRAM_WR}, 0, true, false, NAN, NULL};
    S_family sh = {"shared-memory wavefronts per instruction", "wavefronts/instruction",
                   {Q_SH_LD_WPI, Q_SH_ST_WPI}, 0, true, false, 1.0,
                   "ideal: 1 (no bank conflict)"};
    S_family *cand[] = {&spr, &eff, &dram, &sh};
    bool have_spr = false;
    for (size_t c = 0; c < sizeof cand / sizeof cand[0]; c++) {
        S_family *x = cand[c];
        /* efficiency is sectors per request seen from the other side (useful
         * bytes over fetched bytes): its chart would repeat the one before;
         * the tables keep the figure */
        if (x == &eff && have_spr)
            continue;
        S_family *use = x;
        S_quantity qs[2] = {x->q[0], x->q[1]};
        int nq = 0;
        S_quantity keep[2];
        for (int i = 0; i < 2; i++) {
            if (i == 1 && qs[1] == qs[0])
                break;
            if (S_any(runs, n, qs[i]))
                keep[nq++] = qs[i];
        }
        if (nq == 0 && x == &dram) {
            /* no % of peak measured: show the bytes instead */
            use = &dramb;
            for (int i = 0; i < 2; i++)
                if (S_any(runs, n, dramb.q[i]))
                    keep[nq++] = dramb.q[i];
        }
        if (nq == 0)
            continue;
        have_spr |= x == &spr;
        f[k] = *use;
        f[k].q[0] = keep[0];
        f[k].q[1] = nq > 1 ? keep[1] : keep[0];
        f[k].nq = nq;
        k++;
    }
    for (int i = 0; i < k; i++)
        if (f[i].nq == 0)
            f[i].nq = 1;
    return k;
}

/* How the runs' figures of shared quantity q are drawn: per instruction
 * (0), per request made (1), some each way (2); -1: not a shared quantity,
 * or no value. */
static int S_shared_mode(const gm_run *const *runs, size_t n, S_quantity q)
{
    if (q != Q_SH_LD_WPI && q != Q_SH_ST_WPI)
        return -1;
    bool inst = false, req = false;
    for (size_t i = 0; i < n; i++) {
        S_shw f = S_shared(runs[i], q == Q_SH_ST_WPI);
        if (isfinite(f.value)) {
            req |= f.per_request;
            inst |= !f.per_request;
        }
    }
    return req ? (inst ? 2 : 1) : (inst ? 0 : -1);
}

/* The shared family's title and axis where some figures are per request
 * made (S_shared). */
static void S_shared_words(S_family *f, const gm_run *const *runs, size_t n)
{
    int m[2] = {S_shared_mode(runs, n, f->q[0]), S_shared_mode(runs, n, f->q[1])};
    bool req = m[0] >= 1 || m[1] >= 1;
    bool inst = m[0] == 0 || m[0] == 2 || m[1] == 0 || m[1] == 2;
    if (!req)
        return;
    f->what = inst ? "shared-memory wavefronts per instruction or request made"
                   : "shared-memory wavefronts per request made";
    f->ylabel = inst ? "wavefronts/instruction or request" : "wavefronts/request";
}

/* A bar's legend entry: the quantity's label, or the shared figure's unit. */
static const char *S_bar_label(S_quantity q, const gm_run *const *runs, size_t n)
{
    bool st = q == Q_SH_ST_WPI;
    switch (S_shared_mode(runs, n, q)) {
    case 1: return st ? "shared st wavefronts/request made" : "shared ld wavefronts/request made";
    case 2: return st ? "shared st wavefronts/inst or request made"
                      : "shared ld wavefronts/inst or request made";
    default: return S_q_label(q);
    }
}

/* ---- chart specs ----------------------------------------------------------- */

#define S_MAX_LABEL 48   /* a legend entry's room: chart.c cuts a longer one */
#define S_MAX_BARS 24

static void S_add_chart(gm_charts *c, size_t section, const char *title,
                        const gm_chart_spec *spec)
{
    char name[32];
    snprintf(name, sizeof name, "chart-%02zu", c->n + 1);
    gm_charts_add(c, section, name, title, spec);
}

static void S_title(gm_buf *b, const gm_experiment *e, const char *what, const char *at)
{
    const char *t = e->title ? e->title : (e->id ? e->id : "");
    gm_buf_printf(b, "%s: %s", t, what);
    if (at && *at)
        gm_buf_printf(b, " (%s)", at);
}

/* The title drawn in the chart: what it shows, without the experiment's
 * title (the section's heading, the figure's caption and the SVG's <title>
 * give that), so that it fits the canvas in the chart's type size. */
static char *S_drawn_title(const char *what, const char *at)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, what);
    if (at && *at)
        gm_buf_printf(&b, " (%s)", at);
    return gm_buf_detach(&b);
}

/* Reference lines after the data: the measured ceiling (attainable, else copy bandwidth) and the ideal. */
static void S_refs(gm_chart_spec *spec, const S_family *f, double copy_gbs)
{
    if (f->q[0] == Q_GBS && isfinite(copy_gbs)) {
        gm_buf tmp = GM_BUF_INIT;
        gm_buf_puts(&tmp, "measured ceiling: ");
        gm_fmt_num(&tmp, copy_gbs, 4);
        gm_buf_puts(&tmp, " GB/s");
        gm_chart_add_ref(spec, GM_REF_CEILING, false, copy_gbs, tmp.data);
        gm_buf_free(&tmp);
    }
}

/* An ideal's legend entry: "ideal for 8-byte accesses: 8" (a warp of W-byte
 * accesses asks for W sectors a request: 4, 8 or 16; fewer sectors may be a
 * partial warp as well as narrower accesses, so they are the bytes asked
 * for), "ideal: 1 (no bank conflict)". */
static void S_ideal_label(gm_buf *b, S_quantity q, double v)
{
    gm_buf num = GM_BUF_INIT;
    gm_fmt_general(&num, v, 3);
    if (q == Q_SH_LD_WPI || q == Q_SH_ST_WPI)
        gm_buf_printf(b, "ideal: %s (no bank conflict)", num.data);
    else if (v == 4 || v == 8 || v == 16)
        gm_buf_printf(b, "ideal for %s-byte accesses: %s", num.data, num.data);
    else
        gm_buf_printf(b, "ideal for the bytes asked: %s", num.data);
    gm_buf_free(&num);
}

/* Each point's ideal, series by series: ideal[k][i] for point i of series k. */
typedef struct {
    double **v;
    size_t n;
} S_ideals;

static void S_ideals_free(S_ideals *d)
{
    for (size_t k = 0; k < d->n; k++)
        free(d->v[k]);
    free(d->v);
}

/* The ideal of every bar or line drawn: one line where they all agree (or,
 * where no run tells its own, the family's assumed one); else a tick across
 * each bar at its own ideal, or a line at each line's own (dotted along it
 * where it changes along the sweep). */
static void S_ideal_marks(gm_chart_spec *spec, const S_family *f, const S_quantity *q,
                          const S_ideals *d)
{
    double first = NAN;
    bool agree = true;
    size_t nmain = d->n;
    for (size_t k = 0; k < nmain; k++)
        for (size_t i = 0; i < spec->s[k].n; i++) {
            double v = d->v[k][i];
            if (!isfinite(v) || !isfinite(spec->s[k].p[i].y))
                continue;
            if (!isfinite(first))
                first = v;
            agree = agree && v == first;
        }
    if (!isfinite(first)) {
        if (isfinite(f->ideal))
            gm_chart_add_ref(spec, GM_REF_IDEAL, false, f->ideal, f->ideal_label);
        return;
    }
    gm_buf lab = GM_BUF_INIT;
    if (agree) {
        S_ideal_label(&lab, q[0], first);
        gm_chart_add_ref(spec, GM_REF_IDEAL, false, first, lab.data);
        gm_buf_free(&lab);
        return;
    }
    if (spec->kind != GM_CHART_LINES) {
        for (size_t k = 0; k < nmain; k++) {
            gm_chart_series *t = gm_chart_series_add(
                spec, GM_SERIES_TICK,
                k ? NULL : "each bar's own ideal");
            t->over = k;
            for (size_t i = 0; i < spec->s[k].n; i++)
                gm_chart_put(t, spec->s[k].p[i].x,
                             isfinite(spec->s[k].p[i].y) ? d->v[k][i] : NAN);
        }
        return;
    }
    /* lines: a level per distinct ideal of the lines that keep theirs along
     * the sweep, in order; a dotted line along each other */
    double *levels = gm_xmalloc((nmain + 1) * sizeof *levels);
    size_t nlev = 0;
    for (size_t k = 0; k < nmain; k++) {
        double c = NAN;
        bool flat = true;
        for (size_t i = 0; i < spec->s[k].n; i++) {
            double v = d->v[k][i];
            if (!isfinite(v) || !isfinite(spec->s[k].p[i].y))
                continue;
            if (!isfinite(c))
                c = v;
            flat = flat && v == c;
        }
        if (!isfinite(c))
            continue;
        if (flat) {
            bool seen = false;
            for (size_t j = 0; j < nlev && !seen; j++)
                seen = levels[j] == c;
            if (!seen)
                levels[nlev++] = c;
            continue;
        }
        /* a line whose ideals are another's, point for point, joins its name */
        gm_chart_series *same = NULL;
        for (size_t j = nmain; j < spec->n_s && !same; j++) {
            const gm_chart_series *o = &spec->s[j];
            bool eq = o->kind == GM_SERIES_TICK && o->n == spec->s[k].n;
            for (size_t i = 0; eq && i < o->n; i++) {
                double a = o->p[i].y, b = d->v[k][i];
                eq = o->p[i].x == spec->s[k].p[i].x &&
                     ((!isfinite(a) && !isfinite(b)) || fabs(a - b) <= 1e-9 * fabs(a));
            }
            if (eq)
                same = &spec->s[j];
        }
        if (same) {
            lab.len = 0;
            gm_buf_printf(&lab, "%s, %s", same->name, spec->s[k].name ? spec->s[k].name : "");
            free(same->name);
            same->name = gm_xstrdup(lab.data);
            continue;
        }
        lab.len = 0;
        gm_buf_printf(&lab, "ideal of %s", spec->s[k].name ? spec->s[k].name : "");
        gm_chart_series *t = gm_chart_series_add(spec, GM_SERIES_TICK, lab.data);
        t->over = k;
        for (size_t i = 0; i < spec->s[k].n; i++)
            gm_chart_put(t, spec->s[k].p[i].x, d->v[k][i]);
    }
    /* one level: its legend entry says it; several: one entry for them
     * all, and each says which it is on the line */
    bool shared = q[0] == Q_SH_LD_WPI || q[0] == Q_SH_ST_WPI;
    for (size_t j = 0; j < nlev; j++) {
        lab.len = 0;
        S_ideal_label(&lab, q[0], levels[j]);
        if (nlev == 1) {
            gm_chart_add_ref(spec, GM_REF_IDEAL, false, levels[j], lab.data);
            continue;
        }
        gm_chart_ref *r = gm_chart_add_ref(
            spec, GM_REF_IDEAL, false, levels[j],
            j ? NULL : shared ? "ideals (no bank conflict)" : "ideals (the bytes asked for)");
        /* on the line: "16-byte accesses: 16" ("ideal for ..." less its
         * first words), a shared one's figure */
        gm_buf note = GM_BUF_INIT;
        if (shared)
            gm_fmt_general(&note, levels[j], 3);
        else
            gm_buf_puts(&note, strncmp(lab.data, "ideal for ", 10) == 0 ? lab.data + 10
                                                                        : lab.data);
        gm_chart_ref_note(r, note.data);
        gm_buf_free(&note);
    }
    free(levels);
    gm_buf_free(&lab);
}

static void S_yrange(gm_chart_spec *spec, const S_family *f, bool logy)
{
    if (logy) {
        spec->v.log = 10;
        spec->v.min = NAN;
    } else if (!f->pct && !f->from_zero) {
        spec->v.min = NAN;
    }
    /* else from zero (gm_chart_init's) to where the data ends: a DRAM that
     * runs at 2% of its peak shows its 2% on the axis, not a flat line at
     * the bottom */
}

/* The bars' categories, one per run (those `keep` marks; NULL: all), named
 * by what tells the runs apart among all n. */
static void S_run_cats(gm_chart_spec *spec, const gm_run *const *runs, size_t n,
                       const bool *keep)
{
    gm_vary vary;
    gm_vary_build(runs, n, &vary);
    gm_buf lab = GM_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (keep && !keep[i])
            continue;
        lab.len = 0;
        gm_buf_puts(&lab, "");
        gm_vary_case_label(&vary, runs[i], NULL, &lab);
        gm_chart_cat(spec, lab.data);
    }
    gm_buf_free(&lab);
    gm_vary_free(&vary);
}

/* Bars: the runs of the comparison group side by side, one or two quantities each. */
static void S_bar_chart(gm_charts *c, size_t si, const gm_section *s, const S_family *fam,
                        double copy_gbs, const char *at)
{
    size_t n = s->n_group;
    /* stores that equal the loads run for run: one bar each, labelled so */
    S_family one = *fam;
    const S_family *f = &one;
    bool same = one.nq == 2;
    for (size_t i = 0; i < n && same; i++) {
        double y0 = S_q(s->group[i], one.q[0]), y1 = S_q(s->group[i], one.q[1]);
        same = (!isfinite(y0) && !isfinite(y1)) || fabs(y0 - y1) <= 1e-9 * fabs(y0);
    }
    if (same)
        one.nq = 1;
    S_shared_words(&one, s->group, n);
    gm_buf title = GM_BUF_INIT;
    S_title(&title, s->exp, f->what, at);
    char *drawn = S_drawn_title(f->what, at);
    gm_chart_spec spec;
    gm_chart_init(&spec, GM_CHART_BARS, drawn);
    free(drawn);
    gm_axis_label(&spec.v, f->ylabel);
    /* the runs with a figure to draw (no empty row for a kernel without
     * shared memory), named as among the whole group */
    bool *keep = gm_xcalloc(n + 1, sizeof *keep);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < f->nq; k++)
            keep[i] |= isfinite(S_q(s->group[i], f->q[k]));
    S_run_cats(&spec, s->group, n, keep);
    S_yrange(&spec, f, false);

    /* a value per run and quantity, and min/max when the quantity is time */
    double share_total = 0;
    for (size_t i = 0; i < n && f->q[0] == Q_SHARE; i++)
        if (isfinite(S_q(s->group[i], Q_SHARE)))
            share_total += S_q(s->group[i], Q_SHARE);
    S_ideals ideals = {gm_xcalloc(2, sizeof *ideals.v), (size_t)f->nq};
    for (int k = 0; k < f->nq; k++) {
        gm_buf lab = GM_BUF_INIT;
        gm_buf_printf(&lab, "%s%s", S_bar_label(f->q[k], s->group, n), same ? " (st alike)" : "");
        gm_chart_series *ser = gm_chart_series_add(&spec, GM_SERIES_MAIN, lab.data);
        gm_buf_free(&lab);
        ser->color = k;
        /* min-max of the repetitions as whiskers */
        if (f->q[0] == Q_TIME)
            ser->range_name = gm_xstrdup("min-max of the repetitions");
        ideals.v[k] = gm_xcalloc(n + 1, sizeof *ideals.v[k]);
        for (size_t i = 0; i < n; i++) {
            if (!keep[i])
                continue;
            double v = S_q(s->group[i], f->q[k]);
            if (f->q[k] == Q_SHARE)
                v = share_total > 0 ? 100.0 * v / share_total : NAN;
            ideals.v[k][ser->n] = S_q_ideal(s->group[i], f->q[k]);
            gm_chart_point *p = gm_chart_put(ser, (double)ser->n, v);
            if (f->q[0] == Q_TIME) {
                p->lo = s->group[i]->timing.min;
                p->hi = s->group[i]->timing.max;
            }
        }
    }
    free(keep);
    S_refs(&spec, f, copy_gbs);
    S_ideal_marks(&spec, f, f->q, &ideals);
    S_ideals_free(&ideals);
    S_add_chart(c, si, title.data, &spec);
    gm_chart_free(&spec);
    gm_buf_free(&title);
}


/* "2^20" for powers of two from 2^14 on a log2 axis (shorter than the digits), else the number. */
static void S_tic_label(gm_buf *b, double x, bool log2x)
{
    if (log2x && x >= 16384 && x == floor(x)) {
        int e = (int)llround(log2(x));
        if (ldexp(1.0, e) == x) {
            gm_buf_printf(b, "2^%d", e);
            return;
        }
    }
    gm_buf tmp = GM_BUF_INIT;
    gm_fmt_value(&tmp, &(gm_value){.kind = GM_V_REAL, .r = x});
    gm_buf_puts(b, tmp.data);
    gm_buf_free(&tmp);
}

/* Does every point of series (a, qa) lie on series (b, qb): a run of b at the
 * same value of p with the same value (within 1e-9 relative)?  Points with
 * no value, or none a log axis can draw, are not points. */
static bool S_series_within(const gm_sweep_line *a, S_quantity qa, const gm_sweep_line *b,
                            S_quantity qb, const char *p, bool logy)
{
    for (size_t i = 0; i < a->n; i++) {
        double y = S_q(a->runs[i], qa);
        if (!isfinite(y) || (logy && !(y > 0)))
            continue;
        double x = gm_value_num(&gm_run_param(a->runs[i], p)->value);
        bool on = false;
        for (size_t j = 0; j < b->n && !on; j++) {
            double yb = S_q(b->runs[j], qb);
            on = gm_value_num(&gm_run_param(b->runs[j], p)->value) == x && isfinite(yb) &&
                 fabs(y - yb) <= 1e-9 * fabs(y);
        }
        if (!on)
            return false;
    }
    return true;
}

static void S_line_chart(gm_charts *c, size_t si, const gm_section *s, const S_family *fam,
                         double copy_gbs, const gm_sweep_plan *sw, const char *at)
{
    S_family words = *fam;
    const S_family *f = &words;
    S_shared_words(&words, sw->runs, sw->n_runs);
    const gm_sweep_line *lines = sw->lines;
    size_t nl = sw->n_lines, nflat = sw->n_flat, nsweep = sw->n_runs;
    const gm_run *const *flat = sw->flat, *const *sweep_runs = sw->runs;
    const char *p = s->exp->sweep_param;
    bool log2x = s->exp->sweep_log2;
    /* distinct x values, for the tics and to know whether log2 is possible */
    double *xs = gm_xmalloc((nsweep + 1) * sizeof *xs);
    size_t nx = 0;
    for (size_t i = 0; i < nsweep; i++) {
        double x = gm_value_num(&gm_run_param(sweep_runs[i], p)->value);
        bool seen = false;
        for (size_t j = 0; j < nx && !seen; j++)
            seen = xs[j] == x;
        if (!seen)
            xs[nx++] = x;
        if (!(x > 0))
            log2x = false;
    }
    /* time along a size sweep spans decades: log y when max/min > 30 */
    bool logy = false;
    if (f->q[0] == Q_TIME) {
        double lo = INFINITY, hi = 0;
        for (size_t i = 0; i < nsweep; i++) {
            double t = gm_run_median_ms(sweep_runs[i]);
            if (t > 0) {
                lo = fmin(lo, t);
                hi = fmax(hi, t);
            }
        }
        logy = hi > 30 * lo;
    }

    gm_buf title = GM_BUF_INIT;
    gm_buf what = GM_BUF_INIT;
    gm_buf_printf(&what, "%s by %s", f->what, p);
    S_title(&title, s->exp, what.data, at);
    char *drawn = S_drawn_title(what.data, at);
    gm_buf_free(&what);
    gm_chart_spec spec;
    gm_chart_init(&spec, GM_CHART_LINES, drawn);
    free(drawn);
    gm_axis_label(&spec.v, f->ylabel);
    gm_axis_label(&spec.x, p);
    if (log2x)
        spec.x.log = 2;
    if (nx <= 12) {
        /* tics at the measured points, sorted */
        for (size_t i = 1; i < nx; i++)
            for (size_t j = i; j > 0 && xs[j - 1] > xs[j]; j--) {
                double t = xs[j];
                xs[j] = xs[j - 1];
                xs[j - 1] = t;
            }
        for (size_t i = 0; i < nx; i++) {
            gm_buf tl = GM_BUF_INIT;
            S_tic_label(&tl, xs[i], log2x);
            gm_axis_tic(&spec.x, xs[i], tl.data);
            gm_buf_free(&tl);
        }
    } else if (log2x) {
        spec.x.step = 2;
        spec.x.num = GM_AXIS_NUM_INT;
    }
    S_yrange(&spec, f, logy);
    free(xs);

    /* The series to draw, (line, quantity) in order: a series with no value
     * draws nothing; stores that follow the loads point for point are one
     * line ("ld = st"); and a series whose every point lies on an earlier
     * series (same x, same value) is drawn as that series, its name added to
     * the earlier one's legend entry, so that coinciding layouts (the tiled
     * matmuls at 4.0 sectors per request) are one line, not five on top of
     * each other. */
    size_t ns = nl * (size_t)f->nq;
    int *rep = gm_xmalloc((ns + 1) * sizeof *rep);   /* -1: not drawn; else its series */
    bool *both = gm_xcalloc(nl + 1, sizeof *both);
    for (size_t l = 0; l < nl; l++) {
        bool same = f->nq == 2;
        for (size_t i = 0; i < lines[l].n && same; i++) {
            double y0 = S_q(lines[l].runs[i], f->q[0]), y1 = S_q(lines[l].runs[i], f->q[1]);
            same = (!isfinite(y0) && !isfinite(y1)) || fabs(y0 - y1) <= 1e-9 * fabs(y0);
        }
        both[l] = same;
        for (int k = 0; k < f->nq; k++) {
            size_t sid = l * (size_t)f->nq + (size_t)k;
            bool any = false;
            for (size_t i = 0; i < lines[l].n && !any; i++) {
                double y = S_q(lines[l].runs[i], f->q[k]);
                any = isfinite(y) && !(logy && !(y > 0));
            }
            rep[sid] = any && !(same && k == 1) ? (int)sid : -1;
            for (size_t e = 0; e < sid && rep[sid] == (int)sid; e++)
                if (rep[e] == (int)e &&
                    S_series_within(&lines[l], f->q[k], &lines[e / (size_t)f->nq],
                                    f->q[e % (size_t)f->nq], p, logy))
                    rep[sid] = (int)e;
        }
    }
    gm_buf lab = GM_BUF_INIT;
    S_ideals ideals = {gm_xcalloc(ns + 1, sizeof *ideals.v), 0};
    for (size_t sid = 0; sid < ns; sid++) {
        if (rep[sid] != (int)sid)
            continue;
        size_t l = sid / (size_t)f->nq;
        int k = (int)(sid % (size_t)f->nq);
        lab.len = 0;
        gm_buf_puts(&lab, "");
        /* the names that fit in a legend entry, then how many more */
        size_t nn = 0;
        for (size_t o = sid; o < ns; o++)
            nn += rep[o] == (int)sid;
        char **names = gm_xcalloc(nn, sizeof *names);
        nn = 0;
        for (size_t o = sid; o < ns; o++) {
            if (rep[o] != (int)sid)
                continue;
            size_t ol = o / (size_t)f->nq;
            int ok = (int)(o % (size_t)f->nq);
            gm_buf one = GM_BUF_INIT;
            gm_buf_puts(&one, "");
            gm_runs_case_label(sweep_runs, nsweep, lines[ol].runs[0], p, &one);
            if (f->nq == 2)
                gm_buf_puts(&one, both[ol] ? " ld = st" : ok == 0 ? " ld" : " st");
            names[nn++] = gm_buf_detach(&one);
        }
        size_t named = 0;
        for (; named < nn; named++) {
            /* the next name, and room for " and 99 more alike" unless it is the last */
            size_t want = lab.len + (named ? 2 : 0) + strlen(names[named]) +
                          (named + 1 < nn ? 18 : 0);
            if (named && want > S_MAX_LABEL)
                break;
            gm_buf_puts(&lab, named ? ", " : "");
            gm_buf_puts(&lab, names[named]);
        }
        if (named < nn)
            gm_buf_printf(&lab, " and %zu more alike", nn - named);
        for (size_t i = 0; i < nn; i++)
            free(names[i]);
        free(names);
        /* its points: those of the line's runs with a value of some
         * quantity (a point with none, a run too long to profile, say,
         * would stretch the x axis past the data) */
        gm_chart_series *ser = gm_chart_series_add(&spec, GM_SERIES_MAIN, lab.data);
        ser->dashed = k == 1;
        ideals.v[ideals.n] = gm_xcalloc(lines[l].n + 1, sizeof *ideals.v[ideals.n]);
        double *idl = ideals.v[ideals.n++];
        for (size_t i = 0; i < lines[l].n; i++) {
            const gm_run *run = lines[l].runs[i];
            bool any = false;
            for (int q = 0; q < f->nq && !any; q++) {
                double y = S_q(run, f->q[q]);
                any = isfinite(y) && !(logy && !(y > 0));
            }
            if (!any)
                continue;
            double y = S_q(run, f->q[k]);
            idl[ser->n] = S_q_ideal(run, f->q[k]);
            gm_chart_put(ser, gm_value_num(&gm_run_param(run, p)->value),
                         logy && !(y > 0) ? NAN : y);
        }
    }
    free(rep);
    free(both);
    /* runs without the swept parameter: constant lines across the sweep */
    for (size_t i = 0; i < nflat; i++) {
        double y = S_q(flat[i], f->q[0]);
        if (!isfinite(y) || (logy && !(y > 0)))
            continue;
        lab.len = 0;
        gm_buf_puts(&lab, "");
        gm_runs_case_label(s->runs, s->n_runs, flat[i], NULL, &lab);
        /* in the palette's next colour after the lines */
        gm_chart_add_ref(&spec, GM_REF_LEVEL, false, y, lab.data);
    }
    gm_buf_free(&lab);
    S_refs(&spec, f, copy_gbs);
    S_ideal_marks(&spec, f, f->q, &ideals);
    S_ideals_free(&ideals);
    S_add_chart(c, si, title.data, &spec);
    gm_chart_free(&spec);
    gm_buf_free(&title);
}

/* Measured against predicted: per run of the comparison group that has a
 * prediction, the measured sectors per request and wavefronts per instruction
 * as bars, the model's figure for each as a marker on the bar's centre line.
 * A quantity is drawn when some run has both figures. */
static void S_pred_chart(gm_charts *c, size_t si, const gm_section *s, const char *at)
{
    static const S_quantity qs[] = {Q_LD_SPR, Q_ST_SPR, Q_SH_LD_WPI, Q_SH_ST_WPI};
    const gm_run **runs = gm_xcalloc(s->n_group + 1, sizeof *runs);
    size_t n = 0;
    for (size_t i = 0; i < s->n_group && n < S_MAX_BARS; i++)
        if (gm_run_has_prediction(s->group[i]))
            runs[n++] = s->group[i];
    S_quantity use[4];
    int nq = 0;
    bool spr = false, wpi = false;
    /* Only the quantities the model misses by more than 1% on some run: where
     * it agrees, the bars would sit under their markers and repeat the chart
     * of measured values (the text says the model agrees).  One unit per
     * axis: sectors per request or wavefronts per instruction, whichever the
     * model misses by more. */
    double miss_spr = 0, miss_wpi = 0, miss[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
        for (size_t i = 0; i < n; i++) {
            double m = S_q_measured(runs[i], qs[k]), p = S_q_pred(runs[i], qs[k]);
            if (isfinite(m) && isfinite(p) && m > 0 && fabs(m - p) / m > miss[k])
                miss[k] = fabs(m - p) / m;
        }
        bool is_spr = qs[k] == Q_LD_SPR || qs[k] == Q_ST_SPR;
        if (is_spr && miss[k] > miss_spr)
            miss_spr = miss[k];
        if (!is_spr && miss[k] > miss_wpi)
            miss_wpi = miss[k];
    }
    for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
        bool is_spr = qs[k] == Q_LD_SPR || qs[k] == Q_ST_SPR;
        if (miss[k] <= 0.01 || (is_spr ? miss_wpi > miss_spr : miss_spr >= miss_wpi))
            continue;
        use[nq++] = qs[k];
        spr |= is_spr;
        wpi |= !is_spr;
    }
    /* runs with none of the chosen quantities (no shared memory, say) draw no bar */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        bool any = false;
        for (int k = 0; k < nq && !any; k++)
            any = isfinite(S_q_measured(runs[i], use[k]));
        if (any)
            runs[kept++] = runs[i];
    }
    n = kept;
    if (!nq || !n) {
        free((void *)runs);
        return;
    }
    gm_buf title = GM_BUF_INIT;
    S_title(&title, s->exp, "measured vs predicted", at);
    char *drawn = S_drawn_title("measured vs predicted", at);
    gm_chart_spec spec;
    gm_chart_init(&spec, GM_CHART_BARS, drawn);
    free(drawn);
    gm_axis_label(&spec.v, spr && wpi ? "sectors/request, wavefronts/instruction"
                           : spr      ? "sectors/request"
                                      : "wavefronts/instruction");
    S_run_cats(&spec, runs, n, NULL);
    /* the measured figures as bars, then the predicted ones as markers on them */
    for (int k = 0; k < nq; k++) {
        gm_chart_series *ser = gm_chart_series_add(&spec, GM_SERIES_MAIN, S_q_label(use[k]));
        ser->color = k;
        for (size_t i = 0; i < n; i++)
            gm_chart_put(ser, (double)i, S_q_measured(runs[i], use[k]));
    }
    for (int k = 0; k < nq; k++) {
        gm_chart_series *ser = gm_chart_series_add(
            &spec, GM_SERIES_MARK, k == 0 ? "predicted (address-trace model)" : NULL);
        ser->over = (size_t)k;
        for (size_t i = 0; i < n; i++)
            gm_chart_put(ser, (double)i, S_q_pred(runs[i], use[k]));
    }
    S_add_chart(c, si, title.data, &spec);
    gm_chart_free(&spec);
    gm_buf_free(&title);
    free((void *)runs);
}

/* More lines than a reader tells apart: a sweep split by a second parameter
 * (`series_param`) into this many lines or more is drawn at one value of it. */
#define S_MAX_LINES 7

/* The value of the series parameter the charts keep: the one the question's
 * point names (contrast_at), else the one with the most runs on lines (the
 * larger of equals).  False when there is none to choose. */
static bool S_series_pick(const gm_section *s, const gm_sweep_plan *sw, gm_buf *val)
{
    const char *p = s->exp->series_param;
    if (!p || !sw->n_lines)
        return false;
    const char *at = s->exp->contrast_at;
    size_t pl = strlen(p);
    for (const char *q = at; q && *q;) {
        const char *e = strchr(q, ',');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        if (len > pl && strncmp(q, p, pl) == 0 && q[pl] == '=') {
            gm_buf_put(val, q + pl + 1, len - pl - 1);
            return true;
        }
        q += len + (e ? 1 : 0);
    }
    size_t best = 0;
    double best_v = -INFINITY;
    for (size_t l = 0; l < sw->n_lines; l++) {
        const gm_param *x = gm_run_param(sw->lines[l].runs[0], p);
        if (!x)
            continue;
        gm_buf v = GM_BUF_INIT;
        gm_fmt_value(&v, &x->value);
        size_t count = 0;
        for (size_t m = 0; m < sw->n_lines; m++) {
            const gm_param *y = gm_run_param(sw->lines[m].runs[0], p);
            gm_buf w = GM_BUF_INIT;
            if (y)
                gm_fmt_value(&w, &y->value);
            if (y && strcmp(v.data, w.data) == 0)
                count += sw->lines[m].n;
            gm_buf_free(&w);
        }
        double num = gm_value_num(&x->value);
        if (count > best || (count == best && num > best_v)) {
            best = count;
            best_v = num;
            val->len = 0;
            gm_buf_puts(val, v.data);
        }
        gm_buf_free(&v);
    }
    return best > 0;
}

static void S_plan_sweep(const gm_results *r, gm_charts *c, size_t si, const gm_section *s)
{
    gm_sweep_plan sw;
    gm_section_sweep(s, &sw);
    /* too many lines: those at one value of the series parameter (the table
     * has every run) */
    gm_sweep_plan one = sw;
    gm_buf val = GM_BUF_INIT, at = GM_BUF_INIT;
    gm_buf_puts(&at, "");
    bool cut = sw.n_lines >= S_MAX_LINES && S_series_pick(s, &sw, &val);
    if (cut) {
        const char *p = s->exp->series_param;
        one.lines = gm_xcalloc(sw.n_lines, sizeof *one.lines);
        one.runs = gm_xcalloc(sw.n_runs + 1, sizeof *one.runs);
        one.n_lines = one.n_runs = 0;
        for (size_t l = 0; l < sw.n_lines; l++) {
            const gm_param *x = gm_run_param(sw.lines[l].runs[0], p);
            gm_buf v = GM_BUF_INIT;
            if (x)
                gm_fmt_value(&v, &x->value);
            if (x && strcmp(v.data, val.data) == 0) {
                one.lines[one.n_lines++] = sw.lines[l];
                for (size_t i = 0; i < sw.lines[l].n; i++)
                    one.runs[one.n_runs++] = sw.lines[l].runs[i];
            }
            gm_buf_free(&v);
        }
        gm_buf_printf(&at, "%s=%s", p, val.data);
        cut = one.n_lines > 0;
        if (!cut) {
            free(one.lines);
            free((void *)one.runs);
            one = sw;
        }
    }
    S_family f[S_MAX_FAMILIES];
    double copy_gbs;
    int k = S_families(r, s->exp, one.runs, one.n_runs, f, &copy_gbs);
    for (int i = 0; i < k; i++)
        S_line_chart(c, si, s, &f[i], copy_gbs, &one, cut ? at.data : NULL);
    if (cut) {
        free(one.lines);
        free((void *)one.runs);
    }
    gm_buf_free(&val);
    gm_buf_free(&at);
    gm_sweep_plan_free(&sw);
}

void gm_charts_plan(const gm_results *r, const gm_sections *s, gm_charts *out)
{
    out->v = NULL;
    out->n = 0;
    for (size_t si = 0; si < s->n; si++) {
        const gm_section *sec = &s->v[si];
        gm_buf at = GM_BUF_INIT;
        gm_section_group_label(sec, &at);
        if (sec->n_group >= 2 && sec->n_group <= S_MAX_BARS) {
            S_family f[S_MAX_FAMILIES];
            double copy_gbs;
            int k = S_families(r, sec->exp, sec->group, sec->n_group, f, &copy_gbs);
            /* with a sweep, the line charts show the other quantities run by
             * run; the bars keep the one comparison a reader looks for first */
            bool speed = k > 0 && (f[0].q[0] == Q_GBS || f[0].q[0] == Q_TIME);
            int nbars = sec->has_sweep ? (speed ? 1 : 0) : k;
            for (int i = 0; i < nbars; i++)
                S_bar_chart(out, si, sec, &f[i], copy_gbs, at.data);
        }
        if (sec->has_sweep)
            S_plan_sweep(r, out, si, sec);
        S_pred_chart(out, si, sec, at.data);
        gm_buf_free(&at);
    }
}

/* ---- running gnuplot ------------------------------------------------------ */

/* Read chart i's SVG from dir; false when gnuplot did not write it. */
static bool S_read_svg(const char *dir, gm_chart *ch)
{
    gm_buf f = GM_BUF_INIT;
    gm_buf_printf(&f, "%s/%s.svg", dir, ch->name);
    free(ch->svg);
    ch->svg = NULL;
    bool ok = gm_file_read(f.data, &ch->svg, NULL) == GM_OK;
    unlink(f.data);
    gm_buf_free(&f);
    return ok;
}

gm_status gm_charts_draw(gm_charts *c, const char *gnuplot, gm_error *err)
{
    return gm_charts_draw_within(c, gnuplot, GM_GNUPLOT_TIMEOUT_S, err);
}

gm_status gm_charts_draw_within(gm_charts *c, const char *gnuplot, double timeout_s,
                                gm_error *err)
{
    if (c->n == 0)
        return GM_OK;
    if (!gnuplot || !*gnuplot)
        gnuplot = "gnuplot";

    /* a private folder (output.h: held while it exists, removed by the signal
     * handler with the files named here, or at the next render when this
     * process was killed outright) */
    gm_tmpdir td;
    if (gm_tmpdir_make(&td, "gpumem-report-charts", err) != GM_OK)
        return err ? err->status : GM_ERR_IO;
    const char *dir = td.path;
    gm_tmpdir_expect(&td, "gnuplot.log");
    for (size_t i = 0; i < c->n; i++) {
        gm_buf svg = GM_BUF_INIT;
        gm_buf_printf(&svg, "%s.svg", c->v[i].name);
        gm_tmpdir_expect(&td, svg.data);
        gm_buf_free(&svg);
    }

    gm_status st = GM_OK;
    char *script = NULL, *prog = NULL;
    char excerpt[600];
    /* gnuplot runs in the private directory (outputs are relative to it), so a
     * relative program path has to be made absolute first. */
    if (strchr(gnuplot, '/') && gnuplot[0] != '/') {
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd)) {
            st = gm_fail(err, GM_ERR_IO, "getcwd: %s", strerror(errno));
            goto done;
        }
        prog = gm_path_join(cwd, gnuplot);
    } else {
        prog = gm_xstrdup(gnuplot);
    }

    /* All charts in one run; when it fails, each chart alone, so that one
     * chart gnuplot cannot draw costs that chart only (c->v[i].failed). */
    script = gm_charts_script(c);
    gm_gp_result res = gm_gnuplot_run(dir, prog, gnuplot, script, timeout_s, excerpt,
                                      sizeof excerpt, err);
    if (res == GM_GP_FATAL) {
        st = err ? err->status : GM_ERR_GNUPLOT;
        goto done;
    }
    bool all_read = res == GM_GP_OK;
    for (size_t i = 0; i < c->n && all_read; i++)
        all_read = S_read_svg(dir, &c->v[i]);
    if (all_read)
        goto done;
    size_t n_failed = 0;
    for (size_t i = 0; i < c->n; i++) {
        gm_charts one = {&c->v[i], 1};
        free(script);
        script = gm_charts_script(&one);
        res = gm_gnuplot_run(dir, prog, gnuplot, script, timeout_s, excerpt, sizeof excerpt, err);
        if (res == GM_GP_FATAL) {
            st = err ? err->status : GM_ERR_GNUPLOT;
            goto done;
        }
        if (res == GM_GP_OK && S_read_svg(dir, &c->v[i]))
            continue;
        free(c->v[i].failed);
        gm_buf fb = GM_BUF_INIT;
        gm_buf_printf(&fb, "%s", res == GM_GP_OK ? "gnuplot wrote no SVG" : excerpt);
        c->v[i].failed = gm_buf_detach(&fb);
        free(c->v[i].svg);
        c->v[i].svg = NULL;
        n_failed++;
    }
    if (n_failed == c->n) {
        /* nothing could be drawn: gnuplot itself is broken, not one chart */
        st = gm_fail(err, GM_ERR_GNUPLOT, "gnuplot '%s' failed on every chart (%s)", gnuplot,
                     c->v[0].failed ? c->v[0].failed : "no message");
        for (size_t i = 0; i < c->n; i++) {
            free(c->v[i].failed);
            c->v[i].failed = NULL;
        }
    }
done:
    gm_tmpdir_remove(&td);
    free(script);
    free(prog);
    return st;
}

/* ---- SVG inlining --------------------------------------------------------- */

static bool S_starts(const char *p, const char *prefix)
{
    return strncmp(p, prefix, strlen(prefix)) == 0;
}

void gm_svg_inline(gm_buf *b, const char *svg, const char *prefix, const char *title)
{
    const char *p = svg;
    bool titled = false;
    while (*p) {
        /* one line at a time: drop the XML declaration and blank lines */
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        const char *q = p;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q == end || S_starts(q, "<?xml")) {
            p = eol ? eol + 1 : end;
            continue;
        }
        /* namespace declarations: implied for <svg> inside HTML */
        if (S_starts(q, "xmlns")) {
            const char *v = strchr(q, '"');
            const char *v2 = v ? strchr(v + 1, '"') : NULL;
            if (v2 && v2 < end) {
                q = v2 + 1;
                while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
                    q++;
                if (q == end) {
                    p = eol ? eol + 1 : end;
                    continue;
                }
            }
        }
        if (!titled && S_starts(q, "<title>")) {
            const char *close = strstr(q, "</title>");
            if (close && close < end) {
                gm_buf_puts(b, "<title>");
                gm_esc_html(b, title);
                gm_buf_puts(b, "</title>");
                gm_buf_put(b, close + 8, (size_t)(end - (close + 8)));
                gm_buf_putc(b, '\n');
                titled = true;
                p = eol ? eol + 1 : end;
                continue;
            }
        }
        /* copy the line; inside tags, prefix ids and references to them */
        bool in_tag = false;
        for (const char *c = p; c < end; c++) {
            if (*c == '<')
                in_tag = true;
            else if (*c == '>')
                in_tag = false;
            if (in_tag) {
                bool ws = c > p && (c[-1] == ' ' || c[-1] == '\t');
                if (ws && (S_starts(c, "id=\"") || S_starts(c, "id='"))) {
                    gm_buf_put(b, c, 4);
                    gm_buf_printf(b, "%s-", prefix);
                    c += 3;
                    continue;
                }
                if (S_starts(c, "href=\"#") || S_starts(c, "href='#")) {
                    gm_buf_put(b, c, 7);
                    gm_buf_printf(b, "%s-", prefix);
                    c += 6;
                    continue;
                }
                if (S_starts(c, "url(#")) {
                    gm_buf_put(b, c, 5);
                    gm_buf_printf(b, "%s-", prefix);
                    c += 4;
                    continue;
                }
            }
            gm_buf_putc(b, *c);
        }
        gm_buf_putc(b, '\n');
        p = eol ? eol + 1 : end;
    }
}
