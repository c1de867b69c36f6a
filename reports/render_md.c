/* render_md.c — the report as GitHub-flavoured Markdown: a pure function of the
 * results (and the chart plan).  The HTML page is this text through cmark-gfm.
 *
 * Every string from the results goes through gm_esc_md (text) or
 * gm_esc_md_code (names), so it can neither open raw HTML nor split a table
 * cell; numbers are formatted here, with their units; an absent value is "—".
 */
#include "render.h"
#include "srclines.h"

#include "../core/catalog.h"
#include "../core/escape.h"
#include "claims.h"
#include "contrast.h"
#include "findings.h"
#include "ranks.h"
#include "../core/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DASH GM_FMT_ABSENT

/* ---- formatting ----------------------------------------------------------- */

static void S_text(gm_buf *b, const char *s) { gm_esc_md(b, s ? s : ""); }
static void S_code(gm_buf *b, const char *s) { gm_esc_md_code(b, s ? s : ""); }

static void S_spr(gm_buf *b, double v) { gm_fmt_fixed(b, v, 1); }

/* A collection of a program's launches (gpumem-report -- PROGRAM), whose
 * size set is "app", rather than of the suite. */
static bool S_program_collection(const gm_collection *c)
{
    return c->size_set && strcmp(c->size_set, "app") == 0;
}

/* 13000 -> "13.0", 12040 -> "12.4" (CUDA's 1000*major + 10*minor) */
static void S_cuda_version(gm_buf *b, int v)
{
    if (v <= 0)
        gm_buf_puts(b, DASH);
    else
        gm_buf_printf(b, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* `variant` (name=value, ...) with the parameters varying across a set (its
 * section's runs or group: runs.h, gm_vary), escaped. */
static void S_case(gm_buf *b, const gm_vary *v, const gm_run *run, const char *skip)
{
    gm_vary_case_md(v, run, skip, b);
}

static const char *S_label(const char *metric, const char *fallback)
{
    const gm_metric_info *m = gm_catalog_find(metric);
    return m ? m->label : fallback;
}

static bool S_failed(const gm_run *run)
{
    return run->check.status == GM_CHECK_FAILED || run->check.status == GM_CHECK_ERROR;
}

static void S_num17(gm_buf *b, double v)
{
    if (isnan(v))
        gm_buf_puts(b, "NaN");
    else if (isinf(v))
        gm_buf_puts(b, v > 0 ? "inf" : "-inf");
    else
        gm_fmt_value(b, &(gm_value){.kind = GM_V_REAL, .r = v});
}

/* The check of a run in words (escaped Markdown, one line). */
static void S_check_text(gm_buf *b, const gm_run *run, bool loud)
{
    const gm_check *c = &run->check;
    switch (c->status) {
    case GM_CHECK_PASSED:
        gm_buf_puts(b, "passed");
        return;
    case GM_CHECK_FAILED:
        gm_buf_puts(b, loud ? "**FAILED**" : "failed");
        if (c->checked > 0) {
            gm_buf_puts(b, ": ");
            gm_fmt_count(b, (double)c->mismatches);
            gm_buf_puts(b, " of ");
            gm_fmt_count(b, (double)c->checked);
            gm_buf_puts(b, " elements differ");
        }
        if (c->has_first_mismatch) {
            gm_buf_puts(b, ", first at index ");
            gm_fmt_count(b, (double)c->first_index);
            gm_buf_puts(b, ": got ");
            gm_buf tmp = GM_BUF_INIT;
            S_num17(&tmp, c->first_value);
            gm_buf_puts(&tmp, ", expected ");
            S_num17(&tmp, c->first_expected);
            S_text(b, tmp.data);
            gm_buf_free(&tmp);
        } else if (c->reason) {
            /* the checker's own words when there is no first mismatch to show */
            gm_buf_puts(b, c->checked > 0 ? " (" : ": ");
            S_text(b, c->reason);
            gm_buf_puts(b, c->checked > 0 ? ")" : "");
        }
        return;
    case GM_CHECK_NOT_RUN:
        gm_buf_puts(b, "not run: ");
        S_text(b, c->reason ? c->reason : "no reason given");
        return;
    case GM_CHECK_ERROR:
        gm_buf_puts(b, loud ? "**ERROR**: " : "error: ");
        S_text(b, c->reason ? c->reason : "no reason given");
        return;
    case GM_CHECK_NO_REFERENCE:
        gm_buf_puts(b, "no reference");
        if (c->reason) {
            gm_buf_puts(b, ": ");
            S_text(b, c->reason);
        }
        return;
    }
}

static const char *S_exp_title(const gm_experiment *e)
{
    return e->title ? e->title : e->id ? e->id : "";
}

/* A relative link target, percent-encoded. */
static void S_url(gm_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            gm_buf_putc(b, (char)*p);
        else
            gm_buf_printf(b, "%%%02X", *p);
    }
}

/* ---- header ---------------------------------------------------------------- */

static void S_row(gm_buf *b, const char *key, const char *value_md)
{
    gm_buf_printf(b, "| %s | %s |\n", key, value_md);
}

static void S_header(gm_buf *b, const gm_results *r, bool timestamp)
{
    const gm_device *d = &r->device;
    const gm_collection *c = &r->collection;
    gm_buf_puts(b, "# GPU memory report: ");
    S_text(b, d->name ? d->name : "unknown device");
    gm_buf_puts(b, "\n\n");

    if (r->origin && strncmp(r->origin, "measured", 8) != 0) {
        gm_buf_puts(b, "> **Not a measurement of this device.** The results file gives its origin as: ");
        S_text(b, r->origin);
        gm_buf_puts(b, ".\n\n");
    }

    if (c->partial) {
        gm_buf_puts(b, "> **Partial results.** The collection stopped before its end (");
        S_text(b, c->partial);
        gm_buf_printf(b, "); the %zu runs below are those completed before it stopped.\n\n",
                      r->n_runs);
    }

    gm_buf v = GM_BUF_INIT;
    gm_buf_puts(b, "| Setting | Value |\n|---|---|\n");

    gm_buf_puts(&v, "");
    S_text(&v, d->name ? d->name : "unknown");
    gm_buf_puts(&v, " (");
    if (d->chip) {
        S_text(&v, d->chip);
        gm_buf_puts(&v, ", ");
    }
    gm_buf_printf(&v, "compute capability %d.%d, %d SMs, device %d)", d->cc_major, d->cc_minor,
                  d->sm_count, d->ordinal);
    S_row(b, "Device", v.data);

    v.len = 0;
    gm_buf_puts(&v, "");
    gm_fmt_bytes(&v, d->global_memory_bytes > 0 ? (double)d->global_memory_bytes : NAN);
    gm_buf_printf(&v, ", %d-bit bus at ", d->memory_bus_width_bits);
    gm_fmt_num(&v, d->memory_clock_khz > 0 ? d->memory_clock_khz / 1000.0 : NAN, 4);
    gm_buf_puts(&v, " MHz: ");
    gm_fmt_gbs(&v, gm_value_num(&d->theoretical_bandwidth_gbs));
    gm_buf_puts(&v, " theoretical (2 × clock × bus width); L2 ");
    gm_fmt_bytes(&v, d->l2_bytes > 0 ? (double)d->l2_bytes : NAN);
    S_row(b, "Memory", v.data);

    v.len = 0;
    gm_buf_puts(&v, "");
    gm_fmt_gbs(&v, gm_value_num(&d->copy_bandwidth_gbs));
    if (gm_value_present(&d->copy_bandwidth_bytes)) {
        gm_buf_puts(&v, ", device-to-device copy of ");
        gm_fmt_bytes(&v, gm_value_num(&d->copy_bandwidth_bytes));
        gm_buf_puts(&v, ", bytes read + written");
    }
    S_row(b, "Measured copy bandwidth", v.data);

    v.len = 0;
    gm_buf_puts(&v, "");
    if (gm_value_present(&d->attainable_bandwidth_gbs)) {
        gm_fmt_gbs(&v, gm_value_num(&d->attainable_bandwidth_gbs));
        gm_buf_puts(&v, ", the best of plain copy and read kernels");
        if (d->attainable_kernel) {
            gm_buf_puts(&v, " (");
            S_text(&v, d->attainable_kernel);
            gm_buf_puts(&v, ")");
        }
        gm_buf_puts(&v, ", useful bytes: the ceiling every \"% of attainable\" compares with");
    } else if (d->attainable_kernel) {
        S_text(&v, d->attainable_kernel);
        gm_buf_puts(&v, ": percentages compare with the copy bandwidth, which a vectorised "
                        "kernel can beat");
    } else {
        gm_buf_puts(&v, S_program_collection(c) ? "not measured when profiling a program (its own kernels run, "
                                  "no others)"
                                : "not in this results file (it predates it)");
        gm_buf_puts(&v, ": percentages compare with the copy bandwidth, which a vectorised "
                        "kernel can beat");
    }
    S_row(b, "Attainable bandwidth", v.data);

    v.len = 0;
    gm_buf_puts(&v, "driver ");
    S_text(&v, d->driver_version ? d->driver_version : DASH);
    gm_buf_puts(&v, ", CUDA driver API ");
    S_cuda_version(&v, d->cuda_driver_api);
    gm_buf_puts(&v, ", runtime ");
    S_cuda_version(&v, d->cuda_runtime);
    gm_buf_puts(&v, ", CUPTI API ");
    if (d->cupti_api > 0)
        gm_buf_printf(&v, "%lld", d->cupti_api);
    else
        gm_buf_puts(&v, DASH);
    S_row(b, "Software", v.data);

    v.len = 0;
    gm_buf_puts(&v, "gpumem-report ");
    S_text(&v, r->tool_version ? r->tool_version : DASH);
    if (r->commit) {
        gm_buf_puts(&v, ", commit ");
        S_code(&v, r->commit);
        gm_buf_puts(&v, r->dirty == 1 ? " (with uncommitted changes)" : r->dirty == 0 ? " (clean)" : "");
    }
    gm_buf_printf(&v, ", results schema %d", r->schema_version);
    S_row(b, "Tool", v.data);

    v.len = 0;
    gm_buf_printf(&v, "%zu metrics in ", c->n_metrics);
    if (c->passes >= 0)
        gm_buf_printf(&v, "%d profiler pass%s", c->passes, c->passes == 1 ? "" : "es");
    else
        gm_buf_puts(&v, "an unknown number of passes");
    gm_buf_puts(&v, "; replay mode ");
    S_text(&v, c->replay_mode ? c->replay_mode : DASH);
    gm_buf_puts(&v, ", range mode ");
    S_text(&v, c->range_mode ? c->range_mode : DASH);
    S_row(b, "Metrics", v.data);

    v.len = 0;
    gm_buf_puts(&v, c->cache_flush ? "L2 flushed before each profiled pass"
                                   : "L2 not flushed between profiled passes");
    gm_buf_puts(&v, "; clocks: ");
    S_text(&v, c->clock_control ? c->clock_control : DASH);
    if (c->clock_control && strcmp(c->clock_control, "none") == 0)
        gm_buf_puts(&v, " (left as found)");
    S_row(b, "Cache and clocks", v.data);

    v.len = 0;
    if (S_program_collection(c))
        gm_buf_puts(&v, "the profiler's duration of each of the program's launches "
                        "(not repeated)");
    else {
        gm_buf_printf(&v, "%d warm-up launches, then %d timed repetitions per run",
                      c->timing_warmup, c->timing_repetitions);
        size_t gated = gm_results_count_gated(r, NULL);
        if (gated)
            gm_buf_printf(&v, "; %zu run%s under 2 ms a repetition timed behind the launch gate "
                              "(no host time in a sample)",
                          gated, gated == 1 ? "" : "s");
    }
    S_row(b, "Timing", v.data);

    v.len = 0;
    gm_buf_puts(&v, "");
    S_text(&v, c->size_set ? c->size_set : DASH);
    S_row(b, "Size set", v.data);

    if (gm_value_present(&c->profile_seconds) || gm_value_present(&c->total_seconds)) {
        v.len = 0;
        gm_buf_puts(&v, "");
        if (gm_value_present(&c->profile_seconds)) {
            gm_fmt_num(&v, gm_value_num(&c->profile_seconds), 3);
            gm_buf_puts(&v, " s profiling");
        }
        if (gm_value_present(&c->total_seconds)) {
            gm_buf_puts(&v, v.len ? ", " : "");
            gm_fmt_num(&v, gm_value_num(&c->total_seconds), 3);
            gm_buf_puts(&v, " s in all");
        }
        S_row(b, "Collection time", v.data);
    }
    gm_md_process_rows(b, r);
    if (timestamp) {
        v.len = 0;
        gm_buf_puts(&v, "");
        S_text(&v, r->taken_at ? r->taken_at : DASH);
        S_row(b, "Taken at", v.data);
    }
    gm_buf_free(&v);
    gm_buf_puts(b, "\n");
    gm_md_ranks(b, r);
}

/* Loud: every failed or errored run, at the top. */
static void S_top_warnings(gm_buf *b, const gm_sections *ss)
{
    size_t failed = 0, errors = 0;
    for (size_t i = 0; i < ss->n; i++) {
        failed += ss->v[i].n_failed;
        errors += ss->v[i].n_error;
    }
    if (!failed && !errors)
        return;
    gm_buf_puts(b, "> **Warning: ");
    if (failed)
        gm_buf_printf(b, "%zu run%s failed %s check", failed, failed == 1 ? "" : "s",
                      failed == 1 ? "its" : "their");
    if (failed && errors)
        gm_buf_puts(b, " and ");
    if (errors)
        gm_buf_printf(b, "%zu run%s stopped with an error", errors, errors == 1 ? "" : "s");
    gm_buf_printf(b, ".** %s numbers are in the tables, marked, and left out of every "
                     "comparison, chart and speed claim.\n>\n",
                  failed + errors == 1 ? "Its" : "Their");
    for (size_t i = 0; i < ss->n; i++) {
        const gm_section *s = &ss->v[i];
        for (size_t k = 0; k < s->n_runs; k++) {
            const gm_run *run = s->runs[k];
            if (!S_failed(run))
                continue;
            gm_buf_puts(b, "> - ");
            S_text(b, S_exp_title(s->exp));
            gm_buf_puts(b, ": ");
            S_case(b, &s->vary, run, NULL);
            gm_buf_puts(b, ": ");
            S_check_text(b, run, true);
            gm_buf_puts(b, "\n");
        }
    }
    gm_buf_puts(b, "\n");
}

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

/* Every count the model predicts that was also measured is equal to the unit
 * (the prediction's counts are rounded when a sample was scaled up). */
static bool S_model_exact(const gm_run *run)
{
    static const char *const counts[] = {
        GM_M_LD_SECTORS, GM_M_LD_REQUESTS, GM_M_ST_SECTORS,  GM_M_ST_REQUESTS,
        GM_M_LD_INST,    GM_M_ST_INST,     GM_M_SH_LD_WAVES, GM_M_SH_ST_WAVES,
        GM_M_SH_LD_INST, GM_M_SH_ST_INST,
    };
    size_t compared = 0;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        double m = gm_run_metric_num(run, counts[i]);
        const gm_metric *p = gm_prediction_metric(&run->prediction, counts[i]);
        double q = p ? gm_value_num(&p->value) : NAN;
        if (!isfinite(m) || !isfinite(q))
            continue;
        if (llround(m) != llround(q))
            return false;
        compared++;
    }
    return compared > 0;
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
    S_case(b, &s->vary_group, s->best, NULL);
    if (r < 1.1) {
        gm_buf_puts(b, " and ");
        S_case(b, &s->vary_group, s->worst, NULL);
        gm_buf_puts(b, " run within 10% of each other (");
        gm_fmt_ratio(b, r);
        gm_buf_puts(b, "): here the layout hardly matters.");
        return;
    }
    gm_buf_puts(b, " is ");
    gm_fmt_ratio(b, r);
    gm_buf_puts(b, " faster than ");
    S_case(b, &s->vary_group, s->worst, NULL);
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
        S_code(b, s->runs[k]->variant);
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
        S_text(b, at.data);
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
    S_case(b, &s->vary_group, s->worst, NULL);
    gm_buf_puts(b, " against fastest ");
    S_case(b, &s->vary_group, s->best, NULL);
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
        S_spr(b, sw);
        gm_buf_puts(b, " vs ");
        S_spr(b, sb);
        gm_buf_puts(b, ")");
    } else {
        gm_buf_puts(b, DASH);
    }
}

