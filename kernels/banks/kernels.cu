/* banks/kernels.cu — experiment 10: shared-memory bank conflicts, isolated.
 *
 * Shared memory is 32 banks of 4-byte words; word w lives in bank w % 32.  A
 * warp's load is served in one wavefront when its 32 words sit in 32 different
 * banks (or are the same word); k different words in one bank take k.  Here
 * lane l of every warp reads word l * stride (plus a whole number of 32-word
 * rows, which keeps every lane on its bank), so stride s (a power of two) puts
 * s words on each bank used: an s-way conflict.  Padding the array by one word
 * per 32 (word w stored at w + w/32) shifts each row by one bank and spreads
 * every stride over all 32 banks.
 *
 * Run: build/tests/gpu/suite_validate --only banks   (build/gpumem-report collect --only banks)
 *
 * variants:
 *   unpadded   s[w]: stride 1 is conflict-free, stride 2^k is a 2^k-way conflict
 *   padded     s[w + w/32]: conflict-free for every stride
 *
 * Both variants execute the same instructions: each thread computes its base
 * address once, then the 32 unrolled steps read base + r * 32 words (padded:
 * base + r * 33) with constant offsets, one load and one add per step, so the
 * shared-memory wavefronts, not address arithmetic, set the pace.  The global
 * traffic is identical and small: a block stages 8 KiB (8 floats per thread,
 * coalesced, conflict-free stores) and writes one float per thread.
 *
 * Napkin math (2^20 threads, reps = 512): 36 MiB of global traffic (~12 us)
 * against 2^15 warps x 512 = 16.8 M shared load instructions, 127 k
 * wavefronts per SM when conflict-free (~70 us at 1.8 GHz) and 32 times that
 * at stride 32.
 *
 * CPU reference: gm_ref_banks (banks.c); address trace: trace.c.
 */
#include "banks.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

template <bool PAD>
__device__ __forceinline__ int banks_slot(int w)
{
    return PAD ? w + (w >> 5) : w;
}

template <bool PAD>
__device__ __forceinline__ void banks_body(const float *in, float *out, int stride, int reps)
{
    __shared__ float s[GM_BANKS_WORDS + (PAD ? GM_BANKS_WORDS / 32 : 0)];
    const float *src = in + (size_t)blockIdx.x * GM_BANKS_WORDS;
    /* consecutive threads, consecutive words of one 32-word row: no conflict in
     * either layout, so the staging costs the same everywhere */
    for (int w = threadIdx.x; w < GM_BANKS_WORDS; w += GM_BANKS_BLOCK)
        s[banks_slot<PAD>(w)] = src[w];
    __syncthreads();

    /* word w + 32 r sits at slot(w) + 32 r unpadded, slot(w) + 33 r padded;
     * volatile: every step is a real load (nothing in shared memory changes,
     * so the compiler could otherwise keep the 32 values in registers) */
    const int row = PAD ? 33 : 32;
    const volatile float *p = s + banks_slot<PAD>((threadIdx.x & 31) * stride);
    float sum = 0.0f;
    for (int r0 = 0; r0 < reps; r0 += GM_BANKS_UNROLL) {
#pragma unroll
        for (int r = 0; r < GM_BANKS_UNROLL; ++r)
            sum += p[r * row];
    }
    out[(size_t)blockIdx.x * GM_BANKS_BLOCK + threadIdx.x] = sum;
}

__global__ void banks_kernel_unpadded(const float *in, float *out, int stride, int reps)
{
    banks_body<false>(in, out, stride, reps);
}

__global__ void banks_kernel_padded(const float *in, float *out, int stride, int reps)
{
    banks_body<true>(in, out, stride, reps);
}

/* ---- inputs shared by the cases of one (threads, stride, reps) ------------ */

typedef struct {
    long long threads;
    int stride, reps;
} S_key;

typedef struct {
    float *h_ref;   /* host: expected sums */
    float *d_in;    /* device: the words each block stages */
} S_input;

typedef struct {
    const float *in;
    float *out;
    int stride, reps;
} S_ref_job;

static void S_ref_chunk(void *ctx, size_t begin, size_t end)
{
    S_ref_job *j = (S_ref_job *)ctx;
    gm_ref_banks_range(j->in, j->out, j->stride, j->reps, begin, end);
}

static gm_status S_input_build(void *obj, void *ctx, gm_error *err)
{
    S_input *in = (S_input *)obj;
    const S_key *k = (const S_key *)ctx;
    size_t words = (size_t)(k->threads / GM_BANKS_BLOCK) * GM_BANKS_WORDS;
    float *h = (float *)gm_xmalloc(words * sizeof(float));
    in->h_ref = (float *)gm_xmalloc((size_t)k->threads * sizeof(float));
    gm_fill_uniform_f32(h, words, 0xba4cULL, 0.0f, 1.0f);
    S_ref_job j = {h, in->h_ref, k->stride, k->reps};
    gm_parallel_for((size_t)k->threads, GM_PAR_ELEMS / 64, S_ref_chunk, &j);
    cudaError_t e = cudaMalloc(&in->d_in, words * sizeof(float));
    if (e == cudaSuccess)
        e = cudaMemcpy(in->d_in, h, words * sizeof(float), cudaMemcpyHostToDevice);
    free(h);
    if (e != cudaSuccess)
        return gm_fail(err, GM_ERR_CUDA, "banks: input (%zu floats): %s (%s)", words,
                       cudaGetErrorString(e), cudaGetErrorName(e));
    return GM_OK;
}

static void S_input_destroy(void *obj)
{
    S_input *in = (S_input *)obj;
    cudaFree(in->d_in);
    free(in->h_ref);
}

typedef struct {
    S_key k;
    S_input *in;
    float *d_out;
} S_state;

/* ---- launchers ------------------------------------------------------------ */

template <typename K>
static gm_status S_launch(gm_case *c, K kernel, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    kernel<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->in->d_in, st->d_out, st->k.stride,
                                                    st->k.reps);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status banks_launch_unpadded(gm_case *c, cudaStream_t s, gm_error *err)
{
    return S_launch(c, banks_kernel_unpadded, s, err);
}

gm_status banks_launch_padded(gm_case *c, cudaStream_t s, gm_error *err)
{
    return S_launch(c, banks_kernel_padded, s, err);
}

/* ---- setup / reset / check / teardown ------------------------------------- */

gm_status banks_setup(gm_case *c, gm_error *err)
{
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->k.threads = gm_case_param(c, "threads", 0);
    st->k.stride = (int)gm_case_param(c, "stride", 1);
    st->k.reps = (int)gm_case_param(c, "reps", 0);
    char key[96];
    snprintf(key, sizeof key, "banks/%lld/%d/%d", st->k.threads, st->k.stride, st->k.reps);
    gm_status rc = gm_shared_get(key, sizeof(S_input), S_input_build, S_input_destroy, &st->k,
                                 (void **)&st->in, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->d_out, (size_t)st->k.threads * sizeof(float)));
    if (c->variant->kind == GM_BANKS_UNPADDED)
        return gm_case_query_kernel(c, (const void *)banks_kernel_unpadded, err);
    return gm_case_query_kernel(c, (const void *)banks_kernel_padded, err);
}

gm_status banks_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_poison(st->d_out, (size_t)st->k.threads * sizeof(float), s, err);
}

/* CPU reference: gm_ref_banks_range (banks.c), the same float additions
 * in the same order as the kernel: the sums must match exactly. */
gm_status banks_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->d_out, st->in->h_ref, (size_t)st->k.threads, 0.0, 0.0, out, err);
}

void banks_teardown(gm_case *c)
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
