/* findings_dram.c — the rules on what DRAM moves and how fast
 * (findings_rules.h; docs/findings.md): dram-overfetch (DRAM moves more than
 * the computation needs), l2-absorbs (the caches serve excess sectors),
 * not-memory-bound and dram-underused (the useful bytes' rate against the
 * ceiling bandwidth, and how busy DRAM is).
 */
#include "findings_rules.h"

#include "runs.h"
#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The bytes the threads' global loads ask for: the bytes of the sectors they
 * fetch times their efficiency; NaN without both. */
static double S_asked(const gm_find_glob *g)
{
    return g->sectors >= 0 && isfinite(g->eff) ? g->sectors * SECTOR_BYTES * g->eff / 100.0
                                               : NAN;
}

/* Does the run's layout or one of its notes say that it stores padding
 * ("every row padded to the longest", "padding included", a "pad" field),
 * other than to say that it stores none ("no padding")? */
static bool S_says_padding(const gm_run *run)
{
    for (size_t i = 0; i <= run->n_notes; i++) {
        const char *s = i < run->n_notes ? run->notes[i] : run->layout;
        for (const char *p = s ? strstr(s, "pad") : NULL; p; p = strstr(p + 1, "pad")) {
            bool word = p == s ||
                        !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z'));
            bool none = (p - s >= 3 && strncmp(p - 3, "no ", 3) == 0) ||
                        (p - s >= 8 && strncmp(p - 8, "without ", 8) == 0);
            if (word && !none)
                return true;
        }
    }
    return false;
}

/* The fastest passed run doing the same work as run, faster than it, whose
 * DRAM reads stay under GM_FIND_DRAM_OVERFETCH times what it must read: the
 * layout that avoids the over-fetch at the same size.  NULL if none (and for
 * a program's kernels, which do different work). */
static const gm_run *S_lean_peer(const gm_find_ctx *c, const gm_run *run)
{
    double t = gm_find_time_of(run);
    if (gm_run_is_program(run) || !isfinite(t))
        return NULL;
    size_t e = c->exp_of[gm_find_index(c->r, run)];
    const gm_run *best = NULL;
    for (size_t k = c->exp_start[e]; k < c->exp_start[e + 1]; k++) {
        const gm_run *x = &c->r->runs[c->members[k]];
        double xr = gm_find_m(x, GM_M_DRAM_RD), xn = gm_value_num(&x->bytes_read);
        double tx = gm_find_time_of(x);
        if (x == run || !gm_run_passed(x) || !gm_runs_same_work(x, run) || !(xr >= 0) ||
            !(xn > 0) || xr >= GM_FIND_DRAM_OVERFETCH * xn || !(tx < t))
            continue;
        if (!best || tx < gm_find_time_of(best))
            best = x;
    }
    return best;
}

/* "Not moving the excess bytes is what `jds` does with the same work: DRAM
 * reads 461 MiB there, and it takes 415.4 µs against this run's 984.0 µs,
 * 568.6 µs (57.8% of its time) less."  The saving is that measured gap. */
static gm_find_saving S_lean_saving(gm_buf *b, const gm_find_ctx *c, const gm_run *run,
                                    const gm_run *lean)
{
    double t = gm_find_time_of(run), tl = gm_find_time_of(lean);
    gm_find_saving sv = {t - tl, (t - tl) / t, false, NAN, NAN, NAN, NAN, NAN, NAN};
    gm_buf name = gm_find_label(c, lean);
    gm_say(b, "Not moving the excess bytes is what {} does with the same work: DRAM reads {} "
              "there, and it takes {} against this run's {}, {} less",
           GM_BUF(&name), GM_BYTES(gm_find_m(lean, GM_M_DRAM_RD)), GM_MS(tl), GM_MS(t),
           GM_MS(sv.ms));
    gm_buf_free(&name);
    gm_find_share_text(b, run, sv.share);
    gm_buf_puts(b, ". ");
    return sv;
}

