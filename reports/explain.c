/* explain.c — the explanation of each experiment, written from its numbers:
 * what a warp touches in each layout, what that costs, why the fastest wins,
 * how each line of a sweep moves (findings.h: gm_explain_section,
 * gm_explain_experiment; docs/findings.md).  What it reads of a run is
 * shared with the rules (findings_internal.h).
 *
 * Layout: ordering and naming the runs, what a warp touches (clauses),
 * the runs described, fastest against slowest, the sweep, the paragraphs.
 */
#include "findings_internal.h"

#include "limits.h"
#include "runs.h"
#include "../core/escape.h"
#include "../core/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ordering and naming the runs ---------------------------------------------- */

static int S_time_cmp(const void *pa, const void *pb)
{
    const gm_run *a = *(const gm_run *const *)pa, *b = *(const gm_run *const *)pb;
    double ta = gm_find_time_of(a), tb = gm_find_time_of(b);
    if (ta != tb)
        return ta < tb ? -1 : 1;
    return a < b ? -1 : a > b;   /* file order */
}

/* A program's kernels: largest GPU time over all launches first. */
static int S_share_cmp(const void *pa, const void *pb)
{
    const gm_run *a = *(const gm_run *const *)pa, *b = *(const gm_run *const *)pb;
    double ta = gm_run_total_ms(a), tb = gm_run_total_ms(b);
    if (ta != tb && isfinite(ta) && isfinite(tb))
        return ta > tb ? -1 : 1;
    return a < b ? -1 : a > b;   /* file order */
}

typedef struct {
    const gm_results *r;
    const gm_experiment *e;
    const gm_run *const *group;   /* the comparison group (runs.h: gm_section) */
    size_t n_group;
    bool program;                 /* a program's kernels: by share of time, not speed */
    const gm_vary *vary;          /* the parameters varying across group */
    size_t start;                 /* where the explanation begins in its buffer */
} S_ex;

/* A run of the group, named by what tells it from the others of the group. */
static void S_glabel(gm_buf *b, const S_ex *x, const gm_run *run)
{
    gm_vary_case_md(x->vary, run, NULL, b);
}

/* The same name in a buffer of its own, for GM_BUF (core/say.h); the caller
 * frees it. */
static gm_buf S_name(const S_ex *x, const gm_run *run)
{
    gm_buf b = GM_BUF_INIT;
    S_glabel(&b, x, run);
    return b;
}

/* ---- what a warp touches ------------------------------------------------------- */

/* What a warp touches in one run, as clauses: global loads, global stores,
 * shared loads, shared stores (S_CLAUSES of them; an empty clause when the
 * counters are absent). */
#define S_CLAUSES 4

/* Does the model's figure p (runs.h: gm_run_predicted_*; NaN when the run
 * has none) read the same as the measured one at the printed precision?
 * 1 yes, -1 no, 0 nothing to compare. */
static int S_model_agrees(double p, double measured, int dec)
{
    if (!isfinite(p) || !isfinite(measured))
        return 0;
    gm_buf m = GM_BUF_INIT, q = GM_BUF_INIT;
    gm_fmt_fixed(&m, measured, dec);
    gm_fmt_fixed(&q, p, dec);
    int same = strcmp(m.data, q.data) == 0 ? 1 : -1;
    gm_buf_free(&m);
    gm_buf_free(&q);
    return same;
}

/* ", where the address-trace model predicts 28.0" beside a measured ratio the
 * model gets wrong; agreement is said once for all the runs described
 * (S_model_summary).  `more`: the clause goes on, so close with a comma. */
static void S_model_says(gm_buf *b, double p, double measured, int dec, bool more)
{
    if (S_model_agrees(p, measured, dec) >= 0)
        return;
    gm_say(b, more ? ", where the address-trace model predicts {},"
                   : ", where the address-trace model predicts {}",
           GM_FIXED(p, dec));
}

static void S_clause(gm_buf *b, const gm_run *run, int which)
{
    bool store = which & 1;
    if (which < 2) {
        gm_find_glob g = gm_find_global(run, store);
        if (!g.known)
            return;
        if (!store) {
            gm_say(b, "each warp load request touches {} sectors ({})", GM_FIXED(g.spr, 1),
                   GM_BYTES(g.spr * SECTOR_BYTES));
            S_model_says(b, gm_run_predicted_spr(run, false), g.spr, 1, isfinite(g.eff));
            if (isfinite(g.eff)) {
                gm_say(b, " for the {} its threads ask for",
                       GM_BYTES(g.spr * SECTOR_BYTES * g.eff / 100.0));
                if (g.eff > 100.05)
                    gm_buf_puts(b, ", more than is fetched because lanes share bytes");
                else
                    gm_say(b, ", so {} of the fetched bytes are used", GM_PCT(g.eff));
            }
        } else {
            gm_say(b, "each warp store request writes to {} sectors ({})", GM_FIXED(g.spr, 1),
                   GM_BYTES(g.spr * SECTOR_BYTES));
            S_model_says(b, gm_run_predicted_spr(run, true), g.spr, 1, false);
            if (isfinite(g.eff))
                gm_say(b, ", {} of them filled by its threads", GM_PCT(fmin(g.eff, 100.0)));
        }
        return;
    }
    gm_find_shr s = gm_find_shared(run, store);
    if (!s.known)
        return;
    gm_buf ways = GM_BUF_INIT;
    gm_find_ways(&ways, s.ways);
    if (s.per_request && gm_find_conflicted(&s)) {
        /* most instructions ran predicated off: per request made, as the
         * finding says it (findings_internal.h) */
        gm_say(b, store ? "each shared store request it makes takes {} wavefronts ({}; {} "
                          "requests from {} instructions, the others predicated off)"
                        : "each shared load request it makes takes {} wavefronts ({}; {} "
                          "requests from {} instructions, the others predicated off)",
               GM_FIXED(s.wpr, 2), GM_BUF(&ways), GM_COUNT(s.req), GM_COUNT(s.inst));
        gm_buf_free(&ways);
        return;
    }
    gm_say_arg access = GM_LIT(store ? "store" : "load");
    if (gm_find_conflicted(&s))
        gm_say(b, "each shared {} instruction takes {} wavefronts ({})", access,
               GM_FIXED(s.wpi, 2), GM_BUF(&ways));
    else
        gm_say(b, "each shared {} instruction takes {} wavefronts (ideal {})", access,
               GM_FIXED(s.wpi, 2), GM_FIXED(s.ideal, 2));
    gm_buf_free(&ways);
    S_model_says(b, gm_run_predicted_shared_wpi(run, store), s.wpi, 2, false);
}

