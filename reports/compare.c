#include "compare.h"

#include "claims.h"
#include "contrast.h"
#include "diff.h"
#include "runs.h"
#include "sources.h"
#include "../core/buf.h"
#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/say.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DASH "—"
#define S_MAX_BARS 24

/* ---- pairing --------------------------------------------------------------- */

typedef struct {
    const gm_run *run[GM_COMPARE_MAX];   /* NULL where that device has no such case */
    size_t n_present;
    size_t first_dev, first_idx;         /* where the case first appears, for order */
} S_row;

typedef struct {
    const gm_compare_in *in;
    gm_sections ss[GM_COMPARE_MAX];
    S_row *rows;                         /* every case, in order of first appearance */
    size_t n_rows;
    const gm_experiment **exps;          /* every experiment, in order of first appearance */
    size_t n_exps;
    gm_ceiling ceiling[GM_COMPARE_MAX];  /* each device's (runs.h): what its shares are of */
    const char *of;                      /* its name: "attainable" when every file has the
                                            attainable bandwidth, else "ceiling" */
} S_ctx;

typedef struct {
    const gm_run *run;
    size_t dev, idx;
} S_item;

static int S_item_cmp(const void *a, const void *b)
{
    const S_item *x = a, *y = b;
    int c = gm_diff_run_key_cmp(x->run, y->run);
    if (c)
        return c;
    if (x->dev != y->dev)
        return (x->dev > y->dev) - (x->dev < y->dev);
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int S_row_cmp(const void *a, const void *b)
{
    const S_row *x = a, *y = b;
    if (x->first_dev != y->first_dev)
        return (x->first_dev > y->first_dev) - (x->first_dev < y->first_dev);
    return (x->first_idx > y->first_idx) - (x->first_idx < y->first_idx);
}

static void S_ctx_build(S_ctx *c, const gm_compare_in *in)
{
    memset(c, 0, sizeof *c);
    c->in = in;
    c->of = "attainable";
    size_t total = 0;
    for (size_t d = 0; d < in->n; d++) {
        gm_results_ceiling(in->r[d], &c->ceiling[d]);
        if (!c->ceiling[d].attainable)
            c->of = "ceiling";
        gm_sections_build(in->r[d], &c->ss[d]);
        total += in->r[d]->n_runs;
        for (size_t s = 0; s < c->ss[d].n; s++) {
            const gm_experiment *e = c->ss[d].v[s].exp;
            bool seen = false;
            for (size_t k = 0; k < c->n_exps && !seen; k++)
                seen = strcmp(c->exps[k]->id ? c->exps[k]->id : "", e->id ? e->id : "") == 0;
            if (!seen) {
                c->exps = gm_xrealloc(c->exps, (c->n_exps + 1) * sizeof *c->exps);
                c->exps[c->n_exps++] = e;
            }
        }
    }
    S_item *it = gm_xcalloc(total + 1, sizeof *it);
    size_t m = 0;
    for (size_t d = 0; d < in->n; d++)
        for (size_t i = 0; i < in->r[d]->n_runs; i++, m++)
            it[m] = (S_item){&in->r[d]->runs[i], d, i};
    qsort(it, m, sizeof *it, S_item_cmp);
    c->rows = gm_xcalloc(m + 1, sizeof *c->rows);
    for (size_t a = 0, e; a < m; a = e) {
        S_row *row = &c->rows[c->n_rows++];
        row->first_dev = it[a].dev;
        row->first_idx = it[a].idx;
        for (e = a; e < m && gm_diff_run_key_cmp(it[a].run, it[e].run) == 0; e++) {
            if (!row->run[it[e].dev])
                row->n_present++;
            row->run[it[e].dev] = it[e].run;   /* gm_compare_check refused duplicates */
        }
    }
    free(it);
    qsort(c->rows, c->n_rows, sizeof *c->rows, S_row_cmp);
}

static void S_ctx_free(S_ctx *c)
{
    for (size_t d = 0; d < c->in->n; d++)
        gm_sections_free(&c->ss[d]);
    free(c->rows);
    free((void *)c->exps);
}

static const char *S_row_exp(const S_row *row)
{
    for (size_t d = 0; d < GM_COMPARE_MAX; d++)
        if (row->run[d])
            return row->run[d]->experiment ? row->run[d]->experiment : "";
    return "";
}

static const gm_section *S_section(const S_ctx *c, size_t d, const char *id)
{
    for (size_t s = 0; s < c->ss[d].n; s++)
        if (strcmp(c->ss[d].v[s].exp->id ? c->ss[d].v[s].exp->id : "", id) == 0)
            return &c->ss[d].v[s];
    return NULL;
}

static bool S_in_group(const gm_section *s, const gm_run *run)
{
    for (size_t i = 0; s && i < s->n_group; i++)
        if (s->group[i] == run)
            return true;
    return false;
}

gm_status gm_compare_check(const gm_compare_in *in, gm_error *err)
{
    if (in->n < 2)
        return gm_fail(err, GM_ERR_VALUE, "a comparison needs two results files or more");
    if (in->n > GM_COMPARE_MAX)
        return gm_fail(err, GM_ERR_VALUE, "%zu results files: a comparison takes at most %d",
                       in->n, GM_COMPARE_MAX);
    for (size_t d = 0; d < in->n; d++) {
        gm_status st = gm_diff_check_file(in->r[d], in->names[d], err);
        if (st != GM_OK)
            return st;
    }
    return GM_OK;
}

/* ---- figures --------------------------------------------------------------- */

static double S_copy(const gm_results *r) { return gm_value_num(&r->device.copy_bandwidth_gbs); }

/* Effective bandwidth as a share of device d's own ceiling (runs.h: the
 * attainable bandwidth, raised by any run that went faster, so no share
 * exceeds 100), %. */
static double S_share(const S_ctx *c, size_t d, const gm_run *run)
{
    double top = c->ceiling[d].gbs, g = run && gm_run_passed(run) ? gm_run_effective_gbs(run) : NAN;
    return isfinite(top) && top > 0 && isfinite(g) ? 100.0 * g / top : NAN;
}

/* Time over the device's fastest layout of the same work (1 = the fastest). */
static double S_rel(const gm_section *s, const gm_run *run)
{
    if (!s || !s->best || !run || !S_in_group(s, run))
        return NAN;
    double b = gm_run_median_ms(s->best), t = gm_run_median_ms(run);
    return isfinite(b) && b > 0 && isfinite(t) ? t / b : NAN;
}

static bool S_bandwidth(const gm_experiment *e) { return e && e->bandwidth_bound; }

/* An experiment whose runs are a program's kernels in every file that has it
 * (runs.h: gm_section_is_program).  Its kernels do different work: each is
 * set beside itself in the other files, never ranked against the others. */
static bool S_program(const S_ctx *c, const char *id)
{
    bool any = false;
    for (size_t d = 0; d < c->in->n; d++) {
        const gm_section *s = S_section(c, d, id);
        if (!s || !s->n_runs)
            continue;
        if (!gm_section_is_program(s))
            return false;
        any = true;
    }
    return any;
}

/* A kernel's time in file d over its time in file A (the first). */
static double S_over_a(const S_row *row, size_t d)
{
    const gm_run *a = row->run[0], *x = row->run[d];
    if (!a || !x || !gm_run_passed(a) || !gm_run_passed(x))
        return NAN;
    double ta = gm_run_median_ms(a), t = gm_run_median_ms(x);
    return isfinite(ta) && ta > 0 && isfinite(t) ? t / ta : NAN;
}

/* ---- labels ---------------------------------------------------------------- */

/* The letter of device d in the tables ("A" for the first), for gm_say. */
static gm_say_arg S_letter(size_t d)
{
    static const char *const letters[GM_COMPARE_MAX] = {"A", "B", "C", "D", "E", "F", "G", "H",
                                                         "I", "J", "K", "L", "M", "N", "O", "P"};
    return GM_LIT(d < GM_COMPARE_MAX ? letters[d] : "?");
}

/* The device's name, and a letter when two devices share a name. */
static void S_dev_label(gm_buf *b, const gm_compare_in *in, size_t d)
{
    const char *name = in->r[d]->device.name ? in->r[d]->device.name : "unknown device";
    bool twin = false;
    for (size_t k = 0; k < in->n && !twin; k++)
        twin = k != d && in->r[k]->device.name && strcmp(in->r[k]->device.name, name) == 0;
    if (twin)
        gm_say(b, "{} ({})", GM_LIT(name), S_letter(d));
    else
        gm_buf_puts(b, name);
}

/* The device's name after its letter ("A: H100 80GB HBM3"); twins (the GPUs
 * of one node, `--device all`) also by their device numbers when those differ
 * ("A: H200, device 0"). */
static void S_dev_lettered_md(gm_buf *b, const gm_compare_in *in, size_t d)
{
    const char *full = in->r[d]->device.name ? in->r[d]->device.name : "unknown device";
    const char *name = full;
    if (strncmp(name, "NVIDIA ", 7) == 0 && name[7])
        name += 7;
    gm_say(b, "{}: {}", S_letter(d), GM_TEXT(name));
    bool twin = false, same_ordinal = false;
    for (size_t k = 0; k < in->n; k++) {
        if (k == d || !in->r[k]->device.name || strcmp(in->r[k]->device.name, full) != 0)
            continue;
        twin = true;
        same_ordinal |= in->r[k]->device.ordinal == in->r[d]->device.ordinal;
    }
    if (twin && !same_ordinal && in->r[d]->device.ordinal >= 0)
        gm_say(b, ", device {}", GM_INT(in->r[d]->device.ordinal));
}

static void S_dev_md(gm_buf *b, const gm_compare_in *in, size_t d)
{
    gm_buf t = GM_BUF_INIT;
    S_dev_label(&t, in, d);
    /* "NVIDIA H100 80GB HBM3" -> "H100 80GB HBM3": columns stay readable */
    const char *s = strncmp(t.data, "NVIDIA ", 7) == 0 && t.data[7] ? t.data + 7 : t.data;
    gm_esc_md(b, s);
    gm_buf_free(&t);
}

/* The case: variant and its parameters, as the diff names runs. */
static void S_case_text(gm_buf *b, const gm_run *run)
{
    gm_buf_puts(b, run->variant ? run->variant : "");
    if (run->n_params) {
        gm_buf_puts(b, " (");
        for (size_t i = 0; i < run->n_params; i++) {
            if (i)
                gm_buf_puts(b, ", ");
            gm_buf_printf(b, "%s=", run->params[i].name ? run->params[i].name : "");
            const gm_value *v = &run->params[i].value;
            if (v->kind == GM_V_INT)
                gm_buf_printf(b, "%lld", v->i);
            else if (v->kind == GM_V_REAL)
                gm_buf_printf(b, "%.6g", v->r);
            else if (v->kind == GM_V_STR)
                gm_buf_puts(b, v->s ? v->s : "");
            else
                gm_buf_puts(b, "null");
        }
        gm_buf_puts(b, ")");
    }
}

static const gm_run *S_any(const S_row *row, size_t n);

/* All of a run's parameters, escaped: " (n=1024, stride=2)". */
static void S_case_params(gm_buf *b, const gm_run *run)
{
    if (!run->n_params)
        return;
    gm_buf t = GM_BUF_INIT;
    gm_buf_puts(&t, "");
    S_case_text(&t, run);
    const char *p = strchr(t.data, '(');
    gm_buf_puts(b, " ");
    gm_esc_md(b, p ? p : "");
    gm_buf_free(&t);
}

static const gm_run *S_any(const S_row *row, size_t n)
{
    for (size_t d = 0; d < n; d++)
        if (row->run[d])
            return row->run[d];
    return NULL;
}

/* The case in Markdown: its variant and the parameters that vary among
 * `set` (the experiment's cases), as the single report names runs. */
static void S_case_md(gm_buf *b, const S_row *row, size_t n, const gm_vary *set)
{
    const gm_run *run = S_any(row, n);
    gm_vary_case_md(set, run, NULL, b);
}

/* The first present run of every row of experiment id (all: on any device;
 * else on every device).  Caller frees. */
static const gm_run **S_exp_runs(const S_ctx *c, const char *id, bool all, size_t *n)
{
    const gm_run **v = gm_xcalloc(c->n_rows + 1, sizeof *v);
    *n = 0;
    for (size_t i = 0; i < c->n_rows; i++) {
        const S_row *row = &c->rows[i];
        if (strcmp(S_row_exp(row), id) == 0 && (all || row->n_present == c->in->n))
            v[(*n)++] = S_any(row, c->in->n);
    }
    return v;
}

/* ---- charts ---------------------------------------------------------------- */

/* The rows a chart of experiment `id` draws: on every device, passed, and in
 * every device's comparison group; at most S_MAX_BARS. */
static size_t S_chart_rows(const S_ctx *c, const char *id, const S_row **out)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_rows && n < S_MAX_BARS; i++) {
        const S_row *row = &c->rows[i];
        if (row->n_present != c->in->n || strcmp(S_row_exp(row), id) != 0)
            continue;
        bool ok = true;
        for (size_t d = 0; d < c->in->n && ok; d++)
            ok = gm_run_passed(row->run[d]) && S_in_group(S_section(c, d, id), row->run[d]);
        if (ok)
            out[n++] = row;
    }
    return n;
}

