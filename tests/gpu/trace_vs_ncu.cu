/* trace_vs_ncu.cu — the tracer (collectors/gmc_trace.h) on kernels that cover
 * the access patterns its rules must count as the hardware does: coalesced
 * and strided 4-byte loads, misaligned starts, 8- and 16-byte accesses,
 * broadcasts, partial and sparse warps, stores, shared-memory bank conflicts
 * of 2 to 32 ways, 8- and 16-byte shared accesses.  Each access is alone on
 * its source line, so a line's counts are one instruction's.
 *
 *   trace_vs_ncu                 trace every kernel once (two passes, which must
 *                                agree), time untraced launches before patching,
 *                                patched but disabled, traced, and after
 *                                unpatching; exit 1 on a failure
 *   trace_vs_ncu --records F     also write the per-instruction counts to F
 *   trace_vs_ncu --counters      the tracer and CUPTI in one process: a traced pass,
 *                                detach, range-profiler counters of untraced launches
 *                                unpatched and patched (disabled), attach, a second
 *                                pass that must equal the first
 *   trace_vs_ncu --profiler-first  the other order: a profiler session, then the tracer
 *   trace_vs_ncu --profiler-closed-first  a profiler session opened and closed, then the
 *                                tracer
 *   trace_vs_ncu --plain         launch every kernel once, no tracer (for ncu)
 *   --shards N, --probe N        the tracer's shards and cost probe (gmc_trace_config)
 *
 * tests/gpu/trace_vs_ncu.sh runs these and compares the records with ncu's
 * Source page line by line (tests/gpu/trace_vs_ncu.py).
 */
#include "../../collectors/gm_collector.h"
#include "../../collectors/gmc_trace.h"

#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(e_));                                              \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

enum { BLOCK = 256, GRID = 64, NT = BLOCK * GRID };

/* ---- global-memory patterns: one access per line ------------------------------- */

enum {
    G_COALESCED, G_STRIDE2, G_STRIDE4, G_STRIDE8, G_STRIDE32, G_MISALIGNED, G_VEC8, G_VEC8_STRIDE2,
    G_VEC16, G_VEC16_SHIFT, G_BCAST4, G_BCAST16, G_PARTIAL20, G_SPARSE4, G_SPARSE16,
    G_STORE_STRIDE2, G_STORE_BCAST, G_STORE8,
    /* lanes sharing addresses without all sharing one: what is Nsight Compute's ideal? */
    G_PAIRS, G_HALVES_FAR, G_HALVES_NEAR, G_OCTETS_FAR, G_QUADS_FAR, G_QUADS_NEAR, G_QUADS16_FAR,
    G_BCAST_HALF, G_ALMOST_BCAST, G_N
};
static const char *const G_names[G_N] = {
    "coalesced 4 B", "stride 2 x 4 B", "stride 4 x 4 B", "stride 8 x 4 B", "stride 32 x 4 B",
    "misaligned 4 B (+4 B)", "8 B coalesced", "8 B stride 2", "16 B coalesced",
    "16 B misaligned start (+16 B)", "broadcast 4 B", "broadcast 16 B", "partial warp (lane < 20)",
    "sparse 4 B (lane % 8 == 0)", "sparse 16 B (lane % 8 == 0)", "store stride 2 x 4 B",
    "store broadcast 4 B", "store 8 B", "lane pairs share (64 B)",
    "two halves, 2 sectors apart", "two halves, adjacent words", "four octets, 4 sectors",
    "eight quads, 8 sectors", "eight quads, adjacent words", "16 lanes, four quads, 4 sectors",
    "broadcast to 16 lanes", "31 lanes one word, 1 another"};

