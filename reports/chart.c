/* chart.c — a chart's spec, and the gnuplot that draws it (chart.h). */
#include "chart.h"

#include "../core/escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building a spec ----------------------------------------------------------- */

static void S_axis_init(gm_chart_axis *a, double min)
{
    memset(a, 0, sizeof *a);
    a->min = min;
    a->max = NAN;
    a->at_least = NAN;
}

void gm_chart_init(gm_chart_spec *c, gm_chart_kind kind, const char *title)
{
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->title = gm_xstrdup(title ? title : "");
    S_axis_init(&c->x, NAN);
    S_axis_init(&c->v, 0.0);
}

static void S_axis_free(gm_chart_axis *a)
{
    free(a->label);
    for (size_t i = 0; i < a->n_tics; i++)
        free(a->tics[i].label);
    free(a->tics);
}

void gm_chart_free(gm_chart_spec *c)
{
    free(c->title);
    for (size_t i = 0; i < c->n_cats; i++)
        free(c->cats[i]);
    free(c->cats);
    S_axis_free(&c->x);
    S_axis_free(&c->v);
    for (size_t i = 0; i < c->n_s; i++) {
        gm_chart_series *s = &c->s[i];
        free(s->name);
        free(s->range_name);
        for (size_t k = 0; k < s->n; k++)
            free(s->p[k].note);
        free(s->p);
    }
    free(c->s);
    for (size_t i = 0; i < c->n_refs; i++) {
        free(c->refs[i].name);
        free(c->refs[i].note);
    }
    free(c->refs);
    memset(c, 0, sizeof *c);
}

void gm_chart_cat(gm_chart_spec *c, const char *name)
{
    c->cats = gm_xrealloc(c->cats, (c->n_cats + 1) * sizeof *c->cats);
    c->cats[c->n_cats++] = gm_xstrdup(name ? name : "");
}

gm_chart_series *gm_chart_series_add(gm_chart_spec *c, gm_series_kind kind, const char *name)
{
    c->s = gm_xrealloc(c->s, (c->n_s + 1) * sizeof *c->s);
    gm_chart_series *s = &c->s[c->n_s++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->name = gm_xstrdup(name);
    s->color = -1;
    return s;
}

gm_chart_point *gm_chart_put(gm_chart_series *s, double x, double y)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->p = gm_xrealloc(s->p, s->cap * sizeof *s->p);
    }
    gm_chart_point *p = &s->p[s->n++];
    *p = (gm_chart_point){x, y, NAN, NAN, GM_RGB_NONE, NULL};
    return p;
}

void gm_chart_note(gm_chart_point *p, const char *note)
{
    free(p->note);
    p->note = gm_xstrdup(note);
}

gm_chart_ref *gm_chart_add_ref(gm_chart_spec *c, gm_ref_kind kind, bool along, double at,
                               const char *name)
{
    c->refs = gm_xrealloc(c->refs, (c->n_refs + 1) * sizeof *c->refs);
    c->refs[c->n_refs] = (gm_chart_ref){kind, along, at, gm_xstrdup(name), NULL, -1};
    return &c->refs[c->n_refs++];
}

void gm_chart_ref_note(gm_chart_ref *r, const char *note)
{
    free(r->note);
    r->note = gm_xstrdup(note);
}

void gm_axis_label(gm_chart_axis *a, const char *label)
{
    free(a->label);
    a->label = gm_xstrdup(label);
}

void gm_axis_tic(gm_chart_axis *a, double at, const char *label)
{
    a->tics = gm_xrealloc(a->tics, (a->n_tics + 1) * sizeof *a->tics);
    a->tics[a->n_tics++] = (gm_chart_tic){at, gm_xstrdup(label ? label : "")};
}

/* ---- the look ------------------------------------------------------------------- */

/* Okabe–Ito colours: distinguishable with the common colour-vision deficiencies. */
static const char *const S_colors[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                       "#56B4E9", "#D55E00", "#000000", "#F0E442"};
#define S_NCOLORS 8

/* The canvas is about as wide as the page shows it (GM_CHART_WIDTH), so
 * that the type is drawn at about its size: 13 px on a 600-px canvas is 12.5
 * px on the report's page at 1,280 px, where a chart is 578 px wide. */
#define S_FONT 13           /* px of the canvas */
#define S_CHAR 7.4          /* px a character takes as a browser draws it (0.57 em) */
#define S_LINE 17.0         /* px a line of text takes (a key entry, a tic label) */
#define S_PLOT 250.0        /* px a plot takes at least: 240 on the page at 1,280 px */
#define S_GP_CHAR 10.4      /* px gnuplot reckons a character at (0.8 em) for margins and keys */
#define S_MAX_LABEL 48      /* bytes of a legend entry or a tic label along x */
#define S_NAME_ROOM 0.45    /* horizontal bars: the share of the width their names take */

