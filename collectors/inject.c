/* inject.c — build/libgpumem-inject.so: profiles the kernel launches of an
 * unmodified CUDA program.  `gpumem-report -- PROGRAM` (cli/cmd_app.c)
 * sets CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH to this library and
 * GPUMEM_REPORT_* to the options (inject.h); the CUDA driver calls
 * InitializeInjection at cuInit, NVTX calls InitializeInjectionNvtx2 at the
 * program's first NVTX call.
 *
 * How a launch is profiled, and why this way.  The range profiler replays a
 * launch once per pass (5 passes for the default metrics on GH100), and a
 * program's kernels are not idempotent (x[i] += y[i]), so each pass must start
 * from the memory the launch found.  Two ways CUPTI offers:
 *   - kernel replay: CUPTI saves and restores the memory itself, inside the
 *     launch.  It would need a second profiler path beside the collector's,
 *     and gives no place to flush L2 between its passes.
 *   - user replay with a checkpoint (chosen): at the driver's launch callback
 *     (API enter, before the program's launch is enqueued) the library waits
 *     for the program's earlier work (cuCtxSynchronize), saves every device
 *     allocation of the context with cuptiCheckpointSave, and profiles the
 *     launch with the suite's own collector (gm_collector.h, one launch per
 *     batch): each pass restores the checkpoint (prepare), flushes L2 and
 *     relaunches the same function with the same arguments through the same
 *     driver entry point.  Then it restores the checkpoint once more and
 *     returns: the driver enqueues the program's own launch on memory exactly
 *     as the program left it.  The counters are then the suite's (same flush,
 *     same auto range, same metric names), and the program sees one launch.
 * Correctness first: if the checkpoint cannot be saved, nothing is replayed
 * (the launch is counted as failed, with the reason); if a restore fails, the
 * library says so on stderr and profiles nothing more.  The checkpoint covers
 * device allocations and pinned host memory (cupti_checkpoint.h); memory the
 * kernel reaches otherwise (managed memory the driver migrates, memory of
 * other processes) is not restored — the GPU test checks the program's output
 * and exit status with and without the tool.
 *
 * What is not profiled (counted, and said in the report): launches captured
 * into a CUDA graph, launches in a context other than the device's primary
 * context (the collector profiles that one), launches after the program
 * destroyed that context, launches by entry points the library cannot replay
 * (cuLaunchGrid and other pre-CUDA-4 forms), and graph launches.
 *
 * Library code inside someone else's process: never exits, never writes to
 * stdout; stderr only for errors, prefixed "gpumem-report:", once each.
 * Files are written through a temporary file and rename (results.h,
 * S_write_atomic), so the CLI never reads half a file.
 */
#include "gm_collector.h"
#include "gmc_codes.h"
#include "gmc_internal.h"
#include "gmc_sass.h"
#include "inject.h"

#include "../core/buf.h"
#include "../core/catalog.h"
#include "../core/devlock.h"
#include "../core/output.h"
#include "../core/pathpat.h"
#include "../core/results.h"

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <cupti_version.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GMI_EXPORT __attribute__((visibility("default")))

/* The per-thread-default-stream entry points: cuda.h names them only when the
 * program is compiled with --default-stream per-thread. */
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                     unsigned bx, unsigned by, unsigned bz, unsigned shm,
                                     CUstream s, void **params, void **extra);
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **params,
                                       void **extra);
CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
                                                unsigned gz, unsigned bx, unsigned by,
                                                unsigned bz, unsigned shm, CUstream s,
                                                void **params);
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream s, CUstreamCaptureStatus *status);

/* The parameters the driver callbacks carry for the three launch entry points,
 * as generated_cuda_meta.h declares them (cuLaunchKernel_params and the
 * others; that header does not compile as C11).  The _ptsz forms are the same. */
typedef struct {
    CUfunction f;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    void **kernelParams;
    void **extra;
} cuLaunchKernel_params;
typedef struct {
    const CUlaunchConfig *config;
    CUfunction f;
    void **kernelParams;
    void **extra;
} cuLaunchKernelEx_params;
typedef struct {
    CUfunction f;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    void **kernelParams;
} cuLaunchCooperativeKernel_params;

/* cupti_checkpoint.h is C++ (a namespace around extern "C" functions); the
 * same struct, field for field, and the same C symbols.  Layout: 4 words, two
 * bytes, padding, a pointer = 48 bytes on LP64. */
typedef struct {
    size_t structSize;
    CUcontext ctx;
    size_t reserveDeviceMB;
    size_t reserveHostMB;
    uint8_t allowOverwrite;
    uint8_t optimizations;
    void *pPriv;
} S_checkpoint;
_Static_assert(sizeof(S_checkpoint) == 48 && offsetof(S_checkpoint, pPriv) == 40,
               "CUpti_Checkpoint layout");
#define S_CHECKPOINT_SIZE (offsetof(S_checkpoint, pPriv) + sizeof(void *))
CUptiResult cuptiCheckpointSave(S_checkpoint *handle);
CUptiResult cuptiCheckpointRestore(S_checkpoint *handle);
CUptiResult cuptiCheckpointFree(S_checkpoint *handle);

/* ---- state ------------------------------------------------------------------ */

/* One launch as the program made it: enough to make it again. */
typedef struct {
    CUpti_CallbackId cbid;
    CUfunction f;
    unsigned grid[3], block[3], shm;
    CUstream stream;
    void **params, **extra;
    const CUlaunchConfig *config;   /* cuLaunchKernelEx */
    bool ptsz;
} S_launch;

static struct {
    bool active;               /* options read, directory owned, subscribed */
    gmi_opts opts;
    gmi_filter filter;
    gmi_status status;
    CUpti_SubscriberHandle sub;
    pthread_mutex_t lock;

    gmc_session *session;
    bool session_failed;       /* opening failed once: not tried again */
    bool stopped;              /* a restore failed: profile nothing more */
    bool ctx_dead;             /* the profiled context was destroyed */
    CUcontext ctx;             /* the primary context the session profiles */
    char **metrics;
    size_t n_metrics;
    double *values;
    size_t duration_index;     /* index of gpu__time_duration.sum, or n_metrics */
    gm_results results;
    bool results_header;
    gm_devlock devlock;        /* taken before the profiler session opens, held until
                                  exit: processes sharing the GPU profile in turns */
    char uuid[48];
    char said[8][32];          /* error kinds already printed */
    /* where the profiling time goes (seconds, summed over profiled launches):
     * printed at exit with GPUMEM_REPORT_DEBUG */
    double t_open, t_sync, t_save, t_config, t_passes, t_decode, t_restore, t_copy, t_batch;
    double t_startstop;        /* of t_passes, in the range profiler's Start and Stop */
    long long reenabled;       /* batches that needed the range profiler enabled afresh */

    /* the open batch (gmi_api_keeps_batch in inject.h): launches that ran
     * since the checkpoint, waiting to be replayed */
    struct S_pending *pending;
    size_t n_pending;          /* read without the lock by the callback's fast path */
    S_checkpoint before;       /* device memory before the batch's first launch */
    long long batches, batched;           /* batches replayed, launches in them */
    long long single;                     /* launches profiled on their own (no copy) */
    struct { char why[40]; long long n; } ends[8];   /* what ended the batches */
    bool exit_hook;            /* S_at_exit_batch registered */
    struct S_op *ops;          /* memsets and copies between the batch's launches */
    size_t n_ops, cap_ops;
    long long ops_replayed;    /* of all batches */
    char copy_fail[128];       /* why the last launch profiled alone could not be copied */
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .devlock = GM_DEVLOCK_INIT};

static _Thread_local int t_busy;        /* inside our own work: ignore launches */
static _Thread_local int t_rt_pending;  /* a runtime launch that has not reached the driver */

/* ---- messages and files ------------------------------------------------------ */

