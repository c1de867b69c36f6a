/* test_render.c — the report builder as library calls: golden Markdown, escaping
 * of hostile text in Markdown and in the gnuplot script, SVG inlining, number
 * formatting, and text that follows the numbers.
 *
 * Fixtures: $GM_SRCDIR/tests/fixtures (GM_SRCDIR defaults to "."); goldens in
 * tests/golden/.  Regenerate the goldens with
 *   GM_UPDATE_GOLDEN=1 make test     (then review `git diff tests/golden`)
 */
#include "../core/catalog.h"
#include "../reports/charts.h"
#include "../core/escape.h"
#include "../core/model.h"
#include "../reports/render.h"
#include "../core/results.h"
#include "helpers.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Markdown of a fixture with its chart plan (not drawn: Markdown only links). */
static char *S_markdown(const gm_results *r, const char *chart_dir, bool timestamp)
{
    gm_sections ss;
    gm_sections_build(r, &ss);
    gm_charts c;
    gm_charts_plan(r, &ss, &c);
    gm_report_opts ro = {timestamp, NULL, NULL, NULL, false};
    char *md = gm_render_markdown(r, &c, chart_dir, &ro);
    gm_charts_free(&c);
    gm_sections_free(&ss);
    return md;
}

/* ---- golden Markdown ------------------------------------------------------ */

static void S_golden(const char *fixture, const char *golden, const char *chart_dir)
{
    gm_results r;
    gmt_load_fixture(fixture, &r);
    char *md = S_markdown(&r, chart_dir, false);
    gmt_golden(golden, md);
    free(md);
    gm_results_free(&r);
}

Test(render_md, golden_small)
{
    S_golden("handwritten-small.json", "small.md", "small.charts");
}

Test(render_md, golden_hostile)
{
    S_golden("handwritten-hostile.json", "hostile.md", "hostile.charts");
}

/* ---- what the Markdown says ----------------------------------------------- */

Test(render_md, failed_checks_are_loud_and_never_compared)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    char *md = S_markdown(&r, "x.charts", false);
    const char *warn = strstr(md, "> **Warning: 1 run failed its check.**");
    const char *summary = strstr(md, "## Summary");
    cr_assert_not_null(warn, "no warning at the top");
    cr_assert_not_null(summary);
    cr_assert(warn < summary, "the warning must come before the summary");
    /* in the section too, and the failed run's speed is withheld */
    const char *sec = strstr(md, "## 1. ");
    cr_assert_not_null(sec);
    cr_assert_not_null(strstr(sec, "> **Warning:** `float4` (n=16777219"));
    cr_assert_not_null(strstr(md, "| withheld |"));
    /* the fastest is the passing float4 run, not the failed one (50.25 µs) */
    cr_assert_not_null(strstr(md, "against fastest `float4` (stride=1) | 4.5× (227.5 µs vs 50.5 µs)"));
    cr_assert_null(strstr(md, "50.3 µs)"), "the failed run appears as fastest/slowest");
    free(md);
    gm_results_free(&r);
}

Test(render_md, not_run_with_reason_and_absent_as_dash)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    char *md = S_markdown(&r, "x.charts", false);
    cr_assert_not_null(strstr(md, "Not run:\n\n- `tiled_padded` (n=131072): needs 137.4 GB"));
    /* tiled at n=2048 has a time but no counters: dashes, not zeros */
    const char *row = strstr(md, "| `tiled` | n=2048 |");
    cr_assert_not_null(row);
    const char *eol = strchr(row, '\n');
    char *line = strndup(row, (size_t)(eol - row));
    cr_assert_not_null(strstr(line, "| — | — | — |"), "%s", line);
    cr_assert_null(strstr(line, "| 0.0 |"), "%s", line);
    cr_assert_null(strstr(line, "| 0 |"), "%s", line);
    free(line);
    free(md);
    gm_results_free(&r);
}

Test(render_md, timestamp_only_when_asked)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    cr_assert_not_null(r.taken_at);
    char *md = S_markdown(&r, "x.charts", false);
    cr_assert_null(strstr(md, r.taken_at), "taken_at rendered without --timestamp");
    free(md);
    md = S_markdown(&r, "x.charts", true);
    gm_buf esc = GM_BUF_INIT;
    gm_esc_md(&esc, r.taken_at);
    cr_assert_not_null(strstr(md, esc.data), "taken_at missing with --timestamp");
    gm_buf_free(&esc);
    free(md);
    gm_results_free(&r);
}

/* The method section says how many runs were timed behind the launch gate,
 * and says nothing of it for files without the key. */
Test(render_md, method_counts_the_gated_runs)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    char *md = S_markdown(&r, "x.charts", false);
    cr_assert_null(strstr(md, "gate kernel"), "no run is gated in the fixture");
    free(md);
    size_t timed = 0, gated = 0;
    for (size_t i = 0; i < r.n_runs; i++) {
        if (!r.runs[i].timing.present)
            continue;
        timed++;
        if (timed % 2) {
            r.runs[i].timing.gated = true;
            gated++;
        }
    }
    cr_assert(gated > 0);
    md = S_markdown(&r, "x.charts", false);
    char want[160];
    snprintf(want, sizeof want, "under 2 ms (%zu of the %zu timed) enqueue them behind a one-thread "
             "gate kernel", gated, timed);
    gmt_assert_has(md, want);
    snprintf(want, sizeof want, "20 timed repetitions per run; %zu run%s under 2 ms a repetition "
             "timed behind the launch gate", gated, gated == 1 ? "" : "s");
    gmt_assert_has(md, want);
    free(md);
    gm_results_free(&r);
}

