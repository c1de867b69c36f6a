/* collector_vs_ncu.cu — the in-process collector against Nsight Compute on
 * reference kernels whose memory behaviour is known by arithmetic.
 *
 *   build/tests/gpu/collector_vs_ncu                 full check (make test-gpu runs this)
 *   build/tests/gpu/collector_vs_ncu --mode=plain    run the kernels once each, no profiler
 *                                                    (what ncu profiles)
 *   build/tests/gpu/collector_vs_ncu --mode=collect  profile them in-process, one batch
 *   build/tests/gpu/collector_vs_ncu --mode=metrics  print the metric list (comma-separated)
 *   --repeat=R  run the list R times (bench/collector-vs-ncu.sh uses 3)
 *
 * The full check: profiles every reference launch with the collector (the
 * catalog's default metrics, L2 flushed before each launch), runs
 * `ncu --csv --print-units base --cache-control all --clock-control none
 * --metrics <same list>` on this program's plain mode, and compares value by
 * value, twice (ncu's own spread is printed beside).  Counts (sectors,
 * requests, instructions) must agree within 1 %, ratios and percentages
 * within 1 % or 0.5 points, DRAM bytes read within 2 %.  Where ncu disagrees
 * with itself the tolerance says so (gmt_class_note in ncu_tolerance.h): shared-memory bank
 * conflicts and wavefronts (0.1 per instruction), L2 hit rate (2 points),
 * DRAM bytes written (2 % or 2 MiB, against ncu collecting DRAM bytes alone,
 * since its multi-pass replay adds the write-backs of its own memory
 * restore); a value between ncu's two runs agrees.  Durations, rates and %
 * of peak warn beyond 15 % and fail beyond 50 %: they are measured on other
 * runs of the kernel with clocks as found (ncu --clock-control none).  It also checks known values (4 sectors per request for a
 * coalesced warp, 32 at stride 8, 5 when misaligned, bank conflicts in the
 * unpadded transpose only), that a non-idempotent kernel is restored between
 * passes, that a second batch gives the same counts, that flush off leaves a
 * second read of 4 MB in L2, and the error paths.  Environment: NCU (path of
 * ncu), GMC_NCU_CSV (where to keep ncu's raw output).
 *
 * Exit 0 all passed, 1 a check failed, 2 cannot run here.
 */
#include "../../collectors/gm_collector.h"
extern "C" {
#include "../../core/catalog.h"
}

#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#define GMC_CUPTI_HOST_NO_FUNCS
#include "../../collectors/gmc_cupti_host.h"
#include "ncu_tolerance.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <unistd.h>

/* ---- the collector's C declarations of the host API match CUDA's header ---- */

#define SAME(mine, theirs, f)                                                             \
    static_assert(offsetof(mine, f) == offsetof(theirs, f) &&                            \
                      sizeof(((mine *)0)->f) == sizeof(((theirs *)0)->f),                 \
                  #theirs "." #f " moved: update collectors/gmc_cupti_host.h")
#define SIZE(mine, theirs) \
    static_assert(sizeof(mine) == sizeof(theirs), #theirs " changed size: update collectors/gmc_cupti_host.h")

static_assert(sizeof(int) == sizeof(CUpti_MetricType) && sizeof(int) == sizeof(CUpti_ProfilerType),
              "enum size");
static_assert((int)GMC_METRIC_TYPE_COUNTER == (int)CUPTI_METRIC_TYPE_COUNTER &&
                  (int)GMC_METRIC_TYPE_RATIO == (int)CUPTI_METRIC_TYPE_RATIO &&
                  (int)GMC_METRIC_TYPE_THROUGHPUT == (int)CUPTI_METRIC_TYPE_THROUGHPUT &&
                  (int)GMC_METRIC_TYPE_COUNT == (int)CUPTI_METRIC_TYPE__COUNT &&
                  (int)GMC_PROFILER_TYPE_RANGE_PROFILER == (int)CUPTI_PROFILER_TYPE_RANGE_PROFILER,
              "enum values");
SIZE(gmc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params);
SAME(gmc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, structSize);
SAME(gmc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, pPriv);
SAME(gmc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, profilerType);
SAME(gmc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, pChipName);
SAME(gmc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, pCounterAvailabilityImage);
SAME(gmc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, pHostObject);
SIZE(gmc_host_deinitialize_params, CUpti_Profiler_Host_Deinitialize_Params);
SAME(gmc_host_deinitialize_params, CUpti_Profiler_Host_Deinitialize_Params, pHostObject);
SIZE(gmc_host_get_base_metrics_params, CUpti_Profiler_Host_GetBaseMetrics_Params);
SAME(gmc_host_get_base_metrics_params, CUpti_Profiler_Host_GetBaseMetrics_Params, pHostObject);
SAME(gmc_host_get_base_metrics_params, CUpti_Profiler_Host_GetBaseMetrics_Params, metricType);
SAME(gmc_host_get_base_metrics_params, CUpti_Profiler_Host_GetBaseMetrics_Params, ppMetricNames);
SAME(gmc_host_get_base_metrics_params, CUpti_Profiler_Host_GetBaseMetrics_Params, numMetrics);
SIZE(gmc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params);
SAME(gmc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, pHostObject);
SAME(gmc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, pMetricName);
SAME(gmc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, pDescription);
SAME(gmc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, pHwUnit);
SAME(gmc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, pDimUnit);
SAME(gmc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, metricType);
SIZE(gmc_host_evaluate_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params);
SAME(gmc_host_evaluate_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject);
SAME(gmc_host_evaluate_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pCounterDataImage);
SAME(gmc_host_evaluate_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, counterDataImageSize);
SAME(gmc_host_evaluate_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex);
SAME(gmc_host_evaluate_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, ppMetricNames);
SAME(gmc_host_evaluate_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, numMetrics);
SAME(gmc_host_evaluate_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);
SIZE(gmc_host_config_add_metrics_params, CUpti_Profiler_Host_ConfigAddMetrics_Params);
SAME(gmc_host_config_add_metrics_params, CUpti_Profiler_Host_ConfigAddMetrics_Params, pHostObject);
SAME(gmc_host_config_add_metrics_params, CUpti_Profiler_Host_ConfigAddMetrics_Params, ppMetricNames);
SAME(gmc_host_config_add_metrics_params, CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics);
SIZE(gmc_host_get_config_image_size_params, CUpti_Profiler_Host_GetConfigImageSize_Params);
SAME(gmc_host_get_config_image_size_params, CUpti_Profiler_Host_GetConfigImageSize_Params, pHostObject);
SAME(gmc_host_get_config_image_size_params, CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize);
SIZE(gmc_host_get_config_image_params, CUpti_Profiler_Host_GetConfigImage_Params);
SAME(gmc_host_get_config_image_params, CUpti_Profiler_Host_GetConfigImage_Params, pHostObject);
SAME(gmc_host_get_config_image_params, CUpti_Profiler_Host_GetConfigImage_Params, configImageSize);
SAME(gmc_host_get_config_image_params, CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage);
SIZE(gmc_host_get_num_passes_params, CUpti_Profiler_Host_GetNumOfPasses_Params);
SAME(gmc_host_get_num_passes_params, CUpti_Profiler_Host_GetNumOfPasses_Params, configImageSize);
SAME(gmc_host_get_num_passes_params, CUpti_Profiler_Host_GetNumOfPasses_Params, pConfigImage);
SAME(gmc_host_get_num_passes_params, CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses);
static_assert(GMC_HOST_INITIALIZE_SIZE == CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE &&
                  GMC_HOST_EVALUATE_SIZE == CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE &&
                  GMC_HOST_GET_METRIC_PROPERTIES_SIZE ==
                      CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE &&
                  GMC_HOST_GET_NUM_PASSES_SIZE == CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
              "STRUCT_SIZE values");

/* ---- reference kernels ------------------------------------------------------ */

/* Each warp reads 32 consecutive floats: 128 B = 4 sectors per request. */
__global__ void ref_copy(const float *__restrict__ in, float *__restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

/* Load stride s floats: a warp touches 32 * s * 4 B; from s = 8 on, every
 * thread has its own 32-byte sector (32 sectors per request). */
__global__ void ref_stride_ld(const float *__restrict__ in, float *__restrict__ out, int n, int s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[(size_t)i * s];
}

__global__ void ref_stride_st(const float *__restrict__ in, float *__restrict__ out, int n, int s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[(size_t)i * s] = in[i];
}

/* Shifted by off floats: a warp's 128 B straddle 5 sectors unless off*4 is a
 * multiple of 32 (4 B -> sectors 0..4; 96 B -> sectors 3..6, whole). */
__global__ void ref_offset(const float *__restrict__ in, float *__restrict__ out, int n, int off)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + off];
}

/* One channel of interleaved 4-byte pixels: 32 bytes used of the 128 the warp
 * touches (4 sectors per request, 25 % efficiency). */
__global__ void ref_bytes(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                          int n, int step)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[(size_t)i * step];
}

