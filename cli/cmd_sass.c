/* Per-source-line counters for the suite (issue 14): the extra pass.
 *
 * CUPTI 13.0 instruments only the first kernel function launched after
 * cuptiSassMetricsEnable in a process (collectors/gmc_sass.h says what was
 * measured), so every kernel is counted in a process of its own:
 *
 *     gpumem-report sass-child [--device N] [--quick] [--plain] EXP VARIANT NAME=VALUE...
 *
 * sets up that one case, launches it once under SASS metrics and prints the
 * per-instruction records (core/srclines.h) on stdout; --plain launches it
 * without SASS metrics and prints nothing, so that ncu can profile the same
 * launch (bench/srclines-vs-ncu.py).  The parent (gm_source_lines_pass) runs
 * one child per variant after the counter passes and the timing, so neither is
 * perturbed, and stores the lines in that variant's run.
 */
#include "cli.h"
#include "options.h"

#include "../core/buf.h"
#include "../core/catalog.h"
#include "../core/proc.h"
#include "../core/results.h"
#include "../core/srclines.h"
#include "../core/symbol.h"
#include "../orchestrate/children.h"
#include "../orchestrate/nvdisasm.h"
#include "gm_version.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef GM_HAVE_CUDA
#include "../collectors/gmc_sass.h"
#include "../kernels/runner.h"
#include "../kernels/suite.h"

#include <cuda_runtime_api.h>
#endif

/* A suite case's child takes about half a second (bench/results/
 * srclines-overhead-*.txt); one that takes this long is stopped. */
#define S_CHILD_TIMEOUT_S 120.0

/* The suite's child writes its records, and the cubins of kernels without
 * line info beside them (core/sassdis.h), as /tmp/gpumem-sass-child-XXXXXX... */
#define S_CHILD_TMP "/tmp/gpumem-sass-child-"

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifdef GM_HAVE_CUDA
/* The kernel of the child's case, once known: CUPTI's mangled symbol contains it. */
static const char *S_child_kernel;

/* CUPTI names the function by its mangled symbol: "_Z19matmul_kernel_tiledILi16EE..."
 * for matmul_kernel_tiled<16>.  Match the name as it is mangled, its length
 * before it, so that matmul_kernel_tiled does not match
 * matmul_kernel_tiled_padded. */
static bool S_child_match(const char *symbol, const char *target)
{
    (void)target;
    if (!S_child_kernel || !symbol)
        return false;
    size_t len = strcspn(S_child_kernel, "<(");
    char want[160];
    snprintf(want, sizeof want, "%zu%.*s", len, (int)len, S_child_kernel);
    if (strncmp(symbol, "_Z", 2) != 0)
        return strncmp(symbol, S_child_kernel, len) == 0 && symbol[len] == '\0';
    return strstr(symbol, want) != NULL;
}