static gm_run *S_find_run(gm_results *r, const char *exp, const char *variant, const char *param,
                          long long value)
{
    for (size_t i = 0; i < r->n_runs; i++) {
        gm_run *run = &r->runs[i];
        const gm_param *p = gm_run_param(run, param);
        if (strcmp(run->experiment, exp) == 0 && strcmp(run->variant, variant) == 0 && p &&
            p->value.kind == GM_V_INT && p->value.i == value)
            return run;
    }
    return NULL;
}

/* The explanation is computed: change a number and the sentence changes.
 * (findings.c writes it; here it is checked where the report puts it: the
 * HTML page's Markdown, chart_dir NULL, which has it in full; the Markdown
 * forms keep the sweep and leave the fastest-against-slowest comparison to
 * the page.) */
static const char *S_explanation(const char *md, const char *section)
{
    const char *sec = strstr(md, section);
    cr_assert_not_null(sec, "no section %s", section);
    const char *e = strstr(sec, "**What the numbers say.** ");
    cr_assert_not_null(e, "no explanation in %s", section);
    return e;
}

Test(render_md, explanation_follows_the_numbers)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    char *md = S_markdown(&r, NULL, false);
    const char *e = S_explanation(md, "## 1. ");
    cr_assert_not_null(strstr(e, "`stride` (stride=32) fetches 8.0× the global-load sectors of "
                                 "`float4` (stride=1) (16,777,216 against 2,097,152)"),
                       "%s", e);
    cr_assert_not_null(strstr(e, "`stride` (stride=32) the slowest (227.5 µs, 4.5× as long)"));
    free(md);

    /* make stride 32 twice as slow and fetch 16 sectors per request */
    gm_run *w = S_find_run(&r, "coalescing", "stride", "stride", 32);
    cr_assert_not_null(w);
    w->timing.median *= 2;
    w->timing.max *= 2;
    gm_run_set_metric(w, GM_M_LD_SPR, gm_vreal(16.0), "sector/request");
    gm_run_set_metric(w, GM_M_LD_SECTORS, gm_vint(2 * 2097152), "sector");
    md = S_markdown(&r, NULL, false);
    e = S_explanation(md, "## 1. ");
    cr_assert_not_null(strstr(e, "`stride` (stride=32) fetches 2.0× the global-load sectors of "
                                 "`float4` (stride=1) (4,194,304 against 2,097,152)"),
                       "%s", e);
    cr_assert_not_null(strstr(e, "`stride` (stride=32) the slowest (455.0 µs, 9.0× as long)"),
                       "%s", e);
    free(md);

    /* equal times: no speed difference is claimed */
    for (size_t i = 0; i < r.n_runs; i++)
        if (strcmp(r.runs[i].experiment, "transpose") == 0 && r.runs[i].timing.present)
            r.runs[i].timing.median = 0.05;
    md = S_markdown(&r, NULL, false);
    e = S_explanation(md, "## 2. ");
    cr_assert_not_null(strstr(e, "Both take 50.0 µs, within 5% of each other: here the layout "
                                 "does not change the time."), "%s", e);
    cr_assert_null(strstr(e, "the fastest"), "%s", e);
    free(md);
    gm_results_free(&r);
}

/* One explanation per section: the renderer's own paragraph is gone, and
 * what the findings module writes is not said twice. */
Test(render_md, one_explanation_per_section)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    char *md = S_markdown(&r, NULL, false);
    size_t sections = 0, explanations = 0;
    for (const char *p = md; (p = strstr(p, "\n## ")) != NULL; p++)
        sections += p[4] >= '0' && p[4] <= '9';
    for (const char *p = md; (p = strstr(p, "**What the numbers say.**")) != NULL; p++)
        explanations++;
    cr_assert_eq(sections, 2);
    cr_assert_eq(explanations, sections);
    /* the sweep sentence and the bandwidth sentence, once each */
    const char *e = S_explanation(md, "## 1. ");
    const char *next = strstr(e, "\n## ");
    char *one = strndup(e, (size_t)(next - e));
    size_t along = 0, copy = 0;
    for (const char *p = one; (p = strstr(p, "Along `stride`")) != NULL; p++)
        along++;
    for (const char *p = one; (p = strstr(p, "of the copy bandwidth measured")) != NULL; p++)
        copy++;
    cr_assert_eq(along, 1, "%s", one);
    cr_assert_eq(copy, 1, "%s", one);
    free(one);
    free(md);
    gm_results_free(&r);
}

/* Findings: the run's costliest at the top, each experiment's under its
 * explanation; a failed run's is not repeated (the warning names it). */
