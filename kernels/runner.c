/* runner.c — runs the suite table into a results model; see runner.h. */
#include "runner.h"
#include "harness.h"

#include "../core/buf.h"
#include "../core/model.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- device description --------------------------------------------------- */

#define S_CUDA_OR(call, label)                                                    \
    do {                                                                          \
        cudaError_t rc_ = (call);                                                 \
        if (rc_ != cudaSuccess) {                                                 \
            st = gm_fail(err, GM_ERR_CUDA, "%s:%d: %s: %s (%s)", __FILE__, __LINE__, \
                         #call, cudaGetErrorString(rc_), cudaGetErrorName(rc_));  \
            goto label;                                                           \
        }                                                                         \
    } while (0)

/* The first word after "Kernel Module" made of digits and dots, with a dot:
 *   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu ..."
 *   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release ..."
 * NULL where the file does not exist (not Linux, no driver) or has another shape. */
static char *S_kernel_driver_version(void)
{
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return NULL;
    char line[512];
    char *res = NULL;
    if (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "Kernel Module");
        while (p && *p && !res) {
            p += strcspn(p, " \t\n");
            p += strspn(p, " \t\n");
            size_t n = strcspn(p, " \t\n");
            if (n > 0 && strspn(p, "0123456789.") == n && memchr(p, '.', n) && p[0] != '.') {
                res = gm_xmalloc(n + 1);
                memcpy(res, p, n);
                res[n] = '\0';
            }
        }
    }
    fclose(f);
    return res;
}

/* Where /proc does not show the driver (containers), NVML does; it is loaded
 * at run time so that the tool does not depend on it. */
static char *S_nvml_driver_version(void)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return NULL;
    int (*init)(void) = NULL, (*shutdown)(void) = NULL;
    int (*version)(char *, unsigned) = NULL;
    *(void **)&init = dlsym(lib, "nvmlInit_v2");
    *(void **)&shutdown = dlsym(lib, "nvmlShutdown");
    *(void **)&version = dlsym(lib, "nvmlSystemGetDriverVersion");
    char buf[96] = "";
    char *res = NULL;
    if (init && shutdown && version && init() == 0) {   /* 0: NVML_SUCCESS */
        if (version(buf, sizeof buf) == 0 && buf[0])
            res = gm_xstrdup(buf);
        shutdown();
    }
    dlclose(lib);
    return res;
}

static gm_status S_attr(int *v, enum cudaDeviceAttr a, const char *name, int dev, gm_error *err)
{
    cudaError_t rc = cudaDeviceGetAttribute(v, a, dev);
    if (rc != cudaSuccess)
        return gm_fail(err, GM_ERR_CUDA, "cudaDeviceGetAttribute(%s, device %d): %s (%s)", name,
                       dev, cudaGetErrorString(rc), cudaGetErrorName(rc));
    return GM_OK;
}

