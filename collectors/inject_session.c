/* inject_session.c — the injection library's profiler session (opened at the
 * first profiled launch, in the device's primary context, once), its messages
 * (stderr, each kind once; the status file keeps the first error), the status
 * and runs files it writes into the CLI's directory, and the counts it writes
 * at exit.  inject_internal.h says how the library's files divide the work.
 */
#include "gm_collector.h"
#include "inject.h"
#include "inject_internal.h"

#include "../core/buf.h"
#include "../core/catalog.h"
#include "../core/devlock.h"
#include "../core/output.h"
#include "../core/pathpat.h"
#include "../core/results.h"

#include <cuda.h>

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- messages and files ------------------------------------------------------ */

void gmi_debug(const char *fmt, ...)
{
    if (!gmi.opts.debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("gpumem-report: debug: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Record the first error of each kind in the status and say it once on stderr. */
void gmi_error(const char *kind, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!gmi.status.error[0]) {
        snprintf(gmi.status.error_kind, sizeof gmi.status.error_kind, "%s", kind);
        snprintf(gmi.status.error, sizeof gmi.status.error, "%s", msg);
    }
    for (size_t i = 0; i < sizeof gmi.said / sizeof gmi.said[0]; i++) {
        if (strcmp(gmi.said[i], kind) == 0)
            return;
        if (!gmi.said[i][0]) {
            snprintf(gmi.said[i], sizeof gmi.said[i], "%s", kind);
            break;
        }
    }
    fprintf(stderr, "gpumem-report: %s\n", msg);
}

/* Why some launches were not profiled: each reason once, "; " between. */
void gmi_note(const char *why)
{
    char *n = gmi.status.note;
    size_t len = strlen(n), wl = strlen(why);
    if (strstr(n, why) || len + wl + 3 >= sizeof gmi.status.note)
        return;
    snprintf(n + len, sizeof gmi.status.note - len, "%s%s", len ? "; " : "", why);
}

char *gmi_path(const char *name)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s/%s", gmi.opts.dir, name);
    return gm_buf_detach(&b);
}

/* Write text to dir/name under the rule of core/output.h (temporary file
 * beside it, then rename). */
static void S_write_atomic(const char *name, const char *text)
{
    char *path = gmi_path(name);
    gm_error err = {0};
    if (gm_output_write(path, text, strlen(text), NULL, 0, &err) != GM_OK)
        gmi_error("io", "%s", err.message);
    free(path);
}

void gmi_write_status(void)
{
    gmi.status.matched = gmi.filter.matched;
    gmi.status.limit_reached = gmi.filter.limit_reached;
    gmi.status.limit = gmi.filter.count;
    char *text = gmi_status_format(&gmi.status);
    S_write_atomic(GMI_FILE_STATUS, text);
    free(text);
}

void gmi_write_runs(void)
{
    if (!gmi.results_header)
        return;
    char *path = gmi_path(GMI_FILE_RUNS);
    gm_error err;
    if (gm_results_write_file(&gmi.results, path, &err) != GM_OK)
        gmi_error("io", "%s", err.message);
    free(path);
}

double gmi_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void gmi_at_exit(void)
{
    if (!gmi.active)
        return;
    if (gmi.status.profiled || gmi.status.timed) {
        char ends[256] = "";
        size_t len = 0;
        for (size_t k = 0; k < sizeof gmi.ends / sizeof gmi.ends[0] && gmi.ends[k].why[0]; k++)
            len += (size_t)snprintf(ends + len, len < sizeof ends ? sizeof ends - len : 0,
                                    "%s%s %lld", k ? ", " : "", gmi.ends[k].why, gmi.ends[k].n);
        snprintf(gmi.status.timing, sizeof gmi.status.timing,
                 "%lld launches (%lld in %lld batches with %lld memsets and copies made again, "
                 "ended by: %s; %lld alone%s%s): session open %.3f s (copy-bandwidth measurement "
                 "%.3f s), synchronize %.3f s, checkpoint save %.3f s, replays %.3f s "
                 "(configuration %.3f s, %lld re-enabled; passes %.3f s, of which profiler "
                 "start and stop %.3f s; decode %.3f s), restore %.3f s; %lld CUDA graph "
                 "launches replayed node by node (%lld kernel nodes); %lld launches timed, "
                 "not replayed",
                 gmi.status.profiled, gmi.batched, gmi.batches, gmi.ops_replayed,
                 ends[0] ? ends : "-", gmi.single, gmi.single && gmi.copy_fail[0] ? ": " : "",
                 gmi.single ? gmi.copy_fail : "", gmi.t_open, gmi.t_copy, gmi.t_sync, gmi.t_save,
                 gmi.t_batch, gmi.t_config, gmi.reenabled, gmi.t_passes, gmi.t_startstop,
                 gmi.t_decode, gmi.t_restore, gmi.graph_replays, gmi.graph_nodes,
                 gmi.status.timed);
    }
    /* No CUDA here: the program's runtime may already be torn down. */
    pthread_mutex_lock(&gmi.lock);
    gmi_write_runs();
    gmi_write_status();
    pthread_mutex_unlock(&gmi.lock);
}

/* ---- the profiler session ------------------------------------------------------------- */

/* How long a session waits for counters another profiler still holds. */
#define S_BUSY_WAIT_S 30.0

const char *gmi_kind_of(gmc_status s)
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
    gm_results *r = &gmi.results;
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
    c->metrics = gm_xcalloc(gmi.n_metrics ? gmi.n_metrics : 1, sizeof *c->metrics);
    for (size_t i = 0; i < gmi.n_metrics; i++)
        c->metrics[i] = gm_xstrdup(gmi.metrics[i]);
    c->n_metrics = gmi.n_metrics;
    c->passes = gmc_session_passes(gmi.session);
    c->range_mode = gm_xstrdup("auto");
    /* user replay of each launch, memory restored from a CUPTI checkpoint */
    c->replay_mode = gm_xstrdup("user");
    c->cache_flush = gmi.opts.flush_l2;
    c->clock_control = gm_xstrdup("none");
    c->size_set = gm_xstrdup("app");
    c->timing_warmup = 0;
    c->timing_repetitions = 1;
    gm_error pe = {GM_OK, ""};
    if (gm_process_identify(&c->process, &pe) != GM_OK)
        gmi_error("rank", "%s", pe.message);
    c->process.device_uuid = dev->uuid[0] ? gm_xstrdup(dev->uuid) : NULL;
    c->process.lock_wait_seconds = gm_vreal(0.0);
    /* every run names an experiment the file lists; the CLI names it after the program */
    gm_experiment *e = gm_results_add_experiment(r);
    e->id = gm_xstrdup("app");
    e->title = gm_xstrdup("app");
    gmi.results_header = true;
}

