/* model.c — the address-trace model (model.h; the rules and their sources are
 * in docs/model.md).
 *
 * Every warp-level access is reduced on arrival to a handful of integers and
 * added into per-space, per-op counters; nothing else is kept, so a trace of a
 * billion accesses costs the same memory as a trace of one.  The work per
 * access is a sort of at most 32 keys per phase: a few hundred compares.
 */
#include "model.h"

#include "buf.h"
#include "catalog.h"
#include "warp_rules.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S_MAX_NOTES 16

struct gm_trace {
    gm_access_counts c[GM_SPACE_COUNT][GM_OP_COUNT];
    long long accesses;                /* calls that counted something, for error messages */
    bool sampling_set;
    bool weighted;                     /* the generator weighted the sample itself */
    long long warps_total, warps_traced;
    bool excluded[GM_SPACE_COUNT];
    char *exclude_why[GM_SPACE_COUNT];
    char *notes[S_MAX_NOTES];
    size_t n_notes;
    long long notes_dropped;
    bool failed;
    gm_error first_err;
};

const char *gm_space_name(gm_space s)
{
    switch (s) {
    case GM_SPACE_GLOBAL: return "global";
    case GM_SPACE_SHARED: return "shared";
    case GM_SPACE_CONSTANT: return "constant";
    case GM_SPACE_LOCAL: return "local";
    case GM_SPACE_COUNT: break;
    }
    return "unknown";
}

const char *gm_op_name(gm_op op)
{
    switch (op) {
    case GM_OP_LOAD: return "load";
    case GM_OP_STORE: return "store";
    case GM_OP_COUNT: break;
    }
    return "unknown";
}

/* ---- one access -----------------------------------------------------------
 *
 * The per-warp rules (sectors, lines, shared phases and wavefronts) are in
 * warp_rules.h, shared with the tracer's device patch. */

/* Global and local memory: gm_wr_global_count (warp_rules.h). */
static void S_global(unsigned size, const uint64_t addr[32], uint32_t mask, gm_access_counts *o)
{
    o->requests = 1;
    if (!mask) {
        o->sectors_hist[0] = 1;
        return;
    }
    gm_wr_global g;
    gm_wr_global_count(size, addr, mask, &g);
    o->sectors = g.sectors;
    o->lines = g.lines;
    o->bytes_requested = (long long)o->active_lanes * size;
    /* Same size, natural alignment: two lanes' byte ranges coincide or are
     * disjoint, so distinct bytes = distinct addresses * size. */
    o->bytes_unique = (long long)g.distinct * size;
    o->sectors_hist[o->sectors] = 1;
}

/* Shared memory: gm_wr_shared_count (warp_rules.h). */
static void S_shared(gm_op op, unsigned size, const uint64_t addr[32], uint32_t mask,
                     gm_access_counts *o)
{
    o->requests = 1;
    o->bytes_requested = (long long)o->active_lanes * size;
    gm_wr_shared w;
    gm_wr_shared_count(op == GM_OP_LOAD, size, addr, mask, &w);
    o->wavefronts = w.wavefronts;
    o->ideal_wavefronts = w.ideal;
    o->bank_conflicts = o->wavefronts - o->ideal_wavefronts;
    o->way_hist[w.worst] = 1;
}

/* Constant memory: the constant cache serves one address per pass and
 * broadcasts it to every lane that asked for it, so a warp access costs one
 * pass per distinct address.  "Address" is the 4-byte word for accesses of 4
 * bytes or less and the naturally aligned 8/16-byte unit otherwise. */
static void S_constant(unsigned size, const uint64_t addr[32], uint32_t mask, gm_access_counts *o)
{
    o->requests = 1;
    o->bytes_requested = (long long)o->active_lanes * size;
    o->distinct_addresses = gm_wr_distinct(addr, mask, size <= 4 ? 2 : gm_wr_log2(size));
}

