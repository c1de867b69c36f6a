/* aos_soa.c — experiment 3, array of structures vs structure of arrays: the CPU side of its
 * variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "aos_soa.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describe ------------------------------------------------------------- */

gm_status aos_soa_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0), fields = gm_case_param(c, "fields", 7);
    if (n <= 0 || n > (1ll << 28) || (fields != 4 && fields != 7))
        return gm_fail(err, GM_ERR_VALUE,
                       "aos_soa/%s: n=%lld, fields=%lld: need 0 < n <= 2^28 and fields 4 or 7",
                       c->variant->name, n, fields);
    snprintf(c->kernel, sizeof c->kernel, "aos_soa_kernel_%s_%s", c->variant->name,
             fields == 4 ? "energy" : "step");
    c->launch.grid[0] = (unsigned)((n + AOS_SOA_BLOCK - 1) / AOS_SOA_BLOCK);
    c->launch.grid[1] = c->launch.grid[2] = 1;
    c->launch.block[0] = AOS_SOA_BLOCK;
    c->launch.block[1] = c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    if (fields == 4) {
        /* vx, vy, vz, m read once (16 B); e written once (4 B).
         * 2 muls + 2 adds for v^2, 2 muls for (0.5 m) v^2. */
        c->bytes_read = 16 * n;
        c->bytes_written = 4 * n;
        c->flops = 6 * n;
    } else {
        /* All 7 fields read once and written once (28 B each way); the pad of
         * aos_padded is not data.  3 mul+add, 1 mul + 1 div + 1 sub, 3 muls. */
        c->bytes_read = 28 * n;
        c->bytes_written = 28 * n;
        c->flops = 12 * n;
    }
    int layout = c->variant->kind;
    if (layout == GM_AOS_SOA_AOS)
        snprintf(c->note, sizeof c->note,
                 "a warp's load of one field spans 32 x 28 = 896 bytes: 28 sectors "
                 "requested for 128 useful bytes");
    else if (layout == GM_AOS_SOA_AOS_PADDED && fields == 4)
        snprintf(c->note, sizeof c->note,
                 "16 of every 32 bytes are needed, but each 32-byte structure is one "
                 "sector: DRAM moves both halves");
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_particles_energy(const float *const p[GM_P_FIELDS], float *e, size_t i0, size_t i1)
{
    for (size_t i = i0; i < i1; i++) {
        float vx = p[GM_P_VX][i], vy = p[GM_P_VY][i], vz = p[GM_P_VZ][i];
        float v2 = (vx * vx + vy * vy) + vz * vz;
        e[i] = (0.5f * p[GM_P_M][i]) * v2;
    }
}

void gm_ref_particles_step(const float *const p[GM_P_FIELDS], float *const q[GM_P_FIELDS],
                           float dt, float drag, size_t i0, size_t i1)
{
    for (size_t i = i0; i < i1; i++) {
        float f = 1.0f - (drag * dt) / p[GM_P_M][i];
        q[GM_P_X][i] = p[GM_P_X][i] + p[GM_P_VX][i] * dt;
        q[GM_P_Y][i] = p[GM_P_Y][i] + p[GM_P_VY][i] * dt;
        q[GM_P_Z][i] = p[GM_P_Z][i] + p[GM_P_VZ][i] * dt;
        q[GM_P_VX][i] = p[GM_P_VX][i] * f;
        q[GM_P_VY][i] = p[GM_P_VY][i] * f;
        q[GM_P_VZ][i] = p[GM_P_VZ][i] * f;
        q[GM_P_M][i] = p[GM_P_M][i];
    }
}