/* The headline of a section with a contrast: side a takes r× as long as side b
 * at the matched point, the counter ratio, and why (contrast.h). */
static void S_contrast_headline(gm_buf *b, const gm_section *s)
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
    gm_pair_why_md(b, c.pair.a, c.pair.b, c.counter);
}

static void S_summary(gm_buf *b, const gm_sections *ss)
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
                             "side b, and the counter the contrast is about."
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
        gm_buf_printf(&h, "%zu. %s", i + 1, S_exp_title(s->exp));
        gm_md_slug(h.data, &slug);
        gm_buf_printf(b, "| [%zu. ", i + 1);
        S_text(b, S_exp_title(s->exp));
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
            S_contrast_headline(&h, s);
        if (!h.len && !gm_section_is_program(s))
            S_headline(&h, s);
        if (h.len) {
            if (!any)
                gm_buf_puts(b, "Headlines:\n\n");
            any = true;
            gm_buf_printf(b, "%zu. **", i + 1);
            S_text(b, S_exp_title(s->exp));
            gm_buf_printf(b, ".** %s\n", h.data);
        }
        gm_buf_free(&h);
    }
    if (any)
        gm_buf_puts(b, "\n");
}

/* ---- findings --------------------------------------------------------------- */

#define S_TOP_FINDINGS 10
#define S_TOP_FINDINGS_MD 6

/* The costliest findings of the whole run, one per layout and rule.  Failed
 * runs are in the warning at the top already: their findings are not repeated. */
static void S_findings_lean(gm_buf *b, const char *items);

static void S_findings(gm_buf *b, const gm_findings *f, const gm_sections *ss, bool html)
{
    size_t bad = 0;
    for (size_t i = 0; i < ss->n; i++)
        bad += ss->v[i].n_failed + ss->v[i].n_error;
    unsigned skip = GM_RULE_BIT(GM_RULE_VALIDATION);
    size_t all = gm_findings_count(f, NULL, true, skip);
    gm_buf_puts(b, "## Findings\n\n");
    if (!all) {
        gm_buf_puts(b, "No rule of docs/findings.md fires on the numbers of this run");
        gm_buf_puts(b, bad ? " (the runs that failed are in the warning above).\n\n" : ".\n\n");
        return;
    }
    gm_buf_puts(b, "What the rules of docs/findings.md find in the counters of each run, "
                   "warnings first, then by the time they cost (the estimated saving, "
                   "docs/findings.md), then by the bytes wasted or forgone; one item per layout "
                   "and rule");
    gm_buf_puts(b, bad ? ". Runs that did not pass their check are in the warning above, not "
                         "here.\n\n"
                       : ".\n\n");
    gm_buf items = GM_BUF_INIT;
    gm_buf_puts(&items, "");
    size_t shown = gm_findings_md_except(f, NULL, html ? S_TOP_FINDINGS : S_TOP_FINDINGS_MD, true,
                                         skip, &items);
    if (html)
        gm_buf_put(b, items.data, items.len);
    else
        S_findings_lean(b, items.data);
    gm_buf_free(&items);
    if (all > shown)
        gm_buf_printf(b, html ? "%zu more in the sections of their experiments.\n\n"
                              : "%zu more in the HTML report, each in its experiment's "
                                "section.\n\n",
                      all - shown);
}

/* ---- changes since a baseline ------------------------------------------------ */

static void S_changes(gm_buf *b, const gm_report_opts *ro)
{
    gm_diff_render dr = {.base_name = ro->baseline_name, .head_name = ro->results_name,
                         .only_changed = true, .in_report = true};
    gm_diff_md_section(b, ro->changes, &dr);
}

/* ---- the table of one experiment ------------------------------------------ */

typedef enum {
    C_VARIANT, C_PARAMS, C_LAUNCHES, C_TIME, C_TOTAL_TIME, C_SHARE, C_GBS, C_PCT_COPY,
    C_DRAM_GBS, C_PCT_CEIL, C_LD_SPR, C_ST_SPR, C_LD_EFF, C_ST_EFF, C_DRAM_RD, C_DRAM_WR,
    C_DRAM_TOTAL, C_DRAM_PCT, C_SH_LD_WPI, C_SH_ST_WPI, C_SH_LD_CONFL, C_SH_ST_CONFL, C_CHECK,
    C_COUNT
} S_col;

/* A per-launch value of a program's grouped run with the range of its
 * launches where they differ: "32.0 MiB (31.5–32.0 MiB)". */
static void S_per_launch(gm_buf *b, const gm_run *run, const char *metric,
                         void (*fmt)(gm_buf *, double))
{
    const gm_metric *m = gm_run_metric(run, metric);
    double v = m ? gm_value_num(&m->value) : NAN;
    fmt(b, v);
    if (!m || !isfinite(v) || !gm_value_present(&m->launch_min))
        return;
    double lo = gm_value_num(&m->launch_min), hi = gm_value_num(&m->launch_max);
    if (!isfinite(lo) || !isfinite(hi) || lo == hi)
        return;
    gm_buf x = GM_BUF_INIT, y = GM_BUF_INIT;
    fmt(&x, lo);
    fmt(&y, hi);
    if (strcmp(x.data, y.data) != 0) {
        gm_buf_printf(b, " (%s–%s)", x.data, y.data);
    }
    gm_buf_free(&x);
    gm_buf_free(&y);
}

static void S_fmt_count(gm_buf *b, double v) { gm_fmt_count(b, v); }
static void S_fmt_bytes(gm_buf *b, double v) { gm_fmt_bytes(b, v); }

/* The section's GPU time over all launches (ms). */
static double S_section_ms(const gm_section *s)
{
    double all = 0;
    for (size_t i = 0; i < s->n_runs; i++)
        if (isfinite(gm_run_total_ms(s->runs[i])))
            all += gm_run_total_ms(s->runs[i]);
    return all;
}

static bool S_any_metric(const gm_section *s, const char *name)
{
    for (size_t i = 0; i < s->n_runs; i++)
        if (isfinite(gm_run_metric_num(s->runs[i], name)))
            return true;
    return false;
}

static bool S_any_shared(const gm_section *s, bool store)
{
    for (size_t i = 0; i < s->n_runs; i++)
        if (isfinite(gm_run_shared_wpi(s->runs[i], store)))
            return true;
    return false;
}

/* The parameters that tell a run from the others of its section, or "—". */
static void S_params_cell(gm_buf *b, const gm_section *s, const gm_run *run)
{
    gm_buf p = GM_BUF_INIT;
    gm_vary_params(&s->vary, run, NULL, &p);
    if (p.len)
        S_text(b, p.data);
    else
        gm_buf_puts(b, DASH);
    gm_buf_free(&p);
}

static void S_cell(gm_buf *b, const gm_results *r, const gm_section *s, const gm_run *run,
                   S_col c)
{
    bool withheld = S_failed(run);
    switch (c) {
    case C_VARIANT: S_code(b, run->variant); break;
    case C_PARAMS: S_params_cell(b, s, run); break;
    case C_LAUNCHES: gm_fmt_count(b, gm_run_launches(run)); break;
    case C_TIME: {
        /* the range in the median's unit: "50.5 µs (50.3–51.0, n=20)" */
        double t = gm_run_median_ms(run), scale;
        int dec;
        gm_fmt_ms(b, t);
        if (isfinite(t) && (!gm_run_is_program(run) || run->timing.min != run->timing.max)) {
            gm_fmt_ms_unit(t, &scale, &dec);
            gm_buf_puts(b, " (");
            gm_fmt_fixed(b, run->timing.min * scale, dec);
            gm_buf_puts(b, "–");
            gm_fmt_fixed(b, run->timing.max * scale, dec);
            if (gm_run_is_program(run))
                gm_buf_puts(b, ")");
            else
                gm_buf_printf(b, ", n=%zu)", run->timing.n);
        }
        break;
    }
    case C_TOTAL_TIME: gm_fmt_ms(b, gm_run_total_ms(run)); break;
    case C_SHARE: {
        /* of the section's program kernels' time, all launches */
        double all = S_section_ms(s);
        gm_fmt_pct(b, all > 0 ? 100.0 * gm_run_total_ms(run) / all : NAN);
        break;
    }
    case C_GBS:
        if (withheld && isfinite(gm_run_effective_gbs(run)))
            gm_buf_puts(b, "withheld");
        else
            gm_fmt_gbs(b, gm_run_effective_gbs(run));
        break;
    case C_PCT_COPY: {
        double g = gm_run_effective_gbs(run), copy = gm_results_ceiling_gbs(r, NULL);
        if (withheld && isfinite(g))
            gm_buf_puts(b, "withheld");
        else
            gm_fmt_pct(b, copy > 0 ? 100.0 * g / copy : NAN);
        break;
    }
    case C_DRAM_GBS: gm_fmt_gbs(b, gm_run_dram_gbs(run)); break;
    case C_PCT_CEIL: {
        double g = gm_run_dram_gbs(run), copy = gm_results_ceiling_gbs(r, NULL);
        gm_fmt_pct(b, copy > 0 ? 100.0 * g / copy : NAN);
        break;
    }
    case C_DRAM_TOTAL: {
        double rd = gm_run_metric_num(run, GM_M_DRAM_RD), wr = gm_run_metric_num(run, GM_M_DRAM_WR);
        gm_fmt_bytes(b, rd >= 0 && wr >= 0 ? (rd + wr) * gm_run_launches(run) : NAN);
        break;
    }
    case C_LD_SPR: S_spr(b, gm_run_metric_num(run, GM_M_LD_SPR)); break;
    case C_ST_SPR: S_spr(b, gm_run_metric_num(run, GM_M_ST_SPR)); break;
    case C_LD_EFF: gm_fmt_pct(b, gm_run_metric_num(run, GM_M_LD_EFF)); break;
    case C_ST_EFF: gm_fmt_pct(b, gm_run_metric_num(run, GM_M_ST_EFF)); break;
    case C_DRAM_RD: S_per_launch(b, run, GM_M_DRAM_RD, S_fmt_bytes); break;
    case C_DRAM_WR: S_per_launch(b, run, GM_M_DRAM_WR, S_fmt_bytes); break;
    case C_DRAM_PCT: gm_fmt_pct(b, gm_run_metric_num(run, GM_M_DRAM_PCT)); break;
    case C_SH_LD_WPI: gm_fmt_fixed(b, gm_run_shared_wpi(run, false), 2); break;
    case C_SH_ST_WPI: gm_fmt_fixed(b, gm_run_shared_wpi(run, true), 2); break;
    case C_SH_LD_CONFL: S_per_launch(b, run, GM_M_SH_LD_CONFL, S_fmt_count); break;
    case C_SH_ST_CONFL: S_per_launch(b, run, GM_M_SH_ST_CONFL, S_fmt_count); break;
    case C_CHECK: S_check_text(b, run, true); break;
    case C_COUNT: break;
    }
}

/* A folded block: <details> in Markdown (GitHub shows it closed), a
 * placeholder paragraph the HTML page turns into <details> (raw HTML does not
 * pass cmark there).  Summaries are fixed texts, by number. */
static const char *const S_fold_summary[] = {
    "",
    "More counters of each run: memory efficiency, DRAM traffic, bank conflicts",
};

