/* render.h — the report: a results file in, Markdown or one self-contained HTML
 * page out.
 *
 *   gm_render_markdown   results + charts -> Markdown text          (pure)
 *   gm_render_html       results + charts + template -> HTML text   (pure)
 *   gm_render            the files: charts drawn by gnuplot, output written
 *                        under the rule of core/output.h (never over an
 *                        input; "-" and other streams written in place;
 *                        a regular file replaced atomically, the Markdown
 *                        and its chart folder as one pair)
 *
 * The same results render to the same bytes: nothing depends on the time,
 * the temporary paths or the machine (taken_at appears only when asked).
 * Every string from the results is escaped for the place it goes.
 */
#ifndef GM_RENDER_H
#define GM_RENDER_H

#include "charts.h"
#include "diff.h"
#include "../core/gm_error.h"
#include "../core/results.h"
#include "../core/slug.h"   /* heading anchors: gm_md_slug, gm_slugs */

#include <stdbool.h>

/* GFM: the Markdown that pastes into a GitHub issue or comment (gm_report_opts.github). */
typedef enum { GM_FORMAT_AUTO = 0, GM_FORMAT_MD, GM_FORMAT_HTML, GM_FORMAT_GFM } gm_format;

/* .md/.markdown -> MD, .html/.htm -> HTML (any case), else AUTO (unknown). */
gm_format gm_format_from_path(const char *path);

/* What the report shows besides the results themselves. */
typedef struct {
    bool timestamp;               /* show taken_at */
    const gm_diff *changes;       /* a "Changes since <base commit>" section from this diff of
                                     a baseline (base) against these results (head); NULL: none */
    const char *baseline_name;    /* the baseline file as named by the user, for that section */
    const char *results_name;     /* these results' file, for that section; may be NULL */
    bool github;                  /* the form pasted into a GitHub issue or comment: one
                                     file, charts left out (a line says so), folds as
                                     <details> */
} gm_report_opts;

/* Markdown (GitHub-flavoured: pipe tables).  chart_dir is the directory the
 * charts are linked from, relative to the Markdown file ("report.charts");
 * NULL puts a placeholder paragraph "![](gm-charts:N)" where section N's charts
 * go, for gm_render_html.  Charts are the plan made from the same results
 * (their svg is not read).  ro may be NULL (no timestamp, no changes).
 * Caller frees.
 *
 * The document: title and setup, failed runs (loud), the summary table, the
 * run's top findings (findings.h), the changes since the baseline when asked,
 * one section per experiment (layouts, table, what the address-trace model
 * predicted beside what was measured, notes, charts, the explanation written
 * from the numbers, the experiment's findings), then how the numbers were
 * obtained. */
char *gm_render_markdown(const gm_results *r, const gm_charts *charts, const char *chart_dir,
                         const gm_report_opts *ro);

/* HTML: the Markdown converted by cmark-gfm (tables extension; raw HTML is not
 * let through), the charts' SVG inlined after conversion with ids prefixed per
 * chart, all put into the template at {{body}} ({{title}}: the report title,
 * escaped).  Every chart must have its svg.  On success *out is the page
 * (caller frees). GM_ERR_VALUE when the template lacks {{body}}. */
gm_status gm_render_html(const gm_results *r, const gm_charts *charts, const char *tmpl,
                         const gm_report_opts *ro, char **out, gm_error *err);

typedef struct {
    const char *out_path;       /* report.md or report.html; "-": standard output (Markdown
                                   unless format says HTML); a stream gets no chart folder */
    gm_format format;           /* AUTO: from out_path's extension */
    const char *template_path;  /* --template FILE; NULL: look it up (gm_template_find) */
    const char *exe_path;       /* the running program, for <its dir>/../templates; may be NULL */
    const char *gnuplot;        /* program name or path; NULL: "gnuplot" */
    double gnuplot_timeout;     /* seconds one gnuplot run may take; 0: GM_GNUPLOT_TIMEOUT_S
                                   (charts.h); < 0: no limit */
    bool timestamp;             /* show taken_at */
    const gm_results *baseline; /* --baseline: a "Changes since" section, the diff of this
                                   baseline against the results (diff.h defaults); NULL: none */
    const char *baseline_name;  /* its file, as the user named it */
    const char *results_name;   /* the results' file, for that section; may be NULL */
    const char *const *inputs;  /* more files read (compared results...): the output may not
                                   be any of them (output.h); may be NULL */
    size_t n_inputs;
    const char *only;           /* --only EXP[,EXP]: these experiments alone (ids, comma-
                                   separated); NULL: all */
} gm_render_opts;

/* The results cut down to the experiments named in `only` (ids, comma-
 * separated), in the file's order: *out shares r's strings and runs (free it
 * with gm_results_view_free, never gm_results_free).  GM_ERR_VALUE naming the
 * unknown id and listing the known ones. */
gm_status gm_results_only(const gm_results *r, const char *only, gm_results *out,
                          gm_error *err);
void gm_results_view_free(gm_results *view);

/* Where report.html is: opts->template_path if set (must exist), else
 * $GM_TEMPLATE_DIR/report.html, else <dir of exe_path>/../templates/report.html,
 * else <dir of exe_path>/../share/gpumem-report/templates/report.html (an install),
 * else <dir of exe_path>/../../templates/report.html (make BUILD=build/nocuda),
 * else GM_DATADIR/templates/report.html.  *path is the caller's to free.
 * GM_ERR_IO naming every place tried when none has it. */
gm_status gm_template_find(const gm_render_opts *opts, char **path, gm_error *err);

/* Render r to opts->out_path.  With a baseline, the diff is computed first:
 * when it cannot be (two runs of one file that cannot be told apart),
 * GM_ERR_VALUE and nothing is written.  Markdown also writes its charts as SVG files in
 * <stem>.charts/ next to it (replacing a previous chart directory only when it
 * holds nothing but chart-NN.svg files).  On failure nothing new is left at the
 * output path or the chart directory.  The output may not be the results,
 * the baseline or the template file (GM_ERR_VALUE, checked before any chart
 * is drawn).  A chart gnuplot cannot draw becomes a note in the report (the
 * chart, gnuplot's message, and the runs and fields of its experiment that a
 * chart cannot show); the report is written and GM_ERR_INCOMPLETE returned,
 * its message naming those charts.  A gnuplot run past the time limit stops
 * the render (GM_ERR_GNUPLOT, nothing written). */
gm_status gm_render(const gm_results *r, const gm_render_opts *opts, gm_error *err);

/* Any document made of Markdown and charts, written as gm_render writes the
 * report: md_fn(ctx, charts, chart_dir) gives the Markdown (chart_dir NULL:
 * the "![](gm-charts:N)" placeholders for HTML, as gm_render_markdown does);
 * the charts are drawn here; HTML goes into the template with {{title}} =
 * title (escaped here).  Used by the device comparison (compare.h). */
typedef char *(*gm_doc_markdown_fn)(const void *ctx, const gm_charts *charts,
                                    const char *chart_dir);
gm_status gm_render_doc(gm_doc_markdown_fn md_fn, const void *ctx, const char *title,
                        gm_charts *charts, const gm_render_opts *opts, gm_error *err);

#endif