static void S_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void S_debug(const char *fmt, ...)
{
    if (!g.opts.debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("gpumem-report: debug: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Record the first error of each kind in the status and say it once on stderr. */
static void S_error(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void S_error(const char *kind, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!g.status.error[0]) {
        snprintf(g.status.error_kind, sizeof g.status.error_kind, "%s", kind);
        snprintf(g.status.error, sizeof g.status.error, "%s", msg);
    }
    for (size_t i = 0; i < sizeof g.said / sizeof g.said[0]; i++) {
        if (strcmp(g.said[i], kind) == 0)
            return;
        if (!g.said[i][0]) {
            snprintf(g.said[i], sizeof g.said[i], "%s", kind);
            break;
        }
    }
    fprintf(stderr, "gpumem-report: %s\n", msg);
}

/* Why some launches were not profiled: each reason once, "; " between. */
static void S_note(const char *why)
{
    char *n = g.status.note;
    size_t len = strlen(n), wl = strlen(why);
    if (strstr(n, why) || len + wl + 3 >= sizeof g.status.note)
        return;
    snprintf(n + len, sizeof g.status.note - len, "%s%s", len ? "; " : "", why);
}

static char *S_path(const char *name)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s/%s", g.opts.dir, name);
    return gm_buf_detach(&b);
}

/* Write text to dir/name under the rule of core/output.h (temporary file
 * beside it, then rename). */
static void S_write_atomic(const char *name, const char *text)
{
    char *path = S_path(name);
    gm_error err = {0};
    if (gm_output_write(path, text, strlen(text), NULL, 0, &err) != GM_OK)
        S_error("io", "%s", err.message);
    free(path);
}

static void S_write_status(void)
{
    g.status.matched = g.filter.matched;
    g.status.limit_reached = g.filter.limit_reached;
    g.status.limit = g.filter.count;
    char *text = gmi_status_format(&g.status);
    S_write_atomic(GMI_FILE_STATUS, text);
    free(text);
}

static void S_write_runs(void)
{
    if (!g.results_header)
        return;
    char *path = S_path(GMI_FILE_RUNS);
    gm_error err;
    if (gm_results_write_file(&g.results, path, &err) != GM_OK)
        S_error("io", "%s", err.message);
    free(path);
}

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void S_at_exit(void)
{
    if (!g.active)
        return;
    if (g.status.profiled) {
        char ends[256] = "";
        size_t len = 0;
        for (size_t k = 0; k < sizeof g.ends / sizeof g.ends[0] && g.ends[k].why[0]; k++)
            len += (size_t)snprintf(ends + len, len < sizeof ends ? sizeof ends - len : 0,
                                    "%s%s %lld", k ? ", " : "", g.ends[k].why, g.ends[k].n);
        snprintf(g.status.timing, sizeof g.status.timing,
                 "%lld launches (%lld in %lld batches with %lld memsets and copies made again, "
                 "ended by: %s; %lld alone%s%s): session open %.3f s (copy-bandwidth measurement "
                 "%.3f s), synchronize %.3f s, checkpoint save %.3f s, replays %.3f s "
                 "(configuration %.3f s, %lld re-enabled; passes %.3f s, of which profiler "
                 "start and stop %.3f s; decode %.3f s), restore %.3f s",
                 g.status.profiled, g.batched, g.batches, g.ops_replayed, ends[0] ? ends : "-",
                 g.single, g.single && g.copy_fail[0] ? ": " : "", g.single ? g.copy_fail : "",
                 g.t_open, g.t_copy, g.t_sync, g.t_save, g.t_batch, g.t_config, g.reenabled,
                 g.t_passes, g.t_startstop, g.t_decode, g.t_restore);
    }
    /* No CUDA here: the program's runtime may already be torn down. */
    pthread_mutex_lock(&g.lock);
    S_write_runs();
    S_write_status();
    pthread_mutex_unlock(&g.lock);
}

/* ---- NVTX ranges --------------------------------------------------------------------- */

#define S_NVTX_DEPTH 64
static _Thread_local char *t_ranges[S_NVTX_DEPTH];
static _Thread_local int t_depth;     /* may exceed S_NVTX_DEPTH: deeper names not kept */

static int S_push(const char *name)
{
    if (t_depth < S_NVTX_DEPTH)
        t_ranges[t_depth] = gm_xstrdup(name ? name : "");
    return t_depth++;
}

static int S_pop(void)
{
    if (t_depth <= 0)
        return -1;
    t_depth--;
    if (t_depth < S_NVTX_DEPTH) {
        free(t_ranges[t_depth]);
        t_ranges[t_depth] = NULL;
    }
    return t_depth;
}

/* "outer/inner" for the calling thread, or NULL outside every range. */
static char *S_range_path(void)
{
    if (t_depth <= 0)
        return NULL;
    gm_buf b = GM_BUF_INIT;
    int n = t_depth < S_NVTX_DEPTH ? t_depth : S_NVTX_DEPTH;
    for (int i = 0; i < n; i++)
        gm_buf_printf(&b, "%s%s", i ? "/" : "", t_ranges[i]);
    return gm_buf_detach(&b);
}

static const char *S_message(const nvtxEventAttributes_t *a, char *buf, size_t cap)
{
    if (!a)
        return "";
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_REGISTERED:
        /* our nvtxDomainRegisterStringA returns the string itself as the handle */
        return a->message.registered ? (const char *)a->message.registered : "";
    case NVTX_MESSAGE_TYPE_UNICODE: {
        size_t k = 0;
        for (const wchar_t *w = a->message.unicode; w && *w && k + 1 < cap; w++)
            buf[k++] = *w >= 0x20 && *w < 0x7f ? (char)*w : '?';
        buf[k] = '\0';
        return buf;
    }
    default:
        return "";
    }
}

static int NVTX_API S_nvtx_push_a(const char *message) { return S_push(message); }

static int NVTX_API S_nvtx_push_ex(const nvtxEventAttributes_t *a)
{
    char buf[256];
    return S_push(S_message(a, buf, sizeof buf));
}

static int NVTX_API S_nvtx_pop(void) { return S_pop(); }

static int NVTX_API S_nvtx_domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    (void)d;
    char buf[256];
    return S_push(S_message(a, buf, sizeof buf));
}

static int NVTX_API S_nvtx_domain_pop(nvtxDomainHandle_t d)
{
    (void)d;
    return S_pop();
}

static nvtxStringHandle_t NVTX_API S_nvtx_register_a(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    return (nvtxStringHandle_t)gm_xstrdup(s ? s : "");
}

static void S_hook(NvtxGetExportTableFunc_t get, NvtxCallbackModule module, unsigned id,
                   NvtxFunctionPointer fn)
{
    const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable table = NULL;
    unsigned size = 0;
    if (!cb || !cb->GetModuleFunctionTable || !cb->GetModuleFunctionTable(module, &table, &size) ||
        !table || id > size || !table[id])
        return;
    *table[id] = fn;
}

GMI_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    if (!get)
        return 0;
    S_hook(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)S_nvtx_push_a);
    S_hook(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx,
           (NvtxFunctionPointer)S_nvtx_push_ex);
    S_hook(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)S_nvtx_pop);
    S_hook(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx,
           (NvtxFunctionPointer)S_nvtx_domain_push_ex);
    S_hook(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop,
           (NvtxFunctionPointer)S_nvtx_domain_pop);
    S_hook(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA,
           (NvtxFunctionPointer)S_nvtx_register_a);
    return 1;
}

/* ---- the profiler session ------------------------------------------------------------- */

/* How long a session waits for counters another profiler still holds. */
#define S_BUSY_WAIT_S 30.0

static const char *S_kind_of(gmc_status s)
{
    switch (s) {
    case GMC_ERR_PERMISSION: return "permission";
    case GMC_ERR_NO_DRIVER:
    case GMC_ERR_NO_DEVICE:
    case GMC_ERR_UNSUPPORTED_DEVICE: return "device";
    case GMC_ERR_UNKNOWN_METRIC:
    case GMC_ERR_BAD_METRIC_LIST: return "metrics";
    default: return "profiler";
    }
}

