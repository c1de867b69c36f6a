/* md_summary.c — the summary of the Markdown report: one row per experiment
 * with the contrast it exists to show (or, without one, its slowest layout
 * against its fastest), then a headline per experiment in one sentence.
 */
#include "md_int.h"

#include "../core/catalog.h"
#include "../core/say.h"
#include "../core/slug.h"
#include "contrast.h"

#include <math.h>

/* ---- summary --------------------------------------------------------------- */

static void S_validation(gm_buf *b, const gm_section *s)
{
    bool any = false;
    if (s->n_failed) {
        gm_say(b, "**{} FAILED**", GM_INT((long long)s->n_failed));
        any = true;
    }
    if (s->n_error) {
        gm_say(b, "{}**{} ERROR**", GM_LIT(any ? ", " : ""), GM_INT((long long)s->n_error));
        any = true;
    }
    size_t passed = s->n_passed - s->n_unchecked;
    if (passed || !(any || s->n_unchecked)) {
        if (!s->n_failed && !s->n_error && !s->n_not_run && !s->n_unchecked && passed > 1)
            gm_say(b, "all {} passed", GM_INT((long long)passed));
        else
            gm_say(b, "{}{} passed", GM_LIT(any ? ", " : ""), GM_INT((long long)passed));
        any = true;
    }
    if (s->n_unchecked) {
        gm_say(b, "{}{} without a reference", GM_LIT(any ? ", " : ""),
               GM_INT((long long)s->n_unchecked));
        any = true;
    }
    if (s->n_not_run)
        gm_say(b, ", {} not run", GM_INT((long long)s->n_not_run));
}

/* Sum of two counters of a run; NaN when either is absent. */
static double S_sum2(const gm_run *r, const char *a, const char *b)
{
    return gm_run_metric_num(r, a) + gm_run_metric_num(r, b);
}

/* What a helper appends, in a buffer of its own for GM_BUF (core/say.h);
 * the caller frees it. */
static gm_buf S_case(const gm_section *s, const gm_run *run)
{
    gm_buf t = GM_BUF_INIT;
    md_case(&t, &s->vary_group, run, NULL);
    return t;
}

static gm_buf S_ratio(double x)
{
    gm_buf t = GM_BUF_INIT;
    gm_ratio_fmt(&t, x);
    return t;
}

static gm_buf S_side(const gm_run *run, const char *sel)
{
    gm_buf t = GM_BUF_INIT;
    gm_pair_side_md(&t, run, sel);
    return t;
}

static gm_buf S_counter(const char *kind, double v)
{
    gm_buf t = GM_BUF_INIT;
    gm_counter_fmt(&t, kind, v);
    return t;
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
    gm_buf best = S_case(s, s->best), worst = S_case(s, s->worst);
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
    if (r < 1.1)
        gm_say(b, "{} and {} run within 10% of each other ({}): here the layout hardly matters.",
               GM_BUF(&best), GM_BUF(&worst), GM_RATIO(r));
    else if (what)
        gm_say(b, "{} is {} faster than {}, which needs {} {} for the same work.", GM_BUF(&best),
               GM_RATIO(r), GM_BUF(&worst), GM_RATIO(x), GM_LIT(what));
    else if (isfinite(q) || isfinite(d))
        gm_say(b, "{} is {} faster than {} with about the same memory traffic: the difference "
                  "is in how the accesses are issued and overlapped, not in the bytes moved.",
               GM_BUF(&best), GM_RATIO(r), GM_BUF(&worst));
    else
        gm_say(b, "{} is {} faster than {}.", GM_BUF(&best), GM_RATIO(r), GM_BUF(&worst));
    gm_buf_free(&best);
    gm_buf_free(&worst);
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
        gm_say(b, "{} ({})", GM_CODE(s->runs[k]->variant), GM_PCT(100.0 * t / all));
        acc += t;
    }
    gm_say_arg take = GM_LIT(k == 1 ? "takes" : "take");
    if (k < s->n_runs) {
        size_t rest = s->n_runs - k;
        gm_say(b, " {} {} of the {} of GPU time profiled; {} more kernel{} take{} the other {}.",
               take, GM_PCT(100.0 * acc / all), GM_MS(all), GM_INT((long long)rest),
               GM_LIT(rest == 1 ? "" : "s"), GM_LIT(rest == 1 ? "s" : ""),
               GM_PCT(100.0 * (all - acc) / all));
    } else {
        gm_say(b, " {} all of the {} of GPU time profiled.", take, GM_MS(all));
    }
}

