/* limits.c — where a run's bytes go and what limits its time (limits.h). */
#include "limits.h"

#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"

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
    gm_esc_md(b, head.data);
    gm_buf_free(&head);
    gm_esc_md_code(b, opt);
    gm_esc_md(b, at + sizeof opt - 1);
}

/* "92.2% of attainable" (or of the copy bandwidth, for an older file). */
static void S_pct_of_ceiling(gm_buf *b, const gm_limits *l)
{
    gm_fmt_pct(b, l->dram_pct);
    gm_buf_puts(b, l->attainable ? " of attainable" : " of the copy bandwidth");
}

/* Whether L1 or L2 serves the sectors, as a clause after "; ". */
static void S_cache_clause(gm_buf *b, const gm_limits *l)
{
    const char *level = NULL;
    double hit = NAN;
    if (l->l1_hit >= GM_LIMIT_CACHE_HIT) {
        level = "L1";
        hit = l->l1_hit;
    } else if (l->l2_hit >= GM_LIMIT_L2_HIT && l->kind != GM_LIMIT_DRAM) {
        level = "L2";
        hit = l->l2_hit;
    }
    if (!level)
        return;
    gm_buf_printf(b, "; %s serves ", level);
    gm_fmt_pct(b, hit);
    gm_buf_puts(b, !strcmp(level, "L1") ? " of its sectors" : " of the sectors L1 misses");
    /* sectors fetched in vain that DRAM does not see */
    if (l->efficiency <= GM_LIMIT_EFFICIENCY && l->useful > 0 && l->dram_bytes <= 1.25 * l->useful)
        gm_buf_puts(b, ": the extra sectors never reach DRAM");
}

/* The verdict's opening: "DRAM-bound at", or with a subject "`x` is
 * DRAM-bound at"; an ISSUE verdict names its subject at the end of its
 * opening ("neither ... limits `x`"). */
static void S_open(gm_buf *b, const char *subject, const char *verb, const char *rest)
{
    if (subject)
        gm_buf_printf(b, "%s %s%s", subject, verb, rest);
    else
        gm_buf_puts(b, rest);
}

void gm_limits_verdict_md(gm_buf *b, const gm_run *run, const gm_limits *l, const char *subject)
{
    switch (l->kind) {
    case GM_LIMIT_UNPROFILED: {
        const char *why = gm_limits_unprofiled_note(run);
        if (!why) {
            S_open(b, subject, "was ", "timed but not profiled: no counter says what limits it.");
            return;
        }
        S_open(b, subject, "was ", "timed but not profiled: ");
        gm_limits_note_md(b, why);
        if (strstr(why, "--profile-max-ms"))
            gm_buf_puts(b, "; a collection with a higher limit profiles it");
        gm_buf_puts(b, ".");
        return;
    }
    case GM_LIMIT_DRAM:
        S_open(b, subject, "is ", "DRAM-bound at ");
        S_pct_of_ceiling(b, l);
        if (l->useful > 0 && l->dram_bytes >= 1.5 * l->useful) {
            gm_buf_puts(b, ", moving ");
            gm_fmt_ratio(b, l->dram_bytes / l->useful);
            gm_buf_puts(b, " the bytes the computation needs");
        }
        break;
    case GM_LIMIT_SHARED:
        S_open(b, subject, "has ", "bank conflicts: ");
        gm_fmt_fixed(b, l->shared_wpi, 2);
        gm_buf_puts(b, " shared wavefronts per instruction where 1 is ideal, each access "
                       "replayed");
        break;
    case GM_LIMIT_LATENCY:
        S_open(b, subject, "is ", "latency-bound: ");
        gm_fmt_pct(b, l->occupancy);
        gm_buf_puts(b, " occupancy, too few warps to hide the memory latency");
        if (l->warps / l->sms < 16) {
            gm_buf_puts(b, " (the launch has ");
            gm_fmt_count(b, l->warps);
            gm_buf_puts(b, l->warps == 1 ? " warp for " : " warps for ");
            gm_fmt_count(b, l->sms);
            gm_buf_puts(b, " SMs)");
        }
        break;
    case GM_LIMIT_SECTORS:
        S_open(b, subject, "is ", "limited by its sectors, not by DRAM (");
        S_pct_of_ceiling(b, l);
        gm_buf_printf(b, "): its %s use ", l->store ? "stores" : "loads");
        gm_fmt_pct(b, l->efficiency);
        gm_buf_puts(b, " of the bytes of the sectors they touch");
        if (isfinite(l->spr)) {
            gm_buf_puts(b, " (");
            gm_fmt_fixed(b, l->spr, 1);
            gm_buf_puts(b, " a request)");
        }
        break;
    case GM_LIMIT_LAUNCH:
        S_open(b, subject, "is ", "too short to fill the memory system: ");
        gm_fmt_ms(b, l->ms);
        gm_buf_puts(b, " a launch, DRAM at ");
        S_pct_of_ceiling(b, l);
        break;
    case GM_LIMIT_ISSUE:
        gm_buf_puts(b, subject ? "Neither DRAM (" : "neither DRAM (");
        S_pct_of_ceiling(b, l);
        gm_buf_puts(b, ") nor occupancy (");
        gm_fmt_pct(b, l->occupancy);
        gm_buf_puts(b, ") limits ");
        gm_buf_puts(b, subject ? subject : "it");
        if (l->requests > 0 && l->useful > 0 && l->useful / l->requests < 4) {
            /* far fewer bytes than requests: the same bytes read again and again */
            gm_buf_puts(b, ": its ");
            gm_fmt_count(b, l->requests);
            gm_buf_puts(b, " global requests read the same bytes again and again (");
            gm_fmt_num(b, l->requests * 32.0 / l->useful, 3);
            gm_buf_puts(b, " requests per 32 bytes it needs), and issuing and serving them "
                           "takes the time");
        } else if (l->requests > 0 && l->useful > 0) {
            gm_buf_puts(b, ": its ");
            gm_fmt_count(b, l->requests);
            gm_buf_puts(b, " global requests carry ");
            gm_fmt_num(b, l->useful / l->requests, 3);
            gm_buf_puts(b, " useful bytes each, and issuing and serving them takes the time");
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
        gm_buf_puts(b, "bank conflicts (");
        gm_fmt_fixed(b, l->shared_wpi, 2);
        gm_buf_puts(b, " wavefronts/inst)");
        break;
    case GM_LIMIT_LATENCY:
        gm_buf_puts(b, "latency (");
        gm_fmt_pct(b, l->occupancy);
        gm_buf_puts(b, " occupancy)");
        break;
    case GM_LIMIT_SECTORS:
        gm_buf_printf(b, "sectors (%s use ", l->store ? "stores" : "loads");
        gm_fmt_pct(b, l->efficiency);
        gm_buf_puts(b, ")");
        break;
    case GM_LIMIT_LAUNCH:
        gm_buf_puts(b, "launch (");
        gm_fmt_ms(b, l->ms);
        gm_buf_puts(b, ")");
        break;
    case GM_LIMIT_ISSUE:
        gm_buf_puts(b, "requests");
        break;
    }
    if (l->l1_hit >= GM_LIMIT_CACHE_HIT) {
        gm_buf_puts(b, "; L1 serves ");
        gm_fmt_pct(b, l->l1_hit);
    } else if (l->l2_hit >= GM_LIMIT_L2_HIT && l->kind != GM_LIMIT_DRAM) {
        gm_buf_puts(b, "; L2 serves ");
        gm_fmt_pct(b, l->l2_hit);
    }
}
