/* harness.cu — the device half of what every experiment shares: output
 * poisoning, the kernel-attribute query, copies back for the check, and
 * timing (device events around each launch alone, L2 flushed between
 * repetitions, the device-to-device copy bandwidth every effective bandwidth
 * is compared with).  The host half (data, thread pool, shared inputs,
 * comparison) is harness.c.
 *
 * Library code: every function returns a gm_status and fills gm_error; none
 * prints or exits.  Declarations and contracts are in harness.h.
 */
#include "harness.h"

extern "C" {
#include "../core/buf.h"
#include "../core/stats.h"
}

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

gm_status gm_poison(void *dev, size_t bytes, cudaStream_t s, gm_error *err)
{
    GM_CUDA(cudaMemsetAsync(dev, 0xFF, bytes, s));
    return GM_OK;
}

gm_status gm_case_query_kernel(gm_case *c, const void *kernel, gm_error *err)
{
    cudaFuncAttributes attr;
    GM_CUDA(cudaFuncGetAttributes(&attr, kernel));
    c->launch.registers = attr.numRegs;
    c->launch.shared_bytes = (long long)attr.sharedSizeBytes;
    /* theoretical occupancy: the blocks of this shape an SM holds at once, in
     * warps, against the most warps it holds (no suite kernel asks for
     * dynamic shared memory) */
    int threads = (int)(c->launch.block[0] * c->launch.block[1] * c->launch.block[2]);
    c->launch.theoretical_occupancy = 0;
    if (threads > 0) {
        int blocks = 0, dev = 0, most = 0;
        GM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0));
        GM_CUDA(cudaGetDevice(&dev));
        GM_CUDA(cudaDeviceGetAttribute(&most, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
        if (blocks > 0 && most >= 32)
            c->launch.theoretical_occupancy =
                100.0 * blocks * ((threads + 31) / 32) / (most / 32);
    }
    return GM_OK;
}

/* ---- copying results back ------------------------------------------------- */

static void *S_stage;
static size_t S_stage_bytes;

static void S_stage_free(void)
{
    if (S_stage)
        cudaFreeHost(S_stage);
    S_stage = NULL;
    S_stage_bytes = 0;
}

static void S_gate_free(void);

gm_status gm_copy_back(const void *dev, size_t bytes, void **host, gm_error *err)
{
    *host = NULL;
    if (bytes > S_stage_bytes) {
        /* Grow by at least half again, so a sweep of growing sizes pins a few times. */
        size_t want = bytes > S_stage_bytes + S_stage_bytes / 2 ? bytes
                                                                : S_stage_bytes + S_stage_bytes / 2;
        S_stage_free();
        GM_CUDA(cudaMallocHost(&S_stage, want));
        S_stage_bytes = want;
    }
    GM_CUDA(cudaMemcpy(S_stage, dev, bytes, cudaMemcpyDeviceToHost));
    *host = S_stage;
    return GM_OK;
}

void gm_harness_release(void)
{
    S_stage_free();
    S_gate_free();
}

gm_status gm_check_f32(const float *dev, const float *ref, size_t n, double atol, double rtol,
                       gm_check *out, gm_error *err)
{
    void *got = NULL;
    gm_status st = gm_copy_back(dev, n * sizeof(float), &got, err);
    if (st != GM_OK)
        return st;
    gm_compare_f32((const float *)got, ref, n, atol, rtol, out);
    return GM_OK;
}

/* ---- L2 flush ------------------------------------------------------------- */

/* Reading (not writing) the flush buffer leaves L2 full of clean lines: the
 * timed kernel's misses then evict without write-backs, and the previous
 * kernel's dirty lines are written back during the flush, not during the
 * measurement.  The xor keeps the loads alive; the buffer is filled with one
 * byte value, so the sum of an even number of equal words is 0 and the store
 * never happens. */
__global__ void gm_l2flush_kernel(const uint4 *buf, size_t n, unsigned *sink)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint4 v = buf[i];
    unsigned acc = v.x ^ v.y ^ v.z ^ v.w;
    if (acc == 0x9E3779B9u)
        *sink = acc;
}

gm_status gm_l2flush_init(gm_l2flush *f, int device, gm_error *err)
{
    f->buf = NULL;
    f->bytes = 0;
    int l2 = 0;
    GM_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    if (l2 <= 0)
        l2 = 1 << 20;
    /* 2x L2, in whole 16-byte words, plus one word for the sink. */
    size_t bytes = ((size_t)l2 * 2 + 15) / 16 * 16;
    GM_CUDA(cudaMalloc(&f->buf, bytes + 16));
    f->bytes = bytes;
    GM_CUDA(cudaMemset(f->buf, 0x5A, bytes + 16));
    return GM_OK;
}

