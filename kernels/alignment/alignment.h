/* alignment.h — experiment 2, a coalesced read shifted off alignment: what its files share.
 *
 *   kernels.cu   the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   alignment.c  the description and the rows of the suite table, describe and
 *                the CPU reference (plain C, no CUDA)
 *   trace.c      the address trace for the model (plain C)
 *
 * Each row (alignment.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_ALIGNMENT_H
#define GM_ALIGNMENT_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_ALIGNMENT_SCALAR,
    GM_ALIGNMENT_FLOAT4,
};

#define ALIGNMENT_BLOCK 256
#define ALIGNMENT_PAD 32   /* floats after the N source floats: offsets up to 128 bytes */

/* Floats per load and store: 1 (scalar) or 4 (float4). */
static inline int gm_alignment_width(const gm_case *c)
{
    return c->variant->kind == GM_ALIGNMENT_FLOAT4 ? 4 : 1;
}

/* ---- CPU side: alignment.c, trace.c ------------------------------------------------------ */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_alignment;
extern const gm_variant gm_alignment_rows[];
extern const size_t gm_alignment_rows_len;

gm_status alignment_describe(gm_case *c, gm_error *err);
gm_status alignment_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * 2. alignment: out[i] = in[k + i], i < n (in holds n + k floats). */
void gm_ref_alignment(const float *in, float *out, size_t n, size_t offset_floats);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status alignment_setup(gm_case *c, gm_error *err);
gm_status alignment_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status alignment_check(gm_case *c, gm_check *out, gm_error *err);
void alignment_teardown(gm_case *c);
gm_status alignment_launch_scalar(gm_case *c, gm_stream s, gm_error *err);
gm_status alignment_launch_float4(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
