/* test_report_limits.c — what limits each layout, on the committed H100 run
 * (tests/fixtures/h100-suite-320eb68.json, the examples/h100 run of
 * 2026-11-25, whose figures these tests name), as issue 28 asked: each section follows its
 * layouts down the memory hierarchy and names what limits each; headlines
 * name the counter that limits the time when the contrast's own does not;
 * the summary, the headlines and the claims quote one number per contrast;
 * no "% of attainable" exceeds 100; the sources are numbered references;
 * the GitHub form of the whole suite comes in comment-sized parts.  The page
 * on paper is tests/test_render_print.c's. */
#include "../core/buf.h"
#include "../core/results.h"
#include "../core/say.h"
#include "../reports/limits.h"
#include "../reports/render.h"
#include "../reports/runs.h"
#include "../reports/sources.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void S_load(gm_results *r)
{
    char *p = gmt_fixture("h100-suite-320eb68.json");
    gm_error e = {0};
    cr_assert_eq(gm_results_read_file(p, r, &e), GM_OK, "%s: %s", p, e.message);
    free(p);
}

/* The report in memory: the page's Markdown (html), the Markdown file's
 * (charts linked from report.charts, none drawn), or the GitHub form. */
typedef enum { S_PAGE, S_MD, S_GFM } S_form;

static char *S_report(const gm_results *r, S_form form)
{
    gm_report_opts ro = {.github = form == S_GFM};
    return gm_render_markdown(r, NULL, form == S_MD ? "report.charts" : NULL, &ro);
}

/* The text from the heading line that starts with `heading` to the next
 * second-level heading (a copy; caller frees). */
static char *S_section(const char *md, const char *heading)
{
    const char *p = strstr(md, heading);
    cr_assert_not_null(p, "no %s", heading);
    const char *e = strstr(p + 1, "\n## ");
    return strndup(p, e ? (size_t)(e - p) : strlen(p));
}

/* The line that starts with `prefix` (a copy; caller frees). */
static char *S_line(const char *text, const char *prefix)
{
    const char *p = strstr(text, prefix);
    cr_assert_not_null(p, "no line starting %s", prefix);
    const char *e = strchr(p, '\n');
    return strndup(p, e ? (size_t)(e - p) : strlen(p));
}

Test(report_limits, each_section_follows_its_layouts_down_the_hierarchy)
{
    gm_results r;
    S_load(&r);
    char *md = S_report(&r, S_PAGE);
    cr_assert_eq(gmt_occurrences(md, "**Where the bytes go and what limits it**"), 14,
                 "one view per experiment");
    char *mv = S_section(md, "## 7. Matrix-vector product");
    gmt_assert_has(mv, "| Layout | Requests | → L1 sectors | → L2 | → DRAM bytes | DRAM bandwidth "
                       "(% of attainable) | Occupancy |");
    /* the L1 hit rates that explain the matrix-vector surprise, in the table */
    gmt_assert_has(mv, "| `thread_rowmajor` | 4,194,560 | 69,207,040 (87.7% hit) | 34.3% hit | "
                       "256 MiB |");
    gmt_assert_has(mv, "| `thread_colmajor` | 4,194,560 | 10,486,784 (18.7% hit) | 1.3% hit | ");
    /* and a verdict per layout */
    gmt_assert_has(mv, "- `thread_rowmajor`: latency-bound: 3.1% occupancy, too few warps to hide "
                       "the memory latency (the launch has 256 warps for 132 SMs); L1 serves 87.7% "
                       "of its sectors: the extra sectors never reach DRAM.");
    gmt_assert_has(mv, "- `warp_rowmajor_vec4`: DRAM-bound at 89.7% of attainable.");
    free(mv);
    char *tr = S_section(md, "## 9. Matrix transpose");
    gmt_assert_has(tr, "- `tiled`: bank conflicts: 16.74 shared wavefronts per instruction");
    free(tr);
    /* the DP question's point was timed only: the largest point profiled */
    char *dp = S_section(md, "## 14. Chained matrix multiplication");
    gmt_assert_has(dp, "**Where the bytes go and what limits it** at n=256, the largest point "
                       "profiled (n=1024 was timed but not profiled)");
    /* the host version has no memory hierarchy to follow */
    const char *v = strstr(dp, "**Where the bytes go");
    char *view = strndup(v, (size_t)(strstr(v, "(docs/model.md)") - v));
    gmt_assert_lacks(view, "`cpu_serial`");
    free(view);
    free(dp);
    free(md);
    /* the Markdown file, brief: the verdict is the table's last column */
    md = S_report(&r, S_MD);
    mv = S_section(md, "## 7. Matrix-vector product");
    gmt_assert_has(mv, "| 3.1% | latency (3.1% occupancy); L1 serves 87.7% |");
    gmt_assert_lacks(mv, "- `thread_rowmajor`: latency-bound");
    free(mv);
    free(md);
    gm_results_free(&r);
}

