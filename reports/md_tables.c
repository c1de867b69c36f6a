/* md_tables.c — the table of an experiment's runs: the columns a reader
 * compares, then the other counters folded; in the Markdown forms a large
 * experiment is pivoted to one row per set of parameters.
 */
#include "md_int.h"

#include "../core/catalog.h"
#include "../core/say.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
        gm_say(b, " ({}–{})", GM_BUF(&x), GM_BUF(&y));
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

/* ceiling: the ceiling bandwidth (gm_results_ceiling_gbs), found once per table. */
static void S_cell(gm_buf *b, double ceiling, const gm_section *s, const gm_run *run,
                   S_col c)
{
    bool withheld = md_failed(run);
    switch (c) {
    case C_VARIANT: md_code(b, run->variant); break;
    case C_PARAMS: md_params_cell(b, s, run); break;
    case C_LAUNCHES: gm_fmt_count(b, gm_run_launches(run)); break;
    case C_TIME: {
        /* the range in the median's unit: "50.5 µs (50.3–51.0, n=20)" */
        double t = gm_run_median_ms(run), scale;
        int dec;
        if (isfinite(t) && (!gm_run_is_program(run) || run->timing.min != run->timing.max)) {
            gm_fmt_ms_unit(t, &scale, &dec);
            gm_say_arg lo = GM_FIXED(run->timing.min * scale, dec);
            gm_say_arg hi = GM_FIXED(run->timing.max * scale, dec);
            if (gm_run_is_program(run))
                gm_say(b, "{} ({}–{})", GM_MS(t), lo, hi);
            else
                gm_say(b, "{} ({}–{}, n={})", GM_MS(t), lo, hi, GM_INT((long long)run->timing.n));
        } else {
            gm_fmt_ms(b, t);
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
        double g = gm_run_effective_gbs(run);
        if (withheld && isfinite(g))
            gm_buf_puts(b, "withheld");
        else
            gm_fmt_pct(b, ceiling > 0 ? 100.0 * g / ceiling : NAN);
        break;
    }
    case C_DRAM_GBS: gm_fmt_gbs(b, gm_run_dram_gbs(run)); break;
    case C_PCT_CEIL: {
        double g = gm_run_dram_gbs(run);
        gm_fmt_pct(b, ceiling > 0 ? 100.0 * g / ceiling : NAN);
        break;
    }
    case C_DRAM_TOTAL: {
        double rd = gm_run_metric_num(run, GM_M_DRAM_RD), wr = gm_run_metric_num(run, GM_M_DRAM_WR);
        gm_fmt_bytes(b, rd >= 0 && wr >= 0 ? (rd + wr) * gm_run_launches(run) : NAN);
        break;
    }
    case C_LD_SPR: md_spr(b, gm_run_metric_num(run, GM_M_LD_SPR)); break;
    case C_ST_SPR: md_spr(b, gm_run_metric_num(run, GM_M_ST_SPR)); break;
    case C_LD_EFF: gm_fmt_pct(b, gm_run_metric_num(run, GM_M_LD_EFF)); break;
    case C_ST_EFF: gm_fmt_pct(b, gm_run_metric_num(run, GM_M_ST_EFF)); break;
    case C_DRAM_RD: S_per_launch(b, run, GM_M_DRAM_RD, S_fmt_bytes); break;
    case C_DRAM_WR: S_per_launch(b, run, GM_M_DRAM_WR, S_fmt_bytes); break;
    case C_DRAM_PCT: gm_fmt_pct(b, gm_run_metric_num(run, GM_M_DRAM_PCT)); break;
    case C_SH_LD_WPI: gm_fmt_fixed(b, gm_run_shared_wpi(run, false), 2); break;
    case C_SH_ST_WPI: gm_fmt_fixed(b, gm_run_shared_wpi(run, true), 2); break;
    case C_SH_LD_CONFL: S_per_launch(b, run, GM_M_SH_LD_CONFL, S_fmt_count); break;
    case C_SH_ST_CONFL: S_per_launch(b, run, GM_M_SH_ST_CONFL, S_fmt_count); break;
    case C_CHECK: md_check_text(b, run, true); break;
    case C_COUNT: break;
    }
}

/* One table of the runs `rows` with the columns `show`. */
static void S_table_cols(gm_buf *b, double ceiling, const gm_section *s,
                         const gm_run *const *rows, size_t n, const bool *show,
                         const char *const *head, const bool *right, bool time_n, bool lean)
{
    for (int c = 0; c < C_COUNT; c++)
        if (show[c])
            gm_say(b, "| {} ", GM_TEXT(head[c]));
    gm_buf_puts(b, "|\n");
    for (int c = 0; c < C_COUNT; c++)
        if (show[c])
            gm_buf_puts(b, right[c] ? "|---:" : "|---");
    gm_buf_puts(b, "|\n");
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < C_COUNT; c++) {
            if (!show[c])
                continue;
            if (c == C_TIME && lean) {
                gm_say(b, "| {} ", GM_MS(gm_run_median_ms(rows[i])));
            } else if (c == C_TIME && !time_n) {
                /* the median and its range; n is in the header */
                double t = gm_run_median_ms(rows[i]), scale;
                int dec;
                if (isfinite(t)) {
                    gm_fmt_ms_unit(t, &scale, &dec);
                    gm_say(b, "| {} ({}–{}) ", GM_MS(t), GM_FIXED(rows[i]->timing.min * scale, dec),
                           GM_FIXED(rows[i]->timing.max * scale, dec));
                } else {
                    gm_say(b, "| {} ", GM_MS(t));
                }
            } else {
                gm_buf_puts(b, "| ");
                S_cell(b, ceiling, s, rows[i], (S_col)c);
                gm_buf_puts(b, " ");
            }
        }
        gm_buf_puts(b, "|\n");
    }
    gm_buf_puts(b, "\n");
}