/* ---- the runs described -------------------------------------------------------- */

/* One layout: what a warp touches (the clauses not in `common`), then DRAM
 * traffic and time. */
static void S_describe(gm_buf *b, const S_ex *x, const gm_run *run, const bool common[S_CLAUSES])
{
    S_glabel(b, x, run);
    gm_buf_puts(b, ": ");
    gm_buf acc = GM_BUF_INIT;
    for (int k = 0; k < S_CLAUSES; k++) {
        if (common[k])
            continue;
        gm_buf c = GM_BUF_INIT;
        S_clause(&c, run, k);
        if (c.len) {
            gm_buf_puts(&acc, acc.len ? "; " : "");
            gm_buf_put(&acc, c.data, c.len);
        }
        gm_buf_free(&c);
    }
    bool lower = true;   /* the next sentence continues after "label: " */
    if (acc.len) {
        gm_buf_put(b, acc.data, acc.len);
        gm_buf_puts(b, ". ");
        lower = false;
    }
    gm_buf_free(&acc);

    double rd = gm_find_m(run, GM_M_DRAM_RD), wr = gm_find_m(run, GM_M_DRAM_WR);
    double rate = gm_find_m(run, GM_M_DRAM_RATE), pct = gm_find_m(run, GM_M_DRAM_PCT);
    double t = gm_find_time_of(run);
    bool dram = isfinite(rd) || isfinite(wr) || isfinite(rate) || isfinite(pct);
    bool moved = isfinite(rd) || isfinite(wr);
    if (isfinite(rd) && isfinite(wr))
        gm_say(b, "DRAM reads {} and writes {}", GM_BYTES(rd), GM_BYTES(wr));
    else if (isfinite(rd))
        gm_say(b, "DRAM reads {}", GM_BYTES(rd));
    else if (isfinite(wr))
        gm_say(b, "DRAM writes {}", GM_BYTES(wr));
    if (isfinite(rate))
        gm_say(b, moved ? " at {}" : "DRAM moves data at {}", GM_GBS(rate / 1e9));
    if (isfinite(pct))
        gm_say(b, moved || isfinite(rate) ? " ({} of peak)" : "DRAM runs at {} of peak",
               GM_PCT(pct));
    if (isfinite(t)) {
        gm_say(b, dram    ? "; the median time is {}"
                  : lower ? "the median time is {}"
                          : "The median time is {}",
               GM_MS(t));
        double gbs = gm_run_effective_gbs(run);
        if (x->e && x->e->bandwidth_bound && isfinite(gbs))
            gm_say(b, ", {} of useful bytes", GM_GBS(gbs));
    }
    if (dram || isfinite(t))
        gm_buf_puts(b, ". ");
}

/* Clauses that read the same for every picked run (two or more) are said
 * once, before the runs: "In both, each warp store request ...". */
static void S_common(gm_buf *b, const gm_run *const *pick, size_t np, bool common[S_CLAUSES])
{
    gm_buf all = GM_BUF_INIT;
    for (int k = 0; k < S_CLAUSES; k++) {
        common[k] = false;
        if (np < 2)
            continue;
        gm_buf first = GM_BUF_INIT;
        S_clause(&first, pick[0], k);
        bool same = first.len > 0;
        for (size_t i = 1; i < np && same; i++) {
            gm_buf o = GM_BUF_INIT;
            S_clause(&o, pick[i], k);
            same = o.len == first.len && memcmp(o.data, first.data, o.len) == 0;
            gm_buf_free(&o);
        }
        if (same) {
            common[k] = true;
            gm_buf_puts(&all, all.len ? "; " : "");
            gm_buf_put(&all, first.data, first.len);
        }
        gm_buf_free(&first);
    }
    if (all.len) {
        if (np == 2)
            gm_say(b, "In both, {}. ", GM_BUF(&all));
        else
            gm_say(b, "In all {}, {}. ", GM_INT((long long)np), GM_BUF(&all));
    }
    gm_buf_free(&all);
}

