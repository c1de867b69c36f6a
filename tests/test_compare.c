/* test_compare.c — the device comparison (reports/compare.h) on two recorded
 * runs: the committed H100 run (examples/h100/run.json) and the H100 run
 * recorded ten minutes earlier (tests/fixtures/h100-rerun-0747.json), and on
 * the committed run beside a copy of itself that says, in its origin and
 * device name, that it is a test fixture (renamed device, doubled copy
 * bandwidth, some runs left out): never presented as a measurement. */
#include "helpers.h"

#include "../core/buf.h"
#include "../core/fmt.h"
#include "../reports/compare.h"
#include "../reports/contrast.h"
#include "../reports/diff.h"
#include "../reports/runs.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void S_load(const char *rel, gm_results *r)
{
    char *p = gmt_src(rel);
    gm_error err;
    cr_assert_eq(gm_results_read_file(p, r, &err), GM_OK, "%s", err.message);
    free(p);
}

/* Cases of a that b lacks, counted with the diff's pairing. */
static size_t S_only_in(const gm_results *a, const gm_results *b)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n_runs; i++) {
        bool found = false;
        for (size_t k = 0; k < b->n_runs && !found; k++)
            found = gm_diff_run_key_cmp(&a->runs[i], &b->runs[k]) == 0;
        n += !found;
    }
    return n;
}

static char *S_markdown(const gm_results *a, const gm_results *b, gm_charts *charts)
{
    const gm_results *rs[] = {a, b};
    const char *names[] = {"examples/h100/run.json", "second.json"};
    gm_compare_in in = {rs, names, 2};
    gm_error err;
    cr_assert_eq(gm_compare_check(&in, &err), GM_OK, "%s", err.message);
    gm_compare_charts_plan(&in, charts);
    return gm_compare_markdown(&in, charts, "cmp.charts");
}

Test(compare, two_recorded_h100_runs)
{
    gm_results a, b;
    S_load("examples/h100/run.json", &a);
    S_load("tests/fixtures/h100-rerun-0747.json", &b);
    gm_charts charts;
    char *md = S_markdown(&a, &b, &charts);
    gmt_assert_has(md, "# GPU memory report: 2 devices compared");
    /* two runs of device 0: the letter alone tells them apart */
    gmt_assert_has(md, "| | A: H100 80GB HBM3 | B: H100 80GB HBM3 |");
    gmt_assert_lacks(md, "Not a measurement");
    /* the committed run gated its short repetitions; the older one did not */
    size_t timed = 0, gated = 0;
    for (size_t i = 0; i < a.n_runs; i++) {
        timed += a.runs[i].timing.present;
        gated += a.runs[i].timing.gated;
    }
    cr_assert_gt(gated, 0);
    char row[160];
    snprintf(row, sizeof row, "%zu runs timed, %zu of them (those under 2 ms) behind the launch "
             "gate", timed, gated);
    gmt_assert_has(md, row);
    gmt_assert_has(md, "none behind the launch gate |");
    gmt_assert_has(md, "**Short kernels were not timed the same way.**");
    /* every experiment of either file has its section and summary row */
    gm_sections ss;
    gm_sections_build(&a, &ss);
    for (size_t i = 0; i < ss.n; i++)
        gmt_assert_has(md, ss.v[i].exp->title);
    gm_sections_free(&ss);
    /* what ran on one device only is listed, not dropped */
    size_t only = S_only_in(&a, &b) + S_only_in(&b, &a);
    cr_assert_gt(only, 0, "the two runs differ in their SpMV sizes");
    char want[128];
    snprintf(want, sizeof want, "%zu cases, not paired", only);
    gmt_assert_has(md, want);
    /* the measured ceilings of both files, as measured */
    gm_buf v = GM_BUF_INIT;
    gm_fmt_gbs(&v, gm_value_num(&a.device.copy_bandwidth_gbs));
    gmt_assert_has(md, v.data);
    v.len = 0;
    gm_fmt_gbs(&v, gm_value_num(&b.device.copy_bandwidth_gbs));
    gmt_assert_has(md, v.data);
    gm_buf_free(&v);
    /* charts: one bar series per device */
    cr_assert_gt(charts.n, 5);
    for (size_t i = 0; i < charts.n; i++) {
        /* bars, upright or lying beside their names */
        cr_assert_eq(gmt_occurrences(charts.v[i].script, "with box"), 2);
        gmt_assert_has(charts.v[i].script, "'NVIDIA H100 80GB HBM3 (A)'");
        gmt_assert_has(charts.v[i].script, "'NVIDIA H100 80GB HBM3 (B)'");
    }
    /* pure: the same files give the same bytes */
    gm_charts c2;
    char *md2 = S_markdown(&a, &b, &c2);
    cr_assert_str_eq(md, md2);
    free(md2);
    gm_charts_free(&c2);
    free(md);
    gm_charts_free(&charts);
    gm_results_free(&a);
    gm_results_free(&b);
}

