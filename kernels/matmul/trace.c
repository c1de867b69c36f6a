/* matmul/trace.c — address trace of experiment 8 (kernels.cu).
 *
 * Blocks of T x T threads (T = `block`), row = blockIdx.y*T + threadIdx.y,
 * col = blockIdx.x*T + threadIdx.x; a warp is 32 consecutive threads of the
 * block, 32/T rows of it (T = 4: a block is half a warp).
 *   naive     threads with row, col < n (the others return): for k < n,
 *             load A[row][k] (the lanes of a row share it) and B[k][col]; store C
 *   constant  the same with B[k][col] from __constant__ memory (ld.const with a
 *             computed index: an LDC per step, T different words per warp)
 *   tiled*    per tile k0: A's element under its guard, its store into the A
 *             tile (as[ty][tx], or as[tx][ty] k-major), B's element, its store
 *             into bs[ty][tx]; then T loads of each tile (as[ty][k] or
 *             as[k][ty], and bs[k][tx]); rows of T + PAD words.  In the SASS
 *             (not the PTX, which has T scalar ld.shared of each tile), ptxas
 *             reads A's row-major unpadded tile four floats at a time:
 *             as[ty][k..k+3] is one LDS.128, its rows being 4T bytes, a
 *             multiple of 16 (cuobjdump of the 16 x 16 kernels: tiled and
 *             double_buffer have 16 LDS + 4 LDS.128 per tile, tiled_padded
 *             and tiled_kmajor_padded 32 LDS; the H100 counts give 4 LDS +
 *             1 LDS.128 per 4 x 4 tile).  Padded rows (4T + 4 bytes) and
 *             the k-major read as[k][ty] (one word per row) stay scalar
 *   double_buffer  tile 0 loaded before the loop; iteration t loads tile t+1
 *             into registers (if there is one), reads buffer t&1 as tiled
 *             does (T/4 LDS.128 of A's row, T loads of B's column), then
 *             stores tile t+1 into the other buffer
 * A load whose guard switches every lane of the warp off is not traced: the
 * PTX branches around it.  Shared arrays: as at offset 0, bs after it.
 */
#include "matmul.h"
#include "../trace.h"

#include <string.h>

enum { S_A, S_B, S_C };

typedef enum { S_NAIVE, S_CONSTANT, S_TILED, S_DOUBLE } S_kind;

typedef struct {
    S_kind kind;
    long long n, T;
    int pad;
    bool kmajor;
    long long row_words;   /* T + pad */
    bool vec4;             /* A's tile row read as T/4 LDS.128 (see the header) */
    uint64_t bs_base;      /* byte offset of bs in the shared window */
} S_ctx;

typedef struct {
    long long row[GM_WARP_SIZE], col[GM_WARP_SIZE], tx[GM_WARP_SIZE], ty[GM_WARP_SIZE];
    uint32_t mask;   /* the block's threads in this warp */
} S_lanes;

static void S_lanes_of(const S_ctx *x, const gm_twarp *w, S_lanes *L)
{
    L->mask = w->mask;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        L->tx[l] = w->tid[0][l];
        L->ty[l] = w->tid[1][l];
        L->row[l] = (long long)w->bid[1] * x->T + L->ty[l];
        L->col[l] = (long long)w->bid[0] * x->T + L->tx[l];
    }
}

/* Global float element (r, c) of an n x n matrix, for the lanes where ok. */
static void S_global(gm_tgen *g, gm_op op, int array, const long long *r, const long long *c,
                     long long n, uint32_t ok, long long weight)
{
    if (!ok)
        return;
    uint64_t a[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++)
        a[l] = GM_TRACE_ARRAY(array) + 4u * (uint64_t)(r[l] * n + c[l]);
    gm_tgen_access(g, GM_SPACE_GLOBAL, op, 4, a, ok, weight);
}

/* Shared word base + r * row_words + c for every lane of mask. */
static void S_shared(gm_tgen *g, gm_op op, uint64_t base, const long long *r, const long long *c,
                     long long row_words, uint32_t mask, long long weight)
{
    uint64_t a[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++)
        a[l] = base + 4u * (uint64_t)(r[l] * row_words + c[l]);
    gm_tgen_access(g, GM_SPACE_SHARED, op, 4, a, mask, weight);
}

static uint32_t S_in(const long long *r, const long long *c, long long n, uint32_t mask)
{
    uint32_t ok = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++)
        if ((mask >> l & 1u) && r[l] < n && c[l] < n)
            ok |= 1u << l;
    return ok;
}

/* ---- naive and constant ----------------------------------------------------- */

