/* spmv.h — experiment 11, sparse matrix-vector product in CSR, ELLPACK and JDS: what its files
 * share.
 *
 *   kernels.cu  the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   spmv.c      the description and the rows of the suite table, describe and
 *               the CPU reference (plain C, no CUDA)
 *   trace.c     the address trace for the model (plain C)
 *
 * Each row (spmv.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_SPMV_H
#define GM_SPMV_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_SPMV_CSR_THREAD,
    GM_SPMV_CSR_WARP,
    GM_SPMV_ELL,
    GM_SPMV_JDS,
};

#define SPMV_LMIN 4
#define SPMV_LMAX 64
#define SPMV_ALPHA 1.5
#define SPMV_BLOCK 256

/* ---- CPU side: spmv.c, trace.c ----------------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_spmv;
extern const gm_variant gm_spmv_rows[];
extern const size_t gm_spmv_rows_len;

gm_status spmv_describe(gm_case *c, gm_error *err);
gm_status spmv_trace(const gm_case *c, struct gm_trace *t, gm_error *err);
/* The row lengths of the suite's matrix of `rows` rows (seed and tail
 * fixed), on host threads; and their sum, the nonzeros, with the longest row
 * in *longest (the last few sizes are remembered: describe runs often). */
void gm_spmv_lengths(int rows, int *len);
long long gm_spmv_count(int rows, int *longest);

/* The CPU reference.
 *
 * ---- 11: sparse matrices ------------------------------------------------- */

/* Row lengths with a power-law (Pareto) tail: len = floor(lmin * u^(-1/alpha))
 * for u uniform in (0,1], capped at lmax.  Returns the longest row. */
int gm_ref_spmv_row_lengths(int rows, int lmin, int lmax, double alpha, uint64_t seed,
                            int *len);

/* The same lengths, not stored: their sum (the nonzeros) and, in *longest,
 * the longest row.  Lets a case say what it moves before building anything. */
long long gm_ref_spmv_count(int rows, int lmin, int lmax, double alpha, uint64_t seed,
                            int *longest);

/* CSR from row lengths: row_ptr (rows+1) is the prefix sum of len; each row's
 * columns are drawn uniformly in [0, cols) and sorted (repeats allowed: they
 * add, as they would in y = Ax); values uniform in [0.5, 1.5). */
void gm_ref_csr_fill(int rows, int cols, const int *len, uint64_t seed, int *row_ptr,
                     int *col, float *val);

/* ELLPACK, column-major: entry k of row r at [k*rows + r]; rows shorter than
 * width are padded with column 0 and value 0 (they still cost a read). */
void gm_ref_csr_to_ell(int rows, const int *row_ptr, const int *col, const float *val,
                       int width, int *ell_col, float *ell_val);

/* JDS: rows sorted by length, longest first (stable); perm[s] is the original
 * row at sorted position s; jagged diagonal d holds entry d of every sorted row
 * longer than d, contiguously from jd_ptr[d] (jd_ptr has width+1 entries, the
 * last is nnz).  Needs scratch: GM_ERR_NOMEM when malloc fails. */
gm_status gm_ref_csr_to_jds(int rows, const int *row_ptr, const int *col, const float *val,
                            int width, int *perm, int *jd_ptr, int *jd_col, float *jd_val);

/* y = A x in each format; sums in double, rounded once. */
void gm_ref_spmv_csr(int rows, const int *row_ptr, const int *col, const float *val,
                     const float *x, float *y);
void gm_ref_spmv_ell(int rows, int width, const int *ell_col, const float *ell_val,
                     const float *x, float *y);
void gm_ref_spmv_jds(int rows, int width, const int *perm, const int *jd_ptr,
                     const int *jd_col, const float *jd_val, const float *x, float *y);

/* Range forms, for many host threads (kernels.cu), giving exactly what the
 * whole-matrix forms give: row r's length is call r + 1 of the seed's stream,
 * entry e's column and value calls 2e + 1 and 2e + 2, so rows [begin, end)
 * can be drawn on their own.  csr_fill_range needs row_ptr filled (the prefix
 * sum of the lengths). */
void gm_ref_spmv_row_lengths_range(int lmin, int lmax, double alpha, uint64_t seed, int begin,
                                   int end, int *len);
void gm_ref_csr_fill_range(int cols, const int *row_ptr, uint64_t seed, int begin, int end,
                           int *col, float *val);
void gm_ref_spmv_csr_range(const int *row_ptr, const int *col, const float *val,
                           const float *x, float *y, int begin, int end);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status spmv_setup(gm_case *c, gm_error *err);
gm_status spmv_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status spmv_check(gm_case *c, gm_check *out, gm_error *err);
void spmv_teardown(gm_case *c);
gm_status spmv_launch_csr_thread(gm_case *c, gm_stream s, gm_error *err);
gm_status spmv_launch_csr_warp(gm_case *c, gm_stream s, gm_error *err);
gm_status spmv_launch_ell(gm_case *c, gm_stream s, gm_error *err);
gm_status spmv_launch_jds(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
