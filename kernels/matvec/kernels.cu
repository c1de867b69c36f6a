/* matvec/kernels.cu — experiment 7: matrix-vector product y = A x, n x n floats,
 * with A row-major or column-major and a thread or a warp per row.
 *
 * Must move: A once (4n^2 bytes) and x once (4n) read, y once (4n) written;
 * 2n^2 flops.  A and x hold small integers, so every summation order is exact
 * and the check is bit-exact.  (seed 000: the layout must match how threads
 * walk the data; there is no best layout without the mapping.)
 *
 * Run: build/tests/gpu/suite_validate --only matvec   (build/gpumem-report collect --only matvec)
 *
 * variants:
 *   thread_rowmajor     thread i walks row i of row-major A: at step k a warp
 *                       reads A[i..i+31][k], 32 floats 4n bytes apart
 *   thread_colmajor     thread i walks row i of column-major A: at step k a
 *                       warp reads 128 contiguous bytes of column k
 *   warp_rowmajor       warp per row of row-major A, lane l takes columns l,
 *                       l+32, ...: 128 contiguous bytes per load; shuffle sum
 *   warp_rowmajor_vec4  the same with 16-byte loads: 512 contiguous bytes per load
 *
 * Napkin math: 4n^2 bytes of A dominate; n = 8192 is 256 MiB, ~0.09 ms at
 * 3 TB/s.  A thread per row gives only n threads, n/32 warps: at n = 8192
 * about 2 warps per SM of an H100, too few loads in flight to use its
 * bandwidth whatever the layout.
 *
 * CPU reference: gm_ref_matvec (matvec.c); address trace: trace.c.
 */
#include "matvec.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S_SEED_A 0x7A7A0001ull
#define S_SEED_X 0x7A7A0002ull

/* ---- kernels -------------------------------------------------------------- */

__global__ void matvec_kernel_thread_rowmajor(const float *__restrict__ a,
                                              const float *__restrict__ x,
                                              float *__restrict__ y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float *row = a + (size_t)i * n;
    float s = 0.0f;
    for (unsigned k = 0; k < n; k++)
        s += row[k] * x[k];
    y[i] = s;
}

__global__ void matvec_kernel_thread_colmajor(const float *__restrict__ a,
                                              const float *__restrict__ x,
                                              float *__restrict__ y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.0f;
    for (unsigned k = 0; k < n; k++)
        s += a[(size_t)k * n + i] * x[k];
    y[i] = s;
}

__device__ __forceinline__ float S_warp_sum(float s)
{
    for (int d = 16; d > 0; d >>= 1)
        s += __shfl_down_sync(0xFFFFFFFFu, s, d);
    return s;
}

__global__ void matvec_kernel_warp_rowmajor(const float *__restrict__ a,
                                            const float *__restrict__ x, float *__restrict__ y,
                                            unsigned n)
{
    unsigned row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= n)
        return;
    const float *r = a + (size_t)row * n;
    float s = 0.0f;
#pragma unroll 4
    for (unsigned k = lane; k < n; k += 32)
        s += r[k] * x[k];
    s = S_warp_sum(s);
    if (lane == 0)
        y[row] = s;
}

__global__ void matvec_kernel_warp_rowmajor_vec4(const float4 *__restrict__ a,
                                                 const float4 *__restrict__ x,
                                                 float *__restrict__ y, unsigned n)
{
    unsigned row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= n)
        return;
    unsigned n4 = n / 4;
    const float4 *r = a + (size_t)row * n4;
    float s = 0.0f;
#pragma unroll 4
    for (unsigned k = lane; k < n4; k += 32) {
        float4 v = r[k], w = x[k];
        s += v.x * w.x + v.y * w.y + v.z * w.z + v.w * w.w;
    }
    s = S_warp_sum(s);
    if (lane == 0)
        y[row] = s;
}

/* ---- inputs shared by the cases of one n ---------------------------------- */

/* x, the reference and row-major A on the device, shared by the cases of one n. */
typedef struct {
    size_t n;
    float *h_ref;    /* host y */
    float *d_x, *d_arow;
} S_data;

/* Column-major A on the device, built only for the variant that reads it. */
typedef struct {
    size_t n;
    float *d_acol;
} S_col;

typedef struct {
    size_t n;
    float *a, *x, *y;
} S_job;

static void S_fill_row_chunk(void *ctx, size_t r0, size_t r1)
{
    S_job *j = (S_job *)ctx;
    for (size_t i = r0; i < r1; i++)
        for (size_t k = 0; k < j->n; k++)
            j->a[i * j->n + k] = gm_ref_small_int(gm_rand_at(S_SEED_A ^ j->n, i * j->n + k));
}

/* Column-major: element (i, k) at k*n + i, the same value as in row-major. */
static void S_fill_col_chunk(void *ctx, size_t k0, size_t k1)
{
    S_job *j = (S_job *)ctx;
    for (size_t k = k0; k < k1; k++)
        for (size_t i = 0; i < j->n; i++)
            j->a[k * j->n + i] = gm_ref_small_int(gm_rand_at(S_SEED_A ^ j->n, i * j->n + k));
}

static void S_ref_chunk(void *ctx, size_t r0, size_t r1)
{
    S_job *j = (S_job *)ctx;
    gm_ref_matvec(j->a, j->x, j->y, j->n, r0, r1);
}

