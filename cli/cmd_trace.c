/* Per-source-line counts through the Compute Sanitizer tracer (issue 25):
 * one extra run for every kernel, instead of one per kernel.
 *
 * CUPTI and the sanitizer exclude each other in a process, and a traced
 * launch runs 69 to 2050 times slower than an untraced one (collectors/
 * gmc_trace.h), so the counts cannot be taken in the counter run: the tracer
 * gets a run of its own, after the counters and the timing.
 *   - A program (gm_source_lines_program): it runs once more with the
 *     injection library in trace mode (collectors/inject_trace.c), the same
 *     kernel filter as the counter run; the first launch of each chosen
 *     kernel is traced in place.
 *   - The suite (gm_source_lines_suite): a few children at once (gm_children_width),
 *     the chosen layouts dealt among them round-robin, each child
 *
 *         gpumem-report trace-child [--device N] [--quick] --out FILE --lib PATH
 *                                   --case LABEL EXP VARIANT NAME=VALUE... [--case ...]
 *
 *     setting up each of its cases in turn and launching it once under its
 *     label (its place among the chosen); the tracer (libgpumem-trace.so,
 *     loaded with dlopen) traces that launch.
 * Where the tracer's library is missing, cannot load (no Compute
 * Sanitizer), or the run gives no records, the SASS path of cmd_sass.c
 * (one process per kernel) counts instead, and the stderr and the results
 * (collection.source_lines_fallback) say why.
 */
#include "cli.h"

#include "gm_version.h"

#include "../collectors/inject.h"
#include "../collectors/replay_file.h"
#include "../collectors/trace_mode.h"
#include "../core/buf.h"
#include "../core/results.h"
#include "../core/srclines.h"
#include "../orchestrate/children.h"
#include "../orchestrate/nvdisasm.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef GM_HAVE_CUDA
#include "../kernels/runner.h"
#include "../kernels/suite.h"

#include <cuda_runtime_api.h>
#endif

#ifndef GM_LIBDIR
#define GM_LIBDIR "/usr/local/lib/gpumem-report"
#endif

/* The suite's child: a case traced takes up to a few seconds at full size
 * (a traced launch is 69 to 2050 times its time); the child is stopped
 * after this much, plus this much per case. */
#define S_CHILD_TIMEOUT_S 120.0

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool gm_cli_source_lines_method(const char *val, gm_sl_method *out)
{
    if (val && strcmp(val, "trace") == 0)
        *out = GM_SL_METHOD_TRACE;
    else if (val && strcmp(val, "sass") == 0)
        *out = GM_SL_METHOD_SASS;
    else {
        gm_cli_error("--source-lines: '%s' is not trace or sass", val ? val : "");
        return false;
    }
    return true;
}

static bool S_readable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* The tracer's library: $GPUMEM_REPORT_TRACE_LIB, else beside `near` (the
 * injection library, or the binary), else <dir of near>/../lib/gpumem-report,
 * else GM_LIBDIR.  NULL with *why when none is there. */
/* "per-line counts: WHY; WHAT" on stderr, in lines of at most GMI_LINE_MAX
 * bytes (inject.h: gmi_say). */
static void S_fallback_say(const char *why, const char *what)
{
    gm_buf t = GM_BUF_INIT;
    gm_buf_printf(&t, "%s; %s", why ? why : "the tracer is unavailable", what);
    char *lines = gmi_say("gpumem-report: per-line counts: ", t.data);
    fputs(lines, stderr);
    free(lines);
    gm_buf_free(&t);
}

char *gm_cli_trace_lib(const char *near, char **why)
{
    const char *env = getenv(GMI_ENV_TRACE_LIB);
    gm_buf b = GM_BUF_INIT;
    if (env && *env) {
        if (S_readable(env)) {
            char real[PATH_MAX];
            return gm_xstrdup(realpath(env, real) ? real : env);
        }
        gm_buf_printf(&b, "%s=%s is no readable file", GMI_ENV_TRACE_LIB, env);
        *why = gm_buf_detach(&b);
        return NULL;
    }
    char *cand[3] = {NULL, NULL, NULL};
    size_t n = 0;
    const char *slash = near ? strrchr(near, '/') : NULL;
    if (slash) {
        gm_buf_printf(&b, "%.*s/%s", (int)(slash - near), near, GMT_LIB_NAME);
        cand[n++] = gm_buf_detach(&b);
        gm_buf_printf(&b, "%.*s/../lib/gpumem-report/%s", (int)(slash - near), near,
                      GMT_LIB_NAME);
        cand[n++] = gm_buf_detach(&b);
    }
    cand[n++] = gm_xstrdup(GM_LIBDIR "/" GMT_LIB_NAME);
    char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!found && S_readable(cand[i])) {
            char real[PATH_MAX];
            found = gm_xstrdup(realpath(cand[i], real) ? real : cand[i]);
        }
        free(cand[i]);
    }
    if (!found) {
        gm_buf_printf(&b, "the tracer's library %s is not installed (a build without the "
                          "Compute Sanitizer API has none)", GMT_LIB_NAME);
        *why = gm_buf_detach(&b);
    }
    return found;
}

static char *S_slurp(const char *path)
{
    gm_buf b = GM_BUF_INIT;
    if (!gm_buf_read_file(&b, path, 0) && !b.len) {
        gm_buf_free(&b);
        return NULL;
    }
    gm_buf_puts(&b, "");
    return gm_buf_detach(&b);
}

/* A private directory for the run's file; NULL with *why. */
static char *S_tmpdir(char **why)
{
    const char *tmp = getenv("TMPDIR");
    gm_buf dir = GM_BUF_INIT;
    gm_buf_printf(&dir, "%s/gpumem-trace.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir.data)) {
        gm_buf w = GM_BUF_INIT;
        gm_buf_printf(&w, "cannot make a private directory %s: %s", dir.data, strerror(errno));
        *why = gm_buf_detach(&w);
        gm_buf_free(&dir);
        return NULL;
    }
    return gm_buf_detach(&dir);
}

