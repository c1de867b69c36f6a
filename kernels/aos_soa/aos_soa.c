/* aos_soa.c — experiment 3, array of structures vs structure of arrays: the CPU side of its
 * variants.
 *
 * The experiment as data: its description (gm_exp_aos_soa: the question, the
 * contrast that answers it, the sweep) and its rows (gm_aos_soa_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "aos_soa.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_aos_soa = {
    .id = "aos_soa",
    .title = "Array of structures vs structure of arrays",
    .summary =
        "Particles with position, velocity and mass (7 floats). A kinetic-energy step reads 4 "
        "of the 7 fields, a drag step reads and writes all of them. Stored as an array of "
        "28-byte structures, one field load of a warp spans 896 bytes and pulls the unused "
        "fields through the memory system; as seven arrays every load is 128 contiguous "
        "bytes. Structures padded to 32 bytes and read with 16-byte loads move whole "
        "structures at full width: as good as arrays when every field is needed, not when "
        "only some are.",
    .source =
        "an untitled article on memory coalescing (AoS vs SoA particles); untitled notes on "
        "cache lines and sectors (SoA as the fix for uncoalesced loads)",
    .sweep_param = NULL,
    .sweep_log2 = false,
    .series_param = "fields",
    .bandwidth_bound = true,
    .baseline_variant = "aos",
    .question =
        "When a step needs only some fields of each particle, do separate arrays (SoA) "
        "beat an array of structures (AoS)?",
    .contrast_a = "aos",
    .contrast_b = "soa",
    .contrast_at = "fields=4",
    .contrast_counter = "ld_spr",
};

/* 2^23 particles: 224 MiB each way for the 7-field step, 160 MiB for energy. */
#define S_AOS_N {"n", GM_VALUES(1 << 23), GM_VALUES(1 << 20)}
#define S_AOS_FIELDS {"fields", GM_VALUES(4, 7), GM_AS_FULL}

const gm_variant gm_aos_soa_rows[] = {
    {.experiment = &gm_exp_aos_soa,
     .name = "aos",
     .layout = "array of 28-byte structures {x,y,z,vx,vy,vz,m}, fields read one float at a time",
     .params = {S_AOS_N, S_AOS_FIELDS},
     GM_FNS(aos_soa),
     .kind = GM_AOS_SOA_AOS,
     .launch = GM_GPU(aos_soa_launch_aos),
     .trace = aos_soa_trace,
     .idempotent = true},
    {.experiment = &gm_exp_aos_soa,
     .name = "soa",
     .layout = "seven float arrays x[], y[], z[], vx[], vy[], vz[], m[]",
     .params = {S_AOS_N, S_AOS_FIELDS},
     GM_FNS(aos_soa),
     .kind = GM_AOS_SOA_SOA,
     .launch = GM_GPU(aos_soa_launch_soa),
     .trace = aos_soa_trace,
     .idempotent = true},
    {.experiment = &gm_exp_aos_soa,
     .name = "aos_padded",
     .layout = "array of 32-byte structures {x,y,z,pad,vx,vy,vz,m} read as two 16-byte loads",
     .params = {S_AOS_N, S_AOS_FIELDS},
     GM_FNS(aos_soa),
     .kind = GM_AOS_SOA_AOS_PADDED,
     .launch = GM_GPU(aos_soa_launch_aos_padded),
     .trace = aos_soa_trace,
     .idempotent = true},
};
const size_t gm_aos_soa_rows_len = sizeof gm_aos_soa_rows / sizeof gm_aos_soa_rows[0];

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
