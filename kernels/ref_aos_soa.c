/* ref_aos_soa.c — CPU reference of experiment 3 (exp_aos_soa.cu).  The GPU
 * kernels evaluate the same expressions in the same order with round-to-
 * nearest intrinsics (no fused multiply-add), so results agree to the bit on
 * an IEEE host that does not contract (C11 mode: -ffp-contract=off). */
#include "ref.h"

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
