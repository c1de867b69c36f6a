/* banks/trace.c — address trace of experiment 10 (kernels.cu).
 *
 * Blocks of 256 threads.  Staging: thread t loads src[w] and stores it at
 * shared slot(w) for w = t, t + 256, ... < 2048 words (slot(w) = w, padded
 * w + w/32).  Then each thread reads, reps / 32 times over, the 32 words
 * slot(lane * stride) + r * row for r = 0..31 (row = 32, padded 33; volatile
 * loads, 32 ld.volatile.shared per pass in the PTX), and stores one float.
 * Lane l's word is l * stride plus whole rows: bank (l * stride) mod 32
 * unpadded, an s-way conflict for a stride s that is a power of two.
 */
#include "banks.h"
#include "../trace.h"


enum { S_IN, S_OUT };

typedef struct {
    long long stride, reps;
    bool pad;
} S_ctx;

static long long S_slot(const S_ctx *x, long long w)
{
    return x->pad ? w + (w >> 5) : w;
}

static void S_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    long long block = w->bid[0];
    uint64_t a[GM_WARP_SIZE], s[GM_WARP_SIZE];
    for (long long w0 = 0; w0 < GM_BANKS_WORDS; w0 += GM_BANKS_BLOCK) {
        for (int l = 0; l < GM_WARP_SIZE; l++) {
            long long word = w0 + w->tid[0][l];
            a[l] = GM_TRACE_ARRAY(S_IN) + 4u * (uint64_t)(block * GM_BANKS_WORDS + word);
            s[l] = 4u * (uint64_t)S_slot(x, word);
        }
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, a, w->mask, w->weight);
        gm_tgen_access(g, GM_SPACE_SHARED, GM_OP_STORE, 4, s, w->mask, w->weight);
    }
    /* every pass of 32 reads touches the same words: one pass, weighted */
    long long passes = x->reps / GM_BANKS_UNROLL;
    long long reps = gm_tloop(g, passes, 1), row = x->pad ? 33 : 32;
    for (long long p = 0; p < reps; p++)
        for (long long r = 0; r < GM_BANKS_UNROLL; r++) {
            for (int l = 0; l < GM_WARP_SIZE; l++)
                s[l] = 4u * (uint64_t)(S_slot(x, (long long)(w->tid[0][l] & 31) * x->stride) +
                                       r * row);
            gm_tgen_access(g, GM_SPACE_SHARED, GM_OP_LOAD, 4, s, w->mask,
                           gm_tloop_weight(passes, reps, p) * w->weight);
        }
    for (int l = 0; l < GM_WARP_SIZE; l++)
        a[l] = GM_TRACE_ARRAY(S_OUT) + 4u * (uint64_t)(block * GM_BANKS_BLOCK + w->tid[0][l]);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, a, w->mask, w->weight);
}

gm_status banks_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    S_ctx x = {gm_case_param(c, "stride", 1), gm_case_param(c, "reps", 0),
               c->variant->kind == GM_BANKS_PADDED};
    if (x.stride < 1 || x.reps < 1 || x.reps % GM_BANKS_UNROLL != 0)
        return gm_fail(err, GM_ERR_VALUE, "banks/%s: stride=%lld, reps=%lld", c->variant->name,
                       x.stride, x.reps);
    /* Blocks differ only by where they stage from (8 KiB apart) and write to
     * (1 KiB apart): all alike. */
    gm_tfold f = {{1, 0, 0}, {0, 0, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid(&g, c, &f, S_warp, &x, err);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}