gm_status gm_l2flush_run(const gm_l2flush *f, cudaStream_t s, gm_error *err)
{
    size_t n = f->bytes / 16;
    unsigned blocks = (unsigned)((n + 255) / 256);
    gm_l2flush_kernel<<<blocks, 256, 0, s>>>((const uint4 *)f->buf, n,
                                             (unsigned *)((char *)f->buf + f->bytes));
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

void gm_l2flush_free(gm_l2flush *f)
{
    if (f->buf)
        cudaFree(f->buf);
    f->buf = NULL;
    f->bytes = 0;
}

/* ---- the launch gate ------------------------------------------------------- */

/* A kernel shorter than what the host spends enqueueing it (a few µs a
 * launch) would be timed with the host in it: the GPU reaches the start event,
 * then idles until the launch is submitted, and the sample grows with the
 * host's speed (an H100 run timed the same 3 µs matmul at 7 and at 14 µs on
 * two runs of one commit: bench/results/launch-gate-*.txt).  The gate is a
 * one-thread kernel that holds the stream until the host has enqueued a chunk
 * of repetitions, so they run back to back as the GPU reaches them.  It waits
 * for a word in mapped host memory to reach the chunk's generation (a number
 * that only grows, so a late gate never waits for a word already moved on),
 * and gives up after S_GATE_TIMEOUT_NS, saying so, in case the host could not
 * finish enqueueing (a full launch queue): the wait is never longer than that,
 * and the case is timed again without the gate. */
#define S_GATE_TIMEOUT_NS 1000000000ull   /* 1 s */
#define S_GATE_CHUNK_MS 0.25              /* GPU time enqueued behind one gate, about */
#define S_GATE_MAX_CHUNK 16               /* repetitions behind one gate, at most */
#define S_GATE_MIN_REP_MS 2.0             /* a repetition this long is not gated */

static unsigned *S_gate_words;   /* mapped host memory: [0] open generation, [1] timed out */
static unsigned S_gate_gen;

static void S_gate_free(void)
{
    if (S_gate_words)
        cudaFreeHost(S_gate_words);
    S_gate_words = NULL;
}

__device__ static unsigned long long S_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void gm_gate_kernel(const volatile unsigned *open, unsigned gen,
                               unsigned long long timeout_ns, volatile unsigned *timed_out)
{
    unsigned long long t0 = S_globaltimer();
    while ((int)(gen - *open) > 0) {
        if (S_globaltimer() - t0 > timeout_ns) {
            *timed_out = 1;
            return;
        }
    }
}

/* The words, allocated once; the timed-out word cleared (the stream is idle). */
static gm_status S_gate_init(gm_error *err)
{
    if (!S_gate_words) {
        GM_CUDA(cudaHostAlloc((void **)&S_gate_words, 2 * sizeof(unsigned), cudaHostAllocMapped));
        S_gate_words[0] = S_gate_gen;
    }
    S_gate_words[1] = 0;
    return GM_OK;
}

static gm_status S_gate_close(cudaStream_t s, unsigned *gen, gm_error *err)
{
    unsigned *dev = NULL;
    GM_CUDA(cudaHostGetDevicePointer((void **)&dev, S_gate_words, 0));
    *gen = ++S_gate_gen;
    gm_gate_kernel<<<1, 1, 0, s>>>(dev, *gen, S_GATE_TIMEOUT_NS, dev + 1);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

static void S_gate_open(unsigned gen)
{
    __atomic_store_n(&S_gate_words[0], gen, __ATOMIC_RELEASE);
}

double gm_host_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- timing --------------------------------------------------------------- */

/* Everything before the launch (reset, flush) is enqueued outside the pair of
 * events, so a sample is the kernel alone.  All samples are recorded before a
 * single synchronisation: the host never stalls the queue between reps. */
static gm_status S_prepare(gm_case *c, cudaStream_t s, const gm_l2flush *flush, gm_error *err)
{
    const gm_variant *v = c->variant;
    if (!v->idempotent && v->reset) {
        gm_status st = v->reset(c, s, err);
        if (st != GM_OK)
            return st;
    }
    if (flush)
        return gm_l2flush_run(flush, s, err);
    return GM_OK;
}

/* The repetitions themselves: `chunk` of them behind each gate, or none gated
 * when chunk is 0.  *timed_out: a gate gave up waiting. */
static gm_status S_time_reps(gm_case *c, cudaStream_t s, int reps, int chunk,
                             const gm_l2flush *flush, double *samples_ms, bool *timed_out,
                             gm_error *err)
{
    const gm_variant *v = c->variant;
    gm_status st = GM_OK;
    *timed_out = false;
    cudaEvent_t *ev = (cudaEvent_t *)calloc(2 * (size_t)reps, sizeof *ev);
    if (!ev)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory for %d timing events", 2 * reps);
    int created = 0;
    unsigned gen = 0;
    bool closed = false;
    cudaError_t rc = cudaSuccess;
    const char *what = "";
    for (; created < 2 * reps; created++) {
        rc = cudaEventCreate(&ev[created]);
        if (rc != cudaSuccess) {
            what = "cudaEventCreate";
            goto cuda_failed;
        }
    }
    if (chunk > 0) {
        st = S_gate_init(err);
        if (st != GM_OK)
            goto done;
    }
    for (int r = 0; r < reps; r++) {
        if (chunk > 0 && r % chunk == 0) {
            st = S_gate_close(s, &gen, err);
            if (st != GM_OK)
                goto done;
            closed = true;
        }
        st = S_prepare(c, s, flush, err);
        if (st != GM_OK)
            goto done;
        if ((rc = cudaEventRecord(ev[2 * r], s)) != cudaSuccess) {
            what = "cudaEventRecord(start)";
            goto cuda_failed;
        }
        st = v->launch(c, s, err);
        if (st != GM_OK)
            goto done;
        if ((rc = cudaEventRecord(ev[2 * r + 1], s)) != cudaSuccess) {
            what = "cudaEventRecord(stop)";
            goto cuda_failed;
        }
        if (closed && (r % chunk == chunk - 1 || r == reps - 1)) {
            S_gate_open(gen);
            closed = false;
        }
    }
    if ((rc = cudaStreamSynchronize(s)) != cudaSuccess) {
        what = "cudaStreamSynchronize";
        goto cuda_failed;
    }
    if (chunk > 0 && __atomic_load_n(&S_gate_words[1], __ATOMIC_ACQUIRE) != 0)
        *timed_out = true;
    for (int r = 0; r < reps; r++) {
        float ms = 0.0f;
        if ((rc = cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1])) != cudaSuccess) {
            what = "cudaEventElapsedTime";
            goto cuda_failed;
        }
        samples_ms[r] = ms;
    }
    goto done;
cuda_failed:
    st = gm_fail(err, GM_ERR_CUDA, "%s:%d: timing %s: %s: %s (%s)", __FILE__, __LINE__, c->kernel,
                 what, cudaGetErrorString(rc), cudaGetErrorName(rc));
done:
    /* A failure between closing a gate and opening it must not leave the
     * stream held: the gate would wait out its timeout. */
    if (closed)
        S_gate_open(gen);
    for (int k = 0; k < created; k++)
        cudaEventDestroy(ev[k]);
    free(ev);
    return st;
}

