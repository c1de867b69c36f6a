/* case.h — what every experiment builds on: its description, its rows, its
 * cases, and the host helpers their setup and check share.
 *
 * An experiment (gm_experiment_def) asks one question; each of its variants
 * is one row (gm_variant): which experiment, its name, what its layout is,
 * the parameters it sweeps, and the functions that describe it, set it up,
 * launch it, restore its inputs, check it against the CPU reference and free
 * it.  A case (gm_case) is one row at one parameter point.  The experiments
 * include this header; the list of experiments and the table of all their
 * rows are suite.h's, one layer up.
 *
 * Life of a case (one row at one parameter point), driven by runner.c:
 *   describe   fill c->launch, bytes, kernel name from the parameters alone;
 *              the runner calls it before setup (gm_case_setup), so no setup
 *              repeats it
 *   setup      allocate, fill inputs with deterministic non-trivial data,
 *              compute the CPU reference, ask the runtime for the kernel's
 *              registers (gm_case_query_kernel); may return
 *              GM_ERR_UNSUPPORTED with a reason (e.g. "B needs 2.25 MiB of
 *              constant memory; 64 KiB exist"): the run is recorded as
 *              not-run with that reason, never dropped silently
 *   reset      poison outputs (and restore inputs the kernel overwrites);
 *              called before the validation launch and before every launch
 *              that is profiled or timed, outside the measured region
 *   launch     enqueue the kernel(s) on stream s; check the launch error
 *   check      copy the output back and compare it with the reference
 *   teardown   free everything (also after a failed setup)
 */
#ifndef GM_CASE_H
#define GM_CASE_H

/* This header needs no CUDA toolkit: the table, describe, the references, the
 * traces and their tests build on any machine; what launches kernels
 * declares itself in harness.h. */
#include "../core/gm_error.h"
#include "../core/results.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- parameters and sweeps ------------------------------------------------ */

#define GM_MAX_PARAMS 6
#define GM_MAX_VALUES 40   /* 33 alignment offsets 0..128 in 4-byte steps, and GM_END */
#define GM_END LLONG_MIN   /* terminates a value list (0 is a legal value) */

/* A row's parameter: its values at the full size set and at --quick.  The
 * runner expands the cartesian product of all parameters of a row into cases.
 * An empty quick list means "same as full". */
typedef struct {
    const char *name;
    long long full[GM_MAX_VALUES];
    long long quick[GM_MAX_VALUES];
} gm_sweep;

#define GM_VALUES(...) {__VA_ARGS__, GM_END}
/* The quick list of a parameter whose values stay the same at --quick:
 * {"stride", GM_VALUES(1), GM_AS_FULL}.  (Leaving the list out means the
 * same, but an incomplete initialiser is what clang's
 * -Wmissing-field-initializers warns about.) */
#define GM_AS_FULL {GM_END}

/* The values of a sweep at the chosen size set, GM_END-terminated.  The quick
 * list counts as empty (so the full list is used) when it was left out of the
 * initialiser (no GM_END in it) or starts with GM_END; a quick list that
 * starts with 0, such as GM_VALUES(0, 96), is a real list. */
const long long *gm_sweep_values(const gm_sweep *s, bool quick);
/* Number of values in a GM_END-terminated list (at most GM_MAX_VALUES);
 * -1 when the list has no terminator. */
int gm_values_len(const long long *v);

typedef struct {
    const char *name;
    long long value;
} gm_kparam;

/* ---- cases ---------------------------------------------------------------- */

typedef struct gm_variant gm_variant;
struct gm_trace;   /* core/model.h */

/* A CUDA stream as the table's function types name it: the very type of
 * cudaStream_t (struct CUstream_st *), declared here without the toolkit. */
typedef struct CUstream_st *gm_stream;

typedef struct gm_case {
    const gm_variant *variant;
    bool quick;                      /* --quick size set */
    gm_kparam params[GM_MAX_PARAMS];
    int n_params;
    void *state;                     /* the experiment's own data, owned by setup/teardown */
    /* filled by setup: */
    gm_launch launch;                /* grid, block, shared bytes (registers: -1 if unknown) */
    long long bytes_read;            /* bytes the computation must read, each input once */
    long long bytes_written;         /* bytes it must write, each output once */
    long long flops;                 /* -1 when not meaningful */
    char kernel[128];                /* __global__ function name */
    char note[256];                  /* optional note for the report ("" if none) */
} gm_case;

/* Value of a parameter of the case; `fallback` when the row has no such parameter. */
long long gm_case_param(const gm_case *c, const char *name, long long fallback);

