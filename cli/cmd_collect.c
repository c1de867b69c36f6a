/* gpumem-report collect / the main job.
 *
 *   gpumem-report [OPTIONS] --out report.html    collect on the GPU, write the
 *                                                results file, render the report
 *   gpumem-report collect [OPTIONS] --json run.json
 *
 * Order of work, so that a run that cannot succeed fails before it spends GPU
 * time: arguments, selection, metric list, template and gnuplot (main job),
 * the device, the profiler session (counter permission, metric names), then
 * the suite.  Exit codes: 0 done; 1 a variant failed validation or the run
 * broke; 2 cannot run here (bad arguments, no GPU, no counter permission).
 */
#include "../core/buf.h"
#include "../core/catalog.h"
#include "../core/devlock.h"
#include "../core/pathpat.h"
#include "cli.h"
#include "options.h"
#include "../core/results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef GM_HAVE_CUDA
#include "../collectors/gm_collector.h"
#include "profile.h"
#include "../kernels/runner.h"
#include "../reports/diff.h"
#include "gm_version.h"
#include "../reports/render.h"
#include "../orchestrate/fanout.h"
#endif

/* Cases longer than this are timed and validated but not profiled by default:
 * the chain DP at n = 1024 (~0.1 s a launch) would cost seconds per pass. */
#define GM_PROFILE_MAX_MS_DEFAULT 20

/* The options (cli/options.h; their table, gm_opts_main and gm_opts_collect,
 * is in cli/options.c). */
typedef gm_suite_args S_opts;

#ifdef GM_HAVE_CUDA
/* Split "a,b,c" into a NULL-free array of copies; empty items are an error. */
static bool S_split(const char *opt, const char *val, char ***out, size_t *n)
{
    char *copy = gm_xstrdup(val);
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        size_t len = strlen(tok);
        while (len && tok[len - 1] == ' ')
            tok[--len] = '\0';
        if (!len)
            continue;
        *out = gm_xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = gm_xstrdup(tok);
    }
    free(copy);
    if (*n == 0) {
        gm_cli_error("%s: empty list '%s'", opt, val);
        return false;
    }
    return true;
}

static void S_free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}
#endif

/* 0 ok, 1 help printed, 2 error printed */
static int S_parse(int argc, char **argv, S_opts *o)
{
    o->repeat = -1;
    o->warmup = -1;
    o->profile_max_ms = GM_PROFILE_MAX_MS_DEFAULT;
    const gm_opt_table *t = o->main_job ? &gm_opts_main : &gm_opts_collect;
    unsigned variant = o->main_job ? GM_OPT_MAIN : GM_OPT_COLLECT;
    int p = gm_opt_parse(t, variant, argc, argv, o, NULL);
    if (p)
        return p;
    if (o->main_job && !o->out) {
        gm_cli_error("--out FILE is required (report.html or report.md)");
        gm_opt_help(stderr, t, variant);
        return 2;
    }
    if (!o->main_job && !o->json) {
        gm_cli_error("collect: --json FILE is required");
        return 2;
    }
    return 0;
}

#ifdef GM_HAVE_CUDA

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Launches of the suite's profiler batches: 768 ranges with the L2 flush's,
 * within the collector's 4096 (gmc_config_check). */
#define S_SUITE_BATCH 256

typedef struct {
    bool quiet, tty;
    double t0;
    const char *last_exp;
    /* GPUMEM_REPORT_CASE_TIMES=1: each case's phases on stderr, from the
     * suite's running sums (bench/suite-phases.sh); a profile batch is
     * charged to the case run just before it */
    bool case_times;
    const gm_suite_times *times;
    gm_suite_times seen;
    const gm_results *results;
    size_t done;   /* runs whose times are said */
} S_progress;

static void S_say_case_times(S_progress *p)
{
    if (!p->case_times || !p->times || !p->results)
        return;
    const gm_suite_times *t = p->times, *s = &p->seen;
    for (; p->done < p->results->n_runs; p->done++) {
        const gm_run *r = &p->results->runs[p->done];
        gm_buf b = GM_BUF_INIT;
        for (size_t i = 0; i < r->n_params; i++)
            gm_buf_printf(&b, " %s=%lld", r->params[i].name,
                          (long long)gm_value_num(&r->params[i].value));
        /* only the newest run has phases of its own; earlier ones (none, as
         * the runner adds one run a case) would read 0 */
        bool newest = p->done + 1 == p->results->n_runs;
        fprintf(stderr, "case-times (s): %s/%s%s setup %.3f model %.3f validate %.3f timing %.3f "
                        "profile %.3f\n",
                r->experiment, r->variant, b.data ? b.data : "",
                newest ? t->setup - s->setup : 0.0, newest ? t->model - s->model : 0.0,
                newest ? t->validate - s->validate : 0.0, newest ? t->timing - s->timing : 0.0,
                newest ? t->profile - s->profile : 0.0);
        gm_buf_free(&b);
    }
    p->seen = *t;
}

