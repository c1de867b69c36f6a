/* test_report_form.c — finding one's way in the report of the committed H100
 * run of 2026-11-25 (tests/fixtures/h100-suite-320eb68.json, once
 * examples/h100/run.json), rendered as a user renders it: every link of
 * the contents and the summary lands on a heading of the page, heading ids
 * are unique, every link of the Markdown lands on a heading, the Markdown is
 * the brief form of the page, --only keeps the chosen experiments alone, the
 * GitHub form of a single experiment leaves its charts out, and no chart
 * legend names a series that draws nothing.  The size budgets (page, Markdown,
 * GitHub form) are measured by bench/report-size.sh, whose output is
 * committed under bench/results/. */
#include "../core/buf.h"
#include "../core/fmt.h"
#include "../core/results.h"
#include "../reports/render.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Render the H100 fixture run with extra arguments to `name` in a fresh
 * directory; the text of the output (caller frees). */
static char *S_render(const char *name, const char *const *extra)
{
    char *json = gmt_fixture("h100-suite-320eb68.json");
    char *t = gmt_tmpdir("form");
    char *out = gmt_join(t, name);
    char *argv[16] = {(char *)gmt_bin(), "render", json, "--out", out};
    int n = 5;
    for (; extra && *extra && n < 15; extra++)
        argv[n++] = (char *)*extra;
    argv[n] = NULL;
    char *msg = NULL;
    int rc = gmt_run(argv, NULL, NULL, &msg);
    cr_assert_eq(rc, 0, "render: exit %d: %s", rc, msg);
    char *text = gmt_text(out);
    gmt_rmrf(t);
    free(msg);
    free(out);
    free(t);
    free(json);
    return text;
}

/* The values of every attribute `attr` ("id=\"" or "href=\"#") in html. */
static size_t S_values(const char *html, const char *attr, char ***out)
{
    size_t n = 0, cap = 16;
    char **v = malloc(cap * sizeof *v);
    for (const char *p = html; (p = strstr(p, attr)) != NULL;) {
        p += strlen(attr);
        const char *e = strchr(p, '"');
        cr_assert_not_null(e);
        if (n == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[n] = strndup(p, (size_t)(e - p));
        n++;
        p = e;
    }
    *out = v;
    return n;
}

static void S_free_all(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

Test(report_form, contents_and_summary_links_land_on_unique_heading_ids)
{
    char *html = S_render("report.html", NULL);
    /* every heading has an id */
    size_t h2 = gmt_occurrences(html, "<h2"), h2id = gmt_occurrences(html, "<h2 id=\"");
    cr_assert_eq(h2, h2id, "%zu of %zu second-level headings have an id", h2id, h2);
    cr_assert_geq(h2, 16, "contents, summary, findings, 14 experiments, method");
    char **ids, **links;
    size_t ni = S_values(html, " id=\"", &ids), nl = S_values(html, "href=\"#", &links);
    /* ids unique over the page (headings and charts alike) */
    for (size_t i = 0; i < ni; i++)
        for (size_t j = i + 1; j < ni; j++)
            cr_assert_str_neq(ids[i], ids[j], "id %s twice", ids[i]);
    /* contents (16+) and summary (14) links, each to an id of the page */
    cr_assert_geq(nl, 30, "%zu links", nl);
    for (size_t k = 0; k < nl; k++) {
        bool found = false;
        for (size_t i = 0; i < ni && !found; i++)
            found = strcmp(links[k], ids[i]) == 0;
        cr_assert(found, "link #%s lands nowhere", links[k]);
    }
    /* every experiment's section is linked from the contents */
    gmt_assert_has(html, "href=\"#14-chained-matrix-multiplication-by-dynamic-programming-table-"
                         "by-diagonals\"");
    S_free_all(ids, ni);
    S_free_all(links, nl);
    free(html);
}

Test(report_form, markdown_contents_links_match_the_headings)
{
    char *md = S_render("report.md", NULL);
    gmt_assert_has(md, "## Contents\n\n- [Summary](#summary)\n");
    gmt_assert_has(md, "- [2\\. Misaligned reads](#2-misaligned-reads)\n");
    gmt_assert_has(md, "| [2. Misaligned reads](#2-misaligned-reads) |");
    gmt_assert_has(md, "\n## 2. Misaligned reads\n");
    free(md);
}

/* Every in-page link of the Markdown (contents, summary, the sections'
 * links to their claims and to the findings) lands on a heading, slugged as
 * GitHub slugs it. */
Test(report_form, markdown_links_land_on_headings)
{
    char *md = S_render("report.md", NULL);
    gm_slugs seen = {0};
    bool fence = false;
    for (const char *p = md; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len >= 3 && strncmp(p, "```", 3) == 0)
            fence = !fence;
        if (!fence && len > 2 && p[0] == '#') {
            const char *t = p;
            while (*t == '#')
                t++;
            if (*t == ' ') {
                char *text = strndup(t + 1, len - (size_t)(t + 1 - p));
                gm_buf slug = GM_BUF_INIT;
                gm_md_slug_unique(&seen, text, &slug);
                gm_buf_free(&slug);
                free(text);
            }
        }
        p += len + (eol ? 1 : 0);
    }
    size_t links = 0;
    for (const char *p = md; (p = strstr(p, "](#")) != NULL; p++) {
        const char *e = strchr(p + 3, ')');
        cr_assert_not_null(e);
        char *slug = strndup(p + 3, (size_t)(e - (p + 3)));
        bool found = false;
        for (size_t i = 0; i < seen.n && !found; i++)
            found = strcmp(seen.v[i], slug) == 0;
        cr_assert(found, "link #%s lands on no heading", slug);
        free(slug);
        links++;
    }
    /* contents and summary (30+), and each section's claims and findings */
    cr_assert_geq(links, 60, "%zu links", links);
    gm_slugs_free(&seen);
    free(md);
}

/* The Markdown says the same more briefly than the page: a large experiment's
 * runs as a table of times with each variant's counters, a section's claims
 * as a line linking to their table, each layout's hottest line once; the HTML
 * page keeps every run, every claim row and every hot line. */
/* The median time of matmul's `variant` at n=1536, block=16 in the committed
 * run, as the report writes it (a measured number: read, not typed in). */
static void S_matmul_ms(gm_buf *b, const gm_results *r, const char *variant)
{
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        const gm_param *n = gm_run_param(run, "n"), *bs = gm_run_param(run, "block");
        if (strcmp(run->experiment, "matmul") || strcmp(run->variant, variant) || !n || !bs ||
            gm_value_num(&n->value) != 1536 || gm_value_num(&bs->value) != 16)
            continue;
        gm_fmt_ms(b, gm_run_median_ms(run));
        return;
    }
    cr_assert_fail("no matmul/%s run at n=1536, block=16", variant);
}