int gm_cmd_sass_child(int argc, char **argv)
{
    gm_sass_args sa = {0, false, false, NULL, 0};
    sa.operands = gm_xcalloc((size_t)argc + 1, sizeof *sa.operands);
    int p = gm_opt_parse(&gm_opts_sass, 0, argc, argv, &sa, NULL);
    long long device = sa.device;
    bool quick = sa.quick, plain = sa.plain;
    /* the operands, where the arguments after the options were */
    char **ops = sa.operands;
    int nops = (int)sa.n_operands;
    if (p) {
        free(ops);
        return p == 1 ? GM_EXIT_OK : GM_EXIT_USAGE;
    }
    if (nops < 2) {
        gm_cli_error("usage: gpumem-report sass-child [--device N] [--quick] [--plain] EXP "
                     "VARIANT NAME=VALUE...");
        free(ops);
        return GM_EXIT_USAGE;
    }
    argv = ops;
    argc = nops;
    int i = 0;
    const char *exp = argv[i], *var = argv[i + 1];
    gm_case *cases, *c;
    gm_error err = {GM_OK, ""};
    if (gm_suite_find_case(exp, var, argv + i + 2, argc - i - 2, quick, &cases, &c, &err) !=
        GM_OK) {
        gm_cli_error("sass-child: %s", err.message);
        free(cases);
        free(ops);
        return GM_EXIT_USAGE;
    }
    const gm_variant *v = c->variant;
    int rc = GM_EXIT_FAIL;
    bool set_up = false;
    char path[] = S_CHILD_TMP "XXXXXX";
    int fd = -1;
    /* GPUMEM_REPORT_CHILD_TIMES: where the child's time goes (bench/suite-time.py) */
    bool say_times = gm_cli_child_times_on();
    double t0 = S_now(), t_sub = t0, t_dev = t0, t_setup = t0, t_launch = t0;
    /* The way that works on CUDA 13.0 (gmc_sass.h): subscribe before any CUDA
     * call, enable inside the launch callback of the kernel's launch, collect
     * when that launch call returns. */
    if (!plain) {
        fd = mkstemp(path);
        if (fd < 0) {
            gm_cli_error("sass-child: cannot make a temporary file: %s", strerror(errno));
            goto done;
        }
        close(fd);
        if (!gmc_sass_inject_start("", path, S_child_match)) {
            gm_cli_error("sass-child: cannot subscribe to CUPTI callbacks (another CUPTI client?)");
            goto done;
        }
    }
    t_sub = S_now();
    /* cudaSetDevice makes no context: cudaFree(0) does, so that its cost is
     * not counted as the setup's */
    if (cudaSetDevice((int)device) != cudaSuccess || cudaFree(0) != cudaSuccess) {
        gm_cli_error("sass-child: cannot use device %lld", device);
        goto done;
    }
    t_dev = S_now();
    if (gm_case_setup(c, &err) != GM_OK) {
        gm_cli_error("sass-child: setup: %s", err.message);
        goto done;
    }
    set_up = true;
    if (v->reset && v->reset(c, 0, &err) != GM_OK) {
        gm_cli_error("sass-child: reset: %s", err.message);
        goto done;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
        gm_cli_error("sass-child: before the launch: %s", cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    t_setup = S_now();
    S_child_kernel = c->kernel;
    if (v->launch(c, 0, &err) != GM_OK) {
        gm_cli_error("sass-child: launch: %s", err.message);
        goto done;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
        gm_cli_error("sass-child: %s: %s", c->kernel, cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    t_launch = S_now();
    if (!plain) {
        gm_buf b = GM_BUF_INIT;
        (void)gm_buf_read_file(&b, path, 0);   /* unreadable: empty, said below */
        if (!b.len) {
            gm_cli_error("sass-child: no records: the launch of %s was not seen by CUPTI",
                         c->kernel);
            gm_buf_free(&b);
            goto done;
        }
        const char *e = strstr(b.data, "\n# error: ");
        if (e) {
            gm_cli_error("sass-child: %.*s", (int)strcspn(e + 10, "\n"), e + 10);
            gm_buf_free(&b);
            goto done;
        }
        bool ok = fwrite(b.data, 1, b.len, stdout) == b.len;
        gm_buf_free(&b);
        if (fflush(stdout) != 0 || !ok) {
            gm_cli_error("sass-child: writing the records: %s", strerror(errno));
            goto done;
        }
    }
    rc = GM_EXIT_OK;
    if (say_times)
        gm_cli_child_times("sass-child times (s): subscribe %.3f, context %.3f, setup %.3f, "
                           "launch %.3f, records %.3f\n", t_sub - t0, t_dev - t_sub,
                           t_setup - t_dev, t_launch - t_setup, S_now() - t_launch);
done:
    S_child_kernel = NULL;
    if (set_up)
        v->teardown(c);
    if (fd >= 0)
        unlink(path);
    free(cases);
    free(ops);
    return rc;
}
#else
int gm_cmd_sass_child(int argc, char **argv)
{
    (void)argc, (void)argv;
    gm_cli_error("sass-child: built without the CUDA toolkit");
    return GM_EXIT_USAGE;
}
#endif

/* Run exe with args (core/proc.h); stdout into *out (NULL: discarded), stderr
 * (last part) into errbuf; env: NAME=VALUE to set and NAME (no '=') to unset,
 * in the child.  ours: the child is this program (a suite case), in a process
 * group of its own and killed with this process; else the user's program,
 * which keeps the terminal and gets SIGTERM when this process dies. */
static int S_spawn(char *const *args, gm_buf *out, char *errbuf, size_t errcap,
                   const char *const *env, double timeout_s, bool ours)
{
    errbuf[0] = '\0';
    gm_proc_spec spec = {.argv = args, .env = env, .out = out ? GM_PROC_CAPTURE : GM_PROC_NULL,
                         .err = GM_PROC_CAPTURE, .err_tail = errcap - 1, .own_group = ours,
                         .death_signal = ours ? SIGKILL : SIGTERM, .timeout_s = timeout_s};
    gm_proc_result r;
    gm_error perr = {GM_OK, ""};
    if (gm_proc_run(&spec, &r, NULL, &perr) != GM_OK) {
        snprintf(errbuf, errcap, "%s", perr.message);
        return 127;
    }
    int rc = gm_child_result(&r, timeout_s, out, errbuf, errcap);
    gm_proc_result_free(&r);
    return rc;
}

int gm_cli_spawn(char *const *args, gm_buf *out, char *errbuf, size_t errcap,
                 const char *const *env, double timeout_s)
{
    /* the children of cmd_trace.c: this program (the suite's trace child) or the
     * user's program with the tracer, as S_spawn's callers here */
    return S_spawn(args, out, errbuf, errcap, env, timeout_s, timeout_s > 0);
}

/* Remove the cubin files the records text names (files under prefix only). */
static void S_drop_cubins(const char *text, const char *prefix)
{
    gm_sl_cubin *cub = NULL;
    size_t nc = gm_sl_cubins_parse(text ? text : "", &cub);
    gm_sass_cubins_remove(cub, nc, prefix);
    gm_sl_cubins_free(cub, nc);
}

/* The instruction text of the lines without line info: the cubins the
 * records text names (under prefix) disassembled and removed. */
static void S_fill_sass_text(gm_srclines *sl, const char *text, const char *prefix)
{
    gm_sl_cubin *cub = NULL;
    size_t nc = gm_sl_cubins_parse(text, &cub);
    gm_sass_text st = GM_SASS_TEXT_INIT;
    gm_sass_text_load(&st, cub, nc, prefix);
    gm_sass_text_apply(&st, sl);
    gm_sass_text_free(&st);
    gm_sl_cubins_free(cub, nc);
}

/* Parse records text into sl (status, note), the files relative to root
 * (NULL: unknown), the text of instructions without line info from the
 * cubins it names under prefix (removed after); false when it failed. */
static bool S_fill_lines(gm_srclines *sl, const char *text, const char *name, const char *root,
                         const char *prefix)
{
    gm_sl_record *recs = NULL;
    size_t nr = 0;
    gm_error perr = {GM_OK, ""};
    const char *e = strstr(text, "\n# error: ");
    if (e) {
        e += 10;
        sl->status = gm_xstrdup("failed");
        size_t len = strcspn(e, "\n");
        sl->note = gm_xmalloc(len + 1);
        memcpy(sl->note, e, len);
        sl->note[len] = '\0';
        S_drop_cubins(text, prefix);
        return false;
    }
    if (gm_sl_records_parse(text, name, &recs, &nr, &perr) != GM_OK) {
        sl->status = gm_xstrdup("failed");
        sl->note = gm_xstrdup(perr.message);
        S_drop_cubins(text, prefix);
        return false;
    }
    gm_srclines_from_records(sl, recs, nr);
    gm_sl_records_free(recs, nr);
    gm_srclines_read_text(sl);
    gm_srclines_relate(sl, root);
    if (nr == 0 || sl->n_lines == 0) {
        sl->status = gm_xstrdup("failed");
        sl->note = gm_xstrdup("CUPTI returned no instruction records for this kernel");
        S_drop_cubins(text, prefix);
        return false;
    }
    sl->status = gm_xstrdup("collected");
    if (!sl->line_info)
        sl->note = gm_xstrdup("the kernel carries no line info, so the counts are per SASS "
                              "instruction; build it with nvcc -lineinfo to see source lines");
    S_fill_sass_text(sl, text, prefix);
    return true;
}

typedef struct {
    const gm_results *r;
    const size_t *run_of;   /* job -> run index */
    size_t total;
    bool progress;
} S_pass_ctx;

static void S_pass_started(size_t i, void *ctx)
{
    const S_pass_ctx *x = ctx;
    const gm_run *run = &x->r->runs[x->run_of[i]];
    if (x->progress)
        fprintf(stderr, "source lines %zu/%zu: %s/%s\n", i + 1, x->total, run->experiment,
                run->variant);
}

gm_status gm_source_lines_pass(gm_results *r, const bool *only, int device, bool quick,
                               bool progress, gm_error *err)
{
    (void)err;
    char *exe = gm_cli_exe_path();
    double t0 = S_now();
    size_t failed = 0;
    bool *pick = gm_xcalloc(r->n_runs ? r->n_runs : 1, sizeof *pick);
    size_t total = 0;
    if (only) {
        for (size_t i = 0; i < r->n_runs; i++)
            total += pick[i] = only[i];
    } else {
        total = gm_srclines_pick(r, pick);
    }
    gm_child_job *jobs = gm_xcalloc(total ? total : 1, sizeof *jobs);
    size_t *run_of = gm_xcalloc(total ? total : 1, sizeof *run_of);
    char devs[16];
    snprintf(devs, sizeof devs, "%d", device);
    size_t nj = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        if (!pick[i])
            continue;
        size_t na = 0;
        char **args = gm_xcalloc(12 + run->n_params, sizeof *args);
        args[na++] = gm_xstrdup(exe ? exe : "/proc/self/exe");
        args[na++] = gm_xstrdup("sass-child");
        args[na++] = gm_xstrdup("--device");
        args[na++] = gm_xstrdup(devs);
        if (quick)
            args[na++] = gm_xstrdup("--quick");
        args[na++] = gm_xstrdup(run->experiment);
        args[na++] = gm_xstrdup(run->variant);
        for (size_t p = 0; p < run->n_params; p++) {
            gm_buf b = GM_BUF_INIT;
            gm_buf_printf(&b, "%s=%lld", run->params[p].name,
                          (long long)gm_value_num(&run->params[p].value));
            args[na++] = gm_buf_detach(&b);
        }
        args[na] = NULL;
        run_of[nj] = i;
        jobs[nj++].args = args;
    }
    /* one child per layout, several at once: each is mostly process and
     * context start-up, its one launch short (bench/results/srclines-*) */
    size_t width;
    gm_error werr = {GM_OK, ""};
    if (gm_children_width(&width, GM_CHILDREN_WIDTH_SASS, &werr) != GM_OK)
        gm_cli_error("warning: %s; one at a time", werr.message);
    if (progress && nj > 1 && width > 1)
        fprintf(stderr, "source lines: %zu layouts, %zu processes at a time\n", nj,
                width < nj ? width : nj);
    S_pass_ctx ctx = {r, run_of, nj, progress};
    gm_children_run(jobs, nj, width, S_CHILD_TIMEOUT_S, S_pass_started, &ctx);
    for (size_t j = 0; j < nj; j++) {
        gm_child_job *job = &jobs[j];
        gm_srclines *sl = &r->runs[run_of[j]].source_lines;
        gm_srclines_clear(sl);
        sl->present = true;
        bool ok = false;
        if (job->rc != 0) {
            S_drop_cubins(job->out.data, S_CHILD_TMP);
            sl->status = gm_xstrdup("failed");
            gm_buf b = GM_BUF_INIT;
            gm_buf_printf(&b, "the per-source-line pass failed (exit status %d%s): %s", job->rc,
                          job->retried ? ", alone as well as beside others" : "",
                          job->err[0] ? job->err : "no message");
            sl->note = gm_buf_detach(&b);
        } else {
            /* the suite's kernels: built in GM_SOURCE_ROOT */
            ok = S_fill_lines(sl, job->out.data ? job->out.data : "", "sass-child output",
                              GM_SOURCE_ROOT, S_CHILD_TMP);
        }
        failed += !ok;
        sl->seconds = gm_vreal(job->seconds);
        gm_buf_free(&job->out);
        for (char *const *a = job->args; *a; a++)
            free(*a);
        free((void *)job->args);
    }
    r->collection.source_lines = true;
    r->collection.source_lines_seconds = gm_vreal(S_now() - t0);
    r->collection.source_lines_launches = (long long)nj;
    free(run_of);
    free(jobs);
    free(pick);
    free(exe);
    if (progress && failed)
        fprintf(stderr, "gpumem-report: the per-source-line pass failed for %zu of %zu kernels; "
                        "the report says which\n", failed, nj);
    return GM_OK;
}

/* Most kernels of a program counted per line (each is one more run of it). */
#define S_PROGRAM_MAX_KERNELS 8

/* Profiled time of a kernel over all its runs (ns), from the profiler's duration. */
static double S_kernel_time(const gm_results *r, const char *kernel)
{
    double t = 0;
    for (size_t i = 0; i < r->n_runs; i++)
        if (r->runs[i].kernel && strcmp(r->runs[i].kernel, kernel) == 0) {
            double d = gm_run_metric_num(&r->runs[i], GM_M_DURATION);
            if (d > 0)
                t += d;
        }
    return t;
}

void gm_source_lines_program_pass(gm_results *r, const char *prog, char *const *argv,
                                  const char *lib, bool progress)
{
    double t0 = S_now();
    size_t launches = 0, failed = 0;
    const char *tmp = getenv("TMPDIR");
    gm_buf dir = GM_BUF_INIT, prefix = GM_BUF_INIT;
    gm_buf_printf(&dir, "%s/gpumem-sass.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir.data)) {
        for (size_t i = 0; i < r->n_runs; i++)
            if (r->runs[i].kernel && r->runs[i].n_metrics) {
                gm_srclines *sl = &r->runs[i].source_lines;
                gm_srclines_clear(sl);
                sl->present = true;
                sl->status = gm_xstrdup("failed");
                sl->note = gm_xstrdup("cannot make a private directory for the pass");
            }
        gm_buf_free(&dir);
        return;
    }
    /* the records and cubins of the program's runs, and nothing else */
    gm_buf_printf(&prefix, "%s/sass.", dir.data);
    for (size_t i = 0; i < r->n_runs; i++) {
        gm_run *run = &r->runs[i];
        if (!run->kernel || !run->n_metrics)
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = r->runs[j].kernel && strcmp(r->runs[j].kernel, run->kernel) == 0;
        if (seen)
            continue;
        /* Each kernel costs a run of the whole program: the ones with the most
         * profiled time first, at most S_PROGRAM_MAX_KERNELS; the others say so. */
        double mine = S_kernel_time(r, run->kernel);
        size_t rank = 0;
        for (size_t j = 0; j < r->n_runs; j++) {
            const gm_run *o = &r->runs[j];
            if (!o->kernel || !o->n_metrics || strcmp(o->kernel, run->kernel) == 0)
                continue;
            bool first = true;
            for (size_t q = 0; q < j && first; q++)
                first = !(r->runs[q].kernel && strcmp(r->runs[q].kernel, o->kernel) == 0);
            if (!first)
                continue;
            double t = S_kernel_time(r, o->kernel);
            rank += t > mine || (t == mine && j < i);
        }
        if (rank >= S_PROGRAM_MAX_KERNELS) {
            gm_srclines *sl = &run->source_lines;
            gm_srclines_clear(sl);
            sl->present = true;
            sl->status = gm_xstrdup("failed");
            gm_buf b = GM_BUF_INIT;
            gm_buf_printf(&b, "not counted: the program is run once more per kernel, for the %d "
                          "kernels with the most profiled time only", S_PROGRAM_MAX_KERNELS);
            sl->note = gm_buf_detach(&b);
            continue;
        }
        if (progress) {
            /* the row's name, not the kernel's signature (up to kilobytes) */
            gm_buf nm = GM_BUF_INIT;
            gm_symbol_clip(run->variant ? run->variant : "?", 120, &nm);
            fprintf(stderr, "source lines: %s (the program runs once more)\n", nm.data);
            gm_buf_free(&nm);
        }
        gm_buf out = GM_BUF_INIT, e1 = GM_BUF_INIT, e2 = GM_BUF_INIT, e3 = GM_BUF_INIT;
        gm_buf_printf(&out, "%s/sass.%zu", dir.data, launches);
        gm_buf_printf(&e1, "CUDA_INJECTION64_PATH=%s", lib);
        gm_buf_printf(&e2, "GPUMEM_REPORT_SASS_KERNEL=%s", run->kernel);
        gm_buf_printf(&e3, "GPUMEM_REPORT_SASS_OUT=%s", out.data);
        const char *env[] = {e1.data, e2.data, e3.data, "GPUMEM_REPORT_DIR",
                             "NVTX_INJECTION64_PATH", NULL};
        size_t na = 0;
        while (argv[na])
            na++;
        char **args = gm_xcalloc(na + 1, sizeof *args);
        args[0] = (char *)prog;
        for (size_t k = 1; k < na; k++)
            args[k] = argv[k];
        char errbuf[600];
        double t1 = S_now();
        int rc = S_spawn(args, NULL, errbuf, sizeof errbuf, env, 0, false);
        double dt = S_now() - t1;
        free(args);
        launches++;
        gm_srclines *sl = &run->source_lines;
        gm_srclines_clear(sl);
        sl->present = true;
        sl->seconds = gm_vreal(dt);
        gm_buf text = GM_BUF_INIT;
        bool got = gm_buf_read_file(&text, out.data, 0) || text.len;
        remove(out.data);
        if (!got) {
            sl->status = gm_xstrdup("failed");
            gm_buf b = GM_BUF_INIT;
            gm_buf_printf(&b, "the program's run for this kernel wrote no per-line counts (exit "
                          "status %d)%s%s", rc, errbuf[0] ? ": " : "", errbuf);
            sl->note = gm_buf_detach(&b);
            failed++;
        } else if (!S_fill_lines(sl, text.data ? text.data : "", "per-line records", NULL,
                                 prefix.data)) {
            failed++;
        }
        gm_buf_free(&text);
        gm_buf_free(&out);
        gm_buf_free(&e1);
        gm_buf_free(&e2);
        gm_buf_free(&e3);
    }
    gm_sass_cubins_sweep(dir.data);
    rmdir(dir.data);
    gm_buf_free(&dir);
    gm_buf_free(&prefix);
    r->collection.source_lines = true;
    r->collection.source_lines_seconds = gm_vreal(S_now() - t0);
    r->collection.source_lines_launches = (long long)launches;
    if (progress && failed)
        fprintf(stderr, "gpumem-report: the per-source-line pass failed for %zu of %zu kernels; "
                        "the report says which\n", failed, launches);
}
