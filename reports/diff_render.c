/* diff_render.c — the diff for readers and machines: Markdown (a pull-request
 * comment, or a section of the report), HTML (the same Markdown through
 * cmark-gfm, with a chart of the largest changes) and JSON.  Pure functions
 * of a computed gm_diff (diff.c): same diff in, same bytes out.
 */
#include "diff.h"
#include "srclines.h"

#include "../core/buf.h"
#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/output.h"
#include "../core/say.h"
#include "charts.h"

#include <jansson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Units gm_fmt_quantity may print as they are; any other (from a results
 * file) is escaped. */
static bool S_plain_unit(const char *u)
{
    static const char *const known[] = {"", "ms", "ns", "byte", "byte/s", "%", "pp", "sector",
                                        "request", "inst", "sector/request"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(u, known[i]) == 0)
            return true;
    return false;
}

static void S_qty(gm_buf *b, double v, const char *unit, bool sign)
{
    if (!unit || S_plain_unit(unit))
        gm_say(b, "{}", GM_QUANTITY(v, unit, sign));
    else if (isfinite(v))
        gm_say(b, "{} {}", GM_QUANTITY(v, NULL, sign), GM_TEXT(unit));
    else
        gm_say(b, "{}", GM_QUANTITY(v, NULL, sign));
}