/* ---- text and numbers ---------------------------------------------------------- */

/* s cut to max bytes with "..." (a UTF-8 sequence is not split); caller frees. */
static char *S_cut(const char *s, size_t max)
{
    s = s ? s : "";
    size_t n = strlen(s);
    if (n <= max)
        return gm_xstrdup(s);
    size_t cut = max - 3;
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--;
    char *t = gm_xmalloc(cut + 4);
    memcpy(t, s, cut);
    memcpy(t + cut, "...", 4);
    return t;
}

/* A string for gnuplot, cut to max bytes: quoted, escaped, noenhanced. */
static void S_text(gm_buf *b, const char *s, size_t max)
{
    char *t = S_cut(s, max);
    gm_esc_gnuplot(b, t);
    free(t);
    gm_buf_puts(b, " noenhanced");
}

/* s cut to max bytes in the middle, "…" for what goes: a kernel's name
 * keeps its start and its end (a UTF-8 sequence is not split); caller frees. */
static char *S_cut_middle(const char *s, size_t max)
{
    s = s ? s : "";
    size_t n = strlen(s);
    if (n <= max || max < 8)
        return S_cut(s, max);
    size_t head = (max - 3) * 3 / 5, tail = max - 3 - head;
    while (head > 0 && ((unsigned char)s[head] & 0xC0) == 0x80)
        head--;
    size_t from = n - tail;
    while (from < n && ((unsigned char)s[from] & 0xC0) == 0x80)
        from++;
    gm_buf b = GM_BUF_INIT;
    gm_buf_put(&b, s, head);
    gm_buf_puts(&b, "…");
    gm_buf_puts(&b, s + from);
    return gm_buf_detach(&b);
}

/* A tic label: cut to max bytes (in the middle when `middle`), its '%'
 * doubled (gnuplot reads a tic label as a format for the tic's value),
 * quoted and escaped. */
static void S_tic_text(gm_buf *b, const char *s, size_t max, bool middle)
{
    char *t = middle ? S_cut_middle(s, max) : S_cut(s, max);
    gm_buf pct = GM_BUF_INIT;
    gm_buf_puts(&pct, "");
    for (const char *c = t; *c; c++)
        gm_buf_puts(&pct, *c == '%' ? "%%" : (char[]){*c, 0});
    gm_esc_gnuplot(b, pct.data);
    gm_buf_free(&pct);
    free(t);
}

static void S_num(gm_buf *b, double v)
{
    if (isfinite(v))
        gm_buf_printf(b, "%.17g", v);
    else
        gm_buf_puts(b, "NaN");
}

/* A range bound: the number, or * (from the data). */
static void S_bound(gm_buf *b, double v)
{
    if (isfinite(v))
        S_num(b, v);
    else
        gm_buf_putc(b, '*');
}

/* ---- the parts of a chart -------------------------------------------------------- */

static bool S_has_range(const gm_chart_series *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (isfinite(s->p[i].lo) || isfinite(s->p[i].hi))
            return true;
    return false;
}

static bool S_has_rgb(const gm_chart_series *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->p[i].rgb != GM_RGB_NONE)
            return true;
    return false;
}


/* Has the chart a key: something named, other than the lone series of a
 * bar chart (the quantity, which the title and the axis say). */
static bool S_named(const gm_chart_spec *c)
{
    size_t named = 0, main = 0;
    for (size_t i = 0; i < c->n_s; i++) {
        named += (c->s[i].name != NULL) + (c->s[i].range_name && S_has_range(&c->s[i]));
        main += c->s[i].kind == GM_SERIES_MAIN;
    }
    for (size_t i = 0; i < c->n_refs; i++)
        named += c->refs[i].name != NULL;
    return named > 1 || (named == 1 && (main > 1 || c->kind == GM_CHART_LINES));
}

static size_t S_n_bars(const gm_chart_spec *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_s; i++)
        n += c->s[i].kind == GM_SERIES_MAIN;
    return n;
}

/* The position of bar series `bar` (its index among the MAIN series) in its
 * category, and the width of a bar. */
static double S_bar_width(const gm_chart_spec *c)
{
    size_t nb = S_n_bars(c);
    return nb <= 1 ? 0.7 : 0.8 / (double)nb;
}

static double S_bar_offset(const gm_chart_spec *c, size_t series)
{
    size_t nb = S_n_bars(c), j = 0;
    for (size_t i = 0; i < series && i < c->n_s; i++)
        j += c->s[i].kind == GM_SERIES_MAIN;
    return ((double)j - ((double)nb - 1) / 2.0) * S_bar_width(c);
}

