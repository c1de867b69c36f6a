// clock-ramp.cu — how long after an idle gap does a short kernel run at full
// speed?  Two kernels, their duration (device events) over the first launches
// after a gap: one spins a fixed number of SM cycles (its time follows the SM
// clock), one chases 64 dependent pointers through 1 GiB, one DRAM access
// each (its time follows the memory system's latency).  Clocks as found.
// Built and run by bench/clock-ramp.sh.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#define CK(x)                                                                        \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,          \
                         cudaGetErrorString(e_));                                    \
            return 1;                                                                \
        }                                                                            \
    } while (0)

__global__ void spin(long long cycles, int *sink)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles)
        ;
    if (threadIdx.x == 1024)   // never
        *sink = 1;
}

__global__ void chase(const unsigned *next, int hops, int *sink)
{
    unsigned i = 0;
    for (int h = 0; h < hops; h++)
        i = next[i];
    if (i == 0xffffffffu)   // never
        *sink = 1;
}

int main()
{
    int *sink;
    CK(cudaMalloc(&sink, sizeof(int)));
    const long long cycles = 10000;   // 5 us at 1.98 GHz
    const int n = 4000;
    // The chase: 2^28 words; each hop jumps 2^20 + 33 words on (4 MiB and a
    // bit: a new DRAM page each time, never a line in L2 twice in a launch).
    const size_t words = (size_t)1 << 28;
    std::vector<unsigned> host(words);
    for (size_t k = 0; k < words; k++)
        host[k] = (unsigned)((k + (1u << 20) + 33) & (words - 1));
    unsigned *next;
    CK(cudaMalloc(&next, words * sizeof(unsigned)));
    CK(cudaMemcpy(next, host.data(), words * sizeof(unsigned), cudaMemcpyHostToDevice));
    std::vector<cudaEvent_t> ev(2 * n);
    for (auto &e : ev)
        CK(cudaEventCreate(&e));
    const int gaps_ms[] = {0, 20, 100, 500, 2000};
    const double marks_ms[] = {0, 0.1, 0.5, 1, 2, 5, 10, 20, 50, 100, 200};
    std::printf("spin: %lld cycles; chase: 64 hops; duration (us) of the launch nearest each elapsed time since the first\n", cycles);
    std::printf("%-6s %-8s %-8s", "kernel", "gap ms", "mode");
    for (double m : marks_ms)
        std::printf(" %7.1fms", m);
    std::printf("  steady\n");
    for (int kind = 0; kind < 2; kind++)
    for (int sync_each = 0; sync_each < 2; sync_each++) {
        for (int gap : gaps_ms) {
            CK(cudaDeviceSynchronize());
            std::this_thread::sleep_for(std::chrono::milliseconds(gap));
            for (int i = 0; i < n; i++) {
                CK(cudaEventRecord(ev[2 * i]));
                if (kind == 0)
                    spin<<<1, 32>>>(cycles, sink);
                else
                    chase<<<1, 1>>>(next, 64, sink);
                CK(cudaEventRecord(ev[2 * i + 1]));
                if (sync_each)
                    CK(cudaEventSynchronize(ev[2 * i + 1]));
            }
            CK(cudaDeviceSynchronize());
            std::vector<float> dur(n), at(n);
            for (int i = 0; i < n; i++) {
                CK(cudaEventElapsedTime(&dur[i], ev[2 * i], ev[2 * i + 1]));
                CK(cudaEventElapsedTime(&at[i], ev[0], ev[2 * i]));
            }
            std::printf("%-6s %-8d %-8s", kind ? "chase" : "spin", gap, sync_each ? "sync" : "queued");
            int k = 0;
            for (double m : marks_ms) {
                while (k + 1 < n && at[k] < m)
                    k++;
                if (at[k] + 1 < m)
                    std::printf(" %9s", "-");
                else
                    std::printf(" %9.2f", dur[k] * 1e3);
            }
            std::printf("  %6.2f (last launch at %.1f ms)\n", dur[n - 1] * 1e3, at[n - 1]);
        }
    }
    CK(cudaFree(next));
    return 0;
}
