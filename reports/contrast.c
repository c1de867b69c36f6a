/* contrast.c — the question an experiment exists to answer, answered (contrast.h). */
#include "contrast.h"

#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/say.h"
#include "limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- selectors and filters ------------------------------------------------ */

/* Does the parameter `name` of run take the text value [v, v+n)? */
static bool S_param_is(const gm_run *run, const char *name, size_t name_len, const char *v,
                       size_t n)
{
    char key[64];
    if (name_len == 0 || name_len >= sizeof key)
        return false;
    memcpy(key, name, name_len);
    key[name_len] = '\0';
    const gm_param *p = gm_run_param(run, key);
    if (!p)
        return false;
    gm_buf t = GM_BUF_INIT;
    gm_fmt_value(&t, &p->value);
    bool eq = t.len == n && memcmp(t.data, v, n) == 0;
    gm_buf_free(&t);
    return eq;
}

/* Every "p=v|v|v" term of the comma-separated list at s fits the run. */
static bool S_terms_fit(const gm_run *run, const char *s)
{
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', len);
        if (!eq)
            return false;
        size_t nl = (size_t)(eq - s);
        const char *v = eq + 1, *vend = s + len;
        bool any = false;
        while (v <= vend && !any) {
            const char *bar = memchr(v, '|', (size_t)(vend - v));
            const char *ve = bar ? bar : vend;
            any = S_param_is(run, s, nl, v, (size_t)(ve - v));
            v = ve + 1;
        }
        if (!any)
            return false;
        s = end ? end + 1 : NULL;
    }
    return true;
}

bool gm_sel_match(const gm_run *run, const char *sel)
{
    if (!sel || !run->variant)
        return false;
    const char *at = strchr(sel, '@');
    size_t vl = at ? (size_t)(at - sel) : strlen(sel);
    if (strlen(run->variant) != vl || memcmp(run->variant, sel, vl) != 0)
        return false;
    return !at || S_terms_fit(run, at + 1);
}

bool gm_filter_match(const gm_run *run, const char *filter)
{
    return !filter || !*filter || S_terms_fit(run, filter);
}

/* Does the selector name the parameter? */
static bool S_sel_names(const char *sel, const char *name)
{
    const char *s = sel ? strchr(sel, '@') : NULL;
    size_t nl = strlen(name);
    while (s) {
        s++;
        if (strncmp(s, name, nl) == 0 && s[nl] == '=')
            return true;
        s = strchr(s, ',');
    }
    return false;
}

/* What a run must share with its partner: its parameters that neither
 * selector names, as name and formatted value, sorted by name.  Two runs are
 * matched (every such parameter of one present in the other with the same
 * value, and no other) exactly when their keys are equal: names are unique
 * within a run, and neither names nor values hold a NUL (the reader refuses
 * it), which ends each. */
typedef struct {
    char *key;
    size_t len;
    size_t at;   /* the run's place in the section */
} S_keyed;

static int S_param_name_cmp(const void *pa, const void *pb)
{
    const gm_param *const *a = pa, *const *b = pb;
    return strcmp((*a)->name, (*b)->name);
}

static S_keyed S_key(const gm_run *run, size_t at, const char *sa, const char *sb)
{
    const gm_param **ps = gm_xmalloc((run->n_params ? run->n_params : 1) * sizeof *ps);
    size_t n = 0;
    for (size_t i = 0; i < run->n_params; i++) {
        const gm_param *p = &run->params[i];
        if (p->name && !S_sel_names(sa, p->name) && !S_sel_names(sb, p->name))
            ps[n++] = p;
    }
    qsort(ps, n, sizeof *ps, S_param_name_cmp);
    gm_buf k = GM_BUF_INIT;
    gm_buf_puts(&k, "");
    for (size_t i = 0; i < n; i++) {
        gm_buf_put(&k, ps[i]->name, strlen(ps[i]->name) + 1);
        gm_fmt_value(&k, &ps[i]->value);
        gm_buf_putc(&k, '\0');
    }
    free((void *)ps);
    size_t len = k.len;
    return (S_keyed){gm_buf_detach(&k), len, at};
}

static int S_key_cmp(const S_keyed *a, const S_keyed *b)
{
    int c = memcmp(a->key, b->key, a->len < b->len ? a->len : b->len);
    return c ? c : a->len < b->len ? -1 : a->len > b->len;
}

static int S_keyed_cmp(const void *pa, const void *pb)
{
    const S_keyed *a = pa, *b = pb;
    int c = S_key_cmp(a, b);
    return c ? c : a->at < b->at ? -1 : a->at > b->at;
}