static gm_status S_data_build(void *obj, void *ctx, gm_error *err)
{
    S_data *d = (S_data *)obj;
    d->n = *(const size_t *)ctx;
    size_t n = d->n, abytes = n * n * sizeof(float);
    S_job job = {n, (float *)gm_xmalloc(abytes), (float *)gm_xmalloc(n * sizeof(float)), NULL};
    d->h_ref = (float *)gm_xmalloc(n * sizeof(float));
    job.y = d->h_ref;
    gm_parallel_for(n, 1, S_fill_row_chunk, &job);
    for (size_t k = 0; k < n; k++)
        job.x[k] = gm_ref_small_int(gm_rand_at(S_SEED_X ^ n, k));
    /* CPU reference call. */
    gm_parallel_for(n, 1, S_ref_chunk, &job);
    cudaError_t e = cudaMalloc(&d->d_arow, abytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(d->d_arow, job.a, abytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMalloc(&d->d_x, n * sizeof(float));
    if (e == cudaSuccess)
        e = cudaMemcpy(d->d_x, job.x, n * sizeof(float), cudaMemcpyHostToDevice);
    free(job.a);
    free(job.x);
    GM_CUDA(e);
    return GM_OK;
}

static void S_data_destroy(void *obj)
{
    S_data *d = (S_data *)obj;
    if (d->d_arow)
        cudaFree(d->d_arow);
    if (d->d_x)
        cudaFree(d->d_x);
    free(d->h_ref);
}

static gm_status S_col_build(void *obj, void *ctx, gm_error *err)
{
    S_col *col = (S_col *)obj;
    col->n = *(const size_t *)ctx;
    size_t n = col->n, abytes = n * n * sizeof(float);
    S_job job = {n, (float *)gm_xmalloc(abytes), NULL, NULL};
    gm_parallel_for(n, 1, S_fill_col_chunk, &job);
    cudaError_t e = cudaMalloc(&col->d_acol, abytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(col->d_acol, job.a, abytes, cudaMemcpyHostToDevice);
    free(job.a);
    GM_CUDA(e);
    return GM_OK;
}

static void S_col_destroy(void *obj)
{
    S_col *col = (S_col *)obj;
    if (col->d_acol)
        cudaFree(col->d_acol);
}

typedef struct {
    size_t n;
    S_data *data;
    S_col *col;      /* NULL unless thread_colmajor */
    float *d_y;
} S_state;

/* ---- launchers ------------------------------------------------------------ */

gm_status matvec_launch_thread_rowmajor(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    matvec_kernel_thread_rowmajor<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        st->data->d_arow, st->data->d_x, st->d_y, (unsigned)st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status matvec_launch_thread_colmajor(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    matvec_kernel_thread_colmajor<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        st->col->d_acol, st->data->d_x, st->d_y, (unsigned)st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status matvec_launch_warp_rowmajor(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    matvec_kernel_warp_rowmajor<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        st->data->d_arow, st->data->d_x, st->d_y, (unsigned)st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status matvec_launch_warp_rowmajor_vec4(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    matvec_kernel_warp_rowmajor_vec4<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        (const float4 *)st->data->d_arow, (const float4 *)st->data->d_x, st->d_y,
        (unsigned)st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

static const void *S_kernel(const gm_case *c)
{
    if (c->variant->kind == GM_MATVEC_THREAD_COLMAJOR)
        return (const void *)matvec_kernel_thread_colmajor;
    if (c->variant->kind == GM_MATVEC_WARP_ROWMAJOR_VEC4)
        return (const void *)matvec_kernel_warp_rowmajor_vec4;
    return gm_matvec_warp(c) ? (const void *)matvec_kernel_warp_rowmajor
                     : (const void *)matvec_kernel_thread_rowmajor;
}

gm_status matvec_setup(gm_case *c, gm_error *err)
{
    gm_status rc = gm_case_query_kernel(c, S_kernel(c), err);
    if (rc != GM_OK)
        return rc;
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->n = (size_t)gm_case_param(c, "n", 0);
    char key[64];
    snprintf(key, sizeof key, "matvec/data/%zu", st->n);
    rc = gm_shared_get(key, sizeof(S_data), S_data_build, S_data_destroy, &st->n,
                       (void **)&st->data, err);
    if (rc != GM_OK)
        return rc;
    if (c->variant->kind == GM_MATVEC_THREAD_COLMAJOR) {
        snprintf(key, sizeof key, "matvec/colmajor/%zu", st->n);
        rc = gm_shared_get(key, sizeof(S_col), S_col_build, S_col_destroy, &st->n,
                           (void **)&st->col, err);
        if (rc != GM_OK)
            return rc;
    }
    GM_CUDA(cudaMalloc(&st->d_y, st->n * sizeof(float)));
    return GM_OK;
}

gm_status matvec_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->d_y, st->n * sizeof(float), s, err);
}

/* Small integers: every partial sum is an integer below 2^24, exact in float. */
gm_status matvec_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->d_y, st->data->h_ref, st->n, 0.0, 0.0, out, err);
}

void matvec_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    gm_shared_release(st->col);
    gm_shared_release(st->data);
    if (st->d_y)
        cudaFree(st->d_y);
    free(st);
    c->state = NULL;
}