Test(render_md, findings_at_the_top_and_per_section)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    char *md = S_markdown(&r, "x.charts", false);
    const char *summary = strstr(md, "## Summary"), *top = strstr(md, "## Findings\n");
    const char *first = strstr(md, "## 1. ");
    cr_assert(summary && top && first && summary < top && top < first);
    cr_assert_not_null(strstr(top, "- **Warning** (bank-conflict-load): in `transpose`, `tiled` "
                                    "(n=4096) needs 32.00 wavefronts"));
    cr_assert(strstr(top, "(validation)") == NULL, "the failed run is listed again");
    /* per section (the page lists them; the Markdown forms count them and
     * link to the top): without "in `experiment`", after the explanation */
    const char *sec2md = strstr(md, "## 2. ");
    cr_assert_not_null(strstr(sec2md, "**Findings:** "));
    cr_assert_not_null(strstr(sec2md, "[Findings](#findings)"));
    free(md);
    md = S_markdown(&r, NULL, false);
    const char *sec2 = strstr(md, "## 2. ");
    const char *list = strstr(sec2, "**Findings** (one per layout and rule, costliest first):\n\n- **Warning** "
                                    "(bank-conflict-load): `tiled` (n=4096)");
    cr_assert_not_null(list);
    cr_assert_lt(strstr(sec2, "**What the numbers say.**"), list);
    /* not-run runs are listed beside the table, not among the section's findings */
    cr_assert_null(strstr(sec2, "(not-run)"));
    free(md);
    gm_results_free(&r);
}

/* Count the cells of a GFM table row: pipes not escaped by a backslash. */
static int S_cells(const char *line, size_t len)
{
    int pipes = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '\\') {
            i++;
            continue;
        }
        pipes += line[i] == '|';
    }
    return pipes - 1;
}

Test(render_md, hostile_names_stay_in_their_cells)
{
    gm_results r;
    gmt_load_fixture("handwritten-hostile.json", &r);
    char *md = S_markdown(&r, "x.charts", false);
    /* every row of a table has as many cells as its header */
    int want = -1, tables = 0, rows = 0;
    for (const char *p = md; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len && p[0] == '|') {
            int n = S_cells(p, len);
            if (want < 0) {
                want = n;
                tables++;
            } else {
                cr_assert_eq(n, want, "row with %d cells in a table of %d: %.*s", n, want,
                             (int)len, p);
                rows++;
            }
        } else {
            want = -1;
        }
        p = eol ? eol + 1 : p + len;
    }
    cr_assert_geq(tables, 5);
    cr_assert_geq(rows, 20);
    free(md);
    gm_results_free(&r);
}

/* Even a renderer that lets raw HTML through finds none in our Markdown. */
Test(render_md, hostile_names_never_become_html)
{
    gm_results r;
    gmt_load_fixture("handwritten-hostile.json", &r);
    char *md = S_markdown(&r, "x.charts", false);
    cmark_gfm_core_extensions_ensure_registered();
    int opts = CMARK_OPT_UNSAFE;
    cmark_parser *p = cmark_parser_new(opts);
    cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("table"));
    cmark_parser_feed(p, md, strlen(md));
    cmark_node *doc = cmark_parser_finish(p);
    char *html = cmark_render_html(doc, opts, cmark_parser_get_syntax_extensions(p));
    const char *bad[] = {"<script", "<b>", "<x>", "</td></tr><script", "<float"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_null(strstr(html, bad[i]), "raw HTML %s got through", bad[i]);
    /* the only links: ours, to the page's own headings */
    cr_assert_eq(gmt_occurrences(html, "<a "), gmt_occurrences(html, "<a href=\"#"),
                 "a link out of the page got through");
    /* and the hostile text is still there, as text */
    cr_assert_not_null(strstr(html, "&lt;script&gt;alert("));
    cr_assert_not_null(strstr(html, "$(touch /tmp/gm-pwned)"));
    free(html);
    cmark_node_free(doc);
    cmark_parser_free(p);
    free(md);
    gm_results_free(&r);
}

/* ---- the gnuplot script ---------------------------------------------------- */

/* Walk a gnuplot script: outside single-quoted strings there must be no
 * double quote and no backquote (backquotes run commands inside double-quoted
 * strings and bare); every line that sets text says noenhanced; data blocks
 * hold numbers only.  Returns NULL when the script keeps these rules, else a
 * message naming the line. */
static char *S_script_problem(const char *script)
{
    static char msg[512];
    bool in_data = false;
    int lineno = 0;
    char *bad = NULL;
    for (const char *p = script; *p && !bad;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char *line = strndup(p, len);
        lineno++;
        if (in_data) {
            if (strcmp(line, "EOD") == 0) {
                in_data = false;
            } else {
                char *save = NULL;
                for (char *tok = strtok_r(line, " ", &save); tok && !bad;
                     tok = strtok_r(NULL, " ", &save)) {
                    char *end = NULL;
                    strtod(tok, &end);
                    if (!*tok || *end != '\0') {
                        snprintf(msg, sizeof msg, "line %d: data token '%s' is not a number",
                                 lineno, tok);
                        bad = msg;
                    }
                }
            }
        } else if (line[0] != '#') {
            bool in_str = false;
            for (size_t i = 0; i < len && !bad; i++) {
                if (line[i] == '\'') {
                    if (in_str && line[i + 1] == '\'')
                        i++;
                    else
                        in_str = !in_str;
                    continue;
                }
                if (!in_str && (line[i] == '"' || line[i] == '`' || (unsigned char)line[i] < 0x20)) {
                    snprintf(msg, sizeof msg, "line %d: '%c' outside a single-quoted string: %.200s",
                             lineno, line[i], line);
                    bad = msg;
                }
            }
            if (!bad && in_str) {
                snprintf(msg, sizeof msg, "line %d: unterminated string: %.200s", lineno, line);
                bad = msg;
            }
            bool text = strncmp(line, "set title ", 10) == 0 || strncmp(line, "set xlabel ", 11) == 0 ||
                        strncmp(line, "set ylabel ", 11) == 0 || strncmp(line, "set xtics ", 10) == 0 ||
                        strstr(line, " title '");
            if (!bad && text && !strstr(line, "noenhanced")) {
                snprintf(msg, sizeof msg, "line %d lacks noenhanced: %.200s", lineno, line);
                bad = msg;
            }
            if (strstr(line, "<< EOD"))
                in_data = true;
        }
        free(line);
        p = eol ? eol + 1 : p + len;
    }
    if (!bad && in_data) {
        snprintf(msg, sizeof msg, "unterminated data block");
        bad = msg;
    }
    return bad;
}

