/* traversal2d/kernels.cu — experiment 5: row- vs column-major thread mapping
 * over the same row-major arrays.
 *
 * c = a + b over n x n floats stored row-major (element (r, col) at r*n + col).
 * Must move: 8n^2 bytes read (a and b once), 4n^2 written.  Both variants use
 * the same 32x8 blocks and the same grid; only which index threadIdx.x drives
 * changes.
 *
 * Run: build/tests/gpu/suite_validate --only traversal2d   (build/gpumem-report collect --only traversal2d)
 *
 * variants (blocks of 32 x 8 threads):
 *   row_mapping  threadIdx.x -> column: a warp reads 128 contiguous bytes of a row
 *   col_mapping  threadIdx.x -> row: a warp reads one float from each of 32 rows,
 *                4n bytes apart: 32 sectors per request, 4 bytes used in each
 *
 * Napkin math: 12n^2 bytes; n = 8192 is 768 MiB, ~0.27 ms at 3 TB/s.  Mapped
 * down columns, each load moves 32 sectors for 128 useful bytes: 8x, unless
 * L1 and L2 keep the lines until the block's neighbouring columns use them.
 *
 * CPU reference: gm_ref_add (traversal2d.c); address trace: trace.c.
 */
#include "traversal2d.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

__global__ void traversal2d_kernel_row_mapping(const float *__restrict__ a,
                                               const float *__restrict__ b,
                                               float *__restrict__ c, unsigned n)
{
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        size_t i = (size_t)row * n + col;
        c[i] = a[i] + b[i];
    }
}

__global__ void traversal2d_kernel_col_mapping(const float *__restrict__ a,
                                               const float *__restrict__ b,
                                               float *__restrict__ c, unsigned n)
{
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        size_t i = (size_t)row * n + col;
        c[i] = a[i] + b[i];
    }
}

/* ---- inputs shared by the cases of one n ---------------------------------- */

/* Inputs and reference of one n, shared by both variants. */
typedef struct {
    size_t n;
    float *h_a, *h_b, *h_ref;   /* host; ref = a + b */
    float *d_a, *d_b;           /* device */
} S_data;

typedef struct {
    S_data *d;
} S_ref_job;

static void S_ref_chunk(void *ctx, size_t i0, size_t i1)
{
    S_data *d = ((S_ref_job *)ctx)->d;
    gm_ref_add(d->h_a, d->h_b, d->h_ref, i0, i1);
}

static gm_status S_data_build(void *obj, void *ctx, gm_error *err)
{
    S_data *d = (S_data *)obj;
    d->n = *(const size_t *)ctx;
    size_t count = d->n * d->n, bytes = count * sizeof(float);
    d->h_a = (float *)gm_xmalloc(bytes);
    d->h_b = (float *)gm_xmalloc(bytes);
    d->h_ref = (float *)gm_xmalloc(bytes);
    gm_fill_uniform_f32(d->h_a, count, 0x2D0Aull ^ d->n, -1.0f, 1.0f);
    gm_fill_uniform_f32(d->h_b, count, 0x2D0Bull ^ d->n, -1.0f, 1.0f);
    /* CPU reference call. */
    S_ref_job job = {d};
    gm_parallel_for(count, GM_PAR_ELEMS, S_ref_chunk, &job);
    GM_CUDA(cudaMalloc(&d->d_a, bytes));
    GM_CUDA(cudaMalloc(&d->d_b, bytes));
    GM_CUDA(cudaMemcpy(d->d_a, d->h_a, bytes, cudaMemcpyHostToDevice));
    GM_CUDA(cudaMemcpy(d->d_b, d->h_b, bytes, cudaMemcpyHostToDevice));
    /* The inputs live on the device now; only the reference stays on the host. */
    free(d->h_a);
    free(d->h_b);
    d->h_a = d->h_b = NULL;
    return GM_OK;
}

static void S_data_destroy(void *obj)
{
    S_data *d = (S_data *)obj;
    if (d->d_a)
        cudaFree(d->d_a);
    if (d->d_b)
        cudaFree(d->d_b);
    free(d->h_a);
    free(d->h_b);
    free(d->h_ref);
}

typedef struct {
    size_t n;
    S_data *data;
    float *d_c;
} S_state;

/* ---- launchers ------------------------------------------------------------ */

gm_status traversal2d_launch_row_mapping(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    dim3 grid(c->launch.grid[0], c->launch.grid[1]), block(c->launch.block[0], c->launch.block[1]);
    traversal2d_kernel_row_mapping<<<grid, block, 0, s>>>(st->data->d_a, st->data->d_b, st->d_c,
                                                          (unsigned)st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status traversal2d_launch_col_mapping(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    dim3 grid(c->launch.grid[0], c->launch.grid[1]), block(c->launch.block[0], c->launch.block[1]);
    traversal2d_kernel_col_mapping<<<grid, block, 0, s>>>(st->data->d_a, st->data->d_b, st->d_c,
                                                          (unsigned)st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

static const void *S_kernel(const gm_case *c)
{
    return c->variant->kind == GM_TRAVERSAL2D_COL_MAPPING
               ? (const void *)traversal2d_kernel_col_mapping
               : (const void *)traversal2d_kernel_row_mapping;
}

gm_status traversal2d_setup(gm_case *c, gm_error *err)
{
    gm_status rc = gm_case_query_kernel(c, S_kernel(c), err);
    if (rc != GM_OK)
        return rc;
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->n = (size_t)gm_case_param(c, "n", 0);
    char key[64];
    snprintf(key, sizeof key, "traversal2d/%zu", st->n);
    rc = gm_shared_get(key, sizeof(S_data), S_data_build, S_data_destroy, &st->n,
                       (void **)&st->data, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->d_c, st->n * st->n * sizeof(float)));
    return GM_OK;
}

gm_status traversal2d_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->d_c, st->n * st->n * sizeof(float), s, err);
}

/* One IEEE addition per element on both sides: exact. */
gm_status traversal2d_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->d_c, st->data->h_ref, st->n * st->n, 0.0, 0.0, out, err);
}

void traversal2d_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    gm_shared_release(st->data);
    if (st->d_c)
        cudaFree(st->d_c);
    free(st);
    c->state = NULL;
}
