/* md_summary.c — the summary of the Markdown report: one row per experiment
 * with the contrast it exists to show (or, without one, its slowest layout
 * against its fastest), then a headline per experiment in one sentence.
 */
#include "md_int.h"

#include "../core/catalog.h"
#include "../core/slug.h"
#include "contrast.h"

#include <math.h>

/* ---- summary --------------------------------------------------------------- */

static void S_validation(gm_buf *b, const gm_section *s)
{
    bool any = false;
    if (s->n_failed) {
        gm_buf_printf(b, "**%zu FAILED**", s->n_failed);
        any = true;
    }
    if (s->n_error) {
        gm_buf_printf(b, "%s**%zu ERROR**", any ? ", " : "", s->n_error);
        any = true;
    }
    size_t passed = s->n_passed - s->n_unchecked;
    if (passed || !(any || s->n_unchecked)) {
        if (!s->n_failed && !s->n_error && !s->n_not_run && !s->n_unchecked && passed > 1)
            gm_buf_printf(b, "all %zu passed", passed);
        else
            gm_buf_printf(b, "%s%zu passed", any ? ", " : "", passed);
        any = true;
    }
    if (s->n_unchecked) {
        gm_buf_printf(b, "%s%zu without a reference", any ? ", " : "", s->n_unchecked);
        any = true;
    }
    if (s->n_not_run)
        gm_buf_printf(b, ", %zu not run", s->n_not_run);
}

/* Sum of two counters of a run; NaN when either is absent. */
static double S_sum2(const gm_run *r, const char *a, const char *b)
{
    return gm_run_metric_num(r, a) + gm_run_metric_num(r, b);
}

/* The headline of an experiment in one sentence: how much faster the best
 * layout is than the worst, and the counter that moved most with it (global
 * sectors, shared wavefronts or DRAM bytes, for the same work).  Written from
 * the numbers; nothing when the section has no comparison. */
static void S_headline(gm_buf *b, const gm_section *s)
{
    if (!s->best || !s->worst || s->best == s->worst)
        return;
    double r = gm_run_median_ms(s->worst) / gm_run_median_ms(s->best);
    if (!isfinite(r))
        return;
    md_case(b, &s->vary_group, s->best, NULL);
    if (r < 1.1) {
        gm_buf_puts(b, " and ");
        md_case(b, &s->vary_group, s->worst, NULL);
        gm_buf_puts(b, " run within 10% of each other (");
        gm_fmt_ratio(b, r);
        gm_buf_puts(b, "): here the layout hardly matters.");
        return;
    }
    gm_buf_puts(b, " is ");
    gm_fmt_ratio(b, r);
    gm_buf_puts(b, " faster than ");
    md_case(b, &s->vary_group, s->worst, NULL);
    double q = S_sum2(s->worst, GM_M_LD_SECTORS, GM_M_ST_SECTORS) /
               S_sum2(s->best, GM_M_LD_SECTORS, GM_M_ST_SECTORS);
    double w = S_sum2(s->worst, GM_M_SH_LD_WAVES, GM_M_SH_ST_WAVES) /
               S_sum2(s->best, GM_M_SH_LD_WAVES, GM_M_SH_ST_WAVES);
    double d = S_sum2(s->worst, GM_M_DRAM_RD, GM_M_DRAM_WR) /
               S_sum2(s->best, GM_M_DRAM_RD, GM_M_DRAM_WR);
    /* A counter "explains" the gap when the slow layout needs at least half as
     * much again of it; the largest such ratio is named. */
    const double explains = 1.5;
    const char *what = NULL;
    double x = explains;
    if (isfinite(q) && q >= x)
        what = "the global-memory sectors", x = q;
    if (isfinite(w) && w >= x)
        what = "the shared-memory wavefronts", x = w;
    if (isfinite(d) && d >= x)
        what = "the DRAM bytes", x = d;
    if (what) {
        gm_buf_puts(b, ", which needs ");
        gm_fmt_ratio(b, x);
        gm_buf_printf(b, " %s for the same work.", what);
    } else if (isfinite(q) || isfinite(d)) {
        gm_buf_puts(b, " with about the same memory traffic: the difference is in how the "
                       "accesses are issued and overlapped, not in the bytes moved.");
    } else {
        gm_buf_puts(b, ".");
    }
}

/* A program's headline: the kernels that make up GM_SUMMARY_TIME_SHARE of
 * its GPU time, largest first (the section's order), the rest folded into
 * one count. */
