/* limits.h — where a run's bytes go and what limits its time.
 *
 * Nsight Compute's Memory Workload Analysis chart follows a kernel's accesses
 * down the hierarchy: requests to L1, L1's hit rate, L2's hit rate, the bytes
 * DRAM moves.  gm_limits_of reads the same steps from the counters a results
 * file carries (core/catalog.h: global load and store requests and sectors,
 * the L1 and L2 sector hit rates, DRAM bytes, achieved occupancy, shared
 * wavefronts), puts the DRAM bandwidth against the ceiling (runs.h:
 * gm_results_ceiling_gbs, the best measured) and names what limits the time,
 * in this order:
 *
 *   DRAM      the DRAM bandwidth is GM_LIMIT_DRAM_PCT % of the ceiling or more;
 *   shared    GM_LIMIT_SHARED_WPI or more shared wavefronts per instruction
 *             (bank conflicts replay each access);
 *   latency   achieved occupancy under GM_LIMIT_OCCUPANCY %: too few warps
 *             to hide the memory latency (the launch's warps per SM said
 *             when the grid is the cause);
 *   sectors   loads or stores that use GM_LIMIT_EFFICIENCY % or less of the
 *             bytes of the sectors they touch: L1 and L2 pass the wasted
 *             sectors, whether or not DRAM sees them;
 *   launch    a launch shorter than GM_LIMIT_SHORT_MS: too short to fill the
 *             memory system;
 *   issue     none of these: the requests themselves (their count, the
 *             useful bytes each carries) take the time.
 *
 * and, besides, whether L1 serves the sectors (GM_LIMIT_CACHE_HIT % or more
 * hit) or L2 (GM_LIMIT_L2_HIT %: half of L2's sectors hit in any stream that
 * writes what it reads), so that sectors a layout wastes never reach DRAM.  Beside the
 * achieved occupancy, the theoretical one where the launch records it (what
 * the block size, registers and shared memory allow): a latency-bound run
 * says whether its grid or its shape keeps the warps few.  The results carry
 * no L1 or L2 throughput: ncu's l1tex__throughput and lts__throughput take
 * the collector from 5 passes to 10 (bench/results/probe-extra-2026-11-27-
 * 4c8175d.txt), so they are not in the default set; the verdict reads what
 * is there.
 * Pure functions.
 */
#ifndef GM_LIMITS_H
#define GM_LIMITS_H

#include "../core/buf.h"
#include "../core/results.h"
#include "runs.h"

#include <stdbool.h>

#define GM_LIMIT_DRAM_PCT 60.0     /* % of the ceiling: DRAM-bound from here */
#define GM_LIMIT_SHARED_WPI 2.0    /* shared wavefronts per instruction: conflicts limit */
#define GM_LIMIT_OCCUPANCY 25.0    /* achieved occupancy %: latency-bound below */
#define GM_LIMIT_SHORT_MS 0.010    /* a launch this short is mostly its start */
#define GM_LIMIT_EFFICIENCY 50.0   /* % of the sector bytes used: sectors limit at or below */
#define GM_LIMIT_CACHE_HIT 50.0    /* % L1 hit rate from which L1 "serves" the sectors */
#define GM_LIMIT_L2_HIT 80.0       /* % L2 hit rate from which L2 does */

typedef enum {
    GM_LIMIT_UNPROFILED,   /* no counters: timed only */
    GM_LIMIT_DRAM,
    GM_LIMIT_SHARED,
    GM_LIMIT_LATENCY,
    GM_LIMIT_SECTORS,
    GM_LIMIT_LAUNCH,
    GM_LIMIT_ISSUE
} gm_limit_kind;

/* Every value NaN when the run lacks it. */
typedef struct {
    gm_limit_kind kind;
    double ms;             /* median time */
    double useful;         /* bytes the computation must read + write */
    double requests;       /* global load + store requests */
    double sectors;        /* global load + store sectors at L1 */
    double l1_hit, l2_hit; /* sector hit rates, % */
    double dram_bytes;     /* read + written */
    double dram_gbs;       /* DRAM bytes over the time */
    double dram_pct;       /* dram_gbs as a % of the ceiling */
    bool attainable;       /* the ceiling is the attainable bandwidth (else the copy's) */
    double occupancy;      /* achieved, % */
    double theoretical;    /* the most the launch's shape allows, % (its launch's
                            * theoretical_occupancy) */
    double warps;          /* warps of the launch (grid x block / 32) */
    double sms;            /* SMs of the device */
    double shared_wpi;     /* shared wavefronts per shared instruction, loads and stores */
    double efficiency;     /* the lower of the global load and store efficiencies, % */
    bool store;            /* efficiency is the stores' */
    double spr;            /* sectors per request of those loads (or stores) */
} gm_limits;

/* ceiling: gm_results_ceiling of the file; sm_count: its device's. */
void gm_limits_of(const gm_run *run, const gm_ceiling *ceiling, int sm_count, gm_limits *out);

/* One sentence (Markdown, ending with '.'): what limits the run, with its
 * number ("DRAM-bound at 92.2% of attainable."), and whether L1 or L2 serves
 * its sectors.  For a run that was not profiled, why not, from its notes.
 * subject (Markdown, may be NULL) makes it a sentence about that run ("`x`
 * is DRAM-bound at ..."); NULL, it follows a "`x`: " of the caller. */
void gm_limits_verdict_md(gm_buf *b, const gm_run *run, const gm_limits *l, const char *subject);

/* The verdict in a few words, for a table cell beside the DRAM bandwidth and
 * occupancy: "DRAM", "latency
 * (3.1% occupancy); L1 serves 87.7%". */
void gm_limits_short_md(gm_buf *b, const gm_limits *l);

/* The reason a run was timed but not profiled, from its notes ("one launch
 * takes 118.3 ms, over the 20 ms limit (--profile-max-ms)"); NULL when it
 * gives none. */
const char *gm_limits_unprofiled_note(const gm_run *run);
/* A note escaped for Markdown, with the option it names as code. */
void gm_limits_note_md(gm_buf *b, const char *note);

#endif