/* Where the collection's time went, one line on stderr. */
static void S_say_times(const gm_suite_times *t, double suite, const gm_results *r)
{
    double known = t->device + t->setup + t->model + t->validate + t->timing + t->profile;
    fprintf(stderr, "time: suite %.1f s (reference bandwidths %.1f s, setup %.1f s, model %.1f s, "
                    "validation %.1f s, timing %.1f s, profiling %.1f s, other %.1f s)",
            suite, t->device, t->setup, t->model, t->validate, t->timing, t->profile,
            suite > known ? suite - known : 0.0);
    if (r->collection.source_lines && gm_value_present(&r->collection.source_lines_seconds))
        fprintf(stderr, ", per-line pass %.1f s", gm_value_num(&r->collection.source_lines_seconds));
    fputc('\n', stderr);
}

/* On a terminal one line is rewritten per case; otherwise (a log, CI) one line
 * per experiment and no control characters. */
static void S_on_progress(void *ctx, const char *exp, const char *variant, size_t k, size_t n)
{
    S_progress *p = ctx;
    S_say_case_times(p);
    if (p->quiet)
        return;
    double dt = S_now() - p->t0;
    if (p->tty) {
        fprintf(stderr, "\r\033[K[%zu/%zu] %s / %s  %.1f s", k, n, exp, variant, dt);
    } else if (!p->last_exp || strcmp(p->last_exp, exp) != 0) {
        fprintf(stderr, "[%zu/%zu] %s  %.1f s\n", k, n, exp, dt);
    }
    p->last_exp = exp;
    fflush(stderr);
}

static void S_fill_header(gm_results *r, const S_opts *o, int argc, char **argv,
                          char **metrics, size_t n_metrics, const gmc_device_info *dev,
                          gmc_session *session)
{
    r->origin = gm_xstrdup("measured");
    r->commit = GM_GIT_COMMIT[0] ? gm_xstrdup(GM_GIT_COMMIT) : NULL;
    r->dirty = GM_GIT_DIRTY;
    r->taken_at = gm_results_utc_now();
    gm_collection *c = &r->collection;
    c->metrics = gm_xcalloc(n_metrics, sizeof *c->metrics);
    for (size_t i = 0; i < n_metrics; i++)
        c->metrics[i] = gm_xstrdup(metrics[i]);
    c->n_metrics = o->no_profile ? 0 : n_metrics;
    c->passes = session ? gmc_session_passes(session) : -1;
    c->range_mode = gm_xstrdup(session ? "auto" : "none");
    c->replay_mode = gm_xstrdup(session ? "user" : "none");
    c->cache_flush = !o->no_cache_flush;
    /* CUPTI 13.0 cannot lock clocks; ncu locks them to base by default. */
    c->clock_control = gm_xstrdup("none");
    c->command = gm_xcalloc((size_t)argc + 1, sizeof *c->command);
    c->command[0] = gm_xstrdup("gpumem-report");
    for (int i = 1; i < argc; i++)
        c->command[i] = gm_xstrdup(argv[i]);
    c->n_command = (size_t)argc;
    gm_device *d = &r->device;
    if (!d->chip && dev->chip[0])
        d->chip = gm_xstrdup(dev->chip);
    if (!d->driver_version && dev->driver_version[0])
        d->driver_version = gm_xstrdup(dev->driver_version);
    d->cupti_api = dev->cupti_api;
}

static void S_on_lock_wait(void *ctx, const char *path)
{
    if (!*(const bool *)ctx)
        fprintf(stderr, "gpumem-report: another process is using this GPU (lock %s held); "
                        "waiting for its turn to end\n", path);
}

/* What to tell a user on a machine where nothing can be collected. */
static void S_no_gpu_hint(void)
{
    fputs("  To see what a report looks like without a GPU, render the H100 example:\n"
          "    gpumem-report render examples/h100/run.json --out report.html\n",
          stderr);
}

