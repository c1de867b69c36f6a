/* chart.h — a chart as what it shows, and the one place it becomes gnuplot.
 *
 * A page (the report, the device comparison, the trend, the diff) fills a
 * gm_chart_spec: bars (a value per category and series, grouped), horizontal
 * bars (the names beside them) or lines over a numeric x; named series; axis
 * labels, tics and log scales; reference lines; a title.  gm_charts_add
 * turns it into gnuplot commands (gm_chart_gnuplot) and keeps them in the
 * page's chart list, which charts.h draws with one gnuplot run.
 *
 * Every string of a spec is text from outside as far as gnuplot is
 * concerned: it is written as a single-quoted literal (gm_esc_gnuplot: no
 * backquote substitution, no escapes) marked `noenhanced`, a tic label with
 * its '%' doubled (gnuplot reads tic labels as formats), cut at a length the
 * chart has room for; data blocks hold numbers only (%.17g, NaN for none).
 * Sizes, fonts, colours and margins are chosen here, so every page's charts
 * look alike.
 */
#ifndef GM_CHART_H
#define GM_CHART_H

#include "../core/buf.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- a chart's spec --------------------------------------------------------- */

typedef enum {
    GM_CHART_BARS,    /* categories along x, each series' bar side by side in each;
                         drawn as HBARS where the names do not fit level under them */
    GM_CHART_HBARS,   /* categories down the left, their names beside the bars */
    GM_CHART_LINES    /* series over a numeric x */
} gm_chart_kind;

typedef enum {
    GM_SERIES_MAIN,   /* a bar (bar charts) or a line with points (line charts) */
    GM_SERIES_MARK,   /* a marker on the bar of series `over` in each category: a prediction */
    GM_SERIES_TICK    /* a short line across the bar of series `over`: its own ideal */
} gm_series_kind;

#define GM_RGB_NONE 0xffffffffu

typedef struct {
    double x;          /* lines: the x; bars: the category's index (gm_chart_put sets it) */
    double y;          /* NaN: no value */
    double lo, hi;     /* a range drawn as whiskers (the min-max of repetitions); NaN: none */
    unsigned rgb;      /* the point's own colour (0xRRGGBB); GM_RGB_NONE: the series' */
    char *note;        /* text beside the bar's end; NULL: none */
} gm_chart_point;

typedef struct {
    gm_series_kind kind;
    char *name;             /* legend entry; NULL: none */
    char *range_name;       /* legend entry of the whiskers, when points have a range */
    gm_chart_point *p;
    size_t n, cap;
    int color;              /* palette index; -1: the series' own place in the palette */
    bool dashed;            /* a second quantity of the same thing (stores beside loads) */
    size_t over;            /* MARK, TICK: the index of the bar series it sits on */
} gm_chart_series;

typedef enum {
    GM_REF_CEILING,   /* what the device can reach: grey, dashed */
    GM_REF_IDEAL,     /* the best the access pattern allows: green, dotted */
    GM_REF_LEVEL,     /* a run drawn as a level across a sweep: palette `color`, dashed */
    GM_REF_STEP,      /* where a trend stepped: red, dashed, unnamed */
    GM_REF_ORIGIN     /* the value axis's "no change" (ratio 1): dark, solid, unnamed */
} gm_ref_kind;

typedef struct {
    gm_ref_kind kind;
    bool along;       /* at a place along the x (lines) axis; else at a value */
    double at;
    char *name;       /* legend entry; NULL: none */
    char *note;       /* text on the line, at its end (which of several it is); NULL: none */
    int color;        /* GM_REF_LEVEL: palette index */
} gm_chart_ref;

typedef struct {
    double at;
    char *label;
} gm_chart_tic;

typedef enum {
    GM_AXIS_NUM_AUTO,    /* gnuplot's */
    GM_AXIS_NUM_PLAIN,   /* 0.5, 120, 1e+06 (%g) */
    GM_AXIS_NUM_SI,      /* 65.9M: counts */
    GM_AXIS_NUM_INT      /* 1024 (%.0f): a log2 axis of sizes */
} gm_axis_num;

typedef struct {
    char *label;
    int log;              /* 0: linear; else the base (2 or 10) */
    double min, max;      /* NaN: from the data; a linear value axis starts at 0 unless set */
    double at_least;      /* the axis reaches at least this (a 100 % line); NaN: no */
    gm_chart_tic *tics;   /* explicit tics; none: gnuplot's */
    size_t n_tics;
    double step;          /* tic step (a factor on a log axis); 0: gnuplot's */
    gm_axis_num num;
} gm_chart_axis;