template <int P>
__global__ void k_global(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    const float2 *in2 = (const float2 *)in;
    const float4 *in4 = (const float4 *)in;
    float v = 0.0f;
    if (P == G_COALESCED)
        v = in[i];
    if (P == G_STRIDE2)
        v = in[2 * i];
    if (P == G_STRIDE4)
        v = in[4 * i];
    if (P == G_STRIDE8)
        v = in[8 * i];
    if (P == G_STRIDE32)
        v = in[32 * i];
    if (P == G_MISALIGNED)
        v = in[i + 1];
    if (P == G_VEC8) {
        float2 a = in2[i];
        v = a.x + a.y;
    }
    if (P == G_VEC8_STRIDE2) {
        float2 a = in2[2 * i];
        v = a.x + a.y;
    }
    if (P == G_VEC16) {
        float4 a = in4[i];
        v = a.x + a.y + a.z + a.w;
    }
    if (P == G_VEC16_SHIFT) {
        float4 a = in4[i + 1];
        v = a.x + a.y + a.z + a.w;
    }
    if (P == G_BCAST4)
        v = in[blockIdx.x];
    if (P == G_BCAST16) {
        float4 a = in4[blockIdx.x];
        v = a.x + a.y + a.z + a.w;
    }
    if (P == G_PARTIAL20 && lane < 20)
        v = in[i];
    if (P == G_SPARSE4 && lane % 8 == 0)
        v = in[i];
    if (P == G_SPARSE16 && lane % 8 == 0) {
        float4 a = in4[i];
        v = a.x + a.y + a.z + a.w;
    }
    if (P == G_STORE_STRIDE2) {
        out[2 * i] = (float)lane;
        return;
    }
    if (P == G_STORE_BCAST) {
        out[blockIdx.x] = (float)lane;
        return;
    }
    if (P == G_STORE8) {
        ((float2 *)out)[i] = make_float2((float)lane, 1.0f);
        return;
    }
    int base = blockIdx.x * 1024 + (threadIdx.x >> 5) * 64;
    if (P == G_PAIRS)
        v = in[i >> 1];
    if (P == G_HALVES_FAR)
        v = in[base + (lane >> 4) * 16];
    if (P == G_HALVES_NEAR)
        v = in[base + (lane >> 4)];
    if (P == G_OCTETS_FAR)
        v = in[base + (lane >> 3) * 16];
    if (P == G_QUADS_FAR)
        v = in[blockIdx.x * 1024 + (lane >> 2) * 64 + (threadIdx.x >> 5)];
    if (P == G_QUADS_NEAR)
        v = in[base + (lane >> 2)];
    if (P == G_QUADS16_FAR && lane < 16)
        v = in[blockIdx.x * 1024 + (lane >> 2) * 64 + (threadIdx.x >> 5)];
    if (P == G_BCAST_HALF && lane < 16)
        v = in[base];
    if (P == G_ALMOST_BCAST)
        v = in[base + (lane == 31) * 16];
    out[i] = v;
}

/* ---- shared-memory patterns ------------------------------------------------------ */

enum {
    S_STRIDE1, S_STRIDE2, S_STRIDE4, S_STRIDE8, S_STRIDE16, S_STRIDE32, S_BCAST4, S_PARTIAL20,
    S_VEC8, S_VEC8_STRIDE2, S_VEC8_BCAST, S_VEC16, S_VEC16_PAIRS, S_VEC16_STRIDE2, S_VEC16_SPARSE,
    S_STORE_STRIDE2, S_STORE_STRIDE32, S_STORE16,
    /* a tile's row read by two rows of threads (a matrix multiply's A tile), its column by both */
    S_HALVES_BCAST, S_HALF_COLS, S_VEC16_HALVES, S_VEC8_HALVES, S_N
};
static const char *const S_names[S_N] = {
    "shared 4 B stride 1", "shared 4 B stride 2 (2-way)", "shared 4 B stride 4 (4-way)",
    "shared 4 B stride 8 (8-way)", "shared 4 B stride 16 (16-way)",
    "shared 4 B stride 32 (32-way)", "shared broadcast 4 B", "shared partial (lane < 20)",
    "shared 8 B", "shared 8 B stride 2", "shared 8 B broadcast", "shared 16 B",
    "shared 16 B lane pairs", "shared 16 B stride 2", "shared 16 B sparse (lane % 8 == 0)",
    "shared store 4 B stride 2", "shared store 4 B stride 32", "shared store 16 B",
    "shared two halves broadcast", "shared 16 words, each to 2 lanes",
    "shared 16 B two halves broadcast", "shared 8 B two halves broadcast"};

