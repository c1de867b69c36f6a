/* matmul.h — experiment 8, matrix multiplication tiles in shared memory: what its files share.
 *
 *   kernels.cu  the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   matmul.c    the description and the rows of the suite table, describe and
 *               the CPU reference (plain C, no CUDA)
 *   trace.c     the address trace for the model (plain C)
 *
 * Each row (matmul.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_MATMUL_H
#define GM_MATMUL_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_MATMUL_NAIVE,
    GM_MATMUL_TILED,
    GM_MATMUL_CONSTANT,
    GM_MATMUL_TILED_PADDED,
    GM_MATMUL_TILED_KMAJOR,
    GM_MATMUL_TILED_KMAJOR_PADDED,
    GM_MATMUL_DOUBLE_BUFFER,
};

/* ---- CPU side: matmul.c, trace.c --------------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_matmul;
extern const gm_variant gm_matmul_rows[];
extern const size_t gm_matmul_rows_len;

gm_status matmul_describe(gm_case *c, gm_error *err);
gm_status matmul_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * ---- 8: C = A B, n x n, row-major; sums in double, rounded once --------- */
void gm_ref_matmul(const float *a, const float *b, float *c, int n);
/* Elements [begin, end) of C (element i*n + j) from A and bt = B transposed
 * (bt[j*n + k] = B[k][j], so both operands are read contiguously). */
void gm_ref_matmul_bt_range(const float *a, const float *bt, float *c, int n, size_t begin,
                            size_t end);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status matmul_setup(gm_case *c, gm_error *err);
gm_status matmul_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status matmul_check(gm_case *c, gm_check *out, gm_error *err);
void matmul_teardown(gm_case *c);
gm_status matmul_launch_naive(gm_case *c, gm_stream s, gm_error *err);
gm_status matmul_launch_tiled(gm_case *c, gm_stream s, gm_error *err);
gm_status matmul_launch_constant(gm_case *c, gm_stream s, gm_error *err);
gm_status matmul_launch_tiled_padded(gm_case *c, gm_stream s, gm_error *err);
gm_status matmul_launch_tiled_kmajor(gm_case *c, gm_stream s, gm_error *err);
gm_status matmul_launch_tiled_kmajor_padded(gm_case *c, gm_stream s, gm_error *err);
gm_status matmul_launch_double_buffer(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
