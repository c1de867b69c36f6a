/* exp_spmv.cu — experiment 11: y = A x for a sparse float matrix whose row
 * lengths follow a power law, stored four ways.
 *
 * The matrix is the same for every variant: rows x rows, row lengths
 * floor(4 u^(-1/1.5)) capped at 256 (Pareto; mean 10.5 entries, about 1 row in
 * 500 reaches the cap), columns uniform at random, values and x in [0.5, 1.5).
 * Every format reads x through the column indices, scattered whatever the
 * layout; what changes is how the matrix itself is walked.
 *
 * Run: build/tests/gpu/suite_validate --only spmv   (build/gpumem-report collect --only spmv)
 *
 * variants:
 *   csr_thread  CSR, one thread per row: at step k the warp's 32 threads read 32
 *               rows' k-th entries, far apart (uncoalesced); a warp lasts as long
 *               as its longest row
 *   csr_warp    CSR, one warp per row: lanes read consecutive entries of the row
 *               (coalesced), shuffle-reduce; short rows leave lanes idle
 *   ell         ELLPACK, column-major, padded to the longest row: entry k of
 *               consecutive rows is contiguous (coalesced), but every row pays for
 *               the longest one
 *   jds         jagged diagonals: rows sorted by length, entry d of the sorted rows
 *               stored contiguously: coalesced like ELLPACK without the padding;
 *               neighbouring threads have similar lengths (each thread reads its
 *               row's length first, 4 B per row beyond the CSR bytes)
 *
 * Napkin math (rows = 2^18): nnz = 2.76 M; CSR is nnz x 8 B + row pointers = 22 MiB;
 * ELLPACK stores rows x 256 slots x 8 B = 512 MiB, 24x the nonzeros, and reads
 * all of it (~0.2 ms at 3 TB/s against ~10 us for the CSR bytes).  bytes_read
 * counts the matrix once in CSR form (values, column indices, row pointers) plus
 * x once; bytes_written is y: the same for every format, so the
 * effective bandwidth shows what a format wastes.
 *
 * Why no format comes near copy bandwidth (the best measured 18% of it on the
 * H100, bench/results/suite-b-2026-11-22.txt): each gather of x moves a 32-byte
 * sector for a 4-byte value, 2.76 M x 32 B = 88 MB of L2 traffic against the
 * matrix's 22 MiB (x itself, 1 MiB, stays in L2); the whole matrix is ~7 us at
 * copy speed, the scale of a launch and of the longest rows' chains of
 * dependent loads (256 entries); and a thread or warp per row leaves the warp
 * that holds a long row running alone.
 */
#include "exp_b.h"
#include "ref_b.h"

#include <stdlib.h>

#define SPMV_LMIN 4
#define SPMV_LMAX 256
#define SPMV_ALPHA 1.5
#define SPMV_BLOCK 256

/* ---- reference: gm_ref_spmv_csr (ref_b_spmv.c) -------------------------- */

/* ---- kernels ------------------------------------------------------------- */

__global__ void spmv_kernel_csr_thread(int rows, const int *__restrict__ row_ptr,
                                       const int *__restrict__ col, const float *__restrict__ val,
                                       const float *__restrict__ x, float *__restrict__ y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
        s += val[k] * x[col[k]];
    y[r] = s;
}

__global__ void spmv_kernel_csr_warp(int rows, const int *__restrict__ row_ptr,
                                     const int *__restrict__ col, const float *__restrict__ val,
                                     const float *__restrict__ x, float *__restrict__ y)
{
    int r = (int)(((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32);
    int lane = threadIdx.x & 31;
    if (r >= rows)
        return;   /* whole warps leave together: r is uniform across the warp */
    float s = 0.0f;
    for (int k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += 32)
        s += val[k] * x[col[k]];
    for (int off = 16; off > 0; off /= 2)
        s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0)
        y[r] = s;
}

__global__ void spmv_kernel_ell(int rows, int width, const int *__restrict__ ell_col,
                                const float *__restrict__ ell_val, const float *__restrict__ x,
                                float *__restrict__ y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int k = 0; k < width; ++k) {
        size_t at = (size_t)k * rows + r;
        s += ell_val[at] * x[ell_col[at]];
    }
    y[r] = s;
}

