/* trace_common.c — what the trace generators share (trace.h): the memo of
 * accesses equal up to a 128-byte shift, folding of equivalent blocks and
 * loop iterations, sampling of blocks, the warp's-eye view of a launch. */
#include "trace.h"

#include "../core/buf.h"

#include <stdlib.h>
#include <string.h>

static unsigned S_debug;

void gm_tgen_set_debug(unsigned flags)
{
    S_debug = flags;
}

unsigned gm_tgen_debug(void)
{
    return S_debug;
}

/* ---- the memo ------------------------------------------------------------- */

/* Two accesses with the same space, op, size and mask whose active lanes'
 * addresses differ by one multiple of 128 bytes get the same counts from the
 * model (sectors are address/32, lines address/128, banks (address/4) mod 32,
 * alignment address mod size <= 16).  The memo keeps the first of each such
 * class with the sum of weights and hands each class to the model once: the
 * model sorts 32 lanes per access (~300 ns), the memo hashes them (~20 ns). */
#define S_MEMO_SLOTS 4096              /* a power of two */
#define S_MEMO_FLUSH (S_MEMO_SLOTS / 2)

typedef struct {
    bool used;
    unsigned char space, op, size;
    uint32_t mask;
    uint64_t hash;
    uint64_t base;                     /* the first active lane's address, rounded down to 128 */
    uint64_t addr[GM_WARP_SIZE];       /* the first access of the class, as it came */
    long long weight;
} S_entry;

struct gm_tmemo {
    S_entry slot[S_MEMO_SLOTS];
    int used;
};

/* Odd 64-bit constants, one per lane: the hash is a sum of independent
 * products, which pipeline, rather than a chain of dependent ones. */
static const uint64_t S_lane_mul[GM_WARP_SIZE] = {
    0x9E3779B97F4A7C15ull, 0xBF58476D1CE4E5B9ull, 0x94D049BB133111EBull, 0xD6E8FEB86659FD93ull,
    0xA0761D6478BD642Full, 0xE7037ED1A0B428DBull, 0x8EBC6AF09C88C6E3ull, 0x589965CC75374CC3ull,
    0x1D8E4E27C47D124Full, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull, 0x27D4EB2F165667C5ull,
    0xFF51AFD7ED558CCDull, 0xC4CEB9FE1A85EC53ull, 0x87C37B91114253D5ull, 0x4CF5AD432745937Full,
    0x85EBCA6B0C2B2AE3ull, 0xCC9E2D51A5B8C3C1ull, 0x1B873593D3C4E2A7ull, 0xE6546B64F15A7C39ull,
    0x2545F4914F6CDD1Dull, 0x9FB21C651E98DF25ull, 0xF1357AEA2E62A9C5ull, 0x369DEA0F31A53F85ull,
    0xDB4F0B9175AE2165ull, 0x6C62272E07BB0143ull, 0x5851F42D4C957F2Dull, 0x14057B7EF767814Full,
    0x2127599BF4325C37ull, 0x880355F21E6D1965ull, 0xB492B66FBE98F273ull, 0x9AE16A3B2F90404Full,
};