/* The axis letters: where the value axis and the category (or x) axis are. */
static char S_vaxis(const gm_chart_spec *c) { return c->kind == GM_CHART_HBARS ? 'x' : 'y'; }

/* How a chart is laid out on its canvas. */
typedef struct {
    gm_chart_kind kind;   /* bars become horizontal where their names do not fit level */
    int w, h;             /* the canvas, px */
    size_t name_max;      /* bytes of a category's name (cut in the middle) */
    size_t lmargin;       /* horizontal bars: the names' column, in characters */
    bool lean;            /* a line chart's x tic labels lean */
} S_layout;

static size_t S_longest(char *const *v, size_t n, size_t cap)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m = strlen(v[i]) > m ? strlen(v[i]) : m;
    return m < cap ? m : cap;
}

/* The key's entries: how many, and the longest's bytes. */
static size_t S_key_entries(const gm_chart_spec *c, size_t *longest_out)
{
    size_t n = 0, longest = 0;
    const char *names[4];
    for (size_t i = 0; i < c->n_s + c->n_refs; i++) {
        size_t k = 0;
        if (i < c->n_s) {
            names[k++] = c->s[i].name;
            names[k++] = S_has_range(&c->s[i]) ? c->s[i].range_name : NULL;
        } else {
            names[k++] = c->refs[i - c->n_s].name;
        }
        for (size_t j = 0; j < k; j++) {
            if (!names[j])
                continue;
            n++;
            size_t len = strlen(names[j]) < S_MAX_LABEL ? strlen(names[j]) : S_MAX_LABEL;
            longest = len > longest ? len : longest;
        }
    }
    *longest_out = longest;
    return n;
}

/* gnuplot sizes a key's entry by its characters at 0.8 em, wider than they
 * are drawn (about 0.5 em): the entries are narrowed by most of the
 * difference (`set key width`), so that two or three fit a line where they
 * do, a gap of a few characters kept between them. */
static int S_key_narrow(size_t longest)
{
    return 2 - (int)((double)longest * 0.25);
}

/* Lines the key takes below the plot: its entries, as many to a line as
 * gnuplot fits (the text, narrowed; the sample and the gaps). */
static double S_key_lines(const gm_chart_spec *c, int w)
{
    size_t longest = 0, n = S_key_entries(c, &longest);
    if (!n)
        return 0;
    double entry = ((double)longest + S_key_narrow(longest) + 6.0) * S_GP_CHAR;
    size_t per = (size_t)(((double)w - 20.0) / entry);
    per = per ? per : 1;
    return (double)((n + per - 1) / per) + 0.8;
}

static S_layout S_lay_out(const gm_chart_spec *c)
{
    S_layout L = {c->kind, c->width > 0 ? c->width : GM_CHART_WIDTH, 0, S_MAX_LABEL, 0, false};
    double plot_w = L.w - 100.0;
    size_t longest = S_longest(c->cats, c->n_cats, S_MAX_LABEL);
    /* bars whose names do not fit level under them lie down, the names
     * beside them: upright names left the plot a sliver of the canvas */
    if (L.kind == GM_CHART_BARS &&
        (double)c->n_cats * ((double)longest * S_CHAR + 12.0) > plot_w)
        L.kind = GM_CHART_HBARS;
    double tics = 1.6, plot = S_PLOT;
    if (L.kind == GM_CHART_HBARS) {
        L.name_max = (size_t)(S_NAME_ROOM * L.w / S_CHAR);
        if (L.name_max > 60)
            L.name_max = 60;
        /* a margin is counted in gnuplot's characters (about 9 px of the
         * canvas at 13 px), the names drawn in the browser's */
        size_t names = S_longest(c->cats, c->n_cats, L.name_max);
        L.lmargin = (size_t)ceil((double)names * S_CHAR / 9.0) + 3;
        /* a row: room for its name, and for each bar at least 12 px */
        double row = fmax(22.0, 13.0 * (double)S_n_bars(c));
        plot = fmax(S_PLOT, row * (double)c->n_cats);
    } else if (L.kind == GM_CHART_LINES && c->x.n_tics) {
        size_t lt = 0;
        for (size_t i = 0; i < c->x.n_tics; i++)
            lt = strlen(c->x.tics[i].label) > lt ? strlen(c->x.tics[i].label) : lt;
        L.lean = (double)c->x.n_tics * ((double)lt * S_CHAR + 10.0) > plot_w;
        if (L.lean)
            tics = 1.0 + 0.5 * (double)lt * S_CHAR / S_LINE;
    }
    const char *xl = L.kind == GM_CHART_HBARS ? c->v.label : c->x.label;
    double lines = 2.4 + tics + (xl ? 1.4 : 0.0) + (S_named(c) ? S_key_lines(c, L.w) + 1 : 0);
    L.h = (int)ceil(plot + lines * S_LINE + 10.0);
    return L;
}

