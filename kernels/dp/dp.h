/* dp.h — experiment 14, chained matrix multiplication by dynamic programming: what its files share.
 *
 *   kernels.cu  the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   dp.c        the description and the rows of the suite table, describe and
 *               the CPU reference (plain C, no CUDA)
 *   trace.c     the address trace for the model (plain C)
 *
 * Each row (dp.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_DP_H
#define GM_DP_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Host and device: the kernels index the table with the function below too. */
#ifdef __CUDACC__
#define GM_HD __host__ __device__
#else
#define GM_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_DP_CPU_SERIAL,
    GM_DP_ROWMAJOR,
    GM_DP_DIAGONAL,
};

#define DP_MAX_GPU_N 1024   /* one thread per cell of the main diagonal, one block */

/* ---- CPU side: dp.c, trace.c ------------------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_dp;
extern const gm_variant gm_dp_rows[];
extern const size_t gm_dp_rows_len;

gm_status dp_describe(gm_case *c, gm_error *err);
gm_status dp_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * ---- 14: chained matrix multiplication ----------------------------------
 * n matrices, matrix i (1-based) is dims[i-1] x dims[i]; m[i][j] is the least
 * number of scalar multiplications for the product of matrices i..j.  Tables
 * are (n+1) x (n+1), row-major, 1-based like the textbook (row 0 and column 0
 * unused); only cells i <= j are defined.  Costs are 64-bit: dims up to 256
 * and n up to 1024 reach 1.7e10, past 32 bits. */

/* The textbook serial algorithm, diagonal by diagonal (the on-host variant). */
void gm_ref_chain_serial(int n, const long long *dims, long long *m);
/* The same table by a different route (chains grown by length, with a
 * transposed copy so both operands of the inner loop are contiguous); the
 * check compares the variants against this one.  GM_ERR_NOMEM without scratch. */
gm_status gm_ref_chain_fast(int n, const long long *dims, long long *m);

/* Cells i <= j of an (n+1)^2 row-major table, packed diagonal by diagonal
 * (the order of gm_chain_diag_index): n(n+1)/2 values. */
void gm_ref_chain_pack(int n, const long long *m, long long *packed);

/* Diagonal layout: diagonal d = j - i holds cells (1, 1+d) .. (n-d, n)
 * contiguously, after the n + (n-1) + ... + (n-d+1) cells of the diagonals
 * before it.  1 <= i <= j <= n. */
GM_HD static inline long long gm_chain_diag_index(int n, int i, int j)
{
    long long d = j - i;
    return d * n - d * (d - 1) / 2 + (i - 1);
}

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ----------------------------- */

gm_status dp_setup(gm_case *c, gm_error *err);
gm_status dp_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status dp_check(gm_case *c, gm_check *out, gm_error *err);
void dp_teardown(gm_case *c);
gm_status dp_launch_cpu_serial(gm_case *c, gm_stream s, gm_error *err);
gm_status dp_launch_rowmajor(gm_case *c, gm_stream s, gm_error *err);
gm_status dp_launch_diagonal(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