/* What a chart draws for a row on file d: for a program, the kernel's time
 * over its time in A; else the share of the device's ceiling, or the time
 * over the fastest layout of the same work. */
static double S_bar(const S_ctx *c, const char *id, bool prog, bool bw, const S_row *row,
                    size_t d)
{
    if (prog)
        return S_over_a(row, d);
    return bw ? S_share(c, d, row->run[d]) : S_rel(S_section(c, d, id), row->run[d]);
}

static void S_plan(const S_ctx *c, gm_charts *out)
{
    memset(out, 0, sizeof *out);
    const gm_compare_in *in = c->in;
    const S_row **rows = gm_xcalloc(S_MAX_BARS, sizeof *rows);
    for (size_t e = 0; e < c->n_exps; e++) {
        const gm_experiment *x = c->exps[e];
        const char *id = x->id ? x->id : "";
        size_t n = S_chart_rows(c, id, rows);
        if (n == 0)
            continue;
        bool prog = S_program(c, id), bw = !prog && S_bandwidth(x);
        bool any = false;
        for (size_t i = 0; i < n && !any; i++)
            for (size_t d = 0; d < in->n && !any; d++)
                any = isfinite(S_bar(c, id, prog, bw, rows[i], d));
        if (!any)
            continue;
        bool att = strcmp(c->of, "attainable") == 0;
        const char *what = prog ? "each kernel's time over its time in A"
                           : bw ? (att ? "share of each device's attainable bandwidth"
                                       : "share of each device's ceiling bandwidth")
                                : "time over each device's fastest layout";
        gm_buf title = GM_BUF_INIT;
        gm_buf_printf(&title, "%s: %s", x->title ? x->title : id, what);
        /* drawn: what it shows (the section's heading and the caption name
         * the experiment) */
        gm_chart_spec spec;
        gm_chart_init(&spec, GM_CHART_BARS, what);
        gm_axis_label(&spec.v, prog ? "time / the kernel's time in A (1 = as in A)"
                               : bw ? (att ? "% of the device's attainable bandwidth"
                                           : "% of the device's ceiling bandwidth")
                                    : "time / fastest layout's time (1 = fastest)");
        if (bw)
            spec.v.at_least = 100;
        const gm_run *set[S_MAX_BARS];
        for (size_t i = 0; i < n; i++)
            set[i] = S_any(rows[i], in->n);
        for (size_t i = 0; i < n; i++) {
            gm_buf lab = GM_BUF_INIT;
            gm_buf_puts(&lab, "");
            gm_runs_case_label(set, n, set[i], NULL, &lab);
            gm_chart_cat(&spec, lab.data);
            gm_buf_free(&lab);
        }
        /* a bar per device in each layout's place */
        for (size_t d = 0; d < in->n; d++) {
            gm_buf lab = GM_BUF_INIT;
            S_dev_label(&lab, in, d);
            gm_chart_series *ser = gm_chart_series_add(&spec, GM_SERIES_MAIN, lab.data);
            gm_buf_free(&lab);
            for (size_t i = 0; i < n; i++)
                gm_chart_put(ser, (double)i, S_bar(c, id, prog, bw, rows[i], d));
        }
        if (bw)
        if (bw) {
            gm_buf ref = GM_BUF_INIT;
            gm_buf_printf(&ref, "%s bandwidth (each device its own)", c->of);
            gm_chart_add_ref(&spec, GM_REF_CEILING, false, 100, ref.data);
            gm_buf_free(&ref);
        }
        char name[32];
        snprintf(name, sizeof name, "chart-%02zu", out->n + 1);
        gm_charts_add(out, e, name, title.data, &spec);
        gm_chart_free(&spec);
        gm_buf_free(&title);
    }
    free((void *)rows);
}