/* After the runs are described: what the address-trace model says of the
 * per-request and per-instruction figures given (disagreements were named
 * where they stand). */
static void S_model_summary(gm_buf *b, const S_ex *x, const gm_run *const *pick, size_t np)
{
    size_t agree = 0, differ = 0, with = 0;
    bool spr = false, wpi = false;
    for (size_t i = 0; i < np; i++) {
        const gm_run *run = pick[i];
        size_t before = agree + differ;
        for (int st = 0; st < 2; st++) {
            gm_find_glob g = gm_find_global(run, st);
            int k = g.known ? S_model_agrees(gm_run_predicted_spr(run, st), g.spr, 1) : 0;
            agree += k > 0, differ += k < 0, spr |= k != 0;
            gm_find_shr h = gm_find_shared(run, st);
            k = h.known ? S_model_agrees(gm_run_predicted_shared_wpi(run, st), h.wpi, 2) : 0;
            agree += k > 0, differ += k < 0, wpi |= k != 0;
        }
        with += agree + differ > before;
    }
    if (!agree)
        return;
    const char *what = spr && wpi ? "sectors per request and wavefronts per instruction"
                       : spr      ? "sectors per request"
                                  : "wavefronts per instruction";
    if (differ)
        gm_say(b, "Where no predicted figure is given, the address-trace model predicts the {} "
                  "measured",
               GM_LIT(what));
    else
        gm_say(b, "The address-trace model, replaying each warp's addresses, predicts the same "
                  "{}{}",
               GM_LIT(what),
               GM_LIT(with == np ? (np == 1 ? "" : " for every run described")
                                 : " for each run described that has a prediction"));
    if (with < np) {
        size_t k = 0;
        for (size_t i = 0; i < np; i++) {
            if (gm_run_has_prediction(pick[i]))
                continue;
            gm_buf_puts(b, k++ ? ", " : " (none for ");
            S_glabel(b, x, pick[i]);
        }
        if (k)
            gm_buf_puts(b, ")");
    }
    gm_buf_puts(b, ". ");
}

/* Which runs of the group are described one by one (at most
 * GM_EXPLAIN_MAX_RUNS): the fastest, the slowest, the baseline layout's
 * fastest, each other layout's fastest, runs with sectors per request not yet
 * shown, then the fastest of the rest; listed fastest first. */
static size_t S_pick(const S_ex *x, const gm_run **timed, size_t nt, const gm_run **pick)
{
    size_t np = 0;
#define S_PICK(run)                                                   \
    do {                                                              \
        const gm_run *p_ = (run);                                     \
        bool dup_ = false;                                            \
        for (size_t q_ = 0; q_ < np; q_++)                            \
            dup_ |= pick[q_] == p_;                                   \
        if (p_ && !dup_ && np < GM_EXPLAIN_MAX_RUNS)                  \
            pick[np++] = p_;                                          \
    } while (0)
    if (nt <= GM_EXPLAIN_MAX_RUNS || x->program) {   /* a program's: the largest shares */
        for (size_t i = 0; i < nt && np < GM_EXPLAIN_MAX_RUNS; i++)
            pick[np++] = timed[i];
        return np;
    }
    S_PICK(timed[0]);
    S_PICK(timed[nt - 1]);
    const char *base = x->e ? x->e->baseline_variant : NULL;
    for (size_t i = 0; base && i < nt; i++)
        if (gm_find_streq(timed[i]->variant, base)) {
            S_PICK(timed[i]);
            break;
        }
    for (size_t g = 0; g < x->n_group; g++) {
        const gm_run *v = x->group[g];
        for (size_t i = 0; i < nt; i++)
            if (gm_find_streq(timed[i]->variant, v->variant)) {
                S_PICK(timed[i]);
                break;
            }
    }
    /* then runs whose load sectors per request (to 0.1) no picked run shows,
     * fastest first: the sweep of access patterns, not of noise */
    for (size_t i = 0; i < nt && np < GM_EXPLAIN_MAX_RUNS; i++) {
        double si = gm_find_global(timed[i], false).spr;
        if (!isfinite(si))
            continue;
        bool seen = false;
        for (size_t q = 0; q < np && !seen; q++) {
            double sq = gm_find_global(pick[q], false).spr;
            seen = isfinite(sq) && llround(sq * 10) == llround(si * 10);
        }
        if (!seen)
            S_PICK(timed[i]);
    }
    for (size_t i = 0; i < nt && np < GM_EXPLAIN_MAX_RUNS; i++)
        S_PICK(timed[i]);
#undef S_PICK
    qsort(pick, np, sizeof *pick, x->program ? S_share_cmp : S_time_cmp);
    return np;
}

/* ---- fastest against slowest --------------------------------------------------- */

static double S_sum2(double a, double b)
{
    if (!isfinite(a) && !isfinite(b))
        return NAN;
    return (isfinite(a) ? a : 0) + (isfinite(b) ? b : 0);
}

/* What S_compare reads of a faster run F and a slower run S that takes T
 * times as long: the ratios S over F of the global-load sectors (Q; Qs with
 * the store sectors counted), of the DRAM bytes (D, of ds against df) and of
 * the shared wavefronts per load instruction (H), and which of them differ. */
typedef struct {
    const gm_run *F, *S;
    double T;
    gm_find_glob lf, ls;
    double Q, Qs, df, ds, D;
    gm_find_shr hf, hs;
    double H;
    bool stores_dilute, more_sectors, more_waves, slower;
} S_pair;

