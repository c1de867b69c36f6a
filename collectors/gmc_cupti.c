/* gmc_cupti.c — the collector's GPU side: CUPTI range profiler (CUDA 13),
 * auto range + user replay over a batch of launches.  The why of the design
 * is in gm_collector.h; the call sequence was learnt from CUPTI's headers and
 * notes/cupti.md, and is our own code.
 *
 * Never links libcuda: the few driver-API functions needed (current context,
 * module load and launch for the L2 flush kernel) come through
 * cudaGetDriverEntryPointByVersion, so a binary linking this still starts on a
 * machine with no driver and fails here, at run time, with GMC_ERR_NO_DRIVER.
 */
#include "gmc_cupti_host.h"
#include "gmc_codes.h"
#include "gmc_internal.h"

#include <cuda.h>            /* types only: every cu* function comes through an entry point */
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_runtime_cbid.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- driver entry points ------------------------------------------------- */

typedef struct {
    PFN_cuCtxGetCurrent_v4000 ctx_get_current;
    PFN_cuDeviceGet_v2000 device_get;
    PFN_cuModuleLoadData_v2000 module_load_data;
    PFN_cuModuleGetFunction_v2000 module_get_function;
    PFN_cuModuleUnload_v2000 module_unload;
    PFN_cuLaunchKernel_v4000 launch_kernel;
    PFN_cuGetErrorName_v6000 get_error_name;
    /* GMC_FLUSH_ASIDE: the second context and what runs in it */
    PFN_cuCtxCreate_v11040 ctx_create;
    PFN_cuCtxDestroy_v4000 ctx_destroy;
    PFN_cuCtxPushCurrent_v4000 ctx_push;
    PFN_cuCtxPopCurrent_v4000 ctx_pop;
    PFN_cuCtxSynchronize_v2000 ctx_synchronize;
    PFN_cuMemAlloc_v3020 mem_alloc;
    PFN_cuMemsetD32_v3020 memset_d32;
} S_driver;

/* The grid-stride loop's start and step, shared by the two PTX kernels below:
 * %rd4 = blockIdx.x * blockDim.x + threadIdx.x, %rd6 = gridDim.x * blockDim.x
 * (64-bit, so 4 x L2 / 128 lines never overflows). */
#define S_PTX_GRID_STRIDE                 \
    "    mov.u32 %r1, %ctaid.x;\n"        \
    "    mov.u32 %r2, %ntid.x;\n"         \
    "    mov.u32 %r3, %tid.x;\n"          \
    "    mov.u32 %r4, %nctaid.x;\n"       \
    "    mul.wide.u32 %rd4, %r1, %r2;\n"  \
    "    cvt.u64.u32 %rd5, %r3;\n"        \
    "    add.u64 %rd4, %rd4, %rd5;\n"     \
    "    mul.wide.u32 %rd6, %r4, %r2;\n"

/* The L2 flush: one 4-byte load (ld.global.cg: cached in L2 only) from every
 * 128-byte line of a buffer of 4 x the L2 size, grid-stride.  L2 allocates
 * whole 128-byte lines (tags), so touching one word of each line claims as
 * many tags as reading every byte would, and evicts every line that was
 * there (dirty ones are written back now, in the flush's range, not the
 * kernel's) -- with 1/8 of the load instructions of reading every byte 16
 * bytes at a time (one warp instruction covers 32 lines, not 4), which
 * matters because CUPTI instruments the kernels of a profiled context and
 * the flush is one of them.  The xor of everything is
 * stored only if it equals 1, which it never does (the buffer is zeroed), so
 * nothing is written but the loads cannot be removed.  Written in PTX because
 * the collector is C: the driver JIT-compiles it at session open. */
static const char S_scrub_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry gmc_l2_scrub(.param .u64 gmc_buf, .param .u64 gmc_n128, .param .u64 gmc_sink)\n"
    "{\n"
    "    .reg .pred %p<3>;\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .b64 %rd<12>;\n"
    "    ld.param.u64 %rd1, [gmc_buf];\n"
    "    ld.param.u64 %rd2, [gmc_n128];\n"
    "    ld.param.u64 %rd3, [gmc_sink];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    cvta.to.global.u64 %rd3, %rd3;\n"
    S_PTX_GRID_STRIDE
    "    mov.u32 %r5, 0;\n"
    "$L_loop:\n"
    "    setp.ge.u64 %p1, %rd4, %rd2;\n"
    "    @%p1 bra $L_done;\n"
    "    shl.b64 %rd7, %rd4, 7;\n"
    "    add.u64 %rd8, %rd1, %rd7;\n"
    "    ld.global.cg.u32 %r6, [%rd8];\n"
    "    xor.b32 %r5, %r5, %r6;\n"
    "    add.u64 %rd4, %rd4, %rd6;\n"
    "    bra.uni $L_loop;\n"
    "$L_done:\n"
    "    setp.ne.u32 %p2, %r5, 1;\n"
    "    @%p2 bra $L_end;\n"
    "    st.global.u32 [%rd3], %r5;\n"
    "$L_end:\n"
    "    ret;\n"
    "}\n";

/* The second half of GMC_FLUSH_INVALIDATE: discard.global.L2 every 128-byte
 * line of the flush buffer, which the read above left in L2 (clean).  The
 * lines become invalid, as after ncu's flush, so the kernel's writes find
 * free ways instead of evicting anything.  discard needs sm_80 (PTX 7.4);
 * the buffer's contents become undefined, which is fine: nobody reads them
 * for their values. */
static const char S_discard_ptx[] =
    ".version 7.4\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry gmc_l2_discard(.param .u64 gmc_buf, .param .u64 gmc_n128)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .b64 %rd<10>;\n"
    "    ld.param.u64 %rd1, [gmc_buf];\n"
    "    ld.param.u64 %rd2, [gmc_n128];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    S_PTX_GRID_STRIDE
    "$L_loop:\n"
    "    setp.ge.u64 %p1, %rd4, %rd2;\n"
    "    @%p1 bra $L_end;\n"
    "    shl.b64 %rd7, %rd4, 7;\n"
    "    add.u64 %rd8, %rd1, %rd7;\n"
    "    discard.global.L2 [%rd8], 128;\n"
    "    add.u64 %rd4, %rd4, %rd6;\n"
    "    bra.uni $L_loop;\n"
    "$L_end:\n"
    "    ret;\n"
    "}\n";

/* ---- the session ----------------------------------------------------------- */

struct gmc_session {
    gmc_config cfg;
    char **metrics;            /* owned copies of cfg.metrics */
    char (*units)[32];
    size_t n_metrics;
    int passes;
    char chip[64];