static void S_fill_header(const gmc_device_info *dev, int ordinal)
{
    gm_results *r = &g.results;
    r->origin = gm_xstrdup("measured");
    r->taken_at = gm_results_utc_now();
    r->dirty = -1;
    gm_device *d = &r->device;
    d->ordinal = ordinal;
    d->name = gm_xstrdup(dev->name);
    d->chip = dev->chip[0] ? gm_xstrdup(dev->chip) : NULL;
    d->cc_major = dev->cc_major;
    d->cc_minor = dev->cc_minor;
    d->sm_count = dev->sm_count;
    d->memory_clock_khz = dev->mem_clock_khz;
    d->memory_bus_width_bits = dev->bus_width_bits;
    d->theoretical_bandwidth_gbs = gm_vreal(dev->theoretical_gbs);
    d->l2_bytes = dev->l2_bytes;
    d->global_memory_bytes = dev->global_mem_bytes;
    d->driver_version = dev->driver_version[0] ? gm_xstrdup(dev->driver_version) : NULL;
    d->cuda_driver_api = dev->cuda_driver_api;
    d->cuda_runtime = dev->cuda_runtime;
    d->cupti_api = dev->cupti_api;
    gm_collection *c = &r->collection;
    c->metrics = gm_xcalloc(g.n_metrics ? g.n_metrics : 1, sizeof *c->metrics);
    for (size_t i = 0; i < g.n_metrics; i++)
        c->metrics[i] = gm_xstrdup(g.metrics[i]);
    c->n_metrics = g.n_metrics;
    c->passes = gmc_session_passes(g.session);
    c->range_mode = gm_xstrdup("auto");
    /* user replay of each launch, memory restored from a CUPTI checkpoint */
    c->replay_mode = gm_xstrdup("user");
    c->cache_flush = g.opts.flush_l2;
    c->clock_control = gm_xstrdup("none");
    c->size_set = gm_xstrdup("app");
    c->timing_warmup = 0;
    c->timing_repetitions = 1;
    gm_error pe = {GM_OK, ""};
    if (gm_process_identify(&c->process, &pe) != GM_OK)
        S_error("rank", "%s", pe.message);
    c->process.device_uuid = dev->uuid[0] ? gm_xstrdup(dev->uuid) : NULL;
    c->process.lock_wait_seconds = gm_vreal(0.0);
    /* every run names an experiment the file lists; the CLI names it after the program */
    gm_experiment *e = gm_results_add_experiment(r);
    e->id = gm_xstrdup("app");
    e->title = gm_xstrdup("app");
    g.results_header = true;
}

/* The metric list: --metrics, or the catalog's default set. */
static bool S_metrics(void)
{
    if (g.opts.metrics) {
        gmc_error e;
        if (gmc_metric_list_parse(g.opts.metrics, &g.metrics, &g.n_metrics, &e) != GMC_OK) {
            S_error("metrics", "--metrics: %s", e.message);
            return false;
        }
        return true;
    }
    for (size_t i = 0; i < gm_catalog_len; i++)
        if (gm_catalog[i].is_default) {
            g.metrics = gm_xrealloc(g.metrics, (g.n_metrics + 1) * sizeof *g.metrics);
            g.metrics[g.n_metrics++] = gm_xstrdup(gm_catalog[i].name);
        }
    return true;
}

static void S_on_lock_wait(void *ctx, const char *path)
{
    (void)ctx;
    fprintf(stderr, "gpumem-report: another process is profiling this GPU (lock %s held); "
                    "waiting for it to end before profiling\n", path);
}

/* Open the collector on the device of `ctx` (the calling thread's current
 * context, left current on return). */
/* The attainable DRAM bandwidth of the device, as the suite measures it
 * (kernels/harness.cu, gm_measure_copy_bandwidth): a device-to-device copy of
 * S_COPY_BYTES, bytes read + written over the median of S_COPY_REPS copies, on
 * a stream of our own.  Done once, before the first profiled launch; the
 * buffers are freed at once.  NaN (the report says "not measured") when the
 * program left too little memory free or a call fails. */
