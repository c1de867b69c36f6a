/* coalescing/kernels.cu — experiment 1: coalesced vs strided reads.
 *
 * Every variant computes the same gather of N floats, out[i] = in[p(i)], where
 * p is a permutation: each input element is read once and each output element
 * written once, so every variant must move 4N bytes in and 4N bytes out.  Only
 * the order in which a warp touches memory differs.
 *
 * Run: build/tests/gpu/suite_validate --only coalescing   (build/gpumem-report collect --only coalescing)
 *
 * variants (blocks of 256 threads):
 *   stride   p(i) = (i mod m)*s + i div m, m = N/s: thread r of column c reads
 *            in[r*s + c]; a warp's 32 loads are 4s bytes apart and touch
 *            min(32, 4s) sectors of 32 B instead of 4 (stride 1 is a copy)
 *   float2   p(i) = i, 8-byte loads and stores: a warp moves 256 contiguous bytes
 *   float4   p(i) = i, 16-byte loads and stores: a warp moves 512 contiguous bytes
 *
 * Napkin math: 4N bytes read + 4N written; N = 2^25 is 256 MiB of traffic,
 * ~0.09 ms at 3 TB/s.  From stride 8 on, a warp's load touches 32 sectors
 * (1 KiB) for 128 useful bytes: 8x the read traffic, unless the caches keep
 * the lines until the blocks of the next columns read the rest of them.
 *
 * CPU reference: gm_ref_coalescing_range (coalescing.c); address trace: trace.c.
 */
#include "coalescing.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

/* grid.y = column c, grid.x * block covers the m rows: consecutive threads are
 * consecutive rows, so their loads are s floats apart while their stores are
 * contiguous.  Blocks run in x-fastest order: column by column, the order of i. */
__global__ void coalescing_kernel_stride(const float *__restrict__ in, float *__restrict__ out,
                                         unsigned m, unsigned s)
{
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned c = blockIdx.y;
    if (r < m)
        out[(size_t)c * m + r] = in[(size_t)r * s + c];
}

__global__ void coalescing_kernel_float2(const float2 *__restrict__ in, float2 *__restrict__ out,
                                         size_t n2)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2)
        out[i] = in[i];
}

__global__ void coalescing_kernel_float4(const float4 *__restrict__ in, float4 *__restrict__ out,
                                         size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4)
        out[i] = in[i];
}

/* ---- inputs shared by the cases of one N ---------------------------------- */

/* The input of one N on host and device, shared by every case of that N, and a
 * host buffer for the reference of the case being checked. */
typedef struct {
    size_t n;
    float *h, *ref;   /* host */
    float *d;         /* device */
} S_input;

typedef struct {
    const float *in;
    float *out;
    size_t n, stride;
} S_ref_job;

static void S_ref_chunk(void *ctx, size_t i0, size_t i1)
{
    S_ref_job *j = (S_ref_job *)ctx;
    gm_ref_coalescing_range(j->in, j->out, j->n, j->stride, i0, i1);
}

static gm_status S_input_build(void *obj, void *ctx, gm_error *err)
{
    S_input *in = (S_input *)obj;
    in->n = *(const size_t *)ctx;
    size_t bytes = in->n * sizeof(float);
    in->h = (float *)gm_xmalloc(bytes);
    in->ref = (float *)gm_xmalloc(bytes);
    gm_fill_uniform_f32(in->h, in->n, 0xC0A1E5CEull ^ in->n, -1000.0f, 1000.0f);
    GM_CUDA(cudaMalloc(&in->d, bytes));
    GM_CUDA(cudaMemcpy(in->d, in->h, bytes, cudaMemcpyHostToDevice));
    return GM_OK;
}

static void S_input_destroy(void *obj)
{
    S_input *in = (S_input *)obj;
    if (in->d)
        cudaFree(in->d);
    free(in->h);
    free(in->ref);
}

typedef struct {
    size_t n, stride;
    int width;            /* floats per load: 1, 2 or 4 */
    S_input *in;
    float *out;           /* device */
} S_state;

/* ---- launchers ------------------------------------------------------------ */

gm_status coalescing_launch_stride(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    dim3 grid(c->launch.grid[0], c->launch.grid[1]);
    coalescing_kernel_stride<<<grid, c->launch.block[0], 0, s>>>(
        st->in->d, st->out, (unsigned)(st->n / st->stride), (unsigned)st->stride);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status coalescing_launch_float2(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    coalescing_kernel_float2<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        (const float2 *)st->in->d, (float2 *)st->out, st->n / 2);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status coalescing_launch_float4(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    coalescing_kernel_float4<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        (const float4 *)st->in->d, (float4 *)st->out, st->n / 4);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

static const void *S_kernel(const gm_case *c)
{
    int w = gm_coalescing_width(c);
    return w == 4 ? (const void *)coalescing_kernel_float4
         : w == 2 ? (const void *)coalescing_kernel_float2
                  : (const void *)coalescing_kernel_stride;
}

gm_status coalescing_setup(gm_case *c, gm_error *err)
{
    gm_status rc = gm_case_query_kernel(c, S_kernel(c), err);
    if (rc != GM_OK)
        return rc;
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->n = (size_t)gm_case_param(c, "n", 0);
    st->stride = (size_t)gm_case_param(c, "stride", 1);
    st->width = gm_coalescing_width(c);
    char key[64];
    snprintf(key, sizeof key, "coalescing/input/%zu", st->n);
    rc = gm_shared_get(key, sizeof(S_input), S_input_build, S_input_destroy, &st->n,
                       (void **)&st->in, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->out, st->n * sizeof(float)));
    return GM_OK;
}

gm_status coalescing_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->out, st->n * sizeof(float), s, err);
}

/* CPU reference call: the gather of this case's stride (a vector load reads
 * the elements a stride-1 gather reads).  A gather moves values unchanged: the
 * output must equal the reference bit for bit (atol = rtol = 0). */
gm_status coalescing_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    S_ref_job job = {st->in->h, st->in->ref, st->n, st->stride};
    gm_parallel_for(st->n, GM_PAR_ELEMS, S_ref_chunk, &job);
    return gm_check_f32(st->out, st->in->ref, st->n, 0.0, 0.0, out, err);
}

void coalescing_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    gm_shared_release(st->in);
    if (st->out)
        cudaFree(st->out);
    free(st);
    c->state = NULL;
}
