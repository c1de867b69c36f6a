/* dp/trace.c — address trace of experiment 14 (kernels.cu), the GPU variants.
 *
 * One block; thread t (i = t + 1).  Both kernels store diagonal 0 (t < n),
 * then for each diagonal d = 1 .. n-1 the threads t < n - d (j = i + d) load
 * dims[i-1] and dims[j], run d steps of three 8-byte loads, and store their
 * cell (the PTX: 2 loads, 3 per step, 1 store):
 *   rowmajor  table (n+1) x (n+1): step k = i + s loads m[i][k], m[k+1][j],
 *             dims[k]; store m[i][j].  Neighbouring threads are a row plus one
 *             (8 (n + 2) bytes) apart.
 *   diagonal  diagonal e at off(e) = e n - e (e - 1) / 2: step s loads cell t
 *             of diagonal s, cell t + s + 1 of diagonal d - 1 - s, dims[i+s];
 *             store cell t of diagonal d.  Neighbouring threads are adjacent.
 * Folding: within a diagonal, the full warps are each other shifted by
 * 256 (n + 2) or 256 bytes, so the first is replayed for all of them and a
 * partial last warp on its own; step s + p repeats step s shifted by a
 * multiple of 128 bytes for p = 16 (row-major, n even) or 32 (by diagonals:
 * off(s + 32) - off(s) = 32 n - 32 s - 496 cells, a multiple of 16).
 */
#include "dp.h"
#include "../trace.h"


enum { S_M, S_DIMS };

typedef struct {
    long long n;
    bool diag;
} S_ctx;

static long long S_off(long long n, long long e)
{
    return e * n - e * (e - 1) / 2;
}

static uint64_t S_cell(long long k)
{
    return GM_TRACE_ARRAY(S_M) + 8u * (uint64_t)k;
}

static uint64_t S_dim(long long k)
{
    return GM_TRACE_ARRAY(S_DIMS) + 8u * (uint64_t)k;
}

/* Warp `warp` (threads 32 warp + l, lanes of mask) on diagonal d. */
static void S_warp_diagonal(gm_tgen *g, const S_ctx *x, long long warp, uint32_t mask,
                            long long d, long long weight)
{
    long long n = x->n, w = n + 1;
    uint64_t a[GM_WARP_SIZE], b[GM_WARP_SIZE], c[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long i = 32 * warp + l + 1;
        a[l] = S_dim(i - 1);
        b[l] = S_dim(i + d);
    }
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 8, a, mask, weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 8, b, mask, weight);
    long long period = x->diag ? 32 : gm_tlcm(16, gm_tperiod(8 * w));
    long long reps = gm_tloop(g, d, period);
    for (long long s = 0; s < reps; s++) {
        for (int l = 0; l < GM_WARP_SIZE; l++) {
            long long t = 32 * warp + l, i = t + 1, j = i + d, k = i + s;
            if (x->diag) {
                a[l] = S_cell(S_off(n, s) + t);
                b[l] = S_cell(S_off(n, d - 1 - s) + t + s + 1);
            } else {
                a[l] = S_cell(i * w + k);
                b[l] = S_cell((k + 1) * w + j);
            }
            c[l] = S_dim(k);
        }
        long long ws = gm_tloop_weight(d, reps, s) * weight;
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 8, a, mask, ws);
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 8, b, mask, ws);
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 8, c, mask, ws);
    }
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long t = 32 * warp + l, i = t + 1;
        a[l] = x->diag ? S_cell(S_off(n, d) + t) : S_cell(i * w + i + d);
    }
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 8, a, mask, weight);
}

gm_status dp_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    gm_status st = gm_tgen_need_launch(c, err);
    if (st != GM_OK)
        return st;
    S_ctx x = {gm_case_param(c, "n", 0), c->variant->kind == GM_DP_DIAGONAL};
    long long threads = c->launch.block[0];
    if (x.n < 2)
        return gm_fail(err, GM_ERR_VALUE, "dp/%s: n=%lld", c->variant->name, x.n);
    /* As setup: one block holds a thread per cell of the main diagonal. */
    if (x.n > threads)
        return gm_fail(err, GM_ERR_UNSUPPORTED,
                       "dp/%s: n = %lld needs more threads than one block has: not run",
                       c->variant->name, x.n);
    gm_tgen g;
    gm_tgen_init(&g, t);
    long long warps = (threads + 31) / 32;
    /* diagonal 0: one store per thread t < n */
    for (long long k = 0; k < warps; k++) {
        uint32_t mask = gm_warp_mask(32 * k, x.n);
        if (!mask)
            continue;
        uint64_t a[GM_WARP_SIZE];
        for (int l = 0; l < GM_WARP_SIZE; l++) {
            long long i = 32 * k + l + 1;
            a[l] = x.diag ? S_cell(i - 1) : S_cell(i * (x.n + 1) + i);
        }
        gm_tgen_access(&g, GM_SPACE_GLOBAL, GM_OP_STORE, 8, a, mask, 1);
    }
    for (long long d = 1; d < x.n; d++) {
        long long active = x.n - d, full = active / 32;
        if (g.fold) {
            if (full > 0)
                S_warp_diagonal(&g, &x, 0, 0xffffffffu, d, full);
        } else {
            for (long long k = 0; k < full; k++)
                S_warp_diagonal(&g, &x, k, 0xffffffffu, d, 1);
        }
        if (active % 32)
            S_warp_diagonal(&g, &x, full, gm_warp_mask(0, active % 32), d, 1);
    }
    /* every warp of the block is accounted for, diagonal by diagonal */
    g.warps_total = g.warps_traced = warps;
    if (g.fold)
        gm_trace_note(t, "Folded: on each diagonal the first full warp stands for all full "
                         "warps (the others are it shifted by multiples of 128 bytes) and "
                         "steps repeat with a period of %d; the counts are exact.",
                      x.diag ? 32 : (int)gm_tlcm(16, gm_tperiod(8 * (x.n + 1))));
    return gm_tgen_finish(&g, err);
}
