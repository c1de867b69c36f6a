/* coalescing.h — experiment 1, coalesced vs strided reads: what its files share.
 *
 *   kernels.cu    the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   coalescing.c  the description and the rows of the suite table, describe and
 *                 the CPU reference (plain C, no CUDA)
 *   trace.c       the address trace for the model (plain C)
 *
 * Each row (coalescing.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_COALESCING_H
#define GM_COALESCING_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_COALESCING_STRIDE,
    GM_COALESCING_FLOAT2,
    GM_COALESCING_FLOAT4,
};

#define COALESCING_BLOCK 256

/* Floats per load and store: 1 (stride), 2 (float2) or 4 (float4). */
static inline int gm_coalescing_width(const gm_case *c)
{
    return c->variant->kind == GM_COALESCING_FLOAT4 ? 4
         : c->variant->kind == GM_COALESCING_FLOAT2 ? 2 : 1;
}

/* ---- CPU side: coalescing.c, trace.c ----------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_coalescing;
extern const gm_variant gm_coalescing_rows[];
extern const size_t gm_coalescing_rows_len;

gm_status coalescing_describe(gm_case *c, gm_error *err);
gm_status coalescing_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * 1. coalescing: out[i] = in[(i mod (n/s)) * s + i div (n/s)], i < n; n % s == 0.
 * A permutation: every input element is read once.  s = 1 is a copy. */
size_t gm_ref_coalescing_index(size_t i, size_t n, size_t stride);
void gm_ref_coalescing(const float *in, float *out, size_t n, size_t stride);
/* The same for out[i0..i1) only (setup splits the work over host threads). */
void gm_ref_coalescing_range(const float *in, float *out, size_t n, size_t stride, size_t i0,
                             size_t i1);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status coalescing_setup(gm_case *c, gm_error *err);
gm_status coalescing_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status coalescing_check(gm_case *c, gm_check *out, gm_error *err);
void coalescing_teardown(gm_case *c);
gm_status coalescing_launch_stride(gm_case *c, gm_stream s, gm_error *err);
gm_status coalescing_launch_float2(gm_case *c, gm_stream s, gm_error *err);
gm_status coalescing_launch_float4(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