static bool S_pairable(const gm_run *run)
{
    return gm_run_passed(run) && isfinite(gm_run_median_ms(run));
}

/* For each run a of side a, the first run b of side b (section order) matched
 * with it: side b's keys sorted, each a's key looked up (n log n, where trying
 * every b for every a is n^2). */
size_t gm_pairs(const gm_section *s, const char *sel_a, const char *sel_b, const char *filter,
                gm_pair **out)
{
    size_t n = 0, cap = 0;
    *out = NULL;
    S_keyed *bs = gm_xmalloc((s->n_runs ? s->n_runs : 1) * sizeof *bs);
    size_t nb = 0;
    for (size_t j = 0; j < s->n_runs; j++)
        if (S_pairable(s->runs[j]) && gm_sel_match(s->runs[j], sel_b))
            bs[nb++] = S_key(s->runs[j], j, sel_a, sel_b);
    qsort(bs, nb, sizeof *bs, S_keyed_cmp);
    for (size_t i = 0; i < s->n_runs && nb; i++) {
        const gm_run *a = s->runs[i];
        if (!S_pairable(a) || !gm_sel_match(a, sel_a) || !gm_filter_match(a, filter))
            continue;
        S_keyed ka = S_key(a, 0, sel_a, sel_b);
        size_t lo = 0, hi = nb;   /* the first key not below ka */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (S_key_cmp(&bs[mid], &ka) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        while (lo < nb && S_key_cmp(&bs[lo], &ka) == 0 && s->runs[bs[lo].at] == a)
            lo++;
        bool found = lo < nb && S_key_cmp(&bs[lo], &ka) == 0;
        free(ka.key);
        if (!found)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            *out = gm_xrealloc(*out, cap * sizeof **out);
        }
        (*out)[n++] = (gm_pair){a, s->runs[bs[lo].at]};
    }
    for (size_t j = 0; j < nb; j++)
        free(bs[j].key);
    free(bs);
    return n;
}

/* ---- counters ------------------------------------------------------------- */

static double S_sum(double x, double y)
{
    if (isnan(x) && isnan(y))
        return NAN;
    return (isnan(x) ? 0 : x) + (isnan(y) ? 0 : y);
}

double gm_counter(const gm_run *run, const char *kind)
{
    if (!kind)
        return NAN;
    if (!strcmp(kind, "ld_spr") || !strcmp(kind, "st_spr")) {
        bool st = kind[0] == 's';
        double sec = gm_run_metric_num(run, st ? GM_M_ST_SECTORS : GM_M_LD_SECTORS);
        double req = gm_run_metric_num(run, st ? GM_M_ST_REQUESTS : GM_M_LD_REQUESTS);
        if (isfinite(sec) && isfinite(req) && req > 0)
            return sec / req;
        return gm_run_metric_num(run, st ? GM_M_ST_SPR : GM_M_LD_SPR);
    }
    if (!strcmp(kind, "shared_wpi")) {
        double w = S_sum(gm_run_metric_num(run, GM_M_SH_LD_WAVES),
                         gm_run_metric_num(run, GM_M_SH_ST_WAVES));
        double i = S_sum(gm_run_metric_num(run, GM_M_SH_LD_INST),
                         gm_run_metric_num(run, GM_M_SH_ST_INST));
        return isfinite(w) && isfinite(i) && i > 0 ? w / i : NAN;
    }
    if (!strcmp(kind, "dram_bytes"))
        return S_sum(gm_run_metric_num(run, GM_M_DRAM_RD), gm_run_metric_num(run, GM_M_DRAM_WR));
    if (!strcmp(kind, "ld_sectors"))
        return gm_run_metric_num(run, GM_M_LD_SECTORS);
    if (!strcmp(kind, "ld_requests"))
        return gm_run_metric_num(run, GM_M_LD_REQUESTS);
    return NAN;
}

const char *gm_counter_label(const char *kind)
{
    static const struct {
        const char *k, *label;
    } L[] = {
        {"ld_spr", "ld sectors/request"},   {"st_spr", "st sectors/request"},
        {"shared_wpi", "shared wavefronts/instruction"}, {"dram_bytes", "DRAM bytes"},
        {"ld_sectors", "global load sectors"}, {"ld_requests", "global load requests"},
    };
    for (size_t i = 0; kind && i < sizeof L / sizeof L[0]; i++)
        if (!strcmp(kind, L[i].k))
            return L[i].label;
    return "";
}

