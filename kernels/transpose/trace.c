/* transpose/trace.c — address trace of experiment 9 (kernels.cu).
 *
 * Blocks of 32 x 8 threads over 32 x 32 tiles, x = blockIdx.x*32 + threadIdx.x,
 * y = blockIdx.y*32 + threadIdx.y; a warp is one threadIdx.y row.  For j = 0,
 * 8, 16, 24 (unrolled), under x < n and y + j < n:
 *   naive   load in[(y+j) n + x], store out[x n + y + j]
 *   tiled   load in[(y+j) n + x], store tile[ty+j][tx]; after the barrier, with
 *           x = blockIdx.y*32 + tx, y = blockIdx.x*32 + ty: load tile[tx][ty+j],
 *           store out[(y+j) n + x]; tile rows of 32 words (padded: 33)
 * A guard that switches every lane off skips the access (the PTX branches).
 */
#include "transpose.h"
#include "../trace.h"


enum { S_IN, S_OUT };
#define S_TILE 32
#define S_ROWS 8

typedef struct {
    long long n;
    bool tiled;
    long long row_words;   /* 32 or 33 */
} S_ctx;

static void S_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    uint64_t ga[GM_WARP_SIZE], sa[GM_WARP_SIZE];
    long long tx[GM_WARP_SIZE], ty[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        tx[l] = w->tid[0][l];
        ty[l] = w->tid[1][l];
    }
    /* the read side: rows of the input tile at (blockIdx.x, blockIdx.y) */
    for (int j = 0; j < S_TILE; j += S_ROWS) {
        uint32_t ok = 0;
        for (int l = 0; l < GM_WARP_SIZE; l++) {
            long long xx = (long long)w->bid[0] * S_TILE + tx[l];
            long long yy = (long long)w->bid[1] * S_TILE + ty[l] + j;
            if (!(w->mask >> l & 1u) || xx >= x->n || yy >= x->n)
                continue;
            ok |= 1u << l;
            ga[l] = GM_TRACE_ARRAY(S_IN) + 4u * (uint64_t)(yy * x->n + xx);
            if (x->tiled)
                sa[l] = 4u * (uint64_t)((ty[l] + j) * x->row_words + tx[l]);
            else
                sa[l] = GM_TRACE_ARRAY(S_OUT) + 4u * (uint64_t)(xx * x->n + yy);
        }
        if (!ok)
            continue;
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, ga, ok, w->weight);
        gm_tgen_access(g, x->tiled ? GM_SPACE_SHARED : GM_SPACE_GLOBAL, GM_OP_STORE, 4, sa, ok,
                       w->weight);
    }
    if (!x->tiled)
        return;
    /* the write side: the tile goes to block (blockIdx.y, blockIdx.x) of the output */
    for (int j = 0; j < S_TILE; j += S_ROWS) {
        uint32_t ok = 0;
        for (int l = 0; l < GM_WARP_SIZE; l++) {
            long long xx = (long long)w->bid[1] * S_TILE + tx[l];
            long long yy = (long long)w->bid[0] * S_TILE + ty[l] + j;
            if (!(w->mask >> l & 1u) || xx >= x->n || yy >= x->n)
                continue;
            ok |= 1u << l;
            sa[l] = 4u * (uint64_t)(tx[l] * x->row_words + ty[l] + j);
            ga[l] = GM_TRACE_ARRAY(S_OUT) + 4u * (uint64_t)(yy * x->n + xx);
        }
        if (!ok)
            continue;
        gm_tgen_access(g, GM_SPACE_SHARED, GM_OP_LOAD, 4, sa, ok, w->weight);
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, ga, ok, w->weight);
    }
}

gm_status transpose_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    const char *v = c->variant->name;
    S_ctx x = {gm_case_param(c, "n", 0), c->variant->kind != GM_TRANSPOSE_NAIVE,
               c->variant->kind == GM_TRANSPOSE_PADDED ? S_TILE + 1 : S_TILE};
    if (x.n < 1)
        return gm_fail(err, GM_ERR_VALUE, "transpose/%s: n=%lld", v, x.n);
    /* A block step moves one side by 128 bytes and the other by 32 rows of
     * 4n bytes, along either dimension; the last blocks may be partial. */
    long long p = gm_tlcm(gm_tperiod(4 * S_TILE), gm_tperiod(4 * S_TILE * x.n));
    gm_tfold f = {{p, p, 0}, {1, 1, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid(&g, c, &f, S_warp, &x, err);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
