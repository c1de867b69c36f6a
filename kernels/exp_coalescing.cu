/* exp_coalescing.cu — experiment 1: coalesced vs strided reads.
 *
 * Every variant computes the same gather of N floats, out[i] = in[p(i)], where
 * p is a permutation: each input element is read once and each output element
 * written once, so every variant must move 4N bytes in and 4N bytes out.  Only
 * the order in which a warp touches memory differs.
 *
 *   stride   p(i) = (i mod m)*s + i div m, m = N/s: thread r of column c reads
 *            in[r*s + c]; a warp's 32 loads are 4s bytes apart and touch
 *            min(32, 4s) sectors of 32 B instead of 4 (stride 1 is a copy)
 *   float2   p(i) = i, 8-byte loads and stores: a warp moves 256 contiguous bytes
 *   float4   p(i) = i, 16-byte loads and stores: a warp moves 512 contiguous bytes
 *
 * Sections: CPU reference call, GPU kernels, launchers, setup/check.
 */
#include "suite.h"
#include "ref.h"

extern "C" {
#include "../reports/buf.h"
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S_BLOCK 256

typedef struct {
    size_t n, stride;
    int width;            /* floats per load: 1, 2 or 4 */
    float *in, *out;      /* device */
    float *ref;           /* host: expected output */
} S_state;

/* ---- GPU kernels ---------------------------------------------------------- */

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

extern "C" {

/* ---- launchers ------------------------------------------------------------ */

gm_status coalescing_launch_stride(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    dim3 grid(c->launch.grid[0], c->launch.grid[1]);
    coalescing_kernel_stride<<<grid, c->launch.block[0], 0, s>>>(
        st->in, st->out, (unsigned)(st->n / st->stride), (unsigned)st->stride);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status coalescing_launch_float2(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    coalescing_kernel_float2<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        (const float2 *)st->in, (float2 *)st->out, st->n / 2);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status coalescing_launch_float4(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    coalescing_kernel_float4<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        (const float4 *)st->in, (float4 *)st->out, st->n / 4);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / check -------------------------------------------------------- */

static int S_width(const gm_case *c)
{
    if (strcmp(c->variant->name, "float2") == 0)
        return 2;
    if (strcmp(c->variant->name, "float4") == 0)
        return 4;
    return 1;
}

gm_status coalescing_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0), s = gm_case_param(c, "stride", 1);
    int w = S_width(c);
    if (n <= 0 || n > (1ll << 31) || s <= 0 || s > 65535 || n % (s * w) != 0)
        return gm_fail(err, GM_ERR_VALUE,
                       "coalescing/%s: n=%lld, stride=%lld: need 0 < n <= 2^31, "
                       "0 < stride <= 65535, n a multiple of stride*%d",
                       c->variant->name, n, s, w);
    if (w > 1 && s != 1)
        return gm_fail(err, GM_ERR_VALUE, "coalescing/%s: stride must be 1 (got %lld)",
                       c->variant->name, s);
    snprintf(c->kernel, sizeof c->kernel, "coalescing_kernel_%s", c->variant->name);
    /* One thread per load: N/s rows x s columns, or N/w vector loads. */
    long long threads = (w == 1) ? n / s : n / w;
    c->launch.grid[0] = (unsigned)((threads + S_BLOCK - 1) / S_BLOCK);
    c->launch.grid[1] = (w == 1) ? (unsigned)s : 1;
    c->launch.grid[2] = 1;
    c->launch.block[0] = S_BLOCK;
    c->launch.block[1] = c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* Each input read once, each output written once: 4N bytes each way. */
    c->bytes_read = 4 * n;
    c->bytes_written = 4 * n;
    c->flops = -1;
    if (w == 1 && s > 1)
        snprintf(c->note, sizeof c->note,
                 "a warp's loads span %lld bytes: %lld sectors of 32 B for 128 useful bytes",
                 31 * s * 4 + 4, s >= 8 ? 32 : 4 * s);
    return GM_OK;
}

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

gm_status coalescing_setup(gm_case *c, gm_error *err)
{
    gm_status rc = coalescing_describe(c, err);
    if (rc != GM_OK)
        return rc;
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->n = (size_t)gm_case_param(c, "n", 0);
    st->stride = (size_t)gm_case_param(c, "stride", 1);
    st->width = S_width(c);
    size_t bytes = st->n * sizeof(float);

    /* CPU reference call: the input, then the gather it defines. */
    float *h_in = (float *)gm_xmalloc(bytes);
    gm_fill_uniform_f32(h_in, st->n, 0xC0A1E5CEull ^ st->n, -1000.0f, 1000.0f);
    st->ref = (float *)gm_xmalloc(bytes);
    S_ref_job job = {h_in, st->ref, st->n, st->stride};
    gm_parallel_for(st->n, GM_PAR_ELEMS, S_ref_chunk, &job);

    cudaError_t e = cudaMalloc(&st->in, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(st->in, h_in, bytes, cudaMemcpyHostToDevice);
    free(h_in);
    GM_CUDA(e);
    GM_CUDA(cudaMalloc(&st->out, bytes));
    return GM_OK;
}

gm_status coalescing_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->out, st->n * sizeof(float), s, err);
}

/* A gather moves values unchanged: the output must equal the reference bit
 * for bit (atol = rtol = 0). */
gm_status coalescing_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->out, st->ref, st->n, 0.0, 0.0, out, err);
}

void coalescing_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    if (st->in)
        cudaFree(st->in);
    if (st->out)
        cudaFree(st->out);
    free(st->ref);
    free(st);
    c->state = NULL;
}

} /* extern "C" */
