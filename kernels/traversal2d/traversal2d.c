/* traversal2d.c — experiment 5, row vs column mapping of a 2-D traversal: the CPU side of its
 * variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "traversal2d.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describe ------------------------------------------------------------- */

gm_status traversal2d_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n < 32 || n > 32768 || n % 32 != 0)
        return gm_fail(err, GM_ERR_VALUE, "traversal2d/%s: n=%lld: need a multiple of 32 in "
                       "[32, 32768]", c->variant->name, n);
    snprintf(c->kernel, sizeof c->kernel, "traversal2d_kernel_%s", c->variant->name);
    /* The same grid for both: x covers n in 32s, y covers n in 8s. */
    c->launch.grid[0] = (unsigned)(n / TRAVERSAL2D_BX);
    c->launch.grid[1] = (unsigned)((n + TRAVERSAL2D_BY - 1) / TRAVERSAL2D_BY);
    c->launch.grid[2] = 1;
    c->launch.block[0] = TRAVERSAL2D_BX;
    c->launch.block[1] = TRAVERSAL2D_BY;
    c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* a and b read once, c written once: 3 x 4n^2 bytes; one add per element. */
    c->bytes_read = 8 * n * n;
    c->bytes_written = 4 * n * n;
    c->flops = n * n;
    if (c->variant->kind == GM_TRAVERSAL2D_COL_MAPPING)
        snprintf(c->note, sizeof c->note,
                 "consecutive threads are %lld bytes apart (one row): every warp load "
                 "touches 32 sectors for 128 useful bytes",
                 4 * n);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_add(const float *a, const float *b, float *c, size_t i0, size_t i1)
{
    for (size_t i = i0; i < i1; i++)
        c[i] = a[i] + b[i];
}
