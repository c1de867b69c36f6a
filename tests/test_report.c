/* test_report.c — what the report adds to the results: the address-trace
 * model's prediction beside the measurement (table, chart, text), and the
 * changes since a baseline (`render --baseline`, the diff's section).
 *
 * Fixtures: tests/fixtures/handwritten-predicted.json (gen-fixtures.py: runs
 * with predictions shaped as core/model.c makes them; the first tests below
 * hold the fixture to the model itself) and the diff pair diff-*.json.
 * $GM_SRCDIR (default ".") is the source tree, $GM_TEST_BIN the program.
 */
#include "../core/catalog.h"
#include "../reports/charts.h"
#include "../reports/diff.h"
#include "../reports/findings.h"
#include "../core/model.h"
#include "../reports/render.h"
#include "../core/results.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers --------------------------------------------------------------- */

/* The Markdown report of r (charts planned, not drawn), with or without changes. */
static char *S_markdown(const gm_results *r, const gm_diff *changes)
{
    gm_sections ss;
    gm_sections_build(r, &ss);
    gm_charts c;
    gm_charts_plan(r, &ss, &c);
    gm_report_opts ro = {false, changes, "BASE.json", "HEAD.json", false};
    /* the text of the HTML page: the full form (the Markdown file's leaves
     * out the run-by-run lists) */
    char *md = gm_render_markdown(r, &c, NULL, &ro);
    gm_charts_free(&c);
    gm_sections_free(&ss);
    return md;
}

/* The text of one section ("## 2. "), up to the next "## ". */
static char *S_section(const char *md, const char *head)
{
    const char *s = strstr(md, head);
    cr_assert_not_null(s, "no section %s", head);
    const char *e = strstr(s + 3, "\n## ");
    return strndup(s, e ? (size_t)(e - s) : strlen(s));
}

static gm_run *S_run(gm_results *r, const char *exp, const char *variant, const char *param,
                     long long value)
{
    for (size_t i = 0; i < r->n_runs; i++) {
        gm_run *run = &r->runs[i];
        const gm_param *p = param ? gm_run_param(run, param) : NULL;
        if (strcmp(run->experiment, exp) == 0 && strcmp(run->variant, variant) == 0 &&
            (!param || (p && p->value.kind == GM_V_INT && p->value.i == value)))
            return run;
    }
    cr_assert_fail("no run %s/%s in the fixture", exp, variant);
    return NULL;
}

static const gm_metric *S_pmetric(const gm_run *run, const char *name)
{
    const gm_metric *m = gm_prediction_metric(&run->prediction, name);
    cr_assert_not_null(m, "%s/%s: no predicted %s", run->experiment, run->variant, name);
    return m;
}

/* ---- the fixture is what the model makes ------------------------------------ */

Test(report_predicted, fixture_is_canonical)
{
    char *path = gmt_fixture("handwritten-predicted.json");
    char *text = gmt_slurp(path);
    cr_assert_not_null(text, "%s missing: python3 tests/fixtures/gen-fixtures.py", path);
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_file(path, &r, &e), GM_OK, "%s", e.message);
    char *json = gm_results_to_json(&r);
    cr_assert(strcmp(json, text) == 0, "a read and write of %s changes it", path);
    free(json);
    free(text);
    free(path);
    gm_results_free(&r);
}

/* A prediction from the model itself: a warp of global loads and stores and
 * of shared loads and stores, `traced` of `total` warps declared. */
static void S_model(gm_prediction *p, long long total, long long traced)
{
    gm_trace *t = gm_trace_new();
    cr_assert_eq(gm_trace_access_affine(t, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, 0, 4, 0xffffffffu),
                 GM_OK);
    cr_assert_eq(gm_trace_access_affine(t, GM_SPACE_GLOBAL, GM_OP_STORE, 4, 0, 4, 0xffffffffu),
                 GM_OK);
    cr_assert_eq(gm_trace_access_affine(t, GM_SPACE_SHARED, GM_OP_LOAD, 4, 0, 4, 0xffffffffu),
                 GM_OK);
    cr_assert_eq(gm_trace_access_affine(t, GM_SPACE_SHARED, GM_OP_STORE, 4, 0, 4, 0xffffffffu),
                 GM_OK);
    cr_assert_eq(gm_trace_set_sampling(t, total, traced), GM_OK);
    gm_error e = {0};
    cr_assert_eq(gm_trace_predict(t, p, &e), GM_OK, "%s", e.message);
    gm_trace_free(t);
}

