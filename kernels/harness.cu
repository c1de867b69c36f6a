/* harness.cu — what every experiment shares: deterministic input data, output
 * poisoning, comparison with the CPU reference, and timing (device events
 * around each launch alone, L2 flushed between repetitions, the device-to-
 * device copy bandwidth every effective bandwidth is compared with).
 *
 * Library code: every function returns a gm_status and fills gm_error; none
 * prints or exits.  Declarations and contracts are in suite.h.
 */
#include "suite.h"

extern "C" {
#include "../core/buf.h"
#include "../core/stats.h"
}

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- deterministic data --------------------------------------------------- */

/* splitmix64 (Steele, Lea, Flood 2014): state advances by the golden gamma, the
 * output is a bijective mix of the state, so the i-th output depends only on
 * seed + (i+1) * gamma and any element can be computed on its own. */
#define S_GAMMA 0x9E3779B97F4A7C15ull

static uint64_t S_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t gm_rand_next(uint64_t *state)
{
    *state += S_GAMMA;
    return S_mix(*state);
}

uint64_t gm_rand_at(uint64_t seed, uint64_t i)
{
    return S_mix(seed + (i + 1) * S_GAMMA);
}

/* The top 24 bits make a float in [0, 1) exactly (k * 2^-24); lo + (hi-lo)*u
 * is then rounded once per operation, the same on every host. */
float gm_uniform_f32_at(uint64_t seed, uint64_t i, float lo, float hi)
{
    float u = (float)(gm_rand_at(seed, i) >> 40) * (1.0f / 16777216.0f);
    float v = lo + (hi - lo) * u;
    return v < hi ? v : lo;   /* rounding may reach hi; keep the half-open range */
}

typedef struct {
    void *h;
    uint64_t seed;
    double lo, hi;
} S_fill;

static void S_fill_f32(void *ctx, size_t b, size_t e)
{
    S_fill *f = (S_fill *)ctx;
    float *h = (float *)f->h;
    for (size_t i = b; i < e; i++)
        h[i] = gm_uniform_f32_at(f->seed, i, (float)f->lo, (float)f->hi);
}

void gm_fill_uniform_f32(float *h, size_t n, uint64_t seed, float lo, float hi)
{
    S_fill f = {h, seed, lo, hi};
    gm_parallel_for(n, GM_PAR_ELEMS, S_fill_f32, &f);
}

static void S_fill_f64(void *ctx, size_t b, size_t e)
{
    S_fill *f = (S_fill *)ctx;
    double *h = (double *)f->h;
    for (size_t i = b; i < e; i++) {
        double u = (double)(gm_rand_at(f->seed, i) >> 11) * (1.0 / 9007199254740992.0);
        double v = f->lo + (f->hi - f->lo) * u;
        h[i] = v < f->hi ? v : f->lo;
    }
}

void gm_fill_uniform_f64(double *h, size_t n, uint64_t seed, double lo, double hi)
{
    S_fill f = {h, seed, lo, hi};
    gm_parallel_for(n, GM_PAR_ELEMS, S_fill_f64, &f);
}

/* Byte i is byte (i mod 8) of output i div 8, little-endian order. */
static void S_fill_u8(void *ctx, size_t b, size_t e)
{
    S_fill *f = (S_fill *)ctx;
    unsigned char *h = (unsigned char *)f->h;
    uint64_t z = gm_rand_at(f->seed, b / 8);
    for (size_t i = b; i < e; i++) {
        if (i % 8 == 0)
            z = gm_rand_at(f->seed, i / 8);
        h[i] = (unsigned char)(z >> (8 * (i % 8)));
    }
}

void gm_fill_bytes(unsigned char *h, size_t n, uint64_t seed)
{
    S_fill f = {h, seed, 0.0, 0.0};
    gm_parallel_for(n, GM_PAR_ELEMS, S_fill_u8, &f);
}

/* ---- shared inputs -------------------------------------------------------- */

typedef struct S_shared {
    struct S_shared *next;
    char *key;
    void *obj;
    int refs;
    void (*destroy)(void *obj);
} S_shared;

static S_shared *S_shared_list;

