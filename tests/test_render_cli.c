/* test_render_cli.c — `gpumem-report render` run as a program: the files it
 * writes (HTML checks, Markdown with its chart directory), determinism, every
 * error path (exit status 2, message, nothing left behind), gnuplot missing or
 * failing, options, template lookup, and gnuplot injection from hostile names.
 *
 * The binary is $GM_TEST_BIN (set by `make test`; default build/gpumem-report),
 * the source tree $GM_SRCDIR (default ".").
 */
#include "../core/buf.h"
#include "../core/results.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* render FIXTURE --out DIR/NAME [extra...] */
static int S_render(const char *fixture_path, const char *out, const char *const *extra,
                    const char *const *env, char **err)
{
    char *argv[16];
    int a = 0;
    argv[a++] = (char *)gmt_bin();
    argv[a++] = "render";
    argv[a++] = (char *)fixture_path;
    argv[a++] = "--out";
    argv[a++] = (char *)out;
    for (int i = 0; extra && extra[i] && a < 15; i++)
        argv[a++] = (char *)extra[i];
    argv[a] = NULL;
    return gmt_run(argv, env, NULL, err);
}

/* ---- HTML ------------------------------------------------------------------- */

/* Collect the values of id="..." / id='...' inside tags. */
static size_t S_ids(const char *html, char ***out)
{
    size_t n = 0, cap = 64;
    char **ids = gm_xmalloc(cap * sizeof *ids);
    bool in_tag = false;
    for (const char *p = html; *p; p++) {
        if (*p == '<')
            in_tag = true;
        else if (*p == '>')
            in_tag = false;
        if (!in_tag || p == html || (p[-1] != ' ' && p[-1] != '\t') || strncmp(p, "id=", 3) != 0 ||
            (p[3] != '"' && p[3] != '\''))
            continue;
        char q = p[3];
        const char *end = strchr(p + 4, q);
        if (!end)
            break;
        if (n == cap)
            ids = gm_xrealloc(ids, (cap *= 2) * sizeof *ids);
        ids[n++] = strndup(p + 4, (size_t)(end - p - 4));
        p = end;
    }
    *out = ids;
    return n;
}

static int S_cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void S_check_html(const char *html, size_t min_charts)
{
    /* no script, no link out of the page, nothing fetched */
    const char *banned[] = {"<script", "<SCRIPT", "http://", "https://", "src=", "@import",
                            "<link", "<iframe", "<object", "<embed", "url(http", "<img"};
    for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
        cr_assert_null(strstr(html, banned[i]), "the page contains %s", banned[i]);
    /* every chart inline, one <svg> per figure */
    size_t svgs = gmt_occurrences(html, "<svg"), figures = gmt_occurrences(html, "<figure");
    cr_assert_geq(svgs, min_charts, "%zu charts, expected at least %zu", svgs, min_charts);
    cr_assert_eq(svgs, figures);
    cr_assert_eq(gmt_occurrences(html, "</svg>"), svgs);
    cr_assert_null(strstr(html, "gm-charts:"), "a chart placeholder was left");
    /* tables are tables */
    cr_assert_geq(gmt_occurrences(html, "<table>"), 2);
    cr_assert_null(strstr(html, "\n|---"), "a Markdown table was not converted");
    /* ids unique across the document, and every reference resolves */
    char **ids;
    size_t n = S_ids(html, &ids);
    cr_assert_geq(n, svgs);
    qsort(ids, n, sizeof *ids, S_cmpstr);
    for (size_t i = 1; i < n; i++)
        cr_assert_str_neq(ids[i - 1], ids[i], "id '%s' appears twice", ids[i]);
    const char *refs[] = {"href='#", "href=\"#", "url(#"};
    for (size_t r = 0; r < 3; r++)
        for (const char *p = strstr(html, refs[r]); p; p = strstr(p + 1, refs[r])) {
            const char *s = p + strlen(refs[r]);
            size_t len = strcspn(s, "'\")");
            char *id = strndup(s, len);
            cr_assert_not_null(bsearch(&id, ids, n, sizeof *ids, S_cmpstr),
                               "reference to a missing id '%s'", id);
            free(id);
        }
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    /* print styles exist */
    cr_assert_not_null(strstr(html, "@media print"));
}

