/* dp/kernels.cu — experiment 14: the order of a chained matrix multiplication by
 * dynamic programming, on the CPU and on the GPU with the table row-major or
 * stored by diagonals (seed 002).
 *
 * m[i][j] = min over i <= k < j of m[i][k] + m[k+1][j] + dims[i-1] dims[k] dims[j]
 * fills diagonal by diagonal (d = j - i); the cells of a diagonal are
 * independent.  The GPU version gives each cell of a diagonal a thread of one
 * block (so n <= 1024) and puts a barrier between diagonals.  At step s the
 * threads (i = t+1) read m[i][i+s] and m[i+s+1][i+d]: row-major, neighbouring
 * threads are a row plus one apart (n+2 words: a sector per thread); stored by
 * diagonals, both reads are consecutive words of one diagonal (coalesced).
 *
 * Run: build/tests/gpu/suite_validate --only dp   (build/gpumem-report collect --only dp)
 *
 * variants:
 *   cpu_serial  the textbook serial loop on the host (one thread), timed by a host clock
 *   rowmajor    one block, table (n+1) x (n+1) row-major, int64 costs
 *   diagonal    one block, table stored diagonal after diagonal (n(n+1)/2 cells)
 *
 * Napkin math: n^3/6 inner steps (1.8e8 at n = 1024), each two 8-byte table
 * reads and a dims read.  Row-major, a warp's read touches 32 sectors; by
 * diagonals, 8 (256 B).  The table (8.4 MB row-major, 4.2 MB by diagonals at
 * n = 1024) stays in L2.  Costs need 64 bits: with dims up to 256 a chain of
 * 1024 can cost ~1.7e10 multiplications.  The check compares every filled cell
 * with an independent CPU implementation (gm_ref_chain_fast).
 *
 * CPU reference: gm_ref_chain_serial, gm_ref_chain_fast (dp.c);
 * address trace: trace.c.
 */
#include "dp.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

__global__ void dp_kernel_rowmajor(const long long *dims, long long *m, int n)
{
    int t = threadIdx.x;
    size_t w = (size_t)n + 1;
    if (t < n)
        m[(t + 1) * w + t + 1] = 0;
    __syncthreads();
    for (int d = 1; d < n; ++d) {
        if (t < n - d) {
            int i = t + 1, j = i + d;
            const long long *row = m + i * w;       /* m[i][k]   = row[k]          */
            const long long *col = m + j;           /* m[k+1][j] = col[(k+1) * w]  */
            long long pi = dims[i - 1], pj = dims[j];
            long long best = LLONG_MAX;
            for (int k = i; k < j; ++k) {
                long long cost = row[k] + col[(k + 1) * w] + pi * dims[k] * pj;
                best = min(best, cost);
            }
            m[i * w + j] = best;
        }
        __syncthreads();   /* diagonal d is complete before d+1 reads it */
    }
}

/* Offsets of diagonals: off(e) = e n - e(e-1)/2 (gm_chain_diag_index), kept
 * incrementally: off(e+1) = off(e) + n - e. */
__global__ void dp_kernel_diagonal(const long long *dims, long long *m, int n)
{
    int t = threadIdx.x;
    if (t < n)
        m[t] = 0;   /* diagonal 0 starts at 0 */
    __syncthreads();
    for (int d = 1; d < n; ++d) {
        if (t < n - d) {
            int i = t + 1, j = i + d;
            long long pi = dims[i - 1], pj = dims[j];
            /* step s (k = i + s): m[i][i+s] is cell t of diagonal s; m[i+s+1][j] is
             * cell t+s+1 of diagonal d-1-s */
            long long left = 0;                                   /* off(s)       */
            long long right = (long long)(d - 1) * n - (long long)(d - 1) * (d - 2) / 2; /* off(d-1-s) */
            long long best = LLONG_MAX;
            for (int s = 0; s < d; ++s) {
                long long cost = m[left + t] + m[right + t + s + 1] + pi * dims[i + s] * pj;
                best = min(best, cost);
                left += n - s;
                right -= n - (d - 2 - s);   /* off(e-1) = off(e) - (n - (e-1)), e = d-1-s */
            }
            m[gm_chain_diag_index(n, i, j)] = best;
        }
        __syncthreads();
    }
}

/* ---- inputs shared by the cases of one n ---------------------------------- */

typedef struct {
    int n;
    long long *h_dims;   /* host: n+1 dimensions in 2..256 */
    long long *h_ref;    /* host: every filled cell, packed by diagonals */
    long long *d_dims;   /* device copy of dims */
} S_input;

static uint64_t S_seed(int n)
{
    return 0xd9ULL + (uint64_t)n;
}