    S_driver drv;
    CUcontext ctx;
    CUdevice cudev;

    uint8_t *avail;            /* counter availability image */
    CUpti_Profiler_Host_Object *host;
    uint8_t *config;
    size_t config_size;
    CUpti_RangeProfiler_Object *rp;
    uint8_t *counter_data;
    size_t counter_data_size;
    size_t range_capacity;

    /* L2 flush */
    gmc_flush_method flush_method;  /* as used */
    unsigned flush_kernels;         /* kernels (so ranges) per flush: 0, 1 or 2 */
    CUmodule scrub_module, discard_module;
    CUfunction scrub_fn, discard_fn;
    void *scrub_buf;
    unsigned long long scrub_lines; /* 128-byte lines in scrub_buf */
    void *scrub_sink;
    unsigned scrub_blocks;
    CUcontext aside;                /* GMC_FLUSH_ASIDE: the context the flush runs in */
    CUdeviceptr aside_buf, aside_sink;
    CUmodule aside_module;
    CUfunction aside_fn;

    /* launch tracking (CUPTI callbacks) */
    CUpti_SubscriberHandle subscriber;
    bool tracking;
    bool recording;
    gmc_phase phase;
    size_t phase_index;
    int launch_depth;          /* nesting of launch API calls: runtime -> driver */
    size_t pass;
    gmc_kernel_record *log;    /* kernels of pass 0, in launch order */
    size_t n_log, cap_log;
    size_t pass_count;         /* kernels seen in the current pass */
    bool log_oom;
    bool mismatch;
    char mismatch_msg[256];

    /* last batch */
    size_t *range_of_launch;
    size_t last_n;
    gmc_session_info info;
};

static gmc_session *g_session;   /* one per process: CUPTI allows one subscriber */
/* cuptiProfilerInitialize runs once per process and is never undone: sessions
 * and gmc_device_info_get come and go, and initialising again after a
 * DeInitialize is a path we have no need to depend on.  CUPTI tears the
 * profiler down at exit. */
static bool g_profiler_initialized;

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static gmc_status S_cuda_fail(gmc_error *err, cudaError_t e, const char *expr, const char *file,
                              int line)
{
    return gmc_fail_cuda(err, (int)e, cudaGetErrorName(e), cudaGetErrorString(e), expr, file,
                         line);
}

static gmc_status S_cupti_fail(gmc_error *err, CUptiResult r, const char *expr, const char *file,
                               int line)
{
    const char *desc = NULL;
    if (cuptiGetResultString(r, &desc) != CUPTI_SUCCESS)
        desc = NULL;
    return gmc_fail_cupti(err, (int)r, desc, expr, file, line);
}

static gmc_status S_driver_fail(const S_driver *drv, gmc_error *err, CUresult r, const char *expr,
                                const char *file, int line)
{
    const char *name = NULL;
    if (!drv->get_error_name || drv->get_error_name(r, &name) != CUDA_SUCCESS)
        name = "CUDA driver error";
    return gmc_fail(err, r == CUDA_ERROR_OUT_OF_MEMORY ? GMC_ERR_NOMEM : GMC_ERR_CUDA,
                    "%s:%d: %s: %s (%d)", file, line, expr, name, (int)r);
}

/* Each checks one call inside a function with `gmc_status st`, `gmc_error
 * *err` and a `fail:` label that cleans up. */