Test(render_cli, html_small_is_self_contained)
{
    char *dir = gmt_tmpdir("render"), *out = gmt_join(dir, "report.html");
    char *fx = gmt_fixture("handwritten-small.json");
    char *err = NULL;
    int rc = S_render(fx, out, NULL, NULL, &err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    char *html = gmt_slurp(out);
    cr_assert_not_null(html);
    S_check_html(html, 5);
    cr_assert_eq(gmt_count_entries(dir), 1, "only report.html may be written");
    cr_assert_not_null(strstr(html, "<title>GPU memory report: NVIDIA H100 80GB HBM3</title>"));
    cr_assert_not_null(strstr(html, "<th align=\"right\">"));
    free(html);
    free(err);
    gmt_rmrf(dir);
    free(dir);
    free(out);
    free(fx);
}

Test(render_cli, html_large_is_self_contained)
{
    char *dir = gmt_tmpdir("render"), *out = gmt_join(dir, "r.html");
    char *fx = gmt_fixture("handwritten-large.json");
    char *err = NULL;
    int rc = S_render(fx, out, NULL, NULL, &err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    char *html = gmt_slurp(out);
    S_check_html(html, 40);
    free(html);
    free(err);
    gmt_rmrf(dir);
    free(dir);
    free(out);
    free(fx);
}

Test(render_cli, hostile_names_cannot_inject)
{
    /* the hostile fixture's names try `touch /tmp/gm-pwned` through gnuplot
     * backquotes, shell $( ) and quotes; nothing may create that file */
    unlink("/tmp/gm-pwned");
    char *dir = gmt_tmpdir("render"), *fx = gmt_fixture("handwritten-hostile.json");
    char *html_out = gmt_join(dir, "h.html"), *md_out = gmt_join(dir, "h.md");
    char *err = NULL;
    int rc = S_render(fx, html_out, NULL, NULL, &err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    free(err);
    rc = S_render(fx, md_out, NULL, NULL, &err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    free(err);
    struct stat st;
    cr_assert_neq(stat("/tmp/gm-pwned", &st), 0, "a hostile name ran a command");

    char *html = gmt_slurp(html_out);
    S_check_html(html, 2);
    /* the hostile text is on the page, escaped */
    cr_assert_not_null(strstr(html, "&lt;script&gt;alert("));
    cr_assert_not_null(strstr(html, "NVIDIA &lt;b&gt;H100&lt;/b&gt;"));
    /* gnuplot's SVG text escapes '<' too */
    cr_assert_null(strstr(html, "<b>H100"));
    free(html);
    gmt_rmrf(dir);
    free(dir);
    free(html_out);
    free(md_out);
    free(fx);
}

/* ---- Markdown ---------------------------------------------------------------- */

Test(render_cli, markdown_links_its_charts)
{
    char *dir = gmt_tmpdir("render"), *out = gmt_join(dir, "my report.md");
    char *fx = gmt_fixture("handwritten-small.json");
    char *err = NULL;
    int rc = S_render(fx, out, NULL, NULL, &err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    char *md = gmt_slurp(out);
    char *charts = gmt_join(dir, "my report.charts");
    int n = gmt_count_entries(charts);
    cr_assert_geq(n, 5);
    /* each link is relative, percent-encoded, and names a file that exists */
    int links = 0;
    for (const char *p = strstr(md, "](my%20report.charts/"); p;
         p = strstr(p + 1, "](my%20report.charts/")) {
        const char *name = p + strlen("](my%20report.charts/");
        size_t len = strcspn(name, ")");
        char *file = strndup(name, len);
        char *path = gmt_join(charts, file);
        struct stat st;
        cr_assert_eq(stat(path, &st), 0, "link to missing %s", path);
        char *svg = gmt_slurp(path);
        cr_assert_not_null(strstr(svg, "<svg"));
        cr_assert_null(strstr(svg, "<script"));
        cr_assert_null(strstr(svg, "<title>Gnuplot</title>"));
        free(svg);
        free(path);
        free(file);
        links++;
    }
    cr_assert_eq(links, n, "%d links for %d chart files", links, n);
    cr_assert_eq(gmt_count_entries(dir), 2, "only the report and its chart directory");
    free(md);
    free(charts);
    free(err);
    gmt_rmrf(dir);
    free(dir);
    free(out);
    free(fx);
}

static void S_same_file(const char *a, const char *b)
{
    char *x = gmt_slurp(a), *y = gmt_slurp(b);
    cr_assert_not_null(x, "%s", a);
    cr_assert_not_null(y, "%s", b);
    cr_assert(strcmp(x, y) == 0, "%s and %s differ", a, b);
    free(x);
    free(y);
}

Test(render_cli, same_results_same_bytes)
{
    char *d1 = gmt_tmpdir("render"), *d2 = gmt_tmpdir("render");
    char *fx = gmt_fixture("handwritten-small.json");
    const char *names[] = {"r.html", "r.md"};
    for (int k = 0; k < 2; k++) {
        char *o1 = gmt_join(d1, names[k]), *o2 = gmt_join(d2, names[k]);
        cr_assert_eq(S_render(fx, o1, NULL, NULL, NULL), 0);
        cr_assert_eq(S_render(fx, o2, NULL, NULL, NULL), 0);
        S_same_file(o1, o2);
        char *text = gmt_slurp(o1);
        /* nothing of the machine or the moment leaks in */
        cr_assert_null(strstr(text, "/tmp/"), "a temporary path in %s", names[k]);
        cr_assert_null(strstr(text, "2025-01-15"), "taken_at in %s without --timestamp", names[k]);
        cr_assert_null(strstr(text, "gpumem-report-charts"));
        free(text);
        free(o1);
        free(o2);
    }
    /* the chart files too */
    char *c1 = gmt_join(d1, "r.charts"), *c2 = gmt_join(d2, "r.charts");
    int n = gmt_count_entries(c1);
    cr_assert_geq(n, 5);
    cr_assert_eq(gmt_count_entries(c2), n);
    for (int i = 1; i <= n; i++) {
        char name[32];
        snprintf(name, sizeof name, "chart-%02d.svg", i);
        char *a = gmt_join(c1, name), *b = gmt_join(c2, name);
        S_same_file(a, b);
        free(a);
        free(b);
    }
    /* rendering over an existing report replaces it with the same bytes */
    char *o1 = gmt_join(d1, "r.md"), *o2 = gmt_join(d2, "r.md");
    cr_assert_eq(S_render(fx, o1, NULL, NULL, NULL), 0);
    S_same_file(o1, o2);
    cr_assert_eq(gmt_count_entries(d1), 3, "leftovers after re-rendering");
    free(o1);
    free(o2);
    free(c1);
    free(c2);
    gmt_rmrf(d1);
    gmt_rmrf(d2);
    free(d1);
    free(d2);
    free(fx);
}

Test(render_cli, timestamp_option)
{
    char *dir = gmt_tmpdir("render"), *out = gmt_join(dir, "r.md");
    char *fx = gmt_fixture("handwritten-small.json");
    const char *extra[] = {"--timestamp", NULL};
    cr_assert_eq(S_render(fx, out, extra, NULL, NULL), 0);
    char *md = gmt_slurp(out);
    cr_assert_not_null(strstr(md, "2025-01-15T12:00:00Z"));
    free(md);
    gmt_rmrf(dir);
    free(dir);
    free(out);
    free(fx);
}

/* ---- errors: exit 2, the reader's message, nothing written ---------------- */

static void S_bad_input(const char *fixture, const char *out_name)
{
    char *dir = gmt_tmpdir("render"), *out = gmt_join(dir, out_name);
    char *fx = fixture[0] == '/' ? gm_xstrdup(fixture) : gmt_fixture(fixture);
    /* the message is the one gm_results_read_file gives */
    gm_results r;
    gm_error want = {0};
    cr_assert_neq(gm_results_read_file(fx, &r, &want), GM_OK, "%s should not parse", fx);
    char *err = NULL;
    int rc = S_render(fx, out, NULL, NULL, &err);
    cr_assert_eq(rc, 2, "%s: exit %d", fixture, rc);
    cr_assert_not_null(strstr(err, want.message), "%s: stderr '%s' lacks '%s'", fixture, err,
                       want.message);
    cr_assert_eq(gmt_count_entries(dir), 0, "%s: something was written", fixture);
    free(err);
    gmt_rmrf(dir);
    free(dir);
    free(out);
    free(fx);
}

Test(render_cli, missing_file)
{
    S_bad_input("/nonexistent/run.json", "r.html");
    S_bad_input("/nonexistent/run.json", "r.md");
}

Test(render_cli, malformed_json_names_line_and_column)
{
    S_bad_input("handwritten-broken-malformed.json", "r.html");
    S_bad_input("handwritten-broken-malformed.json", "r.md");
    char *fx = gmt_fixture("handwritten-broken-malformed.json");
    char *dir = gmt_tmpdir("render"), *out = gmt_join(dir, "r.md"), *err = NULL;
    cr_assert_eq(S_render(fx, out, NULL, NULL, &err), 2);
    cr_assert_not_null(strstr(err, "handwritten-broken-malformed.json:5:16:"), "%s", err);
    free(err);
    gmt_rmrf(dir);
    free(dir);
    free(out);
    free(fx);
}

Test(render_cli, wrong_schema_and_version)
{
    S_bad_input("handwritten-broken-schema.json", "r.html");
    S_bad_input("handwritten-broken-version.json", "r.md");
}

Test(render_cli, missing_and_mistyped_fields)
{
    S_bad_input("handwritten-broken-missing.json", "r.md");
    S_bad_input("handwritten-broken-mistyped.json", "r.html");
    S_bad_input("handwritten-broken-count.json", "r.html");
}

static void S_expect_failure(const char *const *extra, const char *const *env, const char *out_name,
                             const char *needle)
{
    char *dir = gmt_tmpdir("render"), *out = gmt_join(dir, out_name);
    char *fx = gmt_fixture("handwritten-small.json");
    char *err = NULL;
    int rc = S_render(fx, out, extra, env, &err);
    cr_assert_eq(rc, 2, "exit %d (%s)", rc, err);
    cr_assert_not_null(strstr(err, needle), "stderr '%s' lacks '%s'", err, needle);
    cr_assert_eq(gmt_count_entries(dir), 0, "something was written");
    free(err);
    gmt_rmrf(dir);
    free(dir);
    free(out);
    free(fx);
}

Test(render_cli, gnuplot_missing)
{
    const char *extra[] = {"--gnuplot", "/nonexistent/gnuplot", NULL};
    S_expect_failure(extra, NULL, "r.html", "apt-get install gnuplot-nox");
    S_expect_failure(extra, NULL, "r.md", "apt-get install gnuplot-nox");
    /* not in PATH either */
    const char *env[] = {"PATH=/nonexistent", NULL};
    S_expect_failure(NULL, env, "r.md", "gnuplot not found");
}

Test(render_cli, gnuplot_failing)
{
    char *bin = gmt_tmpdir("render"), *fake = gmt_join(bin, "gnuplot");
    FILE *f = fopen(fake, "w");
    fputs("#!/bin/sh\necho 'line 7: unknown terminal type' >&2\nexit 1\n", f);
    fclose(f);
    chmod(fake, 0755);
    const char *extra[] = {"--gnuplot", fake, NULL};
    S_expect_failure(extra, NULL, "r.md", "unknown terminal type");
    S_expect_failure(extra, NULL, "r.html", "exit status 1");
    gmt_rmrf(bin);
    free(bin);
    free(fake);
}

Test(render_cli, bad_options)
{
    const char *unknown[] = {"--frobnicate", NULL};
    S_expect_failure(unknown, NULL, "r.md", "unknown option '--frobnicate'");
    const char *fmt[] = {"--format", "pdf", NULL};
    S_expect_failure(fmt, NULL, "r.md", "'pdf' is not md, html, csv or gfm");
    const char *novalue[] = {"--gnuplot", NULL};
    S_expect_failure(novalue, NULL, "r.md", "--gnuplot needs a value");
    S_expect_failure(NULL, NULL, "r.txt", "cannot tell the format");
    const char *tmpl[] = {"--template", "/nonexistent/report.html", NULL};
    S_expect_failure(tmpl, NULL, "r.html", "/nonexistent/report.html");

    char *argv[] = {(char *)gmt_bin(), "render", NULL};
    char *err = NULL;
    cr_assert_eq(gmt_run(argv, NULL, NULL, &err), 2);
    cr_assert_not_null(strstr(err, "no results file"));
    free(err);
}

Test(render_cli, format_option_overrides_extension)
{
    char *dir = gmt_tmpdir("render"), *out = gmt_join(dir, "report.txt");
    char *fx = gmt_fixture("handwritten-small.json");
    const char *extra[] = {"--format", "html", NULL};
    cr_assert_eq(S_render(fx, out, extra, NULL, NULL), 0);
    char *page = gmt_slurp(out);
    cr_assert(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    free(page);
    gmt_rmrf(dir);
    free(dir);
    free(out);
    free(fx);
}

Test(render_cli, help_lists_options_with_defaults)
{
    char *argv[] = {(char *)gmt_bin(), "render", "--help", NULL};
    char *help = NULL;
    cr_assert_eq(gmt_run(argv, NULL, &help, NULL), 0);
    const char *want[] = {"--out", "--format md|html", "--template", "--gnuplot", "--timestamp",
                          "default", "gnuplot-nox"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert_not_null(strstr(help, want[i]), "help lacks %s", want[i]);
    free(help);
}

/* ---- templates ------------------------------------------------------------- */

static void S_copy(const char *from, const char *to, mode_t mode)
{
    char *data = gmt_slurp(from);
    cr_assert_not_null(data, "%s", from);
    FILE *f = fopen(to, "wb");
    cr_assert_not_null(f, "%s", to);
    /* binaries hold NULs: copy by size, not as a string */
    struct stat st;
    stat(from, &st);
    fwrite(data, 1, (size_t)st.st_size, f);
    fclose(f);
    chmod(to, mode);
    free(data);
}

Test(render_cli, template_lookup)
{
    /* a copy of the program in T/bin finds T/templates/report.html by itself */
    char *t = gmt_tmpdir("render"), *bin = gmt_join(t, "bin"), *tdir = gmt_join(t, "templates");
    mkdir(bin, 0755);
    mkdir(tdir, 0755);
    char *exe = gmt_join(bin, "gpumem-report"), *tp = gmt_join(tdir, "report.html");
    S_copy(gmt_bin(), exe, 0755);
    FILE *f = fopen(tp, "w");
    fputs("<!DOCTYPE html><title>{{title}}</title><body>MARK-BESIDE{{body}}</body>\n", f);
    fclose(f);
    char *fx = gmt_fixture("handwritten-minimal.json"), *out = gmt_join(t, "r.html");
    char *argv[] = {exe, "render", fx, "--out", out, NULL};
    const char *unset[] = {"GM_TEMPLATE_DIR", NULL};
    char *err = NULL;
    cr_assert_eq(gmt_run(argv, unset, NULL, &err), 0, "%s", err);
    free(err);
    char *page = gmt_slurp(out);
    cr_assert_not_null(strstr(page, "MARK-BESIDE"), "the template beside the program was not used");
    free(page);

    /* an install: T/bin/gpumem-report finds T/share/gpumem-report/templates,
     * whatever PREFIX the program was built with */
    unlink(tp);
    char *share = gmt_join(t, "share"), *sg = gmt_join(share, "gpumem-report");
    char *st_dir = gmt_join(sg, "templates"), *stp = gmt_join(st_dir, "report.html");
    mkdir(share, 0755);
    mkdir(sg, 0755);
    mkdir(st_dir, 0755);
    f = fopen(stp, "w");
    fputs("<!DOCTYPE html><title>{{title}}</title><body>MARK-SHARE{{body}}</body>\n", f);
    fclose(f);
    cr_assert_eq(gmt_run(argv, unset, NULL, &err), 0, "%s", err);
    free(err);
    page = gmt_slurp(out);
    cr_assert_not_null(strstr(page, "MARK-SHARE"), "the installed template was not used");
    free(page);
    unlink(stp);
    f = fopen(tp, "w");
    fputs("<!DOCTYPE html><title>{{title}}</title><body>MARK-BESIDE{{body}}</body>\n", f);
    fclose(f);
    free(share);
    free(sg);
    free(st_dir);
    free(stp);

    /* $GM_TEMPLATE_DIR comes first */
    char *envdir = gmt_join(t, "env"), *ep = gmt_join(envdir, "report.html");
    mkdir(envdir, 0755);
    f = fopen(ep, "w");
    fputs("<html>MARK-ENV{{body}}</html>\n", f);
    fclose(f);
    gm_buf ev = GM_BUF_INIT;
    gm_buf_printf(&ev, "GM_TEMPLATE_DIR=%s", envdir);
    const char *setenv_[] = {ev.data, NULL};
    cr_assert_eq(gmt_run(argv, setenv_, NULL, NULL), 0);
    page = gmt_slurp(out);
    cr_assert_not_null(strstr(page, "MARK-ENV"));
    free(page);

    /* --template comes before both; a template without {{body}} is refused */
    char *nobody = gmt_join(t, "nobody.html");
    f = fopen(nobody, "w");
    fputs("<html>{{title}}</html>\n", f);
    fclose(f);
    unlink(out);
    char *argv2[] = {exe, "render", fx, "--out", out, "--template", nobody, NULL};
    cr_assert_eq(gmt_run(argv2, setenv_, NULL, &err), 2);
    cr_assert_not_null(strstr(err, "{{body}}"), "%s", err);
    struct stat st;
    cr_assert_neq(stat(out, &st), 0, "written despite a bad template");
    free(err);

    /* nowhere: the message names the places tried (unless installed system-wide) */
    unlink(tp);
    if (stat("/usr/local/share/gpumem-report/templates/report.html", &st) != 0) {
        cr_assert_eq(gmt_run(argv, unset, NULL, &err), 2);
        cr_assert_not_null(strstr(err, "not found"), "%s", err);
        cr_assert_not_null(strstr(err, "templates/report.html"), "%s", err);
        cr_assert_neq(stat(out, &st), 0);
        free(err);
    }
    gm_buf_free(&ev);
    gmt_rmrf(t);
    free(t);
    free(bin);
    free(tdir);
    free(exe);
    free(tp);
    free(fx);
    free(out);
    free(envdir);
    free(ep);
    free(nobody);
}

Test(render_cli, foreign_chart_directory_is_not_replaced)
{
    char *dir = gmt_tmpdir("render"), *out = gmt_join(dir, "r.md"), *cd = gmt_join(dir, "r.charts");
    mkdir(cd, 0755);
    char *mine = gmt_join(cd, "notes.txt");
    FILE *f = fopen(mine, "w");
    fputs("mine\n", f);
    fclose(f);
    char *fx = gmt_fixture("handwritten-small.json"), *err = NULL;
    cr_assert_eq(S_render(fx, out, NULL, NULL, &err), 2);
    cr_assert_not_null(strstr(err, "did not write"), "%s", err);
    struct stat st;
    cr_assert_eq(stat(mine, &st), 0, "a file of the user's was removed");
    cr_assert_neq(stat(out, &st), 0, "the report was written anyway");
    cr_assert_eq(gmt_count_entries(dir), 1, "leftovers");
    free(err);
    gmt_rmrf(dir);
    free(dir);
    free(out);
    free(cd);
    free(mine);
    free(fx);
}
