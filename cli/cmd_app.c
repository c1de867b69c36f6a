/* gpumem-report -- PROGRAM [ARGS...]: profile someone else's program.
 *
 *   gpumem-report [--out report.html] [--json run.json] [OPTIONS] -- PROGRAM [ARGS...]
 *   gpumem-report collect --json run.json [OPTIONS] -- PROGRAM [ARGS...]
 *
 * Runs PROGRAM unchanged with the injection library (collectors/inject.c,
 * build/libgpumem-inject.so) loaded by the CUDA driver, reads back what the
 * library wrote into a private directory (protocol: collectors/inject.h),
 * groups and names the launches, writes the results file and the report.
 * The program's stdin, stdout and stderr are its own; its exit status is
 * passed on (a program killed by signal S gives 128 + S, as a shell does).
 * When the program exits 0: 0 with a report, 1 when nothing could be
 * profiled for a reason the output gives, 2 when it cannot run here (no such
 * program, no GPU, counters not permitted, the library was not loaded).
 * A program that dies midway (a signal such as SIGSEGV or SIGABRT: its exit
 * handlers never run) still gets its results file and report, with the
 * launches profiled before it died, marked partial (collection.partial);
 * likewise one that ends without its exit handlers (_exit) leaving profiled
 * launches unwritten, which then gives 1 if its own status was 0.
 */
#include "../core/buf.h"
#include "cli.h"
#include "options.h"
#include "../core/devlock.h"
#include "../core/pathpat.h"
#include "../core/results.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GM_HAVE_CUDA
#include "../collectors/gm_collector.h"
#include "../collectors/inject.h"
#include "gm_version.h"
#include "../orchestrate/program.h"
#include "../reports/render.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef GM_LIBDIR
#define GM_LIBDIR "/usr/local/lib/gpumem-report"
#endif
#define S_LIBNAME "libgpumem-inject.so"

/* The options (cli/options.h; their table, gm_opts_program and
 * gm_opts_program_collect, is in cli/options.c). */
typedef gm_app_args S_opts;

/* 0 ok, 1 help printed, 2 error printed */
static int S_parse(int argc, char **argv, S_opts *o)
{
    o->launch_skip = -1;
    o->launch_count = -1;
    const gm_opt_table *t = o->main_job ? &gm_opts_program : &gm_opts_program_collect;
    int i = argc;
    int p = gm_opt_parse(t, o->main_job ? GM_OPT_MAIN : GM_OPT_COLLECT, argc, argv, o, &i);
    if (p)
        return p;
    if (i >= argc - 1) {
        gm_cli_error("no program after --: gpumem-report [OPTIONS] -- PROGRAM [ARGS...]");
        return 2;
    }
    o->prog_argv = argv + i + 1;
    o->each = o->launches && strcmp(o->launches, "each") == 0;
    if (o->main_job && !o->out)
        o->out = "report.html";
    if (!o->main_job && !o->json) {
        gm_cli_error("collect: --json FILE is required");
        return 2;
    }
    return 0;
}

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The program as execv needs it: a path with a slash as given, else the first
 * executable regular file of that name on PATH.  NULL with a message printed. */
static char *S_find_program(const char *name)
{
    struct stat st;
    if (strchr(name, '/')) {
        if (stat(name, &st) != 0) {
            gm_cli_error("cannot run '%s': %s", name, strerror(errno));
            return NULL;
        }
        if (S_ISDIR(st.st_mode)) {
            gm_cli_error("cannot run '%s': it is a directory", name);
            return NULL;
        }
        if (access(name, X_OK) != 0) {
            gm_cli_error("cannot run '%s': not executable (%s)", name, strerror(errno));
            return NULL;
        }
        return gm_xstrdup(name);
    }
    const char *path = getenv("PATH");
    char *copy = gm_xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    char *found = NULL;
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !found;
         d = strtok_r(NULL, ":", &save)) {
        gm_buf b = GM_BUF_INIT;
        gm_buf_printf(&b, "%s/%s", *d ? d : ".", name);
        if (stat(b.data, &st) == 0 && S_ISREG(st.st_mode) && access(b.data, X_OK) == 0)
            found = gm_buf_detach(&b);
        else
            gm_buf_free(&b);
    }
    free(copy);
    if (!found)
        gm_cli_error("cannot run '%s': no such program on PATH", name);
    return found;
}