void gm_compare_charts_plan(const gm_compare_in *in, gm_charts *out)
{
    S_ctx c;
    S_ctx_build(&c, in);
    S_plan(&c, out);
    S_ctx_free(&c);
}

/* ---- the document ---------------------------------------------------------- */

static void S_cells(gm_buf *b, const gm_compare_in *in, const char *label,
                    void (*cell)(gm_buf *, const gm_results *))
{
    gm_say(b, "| {} |", GM_LIT(label));
    for (size_t d = 0; d < in->n; d++) {
        gm_buf_puts(b, " ");
        cell(b, in->r[d]);
        gm_buf_puts(b, " |");
    }
    gm_buf_puts(b, "\n");
}

static void S_c_device(gm_buf *b, const gm_results *r)
{
    const gm_device *d = &r->device;
    gm_say(b, "{}, compute capability {}.{}, {} SMs, device {}",
           GM_TEXT(d->chip ? d->chip : DASH), GM_INT(d->cc_major), GM_INT(d->cc_minor),
           GM_INT(d->sm_count), GM_INT(d->ordinal));
}

static void S_c_memory(gm_buf *b, const gm_results *r)
{
    const gm_device *d = &r->device;
    gm_say(b, "{}, {}-bit bus at {} MHz; L2 {}",
           GM_BYTES(d->global_memory_bytes > 0 ? (double)d->global_memory_bytes : NAN),
           GM_INT(d->memory_bus_width_bits),
           GM_NUM(d->memory_clock_khz > 0 ? d->memory_clock_khz / 1000.0 : NAN, 4),
           GM_BYTES(d->l2_bytes > 0 ? (double)d->l2_bytes : NAN));
}

static void S_c_peak(gm_buf *b, const gm_results *r)
{
    gm_fmt_gbs(b, gm_value_num(&r->device.theoretical_bandwidth_gbs));
}

static void S_c_copy(gm_buf *b, const gm_results *r)
{
    double c = S_copy(r), t = gm_value_num(&r->device.theoretical_bandwidth_gbs);
    if (isfinite(c) && isfinite(t) && t > 0)
        gm_say(b, "{} ({} of peak)", GM_GBS(c), GM_PCT(100.0 * c / t));
    else
        gm_say(b, "{}", GM_GBS(c));
}

