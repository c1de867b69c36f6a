/* grid3d.h — experiment 6, the memory order of a 3-D grid: what its files share.
 *
 *   kernels.cu  the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   grid3d.c    the description and the rows of the suite table, describe and
 *               the CPU reference (plain C, no CUDA)
 *   trace.c     the address trace for the model (plain C)
 *
 * Each row (grid3d.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_GRID3D_H
#define GM_GRID3D_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_GRID3D_ZMAJOR,
    GM_GRID3D_XMAJOR,
};

#define GRID3D_BX 32   /* z */
#define GRID3D_BY 8    /* y */
#define GRID3D_YPT 4   /* y values per thread: a block covers 32 z x 32 y */

/* ---- CPU side: grid3d.c, trace.c --------------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_grid3d;
extern const gm_variant gm_grid3d_rows[];
extern const size_t gm_grid3d_rows_len;

gm_status grid3d_describe(gm_case *c, gm_error *err);
gm_status grid3d_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * 6. grid3d: second difference along z with clamped ends,
 *   out(x,y,z) = (in(x,y,z-1) + in(x,y,z+1)) - 2 in(x,y,z),  z-1 and z+1 clamped
 *   to [0, nz-1], for x in [x0, x1), all y and z.  Element (x,y,z) of either
 *   array is at x*sx + y*sy + z*sz (strides in floats: the layout). */
void gm_ref_grid3d_dzz(const float *in, float *out, size_t nx, size_t ny, size_t nz, size_t sx,
                       size_t sy, size_t sz, size_t x0, size_t x1);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status grid3d_setup(gm_case *c, gm_error *err);
gm_status grid3d_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status grid3d_check(gm_case *c, gm_check *out, gm_error *err);
void grid3d_teardown(gm_case *c);
gm_status grid3d_launch_zmajor(gm_case *c, gm_stream s, gm_error *err);
gm_status grid3d_launch_xmajor(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