gm_status gm_time_case(gm_case *c, cudaStream_t s, int warmup, int reps,
                       const gm_l2flush *flush, double *samples_ms, bool *gated, gm_error *err)
{
    const gm_variant *v = c->variant;
    if (gated)
        *gated = false;
    if (reps <= 0)
        return gm_fail(err, GM_ERR_VALUE, "gm_time_case: %d repetitions (need at least 1)", reps);
    gm_status st = GM_OK;
    /* The last warm-up repetition is timed on the host, to its end: what one
     * repetition costs, enqueueing included, sizes the gate's chunks. */
    double rep_ms = -1.0;
    for (int w = 0; w < warmup && st == GM_OK; w++) {
        double t0 = gm_host_ms();
        st = S_prepare(c, s, flush, err);
        if (st == GM_OK)
            st = v->launch(c, s, err);
        if (st == GM_OK && w == warmup - 1) {
            GM_CUDA(cudaStreamSynchronize(s));
            rep_ms = gm_host_ms() - t0;
        }
    }
    if (st != GM_OK)
        return st;

    /* Not gated: repetitions of 2 ms or more (the host's few µs a launch are
     * lost in them, and one may hold many launches).  Otherwise about
     * S_GATE_CHUNK_MS of them behind each gate (one when the warm-up did not
     * say how long they take), so that what waits behind a gate is never more
     * than the launch queue holds. */
    int chunk = 0;
    if (rep_ms < 0)
        chunk = 1;
    else if (rep_ms < S_GATE_MIN_REP_MS) {
        double fit = S_GATE_CHUNK_MS / (rep_ms > 1e-3 ? rep_ms : 1e-3);
        chunk = fit < 1 ? 1 : fit > S_GATE_MAX_CHUNK ? S_GATE_MAX_CHUNK : (int)fit;
    }
    bool timed_out = false;
    st = S_time_reps(c, s, reps, chunk, flush, samples_ms, &timed_out, err);
    if (st == GM_OK && timed_out) {
        /* A gate gave up before the host opened it: its samples may hold host
         * time.  Time the case again, as it would be without the gate. */
        chunk = 0;
        st = S_time_reps(c, s, reps, 0, flush, samples_ms, &timed_out, err);
    }
    if (st == GM_OK && gated)
        *gated = chunk > 0;
    return st;
}