/* The first bandwidth-bound experiment's first run. */
static const gm_run *S_first_bw_run(const gm_results *r)
{
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_experiment *e = gm_results_experiment(r, r->runs[i].experiment);
        if (e && e->bandwidth_bound && gm_run_passed(&r->runs[i]) &&
            isfinite(gm_run_effective_gbs(&r->runs[i])))
            return &r->runs[i];
    }
    return NULL;
}

Test(compare, fixture_device_normalised_to_its_own_ceiling)
{
    gm_results a, b;
    S_load("examples/h100/run.json", &a);
    S_load("examples/h100/run.json", &b);
    free(b.origin);
    b.origin = gm_xstrdup("test fixture: examples/h100/run.json with its device renamed, its "
                          "attainable bandwidth doubled and its first 3 runs left out; not a "
                          "measurement");
    free(b.device.name);
    b.device.name = gm_xstrdup("Test fixture GPU");
    b.device.attainable_bandwidth_gbs =
        gm_vreal(2 * gm_value_num(&a.device.attainable_bandwidth_gbs));
    /* drop the first 3 runs of b */
    gm_results shell = {0};
    shell.runs = gm_xcalloc(3, sizeof *shell.runs);
    memcpy(shell.runs, b.runs, 3 * sizeof *b.runs);
    shell.n_runs = 3;
    memmove(b.runs, b.runs + 3, (b.n_runs - 3) * sizeof *b.runs);
    b.n_runs -= 3;
    gm_results_free(&shell);

    gm_charts charts;
    char *md = S_markdown(&a, &b, &charts);
    gmt_assert_has(md, "> **Not a measurement of Test fixture GPU.**");
    gmt_assert_has(md, "test fixture: examples/h100/run.json");
    gmt_assert_has(md, "3 cases, not paired");
    gmt_assert_lacks(md, "not timed the same way");   /* both files gate their short kernels */
    /* a run on both: its share of each device's own ceiling (runs.h: A's
     * attainable bandwidth raised by its fastest run, B's doubled one, which
     * no run reaches) */
    const gm_run *ra = S_first_bw_run(&b);   /* present in both (b lost only its first 3) */
    cr_assert_not_null(ra);
    double ca = gm_results_ceiling_gbs(&a, NULL), cb = gm_results_ceiling_gbs(&b, NULL);
    cr_assert_float_eq(cb, 2 * gm_value_num(&a.device.attainable_bandwidth_gbs), 1e-6);
    gm_buf row = GM_BUF_INIT;
    gm_fmt_ms(&row, gm_run_median_ms(ra));
    gm_buf_puts(&row, " | ");
    gm_fmt_ms(&row, gm_run_median_ms(ra));
    gm_buf_puts(&row, " | ");
    gm_fmt_pct(&row, 100.0 * gm_run_effective_gbs(ra) / ca);
    gm_buf_puts(&row, " | ");
    gm_fmt_pct(&row, 100.0 * gm_run_effective_gbs(ra) / cb);
    gm_buf_puts(&row, " | 1.0× |");
    gmt_assert_has(md, row.data);
    gm_buf_free(&row);
    gmt_assert_has(md, "| Case | Time A | Time B | % of attainable A | % of attainable B | B ÷ A |");
    gmt_assert_lacks(md, "of copy");
    /* no share above 100 %: the ceiling is the best each device measured (the
     * sections' cells "| 99.5% |", the summary's "99.5% of attainable") */
    size_t shares = 0;
    static const char *const ends[] = {"% |", "% of attainable"};
    for (size_t k = 0; k < 2; k++)
        for (const char *p = strstr(md, ends[k]); p; p = strstr(p + 1, ends[k])) {
            const char *s = p;
            while (s > md && ((s[-1] >= '0' && s[-1] <= '9') || s[-1] == '.'))
                s--;
            if (s == p || s[-1] != ' ')
                continue;
            shares++;
            cr_assert_leq(strtod(s, NULL), 100.0, "a share above 100%%: %.20s", s);
        }
    cr_assert_gt(shares, 100, "only %zu shares read", shares);
    /* the claims cite their documents, listed at the end */
    gmt_assert_has(md, "| Memory coalescing (article) [\\[1\\]](#references) |");
    gmt_assert_has(md, "## References\n\n");
    free(md);
    gm_charts_free(&charts);
    gm_results_free(&a);
    gm_results_free(&b);
}

