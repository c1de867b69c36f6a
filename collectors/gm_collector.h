/* gm_collector.h — measure a kernel launch's memory counters in-process, under
 * the exact metric names Nsight Compute (ncu) uses, through CUPTI's range
 * profiler (CUDA 13).
 *
 * Typical use (the suite runner, kernels/runner.c):
 *
 *     gmc_config cfg = gmc_config_default();
 *     cfg.metrics = names; cfg.n_metrics = n; cfg.max_launches = 64;
 *     gmc_session *s;
 *     if (gmc_session_open(&cfg, &s, &err) != GMC_OK) ...   // err.message says why
 *     gmc_profile_batch(s, n_launches, reset_fn, launch_fn, ctx, values, &err);
 *     gmc_session_close(s);
 *
 * How it measures, and why (measured on the H100 of bench/results/):
 *  - One profiler setup per session (~0.2 s), then any number of batches.
 *  - A batch is profiled with CUPTI's *auto range* (one range per kernel, so
 *    a kernel's duration and % of peak are its own; user ranges stretch them
 *    over launch gaps: 294 us vs 115 us in notes/cupti.md) and *user
 *    replay*: every launch of the batch runs inside each pass, and the batch
 *    is replayed once per pass (5 passes for the catalog's 24 metrics on
 *    GH100).  No memory is saved or restored unless prepare() does it.
 *  - Replay re-runs every launch once per pass, so a launch that overwrites
 *    its inputs must have them restored: prepare(user, i) runs before launch
 *    i in every pass.  Copies and memsets there make no range; kernels do
 *    (see "Ranges").
 *  - With cfg.flush_l2 (the default) L2 is emptied before every profiled
 *    launch in every pass, as `ncu --cache-control all` does: a small kernel
 *    of the collector's own (PTX, JIT-compiled at open) touches every 128-byte
 *    line of a buffer of 4 x the L2 size, which evicts everything there and
 *    writes back dirty lines inside its own range.  It reads, so L2 is left
 *    clean: the kernel's writes evict nothing dirty (a memset scrub would leave
 *    dirty lines whose write-backs land in the kernel's dram__bytes_write).
 *    GMC_FLUSH_INVALIDATE also discards those lines, as ncu's flush does; it
 *    changed no number beyond ncu's own spread and costs a range.
 *  - Cost: CUPTI spends ~1.2 ms per range in each hardware-counter pass
 *    (~0.4 ms in a SASS-only pass), the flush being one range, plus ~14 ms per
 *    distinct kernel for SASS instrumentation the first time it runs: ~15 ms
 *    per launch for the 24 default metrics, against ~168 ms under ncu, and
 *    ~0.8 s fixed against ncu's ~2.2 s (bench/results/collector-*.txt).
 *  - Clocks are as found: CUPTI 13.0 cannot lock them (ncu locks to base by
 *    default; compare with `ncu --clock-control none`).  Counts do not depend
 *    on clocks; durations, rates and % of peak do.
 *
 * Ranges: auto range makes a range of *every* kernel launched in the profiled
 * context during a pass: the flush kernel, any kernel prepare() launches, and
 * the launch itself.  The collector subscribes to CUPTI's launch callbacks
 * and logs, in order, which phase (prepare / flush / launch) of which launch
 * each kernel came from; the k-th kernel of a pass is the k-th range.  It
 * then checks that the range count equals the kernel count, that every pass
 * launched the same kernels, and that launch(user, i) enqueued exactly one
 * kernel, and fails with GMC_ERR_RANGES or GMC_ERR_LAUNCH otherwise.  When
 * the callbacks cannot be had (another CUPTI subscriber in the process),
 * prepare() must launch no kernel and the ranges are taken to be the flush
 * kernel(s) then the launch, for each launch, checked by count.
 *
 * Not thread-safe: one session per process, launches from the thread that
 * calls gmc_profile_batch.  Graph launches are not supported.
 *
 * Library code: returns a status and fills a gmc_error; never prints, never
 * exits.  The program still starts without a GPU driver: nothing here links
 * libcuda; driver entry points come through cudart.
 */