gm_status gm_access_analyze(gm_space space, gm_op op, unsigned size, const uint64_t addr[32],
                            uint32_t active_mask, gm_access_counts *out, gm_error *err)
{
    if ((int)space < 0 || space >= GM_SPACE_COUNT)
        return gm_fail(err, GM_ERR_VALUE, "memory space %d is not one of global, shared, "
                       "constant, local", (int)space);
    if ((int)op < 0 || op >= GM_OP_COUNT)
        return gm_fail(err, GM_ERR_VALUE, "operation %d is neither load nor store", (int)op);
    if (space == GM_SPACE_CONSTANT && op == GM_OP_STORE)
        return gm_fail(err, GM_ERR_VALUE, "constant memory cannot be stored to by a kernel");
    if (!gm_wr_size_ok(size))
        return gm_fail(err, GM_ERR_VALUE, "%s %s of %u bytes: the size must be 1, 2, 4, 8 or 16",
                       gm_space_name(space), gm_op_name(op), size);
    if (active_mask && !addr)
        return gm_fail(err, GM_ERR_VALUE, "%s %s with active lanes (mask 0x%08" PRIx32 ") "
                       "but no addresses", gm_space_name(space), gm_op_name(op), active_mask);
    for (int lane = 0; lane < GM_WARP_SIZE; lane++)
        if ((active_mask >> lane & 1u) && addr[lane] % size != 0)
            return gm_fail(err, GM_ERR_VALUE, "%s %s, lane %d: address 0x%" PRIx64 " is not a "
                           "multiple of the %u-byte access size (the GPU would fault)",
                           gm_space_name(space), gm_op_name(op), lane, addr[lane], size);

    memset(out, 0, sizeof *out);
    out->instructions = 1;
    out->active_lanes = gm_wr_popcount(active_mask);
    switch (space) {
    case GM_SPACE_GLOBAL:
    case GM_SPACE_LOCAL: S_global(size, addr, active_mask, out); break;
    case GM_SPACE_SHARED: S_shared(op, size, addr, active_mask, out); break;
    case GM_SPACE_CONSTANT: S_constant(size, addr, active_mask, out); break;
    case GM_SPACE_COUNT: break;
    }
    return GM_OK;
}

/* ---- the accumulator -------------------------------------------------------- */

gm_trace *gm_trace_new(void)
{
    return gm_xcalloc(1, sizeof(gm_trace));
}

static void S_release(gm_trace *t)
{
    for (int s = 0; s < GM_SPACE_COUNT; s++)
        free(t->exclude_why[s]);
    for (size_t i = 0; i < t->n_notes; i++)
        free(t->notes[i]);
}

void gm_trace_free(gm_trace *t)
{
    if (!t)
        return;
    S_release(t);
    free(t);
}

void gm_trace_reset(gm_trace *t)
{
    S_release(t);
    memset(t, 0, sizeof *t);
}

static void S_add(gm_access_counts *acc, const gm_access_counts *a, long long k)
{
    acc->instructions += a->instructions * k;
    acc->requests += a->requests * k;
    acc->active_lanes += a->active_lanes * k;
    acc->sectors += a->sectors * k;
    acc->lines += a->lines * k;
    acc->bytes_requested += a->bytes_requested * k;
    acc->bytes_unique += a->bytes_unique * k;
    acc->wavefronts += a->wavefronts * k;
    acc->ideal_wavefronts += a->ideal_wavefronts * k;
    acc->bank_conflicts += a->bank_conflicts * k;
    acc->distinct_addresses += a->distinct_addresses * k;
    for (int i = 0; i <= GM_WARP_SIZE; i++) {
        acc->sectors_hist[i] += a->sectors_hist[i] * k;
        acc->way_hist[i] += a->way_hist[i] * k;
    }
}

static gm_status S_keep(gm_trace *t, gm_status st, const gm_error *e)
{
    if (st != GM_OK && !t->failed) {
        t->failed = true;
        t->first_err.status = st;
        /* %.980s: the prefix and the message fit the 1024-byte record. */
        snprintf(t->first_err.message, sizeof t->first_err.message,
                 "trace access #%lld: %.980s", t->accesses + 1, e->message);
    }
    return st;
}

