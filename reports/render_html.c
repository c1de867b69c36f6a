/* render_html.c — the report as one self-contained HTML page, and the files.
 *
 * The page is the Markdown report through cmark-gfm (tables extension, raw
 * HTML not let through), with each section's charts put in after conversion
 * where its placeholder paragraph "![](gm-charts:N)" became
 * <p><img src="gm-charts:N" alt="" /></p>.  Text from the results is escaped
 * in the Markdown, so it cannot produce an <img> tag: only our placeholders can.
 */
#include "render.h"

#include "../core/buf.h"
#include "../core/escape.h"

#include "../core/output.h"
#include "svg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef GM_DATADIR
#define GM_DATADIR "/usr/local/share/gpumem-report"
#endif

gm_format gm_format_from_path(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!dot || (slash && dot < slash))
        return GM_FORMAT_AUTO;
    if (strcasecmp(dot, ".md") == 0 || strcasecmp(dot, ".markdown") == 0)
        return GM_FORMAT_MD;
    if (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0)
        return GM_FORMAT_HTML;
    return GM_FORMAT_AUTO;
}

/* ---- the page -------------------------------------------------------------- */

static void S_figures(gm_buf *b, const gm_charts *charts, size_t section)
{
    gm_buf_puts(b, "<div class=\"charts\">\n");
    for (size_t i = 0; i < charts->n; i++) {
        const gm_chart *c = &charts->v[i];
        if (c->section != section)
            continue;
        gm_buf_printf(b, "<figure id=\"%s\">\n", c->name);
        if (c->failed) {
            gm_buf_puts(b, "<p class=\"chart-failed\"><strong>Chart not drawn:</strong> ");
            gm_esc_html(b, c->failed);
            gm_buf_puts(b, "</p>\n");
        } else {
            gm_svg_inline(b, c->svg ? c->svg : "", c->name, c->title);
        }
        gm_buf_printf(b, "<figcaption>Figure %zu. ", i + 1);
        gm_esc_html(b, c->title);
        gm_buf_puts(b, "</figcaption>\n</figure>\n");
    }
    gm_buf_puts(b, "</div>\n");
}

/* The folds the Markdown asks for: "![](gm-details:open:N)" and
 * "![](gm-details:close:0)" become <details> around what is between them
 * (a program's full kernel signatures). */
static bool S_details(gm_buf *b, const char **pp)
{
    static const char open[] = "<p><img src=\"gm-details:open:";
    static const char close[] = "<p><img src=\"gm-details:close:0\" alt=\"\" /></p>";
    static const char end[] = "\" alt=\"\" /></p>";
    const char *p = *pp;
    if (strncmp(p, close, sizeof close - 1) == 0) {
        gm_buf_puts(b, "</details>");
        *pp = p + sizeof close - 1;
        return true;
    }
    if (strncmp(p, open, sizeof open - 1) != 0)
        return false;
    const char *num = p + sizeof open - 1;
    char *e = NULL;
    unsigned long n = strtoul(num, &e, 10);
    if (e == num || strncmp(e, end, sizeof end - 1) != 0)
        return false;
    gm_buf_printf(b, "<details class=\"signatures\"><summary>Full signatures of the %lu "
                     "kernel%s</summary>", n, n == 1 ? "" : "s");
    *pp = e + sizeof end - 1;
    return true;
}

/* A fold placeholder paragraph (render_md.c's S_fold_open/S_fold_close):
 * <details> and its summary, or its end. */