/* "`stride` of `coalescing` (n=33554432, stride=8)" */
static void S_run_named(gm_buf *b, const gm_run *run)
{
    gm_buf params = GM_BUF_INIT;
    for (size_t i = 0; i < run->n_params; i++) {
        gm_buf_printf(&params, "%s%s=", i ? ", " : "",
                      run->params[i].name ? run->params[i].name : "");
        gm_fmt_value(&params, &run->params[i].value);
    }
    gm_buf_puts(&params, "");
    if (run->experiment && params.len)
        gm_say(b, "{} of {} ({})", GM_CODE(run->variant), GM_CODE(run->experiment),
               GM_TEXT(params.data));
    else if (run->experiment)
        gm_say(b, "{} of {}", GM_CODE(run->variant), GM_CODE(run->experiment));
    else
        gm_say(b, "{}", GM_CODE(run->variant));
    gm_buf_free(&params);
}

/* The ceiling every share of the device compares with (runs.h): the
 * attainable bandwidth measured at startup, or the run that went faster. */
static void S_c_attainable(gm_buf *b, const gm_results *r)
{
    const gm_device *d = &r->device;
    gm_ceiling ceiling;
    gm_results_ceiling(r, &ceiling);
    if (!(ceiling.gbs > 0)) {
        gm_buf_puts(b, "not measured");
        return;
    }
    if (ceiling.raised_by) {
        gm_buf who = GM_BUF_INIT;
        S_run_named(&who, ceiling.raised_by);
        gm_say(b, ceiling.by_dram ? "{}: {} moved its DRAM bytes at that rate, above the {} of "
                                    "the {} at startup"
                                  : "{}: {} moved its useful bytes at that rate, above the {} of "
                                    "the {} at startup",
               GM_GBS(ceiling.gbs), GM_BUF(&who), GM_GBS(ceiling.startup_gbs),
               GM_LIT(ceiling.attainable ? "plain copy and read kernels" : "copy"));
        gm_buf_free(&who);
    } else {
        gm_say(b, "{}", GM_GBS(ceiling.gbs));
    }
    if (!ceiling.raised_by && !ceiling.attainable) {
        gm_buf_puts(b, ", the copy's (the file has no attainable bandwidth)");
    }
    if (ceiling.attainable && d->attainable_kernel)
        gm_say(b, " ({})", GM_TEXT(d->attainable_kernel));
}

static void S_c_software(gm_buf *b, const gm_results *r)
{
    const gm_device *d = &r->device;
    gm_say(b, "driver {}, CUDA {}.{}", GM_TEXT(d->driver_version ? d->driver_version : DASH),
           GM_INT(d->cuda_driver_api / 1000), GM_INT((d->cuda_driver_api % 1000) / 10));
}

static void S_c_clocks(gm_buf *b, const gm_results *r)
{
    const gm_collection *c = &r->collection;
    bool none = c->clock_control && strcmp(c->clock_control, "none") == 0;
    gm_say(b, none ? "{} (left as found); {}" : "{}; {}",
           GM_TEXT(c->clock_control ? c->clock_control : DASH),
           GM_LIT(c->cache_flush ? "L2 flushed" : "L2 not flushed"));
}

static void S_c_tool(gm_buf *b, const gm_results *r)
{
    gm_say_arg sizes = GM_TEXT(r->collection.size_set ? r->collection.size_set : DASH);
    if (!r->commit)
        gm_say(b, "{}; sizes {}", GM_LIT(DASH), sizes);
    else
        gm_say(b, r->dirty == 1 ? "commit {} (with uncommitted changes); sizes {}"
                                : "commit {}; sizes {}",
               GM_CODE(r->commit), sizes);
}

static void S_c_runs(gm_buf *b, const gm_results *r)
{
    size_t passed = 0;
    for (size_t i = 0; i < r->n_runs; i++)
        passed += gm_run_passed(&r->runs[i]);
    gm_say(b, "{} ({} passed or measured)", GM_INT((long long)r->n_runs),
           GM_INT((long long)passed));
}

static void S_c_timing(gm_buf *b, const gm_results *r)
{
    size_t timed, gated = gm_results_count_gated(r, &timed);
    if (timed == 0)
        gm_buf_puts(b, "no run timed");
    else if (gated == 0)
        gm_say(b, "{} runs timed, none behind the launch gate", GM_INT((long long)timed));
    else
        gm_say(b, "{} runs timed, {} of them (those under 2 ms) behind the launch gate",
               GM_INT((long long)timed), GM_INT((long long)gated));
}

static void S_c_origin(gm_buf *b, const gm_results *r)
{
    bool measured = r->origin && strncmp(r->origin, "measured", 8) == 0;
    gm_say(b, measured ? "{}" : "**{}**", GM_TEXT(r->origin ? r->origin : DASH));
}

static void S_devices(gm_buf *b, const S_ctx *c)
{
    const gm_compare_in *in = c->in;
    gm_buf_puts(b, "## Devices\n\n| |");
    for (size_t d = 0; d < in->n; d++) {
        gm_buf_puts(b, " ");
        S_dev_lettered_md(b, in, d);
        gm_buf_puts(b, " |");
    }
    gm_buf_puts(b, "\n|---|");
    for (size_t d = 0; d < in->n; d++)
        gm_buf_puts(b, "---|");
    gm_buf_puts(b, "\n| Results file |");
    for (size_t d = 0; d < in->n; d++)
        gm_say(b, " {} |", GM_CODE(in->names[d] ? in->names[d] : ""));
    gm_buf_puts(b, "\n");
    S_cells(b, in, "Origin", S_c_origin);
    S_cells(b, in, "Device", S_c_device);
    S_cells(b, in, "Memory", S_c_memory);
    S_cells(b, in, "Peak DRAM bandwidth (2 × clock × bus width)", S_c_peak);
    S_cells(b, in, "Device-to-device copy (cudaMemcpy)", S_c_copy);
    S_cells(b, in, "Attainable (the best measured; every share compares with it)",
            S_c_attainable);
    S_cells(b, in, "Clocks, cache", S_c_clocks);
    S_cells(b, in, "Software", S_c_software);
    S_cells(b, in, "Tool", S_c_tool);
    S_cells(b, in, "Runs", S_c_runs);
    S_cells(b, in, "Timing", S_c_timing);
    gm_buf_puts(b, "\n");
    /* A file that gated its short repetitions against one that did not: the
     * few-µs kernels of the second hold the host's time to submit them. */
    size_t with = 0, without = 0;
    for (size_t d = 0; d < in->n; d++) {
        size_t timed, gated = gm_results_count_gated(in->r[d], &timed);
        with += gated > 0;
        without += timed > 0 && gated == 0;
    }
    if (with && without)
        gm_buf_puts(b, "**Short kernels were not timed the same way.** Where a file times "
                       "repetitions under 2 ms behind the launch gate, a sample is the kernel "
                       "on the GPU; where it does not (files from before the gate), a kernel of "
                       "a few µs can read a few µs longer, the host's time to submit it. Compare "
                       "the times of such kernels across these files with care; longer ones are "
                       "not affected.\n\n");
}