template <int P>
__global__ void k_shared(float *out)
{
    __shared__ __align__(16) float s[2048];
    int t = threadIdx.x, lane = t & 31;
    const float2 *s2 = (const float2 *)s;
    const float4 *s4 = (const float4 *)s;
    for (int k = t; k < 2048; k += blockDim.x)
        s[k] = (float)k;
    __syncthreads();
    float v = 0.0f;
    if (P == S_STRIDE1)
        v = s[lane];
    if (P == S_STRIDE2)
        v = s[2 * lane];
    if (P == S_STRIDE4)
        v = s[4 * lane];
    if (P == S_STRIDE8)
        v = s[8 * lane];
    if (P == S_STRIDE16)
        v = s[16 * lane];
    if (P == S_STRIDE32)
        v = s[32 * lane];
    if (P == S_BCAST4)
        v = s[7];
    if (P == S_PARTIAL20 && lane < 20)
        v = s[lane];
    if (P == S_VEC8) {
        float2 a = s2[lane];
        v = a.x + a.y;
    }
    if (P == S_VEC8_STRIDE2) {
        float2 a = s2[2 * lane];
        v = a.x + a.y;
    }
    if (P == S_VEC8_BCAST) {
        float2 a = s2[3];
        v = a.x + a.y;
    }
    if (P == S_VEC16) {
        float4 a = s4[lane];
        v = a.x + a.y + a.z + a.w;
    }
    if (P == S_VEC16_PAIRS) {
        float4 a = s4[lane / 2];
        v = a.x + a.y + a.z + a.w;
    }
    if (P == S_VEC16_STRIDE2) {
        float4 a = s4[2 * lane];
        v = a.x + a.y + a.z + a.w;
    }
    if (P == S_VEC16_SPARSE && lane % 8 == 0) {
        float4 a = s4[lane];
        v = a.x + a.y + a.z + a.w;
    }
    if (P == S_HALVES_BCAST)
        v = s[(lane >> 4) * 16 + 3];
    if (P == S_HALF_COLS)
        v = s[(lane & 15) + 64];
    if (P == S_VEC16_HALVES) {
        float4 a = s4[(lane >> 4) * 4 + 1];
        v = a.x + a.y + a.z + a.w;
    }
    if (P == S_VEC8_HALVES) {
        float2 a = s2[(lane >> 4) * 8 + 1];
        v = a.x + a.y;
    }
    __syncthreads();
    if (P == S_STORE_STRIDE2)
        s[2 * lane + 64 * (t >> 5)] = v + 1.0f;
    if (P == S_STORE_STRIDE32)
        s[32 * lane + (t >> 5)] = v + 2.0f;
    if (P == S_STORE16)
        ((float4 *)s)[lane + 32 * (t >> 5 & 3)] = make_float4(v, v, v, v);
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = v + s[t];
}

/* ---- the kernels for timing ---------------------------------------------------------- */