static bool S_fold(gm_buf *b, const char **pp)
{
    static const char open[] = "<p><img src=\"gm-fold:";
    static const char end[] = "<p><img src=\"gm-fold-end:0\" alt=\"\" /></p>";
    /* "%lu": the count after the fold's number ("gm-fold:K:N"), when given */
    static const char *const summary[] = {
        "", "More counters of each run: memory efficiency, DRAM traffic, bank conflicts",
        "Each of the %lu runs described from its counters",
        "%lu more findings, of lesser cost",
        "Every hot source line of each layout (%lu layouts)",
        "Every run (%lu), with its time range and counters",
        "Shared memory of each kernel: wavefronts and bank conflicts",
    };
    const char *p = *pp;
    if (strncmp(p, end, sizeof end - 1) == 0) {
        gm_buf_puts(b, "</details>");
        *pp = p + sizeof end - 1;
        return true;
    }
    if (strncmp(p, open, sizeof open - 1) != 0)
        return false;
    char *e = NULL;
    unsigned long k = strtoul(p + sizeof open - 1, &e, 10), count = 0;
    static const char close[] = "\" alt=\"\" /></p>";
    if (e == p + sizeof open - 1 || k == 0 || k >= sizeof summary / sizeof summary[0])
        return false;
    if (*e == ':') {
        char *f = NULL;
        count = strtoul(e + 1, &f, 10);
        if (f == e + 1)
            return false;
        e = f;
    }
    if (strncmp(e, close, sizeof close - 1) != 0)
        return false;
    gm_buf_puts(b, "<details><summary>");
    gm_buf_printf(b, summary[k], count);
    gm_buf_puts(b, "</summary>");
    *pp = e + sizeof close - 1;
    return true;
}

/* "![](gm-screen:open)" and "![](gm-screen:close)" (render_md.c) become a
 * <div class="screen"> the print stylesheet leaves out: what the page
 * repeats for the reader on screen, said once on paper (a section's claims,
 * whose rows the section "Claims checked on this GPU" prints). */
static bool S_screen(gm_buf *b, const char **pp)
{
    static const char open[] = "<p><img src=\"gm-screen:open\" alt=\"\" /></p>";
    static const char close[] = "<p><img src=\"gm-screen:close\" alt=\"\" /></p>";
    if (strncmp(*pp, open, sizeof open - 1) == 0) {
        gm_buf_puts(b, "<div class=\"screen\">");
        *pp += sizeof open - 1;
        return true;
    }
    if (strncmp(*pp, close, sizeof close - 1) == 0) {
        gm_buf_puts(b, "</div>");
        *pp += sizeof close - 1;
        return true;
    }
    return false;
}

/* <hN> gets the id GitHub would give its text (gm_md_slug), so that the
 * Markdown's links (#slug) work in the page too. */
static void S_heading_ids(gm_buf *out, const char *html)
{
    gm_slugs seen = {0};
    const char *p = html;
    for (;;) {
        const char *h = strstr(p, "<h");
        if (!h) {
            gm_buf_puts(out, p);
            break;
        }
        if (!(h[2] >= '1' && h[2] <= '6' && h[3] == '>')) {
            gm_buf_put(out, p, (size_t)(h - p) + 2);
            p = h + 2;
            continue;
        }
        char close[6] = "</h0>";
        close[3] = h[2];
        const char *e = strstr(h, close);
        if (!e) {
            gm_buf_puts(out, p);
            break;
        }
        /* the heading's text: tags dropped, the entities cmark writes decoded */
        gm_buf text = GM_BUF_INIT;
        gm_buf_puts(&text, "");
        bool in_tag = false;
        for (const char *c = h + 4; c < e; c++) {
            if (*c == '<')
                in_tag = true;
            else if (*c == '>')
                in_tag = false;
            else if (!in_tag) {
                static const struct { const char *ent; char ch; } ents[] = {
                    {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''},
                };
                bool hit = false;
                for (size_t k = 0; k < sizeof ents / sizeof ents[0] && !hit; k++)
                    if (strncmp(c, ents[k].ent, strlen(ents[k].ent)) == 0) {
                        gm_buf_putc(&text, ents[k].ch);
                        c += strlen(ents[k].ent) - 1;
                        hit = true;
                    }
                if (!hit)
                    gm_buf_putc(&text, *c);
            }
        }
        gm_buf slug = GM_BUF_INIT;
        gm_md_slug_unique(&seen, text.data, &slug);
        gm_buf_put(out, p, (size_t)(h - p));
        gm_buf_printf(out, "<h%c id=\"", h[2]);
        gm_esc_html(out, slug.data);
        gm_buf_puts(out, "\">");
        gm_buf_put(out, h + 4, (size_t)(e - (h + 4)));
        p = e;
        gm_buf_free(&text);
        gm_buf_free(&slug);
    }
    gm_slugs_free(&seen);
}