/* Same names, units and order of metrics as gm_trace_predict gives; the
 * model's notes where the fixture claims the model's words. */
Test(report_predicted, predictions_are_shaped_as_the_model_makes_them)
{
    gm_results r;
    gmt_load_fixture("handwritten-predicted.json", &r);
    size_t with = 0;
    for (size_t i = 0; i < r.n_runs; i++) {
        const gm_prediction *p = &r.runs[i].prediction;
        if (!p->present)
            continue;
        with++;
        gm_prediction m = {0};
        S_model(&m, p->warps_total, p->warps_traced);
        cr_assert_str_eq(p->method, m.method);
        cr_assert_eq(p->scaled, m.scaled, "run %zu", i);
        cr_assert_eq(p->n_metrics, m.n_metrics, "run %zu: %zu metrics, the model gives %zu", i,
                     p->n_metrics, m.n_metrics);
        for (size_t k = 0; k < m.n_metrics; k++) {
            cr_assert_str_eq(p->metrics[k].name, m.metrics[k].name, "run %zu metric %zu", i, k);
            cr_assert_str_eq(p->metrics[k].unit, m.metrics[k].unit, "%s", m.metrics[k].name);
            /* counts are integers, ratios reals (or absent), as the model writes them */
            if (m.metrics[k].value.kind == GM_V_INT)
                cr_assert_eq(p->metrics[k].value.kind, GM_V_INT, "%s", m.metrics[k].name);
        }
        /* the first notes and the sampling note in the model's words */
        cr_assert_geq(p->n_notes, 2);
        cr_assert_str_eq(p->notes[0], m.notes[0]);
        cr_assert_str_eq(p->notes[1], m.notes[1]);
        if (p->scaled)
            cr_assert_str_eq(p->notes[2], m.notes[2]);
        gm_trace_prediction_clear(&m);
    }
    cr_assert_eq(with, r.n_runs, "every run of the fixture carries a prediction");
    gm_results_free(&r);
}

/* The predicted figures are the model's for these access patterns. */
Test(report_predicted, predicted_figures_follow_the_model_rules)
{
    gm_results r;
    gmt_load_fixture("handwritten-predicted.json", &r);
    gm_access_counts c;
    gm_error e = {0};
    uint64_t addr[32];
    /* coalescing: lane i reads float i*stride */
    const long long strides[] = {1, 2, 4, 8, 32};
    for (size_t k = 0; k < 5; k++) {
        for (int i = 0; i < 32; i++)
            addr[i] = (uint64_t)(4 * i * strides[k]);
        cr_assert_eq(gm_access_analyze(GM_SPACE_GLOBAL, GM_OP_LOAD, 4, addr, 0xffffffffu, &c, &e),
                     GM_OK);
        const gm_run *run = S_run(&r, "coalescing", "stride", "stride", strides[k]);
        cr_assert_float_eq(gm_run_predicted_spr(run, false), (double)c.sectors, 1e-12,
                           "stride %lld", strides[k]);
    }
    /* float4: 16 bytes a lane */
    for (int i = 0; i < 32; i++)
        addr[i] = (uint64_t)(16 * i);
    cr_assert_eq(gm_access_analyze(GM_SPACE_GLOBAL, GM_OP_LOAD, 16, addr, 0xffffffffu, &c, &e),
                 GM_OK);
    cr_assert_float_eq(gm_run_predicted_spr(S_run(&r, "coalescing", "float4", NULL, 0), false),
                       (double)c.sectors, 1e-12);
    /* misaligned: 32 floats from offset floats */
    const long long offsets[] = {0, 1, 4, 8};
    for (size_t k = 0; k < 4; k++) {
        for (int i = 0; i < 32; i++)
            addr[i] = (uint64_t)(4 * (i + offsets[k]));
        cr_assert_eq(gm_access_analyze(GM_SPACE_GLOBAL, GM_OP_LOAD, 4, addr, 0xffffffffu, &c, &e),
                     GM_OK);
        const gm_run *run = S_run(&r, "misaligned", "offset", "offset", offsets[k]);
        cr_assert_float_eq(gm_run_predicted_spr(run, false), (double)c.sectors, 1e-12);
    }
    /* transpose: a column of a 32x32 float tile, or of a 32x33 one */
    for (int padded = 0; padded < 2; padded++) {
        for (int i = 0; i < 32; i++)
            addr[i] = (uint64_t)(4 * i * (padded ? 33 : 32));
        cr_assert_eq(gm_access_analyze(GM_SPACE_SHARED, GM_OP_LOAD, 4, addr, 0xffffffffu, &c, &e),
                     GM_OK);
        const gm_run *run = S_run(&r, "transpose", padded ? "tiled_padded" : "tiled", NULL, 0);
        cr_assert_float_eq(gm_run_predicted_shared_wpi(run, false), (double)c.wavefronts, 1e-12);
        cr_assert_eq(S_pmetric(run, GM_M_SH_LD_CONFL)->value.i,
                     S_pmetric(run, GM_M_SH_LD_WAVES)->value.i -
                         S_pmetric(run, GM_M_SH_LD_INST)->value.i,
                     "conflicts = wavefronts - ideal (one per instruction)");
        cr_assert(!run->prediction.scaled, "the transpose is traced whole");
    }
    gm_results_free(&r);
}

