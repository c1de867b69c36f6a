/* texture/trace.c — address trace of experiment 13 (kernels.cu).
 *
 * Blocks of 32 x 8 threads, each thread 2 cells 8 rows apart: x =
 * blockIdx.x*32 + threadIdx.x, y = blockIdx.y*16 + threadIdx.y; threads with
 * x >= n return.  For cell k (row y + 8k, clamped to the last row): loads of
 * u and v at i = row*n + x; then, global and readonly, the four corners of
 * the departure point (x - u, row - v), clamped as the kernel clamps them
 * (readonly's __ldg is a global load through the same pipeline); then the
 * stores of the cells that exist.  The texture variant's tex2D fetches go
 * through the texture pipeline, which the LSU global counters do not count:
 * it has the u, v loads and the stores only.
 *
 * The corners depend on the velocity field, so it is regenerated for the
 * traced cells exactly as kernels.cu builds it (same seeds, same
 * arithmetic): element i of a uniform fill in [-1, 1) plus 6 sin(2 pi 2 fy)
 * for u, 6 cos(2 pi 3 fx) for v, fx = (i mod n) / n, fy = (i div n) / n.
 * Every 1 in k blocks is traced (data-dependent gathers: an estimate).
 */
#include "texture.h"
#include "../trace.h"

#include <math.h>

enum { S_Q, S_U, S_V, S_OUT };
#define S_BX 32
#define S_BY 8
#define S_CELLS 2
#define S_WARPS 2048   /* warps traced at most */

typedef struct {
    long long n;
    bool tex;
} S_ctx;

/* u and v at cell i, as S_fields_chunk leaves them. */
static void S_velocity(long long n, long long i, float *u, float *v)
{
    const double two_pi = 6.283185307179586;
    double fx = (double)(i % n) / (double)n, fy = (double)(i / n) / (double)n;
    *u = gm_uniform_f32_at(0x7e42ULL + (uint64_t)n, (uint64_t)i, -1.0f, 1.0f) +
         (float)(6.0 * sin(two_pi * 2 * fy));
    *v = gm_uniform_f32_at(0x7e43ULL + (uint64_t)n, (uint64_t)i, -1.0f, 1.0f) +
         (float)(6.0 * cos(two_pi * 3 * fx));
}

static long long S_clamp(long long v, long long lo, long long hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void S_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *c = vctx;
    long long n = c->n, x[GM_WARP_SIZE], y[GM_WARP_SIZE];
    uint32_t ok = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        x[l] = (long long)w->bid[0] * S_BX + w->tid[0][l];
        y[l] = (long long)w->bid[1] * (S_BY * S_CELLS) + w->tid[1][l];
        if ((w->mask >> l & 1u) && x[l] < n)
            ok |= 1u << l;
    }
    if (!ok)
        return;
    uint64_t a[GM_WARP_SIZE], b[GM_WARP_SIZE];
    long long corner[S_CELLS][4][GM_WARP_SIZE];
    for (int k = 0; k < S_CELLS; k++) {
        for (int l = 0; l < GM_WARP_SIZE; l++) {
            if (!(ok >> l & 1u))
                continue;
            long long yk = y[l] + (long long)k * S_BY < n - 1 ? y[l] + (long long)k * S_BY : n - 1;
            long long i = yk * n + x[l];
            a[l] = GM_TRACE_ARRAY(S_U) + 4u * (uint64_t)i;
            b[l] = GM_TRACE_ARRAY(S_V) + 4u * (uint64_t)i;
            if (c->tex)
                continue;
            /* advect_departure and advect_sample, in the kernel's float steps */
            float u, v;
            S_velocity(n, i, &u, &v);
            float px = (float)x[l] - 1.0f * u, py = (float)yk - 1.0f * v;
            px = fminf(fmaxf(px, -2.0f), (float)n + 1.0f);
            py = fminf(fmaxf(py, -2.0f), (float)n + 1.0f);
            long long fx = (long long)floorf(px), fy = (long long)floorf(py);
            long long x0 = S_clamp(fx, 0, n - 1), x1 = S_clamp(fx + 1, 0, n - 1);
            long long y0 = S_clamp(fy, 0, n - 1), y1 = S_clamp(fy + 1, 0, n - 1);
            corner[k][0][l] = y0 * n + x0;
            corner[k][1][l] = y0 * n + x1;
            corner[k][2][l] = y1 * n + x0;
            corner[k][3][l] = y1 * n + x1;
        }
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, a, ok, w->weight);
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, b, ok, w->weight);
    }
    if (!c->tex)
        for (int k = 0; k < S_CELLS; k++)
            for (int j = 0; j < 4; j++) {
                for (int l = 0; l < GM_WARP_SIZE; l++)
                    a[l] = GM_TRACE_ARRAY(S_Q) + 4u * (uint64_t)corner[k][j][l];
                gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, a, ok, w->weight);
            }
    for (int k = 0; k < S_CELLS; k++) {
        uint32_t st = 0;
        for (int l = 0; l < GM_WARP_SIZE; l++)
            if ((ok >> l & 1u) && y[l] + (long long)k * S_BY < n) {
                st |= 1u << l;
                a[l] = GM_TRACE_ARRAY(S_OUT) + 4u * (uint64_t)((y[l] + k * S_BY) * n + x[l]);
            }
        if (st)
            gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, a, st, w->weight);
    }
}

gm_status texture_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    S_ctx x = {gm_case_param(c, "n", 0), c->variant->kind == GM_TEXTURE_TEXTURE};
    if (x.n < 2)
        return gm_fail(err, GM_ERR_VALUE, "texture/%s: n=%lld", c->variant->name, x.n);
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid_sample(&g, c, S_WARPS, S_warp, &x, err);
    if (x.tex)
        gm_trace_note(t, "The two tex2D fetches per thread go through the texture pipeline "
                         "(pipe_tex), which the LSU global-load counters predicted here do not "
                         "count; the model does not predict texture traffic.");
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