static void S_put_body(gm_buf *b, const char *html, const gm_charts *charts)
{
    static const char open[] = "<p><img src=\"gm-charts:";
    static const char close[] = "\" alt=\"\" /></p>";
    const char *p = html;
    for (;;) {
        const char *hit = strstr(p, "<p><img src=\"gm-");
        if (!hit) {
            gm_buf_puts(b, p);
            return;
        }
        if (strncmp(hit, open, sizeof open - 1) != 0) {
            gm_buf_put(b, p, (size_t)(hit - p));
            const char *q = hit;
            if (!S_details(b, &q) && !S_fold(b, &q) && !S_screen(b, &q)) {
                gm_buf_put(b, hit, 1);
                q = hit + 1;
            } else if (*q == '\n') {
                gm_buf_putc(b, '\n');
                q++;
            }
            p = q;
            continue;
        }
        const char *num = hit + sizeof open - 1;
        char *end = NULL;
        unsigned long section = strtoul(num, &end, 10);
        if (end == num || strncmp(end, close, sizeof close - 1) != 0) {
            gm_buf_put(b, p, (size_t)(num - p));
            p = num;
            continue;
        }
        gm_buf_put(b, p, (size_t)(hit - p));
        const char *after = end + sizeof close - 1;
        if (*after == '\n')
            after++;
        S_figures(b, charts, section);
        p = after;
    }
}

gm_status gm_render_html(const gm_results *r, const gm_charts *charts, const char *tmpl,
                         const gm_report_opts *ro, char **out, gm_error *err)
{
    *out = NULL;
    const char *body_at = strstr(tmpl, "{{body}}");
    if (!body_at)
        return gm_fail(err, GM_ERR_VALUE, "the HTML template has no {{body}} placeholder");
    char *md = gm_render_markdown(r, charts, NULL, ro);
    char *html = NULL;
    gm_status st = gm_markdown_to_html(md, &html, err);
    free(md);
    if (st != GM_OK)
        return st;

    gm_buf ided = GM_BUF_INIT;
    S_heading_ids(&ided, html);
    free(html);
    html = gm_buf_detach(&ided);
    gm_buf b = GM_BUF_INIT;
    for (const char *p = tmpl; *p;) {
        if (strncmp(p, "{{body}}", 8) == 0) {
            S_put_body(&b, html, charts);
            p += 8;
        } else if (strncmp(p, "{{title}}", 9) == 0) {
            gm_buf_puts(&b, "GPU memory report: ");
            gm_esc_html(&b, r->device.name ? r->device.name : "unknown device");
            p += 9;
        } else {
            gm_buf_putc(&b, *p++);
        }
    }
    free(html);
    *out = gm_buf_detach(&b);
    return GM_OK;
}

/* ---- files ---------------------------------------------------------------- */

static char *S_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return gm_xstrdup(".");
    if (slash == path)
        return gm_xstrdup("/");
    char *d = gm_xmalloc((size_t)(slash - path) + 1);
    memcpy(d, path, (size_t)(slash - path));
    d[slash - path] = '\0';
    return d;
}

static const char *S_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool S_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

gm_status gm_template_find(const gm_render_opts *o, char **path, gm_error *err)
{
    *path = NULL;
    if (o->template_path) {
        struct stat sb;
        if (stat(o->template_path, &sb) != 0)
            return gm_fail(err, GM_ERR_IO, "template %s: %s", o->template_path, strerror(errno));
        if (!S_ISREG(sb.st_mode))
            return gm_fail(err, GM_ERR_IO, "template %s: not a file", o->template_path);
        *path = gm_xstrdup(o->template_path);
        return GM_OK;
    }
    gm_buf tried = GM_BUF_INIT;
    gm_buf_puts(&tried, "");
    /* env, the source tree beside build/, an install relative to the binary
     * (relocatable: PREFIX at install time may differ from build time, and a
     * DESTDIR staging tree works), the source tree beside a nested build
     * directory, then the build-time PREFIX. */
    char *cand[5] = {NULL, NULL, NULL, NULL, NULL};
    const char *env = getenv("GM_TEMPLATE_DIR");
    if (env && *env)
        cand[0] = gm_path_join(env, "report.html");
    if (o->exe_path && strchr(o->exe_path, '/')) {
        char *dir = S_dirname(o->exe_path);
        char *up = gm_path_join(dir, "../templates");
        cand[1] = gm_path_join(up, "report.html");
        free(up);
        up = gm_path_join(dir, "../share/gpumem-report/templates");
        cand[2] = gm_path_join(up, "report.html");
        free(up);
        /* a build directory one level deeper (make BUILD=build/nocuda) */
        up = gm_path_join(dir, "../../templates");
        cand[3] = gm_path_join(up, "report.html");
        free(dir);
        free(up);
    }
    cand[4] = gm_xstrdup(GM_DATADIR "/templates/report.html");
    for (int i = 0; i < 5; i++) {
        if (!cand[i])
            continue;
        if (!*path && S_is_file(cand[i])) {
            *path = cand[i];
            cand[i] = NULL;
        } else if (!*path) {
            gm_buf_printf(&tried, "%s%s", tried.len ? ", " : "", cand[i]);
        }
        free(cand[i]);
    }
    gm_status st = GM_OK;
    if (!*path)
        st = gm_fail(err, GM_ERR_IO,
                     "HTML template report.html not found (tried %s): give --template FILE or "
                     "set GM_TEMPLATE_DIR to the project's templates/ directory",
                     tried.data);
    gm_buf_free(&tried);
    return st;
}

