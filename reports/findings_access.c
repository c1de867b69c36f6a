/* findings_access.c — the rules on how a warp's accesses use what they touch
 * (findings_rules.h; docs/findings.md): uncoalesced global loads and stores
 * (sectors per request against the ideal), shared-memory bank conflicts on
 * loads and stores (wavefronts against the ideal), and constant-memory reads
 * serialised over distinct addresses.
 */
#include "findings_rules.h"

#include "runs.h"
#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The constant-cache serialisation the model reports in a prediction note
 * (core/model.c): "Constant memory (no metric above): N warp loads traced,
 * D distinct addresses each on average; ...".  No hardware counter gives it.
 * Parsed by hand: strtod would follow the locale's decimal point. */
static bool S_const_note(const gm_run *run, double *loads, double *distinct)
{
    static const char head[] = "Constant memory (no metric above): ";
    if (!run->prediction.present)
        return false;
    for (size_t i = 0; i < run->prediction.n_notes; i++) {
        const char *s = run->prediction.notes[i];
        if (!s || strncmp(s, head, sizeof head - 1) != 0)
            continue;
        s += sizeof head - 1;
        double n = 0, d = 0, scale = 0;
        bool any = false;
        for (; *s >= '0' && *s <= '9'; s++, any = true)
            n = n * 10 + (*s - '0');
        static const char mid[] = " warp loads traced, ";
        if (!any || strncmp(s, mid, sizeof mid - 1) != 0)
            continue;
        s += sizeof mid - 1;
        any = false;
        for (; (*s >= '0' && *s <= '9') || (*s == '.' && scale == 0); s++) {
            if (*s == '.') {
                scale = 1;
                continue;
            }
            any = true;
            if (scale > 0) {
                scale /= 10;
                d += scale * (*s - '0');
            } else {
                d = d * 10 + (*s - '0');
            }
        }
        if (!any || strncmp(s, " distinct addresses", 19) != 0)
            continue;
        *loads = n;
        *distinct = d;
        return true;
    }
    return false;
}

/* What to change about uncoalesced loads or stores, by the shape of the
 * waste: one extra sector or so per request is a misaligned start; under
 * one sector's worth of bytes per request is a few lanes each writing
 * alone (a reduction's result); anything else is a stride. */
static const char *S_fix_sectors(const gm_find_glob *g, bool store)
{
    if (g->ideal >= 2.0 && g->spr <= g->ideal * 1.3)
        return "align the start of each warp's access to 32 bytes (pad the rows, or offset the "
               "array), so that its requests do not straddle a sector.";
    if (g->ideal < 1.0)
        return store ? "gather the results in shared memory (or across the warp with shuffles) "
                       "and write them from consecutive threads, so that a store request fills "
                       "whole sectors."
                     : "have the threads of a warp load consecutive elements together, so that "
                       "a request's sectors hold the bytes the warp uses.";
    return store ? "make consecutive threads write consecutive addresses (`threadIdx.x` on the "
                   "fastest-varying index), or write through a shared-memory tile where the "
                   "pattern is a transpose."
                 : "make consecutive threads read consecutive addresses (`threadIdx.x` on the "
                   "fastest-varying index), or read through a shared-memory tile where the "
                   "pattern is a transpose.";
}

static void S_rule_uncoalesced(gm_find_ctx *c, const gm_run *run, bool store)
{
    gm_find_glob g = gm_find_global(run, store);
    if (!gm_find_uncoalesced(&g))
        return;
    gm_buf who = gm_find_label(c, run);
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, store ? "{} writes to {} sectors per global store request where {} would hold the "
                       "bytes its threads write"
                     : "{} fetches {} sectors per global load request where {} would hold the "
                       "bytes its threads ask for",
           GM_BUF(&who), GM_FIXED(g.spr, 1), GM_FIXED(g.ideal, 1));
    gm_buf_free(&who);
    if (g.ideal_model)
        gm_buf_puts(&b, " (the address-trace model's figure)");
    else
        gm_say(&b, " ({} × its {} efficiency)", GM_FIXED(g.spr, 1), GM_PCT(g.eff));
    if (isfinite(g.excess))
        gm_say(&b, ": {} excess sectors of {}", GM_COUNT(g.excess), GM_COUNT(g.sectors));
    if (isfinite(g.wasted))
        gm_say(&b, store ? "{}{} of sector bytes that no thread wrote"
                         : "{}{} fetched that no thread uses",
               GM_LIT(isfinite(g.excess) ? ", and " : ": "), GM_BYTES(g.wasted));
    gm_buf_puts(&b, ". ");
    double lost = gm_find_vs_fastest(&b, c, run);
    double cost = isfinite(g.wasted) ? g.wasted : g.excess * SECTOR_BYTES;
    /* the unit: the L1TEX global sectors, loads and stores */
    gm_find_glob other = gm_find_global(run, !store);
    double total = g.sectors + (other.sectors >= 0 ? other.sectors : 0.0);
    /* DRAM bytes the excess sectors cost: at most the bytes DRAM moved in
     * that direction beyond the sectors the threads need (the caches serve
     * the rest), never more than the excess */
    double dram = gm_find_m(run, store ? GM_M_DRAM_WR : GM_M_DRAM_RD);
    double removed = dram >= 0 && isfinite(g.excess)
                         ? fmin(g.excess * SECTOR_BYTES,
                                fmax(0.0, dram - (g.sectors - g.excess) * SECTOR_BYTES))
                         : NAN;
    gm_find_saving sv = gm_find_estimate(c, run, g.excess, total, g.excess * SECTOR_BYTES, removed);
    gm_severity sev = gm_find_saving_text(&b, run, sv, "sectors");
    gm_find_add_saving(c, store ? GM_RULE_UNCOALESCED_STORE : GM_RULE_UNCOALESCED_LOAD, sev, run,
                       cost, lost, sv, S_fix_sectors(&g, store), &b);
}

