/* coalescing/trace.c — address trace of experiment 1 (kernels.cu).
 *
 *   stride   grid (ceil(m/B), s), block B, m = n/s: thread r = blockIdx.x*B +
 *            threadIdx.x of column c = blockIdx.y loads in[r*s + c] and stores
 *            out[c*m + r] when r < m (ld.global.nc.f32, st.global.f32)
 *   float2   thread i < n/2 loads and stores float2 [i]: one 8-byte access each
 *   float4   thread i < n/4: one 16-byte load and store
 */
#include "coalescing.h"
#include "../trace.h"


enum { S_IN, S_OUT };

typedef struct {
    long long m;   /* threads that work per column (stride) or in all (vector) */
    long long s;   /* stride in floats (1 for the vector variants) */
    int width;     /* floats per access: 1, 2 or 4 */
} S_ctx;

static void S_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    uint64_t ld[GM_WARP_SIZE], st[GM_WARP_SIZE];
    uint32_t mask = 0;
    long long c = w->bid[1];   /* the column: 0 for the vector variants */
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long r = (long long)w->bid[0] * w->bdim[0] + w->tid[0][l];
        if (!(w->mask >> l & 1u) || r >= x->m)
            continue;
        mask |= 1u << l;
        uint64_t bytes = 4u * (uint64_t)x->width;
        ld[l] = GM_TRACE_ARRAY(S_IN) + bytes * (uint64_t)(r * x->s + c);
        st[l] = GM_TRACE_ARRAY(S_OUT) + bytes * (uint64_t)(c * x->m + r);
    }
    unsigned size = 4u * (unsigned)x->width;
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, size, ld, mask, w->weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, size, st, mask, w->weight);
}

gm_status coalescing_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    const char *v = c->variant->name;
    S_ctx x;
    x.width = gm_coalescing_width(c);
    long long n = gm_case_param(c, "n", 0);
    x.s = x.width == 1 ? gm_case_param(c, "stride", 1) : 1;
    if (n <= 0 || x.s <= 0 || n % (x.s * x.width) != 0)
        return gm_fail(err, GM_ERR_VALUE, "coalescing/%s: n=%lld, stride=%lld", v, n, x.s);
    x.m = n / (x.s * x.width);
    long long bdim = c->launch.block[0];
    /* Blocks along x: the load moves B*s*4*width bytes and the store
     * B*4*width, multiples of 128 for B = 256: all blocks alike but a partial
     * last one.  Along y (columns): the load moves 4 bytes and the store 4m. */
    gm_tfold f = {{gm_tlcm(gm_tperiod(bdim * x.s * 4 * x.width), gm_tperiod(bdim * 4 * x.width)),
                   gm_tlcm(gm_tperiod(4), gm_tperiod(4 * x.m)), 0},
                  {1, 0, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid(&g, c, &f, S_warp, &x, err);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