/* Read the run's records file (removed after).  false with *why when there
 * is none, it does not parse, the tracer was unavailable, or it traced
 * nothing: the caller falls back to the SASS path.  The cubins it names
 * (core/sassdis.h) into st: disassembled and removed. */
static bool S_read_trace(const char *path, int rc, const char *errbuf, gm_sl_trace *t,
                         gm_sass_text *st, char **why)
{
    char *text = S_slurp(path);
    remove(path);
    gm_sl_cubin *cub = NULL;
    size_t nc = gm_sl_cubins_parse(text ? text : "", &cub);
    gm_buf prefix = GM_BUF_INIT;
    gm_buf_printf(&prefix, "%s.", path);
    if (nc && st)
        gm_sass_text_load(st, cub, nc, prefix.data);
    else if (nc)   /* the text comes from elsewhere (S_program_replay's) */
        gm_sass_cubins_remove(cub, nc, prefix.data);
    gm_buf_free(&prefix);
    gm_sl_cubins_free(cub, nc);
    gm_buf w = GM_BUF_INIT;
    gm_error err = {GM_OK, ""};
    memset(t, 0, sizeof *t);
    if (!text) {
        gm_buf_printf(&w, "the traced run wrote no records (exit status %d)%s%s", rc,
                      errbuf[0] ? ": " : "", errbuf);
    } else if (gm_sl_trace_parse(text, "the tracer's records", t, &err) != GM_OK) {
        gm_buf_printf(&w, "%s", err.message);
    } else if (t->unavailable) {
        gm_buf_printf(&w, "the Compute Sanitizer tracer is unavailable: %s", t->unavailable);
        gm_sl_trace_free(t);
    } else if (!t->n_launches) {
        /* nothing traced at all: the SASS path may still count */
        if (t->error)
            gm_buf_printf(&w, "the Compute Sanitizer tracer failed: %s", t->error);
        else
            gm_buf_printf(&w, "the traced run traced no launch (it saw %lld; exit status %d%s%s)",
                          t->seen, rc, errbuf[0] ? ": " : "", errbuf);
        gm_sl_trace_free(t);
    }
    free(text);
    if (w.len) {
        *why = gm_buf_detach(&w);
        return false;
    }
    gm_buf_free(&w);
    return true;
}

/* One run's lines from a traced launch (L NULL: not traced, why in note), its
 * files relative to root (NULL: unknown, a program's). */
static bool S_fill(gm_srclines *sl, const gm_sl_trace_launch *L, const gm_sl_trace *t,
                   const char *missing, const char *root)
{
    gm_srclines_clear(sl);
    sl->present = true;
    sl->seconds = gm_vabsent();
    if (!L) {
        sl->status = gm_xstrdup("failed");
        gm_buf b = GM_BUF_INIT;
        if (t->error)
            gm_buf_printf(&b, "%s; the tracer's first error: %s", missing, t->error);
        else
            gm_buf_puts(&b, missing);
        sl->note = gm_buf_detach(&b);
        return false;
    }
    gm_srclines_from_trace(sl, L);
    if (root)
        gm_srclines_relate(sl, root);
    if (sl->n_lines == 0) {
        sl->status = gm_xstrdup("failed");
        sl->note = gm_xstrdup("the tracer saw no global or shared memory instruction in this "
                              "launch (cp.async, ldmatrix and bulk copies are not counted)");
        return false;
    }
    sl->status = gm_xstrdup("collected");
    if (!sl->line_info)
        sl->note = gm_xstrdup("the kernel carries no line info, so the counts are per SASS "
                              "instruction; build it with nvcc -lineinfo to see source lines");
    return true;
}

static void S_collection(gm_results *r, const char *method, char *fallback, double seconds,
                         long long launches)
{
    gm_collection *c = &r->collection;
    c->source_lines = true;
    c->source_lines_seconds = gm_vreal(seconds);
    c->source_lines_launches = launches;
    free(c->source_lines_method);
    c->source_lines_method = gm_xstrdup(method);
    free(c->source_lines_fallback);
    c->source_lines_fallback = fallback;
}

/* The traced launch's global sectors against the counters of the same launch
 * (l1tex__t_sectors_pipe_lsu_mem_global_op_ld + _st): fewer means the tracer
 * did not see some global instruction (on the H100 and the H200 the Compute
 * Sanitizer reported the second of two 16-byte loads issued back to back with
 * a width its rules do not know, bench/results/suite-lines-2026-11-28-*.txt),
 * so the lines' global counts fall short: the note says so and true is
 * returned.  More is not a shortfall (atomics and reductions count in the
 * lines, not in those two counters); nor are fewer instructions alone (a
 * warp whose lanes are all predicated off executes the instruction and
 * touches nothing).  dropped: the warp-level accesses the tracer's process
 * left uncounted, said with it. */
static bool S_check_against_counters(gm_run *run, long long dropped)
{
    gm_srclines *sl = &run->source_lines;
    if (!sl->status || strcmp(sl->status, "collected") != 0)
        return false;
    long long sectors = gm_srclines_total(sl, GM_SL_SECTORS);
    double ld = gm_run_metric_num(run, GM_M_LD_SECTORS), st = gm_run_metric_num(run, GM_M_ST_SECTORS);
    if (!(ld == ld && st == st) || (double)sectors >= ld + st)
        return false;
    gm_buf b = GM_BUF_INIT;
    if (sl->note)
        gm_buf_printf(&b, "%s; ", sl->note);
    gm_buf_printf(&b, "the tracer's lines hold %lld global sectors where the counters of the "
                      "same launch measured %.0f, so it missed some global instruction and "
                      "these lines' global counts fall short", sectors, ld + st);
    if (dropped > 0)
        gm_buf_printf(&b, " (its process left %lld warp-level access%s uncounted: a width its "
                          "rules do not know, or its table full)",
                      dropped, dropped == 1 ? "" : "es");
    free(sl->note);
    sl->note = gm_buf_detach(&b);
    return true;
}

