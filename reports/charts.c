/* charts.c — the report's analysis (which runs compare), its charts as gnuplot
 * scripts, the gnuplot run that draws them (one run: gnuplot.c), and SVG
 * inlining for HTML.
 */
#include "charts.h"

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
    case Q_SH_LD_WPI: return gm_run_shared_wpi(run, false);
    case Q_SH_ST_WPI: return gm_run_shared_wpi(run, true);
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
    double ideal;            /* guide line, NaN for none */
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

/* ---- chart scripts -------------------------------------------------------- */

/* Okabe–Ito colours: distinguishable with the common colour-vision deficiencies. */
static const char *const S_colors[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                       "#56B4E9", "#D55E00", "#000000", "#F0E442"};
#define S_NCOLORS 8
#define S_MAX_LABEL 48
#define S_MAX_TITLE 110
#define S_MAX_BARS 24

/* A label for gnuplot: quoted and escaped, cut to max bytes (UTF-8 sequences
 * are not split). */
static void S_gp_text(gm_buf *b, const char *s, size_t max)
{
    size_t n = strlen(s ? s : "");
    if (n <= max) {
        gm_esc_gnuplot(b, s);
        return;
    }
    size_t cut = max - 3;
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--;
    char *t = gm_xmalloc(cut + 4);
    memcpy(t, s, cut);
    memcpy(t + cut, "...", 4);
    gm_esc_gnuplot(b, t);
    free(t);
}

static void S_gp_label(gm_buf *b, const char *s)
{
    S_gp_text(b, s, S_MAX_LABEL);
}

static void S_gp_num(gm_buf *b, double v)
{
    if (isfinite(v))
        gm_buf_printf(b, "%.17g", v);
    else
        gm_buf_puts(b, "NaN");
}

/* The SVG terminal: 800 px wide, `height` tall (a chart with upright labels
 * under its bars is taller, so that its plot keeps its room). */
#define S_TERMINAL "set terminal svg size 800,%d dynamic enhanced font 'sans,15' " \
                   "background '#ffffff'\nset termoption noenhanced\n"
#define S_HEIGHT 480
#define S_HEIGHT_TALL 640

static void S_chart_head(gm_buf *b, const char *title, const char *ylabel, int height)
{
    gm_buf_printf(b, S_TERMINAL, height);
    gm_buf_puts(b, "reset\nset title ");
    S_gp_text(b, title, S_MAX_TITLE);
    gm_buf_puts(b, " noenhanced\nset ylabel ");
    gm_esc_gnuplot(b, ylabel);
    gm_buf_puts(b, " noenhanced\n"
                   "set key noenhanced below center horizontal samplen 2\n"
                   "set grid ytics lt 1 lc rgb '#d9d9d9' lw 1 dt 1\n"
                   "set border 3\n"
                   "set tics nomirror\n");
}

static void S_add_chart(gm_charts *c, size_t section, const char *title, gm_buf *script)
{
    c->v = gm_xrealloc(c->v, (c->n + 1) * sizeof *c->v);
    gm_chart *ch = &c->v[c->n];
    memset(ch, 0, sizeof *ch);
    char name[32];
    snprintf(name, sizeof name, "chart-%02zu", c->n + 1);
    ch->section = section;
    ch->name = gm_xstrdup(name);
    ch->title = gm_xstrdup(title);
    ch->script = gm_buf_detach(script);
    c->n++;
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
static void S_refs(gm_buf *b, const S_family *f, double copy_gbs)
{
    if (f->q[0] == Q_GBS && isfinite(copy_gbs)) {
        gm_buf tmp = GM_BUF_INIT;
        gm_buf_puts(&tmp, "measured ceiling: ");
        gm_fmt_num(&tmp, copy_gbs, 4);
        gm_buf_puts(&tmp, " GB/s");
        gm_buf_puts(b, ", ");
        S_gp_num(b, copy_gbs);
        gm_buf_puts(b, " with lines dt 2 lw 2 lc rgb '#555555' title ");
        gm_esc_gnuplot(b, tmp.data);
        gm_buf_puts(b, " noenhanced");
        gm_buf_free(&tmp);
    }
    if (isfinite(f->ideal)) {
        gm_buf_puts(b, ", ");
        S_gp_num(b, f->ideal);
        gm_buf_puts(b, " with lines dt 3 lw 2 lc rgb '#009E73' title ");
        gm_esc_gnuplot(b, f->ideal_label);
        gm_buf_puts(b, " noenhanced");
    }
}

static void S_yrange(gm_buf *b, const S_family *f, bool logy)
{
    if (logy)
        gm_buf_puts(b, "set logscale y 10\nset yrange [*:*]\n");
    else if (f->pct || f->from_zero)
        /* from zero to where the data ends: a DRAM that runs at 2% of its
         * peak shows its 2% on the axis, not a flat line at the bottom */
        gm_buf_puts(b, "set yrange [0:*]\n");
}

/* Bars whose labels stand upright: many, or a long one. */
static bool S_long_labels(const gm_run *const *runs, size_t n)
{
    bool long_labels = n > 4;
    gm_vary vary;
    gm_vary_build(runs, n, &vary);
    gm_buf lab = GM_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        lab.len = 0;
        gm_buf_puts(&lab, "");
        gm_vary_case_label(&vary, runs[i], NULL, &lab);
        long_labels |= lab.len > 12;
    }
    gm_buf_free(&lab);
    gm_vary_free(&vary);
    return long_labels;
}

