/* traversal2d/trace.c — address trace of experiment 5 (kernels.cu).
 *
 * c = a + b over n x n row-major floats, 32 x 8 blocks, a warp is one
 * threadIdx.y row of the block.  Each thread with row, col < n loads a[i],
 * b[i] and stores c[i], i = row*n + col, where
 *   row_mapping  col = blockIdx.x*32 + threadIdx.x, row = blockIdx.y*8 + threadIdx.y
 *   col_mapping  row = blockIdx.x*32 + threadIdx.x, col = blockIdx.y*8 + threadIdx.y
 */
#include "traversal2d.h"
#include "../trace.h"


enum { S_A, S_B, S_C };

typedef struct {
    long long n;
    bool col_mapping;
} S_ctx;

static void S_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    uint64_t a[GM_WARP_SIZE], b[GM_WARP_SIZE], c[GM_WARP_SIZE];
    uint32_t mask = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long fx = (long long)w->bid[0] * w->bdim[0] + w->tid[0][l];
        long long fy = (long long)w->bid[1] * w->bdim[1] + w->tid[1][l];
        long long row = x->col_mapping ? fx : fy, col = x->col_mapping ? fy : fx;
        if (!(w->mask >> l & 1u) || row >= x->n || col >= x->n)
            continue;
        mask |= 1u << l;
        uint64_t off = 4u * (uint64_t)(row * x->n + col);
        a[l] = GM_TRACE_ARRAY(S_A) + off;
        b[l] = GM_TRACE_ARRAY(S_B) + off;
        c[l] = GM_TRACE_ARRAY(S_C) + off;
    }
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, a, mask, w->weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, b, mask, w->weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, c, mask, w->weight);
}

gm_status traversal2d_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    S_ctx x = {gm_case_param(c, "n", 0), c->variant->kind == GM_TRAVERSAL2D_COL_MAPPING};
    if (x.n <= 0)
        return gm_fail(err, GM_ERR_VALUE, "traversal2d/%s: n=%lld", c->variant->name, x.n);
    /* A block step along the fast index moves 4*bx bytes (row mapping) or
     * bx rows (column mapping); along the slow index by rows or 4*by bytes. */
    long long bx = c->launch.block[0], by = c->launch.block[1], row = 4 * x.n;
    long long px = x.col_mapping ? gm_tperiod(bx * row) : gm_tperiod(4 * bx);
    long long py = x.col_mapping ? gm_tperiod(4 * by) : gm_tperiod(by * row);
    gm_tfold f = {{px, py, 0}, {1, 1, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid(&g, c, &f, S_warp, &x, err);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
