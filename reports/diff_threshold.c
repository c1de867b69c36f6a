/* diff_threshold.c — thresholds and directions: the default threshold of
 * each metric and the noise it sits above, which way is better, a metric's
 * role (time, count or rate), --threshold read and written back.
 */
#include "diff.h"

#include "../core/buf.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ======================================================================== */
/* Thresholds and directions                                                */
/* ======================================================================== */

/* The defaults; the constants in diff.h give the measured noise each sits
 * above.
 *  - time (event-timed median of repeated launches): 5 %, and the samples
 *    must differ (Mann–Whitney, alpha 0.05).  Between criterion.rs's 1 %
 *    noise band and asv's factor 1.1: clocks are not locked during
 *    collection, so medians move by a few percent with boost state.
 *  - deterministic counts and the ratios made from them (global sectors,
 *    requests, instructions, shared instructions, sectors/request,
 *    efficiency): exact.  For a given kernel and input they are a function of
 *    the addresses the threads touch, so any change is a change in the code.
 *  - shared conflicts and wavefronts: 1 % and 0.05 per shared instruction.
 *    They follow the addresses too, but the L1TEX data stage they count also
 *    serves global traffic, and the collisions with it depend on timing.
 *  - DRAM bytes (one value per run, varies with what L2 holds and evicts):
 *    2 % and 2 MiB.  A layout change worth reporting moves them by whole
 *    sectors per request (tens of percent of what the kernel moves).
 *  - DRAM bytes/second: 10 % and 10 GB/s (a kernel moving a few KiB has a
 *    rate that means nothing).
 *  - percentages that vary (% of peak, L1 hit rate, occupancy): 5 percentage
 *    points, absolute: a relative band misbehaves near 0 (0.4 % -> 0.6 % is
 *    +50 %); the L2 hit rate: 10 points.
 *  - profiler duration: 20 %.  A single profiled pass has no sample set to
 *    test, so the band is wider than the event timing's; the timing row is
 *    the time gate.
 *  - metrics the catalog does not know: 5 %, direction "neither". */
gm_threshold gm_diff_default_threshold(const char *metric)
{
    if (metric && strcmp(metric, GM_DIFF_TIME) == 0)
        return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_TIME_REL, GM_FLOOR_NONE, 0.0};
    const gm_metric_info *info = gm_catalog_find(metric);
    if (!info)
        return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_UNKNOWN_REL, GM_FLOOR_NONE, 0.0};
    if (info->deterministic)
        return (gm_threshold){GM_THR_EXACT, 0.0, GM_FLOOR_NONE, 0.0};
    if (gm_diff_inst_metric(metric))
        return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_SHARED_REL, GM_FLOOR_PER_INST,
                              GM_DIFF_SHARED_PER_INST};
    if (strcmp(metric, GM_M_L2_HIT) == 0)
        return (gm_threshold){GM_THR_ABSOLUTE, GM_DIFF_L2_HIT_POINTS, GM_FLOOR_NONE, 0.0};
    if (strcmp(info->unit, "%") == 0)
        return (gm_threshold){GM_THR_ABSOLUTE, GM_DIFF_PCT_POINTS, GM_FLOOR_NONE, 0.0};
    if (strcmp(info->unit, "byte") == 0)
        return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_DRAM_BYTES_REL, GM_FLOOR_ABSOLUTE,
                              GM_DIFF_DRAM_BYTES_FLOOR};
    if (strcmp(info->unit, "byte/second") == 0)
        return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_DRAM_RATE_REL, GM_FLOOR_ABSOLUTE,
                              GM_DIFF_DRAM_RATE_FLOOR};
    return (gm_threshold){GM_THR_RELATIVE, GM_DIFF_DURATION_REL, GM_FLOOR_NONE, 0.0};
}

const char *gm_diff_inst_metric(const char *metric)
{
    if (!metric)
        return NULL;
    if (strcmp(metric, GM_M_SH_LD_CONFL) == 0 || strcmp(metric, GM_M_SH_LD_WAVES) == 0)
        return GM_M_SH_LD_INST;
    if (strcmp(metric, GM_M_SH_ST_CONFL) == 0 || strcmp(metric, GM_M_SH_ST_WAVES) == 0)
        return GM_M_SH_ST_INST;
    return NULL;
}

gm_direction gm_diff_direction(const char *metric)
{
    if (metric && strcmp(metric, GM_DIFF_TIME) == 0)
        return GM_BETTER_LOWER;
    const gm_metric_info *info = gm_catalog_find(metric);
    return info ? info->better : GM_BETTER_NEITHER;
}

