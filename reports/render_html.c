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
        gm_svg_inline(b, c->svg ? c->svg : "", c->name, c->title);
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

static void S_put_body(gm_buf *b, const char *html, const gm_charts *charts)
{
    static const char open[] = "<p><img src=\"gm-charts:";
    static const char close[] = "\" alt=\"\" /></p>";
    const char *p = html;
    for (;;) {
        const char *hit = strstr(p, open);
        const char *det = strstr(p, "<p><img src=\"gm-details:");
        if (det && (!hit || det < hit)) {
            gm_buf_put(b, p, (size_t)(det - p));
            p = det;
            if (!S_details(b, &p)) {
                gm_buf_putc(b, *p);
                p++;
            }
            continue;
        }
        if (!hit) {
            gm_buf_puts(b, p);
            return;
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
     * DESTDIR staging tree works), then the build-time PREFIX. */
    char *cand[4] = {NULL, NULL, NULL, NULL};
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
        free(dir);
        free(up);
    }
    cand[3] = gm_xstrdup(GM_DATADIR "/templates/report.html");
    for (int i = 0; i < 4; i++) {
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

/* Remove a chart directory and its chart files; false when it holds anything else. */
static bool S_rm_chart_dir(const char *dir, bool check_only)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool ours = true;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (!S_chart_file_name(e->d_name)) {
            ours = false;
            continue;
        }
        if (!check_only) {
            char *p = gm_path_join(dir, e->d_name);
            unlink(p);
            free(p);
        }
    }
    closedir(d);
    if (!check_only && ours)
        rmdir(dir);
    return ours;
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

/* Markdown: charts into a fresh directory beside the report, then both renamed
 * into place (charts first, so the links of the new report never dangle). */
typedef struct {
    const gm_results *r;
    const gm_report_opts *ro;
} S_report_doc;

static char *S_report_md(const void *ctx, const gm_charts *charts, const char *chart_dir)
{
    const S_report_doc *d = ctx;
    return gm_render_markdown(d->r, charts, chart_dir, d->ro);
}

static gm_status S_write_markdown(gm_doc_markdown_fn md_fn, const void *ctx,
                                  const gm_charts *charts, const gm_render_opts *o,
                                  gm_error *err)
{
    const char *out = o->out_path;
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
    char *new_dir = NULL, *old_dir = NULL, *md_tmp = NULL, *md = NULL;
    gm_status st = GM_OK;
    bool have_old = false;

    if (charts->n) {
        struct stat sb;
        if (lstat(chart_dir, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode) || !S_rm_chart_dir(chart_dir, true)) {
                st = gm_fail(err, GM_ERR_IO,
                             "%s exists and holds files gpumem-report did not write: remove it "
                             "or choose another output name", chart_dir);
                goto done;
            }
            have_old = true;
        }
        gm_buf nd = GM_BUF_INIT;
        gm_buf_printf(&nd, "%s/.%s.tmp-XXXXXX", dir, chart_rel);
        new_dir = gm_buf_detach(&nd);
        if (!mkdtemp(new_dir)) {
            st = gm_fail(err, GM_ERR_IO, "cannot make %s: %s", chart_dir, strerror(errno));
            free(new_dir);
            new_dir = NULL;
            goto done;
        }
        /* mkdtemp makes it 0700: give it the mode a plain mkdir would */
        mode_t mask = umask(0);
        umask(mask);
        chmod(new_dir, 0777 & ~mask);
        for (size_t i = 0; i < charts->n && st == GM_OK; i++) {
            gm_buf fn = GM_BUF_INIT;
            gm_buf_printf(&fn, "%s/%s.svg", new_dir, charts->v[i].name);
            char *svg = S_svg_file(&charts->v[i]);
            st = gm_file_create(fn.data, svg, strlen(svg), err);
            free(svg);
            gm_buf_free(&fn);
        }
        if (st != GM_OK)
            goto done;
    }

    md = md_fn(ctx, charts, chart_rel);
    st = gm_file_write_temp(out, md, strlen(md), &md_tmp, err);
    if (st != GM_OK)
        goto done;

    if (charts->n) {
        if (have_old) {
            gm_buf od = GM_BUF_INIT;
            gm_buf_printf(&od, "%s/.%s.old-XXXXXX", dir, chart_rel);
            old_dir = gm_buf_detach(&od);
            /* rename() replaces the empty directory mkdtemp made */
            if (!mkdtemp(old_dir) || rename(chart_dir, old_dir) != 0) {
                st = gm_fail(err, GM_ERR_IO, "cannot replace %s: %s", chart_dir, strerror(errno));
                if (old_dir)
                    rmdir(old_dir);
                free(old_dir);
                old_dir = NULL;
                goto done;
            }
        }
        if (rename(new_dir, chart_dir) != 0) {
            st = gm_fail(err, GM_ERR_IO, "cannot rename %s to %s: %s", new_dir, chart_dir,
                         strerror(errno));
            if (old_dir)
                rename(old_dir, chart_dir);
            goto done;
        }
        free(new_dir);
        new_dir = NULL;
    }
    if (rename(md_tmp, out) != 0) {
        st = gm_fail(err, GM_ERR_IO, "cannot rename %s to %s: %s", md_tmp, out, strerror(errno));
        if (charts->n) {
            /* undo: the new charts go, the old ones come back */
            S_rm_chart_dir(chart_dir, false);
            if (old_dir)
                rename(old_dir, chart_dir);
        }
        goto done;
    }
    free(md_tmp);
    md_tmp = NULL;
    if (old_dir)
        S_rm_chart_dir(old_dir, false);

done:
    if (md_tmp)
        unlink(md_tmp);
    if (new_dir)
        S_rm_chart_dir(new_dir, false);
    if (old_dir && st != GM_OK)
        rmdir(old_dir);
    free(md_tmp);
    free(new_dir);
    free(old_dir);
    free(md);
    free(chart_dir);
    free(chart_rel);
    free(stem);
    free(dir);
    return st;
}

