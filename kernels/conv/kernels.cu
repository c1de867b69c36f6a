/* conv/kernels.cu — experiment 12: a 7x7 convolution of an n x n float image
 * (zero outside the image), with the filter in constant or global memory, and
 * with the image tile staged in shared memory.
 *
 * Every thread of a warp reads the same filter coefficient at the same step:
 * the constant cache serves a uniform address to the whole warp in one go
 * (and the compiler can feed it straight into the FMA), while from global
 * memory it is a load instruction per coefficient through L1.  The image
 * neighbourhoods overlap: 49 reads per pixel, from L1 in the direct versions,
 * from a (32+6) x (8+6) shared tile loaded once per block in the tiled one.
 *
 * Run: build/tests/gpu/suite_validate --only conv   (build/gpumem-report collect --only conv)
 *
 * variants (blocks of 32 x 8 threads, one output pixel per thread):
 *   global    filter read from global memory, image from global (L1-cached)
 *   constant  filter in __constant__ memory, image from global
 *   shared    filter in __constant__ memory, image tile plus 3-pixel halo in shared memory
 *
 * Napkin math: 49 multiply-adds per pixel = 98 flops; 4 B read and 4 B written
 * per pixel: 12 flops per byte, near the H100's balance point (~60 TFLOP/s over
 * ~3 TB/s = 20), so the instruction count matters as much as the memory.  The
 * shared tile reads (38 x 14) / (32 x 8) = 2.1 words per output from global memory
 * instead of 49 L1 requests' worth.
 *
 * CPU reference: gm_ref_conv7 (conv.c); address trace: trace.c.
 */
#include "conv.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

__constant__ float conv_filter[GM_CONV_TAPS * GM_CONV_TAPS];

/* `filt` is an ordinary pointer (no const __restrict__), so the coefficients
 * are ordinary global loads, not the read-only or constant path. */
__global__ void conv_kernel_global(const float *in, const float *filt, float *out, int w, int h)
{
    int x = blockIdx.x * CONV_BX + threadIdx.x, y = blockIdx.y * CONV_BY + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float s = 0.0f;
    for (int dy = -GM_CONV_R; dy <= GM_CONV_R; ++dy) {
        int yy = y + dy;
        if (yy < 0 || yy >= h)
            continue;
        for (int dx = -GM_CONV_R; dx <= GM_CONV_R; ++dx) {
            int xx = x + dx;
            if (xx >= 0 && xx < w)
                s += filt[(dy + GM_CONV_R) * GM_CONV_TAPS + dx + GM_CONV_R] * in[(size_t)yy * w + xx];
        }
    }
    out[(size_t)y * w + x] = s;
}

__global__ void conv_kernel_constant(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * CONV_BX + threadIdx.x, y = blockIdx.y * CONV_BY + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float s = 0.0f;
    for (int dy = -GM_CONV_R; dy <= GM_CONV_R; ++dy) {
        int yy = y + dy;
        if (yy < 0 || yy >= h)
            continue;
        for (int dx = -GM_CONV_R; dx <= GM_CONV_R; ++dx) {
            int xx = x + dx;
            if (xx >= 0 && xx < w)
                s += conv_filter[(dy + GM_CONV_R) * GM_CONV_TAPS + dx + GM_CONV_R] *
                     in[(size_t)yy * w + xx];
        }
    }
    out[(size_t)y * w + x] = s;
}