#define S_COPY_BYTES ((size_t)256 << 20)
#define S_COPY_REPS 5
static double S_copy_bandwidth(void)
{
    double t0 = S_now(), gbs = NAN;
    CUdeviceptr src = 0, dst = 0;
    CUstream st = NULL;
    CUevent e0 = NULL, e1 = NULL;
    size_t fr = 0, tot = 0;
    if (cuMemGetInfo(&fr, &tot) != CUDA_SUCCESS || fr < 4 * S_COPY_BYTES)
        goto done;
    if (cuMemAlloc(&src, S_COPY_BYTES) != CUDA_SUCCESS ||
        cuMemAlloc(&dst, S_COPY_BYTES) != CUDA_SUCCESS ||
        cuStreamCreate(&st, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
        cuEventCreate(&e0, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
        cuEventCreate(&e1, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
        cuMemsetD8Async(src, 0x3C, S_COPY_BYTES, st) != CUDA_SUCCESS ||
        cuMemsetD8Async(dst, 0, S_COPY_BYTES, st) != CUDA_SUCCESS ||
        cuMemcpyDtoDAsync(dst, src, S_COPY_BYTES, st) != CUDA_SUCCESS)
        goto done;
    float ms[S_COPY_REPS];
    for (int r = 0; r < S_COPY_REPS; r++) {
        if (cuEventRecord(e0, st) != CUDA_SUCCESS ||
            cuMemcpyDtoDAsync(dst, src, S_COPY_BYTES, st) != CUDA_SUCCESS ||
            cuEventRecord(e1, st) != CUDA_SUCCESS || cuEventSynchronize(e1) != CUDA_SUCCESS ||
            cuEventElapsedTime(&ms[r], e0, e1) != CUDA_SUCCESS || !(ms[r] > 0))
            goto done;
    }
    for (int i = 1; i < S_COPY_REPS; i++)   /* the median */
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            float t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
    gbs = 2.0 * (double)S_COPY_BYTES / (ms[S_COPY_REPS / 2] * 1e-3) / 1e9;
done:
    if (e0)
        (void)cuEventDestroy(e0);
    if (e1)
        (void)cuEventDestroy(e1);
    if (st)
        (void)cuStreamDestroy(st);
    if (src)
        (void)cuMemFree(src);
    if (dst)
        (void)cuMemFree(dst);
    g.t_copy += S_now() - t0;
    return gbs;
}

static bool S_session_open_timed(CUcontext ctx);

static bool S_session_open(CUcontext ctx)
{
    if (g.session)
        return true;
    if (g.session_failed)
        return false;
    double t0 = S_now();
    bool ok = S_session_open_timed(ctx);
    g.t_open += S_now() - t0;
    return ok;
}

static bool S_session_open_timed(CUcontext ctx)
{
    g.session_failed = true;   /* until it succeeds */
    CUdevice dev;
    CUresult r = cuCtxGetDevice(&dev);
    if (r != CUDA_SUCCESS) {
        S_error("profiler", "cuCtxGetDevice failed (%d): cannot tell which GPU to profile", (int)r);
        return false;
    }
    CUcontext primary = NULL;
    r = cuDevicePrimaryCtxRetain(&primary, dev);
    if (r != CUDA_SUCCESS) {
        S_error("profiler", "cuDevicePrimaryCtxRetain failed (%d)", (int)r);
        return false;
    }
    (void)cuDevicePrimaryCtxRelease(dev);
    if (!S_metrics())
        return false;
    gmc_error e = {GMC_OK, ""};
    gmc_device_info info;
    if (gmc_device_info_get((int)dev, &info, &e) != GMC_OK) {
        S_error(S_kind_of(e.status), "%s", e.message);
        (void)cuCtxSetCurrent(ctx);
        return false;
    }
    /* Our turn on the GPU, until this process ends (the kernel drops the
     * lock then): another process's open profiler session makes ours fail
     * with CUPTI_ERROR_HARDWARE_BUSY (seen on the H100 with two ranks of one
     * program), so ranks sharing a GPU profile one after the other. */
    gm_error le = {GM_OK, ""};
    if (gm_devlock_acquire(&g.devlock, info.uuid, S_on_lock_wait, NULL, &le) != GM_OK)
        S_error("lock", "%s: profiling without taking turns", le.message);
    gmc_config cfg = gmc_config_default();
    cfg.device = (int)dev;
    cfg.metrics = (const char *const *)g.metrics;
    cfg.n_metrics = g.n_metrics;
    cfg.flush_l2 = g.opts.flush_l2;
    cfg.max_launches = GMI_BATCH_MAX;
    gmc_status st = gmc_session_open_waiting(&cfg, &g.session, S_BUSY_WAIT_S, NULL, &e);
    (void)cuCtxSetCurrent(ctx);
    if (st != GMC_OK) {
        S_error(S_kind_of(st), "%s", e.message);
        return false;
    }
    g.ctx = primary;
    g.values = gm_xcalloc(GMI_BATCH_MAX * g.n_metrics, sizeof *g.values);
    g.duration_index = g.n_metrics;
    for (size_t i = 0; i < g.n_metrics; i++)
        if (strcmp(g.metrics[i], GM_M_DURATION) == 0)
            g.duration_index = i;
    snprintf(g.uuid, sizeof g.uuid, "%s", info.uuid);
    S_fill_header(&info, (int)dev);
    gm_process *pr = &g.results.collection.process;
    pr->lock_wait_seconds = gm_vreal(g.devlock.waited_s);
    pr->lock_waits = g.devlock.waits;
    pr->lock_turns = g.devlock.turns;
    double copy = S_copy_bandwidth();
    (void)cuCtxSetCurrent(ctx);
    if (isfinite(copy)) {
        g.results.device.copy_bandwidth_gbs = gm_vreal(copy);
        g.results.device.copy_bandwidth_bytes = gm_vint((long long)S_COPY_BYTES);
    }
    g.session_failed = false;
    S_debug("profiler open on device %d (%s), %zu metrics, %d passes", (int)dev, info.name,
            g.n_metrics, gmc_session_passes(g.session));
    return true;
}

/* ---- one launch -------------------------------------------------------------------------- */

static CUresult S_relaunch(const S_launch *L)
{
    switch (L->cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        return cuLaunchKernel(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1],
                              L->block[2], L->shm, L->stream, L->params, L->extra);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        return cuLaunchKernel_ptsz(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0],
                                   L->block[1], L->block[2], L->shm, L->stream, L->params,
                                   L->extra);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        return cuLaunchKernelEx(L->config, L->f, L->params, L->extra);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        return cuLaunchKernelEx_ptsz(L->config, L->f, L->params, L->extra);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        return cuLaunchCooperativeKernel(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0],
                                         L->block[1], L->block[2], L->shm, L->stream, L->params);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        return cuLaunchCooperativeKernel_ptsz(L->f, L->grid[0], L->grid[1], L->grid[2],
                                              L->block[0], L->block[1], L->block[2], L->shm,
                                              L->stream, L->params);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

/* The launch described by a driver callback; false for entry points we cannot replay. */
static bool S_describe(CUpti_CallbackId cbid, const void *p, S_launch *L)
{
    memset(L, 0, sizeof *L);
    L->cbid = cbid;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *a = p;   /* the _ptsz struct is the same, field for field */
        L->f = a->f;
        L->grid[0] = a->gridDimX, L->grid[1] = a->gridDimY, L->grid[2] = a->gridDimZ;
        L->block[0] = a->blockDimX, L->block[1] = a->blockDimY, L->block[2] = a->blockDimZ;
        L->shm = a->sharedMemBytes;
        L->stream = a->hStream;
        L->params = a->kernelParams;
        L->extra = a->extra;
        L->ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz;
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *a = p;
        if (!a->config)
            return false;
        L->config = a->config;
        L->f = a->f;
        L->grid[0] = a->config->gridDimX, L->grid[1] = a->config->gridDimY;
        L->grid[2] = a->config->gridDimZ;
        L->block[0] = a->config->blockDimX, L->block[1] = a->config->blockDimY;
        L->block[2] = a->config->blockDimZ;
        L->shm = a->config->sharedMemBytes;
        L->stream = a->config->hStream;
        L->params = a->kernelParams;
        L->extra = a->extra;
        L->ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *a = p;
        L->f = a->f;
        L->grid[0] = a->gridDimX, L->grid[1] = a->gridDimY, L->grid[2] = a->gridDimZ;
        L->block[0] = a->blockDimX, L->block[1] = a->blockDimY, L->block[2] = a->blockDimZ;
        L->shm = a->sharedMemBytes;
        L->stream = a->hStream;
        L->params = a->kernelParams;
        L->ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
        return true;
    }
    default:
        return false;
    }
}

typedef struct {
    const S_launch *launch;
    S_checkpoint *cp;
    char why[256];
} S_replay;

static int S_prepare(void *user, size_t i)
{
    (void)i;
    S_replay *rp = user;
    CUptiResult r = cuptiCheckpointRestore(rp->cp);
    if (r != CUPTI_SUCCESS) {
        const char *d = NULL;
        (void)cuptiGetResultString(r, &d);
        snprintf(rp->why, sizeof rp->why, "cuptiCheckpointRestore: %s (%d)", d ? d : "?", (int)r);
        return 1;
    }
    return 0;
}

static int S_launch_again(void *user, size_t i)
{
    (void)i;
    S_replay *rp = user;
    CUresult r = S_relaunch(rp->launch);
    if (r != CUDA_SUCCESS) {
        const char *n = NULL;
        (void)cuGetErrorName(r, &n);
        snprintf(rp->why, sizeof rp->why, "relaunch: %s (%d)", n ? n : "?", (int)r);
        return 1;
    }
    return 0;
}

static gm_value S_value(const char *name, double v)
{
    if (gmi_metric_sums(name) && isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
        return gm_vint((long long)v);
    return gm_vreal(v);
}

static void S_add_run(const S_launch *L, const char *symbol, long long index, const char *range,
                      const double *values, const char *how)
{
    gm_run *run = gm_results_add_run(&g.results);
    run->experiment = gm_xstrdup("app");
    run->kernel = gmi_demangle(symbol);
    run->variant = gmi_short_name(run->kernel);
    gm_run_set_param(run, "launch", gm_vint(index));
    if (range)
        gm_run_set_param(run, "range", gm_vstr(range));
    run->has_launch = true;
    memcpy(run->launch.grid, L->grid, sizeof L->grid);
    memcpy(run->launch.block, L->block, sizeof L->block);
    int stat = 0, regs = -1;
    if (cuFuncGetAttribute(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, L->f) != CUDA_SUCCESS)
        stat = 0;
    if (cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, L->f) != CUDA_SUCCESS)
        regs = -1;
    run->launch.shared_bytes = (long long)L->shm + stat;
    run->launch.registers = regs;
    for (size_t m = 0; m < g.n_metrics; m++)
        gm_run_set_metric(run, g.metrics[m], S_value(g.metrics[m], values[m]),
                          gmc_session_metric_unit(g.session, m));
    if (g.duration_index < g.n_metrics && isfinite(values[g.duration_index])) {
        double ms = values[g.duration_index] * 1e-6;   /* ns -> ms */
        gm_timing_set_samples(&run->timing, &ms, 1);
        run->timing.present = true;
        run->timing.warmup = 0;
        run->timing.l2_flushed = g.opts.flush_l2;
    }
    run->check.status = GM_CHECK_NO_REFERENCE;
    run->check.reason = gm_xstrdup("a program's output is its own; nothing to compare it with");
    gm_run_add_note(run, "profiled inside the program: %d passes, %s%s",
                    gmc_session_passes(g.session), how,
                    g.opts.flush_l2 ? "; L2 flushed before the launch in each pass" : "");
}

/* Wait for everything ctx has enqueued, then save its device memory into cp,
 * adding the time to the totals.  NULL when saved; else the error kind
 * ("cuda": the program's earlier work failed, "checkpoint") with the words in
 * msg. */