/* 32x32 tile transpose, block 32x8.  Reading the tile by column hits one bank
 * 32 times unless the row is padded to 33 floats. */
template <int PAD>
__global__ void ref_transpose(const float *__restrict__ in, float *__restrict__ out, int w)
{
    __shared__ float tile[32][32 + PAD];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(size_t)(y + j) * w + x] = tile[threadIdx.x][threadIdx.y + j];
}

/* Not idempotent: each launch changes its own input. */
__global__ void ref_scale_inplace(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] * 2.0f + 1.0f;
}

/* Restores the in-place kernel's input when a copy engine cannot be used. */
__global__ void ref_restore(const float *__restrict__ from, float *__restrict__ to, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        to[i] = from[i];
}

/* ---- the launches ---------------------------------------------------------- */

enum { K_COPY, K_STRIDE_LD, K_STRIDE_ST, K_OFFSET, K_BYTES, K_TRANSPOSE, K_TRANSPOSE_PAD, K_INPLACE };

struct ref_case {
    const char *name;
    const char *kernel;   /* as ncu prints the function name */
    int kind, n, param;
};

static const ref_case g_cases[] = {
    {"copy 16 MB", "ref_copy", K_COPY, 1 << 22, 0},
    {"stride 2", "ref_stride_ld", K_STRIDE_LD, 1 << 21, 2},
    {"stride 4", "ref_stride_ld", K_STRIDE_LD, 1 << 21, 4},
    {"stride 8", "ref_stride_ld", K_STRIDE_LD, 1 << 21, 8},
    {"stride 32", "ref_stride_ld", K_STRIDE_LD, 1 << 21, 32},
    {"store stride 8", "ref_stride_st", K_STRIDE_ST, 1 << 21, 8},
    {"offset 4 B", "ref_offset", K_OFFSET, 1 << 22, 1},
    {"offset 96 B", "ref_offset", K_OFFSET, 1 << 22, 24},
    {"bytes, 1 of 4", "ref_bytes", K_BYTES, 1 << 22, 4},
    {"transpose", "ref_transpose", K_TRANSPOSE, 2048, 0},
    {"transpose +1 pad", "ref_transpose", K_TRANSPOSE_PAD, 2048, 0},
    {"in-place x2+1", "ref_scale_inplace", K_INPLACE, 1 << 22, 0},
    {"copy 4 MB #1", "ref_copy", K_COPY, 1 << 20, 0},
    {"copy 4 MB #2", "ref_copy", K_COPY, 1 << 20, 0},
};
static const size_t N_CASES = sizeof g_cases / sizeof g_cases[0];
enum { C_COPY, C_S2, C_S4, C_S8, C_S32, C_ST8, C_OFF4, C_OFF96, C_BYTES, C_TR, C_TRP, C_INPLACE,
       C_SMALL1, C_SMALL2 };

struct bufs {
    float *in, *out, *a, *a0;
    float *out_saved;         /* --restore-out: what ncu's replay restores, restored too */
    bool restore_out;
    size_t n_in, n_out, n_a;
    bool restore_by_kernel;   /* prepare restores with ref_restore instead of a copy */
    const size_t *order;      /* launch i runs case order[i % n_order] */
    size_t n_order;
};

