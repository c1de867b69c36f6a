/* conv.h — experiment 12, 7x7 convolution: global, constant, shared: what its files share.
 *
 *   kernels.cu  the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   conv.c      the description and the rows of the suite table, describe and
 *               the CPU reference (plain C, no CUDA)
 *   trace.c     the address trace for the model (plain C)
 *
 * Each row (conv.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_CONV_H
#define GM_CONV_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_CONV_GLOBAL,
    GM_CONV_CONSTANT,
    GM_CONV_SHARED,
};

#define CONV_BX 32
#define CONV_BY 8
#define CONV_TW (CONV_BX + 2 * GM_CONV_R)   /* 38 */
#define CONV_TH (CONV_BY + 2 * GM_CONV_R)   /* 14 */

/* ---- CPU side: conv.c, trace.c ----------------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_conv;
extern const gm_variant gm_conv_rows[];
extern const size_t gm_conv_rows_len;

gm_status conv_describe(gm_case *c, gm_error *err);
gm_status conv_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * ---- 12: 7x7 convolution, zero outside the image ------------------------- */
#define GM_CONV_R 3                      /* radius: 7 = 2*3 + 1 taps per axis */
#define GM_CONV_TAPS (2 * GM_CONV_R + 1)
void gm_ref_conv7(const float *in, float *out, int w, int h, const float *filt /* 49 */);
/* Output pixels [begin, end) (pixel y*w + x). */
void gm_ref_conv7_range(const float *in, float *out, int w, int h, const float *filt,
                        size_t begin, size_t end);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status conv_setup(gm_case *c, gm_error *err);
gm_status conv_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status conv_check(gm_case *c, gm_check *out, gm_error *err);
void conv_teardown(gm_case *c);
gm_status conv_launch_global(gm_case *c, gm_stream s, gm_error *err);
gm_status conv_launch_constant(gm_case *c, gm_stream s, gm_error *err);
gm_status conv_launch_shared(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
