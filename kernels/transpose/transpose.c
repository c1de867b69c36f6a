/* transpose.c — experiment 9, transpose through a shared-memory tile: the CPU side of its variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "transpose.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describe ------------------------------------------------------------- */

gm_status transpose_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n < 1 || n > 32768)
        return gm_fail(err, GM_ERR_VALUE, "transpose/%s: n = %lld is outside 1..32768",
                       c->variant->name, n);
    long long words;
    if (c->variant->kind == GM_TRANSPOSE_NAIVE)
        words = 0;
    else if (c->variant->kind == GM_TRANSPOSE_TILED)
        words = TR_TILE * TR_TILE;
    else if (c->variant->kind == GM_TRANSPOSE_PADDED)
        words = TR_TILE * (TR_TILE + 1);
    else
        return gm_fail(err, GM_ERR_VALUE, "transpose: unknown variant '%s'", c->variant->name);
    unsigned g = (unsigned)((n + TR_TILE - 1) / TR_TILE);
    gm_case_set_shape(c, g, g, 1, TR_TILE, TR_ROWS, 1, 4 * words);
    snprintf(c->kernel, sizeof c->kernel, "transpose_kernel_%s", c->variant->name);
    c->bytes_read = 4 * n * n;
    c->bytes_written = 4 * n * n;
    c->flops = -1;
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_transpose(const float *in, float *out, int rows, int cols)
{
    gm_ref_transpose_range(in, out, rows, cols, 0, (size_t)rows * cols);
}

void gm_ref_transpose_range(const float *in, float *out, int rows, int cols, size_t begin,
                            size_t end)
{
    for (size_t e = begin; e < end; ++e) {
        size_t q = e / (size_t)rows, r = e % (size_t)rows;   /* out is cols x rows */
        out[e] = in[r * cols + q];
    }
}