static void S_fold_open(gm_buf *b, bool html, int which)
{
    if (html)
        gm_buf_printf(b, "![](gm-fold:%d)\n\n", which);
    else
        gm_buf_printf(b, "<details><summary>%s</summary>\n\n", S_fold_summary[which]);
}

/* The page's folds with a count in their summary (render_html.c's table):
 * 2 the explanation's run-by-run list, 3 a section's findings past the
 * first few, 4 each layout's hot lines in full, 5 every run of a large
 * experiment (under its pivot). */
static void S_fold_open_n(gm_buf *b, int which, size_t count)
{
    gm_buf_printf(b, "![](gm-fold:%d:%zu)\n\n", which, count);
}

static void S_fold_close(gm_buf *b, bool html)
{
    gm_buf_puts(b, html ? "![](gm-fold-end:0)\n\n" : "</details>\n\n");
}

/* One table of the runs `rows` with the columns `show`. */
static void S_table_cols(gm_buf *b, const gm_results *r, const gm_section *s,
                         const gm_run *const *rows, size_t n, const bool *show,
                         const char *const *head, const bool *right, bool time_n, bool lean)
{
    for (int c = 0; c < C_COUNT; c++)
        if (show[c]) {
            gm_buf_puts(b, "| ");
            S_text(b, head[c]);
            gm_buf_puts(b, " ");
        }
    gm_buf_puts(b, "|\n");
    for (int c = 0; c < C_COUNT; c++)
        if (show[c])
            gm_buf_puts(b, right[c] ? "|---:" : "|---");
    gm_buf_puts(b, "|\n");
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < C_COUNT; c++)
            if (show[c]) {
                gm_buf_puts(b, "| ");
                if (c == C_TIME && lean) {
                    gm_fmt_ms(b, gm_run_median_ms(rows[i]));
                } else if (c == C_TIME && !time_n) {
                    /* the median and its range; n is in the header */
                    double t = gm_run_median_ms(rows[i]), scale;
                    int dec;
                    gm_fmt_ms(b, t);
                    if (isfinite(t)) {
                        gm_fmt_ms_unit(t, &scale, &dec);
                        gm_buf_puts(b, " (");
                        gm_fmt_fixed(b, rows[i]->timing.min * scale, dec);
                        gm_buf_puts(b, "–");
                        gm_fmt_fixed(b, rows[i]->timing.max * scale, dec);
                        gm_buf_puts(b, ")");
                    }
                } else {
                    S_cell(b, r, s, rows[i], (S_col)c);
                }
                gm_buf_puts(b, " ");
            }
        gm_buf_puts(b, "|\n");
    }
    gm_buf_puts(b, "\n");
}

/* In the Markdown forms, an experiment with more runs than this gets its
 * table pivoted (S_pivot); the HTML page lists every run. */
#define S_MD_ROWS 12
/* ... and lists this many runs where the address-trace model differs. */
#define S_MD_MODEL_ROWS 3

/* "4.0" or "4.0–5.0": a range of values, one when both ends print alike. */
static void S_range(gm_buf *b, double lo, double hi, int dec)
{
    gm_buf x = GM_BUF_INIT, y = GM_BUF_INIT;
    gm_fmt_fixed(&x, lo, dec);
    gm_fmt_fixed(&y, hi, dec);
    gm_buf_puts(b, x.data);
    if (strcmp(x.data, y.data) != 0) {
        gm_buf_puts(b, "–");
        gm_buf_puts(b, y.data);
    }
    gm_buf_free(&x);
    gm_buf_free(&y);
}

static double S_r_ld_spr(const gm_run *r) { return gm_run_metric_num(r, GM_M_LD_SPR); }
static double S_r_st_spr(const gm_run *r) { return gm_run_metric_num(r, GM_M_ST_SPR); }
static double S_r_sh_ld(const gm_run *r) { return gm_run_shared_wpi(r, false); }
static double S_r_sh_st(const gm_run *r) { return gm_run_shared_wpi(r, true); }

typedef struct {
    const char *s;
    size_t i;
} S_keyed;

static int S_keyed_cmp(const void *pa, const void *pb)
{
    const S_keyed *a = pa, *b = pb;
    int c = strcmp(a->s, b->s);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* The distinct strings of v[0..n) numbered in order of first appearance:
 * rank[i] is v[i]'s number, first[k] the index where number k first
 * appears; returns how many there are.  n log n. */
static size_t S_ranks(const char *const *v, size_t n, size_t *rank, size_t *first)
{
    S_keyed *k = gm_xcalloc(n + 1, sizeof *k);
    for (size_t i = 0; i < n; i++)
        k[i] = (S_keyed){v[i], i};
    qsort(k, n, sizeof *k, S_keyed_cmp);
    /* each group's first index (the group is sorted by index) */
    size_t ng = 0;
    size_t *group_first = gm_xcalloc(n + 1, sizeof *group_first);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(k[i].s, k[i - 1].s) != 0)
            group_first[ng++] = k[i].i;
        rank[k[i].i] = ng - 1;   /* provisional: the group's number */
    }
    /* number the groups by first appearance: sort their first indices */
    size_t *order = gm_xcalloc(ng + 1, sizeof *order);
    memcpy(order, group_first, ng * sizeof *order);
    for (size_t g = 0; g < ng; g++)
        first[g] = order[g];
    /* first indices are distinct: a counting map from index to group */
    size_t *group_of_index = gm_xcalloc(n + 1, sizeof *group_of_index);
    for (size_t g = 0; g < ng; g++)
        group_of_index[group_first[g]] = g + 1;
    size_t *number = gm_xcalloc(ng + 1, sizeof *number);
    size_t next = 0;
    for (size_t i = 0; i < n; i++)
        if (group_of_index[i]) {
            number[group_of_index[i] - 1] = next;
            first[next++] = i;
        }
    for (size_t i = 0; i < n; i++)
        rank[i] = number[rank[i]];
    free(k);
    free(group_first);
    free(order);
    free(group_of_index);
    free(number);
    return ng;
}

/* The Markdown forms' table of a large experiment: the median times, one row
 * per set of parameters and one column per variant, then each variant's
 * counters as the range over its runs.  The HTML page (and the results file)
 * have every counter of every run.  False (nothing written) when the runs do
 * not fill such a table (most cells would be empty). */
static bool S_pivot(gm_buf *b, const gm_section *s, const gm_run *const *rows, size_t n,
                    bool same_n, bool html)
{
    const char **vname = gm_xcalloc(n + 1, sizeof *vname);
    char **key = gm_xcalloc(n + 1, sizeof *key);
    size_t *vr = gm_xcalloc(n + 1, sizeof *vr), *kr = gm_xcalloc(n + 1, sizeof *kr);
    size_t *vfirst = gm_xcalloc(n + 1, sizeof *vfirst), *kfirst = gm_xcalloc(n + 1, sizeof *kfirst);
    for (size_t i = 0; i < n; i++) {
        vname[i] = rows[i]->variant ? rows[i]->variant : "";
        gm_buf p = GM_BUF_INIT;
        gm_buf_puts(&p, "");
        gm_vary_params(&s->vary, rows[i], NULL, &p);
        key[i] = gm_buf_detach(&p);
    }
    size_t nv = S_ranks(vname, n, vr, vfirst);
    size_t nk = S_ranks((const char *const *)key, n, kr, kfirst);
    bool ok = nv >= 1 && nk * nv <= 4 * n + 64;
    const gm_run **cell = ok ? gm_xcalloc(nk * nv + 1, sizeof *cell) : NULL;
    for (size_t i = 0; ok && i < n; i++)
        if (!cell[kr[i] * nv + vr[i]])
            cell[kr[i] * nv + vr[i]] = rows[i];
    if (ok) {
        gm_buf_printf(b, "Median time of each of the %zu runs", n);
        if (same_n && n)
            gm_buf_printf(b, " (of %zu timed repetitions)", rows[0]->timing.n);
        gm_buf_puts(b, html ? ", then each variant's counters over its runs; every run's "
                              "counters are in the tables folded below.\n\n"
                            : ", then each variant's counters over its runs; the HTML report "
                              "and the results file give every counter of every run.\n\n");
        gm_buf_puts(b, "| Parameters |");
        for (size_t j = 0; j < nv; j++) {
            gm_buf_puts(b, " ");
            S_code(b, vname[vfirst[j]]);
            gm_buf_puts(b, " |");
        }
        gm_buf_puts(b, "\n|---|");
        for (size_t j = 0; j < nv; j++)
            gm_buf_puts(b, "---:|");
        gm_buf_puts(b, "\n");
        for (size_t k = 0; k < nk; k++) {
            gm_buf_puts(b, "| ");
            S_text(b, *key[kfirst[k]] ? key[kfirst[k]] : DASH);
            gm_buf_puts(b, " |");
            for (size_t j = 0; j < nv; j++) {
                gm_buf_puts(b, " ");
                if (cell[k * nv + j])
                    gm_fmt_ms(b, gm_run_median_ms(cell[k * nv + j]));
                else
                    gm_buf_puts(b, DASH);
                gm_buf_puts(b, " |");
            }
            gm_buf_puts(b, "\n");
        }
        gm_buf_puts(b, "\n");

        /* the counters per variant, as ranges (one pass over the runs) */
        const struct { const char *label; double (*f)(const gm_run *); int dec; } q[] = {
            {S_label(GM_M_LD_SPR, "ld sectors/req"), S_r_ld_spr, 1},
            {S_label(GM_M_ST_SPR, "st sectors/req"), S_r_st_spr, 1},
            {"sh ld wavefronts/inst", S_r_sh_ld, 2},
            {"sh st wavefronts/inst", S_r_sh_st, 2},
        };
        double *lo = gm_xcalloc(4 * nv + 1, sizeof *lo), *hi = gm_xcalloc(4 * nv + 1, sizeof *hi);
        size_t *runs = gm_xcalloc(nv + 1, sizeof *runs);
        for (size_t x = 0; x < 4 * nv; x++) {
            lo[x] = INFINITY;
            hi[x] = -INFINITY;
        }
        bool show[4] = {false, false, false, false}, any = false;
        for (size_t i = 0; i < n; i++) {
            runs[vr[i]]++;
            for (size_t k = 0; k < 4; k++) {
                double v = q[k].f(rows[i]);
                if (!isfinite(v))
                    continue;
                show[k] = any = true;
                lo[vr[i] * 4 + k] = fmin(lo[vr[i] * 4 + k], v);
                hi[vr[i] * 4 + k] = fmax(hi[vr[i] * 4 + k], v);
            }
        }
        if (any) {
            gm_buf_puts(b, "| Variant | Runs |");
            for (size_t k = 0; k < 4; k++)
                if (show[k]) {
                    gm_buf_puts(b, " ");
                    S_text(b, q[k].label);
                    gm_buf_puts(b, " |");
                }
            gm_buf_puts(b, "\n|---|---:|");
            for (size_t k = 0; k < 4; k++)
                if (show[k])
                    gm_buf_puts(b, "---:|");
            gm_buf_puts(b, "\n");
            for (size_t j = 0; j < nv; j++) {
                gm_buf_puts(b, "| ");
                S_code(b, vname[vfirst[j]]);
                gm_buf_printf(b, " | %zu |", runs[j]);
                for (size_t k = 0; k < 4; k++) {
                    if (!show[k])
                        continue;
                    gm_buf_puts(b, " ");
                    if (isfinite(lo[j * 4 + k]))
                        S_range(b, lo[j * 4 + k], hi[j * 4 + k], q[k].dec);
                    else
                        gm_buf_puts(b, DASH);
                    gm_buf_puts(b, " |");
                }
                gm_buf_puts(b, "\n");
            }
            gm_buf_puts(b, "\n");
        }
        free(lo);
        free(hi);
        free(runs);
    }
    for (size_t i = 0; i < n; i++)
        free(key[i]);
    free(key);
    free((void *)vname);
    free(vr);
    free(kr);
    free(vfirst);
    free(kfirst);
    free((void *)cell);
    return ok;
}

/* The runs of an experiment that ran, in two tables so that each fits a
 * screen: time, bandwidth, sectors per request, shared wavefronts and the
 * check; then, folded, the other counters.  Runs that did not run are listed
 * under "Not run" instead; a check column only when some run did not pass. */
