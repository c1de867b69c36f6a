/* graph_app.cu — a program that runs kernels from CUDA graphs, for
 * `gpumem-report -- PROGRAM` against `ncu --graph-profiling node`
 * (tests/gpu/graphs_device.sh).  It knows nothing of either tool.
 *
 *   fill            a stream launch: x[i] = (i % 1000) / 1000
 *   graph A         captured from one stream, then the source graph destroyed
 *                   (as PyTorch does), launched twice:
 *                     scale       y = 2 x
 *                     memset      z = 0
 *                     accumulate  acc += y (not idempotent: a replay that did not
 *                                 restore memory would change the answer)
 *                     memcpy      w = acc (device to device)
 *                     add_strided out = w + z, read 32 elements apart per warp
 *   graph B         a kernel and a host function (cudaLaunchHostFunc): a graph
 *                   the tool cannot replay node by node; launched once
 *                     scale       v = 0.5 acc
 *   check           a stream launch: flags elements of out that are not 4 x
 *
 * 9 kernels run: fill, 3 nodes x 2 launches of A, 1 node of B, check.
 * Output: one line per buffer with its checksum (exact sums of small
 * integers scaled, so they do not depend on timing), then "ok" or "WRONG";
 * exit 0 when right, 1 when wrong, 2 on a CUDA error.
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "graph_app: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                    cudaGetErrorString(e_));                                               \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

static const int N = 1 << 22;

__global__ void fill(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = (float)(i % 1000) / 1000.0f;
}

__global__ void scale(const float *in, float *out, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * in[i];
}

__global__ void accumulate(float *acc, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        acc[i] += y[i];
}

/* n is a multiple of 32: element (i % 32) * (n / 32) + i / 32 visits each once */
__global__ void add_strided(const float *w, const float *z, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = (i % 32) * (n / 32) + i / 32;
        out[j] = w[j] + z[j];
    }
}

__global__ void check(const float *out, const float *x, int *bad, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && out[i] != 4.0f * x[i])
        atomicAdd(bad, 1);
}

static void CUDART_CB host_note(void *flag)
{
    *(volatile int *)flag += 1;
}

static double sum(const float *d, int n)
{
    std::vector<float> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    double s = 0;
    for (int i = 0; i < n; i++)
        s += h[i];
    return s;
}

int main()
{
    float *x, *y, *z, *acc, *w, *out, *v;
    int *bad;
    size_t bytes = N * sizeof(float);
    CHECK(cudaMalloc(&x, bytes));
    CHECK(cudaMalloc(&y, bytes));
    CHECK(cudaMalloc(&z, bytes));
    CHECK(cudaMalloc(&acc, bytes));
    CHECK(cudaMalloc(&w, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMalloc(&v, bytes));
    CHECK(cudaMalloc(&bad, sizeof(int)));
    CHECK(cudaMemset(acc, 0, bytes));
    CHECK(cudaMemset(z, 0x7f, bytes));   /* the graph's memset clears it */
    CHECK(cudaMemset(bad, 0, sizeof(int)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int threads = 256, blocks = N / threads;
    fill<<<blocks, threads, 0, s>>>(x, N);
    CHECK(cudaGetLastError());

    /* graph A */
    cudaGraph_t ga;
    cudaGraphExec_t ea;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    scale<<<blocks, threads, 0, s>>>(x, y, 2.0f, N);
    CHECK(cudaMemsetAsync(z, 0, bytes, s));
    accumulate<<<blocks, threads, 0, s>>>(acc, y, N);
    CHECK(cudaMemcpyAsync(w, acc, bytes, cudaMemcpyDeviceToDevice, s));
    add_strided<<<blocks, threads, 0, s>>>(w, z, out, N);
    CHECK(cudaStreamEndCapture(s, &ga));
    CHECK(cudaGraphInstantiate(&ea, ga, 0));
    CHECK(cudaGraphDestroy(ga));   /* as PyTorch does: the instance outlives its graph */
    CHECK(cudaGraphLaunch(ea, s));
    CHECK(cudaGraphLaunch(ea, s));

    /* graph B: a host function makes it one the tool times whole */
    static int flag = 0;
    cudaGraph_t gb;
    cudaGraphExec_t eb;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    scale<<<blocks, threads, 0, s>>>(acc, v, 0.5f, N);
    CHECK(cudaLaunchHostFunc(s, host_note, &flag));
    CHECK(cudaStreamEndCapture(s, &gb));
    CHECK(cudaGraphInstantiate(&eb, gb, 0));
    CHECK(cudaGraphLaunch(eb, s));

    check<<<blocks, threads, 0, s>>>(out, x, bad, N);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));

    double sx = sum(x, N), sacc = sum(acc, N), sout = sum(out, N), sv = sum(v, N), sz = sum(z, N);
    int nbad = 0;
    CHECK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
    printf("x %.3f\nacc %.3f\nout %.3f\nv %.3f\nz %.3f\nhost function ran %d time(s)\n", sx, sacc,
           sout, sv, sz, flag);
    /* acc = 4 x (graph A twice, each adding 2 x); out = acc; v = acc / 2 */
    bool ok = nbad == 0 && sacc == 4 * sx && sout == sacc && sv == 2 * sx && sz == 0 &&
              flag == 1;
    printf("%s (%d elements of out wrong)\n", ok ? "ok" : "WRONG", nbad);
    CHECK(cudaGraphExecDestroy(ea));
    CHECK(cudaGraphExecDestroy(eb));
    CHECK(cudaGraphDestroy(gb));
    CHECK(cudaStreamDestroy(s));
    return ok ? 0 : 1;
}