static gm_status S_input_build(void *obj, void *ctx, gm_error *err)
{
    S_input *in = (S_input *)obj;
    int n = in->n = *(const int *)ctx;
    size_t w = (size_t)n + 1, cells = (size_t)n * (n + 1) / 2;
    in->h_dims = (long long *)gm_xmalloc(w * sizeof(long long));
    in->h_ref = (long long *)gm_xmalloc(cells * sizeof(long long));
    for (size_t i = 0; i < w; ++i)
        in->h_dims[i] = 2 + (long long)(gm_rand_at(S_seed(n), i) % 255);   /* 2..256 */
    long long *table = (long long *)gm_xmalloc(w * w * sizeof(long long));
    gm_status rc = gm_ref_chain_fast(n, in->h_dims, table);
    if (rc == GM_OK)
        gm_ref_chain_pack(n, table, in->h_ref);
    free(table);
    if (rc != GM_OK)
        return gm_fail(err, rc, "dp: out of host memory for the reference (n = %d)", n);
    GM_CUDA(cudaMalloc(&in->d_dims, w * sizeof(long long)));
    GM_CUDA(cudaMemcpy(in->d_dims, in->h_dims, w * sizeof(long long), cudaMemcpyHostToDevice));
    return GM_OK;
}

static void S_input_destroy(void *obj)
{
    S_input *in = (S_input *)obj;
    cudaFree(in->d_dims);
    free(in->h_dims);
    free(in->h_ref);
}

typedef struct {
    int n;
    S_input *in;
    long long *h_table;    /* cpu_serial: its table; rowmajor: the copy back */
    long long *h_packed;   /* the cells, packed by diagonals, for the compare */
    long long *d_m;        /* GPU variants: the table */
    size_t table_cells;    /* cells of the variant's table */
} S_state;

/* ---- launchers ------------------------------------------------------------ */

gm_status dp_launch_cpu_serial(gm_case *c, cudaStream_t s, gm_error *err)
{
    (void)s;
    (void)err;
    S_state *st = (S_state *)c->state;
    gm_ref_chain_serial(st->n, st->in->h_dims, st->h_table);
    return GM_OK;
}

gm_status dp_launch_rowmajor(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    dp_kernel_rowmajor<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->in->d_dims, st->d_m, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status dp_launch_diagonal(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    dp_kernel_diagonal<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->in->d_dims, st->d_m, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

gm_status dp_setup(gm_case *c, gm_error *err)
{
    int n = (int)gm_case_param(c, "n", 0);
    bool host = c->variant->kind == GM_DP_CPU_SERIAL, diag = c->variant->kind == GM_DP_DIAGONAL;
    if (!host && n > DP_MAX_GPU_N)
        return gm_fail(err, GM_ERR_UNSUPPORTED,
                       "n = %d needs %d threads in one block (a thread per cell of a diagonal, "
                       "barriers between diagonals); a block holds at most %d",
                       n, n, DP_MAX_GPU_N);
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->n = n;
    size_t w = (size_t)n + 1, cells = (size_t)n * (n + 1) / 2;
    char key[64];
    snprintf(key, sizeof key, "dp/%d", n);
    gm_status rc = gm_shared_get(key, sizeof(S_input), S_input_build, S_input_destroy, &n,
                                 (void **)&st->in, err);
    if (rc != GM_OK)
        return rc;
    st->h_packed = (long long *)gm_xmalloc(cells * sizeof(long long));
    if (host)   /* the CPU baseline's working set: on huge pages where there are any */
        st->h_table = (long long *)gm_host_table_alloc(w * w * sizeof(long long));
    else if (!diag)
        st->h_table = (long long *)gm_xmalloc(w * w * sizeof(long long));
    if (host)
        return GM_OK;
    st->table_cells = diag ? cells : w * w;
    GM_CUDA(cudaMalloc(&st->d_m, st->table_cells * sizeof(long long)));
    return gm_case_query_kernel(
        c, diag ? (const void *)dp_kernel_diagonal : (const void *)dp_kernel_rowmajor, err);
}

gm_status dp_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    if (c->variant->kind == GM_DP_CPU_SERIAL) {
        memset(st->h_table, 0xff, ((size_t)st->n + 1) * (st->n + 1) * sizeof(long long));
        return GM_OK;
    }
    return gm_poison(st->d_m, st->table_cells * sizeof(long long), s, err);
}

/* CPU reference: gm_ref_chain_fast (dp.c), another route to the same
 * table; every filled cell must match exactly.  Indices in a mismatch are in
 * diagonal order: cell (i, i+d) is at gm_chain_diag_index(n, i, i+d). */
gm_status dp_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    size_t cells = (size_t)st->n * (st->n + 1) / 2;
    if (c->variant->kind == GM_DP_DIAGONAL) {
        GM_CUDA(cudaMemcpy(st->h_packed, st->d_m, cells * sizeof(long long),
                           cudaMemcpyDeviceToHost));
    } else {
        if (c->variant->kind == GM_DP_ROWMAJOR)
            GM_CUDA(cudaMemcpy(st->h_table, st->d_m, st->table_cells * sizeof(long long),
                               cudaMemcpyDeviceToHost));
        gm_ref_chain_pack(st->n, st->h_table, st->h_packed);
    }
    gm_compare_i64(st->h_packed, st->in->h_ref, cells, out);
    return GM_OK;
}

void dp_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    gm_shared_release(st->in);
    if (st->d_m)
        cudaFree(st->d_m);
    free(st->h_table);
    free(st->h_packed);
    free(st);
    c->state = NULL;
}