static void S_num(gm_buf *b, const gm_value *v, const char *unit)
{
    if (!gm_value_present(v)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    S_qty(b, gm_value_num(v), unit, false);
}

static const char *S_check_name(const gm_run *r)
{
    return r ? gm_check_status_name(r->check.status) : "—";
}

static void S_value_cell(gm_buf *b, const gm_diff_row *r, bool head)
{
    const gm_value *v = head ? &r->vhead : &r->vbase;
    const gm_run *run = head ? r->head : r->base;
    if (!r->metric) {
        /* A whole-run row: the check, and the median time when there is one. */
        if (gm_value_present(v)) {
            gm_buf num = GM_BUF_INIT;
            S_num(&num, v, r->unit);
            gm_say(b, "{}, {}", GM_LIT(S_check_name(run)), GM_BUF(&num));
            gm_buf_free(&num);
        } else {
            gm_buf_puts(b, S_check_name(run));
        }
        return;
    }
    S_num(b, v, r->unit);
    if (strcmp(r->metric, GM_DIFF_TIME) == 0) {
        if (run && run->timing.present && run->timing.n)
            gm_say(b, " (n={})", GM_INT((long long)run->timing.n));
    }
}

static void S_delta_cell(gm_buf *b, const gm_diff_row *r)
{
    if (!r->metric || isnan(r->delta)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    const char *u = gm_diff_unit_short(r->unit);
    double delta = r->delta;
    if (r->vbase.kind == GM_V_INT && r->vhead.kind == GM_V_INT && r->vhead.i >= r->vbase.i &&
        (unsigned long long)r->vhead.i - (unsigned long long)r->vbase.i < (1ULL << 53))
        delta = (double)((unsigned long long)r->vhead.i - (unsigned long long)r->vbase.i);
    else if (r->vbase.kind == GM_V_INT && r->vhead.kind == GM_V_INT && r->vhead.i < r->vbase.i &&
             (unsigned long long)r->vbase.i - (unsigned long long)r->vhead.i < (1ULL << 53))
        delta = -(double)((unsigned long long)r->vbase.i - (unsigned long long)r->vhead.i);
    S_qty(b, delta, u, true);
    bool pct = isfinite(r->ratio) && r->delta != 0.0 && !(r->unit && strcmp(r->unit, "%") == 0);
    bool per = isfinite(r->per_inst) && r->delta != 0.0;
    gm_say_arg change = GM_PCT_CHANGE((r->ratio - 1.0) * 100.0);
    gm_say_arg sign = GM_LIT(r->per_inst > 0 ? "+" : "");
    if (pct && per)
        gm_say(b, " ({}, {}{}/inst)", change, sign, GM_NUM(r->per_inst, 3));
    else if (pct)
        gm_say(b, " ({})", change);
    else if (per)
        gm_say(b, " ({}{}/inst)", sign, GM_NUM(r->per_inst, 3));
    if (r->noise == GM_NOISE_SPREAD)
        gm_say(b, ", spread {}", GM_PCT(r->noise_floor * 100.0));
    else if (r->noise == GM_NOISE_ONE_SAMPLE)
        gm_buf_puts(b, ", one launch a side");
    else if (r->test.method != GM_MWU_NONE && r->test.p < 0.001)
        gm_buf_puts(b, ", p \\< 0.001");
    else if (r->test.method != GM_MWU_NONE)
        gm_say(b, ", p={}", GM_NUM(r->test.p, 2));
}

static void S_ratio_cell(gm_buf *b, const gm_diff_row *r)
{
    if (!r->metric || !isfinite(r->ratio)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    /* three significant digits, never an exponent: 0.500×, 1.03×, 31.4×, 256× */
    double a = fabs(r->ratio);
    gm_say(b, "{}×",
           a >= 99.95 || a == 0 ? GM_FIXED(r->ratio, 0)
           : a >= 0.0005        ? GM_NUM(r->ratio, 3)
                                : GM_LIT("\\< 0.001"));
}

static gm_say_arg S_metric_cell(const gm_diff_row *r)
{
    if (!r->metric)
        return GM_LIT(r->status == GM_DIFF_FAILED ? "validation" : "(run)");
    if (strcmp(r->metric, GM_DIFF_TIME) == 0)
        return GM_LIT("time (median)");
    return r->info ? GM_TEXT(r->info->label) : GM_CODE(r->metric);
}

static const gm_run *S_row_run(const gm_diff_row *r)
{
    return r->head ? r->head : r->base;
}

static void S_commit_cell(gm_buf *b, const gm_results *r)
{
    char shortid[13] = "";
    bool known = r->commit && *r->commit;
    if (known)
        snprintf(shortid, sizeof shortid, "%s", r->commit);
    gm_say(b, "{}{}", known ? GM_CODE(shortid) : GM_LIT("unknown"),
           GM_LIT(r->dirty == 1   ? " **(dirty)**"
                  : r->dirty == 0 ? " (clean)"
                                  : " (dirty: unknown)"));
}

static void S_device_cell(gm_buf *b, const gm_results *r)
{
    gm_say(b, "{} (sm\\_{}{}, {} SMs)", GM_TEXT(r->device.name ? r->device.name : "unknown GPU"),
           GM_INT(r->device.cc_major), GM_INT(r->device.cc_minor), GM_INT(r->device.sm_count));
}

static void S_sw_cell(gm_buf *b, const gm_results *r)
{
    gm_say(b, "{} / {} / {} / {}",
           GM_TEXT(r->device.driver_version ? r->device.driver_version : "unknown"),
           GM_INT(r->device.cuda_driver_api), GM_INT(r->device.cuda_runtime),
           GM_INT(r->device.cupti_api));
}

static void S_collection_cell(gm_buf *b, const gm_results *r)
{
    const gm_collection *c = &r->collection;
    gm_say(b, "sizes {}, L2 flush {}, clocks {}, {} metrics, {} timed repetitions",
           GM_TEXT(c->size_set ? c->size_set : "unknown"), GM_LIT(c->cache_flush ? "on" : "off"),
           GM_TEXT(c->clock_control ? c->clock_control : "unknown"),
           GM_INT((long long)c->n_metrics), GM_INT(c->timing_repetitions));
}

static void S_header_row(gm_buf *b, const char *label, const gm_diff *d,
                         void (*cell)(gm_buf *, const gm_results *))
{
    gm_buf base = GM_BUF_INIT, head = GM_BUF_INIT;
    cell(&base, d->base);
    cell(&head, d->head);
    gm_say(b, "| {} | {} | {} |\n", GM_LIT(label), GM_BUF(&base), GM_BUF(&head));
    gm_buf_free(&base);
    gm_buf_free(&head);
}

/* "not judged (collected differently); 2 regressions, ..." */
static void S_md_verdict(gm_buf *b, const gm_diff *d)
{
    char *v = gm_diff_verdict(d);
    gm_say(b, !d->comparable && !d->forced ? "not judged (collected differently); {}" : "{}",
           GM_LIT(v));
    free(v);
}

/* Verdict, header table, banner and notes. */
static void S_md_head(gm_buf *b, const gm_diff *d, const gm_diff_render *ro, bool verdict)
{
    if (verdict) {
        char *g = gm_diff_gate_line(d);
        gm_buf v = GM_BUF_INIT;
        S_md_verdict(&v, d);
        gm_say(b, "### gpumem-report diff: {}\n\n", GM_TEXT(g));
        gm_say(b, "Rows: {}.\n\n", GM_BUF(&v));
        gm_buf_free(&v);
        free(g);
    }

    gm_buf_puts(b, "| | Base | Head |\n|---|---|---|\n");
    S_header_row(b, "Commit", d, S_commit_cell);
    gm_say(b, "| File | {} | {} |\n", GM_CODE(ro->base_name ? ro->base_name : "base"),
           GM_CODE(ro->head_name ? ro->head_name : "head"));
    S_header_row(b, "GPU", d, S_device_cell);
    S_header_row(b, "Driver / CUDA driver API / runtime / CUPTI", d, S_sw_cell);
    S_header_row(b, "Collection", d, S_collection_cell);
    gm_say(b, "| Runs | {} | {} |\n\n", GM_INT((long long)d->base->n_runs),
           GM_INT((long long)d->head->n_runs));

    if (!d->comparable) {
        if (d->forced)
            gm_buf_puts(b, "> **Collected differently, compared anyway (`--force`):**\n");
        else
            gm_buf_puts(b, ro->in_report
                               ? "> **Incomparable: base and head were collected differently.** "
                                 "Rows that would be judged are marked incomparable; "
                                 "`gpumem-report diff --force` judges them anyway.\n"
                               : "> **Incomparable: base and head were collected differently.** "
                                 "Rows that would be judged are marked incomparable; "
                                 "`--force` judges them anyway.\n");
        for (size_t i = 0; i < d->n_reasons; i++)
            gm_say(b, "> - {}\n", GM_TEXT(d->reasons[i]));
        gm_buf_putc(b, '\n');
    }
    if (d->n_notes) {
        gm_buf_puts(b, "Notes (these do not prevent comparison):\n\n");
        for (size_t i = 0; i < d->n_notes; i++)
            gm_say(b, "- {}\n", GM_TEXT(d->notes[i]));
        gm_buf_putc(b, '\n');
    }
}

/* "Thresholds set on the command line: time 3 %, DRAM read exact." — the
 * metrics whose rows used a threshold other than the default, once each. */
static void S_md_overrides(gm_buf *b, const gm_diff *d)
{
    const char **seen = gm_xcalloc(d->n_rows ? d->n_rows : 1, sizeof *seen);
    size_t n = 0;
    for (size_t i = 0; i < d->n_rows; i++) {
        const gm_diff_row *r = &d->rows[i];
        if (!r->metric)
            continue;
        gm_threshold def = gm_diff_default_threshold(r->metric);
        if (gm_threshold_equal(&def, &r->thr))
            continue;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = strcmp(seen[k], r->metric) == 0;
        if (dup)
            continue;
        seen[n++] = r->metric;
        char t[64];
        gm_threshold_format(&r->thr, r->unit, t, sizeof t);
        gm_say(b, n == 1 ? "Thresholds set on the command line: {} {}" : ", {} {}",
               r->info ? GM_TEXT(r->info->label) : GM_CODE(r->metric), GM_TEXT(t));
    }
    if (n)
        gm_buf_puts(b, ".\n\n");
    free(seen);
}

static const char S_table_head[] =
    "| Change | Run | Metric | Base | Head | Δ | Ratio |\n"
    "|---|---|---|---|--:|--:|--:|\n";

static void S_launch_text(gm_buf *b, const gm_launch *l)
{
    gm_buf_printf(b, "%ux%ux%u/%ux%ux%u", l->grid[0], l->grid[1], l->grid[2], l->block[0],
                  l->block[1], l->block[2]);
}

/* The run of a row: its parameters; for a program's kernel, its launch
 * configuration (grid/block, shared memory when it changed), base → head
 * where it changed. */
static void S_run_cell(gm_buf *b, const gm_diff_row *r)
{
    const gm_run *run = S_row_run(r);
    bool params = run->n_params > 0, launch = r->program && run->has_launch;
    gm_buf pb = GM_BUF_INIT, lb = GM_BUF_INIT;
    if (params)
        gm_diff_params_text(&pb, run);
    if (launch) {
        const gm_run *o = r->base && r->head ? r->base : NULL;
        if (o && o->has_launch &&
            (memcmp(o->launch.grid, run->launch.grid, sizeof o->launch.grid) != 0 ||
             memcmp(o->launch.block, run->launch.block, sizeof o->launch.block) != 0)) {
            S_launch_text(&lb, &o->launch);
            gm_buf_puts(&lb, " → ");
        }
        S_launch_text(&lb, &run->launch);
        if (o && o->has_launch && o->launch.shared_bytes != run->launch.shared_bytes)
            gm_buf_printf(&lb, ", shared %lld → %lld B", o->launch.shared_bytes,
                          run->launch.shared_bytes);
    }
    if (params && launch)
        gm_say(b, "{} {}", GM_CODE(pb.data), GM_CODE(lb.data));
    else if (params || launch)
        gm_say(b, "{}", GM_CODE(params ? pb.data : lb.data));
    else
        gm_buf_puts(b, "—");
    gm_buf_free(&pb);
    gm_buf_free(&lb);
}

/* The verdict of a row, bold when it fails the gate, and its note. */
static void S_status_cell(gm_buf *b, const gm_diff_row *r)
{
    bool bold = r->status == GM_DIFF_REGRESSED || r->status == GM_DIFF_FAILED;
    gm_say(b, bold ? "**{}**" : "{}", GM_LIT(gm_diff_status_name(r->status)));
    if (r->note[0])
        gm_say(b, ": {}", GM_TEXT(r->note));
}

static void S_md_row(gm_buf *b, const gm_diff_row *r)
{
    gm_buf status = GM_BUF_INIT, run = GM_BUF_INIT, base = GM_BUF_INIT, head = GM_BUF_INIT,
           delta = GM_BUF_INIT, ratio = GM_BUF_INIT;
    S_status_cell(&status, r);
    S_run_cell(&run, r);
    S_value_cell(&base, r, false);
    S_value_cell(&head, r, true);
    S_delta_cell(&delta, r);
    S_ratio_cell(&ratio, r);
    gm_say(b, "| {} | {} | {} | {} | {} | {} | {} |\n", GM_BUF(&status), GM_BUF(&run),
           S_metric_cell(r), GM_BUF(&base), GM_BUF(&head), GM_BUF(&delta), GM_BUF(&ratio));
    gm_buf_free(&status);
    gm_buf_free(&run);
    gm_buf_free(&base);
    gm_buf_free(&head);
    gm_buf_free(&delta);
    gm_buf_free(&ratio);
}

/* A constant of the legend as printf's "%g" gives it. */
static gm_say_arg S_g(double x)
{
    return GM_GENERAL(x, 6);
}

/* How rows are judged, and the thresholds set on the command line. */
static void S_md_legend(gm_buf *b, const gm_diff *d)
{
    gm_say(b,
        "How rows are judged: one verdict per layout (a program's kernel), over its runs. "
        "**Counts gate, rates explain**: the gate judges the counts the code decides "
        "(sectors, requests, shared conflicts and wavefronts, instructions, DRAM bytes) and "
        "the time; the rates made from them (hit rates, % of peak, bytes/second, "
        "efficiency, sectors/request, occupancy, the profiler's duration) are shown beside "
        "them as *changed* and gate only when `--threshold` names them. *Time* is the median "
        "of the event-timed repetitions (of a program's kernel, its launches' durations); it "
        "counts when the medians differ by more than the threshold **and** a two-sided "
        "Mann–Whitney U test gives p \\< {} (exact distribution when there are no ties and "
        "both sets have fewer than 50 samples, else the normal approximation with tie and "
        "continuity corrections); with too few samples for the test to reach that, the "
        "change must exceed the spread of the kernel's own launches ((max − min) / median), "
        "or {} % with one launch a side. A time that moved while no count of its run did "
        "must also exceed the noise between sessions, {} % and {} µs; the time of a run "
        "with no counter (not profiled) is shown, not gated. Otherwise the row is *within "
        "noise*. Counters have one value per run and no test: their threshold decides, and "
        "where it has a floor the change must be beyond both. Default thresholds: time {} "
        "%; counts that are identical run to run (global sectors, requests, instructions, "
        "shared instructions, and the sectors/request and efficiency made from them) exact; "
        "shared bank conflicts and wavefronts {} % and {} per shared instruction (Δ/inst); "
        "DRAM bytes {} % and {} MiB; DRAM bytes/second {} % and {} GB/s; L2 hit rate {} "
        "percentage points; other percentages {} points; profiler duration {} %; unknown "
        "metrics {} %, direction none (*changed*). A program's kernels pair by kernel and "
        "NVTX range; their launch configuration is shown beside the row.\n\n",
        S_g(d->alpha), S_g(GM_DIFF_ONE_SAMPLE_REL * 100), S_g(GM_DIFF_TIME_ALONE_REL * 100),
        S_g(GM_DIFF_TIME_ALONE_MS * 1000), S_g(GM_DIFF_TIME_REL * 100),
        S_g(GM_DIFF_SHARED_REL * 100), S_g(GM_DIFF_SHARED_PER_INST),
        S_g(GM_DIFF_DRAM_BYTES_REL * 100), S_g(GM_DIFF_DRAM_BYTES_FLOOR / (1024.0 * 1024.0)),
        S_g(GM_DIFF_DRAM_RATE_REL * 100), S_g(GM_DIFF_DRAM_RATE_FLOOR / 1e9),
        S_g(GM_DIFF_L2_HIT_POINTS), S_g(GM_DIFF_PCT_POINTS), S_g(GM_DIFF_DURATION_REL * 100),
        S_g(GM_DIFF_UNKNOWN_REL * 100));
    S_md_overrides(b, d);
}

static void S_count_list(gm_buf *b, const size_t *n, const gm_diff_status *which, size_t k)
{
    bool first = true;
    for (size_t i = 0; i < k; i++) {
        if (!n[which[i]])
            continue;
        gm_say(b, first ? "{} {}" : ", {} {}", GM_COUNT((double)n[which[i]]),
               GM_LIT(gm_diff_status_name(which[i])));
        first = false;
    }
}

static bool S_quiet(gm_diff_status s)
{
    return s == GM_DIFF_UNCHANGED || s == GM_DIFF_NOISE;
}

/* Which rows of verdict g the Markdown shows: every one with --all; else
 * those that moved, less the rates another row repeats, and with them the
 * time of each run they belong to (one time row: the median).  Marks
 * show[k] for g->rows[k]; returns how many. */
static size_t S_shown_rows(const gm_diff *d, const gm_diff_group *g, bool only_changed,
                           bool *show)
{
    size_t n = 0;
    for (size_t k = 0; k < g->n_rows; k++) {
        const gm_diff_row *r = &d->rows[g->rows[k]];
        show[k] = !only_changed || (!S_quiet(r->status) && !gm_diff_row_repeats(d, r));
    }
    if (only_changed)
        for (size_t k = 0; k < g->n_rows; k++) {
            const gm_diff_row *r = &d->rows[g->rows[k]];
            if (show[k] || r->role != GM_DIFF_ROLE_TIME || !r->metric)
                continue;
            for (size_t q = 0; q < g->n_rows && !show[k]; q++) {
                const gm_diff_row *o = &d->rows[g->rows[q]];
                show[k] = show[q] && q != k && o->base == r->base && o->head == r->head;
            }
        }
    for (size_t k = 0; k < g->n_rows; k++)
        n += show[k];
    return n;
}

/* "12 rows: time (4), sh ld conflicts (4), sh ld wavefronts (4)". */
static void S_fold_summary(gm_buf *b, const gm_diff *d, const gm_diff_group *g, const bool *show,
                           size_t n)
{
    gm_say(b, n == 1 ? "{} row: " : "{} rows: ", GM_COUNT((double)n));
    const char *seen[8];
    size_t cnt[8] = {0}, ns = 0, more = 0;
    for (size_t k = 0; k < g->n_rows; k++) {
        if (!show[k])
            continue;
        const gm_diff_row *r = &d->rows[g->rows[k]];
        const char *l = !r->metric ? "run" : strcmp(r->metric, GM_DIFF_TIME) == 0 ? "time"
                      : r->info ? r->info->label : r->metric;
        size_t i = 0;
        while (i < ns && strcmp(seen[i], l) != 0)
            i++;
        if (i == ns) {
            if (ns == 8) {
                more++;
                continue;
            }
            seen[ns++] = l;
        }
        cnt[i]++;
    }
    for (size_t i = 0; i < ns; i++)
        gm_say(b, i ? ", {} ({})" : "{} ({})", GM_TEXT(seen[i]), GM_INT((long long)cnt[i]));
    if (more)
        gm_say(b, " and {} more", GM_INT((long long)more));
}

/* "**regressed** `transpose` `padded`: 1 → 32-way shared load conflict, ..." */
static void S_verdict_line(gm_buf *b, const gm_diff_group *g)
{
    bool bold = g->status == GM_DIFF_REGRESSED || g->status == GM_DIFF_FAILED;
    gm_say(b, bold ? "**{}** {} {}: {}\n\n" : "{} {} {}: {}\n\n",
           GM_LIT(gm_diff_status_name(g->status)), GM_CODE(g->experiment ? g->experiment : ""),
           GM_CODE(g->variant ? g->variant : ""), GM_TEXT(g->summary));
}

/* The verdicts and the legend.  As a pull-request comment (the default): a
 * line per layout that moved, most severe first, its rows folded under it,
 * the legend folded, and verdicts cut where the text would pass the cap,
 * with a line that says so.  after: room kept for what follows the body
 * (the per-line section). */
static void S_md_body(gm_buf *b, const gm_diff *d, const gm_diff_render *ro, size_t after)
{
    bool fold = !ro->all && !ro->html && !ro->in_report;
    bool only_changed = ro->only_changed && !ro->all;
    size_t cap = ro->all || ro->html || ro->in_report ? 0
               : ro->max_chars ? ro->max_chars : GM_DIFF_MD_MAX_CHARS;
    gm_buf legend = GM_BUF_INIT;
    if (fold)
        gm_buf_puts(&legend, "<details><summary>How rows are judged</summary>\n\n");
    S_md_legend(&legend, d);
    if (fold)
        gm_buf_puts(&legend, "</details>\n\n");
    /* room kept for what follows the verdicts: the closing lines and the legend */
    size_t reserve = legend.len + 1200 + after;

    gm_diff_group *g;
    size_t ng = gm_diff_groups(d, &g);
    bool *show = gm_xcalloc(d->n_rows ? d->n_rows : 1, sizeof *show);
    size_t hidden[GM_DIFF_N_STATUS] = {0}, n_hidden = 0, repeats = 0, rate_groups = 0;
    size_t shown = 0, shown_groups = 0, cut = 0, cut_reg = 0, cut_groups = 0;
    bool by_cap = false;
    for (size_t i = 0; i < ng; i++) {
        const gm_diff_group *v = &g[i];
        bool quiet = only_changed && (S_quiet(v->status) || v->rates_only);
        size_t n = quiet ? 0 : S_shown_rows(d, v, only_changed, show);
        for (size_t k = 0; k < v->n_rows; k++) {
            const gm_diff_row *r = &d->rows[v->rows[k]];
            if (!quiet && show[k])
                continue;
            n_hidden++;
            if (S_quiet(r->status))
                hidden[r->status]++;
            else if (!quiet)
                repeats++;   /* a rate another row repeats; else a rates-only verdict's */
        }
        if (quiet) {
            rate_groups += only_changed && v->rates_only;
            continue;
        }
        size_t nreg = 0;
        for (size_t k = 0; k < v->n_rows; k++)
            nreg += show[k] && d->rows[v->rows[k]].status == GM_DIFF_REGRESSED;
        if ((ro->max_rows && shown >= ro->max_rows) || (cut && by_cap)) {
            cut += n, cut_reg += nreg, cut_groups++;
            continue;
        }
        gm_buf blk = GM_BUF_INIT;
        S_verdict_line(&blk, v);
        if (fold) {
            gm_buf fs = GM_BUF_INIT;
            S_fold_summary(&fs, d, v, show, n);
            gm_say(&blk, "<details><summary>{}</summary>\n\n", GM_BUF(&fs));
            gm_buf_free(&fs);
        }
        gm_buf_puts(&blk, S_table_head);
        size_t rows_here = 0;
        for (size_t k = 0; k < v->n_rows; k++) {
            if (!show[k])
                continue;
            if (ro->max_rows && shown + rows_here >= ro->max_rows) {
                cut++;
                cut_reg += d->rows[v->rows[k]].status == GM_DIFF_REGRESSED;
                continue;
            }
            S_md_row(&blk, &d->rows[v->rows[k]]);
            rows_here++;
        }
        gm_buf_puts(&blk, fold ? "\n</details>\n\n" : "\n");
        if (cap && b->len + blk.len + reserve + 200 > cap) {
            gm_buf_free(&blk);
            by_cap = true;
            cut += rows_here, cut_reg += nreg, cut_groups++;
            continue;
        }
        if (shown_groups == 0)
            gm_buf_puts(b, only_changed ? "Verdicts, one per layout that changed, most severe "
                                          "first (rates beside the counts they explain):\n\n"
                                        : "Verdicts, one per layout, most severe first:\n\n");
        gm_buf_put(b, blk.data, blk.len);
        gm_buf_free(&blk);
        shown += rows_here;
        shown_groups++;
    }
    free(show);
    gm_diff_groups_free(g, ng);
    if (shown_groups == 0)
        gm_buf_puts(b, only_changed && n_hidden ? "No row changed.\n\n" : "No rows to show.\n\n");
    if (cut && !by_cap) {
        gm_say(b, "{} more rows not shown (`--max-rows {}`); the JSON output has them all.\n\n",
               GM_INT((long long)cut), GM_INT((long long)ro->max_rows));
    } else if (cut || cut_groups) {
        gm_buf reg = GM_BUF_INIT, where = GM_BUF_INIT;
        if (cut_reg)
            gm_say(&reg, ", {} of them regression{}", GM_COUNT((double)cut_reg),
                   GM_LIT(cut_reg == 1 ? "" : "s"));
        if (ro->full_name)
            gm_say(&where, "every row: {}", GM_CODE(ro->full_name));
        else
            gm_buf_puts(&where, "`gpumem-report diff --all` lists every row");
        gm_say(b, "**Cut:** {} more verdict{} ({} row{}{}) not shown, to keep this text under {} "
                  "characters (a pull-request comment takes at most 65,536); {}.\n\n",
               GM_COUNT((double)cut_groups), GM_LIT(cut_groups == 1 ? "" : "s"),
               GM_COUNT((double)cut), GM_LIT(cut == 1 ? "" : "s"), GM_BUF(&reg),
               GM_COUNT((double)cap), GM_BUF(&where));
        gm_buf_free(&reg);
        gm_buf_free(&where);
    }
    if (n_hidden) {
        static const gm_diff_status quiet[] = {GM_DIFF_UNCHANGED, GM_DIFF_NOISE};
        gm_buf what = GM_BUF_INIT;
        S_count_list(&what, hidden, quiet, 2);
        bool any = hidden[GM_DIFF_UNCHANGED] || hidden[GM_DIFF_NOISE];
        if (rate_groups) {
            gm_say(&what, "{}{} layout{} where only a rate moved", GM_LIT(any ? ", " : ""),
                   GM_COUNT((double)rate_groups), GM_LIT(rate_groups == 1 ? "" : "s"));
            any = true;
        }
        if (repeats)
            gm_say(&what, "{}{} rate{} repeating another row (duration beside the median time, "
                          "DRAM % peak beside DRAM B/s)",
                   GM_LIT(any ? ", " : ""), GM_COUNT((double)repeats),
                   GM_LIT(repeats == 1 ? "" : "s"));
        gm_say(b, ro->in_report ? "Not shown: {} (`gpumem-report diff --all` lists them all).\n\n"
                                : "Not shown: {} (`--all` lists every row).\n\n",
               GM_BUF(&what));
        gm_buf_free(&what);
    }
    gm_buf_put(b, legend.data ? legend.data : "", legend.len);
    gm_buf_free(&legend);
}

char *gm_diff_to_markdown(const gm_diff *d, const gm_diff_render *ro)
{
    gm_diff_render none = {.only_changed = true};
    if (!ro)
        ro = &none;
    gm_buf b = GM_BUF_INIT;
    S_md_head(&b, d, ro, true);
    /* the per-line section first, so that the table leaves room for it */
    bool capped = !ro->all && !ro->html && !ro->in_report;
    gm_buf sl = GM_BUF_INIT;
    gm_srclines_md_diff_section(&sl, d, capped ? GM_DIFF_MD_LINES_CHARS : 0);
    S_md_body(&b, d, ro, capped ? sl.len : 0);
    gm_buf_put(&b, sl.data ? sl.data : "", sl.len);
    gm_buf_free(&sl);
    return gm_buf_detach(&b);
}

void gm_diff_md_section(gm_buf *b, const gm_diff *d, const gm_diff_render *ro)
{
    gm_diff_render r = {.only_changed = true, .in_report = true};
    if (ro) {
        r = *ro;
        r.only_changed = true;
        r.in_report = true;
    }
    const gm_results *base = d->base;
    if (base->commit && *base->commit) {
        char shortid[13];
        snprintf(shortid, sizeof shortid, "%s", base->commit);
        gm_say(b, base->dirty == 1 ? "## Changes since {} with uncommitted changes\n\n"
                                   : "## Changes since {}\n\n",
               GM_CODE(shortid));
    } else {
        gm_say(b, "## Changes since {}\n\n", GM_CODE(r.base_name ? r.base_name : "the baseline"));
    }
    gm_buf v = GM_BUF_INIT;
    S_md_verdict(&v, d);
    gm_say(b, "These results against the baseline {}, run by run as `gpumem-report diff` compares "
              "them (the same pairing, thresholds and noise test): **{}**.\n\n",
           GM_CODE(r.base_name ? r.base_name : "base"), GM_BUF(&v));
    gm_buf_free(&v);
    S_md_head(b, d, &r, false);
    S_md_body(b, d, &r, 0);
    gm_srclines_md_diff_section(b, d, GM_DIFF_MD_LINES_CHARS);
}

/* ======================================================================== */
/* HTML                                                                     */
/* ======================================================================== */

static int S_mag_cmp(const void *a, const void *b)
{
    const gm_diff_row *x = *(const gm_diff_row *const *)a, *y = *(const gm_diff_row *const *)b;
    double mx = fabs(log2(x->ratio)), my = fabs(log2(y->ratio));
    if (mx != my)
        return mx < my ? 1 : -1;
    return (x->order > y->order) - (x->order < y->order);
}

/* A ratio as the chart's labels give it: "×278", "×1.93", "×0.489",
 * "×0.0000153" (three significant digits, never an exponent). */
static void S_ratio_text(gm_buf *b, double r)
{
    gm_buf_puts(b, "×");
    if (r >= 99.95)
        gm_fmt_fixed(b, r, 0);
    else
        gm_fmt_num(b, r, 3);
}

/* The largest changes as horizontal bars on a log2 axis centred on ratio 1
 * (a halving and a doubling are the same length), drawn by gnuplot through
 * the report's chart module.  The axis reaches L = the largest |log2 ratio|
 * shown, rounded up to a power of two (at least 1/16, i.e. ×1.044), so small
 * timing changes are not flattened to nothing when nothing larger is shown.
 * Appends the chart (or a line saying there is none) to b. */
static gm_status S_chart(gm_buf *b, const gm_diff *d, const char *gnuplot, gm_error *err)
{
    enum { MAXBARS = 15 };
    const gm_diff_row **sel = gm_xcalloc(d->n_rows ? d->n_rows : 1, sizeof *sel);
    size_t n = 0;
    for (size_t i = 0; i < d->n_rows; i++) {
        const gm_diff_row *r = &d->rows[i];
        bool kind = r->status == GM_DIFF_REGRESSED || r->status == GM_DIFF_IMPROVED ||
                    r->status == GM_DIFF_CHANGED || r->status == GM_DIFF_NOISE;
        /* the rates explain the counts: the chart shows what the gate judges */
        if (kind && r->metric && r->role != GM_DIFF_ROLE_RATE && isfinite(r->ratio) &&
            r->ratio > 0.0 && r->ratio != 1.0)
            sel[n++] = r;
    }
    qsort(sel, n, sizeof *sel, S_mag_cmp);
    if (n > MAXBARS)
        n = MAXBARS;
    if (n == 0) {
        gm_buf_puts(b, "<p class=\"nochart\">No changes beyond a threshold to chart.</p>\n");
        free(sel);
        return GM_OK;
    }
    double lmax = 0.0;
    for (size_t i = 0; i < n; i++)
        lmax = fmax(lmax, fabs(log2(sel[i]->ratio)));
    double L = 1.0 / 16.0;
    while (L < lmax)
        L *= 2.0;

    gm_chart_spec spec;
    gm_chart_init(&spec, GM_CHART_HBARS, "Largest changes: head / base, log scale");
    spec.width = 1100;   /* the page's full width at 1,280 px: 1,152 px */
    spec.v.log = 2;
    spec.v.min = exp2(-L);
    spec.v.max = exp2(L);
    for (int t = -2; t <= 2; t++) {
        gm_buf tl = GM_BUF_INIT;
        S_ratio_text(&tl, exp2(L * t / 2.0));
        gm_axis_tic(&spec.v, exp2(L * t / 2.0), tl.data);
        gm_buf_free(&tl);
    }
    gm_chart_add_ref(&spec, GM_REF_ORIGIN, false, 1.0, NULL);
    /* one bar per change, coloured by its verdict, its ratio beside its end */
    gm_chart_series *ser = gm_chart_series_add(&spec, GM_SERIES_MAIN, NULL);
    for (size_t i = 0; i < n; i++) {
        const gm_diff_row *r = sel[i];
        const gm_run *run = S_row_run(r);
        gm_buf label = GM_BUF_INIT;
        gm_buf_printf(&label, "%s/%s ", run->experiment ? run->experiment : "",
                      run->variant ? run->variant : "");
        gm_diff_params_text(&label, run);
        gm_buf_printf(&label, " %s", r->info ? r->info->label : r->metric);
        gm_chart_cat(&spec, label.data);
        gm_buf_free(&label);
        gm_chart_point *p = gm_chart_put(ser, (double)i, r->ratio);
        p->rgb = r->status == GM_DIFF_REGRESSED ? 0xc62828u :
                 r->status == GM_DIFF_IMPROVED ? 0x2e7d32u :
                 r->status == GM_DIFF_CHANGED ? 0x5c6bc0u : 0x9e9e9eu;
        gm_buf v = GM_BUF_INIT;
        S_ratio_text(&v, r->ratio);
        gm_chart_note(p, v.data);
        gm_buf_free(&v);
    }

    gm_charts c = {NULL, 0};
    bool drawn = gm_charts_add(&c, 0, "diffchart", "Largest changes, head over base (log scale)",
                               &spec);
    gm_chart_free(&spec);
    if (!drawn) {
        /* one bar, or bars all alike: nothing a chart would compare */
        gm_buf_puts(b, n == 1 ? "<p class=\"nochart\">One change beyond a threshold: the table "
                                "below has it.</p>\n"
                              : "<p class=\"nochart\">The changes beyond a threshold are all "
                                "alike: the table below has them.</p>\n");
        free(sel);
        return GM_OK;
    }
    gm_status st = gm_charts_draw(&c, gnuplot, err);
    if (st == GM_OK) {
        gm_buf_puts(b, "<figure class=\"chart\">\n");
        gm_svg_inline(b, c.v[0].svg ? c.v[0].svg : "", c.v[0].name, c.v[0].title);
        gm_buf_puts(b, "<figcaption>The largest changes (up to 15), as head / base on a log "
                       "scale; red regressed, green improved, blue changed (no better "
                       "direction), grey within noise. Changes to or from zero are in the "
                       "table only.</figcaption></figure>\n");
    }
    gm_charts_free(&c);
    free(sel);
    return st;
}

static const char S_css[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1b1b1b;"
    "background:#fff;margin:0}\n"
    "main{max-width:1200px;margin:0 auto;padding:1.5rem}\n"
    "h3{font-size:1.3rem}\n"
    "table{border-collapse:collapse;margin:1rem 0;font-size:13px}\n"
    "th,td{border:1px solid #d0d7de;padding:.3rem .5rem;vertical-align:top}\n"
    "th{background:#f6f8fa}\n"
    "tr:nth-child(even) td{background:#fafbfc}\n"
    "code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f3f3f3;"
    "padding:0 .2rem;border-radius:3px}\n"
    "blockquote{border-left:4px solid #c62828;margin:1rem 0;padding:.2rem 1rem;background:#fff5f5}\n"
    "figure.chart{margin:1rem 0;overflow-x:auto}\n"
    "figcaption{font-size:13px;color:#555}\n";

char *gm_diff_to_html(const gm_diff *d, const gm_diff_render *ro, gm_error *err)
{
    gm_diff_render none = {.only_changed = true};
    if (!ro)
        ro = &none;
    gm_diff_render hro = *ro;
    hro.html = true;   /* cmark-gfm drops raw HTML: nothing folded */
    gm_buf md_head = GM_BUF_INIT, md_body = GM_BUF_INIT;
    S_md_head(&md_head, d, &hro, true);
    S_md_body(&md_body, d, &hro, 0);
    gm_srclines_md_diff_section(&md_body, d, 0);
    char *h1 = NULL, *h2 = NULL;
    if (gm_markdown_to_html(md_head.data, &h1, err) == GM_OK)
        gm_markdown_to_html(md_body.data, &h2, err);
    gm_buf_free(&md_head);
    gm_buf_free(&md_body);
    if (!h1 || !h2) {
        free(h1);
        free(h2);
        return NULL;
    }
    char *v = gm_diff_gate_line(d);
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<title>gpumem-report diff: ");
    gm_esc_html(&b, v);
    gm_buf_puts(&b, "</title>\n<style>\n");
    gm_buf_puts(&b, S_css);
    gm_buf_puts(&b, "</style>\n</head>\n<body>\n<main>\n");
    gm_buf_puts(&b, h1);
    if (S_chart(&b, d, ro->gnuplot, err) != GM_OK) {
        gm_buf_free(&b);
        free(v);
        free(h1);
        free(h2);
        return NULL;
    }
    gm_buf_puts(&b, h2);
    gm_buf_puts(&b, "</main>\n</body>\n</html>\n");
    free(v);
    free(h1);
    free(h2);
    return gm_buf_detach(&b);
}

/* ======================================================================== */
/* JSON                                                                     */
/* ======================================================================== */

static json_t *S_jstr(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *S_jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *S_jvalue(const gm_value *v)
{
    switch (v->kind) {
    case GM_V_INT: return json_integer(v->i);
    case GM_V_REAL: return S_jnum(v->r);
    case GM_V_STR: return S_jstr(v->s);
    case GM_V_ABSENT: break;
    }
    return json_null();
}

static const char *S_dir_name(gm_direction d)
{
    return d == GM_BETTER_LOWER ? "lower" : d == GM_BETTER_HIGHER ? "higher" : "neither";
}

static const char *S_thr_kind_name(gm_thr_kind k)
{
    return k == GM_THR_EXACT ? "exact" : k == GM_THR_RELATIVE ? "relative" : "absolute";
}

static json_t *S_jside(const gm_results *r, const char *name)
{
    json_t *o = json_object();
    json_object_set_new(o, "file", S_jstr(name));
    json_object_set_new(o, "commit", S_jstr(r->commit));
    json_object_set_new(o, "dirty", r->dirty < 0 ? json_null() : json_boolean(r->dirty == 1));
    json_object_set_new(o, "origin", S_jstr(r->origin));
    json_object_set_new(o, "gpu", S_jstr(r->device.name));
    json_object_set_new(o, "driver_version", S_jstr(r->device.driver_version));
    json_object_set_new(o, "cuda_driver_api", json_integer(r->device.cuda_driver_api));
    json_object_set_new(o, "cuda_runtime", json_integer(r->device.cuda_runtime));
    json_object_set_new(o, "cupti_api", json_integer(r->device.cupti_api));
    json_object_set_new(o, "runs", json_integer((json_int_t)r->n_runs));
    return o;
}

/* {"grid": [x, y, z], "block": [...], "shared_bytes": n}, or null. */
static json_t *S_jlaunch(const gm_run *run)
{
    if (!run || !run->has_launch)
        return json_null();
    json_t *o = json_object(), *g = json_array(), *k = json_array();
    for (int i = 0; i < 3; i++) {
        json_array_append_new(g, json_integer(run->launch.grid[i]));
        json_array_append_new(k, json_integer(run->launch.block[i]));
    }
    json_object_set_new(o, "grid", g);
    json_object_set_new(o, "block", k);
    json_object_set_new(o, "shared_bytes", json_integer(run->launch.shared_bytes));
    return o;
}

static json_t *S_jrow(const gm_diff_row *r)
{
    const gm_run *run = S_row_run(r);
    json_t *o = json_object();
    json_object_set_new(o, "status", json_string(gm_diff_status_name(r->status)));
    json_object_set_new(o, "experiment", S_jstr(run->experiment));
    json_object_set_new(o, "variant", S_jstr(run->variant));
    json_t *params = json_object();
    for (size_t i = 0; i < run->n_params; i++)
        if (run->params[i].name)
            json_object_set_new(params, run->params[i].name, S_jvalue(&run->params[i].value));
    json_object_set_new(o, "params", params);
    json_object_set_new(o, "metric", S_jstr(r->metric));
    json_object_set_new(o, "role", json_string(gm_diff_role_name(r->role)));
    json_object_set_new(o, "gates", json_boolean(r->gates));
    if (r->program) {
        json_t *l = json_object();
        json_object_set_new(l, "base", S_jlaunch(r->base));
        json_object_set_new(l, "head", S_jlaunch(r->head));
        json_object_set_new(o, "launch", l);
    }
    if (r->metric) {
        json_object_set_new(o, "label", S_jstr(r->info ? r->info->label : r->metric));
        json_object_set_new(o, "unit", S_jstr(r->unit));
        json_object_set_new(o, "better", json_string(S_dir_name(r->better)));
        json_t *t = json_object();
        json_object_set_new(t, "kind", json_string(S_thr_kind_name(r->thr.kind)));
        json_object_set_new(t, "value", r->thr.kind == GM_THR_EXACT ? json_null()
                                                                    : json_real(r->thr.value));
        if (r->thr.floor_kind == GM_FLOOR_NONE) {
            json_object_set_new(t, "floor", json_null());
        } else {
            json_t *f = json_object();
            json_object_set_new(f, "kind", json_string(r->thr.floor_kind == GM_FLOOR_PER_INST
                                                           ? "per_instruction" : "absolute"));
            json_object_set_new(f, "value", json_real(r->thr.floor));
            json_object_set_new(f, "applied", S_jnum(r->floor));
            json_object_set_new(t, "floor", f);
        }
        json_object_set_new(o, "threshold", t);
    }
    json_object_set_new(o, "base", S_jvalue(&r->vbase));
    json_object_set_new(o, "head", S_jvalue(&r->vhead));
    json_object_set_new(o, "delta", S_jnum(r->delta));
    json_object_set_new(o, "ratio", S_jnum(r->ratio));
    if (r->thr.floor_kind == GM_FLOOR_PER_INST)
        json_object_set_new(o, "delta_per_instruction", S_jnum(r->per_inst));
    if (r->metric && strcmp(r->metric, GM_DIFF_TIME) == 0) {
        json_t *t = json_object();
        json_object_set_new(t, "method", json_string(gm_mwu_method_name(r->test.method)));
        json_object_set_new(t, "n_base", json_integer((json_int_t)r->test.n1));
        json_object_set_new(t, "n_head", json_integer((json_int_t)r->test.n2));
        json_object_set_new(t, "u", S_jnum(r->test.u));
        json_object_set_new(t, "z", S_jnum(r->test.z));
        json_object_set_new(t, "p", S_jnum(r->test.p));
        json_object_set_new(o, "test", t);
        json_t *n = json_object();
        static const char *const by[] = {"threshold", "rank_test", "spread", "one_sample"};
        json_object_set_new(n, "samples", json_string(by[r->noise]));
        json_object_set_new(n, "floor", S_jnum(r->noise_floor));
        if (r->alone) {
            json_t *a = json_object();
            json_object_set_new(a, "relative", json_real(GM_DIFF_TIME_ALONE_REL));
            json_object_set_new(a, "ms", json_real(GM_DIFF_TIME_ALONE_MS));
            json_object_set_new(n, "time_alone", a);
        } else {
            json_object_set_new(n, "time_alone", json_null());
        }
        json_object_set_new(o, "noise", n);
    }
    json_object_set_new(o, "base_check",
                        r->base ? json_string(gm_check_status_name(r->base->check.status))
                                : json_null());
    json_object_set_new(o, "head_check",
                        r->head ? json_string(gm_check_status_name(r->head->check.status))
                                : json_null());
    json_object_set_new(o, "note", r->note[0] ? json_string(r->note) : json_null());
    return o;
}

static json_t *S_jparams(const gm_run *run)
{
    json_t *params = json_object();
    for (size_t i = 0; i < run->n_params; i++)
        if (run->params[i].name)
            json_object_set_new(params, run->params[i].name, S_jvalue(&run->params[i].value));
    return params;
}

static json_t *S_jcounts(const gm_srcline *l)
{
    if (!l)
        return json_null();
    json_t *o = json_object();
    for (int k = 0; k < GM_SL_N; k++)
        json_object_set_new(o, gm_sl_counter_keys[k], json_integer((json_int_t)l->count[k]));
    return o;
}

/* Per run pair with per-line counters on both sides: the lines that changed
 * (an empty list when none did). */
static json_t *S_jsrclines(const gm_diff *d)
{
    json_t *a = json_array();
    const gm_diff_row **rows = NULL;
    size_t np = gm_srclines_diff_pairs(d, &rows);
    for (size_t i = 0; i < np; i++) {
        const gm_run *run = rows[i]->head;
        json_t *o = json_object();
        json_object_set_new(o, "experiment", S_jstr(run->experiment));
        json_object_set_new(o, "variant", S_jstr(run->variant));
        json_object_set_new(o, "params", S_jparams(run));
        json_t *lines = json_array();
        gm_srcline_change *ch = NULL;
        size_t nc = gm_srclines_changes(&rows[i]->base->source_lines,
                                        &rows[i]->head->source_lines, &ch);
        for (size_t k = 0; k < nc; k++) {
            const gm_srcline *l = ch[k].head ? ch[k].head : ch[k].base;
            char where[512];
            gm_srcline_where(l, where, sizeof where);
            json_t *x = json_object();
            json_object_set_new(x, "where", json_string(where));
            if (ch[k].base && ch[k].head) {
                /* where the line was in base (a line that moved) */
                gm_srcline_where(ch[k].base, where, sizeof where);
                json_object_set_new(x, "base_where", json_string(where));
            } else {
                json_object_set_new(x, "base_where", json_null());
            }
            json_object_set_new(x, "file", S_jstr(l->file));
            json_object_set_new(x, "line", json_integer((json_int_t)l->line));
            json_object_set_new(x, "function", S_jstr(l->function));
            json_object_set_new(x, "pc", l->line > 0 ? json_null()
                                                     : json_integer((json_int_t)l->pc));
            json_object_set_new(x, "text", S_jstr(l->text));
            json_object_set_new(x, "base", S_jcounts(ch[k].base));
            json_object_set_new(x, "head", S_jcounts(ch[k].head));
            json_array_append_new(lines, x);
        }
        free(ch);
        json_object_set_new(o, "lines", lines);
        json_array_append_new(a, o);
    }
    free(rows);
    return a;
}

char *gm_diff_to_json(const gm_diff *d, const gm_diff_render *ro, int exit_code)
{
    gm_diff_render none = {.only_changed = true};
    if (!ro)
        ro = &none;
    json_t *o = json_object();
    char *v = gm_diff_verdict(d);
    json_object_set_new(o, "schema", json_string("gpumem-report/diff"));
    json_object_set_new(o, "schema_version", json_integer(1));
    json_object_set_new(o, "verdict", json_string(v));
    free(v);
    json_object_set_new(o, "exit_code", json_integer(exit_code));
    json_object_set_new(o, "comparable", json_boolean(d->comparable));
    json_object_set_new(o, "forced", json_boolean(d->forced));
    json_object_set_new(o, "alpha", json_real(d->alpha));
    json_t *reasons = json_array(), *notes = json_array();
    for (size_t i = 0; i < d->n_reasons; i++)
        json_array_append_new(reasons, json_string(d->reasons[i]));
    for (size_t i = 0; i < d->n_notes; i++)
        json_array_append_new(notes, json_string(d->notes[i]));
    json_object_set_new(o, "incomparable_reasons", reasons);
    json_object_set_new(o, "notes", notes);
    json_t *counts = json_object();
    for (int s = 0; s < GM_DIFF_N_STATUS; s++)
        json_object_set_new(counts, gm_diff_status_name((gm_diff_status)s),
                            json_integer((json_int_t)d->counts[s]));
    json_object_set_new(o, "counts", counts);
    json_object_set_new(o, "base", S_jside(d->base, ro->base_name));
    json_object_set_new(o, "head", S_jside(d->head, ro->head_name));
    gm_diff_group *g;
    size_t ng = gm_diff_groups(d, &g);
    json_t *verdicts = json_array();
    for (size_t i = 0; i < ng; i++) {
        json_t *v = json_object(), *ix = json_array();
        json_object_set_new(v, "status", json_string(gm_diff_status_name(g[i].status)));
        json_object_set_new(v, "experiment", S_jstr(g[i].experiment));
        json_object_set_new(v, "variant", S_jstr(g[i].variant));
        json_object_set_new(v, "runs", json_integer((json_int_t)g[i].n_runs));
        json_object_set_new(v, "rates_only", json_boolean(g[i].rates_only));
        json_object_set_new(v, "summary", json_string(g[i].summary));
        for (size_t k = 0; k < g[i].n_rows; k++)
            json_array_append_new(ix, json_integer((json_int_t)g[i].rows[k]));
        json_object_set_new(v, "rows", ix);
        json_array_append_new(verdicts, v);
    }
    gm_diff_groups_free(g, ng);
    json_object_set_new(o, "verdicts", verdicts);
    json_t *rows = json_array();
    for (size_t i = 0; i < d->n_rows; i++)
        json_array_append_new(rows, S_jrow(&d->rows[i]));
    json_object_set_new(o, "rows", rows);
    json_object_set_new(o, "source_lines", S_jsrclines(d));
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(o);
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, s ? s : "{}");
    gm_buf_putc(&b, '\n');
    free(s);
    return gm_buf_detach(&b);
}

/* ======================================================================== */
/* CSV                                                                      */
/* ======================================================================== */

/* A number as it reads back (shortest round trip, '.'), nothing when absent. */
static void S_csv_num(gm_buf *b, double v)
{
    if (!isfinite(v))
        return;
    gm_value x = gm_vreal(v);
    gm_fmt_value(b, &x);
}

static void S_csv_value(gm_buf *b, const gm_value *v)
{
    if (v->kind == GM_V_INT)
        gm_buf_printf(b, "%lld", v->i);
    else if (v->kind == GM_V_REAL)
        S_csv_num(b, v->r);
}

/* An array whose counts changed (the tracer's allocations): one row per
 * changed value, metric "array.<value>", the array's name in the last column. */
static void S_csv_array(gm_buf *b, const gm_diff_row *r, const char *params,
                        const gm_sl_alloc_change *c)
{
    static const char *const keys[] = {"bytes", "sectors", "sectors_ideal"};
    static const char *const units[] = {"byte", "sector", "sector"};
    const gm_sl_alloc *any = c->head ? c->head : c->base;
    for (int k = 0; k < 3; k++) {
        long long x = !c->base ? 0 : k == 0 ? c->base->bytes : k == 1 ? c->base->sectors
                                                                      : c->base->sectors_ideal;
        long long y = !c->head ? 0 : k == 0 ? c->head->bytes : k == 1 ? c->head->sectors
                                                                      : c->head->sectors_ideal;
        if (x == y)
            continue;
        gm_buf_puts(b, "changed,");
        gm_esc_csv(b, r->head->experiment);
        gm_buf_putc(b, ',');
        gm_esc_csv(b, r->head->variant);
        gm_buf_putc(b, ',');
        gm_esc_csv(b, params);
        gm_buf_printf(b, ",array.%s,%s,%lld,%lld,%lld,", keys[k], units[k], x, y, y - x);
        if (x != 0)
            S_csv_num(b, (double)y / (double)x);
        gm_buf_puts(b, ",,");
        gm_esc_csv(b, gm_check_status_name(r->base->check.status));
        gm_buf_putc(b, ',');
        gm_esc_csv(b, gm_check_status_name(r->head->check.status));
        gm_buf_puts(b, ",,");
        gm_esc_csv(b, any->name ? any->name : "(no argument points into it)");
        gm_buf_puts(b, "\r\n");
    }
}

/* The per-line counts that changed: one row per line and counter, status
 * "changed", metric "source_line.<counter>", the line's code as the note and
 * where it is (file:line, or function+pc) in the last column; then the
 * arrays' (S_csv_array). */
static void S_csv_srclines(gm_buf *b, const gm_diff *d)
{
    static const char *const units[GM_SL_N] = {"instruction", "instruction", "instruction",
                                               "instruction", "instruction", "sector", "sector",
                                               "wavefront", "wavefront"};
    const gm_diff_row **rows = NULL;
    size_t np = gm_srclines_diff_pairs(d, &rows);
    for (size_t i = 0; i < np; i++) {
        const gm_run *run = rows[i]->head;
        gm_buf pt = GM_BUF_INIT;
        gm_diff_params_text(&pt, run);
        gm_srcline_change *ch = NULL;
        size_t nc = gm_srclines_changes(&rows[i]->base->source_lines,
                                        &rows[i]->head->source_lines, &ch);
        for (size_t k = 0; k < nc; k++) {
            const gm_srcline *l = ch[k].head ? ch[k].head : ch[k].base;
            char where[512], metric[64];
            gm_srcline_where(l, where, sizeof where);
            for (int c = 0; c < GM_SL_N; c++) {
                long long x = ch[k].base ? ch[k].base->count[c] : 0;
                long long y = ch[k].head ? ch[k].head->count[c] : 0;
                if (x == y)
                    continue;
                snprintf(metric, sizeof metric, "source_line.%s", gm_sl_counter_keys[c]);
                gm_buf_puts(b, "changed,");
                gm_esc_csv(b, run->experiment);
                gm_buf_putc(b, ',');
                gm_esc_csv(b, run->variant);
                gm_buf_putc(b, ',');
                gm_esc_csv(b, pt.data ? pt.data : "");
                gm_buf_putc(b, ',');
                gm_esc_csv(b, metric);
                gm_buf_putc(b, ',');
                gm_esc_csv(b, units[c]);
                gm_buf_printf(b, ",%lld,%lld,%lld,", x, y, y - x);
                if (x != 0)
                    S_csv_num(b, (double)y / (double)x);
                gm_buf_puts(b, ",,");
                gm_esc_csv(b, gm_check_status_name(rows[i]->base->check.status));
                gm_buf_putc(b, ',');
                gm_esc_csv(b, gm_check_status_name(run->check.status));
                gm_buf_putc(b, ',');
                gm_esc_csv(b, l->text ? l->text : "");
                gm_buf_putc(b, ',');
                gm_esc_csv(b, where);
                gm_buf_puts(b, "\r\n");
            }
        }
        free(ch);
        gm_sl_alloc_change *ac = NULL;
        size_t na = gm_srclines_alloc_changes(&rows[i]->base->source_lines,
                                              &rows[i]->head->source_lines, &ac);
        for (size_t k = 0; k < na; k++)
            S_csv_array(b, rows[i], pt.data ? pt.data : "", &ac[k]);
        free(ac);
        gm_buf_free(&pt);
    }
    free(rows);
}

char *gm_diff_to_csv(const gm_diff *d)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "status,experiment,variant,params,metric,unit,base,head,delta,ratio,p,"
                    "base_check,head_check,note,line\r\n");
    for (size_t i = 0; i < d->n_rows; i++) {
        const gm_diff_row *r = &d->rows[i];
        const gm_run *run = S_row_run(r);
        gm_buf pt = GM_BUF_INIT;
        gm_diff_params_text(&pt, run);
        gm_esc_csv(&b, gm_diff_status_name(r->status));
        gm_buf_putc(&b, ',');
        gm_esc_csv(&b, run->experiment);
        gm_buf_putc(&b, ',');
        gm_esc_csv(&b, run->variant);
        gm_buf_putc(&b, ',');
        gm_esc_csv(&b, pt.data ? pt.data : "");
        gm_buf_putc(&b, ',');
        gm_esc_csv(&b, r->metric ? r->metric : "");
        gm_buf_putc(&b, ',');
        gm_esc_csv(&b, r->unit ? r->unit : "");
        gm_buf_putc(&b, ',');
        S_csv_value(&b, &r->vbase);
        gm_buf_putc(&b, ',');
        S_csv_value(&b, &r->vhead);
        gm_buf_putc(&b, ',');
        S_csv_num(&b, r->delta);
        gm_buf_putc(&b, ',');
        S_csv_num(&b, r->ratio);
        gm_buf_putc(&b, ',');
        if (r->test.method != GM_MWU_NONE)
            S_csv_num(&b, r->test.p);
        gm_buf_putc(&b, ',');
        gm_esc_csv(&b, r->base ? gm_check_status_name(r->base->check.status) : "");
        gm_buf_putc(&b, ',');
        gm_esc_csv(&b, r->head ? gm_check_status_name(r->head->check.status) : "");
        gm_buf_putc(&b, ',');
        gm_esc_csv(&b, r->note);
        gm_buf_puts(&b, ",\r\n");
        gm_buf_free(&pt);
    }
    S_csv_srclines(&b, d);
    return gm_buf_detach(&b);
}