static void S_check_script(const char *script)
{
    char *problem = S_script_problem(script);
    cr_assert_null(problem, "%s", problem);
}

Test(render_charts, script_checker_catches_unsafe_scripts)
{
    cr_assert_null(S_script_problem("set title 'it''s `x`' noenhanced\n$c1 << EOD\n0 NaN 1e-3\nEOD\n"));
    cr_assert_not_null(S_script_problem("set title \"`touch x`\" noenhanced\n"));
    cr_assert_not_null(S_script_problem("set title 'a' noenhanced\nset xlabel `touch x`\n"));
    cr_assert_not_null(S_script_problem("set title 'a_b'\n"));
    cr_assert_not_null(S_script_problem("set xtics ('a' 0)\n"));
    cr_assert_not_null(S_script_problem("$c1 << EOD\n0 'label' 1\nEOD\n"));
    cr_assert_not_null(S_script_problem("set title 'open noenhanced\n"));
    cr_assert_not_null(S_script_problem("$c1 << EOD\n0 1\n"));
}

/* Every kind of chart spec, every string hostile: the gnuplot keeps the
 * script rules, tic labels have their '%' doubled, data blocks numbers only. */
Test(render_charts, chart_spec_quotes_every_string)
{
    static const char *evil = "it's `touch /tmp/gm-pwned` \"$(id)\" 50%_{x}^y\x01";
    static const gm_chart_kind kinds[] = {GM_CHART_BARS, GM_CHART_HBARS, GM_CHART_LINES};
    for (size_t k = 0; k < 3; k++) {
        gm_chart_spec c;
        gm_chart_init(&c, kinds[k], evil);
        gm_axis_label(&c.x, evil);
        gm_axis_label(&c.v, evil);
        gm_axis_tic(kinds[k] == GM_CHART_LINES ? &c.x : &c.v, 2, evil);
        gm_chart_cat(&c, evil);
        gm_chart_cat(&c, "plain");
        gm_chart_series *s = gm_chart_series_add(&c, GM_SERIES_MAIN, evil);
        s->range_name = gm_xstrdup(evil);
        gm_chart_point *p = gm_chart_put(s, 0, 1.5);
        p->lo = 1;
        p->hi = 2;
        p->rgb = 0xc62828u;
        gm_chart_note(p, evil);
        gm_chart_put(s, 1, 3);
        gm_chart_put(s, 2, NAN);
        s = gm_chart_series_add(&c, GM_SERIES_MARK, evil);
        gm_chart_put(s, 0, 1.25);
        s = gm_chart_series_add(&c, GM_SERIES_TICK, NULL);
        gm_chart_put(s, 0, 1);
        gm_chart_add_ref(&c, GM_REF_IDEAL, false, 1, evil);
        gm_chart_add_ref(&c, GM_REF_LEVEL, false, 2, evil);
        gm_chart_add_ref(&c, GM_REF_STEP, true, 1, NULL);
        gm_charts list = {NULL, 0};
        gm_charts_add(&list, 0, "chart-01", evil, &c);
        gm_chart_free(&c);
        char *script = gm_charts_script(&list);
        S_check_script(script);
        gmt_assert_has(script, "'it''s `touch /tmp/gm-pwned` \"$(id)\" 50%%_{x}^y ' 2");
        gmt_assert_lacks(script, "\x01");
        free(script);
        gm_charts_free(&list);
    }
}

/* A chart only where it shows something: not one bar, not bars all alike
 * (issue 28); a prediction that differs from equal bars is something. */