#define S_CUDA(call)                                                                   \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            st = S_cuda_fail(err, e_, #call, __FILE__, __LINE__);                      \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)
#define S_CUPTI(call)                                                                  \
    do {                                                                               \
        CUptiResult r_ = (call);                                                       \
        if (r_ != CUPTI_SUCCESS) {                                                     \
            st = S_cupti_fail(err, r_, #call, __FILE__, __LINE__);                     \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)
#define S_DRV(drv, call)                                                               \
    do {                                                                               \
        CUresult d_ = (call);                                                          \
        if (d_ != CUDA_SUCCESS) {                                                      \
            st = S_driver_fail((drv), err, d_, #call, __FILE__, __LINE__);             \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)
#define S_TRY(expr)                                                                    \
    do {                                                                               \
        st = (expr);                                                                   \
        if (st != GMC_OK)                                                              \
            goto fail;                                                                 \
    } while (0)

/* ---- device and driver ---------------------------------------------------- */

/* Make `device` current and its primary context exist.  Maps "no driver" and
 * "no device" to their own statuses. */
static gmc_status S_device_open(int device, gmc_error *err)
{
    gmc_status st = GMC_OK;
    int count = 0;
    S_CUDA(cudaGetDeviceCount(&count));
    if (device < 0 || device >= count)
        return gmc_fail(err, GMC_ERR_NO_DEVICE,
                        "CUDA device %d does not exist: this machine has %d (check "
                        "CUDA_VISIBLE_DEVICES)", device, count);
    S_CUDA(cudaSetDevice(device));
    S_CUDA(cudaFree(0));   /* creates the primary context */
fail:
    return st;
}

/* version: the CUDA version whose ABI of the symbol we want, matching the
 * PFN type it is stored in (12000: the CUDA 12.0 form of each; drivers keep
 * every version of a symbol). */
static gmc_status S_entry(void **fn, const char *name, unsigned version, gmc_error *err)
{
    gmc_status st = GMC_OK;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    S_CUDA(cudaGetDriverEntryPointByVersion(name, fn, version, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !*fn)
        return gmc_fail(err, GMC_ERR_NO_DRIVER,
                        "the CUDA driver does not provide %s (query result %d): update the "
                        "NVIDIA driver", name, (int)q);
fail:
    return st;
}

static gmc_status S_driver_load(S_driver *d, gmc_error *err)
{
    gmc_status st = GMC_OK;
    S_TRY(S_entry((void **)&d->ctx_get_current, "cuCtxGetCurrent", 12000, err));
    S_TRY(S_entry((void **)&d->device_get, "cuDeviceGet", 12000, err));
    S_TRY(S_entry((void **)&d->module_load_data, "cuModuleLoadData", 12000, err));
    S_TRY(S_entry((void **)&d->module_get_function, "cuModuleGetFunction", 12000, err));
    S_TRY(S_entry((void **)&d->module_unload, "cuModuleUnload", 12000, err));
    S_TRY(S_entry((void **)&d->launch_kernel, "cuLaunchKernel", 12000, err));
    S_TRY(S_entry((void **)&d->get_error_name, "cuGetErrorName", 12000, err));
    S_TRY(S_entry((void **)&d->ctx_create, "cuCtxCreate", 12000, err));
    S_TRY(S_entry((void **)&d->ctx_destroy, "cuCtxDestroy", 12000, err));
    S_TRY(S_entry((void **)&d->ctx_push, "cuCtxPushCurrent", 12000, err));
    S_TRY(S_entry((void **)&d->ctx_pop, "cuCtxPopCurrent", 12000, err));
    S_TRY(S_entry((void **)&d->ctx_synchronize, "cuCtxSynchronize", 12000, err));
    S_TRY(S_entry((void **)&d->mem_alloc, "cuMemAlloc", 12000, err));
    S_TRY(S_entry((void **)&d->memset_d32, "cuMemsetD32", 12000, err));
fail:
    return st;
}

static gmc_status S_profiler_init(gmc_error *err)
{
    gmc_status st = GMC_OK;
    if (!g_profiler_initialized) {
        CUpti_Profiler_Initialize_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
        S_CUPTI(cuptiProfilerInitialize(&p));
        g_profiler_initialized = true;
    }
fail:
    return st;
}

static gmc_status S_chip_name(int device, char *out, size_t cap, gmc_error *err)
{
    gmc_status st = GMC_OK;
    CUpti_Device_GetChipName_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    p.deviceIndex = (size_t)device;
    S_CUPTI(cuptiDeviceGetChipName(&p));
    snprintf(out, cap, "%s", p.pChipName ? p.pChipName : "");
fail:
    return st;
}

static const char *S_support_word(CUpti_Profiler_Support_Level l)
{
    switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    default: return "unknown";
    }
}

static gmc_status S_check_supported(CUdevice dev, int ordinal, gmc_error *err)
{
    gmc_status st = GMC_OK;
    CUpti_Profiler_DeviceSupported_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    p.cuDevice = dev;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    S_CUPTI(cuptiProfilerDeviceSupported(&p));
    if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return GMC_OK;
    return gmc_fail(
        err, GMC_ERR_UNSUPPORTED_DEVICE,
        "CUPTI's range profiler does not support CUDA device %d: architecture %s (needs "
        "compute capability 7.0+), vGPU %s%s, SLI %s, confidential computing %s, CMP %s, WSL %s. "
        "MIG instances and GPUs older than Volta cannot be profiled; on a vGPU, profiling must "
        "be enabled for the VM by the host administrator.",
        ordinal, S_support_word(p.architecture), S_support_word(p.vGpu),
        p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED ? " (profiling not enabled for this VM)"
                                                        : "",
        S_support_word(p.sli), S_support_word(p.confidentialCompute), S_support_word(p.cmp),
        S_support_word(p.wsl));
fail:
    return st;
}

/* ---- device info --------------------------------------------------------- */

gmc_status gmc_device_count(int *n, gmc_error *err)
{
    gmc_status st = GMC_OK;
    *n = 0;
    S_CUDA(cudaGetDeviceCount(n));
fail:
    return st;
}

gmc_status gmc_device_info_get(int device, gmc_device_info *out, gmc_error *err)
{
    gmc_status st = GMC_OK;
    if (!out)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_device_info_get: NULL output");
    memset(out, 0, sizeof *out);
    S_TRY(S_device_open(device, err));

    struct cudaDeviceProp prop;
    S_CUDA(cudaGetDeviceProperties(&prop, device));
    snprintf(out->name, sizeof out->name, "%s", prop.name);
    /* as nvidia-smi -L prints it: GPU-8-4-4-4-12 hex digits */
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(out->uuid, sizeof out->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
             u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
    out->cc_major = prop.major;
    out->cc_minor = prop.minor;
    out->sm_count = prop.multiProcessorCount;
    out->l2_bytes = prop.l2CacheSize;
    out->global_mem_bytes = (long long)prop.totalGlobalMem;
    /* CUDA 13 dropped memoryClockRate and memoryBusWidth from cudaDeviceProp;
     * the attributes remain. */
    int khz = 0, bits = 0;
    S_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
    S_CUDA(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device));
    out->mem_clock_khz = khz;
    out->bus_width_bits = bits;
    out->theoretical_gbs = gmc_theoretical_gbs(khz, bits);
    S_CUDA(cudaDriverGetVersion(&out->cuda_driver_api));
    S_CUDA(cudaRuntimeGetVersion(&out->cuda_runtime));
    uint32_t cupti_version = 0;
    CUptiResult r = cuptiGetVersion(&cupti_version);
    out->cupti_api = r == CUPTI_SUCCESS ? (long long)cupti_version : -1;

    /* The kernel driver's own version: /proc is readable in most containers;
     * "" otherwise (not an error: the CUDA driver API version is above). */
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (f) {
        char text[1024];
        size_t len = fread(text, 1, sizeof text - 1, f);
        text[len] = '\0';
        fclose(f);
        gmc_parse_driver_version(text, out->driver_version, sizeof out->driver_version);
    }

    /* The chip name needs the profiler initialised.  A device the profiler
     * cannot name gets "" (gmc_session_open reports why if profiling is
     * attempted). */
    gmc_error chip_err;
    if (S_profiler_init(&chip_err) != GMC_OK ||
        S_chip_name(device, out->chip, sizeof out->chip, &chip_err) != GMC_OK)
        out->chip[0] = '\0';
fail:
    return st;
}

/* ---- launch tracking -------------------------------------------------------- */

/* Logs each kernel launched during a pass, once: a runtime launch calls the
 * driver's launch inside it, and both domains are enabled (in case either is
 * silent), so only the outermost launch call of a nest counts. */
static void CUPTIAPI S_on_launch(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                 const void *data)
{
    gmc_session *s = user;
    const CUpti_CallbackData *cb = data;
    if (!s || !cb || !gmc_is_launch_callback(dom, cbid))
        return;
    if (cb->callbackSite == CUPTI_API_EXIT) {
        if (s->launch_depth > 0)
            s->launch_depth--;
        return;
    }
    if (s->launch_depth++ > 0 || !s->recording)
        return;
    /* Kernels of other contexts are not ranges of the profiled one. */
    if (cb->context && cb->context != s->ctx)
        return;
    const char *name = cb->symbolName ? cb->symbolName : (cb->functionName ? cb->functionName : "?");
    size_t k = s->pass_count++;
    if (s->pass == 0) {
        if (s->n_log == s->cap_log) {
            size_t cap = s->cap_log ? 2 * s->cap_log : 64;
            gmc_kernel_record *grown = realloc(s->log, cap * sizeof *grown);
            if (!grown) {
                s->log_oom = true;
                return;
            }
            s->log = grown;
            s->cap_log = cap;
        }
        gmc_kernel_record *rec = &s->log[s->n_log++];
        rec->phase = s->phase;
        rec->index = s->phase_index;
        snprintf(rec->kernel, sizeof rec->kernel, "%s", name);
    } else if (!s->mismatch &&
               (k >= s->n_log || s->log[k].phase != s->phase || s->log[k].index != s->phase_index)) {
        s->mismatch = true;
        snprintf(s->mismatch_msg, sizeof s->mismatch_msg,
                 "pass %zu launched kernel %zu (%s, %s of launch %zu) where pass 1 launched %s",
                 s->pass + 1, k, name, gmc_phase_name(s->phase), s->phase_index,
                 k < s->n_log ? s->log[k].kernel : "nothing");
    }
}

static gmc_status S_tracking_start(gmc_session *s, gmc_error *err)
{
    gmc_status st = GMC_OK;
    CUptiResult r = cuptiSubscribe(&s->subscriber, S_on_launch, s);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        /* Someone else (a tracer, an injection library) holds the one CUPTI
         * subscriber; ranges are then mapped by count (see gm_collector.h). */
        s->subscriber = NULL;
        s->tracking = false;
        return GMC_OK;
    }
    S_CUPTI(r);
    for (size_t k = 0; k < gmc_n_launch_callbacks; k++)
        S_CUPTI(cuptiEnableCallback(1, s->subscriber, gmc_launch_callbacks[k].domain,
                                    gmc_launch_callbacks[k].cbid));
    s->tracking = true;
fail:
    return st;
}

/* ---- metrics ----------------------------------------------------------------- */

static gmc_status S_host_init(const gmc_session *s, CUpti_Profiler_Host_Object **out,
                              gmc_error *err)
{
    gmc_status st = GMC_OK;
    gmc_host_initialize_params p;
    memset(&p, 0, sizeof p);
    p.structSize = GMC_HOST_INITIALIZE_SIZE;
    p.profilerType = GMC_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = s->chip;
    p.pCounterAvailabilityImage = s->avail;
    S_CUPTI(cuptiProfilerHostInitialize(&p));
    *out = p.pHostObject;
fail:
    return st;
}

static void S_host_free(CUpti_Profiler_Host_Object *h)
{
    if (!h)
        return;
    gmc_host_deinitialize_params p;
    memset(&p, 0, sizeof p);
    p.structSize = GMC_HOST_DEINITIALIZE_SIZE;
    p.pHostObject = h;
    (void)cuptiProfilerHostDeinitialize(&p);   /* teardown */
}

/* Does this chip accept `name` on its own?  A fresh host object each time,
 * since a failed ConfigAddMetrics may leave the session's one unusable. */
static bool S_metric_accepted(const gmc_session *s, const char *name)
{
    gmc_error ignored;
    CUpti_Profiler_Host_Object *h = NULL;
    if (S_host_init(s, &h, &ignored) != GMC_OK)
        return false;
    gmc_host_config_add_metrics_params p;
    memset(&p, 0, sizeof p);
    p.structSize = GMC_HOST_CONFIG_ADD_METRICS_SIZE;
    p.pHostObject = h;
    p.ppMetricNames = &name;
    p.numMetrics = 1;
    bool ok = cuptiProfilerHostConfigAddMetrics(&p) == CUPTI_SUCCESS;
    S_host_free(h);
    return ok;
}

/* The message for a metric this chip does not have, with the nearest base
 * metric CUPTI lists (any of the three types), plus the user's suffix. */
static gmc_status S_unknown_metric(const gmc_session *s, const char *name, gmc_error *err)
{
    const char **cands = NULL;
    size_t n = 0, cap = 0;
    for (int type = GMC_METRIC_TYPE_COUNTER; type < GMC_METRIC_TYPE_COUNT; type++) {
        gmc_host_get_base_metrics_params p;
        memset(&p, 0, sizeof p);
        p.structSize = GMC_HOST_GET_BASE_METRICS_SIZE;
        p.pHostObject = s->host;
        p.metricType = type;
        if (cuptiProfilerHostGetBaseMetrics(&p) != CUPTI_SUCCESS || !p.ppMetricNames)
            continue;
        if (n + p.numMetrics > cap) {
            cap = n + p.numMetrics;
            const char **grown = realloc(cands, cap * sizeof *grown);
            if (!grown)
                break;
            cands = grown;
        }
        for (size_t k = 0; k < p.numMetrics; k++)
            cands[n++] = p.ppMetricNames[k];
    }
    size_t best = gmc_nearest_metric(name, cands, n);
    char hint[320] = "";
    if (best < n)
        snprintf(hint, sizeof hint, "; nearest name on this chip: '%s%s'", cands[best],
                 name + strcspn(name, "."));
    free(cands);
    return gmc_fail(err, GMC_ERR_UNKNOWN_METRIC,
                    "metric '%s' does not exist on %s (CUPTI rejects it)%s. "
                    "`ncu --query-metrics` lists the base names; append .sum/.avg/.pct/.ratio etc.",
                    name, s->chip, hint);
}

static gmc_status S_metrics_configure(gmc_session *s, gmc_error *err)
{
    gmc_status st = GMC_OK;
    gmc_host_config_add_metrics_params add;
    memset(&add, 0, sizeof add);
    add.structSize = GMC_HOST_CONFIG_ADD_METRICS_SIZE;
    add.pHostObject = s->host;
    add.ppMetricNames = (const char **)s->metrics;
    add.numMetrics = s->n_metrics;
    CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
    if (r != CUPTI_SUCCESS) {
        /* Find which name is at fault, for a message that names it. */
        for (size_t i = 0; i < s->n_metrics; i++)
            if (!S_metric_accepted(s, s->metrics[i]))
                return S_unknown_metric(s, s->metrics[i], err);
        return S_cupti_fail(err, r, "cuptiProfilerHostConfigAddMetrics(all metrics)", __FILE__,
                            __LINE__);
    }

    /* Units, for the report: properties of the full name, else of its base. */
    for (size_t i = 0; i < s->n_metrics; i++) {
        gmc_host_get_metric_properties_params p;
        memset(&p, 0, sizeof p);
        p.structSize = GMC_HOST_GET_METRIC_PROPERTIES_SIZE;
        p.pHostObject = s->host;
        p.pMetricName = s->metrics[i];
        r = cuptiProfilerHostGetMetricProperties(&p);
        if (r != CUPTI_SUCCESS) {
            char base[256];
            snprintf(base, sizeof base, "%.*s", (int)strcspn(s->metrics[i], "."), s->metrics[i]);
            memset(&p, 0, sizeof p);
            p.structSize = GMC_HOST_GET_METRIC_PROPERTIES_SIZE;
            p.pHostObject = s->host;
            p.pMetricName = base;
            r = cuptiProfilerHostGetMetricProperties(&p);
        }
        const char *dim = r == CUPTI_SUCCESS && p.pDimUnit ? p.pDimUnit : "";
        gmc_unit_ncu(dim, s->units[i], sizeof s->units[i]);
    }

    gmc_host_get_config_image_size_params sz;
    memset(&sz, 0, sizeof sz);
    sz.structSize = GMC_HOST_GET_CONFIG_IMAGE_SIZE_SIZE;
    sz.pHostObject = s->host;
    S_CUPTI(cuptiProfilerHostGetConfigImageSize(&sz));
    s->config_size = sz.configImageSize;
    s->config = malloc(s->config_size ? s->config_size : 1);
    if (!s->config)
        return gmc_fail(err, GMC_ERR_NOMEM, "out of memory for the config image (%zu bytes)",
                        s->config_size);
    gmc_host_get_config_image_params img;
    memset(&img, 0, sizeof img);
    img.structSize = GMC_HOST_GET_CONFIG_IMAGE_SIZE;
    img.pHostObject = s->host;
    img.configImageSize = s->config_size;
    img.pConfigImage = s->config;
    S_CUPTI(cuptiProfilerHostGetConfigImage(&img));

    gmc_host_get_num_passes_params np;
    memset(&np, 0, sizeof np);
    np.structSize = GMC_HOST_GET_NUM_PASSES_SIZE;
    np.configImageSize = s->config_size;
    np.pConfigImage = s->config;
    S_CUPTI(cuptiProfilerHostGetNumOfPasses(&np));
    s->passes = (int)np.numOfPasses;
fail:
    return st;
}

/* ---- L2 flush ---------------------------------------------------------------- */

/* The flush kernels run in the profiled context, so each is a range of its
 * own (and is logged as such).  A context of their own would keep them out of
 * the ranges, but measured on the H100 it cost as much per pass (3.28 vs 3.33
 * ms per launch with GMC_FLUSH_INVALIDATE: the context switches and
 * synchronisations cost what the ranges did) plus 0.1 s to create
 * (bench/results/collector-experiments.txt, section 4). */
/* GMC_FLUSH_ASIDE: a context of our own on the device, with the scrub kernel
 * and its buffer in it; the profiled context is current again on return. */
static gmc_status S_aside_setup(gmc_session *s, size_t bytes, gmc_error *err)
{
    gmc_status st = GMC_OK;
    bool pushed = false;
    S_DRV(&s->drv, s->drv.ctx_create(&s->aside, NULL, 0, 0, s->cudev));
    pushed = true;   /* cuCtxCreate made it current */
    S_DRV(&s->drv, s->drv.module_load_data(&s->aside_module, S_scrub_ptx));
    S_DRV(&s->drv, s->drv.module_get_function(&s->aside_fn, s->aside_module, "gmc_l2_scrub"));
    S_DRV(&s->drv, s->drv.mem_alloc(&s->aside_buf, bytes));
    S_DRV(&s->drv, s->drv.mem_alloc(&s->aside_sink, sizeof(uint32_t)));
    S_DRV(&s->drv, s->drv.memset_d32(s->aside_buf, 0, bytes / 4));
    S_DRV(&s->drv, s->drv.ctx_synchronize());
fail:
    if (pushed) {
        CUcontext popped;
        CUresult r = s->drv.ctx_pop(&popped);
        if (r != CUDA_SUCCESS && st == GMC_OK)
            st = S_driver_fail(&s->drv, err, r, "cuCtxPopCurrent", __FILE__, __LINE__);
    }
    if (st != GMC_OK && s->aside) {
        (void)s->drv.ctx_destroy(s->aside);   /* frees its module and memory */
        s->aside = NULL;
        s->aside_module = NULL;
        s->aside_buf = s->aside_sink = 0;
    }
    return st;
}

static gmc_status S_flush_setup(gmc_session *s, gmc_error *err)
{
    gmc_status st = GMC_OK;
    int l2 = 0, sms = 0, major = 0;
    S_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, s->cfg.device));
    S_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->cfg.device));
    S_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, s->cfg.device));
    /* 4 x L2 (200 MiB on an H100's 50 MiB) of lines: no set keeps a line of
     * what was there before. */
    size_t bytes = 4 * (size_t)(l2 > 0 ? l2 : 8 << 20);
    if (bytes < ((size_t)32 << 20))
        bytes = (size_t)32 << 20;
    s->scrub_lines = bytes / 128;
    s->scrub_blocks = (unsigned)(sms > 0 ? sms : 1) * 4;   /* 4 blocks of 512 per SM */
    s->flush_method = s->cfg.flush_method;
    if (s->flush_method == GMC_FLUSH_INVALIDATE && major < 8)
        s->flush_method = GMC_FLUSH_EVICT;   /* no discard before sm_80 */
    if (s->flush_method == GMC_FLUSH_ASIDE) {
        gmc_error aside_err;
        if (S_aside_setup(s, bytes, &aside_err) == GMC_OK) {
            s->flush_kernels = 0;
            return GMC_OK;
        }
        /* No second context to be had (memory, compute mode): the flush
         * becomes a range of the profiled context, as EVICT. */
        s->flush_method = GMC_FLUSH_EVICT;
    }
    S_CUDA(cudaMalloc(&s->scrub_buf, bytes));
    S_CUDA(cudaMalloc(&s->scrub_sink, sizeof(uint32_t)));
    S_CUDA(cudaMemset(s->scrub_buf, 0, bytes));
    S_DRV(&s->drv, s->drv.module_load_data(&s->scrub_module, S_scrub_ptx));
    S_DRV(&s->drv, s->drv.module_get_function(&s->scrub_fn, s->scrub_module, "gmc_l2_scrub"));
    if (s->flush_method == GMC_FLUSH_INVALIDATE) {
        S_DRV(&s->drv, s->drv.module_load_data(&s->discard_module, S_discard_ptx));
        S_DRV(&s->drv, s->drv.module_get_function(&s->discard_fn, s->discard_module,
                                                  "gmc_l2_discard"));
    }
    S_CUDA(cudaDeviceSynchronize());
    s->flush_kernels = s->flush_method == GMC_FLUSH_INVALIDATE ? 2 : 1;