Test(report_limits, verdicts_read_the_counters)
{
    gm_results r;
    S_load(&r);
    gm_ceiling c;
    gm_results_ceiling(&r, &c);
    size_t dram = 0, latency = 0, shared = 0, sectors = 0, profiled = 0;
    for (size_t i = 0; i < r.n_runs; i++) {
        gm_limits l;
        gm_limits_of(&r.runs[i], &c, r.device.sm_count, &l);
        cr_assert(!(l.dram_pct > 100), "DRAM above the ceiling: %g", l.dram_pct);
        profiled += l.kind != GM_LIMIT_UNPROFILED;
        dram += l.kind == GM_LIMIT_DRAM;
        latency += l.kind == GM_LIMIT_LATENCY;
        shared += l.kind == GM_LIMIT_SHARED;
        sectors += l.kind == GM_LIMIT_SECTORS;
        if (l.kind == GM_LIMIT_DRAM)
            cr_assert_geq(l.dram_pct, GM_LIMIT_DRAM_PCT);
        if (l.kind == GM_LIMIT_LATENCY)
            cr_assert_lt(l.occupancy, GM_LIMIT_OCCUPANCY);
    }
    cr_assert_gt(profiled, 150);
    cr_assert(dram && latency && shared && sectors, "%zu %zu %zu %zu", dram, latency, shared,
              sectors);
    /* a run timed only says why, with the option that would profile it */
    for (size_t i = 0; i < r.n_runs; i++) {
        const gm_run *run = &r.runs[i];
        if (run->n_metrics || !gm_limits_unprofiled_note(run))
            continue;
        gm_limits l;
        gm_limits_of(run, &c, r.device.sm_count, &l);
        gm_buf b = GM_BUF_INIT;
        gm_limits_verdict_md(&b, run, &l, NULL);
        gmt_assert_has(b.data, "timed but not profiled: one launch takes ");
        gmt_assert_has(b.data, "`--profile-max-ms`");
        gm_buf_free(&b);
    }
    gm_results_free(&r);
}

Test(report_limits, headlines_name_the_counter_that_limits_the_time)
{
    gm_results r;
    S_load(&r);
    char *md = S_report(&r, S_PAGE);
    gmt_assert_lacks(md, "not that counter");
    gmt_assert_lacks(md, "something else");
    char *h = S_line(md, "7. **Matrix-vector product");
    gmt_assert_has(h, "what limits the time is L1's hit rate");
    gmt_assert_has(h, "L1 serves 87.7% of `thread_rowmajor`'s sectors against 18.7% of "
                      "`thread_colmajor`'s");
    free(h);
    h = S_line(md, "13. **Texture path");
    gmt_assert_has(h, "L1 serves 69.3% of `global`'s sectors");
    gmt_assert_has(h, "both are DRAM-bound");
    free(h);
    h = S_line(md, "14. **Chained matrix multiplication");
    gmt_assert_has(h, "`--profile-max-ms`");
    gmt_assert_has(h, "At n=256, the largest point profiled,");
    free(h);
    /* the time grows less than the counter: what it follows instead */
    h = S_line(md, "3. **Array of structures");
    gmt_assert_has(h, "the time follows the DRAM bytes (1.65×)");
    free(h);
    free(md);
    gm_results_free(&r);
}

