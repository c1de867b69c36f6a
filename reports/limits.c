/* limits.c — where a run's bytes go and what limits its time (limits.h). */
#include "limits.h"

#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/say.h"

#include <math.h>
#include <string.h>

/* x + y, NaN only when both are. */
static double S_sum(double x, double y)
{
    if (isnan(x) && isnan(y))
        return NAN;
    return (isnan(x) ? 0 : x) + (isnan(y) ? 0 : y);
}

void gm_limits_of(const gm_run *run, const gm_ceiling *ceiling, int sm_count, gm_limits *l)
{
    memset(l, 0, sizeof *l);
    l->ms = gm_run_median_ms(run);
    double rd = gm_value_num(&run->bytes_read), wr = gm_value_num(&run->bytes_written);
    l->useful = isfinite(rd) || isfinite(wr) ? S_sum(rd, wr) : NAN;
    l->requests = S_sum(gm_run_metric_num(run, GM_M_LD_REQUESTS),
                        gm_run_metric_num(run, GM_M_ST_REQUESTS));
    l->sectors = S_sum(gm_run_metric_num(run, GM_M_LD_SECTORS),
                       gm_run_metric_num(run, GM_M_ST_SECTORS));
    l->l1_hit = gm_run_metric_num(run, GM_M_L1_HIT);
    l->l2_hit = gm_run_metric_num(run, GM_M_L2_HIT);
    double drd = gm_run_metric_num(run, GM_M_DRAM_RD), dwr = gm_run_metric_num(run, GM_M_DRAM_WR);
    l->dram_bytes = drd >= 0 && dwr >= 0 ? drd + dwr : NAN;
    l->dram_gbs = gm_run_dram_gbs(run);
    double c = ceiling->gbs;
    l->dram_pct = c > 0 ? fmin(100.0, 100.0 * l->dram_gbs / c) : NAN;
    l->attainable = ceiling->attainable;
    l->occupancy = gm_run_metric_num(run, GM_M_OCCUPANCY);
    l->theoretical = run->has_launch && run->launch.theoretical_occupancy > 0
                         ? run->launch.theoretical_occupancy
                         : NAN;
    l->warps = NAN;
    if (run->has_launch) {
        double blocks = (double)run->launch.grid[0] * run->launch.grid[1] * run->launch.grid[2];
        double threads = (double)run->launch.block[0] * run->launch.block[1] *
                         run->launch.block[2];
        if (blocks > 0 && threads > 0)
            l->warps = blocks * ceil(threads / 32.0);
    }
    l->sms = sm_count > 0 ? sm_count : NAN;
    double sw = S_sum(gm_run_metric_num(run, GM_M_SH_LD_WAVES),
                      gm_run_metric_num(run, GM_M_SH_ST_WAVES));
    double si = S_sum(gm_run_metric_num(run, GM_M_SH_LD_INST),
                      gm_run_metric_num(run, GM_M_SH_ST_INST));
    l->shared_wpi = si > 0 ? sw / si : NAN;
    /* of loads and stores, the side that wastes the most sector bytes */
    double le = gm_run_metric_num(run, GM_M_LD_EFF), se = gm_run_metric_num(run, GM_M_ST_EFF);
    double ls = gm_run_metric_num(run, GM_M_LD_SECTORS), ss = gm_run_metric_num(run, GM_M_ST_SECTORS);
    double lw = ls * (100 - le), sw_ = ss * (100 - se);
    l->store = sw_ > lw || (isnan(lw) && isfinite(sw_));
    l->efficiency = l->store ? se : le;
    double req = gm_run_metric_num(run, l->store ? GM_M_ST_REQUESTS : GM_M_LD_REQUESTS);
    l->spr = req > 0 ? (l->store ? ss : ls) / req : NAN;

    if (!run->n_metrics)
        l->kind = GM_LIMIT_UNPROFILED;
    else if (l->dram_pct >= GM_LIMIT_DRAM_PCT)
        l->kind = GM_LIMIT_DRAM;
    else if (l->shared_wpi >= GM_LIMIT_SHARED_WPI)
        l->kind = GM_LIMIT_SHARED;
    else if (l->occupancy < GM_LIMIT_OCCUPANCY)
        l->kind = GM_LIMIT_LATENCY;
    else if (l->efficiency <= GM_LIMIT_EFFICIENCY)
        l->kind = GM_LIMIT_SECTORS;
    else if (l->ms < GM_LIMIT_SHORT_MS)
        l->kind = GM_LIMIT_LAUNCH;
    else
        l->kind = GM_LIMIT_ISSUE;
}