/* In the Markdown forms, an experiment with more runs than this gets its
 * table pivoted (S_pivot); the HTML page lists every run. */
#define S_MD_ROWS 12

/* "4.0" or "4.0–5.0": a range of values, one when both ends print alike. */
static void S_range(gm_buf *b, double lo, double hi, int dec)
{
    gm_buf x = GM_BUF_INIT, y = GM_BUF_INIT;
    gm_fmt_fixed(&x, lo, dec);
    gm_fmt_fixed(&y, hi, dec);
    if (strcmp(x.data, y.data) != 0)
        gm_say(b, "{}–{}", GM_BUF(&x), GM_BUF(&y));
    else
        gm_buf_puts(b, x.data);
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
        gm_say_arg where = GM_LIT(html ? "every run's counters are in the tables folded below"
                                       : "the HTML report and the results file give every "
                                         "counter of every run");
        if (same_n && n)
            gm_say(b, "Median time of each of the {} runs (of {} timed repetitions), then each "
                      "variant's counters over its runs; {}.\n\n",
                   GM_INT((long long)n), GM_INT((long long)rows[0]->timing.n), where);
        else
            gm_say(b, "Median time of each of the {} runs, then each variant's counters over its "
                      "runs; {}.\n\n",
                   GM_INT((long long)n), where);
        gm_buf_puts(b, "| Parameters |");
        for (size_t j = 0; j < nv; j++)
            gm_say(b, " {} |", GM_CODE(vname[vfirst[j]]));
        gm_buf_puts(b, "\n|---|");
        for (size_t j = 0; j < nv; j++)
            gm_buf_puts(b, "---:|");
        gm_buf_puts(b, "\n");
        for (size_t k = 0; k < nk; k++) {
            gm_say(b, "| {} |", GM_TEXT(*key[kfirst[k]] ? key[kfirst[k]] : DASH));
            for (size_t j = 0; j < nv; j++) {
                const gm_run *c = cell[k * nv + j];
                gm_say(b, " {} |", c ? GM_MS(gm_run_median_ms(c)) : GM_LIT(DASH));
            }
            gm_buf_puts(b, "\n");
        }
        gm_buf_puts(b, "\n");

        /* the counters per variant, as ranges (one pass over the runs) */
        const struct { const char *label; double (*f)(const gm_run *); int dec; } q[] = {
            {md_label(GM_M_LD_SPR, "ld sectors/req"), S_r_ld_spr, 1},
            {md_label(GM_M_ST_SPR, "st sectors/req"), S_r_st_spr, 1},
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
                if (show[k])
                    gm_say(b, " {} |", GM_TEXT(q[k].label));
            gm_buf_puts(b, "\n|---|---:|");
            for (size_t k = 0; k < 4; k++)
                if (show[k])
                    gm_buf_puts(b, "---:|");
            gm_buf_puts(b, "\n");
            for (size_t j = 0; j < nv; j++) {
                gm_say(b, "| {} | {} |", GM_CODE(vname[vfirst[j]]), GM_INT((long long)runs[j]));
                for (size_t k = 0; k < 4; k++) {
                    if (!show[k])
                        continue;
                    gm_buf range = GM_BUF_INIT;
                    if (isfinite(lo[j * 4 + k]))
                        S_range(&range, lo[j * 4 + k], hi[j * 4 + k], q[k].dec);
                    else
                        gm_buf_puts(&range, DASH);
                    gm_say(b, " {} |", GM_BUF(&range));
                    gm_buf_free(&range);
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
void md_table(gm_buf *b, const gm_results *r, const gm_section *s, bool html)
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
    gm_buf_printf(&wl, "%s/inst", md_label(GM_M_SH_LD_WAVES, "sh ld wavefronts"));
    gm_buf_printf(&ws, "%s/inst", md_label(GM_M_SH_ST_WAVES, "sh st wavefronts"));
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
    double ceiling = gm_results_ceiling_gbs(r, &attainable);
    head[C_PCT_COPY] = attainable ? "% of attainable" : "% of copy bandwidth";
    head[C_DRAM_GBS] = "DRAM bandwidth";
    head[C_PCT_CEIL] = attainable ? "% of attainable" : "% of copy bandwidth";
    head[C_DRAM_TOTAL] = "DRAM bytes, all launches";
    head[C_LD_SPR] = md_label(GM_M_LD_SPR, "ld sectors/req");
    head[C_ST_SPR] = md_label(GM_M_ST_SPR, "st sectors/req");
    head[C_LD_EFF] = md_label(GM_M_LD_EFF, "ld efficiency");
    head[C_ST_EFF] = md_label(GM_M_ST_EFF, "st efficiency");
    gm_buf hrd = GM_BUF_INIT, hwr = GM_BUF_INIT, hlc = GM_BUF_INIT, hsc = GM_BUF_INIT;
    gm_buf_printf(&hrd, "%s%s", md_label(GM_M_DRAM_RD, "DRAM read"), program ? " per launch" : "");
    gm_buf_printf(&hwr, "%s%s", md_label(GM_M_DRAM_WR, "DRAM written"),
                  program ? " per launch" : "");
    gm_buf_printf(&hlc, "%s%s", md_label(GM_M_SH_LD_CONFL, "sh ld conflicts"),
                  program ? " per launch" : "");
    gm_buf_printf(&hsc, "%s%s", md_label(GM_M_SH_ST_CONFL, "sh st conflicts"),
                  program ? " per launch" : "");
    head[C_DRAM_RD] = hrd.data;
    head[C_DRAM_WR] = hwr.data;
    head[C_DRAM_PCT] = md_label(GM_M_DRAM_PCT, "DRAM % peak");
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
    show[C_PCT_CEIL] = show[C_DRAM_GBS] && ceiling > 0;
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
            md_fold_open_n(b, 5, n);
            S_table_cols(b, ceiling, s, rows, n, show1, head, right, time_n, false);
            md_fold_close(b, true);
        }
    } else {
        S_table_cols(b, ceiling, s, rows, n, show1, head, right, time_n, !html);
    }
    if (all_passed && !program)
        gm_say(b, "{} {} run{} passed {} check against the CPU reference.\n\n",
               GM_LIT(n == 1 ? "The" : n == 2 ? "Both" : "All"), GM_INT((long long)n),
               GM_LIT(n == 1 ? "" : "s"), GM_LIT(n == 1 ? "its" : "their"));
    if (pivot && !html) {
        /* the pivot's introduction sends the reader to the HTML report */
    } else if (any2 && !html) {
        gm_buf_puts(b, "Efficiency, DRAM and bank-conflict counters: in the HTML report.\n\n");
    } else if (any2) {
        show2[C_VARIANT] = true;
        show2[C_PARAMS] = show[C_PARAMS];
        md_fold_open(b, html, 1);
        S_table_cols(b, ceiling, s, rows, n, show2, head, right, time_n, !html);
        md_fold_close(b, html);
    }
    if (any3) {   /* a program's page only (above): fold 6 exists there alone */
        show3[C_VARIANT] = true;
        md_fold_open(b, true, 6);
        S_table_cols(b, ceiling, s, rows, n, show3, head, right, time_n, false);
        md_fold_close(b, true);
    }
    if (left_out.len && (html || !pivot)) {
        gm_say(b, "No run of this experiment has a value for: {} (columns left out).\n\n",
               GM_TEXT(left_out.data));
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
