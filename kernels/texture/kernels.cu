/* texture/kernels.cu — experiment 13: semi-Lagrangian advection of an n x n
 * float field, sampling through a texture object or with plain loads.
 *
 * Each thread traces its cell back along the velocity, out = q(x - dt u,
 * y - dt v), and interpolates q bilinearly there, clamping at the edges.  The
 * departure points of neighbouring threads are near each other but not in a
 * row (the velocity varies and carries a random jitter of up to a cell), so
 * the four corner reads of a warp are scattered with 2D locality: the case the
 * texture path (block-linear array layout, hardware filtering and clamping)
 * was built for.  The plain versions do the same arithmetic by hand.
 *
 * Run: build/tests/gpu/suite_validate --only texture   (build/gpumem-report collect --only texture)
 *
 * variants (blocks of 32 x 8 threads, two output cells per thread, 8 rows apart):
 *   global    four corner loads through ordinary global loads (row-major field), bilinear
 *             weights and clamping in the kernel
 *   readonly  the same through the read-only path (const __restrict__ + __ldg)
 *   texture   one tex2D() on a cudaArray with linear filtering and clamp addressing
 *
 * Validation: global and readonly match the reference to float rounding.  The
 * texture unit computes the bilinear weights in 9-bit fixed point with 8
 * fractional bits (CUDA C Programming Guide, "Linear Filtering"), so a weight can
 * be off by up to 1/256; each of the two interpolation steps then errs by at most
 * |difference of its two texels| / 256.  The check allows max_adjacent / 128,
 * where max_adjacent is the largest difference between neighbouring cells of q
 * (measured in setup), and reports the largest error it saw.
 *
 * Napkin math: q, u, v read once, out written once: 16 B per cell; n = 4096 is
 * 256 MiB, ~85 us at 3 TB/s.  The corner reads touch each q word about 4 times;
 * the caches absorb most of that.
 *
 * CPU reference: gm_ref_advect (texture.c); address trace: trace.c.
 */
#include "texture.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADV_DT 1.0f

/* ---- kernels -------------------------------------------------------------- */

/* The departure point, rounded exactly as the reference rounds it: the
 * product is rounded before the subtraction (no fused multiply-add). */
__device__ __forceinline__ float2 advect_departure(int x, int y, float u, float v, int w, int h)
{
    float px = __fsub_rn((float)x, __fmul_rn(ADV_DT, u));
    float py = __fsub_rn((float)y, __fmul_rn(ADV_DT, v));
    px = fminf(fmaxf(px, -2.0f), (float)w + 1.0f);
    py = fminf(fmaxf(py, -2.0f), (float)h + 1.0f);
    return make_float2(px, py);
}

template <bool READONLY>
__device__ __forceinline__ float advect_load(const float *p, size_t i)
{
    return READONLY ? __ldg(p + i) : p[i];
}

/* Bilinear sample of q at departure point p, indices clamped to the field. */
template <bool READONLY>
__device__ __forceinline__ float advect_sample(const float *q, float2 p, int w, int h)
{
    float fx = floorf(p.x), fy = floorf(p.y);
    float a = p.x - fx, b = p.y - fy;
    int x0 = min(max((int)fx, 0), w - 1), x1 = min(max((int)fx + 1, 0), w - 1);
    int y0 = min(max((int)fy, 0), h - 1), y1 = min(max((int)fy + 1, 0), h - 1);
    float t00 = advect_load<READONLY>(q, (size_t)y0 * w + x0);
    float t10 = advect_load<READONLY>(q, (size_t)y0 * w + x1);
    float t01 = advect_load<READONLY>(q, (size_t)y1 * w + x0);
    float t11 = advect_load<READONLY>(q, (size_t)y1 * w + x1);
    return (1.0f - b) * ((1.0f - a) * t00 + a * t10) + b * ((1.0f - a) * t01 + a * t11);
}

/* Each thread does ADV_CELLS cells, ADV_BY rows apart: all their velocity
 * loads, then all their corner loads, then the stores, so twice the loads are
 * in flight per thread (the corner loads wait on the velocity loads: two
 * memory latencies back to back).  Stores come last because without
 * __restrict__ a store may alias the inputs and would pin the later loads. */