/* ---- a program ------------------------------------------------------------------ */

/* How long the traced run of a program may take: GM_TRACE_RUN_FACTOR times
 * the counted run's wall time, at least GM_TRACE_RUN_MIN_S; past it the run
 * (its process group) is stopped and what it traced by then is kept, so a
 * tracer that waits for ever (a launch it cannot read back) never holds the
 * tool.  GPUMEM_REPORT_TRACE_TIMEOUT (seconds, > 0) sets it instead. */
#define GM_TRACE_RUN_FACTOR 10.0
#define GM_TRACE_RUN_MIN_S 120.0
static double S_trace_limit(const gm_results *r)
{
    const char *env = getenv("GPUMEM_REPORT_TRACE_TIMEOUT");
    if (env && *env) {
        char *end;
        double v = strtod(env, &end);
        if (*end == '\0' && v > 0 && isfinite(v))
            return v;
        fprintf(stderr, "gpumem-report: GPUMEM_REPORT_TRACE_TIMEOUT='%.40s' is not a number of "
                        "seconds above 0; the default is used\n", env);
    }
    double ran = gm_value_num(&r->collection.total_seconds);
    double limit = isfinite(ran) ? GM_TRACE_RUN_FACTOR * ran : 0;
    return limit > GM_TRACE_RUN_MIN_S ? limit : GM_TRACE_RUN_MIN_S;
}

/* A run whose lines were counted already (by the replay). */
static bool S_collected(const gm_run *run)
{
    return run->source_lines.present && run->source_lines.status &&
           strcmp(run->source_lines.status, "collected") == 0;
}

/* The first run of each kernel of r, once: true for run i. */
static bool S_first_of_kernel(const gm_results *r, size_t i)
{
    const gm_run *run = &r->runs[i];
    if (!run->kernel || !run->n_metrics)
        return false;
    for (size_t j = 0; j < i; j++)
        if (r->runs[j].kernel && strcmp(r->runs[j].kernel, run->kernel) == 0)
            return false;
    return true;
}

/* Fill the first run of each kernel that t traced (and, fill_missing, say of
 * the others that it did not, with miss); the kernels filled, *failed the
 * runs said to have failed.  Runs collected already are left alone. */
static size_t S_fill_program(gm_results *r, const gm_sl_trace *t, const gm_sass_text *st,
                             const char *miss, bool fill_missing, size_t *failed)
{
    size_t got = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        gm_run *run = &r->runs[i];
        if (!S_first_of_kernel(r, i) || S_collected(run))
            continue;
        const gm_sl_trace_launch *L = NULL;
        for (size_t k = 0; k < t->n_launches && !L; k++)
            if (t->launches[k].kernel && strcmp(t->launches[k].kernel, run->kernel) == 0)
                L = &t->launches[k];
        if (!L && !fill_missing)
            continue;
        bool ok = S_fill(&run->source_lines, L, t, miss, NULL);
        if (ok) {
            gm_sass_text_apply(st, &run->source_lines);
            S_check_against_counters(run, t->dropped);
        }
        /* the traced launch's counts under the model's rules, beside the
         * counters of the same launch (the report's model table) */
        if (ok && !run->prediction.present)
            gm_sl_trace_predict(L, &run->prediction);
        got += ok;
        *failed += !ok;
    }
    return got;
}

static bool S_program_trace(gm_results *r, const char *prog, char *const *argv, const char *lib,
                            const char *tlib, const gm_sl_filter *f, bool progress,
                            double *seconds, long long *traced, char **why)
{
    char *dir = S_tmpdir(why);
    if (!dir)
        return false;
    gm_buf out = GM_BUF_INIT, e[6] = {GM_BUF_INIT, GM_BUF_INIT, GM_BUF_INIT, GM_BUF_INIT,
                                      GM_BUF_INIT, GM_BUF_INIT};
    gm_buf_printf(&out, "%s/trace.txt", dir);
    gm_buf_printf(&e[0], "CUDA_INJECTION64_PATH=%s", lib);
    gm_buf_printf(&e[1], "%s=%s", GMI_ENV_TRACE_OUT, out.data);
    gm_buf_printf(&e[2], "%s=%s", GMI_ENV_TRACE_LIB, tlib);
    if (f->kernel)
        gm_buf_printf(&e[3], "%s=%s", GMI_ENV_KERNEL, f->kernel);
    else
        gm_buf_puts(&e[3], GMI_ENV_KERNEL);
    if (f->skip >= 0)
        gm_buf_printf(&e[4], "%s=%lld", GMI_ENV_LAUNCH_SKIP, f->skip);
    else
        gm_buf_puts(&e[4], GMI_ENV_LAUNCH_SKIP);
    if (f->count >= 0)
        gm_buf_printf(&e[5], "%s=%lld", GMI_ENV_LAUNCH_COUNT, f->count);
    else
        gm_buf_puts(&e[5], GMI_ENV_LAUNCH_COUNT);
    const char *env[] = {e[0].data, e[1].data, e[2].data, e[3].data, e[4].data, e[5].data,
                         GMI_ENV_DIR, "NVTX_INJECTION64_PATH", GMI_ENV_SASS_KERNEL,
                         GMI_ENV_SASS_OUT, NULL};
    size_t na = 0;
    while (argv[na])
        na++;
    char **args = gm_xcalloc(na + 1, sizeof *args);
    args[0] = (char *)prog;
    for (size_t k = 1; k < na; k++)
        args[k] = argv[k];
    if (progress)
        fprintf(stderr, "source lines: the program runs once more, its kernels traced\n");
    char errbuf[600];
    double t0 = S_now();
    int rc = gm_cli_spawn(args, NULL, errbuf, sizeof errbuf, env, S_trace_limit(r));
    double dt = S_now() - t0;
    free(args);
    gm_sl_trace t;
    gm_sass_text st = GM_SASS_TEXT_INIT;
    bool ok = S_read_trace(out.data, rc, errbuf, &t, &st, why);
    gm_sass_cubins_sweep(dir);
    rmdir(dir);
    free(dir);
    gm_buf_free(&out);
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++)
        gm_buf_free(&e[i]);
    if (!ok) {
        gm_sass_text_free(&st);
        return false;
    }
    size_t failed = 0;
    gm_buf miss = GM_BUF_INIT;
    gm_buf_printf(&miss, "the traced run did not trace this kernel (it made %lld launches; "
                         "exit status %d%s%s)", t.seen, rc, errbuf[0] ? ": " : "", errbuf);
    size_t got = S_fill_program(r, &t, &st, miss.data, true, &failed);
    gm_buf_free(&miss);
    *seconds += dt;
    *traced += t.traced;
    if (progress && failed)
        fprintf(stderr, "gpumem-report: the per-source-line pass failed for %zu of %zu kernels; "
                        "the report says which\n", failed, got + failed);
    gm_sl_trace_free(&t);
    gm_sass_text_free(&st);
    return true;
}

