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
#include "../reports/buf.h"
#include "../reports/stats.h"
}

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void gm_fill_uniform_f32(float *h, size_t n, uint64_t seed, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        h[i] = gm_uniform_f32_at(seed, i, lo, hi);
}

void gm_fill_uniform_f64(double *h, size_t n, uint64_t seed, double lo, double hi)
{
    for (size_t i = 0; i < n; i++) {
        double u = (double)(gm_rand_at(seed, i) >> 11) * (1.0 / 9007199254740992.0);
        double v = lo + (hi - lo) * u;
        h[i] = v < hi ? v : lo;
    }
}

/* Eight bytes per splitmix64 output, little-endian order. */
void gm_fill_bytes(unsigned char *h, size_t n, uint64_t seed)
{
    size_t i = 0;
    for (uint64_t k = 0; i < n; k++) {
        uint64_t z = gm_rand_at(seed, k);
        for (int b = 0; b < 8 && i < n; b++, i++)
            h[i] = (unsigned char)(z >> (8 * b));
    }
}

gm_status gm_poison(void *dev, size_t bytes, cudaStream_t s, gm_error *err)
{
    GM_CUDA(cudaMemsetAsync(dev, 0xFF, bytes, s));
    return GM_OK;
}

/* ---- comparison ----------------------------------------------------------- */

/* The first few mismatches go into the reason, as llm.c prints them. */
#define S_SHOWN 5

typedef struct {
    long long checked, mismatches;
    long long idx[S_SHOWN];
    double got[S_SHOWN], want[S_SHOWN];
    int shown;
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

/* Fill out from the tally: status, counts, first mismatch and a reason that
 * lists the first S_SHOWN mismatches. */
static void S_tally_finish(const S_tally *t, const char *bound, gm_check *out)
{
    out->checked = t->checked;
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
                  t->checked, bound);
    for (int k = 0; k < t->shown; k++)
        gm_buf_printf(&b, "%s [%lld] got %.9g, expected %.9g", k ? ";" : "", t->idx[k], t->got[k],
                      t->want[k]);
    if (t->mismatches > t->shown)
        gm_buf_puts(&b, "; ...");
    out->reason = gm_buf_detach(&b);
}

/* |got-ref| <= atol + rtol*|ref|, written so that NaN (in either) fails.
 * out->tolerance is the largest bound applied: atol + rtol * max|ref|. */
#define S_COMPARE_REAL(T)                                                          \
    S_tally t;                                                                     \
    memset(&t, 0, sizeof t);                                                       \
    double max_err = 0.0, max_ref = 0.0;                                           \
    long long nans = 0;                                                            \
    for (size_t i = 0; i < n; i++) {                                               \
        double g = (double)got[i], r = (double)ref[i];                             \
        double e = fabs(g - r);                                                    \
        if (e == e) {                                                              \
            if (e > max_err)                                                       \
                max_err = e;                                                       \
        } else {                                                                   \
            nans++;                                                                \
        }                                                                          \
        if (fabs(r) > max_ref)                                                     \
            max_ref = fabs(r);                                                     \
        if (!(e <= atol + rtol * fabs(r)))                                         \
            S_tally_add(&t, (long long)i, g, r);                                   \
    }                                                                              \
    t.checked = (long long)n;                                                      \
    char bound[96];                                                                \
    snprintf(bound, sizeof bound, "|got-ref| <= %g + %g*|ref|%s", atol, rtol,      \
             nans ? ", NaN found" : "");                                           \
    S_tally_finish(&t, bound, out);                                                \
    out->tolerance = atol + rtol * max_ref;                                        \
    out->max_abs_error = nans ? gm_vabsent() : gm_vreal(max_err);

void gm_compare_f32(const float *got, const float *ref, size_t n, double atol, double rtol,
                    gm_check *out)
{
    S_COMPARE_REAL(float)
}

void gm_compare_f64(const double *got, const double *ref, size_t n, double atol, double rtol,
                    gm_check *out)
{
    S_COMPARE_REAL(double)
}

/* Exact comparisons: a memcmp settles the common equal case at memory speed;
 * only a mismatch pays for the element loop. */
#define S_COMPARE_EXACT(T)                                                         \
    S_tally t;                                                                     \
    memset(&t, 0, sizeof t);                                                       \
    long long max_err = 0;                                                         \
    if (n > 0 && memcmp(got, ref, n * sizeof(T)) != 0) {                           \
        for (size_t i = 0; i < n; i++) {                                           \
            if (got[i] != ref[i]) {                                                \
                long long d = (long long)got[i] - (long long)ref[i];               \
                d = d < 0 ? -d : d;                                                \
                if (d > max_err)                                                   \
                    max_err = d;                                                   \
                S_tally_add(&t, (long long)i, (double)got[i], (double)ref[i]);     \
            }                                                                      \
        }                                                                          \
    }                                                                              \
    t.checked = (long long)n;                                                      \
    S_tally_finish(&t, "exact", out);                                              \
    out->tolerance = NAN;                                                          \
    out->max_abs_error = gm_vint(max_err);

void gm_compare_u8(const unsigned char *got, const unsigned char *ref, size_t n, gm_check *out)
{
    S_COMPARE_EXACT(unsigned char)
}

void gm_compare_i32(const int *got, const int *ref, size_t n, gm_check *out)
{
    S_COMPARE_EXACT(int)
}

/* Differences of 64-bit values can overflow long long: only the magnitude of
 * representable differences is tracked (saturating). */
void gm_compare_i64(const long long *got, const long long *ref, size_t n, gm_check *out)
{
    S_tally t;
    memset(&t, 0, sizeof t);
    long long max_err = 0;
    for (size_t i = 0; i < n; i++) {
        if (got[i] == ref[i])
            continue;
        long long d;
        if (__builtin_sub_overflow(got[i], ref[i], &d) || d == LLONG_MIN)
            d = LLONG_MAX;
        d = d < 0 ? -d : d;
        if (d > max_err)
            max_err = d;
        S_tally_add(&t, (long long)i, (double)got[i], (double)ref[i]);
    }
    t.checked = (long long)n;
    S_tally_finish(&t, "exact", out);
    out->tolerance = NAN;
    out->max_abs_error = gm_vint(max_err);
}

gm_status gm_check_f32(const float *dev, const float *ref, size_t n, double atol, double rtol,
                       gm_check *out, gm_error *err)
{
    float *got = (float *)malloc(n * sizeof *got + 1);
    if (!got)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory copying %zu floats back", n);
    cudaError_t rc = cudaMemcpy(got, dev, n * sizeof *got, cudaMemcpyDeviceToHost);
    if (rc != cudaSuccess) {
        free(got);
        return gm_fail(err, GM_ERR_CUDA, "%s:%d: cudaMemcpy(device to host, %zu bytes): %s (%s)",
                       __FILE__, __LINE__, n * sizeof *got, cudaGetErrorString(rc),
                       cudaGetErrorName(rc));
    }
    gm_compare_f32(got, ref, n, atol, rtol, out);
    free(got);
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