gm_status gm_shared_get(const char *key, size_t size,
                        gm_status (*build)(void *obj, void *ctx, gm_error *err),
                        void (*destroy)(void *obj), void *ctx, void **obj, gm_error *err)
{
    for (S_shared *e = S_shared_list; e; e = e->next)
        if (strcmp(e->key, key) == 0) {
            e->refs++;
            *obj = e->obj;
            return GM_OK;
        }
    *obj = NULL;
    void *o = gm_xcalloc(1, size ? size : 1);
    gm_status st = build(o, ctx, err);
    if (st != GM_OK) {
        destroy(o);
        free(o);
        return st;
    }
    S_shared *e = (S_shared *)gm_xcalloc(1, sizeof *e);
    e->key = gm_xstrdup(key);
    e->obj = o;
    e->refs = 1;
    e->destroy = destroy;
    e->next = S_shared_list;
    S_shared_list = e;
    *obj = o;
    return GM_OK;
}

void gm_shared_release(void *obj)
{
    if (!obj)
        return;
    for (S_shared **p = &S_shared_list; *p; p = &(*p)->next) {
        S_shared *e = *p;
        if (e->obj != obj)
            continue;
        if (--e->refs > 0)
            return;
        *p = e->next;
        e->destroy(e->obj);
        free(e->obj);
        free(e->key);
        free(e);
        return;
    }
}

gm_status gm_poison(void *dev, size_t bytes, cudaStream_t s, gm_error *err)
{
    GM_CUDA(cudaMemsetAsync(dev, 0xFF, bytes, s));
    return GM_OK;
}

/* ---- host parallelism ----------------------------------------------------- */

typedef struct {
    void (*fn)(void *ctx, size_t begin, size_t end);
    void *ctx;
    size_t begin, end;
} S_job;

static void *S_job_run(void *p)
{
    S_job *j = (S_job *)p;
    j->fn(j->ctx, j->begin, j->end);
    return NULL;
}

#define S_MAX_THREADS 16

void gm_parallel_for(size_t n, size_t min_chunk, void (*fn)(void *ctx, size_t begin, size_t end),
                     void *ctx)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int t = cpus < 1 ? 1 : cpus > S_MAX_THREADS ? S_MAX_THREADS : (int)cpus;
    size_t chunks = n / (min_chunk ? min_chunk : 1);
    if (chunks < (size_t)t)
        t = chunks < 1 ? 1 : (int)chunks;
    S_job job[S_MAX_THREADS];
    pthread_t th[S_MAX_THREADS];
    bool started[S_MAX_THREADS] = {false};
    for (int k = 0; k < t; k++) {
        job[k].fn = fn;
        job[k].ctx = ctx;
        job[k].begin = n / (size_t)t * (size_t)k;
        job[k].end = (k == t - 1) ? n : n / (size_t)t * (size_t)(k + 1);
    }
    for (int k = 1; k < t; k++)
        started[k] = pthread_create(&th[k], NULL, S_job_run, &job[k]) == 0;
    S_job_run(&job[0]);
    for (int k = 1; k < t; k++) {
        if (started[k])
            pthread_join(th[k], NULL);
        else
            S_job_run(&job[k]);   /* no thread: do its share here */
    }
}

/* ---- comparison ----------------------------------------------------------- */

/* The first few mismatches go into the reason, as llm.c prints them. */
#define S_SHOWN 5

typedef struct {
    long long mismatches, nans;
    long long idx[S_SHOWN];
    double got[S_SHOWN], want[S_SHOWN];
    int shown;
    double max_err, max_ref;   /* real compares: max |got-ref| (finite), max |ref| */
    long long max_ierr;        /* exact compares: max |got-ref| */
} S_tally;

static void S_tally_add(S_tally *t, long long i, double got, double want)
{
    if (t->shown < S_SHOWN) {
        t->idx[t->shown] = i;
        t->got[t->shown] = got;
        t->want[t->shown] = want;
        t->shown++;
    }
    t->mismatches++;
}

/* Chunks are merged in index order, so the first mismatches stay the first. */
static void S_tally_merge(S_tally *into, const S_tally *t)
{
    for (int k = 0; k < t->shown && into->shown < S_SHOWN; k++) {
        into->idx[into->shown] = t->idx[k];
        into->got[into->shown] = t->got[k];
        into->want[into->shown] = t->want[k];
        into->shown++;
    }
    into->mismatches += t->mismatches;
    into->nans += t->nans;
    into->max_err = t->max_err > into->max_err ? t->max_err : into->max_err;
    into->max_ref = t->max_ref > into->max_ref ? t->max_ref : into->max_ref;
    into->max_ierr = t->max_ierr > into->max_ierr ? t->max_ierr : into->max_ierr;
}