#define GM_SUMMARY_TIME_SHARE 0.95
static void S_time_headline(gm_buf *b, const gm_section *s)
{
    double all = 0;
    for (size_t i = 0; i < s->n_runs; i++)
        if (isfinite(gm_run_total_ms(s->runs[i])))
            all += gm_run_total_ms(s->runs[i]);
    if (!(all > 0))
        return;
    double acc = 0;
    size_t k = 0;
    for (; k < s->n_runs && acc < GM_SUMMARY_TIME_SHARE * all; k++) {
        double t = gm_run_total_ms(s->runs[k]);
        if (!isfinite(t))
            break;
        if (k)
            gm_buf_puts(b, k + 1 < s->n_runs && acc + t < GM_SUMMARY_TIME_SHARE * all ? ", "
                                                                                   : " and ");
        md_code(b, s->runs[k]->variant);
        gm_buf_puts(b, " (");
        gm_fmt_pct(b, 100.0 * t / all);
        gm_buf_puts(b, ")");
        acc += t;
    }
    gm_buf_puts(b, k == 1 ? " takes " : " take ");
    if (k < s->n_runs) {
        gm_fmt_pct(b, 100.0 * acc / all);
        gm_buf_puts(b, " of the ");
    } else {
        gm_buf_puts(b, "all of the ");
    }
    gm_fmt_ms(b, all);
    gm_buf_puts(b, " of GPU time profiled");
    if (k < s->n_runs) {
        size_t rest = s->n_runs - k;
        gm_buf_printf(b, "; %zu more kernel%s take%s the other ", rest, rest == 1 ? "" : "s",
                      rest == 1 ? "s" : "");
        gm_fmt_pct(b, 100.0 * (all - acc) / all);
    }
    gm_buf_puts(b, ".");
}

/* The summary row's answer: the experiment's contrast at matched parameters
 * (contrast.h), or, for a file without one or a program, fastest against
 * slowest of the comparison group.  Cells: compared at | sides | time ratio |
 * counter. */
static void S_summary_answer(gm_buf *b, const gm_section *s)
{
    gm_contrast c;
    if (gm_contrast_find(s, &c)) {
        gm_buf at = GM_BUF_INIT;
        gm_pair_at_md(&at, s->exp->contrast_a, s->exp->contrast_b, &c.pair);
        gm_buf_puts(b, at.len ? at.data : DASH);
        gm_buf_free(&at);
        gm_buf_puts(b, " | ");
        gm_pair_side_md(b, c.pair.a, s->exp->contrast_a);
        gm_buf_puts(b, " against ");
        gm_pair_side_md(b, c.pair.b, s->exp->contrast_b);
        gm_buf_puts(b, " | ");
        gm_ratio_fmt(b, c.time_ratio);
        gm_buf_puts(b, " (");
        gm_fmt_ms(b, gm_run_median_ms(c.pair.a));
        gm_buf_puts(b, " vs ");
        gm_fmt_ms(b, gm_run_median_ms(c.pair.b));
        gm_buf_puts(b, ") | ");
        if (c.counter && isfinite(c.ca) && isfinite(c.cb)) {
            if (c.cb > 0) {
                gm_ratio_fmt(b, c.ca / c.cb);
                gm_buf_puts(b, " ");
            }
            gm_buf_puts(b, gm_counter_label(c.counter));
            gm_buf_puts(b, " (");
            gm_counter_fmt(b, c.counter, c.ca);
            gm_buf_puts(b, " vs ");
            gm_counter_fmt(b, c.counter, c.cb);
            gm_buf_puts(b, ")");
        } else {
            gm_buf_puts(b, DASH);
        }
        return;
    }
    gm_buf at = GM_BUF_INIT;
    gm_section_group_label(s, &at);
    if (at.len && s->best)
        md_text(b, at.data);
    else
        gm_buf_puts(b, DASH);
    gm_buf_free(&at);
    gm_buf_puts(b, " | ");
    if (gm_section_is_program(s) || !s->best || !s->worst) {
        gm_buf_puts(b, DASH " | " DASH " | " DASH);
        return;
    }
    double tb = gm_run_median_ms(s->best), tw = gm_run_median_ms(s->worst);
    gm_buf_puts(b, "slowest ");
    md_case(b, &s->vary_group, s->worst, NULL);
    gm_buf_puts(b, " against fastest ");
    md_case(b, &s->vary_group, s->best, NULL);
    gm_buf_puts(b, " | ");
    gm_ratio_fmt(b, tw / tb);
    gm_buf_puts(b, " (");
    gm_fmt_ms(b, tw);
    gm_buf_puts(b, " vs ");
    gm_fmt_ms(b, tb);
    gm_buf_puts(b, ") | ");
    double sb = gm_run_metric_num(s->best, GM_M_LD_SPR);
    double sw = gm_run_metric_num(s->worst, GM_M_LD_SPR);
    if (isfinite(sb) && isfinite(sw)) {
        if (sb > 0) {
            gm_ratio_fmt(b, sw / sb);
            gm_buf_puts(b, " ");
        }
        gm_buf_puts(b, "ld sectors/request (");
        md_spr(b, sw);
        gm_buf_puts(b, " vs ");
        md_spr(b, sb);
        gm_buf_puts(b, ")");
    } else {
        gm_buf_puts(b, DASH);
    }
}