/* The last cell of a summary row: the counter's ratio (when there is one),
 * its label and its two values ("3.00× ld sectors/request (3.0 vs 1.0)"). */
static void S_counter_cell(gm_buf *b, const char *label, const gm_buf *ratio, gm_say_arg a,
                           gm_say_arg bv)
{
    if (ratio)
        gm_say(b, "{} {} ({} vs {})", GM_BUF(ratio), GM_LIT(label), a, bv);
    else
        gm_say(b, "{} ({} vs {})", GM_LIT(label), a, bv);
}

/* The summary row's answer: the experiment's contrast at matched parameters
 * (contrast.h), or, for a file without one or a program, fastest against
 * slowest of the comparison group.  Cells: compared at | sides | time ratio |
 * counter. */
static void S_summary_answer(gm_buf *b, const gm_section *s)
{
    gm_contrast c;
    gm_buf counter = GM_BUF_INIT;
    if (gm_contrast_find(s, &c)) {
        bool known = c.counter && isfinite(c.ca) && isfinite(c.cb);
        if (known) {
            gm_buf ratio = S_ratio(c.ca / c.cb), ca = S_counter(c.counter, c.ca),
                   cb = S_counter(c.counter, c.cb);
            S_counter_cell(&counter, gm_counter_label(c.counter), c.cb > 0 ? &ratio : NULL,
                           GM_BUF(&ca), GM_BUF(&cb));
            gm_buf_free(&ratio);
            gm_buf_free(&ca);
            gm_buf_free(&cb);
        }
        gm_buf at = GM_BUF_INIT;
        gm_pair_at_md(&at, s->exp->contrast_a, s->exp->contrast_b, &c.pair);
        gm_buf side_a = S_side(c.pair.a, s->exp->contrast_a);
        gm_buf side_b = S_side(c.pair.b, s->exp->contrast_b);
        gm_buf ratio = S_ratio(c.time_ratio);
        gm_say(b, "{} | {} against {} | {} ({} vs {}) | {}",
               at.len ? GM_BUF(&at) : GM_LIT(DASH), GM_BUF(&side_a), GM_BUF(&side_b),
               GM_BUF(&ratio), GM_MS(gm_run_median_ms(c.pair.a)),
               GM_MS(gm_run_median_ms(c.pair.b)), known ? GM_BUF(&counter) : GM_LIT(DASH));
        gm_buf_free(&at);
        gm_buf_free(&side_a);
        gm_buf_free(&side_b);
        gm_buf_free(&ratio);
        gm_buf_free(&counter);
        return;
    }
    gm_buf at = GM_BUF_INIT;
    gm_section_group_label(s, &at);
    gm_say_arg compared_at = at.len && s->best ? GM_TEXT(at.data) : GM_LIT(DASH);
    if (gm_section_is_program(s) || !s->best || !s->worst) {
        gm_say_arg dash = GM_LIT(DASH);
        gm_say(b, "{} | {} | {} | {}", compared_at, dash, dash, dash);
        gm_buf_free(&at);
        return;
    }
    double tb = gm_run_median_ms(s->best), tw = gm_run_median_ms(s->worst);
    double sb = gm_run_metric_num(s->best, GM_M_LD_SPR);
    double sw = gm_run_metric_num(s->worst, GM_M_LD_SPR);
    bool known = isfinite(sb) && isfinite(sw);
    if (known) {
        gm_buf ratio = S_ratio(sw / sb);
        S_counter_cell(&counter, "ld sectors/request", sb > 0 ? &ratio : NULL, GM_FIXED(sw, 1),
                       GM_FIXED(sb, 1));
        gm_buf_free(&ratio);
    }
    gm_buf worst = S_case(s, s->worst), best = S_case(s, s->best), ratio = S_ratio(tw / tb);
    gm_say(b, "{} | slowest {} against fastest {} | {} ({} vs {}) | {}", compared_at,
           GM_BUF(&worst), GM_BUF(&best), GM_BUF(&ratio), GM_MS(tw), GM_MS(tb),
           known ? GM_BUF(&counter) : GM_LIT(DASH));
    gm_buf_free(&worst);
    gm_buf_free(&best);
    gm_buf_free(&ratio);
    gm_buf_free(&counter);
    gm_buf_free(&at);
}