static S_pair S_pair_read(const gm_run *F, const gm_run *S, double T)
{
    gm_find_glob lf = gm_find_global(F, false), ls = gm_find_global(S, false);
    double Q = lf.sectors > 0 && ls.sectors >= 0 ? ls.sectors / lf.sectors : NAN;
    double sf = S_sum2(lf.sectors, gm_find_m(F, GM_M_ST_SECTORS));
    double ss = S_sum2(ls.sectors, gm_find_m(S, GM_M_ST_SECTORS));
    double Qs = sf > 0 && isfinite(ss) ? ss / sf : NAN;
    bool stores_dilute = isfinite(Q) && isfinite(Qs) && Qs < Q / (1.0 + GM_FIND_SECTOR_EXCESS);
    double df = S_sum2(gm_find_m(F, GM_M_DRAM_RD), gm_find_m(F, GM_M_DRAM_WR));
    double ds = S_sum2(gm_find_m(S, GM_M_DRAM_RD), gm_find_m(S, GM_M_DRAM_WR));
    double D = df > 0 && isfinite(ds) ? ds / df : NAN;
    gm_find_shr hf = gm_find_shared(F, false), hs = gm_find_shared(S, false);
    double H = hf.known && hs.known && hf.wpi > 0 ? hs.wpi / hf.wpi : NAN;
    bool more_sectors = isfinite(Q) && Q >= 1.0 + GM_FIND_SECTOR_EXCESS;
    bool more_waves = isfinite(H) && H >= 1.0 + GM_FIND_WAVEFRONT_EXCESS;
    bool slower = T >= 1.05;
    return (S_pair){F, S, T, lf, ls, Q, Qs, df, ds, D, hf, hs, H,
                    stores_dilute, more_sectors, more_waves, slower};
}

/* The sectors and the shared wavefronts each needs, where they differ. */
static void S_compare_traffic(gm_buf *b, const S_ex *x, const S_pair *p)
{
    const gm_find_glob lf = p->lf, ls = p->ls;
    const gm_find_shr hf = p->hf, hs = p->hs;
    double Q = p->Q, Qs = p->Qs, D = p->D, df = p->df, ds = p->ds;
    bool stores_dilute = p->stores_dilute, more_sectors = p->more_sectors;
    bool more_waves = p->more_waves, slower = p->slower;
    gm_buf F = S_name(x, p->F), S = S_name(x, p->S);

    if (more_sectors) {
        gm_say(b, "{} fetches {} the global-load sectors of {} ({} against {})", GM_BUF(&S),
               GM_RATIO(Q), GM_BUF(&F), GM_COUNT(ls.sectors), GM_COUNT(lf.sectors));
        if (stores_dilute)
            gm_say(b, ", {} once store sectors are counted", GM_RATIO(Qs));
        if (isfinite(D))
            gm_say(b, ", and DRAM moves {} the bytes ({} against {})", GM_RATIO(D), GM_BYTES(ds),
                   GM_BYTES(df));
        gm_buf_puts(b, ". ");
    } else if (isfinite(Q) && Q <= 1.0 / (1.0 + GM_FIND_SECTOR_EXCESS) && slower) {
        gm_say(b, "{} fetches fewer global-load sectors than {} ({} against {}), so sectors do "
                  "not explain its time. ",
               GM_BUF(&S), GM_BUF(&F), GM_COUNT(ls.sectors), GM_COUNT(lf.sectors));
    } else if (isfinite(Q) && slower) {
        gm_say(b, "{} and {} fetch about the same global-load sectors ({} and {}), so the "
                  "difference does not come from wasted sectors. ",
               GM_BUF(&S), GM_BUF(&F), GM_COUNT(ls.sectors), GM_COUNT(lf.sectors));
    }
    if (more_waves)
        gm_say(b, "In shared memory {} needs {} wavefronts per load instruction against {} for "
                  "{}: each extra wavefront is a bank conflict served after the others. ",
               GM_BUF(&S), GM_FIXED(hs.wpi, 2), GM_FIXED(hf.wpi, 2), GM_BUF(&F));
    gm_buf_free(&F);
    gm_buf_free(&S);
}

/* S loses more time than the counter `what` (its ratio ref) grows: why. */
static void S_compare_loses(gm_buf *b, const S_ex *x, const S_pair *p, double ref,
                            const char *what)
{
    const gm_run *F = p->F, *S = p->S;
    double T = p->T, H = p->H;
    bool more_waves = p->more_waves;

    gm_buf slow = S_name(x, S), fast = S_name(x, F);
    gm_say(b, "{} loses more time ({}) than {} grows ({})", GM_BUF(&slow), GM_RATIO(T),
           GM_LIT(what), GM_RATIO(ref));
    double pf = gm_find_m(F, GM_M_DRAM_PCT), ps = gm_find_m(S, GM_M_DRAM_PCT);
    if (isfinite(pf) && isfinite(ps) && ps < pf / (1.0 + GM_FIND_SECTOR_EXCESS))
        gm_say(b, ": it keeps DRAM at {} of peak against {} for {}, so it waits on its accesses "
                  "rather than moving bytes",
               GM_PCT(ps), GM_PCT(pf), GM_BUF(&fast));
    else if (more_waves && ref != H)
        gm_buf_puts(b, ": its shared-memory bank conflicts add to it");
    gm_buf_puts(b, ". ");
    gm_buf_free(&slow);
    gm_buf_free(&fast);
}