static void S_direct_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    S_lanes L;
    S_lanes_of(x, w, &L);
    uint32_t ok = S_in(L.row, L.col, x->n, L.mask);
    if (!ok)
        return;   /* every thread of the warp returned */
    /* Step k + 32 moves A by 128 bytes and B by 128 n bytes. */
    long long reps = gm_tloop(g, x->n, 32);
    long long k[GM_WARP_SIZE];
    for (long long s = 0; s < reps; s++) {
        long long ws = gm_tloop_weight(x->n, reps, s) * w->weight;
        for (int l = 0; l < GM_WARP_SIZE; l++)
            k[l] = s;
        S_global(g, GM_OP_LOAD, S_A, L.row, k, x->n, ok, ws);
        if (x->kind == S_NAIVE) {
            S_global(g, GM_OP_LOAD, S_B, k, L.col, x->n, ok, ws);
        } else {
            uint64_t a[GM_WARP_SIZE];
            for (int l = 0; l < GM_WARP_SIZE; l++)
                a[l] = 4u * (uint64_t)(s * x->n + L.col[l]);   /* offset in the constant bank */
            gm_tgen_access(g, GM_SPACE_CONSTANT, GM_OP_LOAD, 4, a, ok, ws);
        }
    }
    S_global(g, GM_OP_STORE, S_C, L.row, L.col, x->n, ok, w->weight);
}

/* ---- tiles ------------------------------------------------------------------ */

/* The global loads of tile k0 into registers: A's element (row, k0 + tx) and
 * B's element (k0 + ty, col), each under its guard. */
static void S_tile_global(gm_tgen *g, const S_ctx *x, const S_lanes *L, long long k0,
                          long long weight)
{
    long long ka[GM_WARP_SIZE], kb[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        ka[l] = k0 + L->tx[l];
        kb[l] = k0 + L->ty[l];
    }
    S_global(g, GM_OP_LOAD, S_A, L->row, ka, x->n, S_in(L->row, ka, x->n, L->mask), weight);
    S_global(g, GM_OP_LOAD, S_B, kb, L->col, x->n, S_in(kb, L->col, x->n, L->mask), weight);
}

/* The stores of the loaded elements into tile buffer buf (whole block). */
static void S_tile_store(gm_tgen *g, const S_ctx *x, const S_lanes *L, int buf, long long weight)
{
    uint64_t tile = (uint64_t)x->T * x->row_words * 4u;
    uint64_t as = (uint64_t)buf * tile, bs = x->bs_base + (uint64_t)buf * tile;
    if (x->kmajor)
        S_shared(g, GM_OP_STORE, as, L->tx, L->ty, x->row_words, L->mask, weight);
    else
        S_shared(g, GM_OP_STORE, as, L->ty, L->tx, x->row_words, L->mask, weight);
    S_shared(g, GM_OP_STORE, bs, L->ty, L->tx, x->row_words, L->mask, weight);
}

/* The reads of buffer buf: as[ty][k] (as[k][ty] k-major; as[ty][k..k+3] as
 * one 16-byte load when vec4) and bs[k][tx], for k < T. */
static void S_tile_reads(gm_tgen *g, const S_ctx *x, const S_lanes *L, int buf, long long weight)
{
    uint64_t tile = (uint64_t)x->T * x->row_words * 4u;
    uint64_t as = (uint64_t)buf * tile, bs = x->bs_base + (uint64_t)buf * tile;
    long long k[GM_WARP_SIZE];
    for (long long kk = 0; kk < x->T; kk++) {
        for (int l = 0; l < GM_WARP_SIZE; l++)
            k[l] = kk;
        if (x->vec4 && kk % 4 == 0) {
            uint64_t a[GM_WARP_SIZE];
            for (int l = 0; l < GM_WARP_SIZE; l++)
                a[l] = as + 4u * (uint64_t)(L->ty[l] * x->row_words + kk);
            gm_tgen_access(g, GM_SPACE_SHARED, GM_OP_LOAD, 16, a, L->mask, weight);
        } else if (x->kmajor) {
            S_shared(g, GM_OP_LOAD, as, k, L->ty, x->row_words, L->mask, weight);
        } else if (!x->vec4) {
            S_shared(g, GM_OP_LOAD, as, L->ty, k, x->row_words, L->mask, weight);
        }
        S_shared(g, GM_OP_LOAD, bs, k, L->tx, x->row_words, L->mask, weight);
    }
}

/* Tiles t and t + p are alike when p tiles move A (4T bytes a tile) and B
 * (4Tn bytes) by multiples of 128; double buffering also needs p even. */
static long long S_tile_period(const S_ctx *x)
{
    long long p = gm_tlcm(gm_tperiod(4 * x->T), gm_tperiod(4 * x->T * x->n));
    return x->kind == S_DOUBLE ? gm_tlcm(p, 2) : p;
}

static void S_tiled_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    S_lanes L;
    S_lanes_of(x, w, &L);
    long long tiles = (x->n + x->T - 1) / x->T, full = x->n / x->T;
    /* full tiles folded; a partial last tile on its own */
    long long reps = gm_tloop(g, full, S_tile_period(x));
    for (long long t = 0; t < reps + (tiles - full); t++) {
        long long wt = t < reps ? gm_tloop_weight(full, reps, t) * w->weight : w->weight;
        long long tile = t < reps ? t : full;
        S_tile_global(g, x, &L, tile * x->T, wt);
        S_tile_store(g, x, &L, 0, wt);
        S_tile_reads(g, x, &L, 0, wt);
    }
    S_global(g, GM_OP_STORE, S_C, L.row, L.col, x->n, S_in(L.row, L.col, x->n, L.mask),
             w->weight);
}