/* ---- the report shows them ---------------------------------------------------- */

Test(report_predicted, table_beside_the_measurement)
{
    gm_results r;
    gmt_load_fixture("handwritten-predicted.json", &r);
    char *md = S_markdown(&r, NULL);
    static const char head[] = "The address-trace model (docs/model.md) replays each warp's";
    cr_assert_eq(gmt_occurrences(md, head), 4, "one paragraph per experiment with predictions");

    /* every run exact: said in one sentence, no table */
    char *sec = S_section(md, "## 1. ");
    gmt_assert_has(sec, "For all 6 runs with a prediction, its sectors, requests and shared-memory "
                        "wavefronts equal the counters exactly.");
    gmt_assert_lacks(sec, "| Warps traced |");
    free(sec);

    /* shared memory: traced whole, within 2%: counted, not tabled */
    sec = S_section(md, "## 3. ");
    gmt_assert_has(sec, "For all 2 runs with a prediction, its sectors, requests and shared-memory "
                        "wavefronts agree with the counters within 2.0%.");
    gmt_assert_lacks(sec, "| Warps traced |");
    /* the model's ideal is its wavefronts less its conflicts: 1, so the
     * 32-way conflict it predicts is still called one */
    gmt_assert_has(sec, "each shared load instruction takes 32.00 wavefronts (a 32-way bank "
                        "conflict)");
    gmt_assert_has(sec, "predicts the same sectors per request and wavefronts per instruction for "
                        "every run described");
    free(sec);

    /* the run that disagrees: tabled, its cell, the sentence, the finding */
    sec = S_section(md, "## 4. ");
    gmt_assert_has(sec, "| Variant | Warps traced | ld sectors/req | st sectors/req | Model against "
                        "counters |");
    gmt_assert_has(sec, "| `random` | 4,096 of 524,288 | 19.4 / 17.9 | 4.0 / 4.0 | "
                        "**differs** by more than 5.0% (see the findings) |");
    gmt_assert_has(sec, "each warp load request touches 19.4 sectors (620 B), where the "
                        "address-trace model predicts 17.9,");
    gmt_assert_has(sec, "(model-mismatch): `random`: the counters and the address-trace model "
                        "differ by more than 5.0%: ld sectors 20,313,539 measured against "
                        "18,808,832 predicted (+8.0%)");
    free(sec);
    free(md);
    gm_results_free(&r);
}

