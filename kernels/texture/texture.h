/* texture.h — experiment 13, semi-Lagrangian advection through global, read-only and texture
 * loads: what its files share.
 *
 *   kernels.cu  the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   texture.c   the description and the rows of the suite table, describe and
 *               the CPU reference (plain C, no CUDA)
 *   trace.c     the address trace for the model (plain C)
 *
 * Each row (texture.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_TEXTURE_H
#define GM_TEXTURE_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_TEXTURE_GLOBAL,
    GM_TEXTURE_READONLY,
    GM_TEXTURE_TEXTURE,
};

#define ADV_BX 32
#define ADV_BY 8
#define ADV_CELLS 2   /* cells per thread, ADV_BY rows apart */

/* ---- CPU side: texture.c, trace.c -------------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_texture;
extern const gm_variant gm_texture_rows[];
extern const size_t gm_texture_rows_len;

gm_status texture_describe(gm_case *c, gm_error *err);
gm_status texture_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * ---- 13: semi-Lagrangian advection --------------------------------------
 * out(x,y) = q sampled at the departure point (x - dt*u(x,y), y - dt*v(x,y)),
 * bilinearly, with indices clamped to the image: exactly what a texture with
 * linear filtering, clamp addressing and unnormalised coordinates returns for
 * coordinate (px + 0.5, py + 0.5), up to its 8-bit fixed-point weights. */
void gm_ref_advect(const float *q, const float *u, const float *v, float *out, int w, int h,
                   float dt);
/* Output cells [begin, end) (cell y*w + x). */
void gm_ref_advect_range(const float *q, const float *u, const float *v, float *out, int w,
                         int h, float dt, size_t begin, size_t end);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status texture_setup(gm_case *c, gm_error *err);
gm_status texture_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status texture_check(gm_case *c, gm_check *out, gm_error *err);
void texture_teardown(gm_case *c);
gm_status texture_launch_global(gm_case *c, gm_stream s, gm_error *err);
gm_status texture_launch_readonly(gm_case *c, gm_stream s, gm_error *err);
gm_status texture_launch_texture(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
