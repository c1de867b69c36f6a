/* test_report_form.c — finding one's way in the report of the committed H100
 * run (examples/h100/run.json), rendered as a user renders it: every link of
 * the contents and the summary lands on a heading of the page, heading ids
 * are unique, --only keeps the chosen experiments alone, the GitHub form of
 * any single experiment fits an issue comment (65,536 characters), and no
 * chart legend names a series that draws nothing. */
#include "../core/buf.h"
#include "../core/results.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Render examples/h100/run.json with extra arguments to `name` in a fresh
 * directory; the text of the output (caller frees). */
static char *S_render(const char *name, const char *const *extra)
{
    char *json = gmt_src("examples/h100/run.json");
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
    char *json = gmt_src("examples/h100/run.json");
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

Test(report_form, github_form_of_each_experiment_fits_a_comment)
{
    gm_results r;
    gm_error err = {GM_OK, ""};
    char *json = gmt_src("examples/h100/run.json");
    cr_assert_eq(gm_results_read_file(json, &r, &err), GM_OK, "%s", err.message);
    cr_assert_geq(r.n_experiments, 14);
    for (size_t i = 0; i < r.n_experiments; i++) {
        const char *extra[] = {"--only", r.experiments[i].id, "--format", "gfm", NULL};
        char *md = S_render("one.md", extra);
        cr_assert_lt(S_chars(md), 65536, "%s: %zu characters", r.experiments[i].id, S_chars(md));
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