/* "chart-NN.svg": the only names gpumem-report puts in a chart directory. */
static bool S_chart_file_name(const char *n)
{
    if (strncmp(n, "chart-", 6) != 0)
        return false;
    const char *p = n + 6;
    if (!(*p >= '0' && *p <= '9'))
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    return strcmp(p, ".svg") == 0;
}

/* The SVG as a file: gnuplot's <title> replaced by the chart's title. */
static char *S_svg_file(const gm_chart *c)
{
    gm_buf b = GM_BUF_INIT;
    const char *svg = c->svg ? c->svg : "";
    const char *t = strstr(svg, "<title>");
    const char *e = t ? strstr(t, "</title>") : NULL;
    if (!t || !e) {
        gm_buf_puts(&b, svg);
        return gm_buf_detach(&b);
    }
    gm_buf_put(&b, svg, (size_t)(t - svg));
    gm_buf_puts(&b, "<title>");
    gm_esc_html(&b, c->title);
    gm_buf_puts(&b, "</title>");
    gm_buf_puts(&b, e + 8);
    return gm_buf_detach(&b);
}

typedef struct {
    const gm_results *r;
    const gm_report_opts *ro;
} S_report_doc;

static char *S_report_md(const void *ctx, const gm_charts *charts, const char *chart_dir)
{
    const S_report_doc *d = ctx;
    return gm_render_markdown(d->r, charts, chart_dir, d->ro);
}

/* Markdown: the report and its chart folder written as one pair
 * (gm_output_write_with_dir); to a stream, the report alone (no charts). */
static gm_status S_write_markdown(gm_doc_markdown_fn md_fn, const void *ctx,
                                  const gm_charts *charts, const gm_render_opts *o,
                                  const char *const *inputs, size_t n_inputs, gm_error *err)
{
    const char *out = o->out_path;
    if (gm_output_is_stream(out)) {
        char *md = md_fn(ctx, charts, NULL);
        gm_status st = gm_output_write(out, md, strlen(md), inputs, n_inputs, err);
        free(md);
        return st;
    }
    char *dir = S_dirname(out);
    const char *base = S_basename(out);
    /* stem: the name without .md / .markdown */
    char *stem = gm_xstrdup(base);
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem && gm_format_from_path(stem) == GM_FORMAT_MD)
        *dot = '\0';
    gm_buf cd = GM_BUF_INIT;
    gm_buf_printf(&cd, "%s.charts", stem);
    char *chart_rel = gm_buf_detach(&cd);
    char *chart_dir = gm_path_join(dir, chart_rel);

    gm_output_file *files = gm_xcalloc(charts->n ? charts->n : 1, sizeof *files);
    char **names = gm_xcalloc(charts->n ? charts->n : 1, sizeof *names);
    size_t n_files = 0;
    for (size_t i = 0; i < charts->n; i++) {
        if (charts->v[i].failed)
            continue;   /* a note in the report instead */
        gm_buf fn = GM_BUF_INIT;
        gm_buf_printf(&fn, "%s.svg", charts->v[i].name);
        names[n_files] = gm_buf_detach(&fn);
        char *svg = S_svg_file(&charts->v[i]);
        files[n_files] = (gm_output_file){names[n_files], svg, strlen(svg)};
        n_files++;
    }
    char *md = md_fn(ctx, charts, chart_rel);
    gm_status st = gm_output_write_with_dir(out, md, strlen(md), chart_dir, files, n_files,
                                            S_chart_file_name, inputs, n_inputs, err);
    for (size_t i = 0; i < n_files; i++) {
        free((char *)files[i].data);
        free(names[i]);
    }
    free(files);
    free(names);
    free(md);
    free(chart_dir);
    free(chart_rel);
    free(stem);
    free(dir);
    return st;
}

