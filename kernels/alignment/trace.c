/* alignment/trace.c — address trace of experiment 2 (kernels.cu).
 *
 * Thread i < n/w copies element i of a source that starts `offset` bytes past
 * an aligned allocation into an aligned output: one load and one store of
 * 4 bytes (scalar) or 16 bytes (float4, w = 4).  The source allocation's base
 * is 512-byte aligned on the GPU; any multiple of 128 gives the same counts.
 */
#include "alignment.h"
#include "../trace.h"


enum { S_IN, S_OUT };

typedef struct {
    long long threads, offset;
    unsigned size;   /* bytes per access */
} S_ctx;

static void S_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    uint64_t ld[GM_WARP_SIZE], st[GM_WARP_SIZE];
    uint32_t mask = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long i = (long long)w->bid[0] * w->bdim[0] + w->tid[0][l];
        if (!(w->mask >> l & 1u) || i >= x->threads)
            continue;
        mask |= 1u << l;
        ld[l] = GM_TRACE_ARRAY(S_IN) + (uint64_t)x->offset + (uint64_t)i * x->size;
        st[l] = GM_TRACE_ARRAY(S_OUT) + (uint64_t)i * x->size;
    }
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, x->size, ld, mask, w->weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, x->size, st, mask, w->weight);
}

gm_status alignment_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    const char *v = c->variant->name;
    int width = c->variant->kind == GM_ALIGNMENT_FLOAT4 ? 4 : 1;
    long long n = gm_case_param(c, "n", 0), off = gm_case_param(c, "offset", 0);
    if (n <= 0 || n % 4 != 0 || off < 0 || off % 4 != 0)
        return gm_fail(err, GM_ERR_VALUE, "alignment/%s: n=%lld, offset=%lld", v, n, off);
    /* As setup: 16-byte loads cannot start at an address that is not a
     * multiple of 16 (the GPU faults), so the variant does not run there. */
    if (width == 4 && off % 16 != 0)
        return gm_fail(err, GM_ERR_UNSUPPORTED,
                       "alignment/float4: offset %lld is not a multiple of 16: not run", off);
    S_ctx x = {n / width, off, 4u * (unsigned)width};
    /* A block moves B*size bytes: a multiple of 128, so every full block is
     * the first one shifted; the last may be partial. */
    gm_tfold f = {{gm_tperiod((long long)c->launch.block[0] * x.size), 0, 0}, {1, 0, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid(&g, c, &f, S_warp, &x, err);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
