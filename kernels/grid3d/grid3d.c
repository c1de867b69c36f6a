/* grid3d.c — experiment 6, the memory order of a 3-D grid: the CPU side of its variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "grid3d.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describe ------------------------------------------------------------- */

gm_status grid3d_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n < 32 || n > 1024 || n % 32 != 0)
        return gm_fail(err, GM_ERR_VALUE,
                       "grid3d/%s: n=%lld: need a multiple of 32 in [32, 1024]",
                       c->variant->name, n);
    snprintf(c->kernel, sizeof c->kernel, "grid3d_kernel_%s", c->variant->name);
    c->launch.grid[0] = (unsigned)(n / GRID3D_BX);
    c->launch.grid[1] = (unsigned)(n / (GRID3D_BY * GRID3D_YPT));
    c->launch.grid[2] = (unsigned)n;
    c->launch.block[0] = GRID3D_BX;
    c->launch.block[1] = GRID3D_BY;
    c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* Input read once, output written once; 2 adds and 1 multiply per point. */
    c->bytes_read = 4 * n * n * n;
    c->bytes_written = 4 * n * n * n;
    c->flops = 3 * n * n * n;
    if (c->variant->kind == GM_GRID3D_XMAJOR)
        snprintf(c->note, sizeof c->note,
                 "consecutive z are %lld bytes apart: a warp load touches 32 lines for 128 "
                 "useful bytes",
                 4 * n * n);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_grid3d_dzz(const float *in, float *out, size_t nx, size_t ny, size_t nz, size_t sx,
                       size_t sy, size_t sz, size_t x0, size_t x1)
{
    (void)nx;
    for (size_t x = x0; x < x1; x++)
        for (size_t y = 0; y < ny; y++) {
            const float *p = in + x * sx + y * sy;
            float *q = out + x * sx + y * sy;
            for (size_t z = 0; z < nz; z++) {
                size_t zm = z > 0 ? z - 1 : 0, zp = z + 1 < nz ? z + 1 : nz - 1;
                q[z * sz] = (p[zm * sz] + p[zp * sz]) - 2.0f * p[z * sz];
            }
        }
}