/* Double buffering: iteration t reads buffer t & 1; while t + 1 < tiles it
 * also loads tile t + 1 and stores it into buffer (t + 1) & 1. */
static void S_double_step(gm_tgen *g, const S_ctx *x, const S_lanes *L, long long t,
                          long long tiles, long long weight)
{
    bool next = t + 1 < tiles;
    if (next)
        S_tile_global(g, x, L, (t + 1) * x->T, weight);
    S_tile_reads(g, x, L, (int)(t & 1), weight);
    if (next)
        S_tile_store(g, x, L, (int)((t + 1) & 1), weight);
}

static void S_double_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    S_lanes L;
    S_lanes_of(x, w, &L);
    long long tiles = (x->n + x->T - 1) / x->T, full = x->n / x->T;
    S_tile_global(g, x, &L, 0, w->weight);
    S_tile_store(g, x, &L, 0, w->weight);
    /* Iterations t < full - 1 load a full tile: folded.  The rest (the one
     * loading a partial tile, the last one, which loads nothing) one by one. */
    long long regular = full > 1 ? full - 1 : 0;
    long long reps = gm_tloop(g, regular, S_tile_period(x));
    for (long long t = 0; t < reps; t++)
        S_double_step(g, x, &L, t, tiles, gm_tloop_weight(regular, reps, t) * w->weight);
    for (long long t = regular; t < tiles; t++)
        S_double_step(g, x, &L, t, tiles, w->weight);
    S_global(g, GM_OP_STORE, S_C, L.row, L.col, x->n, S_in(L.row, L.col, x->n, L.mask),
             w->weight);
}

gm_status matmul_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    const char *v = c->variant->name;
    S_ctx x;
    memset(&x, 0, sizeof x);
    x.n = gm_case_param(c, "n", 0);
    x.T = gm_case_param(c, "block", 16);
    if (x.n < 1 || x.T < 1 || x.T > 32)
        return gm_fail(err, GM_ERR_VALUE, "matmul/%s: n=%lld, block=%lld", v, x.n, x.T);
    if (c->variant->kind == GM_MATMUL_NAIVE)
        x.kind = S_NAIVE;
    else if (c->variant->kind == GM_MATMUL_CONSTANT)
        x.kind = S_CONSTANT;
    else if (c->variant->kind == GM_MATMUL_DOUBLE_BUFFER)
        x.kind = S_DOUBLE;
    else
        x.kind = S_TILED;
    /* As setup: B must fit the 64 KiB of constant memory. */
    if (x.kind == S_CONSTANT && x.n * x.n * 4 > 65536)
        return gm_fail(err, GM_ERR_UNSUPPORTED,
                       "matmul/constant: B needs %lld bytes of constant memory: not run",
                       x.n * x.n * 4);
    x.pad = strstr(v, "padded") ? 1 : 0;
    x.kmajor = strstr(v, "kmajor") != NULL;
    x.row_words = x.T + x.pad;
    x.vec4 = (x.kind == S_TILED || x.kind == S_DOUBLE) && !x.kmajor && x.pad == 0 &&
             x.T % 4 == 0;
    /* as holds 1 tile, or 2 when double-buffered */
    x.bs_base = (uint64_t)(x.kind == S_DOUBLE ? 2 : 1) * (uint64_t)(x.T * x.row_words * 4);
    /* A block step along x moves B and C by 4T bytes, along y A and C by 4Tn;
     * the last block of each dimension may be partial. */
    gm_tfold f = {{gm_tperiod(4 * x.T), gm_tperiod(4 * x.T * x.n), 0}, {1, 1, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_twarp_fn fn = x.kind == S_NAIVE || x.kind == S_CONSTANT ? S_direct_warp
                   : x.kind == S_DOUBLE                        ? S_double_warp
                                                               : S_tiled_warp;
    gm_status st = gm_tgen_grid(&g, c, &f, fn, &x, err);
    if (x.vec4)
        gm_trace_note(t, "Shared loads as the SASS has them: A's tile row is read four floats "
                         "at a time (%lld LDS.128 and %lld LDS per tile and warp, where the "
                         "source and the PTX have %lld scalar loads); a warp's LDS.128 reads "
                         "one float4 per tile row it spans, lanes in pairs on one address, "
                         "which the model packs two to a slot.",
                      x.T / 4, x.T, 2 * x.T);
    if (x.kind == S_CONSTANT)
        gm_trace_note(t, "B is read from __constant__ memory at an index computed at run time "
                         "(one constant load per step, as the PTX has it): a warp asks for %lld "
                         "different words of a row of B at each step.",
                      x.T < x.n ? x.T : x.n);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