static uint64_t S_hash(unsigned space, unsigned op, unsigned size, uint32_t mask,
                       const uint64_t addr[32], uint64_t base)
{
    uint64_t h = ((uint64_t)space << 48) ^ ((uint64_t)op << 40) ^ ((uint64_t)size << 32) ^ mask;
    for (int l = 0; l < GM_WARP_SIZE; l++)
        if (mask >> l & 1u)
            h += (addr[l] - base + 1) * S_lane_mul[l];
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

static bool S_same(const S_entry *e, unsigned space, unsigned op, unsigned size, uint32_t mask,
                   const uint64_t addr[32], uint64_t base, uint64_t hash)
{
    if (e->hash != hash || e->mask != mask || e->space != space || e->op != op || e->size != size)
        return false;
    for (int l = 0; l < GM_WARP_SIZE; l++)
        if ((mask >> l & 1u) && addr[l] - base != e->addr[l] - e->base)
            return false;
    return true;
}

static void S_memo_flush(gm_tgen *g)
{
    gm_tmemo *m = g->memo;
    for (int i = 0; i < S_MEMO_SLOTS; i++) {
        S_entry *e = &m->slot[i];
        if (!e->used)
            continue;
        /* Errors (a misaligned address) are kept by the trace: gm_tgen_finish
         * returns the first. */
        (void)gm_trace_access_repeat(g->t, (gm_space)e->space, (gm_op)e->op, e->size, e->addr,
                                     e->mask, e->weight);
        e->used = false;
    }
    m->used = 0;
}

/* ---- accesses ------------------------------------------------------------- */

void gm_tgen_init(gm_tgen *g, gm_trace *t)
{
    memset(g, 0, sizeof *g);
    g->t = t;
    g->fold = !(S_debug & GM_TGEN_NO_FOLD);
    g->sample = !(S_debug & GM_TGEN_NO_SAMPLE);
    if (!(S_debug & GM_TGEN_NO_MEMO))
        g->memo = gm_xcalloc(1, sizeof *g->memo);
}

void gm_tgen_access(gm_tgen *g, gm_space space, gm_op op, unsigned size, const uint64_t addr[32],
                    uint32_t mask, long long weight)
{
    if (weight < 1)
        return;
    if (!g->memo) {
        (void)gm_trace_access_repeat(g->t, space, op, size, addr, mask, weight);
        return;
    }
    uint64_t base = 0;
    if (mask)
        base = addr[__builtin_ctz(mask)] & ~(uint64_t)(GM_LINE_BYTES - 1);
    uint64_t h = S_hash((unsigned)space, (unsigned)op, size, mask, addr, base);
    gm_tmemo *m = g->memo;
    for (size_t i = h & (S_MEMO_SLOTS - 1);; i = (i + 1) & (S_MEMO_SLOTS - 1)) {
        S_entry *e = &m->slot[i];
        if (!e->used) {
            e->used = true;
            e->space = (unsigned char)space;
            e->op = (unsigned char)op;
            e->size = (unsigned char)size;
            e->mask = mask;
            e->hash = h;
            e->base = base;
            memcpy(e->addr, addr, sizeof e->addr);
            for (int l = 0; l < GM_WARP_SIZE; l++)
                if (!(mask >> l & 1u))
                    e->addr[l] = 0;
            e->weight = weight;
            if (++m->used >= S_MEMO_FLUSH)
                S_memo_flush(g);
            return;
        }
        if (S_same(e, (unsigned)space, (unsigned)op, size, mask, addr, base, h)) {
            e->weight += weight;
            return;
        }
    }
}

void gm_tgen_affine(gm_tgen *g, gm_space space, gm_op op, unsigned size, uint64_t base,
                    int64_t stride, uint32_t mask, long long weight)
{
    uint64_t a[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++)
        a[l] = base + (uint64_t)stride * (uint64_t)l;
    gm_tgen_access(g, space, op, size, a, mask, weight);
}

gm_status gm_tgen_finish(gm_tgen *g, gm_error *err)
{
    if (g->memo) {
        S_memo_flush(g);
        free(g->memo);
        g->memo = NULL;
    }
    if (g->warps_total > 0) {
        if (g->sampled && g->weighted) {
            gm_trace_set_sampling_weighted(g->t, g->warps_total, g->warps_traced);
        } else if (g->sampled) {
            gm_trace_set_sampling(g->t, g->warps_total, g->warps_traced);
        } else {
            gm_trace_set_sampling(g->t, g->warps_total, g->warps_total);
            if (g->warps_traced < g->warps_total)
                gm_trace_note(g->t,
                              "Folded, not sampled: %lld of the %lld warps were replayed; every "
                              "other warp's accesses are those of a replayed warp shifted by a "
                              "multiple of 128 bytes (the same sectors, lines and banks), and "
                              "were counted with it, so the counts are exact for the whole grid.",
                              g->warps_traced, g->warps_total);
        }
    }
    return gm_trace_status(g->t, err);
}

/* ---- the grid ------------------------------------------------------------- */

static long long S_gcd(long long a, long long b)
{
    if (a < 0)
        a = -a;
    if (b < 0)
        b = -b;
    while (b) {
        long long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

long long gm_tperiod(long long shift_bytes)
{
    long long r = shift_bytes % GM_LINE_BYTES;
    if (r == 0)
        return 1;
    return GM_LINE_BYTES / S_gcd(r, GM_LINE_BYTES);
}

long long gm_tlcm(long long a, long long b)
{
    if (a <= 0 || b <= 0)
        return a > b ? a : b;
    return a / S_gcd(a, b) * b;
}

long long gm_tloop(const gm_tgen *g, long long n, long long period)
{
    if (n <= 0)
        return 0;
    if (!g->fold || period <= 0 || period >= n)
        return n;
    return period;
}

long long gm_tloop_weight(long long n, long long reps, long long k)
{
    if (reps <= 0 || k < 0 || k >= n)
        return 0;
    return (n - k + reps - 1) / reps;   /* the iterations k, k + reps, ... below n */
}

/* The remainder loop: lane l takes part in its first trips mod U iterations,
 * at iteration (trips / U) * U + q when it runs after the passes. */
static void S_remainder(gm_tgen *g, const long long trips[GM_WARP_SIZE], uint32_t mask,
                        int unroll, bool after, long long weight, gm_tbody_fn body, void *ctx)
{
    long long it[GM_WARP_SIZE] = {0}, most = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++)
        if ((mask >> l & 1u) && trips[l] % unroll > most)
            most = trips[l] % unroll;
    for (long long q = 0; q < most; q++) {
        uint32_t active = 0;
        for (int l = 0; l < GM_WARP_SIZE; l++)
            if ((mask >> l & 1u) && trips[l] % unroll > q) {
                active |= 1u << l;
                it[l] = (after ? trips[l] / unroll * unroll : 0) + q;
            }
        body(g, it, active, weight, ctx);
    }
}

/* The unrolled passes: pass p runs U bodies, lane l at iteration base + U p + u
 * (base: its remainder count when the remainder ran first, else 0). */
static void S_passes(gm_tgen *g, const long long trips[GM_WARP_SIZE], uint32_t mask, int unroll,
                     bool after_remainder, long long weight, gm_tbody_fn body, void *ctx)
{
    long long it[GM_WARP_SIZE] = {0}, most = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++)
        if ((mask >> l & 1u) && trips[l] / unroll > most)
            most = trips[l] / unroll;
    for (long long p = 0; p < most; p++)
        for (int u = 0; u < unroll; u++) {
            uint32_t active = 0;
            for (int l = 0; l < GM_WARP_SIZE; l++)
                if ((mask >> l & 1u) && trips[l] / unroll > p) {
                    active |= 1u << l;
                    it[l] = (after_remainder ? trips[l] % unroll : 0) + (long long)unroll * p + u;
                }
            body(g, it, active, weight, ctx);
        }
}

void gm_tloop_unrolled(gm_tgen *g, const long long trips[GM_WARP_SIZE], uint32_t mask, int unroll,
                       bool remainder_first, long long weight, gm_tbody_fn body, void *ctx)
{
    long long t[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++)
        t[l] = (mask >> l & 1u) && trips[l] > 0 ? trips[l] : 0;
    if (unroll < 1)
        unroll = 1;
    if (remainder_first) {
        S_remainder(g, t, mask, unroll, false, weight, body, ctx);
        S_passes(g, t, mask, unroll, true, weight, body, ctx);
    } else {
        S_passes(g, t, mask, unroll, false, weight, body, ctx);
        S_remainder(g, t, mask, unroll, true, weight, body, ctx);
    }
}

gm_status gm_tgen_need_launch(const gm_case *c, gm_error *err)
{
    const gm_launch *l = &c->launch;
    for (int d = 0; d < 3; d++)
        if (l->grid[d] == 0 || l->block[d] == 0)
            return gm_fail(err, GM_ERR_VALUE,
                           "%s/%s: no launch shape (grid %ux%ux%u, block %ux%ux%u): the trace "
                           "needs the case described first",
                           c->variant->experiment->id, c->variant->name, l->grid[0], l->grid[1],
                           l->grid[2], l->block[0], l->block[1], l->block[2]);
    return GM_OK;
}

/* The threads of warp `warp` of a block, as threadIdx. */
static void S_warp_lanes(gm_twarp *w, const unsigned block[3], int warp)
{
    long long tpb = (long long)block[0] * block[1] * block[2];
    w->warp = warp;
    w->mask = gm_warp_mask((long long)warp * GM_WARP_SIZE, tpb);
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long t = (long long)warp * GM_WARP_SIZE + l;
        if (t >= tpb)
            t = 0;   /* not a thread: the mask leaves it out */
        w->tid[0][l] = (unsigned)(t % block[0]);
        w->tid[1][l] = (unsigned)(t / block[0] % block[1]);
        w->tid[2][l] = (unsigned)(t / ((long long)block[0] * block[1]));
    }
}