__global__ void conv_kernel_shared(const float *in, float *out, int w, int h)
{
    __shared__ float tile[CONV_TH][CONV_TW];
    int x0 = blockIdx.x * CONV_BX - GM_CONV_R, y0 = blockIdx.y * CONV_BY - GM_CONV_R;
    /* 532 words by 256 threads: rows of 38, consecutive threads on consecutive
     * words (coalesced, conflict-free); zeros outside the image */
    for (int i = threadIdx.y * CONV_BX + threadIdx.x; i < CONV_TH * CONV_TW; i += CONV_BX * CONV_BY) {
        int ty = i / CONV_TW, tx = i % CONV_TW;
        int gx = x0 + tx, gy = y0 + ty;
        tile[ty][tx] = (gx >= 0 && gx < w && gy >= 0 && gy < h) ? in[(size_t)gy * w + gx] : 0.0f;
    }
    __syncthreads();
    int x = blockIdx.x * CONV_BX + threadIdx.x, y = blockIdx.y * CONV_BY + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float s = 0.0f;
#pragma unroll
    for (int dy = 0; dy < GM_CONV_TAPS; ++dy)
#pragma unroll
        for (int dx = 0; dx < GM_CONV_TAPS; ++dx)
            s += conv_filter[dy * GM_CONV_TAPS + dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
    out[(size_t)y * w + x] = s;
}

/* ---- inputs shared by the cases of one n ---------------------------------- */

/* One filter for every case (so the __constant__ copy is never stale), one
 * image per n. */
#define CONV_FILTER_SEED 0xc0f17ULL

typedef struct {
    int n;
    float filt[GM_CONV_TAPS * GM_CONV_TAPS];
    float *h_ref;           /* host: expected output */
    float *d_in, *d_filt;   /* device image and filter */
} S_input;

typedef struct {
    const float *in, *filt;
    float *out;
    int n;
} S_ref_job;

static void S_ref_chunk(void *ctx, size_t begin, size_t end)
{
    S_ref_job *j = (S_ref_job *)ctx;
    gm_ref_conv7_range(j->in, j->out, j->n, j->n, j->filt, begin, end);
}

static gm_status S_input_build(void *obj, void *ctx, gm_error *err)
{
    S_input *in = (S_input *)obj;
    int n = in->n = *(const int *)ctx;
    size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
    gm_fill_uniform_f32(in->filt, GM_CONV_TAPS * GM_CONV_TAPS, CONV_FILTER_SEED, -0.2f, 0.2f);
    float *h = (float *)gm_xmalloc(bytes);
    in->h_ref = (float *)gm_xmalloc(bytes);
    gm_fill_uniform_f32(h, nn, 0xc0ULL + (uint64_t)n, 0.0f, 1.0f);
    S_ref_job j = {h, in->filt, in->h_ref, n};
    gm_parallel_for(nn, GM_PAR_ELEMS / 32, S_ref_chunk, &j);
    cudaError_t e = cudaMalloc(&in->d_in, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&in->d_filt, sizeof in->filt);
    if (e == cudaSuccess) e = cudaMemcpy(in->d_in, h, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(in->d_filt, in->filt, sizeof in->filt, cudaMemcpyHostToDevice);
    free(h);
    if (e != cudaSuccess)
        return gm_fail(err, GM_ERR_CUDA, "conv: image (n = %d, %zu bytes) and filter: %s (%s)", n,
                       bytes, cudaGetErrorString(e), cudaGetErrorName(e));
    return GM_OK;
}

static void S_input_destroy(void *obj)
{
    S_input *in = (S_input *)obj;
    cudaFree(in->d_in);
    cudaFree(in->d_filt);
    free(in->h_ref);
}

typedef struct {
    int n;
    S_input *in;
    float *d_out;
} S_state;

/* ---- launchers ------------------------------------------------------------ */

gm_status conv_launch_global(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    conv_kernel_global<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->in->d_in, st->in->d_filt,
                                                               st->d_out, st->n, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status conv_launch_constant(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    conv_kernel_constant<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->in->d_in, st->d_out, st->n,
                                                                 st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status conv_launch_shared(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    conv_kernel_shared<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->in->d_in, st->d_out, st->n,
                                                               st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

gm_status conv_setup(gm_case *c, gm_error *err)
{
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    int n = st->n = (int)gm_case_param(c, "n", 0);
    char key[64];
    snprintf(key, sizeof key, "conv/%d", n);
    gm_status rc = gm_shared_get(key, sizeof(S_input), S_input_build, S_input_destroy, &n,
                                 (void **)&st->in, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->d_out, (size_t)n * n * sizeof(float)));
    if (c->variant->kind == GM_CONV_GLOBAL)
        return gm_case_query_kernel(c, (const void *)conv_kernel_global, err);
    if (c->variant->kind == GM_CONV_CONSTANT)
        return gm_case_query_kernel(c, (const void *)conv_kernel_constant, err);
    return gm_case_query_kernel(c, (const void *)conv_kernel_shared, err);
}

gm_status conv_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    if (c->variant->kind != GM_CONV_GLOBAL)
        GM_CUDA(cudaMemcpyToSymbolAsync(conv_filter, st->in->d_filt, sizeof st->in->filt, 0,
                                        cudaMemcpyDeviceToDevice, s));
    return gm_poison(st->d_out, (size_t)st->n * st->n * sizeof(float), s, err);
}

/* CPU reference: gm_ref_conv7_range (conv.c), in double.  49 products
 * of |f| < 0.2 and pixels in [0, 1): partial sums below 10, float rounding
 * below 49 x 2^-24 x 10 = 3e-5; allow 5e-5 plus 1e-5 relative. */
gm_status conv_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->d_out, st->in->h_ref, (size_t)st->n * st->n, 5e-5, 1e-5, out, err);
}

void conv_teardown(gm_case *c)
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