static int S_check_cuda(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    fprintf(stderr, "%s: %s (%s)\n", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return 1;
}

static int S_launch_case(const bufs *b, const ref_case *c)
{
    const int bs = 256;
    int grid = (c->n + bs - 1) / bs;
    switch (c->kind) {
    case K_COPY: ref_copy<<<grid, bs>>>(b->in, b->out, c->n); break;
    case K_STRIDE_LD: ref_stride_ld<<<grid, bs>>>(b->in, b->out, c->n, c->param); break;
    case K_STRIDE_ST: ref_stride_st<<<grid, bs>>>(b->in, b->out, c->n, c->param); break;
    case K_OFFSET: ref_offset<<<grid, bs>>>(b->in, b->out, c->n, c->param); break;
    case K_BYTES:
        ref_bytes<<<grid, bs>>>((const unsigned char *)b->in, (unsigned char *)b->out, c->n, c->param);
        break;
    case K_TRANSPOSE:
    case K_TRANSPOSE_PAD: {
        dim3 g(c->n / 32, c->n / 32), blk(32, 8);
        if (c->kind == K_TRANSPOSE)
            ref_transpose<0><<<g, blk>>>(b->in, b->out, c->n);
        else
            ref_transpose<1><<<g, blk>>>(b->in, b->out, c->n);
        break;
    }
    case K_INPLACE: ref_scale_inplace<<<grid, bs>>>(b->a, c->n); break;
    }
    return S_check_cuda(cudaGetLastError(), c->name);
}

static const ref_case *S_case_of(const bufs *b, size_t i)
{
    return &g_cases[b->order[i % b->n_order]];
}

static int S_prepare(void *user, size_t i)
{
    const bufs *b = (const bufs *)user;
    const ref_case *c = S_case_of(b, i);
    if (b->restore_out &&
        S_check_cuda(cudaMemcpyAsync(b->out, b->out_saved, b->n_out * sizeof(float),
                                     cudaMemcpyDeviceToDevice, 0),
                     "restore out"))
        return 1;
    if (c->kind != K_INPLACE)
        return 0;   /* idempotent: nothing to restore */
    if (b->restore_by_kernel) {
        ref_restore<<<(c->n + 255) / 256, 256>>>(b->a0, b->a, c->n);
        return S_check_cuda(cudaGetLastError(), "ref_restore");
    }
    return S_check_cuda(cudaMemcpyAsync(b->a, b->a0, (size_t)c->n * sizeof(float),
                                        cudaMemcpyDeviceToDevice, 0),
                        "restore copy");
}

static int S_launch(void *user, size_t i)
{
    const bufs *b = (const bufs *)user;
    return S_launch_case(b, S_case_of(b, i));
}

static int S_bufs_init(bufs *b)
{
    memset(b, 0, sizeof *b);
    b->n_in = (size_t)1 << 26;    /* 256 MB: stride 32 over 2M threads */
    b->n_out = (size_t)1 << 24;   /* 64 MB: store stride 8 over 2M threads */
    b->n_a = (size_t)1 << 22;
    if (S_check_cuda(cudaMalloc(&b->in, b->n_in * sizeof(float)), "cudaMalloc in") ||
        S_check_cuda(cudaMalloc(&b->out, b->n_out * sizeof(float)), "cudaMalloc out") ||
        S_check_cuda(cudaMalloc(&b->a, b->n_a * sizeof(float)), "cudaMalloc a") ||
        S_check_cuda(cudaMalloc(&b->a0, b->n_a * sizeof(float)), "cudaMalloc a0"))
        return 1;
    /* All data goes up by copies and memsets: the plain mode must launch no
     * kernel but the reference ones, which is what ncu numbers.  The values of
     * `in` do not matter to any counter (a byte pattern, no 256 MB host fill);
     * the in-place kernel's input is small integers and halves, exact in
     * float, so x*2+1 checks exactly. */
    std::vector<float> h(b->n_a);
    for (size_t k = 0; k < b->n_a; k++)
        h[k] = (float)(k % 1000) * 0.5f;
    if (S_check_cuda(cudaMemset(b->in, 0x3f, b->n_in * sizeof(float)), "fill in") ||
        S_check_cuda(cudaMemcpy(b->a0, h.data(), b->n_a * sizeof(float), cudaMemcpyHostToDevice),
                     "upload a0") ||
        S_check_cuda(cudaMemcpy(b->a, h.data(), b->n_a * sizeof(float), cudaMemcpyHostToDevice),
                     "upload a") ||
        S_check_cuda(cudaMemset(b->out, 0, b->n_out * sizeof(float)), "clear out") ||
        S_check_cuda(cudaDeviceSynchronize(), "setup"))
        return 1;
    return 0;
}

static void S_bufs_free(bufs *b)
{
    cudaFree(b->in);
    cudaFree(b->out);
    cudaFree(b->a);
    cudaFree(b->a0);
    cudaFree(b->out_saved);
}

/* ---- checks ----------------------------------------------------------------- */

static int g_fail, g_pass, g_warn;

static void S_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void S_check(bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (ok)
        g_pass++;
    else
        g_fail++;
}

static std::vector<const char *> S_default_metrics(void)
{
    std::vector<const char *> m;
    for (size_t k = 0; k < gm_catalog_len; k++)
        if (gm_catalog[k].is_default)
            m.push_back(gm_catalog[k].name);
    return m;
}

static std::string S_join(const std::vector<const char *> &m)
{
    std::string s;
    for (size_t k = 0; k < m.size(); k++) {
        if (k)
            s += ',';
        s += m[k];
    }
    return s;
}

static const char *S_label(const char *metric)
{
    const gm_metric_info *info = gm_catalog_find(metric);
    return info ? info->label : metric;
}

/* For MC_CONFLICT: 0.1 per shared instruction of metric m's direction in
 * row v (one wavefront in ten instructions: the naive transpose has 31 per
 * instruction, the padded one 0.03); 0 when the list has no such count. */
static double S_conflict_slack(const std::vector<const char *> &metrics, const double *row, size_t m)
{
    bool ld = strstr(metrics[m], "op_ld") != NULL;
    const char *w = ld ? GM_M_SH_LD_INST : GM_M_SH_ST_INST;
    for (size_t k = 0; k < metrics.size(); k++)
        if (strcmp(metrics[k], w) == 0 && !std::isnan(row[k]))
            return 0.1 * row[k];
    return 0;
}

/* ---- ncu ------------------------------------------------------------------------ */

static std::vector<std::string> S_csv_fields(const std::string &line)
{
    std::vector<std::string> f;
    std::string cur;
    bool q = false;
    for (size_t k = 0; k < line.size(); k++) {
        char ch = line[k];
        if (q) {
            if (ch == '"' && k + 1 < line.size() && line[k + 1] == '"') {
                cur += '"';
                k++;
            } else if (ch == '"') {
                q = false;
            } else {
                cur += ch;
            }
        } else if (ch == '"') {
            q = true;
        } else if (ch == ',') {
            f.push_back(cur);
            cur.clear();
        } else if (ch != '\r' && ch != '\n') {
            cur += ch;
        }
    }
    f.push_back(cur);
    return f;
}

static double S_ncu_number(const std::string &v)
{
    std::string t;
    for (char ch : v)
        if (ch != ',' && ch != ' ')
            t += ch;
    if (t.empty() || t == "n/a")
        return NAN;
    char *end = NULL;
    double d = strtod(t.c_str(), &end);
    return (end && *end == '\0') ? d : NAN;
}

struct ncu_kernel {
    std::string name;
    std::vector<double> values;
    std::vector<std::string> units;
};

static std::string S_self(void)
{
    char path[4096];
    ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
    if (len <= 0)
        return "";
    path[len] = '\0';
    return path;
}

static std::string S_ncu_path(void)
{
    const char *env = getenv("NCU");
    if (env && *env)
        return env;
    if (access("/usr/local/cuda/bin/ncu", X_OK) == 0)
        return "/usr/local/cuda/bin/ncu";
    if (system("command -v ncu >/dev/null 2>&1") == 0)
        return "ncu";
    return "";
}

/* Runs ncu on our plain mode; fills one ncu_kernel per profiled launch. */
static int S_run_ncu(const std::vector<const char *> &metrics, const char *cache,
                     std::vector<ncu_kernel> &out, double *seconds)
{
    std::string ncu = S_ncu_path(), self = S_self();
    if (ncu.empty()) {
        fprintf(stderr, "cannot compare: ncu not found (set NCU, or install Nsight Compute)\n");
        return 2;
    }
    const char *keep = getenv("GMC_NCU_CSV");
    std::string csv = keep && *keep ? keep : "/tmp/gmc_ncu_" + std::to_string(getpid()) + ".csv";
    std::string cmd = "'" + ncu + "' --csv --print-units base --cache-control " + cache +
                      " --clock-control none --metrics " + S_join(metrics) + " '" + self +
                      "' --mode=plain > '" + csv + "' 2>&1";
    printf("running: %s\n", cmd.c_str());
    fflush(stdout);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = system(cmd.c_str());
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    FILE *f = fopen(csv.c_str(), "r");
    if (!f) {
        fprintf(stderr, "ncu wrote no output to %s\n", csv.c_str());
        return 1;
    }
    std::vector<std::string> lines;
    char buf[65536];
    while (fgets(buf, sizeof buf, f))
        lines.push_back(buf);
    fclose(f);
    if (rc != 0) {
        fprintf(stderr, "ncu exited with status %d; its output:\n", rc);
        for (const std::string &l : lines)
            fputs(l.c_str(), stderr);
        return 1;
    }
    int c_id = -1, c_kernel = -1, c_metric = -1, c_unit = -1, c_value = -1;
    std::vector<std::string> ids;
    for (const std::string &l : lines) {
        if (l.compare(0, 4, "\"ID\"") == 0) {
            std::vector<std::string> h = S_csv_fields(l);
            for (size_t k = 0; k < h.size(); k++) {
                if (h[k] == "ID") c_id = (int)k;
                else if (h[k] == "Kernel Name" || h[k] == "Function Name") c_kernel = (int)k;
                else if (h[k] == "Metric Name") c_metric = (int)k;
                else if (h[k] == "Metric Unit") c_unit = (int)k;
                else if (h[k] == "Metric Value") c_value = (int)k;
            }
            continue;
        }
        if (c_id < 0 || l.empty() || l[0] != '"')
            continue;
        std::vector<std::string> r = S_csv_fields(l);
        int need = std::max(std::max(c_id, c_kernel), std::max(c_metric, std::max(c_unit, c_value)));
        if ((int)r.size() <= need)
            continue;
        if (ids.empty() || ids.back() != r[c_id]) {
            ids.push_back(r[c_id]);
            ncu_kernel k;
            k.name = r[c_kernel];
            k.values.assign(metrics.size(), NAN);
            k.units.assign(metrics.size(), "?");
            out.push_back(k);
        }
        for (size_t m = 0; m < metrics.size(); m++) {
            if (r[c_metric] == metrics[m]) {
                out.back().values[m] = S_ncu_number(r[c_value]);
                out.back().units[m] = r[c_unit];
            }
        }
    }
    if (c_id < 0) {
        fprintf(stderr, "no CSV header in ncu's output (%s)\n", csv.c_str());
        return 1;
    }
    return 0;
}

/* ---- modes ------------------------------------------------------------------ */

static int S_mode_plain(size_t repeat)
{
    bufs b;
    std::vector<size_t> order(N_CASES);
    for (size_t k = 0; k < N_CASES; k++)
        order[k] = k;
    if (S_bufs_init(&b))
        return 2;
    b.order = order.data();
    b.n_order = N_CASES;
    for (size_t i = 0; i < N_CASES * repeat; i++)
        if (S_prepare(&b, i) || S_launch(&b, i))
            return 1;
    int rc = S_check_cuda(cudaDeviceSynchronize(), "plain run");
    S_bufs_free(&b);
    return rc;
}

static int S_exit_for(gmc_status st)
{
    return (st == GMC_ERR_NO_DRIVER || st == GMC_ERR_NO_DEVICE || st == GMC_ERR_PERMISSION ||
            st == GMC_ERR_UNSUPPORTED_DEVICE)
               ? 2
               : 1;
}

struct options {
    size_t repeat = 1, batches = 1;
    int flush = 0;                 /* -1 off, else a gmc_flush_method */
    bool restore_out = false;
    bool print = false;
    const char *metrics = NULL;    /* NULL: the catalog's defaults */
    const char *cache = "all";     /* --mode=ncu: ncu --cache-control */
};

static std::vector<const char *> S_metric_list(const options &o, char ***owned, size_t *n_owned)
{
    *owned = NULL;
    *n_owned = 0;
    if (!o.metrics)
        return S_default_metrics();
    gmc_error err;
    if (gmc_metric_list_parse(o.metrics, owned, n_owned, &err) != GMC_OK) {
        fprintf(stderr, "--metrics: %s\n", err.message);
        return std::vector<const char *>();
    }
    return std::vector<const char *>(*owned, *owned + *n_owned);
}

/* Profile the reference launches in-process; with --print, a row per launch. */
static int S_mode_collect(const options &o)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char **owned;
    size_t n_owned;
    std::vector<const char *> metrics = S_metric_list(o, &owned, &n_owned);
    if (metrics.empty())
        return 2;
    bufs b;
    std::vector<size_t> order(N_CASES);
    for (size_t k = 0; k < N_CASES; k++)
        order[k] = k;
    if (S_bufs_init(&b))
        return 2;
    b.order = order.data();
    b.n_order = N_CASES;
    if (o.restore_out) {
        b.restore_out = true;
        if (S_check_cuda(cudaMalloc(&b.out_saved, b.n_out * sizeof(float)), "cudaMalloc saved") ||
            S_check_cuda(cudaMemset(b.out_saved, 0, b.n_out * sizeof(float)), "clear saved"))
            return 2;
    }
    gmc_config cfg = gmc_config_default();
    cfg.metrics = metrics.data();
    cfg.n_metrics = metrics.size();
    cfg.max_launches = N_CASES * o.repeat;
    cfg.flush_l2 = o.flush >= 0;
    if (o.flush >= 0)
        cfg.flush_method = (gmc_flush_method)o.flush;
    gmc_error err;
    gmc_session *s = NULL;
    gmc_status st = gmc_session_open(&cfg, &s, &err);
    if (st != GMC_OK) {
        fprintf(stderr, "collector: %s\n", err.message);
        return S_exit_for(st);
    }
    size_t n = N_CASES * o.repeat, M = metrics.size();
    std::vector<double> v(n * M);
    gmc_session_info info;
    for (size_t k = 0; k < o.batches && st == GMC_OK; k++) {
        st = gmc_profile_batch(s, n, S_prepare, S_launch, &b, v.data(), &err);
        gmc_session_info_get(s, &info);
        if (st == GMC_OK)
            printf("batch %zu: %zu launches, %d passes, %zu ranges: passes %.3f s (%.2f ms per "
                   "range), decode %.3f s\n",
                   k + 1, n, info.batch_passes, info.batch_ranges, info.batch_pass_seconds,
                   1e3 * info.batch_pass_seconds / (double)(info.batch_passes * info.batch_ranges),
                   info.batch_decode_seconds);
    }
    int passes = gmc_session_passes(s);
    gmc_session_close(s);
    S_bufs_free(&b);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != GMC_OK) {
        fprintf(stderr, "collector: %s\n", err.message);
        gmc_metric_list_free(owned, n_owned);
        return 1;
    }
    if (o.print) {
        printf("%-18s", "case");
        for (size_t m = 0; m < M; m++)
            printf(" %16.16s", S_label(metrics[m]));
        printf("\n");
        for (size_t i = 0; i < N_CASES; i++) {
            printf("%-18s", g_cases[i].name);
            for (size_t m = 0; m < M; m++)
                printf(" %16.6g", v[i * M + m]);
            printf("\n");
        }
    }
    printf("collect: %zu launches, %zu metrics, %d passes, flush %s; setup %.3f s, process so "
           "far %.3f s\n",
           n, M, passes, !cfg.flush_l2 ? "off" : info.flush_method == GMC_FLUSH_EVICT ? "evict"
           : info.flush_method == GMC_FLUSH_ASIDE ? "aside"
                                                                                    : "invalidate",
           info.setup_seconds,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    gmc_metric_list_free(owned, n_owned);
    return 0;
}