Test(compare, cli_html_and_refusals)
{
    char *dir = gmt_tmpdir("compare");
    char *a = gmt_src("examples/h100/run.json");
    char *b = gmt_fixture("h100-rerun-0747.json");
    char *out = gmt_join(dir, "cmp.html");
    char *argv[] = {(char *)gmt_bin(), "render", a, b, "--out", out, NULL};
    char *err = NULL;
    cr_assert_eq(gmt_run(argv, NULL, NULL, &err), 0, "%s", err);
    free(err);
    char *html = gmt_text(out);
    gmt_assert_has(html, "<title>GPU memory report: NVIDIA H100 80GB HBM3 (A) vs NVIDIA H100 "
                         "80GB HBM3 (B)</title>");
    gmt_assert_has(html, "<svg");
    gmt_assert_lacks(html, "gm-charts:");
    free(html);

    /* gfm: one file to paste, no chart (it crashed: the template was never read) */
    char *gfm = gmt_join(dir, "cmp.txt");
    char *argvg[] = {(char *)gmt_bin(), "render", a, b, "--out", gfm, "--format", "gfm", NULL};
    cr_assert_eq(gmt_run(argvg, NULL, NULL, &err), 0, "%s", err);
    free(err);
    char *md = gmt_text(gfm);
    gmt_assert_has(md, "| A: H100 80GB HBM3 | B: H100 80GB HBM3 |");
    gmt_assert_lacks(md, "![");
    gmt_assert_lacks(md, "<svg");
    free(md);
    free(gfm);

    char *argv2[] = {(char *)gmt_bin(), "render", a, b, "--out", out, "--baseline", a, NULL};
    cr_assert_eq(gmt_run(argv2, NULL, NULL, &err), 2);
    gmt_assert_has(err, "--baseline takes one results file");
    free(err);
    char *argv3[] = {(char *)gmt_bin(), "render", a, b, "--out", b, NULL};
    cr_assert_eq(gmt_run(argv3, NULL, NULL, &err), 2);
    gmt_assert_has(err, "is one of the inputs");
    free(err);
    char *dup = gmt_fixture("diff-duplicate.json");
    char *argv4[] = {(char *)gmt_bin(), "render", a, dup, "--out", out, NULL};
    cr_assert_eq(gmt_run(argv4, NULL, NULL, &err), 2);
    gmt_assert_has(err, "cannot pair them");
    free(err);
    free(dup);
    free(out);
    free(a);
    free(b);
    gmt_rmrf(dir);
    free(dir);
}

/* An experiment that names its question (contrast.h): each device's cell
 * answers it, side a against side b at matched parameters, with the time
 * ratio computed here from the same runs. */
Test(compare, answers_the_question_per_device)
{
    gm_results a, b;
    S_load("examples/h100/run.json", &a);
    S_load("tests/fixtures/h100-rerun-0747.json", &b);
    gm_results *both[] = {&a, &b};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < both[k]->n_experiments; i++) {
            gm_experiment *e = &both[k]->experiments[i];
            if (strcmp(e->id, "coalescing") != 0)
                continue;
            /* The recorded runs may already name a question: replaced. */
            free(e->question);
            free(e->contrast_a);
            free(e->contrast_b);
            free(e->contrast_counter);
            e->question = gm_xstrdup("How much longer does a strided read take?");
            e->contrast_a = gm_xstrdup("stride@stride=32");
            e->contrast_b = gm_xstrdup("stride@stride=1");
            e->contrast_counter = gm_xstrdup("ld_spr");
        }
    }
    gm_charts charts;
    char *md = S_markdown(&a, &b, &charts);
    gmt_assert_has(md, "| 1. Coalesced vs strided reads: *How much longer does a strided read "
                       "take?* |");
    for (int k = 0; k < 2; k++) {
        const gm_run *s32 = NULL, *s1 = NULL;
        for (size_t i = 0; i < both[k]->n_runs; i++) {
            const gm_run *run = &both[k]->runs[i];
            if (strcmp(run->experiment, "coalescing") || strcmp(run->variant, "stride"))
                continue;
            double st = gm_value_num(&gm_run_param(run, "stride")->value);
            if (st == 32)
                s32 = run;
            else if (st == 1)
                s1 = run;
        }
        cr_assert(s32 && s1);
        gm_buf want = GM_BUF_INIT;
        gm_fmt_ms(&want, gm_run_median_ms(s32));
        gm_buf_puts(&want, " vs `stride` (stride=1) ");
        gm_fmt_ms(&want, gm_run_median_ms(s1));
        gm_buf_puts(&want, ": **");
        gm_ratio_fmt(&want, gm_run_median_ms(s32) / gm_run_median_ms(s1));
        gm_buf_puts(&want, "**; ld sectors/request");
        gmt_assert_has(md, want.data);
        gm_buf_free(&want);
    }
    /* and the claims, a column per device */
    gmt_assert_has(md, "## Claims of the source documents, per device");
    gmt_assert_has(md, "| Claim | Source | Claimed | A | B |");
    free(md);
    gm_charts_free(&charts);
    gm_results_free(&a);
    gm_results_free(&b);
}

