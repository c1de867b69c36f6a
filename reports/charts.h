/* charts.h — what the report compares and draws, and the gnuplot run that draws it.
 *
 * The analysis both the text and the charts read (gm_section: the runs of
 * each experiment, which of them are comparable) is in runs.h.  Here, the
 * charts: planned from the results as chart specs (pure; chart.h turns a
 * spec into gnuplot), drawn by ONE gnuplot process per page (gm_charts_draw),
 * and inlined into HTML with ids made unique per chart (gm_svg_inline).
 */
#ifndef GM_CHARTS_H
#define GM_CHARTS_H

#include "../core/buf.h"
#include "../core/fmt.h"
#include "../core/gm_error.h"
#include "../core/results.h"
#include "chart.h"
#include "runs.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- charts -------------------------------------------------------------- */

/* Decide the report's charts.  Per section, the layouts of the comparison group
 * side by side as bars: bandwidth (against the measured copy bandwidth) or
 * time, then sectors per request, efficiency, DRAM throughput, shared
 * wavefronts per instruction when present, the last two families with each
 * layout's ideal at its own access width (one line where the layouts agree,
 * else a tick on each bar or a line per ideal).  When
 * the experiment sweeps a parameter, the bars keep only the first (speed) and
 * each quantity becomes a line chart along the sweep, one line per variant and
 * value of the other parameters.  Last, when runs of the comparison group carry
 * an address-trace prediction: their measured sectors per request and shared
 * wavefronts per instruction as bars, the predicted figures as markers.  A
 * chart that would show nothing is left out (one bar, values all alike or
 * absent: gm_chart_shows_something).  Pure. */
void gm_charts_plan(const gm_results *r, const gm_sections *s, gm_charts *out);

/* The default limit of one gnuplot run, in seconds (--gnuplot-timeout). */
#define GM_GNUPLOT_TIMEOUT_S 60.0

/* Run `gnuplot` (a program name looked up in PATH, or a path; NULL means
 * "gnuplot") on the script, in a private temporary directory, and read every
 * chart's SVG back into c->v[i].svg.  One run draws every chart; when it fails,
 * each chart is drawn alone, and a chart gnuplot cannot draw gets svg NULL and
 * `failed` (its error lines) while the others are drawn: GM_OK.  Each run may
 * take at most timeout_s (<= 0: no limit); a run that takes longer is killed
 * with its process group and the whole draw stops (GM_ERR_GNUPLOT naming the
 * limit).  The gnuplot process and the directory are registered with
 * gm_cleanup (output.h) while they exist, and removed on every path.
 * GM_ERR_GNUPLOT when the program is missing (message says how to install
 * it), killed, or fails on every chart. */
gm_status gm_charts_draw_within(gm_charts *c, const char *gnuplot, double timeout_s,
                                gm_error *err);
/* The same with the default limit. */
gm_status gm_charts_draw(gm_charts *c, const char *gnuplot, gm_error *err);

/* Append svg for inlining in HTML: the XML declaration, namespace declarations
 * and blank lines dropped, every id and every reference to one (href="#x",
 * xlink:href='#x', url(#x)) prefixed with `prefix` + "-", and the <title>
 * replaced by `title` (HTML-escaped). */
void gm_svg_inline(gm_buf *b, const char *svg, const char *prefix, const char *title);

#endif