static bool S_file_ok(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* The injection library: $GPUMEM_REPORT_INJECT, beside the binary (the build
 * tree), <bin>/../lib/gpumem-report (an install), GM_LIBDIR; the first that
 * exists, as an absolute path (the driver resolves it in the program's cwd). */
static char *S_find_library(const char *exe)
{
    const char *env = getenv("GPUMEM_REPORT_INJECT");
    if (env && *env) {   /* named by the user: that one or none */
        char real[PATH_MAX];
        if (S_file_ok(env) && realpath(env, real))
            return gm_xstrdup(real);
        gm_cli_error("GPUMEM_REPORT_INJECT=%s: no such readable file (unset it to use the "
                     "installed library)", env);
        return NULL;
    }
    gm_buf tried = GM_BUF_INIT;
    char *cand[3] = {NULL, NULL, NULL};
    size_t n = 0;
    if (exe) {
        char *dir = gm_xstrdup(exe);
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = '\0';
            gm_buf b = GM_BUF_INIT;
            gm_buf_printf(&b, "%s/%s", dir, S_LIBNAME);
            cand[n++] = gm_buf_detach(&b);
            gm_buf_printf(&b, "%s/../lib/gpumem-report/%s", dir, S_LIBNAME);
            cand[n++] = gm_buf_detach(&b);
        }
        free(dir);
    }
    cand[n++] = gm_xstrdup(GM_LIBDIR "/" S_LIBNAME);
    char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!found && S_file_ok(cand[i])) {
            char real[PATH_MAX];
            found = gm_xstrdup(realpath(cand[i], real) ? real : cand[i]);
        }
        gm_buf_printf(&tried, "%s    %s", i ? "\n" : "", cand[i]);
        free(cand[i]);
    }
    if (!found)
        gm_cli_error("cannot find the injection library %s; looked at:\n%s\n"
                     "  (build it with `make`, or set GPUMEM_REPORT_INJECT to its path)",
                     S_LIBNAME, tried.data);
    gm_buf_free(&tried);
    return found;
}

static char *S_join(const char *dir, const char *name)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s/%s", dir, name);
    return gm_buf_detach(&b);
}

static char *S_read_text(const char *path)
{
    gm_buf b = GM_BUF_INIT;
    if (!gm_buf_read_file(&b, path, 0) && !b.len) {
        gm_buf_free(&b);
        return NULL;
    }
    gm_buf_puts(&b, "");
    return gm_buf_detach(&b);
}

/* Remove the private directory and what the library left in it. */
static void S_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *p = S_join(dir, e->d_name);
            (void)unlink(p);
            free(p);
        }
        closedir(d);
    }
    (void)rmdir(dir);
}

/* Other CUDA processes of the program's tree (they found the directory
 * claimed): how many left a marker. */
static size_t S_count_others(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, "other.", 6) == 0;
    closedir(d);
    return n;
}

/* Does the file mention the CUDA driver or runtime library?  Used only to word
 * the message when the library never ran. */
static bool S_mentions_cuda(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    static const char *const pats[] = {"libcuda", "cudaLaunch", "cuLaunch"};
    char buf[65536 + 16];
    size_t keep = 0, k;
    bool hit = false;
    while (!hit && (k = fread(buf + keep, 1, sizeof buf - keep - 1, f)) > 0) {
        size_t n = keep + k;
        for (size_t p = 0; p < sizeof pats / sizeof pats[0] && !hit; p++) {
            size_t pl = strlen(pats[p]);
            for (size_t i = 0; i + pl <= n && !hit; i++)
                hit = memcmp(buf + i, pats[p], pl) == 0;
        }
        keep = n < 15 ? n : 15;
        memmove(buf, buf + n - keep, keep);
    }
    fclose(f);
    return hit;
}

/* GPUMEM_REPORT_TRACE_RERUN=1: the tracer runs the program once more instead
 * of making the kept launches again (to compare the two). */
