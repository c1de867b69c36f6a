/* runner.h — run the suite table (suite.h) into a results model (results.h).
 *
 * For every selected experiment, in table order: expand its rows into cases;
 * set each up (a variant that cannot run at a size is recorded as not-run with
 * the reason, never dropped); reset + launch + check it against the CPU
 * reference (a mismatch marks the run failed with index, value and expected
 * value; it is still reported and timed); time it (device events around each
 * launch alone, warm-up discarded, every sample kept, L2 flushed between
 * repetitions of bandwidth-bound experiments when asked); hand the
 * experiment's validated GPU cases to the profile hook, with those of the
 * experiments after it up to profile_batch cases, while a thread of its own
 * makes the model's predictions of the experiment's cases; validate and time
 * the on_host variants (CPU baselines, with CLOCK_MONOTONIC, fewer samples
 * when each takes long) on another thread while that hook runs, once the
 * model's threads are done; tear the experiment's cases down together once
 * they are profiled (so cases can share inputs built once: gm_shared_get).
 *
 * Library code: returns a status and fills gm_error; prints nothing (progress
 * goes through the callback).
 */
#ifndef GM_RUNNER_H
#define GM_RUNNER_H

#include "suite.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GM_SUITE_DEFAULT_WARMUP 3
#define GM_SUITE_DEFAULT_REPEAT 20
/* Buffer of the device-to-device copy that every effective bandwidth is
 * compared with: 512 MiB copied, 1 GiB of traffic per sample. */
#define GM_SUITE_COPY_BYTES ((size_t)512 << 20)
#define GM_SUITE_COPY_REPEAT 10
/* on_host variants (CPU baselines): the validation run is their one warm-up, and sampling stops
 * after this many samples once they have taken this long. */
#define GM_SUITE_HOST_MIN_REPS 3
#define GM_SUITE_HOST_BUDGET_MS 300.0
/* GPU kernels: repetitions are capped so one case's samples take about this long. */
#define GM_SUITE_GPU_MIN_REPS 5
#define GM_SUITE_GPU_BUDGET_MS 300.0

typedef struct {
    const char *const *only;      /* experiment ids; n_only == 0: all */
    size_t n_only;
    const char *const *skip;      /* experiment ids left out */
    size_t n_skip;
    const char *const *variants;  /* "exp/variant" or "variant"; n_variants == 0: all */
    size_t n_variants;
    bool quick;                   /* the --quick size set */
    int device;                   /* CUDA device ordinal */
    int warmup;                   /* launches discarded before timing; < 0: default */
    int repeat;                   /* timed samples per case; <= 0: default */
    bool time_l2_flush;           /* flush L2 before every timed rep of bandwidth-bound experiments */
    bool validate_only;           /* no timing, no profiling, no copy bandwidth */
    double profile_max_ms;        /* cases whose launch takes longer are validated and timed
                                     but not profiled (a note says so); 0: no limit */
    /* NULL: no counters.  Otherwise called with the cases of one or more
     * consecutive experiments that set up, ran on the GPU and passed their
     * check, and the matching runs (runs[i] belongs to cases[i]; add metrics
     * to them).  The cases are live: launch them again as often as needed,
     * calling variant->reset before each launch unless variant->idempotent.
     * A non-OK status stops the suite. */
    gm_status (*profile)(void *ctx, gm_case *const *cases, size_t n, gm_run *const *runs,
                         gm_error *err);
    void *profile_ctx;
    /* How many cases experiments may gather for one profile call: an
     * experiment's cases stay set up after it ran, and are profiled with the
     * next experiments', while the next one's cases would still bring them to
     * at most this many, the device memory they hold stays under a quarter of
     * the device's, and the suite goes on.  0: each experiment on its own. */
    size_t profile_batch;
    /* Called before each case: k = 1..n over all selected cases. */
    void (*progress)(void *ctx, const char *exp, const char *variant, size_t k, size_t n);
    void *progress_ctx;
    /* NULL, or filled with where the wall time went (seconds) */
    struct gm_suite_times *times;
} gm_suite_opts;

/* Wall time of the suite by phase, summed over the cases (seconds): the
 * device's reference bandwidths, setup (inputs built and copied), the model's
 * prediction (CPU, on a thread of its own while the experiment is profiled:
 * the wall time it adds after the profiling), the validation launch and its
 * check against the CPU reference, the timed repetitions, the profile hook. */
typedef struct gm_suite_times {
    double device, setup, model, validate, timing, profile;
} gm_suite_times;

/* Run the selected part of the suite, appending experiments and runs to out
 * (initialised by the caller with gm_results_init) and filling out->device
 * (what cudart gives: name, compute capability, SMs, memory clock and bus
 * width, theoretical and measured copy bandwidth, L2, memory, versions; the
 * chip and CUPTI version are the collector's) and the timing and size-set
 * fields of out->collection.  A CUDA error stops the run: the status is
 * returned with a message naming the call, and out keeps what was done.
 * GM_ERR_NO_DEVICE when there is no usable GPU. */
gm_status gm_suite_run(const gm_suite_opts *o, gm_results *out, gm_error *err);

/* Set one case up: the row's describe (launch shape, bytes, kernel name,
 * from the parameters alone), then its setup, which starts from what
 * describe filled.  The runner sets every case up this way; so must any
 * other caller of a row's setup.  Needs the toolkit (runner.c). */
gm_status gm_case_setup(gm_case *c, gm_error *err);

/* Check the selection before anything runs: an unknown experiment id or
 * variant name is an error that lists the valid ones (BabelStream's --only);
 * so is a selection that leaves nothing to run. */
gm_status gm_suite_select_check(const gm_suite_opts *o, gm_error *err);

/* Whether the selection includes experiment e / row v. */
bool gm_suite_selects_experiment(const gm_suite_opts *o, const gm_experiment_def *e);
bool gm_suite_selects_variant(const gm_suite_opts *o, const gm_variant *v);

#ifdef __cplusplus
}
#endif

#endif