__global__ void k_bench_copy(const float4 *in, float4 *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

__global__ void k_bench_shared(float *out, int reps)
{
    __shared__ float s[1024];
    int t = threadIdx.x;
    s[t] = (float)t;
    __syncthreads();
    float v = 0.0f;
    for (int r = 0; r < reps; r++)
        v += s[(t + r) & 1023];
    out[blockIdx.x * blockDim.x + t] = v;
}

/* ---- the launch list ------------------------------------------------------------------ */

typedef void (*launch_fn)(float *in, float *out);

template <int P>
static void L_global(float *in, float *out)
{
    k_global<P><<<GRID, BLOCK>>>(in, out);
}
template <int P>
static void L_shared(float *in, float *out)
{
    (void)in;
    k_shared<P><<<4, BLOCK>>>(out);
}

typedef struct {
    const char *label;
    launch_fn fn;
} test_kernel;

template <int P>
static void S_add_global(std::vector<test_kernel> &v)
{
    S_add_global<P - 1>(v);
    v.push_back({G_names[P], L_global<P>});
}
template <>
void S_add_global<-1>(std::vector<test_kernel> &) {}
template <int P>
static void S_add_shared(std::vector<test_kernel> &v)
{
    S_add_shared<P - 1>(v);
    v.push_back({S_names[P], L_shared<P>});
}
template <>
void S_add_shared<-1>(std::vector<test_kernel> &) {}

static std::vector<test_kernel> S_kernels(void)
{
    std::vector<test_kernel> v;
    S_add_global<G_N - 1>(v);
    S_add_shared<S_N - 1>(v);
    return v;
}

static const size_t BENCH_N = (size_t)16 << 20;   /* float4s: 256 MiB each way */
static const int BENCH_SHARED_REPS = 256;

typedef struct {
    float *in, *out;
    float4 *big_in, *big_out;
} bufs;

static void S_bench(const bufs *b, int which)
{
    if (which == 0)
        k_bench_copy<<<1056, 512>>>(b->big_in, b->big_out, BENCH_N);
    else
        k_bench_shared<<<1024, 1024>>>(b->out, BENCH_SHARED_REPS);   /* out holds 1M floats */
}
static const char *const bench_names[2] = {"bench copy 512 MiB", "bench shared 256 loads/thread"};

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Median and minimum of reps launches of bench kernel `which`, each timed by events (ms). */
static void S_time(const bufs *b, int which, int reps, double *median, double *min)
{
    std::vector<double> ms;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(e0));
        S_bench(b, which);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float f = 0;
        CK(cudaEventElapsedTime(&f, e0, e1));
        ms.push_back(f);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    std::sort(ms.begin(), ms.end());
    *median = ms[ms.size() / 2];
    *min = ms[0];
}

static void S_time_state(const bufs *b, const char *state)
{
    for (int w = 0; w < 2; w++) {
        double med, mn;
        S_time(b, w, 15, &med, &mn);
        printf("T\t%s\t%s\t%.4f\t%.4f\n", state, bench_names[w], med, mn);
    }
}

static bufs S_setup(void)
{
    bufs b;
    size_t n = (size_t)64 * NT + 1024;
    CK(cudaMalloc(&b.in, n * sizeof(float)));
    CK(cudaMalloc(&b.out, n * sizeof(float)));
    CK(cudaMemset(b.in, 0, n * sizeof(float)));
    CK(cudaMalloc(&b.big_in, BENCH_N * sizeof(float4)));
    CK(cudaMalloc(&b.big_out, BENCH_N * sizeof(float4)));
    CK(cudaMemset(b.big_in, 0, BENCH_N * sizeof(float4)));
    CK(cudaDeviceSynchronize());
    return b;
}

static void S_launch_all(const bufs *b, const std::vector<test_kernel> &ks)
{
    for (const test_kernel &k : ks) {
        k.fn(b->in, b->out);
        CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());
}

/* ---- records ------------------------------------------------------------------------- */