#ifndef GM_COLLECTOR_H
#define GM_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GMC_OK = 0,
    GMC_ERR_NO_DRIVER,          /* no NVIDIA driver (libcuda) or one too old for this CUDA */
    GMC_ERR_NO_DEVICE,          /* driver present, no usable CUDA device (or bad ordinal) */
    GMC_ERR_UNSUPPORTED_DEVICE, /* the profiler refuses this device: vGPU, MIG, CMP, too old... */
    GMC_ERR_PERMISSION,         /* performance counters restricted to admin users */
    GMC_ERR_UNKNOWN_METRIC,     /* a metric name this chip does not have (message names it) */
    GMC_ERR_BAD_METRIC_LIST,    /* malformed list: empty name, bad character, duplicate */
    GMC_ERR_CUDA,               /* another CUDA runtime or driver failure */
    GMC_ERR_CUPTI,              /* another CUPTI failure */
    GMC_ERR_BUSY,               /* another profiler holds the device's counters */
    GMC_ERR_LAUNCH,             /* prepare() or launch() failed, or launch() did not enqueue exactly one kernel */
    GMC_ERR_RANGES,             /* ranges recorded != kernels launched, or ranges dropped */
    GMC_ERR_NOMEM,
    GMC_ERR_ARG                 /* bad argument, or a session already open in this process */
} gmc_status;

typedef struct {
    gmc_status status;
    char message[1024];
} gmc_error;

/* Short stable name of a status ("ok", "no-driver", ...). */
const char *gmc_status_name(gmc_status s);

/* How flush_l2 empties L2.  Both first touch every 128-byte line of a buffer
 * of 4 x the L2 size, which evicts every line there (writing back the dirty
 * ones inside the flush's own range). */
typedef enum {
    GMC_FLUSH_EVICT = 0,      /* L2 left full of clean lines of the flush buffer: a kernel
                                 misses exactly as on an empty L2, and its writes evict clean
                                 lines (no write-back).  One kernel, one extra range. */
    GMC_FLUSH_INVALIDATE = 1, /* then discard.global.L2 those lines: L2 left empty (invalid
                                 lines), as after ncu's flush.  sm_80+ (EVICT before); one
                                 more range per launch (~0.8 ms a pass on an H100), and on
                                 the reference kernels it changed no number beyond ncu's own
                                 run-to-run spread */
    GMC_FLUSH_ASIDE = 2       /* EVICT's kernel run in a second context of the collector's
                                 own, between the profiled context's kernels (each side
                                 synchronized): L2 is physical, so it is emptied the same
                                 way, but the flush is no range of the profiled context and
                                 costs no range's profiling overhead */
} gmc_flush_method;

typedef struct {
    int device;                  /* CUDA device ordinal */
    const char *const *metrics;  /* exact ncu metric names; copied by gmc_session_open */
    size_t n_metrics;
    bool flush_l2;               /* empty L2 before each profiled launch (ncu --cache-control all) */
    gmc_flush_method flush_method;
    size_t max_launches;         /* most launches in one gmc_profile_batch call */
    unsigned prepare_kernels;    /* most kernels one prepare() call may launch (each is a
                                    range we skip); sizes the counter image.  0: prepare
                                    uses copies/memsets only */
} gmc_config;

/* device 0, no metrics, flush_l2 on (GMC_FLUSH_EVICT), max_launches 64,
 * prepare_kernels 0. */
gmc_config gmc_config_default(void);

typedef struct gmc_session gmc_session;

/* Set up the profiler for cfg's device and metrics: checks the device is
 * supported and counters are permitted, validates every metric name on this
 * chip (GMC_ERR_UNKNOWN_METRIC names the first bad one and the nearest real
 * one), schedules the set into as few passes as CUPTI allows.  Makes the
 * device current on the calling thread.  *out is NULL on failure. */
gmc_status gmc_session_open(const gmc_config *cfg, gmc_session **out, gmc_error *err);

/* gmc_session_open, tried again while the device's counters are busy
 * (GMC_ERR_BUSY: another process's profiler session, or one still being torn
 * down by the driver after its process ended) for up to max_wait_s seconds;
 * *waited_s (may be NULL) gets the time spent waiting.  Seen on the H200: a
 * rank that took the GPU's turn the moment the previous rank's process ended
 * found the counters busy. */
gmc_status gmc_session_open_waiting(const gmc_config *cfg, gmc_session **out, double max_wait_s,
                                    double *waited_s, gmc_error *err);

