/* lab.cu — a student's memory lab, written to be profiled by
 * `gpumem-report -- ./lab` without being changed for it.
 *
 * Four layouts, each in its own NVTX range (the report names its runs after
 * them), each kernel launched twice, then checked on the CPU:
 *   coalesced        out[i] = a * in[i]: a warp reads 32 neighbours, 4 sectors
 *                    of 32 bytes per request
 *   uncoalesced      the same scale, but thread i reads element
 *                    (i % 32) * (n / 32) + i / 32: the 32 threads of a warp read
 *                    32 elements n/32 apart, 32 sectors per request
 *   shared-unpadded  a 2048 x 2048 transpose through a 32 x 32 shared tile read
 *                    down its columns: the 32 threads of a warp hit one bank
 *   shared-padded    the same with a 32 x 33 tile: column reads spread over
 *                    the 32 banks
 *   accumulate       acc[i] += x[i] (not idempotent: a profiler that replays it
 *                    without restoring memory would change the answer)
 *
 * Output: one line per layout with its checksum, which does not depend on
 * the GPU's timing, so runs with and without a profiler can be compared byte
 * for byte.  Exit status 0 when every check passes, 1 when one fails, 2 on a
 * CUDA error; `--exit N` exits N instead of 0 (to test that a tool passes a
 * program's status on).  `--reps R` launches each kernel R times (default 2).
 * `--extras` then goes down the paths a profiler of other people's programs
 * must survive: a launch through cudaLaunchKernelEx, one on the per-thread
 * default stream, one captured into a CUDA graph and the graph launched
 * twice, and cudaDeviceReset followed by more work on a fresh context.
 *
 * Build: make build/examples/app/lab (or nvcc -arch=sm_90 -O3 lab.cu -o lab -ldl).
 */
#include <nvtx3/nvToolsExt.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "lab: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorString(e_));                                               \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

static const int N = 1 << 22;       /* 4 Mi floats, 16 MiB per array */
static const int W = 2048;          /* transpose: W x W = N floats */
static const int TILE = 32;
static const int ROWS = 8;          /* a 32 x 8 block moves a 32 x 32 tile, 4 rows per thread */

__global__ void scale_coalesced(const float *in, float *out, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * in[i];
}

/* n is a multiple of 32: element (i % 32) * (n / 32) + i / 32 visits each element once. */
__global__ void scale_strided(const float *in, float *out, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * in[(i % 32) * (n / 32) + i / 32];
}

__global__ void transpose_unpadded(const float *in, float *out, int w)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    /* tile[threadIdx.x][...]: a warp reads one column, 32 words 32 words apart: one bank */
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * w + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_padded(const float *in, float *out, int w)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    /* rows are 33 words: a column's 32 words fall in 32 different banks */
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * w + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void accumulate(float *acc, const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        acc[i] += x[i];
}

static double checksum(const std::vector<float> &v)
{
    double s = 0;
    for (size_t i = 0; i < v.size(); i++)
        s += (double)v[i] * (double)(i % 7 + 1);
    return s;
}

/* Compare with the CPU's answer; print the layout's line. */
static bool report(const char *name, const std::vector<float> &got, const std::vector<float> &want)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < got.size(); i++)
        if (got[i] != want[i] && bad++ == 0)
            first = i;
    if (bad)
        printf("%-16s FAILED: %zu of %zu differ, first at %zu (%g, expected %g)\n", name, bad,
               got.size(), first, got[first], want[first]);
    else
        printf("%-16s ok  checksum %.6f\n", name, checksum(got));
    return bad == 0;
}

