/* history_page.c — the history for readers: the trend report (Markdown, or an
 * HTML page with gnuplot charts) and the CSV export (history.h,
 * history_private.h).
 */
#include "history_private.h"

#include "charts.h"

#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/output.h"
#include "../core/say.h"

#include <sqlite3.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ======================================================================== */
/* The report                                                               */
/* ======================================================================== */

static bool S_same_group(const gmh_res *a, const gmh_res *b)
{
    return strcmp(a->device, b->device) == 0 && strcmp(a->settings, b->settings) == 0;
}

/* Is `exp` in the comma-separated list (NULL: every experiment)? */
static bool S_listed(const char *list, const char *exp)
{
    if (!list)
        return true;
    size_t n = strlen(exp);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, exp, n) == 0)
            return true;
        p += len + (e != NULL);
    }
    return false;
}

static const char *S_mlabel(const char *m)
{
    if (strcmp(m, GM_DIFF_TIME) == 0)
        return "time (median)";
    const gm_metric_info *i = gm_catalog_find(m);
    return i ? i->label : m;
}

static const char *S_munit(const char *m)
{
    if (strcmp(m, GM_DIFF_TIME) == 0)
        return "ms";
    const gm_metric_info *i = gm_catalog_find(m);
    return i ? i->unit : "";
}

void gmh_md_commit(gm_buf *b, const gmh_res *r)
{
    char id[13];
    snprintf(id, sizeof id, "%s", r->commit);
    gm_say(b, r->dirty == 1 ? "{} (dirty)" : "{}", GM_CODE(id));
    if (r->twin)
        gm_say(b, " ({})", GM_TEXT(r->twin));
}

void gmh_md_when(gm_buf *b, const gmh_res *r)
{
    if (r->ctime >= 0) {
        time_t t = (time_t)r->ctime;
        struct tm tm;
        char s[32];
        if (gmtime_r(&t, &tm) && strftime(s, sizeof s, "%Y-%m-%d %H:%M UTC", &tm)) {
            gm_buf_puts(b, s);
            return;
        }
    }
    gm_say(b, "taken {}", GM_TEXT(r->taken_at));
}

/* A layout: its variant, and its parameters when it has any. */
static void S_variant_params(gm_buf *b, const char *variant, const char *params)
{
    if (params && *params)
        gm_say(b, "{} {}", GM_CODE(variant), GM_CODE(params));
    else
        gm_say(b, "{}", GM_CODE(variant));
}

static void S_layout(gm_buf *b, const gmh_series *s)
{
    S_variant_params(b, s->variant, s->params);
}

static int S_step_cmp(const void *a, const void *b)
{
    const gmh_step *x = a, *y = b;
    if (x->point != y->point)
        return (x->point > y->point) - (x->point < y->point);
    if (x->series != y->series)
        return (x->series > y->series) - (x->series < y->series);
    return (x->metric > y->metric) - (x->metric < y->metric);
}

static int S_lstep_cmp(const void *a, const void *b)
{
    const gmh_lstep *x = a, *y = b;
    if (x->point != y->point)
        return (x->point > y->point) - (x->point < y->point);
    if (x->series != y->series)
        return (x->series > y->series) - (x->series < y->series);
    long long dx = llabs(x->xs[1] - x->xs[0]) + llabs(x->xw[1] - x->xw[0]);
    long long dy = llabs(y->xs[1] - y->xs[0]) + llabs(y->xw[1] - y->xw[0]);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return strcmp(x->loc, y->loc);
}

static void S_excess_cell(gm_buf *b, const long long x[2])
{
    if (x[0] == x[1])
        gm_say(b, "{}", GM_COUNT((double)x[1]));
    else
        gm_say(b, "{} → {}", GM_COUNT((double)x[0]), GM_COUNT((double)x[1]));
}

/* The source lines whose excess changed from one commit to the next (of
 * those with per-line counts), at most GM_HISTORY_LINE_ROWS rows. */
