/* findings_internal.h — what the rules (findings.c) and the explanations
 * (explain.c) share: reading a run's global and shared accesses against
 * their ideal, the few readers and escapers both use, and the sector and
 * wavefront sizes.  Private to those two files; the interface of both is
 * findings.h.
 *
 * The functions are static inline: each file gets its own copy under the
 * name it had when both were one file (S_, as for any static helper), and
 * libgm_reports.a exports nothing more than findings.h declares.
 */
#ifndef GM_FINDINGS_INTERNAL_H
#define GM_FINDINGS_INTERNAL_H

#include "findings.h"
#include "runs.h"
#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define SECTOR_BYTES 32.0
#define WAVEFRONT_BYTES 128.0   /* one pass of the shared data stage: 32 banks x 4 B */

static inline void S_text(gm_buf *b, const char *s) { gm_esc_md(b, s ? s : ""); }
static inline void S_code(gm_buf *b, const char *s) { gm_esc_md_code(b, s ? s : ""); }

/* ---- reading a run ----------------------------------------------------------- */

static inline double S_m(const gm_run *run, const char *name) { return gm_run_metric_num(run, name); }

static inline double S_pm(const gm_run *run, const char *name) { return gm_run_predicted(run, name); }

/* The median time, NaN when absent or not positive (a ratio would divide by it). */
static inline double S_time_of(const gm_run *run)
{
    double t = gm_run_median_ms(run);
    return t > 0.0 ? t : NAN;
}