Test(report_form, markdown_brief_where_the_page_is_full)
{
    gm_results r;
    gm_error err;
    char *json = gmt_fixture("h100-suite-320eb68.json");
    cr_assert_eq(gm_results_read_file(json, &r, &err), GM_OK, "%s", err.message);
    free(json);
    gm_buf row = GM_BUF_INIT;
    gm_buf_puts(&row, "| n=1536, block=16 | ");
    S_matmul_ms(&row, &r, "naive");
    gm_buf_puts(&row, " | ");
    S_matmul_ms(&row, &r, "tiled");
    gm_buf_puts(&row, " | — |");
    gm_results_free(&r);

    char *md = S_render("report.md", NULL);
    /* the run's costliest findings, briefly: each with its estimated saving
     * and, where the per-line pass found it, the line that causes it */
    const char *top = strstr(md, "\n## Findings\n");
    cr_assert_not_null(top);
    const char *top_end = strstr(top + 1, "\n## ");
    cr_assert_not_null(top_end);
    char *findings = strndup(top, (size_t)(top_end - top));
    gmt_assert_has(findings, "Not moving the excess wavefronts would save about ");
    gmt_assert_has(findings, "The line: `exp_banks.cu:");
    gmt_assert_lacks(findings, "the fastest run doing the same work");
    free(findings);
    const char *sec = strstr(md, "\n## 8. Matrix multiplication");
    cr_assert_not_null(sec);
    const char *end = strstr(sec + 1, "\n## ");
    cr_assert_not_null(end);
    char *one = strndup(sec, (size_t)(end - sec));
    gmt_assert_has(one, "| Parameters | `naive` | `tiled` | `constant` |");
    gmt_assert_has(one, row.data);
    /* a variant's counters (deterministic), then its range of times */
    gmt_assert_has(one, "| `tiled_kmajor` | 3 | 4.0 | 4.0 | 1.00 | ");
    gm_buf_free(&row);
    gmt_assert_has(one, "**Claims it tests:** [\\[4\\] Geavanceerde Computerarchitectuur: Lab 4 "
                        "(lab report)](#4-geavanceerde-computerarchitectuur-lab-4-lab-report): ");
    gmt_assert_has(one, "| `naive` | `exp_matmul.cu:54` | `s += a[(size_t)row * n + k] * "
                        "b[(size_t)k * n + col];` | 452,984,832 sectors | 40.0% |");
    gmt_assert_lacks(one, "| `naive` | n=8, block=4 |");
    gmt_assert_lacks(one, "Hottest lines of");
    free(one);
    free(md);

    char *html = S_render("report.html", NULL);
    gmt_assert_has(html, "<td>n=8, block=4</td>");
    gmt_assert_has(html, "<strong>Hottest lines of <code>naive</code></strong>");
    gmt_assert_has(html, "<th>Claimed (hardware)</th>");
    free(html);
}