/* x tics for bars, one per run at x = 0, 1, ..., labelled with what tells the
 * runs apart (upright when long or many), and the x range around them. */
static void S_run_xtics(gm_buf *b, const gm_run *const *runs, size_t n)
{
    bool long_labels = S_long_labels(runs, n);
    gm_vary vary;
    gm_vary_build(runs, n, &vary);
    gm_buf lab = GM_BUF_INIT;
    gm_buf_puts(b, "set xtics noenhanced");
    /* long labels stand upright under their bar: tilted, the first would run
     * off the left edge and many would overlap */
    if (long_labels)
        gm_buf_puts(b, " rotate by 90 right");
    gm_buf_puts(b, " (");
    for (size_t i = 0; i < n; i++) {
        lab.len = 0;
        gm_buf_puts(&lab, "");
        gm_vary_case_label(&vary, runs[i], NULL, &lab);
        gm_buf_puts(b, i ? ", " : "");
        S_gp_label(b, lab.data);
        gm_buf_printf(b, " %zu", i);
    }
    gm_buf_free(&lab);
    gm_vary_free(&vary);
    gm_buf_printf(b, ")\nset xrange [-0.6:%zu.6]\n", n - 1);
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
    gm_buf title = GM_BUF_INIT, b = GM_BUF_INIT;
    S_title(&title, s->exp, f->what, at);
    char *drawn = S_drawn_title(f->what, at);
    S_chart_head(&b, drawn, f->ylabel,
                 S_long_labels(s->group, n) ? S_HEIGHT_TALL : S_HEIGHT);
    free(drawn);
    size_t id = c->n + 1;

    S_run_xtics(&b, s->group, n);
    S_yrange(&b, f, false);
    gm_buf_puts(&b, "set style fill solid 0.85 border rgb '#333333'\n");
    double w = f->nq == 2 ? 0.38 : 0.7;
    gm_buf_printf(&b, "set boxwidth %.2f absolute\n", w);

    /* data: x, value per quantity, and min/max when the quantity is time */
    double share_total = 0;
    for (size_t i = 0; i < n && f->q[0] == Q_SHARE; i++)
        if (isfinite(S_q(s->group[i], Q_SHARE)))
            share_total += S_q(s->group[i], Q_SHARE);
    gm_buf_printf(&b, "$c%zu << EOD\n", id);
    for (size_t i = 0; i < n; i++) {
        gm_buf_printf(&b, "%zu", i);
        for (int k = 0; k < f->nq; k++) {
            gm_buf_putc(&b, ' ');
            double v = S_q(s->group[i], f->q[k]);
            S_gp_num(&b, f->q[k] == Q_SHARE ? (share_total > 0 ? 100.0 * v / share_total : NAN)
                                            : v);
        }
        if (f->q[0] == Q_TIME) {
            gm_buf_putc(&b, ' ');
            S_gp_num(&b, s->group[i]->timing.min);
            gm_buf_putc(&b, ' ');
            S_gp_num(&b, s->group[i]->timing.max);
        }
        gm_buf_putc(&b, '\n');
    }
    gm_buf_puts(&b, "EOD\nplot ");
    for (int k = 0; k < f->nq; k++) {
        double off = f->nq == 2 ? (k == 0 ? -0.2 : 0.2) : 0;
        gm_buf_printf(&b, "%s$c%zu using ($1%+.2f):%d with boxes lc rgb '%s' title ", k ? ", " : "",
                      id, off, 2 + k, S_colors[k]);
        gm_buf lab = GM_BUF_INIT;
        gm_buf_printf(&lab, "%s%s", S_q_label(f->q[k]), same ? " (st alike)" : "");
        gm_esc_gnuplot(&b, lab.data);
        gm_buf_free(&lab);
        gm_buf_puts(&b, " noenhanced");
    }
    if (f->q[0] == Q_TIME)
        /* min-max as capped vectors: the errorbar styles draw a white point
         * over the bar top */
        gm_buf_printf(&b, ", $c%zu using 1:3:(0):($4-$3) with vectors heads size screen "
                          "0.008,90 lw 1.5 lc rgb '#333333' "
                          "title 'min-max of the repetitions' noenhanced", id);
    S_refs(&b, f, copy_gbs);
    gm_buf_puts(&b, "\n");
    S_add_chart(c, si, title.data, &b);
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

static void S_line_chart(gm_charts *c, size_t si, const gm_section *s, const S_family *f,
                         double copy_gbs, const gm_sweep_plan *sw, const char *at)
{
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

    gm_buf title = GM_BUF_INIT, b = GM_BUF_INIT;
    gm_buf what = GM_BUF_INIT;
    gm_buf_printf(&what, "%s by %s", f->what, p);
    S_title(&title, s->exp, what.data, at);
    char *drawn = S_drawn_title(what.data, at);
    gm_buf_free(&what);
    S_chart_head(&b, drawn, f->ylabel, S_HEIGHT);
    free(drawn);
    size_t id = c->n + 1;
    gm_buf_puts(&b, "set xlabel ");
    gm_esc_gnuplot(&b, p);
    gm_buf_puts(&b, log2x ? " noenhanced\nset logscale x 2\n" : " noenhanced\n");
    if (nx <= 12) {
        /* tics at the measured points, sorted */
        for (size_t i = 1; i < nx; i++)
            for (size_t j = i; j > 0 && xs[j - 1] > xs[j]; j--) {
                double t = xs[j];
                xs[j] = xs[j - 1];
                xs[j - 1] = t;
            }
        gm_buf_puts(&b, "set xtics noenhanced (");
        for (size_t i = 0; i < nx; i++) {
            gm_buf tl = GM_BUF_INIT;
            S_tic_label(&tl, xs[i], log2x);
            gm_buf_puts(&b, i ? ", " : "");
            gm_esc_gnuplot(&b, tl.data);
            gm_buf_putc(&b, ' ');
            S_gp_num(&b, xs[i]);
            gm_buf_free(&tl);
        }
        gm_buf_puts(&b, ")\n");
        if (nx > 6)
            gm_buf_puts(&b, "set xtics noenhanced rotate by 30 right\n");
    } else if (log2x) {
        gm_buf_puts(&b, "set xtics noenhanced 2\nset format x '%.0f'\n");
    }
    /* the x axis spans the data (not the next round tic), a little room each side */
    gm_buf_puts(&b, "set autoscale xfix\nset offsets graph 0.03, graph 0.03, 0, 0\n");
    S_yrange(&b, f, logy);
    free(xs);

    /* one data block per line: x then each quantity */
    for (size_t l = 0; l < nl; l++) {
        gm_buf_printf(&b, "$c%zu_%zu << EOD\n", id, l);
        for (size_t i = 0; i < lines[l].n; i++) {
            const gm_run *run = lines[l].runs[i];
            /* a point with no value of any quantity (a run too long to
             * profile, say) would stretch the x axis past the data */
            bool any = false;
            for (int k = 0; k < f->nq && !any; k++) {
                double y = S_q(run, f->q[k]);
                any = isfinite(y) && !(logy && !(y > 0));
            }
            if (!any)
                continue;
            S_gp_num(&b, gm_value_num(&gm_run_param(run, p)->value));
            for (int k = 0; k < f->nq; k++) {
                gm_buf_putc(&b, ' ');
                double y = S_q(run, f->q[k]);
                S_gp_num(&b, logy && !(y > 0) ? NAN : y);
            }
            gm_buf_putc(&b, '\n');
        }
        gm_buf_puts(&b, "EOD\n");
    }
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
    gm_buf_puts(&b, "plot ");
    int style = 0;
    gm_buf lab = GM_BUF_INIT;
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
        /* past the palette, the colours come again with other markers */
        gm_buf_printf(&b, "%s$c%zu_%zu using 1:%d with linespoints lt %d%s%s title ",
                      style ? ", " : "", id, l, 2 + k, style % S_NCOLORS + 1,
                      k == 1 ? " dt 2" : "", style >= S_NCOLORS ? " pt 2" : "");
        S_gp_label(&b, lab.data);
        gm_buf_puts(&b, " noenhanced");
        style++;
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
        gm_buf_puts(&b, ", ");
        S_gp_num(&b, y);
        gm_buf_printf(&b, " with lines dt 4 lw 2 lc rgb '%s' title ",
                      S_colors[style++ % S_NCOLORS]);
        S_gp_label(&b, lab.data);
        gm_buf_puts(&b, " noenhanced");
    }
    gm_buf_free(&lab);
    S_refs(&b, f, copy_gbs);
    gm_buf_puts(&b, "\n");
    S_add_chart(c, si, title.data, &b);
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
            double m = S_q(runs[i], qs[k]), p = S_q_pred(runs[i], qs[k]);
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
            any = isfinite(S_q(runs[i], use[k]));
        if (any)
            runs[kept++] = runs[i];
    }
    n = kept;
    if (!nq || !n) {
        free((void *)runs);
        return;
    }
    gm_buf title = GM_BUF_INIT, b = GM_BUF_INIT;
    S_title(&title, s->exp, "measured vs predicted", at);
    char *drawn = S_drawn_title("measured vs predicted", at);
    S_chart_head(&b, drawn,
                 spr && wpi ? "sectors/request, wavefronts/instruction"
                 : spr      ? "sectors/request"
                            : "wavefronts/instruction",
                 S_long_labels(runs, n) ? S_HEIGHT_TALL : S_HEIGHT);
    free(drawn);
    size_t id = c->n + 1;
    S_run_xtics(&b, runs, n);
    gm_buf_puts(&b, "set yrange [0:*]\n");
    gm_buf_puts(&b, "set style fill solid 0.85 border rgb '#333333'\n");
    double w = 0.8 / nq;
    gm_buf_printf(&b, "set boxwidth %.3f absolute\n", w);
    /* data: x, then measured and predicted per quantity */
    gm_buf_printf(&b, "$c%zu << EOD\n", id);
    for (size_t i = 0; i < n; i++) {
        gm_buf_printf(&b, "%zu", i);
        for (int k = 0; k < nq; k++) {
            gm_buf_putc(&b, ' ');
            S_gp_num(&b, S_q(runs[i], use[k]));
            gm_buf_putc(&b, ' ');
            S_gp_num(&b, S_q_pred(runs[i], use[k]));
        }
        gm_buf_putc(&b, '\n');
    }
    gm_buf_puts(&b, "EOD\nplot ");
    for (int k = 0; k < nq; k++) {
        double off = (k - (nq - 1) / 2.0) * w;
        gm_buf_printf(&b, "%s$c%zu using ($1%+.3f):%d with boxes lc rgb '%s' title ", k ? ", " : "",
                      id, off, 2 + 2 * k, S_colors[k]);
        gm_esc_gnuplot(&b, S_q_label(use[k]));
        gm_buf_puts(&b, " noenhanced");
    }
    for (int k = 0; k < nq; k++) {
        double off = (k - (nq - 1) / 2.0) * w;
        gm_buf_printf(&b, ", $c%zu using ($1%+.3f):%d with points pt 9 ps 1.8 lc rgb '#000000' ",
                      id, off, 3 + 2 * k);
        if (k == 0)
            gm_buf_puts(&b, "title 'predicted (address-trace model)' noenhanced");
        else
            gm_buf_puts(&b, "notitle");
    }
    gm_buf_puts(&b, "\n");
    S_add_chart(c, si, title.data, &b);
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