/* Counts: what the code decides for a given input (sectors, requests,
 * instructions), and what it moves through the memory system (conflicts,
 * wavefronts, DRAM bytes).  Rates: what divides one of them by another or by
 * time, or by a peak.  A name the catalog does not know is a count when ncu
 * would sum it (".sum", not a percentage or a rate), a rate otherwise. */
gm_diff_role gm_diff_metric_role(const char *metric)
{
    if (!metric)
        return GM_DIFF_ROLE_RUN;
    if (strcmp(metric, GM_DIFF_TIME) == 0)
        return GM_DIFF_ROLE_TIME;
    const gm_metric_info *info = gm_catalog_find(metric);
    if (info) {
        static const char *const rate_units[] = {"%", "byte/second", "sector/request", "ns"};
        for (size_t i = 0; i < sizeof rate_units / sizeof rate_units[0]; i++)
            if (strcmp(info->unit, rate_units[i]) == 0)
                return GM_DIFF_ROLE_RATE;
        return GM_DIFF_ROLE_COUNT;
    }
    size_t n = strlen(metric);
    bool sum = n > 4 && strcmp(metric + n - 4, ".sum") == 0;
    return sum && !strstr(metric, "pct") && !strstr(metric, "per_second") ? GM_DIFF_ROLE_COUNT
                                                                           : GM_DIFF_ROLE_RATE;
}

const char *gm_diff_role_name(gm_diff_role r)
{
    switch (r) {
    case GM_DIFF_ROLE_RUN: return "run";
    case GM_DIFF_ROLE_TIME: return "time";
    case GM_DIFF_ROLE_COUNT: return "count";
    case GM_DIFF_ROLE_RATE: return "rate";
    }
    return "run";
}

/* The ncu name behind a name or a catalog label; the text itself otherwise. */
static const char *S_resolve(const char *metric)
{
    for (size_t i = 0; i < gm_catalog_len; i++)
        if (strcmp(gm_catalog[i].label, metric) == 0)
            return gm_catalog[i].name;
    return metric;
}

/* The floor after the comma: "2MiB", "1e10", "0.05/inst", "0" (none). */
static gm_status S_floor_parse(const char *spec, const char *metric, const char *text,
                               gm_threshold *t, gm_error *err)
{
    while (*text == ' ')
        text++;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v) || v < 0.0)
        return gm_fail(err, GM_ERR_VALUE,
                       "--threshold: '%s': floor '%s' is not a non-negative number "
                       "(like 2MiB, 1e10 or 0.05/inst)", spec, text);
    while (*end == ' ')
        end++;
    static const struct {
        const char *suffix;
        double scale;
    } bytes[] = {{"KiB", 1024.0}, {"MiB", 1024.0 * 1024.0}, {"GiB", 1024.0 * 1024.0 * 1024.0}};
    gm_floor_kind kind = GM_FLOOR_ABSOLUTE;
    if (strncmp(end, "/inst", 5) == 0) {
        if (!gm_diff_inst_metric(S_resolve(metric)))
            return gm_fail(err, GM_ERR_VALUE,
                           "--threshold: '%s': a floor per instruction (/inst) applies only "
                           "to shared-memory conflicts and wavefronts (sh ld conflicts, sh st "
                           "conflicts, sh ld wavefronts, sh st wavefronts)", spec);
        kind = GM_FLOOR_PER_INST;
        end += 5;
    } else {
        for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
            size_t n = strlen(bytes[i].suffix);
            if (strncmp(end, bytes[i].suffix, n) == 0) {
                v *= bytes[i].scale;
                end += n;
                break;
            }
        }
    }
    while (*end == ' ')
        end++;
    if (*end)
        return gm_fail(err, GM_ERR_VALUE,
                       "--threshold: '%s': unexpected '%s' after the floor (units: KiB, MiB, "
                       "GiB or /inst)", spec, end);
    t->floor_kind = v > 0.0 ? kind : GM_FLOOR_NONE;
    t->floor = v > 0.0 ? v : 0.0;
    return GM_OK;
}

