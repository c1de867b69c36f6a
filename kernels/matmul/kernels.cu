/* matmul/kernels.cu — experiment 8: C = A B for n x n floats, row-major, with
 * the operands in global, shared and constant memory.
 *
 * Two claims are tested.  The lab report (seed 003) timed B in global, shared
 * (tiled) and constant memory at BLOCK_SIZE 4 and 16 for N = 8..768 and found
 * tiles win only with 16x16 blocks, and constant memory only while B fits its
 * 64 KiB.  The course module (seed 004) climbs naive -> tiles -> padded tiles
 * -> double buffering.  Padding only pays where the tile is read or written
 * across banks, so the k-major tile (A's tile stored transposed, as
 * register-blocked kernels do) is measured with and without it too.
 *
 * Run: build/tests/gpu/suite_validate --only matmul   (build/gpumem-report collect --only matmul)
 *
 * variants (block = BLOCK_SIZE x BLOCK_SIZE threads, one output per thread):
 *   naive               A's row and B's column straight from global memory
 *   tiled               T x T tiles of A and B staged in shared memory, T = BLOCK_SIZE
 *   constant            naive, with B in __constant__ memory (n*n*4 <= 64 KiB, else not run)
 *   tiled_padded        tiled with [T][T+1] arrays (seed 004's padding, same access pattern)
 *   tiled_kmajor        A's tile stored k-major (as[k][row]): the store strides T words
 *   tiled_kmajor_padded k-major with [T][T+1]: the store walks the banks
 *   double_buffer       tiled with two tile buffers: the next tile's global loads are
 *                       issued before the current tile's arithmetic, one barrier per tile
 *
 * Napkin math: 2 n^3 flops; each input read once = 8 n^2 bytes, output 4 n^2.
 * naive reads A's row (one sector per warp row, broadcast) and B's row segment
 * (coalesced) n times per output tile, i.e. 2 n^3 / BLOCK_SIZE words of L1
 * traffic; tiles cut global loads by the tile width.
 *
 * CPU reference: gm_ref_matmul (matmul.c); address trace: trace.c.
 */
#include "matmul.h"
#include "../transpose/transpose.h"   /* gm_ref_transpose_range: B transposed for the reference */
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

__global__ void matmul_kernel_naive(const float *a, const float *b, float *c, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n)
        return;
    float s = 0.0f;
    for (int k = 0; k < n; ++k)
        s += a[(size_t)row * n + k] * b[(size_t)k * n + col];
    c[(size_t)row * n + col] = s;
}

/* 16384 floats = 65536 bytes: all the constant memory a module may declare,
 * so n <= 128 fits.  Each warp reads BLOCK_SIZE different words of a row of B
 * per step; the constant cache serves one address per cycle, so those reads
 * are serialised: constant memory pays only when a warp reads one address. */
#define MATMUL_CONST_FLOATS 16384
__constant__ float matmul_const_b[MATMUL_CONST_FLOATS];

__global__ void matmul_kernel_constant(const float *a, float *c, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n)
        return;
    float s = 0.0f;
    for (int k = 0; k < n; ++k)
        s += a[(size_t)row * n + k] * matmul_const_b[k * n + col];
    c[(size_t)row * n + col] = s;
}

/* One T x T output tile per block.  With T = 16 a warp is two rows of the
 * block (ty = 0, 1).  KMAJOR stores A's tile transposed: the store as[tx][ty]
 * strides 16 words across tx, 8 threads on each of banks 0, 1, 16, 17 (an
 * 8-way conflict); PAD = 1 makes the stride 17, and the 32 stores then share
 * a bank only once (tx 15 of row 1 wraps onto tx 0 of row 0).  On the
 * row-major tile PAD = 1 has nothing to fix and adds that one 2-way overlap
 * (word 32 of the second row meets word 0).  The reads as[ty][k], as[k][ty]
 * and bs[k][tx] are broadcasts or consecutive words in every layout. */
