/* findings_util.c — the functions findings_internal.h declares: what the
 * rules (findings.c) and the explanations (explain.c) read of a run's global
 * and shared accesses against their ideal, and the few readers and escapers
 * both use.
 */
#include "findings_internal.h"

#include "../core/buf.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

void gm_find_text(gm_buf *b, const char *s)
{
    gm_esc_md(b, s ? s : "");
}

void gm_find_code(gm_buf *b, const char *s)
{
    gm_esc_md_code(b, s ? s : "");
}

double gm_find_m(const gm_run *run, const char *name)
{
    return gm_run_metric_num(run, name);
}

double gm_find_pm(const gm_run *run, const char *name)
{
    return gm_run_predicted(run, name);
}

double gm_find_time_of(const gm_run *run)
{
    double t = gm_run_median_ms(run);
    return t > 0.0 ? t : NAN;
}

bool gm_find_streq(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

gm_find_glob gm_find_global(const gm_run *run, bool store)
{
    const char *ns = store ? GM_M_ST_SECTORS : GM_M_LD_SECTORS;
    const char *nr = store ? GM_M_ST_REQUESTS : GM_M_LD_REQUESTS;
    const char *nspr = store ? GM_M_ST_SPR : GM_M_LD_SPR;
    const char *neff = store ? GM_M_ST_EFF : GM_M_LD_EFF;
    gm_find_glob g;
    memset(&g, 0, sizeof g);
    g.sectors = gm_find_m(run, ns);
    g.requests = gm_find_m(run, nr);
    g.spr = g.sectors >= 0 && g.requests > 0 ? g.sectors / g.requests : gm_find_m(run, nspr);
    g.eff = gm_find_m(run, neff);
    double ps = gm_find_pm(run, ns), pr = gm_find_pm(run, nr);
    double pspr = ps >= 0 && pr > 0 ? ps / pr : gm_find_pm(run, nspr);
    double peff = gm_find_pm(run, neff);
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

bool gm_find_uncoalesced(const gm_find_glob *g)
{
    return g->known && g->excess_frac >= GM_FIND_SECTOR_EXCESS;
}

gm_find_shr gm_find_shared(const gm_run *run, bool store)
{
    const char *nw = store ? GM_M_SH_ST_WAVES : GM_M_SH_LD_WAVES;
    const char *ni = store ? GM_M_SH_ST_INST : GM_M_SH_LD_INST;
    const char *nc = store ? GM_M_SH_ST_CONFL : GM_M_SH_LD_CONFL;
    gm_find_shr s;
    memset(&s, 0, sizeof s);
    s.waves = gm_find_m(run, nw);
    s.inst = gm_find_m(run, ni);
    s.known = isfinite(s.waves) && s.waves >= 0 && s.inst > 0;
    if (!s.known)
        return s;
    s.wpi = s.waves / s.inst;
    double pw = gm_find_pm(run, nw), pc = gm_find_pm(run, nc), pi = gm_find_pm(run, ni);
    double c = gm_find_m(run, nc);
    /* The prediction knows the access width (1 wavefront per instruction for
     * 4-byte lanes, 2 for 8-byte, 4 for 16-byte): its ideal is its wavefronts
     * less its conflicts (model.h); failing that, NVIDIA's conflict counter
     * is defined as wavefronts minus the ideal; failing that, assume 4-byte
     * accesses: 1. */
    if (pw >= 0 && pc >= 0 && pw - pc > 0 && pi > 0) {
        s.ideal = (pw - pc) / pi;
        s.src = GM_FIND_IDEAL_MODEL;
    } else if (isfinite(c) && c >= 0 && s.waves - c > 0) {
        s.ideal = (s.waves - c) / s.inst;
        s.src = GM_FIND_IDEAL_COUNTER;
    } else {
        s.ideal = 1.0;
        s.src = GM_FIND_IDEAL_ASSUMED;
    }
    s.excess = fmax(0.0, s.waves - s.inst * s.ideal);
    s.ways = s.wpi / s.ideal;
    s.per_request = s.ideal < GM_FIND_PREDICATED;
    s.req = s.per_request ? s.inst * s.ideal : s.inst;
    s.wpr = s.waves / s.req;
    return s;
}

bool gm_find_conflicted(const gm_find_shr *s)
{
    return s->known && s->wpi >= s->ideal * (1.0 + GM_FIND_WAVEFRONT_EXCESS);
}

const char *gm_find_article(double v)
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

void gm_find_ways(gm_buf *b, double ways)
{
    double r = round(ways);
    if (r >= 2 && fabs(ways - r) < 0.05)
        gm_say(b, "{}{}-way bank conflict", GM_LIT(gm_find_article(r)), GM_COUNT(r));
    else
        gm_say(b, "on average {}{}-way bank conflict", GM_LIT(gm_find_article(ways)),
               GM_FIXED(ways, 1));
}