/* ---- experiments and their rows ------------------------------------------- */

typedef struct {
    const char *id;             /* "coalescing": used by --only, in results, in the report */
    const char *title;          /* "Coalesced vs strided reads" */
    const char *summary;        /* what it demonstrates (our words, a few sentences) */
    const char *source;         /* which seed document's claim it tests */
    const char *sweep_param;    /* x axis of the line chart, or NULL */
    bool sweep_log2;
    const char *series_param;   /* splits lines besides the variant, or NULL */
    bool bandwidth_bound;       /* its best layout should approach copy bandwidth */
    const char *baseline_variant;
    /* The question the experiment exists to answer, and the contrast that
     * answers it: side a (the layout suspected slower) against side b, each
     * "variant" or "variant@param=value", compared at matched values of every
     * other parameter (contrast_at picks the point when several match).  The
     * report's headline is this contrast, never fastest against slowest. */
    const char *question;
    const char *contrast_a;
    const char *contrast_b;
    const char *contrast_at;        /* "param=value,..." or NULL: the largest comparable work */
    const char *contrast_counter;   /* ld_spr | st_spr | shared_wpi | dram_bytes |
                                       ld_sectors | ld_requests | none */
} gm_experiment_def;

struct gm_variant {
    const gm_experiment_def *experiment;
    const char *name;           /* unique within the experiment: "stride", "float4", "planar" */
    const char *layout;         /* one line: what the layout/access pattern is */
    /* Which variant of its experiment this row is: a value of the enum in the
     * experiment's header (kernels/<experiment>/<experiment>.h).  describe,
     * setup, check and the trace switch on it; no code compares variant names. */
    int kind;
    gm_sweep params[GM_MAX_PARAMS];
    /* setup, reset, launch, check, teardown: the GPU side (kernels/<experiment>/kernels.cu);
     * NULL in a build without the CUDA toolkit (GM_GPU below). */
    gm_status (*setup)(gm_case *c, gm_error *err);
    gm_status (*reset)(gm_case *c, gm_stream s, gm_error *err);
    gm_status (*launch)(gm_case *c, gm_stream s, gm_error *err);
    gm_status (*check)(gm_case *c, gm_check *out, gm_error *err);
    void (*teardown)(gm_case *c);
    /* When true the kernel may be launched repeatedly without reset (it does not
     * read what it writes); the profiler then skips resets between passes. */
    bool idempotent;
    /* The launch runs a CPU version synchronously (e.g. the serial DP baseline):
     * timed with a host monotonic clock, validated, never profiled.  Its reset,
     * launch and check make no CUDA call (the stream they get is NULL): the
     * runner validates and times it on a thread of its own while the profiler
     * replays the GPU cases (runner.h).  Its setup may use CUDA. */
    bool on_host;
    /* Address trace for the model (core/model.h); NULL until the variant has one. */
    gm_status (*trace)(const gm_case *c, struct gm_trace *t, gm_error *err);
    /* Fill c->launch, bytes_read, bytes_written, flops, kernel and note from
     * the case's parameters alone, with no CUDA call and no allocation, so
     * that `list`, the table tests and a machine without a GPU can say what a
     * case moves; the runner calls it before setup (gm_case_setup, runner.h).
     * Every row has one (tests/test_suite.c). */
    gm_status (*describe)(gm_case *c, gm_error *err);
};

/* For the rows (kernels/<experiment>/<experiment>.c).  The GPU side (setup,
 * reset, launch, check, teardown in kernels/<experiment>/kernels.cu) exists
 * only in a build with the CUDA toolkit; without it the rows keep describe
 * and trace, so the table, its tests, `list` and the model work anywhere. */
#ifdef GM_HAVE_CUDA
#define GM_GPU(fn) fn
#else
#define GM_GPU(fn) NULL
#endif

/* describe and the GPU functions every variant of an experiment shares; each
 * variant has its own launch function and kind. */