/* The headline of a section with a contrast: side a takes r× as long as side b
 * at the matched point, the counter ratio, and why (contrast.h). */
static void S_contrast_headline(gm_buf *b, const gm_results *r, const gm_section *s)
{
    gm_contrast c;
    if (!gm_contrast_find(s, &c))
        return;
    gm_buf side_a = S_side(c.pair.a, s->exp->contrast_a);
    gm_buf side_b = S_side(c.pair.b, s->exp->contrast_b);
    gm_buf ratio = S_ratio(c.time_ratio);
    gm_buf at = GM_BUF_INIT, why = GM_BUF_INIT;
    gm_pair_at_md(&at, s->exp->contrast_a, s->exp->contrast_b, &c.pair);
    gm_pair_why_md(&why, r, c.pair.a, s->exp->contrast_a, c.pair.b, s->exp->contrast_b,
                   c.counter);
    if (at.len)
        gm_say(b, "{} takes {} the time of {} at {}: {}", GM_BUF(&side_a), GM_BUF(&ratio),
               GM_BUF(&side_b), GM_BUF(&at), GM_BUF(&why));
    else
        gm_say(b, "{} takes {} the time of {}: {}", GM_BUF(&side_a), GM_BUF(&ratio),
               GM_BUF(&side_b), GM_BUF(&why));
    gm_buf_free(&side_a);
    gm_buf_free(&side_b);
    gm_buf_free(&ratio);
    gm_buf_free(&at);
    gm_buf_free(&why);
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
    gm_say(b, "## Summary\n\n"
              "{}{}\n\n"
              "| Experiment | Compared at | Side a against side b | Time, a/b | Counter, a/b | Validation |\n"
              "|---|---|---|---|---|---|\n",
           GM_LIT(contrast ? "Per experiment, the contrast it exists to show (its question, in "
                             "its section), at matched parameters: the time of side a over "
                             "side b, and the counter the contrast is about. The headlines, "
                             "the sections and the claims quote these same pairs; a claim "
                             "judged at the sizes its document names gives this figure beside "
                             "its own."
                  : suite  ? "Per experiment, the slowest and fastest layout among the runs "
                             "that do the same work (same bytes read and written), by median "
                             "time: this results file names no question per experiment (it "
                             "predates them)."
                           : ""),
           GM_LIT(program ? &(" A program's kernels do different work, so none is compared "
                              "with another: the kernels that take its GPU time are listed "
                              "below the table.")[suite ? 0 : 1]
                          : ""));
    for (size_t i = 0; i < ss->n; i++) {
        const gm_section *s = &ss->v[i];
        /* a link to the section: its heading is "N. title" */
        gm_buf h = GM_BUF_INIT, slug = GM_BUF_INIT;
        gm_buf_printf(&h, "%zu. %s", i + 1, md_exp_title(s->exp));
        gm_md_slug(h.data, &slug);
        gm_buf answer = GM_BUF_INIT, validation = GM_BUF_INIT;
        S_summary_answer(&answer, s);
        S_validation(&validation, s);
        gm_say(b, "| [{}. {}](#{}) | {} | {} |\n", GM_INT((long long)(i + 1)),
               GM_TEXT(md_exp_title(s->exp)), GM_BUF(&slug), GM_BUF(&answer),
               GM_BUF(&validation));
        gm_buf_free(&h);
        gm_buf_free(&slug);
        gm_buf_free(&answer);
        gm_buf_free(&validation);
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
            gm_say(b, "{}. **{}.** {}\n", GM_INT((long long)(i + 1)),
                   GM_TEXT(md_exp_title(s->exp)), GM_BUF(&h));
        }
        gm_buf_free(&h);
    }
    if (any)
        gm_buf_puts(b, "\n");
}
