/* render_md.c — the report as GitHub-flavoured Markdown: a pure function of the
 * results (and the chart plan).  The HTML page is this text through cmark-gfm.
 *
 * Every string from the results goes through gm_esc_md (text) or
 * gm_esc_md_code (names), so it can neither open raw HTML nor split a table
 * cell; numbers are formatted here, with their units; an absent value is "—".
 */
#include "render.h"

#include "catalog.h"
#include "escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DASH "—"

/* ---- formatting ----------------------------------------------------------- */

static void S_text(gm_buf *b, const char *s) { gm_esc_md(b, s ? s : ""); }
static void S_code(gm_buf *b, const char *s) { gm_esc_md_code(b, s ? s : ""); }

static void S_ms(gm_buf *b, double v)
{
    gm_fmt_num(b, v, 3);
    if (isfinite(v))
        gm_buf_puts(b, " ms");
}

static void S_gbs(gm_buf *b, double v)
{
    gm_fmt_num(b, v, 3);
    if (isfinite(v))
        gm_buf_puts(b, " GB/s");
}

static void S_pct(gm_buf *b, double v)
{
    if (!isfinite(v))
        gm_buf_puts(b, DASH);
    else
        gm_buf_printf(b, "%.1f%%", v);
}

static void S_fixed(gm_buf *b, double v, int decimals)
{
    if (!isfinite(v))
        gm_buf_puts(b, DASH);
    else
        gm_buf_printf(b, "%.*f", decimals, v);
}

/* "8.0×"; "120×" from 100 up */
static void S_ratio(gm_buf *b, double v)
{
    if (!isfinite(v))
        gm_buf_puts(b, DASH);
    else
        gm_buf_printf(b, "%.*f×", v >= 100 ? 0 : 1, v);
}

static void S_spr(gm_buf *b, double v) { S_fixed(b, v, 1); }

static void S_count(gm_buf *b, double v)
{
    if (!isfinite(v))
        gm_buf_puts(b, DASH);
    else
        gm_buf_printf(b, "%.0f", v);
}