gm_status gm_trace_access_repeat(gm_trace *t, gm_space space, gm_op op, unsigned size,
                                 const uint64_t addr[32], uint32_t active_mask,
                                 long long repeat)
{
    gm_error e = {GM_OK, ""};
    gm_access_counts a;
    gm_status st = repeat < 0
        ? gm_fail(&e, GM_ERR_VALUE, "repeat count %lld is negative", repeat)
        : gm_access_analyze(space, op, size, addr, active_mask, &a, &e);
    if (st != GM_OK)
        return S_keep(t, st, &e);
    S_add(&t->c[space][op], &a, repeat);
    t->accesses++;
    return GM_OK;
}

gm_status gm_trace_access(gm_trace *t, gm_space space, gm_op op, unsigned size,
                          const uint64_t addr[32], uint32_t active_mask)
{
    return gm_trace_access_repeat(t, space, op, size, addr, active_mask, 1);
}

gm_status gm_trace_access_affine(gm_trace *t, gm_space space, gm_op op, unsigned size,
                                 uint64_t base, int64_t stride_bytes, uint32_t active_mask)
{
    uint64_t addr[GM_WARP_SIZE];
    for (int lane = 0; lane < GM_WARP_SIZE; lane++)
        addr[lane] = base + (uint64_t)stride_bytes * (uint64_t)lane;   /* wraps like the GPU's */
    return gm_trace_access(t, space, op, size, addr, active_mask);
}

uint32_t gm_warp_mask(long long first_thread, long long n_threads)
{
    long long left = n_threads - first_thread;
    if (left <= 0)
        return 0;
    if (left >= GM_WARP_SIZE)
        return 0xffffffffu;
    return (1u << left) - 1u;
}

gm_status gm_trace_set_sampling(gm_trace *t, long long warps_total, long long warps_traced)
{
    gm_error e = {GM_OK, ""};
    if (warps_total < 1 || warps_traced < 1 || warps_traced > warps_total)
        return S_keep(t, gm_fail(&e, GM_ERR_VALUE, "sampling of %lld traced warps out of %lld: "
                                 "need 1 <= traced <= total", warps_traced, warps_total), &e);
    t->sampling_set = true;
    t->warps_total = warps_total;
    t->warps_traced = warps_traced;
    return GM_OK;
}

gm_status gm_trace_set_sampling_weighted(gm_trace *t, long long warps_total,
                                         long long warps_traced)
{
    gm_status st = gm_trace_set_sampling(t, warps_total, warps_traced);
    if (st == GM_OK)
        t->weighted = true;
    return st;
}

long long gm_sample_step(long long warps_total, long long budget)
{
    if (budget < 1 || warps_total <= budget)
        return 1;
    return (warps_total + budget - 1) / budget;
}

long long gm_sample_count(long long warps_total, long long step)
{
    if (warps_total < 1)
        return 0;
    if (step < 1)
        step = 1;
    return (warps_total + step - 1) / step;
}

void gm_trace_exclude(gm_trace *t, gm_space space, const char *why)
{
    if ((int)space < 0 || space >= GM_SPACE_COUNT)
        return;
    t->excluded[space] = true;
    free(t->exclude_why[space]);
    t->exclude_why[space] = gm_xstrdup(why ? why : "not modelled by this trace");
}

void gm_trace_note(gm_trace *t, const char *fmt, ...)
{
    if (t->n_notes == S_MAX_NOTES) {
        t->notes_dropped++;
        return;
    }
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    t->notes[t->n_notes++] = gm_xstrdup(tmp);
}

/* ---- results ------------------------------------------------------------------ */

gm_status gm_trace_status(const gm_trace *t, gm_error *err)
{
    if (!t->failed)
        return GM_OK;
    if (err)
        *err = t->first_err;
    return t->first_err.status;
}

const gm_access_counts *gm_trace_counts(const gm_trace *t, gm_space space, gm_op op)
{
    static const gm_access_counts zero;
    if ((int)space < 0 || space >= GM_SPACE_COUNT || (int)op < 0 || op >= GM_OP_COUNT)
        return &zero;
    return &t->c[space][op];
}

static bool S_scaled(const gm_trace *t)
{
    return t->sampling_set && t->warps_traced < t->warps_total;
}

/* x * total / traced, rounded to nearest.  long double keeps 64 bits of
 * mantissa on x86-64, so counts below 2^63 stay exact before the division. */