/* Each thread knows its row's length up front (jd_len, in sorted order), so
 * the loop has a trip count and its loads can be issued ahead, as in CSR; the
 * diagonal starts jd_ptr[d] are the same word for the whole warp (one
 * broadcast per step). */
__global__ void spmv_kernel_jds(int rows, const int *__restrict__ perm,
                                const int *__restrict__ jd_len, const int *__restrict__ jd_ptr,
                                const int *__restrict__ jd_col, const float *__restrict__ jd_val,
                                const float *__restrict__ x, float *__restrict__ y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;   /* position in the sorted order */
    if (r >= rows)
        return;
    float s = 0.0f;
    int len = jd_len[r];
    for (int d = 0; d < len; ++d) {
        int at = jd_ptr[d] + r;
        s += jd_val[at] * x[jd_col[at]];
    }
    y[perm[r]] = s;
}

/* ---- the matrix, shared by the cases of one size --------------------------- */

static uint64_t S_seed_lengths(long long rows)
{
    return 0x5b1ULL + (uint64_t)rows;
}

/* The CSR host arrays, x and the reference y for one row count: every variant
 * builds its format from the same matrix. */
typedef struct {
    int rows, width;      /* width: the longest row */
    long long nnz;
    int *row_ptr, *col;   /* host CSR */
    float *val;
    float *h_ref;         /* host: expected y */
    float *d_x;           /* device x */
} S_matrix;

static gm_status S_matrix_build(void *obj, void *ctx, gm_error *err)
{
    S_matrix *m = (S_matrix *)obj;
    int rows = m->rows = *(const int *)ctx;
    int *len = (int *)gm_xmalloc((size_t)rows * sizeof(int));
    float *x = (float *)gm_xmalloc((size_t)rows * sizeof(float));
    m->row_ptr = (int *)gm_xmalloc(((size_t)rows + 1) * sizeof(int));
    m->h_ref = (float *)gm_xmalloc((size_t)rows * sizeof(float));
    /* seeds depend on the size only, never on the variant */
    m->width = gm_ref_spmv_row_lengths(rows, SPMV_LMIN, SPMV_LMAX, SPMV_ALPHA,
                                       S_seed_lengths(rows), len);
    m->nnz = 0;
    for (int r = 0; r < rows; ++r)
        m->nnz += len[r];
    m->col = (int *)gm_xmalloc((size_t)m->nnz * sizeof(int));
    m->val = (float *)gm_xmalloc((size_t)m->nnz * sizeof(float));
    gm_ref_csr_fill(rows, rows, len, 0x5b2ULL + (uint64_t)rows, m->row_ptr, m->col, m->val);
    gm_fill_uniform_f32(x, (size_t)rows, 0x5b3ULL + (uint64_t)rows, 0.5f, 1.5f);
    gm_ref_spmv_csr(rows, m->row_ptr, m->col, m->val, x, m->h_ref);
    free(len);
    cudaError_t e = cudaMalloc(&m->d_x, (size_t)rows * sizeof(float));
    if (e == cudaSuccess)
        e = cudaMemcpy(m->d_x, x, (size_t)rows * sizeof(float), cudaMemcpyHostToDevice);
    free(x);
    if (e != cudaSuccess)
        return gm_fail(err, GM_ERR_CUDA, "spmv: x (%d floats): %s (%s)", rows,
                       cudaGetErrorString(e), cudaGetErrorName(e));
    return GM_OK;
}

static void S_matrix_destroy(void *obj)
{
    S_matrix *m = (S_matrix *)obj;
    cudaFree(m->d_x);
    free(m->row_ptr);
    free(m->col);
    free(m->val);
    free(m->h_ref);
}

typedef struct {
    int rows;
    S_matrix *m;
    /* device: the variant's format and y */
    int *d_row_ptr, *d_col, *d_perm, *d_jd_len, *d_jd_ptr;
    float *d_val, *d_y;
} S_state;

