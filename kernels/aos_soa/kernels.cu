/* aos_soa/kernels.cu — experiment 3: particles as an array of structures or a
 * structure of arrays.
 *
 * A particle has 7 floats: position x, y, z, velocity vx, vy, vz, mass m.  Two
 * steps of a simulation, selected by the parameter `fields`:
 *   fields=4  kinetic energy e = (0.5 m)(vx^2 + vy^2 + vz^2): reads vx, vy, vz, m
 *             (16 of 28 bytes), writes e: must move 16N read, 4N written
 *   fields=7  one step with drag, x += v dt, v *= 1 - drag dt/m: reads and
 *             writes all 7 fields: must move 28N read, 28N written
 *
 * Run: build/tests/gpu/suite_validate --only aos_soa   (build/gpumem-report collect --only aos_soa)
 *
 * variants (the layout of both input and output particles):
 *   aos         struct {x,y,z,vx,vy,vz,m} of 28 bytes: a warp's load of one
 *               field touches 32 floats 28 bytes apart (28 sectors for 4 useful)
 *   soa         7 arrays: every field load of a warp is 128 contiguous bytes
 *   aos_padded  struct {x,y,z,pad,vx,vy,vz,m} of 32 bytes read as two 16-byte
 *               loads: whole structures move at full width, but fields=4 still
 *               drags the position half of every sector along
 *
 * Napkin math (N = 2^23): fields=7 moves 224 MiB each way, 448 MiB, ~0.16 ms
 * at 3 TB/s; fields=4 moves 128 MiB in and 32 MiB out, ~0.06 ms.  At fields=4
 * the structures bring whole particles through DRAM: 28N bytes read for 16N
 * useful (1.75x), padded 32N (2x); the arrays read only the 4 fields needed.
 *
 * CPU reference: gm_ref_particles_energy, gm_ref_particles_step (aos_soa.c);
 * address trace: trace.c.
 */
#include "aos_soa.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S_DT 0.01f
#define S_DRAG 0.1f

struct S_p7 {
    float x, y, z, vx, vy, vz, m;
};

/* ---- kernels -------------------------------------------------------------- */

/* Round-to-nearest intrinsics keep the CPU reference's operation order (no
 * fused multiply-add), so results agree to the bit. */
__device__ __forceinline__ float S_energy(float vx, float vy, float vz, float m)
{
    float v2 = __fadd_rn(__fadd_rn(__fmul_rn(vx, vx), __fmul_rn(vy, vy)), __fmul_rn(vz, vz));
    return __fmul_rn(__fmul_rn(0.5f, m), v2);
}

__device__ __forceinline__ float S_drag_factor(float m)
{
    return __fsub_rn(1.0f, __fdiv_rn(__fmul_rn(S_DRAG, S_DT), m));
}

__device__ __forceinline__ float S_move(float x, float v)
{
    return __fadd_rn(x, __fmul_rn(v, S_DT));
}

__global__ void aos_soa_kernel_aos_energy(const S_p7 *__restrict__ p, float *__restrict__ e,
                                          size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        e[i] = S_energy(p[i].vx, p[i].vy, p[i].vz, p[i].m);
}

__global__ void aos_soa_kernel_aos_step(const S_p7 *__restrict__ p, S_p7 *__restrict__ q, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    S_p7 a = p[i], b;
    float f = S_drag_factor(a.m);
    b.x = S_move(a.x, a.vx);
    b.y = S_move(a.y, a.vy);
    b.z = S_move(a.z, a.vz);
    b.vx = __fmul_rn(a.vx, f);
    b.vy = __fmul_rn(a.vy, f);
    b.vz = __fmul_rn(a.vz, f);
    b.m = a.m;
    q[i] = b;
}