fail:
    return st;
}

/* The scrub in the aside context, between two kernels of the profiled one:
 * what the profiled context enqueued has finished before it starts, and it
 * has finished before the next launch is enqueued. */
static gmc_status S_flush_aside(gmc_session *s, gmc_error *err)
{
    gmc_status st = GMC_OK;
    bool pushed = false;
    unsigned long long buf = (unsigned long long)s->aside_buf;
    unsigned long long sink = (unsigned long long)s->aside_sink;
    void *args[] = {&buf, &s->scrub_lines, &sink};
    S_DRV(&s->drv, s->drv.ctx_synchronize());
    S_DRV(&s->drv, s->drv.ctx_push(s->aside));
    pushed = true;
    S_DRV(&s->drv, s->drv.launch_kernel(s->aside_fn, s->scrub_blocks, 1, 1, 512, 1, 1, 0, NULL,
                                        args, NULL));
    S_DRV(&s->drv, s->drv.ctx_synchronize());
fail:
    if (pushed) {
        CUcontext popped;
        CUresult r = s->drv.ctx_pop(&popped);
        if (r != CUDA_SUCCESS && st == GMC_OK)
            st = S_driver_fail(&s->drv, err, r, "cuCtxPopCurrent", __FILE__, __LINE__);
    }
    return st;
}