/* One device's answer for an experiment: its fastest layout, at what share
 * of its ceiling, and how much slower its slowest layout of the same work is. */
static void S_contrast_cell(gm_buf *b, const S_ctx *cx, size_t d, const gm_section *s)
{
    if (!s) {
        gm_buf_puts(b, "not run");
        return;
    }
    if (gm_section_is_program(s)) {
        /* a program's kernels do different work: what the file profiled */
        double total = 0;
        for (size_t i = 0; i < s->n_runs; i++) {
            double t = gm_run_total_ms(s->runs[i]);
            total += isfinite(t) ? t : 0.0;
        }
        gm_say(b, "{} kernel{}, {} of GPU time profiled", GM_INT((long long)s->n_runs),
               GM_LIT(s->n_runs == 1 ? "" : "s"), GM_MS(total));
        return;
    }
    /* the experiment's question (contrast.h): its two sides at matched
     * parameters, on this device */
    gm_contrast c;
    if (gm_contrast_find(s, &c)) {
        gm_buf side_a = GM_BUF_INIT, side_b = GM_BUF_INIT, ratio = GM_BUF_INIT;
        gm_pair_side_md(&side_a, c.pair.a, s->exp->contrast_a);
        gm_pair_side_md(&side_b, c.pair.b, s->exp->contrast_b);
        gm_ratio_fmt(&ratio, c.time_ratio);
        gm_say(b, "{} {} vs {} {}: **{}**", GM_BUF(&side_a), GM_MS(gm_run_median_ms(c.pair.a)),
               GM_BUF(&side_b), GM_MS(gm_run_median_ms(c.pair.b)), GM_BUF(&ratio));
        gm_buf_free(&side_a);
        gm_buf_free(&side_b);
        gm_buf_free(&ratio);
        if (c.counter && isfinite(c.ca) && isfinite(c.cb)) {
            gm_buf ca = GM_BUF_INIT, cb = GM_BUF_INIT;
            gm_counter_fmt(&ca, c.counter, c.ca);
            gm_counter_fmt(&cb, c.counter, c.cb);
            gm_say(b, "; {} {} vs {}", GM_LIT(gm_counter_label(c.counter)), GM_BUF(&ca),
                   GM_BUF(&cb));
            gm_buf_free(&ca);
            gm_buf_free(&cb);
        }
        gm_buf_puts(b, ". Fastest: ");
        if (s->best) {
            gm_runs_case_md(s->group, s->n_group, s->best, NULL, b);
            if (S_bandwidth(s->exp) && isfinite(S_share(cx, d, s->best)))
                gm_say(b, ", {} of {}", GM_PCT(S_share(cx, d, s->best)), GM_LIT(cx->of));
        } else {
            gm_buf_puts(b, DASH);
        }
        return;
    }
    if (!s->best || !s->worst) {
        gm_say(b, "{} of {} runs passed; nothing to compare", GM_INT((long long)s->n_passed),
               GM_INT((long long)s->n_runs));
        return;
    }
    gm_buf best = GM_BUF_INIT, worst = GM_BUF_INIT;
    gm_runs_case_md(s->group, s->n_group, s->best, NULL, &best);
    gm_runs_case_md(s->group, s->n_group, s->worst, NULL, &worst);
    gm_say(b, "{} {}", GM_BUF(&best), GM_MS(gm_run_median_ms(s->best)));
    if (S_bandwidth(s->exp) && isfinite(S_share(cx, d, s->best)))
        gm_say(b, ", {} of {}", GM_PCT(S_share(cx, d, s->best)), GM_LIT(cx->of));
    gm_say(b, "; {} {} slower", GM_BUF(&worst),
           GM_RATIO(gm_run_median_ms(s->worst) / gm_run_median_ms(s->best)));
    gm_buf_free(&best);
    gm_buf_free(&worst);
}

static void S_table_head(gm_buf *b, const gm_compare_in *in, const char *first)
{
    gm_say(b, "| {} |", GM_LIT(first));
    for (size_t d = 0; d < in->n; d++) {
        gm_buf_puts(b, " ");
        S_dev_lettered_md(b, in, d);
        gm_buf_puts(b, " |");
    }
    gm_buf_puts(b, "\n|---|");
    for (size_t d = 0; d < in->n; d++)
        gm_buf_puts(b, "---|");
    gm_buf_puts(b, "\n");
}

