/* rgb.h — experiment 4, interleaved vs planar colour channels: what its files share.
 *
 *   kernels.cu  the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   rgb.c       the description and the rows of the suite table, describe and
 *               the CPU reference (plain C, no CUDA)
 *   trace.c     the address trace for the model (plain C)
 *
 * Each row (rgb.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_RGB_H
#define GM_RGB_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_RGB_INTERLEAVED,
    GM_RGB_PLANAR,
    GM_RGB_PLANAR_X16,
};

#define RGB_BASE_PIXELS (960ll * 1280ll)   /* the seed's image */

/* Bytes a thread inverts: 16 for planar_x16, else 1. */
static inline int gm_rgb_bytes_per_thread(const gm_case *c)
{
    return c->variant->kind == GM_RGB_PLANAR_X16 ? 16 : 1;
}

static inline bool gm_rgb_planar(const gm_case *c)
{
    return c->variant->kind != GM_RGB_INTERLEAVED;
}

/* ---- CPU side: rgb.c, trace.c ------------------------------------------------------------ */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_rgb;
extern const gm_variant gm_rgb_rows[];
extern const size_t gm_rgb_rows_len;

gm_status rgb_describe(gm_case *c, gm_error *err);
gm_status rgb_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * 4. rgb, in place, pixels [p0, p1): byte r becomes 255 - r.
 * Interleaved: the red byte of pixel i is img[3i].  Planar: the red plane comes
 * first, red byte of pixel i is img[i]; green and blue are never touched. */
void gm_ref_rgb_invert_red_interleaved(unsigned char *img, size_t p0, size_t p1);
void gm_ref_rgb_invert_red_planar(unsigned char *img, size_t p0, size_t p1);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status rgb_setup(gm_case *c, gm_error *err);
gm_status rgb_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status rgb_check(gm_case *c, gm_check *out, gm_error *err);
void rgb_teardown(gm_case *c);
gm_status rgb_launch_interleaved(gm_case *c, gm_stream s, gm_error *err);
gm_status rgb_launch_planar(gm_case *c, gm_stream s, gm_error *err);
gm_status rgb_launch_planar_x16(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