Test(report_limits, one_number_per_contrast)
{
    gm_results r;
    S_load(&r);
    char *md = S_report(&r, S_PAGE);
    char *claims = S_section(md, "## Claims checked on this GPU");
    /* JDS: the summary, the headline and the claim quote the pair at rows=4194304 */
    char *row = S_line(md, "| [11. Sparse matrix-vector product");
    gmt_assert_has(row, "| 1.19× (495.6 µs vs 415.4 µs) |");
    free(row);
    row = S_line(claims, "| Sorting rows into jagged diagonals");
    gmt_assert_has(row, "| 1.19× at rows=4194304, the summary's pair (0.87× at rows=1048576) |");
    free(row);
    /* RGB: the lab's sizes give another figure, and the row says where the summary's is */
    row = S_line(claims, "| Inverting the red channel of a planar image");
    gmt_assert_has(row, "1.03× (median of 9; 1.00×–1.09×); the summary's 1.26× is at scale=64, "
                        "block=256, outside the sizes the claim names");
    free(row);
    /* DP: a claim about every size keeps its median and names the summary's pair */
    row = S_line(claims, "| Storing the dynamic-programming table by diagonals");
    gmt_assert_has(row, "the summary's 1.12× is at n=1024, one of these points");
    free(row);
    free(claims);
    free(md);
    gm_results_free(&r);
}

Test(report_limits, attainable_is_the_best_measured)
{
    gm_results r;
    S_load(&r);
    gm_ceiling c;
    gm_results_ceiling(&r, &c);
    cr_assert_not_null(c.raised_by, "a run beat the startup kernels");
    cr_assert_gt(c.gbs, c.startup_gbs);
    for (size_t i = 0; i < r.n_runs; i++) {
        if (!gm_run_passed(&r.runs[i]))
            continue;
        cr_assert(!(gm_run_effective_gbs(&r.runs[i]) > c.gbs));
    }
    char *md = S_report(&r, S_PAGE);
    char *head = S_line(md, "| Attainable bandwidth |");
    gmt_assert_has(head, "3,076 GB/s, the best measured: `stride` of `coalescing` "
                         "(n=33554432, stride=8)");
    gmt_assert_has(head, "above the 2,959 GB/s of the plain copy and read kernels");
    free(head);
    /* no percentage of attainable over 100 anywhere in the tables */
    for (const char *p = md; (p = strstr(p, "% |")) != NULL; p++) {
        const char *s = p;
        while (s > md && ((s[-1] >= '0' && s[-1] <= '9') || s[-1] == '.' || s[-1] == ','))
            s--;
        double v = strtod(s, NULL);
        cr_assert_leq(v, 100.0, "a percentage over 100: %.40s", s);
    }
    free(md);
    gm_results_free(&r);
}

Test(report_limits, sources_are_numbered_references)
{
    gm_results r;
    S_load(&r);
    char *md = S_report(&r, S_PAGE);
    gmt_assert_lacks(md, "untitled article");
    gmt_assert_lacks(md, "untitled notes");
    char *claims = S_section(md, "## Claims checked on this GPU");
    gmt_assert_lacks(claims, "Hardware: not stated.");   /* the references say it once */
    free(claims);
    char *refs = S_section(md, "## References");
    for (size_t i = 0; i < gm_sources_len; i++) {
        gm_buf n = GM_BUF_INIT;
        gm_buf_printf(&n, "\n%d. ", gm_sources[i].number);
        gmt_assert_has(refs, n.data);
        gm_buf_free(&n);
    }
    gmt_assert_has(refs, "Hardware: an NVIDIA Tesla V100");
    gmt_assert_has(refs, "A lab report by T. Beck and W. Paesschesoone");
    free(refs);
    /* the claims cite them: a table per document, headed by its reference */
    gmt_assert_has(md, "### \\[3\\] Optimizing Memory Access Efficiency in CUDA Kernel via Data "
                       "Layout Technique (paper)");
    gmt_assert_has(md, "it tests Memory coalescing (article) [\\[1\\]](#references)");
    free(md);
    /* names in older results files are cited too */
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "");
    gm_sources_cite_text_md(&b, "001, 004 (tiles); seed 002");
    cr_assert_str_eq(b.data, "Cache lines, sectors and coalescing (notes) [\\[2\\]](#references), "
                             "“Part 17: Memory Hierarchy” (course module) [\\[5\\]](#references) "
                             "(tiles); “Optimizing Memory Access Efficiency in CUDA Kernel via "
                             "Data Layout Technique” (paper) [\\[3\\]](#references)");
    gm_buf_free(&b);
    gm_results_free(&r);
}