/* The headline of a section with a contrast: side a takes r× as long as side b
 * at the matched point, the counter ratio, and why (contrast.h). */
static void S_contrast_headline(gm_buf *b, const gm_results *r, const gm_section *s)
{
    gm_contrast c;
    if (!gm_contrast_find(s, &c))
        return;
    gm_pair_side_md(b, c.pair.a, s->exp->contrast_a);
    gm_buf_puts(b, " takes ");
    gm_ratio_fmt(b, c.time_ratio);
    gm_buf_puts(b, " the time of ");
    gm_pair_side_md(b, c.pair.b, s->exp->contrast_b);
    gm_buf at = GM_BUF_INIT;
    gm_pair_at_md(&at, s->exp->contrast_a, s->exp->contrast_b, &c.pair);
    if (at.len) {
        gm_buf_puts(b, " at ");
        gm_buf_puts(b, at.data);
    }
    gm_buf_free(&at);
    gm_buf_puts(b, ": ");
    gm_pair_why_md(b, r, c.pair.a, s->exp->contrast_a, c.pair.b, s->exp->contrast_b, c.counter);
    gm_contrast_profiled_md(b, r, s, &c);
}

void md_summary(gm_buf *b, const gm_results *r, const gm_sections *ss)
{
    bool program = false, contrast = false, suite = false;
    for (size_t i = 0; i < ss->n; i++) {
        program |= gm_section_is_program(&ss->v[i]);
        suite |= !gm_section_is_program(&ss->v[i]);
        contrast |= ss->v[i].exp && ss->v[i].exp->contrast_a;
    }
    gm_buf_printf(b, "## Summary\n\n"
                     "%s%s\n\n"
                     "| Experiment | Compared at | Side a against side b | Time, a/b | Counter, a/b | Validation |\n"
                     "|---|---|---|---|---|---|\n",
                  contrast ? "Per experiment, the contrast it exists to show (its question, in "
                             "its section), at matched parameters: the time of side a over "
                             "side b, and the counter the contrast is about. The headlines, "
                             "the sections and the claims quote these same pairs; a claim "
                             "judged at the sizes its document names gives this figure beside "
                             "its own."
                  : suite    ? "Per experiment, the slowest and fastest layout among the runs "
                             "that do the same work (same bytes read and written), by median "
                             "time: this results file names no question per experiment (it "
                             "predates them)."
                             : "",
                  program ? &(" A program's kernels do different work, so none is compared "
                              "with another: the kernels that take its GPU time are listed "
                              "below the table.")[suite ? 0 : 1]
                          : "");
    for (size_t i = 0; i < ss->n; i++) {
        const gm_section *s = &ss->v[i];
        /* a link to the section: its heading is "N. title" */
        gm_buf h = GM_BUF_INIT, slug = GM_BUF_INIT;
        gm_buf_printf(&h, "%zu. %s", i + 1, md_exp_title(s->exp));
        gm_md_slug(h.data, &slug);
        gm_buf_printf(b, "| [%zu. ", i + 1);
        md_text(b, md_exp_title(s->exp));
        gm_buf_printf(b, "](#%s) | ", slug.data);
        gm_buf_free(&h);
        gm_buf_free(&slug);
        S_summary_answer(b, s);
        gm_buf_puts(b, " | ");
        S_validation(b, s);
        gm_buf_puts(b, " |\n");
    }
    gm_buf_puts(b, "\n");
    bool any = false;
    for (size_t i = 0; i < ss->n; i++) {
        const gm_section *s = &ss->v[i];
        gm_buf h = GM_BUF_INIT;
        if (gm_section_is_program(s))
            S_time_headline(&h, s);
        else
            S_contrast_headline(&h, r, s);
        if (!h.len && !gm_section_is_program(s))
            S_headline(&h, s);
        if (h.len) {
            if (!any)
                gm_buf_puts(b, "Headlines:\n\n");
            any = true;
            gm_buf_printf(b, "%zu. **", i + 1);
            md_text(b, md_exp_title(s->exp));
            gm_buf_printf(b, ".** %s\n", h.data);
        }
        gm_buf_free(&h);
    }
    if (any)
        gm_buf_puts(b, "\n");
}
