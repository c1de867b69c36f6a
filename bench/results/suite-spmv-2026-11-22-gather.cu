/* suite-spmv-2026-11-22-gather.cu — how fast the GPU gathers 4-byte values at
 * random indices, by where the gathered vector lives: the evidence behind
 * kernels/exp_spmv.cu's account of why an SpMV with uniformly random columns
 * stays under copy bandwidth.  Standalone (no project code):
 *
 *   nvcc -O3 -arch=sm_90 -o /tmp/gather bench/results/suite-spmv-2026-11-22-gather.cu
 *   /tmp/gather > bench/results/suite-spmv-2026-11-22-gather.txt
 *
 * n = 2^26 entries stored as exp_spmv.cu's jds kernel stores them (an int4 of
 * columns and a float4 of values per 4 entries, loaded with ld.global.cs);
 * each thread takes 4 quads, a warp's quads contiguous.  Kernels:
 *   copy    float4 copy, 512 MiB to 512 MiB: copy bandwidth (read + write)
 *   stream  reads columns and values, gathers nothing: the matrix alone,
 *           8 bytes an entry
 *   spmv    reads them and gathers x[col] (columns uniform in [0, nx)):
 *           the SpMV's traffic without its row structure
 *   gather  gathers x at hashed indices, streams nothing: the gathers alone
 * for x of nx = 2^12 .. 2^26 floats (16 KiB fits every SM's L1, 16 MiB the
 * 50 MB L2, 256 MiB neither).  Each kernel: 2 untimed launches, then the
 * median of 11 timed by events.  Effective bandwidth counts what an SpMV
 * counts: 8 bytes an entry, x once.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
                    cudaGetErrorString(e_));                                           \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

#define BLOCK 256
#define QUADS 4   /* quads per thread */

__device__ __forceinline__ unsigned hash32(unsigned v)
{
    v ^= v >> 16;
    v *= 0x7feb352du;
    v ^= v >> 15;
    v *= 0x846ca68bu;
    v ^= v >> 16;
    return v;
}

__global__ void fill(int4 *col, float4 *val, size_t quads, unsigned mask)
{
    size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= quads)
        return;
    unsigned b = (unsigned)(4 * q);
    col[q] = make_int4((int)(hash32(b) & mask), (int)(hash32(b + 1) & mask),
                       (int)(hash32(b + 2) & mask), (int)(hash32(b + 3) & mask));
    val[q] = make_float4(1.0f, 1.0f, 1.0f, 1.0f);
}

__global__ void copy(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = a[i];
}

/* quad k of thread t of block b: (b * QUADS + k) * BLOCK + t */
__global__ void stream(const int4 *__restrict__ col, const float4 *__restrict__ val,
                       float *__restrict__ out)
{
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < QUADS; ++k) {
        size_t q = ((size_t)blockIdx.x * QUADS + k) * BLOCK + threadIdx.x;
        int4 c = __ldcs(col + q);
        float4 v = __ldcs(val + q);
        s += v.x + v.y + v.z + v.w + (float)(c.x ^ c.y ^ c.z ^ c.w);
    }
    out[(size_t)blockIdx.x * BLOCK + threadIdx.x] = s;
}

__global__ void spmv(const int4 *__restrict__ col, const float4 *__restrict__ val,
                     const float *__restrict__ x, float *__restrict__ out)
{
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < QUADS; ++k) {
        size_t q = ((size_t)blockIdx.x * QUADS + k) * BLOCK + threadIdx.x;
        int4 c = __ldcs(col + q);
        float4 v = __ldcs(val + q);
        s += v.x * __ldg(x + c.x) + v.y * __ldg(x + c.y) + v.z * __ldg(x + c.z) +
             v.w * __ldg(x + c.w);
    }
    out[(size_t)blockIdx.x * BLOCK + threadIdx.x] = s;
}