static void S_block(gm_tgen *g, const gm_launch *l, const unsigned bid[3], long long weight,
                    gm_twarp_fn fn, void *ctx)
{
    long long tpb = (long long)l->block[0] * l->block[1] * l->block[2];
    int warps = (int)((tpb + GM_WARP_SIZE - 1) / GM_WARP_SIZE);
    gm_twarp w;
    memcpy(w.gdim, l->grid, sizeof w.gdim);
    memcpy(w.bdim, l->block, sizeof w.bdim);
    memcpy(w.bid, bid, sizeof w.bid);
    w.weight = weight;
    for (int k = 0; k < warps; k++) {
        S_warp_lanes(&w, l->block, k);
        fn(g, &w, ctx);
    }
    g->warps_traced += warps;
}

void gm_tgen_one_warp(gm_tgen *g, const gm_case *c, long long block, int warp, long long weight,
                      gm_twarp_fn fn, void *ctx)
{
    const gm_launch *l = &c->launch;
    gm_twarp w;
    memcpy(w.gdim, l->grid, sizeof w.gdim);
    memcpy(w.bdim, l->block, sizeof w.bdim);
    w.bid[0] = (unsigned)(block % l->grid[0]);
    w.bid[1] = (unsigned)(block / l->grid[0] % l->grid[1]);
    w.bid[2] = (unsigned)(block / ((long long)l->grid[0] * l->grid[1]));
    w.weight = weight;
    S_warp_lanes(&w, l->block, warp);
    fn(g, &w, ctx);
    g->warps_traced++;
}

