/* kernels.cu — suite-like kernels for the SASS-metrics probe (bench/sass_probe). */
#include <cuda_runtime.h>

__global__ void k_strided(const float *in, float *out, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[(long long)i * stride % n];
}

__global__ void k_misaligned(const float *in, float *out, int n, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + offset];
}

__global__ void k_banks(float *out, int stride)
{
    __shared__ float s[32 * 32];
    int t = threadIdx.x;
    for (int k = t; k < 32 * 32; k += blockDim.x)
        s[k] = (float)k;
    __syncthreads();
    float v = s[(t * stride) % (32 * 32)];
    out[blockIdx.x * blockDim.x + t] = v;
}

__global__ void k_transpose_tiled(const float *in, float *out, int w)
{
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(y + j) * w + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void k_transpose_padded(const float *in, float *out, int w)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(y + j) * w + x] = tile[threadIdx.x][threadIdx.y + j];
}

static float *g_in, *g_out;
static const int N = 1 << 22, W = 2048;

extern "C" int probe_setup(void)
{
    if (cudaMalloc(&g_in, (size_t)2 * N * sizeof(float)) != cudaSuccess) return 1;
    if (cudaMalloc(&g_out, (size_t)2 * N * sizeof(float)) != cudaSuccess) return 1;
    if (cudaMemset(g_in, 0, (size_t)2 * N * sizeof(float)) != cudaSuccess) return 1;
    return 0;
}

extern "C" const char *probe_kernel_name(int k)
{
    static const char *names[] = {"k_strided", "k_misaligned", "k_banks", "k_transpose_tiled",
                                  "k_transpose_padded"};
    return k >= 0 && k < 5 ? names[k] : 0;
}

/* Launch kernel k once; returns the CUDA error. */
extern "C" int probe_launch(int k)
{
    switch (k) {
    case 0: k_strided<<<N / 256, 256>>>(g_in, g_out, N, 32); break;
    case 1: k_misaligned<<<N / 256, 256>>>(g_in, g_out, N, 1); break;
    case 2: k_banks<<<1024, 256>>>(g_out, 2); break;
    case 3: k_transpose_tiled<<<dim3(W / 32, W / 32), dim3(32, 8)>>>(g_in, g_out, W); break;
    case 4: k_transpose_padded<<<dim3(W / 32, W / 32), dim3(32, 8)>>>(g_in, g_out, W); break;
    default: return 1;
    }
    int e = (int)cudaGetLastError();
    if (e) return e;
    return (int)cudaDeviceSynchronize();
}
