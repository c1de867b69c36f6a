/* grid3d/trace.c — address trace of experiment 6 (kernels.cu).
 *
 * 32 x 8 blocks, grid (n/32, n/32, n): z = blockIdx.x*32 + threadIdx.x,
 * y0 = blockIdx.y*32 + threadIdx.y, x = blockIdx.z; a warp is 32 consecutive
 * z at one (x, y).  Each thread with z < n does 4 columns y = y0 + 8k: for
 * each, 3 loads (z-1 and z+1 clamped to [0, n-1], and z), then 4 stores
 * (12 ld.global.nc.f32, 4 st.global.f32).  Element (x, y, z) is at
 * x sx + y sy + z sz floats: z-major (sx, sy, sz) = (n^2, n, 1), x-major
 * (1, n, n^2).
 */
#include "grid3d.h"
#include "../trace.h"


enum { S_IN, S_OUT };
#define S_YPT 4   /* columns per thread, kernels.cu's S_YPT */

typedef struct {
    long long n, sx, sy, sz;
} S_ctx;

static void S_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *c = vctx;
    long long z[GM_WARP_SIZE], zm[GM_WARP_SIZE], zp[GM_WARP_SIZE], y0[GM_WARP_SIZE];
    uint32_t mask = 0;
    long long x = w->bid[2];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        z[l] = (long long)w->bid[0] * w->bdim[0] + w->tid[0][l];
        y0[l] = (long long)w->bid[1] * w->bdim[1] * S_YPT + w->tid[1][l];
        if (!(w->mask >> l & 1u) || z[l] >= c->n)
            continue;
        mask |= 1u << l;
        zm[l] = z[l] > 0 ? z[l] - 1 : 0;
        zp[l] = z[l] + 1 < c->n ? z[l] + 1 : c->n - 1;
    }
    uint64_t a[GM_WARP_SIZE];
    for (int op = 0; op < 2; op++)
        for (int k = 0; k < S_YPT; k++) {
            const long long *zs[3] = {zm, z, zp};
            for (int j = 0; j < (op == 0 ? 3 : 1); j++) {
                const long long *zz = op == 0 ? zs[j] : z;
                for (int l = 0; l < GM_WARP_SIZE; l++)
                    if (mask >> l & 1u) {
                        long long base = x * c->sx + (y0[l] + (long long)k * w->bdim[1]) * c->sy;
                        a[l] = GM_TRACE_ARRAY(op == 0 ? S_IN : S_OUT) +
                               4u * (uint64_t)(base + zz[l] * c->sz);
                    }
                gm_tgen_access(g, GM_SPACE_GLOBAL, op == 0 ? GM_OP_LOAD : GM_OP_STORE, 4, a, mask,
                               w->weight);
            }
        }
}

gm_status grid3d_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n <= 0)
        return gm_fail(err, GM_ERR_VALUE, "grid3d/%s: n=%lld", c->variant->name, n);
    bool xmajor = c->variant->kind == GM_GRID3D_XMAJOR;
    S_ctx x = {n, xmajor ? 1 : n * n, n, xmajor ? n * n : 1};
    long long bx = c->launch.block[0], by = c->launch.block[1];
    /* Per block step: x moves bx z's, y moves by*4 y's, z moves one x.  The
     * first and last blocks along x hold the clamped z = 0 and z = n-1. */
    gm_tfold f = {{gm_tperiod(4 * bx * x.sz), gm_tperiod(4 * by * S_YPT * x.sy),
                   gm_tperiod(4 * x.sx)},
                  {1, 0, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid(&g, c, &f, S_warp, &x, err);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
