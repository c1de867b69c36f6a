/* conv/trace.c — address trace of experiment 12 (kernels.cu).
 *
 * Blocks of 32 x 8 threads, one output pixel per thread, x = blockIdx.x*32 +
 * threadIdx.x, y = blockIdx.y*8 + threadIdx.y; a warp is one image row
 * segment.  Threads outside the image return.
 *   global, constant  for each filter row dy whose image row y+dy exists (the
 *            same for the whole warp: a branch), for each dx (unrolled), under
 *            0 <= x+dx < n: the coefficient (a global load of one address;
 *            constant: ld.const at an index computed from dy, one address per
 *            warp) and the pixel (y+dy, x+dx); then the store
 *   shared   the 38 x 14 tile with its halo, word i = ty*32 + tx, i + 256, ...
 *            < 532: the pixel under its in-image guard, then the store of word
 *            i; after the barrier, the 49 tile reads (ty+dy)*38 + tx+dx, then
 *            the output store.  Its coefficients have constant indices after
 *            unrolling (ld.const at fixed offsets): they are expected to become
 *            operands of the multiply-adds, not load instructions, so constant
 *            memory is left out of this trace.
 */
#include "conv.h"
#include "../trace.h"


enum { S_IN, S_FILT, S_OUT };
#define S_BX 32
#define S_BY 8
#define S_TW (S_BX + 2 * GM_CONV_R)   /* 38 */
#define S_TH (S_BY + 2 * GM_CONV_R)   /* 14 */

typedef enum { S_GLOBAL, S_CONSTANT, S_SHARED } S_kind;

typedef struct {
    long long n;
    S_kind kind;
} S_ctx;

/* The lanes that are pixels of the image, their x and y. */
static uint32_t S_pixels(const S_ctx *x, const gm_twarp *w, long long px[32], long long py[32])
{
    uint32_t ok = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        px[l] = (long long)w->bid[0] * S_BX + w->tid[0][l];
        py[l] = (long long)w->bid[1] * S_BY + w->tid[1][l];
        if ((w->mask >> l & 1u) && px[l] < x->n && py[l] < x->n)
            ok |= 1u << l;
    }
    return ok;
}

static void S_direct_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    long long px[GM_WARP_SIZE], py[GM_WARP_SIZE];
    uint32_t ok = S_pixels(x, w, px, py);
    if (!ok)
        return;
    long long y = py[__builtin_ctz(ok)];   /* one row per warp */
    uint64_t a[GM_WARP_SIZE];
    for (int dy = -GM_CONV_R; dy <= GM_CONV_R; dy++) {
        if (y + dy < 0 || y + dy >= x->n)
            continue;
        for (int dx = -GM_CONV_R; dx <= GM_CONV_R; dx++) {
            uint32_t in = 0;
            for (int l = 0; l < GM_WARP_SIZE; l++)
                if ((ok >> l & 1u) && px[l] + dx >= 0 && px[l] + dx < x->n) {
                    in |= 1u << l;
                    a[l] = GM_TRACE_ARRAY(S_IN) + 4u * (uint64_t)((y + dy) * x->n + px[l] + dx);
                }
            if (!in)
                continue;
            uint64_t tap = 4u * (uint64_t)((dy + GM_CONV_R) * GM_CONV_TAPS + dx + GM_CONV_R);
            if (x->kind == S_GLOBAL)
                gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, GM_TRACE_ARRAY(S_FILT) + tap, 0,
                               in, w->weight);
            else
                gm_tgen_affine(g, GM_SPACE_CONSTANT, GM_OP_LOAD, 4, tap, 0, in, w->weight);
            gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, a, in, w->weight);
        }
    }
    for (int l = 0; l < GM_WARP_SIZE; l++)
        a[l] = GM_TRACE_ARRAY(S_OUT) + 4u * (uint64_t)(py[l] * x->n + px[l]);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, a, ok, w->weight);
}

static void S_shared_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    long long x0 = (long long)w->bid[0] * S_BX - GM_CONV_R;
    long long y0 = (long long)w->bid[1] * S_BY - GM_CONV_R;
    uint64_t a[GM_WARP_SIZE], s[GM_WARP_SIZE];
    /* the tile loop: iteration q at word i = t + 256 q while i < 532 (at most
     * 3 trips, all in the compiled remainder loop) */
    for (long long q = 0;; q++) {
        uint32_t live = 0, in = 0;
        for (int l = 0; l < GM_WARP_SIZE; l++) {
            long long i = (long long)w->tid[1][l] * S_BX + w->tid[0][l] + q * S_BX * S_BY;
            if (!(w->mask >> l & 1u) || i >= S_TH * S_TW)
                continue;
            live |= 1u << l;
            s[l] = 4u * (uint64_t)i;
            long long gx = x0 + i % S_TW, gy = y0 + i / S_TW;
            if (gx >= 0 && gx < x->n && gy >= 0 && gy < x->n) {
                in |= 1u << l;
                a[l] = GM_TRACE_ARRAY(S_IN) + 4u * (uint64_t)(gy * x->n + gx);
            }
        }
        if (!live)
            break;
        if (in)
            gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, a, in, w->weight);
        gm_tgen_access(g, GM_SPACE_SHARED, GM_OP_STORE, 4, s, live, w->weight);
    }
    long long px[GM_WARP_SIZE], py[GM_WARP_SIZE];
    uint32_t ok = S_pixels(x, w, px, py);
    if (!ok)
        return;
    for (int dy = 0; dy < GM_CONV_TAPS; dy++)
        for (int dx = 0; dx < GM_CONV_TAPS; dx++) {
            for (int l = 0; l < GM_WARP_SIZE; l++)
                s[l] = 4u * (uint64_t)((w->tid[1][l] + dy) * S_TW + w->tid[0][l] + dx);
            gm_tgen_access(g, GM_SPACE_SHARED, GM_OP_LOAD, 4, s, ok, w->weight);
        }
    for (int l = 0; l < GM_WARP_SIZE; l++)
        a[l] = GM_TRACE_ARRAY(S_OUT) + 4u * (uint64_t)(py[l] * x->n + px[l]);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, a, ok, w->weight);
}

gm_status conv_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    const char *v = c->variant->name;
    S_ctx x = {gm_case_param(c, "n", 0),
               c->variant->kind == GM_CONV_SHARED     ? S_SHARED
               : c->variant->kind == GM_CONV_CONSTANT ? S_CONSTANT
                                            : S_GLOBAL};
    if (x.n < 1)
        return gm_fail(err, GM_ERR_VALUE, "conv/%s: n=%lld", v, x.n);
    /* A block step moves everything by 128 bytes (x) or 8 rows (y); the
     * first and last two blocks of each dimension may reach the border (two:
     * a partial last block can leave the one before it within 3 pixels). */
    gm_tfold f = {{gm_tperiod(4 * S_BX), gm_tperiod(4 * S_BY * x.n), 0}, {2, 2, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid(&g, c, &f, x.kind == S_SHARED ? S_shared_warp : S_direct_warp, &x,
                                err);
    if (x.kind == S_SHARED)
        gm_trace_exclude(t, GM_SPACE_CONSTANT,
                         "the 49 coefficients have fixed indices after unrolling and are "
                         "expected to be operands of the multiply-adds, not load instructions");
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