static void S_write_pass(FILE *f, const gmc_trace_pass *p, const std::vector<test_kernel> &ks,
                         const bufs *b)
{
    fprintf(f, "# gmc_trace records: L launch label function records pcs_outside fn_pc fn_size; R launch "
               "file line pc counters[%d]; A launch pc alloc counters[%d]\n", GMT_NC, GMT_NC);
    for (size_t i = 0; i < p->n_launches; i++) {
        const gmc_trace_launch *L = &p->launches[i];
        fprintf(f, "L\t%zu\t%s\t%s\t%zu\t%zu\t0x%llx\t%llu\n", i,
                i < ks.size() ? ks[i].label : "-", L->function, L->n_records, L->pcs_outside,
                (unsigned long long)L->function_pc, (unsigned long long)L->function_size);
        size_t r = 0;
        for (size_t j = 0; j < L->n_rows; j++) {
            const gmc_trace_row *row = &L->rows[j];
            if (row->alloc == GMC_TRACE_ALL) {
                const gm_sl_record *rec = &L->records[r++];
                fprintf(f, "R\t%zu\t%s\t%lld\t0x%llx", i, rec->file ? rec->file : "-", rec->line,
                        row->pc);
            } else {
                const char *name = "?";
                if (row->alloc >= 0) {
                    unsigned long long base = p->allocs[row->alloc].base;
                    name = base == (unsigned long long)(uintptr_t)b->in ? "in"
                         : base == (unsigned long long)(uintptr_t)b->out ? "out" : "other";
                } else {
                    name = "none";
                }
                fprintf(f, "A\t%zu\t0x%llx\t%s", i, row->pc, name);
            }
            for (int k = 0; k < GMT_NC; k++)
                fprintf(f, "\t%lld", row->c[k]);
            fputc('\n', f);
        }
    }
}

/* Totals of one pass: sum of every counter over every launch's totals. */
static void S_totals(const gmc_trace_pass *p, long long tot[GMT_NC])
{
    for (int k = 0; k < GMT_NC; k++)
        tot[k] = 0;
    for (size_t i = 0; i < p->n_launches; i++)
        for (size_t j = 0; j < p->launches[i].n_rows; j++)
            if (p->launches[i].rows[j].alloc == GMC_TRACE_ALL)
                for (int k = 0; k < GMT_NC; k++)
                    tot[k] += p->launches[i].rows[j].c[k];
}

static int S_fail(const char *what, const gmc_error *err)
{
    printf("FAIL %s: %s\n", what, err ? err->message : "");
    return 1;
}

/* ---- counters (--counters) ------------------------------------------------------------ */

static const char *const C_metrics[] = {
    "smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "dram__bytes_read.sum",
    "gpu__time_duration.sum"};
enum { C_NM = sizeof C_metrics / sizeof C_metrics[0] };

typedef struct {
    const bufs *b;
    const std::vector<test_kernel> *ks;
} c_user;

static int C_launch(void *user, size_t i)
{
    const c_user *u = (const c_user *)user;
    if (i < 2)
        S_bench(u->b, (int)i);
    else
        (*u->ks)[i == 2 ? G_STRIDE2 : G_N + S_STRIDE4].fn(u->b->in, u->b->out);
    return cudaGetLastError() != cudaSuccess;
}

static void C_state(gmc_session *s, c_user *u, const char *state)
{
    double v[4 * C_NM];
    gmc_error err;
    gmc_status st = gmc_profile_batch(s, 4, NULL, C_launch, u, v, &err);
    if (st != GMC_OK) {
        printf("C\t%s\tERROR\t%s\n", state, err.message);
        return;
    }
    for (int i = 0; i < 4; i++) {
        const char *name = i < 2 ? bench_names[i] : (*u->ks)[i == 2 ? G_STRIDE2 : G_N + S_STRIDE4].label;
        for (int m = 0; m < C_NM; m++)
            printf("C\t%s\t%s\t%s\t%.6g\n", state, name, C_metrics[m], v[i * C_NM + m]);
    }
}

static void CUPTIAPI S_no_callback(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                    const void *data)
{
    (void)user;
    (void)dom;
    (void)cbid;
    (void)data;
}

/* Whether a CUPTI callback subscriber can be had now (the injection library's launch
 * callbacks need one). */