static void S_table(gm_buf *b, const gm_results *r, const gm_section *s, bool html)
{
    bool show[C_COUNT];
    const char *head[C_COUNT];
    bool right[C_COUNT];
    for (int c = 0; c < C_COUNT; c++) {
        show[c] = true;
        right[c] = true;
    }
    const gm_run **rows = gm_xcalloc(s->n_runs + 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < s->n_runs; i++)
        if (s->runs[i]->check.status != GM_CHECK_NOT_RUN)
            rows[n++] = s->runs[i];
    if (!n) {
        free((void *)rows);
        return;
    }
    bool all_passed = true, same_n = true;
    for (size_t i = 0; i < n; i++) {
        all_passed &= rows[i]->check.status == GM_CHECK_PASSED;
        same_n &= rows[i]->timing.n == rows[0]->timing.n;
    }
    gm_buf wl = GM_BUF_INIT, ws = GM_BUF_INIT, th = GM_BUF_INIT;
    gm_buf_printf(&wl, "%s/inst", S_label(GM_M_SH_LD_WAVES, "sh ld wavefronts"));
    gm_buf_printf(&ws, "%s/inst", S_label(GM_M_SH_ST_WAVES, "sh st wavefronts"));
    head[C_VARIANT] = "Variant";
    head[C_PARAMS] = "Parameters";
    bool program = gm_section_is_program(s);
    head[C_LAUNCHES] = "Launches";
    head[C_TOTAL_TIME] = "GPU time, all launches";
    bool time_n = !same_n || program;
    if (!html && time_n)
        gm_buf_puts(&th, program ? "Median time per launch" : "Median time");
    else if (!html)
        gm_buf_printf(&th, "Median time of %zu", rows[0]->timing.n);
    else if (time_n)
        gm_buf_puts(&th, program ? "Median time per launch (min–max)" : "Median time (min–max, n)");
    else
        gm_buf_printf(&th, "Median time (min–max of %zu)", rows[0]->timing.n);
    head[C_TIME] = th.data;
    head[C_SHARE] = "Share of GPU time";
    head[C_GBS] = "Effective bandwidth";
    bool attainable;
    gm_results_ceiling_gbs(r, &attainable);
    head[C_PCT_COPY] = attainable ? "% of attainable" : "% of copy bandwidth";
    head[C_DRAM_GBS] = "DRAM bandwidth";
    head[C_PCT_CEIL] = attainable ? "% of attainable" : "% of copy bandwidth";
    head[C_DRAM_TOTAL] = "DRAM bytes, all launches";
    head[C_LD_SPR] = S_label(GM_M_LD_SPR, "ld sectors/req");
    head[C_ST_SPR] = S_label(GM_M_ST_SPR, "st sectors/req");
    head[C_LD_EFF] = S_label(GM_M_LD_EFF, "ld efficiency");
    head[C_ST_EFF] = S_label(GM_M_ST_EFF, "st efficiency");
    gm_buf hrd = GM_BUF_INIT, hwr = GM_BUF_INIT, hlc = GM_BUF_INIT, hsc = GM_BUF_INIT;
    gm_buf_printf(&hrd, "%s%s", S_label(GM_M_DRAM_RD, "DRAM read"), program ? " per launch" : "");
    gm_buf_printf(&hwr, "%s%s", S_label(GM_M_DRAM_WR, "DRAM written"),
                  program ? " per launch" : "");
    gm_buf_printf(&hlc, "%s%s", S_label(GM_M_SH_LD_CONFL, "sh ld conflicts"),
                  program ? " per launch" : "");
    gm_buf_printf(&hsc, "%s%s", S_label(GM_M_SH_ST_CONFL, "sh st conflicts"),
                  program ? " per launch" : "");
    head[C_DRAM_RD] = hrd.data;
    head[C_DRAM_WR] = hwr.data;
    head[C_DRAM_PCT] = S_label(GM_M_DRAM_PCT, "DRAM % peak");
    head[C_SH_LD_WPI] = wl.data;
    head[C_SH_ST_WPI] = ws.data;
    head[C_SH_LD_CONFL] = hlc.data;
    head[C_SH_ST_CONFL] = hsc.data;
    head[C_CHECK] = "Check";
    right[C_VARIANT] = right[C_PARAMS] = right[C_CHECK] = false;
    /* a program's kernels: where the time goes; no useful bytes are known, and
     * there is nothing to check (the section's introduction says so once) */
    show[C_SHARE] = show[C_LAUNCHES] = show[C_TOTAL_TIME] = program;
    show[C_GBS] = show[C_PCT_COPY] = !program;
    /* the Markdown forms: the bandwidth, not its share (the header gives the ceiling) */
    show[C_PCT_COPY] &= html;
    show[C_CHECK] = !program && !all_passed;
    /* a program's kernels: DRAM bytes over time, against the measured ceiling */
    show[C_DRAM_GBS] = program && S_any_metric(s, GM_M_DRAM_RD) && S_any_metric(s, GM_M_DRAM_WR);
    show[C_PCT_CEIL] = show[C_DRAM_GBS] && gm_results_ceiling_gbs(r, NULL) > 0;
    show[C_DRAM_TOTAL] = show[C_DRAM_GBS];

    /* a parameters column only when the runs differ in some parameter */
    show[C_PARAMS] = false;
    for (size_t i = 0; i < s->n_runs && !show[C_PARAMS]; i++) {
        gm_buf p = GM_BUF_INIT;
        gm_vary_params(&s->vary, s->runs[i], NULL, &p);
        show[C_PARAMS] = p.len > 0;
        gm_buf_free(&p);
    }
    /* optional metric columns: left out when no run has a value */
    static const struct { S_col col; const char *metric; } opt[] = {
        {C_ST_SPR, GM_M_ST_SPR}, {C_ST_EFF, GM_M_ST_EFF}, {C_DRAM_RD, GM_M_DRAM_RD},
        {C_DRAM_WR, GM_M_DRAM_WR}, {C_DRAM_PCT, GM_M_DRAM_PCT},
    };
    gm_buf left_out = GM_BUF_INIT;
    gm_buf_puts(&left_out, "");
    for (size_t k = 0; k < sizeof opt / sizeof opt[0]; k++) {
        show[opt[k].col] = S_any_metric(s, opt[k].metric);
        if (!show[opt[k].col])
            gm_buf_printf(&left_out, "%s%s", left_out.len ? ", " : "", head[opt[k].col]);
    }
    /* shared-memory columns only where shared memory was used */
    bool sh_ld = S_any_shared(s, false), sh_st = S_any_shared(s, true);
    show[C_SH_LD_WPI] = sh_ld;
    show[C_SH_ST_WPI] = sh_st;
    show[C_SH_LD_CONFL] = sh_ld && S_any_metric(s, GM_M_SH_LD_CONFL);
    show[C_SH_ST_CONFL] = sh_st && S_any_metric(s, GM_M_SH_ST_CONFL);

    /* first table: what the reader compares; second: the rest, folded */
    static const S_col second[] = {C_LD_EFF, C_ST_EFF, C_DRAM_RD, C_DRAM_WR, C_DRAM_PCT,
                                   C_SH_LD_CONFL, C_SH_ST_CONFL};
    bool show1[C_COUNT], show2[C_COUNT];
    memcpy(show1, show, sizeof show1);
    memset(show2, 0, sizeof show2);
    bool any2 = false;
    for (size_t k = 0; k < sizeof second / sizeof second[0]; k++) {
        show2[second[k]] = show[second[k]];
        any2 |= show[second[k]];
        show1[second[k]] = false;
    }
    /* a program's page: nine columns fit a 1280-px screen; its group totals of
     * DRAM bytes go to the second table and its shared-memory counters to a
     * third, both folded (the Markdown, which GitHub scrolls sideways, keeps
     * wavefronts per instruction in the first and sends the rest to the page) */
    bool show3[C_COUNT], any3 = false;
    memset(show3, 0, sizeof show3);
    if (program && html) {
        show2[C_DRAM_TOTAL] = show[C_DRAM_TOTAL];
        any2 |= show[C_DRAM_TOTAL];
        show1[C_DRAM_TOTAL] = false;
        static const S_col shared[] = {C_SH_LD_WPI, C_SH_ST_WPI, C_SH_LD_CONFL, C_SH_ST_CONFL};
        for (size_t k = 0; k < sizeof shared / sizeof shared[0]; k++) {
            show3[shared[k]] = show[shared[k]];
            any3 |= show[shared[k]];
            show1[shared[k]] = show2[shared[k]] = false;
        }
        any2 = false;
        for (int k = 0; k < C_COUNT; k++)
            any2 |= show2[k];
    }
    bool pivot = !program && n > S_MD_ROWS && S_pivot(b, s, rows, n, same_n, html);
    if (pivot) {
        if (html) {
            /* the page: every run, folded under the pivot */
            S_fold_open_n(b, 5, n);
            S_table_cols(b, r, s, rows, n, show1, head, right, time_n, false);
            S_fold_close(b, true);
        }
    } else {
        S_table_cols(b, r, s, rows, n, show1, head, right, time_n, !html);
    }
    if (all_passed && !program)
        gm_buf_printf(b, "%s %zu run%s passed %s check against the CPU reference.\n\n",
                      n == 1 ? "The" : n == 2 ? "Both" : "All", n, n == 1 ? "" : "s",
                      n == 1 ? "its" : "their");
    if (pivot && !html) {
        /* the pivot's introduction sends the reader to the HTML report */
    } else if (any2 && !html) {
        gm_buf_puts(b, "Efficiency, DRAM and bank-conflict counters: in the HTML report.\n\n");
    } else if (any2) {
        show2[C_VARIANT] = true;
        show2[C_PARAMS] = show[C_PARAMS];
        S_fold_open(b, html, 1);
        S_table_cols(b, r, s, rows, n, show2, head, right, time_n, !html);
        S_fold_close(b, html);
    }
    if (any3) {   /* a program's page only (above): fold 6 exists there alone */
        show3[C_VARIANT] = true;
        S_fold_open(b, true, 6);
        S_table_cols(b, r, s, rows, n, show3, head, right, time_n, false);
        S_fold_close(b, true);
    }
    if (left_out.len && (html || !pivot)) {
        gm_buf_puts(b, "No run of this experiment has a value for: ");
        S_text(b, left_out.data);
        gm_buf_puts(b, " (columns left out).\n\n");
    }
    if (program) {
        gm_buf_puts(b, "Rows by share of the GPU time, largest first. Counts are per launch: the "
                       "mean of the kernel's launches, with the smallest and largest launch in "
                       "parentheses where they differ; the columns marked \"all launches\" "
                       "are the group's totals");
        if (show[C_DRAM_GBS])
            gm_buf_puts(b, ". DRAM bandwidth is the DRAM bytes read and written per launch over "
                           "the GPU time per launch");
        if (show[C_PCT_CEIL])
            gm_buf_puts(b, attainable ? ", and its share of the attainable bandwidth measured on "
                                        "the device"
                                      : ", and its share of the copy bandwidth measured inside "
                                        "the program (a device-to-device copy, bytes read + "
                                        "written)");
        gm_buf_puts(b, ".\n\n");
    }
    free((void *)rows);
    gm_buf_free(&th);
    gm_buf_free(&left_out);
    gm_buf_free(&wl);
    gm_buf_free(&ws);
    gm_buf_free(&hrd);
    gm_buf_free(&hwr);
    gm_buf_free(&hlc);
    gm_buf_free(&hsc);
}

/* ---- predicted beside measured ------------------------------------------------- */

/* The quantities the model predicts per request or instruction. */
typedef struct {
    const char *label;
    double (*measured)(const gm_run *run);
    double (*predicted)(const gm_run *run);
    int decimals;
} S_pq;

static double S_m_ld_spr(const gm_run *r) { return gm_run_metric_num(r, GM_M_LD_SPR); }
static double S_m_st_spr(const gm_run *r) { return gm_run_metric_num(r, GM_M_ST_SPR); }
static double S_m_sh_ld(const gm_run *r) { return gm_run_shared_wpi(r, false); }
static double S_m_sh_st(const gm_run *r) { return gm_run_shared_wpi(r, true); }
static double S_p_ld_spr(const gm_run *r) { return gm_run_predicted_spr(r, false); }
static double S_p_st_spr(const gm_run *r) { return gm_run_predicted_spr(r, true); }
static double S_p_sh_ld(const gm_run *r) { return gm_run_predicted_shared_wpi(r, false); }
static double S_p_sh_st(const gm_run *r) { return gm_run_predicted_shared_wpi(r, true); }

/* "4,096 of 524,288" (a sample, scaled) / "all 131,072" */
static void S_traced(gm_buf *b, const gm_prediction *p)
{
    if (p->warps_total <= 0) {
        gm_buf_puts(b, DASH);
    } else if (p->warps_traced >= p->warps_total && !p->scaled) {
        gm_buf_puts(b, "all ");
        gm_fmt_count(b, (double)p->warps_total);
    } else {
        gm_fmt_count(b, (double)p->warps_traced);
        gm_buf_puts(b, " of ");
        gm_fmt_count(b, (double)p->warps_total);
    }
}

/* What the address-trace model predicted beside what was measured, for the
 * passed runs that carry a prediction: per request or instruction, as the
 * table above gives them, and whether the model's counts agree (the test of
 * the model-mismatch finding). */