/* Two recorded runs of one program (tests/fixtures/app-h100-3dd71d4.json: the
 * lab on the H100, examples/app's run until 3026573; its
 * first rank on the H200, examples/h100-vs-h200/app-0.json).  Issue 26: the
 * page ranked one program's kernels against each other ("`transpose_contiguous`
 * 107× slower").  Now each kernel stands beside itself in the other file, and
 * no kernel is compared with another. */
Test(compare, a_programs_kernels_side_by_side_never_against_each_other)
{
    gm_results a, b;
    S_load("tests/fixtures/app-h100-3dd71d4.json", &a);
    S_load("examples/h100-vs-h200/app-0.json", &b);
    gm_charts charts;
    char *md = S_markdown(&a, &b, &charts);
    gmt_assert_has(md, "Per program and file: how many kernels were profiled");
    gmt_assert_has(md, "| 1. Kernels of lab | 5 kernels, 169.2 µs of GPU time profiled | "
                       "5 kernels, 160.3 µs of GPU time profiled |");
    gmt_assert_lacks(md, "slower");
    gmt_assert_lacks(md, "Fastest");
    gmt_assert_lacks(md, "The fastest layout");
    gmt_assert_lacks(md, "× fastest A");
    gmt_assert_has(md, "| Kernel | Time A | Time B | B ÷ A |\n|---|---:|---:|---:|\n");
    /* each kernel's row: its own time in each file, and B over A */
    for (size_t i = 0; i < a.n_runs; i++) {
        const gm_run *x = &a.runs[i], *y = NULL;
        for (size_t k = 0; k < b.n_runs; k++)
            if (strcmp(b.runs[k].variant, x->variant) == 0)
                y = &b.runs[k];
        cr_assert_not_null(y, "%s is in both files", x->variant);
        gm_buf row = GM_BUF_INIT;
        gm_buf_puts(&row, "| `");
        gm_buf_puts(&row, x->variant);
        gm_buf_puts(&row, "` | ");
        gm_fmt_ms(&row, gm_run_median_ms(x));
        gm_buf_puts(&row, " | ");
        gm_fmt_ms(&row, gm_run_median_ms(y));
        gm_buf_puts(&row, " | ");
        gm_fmt_ratio(&row, gm_run_median_ms(y) / gm_run_median_ms(x));
        gm_buf_puts(&row, " |\n");
        gmt_assert_has(md, row.data);
        gm_buf_free(&row);
    }
    /* the chart: each kernel's time over its own time in A */
    cr_assert_eq(charts.n, 1);
    gmt_assert_has(charts.v[0].title, "each kernel's time over its time in A");
    /* A's bars (the first series' data block): 1 each */
    const char *row = strstr(charts.v[0].script, "_0 << EOD\n");
    cr_assert_not_null(row);
    size_t rows = 0;
    for (row = strchr(row, '\n') + 1; strncmp(row, "EOD", 3) != 0; row = strchr(row, '\n') + 1) {
        const char *sp = strchr(row, ' ');
        cr_assert(sp && strncmp(sp, " 1\n", 3) == 0, "%.40s", row);
        rows++;
    }
    cr_assert_gt(rows, 1);
    gm_charts_free(&charts);
    free(md);
    gm_results_free(&a);
    gm_results_free(&b);
}

/* The GPUs of one node (`--device all`: twins by name) are told apart by
 * their device numbers as well as their letters, in every column head. */
Test(compare, twins_of_one_node_by_device_number)
{
    gm_results a, b;
    S_load("examples/h100/run.json", &a);
    S_load("tests/fixtures/h100-rerun-0747.json", &b);
    cr_assert_eq(a.device.ordinal, b.device.ordinal);
    b.device.ordinal = a.device.ordinal + 1;
    gm_charts charts;
    char *md = S_markdown(&a, &b, &charts);
    char row[160];
    snprintf(row, sizeof row, "| | A: H100 80GB HBM3, device %d | B: H100 80GB HBM3, device %d |",
             a.device.ordinal, b.device.ordinal);
    gmt_assert_has(md, row);
    snprintf(row, sizeof row, "| Experiment | A: H100 80GB HBM3, device %d | B: H100 80GB HBM3, "
             "device %d |", a.device.ordinal, b.device.ordinal);
    gmt_assert_has(md, row);
    free(md);
    gm_charts_free(&charts);
    gm_results_free(&a);
    gm_results_free(&b);
}