static void S_terminal(gm_buf *b, const S_layout *L)
{
    gm_buf_printf(b, "set terminal svg size %d,%d dynamic enhanced font 'sans,%d' "
                     "background '#ffffff'\nset termoption noenhanced\n", L->w, L->h, S_FONT);
}

/* The bytes of text a length of px holds. */
static size_t S_fits(double px)
{
    return px > 8 * S_CHAR ? (size_t)(px / S_CHAR) : 8;
}

static void S_head(gm_buf *b, const gm_chart_spec *c, const S_layout *L)
{
    /* the title and the label across as long as the canvas is wide, the
     * one up the side as it is tall */
    size_t across = S_fits(L->w - 30.0), up = S_fits(L->h - 60.0);
    gm_buf_puts(b, "reset\nset title ");
    S_text(b, c->title, across);
    gm_buf_putc(b, '\n');
    /* the axis labels: the value axis's where it is drawn, the other's */
    const char *xl = c->kind == GM_CHART_HBARS ? c->v.label : c->x.label;
    const char *yl = c->kind == GM_CHART_HBARS ? c->x.label : c->v.label;
    if (xl) {
        gm_buf_puts(b, "set xlabel ");
        S_text(b, xl, across);
        gm_buf_putc(b, '\n');
    }
    if (yl) {
        gm_buf_puts(b, "set ylabel ");
        S_text(b, yl, up);
        gm_buf_putc(b, '\n');
    }
    /* the key below, a little apart from the axis's label */
    size_t longest = 0;
    S_key_entries(c, &longest);
    if (S_named(c))
        gm_buf_printf(b, "set key noenhanced below center horizontal samplen 2 height 1 width %d\n",
                      S_key_narrow(longest));
    else
        gm_buf_puts(b, "unset key\n");
    gm_buf_printf(b, "set grid %ctics lt 1 lc rgb '#d9d9d9' lw 1 dt 1\n"
                     "set border 3\nset tics nomirror\n", S_vaxis(c));
}

/* Explicit tics of axis `a` drawn on gnuplot's axis `ax`. */
static void S_tics(gm_buf *b, char ax, const gm_chart_axis *a, const char *how)
{
    gm_buf_printf(b, "set %ctics noenhanced%s (", ax, how);
    for (size_t i = 0; i < a->n_tics; i++) {
        gm_buf_puts(b, i ? ", " : "");
        S_tic_text(b, a->tics[i].label, S_MAX_LABEL, false);
        gm_buf_putc(b, ' ');
        S_num(b, a->tics[i].at);
    }
    gm_buf_puts(b, ")\n");
}

static void S_format(gm_buf *b, char ax, gm_axis_num num)
{
    static const char *const fmt[] = {NULL, "%g", "%.1s%c", "%.0f"};
    if (fmt[num])
        gm_buf_printf(b, "set format %c '%s'\n", ax, fmt[num]);
}

/* The categories: along x under their level names (BARS), or down the
 * left, the first at the top, their names beside them (HBARS, at 1, 2, ...). */
static void S_cat_axis(gm_buf *b, const gm_chart_spec *c, const S_layout *L)
{
    size_t n = c->n_cats;
    if (c->kind == GM_CHART_HBARS) {
        gm_buf_puts(b, "set ytics noenhanced nomirror (");
        for (size_t i = 0; i < n; i++) {
            gm_buf_puts(b, i ? ", " : "");
            S_tic_text(b, c->cats[i], L->name_max, true);
            gm_buf_printf(b, " %zu", i + 1);
        }
        /* no tic mark: the name says where its bars are */
        gm_buf_printf(b, ") scale 0\nset yrange [%zu.6:0.4]\nset lmargin %zu\n", n, L->lmargin);
        return;
    }
    gm_buf_puts(b, "set xtics noenhanced (");
    for (size_t i = 0; i < n; i++) {
        gm_buf_puts(b, i ? ", " : "");
        S_tic_text(b, c->cats[i], S_MAX_LABEL, false);
        gm_buf_printf(b, " %zu", i);
    }
    gm_buf_printf(b, ") scale 0\nset xrange [-0.6:%zu.6]\n", n ? n - 1 : 0);
}