static bool S_rerun_asked(void)
{
    const char *v = getenv("GPUMEM_REPORT_TRACE_RERUN");
    return v && *v && strcmp(v, "0") != 0;
}

/* Run the program (orchestrate/program.h); its exit status as a shell gives
 * it (128 + signal), or -1 when it could not be started (message printed).
 * *sig: the signal that ended it, 0 when it exited. */
static int S_run(const S_opts *o, const char *prog, const char *lib, const char *dir, int *sig)
{
    /* the tracer's per-line pass replays what the counted run keeps */
    gm_sl_method method = GM_SL_METHOD_TRACE;
    if (o->source_lines)
        (void)gm_cli_source_lines_method(o->source_lines, &method);   /* checked: a choice */
    gm_program_spec ps = {.prog = prog, .argv = o->prog_argv, .lib = lib, .dir = dir,
                          .metrics = o->metrics, .kernel = o->kernel,
                          .no_replay = o->no_replay, .launch_skip = o->launch_skip,
                          .launch_count = o->launch_count, .no_cache_flush = o->no_cache_flush,
                          .capture = !o->no_source_lines && method == GM_SL_METHOD_TRACE &&
                                     !S_rerun_asked()};
    gm_error err = {GM_OK, ""};
    int rc = gm_program_run(&ps, sig, &err);
    if (rc < 0)
        gm_cli_error("%s", err.message);
    return rc;
}

static const char *S_basename(const char *p)
{
    const char *s = strrchr(p, '/');
    return s && s[1] ? s + 1 : p;
}

/* The program's name for the report: the command's, or for an interpreter
 * (python3 script.py) the script's. */
static const char *S_program_name(char **argv)
{
    static const char *const interp[] = {"python", "bash", "sh", "node", "ruby", "perl",
                                         "julia", "Rscript", "env"};
    const char *b = S_basename(argv[0]);
    bool is = false;
    for (size_t i = 0; i < sizeof interp / sizeof interp[0] && !is; i++)
        is = strncmp(b, interp[i], strlen(interp[i])) == 0;
    for (char **a = argv + 1; is && *a; a++)
        if ((*a)[0] != '-')
            return S_basename(*a);
    return b;
}

/* The experiment the runs belong to: the program, what was profiled of it. */
static void S_describe(gm_results *r, const S_opts *o, const gmi_status *st, size_t others)
{
    const char *name = S_program_name(o->prog_argv);
    gm_experiment *e = (gm_experiment *)gm_results_experiment(r, name);
    if (!e) {   /* gmi_group made it */
        e = gm_results_add_experiment(r);
        e->id = gm_xstrdup(name);
    }
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "Kernels of %s", name);
    free(e->title);
    e->title = gm_buf_detach(&b);
    gm_buf_puts(&b, "The kernel launches of `");
    for (char **a = o->prog_argv; *a; a++) {
        /* the command as typed, backquotes dropped so the code span holds */
        for (const char *c = *a; *c; c++)
            if (*c != '`' && (unsigned char)*c >= 0x20)
                gm_buf_putc(&b, *c);
        if (a[1])
            gm_buf_putc(&b, ' ');
    }
    gm_buf_printf(&b, "`, measured as the program ran them (no reference: a program's "
                      "output is its own). It launched %lld kernel%s",
                  st->launches, st->launches == 1 ? "" : "s");
    if (o->kernel)
        gm_buf_printf(&b, ", %lld matching the kernel filter", st->matched);
    gm_buf_printf(&b, "; %lld %s profiled", st->profiled, st->profiled == 1 ? "was" : "were");
    if (o->launch_skip > 0)
        gm_buf_printf(&b, " after skipping %lld", o->launch_skip);
    gm_buf_puts(&b, ".");
    if (st->limit_reached)
        gm_buf_printf(&b, " Profiling stopped at the default limit of %lld launches; "
                          "--launch-count N profiles more.", st->limit);
    if (st->failed)
        gm_buf_printf(&b, " %lld selected launch%s could not be profiled (%s).", st->failed,
                      st->failed == 1 ? "" : "es", st->error[0] ? st->error : "reason unknown");
    if (st->not_profilable)
        gm_buf_printf(&b, " %lld launch%s not profiled: %s.", st->not_profilable,
                      st->not_profilable == 1 ? " was" : "es were", st->note);
    if (st->graph_launches)
        gm_buf_printf(&b, " It launched CUDA graphs %lld time%s, which ran %lld kernel node%s; "
                          "each counts as a launch, replayed node by node.",
                      st->graph_launches, st->graph_launches == 1 ? "" : "s", st->graph_kernels,
                      st->graph_kernels == 1 ? "" : "s");
    if (st->timed)
        gm_buf_printf(&b, " %lld launch%s could not be replayed (collectives, launches after "
                          "the process shared memory with other processes or GPUs, CUDA graphs "
                          "that cannot be replayed node by node): %s timed as %s ran, and no "
                          "counter was read.", st->timed, st->timed == 1 ? "" : "es",
                      st->timed == 1 ? "it was" : "they were", st->timed == 1 ? "it" : "they");
    if (st->runtime_only)
        gm_buf_printf(&b, " %lld runtime launch%s reached no driver launch callback and "
                          "%s not profiled.", st->runtime_only,
                      st->runtime_only == 1 ? "" : "es", st->runtime_only == 1 ? "was" : "were");
    if (others)
        gm_buf_printf(&b, " %zu other CUDA process%s of the program %s not profiled (the "
                          "first one to use CUDA is).", others, others == 1 ? "" : "es",
                      others == 1 ? "was" : "were");
    e->summary = gm_buf_detach(&b);
    e->bandwidth_bound = false;
}