static int S_collect(int argc, char **argv, S_opts *o)
{
    double t_start = S_now();
    int rc = GM_EXIT_USAGE;
    gm_error err = {GM_OK, ""};
    char **metrics = NULL;
    size_t n_metrics = 0;
    char *json_path = NULL, *out_path = NULL, *template_path = NULL, *exe = gm_cli_exe_path();
    gmc_session *session = NULL;
    gm_devlock lock = GM_DEVLOCK_INIT;
    gm_claim out_claim = GM_CLAIM_INIT, json_claim = GM_CLAIM_INIT;
    gm_process proc = {0};
    gm_results results, baseline = {0};
    gm_results_init(&results);

    gm_suite_opts so = {0};
    so.only = (const char *const *)o->only;
    so.n_only = o->n_only;
    so.skip = (const char *const *)o->skip;
    so.n_skip = o->n_skip;
    so.variants = (const char *const *)o->variants;
    so.n_variants = o->n_variants;
    so.quick = o->quick;
    so.device = (int)o->device;
    so.warmup = (int)o->warmup;
    so.repeat = (int)o->repeat;
    so.time_l2_flush = !o->no_cache_flush;
    so.profile_max_ms = (double)o->profile_max_ms;
    if (gm_suite_select_check(&so, &err) != GM_OK) {
        gm_cli_error("%s", err.message);
        goto done;
    }

    gmc_error cerr = {GMC_OK, ""};
    if (o->metrics) {
        if (gmc_metric_list_parse(o->metrics, &metrics, &n_metrics, &cerr) != GMC_OK) {
            gm_cli_error("--metrics: %s", cerr.message);
            goto done;
        }
    } else {
        for (size_t i = 0; i < gm_catalog_len; i++)
            if (gm_catalog[i].is_default) {
                metrics = gm_xrealloc(metrics, (n_metrics + 1) * sizeof *metrics);
                metrics[n_metrics++] = gm_xstrdup(gm_catalog[i].name);
            }
    }

    if (o->main_job && !(out_path = gm_cli_expand("--out", o->out, (int)o->device)))
        goto done;
    json_path = o->json ? gm_cli_expand("--json", o->json, (int)o->device)
                        : gm_cli_json_beside(out_path);
    if (!json_path)
        goto done;
    gm_render_opts ro = {0};
    if (o->main_job) {
        ro.template_path = o->template_path;
        ro.exe_path = exe;
        ro.gnuplot = o->gnuplot;
        ro.gnuplot_timeout = o->gnuplot_timeout;
        ro.timestamp = o->timestamp;
        if (!gm_cli_report_opts(&ro, out_path, o->format, json_path, &template_path))
            goto done;
        /* a baseline that cannot be read or paired fails before the GPU is used */
        if (o->baseline && (gm_results_read_file(o->baseline, &baseline, &err) != GM_OK ||
                            gm_diff_check_file(&baseline, o->baseline, &err) != GM_OK)) {
            gm_cli_error("--baseline: %s", err.message);
            goto done;
        }
        ro.baseline = o->baseline ? &baseline : NULL;
        ro.baseline_name = o->baseline;
        ro.results_name = json_path;
    }
    /* one writer per output: another process of the job writing the same
     * file is refused now, before the GPU (core/claim.h) */
    if ((o->main_job && !gm_cli_claim("--out", out_path, &out_claim)) ||
        !gm_cli_claim("--json", json_path, &json_claim))
        goto done;

    gmc_device_info dev;
    if (gmc_device_info_get((int)o->device, &dev, &cerr) != GMC_OK) {
        gm_cli_error("cannot collect here: %s", cerr.message);
        if (cerr.status == GMC_ERR_NO_DRIVER || cerr.status == GMC_ERR_NO_DEVICE)
            S_no_gpu_hint();
        goto done;
    }
    if (gm_process_identify(&proc, &err) != GM_OK) {
        gm_cli_error("%s", err.message);
        goto done;
    }
    /* processes sharing this GPU (ranks, tasks, a second collect) take turns:
     * the whole suite, so that neither times the other's kernels */
    if (gm_devlock_acquire(&lock, dev.uuid, S_on_lock_wait, &o->quiet, &err) != GM_OK) {
        gm_cli_error("%s", err.message);
        rc = GM_EXIT_FAIL;
        goto done;
    }
    if (lock.waits && !o->quiet)
        fprintf(stderr, "gpumem-report: our turn on %s after %.1f s\n", dev.uuid, lock.waited_s);

    gm_profiler prof = {0};
    if (!o->no_profile) {
        gmc_config cfg = gmc_config_default();
        cfg.device = (int)o->device;
        cfg.metrics = (const char *const *)metrics;
        cfg.n_metrics = n_metrics;
        cfg.flush_l2 = !o->no_cache_flush;
        /* Several experiments a batch: each batch costs a start and a stop
         * of the profiler in every pass besides its ranges, and the suite has
         * 14 experiments (runner.h, profile_batch). */
        cfg.max_launches = S_SUITE_BATCH;
        /* the previous holder of the GPU's turn may still be releasing its
         * counters (the driver tears a session down after its process ends) */
        if (gmc_session_open_waiting(&cfg, &session, 30.0, NULL, &cerr) != GMC_OK) {
            gm_cli_error("cannot profile here: %s", cerr.message);
            goto done;
        }
        prof.session = session;
        prof.max_launches = cfg.max_launches;
        so.profile = gm_profile_cases;
        so.profile_ctx = &prof;
        so.profile_batch = cfg.max_launches;
    }

    gm_suite_times times = {0};
    const char *ct = getenv("GPUMEM_REPORT_CASE_TIMES");
    S_progress pg = {o->quiet, isatty(STDERR_FILENO) == 1, S_now(), NULL,
                     ct && strcmp(ct, "1") == 0, &times, times, &results, 0};
    so.progress = S_on_progress;
    so.progress_ctx = &pg;
    so.times = &times;
    double t_suite = S_now();
    gm_status st = gm_suite_run(&so, &results, &err);
    t_suite = S_now() - t_suite;
    S_say_case_times(&pg);
    if (pg.tty && !o->quiet)
        fputs("\r\033[K", stderr);
    if (st != GM_OK) {
        gm_cli_error("collection stopped: %s", err.message);
        rc = (st == GM_ERR_NO_DEVICE || st == GM_ERR_PERMISSION) ? GM_EXIT_USAGE : GM_EXIT_FAIL;
        if (results.n_runs == 0 || st == GM_ERR_NO_DEVICE || st == GM_ERR_PERMISSION)
            goto done;
        /* the runs completed are kept: written whole, and said to be partial */
        results.collection.partial = gm_xstrdup(err.message);
        S_fill_header(&results, o, argc, argv, metrics, n_metrics, &dev, session);
        results.collection.profile_seconds = session ? gm_vreal(prof.seconds) : gm_vabsent();
        results.collection.total_seconds = gm_vreal(S_now() - t_start);
        if (gm_results_write_file(&results, json_path, &err) != GM_OK)
            gm_cli_error("%s", err.message);
        else
            fprintf(stderr, "results: %s (partial: the %zu runs completed before the stop)\n",
                    json_path, results.n_runs);
        goto done;
    }
    S_fill_header(&results, o, argc, argv, metrics, n_metrics, &dev, session);
    results.collection.profile_seconds = session ? gm_vreal(prof.seconds) : gm_vabsent();
    /* The per-source-line pass runs last, in processes of its own (cmd_trace.c,
     * cmd_sass.c), with this process's profiler closed: times and counters
     * above are untouched by it. */
    if (session && !o->no_source_lines) {
        gmc_session_close(session);
        session = NULL;
        /* the suite's default: the tracer, one process for every layout
         * (bench/results/suite-lines-2026-11-28-38a5b73.txt, H100: 6.6 s
         * against 10.4 s for a process per layout under SASS metrics, the
         * per-array table besides); a layout it did not see whole is counted
         * the SASS way */
        gm_sl_method method = GM_SL_METHOD_TRACE;
        if (o->source_lines)
            (void)gm_cli_source_lines_method(o->source_lines, &method);   /* checked: a choice */
        gm_source_lines_suite(&results, (int)o->device, o->quick, method, !o->quiet);
    }
    results.collection.total_seconds = gm_vreal(S_now() - t_start);
    if (!o->quiet)
        S_say_times(&times, t_suite, &results);
    gm_devlock_release(&lock);
    proc.device_uuid = dev.uuid[0] ? gm_xstrdup(dev.uuid) : NULL;
    proc.lock_wait_seconds = gm_vreal(lock.waited_s);
    proc.lock_waits = lock.waits;
    proc.lock_turns = lock.turns;
    results.collection.process = proc;
    memset(&proc, 0, sizeof proc);

    if (gm_results_write_file(&results, json_path, &err) != GM_OK) {
        gm_cli_error("%s", err.message);
        rc = GM_EXIT_FAIL;
        goto done;
    }
    if (!o->quiet)
        fprintf(stderr, "results: %s (%zu runs, %.1f s)\n", json_path, results.n_runs,
                S_now() - t_start);
    if (o->main_job) {
        gm_status rst = gm_render(&results, &ro, &err);
        if (rst == GM_ERR_INCOMPLETE) {
            gm_cli_error("the report %s is written, but incomplete: %s", o->out, err.message);
            rc = GM_EXIT_FAIL;
            goto done;
        }
        if (rst != GM_OK) {
            gm_cli_error("%s", err.message);
            fprintf(stderr, "  the results are kept in %s; render them again with:\n"
                            "    gpumem-report render %s --out %s\n",
                    json_path, json_path, out_path);
            rc = err.status == GM_ERR_GNUPLOT ? GM_EXIT_USAGE : GM_EXIT_FAIL;
            goto done;
        }
        if (!o->quiet)
            fprintf(stderr, "report: %s (%.1f s in all)\n", out_path, S_now() - t_start);
    }

    size_t bad = 0;
    for (size_t i = 0; i < results.n_runs; i++) {
        const gm_run *run = &results.runs[i];
        if (run->check.status == GM_CHECK_FAILED || run->check.status == GM_CHECK_ERROR) {
            if (bad++ < 10)
                fprintf(stderr, "gpumem-report: %s %s/%s: %s\n",
                        gm_check_status_name(run->check.status), run->experiment, run->variant,
                        run->check.reason ? run->check.reason : "");
        }
    }
    if (bad) {
        fprintf(stderr, "gpumem-report: %zu run(s) did not pass validation; the %s says which\n",
                bad, o->main_job ? "report" : "results file");
        rc = GM_EXIT_FAIL;
    } else {
        rc = GM_EXIT_OK;
    }

done:
    gmc_session_close(session);
    gm_devlock_free(&lock);
    gm_claim_release(&out_claim);
    gm_claim_release(&json_claim);
    gm_process_free(&proc);
    gm_results_free(&results);
    gm_results_free(&baseline);
    S_free_list(metrics, n_metrics);
    free(json_path);
    free(out_path);
    free(template_path);
    free(exe);
    return rc;
}

