/* test_examples.c — the committed GPU runs render as a user would see them.
 *
 * CI has no GPU, so this is the CPU side of the main job tested on every
 * change: examples/h100/run.json (the whole suite) and examples/app/run.json
 * (a program profiled through the injection library, on an H200) are real
 * measurements;
 * rendering them must keep working, name every experiment, inline every chart
 * and reach for nothing outside the page. */
#include "../core/escape.h"
#include "../core/results.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Render examples/<dir>/run.json to a temporary HTML file and return the page. */
static char *S_render_example(const char *dir, gm_results *r)
{
    char *rel = gmt_join(dir, "run.json");
    char *json = gmt_src(rel);
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_results_read_file(json, r, &err), GM_OK, "%s", err.message);
    char *t = gmt_tmpdir("examples");
    char *out = gmt_join(t, "report.html");
    char *argv[] = {(char *)gmt_bin(), "render", json, "--out", out, NULL};
    char *msg = NULL;
    int rc = gmt_run(argv, NULL, NULL, &msg);
    cr_assert_eq(rc, 0, "render %s: exit %d: %s", json, rc, msg);
    char *page = gmt_text(out);
    gmt_rmrf(t);
    free(msg);
    free(out);
    free(t);
    free(json);
    free(rel);
    return page;
}

/* Nothing outside the page: no script, no link or source of any kind. */
static void S_self_contained(const char *page)
{
    gmt_assert_lacks(page, "<script");
    gmt_assert_lacks(page, "http://");
    gmt_assert_lacks(page, "https://");
    gmt_assert_lacks(page, " src=");
    gmt_assert_lacks(page, "@import");
    gmt_assert_lacks(page, "<link");
}

Test(examples, h100_suite_renders_whole)
{
    gm_results r;
    char *page = S_render_example("examples/h100", &r);

    cr_assert_str_eq(r.origin, "measured");
    cr_assert_not_null(r.commit, "the example must name the commit that took it");
    cr_assert_not_null(strstr(r.device.name, "H100"), "%s", r.device.name);
    cr_assert_geq(r.n_experiments, 14, "every experiment of the suite: %zu", r.n_experiments);

    /* every experiment has its section, by title */
    for (size_t i = 0; i < r.n_experiments; i++) {
        gm_buf b = GM_BUF_INIT;
        gm_esc_html(&b, r.experiments[i].title);
        cr_assert_not_null(strstr(page, b.data), "no section for %s", r.experiments[i].id);
        gm_buf_free(&b);
    }
    /* every run passed or was honestly not run; none failed */
    size_t passed = 0;
    for (size_t i = 0; i < r.n_runs; i++) {
        gm_check_status s = r.runs[i].check.status;
        cr_assert(s == GM_CHECK_PASSED || s == GM_CHECK_NOT_RUN, "%s/%s: %s",
                  r.runs[i].experiment, r.runs[i].variant, gm_check_status_name(s));
        passed += s == GM_CHECK_PASSED;
    }
    cr_assert_gt(passed, 200);

    /* charts inline, with ids unique to each chart */
    size_t svgs = gmt_occurrences(page, "<svg");
    cr_assert_geq(svgs, 2 * r.n_experiments, "%zu charts for %zu experiments", svgs,
                  r.n_experiments);
    cr_assert_eq(gmt_occurrences(page, "id=\"gnuplot_canvas\""), 0,
                 "gnuplot's ids must be made unique per chart");
    S_self_contained(page);
    gmt_assert_has(page, "<table");
    gmt_assert_has(page, "Headlines");
    gmt_assert_has(page, "How these numbers were obtained");
    free(page);
    gm_results_free(&r);
}

Test(examples, app_profile_renders)
{
    gm_results r;
    char *page = S_render_example("examples/app", &r);
    cr_assert_str_eq(r.origin, "measured");
    cr_assert_gt(r.n_runs, 0);
    cr_assert_gt(gmt_occurrences(page, "<svg"), 0);
    S_self_contained(page);
    free(page);
    gm_results_free(&r);
}

/* A program's notes go kernel by kernel: what every kernel shares once, then
 * one line per kernel with its launches and its NVTX range, in the table's
 * order (examples/pytorch/run.json: the PyTorch program on an H200). */
Test(examples, pytorch_notes_kernel_by_kernel)
{
    gm_results r;
    char *page = S_render_example("examples/pytorch", &r);
    S_self_contained(page);
    cr_assert_eq(gmt_occurrences(page, "<li>every kernel: profiled inside the program"), 1);
    const char *add = strstr(page, "<li><code>add-transposed</code>: 9 launches (launches 3, 9, ");
    const char *copy = strstr(page, "<li><code>copy-transposed</code>: 9 launches (launches 4, 10, ");
    cr_assert(add && copy && add < copy, "one line per kernel, in the table's order");
    const char *eol = strstr(add, "</li>");
    cr_assert(eol && strstr(add, "; NVTX range: add-transposed") < eol);
    gmt_assert_lacks(page, "the others with their own figures");
    /* nine columns in the first table; shared memory in a fold of its own */
    const char *t1 = strstr(page, "<th>Variant</th>");
    cr_assert_not_null(t1);
    const char *t1_end = strstr(t1, "</table>");
    cr_assert_not_null(t1_end);
    size_t cols = 0;
    for (const char *c = t1; (c = strstr(c, "<th")) && c < t1_end; c++)
        cols += strncmp(c, "<thead", 6) != 0;
    cr_assert_eq(cols, 9, "%zu columns in the first table", cols);
    const char *fold = strstr(page, "<summary>Shared memory of each kernel: wavefronts and bank "
                                    "conflicts</summary>");
    cr_assert(fold && fold > t1_end);
    free(page);
    gm_results_free(&r);
}

/* Two ranks of an NCCL all-reduce under torchrun, merged (examples/ddp: H200,
 * a recorded run): the collectives were never replayed, and the top of the
 * report names them, each rank's, with their share of the GPU time. */
Test(examples, ddp_names_the_collectives_at_the_top)
{
    gm_results r;
    char *page = S_render_example("examples/ddp", &r);
    S_self_contained(page);
    cr_assert_str_eq(r.origin, "measured");
    cr_assert_not_null(r.commit);
    cr_assert_eq(r.collection.n_ranks, 2);
    size_t nccl = 0, timed = 0;
    for (size_t i = 0; i < r.n_runs; i++) {
        const gm_run *run = &r.runs[i];
        if (!run->not_replayed)
            continue;
        timed++;
        cr_assert(!gm_value_present(&gm_run_metric(run, "dram__bytes_read.sum")->value),
                  "no counter of a launch not replayed");
        if (run->kernel && strstr(run->kernel, "ncclDevKernel_AllReduce")) {
            nccl++;
            cr_assert_eq(run->timing.n, 3, "three all-reduces per rank");
        }
    }
    cr_assert_eq(nccl, 2, "one row of all-reduces per rank");
    cr_assert_eq(timed, 10);
    const char *top = strstr(page, "<strong>Not fully counted: 10 kernels, 100.0% of the GPU "
                                   "time.</strong>");
    cr_assert_not_null(top, "the line at the top");
    cr_assert(top < strstr(page, "id=\"summary\""), "before the summary");
    cr_assert(strstr(top, "An NCCL collective: <code>ncclAllReduce</code> on rank 0 (9.9%) and "
                          "<code>ncclAllReduce</code> on rank 1 (9.9%)."),
              "the collectives named, each rank's");
    free(page);
    gm_results_free(&r);
}