static inline bool S_streq(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

/* Global loads or stores of a run: sectors per request against the ideal. */
typedef struct {
    bool known;          /* spr and ideal known and positive */
    double sectors, requests, spr;
    double eff;          /* efficiency %, measured (the model's when not measured) */
    double ideal;        /* sectors per request that would hold the bytes asked for */
    bool ideal_model;    /* ideal from the prediction */
    double excess_frac;  /* (spr - ideal) / spr, >= 0 */
    double excess;       /* sectors beyond requests * ideal; NaN when the sums are absent */
    double wasted;       /* bytes of fetched sectors no thread asked for; NaN when unknown */
} S_glob;

static inline S_glob S_global(const gm_run *run, bool store)
{
    const char *ns = store ? GM_M_ST_SECTORS : GM_M_LD_SECTORS;
    const char *nr = store ? GM_M_ST_REQUESTS : GM_M_LD_REQUESTS;
    const char *nspr = store ? GM_M_ST_SPR : GM_M_LD_SPR;
    const char *neff = store ? GM_M_ST_EFF : GM_M_LD_EFF;
    S_glob g;
    memset(&g, 0, sizeof g);
    g.sectors = S_m(run, ns);
    g.requests = S_m(run, nr);
    g.spr = g.sectors >= 0 && g.requests > 0 ? g.sectors / g.requests : S_m(run, nspr);
    g.eff = S_m(run, neff);
    double ps = S_pm(run, ns), pr = S_pm(run, nr);
    double pspr = ps >= 0 && pr > 0 ? ps / pr : S_pm(run, nspr);
    double peff = S_pm(run, neff);
    /* ideal = sectors per request x efficiency: the bytes the lanes asked for
     * per request, in sectors (4 for a warp of 4-byte accesses).  Efficiency
     * above 100 % (lanes sharing bytes) is capped: the ideal never exceeds
     * what is fetched. */
    if (isfinite(pspr) && pspr > 0 && isfinite(peff) && peff > 0) {
        g.ideal = pspr * fmin(peff, 100.0) / 100.0;
        g.ideal_model = true;
    } else if (isfinite(g.spr) && isfinite(g.eff)) {
        g.ideal = g.spr * fmin(g.eff, 100.0) / 100.0;
    } else {
        g.ideal = NAN;
    }
    if (!isfinite(g.eff) && isfinite(peff))
        g.eff = peff;
    g.known = isfinite(g.spr) && g.spr > 0 && isfinite(g.ideal) && g.ideal > 0;
    g.excess_frac = g.known ? fmax(0.0, (g.spr - g.ideal) / g.spr) : NAN;
    g.excess = g.known && g.sectors >= 0 && g.requests > 0
                   ? fmax(0.0, g.sectors - g.requests * g.ideal) : NAN;
    if (g.known && g.sectors >= 0)
        g.wasted = isfinite(g.eff) ? g.sectors * SECTOR_BYTES * (1.0 - fmin(g.eff, 100.0) / 100.0)
                                   : g.sectors * SECTOR_BYTES * g.excess_frac;
    else
        g.wasted = NAN;
    return g;
}

static inline bool S_uncoalesced(const S_glob *g)
{
    return g->known && g->excess_frac >= GM_FIND_SECTOR_EXCESS;
}

/* Shared loads or stores: wavefronts per instruction against the ideal. */
typedef enum { S_IDEAL_MODEL, S_IDEAL_COUNTER, S_IDEAL_ASSUMED } S_ideal_src;

typedef struct {
    bool known;
    double waves, inst, wpi, ideal;
    S_ideal_src src;
    double excess;   /* wavefronts beyond inst * ideal */
    double ways;     /* wpi / ideal */
    /* Requests made: where the ideal per instruction is under
     * GM_FIND_PREDICATED, the instructions whose threads were all predicated
     * off made none, and the ideal wavefronts (one per request for accesses
     * of 4 bytes or less) count the requests; else one per instruction. */
    bool per_request;
    double req;      /* requests made */
    double wpr;      /* wavefronts per request made; ideal 1 when per_request */
} S_shr;

static inline S_shr S_shared(const gm_run *run, bool store)
{
    const char *nw = store ? GM_M_SH_ST_WAVES : GM_M_SH_LD_WAVES;
    const char *ni = store ? GM_M_SH_ST_INST : GM_M_SH_LD_INST;
    const char *nc = store ? GM_M_SH_ST_CONFL : GM_M_SH_LD_CONFL;
    S_shr s;
    memset(&s, 0, sizeof s);
    s.waves = S_m(run, nw);
    s.inst = S_m(run, ni);
    s.known = isfinite(s.waves) && s.waves >= 0 && s.inst > 0;
    if (!s.known)
        return s;
    s.wpi = s.waves / s.inst;
    double pw = S_pm(run, nw), pc = S_pm(run, nc), pi = S_pm(run, ni), c = S_m(run, nc);
    /* The prediction knows the access width (1 wavefront per instruction for
     * 4-byte lanes, 2 for 8-byte, 4 for 16-byte): its ideal is its wavefronts
     * less its conflicts (model.h); failing that, NVIDIA's conflict counter
     * is defined as wavefronts minus the ideal; failing that, assume 4-byte
     * accesses: 1. */
    if (pw >= 0 && pc >= 0 && pw - pc > 0 && pi > 0) {
        s.ideal = (pw - pc) / pi;
        s.src = S_IDEAL_MODEL;
    } else if (isfinite(c) && c >= 0 && s.waves - c > 0) {
        s.ideal = (s.waves - c) / s.inst;
        s.src = S_IDEAL_COUNTER;
    } else {
        s.ideal = 1.0;
        s.src = S_IDEAL_ASSUMED;
    }
    s.excess = fmax(0.0, s.waves - s.inst * s.ideal);
    s.ways = s.wpi / s.ideal;
    s.per_request = s.ideal < GM_FIND_PREDICATED;
    s.req = s.per_request ? s.inst * s.ideal : s.inst;
    s.wpr = s.waves / s.req;
    return s;
}

static inline bool S_conflicted(const S_shr *s)
{
    return s->known && s->wpi >= s->ideal * (1.0 + GM_FIND_WAVEFRONT_EXCESS);
}

/* "a 32-way bank conflict" / "on average a 2.4-way bank conflict" */
/* "an" before a number said with a vowel sound: eight..., eleven, eighteen,
 * and the same as the leading group of thousands (11,000; 800,000); the
 * integer part decides (8.5 is "eight point five"). */
static inline const char *S_article(double v)
{
    long long g = (long long)floor(fabs(v) + 0.05);   /* as printed with one decimal */
    while (g >= 1000)
        g /= 1000;
    if (g == 11 || g == 18)
        return "an ";
    while (g >= 10)
        g /= 10;
    return g == 8 ? "an " : "a ";
}

static inline void S_ways(gm_buf *b, double ways)
{
    double r = round(ways);
    if (r >= 2 && fabs(ways - r) < 0.05) {
        gm_buf_puts(b, S_article(r));
        gm_fmt_count(b, r);
        gm_buf_puts(b, "-way bank conflict");
    } else {
        gm_buf_puts(b, "on average ");
        gm_buf_puts(b, S_article(ways));
        gm_fmt_fixed(b, ways, 1);
        gm_buf_puts(b, "-way bank conflict");
    }
}

#endif