static void S_predicted(gm_buf *b, const gm_section *s, bool html)
{
    const S_pq all[] = {
        {S_label(GM_M_LD_SPR, "ld sectors/req"), S_m_ld_spr, S_p_ld_spr, 1},
        {S_label(GM_M_ST_SPR, "st sectors/req"), S_m_st_spr, S_p_st_spr, 1},
        {"sh ld wavefronts/inst", S_m_sh_ld, S_p_sh_ld, 2},
        {"sh st wavefronts/inst", S_m_sh_st, S_p_sh_st, 2},
    };
    const gm_run **runs = gm_xcalloc(s->n_runs + 1, sizeof *runs);
    size_t n = 0;
    for (size_t i = 0; i < s->n_runs; i++)
        if (gm_run_passed(s->runs[i]) && gm_run_has_prediction(s->runs[i]))
            runs[n++] = s->runs[i];
    bool show[4] = {false, false, false, false}, any = false;
    for (size_t k = 0; k < 4; k++) {
        for (size_t i = 0; i < n && !show[k]; i++)
            show[k] = isfinite(all[k].measured(runs[i])) && isfinite(all[k].predicted(runs[i]));
        any |= show[k];
    }
    if (!any) {
        free((void *)runs);
        return;
    }
    /* the runs whose counts the model predicts exactly say nothing the table
     * above does not: they are counted, the others tabled */
    size_t exact = 0, close = 0, m = 0;
    double tol = 0;
    for (size_t i = 0; i < n; i++) {
        double t;
        gm_model_verdict v = gm_model_check(runs[i], &t);
        if (v == GM_MODEL_AGREES && S_model_exact(runs[i])) {
            exact++;
        } else if (v == GM_MODEL_AGREES) {
            close++;
            tol = t;
        } else {
            runs[m++] = runs[i];
        }
    }
    if (html)
        gm_buf_puts(b, "The address-trace model (docs/model.md) replays each warp's addresses on "
                       "the CPU and counts what the profiler counts. ");
    else
        gm_buf_puts(b, "**Address-trace model** (docs/model.md): ");
    if (exact == n && !html) {
        gm_buf_printf(b, "exact for %s %zu run%s with a prediction (sectors, requests, "
                         "wavefronts).\n\n",
                      n == 1 ? "the" : "all", n, n == 1 ? "" : "s");
    } else if (exact == n) {
        gm_buf_printf(b, "For %s %zu run%s with a prediction, its sectors, requests and "
                         "shared-memory wavefronts equal the counters exactly.\n\n",
                      n == 1 ? "the" : "all", n, n == 1 ? "" : "s");
    } else if (close == n) {
        gm_buf_printf(b, "%s %s %zu run%s with a prediction, its sectors, requests and "
                         "shared-memory wavefronts agree with the counters within ",
                      html ? "For" : "for", n == 1 ? "the" : "all", n, n == 1 ? "" : "s");
        gm_fmt_pct(b, 100.0 * tol);
        gm_buf_puts(b, ".\n\n");
    } else {
        gm_buf_printf(b, "%s the %zu runs with a prediction, ", html ? "Of" : "of", n);
        if (exact)
            gm_buf_printf(b, "%zu match%s the counters exactly", exact, exact == 1 ? "es" : "");
        if (close) {
            gm_buf_printf(b, "%s%zu agree%s with them within ", exact ? ", " : "", close,
                          close == 1 ? "s" : "");
            gm_fmt_pct(b, 100.0 * tol);
        }
        if (m)
            gm_buf_printf(b, "%s%zu differ%s:", exact || close ? " and " : "", m,
                          m == 1 ? "s" : "");
        gm_buf_puts(b, m ? "\n\n" : ".\n\n");
    }
    n = m;
    if (!n) {
        free((void *)runs);
        return;
    }
    for (size_t k = 0; k < 4; k++) {
        show[k] = false;
        for (size_t i = 0; i < n && !show[k]; i++)
            show[k] = isfinite(all[k].measured(runs[i])) && isfinite(all[k].predicted(runs[i]));
    }
    gm_buf_puts(b, "*Each cell reads measured / predicted; where a sample of the warps was "
                   "traced, its counts are scaled to all of them.*\n\n");
    bool params = false;
    for (size_t i = 0; i < n && !params; i++) {
        gm_buf p = GM_BUF_INIT;
        gm_vary_params(&s->vary, runs[i], NULL, &p);
        params = p.len > 0;
        gm_buf_free(&p);
    }
    gm_buf_puts(b, "| Variant |");
    if (params)
        gm_buf_puts(b, " Parameters |");
    gm_buf_puts(b, " Warps traced |");
    for (size_t k = 0; k < 4; k++)
        if (show[k]) {
            gm_buf_putc(b, ' ');
            S_text(b, all[k].label);
            gm_buf_puts(b, " |");
        }
    gm_buf_puts(b, " Model against counters |\n|---|");
    if (params)
        gm_buf_puts(b, "---|");
    gm_buf_puts(b, "---|");
    for (size_t k = 0; k < 4; k++)
        if (show[k])
            gm_buf_puts(b, "---:|");
    gm_buf_puts(b, "---|\n");
    /* the Markdown forms: the first few; the HTML page: all */
    size_t all_n = n;
    if (!html && n > S_MD_MODEL_ROWS)
        n = S_MD_MODEL_ROWS;
    for (size_t i = 0; i < n; i++) {
        const gm_run *run = runs[i];
        gm_buf_puts(b, "| ");
        S_code(b, run->variant);
        gm_buf_puts(b, " | ");
        if (params) {
            S_params_cell(b, s, run);
            gm_buf_puts(b, " | ");
        }
        S_traced(b, &run->prediction);
        for (size_t k = 0; k < 4; k++) {
            if (!show[k])
                continue;
            gm_buf_puts(b, " | ");
            gm_fmt_fixed(b, all[k].measured(run), all[k].decimals);
            gm_buf_puts(b, " / ");
            gm_fmt_fixed(b, all[k].predicted(run), all[k].decimals);
        }
        gm_buf_puts(b, " | ");
        double tol;
        switch (gm_model_check(run, &tol)) {
        case GM_MODEL_AGREES:
            if (S_model_exact(run)) {
                gm_buf_puts(b, "exact");
            } else {
                gm_buf_puts(b, "agrees within ");
                gm_fmt_pct(b, 100.0 * tol);
            }
            break;
        case GM_MODEL_DIFFERS:
            gm_buf_puts(b, "**differs** by more than ");
            gm_fmt_pct(b, 100.0 * tol);
            gm_buf_puts(b, " (see the findings)");
            break;
        case GM_MODEL_NONE:
            gm_buf_puts(b, "no count to compare");
            break;
        }
        gm_buf_puts(b, " |\n");
    }
    gm_buf_puts(b, "\n");
    if (all_n > n)
        gm_buf_printf(b, "%zu more run%s: in the HTML report.\n\n", all_n - n,
                      all_n - n == 1 ? "" : "s");
    free((void *)runs);
}

/* ---- what the numbers say -------------------------------------------------- */

/* One explanation per section, written by findings.c from the numbers, then
 * the section's findings (runs that failed or did not run are flagged above
 * the table, not again here). */
/* A finding item cut to its first sentence, its estimated saving (what ranks
 * it), the source line it names and the count of runs the same rule fires
 * on: the Markdown forms' length (the HTML page keeps it all). */
static void S_findings_lean(gm_buf *b, const char *items)
{
    for (const char *p = items; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len < 4 || strncmp(p, "- **", 4) != 0) {
            gm_buf_put(b, p, len);
            gm_buf_putc(b, '\n');
            p += len + (eol ? 1 : 0);
            continue;
        }
        const char *end = p + len, *cut = NULL;
        for (const char *c = p + 4; c + 2 < end && !cut; c++)
            if (c[0] == '.' && c[1] == ' ' && ((c[2] >= 'A' && c[2] <= 'Z') || c[2] == '`'))
                cut = c + 1;
        if (!cut) {
            gm_buf_put(b, p, len);
        } else {
            gm_buf_put(b, p, (size_t)(cut - p));
            /* then, of findings.c's later sentences, the estimated saving ("Not
             * moving the excess ..."), the line that causes it ("The line:
             * ...") and the count of similar runs, which follow one another
             * at the end of the item: from the first of them to the end */
            static const char *const keep[] = {" Not moving the excess ", " The line: ",
                                               " The same rule fires on "};
            const char *from = NULL;
            for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++) {
                size_t kl = strlen(keep[k]);
                for (const char *c = cut; c + kl <= end; c++)
                    if (strncmp(c, keep[k], kl) == 0) {
                        if (!from || c < from)
                            from = c;
                        break;
                    }
            }
            if (from)
                gm_buf_put(b, from, (size_t)(end - from));
        }
        gm_buf_putc(b, '\n');
        p += len + (eol ? 1 : 0);
    }
}

/* In the Markdown forms, sweeps described in words: at most this many lines
 * (the charts draw them all). */
#define S_MD_SWEEP_LINES 3

/* The page shows a section's costliest findings and folds the others. */
#define S_SECTION_FINDINGS 1

/* The explanation's paragraphs as the Markdown forms give them: without the
 * model's summary (the section says what the model predicted above), the
 * count of runs not compared, the fastest run against the slowest and the
 * baseline layout against the fastest (the section's answer is the
 * comparison the experiment exists for), and with a sweep
 * described for its first few lines.  Without an answer (a results file
 * that predates the experiments' questions), the comparisons stay: they are
 * all the section says.  Writes `text` so trimmed to out. */
static void S_explain_lean(gm_buf *out, const char *text, bool answered)
{
    gm_buf_puts(out, "");
    for (const char *p = text; *p;) {
        const char *end = strstr(p, "\n\n");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *next = end ? end + 2 : p + len;
        gm_buf para = GM_BUF_INIT;
        gm_buf_put(&para, p, len);
        gm_buf_puts(&para, "");
        p = next;
        char *t = para.data;
        /* the fastest against the slowest: the section's answer is the
         * comparison the experiment exists for */
        bool why = answered && t[0] == '`' && strstr(t, " is the fastest (") &&
                   (size_t)(strstr(t, " is the fastest (") - t) < 200;
        /* "N passed runs do the same work (...), each reading ...": the
         * introduction of the run-by-run list the Markdown forms leave out */
        bool intro = answered && t[0] >= '0' && t[0] <= '9' && strstr(t, " do the same work") &&
                     (size_t)(strstr(t, " do the same work") - t) < 40;
        if (why || intro || strncmp(t, "The address-trace model", 23) == 0 ||
            strncmp(t, "Where no predicted figure", 25) == 0) {
            gm_buf_free(&para);
            continue;
        }
        /* "N other passed runs do a different amount of work (...) and are not
         * compared with these. " */
        if (t[0] >= '0' && t[0] <= '9') {
            static const char tail[] = "not compared with these.";
            char *x = strstr(t, tail);
            if (x && strstr(t, "other passed run") && (size_t)(strstr(t, "other passed run") - t) < 12) {
                x += sizeof tail - 1;
                while (*x == ' ')
                    x++;
                memmove(t, x, strlen(x) + 1);
            }
        }
        /* the first paragraph announces the run-by-run list the Markdown
         * forms leave out */
        static const char *const gone[] = {", fastest first.", " The HTML report describes each "
                                           "of them from its counters."};
        for (size_t g = 0; g < 2; g++) {
            char *x = strstr(t, gone[g]);
            if (!x)
                continue;
            char *from = x;
            if (g == 0) {
                /* "; 6 of them, fastest first." */
                char *semi = NULL;
                for (char *c = t; c < x; c++)
                    if (c[0] == ';' && c[1] == ' ')
                        semi = c;
                if (semi && strncmp(x - 8, " of them", 8) == 0)
                    from = semi;
                memmove(from + 1, x + strlen(gone[g]), strlen(x + strlen(gone[g])) + 1);
                *from = '.';
            } else {
                memmove(from, x + strlen(gone[g]), strlen(x + strlen(gone[g])) + 1);
            }
        }
        char *base = answered ? strstr(t, " The baseline layout ") : NULL;
        if (base)
            *base = '\0';
        if (strncmp(t, "Along ", 6) == 0) {
            /* "Along `p`: item; item; item. The charts show N more lines." */
            size_t items = 1;
            char *cut = NULL;
            for (char *c = t; *c; c++)
                if (c[0] == ';' && c[1] == ' ' && ++items == S_MD_SWEEP_LINES + 1 && !cut)
                    cut = c;
            if (cut) {
                *cut = '\0';
                gm_buf_put(out, t, strlen(t));
                gm_buf_puts(out, ". The charts draw every line.\n\n");
                gm_buf_free(&para);
                continue;
            }
        }
        size_t l = strlen(t);
        while (l && t[l - 1] == ' ')
            t[--l] = '\0';
        if (l) {
            gm_buf_put(out, t, l);
            gm_buf_puts(out, "\n\n");
        }
        gm_buf_free(&para);
    }
}

static void S_explain(gm_buf *b, const gm_results *r, const gm_section *s, const gm_findings *f,
                      bool html)
{
    gm_buf e = GM_BUF_INIT;
    gm_explain_section(r, s, &e);
    if (e.len && !html) {
        /* the Markdown forms leave out the run-by-run list (the table has the
         * figures; the HTML page has the list) */
        gm_buf lean = GM_BUF_INIT;
        gm_buf_puts(&lean, "");
        bool dropped = false;
        for (const char *p = e.data; *p;) {
            const char *eol = strchr(p, '\n');
            size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);
            bool item = len >= 2 && p[0] == '-' && p[1] == ' ';
            if (item) {
                dropped = true;
            } else if (dropped && len == 1 && lean.len >= 2 &&
                       lean.data[lean.len - 1] == '\n' && lean.data[lean.len - 2] == '\n') {
                /* the blank line after the list */
            } else {
                gm_buf_put(&lean, p, len);
            }
            p += len;
        }
        if (dropped) {
            /* say where the list went, at the end of the first paragraph */
            const char *para = strstr(lean.data, "\n\n");
            gm_buf out = GM_BUF_INIT;
            if (para) {
                gm_buf_put(&out, lean.data, (size_t)(para - lean.data));
                gm_buf_puts(&out, " The HTML report describes each of them from its counters.");
                gm_buf_puts(&out, para);
            } else {
                gm_buf_puts(&out, lean.data);
            }
            gm_buf_free(&lean);
            lean = out;
        }
        gm_buf_free(&e);
        e = lean;
        lean = (gm_buf)GM_BUF_INIT;
        gm_contrast ct;
        S_explain_lean(&lean, e.data, gm_contrast_find(s, &ct));
        gm_buf_free(&e);
        e = lean;
    }
    if (e.len && html) {
        /* the page folds the run-by-run list */
        const char *list = strncmp(e.data, "- ", 2) == 0 ? e.data : strstr(e.data, "\n\n- ");
        if (list && list != e.data)
            list += 2;
        const char *end = list ? strstr(list, "\n\n") : NULL;
        if (list && end) {
            size_t items = 0;
            for (const char *q = list; q < end; q = strchr(q, '\n') + 1) {
                items += strncmp(q, "- ", 2) == 0;
                if (!strchr(q, '\n'))
                    break;
            }
            gm_buf_puts(b, "**What the numbers say.** ");
            gm_buf_put(b, e.data, (size_t)(list - e.data));
            S_fold_open_n(b, 2, items);
            gm_buf_put(b, list, (size_t)(end - list));
            gm_buf_puts(b, "\n\n");
            S_fold_close(b, true);
            gm_buf_puts(b, end + 2);
        } else {
            gm_buf_puts(b, "**What the numbers say.** ");
            gm_buf_put(b, e.data, e.len);
        }
    } else if (e.len) {
        gm_buf_puts(b, "**What the numbers say.** ");
        gm_buf_put(b, e.data, e.len);
    }
    gm_buf_free(&e);
    unsigned skip = GM_RULE_BIT(GM_RULE_VALIDATION) | GM_RULE_BIT(GM_RULE_NOT_RUN);
    size_t all = gm_findings_count(f, s->exp->id, true, skip);
    if (all && !html) {
        /* the Markdown forms: the run's costliest are in its Findings section */
        gm_buf_printf(b, "**Findings:** %zu, in the HTML report (the run's costliest: "
                         "[Findings](#findings)).\n\n",
                      all);
    } else if (all) {
        gm_buf_puts(b, "**Findings** (one per layout and rule, costliest first):\n\n");
        gm_buf items = GM_BUF_INIT;
        gm_buf_puts(&items, "");
        size_t shown = gm_findings_md_except(f, s->exp->id, 0, true, skip, &items);
        /* the costliest few in view, the others folded */
        const char *cut = items.data;
        for (int k = 0; k <= S_SECTION_FINDINGS && cut; k++)
            cut = k == 0 ? cut : strstr(cut + 1, "\n- **");
        if (cut && shown > S_SECTION_FINDINGS) {
            cut++;
            gm_buf_put(b, items.data, (size_t)(cut - items.data));
            gm_buf_puts(b, "\n");
            S_fold_open_n(b, 3, shown - S_SECTION_FINDINGS);
            gm_buf_puts(b, cut);
            gm_buf_puts(b, "\n");
            S_fold_close(b, true);
        } else {
            gm_buf_put(b, items.data, items.len);
        }
        gm_buf_free(&items);
        if (all > shown)
            gm_buf_printf(b, "%zu more, of lesser cost, in the HTML report.\n\n", all - shown);
    }
}