gm_status gm_render(const gm_results *r, const gm_render_opts *o, gm_error *err)
{
    gm_format fmt = o->format != GM_FORMAT_AUTO ? o->format : gm_format_from_path(o->out_path);
    if (!o->out_path || !*o->out_path)
        return gm_fail(err, GM_ERR_VALUE, "no output file given");
    if (fmt == GM_FORMAT_AUTO)
        return gm_fail(err, GM_ERR_VALUE,
                       "cannot tell the format of '%s' from its name: end it in .md or .html, "
                       "or give --format md|html", o->out_path);
    size_t blen = strlen(S_basename(o->out_path));
    if (blen == 0)
        return gm_fail(err, GM_ERR_VALUE, "'%s' names a directory, not a file", o->out_path);

    gm_status st = GM_OK;
    char *tmpl_path = NULL, *tmpl = NULL, *page = NULL;
    gm_diff d = {0};
    gm_report_opts ro = {o->timestamp, NULL, o->baseline_name, o->results_name};
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

    gm_sections ss;
    gm_sections_build(r, &ss);
    gm_charts charts;
    gm_charts_plan(r, &ss, &charts);
    gm_sections_free(&ss);
    st = gm_charts_draw(&charts, o->gnuplot, err);
    if (st == GM_OK) {
        if (fmt == GM_FORMAT_MD) {
            S_report_doc doc = {r, &ro};
            st = S_write_markdown(S_report_md, &doc, &charts, o, err);
        } else {
            st = gm_render_html(r, &charts, tmpl, &ro, &page, err);
            if (st == GM_OK)
                st = gm_file_write_atomic(o->out_path, page, strlen(page), err);
        }
    }
    gm_charts_free(&charts);
done:
    if (ro.changes)
        gm_diff_free(&d);
    free(page);
    free(tmpl);
    free(tmpl_path);
    return st;
}

gm_status gm_render_doc(gm_doc_markdown_fn md_fn, const void *ctx, const char *title,
                        gm_charts *charts, const gm_render_opts *o, gm_error *err)
{
    gm_format fmt = o->format != GM_FORMAT_AUTO ? o->format : gm_format_from_path(o->out_path);
    if (!o->out_path || !*o->out_path)
        return gm_fail(err, GM_ERR_VALUE, "no output file given");
    if (fmt == GM_FORMAT_AUTO)
        return gm_fail(err, GM_ERR_VALUE,
                       "cannot tell the format of '%s' from its name: end it in .md or .html, "
                       "or give --format md|html", o->out_path);
    if (strlen(S_basename(o->out_path)) == 0)
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
    if (st == GM_OK)
        st = gm_charts_draw(charts, o->gnuplot, err);
    if (st == GM_OK && fmt == GM_FORMAT_MD) {
        st = S_write_markdown(md_fn, ctx, charts, o, err);
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
            st = gm_file_write_atomic(o->out_path, b.data, b.len, err);
            gm_buf_free(&b);
        }
    }
    free(md);
    free(html);
    free(tmpl);
    free(tmpl_path);
    return st;
}
