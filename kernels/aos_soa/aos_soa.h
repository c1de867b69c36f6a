/* aos_soa.h — experiment 3, array of structures vs structure of arrays: what its files share.
 *
 *   kernels.cu  the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   aos_soa.c   the description and the rows of the suite table, describe and
 *               the CPU reference (plain C, no CUDA)
 *   trace.c     the address trace for the model (plain C)
 *
 * Each row (aos_soa.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_AOS_SOA_H
#define GM_AOS_SOA_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_AOS_SOA_AOS,
    GM_AOS_SOA_SOA,
    GM_AOS_SOA_AOS_PADDED,
};

#define AOS_SOA_BLOCK 256

/* ---- CPU side: aos_soa.c, trace.c -------------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_aos_soa;
extern const gm_variant gm_aos_soa_rows[];
extern const size_t gm_aos_soa_rows_len;

gm_status aos_soa_describe(gm_case *c, gm_error *err);
gm_status aos_soa_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * 3. aos_soa: particles as planes (structure of arrays) in this field order. */
enum { GM_P_X, GM_P_Y, GM_P_Z, GM_P_VX, GM_P_VY, GM_P_VZ, GM_P_M, GM_P_FIELDS };
/* e[i] = (0.5 m) * ((vx*vx + vy*vy) + vz*vz), for i in [i0, i1): reads 4 fields. */
void gm_ref_particles_energy(const float *const p[GM_P_FIELDS], float *e, size_t i0, size_t i1);
/* One explicit step with linear drag, reading all 7 fields and writing all 7:
 * x' = x + vx*dt (y, z alike); v' = v * (1 - (drag*dt)/m); m' = m. */
void gm_ref_particles_step(const float *const p[GM_P_FIELDS], float *const q[GM_P_FIELDS],
                           float dt, float drag, size_t i0, size_t i1);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status aos_soa_setup(gm_case *c, gm_error *err);
gm_status aos_soa_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status aos_soa_check(gm_case *c, gm_check *out, gm_error *err);
void aos_soa_teardown(gm_case *c);
gm_status aos_soa_launch_aos(gm_case *c, gm_stream s, gm_error *err);
gm_status aos_soa_launch_soa(gm_case *c, gm_stream s, gm_error *err);
gm_status aos_soa_launch_aos_padded(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