static void S_summary(gm_buf *b, const S_ctx *c)
{
    const gm_compare_in *in = c->in;
    bool questions = false;
    for (size_t e = 0; e < c->n_exps; e++)
        questions |= c->exps[e]->contrast_a != NULL;
    size_t programs = 0;
    for (size_t e = 0; e < c->n_exps; e++)
        programs += S_program(c, c->exps[e]->id ? c->exps[e]->id : "");
    gm_buf_puts(b, "## Summary\n\n");
    if (programs && programs == c->n_exps)
        gm_buf_puts(b, "Per program and file: how many kernels were profiled and their GPU "
                       "time. A program's kernels do different work, so they are not ranked "
                       "against one another: the program's section sets each kernel beside "
                       "itself in the other files.\n\n");
    else if (questions)
        gm_say(b, "Per experiment, its question, and on each device the answer: side a against "
                  "side b at matched parameters, the time ratio (above 1: a is slower) and the "
                  "counter the contrast is about; then the fastest layout of the same work and, "
                  "for a bandwidth-bound experiment, its share of that device's own {} "
                  "bandwidth (the best it measured). An experiment without a question gives its "
                  "fastest and slowest layout.\n\n",
               GM_LIT(c->of));
    else
        gm_say(b, "Per experiment and device: the fastest layout among the runs that do the "
                  "same work, its median time and, for a bandwidth-bound experiment, its "
                  "effective bandwidth as a share of that device's own {} bandwidth (the best "
                  "it measured); then the slowest layout and how many times slower it is on "
                  "that device (the contrast the experiment shows).\n\n",
               GM_LIT(c->of));
    S_table_head(b, in, "Experiment");
    size_t differ = 0;
    for (size_t e = 0; e < c->n_exps; e++) {
        const gm_experiment *x = c->exps[e];
        const char *id = x->id ? x->id : "";
        gm_say_arg title = GM_TEXT(x->title ? x->title : id);
        if (x->question)
            gm_say(b, "| {}. {}: *{}* |", GM_INT((long long)(e + 1)), title, GM_TEXT(x->question));
        else
            gm_say(b, "| {}. {} |", GM_INT((long long)(e + 1)), title);
        const char *best0 = NULL;
        bool diff = false, program = S_program(c, id);
        for (size_t d = 0; d < in->n; d++) {
            const gm_section *s = S_section(c, d, id);
            gm_buf_puts(b, " ");
            S_contrast_cell(b, c, d, s);
            gm_buf_puts(b, " |");
            if (!program && s && s->best && s->best->variant) {
                if (!best0)
                    best0 = s->best->variant;
                else if (strcmp(best0, s->best->variant) != 0)
                    diff = true;
            }
        }
        gm_buf_puts(b, "\n");
        differ += diff;
    }
    gm_buf_puts(b, "\n");
    if (differ) {
        gm_buf_puts(b, "The fastest layout is not the same on every device in: ");
        size_t k = 0;
        for (size_t e = 0; e < c->n_exps; e++) {
            const char *id = c->exps[e]->id ? c->exps[e]->id : "";
            const char *best0 = NULL;
            bool diff = false;
            for (size_t d = 0; d < in->n && !S_program(c, id); d++) {
                const gm_section *s = S_section(c, d, id);
                if (s && s->best && s->best->variant) {
                    if (!best0)
                        best0 = s->best->variant;
                    else if (strcmp(best0, s->best->variant) != 0)
                        diff = true;
                }
            }
            if (!diff)
                continue;
            gm_buf_puts(b, k++ ? ", " : "");
            gm_esc_md(b, c->exps[e]->title ? c->exps[e]->title : id);
        }
        gm_buf_puts(b, ". Where two layouts are within a few per cent of each other this "
                       "can be noise; the section tables give the times.\n\n");
    } else if (programs < c->n_exps) {
        gm_buf_puts(b, "The fastest layout of each experiment is the same on every device.\n\n");
    }
    if (programs && programs < c->n_exps)
        gm_buf_puts(b, "A program's kernels do different work, so they are not ranked against "
                       "one another: its row gives what each file profiled, and its section "
                       "sets each kernel beside itself in the other files.\n\n");
}

static void S_run_cell_time(gm_buf *b, const gm_run *run)
{
    if (!run) {
        gm_buf_puts(b, "not run here");
        return;
    }
    if (!gm_run_passed(run)) {
        gm_buf_puts(b, gm_check_status_name(run->check.status));
        return;
    }
    gm_fmt_ms(b, gm_run_median_ms(run));
}

/* The charts of section e, or the placeholder the HTML page fills. */
static void S_section_charts(gm_buf *b, size_t e, const gm_charts *charts, const char *chart_dir)
{
    bool any_chart = false;
    for (size_t k = 0; k < charts->n; k++)
        any_chart |= charts->v[k].section == e;
    if (!any_chart)
        return;
    if (!chart_dir) {
        gm_say(b, "![](gm-charts:{})\n\n", GM_INT((long long)e));
        return;
    }
    for (size_t k = 0; k < charts->n; k++) {
        if (charts->v[k].section != e)
            continue;
        gm_say(b, "![{}]({}/{}.svg)\n\n", GM_TEXT(charts->v[k].title), GM_LIT(chart_dir),
               GM_LIT(charts->v[k].name));
    }
}

/* A program's section: each kernel beside itself in the other files (issue
 * 26: the page ranked one program's kernels against each other,
 * "`transpose_contiguous` 107× slower"). */
static void S_program_table(gm_buf *b, const S_ctx *c, const char *id, size_t n_all,
                            size_t n_some)
{
    const gm_compare_in *in = c->in;
    gm_say(b, "{} kernel{} ran in every file", GM_INT((long long)n_all),
           GM_LIT(n_all == 1 ? "" : "s"));
    if (n_some)
        gm_say(b, "; {} in some only (listed at the end)", GM_INT((long long)n_some));
    gm_buf_puts(b, ". The same kernel side by side: its median time per launch in each file, "
                   "and each other file's time over A's. A program's kernels do different "
                   "work, so no kernel is compared with another.\n\n| Kernel |");
    for (size_t d = 0; d < in->n; d++)
        gm_say(b, " Time {} |", S_letter(d));
    for (size_t d = 1; d < in->n; d++)
        gm_say(b, " {} ÷ A |", S_letter(d));
    gm_buf_puts(b, "\n|---|");
    for (size_t k = 0; k < 2 * in->n - 1; k++)
        gm_buf_puts(b, "---:|");
    gm_buf_puts(b, "\n");
    for (size_t i = 0; i < c->n_rows; i++) {
        const S_row *row = &c->rows[i];
        if (row->n_present != in->n || strcmp(S_row_exp(row), id) != 0)
            continue;
        const gm_run *one = S_any(row, in->n);
        gm_buf_puts(b, "| ");
        gm_runs_case_md(&one, 1, one, NULL, b);
        gm_buf_puts(b, " |");
        for (size_t d = 0; d < in->n; d++) {
            gm_buf_puts(b, " ");
            S_run_cell_time(b, row->run[d]);
            gm_buf_puts(b, " |");
        }
        for (size_t d = 1; d < in->n; d++) {
            double v = S_over_a(row, d);
            gm_say(b, " {} |", isfinite(v) ? GM_RATIO(v) : GM_LIT(DASH));
        }
        gm_buf_puts(b, "\n");
    }
    gm_buf_puts(b, "\n");
}