#else /* no CUDA toolkit at build time */

static int S_collect(int argc, char **argv, S_opts *o)
{
    (void)argc, (void)argv, (void)o;
    gm_cli_error("this gpumem-report was built without the CUDA toolkit, so it cannot collect.\n"
                 "  Rebuild with CUDA_HOME pointing at a CUDA 13 toolkit, or render an existing run:\n"
                 "    gpumem-report render examples/h100/run.json --out report.html");
    return GM_EXIT_USAGE;
}

#endif

#ifdef GM_HAVE_CUDA

/* ---- --device all | N,N: one process per GPU (orchestrate/fanout.h) -------- */

/* Options a device's process does not take: the main job's own (the parent
 * renders) and the ones the parent sets per device (--device, --json), by
 * the table; those that take a value skip it too (unless given as --opt=V).
 * What is left goes to each device's process. */
static size_t S_child_args(int argc, char **argv, const S_opts *o, char **args)
{
    unsigned variant = o->main_job ? GM_OPT_MAIN : GM_OPT_COLLECT;
    const gm_opt_table *t = o->main_job ? &gm_opts_main : &gm_opts_collect;
    size_t na = 0;
    for (int i = 1; i < argc; i++) {
        const char *eq = NULL;
        const gm_opt *r = gm_opt_find(t, variant, argv[i], &eq);
        if (r && (r->only == GM_OPT_MAIN || strcmp(r->name, "--device") == 0 ||
                  strcmp(r->name, "--json") == 0)) {
            if (gm_opt_takes_value(r) && !eq)
                i++;
            continue;
        }
        args[na++] = argv[i];
    }
    args[na] = NULL;
    return na;
}