Test(render_charts, chart_only_where_it_shows_something)
{
    gm_chart_spec c;
    gm_chart_init(&c, GM_CHART_BARS, "t");
    gm_chart_cat(&c, "a");
    gm_chart_cat(&c, "b");
    gm_chart_series *s = gm_chart_series_add(&c, GM_SERIES_MAIN, "x");
    gm_chart_put(s, 0, 4);
    gm_chart_put(s, 1, NAN);
    cr_expect_not(gm_chart_shows_something(&c), "one bar");
    s->p[1].y = 4;
    cr_expect_not(gm_chart_shows_something(&c), "bars all alike");
    gm_chart_series *m = gm_chart_series_add(&c, GM_SERIES_MARK, "predicted");
    gm_chart_put(m, 0, 32);
    cr_expect(gm_chart_shows_something(&c), "a prediction off the bars");
    c.s[0].p[1].y = 8;
    c.n_s = 1;   /* the marker series left out (freed below) */
    cr_expect(gm_chart_shows_something(&c), "two bars that differ");
    gm_charts list = {NULL, 0};
    cr_expect(gm_charts_add(&list, 0, "chart-01", "t", &c));
    c.s[0].p[1].y = 4;
    cr_expect_not(gm_charts_add(&list, 0, "chart-02", "t", &c));
    cr_expect_eq(list.n, 1);
    gm_charts_free(&list);
    c.n_s = 2;
    gm_chart_free(&c);

    gm_chart_init(&c, GM_CHART_LINES, "t");
    s = gm_chart_series_add(&c, GM_SERIES_MAIN, "x");
    gm_chart_put(s, 1, 4);
    gm_chart_put(s, 2, 4);
    cr_expect_not(gm_chart_shows_something(&c), "a flat line");
    gm_chart_add_ref(&c, GM_REF_LEVEL, false, 5, "a run off the sweep");
    cr_expect(gm_chart_shows_something(&c), "a level apart from the line");
    gm_chart_free(&c);
}

Test(render_charts, hostile_script_quotes_everything)
{
    gm_results r;
    gmt_load_fixture("handwritten-hostile.json", &r);
    gm_sections ss;
    gm_sections_build(&r, &ss);
    gm_charts c;
    gm_charts_plan(&r, &ss, &c);
    cr_assert_geq(c.n, 2);
    char *script = gm_charts_script(&c);
    S_check_script(script);
    /* the hostile swept parameter name arrives quoted, its quote doubled */
    cr_assert_not_null(strstr(script, "set xlabel 'n''`$(touch /tmp/gm-pwned)`' noenhanced"),
                       "%s", script);
    cr_assert_not_null(strstr(script, "set terminal svg size 600,"));
    cr_assert_not_null(strstr(script, " dynamic enhanced font 'sans,13' background '#ffffff'"));
    cr_assert_null(strstr(script, "mouse"));
    free(script);
    gm_charts_free(&c);
    gm_sections_free(&ss);
    gm_results_free(&r);
}

/* Hostile names in the predicted-vs-measured chart and table: every run of
 * the hostile fixture given a prediction by the model itself. */
Test(render_charts, hostile_prediction_chart_and_table)
{
    gm_results r;
    gmt_load_fixture("handwritten-hostile.json", &r);
    for (size_t i = 0; i < r.n_runs; i++) {
        gm_trace *t = gm_trace_new();
        /* a stride of 256 bytes: 32 sectors a request, more than any run
         * measured, so the chart of the model's misses has something to show */
        cr_assert_eq(gm_trace_access_affine(t, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, 0, 256,
                                            0xffffffffu),
                     GM_OK);
        cr_assert_eq(gm_trace_set_sampling(t, 1, 1), GM_OK);
        gm_trace_prediction_clear(&r.runs[i].prediction);
        cr_assert_eq(gm_trace_predict(t, &r.runs[i].prediction, NULL), GM_OK);
        gm_trace_free(t);
    }
    gm_sections ss;
    gm_sections_build(&r, &ss);
    gm_charts c;
    gm_charts_plan(&r, &ss, &c);
    size_t n = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (!strstr(c.v[i].title, "measured vs predicted"))
            continue;
        n++;
        S_check_script(c.v[i].script);
    }
    cr_assert_geq(n, 1);
    char *script = gm_charts_script(&c);
    cr_assert_not_null(strstr(script, "'v|pipe*star_under"), "%s", script);
    free(script);
    gm_charts_free(&c);
    gm_sections_free(&ss);
    /* the table: no raw HTML even with a renderer that allows it */
    char *md = S_markdown(&r, "x.charts", false);
    cr_assert_not_null(strstr(md, "| Warps traced |"));
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *p = cmark_parser_new(CMARK_OPT_UNSAFE);
    cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("table"));
    cmark_parser_feed(p, md, strlen(md));
    cmark_node *doc = cmark_parser_finish(p);
    char *html = cmark_render_html(doc, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(p));
    cr_assert_null(strstr(html, "<script"));
    cr_assert_null(strstr(html, "<b>"));
    free(html);
    cmark_node_free(doc);
    cmark_parser_free(p);
    free(md);
    gm_results_free(&r);
}

/* Series that lie on an earlier one point for point are drawn once, their
 * names joined in its legend entry (as many as fit, then how many more): the
 * committed H100 run's matmul sectors per request, where seven layouts read
 * 4.0 at every size they ran. */
Test(render_charts, coinciding_series_are_one_line)
{
    gm_results r;
    char *p = gmt_src("examples/h100/run.json");
    gm_error err;
    cr_assert_eq(gm_results_read_file(p, &r, &err), GM_OK, "%s", err.message);
    free(p);
    gm_sections ss;
    gm_sections_build(&r, &ss);
    gm_charts c;
    gm_charts_plan(&r, &ss, &c);
    const char *script = NULL;
    for (size_t i = 0; i < c.n && !script; i++)
        if (strstr(c.v[i].title, "Matrix multiplication") &&
            strstr(c.v[i].title, "sectors per request by n (block=16)"))
            script = c.v[i].script;
    cr_assert_not_null(script);
    S_check_script(script);
    cr_expect_eq(gmt_occurrences(script, "with linespoints"), 3, "%s", script);
    gmt_assert_has(script, "title 'naive ld' noenhanced");
    gmt_assert_has(script, "title 'naive st, tiled ld = st and 5 more alike' noenhanced");
    gmt_assert_has(script, "title 'constant ld' noenhanced");
    gm_charts_free(&c);
    gm_sections_free(&ss);
    gm_results_free(&r);
}