static const char *S_sync_save(S_checkpoint *cp, CUcontext ctx, char *msg, size_t cap)
{
    double t0 = S_now();
    CUresult cr = cuCtxSynchronize();
    double t1 = S_now();
    g.t_sync += t1 - t0;
    if (cr != CUDA_SUCCESS) {
        const char *n = NULL;
        (void)cuGetErrorName(cr, &n);
        snprintf(msg, cap, "the program's earlier work failed (%s)", n ? n : "?");
        return "cuda";
    }
    memset(cp, 0, sizeof *cp);
    cp->structSize = S_CHECKPOINT_SIZE;
    cp->ctx = ctx;
    CUptiResult r = cuptiCheckpointSave(cp);
    g.t_save += S_now() - t1;
    if (r != CUPTI_SUCCESS) {
        const char *d = NULL;
        (void)cuptiGetResultString(r, &d);
        snprintf(msg, cap, "cannot save the program's memory (cuptiCheckpointSave: %s)",
                 d ? d : "?");
        return "checkpoint";
    }
    return NULL;
}

/* Replay n launches once per pass into g.values (gmc_profile_batch), adding
 * where the time went to the totals the status line reports. */
static gmc_status S_passes(size_t n, int (*prepare)(void *, size_t),
                           int (*launch)(void *, size_t), void *user, gmc_error *e)
{
    for (size_t k = 0; k < n * g.n_metrics; k++)
        g.values[k] = NAN;
    double t0 = S_now();
    gmc_status st = gmc_profile_batch(g.session, n, prepare, launch, user, g.values, e);
    g.t_batch += S_now() - t0;
    gmc_session_info si;
    gmc_session_info_get(g.session, &si);
    g.t_config += si.batch_config_seconds;
    g.t_passes += si.batch_pass_seconds - si.batch_config_seconds;
    g.t_decode += si.batch_decode_seconds;
    g.t_startstop += si.batch_start_stop_seconds;
    g.reenabled += si.batch_reenabled;
    return st;
}

/* Profile the launch about to be enqueued.  Called with g.lock held and t_busy
 * set; every CUDA call of the program is blocked behind us on this thread. */
static void S_profile(const S_launch *L, const char *symbol, long long index, CUcontext ctx)
{
    if (!S_session_open(ctx)) {
        g.status.failed++;
        return;
    }
    if (g.ctx_dead || ctx != g.ctx) {
        g.status.not_profilable++;
        S_note(g.ctx_dead ? "launches after the program destroyed the device's primary context "
                            "(cudaDeviceReset) are not profiled"
                          : "launches in a context other than the device's primary context are "
                            "not profiled");
        return;
    }
    /* The checkpoint must see the program's memory as this launch will:
     * everything enqueued before it has finished. */
    S_checkpoint cp;
    char why[256];
    const char *kind = S_sync_save(&cp, ctx, why, sizeof why);
    if (kind) {
        g.status.failed++;
        S_error(kind, "launch %lld (%s): %s: not profiled", index, symbol, why);
        return;
    }
    S_replay rp = {L, &cp, ""};
    gmc_error e = {GMC_OK, ""};
    gmc_status st = S_passes(1, S_prepare, S_launch_again, &rp, &e);
    /* Whatever happened, the program's launch must find its memory as it left it. */
    double t5 = S_now();
    CUptiResult r = cuptiCheckpointRestore(&cp);
    CUresult sr = cuCtxSynchronize();
    (void)cuCtxSetCurrent(ctx);
    g.t_restore += S_now() - t5;
    if (r != CUPTI_SUCCESS || sr != CUDA_SUCCESS) {
        g.stopped = true;
        S_error("restore", "launch %lld (%s): the program's memory could not be restored after "
                "profiling (restore %d, synchronize %d); its results may be wrong. Nothing "
                "more is profiled", index, symbol, (int)r, (int)sr);
    }
    (void)cuptiCheckpointFree(&cp);
    if (st != GMC_OK) {
        g.status.failed++;
        S_error(S_kind_of(st), "launch %lld (%s): %s%s%s", index, symbol, e.message,
                rp.why[0] ? ": " : "", rp.why);
        return;
    }
    char *range = S_range_path();
    S_add_run(L, symbol, index, range, g.values,
              "replayed alone, from the memory it found (CUPTI checkpoint): its arguments could "
              "not be copied for a batch");
    free(range);
    g.status.profiled++;
    g.single++;
    S_debug("profiled launch %lld %s", index, symbol);
    if (g.results.n_runs <= 256 || g.results.n_runs % 64 == 0)
        S_write_runs();
    S_write_status();
}

/* ---- batches (inject.h, "batches") -------------------------------------------------------- */

/* A launch of the open batch: a copy of everything needed to make it again
 * after the program's own call has returned. */
struct S_pending {
    S_launch L;                /* params, extra and config point into the fields below
                                  (extra and config into the struct: moved, it is re-pointed) */
    unsigned char *args;       /* the arguments' bytes, at their offsets */
    void **argv;
    void *extra_buf;           /* CU_LAUNCH_PARAM_BUFFER_POINTER's bytes */
    size_t extra_size;
    void *extra[5];
    CUlaunchConfig config;
    CUlaunchAttribute *attrs;
    char *symbol;
    long long index;
    char *range;
};

static void S_pending_free(struct S_pending *p)
{
    free(p->args);
    free(p->argv);
    free(p->extra_buf);
    free(p->attrs);
    free(p->symbol);
    free(p->range);
    memset(p, 0, sizeof *p);
}

/* Copy the launch L into p; false when its arguments cannot be copied (the
 * driver will not say their sizes, or `extra` holds something we do not
 * know), and the launch is then profiled on its own. */