/* Profile n launches (1 <= n <= cfg.max_launches) as one batch.  For every
 * pass, for i in 0..n-1: prepare(user, i) when prepare is not NULL (restore
 * inputs, poison outputs; not reported), [flush L2], launch(user, i) (enqueue
 * exactly one kernel).  Callbacks return 0 on success.  values receives
 * n * n_metrics doubles, row-major per launch, in the order of cfg.metrics;
 * NaN where CUPTI gives no value.  On error, values are unspecified; the
 * session may still be used for another batch, or closed. */
gmc_status gmc_profile_batch(gmc_session *s, size_t n,
                             int (*prepare)(void *user, size_t i),
                             int (*launch)(void *user, size_t i),
                             void *user, double *values, gmc_error *err);

/* Release everything; s may be NULL. */
void gmc_session_close(gmc_session *s);

/* Profiler passes the metric set needs (each batch runs this many times). */
int gmc_session_passes(const gmc_session *s);
size_t gmc_session_n_metrics(const gmc_session *s);
const char *gmc_session_metric_name(const gmc_session *s, size_t i);
/* Unit of metric i as ncu prints it with --print-units base ("byte",
 * "sector", "%", "nsecond", ...); "" when dimensionless. */
const char *gmc_session_metric_unit(const gmc_session *s, size_t i);
/* Chip as CUPTI names it ("GH100"). */
const char *gmc_session_chip(const gmc_session *s);
/* Kernel that launch i of the last batch enqueued (mangled name, as the
 * driver saw it), or NULL when launch tracking is off or i is out of range. */
const char *gmc_session_kernel_name(const gmc_session *s, size_t i);

typedef struct {
    bool launch_tracking;      /* ranges mapped through launch callbacks (else by count) */
    bool flush_l2;
    gmc_flush_method flush_method; /* as used (EVICT where the GPU cannot discard) */
    size_t range_capacity;     /* ranges the counter image holds per pass */
    double setup_seconds;      /* gmc_session_open, wall */
    /* last batch: */
    int batch_passes;          /* passes run */
    size_t batch_ranges;       /* ranges decoded (launches + flushes + prepare kernels) */
    double batch_pass_seconds; /* wall time of the pass loop (configuration included) */
    double batch_config_seconds; /* of which: a fresh counter image and the configuration */
    bool batch_reenabled;      /* the range profiler had to be enabled afresh for it */
    double batch_decode_seconds; /* decode + evaluation */
    double batch_start_stop_seconds; /* in cuptiRangeProfilerStart and Stop, all passes */
} gmc_session_info;

void gmc_session_info_get(const gmc_session *s, gmc_session_info *out);

typedef struct {
    char name[256];
    char uuid[48];             /* "GPU-8c1f0a2e-...": the device's UUID, as nvidia-smi -L gives it */
    char chip[64];             /* "" when CUPTI cannot name it */
    int cc_major, cc_minor, sm_count;
    long long mem_clock_khz;   /* peak memory clock */
    int bus_width_bits;
    double theoretical_gbs;    /* 2 * mem clock * bus width / 8, in 1e9 B/s */
    long long l2_bytes, global_mem_bytes;
    char driver_version[64];   /* kernel driver ("580.159.04") from /proc/driver/nvidia/version; "" if unreadable */
    int cuda_driver_api;       /* cudaDriverGetVersion: 13000 = 13.0 */
    int cuda_runtime;          /* cudaRuntimeGetVersion */
    long long cupti_api;       /* cuptiGetVersion */
} gmc_device_info;

gmc_status gmc_device_info_get(int device, gmc_device_info *out, gmc_error *err);
/* The CUDA devices this process sees (CUDA_VISIBLE_DEVICES applies); creates
 * no context. */
gmc_status gmc_device_count(int *n, gmc_error *err);

/* Parse an ncu-style comma-separated metric list ("a.sum, b.pct").  Spaces
 * around names are ignored; an empty name, a character outside [A-Za-z0-9_.]
 * or a name given twice is GMC_ERR_BAD_METRIC_LIST naming the name and its
 * column.  On success *names (n strings) is owned by the caller: free it with
 * gmc_metric_list_free.  Whether the names exist is checked by
 * gmc_session_open, on the device. */
gmc_status gmc_metric_list_parse(const char *ncu_style_list, char ***names, size_t *n,
                                 gmc_error *err);
void gmc_metric_list_free(char **names, size_t n);

#ifdef __cplusplus
}
#endif

#endif