/* What limits run, as a sentence about it (limits.h: "`ell` is DRAM-bound at
 * 89.8% of attainable, ..."), against the file's ceiling bandwidth; said
 * once in b (the fastest, compared with the slowest and the baseline, is
 * not described twice). */
static void S_limit_of(gm_buf *b, const S_ex *x, const gm_run *run)
{
    gm_ceiling ceiling;
    gm_results_ceiling(x->r, &ceiling);
    gm_limits l;
    gm_limits_of(run, &ceiling, x->r->device.sm_count, &l);
    gm_buf name = S_name(x, run), verdict = GM_BUF_INIT;
    gm_buf_puts(&name, "");
    gm_limits_verdict_md(&verdict, run, &l, name.data);
    gm_buf_puts(&verdict, "");
    if (!b->data || !strstr(b->data + x->start, verdict.data))
        gm_say(b, "{} ", GM_BUF(&verdict));
    gm_buf_free(&name);
    gm_buf_free(&verdict);
}

/* The time grows less than the counter `what` (its ratio ref), or not at
 * all: what the time follows instead, what limits each of the two (limits.h):
 * a faster layout that DRAM does not limit gains less than the bytes it
 * spares, a slower one that DRAM does limit loses them at full rate. */
static void S_compare_less(gm_buf *b, const S_ex *x, const S_pair *p, double ref,
                           const char *what)
{
    if (p->slower) {
        gm_buf fast = S_name(x, p->F);
        gm_say(b, "{} wins by {}, less than the {} of {} suggests", GM_BUF(&fast), GM_RATIO(p->T),
               GM_RATIO(ref), GM_LIT(what));
        gm_buf_free(&fast);
    } else {
        gm_say(b, "The time does not follow the {} of {}", GM_RATIO(ref), GM_LIT(what));
    }
    /* the DRAM traffic, when the time follows it; and what limits each */
    double D = p->D, T = p->T;
    if (ref != D && isfinite(D) && T <= D * GM_FIND_FOLLOWS && T >= D / GM_FIND_FOLLOWS)
        gm_say(b, p->slower ? ": the time follows the DRAM traffic instead, {} the bytes, and "
                              "what limits each layout. "
                            : ": it follows the DRAM traffic, {} the bytes, and what limits each "
                              "layout. ",
               GM_RATIO(D));
    else
        gm_buf_puts(b, p->slower ? ": the time follows what limits each layout instead. "
                                 : ": it follows what limits each layout. ");
    S_limit_of(b, x, p->F);
    S_limit_of(b, x, p->S);
}

/* Compare a faster run F with a slower run S of the group: the sectors, the
 * DRAM bytes and the shared wavefronts each needs, and which of them the time
 * follows, or why the time does not follow them. */
static void S_compare(gm_buf *b, const S_ex *x, const gm_run *F, const gm_run *S, double T)
{
    S_pair p = S_pair_read(F, S, T);
    double Q = p.Q, Qs = p.Qs, D = p.D, H = p.H;
    bool stores_dilute = p.stores_dilute, more_sectors = p.more_sectors;
    bool more_waves = p.more_waves, slower = p.slower;
    S_compare_traffic(b, x, &p);

    /* The counter the time should follow: DRAM bytes for a bandwidth-bound
     * experiment, else the sectors (all of them when stores dilute the load
     * ratio), else the shared wavefronts when only they differ. */
    bool bw = x->e && x->e->bandwidth_bound;
    const char *what = NULL, *unit = NULL;
    double ref = NAN;
    if (bw && isfinite(D) && (more_sectors || D >= 1.0 + GM_FIND_SECTOR_EXCESS)) {
        ref = D, what = "the DRAM traffic", unit = "bytes";
    } else if (more_sectors) {
        ref = stores_dilute ? Qs : Q, what = "the sectors", unit = "sectors";
    }
    if (more_waves && (!isfinite(ref) || ref < 1.0 + GM_FIND_SECTOR_EXCESS)) {
        ref = H, what = "the shared-memory wavefronts", unit = "wavefronts";
    }
    if (!what) {
        double pf = gm_find_m(F, GM_M_DRAM_PCT), ps = gm_find_m(S, GM_M_DRAM_PCT);
        if (slower && isfinite(pf) && isfinite(ps) &&
            fabs(pf - ps) > 0.1 * fmax(pf, ps)) {
            gm_buf fast = S_name(x, F), slow = S_name(x, S);
            gm_say(b, "With traffic alike, the gap shows in how busy DRAM is: {} of peak for {} "
                      "against {} for {}. ",
                   GM_PCT(ps), GM_BUF(&slow), GM_PCT(pf), GM_BUF(&fast));
            gm_buf_free(&fast);
            gm_buf_free(&slow);
        }
        return;
    }
    /* alike in time and in that counter: the time follows it too */
    if ((slower || ref < GM_FIND_FOLLOWS) && T <= ref * GM_FIND_FOLLOWS &&
        T >= ref / GM_FIND_FOLLOWS) {
        gm_say(b, "The time follows {}: {} the time for {} the {}. ", GM_LIT(what), GM_RATIO(T),
               GM_RATIO(ref), GM_LIT(unit));
        return;
    }
    if (T > ref * GM_FIND_FOLLOWS) {
        S_compare_loses(b, x, &p, ref, what);
        return;
    }
    /* the time grows less than the counter (or not at all) */
    S_compare_less(b, x, &p, ref, what);
}

