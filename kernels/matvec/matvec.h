/* matvec.h — experiment 7, matrix-vector product, thread or warp per row: what its files share.
 *
 *   kernels.cu  the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   matvec.c    the description and the rows of the suite table, describe and
 *               the CPU reference (plain C, no CUDA)
 *   trace.c     the address trace for the model (plain C)
 *
 * Each row (matvec.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_MATVEC_H
#define GM_MATVEC_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_MATVEC_THREAD_ROWMAJOR,
    GM_MATVEC_THREAD_COLMAJOR,
    GM_MATVEC_WARP_ROWMAJOR,
    GM_MATVEC_WARP_ROWMAJOR_VEC4,
};

#define MATVEC_THREAD_BLOCK 64    /* thread per row: n/64 blocks, about one per SM at n = 8192 */
#define MATVEC_WARP_BLOCK 256     /* warp per row: 8 rows per block */

/* A warp per row (warp_rowmajor, warp_rowmajor_vec4) or a thread per row. */
static inline bool gm_matvec_warp(const gm_case *c)
{
    return c->variant->kind == GM_MATVEC_WARP_ROWMAJOR ||
           c->variant->kind == GM_MATVEC_WARP_ROWMAJOR_VEC4;
}

/* ---- CPU side: matvec.c, trace.c --------------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_matvec;
extern const gm_variant gm_matvec_rows[];
extern const size_t gm_matvec_rows_len;

gm_status matvec_describe(gm_case *c, gm_error *err);
gm_status matvec_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * 7. matvec: y[i] = sum_k a[i*cols + k] * x[k] for rows i in [r0, r1), summed
 * in double (the suite's matrices hold small integers, for which every order
 * of summation is exact in float too). */
void gm_ref_matvec(const float *a, const float *x, float *y, size_t cols, size_t r0, size_t r1);
/* The small-integer values the matrix and vector hold: a 64-bit random
 * number (gm_rand_at) mapped to an integer in [-4, 4]. */
float gm_ref_small_int(uint64_t r);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status matvec_setup(gm_case *c, gm_error *err);
gm_status matvec_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status matvec_check(gm_case *c, gm_check *out, gm_error *err);
void matvec_teardown(gm_case *c);
gm_status matvec_launch_thread_rowmajor(gm_case *c, gm_stream s, gm_error *err);
gm_status matvec_launch_thread_colmajor(gm_case *c, gm_stream s, gm_error *err);
gm_status matvec_launch_warp_rowmajor(gm_case *c, gm_stream s, gm_error *err);
gm_status matvec_launch_warp_rowmajor_vec4(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
