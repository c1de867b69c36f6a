/* harness.c — the host half of what every experiment shares: deterministic
 * input data (the suite's one splitmix64 generator), the host thread pool,
 * inputs shared between cases, and comparison with the CPU reference.  Plain
 * C, no CUDA: the references, traces and their tests use it on machines
 * without the toolkit.  The device half (poisoning, copies back, timing, the
 * kernel-attribute query) is harness.cu; declarations are in case.h.
 *
 * Library code: nothing here prints or exits.
 */
#include "case.h"

#include "../core/buf.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* lo + (hi - lo) u for u from the top 24 bits of the next output: every u is
 * a float in [0, 1) exactly; not clamped (the sparse matrices' values and
 * the references' tests are drawn this way). */
float gm_rand_uniform_f32(uint64_t *state, float lo, float hi)
{
    float u = (float)(gm_rand_next(state) >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
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

/* ---- a CPU baseline's memory ---------------------------------------------- */

#define S_HUGE ((size_t)2 << 20)

void *gm_host_table_alloc(size_t bytes)
{
    size_t size = (bytes + S_HUGE - 1) / S_HUGE * S_HUGE;
    void *p = NULL;
    if (posix_memalign(&p, S_HUGE, size ? size : S_HUGE) != 0 || !p)
        return gm_xmalloc(bytes);   /* gm_xmalloc's own out-of-memory path */
#ifdef MADV_HUGEPAGE
    (void)madvise(p, size ? size : S_HUGE, MADV_HUGEPAGE);   /* EINVAL where THP is off */
#endif
    return p;
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
 * numbers; each chunk has its own tally.  One chunk function per element
 * type (S_CMP_CHUNK below). */
typedef struct {
    const void *got, *ref;
    size_t n;
    double atol, rtol;
    bool exact;
    S_tally tally[S_CHUNKS];
} S_cmp;

/* The elements [i0, i1) of chunk k. */
static void S_chunk_range(const S_cmp *c, size_t k, size_t *i0, size_t *i1)
{
    *i0 = c->n / S_CHUNKS * k;
    *i1 = (k == S_CHUNKS - 1) ? c->n : c->n / S_CHUNKS * (k + 1);
}

/* Exact compares (integers): memcmp settles the common equal case at memory
 * speed; 64-bit differences saturate. */
#define S_CMP_EXACT(T, name)                                                       \
    static void name(void *ctx, size_t b, size_t e)                                \
    {                                                                              \
        S_cmp *c = (S_cmp *)ctx;                                                   \
        const T *got = (const T *)c->got, *ref = (const T *)c->ref;                \
        for (size_t k = b; k < e; k++) {                                           \
            S_tally *t = &c->tally[k];                                             \
            size_t i0, i1;                                                         \
            S_chunk_range(c, k, &i0, &i1);                                         \
            if (i1 == i0 || memcmp(got + i0, ref + i0, (i1 - i0) * sizeof(T)) == 0) \
                continue;                                                          \
            for (size_t i = i0; i < i1; i++) {                                     \
                if (got[i] == ref[i])                                              \
                    continue;                                                      \
                long long d;                                                       \
                if (__builtin_sub_overflow((long long)got[i], (long long)ref[i], &d) || \
                    d == LLONG_MIN)                                                \
                    d = LLONG_MAX;                                                 \
                d = d < 0 ? -d : d;                                                \
                t->max_ierr = d > t->max_ierr ? d : t->max_ierr;                   \
                S_tally_add(t, (long long)i, (double)got[i], (double)ref[i]);      \
            }                                                                      \
        }                                                                          \
    }

/* Real compares: |got-ref| <= atol + rtol*|ref|, written so that NaN in
 * either fails. */
#define S_CMP_REAL(T, name)                                                        \
    static void name(void *ctx, size_t b, size_t e)                                \
    {                                                                              \
        S_cmp *c = (S_cmp *)ctx;                                                   \
        const T *got = (const T *)c->got, *ref = (const T *)c->ref;                \
        for (size_t k = b; k < e; k++) {                                           \
            S_tally *t = &c->tally[k];                                             \
            size_t i0, i1;                                                         \
            S_chunk_range(c, k, &i0, &i1);                                         \
            for (size_t i = i0; i < i1; i++) {                                     \
                double g = (double)got[i], r = (double)ref[i];                     \
                double err = fabs(g - r);                                          \
                if (err == err)                                                    \
                    t->max_err = err > t->max_err ? err : t->max_err;              \
                else                                                               \
                    t->nans++;                                                     \
                t->max_ref = fabs(r) > t->max_ref ? fabs(r) : t->max_ref;          \
                if (!(err <= c->atol + c->rtol * fabs(r)))                         \
                    S_tally_add(t, (long long)i, g, r);                            \
            }                                                                      \
        }                                                                          \
    }

S_CMP_REAL(float, S_cmp_f32)
S_CMP_REAL(double, S_cmp_f64)
S_CMP_EXACT(unsigned char, S_cmp_u8)
S_CMP_EXACT(int, S_cmp_i32)
S_CMP_EXACT(long long, S_cmp_i64)

static void S_compare(const void *got, const void *ref, size_t n, bool exact, double atol,
                      double rtol, void (*chunk)(void *ctx, size_t b, size_t e), gm_check *out)
{
    S_cmp *c = (S_cmp *)gm_xcalloc(1, sizeof *c);
    c->got = got;
    c->ref = ref;
    c->n = n;
    c->atol = atol;
    c->rtol = rtol;
    c->exact = exact;
    /* S_CHUNKS pieces; one thread below ~64 K elements. */
    gm_parallel_for(S_CHUNKS, n >= ((size_t)1 << 16) ? 1 : S_CHUNKS, chunk, c);
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
    S_compare(got, ref, n, false, atol, rtol, S_cmp_f32, out);
}

void gm_compare_f64(const double *got, const double *ref, size_t n, double atol, double rtol,
                    gm_check *out)
{
    S_compare(got, ref, n, false, atol, rtol, S_cmp_f64, out);
}

void gm_compare_u8(const unsigned char *got, const unsigned char *ref, size_t n, gm_check *out)
{
    S_compare(got, ref, n, true, 0.0, 0.0, S_cmp_u8, out);
}

void gm_compare_i32(const int *got, const int *ref, size_t n, gm_check *out)
{
    S_compare(got, ref, n, true, 0.0, 0.0, S_cmp_i32, out);
}

void gm_compare_i64(const long long *got, const long long *ref, size_t n, gm_check *out)
{
    S_compare(got, ref, n, true, 0.0, 0.0, S_cmp_i64, out);
}