/* Why the fastest wins (against the slowest, and against the baseline layout
 * when that is neither), or why it wins by less than the counters suggest. */
static void S_why(gm_buf *b, const S_ex *x, const gm_run *const *timed, size_t nt)
{
    const gm_run *B = timed[0], *W = timed[nt - 1];
    double tb = gm_find_time_of(B), tw = gm_find_time_of(W), T = tw / tb;
    gm_buf best = S_name(x, B);
    if (T < 1.05) {
        gm_buf sb = GM_BUF_INIT, sw = GM_BUF_INIT;
        gm_fmt_ms(&sb, tb);
        gm_fmt_ms(&sw, tw);
        gm_say_arg all = GM_LIT(nt == 2 ? "Both" : "All of them");
        if (strcmp(sb.data, sw.data) == 0)
            gm_say(b, "{} take {}, within 5% of each other: here the layout does not change the "
                      "time. ",
                   all, GM_MS(tb));
        else
            gm_say(b, "{} take between {} and {}, within 5% of each other: here the layout does "
                      "not change the time. ",
                   all, GM_MS(tb), GM_MS(tw));
        gm_buf_free(&sb);
        gm_buf_free(&sw);
    } else {
        gm_buf worst = S_name(x, W);
        gm_say(b, "{} is the fastest ({}) and {} the slowest ({}, {} as long). ", GM_BUF(&best),
               GM_MS(tb), GM_BUF(&worst), GM_MS(tw), GM_RATIO(T));
        gm_buf_free(&worst);
    }
    S_compare(b, x, B, W, T);

    const char *base = x->e ? x->e->baseline_variant : NULL;
    const gm_run *R = NULL;
    for (size_t i = 0; base && i < nt && !R; i++)
        if (gm_find_streq(timed[i]->variant, base))
            R = timed[i];
    if (R && R != B && R != W && T >= 1.05) {
        double tr = gm_find_time_of(R);
        gm_buf base_name = S_name(x, R);
        gm_say(b, "The baseline layout {} takes {}, {} as long as the fastest. ",
               GM_BUF(&base_name), GM_MS(tr), GM_RATIO(tr / tb));
        gm_buf_free(&base_name);
        S_compare(b, x, B, R, tr / tb);
    }

    double copy = gm_results_ceiling_gbs(x->r, NULL);
    double gb = gm_run_effective_gbs(B);
    if (x->e && x->e->bandwidth_bound && copy > 0 && isfinite(gb)) {
        gm_say(b, "{} moves its useful bytes at {}, {} of {} measured on this device ({})",
               GM_BUF(&best), GM_GBS(gb), GM_PCT(100.0 * gb / copy),
               GM_LIT(gm_results_ceiling_name(x->r)), GM_GBS(copy));
        /* a streaming kernel with enough bytes in flight reaches 80-90 % of
         * a device-to-device copy (docs/findings.md) */
        if (gb >= 0.8 * copy)
            gm_buf_puts(b, ", close to what its memory delivers");
        gm_buf_puts(b, ". ");
    }
    gm_buf_free(&best);
}

/* ---- along the sweep ----------------------------------------------------------- */

/* "name=value" of the swept parameter of run, escaped, in a buffer of its
 * own for GM_BUF; the caller frees it. */
static gm_buf S_at(const char *p, const gm_run *run)
{
    gm_buf v = GM_BUF_INIT, b = GM_BUF_INIT;
    gm_buf_printf(&v, "%s=", p);
    gm_fmt_value(&v, &gm_run_param(run, p)->value);
    gm_esc_md(&b, v.data);
    gm_buf_free(&v);
    return b;
}

/* The y of a sweep line: bandwidth when bandwidth is the point, else time. */
static double S_sweep_y(const gm_run *run, bool bw)
{
    return bw ? gm_run_effective_gbs(run) : gm_find_time_of(run);
}

static gm_say_arg S_sweep_arg(double y, bool bw)
{
    return bw ? GM_GBS(y) : GM_MS(y);
}

/* Along the swept parameter (the charts' lines): each line from its first
 * point to its last in one clause, with its peak or dip when they stand out
 * by 10 %, and its load sectors per request when they change by 5 %. */