/* ---- a program's kernel signatures ------------------------------------------- */

/* The full signature of each kernel, once, after the table whose rows name
 * them by their short names: a list in Markdown; folded in a <details> on
 * the HTML page (the placeholders become the tags in render_html.c). */
static void S_signatures(gm_buf *b, const gm_section *s, bool html)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *run = s->runs[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = s->runs[j]->kernel && run->kernel && strcmp(s->runs[j]->kernel, run->kernel) == 0;
        n += !seen && run->kernel && (!run->variant || strcmp(run->kernel, run->variant) != 0);
    }
    if (!n)
        return;
    if (html)
        gm_buf_printf(b, "![](gm-details:open:%zu)\n\n", n);
    else
        gm_buf_printf(b, "Full signatures of the %zu kernel%s named above by their base names:\n\n",
                      n, n == 1 ? "" : "s");
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *run = s->runs[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = s->runs[j]->kernel && run->kernel && strcmp(s->runs[j]->kernel, run->kernel) == 0;
        if (seen || !run->kernel || (run->variant && strcmp(run->kernel, run->variant) == 0))
            continue;
        gm_buf_puts(b, "- ");
        /* every row of this kernel */
        bool first = true;
        for (size_t j = i; j < s->n_runs; j++)
            if (s->runs[j]->kernel && strcmp(s->runs[j]->kernel, run->kernel) == 0) {
                if (!first)
                    gm_buf_puts(b, ", ");
                S_code(b, s->runs[j]->variant);
                first = false;
            }
        gm_buf_puts(b, ": ");
        S_code(b, run->kernel);
        gm_buf_puts(b, "\n");
    }
    gm_buf_puts(b, "\n");
    if (html)
        gm_buf_puts(b, "![](gm-details:close:0)\n\n");
}

/* The source documents (../shared/seeds/, README there) by name, for the
 * experiments' "it tests 003 (...)" and notes' "seed 002": a reader does not
 * know the numbers.  Names as the descriptors
 * (kernels/<experiment>/<experiment>.c) give them. */
static const char *const S_docs[] = {
    "an untitled article on memory coalescing",
    "untitled notes on cache lines and sectors",
    "Optimizing Memory Access Efficiency in CUDA Kernel via Data Layout Technique",
    "Lab 4, Geavanceerde Computerarchitectuur (KU Leuven)",
    "Part 17: Memory Hierarchy (CUDA course module)",
};

/* text with "seed 00N" and a leading or listed "00N" (after ", " or "; ",
 * before " (", ",", ";" or the end) replaced by the document's name.  Caller frees. */
static char *gm_doc_titles(const char *text)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "");
    const size_t nd = sizeof S_docs / sizeof S_docs[0];
    for (const char *p = text ? text : ""; *p;) {
        bool seed = strncmp(p, "seed 00", 7) == 0;
        const char *d = seed ? p + 5 : p;
        bool at_item = p == text || (p - text >= 2 && (p[-2] == ',' || p[-2] == ';') && p[-1] == ' ');
        if ((seed || at_item) && d[0] == '0' && d[1] == '0' && d[2] >= '0' &&
            (size_t)(d[2] - '0') < nd && !(d[3] >= '0' && d[3] <= '9') &&
            (seed || d[3] == '\0' || d[3] == ',' || d[3] == ';' || (d[3] == ' ' && d[4] == '('))) {
            gm_buf_puts(&b, S_docs[d[2] - '0']);
            p = d + 3;
            continue;
        }
        gm_buf_putc(&b, *p++);
    }
    return gm_buf_detach(&b);
}

/* ---- said once ---------------------------------------------------------------- */

typedef struct {
    const gm_run *run;
    const char *text;
} gm_run_text;

/* The text with every run of digits as '#': notes that differ only in their
 * figures have one shape. */
static char *S_shape(const char *t)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "");
    for (const char *p = t ? t : ""; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            while (p[1] >= '0' && p[1] <= '9')
                p++;
            gm_buf_putc(&b, '#');
        } else {
            gm_buf_putc(&b, *p);
        }
    }
    return gm_buf_detach(&b);
}

/* A program's notes: what every kernel shares once, then one line per kernel
 * (row) with the rest of its notes, "; "-joined, in the table's order: a
 * reader looks a kernel up, not a kind of note. */
/* qsort order of items: by text, then by run (its address: only equality
 * matters). */
static int S_item_cmp(const void *pa, const void *pb)
{
    const gm_run_text *a = *(const gm_run_text *const *)pa, *b = *(const gm_run_text *const *)pb;
    int c = strcmp(a->text, b->text);
    if (c)
        return c;
    return a->run < b->run ? -1 : a->run > b->run;
}

static void S_said_per_kernel(gm_buf *b, const gm_section *s, const char *title,
                              const gm_run_text *items, size_t n)
{
    bool *common = gm_xcalloc(n, sizeof *common);
    gm_buf_printf(b, "%s\n\n", title);
    /* common: the text is carried by every run of the section; sorted by
     * (text, run), each group's distinct runs are counted in one walk */
    const gm_run_text **ord = gm_xmalloc(n * sizeof *ord);
    for (size_t i = 0; i < n; i++)
        ord[i] = &items[i];
    qsort(ord, n, sizeof *ord, S_item_cmp);
    for (size_t g = 0; g < n;) {
        size_t e = g + 1, runs = 1;
        for (; e < n && strcmp(ord[e]->text, ord[g]->text) == 0; e++)
            runs += ord[e]->run != ord[e - 1]->run;
        for (size_t k = g; k < e; k++)
            common[ord[k] - items] = s->n_runs > 1 && runs == s->n_runs;
        g = e;
    }
    free((void *)ord);
    for (size_t i = 0; i < n; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !(common[j] && strcmp(items[j].text, items[i].text) == 0);
        if (common[i] && first) {
            gm_buf_puts(b, "- every kernel: ");
            char *t = gm_doc_titles(items[i].text);
            S_text(b, t);
            free(t);
            gm_buf_puts(b, "\n");
        }
    }
    for (size_t k = 0; k < s->n_runs; k++) {
        const gm_run *run = s->runs[k];
        size_t said = 0;
        for (size_t i = 0; i < n; i++) {
            if (items[i].run != run || common[i])
                continue;
            if (!said++) {
                gm_buf_puts(b, "- ");
                S_code(b, run->variant ? run->variant : "");
                gm_buf_puts(b, ": ");
            } else {
                gm_buf_puts(b, "; ");
            }
            char *t = gm_doc_titles(items[i].text);
            S_text(b, t);
            free(t);
        }
        if (said)
            gm_buf_puts(b, "\n");
    }
    gm_buf_puts(b, "\n");
    free(common);
}

/* A list under `title`: one item per shape of text, naming the runs it
 * applies to ("every run", a variant's runs, or the runs themselves), with
 * the text of its first run; when the others' figures differ, it says so.
 * A program's notes go kernel by kernel (S_said_per_kernel). */
static void S_said_once(gm_buf *b, const gm_section *s, const char *title,
                        const gm_run_text *items, size_t n)
{
    if (!n)
        return;
    if (gm_section_is_program(s)) {
        S_said_per_kernel(b, s, title, items, n);
        return;
    }
    char **shape = gm_xcalloc(n, sizeof *shape);
    for (size_t i = 0; i < n; i++)
        shape[i] = S_shape(items[i].text);
    bool *done = gm_xcalloc(n, sizeof *done);
    const gm_run **runs = gm_xcalloc(n + 1, sizeof *runs);
    gm_buf_printf(b, "%s\n\n", title);
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t nr = 0;
        bool same_text = true;
        for (size_t j = i; j < n; j++) {
            if (done[j] || strcmp(shape[i], shape[j]) != 0)
                continue;
            done[j] = true;
            bool dup = false;
            for (size_t k = 0; k < nr && !dup; k++)
                dup = runs[k] == items[j].run;
            if (!dup)
                runs[nr++] = items[j].run;
            same_text &= strcmp(items[i].text, items[j].text) == 0;
        }
        /* whom it concerns: every run, every run of one variant, or a few */
        size_t all = 0, of_variant = 0;
        const char *v = runs[0]->variant ? runs[0]->variant : "";
        bool one_variant = true;
        for (size_t k = 0; k < nr; k++)
            one_variant &= runs[k]->variant && strcmp(runs[k]->variant, v) == 0;
        for (size_t k = 0; k < s->n_runs; k++) {
            all++;
            of_variant += s->runs[k]->variant && strcmp(s->runs[k]->variant, v) == 0;
        }
        gm_buf_puts(b, "- ");
        if (nr == all && all > 1) {
            gm_buf_puts(b, gm_section_is_program(s) ? "every kernel" : "every run");
        } else if (one_variant && nr == of_variant) {
            S_code(b, v);
            if (nr > 1)
                gm_buf_printf(b, " (%s %zu runs)", nr == 2 ? "both" : "all", nr);
        } else if (nr <= 3) {
            for (size_t k = 0; k < nr; k++) {
                if (k)
                    gm_buf_puts(b, k + 1 == nr ? " and " : ", ");
                S_case(b, &s->vary, runs[k], NULL);
            }
        } else if (one_variant) {
            S_code(b, v);
            gm_buf_printf(b, " (%zu runs)", nr);
        } else {
            gm_buf_printf(b, "%zu runs", nr);
        }
        gm_buf_puts(b, ": ");
        char *t = gm_doc_titles(items[i].text);
        S_text(b, t);
        free(t);
        if (!same_text) {
            gm_buf_puts(b, " (");
            if (nr > 1 || !one_variant) {
                gm_buf_puts(b, "this for ");
                S_case(b, &s->vary, items[i].run, NULL);
                gm_buf_puts(b, "; ");
            }
            gm_buf_puts(b, "the others with their own figures)");
        }
        gm_buf_puts(b, "\n");
    }
    gm_buf_puts(b, "\n");
    for (size_t i = 0; i < n; i++)
        free(shape[i]);
    free(shape);
    free(done);
    free((void *)runs);
}

/* ---- one experiment ------------------------------------------------------- */