/* Change a prediction and the cell, the sentence and the verdict change. */
Test(report_predicted, table_follows_the_prediction)
{
    gm_results r;
    gmt_load_fixture("handwritten-predicted.json", &r);
    gm_run *run = S_run(&r, "misaligned", "offset", "offset", 1);
    char *md = S_markdown(&r, NULL);
    char *sec = S_section(md, "## 2. ");
    /* exact: counted, not tabled */
    gmt_assert_lacks(sec, "| `offset` | offset=1 | 4,096 of 524,288 |");
    free(sec);
    free(md);

    /* the model now says 4 sectors a request (2,097,152 for 524,288 requests) */
    gm_metric *m = (gm_metric *)S_pmetric(run, GM_M_LD_SECTORS);
    m->value.i = 2097152;
    md = S_markdown(&r, NULL);
    sec = S_section(md, "## 2. ");
    gmt_assert_has(sec, "| `offset` | offset=1 | 4,096 of 524,288 | 5.0 / 4.0 |");
    gmt_assert_has(sec, "touches 5.0 sectors (160 B), where the address-trace model predicts 4.0,");
    gmt_assert_has(sec, "**differs** by more than 5.0%");
    free(sec);
    free(md);
    gm_results_free(&r);
}

Test(report_predicted, chart_of_measured_bars_and_predicted_markers)
{
    gm_results r;
    gmt_load_fixture("handwritten-predicted.json", &r);
    gm_sections ss;
    gm_sections_build(&r, &ss);
    gm_charts c;
    gm_charts_plan(&r, &ss, &c);
    size_t n = 0;
    const gm_chart *miss = NULL;
    for (size_t i = 0; i < c.n; i++) {
        if (!strstr(c.v[i].title, "measured vs predicted"))
            continue;
        n++;
        miss = &c.v[i];
        cr_assert_eq(gmt_occurrences(c.v[i].script, "title 'predicted (address-trace model)'"), 1);
        gmt_assert_has(c.v[i].script, "with points pt 9");
    }
    /* only where the model misses by more than 1%: the random gather (19.4
     * measured, 17.9 predicted); where it agrees, the bars would repeat the
     * chart of measured values */
    cr_assert_eq(n, 1, "one chart: the experiment the model misses");
    cr_assert_not_null(miss);
    cr_assert_eq(miss->section, 3);
    /* one unit on the axis: the ld sectors per request it misses */
    gmt_assert_has(miss->script, "set ylabel 'sectors/request' noenhanced");
    gm_charts_free(&c);

    /* no prediction, no such chart */
    for (size_t i = 0; i < r.n_runs; i++)
        r.runs[i].prediction.present = false;
    gm_charts_plan(&r, &ss, &c);
    for (size_t i = 0; i < c.n; i++)
        gmt_assert_lacks(c.v[i].title, "predicted");
    gm_charts_free(&c);
    gm_sections_free(&ss);
    char *md = S_markdown(&r, NULL);
    gmt_assert_lacks(md, "Measured beside predicted");
    free(md);
    gm_results_free(&r);
}

/* ---- changes since a baseline --------------------------------------------------- */

static void S_diff(const char *base_name, const char *head_name, gm_results *base,
                   gm_results *head, gm_diff *d)
{
    gmt_load_fixture(base_name, base);
    gmt_load_fixture(head_name, head);
    gm_error e = {0};
    gm_diff_options o = {.base_name = base_name, .head_name = head_name};
    cr_assert_eq(gm_diff_compute(base, head, &o, d, &e), GM_OK, "%s", e.message);
}

