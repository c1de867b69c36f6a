/* grid3d/kernels.cu — experiment 6: a 3D grid walked along z, stored z-major or
 * x-major.
 *
 * Second difference along z with clamped ends over an n^3 grid of floats,
 *   out(x,y,z) = (in(x,y,z-1) + in(x,y,z+1)) - 2 in(x,y,z).
 * Must move: 4n^3 bytes read (each input once; the neighbours come from
 * cache), 4n^3 written.  Both variants use the same threads: a warp is 32
 * consecutive z at one (x, y) (threadIdx.x -> z, threadIdx.y -> y, 4 y per
 * thread, blockIdx.z -> x), as in seed 000's weather-model example.  Only the
 * storage differs.
 *
 * Run: build/tests/gpu/suite_validate --only grid3d   (build/gpumem-report collect --only grid3d)
 *
 * variants:
 *   zmajor  (x,y,z) at z + n(y + n x): a warp reads 128 contiguous bytes
 *   xmajor  (x,y,z) at x + n(y + n z): consecutive z are 4n^2 bytes apart,
 *           a warp touches 32 lines (seed 000 claims up to 32x slower)
 *
 * Napkin math: 8n^3 bytes, 3n^3 flops; n = 256 is 64 MiB per grid, 128 MiB
 * moved, ~0.045 ms at 3 TB/s (n = 128, 8 MiB a grid, fits in L2).  x-major,
 * each thread's load is a sector of its own: 32 sectors for 128 useful bytes.
 *
 * CPU reference: gm_ref_grid3d_dzz (grid3d.c); address trace: trace.c.
 */
#include "grid3d.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

/* Strides in floats: element (x,y,z) at x*sx + y*sy + z*sz.  Each thread does
 * GRID3D_YPT points, y = y0 + k*blockDim.y: every load instruction of a warp is still
 * 32 consecutive z at one (x, y), but 4 independent columns give each thread
 * 12 loads in flight instead of 3 (one column per thread reached 71 % of copy
 * bandwidth z-major on an H100). */
__device__ __forceinline__ void S_dzz(const float *__restrict__ in, float *__restrict__ out,
                                      unsigned n, size_t sx, size_t sy, size_t sz)
{
    unsigned z = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y0 = blockIdx.y * blockDim.y * GRID3D_YPT + threadIdx.y;
    unsigned x = blockIdx.z;
    if (z >= n)
        return;
    unsigned zm = z > 0 ? z - 1 : 0, zp = z + 1 < n ? z + 1 : n - 1;
    float a[GRID3D_YPT], b[GRID3D_YPT], c[GRID3D_YPT];
#pragma unroll
    for (int k = 0; k < GRID3D_YPT; k++) {
        size_t base = x * sx + (size_t)(y0 + k * blockDim.y) * sy;
        a[k] = in[base + zm * sz];
        b[k] = in[base + z * sz];
        c[k] = in[base + zp * sz];
    }
#pragma unroll
    for (int k = 0; k < GRID3D_YPT; k++) {
        size_t base = x * sx + (size_t)(y0 + k * blockDim.y) * sy;
        out[base + z * sz] = __fsub_rn(__fadd_rn(a[k], c[k]), __fmul_rn(2.0f, b[k]));
    }
}

__global__ void grid3d_kernel_zmajor(const float *__restrict__ in, float *__restrict__ out,
                                     unsigned n)
{
    S_dzz(in, out, n, (size_t)n * n, n, 1);
}

__global__ void grid3d_kernel_xmajor(const float *__restrict__ in, float *__restrict__ out,
                                     unsigned n)
{
    S_dzz(in, out, n, 1, n, (size_t)n * n);
}

/* ---- the field, shared by the cases of one layout and n ------------------- */

/* The field in one layout with its reference, shared by the cases of that
 * layout and size. */
typedef struct {
    bool xmajor;
    size_t n;
    float *h_ref;   /* host, in the layout */
    float *d_in;    /* device, in the layout */
} S_field;

typedef struct {
    S_field *f;
    float *in;
} S_job;

/* The field value of (x,y,z) is element (x*n + y)*n + z of the stream, in
 * both layouts; the fill runs in storage order (slabs of the slowest index). */