/* Planes of n floats: field k of particle i is at [k*n + i]. */
__global__ void aos_soa_kernel_soa_energy(const float *__restrict__ p, float *__restrict__ e,
                                          size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        e[i] = S_energy(p[GM_P_VX * n + i], p[GM_P_VY * n + i], p[GM_P_VZ * n + i],
                        p[GM_P_M * n + i]);
}

__global__ void aos_soa_kernel_soa_step(const float *__restrict__ p, float *__restrict__ q, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float m = p[GM_P_M * n + i];
    float f = S_drag_factor(m);
    q[GM_P_X * n + i] = S_move(p[GM_P_X * n + i], p[GM_P_VX * n + i]);
    q[GM_P_Y * n + i] = S_move(p[GM_P_Y * n + i], p[GM_P_VY * n + i]);
    q[GM_P_Z * n + i] = S_move(p[GM_P_Z * n + i], p[GM_P_VZ * n + i]);
    q[GM_P_VX * n + i] = __fmul_rn(p[GM_P_VX * n + i], f);
    q[GM_P_VY * n + i] = __fmul_rn(p[GM_P_VY * n + i], f);
    q[GM_P_VZ * n + i] = __fmul_rn(p[GM_P_VZ * n + i], f);
    q[GM_P_M * n + i] = m;
}

/* Particle i is float4 [2i] = (x, y, z, pad) and [2i+1] = (vx, vy, vz, m). */
__global__ void aos_soa_kernel_aos_padded_energy(const float4 *__restrict__ p,
                                                 float *__restrict__ e, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 v = p[2 * i + 1];
    e[i] = S_energy(v.x, v.y, v.z, v.w);
}

__global__ void aos_soa_kernel_aos_padded_step(const float4 *__restrict__ p,
                                               float4 *__restrict__ q, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 r = p[2 * i], v = p[2 * i + 1];
    float f = S_drag_factor(v.w);
    q[2 * i] = make_float4(S_move(r.x, v.x), S_move(r.y, v.y), S_move(r.z, v.z), 0.0f);
    q[2 * i + 1] = make_float4(__fmul_rn(v.x, f), __fmul_rn(v.y, f), __fmul_rn(v.z, f), v.w);
}

/* ---- the particles, shared by the cases of one N -------------------------- */

/* The reference data of one N, shared by all cases: input planes, energy and
 * step references (canonical SoA order). */
typedef struct {
    size_t n;
    float *soa;        /* 7 planes of n */
    float *ref_e;      /* n */
    float *ref_step;   /* 7 planes of n */
} S_host;

/* The input particles in one layout on the device, shared by that layout's cases. */
typedef struct {
    int layout;
    size_t n;
    void *d;
} S_dev;

/* Bytes of n particles in a layout. */
static size_t S_layout_bytes(int layout, size_t n)
{
    return n * (layout == GM_AOS_SOA_AOS_PADDED ? 32 : 28);
}

typedef struct {
    S_host *h;
} S_ref_job;

static void S_ref_chunk(void *ctx, size_t i0, size_t i1)
{
    S_host *h = ((S_ref_job *)ctx)->h;
    size_t n = h->n;
    const float *p[GM_P_FIELDS];
    float *q[GM_P_FIELDS];
    for (int k = 0; k < GM_P_FIELDS; k++) {
        p[k] = h->soa + (size_t)k * n;
        q[k] = h->ref_step + (size_t)k * n;
    }
    gm_ref_particles_energy(p, h->ref_e, i0, i1);
    gm_ref_particles_step(p, q, S_DT, S_DRAG, i0, i1);
}