void gm_find_rule_overfetch(gm_find_ctx *c, const gm_run *run)
{
    double rd = gm_find_m(run, GM_M_DRAM_RD), wr = gm_find_m(run, GM_M_DRAM_WR);
    double nr = gm_value_num(&run->bytes_read), nw = gm_value_num(&run->bytes_written);
    bool fr = rd >= 0 && nr > 0 && rd >= GM_FIND_DRAM_OVERFETCH * nr;
    bool fw = wr >= 0 && nw > 0 && wr >= GM_FIND_DRAM_OVERFETCH * nw;
    if (!fr && !fw)
        return;
    double excess = (fr ? rd - nr : 0) + (fw ? wr - nw : 0);
    gm_find_glob g = gm_find_global(run, false);
    /* the threads ask for most of the excess themselves, and DRAM delivers
     * each byte about once (findings.h: GM_FIND_PADDING_DELIVERED): padding
     * where the layout says it stores some, else padding or data read again */
    double asked = S_asked(&g);
    bool own = fr && asked >= GM_FIND_DRAM_OVERFETCH * nr &&
               rd >= GM_FIND_PADDING_DELIVERED * asked && 2.0 * (asked - nr) >= rd - nr;
    bool padded = own && S_says_padding(run);
    bool uncoalesced = fr && !own && gm_find_uncoalesced(&g);
    gm_buf who = gm_find_label(c, run);
    gm_buf b = GM_BUF_INIT;
    if (fr)
        gm_say(&b, "{} makes DRAM read {}, {} the {} it must read", GM_BUF(&who), GM_BYTES(rd),
               GM_RATIO(rd / nr), GM_BYTES(nr));
    if (fr && fw)
        gm_say(&b, ", and write {}, {} the {} it must write", GM_BYTES(wr), GM_RATIO(wr / nw),
               GM_BYTES(nw));
    else if (fw)
        gm_say(&b, "{} makes DRAM write {}, {} the {} it must write", GM_BUF(&who), GM_BYTES(wr),
               GM_RATIO(wr / nw), GM_BYTES(nw));
    gm_buf_free(&who);
    /* DRAM against the ceiling, as the report's other tables give it (a
     * rate above it, counters and time that do not match: its % of peak) */
    double gbs = gm_run_dram_gbs(run), pct = gm_find_m(run, GM_M_DRAM_PCT);
    if (isfinite(gbs) && c->copy_gbs > 0 && gbs <= c->copy_gbs)
        gm_say(&b, ", with DRAM moving {} ({} of {})", GM_GBS(gbs),
               GM_PCT(100.0 * gbs / c->copy_gbs),
               GM_LIT(c->attainable ? "attainable" : "the copy bandwidth"));
    else if (isfinite(pct))
        gm_say(&b, ", with DRAM at {} of its peak", GM_PCT(pct));
    if (own) {
        gm_say(&b, padded ? ": {} more than the computation needs, most of it padding that the "
                            "layout stores beside the data and its threads read. "
                          : ": {} more than the computation needs, most of it bytes its threads "
                            "load themselves: padding the layout stores, or data read from DRAM "
                            "more than once. ",
               GM_BYTES(excess));
        gm_say(&b, "They ask for {}, {} what it must read, in requests of {} sectors where {} "
                   "would hold them, and DRAM reads each byte about once: the excess is in what "
                   "they load, not in wasted sectors. ",
               GM_BYTES(asked), GM_RATIO(asked / nr), GM_FIXED(g.spr, 1), GM_FIXED(g.ideal, 1));
    } else {
        gm_say(&b, ": {} more than the computation needs. ", GM_BYTES(excess));
    }
    if (uncoalesced)
        gm_say(&b, "Its global loads fetch {} the sectors their bytes need, so whole sectors "
                   "travel for a few of their bytes. ",
               GM_RATIO(g.spr / g.ideal));
    /* bytes the threads ask for: the saving is what the layout without them
     * measures at the same size; else the model's, the unit DRAM, bytes read
     * and written */
    const gm_run *lean = own ? S_lean_peer(c, run) : NULL;
    gm_find_saving sv;
    gm_severity sev;
    if (lean) {
        sv = S_lean_saving(&b, c, run, lean);
        sev = gm_find_minor(sv.ms, sv.share) ? GM_SEV_INFO : GM_SEV_WARNING;
    } else {
        sv = gm_find_estimate(c, run, excess, (rd >= 0 ? rd : 0.0) + (wr >= 0 ? wr : 0.0),
                              excess, excess);
        sev = gm_find_saving_text(&b, run, sv, "bytes");
    }
    gm_find_add_saving(c, GM_RULE_DRAM_OVERFETCH, sev, run, excess, lean ? sv.ms : NAN, sv,
                       padded ? "store the data without the padding (pack what each row or "
                                "record holds, as the layout named above does where there is "
                                "one), so that every byte the threads load is one the "
                                "computation uses."
                       : uncoalesced
                           ? "coalesce the loads (consecutive threads on consecutive addresses), "
                             "so that the sectors DRAM delivers hold bytes the threads use."
                           : "read each input from DRAM once, keeping what several threads or "
                             "passes reuse in shared memory or registers instead of fetching it "
                             "again.",
                       &b);
}

