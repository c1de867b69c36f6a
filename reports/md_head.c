/* md_head.c — the head of the Markdown report: its title, the table of the
 * device and the collection, the loud list of failed runs, and the table of
 * contents put in before the first section.
 */
#include "md_int.h"

#include "../core/say.h"
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

/* What a helper of md_util.c appends, in a buffer of its own for GM_BUF
 * (core/say.h); the caller frees it. */
static gm_buf S_run_named(const gm_run *run)
{
    gm_buf n = GM_BUF_INIT;
    md_run_named(&n, run);
    return n;
}

static gm_buf S_cuda_version(int v)
{
    gm_buf n = GM_BUF_INIT;
    md_cuda_version(&n, v);
    return n;
}

/* The cell of the attainable bandwidth: the ceiling every "% of attainable"
 * compares with, and where it comes from. */
static void S_attainable(gm_buf *v, const gm_results *r)
{
    const gm_device *d = &r->device;
    gm_ceiling ceil;
    gm_results_ceiling(r, &ceil);
    gm_buf who = GM_BUF_INIT, kernel = GM_BUF_INIT;   /* kernel: " (name)" or nothing */
    if (ceil.raised_by)
        who = S_run_named(ceil.raised_by);
    if (d->attainable_kernel)
        gm_say(&kernel, " ({})", GM_TEXT(d->attainable_kernel));
    if (gm_value_present(&d->attainable_bandwidth_gbs) && ceil.raised_by) {
        /* a run beat the startup kernels: the best measured is the ceiling */
        gm_say(v, ceil.by_dram ? "{}, the best measured: {} moved its DRAM bytes (profiled) at "
                                 "that rate in its median time, above the {} of the plain copy "
                                 "and read kernels measured at startup{}: the ceiling every \"% "
                                 "of attainable\" compares with, so none exceeds 100%"
                               : "{}, the best measured: {} moved its useful bytes at that rate, "
                                 "above the {} of the plain copy and read kernels measured at "
                                 "startup{}: the ceiling every \"% of attainable\" compares with, "
                                 "so none exceeds 100%",
               GM_GBS(ceil.gbs), GM_BUF(&who), GM_GBS(ceil.startup_gbs), GM_BUF(&kernel));
    } else if (gm_value_present(&d->attainable_bandwidth_gbs)) {
        gm_say(v, "{}, the best of plain copy and read kernels{}, useful bytes, and no run went "
                  "faster: the ceiling every \"% of attainable\" compares with",
               GM_GBS(gm_value_num(&d->attainable_bandwidth_gbs)), GM_BUF(&kernel));
    } else if (d->attainable_kernel) {
        gm_say(v, "{}: percentages compare with the copy bandwidth, which a vectorised kernel "
                  "can beat",
               GM_TEXT(d->attainable_kernel));
    } else {
        gm_say(v, "{}: percentages compare with the copy bandwidth, which a vectorised kernel "
                  "can beat",
               GM_LIT(S_program_collection(&r->collection)
                          ? "not measured when profiling a program (its own kernels run, no "
                            "others)"
                          : "not in this results file (it predates it)"));
    }
    if (!gm_value_present(&d->attainable_bandwidth_gbs) && ceil.raised_by)
        gm_say(v, ceil.by_dram ? "; here {} beat it at {} (its DRAM bytes over its time), which "
                                 "percentages compare with instead, so none exceeds 100%"
                               : "; here {} beat it at {} (useful bytes), which percentages "
                                 "compare with instead, so none exceeds 100%",
               GM_BUF(&who), GM_GBS(ceil.gbs));
    gm_buf_free(&who);
    gm_buf_free(&kernel);
}