/* A counter's value as a value of a sentence (say.h). */
static gm_say_arg S_counter_arg(const char *kind, double v)
{
    if (!isfinite(v))
        return GM_LIT(GM_FMT_ABSENT);
    if (!strcmp(kind, "dram_bytes"))
        return GM_BYTES(v);
    if (!strcmp(kind, "ld_sectors") || !strcmp(kind, "ld_requests"))
        return GM_COUNT(v);
    if (!strcmp(kind, "shared_wpi"))
        return GM_FIXED(v, 2);
    return GM_FIXED(v, 1);
}

void gm_counter_fmt(gm_buf *b, const char *kind, double v)
{
    gm_say_value(b, S_counter_arg(kind, v));
}

/* ---- the answer ----------------------------------------------------------- */

static double S_work(const gm_run *r)
{
    double x = 0;
    const gm_value *v[] = {&r->bytes_read, &r->bytes_written, &r->flops};
    for (size_t i = 0; i < 3; i++)
        if (gm_value_present(v[i]) && gm_value_num(v[i]) > 0)
            x += gm_value_num(v[i]);
    return x;
}

/* How many "p=v" terms of `at` the run fits. */
static int S_at_score(const gm_run *run, const char *at)
{
    int k = 0;
    for (const char *s = at; s && *s;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char term[128];
        if (len < sizeof term) {
            memcpy(term, s, len);
            term[len] = '\0';
            k += S_terms_fit(run, term);
        }
        s = end ? end + 1 : NULL;
    }
    return k;
}

/* The pair at the preferred point among those both of whose runs have
 * counters (profiled_only) or among all. */
static bool S_find(const gm_section *s, gm_contrast *out, bool profiled_only);

bool gm_contrast_find(const gm_section *s, gm_contrast *out)
{
    return S_find(s, out, false);
}

bool gm_contrast_find_profiled(const gm_section *s, gm_contrast *out)
{
    return S_find(s, out, true);
}

static bool S_find(const gm_section *s, gm_contrast *out, bool profiled_only)
{
    memset(out, 0, sizeof *out);
    out->e = s->exp;
    out->time_ratio = out->ca = out->cb = NAN;
    const gm_experiment *e = s->exp;
    if (!e || !e->contrast_a || !e->contrast_b)
        return false;
    gm_pair *p;
    size_t n = gm_pairs(s, e->contrast_a, e->contrast_b, NULL, &p);
    size_t best = n;
    int best_score = -1;
    double best_work = -1;
    for (size_t i = 0; i < n; i++) {
        if (profiled_only && !(p[i].a->n_metrics && p[i].b->n_metrics))
            continue;
        int sc = S_at_score(p[i].a, e->contrast_at);
        double w = S_work(p[i].a);
        if (sc > best_score || (sc == best_score && w > best_work)) {
            best = i;
            best_score = sc;
            best_work = w;
        }
    }
    if (best < n) {
        out->pair = p[best];
        out->time_ratio = gm_run_median_ms(p[best].a) / gm_run_median_ms(p[best].b);
        out->counter = e->contrast_counter && strcmp(e->contrast_counter, "none")
                           ? e->contrast_counter
                           : NULL;
        out->ca = gm_counter(p[best].a, out->counter);
        out->cb = gm_counter(p[best].b, out->counter);
    }
    free(p);
    return best < n;
}

/* ---- Markdown ------------------------------------------------------------- */

void gm_selector_md(gm_buf *b, const char *sel)
{
    const char *at = strchr(sel, '@');
    size_t vl = at ? (size_t)(at - sel) : strlen(sel);
    char v[128];
    if (vl >= sizeof v)
        vl = sizeof v - 1;
    memcpy(v, sel, vl);
    v[vl] = '\0';
    if (at)
        gm_say(b, "{} ({})", GM_CODE(v), GM_TEXT(at + 1));
    else
        gm_esc_md_code(b, v);
}

/* "`a` (p=v)": a selector as it names its side, to pass as GM_BUF. */
static gm_buf S_sel_md(const char *sel)
{
    gm_buf b = GM_BUF_INIT;
    gm_selector_md(&b, sel);
    return b;
}

void gm_contrast_sides_md(gm_buf *b, const gm_experiment *e)
{
    gm_buf sa = S_sel_md(e->contrast_a), sb = S_sel_md(e->contrast_b);
    gm_say(b, "{} against {}", GM_BUF(&sa), GM_BUF(&sb));
    gm_buf_free(&sa);
    gm_buf_free(&sb);
}

void gm_pair_side_md(gm_buf *b, const gm_run *run, const char *sel)
{
    const char *name = run->variant ? run->variant : "";
    const char *at = sel ? strchr(sel, '@') : NULL;
    if (at)
        gm_say(b, "{} ({})", GM_CODE(name), GM_TEXT(at + 1));
    else
        gm_esc_md_code(b, name);
}