static void S_probe_cupti(const char *when)
{
    CUpti_SubscriberHandle h;
    CUptiResult r = cuptiSubscribe(&h, (CUpti_CallbackFunc)S_no_callback, NULL);
    const char *desc = "";
    cuptiGetResultString(r, &desc);
    printf("C\tprobe\tcuptiSubscribe %s: %d %s\n", when, (int)r, desc);
    if (r == CUPTI_SUCCESS)
        cuptiUnsubscribe(h);
}

static bool S_step(const char *what, gmc_status st, const gmc_error *err)
{
    printf("C\tstep\t%s: %s%s%s\n", what, gmc_status_name(st), st ? ": " : "",
           st ? err->message : "");
    return st == GMC_OK;
}

/* The range profiler and the tracer in one process: what works in which order, and the
 * counters of untraced launches unpatched and patched (patch disabled). */
static int S_counters(gmc_trace *t, const bufs *b, const std::vector<test_kernel> &ks)
{
    gmc_error err = {GMC_OK, ""};
    gmc_trace_pass p1, p2;
    S_probe_cupti("with the sanitizer subscribed");
    if (!S_step("pass 1 begin", gmc_trace_begin(t, &err), &err))
        return 1;
    S_launch_all(b, ks);
    if (!S_step("pass 1 end", gmc_trace_end(t, &p1, &err), &err))
        return 1;
    if (!S_step("detach", gmc_trace_detach(t, &err), &err))
        return 1;
    S_probe_cupti("after detaching");
    gmc_config cfg = gmc_config_default();
    cfg.metrics = C_metrics;
    cfg.n_metrics = C_NM;
    cfg.max_launches = 4;
    gmc_session *s = NULL;
    int fails = 0;
    if (S_step("range profiler session, tracer detached", gmc_session_open(&cfg, &s, &err), &err)) {
        c_user u = {b, &ks};
        C_state(s, &u, "unpatched");
        if (S_step("patch while detached", gmc_trace_set_patched(t, true, &err), &err)) {
            C_state(s, &u, "patched-disabled");
            S_step("unpatch while detached", gmc_trace_set_patched(t, false, &err), &err);
        }
        C_state(s, &u, "unpatched-again");
        gmc_session_close(s);
    } else {
        /* CUDA 13.0 on the H200: CUPTI refuses once the sanitizer has subscribed, even
         * after it unsubscribed (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): a
         * limit of the platform, recorded, not a failure of the tracer */
        printf("C\tlimit\tno range profiler in a process where the sanitizer subscribed\n");
    }
    if (!S_step("attach again", gmc_trace_attach(t, &err), &err))
        return 1;
    if (!S_step("pass 2 begin", gmc_trace_begin(t, &err), &err))
        return 1;
    S_launch_all(b, ks);
    if (!S_step("pass 2 end", gmc_trace_end(t, &p2, &err), &err))
        return 1;
    long long a[GMT_NC], c[GMT_NC];
    S_totals(&p1, a);
    S_totals(&p2, c);
    bool same = p2.n_launches == p1.n_launches;
    for (int k = 0; k < GMT_NC; k++)
        same = same && a[k] == c[k];
    printf("C\tpass 2 after the profiler: %zu launches, totals %s pass 1's\n", p2.n_launches,
           same ? "equal" : "DIFFER from");
    fails += !same;
    gmc_trace_pass_free(&p1);
    gmc_trace_pass_free(&p2);
    return fails ? 1 : 0;
}

/* The other order: the range profiler first, then the tracer; with `closed`,
 * the profiler session is closed before the tracer subscribes. */