__global__ void gather(const float *__restrict__ x, unsigned mask, float *__restrict__ out)
{
    float s = 0.0f;
    unsigned b = (unsigned)(((size_t)blockIdx.x * BLOCK + threadIdx.x) * 4 * QUADS);
#pragma unroll
    for (int k = 0; k < 4 * QUADS; ++k)
        s += __ldg(x + (hash32(b + k) & mask));
    out[(size_t)blockIdx.x * BLOCK + threadIdx.x] = s;
}

/* Median of 11 timed launches after 2 untimed, in ms. */
template <typename F> static float time_ms(F launch)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int i = 0; i < 13; ++i) {
        CK(cudaEventRecord(a));
        launch();
        CK(cudaGetLastError());
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (i >= 2)
            t.push_back(ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(void)
{
    const size_t n = (size_t)1 << 26, quads = n / 4;
    const unsigned blocks = (unsigned)(quads / (BLOCK * QUADS));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int drv = 0;
    CK(cudaDriverGetVersion(&drv));
    printf("device %s, %d SMs, L2 %d MB, CUDA driver API %d\n", p.name, p.multiProcessorCount,
           p.l2CacheSize >> 20, drv);

    int4 *col;
    float4 *val, *big, *big2;
    float *x, *out;
    CK(cudaMalloc(&col, quads * sizeof(int4)));
    CK(cudaMalloc(&val, quads * sizeof(float4)));
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&out, (size_t)blocks * BLOCK * sizeof(float)));
    const size_t copy_n = (size_t)1 << 25;   /* float4s: 512 MiB */
    CK(cudaMalloc(&big, copy_n * sizeof(float4)));
    CK(cudaMalloc(&big2, copy_n * sizeof(float4)));
    CK(cudaMemset(big, 0, copy_n * sizeof(float4)));
    CK(cudaMemset(x, 0, n * sizeof(float)));

    float tc = time_ms([&] { copy<<<(unsigned)(copy_n / BLOCK), BLOCK>>>(big, big2, copy_n); });
    double copy_gbs = 2.0 * copy_n * sizeof(float4) / (tc * 1e6);
    fill<<<(unsigned)(quads / BLOCK), BLOCK>>>(col, val, quads, 0u);
    CK(cudaGetLastError());
    float ts = time_ms([&] { stream<<<blocks, BLOCK>>>(col, val, out); });
    double stream_gbs = 8.0 * n / (ts * 1e6);
    printf("copy   %.3f ms  %.1f GB/s (read + write)\n", tc, copy_gbs);
    printf("stream %.3f ms  %.1f GB/s (8 B an entry)  %.1f%% of copy\n\n", ts, stream_gbs,
           100 * stream_gbs / copy_gbs);

    printf("%10s %10s | %9s %10s %10s %8s | %9s %10s %12s\n", "x floats", "x bytes",
           "spmv ms", "G entry/s", "eff GB/s", "% copy", "gather ms", "G gather/s",
           "sector GB/s");
    for (int lg = 12; lg <= 26; lg += 2) {
        size_t nx = (size_t)1 << lg;
        unsigned mask = (unsigned)(nx - 1);
        fill<<<(unsigned)(quads / BLOCK), BLOCK>>>(col, val, quads, mask);
        CK(cudaGetLastError());
        float tm = time_ms([&] { spmv<<<blocks, BLOCK>>>(col, val, x, out); });
        float tg = time_ms([&] { gather<<<blocks, BLOCK>>>(x, mask, out); });
        double eff = (8.0 * n + 4.0 * nx) / (tm * 1e6);
        printf("%10zu %10zu | %9.3f %10.1f %10.1f %8.1f | %9.3f %10.1f %12.1f\n", nx, nx * 4, tm,
               n / (tm * 1e6), eff, 100 * eff / copy_gbs, tg, n / (tg * 1e6),
               32.0 * n / (tg * 1e6));
    }
    CK(cudaFree(col));
    CK(cudaFree(val));
    CK(cudaFree(x));
    CK(cudaFree(out));
    CK(cudaFree(big));
    CK(cudaFree(big2));
    return 0;
}