static void S_sweep(gm_buf *b, const gm_section *s)
{
    gm_sweep_plan sw;
    gm_section_sweep(s, &sw);
    const char *p = sw.param;
    bool bw = s->exp->bandwidth_bound;
    size_t told = 0, lines_with_points = 0;
    for (size_t l = 0; l < sw.n_lines; l++) {
        const gm_sweep_line *line = &sw.lines[l];
        const gm_run *a = NULL, *z = NULL, *peak = NULL, *dip = NULL;
        for (size_t i = 0; i < line->n; i++) {
            double y = S_sweep_y(line->runs[i], bw);
            if (!isfinite(y))
                continue;
            if (!a)
                a = line->runs[i];
            z = line->runs[i];
            if (!peak || y > S_sweep_y(peak, bw))
                peak = line->runs[i];
            if (!dip || y < S_sweep_y(dip, bw))
                dip = line->runs[i];
        }
        if (!a || a == z)
            continue;
        lines_with_points++;
        if (told == 6)
            continue;
        if (told++ == 0)
            gm_say(b, "Along {}: ", GM_CODE(p));
        else
            gm_buf_puts(b, "; ");
        double ya = S_sweep_y(a, bw), yz = S_sweep_y(z, bw);
        gm_buf name = GM_BUF_INIT, at_a = S_at(p, a), at_z = S_at(p, z);
        gm_runs_case_md(sw.runs, sw.n_runs, line->runs[0], p, &name);
        gm_say(b, bw ? "{} goes from {} at {} to {} at {}" : "{} takes from {} at {} to {} at {}",
               GM_BUF(&name), S_sweep_arg(ya, bw), GM_BUF(&at_a), S_sweep_arg(yz, bw),
               GM_BUF(&at_z));
        gm_buf_free(&name);
        gm_buf_free(&at_a);
        gm_buf_free(&at_z);
        double q = ya > 0 && yz > 0 ? (yz >= ya ? yz / ya : ya / yz) : NAN;
        if (!isfinite(q)) {
            /* a zero at an end: no ratio to give */
        } else if (q < 1.05) {
            gm_buf_puts(b, " (within 5%)");
        } else {
            gm_say(b, yz >= ya ? (bw ? " ({} higher)" : " ({} longer)")
                               : (bw ? " ({} lower)" : " ({} shorter)"),
                   GM_RATIO(q));
        }
        /* for bandwidth the peak is the news, for time the dip */
        const gm_run *best = bw ? peak : dip;
        double yb = S_sweep_y(best, bw);
        if (best != a && best != z &&
            (bw ? yb > 1.1 * fmax(ya, yz) : yb < fmin(ya, yz) / 1.1)) {
            gm_buf at = S_at(p, best);
            gm_say(b, bw ? ", peaking at {} at {}" : ", shortest at {} at {}",
                   S_sweep_arg(yb, bw), GM_BUF(&at));
            gm_buf_free(&at);
        }
        const gm_run *worst = bw ? dip : peak;
        double yw = S_sweep_y(worst, bw);
        if (worst != a && worst != z &&
            (bw ? yw < fmin(ya, yz) / 1.1 : yw > 1.1 * fmax(ya, yz))) {
            gm_buf at = S_at(p, worst);
            gm_say(b, bw ? ", dipping to {} at {}" : ", longest at {} at {}",
                   S_sweep_arg(yw, bw), GM_BUF(&at));
            gm_buf_free(&at);
        }
        double sa = gm_run_metric_num(a, GM_M_LD_SPR), sz = gm_run_metric_num(z, GM_M_LD_SPR);
        if (isfinite(sa) && isfinite(sz) && fabs(sz - sa) > 0.05 * fmax(sa, sz))
            gm_say(b, ", while its load sectors per request go from {} to {}", GM_FIXED(sa, 1),
                   GM_FIXED(sz, 1));
    }
    if (told)
        gm_buf_puts(b, ". ");
    if (lines_with_points > told)
        gm_say(b, "The charts show {} more line{}. ", GM_INT((long long)(lines_with_points - told)),
               GM_LIT(lines_with_points - told == 1 ? "" : "s"));
    gm_sweep_plan_free(&sw);
}

/* ---- the paragraphs ------------------------------------------------------------ */

static void S_end_paragraph(gm_buf *b, size_t start)
{
    while (b->len > start && b->data[b->len - 1] == ' ')
        b->data[--b->len] = '\0';
    if (b->len > start)
        gm_buf_puts(b, "\n\n");
}

/* Part 1, its first sentence: the group and the work each of its runs does,
 * "3 passed runs do the same work (n=4096), each reading 64.0 MiB and
 * writing 64.0 MiB", left open for S_layouts. */
static void S_group_work(gm_buf *out, const gm_section *s, const S_ex *x)
{
    const gm_run *g0 = x->group[0];
    double rd = gm_value_num(&g0->bytes_read), wr = gm_value_num(&g0->bytes_written);
    double fl = gm_value_num(&g0->flops);
    bool program = x->program;
    if (x->n_group == 1) {
        gm_buf_puts(out, program ? "One kernel of the program" : "One passed run");
    } else if (program) {
        /* different kernels: no "same work", no winner (part 2 is left out) */
        gm_say(out, "The program's {} profiled kernels, each doing its own work",
               GM_INT((long long)x->n_group));
    } else {
        gm_buf at = GM_BUF_INIT;
        gm_section_group_label(s, &at);
        if (at.len)
            gm_say(out, "{} passed runs do the same work ({})", GM_INT((long long)x->n_group),
                   GM_TEXT(at.data));
        else
            gm_say(out, "{} passed runs do the same work", GM_INT((long long)x->n_group));
        gm_buf_free(&at);
    }
    if (isfinite(rd) || isfinite(wr) || fl > 0) {
        gm_buf_puts(out, x->n_group == 1 ? ", " : ", each ");
        bool any = false;
        if (isfinite(rd)) {
            gm_say(out, "reading {}", GM_BYTES(rd));
            any = true;
        }
        if (isfinite(wr)) {
            gm_say(out, any ? (fl > 0 ? ", writing {}" : " and writing {}") : "writing {}",
                   GM_BYTES(wr));
            any = true;
        }
        if (fl > 0)
            gm_say(out, any ? " and performing {}" : "performing {}", GM_FLOP(fl));
    }
}

