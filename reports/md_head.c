/* md_head.c — the head of the Markdown report: its title, the table of the
 * device and the collection, the loud list of failed runs, and the table of
 * contents put in before the first section.
 */
#include "md_int.h"

#include "../core/slug.h"
#include "ranks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- header ---------------------------------------------------------------- */

/* A collection of a program's launches (gpumem-report -- PROGRAM), whose
 * size set is "app", rather than of the suite. */
static bool S_program_collection(const gm_collection *c)
{
    return c->size_set && strcmp(c->size_set, "app") == 0;
}

static void S_row(gm_buf *b, const char *key, const char *value_md)
{
    gm_buf_printf(b, "| %s | %s |\n", key, value_md);
}

void md_header(gm_buf *b, const gm_results *r, bool timestamp)
{
    const gm_device *d = &r->device;
    const gm_collection *c = &r->collection;
    gm_buf_puts(b, "# GPU memory report: ");
    md_text(b, d->name ? d->name : "unknown device");
    gm_buf_puts(b, "\n\n");

    if (r->origin && strncmp(r->origin, "measured", 8) != 0) {
        gm_buf_puts(b, "> **Not a measurement of this device.** The results file gives its origin as: ");
        md_text(b, r->origin);
        gm_buf_puts(b, ".\n\n");
    }

    if (c->partial) {
        gm_buf_puts(b, "> **Partial results.** The collection stopped before its end (");
        md_text(b, c->partial);
        gm_buf_printf(b, "); the %zu runs below are those completed before it stopped.\n\n",
                      r->n_runs);
    }
    gm_runs_uncounted_md(b, r);   /* kernels not fully counted (runs.c) */

    gm_buf v = GM_BUF_INIT;
    gm_buf_puts(b, "| Setting | Value |\n|---|---|\n");

    gm_buf_puts(&v, "");
    md_text(&v, d->name ? d->name : "unknown");
    gm_buf_puts(&v, " (");
    if (d->chip) {
        md_text(&v, d->chip);
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
    gm_ceiling ceil;
    gm_results_ceiling(r, &ceil);
    if (gm_value_present(&d->attainable_bandwidth_gbs) && ceil.raised_by) {
        /* a run beat the startup kernels: the best measured is the ceiling */
        gm_fmt_gbs(&v, ceil.gbs);
        gm_buf_puts(&v, ", the best measured: ");
        md_run_named(&v, ceil.raised_by);
        gm_buf_puts(&v, ceil.by_dram ? " moved its DRAM bytes (profiled) at that rate in its "
                                       "median time"
                                     : " moved its useful bytes at that rate");
        gm_buf_puts(&v, ", above the ");
        gm_fmt_gbs(&v, ceil.startup_gbs);
        gm_buf_puts(&v, " of the plain copy and read kernels measured at startup");
        if (d->attainable_kernel) {
            gm_buf_puts(&v, " (");
            md_text(&v, d->attainable_kernel);
            gm_buf_puts(&v, ")");
        }
        gm_buf_puts(&v, ": the ceiling every \"% of attainable\" compares with, so none "
                        "exceeds 100%");
    } else if (gm_value_present(&d->attainable_bandwidth_gbs)) {
        gm_fmt_gbs(&v, gm_value_num(&d->attainable_bandwidth_gbs));
        gm_buf_puts(&v, ", the best of plain copy and read kernels");
        if (d->attainable_kernel) {
            gm_buf_puts(&v, " (");
            md_text(&v, d->attainable_kernel);
            gm_buf_puts(&v, ")");
        }
        gm_buf_puts(&v, ", useful bytes, and no run went faster: the ceiling every \"% of "
                        "attainable\" compares with");
    } else if (d->attainable_kernel) {
        md_text(&v, d->attainable_kernel);
        gm_buf_puts(&v, ": percentages compare with the copy bandwidth, which a vectorised "
                        "kernel can beat");
    } else {
        gm_buf_puts(&v, S_program_collection(c) ? "not measured when profiling a program (its own kernels run, "
                                  "no others)"
                                : "not in this results file (it predates it)");
        gm_buf_puts(&v, ": percentages compare with the copy bandwidth, which a vectorised "
                        "kernel can beat");
    }
    if (!gm_value_present(&d->attainable_bandwidth_gbs) && ceil.raised_by) {
        gm_buf_puts(&v, "; here ");
        md_run_named(&v, ceil.raised_by);
        gm_buf_puts(&v, " beat it at ");
        gm_fmt_gbs(&v, ceil.gbs);
        gm_buf_puts(&v, ceil.by_dram ? " (its DRAM bytes over its time)" : " (useful bytes)");
        gm_buf_puts(&v, ", which percentages compare with instead, so none exceeds 100%");
    }
    S_row(b, "Attainable bandwidth", v.data);

    v.len = 0;
    gm_buf_puts(&v, "driver ");
    md_text(&v, d->driver_version ? d->driver_version : DASH);
    gm_buf_puts(&v, ", CUDA driver API ");
    md_cuda_version(&v, d->cuda_driver_api);
    gm_buf_puts(&v, ", runtime ");
    md_cuda_version(&v, d->cuda_runtime);
    gm_buf_puts(&v, ", CUPTI API ");
    if (d->cupti_api > 0)
        gm_buf_printf(&v, "%lld", d->cupti_api);
    else
        gm_buf_puts(&v, DASH);
    S_row(b, "Software", v.data);

    v.len = 0;
    gm_buf_puts(&v, "gpumem-report ");
    md_text(&v, r->tool_version ? r->tool_version : DASH);
    if (r->commit) {
        gm_buf_puts(&v, ", commit ");
        md_code(&v, r->commit);
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
    md_text(&v, c->replay_mode ? c->replay_mode : DASH);
    gm_buf_puts(&v, ", range mode ");
    md_text(&v, c->range_mode ? c->range_mode : DASH);
    S_row(b, "Metrics", v.data);

    v.len = 0;
    gm_buf_puts(&v, c->cache_flush ? "L2 flushed before each profiled pass"
                                   : "L2 not flushed between profiled passes");
    gm_buf_puts(&v, "; clocks: ");
    md_text(&v, c->clock_control ? c->clock_control : DASH);
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
    md_text(&v, c->size_set ? c->size_set : DASH);
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
        md_text(&v, r->taken_at ? r->taken_at : DASH);
        S_row(b, "Taken at", v.data);
    }
    gm_buf_free(&v);
    gm_buf_puts(b, "\n");
    gm_md_ranks(b, r);
}

/* Loud: every failed or errored run, at the top. */
void md_top_warnings(gm_buf *b, const gm_sections *ss)
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
            if (!md_failed(run))
                continue;
            gm_buf_puts(b, "> - ");
            md_text(b, md_exp_title(s->exp));
            gm_buf_puts(b, ": ");
            md_case(b, &s->vary, run, NULL);
            gm_buf_puts(b, ": ");
            md_check_text(b, run, true);
            gm_buf_puts(b, "\n");
        }
    }
    gm_buf_puts(b, "\n");
}

/* ---- the table of contents ------------------------------------------------- */

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
char *md_with_contents(char *md)
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
                    md_text(&toc, text.data);
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