const char *gm_limits_unprofiled_note(const gm_run *run)
{
    static const char lead[] = "not profiled: ";
    for (size_t i = 0; i < run->n_notes; i++)
        if (run->notes[i] && strncmp(run->notes[i], lead, sizeof lead - 1) == 0)
            return run->notes[i] + sizeof lead - 1;
    return NULL;
}

void gm_limits_note_md(gm_buf *b, const char *note)
{
    static const char opt[] = "--profile-max-ms";
    const char *at = strstr(note, opt);
    if (!at) {
        gm_esc_md(b, note);
        return;
    }
    gm_buf head = GM_BUF_INIT;
    gm_buf_put(&head, note, (size_t)(at - note));
    gm_buf_puts(&head, "");
    gm_say(b, "{}`--profile-max-ms`{}", GM_TEXT(head.data), GM_TEXT(at + sizeof opt - 1));
    gm_buf_free(&head);
}

/* What the DRAM share is of, after "92.2% of ": attainable, or the copy
 * bandwidth for an older file. */
static gm_say_arg S_ceiling(const gm_limits *l)
{
    return GM_LIT(l->attainable ? "attainable" : "the copy bandwidth");
}

/* Whether L1 or L2 serves the sectors, as a clause after "; ". */
static void S_cache_clause(gm_buf *b, const gm_limits *l)
{
    if (l->l1_hit >= GM_LIMIT_CACHE_HIT)
        gm_say(b, "; L1 serves {} of its sectors", GM_PCT(l->l1_hit));
    else if (l->l2_hit >= GM_LIMIT_L2_HIT && l->kind != GM_LIMIT_DRAM)
        gm_say(b, "; L2 serves {} of the sectors L1 misses", GM_PCT(l->l2_hit));
    else
        return;
    /* sectors fetched in vain that DRAM does not see */
    if (l->efficiency <= GM_LIMIT_EFFICIENCY && l->useful > 0 && l->dram_bytes <= 1.25 * l->useful)
        gm_buf_puts(b, ": the extra sectors never reach DRAM");
}

/* Each verdict opens with its subject and verb ("`x` is DRAM-bound at"), or
 * without them ("DRAM-bound at") where subject is NULL: a choice of two
 * formats whose first placeholder is the subject, "" when there is none.  An
 * ISSUE verdict names its subject at the end of its opening ("neither ...
 * limits `x`").  The subject is Markdown of the caller, written as it is. */