static void S_fill(gm_results *r, int argc, char **argv, double t0)
{
    free(r->commit);
    r->commit = GM_GIT_COMMIT[0] ? gm_xstrdup(GM_GIT_COMMIT) : NULL;
    r->dirty = GM_GIT_DIRTY;
    gm_collection *c = &r->collection;
    for (size_t i = 0; i < c->n_command; i++)
        free(c->command[i]);
    free(c->command);
    c->command = gm_xcalloc((size_t)argc + 1, sizeof *c->command);
    c->command[0] = gm_xstrdup("gpumem-report");
    for (int i = 1; i < argc; i++)
        c->command[i] = gm_xstrdup(argv[i]);
    c->n_command = (size_t)argc;
    c->total_seconds = gm_vreal(S_now() - t0);
}

/* Said once when the per-line pass must wait for another process's turn. */
static void S_on_lock_wait(void *ctx, const char *path)
{
    if (!*(const bool *)ctx)
        fprintf(stderr, "gpumem-report: another process is using this GPU (lock %s held); "
                        "waiting for its turn to count per line\n", path);
}

/* Why the results of a program are partial, or NULL when they are not: it
 * was killed by a signal (its launches after that never happened), or
 * launches it had profiled were not written (the library writes its runs as
 * it goes, the last ones from an exit handler, which a signal or _exit
 * skips).  `written`: the launches in the library's runs file. */
static char *S_partial(int sig, long long profiled, size_t written)
{
    long long lost = profiled > (long long)written ? profiled - (long long)written : 0;
    if (!sig && !lost)
        return NULL;
    gm_buf b = GM_BUF_INIT;
    if (sig)
        gm_buf_printf(&b, "the program was killed by signal %d (%s) after %lld profiled launch%s",
                      sig, strsignal(sig), profiled, profiled == 1 ? "" : "es");
    else
        gm_buf_printf(&b, "the program ended without running its exit handlers after %lld "
                          "profiled launch%s", profiled, profiled == 1 ? "" : "es");
    if (lost)
        gm_buf_printf(&b, "; the last %lld of them had not been written", lost);
    return gm_buf_detach(&b);
}

/* A line about the program's run on stderr, in lines of at most
 * GMI_LINE_MAX bytes, kernels named readably (inject.h: gmi_say). */