/* cudaMemcpyAsync device to device, one copy per sample, each between its own
 * pair of events.  Bytes counted: read + written = 2 * bytes. */
gm_status gm_measure_copy_bandwidth(size_t bytes, int reps, double *median_gbs, gm_error *err)
{
    if (bytes == 0 || reps <= 0)
        return gm_fail(err, GM_ERR_VALUE, "copy bandwidth: %zu bytes, %d repetitions", bytes,
                       reps);
    void *src = NULL, *dst = NULL;
    cudaStream_t s = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *ms = (double *)calloc((size_t)reps, sizeof *ms);
    gm_status st = GM_OK;
    cudaError_t rc;
    const char *what = "";
#define S_TRY(call)                                                                \
    do {                                                                           \
        if ((rc = (call)) != cudaSuccess) {                                        \
            what = #call;                                                          \
            goto cuda_failed;                                                      \
        }                                                                          \
    } while (0)
    if (!ms)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory for %d samples", reps);
    S_TRY(cudaMalloc(&src, bytes));
    S_TRY(cudaMalloc(&dst, bytes));
    S_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    S_TRY(cudaEventCreate(&e0));
    S_TRY(cudaEventCreate(&e1));
    S_TRY(cudaMemsetAsync(src, 0x3C, bytes, s));
    S_TRY(cudaMemsetAsync(dst, 0x00, bytes, s));
    for (int w = 0; w < 2; w++)
        S_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
    for (int r = 0; r < reps; r++) {
        float t = 0.0f;
        S_TRY(cudaEventRecord(e0, s));
        S_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
        S_TRY(cudaEventRecord(e1, s));
        S_TRY(cudaEventSynchronize(e1));
        S_TRY(cudaEventElapsedTime(&t, e0, e1));
        ms[r] = t;
    }
    {
        gm_summary sum = gm_summarize(ms, (size_t)reps);
        *median_gbs = 2.0 * (double)bytes / (sum.median * 1e-3) / 1e9;
    }
    goto done;
cuda_failed:
    st = gm_fail(err, GM_ERR_CUDA, "%s:%d: copy bandwidth (%zu bytes): %s: %s (%s)", __FILE__,
                 __LINE__, bytes, what, cudaGetErrorString(rc), cudaGetErrorName(rc));
done:
#undef S_TRY
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (s)
        cudaStreamDestroy(s);
    if (src)
        cudaFree(src);
    if (dst)
        cudaFree(dst);
    free(ms);
    return st;
}

/* ---- the attainable ceiling ------------------------------------------------
 * Plain kernels that do nothing but move bytes: a copy with 4-, 8- and
 * 16-byte accesses and a read-only sum with 16-byte loads, each with a
 * grid-stride loop at 2, 4 and 8 blocks of 256 threads per SM (and the copy
 * also with a thread per element).  The best median is the bandwidth a
 * kernel can attain on this device; cudaMemcpy can be beaten by a vectorised
 * kernel, so it is no ceiling. */

template <typename T>
__global__ void S_copy_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i];
}

__global__ void S_read_kernel(const float4 *__restrict__ in, float *__restrict__ out, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float4 v = in[i];
        acc += v.x + v.y + v.z + v.w;
    }
    /* one write per thread keeps the loads; it is never a measurable share */
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

typedef struct {
    int kind;        /* 0 copy float, 1 copy float2, 2 copy float4, 3 read float4 */
    int per_sm;      /* blocks of 256 per SM; 0: a thread per element */
} S_ceil_cfg;