void gm_find_rule_l2(gm_find_ctx *c, const gm_run *run)
{
    gm_find_glob g = gm_find_global(run, false);
    double rd = gm_find_m(run, GM_M_DRAM_RD), nr = gm_value_num(&run->bytes_read);
    if (!gm_find_uncoalesced(&g) || !(g.sectors >= 0) || !(nr > 0) || !(rd >= 0))
        return;
    double fetched = g.sectors * SECTOR_BYTES;
    if (fetched < nr * (1.0 + GM_FIND_SECTOR_EXCESS) || rd > GM_FIND_L2_ABSORB_DRAM * nr)
        return;
    gm_buf who = gm_find_label(c, run);
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "{} fetches {} in global-load sectors ({} per request where {} would do) for the "
               "{} it must read, yet DRAM reads only {} ({}): the extra sectors are found in the "
               "caches, so they cost tag lookups and L1–L2 transfers, not DRAM bytes. ",
           GM_BUF(&who), GM_BYTES(fetched), GM_FIXED(g.spr, 1), GM_FIXED(g.ideal, 1),
           GM_BYTES(nr), GM_BYTES(rd), GM_RATIO(rd / nr));
    gm_buf_free(&who);
    const gm_run *p = gm_find_fastest_peer(c, run);
    double lost = NAN;
    if (p == run) {
        gm_buf_puts(&b, gm_run_is_program(run) ? "It is the fastest kernel profiled in the program."
                                               : "It is the fastest run doing the same work.");
    } else if (p) {
        double t = gm_find_time_of(run), tp = gm_find_time_of(p);
        lost = t - tp;
        gm_buf peer = gm_find_label(c, p);
        gm_say(&b, t <= tp * GM_FIND_TIME_CLOSE
                       ? "It takes {} the time of {}, {} ({} against {}): little or no time is "
                         "lost."
                       : "Still, it takes {} the time of {}, {} ({} against {}): the extra "
                         "sectors still cost time.",
               GM_RATIO(t / tp), GM_BUF(&peer),
               GM_LIT(gm_run_is_program(run) ? "the fastest kernel profiled in the program"
                                             : "the fastest run doing the same work"),
               GM_MS(t), GM_MS(tp));
        gm_buf_free(&peer);
    }
    gm_find_add(c, GM_RULE_L2_ABSORBS, GM_SEV_INFO, run, 0.0, lost,
                "nothing for DRAM; aligning each warp's accesses to 32-byte sectors would spare "
                "only the extra L1–L2 transfers.", &b);
}

/* A run whose bytes are under GM_FIND_SMALL_FRACTION of the copy
 * measurement's: too short for its bytes to dominate its time. */
static bool S_is_small(const gm_find_ctx *c, double need)
{
    double cb = gm_value_num(&c->r->device.copy_bandwidth_bytes);
    return cb > 0 && need < cb * GM_FIND_SMALL_FRACTION;
}

/* "It moves only 2.1 MB in 4.2 µs, where the copy bandwidth was measured
 * moving 1.1 GB: ..." */