/* Fill out from the tally: status, counts, first mismatch and a reason that
 * lists the first S_SHOWN mismatches. */
static void S_tally_finish(const S_tally *t, long long checked, const char *bound, gm_check *out)
{
    out->checked = checked;
    out->mismatches = t->mismatches;
    out->has_first_mismatch = t->mismatches > 0;
    out->reason = NULL;
    if (t->mismatches == 0) {
        out->status = GM_CHECK_PASSED;
        out->first_index = 0;
        out->first_value = out->first_expected = 0.0;
        return;
    }
    out->status = GM_CHECK_FAILED;
    out->first_index = t->idx[0];
    out->first_value = t->got[0];
    out->first_expected = t->want[0];
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%lld of %lld elements differ from the CPU reference (%s):", t->mismatches,
                  checked, bound);
    for (int k = 0; k < t->shown; k++)
        gm_buf_printf(&b, "%s [%lld] got %.9g, expected %.9g", k ? ";" : "", t->idx[k], t->got[k],
                      t->want[k]);
    if (t->mismatches > t->shown)
        gm_buf_puts(&b, "; ...");
    out->reason = gm_buf_detach(&b);
}

#define S_CHUNKS 64

/* A comparison split into S_CHUNKS ranges, run by gm_parallel_for over chunk
 * numbers; each chunk has its own tally. */
template <typename T> struct S_cmp {
    const T *got, *ref;
    size_t n;
    double atol, rtol;
    bool exact;
    S_tally tally[S_CHUNKS];
};

template <typename T> static void S_cmp_chunk(void *ctx, size_t b, size_t e)
{
    S_cmp<T> *c = (S_cmp<T> *)ctx;
    for (size_t k = b; k < e; k++) {
        S_tally *t = &c->tally[k];
        size_t i0 = c->n / S_CHUNKS * k, i1 = (k == S_CHUNKS - 1) ? c->n : c->n / S_CHUNKS * (k + 1);
        if (c->exact) {
            /* memcmp settles the common equal case at memory speed. */
            if (i1 == i0 || memcmp(c->got + i0, c->ref + i0, (i1 - i0) * sizeof(T)) == 0)
                continue;
            for (size_t i = i0; i < i1; i++) {
                if (c->got[i] == c->ref[i])
                    continue;
                long long d;
                if (__builtin_sub_overflow((long long)c->got[i], (long long)c->ref[i], &d) ||
                    d == LLONG_MIN)
                    d = LLONG_MAX;   /* 64-bit differences saturate */
                d = d < 0 ? -d : d;
                t->max_ierr = d > t->max_ierr ? d : t->max_ierr;
                S_tally_add(t, (long long)i, (double)c->got[i], (double)c->ref[i]);
            }
        } else {
            /* |got-ref| <= atol + rtol*|ref|, written so that NaN in either fails. */
            for (size_t i = i0; i < i1; i++) {
                double g = (double)c->got[i], r = (double)c->ref[i];
                double err = fabs(g - r);
                if (err == err)
                    t->max_err = err > t->max_err ? err : t->max_err;
                else
                    t->nans++;
                t->max_ref = fabs(r) > t->max_ref ? fabs(r) : t->max_ref;
                if (!(err <= c->atol + c->rtol * fabs(r)))
                    S_tally_add(t, (long long)i, g, r);
            }
        }
    }
}

template <typename T>
static void S_compare(const T *got, const T *ref, size_t n, bool exact, double atol, double rtol,
                      gm_check *out)
{
    S_cmp<T> *c = (S_cmp<T> *)gm_xcalloc(1, sizeof *c);
    c->got = got;
    c->ref = ref;
    c->n = n;
    c->atol = atol;
    c->rtol = rtol;
    c->exact = exact;
    /* S_CHUNKS pieces; one thread below ~64 K elements. */
    gm_parallel_for(S_CHUNKS, n >= ((size_t)1 << 16) ? 1 : S_CHUNKS, S_cmp_chunk<T>, c);
    S_tally all;
    memset(&all, 0, sizeof all);
    for (int k = 0; k < S_CHUNKS; k++)
        S_tally_merge(&all, &c->tally[k]);
    free(c);
    if (exact) {
        S_tally_finish(&all, (long long)n, "exact", out);
        out->tolerance = NAN;
        out->max_abs_error = gm_vint(all.max_ierr);
    } else {
        char bound[96];
        snprintf(bound, sizeof bound, "|got-ref| <= %g + %g*|ref|%s", atol, rtol,
                 all.nans ? ", NaN found" : "");
        S_tally_finish(&all, (long long)n, bound, out);
        /* The largest per-element bound applied. */
        out->tolerance = atol + rtol * all.max_ref;
        out->max_abs_error = all.nans ? gm_vabsent() : gm_vreal(all.max_err);
    }
}