static long long S_scale(const gm_trace *t, long long x)
{
    if (!S_scaled(t) || t->weighted)
        return x;
    return llroundl((long double)x * (long double)t->warps_total / (long double)t->warps_traced);
}

static double S_ratio(long long num, long long den, double k)
{
    return den > 0 ? k * (double)num / (double)den : NAN;
}

void gm_trace_stats(const gm_trace *t, gm_space space, gm_op op, gm_access_stats *out)
{
    const gm_access_counts *r = gm_trace_counts(t, space, op);
    gm_access_counts *c = &out->counts;
    c->instructions = S_scale(t, r->instructions);
    c->requests = S_scale(t, r->requests);
    c->active_lanes = S_scale(t, r->active_lanes);
    c->sectors = S_scale(t, r->sectors);
    c->lines = S_scale(t, r->lines);
    c->bytes_requested = S_scale(t, r->bytes_requested);
    c->bytes_unique = S_scale(t, r->bytes_unique);
    c->wavefronts = S_scale(t, r->wavefronts);
    c->ideal_wavefronts = S_scale(t, r->ideal_wavefronts);
    /* Derived after scaling so that conflicts = wavefronts - ideal holds exactly. */
    c->bank_conflicts = c->wavefronts - c->ideal_wavefronts;
    c->distinct_addresses = S_scale(t, r->distinct_addresses);
    for (int i = 0; i <= GM_WARP_SIZE; i++) {
        c->sectors_hist[i] = S_scale(t, r->sectors_hist[i]);
        c->way_hist[i] = S_scale(t, r->way_hist[i]);
    }
    /* Ratios from the raw sums: scaling multiplies numerator and denominator alike. */
    out->sectors_per_request = S_ratio(r->sectors, r->requests, 1.0);
    out->lines_per_request = S_ratio(r->lines, r->requests, 1.0);
    out->efficiency_pct = S_ratio(r->bytes_requested, r->sectors * GM_SECTOR_BYTES, 100.0);
    out->unique_efficiency_pct = S_ratio(r->bytes_unique, r->sectors * GM_SECTOR_BYTES, 100.0);
    out->wavefronts_per_instruction = S_ratio(r->wavefronts, r->instructions, 1.0);
    out->conflicts_per_instruction = S_ratio(r->bank_conflicts, r->instructions, 1.0);
    out->serialization = S_ratio(r->distinct_addresses, r->instructions, 1.0);
}

/* ---- the prediction ------------------------------------------------------------ */

typedef struct {
    gm_metric *m;
    size_t n, cap;
} S_metrics;

static void S_put(S_metrics *ms, const char *name, gm_value v, const char *fallback_unit)
{
    if (ms->n == ms->cap) {
        ms->cap = ms->cap ? 2 * ms->cap : 32;
        ms->m = gm_xrealloc(ms->m, ms->cap * sizeof *ms->m);
    }
    const gm_metric_info *info = gm_catalog_find(name);
    gm_metric *m = &ms->m[ms->n++];
    memset(m, 0, sizeof *m);
    m->launch_min = m->launch_max = gm_vabsent();
    m->name = gm_xstrdup(name);
    m->unit = gm_xstrdup(info ? info->unit : fallback_unit);
    m->value = v;
}

static gm_value S_int(long long i)
{
    gm_value v = {GM_V_INT, i, 0.0, NULL};
    return v;
}

static gm_value S_real(double r)
{
    gm_value v = {GM_V_ABSENT, 0, 0.0, NULL};
    if (isfinite(r)) {
        v.kind = GM_V_REAL;
        v.r = r;
    }
    return v;
}

typedef struct {
    char **s;
    size_t n, cap;
} S_notes;

