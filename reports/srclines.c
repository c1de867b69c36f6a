#include "srclines.h"

#include "runs.h"

#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/say.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const gm_run *gm_srclines_run_of(const gm_results *r, const char *experiment,
                                 const char *variant)
{
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        if (run->source_lines.present && run->experiment && run->variant && experiment &&
            variant && strcmp(run->experiment, experiment) == 0 &&
            strcmp(run->variant, variant) == 0 && run->source_lines.n_lines > 0)
            return run;
    }
    return NULL;
}

static bool S_has_op(const gm_srcline *l, const char *op)
{
    if (!op)
        return true;
    if (!l->sass)
        return false;
    size_t n = strlen(op);
    for (const char *p = l->sass; (p = strstr(p, op)) != NULL; p += n)
        if ((p == l->sass || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return true;
    return false;
}

static long long S_excess(const gm_srcline *l, bool shared)
{
    return shared ? gm_srcline_excess_wavefronts(l) : gm_srcline_excess_sectors(l);
}

const gm_srcline *gm_srclines_top(const gm_srclines *sl, bool shared, const char *op)
{
    const gm_srcline *best = NULL;
    for (size_t i = 0; i < sl->n_lines; i++) {
        const gm_srcline *l = &sl->lines[i];
        if (!S_has_op(l, op) || S_excess(l, shared) <= 0)
            continue;
        if (!best || S_excess(l, shared) > S_excess(best, shared))
            best = l;
    }
    return best;
}

long long gm_srclines_excess_of(const gm_srclines *sl, bool shared, const char *op,
                                size_t *holders)
{
    long long all = 0;
    size_t n = 0;
    for (size_t i = 0; i < sl->n_lines; i++) {
        const gm_srcline *l = &sl->lines[i];
        long long e = S_excess(l, shared);
        if (e > 0 && S_has_op(l, op)) {
            all += e;
            n++;
        }
    }
    if (holders)
        *holders = n;
    return all;
}

/* A line's code without its indentation, as a code span; "—" without code. */
static gm_say_arg S_code(const gm_srcline *l)
{
    if (!l->text || !*l->text)
        return GM_LIT("—");
    const char *t = l->text;
    while (*t == ' ')
        t++;
    return GM_CODE(t);
}

/* part as a percentage of whole; "—" without a whole. */
static gm_say_arg S_share(double part, double whole)
{
    return whole > 0 ? GM_PCT(100.0 * part / whole) : GM_LIT("—");
}

void gm_srcline_cite_md(gm_buf *b, const gm_srcline *l)
{
    char where[512];
    gm_srcline_where(l, where, sizeof where);
    if (l->text && *l->text)
        gm_say(b, "{} {}", GM_CODE(where), S_code(l));
    else
        gm_esc_md_code(b, where);
}

void gm_srcline_label_gnuplot(gm_buf *b, const gm_srcline *l)
{
    char where[512];
    gm_srcline_where(l, where, sizeof where);
    gm_buf s = GM_BUF_INIT;
    gm_buf_puts(&s, where);
    if (l->text && *l->text) {
        gm_buf_puts(&s, ": ");
        const char *t = l->text;
        while (*t == ' ')
            t++;
        gm_buf_puts(&s, t);
    }
    gm_esc_gnuplot(b, s.data);
    gm_buf_free(&s);
}

/* One table: the top lines of sl by excess sectors (shared: wavefronts). */
static void S_table(gm_buf *b, const gm_srclines *sl, bool shared)
{
    size_t idx[GM_SRCLINES_TOP];
    size_t k = gm_srclines_rank(sl, shared, idx, GM_SRCLINES_TOP);
    gm_sl_counter c = shared ? GM_SL_WAVEFRONTS : GM_SL_SECTORS;
    gm_sl_counter ci = shared ? GM_SL_WAVEFRONTS_IDEAL : GM_SL_SECTORS_IDEAL;
    double total = (double)gm_srclines_total(sl, c);
    gm_say(b, "| {} | Code | SASS | {} | Ideal | Excess | Excess, % of the kernel's {} |\n"
              "|---|---|---|--:|--:|--:|--:|\n",
           GM_LIT(sl->line_info ? "Line" : "Instruction"),
           GM_LIT(shared ? "Shared wavefronts" : "Global sectors"),
           GM_LIT(shared ? "wavefronts" : "sectors"));
    for (size_t i = 0; i < k; i++) {
        const gm_srcline *l = &sl->lines[idx[i]];
        char where[512];
        gm_srcline_where(l, where, sizeof where);
        double excess = (double)S_excess(l, shared);
        gm_say(b, "| {} | {} | {} | {} | {} | {} | {} |\n", GM_CODE(where), S_code(l),
               GM_TEXT(l->sass ? l->sass : "—"), GM_COUNT((double)l->count[c]),
               GM_COUNT((double)l->count[ci]), GM_COUNT(excess), S_share(excess, total));
    }
    gm_buf_puts(b, "\n");
}

static long long S_total_excess(const gm_srclines *sl, bool shared)
{
    long long t = 0;
    for (size_t i = 0; i < sl->n_lines; i++)
        t += S_excess(&sl->lines[i], shared);
    return t;
}

/* ---- which array wastes the bytes (the tracer's per-allocation rows) ----------- */

/* An allocation's name in a table cell: the arguments that point into it as
 * code, or what it is when none does. */
static gm_say_arg S_alloc_name(const gm_sl_alloc *a)
{
    if (a->name && *a->name)
        return GM_CODE(a->name);
    return GM_LIT(a->size < 0 ? "outside every known allocation"
                              : "an allocation no argument points to");
}

static gm_say_arg S_alloc_access(const gm_sl_alloc *a)
{
    return GM_LIT(a->loads && a->stores ? "read, written"
                  : a->stores          ? "written"
                  : a->loads           ? "read"
                                       : "atomics");
}

static gm_say_arg S_alloc_size(const gm_sl_alloc *a)
{
    return a->size < 0 ? GM_LIT("—") : GM_BYTES((double)a->size);
}

/* The allocations a launch touched, most excess first; nothing without them. */
static void S_alloc_table(gm_buf *b, const gm_srclines *sl)
{
    if (!sl->n_allocs)
        return;
    double total = (double)S_total_excess(sl, false);
    /* how an array is named: the method section, once */
    gm_buf_puts(b, "Which arrays the launch's global accesses fell in:\n\n"
                   "| Array | Size | Access | Bytes asked | Sectors | Ideal | Excess | Excess, % "
                   "of the kernel's |\n|---|--:|---|--:|--:|--:|--:|--:|\n");
    for (size_t i = 0; i < sl->n_allocs; i++) {
        const gm_sl_alloc *a = &sl->allocs[i];
        double x = (double)gm_sl_alloc_excess(a);
        gm_say(b, "| {} | {} | {} | {} | {} | {} | {} | {} |\n", S_alloc_name(a),
               S_alloc_size(a), S_alloc_access(a), GM_BYTES((double)a->bytes),
               GM_COUNT((double)a->sectors), GM_COUNT((double)a->sectors_ideal), GM_COUNT(x),
               S_share(x, total));
    }
    gm_buf_puts(b, "\n");
}

/* The allocation with the most excess sectors, or NULL when none has any. */
static const gm_sl_alloc *S_alloc_top(const gm_srclines *sl)
{
    const gm_sl_alloc *best = NULL;
    for (size_t i = 0; i < sl->n_allocs; i++)
        if (gm_sl_alloc_excess(&sl->allocs[i]) > 0 &&
            (!best || gm_sl_alloc_excess(&sl->allocs[i]) > gm_sl_alloc_excess(best)))
            best = &sl->allocs[i];
    return best;
}

static void S_params(gm_buf *b, const gm_run *run)
{
    for (size_t p = 0; p < run->n_params; p++) {
        if (p)
            gm_buf_puts(b, ", ");
        gm_say(b, "{}={}", GM_TEXT(run->params[p].name ? run->params[p].name : ""),
               GM_VALUE(&run->params[p].value));
    }
}

static void S_one(gm_buf *b, const gm_run *run)
{
    const gm_srclines *sl = &run->source_lines;
    gm_say_arg variant = GM_CODE(run->variant ? run->variant : "?");
    if (!run->kernel) {
        gm_say(b, "**Hottest lines of {}**. ", variant);
    } else if (!run->n_params) {
        gm_say(b, "**Hottest lines of {}** (kernel {}). ", variant, GM_CODE(run->kernel));
    } else {
        gm_buf params = GM_BUF_INIT;
        S_params(&params, run);
        gm_say(b, "**Hottest lines of {}** (kernel {}, {}). ", variant, GM_CODE(run->kernel),
               GM_BUF(&params));
        gm_buf_free(&params);
    }
    if (strcmp(sl->status ? sl->status : "", "collected") != 0) {
        gm_say(b, "Not collected: {}.\n\n", GM_TEXT(sl->note ? sl->note : "no reason given"));
        return;
    }
    double sec = (double)gm_srclines_total(sl, GM_SL_SECTORS);
    double wav = (double)gm_srclines_total(sl, GM_SL_WAVEFRONTS);
    long long xs = S_total_excess(sl, false), xw = S_total_excess(sl, true);
    double sec_ideal = (double)gm_srclines_total(sl, GM_SL_SECTORS_IDEAL);
    double wav_ideal = (double)gm_srclines_total(sl, GM_SL_WAVEFRONTS_IDEAL);
    if (wav > 0)
        gm_say(b, "Its lines fetch {} global sectors (ideal {}) and {} shared wavefronts "
                  "(ideal {}) in one launch.",
               GM_COUNT(sec), GM_COUNT(sec_ideal), GM_COUNT(wav), GM_COUNT(wav_ideal));
    else
        gm_say(b, "Its lines fetch {} global sectors (ideal {}) in one launch.", GM_COUNT(sec),
               GM_COUNT(sec_ideal));
    if (sl->note) {
        /* a sentence of its own: its first letter a capital */
        char *n = gm_xstrdup(sl->note);
        if (n[0] >= 'a' && n[0] <= 'z')
            n[0] = (char)(n[0] - 'a' + 'A');
        gm_say(b, " {}.", GM_TEXT(n));
        free(n);
    }
    gm_buf_puts(b, "\n\n");
    if (xs > 0)
        S_table(b, sl, false);
    if (xw > 0)
        S_table(b, sl, true);
    if (xs <= 0 && xw <= 0)
        gm_buf_puts(b, "No line fetches more global sectors or shared wavefronts than its "
                       "accesses need.\n\n");
    S_alloc_table(b, sl);
}

/* The brief form's row: a layout's hottest line in one memory, in a table
 * "| Layout | Line | Code | Excess | Share |" opened by the caller. */
static void S_brief_row(gm_buf *b, const gm_run *run, bool shared)
{
    const gm_srclines *sl = &run->source_lines;
    const gm_srcline *top = gm_srclines_top(sl, shared, NULL);
    if (!top)
        return;
    char where[512];
    gm_srcline_where(top, where, sizeof where);
    double excess = (double)S_excess(top, shared);
    gm_say(b, "| {} | {} | {} | {} {} | {} |\n", GM_CODE(run->variant ? run->variant : "?"),
           GM_CODE(where), S_code(top), GM_COUNT(excess),
           GM_LIT(shared ? "wavefronts" : "sectors"),
           S_share(excess, (double)gm_srclines_total(sl, shared ? GM_SL_WAVEFRONTS
                                                                : GM_SL_SECTORS)));
}

/* The brief form's arrays: each layout's allocation with the most excess
 * sectors, where the tracer gave allocations; nothing otherwise. */
static void S_brief_arrays(gm_buf *b, const gm_run *const *runs, size_t n)
{
    bool head = false;
    for (size_t i = 0; i < n; i++) {
        const gm_srclines *sl = &runs[i]->source_lines;
        if (!sl->present || !sl->status || strcmp(sl->status, "collected") != 0)
            continue;
        const gm_sl_alloc *top = S_alloc_top(sl);
        if (!top)
            continue;
        if (!head)
            gm_buf_puts(b, "**The array that wastes the most** (each layout's allocation with "
                           "the most global sectors beyond the ideal):\n\n"
                           "| Layout | Array | Size | Access | Excess | Of the kernel's excess |\n"
                           "|---|---|--:|---|--:|--:|\n");
        head = true;
        double x = (double)gm_sl_alloc_excess(top);
        gm_say(b, "| {} | {} | {} | {} | {} sectors | {} |\n",
               GM_CODE(runs[i]->variant ? runs[i]->variant : "?"), S_alloc_name(top),
               S_alloc_size(top), S_alloc_access(top), GM_COUNT(x),
               S_share(x, (double)S_total_excess(sl, false)));
    }
    if (head)
        gm_buf_puts(b, "\n");
}

/* A program's runs without per-line counts whose kernel was counted in
 * another run's launch (the pass counts the first launch of each kernel):
 * said, so that a reader does not take that run's lines for theirs (its NVTX
 * range may hand the kernel other data). */
static void S_counted_elsewhere(gm_buf *b, const gm_run *const *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const gm_run *run = runs[i];
        if (run->source_lines.present || !run->kernel || !run->n_metrics ||
            !gm_run_is_program(run))
            continue;
        const gm_run *by = NULL;
        for (size_t j = 0; j < n && !by; j++)
            if (runs[j]->source_lines.present && runs[j]->kernel &&
                strcmp(runs[j]->kernel, run->kernel) == 0)
                by = runs[j];
        if (!by)
            continue;
        gm_say(b, "{}: not counted per line: the pass counts the first launch of each kernel, "
                  "and this kernel's was {}'s; its lines need not be this run's.\n\n",
               GM_CODE(run->variant ? run->variant : "?"),
               GM_CODE(by->variant ? by->variant : "?"));
    }
}

/* brief: one table of each layout's hottest line (the Markdown forms);
 * else each layout's hottest lines in full (the HTML page). */
static void S_section(gm_buf *b, const gm_run *const *runs, size_t n, bool brief, bool page)
{
    const gm_run *most[2] = {NULL, NULL}, *least[2] = {NULL, NULL};
    bool any = false, head = false;
    gm_buf clean = GM_BUF_INIT, missing = GM_BUF_INIT;
    gm_buf_puts(&clean, "");
    gm_buf_puts(&missing, "");
    size_t n_clean = 0;
    for (size_t i = 0; i < n; i++) {
        const gm_run *run = runs[i];
        if (!run->source_lines.present)
            continue;
        if (!any)
            gm_buf_puts(b, brief && page
                               ? "**Hottest source line of each layout** (one launch; "
                                 "excess = count - ideal; every hot line folded below):\n\n"
                           : brief ? "**Hottest source line of each layout** (one launch; "
                                   "excess = count - ideal; all lines in the HTML report):\n\n"
                                 : "**Per source line** (one launch of each layout, counted "
                                   "as \"How these numbers were obtained\" says; excess = "
                                   "count - ideal):\n\n");
        any = true;
        bool collected =
            run->source_lines.status && strcmp(run->source_lines.status, "collected") == 0;
        if (!brief) {
            S_one(b, run);
        } else if (!collected) {
            gm_say(&missing, "Not collected for {}: {}.\n\n",
                   GM_CODE(run->variant ? run->variant : "?"),
                   GM_TEXT(run->source_lines.note ? run->source_lines.note : "no reason given"));
        } else if (S_total_excess(&run->source_lines, false) <= 0 &&
                   S_total_excess(&run->source_lines, true) <= 0) {
            gm_buf_puts(&clean, n_clean ? ", " : "");
            gm_esc_md_code(&clean, run->variant ? run->variant : "?");
            n_clean++;
        } else {
            if (!head)
                gm_buf_puts(b, "| Layout | Hottest line | Code | Excess | Of the kernel's count |\n"
                               "|---|---|---|--:|--:|\n");
            head = true;
            for (int sh = 0; sh < 2; sh++)
                if (S_total_excess(&run->source_lines, sh) > 0)
                    S_brief_row(b, run, sh);
        }
        if (!collected)
            continue;
        for (int sh = 0; sh < 2; sh++) {
            /* compared only among layouts that use that memory at all */
            if (gm_srclines_total(&run->source_lines, sh ? GM_SL_WAVEFRONTS : GM_SL_SECTORS) <= 0)
                continue;
            long long x = S_total_excess(&run->source_lines, sh);
            if (!most[sh] || x > S_total_excess(&most[sh]->source_lines, sh))
                most[sh] = run;
            if (!least[sh] || x < S_total_excess(&least[sh]->source_lines, sh))
                least[sh] = run;
        }
    }
    if (head)
        gm_buf_puts(b, "\n");
    if (n_clean)
        gm_say(b, "{}: no line fetches more global sectors or shared wavefronts than its "
                  "accesses need.\n\n",
               GM_BUF(&clean));
    gm_buf_put(b, missing.data, missing.len);
    gm_buf_free(&clean);
    gm_buf_free(&missing);
    if (any)
        S_counted_elsewhere(b, runs, n);
    if (brief)
        S_brief_arrays(b, runs, n);
    for (int sh = 0; sh < 2; sh++) {
        if (!most[sh] || most[sh] == least[sh])
            continue;
        const gm_srcline *top = gm_srclines_top(&most[sh]->source_lines, sh, NULL);
        if (!top)
            continue;
        long long xm = S_total_excess(&most[sh]->source_lines, sh);
        long long xl = S_total_excess(&least[sh]->source_lines, sh);
        gm_say(b, sh ? "**The line that makes the difference (shared memory).** {} spends {} "
                       "shared wavefronts beyond the ideal, {} {}; "
                     : "**The line that makes the difference (global memory).** {} fetches {} "
                       "global sectors beyond the ideal, {} {}; ",
               GM_CODE(most[sh]->variant ? most[sh]->variant : "?"), GM_COUNT((double)xm),
               GM_CODE(least[sh]->variant ? least[sh]->variant : "?"), GM_COUNT((double)xl));
        gm_buf cite = GM_BUF_INIT;
        if (brief) {
            /* its code is in the table above */
            char where[512];
            gm_srcline_where(top, where, sizeof where);
            gm_esc_md_code(&cite, where);
        } else {
            gm_srcline_cite_md(&cite, top);
        }
        double share = xm > 0 ? 100.0 * (double)S_excess(top, sh) / (double)xm : NAN;
        if (isfinite(share))
            gm_say(b, "{} of that excess is {}.\n\n", GM_PCT(share), GM_BUF(&cite));
        else
            gm_say(b, "most of it is {}.\n\n", GM_BUF(&cite));
        gm_buf_free(&cite);
    }
}

void gm_srclines_md_section(gm_buf *b, const gm_run *const *runs, size_t n)
{
    S_section(b, runs, n, false, false);
}

void gm_srclines_md_brief(gm_buf *b, const gm_run *const *runs, size_t n, bool page)
{
    S_section(b, runs, n, true, page);
}

size_t gm_srclines_md_layouts(gm_buf *b, const gm_run *const *runs, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (runs[i]->source_lines.present) {
            S_one(b, runs[i]);
            k++;
        }
    return k;
}

/* ---- diff ------------------------------------------------------------------ */

static int S_change_cmp(const void *pa, const void *pb)
{
    const gm_srcline_change *a = pa, *b = pb;
    return a->change > b->change ? -1 : (a->change < b->change);
}

static long long S_c(const gm_srcline *l, gm_sl_counter k) { return l ? l->count[k] : 0; }

/* "x → y", or the one number when it did not change */
static void S_delta(gm_buf *b, long long x, long long y)
{
    if (x == y)
        gm_fmt_count(b, (double)x);
    else
        gm_say(b, "{} → {}", GM_COUNT((double)x), GM_COUNT((double)y));
}

size_t gm_srclines_changes(const gm_srclines *base, const gm_srclines *head,
                           gm_srcline_change **out)
{
    size_t cap = base->n_lines + head->n_lines, n = 0;
    gm_srcline_change *v = gm_xcalloc(cap ? cap : 1, sizeof *v);
    static const gm_sl_counter ks[] = {GM_SL_SECTORS, GM_SL_SECTORS_IDEAL, GM_SL_WAVEFRONTS,
                                       GM_SL_WAVEFRONTS_IDEAL, GM_SL_INST};
    size_t *match = gm_xmalloc((base->n_lines ? base->n_lines : 1) * sizeof *match);
    bool *paired = gm_xcalloc(head->n_lines ? head->n_lines : 1, sizeof *paired);
    gm_srclines_match(base->lines, base->n_lines, head->lines, head->n_lines, match);
    for (size_t i = 0; i < base->n_lines; i++)
        if (match[i] != GM_SL_NONE)
            paired[match[i]] = true;
    /* the base's lines (with their head line), then the head's new lines */
    for (size_t i = 0; i < base->n_lines + head->n_lines; i++) {
        bool side = i >= base->n_lines;
        size_t k = side ? i - base->n_lines : i;
        if (side && paired[k])
            continue;
        const gm_srcline *bl = side ? NULL : &base->lines[k];
        const gm_srcline *hl = side ? &head->lines[k]
                                    : match[k] != GM_SL_NONE ? &head->lines[match[k]] : NULL;
        double change = 0;
        for (size_t c = 0; c < sizeof ks / sizeof ks[0]; c++)
            change += fabs((double)S_c(hl, ks[c]) - (double)S_c(bl, ks[c]));
        if (change > 0)
            v[n++] = (gm_srcline_change){bl, hl, change};
    }
    free(match);
    free(paired);
    /* a stable order for equal changes: qsort is not stable, so sort by
     * change and keep the collection order (file order) among equals */
    for (size_t i = 1; i < n; i++) {
        gm_srcline_change x = v[i];
        size_t j = i;
        while (j > 0 && S_change_cmp(&v[j - 1], &x) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    *out = v;
    return n;
}

void gm_srcline_change_where_md(gm_buf *b, const gm_srcline_change *c)
{
    char bw[512], hw[512];
    if (c->base)
        gm_srcline_where(c->base, bw, sizeof bw);
    if (c->head)
        gm_srcline_where(c->head, hw, sizeof hw);
    if (c->base && c->head && strcmp(bw, hw) != 0)
        gm_say(b, "{} → {}", GM_CODE(bw), GM_CODE(hw));
    else
        gm_esc_md_code(b, c->head ? hw : bw);
}

size_t gm_srclines_md_diff(gm_buf *b, const gm_srclines *base, const gm_srclines *head,
                           size_t max)
{
    static const gm_sl_counter ks[] = {GM_SL_SECTORS, GM_SL_SECTORS_IDEAL, GM_SL_WAVEFRONTS,
                                       GM_SL_WAVEFRONTS_IDEAL, GM_SL_INST};
    gm_srcline_change *v = NULL;
    size_t n = gm_srclines_changes(base, head, &v);
    if (n) {
        gm_buf_puts(b, "| Line | Code | Global sectors | Ideal | Shared wavefronts | Ideal | "
                       "Instructions |\n|---|---|--:|--:|--:|--:|--:|\n");
        for (size_t i = 0; i < n && (max == 0 || i < max); i++) {
            const gm_srcline *any = v[i].head ? v[i].head : v[i].base;
            gm_buf where = GM_BUF_INIT;
            gm_srcline_change_where_md(&where, &v[i]);
            gm_say(b, "| {} | {}", GM_BUF(&where), S_code(any));
            gm_buf_free(&where);
            for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
                gm_buf_puts(b, " | ");
                S_delta(b, S_c(v[i].base, ks[k]), S_c(v[i].head, ks[k]));
            }
            gm_buf_puts(b, " |\n");
        }
        if (max && n > max)
            gm_say(b, "\n{} more lines differ.\n", GM_INT(n - max));
        gm_buf_puts(b, "\n");
    }
    free(v);
    return n;
}

/* The same allocation on the other side: by name (the arguments pointing
 * into it), or, unnamed, by size among the unnamed. */
static const gm_sl_alloc *S_alloc_find(const gm_srclines *sl, const gm_sl_alloc *a)
{
    for (size_t i = 0; i < sl->n_allocs; i++) {
        const gm_sl_alloc *c = &sl->allocs[i];
        if (a->name ? (c->name && strcmp(c->name, a->name) == 0)
                    : (!c->name && c->size == a->size))
            return c;
    }
    return NULL;
}

static long long S_ac(const gm_sl_alloc *a, int k)
{
    if (!a)
        return 0;
    return k == 0 ? a->bytes : k == 1 ? a->sectors : k == 2 ? a->sectors_ideal
                                                           : gm_sl_alloc_excess(a);
}

size_t gm_srclines_alloc_changes(const gm_srclines *base, const gm_srclines *head,
                                 gm_sl_alloc_change **out)
{
    size_t n = 0;
    gm_sl_alloc_change *v = gm_xcalloc(base->n_allocs + head->n_allocs + 1, sizeof *v);
    for (int side = 0; side < 2; side++) {
        const gm_srclines *a = side ? head : base, *o = side ? base : head;
        for (size_t i = 0; i < a->n_allocs; i++) {
            const gm_sl_alloc *x = &a->allocs[i], *m = S_alloc_find(o, x);
            if (side && m)
                continue;   /* paired from the base side */
            const gm_sl_alloc *ba = side ? m : x, *ha = side ? x : m;
            bool same = true;
            for (int k = 0; k < 3 && same; k++)
                same = S_ac(ba, k) == S_ac(ha, k);
            if (!same)
                v[n++] = (gm_sl_alloc_change){ba, ha};
        }
    }
    *out = v;
    return n;
}

size_t gm_srclines_md_diff_allocs(gm_buf *b, const gm_srclines *base, const gm_srclines *head)
{
    gm_sl_alloc_change *v = NULL;
    size_t n = gm_srclines_alloc_changes(base, head, &v);
    if (n) {
        gm_buf_puts(b, "| Array | Bytes asked | Global sectors | Ideal | Excess |\n"
                       "|---|--:|--:|--:|--:|\n");
        for (size_t i = 0; i < n; i++) {
            const gm_sl_alloc *any = v[i].head ? v[i].head : v[i].base;
            gm_say(b, "| {}", S_alloc_name(any));
            for (int k = 0; k < 4; k++) {
                gm_buf_puts(b, " | ");
                if (k == 0 && S_ac(v[i].base, 0) != S_ac(v[i].head, 0))
                    gm_say(b, "{} → {}", GM_BYTES((double)S_ac(v[i].base, 0)),
                           GM_BYTES((double)S_ac(v[i].head, 0)));
                else if (k == 0)
                    gm_fmt_bytes(b, (double)S_ac(v[i].head, 0));
                else
                    S_delta(b, S_ac(v[i].base, k), S_ac(v[i].head, k));
            }
            gm_buf_puts(b, " |\n");
        }
        gm_buf_puts(b, "\n");
    }
    free(v);
    return n;
}

size_t gm_srclines_diff_pairs(const gm_diff *d, const gm_diff_row ***out)
{
    const gm_diff_row **v = gm_xcalloc(d->n_rows ? d->n_rows : 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < d->n_rows; i++) {
        const gm_diff_row *r = &d->rows[i];
        if (!r->base || !r->head)
            continue;
        const gm_srclines *sb = &r->base->source_lines, *sh = &r->head->source_lines;
        if (!sb->present || !sh->present || !sb->status || !sh->status ||
            strcmp(sb->status, "collected") != 0 || strcmp(sh->status, "collected") != 0)
            continue;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = v[k]->head == r->head;
        if (!dup)
            v[n++] = r;
    }
    *out = v;
    return n;
}

void gm_srclines_md_diff_section(gm_buf *b, const gm_diff *d, size_t max_chars)
{
    const gm_diff_row **rows = NULL;
    size_t np = gm_srclines_diff_pairs(d, &rows), shown = 0, left = 0;
    gm_buf out = GM_BUF_INIT;
    for (size_t i = 0; i < np; i++) {
        const gm_diff_row *r = rows[i];
        gm_buf t = GM_BUF_INIT;
        size_t changed = gm_srclines_md_diff(&t, &r->base->source_lines,
                                             &r->head->source_lines, GM_SRCLINES_TOP * 2);
        changed += gm_srclines_md_diff_allocs(&t, &r->base->source_lines,
                                              &r->head->source_lines);
        if (changed && max_chars && shown && out.len + t.len + 300 > max_chars) {
            left++;
        } else if (changed) {
            shown++;
            gm_say_arg experiment = GM_CODE(r->head->experiment ? r->head->experiment : "?");
            gm_say_arg variant = GM_CODE(r->head->variant ? r->head->variant : "?");
            if (r->head->n_params) {
                gm_buf params = GM_BUF_INIT;
                S_params(&params, r->head);
                gm_say(&out, "**{} {}** ({}):\n\n", experiment, variant, GM_BUF(&params));
                gm_buf_free(&params);
            } else {
                gm_say(&out, "**{} {}**:\n\n", experiment, variant);
            }
            gm_buf_put(&out, t.data, t.len);
        }
        gm_buf_free(&t);
    }
    if (np && !shown) {
        gm_say(b, "**Per source line:** the {} run{} with per-line counts on both sides count "
                  "the same on every line.\n\n",
               GM_INT(np), GM_LIT(np == 1 ? "" : "s"));
    } else if (shown) {
        gm_say(b, "### Per source line\n\nLines whose counts changed, one launch on each side "
                  "(base → head), largest change first; {} of the {} runs with per-line counts "
                  "on both sides changed:\n\n",
               GM_INT(shown + left), GM_INT(np));
        gm_buf_put(b, out.data, out.len);
        if (left)
            gm_say(b, "{} more run{} with changed lines not shown here, to keep the size; the "
                      "JSON (`--json`) and CSV outputs have every line.\n\n",
                   GM_INT(left), GM_LIT(left == 1 ? "" : "s"));
    }
    gm_buf_free(&out);
    free(rows);
}

/* ---- the method section ------------------------------------------------------ */

bool gm_srclines_md_method(gm_buf *b, const gm_results *r, bool program)
{
    const gm_collection *c = &r->collection;
    if (!c->source_lines_method)
        return false;   /* a file from before the tracer: md_method.c's words */
    bool replay = strcmp(c->source_lines_method, "replay") == 0;
    bool trace = replay || strcmp(c->source_lines_method, "trace") == 0;
    size_t got = 0, failed = 0, arrays = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_srclines *sl = &r->runs[i].source_lines;
        if (!sl->present)
            continue;
        if (sl->status && strcmp(sl->status, "collected") == 0)
            got++;
        else
            failed++;
        arrays += sl->n_allocs > 0;
    }
    if (trace) {
        /* the suite's: who traced the layouts */
        gm_buf who = GM_BUF_INIT;
        if (c->source_lines_processes > 1)
            gm_buf_printf(&who, "%lld processes of their own, side by side, each with whole "
                                "experiments,", c->source_lines_processes);
        else
            gm_buf_puts(&who, "one more process");
        gm_buf_puts(&who, " set up each layout's chosen case (of those whose counters show the "
                          "most sectors per request and wavefronts per shared instruction, the "
                          "smallest launch that gives every SM two blocks) and launched it once, "
                          "traced");
        gm_say(b, "- **Per source line.** After the counter passes and the timing, {} with the "
                  "Compute Sanitizer's tracer and no profiler (the two exclude each other in a "
                  "process). The tracer patched every global and shared memory instruction of a "
                  "traced launch's module for that launch alone (the other launches ran the "
                  "original code) and, per warp-level access, applied the hardware's rules, the "
                  "model's: global sectors and their ideal, shared wavefronts and theirs, per "
                  "instruction and per allocation; instructions were mapped to file and line "
                  "with CUPTI's SASS-to-source correlation on the module's cubin (kernels built "
                  "with `-lineinfo`). These counts equal Nsight Compute's Source page on every "
                  "line of the tracer's test kernels. ",
               GM_LIT(program && replay
                          ? "the first launch of each kernel the counter run profiled was made "
                            "again in a process of its own, traced, from what the counted run "
                            "kept of it just before it ran (the module's cubin, the launch's "
                            "shape and argument bytes, and each allocation its arguments point "
                            "into, moved to a new address with the same alignment); the program "
                            "did not run again"
                          : program ? "the program ran once more, its output discarded, and the "
                                      "first launch of each kernel the counter run profiled was "
                                      "traced in place"
                              : who.data));
        gm_buf_free(&who);
        if (!program)
            gm_buf_puts(b, "A layout whose traced global sectors were fewer than its "
                           "counters measured (the tracer missed an instruction) was counted "
                           "again, alone, under CUPTI's SASS metrics. ");
        if (c->source_lines_fallback)
            gm_say(b, "{}. ", GM_TEXT(c->source_lines_fallback));
        if (arrays)
            gm_buf_puts(b, "An array is named by the kernel arguments whose value points into "
                           "its allocation (as the driver allocated it: a framework's caching "
                           "allocator hands out pieces of larger ones). ");
    } else {
        gm_say(b, "- **Per source line.** After the counter passes and the timing, one launch of "
                  "each {} ran once more, alone, under CUPTI's SASS metrics (global sectors and "
                  "their ideal, shared wavefronts and theirs, per instruction, mapped to file "
                  "and line on the module's cubin); CUPTI 13.0 instruments only the first "
                  "kernel function launched in a process, so each kernel took {}. ",
               GM_LIT(program ? "kernel" : "layout's kernel"),
               GM_LIT(program ? "a run of the program of its own" : "a process of its own"));
        if (c->source_lines_fallback)
            gm_say(b, "The Compute Sanitizer's tracer, which counts every kernel in one run, was "
                      "not used: {}. ", GM_TEXT(c->source_lines_fallback));
    }
    gm_say(b, "{} kernel{} counted", GM_INT(got), GM_LIT(got == 1 ? "" : "s"));
    if (failed)
        gm_say(b, ", {} not (the section says why)", GM_INT(failed));
    if (gm_value_present(&c->source_lines_seconds)) {
        double sec = gm_value_num(&c->source_lines_seconds);
        if (trace)
            gm_say(b, "; the extra {} took {} s in all ({} launch{} counted, a traced one up "
                      "to a few thousand times slower than untraced)",
                   GM_LIT(program && !replay              ? "run"
                          : !program && c->source_lines_processes > 1 ? "processes"
                                                                        : "process"),
                   GM_NUM(sec, 3),
                   GM_INT(c->source_lines_launches),
                   GM_LIT(c->source_lines_launches == 1 ? "" : "es"));
        else
            gm_say(b, "; the {} extra {} took {} s in all", GM_INT(c->source_lines_launches),
                   GM_LIT(program ? (c->source_lines_launches == 1 ? "run" : "runs")
                                  : (c->source_lines_launches == 1 ? "process" : "processes")),
                   GM_NUM(sec, 3));
        gm_buf_puts(b, ", not counted in the profiling time above");
    }
    gm_buf_puts(b, ".\n");
    return true;
}