static bool S_pending_copy(struct S_pending *p, const S_launch *L)
{
    memset(p, 0, sizeof *p);
    p->L = *L;
    p->L.params = NULL;
    p->L.extra = NULL;
    p->L.config = NULL;
    /* Replays go to the legacy default stream, in the order the program made
     * them, behind the L2 flush (the order of the program's streams is one
     * its dependencies allow: each waits only on work enqueued before it). */
    p->L.stream = NULL;
    p->L.ptsz = false;
    switch (L->cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        p->L.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        p->L.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        p->L.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel;
        break;
    default:
        break;
    }
    if (L->params) {
        /* The handle a launch carries is a CUfunction or, from the runtime, a
         * CUkernel; whichever query answers for parameter 0 is used.  A kernel
         * of no parameters answers neither and is profiled on its own. */
        size_t n = 0, end = 0, off, size;
        CUresult rf = cuFuncGetParamInfo(L->f, 0, &off, &size), r = rf;
        bool by_kernel = false;
        if (rf != CUDA_SUCCESS) {
            CUresult rk = cuKernelGetParamInfo((CUkernel)L->f, 0, &off, &size);
            if (rk != CUDA_SUCCESS) {
                const char *a = NULL, *b = NULL;
                (void)cuGetErrorName(rf, &a);
                (void)cuGetErrorName(rk, &b);
                snprintf(g.copy_fail, sizeof g.copy_fail, "parameter sizes unknown "
                         "(cuFuncGetParamInfo %s, cuKernelGetParamInfo %s)", a ? a : "?",
                         b ? b : "?");
                return false;
            }
            by_kernel = true;
        }
        do {
            if (off + size > end)
                end = off + size;
            n++;
            r = by_kernel ? cuKernelGetParamInfo((CUkernel)L->f, n, &off, &size)
                          : cuFuncGetParamInfo(L->f, n, &off, &size);
        } while (r == CUDA_SUCCESS);
        if (r != CUDA_ERROR_INVALID_VALUE) {
            const char *a = NULL;
            (void)cuGetErrorName(r, &a);
            snprintf(g.copy_fail, sizeof g.copy_fail, "parameter %zu's size unknown (%s)", n,
                     a ? a : "?");
            return false;
        }
        p->args = gm_xmalloc(end ? end : 1);
        p->argv = gm_xcalloc(n, sizeof *p->argv);
        for (size_t i = 0; i < n; i++) {
            r = by_kernel ? cuKernelGetParamInfo((CUkernel)L->f, i, &off, &size)
                          : cuFuncGetParamInfo(L->f, i, &off, &size);
            if (r != CUDA_SUCCESS || !L->params[i])
                goto no;
            memcpy(p->args + off, L->params[i], size);
            p->argv[i] = p->args + off;
        }
        p->L.params = p->argv;
    }
    if (L->extra) {
        void *buf = NULL;
        size_t *size = NULL;
        for (size_t k = 0; L->extra[k] != CU_LAUNCH_PARAM_END; k += 2) {
            if (L->extra[k] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                buf = L->extra[k + 1];
            else if (L->extra[k] == CU_LAUNCH_PARAM_BUFFER_SIZE)
                size = L->extra[k + 1];
            else {
                snprintf(g.copy_fail, sizeof g.copy_fail, "launch options in `extra` other "
                         "than a parameter buffer");
                goto no;
            }
        }
        if (buf && size) {
            p->extra_size = *size;
            p->extra_buf = gm_xmalloc(p->extra_size ? p->extra_size : 1);
            memcpy(p->extra_buf, buf, p->extra_size);
            p->extra[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
            p->extra[1] = p->extra_buf;
            p->extra[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
            p->extra[3] = &p->extra_size;
            p->extra[4] = CU_LAUNCH_PARAM_END;
            p->L.extra = p->extra;
        } else if (buf || size) {
            goto no;
        }
    }
    if (L->config) {
        p->config = *L->config;
        p->config.hStream = NULL;
        if (L->config->numAttrs) {
            p->attrs = gm_xcalloc(L->config->numAttrs, sizeof *p->attrs);
            memcpy(p->attrs, L->config->attrs, L->config->numAttrs * sizeof *p->attrs);
        }
        p->config.attrs = p->attrs;
        p->L.config = &p->config;
    }
    return true;
no:
    S_pending_free(p);
    return false;
}

/* A memset or device-to-device copy the program made inside the batch, made
 * again before launch `before` in every pass. */
struct S_op {
    gmi_op_kind kind;
    CUdeviceptr dst, src;
    unsigned value;
    size_t n;                  /* elements (memset) or bytes (copy) */
    size_t before;
};

/* The memset and copy parameter structs as generated_cuda_meta.h has them
 * (the Async forms add a stream after these fields). */
typedef struct { CUdeviceptr dst; unsigned char v; size_t n; } S_memset8_params;
typedef struct { CUdeviceptr dst; unsigned short v; size_t n; } S_memset16_params;
typedef struct { CUdeviceptr dst; unsigned int v; size_t n; } S_memset32_params;
typedef struct { CUdeviceptr dst, src; size_t n; } S_copy_params;

static CUresult S_op_make(const struct S_op *o)
{
    switch (o->kind) {
    case GMI_OP_MEMSET8:
        return cuMemsetD8Async(o->dst, (unsigned char)o->value, o->n, NULL);
    case GMI_OP_MEMSET16:
        return cuMemsetD16Async(o->dst, (unsigned short)o->value, o->n, NULL);
    case GMI_OP_MEMSET32:
        return cuMemsetD32Async(o->dst, o->value, o->n, NULL);
    case GMI_OP_COPY_DTOD:
        return cuMemcpyDtoDAsync(o->dst, o->src, o->n, NULL);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

/* Record the call (params: its functionParams) as an operation of the open
 * batch; false when it cannot be (then it ends the batch). */
static bool S_op_record(gmi_op_kind kind, const void *params)
{
    struct S_op o = {kind, 0, 0, 0, 0, g.n_pending};
    switch (kind) {
    case GMI_OP_MEMSET8: {
        const S_memset8_params *a = params;
        o.dst = a->dst, o.value = a->v, o.n = a->n;
        break;
    }
    case GMI_OP_MEMSET16: {
        const S_memset16_params *a = params;
        o.dst = a->dst, o.value = a->v, o.n = a->n;
        break;
    }
    case GMI_OP_MEMSET32: {
        const S_memset32_params *a = params;
        o.dst = a->dst, o.value = a->v, o.n = a->n;
        break;
    }
    case GMI_OP_COPY_DTOD: {
        const S_copy_params *a = params;
        o.dst = a->dst, o.src = a->src, o.n = a->n;
        break;
    }
    default:
        return false;
    }
    if (g.n_ops == g.cap_ops) {
        g.cap_ops = g.cap_ops ? 2 * g.cap_ops : 16;
        g.ops = gm_xrealloc(g.ops, g.cap_ops * sizeof *g.ops);
    }
    g.ops[g.n_ops++] = o;
    return true;
}

typedef struct {
    struct S_pending *p;
    char why[256];
} S_batch_replay;

/* Before launch i of a pass: the memory the first launch found (i = 0), then
 * the memsets and copies the program made before launch i; launch i > 0
 * otherwise finds what launch i - 1's replay left. */
static int S_batch_prepare(void *user, size_t i)
{
    S_batch_replay *rp = user;
    if (i == 0) {
        CUptiResult r = cuptiCheckpointRestore(&g.before);
        if (r != CUPTI_SUCCESS) {
            const char *d = NULL;
            (void)cuptiGetResultString(r, &d);
            snprintf(rp->why, sizeof rp->why, "cuptiCheckpointRestore: %s (%d)", d ? d : "?",
                     (int)r);
            return 1;
        }
    }
    for (size_t k = 0; k < g.n_ops; k++) {
        if (g.ops[k].before != i)
            continue;
        CUresult r = S_op_make(&g.ops[k]);
        if (r != CUDA_SUCCESS) {
            const char *n = NULL;
            (void)cuGetErrorName(r, &n);
            snprintf(rp->why, sizeof rp->why, "memset or copy before launch %lld: %s (%d)",
                     rp->p[i].index, n ? n : "?", (int)r);
            return 1;
        }
    }
    return 0;
}

static int S_batch_launch(void *user, size_t i)
{
    S_batch_replay *rp = user;
    CUresult r = S_relaunch(&rp->p[i].L);
    if (r != CUDA_SUCCESS) {
        const char *n = NULL;
        (void)cuGetErrorName(r, &n);
        snprintf(rp->why, sizeof rp->why, "relaunch of launch %lld: %s (%d)", rp->p[i].index,
                 n ? n : "?", (int)r);
        return 1;
    }
    return 0;
}

static void S_batch_count_end(const char *why)
{
    size_t k, n = sizeof g.ends / sizeof g.ends[0];
    for (k = 0; k < n && g.ends[k].why[0]; k++)
        if (strcmp(g.ends[k].why, why) == 0)
            break;
    if (k == n)
        return;
    if (!g.ends[k].why[0])
        snprintf(g.ends[k].why, sizeof g.ends[k].why, "%s", why);
    g.ends[k].n++;
}

/* Replay the open batch and close it.  Called with g.lock held and t_busy
 * set, at the entry of the call that ends it (why: its name), so nothing the
 * program enqueued after the batch has run. */
static void S_batch_end(const char *why)
{
    size_t n = g.n_pending;
    if (n == 0)
        return;
    S_batch_count_end(why);
    S_debug("batch of %zu launches ended by %s", n, why);
    CUcontext cur = NULL;
    (void)cuCtxGetCurrent(&cur);
    (void)cuCtxSetCurrent(g.ctx);
    S_checkpoint after;
    gmc_status st = GMC_ERR_LAUNCH;
    gmc_error e = {GMC_OK, ""};
    S_batch_replay rp = {g.pending, ""};
    bool saved = !S_sync_save(&after, g.ctx, e.message, sizeof e.message);
    if (saved)
        st = S_passes(n, S_batch_prepare, S_batch_launch, &rp, &e);
    /* The program goes on from the memory it left, whatever happened. */
    double t5 = S_now();
    CUptiResult rr = saved ? cuptiCheckpointRestore(&after) : CUPTI_SUCCESS;
    CUresult sr = cuCtxSynchronize();
    g.t_restore += S_now() - t5;
    if (rr != CUPTI_SUCCESS || sr != CUDA_SUCCESS) {
        g.stopped = true;
        S_error("restore", "the program's memory could not be restored after profiling "
                "launches %lld to %lld (restore %d, synchronize %d); its results may be "
                "wrong. Nothing more is profiled", g.pending[0].index, g.pending[n - 1].index,
                (int)rr, (int)sr);
    }
    if (saved)
        (void)cuptiCheckpointFree(&after);
    (void)cuptiCheckpointFree(&g.before);
    if (st == GMC_OK) {
        const char *how = "replayed in a batch of the program's profiled launches, from the "
                          "memory the batch's first launch found (CUPTI checkpoint)";
        for (size_t i = 0; i < n; i++) {
            struct S_pending *p = &g.pending[i];
            S_add_run(&p->L, p->symbol, p->index, p->range, g.values + i * g.n_metrics, how);
        }
        g.status.profiled += (long long)n;
        g.batches++;
        g.batched += (long long)n;
        if (g.results.n_runs <= 256 || g.results.n_runs / 64 != (g.results.n_runs - n) / 64)
            S_write_runs();
    } else {
        g.status.failed += (long long)n;
        S_error(S_kind_of(st), "launches %lld to %lld (%s ...): %s%s%s", g.pending[0].index,
                g.pending[n - 1].index, g.pending[0].symbol, e.message, rp.why[0] ? ": " : "",
                rp.why);
    }
    for (size_t i = 0; i < n; i++)
        S_pending_free(&g.pending[i]);
    for (size_t k = 0; k < g.n_ops; k++)
        g.ops_replayed += g.ops[k].before < n;
    g.n_ops = 0;
    __atomic_store_n(&g.n_pending, 0, __ATOMIC_RELEASE);
    S_write_status();
    (void)cuCtxSetCurrent(cur);
}

/* At exit, registered when the first batch opens (so it runs before the CUDA
 * runtime's own exit handlers, registered earlier): the last batch. */
static void S_at_exit_batch(void)
{
    if (__atomic_load_n(&g.n_pending, __ATOMIC_ACQUIRE) == 0)
        return;
    pthread_mutex_lock(&g.lock);
    t_busy = 1;
    if (!g.ctx_dead)
        S_batch_end("the program's exit");
    t_busy = 0;
    pthread_mutex_unlock(&g.lock);
}

/* Add the launch about to be enqueued to the open batch, opening one when
 * there is none.  false: it could not be copied (profile it on its own).
 * Called with g.lock held and t_busy set. */
static bool S_batch_add(const S_launch *L, const char *symbol, long long index, CUcontext ctx)
{
    struct S_pending p;
    if (!S_pending_copy(&p, L))
        return false;
    if (g.n_pending == GMI_BATCH_MAX)
        S_batch_end("a full batch");
    if (g.stopped) {
        S_pending_free(&p);
        g.status.failed++;
        return true;
    }
    if (g.n_pending == 0) {
        /* The checkpoint must see the program's memory as this launch will. */
        char why[256];
        const char *kind = S_sync_save(&g.before, ctx, why, sizeof why);
        if (kind) {
            g.status.failed++;
            S_error(kind, "launch %lld (%s): %s: not profiled", index, symbol, why);
            S_pending_free(&p);
            return true;
        }
        if (!g.exit_hook) {
            g.exit_hook = true;
            if (atexit(S_at_exit_batch) != 0)
                S_error("io", "atexit failed: the launches after the program's last CUDA "
                              "call that ends a batch may be missing");
        }
        if (!g.pending)
            g.pending = gm_xcalloc(GMI_BATCH_MAX, sizeof *g.pending);
    }
    p.symbol = gm_xstrdup(symbol);
    p.index = index;
    p.range = S_range_path();
    struct S_pending *slot = &g.pending[g.n_pending];
    *slot = p;
    /* extra and config point into the struct itself: at its new place now */
    if (slot->L.extra)
        slot->L.extra = slot->extra;
    if (slot->L.config)
        slot->L.config = &slot->config;
    __atomic_store_n(&g.n_pending, g.n_pending + 1, __ATOMIC_RELEASE);
    S_debug("launch %lld %s: batched (%zu)", index, symbol, g.n_pending);
    return true;
}

/* The memory type of an address: host (pageable memory, which the driver does
 * not know, or host-allocated) or device (device or managed allocation). */
static bool S_is_host(CUdeviceptr p)
{
    unsigned type = 0;
    CUresult r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p);
    return r == CUDA_ERROR_INVALID_VALUE || (r == CUDA_SUCCESS && type == CU_MEMORYTYPE_HOST);
}

static bool S_is_device(CUdeviceptr p)
{
    unsigned type = 0, managed = 0;
    if (cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS ||
        type != CU_MEMORYTYPE_DEVICE)
        return false;
    /* managed memory moves between host and device: not within a checkpoint */
    return cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p) == CUDA_SUCCESS &&
           !managed;
}

/* A driver call (not a launch) at its entry: end the open batch unless the
 * call cannot change device memory, or is a memset or copy the batch can
 * make again. */
static void S_on_driver_call(const CUpti_CallbackData *cb)
{
    if (__atomic_load_n(&g.n_pending, __ATOMIC_ACQUIRE) == 0)
        return;
    const char *name = cb->functionName ? cb->functionName : "?";
    if (gmi_api_keeps_batch(name))
        return;
    t_busy = 1;
    gmi_op_kind op = gmi_api_replayable(name);
    if (gmi_api_is_generic_copy(name) && cb->functionParams) {
        /* cuMemcpy(dst, src, n) and cuMemcpyAsync(dst, src, n, stream): to the
         * host changes nothing; device to device is made again */
        const S_copy_params *a = cb->functionParams;
        bool dst_host = S_is_host(a->dst);
        if (dst_host) {
            t_busy = 0;
            return;
        }
        if (S_is_device(a->dst) && S_is_device(a->src))
            op = GMI_OP_COPY_DTOD;
    }
    pthread_mutex_lock(&g.lock);
    if (!(op != GMI_OP_NONE && g.n_pending && cb->functionParams &&
          S_op_record(op, cb->functionParams)))
        S_batch_end(name);
    pthread_mutex_unlock(&g.lock);
    t_busy = 0;
}

/* A launch chosen for profiling: into the batch (true), or false when it must
 * be profiled on its own, now (S_profile), its arguments being uncopyable. */
static bool S_batch_try(const S_launch *L, const char *symbol, long long index, CUcontext ctx)
{
    if (!S_session_open(ctx)) {
        g.status.failed++;
        return true;
    }
    if (g.ctx_dead || ctx != g.ctx)
        return false;   /* S_profile says why it is not profiled */
    if (S_batch_add(L, symbol, index, ctx))
        return true;
    S_batch_end("a launch whose arguments cannot be copied");
    return false;
}

static void S_on_driver_launch(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    t_rt_pending = 0;   /* the runtime launch around this one reached the driver */
    pthread_mutex_lock(&g.lock);
    long long index = g.status.launches++;
    S_launch L;
    const char *symbol = cb->symbolName ? cb->symbolName : "?";
    if (!S_describe(cbid, cb->functionParams, &L)) {
        g.status.not_profilable++;
        char why[256];
        snprintf(why, sizeof why,
                 "launches through %s are not profiled (only cuLaunchKernel, cuLaunchKernelEx, "
                 "cuLaunchCooperativeKernel and the runtime's launches)",
                 cb->functionName ? cb->functionName : "an old entry point");
        S_note(why);
        goto done;
    }
    /* Captured into a graph: nothing runs now, and synchronizing would break the capture. */
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult cr = L.ptsz ? cuStreamIsCapturing_ptsz(L.stream, &cs)
                         : cuStreamIsCapturing(L.stream, &cs);
    if (cr != CUDA_SUCCESS || cs != CU_STREAM_CAPTURE_STATUS_NONE) {
        g.status.not_profilable++;
        S_note("kernels captured into CUDA graphs are not profiled, nor are graph launches");
        goto done;
    }
    char *name = gmi_demangle(symbol);
    gmi_decision d = gmi_filter_next(&g.filter, name);
    bool first_refusal = d == GMI_SKIP_DONE && g.filter.limit_reached && !g.status.limit_reached;
    S_debug("launch %lld %s: %s", index, name,
            d == GMI_PROFILE ? "profile" : d == GMI_SKIP_FILTER ? "filtered out"
                                         : d == GMI_SKIP_BEFORE ? "skipped" : "past the count");
    if (d == GMI_PROFILE && !g.stopped) {
        t_busy = 1;
        if (!S_batch_try(&L, symbol, index, cb->context))
            S_profile(&L, symbol, index, cb->context);
        t_busy = 0;
    } else if (d == GMI_PROFILE) {
        g.status.failed++;
    } else if (g.n_pending) {
        /* it changes memory the batch's replays would not see changed */
        t_busy = 1;
        S_batch_end("a launch that is not profiled");
        t_busy = 0;
    }
    if (first_refusal) {
        g.status.limit_reached = true;
        S_write_status();
    }
    free(name);
done:
    pthread_mutex_unlock(&g.lock);
}

static void CUPTIAPI S_callback(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                const void *data)
{
    (void)user;
    if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_ResourceData *rd = data;
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING && rd && g.ctx &&
            rd->context == g.ctx) {
            /* The session's context is going away (cudaDeviceReset, exit): the
             * session is left alone, not closed, and used no more. */
            pthread_mutex_lock(&g.lock);
            if (g.n_pending) {   /* normally ended already, at the call that destroys it */
                t_busy = 1;
                S_batch_end("the context's destruction");
                t_busy = 0;
            }
            g.ctx_dead = true;
            pthread_mutex_unlock(&g.lock);
        }
        return;
    }
    const CUpti_CallbackData *cb = data;
    if (!cb || t_busy)
        return;
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_ENTER &&
        !gmc_is_launch_callback(dom, cbid))
        S_on_driver_call(cb);   /* may end the open batch */
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (cb->callbackSite == CUPTI_API_ENTER) {
            t_rt_pending = 1;
        } else if (t_rt_pending) {
            t_rt_pending = 0;
            /* A runtime launch that succeeded without a driver launch under it. */
            if (cb->functionReturnValue && *(const int *)cb->functionReturnValue == 0) {
                pthread_mutex_lock(&g.lock);
                g.status.runtime_only++;
                S_note("runtime launches the driver callbacks did not show were not profiled");
                pthread_mutex_unlock(&g.lock);
            }
        }
        S_debug("runtime %s %s (cbid %u)", cb->callbackSite == CUPTI_API_ENTER ? "enter" : "exit",
                cb->functionName ? cb->functionName : "?", (unsigned)cbid);
        return;
    }
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_ENTER &&
        (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
         cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz)) {
        /* the kernels of a graph run without a launch callback each */
        pthread_mutex_lock(&g.lock);
        g.status.graph_launches++;
        S_note("kernels captured into CUDA graphs are not profiled, nor are graph launches");
        pthread_mutex_unlock(&g.lock);
        return;
    }
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && gmc_is_launch_callback(dom, cbid) &&
        cb->callbackSite == CUPTI_API_ENTER) {
        S_debug("driver enter %s (cbid %u) %s", cb->functionName ? cb->functionName : "?",
                (unsigned)cbid, cb->symbolName ? cb->symbolName : "");
        S_on_driver_launch(cbid, cb);
    }
}

