/* spmv/kernels.cu — experiment 11: y = A x for a sparse float matrix whose row
 * lengths follow a power law, stored four ways.
 *
 * The matrix is the same for every variant: rows x rows, row lengths
 * floor(4 u^(-1/1.5)) capped at 64 (Pareto; mean 9.5 entries, 1 row in 64 at
 * the cap), columns uniform at random, values and x in [0.5, 1.5).
 * Every format reads x through the column indices, scattered whatever the
 * layout; what changes is how the matrix itself is walked.  The matrix is
 * drawn, and y computed in double for the check, on host threads (the range
 * forms of spmv.c); its CSR is uploaded once per size, and ELLPACK and
 * JDS are built from it on the device.
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
 *   jds         jagged diagonals: rows sorted by length, longest first, entry d
 *               of the sorted rows stored contiguously, each diagonal padded to a
 *               multiple of 4: a thread takes four consecutive sorted rows with
 *               one 16-byte load of columns and one of values per step (a warp:
 *               512 contiguous bytes), streamed (evict-first) so that x keeps its
 *               place in L2; neighbouring threads have similar lengths; y is
 *               stored through perm
 *
 * Napkin math (rows = 2^22): nnz = 40.0 M; CSR is nnz x 8 B + row pointers =
 * 336 MB, with x and y 370 MB to move, ~0.13 ms at the H100's copy bandwidth
 * (2.94 TB/s).  ELLPACK stores rows x 64 slots x 8 B = 2 GiB, 6.7x the
 * nonzeros, and reads all of it.  bytes_read counts the matrix once in CSR
 * form (values, column indices, row pointers) plus x once; bytes_written is
 * y: the same for every format, so the effective bandwidth shows what a
 * format wastes.
 *
 * Why no format comes near copy bandwidth: the hardware, measured on the H100
 * (bench/results/suite-spmv-2026-11-22*.txt).  Each nonzero gathers one
 * 4-byte value of x at a random column; with x (16 MiB) in L2 that is an L2
 * lookup and a 32-byte sector per nonzero, against 8 bytes of matrix.  The L2
 * answers such lookups at about 134-145 G/s for x of 1 to 16 MiB (700+ G/s
 * once x fits in L1, 35-52 G/s once it outgrows L2: the gather benchmark), so
 * a matrix stream with its gathers peaks at 119 G entries/s there, 33 % of
 * copy, where the matrix alone streams at 95 %.  jds at 2^22 rows reaches
 * 888 GB/s, 30.3 % of copy and 91 % of that ceiling, with the L2's tag
 * lookups at 92 % of their peak and DRAM at 35 %; its x gathers hit in L2
 * (77.5 % of its L2 reads hit, the misses being the matrix's own sectors) and
 * not in L1 (1 %); most of its other lookups are y's scattered stores, one a
 * row.  Only locality in the columns would lift it: the same benchmark with x
 * of 16 to 64 KiB, in L1, streams at 94 % of copy.
 *
 * CPU reference: gm_ref_spmv_csr (spmv.c), on host threads;
 * address trace: trace.c.
 */
#include "spmv.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

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

/* One step of a JDS thread: entry d of its four sorted rows, one 16-byte load
 * of columns and one of values (streamed: ld.global.cs, evict-first, so they
 * do not push x out of L2), then four gathers of x. */
__device__ __forceinline__ void spmv_jds_step(int d, int g, const int *__restrict__ jd_quad,
                                              const int4 *__restrict__ jd_col,
                                              const float4 *__restrict__ jd_val,
                                              const float *__restrict__ x, float4 &s)
{
    int at = jd_quad[d] + g;
    int4 c = __ldcs(jd_col + at);
    float4 v = __ldcs(jd_val + at);
    s.x += v.x * __ldg(x + c.x);
    s.y += v.y * __ldg(x + c.y);
    s.z += v.z * __ldg(x + c.z);
    s.w += v.w * __ldg(x + c.w);
}