Test(report_baseline, changes_section_after_the_findings)
{
    gm_results base, head;
    gm_diff d;
    S_diff("diff-base.json", "diff-head.json", &base, &head, &d);
    char *md = S_markdown(&head, &d);
    const char *findings = strstr(md, "## Findings\n"), *ch = strstr(md, "## Changes since ");
    const char *first = strstr(md, "## 1. ");
    cr_assert(findings && ch && first && findings < ch && ch < first);
    /* the base's commit, 12 characters, as a code span */
    gmt_assert_has(ch, "## Changes since `4f7c2a9e1b3d`\n");
    /* the same verdict as `gpumem-report diff` */
    char *v = gm_diff_verdict(&d);
    gm_buf want = GM_BUF_INIT;
    gm_buf_printf(&want, "**%s**.", v);
    gmt_assert_has(ch, want.data);
    gm_buf_free(&want);
    free(v);
    /* the rows that changed, and only those (less the rates another row
     * repeats), with the time of their runs: one verdict per layout */
    size_t changed = 0;
    for (size_t i = 0; i < d.n_rows; i++) {
        const gm_diff_row *r = &d.rows[i];
        bool moved = r->status != GM_DIFF_UNCHANGED && r->status != GM_DIFF_NOISE &&
                     !gm_diff_row_repeats(&d, r);
        bool time_of = false;
        for (size_t k = 0; k < d.n_rows && !moved && !time_of && r->role == GM_DIFF_ROLE_TIME &&
                           r->metric; k++) {
            const gm_diff_row *o = &d.rows[k];
            time_of = k != i && o->base == r->base && o->head == r->head &&
                      o->status != GM_DIFF_UNCHANGED && o->status != GM_DIFF_NOISE &&
                      !gm_diff_row_repeats(&d, o);
        }
        changed += moved || time_of;
    }
    char *sec = S_section(md, "## Changes since ");
    size_t rows = 0;
    for (const char *p = strstr(sec, "\n| "); p; p = strstr(p + 1, "\n| "))
        rows += strncmp(p, "\n| Change ", 10) != 0 && strncmp(p, "\n| |", 4) != 0 &&
                strncmp(p, "\n| Commit", 9) != 0 && strncmp(p, "\n| File", 7) != 0 &&
                strncmp(p, "\n| GPU", 6) != 0 && strncmp(p, "\n| Driver", 9) != 0 &&
                strncmp(p, "\n| Collection", 13) != 0 && strncmp(p, "\n| Runs", 7) != 0;
    cr_assert_eq(rows, changed, "%zu table rows, %zu rows that changed:\n%s", rows, changed, sec);
    gmt_assert_has(sec, "**regressed** `coalescing` `stride`: ");
    gmt_assert_has(sec, "| **regressed** | `n=4194304, stride=2` | time (median) |");
    gmt_assert_has(sec, "unchanged, 1 within noise (`gpumem-report diff --all` lists them all)");
    gmt_assert_lacks(sec, "--only-changed");
    gmt_assert_lacks(sec, "### gpumem-report diff");
    free(sec);
    free(md);

    /* without a baseline, no such section */
    md = S_markdown(&head, NULL);
    gmt_assert_lacks(md, "Changes since");
    free(md);
    gm_diff_free(&d);
    gm_results_free(&base);
    gm_results_free(&head);
}

Test(report_baseline, incomparable_runs_are_flagged_as_diff_flags_them)
{
    gm_results base, head;
    gm_diff d;
    S_diff("diff-base.json", "diff-head-othergpu.json", &base, &head, &d);
    cr_assert(!d.comparable);
    char *md = S_markdown(&head, &d);
    char *sec = S_section(md, "## Changes since ");
    gmt_assert_has(sec, "**not judged (collected differently); ");
    gmt_assert_has(sec, "> **Incomparable: base and head were collected differently.**");
    gmt_assert_has(sec, "`gpumem-report diff --force` judges them anyway");
    gmt_assert_has(sec, "> - GPU: 'NVIDIA H100 80GB HBM3' vs 'NVIDIA A100-SXM4-80GB'");
    cr_assert_eq(gmt_occurrences(sec, "| incomparable"), d.counts[GM_DIFF_INCOMPARABLE]);
    cr_assert_gt(d.counts[GM_DIFF_INCOMPARABLE], 0);
    free(sec);
    free(md);
    gm_diff_free(&d);
    gm_results_free(&base);
    gm_results_free(&head);
}

/* ---- the command line ------------------------------------------------------------ */

/* gpumem-report render HEAD --out OUT [--baseline BASE] [extra...]; stderr in *err. */
static int S_render(const char *head, const char *out, const char *base,
                    const char *const *extra, char **err)
{
    char *argv[10];
    int a = 0;
    argv[a++] = (char *)gmt_bin();
    argv[a++] = "render";
    argv[a++] = (char *)head;
    argv[a++] = "--out";
    argv[a++] = (char *)out;
    if (base) {
        argv[a++] = "--baseline";
        argv[a++] = (char *)base;
    }
    for (size_t i = 0; extra && extra[i] && a < 9; i++)
        argv[a++] = (char *)extra[i];
    argv[a] = NULL;
    return gmt_run(argv, NULL, NULL, err);
}