static gm_status S_upload(void **dev, const void *host, size_t bytes, gm_error *err)
{
    GM_CUDA(cudaMalloc(dev, bytes));
    GM_CUDA(cudaMemcpy(*dev, host, bytes, cudaMemcpyHostToDevice));
    return GM_OK;
}

/* Build the variant's format from the CSR arrays and upload it. */
static gm_status S_upload_format(gm_case *c, S_state *st, gm_error *err)
{
    const S_matrix *m = st->m;
    int rows = m->rows, width = m->width;
    size_t nnz = (size_t)m->nnz;
    gm_status rc;
    if (gm_b_is(c, "csr_thread") || gm_b_is(c, "csr_warp")) {
        if ((rc = S_upload((void **)&st->d_row_ptr, m->row_ptr, ((size_t)rows + 1) * sizeof(int),
                           err)) != GM_OK ||
            (rc = S_upload((void **)&st->d_col, m->col, nnz * sizeof(int), err)) != GM_OK)
            return rc;
        return S_upload((void **)&st->d_val, m->val, nnz * sizeof(float), err);
    }
    if (gm_b_is(c, "ell")) {
        size_t slots = (size_t)width * rows;
        int *ec = (int *)gm_xmalloc(slots * sizeof(int));
        float *ev = (float *)gm_xmalloc(slots * sizeof(float));
        gm_ref_csr_to_ell(rows, m->row_ptr, m->col, m->val, width, ec, ev);
        rc = S_upload((void **)&st->d_col, ec, slots * sizeof(int), err);
        if (rc == GM_OK)
            rc = S_upload((void **)&st->d_val, ev, slots * sizeof(float), err);
        free(ec);
        free(ev);
        snprintf(c->note, sizeof c->note,
                 "ELLPACK stores %d rows x %d = %zu slots for %lld nonzeros (%.1fx) and reads "
                 "them all, padding included",
                 rows, width, slots, m->nnz, (double)slots / (double)m->nnz);
        return rc;
    }
    /* jds */
    int *perm = (int *)gm_xmalloc((size_t)rows * sizeof(int));
    int *jp = (int *)gm_xmalloc(((size_t)width + 1) * sizeof(int));
    int *jc = (int *)gm_xmalloc(nnz * sizeof(int));
    float *jv = (float *)gm_xmalloc(nnz * sizeof(float));
    rc = gm_ref_csr_to_jds(rows, m->row_ptr, m->col, m->val, width, perm, jp, jc, jv);
    if (rc != GM_OK)
        rc = gm_fail(err, rc, "spmv: out of host memory sorting %d rows for JDS", rows);
    /* the sorted rows' lengths (reusing perm's order) */
    int *len = (int *)gm_xmalloc((size_t)rows * sizeof(int));
    for (int r = 0; r < rows && rc == GM_OK; ++r)
        len[r] = m->row_ptr[perm[r] + 1] - m->row_ptr[perm[r]];
    if (rc == GM_OK)
        rc = S_upload((void **)&st->d_perm, perm, (size_t)rows * sizeof(int), err);
    if (rc == GM_OK)
        rc = S_upload((void **)&st->d_jd_len, len, (size_t)rows * sizeof(int), err);
    if (rc == GM_OK)
        rc = S_upload((void **)&st->d_jd_ptr, jp, ((size_t)width + 1) * sizeof(int), err);
    if (rc == GM_OK)
        rc = S_upload((void **)&st->d_col, jc, nnz * sizeof(int), err);
    if (rc == GM_OK)
        rc = S_upload((void **)&st->d_val, jv, nnz * sizeof(float), err);
    free(perm);
    free(len);
    free(jp);
    free(jc);
    free(jv);
    return rc;
}