/* Characters of UTF-8 text. */
static size_t S_chars(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

Test(report_limits, github_form_comes_in_parts_that_fit_a_comment)
{
    gm_results r;
    S_load(&r);
    char *md = S_report(&r, S_GFM);
    static const char mark[] = "<!-- gpumem-report part ";
    size_t parts = gmt_occurrences(md, mark);
    cr_assert_geq(parts, 2, "the whole suite is over 65,536 characters");
    cr_assert(strncmp(md, "<!-- gpumem-report part 1 of ", strlen(mark) + 5) == 0, "%.60s", md);
    gmt_assert_has(md, "characters GitHub takes in one comment, so it comes in ");
    for (const char *p = md; p;) {
        const char *next = strstr(p + 1, mark);
        size_t len = next ? (size_t)(next - p) : strlen(p);
        cr_assert_lt(S_chars(p, len), 65536, "a part of %zu characters", S_chars(p, len));
        p = next;
    }
    /* every section is in some part, whole */
    cr_assert_eq(gmt_occurrences(md, "\n## "), 20, "contents, summary, claims, findings, 14 "
                                                  "sections, method, references");
    free(md);
    /* one experiment fits one comment: no parts */
    gm_results one;
    gm_error e = {0};
    cr_assert_eq(gm_results_only(&r, "dp", &one, &e), GM_OK);
    md = S_report(&one, S_GFM);
    gmt_assert_lacks(md, mark);
    free(md);
    gm_results_view_free(&one);
    gm_results_free(&r);
}

/* The theoretical occupancy beside the achieved one: a latency-bound layout
 * says whether its shape allows more warps (the grid keeps them few) or not
 * (registers, shared memory or the block size do), and the page's table puts
 * the two side by side; a file without it (the fixture) reads as before. */
Test(report_limits, theoretical_occupancy_beside_the_achieved)
{
    gm_results r;
    S_load(&r);
    gm_ceiling c;
    gm_results_ceiling(&r, &c);
    gm_run *lat = NULL;
    for (size_t i = 0; i < r.n_runs && !lat; i++) {
        gm_limits l;
        gm_limits_of(&r.runs[i], &c, r.device.sm_count, &l);
        if (l.kind == GM_LIMIT_LATENCY && r.runs[i].has_launch &&
            strcmp(r.runs[i].experiment, "matvec") == 0)
            lat = &r.runs[i];
    }
    cr_assert_not_null(lat, "no latency-bound matvec run");
    gm_limits l;
    gm_limits_of(lat, &c, r.device.sm_count, &l);
    cr_assert(isnan(l.theoretical), "the fixture records no theoretical occupancy");
    gm_buf b = GM_BUF_INIT;
    gm_limits_verdict_md(&b, lat, &l, NULL);
    cr_assert_null(strstr(b.data, "allow"), "%s", b.data);
    gm_buf_free(&b);

    lat->launch.theoretical_occupancy = 100.0;
    gm_limits_of(lat, &c, r.device.sm_count, &l);
    cr_assert_float_eq(l.theoretical, 100.0, 1e-9);
    gm_limits_verdict_md(&b, lat, &l, NULL);
    gmt_assert_has(b.data, "latency-bound: ");
    gmt_assert_has(b.data, "; its block size, registers and shared memory would allow 100");
    gm_buf_free(&b);

    lat->launch.theoretical_occupancy = 18.75;
    gm_limits_of(lat, &c, r.device.sm_count, &l);
    gm_limits_verdict_md(&b, lat, &l, NULL);
    gmt_assert_has(b.data, "; its block size, registers and shared memory allow no more than 18");
    gm_buf_free(&b);

    /* the page's table: "achieved of theoretical" in the Occupancy column */
    for (size_t i = 0; i < r.n_runs; i++)
        if (r.runs[i].has_launch && strcmp(r.runs[i].experiment, "matvec") == 0)
            r.runs[i].launch.theoretical_occupancy = 18.75;
    char *page = S_report(&r, S_PAGE);
    char *sec = S_section(page, "## 7. Matrix-vector");
    gm_buf cell = GM_BUF_INIT;
    gm_say(&cell, "| {} of {} |", GM_PCT(l.occupancy), GM_PCT(18.75));
    gmt_assert_has(sec, cell.data);
    gm_buf_free(&cell);
    free(sec);
    free(page);
    gm_results_free(&r);
}
