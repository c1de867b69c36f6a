/* coalescing.c — experiment 1, coalesced vs strided reads: the CPU side of its variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "coalescing.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describe ------------------------------------------------------------- */

gm_status coalescing_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0), s = gm_case_param(c, "stride", 1);
    int w = gm_coalescing_width(c);
    if (n <= 0 || n > (1ll << 31) || s <= 0 || s > 65535 || n % (s * w) != 0)
        return gm_fail(err, GM_ERR_VALUE,
                       "coalescing/%s: n=%lld, stride=%lld: need 0 < n <= 2^31, "
                       "0 < stride <= 65535, n a multiple of stride*%d",
                       c->variant->name, n, s, w);
    if (w > 1 && s != 1)
        return gm_fail(err, GM_ERR_VALUE, "coalescing/%s: stride must be 1 (got %lld)",
                       c->variant->name, s);
    snprintf(c->kernel, sizeof c->kernel, "coalescing_kernel_%s", c->variant->name);
    /* One thread per load: N/s rows x s columns, or N/w vector loads. */
    long long threads = (w == 1) ? n / s : n / w;
    c->launch.grid[0] = (unsigned)((threads + COALESCING_BLOCK - 1) / COALESCING_BLOCK);
    c->launch.grid[1] = (w == 1) ? (unsigned)s : 1;
    c->launch.grid[2] = 1;
    c->launch.block[0] = COALESCING_BLOCK;
    c->launch.block[1] = c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* Each input read once, each output written once: 4N bytes each way. */
    c->bytes_read = 4 * n;
    c->bytes_written = 4 * n;
    c->flops = -1;
    if (w == 1 && s > 1)
        snprintf(c->note, sizeof c->note,
                 "a warp's loads span %lld bytes: %lld sectors of 32 B for 128 useful bytes",
                 31 * s * 4 + 4, s >= 8 ? 32 : 4 * s);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

/* Column-major reading of an (n/s x s) row-major view: consecutive i walk down
 * a column, s elements apart; after n/s of them the next column starts. */
size_t gm_ref_coalescing_index(size_t i, size_t n, size_t stride)
{
    size_t m = n / stride;
    return (i % m) * stride + i / m;
}

/* i = c*m + r reads in[r*s + c]: one division per column, not per element. */
void gm_ref_coalescing_range(const float *in, float *out, size_t n, size_t stride, size_t i0,
                             size_t i1)
{
    size_t m = n / stride;
    size_t i = i0;
    while (i < i1) {
        size_t c = i / m, r = i % m;
        size_t stop = (c + 1) * m < i1 ? (c + 1) * m : i1;
        for (; i < stop; i++, r++)
            out[i] = in[r * stride + c];
    }
}

void gm_ref_coalescing(const float *in, float *out, size_t n, size_t stride)
{
    gm_ref_coalescing_range(in, out, n, stride, 0, n);
}
