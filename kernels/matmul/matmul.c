/* matmul.c — experiment 8, matrix multiplication tiles in shared memory: the CPU side of its
 * variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "matmul.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describe ------------------------------------------------------------- */

gm_status matmul_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0), bs = gm_case_param(c, "block", 16);
    if (n < 1 || n > 8192 || (bs != 4 && bs != 8 && bs != 16 && bs != 32))
        return gm_fail(err, GM_ERR_VALUE,
                       "matmul/%s: n = %lld, block = %lld: need n in 1..8192 and block 4, 8, 16 "
                       "or 32",
                       c->variant->name, n, bs);
    /* shared arrays per block, floats: two T x T tiles, +1 column when padded,
     * two of each when double-buffered */
    long long t = bs, words = 0;
    if (c->variant->kind == GM_MATMUL_TILED || c->variant->kind == GM_MATMUL_TILED_KMAJOR)
        words = 2 * t * t;
    else if (c->variant->kind == GM_MATMUL_TILED_PADDED ||
             c->variant->kind == GM_MATMUL_TILED_KMAJOR_PADDED)
        words = 2 * t * (t + 1);
    else if (c->variant->kind == GM_MATMUL_DOUBLE_BUFFER)
        words = 4 * t * t;
    else if (c->variant->kind != GM_MATMUL_NAIVE && c->variant->kind != GM_MATMUL_CONSTANT)
        return gm_fail(err, GM_ERR_VALUE, "matmul: unknown variant '%s'", c->variant->name);
    unsigned g = (unsigned)((n + bs - 1) / bs);
    gm_case_set_shape(c, g, g, 1, (unsigned)bs, (unsigned)bs, 1, 4 * words);
    if (words)
        snprintf(c->kernel, sizeof c->kernel, "matmul_kernel_%s<%lld>", c->variant->name, bs);
    else
        snprintf(c->kernel, sizeof c->kernel, "matmul_kernel_%s", c->variant->name);
    c->bytes_read = 2 * 4 * n * n;    /* A and B once */
    c->bytes_written = 4 * n * n;     /* C once */
    c->flops = 2 * n * n * n;
    if (c->variant->kind == GM_MATMUL_CONSTANT)
        snprintf(c->note, sizeof c->note,
                 "B (%lld bytes of the 65536 constant memory holds) is copied into __constant__ "
                 "memory by reset, outside the timing; a warp reads %lld different words of it "
                 "per step",
                 4 * n * n, bs);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_matmul(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k)
                s += (double)a[(size_t)i * n + k] * b[(size_t)k * n + j];
            c[(size_t)i * n + j] = (float)s;
        }
}

void gm_ref_matmul_bt_range(const float *a, const float *bt, float *c, int n, size_t begin,
                            size_t end)
{
    for (size_t e = begin; e < end; ++e) {
        const float *ra = a + e / (size_t)n * n, *rb = bt + e % (size_t)n * n;
        double s = 0.0;
        for (int k = 0; k < n; ++k)
            s += (double)ra[k] * rb[k];
        c[e] = (float)s;
    }
}