static gmc_status S_flush(gmc_session *s, gmc_error *err)
{
    gmc_status st = GMC_OK;
    if (s->flush_method == GMC_FLUSH_ASIDE)
        return S_flush_aside(s, err);
    unsigned long long buf = (unsigned long long)(uintptr_t)s->scrub_buf;
    unsigned long long sink = (unsigned long long)(uintptr_t)s->scrub_sink;
    void *args[] = {&buf, &s->scrub_lines, &sink};
    S_DRV(&s->drv, s->drv.launch_kernel(s->scrub_fn, s->scrub_blocks, 1, 1, 512, 1, 1, 0, NULL,
                                        args, NULL));
    if (s->flush_method == GMC_FLUSH_INVALIDATE) {
        void *dargs[] = {&buf, &s->scrub_lines};
        S_DRV(&s->drv, s->drv.launch_kernel(s->discard_fn, s->scrub_blocks, 1, 1, 512, 1, 1, 0,
                                            NULL, dargs, NULL));
    }
fail:
    return st;
}

/* ---- open / close ---------------------------------------------------------------- */

/* Enable the range profiler on the session's context: a fresh object in s->rp
 * (at open, and again when a later batch needs one). */
static gmc_status S_rp_enable(gmc_session *s, gmc_error *err)
{
    gmc_status st = GMC_OK;
    CUpti_RangeProfiler_Enable_Params en;
    memset(&en, 0, sizeof en);
    en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    en.ctx = s->ctx;
    S_CUPTI(cuptiRangeProfilerEnable(&en));
    s->rp = en.pRangeProfilerObject;
fail:
    return st;
}