/* ---- entry -------------------------------------------------------------------------------- */

static const char *S_getenv(const char *name, void *ctx)
{
    (void)ctx;
    return getenv(name);
}

/* The first CUDA process of the tree claims the directory; later ones (children
 * of the program) leave a marker and are not profiled. */
static bool S_claim(void)
{
    char *owner = S_path(GMI_FILE_OWNER);
    int fd = open(owner, O_WRONLY | O_CREAT | O_EXCL, 0600);
    free(owner);
    if (fd < 0) {
        gm_buf b = GM_BUF_INIT;
        gm_buf_printf(&b, "%s/other.%ld", g.opts.dir, (long)getpid());
        int o = open(b.data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o >= 0)
            close(o);
        gm_buf_free(&b);
        return false;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    ssize_t w = write(fd, pid, (size_t)n);
    (void)w;
    close(fd);
    return true;
}

static bool S_subscribe(void)
{
    CUptiResult r = cuptiSubscribe(&g.sub, S_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        const char *d = NULL;
        (void)cuptiGetResultString(r, &d);
        S_error("profiler", "cannot subscribe to CUPTI callbacks (%s)%s", d ? d : "?",
                r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                    ? ": another tool (Nsight Systems, Nsight Compute, a tracer) is attached"
                    : "");
        return false;
    }
    /* graph launches are counted (not profiled): S_callback */
    static const CUpti_CallbackId graph[] = {
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    };
    bool ok = true;
    for (size_t k = 0; k < gmc_n_launch_callbacks; k++)
        ok &= cuptiEnableCallback(1, g.sub, gmc_launch_callbacks[k].domain,
                                  gmc_launch_callbacks[k].cbid) == CUPTI_SUCCESS;
    for (size_t k = 0; k < sizeof graph / sizeof graph[0]; k++)
        ok &= cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_DRIVER_API, graph[k]) ==
              CUPTI_SUCCESS;
    /* every driver call: those that could change device memory end a batch */
    ok &= cuptiEnableDomain(1, g.sub, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_SUCCESS;
    ok &= cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RESOURCE,
                              CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) == CUPTI_SUCCESS;
    if (!ok) {
        S_error("profiler", "cannot enable CUPTI's launch callbacks");
        (void)cuptiUnsubscribe(g.sub);
        g.sub = NULL;
        return false;
    }
    return true;
}