template <bool READONLY>
__device__ __forceinline__ void advect_body(const float *q, const float *u, const float *v,
                                            float *out, int w, int h)
{
    int x = blockIdx.x * ADV_BX + threadIdx.x;
    int y = blockIdx.y * (ADV_BY * ADV_CELLS) + threadIdx.y;
    if (x >= w)
        return;
    float2 p[ADV_CELLS];
    float r[ADV_CELLS];
#pragma unroll
    for (int k = 0; k < ADV_CELLS; ++k) {
        int yk = min(y + k * ADV_BY, h - 1);   /* rows past the edge redo the last row */
        size_t i = (size_t)yk * w + x;
        p[k] = advect_departure(x, yk, advect_load<READONLY>(u, i), advect_load<READONLY>(v, i),
                                w, h);
    }
#pragma unroll
    for (int k = 0; k < ADV_CELLS; ++k)
        r[k] = advect_sample<READONLY>(q, p[k], w, h);
#pragma unroll
    for (int k = 0; k < ADV_CELLS; ++k)
        if (y + k * ADV_BY < h)
            out[(size_t)(y + k * ADV_BY) * w + x] = r[k];
}

__global__ void texture_kernel_global(const float *q, const float *u, const float *v, float *out,
                                      int w, int h)
{
    advect_body<false>(q, u, v, out, w, h);
}

__global__ void texture_kernel_readonly(const float *__restrict__ q, const float *__restrict__ u,
                                        const float *__restrict__ v, float *__restrict__ out,
                                        int w, int h)
{
    advect_body<true>(q, u, v, out, w, h);
}

__global__ void texture_kernel_texture(cudaTextureObject_t tq, const float *__restrict__ u,
                                       const float *__restrict__ v, float *__restrict__ out, int w,
                                       int h)
{
    int x = blockIdx.x * ADV_BX + threadIdx.x;
    int y = blockIdx.y * (ADV_BY * ADV_CELLS) + threadIdx.y;
    if (x >= w)
        return;
    float2 p[ADV_CELLS];
    float r[ADV_CELLS];
#pragma unroll
    for (int k = 0; k < ADV_CELLS; ++k) {
        int yk = min(y + k * ADV_BY, h - 1);
        size_t i = (size_t)yk * w + x;
        p[k] = advect_departure(x, yk, u[i], v[i], w, h);
    }
    /* texel centres sit at +0.5 in unnormalised coordinates */
#pragma unroll
    for (int k = 0; k < ADV_CELLS; ++k)
        r[k] = tex2D<float>(tq, p[k].x + 0.5f, p[k].y + 0.5f);
#pragma unroll
    for (int k = 0; k < ADV_CELLS; ++k)
        if (y + k * ADV_BY < h)
            out[(size_t)(y + k * ADV_BY) * w + x] = r[k];
}

/* ---- inputs shared by the cases of one n ---------------------------------- */

typedef struct {
    int n;
    double max_adjacent;       /* largest |q difference| between neighbouring cells */
    float *h_ref;              /* host: expected output */
    float *d_q, *d_u, *d_v;    /* device fields, row-major */
} S_input;

typedef struct {
    int n;
    float *q, *u, *v, *out;
} S_job;

/* A smooth field with a little noise, and a swirling velocity of up to 6
 * cells per step plus a jitter of up to one cell, cell by cell. */
static void S_fields_chunk(void *ctx, size_t begin, size_t end)
{
    S_job *j = (S_job *)ctx;
    const double two_pi = 6.283185307179586;
    for (size_t i = begin; i < end; ++i) {
        double fx = (double)(i % (size_t)j->n) / j->n, fy = (double)(i / (size_t)j->n) / j->n;
        j->q[i] += (float)(0.5 + 0.4 * sin(two_pi * 3 * fx) * cos(two_pi * 2 * fy));
        j->u[i] += (float)(6.0 * sin(two_pi * 2 * fy));
        j->v[i] += (float)(6.0 * cos(two_pi * 3 * fx));
    }
}

static void S_ref_chunk(void *ctx, size_t begin, size_t end)
{
    S_job *j = (S_job *)ctx;
    gm_ref_advect_range(j->q, j->u, j->v, j->out, j->n, j->n, ADV_DT, begin, end);
}

static double S_max_adjacent(const float *q, int n)
{
    double m = 0.0;
    for (size_t i = 0; i < (size_t)n * n; ++i) {
        if ((i + 1) % (size_t)n != 0)
            m = fmax(m, fabs((double)q[i + 1] - q[i]));
        if (i + n < (size_t)n * n)
            m = fmax(m, fabs((double)q[i + n] - q[i]));
    }
    return m;
}