static void S_say(const char *prefix, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void S_say(const char *prefix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = gm_xmalloc(n > 0 ? (size_t)n + 1 : 1);
    text[0] = '\0';
    va_start(ap, fmt);
    if (n > 0)
        vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    char *lines = gmi_say(prefix, text);
    fputs(lines, stderr);
    free(lines);
    free(text);
}

static int S_app(int argc, char **argv, S_opts *o)
{
    double t0 = S_now();
    int rc = GM_EXIT_USAGE;
    char *prog = NULL, *lib = NULL, *exe = gm_cli_exe_path(), *json_path = NULL, *out_path = NULL;
    char *template_path = NULL, *status_path = NULL, *runs_path = NULL, *text = NULL;
    char dir[PATH_MAX] = "";
    gm_claim out_claim = GM_CLAIM_INIT, json_claim = GM_CLAIM_INIT;
    gm_results results;
    gm_results_init(&results);
    gm_error err = {GM_OK, ""};
    char msg[1024];

    /* everything that can be checked before the program runs */
    if ((o->kernel && !gmi_regex_check(o->kernel, msg, sizeof msg)) ||
        (o->no_replay && !gmi_noreplay_check(o->no_replay, msg, sizeof msg))) {
        gm_cli_error("%s", msg);
        goto done;
    }
    if (o->metrics) {
        char **names = NULL;
        size_t n = 0;
        gmc_error ce;
        if (gmc_metric_list_parse(o->metrics, &names, &n, &ce) != GMC_OK) {
            gm_cli_error("--metrics: %s", ce.message);
            goto done;
        }
        gmc_metric_list_free(names, n);
    }
    /* the launcher's rank variable, which the profiler records in the
     * program: checked now, not after the program ran */
    long long rank;
    gm_status rank_st;
    gm_rank_from_env(&rank, NULL, &rank_st, &err);
    if (rank_st != GM_OK) {
        gm_cli_error("%s", err.message);
        goto done;
    }
    /* patterns (%h %d %r %l %p): checked now, with device 0 for %d; expanded
     * again once the device the program used is known */
    if (o->main_job && !(out_path = gm_cli_expand("--out", o->out, 0)))
        goto done;
    json_path = o->json ? gm_cli_expand("--json", o->json, 0) : gm_cli_json_beside(out_path);
    if (!json_path)
        goto done;
    gm_render_opts ro = {0};
    if (o->main_job) {
        ro.exe_path = exe;
        ro.template_path = o->template_path;
        ro.gnuplot = o->gnuplot;
        ro.gnuplot_timeout = o->gnuplot_timeout;
        ro.timestamp = o->timestamp;
        if (!gm_cli_report_opts(&ro, out_path, o->format, json_path, &template_path))
            goto done;
        ro.results_name = json_path;
    }
    /* one writer per output: another process of the job writing the same
     * file is refused now, before the program runs (core/claim.h); a path
     * with %d is claimed once the device is known */
    bool out_late = o->main_job && gm_path_uses(o->out, 'd');
    bool json_late = o->json ? gm_path_uses(o->json, 'd') : out_late;
    if ((o->main_job && !out_late && !gm_cli_claim("--out", out_path, &out_claim)) ||
        (!json_late && !gm_cli_claim("--json", json_path, &json_claim)))
        goto done;
    if (!(prog = S_find_program(o->prog_argv[0])) || !(lib = S_find_library(exe)))
        goto done;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gpumem-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        gm_cli_error("cannot make a private directory %s: %s", dir, strerror(errno));
        dir[0] = '\0';
        goto done;
    }
    if (!o->quiet)
        fprintf(stderr, "gpumem-report: running %s with the profiler loaded\n", prog);

    int sig;
    int prc = S_run(o, prog, lib, dir, &sig);
    if (prc < 0)
        goto done;

    /* what the library wrote */
    status_path = S_join(dir, GMI_FILE_STATUS);
    runs_path = S_join(dir, GMI_FILE_RUNS);
    gmi_status st;
    text = S_read_text(status_path);
    if (!text) {
        if (S_mentions_cuda(prog))
            gm_cli_error("the profiler was not loaded into '%s': the program did not initialise "
                         "CUDA (it ended before its first CUDA call), or the CUDA driver did not "
                         "load %s (CUDA_INJECTION64_PATH); nothing was profiled", prog, lib);
        else
            gm_cli_error("'%s' does not seem to use CUDA: it never initialised the CUDA driver, "
                         "so there is nothing to profile (for a script, the CUDA program it "
                         "starts is profiled: check that it ran)", prog);
        rc = prc ? prc : GM_EXIT_USAGE;
        goto done;
    }
    if (!gmi_status_parse(text, &st, msg, sizeof msg)) {
        gm_cli_error("%s: %s", status_path, msg);
        rc = prc ? prc : GM_EXIT_FAIL;
        goto done;
    }
    gmi_status_readable(&st);
    bool have_runs = S_file_ok(runs_path);
    /* the read fills results afresh: free what gm_results_init gave it first
     * (its tool_version leaked) */
    if (have_runs)
        gm_results_free(&results);
    if (have_runs && gm_results_read_file(runs_path, &results, &err) != GM_OK) {
        gm_cli_error("reading what the profiler wrote: %s", err.message);
        rc = prc ? prc : GM_EXIT_FAIL;
        goto done;
    }
    if (results.n_runs == 0) {
        if (st.error[0])
            S_say("gpumem-report: ", "nothing was profiled: %s", st.error);
        else if (st.launches == 0)
            gm_cli_error("the program launched no kernel: nothing to profile");
        else if (o->kernel && st.matched == 0)
            gm_cli_error("none of the %lld kernel launches matched --kernel '%s'", st.launches,
                         o->kernel);
        else if (st.not_profilable || st.runtime_only)
            S_say("gpumem-report: ", "none of the %lld kernel launches could be profiled: %s",
                  st.launches, st.note);
        else
            gm_cli_error("no launch was selected (%lld launches, %lld matching, --launch-skip "
                         "%lld)", st.launches, st.matched, o->launch_skip);
        bool cannot = strcmp(st.error_kind, "permission") == 0 ||
                      strcmp(st.error_kind, "device") == 0;
        rc = prc ? prc : cannot ? GM_EXIT_USAGE : GM_EXIT_FAIL;
        goto done;
    }

    char *partial = S_partial(sig, st.profiled + st.timed, results.n_runs);
    if (partial) {
        free(results.collection.partial);
        results.collection.partial = partial;
    }
    gmi_group(&results, o->each, S_program_name(o->prog_argv));
    S_describe(&results, o, &st, S_count_others(dir));
    S_fill(&results, argc, argv, t0);
    if (!o->no_source_lines) {
        /* The extra runs use the GPU too (the tracer, SASS metrics): they take their
         * turn like the program did, or another rank's profiler session on
         * this GPU fails with CUPTI_ERROR_HARDWARE_BUSY (seen on the H200
         * with mpirun -np 2).  The runs themselves do not lock: this process
         * holds the lock for them. */
        gm_process *pr = &results.collection.process;
        gm_devlock lock = GM_DEVLOCK_INIT;
        gm_error le = {GM_OK, ""};
        bool locked = pr->device_uuid &&
                      gm_devlock_acquire(&lock, pr->device_uuid, S_on_lock_wait, &o->quiet,
                                         &le) == GM_OK;
        if (pr->device_uuid && !locked)
            fprintf(stderr, "gpumem-report: %s: counting per line without taking turns\n",
                    le.message);
        if (locked) {
            double w = gm_value_num(&pr->lock_wait_seconds);
            pr->lock_wait_seconds = gm_vreal((isnan(w) ? 0 : w) + lock.waited_s);
            pr->lock_waits += lock.waits;
            pr->lock_turns += lock.turns;
        }
        gm_sl_method method = GM_SL_METHOD_TRACE;
        if (o->source_lines)
            (void)gm_cli_source_lines_method(o->source_lines, &method);   /* checked: a choice */
        gm_sl_filter f = {o->kernel, o->launch_skip, o->launch_count};
        gm_source_lines_program(&results, prog, o->prog_argv, lib, dir, &f, method, !o->quiet);
        gm_devlock_free(&lock);
    }
    if (prc != 0)
        for (size_t i = 0; i < results.n_runs; i++)
            gm_run_add_note(&results.runs[i], "the program exited with status %d", prc);
    if ((o->json && gm_path_uses(o->json, 'd')) || (o->main_job && gm_path_uses(o->out, 'd'))) {
        int dev = results.device.ordinal;
        if (o->main_job) {
            free(out_path);
            out_path = gm_cli_expand("--out", o->out, dev);
            ro.out_path = out_path;
        }
        free(json_path);
        json_path = o->json ? gm_cli_expand("--json", o->json, dev)
                            : out_path ? gm_cli_json_beside(out_path) : NULL;
        ro.results_name = json_path;
        if (!json_path || (o->main_job && !out_path) ||
            (out_late && !gm_cli_claim("--out", out_path, &out_claim)) ||
            (json_late && !gm_cli_claim("--json", json_path, &json_claim))) {
            rc = prc ? prc : GM_EXIT_USAGE;
            goto done;
        }
    }
    if (gm_results_write_file(&results, json_path, &err) != GM_OK) {
        gm_cli_error("%s", err.message);
        rc = prc ? prc : GM_EXIT_FAIL;
        goto done;
    }
    if (!o->quiet)
        fprintf(stderr, "results: %s (%zu runs from %lld profiled launches of %lld, %.1f s)\n",
                json_path, results.n_runs, st.profiled, st.launches, S_now() - t0);
    if (results.collection.partial)
        S_say("gpumem-report: partial results: ", "%s", results.collection.partial);
    if (st.timing[0] && !o->quiet)
        S_say("profiling: ", "%s", st.timing);
    if (st.error[0] && !o->quiet)
        S_say("gpumem-report: note: ", "%s", st.error);
    if (o->main_job) {
        gm_status rst = gm_render(&results, &ro, &err);
        if (rst == GM_ERR_INCOMPLETE) {
            gm_cli_error("the report %s is written, but incomplete: %s", o->out, err.message);
            rc = prc ? prc : GM_EXIT_FAIL;
            goto done;
        }
        if (rst != GM_OK) {
            gm_cli_error("%s", err.message);
            fprintf(stderr, "  the results are kept in %s; render them again with:\n"
                            "    gpumem-report render %s --out %s\n",
                    json_path, json_path, out_path);
            rc = prc ? prc : err.status == GM_ERR_GNUPLOT ? GM_EXIT_USAGE : GM_EXIT_FAIL;
            goto done;
        }
        if (!o->quiet)
            fprintf(stderr, "report: %s (%.1f s in all)\n", out_path, S_now() - t0);
    }
    rc = prc ? prc : results.collection.partial ? GM_EXIT_FAIL : GM_EXIT_OK;

done:
    if (dir[0])
        S_rmdir(dir);
    gm_claim_release(&out_claim);
    gm_claim_release(&json_claim);
    gm_results_free(&results);
    free(prog);
    free(lib);
    free(exe);
    free(json_path);
    free(out_path);
    free(template_path);
    free(status_path);
    free(runs_path);
    free(text);
    return rc;
}

#else /* no CUDA toolkit at build time */

typedef struct {
    bool main_job;
} S_opts;

static int S_parse(int argc, char **argv, S_opts *o)
{
    (void)argc, (void)argv, (void)o;
    return 0;
}

static int S_app(int argc, char **argv, S_opts *o)
{
    (void)argc, (void)argv, (void)o;
    gm_cli_error("this gpumem-report was built without the CUDA toolkit, so it cannot profile a "
                 "program. Rebuild with CUDA_HOME pointing at a CUDA 13 toolkit.");
    return GM_EXIT_USAGE;
}

#endif

bool gm_cli_has_program(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0)
            return true;
    return false;
}

int gm_cmd_app(int argc, char **argv, bool main_job)
{
    S_opts o;
    memset(&o, 0, sizeof o);
    o.main_job = main_job;
    int p = S_parse(argc, argv, &o);
    return p == 1 ? GM_EXIT_OK : p == 2 ? GM_EXIT_USAGE : S_app(argc, argv, &o);
}