/* A side of a pair, to pass as GM_BUF. */
static gm_buf S_side(const gm_run *run, const char *sel)
{
    gm_buf b = GM_BUF_INIT;
    gm_pair_side_md(&b, run, sel);
    return b;
}

void gm_pair_at_md(gm_buf *b, const char *sel_a, const char *sel_b, const gm_pair *p)
{
    bool any = false;
    for (size_t i = 0; i < p->a->n_params; i++) {
        const gm_param *q = &p->a->params[i];
        if (!q->name || S_sel_names(sel_a, q->name) || S_sel_names(sel_b, q->name))
            continue;
        gm_buf t = GM_BUF_INIT;
        gm_buf_printf(&t, "%s=", q->name);
        gm_fmt_value(&t, &q->value);
        if (any)
            gm_buf_puts(b, ", ");
        gm_esc_md(b, t.data);
        gm_buf_free(&t);
        any = true;
    }
}

void gm_ratio_fmt(gm_buf *b, double x)
{
    if (isfinite(x) && x < 2) {
        gm_fmt_fixed(b, x, 2);
        gm_buf_puts(b, "×");
    } else {
        gm_fmt_ratio(b, x);
    }
}

/* A ratio as gm_ratio_fmt writes it, to pass as GM_BUF. */
static gm_buf S_ratio(double x)
{
    gm_buf b = GM_BUF_INIT;
    gm_ratio_fmt(&b, x);
    return b;
}

/* x / y as S_ratio, or GM_FMT_ABSENT where it has no value. */
static gm_buf S_ratio_of(double x, double y)
{
    gm_buf b = GM_BUF_INIT;
    if (isfinite(x) && isfinite(y) && y > 0)
        gm_ratio_fmt(&b, x / y);
    else
        gm_buf_puts(&b, GM_FMT_ABSENT);
    return b;
}

/* ---- why: the counters of a pair ------------------------------------------ */

/* What the sentence of why needs of a pair: the runs, their names, their
 * limits (limits.h) and the counter the contrast is about. */
typedef struct {
    const gm_run *a, *b;
    const char *sel_a, *sel_b;   /* how to name each side (NULL: the variant) */
    gm_limits la, lb;
    bool brief;                  /* the caller gave the counter's figures already */
} S_pairx;

/* A side's name, to pass as GM_BUF ("{}'s" for the possessive). */
static gm_buf S_name(const S_pairx *x, bool side_a)
{
    return S_side(side_a ? x->a : x->b, side_a ? x->sel_a : x->sel_b);
}

static bool S_near(double x, double y, double tol)
{
    return isfinite(x) && isfinite(y) && y > 0 && fabs(x / y - 1) < tol;
}

/* ", and both are DRAM-bound (90.9% and 92.2% of attainable)" when they are. */
static void S_both_dram(gm_buf *b, const S_pairx *x)
{
    if (x->la.kind != GM_LIMIT_DRAM || x->lb.kind != GM_LIMIT_DRAM)
        return;
    gm_say(b,
           x->la.attainable ? ", and both are DRAM-bound ({} and {} of attainable)"
                            : ", and both are DRAM-bound ({} and {} of the copy bandwidth)",
           GM_PCT(x->la.dram_pct), GM_PCT(x->lb.dram_pct));
}

/* Which cache serves side a's sectors: "L1 serves 69.3% of `global`'s
 * sectors"; false (nothing written) when neither hits half of them. */
static bool S_serves(gm_buf *b, const S_pairx *x, bool side_a)
{
    const gm_limits *l = side_a ? &x->la : &x->lb;
    bool l1 = l->l1_hit >= GM_LIMIT_CACHE_HIT;
    if (!l1 && !(l->l2_hit >= GM_LIMIT_L2_HIT))
        return false;
    gm_buf name = S_name(x, side_a);
    if (l1)
        gm_say(b, "L1 serves {} of {}'s sectors", GM_PCT(l->l1_hit), GM_BUF(&name));
    else
        gm_say(b, "L2 serves {} of the sectors {}'s L1 misses", GM_PCT(l->l2_hit),
               GM_BUF(&name));
    gm_buf_free(&name);
    return true;
}

/* The side with more of the contrast's counter is the faster one: the
 * counter that does separate them, in the time's direction, or that none of
 * those measured does. */
