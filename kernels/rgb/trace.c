/* rgb/trace.c — address trace of experiment 4 (kernels.cu).
 *
 * In place, one load and one store of the same address per thread:
 *   interleaved  thread i < P: the byte at 3i (1-byte accesses)
 *   planar       thread i < P: the byte at i of the red plane
 *   planar_x16   thread i < P/16: the 16 bytes at 16i (uint4)
 */
#include "rgb.h"
#include "../trace.h"


enum { S_IMG };

#define S_BASE_PIXELS (960ll * 1280ll)   /* as kernels.cu: the seed's image */

typedef struct {
    long long threads;
    unsigned size;     /* bytes per access */
    unsigned stride;   /* bytes between consecutive threads */
} S_ctx;

static void S_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    uint64_t a[GM_WARP_SIZE];
    uint32_t mask = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long i = (long long)w->bid[0] * w->bdim[0] + w->tid[0][l];
        if (!(w->mask >> l & 1u) || i >= x->threads)
            continue;
        mask |= 1u << l;
        a[l] = GM_TRACE_ARRAY(S_IMG) + (uint64_t)i * x->stride;
    }
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, x->size, a, mask, w->weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, x->size, a, mask, w->weight);
}

gm_status rgb_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    const char *v = c->variant->name;
    long long scale = gm_case_param(c, "scale", 1);
    if (scale <= 0)
        return gm_fail(err, GM_ERR_VALUE, "rgb/%s: scale=%lld", v, scale);
    long long pixels = S_BASE_PIXELS * scale;
    S_ctx x;
    if (c->variant->kind == GM_RGB_PLANAR_X16) {
        x.threads = pixels / 16;
        x.size = x.stride = 16;
    } else {
        x.threads = pixels;
        x.size = 1;
        x.stride = c->variant->kind == GM_RGB_INTERLEAVED ? 3 : 1;
    }
    /* A block of B threads moves B*stride bytes: for interleaved with B = 64
     * that is 192, so blocks alternate between two alignments. */
    gm_tfold f = {{gm_tperiod((long long)c->launch.block[0] * x.stride), 0, 0}, {1, 0, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid(&g, c, &f, S_warp, &x, err);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