static void S_lines_md(gm_buf *b, const gmh_table *t, const gmh_res *res)
{
    if (t->n_lpoints == 0)
        return;
    if (t->n_lsteps == 0) {
        gm_say(b, "**Per source line:** no line's excess changed between consecutive commits ({} "
                  "runs of these layouts with per-line counts).\n\n",
               GM_INT((long long)t->n_lpoints));
        return;
    }
    gm_say(b, "**Per source line:** {} change{} of a line's excess (count − ideal, one launch) "
              "from one commit with per-line counts to the next, largest first at each commit. "
              "Lines are matched by their path relative to the source root and line number, "
              "and a line that moved by its code: an edit that moves the waste to other code "
              "shows as one line losing its excess and another gaining it.\n\n",
           GM_INT((long long)t->n_lsteps), GM_LIT(t->n_lsteps == 1 ? "" : "s"));
    gm_buf_puts(b, "| Commit | Layout | Line | Code | Excess global sectors | "
                   "Excess shared wavefronts |\n|---|---|---|---|--:|--:|\n");
    size_t shown = t->n_lsteps < GM_HISTORY_LINE_ROWS ? t->n_lsteps : GM_HISTORY_LINE_ROWS;
    for (size_t i = 0; i < shown; i++) {
        const gmh_lstep *l = &t->lsteps[i];
        gm_buf commit = GM_BUF_INIT, layout = GM_BUF_INIT, line = GM_BUF_INIT, xs = GM_BUF_INIT,
               xw = GM_BUF_INIT;
        gmh_md_commit(&commit, &res[l->point]);
        S_variant_params(&layout, t->e.s[l->series].variant, l->params);
        if (l->from)
            gm_say(&line, "{} → {}", GM_CODE(l->from), GM_CODE(l->loc));
        else
            gm_say(&line, "{}", GM_CODE(l->loc));
        const char *code = l->text;
        while (code && *code == ' ')
            code++;
        S_excess_cell(&xs, l->xs);
        S_excess_cell(&xw, l->xw);
        gm_say(b, "| {} | {} | {} | {} | {} | {} |\n", GM_BUF(&commit), GM_BUF(&layout),
               GM_BUF(&line), code && *code ? GM_CODE(code) : GM_LIT("—"), GM_BUF(&xs),
               GM_BUF(&xw));
        gm_buf_free(&commit);
        gm_buf_free(&layout);
        gm_buf_free(&line);
        gm_buf_free(&xs);
        gm_buf_free(&xw);
    }
    if (t->n_lsteps > shown)
        gm_say(b, "\n{} more line changes (the per-line counts of every run are in the "
                  "database's `lines` table).\n",
               GM_INT((long long)(t->n_lsteps - shown)));
    gm_buf_putc(b, '\n');
}

/* The steps of one experiment, each at the commit that introduced it. */
static void S_steps_md(gm_buf *b, const gmh_table *t, const gmh_res *res)
{
    if (t->n_steps == 0) {
        gm_buf_puts(b, "No step: no exact counter changed and no time or noisy counter moved "
                       "beyond its bound.\n\n");
    } else {
        gm_say(b, "{} step{}, each at the commit that introduced it:\n\n",
               GM_INT((long long)t->n_steps), GM_LIT(t->n_steps == 1 ? "" : "s"));
        gm_buf_puts(b, "| Commit | Layout | Metric | Before | After | Change | Found by |\n"
                       "|---|---|---|--:|--:|--:|---|\n");
        for (size_t i = 0; i < t->n_steps; i++) {
            const gmh_step *s = &t->steps[i];
            const char *m = gmh_key_metrics[s->metric], *u = S_munit(m);
            gm_buf commit = GM_BUF_INIT, layout = GM_BUF_INIT;
            gmh_md_commit(&commit, &res[s->point]);
            S_layout(&layout, &t->e.s[s->series]);
            gm_say(b, s->exact ? "| {} | {} | {} | {} | {} | {} | exact count: any change |\n"
                               : "| {} | {} | {} | {} | {} | {} | change point beyond the "
                                 "diff's bound |\n",
                   GM_BUF(&commit), GM_BUF(&layout), GM_TEXT(S_mlabel(m)),
                   GM_QUANTITY(s->before, u, false), GM_QUANTITY(s->after, u, false),
                   s->before != 0 ? GM_PCT_CHANGE((s->after / s->before - 1.0) * 100.0)
                                  : GM_QUANTITY(s->after - s->before, u, true));
            gm_buf_free(&commit);
            gm_buf_free(&layout);
        }
        gm_buf_putc(b, '\n');
    }
}

