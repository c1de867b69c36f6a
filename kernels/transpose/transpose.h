/* transpose.h — experiment 9, transpose through a shared-memory tile: what its files share.
 *
 *   kernels.cu   the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   transpose.c  the description and the rows of the suite table, describe and
 *                the CPU reference (plain C, no CUDA)
 *   trace.c      the address trace for the model (plain C)
 *
 * Each row (transpose.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_TRANSPOSE_H
#define GM_TRANSPOSE_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_TRANSPOSE_NAIVE,
    GM_TRANSPOSE_TILED,
    GM_TRANSPOSE_PADDED,
};

#define TR_TILE 32
#define TR_ROWS 8   /* threads per tile column: each moves TR_TILE / TR_ROWS = 4 elements */

/* ---- CPU side: transpose.c, trace.c ------------------------------------------------------ */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_transpose;
extern const gm_variant gm_transpose_rows[];
extern const size_t gm_transpose_rows_len;

gm_status transpose_describe(gm_case *c, gm_error *err);
gm_status transpose_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * ---- 9: out (cols x rows) = transpose of in (rows x cols), row-major ---- */
void gm_ref_transpose(const float *in, float *out, int rows, int cols);
/* Output elements [begin, end) (element q*rows + r = in[r][q]). */
void gm_ref_transpose_range(const float *in, float *out, int rows, int cols, size_t begin,
                            size_t end);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status transpose_setup(gm_case *c, gm_error *err);
gm_status transpose_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status transpose_check(gm_case *c, gm_check *out, gm_error *err);
void transpose_teardown(gm_case *c);
gm_status transpose_launch_naive(gm_case *c, gm_stream s, gm_error *err);
gm_status transpose_launch_tiled(gm_case *c, gm_stream s, gm_error *err);
gm_status transpose_launch_padded(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