static int S_profiler_first(bool closed)
{
    gmc_error err = {GMC_OK, ""};
    gmc_config cfg = gmc_config_default();
    cfg.metrics = C_metrics;
    cfg.n_metrics = C_NM;
    cfg.max_launches = 4;
    gmc_session *s = NULL;
    if (!S_step("range profiler session first", gmc_session_open(&cfg, &s, &err), &err))
        return 1;
    std::vector<test_kernel> ks = S_kernels();
    bufs b = S_setup();
    c_user u = {&b, &ks};
    if (closed) {
        S_launch_all(&b, ks);
        C_state(s, &u, "profiler first, then closed");
        gmc_session_close(s);
        s = NULL;
    }
    gmc_trace_config tc = gmc_trace_config_default();
    gmc_trace *t = NULL;
    bool ok = S_step(closed ? "tracer after the profiler was closed" : "tracer after the profiler",
                     gmc_trace_open(&tc, &t, &err), &err);
    if (!closed) {
        S_launch_all(&b, ks);
        C_state(s, &u, "profiler first, tracer subscribed");
    }
    if (ok && S_step("pass begin", gmc_trace_begin(t, &err), &err)) {
        gmc_trace_pass p;
        S_launch_all(&b, ks);
        if (S_step("pass end", gmc_trace_end(t, &p, &err), &err)) {
            size_t lines = 0;
            for (size_t i = 0; i < p.n_launches; i++)
                lines += p.launches[i].n_records && p.launches[i].records[0].line > 0;
            printf("C\tprofiler first%s: %zu launches traced, %zu untraced, %zu with lines\n",
                   closed ? " and closed" : "", p.n_launches, p.launches_untraced, lines);
            gmc_trace_pass_free(&p);
        }
    }
    if (s)
        gmc_session_close(s);
    gmc_trace_close(t);
    return ok ? 0 : 1;
}