/* Where a layout's times start or stop being taken behind the launch gate. */
static void S_gates_md(gm_buf *b, const gmh_table *t, const gmh_res *res)
{
    /* one sentence per commit and direction, the layouts listed in it */
    gm_buf_puts(b, "**How the times were taken changed.**");
    for (size_t i = 0; i < t->n_gates; i++) {
        const gmh_step *g = &t->gates[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = t->gates[j].point == g->point && t->gates[j].after == g->after;
        if (seen)
            continue;
        gm_buf commit = GM_BUF_INIT, layouts = GM_BUF_INIT;
        gmh_md_commit(&commit, &res[g->point]);
        size_t k = 0;
        for (size_t j = i; j < t->n_gates; j++)
            if (t->gates[j].point == g->point && t->gates[j].after == g->after) {
                gm_buf_puts(&layouts, k++ ? ", " : "");
                S_layout(&layouts, &t->e.s[t->gates[j].series]);
            }
        gm_say(b, g->after ? " From {} on, behind the launch gate: {}."
                           : " From {} on, without the launch gate: {}.",
               GM_BUF(&commit), GM_BUF(&layouts));
        gm_buf_free(&commit);
        gm_buf_free(&layouts);
    }
    gm_buf_puts(b, " The gate enqueues repetitions under 2 ms and releases them together, "
                   "so a sample holds no host time to submit a launch; a time that changes "
                   "at such a commit changed with the method, and is not called a step.\n\n");
}

/* The median time of each layout at each commit (the last `rows`; 0: all). */
static void S_times_md(gm_buf *b, const gmh_table *t, const gmh_res *res, size_t n, size_t rows,
                       bool html)
{
    size_t from = rows && n > rows ? n - rows : 0;
    /* the page renders Markdown without raw HTML: a heading line there */
    gm_buf_puts(b, html ? "**Median time of each layout at each commit:**\n\n"
                        : "<details><summary>Median time of each layout at each commit</summary>"
                          "\n\n");
    if (from) {
        gm_buf first = GM_BUF_INIT, last = GM_BUF_INIT;
        gmh_md_commit(&first, &res[0]);
        gmh_md_commit(&last, &res[from - 1]);
        gm_say(b, "The last {} commits; the {} before them, from {} to {}, are in the HTML page "
                  "and the CSV export (`history report --out trend.html`, `history export "
                  "--format csv`; `--md-commits 0` lists them here).\n\n",
               GM_INT((long long)(n - from)), GM_INT((long long)from), GM_BUF(&first),
               GM_BUF(&last));
        gm_buf_free(&first);
        gm_buf_free(&last);
    }
    gm_buf_puts(b, "| Commit | Date |");
    for (size_t i = 0; i < t->e.n; i++)
        gm_say(b, " {} |", GM_CODE(t->e.s[i].variant));
    gm_buf_puts(b, "\n|---|---|");
    for (size_t i = 0; i < t->e.n; i++)
        gm_buf_puts(b, "--:|");
    gm_buf_putc(b, '\n');
    for (size_t p = from; p < n; p++) {
        gm_buf commit = GM_BUF_INIT, when = GM_BUF_INIT;
        gmh_md_commit(&commit, &res[p]);
        gmh_md_when(&when, &res[p]);
        gm_say(b, "| {} | {} |", GM_BUF(&commit), GM_BUF(&when));
        gm_buf_free(&commit);
        gm_buf_free(&when);
        for (size_t i = 0; i < t->e.n; i++) {
            gm_buf marks = GM_BUF_INIT;
            for (size_t k = 0; k < t->n_steps; k++)
                if (t->steps[k].series == i && t->steps[k].point == p && t->steps[k].metric == 0)
                    gm_buf_puts(&marks, " **step**");
            gm_say(b, " {}{} |", GM_QUANTITY(GMH_V(t, i, 0, p, n), "ms", false), GM_BUF(&marks));
            gm_buf_free(&marks);
        }
        gm_buf_putc(b, '\n');
    }
    gm_buf_puts(b, html ? "\n" : "\n</details>\n\n");
}

/* The Markdown of one experiment: the steps, the source lines that moved,
 * then the values per commit (the last `rows` commits; 0: all). */
static void S_table_md(gm_buf *b, const gmh_table *t, const gmh_res *res, size_t n, size_t rows,
                       bool html)
{
    gm_say(b, "### {}\n\n", GM_TEXT(t->e.exp));
    gm_buf layouts = GM_BUF_INIT;
    for (size_t i = 0; i < t->e.n; i++) {
        gm_buf_puts(&layouts, i ? ", " : "");
        S_layout(&layouts, &t->e.s[i]);
    }
    gm_say(b, "Layouts, each at the size run most often: {}.\n\n", GM_BUF(&layouts));
    gm_buf_free(&layouts);
    S_steps_md(b, t, res);
    if (t->n_gates)
        S_gates_md(b, t, res);
    S_lines_md(b, t, res);
    S_times_md(b, t, res, n, rows, html);
}

/* A chart of one metric of one experiment: a line per layout over the
 * commits, a dashed line at each step; device: what the group is called
 * (S_group_label). */
static void S_chart(gm_charts *c, const gmh_table *t, size_t m, const gmh_res *res, size_t n,
                    const char *device)
{
    const char *metric = gmh_key_metrics[m], *unit = S_munit(metric);
    double mx = 0, mn = INFINITY;
    for (size_t i = 0; i < t->e.n; i++)
        for (size_t p = 0; p < n; p++)
            if (isfinite(GMH_V(t, i, m, p, n))) {
                mx = fmax(mx, fabs(GMH_V(t, i, m, p, n)));
                mn = fmin(mn, GMH_V(t, i, m, p, n));
            }
    /* layouts a decade or more apart (a 74 µs kernel beside a 2.1 ms one):
     * a log axis, or the small one's step is a flat line at the bottom */
    bool logy = mn > 0 && isfinite(mn) && mx / mn >= 10.0;
    double scale = 1;
    const char *ylabel = unit;
    char ybuf[64];
    int dec;
    if (strcmp(unit, "ms") == 0)
        ylabel = gm_fmt_ms_unit(mx, &scale, &dec);
    else if (strcmp(unit, "byte") == 0)
        scale = 1.0 / (1024.0 * 1024.0), ylabel = "MiB";
    snprintf(ybuf, sizeof ybuf, "%s%s%s%s", S_mlabel(metric), *ylabel ? ", " : "", ylabel,
             logy ? " (log scale)" : "");

    gm_buf title = GM_BUF_INIT;
    gm_buf_printf(&title, "%s: %s on %s", t->e.exp, S_mlabel(metric), device);
    gm_chart_spec spec;
    gm_chart_init(&spec, GM_CHART_LINES, title.data);
    gm_axis_label(&spec.v, ybuf);
    /* counts with SI prefixes (65.9M); times and MiB as plain numbers */
    spec.v.num = strcmp(unit, "ms") == 0 || strcmp(unit, "byte") == 0 ? GM_AXIS_NUM_PLAIN
                                                                      : GM_AXIS_NUM_SI;
    if (logy) {
        spec.v.log = 10;
        spec.v.min = NAN;
    }
    /* the commits at 1, 2, ..., named by their short ids */
    spec.x.min = 0.5;
    spec.x.max = (double)n + 0.5;
    for (size_t p = 0; p < n; p++) {
        char sid[16];
        snprintf(sid, sizeof sid, "%.7s%s", res[p].commit, res[p].dirty == 1 ? "+" : "");
        gm_axis_tic(&spec.x, (double)(p + 1), sid);
    }
    for (size_t k = 0; k < t->n_steps; k++)
        if (t->steps[k].metric == m)
            gm_chart_add_ref(&spec, GM_REF_STEP, true, (double)(t->steps[k].point + 1), NULL);
    for (size_t i = 0; i < t->e.n; i++) {
        gm_buf l = GM_BUF_INIT;
        gm_buf_printf(&l, "%s %s", t->e.s[i].variant, t->e.s[i].params);
        gm_chart_series *ser = gm_chart_series_add(&spec, GM_SERIES_MAIN, l.data);
        gm_buf_free(&l);
        for (size_t p = 0; p < n; p++)
            gm_chart_put(ser, (double)(p + 1), GMH_V(t, i, m, p, n) * scale);
    }
    char name[32];
    snprintf(name, sizeof name, "trend-%02zu", c->n + 1);
    gm_charts_add(c, 0, name, title.data, &spec);
    gm_chart_free(&spec);
    gm_buf_free(&title);
}

typedef struct {
    char *md;
    size_t chart_from, chart_to;
} S_block;

/* The report's heading and what it shows, for nres results. */
static void S_intro_md(gm_buf *b, const gm_history_query *q, size_t nres)
{
    gm_buf_puts(b, "# gpumem-report history\n\n");
    gm_buf from = GM_BUF_INIT, of = GM_BUF_INIT;
    if (q->db_name)
        gm_say(&from, "From {}: ", GM_CODE(q->db_name));
    if (q->device)
        gm_say(&of, " of {}", GM_TEXT(q->device));
    gm_say(b, "{}{} results file{}{}, in commit order (the commit's time as given to `history "
              "add --commit-time`, else when the run was taken). One history per device and "
              "collection settings. Exact counters (sectors, requests, instructions) are "
              "flagged on any change; times and noisy counters (shared bank conflicts, DRAM "
              "bytes) by a change-point fit whose steps must also pass the bound `gpumem-report "
              "diff` uses (docs/history.md says how). A step is marked at the first commit that "
              "shows it.\n\n",
           GM_BUF(&from), GM_INT((long long)nres), GM_LIT(nres == 1 ? "" : "s"), GM_BUF(&of));
    gm_buf_free(&from);
    gm_buf_free(&of);
    if (nres == 0)
        gm_buf_puts(b, "The history holds nothing yet (`gpumem-report history add RUN.json`).\n\n");
}

/* Item k (0-based) of a settings string ("sizes=full; l2_flush=on; ...;
 * metrics=a,b"): its start and length; NULL past the last. */
static const char *S_setting_item(const char *settings, size_t k, size_t *len)
{
    const char *p = settings;
    for (; k > 0 && p; k--) {
        p = strstr(p, "; ");
        p = p ? p + 2 : NULL;
    }
    if (!p || !*p)
        return NULL;
    const char *e = strstr(p, "; ");
    *len = e ? (size_t)(e - p) : strlen(p);
    return p;
}

/* Does settings hold the item (key=value) it[0..n) exactly? */
static bool S_has_setting(const char *settings, const char *it, size_t n)
{
    size_t len;
    const char *p;
    for (size_t k = 0; (p = S_setting_item(settings, k, &len)); k++)
        if (len == n && memcmp(p, it, n) == 0)
            return true;
    return false;
}

/* The items of settings that tell it from the other settings of
 * all->v[first..last]: for each of them, the first item it does not share,
 * in the order of the items, "; "-separated, the metric list by its
 * length. */
static void S_settings_differ(const gmh_resv *all, size_t first, size_t last,
                              const char *settings, gm_buf *out)
{
    size_t len, n = 0;
    for (; S_setting_item(settings, n, &len); n++)
        ;
    bool *named = gm_xcalloc(n ? n : 1, sizeof *named);
    for (size_t i = first; i <= last; i++) {
        if (strcmp(all->v[i].settings, settings) == 0)
            continue;
        for (size_t k = 0; k < n; k++) {
            const char *it = S_setting_item(settings, k, &len);
            if (!S_has_setting(all->v[i].settings, it, len)) {
                named[k] = true;
                break;
            }
        }
    }
    for (size_t k = 0; k < n; k++) {
        const char *it = S_setting_item(settings, k, &len);
        if (!named[k])
            continue;
        gm_buf_puts(out, out->len ? "; " : "");
        if (len >= 8 && strncmp(it, "metrics=", 8) == 0) {
            size_t nm = len > 8;
            for (size_t c = 8; c < len; c++)
                nm += it[c] == ',';
            gm_buf_printf(out, "%zu metrics", nm);
        } else {
            gm_buf_put(out, it, len);
        }
    }
    free(named);
}

/* What the group of all->v[g] is called: its device, and where the history
 * holds the device under other settings too, the settings that differ
 * ("NVIDIA H100 80GB HBM3 (sizes=app; warmup=0; repetitions=1)"); a group
 * they do not tell apart (two metric lists of one length) also by its place
 * among the device's groups ("settings 2 of 3"). */
static void S_group_label(const gmh_resv *all, size_t g, gm_buf *out)
{
    const gmh_res *r = &all->v[g];
    gm_buf_puts(out, r->device);
    size_t first = g, last = g;
    while (first > 0 && strcmp(all->v[first - 1].device, r->device) == 0)
        first--;
    while (last + 1 < all->n && strcmp(all->v[last + 1].device, r->device) == 0)
        last++;
    gm_buf mine = GM_BUF_INIT;
    S_settings_differ(all, first, last, r->settings, &mine);
    size_t groups = 0, at = 0;
    bool twin = false;
    for (size_t i = first; i <= last; i++) {
        if (i > first && strcmp(all->v[i].settings, all->v[i - 1].settings) == 0)
            continue;   /* a group's results are next to each other */
        groups++;
        if (strcmp(all->v[i].settings, r->settings) == 0) {
            at = groups;
            continue;
        }
        gm_buf other = GM_BUF_INIT;
        S_settings_differ(all, first, last, all->v[i].settings, &other);
        twin |= strcmp(other.data ? other.data : "", mine.data ? mine.data : "") == 0;
        gm_buf_free(&other);
    }
    if (groups > 1) {
        gm_buf_puts(out, " (");
        gm_buf_puts(out, mine.data ? mine.data : "");
        if (twin)
            gm_buf_printf(out, "%ssettings %zu of %zu", mine.len ? "; " : "", at, groups);
        gm_buf_putc(out, ')');
    }
    gm_buf_free(&mine);
}

/* The heading of one group (device and settings; label: what it is called,
 * S_group_label), its points res[0..n). */
static void S_group_md(gm_buf *b, const char *label, const gmh_res *res, size_t n)
{
    gm_say(b, "## {}\n\n", GM_TEXT(label));
    gm_buf c0 = GM_BUF_INIT, w0 = GM_BUF_INIT, c1 = GM_BUF_INIT, w1 = GM_BUF_INIT;
    gmh_md_commit(&c0, &res[0]);
    gmh_md_when(&w0, &res[0]);
    gmh_md_commit(&c1, &res[n - 1]);
    gmh_md_when(&w1, &res[n - 1]);
    /* the metric list is long: its count says enough here (the CSV has it) */
    const char *ml = strstr(res[0].settings, "metrics=");
    gm_buf sb = GM_BUF_INIT;
    if (ml) {
        size_t nm = ml[8] ? 1 : 0;
        for (const char *c = ml + 8; *c; c++)
            nm += *c == ',';
        gm_buf_put(&sb, res[0].settings, (size_t)(ml - res[0].settings));
        gm_buf_printf(&sb, "%zu metrics", nm);
    } else {
        gm_buf_puts(&sb, res[0].settings);
    }
    gm_say(b, "{} results from {} ({}) to {} ({}); driver {}; settings: {}.\n\n",
           GM_INT((long long)n), GM_BUF(&c0), GM_BUF(&w0), GM_BUF(&c1), GM_BUF(&w1),
           GM_TEXT(res[n - 1].driver), GM_CODE(sb.data));
    gm_buf_free(&sb);
    gm_buf_free(&c0);
    gm_buf_free(&w0);
    gm_buf_free(&c1);
    gm_buf_free(&w1);
}

/* The experiments of the group of r listed in q->only, sorted, into
 * *exps[0..*ne) (the caller frees them, also on failure). */
static gm_status S_group_exps(gm_history *h, const gm_history_query *q, const gmh_res *r,
                              char ***exps, size_t *ne, gm_error *err)
{
    sqlite3_stmt *st = NULL;
    gm_status s = gmh_prepare(h, "SELECT DISTINCT ru.experiment FROM runs ru JOIN results r "
                                 "ON ru.result_id = r.id WHERE r.device = ?1 AND r.settings = ?2 "
                                 "ORDER BY 1", &st, err);
    *exps = NULL;
    *ne = 0;
    if (s == GM_OK && (!gmh_bind_text(st, 1, r->device) || !gmh_bind_text(st, 2, r->settings)))
        s = gmh_fail_db(h, err, "binding a device");
    int rc = SQLITE_DONE;
    while (s == GM_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        char *x = gmh_col_text(st, 0);
        if (!S_listed(q->only, x)) {
            free(x);
            continue;
        }
        *exps = gm_xrealloc(*exps, (*ne + 1) * sizeof **exps);
        (*exps)[(*ne)++] = x;
    }
    if (s == GM_OK && rc != SQLITE_DONE)
        s = gmh_fail_db(h, err, "reading experiments");
    sqlite3_finalize(st);
    return s;
}

/* Experiment exp over the points res[0..n) appended to b, which then
 * becomes a block of its own, followed by its charts (when charts is
 * non-NULL). */
static gm_status S_exp_block(gm_history *h, const gm_history_query *q, gm_charts *charts,
                             const gmh_res *res, size_t n, const char *exp, const char *group,
                             gm_buf *b, S_block **blocks, size_t *nb, gm_error *err)
{
    gmh_table t;
    gm_status s = gmh_table_load(h, res, n, exp, &t, err);
    if (s == GM_OK) {
        if (t.n_steps)
            qsort(t.steps, t.n_steps, sizeof *t.steps, S_step_cmp);
        if (t.n_lsteps)
            qsort(t.lsteps, t.n_lsteps, sizeof *t.lsteps, S_lstep_cmp);
        S_table_md(b, &t, res, n,
                   charts || q->all ? 0
                                    : q->md_commits ? q->md_commits : GM_HISTORY_MD_COMMITS,
                   charts != NULL);
        *blocks = gm_xrealloc(*blocks, (*nb + 1) * sizeof **blocks);
        S_block *bl = &(*blocks)[(*nb)++];
        bl->md = gm_buf_detach(b);
        bl->chart_from = bl->chart_to = charts ? charts->n : 0;
        /* the time, and each counter that stepped: a flat line says
         * no more than the table's "no step" */
        for (size_t m = 0; charts && m < GMH_NKEY; m++) {
            bool stepped = false;
            for (size_t k = 0; k < t.n_steps; k++)
                stepped |= t.steps[k].metric == m;
            if (t.used[m] && (m == 0 || stepped))
                S_chart(charts, &t, m, res, n, group);
        }
        bl->chart_to = charts ? charts->n : 0;
    }
    gmh_table_free(&t);
    return s;
}

/* The report as blocks of Markdown, each followed by its charts (when
 * charts is non-NULL). */
static gm_status S_report(gm_history *h, const gm_history_query *q, gm_charts *charts,
                          S_block **blocks, size_t *nb, gm_error *err)
{
    *blocks = NULL;
    *nb = 0;
    gmh_resv all;
    gm_status s = gmh_load_results(h, q->device, &all, err);
    if (s != GM_OK)
        return s;
    gm_buf b = GM_BUF_INIT;
    S_intro_md(&b, q, all.n);
    for (size_t g = 0; g < all.n && s == GM_OK;) {
        size_t e = g;
        while (e < all.n && S_same_group(&all.v[g], &all.v[e]))
            e++;
        size_t from = g;
        if (q->last && e - g > q->last)
            from = e - q->last;
        const gmh_res *res = &all.v[from];
        size_t n = e - from;
        gm_buf label = GM_BUF_INIT;
        S_group_label(&all, g, &label);
        S_group_md(&b, label.data, res, n);
        char **exps;
        size_t ne;
        s = S_group_exps(h, q, &res[0], &exps, &ne, err);
        for (size_t x = 0; x < ne && s == GM_OK; x++)
            s = S_exp_block(h, q, charts, res, n, exps[x], label.data, &b, blocks, nb, err);
        for (size_t x = 0; x < ne; x++)
            free(exps[x]);
        free(exps);
        gm_buf_free(&label);
        g = e;
    }
    if (b.len || *nb == 0) {
        *blocks = gm_xrealloc(*blocks, (*nb + 1) * sizeof **blocks);
        S_block *bl = &(*blocks)[(*nb)++];
        bl->md = gm_buf_detach(&b);
        if (!bl->md)
            bl->md = gm_xstrdup("");
        bl->chart_from = bl->chart_to = charts ? charts->n : 0;
    }
    gm_buf_free(&b);
    gmh_resv_free(&all);
    return s;
}

static void S_blocks_free(S_block *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(b[i].md);
    free(b);
}

gm_status gm_history_report_md(gm_history *h, const gm_history_query *q, char **out,
                               gm_error *err)
{
    *out = NULL;
    S_block *bl;
    size_t nb;
    gm_status s = S_report(h, q, NULL, &bl, &nb, err);
    if (s == GM_OK) {
        /* a pull-request comment: whole experiments up to the cap, then a
         * line naming what was cut and where it is */
        size_t cap = q->all ? 0 : q->max_chars ? q->max_chars : GM_HISTORY_MD_MAX_CHARS;
        gm_buf b = GM_BUF_INIT;
        size_t i = 0;
        for (; i < nb; i++) {
            size_t len = strlen(bl[i].md);
            /* room for the cut line unless this is the last section */
            size_t room = i + 1 < nb && cap > 400 ? cap - 400 : cap;
            if (cap && i > 0 && b.len + len > room)
                break;
            gm_buf_puts(&b, bl[i].md);
        }
        if (i < nb) {
            gm_say(&b, "**Cut here** to stay under {} characters (GitHub refuses longer comments): "
                       "{} more experiment section{} not shown. The full report: `gpumem-report "
                       "history report --all`, or `--out trend.html`.\n",
                   GM_INT((long long)cap), GM_INT((long long)(nb - i)),
                   GM_LIT(nb - i == 1 ? "" : "s"));
        }
        *out = gm_buf_detach(&b);
        if (!*out)
            *out = gm_xstrdup("");
    }
    S_blocks_free(bl, nb);
    return s;
}

static const char S_css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#222;"
    "background:#fff}main{max-width:1180px;margin:0 auto;padding:1.5rem}"
    "table{border-collapse:collapse;margin:0.8rem 0;font-size:0.9rem;display:block;"
    "max-width:100%;overflow-x:auto}"
    "th,td{border:1px solid #ccc;padding:0.25rem 0.5rem}th{background:#f3f3f3}"
    "code{font-size:0.88em}p,li,h2,h3{overflow-wrap:anywhere}"
    ".charts{display:flex;flex-wrap:wrap;gap:0.5rem}.charts figure{margin:0;flex:1 1 560px;"
    "max-width:580px}.charts svg{width:100%;height:auto}h2{border-bottom:2px solid #ddd;"
    "padding-bottom:0.2rem;margin-top:2rem}\n";

gm_status gm_history_report_html(gm_history *h, const gm_history_query *q, char **out,
                                 gm_error *err)
{
    *out = NULL;
    gm_charts c = {NULL, 0};
    S_block *bl = NULL;
    size_t nb = 0;
    gm_status s = S_report(h, q, &c, &bl, &nb, err);
    if (s == GM_OK)
        s = gm_charts_draw(&c, q->gnuplot, err);
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<title>gpumem-report history</title>\n<style>\n");
    gm_buf_puts(&b, S_css);
    gm_buf_puts(&b, "</style>\n</head>\n<body>\n<main>\n");
    for (size_t i = 0; i < nb && s == GM_OK; i++) {
        char *html = NULL;
        if ((s = gm_markdown_to_html(bl[i].md, &html, err)) != GM_OK)
            break;
        gm_buf_puts(&b, html);
        free(html);
        if (bl[i].chart_to > bl[i].chart_from) {
            gm_buf_puts(&b, "<div class=\"charts\">\n");
            for (size_t k = bl[i].chart_from; k < bl[i].chart_to; k++) {
                gm_buf_puts(&b, "<figure>\n");
                gm_svg_inline(&b, c.v[k].svg ? c.v[k].svg : "", c.v[k].name, c.v[k].title);
                gm_buf_puts(&b, "</figure>\n");
            }
            gm_buf_puts(&b, "</div>\n");
        }
    }
    gm_buf_puts(&b, "</main>\n</body>\n</html>\n");
    S_blocks_free(bl, nb);
    gm_charts_free(&c);
    if (s != GM_OK) {
        gm_buf_free(&b);
        return s;
    }
    *out = gm_buf_detach(&b);
    return GM_OK;
}

/* ======================================================================== */
/* CSV                                                                      */
/* ======================================================================== */

/* One per-line counter as rows of the export (fixed SQL: column names only). */
#define S_LINE_COL(col, unit)                                                            \
    "  UNION ALL SELECT run_id, 'source_line." col "', " col ", '" unit "', 2, loc FROM lines"

gm_status gm_history_csv(gm_history *h, const gm_history_query *q, char **out, gm_error *err)
{
    *out = NULL;
    sqlite3_stmt *st = NULL;
    gm_status s = gmh_prepare(h,
        "SELECT r.commit_id, r.dirty, r.commit_time, r.taken_at, r.device, r.driver, r.settings,"
        " ru.experiment, ru.variant, ru.params, ru.check_status, x.name, x.value, x.unit,"
        " x.line "
        "FROM results r JOIN runs ru ON ru.result_id = r.id JOIN ("
        "  SELECT run_id, name, value, unit, 1 AS k, NULL AS line FROM metrics"
        "  UNION ALL SELECT id, 'time', median_ms, 'ms', 0, NULL FROM runs"
        S_LINE_COL("inst_executed", "instruction") S_LINE_COL("global_ld", "instruction")
        S_LINE_COL("global_st", "instruction") S_LINE_COL("shared_ld", "instruction")
        S_LINE_COL("shared_st", "instruction") S_LINE_COL("sectors", "sector")
        S_LINE_COL("sectors_ideal", "sector") S_LINE_COL("wavefronts", "wavefront")
        S_LINE_COL("wavefronts_ideal", "wavefront")
        ") x ON x.run_id = ru.id "
        "WHERE (?1 IS NULL OR r.device = ?1) "
        "ORDER BY r.device, r.settings, "
        "COALESCE(r.commit_time, CAST(strftime('%s', r.taken_at) AS INTEGER)), r.taken_at, r.id,"
        " ru.experiment, ru.variant, ru.params, x.k, x.line, x.name", &st, err);
    if (s != GM_OK)
        return s;
    if (!gmh_bind_text(st, 1, q ? q->device : NULL)) {
        sqlite3_finalize(st);
        return gmh_fail_db(h, err, "binding the device");
    }
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "commit,dirty,commit_time,taken_at,device,driver,settings,experiment,variant,"
                    "params,check,metric,value,unit,line\r\n");
    /* the settings less their metric list (every row names its metric) */
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *exp = (const char *)sqlite3_column_text(st, 7);
        if (q && !S_listed(q->only, exp ? exp : ""))
            continue;
        for (int c = 0; c < 15; c++) {
            if (c)
                gm_buf_putc(&b, ',');
            int ty = sqlite3_column_type(st, c);
            if (c == 2 && ty == SQLITE_INTEGER) {
                time_t t = (time_t)sqlite3_column_int64(st, c);
                struct tm tm;
                char ts[32];
                if (gmtime_r(&t, &tm) && strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm))
                    gm_buf_puts(&b, ts);
            } else if (ty == SQLITE_INTEGER) {
                gm_buf_printf(&b, "%lld", (long long)sqlite3_column_int64(st, c));
            } else if (ty == SQLITE_FLOAT) {
                gm_value v = gm_vreal(sqlite3_column_double(st, c));
                gm_fmt_value(&b, &v);
            } else if (ty == SQLITE_TEXT && c == 6) {
                const char *t = (const char *)sqlite3_column_text(st, c);
                const char *ml = t ? strstr(t, "; metrics=") : NULL;
                char *cut = gm_xstrdup(t ? t : "");
                if (ml)
                    cut[ml - t] = '\0';
                gm_esc_csv(&b, cut);
                free(cut);
            } else if (ty == SQLITE_TEXT) {
                gm_esc_csv(&b, (const char *)sqlite3_column_text(st, c));
            }
        }
        gm_buf_puts(&b, "\r\n");
    }
    if (rc != SQLITE_DONE) {
        s = gmh_fail_db(h, err, "reading the history");
        gm_buf_free(&b);
    } else {
        *out = gm_buf_detach(&b);
    }
    sqlite3_finalize(st);
    return s;
}