/* Part 1: the group (S_group_work), the runs described one by one (S_pick;
 * a list when there are several), what the model says of them, and how many
 * more the table holds.  start: where the paragraph began; returns where the
 * paragraph still open begins. */
static size_t S_layouts(gm_buf *out, const gm_section *s, const S_ex *x, const gm_run **timed,
                        size_t nt, size_t start)
{
    S_group_work(out, s, x);
    bool program = x->program;
    const gm_run *pick[GM_EXPLAIN_MAX_RUNS];
    size_t np = S_pick(x, timed, nt, pick);
    const char *order = program ? ", largest share of the GPU time first" : ", fastest first";
    if (np < x->n_group)
        gm_say(out, "; {} of them{}", GM_INT((long long)np), GM_LIT(np == 1 ? "" : order));
    else if (np > 1)
        gm_buf_puts(out, order);
    gm_buf_puts(out, np ? ". " : ", but none has a time. ");
    bool common[S_CLAUSES];
    S_common(out, pick, np, common);
    if (np > 1) {
        /* one item per run: a reader compares them line by line */
        S_end_paragraph(out, start);
        for (size_t i = 0; i < np; i++) {
            gm_buf_puts(out, "- ");
            S_describe(out, x, pick[i], common);
            while (out->len && out->data[out->len - 1] == ' ')
                out->data[--out->len] = '\0';
            gm_buf_putc(out, '\n');
        }
        gm_buf_putc(out, '\n');
        start = out->len;
    } else {
        for (size_t i = 0; i < np; i++)
            S_describe(out, x, pick[i], common);
    }
    S_model_summary(out, x, pick, np);
    if (np + 1 == nt)
        gm_buf_puts(out, "The other run is in the table. ");
    else if (np < nt)
        gm_say(out, "The other {} are in the table. ", GM_INT((long long)(nt - np)));
    return start;
}

/* Part 4: what the comparison leaves out (runs that did not run are listed
 * beside the table; those that failed are flagged there and above). */
static void S_left_out(gm_buf *out, const gm_section *s)
{
    size_t start = out->len;
    size_t other = s->n_passed - s->n_group, bad = s->n_failed + s->n_error;
    if (other)
        gm_say(out, "{} other passed run{} a different amount of work (other parameters) and {} "
                    "not compared with these. ",
               GM_INT((long long)other), GM_LIT(other == 1 ? " does" : "s do"),
               GM_LIT(other == 1 ? "is" : "are"));
    if (bad && s->n_passed) {
        const char *why = s->n_error == 0   ? (bad == 1 ? "failed its check" : "failed their check")
                          : s->n_failed == 0 ? "stopped with an error"
                                             : "failed their check or stopped with an error";
        if (bad == 1)
            gm_say(out, "The run that {} is left out of all of this. ", GM_LIT(why));
        else
            gm_say(out, "The {} runs that {} are left out of all of this. ", GM_INT((long long)bad),
                   GM_LIT(why));
    }
    S_end_paragraph(out, start);
}

void gm_explain_section(const gm_results *r, const gm_section *s, gm_buf *out)
{
    if (!s->n_runs)
        return;
    S_ex x = {r, s->listed ? s->exp : NULL, s->group, s->n_group, gm_section_is_program(s),
              &s->vary_group, out->len};
    const gm_run **timed = gm_xcalloc(x.n_group ? x.n_group : 1, sizeof *timed);
    size_t nt = 0;
    for (size_t i = 0; i < x.n_group; i++)
        if (isfinite(gm_find_time_of(x.group[i])))
            timed[nt++] = x.group[i];
    qsort(timed, nt, sizeof *timed, x.program ? S_share_cmp : S_time_cmp);

    /* 1. each layout of the group */
    size_t start = out->len;
    if (x.n_group)
        start = S_layouts(out, s, &x, timed, nt, start);
    else
        gm_buf_puts(out, "No run of this experiment passed its check, so no layout is compared and "
                         "no speed is claimed here. ");
    S_end_paragraph(out, start);

    /* 2. why the fastest wins */
    start = out->len;
    if (nt >= 2 && !gm_section_is_program(s))
        S_why(out, &x, timed, nt);
    S_end_paragraph(out, start);

    /* 3. along the sweep */
    start = out->len;
    if (s->has_sweep)
        S_sweep(out, s);
    S_end_paragraph(out, start);

    /* 4. what the comparison leaves out */
    S_left_out(out, s);
    free(timed);
}

gm_status gm_explain_experiment(const gm_results *r, const char *experiment_id, gm_buf *out,
                                gm_error *err)
{
    if (!experiment_id)
        return gm_fail(err, GM_ERR_VALUE, "no experiment id given");
    gm_sections ss;
    gm_sections_build(r, &ss);
    const gm_section *s = NULL;
    for (size_t i = 0; i < ss.n && !s; i++)
        if (gm_find_streq(ss.v[i].exp->id, experiment_id))
            s = &ss.v[i];
    gm_status st = GM_OK;
    if (s)
        gm_explain_section(r, s, out);
    else
        st = gm_fail(err, GM_ERR_VALUE, "no experiment or run has the id \"%s\"", experiment_id);
    gm_sections_free(&ss);
    return st;
}