void gm_charts_free(gm_charts *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].name);
        free(c->v[i].title);
        free(c->v[i].script);
        free(c->v[i].svg);
        free(c->v[i].failed);
    }
    free(c->v);
    c->v = NULL;
    c->n = 0;
}

char *gm_charts_script(const gm_charts *c)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "# gpumem-report: every chart of one report, drawn by one gnuplot run.\n"
                    "# Text from the results is in single quotes (no substitution) and noenhanced.\n"
                    "set encoding utf8\n"
                    /* the default for charts that set no terminal of their own
                     * (history's, diff's); the report's set theirs (S_chart_head) */
                    "set terminal svg size 800,480 dynamic enhanced font 'sans,13' "
                    "background '#ffffff'\n"
                    "set termoption noenhanced\n");
    for (int i = 0; i < S_NCOLORS; i++)
        gm_buf_printf(&b, "set linetype %d lc rgb '%s' lw 2 pt %d ps 0.8\n", i + 1, S_colors[i],
                      (int[]){7, 5, 9, 11, 13, 15, 4, 6}[i]);
    gm_buf_printf(&b, "set linetype cycle %d\n", S_NCOLORS);
    for (size_t i = 0; i < c->n; i++) {
        gm_buf_printf(&b, "\n# %s\nset output '%s.svg'\n", c->v[i].name, c->v[i].name);
        gm_buf_puts(&b, c->v[i].script);
    }
    gm_buf_puts(&b, "unset output\n");
    return gm_buf_detach(&b);
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