gm_status gm_threshold_parse(const char *spec, char **metric, gm_threshold *thr, gm_error *err)
{
    *metric = NULL;
    const char *eq = spec ? strrchr(spec, '=') : NULL;
    if (!eq || eq == spec || !eq[1])
        return gm_fail(err, GM_ERR_VALUE,
                       "--threshold: '%s' is not METRIC=VALUE[,FLOOR] (VALUE: 5%%, 0.5 or "
                       "exact; FLOOR: 2MiB, 1e10, 0.05/inst)", spec ? spec : "");
    size_t n = (size_t)(eq - spec);
    char *name = gm_xmalloc(n + 1);
    memcpy(name, spec, n);
    name[n] = '\0';

    const char *val = eq + 1;
    const char *comma = strchr(val, ',');
    size_t vlen = comma ? (size_t)(comma - val) : strlen(val);
    char *bound = gm_xmalloc(vlen + 1);
    memcpy(bound, val, vlen);
    bound[vlen] = '\0';
    while (vlen > 0 && bound[vlen - 1] == ' ')
        bound[--vlen] = '\0';

    gm_threshold t = {GM_THR_EXACT, 0.0, GM_FLOOR_NONE, 0.0};
    gm_status st = GM_OK;
    if (strcasecmp(bound, "exact") == 0) {
        if (comma)
            st = gm_fail(err, GM_ERR_VALUE,
                         "--threshold: '%s': 'exact' takes no floor", spec);
    } else {
        char *end = NULL;
        errno = 0;
        double v = strtod(bound, &end);
        if (end == bound || errno == ERANGE || !isfinite(v) || v < 0.0) {
            st = gm_fail(err, GM_ERR_VALUE,
                         "--threshold: '%s': '%s' is not a non-negative number, "
                         "a percentage like 5%% or 'exact'", spec, bound);
        } else {
            while (*end == ' ')
                end++;
            if (*end == '%') {
                t = (gm_threshold){GM_THR_RELATIVE, v / 100.0, GM_FLOOR_NONE, 0.0};
                end++;
            } else {
                t = (gm_threshold){GM_THR_ABSOLUTE, v, GM_FLOOR_NONE, 0.0};
            }
            if (*end)
                st = gm_fail(err, GM_ERR_VALUE,
                             "--threshold: '%s': unexpected '%s' after the number", spec, end);
        }
        if (st == GM_OK && comma)
            st = S_floor_parse(spec, name, comma + 1, &t, err);
    }
    free(bound);
    if (st != GM_OK) {
        free(name);
        return st;
    }
    *metric = name;
    *thr = t;
    return GM_OK;
}

bool gm_threshold_equal(const gm_threshold *a, const gm_threshold *b)
{
    if (a->kind != b->kind || (a->kind != GM_THR_EXACT && a->value != b->value))
        return false;
    return a->floor_kind == b->floor_kind &&
           (a->floor_kind == GM_FLOOR_NONE || a->floor == b->floor);
}

const char *gm_diff_unit_short(const char *unit)
{
    return unit && strcmp(unit, "%") == 0 ? "pp" : unit;
}

/* A floor in bytes in the largest of KiB, MiB, GiB it reaches, when it is a
 * whole number of thousandths of that unit (2 MiB, 1.5 KiB); bytes otherwise. */
static void S_floor_text(const gm_threshold *t, const char *unit, char *out, size_t n)
{
    if (t->floor_kind == GM_FLOOR_PER_INST) {
        snprintf(out, n, "%g/inst", t->floor);
        return;
    }
    if (unit && strcmp(unit, "byte") == 0) {
        static const char *const names[] = {"GiB", "MiB", "KiB"};
        double scale = 1024.0 * 1024.0 * 1024.0;
        for (int i = 0; i < 3; i++, scale /= 1024.0) {
            if (t->floor < scale)
                continue;
            if (fmod(t->floor * 1000.0, scale) == 0.0) {
                snprintf(out, n, "%g %s", t->floor / scale, names[i]);
                return;
            }
            break;
        }
    }
    const char *u = gm_diff_unit_short(unit);
    snprintf(out, n, "%g%s%s", t->floor, u && *u ? " " : "", u ? u : "");
}

void gm_threshold_format(const gm_threshold *t, const char *unit, char *out, size_t n)
{
    const char *u = gm_diff_unit_short(unit);
    int k = 0;
    switch (t->kind) {
    case GM_THR_EXACT: k = snprintf(out, n, "exact"); break;
    case GM_THR_RELATIVE: k = snprintf(out, n, "%g %%", t->value * 100.0); break;
    case GM_THR_ABSOLUTE:
        k = snprintf(out, n, "%g%s%s", t->value, u && *u ? " " : "", u ? u : "");
        break;
    }
    if (t->floor_kind != GM_FLOOR_NONE && k >= 0 && (size_t)k + 2 < n) {
        snprintf(out + k, n - (size_t)k, ", ");
        S_floor_text(t, unit, out + k + 2, n - (size_t)k - 2);
    }
}