/* The per-source-line pass: symbol (mangled) names the target kernel? */
static bool S_sass_match(const char *symbol, const char *target)
{
    if (strcmp(symbol, target) == 0)
        return true;
    char *name = gmi_demangle(symbol);
    bool same = name && strcmp(name, target) == 0;
    free(name);
    return same;
}

/* Called by the CUDA driver inside cuInit.  Returns 1 whatever happens: a
 * failure here must not stop the program; it is written to the status file
 * and said once on stderr. */
GMI_EXPORT int InitializeInjection(void)
{
    static int once;
    if (once++)
        return 1;
    const char *sass_kernel = getenv(GMI_ENV_SASS_KERNEL), *sass_out = getenv(GMI_ENV_SASS_OUT);
    if (sass_kernel && sass_out) {
        (void)gmc_sass_inject_start(sass_kernel, sass_out, S_sass_match);
        return 1;
    }
    char msg[512];
    if (!gmi_opts_parse(S_getenv, NULL, &g.opts, msg, sizeof msg)) {
        if (g.opts.dir) {   /* the CLI is listening: say it where it looks */
            S_error("options", "%s", msg);
            S_write_status();
        } else {
            fprintf(stderr, "gpumem-report: %s\n", msg);
        }
        return 1;
    }
    if (!S_claim())
        return 1;
    g.status.loaded = true;
    g.status.pid = (long long)getpid();
    gm_results_init(&g.results);
    if (!gmi_filter_init(&g.filter, &g.opts, msg, sizeof msg)) {
        S_error("options", "%s", msg);
        S_write_status();
        return 1;
    }
    g.status.limit = g.filter.count;
    (void)S_subscribe();   /* on failure the status says why; nothing is profiled */
    S_write_status();
    if (atexit(S_at_exit) != 0)
        S_error("io", "atexit failed: the last counts may be missing");
    g.active = true;
    S_debug("loaded in process %ld", (long)getpid());
    return 1;
}