gmc_status gmc_session_open_waiting(const gmc_config *cfg, gmc_session **out, double max_wait_s,
                                    double *waited_s, gmc_error *err)
{
    double t0 = S_now(), nap = 0.05;
    gmc_status st;
    while ((st = gmc_session_open(cfg, out, err)) == GMC_ERR_BUSY &&
           S_now() - t0 + nap <= max_wait_s) {
        struct timespec ts = {0, (long)(nap * 1e9)};
        while (nanosleep(&ts, &ts) != 0)
            ;
        nap = nap < 0.4 ? 2 * nap : 0.5;
    }
    if (waited_s)
        *waited_s = S_now() - t0;
    return st;
}

gmc_status gmc_session_open(const gmc_config *cfg, gmc_session **out, gmc_error *err)
{
    gmc_status st = GMC_OK;
    gmc_session *s = NULL;
    double t0 = S_now();
    if (out)
        *out = NULL;
    if (!out)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_session_open: NULL argument");
    st = gmc_config_check(cfg, err);
    if (st != GMC_OK)
        return st;
    if (g_session)
        return gmc_fail(err, GMC_ERR_ARG,
                        "a collector session is already open in this process; close it first");

    s = calloc(1, sizeof *s);
    if (!s)
        return gmc_fail(err, GMC_ERR_NOMEM, "out of memory for the session");
    s->cfg = *cfg;
    s->n_metrics = cfg->n_metrics;
    s->metrics = calloc(s->n_metrics, sizeof *s->metrics);
    s->units = calloc(s->n_metrics, sizeof *s->units);
    s->range_of_launch = calloc(cfg->max_launches, sizeof *s->range_of_launch);
    if (!s->metrics || !s->units || !s->range_of_launch) {
        st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory for the session");
        goto fail;
    }
    for (size_t i = 0; i < s->n_metrics; i++) {
        s->metrics[i] = strdup(cfg->metrics[i]);
        if (!s->metrics[i]) {
            st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory for the session");
            goto fail;
        }
    }
    s->cfg.metrics = (const char *const *)s->metrics;
    g_session = s;

    S_TRY(S_device_open(cfg->device, err));
    S_TRY(S_driver_load(&s->drv, err));
    S_DRV(&s->drv, s->drv.ctx_get_current(&s->ctx));
    S_DRV(&s->drv, s->drv.device_get(&s->cudev, cfg->device));

    S_TRY(S_profiler_init(err));
    S_TRY(S_check_supported(s->cudev, cfg->device, err));
    S_TRY(S_chip_name(cfg->device, s->chip, sizeof s->chip, err));

    /* Counter availability: what this context may collect (the first call a
     * non-admin user sees refused when counters are restricted). */
    CUpti_Profiler_GetCounterAvailability_Params av;
    memset(&av, 0, sizeof av);
    av.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    av.ctx = s->ctx;
    S_CUPTI(cuptiProfilerGetCounterAvailability(&av));
    s->avail = malloc(av.counterAvailabilityImageSize ? av.counterAvailabilityImageSize : 1);
    if (!s->avail) {
        st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory for the counter availability image");
        goto fail;
    }
    av.pCounterAvailabilityImage = s->avail;
    S_CUPTI(cuptiProfilerGetCounterAvailability(&av));

    S_TRY(S_host_init(s, &s->host, err));
    S_TRY(S_metrics_configure(s, err));
    S_TRY(S_tracking_start(s, err));
    if (cfg->flush_l2)
        S_TRY(S_flush_setup(s, err));

    S_TRY(S_rp_enable(s, err));

    /* Ranges per launch, at most: the launch, the flush kernels, prepare's
     * (gmc_config_check kept the product within 4096). */
    size_t per_launch = 1 + (cfg->flush_l2 ? 2 : 0) + cfg->prepare_kernels;
    s->range_capacity = cfg->max_launches * per_launch;
    CUpti_RangeProfiler_GetCounterDataSize_Params cs;
    memset(&cs, 0, sizeof cs);
    cs.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    cs.pRangeProfilerObject = s->rp;
    cs.pMetricNames = (const char **)s->metrics;
    cs.numMetrics = s->n_metrics;
    cs.maxNumOfRanges = s->range_capacity;
    cs.maxNumRangeTreeNodes = (uint32_t)s->range_capacity;
    S_CUPTI(cuptiRangeProfilerGetCounterDataSize(&cs));
    s->counter_data_size = cs.counterDataSize;
    s->counter_data = malloc(s->counter_data_size ? s->counter_data_size : 1);
    if (!s->counter_data) {
        st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory for the counter data image (%zu bytes)",
                      s->counter_data_size);
        goto fail;
    }

    s->info.launch_tracking = s->tracking;
    s->info.flush_l2 = cfg->flush_l2;
    s->info.flush_method = s->flush_method;
    s->info.range_capacity = s->range_capacity;
    s->info.setup_seconds = S_now() - t0;
    *out = s;
    return GMC_OK;