static gm_status S_host_build(void *obj, void *ctx, gm_error *err)
{
    (void)err;
    S_host *h = (S_host *)obj;
    h->n = *(const size_t *)ctx;
    size_t n = h->n;
    h->soa = (float *)gm_xmalloc(GM_P_FIELDS * n * sizeof(float));
    h->ref_e = (float *)gm_xmalloc(n * sizeof(float));
    h->ref_step = (float *)gm_xmalloc(GM_P_FIELDS * n * sizeof(float));
    /* Positions in [-100, 100), velocities in [-10, 10), masses in [0.5, 2). */
    static const float lo[GM_P_FIELDS] = {-100, -100, -100, -10, -10, -10, 0.5f};
    static const float hi[GM_P_FIELDS] = {100, 100, 100, 10, 10, 10, 2.0f};
    for (int k = 0; k < GM_P_FIELDS; k++)
        gm_fill_uniform_f32(h->soa + (size_t)k * n, n, 0xA05Au * 31 + (uint64_t)k, lo[k], hi[k]);
    /* CPU reference call. */
    S_ref_job job = {h};
    gm_parallel_for(n, GM_PAR_ELEMS, S_ref_chunk, &job);
    return GM_OK;
}

static void S_host_destroy(void *obj)
{
    S_host *h = (S_host *)obj;
    free(h->soa);
    free(h->ref_e);
    free(h->ref_step);
}

/* Conversion between the canonical planes and a layout, by particle ranges. */
typedef struct {
    int layout;
    size_t n;
    float *soa, *buf;
    bool to_layout;
} S_conv;

static void S_conv_chunk(void *ctx, size_t i0, size_t i1)
{
    S_conv *c = (S_conv *)ctx;
    size_t n = c->n;
    if (c->layout == GM_AOS_SOA_SOA) {
        for (int k = 0; k < GM_P_FIELDS; k++) {
            float *a = c->soa + (size_t)k * n + i0, *b = c->buf + (size_t)k * n + i0;
            memcpy(c->to_layout ? b : a, c->to_layout ? a : b, (i1 - i0) * sizeof(float));
        }
        return;
    }
    /* Structure slot of field k: aos 0..6; padded skips slot 3 (the pad). */
    int w = c->layout == GM_AOS_SOA_AOS_PADDED ? 8 : 7;
    for (size_t i = i0; i < i1; i++) {
        float *s = c->buf + i * (size_t)w;
        for (int k = 0; k < GM_P_FIELDS; k++) {
            int slot = (c->layout == GM_AOS_SOA_AOS_PADDED && k >= GM_P_VX) ? k + 1 : k;
            if (c->to_layout)
                s[slot] = c->soa[(size_t)k * n + i];
            else
                c->soa[(size_t)k * n + i] = s[slot];
        }
        if (c->layout == GM_AOS_SOA_AOS_PADDED && c->to_layout)
            s[3] = 0.0f;
    }
}

typedef struct {
    int layout;
    S_host *h;
} S_dev_ctx;