/* The x axis of a line chart. */
static void S_x_axis(gm_buf *b, const gm_chart_spec *c, const S_layout *L)
{
    const gm_chart_axis *a = &c->x;
    if (a->log)
        gm_buf_printf(b, "set logscale x %d\n", a->log);
    if (a->n_tics) {
        /* tics that do not fit level lean, so that their labels do not run
         * into each other */
        S_tics(b, 'x', a, L->lean ? " rotate by 30 right" : "");
    } else if (a->step > 0) {
        gm_buf_puts(b, "set xtics noenhanced ");
        S_num(b, a->step);
        gm_buf_putc(b, '\n');
    }
    S_format(b, 'x', a->num);
    if (isfinite(a->min) || isfinite(a->max)) {
        gm_buf_puts(b, "set xrange [");
        S_bound(b, a->min);
        gm_buf_putc(b, ':');
        S_bound(b, a->max);
        gm_buf_puts(b, "]\n");
    } else {
        /* the x axis spans the data (not the next round tic), a little room each side */
        gm_buf_puts(b, "set autoscale xfix\nset offsets graph 0.03, graph 0.03, 0, 0\n");
    }
}

static void S_value_axis(gm_buf *b, const gm_chart_spec *c)
{
    const gm_chart_axis *a = &c->v;
    char ax = S_vaxis(c);
    if (a->n_tics)
        S_tics(b, ax, a, "");
    S_format(b, ax, a->num);
    if (a->log)
        gm_buf_printf(b, "set logscale %c %d\n", ax, a->log);
    /* from zero to where the data ends: a DRAM that runs at 2% of its peak
     * shows its 2% on the axis, not a flat line at the bottom */
    gm_buf_printf(b, "set %crange [", ax);
    S_bound(b, a->log && !(a->min > 0) ? NAN : a->min);
    gm_buf_putc(b, ':');
    if (isfinite(a->at_least) && !isfinite(a->max)) {
        S_num(b, a->at_least);
        gm_buf_puts(b, "<*");
    } else {
        S_bound(b, a->max);
    }
    gm_buf_puts(b, "]\n");
}

/* A data block per series: x (HBARS: the row, from 1), y, then lo hi when
 * some point has a range, then the colour when some point has its own. */
static void S_blocks(gm_buf *b, const gm_chart_spec *c, const char *id)
{
    for (size_t k = 0; k < c->n_s; k++) {
        const gm_chart_series *s = &c->s[k];
        bool range = S_has_range(s), rgb = S_has_rgb(s);
        gm_buf_printf(b, "$%s_%zu << EOD\n", id, k);
        for (size_t i = 0; i < s->n; i++) {
            const gm_chart_point *p = &s->p[i];
            S_num(b, c->kind == GM_CHART_HBARS ? p->x + 1 : p->x);
            gm_buf_putc(b, ' ');
            S_num(b, p->y);
            if (range) {
                gm_buf_putc(b, ' ');
                S_num(b, p->lo);
                gm_buf_putc(b, ' ');
                S_num(b, p->hi);
            }
            if (rgb)
                gm_buf_printf(b, " %u", p->rgb == GM_RGB_NONE ? 0x333333u : p->rgb);
            gm_buf_putc(b, '\n');
        }
        gm_buf_puts(b, "EOD\n");
    }
}

/* Text beside each bar's end, on the side away from the base. */
static void S_notes(gm_buf *b, const gm_chart_spec *c)
{
    double base = c->v.log ? 1.0 : 0.0;
    size_t tag = 0;
    for (size_t k = 0; k < c->n_s; k++) {
        const gm_chart_series *s = &c->s[k];
        double off = c->kind == GM_CHART_LINES ? 0.0 : S_bar_offset(c, k);
        for (size_t i = 0; i < s->n; i++) {
            const gm_chart_point *p = &s->p[i];
            if (!p->note || !isfinite(p->y))
                continue;
            bool below = p->y < base;
            gm_buf_printf(b, "set label %zu ", ++tag);
            gm_esc_gnuplot(b, p->note);
            gm_buf_puts(b, " at ");
            if (c->kind == GM_CHART_HBARS) {
                S_num(b, p->y);
                gm_buf_puts(b, ", ");
                S_num(b, p->x + 1 + off);
                gm_buf_puts(b, below ? " right offset -0.5,0" : " left offset 0.5,0");
            } else {
                S_num(b, p->x + off);
                gm_buf_puts(b, ", ");
                S_num(b, p->y);
                gm_buf_puts(b, below ? " center offset 0,-0.7" : " center offset 0,0.7");
            }
            gm_buf_puts(b, " noenhanced\n");
        }
    }
}

static const char *S_ref_style(const gm_chart_ref *r, char *buf, size_t cap, int level)
{
    switch (r->kind) {
    case GM_REF_CEILING: return "dt 2 lw 2 lc rgb '#555555'";
    case GM_REF_IDEAL: return "dt 3 lw 2 lc rgb '#009E73'";
    case GM_REF_LEVEL:
        snprintf(buf, cap, "dt 4 lw 2 lc rgb '%s'", S_colors[level % S_NCOLORS]);
        return buf;
    case GM_REF_STEP: return "dt 2 lw 1.5 lc rgb '#c0392b'";
    case GM_REF_ORIGIN: return "lw 1 lc rgb '#444444'";
    }
    return "";
}

