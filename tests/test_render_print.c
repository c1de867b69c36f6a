/* test_render_print.c — the page on paper (issue 28): the report of the
 * committed H100 run printed as a reader prints it.  Every fold prints open
 * (the print stylesheet shows a closed <details>' content), tables print at
 * 8 pt or more, and headless Chromium's PDF of the page holds the text of the
 * folded tables.  The PDF test skips, saying why, where chromium or pdftotext
 * is not installed (CI has neither); the stylesheet test runs everywhere. */
#include "../core/buf.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* examples/h100/run.json rendered to DIR/report.html; the path (caller frees). */
static char *S_page(const char *dir)
{
    char *json = gmt_src("examples/h100/run.json");
    char *out = gmt_join(dir, "report.html");
    char *argv[] = {(char *)gmt_bin(), "render", json, "--out", out, NULL};
    char *err = NULL;
    int rc = gmt_run(argv, NULL, NULL, &err);
    cr_assert_eq(rc, 0, "render: exit %d: %s", rc, err);
    free(err);
    free(json);
    return out;
}

/* The text of the page's @media print block (caller frees). */
static char *S_print_css(const char *html)
{
    const char *p = strstr(html, "@media print {");
    cr_assert_not_null(p, "the page has a print stylesheet");
    int depth = 0;
    const char *e = p;
    for (; *e; e++) {
        if (*e == '{')
            depth++;
        else if (*e == '}' && --depth == 0)
            break;
    }
    cr_assert_eq(*e, '}', "the print block closes");
    return strndup(p, (size_t)(e - p + 1));
}

/* The font size in pt the rule for `selector` sets in css ("table {"); -1 if none. */
static double S_pt(const char *css, const char *selector)
{
    const char *r = strstr(css, selector);
    if (!r)
        return -1;
    const char *end = strchr(r, '}');
    const char *f = strstr(r, "font-size:");
    if (!f || f > end)
        return -1;
    double v = strtod(f + strlen("font-size:"), NULL);
    return v;
}

Test(render_print, folds_open_and_tables_stay_readable_on_paper)
{
    char *dir = gmt_tmpdir("print");
    char *path = S_page(dir);
    char *html = gmt_text(path);
    char *css = S_print_css(html);
    /* a closed <details> prints its content, and its summary as a caption */
    gmt_assert_has(css, "details::details-content { content-visibility: visible; display: block; }");
    cr_assert_geq(gmt_occurrences(html, "<details>"), 14, "the page has its folds");
    /* tables at 8 pt or more, body text above them */
    cr_assert_geq(S_pt(css, "  table {"), 8.0, "%s", css);
    cr_assert_geq(S_pt(css, "  table code {"), 8.0, "%s", css);
    cr_assert_geq(S_pt(css, "  body {"), 9.0, "%s", css);
    /* one chart a row: two a row printed their text at 4 to 5 pt */
    gmt_assert_has(css, ".charts { grid-template-columns: 1fr;");
    free(css);
    free(html);
    gmt_rmrf(dir);
    free(path);
    free(dir);
}

/* The program on PATH, or NULL. */
static char *S_which(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    char *copy = strdup(path);
    char *found = NULL;
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char *c = gmt_join(d, name);
        if (access(c, X_OK) == 0)
            found = c;
        else
            free(c);
    }
    free(copy);
    return found;
}

Test(render_print, printed_pdf_holds_the_folded_tables)
{
    gmt_deadline(600);
    char *chromium = S_which("chromium");
    if (!chromium)
        chromium = S_which("chromium-browser");
    char *pdftotext = S_which("pdftotext");
    char *timeout = S_which("timeout");
    if (!chromium || !pdftotext || !timeout) {
        free(chromium);
        free(pdftotext);
        free(timeout);
        cr_skip_test("chromium, pdftotext or timeout is not installed (apt-get install chromium "
                     "poppler-utils): the page is not printed to PDF here");
    }
    char *dir = gmt_tmpdir("print");
    char *page = S_page(dir);
    char *pdf = gmt_join(dir, "report.pdf");
    char *profile = gmt_join(dir, "profile");
    gm_buf url = GM_BUF_INIT, to = GM_BUF_INIT, user = GM_BUF_INIT;
    gm_buf_printf(&url, "file://%s", page);
    gm_buf_printf(&to, "--print-to-pdf=%s", pdf);
    gm_buf_printf(&user, "--user-data-dir=%s", profile);
    char *argv[] = {timeout, "300", chromium, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--no-first-run", "--no-pdf-header-footer", user.data,
                    to.data, url.data, NULL};
    int rc = gmt_run(argv, NULL, NULL, NULL);
    cr_assert_eq(rc, 0, "chromium --print-to-pdf: exit %d", rc);
    cr_assert(gmt_exists(pdf), "no PDF written");
    char *txt = gmt_join(dir, "report.txt");
    char *argt[] = {pdftotext, pdf, txt, NULL};
    rc = gmt_run(argt, NULL, NULL, NULL);
    cr_assert_eq(rc, 0, "pdftotext: exit %d", rc);
    char *text = gmt_text(txt);
    /* each layout's hot lines in full (a fold in every section that has them) and the
     * folded table of more counters (its "DRAM written" column; the metric list at
     * the end names it once more) */
    size_t hot = gmt_occurrences(text, "Hottest lines of");
    size_t written = gmt_occurrences(text, "DRAM written");
    cr_assert_geq(hot, 14, "the folded hot lines are printed: %zu", hot);
    cr_assert_geq(written, 14, "the folded counter tables are printed: %zu", written);
    free(text);
    gm_buf_free(&url);
    gm_buf_free(&to);
    gm_buf_free(&user);
    gmt_rmrf(dir);
    free(txt);
    free(profile);
    free(pdf);
    free(page);
    free(dir);
    free(chromium);
    free(pdftotext);
    free(timeout);
}
