/* matvec/trace.c — address trace of experiment 7 (kernels.cu).
 *
 *   thread_*      block 64, thread i < n = blockIdx.x*64 + threadIdx.x: for
 *                 k < n, loads A(i, k) (row-major 4(i n + k), column-major
 *                 4(k n + i)) and x[k] (one address for the whole warp); then
 *                 stores y[i]
 *   warp_rowmajor block 256, warp per row (row = blockIdx.x*8 + threadIdx.x/32):
 *                 lane l loads A(row, k) and x[k] for k = l, l+32, ... < n,
 *                 then lane 0 stores y[row] after the shuffle reduction
 *   ..._vec4      the same over float4s (n/4 of them per row), 16-byte loads;
 *                 the loop is unrolled 4 times with the remainder first
 */
#include "matvec.h"
#include "../trace.h"


enum { S_A, S_X, S_Y };

typedef struct {
    long long n;
    bool warp, colmajor, vec4;
    long long row;   /* the warp being traced (warp variants), for the loop body */
} S_ctx;

static void S_thread_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    long long i[GM_WARP_SIZE];
    uint32_t mask = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        i[l] = (long long)w->bid[0] * w->bdim[0] + w->tid[0][l];
        if ((w->mask >> l & 1u) && i[l] < x->n)
            mask |= 1u << l;
    }
    if (!mask)
        return;   /* the whole warp returns before the loop */
    /* Step k + 32 is step k shifted by 128 bytes (row-major A, x) or 128 n
     * bytes (column-major A). */
    long long reps = gm_tloop(g, x->n, 32);
    uint64_t a[GM_WARP_SIZE];
    for (long long k = 0; k < reps; k++) {
        long long wk = gm_tloop_weight(x->n, reps, k) * w->weight;
        for (int l = 0; l < GM_WARP_SIZE; l++)
            a[l] = GM_TRACE_ARRAY(S_A) +
                   4u * (uint64_t)(x->colmajor ? k * x->n + i[l] : i[l] * x->n + k);
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, a, mask, wk);
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, GM_TRACE_ARRAY(S_X) + 4u * (uint64_t)k,
                       0, mask, wk);
    }
    for (int l = 0; l < GM_WARP_SIZE; l++)
        a[l] = GM_TRACE_ARRAY(S_Y) + 4u * (uint64_t)i[l];
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, a, mask, w->weight);
}

/* One execution of the float4 loop body: lane l at float4 k = l + 32 iter[l]. */
static void S_vec4_body(gm_tgen *g, const long long iter[GM_WARP_SIZE], uint32_t active,
                        long long weight, void *vctx)
{
    const S_ctx *x = vctx;
    uint64_t a[GM_WARP_SIZE], v[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long k = l + 32 * iter[l];
        a[l] = GM_TRACE_ARRAY(S_A) + 16u * (uint64_t)(x->row * (x->n / 4) + k);
        v[l] = GM_TRACE_ARRAY(S_X) + 16u * (uint64_t)k;
    }
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 16, a, active, weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 16, v, active, weight);
}

static void S_row_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    S_ctx *x = vctx;
    long long row = (long long)w->bid[0] * (w->bdim[0] / 32) + w->tid[0][0] / 32;
    if (!(w->mask & 1u) || row >= x->n)
        return;
    x->row = row;
    uint32_t mask = w->mask;
    if (x->vec4) {
        long long n4 = x->n / 4, trips[GM_WARP_SIZE];
        for (int l = 0; l < GM_WARP_SIZE; l++)
            trips[l] = l < n4 ? (n4 - l + 31) / 32 : 0;
        gm_tloop_unrolled(g, trips, mask, 4, true, w->weight, S_vec4_body, x);
    } else {
        /* Step j: lane l at k = l + 32 j while k < n.  Full steps are the
         * first one shifted by 128 j bytes; a last partial step, if n is not a
         * multiple of 32, is on its own. */
        long long full = x->n / 32, reps = gm_tloop(g, full, 1);
        for (long long j = 0; j < reps; j++) {
            long long wj = gm_tloop_weight(full, reps, j) * w->weight;
            gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4,
                           GM_TRACE_ARRAY(S_A) + 4u * (uint64_t)(row * x->n + 32 * j), 4, mask, wj);
            gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4,
                           GM_TRACE_ARRAY(S_X) + 4u * (uint64_t)(32 * j), 4, mask, wj);
        }
        if (x->n % 32) {
            uint32_t part = mask & gm_warp_mask(0, x->n % 32);
            gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4,
                           GM_TRACE_ARRAY(S_A) + 4u * (uint64_t)(row * x->n + 32 * full), 4, part,
                           w->weight);
            gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4,
                           GM_TRACE_ARRAY(S_X) + 4u * (uint64_t)(32 * full), 4, part, w->weight);
        }
    }
    /* lane 0 alone stores the row's sum */
    gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, GM_TRACE_ARRAY(S_Y) + 4u * (uint64_t)row,
                   0, 1u, w->weight);
}

gm_status matvec_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    const char *v = c->variant->name;
    S_ctx x = {gm_case_param(c, "n", 0), gm_matvec_warp(c),
               c->variant->kind == GM_MATVEC_THREAD_COLMAJOR,
               c->variant->kind == GM_MATVEC_WARP_ROWMAJOR_VEC4, 0};
    if (x.n <= 0 || x.n % 4 != 0)
        return gm_fail(err, GM_ERR_VALUE, "matvec/%s: n=%lld", v, x.n);
    /* A block step moves the rows it covers: 64 (thread per row) or 8 (warp
     * per row) rows of 4n bytes for A, 256 or 32 bytes for y; column-major A
     * moves 4*64 bytes. */
    long long b = c->launch.block[0], rows = x.warp ? b / 32 : b;
    long long p = gm_tlcm(gm_tperiod(4 * rows), x.colmajor ? 1 : gm_tperiod(4 * rows * x.n));
    gm_tfold f = {{p, 0, 0}, {1, 0, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid(&g, c, &f, x.warp ? S_row_warp : S_thread_warp, &x, err);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