/* References drawn as arrows: along the x axis (a step of a trend), in
 * horizontal bars at a value (across the rows), and unnamed ones. */
static bool S_ref_is_arrow(const gm_chart_spec *c, const gm_chart_ref *r)
{
    /* an unnamed one too: it takes no place among the plotted items, which
     * a reader counts as the key's */
    return r->along || c->kind == GM_CHART_HBARS || r->kind == GM_REF_STEP ||
           r->kind == GM_REF_ORIGIN || !r->name;
}

static void S_arrows(gm_buf *b, const gm_chart_spec *c)
{
    for (size_t i = 0; i < c->n_refs; i++) {
        const gm_chart_ref *r = &c->refs[i];
        if (!S_ref_is_arrow(c, r))
            continue;
        char buf[64];
        bool vertical = r->along || c->kind == GM_CHART_HBARS;
        gm_buf_puts(b, "set arrow from ");
        if (vertical) {
            S_num(b, r->at);
            gm_buf_puts(b, ", graph 0 to ");
            S_num(b, r->at);
            gm_buf_puts(b, ", graph 1");
        } else {
            gm_buf_puts(b, "graph 0, first ");
            S_num(b, r->at);
            gm_buf_puts(b, " to graph 1, first ");
            S_num(b, r->at);
        }
        gm_buf_printf(b, " nohead %s back\n",
                      S_ref_style(r, buf, sizeof buf, r->color >= 0 ? r->color : 0));
    }
}

/* Each reference line's note, on the line at an end: a level one's right
 * end, then its left for the next (two close lines keep their notes apart),
 * an upright one's top, then its bottom. */
static void S_ref_notes(gm_buf *b, const gm_chart_spec *c)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n_refs; i++) {
        const gm_chart_ref *r = &c->refs[i];
        if (!r->note || !isfinite(r->at))
            continue;
        bool first_end = k++ % 2 == 0;
        gm_buf_puts(b, "set label ");
        S_text(b, r->note, S_MAX_LABEL);
        if (r->along || c->kind == GM_CHART_HBARS) {
            gm_buf_puts(b, " at first ");
            S_num(b, r->at);
            gm_buf_puts(b, first_end ? ", graph 1 left offset 0.4,-0.7"
                                     : ", graph 0 left offset 0.4,0.7");
        } else {
            gm_buf_puts(b, first_end ? " at graph 1, first " : " at graph 0, first ");
            S_num(b, r->at);
            gm_buf_puts(b, first_end ? " right offset -0.5,0.6" : " left offset 1.5,0.6");
        }
        gm_buf_printf(b, " tc rgb '%s' front\n", r->kind == GM_REF_IDEAL ? "#00704F" : "#444444");
    }
}

static void S_title_of(gm_buf *b, const char *name)
{
    if (name) {
        gm_buf_puts(b, " title ");
        S_text(b, name, S_MAX_LABEL);
    } else {
        gm_buf_puts(b, " notitle");
    }
}

/* The palette place of MAIN series k: its own colour, else its place among
 * the MAIN series. */
static size_t S_line_color(const gm_chart_spec *c, size_t k)
{
    if (k < c->n_s && c->s[k].color >= 0)
        return (size_t)c->s[k].color;
    size_t j = 0;
    for (size_t i = 0; i < k && i < c->n_s; i++)
        j += c->s[i].kind == GM_SERIES_MAIN;
    return j;
}

/* The plot command: the bars or lines, their ranges, the marks on them, then
 * the references at a value. */