static gm_status S_input_build(void *obj, void *ctx, gm_error *err)
{
    S_input *in = (S_input *)obj;
    int n = in->n = *(const int *)ctx;
    size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
    float *q = (float *)gm_xmalloc(bytes), *u = (float *)gm_xmalloc(bytes);
    float *v = (float *)gm_xmalloc(bytes);
    in->h_ref = (float *)gm_xmalloc(bytes);
    gm_fill_uniform_f32(q, nn, 0x7e41ULL + (uint64_t)n, -0.05f, 0.05f);
    gm_fill_uniform_f32(u, nn, 0x7e42ULL + (uint64_t)n, -1.0f, 1.0f);
    gm_fill_uniform_f32(v, nn, 0x7e43ULL + (uint64_t)n, -1.0f, 1.0f);
    S_job j = {n, q, u, v, in->h_ref};
    gm_parallel_for(nn, GM_PAR_ELEMS, S_fields_chunk, &j);
    gm_parallel_for(nn, GM_PAR_ELEMS, S_ref_chunk, &j);
    in->max_adjacent = S_max_adjacent(q, n);
    cudaError_t e = cudaMalloc(&in->d_q, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&in->d_u, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&in->d_v, bytes);
    if (e == cudaSuccess) e = cudaMemcpy(in->d_q, q, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(in->d_u, u, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(in->d_v, v, bytes, cudaMemcpyHostToDevice);
    free(q);
    free(u);
    free(v);
    if (e != cudaSuccess)
        return gm_fail(err, GM_ERR_CUDA, "texture: fields (n = %d, 3 x %zu bytes): %s (%s)", n,
                       bytes, cudaGetErrorString(e), cudaGetErrorName(e));
    return GM_OK;
}

static void S_input_destroy(void *obj)
{
    S_input *in = (S_input *)obj;
    cudaFree(in->d_q);
    cudaFree(in->d_u);
    cudaFree(in->d_v);
    free(in->h_ref);
}

typedef struct {
    int n;
    S_input *in;
    float *d_out;
    cudaArray_t arr;            /* texture variant: q in the texture layout */
    cudaTextureObject_t tex;
    bool has_tex;
    double tol;
} S_state;

/* q copied into a cudaArray (the driver's block-linear layout for 2D
 * locality) behind a texture object: linear filtering, clamp addressing,
 * unnormalised coordinates. */
static gm_status S_make_texture(S_state *st, gm_error *err)
{
    size_t n = (size_t)st->n;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    GM_CUDA(cudaMallocArray(&st->arr, &fd, n, n));
    GM_CUDA(cudaMemcpy2DToArray(st->arr, 0, 0, st->in->d_q, n * sizeof(float), n * sizeof(float),
                                n, cudaMemcpyDeviceToDevice));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = st->arr;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = cudaAddressModeClamp;
    td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 0;
    GM_CUDA(cudaCreateTextureObject(&st->tex, &rd, &td, NULL));
    st->has_tex = true;
    return GM_OK;
}

/* ---- launchers ------------------------------------------------------------ */

gm_status texture_launch_global(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    texture_kernel_global<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(
        st->in->d_q, st->in->d_u, st->in->d_v, st->d_out, st->n, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status texture_launch_readonly(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    texture_kernel_readonly<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(
        st->in->d_q, st->in->d_u, st->in->d_v, st->d_out, st->n, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status texture_launch_texture(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    texture_kernel_texture<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->tex, st->in->d_u,
                                                                   st->in->d_v, st->d_out, st->n,
                                                                   st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

gm_status texture_setup(gm_case *c, gm_error *err)
{
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    int n = st->n = (int)gm_case_param(c, "n", 0);
    char key[64];
    snprintf(key, sizeof key, "texture/%d", n);
    gm_status rc = gm_shared_get(key, sizeof(S_input), S_input_build, S_input_destroy, &n,
                                 (void **)&st->in, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->d_out, (size_t)n * n * sizeof(float)));
    /* plain loads: float arithmetic against the double reference, values
     * near 1: 1e-5.  Texture: see the opening comment. */
    st->tol = 1e-5;
    if (c->variant->kind == GM_TEXTURE_GLOBAL)
        return gm_case_query_kernel(c, (const void *)texture_kernel_global, err);
    if (c->variant->kind == GM_TEXTURE_READONLY)
        return gm_case_query_kernel(c, (const void *)texture_kernel_readonly, err);
    st->tol = st->in->max_adjacent / 128.0 + 1e-5;
    snprintf(c->note, sizeof c->note,
             "texture filtering weights have 8 fractional bits: checked to within the largest "
             "neighbour difference / 128 = %.3g (the plain-load variants to 1e-5)",
             st->tol);
    if ((rc = S_make_texture(st, err)) != GM_OK)
        return rc;
    return gm_case_query_kernel(c, (const void *)texture_kernel_texture, err);
}

gm_status texture_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->d_out, (size_t)st->n * st->n * sizeof(float), s, err);
}

/* CPU reference: gm_ref_advect_range (texture.c). */
gm_status texture_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->d_out, st->in->h_ref, (size_t)st->n * st->n, st->tol, 0.0, out, err);
}

void texture_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    if (st->has_tex)
        cudaDestroyTextureObject(st->tex);
    if (st->arr)
        cudaFreeArray(st->arr);
    gm_shared_release(st->in);
    if (st->d_out)
        cudaFree(st->d_out);
    free(st);
    c->state = NULL;
}