/* JDS, four consecutive sorted rows per thread (group g: sorted positions
 * 4g .. 4g+3).  Diagonal d starts at quad jd_quad[d] (16-byte units: each
 * diagonal is padded with zeros to a multiple of 4 entries), so entry d of
 * the group is one int4 and one float4, and a warp's load is 512 contiguous
 * bytes.  The group's length glen[g] is that of its first row, the longest
 * (sorted); its shorter rows read zeros there (column 0, value 0).  The loop
 * runs in passes of 4 steps (16 loads in flight per thread), then the
 * remainder; both are kept from further unrolling so the SASS has exactly
 * this shape (trace.c follows it).  y is stored through perm: four
 * scattered 4-byte stores. */
__global__ void spmv_kernel_jds(int groups, const int4 *__restrict__ perm,
                                const int *__restrict__ glen, const int *__restrict__ jd_quad,
                                const int4 *__restrict__ jd_col, const float4 *__restrict__ jd_val,
                                const float *__restrict__ x, float *__restrict__ y)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups)
        return;
    int len = glen[g], d = 0;
    float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 1
    for (; d + 4 <= len; d += 4) {
        spmv_jds_step(d, g, jd_quad, jd_col, jd_val, x, s);
        spmv_jds_step(d + 1, g, jd_quad, jd_col, jd_val, x, s);
        spmv_jds_step(d + 2, g, jd_quad, jd_col, jd_val, x, s);
        spmv_jds_step(d + 3, g, jd_quad, jd_col, jd_val, x, s);
    }
#pragma unroll 1
    for (; d < len; ++d)
        spmv_jds_step(d, g, jd_quad, jd_col, jd_val, x, s);
    int4 p = __ldcs(perm + g);
    y[p.x] = s.x;
    y[p.y] = s.y;
    y[p.z] = s.z;
    y[p.w] = s.w;
}

/* ---- formats built on the device from the CSR (setup only) ---------------- */

/* ELLPACK, column-major, one thread per row: slot k of consecutive rows is
 * contiguous, so the writes coalesce; slots past the row's end get column 0,
 * value 0. */
__global__ void spmv_build_ell(int rows, int width, const int *__restrict__ row_ptr,
                               const int *__restrict__ col, const float *__restrict__ val,
                               int *__restrict__ ell_col, float *__restrict__ ell_val)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    int beg = row_ptr[r], n = row_ptr[r + 1] - beg;
    for (int k = 0; k < width; ++k) {
        size_t at = (size_t)k * rows + r;
        ell_col[at] = k < n ? col[beg + k] : 0;
        ell_val[at] = k < n ? val[beg + k] : 0.0f;
    }
}

/* JDS, one thread per sorted position s (row perm[s]): entry d of the row
 * goes to slot 4 jd_quad[d] + s.  The padding was zeroed before. */
__global__ void spmv_build_jds(int rows, const int *__restrict__ perm,
                               const int *__restrict__ row_ptr, const int *__restrict__ col,
                               const float *__restrict__ val, const int *__restrict__ jd_quad,
                               int *__restrict__ jd_col, float *__restrict__ jd_val)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= rows)
        return;
    int r = perm[s], beg = row_ptr[r], n = row_ptr[r + 1] - beg;
    for (int d = 0; d < n; ++d) {
        size_t at = (size_t)jd_quad[d] * 4 + s;
        jd_col[at] = col[beg + d];
        jd_val[at] = val[beg + d];
    }
}

/* ---- the matrix, shared by the cases of one size -------------------------- */

typedef struct {
    int rows;
    const int *row_ptr;
    uint64_t seed;
    int *col;
    float *val;
    const float *x;
    float *y;
} S_csr_job;

static void S_fill_chunk(void *p, size_t begin, size_t end)
{
    const S_csr_job *j = (const S_csr_job *)p;
    gm_ref_csr_fill_range(j->rows, j->row_ptr, j->seed, (int)begin, (int)end, j->col, j->val);
}