static void S_plot(gm_buf *b, const gm_chart_spec *c, const char *id)
{
    const char *sep = "";
    gm_buf_puts(b, "plot ");
    double w = S_bar_width(c), base = c->v.log ? 1.0 : 0.0;
    size_t nline = 0;
    for (size_t k = 0; k < c->n_s; k++) {
        const gm_chart_series *s = &c->s[k];
        if (s->kind != GM_SERIES_MAIN)
            continue;
        bool rgb = S_has_rgb(s);
        int rgbcol = S_has_range(s) ? 5 : 3;
        size_t color = S_line_color(c, k);
        gm_buf_printf(b, "%s$%s_%zu using ", sep, id, k);
        sep = ", ";
        if (c->kind == GM_CHART_LINES) {
            /* past the palette, the colours come again with other markers */
            gm_buf_printf(b, "1:2 with linespoints lt %zu%s%s", color % S_NCOLORS + 1,
                          s->dashed ? " dt 2" : "", color >= S_NCOLORS ? " pt 2" : "");
        } else if (c->kind == GM_CHART_BARS) {
            gm_buf_printf(b, "($1%+.3f):2", S_bar_offset(c, k));
            if (rgb)
                gm_buf_printf(b, ":%d", rgbcol);
            gm_buf_puts(b, " with boxes");
        } else {
            double off = S_bar_offset(c, k), h = w / 2.0;
            gm_buf_printf(b, "(%g):1:($2 < %g ? $2 : %g):($2 < %g ? %g : $2):($1 %+.3f):($1 %+.3f)",
                          base, base, base, base, base, off - h, off + h);
            if (rgb)
                gm_buf_printf(b, ":%d", rgbcol);
            gm_buf_puts(b, " with boxxyerror");
        }
        if (c->kind != GM_CHART_LINES) {
            if (rgb)
                gm_buf_puts(b, " lc rgb variable");
            else
                gm_buf_printf(b, " lc rgb '%s'", S_colors[color % S_NCOLORS]);
        }
        S_title_of(b, s->name);
        nline++;
    }
    /* min-max as capped vectors: the errorbar styles draw a white point over
     * the bar top */
    for (size_t k = 0; k < c->n_s; k++) {
        const gm_chart_series *s = &c->s[k];
        if (s->kind != GM_SERIES_MAIN || !S_has_range(s))
            continue;
        double off = c->kind == GM_CHART_LINES ? 0.0 : S_bar_offset(c, k);
        if (c->kind == GM_CHART_HBARS)
            gm_buf_printf(b, "%s$%s_%zu using 3:($1%+.3f):($4-$3):(0) with vectors heads size "
                             "screen 0.008,90 lw 1.5 lc rgb '#333333'", sep, id, k, off);
        else
            gm_buf_printf(b, "%s$%s_%zu using ($1%+.3f):3:(0):($4-$3) with vectors heads size "
                             "screen 0.008,90 lw 1.5 lc rgb '#333333'", sep, id, k, off);
        S_title_of(b, s->range_name);
        sep = ", ";
    }
    for (size_t k = 0; k < c->n_s; k++) {
        const gm_chart_series *s = &c->s[k];
        if (s->kind == GM_SERIES_MAIN)
            continue;
        double off = c->kind == GM_CHART_LINES ? 0.0 : S_bar_offset(c, s->over);
        bool h = c->kind == GM_CHART_HBARS;
        gm_buf_printf(b, "%s$%s_%zu using ", sep, id, k);
        sep = ", ";
        if (s->kind == GM_SERIES_MARK) {
            if (h)
                gm_buf_printf(b, "2:($1%+.3f)", off);
            else
                gm_buf_printf(b, "($1%+.3f):2", off);
            gm_buf_puts(b, " with points pt 9 ps 1.8 lc rgb '#000000'");
        } else if (c->kind == GM_CHART_LINES) {
            /* a line's own ideal: dotted, in its colour */
            gm_buf_printf(b, "1:2 with lines dt 3 lw 2 lt %zu",
                          S_line_color(c, s->over) % S_NCOLORS + 1);
        } else {
            if (h)
                gm_buf_printf(b, "2:($1%+.3f):(0):(%.3f)", off - w / 2.0, w);
            else
                gm_buf_printf(b, "($1%+.3f):2:(%.3f):(0)", off - w / 2.0, w);
            gm_buf_puts(b, " with vectors nohead lw 3 lc rgb '#009E73'");
        }
        S_title_of(b, s->name);
    }
    int level = (int)nline;
    for (size_t i = 0; i < c->n_refs; i++) {
        const gm_chart_ref *r = &c->refs[i];
        char buf[64];
        int lc = r->color >= 0 ? r->color : level;
        if (r->kind == GM_REF_LEVEL)
            level = lc + 1;
        if (S_ref_is_arrow(c, r)) {
            /* drawn as an arrow; a name still gets its legend entry */
            if (!r->name)
                continue;
            gm_buf_printf(b, "%sNaN with lines %s", sep, S_ref_style(r, buf, sizeof buf, lc));
        } else {
            gm_buf_puts(b, sep);
            S_num(b, r->at);
            gm_buf_printf(b, " with lines %s", S_ref_style(r, buf, sizeof buf, lc));
        }
        S_title_of(b, r->name);
        sep = ", ";
    }
    gm_buf_putc(b, '\n');
}