/* The metric list: --metrics, or the catalog's default set. */
static bool S_metrics(void)
{
    if (gmi.opts.metrics) {
        gmc_error e;
        if (gmc_metric_list_parse(gmi.opts.metrics, &gmi.metrics, &gmi.n_metrics, &e) != GMC_OK) {
            gmi_error("metrics", "--metrics: %s", e.message);
            return false;
        }
        return true;
    }
    for (size_t i = 0; i < gm_catalog_len; i++)
        if (gm_catalog[i].is_default) {
            gmi.metrics = gm_xrealloc(gmi.metrics, (gmi.n_metrics + 1) * sizeof *gmi.metrics);
            gmi.metrics[gmi.n_metrics++] = gm_xstrdup(gm_catalog[i].name);
        }
    return true;
}

static void S_on_lock_wait(void *ctx, const char *path)
{
    (void)ctx;
    fprintf(stderr, "gpumem-report: another process is profiling this GPU (lock %s held); "
                    "waiting for it to end before profiling\n", path);
}

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
    double t0 = gmi_now(), gbs = NAN;
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
    gmi.t_copy += gmi_now() - t0;
    return gbs;
}

static bool S_session_open_timed(CUcontext ctx);

/* Open the collector on the device of `ctx` (the calling thread's current
 * context, left current on return). */