typedef struct {
    gm_chart_kind kind;
    char *title;            /* drawn above the plot */
    char **cats;            /* bars: each category's name, in order */
    size_t n_cats;
    gm_chart_axis x;        /* lines: the numeric axis (bars: its label only) */
    gm_chart_axis v;        /* the value axis: up in BARS and LINES, across in HBARS */
    gm_chart_series *s;
    size_t n_s;
    gm_chart_ref *refs;
    size_t n_refs;
    int width;              /* the canvas's width, px; 0: GM_CHART_WIDTH */
} gm_chart_spec;

/* The width of a chart's canvas, px, where the spec names none: about the
 * width a page shows a chart at in a 1,280-px window (the report's and the
 * comparison's two-column grid, templates/report.html: 578 px; the trend's
 * figures, 580 px), so that the chart's text is drawn at about its size. */
#define GM_CHART_WIDTH 600

/* An empty chart of this kind and title: axes linear, value axis from 0 (a
 * linear one), no series. */
void gm_chart_init(gm_chart_spec *c, gm_chart_kind kind, const char *title);
void gm_chart_free(gm_chart_spec *c);

/* Bars: the next category, at index n_cats. */
void gm_chart_cat(gm_chart_spec *c, const char *name);

/* A new series; the pointer holds until the next series is added. */
gm_chart_series *gm_chart_series_add(gm_chart_spec *c, gm_series_kind kind, const char *name);

/* The next point of s (bars: of category s->n): its range none, its colour
 * the series', no note.  The pointer holds until the next point is put. */
gm_chart_point *gm_chart_put(gm_chart_series *s, double x, double y);
void gm_chart_note(gm_chart_point *p, const char *note);

/* A reference line; the pointer holds until the next one is added. */
gm_chart_ref *gm_chart_add_ref(gm_chart_spec *c, gm_ref_kind kind, bool along, double at,
                               const char *name);
void gm_chart_ref_note(gm_chart_ref *r, const char *note);
void gm_axis_label(gm_chart_axis *a, const char *label);
void gm_axis_tic(gm_chart_axis *a, double at, const char *label);

/* The chart's gnuplot commands, without `set output`: its terminal (size and
 * font), then what it shows; data blocks named after `id` (letters, digits
 * and '_' kept; "chart-01" gives $chart_01_0, ...).  The canvas is the
 * spec's width and as tall as its plot (at least 250 px; a row per
 * horizontal bar's category), title, tics, axis label and key need.  Caller
 * frees. */
char *gm_chart_gnuplot(const gm_chart_spec *c, const char *id);

/* ---- a page's charts ---------------------------------------------------------- */

typedef struct {
    size_t section;   /* which part of the page it belongs to (the report: the
                         index into the gm_sections the plan was made from) */
    char *name;       /* "chart-01": file stem, and the id prefix when inlined */
    char *title;      /* plain text (escaped where it goes) */
    char *script;     /* gnuplot commands that draw it, without `set output` */
    char *svg;        /* the SVG gnuplot wrote; NULL until drawn */
    char *failed;     /* set when gnuplot could not draw this chart (svg NULL): its
                         error lines, for the note the report shows instead */
} gm_chart;

typedef struct {
    gm_chart *v;
    size_t n;
} gm_charts;

/* Does the chart show something a sentence would not: bars in two places
 * or more (categories with a value), or lines through two points or more,
 * whose values (markers and levels included, ideals not) are not all the
 * same.  A chart of one bar, or of bars all equal, is left to the text and
 * the table. */
bool gm_chart_shows_something(const gm_chart_spec *spec);

/* Append the chart the spec describes, when it shows something
 * (gm_chart_shows_something; else nothing, false): its name (file stem and
 * id prefix), its title (the caption and the SVG's <title>) and its
 * section. */
bool gm_charts_add(gm_charts *c, size_t section, const char *name, const char *title,
                   const gm_chart_spec *spec);
void gm_charts_free(gm_charts *c);

/* The whole gnuplot script: encoding, the palette's line types, then for
 * each chart `set output 'NAME.svg'` and its commands; outputs are relative
 * to gnuplot's working directory.  Caller frees. */
char *gm_charts_script(const gm_charts *c);

#endif