/* Values of one run that a chart may not be able to show: a time that is
 * not positive (log axes), a negative count. */
static void S_run_unplottable(gm_buf *b, const gm_results *r, const gm_run *run, int *said)
{
    size_t idx = (size_t)(run - r->runs);
    const gm_timing *t = &run->timing;
    if (t->present && !(t->median > 0) && *said < 4) {
        gm_buf_printf(b, "%sruns[%zu].timing.median = %g ms", *said ? ", " : "", idx, t->median);
        (*said)++;
    }
    for (size_t m = 0; m < run->n_metrics && *said < 4; m++) {
        const gm_value *v = &run->metrics[m].value;
        if ((v->kind == GM_V_INT && v->i < 0) || (v->kind == GM_V_REAL && !(v->r >= 0))) {
            gm_buf_printf(b, "%sruns[%zu].metrics.%s = ", *said ? ", " : "", idx,
                          run->metrics[m].name);
            if (v->kind == GM_V_INT)
                gm_buf_printf(b, "%lld", v->i);
            else
                gm_buf_printf(b, "%g", v->r);
            (*said)++;
        }
    }
}

/* For every chart gnuplot could not draw: its note gets the runs and fields
 * of its experiment that a chart cannot show (when r and ss are given), and
 * `out` one line per chart for standard error. */
static void S_diagnose_failed(const gm_results *r, const gm_sections *ss, gm_charts *charts,
                              gm_buf *out)
{
    for (size_t i = 0; i < charts->n; i++) {
        gm_chart *c = &charts->v[i];
        if (!c->failed)
            continue;
        gm_buf why = GM_BUF_INIT;
        int said = 0;
        if (r && ss && c->section < ss->n) {
            const gm_section *s = &ss->v[c->section];
            for (size_t k = 0; k < s->n_runs; k++)
                S_run_unplottable(&why, r, s->runs[k], &said);
        }
        gm_buf note = GM_BUF_INIT;
        gm_buf_printf(&note, "gnuplot could not draw it (%s)", c->failed);
        if (said)
            gm_buf_printf(&note, "; values of this experiment a chart cannot show: %s",
                          why.data);
        else if (r && ss)
            gm_buf_puts(&note, "; no run of this experiment has a value out of range");
        gm_buf_printf(out, "%schart %s (%s) not drawn: %s", out->len ? "\n" : "", c->name,
                      c->title, note.data);
        free(c->failed);
        c->failed = gm_buf_detach(&note);
        gm_buf_free(&why);
    }
}

/* "-" is Markdown unless the format says otherwise. */
static gm_format S_format(const gm_render_opts *o)
{
    if (o->format != GM_FORMAT_AUTO)
        return o->format;
    if (strcmp(o->out_path, "-") == 0)
        return GM_FORMAT_MD;
    return gm_format_from_path(o->out_path);
}

/* The files a render reads, for the output rule: the results, the baseline,
 * the template, and those the caller lists. */
static size_t S_inputs(const gm_render_opts *o, const char *tmpl_path, const char **v, size_t cap)
{
    size_t n = 0;
    v[n++] = o->results_name;
    v[n++] = o->baseline_name;
    v[n++] = tmpl_path;
    for (size_t i = 0; i < o->n_inputs && n < cap; i++)
        v[n++] = o->inputs[i];
    return n;
}

#define S_MAX_INPUTS 64