Test(report_form, only_keeps_the_chosen_experiments)
{
    const char *extra[] = {"--only", "dp,alignment", NULL};
    char *md = S_render("report.md", extra);
    /* the file's order, numbered afresh */
    gmt_assert_has(md, "\n## 1. Misaligned reads\n");
    gmt_assert_has(md, "\n## 2. Chained matrix multiplication by dynamic programming");
    gmt_assert_lacks(md, "## 3. ");
    gmt_assert_lacks(md, "Coalesced vs strided");
    gmt_assert_lacks(md, "Interleaved vs planar");
    gmt_assert_lacks(md, "`matmul`");
    free(md);
}

Test(report_form, only_names_the_known_ids_when_one_is_unknown)
{
    char *json = gmt_fixture("h100-suite-320eb68.json");
    char *t = gmt_tmpdir("form");
    char *out = gmt_join(t, "r.md");
    char *argv[] = {(char *)gmt_bin(), "render", json, "--out", out, "--only", "nope", NULL};
    char *msg = NULL;
    int rc = gmt_run(argv, NULL, NULL, &msg);
    cr_assert_eq(rc, 2);
    cr_assert(strstr(msg, "no experiment 'nope'") && strstr(msg, "coalescing, alignment"), "%s",
              msg);
    cr_assert_eq(gmt_count_entries(t), 0, "something was written");
    gmt_rmrf(t);
    free(msg);
    free(out);
    free(t);
    free(json);
}

/* UTF-8 characters, as GitHub counts a comment's length. */
static size_t S_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

Test(report_form, github_form_of_each_experiment_leaves_its_charts_out)
{
    gm_results r;
    gm_error err = {GM_OK, ""};
    char *json = gmt_fixture("h100-suite-320eb68.json");
    cr_assert_eq(gm_results_read_file(json, &r, &err), GM_OK, "%s", err.message);
    cr_assert_geq(r.n_experiments, 14);
    for (size_t i = 0; i < r.n_experiments; i++) {
        const char *extra[] = {"--only", r.experiments[i].id, "--format", "gfm", NULL};
        char *md = S_render("one.md", extra);
        /* its length against GitHub's 65,536 characters: bench/report-size.sh
         * (the budgets are measured there, the output committed) */
        cr_assert_gt(S_chars(md), 0);
        /* charts are left out with a line that says so; nothing links to a file */
        gmt_assert_has(md, "left out of this form");
        gmt_assert_lacks(md, ".svg)");
        gmt_assert_lacks(md, "gm-fold");
        free(md);
    }
    gm_results_free(&r);
    free(json);
}

/* In every chart's SVG, each legend entry is a series that draws something:
 * gnuplot names each plotted series' group with its title; a series without
 * data would leave a group with a title and no path. */
Test(report_form, no_legend_entry_without_data)
{
    char *html = S_render("report.html", NULL);
    size_t plots = 0;
    for (const char *p = html; (p = strstr(p, "<g id=\"")) != NULL; p++) {
        if (!strstr(p, "gnuplot_plot_") || strstr(p, "gnuplot_plot_") - p > 40)
            continue;
        const char *end = strstr(p, "</g>");
        const char *title = strstr(p, "<title>");
        cr_assert(end && title);
        if (title > end)
            continue;
        /* a titled series: something drawn in its group */
        const char *close = strstr(p + 1, "<g id=\"");
        const char *stop = close ? close : p + strlen(p);
        bool drawn = false;
        for (const char *q = title; q < stop && !drawn; q++)
            drawn = strncmp(q, "<path", 5) == 0 || strncmp(q, "<use", 4) == 0 ||
                    strncmp(q, "<polygon", 8) == 0 || strncmp(q, "<rect", 5) == 0;
        cr_assert(drawn, "a legend entry draws nothing: %.120s", title);
        plots++;
    }
    cr_assert_geq(plots, 50, "%zu plotted series", plots);
    free(html);
}

/* A legend a reader can take in: no chart of the page names more than ten
 * series (eight colours, two more with other markers) and its guide line; a
 * sweep split by a second parameter into many lines is drawn at
 * the question's value of it (RGB at scale=64), and a layout whose stores
 * follow its loads point for point is one line, not two. */
Test(report_form, legends_stay_readable)
{
    char *html = S_render("report.html", NULL);
    size_t charts = 0;
    for (const char *p = html; (p = strstr(p, "<svg")) != NULL; p++) {
        const char *end = strstr(p, "</svg>");
        cr_assert_not_null(end);
        size_t titled = 0;
        for (const char *g = p; (g = strstr(g, "gnuplot_plot_")) != NULL && g < end; g++) {
            const char *t = strstr(g, "<title>");
            const char *close = strstr(g, "</g>");
            titled += t && close && t < close && t < end;
        }
        cr_assert_leq(titled, 11, "a chart with %zu legend entries: %.120s", titled, p);
        charts++;
    }
    cr_assert_geq(charts, 50);
    gmt_assert_has(html, "inverting the red channel: effective bandwidth by block (scale=64)");
    gmt_assert_has(html, "<title>interleaved ld = st</title>");
    free(html);
}