static void S_small(gm_buf *b, const gm_find_ctx *c, double need, double t)
{
    gm_say(b, "It moves only {} in {}, where {} was measured moving {}: a kernel this short "
              "spends much of its time starting and draining, not streaming bytes. ",
           GM_BYTES(need), GM_MS(t), GM_LIT(gm_results_ceiling_name(c->r)),
           GM_BYTES(gm_value_num(&c->r->device.copy_bandwidth_bytes)));
}

/* What the two bandwidth rules read of a run (not-memory-bound and
 * dram-underused): its time and the bytes it must move against the copy
 * bandwidth, how busy DRAM is, and whether its accesses waste sectors or
 * wavefronts.  known: false when the time, the bytes, the copy bandwidth or
 * the DRAM utilisation is missing (then neither rule fires). */
typedef struct {
    bool known;
    bool bw_bound;        /* its experiment is about bandwidth */
    double t, need, copy, pct;
    double gbs;           /* the useful bytes' rate */
    double t_copy;        /* ms the bytes take at the copy bandwidth */
    double forgone;       /* bytes the copy rate moves in t, less need */
    gm_find_glob ld, st;
    gm_find_shr sl, ss;
    bool clean;           /* no excess sectors or wavefronts */
    double lost;          /* ms against its fastest peer; NaN when it is the fastest */
} S_bw;

static S_bw S_bw_read(const gm_find_ctx *c, const gm_run *run)
{
    S_bw w;
    memset(&w, 0, sizeof w);
    const gm_experiment *e = gm_find_exp(c->r, run->experiment);
    w.bw_bound = e && e->bandwidth_bound;
    double t = gm_find_time_of(run), need = gm_find_need(run), copy = c->copy_gbs;
    double pct = gm_find_m(run, GM_M_DRAM_PCT);
    if (!isfinite(t) || !(need > 0) || !(copy > 0) || !isfinite(pct))
        return w;
    w.known = true;
    w.t = t, w.need = need, w.copy = copy, w.pct = pct;
    w.gbs = need / (t * 1e6);            /* bytes / (ms * 1e-3) / 1e9 */
    w.t_copy = need / (copy * 1e6);      /* ms the bytes take at the copy bandwidth */
    w.forgone = copy * 1e6 * t - need;   /* bytes the copy rate moves in t, less need */
    w.ld = gm_find_global(run, false), w.st = gm_find_global(run, true);
    w.sl = gm_find_shared(run, false), w.ss = gm_find_shared(run, true);
    w.clean = !gm_find_uncoalesced(&w.ld) && !gm_find_uncoalesced(&w.st) &&
              !gm_find_conflicted(&w.sl) && !gm_find_conflicted(&w.ss);
    const gm_run *p = gm_find_fastest_peer(c, run);
    w.lost = p && p != run ? t - gm_find_time_of(p) : NAN;
    return w;
}

/* The not-memory-bound test; dram-underused fires only where it does not. */
static bool S_bw_idle(const S_bw *w)
{
    return w->known && w->pct < GM_FIND_DRAM_IDLE_PCT &&
           w->gbs < GM_FIND_BW_SLOW_FRACTION * w->copy && w->clean;
}

