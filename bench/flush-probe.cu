// flush-probe.cu — can anything but a kernel empty the L2 before a profiled
// launch?  A kernel is a range of the profiled context and costs what a
// launch's own range costs (bench/range-cost.sh); a memset, a copy or a
// cache-control call is no range.  For each candidate: read A (32 MB, fits in
// the L2) to warm it, run the candidate, read A again.  Under
//   ncu --replay-mode application --cache-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum
// the second read's DRAM bytes read say whether A left the L2 (32 MB) or not,
// and its DRAM bytes written say what the candidate left dirty behind it
// (write-backs the next profiled kernel would be charged for).
// Built and run by bench/flush-probe.sh.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>

#define CK(x)                                                                        \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,          \
                         cudaGetErrorString(e_));                                    \
            return 1;                                                                \
        }                                                                            \
    } while (0)

__global__ void read_all(const float4 *a, size_t n, float *sink)
{
    float s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = a[i];
        s += v.x + v.y + v.z + v.w;
    }
    if (s == 12345.f)   // never: the buffers hold zeros and ones
        *sink = s;
}

// Marks where each case starts in ncu's kernel list.
__global__ void case_marker(int) {}

static double now_ms()
{
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

int main()
{
    const size_t a_bytes = 32u << 20, big = 256u << 20;
    float4 *a;
    float *sink;
    char *b, *b2, *host;
    CK(cudaMalloc(&a, a_bytes));
    CK(cudaMalloc(&sink, sizeof(float)));
    CK(cudaMalloc(&b, big));
    CK(cudaMalloc(&b2, big));
    CK(cudaMallocHost(&host, big));
    CK(cudaMemset(a, 0, a_bytes));
    CK(cudaMemset(b, 0, big));
    CK(cudaDeviceSynchronize());
    const char *names[] = {"nothing",
                           "cudaCtxResetPersistingL2Cache",
                           "cudaMemsetAsync 256 MB",
                           "cudaMemcpyAsync D2D 256 MB",
                           "cudaMemcpyAsync D2H 128 MB",
                           "persisting-L2 limit set and reset",
                           "kernel reading 256 MB"};
    const int n_cases = sizeof names / sizeof *names;
    std::printf("%-4s %-36s %s\n", "case", "candidate", "host ms (call + sync)");
    for (int c = 0; c < n_cases; c++) {
        case_marker<<<1, 1>>>(c);
        read_all<<<528, 256>>>(a, a_bytes / 16, sink);
        CK(cudaDeviceSynchronize());
        double t0 = now_ms();
        switch (c) {
        case 0: break;
        case 1: CK(cudaCtxResetPersistingL2Cache()); break;
        case 2: CK(cudaMemsetAsync(b, 1, big)); break;
        case 3: CK(cudaMemcpyAsync(b2, b, big, cudaMemcpyDeviceToDevice)); break;
        case 4: CK(cudaMemcpyAsync(host, b, big / 2, cudaMemcpyDeviceToHost)); break;
        case 5: {
            size_t limit = 0;
            CK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
            CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 4u << 20));
            CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, limit));
            break;
        }
        case 6: read_all<<<528, 256>>>((const float4 *)b, big / 16, sink); break;
        }
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        double t1 = now_ms();
        read_all<<<528, 256>>>(a, a_bytes / 16, sink);
        CK(cudaDeviceSynchronize());
        std::printf("%-4d %-36s %.3f\n", c, names[c], t1 - t0);
    }
    CK(cudaFreeHost(host));
    CK(cudaFree(b2));
    CK(cudaFree(b));
    CK(cudaFree(sink));
    CK(cudaFree(a));
    return 0;
}