/* 13000 -> "13.0", 12040 -> "12.4" (CUDA's 1000*major + 10*minor) */
static void S_cuda_version(gm_buf *b, int v)
{
    if (v <= 0)
        gm_buf_puts(b, DASH);
    else
        gm_buf_printf(b, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* `variant` (name=value, ...) with the parameters varying across set, escaped. */
static void S_case(gm_buf *b, const gm_run *const *set, size_t n, const gm_run *run,
                   const char *skip)
{
    S_code(b, run->variant);
    gm_buf p = GM_BUF_INIT;
    gm_runs_params(set, n, run, skip, &p);
    if (p.len) {
        gm_buf_puts(b, " (");
        S_text(b, p.data);
        gm_buf_puts(b, ")");
    }
    gm_buf_free(&p);
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
        if (c->checked > 0)
            gm_buf_printf(b, ": %lld of %lld elements differ", c->mismatches, c->checked);
        if (c->has_first_mismatch) {
            gm_buf_printf(b, ", first at index %lld: got ", c->first_index);
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
    S_gbs(&v, gm_value_num(&d->theoretical_bandwidth_gbs));
    gm_buf_puts(&v, " theoretical (2 × clock × bus width); L2 ");
    gm_fmt_bytes(&v, d->l2_bytes > 0 ? (double)d->l2_bytes : NAN);
    S_row(b, "Memory", v.data);

    v.len = 0;
    gm_buf_puts(&v, "");
    S_gbs(&v, gm_value_num(&d->copy_bandwidth_gbs));
    if (gm_value_present(&d->copy_bandwidth_bytes)) {
        gm_buf_puts(&v, ", device-to-device copy of ");
        gm_fmt_bytes(&v, gm_value_num(&d->copy_bandwidth_bytes));
        gm_buf_puts(&v, ", bytes read + written");
    }
    S_row(b, "Measured copy bandwidth", v.data);

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
    gm_buf_printf(&v, "%d warm-up launches, then %d timed repetitions per run", c->timing_warmup,
                  c->timing_repetitions);
    S_row(b, "Timing", v.data);

    v.len = 0;
    gm_buf_puts(&v, "");
    S_text(&v, c->size_set ? c->size_set : DASH);
    S_row(b, "Size set", v.data);

    if (gm_value_present(&c->profile_seconds) || gm_value_present(&c->total_seconds)) {
        v.len = 0;
        gm_buf_puts(&v, "");
        gm_fmt_num(&v, gm_value_num(&c->profile_seconds), 3);
        gm_buf_puts(&v, " s profiling, ");
        gm_fmt_num(&v, gm_value_num(&c->total_seconds), 3);
        gm_buf_puts(&v, " s in all");
        S_row(b, "Collection time", v.data);
    }
    if (timestamp) {
        v.len = 0;
        gm_buf_puts(&v, "");
        S_text(&v, r->taken_at ? r->taken_at : DASH);
        S_row(b, "Taken at", v.data);
    }
    gm_buf_free(&v);
    gm_buf_puts(b, "\n");
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
            S_case(b, s->runs, s->n_runs, run, NULL);
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
    if (s->n_passed || !any) {
        if (!s->n_failed && !s->n_error && !s->n_not_run && s->n_passed > 1)
            gm_buf_printf(b, "all %zu passed", s->n_passed);
        else
            gm_buf_printf(b, "%s%zu passed", any ? ", " : "", s->n_passed);
        any = true;
    }
    if (s->n_not_run)
        gm_buf_printf(b, ", %zu not run", s->n_not_run);
}

static void S_summary(gm_buf *b, const gm_sections *ss)
{
    gm_buf_printf(b, "## Summary\n\n"
                     "Per experiment, the fastest and slowest layout among the runs that do the "
                     "same work (same bytes read and written), by median time.\n\n"
                     "| Experiment | Compared at | Fastest | Slowest | Time ratio | %s, slowest vs fastest | Validation |\n"
                     "|---|---|---|---|---:|---:|---|\n",
                  S_label(GM_M_LD_SPR, "ld sectors/req"));
    for (size_t i = 0; i < ss->n; i++) {
        const gm_section *s = &ss->v[i];
        gm_buf_printf(b, "| %zu. ", i + 1);
        S_text(b, S_exp_title(s->exp));
        gm_buf_puts(b, " | ");
        gm_buf at = GM_BUF_INIT;
        gm_section_group_label(s, &at);
        if (at.len && s->best)
            S_text(b, at.data);
        else
            gm_buf_puts(b, DASH);
        gm_buf_free(&at);
        gm_buf_puts(b, " | ");
        if (s->best && s->worst) {
            double tb = gm_run_median_ms(s->best), tw = gm_run_median_ms(s->worst);
            S_case(b, s->group, s->n_group, s->best, NULL);
            gm_buf_puts(b, ": ");
            S_ms(b, tb);
            gm_buf_puts(b, " | ");
            S_case(b, s->group, s->n_group, s->worst, NULL);
            gm_buf_puts(b, ": ");
            S_ms(b, tw);
            gm_buf_puts(b, " | ");
            S_ratio(b, tw / tb);
            gm_buf_puts(b, " | ");
            double sb = gm_run_metric_num(s->best, GM_M_LD_SPR);
            double sw = gm_run_metric_num(s->worst, GM_M_LD_SPR);
            if (isfinite(sb) && isfinite(sw)) {
                S_spr(b, sw);
                gm_buf_puts(b, " vs ");
                S_spr(b, sb);
                if (sb > 0) {
                    gm_buf_puts(b, " (");
                    S_ratio(b, sw / sb);
                    gm_buf_puts(b, ")");
                }
            } else {
                gm_buf_puts(b, DASH);
            }
        } else {
            gm_buf_puts(b, DASH " | " DASH " | " DASH " | " DASH);
        }
        gm_buf_puts(b, " | ");
        S_validation(b, s);
        gm_buf_puts(b, " |\n");
    }
    gm_buf_puts(b, "\n");
}

/* ---- the table of one experiment ------------------------------------------ */

typedef enum {
    C_VARIANT, C_PARAMS, C_TIME, C_GBS, C_PCT_COPY, C_LD_SPR, C_ST_SPR, C_LD_EFF, C_ST_EFF,
    C_DRAM_RD, C_DRAM_WR, C_DRAM_PCT, C_SH_LD_WPI, C_SH_ST_WPI, C_SH_LD_CONFL, C_SH_ST_CONFL,
    C_CHECK, C_COUNT
} S_col;

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

static void S_cell(gm_buf *b, const gm_results *r, const gm_section *s, const gm_run *run,
                   S_col c)
{
    bool withheld = S_failed(run);
    switch (c) {
    case C_VARIANT: S_code(b, run->variant); break;
    case C_PARAMS: {
        gm_buf p = GM_BUF_INIT;
        gm_runs_params(s->runs, s->n_runs, run, NULL, &p);
        if (p.len)
            S_text(b, p.data);
        else
            gm_buf_puts(b, DASH);
        gm_buf_free(&p);
        break;
    }
    case C_TIME: {
        double t = gm_run_median_ms(run);
        S_ms(b, t);
        if (isfinite(t)) {
            gm_buf_puts(b, " (");
            gm_fmt_num(b, run->timing.min, 3);
            gm_buf_puts(b, "–");
            gm_fmt_num(b, run->timing.max, 3);
            gm_buf_printf(b, ", n=%zu)", run->timing.n);
        }
        break;
    }
    case C_GBS:
        if (withheld && isfinite(gm_run_effective_gbs(run)))
            gm_buf_puts(b, "withheld");
        else
            S_gbs(b, gm_run_effective_gbs(run));
        break;
    case C_PCT_COPY: {
        double g = gm_run_effective_gbs(run), copy = gm_value_num(&r->device.copy_bandwidth_gbs);
        if (withheld && isfinite(g))
            gm_buf_puts(b, "withheld");
        else
            S_pct(b, copy > 0 ? 100.0 * g / copy : NAN);
        break;
    }
    case C_LD_SPR: S_spr(b, gm_run_metric_num(run, GM_M_LD_SPR)); break;
    case C_ST_SPR: S_spr(b, gm_run_metric_num(run, GM_M_ST_SPR)); break;
    case C_LD_EFF: S_pct(b, gm_run_metric_num(run, GM_M_LD_EFF)); break;
    case C_ST_EFF: S_pct(b, gm_run_metric_num(run, GM_M_ST_EFF)); break;
    case C_DRAM_RD: gm_fmt_bytes(b, gm_run_metric_num(run, GM_M_DRAM_RD)); break;
    case C_DRAM_WR: gm_fmt_bytes(b, gm_run_metric_num(run, GM_M_DRAM_WR)); break;
    case C_DRAM_PCT: S_pct(b, gm_run_metric_num(run, GM_M_DRAM_PCT)); break;
    case C_SH_LD_WPI: S_fixed(b, gm_run_shared_wpi(run, false), 2); break;
    case C_SH_ST_WPI: S_fixed(b, gm_run_shared_wpi(run, true), 2); break;
    case C_SH_LD_CONFL: S_count(b, gm_run_metric_num(run, GM_M_SH_LD_CONFL)); break;
    case C_SH_ST_CONFL: S_count(b, gm_run_metric_num(run, GM_M_SH_ST_CONFL)); break;
    case C_CHECK: S_check_text(b, run, true); break;
    case C_COUNT: break;
    }
}

static void S_table(gm_buf *b, const gm_results *r, const gm_section *s)
{
    bool show[C_COUNT];
    const char *head[C_COUNT];
    bool right[C_COUNT];
    for (int c = 0; c < C_COUNT; c++) {
        show[c] = true;
        right[c] = true;
    }
    gm_buf wl = GM_BUF_INIT, ws = GM_BUF_INIT;
    gm_buf_printf(&wl, "%s/inst", S_label(GM_M_SH_LD_WAVES, "sh ld wavefronts"));
    gm_buf_printf(&ws, "%s/inst", S_label(GM_M_SH_ST_WAVES, "sh st wavefronts"));
    head[C_VARIANT] = "Variant";
    head[C_PARAMS] = "Parameters";
    head[C_TIME] = "Median time (min–max, n)";
    head[C_GBS] = "Effective bandwidth";
    head[C_PCT_COPY] = "% of copy bandwidth";
    head[C_LD_SPR] = S_label(GM_M_LD_SPR, "ld sectors/req");
    head[C_ST_SPR] = S_label(GM_M_ST_SPR, "st sectors/req");
    head[C_LD_EFF] = S_label(GM_M_LD_EFF, "ld efficiency");
    head[C_ST_EFF] = S_label(GM_M_ST_EFF, "st efficiency");
    head[C_DRAM_RD] = S_label(GM_M_DRAM_RD, "DRAM read");
    head[C_DRAM_WR] = S_label(GM_M_DRAM_WR, "DRAM written");
    head[C_DRAM_PCT] = S_label(GM_M_DRAM_PCT, "DRAM % peak");
    head[C_SH_LD_WPI] = wl.data;
    head[C_SH_ST_WPI] = ws.data;
    head[C_SH_LD_CONFL] = S_label(GM_M_SH_LD_CONFL, "sh ld conflicts");
    head[C_SH_ST_CONFL] = S_label(GM_M_SH_ST_CONFL, "sh st conflicts");
    head[C_CHECK] = "Check";
    right[C_VARIANT] = right[C_PARAMS] = right[C_CHECK] = false;

    /* a parameters column only when the runs differ in some parameter */
    show[C_PARAMS] = false;
    for (size_t i = 0; i < s->n_runs && !show[C_PARAMS]; i++) {
        gm_buf p = GM_BUF_INIT;
        gm_runs_params(s->runs, s->n_runs, s->runs[i], NULL, &p);
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
    for (size_t i = 0; i < s->n_runs; i++) {
        for (int c = 0; c < C_COUNT; c++)
            if (show[c]) {
                gm_buf_puts(b, "| ");
                S_cell(b, r, s, s->runs[i], (S_col)c);
                gm_buf_puts(b, " ");
            }
        gm_buf_puts(b, "|\n");
    }
    gm_buf_puts(b, "\n");
    if (left_out.len) {
        gm_buf_puts(b, "No run of this experiment has a value for: ");
        S_text(b, left_out.data);
        gm_buf_puts(b, " (columns left out).\n\n");
    }
    gm_buf_free(&left_out);
    gm_buf_free(&wl);
    gm_buf_free(&ws);
}

/* ---- what the numbers say -------------------------------------------------- */

static double S_spr_of(const gm_run *run) { return gm_run_metric_num(run, GM_M_LD_SPR); }

/* Compare the slowest and the fastest of the comparison group. */
static void S_explain_group(gm_buf *b, const gm_results *r, const gm_section *s)
{
    const gm_run *B = s->best, *W = s->worst;
    const gm_run *const *g = s->group;
    size_t ng = s->n_group;
    double tb = gm_run_median_ms(B), tw = gm_run_median_ms(W), rt = tw / tb;

    gm_buf at = GM_BUF_INIT;
    gm_section_group_label(s, &at);
    gm_buf_printf(b, "The %zu passed runs that do the same work", ng);
    if (at.len) {
        gm_buf_puts(b, " (");
        S_text(b, at.data);
        gm_buf_puts(b, ")");
    }
    gm_buf_free(&at);
    double rd = gm_value_num(&B->bytes_read), wr = gm_value_num(&B->bytes_written);
    if (isfinite(rd) || isfinite(wr)) {
        gm_buf_puts(b, ", each reading ");
        gm_fmt_bytes(b, rd);
        gm_buf_puts(b, " and writing ");
        gm_fmt_bytes(b, wr);
    }
    gm_buf_puts(b, ", compare directly. ");

    if (rt < 1.05) {
        gm_buf_puts(b, "Their median times lie within 5% of each other (");
        S_ms(b, tb);
        gm_buf_puts(b, " to ");
        S_ms(b, tw);
        gm_buf_puts(b, "): at this point the layout does not change the time. ");
    } else {
        S_case(b, g, ng, B, NULL);
        gm_buf_puts(b, " is the fastest (");
        S_ms(b, tb);
        gm_buf_puts(b, ") and ");
        S_case(b, g, ng, W, NULL);
        gm_buf_puts(b, " the slowest (");
        S_ms(b, tw);
        gm_buf_puts(b, ", ");
        S_ratio(b, rt);
        gm_buf_puts(b, " the time). ");
    }

    /* global-load sectors: the bytes a layout makes the memory system move */
    double sb = S_spr_of(B), sw = S_spr_of(W);
    if (isfinite(sb) && isfinite(sw) && sb > 0 && sw > 1.05 * sb) {
        S_case(b, g, ng, W, NULL);
        gm_buf_puts(b, " fetches ");
        S_spr(b, sw);
        gm_buf_puts(b, " sectors per load request against ");
        S_spr(b, sb);
        gm_buf_puts(b, " for ");
        S_case(b, g, ng, B, NULL);
        double qb = gm_run_metric_num(B, GM_M_LD_SECTORS), qw = gm_run_metric_num(W, GM_M_LD_SECTORS);
        double q = qb > 0 ? qw / qb : NAN;
        if (isfinite(q)) {
            gm_buf_puts(b, ": ");
            S_ratio(b, q);
            gm_buf_puts(b, " the sectors in all (");
            gm_fmt_bytes(b, qw * 32);
            gm_buf_puts(b, " against ");
            gm_fmt_bytes(b, qb * 32);
            gm_buf_puts(b, " in 32-byte sectors) for the same useful data");
            if (rt >= 1.05) {
                gm_buf_puts(b, ", and it runs ");
                S_ratio(b, rt);
                gm_buf_puts(b, " slower");
                if (rt > q / 1.25 && rt < q * 1.25)
                    gm_buf_puts(b, ": the time follows the traffic");
                else if (rt <= q / 1.25)
                    gm_buf_puts(b, ": the time grows less than the traffic");
                else
                    gm_buf_puts(b, ": the time grows more than the traffic");
            }
        }
        gm_buf_puts(b, ". ");
    } else if (isfinite(sb) && isfinite(sw) && rt >= 1.2) {
        gm_buf_puts(b, "Both fetch about the same number of sectors per load request (");
        S_spr(b, sw);
        gm_buf_puts(b, " and ");
        S_spr(b, sb);
        gm_buf_puts(b, "), so the difference in time does not come from wasted global-load sectors. ");
    }

    /* shared memory: wavefronts per instruction above 1 are bank conflicts */
    for (int st = 0; st < 2; st++) {
        double wb = gm_run_shared_wpi(B, st), ww = gm_run_shared_wpi(W, st);
        if (!isfinite(wb) || !isfinite(ww) || !(ww > 1.05 * wb))
            continue;
        double cw = gm_run_metric_num(W, st ? GM_M_SH_ST_CONFL : GM_M_SH_LD_CONFL);
        double cb = gm_run_metric_num(B, st ? GM_M_SH_ST_CONFL : GM_M_SH_LD_CONFL);
        gm_buf_puts(b, "In shared memory, ");
        S_case(b, g, ng, W, NULL);
        gm_buf_printf(b, " needs ");
        S_fixed(b, ww, 2);
        gm_buf_printf(b, " wavefronts per shared %s instruction against ", st ? "store" : "load");
        S_fixed(b, wb, 2);
        gm_buf_puts(b, " for ");
        S_case(b, g, ng, B, NULL);
        if (isfinite(cw) && isfinite(cb)) {
            gm_buf_puts(b, " (");
            S_count(b, cw);
            gm_buf_puts(b, " bank conflicts against ");
            S_count(b, cb);
            gm_buf_puts(b, ")");
        }
        gm_buf_puts(b, ": each extra wavefront is a bank conflict served one after another. ");
    }

    double ew = gm_run_metric_num(W, GM_M_LD_EFF), eb = gm_run_metric_num(B, GM_M_LD_EFF);
    if (isfinite(ew) && ew < 90 && isfinite(eb) && eb > ew + 5) {
        gm_buf_puts(b, "Of the bytes in the sectors it loads, ");
        S_case(b, g, ng, W, NULL);
        gm_buf_puts(b, " uses ");
        S_pct(b, ew);
        gm_buf_puts(b, "; ");
        S_case(b, g, ng, B, NULL);
        gm_buf_puts(b, " uses ");
        S_pct(b, eb);
        gm_buf_puts(b, ". ");
    }

    double dw = gm_run_metric_num(W, GM_M_DRAM_RD), db = gm_run_metric_num(B, GM_M_DRAM_RD);
    if (isfinite(dw) && isfinite(db) && db > 0 && (dw > 1.1 * db || dw < db / 1.1)) {
        gm_buf_puts(b, "From DRAM, ");
        S_case(b, g, ng, W, NULL);
        gm_buf_puts(b, " reads ");
        gm_fmt_bytes(b, dw);
        gm_buf_puts(b, " against ");
        gm_fmt_bytes(b, db);
        gm_buf_puts(b, " (");
        S_ratio(b, dw / db);
        gm_buf_puts(b, "). ");
    }

    double copy = gm_value_num(&r->device.copy_bandwidth_gbs);
    double gb = gm_run_effective_gbs(B), gw = gm_run_effective_gbs(W);
    if (s->exp->bandwidth_bound && isfinite(gb) && copy > 0) {
        S_case(b, g, ng, B, NULL);
        gm_buf_puts(b, " moves its useful bytes at ");
        S_gbs(b, gb);
        gm_buf_puts(b, ", ");
        S_pct(b, 100 * gb / copy);
        gm_buf_puts(b, " of the copy bandwidth measured on this device (");
        S_gbs(b, copy);
        gm_buf_puts(b, ")");
        if (gb >= 0.8 * copy)
            gm_buf_puts(b, ", close to what its memory delivers");
        if (isfinite(gw) && W != B && rt >= 1.05) {
            gm_buf_puts(b, "; ");
            S_case(b, g, ng, W, NULL);
            gm_buf_puts(b, " reaches ");
            S_gbs(b, gw);
            gm_buf_puts(b, " (");
            S_pct(b, 100 * gw / copy);
            gm_buf_puts(b, ")");
        }
        gm_buf_puts(b, ". ");
    }

    const char *base = s->exp->baseline_variant;
    if (base) {
        for (size_t i = 0; i < ng; i++) {
            const gm_run *x = g[i];
            double t = gm_run_median_ms(x);
            if (x == B || x == W || !isfinite(t) || strcmp(x->variant ? x->variant : "", base) != 0)
                continue;
            gm_buf_puts(b, "The baseline layout ");
            S_case(b, g, ng, x, NULL);
            gm_buf_puts(b, " takes ");
            S_ms(b, t);
            gm_buf_puts(b, ", ");
            S_ratio(b, t / tb);
            gm_buf_puts(b, " the fastest time. ");
            break;
        }
    }
}

/* "name=value" of the swept parameter of run, escaped. */
static void S_at(gm_buf *b, const char *p, const gm_run *run)
{
    gm_buf v = GM_BUF_INIT;
    gm_buf_printf(&v, "%s=", p);
    gm_fmt_value(&v, &gm_run_param(run, p)->value);
    S_text(b, v.data);
    gm_buf_free(&v);
}

/* Along the sweep: each line from its first point to its last, in one sentence. */
static void S_explain_sweep(gm_buf *b, const gm_section *s)
{
    gm_sweep_plan sw;
    gm_section_sweep(s, &sw);
    const char *p = sw.param;
    bool bw = s->exp->bandwidth_bound;
    size_t told = 0, lines_with_points = 0;
    for (size_t l = 0; l < sw.n_lines; l++) {
        const gm_sweep_line *line = &sw.lines[l];
        /* first and last points with a value; the peak and dip for bandwidth */
        const gm_run *a = NULL, *z = NULL, *peak = NULL, *dip = NULL;
        for (size_t i = 0; i < line->n; i++) {
            double y = bw ? gm_run_effective_gbs(line->runs[i]) : gm_run_median_ms(line->runs[i]);
            if (!isfinite(y))
                continue;
            if (!a)
                a = line->runs[i];
            z = line->runs[i];
            if (bw && (!peak || y > gm_run_effective_gbs(peak)))
                peak = line->runs[i];
            if (bw && (!dip || y < gm_run_effective_gbs(dip)))
                dip = line->runs[i];
        }
        if (!a || a == z)
            continue;
        lines_with_points++;
        if (told == 6)
            continue;
        gm_buf_puts(b, told++ == 0 ? "Along " : "; ");
        if (told == 1) {
            S_code(b, p);
            gm_buf_puts(b, ": ");
        }
        double ya = bw ? gm_run_effective_gbs(a) : gm_run_median_ms(a);
        double yz = bw ? gm_run_effective_gbs(z) : gm_run_median_ms(z);
        S_case(b, sw.runs, sw.n_runs, line->runs[0], p);
        gm_buf_puts(b, bw ? " goes from " : " takes from ");
        if (bw)
            S_gbs(b, ya);
        else
            S_ms(b, ya);
        gm_buf_puts(b, " at ");
        S_at(b, p, a);
        gm_buf_puts(b, " to ");
        if (bw)
            S_gbs(b, yz);
        else
            S_ms(b, yz);
        gm_buf_puts(b, " at ");
        S_at(b, p, z);
        if (ya > 0 && yz > 0) {
            double q = yz >= ya ? yz / ya : ya / yz;
            if (q < 1.05) {
                gm_buf_puts(b, " (within 5%)");
            } else {
                gm_buf_puts(b, " (");
                S_ratio(b, q);
                if (bw)
                    gm_buf_puts(b, yz >= ya ? " higher)" : " lower)");
                else
                    gm_buf_puts(b, yz >= ya ? " longer)" : " shorter)");
            }
        }
        if (peak && peak != a && peak != z && gm_run_effective_gbs(peak) > 1.1 * fmax(ya, yz)) {
            gm_buf_puts(b, ", peaking at ");
            S_gbs(b, gm_run_effective_gbs(peak));
            gm_buf_puts(b, " at ");
            S_at(b, p, peak);
        }
        if (dip && dip != a && dip != z && gm_run_effective_gbs(dip) < fmin(ya, yz) / 1.1) {
            gm_buf_puts(b, ", dipping to ");
            S_gbs(b, gm_run_effective_gbs(dip));
            gm_buf_puts(b, " at ");
            S_at(b, p, dip);
        }
        double sa = S_spr_of(a), sz = S_spr_of(z);
        if (isfinite(sa) && isfinite(sz) && fabs(sz - sa) > 0.05 * fmax(sa, sz)) {
            gm_buf_puts(b, ", while its load sectors per request go from ");
            S_spr(b, sa);
            gm_buf_puts(b, " to ");
            S_spr(b, sz);
        }
    }
    if (told)
        gm_buf_puts(b, ". ");
    if (lines_with_points > told)
        gm_buf_printf(b, "The charts show %zu more line%s. ", lines_with_points - told,
                      lines_with_points - told == 1 ? "" : "s");
    gm_sweep_plan_free(&sw);
}

static void S_explain(gm_buf *b, const gm_results *r, const gm_section *s)
{
    gm_buf_puts(b, "**What the numbers say.** ");
    if (s->n_passed == 0) {
        gm_buf_puts(b, "No run of this experiment passed its check, so nothing is compared and "
                       "no speed is claimed here.");
    } else {
        size_t before = b->len;
        if (s->best && s->worst)
            S_explain_group(b, r, s);
        if (s->has_sweep)
            S_explain_sweep(b, s);
        if (b->len == before)
            gm_buf_puts(b, "Fewer than two passed runs with a time do the same work, so there is "
                           "nothing to compare directly. ");
        if (s->n_failed || s->n_error)
            gm_buf_printf(b, "%zu run%s that failed or stopped with an error %s left out of all "
                             "of this.",
                          s->n_failed + s->n_error, s->n_failed + s->n_error == 1 ? "" : "s",
                          s->n_failed + s->n_error == 1 ? "is" : "are");
        while (b->len && b->data[b->len - 1] == ' ')
            b->data[--b->len] = '\0';
    }
    gm_buf_puts(b, "\n\n");
}

/* ---- one experiment ------------------------------------------------------- */

static void S_section(gm_buf *b, const gm_results *r, const gm_sections *ss, size_t si,
                      const gm_charts *charts, const char *chart_dir)
{
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
        S_text(b, e->summary);
        gm_buf_puts(b, "\n\n");
    }
    if (s->listed) {
        gm_buf_puts(b, "*Experiment ");
        S_code(b, e->id);
        if (e->source) {
            gm_buf_puts(b, "; it tests ");
            S_text(b, e->source);
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

    /* the layouts, once per variant */
    bool any_layout = false;
    for (size_t i = 0; i < s->n_runs; i++) {
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
            S_text(b, run->layout);
        }
        if (run->kernel) {
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
            S_case(b, s->runs, s->n_runs, run, NULL);
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
        S_table(b, r, s);
    } else {
        gm_buf_puts(b, "The results file has no run of this experiment.\n\n");
    }

    /* notes, once per variant and text */
    bool any_note = false;
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *run = s->runs[i];
        for (size_t k = 0; k < run->n_notes; k++) {
            bool seen = false;
            for (size_t j = 0; j <= i && !seen; j++) {
                const gm_run *o = s->runs[j];
                size_t lim = j == i ? k : o->n_notes;
                for (size_t m = 0; m < lim && !seen; m++)
                    seen = o->variant && run->variant && strcmp(o->variant, run->variant) == 0 &&
                           o->notes[m] && run->notes[k] && strcmp(o->notes[m], run->notes[k]) == 0;
            }
            if (seen)
                continue;
            if (!any_note)
                gm_buf_puts(b, "Notes:\n\n");
            any_note = true;
            gm_buf_puts(b, "- ");
            S_code(b, run->variant);
            gm_buf_puts(b, ": ");
            S_text(b, run->notes[k]);
            gm_buf_puts(b, "\n");
        }
    }
    if (any_note)
        gm_buf_puts(b, "\n");

    if (s->n_not_run) {
        gm_buf_puts(b, "Not run:\n\n");
        for (size_t i = 0; i < s->n_runs; i++) {
            const gm_run *run = s->runs[i];
            if (run->check.status != GM_CHECK_NOT_RUN)
                continue;
            gm_buf_puts(b, "- ");
            S_case(b, s->runs, s->n_runs, run, NULL);
            gm_buf_puts(b, ": ");
            S_text(b, run->check.reason ? run->check.reason : "no reason given");
            gm_buf_puts(b, "\n");
        }
        gm_buf_puts(b, "\n");
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
        gm_buf_puts(b, "![");
        S_text(b, c->title);
        gm_buf_puts(b, "](");
        S_url(b, chart_dir);
        gm_buf_puts(b, "/");
        S_url(b, c->name);
        gm_buf_puts(b, ".svg)\n\n");
        any_chart = true;
    }
    (void)any_chart;

    S_explain(b, r, s);
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

static void S_method(gm_buf *b, const gm_results *r, const gm_sections *ss, bool timestamp)
{
    const gm_device *d = &r->device;
    const gm_collection *c = &r->collection;
    size_t timed = 0, flushed = 0, passed = 0, failed = 0, errors = 0, not_run = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        if (run->timing.present) {
            timed++;
            flushed += run->timing.l2_flushed;
        }
        switch (run->check.status) {
        case GM_CHECK_PASSED: passed++; break;
        case GM_CHECK_FAILED: failed++; break;
        case GM_CHECK_ERROR: errors++; break;
        case GM_CHECK_NOT_RUN: not_run++; break;
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

    gm_buf_printf(b, "- **Times** are taken with CUDA events around each launch alone: %d warm-up "
                     "launches are discarded, then %d repetitions are timed per run; the tables "
                     "give the median with the minimum, maximum and number of samples. ",
                  c->timing_warmup, c->timing_repetitions);
    if (timed == 0)
        gm_buf_puts(b, "No run in this file has a time.\n");
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

    gm_buf_puts(b, "- **Effective bandwidth** = (bytes the computation must read + bytes it "
                   "must write) / median time, in GB/s (10^9 bytes per second). It counts each "
                   "input and output once, so sectors a layout fetches in vain earn it nothing. "
                   "The % of copy bandwidth compares it with a device-to-device copy measured on "
                   "this device: ");
    S_gbs(b, gm_value_num(&d->copy_bandwidth_gbs));
    if (gm_value_present(&d->copy_bandwidth_bytes)) {
        gm_buf_puts(b, " on ");
        gm_fmt_bytes(b, gm_value_num(&d->copy_bandwidth_bytes));
    }
    gm_buf_puts(b, ", bytes read plus bytes written.\n");

    gm_buf_printf(b, "- **Validation.** Each run's output is compared with a CPU reference "
                     "before it is measured: %zu passed, %zu failed, %zu stopped with an error, "
                     "%zu did not run. Runs that did not pass are never compared or charted.\n",
                  passed, failed, errors, not_run);
    gm_buf_puts(b, "- **Sizes**: the ");
    S_text(b, c->size_set ? c->size_set : DASH);
    gm_buf_puts(b, " size set.");
    if (timestamp) {
        gm_buf_puts(b, " Taken at ");
        S_text(b, r->taken_at ? r->taken_at : DASH);
        gm_buf_puts(b, ".");
    }
    gm_buf_puts(b, "\n\n");

    if (c->n_metrics) {
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

/* ---- the document ---------------------------------------------------------- */

char *gm_render_markdown(const gm_results *r, const gm_charts *charts, const char *chart_dir,
                         bool timestamp)
{
    gm_sections ss;
    gm_sections_build(r, &ss);
    gm_buf b = GM_BUF_INIT;
    S_header(&b, r, timestamp);
    S_top_warnings(&b, &ss);
    S_summary(&b, &ss);
    for (size_t i = 0; i < ss.n; i++)
        S_section(&b, r, &ss, i, charts, chart_dir);
    S_method(&b, r, &ss, timestamp);
    gm_sections_free(&ss);
    /* one trailing newline */
    while (b.len && b.data[b.len - 1] == '\n')
        b.data[--b.len] = '\0';
    gm_buf_puts(&b, "\n");
    return gm_buf_detach(&b);
}