void md_header(gm_buf *b, const gm_results *r, bool timestamp)
{
    const gm_device *d = &r->device;
    const gm_collection *c = &r->collection;
    gm_say(b, "# GPU memory report: {}\n\n", GM_TEXT(d->name ? d->name : "unknown device"));

    if (r->origin && strncmp(r->origin, "measured", 8) != 0)
        gm_say(b, "> **Not a measurement of this device.** The results file gives its origin "
                  "as: {}.\n\n",
               GM_TEXT(r->origin));

    if (c->partial)
        gm_say(b, "> **Partial results.** The collection stopped before its end ({}); the {} "
                  "runs below are those completed before it stopped.\n\n",
               GM_TEXT(c->partial), GM_INT((long long)r->n_runs));
    gm_runs_uncounted_md(b, r);   /* kernels not fully counted (runs.c) */

    gm_buf_puts(b, "| Setting | Value |\n|---|---|\n");

    gm_say_arg name = GM_TEXT(d->name ? d->name : "unknown");
    if (d->chip)
        gm_say(b, "| Device | {} ({}, compute capability {}.{}, {} SMs, device {}) |\n", name,
               GM_TEXT(d->chip), GM_INT(d->cc_major), GM_INT(d->cc_minor), GM_INT(d->sm_count),
               GM_INT(d->ordinal));
    else
        gm_say(b, "| Device | {} (compute capability {}.{}, {} SMs, device {}) |\n", name,
               GM_INT(d->cc_major), GM_INT(d->cc_minor), GM_INT(d->sm_count),
               GM_INT(d->ordinal));

    gm_say(b, "| Memory | {}, {}-bit bus at {} MHz: {} theoretical (2 × clock × bus width); "
              "L2 {} |\n",
           GM_BYTES(d->global_memory_bytes > 0 ? (double)d->global_memory_bytes : NAN),
           GM_INT(d->memory_bus_width_bits),
           GM_NUM(d->memory_clock_khz > 0 ? d->memory_clock_khz / 1000.0 : NAN, 4),
           GM_GBS(gm_value_num(&d->theoretical_bandwidth_gbs)),
           GM_BYTES(d->l2_bytes > 0 ? (double)d->l2_bytes : NAN));

    gm_say_arg copy = GM_GBS(gm_value_num(&d->copy_bandwidth_gbs));
    if (gm_value_present(&d->copy_bandwidth_bytes))
        gm_say(b, "| Measured copy bandwidth | {}, device-to-device copy of {}, bytes read + "
                  "written |\n",
               copy, GM_BYTES(gm_value_num(&d->copy_bandwidth_bytes)));
    else
        gm_say(b, "| Measured copy bandwidth | {} |\n", copy);

    gm_buf v = GM_BUF_INIT;
    S_attainable(&v, r);
    gm_say(b, "| Attainable bandwidth | {} |\n", GM_BUF(&v));
    gm_buf_free(&v);

    gm_buf api = S_cuda_version(d->cuda_driver_api), runtime = S_cuda_version(d->cuda_runtime);
    gm_say(b, "| Software | driver {}, CUDA driver API {}, runtime {}, CUPTI API {} |\n",
           GM_TEXT(d->driver_version ? d->driver_version : DASH), GM_BUF(&api),
           GM_BUF(&runtime), d->cupti_api > 0 ? GM_INT(d->cupti_api) : GM_LIT(DASH));
    gm_buf_free(&api);
    gm_buf_free(&runtime);

    gm_say_arg version = GM_TEXT(r->tool_version ? r->tool_version : DASH);
    if (r->commit)
        gm_say(b, "| Tool | gpumem-report {}, commit {}{}, results schema {} |\n", version,
               GM_CODE(r->commit),
               GM_LIT(r->dirty == 1   ? " (with uncommitted changes)"
                      : r->dirty == 0 ? " (clean)"
                                      : ""),
               GM_INT(r->schema_version));
    else
        gm_say(b, "| Tool | gpumem-report {}, results schema {} |\n", version,
               GM_INT(r->schema_version));

    gm_say_arg replay = GM_TEXT(c->replay_mode ? c->replay_mode : DASH);
    gm_say_arg range = GM_TEXT(c->range_mode ? c->range_mode : DASH);
    if (c->passes >= 0)
        gm_say(b, "| Metrics | {} metrics in {} profiler pass{}; replay mode {}, range mode {} |\n",
               GM_INT((long long)c->n_metrics), GM_INT(c->passes),
               GM_LIT(c->passes == 1 ? "" : "es"), replay, range);
    else
        gm_say(b, "| Metrics | {} metrics in an unknown number of passes; replay mode {}, range "
                  "mode {} |\n",
               GM_INT((long long)c->n_metrics), replay, range);

    bool as_found = c->clock_control && strcmp(c->clock_control, "none") == 0;
    gm_say(b, as_found ? "| Cache and clocks | {}; clocks: {} (left as found) |\n"
                       : "| Cache and clocks | {}; clocks: {} |\n",
           GM_LIT(c->cache_flush ? "L2 flushed before each profiled pass"
                                 : "L2 not flushed between profiled passes"),
           GM_TEXT(c->clock_control ? c->clock_control : DASH));

    size_t gated = S_program_collection(c) ? 0 : gm_results_count_gated(r, NULL);
    if (S_program_collection(c))
        gm_buf_puts(b, "| Timing | the profiler's duration of each of the program's launches "
                       "(not repeated) |\n");
    else if (gated)
        gm_say(b, "| Timing | {} warm-up launches, then {} timed repetitions per run; {} run{} "
                  "under 2 ms a repetition timed behind the launch gate (no host time in a "
                  "sample) |\n",
               GM_INT(c->timing_warmup), GM_INT(c->timing_repetitions),
               GM_INT((long long)gated), GM_LIT(gated == 1 ? "" : "s"));
    else
        gm_say(b, "| Timing | {} warm-up launches, then {} timed repetitions per run |\n",
               GM_INT(c->timing_warmup), GM_INT(c->timing_repetitions));

    gm_say(b, "| Size set | {} |\n", GM_TEXT(c->size_set ? c->size_set : DASH));

    bool profiled = gm_value_present(&c->profile_seconds);
    bool total = gm_value_present(&c->total_seconds);
    gm_say_arg profile_s = GM_NUM(gm_value_num(&c->profile_seconds), 3);
    gm_say_arg total_s = GM_NUM(gm_value_num(&c->total_seconds), 3);
    if (profiled && total)
        gm_say(b, "| Collection time | {} s profiling, {} s in all |\n", profile_s, total_s);
    else if (profiled)
        gm_say(b, "| Collection time | {} s profiling |\n", profile_s);
    else if (total)
        gm_say(b, "| Collection time | {} s in all |\n", total_s);
    gm_md_process_rows(b, r);
    if (timestamp)
        gm_say(b, "| Taken at | {} |\n", GM_TEXT(r->taken_at ? r->taken_at : DASH));
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
    gm_say_arg nf = GM_INT((long long)failed), ne = GM_INT((long long)errors);
    gm_say_arg sf = GM_LIT(failed == 1 ? "" : "s"), se = GM_LIT(errors == 1 ? "" : "s");
    gm_say_arg their = GM_LIT(failed == 1 ? "its" : "their");
    if (failed && errors)
        gm_say(b, "> **Warning: {} run{} failed {} check and {} run{} stopped with an error.**",
               nf, sf, their, ne, se);
    else if (failed)
        gm_say(b, "> **Warning: {} run{} failed {} check.**", nf, sf, their);
    else
        gm_say(b, "> **Warning: {} run{} stopped with an error.**", ne, se);
    gm_say(b, " {} numbers are in the tables, marked, and left out of every comparison, chart "
              "and speed claim.\n>\n",
           GM_LIT(failed + errors == 1 ? "Its" : "Their"));
    for (size_t i = 0; i < ss->n; i++) {
        const gm_section *s = &ss->v[i];
        for (size_t k = 0; k < s->n_runs; k++) {
            const gm_run *run = s->runs[k];
            if (!md_failed(run))
                continue;
            gm_buf what = GM_BUF_INIT, check = GM_BUF_INIT;
            md_case(&what, &s->vary, run, NULL);
            md_check_text(&check, run, true);
            gm_say(b, "> - {}: {}: {}\n", GM_TEXT(md_exp_title(s->exp)), GM_BUF(&what),
                   GM_BUF(&check));
            gm_buf_free(&what);
            gm_buf_free(&check);
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
                    gm_say(&toc, "- [{}](#{})\n", GM_TEXT(text.data), GM_BUF(&slug));
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