static void S_section(gm_buf *b, const gm_results *r, const gm_sections *ss, size_t si,
                      const gm_charts *charts, const char *chart_dir, const gm_findings *f,
                      bool github)
{
    bool html = !chart_dir && !github;
    const gm_section *s = &ss->v[si];
    const gm_experiment *e = s->exp;
    gm_buf_printf(b, "## %zu. ", si + 1);
    S_text(b, S_exp_title(e));
    gm_buf_puts(b, "\n\n");

    if (!s->listed) {
        gm_buf_puts(b, "The results file has runs of experiment ");
        S_code(b, e->id);
        gm_buf_puts(b, " but does not describe it.\n\n");
    }
    if (e->summary) {
        gm_esc_md_spans(b, e->summary);   /* `...` marks code, as in the layouts */
        gm_buf_puts(b, "\n\n");
    }
    if (s->listed) {
        gm_buf_puts(b, "*Experiment ");
        S_code(b, e->id);
        if (e->source) {
            gm_buf_puts(b, "; it tests ");
            char *src = gm_doc_titles(e->source);
            S_text(b, src);
            free(src);
        }
        if (e->sweep_param) {
            gm_buf_puts(b, "; swept parameter ");
            S_code(b, e->sweep_param);
            if (e->sweep_log2)
                gm_buf_puts(b, " (log2 axis)");
        }
        if (e->series_param) {
            gm_buf_puts(b, "; one line per value of ");
            S_code(b, e->series_param);
        }
        if (e->baseline_variant) {
            gm_buf_puts(b, "; baseline layout ");
            S_code(b, e->baseline_variant);
        }
        gm_buf_puts(b, ".*\n\n");
    }
    gm_contrast_md(b, s);
    if (s->listed && html) {
        /* on paper, the claims are printed once, in their own section */
        gm_buf_puts(b, "![](gm-screen:open)\n\n");
        gm_claims_md(b, r, ss, e->id);
        gm_buf_puts(b, "![](gm-screen:close)\n\n");
    }
    else if (s->listed)
        gm_claims_brief_md(b, r, ss, e->id);

    /* the layouts, once per variant (a program's kernels: their full
     * signatures are folded after the table) */
    bool any_layout = false;
    bool program = gm_section_is_program(s);
    for (size_t i = 0; i < s->n_runs && !program; i++) {
        const gm_run *run = s->runs[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = s->runs[j]->variant && run->variant &&
                   strcmp(s->runs[j]->variant, run->variant) == 0;
        if (seen)
            continue;
        if (!any_layout)
            gm_buf_puts(b, "Layouts:\n\n");
        any_layout = true;
        gm_buf_puts(b, "- ");
        S_code(b, run->variant);
        if (run->layout) {
            gm_buf_puts(b, ": ");
            gm_esc_md_spans(b, run->layout);
        }
        if (run->kernel && html) {
            gm_buf_puts(b, " (kernel ");
            S_code(b, run->kernel);
            gm_buf_puts(b, ")");
        }
        gm_buf_puts(b, "\n");
    }
    if (any_layout)
        gm_buf_puts(b, "\n");

    if (s->n_failed || s->n_error) {
        for (size_t i = 0; i < s->n_runs; i++) {
            const gm_run *run = s->runs[i];
            if (!S_failed(run))
                continue;
            gm_buf_puts(b, "> **Warning:** ");
            S_case(b, &s->vary, run, NULL);
            gm_buf_puts(b, " ");
            S_check_text(b, run, true);
            gm_buf_puts(b, ". Its numbers are shown but no speed claim is drawn from it.\n\n");
        }
    }

    if (s->n_runs) {
        /* parameters every run shares, said once */
        const gm_run *first = s->runs[0];
        gm_buf common = GM_BUF_INIT;
        gm_buf_puts(&common, "");
        for (size_t i = 0; i < first->n_params; i++) {
            const gm_param *p = &first->params[i];
            bool same = true;
            for (size_t k = 1; k < s->n_runs && same; k++) {
                const gm_param *q = gm_run_param(s->runs[k], p->name);
                gm_buf x = GM_BUF_INIT, y = GM_BUF_INIT;
                gm_fmt_value(&x, &p->value);
                if (q)
                    gm_fmt_value(&y, &q->value);
                same = q && q->value.kind == p->value.kind && strcmp(x.data, y.data) == 0;
                gm_buf_free(&x);
                gm_buf_free(&y);
            }
            if (!same)
                continue;
            gm_buf_printf(&common, "%s%s=", common.len ? ", " : "", p->name ? p->name : "");
            gm_fmt_value(&common, &p->value);
        }
        if (common.len) {
            gm_buf_puts(b, "Every run: ");
            S_text(b, common.data);
            gm_buf_puts(b, ".\n\n");
        }
        gm_buf_free(&common);
        S_table(b, r, s, html);
        if (program)
            S_signatures(b, s, html);
        S_predicted(b, s, html);
        gm_srclines_md_brief(b, s->runs, s->n_runs, html);
        if (html) {
            /* every hot line of each layout, folded under the brief table */
            gm_buf full = GM_BUF_INIT;
            gm_buf_puts(&full, "");
            size_t k = gm_srclines_md_layouts(&full, s->runs, s->n_runs);
            if (k) {
                S_fold_open_n(b, 4, k);
                gm_buf_put(b, full.data, full.len);
                S_fold_close(b, true);
            }
            gm_buf_free(&full);
        }
    } else {
        gm_buf_puts(b, "The results file has no run of this experiment.\n\n");
    }

    /* notes and reasons for not running, each said once with the runs it
     * applies to: texts that differ only in their figures are one item */
    {
        gm_run_text *items = gm_xcalloc(1, sizeof *items);
        size_t n_items = 0, cap = 1;
        for (size_t i = 0; i < s->n_runs; i++) {
            const gm_run *run = s->runs[i];
            if (run->check.status == GM_CHECK_NOT_RUN)
                continue;   /* a run that did not run: its reason is enough */
            for (size_t k = 0; k < run->n_notes; k++) {
                if (n_items == cap)
                    items = gm_xrealloc(items, (cap *= 2) * sizeof *items);
                items[n_items++] = (gm_run_text){run, run->notes[k]};
            }
        }
        S_said_once(b, s, "Notes:", items, n_items);
        n_items = 0;
        for (size_t i = 0; i < s->n_runs; i++) {
            const gm_run *run = s->runs[i];
            if (run->check.status != GM_CHECK_NOT_RUN)
                continue;
            if (n_items == cap)
                items = gm_xrealloc(items, (cap *= 2) * sizeof *items);
            items[n_items++] =
                (gm_run_text){run, run->check.reason ? run->check.reason : "no reason given"};
        }
        S_said_once(b, s, "Not run:", items, n_items);
        free(items);
    }

    if (github) {
        size_t nc = 0;
        for (size_t i = 0; charts && i < charts->n; i++)
            nc += charts->v[i].section == si;
        if (nc)
            gm_buf_printf(b, "*%zu chart%s left out of this form (the HTML report draws "
                             "%s).*\n\n", nc, nc == 1 ? "" : "s", nc == 1 ? "it" : "them");
        S_explain(b, r, s, f, false);
        return;
    }
    bool any_chart = false;
    for (size_t i = 0; charts && i < charts->n; i++) {
        const gm_chart *c = &charts->v[i];
        if (c->section != si)
            continue;
        if (!chart_dir) {
            gm_buf_printf(b, "![](gm-charts:%zu)\n\n", si);
            any_chart = true;
            break;
        }
        if (c->failed) {
            /* a chart gnuplot could not draw: said where it would be */
            gm_buf_printf(b, "> **Chart not drawn:** %s, ", c->name);
            S_text(b, c->title);
            gm_buf_puts(b, ". ");
            S_text(b, c->failed);
            gm_buf_puts(b, "\n\n");
            any_chart = true;
            continue;
        }
        /* the alt text without the experiment's title, which the heading gives */
        const char *alt = c->title;
        size_t tl = strlen(S_exp_title(e));
        if (strncmp(alt, S_exp_title(e), tl) == 0 && alt[tl] == ':' && alt[tl + 1] == ' ')
            alt += tl + 2;
        gm_buf_puts(b, "![");
        S_text(b, alt);
        gm_buf_puts(b, "](");
        S_url(b, chart_dir);
        gm_buf_puts(b, "/");
        S_url(b, c->name);
        gm_buf_puts(b, ".svg)\n\n");
        any_chart = true;
    }
    (void)any_chart;

    S_explain(b, r, s, f, html);
}

/* ---- how the numbers were obtained ---------------------------------------- */

static void S_shell_word(gm_buf *b, const char *w)
{
    bool plain = *w != '\0';
    for (const char *p = w; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                strchr("-_./:=,+@%", *p);
    if (plain) {
        gm_buf_puts(b, w);
        return;
    }
    gm_buf_putc(b, '\'');
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            gm_buf_puts(b, "'\\''");
        else
            gm_buf_putc(b, *p);
    }
    gm_buf_putc(b, '\'');
}

static void S_method(gm_buf *b, const gm_results *r, const gm_sections *ss, bool timestamp,
                     bool html)
{
    const gm_device *d = &r->device;
    const gm_collection *c = &r->collection;
    size_t timed = 0, flushed = 0, gated = 0, passed = 0, failed = 0, errors = 0, not_run = 0, unchecked = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        if (run->timing.present) {
            timed++;
            flushed += run->timing.l2_flushed;
            gated += run->timing.gated;
        }
        switch (run->check.status) {
        case GM_CHECK_PASSED: passed++; break;
        case GM_CHECK_FAILED: failed++; break;
        case GM_CHECK_ERROR: errors++; break;
        case GM_CHECK_NOT_RUN: not_run++; break;
        case GM_CHECK_NO_REFERENCE: unchecked++; break;
        }
    }
    (void)ss;

    gm_buf_puts(b, "## How these numbers were obtained\n\n");

    gm_buf_puts(b, "- **Device and software.** ");
    S_text(b, d->name ? d->name : "unknown device");
    gm_buf_printf(b, " (compute capability %d.%d), driver ", d->cc_major, d->cc_minor);
    S_text(b, d->driver_version ? d->driver_version : DASH);
    gm_buf_puts(b, ", CUDA runtime ");
    S_cuda_version(b, d->cuda_runtime);
    gm_buf_puts(b, ", CUPTI API ");
    if (d->cupti_api > 0)
        gm_buf_printf(b, "%lld", d->cupti_api);
    else
        gm_buf_puts(b, DASH);
    gm_buf_puts(b, "; gpumem-report ");
    S_text(b, r->tool_version ? r->tool_version : DASH);
    if (r->commit) {
        gm_buf_puts(b, " at commit ");
        S_code(b, r->commit);
        gm_buf_puts(b, r->dirty == 1 ? " with uncommitted changes" : "");
    }
    gm_buf_puts(b, ".\n");

    bool program = r->n_runs > 0;
    for (size_t i = 0; i < r->n_runs; i++)
        program = program && gm_run_is_program(&r->runs[i]);
    if (program)
        gm_buf_puts(b, "- **Times** are the profiler's own duration of each launch "
                       "(`gpu__time_duration.sum`, measured in one of its passes): the "
                       "program's launches are not repeated for timing. Where launches are "
                       "grouped, the tables give the median launch with the minimum, maximum and "
                       "number of launches, and the share of GPU time counts every launch. ");
    else
        gm_buf_printf(b, "- **Times** are taken with CUDA events around each launch alone: %d "
                         "warm-up launches are discarded, then %d repetitions are timed per run; "
                         "the tables give the median with the minimum, maximum and number of "
                         "samples. ",
                      c->timing_warmup, c->timing_repetitions);
    if (!program && gated > 0)
        gm_buf_printf(b, "Runs whose repetitions take under 2 ms (%zu of the %zu timed) enqueue "
                         "them behind a one-thread gate kernel and release them together, so a "
                         "sample is the kernel on the GPU, not the host's time to submit it. ",
                      gated, timed);
    if (timed == 0)
        gm_buf_puts(b, "No run in this file has a time.\n");
    else if (flushed == timed && program)
        gm_buf_puts(b, "L2 was flushed before every pass, so each launch starts from DRAM.\n");
    else if (flushed == timed)
        gm_buf_printf(b, "L2 was flushed before every timed repetition (all %zu timed runs), so "
                         "each repetition starts from DRAM.\n", timed);
    else if (flushed == 0)
        gm_buf_printf(b, "L2 was not flushed between repetitions (%zu timed runs): data left in "
                         "L2 by one repetition can serve the next.\n", timed);
    else
        gm_buf_printf(b, "L2 was flushed before every timed repetition for %zu of the %zu timed "
                         "runs.\n", flushed, timed);

    gm_buf_printf(b, "- **Counters** (sectors, requests, efficiency, DRAM bytes, bank conflicts) "
                     "come from CUPTI's range profiler: %zu metrics in ", c->n_metrics);
    if (c->passes >= 0)
        gm_buf_printf(b, "%d replay pass%s", c->passes, c->passes == 1 ? "" : "es");
    else
        gm_buf_puts(b, "an unknown number of replay passes");
    gm_buf_puts(b, " (replay mode ");
    S_text(b, c->replay_mode ? c->replay_mode : DASH);
    gm_buf_puts(b, ", range mode ");
    S_text(b, c->range_mode ? c->range_mode : DASH);
    gm_buf_puts(b, c->cache_flush ? "), with L2 flushed before each pass" : "), without flushing L2 between passes");
    gm_buf_puts(b, "; clocks: ");
    S_text(b, c->clock_control ? c->clock_control : DASH);
    if (c->clock_control && strcmp(c->clock_control, "none") == 0)
        gm_buf_puts(b, " (left as found, not locked)");
    gm_buf_puts(b, ".");
    if (gm_value_present(&c->profile_seconds) && gm_value_present(&c->total_seconds)) {
        gm_buf_puts(b, " Profiling took ");
        gm_fmt_num(b, gm_value_num(&c->profile_seconds), 3);
        gm_buf_puts(b, " s of a ");
        gm_fmt_num(b, gm_value_num(&c->total_seconds), 3);
        gm_buf_puts(b, " s collection.");
    }
    gm_buf_puts(b, "\n");
    if (c->source_lines) {
        size_t got = 0, failed = 0;
        for (size_t i = 0; i < r->n_runs; i++) {
            const gm_srclines *sl = &r->runs[i].source_lines;
            if (!sl->present)
                continue;
            if (sl->status && strcmp(sl->status, "collected") == 0)
                got++;
            else
                failed++;
        }
        gm_buf_puts(b, "- **Per source line.** After the counter passes and the timing, one "
                       "launch of each layout's kernel ran once more, alone, under CUPTI's SASS "
                       "metrics: per instruction, global sectors and their ideal, shared "
                       "wavefronts and their ideal, instructions executed; mapped to file and "
                       "line with CUPTI's SASS-to-source correlation on the module's cubin "
                       "(kernels built with `-lineinfo`). CUPTI 13.0 instruments only the first "
                       "kernel function launched in a process, so ");
        gm_buf_puts(b, program ? "the program ran once more per kernel, with its output "
                                 "discarded, and that kernel's first launch was counted. "
                               : "each kernel ran in a process of its own, one case per "
                                 "layout: the one whose counters show the most sectors per "
                                 "request and wavefronts per shared instruction. ");
        gm_buf_printf(b, "%zu kernel%s counted", got, got == 1 ? "" : "s");
        if (failed)
            gm_buf_printf(b, ", %zu not (the section says why)", failed);
        if (gm_value_present(&c->source_lines_seconds)) {
            gm_buf_puts(b, "; the pass took ");
            gm_fmt_num(b, gm_value_num(&c->source_lines_seconds), 3);
            gm_buf_puts(b, " s");
            if (c->source_lines_launches > 0) {
                gm_buf_puts(b, " (");
                gm_fmt_num(b, gm_value_num(&c->source_lines_seconds) * 1e3 /
                                  (double)c->source_lines_launches, 3);
                gm_buf_puts(b, " ms a kernel, process start included)");
            }
            gm_buf_puts(b, ", not counted in the profiling time above");
        }
        gm_buf_puts(b, ".\n");
    }

    if (program && c->replay_mode && strcmp(c->replay_mode, "application") == 0)
        gm_buf_puts(b, "- **Replay.** Application replay: the program ran once per profiler "
                       "pass, each run collecting one pass's metrics for every profiled launch "
                       "as the program itself made it (no launch repeated inside a run); the "
                       "runs launched the same kernels with the same grids in the same order, "
                       "and the counts of one launch come from the runs together. Only the "
                       "first run's output reached the terminal.\n");
    else if (program)
        gm_buf_puts(b, "- **Replay.** User replay inside the program, in batches. A batch "
                       "begins at a profiled launch, with the device memory it finds saved "
                       "(CUPTI checkpoint), and takes in the profiled launches after it as the "
                       "program makes them, until a call that could change device memory "
                       "otherwise (a copy to the device, a free, a kernel not profiled), 64 "
                       "launches or the program's end. Then every launch of the "
                       "batch is replayed once per pass from the saved memory, with the "
                       "program's memsets and device-to-device copies between them made again, "
                       "and the memory the program had left is restored, so it computes what "
                       "it computes without the tool. A launch whose arguments could not be "
                       "copied is replayed alone, and its notes say so.\n");
    if (program)
        gm_buf_puts(b, "- **Per launch.** A kernel's launches with one NVTX range and one launch "
                       "configuration are one row. Its counts are per launch: their sum over the "
                       "launches divided by the number of launches, with the smallest and largest "
                       "launch where they differ; sectors per request and efficiencies come from "
                       "the summed counts, rates and percentages are weighted by duration. "
                       "Columns marked \"all launches\" are totals. The useful bytes of a "
                       "program's kernel are not known to the tool, so its bandwidth is the DRAM "
                       "traffic (bytes read + written per launch over the time per launch), not "
                       "an effective bandwidth.\n");
    else {
        gm_buf_puts(b, "- **Effective bandwidth** = (bytes the computation must read + bytes it "
                       "must write) / median time, in GB/s (10^9 bytes per second). It counts "
                       "each input and output once, so sectors a layout fetches in vain earn it "
                       "nothing. ");
        if (gm_value_present(&d->attainable_bandwidth_gbs)) {
            gm_buf_puts(b, "The % of attainable compares it with the best of a few plain copy "
                           "and read kernels (4-, 8- and 16-byte accesses, several grid sizes) "
                           "measured on this device at startup: ");
            gm_fmt_gbs(b, gm_value_num(&d->attainable_bandwidth_gbs));
            gm_buf_puts(b, "; cudaMemcpy reached ");
            gm_fmt_gbs(b, gm_value_num(&d->copy_bandwidth_gbs));
        } else {
            gm_buf_puts(b, "The % of copy bandwidth compares it with a device-to-device copy "
                           "measured on this device (this results file has no attainable "
                           "ceiling): ");
            gm_fmt_gbs(b, gm_value_num(&d->copy_bandwidth_gbs));
        }
        if (gm_value_present(&d->copy_bandwidth_bytes)) {
            gm_buf_puts(b, " on ");
            gm_fmt_bytes(b, gm_value_num(&d->copy_bandwidth_bytes));
        }
        gm_buf_puts(b, ", bytes read plus bytes written.\n");
    }

    if (unchecked && !(passed || failed || errors || not_run))
        gm_buf_printf(b, "- **Validation.** None: the %zu runs are kernels of a program, measured "
                         "as it ran them. A program's output is its own; there is no CPU "
                         "reference to compare it with.\n",
                      unchecked);
    else
        gm_buf_printf(b, "- **Validation.** Each run's output is compared with a CPU reference "
                         "before it is measured: %zu passed, %zu failed, %zu stopped with an "
                         "error, %zu did not run%s. Runs that did not pass are never compared or "
                         "charted.\n",
                      passed, failed, errors, not_run,
                      unchecked ? "; the kernels of a program have no reference" : "");
    size_t predicted = 0, scaled = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        predicted += gm_run_has_prediction(&r->runs[i]);
        scaled += gm_run_has_prediction(&r->runs[i]) && r->runs[i].prediction.scaled;
    }
    if (predicted) {
        gm_buf_printf(b, "- **Predictions** (%zu of %zu runs) come from the address-trace model "
                         "(docs/model.md): each warp's addresses are replayed on the CPU and the "
                         "sectors, requests and shared-memory wavefronts ncu would count are "
                         "counted; %zu of them traced a sample of the warps and scaled it. The "
                         "model says nothing of caches, DRAM or time.\n",
                      predicted, r->n_runs, scaled);
    }
    gm_buf_puts(b, "- **Sizes**: the ");
    S_text(b, c->size_set ? c->size_set : DASH);
    gm_buf_puts(b, " size set.");
    if (timestamp) {
        gm_buf_puts(b, " Taken at ");
        S_text(b, r->taken_at ? r->taken_at : DASH);
        gm_buf_puts(b, ".");
    }
    gm_buf_puts(b, "\n\n");

    if (c->n_metrics && !html) {
        gm_buf_printf(b, "The %zu metrics collected, with the Nsight Compute name and meaning "
                         "of each, are listed in the HTML report, which also gives the minimum and maximum "
                         "time of each run beside its median.\n\n", c->n_metrics);
    } else if (c->n_metrics) {
        gm_buf_puts(b, "### Metrics collected\n\n"
                       "| Label | Nsight Compute metric | Unit | What it counts |\n"
                       "|---|---|---|---|\n");
        for (size_t i = 0; i < c->n_metrics; i++) {
            const char *name = c->metrics[i];
            const gm_metric_info *m = gm_catalog_find(name);
            const char *unit = m ? m->unit : NULL;
            for (size_t k = 0; !unit && k < r->n_runs; k++) {
                const gm_metric *x = gm_run_metric(&r->runs[k], name);
                if (x && x->unit)
                    unit = x->unit;
            }
            gm_buf_puts(b, "| ");
            S_text(b, m ? m->label : DASH);
            gm_buf_puts(b, " | ");
            S_code(b, name);
            gm_buf_puts(b, " | ");
            S_text(b, unit && *unit ? unit : DASH);
            gm_buf_puts(b, " | ");
            S_text(b, m ? m->meaning : "not in gpumem-report's catalog");
            gm_buf_puts(b, " |\n");
        }
        gm_buf_puts(b, "\n");
    }

    if (c->n_command) {
        gm_buf cmd = GM_BUF_INIT;
        for (size_t i = 0; i < c->n_command; i++) {
            if (i)
                gm_buf_putc(&cmd, ' ');
            S_shell_word(&cmd, c->command[i] ? c->command[i] : "");
        }
        /* a fence longer than any run of backquotes inside */
        size_t longest = 0, run = 0;
        for (size_t i = 0; i < cmd.len; i++) {
            run = cmd.data[i] == '`' ? run + 1 : 0;
            if (run > longest)
                longest = run;
        }
        size_t fence = longest < 3 ? 3 : longest + 1;
        gm_buf_puts(b, "### The command that produced the results\n\n");
        for (size_t i = 0; i < fence; i++)
            gm_buf_putc(b, '`');
        gm_buf_puts(b, "sh\n");
        /* control characters other than newline would not survive a code block */
        for (size_t i = 0; i < cmd.len; i++) {
            unsigned char ch = (unsigned char)cmd.data[i];
            gm_buf_putc(b, (ch < 0x20 && ch != '\n') || ch == 0x7f ? ' ' : (char)ch);
        }
        gm_buf_puts(b, "\n");
        for (size_t i = 0; i < fence; i++)
            gm_buf_putc(b, '`');
        gm_buf_puts(b, "\n\n");
        gm_buf_free(&cmd);
    }
}