/* ncu on the plain mode, a row per launch (for comparing cache settings). */
static int S_mode_ncu(const options &o)
{
    char **owned;
    size_t n_owned;
    std::vector<const char *> metrics = S_metric_list(o, &owned, &n_owned);
    if (metrics.empty())
        return 2;
    std::vector<ncu_kernel> k;
    double secs = 0;
    int rc = S_run_ncu(metrics, o.cache, k, &secs);
    if (rc == 0) {
        printf("ncu --cache-control %s: %zu kernels, %.2f s\n%-18s", o.cache, k.size(), secs, "case");
        for (size_t m = 0; m < metrics.size(); m++)
            printf(" %16.16s", S_label(metrics[m]));
        printf("\n");
        for (size_t i = 0; i < k.size() && i < N_CASES; i++) {
            printf("%-18s", g_cases[i].name);
            for (size_t m = 0; m < metrics.size(); m++)
                printf(" %16.6g", k[i].values[m]);
            printf("\n");
        }
    }
    gmc_metric_list_free(owned, n_owned);
    return rc;
}

static int S_fail_launch(void *user, size_t i)
{
    (void)user;
    (void)i;
    return 7;
}

static int S_launch_two(void *user, size_t i)
{
    return S_launch(user, i) || S_launch(user, i);
}