static long long S_warps_total(const gm_launch *l)
{
    long long tpb = (long long)l->block[0] * l->block[1] * l->block[2];
    long long blocks = (long long)l->grid[0] * l->grid[1] * l->grid[2];
    return blocks * ((tpb + GM_WARP_SIZE - 1) / GM_WARP_SIZE);
}

/* The replayed indices of one grid dimension of extent n and their weights:
 * all of them, or the edges one by one and one representative per residue
 * of the interior modulo the period.  Returns how many (at most n). */
static long long S_dim(const gm_tgen *g, long long n, long long period, long long edge,
                       long long **idx, long long **wt)
{
    bool fold = g->fold && period > 0 && edge >= 0 && n > 2 * edge + period;
    long long m = fold ? 2 * edge + period : n;
    *idx = gm_xmalloc((size_t)m * sizeof **idx);
    *wt = gm_xmalloc((size_t)m * sizeof **wt);
    if (!fold) {
        for (long long i = 0; i < n; i++) {
            (*idx)[i] = i;
            (*wt)[i] = 1;
        }
        return n;
    }
    long long k = 0, inner = n - 2 * edge;
    for (long long i = 0; i < edge; i++, k++) {
        (*idx)[k] = i;
        (*wt)[k] = 1;
    }
    for (long long r = 0; r < period; r++, k++) {
        (*idx)[k] = edge + r;
        (*wt)[k] = gm_tloop_weight(inner, period, r);
    }
    for (long long i = n - edge; i < n; i++, k++) {
        (*idx)[k] = i;
        (*wt)[k] = 1;
    }
    return k;
}

gm_status gm_tgen_grid(gm_tgen *g, const gm_case *c, const gm_tfold *f, gm_twarp_fn fn,
                       void *ctx, gm_error *err)
{
    gm_status st = gm_tgen_need_launch(c, err);
    if (st != GM_OK)
        return st;
    const gm_launch *l = &c->launch;
    g->warps_total += S_warps_total(l);
    long long *idx[3], *wt[3], n[3];
    for (int d = 0; d < 3; d++)
        n[d] = S_dim(g, l->grid[d], f ? f->period[d] : 0, f ? f->edge[d] : 0, &idx[d], &wt[d]);
    for (long long z = 0; z < n[2]; z++)
        for (long long y = 0; y < n[1]; y++)
            for (long long x = 0; x < n[0]; x++) {
                unsigned bid[3] = {(unsigned)idx[0][x], (unsigned)idx[1][y],
                                   (unsigned)idx[2][z]};
                S_block(g, l, bid, wt[0][x] * wt[1][y] * wt[2][z], fn, ctx);
            }
    for (int d = 0; d < 3; d++) {
        free(idx[d]);
        free(wt[d]);
    }
    return GM_OK;
}

gm_status gm_tgen_grid_sample(gm_tgen *g, const gm_case *c, long long warp_budget,
                              gm_twarp_fn fn, void *ctx, gm_error *err)
{
    gm_status st = gm_tgen_need_launch(c, err);
    if (st != GM_OK)
        return st;
    const gm_launch *l = &c->launch;
    long long total = S_warps_total(l);
    long long blocks = (long long)l->grid[0] * l->grid[1] * l->grid[2];
    long long wpb = total / blocks;
    long long step = 1;
    if (g->sample && total > warp_budget) {
        long long budget = warp_budget / wpb > 0 ? warp_budget / wpb : 1;
        step = gm_sample_step(blocks, budget);
        /* A step that shares a factor with the x extent would visit only some
         * columns of a 2D grid (a multiple of it, only one). */
        while (l->grid[0] > 1 && S_gcd(step, l->grid[0]) != 1)
            step++;
    }
    g->warps_total += total;
    long long before = g->warps_traced;
    for (long long b = blocks - 1; b >= 0; b -= step) {
        unsigned bid[3] = {(unsigned)(b % l->grid[0]), (unsigned)(b / l->grid[0] % l->grid[1]),
                           (unsigned)(b / ((long long)l->grid[0] * l->grid[1]))};
        S_block(g, l, bid, 1, fn, ctx);
    }
    if (g->warps_traced - before < total)
        g->sampled = true;
    return GM_OK;
}