static void S_section_md(gm_buf *b, const S_ctx *c, size_t e, const gm_charts *charts,
                         const char *chart_dir)
{
    const gm_compare_in *in = c->in;
    const gm_experiment *x = c->exps[e];
    const char *id = x->id ? x->id : "";
    bool bw = S_bandwidth(x);
    gm_say(b, "## {}. {}\n\n", GM_INT((long long)(e + 1)), GM_TEXT(x->title ? x->title : id));
    if (x->summary)
        gm_say(b, "{}\n\n", GM_SPANS(x->summary));
    size_t n_all = 0, n_some = 0;
    for (size_t i = 0; i < c->n_rows; i++)
        if (strcmp(S_row_exp(&c->rows[i]), id) == 0) {
            if (c->rows[i].n_present == in->n)
                n_all++;
            else
                n_some++;
        }
    bool program = S_program(c, id);
    if (program) {
        S_program_table(b, c, id, n_all, n_some);
        S_section_charts(b, e, charts, chart_dir);
        return;
    }
    gm_say(b, "{} case{} ran on every device", GM_INT((long long)n_all),
           GM_LIT(n_all == 1 ? "" : "s"));
    if (n_some)
        gm_say(b, "; {} on some only (listed at the end)", GM_INT((long long)n_some));
    if (bw)
        gm_say(b, ". Median time per device, then effective bandwidth as a share of the device's "
                  "own {} bandwidth (the fair comparison: each against its own ceiling)",
               GM_LIT(c->of));
    else
        gm_buf_puts(b, ". Median time per device, then the time over the device's fastest "
                       "layout of the same work (1× = the fastest; the fair comparison of "
                       "layouts across devices of different speed)");
    gm_buf_puts(b, ", and each other device's time over A's");
    gm_buf_puts(b, ".\n\n| Case |");
    for (size_t d = 0; d < in->n; d++)
        gm_say(b, " Time {} |", S_letter(d));
    for (size_t d = 0; d < in->n; d++)
        if (bw)
            gm_say(b, " % of {} {} |", GM_LIT(c->of), S_letter(d));
        else
            gm_say(b, " × fastest {} |", S_letter(d));
    for (size_t d = 1; d < in->n; d++)
        gm_say(b, " {} ÷ A |", S_letter(d));
    gm_buf_puts(b, "\n|---|");
    for (size_t k = 0; k < 3 * in->n - 1; k++)
        gm_buf_puts(b, "---:|");
    gm_buf_puts(b, "\n");
    size_t n_set = 0;
    const gm_run **set = S_exp_runs(c, id, false, &n_set);
    gm_vary vary;
    gm_vary_build(set, n_set, &vary);
    for (size_t i = 0; i < c->n_rows; i++) {
        const S_row *row = &c->rows[i];
        if (row->n_present != in->n || strcmp(S_row_exp(row), id) != 0)
            continue;
        gm_buf_puts(b, "| ");
        S_case_md(b, row, in->n, &vary);
        gm_buf_puts(b, " |");
        for (size_t d = 0; d < in->n; d++) {
            gm_buf_puts(b, " ");
            S_run_cell_time(b, row->run[d]);
            gm_buf_puts(b, " |");
        }
        for (size_t d = 0; d < in->n; d++) {
            double v = bw ? S_share(c, d, row->run[d])
                          : S_rel(S_section(c, d, id), row->run[d]);
            gm_say(b, " {} |", !isfinite(v) ? GM_LIT(DASH) : bw ? GM_PCT(v) : GM_RATIO(v));
        }
        double t0 = gm_run_passed(row->run[0]) ? gm_run_median_ms(row->run[0]) : NAN;
        for (size_t d = 1; d < in->n; d++) {
            double t = gm_run_passed(row->run[d]) ? gm_run_median_ms(row->run[d]) : NAN;
            gm_say(b, " {} |",
                   isfinite(t) && isfinite(t0) && t0 > 0 ? GM_RATIO(t / t0) : GM_LIT(DASH));
        }
        gm_buf_puts(b, "\n");
    }
    gm_buf_puts(b, "\n");
    gm_vary_free(&vary);
    free((void *)set);
    S_section_charts(b, e, charts, chart_dir);
}

static void S_one_device_only(gm_buf *b, const S_ctx *c)
{
    const gm_compare_in *in = c->in;
    size_t n = 0;
    for (size_t i = 0; i < c->n_rows; i++)
        n += c->rows[i].n_present != in->n;
    gm_buf_puts(b, "## Cases not run on every device\n\n");
    if (!n) {
        gm_buf_puts(b, "None: every case ran on every device.\n\n");
        return;
    }
    gm_say(b, "{} case{}, not paired, so not in the tables above (a different selection, size "
              "set or tool version; a variant that cannot run on a device).\n\n",
           GM_INT((long long)n), GM_LIT(n == 1 ? "" : "s"));
    gm_buf_puts(b, "| Experiment | Case |");
    for (size_t d = 0; d < in->n; d++) {
        gm_buf_puts(b, " ");
        S_dev_md(b, in, d);
        gm_buf_puts(b, " |");
    }
    gm_buf_puts(b, "\n|---|---|");
    for (size_t d = 0; d < in->n; d++)
        gm_buf_puts(b, "---:|");
    gm_buf_puts(b, "\n");
    for (size_t i = 0; i < c->n_rows; i++) {
        const S_row *row = &c->rows[i];
        if (row->n_present == in->n)
            continue;
        gm_say(b, "| {} | ", GM_TEXT(S_row_exp(row)));
        const gm_run *one = S_any(row, in->n);
        gm_runs_case_md(&one, 1, one, NULL, b);
        S_case_params(b, one);
        gm_buf_puts(b, " |");
        for (size_t d = 0; d < in->n; d++) {
            gm_buf_puts(b, " ");
            if (row->run[d])
                S_run_cell_time(b, row->run[d]);
            else
                gm_buf_puts(b, DASH);
            gm_buf_puts(b, " |");
        }
        gm_buf_puts(b, "\n");
    }
    gm_buf_puts(b, "\n");
}

/* The claims of the source documents (claims.h), one column per device, each
 * citing its document (sources.h); true when one did, so that the page lists
 * the references. */