bool gmi_session_open(CUcontext ctx)
{
    if (gmi.session)
        return true;
    if (gmi.session_failed)
        return false;
    double t0 = gmi_now();
    bool ok = S_session_open_timed(ctx);
    gmi.t_open += gmi_now() - t0;
    return ok;
}

static bool S_session_open_timed(CUcontext ctx)
{
    gmi.session_failed = true;   /* until it succeeds */
    CUdevice dev;
    CUresult r = cuCtxGetDevice(&dev);
    if (r != CUDA_SUCCESS) {
        gmi_error("profiler", "cuCtxGetDevice failed (%d): cannot tell which GPU to profile",
                  (int)r);
        return false;
    }
    CUcontext primary = NULL;
    r = cuDevicePrimaryCtxRetain(&primary, dev);
    if (r != CUDA_SUCCESS) {
        gmi_error("profiler", "cuDevicePrimaryCtxRetain failed (%d)", (int)r);
        return false;
    }
    (void)cuDevicePrimaryCtxRelease(dev);
    if (!S_metrics())
        return false;
    gmc_error e = {GMC_OK, ""};
    gmc_device_info info;
    if (gmc_device_info_get((int)dev, &info, &e) != GMC_OK) {
        gmi_error(gmi_kind_of(e.status), "%s", e.message);
        (void)cuCtxSetCurrent(ctx);
        return false;
    }
    /* Our turn on the GPU, until this process ends (the kernel drops the
     * lock then): another process's open profiler session makes ours fail
     * with CUPTI_ERROR_HARDWARE_BUSY (seen on the H100 with two ranks of one
     * program), so ranks sharing a GPU profile one after the other. */
    gm_error le = {GM_OK, ""};
    if (gm_devlock_acquire(&gmi.devlock, info.uuid, S_on_lock_wait, NULL, &le) != GM_OK)
        gmi_error("lock", "%s: profiling without taking turns", le.message);
    gmc_config cfg = gmc_config_default();
    cfg.device = (int)dev;
    cfg.metrics = (const char *const *)gmi.metrics;
    cfg.n_metrics = gmi.n_metrics;
    cfg.flush_l2 = gmi.opts.flush_l2;
    cfg.max_launches = GMI_BATCH_MAX;
    gmc_status st = gmc_session_open_waiting(&cfg, &gmi.session, S_BUSY_WAIT_S, NULL, &e);
    (void)cuCtxSetCurrent(ctx);
    if (st != GMC_OK) {
        gmi_error(gmi_kind_of(st), "%s", e.message);
        return false;
    }
    gmi.ctx = primary;
    gmi.values = gm_xcalloc(GMI_BATCH_MAX * gmi.n_metrics, sizeof *gmi.values);
    gmi.duration_index = gmi.n_metrics;
    for (size_t i = 0; i < gmi.n_metrics; i++)
        if (strcmp(gmi.metrics[i], GM_M_DURATION) == 0)
            gmi.duration_index = i;
    snprintf(gmi.uuid, sizeof gmi.uuid, "%s", info.uuid);
    S_fill_header(&info, (int)dev);
    gm_process *pr = &gmi.results.collection.process;
    pr->lock_wait_seconds = gm_vreal(gmi.devlock.waited_s);
    pr->lock_waits = gmi.devlock.waits;
    pr->lock_turns = gmi.devlock.turns;
    double copy = S_copy_bandwidth();
    (void)cuCtxSetCurrent(ctx);
    if (isfinite(copy)) {
        gmi.results.device.copy_bandwidth_gbs = gm_vreal(copy);
        gmi.results.device.copy_bandwidth_bytes = gm_vint((long long)S_COPY_BYTES);
    }
    gmi.session_failed = false;
    gmi_debug("profiler open on device %d (%s), %zu metrics, %d passes", (int)dev, info.name,
              gmi.n_metrics, gmc_session_passes(gmi.session));
    return true;
}