void gm_limits_verdict_md(gm_buf *b, const gm_run *run, const gm_limits *l, const char *subject)
{
    bool s = subject != NULL;
    gm_say_arg who = GM_LIT(s ? subject : "");
    switch (l->kind) {
    case GM_LIMIT_UNPROFILED: {
        const char *why = gm_limits_unprofiled_note(run);
        if (!why) {
            gm_say(b,
                   s ? "{} was timed but not profiled: no counter says what limits it."
                     : "{}timed but not profiled: no counter says what limits it.",
                   who);
            return;
        }
        gm_buf note = GM_BUF_INIT;
        gm_limits_note_md(&note, why);
        gm_say(b, s ? "{} was timed but not profiled: {}{}." : "{}timed but not profiled: {}{}.",
               who, GM_BUF(&note),
               GM_LIT(strstr(why, "--profile-max-ms") ? "; a collection with a higher limit "
                                                        "profiles it"
                                                      : ""));
        gm_buf_free(&note);
        return;
    }
    case GM_LIMIT_DRAM:
        gm_say(b, s ? "{} is DRAM-bound at {} of {}" : "{}DRAM-bound at {} of {}", who,
               GM_PCT(l->dram_pct), S_ceiling(l));
        if (l->useful > 0 && l->dram_bytes >= 1.5 * l->useful)
            gm_say(b, ", moving {} the bytes the computation needs",
                   GM_RATIO(l->dram_bytes / l->useful));
        break;
    case GM_LIMIT_SHARED:
        gm_say(b,
               s ? "{} has bank conflicts: {} shared wavefronts per instruction where 1 is "
                   "ideal, each access replayed"
                 : "{}bank conflicts: {} shared wavefronts per instruction where 1 is ideal, "
                   "each access replayed",
               who, GM_FIXED(l->shared_wpi, 2));
        break;
    case GM_LIMIT_LATENCY:
        gm_say(b,
               s ? "{} is latency-bound: {} occupancy, too few warps to hide the memory latency"
                 : "{}latency-bound: {} occupancy, too few warps to hide the memory latency",
               who, GM_PCT(l->occupancy));
        if (l->warps / l->sms < 16)
            gm_say(b, " (the launch has {} {} for {} SMs)", GM_COUNT(l->warps),
                   GM_LIT(l->warps == 1 ? "warp" : "warps"), GM_COUNT(l->sms));
        if (l->theoretical < GM_LIMIT_OCCUPANCY)
            gm_say(b, "; its block size, registers and shared memory allow no more than {}",
                   GM_PCT(l->theoretical));
        else if (isfinite(l->theoretical))
            gm_say(b, "; its block size, registers and shared memory would allow {}",
                   GM_PCT(l->theoretical));
        break;
    case GM_LIMIT_SECTORS:
        gm_say(b,
               s ? "{} is limited by its sectors, not by DRAM ({} of {}): its {} use {} of the "
                   "bytes of the sectors they touch"
                 : "{}limited by its sectors, not by DRAM ({} of {}): its {} use {} of the "
                   "bytes of the sectors they touch",
               who, GM_PCT(l->dram_pct), S_ceiling(l), GM_LIT(l->store ? "stores" : "loads"),
               GM_PCT(l->efficiency));
        if (isfinite(l->spr))
            gm_say(b, " ({} a request)", GM_FIXED(l->spr, 1));
        break;
    case GM_LIMIT_LAUNCH:
        gm_say(b,
               s ? "{} is too short to fill the memory system: {} a launch, DRAM at {} of {}"
                 : "{}too short to fill the memory system: {} a launch, DRAM at {} of {}",
               who, GM_MS(l->ms), GM_PCT(l->dram_pct), S_ceiling(l));
        break;
    case GM_LIMIT_ISSUE:
        gm_say(b,
               s ? "Neither DRAM ({} of {}) nor occupancy ({}) limits {}"
                 : "neither DRAM ({} of {}) nor occupancy ({}) limits {}",
               GM_PCT(l->dram_pct), S_ceiling(l), GM_PCT(l->occupancy),
               GM_LIT(s ? subject : "it"));
        if (l->requests > 0 && l->useful > 0 && l->useful / l->requests < 4) {
            /* far fewer bytes than requests: the same bytes read again and again */
            gm_say(b,
                   ": its {} global requests read the same bytes again and again ({} requests "
                   "per 32 bytes it needs), and issuing and serving them takes the time",
                   GM_COUNT(l->requests), GM_NUM(l->requests * 32.0 / l->useful, 3));
        } else if (l->requests > 0 && l->useful > 0) {
            gm_say(b,
                   ": its {} global requests carry {} useful bytes each, and issuing and "
                   "serving them takes the time",
                   GM_COUNT(l->requests), GM_NUM(l->useful / l->requests, 3));
        }
        break;
    }
    S_cache_clause(b, l);
    gm_buf_puts(b, ".");
}

void gm_limits_short_md(gm_buf *b, const gm_limits *l)
{
    switch (l->kind) {
    case GM_LIMIT_UNPROFILED:
        gm_buf_puts(b, "not profiled");
        return;
    case GM_LIMIT_DRAM:
        gm_buf_puts(b, "DRAM");   /* its share is in the column before */
        break;
    case GM_LIMIT_SHARED:
        gm_say(b, "bank conflicts ({} wavefronts/inst)", GM_FIXED(l->shared_wpi, 2));
        break;
    case GM_LIMIT_LATENCY:
        gm_say(b, "latency ({} occupancy)", GM_PCT(l->occupancy));
        break;
    case GM_LIMIT_SECTORS:
        gm_say(b, "sectors ({} use {})", GM_LIT(l->store ? "stores" : "loads"),
               GM_PCT(l->efficiency));
        break;
    case GM_LIMIT_LAUNCH:
        gm_say(b, "launch ({})", GM_MS(l->ms));
        break;
    case GM_LIMIT_ISSUE:
        gm_buf_puts(b, "requests");
        break;
    }
    if (l->l1_hit >= GM_LIMIT_CACHE_HIT)
        gm_say(b, "; L1 serves {}", GM_PCT(l->l1_hit));
    else if (l->l2_hit >= GM_LIMIT_L2_HIT && l->kind != GM_LIMIT_DRAM)
        gm_say(b, "; L2 serves {}", GM_PCT(l->l2_hit));
}