/* ---- anchors and the table of contents ------------------------------------ */

void gm_md_slug(const char *text, gm_buf *out)
{
    gm_buf_puts(out, "");
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p;) {
        unsigned char c = *p;
        if (c < 0x80) {
            if (c >= 'A' && c <= 'Z')
                gm_buf_putc(out, (char)(c - 'A' + 'a'));
            else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
                gm_buf_putc(out, (char)c);
            else if (c == ' ')
                gm_buf_putc(out, '-');
            p++;
            continue;
        }
        /* a UTF-8 sequence: letters stay, the punctuation and symbols a title
         * may carry go */
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        unsigned cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
        size_t k = 1;
        for (; k < len && (p[k] & 0xC0) == 0x80; k++)
            cp = (cp << 6) | (p[k] & 0x3F);
        static const unsigned drop[] = {0x00B7, 0x00D7, 0x00F7, 0x2013, 0x2014, 0x2018, 0x2019,
                                        0x201C, 0x201D, 0x2026, 0x2192, 0x2264, 0x2265, 0x00B0};
        bool dropped = k != len;
        for (size_t i = 0; i < sizeof drop / sizeof drop[0] && !dropped; i++)
            dropped = cp == drop[i];
        if (!dropped)
            gm_buf_put(out, (const char *)p, k);
        p += k;
    }
}

void gm_md_slug_unique(gm_slugs *seen, const char *text, gm_buf *out)
{
    gm_buf base = GM_BUF_INIT;
    gm_md_slug(text, &base);
    gm_buf cand = GM_BUF_INIT;
    gm_buf_puts(&cand, base.data);
    for (unsigned k = 1;; k++) {
        bool taken = false;
        for (size_t i = 0; i < seen->n && !taken; i++)
            taken = strcmp(seen->v[i], cand.data) == 0;
        if (!taken)
            break;
        cand.len = 0;
        gm_buf_printf(&cand, "%s-%u", base.data, k);
    }
    seen->v = gm_xrealloc(seen->v, (seen->n + 1) * sizeof *seen->v);
    seen->v[seen->n++] = gm_xstrdup(cand.data);
    gm_buf_puts(out, cand.data);
    gm_buf_free(&cand);
    gm_buf_free(&base);
}

void gm_slugs_free(gm_slugs *seen)
{
    for (size_t i = 0; i < seen->n; i++)
        free(seen->v[i]);
    free(seen->v);
    seen->v = NULL;
    seen->n = 0;
}

/* The text a Markdown heading line shows: its escapes undone, code and
 * emphasis marks dropped. */
static void S_heading_text(const char *line, size_t len, gm_buf *out)
{
    gm_buf_puts(out, "");
    size_t i = 0;
    while (i < len && line[i] == '#')
        i++;
    while (i < len && line[i] == ' ')
        i++;
    for (; i < len; i++) {
        char c = line[i];
        if (c == '\\' && i + 1 < len && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", line[i + 1])) {
            gm_buf_putc(out, line[++i]);
            continue;
        }
        if (c == '`' || c == '*')
            continue;
        gm_buf_putc(out, c);
    }
}

/* "## Contents": a link to every second-level heading of the document md,
 * put before its first one.  Slugs are counted over every heading, as GitHub
 * and the HTML page count them. */
static char *S_with_contents(char *md)
{
    const char *first = strstr(md, "\n## ");
    if (!first) 
        return md;
    first++;
    gm_slugs seen = {0};
    gm_buf toc = GM_BUF_INIT;
    gm_buf_puts(&toc, "## Contents\n\n");
    bool fence = false, toc_counted = false;
    size_t n = 0;
    for (const char *p = md; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len >= 3 && strncmp(p, "```", 3) == 0)
            fence = !fence;
        if (p == first && !toc_counted) {
            gm_buf tmp = GM_BUF_INIT;
            gm_md_slug_unique(&seen, "Contents", &tmp);
            gm_buf_free(&tmp);
            toc_counted = true;
        }
        if (!fence && len > 1 && p[0] == '#') {
            size_t level = 0;
            while (level < len && p[level] == '#')
                level++;
            if (level <= 6 && level < len && p[level] == ' ') {
                gm_buf text = GM_BUF_INIT, slug = GM_BUF_INIT;
                S_heading_text(p, len, &text);
                gm_md_slug_unique(&seen, text.data, &slug);
                if (level == 2) {
                    gm_buf_puts(&toc, "- [");
                    S_text(&toc, text.data);
                    gm_buf_printf(&toc, "](#%s)\n", slug.data);
                    n++;
                }
                gm_buf_free(&text);
                gm_buf_free(&slug);
            }
        }
        p = eol ? eol + 1 : p + len;
    }
    gm_slugs_free(&seen);
    if (n < 2) {
        gm_buf_free(&toc);
        return md;
    }
    gm_buf_puts(&toc, "\n");
    gm_buf out = GM_BUF_INIT;
    gm_buf_put(&out, md, (size_t)(first - md));
    gm_buf_put(&out, toc.data, toc.len);
    gm_buf_puts(&out, first);
    gm_buf_free(&toc);
    free(md);
    return gm_buf_detach(&out);
}

/* ---- the document ---------------------------------------------------------- */

char *gm_render_markdown(const gm_results *r, const gm_charts *charts, const char *chart_dir,
                         const gm_report_opts *ro)
{
    gm_report_opts none = {0};
    if (!ro)
        ro = &none;
    gm_sections ss;
    gm_sections_build(r, &ss);
    gm_findings f;
    gm_findings_build(r, &f);
    gm_buf b = GM_BUF_INIT;
    S_header(&b, r, ro->timestamp);
    S_top_warnings(&b, &ss);
    bool html = !chart_dir && !ro->github;
    S_summary(&b, &ss);
    bool suite = false;
    for (size_t i = 0; i < ss.n; i++)
        suite |= ss.v[i].listed && !gm_section_is_program(&ss.v[i]);
    if (suite)
        gm_claims_md(&b, r, &ss, NULL);
    S_findings(&b, &f, &ss, html);
    if (ro->changes)
        S_changes(&b, ro);
    for (size_t i = 0; i < ss.n; i++)
        S_section(&b, r, &ss, i, charts, chart_dir, &f, ro->github);
    S_method(&b, r, &ss, ro->timestamp, html);
    gm_findings_free(&f);
    gm_sections_free(&ss);
    /* one trailing newline */
    while (b.len && b.data[b.len - 1] == '\n')
        b.data[--b.len] = '\0';
    gm_buf_puts(&b, "\n");
    return S_with_contents(gm_buf_detach(&b));
}