Test(report_cli, baseline_adds_the_section_to_html_and_markdown)
{
    char dir[] = "/tmp/gm-report-test-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char *tdir = gmt_src("templates");
    setenv("GM_TEMPLATE_DIR", tdir, 1);
    char *head = gmt_fixture("diff-head.json"), *base = gmt_fixture("diff-base.json");
    gm_buf html = GM_BUF_INIT, md = GM_BUF_INIT, charts = GM_BUF_INIT;
    gm_buf_printf(&html, "%s/r.html", dir);
    gm_buf_printf(&md, "%s/r.md", dir);
    gm_buf_printf(&charts, "%s/r.charts", dir);
    char *err = NULL;
    int rc = S_render(head, html.data, base, NULL, &err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    free(err);
    char *page = gmt_slurp(html.data);
    gmt_assert_has(page, "<h2 id=\"changes-since-4f7c2a9e1b3d\">Changes since <code>4f7c2a9e1b3d</code></h2>");
    gmt_assert_has(page, "<td><strong>regressed</strong></td>");
    gmt_assert_lacks(page, "\n|---");
    cr_assert_eq(S_render(head, md.data, base, NULL, NULL), 0);
    char *text = gmt_slurp(md.data);
    gmt_assert_has(text, "## Changes since `4f7c2a9e1b3d`");
    free(text);
    free(page);
    /* clean up: two reports and the Markdown's chart directory */
    unlink(html.data);
    unlink(md.data);
    for (int i = 1; i <= 40; i++) {
        gm_buf f = GM_BUF_INIT;
        gm_buf_printf(&f, "%s/chart-%02d.svg", charts.data, i);
        unlink(f.data);
        gm_buf_free(&f);
    }
    rmdir(charts.data);
    cr_assert_eq(rmdir(dir), 0, "the test left files in %s", dir);
    gm_buf_free(&html);
    gm_buf_free(&md);
    gm_buf_free(&charts);
    free(head);
    free(base);
    free(tdir);
}

/* A baseline that cannot be used: exit 2 with the reader's message, nothing
 * written, and before any chart is drawn (a gnuplot that does not exist is
 * never reached). */
Test(report_cli, unusable_baseline_fails_before_any_work)
{
    char dir[] = "/tmp/gm-report-test-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char *head = gmt_fixture("diff-head.json");
    char *malformed = gmt_fixture("diff-malformed.json"), *dup = gmt_fixture("diff-duplicate.json");
    gm_buf out = GM_BUF_INIT, missing = GM_BUF_INIT;
    gm_buf_printf(&out, "%s/r.md", dir);
    gm_buf_printf(&missing, "%s/nope.json", dir);
    const struct {
        const char *base, *says;
    } cases[] = {
        {missing.data, "nope.json"},
        {malformed, "diff-malformed.json:"},
        {dup, "cannot pair them"},
    };
    static const char *const no_gnuplot[] = {"--gnuplot", "/nonexistent/gnuplot", NULL};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err = NULL;
        int rc = S_render(head, out.data, cases[i].base, no_gnuplot, &err);
        cr_assert_eq(rc, 2, "%s: exit %d", cases[i].base, rc);
        gmt_assert_has(err, "render: --baseline: ");
        gmt_assert_has(err, cases[i].says);
        gmt_assert_lacks(err, "gnuplot");
        cr_assert(!gmt_exists(out.data), "%s: a report was written", cases[i].base);
        free(err);
    }
    cr_assert_eq(rmdir(dir), 0, "the test left files in %s", dir);
    gm_buf_free(&out);
    gm_buf_free(&missing);
    free(head);
    free(malformed);
    free(dup);
}

Test(report_cli, help_names_the_baseline_option)
{
    char *argv[] = {(char *)gmt_bin(), "render", "--help", NULL};
    char *help = NULL;
    cr_assert_eq(gmt_run(argv, NULL, &help, NULL), 0);
    gmt_assert_has(help, "--baseline BASE.json");
    gmt_assert_has(help, "Changes since");
    free(help);
}