/* Each layout's ideal at its own access width (issue 26): on the committed
 * H100 run, float2 and float4 sit on ideals of 8 and 16 sectors per
 * request, not 2-4x over a line at 4; bars whose ideals differ get a tick
 * each. */
Test(render_charts, ideal_per_access_width)
{
    gm_results r;
    char *p = gmt_src("examples/h100/run.json");
    gm_error err;
    cr_assert_eq(gm_results_read_file(p, &r, &err), GM_OK, "%s", err.message);
    free(p);
    gm_sections ss;
    gm_sections_build(&r, &ss);
    gm_charts c;
    gm_charts_plan(&r, &ss, &c);
    const char *sweep = NULL, *bars = NULL;
    for (size_t i = 0; i < c.n; i++) {
        if (strstr(c.v[i].title, "Coalesced vs strided") &&
            strstr(c.v[i].title, "sectors per request by stride"))
            sweep = c.v[i].script;
        if (strstr(c.v[i].title, "Array of structures") && strstr(c.v[i].title, ": sectors per request"))
            bars = c.v[i].script;
    }
    cr_assert_not_null(sweep);
    S_check_script(sweep);
    /* three ideal lines, one key entry, each line saying which it is */
    gmt_assert_has(sweep, "4 with lines dt 3 lw 2 lc rgb '#009E73' title 'ideals (the bytes asked for)'");
    gmt_assert_has(sweep, "set arrow from graph 0, first 8 to graph 1, first 8 nohead dt 3");
    gmt_assert_has(sweep, "set arrow from graph 0, first 16 to graph 1, first 16 nohead dt 3");
    gmt_assert_has(sweep, "set label '4-byte accesses: 4' noenhanced at graph 1, first 4");
    gmt_assert_has(sweep, "set label '8-byte accesses: 8' noenhanced at graph 0, first 8");
    gmt_assert_has(sweep, "set label '16-byte accesses: 16' noenhanced at graph 1, first 16");
    cr_assert_not_null(bars);
    S_check_script(bars);
    gmt_assert_has(bars, "with vectors nohead");
    gmt_assert_has(bars, "title 'each bar''s own ideal'");
    gmt_assert_lacks(bars, "ideal for 4-byte accesses");
    gm_charts_free(&c);
    gm_sections_free(&ss);
    gm_results_free(&r);
}

/* Where most shared instructions ran with every thread predicated off (the
 * ideal per instruction under GM_FIND_PREDICATED), the chart draws
 * wavefronts per request made, ideal 1, as the finding counts them
 * (issue 28): the PyTorch run's sum-cols makes 0.57 wavefronts per
 * instruction, 1.006 per request; sum-rows, given 8,000 loads of 4
 * wavefronts, 24,000 of them conflicts (ideal 1 per instruction: no
 * predication), draws 4 per instruction. */
Test(render_charts, shared_wavefronts_per_request_made)
{
    gm_results r;
    char *p = gmt_src("tests/fixtures/pytorch-h100-3dd71d4.json");
    gm_error err;
    cr_assert_eq(gm_results_read_file(p, &r, &err), GM_OK, "%s", err.message);
    free(p);
    gm_run *rows = NULL;
    for (size_t i = 0; i < r.n_runs; i++)
        if (r.runs[i].variant && strcmp(r.runs[i].variant, "sum-rows") == 0)
            rows = &r.runs[i];
    cr_assert_not_null(rows);
    gm_run_set_metric(rows, GM_M_SH_LD_WAVES, gm_vreal(32000), "");
    gm_run_set_metric(rows, GM_M_SH_LD_INST, gm_vreal(8000), "");
    gm_run_set_metric(rows, GM_M_SH_LD_CONFL, gm_vreal(24000), "");
    gm_sections ss;
    gm_sections_build(&r, &ss);
    gm_charts c;
    gm_charts_plan(&r, &ss, &c);
    const char *sh = NULL;
    for (size_t i = 0; i < c.n; i++)
        if (strstr(c.v[i].title, "shared-memory wavefronts"))
            sh = c.v[i].script;
    cr_assert_not_null(sh);
    S_check_script(sh);
    gmt_assert_has(sh, "set title 'shared-memory wavefronts per instruction or request made'");
    gmt_assert_has(sh, "title 'shared ld wavefronts/inst or request made'");
    /* the two kernels with shared memory (no empty place for the others):
     * sum-cols, 33,349 wavefronts over the 33,152 requests its 58,112
     * instructions made; sum-rows */
    gmt_assert_has(sh, "set xtics noenhanced ('sum-cols' 0, 'sum-rows' 1)");
    gmt_assert_has(sh, "\n0 1.0059");
    gmt_assert_has(sh, "\n1 4\n");
    gmt_assert_lacks(sh, "\n0 0.57");
    gm_charts_free(&c);
    gm_sections_free(&ss);
    gm_results_free(&r);
}