static void S_wrong_way(gm_buf *b, const S_pairx *x)
{
    bool a_slow = gm_run_median_ms(x->a) > gm_run_median_ms(x->b);
    const gm_limits *ls = a_slow ? &x->la : &x->lb, *lf = a_slow ? &x->lb : &x->la;
    /* each candidate's strength: how far past its threshold the slow side is worse */
    enum { L1, L2, DRAM, OCC, SHARED, NC };
    double st[NC] = {
        (lf->l1_hit - ls->l1_hit) / 15.0,
        (lf->l2_hit - ls->l2_hit) / 15.0,
        /* DRAM bytes only where DRAM is busy enough to matter */
        ls->dram_pct >= 10 ? (ls->dram_bytes / lf->dram_bytes - 1) / 0.15 : NAN,
        (lf->occupancy - ls->occupancy) / 10.0,
        (ls->shared_wpi / lf->shared_wpi - 1) / 0.15,
    };
    int pick = -1;
    for (int k = 0; k < NC; k++)
        if (isfinite(st[k]) && st[k] >= 1 && (pick < 0 || st[k] > st[pick]))
            pick = k;
    gm_buf_puts(b, x->brief ? "the faster side has more of them" : ", yet the faster side has more "
                                                                    "of them");
    if (pick < 0) {
        gm_say(b, ", and no memory counter collected here separates them (L1 hit {} against {}, "
                  "occupancy {} against {}, DRAM bytes {} against {}): what limits the time lies "
                  "outside the global-memory path measured here.",
               GM_PCT(x->la.l1_hit), GM_PCT(x->lb.l1_hit), GM_PCT(x->la.occupancy),
               GM_PCT(x->lb.occupancy), GM_BYTES(x->la.dram_bytes), GM_BYTES(x->lb.dram_bytes));
        return;
    }
    bool fa = !a_slow;   /* the faster side is side a */
    static const char *const what[NC] = {"L1's hit rate", "L2's hit rate", "the DRAM bytes",
                                         "occupancy", "the shared wavefronts per instruction"};
    gm_say(b, ": what limits the time is {}. ", GM_LIT(what[pick]));
    gm_buf fast = S_name(x, fa), slow = S_name(x, !fa);
    switch (pick) {
    case L1:
    case L2:
        gm_say(b,
               pick == L1 ? "L1 serves {} of {}'s sectors against {} of {}'s"
                          : "L2 serves {} of {}'s L1 misses against {} of {}'s",
               GM_PCT(pick == L1 ? lf->l1_hit : lf->l2_hit), GM_BUF(&fast),
               GM_PCT(pick == L1 ? ls->l1_hit : ls->l2_hit), GM_BUF(&slow));
        if (S_near(ls->dram_bytes, lf->dram_bytes, 0.1))
            gm_say(b, ", with the same DRAM bytes ({} against {})", GM_BYTES(x->la.dram_bytes),
                   GM_BYTES(x->lb.dram_bytes));
        if (ls->kind == GM_LIMIT_LATENCY && lf->kind == GM_LIMIT_LATENCY)
            gm_say(b, "; both are latency-bound ({} occupancy), so a miss costs more than a "
                      "sector that hits",
                   GM_PCT(ls->occupancy));
        break;
    case DRAM:
        gm_say(b, "DRAM moves {} for {} against {}", GM_BYTES(ls->dram_bytes), GM_BUF(&slow),
               GM_BYTES(lf->dram_bytes));
        break;
    case OCC:
        gm_say(b, "{} keeps {} of the warp slots busy against {}", GM_BUF(&slow),
               GM_PCT(ls->occupancy), GM_PCT(lf->occupancy));
        break;
    case SHARED:
        gm_say(b, "{} needs {} shared wavefronts per instruction against {}", GM_BUF(&slow),
               GM_FIXED(ls->shared_wpi, 2), GM_FIXED(lf->shared_wpi, 2));
        break;
    }
    gm_buf_free(&fast);
    gm_buf_free(&slow);
    gm_buf_puts(b, ".");
}

/* The counter grows, the time hardly, and DRAM moves the same bytes: which
 * cache serves the extra sectors, and how busy DRAM is. */
static void S_cached(gm_buf *b, const S_pairx *x)
{
    gm_say(b,
           x->brief ? "DRAM moves about the same bytes ({} against {}): "
                    : ", but DRAM moves about the same bytes ({} against {}): ",
           GM_BYTES(x->la.dram_bytes), GM_BYTES(x->lb.dram_bytes));
    if (!S_serves(b, x, true) && isfinite(x->la.l1_hit) && isfinite(x->la.l2_hit)) {
        /* no cache serves most of them: the hit rates of both, for the reader to weigh */
        gm_say(b, "L1 and L2 serve the extra sectors (L1 hits {} against {}, L2 {} against {})",
               GM_PCT(x->la.l1_hit), GM_PCT(x->lb.l1_hit), GM_PCT(x->la.l2_hit),
               GM_PCT(x->lb.l2_hit));
    } else if (!isfinite(x->la.l1_hit) || !isfinite(x->la.l2_hit)) {
        gm_buf_puts(b, "the caches serve the extra sectors");
    }
    S_both_dram(b, x);
    gm_buf_puts(b, ", so the time hardly changes.");
}