void gm_find_rule_not_memory_bound(gm_find_ctx *c, const gm_run *run)
{
    S_bw w = S_bw_read(c, run);
    if (!S_bw_idle(&w))
        return;
    double t = w.t, need = w.need, copy = w.copy, pct = w.pct, t_copy = w.t_copy;
    const gm_find_glob ld = w.ld;
    const gm_find_shr sl = w.sl;
    gm_buf who = gm_find_label(c, run);
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "{} is limited by something other than memory: DRAM runs at {} of its peak",
           GM_BUF(&who), GM_PCT(pct));
    gm_buf_free(&who);
    if (ld.known)
        gm_say(&b, ", its global loads fetch {} sectors per request against an ideal of {}",
               GM_FIXED(ld.spr, 1), GM_FIXED(ld.ideal, 1));
    if (sl.known)
        gm_say(&b, ", its shared loads take {} wavefronts per instruction against an ideal of {}",
               GM_FIXED(sl.wpi, 2), GM_FIXED(sl.ideal, 2));
    gm_say(&b, ", yet it takes {}, {} the {} its {} would take at {} ({}). ", GM_MS(t),
           GM_RATIO(t / t_copy), GM_MS(t_copy), GM_BYTES(need),
           GM_LIT(gm_results_ceiling_name(c->r)), GM_GBS(copy));
    double fl = gm_value_num(&run->flops);
    if (fl > 0)
        gm_say(&b, "It performs {} at {}/s. ", GM_FLOP(fl), GM_FLOP(fl / (t * 1e-3)));
    bool small = S_is_small(c, need);
    if (small) {
        S_small(&b, c, need, t);
    } else {
        gm_buf_puts(&b, "The time goes to arithmetic, latency or synchronisation rather than "
                        "to moving bytes");
        double l2 = gm_find_m(run, GM_M_L2_HIT);
        if (l2 >= 50.0)
            gm_say(&b, "; L2 serves {} of its sectors, so L2 bandwidth is a candidate too",
                   GM_PCT(l2));
        gm_buf_puts(&b, ". ");
    }
    /* A warning only where bandwidth is the point and size is not the
     * explanation. */
    gm_find_add(c, GM_RULE_NOT_MEMORY_BOUND, w.bw_bound && !small ? GM_SEV_WARNING : GM_SEV_INFO,
                run, w.forgone, w.lost,
                small ? "give each launch more work (a larger problem, or several batched into "
                        "one launch), since a kernel this short cannot stream."
                      : "look at its instructions and stalls (Nsight Compute's source and "
                        "warp-state views), not at its memory layout, which is not what limits "
                        "it.",
                &b);
}

void gm_find_rule_dram_underused(gm_find_ctx *c, const gm_run *run)
{
    S_bw w = S_bw_read(c, run);
    if (!w.known || S_bw_idle(&w))
        return;
    double t = w.t, need = w.need, copy = w.copy, pct = w.pct, gbs = w.gbs;
    const gm_find_glob ld = w.ld;
    const gm_find_shr sl = w.sl;
    if (!w.bw_bound || pct >= GM_FIND_DRAM_LOW_PCT || gbs >= GM_FIND_BW_LOW_FRACTION * copy)
        return;
    gm_buf who = gm_find_label(c, run);
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "{} moves the {} it must read and write at {}, {} of {} measured on this device "
               "({}), while DRAM runs at {} of its peak: DRAM is not what limits it. ",
           GM_BUF(&who), GM_BYTES(need), GM_GBS(gbs), GM_PCT(100.0 * gbs / copy),
           GM_LIT(gm_results_ceiling_name(c->r)), GM_GBS(copy), GM_PCT(pct));
    gm_buf_free(&who);
    if (gm_find_uncoalesced(&ld))
        gm_say(&b, "Its global loads fetch {} sectors per request where {} would do, so the load "
                   "path moves {} the sectors it needs. ",
               GM_FIXED(ld.spr, 1), GM_FIXED(ld.ideal, 1), GM_RATIO(ld.spr / ld.ideal));
    if (gm_find_conflicted(&sl)) {
        gm_buf ways = GM_BUF_INIT;
        gm_find_ways(&ways, sl.ways);
        gm_say(&b, "Its shared loads suffer {}. ", GM_BUF(&ways));
        gm_buf_free(&ways);
    }
    bool small = S_is_small(c, need);
    if (small)
        S_small(&b, c, need, t);
    /* Info when size alone explains it (no excess sectors or wavefronts). */
    gm_find_add(c, GM_RULE_DRAM_UNDERUSED,
                small && w.clean ? GM_SEV_INFO : GM_SEV_WARNING, run,
                w.forgone, w.lost,
                gm_find_uncoalesced(&ld)
                    ? "coalesce its loads first (consecutive threads on consecutive addresses), "
                      "since the load path moves sectors nobody uses."
                : gm_find_conflicted(&sl)
                    ? "remove the bank conflicts first (pad the shared tile by one column), then "
                      "put more bytes in flight."
                : small && w.clean
                    ? "give each launch more work (a larger problem, or several batched into one "
                      "launch), since a kernel this short cannot stream."
                    : "put more bytes in flight per thread by loading `float4` (16 bytes per "
                      "thread) or unrolling, so that each thread has several independent loads "
                      "outstanding.",
                &b);
}