/* Charts that read with long names (issue 28): bars whose names do not
 * fit level under them lie beside them (the PyTorch run's kernels), never
 * upright; names cut in the middle keep their end; the canvas leaves every
 * plot at least 250 px. */
Test(render_charts, long_names_lie_beside_their_bars)
{
    gm_results r;
    char *p = gmt_src("examples/pytorch/run.json");
    gm_error err;
    cr_assert_eq(gm_results_read_file(p, &r, &err), GM_OK, "%s", err.message);
    free(p);
    gm_sections ss;
    gm_sections_build(&r, &ss);
    gm_charts c;
    gm_charts_plan(&r, &ss, &c);
    cr_assert_gt(c.n, 0);
    for (size_t i = 0; i < c.n; i++) {
        const char *s = c.v[i].script;
        gmt_assert_lacks(s, "rotate by 90");
        gmt_assert_has(s, "set ytics noenhanced nomirror ('add-transposed' 1");
        gmt_assert_has(s, "'distribution_elemen…de_kernel<…>' 7");
        int w = 0, h = 0;
        cr_assert_eq(sscanf(s, "set terminal svg size %d,%d", &w, &h), 2);
        cr_expect_eq(w, GM_CHART_WIDTH);
        /* the plot, the title, the tics and their label at least */
        cr_expect_geq(h, 250 + 4 * 17, "%s: %d px", c.v[i].title, h);
    }
    gm_charts_free(&c);
    gm_sections_free(&ss);
    gm_results_free(&r);
}

Test(render_charts, large_plan_has_sweeps_and_bars)
{
    gm_results r;
    gmt_load_fixture("handwritten-large.json", &r);
    gm_sections ss;
    gm_sections_build(&r, &ss);
    cr_assert_eq(ss.n, r.n_experiments);
    gm_charts c;
    gm_charts_plan(&r, &ss, &c);
    size_t lines = 0, bars = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (strstr(c.v[i].title, " by "))
            lines++;
        else
            bars++;
        cr_assert_lt(c.v[i].section, ss.n);
    }
    cr_assert_geq(lines, 20);
    cr_assert_geq(bars, 5);
    char *script = gm_charts_script(&c);
    S_check_script(script);
    /* bandwidth charts carry the measured ceiling as a reference line: the copy bandwidth (the fixture predates the attainable one), raised by the run that beat it */
    cr_assert_not_null(strstr(script, "title 'measured ceiling: 2,881 GB/s' noenhanced"));
    /* sectors per request charts mark the ideal 4 */
    cr_assert_not_null(strstr(script, ", 4 with lines dt 3"));
    /* log2 sweeps */
    cr_assert_not_null(strstr(script, "set logscale x 2"));
    free(script);
    gm_charts_free(&c);
    gm_sections_free(&ss);
    gm_results_free(&r);
}

Test(render_charts, all_absent_metrics_draw_no_chart)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    /* remove every counter: only time/bandwidth charts may remain */
    for (size_t i = 0; i < r.n_runs; i++)
        for (size_t k = 0; k < r.runs[i].n_metrics; k++) {
            free(r.runs[i].metrics[k].value.s);
            r.runs[i].metrics[k].value = gm_vabsent();
        }
    gm_sections ss;
    gm_sections_build(&r, &ss);
    gm_charts c;
    gm_charts_plan(&r, &ss, &c);
    cr_assert_gt(c.n, 0);
    for (size_t i = 0; i < c.n; i++)
        cr_assert(strstr(c.v[i].title, "bandwidth") != NULL, "chart without values: %s",
                  c.v[i].title);
    gm_charts_free(&c);
    gm_sections_free(&ss);
    gm_results_free(&r);
}

/* ---- comparison group ----------------------------------------------------- */

Test(render_sections, group_is_runs_doing_the_same_work)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    gm_sections ss;
    gm_sections_build(&r, &ss);
    cr_assert_eq(ss.n, 2);
    /* coalescing: 7 passed runs at n=2^24 (the failed n=16777219 run is out) */
    cr_assert_eq(ss.v[0].n_group, 7);
    cr_assert_str_eq(ss.v[0].best->variant, "float4");
    cr_assert_eq(ss.v[0].n_failed, 1);
    /* transpose: n=1024 and n=4096 pairs tie; the larger work wins */
    cr_assert_eq(ss.v[1].n_group, 2);
    cr_assert_eq(gm_run_param(ss.v[1].best, "n")->value.i, 4096);
    cr_assert_str_eq(ss.v[1].worst->variant, "tiled");
    cr_assert_eq(ss.v[1].n_not_run, 1);
    gm_sections_free(&ss);
    gm_results_free(&r);
}

/* ---- SVG inlining ------------------------------------------------------------ */

