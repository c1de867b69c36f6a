/* banks.c — experiment 10, shared-memory bank conflicts: the CPU side of its variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "banks.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describe ------------------------------------------------------------- */

gm_status banks_describe(gm_case *c, gm_error *err)
{
    long long threads = gm_case_param(c, "threads", 0);
    long long stride = gm_case_param(c, "stride", 1), reps = gm_case_param(c, "reps", 0);
    if (stride < 1 || stride > 32 || reps < 1 || reps > 1 << 20 || reps % GM_BANKS_UNROLL ||
        threads < GM_BANKS_BLOCK || threads % GM_BANKS_BLOCK || threads > 1LL << 28)
        return gm_fail(err, GM_ERR_VALUE,
                       "banks/%s: stride = %lld, reps = %lld, threads = %lld: need stride in "
                       "1..32 (lane 31 x stride must stay inside the staged words), reps a "
                       "multiple of %d up to 2^20, threads a multiple of %d up to 2^28",
                       c->variant->name, stride, reps, threads, GM_BANKS_UNROLL, GM_BANKS_BLOCK);
    long long words = GM_BANKS_WORDS;
    if (c->variant->kind == GM_BANKS_PADDED)
        words += GM_BANKS_WORDS / 32;
    else if (c->variant->kind != GM_BANKS_UNPADDED)
        return gm_fail(err, GM_ERR_VALUE, "banks: unknown variant '%s'", c->variant->name);
    gm_case_set_shape(c, (unsigned)(threads / GM_BANKS_BLOCK), 1, 1, GM_BANKS_BLOCK, 1, 1,
                      4 * words);
    snprintf(c->kernel, sizeof c->kernel, "banks_kernel_%s", c->variant->name);
    c->bytes_read = threads / GM_BANKS_BLOCK * GM_BANKS_WORDS * 4;   /* 32 B per thread */
    c->bytes_written = threads * 4;
    c->flops = threads * reps;   /* one add per shared load */
    snprintf(c->note, sizeof c->note,
             "%lld shared loads of 4 B per thread: %lld MiB of shared-memory traffic against "
             "%lld MiB of global traffic",
             reps, threads * reps * 4 >> 20, (c->bytes_read + c->bytes_written) >> 20);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_banks(const float *in, float *out, long long blocks, int stride, int reps)
{
    gm_ref_banks_range(in, out, stride, reps, 0, (size_t)blocks * GM_BANKS_BLOCK);
}

void gm_ref_banks_range(const float *in, float *out, int stride, int reps, size_t begin,
                        size_t end)
{
    for (size_t t = begin; t < end; ++t) {
        const float *s = in + t / GM_BANKS_BLOCK * GM_BANKS_WORDS;
        int lane = (int)(t % 32);
        float sum = 0.0f;   /* float, in the kernel's order: the result is exact */
        for (int r = 0; r < reps; ++r)
            sum += s[lane * stride + 32 * (r % GM_BANKS_UNROLL)];
        out[t] = sum;
    }
}