/* The time grows less than the counter: what it follows instead. */
static void S_less(gm_buf *b, const S_pairx *x)
{
    double tr = gm_run_median_ms(x->a) / gm_run_median_ms(x->b);
    double dr = x->la.dram_bytes / x->lb.dram_bytes;
    if (x->la.kind == GM_LIMIT_DRAM && x->lb.kind == GM_LIMIT_DRAM && S_near(dr, tr, 0.25)) {
        gm_buf ratio = S_ratio(dr);
        gm_say(b, ", but the time follows the DRAM bytes ({})", GM_BUF(&ratio));
        gm_buf_free(&ratio);
        S_both_dram(b, x);
        gm_buf_puts(b, ".");
        return;
    }
    if (S_near(x->la.dram_bytes, x->lb.dram_bytes, 0.1)) {
        gm_buf_puts(b, ", but ");
        if (S_serves(b, x, true))
            gm_buf_puts(b, ", so ");
        gm_say(b, "DRAM moves about the same bytes ({} against {})", GM_BYTES(x->la.dram_bytes),
               GM_BYTES(x->lb.dram_bytes));
        if (x->lb.kind == GM_LIMIT_DRAM && x->la.kind != GM_LIMIT_DRAM) {
            gm_buf name = S_name(x, false);
            gm_say(b,
                   x->lb.attainable ? " and {} is DRAM-bound at {} of attainable"
                                    : " and {} is DRAM-bound at {} of the copy bandwidth",
                   GM_BUF(&name), GM_PCT(x->lb.dram_pct));
            gm_buf_free(&name);
        }
        gm_buf_puts(b, ".");
        return;
    }
    if (x->la.kind == GM_LIMIT_LATENCY && x->lb.kind == GM_LIMIT_LATENCY) {
        gm_say(b, ", though the time grows less: both are latency-bound ({} and {} occupancy), "
                  "and L1 serves {} and {} of their sectors.",
               GM_PCT(x->la.occupancy), GM_PCT(x->lb.occupancy), GM_PCT(x->la.l1_hit),
               GM_PCT(x->lb.l1_hit));
        return;
    }
    if (S_near(x->la.requests, x->lb.requests, 0.1) && x->la.kind != GM_LIMIT_DRAM &&
        x->lb.kind != GM_LIMIT_DRAM) {
        gm_say(b,
               x->la.attainable ? ", but both issue the same requests ({}) and neither is "
                                  "DRAM-bound ({} and {} of attainable)."
                                : ", but both issue the same requests ({}) and neither is "
                                  "DRAM-bound ({} and {} of the copy bandwidth).",
               GM_COUNT(x->la.requests), GM_PCT(x->la.dram_pct), GM_PCT(x->lb.dram_pct));
        return;
    }
    bool a_slow = gm_run_median_ms(x->a) > gm_run_median_ms(x->b);
    gm_buf_puts(b, ", though the time grows less. ");
    gm_buf who = S_name(x, a_slow);
    gm_limits_verdict_md(b, a_slow ? x->a : x->b, a_slow ? &x->la : &x->lb, who.data);
    gm_buf_free(&who);
}

/* Neither side has counters: why (the collection's note), so no counter
 * explains the gap. */
static void S_unprofiled(gm_buf *b, const gm_run *a, const gm_run *br)
{
    const char *why = gm_limits_unprofiled_note(a);
    if (!why)
        why = gm_limits_unprofiled_note(br);
    if (!why) {
        gm_buf_puts(b, "these runs were timed but not profiled (too long, or on the host), so "
                       "no counter of theirs explains the gap.");
        return;
    }
    gm_buf note = GM_BUF_INIT;
    gm_limits_note_md(&note, why);
    gm_say(b, "these runs were timed but not profiled, so no counter of theirs explains the gap: "
              "{}{}.",
           GM_BUF(&note),
           GM_LIT(strstr(why, "--profile-max-ms") ? "; a collection with a higher limit profiles "
                                                    "them"
                                                  : ""));
    gm_buf_free(&note);
}

/* brief: the caller has given the counter's figures already; when the sentence
 * is about that counter it starts at what the ratio means. */