static void S_ref_chunk(void *p, size_t begin, size_t end)
{
    const S_csr_job *j = (const S_csr_job *)p;
    gm_ref_spmv_csr_range(j->row_ptr, j->col, j->val, j->x, j->y, (int)begin, (int)end);
}

/* The matrix of one row count, built once for every variant: its CSR on the
 * device (csr_thread and csr_warp read it, ell and jds are built from it),
 * the row pointers on the host (the JDS order comes from them), x, and the
 * expected y. */
typedef struct {
    int rows, width;      /* width: the longest row */
    long long nnz;
    int *row_ptr;         /* host CSR row pointers */
    int *col;             /* host CSR entries, freed once uploaded */
    float *val, *x;
    float *h_ref;         /* host: expected y */
    int *d_row_ptr, *d_col;
    float *d_val, *d_x;
} S_matrix;

static gm_status S_upload(void **dev, const void *host, size_t bytes, gm_error *err)
{
    GM_CUDA(cudaMalloc(dev, bytes));
    GM_CUDA(cudaMemcpy(*dev, host, bytes, cudaMemcpyHostToDevice));
    return GM_OK;
}

static gm_status S_matrix_build(void *obj, void *ctx, gm_error *err)
{
    S_matrix *m = (S_matrix *)obj;
    int rows = m->rows = *(const int *)ctx;
    /* seeds depend on the size only, never on the variant */
    int *len = (int *)gm_xmalloc((size_t)rows * sizeof(int));
    gm_spmv_lengths(rows, len);
    m->row_ptr = (int *)gm_xmalloc(((size_t)rows + 1) * sizeof(int));
    m->row_ptr[0] = 0;
    m->width = 0;
    for (int r = 0; r < rows; ++r) {
        m->row_ptr[r + 1] = m->row_ptr[r] + len[r];
        m->width = len[r] > m->width ? len[r] : m->width;
    }
    free(len);
    m->nnz = m->row_ptr[rows];
    size_t nnz = (size_t)m->nnz;
    m->col = (int *)gm_xmalloc(nnz * sizeof(int));
    m->val = (float *)gm_xmalloc(nnz * sizeof(float));
    m->x = (float *)gm_xmalloc((size_t)rows * sizeof(float));
    m->h_ref = (float *)gm_xmalloc((size_t)rows * sizeof(float));
    S_csr_job j = {rows, m->row_ptr, 0x5b2ULL + (uint64_t)rows, m->col, m->val, m->x, m->h_ref};
    gm_parallel_for((size_t)rows, (size_t)1 << 12, S_fill_chunk, &j);
    gm_fill_uniform_f32(m->x, (size_t)rows, 0x5b3ULL + (uint64_t)rows, 0.5f, 1.5f);
    gm_parallel_for((size_t)rows, (size_t)1 << 12, S_ref_chunk, &j);
    gm_status rc;
    if ((rc = S_upload((void **)&m->d_x, m->x, (size_t)rows * sizeof(float), err)) != GM_OK ||
        (rc = S_upload((void **)&m->d_row_ptr, m->row_ptr, ((size_t)rows + 1) * sizeof(int),
                       err)) != GM_OK ||
        (rc = S_upload((void **)&m->d_col, m->col, nnz * sizeof(int), err)) != GM_OK ||
        (rc = S_upload((void **)&m->d_val, m->val, nnz * sizeof(float), err)) != GM_OK)
        return rc;
    free(m->col);
    free(m->val);
    free(m->x);
    m->col = NULL;
    m->val = m->x = NULL;
    return GM_OK;
}

static void S_matrix_destroy(void *obj)
{
    S_matrix *m = (S_matrix *)obj;
    cudaFree(m->d_row_ptr);
    cudaFree(m->d_col);
    cudaFree(m->d_val);
    cudaFree(m->d_x);
    free(m->row_ptr);
    free(m->col);
    free(m->val);
    free(m->x);
    free(m->h_ref);
}

typedef struct {
    int rows;
    S_matrix *m;
    /* device: the variant's own format (ell, jds; the CSR variants read the
     * shared one) and y */
    int *d_col, *d_perm, *d_glen, *d_jd_quad;
    float *d_val, *d_y;
} S_state;