Test(render_svg, ids_and_references_prefixed)
{
    const char *svg = "<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n"
                      "<svg \n viewBox=\"0 0 800 480\"\n"
                      " xmlns=\"http://www.w3.org/2000/svg\"\n"
                      " xmlns:xlink=\"http://www.w3.org/1999/xlink\"\n>\n\n"
                      "<title>Gnuplot</title>\n"
                      "<g id=\"gnuplot_canvas\">\n"
                      "\t<path id='gpPt0' d='M0'/>\n"
                      "\t<use xlink:href='#gpPt0' id='gpPt6'/>\n"
                      "\t<g filter='url(#textbox)'><text>id='x' href='#y' url(#z)</text></g>\n"
                      "</g>\n</svg>\n";
    gm_buf b = GM_BUF_INIT;
    gm_svg_inline(&b, svg, "chart-07", "a <b> & 'c'");
    const char *s = b.data;
    cr_assert_null(strstr(s, "<?xml"));
    cr_assert_null(strstr(s, "http://"));
    cr_assert_null(strstr(s, "\n\n"), "blank line left: %s", s);
    cr_assert_not_null(strstr(s, "<title>a &lt;b&gt; &amp; &#39;c&#39;</title>"), "%s", s);
    cr_assert_not_null(strstr(s, "id=\"chart-07-gnuplot_canvas\""));
    cr_assert_not_null(strstr(s, "id='chart-07-gpPt0'"));
    cr_assert_not_null(strstr(s, "xlink:href='#chart-07-gpPt0' id='chart-07-gpPt6'"));
    cr_assert_not_null(strstr(s, "filter='url(#chart-07-textbox)'"));
    /* text content is not touched */
    cr_assert_not_null(strstr(s, "<text>id='x' href='#y' url(#z)</text>"), "%s", s);
    gm_buf_free(&b);
}

/* ---- formatting ----------------------------------------------------------- */

static char *S_fmt(void (*f)(gm_buf *, double), double v)
{
    gm_buf b = GM_BUF_INIT;
    f(&b, v);
    return gm_buf_detach(&b);
}

static void S_num3(gm_buf *b, double v) { gm_fmt_num(b, v, 3); }

Test(render_fmt, numbers_bytes_and_absent)
{
    struct { void (*f)(gm_buf *, double); double v; const char *want; } cases[] = {
        {S_num3, 2532.6, "2,533"},  {S_num3, 0.05314, "0.0531"}, {S_num3, 4.0, "4.00"},
        {S_num3, NAN, "—"},        {S_num3, 0, "0"},             {gm_fmt_bytes, 512, "512 B"},
        {gm_fmt_bytes, 67108864, "64.0 MiB"}, {gm_fmt_bytes, 1073741824, "1.00 GiB"},
        {gm_fmt_bytes, 536870912, "512 MiB"}, {gm_fmt_bytes, NAN, "—"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = S_fmt(cases[i].f, cases[i].v);
        cr_assert_str_eq(s, cases[i].want, "case %zu", i);
        free(s);
    }
}

Test(render_fmt, format_from_path)
{
    cr_assert_eq(gm_format_from_path("a/report.md"), GM_FORMAT_MD);
    cr_assert_eq(gm_format_from_path("R.HTML"), GM_FORMAT_HTML);
    cr_assert_eq(gm_format_from_path("x.htm"), GM_FORMAT_HTML);
    cr_assert_eq(gm_format_from_path("x.markdown"), GM_FORMAT_MD);
    cr_assert_eq(gm_format_from_path("x.txt"), GM_FORMAT_AUTO);
    cr_assert_eq(gm_format_from_path("dir.md/report"), GM_FORMAT_AUTO);
}

/* The summary's headline names the counter that grew most with the time, and
 * follows the numbers: remove the DRAM counters and it names the sectors. */
Test(render_md, headline_follows_the_numbers)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    char *md = S_markdown(&r, "x.charts", false);
    cr_assert_not_null(strstr(md, "1. **Coalesced vs strided reads.** `float4` (stride=1) is 4.5× "
                                  "faster than `stride` (stride=32), which needs 4.5× the DRAM "
                                  "bytes for the same work."),
                       "%s", md);
    free(md);
    for (size_t i = 0; i < r.n_runs; i++) {
        gm_run_set_metric(&r.runs[i], GM_M_DRAM_RD, gm_vabsent(), "byte");
        gm_run_set_metric(&r.runs[i], GM_M_DRAM_WR, gm_vabsent(), "byte");
    }
    md = S_markdown(&r, "x.charts", false);
    const char *h = strstr(md, "1. **Coalesced vs strided reads.**");
    cr_assert_not_null(h);
    cr_assert_not_null(strstr(h, "which needs "), "%s", h);
    cr_assert_not_null(strstr(h, "the global-memory sectors for the same work."), "%s", h);
    cr_assert_null(strstr(md, "the DRAM bytes for the same work"));
    free(md);
    gm_results_free(&r);
}

/* Descriptions mark code between single backquotes (a program's command
 * line, a layout's `block`): paired spans become code spans, an unpaired
 * backquote stays a character, and nothing opens HTML or a link. */
Test(render_md, backquoted_spans_in_descriptions)
{
    struct {
        const char *in, *want;
    } cases[] = {
        {"The launches of `./app --n 4`, measured.", "The launches of `./app --n 4`, measured."},
        {"a `x|y` b", "a `x\\|y` b"},
        {"one ` alone", "one \\` alone"},
        {"`<b>` and <i>", "`<b>` and \\<i\\>"},
        {"[link](`u`)", "\\[link\\](`u`)"},
        {"empty `` pair", "empty \\`\\` pair"},
        {"``", "\\`\\`"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gm_buf b = GM_BUF_INIT;
        gm_buf_puts(&b, "");
        gm_esc_md_spans(&b, cases[i].in);
        cr_assert_str_eq(b.data, cases[i].want, "%s", cases[i].in);
        gm_buf_free(&b);
    }
}
