/* grid3d.c — experiment 6, the memory order of a 3-D grid: the CPU side of its variants.
 *
 * The experiment as data: its description (gm_exp_grid3d: the question, the
 * contrast that answers it, the sweep) and its rows (gm_grid3d_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "grid3d.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_grid3d = {
    .id = "grid3d",
    .title = "3D grid walked along z: z-major vs x-major storage",
    .summary =
        "A second difference along z over an n^3 grid, a warp working on 32 consecutive z at "
        "one (x, y). Stored z-major, those 32 values are 128 contiguous bytes; stored x-major "
        "they are n^2 floats apart and every thread's load is a separate line. The threads and "
        "the arithmetic are identical; only the storage order differs.",
    .source =
        "an untitled article on memory coalescing (weather-model grid walked along z: "
        "up to 32x from the layout)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "xmajor",
    .question =
        "Walking a 3D grid along z, how much does x-major storage cost against z-major?",
    .contrast_a = "xmajor",
    .contrast_b = "zmajor",
    .contrast_at = NULL,
    .contrast_counter = "ld_spr",
};

/* 128^3 = 8 MiB (fits in L2), 256^3 = 64 MiB per grid (x-major at 384^3 takes
 * 2.4 ms a launch on an H100 and shows nothing 256 does not). */
#define S_G3D_N {"n", GM_VALUES(128, 256), GM_VALUES(128)}

const gm_variant gm_grid3d_rows[] = {
    {.experiment = &gm_exp_grid3d,
     .name = "zmajor",
     .layout = "(x,y,z) at z + n(y + n x); a warp takes 32 consecutive z: 128 contiguous bytes",
     .params = {S_G3D_N},
     GM_FNS(grid3d),
     .kind = GM_GRID3D_ZMAJOR,
     .launch = GM_GPU(grid3d_launch_zmajor),
     .trace = grid3d_trace,
     .idempotent = true},
    {.experiment = &gm_exp_grid3d,
     .name = "xmajor",
     .layout = "(x,y,z) at x + n(y + n z); a warp takes 32 consecutive z: loads 4n^2 bytes apart",
     .params = {S_G3D_N},
     GM_FNS(grid3d),
     .kind = GM_GRID3D_XMAJOR,
     .launch = GM_GPU(grid3d_launch_xmajor),
     .trace = grid3d_trace,
     .idempotent = true},
};
const size_t gm_grid3d_rows_len = sizeof gm_grid3d_rows / sizeof gm_grid3d_rows[0];

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