static void S_fill_chunk(void *ctx, size_t o0, size_t o1)
{
    S_job *j = (S_job *)ctx;
    size_t n = j->f->n;
    uint64_t seed = 0x3D0000ull ^ n;
    for (size_t o = o0; o < o1; o++)
        for (size_t m = 0; m < n; m++)
            for (size_t i = 0; i < n; i++) {
                if (j->f->xmajor)   /* o = z, m = y, i = x */
                    j->in[i + n * (m + n * o)] =
                        gm_uniform_f32_at(seed, (i * n + m) * n + o, -1.0f, 1.0f);
                else                /* o = x, m = y, i = z */
                    j->in[i + n * (m + n * o)] =
                        gm_uniform_f32_at(seed, (o * n + m) * n + i, -1.0f, 1.0f);
            }
}

static void S_ref_chunk(void *ctx, size_t x0, size_t x1)
{
    S_job *j = (S_job *)ctx;
    size_t n = j->f->n;
    if (j->f->xmajor)
        gm_ref_grid3d_dzz(j->in, j->f->h_ref, n, n, n, 1, n, n * n, x0, x1);
    else
        gm_ref_grid3d_dzz(j->in, j->f->h_ref, n, n, n, n * n, n, 1, x0, x1);
}

static gm_status S_field_build(void *obj, void *ctx, gm_error *err)
{
    S_field *f = (S_field *)obj;
    const S_field *want = (const S_field *)ctx;
    f->xmajor = want->xmajor;
    f->n = want->n;
    size_t bytes = f->n * f->n * f->n * sizeof(float);
    S_job job = {f, (float *)gm_xmalloc(bytes)};
    f->h_ref = (float *)gm_xmalloc(bytes);
    gm_parallel_for(f->n, 1, S_fill_chunk, &job);
    /* CPU reference call. */
    gm_parallel_for(f->n, 1, S_ref_chunk, &job);
    cudaError_t e = cudaMalloc(&f->d_in, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(f->d_in, job.in, bytes, cudaMemcpyHostToDevice);
    free(job.in);
    GM_CUDA(e);
    return GM_OK;
}

static void S_field_destroy(void *obj)
{
    S_field *f = (S_field *)obj;
    if (f->d_in)
        cudaFree(f->d_in);
    free(f->h_ref);
}

typedef struct {
    size_t n;
    S_field *f;
    float *d_out;
} S_state;

/* ---- launchers ------------------------------------------------------------ */

gm_status grid3d_launch_zmajor(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    dim3 grid(c->launch.grid[0], c->launch.grid[1], c->launch.grid[2]);
    dim3 block(c->launch.block[0], c->launch.block[1]);
    grid3d_kernel_zmajor<<<grid, block, 0, s>>>(st->f->d_in, st->d_out, (unsigned)st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status grid3d_launch_xmajor(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    dim3 grid(c->launch.grid[0], c->launch.grid[1], c->launch.grid[2]);
    dim3 block(c->launch.block[0], c->launch.block[1]);
    grid3d_kernel_xmajor<<<grid, block, 0, s>>>(st->f->d_in, st->d_out, (unsigned)st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

static const void *S_kernel(const gm_case *c)
{
    return c->variant->kind == GM_GRID3D_XMAJOR ? (const void *)grid3d_kernel_xmajor
                                                : (const void *)grid3d_kernel_zmajor;
}

gm_status grid3d_setup(gm_case *c, gm_error *err)
{
    gm_status rc = gm_case_query_kernel(c, S_kernel(c), err);
    if (rc != GM_OK)
        return rc;
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->n = (size_t)gm_case_param(c, "n", 0);
    S_field want;
    memset(&want, 0, sizeof want);
    want.xmajor = c->variant->kind == GM_GRID3D_XMAJOR;
    want.n = st->n;
    char key[64];
    snprintf(key, sizeof key, "grid3d/%s/%zu", want.xmajor ? "xmajor" : "zmajor", st->n);
    rc = gm_shared_get(key, sizeof(S_field), S_field_build, S_field_destroy, &want,
                       (void **)&st->f, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->d_out, st->n * st->n * st->n * sizeof(float)));
    return GM_OK;
}

gm_status grid3d_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->d_out, st->n * st->n * st->n * sizeof(float), s, err);
}

/* (a + c) - 2b with 2b exact: the same roundings on both sides, bit-exact. */
gm_status grid3d_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->d_out, st->f->h_ref, st->n * st->n * st->n, 0.0, 0.0, out, err);
}

void grid3d_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    gm_shared_release(st->f);
    if (st->d_out)
        cudaFree(st->d_out);
    free(st);
    c->state = NULL;
}