#define S_ATTR(var, a)                                                            \
    do {                                                                          \
        gm_status s_ = S_attr(&(var), a, #a, dev, err);                           \
        if (s_ != GM_OK)                                                          \
            return s_;                                                            \
    } while (0)

/* CUDA 13 removed clockRate/memoryClockRate/memoryBusWidth from cudaDeviceProp:
 * the attributes still give them. */
static gm_status S_describe_device(int dev, gm_device *d, gm_error *err)
{
    struct cudaDeviceProp prop;
    GM_CUDA(cudaGetDeviceProperties(&prop, dev));
    int major = 0, minor = 0, sms = 0, clock_khz = 0, bus = 0, l2 = 0;
    S_ATTR(major, cudaDevAttrComputeCapabilityMajor);
    S_ATTR(minor, cudaDevAttrComputeCapabilityMinor);
    S_ATTR(sms, cudaDevAttrMultiProcessorCount);
    S_ATTR(clock_khz, cudaDevAttrMemoryClockRate);
    S_ATTR(bus, cudaDevAttrGlobalMemoryBusWidth);
    S_ATTR(l2, cudaDevAttrL2CacheSize);
    int drv = 0, rt = 0;
    GM_CUDA(cudaDriverGetVersion(&drv));
    GM_CUDA(cudaRuntimeGetVersion(&rt));

    d->ordinal = dev;
    free(d->name);
    d->name = gm_xstrdup(prop.name);
    d->cc_major = major;
    d->cc_minor = minor;
    d->sm_count = sms;
    d->memory_clock_khz = clock_khz;
    d->memory_bus_width_bits = bus;
    /* Double data rate: 2 transfers per clock, bus/8 bytes each. */
    if (clock_khz > 0 && bus > 0)
        d->theoretical_bandwidth_gbs = gm_vreal(2.0 * clock_khz * 1e3 * (bus / 8.0) / 1e9);
    d->l2_bytes = l2;
    d->global_memory_bytes = (long long)prop.totalGlobalMem;
    free(d->driver_version);
    d->driver_version = S_kernel_driver_version();
    if (!d->driver_version)
        d->driver_version = S_nvml_driver_version();
    d->cuda_driver_api = drv;
    d->cuda_runtime = rt;
    return GM_OK;
}

/* ---- one case ------------------------------------------------------------- */

/* on_host variants run synchronously on the CPU, and their reset, launch and
 * check make no CUDA call (case.h): the host clock around each launch is the
 * sample; resets are outside it.  A CPU baseline can take a second a launch
 * (the serial DP at n = 1024 took 0.4 s), and its samples vary little, so
 * sampling stops once GM_SUITE_HOST_MIN_REPS samples have taken
 * GM_SUITE_HOST_BUDGET_MS; the validation launch just before is the one
 * warm-up (the same host code on the same data).  *taken: the samples kept, in
 * ms[0..*taken). */
static gm_status S_time_host(gm_case *c, int reps, double *ms, int *taken, gm_error *err)
{
    const gm_variant *v = c->variant;
    double spent = 0.0;
    *taken = 0;
    for (int r = 0; r < reps; r++) {
        if (r >= GM_SUITE_HOST_MIN_REPS && spent > GM_SUITE_HOST_BUDGET_MS)
            break;
        if (!v->idempotent && v->reset) {
            gm_status st = v->reset(c, NULL, err);
            if (st != GM_OK)
                return st;
        }
        double t0 = gm_host_ms();
        gm_status st = v->launch(c, NULL, err);
        double t1 = gm_host_ms();
        if (st != GM_OK)
            return st;
        ms[r] = t1 - t0;
        spent += t1 - t0;
        *taken = r + 1;
    }
    return GM_OK;
}

typedef struct {
    const gm_suite_opts *o;
    cudaStream_t stream;
    const gm_l2flush *flush;   /* NULL: no flush */
    int warmup, repeat;
    double *samples;           /* repeat entries */
    struct S_pending **pend;   /* experiments not profiled yet (gm_suite_run) */
    size_t np;
} S_ctx;

static void S_set_check(gm_run *run, gm_check_status status, const char *reason)
{
    free(run->check.reason);
    run->check.status = status;
    run->check.reason = gm_xstrdup(reason);
}

/* The model's prediction (core/model.h) from the variant's address trace:
 * computed on the CPU from the case's parameters and launch shape (and, for
 * data-dependent accesses, the inputs it regenerates: trace.h), so it needs
 * no GPU and reads nothing a setup, launch or teardown changes.  A trace
 * that fails leaves the prediction absent and says why in *why; the run
 * itself is unaffected. */
static void S_predict(const gm_case *c, gm_prediction *out, char **why)
{
    gm_trace *t = gm_trace_new();
    gm_error e = {GM_OK, ""};
    gm_status st = c->variant->trace(c, t, &e);
    if (st == GM_OK)
        st = gm_trace_predict(t, out, &e);
    if (st != GM_OK) {
        gm_trace_prediction_clear(out);
        gm_buf b = GM_BUF_INIT;
        gm_buf_printf(&b, "no model prediction: the address trace failed: %s", e.message);
        *why = gm_buf_detach(&b);
    }
    gm_trace_free(t);
}

/* An experiment's predictions, made on a thread of their own while the
 * suite goes on (the next experiments' GPU work, the profile hook, which
 * spends its time waiting in the kernel driver), then moved into the runs. */
typedef struct {
    gm_case *cases;
    const bool *want;
    size_t n;
    gm_prediction *pred;
    char **why;
} S_models;

static void *S_models_run(void *arg)
{
    S_models *m = (S_models *)arg;
    for (size_t i = 0; i < m->n; i++)
        if (m->want[i])
            S_predict(&m->cases[i], &m->pred[i], &m->why[i]);
    return NULL;
}

/* Every setup starts from what describe filled: the runner describes the
 * case, so that no experiment repeats it. */
gm_status gm_case_setup(gm_case *c, gm_error *err)
{
    gm_status st = c->variant->describe(c, err);
    if (st != GM_OK)
        return st;
    return c->variant->setup(c, err);
}

/* Runs one case into a new run.  Returns GM_OK when the suite may go on (the
 * case may still be not-run, failed or in error: see run->check), a status when
 * it must stop (a CUDA error: the context may be unusable).  *live is set when
 * the case stays set up: its teardown is the caller's, once the experiment is
 * profiled (S_finish), so that the cases of one experiment may share inputs
 * that their setup built once.  *profile: it goes to the profile hook.
 * *predict: the model makes its prediction (S_models).  *host: a CPU baseline,
 * set up only: validated and timed beside the profile hook (S_hosts). */
static gm_status S_run_case(S_ctx *x, gm_case *c, gm_results *out, size_t *run_index,
                            bool *live, bool *profile, bool *predict, bool *host, gm_error *err)
{
    const gm_variant *v = c->variant;
    *live = *profile = *predict = *host = false;
    *run_index = out->n_runs;
    gm_run *run = gm_results_add_run(out);
    run->experiment = gm_xstrdup(v->experiment->id);
    run->variant = gm_xstrdup(v->name);
    run->layout = gm_xstrdup(v->layout);
    for (int p = 0; p < c->n_params; p++)
        gm_run_set_param(run, c->params[p].name, gm_vint(c->params[p].value));

    gm_suite_times *tm = x->o->times;
    double t_phase = gm_host_ms();
    gm_error e = {GM_OK, ""};
    gm_status st = gm_case_setup(c, &e);
    if (tm)
        tm->setup += (gm_host_ms() - t_phase) / 1e3;
    /* What describe filled is worth reporting even when setup went no further. */
    if (c->kernel[0])
        run->kernel = gm_xstrdup(c->kernel);
    if (c->launch.grid[0] > 0) {
        run->has_launch = true;
        run->launch = c->launch;
    }
    /* Both zero: describe failed: unknown, not zero. */
    if (c->bytes_read > 0 || c->bytes_written > 0) {
        run->bytes_read = gm_vint(c->bytes_read);
        run->bytes_written = gm_vint(c->bytes_written);
    }
    run->flops = c->flops >= 0 ? gm_vint(c->flops) : gm_vabsent();
    if (c->note[0])
        gm_run_add_note(run, "%s", c->note);
    if (st != GM_OK) {
        v->teardown(c);
        if (st == GM_ERR_UNSUPPORTED) {
            S_set_check(run, GM_CHECK_NOT_RUN, e.message);
            return GM_OK;
        }
        S_set_check(run, GM_CHECK_ERROR, e.message);
        if (st == GM_ERR_CUDA)
            return gm_fail(err, st, "%s/%s: setup: %s", v->experiment->id, v->name, e.message);
        return GM_OK;
    }
    *predict = v->trace != NULL;   /* made beside what follows: S_models */
    if (v->on_host) {
        /* validated and timed later, beside the profile hook (S_hosts) */
        *live = *host = true;
        return GM_OK;
    }
    t_phase = gm_host_ms();

    /* Validation: poisoned output, one launch, compare with the reference. */
    if (v->reset)
        st = v->reset(c, x->stream, &e);
    double t_launch = gm_host_ms();
    if (st == GM_OK)
        st = v->launch(c, x->stream, &e);
    if (st == GM_OK) {
        cudaError_t rc = cudaStreamSynchronize(x->stream);
        t_launch = gm_host_ms() - t_launch;
        if (rc != cudaSuccess)
            st = gm_fail(&e, GM_ERR_CUDA, "%s: %s (%s)", c->kernel, cudaGetErrorString(rc),
                         cudaGetErrorName(rc));
    }
    if (st == GM_OK)
        st = v->check(c, &run->check, &e);
    if (tm) {
        tm->validate += (gm_host_ms() - t_phase) / 1e3;
        t_phase = gm_host_ms();
    }
    if (st == GM_OK && !x->o->validate_only) {
        int warm = x->warmup, warm_done = 0;
        bool gated = false;
        /* A long kernel (the chain DP at n = 1024 runs ~0.1 s on one SM) would
         * spend seconds on repetitions whose spread is tiny: cap its samples so
         * they take about GM_SUITE_GPU_BUDGET_MS, keeping at least
         * GM_SUITE_GPU_MIN_REPS, and say so in the run. */
        int reps = x->repeat;
        bool retimed = false;
        if (t_launch > 0 && t_launch * reps > GM_SUITE_GPU_BUDGET_MS) {
            /* The first launch of a kernel also loads its module (lazy
             * loading): time a second one before believing it is long. */
            double t2 = gm_host_ms();
            if (!v->idempotent && v->reset)
                st = v->reset(c, x->stream, &e);
            if (st == GM_OK)
                st = v->launch(c, x->stream, &e);
            if (st == GM_OK && cudaStreamSynchronize(x->stream) == cudaSuccess) {
                t2 = gm_host_ms() - t2;
                retimed = true;
            } else {
                t2 = t_launch;
            }
            if (t2 < t_launch)
                t_launch = t2;
        }
        if (st == GM_OK && t_launch > 0 && t_launch * reps > GM_SUITE_GPU_BUDGET_MS) {
            double fit = GM_SUITE_GPU_BUDGET_MS / t_launch;
            reps = fit < GM_SUITE_GPU_MIN_REPS ? GM_SUITE_GPU_MIN_REPS : (int)fit;
            if (reps < x->repeat) {
                warm = x->warmup > 1 ? 1 : x->warmup;
                /* the launch timed again was that one warm-up: the module
                 * is loaded and the kernel has run once after validation */
                if (retimed && warm == 1)
                    warm_done = 1;
                gm_run_add_note(run, "timed %d repetitions instead of %d: one launch takes "
                                "%.1f ms", reps, x->repeat, t_launch);
            } else {
                reps = x->repeat;
            }
        }
        const gm_l2flush *f = v->experiment->bandwidth_bound ? x->flush : NULL;
        if (st == GM_OK)
            st = gm_time_case(c, x->stream, warm - warm_done, reps, f, x->samples, &gated,
                              &e);
        if (st == GM_OK) {
            gm_timing_set_samples(&run->timing, x->samples, (size_t)reps);
            run->timing.present = true;
            run->timing.warmup = warm;
            run->timing.l2_flushed = v->experiment->bandwidth_bound && x->flush;
            run->timing.gated = gated;
        }
        if (tm)
            tm->timing += (gm_host_ms() - t_phase) / 1e3;
    }
    if (st != GM_OK) {
        S_set_check(run, GM_CHECK_ERROR, e.message);
        v->teardown(c);
        if (st == GM_ERR_CUDA || st == GM_ERR_NOMEM)
            return gm_fail(err, st, "%s/%s: %s", v->experiment->id, v->name, e.message);
        return GM_OK;
    }
    *live = true;
    *profile = x->o->profile && !x->o->validate_only && run->check.status == GM_CHECK_PASSED;
    /* Each profiler pass replays the launch, and the pass that measures the
     * smsp__sass_* metrics instruments every memory instruction: a 0.1 s
     * kernel costs seconds there.  Such cases keep their time and check. */
    if (*profile && x->o->profile_max_ms > 0 && t_launch > x->o->profile_max_ms) {
        *profile = false;
        gm_run_add_note(run, "not profiled: one launch takes %.1f ms, over the %.0f ms limit "
                        "(--profile-max-ms)", t_launch, x->o->profile_max_ms);
    }
    return GM_OK;
}

/* ---- one experiment ------------------------------------------------------- */

static size_t S_count_cases(const gm_suite_opts *o, const gm_experiment_def *e)
{
    size_t n = 0;
    for (size_t k = 0; k < gm_suite_len; k++)
        if (gm_suite[k].experiment == e && gm_suite_selects_variant(o, &gm_suite[k]))
            n += gm_variant_cases(&gm_suite[k], o->quick, NULL, 0);
    return n;
}

static void S_add_experiment(gm_results *out, const gm_experiment_def *d)
{
    gm_experiment *e = gm_results_add_experiment(out);
    e->id = gm_xstrdup(d->id);
    e->title = gm_xstrdup(d->title);
    e->summary = gm_xstrdup(d->summary);
    e->source = gm_xstrdup(d->source);
    e->sweep_param = gm_xstrdup(d->sweep_param);
    e->sweep_log2 = d->sweep_log2;
    e->series_param = gm_xstrdup(d->series_param);
    e->bandwidth_bound = d->bandwidth_bound;
    e->baseline_variant = gm_xstrdup(d->baseline_variant);
    e->question = gm_xstrdup(d->question);
    e->contrast_a = gm_xstrdup(d->contrast_a);
    e->contrast_b = gm_xstrdup(d->contrast_b);
    e->contrast_at = gm_xstrdup(d->contrast_at);
    e->contrast_counter = gm_xstrdup(d->contrast_counter);
}

/* An experiment whose cases ran but are not profiled yet: they stay set up
 * (and their predictions in the making) until the profile hook has had them,
 * with those of the experiments after it, in one call: each batch of the
 * profiler costs a fixed start and stop in every pass besides its ranges
 * (bench/results/flush-and-ranges-2026-11-24.txt: 0.38 s for a batch of 14
 * launches, 4.7 s for one of 336). */
typedef struct S_pending {
    gm_case *cases;
    size_t m, n_prof;
    size_t *run_of;
    bool *live, *prof, *want, *host;
    S_models models;
    pthread_t model_thread;
    bool threaded;
} S_pending;

/* Wait for the model threads of the experiments not profiled yet. */
static void S_model_wait(const gm_suite_opts *o, S_pending *p)
{
    if (!p->threaded)
        return;
    double t0 = gm_host_ms();   /* the wall time the model adds: what is left of it by now */
    pthread_join(p->model_thread, NULL);
    p->threaded = false;
    if (o->times)
        o->times->model += (gm_host_ms() - t0) / 1e3;
}


/* Run experiment d's cases; *pend gets them (NULL where the selection has
 * none), the model making their predictions on a thread of its own. */
static gm_status S_run_experiment(S_ctx *x, const gm_experiment_def *d, gm_results *out,
                                  size_t *k, size_t total, S_pending **pend, gm_error *err)
{
    const gm_suite_opts *o = x->o;
    *pend = NULL;
    size_t n = S_count_cases(o, d);
    if (n == 0)
        return GM_OK;
    S_add_experiment(out, d);

    S_pending *p = gm_xcalloc(1, sizeof *p);
    p->cases = gm_xcalloc(n, sizeof *p->cases);
    p->run_of = gm_xcalloc(n, sizeof *p->run_of);
    p->live = gm_xcalloc(n, sizeof *p->live);
    p->prof = gm_xcalloc(n, sizeof *p->prof);
    p->want = gm_xcalloc(n, sizeof *p->want);
    p->host = gm_xcalloc(n, sizeof *p->host);
    for (size_t r = 0; r < gm_suite_len; r++)
        if (gm_suite[r].experiment == d && gm_suite_selects_variant(o, &gm_suite[r]))
            p->m += gm_variant_cases(&gm_suite[r], o->quick, p->cases + p->m, n - p->m);

    gm_status st = GM_OK;
    for (size_t i = 0; i < p->m && st == GM_OK; i++) {
        ++*k;
        if (o->progress)
            o->progress(o->progress_ctx, d->id, p->cases[i].variant->name, *k, total);
        st = S_run_case(x, &p->cases[i], out, &p->run_of[i], &p->live[i], &p->prof[i],
                        &p->want[i], &p->host[i], err);
        p->n_prof += p->prof[i];
    }

    /* the model beside what follows; on this thread where none starts */
    p->models = (S_models){p->cases, p->want, p->m, gm_xcalloc(n, sizeof(gm_prediction)),
                           gm_xcalloc(n, sizeof(char *))};
    p->threaded = pthread_create(&p->model_thread, NULL, S_models_run, &p->models) == 0;
    if (!p->threaded) {
        double t0 = gm_host_ms();
        S_models_run(&p->models);
        if (o->times)
            o->times->model += (gm_host_ms() - t0) / 1e3;
    }
    *pend = p;
    return st;
}

/* The CPU baselines of the pending experiments (S_run_case's *host), each
 * validated and then timed as S_time_host says, on a thread of their own
 * while the profile hook replays the GPU cases: that thread spends its time
 * waiting in the kernel driver, and a host case makes no CUDA call, so
 * neither measures the other.  The model threads are joined first, so that
 * no thread of the tool's but the profile hook's runs beside a baseline. */
typedef struct {
    const S_ctx *x;
    S_pending **pend;
    size_t np;
    gm_case **cases;
    gm_run **runs;
    size_t n;
    bool beside;   /* the profile hook ran at the same time: the runs say so */
} S_hosts;

static void S_host_case(const S_ctx *x, gm_case *c, gm_run *run, double *samples)
{
    const gm_variant *v = c->variant;
    gm_error e = {GM_OK, ""};
    gm_status st = v->reset ? v->reset(c, NULL, &e) : GM_OK;
    if (st == GM_OK)
        st = v->launch(c, NULL, &e);
    if (st == GM_OK)
        st = v->check(c, &run->check, &e);
    if (st == GM_OK && !x->o->validate_only) {
        int taken = 0;
        st = S_time_host(c, x->repeat, samples, &taken, &e);
        if (st == GM_OK) {
            gm_timing_set_samples(&run->timing, samples, (size_t)taken);
            run->timing.present = true;
            run->timing.warmup = x->warmup > 1 ? 1 : x->warmup;
            run->timing.l2_flushed = false;
            run->timing.gated = false;
        }
    }
    if (st != GM_OK)
        S_set_check(run, GM_CHECK_ERROR, e.message);
}

static void *S_hosts_run(void *arg)
{
    S_hosts *h = (S_hosts *)arg;
    for (size_t e = 0; e < h->np; e++)
        if (h->pend[e]->threaded) {   /* the wall time it adds is the profile hook's */
            pthread_join(h->pend[e]->model_thread, NULL);
            h->pend[e]->threaded = false;
        }
    double *samples = gm_xcalloc((size_t)h->x->repeat, sizeof *samples);
    for (size_t i = 0; i < h->n; i++) {
        S_host_case(h->x, h->cases[i], h->runs[i], samples);
        if (h->beside && h->runs[i]->timing.present)
            gm_run_add_note(h->runs[i], "timed on a CPU thread of its own while the profiler "
                                        "replayed the GPU cases (which wait on the GPU)");
    }
    free(samples);
    return NULL;
}

/* Profile the pending experiments' validated GPU cases in one call of the
 * hook (st: the suite's status so far; not OK: no profiling), their CPU
 * baselines validated and timed beside it (S_hosts), then finish each
 * experiment: its predictions moved into its runs, its cases torn down. */
static gm_status S_finish(S_ctx *x, S_pending **pend, size_t np, gm_results *out, gm_status st,
                          gm_error *err)
{
    const gm_suite_opts *o = x->o;
    size_t nl = 0, nh = 0;
    for (size_t e = 0; e < np; e++) {
        nl += pend[e]->n_prof;
        for (size_t i = 0; i < pend[e]->m; i++)
            nh += pend[e]->host[i];
    }
    /* the run pointers are taken only now, after the last gm_results_add_run */
    S_hosts h = {x, pend, np, gm_xcalloc(nh ? nh : 1, sizeof(gm_case *)),
                 gm_xcalloc(nh ? nh : 1, sizeof(gm_run *)), 0, false};
    for (size_t e = 0; e < np; e++)
        for (size_t i = 0; i < pend[e]->m; i++)
            if (pend[e]->host[i]) {
                h.cases[h.n] = &pend[e]->cases[i];
                h.runs[h.n++] = &out->runs[pend[e]->run_of[i]];
            }
    pthread_t host_thread;
    bool host_threaded = false;
    if (st != GM_OK) {
        for (size_t i = 0; i < h.n; i++)
            S_set_check(h.runs[i], GM_CHECK_NOT_RUN,
                        "not run: the collection stopped before this CPU baseline's turn");
        h.n = 0;
    } else if (h.n > 0) {
        h.beside = nl > 0;
        host_threaded = h.beside && pthread_create(&host_thread, NULL, S_hosts_run, &h) == 0;
        if (!host_threaded) {
            h.beside = false;
            double t0 = gm_host_ms();
            S_hosts_run(&h);
            if (o->times)
                o->times->timing += (gm_host_ms() - t0) / 1e3;
        }
    }
    if (st == GM_OK && nl > 0) {
        /* the run pointers are taken only now, after the last gm_results_add_run */
        gm_case **pc = gm_xcalloc(nl, sizeof *pc);
        gm_run **pr = gm_xcalloc(nl, sizeof *pr);
        size_t j = 0;
        for (size_t e = 0; e < np; e++)
            for (size_t i = 0; i < pend[e]->m; i++)
                if (pend[e]->prof[i]) {
                    pc[j] = &pend[e]->cases[i];
                    pr[j] = &out->runs[pend[e]->run_of[i]];
                    j++;
                }
        double t0 = gm_host_ms();
        st = o->profile(o->profile_ctx, (gm_case *const *)pc, nl, (gm_run *const *)pr, err);
        free(pc);
        free(pr);
        if (host_threaded)
            pthread_join(host_thread, NULL);
        if (o->times)   /* with the baselines' time beyond the hook's, if any */
            o->times->profile += (gm_host_ms() - t0) / 1e3;
    }
    free(h.cases);
    free(h.runs);
    for (size_t e = 0; e < np; e++) {
        S_pending *p = pend[e];
        S_model_wait(o, p);
        for (size_t i = 0; i < p->m; i++) {
            if (!p->want[i] && !p->models.why[i])
                continue;
            gm_run *run = &out->runs[p->run_of[i]];
            if (p->want[i]) {
                gm_trace_prediction_clear(&run->prediction);
                run->prediction = p->models.pred[i];
            }
            if (p->models.why[i])
                gm_run_add_note(run, "%s", p->models.why[i]);
            free(p->models.why[i]);
        }
        free(p->models.pred);
        free(p->models.why);
        for (size_t i = 0; i < p->m; i++)
            if (p->live[i])
                p->cases[i].variant->teardown(&p->cases[i]);
        free(p->cases);
        free(p->run_of);
        free(p->live);
        free(p->prof);
        free(p->want);
        free(p->host);
        free(p);
    }
    return st;
}

/* Device memory in use now (bytes), for holding experiments until they are
 * profiled. */
static gm_status S_memory_used(size_t *used, gm_error *err)
{
    size_t free_b = 0, total_b = 0;
    GM_CUDA(cudaMemGetInfo(&free_b, &total_b));
    *used = total_b - free_b;
    return GM_OK;
}

/* ---- the suite ------------------------------------------------------------ */

gm_status gm_suite_run(const gm_suite_opts *o, gm_results *out, gm_error *err)
{
    gm_status st = gm_suite_select_check(o, err);
    if (st != GM_OK)
        return st;

    int ndev = 0;
    cudaError_t rc = cudaGetDeviceCount(&ndev);
    if (rc == cudaErrorNoDevice || rc == cudaErrorInsufficientDriver ||
        (rc == cudaSuccess && ndev == 0))
        return gm_fail(err, GM_ERR_NO_DEVICE, "no usable CUDA device: %s",
                       rc == cudaSuccess ? "the driver reports 0 devices" : cudaGetErrorString(rc));
    if (rc != cudaSuccess)
        return gm_fail(err, GM_ERR_CUDA, "cudaGetDeviceCount: %s (%s)", cudaGetErrorString(rc),
                       cudaGetErrorName(rc));
    if (o->device < 0 || o->device >= ndev)
        return gm_fail(err, GM_ERR_VALUE, "device %d does not exist (%d device%s: 0..%d)",
                       o->device, ndev, ndev == 1 ? "" : "s", ndev - 1);
    GM_CUDA(cudaSetDevice(o->device));
    st = S_describe_device(o->device, &out->device, err);
    if (st != GM_OK)
        return st;

    S_ctx x;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.warmup = o->warmup < 0 ? GM_SUITE_DEFAULT_WARMUP : o->warmup;
    x.repeat = o->repeat <= 0 ? GM_SUITE_DEFAULT_REPEAT : o->repeat;
    gm_l2flush flush = {NULL, 0};

    free(out->collection.size_set);
    out->collection.size_set = gm_xstrdup(o->quick ? "quick" : "full");
    double t_device = gm_host_ms();
    if (!o->validate_only) {
        double gbs = 0.0;
        st = gm_measure_copy_bandwidth(GM_SUITE_COPY_BYTES, GM_SUITE_COPY_REPEAT, &gbs, err);
        if (st != GM_OK)
            return st;
        out->device.copy_bandwidth_gbs = gm_vreal(gbs);
        out->device.copy_bandwidth_bytes = gm_vint((long long)GM_SUITE_COPY_BYTES);
        /* The attainable ceiling is a reference, not a measurement of the
         * suite: when it cannot be taken the collection goes on, the header
         * says why, and the report compares with the copy bandwidth. */
        char which[160];
        gm_error aerr = {GM_OK, ""};
        free(out->device.attainable_kernel);
        if (gm_measure_attainable_bandwidth(GM_SUITE_COPY_BYTES, GM_SUITE_COPY_REPEAT, &gbs, which,
                                            sizeof which, &aerr) == GM_OK) {
            out->device.attainable_bandwidth_gbs = gm_vreal(gbs);
            out->device.attainable_kernel = gm_xstrdup(which);
        } else {
            out->device.attainable_bandwidth_gbs = gm_vabsent();
            gm_buf why = GM_BUF_INIT;
            gm_buf_printf(&why, "not measured: %s", aerr.message);
            out->device.attainable_kernel = gm_buf_detach(&why);
        }
        out->collection.timing_warmup = x.warmup;
        out->collection.timing_repetitions = x.repeat;
        if (o->time_l2_flush) {
            st = gm_l2flush_init(&flush, o->device, err);
            if (st != GM_OK) {
                gm_l2flush_free(&flush);
                return st;
            }
            x.flush = &flush;
        }
    }
    if (o->times)
        o->times->device += (gm_host_ms() - t_device) / 1e3;
    S_CUDA_OR(cudaStreamCreateWithFlags(&x.stream, cudaStreamNonBlocking), done);
    x.samples = gm_xcalloc((size_t)x.repeat, sizeof *x.samples);

    size_t total = 0, k = 0;
    for (size_t e = 0; e < gm_experiments_len; e++)
        if (gm_suite_selects_experiment(o, gm_experiments[e]))
            total += S_count_cases(o, gm_experiments[e]);
    /* Experiments wait to be profiled together while the next one's cases
     * would still fit the batch (o->profile_batch), and until what they hold
     * of the device's memory reaches a quarter of it, so that the next
     * experiment still has most of what it would have had alone. */
    size_t np = 0, waiting = 0, used0 = 0, total_b = 0, free_b = 0;
    S_CUDA_OR(cudaMemGetInfo(&free_b, &total_b), done);
    used0 = total_b - free_b;
    S_pending **pend = gm_xcalloc(gm_experiments_len ? gm_experiments_len : 1, sizeof *pend);
    x.pend = pend;
    for (size_t e = 0; e < gm_experiments_len && st == GM_OK; e++) {
        if (!gm_suite_selects_experiment(o, gm_experiments[e]))
            continue;
        S_pending *p = NULL;
        st = S_run_experiment(&x, gm_experiments[e], out, &k, total, &p, err);
        if (p) {
            pend[np++] = p;
            waiting += p->n_prof;
            x.np = np;
        }
        size_t used = used0;
        if (st == GM_OK)
            st = S_memory_used(&used, err);
        /* the next experiment's cases, at most what it adds */
        size_t next = 0;
        bool last = true;
        for (size_t f = e + 1; f < gm_experiments_len && last; f++)
            if (gm_suite_selects_experiment(o, gm_experiments[f])) {
                last = false;
                next = S_count_cases(o, gm_experiments[f]);
            }
        if (st != GM_OK || last || waiting + next > o->profile_batch ||
            (used > used0 && used - used0 >= total_b / 4)) {
            st = S_finish(&x, pend, np, out, st, err);
            np = waiting = x.np = 0;
        }
    }
    if (np)   /* stopped before the last: what ran is torn down */
        st = S_finish(&x, pend, np, out, st, err);
    x.np = 0;
    free(pend);

done:
    gm_harness_release();
    free(x.samples);
    if (x.stream)
        cudaStreamDestroy(x.stream);
    gm_l2flush_free(&flush);
    return st;
}