static void S_note(S_notes *ns, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void S_note(S_notes *ns, const char *fmt, ...)
{
    if (ns->n == ns->cap) {
        ns->cap = ns->cap ? 2 * ns->cap : 16;
        ns->s = gm_xrealloc(ns->s, ns->cap * sizeof *ns->s);
    }
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    ns->s[ns->n++] = gm_xstrdup(tmp);
}

/* Global (or local) metrics of one op; `names` are sectors, requests,
 * sectors/request, efficiency, instructions (NULL: not emitted). */
static void S_put_global(const gm_trace *t, S_metrics *ms, gm_space space, gm_op op,
                         const char *const names[5])
{
    gm_access_stats st;
    gm_trace_stats(t, space, op, &st);
    S_put(ms, names[0], S_int(st.counts.sectors), "sector");
    S_put(ms, names[1], S_int(st.counts.requests), "request");
    S_put(ms, names[2], S_real(st.sectors_per_request), "sector/request");
    if (names[3])
        S_put(ms, names[3], S_real(st.efficiency_pct), "%");
    if (names[4])
        S_put(ms, names[4], S_int(st.counts.instructions), "inst");
}

static void S_put_shared(const gm_trace *t, S_metrics *ms, gm_op op, const char *waves,
                         const char *confl, const char *inst)
{
    gm_access_stats st;
    gm_trace_stats(t, GM_SPACE_SHARED, op, &st);
    S_put(ms, waves, S_int(st.counts.wavefronts), "");
    S_put(ms, confl, S_int(st.counts.bank_conflicts), "");
    S_put(ms, inst, S_int(st.counts.instructions), "inst");
}

static long long S_instructions(const gm_trace *t, gm_space s)
{
    return t->c[s][GM_OP_LOAD].instructions + t->c[s][GM_OP_STORE].instructions;
}

gm_status gm_trace_predict(const gm_trace *t, gm_prediction *out, gm_error *err)
{
    gm_status st = gm_trace_status(t, err);
    if (st != GM_OK)
        return st;

    S_metrics ms = {NULL, 0, 0};
    if (!t->excluded[GM_SPACE_GLOBAL]) {
        static const char *const ld[5] = {GM_M_LD_SECTORS, GM_M_LD_REQUESTS, GM_M_LD_SPR,
                                          GM_M_LD_EFF, GM_M_LD_INST};
        static const char *const stn[5] = {GM_M_ST_SECTORS, GM_M_ST_REQUESTS, GM_M_ST_SPR,
                                           GM_M_ST_EFF, GM_M_ST_INST};
        S_put_global(t, &ms, GM_SPACE_GLOBAL, GM_OP_LOAD, ld);
        S_put_global(t, &ms, GM_SPACE_GLOBAL, GM_OP_STORE, stn);
    }
    if (!t->excluded[GM_SPACE_SHARED]) {
        S_put_shared(t, &ms, GM_OP_LOAD, GM_M_SH_LD_WAVES, GM_M_SH_LD_CONFL, GM_M_SH_LD_INST);
        S_put_shared(t, &ms, GM_OP_STORE, GM_M_SH_ST_WAVES, GM_M_SH_ST_CONFL, GM_M_SH_ST_INST);
    }
    if (!t->excluded[GM_SPACE_LOCAL] && S_instructions(t, GM_SPACE_LOCAL) > 0) {
        /* Register spills and local arrays: same L1TEX rules as global. */
        static const char *const ld[5] = {
            "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
            "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
            "l1tex__average_t_sectors_per_request_pipe_lsu_mem_local_op_ld.ratio", NULL, NULL};
        static const char *const stn[5] = {
            "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
            "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
            "l1tex__average_t_sectors_per_request_pipe_lsu_mem_local_op_st.ratio", NULL, NULL};
        S_put_global(t, &ms, GM_SPACE_LOCAL, GM_OP_LOAD, ld);
        S_put_global(t, &ms, GM_SPACE_LOCAL, GM_OP_STORE, stn);
    }

    S_notes ns = {NULL, 0, 0};
    S_note(&ns, "Predicted on the CPU by replaying each warp's addresses under the sm_70+ "
                "rules of docs/model.md: instructions, requests, 32-byte sectors and "
                "shared-memory wavefronts are counted, not timed.");
    if (S_instructions(t, GM_SPACE_GLOBAL) + S_instructions(t, GM_SPACE_LOCAL) > 0)
        S_note(&ns, "Sectors are counted where ncu counts them, at the L1 tag stage, hit or "
                    "miss: L1 and L2 hit rates, DRAM bytes and DRAM throughput depend on "
                    "caching and reuse across warps, which the model does not simulate.");
    if (!t->sampling_set)
        S_note(&ns, "The trace generator did not declare how many warps it traced: the "
                    "counts are those of the traced accesses, not scaled.");
    else if (S_scaled(t) && t->weighted)
        S_note(&ns, "Sampled: %lld of %lld warps traced, each counted for the warps it "
                    "stands for (the generator's weights), so the counts are an estimate "
                    "of the whole kernel's.", t->warps_traced, t->warps_total);
    else if (S_scaled(t))
        S_note(&ns, "Sampled: %lld of %lld warps traced and the counts "
                    "multiplied by %.6g. Exact only when the untraced warps access memory "
                    "as the traced ones do; partial edge warps and data-dependent indices "
                    "make it an estimate.", t->warps_traced, t->warps_total,
               (double)t->warps_total / (double)t->warps_traced);
    if (!t->excluded[GM_SPACE_SHARED] && S_instructions(t, GM_SPACE_SHARED) > 0)
        S_note(&ns, "Shared memory: the wavefronts the addresses imply (8-byte accesses per "
                    "half-warp, 16-byte ones per quarter-warp, two lanes to a slot when lane "
                    "pairs load one address). The measured wavefront and bank-conflict "
                    "counters run above them when independent blocks share an SM out of step "
                    "(on an H100: none with one block per SM or blocks in step, up to +12 %% "
                    "on the padded transpose's loads and +7 %% on matmul tile stores "
                    "otherwise, varying from run to run): that excess does not come from the "
                    "addresses and is not predicted (docs/model.md).");
    long long lanes = 0, slots = 0;
    for (int s = 0; s < GM_SPACE_COUNT; s++)
        for (int o = 0; o < GM_OP_COUNT; o++) {
            lanes += t->c[s][o].active_lanes;
            slots += t->c[s][o].instructions * GM_WARP_SIZE;
        }
    if (lanes < slots)
        S_note(&ns, "%.1f%% of the lane slots of traced accesses were inactive (partial or "
                    "divergent warps): inactive lanes request nothing and fetch nothing.",
               100.0 * (double)(slots - lanes) / (double)slots);
    const gm_access_counts *k = &t->c[GM_SPACE_CONSTANT][GM_OP_LOAD];
    if (!t->excluded[GM_SPACE_CONSTANT] && k->instructions > 0)
        S_note(&ns, "Constant memory (no metric above): %lld warp loads traced, %.2f distinct "
                    "addresses each on average; the constant cache serves one address per "
                    "pass, so each extra address serialises the load.",
               k->instructions, (double)k->distinct_addresses / (double)k->instructions);
    for (int s = 0; s < GM_SPACE_COUNT; s++)
        if (t->excluded[s])
            S_note(&ns, "%s memory is not traced (%s): its metrics are left absent.",
                   gm_space_name((gm_space)s), t->exclude_why[s]);
    for (size_t i = 0; i < t->n_notes; i++)
        S_note(&ns, "%s", t->notes[i]);
    if (t->notes_dropped)
        S_note(&ns, "%lld further notes of the trace generator were dropped.", t->notes_dropped);

    memset(out, 0, sizeof *out);
    out->present = true;
    out->method = gm_xstrdup("address-trace");
    out->warps_traced = t->sampling_set ? t->warps_traced : 0;
    out->warps_total = t->sampling_set ? t->warps_total : 0;
    out->scaled = S_scaled(t);
    out->metrics = ms.m;
    out->n_metrics = ms.n;
    out->notes = ns.s;
    out->n_notes = ns.n;
    return GM_OK;
}

void gm_trace_prediction_clear(gm_prediction *p)
{
    if (!p)
        return;
    free(p->method);
    for (size_t i = 0; i < p->n_metrics; i++) {
        free(p->metrics[i].name);
        free(p->metrics[i].unit);
        free(p->metrics[i].value.s);
    }
    free(p->metrics);
    for (size_t i = 0; i < p->n_notes; i++)
        free(p->notes[i]);
    free(p->notes);
    memset(p, 0, sizeof *p);
}
