/* matvec.c — experiment 7, matrix-vector product, thread or warp per row: the CPU side of its
 * variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "matvec.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describe ------------------------------------------------------------- */

gm_status matvec_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n < 64 || n > 32768 || n % 64 != 0)
        return gm_fail(err, GM_ERR_VALUE, "matvec/%s: n=%lld: need a multiple of 64 in [64, 32768]",
                       c->variant->name, n);
    snprintf(c->kernel, sizeof c->kernel, "matvec_kernel_%s", c->variant->name);
    if (gm_matvec_warp(c)) {
        c->launch.grid[0] = (unsigned)(n / (MATVEC_WARP_BLOCK / 32));
        c->launch.block[0] = MATVEC_WARP_BLOCK;
    } else {
        c->launch.grid[0] = (unsigned)(n / MATVEC_THREAD_BLOCK);
        c->launch.block[0] = MATVEC_THREAD_BLOCK;
    }
    c->launch.grid[1] = c->launch.grid[2] = 1;
    c->launch.block[1] = c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* A and x read once, y written once; a multiply and an add per element of A. */
    c->bytes_read = 4 * n * n + 4 * n;
    c->bytes_written = 4 * n;
    c->flops = 2 * n * n;
    if (!gm_matvec_warp(c))
        snprintf(c->note, sizeof c->note,
                 "a thread per row: %lld threads, %lld warps in the whole grid", n, n / 32);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_matvec(const float *a, const float *x, float *y, size_t cols, size_t r0, size_t r1)
{
    for (size_t i = r0; i < r1; i++) {
        const float *row = a + i * cols;
        double s = 0.0;
        for (size_t k = 0; k < cols; k++)
            s += (double)row[k] * (double)x[k];
        y[i] = (float)s;
    }
}

/* |a| <= 4, |x| <= 4: a row of up to 2^20 columns sums to at most 2^24 in
 * magnitude, where every integer is a float. */
float gm_ref_small_int(uint64_t r)
{
    return (float)((int)(r % 9) - 4);
}
