/* alignment/kernels.cu — experiment 2: a coalesced read shifted off alignment.
 *
 * Every variant copies N floats, out[i] = in[k + i], where the source starts
 * k = offset/4 floats past a 512-byte-aligned allocation; the output is
 * aligned.  Must move: 4N bytes read, 4N bytes written, at every offset.
 *
 * Run: build/tests/gpu/suite_validate --only alignment   (build/gpumem-report collect --only alignment)
 *
 * variants (blocks of 256 threads):
 *   scalar   one 4-byte load per thread: a warp's 128-byte request starts
 *            offset mod 128 bytes into a line: 1 line and 4 sectors at offset 0,
 *            2 lines and 4 sectors at 96 ("cross a line, pay in time"), 2 lines
 *            and 5 sectors at 100 ("cross a sector, pay in bytes")
 *   float4   one 16-byte load per thread (512 bytes per warp); the hardware
 *            needs 16-byte-aligned addresses, so offsets that are not
 *            multiples of 16 are recorded as not run
 *
 * Napkin math: 4N bytes read + 4N written at every offset; N = 2^25 is 256 MiB
 * of traffic, ~0.09 ms at 3 TB/s.  At an offset that is not a multiple of 32
 * a warp's request touches 5 sectors for 4 sectors' worth of data: at most
 * 5/4 of the read bytes, 9N instead of 8N in all, before neighbouring warps
 * share the straddled sectors in the caches.
 *
 * CPU reference: gm_ref_alignment (alignment.c); address trace: trace.c.
 */
#include "alignment.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

__global__ void alignment_kernel_scalar(const float *__restrict__ in, float *__restrict__ out,
                                        size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

__global__ void alignment_kernel_float4(const float4 *__restrict__ in, float4 *__restrict__ out,
                                        size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4)
        out[i] = in[i];
}

/* ---- the source array, shared by the cases of one N ----------------------- */

/* The source array and its host copy, shared by every case of one N: the
 * reference of offset k is the host copy read from k. */
typedef struct {
    size_t n;
    float *h;     /* host, n + ALIGNMENT_PAD floats */
    float *ref;   /* host, n floats: the reference of the case being checked */
    float *d;     /* device */
} S_input;

static gm_status S_input_build(void *obj, void *ctx, gm_error *err)
{
    S_input *in = (S_input *)obj;
    in->n = *(const size_t *)ctx;
    size_t bytes = (in->n + ALIGNMENT_PAD) * sizeof(float);
    in->h = (float *)gm_xmalloc(bytes);
    in->ref = (float *)gm_xmalloc(in->n * sizeof(float));
    gm_fill_uniform_f32(in->h, in->n + ALIGNMENT_PAD, 0xA119u ^ in->n, -1000.0f, 1000.0f);
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
    const float *in;
    float *out;
    size_t k;
} S_ref_job;

static void S_ref_chunk(void *ctx, size_t i0, size_t i1)
{
    S_ref_job *j = (S_ref_job *)ctx;
    gm_ref_alignment(j->in + i0, j->out + i0, i1 - i0, j->k);
}

typedef struct {
    size_t n, offset;   /* offset in bytes */
    S_input *in;
    float *out;         /* device */
} S_state;

/* ---- launchers ------------------------------------------------------------ */

gm_status alignment_launch_scalar(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    alignment_kernel_scalar<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        st->in->d + st->offset / 4, st->out, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status alignment_launch_float4(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    alignment_kernel_float4<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        (const float4 *)(st->in->d + st->offset / 4), (float4 *)st->out, st->n / 4);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

static const void *S_kernel(const gm_case *c)
{
    return gm_alignment_width(c) == 4 ? (const void *)alignment_kernel_float4
                           : (const void *)alignment_kernel_scalar;
}

gm_status alignment_setup(gm_case *c, gm_error *err)
{
    gm_status rc = gm_case_query_kernel(c, S_kernel(c), err);
    if (rc != GM_OK)
        return rc;
    size_t n = (size_t)gm_case_param(c, "n", 0), off = (size_t)gm_case_param(c, "offset", 0);
    if (gm_alignment_width(c) == 4 && off % 16 != 0)
        return gm_fail(err, GM_ERR_UNSUPPORTED,
                       "16-byte loads need 16-byte-aligned addresses; offset %zu is not a "
                       "multiple of 16 (the scalar variant runs at every offset)",
                       off);
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->n = n;
    st->offset = off;
    char key[64];
    snprintf(key, sizeof key, "alignment/input/%zu", n);
    rc = gm_shared_get(key, sizeof(S_input), S_input_build, S_input_destroy, &n,
                       (void **)&st->in, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->out, n * sizeof(float)));
    return GM_OK;
}

gm_status alignment_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->out, st->n * sizeof(float), s, err);
}

/* CPU reference: out[i] = in[k + i] (alignment.c); a copy is exact. */
gm_status alignment_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    S_ref_job job = {st->in->h, st->in->ref, st->offset / 4};
    gm_parallel_for(st->n, GM_PAR_ELEMS, S_ref_chunk, &job);
    return gm_check_f32(st->out, st->in->ref, st->n, 0.0, 0.0, out, err);
}

void alignment_teardown(gm_case *c)
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