char *gm_chart_gnuplot(const gm_chart_spec *c_in, const char *id_in)
{
    gm_buf id = GM_BUF_INIT;
    gm_buf_puts(&id, "");
    for (const char *p = id_in ? id_in : "c"; *p; p++) {
        char ch = *p;
        bool word = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_';
        gm_buf_putc(&id, word ? ch : '_');
    }
    S_layout L = S_lay_out(c_in);
    gm_chart_spec laid = *c_in;   /* the same chart, of the kind it is drawn as */
    laid.kind = L.kind;
    const gm_chart_spec *c = &laid;
    gm_buf b = GM_BUF_INIT;
    S_terminal(&b, &L);
    S_head(&b, c, &L);
    if (c->kind == GM_CHART_LINES)
        S_x_axis(&b, c, &L);
    else
        S_cat_axis(&b, c, &L);
    S_value_axis(&b, c);
    if (c->kind != GM_CHART_LINES) {
        gm_buf_puts(&b, "set style fill solid 0.85 border rgb '#333333'\n");
        gm_buf_printf(&b, "set boxwidth %.3f absolute\n", S_bar_width(c));
    }
    S_notes(&b, c);
    S_arrows(&b, c);
    S_ref_notes(&b, c);
    S_blocks(&b, c, id.data);
    S_plot(&b, c, id.data);
    gm_buf_free(&id);
    return gm_buf_detach(&b);
}

/* ---- a page's charts ---------------------------------------------------------------- */

bool gm_chart_shows_something(const gm_chart_spec *spec)
{
    size_t places = 0, points = 0;
    double first = NAN;
    bool differ = false;
    for (size_t i = 0; i < spec->n_cats; i++) {
        bool any = false;
        for (size_t k = 0; k < spec->n_s && !any; k++)
            any = spec->s[k].kind != GM_SERIES_TICK && i < spec->s[k].n &&
                  isfinite(spec->s[k].p[i].y);
        places += any;
    }
    /* the bars or lines and the markers on them (a prediction); not an ideal */
    for (size_t k = 0; k < spec->n_s; k++) {
        const gm_chart_series *s = &spec->s[k];
        for (size_t i = 0; s->kind != GM_SERIES_TICK && i < s->n; i++) {
            double y = s->p[i].y;
            if (!isfinite(y))
                continue;
            points++;
            if (!isfinite(first))
                first = y;
            differ |= fabs(y - first) > 1e-9 * fabs(first);
        }
    }
    for (size_t i = 0; i < spec->n_refs; i++) {
        const gm_chart_ref *r = &spec->refs[i];
        if (r->kind != GM_REF_LEVEL || !isfinite(r->at))
            continue;
        points++;
        if (!isfinite(first))
            first = r->at;
        differ |= fabs(r->at - first) > 1e-9 * fabs(first);
    }
    if (spec->kind == GM_CHART_LINES)
        return points >= 2 && differ;
    return places >= 2 && differ;
}

bool gm_charts_add(gm_charts *c, size_t section, const char *name, const char *title,
                   const gm_chart_spec *spec)
{
    if (!gm_chart_shows_something(spec))
        return false;
    c->v = gm_xrealloc(c->v, (c->n + 1) * sizeof *c->v);
    gm_chart *ch = &c->v[c->n++];
    memset(ch, 0, sizeof *ch);
    ch->section = section;
    ch->name = gm_xstrdup(name);
    ch->title = gm_xstrdup(title);
    ch->script = gm_chart_gnuplot(spec, name);
    return true;
}

void gm_charts_free(gm_charts *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].name);
        free(c->v[i].title);
        free(c->v[i].script);
        free(c->v[i].svg);
        free(c->v[i].failed);
    }
    free(c->v);
    c->v = NULL;
    c->n = 0;
}

char *gm_charts_script(const gm_charts *c)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "# gpumem-report: every chart of one page, drawn by one gnuplot run.\n"
                    "# Text from the results is in single quotes (no substitution) and noenhanced.\n"
                    "set encoding utf8\n"
                    /* each chart sets its own size (gm_chart_gnuplot); this one is
                     * in place before the first `set output` */
                    "set terminal svg size 800,480 dynamic enhanced font 'sans,13' "
                    "background '#ffffff'\n"
                    "set termoption noenhanced\n");
    for (int i = 0; i < S_NCOLORS; i++)
        gm_buf_printf(&b, "set linetype %d lc rgb '%s' lw 2 pt %d ps 0.8\n", i + 1, S_colors[i],
                      (int[]){7, 5, 9, 11, 13, 15, 4, 6}[i]);
    gm_buf_printf(&b, "set linetype cycle %d\n", S_NCOLORS);
    for (size_t i = 0; i < c->n; i++) {
        gm_buf_printf(&b, "\n# %s\nset output '%s.svg'\n", c->v[i].name, c->v[i].name);
        gm_buf_puts(&b, c->v[i].script);
    }
    gm_buf_puts(&b, "unset output\n");
    return gm_buf_detach(&b);
}