static cudaError_t S_ceil_launch(const S_ceil_cfg *k, void *src, void *dst, size_t bytes, int sms,
                                 cudaStream_t s)
{
    const unsigned block = 256;
    size_t width = k->kind == 0 ? 4 : k->kind == 1 ? 8 : 16;
    size_t n = bytes / width;
    size_t grid = k->per_sm ? (size_t)sms * (size_t)k->per_sm : (n + block - 1) / block;
    switch (k->kind) {
    case 0: S_copy_kernel<float><<<(unsigned)grid, block, 0, s>>>((const float *)src, (float *)dst, n); break;
    case 1: S_copy_kernel<float2><<<(unsigned)grid, block, 0, s>>>((const float2 *)src, (float2 *)dst, n); break;
    case 2: S_copy_kernel<float4><<<(unsigned)grid, block, 0, s>>>((const float4 *)src, (float4 *)dst, n); break;
    default: S_read_kernel<<<(unsigned)grid, block, 0, s>>>((const float4 *)src, (float *)dst, n); break;
    }
    return cudaGetLastError();
}

gm_status gm_measure_attainable_bandwidth(size_t bytes, int reps, double *best_gbs, char *which,
                                          size_t which_cap, gm_error *err)
{
    static const S_ceil_cfg cfg[] = {
        {0, 0}, {1, 0}, {2, 0}, {0, 4}, {1, 4}, {2, 2}, {2, 4}, {2, 8}, {3, 2}, {3, 4}, {3, 8},
    };
    static const char *const kind_name[] = {"copy, 4-byte accesses", "copy, 8-byte accesses",
                                            "copy, 16-byte accesses", "read, 16-byte loads"};
    if (bytes == 0 || reps <= 0)
        return gm_fail(err, GM_ERR_VALUE, "attainable bandwidth: %zu bytes, %d repetitions",
                       bytes, reps);
    void *src = NULL, *dst = NULL;
    cudaStream_t s = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *ms = (double *)calloc((size_t)reps, sizeof *ms);
    gm_status st = GM_OK;
    cudaError_t rc;
    const char *what = "";
    int dev = 0, sms = 0;
    *best_gbs = 0.0;
    if (which_cap)
        which[0] = '\0';
#define S_TRY(call)                                                                \
    do {                                                                           \
        if ((rc = (call)) != cudaSuccess) {                                        \
            what = #call;                                                          \
            goto cuda_failed;                                                      \
        }                                                                          \
    } while (0)
    if (!ms)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory for %d samples", reps);
    S_TRY(cudaGetDevice(&dev));
    S_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    S_TRY(cudaMalloc(&src, bytes));
    S_TRY(cudaMalloc(&dst, bytes));
    S_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    S_TRY(cudaEventCreate(&e0));
    S_TRY(cudaEventCreate(&e1));
    S_TRY(cudaMemsetAsync(src, 0x3C, bytes, s));
    S_TRY(cudaMemsetAsync(dst, 0x00, bytes, s));
    for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
        for (int w = 0; w < 2; w++)
            S_TRY(S_ceil_launch(&cfg[k], src, dst, bytes, sms, s));
        for (int r = 0; r < reps; r++) {
            float t = 0.0f;
            S_TRY(cudaEventRecord(e0, s));
            S_TRY(S_ceil_launch(&cfg[k], src, dst, bytes, sms, s));
            S_TRY(cudaEventRecord(e1, s));
            S_TRY(cudaEventSynchronize(e1));
            S_TRY(cudaEventElapsedTime(&t, e0, e1));
            ms[r] = t;
        }
        gm_summary sum = gm_summarize(ms, (size_t)reps);
        double moved = cfg[k].kind == 3 ? (double)bytes : 2.0 * (double)bytes;
        double gbs = moved / (sum.median * 1e-3) / 1e9;
        if (gbs > *best_gbs) {
            *best_gbs = gbs;
            if (cfg[k].per_sm)
                snprintf(which, which_cap, "%s, %d x 256-thread blocks per SM, grid-stride",
                         kind_name[cfg[k].kind], cfg[k].per_sm);
            else
                snprintf(which, which_cap, "%s, a thread per element", kind_name[cfg[k].kind]);
        }
    }
    goto done;
cuda_failed:
    st = gm_fail(err, GM_ERR_CUDA, "%s:%d: attainable bandwidth (%zu bytes): %s: %s (%s)",
                 __FILE__, __LINE__, bytes, what, cudaGetErrorString(rc), cudaGetErrorName(rc));
    (void)cudaGetLastError();   /* a launch error is not sticky: clear it for the suite */
done:
#undef S_TRY
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (s)
        cudaStreamDestroy(s);
    if (src)
        cudaFree(src);
    if (dst)
        cudaFree(dst);
    free(ms);
    return st;
}