template <int T, int PAD, bool KMAJOR>
__device__ __forceinline__ void matmul_tiled_body(const float *a, const float *b, float *c,
                                                  int n)
{
    __shared__ float as[T][T + PAD];
    __shared__ float bs[T][T + PAD];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float s = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        float av = (row < n && k0 + tx < n) ? a[(size_t)row * n + k0 + tx] : 0.0f;
        if (KMAJOR)
            as[tx][ty] = av;
        else
            as[ty][tx] = av;
        bs[ty][tx] = (k0 + ty < n && col < n) ? b[(size_t)(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k)
            s += (KMAJOR ? as[k][ty] : as[ty][k]) * bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        c[(size_t)row * n + col] = s;
}

template <int T>
__global__ void matmul_kernel_tiled(const float *a, const float *b, float *c, int n)
{
    matmul_tiled_body<T, 0, false>(a, b, c, n);
}

template <int T>
__global__ void matmul_kernel_tiled_padded(const float *a, const float *b, float *c, int n)
{
    matmul_tiled_body<T, 1, false>(a, b, c, n);
}

template <int T>
__global__ void matmul_kernel_tiled_kmajor(const float *a, const float *b, float *c, int n)
{
    matmul_tiled_body<T, 0, true>(a, b, c, n);
}

template <int T>
__global__ void matmul_kernel_tiled_kmajor_padded(const float *a, const float *b, float *c, int n)
{
    matmul_tiled_body<T, 1, true>(a, b, c, n);
}

/* Two buffers: while tile t is multiplied out of buffer t&1, tile t+1 is
 * already on its way from global memory into registers, and lands in the
 * other buffer afterwards.  Buffer (t+1)&1 was last read in iteration t-1,
 * which ended with the barrier, so one barrier per tile suffices. */
template <int T>
__global__ void matmul_kernel_double_buffer(const float *a, const float *b, float *c, int n)
{
    __shared__ float as[2][T][T];
    __shared__ float bs[2][T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    int tiles = (n + T - 1) / T;

    as[0][ty][tx] = (row < n && tx < n) ? a[(size_t)row * n + tx] : 0.0f;
    bs[0][ty][tx] = (ty < n && col < n) ? b[(size_t)ty * n + col] : 0.0f;
    __syncthreads();

    float s = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        int cur = t & 1, k1 = (t + 1) * T;
        float an = 0.0f, bn = 0.0f;
        if (t + 1 < tiles) {
            an = (row < n && k1 + tx < n) ? a[(size_t)row * n + k1 + tx] : 0.0f;
            bn = (k1 + ty < n && col < n) ? b[(size_t)(k1 + ty) * n + col] : 0.0f;
        }
#pragma unroll
        for (int k = 0; k < T; ++k)
            s += as[cur][ty][k] * bs[cur][k][tx];
        if (t + 1 < tiles) {
            as[cur ^ 1][ty][tx] = an;
            bs[cur ^ 1][ty][tx] = bn;
        }
        __syncthreads();
    }
    if (row < n && col < n)
        c[(size_t)row * n + col] = s;
}

/* ---- inputs shared by the cases of one n ---------------------------------- */

/* A, B and the reference C for one n: every variant and block size of that n
 * multiplies the same matrices. */
typedef struct {
    int n;
    float *h_ref;          /* host: expected C */
    float *d_a, *d_b;      /* device inputs */
} S_input;

typedef struct {
    const float *a, *bt;
    float *c;
    int n;
} S_ref_job;

static void S_ref_chunk(void *ctx, size_t begin, size_t end)
{
    S_ref_job *j = (S_ref_job *)ctx;
    gm_ref_matmul_bt_range(j->a, j->bt, j->c, j->n, begin, end);
}

typedef struct {
    const float *in;
    float *out;
    int n;
} S_tr_job;

static void S_tr_chunk(void *ctx, size_t begin, size_t end)
{
    S_tr_job *j = (S_tr_job *)ctx;
    gm_ref_transpose_range(j->in, j->out, j->n, j->n, begin, end);
}

static gm_status S_input_build(void *obj, void *ctx, gm_error *err)
{
    S_input *in = (S_input *)obj;
    int n = in->n = *(const int *)ctx;
    size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
    float *a = (float *)gm_xmalloc(bytes), *b = (float *)gm_xmalloc(bytes);
    float *bt = (float *)gm_xmalloc(bytes);
    in->h_ref = (float *)gm_xmalloc(bytes);
    gm_fill_uniform_f32(a, nn, 0x8a11ULL + (uint64_t)n, -1.0f, 1.0f);
    gm_fill_uniform_f32(b, nn, 0x8b22ULL + (uint64_t)n, -1.0f, 1.0f);
    /* n^3 multiply-adds (3.6e9 at n = 1536): spread over the host's cores,
     * with B transposed so both operands stream */
    S_tr_job tj = {b, bt, n};
    gm_parallel_for(nn, GM_PAR_ELEMS, S_tr_chunk, &tj);
    S_ref_job rj = {a, bt, in->h_ref, n};
    gm_parallel_for(nn, (GM_PAR_ELEMS + (size_t)n - 1) / (size_t)n, S_ref_chunk, &rj);
    free(bt);
    cudaError_t e = cudaMalloc(&in->d_a, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&in->d_b, bytes);
    if (e == cudaSuccess) e = cudaMemcpy(in->d_a, a, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(in->d_b, b, bytes, cudaMemcpyHostToDevice);
    free(a);
    free(b);
    if (e != cudaSuccess)
        return gm_fail(err, GM_ERR_CUDA, "matmul: A and B (n = %d, %zu bytes each): %s (%s)", n,
                       bytes, cudaGetErrorString(e), cudaGetErrorName(e));
    return GM_OK;
}

static void S_input_destroy(void *obj)
{
    S_input *in = (S_input *)obj;
    cudaFree(in->d_a);
    cudaFree(in->d_b);
    free(in->h_ref);
}

typedef struct {
    int n, bs;
    S_input *in;
    float *d_c;
    void (*kernel)(const float *, const float *, float *, int);   /* the tile variants */
} S_state;

/* The tile kernels exist for the block sizes the rows use. */
#define S_PICK(kern, bs) \
    ((bs) == 4 ? kern<4> : (bs) == 8 ? kern<8> : (bs) == 16 ? kern<16> : kern<32>)

/* ---- launchers ------------------------------------------------------------ */

gm_status matmul_launch_naive(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    matmul_kernel_naive<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->in->d_a, st->in->d_b, st->d_c,
                                                                st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status matmul_launch_constant(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    matmul_kernel_constant<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->in->d_a, st->d_c, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* The tile variants differ only in the kernel setup picked for them. */
static gm_status S_launch_tile(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    st->kernel<<<gm_case_grid(c), gm_case_block(c), 0, s>>>(st->in->d_a, st->in->d_b, st->d_c, st->n);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status matmul_launch_tiled(gm_case *c, cudaStream_t s, gm_error *err)
{
    return S_launch_tile(c, s, err);
}

gm_status matmul_launch_tiled_padded(gm_case *c, cudaStream_t s, gm_error *err)
{
    return S_launch_tile(c, s, err);
}

gm_status matmul_launch_tiled_kmajor(gm_case *c, cudaStream_t s, gm_error *err)
{
    return S_launch_tile(c, s, err);
}

gm_status matmul_launch_tiled_kmajor_padded(gm_case *c, cudaStream_t s, gm_error *err)
{
    return S_launch_tile(c, s, err);
}

gm_status matmul_launch_double_buffer(gm_case *c, cudaStream_t s, gm_error *err)
{
    return S_launch_tile(c, s, err);
}

/* ---- setup / reset / check / teardown ------------------------------------- */

gm_status matmul_setup(gm_case *c, gm_error *err)
{
    int n = (int)gm_case_param(c, "n", 0), bs = (int)gm_case_param(c, "block", 16);
    size_t bytes = (size_t)n * n * sizeof(float);
    if (c->variant->kind == GM_MATMUL_CONSTANT && bytes > sizeof matmul_const_b)
        return gm_fail(err, GM_ERR_UNSUPPORTED,
                       "B needs %zu bytes of constant memory (n = %d: n*n*4); %zu are available",
                       bytes, n, sizeof matmul_const_b);
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->n = n;
    st->bs = bs;
    char key[64];
    snprintf(key, sizeof key, "matmul/%d", n);
    gm_status rc = gm_shared_get(key, sizeof(S_input), S_input_build, S_input_destroy, &n,
                                 (void **)&st->in, err);
    if (rc != GM_OK)
        return rc;
    GM_CUDA(cudaMalloc(&st->d_c, bytes));

    if (c->variant->kind == GM_MATMUL_NAIVE)
        return gm_case_query_kernel(c, (const void *)matmul_kernel_naive, err);
    if (c->variant->kind == GM_MATMUL_CONSTANT)
        return gm_case_query_kernel(c, (const void *)matmul_kernel_constant, err);
    if (c->variant->kind == GM_MATMUL_TILED)
        st->kernel = S_PICK(matmul_kernel_tiled, bs);
    else if (c->variant->kind == GM_MATMUL_TILED_PADDED)
        st->kernel = S_PICK(matmul_kernel_tiled_padded, bs);
    else if (c->variant->kind == GM_MATMUL_TILED_KMAJOR)
        st->kernel = S_PICK(matmul_kernel_tiled_kmajor, bs);
    else if (c->variant->kind == GM_MATMUL_TILED_KMAJOR_PADDED)
        st->kernel = S_PICK(matmul_kernel_tiled_kmajor_padded, bs);
    else
        st->kernel = S_PICK(matmul_kernel_double_buffer, bs);
    return gm_case_query_kernel(c, (const void *)st->kernel, err);
}

gm_status matmul_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    size_t bytes = (size_t)st->n * st->n * sizeof(float);
    /* Constant memory is one per module and every case of the variant uses
     * it: B goes in right before this case's launches. */
    if (c->variant->kind == GM_MATMUL_CONSTANT)
        GM_CUDA(cudaMemcpyToSymbolAsync(matmul_const_b, st->in->d_b, bytes, 0,
                                        cudaMemcpyDeviceToDevice, s));
    return gm_poison(st->d_c, bytes, s, err);
}

/* CPU reference: gm_ref_matmul_bt_range (matmul.c), in double.  The
 * kernels sum n products of values in [-1, 1) in float: the rounding error
 * grows like sqrt(n) x 2^-24 x |partial sums|, ~1e-8 n in practice; allow
 * 1e-6 n plus 1e-5 relative. */
gm_status matmul_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    return gm_check_f32(st->d_c, st->in->h_ref, (size_t)st->n * st->n, 1e-6 * st->n, 1e-5, out,
                        err);
}

void matmul_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    gm_shared_release(st->in);
    if (st->d_c)
        cudaFree(st->d_c);
    free(st);
    c->state = NULL;
}