static int S_launch_none_at_1(void *user, size_t i)
{
    return i == 1 ? 0 : S_launch(user, i);
}

/* The checks that need a session of their own: flush off, error paths. */
static void S_second_session(bufs *b)
{
    printf("\n== session 2: flush off, error paths\n");
    const char *m[] = {GM_M_DRAM_RD, GM_M_LD_SECTORS, GM_M_L2_HIT};
    gmc_config cfg = gmc_config_default();
    cfg.metrics = m;
    cfg.n_metrics = 3;
    cfg.max_launches = 4;
    cfg.flush_l2 = false;
    gmc_error err;
    gmc_session *s = NULL;
    gmc_status st = gmc_session_open(&cfg, &s, &err);
    S_check(st == GMC_OK, "open with flush off: %s", st == GMC_OK ? "ok" : err.message);
    if (st != GMC_OK)
        return;

    gmc_session *s2 = NULL;
    st = gmc_session_open(&cfg, &s2, &err);
    S_check(st == GMC_ERR_ARG && !s2, "second open in one process refused: %s: %s",
            gmc_status_name(st), err.message);

    size_t order[] = {C_SMALL1, C_SMALL2};
    b->order = order;
    b->n_order = 2;
    double v[2 * 3];
    st = gmc_profile_batch(s, 2, S_prepare, S_launch, b, v, &err);
    S_check(st == GMC_OK, "flush off batch: %s", st == GMC_OK ? "ok" : err.message);
    if (st == GMC_OK)
        S_check(v[3 + 0] < 0.10 * 4194304,
                "flush off: second read of 4 MB hits L2: DRAM read %.0f B (< 10 %% of 4194304), "
                "first %.0f B, L2 hit %.1f %%", v[3], v[0], v[3 + 2]);

    st = gmc_profile_batch(s, 1, NULL, S_fail_launch, b, v, &err);
    S_check(st == GMC_ERR_LAUNCH, "launch returning 7 -> %s: %s", gmc_status_name(st), err.message);
    st = gmc_profile_batch(s, 1, NULL, S_launch_two, b, v, &err);
    gmc_session_info info;
    gmc_session_info_get(s, &info);
    S_check(info.launch_tracking ? st == GMC_ERR_LAUNCH : st == GMC_ERR_RANGES,
            "launch enqueuing two kernels -> %s: %s", gmc_status_name(st), err.message);
    st = gmc_profile_batch(s, 2, NULL, S_launch_none_at_1, b, v, &err);
    S_check(info.launch_tracking ? st == GMC_ERR_LAUNCH : st == GMC_ERR_RANGES,
            "launch enqueuing nothing -> %s: %s", gmc_status_name(st), err.message);
    st = gmc_profile_batch(s, 2, S_prepare, S_launch, b, v, &err);
    S_check(st == GMC_OK, "a good batch after failed ones: %s", st == GMC_OK ? "ok" : err.message);
    st = gmc_profile_batch(s, 5, S_prepare, S_launch, b, v, &err);
    S_check(st == GMC_ERR_ARG, "more launches than max_launches -> %s: %s", gmc_status_name(st),
            err.message);
    gmc_session_close(s);

    const char *typo[] = {"l1tex__t_sector_pipe_lsu_mem_global_op_ld.sum"};
    cfg.metrics = typo;
    cfg.n_metrics = 1;
    st = gmc_session_open(&cfg, &s, &err);
    S_check(st == GMC_ERR_UNKNOWN_METRIC && strstr(err.message, typo[0]) &&
                strstr(err.message, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
            "misspelt metric -> %s: %s", gmc_status_name(st), err.message);
    gmc_session_close(st == GMC_OK ? s : NULL);
}

static int S_mode_compare(const options &o)
{
    gmc_device_info dev;
    gmc_error err;
    gmc_status st = gmc_device_info_get(0, &dev, &err);
    if (st != GMC_OK) {
        fprintf(stderr, "device: %s\n", err.message);
        return S_exit_for(st);
    }
    printf("device: %s (%s, sm_%d%d, %d SMs), memory %lld kHz x %d bit = %.1f GB/s peak, L2 %lld "
           "B, %.1f GiB\n",
           dev.name, dev.chip, dev.cc_major, dev.cc_minor, dev.sm_count, dev.mem_clock_khz,
           dev.bus_width_bits, dev.theoretical_gbs, dev.l2_bytes,
           (double)dev.global_mem_bytes / (1 << 30));
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    printf("date: %s\n", date);
    printf("driver %s, CUDA driver API %d, runtime %d, CUPTI API %lld\n",
           dev.driver_version[0] ? dev.driver_version : "(unknown)", dev.cuda_driver_api,
           dev.cuda_runtime, dev.cupti_api);

    bufs b;
    if (S_bufs_init(&b))
        return 2;
    std::vector<size_t> order(N_CASES);
    for (size_t k = 0; k < N_CASES; k++)
        order[k] = k;
    b.order = order.data();
    b.n_order = N_CASES;

    std::vector<const char *> metrics = S_default_metrics();
    const size_t M = metrics.size();
    gmc_config cfg = gmc_config_default();
    cfg.metrics = metrics.data();
    cfg.n_metrics = M;
    cfg.max_launches = N_CASES;
    cfg.prepare_kernels = 1;   /* room for the kernel-restore fallback */
    if (o.flush >= 0)
        cfg.flush_method = (gmc_flush_method)o.flush;
    gmc_session *s = NULL;
    st = gmc_session_open(&cfg, &s, &err);
    if (st != GMC_OK) {
        fprintf(stderr, "collector: %s\n", err.message);
        S_check(false, "open session with the catalog's %zu default metrics", M);
        return S_exit_for(st);
    }
    gmc_session_info info;
    gmc_session_info_get(s, &info);
    printf("session: chip %s, %zu metrics in %d passes, launch tracking %s, L2 flush %s, setup "
           "%.3f s\n",
           gmc_session_chip(s), M, gmc_session_passes(s), info.launch_tracking ? "on" : "off",
           info.flush_method == GMC_FLUSH_EVICT ? "evict"
           : info.flush_method == GMC_FLUSH_ASIDE ? "aside" : "invalidate", info.setup_seconds);
    S_check(true, "all %zu catalog default metrics exist on %s", M, gmc_session_chip(s));

    /* batch 1: every case once; the in-place kernel's input restored by a copy */
    std::vector<double> v(N_CASES * M, NAN);
    st = gmc_profile_batch(s, N_CASES, S_prepare, S_launch, &b, v.data(), &err);
    if (st != GMC_OK) {
        printf("batch 1 with copy-restore failed: %s: %s\n", gmc_status_name(st), err.message);
        b.restore_by_kernel = true;
        st = gmc_profile_batch(s, N_CASES, S_prepare, S_launch, &b, v.data(), &err);
        S_check(st == GMC_OK, "batch 1 with a restore kernel: %s", st == GMC_OK ? "ok" : err.message);
    } else {
        S_check(true, "batch 1: %zu launches, restore by cudaMemcpyAsync in prepare()", N_CASES);
    }
    if (st != GMC_OK) {
        gmc_session_close(s);
        return 1;
    }
    gmc_session_info_get(s, &info);
    printf("batch 1: %d passes, %zu ranges, passes %.3f s, decode %.3f s\n", info.batch_passes,
           info.batch_ranges, info.batch_pass_seconds, info.batch_decode_seconds);
    for (size_t i = 0; i < N_CASES; i++) {
        const char *k = gmc_session_kernel_name(s, i);
        if (info.launch_tracking)
            S_check(k && strstr(k, g_cases[i].kernel), "launch %zu (%s) is range of kernel %s", i,
                    g_cases[i].name, k ? k : "(none)");
    }
    std::vector<std::string> units(M);
    for (size_t m = 0; m < M; m++)
        units[m] = gmc_session_metric_unit(s, m);

    /* the in-place kernel ran once per pass, each time on restored input */
    {
        std::vector<float> a(b.n_a), a0(b.n_a);
        cudaMemcpy(a.data(), b.a, b.n_a * sizeof(float), cudaMemcpyDeviceToHost);
        cudaMemcpy(a0.data(), b.a0, b.n_a * sizeof(float), cudaMemcpyDeviceToHost);
        size_t bad = 0;
        for (size_t k = 0; k < b.n_a; k++)
            bad += a[k] != a0[k] * 2.0f + 1.0f;
        S_check(bad == 0, "in-place kernel: after %d passes its output is one application on the "
                          "original input (%zu of %zu differ)", info.batch_passes, bad, b.n_a);
    }

    /* batch 2: the same session again, a subset: exact counts must repeat */
    {
        size_t sub[] = {C_COPY, C_S8, C_TR};
        bufs b2 = b;
        b2.order = sub;
        b2.n_order = 3;
        std::vector<double> v2(3 * M);
        st = gmc_profile_batch(s, 3, S_prepare, S_launch, &b2, v2.data(), &err);
        S_check(st == GMC_OK, "batch 2 in the same session: %s", st == GMC_OK ? "ok" : err.message);
        if (st == GMC_OK) {
            size_t differ = 0, varied = 0;
            for (size_t k = 0; k < 3; k++)
                for (size_t m = 0; m < M; m++) {
                    metric_class c = gmt_metric_class(metrics[m]);
                    double a = v[sub[k] * M + m], a2 = v2[k * M + m], rel;
                    if (c == MC_COUNT && a != a2)
                        differ++;
                    if (c == MC_CONFLICT &&
                        gmt_compare(c, a, a2, S_conflict_slack(metrics, &v[sub[k] * M], m), &rel))
                        differ++;
                    if ((c == MC_COUNT || c == MC_CONFLICT) && a != a2) {
                        varied++;
                        printf("  %-18s %-70s %.0f then %.0f\n", g_cases[sub[k]].name, metrics[m],
                               a, a2);
                    }
                }
            S_check(differ == 0, "batch 2 repeats batch 1: counts exactly, shared conflicts and "
                    "wavefronts within their tolerance (%zu outside, %zu not identical)", differ,
                    varied);
        }
    }
    gmc_session_close(s);

    /* known values */
    printf("\n== known values (collector)\n");
    auto val = [&](size_t c, const char *metric) {
        for (size_t m = 0; m < M; m++)
            if (strcmp(metrics[m], metric) == 0)
                return v[c * M + m];
        return (double)NAN;
    };
    auto near = [](double a, double b) { return std::fabs(a - b) <= 0.01 * std::fabs(b); };
    struct { size_t c; const char *metric; double want; } known[] = {
        {C_COPY, GM_M_LD_SPR, 4}, {C_COPY, GM_M_ST_SPR, 4}, {C_COPY, GM_M_LD_EFF, 100},
        {C_S2, GM_M_LD_SPR, 8}, {C_S2, GM_M_LD_EFF, 50}, {C_S4, GM_M_LD_SPR, 16},
        {C_S4, GM_M_LD_EFF, 25}, {C_S8, GM_M_LD_SPR, 32}, {C_S8, GM_M_LD_EFF, 12.5},
        {C_S32, GM_M_LD_SPR, 32}, {C_S32, GM_M_LD_EFF, 12.5}, {C_ST8, GM_M_ST_SPR, 32},
        {C_ST8, GM_M_ST_EFF, 12.5}, {C_OFF4, GM_M_LD_SPR, 5}, {C_OFF4, GM_M_LD_EFF, 80},
        /* 96 B is 3 sectors: the warp's 128 B start on a sector boundary and
         * cover 4 whole sectors, as aligned (measured, and so says ncu). */
        {C_OFF96, GM_M_LD_SPR, 4}, {C_OFF96, GM_M_LD_EFF, 100}, {C_BYTES, GM_M_LD_SPR, 4},
        {C_BYTES, GM_M_LD_EFF, 25}, {C_COPY, GM_M_LD_REQUESTS, (1 << 22) / 32},
        {C_COPY, GM_M_LD_SECTORS, (1 << 22) * 4 / 32}, {C_TR, GM_M_SH_LD_INST, 2048.0 * 2048 / 32},
    };
    for (const auto &k : known) {
        double got = val(k.c, k.metric);
        S_check(near(got, k.want), "%-18s %-16s %12.4g (expected %g)", g_cases[k.c].name,
                S_label(k.metric), got, k.want);
    }
    double conf_naive = val(C_TR, GM_M_SH_LD_CONFL), conf_pad = val(C_TRP, GM_M_SH_LD_CONFL);
    double inst = val(C_TR, GM_M_SH_LD_INST);
    S_check(conf_naive >= 30 * inst, "transpose: %.0f shared load conflicts for %.0f instructions "
            "(>= 30 each: 32-way)", conf_naive, inst);
    S_check(conf_pad <= 0.01 * conf_naive, "transpose +1 pad: %.0f conflicts (<= 1 %% of %.0f)",
            conf_pad, conf_naive);
    S_check(val(C_SMALL2, GM_M_DRAM_RD) >= 0.9 * 4194304,
            "flush on: second read of the same 4 MB still from DRAM: %.0f B (>= 90 %% of 4194304)",
            val(C_SMALL2, GM_M_DRAM_RD));

    S_second_session(&b);
    S_bufs_free(&b);
    /* Leave the GPU to ncu's child process: no context, no profiler object. */
    cudaDeviceReset();

    /* ncu on the same launches, same metrics, same cache setting */
    printf("\n== Nsight Compute\n");
    std::vector<ncu_kernel> ncu, ncu2;
    double ncu_s = 0, ncu2_s = 0;
    int rc = S_run_ncu(metrics, "all", ncu, &ncu_s);
    if (rc == 0)   /* a second run: how far ncu agrees with itself */
        rc = S_run_ncu(metrics, "all", ncu2, &ncu2_s);
    if (rc != 0) {
        S_check(false, "ncu run");
        return rc;
    }
    printf("ncu: %zu kernels profiled in %.2f s, again in %.2f s\n", ncu.size(), ncu_s, ncu2_s);
    /* ncu replays a kernel once per pass and saves/restores the memory it
     * writes in between; the restore's write-backs land in the kernel's DRAM
     * write count (measured: stride 4 wrote 0.79 MB with DRAM bytes alone, 1
     * pass, 2.62 MB in the 5-pass set).  DRAM written is compared with ncu
     * collecting DRAM bytes alone, twice. */
    std::vector<const char *> dram_only = {GM_M_DRAM_RD, GM_M_DRAM_WR};
    std::vector<ncu_kernel> d1, d2;
    double d1_s = 0, d2_s = 0;
    rc = S_run_ncu(dram_only, "all", d1, &d1_s);
    if (rc == 0)
        rc = S_run_ncu(dram_only, "all", d2, &d2_s);
    if (rc != 0 || d1.size() != N_CASES || d2.size() != N_CASES) {
        S_check(false, "ncu runs with DRAM bytes alone (%zu, %zu kernels)", d1.size(), d2.size());
        return rc ? rc : 1;
    }
    printf("\n%-18s %14s %14s %14s %14s %14s\n", "DRAM written", "collector", "ncu 1 pass",
           "ncu 1 pass", "ncu 5 passes", "ncu 5 passes");
    for (size_t i = 0; i < N_CASES && i < ncu.size(); i++) {
        size_t mw = 0;
        for (size_t m = 0; m < M; m++)
            if (strcmp(metrics[m], GM_M_DRAM_WR) == 0)
                mw = m;
        printf("%-18s %14.6g %14.6g %14.6g %14.6g %14.6g\n", g_cases[i].name, v[i * M + mw],
               d1[i].values[1], d2[i].values[1], ncu[i].values[mw],
               i < ncu2.size() ? ncu2[i].values[mw] : NAN);
    }
    S_check(ncu.size() == N_CASES, "ncu profiled %zu kernels, we launched %zu", ncu.size(), N_CASES);
    size_t nk = std::min(ncu.size(), N_CASES);
    for (size_t i = 0; i < nk; i++)
        if (ncu[i].name.find(g_cases[i].kernel) == std::string::npos)
            S_check(false, "ncu kernel %zu is %s, expected %s", i, ncu[i].name.c_str(),
                    g_cases[i].kernel);

    printf("\n%-18s %-18s %14s %14s %8s  %-7s %14s %8s\n", "case", "metric", "collector", "ncu",
           "diff", "verdict", "ncu again", "diff");
    std::vector<double> worst(M, 0), self(M, 0);
    std::vector<int> bad(M, 0);
    for (size_t i = 0; i < nk; i++) {
        for (size_t m = 0; m < M; m++) {
            double a = v[i * M + m], n = ncu[i].values[m], rel;
            metric_class c = gmt_metric_class(metrics[m]);
            double n2 = i < ncu2.size() ? ncu2[i].values[m] : NAN, rel2 = 0;
            if (c == MC_DRAM_WRITE) {
                n = d1[i].values[1];
                n2 = d2[i].values[1];
            }
            int verdict = gmt_compare(c, a, n, S_conflict_slack(metrics, &v[i * M], m), &rel);
            /* ncu disagrees with itself by at least this much: a value between
             * its two runs, or within tolerance of the second, agrees. */
            double rel_b;
            if (verdict != 0 && !std::isnan(n2) &&
                ((a >= std::fmin(n, n2) && a <= std::fmax(n, n2)) ||
                 gmt_compare(c, a, n2, S_conflict_slack(metrics, &v[i * M], m), &rel_b) == 0))
                verdict = 0;
            worst[m] = std::fmax(worst[m], rel);
            if (!std::isnan(n) && !std::isnan(n2) && std::fmax(std::fabs(n), std::fabs(n2)) > 0)
                rel2 = std::fabs(n - n2) / std::fmax(std::fabs(n), std::fabs(n2));
            self[m] = std::fmax(self[m], rel2);
            printf("%-18s %-18s %14.6g %14.6g %7.2f%%  %-7s %14.6g %7.2f%%\n", g_cases[i].name,
                   S_label(metrics[m]), a, n, 100 * rel,
                   verdict == 0 ? "ok" : verdict == 1 ? "WARN" : "FAIL", n2, 100 * rel2);
            if (verdict == 2) {
                bad[m]++;
                g_fail++;
            } else if (verdict == 1) {
                g_warn++;
            } else {
                g_pass++;
            }
        }
    }
    printf("\n== units (collector vs ncu --print-units base)\n");
    size_t unit_diff = 0;
    for (size_t m = 0; m < M; m++) {
        std::string nu = nk ? ncu[0].units[m] : "?";
        bool same = nu == units[m];
        unit_diff += !same;
        printf("%-70s %-16s %-16s %s\n", metrics[m], units[m].c_str(), nu.c_str(),
               same ? "" : "DIFFERENT");
    }
    S_check(unit_diff == 0, "units as ncu prints them (%zu differ)", unit_diff);

    printf("\n== summary per metric (worst relative difference over %zu kernels)\n", nk);
    printf("%-70s %9s %9s %5s  %s\n", "metric", "vs ncu", "ncu,ncu", "fails", "tolerance");
    for (size_t m = 0; m < M; m++)
        printf("%-70s %8.2f%% %8.2f%% %5d  %s\n", metrics[m], 100 * worst[m], 100 * self[m],
               bad[m], gmt_class_note(gmt_metric_class(metrics[m])));
    return 0;
}

static bool S_count_arg(const char *arg, const char *name, size_t max, size_t *out)
{
    char *end = NULL;
    long r = strtol(arg, &end, 10);
    if (!end || *end || r < 1 || (size_t)r > max) {
        fprintf(stderr, "%s: '%s' is not a count from 1 to %zu\n", name, arg, max);
        return false;
    }
    *out = (size_t)r;
    return true;
}

int main(int argc, char **argv)
{
    const char *mode = "compare";
    options o;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k];
        if (strncmp(a, "--mode=", 7) == 0) {
            mode = a + 7;
        } else if (strncmp(a, "--repeat=", 9) == 0) {
            if (!S_count_arg(a + 9, "--repeat", 64, &o.repeat))
                return 2;
        } else if (strncmp(a, "--batches=", 10) == 0) {
            if (!S_count_arg(a + 10, "--batches", 16, &o.batches))
                return 2;
        } else if (strncmp(a, "--flush=", 8) == 0) {
            const char *f = a + 8;
            if (strcmp(f, "off") == 0) o.flush = -1;
            else if (strcmp(f, "evict") == 0) o.flush = GMC_FLUSH_EVICT;
            else if (strcmp(f, "invalidate") == 0) o.flush = GMC_FLUSH_INVALIDATE;
            else if (strcmp(f, "aside") == 0) o.flush = GMC_FLUSH_ASIDE;
            else {
                fprintf(stderr, "--flush: '%s' is not off, evict, invalidate or aside\n", f);
                return 2;
            }
        } else if (strncmp(a, "--metrics=", 10) == 0) {
            o.metrics = a + 10;
        } else if (strncmp(a, "--cache=", 8) == 0) {
            o.cache = a + 8;
            if (strcmp(o.cache, "all") != 0 && strcmp(o.cache, "none") != 0) {
                fprintf(stderr, "--cache: '%s' is not all or none\n", o.cache);
                return 2;
            }
        } else if (strcmp(a, "--print") == 0) {
            o.print = true;
        } else if (strcmp(a, "--restore-out") == 0) {
            o.restore_out = true;
        } else {
            fprintf(stderr, "usage: %s [--mode=compare|plain|collect|ncu|metrics] [--repeat=R] "
                            "[--batches=K] [--flush=off|evict|invalidate|aside] [--metrics=A,B] "
                            "[--cache=all|none] [--print] [--restore-out]\n",
                    argv[0]);
            return strcmp(a, "--help") == 0 ? 0 : 2;
        }
    }
    if (strcmp(mode, "metrics") == 0) {
        printf("%s\n", S_join(S_default_metrics()).c_str());
        return 0;
    }
    if (strcmp(mode, "plain") == 0)
        return S_mode_plain(o.repeat);
    if (strcmp(mode, "collect") == 0)
        return S_mode_collect(o);
    if (strcmp(mode, "ncu") == 0)
        return S_mode_ncu(o);
    if (strcmp(mode, "compare") != 0) {
        fprintf(stderr, "unknown mode '%s' (compare, plain, collect, ncu, metrics)\n", mode);
        return 2;
    }
    int rc = S_mode_compare(o);
    printf("\ncollector_vs_ncu: %d passed, %d warnings, %d failed\n", g_pass, g_warn, g_fail);
    if (rc != 0)
        return rc;
    return g_fail ? 1 : 0;
}