/* ---- a program's kept launches, made again (cmd_replay.c) ----------------------------- */

/* The kernels of r the replay has not counted, that have a first run. */
static size_t S_uncounted(const gm_results *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_runs; i++)
        n += S_first_of_kernel(r, i) && !S_collected(&r->runs[i]);
    return n;
}

/* The SASS text of the kept launches' functions, from the cubins the counted
 * run kept (hard links to them in a private directory, which
 * gm_sass_text_load removes), taken in a thread while trace-replay runs:
 * nvdisasm on a library's cubins takes about as long as the replay. */
typedef struct {
    gm_sass_text st;
    gm_sl_cubin *c;
    size_t n;
    char *prefix;
    pthread_t thread;
    bool running;
} S_pretext;

static void *S_pretext_run(void *arg)
{
    S_pretext *p = arg;
    gm_sass_text_load(&p->st, p->c, p->n, p->prefix);
    return NULL;
}

static void S_pretext_start(S_pretext *p, const gm_replay *rp, const char *capdir,
                            const char *dir)
{
    memset(p, 0, sizeof *p);
    p->st = (gm_sass_text)GM_SASS_TEXT_INIT;
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s/pre.", dir);
    p->prefix = gm_buf_detach(&b);
    p->c = gm_xcalloc(rp->n_launches ? rp->n_launches : 1, sizeof *p->c);
    for (size_t i = 0; i < rp->n_launches; i++) {
        const gm_rp_launch *l = &rp->launches[i];
        gm_buf from = GM_BUF_INIT, to = GM_BUF_INIT;
        gm_buf_printf(&from, "%s/%s", capdir, l->cubin);
        gm_buf_printf(&to, "%s%s", p->prefix, l->cubin);
        if (link(from.data, to.data) == 0 || errno == EEXIST) {
            p->c[p->n].function = gm_xstrdup(l->symbol);
            p->c[p->n].path = gm_buf_detach(&to);
            p->n++;
        }
        gm_buf_free(&from);
        gm_buf_free(&to);
    }
    p->running = p->n && pthread_create(&p->thread, NULL, S_pretext_run, p) == 0;
    if (!p->running && p->n)
        gm_sass_cubins_remove(p->c, p->n, p->prefix);
}

/* Wait for the text (once). */
static void S_pretext_join(S_pretext *p)
{
    if (p->running)
        (void)pthread_join(p->thread, NULL);
    p->running = false;
}

static void S_pretext_free(S_pretext *p)
{
    S_pretext_join(p);
    gm_sl_cubins_free(p->c, p->n);
    p->c = NULL;
    p->n = 0;
    gm_sass_text_free(&p->st);
    free(p->prefix);
    p->prefix = NULL;
}

/* Make the launches the counted run kept in capdir again, traced, in
 * `gpumem-report trace-replay` processes: one, and after a launch that fails
 * (the process ends there) another from the launch after it.  Fills the runs
 * of the kernels traced; false with *why when nothing was kept or traced.
 * *skipped: why some kernel was not kept or failed, for the rerun's note. */