fail:
    gmc_session_close(s);
    return st;
}

void gmc_session_close(gmc_session *s)
{
    if (!s)
        return;
    /* Teardown: each step is attempted whatever the previous one returned;
     * there is no caller left to report a failure to. */
    if (s->rp) {
        CUpti_RangeProfiler_Disable_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = s->rp;
        (void)cuptiRangeProfilerDisable(&p);
    }
    S_host_free(s->host);
    if (s->subscriber)
        (void)cuptiUnsubscribe(s->subscriber);
    if (s->scrub_module && s->drv.module_unload)
        (void)s->drv.module_unload(s->scrub_module);
    if (s->discard_module && s->drv.module_unload)
        (void)s->drv.module_unload(s->discard_module);
    if (s->scrub_buf)
        (void)cudaFree(s->scrub_buf);
    if (s->aside && s->drv.ctx_destroy)
        (void)s->drv.ctx_destroy(s->aside);   /* with its module and memory */
    if (s->scrub_sink)
        (void)cudaFree(s->scrub_sink);
    if (s->metrics)
        for (size_t i = 0; i < s->n_metrics; i++)
            free(s->metrics[i]);
    free(s->metrics);
    free(s->units);
    free(s->range_of_launch);
    free(s->avail);
    free(s->config);
    free(s->counter_data);
    free(s->log);
    if (g_session == s)
        g_session = NULL;
    free(s);
}

/* ---- a batch ------------------------------------------------------------------- */

static gmc_status S_batch_config(gmc_session *s, gmc_error *err)
{
    gmc_status st = GMC_OK;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci;
    memset(&ci, 0, sizeof ci);
    ci.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    ci.pRangeProfilerObject = s->rp;
    ci.counterDataSize = s->counter_data_size;
    ci.pCounterData = s->counter_data;
    S_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&ci));

    CUpti_RangeProfiler_SetConfig_Params sc;
    memset(&sc, 0, sizeof sc);
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = s->rp;
    sc.configSize = s->config_size;
    sc.pConfig = s->config;
    sc.counterDataImageSize = s->counter_data_size;
    sc.pCounterDataImage = s->counter_data;
    sc.range = CUPTI_AutoRange;       /* one range per kernel: its own duration */
    sc.replayMode = CUPTI_UserReplay; /* we replay the whole batch once per pass */
    sc.maxRangesPerPass = s->range_capacity;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    S_CUPTI(cuptiRangeProfilerSetConfig(&sc));
fail:
    return st;
}

/* Re-enable the range profiler (fresh object) when a batch after the first
 * cannot be configured on the old one. */
static gmc_status S_reenable(gmc_session *s, gmc_error *err)
{
    gmc_status st = GMC_OK;
    CUpti_RangeProfiler_Disable_Params d;
    memset(&d, 0, sizeof d);
    d.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
    d.pRangeProfilerObject = s->rp;
    S_CUPTI(cuptiRangeProfilerDisable(&d));
    s->rp = NULL;
    S_TRY(S_rp_enable(s, err));
fail:
    return st;
}

static gmc_status S_stop(gmc_session *s, bool *all_submitted, gmc_error *err)
{
    gmc_status st = GMC_OK;
    CUpti_RangeProfiler_Stop_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = s->rp;
    S_CUPTI(cuptiRangeProfilerStop(&p));
    *all_submitted = p.isAllPassSubmitted != 0;
fail:
    return st;
}

/* One pass: every launch of the batch, in order.  On failure the pass is
 * still stopped, so the profiler is left between passes. */
static gmc_status S_pass(gmc_session *s, size_t n, int (*prepare)(void *, size_t),
                         int (*launch)(void *, size_t), void *user, bool *all_submitted,
                         gmc_error *err)
{
    gmc_status st = GMC_OK;
    CUpti_RangeProfiler_Start_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = s->rp;
    double t0 = S_now();
    S_CUPTI(cuptiRangeProfilerStart(&sp));
    s->info.batch_start_stop_seconds += S_now() - t0;

    s->pass_count = 0;
    s->launch_depth = 0;
    s->recording = true;
    for (size_t i = 0; i < n && st == GMC_OK; i++) {
        /* No launch call is in flight between phases: a lost EXIT callback
         * must not hide the kernels after it. */
        s->launch_depth = 0;
        s->phase_index = i;
        s->phase = GMC_PHASE_PREPARE;
        int rc = prepare ? prepare(user, i) : 0;
        if (rc != 0) {
            st = gmc_fail(err, GMC_ERR_LAUNCH, "prepare(user, %zu) failed (returned %d) in pass %zu",
                          i, rc, s->pass + 1);
            break;
        }
        if (s->cfg.flush_l2) {
            s->launch_depth = 0;
            s->phase = GMC_PHASE_FLUSH;
            st = S_flush(s, err);
            if (st != GMC_OK)
                break;
        }
        s->launch_depth = 0;
        s->phase = GMC_PHASE_LAUNCH;
        rc = launch(user, i);
        if (rc != 0)
            st = gmc_fail(err, GMC_ERR_LAUNCH, "launch(user, %zu) failed (returned %d) in pass %zu",
                          i, rc, s->pass + 1);
    }
    s->recording = false;
    s->phase = GMC_PHASE_NONE;

    gmc_error stop_err;
    double t1 = S_now();
    gmc_status stop_st = S_stop(s, all_submitted, st == GMC_OK ? err : &stop_err);
    s->info.batch_start_stop_seconds += S_now() - t1;
    if (st == GMC_OK)
        st = stop_st;
    if (st == GMC_OK) {
        /* Faults of the pass's kernels surface here, not as wrong numbers. */
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess)
            st = S_cuda_fail(err, e, "cudaDeviceSynchronize() after a profiling pass", __FILE__,
                             __LINE__);
    }
fail:
    return st;
}