/* The JDS order from the CSR row pointers: perm (rows sorted by length,
 * longest first, stable: a counting sort), each group of four sorted rows'
 * length (its first row's), and the start of each diagonal in quads, the
 * diagonals padded to multiples of 4 entries.  Returns the quads in all. */
static long long S_jds_order(const S_matrix *m, int *perm, int *glen, int *jd_quad)
{
    int rows = m->rows, width = m->width;
    const int *rp = m->row_ptr;
    long long *start = (long long *)gm_xcalloc((size_t)width + 2, sizeof(long long));
    for (int r = 0; r < rows; ++r)
        start[width - (rp[r + 1] - rp[r])]++;   /* bucket 0: the longest */
    /* rows longer than d: all rows minus those of length <= d; bucket b holds
     * length width - b */
    long long acc = 0, longer = rows;
    jd_quad[0] = 0;
    for (int d = 0; d < width; ++d) {
        longer -= start[width - d];   /* rows of length d */
        jd_quad[d + 1] = jd_quad[d] + (int)((longer + 3) / 4);
    }
    for (int b = 0; b <= width; ++b) {
        long long n = start[b];
        start[b] = acc;
        acc += n;
    }
    for (int r = 0; r < rows; ++r)
        perm[start[width - (rp[r + 1] - rp[r])]++] = r;
    free(start);
    for (int g = 0; g < rows / 4; ++g)
        glen[g] = rp[perm[4 * g] + 1] - rp[perm[4 * g]];
    return jd_quad[width];
}

/* Build the variant's format on the device from the shared CSR. */
static gm_status S_upload_format(gm_case *c, S_state *st, gm_error *err)
{
    const S_matrix *m = st->m;
    int rows = m->rows, width = m->width;
    unsigned blocks = (unsigned)((rows + SPMV_BLOCK - 1) / SPMV_BLOCK);
    double gathers_mb = (double)m->nnz * 32 / 1e6, matrix_mb = (double)m->nnz * 8 / 1e6;
    if (c->variant->kind == GM_SPMV_CSR_THREAD || c->variant->kind == GM_SPMV_CSR_WARP)
        return GM_OK;
    if (c->variant->kind == GM_SPMV_ELL) {
        size_t slots = (size_t)width * rows;
        GM_CUDA(cudaMalloc((void **)&st->d_col, slots * sizeof(int)));
        GM_CUDA(cudaMalloc((void **)&st->d_val, slots * sizeof(float)));
        spmv_build_ell<<<blocks, SPMV_BLOCK>>>(rows, width, m->d_row_ptr, m->d_col, m->d_val,
                                               st->d_col, st->d_val);
        GM_CUDA_LAUNCHED();
        GM_CUDA(cudaDeviceSynchronize());
        snprintf(c->note, sizeof c->note,
                 "ELLPACK stores %d rows x %d = %zu slots for %lld nonzeros (%.1fx) and reads "
                 "them all, padding included",
                 rows, width, slots, m->nnz, (double)slots / (double)m->nnz);
        return GM_OK;
    }
    /* jds */
    int *perm = (int *)gm_xmalloc((size_t)rows * sizeof(int));
    int *glen = (int *)gm_xmalloc((size_t)rows / 4 * sizeof(int));
    int *jq = (int *)gm_xmalloc(((size_t)width + 1) * sizeof(int));
    size_t quads = (size_t)S_jds_order(m, perm, glen, jq);
    gm_status rc = S_upload((void **)&st->d_perm, perm, (size_t)rows * sizeof(int), err);
    if (rc == GM_OK)
        rc = S_upload((void **)&st->d_glen, glen, (size_t)rows / 4 * sizeof(int), err);
    if (rc == GM_OK)
        rc = S_upload((void **)&st->d_jd_quad, jq, ((size_t)width + 1) * sizeof(int), err);
    free(perm);
    free(glen);
    free(jq);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc((void **)&st->d_col, quads * 4 * sizeof(int)));
    GM_CUDA(cudaMalloc((void **)&st->d_val, quads * 4 * sizeof(float)));
    GM_CUDA(cudaMemset(st->d_col, 0, quads * 4 * sizeof(int)));     /* padding: column 0 */
    GM_CUDA(cudaMemset(st->d_val, 0, quads * 4 * sizeof(float)));   /* value 0.0f */
    spmv_build_jds<<<blocks, SPMV_BLOCK>>>(rows, st->d_perm, m->d_row_ptr, m->d_col, m->d_val,
                                           st->d_jd_quad, st->d_col, st->d_val);
    GM_CUDA_LAUNCHED();
    GM_CUDA(cudaDeviceSynchronize());
    snprintf(c->note, sizeof c->note,
             "every format gathers x once per nonzero: %lld loads of 4 bytes at random "
             "columns, each a 32-byte sector, %.0f MB of sectors against the matrix's %.0f MB; "
             "JDS pads its %d diagonals to multiples of 4 entries (%lld slots in all)",
             m->nnz, gathers_mb, matrix_mb, width, (long long)quads * 4);
    return GM_OK;
}