int main(int argc, char **argv)
{
    int reps = 2, exit_code = 0;
    bool extras = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--exit") == 0 && i + 1 < argc)
            exit_code = atoi(argv[++i]);
        else if (strcmp(argv[i], "--extras") == 0)
            extras = true;
        else {
            fprintf(stderr, "usage: lab [--reps R] [--exit N] [--extras]\n");
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;

    std::vector<float> in(N), out(N), want(N);
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 1000) * 0.001f - 0.5f;
    float *d_in, *d_out, *d_acc;
    CHECK(cudaMalloc(&d_in, N * sizeof(float)));
    CHECK(cudaMalloc(&d_out, N * sizeof(float)));
    CHECK(cudaMalloc(&d_acc, N * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_acc, 0, N * sizeof(float)));
    const float a = 2.0f;
    const int block = 256, grid = (N + block - 1) / block;
    bool ok = true;

    nvtxRangePushA("coalesced");
    for (int r = 0; r < reps; r++)
        scale_coalesced<<<grid, block>>>(d_in, d_out, N, a);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
    nvtxRangePop();
    for (int i = 0; i < N; i++)
        want[i] = a * in[i];
    ok &= report("coalesced", out, want);

    nvtxRangePushA("uncoalesced");
    for (int r = 0; r < reps; r++)
        scale_strided<<<grid, block>>>(d_in, d_out, N, a);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
    nvtxRangePop();
    for (int i = 0; i < N; i++)
        want[i] = a * in[(i % 32) * (N / 32) + i / 32];
    ok &= report("uncoalesced", out, want);

    for (int y = 0; y < W; y++)
        for (int x = 0; x < W; x++)
            want[(size_t)x * W + y] = in[(size_t)y * W + x];
    dim3 tgrid(W / TILE, W / TILE), tblock(TILE, ROWS);

    nvtxRangePushA("shared-unpadded");
    CHECK(cudaMemset(d_out, 0, N * sizeof(float)));
    for (int r = 0; r < reps; r++)
        transpose_unpadded<<<tgrid, tblock>>>(d_in, d_out, W);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
    nvtxRangePop();
    ok &= report("shared-unpadded", out, want);

    nvtxRangePushA("shared-padded");
    CHECK(cudaMemset(d_out, 0, N * sizeof(float)));
    for (int r = 0; r < reps; r++)
        transpose_padded<<<tgrid, tblock>>>(d_in, d_out, W);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
    nvtxRangePop();
    ok &= report("shared-padded", out, want);

    nvtxRangePushA("accumulate");
    for (int r = 0; r < reps; r++)
        accumulate<<<grid, block>>>(d_acc, d_in, N);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_acc, N * sizeof(float), cudaMemcpyDeviceToHost));
    nvtxRangePop();
    for (int i = 0; i < N; i++) {
        float s = 0.0f;   /* the same additions in the same order as the GPU's */
        for (int r = 0; r < reps; r++)
            s += in[i];
        want[i] = s;
    }
    ok &= report("accumulate", out, want);

    if (extras) {
        for (int i = 0; i < N; i++)
            want[i] = a * in[i];
        /* cudaLaunchKernelEx: the runtime's extensible launch */
        nvtxRangePushA("launch-ex");
        CHECK(cudaMemset(d_out, 0, N * sizeof(float)));
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(grid);
        cfg.blockDim = dim3(block);
        CHECK(cudaLaunchKernelEx(&cfg, scale_coalesced, (const float *)d_in, d_out, N, a));
        CHECK(cudaMemcpy(out.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
        nvtxRangePop();
        ok &= report("launch-ex", out, want);

        /* the per-thread default stream */
        nvtxRangePushA("per-thread-stream");
        CHECK(cudaMemset(d_out, 0, N * sizeof(float)));
        scale_coalesced<<<grid, block, 0, cudaStreamPerThread>>>(d_in, d_out, N, a);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(cudaStreamPerThread));
        CHECK(cudaMemcpy(out.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
        nvtxRangePop();
        ok &= report("per-thread", out, want);

        /* a kernel captured into a graph, the graph launched twice */
        nvtxRangePushA("graph");
        cudaStream_t s;
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CHECK(cudaMemsetAsync(d_acc, 0, N * sizeof(float), s));
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        accumulate<<<grid, block, 0, s>>>(d_acc, d_in, N);
        CHECK(cudaStreamEndCapture(s, &graph));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemcpy(out.data(), d_acc, N * sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaGraphExecDestroy(exec));
        CHECK(cudaGraphDestroy(graph));
        CHECK(cudaStreamDestroy(s));
        nvtxRangePop();
        for (int i = 0; i < N; i++)
            want[i] = in[i] + in[i];
        ok &= report("graph", out, want);

        /* the device reset under the program's feet, then work on a new context */
        CHECK(cudaDeviceReset());
        CHECK(cudaMalloc(&d_in, N * sizeof(float)));
        CHECK(cudaMalloc(&d_out, N * sizeof(float)));
        CHECK(cudaMalloc(&d_acc, N * sizeof(float)));
        CHECK(cudaMemcpy(d_in, in.data(), N * sizeof(float), cudaMemcpyHostToDevice));
        nvtxRangePushA("after-reset");
        scale_coalesced<<<grid, block>>>(d_in, d_out, N, a);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(out.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
        nvtxRangePop();
        for (int i = 0; i < N; i++)
            want[i] = a * in[i];
        ok &= report("after-reset", out, want);
    }

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_acc));
    printf("%s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
    return ok ? exit_code : 1;
}