static bool S_program_replay(gm_results *r, const char *capdir, const char *tlib, bool progress,
                             double *seconds, long long *traced, char **skipped, char **why)
{
    gm_buf path = GM_BUF_INIT, text = GM_BUF_INIT, w = GM_BUF_INIT;
    gm_buf_printf(&path, "%s/%s", capdir, GM_RP_MANIFEST);
    bool have = gm_buf_read_file(&text, path.data, 0);
    gm_buf_puts(&text, "");
    gm_replay rp;
    memset(&rp, 0, sizeof rp);
    gm_error err = {GM_OK, ""};
    if (!have) {
        gm_buf_puts(&w, "the counted run kept no launch to make again");
    } else if (gm_rp_parse(text.data, path.data, &rp, &err) != GM_OK) {
        gm_buf_puts(&w, err.message);
    } else if (!rp.n_launches) {
        gm_buf_printf(&w, "the counted run kept no launch to make again%s%s",
                      rp.n_skips ? ": " : "", rp.n_skips ? rp.skips[0].why : "");
    }
    gm_buf_free(&text);
    gm_buf_free(&path);
    gm_buf sk = GM_BUF_INIT;
    for (size_t i = 0; i < rp.n_skips; i++)
        gm_buf_printf(&sk, "%s%s: %s", sk.len ? "; " : "", rp.skips[i].kernel, rp.skips[i].why);
    size_t n = rp.n_launches;
    if (w.len) {
        gm_rp_free(&rp);
        *why = gm_buf_detach(&w);
        *skipped = sk.len ? gm_buf_detach(&sk) : NULL;
        gm_buf_free(&sk);
        return false;
    }
    char *dir = S_tmpdir(why);
    if (!dir) {
        gm_rp_free(&rp);
        gm_buf_free(&sk);
        return false;
    }
    S_pretext pre;
    S_pretext_start(&pre, &rp, capdir, dir);
    gm_rp_free(&rp);
    char *exe = gm_cli_exe_path();
    if (progress)
        fprintf(stderr, "source lines: %zu kept launch%s made again, traced\n", n,
                n == 1 ? "" : "es");
    double t0 = S_now();
    size_t from = 0, got = 0, tries = 0;
    const char *env[] = {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", NULL};
    while (from < n && tries++ < n) {
        gm_buf out = GM_BUF_INIT, so = GM_BUF_INIT;
        gm_buf_printf(&out, "%s/replay-%zu.txt", dir, tries);
        char fs[32];
        snprintf(fs, sizeof fs, "%zu", from);
        char *args[] = {exe ? exe : (char *)"/proc/self/exe", (char *)"trace-replay",
                        (char *)"--dir", (char *)capdir, (char *)"--out", out.data,
                        (char *)"--lib", (char *)tlib, (char *)"--from", fs, NULL};
        char errbuf[4096];
        int rc = gm_cli_spawn(args, &so, errbuf, sizeof errbuf, env, S_trace_limit(r));
        const char *dbg = getenv("GPUMEM_REPORT_DEBUG");
        if (dbg && *dbg && strcmp(dbg, "0") != 0)
            fprintf(stderr, "gpumem-report: debug: trace-replay exit status %d, its stderr's "
                            "end: %s\n", rc, errbuf);
        /* the launches it finished: "done N" lines */
        long long last = (long long)from - 1;
        gm_buf_puts(&so, "");
        for (const char *p = so.data; (p = strstr(p, "done ")); p += 5)
            last = strtoll(p + 5, NULL, 10);
        gm_buf_free(&so);
        gm_sl_trace t;
        char *rwhy = NULL;
        if (S_read_trace(out.data, rc, errbuf, &t, NULL, &rwhy)) {
            size_t failed = 0;
            S_pretext_join(&pre);
            got += S_fill_program(r, &t, &pre.st, "", false, &failed);
            *traced += t.traced;
            gm_sl_trace_free(&t);
        } else if (rc != GM_EXIT_REPLAY_LAUNCH) {
            /* the process traced nothing, and not because a launch failed (the
             * tracer is unavailable, it could not start): no use trying more */
            gm_buf_printf(&sk, "%sthe replay traced nothing: %s", sk.len ? "; " : "", rwhy);
            free(rwhy);
            gm_buf_free(&out);
            break;
        }
        free(rwhy);
        gm_buf_free(&out);
        if (rc != 0) {
            gm_buf_printf(&sk, "%skept launch %lld failed when made again (exit status %d%s%s)",
                          sk.len ? "; " : "", last + 1, rc, errbuf[0] ? ": " : "", errbuf);
        }
        from = (size_t)(last + 2 > (long long)from ? last + 2 : (long long)from + 1);
        if (rc == 0)
            break;
    }
    S_pretext_free(&pre);
    *seconds += S_now() - t0;
    free(exe);
    gm_sass_cubins_sweep(dir);
    rmdir(dir);
    free(dir);
    *skipped = sk.len ? gm_buf_detach(&sk) : NULL;
    gm_buf_free(&sk);
    if (!got) {
        gm_buf_printf(&w, "no kept launch could be made again and traced%s%s",
                      *skipped ? ": " : "", *skipped ? *skipped : "");
        *why = gm_buf_detach(&w);
        return false;
    }
    return true;
}

void gm_source_lines_program(gm_results *r, const char *prog, char *const *argv, const char *lib,
                             const char *capture_dir, const gm_sl_filter *f, gm_sl_method method,
                             bool progress)
{
    char *why = NULL;
    if (method == GM_SL_METHOD_TRACE) {
        char *tlib = gm_cli_trace_lib(lib, &why);
        double sec = 0;
        long long traced = 0;
        char *skipped = NULL, *rwhy = NULL;
        bool replayed = tlib && capture_dir &&
                        S_program_replay(r, capture_dir, tlib, progress, &sec, &traced,
                                         &skipped, &rwhy);
        size_t left = S_uncounted(r);
        bool done = replayed && !left;
        char *rerun_why = NULL;
        if (!replayed && rwhy && capture_dir) {
            if (progress)
                fprintf(stderr, "source lines: the kept launches were not made again (%s)\n",
                        rwhy);
            gm_buf b = GM_BUF_INIT;
            gm_buf_printf(&b, "the launches the counted run kept were not made again (%s), so "
                              "the program ran once more", rwhy);
            rerun_why = gm_buf_detach(&b);
        }
        if (tlib && left) {
            /* what the replay could not count: the program runs once more */
            if (progress && replayed)
                fprintf(stderr, "source lines: %zu kernel%s not made again (%s); the program "
                                "runs once more for %s\n", left, left == 1 ? "" : "s",
                        skipped ? skipped : "?", left == 1 ? "it" : "them");
            char *twhy = NULL;
            done = S_program_trace(r, prog, argv, lib, tlib, f, progress, &sec, &traced, &twhy);
            if (replayed && done) {
                free(rerun_why);
                gm_buf b = GM_BUF_INIT;
                gm_buf_printf(&b, "%zu kernel%s traced in a run of the program of %s own, not "
                                  "made again from the counted run: %s", left,
                              left == 1 ? " was" : "s were", left == 1 ? "its" : "their",
                              skipped ? skipped : "the replay did not trace it");
                rerun_why = gm_buf_detach(&b);
            }
            if (!done && replayed) {
                /* what the replay counted stays; the others say why they have none */
                gm_sl_trace none;
                memset(&none, 0, sizeof none);
                gm_sass_text st = GM_SASS_TEXT_INIT;
                gm_buf b = GM_BUF_INIT;
                gm_buf_printf(&b, "not made again from the counted run (%s), and the run of the "
                                  "program that was to trace it failed: %s",
                              skipped ? skipped : "?", twhy ? twhy : "?");
                size_t failed = 0;
                (void)S_fill_program(r, &none, &st, b.data, true, &failed);
                gm_buf_free(&b);
                done = true;
            }
            if (!done) {
                free(why);
                why = twhy;
            } else {
                free(twhy);
            }
        }
        free(tlib);
        free(skipped);
        if (done) {
            S_collection(r, replayed ? "replay" : "trace", rerun_why, sec, traced);
            free(rwhy);
            return;
        }
        free(rerun_why);
        if (!why) {
            why = rwhy;
            rwhy = NULL;
        }
        free(rwhy);
        if (progress)
            S_fallback_say(why, "counting each kernel in a run of its own under CUPTI's SASS "
                                "metrics instead");
    }
    gm_source_lines_program_pass(r, prog, argv, lib, progress);
    S_collection(r, "sass", why, gm_value_num(&r->collection.source_lines_seconds),
                 r->collection.source_lines_launches);
}

/* ---- the suite -------------------------------------------------------------------- */

static bool S_suite_trace(gm_results *r, int device, bool quick, bool progress, const char *tlib,
                          bool *recount, size_t *n_recount, char **why)
{
    char *dir = S_tmpdir(why);
    if (!dir)
        return false;
    char *exe = gm_cli_exe_path();
    bool *pick = gm_xcalloc(r->n_runs ? r->n_runs : 1, sizeof *pick);
    size_t total = gm_srclines_pick(r, pick);
    /* the layouts dealt to width children, an experiment's to one (they
     * share inputs: gm_srclines_deal), each child tracing its share in turn
     * into a records file of its own; a case's label is its place among the
     * chosen, so the records of all children read as one */
    size_t width;
    gm_error werr = {GM_OK, ""};
    if (gm_children_width(&width, GM_CHILDREN_WIDTH_TRACE, &werr) != GM_OK)
        gm_cli_error("warning: %s; one at a time", werr.message);
    size_t *child = gm_xcalloc(r->n_runs ? r->n_runs : 1, sizeof *child);
    width = gm_srclines_deal(r, pick, width, child);
    if (width == 0)
        width = 1;   /* nothing picked: one child, which traces nothing */
    gm_child_job *jobs = gm_xcalloc(width, sizeof *jobs);
    char **outs = gm_xcalloc(width, sizeof *outs);
    char ***argvs = gm_xcalloc(width, sizeof *argvs);
    size_t *na = gm_xcalloc(width, sizeof *na);
    char devs[16];
    snprintf(devs, sizeof devs, "%d", device);
    for (size_t j = 0; j < width; j++) {
        size_t cap = 12;
        for (size_t i = 0; i < r->n_runs; i++)
            if (pick[i] && child[i] == j)
                cap += 4 + r->runs[i].n_params;
        gm_buf b = GM_BUF_INIT;
        gm_buf_printf(&b, "%s/trace-%zu.txt", dir, j);
        outs[j] = gm_buf_detach(&b);
        char **a = argvs[j] = gm_xcalloc(cap, sizeof *a);
        a[na[j]++] = gm_xstrdup(exe ? exe : "/proc/self/exe");
        a[na[j]++] = gm_xstrdup("trace-child");
        a[na[j]++] = gm_xstrdup("--device");
        a[na[j]++] = gm_xstrdup(devs);
        if (quick)
            a[na[j]++] = gm_xstrdup("--quick");
        a[na[j]++] = gm_xstrdup("--out");
        a[na[j]++] = gm_xstrdup(outs[j]);
        a[na[j]++] = gm_xstrdup("--lib");
        a[na[j]++] = gm_xstrdup(tlib);
    }
    for (size_t i = 0, k = 0; i < r->n_runs; i++) {
        if (!pick[i])
            continue;
        size_t j = child[i];
        const gm_run *run = &r->runs[i];
        char **a = argvs[j];
        gm_buf b = GM_BUF_INIT;
        gm_buf_printf(&b, "%zu", k++);
        a[na[j]++] = gm_xstrdup("--case");
        a[na[j]++] = gm_buf_detach(&b);
        a[na[j]++] = gm_xstrdup(run->experiment);
        a[na[j]++] = gm_xstrdup(run->variant);
        for (size_t p = 0; p < run->n_params; p++) {
            gm_buf_printf(&b, "%s=%lld", run->params[p].name,
                          (long long)gm_value_num(&run->params[p].value));
            a[na[j]++] = gm_buf_detach(&b);
        }
    }
    for (size_t j = 0; j < width; j++)
        jobs[j].args = argvs[j];
    if (progress && width == 1)
        fprintf(stderr, "source lines: one process traces %zu layouts\n", total);
    else if (progress)
        fprintf(stderr, "source lines: %zu processes trace %zu layouts\n", width, total);
    double t0 = S_now();
    gm_children_run(jobs, width, width, S_CHILD_TIMEOUT_S * (1.0 + 0.25 * (double)total),
                      NULL, NULL);
    double dt = S_now() - t0;
    free(exe);
    gm_sl_trace *t = gm_xcalloc(width, sizeof *t);
    bool *ok = gm_xcalloc(width, sizeof *ok);
    char **whys = gm_xcalloc(width, sizeof *whys);
    size_t n_ok = 0;
    long long traced = 0;
    gm_sass_text st = GM_SASS_TEXT_INIT;
    for (size_t j = 0; j < width; j++) {
        ok[j] = S_read_trace(outs[j], jobs[j].rc, jobs[j].err, &t[j], &st, &whys[j]);
        n_ok += ok[j];
        traced += ok[j] ? t[j].traced : 0;
    }
    gm_sass_cubins_sweep(dir);
    rmdir(dir);
    free(dir);
    bool any = n_ok > 0;
    if (!any) {
        /* nothing traced anywhere: the caller counts the SASS way, saying why */
        *why = whys[0];
        whys[0] = NULL;
    }
    size_t failed = 0;
    for (size_t i = 0, k = 0; any && i < r->n_runs; i++) {
        if (!pick[i])
            continue;
        size_t j = child[i];
        char label[32];
        snprintf(label, sizeof label, "%zu", k++);
        const gm_sl_trace_launch *L = NULL;
        for (size_t m = 0; ok[j] && m < t[j].n_launches && !L; m++)
            if (t[j].launches[m].label && strcmp(t[j].launches[m].label, label) == 0)
                L = &t[j].launches[m];
        gm_buf miss = GM_BUF_INIT;
        if (ok[j])
            gm_buf_printf(&miss, "the trace child did not trace this case (exit status %d%s%s)",
                          jobs[j].rc, jobs[j].err[0] ? ": " : "", jobs[j].err);
        else
            gm_buf_printf(&miss, "the trace child of this case failed: %s", whys[j]);
        gm_sl_trace none;
        memset(&none, 0, sizeof none);
        /* the suite's kernels: built in GM_SOURCE_ROOT */
        bool got = S_fill(&r->runs[i].source_lines, L, ok[j] ? &t[j] : &none, miss.data,
                          GM_SOURCE_ROOT);
        if (got) {
            gm_sass_text_apply(&st, &r->runs[i].source_lines);
            if (S_check_against_counters(&r->runs[i], t[j].dropped)) {
                recount[i] = true;
                ++*n_recount;
            }
        }
        failed += !got;
        gm_buf_free(&miss);
    }
    if (any) {
        S_collection(r, "trace", NULL, dt, traced);
        r->collection.source_lines_processes = (long long)width;
    }
    if (progress && failed)
        fprintf(stderr, "gpumem-report: the per-source-line pass failed for %zu of %zu kernels; "
                        "the report says which\n", failed, total);
    for (size_t j = 0; j < width; j++) {
        if (ok[j])
            gm_sl_trace_free(&t[j]);
        free(whys[j]);
        free(outs[j]);
        gm_buf_free(&jobs[j].out);
        for (size_t m = 0; m < na[j]; m++)
            free(argvs[j][m]);
        free(argvs[j]);
    }
    gm_sass_text_free(&st);
    free(t);
    free(ok);
    free(whys);
    free(outs);
    free(argvs);
    free(na);
    free(jobs);
    free(pick);
    free(child);
    return any;
}

void gm_source_lines_suite(gm_results *r, int device, bool quick, gm_sl_method method,
                           bool progress)
{
    char *why = NULL;
    gm_error err = {GM_OK, ""};
    if (method == GM_SL_METHOD_TRACE) {
        char *exe = gm_cli_exe_path();
        char *tlib = gm_cli_trace_lib(exe, &why);
        free(exe);
        bool *recount = gm_xcalloc(r->n_runs ? r->n_runs : 1, sizeof *recount);
        size_t n_recount = 0;
        double t_trace = S_now();
        bool done = tlib && S_suite_trace(r, device, quick, progress, tlib, recount, &n_recount,
                                          &why);
        t_trace = S_now() - t_trace;
        free(tlib);
        if (done && n_recount) {
            /* what the tracer did not see whole, counted again the SASS way */
            double traced_s = gm_value_num(&r->collection.source_lines_seconds);
            long long traced_n = r->collection.source_lines_launches;
            gm_buf b = GM_BUF_INIT;
            gm_buf_printf(&b, "%zu layout%s counted again by CUPTI's SASS metrics, the tracer "
                              "having missed some of their global instructions:",
                          n_recount, n_recount == 1 ? "" : "s");
            for (size_t i = 0; i < r->n_runs; i++)
                if (recount[i])
                    gm_buf_printf(&b, " %s/%s", r->runs[i].experiment, r->runs[i].variant);
            if (progress)
                fprintf(stderr, "source lines: %s\n", b.data);
            double t_recount = S_now();
            gm_source_lines_pass(r, recount, device, quick, progress, &err);
            gm_cli_child_times("per-line pass (s): trace children %.3f, SASS recount %.3f\n",
                               t_trace, S_now() - t_recount);
            S_collection(r, "trace", gm_buf_detach(&b),
                         traced_s + gm_value_num(&r->collection.source_lines_seconds),
                         traced_n + r->collection.source_lines_launches);
        }
        free(recount);
        if (done)
            return;
        if (progress)
            S_fallback_say(why, "counting each layout in a process of its own under CUPTI's "
                                "SASS metrics instead");
    }
    gm_source_lines_pass(r, NULL, device, quick, progress, &err);
    S_collection(r, "sass", why, gm_value_num(&r->collection.source_lines_seconds),
                 r->collection.source_lines_launches);
}

/* ---- the suite's child -------------------------------------------------------------- */

#ifdef GM_HAVE_CUDA
/* The cases of one experiment, set up: they stay so until the next
 * experiment's first case, as in the suite runner, so that inputs their
 * setups share (gm_shared_get: the matrices of one n, the image of one scale)
 * are built once, not once a layout. */
typedef struct {
    gm_case **cases;   /* each the array gm_suite_find_case gave */
    gm_case **live;    /* the set-up case inside it */
    size_t n;
    char *exp;
} S_child_live;

static void S_child_release(S_child_live *l)
{
    for (size_t k = l->n; k-- > 0;) {   /* the last set up first */
        l->live[k]->variant->teardown(l->live[k]);
        free(l->cases[k]);
    }
    l->n = 0;
    free(l->exp);
    l->exp = NULL;
}

/* Set up one case, launch it once under label; it stays set up in l (or is
 * torn down at once when anything failed); false with a message printed. */
static bool S_child_case(const gpumem_trace_api *api, S_child_live *l, const char *label,
                         const char *exp, const char *var, char **args, int n, bool quick)
{
    if (l->exp && strcmp(l->exp, exp) != 0)
        S_child_release(l);
    gm_case *cases, *c;
    gm_error err = {GM_OK, ""};
    if (gm_suite_find_case(exp, var, args, n, quick, &cases, &c, &err) != GM_OK) {
        gm_cli_error("trace-child: %s", err.message);
        free(cases);
        return false;
    }
    const gm_variant *v = c->variant;
    bool ok = false, set_up = false;
    double t0 = S_now(), t_setup = t0;
    /* describe, then setup: as the suite runner and the SASS pass do */
    if (gm_case_setup(c, &err) != GM_OK) {
        gm_cli_error("trace-child: %s/%s: setup: %s", exp, var, err.message);
        goto done;
    }
    t_setup = S_now();
    set_up = true;
    if (v->reset && v->reset(c, 0, &err) != GM_OK) {
        gm_cli_error("trace-child: %s/%s: reset: %s", exp, var, err.message);
        goto done;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
        gm_cli_error("trace-child: %s/%s: before the launch: %s", exp, var,
                     cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    api->label(label, c->kernel);
    if (v->launch(c, 0, &err) != GM_OK) {
        gm_cli_error("trace-child: %s/%s: launch: %s", exp, var, err.message);
        goto done;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
        gm_cli_error("trace-child: %s/%s: %s: %s", exp, var, c->kernel,
                     cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    ok = true;
    gm_cli_child_times("trace-child times (s): %s/%s setup %.3f, traced launch %.3f\n", exp,
                       var, t_setup - t0, S_now() - t_setup);
done:
    api->label(NULL, NULL);
    if (ok) {
        l->cases = gm_xrealloc(l->cases, (l->n + 1) * sizeof *l->cases);
        l->live = gm_xrealloc(l->live, (l->n + 1) * sizeof *l->live);
        l->cases[l->n] = cases;
        l->live[l->n++] = c;
        if (!l->exp)
            l->exp = gm_xstrdup(exp);
        return true;
    }
    if (set_up)
        v->teardown(c);
    free(cases);
    return false;
}

int gm_cmd_trace_child(int argc, char **argv)
{
    long long device = 0;
    bool quick = false;
    const char *out = NULL, *lib = NULL;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--case") != 0; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            if (!gm_cli_int("--device", argv[++i], 0, 1023, &device))
                return GM_EXIT_USAGE;
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--lib") == 0 && i + 1 < argc) {
            lib = argv[++i];
        } else {
            gm_cli_error("trace-child: unknown option '%s'", argv[i]);
            return GM_EXIT_USAGE;
        }
    }
    if (!out || !lib || i >= argc) {
        gm_cli_error("usage: gpumem-report trace-child [--device N] [--quick] --out FILE --lib "
                     "PATH --case LABEL EXP VARIANT NAME=VALUE... [--case ...]");
        return GM_EXIT_USAGE;
    }
    /* before any CUDA call: the tracer subscribes first */
    double t_start = S_now();
    gpumem_trace_api api;
    char msg[1024];
    if (!gmi_trace_load(lib, &api, msg, sizeof msg)) {
        gmi_trace_unavailable(out, msg);
        return GM_EXIT_OK;   /* the parent reads why and counts the SASS way */
    }
    gpumem_trace_opts o = {out, NULL, -1, -1, true};
    if (api.start(&o, msg, sizeof msg) != 0) {
        gmi_trace_unavailable(out, msg);
        return GM_EXIT_OK;
    }
    double t_tracer = S_now();
    /* cudaSetDevice makes no context: cudaFree(0) does, so that its cost is
     * not counted as the first case's setup */
    if (cudaSetDevice((int)device) != cudaSuccess || cudaFree(0) != cudaSuccess) {
        gm_cli_error("trace-child: cannot use device %lld", device);
        (void)api.finish();
        return GM_EXIT_FAIL;
    }
    double t_context = S_now();
    size_t failed = 0;
    S_child_live live = {NULL, NULL, 0, NULL};
    while (i < argc) {
        /* --case LABEL EXP VARIANT NAME=VALUE... */
        int first = i + 4, end = first;
        while (end < argc && strcmp(argv[end], "--case") != 0)
            end++;
        if (first > argc) {
            gm_cli_error("trace-child: --case needs LABEL EXP VARIANT");
            failed++;
        } else if (!S_child_case(&api, &live, argv[i + 1], argv[i + 2], argv[i + 3],
                                 argv + first, end - first, quick)) {
            failed++;
        }
        i = end;
    }
    double t_cases = S_now();
    S_child_release(&live);
    free(live.cases);
    free(live.live);
    int rc = api.finish();
    gm_cli_child_times("trace-child process (s): tracer %.3f, context %.3f, cases %.3f, "
                       "teardown and records %.3f\n", t_tracer - t_start,
                       t_context - t_tracer, t_cases - t_context, S_now() - t_cases);
    if (rc != 0)
        gm_cli_error("trace-child: writing %s failed", out);
    return failed || rc ? GM_EXIT_FAIL : GM_EXIT_OK;
}
#else
int gm_cmd_trace_child(int argc, char **argv)
{
    (void)argc, (void)argv;
    gm_cli_error("trace-child: built without the CUDA toolkit");
    return GM_EXIT_USAGE;
}
#endif