#define GM_FNS(p)                                                                 \
    .describe = p##_describe, .setup = GM_GPU(p##_setup), .reset = GM_GPU(p##_reset), \
    .check = GM_GPU(p##_check), .teardown = GM_GPU(p##_teardown)

/* Expand row v into its cases at the chosen size set.  Returns the number of
 * cases (at most max); params are filled, nothing is allocated.  With out ==
 * NULL it only counts them (max is ignored).  Order: the first parameter
 * varies slowest, the last fastest. */
size_t gm_variant_cases(const gm_variant *v, bool quick, gm_case *out, size_t max);

/* ---- the launch shape (case.c) -------------------------------------------- */

/* For describe: the launch shape, registers unknown (-1) until setup asks the
 * runtime (gm_case_query_kernel); shared_bytes is the static shared memory the
 * kernel declares (no suite kernel asks for dynamic shared memory). */
void gm_case_set_shape(gm_case *c, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, long long shared_bytes);

/* ---- helpers the experiments share, host side (harness.c) ---------------- */

/* Deterministic pseudo-random data (splitmix64, Steele, Lea and Flood 2014),
 * never all zeros.  Element i
 * of every fill is a function of (seed, i) alone: gm_rand_at(seed, i) is the
 * (i+1)-th output of the splitmix64 stream started at seed, so a fill can be
 * produced in any order (e.g. straight into a transposed layout). */
uint64_t gm_rand_at(uint64_t seed, uint64_t i);
float gm_uniform_f32_at(uint64_t seed, uint64_t i, float lo, float hi);  /* = element i of the fill */
void gm_fill_uniform_f32(float *h, size_t n, uint64_t seed, float lo, float hi);
void gm_fill_uniform_f64(double *h, size_t n, uint64_t seed, double lo, double hi);
void gm_fill_bytes(unsigned char *h, size_t n, uint64_t seed);
uint64_t gm_rand_next(uint64_t *state);     /* splitmix64 step: the suite's one generator */
/* Uniform float lo + (hi-lo)*u from the next output of *state, u in [0, 1)
 * from its top 24 bits; may round to hi (the sparse matrices' values). */
float gm_rand_uniform_f32(uint64_t *state, float lo, float hi);

/* Run fn(ctx, begin, end) over [0, n) split into contiguous chunks of at
 * least min_chunk items on up to 16 host threads (the caller's included; one
 * when threads cannot start); returns when all are done.  Setup and check use
 * it to fill inputs and compute references of hundreds of MiB in tens of
 * milliseconds.  fn must only write its own range.  GM_PAR_ELEMS: a chunk size
 * for loops over single elements (a thread costs tens of microseconds). */
#define GM_PAR_ELEMS ((size_t)1 << 15)
void gm_parallel_for(size_t n, size_t min_chunk, void (*fn)(void *ctx, size_t begin, size_t end),
                     void *ctx);

/* Host memory for a CPU baseline's working set (the serial DP's table):
 * aligned to 2 MiB and, where the kernel's transparent huge pages are on
 * (madvise or always), backed by them, so that its time does not depend on
 * what the allocator did before: the column walk of the serial DP at
 * n = 1024 touches a new 4 KiB page a step, and took 377 ms in one main job
 * and 586 ms in another of the next commit on the same H100, when more was
 * allocated before it (bench/results/suite-ab-2026-12-07-1b528eb.txt).
 * Never NULL (as gm_xmalloc); free() it. */
void *gm_host_table_alloc(size_t bytes);

/* Inputs shared by the cases of one experiment.  The runner keeps every case
 * of an experiment set up until the experiment ends, so cases with the same
 * input (same size and seed, another block size or variant) can build it once:
 * the first gm_shared_get of a key allocates `size` zeroed bytes and calls
 * build(obj, ctx) on them; later calls with the key return the same object;
 * each case calls gm_shared_release(obj) in teardown and the last release
 * calls destroy(obj) and frees it.  On a failed build destroy runs at once and
 * the status is returned.  Not thread-safe (setup and teardown are serial). */
gm_status gm_shared_get(const char *key, size_t size,
                        gm_status (*build)(void *obj, void *ctx, gm_error *err),
                        void (*destroy)(void *obj), void *ctx, void **obj, gm_error *err);
void gm_shared_release(void *obj);   /* NULL: nothing */

/* Compare device output (already copied to host `got`) with the reference.
 * |got-ref| <= atol + rtol*|ref| per element; NaN never passes.  Fills out
 * (status, checked, mismatches, max_abs_error, first mismatch, reason). */
void gm_compare_f32(const float *got, const float *ref, size_t n, double atol, double rtol,
                    gm_check *out);
void gm_compare_f64(const double *got, const double *ref, size_t n, double atol, double rtol,
                    gm_check *out);
void gm_compare_u8(const unsigned char *got, const unsigned char *ref, size_t n, gm_check *out);
void gm_compare_i32(const int *got, const int *ref, size_t n, gm_check *out);
void gm_compare_i64(const long long *got, const long long *ref, size_t n, gm_check *out);

#ifdef __cplusplus
}
#endif

#endif