/* ---- launchers ------------------------------------------------------------ */

gm_status spmv_launch_csr_thread(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    const S_matrix *m = st->m;
    spmv_kernel_csr_thread<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(
        st->rows, m->d_row_ptr, m->d_col, m->d_val, m->d_x, st->d_y);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status spmv_launch_csr_warp(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    const S_matrix *m = st->m;
    spmv_kernel_csr_warp<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(
        st->rows, m->d_row_ptr, m->d_col, m->d_val, m->d_x, st->d_y);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status spmv_launch_ell(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    spmv_kernel_ell<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->rows, st->m->width, st->d_col,
                                                           st->d_val, st->m->d_x, st->d_y);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status spmv_launch_jds(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    spmv_kernel_jds<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(
        st->rows / 4, (const int4 *)st->d_perm, st->d_glen, st->d_jd_quad,
        (const int4 *)st->d_col, (const float4 *)st->d_val, st->m->d_x, st->d_y);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

gm_status spmv_setup(gm_case *c, gm_error *err)
{
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    int rows = st->rows = (int)gm_case_param(c, "rows", 0);
    char key[64];
    snprintf(key, sizeof key, "spmv/%d", rows);
    gm_status rc = gm_shared_get(key, sizeof(S_matrix), S_matrix_build, S_matrix_destroy, &rows,
                                 (void **)&st->m, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->d_y, (size_t)rows * sizeof(float)));
    if ((rc = S_upload_format(c, st, err)) != GM_OK)
        return rc;
    if (c->variant->kind == GM_SPMV_CSR_THREAD)
        return gm_case_query_kernel(c, (const void *)spmv_kernel_csr_thread, err);
    if (c->variant->kind == GM_SPMV_CSR_WARP)
        return gm_case_query_kernel(c, (const void *)spmv_kernel_csr_warp, err);
    if (c->variant->kind == GM_SPMV_ELL)
        return gm_case_query_kernel(c, (const void *)spmv_kernel_ell, err);
    return gm_case_query_kernel(c, (const void *)spmv_kernel_jds, err);
}

gm_status spmv_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->d_y, (size_t)st->rows * sizeof(float), s, err);
}

/* CPU reference: gm_ref_spmv_csr (spmv.c), in double.  Up to 64
 * positive terms summed in float in another order: relative error below
 * 64 x 2^-24 = 3.8e-6; allow 1e-5. */
gm_status spmv_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->d_y, st->m->h_ref, (size_t)st->rows, 1e-6, 1e-5, out, err);
}

void spmv_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    if (st->m)
        gm_shared_release(st->m);
    cudaFree(st->d_col);
    cudaFree(st->d_perm);
    cudaFree(st->d_glen);
    cudaFree(st->d_jd_quad);
    cudaFree(st->d_val);
    cudaFree(st->d_y);
    free(st);
    c->state = NULL;
}
