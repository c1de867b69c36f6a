/* transpose/kernels.cu — experiment 9: out = transpose(in) for an n x n float
 * matrix, row-major.
 *
 * A transpose reads rows and writes columns: one of the two walks memory with
 * a stride of n words whatever the indexing.  Staging a 32 x 32 tile in shared
 * memory lets both global sides be row-wise; the column walk then happens in
 * shared memory, where a 32-word stride puts all 32 threads of a warp on one
 * bank, unless each tile row is padded to 33 words.
 *
 * Run: build/tests/gpu/suite_validate --only transpose   (build/gpumem-report collect --only transpose)
 *
 * variants (blocks of 32 x 8 threads, each thread moving 4 elements of a 32 x 32 tile):
 *   naive    reads rows (coalesced), writes columns: a warp's 32 stores hit 32 sectors
 *   tiled    through a [32][32] shared tile: global side coalesced both ways, the
 *            column read of the tile is a 32-way bank conflict
 *   padded   through a [32][33] shared tile: conflict-free
 *
 * Napkin math: 4 n^2 bytes read + 4 n^2 written, nothing else; n = 8192 is
 * 512 MiB of traffic, ~0.17 ms at 3 TB/s.  The naive stores move 32 B sectors
 * for 4 useful bytes: 8x the write traffic, unless L2 merges the partial sectors
 * before they reach DRAM (it does, partly: the L2 counters show how much).
 *
 * CPU reference: gm_ref_transpose (transpose.c); address trace: trace.c.
 */
#include "transpose.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

__global__ void transpose_kernel_naive(const float *in, float *out, int n)
{
    int x = blockIdx.x * TR_TILE + threadIdx.x;
    int y = blockIdx.y * TR_TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TR_TILE; j += TR_ROWS)
        if (x < n && y + j < n)
            out[(size_t)x * n + y + j] = in[(size_t)(y + j) * n + x];
}

/* PAD = 0: the read tile[tx][ty + j] strides 32 words across the warp, all on
 * bank (ty + j) % 32: 32 wavefronts per request.  PAD = 1: stride 33, the 32
 * words land on 32 different banks. */
template <int PAD>
__device__ __forceinline__ void transpose_tile_body(const float *in, float *out, int n)
{
    __shared__ float tile[TR_TILE][TR_TILE + PAD];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * TR_TILE + tx, y = blockIdx.y * TR_TILE + ty;
#pragma unroll
    for (int j = 0; j < TR_TILE; j += TR_ROWS)
        if (x < n && y + j < n)
            tile[ty + j][tx] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    /* the tile at block (bx, by) goes to block (by, bx) of the output */
    x = blockIdx.y * TR_TILE + tx;
    y = blockIdx.x * TR_TILE + ty;
#pragma unroll
    for (int j = 0; j < TR_TILE; j += TR_ROWS)
        if (x < n && y + j < n)
            out[(size_t)(y + j) * n + x] = tile[tx][ty + j];
}

__global__ void transpose_kernel_tiled(const float *in, float *out, int n)
{
    transpose_tile_body<0>(in, out, n);
}

__global__ void transpose_kernel_padded(const float *in, float *out, int n)
{
    transpose_tile_body<1>(in, out, n);
}

/* ---- inputs shared by the cases of one n ---------------------------------- */

typedef struct {
    int n;
    float *h_ref;   /* host: the transpose */
    float *d_in;    /* device input */
} S_input;

typedef struct {
    const float *in;
    float *out;
    int n;
} S_ref_job;

static void S_ref_chunk(void *ctx, size_t begin, size_t end)
{
    S_ref_job *j = (S_ref_job *)ctx;
    gm_ref_transpose_range(j->in, j->out, j->n, j->n, begin, end);
}

static gm_status S_input_build(void *obj, void *ctx, gm_error *err)
{
    S_input *in = (S_input *)obj;
    int n = in->n = *(const int *)ctx;
    size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
    float *h = (float *)gm_xmalloc(bytes);
    in->h_ref = (float *)gm_xmalloc(bytes);
    gm_fill_uniform_f32(h, nn, 0x9a55ULL + (uint64_t)n, -100.0f, 100.0f);
    S_ref_job j = {h, in->h_ref, n};
    gm_parallel_for(nn, GM_PAR_ELEMS, S_ref_chunk, &j);
    cudaError_t e = cudaMalloc(&in->d_in, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(in->d_in, h, bytes, cudaMemcpyHostToDevice);
    free(h);
    if (e != cudaSuccess)
        return gm_fail(err, GM_ERR_CUDA, "transpose: input (n = %d, %zu bytes): %s (%s)", n,
                       bytes, cudaGetErrorString(e), cudaGetErrorName(e));
    return GM_OK;
}

static void S_input_destroy(void *obj)
{
    S_input *in = (S_input *)obj;
    cudaFree(in->d_in);
    free(in->h_ref);
}

typedef struct {
    int n;
    S_input *in;
    float *d_out;
} S_state;

/* ---- launchers ------------------------------------------------------------ */

template <typename K>
static gm_status S_launch(gm_case *c, K kernel, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    kernel<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->in->d_in, st->d_out, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status transpose_launch_naive(gm_case *c, cudaStream_t s, gm_error *err)
{
    return S_launch(c, transpose_kernel_naive, s, err);
}

gm_status transpose_launch_tiled(gm_case *c, cudaStream_t s, gm_error *err)
{
    return S_launch(c, transpose_kernel_tiled, s, err);
}

gm_status transpose_launch_padded(gm_case *c, cudaStream_t s, gm_error *err)
{
    return S_launch(c, transpose_kernel_padded, s, err);
}

/* ---- setup / reset / check / teardown ------------------------------------- */

gm_status transpose_setup(gm_case *c, gm_error *err)
{
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    int n = st->n = (int)gm_case_param(c, "n", 0);
    char key[64];
    snprintf(key, sizeof key, "transpose/%d", n);
    gm_status rc = gm_shared_get(key, sizeof(S_input), S_input_build, S_input_destroy, &n,
                                 (void **)&st->in, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->d_out, (size_t)n * n * sizeof(float)));
    if (c->variant->kind == GM_TRANSPOSE_NAIVE)
        return gm_case_query_kernel(c, (const void *)transpose_kernel_naive, err);
    if (c->variant->kind == GM_TRANSPOSE_TILED)
        return gm_case_query_kernel(c, (const void *)transpose_kernel_tiled, err);
    return gm_case_query_kernel(c, (const void *)transpose_kernel_padded, err);
}

gm_status transpose_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->d_out, (size_t)st->n * st->n * sizeof(float), s, err);
}

/* CPU reference: gm_ref_transpose_range (transpose.c).  A copy: every
 * element must come back bit for bit. */
gm_status transpose_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->d_out, st->in->h_ref, (size_t)st->n * st->n, 0.0, 0.0, out, err);
}

void transpose_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    gm_shared_release(st->in);
    if (st->d_out)
        cudaFree(st->d_out);
    free(st);
    c->state = NULL;
}