extern "C" {

/* ---- launchers ------------------------------------------------------------ */

gm_status spmv_launch_csr_thread(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    spmv_kernel_csr_thread<<<gm_b_grid(c), gm_b_block(c), 0, s>>>(
        st->rows, st->d_row_ptr, st->d_col, st->d_val, st->m->d_x, st->d_y);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status spmv_launch_csr_warp(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    spmv_kernel_csr_warp<<<gm_b_grid(c), gm_b_block(c), 0, s>>>(
        st->rows, st->d_row_ptr, st->d_col, st->d_val, st->m->d_x, st->d_y);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status spmv_launch_ell(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    spmv_kernel_ell<<<gm_b_grid(c), gm_b_block(c), 0, s>>>(st->rows, st->m->width, st->d_col,
                                                           st->d_val, st->m->d_x, st->d_y);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status spmv_launch_jds(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    spmv_kernel_jds<<<gm_b_grid(c), gm_b_block(c), 0, s>>>(st->rows, st->d_perm, st->d_jd_len,
                                                           st->d_jd_ptr, st->d_col, st->d_val,
                                                           st->m->d_x, st->d_y);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- describe / setup / check -------------------------------------------- */

gm_status spmv_describe(gm_case *c, gm_error *err)
{
    long long rows = gm_case_param(c, "rows", 0);
    if (rows < 32 || rows > (1 << 24))
        return gm_fail(err, GM_ERR_VALUE, "spmv/%s: rows = %lld is outside 32..2^24",
                       c->variant->name, rows);
    long long threads;
    if (gm_b_is(c, "csr_warp"))
        threads = rows * 32;
    else if (gm_b_is(c, "csr_thread") || gm_b_is(c, "ell") || gm_b_is(c, "jds"))
        threads = rows;
    else
        return gm_fail(err, GM_ERR_VALUE, "spmv: unknown variant '%s'", c->variant->name);
    gm_b_set_shape(c, dim3((unsigned)((threads + SPMV_BLOCK - 1) / SPMV_BLOCK)), dim3(SPMV_BLOCK),
                   0);
    snprintf(c->kernel, sizeof c->kernel, "spmv_kernel_%s", c->variant->name);
    /* must move: the matrix once in CSR form (value and column index per
     * nonzero, rows+1 row pointers) and x once; y once.  The row lengths are
     * drawn again (no allocation) to count the nonzeros. */
    int longest;
    long long nnz = gm_ref_spmv_count((int)rows, SPMV_LMIN, SPMV_LMAX, SPMV_ALPHA,
                                      S_seed_lengths(rows), &longest);
    c->bytes_read = nnz * 8 + (rows + 1) * 4 + rows * 4;
    c->bytes_written = rows * 4;
    c->flops = 2 * nnz;
    return GM_OK;
}

gm_status spmv_setup(gm_case *c, gm_error *err)
{
    gm_status rc = spmv_describe(c, err);
    if (rc != GM_OK)
        return rc;
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    int rows = st->rows = (int)gm_case_param(c, "rows", 0);
    char key[64];
    snprintf(key, sizeof key, "spmv/%d", rows);
    rc = gm_shared_get(key, sizeof(S_matrix), S_matrix_build, S_matrix_destroy, &rows,
                       (void **)&st->m, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->d_y, (size_t)rows * sizeof(float)));
    if ((rc = S_upload_format(c, st, err)) != GM_OK)
        return rc;
    if (gm_b_is(c, "csr_thread"))
        return gm_b_query_kernel(c, spmv_kernel_csr_thread, err);
    if (gm_b_is(c, "csr_warp"))
        return gm_b_query_kernel(c, spmv_kernel_csr_warp, err);
    if (gm_b_is(c, "ell"))
        return gm_b_query_kernel(c, spmv_kernel_ell, err);
    return gm_b_query_kernel(c, spmv_kernel_jds, err);
}

gm_status spmv_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->d_y, (size_t)st->rows * sizeof(float), s, err);
}

/* CPU reference: gm_ref_spmv_csr (ref_b_spmv.c), in double.  Up to 256
 * positive terms summed in float in another order: relative error below
 * 256 x 2^-24 = 1.5e-5; allow 3e-5. */
gm_status spmv_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->d_y, st->m->h_ref, (size_t)st->rows, 1e-6, 3e-5, out, err);
}

void spmv_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    gm_shared_release(st->m);
    cudaFree(st->d_row_ptr);
    cudaFree(st->d_col);
    cudaFree(st->d_perm);
    cudaFree(st->d_jd_len);
    cudaFree(st->d_jd_ptr);
    cudaFree(st->d_val);
    cudaFree(st->d_y);
    free(st);
    c->state = NULL;
}

} /* extern "C" */
