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
    gm_buf b = GM_BUF_INIT;
    gm_find_run_label(&b, c, run);
    gm_buf_puts(&b, store ? " writes to " : " fetches ");
    gm_fmt_fixed(&b, g.spr, 1);
    gm_buf_printf(&b, " sectors per global %s request where ", store ? "store" : "load");
    gm_fmt_fixed(&b, g.ideal, 1);
    gm_buf_printf(&b, " would hold the bytes its threads %s", store ? "write" : "ask for");
    if (g.ideal_model) {
        gm_buf_puts(&b, " (the address-trace model's figure)");
    } else {
        gm_buf_puts(&b, " (");
        gm_fmt_fixed(&b, g.spr, 1);
        gm_buf_puts(&b, " × its ");
        gm_fmt_pct(&b, g.eff);
        gm_buf_puts(&b, " efficiency)");
    }
    if (isfinite(g.excess)) {
        gm_buf_puts(&b, ": ");
        gm_fmt_count(&b, g.excess);
        gm_buf_puts(&b, " excess sectors of ");
        gm_fmt_count(&b, g.sectors);
    }
    if (isfinite(g.wasted)) {
        gm_buf_puts(&b, isfinite(g.excess) ? ", and " : ": ");
        gm_fmt_bytes(&b, g.wasted);
        gm_buf_puts(&b, store ? " of sector bytes that no thread wrote"
                              : " fetched that no thread uses");
    }
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
    const char *kind = store ? "store" : "load";
    gm_buf b = GM_BUF_INIT;
    gm_find_run_label(&b, c, run);
    if (s.per_request) {
        /* some instructions ran with every thread predicated off: per
         * instruction the figure would sit under the ideal of a request */
        gm_buf_puts(&b, " needs ");
        gm_fmt_fixed(&b, s.wpr, 2);
        gm_buf_printf(&b, " wavefronts per shared %s request where 1 would do: ", kind);
        gm_find_ways(&b, s.ways);
        gm_buf_puts(&b, ", ");
        gm_fmt_count(&b, s.excess);
        gm_buf_puts(&b, " excess wavefronts over the ");
        gm_fmt_count(&b, s.req);
        gm_buf_puts(&b, " requests it made, each served after the other (");
        gm_buf_puts(&b, s.src == GM_FIND_IDEAL_MODEL ? "the address-trace model's requests"
                                               : "its wavefronts less the measured bank conflicts");
        gm_buf_puts(&b, "; of its ");
        gm_fmt_count(&b, s.inst);
        gm_buf_printf(&b, " shared %s instructions the others ran with every thread predicated "
                          "off). ", kind);
    } else {
        gm_buf_puts(&b, " needs ");
        gm_fmt_fixed(&b, s.wpi, 2);
        gm_buf_printf(&b, " wavefronts per shared %s instruction where ", kind);
        gm_fmt_fixed(&b, s.ideal, 2);
        gm_buf_puts(&b, s.src == GM_FIND_IDEAL_MODEL
                            ? " is ideal (the address-trace model's figure)"
                        : s.src == GM_FIND_IDEAL_COUNTER
                            ? " is ideal (wavefronts less the measured bank conflicts)"
                            : " is ideal for 4-byte accesses (no conflict counter "
                              "or prediction was recorded)");
        gm_buf_puts(&b, ": ");
        gm_find_ways(&b, s.ways);
        gm_buf_puts(&b, ", ");
        gm_fmt_count(&b, s.excess);
        gm_buf_puts(&b, " excess wavefronts over ");
        gm_fmt_count(&b, s.inst);
        gm_buf_puts(&b, " instructions, each served after the other. ");
    }
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
    gm_buf b = GM_BUF_INIT;
    gm_find_run_label(&b, c, run);
    gm_buf_puts(&b, " reads constant memory at ");
    gm_fmt_fixed(&b, d, 2);
    gm_buf_puts(&b, " distinct addresses per warp load on average, so the constant cache serves "
                    "each load in ");
    gm_fmt_fixed(&b, d, 2);
    gm_buf_puts(&b, " passes where one broadcast would do. No hardware counter measures this: "
                    "the figure is the address-trace model's, from ");
    gm_fmt_count(&b, loads);
    gm_buf_puts(&b, " traced warp loads. ");
    double lost = gm_find_vs_fastest(&b, c, run);
    /* cost: each extra pass holds the constant cache for a cycle in which it
     * could have broadcast one 4-byte word to 32 lanes, 128 B of operands */
    gm_find_add(c, GM_RULE_CONSTANT_SERIAL, GM_SEV_WARNING, run,
                (d - 1.0) * loads * scale * WAVEFRONT_BYTES, lost,
                "read constant memory at one address per warp (an index uniform across the "
                "warp), or move a table read at per-thread indices to global memory, which "
                "serves a warp's 32 addresses in one request.", &b);
}