void gm_find_rule_uncoalesced_load(gm_find_ctx *c, const gm_run *run)
{
    S_rule_uncoalesced(c, run, false);
}

void gm_find_rule_uncoalesced_store(gm_find_ctx *c, const gm_run *run)
{
    S_rule_uncoalesced(c, run, true);
}

static void S_rule_banks(gm_find_ctx *c, const gm_run *run, bool store)
{
    gm_find_shr s = gm_find_shared(run, store);
    if (!gm_find_conflicted(&s))
        return;
    gm_say_arg kind = GM_LIT(store ? "store" : "load");
    gm_buf who = gm_find_label(c, run), ways = GM_BUF_INIT;
    gm_find_ways(&ways, s.ways);
    gm_buf b = GM_BUF_INIT;
    if (s.per_request) {
        /* some instructions ran with every thread predicated off: per
         * instruction the figure would sit under the ideal of a request */
        gm_say(&b, "{} needs {} wavefronts per shared {} request where 1 would do: {}, {} excess "
                   "wavefronts over the {} requests it made, each served after the other ({}; "
                   "of its {} shared {} instructions the others ran with every thread "
                   "predicated off). ",
               GM_BUF(&who), GM_FIXED(s.wpr, 2), kind, GM_BUF(&ways), GM_COUNT(s.excess),
               GM_COUNT(s.req),
               GM_LIT(s.src == GM_FIND_IDEAL_MODEL ? "the address-trace model's requests"
                                                   : "its wavefronts less the measured bank "
                                                     "conflicts"),
               GM_COUNT(s.inst), kind);
    } else {
        const char *ideal = s.src == GM_FIND_IDEAL_MODEL
                                ? "is ideal (the address-trace model's figure)"
                            : s.src == GM_FIND_IDEAL_COUNTER
                                ? "is ideal (wavefronts less the measured bank conflicts)"
                                : "is ideal for 4-byte accesses (no conflict counter or "
                                  "prediction was recorded)";
        gm_say(&b, "{} needs {} wavefronts per shared {} instruction where {} {}: {}, {} excess "
                   "wavefronts over {} instructions, each served after the other. ",
               GM_BUF(&who), GM_FIXED(s.wpi, 2), kind, GM_FIXED(s.ideal, 2), GM_LIT(ideal),
               GM_BUF(&ways), GM_COUNT(s.excess), GM_COUNT(s.inst));
    }
    gm_buf_free(&who);
    gm_buf_free(&ways);
    double lost = gm_find_vs_fastest(&b, c, run);
    /* the unit: the shared-memory data stage, load and store wavefronts; no
     * DRAM byte is spared */
    gm_find_shr o = gm_find_shared(run, !store);
    double total = s.waves + (o.known ? o.waves : 0.0);
    gm_find_saving sv = gm_find_estimate(c, run, s.excess, total, s.excess * WAVEFRONT_BYTES, 0.0);
    gm_severity sev = gm_find_saving_text(&b, run, sv, "wavefronts");
    gm_find_add_saving(c, store ? GM_RULE_BANK_CONFLICT_STORE : GM_RULE_BANK_CONFLICT_LOAD, sev,
                       run, s.excess * WAVEFRONT_BYTES, lost, sv,
                       "make the threads of a warp touch consecutive 4-byte words of shared "
                       "memory, or pad the array by one word in every 32 (a tile `[N][N + 1]`), "
                       "so that no two threads of a request fall in one bank.", &b);
}

void gm_find_rule_banks_load(gm_find_ctx *c, const gm_run *run)
{
    S_rule_banks(c, run, false);
}

void gm_find_rule_banks_store(gm_find_ctx *c, const gm_run *run)
{
    S_rule_banks(c, run, true);
}

void gm_find_rule_constant(gm_find_ctx *c, const gm_run *run)
{
    double loads, d;
    if (!S_const_note(run, &loads, &d) || d < GM_FIND_CONST_SERIAL)
        return;
    const gm_prediction *p = &run->prediction;
    double scale = p->scaled && p->warps_traced > 0 && p->warps_total > 0
                       ? (double)p->warps_total / (double)p->warps_traced : 1.0;
    gm_buf who = gm_find_label(c, run);
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "{} reads constant memory at {} distinct addresses per warp load on average, so "
               "the constant cache serves each load in {} passes where one broadcast would do. "
               "No hardware counter measures this: the figure is the address-trace model's, "
               "from {} traced warp loads. ",
           GM_BUF(&who), GM_FIXED(d, 2), GM_FIXED(d, 2), GM_COUNT(loads));
    gm_buf_free(&who);
    double lost = gm_find_vs_fastest(&b, c, run);
    /* cost: each extra pass holds the constant cache for a cycle in which it
     * could have broadcast one 4-byte word to 32 lanes, 128 B of operands */
    gm_find_add(c, GM_RULE_CONSTANT_SERIAL, GM_SEV_WARNING, run,
                (d - 1.0) * loads * scale * WAVEFRONT_BYTES, lost,
                "read constant memory at one address per warp (an index uniform across the "
                "warp), or move a table read at per-thread indices to global memory, which "
                "serves a warp's 32 addresses in one request.", &b);
}