static int S_fan_out(int argc, char **argv, S_opts *o)
{
    int devs[1024];
    int n = 0;
    if (strcmp(o->devices, "all") == 0) {
        gmc_error cerr = {GMC_OK, ""};
        int count = 0;
        if (gmc_device_count(&count, &cerr) != GMC_OK || count == 0) {
            gm_cli_error("--device all: %s", count == 0 && cerr.status == GMC_OK
                                                    ? "no CUDA device found"
                                                    : cerr.message);
            S_no_gpu_hint();
            return GM_EXIT_USAGE;
        }
        for (int d = 0; d < count && d < 1024; d++)
            devs[n++] = d;
    } else {
        char **items = NULL;
        size_t ni = 0;
        if (!S_split("--device", o->devices, &items, &ni))
            return GM_EXIT_USAGE;
        bool ok = true;
        for (size_t i = 0; i < ni && ok; i++) {
            long long d;
            ok = gm_cli_int("--device", items[i], 0, 1023, &d);
            for (int k = 0; ok && k < n; k++)
                if (devs[k] == (int)d) {
                    gm_cli_error("--device: %lld is listed twice", d);
                    ok = false;
                }
            if (ok)
                devs[n++] = (int)d;
        }
        S_free_list(items, ni);
        if (!ok)
            return GM_EXIT_USAGE;
    }
    if (n == 1) {
        /* one GPU: one process, exactly what --device N does */
        if (!o->quiet)
            fprintf(stderr, "gpumem-report: --device %s: one device (%d), collected in this "
                            "process\n", o->devices, devs[0]);
        o->device = devs[0];
        o->devices = NULL;
        return S_collect(argc, argv, o);
    }

    int rc = GM_EXIT_USAGE;
    /* GPUMEM_REPORT_SELF: the program started per device (tests start a
     * stand-in that fails on one device); default: this program */
    const char *self = getenv("GPUMEM_REPORT_SELF");
    char *exe = self && *self ? gm_xstrdup(self) : gm_cli_exe_path();
    char *out_path = NULL, *template_path = NULL;
    char **json = NULL;
    char **args = gm_xcalloc((size_t)argc + 1, sizeof *args);
    gm_claim out_claim = GM_CLAIM_INIT;   /* each device's process claims its --json */
    gm_render_opts ro = {0};
    gm_error err = {GM_OK, ""};
    if (!exe) {
        gm_cli_error("cannot find this program (/proc/self/exe) to start one per GPU");
        goto done;
    }
    if (gm_fan_out_paths(o->json, o->out, devs, n, &json, &err) != GM_OK) {
        gm_cli_error("%s", err.message);
        goto done;
    }
    if (o->main_job) {
        if (o->baseline) {
            gm_cli_error("--baseline compares one device's results; with --device %s render "
                         "each device's file with it", o->devices);
            goto done;
        }
        if (gm_path_uses(o->out, 'd')) {
            gm_cli_error("--out %s: the comparison of all devices is one report; %%d has no "
                         "value there", o->out);
            goto done;
        }
        if (!(out_path = gm_cli_expand("--out", o->out, -1)))
            goto done;
        ro.template_path = o->template_path;
        ro.exe_path = exe;
        ro.gnuplot = o->gnuplot;
        ro.gnuplot_timeout = o->gnuplot_timeout;
        ro.timestamp = o->timestamp;
        if (!gm_cli_report_opts(&ro, out_path, o->format, json[0], &template_path))
            goto done;
        for (int i = 1; i < n; i++)
            if (strcmp(json[i], out_path) == 0) {
                gm_cli_error("--json and --out name the same file '%s'", out_path);
                goto done;
            }
        if (!gm_cli_claim("--out", out_path, &out_claim))
            goto done;
    }
    S_child_args(argc, argv, o, args);
    gm_fan_out_spec fs = {.devices = devs, .n = n, .exe = exe, .args = args, .json = json,
                          .log = stderr, .quiet = o->quiet,
                          .render = o->main_job ? &ro : NULL};
    rc = gm_fan_out(&fs);
done:
    for (int i = 0; json && i < n; i++)
        free(json[i]);
    free(json);
    free(args);
    free(exe);
    gm_claim_release(&out_claim);
    free(out_path);
    free(template_path);
    return rc;
}

#else

static int S_fan_out(int argc, char **argv, S_opts *o) { return S_collect(argc, argv, o); }

#endif

static int S_main(int argc, char **argv, bool main_job)
{
    S_opts o = {0};
    o.main_job = main_job;
    int p = S_parse(argc, argv, &o);
    int rc = p == 1   ? GM_EXIT_OK
             : p == 2 ? GM_EXIT_USAGE
             : o.devices ? S_fan_out(argc, argv, &o)
                         : S_collect(argc, argv, &o);
    gm_opt_free(&gm_opts_main, &o);
    return rc;
}

int gm_cmd_collect(int argc, char **argv)
{
    return gm_cli_has_program(argc, argv) ? gm_cmd_app(argc, argv, false)
                                          : S_main(argc, argv, false);
}

int gm_cmd_run(int argc, char **argv) { return S_main(argc, argv, true); }
