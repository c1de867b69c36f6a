/* ref_b.h — CPU references for experiments 8-14 of the suite.
 *
 * Plain C11, no CUDA: the GPU side (kernels/exp_*.cu) checks its output
 * against these, and tests/test_refs_b.c checks these against small
 * hand-worked cases on machines with no GPU and no toolkit.
 *
 *   ref_b_dense.c    8 matrix multiplication, 9 transpose, 10 bank-conflict sums,
 *                    12 7x7 convolution, 13 semi-Lagrangian advection
 *   ref_b_spmv.c     11 sparse matrix generator, CSR / ELLPACK / JDS builders, SpMV
 *   ref_b_chain.c    14 chained matrix multiplication by dynamic programming
 *
 * Every function writes into buffers the caller owns; the few that need
 * scratch memory return GM_ERR_NOMEM when they cannot get it.  Random data
 * comes from splitmix64 seeded by the caller, so a case is the same on every
 * machine and every run.
 */
#ifndef GM_REF_B_H
#define GM_REF_B_H

#include "../core/gm_error.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GM_HD __host__ __device__
#else
#define GM_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64: one step of the generator (Steele, Lea and Flood, 2014). */
uint64_t gm_ref_rand(uint64_t *state);
/* Uniform float in [lo, hi) from the generator. */
float gm_ref_uniform(uint64_t *state, float lo, float hi);

/* Large cases compute their references on many host threads (the suite's
 * gm_parallel_for), so the dense references come in a _range form that
 * computes output elements [begin, end) only; the plain form does them all. */

/* ---- 8: C = A B, n x n, row-major; sums in double, rounded once --------- */
void gm_ref_matmul(const float *a, const float *b, float *c, int n);
/* Elements [begin, end) of C (element i*n + j) from A and bt = B transposed
 * (bt[j*n + k] = B[k][j], so both operands are read contiguously). */
void gm_ref_matmul_bt_range(const float *a, const float *bt, float *c, int n, size_t begin,
                            size_t end);

/* ---- 9: out (cols x rows) = transpose of in (rows x cols), row-major ---- */
void gm_ref_transpose(const float *in, float *out, int rows, int cols);
/* Output elements [begin, end) (element q*rows + r = in[r][q]). */
void gm_ref_transpose_range(const float *in, float *out, int rows, int cols, size_t begin,
                            size_t end);

/* ---- 10: the bank-conflict kernel's sums, in the kernel's order ---------
 * Blocks of GM_BANKS_BLOCK threads; block b stages in[b*GM_BANKS_WORDS ..]
 * (GM_BANKS_WORDS words) in shared memory; thread t of the block (lane =
 * t % 32) then adds, for r = 0..reps-1, the staged word lane*stride +
 * 32*(r % GM_BANKS_UNROLL) (a float sum in that order) and writes it to
 * out[b*GM_BANKS_BLOCK + t].  Stepping by whole 32-word rows keeps every
 * lane on its bank, so the conflict degree is that of lane*stride, and lets
 * the kernel address each step with a constant offset.  Padding moves words
 * in shared memory, not the values read, so one reference serves both
 * layouts.  reps is a multiple of GM_BANKS_UNROLL; in has
 * blocks*GM_BANKS_WORDS floats, out blocks*GM_BANKS_BLOCK; the _range form
 * computes out[begin..end). */
#define GM_BANKS_BLOCK 256
#define GM_BANKS_UNROLL 32
#define GM_BANKS_WORDS 2048   /* lane 31 x stride 32 = 992, + 31 rows of 32 = 1984 < 2048 */
void gm_ref_banks(const float *in, float *out, long long blocks, int stride, int reps);
void gm_ref_banks_range(const float *in, float *out, int stride, int reps, size_t begin,
                        size_t end);

/* ---- 11: sparse matrices ------------------------------------------------- */

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

/* Range forms, for many host threads (exp_spmv.cu), giving exactly what the
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

/* ---- 12: 7x7 convolution, zero outside the image ------------------------- */
#define GM_CONV_R 3                      /* radius: 7 = 2*3 + 1 taps per axis */
#define GM_CONV_TAPS (2 * GM_CONV_R + 1)
void gm_ref_conv7(const float *in, float *out, int w, int h, const float *filt /* 49 */);
/* Output pixels [begin, end) (pixel y*w + x). */
void gm_ref_conv7_range(const float *in, float *out, int w, int h, const float *filt,
                        size_t begin, size_t end);

/* ---- 13: semi-Lagrangian advection --------------------------------------
 * out(x,y) = q sampled at the departure point (x - dt*u(x,y), y - dt*v(x,y)),
 * bilinearly, with indices clamped to the image: exactly what a texture with
 * linear filtering, clamp addressing and unnormalised coordinates returns for
 * coordinate (px + 0.5, py + 0.5), up to its 8-bit fixed-point weights. */
void gm_ref_advect(const float *q, const float *u, const float *v, float *out, int w, int h,
                   float dt);
/* Output cells [begin, end) (cell y*w + x). */
void gm_ref_advect_range(const float *q, const float *u, const float *v, float *out, int w,
                         int h, float dt, size_t begin, size_t end);

/* ---- 14: chained matrix multiplication ----------------------------------
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

#ifdef __cplusplus
}
#endif

#endif