gm_status gm_results_only(const gm_results *r, const char *only, gm_results *out,
                          gm_error *err)
{
    *out = *r;
    out->experiments = gm_xcalloc(r->n_experiments + 1, sizeof *out->experiments);
    out->runs = gm_xcalloc(r->n_runs + 1, sizeof *out->runs);
    out->n_experiments = out->n_runs = 0;
    char *list = gm_xstrdup(only);
    gm_status st = GM_OK;
    size_t named = 0;
    for (char *save = NULL, *id = strtok_r(list, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
        while (*id == ' ')
            id++;
        bool known = false;
        for (size_t i = 0; i < r->n_experiments; i++)
            known |= r->experiments[i].id && strcmp(r->experiments[i].id, id) == 0;
        for (size_t i = 0; i < r->n_runs && !known; i++)
            known |= r->runs[i].experiment && strcmp(r->runs[i].experiment, id) == 0;
        if (!known) {
            gm_buf ids = GM_BUF_INIT;
            gm_buf_puts(&ids, "");
            for (size_t i = 0; i < r->n_experiments; i++)
                gm_buf_printf(&ids, "%s%s", i ? ", " : "",
                              r->experiments[i].id ? r->experiments[i].id : "");
            st = gm_fail(err, GM_ERR_VALUE, "--only: no experiment '%s' in the results "
                         "(they have: %s)", id, ids.len ? ids.data : "none");
            gm_buf_free(&ids);
            break;
        }
        named++;
    }
    if (st == GM_OK && !named)
        st = gm_fail(err, GM_ERR_VALUE, "--only: no experiment named");
    /* the file's order, whatever the order of the list */
    for (size_t i = 0; st == GM_OK && i < r->n_experiments; i++) {
        char *l2 = gm_xstrdup(only);
        bool want = false;
        for (char *save = NULL, *id = strtok_r(l2, ",", &save); id && !want;
             id = strtok_r(NULL, ",", &save)) {
            while (*id == ' ')
                id++;
            want = r->experiments[i].id && strcmp(r->experiments[i].id, id) == 0;
        }
        free(l2);
        if (want)
            out->experiments[out->n_experiments++] = r->experiments[i];
    }
    for (size_t i = 0; st == GM_OK && i < r->n_runs; i++) {
        char *l2 = gm_xstrdup(only);
        bool want = false;
        for (char *save = NULL, *id = strtok_r(l2, ",", &save); id && !want;
             id = strtok_r(NULL, ",", &save)) {
            while (*id == ' ')
                id++;
            want = r->runs[i].experiment && strcmp(r->runs[i].experiment, id) == 0;
        }
        free(l2);
        if (want)
            out->runs[out->n_runs++] = r->runs[i];
    }
    free(list);
    if (st != GM_OK) {
        gm_results_view_free(out);
        memset(out, 0, sizeof *out);
    }
    return st;
}

void gm_results_view_free(gm_results *view)
{
    free(view->experiments);
    free(view->runs);
    view->experiments = NULL;
    view->runs = NULL;
    view->n_experiments = view->n_runs = 0;
}

gm_status gm_render(const gm_results *r, const gm_render_opts *o, gm_error *err)
{
    if (!o->out_path || !*o->out_path)
        return gm_fail(err, GM_ERR_VALUE, "no output file given");
    {
        /* an input named as the output is refused first, whatever its name */
        const char *in[S_MAX_INPUTS];
        gm_status cst = gm_output_check(o->out_path, in, S_inputs(o, NULL, in, S_MAX_INPUTS),
                                        err);
        if (cst != GM_OK)
            return cst;
    }
    gm_format fmt = S_format(o);
    if (fmt == GM_FORMAT_AUTO)
        return gm_fail(err, GM_ERR_VALUE,
                       "cannot tell the format of '%s' from its name: end it in .md or .html, "
                       "or give --format md|html", o->out_path);
    size_t blen = strlen(S_basename(o->out_path));
    if (blen == 0 && strcmp(o->out_path, "-") != 0)
        return gm_fail(err, GM_ERR_VALUE, "'%s' names a directory, not a file", o->out_path);

    gm_status st = GM_OK;
    char *tmpl_path = NULL, *tmpl = NULL, *page = NULL;
    gm_diff d = {0};
    gm_report_opts ro = {o->timestamp, NULL, o->baseline_name, o->results_name,
                         fmt == GM_FORMAT_GFM};
    gm_results view = {0};
    bool viewing = false;
    if (o->only) {
        st = gm_results_only(r, o->only, &view, err);
        if (st != GM_OK)
            return st;
        viewing = true;
        r = &view;
    }
    if (fmt == GM_FORMAT_HTML) {
        st = gm_template_find(o, &tmpl_path, err);
        if (st == GM_OK)
            st = gm_file_read(tmpl_path, &tmpl, err);
        if (st == GM_OK && !strstr(tmpl, "{{body}}"))
            st = gm_fail(err, GM_ERR_VALUE, "template %s has no {{body}} placeholder", tmpl_path);
        if (st != GM_OK)
            goto done;
    }

    /* the diff first: it can refuse files whose runs cannot be paired */
    if (o->baseline) {
        gm_diff_options dopt = {.base_name = o->baseline_name, .head_name = o->results_name};
        st = gm_diff_compute(o->baseline, r, &dopt, &d, err);
        if (st != GM_OK)
            goto done;
        ro.changes = &d;
    }

    const char *inputs[S_MAX_INPUTS];
    size_t n_inputs = S_inputs(o, tmpl_path, inputs, S_MAX_INPUTS);
    /* refused before any chart is drawn */
    st = gm_output_check(o->out_path, inputs, n_inputs, err);
    if (st != GM_OK)
        goto done;

    gm_sections ss;
    gm_sections_build(r, &ss);
    gm_charts charts;
    gm_charts_plan(r, &ss, &charts);
    if (fmt == GM_FORMAT_MD && gm_output_is_stream(o->out_path)) {
        /* a stream has no folder beside it for the charts */
        gm_charts_free(&charts);
        memset(&charts, 0, sizeof charts);
    }
    if (fmt == GM_FORMAT_GFM) {
        /* one file to paste: the charts are counted, not drawn */
        gm_sections_free(&ss);
        char *md = gm_render_markdown(r, &charts, NULL, &ro);
        st = gm_output_write(o->out_path, md, strlen(md), inputs, n_inputs, err);
        free(md);
        gm_charts_free(&charts);
        goto done;
    }
    double timeout = o->gnuplot_timeout == 0 ? GM_GNUPLOT_TIMEOUT_S : o->gnuplot_timeout;
    st = gm_charts_draw_within(&charts, o->gnuplot, timeout, err);
    gm_buf failed = GM_BUF_INIT;
    if (st == GM_OK)
        S_diagnose_failed(r, &ss, &charts, &failed);
    gm_sections_free(&ss);
    for (size_t i = 0; st == GM_OK && i < charts.n; i++) {
        if (!charts.v[i].svg)
            continue;
        char *small = gm_svg_compact(charts.v[i].svg);
        free(charts.v[i].svg);
        charts.v[i].svg = small;
    }
    if (st == GM_OK) {
        if (fmt == GM_FORMAT_MD) {
            S_report_doc doc = {r, &ro};
            st = S_write_markdown(S_report_md, &doc, &charts, o, inputs, n_inputs, err);
        } else {
            st = gm_render_html(r, &charts, tmpl, &ro, &page, err);
            if (st == GM_OK)
                st = gm_output_write(o->out_path, page, strlen(page), inputs, n_inputs, err);
        }
    }
    if (st == GM_OK && failed.len)
        st = gm_fail(err, GM_ERR_INCOMPLETE, "%s", failed.data);
    gm_buf_free(&failed);
    gm_charts_free(&charts);
done:
    if (ro.changes)
        gm_diff_free(&d);
    if (viewing)
        gm_results_view_free(&view);
    free(page);
    free(tmpl);
    free(tmpl_path);
    return st;
}

gm_status gm_render_doc(gm_doc_markdown_fn md_fn, const void *ctx, const char *title,
                        gm_charts *charts, const gm_render_opts *o, gm_error *err)
{
    if (!o->out_path || !*o->out_path)
        return gm_fail(err, GM_ERR_VALUE, "no output file given");
    {
        /* an input named as the output is refused first, whatever its name */
        const char *in[S_MAX_INPUTS];
        gm_status cst = gm_output_check(o->out_path, in, S_inputs(o, NULL, in, S_MAX_INPUTS),
                                        err);
        if (cst != GM_OK)
            return cst;
    }
    gm_format fmt = S_format(o);
    if (fmt == GM_FORMAT_AUTO)
        return gm_fail(err, GM_ERR_VALUE,
                       "cannot tell the format of '%s' from its name: end it in .md or .html, "
                       "or give --format md|html", o->out_path);
    if (strlen(S_basename(o->out_path)) == 0 && strcmp(o->out_path, "-") != 0)
        return gm_fail(err, GM_ERR_VALUE, "'%s' names a directory, not a file", o->out_path);
    gm_status st = GM_OK;
    char *tmpl_path = NULL, *tmpl = NULL, *md = NULL, *html = NULL;
    if (fmt == GM_FORMAT_HTML) {
        st = gm_template_find(o, &tmpl_path, err);
        if (st == GM_OK)
            st = gm_file_read(tmpl_path, &tmpl, err);
        if (st == GM_OK && !strstr(tmpl, "{{body}}"))
            st = gm_fail(err, GM_ERR_VALUE, "template %s has no {{body}} placeholder", tmpl_path);
    }
    const char *inputs[S_MAX_INPUTS];
    size_t n_inputs = S_inputs(o, tmpl_path, inputs, S_MAX_INPUTS);
    if (st == GM_OK)
        st = gm_output_check(o->out_path, inputs, n_inputs, err);
    if (st == GM_OK && fmt == GM_FORMAT_GFM) {
        /* one file to paste: no charts (the page has them) */
        gm_charts_free(charts);
        memset(charts, 0, sizeof *charts);
        md = md_fn(ctx, charts, NULL);
        st = gm_output_write(o->out_path, md, strlen(md), inputs, n_inputs, err);
        free(md);
        free(tmpl);
        free(tmpl_path);
        return st;
    }
    if (st == GM_OK && fmt == GM_FORMAT_MD && gm_output_is_stream(o->out_path)) {
        /* a stream has no folder beside it for the charts */
        for (size_t i = 0; i < charts->n; i++)
            charts->v[i].failed = gm_xstrdup("charts are not written beside a report that goes "
                                             "to a stream; render to a file for them");
    }
    double timeout = o->gnuplot_timeout == 0 ? GM_GNUPLOT_TIMEOUT_S : o->gnuplot_timeout;
    if (st == GM_OK && !(fmt == GM_FORMAT_MD && gm_output_is_stream(o->out_path)))
        st = gm_charts_draw_within(charts, o->gnuplot, timeout, err);
    gm_buf failed = GM_BUF_INIT;
    if (st == GM_OK && !(fmt == GM_FORMAT_MD && gm_output_is_stream(o->out_path)))
        S_diagnose_failed(NULL, NULL, charts, &failed);
    for (size_t i = 0; st == GM_OK && i < charts->n; i++) {
        if (!charts->v[i].svg)
            continue;
        char *small = gm_svg_compact(charts->v[i].svg);
        free(charts->v[i].svg);
        charts->v[i].svg = small;
    }
    if (st == GM_OK && fmt == GM_FORMAT_MD) {
        st = S_write_markdown(md_fn, ctx, charts, o, inputs, n_inputs, err);
    } else if (st == GM_OK) {
        md = md_fn(ctx, charts, NULL);
        st = gm_markdown_to_html(md, &html, err);
        if (st == GM_OK) {
            gm_buf b = GM_BUF_INIT;
            for (const char *p = tmpl; *p;) {
                if (strncmp(p, "{{body}}", 8) == 0) {
                    S_put_body(&b, html, charts);
                    p += 8;
                } else if (strncmp(p, "{{title}}", 9) == 0) {
                    gm_esc_html(&b, title);
                    p += 9;
                } else {
                    gm_buf_putc(&b, *p++);
                }
            }
            st = gm_output_write(o->out_path, b.data, b.len, inputs, n_inputs, err);
            gm_buf_free(&b);
        }
    }
    if (st == GM_OK && failed.len)
        st = gm_fail(err, GM_ERR_INCOMPLETE, "%s", failed.data);
    gm_buf_free(&failed);
    free(md);
    free(html);
    free(tmpl);
    free(tmpl_path);
    return st;
}