static gm_status S_dev_build(void *obj, void *ctx, gm_error *err)
{
    S_dev *d = (S_dev *)obj;
    S_dev_ctx *x = (S_dev_ctx *)ctx;
    d->layout = x->layout;
    d->n = x->h->n;
    size_t bytes = S_layout_bytes(d->layout, d->n);
    float *buf = (float *)gm_xmalloc(bytes);
    S_conv conv = {d->layout, d->n, x->h->soa, buf, true};
    gm_parallel_for(d->n, GM_PAR_ELEMS, S_conv_chunk, &conv);
    cudaError_t e = cudaMalloc(&d->d, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(d->d, buf, bytes, cudaMemcpyHostToDevice);
    free(buf);
    GM_CUDA(e);
    return GM_OK;
}

static void S_dev_destroy(void *obj)
{
    S_dev *d = (S_dev *)obj;
    if (d->d)
        cudaFree(d->d);
}

typedef struct {
    int layout, fields;
    size_t n;
    S_host *host;
    S_dev *in;
    void *out;          /* device: particles in the layout (fields=7) or energies */
    size_t out_bytes;
} S_state;

/* ---- launchers ------------------------------------------------------------ */

gm_status aos_soa_launch_aos(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    if (st->fields == 4)
        aos_soa_kernel_aos_energy<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
            (const S_p7 *)st->in->d, (float *)st->out, st->n);
    else
        aos_soa_kernel_aos_step<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
            (const S_p7 *)st->in->d, (S_p7 *)st->out, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status aos_soa_launch_soa(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    if (st->fields == 4)
        aos_soa_kernel_soa_energy<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
            (const float *)st->in->d, (float *)st->out, st->n);
    else
        aos_soa_kernel_soa_step<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
            (const float *)st->in->d, (float *)st->out, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status aos_soa_launch_aos_padded(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    if (st->fields == 4)
        aos_soa_kernel_aos_padded_energy<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
            (const float4 *)st->in->d, (float *)st->out, st->n);
    else
        aos_soa_kernel_aos_padded_step<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
            (const float4 *)st->in->d, (float4 *)st->out, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

static const void *S_kernel(const gm_case *c)
{
    bool energy = gm_case_param(c, "fields", 7) == 4;
    switch (c->variant->kind) {
    case GM_AOS_SOA_SOA:
        return energy ? (const void *)aos_soa_kernel_soa_energy
                      : (const void *)aos_soa_kernel_soa_step;
    case GM_AOS_SOA_AOS_PADDED:
        return energy ? (const void *)aos_soa_kernel_aos_padded_energy
                      : (const void *)aos_soa_kernel_aos_padded_step;
    default:
        return energy ? (const void *)aos_soa_kernel_aos_energy
                      : (const void *)aos_soa_kernel_aos_step;
    }
}

gm_status aos_soa_setup(gm_case *c, gm_error *err)
{
    gm_status rc = gm_case_query_kernel(c, S_kernel(c), err);
    if (rc != GM_OK)
        return rc;
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->n = (size_t)gm_case_param(c, "n", 0);
    st->fields = (int)gm_case_param(c, "fields", 7);
    st->layout = c->variant->kind;
    char key[64];
    snprintf(key, sizeof key, "aos_soa/host/%zu", st->n);
    rc = gm_shared_get(key, sizeof(S_host), S_host_build, S_host_destroy, &st->n,
                       (void **)&st->host, err);
    if (rc != GM_OK)
        return rc;
    snprintf(key, sizeof key, "aos_soa/dev/%d/%zu", st->layout, st->n);
    S_dev_ctx dx = {st->layout, st->host};
    rc = gm_shared_get(key, sizeof(S_dev), S_dev_build, S_dev_destroy, &dx, (void **)&st->in, err);
    if (rc != GM_OK)
        return rc;
    st->out_bytes = st->fields == 4 ? st->n * sizeof(float) : S_layout_bytes(st->layout, st->n);
    GM_CUDA(cudaMalloc(&st->out, st->out_bytes));
    return GM_OK;
}

gm_status aos_soa_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->out, st->out_bytes, s, err);
}

/* Energies compare directly; stepped particles are brought back to planes
 * (index k*N + i is field k of particle i).  Same operations in the same
 * order: a tolerance of 1e-6 relative only forgives a last-bit difference. */
gm_status aos_soa_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    if (st->fields == 4)
        return gm_check_f32((const float *)st->out, st->host->ref_e, st->n, 0.0, 1e-6, out, err);
    void *buf = NULL;
    gm_status rc = gm_copy_back(st->out, st->out_bytes, &buf, err);
    if (rc != GM_OK)
        return rc;
    float *planes = (float *)gm_xmalloc(GM_P_FIELDS * st->n * sizeof(float));
    S_conv conv = {st->layout, st->n, planes, (float *)buf, false};
    gm_parallel_for(st->n, GM_PAR_ELEMS, S_conv_chunk, &conv);
    gm_compare_f32(planes, st->host->ref_step, GM_P_FIELDS * st->n, 0.0, 1e-6, out);
    free(planes);
    return GM_OK;
}

void aos_soa_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    gm_shared_release(st->in);
    gm_shared_release(st->host);
    if (st->out)
        cudaFree(st->out);
    free(st);
    c->state = NULL;
}