static void S_why(gm_buf *b, const gm_results *r, const gm_run *a, const char *sel_a,
                  const gm_run *br, const char *sel_b, const char *counter, bool brief)
{
    /* The candidates, the descriptor's own counter first. */
    const char *kinds[] = {counter, "ld_spr", "st_spr", "shared_wpi", "dram_bytes"};
    const char *pick = NULL;
    double best = 1.15, pa = NAN, pb = NAN;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!kinds[i])
            continue;
        double x = gm_counter(a, kinds[i]), y = gm_counter(br, kinds[i]);
        if (!(isfinite(x) && isfinite(y) && x > 0 && y > 0))
            continue;
        double q = x > y ? x / y : y / x;
        if (q >= best || (i == 0 && q >= 1.15)) {
            pick = kinds[i];
            pa = x;
            pb = y;
            if (i == 0)
                break;
            best = q;
        }
    }
    S_pairx x = {.a = a, .b = br, .sel_a = sel_a, .sel_b = sel_b};
    gm_ceiling ceil = {.gbs = NAN, .startup_gbs = NAN};
    if (r)
        gm_results_ceiling(r, &ceil);
    int sms = r ? r->device.sm_count : 0;
    gm_limits_of(a, &ceil, sms, &x.la);
    gm_limits_of(br, &ceil, sms, &x.lb);
    double ta = gm_run_median_ms(a), tb = gm_run_median_ms(br);
    bool slower = ta > tb;
    if (pick) {
        bool skip = brief && counter && !strcmp(pick, counter);
        x.brief = skip;
        if (!skip) {
            gm_buf ratio = S_ratio_of(pa, pb);
            gm_say(b, "the {} are {} against {} ({})", GM_LIT(gm_counter_label(pick)),
                   S_counter_arg(pick, pa), S_counter_arg(pick, pb), GM_BUF(&ratio));
            gm_buf_free(&ratio);
        }
        bool more = pa > pb;
        double tr = ta / tb, cr = pa / pb;
        double da = gm_counter(a, "dram_bytes"), db = gm_counter(br, "dram_bytes");
        static const struct {
            const char *k, *what;
        } W[] = {
            {"ld_spr", "each warp load fetches that many more 32-byte sectors"},
            {"st_spr", "each warp store writes that many more 32-byte sectors"},
            {"shared_wpi", "each shared access is replayed that many times (bank conflicts)"},
            {"dram_bytes", "DRAM moves that many more bytes"},
            {"ld_sectors", "the load path moves that many more sectors"},
            {"ld_requests", "the warps issue that many more global load requests"},
        };
        const char *what = "";
        for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
            if (!strcmp(pick, W[i].k))
                what = W[i].what;
        if (more != slower) {
            S_wrong_way(b, &x);
        } else if (fabs(tr - 1) < 0.1 && strcmp(pick, "dram_bytes") && isfinite(da) &&
                   isfinite(db) && db > 0 && fabs(da / db - 1) < 0.1) {
            S_cached(b, &x);
        } else if (fabs(tr - 1) < 0.1 &&
                   isfinite(gm_run_metric_num(a, GM_M_DRAM_PCT)) &&
                   isfinite(gm_run_metric_num(br, GM_M_DRAM_PCT)) &&
                   gm_run_metric_num(a, GM_M_DRAM_PCT) < 50 &&
                   gm_run_metric_num(br, GM_M_DRAM_PCT) < 50) {
            gm_buf ratio = S_ratio(tr);
            gm_say(b,
                   skip ? "yet the times differ by only {}: DRAM runs at {} of its peak against "
                          "{}, so neither side is limited by the bytes it moves (at {} per "
                          "launch, issuing the accesses and starting the kernel weigh more)."
                        : ", yet the times differ by only {}: DRAM runs at {} of its peak "
                          "against {}, so neither side is limited by the bytes it moves (at {} "
                          "per launch, issuing the accesses and starting the kernel weigh more).",
                   GM_BUF(&ratio), GM_PCT(gm_run_metric_num(a, GM_M_DRAM_PCT)),
                   GM_PCT(gm_run_metric_num(br, GM_M_DRAM_PCT)), GM_MS(ta));
            gm_buf_free(&ratio);
        } else {
            gm_say(b, skip ? "{}" : ": {}", GM_LIT(what));
            if (cr > 1.5 * (tr > 1 ? tr : 1 / tr))
                S_less(b, &x);
            else
                gm_buf_puts(b, ".");
        }
        return;
    }
    double da = gm_run_metric_num(a, GM_M_DRAM_PCT), db = gm_run_metric_num(br, GM_M_DRAM_PCT);
    if (da < 10 && db < 10) {
        gm_say(b, "the memory counters are alike (within 15%) and neither side is near DRAM's "
                  "limit ({} and {} of its peak): what separates them lies outside the memory "
                  "counters collected here.",
               GM_PCT(da), GM_PCT(db));
        return;
    }
    if (isfinite(da) && isfinite(db)) {
        gm_say(b, "the memory counters are alike (within 15%), but DRAM runs at {} of peak "
                  "against {}: the difference is in how well each keeps memory busy, not in the "
                  "bytes it moves.",
               GM_PCT(da), GM_PCT(db));
        return;
    }
    if (!a->n_metrics && !br->n_metrics)
        S_unprofiled(b, a, br);
    else
        gm_buf_puts(b, "no memory counter measured here explains the difference.");
}