/* ---- main -------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    bool plain = false, counters = false, profiler_first = false, closed_first = false;
    unsigned probe = 0;
    const char *records = NULL;
    long shards = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--plain"))
            plain = true;
        else if (!strcmp(argv[i], "--counters"))
            counters = true;
        else if (!strcmp(argv[i], "--profiler-first"))
            profiler_first = true;
        else if (!strcmp(argv[i], "--profiler-closed-first"))
            closed_first = true;
        else if (!strcmp(argv[i], "--probe") && i + 1 < argc)
            probe = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--records") && i + 1 < argc)
            records = argv[++i];
        else if (!strcmp(argv[i], "--shards") && i + 1 < argc)
            shards = strtol(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: trace_vs_ncu [--plain | --counters | --profiler-first | "
                            "--profiler-closed-first | --records FILE] [--shards N] "
                            "[--probe N]\n");
            return 2;
        }
    }
    if (profiler_first || closed_first)
        return S_profiler_first(closed_first);
    std::vector<test_kernel> ks = S_kernels();
    if (plain) {
        bufs b = S_setup();
        S_launch_all(&b, ks);
        printf("plain: %zu kernels launched\n", ks.size());
        return 0;
    }
    /* the tracer first: it must see every module load and allocation */
    gmc_trace_config cfg = gmc_trace_config_default();
    if (shards > 0)
        cfg.shards = (size_t)shards;
    cfg.probe = probe;
    printf("shards: %zu, probe: %u\n", cfg.shards, cfg.probe);
    gmc_trace *t = NULL;
    gmc_error err;
    double t0 = S_now();
    if (gmc_trace_open(&cfg, &t, &err) != GMC_OK)
        return S_fail("gmc_trace_open", &err);
    printf("open: %.3f s\n", S_now() - t0);
    bufs b = S_setup();
    S_launch_all(&b, ks);      /* loads the modules, untraced */
    if (counters) {
        int rc = S_counters(t, &b, ks);
        gmc_trace_close(t);
        return rc;
    }
    int fails = 0;
    S_time_state(&b, "unpatched-before");

    /* pass 1: every test kernel, then the bench kernels (timed inside the pass) */
    gmc_trace_pass p1, p2;
    t0 = S_now();
    if (gmc_trace_begin(t, &err) != GMC_OK)
        return S_fail("begin 1", &err);
    double t_begin = S_now() - t0;
    S_launch_all(&b, ks);
    double t_launch = S_now() - t0 - t_begin;
    if (gmc_trace_end(t, &p1, &err) != GMC_OK)
        return S_fail("end 1", &err);
    double t_pass = S_now() - t0;
    printf("pass 1: %zu launches traced, %zu untraced, %zu modules patched, %zu allocations, "
           "%lld dropped; begin %.3f s, launches %.3f s, whole pass %.3f s\n",
           p1.n_launches, p1.launches_untraced, p1.modules_patched, p1.n_allocs, p1.dropped,
           t_begin, t_launch, t_pass);
    if (p1.n_launches != ks.size()) {
        printf("FAIL pass 1 traced %zu launches, expected %zu\n", p1.n_launches, ks.size());
        fails++;
    }
    if (p1.dropped) {
        printf("FAIL pass 1 dropped %lld accesses\n", p1.dropped);
        fails++;
    }
    for (size_t i = 0; i < p1.n_launches; i++) {
        const gmc_trace_launch *L = &p1.launches[i];
        bool lines = L->n_records > 0 && L->records[0].line > 0;
        printf("launch %2zu %-36s %-28.28s records %2zu outside %zu %s\n", i,
               i < ks.size() ? ks[i].label : "-", L->function, L->n_records, L->pcs_outside,
               lines ? "lines" : "NO LINES");
        if ((!L->n_records || L->pcs_outside || !lines) && !probe)   /* a probe may count nothing */
            fails++;
    }
    if (records) {
        FILE *f = fopen(records, "w");
        if (!f) {
            perror(records);
            return 2;
        }
        S_write_pass(f, &p1, ks, &b);
        fclose(f);
    }

    /* the cost of a traced launch: the bench kernels alone in a pass */
    for (int w = 0; w < 2; w++) {
        gmc_trace_pass pb;
        t0 = S_now();
        if (gmc_trace_begin(t, &err) != GMC_OK)
            return S_fail("begin bench", &err);
        double med, mn;
        S_time(&b, w, 3, &med, &mn);
        if (gmc_trace_end(t, &pb, &err) != GMC_OK)
            return S_fail("end bench", &err);
        printf("T\ttraced\t%s\t%.4f\t%.4f\twhole pass of 3 launches %.3f s\n", bench_names[w], med,
               mn, S_now() - t0);
        gmc_trace_pass_free(&pb);
    }
    S_time_state(&b, "unpatched-after");
    if (gmc_trace_set_patched(t, true, &err) != GMC_OK)
        return S_fail("set_patched(true)", &err);
    S_time_state(&b, "patched-disabled");
    if (gmc_trace_set_patched(t, false, &err) != GMC_OK)
        return S_fail("set_patched(false)", &err);
    S_time_state(&b, "unpatched-again");

    /* pass 2 after unpatching and patching again: the same counts */
    if (gmc_trace_begin(t, &err) != GMC_OK)
        return S_fail("begin 2", &err);
    S_launch_all(&b, ks);
    if (gmc_trace_end(t, &p2, &err) != GMC_OK)
        return S_fail("end 2", &err);
    long long a[GMT_NC], c[GMT_NC];
    S_totals(&p1, a);
    S_totals(&p2, c);
    bool same = true;
    for (int k = 0; k < GMT_NC; k++)
        same = same && a[k] == c[k];
    printf("pass 2 totals %s pass 1's: inst %lld/%lld sectors %lld/%lld wavefronts %lld/%lld\n",
           same ? "equal" : "DIFFER from", c[GMT_INST], a[GMT_INST], c[GMT_SECTORS],
           a[GMT_SECTORS], c[GMT_WAVEFRONTS], a[GMT_WAVEFRONTS]);
    fails += !same;
    gmc_trace_pass_free(&p1);
    gmc_trace_pass_free(&p2);
    gmc_trace_close(t);
    printf("%s\n", fails ? "FAIL" : "ok");
    return fails ? 1 : 0;
}