static bool S_claims(gm_buf *b, const S_ctx *c)
{
    bool cited = false;
    const gm_compare_in *in = c->in;
    size_t untested = 0, shown = 0;
    for (size_t k = 0; k < gm_claims_len; k++)
        untested += gm_claims[k].kind == GM_CLAIM_NONE;
    gm_buf_puts(b, "## Claims of the source documents, per device\n\n"
                   "Each quantitative claim the experiments test, judged on each device as the "
                   "single report judges it (docs/claims.md): the figure measured there and "
                   "the verdict. The claims were made on other hardware, so sizes are expected "
                   "to differ; a claim that holds on one device and not on another is what "
                   "changed between them.\n\n");
    gm_buf_puts(b, "| Claim | Source | Claimed |");
    for (size_t d = 0; d < in->n; d++)
        gm_say(b, " {} |", S_letter(d));
    gm_buf_puts(b, "\n|---|---|---|");
    for (size_t d = 0; d < in->n; d++)
        gm_buf_puts(b, "---|");
    gm_buf_puts(b, "\n");
    for (size_t k = 0; k < gm_claims_len; k++) {
        const gm_claim *cl = &gm_claims[k];
        if (cl->kind == GM_CLAIM_NONE)
            continue;
        gm_claim_result res[GM_COMPARE_MAX];
        bool any = false;
        for (size_t d = 0; d < in->n; d++) {
            gm_claim_eval(cl, in->r[d], &c->ss[d], &res[d]);
            any |= res[d].verdict != GM_VERDICT_UNTESTED;
        }
        if (any) {
            shown++;
            const gm_source *src = gm_source_find(cl->source);
            gm_buf source = GM_BUF_INIT;
            if (src)
                gm_source_cite_md(&source, src);
            else
                gm_esc_md(&source, cl->source);
            cited |= src != NULL;
            gm_say(b, "| {} | {} | {} |", GM_TEXT(cl->claim), GM_BUF(&source),
                   GM_TEXT(cl->claimed));
            gm_buf_free(&source);
            for (size_t d = 0; d < in->n; d++) {
                gm_say_arg verdict = GM_LIT(res[d].verdict == GM_VERDICT_HOLDS
                                                ? "**holds**"
                                                : gm_verdict_name(res[d].verdict));
                if (res[d].verdict != GM_VERDICT_UNTESTED && res[d].measured_md.len)
                    gm_say(b, " {}: {} |", GM_BUF(&res[d].measured_md), verdict);
                else
                    gm_say(b, " {} |", verdict);
            }
            gm_buf_puts(b, "\n");
        }
        for (size_t d = 0; d < in->n; d++)
            gm_claim_result_free(&res[d]);
    }
    if (!shown)
        gm_buf_puts(b, "| no claim is tested by these files | | |\n");
    gm_say(b, "\n{} further claim{} of the documents {} no kernel in this suite; each device's "
              "own report lists {} with the reason.\n\n",
           GM_INT((long long)untested), GM_LIT(untested == 1 ? "" : "s"),
           GM_LIT(untested == 1 ? "has" : "have"), GM_LIT(untested == 1 ? "it" : "them"));
    return cited;
}

char *gm_compare_markdown(const gm_compare_in *in, const gm_charts *charts,
                          const char *chart_dir)
{
    S_ctx c;
    S_ctx_build(&c, in);
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "# GPU memory report: {} devices compared\n\n", GM_INT((long long)in->n));
    for (size_t d = 0; d < in->n; d++) {
        const gm_results *r = in->r[d];
        if (r->origin && strncmp(r->origin, "measured", 8) == 0)
            continue;
        gm_buf dev = GM_BUF_INIT;
        S_dev_md(&dev, in, d);
        gm_say(&b, "> **Not a measurement of {}.** Its results file ({}) gives its origin as: "
                   "{}.\n\n",
               GM_BUF(&dev), GM_CODE(in->names[d] ? in->names[d] : ""),
               GM_TEXT(r->origin ? r->origin : "unknown"));
        gm_buf_free(&dev);
    }
    gm_buf_puts(&b, "The same experiments on each device, side by side: what changes between "
                    "GPUs and what does not. Each device is judged against its own measured "
                    "ceiling, so a faster memory system does not hide or invent a contrast "
                    "between layouts. Cases pair as `gpumem-report diff` pairs runs "
                    "(experiment, variant, parameters).\n\n");
    S_devices(&b, &c);
    S_summary(&b, &c);
    bool cited = S_claims(&b, &c);
    for (size_t e = 0; e < c.n_exps; e++)
        S_section_md(&b, &c, e, charts, chart_dir);
    S_one_device_only(&b, &c);
    size_t programs = 0;
    for (size_t e = 0; e < c.n_exps; e++)
        programs += S_program(&c, c.exps[e]->id ? c.exps[e]->id : "");
    gm_buf_puts(&b, "## How to read the comparison\n\n"
                    "- Times are medians of each device's own repetitions (see each results "
                    "file for the counts and spreads); render a device's file alone for its "
                    "counters, findings and charts.\n");
    if (programs < c.n_exps)
        gm_say(&b, "- \"% of {}\" is effective bandwidth (bytes the computation must read and "
                   "write over the median time) over that device's {} bandwidth: the best it "
                   "measured, its plain copy and read kernels at startup (its cudaMemcpy copy in "
                   "an older file) or any run that went faster, so no share exceeds 100%.\n"
                   "- \"× fastest\" is a layout's time over the fastest layout of the same work "
                   "on the same device.\n",
               GM_LIT(c.of), GM_LIT(c.of));
    if (programs)
        gm_buf_puts(&b, "- A program's kernels do different work: each is set beside itself "
                        "in the other files (its median time per launch), never against "
                        "another kernel.\n");
    gm_buf_puts(&b, "- \"÷\" columns: one device's raw time over the first device's (below 1: "
                    "faster than the first).\n");
    if (cited) {
        gm_buf_puts(&b, "\n");
        gm_sources_md(&b);
    }
    S_ctx_free(&c);
    return gm_buf_detach(&b);
}

typedef struct {
    const gm_compare_in *in;
} S_doc;

static char *S_doc_md(const void *ctx, const gm_charts *charts, const char *chart_dir)
{
    const S_doc *d = ctx;
    return gm_compare_markdown(d->in, charts, chart_dir);
}

gm_status gm_compare_render(const gm_compare_in *in, const gm_render_opts *o, gm_error *err)
{
    gm_status st = gm_compare_check(in, err);
    if (st != GM_OK)
        return st;
    gm_charts charts;
    gm_compare_charts_plan(in, &charts);
    gm_buf title = GM_BUF_INIT;
    gm_buf_puts(&title, "GPU memory report: ");
    for (size_t d = 0; d < in->n; d++) {
        if (d)
            gm_buf_puts(&title, " vs ");
        S_dev_label(&title, in, d);
    }
    S_doc doc = {in};
    st = gm_render_doc(S_doc_md, &doc, title.data, &charts, o, err);
    gm_buf_free(&title);
    gm_charts_free(&charts);
    return st;
}