void gm_compare_f32(const float *got, const float *ref, size_t n, double atol, double rtol,
                    gm_check *out)
{
    S_compare<float>(got, ref, n, false, atol, rtol, out);
}

void gm_compare_f64(const double *got, const double *ref, size_t n, double atol, double rtol,
                    gm_check *out)
{
    S_compare<double>(got, ref, n, false, atol, rtol, out);
}

void gm_compare_u8(const unsigned char *got, const unsigned char *ref, size_t n, gm_check *out)
{
    S_compare<unsigned char>(got, ref, n, true, 0.0, 0.0, out);
}

void gm_compare_i32(const int *got, const int *ref, size_t n, gm_check *out)
{
    S_compare<int>(got, ref, n, true, 0.0, 0.0, out);
}

void gm_compare_i64(const long long *got, const long long *ref, size_t n, gm_check *out)
{
    S_compare<long long>(got, ref, n, true, 0.0, 0.0, out);
}

gm_status gm_case_query_kernel(gm_case *c, const void *kernel, gm_error *err)
{
    cudaFuncAttributes attr;
    GM_CUDA(cudaFuncGetAttributes(&attr, kernel));
    c->launch.registers = attr.numRegs;
    c->launch.shared_bytes += (long long)attr.sharedSizeBytes;
    return GM_OK;
}

/* ---- copying results back ------------------------------------------------- */

static void *S_stage;
static size_t S_stage_bytes;

gm_status gm_copy_back(const void *dev, size_t bytes, void **host, gm_error *err)
{
    *host = NULL;
    if (bytes > S_stage_bytes) {
        /* Grow by at least half again, so a sweep of growing sizes pins a few times. */
        size_t want = bytes > S_stage_bytes + S_stage_bytes / 2 ? bytes
                                                                : S_stage_bytes + S_stage_bytes / 2;
        gm_harness_release();
        GM_CUDA(cudaMallocHost(&S_stage, want));
        S_stage_bytes = want;
    }
    GM_CUDA(cudaMemcpy(S_stage, dev, bytes, cudaMemcpyDeviceToHost));
    *host = S_stage;
    return GM_OK;
}

void gm_harness_release(void)
{
    if (S_stage)
        cudaFreeHost(S_stage);
    S_stage = NULL;
    S_stage_bytes = 0;
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

gm_status gm_time_case(gm_case *c, cudaStream_t s, int warmup, int reps,
                       const gm_l2flush *flush, double *samples_ms, gm_error *err)
{
    const gm_variant *v = c->variant;
    if (reps <= 0)
        return gm_fail(err, GM_ERR_VALUE, "gm_time_case: %d repetitions (need at least 1)", reps);
    gm_status st = GM_OK;
    for (int w = 0; w < warmup && st == GM_OK; w++) {
        st = S_prepare(c, s, flush, err);
        if (st == GM_OK)
            st = v->launch(c, s, err);
    }
    if (st != GM_OK)
        return st;

    cudaEvent_t *ev = (cudaEvent_t *)calloc(2 * (size_t)reps, sizeof *ev);
    if (!ev)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory for %d timing events", 2 * reps);
    int created = 0;
    cudaError_t rc = cudaSuccess;
    const char *what = "";
    for (; created < 2 * reps; created++) {
        rc = cudaEventCreate(&ev[created]);
        if (rc != cudaSuccess) {
            what = "cudaEventCreate";
            goto cuda_failed;
        }
    }
    for (int r = 0; r < reps; r++) {
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
    }
    if ((rc = cudaStreamSynchronize(s)) != cudaSuccess) {
        what = "cudaStreamSynchronize";
        goto cuda_failed;
    }
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
    for (int k = 0; k < created; k++)
        cudaEventDestroy(ev[k]);
    free(ev);
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