void gm_pair_why_md(gm_buf *b, const gm_results *r, const gm_run *a, const char *sel_a,
                    const gm_run *br, const char *sel_b, const char *counter)
{
    S_why(b, r, a, sel_a, br, sel_b, counter, false);
}

void gm_contrast_profiled_md(gm_buf *b, const gm_results *r, const gm_section *s,
                             const gm_contrast *c)
{
    gm_contrast p;
    if (c->pair.a->n_metrics || c->pair.b->n_metrics || !gm_contrast_find_profiled(s, &p))
        return;
    const gm_experiment *e = s->exp;
    gm_buf at = GM_BUF_INIT;
    gm_pair_at_md(&at, e->contrast_a, e->contrast_b, &p.pair);
    gm_buf sa = S_side(p.pair.a, e->contrast_a), sb = S_side(p.pair.b, e->contrast_b);
    gm_buf ratio = S_ratio(p.time_ratio);
    gm_say(b, " At {}, the largest point profiled, {} takes {} the time of {}: ",
           at.len ? GM_BUF(&at) : GM_LIT("another point"), GM_BUF(&sa), GM_BUF(&ratio),
           GM_BUF(&sb));
    gm_buf_free(&at);
    gm_buf_free(&sa);
    gm_buf_free(&sb);
    gm_buf_free(&ratio);
    S_why(b, r, p.pair.a, e->contrast_a, p.pair.b, e->contrast_b, p.counter, false);
}

void gm_contrast_md(gm_buf *b, const gm_results *r, const gm_section *s)
{
    const gm_experiment *e = s->exp;
    if (!e || !e->contrast_a || !e->contrast_b)
        return;
    gm_buf sides = GM_BUF_INIT;
    gm_contrast_sides_md(&sides, e);
    gm_say(b, "**The question.** {}\n\n", e->question ? GM_TEXT(e->question) : GM_BUF(&sides));
    gm_contrast c;
    if (!gm_contrast_find(s, &c)) {
        gm_say(b, "**The answer:** not measured: no passed runs of {} at matching parameters.\n\n",
               GM_BUF(&sides));
        gm_buf_free(&sides);
        return;
    }
    gm_buf_free(&sides);
    /* the point of the pair, where its runs have parameters besides the sides' */
    gm_buf at = GM_BUF_INIT;
    gm_pair_at_md(&at, e->contrast_a, e->contrast_b, &c.pair);
    if (at.len)
        gm_say(b, "**The answer** at {}:", GM_BUF(&at));
    else
        gm_buf_puts(b, "**The answer:**");
    gm_buf_free(&at);
    gm_buf sa = S_side(c.pair.a, e->contrast_a), sb = S_side(c.pair.b, e->contrast_b);
    gm_buf ratio = S_ratio(c.time_ratio);
    gm_say(b, " {} takes {}, {} {}: a time ratio of {}", GM_BUF(&sa),
           GM_MS(gm_run_median_ms(c.pair.a)), GM_BUF(&sb), GM_MS(gm_run_median_ms(c.pair.b)),
           GM_BUF(&ratio));
    gm_buf_free(&sa);
    gm_buf_free(&sb);
    gm_buf_free(&ratio);
    if (c.counter && isfinite(c.ca) && isfinite(c.cb)) {
        gm_buf cr = S_ratio_of(c.ca, c.cb);
        gm_say(b, "; {} {} against {} ({})", GM_LIT(gm_counter_label(c.counter)),
               S_counter_arg(c.counter, c.ca), S_counter_arg(c.counter, c.cb), GM_BUF(&cr));
        gm_buf_free(&cr);
    }
    gm_buf_puts(b, ". Why: ");
    S_why(b, r, c.pair.a, e->contrast_a, c.pair.b, e->contrast_b, c.counter, true);
    gm_contrast_profiled_md(b, r, s, &c);
    gm_buf_puts(b, "\n\n");
}