gmc_status gmc_profile_batch(gmc_session *s, size_t n, int (*prepare)(void *user, size_t i),
                             int (*launch)(void *user, size_t i), void *user, double *values,
                             gmc_error *err)
{
    gmc_status st = GMC_OK;
    double *range_values = NULL;
    if (!s || !launch || !values)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_profile_batch: NULL argument");
    if (n == 0 || n > s->cfg.max_launches)
        return gmc_fail(err, GMC_ERR_ARG,
                        "gmc_profile_batch: %zu launches; the session was opened for 1 to %zu",
                        n, s->cfg.max_launches);
    s->last_n = 0;
    s->info.batch_passes = 0;
    s->info.batch_ranges = 0;
    s->info.batch_start_stop_seconds = 0;
    double t0 = S_now();

    /* Every batch starts from a fresh counter image.  If the profiler object
     * will not take a second configuration, make a new one. */
    gmc_error first_err;
    s->info.batch_reenabled = false;
    if (S_batch_config(s, &first_err) != GMC_OK) {
        S_TRY(S_reenable(s, err));
        S_TRY(S_batch_config(s, err));
        s->info.batch_reenabled = true;
    }
    s->info.batch_config_seconds = S_now() - t0;

    s->n_log = 0;
    s->log_oom = false;
    s->mismatch = false;
    bool all_submitted = false;
    /* A pass more than CUPTI scheduled means the loop is not converging. */
    for (s->pass = 0; !all_submitted; s->pass++) {
        if (s->pass >= (size_t)s->passes + 1) {
            st = gmc_fail(err, GMC_ERR_CUPTI,
                          "CUPTI did not report all passes submitted after %zu passes (the "
                          "config needs %d)", s->pass, s->passes);
            goto fail;
        }
        S_TRY(S_pass(s, n, prepare, launch, user, &all_submitted, err));
        if (s->tracking) {
            if (s->log_oom) {
                st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory logging kernel launches");
                goto fail;
            }
            if (s->mismatch || s->pass_count != s->n_log) {
                st = gmc_fail(err, GMC_ERR_RANGES,
                              "the launches differ between passes (%s%s%zu kernels in pass %zu, "
                              "%zu in pass 1); every pass must launch the same kernels in the "
                              "same order",
                              s->mismatch ? s->mismatch_msg : "", s->mismatch ? "; " : "",
                              s->pass_count, s->pass + 1, s->n_log);
                goto fail;
            }
        }
    }
    s->info.batch_passes = (int)s->pass;
    double t1 = S_now();

    CUpti_RangeProfiler_DecodeData_Params dd;
    memset(&dd, 0, sizeof dd);
    dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dd.pRangeProfilerObject = s->rp;
    S_CUPTI(cuptiRangeProfilerDecodeData(&dd));
    if (dd.numOfRangeDropped > 0) {
        st = gmc_fail(err, GMC_ERR_RANGES,
                      "CUPTI dropped %zu ranges: more kernels ran in a pass than the %zu the "
                      "session was sized for (max_launches %zu, prepare_kernels %u)",
                      dd.numOfRangeDropped, s->range_capacity, s->cfg.max_launches,
                      s->cfg.prepare_kernels);
        goto fail;
    }
    CUpti_RangeProfiler_GetCounterDataInfo_Params di;
    memset(&di, 0, sizeof di);
    di.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    di.pCounterDataImage = s->counter_data;
    di.counterDataImageSize = s->counter_data_size;
    S_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&di));
    size_t n_ranges = di.numTotalRanges;
    s->info.batch_ranges = n_ranges;

    /* Callbacks subscribed but silent (no launch seen while CUPTI made
     * ranges): map by count, as without a subscriber. */
    bool tracked = s->tracking && !(s->n_log == 0 && n_ranges > 0);
    s->info.launch_tracking = tracked;
    if (tracked) {
        if (n_ranges != s->n_log) {
            st = gmc_fail(err, GMC_ERR_RANGES,
                          "CUPTI recorded %zu ranges but %zu kernels were launched in a pass; "
                          "something other than a kernel launch made a range, or a launch made "
                          "none, so ranges cannot be matched to launches",
                          n_ranges, s->n_log);
            goto fail;
        }
        S_TRY(gmc_map_ranges(s->log, s->n_log, n, s->range_of_launch, err));
    } else {
        S_TRY(gmc_map_ranges_by_count(n_ranges, n, s->flush_kernels, s->range_of_launch, err));
    }

    /* Evaluate only the launches' ranges, straight into their rows. */
    range_values = malloc(s->n_metrics * sizeof *range_values);
    if (!range_values) {
        st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory evaluating metrics");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        gmc_host_evaluate_params ev;
        memset(&ev, 0, sizeof ev);
        ev.structSize = GMC_HOST_EVALUATE_SIZE;
        ev.pHostObject = s->host;
        ev.pCounterDataImage = s->counter_data;
        ev.counterDataImageSize = s->counter_data_size;
        ev.rangeIndex = s->range_of_launch[i];
        ev.ppMetricNames = (const char **)s->metrics;
        ev.numMetrics = s->n_metrics;
        ev.pMetricValues = range_values;
        for (size_t m = 0; m < s->n_metrics; m++)
            range_values[m] = NAN;
        S_CUPTI(cuptiProfilerHostEvaluateToGpuValues(&ev));
        memcpy(values + i * s->n_metrics, range_values, s->n_metrics * sizeof *values);
    }
    s->last_n = n;
    s->info.batch_pass_seconds = t1 - t0;
    s->info.batch_decode_seconds = S_now() - t1;
fail:
    free(range_values);
    return st;
}

/* ---- accessors ------------------------------------------------------------ */

int gmc_session_passes(const gmc_session *s)
{
    return s ? s->passes : -1;
}

size_t gmc_session_n_metrics(const gmc_session *s)
{
    return s ? s->n_metrics : 0;
}

const char *gmc_session_metric_name(const gmc_session *s, size_t i)
{
    return s && i < s->n_metrics ? s->metrics[i] : NULL;
}

const char *gmc_session_metric_unit(const gmc_session *s, size_t i)
{
    return s && i < s->n_metrics ? s->units[i] : NULL;
}

const char *gmc_session_chip(const gmc_session *s)
{
    return s ? s->chip : NULL;
}

const char *gmc_session_kernel_name(const gmc_session *s, size_t i)
{
    if (!s || !s->info.launch_tracking || i >= s->last_n || s->range_of_launch[i] >= s->n_log)
        return NULL;
    return s->log[s->range_of_launch[i]].kernel;
}

void gmc_session_info_get(const gmc_session *s, gmc_session_info *out)
{
    if (!out)
        return;
    if (!s) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = s->info;
}
