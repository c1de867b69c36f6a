/* test_ranks.c — output path patterns (%h %d %r %p %%) with each launcher
 * variable set and unset, the GPU lock (a held lock makes the second process
 * wait), and `gpumem-report merge` of recorded per-rank files. */
#include "helpers.h"

#include "../core/buf.h"
#include "../core/claim.h"
#include "../core/devlock.h"
#include "../core/output.h"
#include "../core/pathpat.h"
#include "../core/results.h"
#include "../reports/merge.h"
#include "../reports/render.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void S_clear_ranks(void)
{
    for (int i = 0; i < gm_n_rank_vars; i++)
        unsetenv(gm_rank_vars[i]);
    for (int i = 0; i < gm_n_local_rank_vars; i++)
        unsetenv(gm_local_rank_vars[i]);
}

static char *S_expand(const char *pattern, int device, gm_status *st, gm_error *err)
{
    gm_path_vars v = {"nodeA", device, 4242};
    char *out = NULL;
    *st = gm_path_expand(pattern, &v, &out, err);
    return out;
}

Test(pathpat, each_sequence)
{
    S_clear_ranks();
    gm_status st;
    gm_error err;
    char *s = S_expand("run-%h-d%d-r%r-p%p-100%%.json", 3, &st, &err);
    cr_assert_eq(st, GM_OK, "%s", err.message);
    cr_assert_str_eq(s, "run-nodeA-d3-r0-p4242-100%.json");
    free(s);
    s = S_expand("plain.json", -1, &st, &err);
    cr_assert_str_eq(s, "plain.json");
    free(s);
}

Test(pathpat, rank_from_each_variable_in_order)
{
    gm_status st;
    gm_error err;
    for (int i = 0; i < gm_n_rank_vars; i++) {
        S_clear_ranks();
        char val[16];
        snprintf(val, sizeof val, "%d", 10 + i);
        setenv(gm_rank_vars[i], val, 1);
        char *s = S_expand("app-%r.json", 0, &st, &err);
        cr_assert_eq(st, GM_OK, "%s", err.message);
        char want[32];
        snprintf(want, sizeof want, "app-%d.json", 10 + i);
        cr_assert_str_eq(s, want, "from %s", gm_rank_vars[i]);
        free(s);
    }
    /* the launchers of issue 26, in the order they are believed: all set,
     * the first wins; unset it and the next does */
    const char *order[] = {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                           "PMIX_RANK", "MV2_COMM_WORLD_RANK", "PALS_RANKID"};
    cr_assert_eq(gm_n_rank_vars, (int)(sizeof order / sizeof *order));
    for (int i = 0; i < gm_n_rank_vars; i++) {
        cr_assert_str_eq(gm_rank_vars[i], order[i]);
        char val[16];
        snprintf(val, sizeof val, "%d", 20 + i);
        setenv(order[i], val, 1);
    }
    for (int i = 0; i < gm_n_rank_vars; i++) {
        char *s = S_expand("%r", 0, &st, &err);
        char want[16];
        snprintf(want, sizeof want, "%d", 20 + i);
        cr_assert_str_eq(s, want, "with %s the first one set", order[i]);
        free(s);
        unsetenv(order[i]);
    }
    S_clear_ranks();
}

/* %l: the local rank, from each launcher's variable, first set wins; 0
 * when none is; %r and %l are independent (issue 26). */
Test(pathpat, local_rank_from_each_variable_in_order)
{
    S_clear_ranks();
    gm_status st;
    gm_error err;
    const char *order[] = {"LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK",
                           "MPI_LOCALRANKID", "PALS_LOCAL_RANKID", "MV2_COMM_WORLD_LOCAL_RANK"};
    cr_assert_eq(gm_n_local_rank_vars, (int)(sizeof order / sizeof *order));
    char *s = S_expand("n%l-r%r.json", 0, &st, &err);
    cr_assert_str_eq(s, "n0-r0.json");
    free(s);
    for (int i = 0; i < gm_n_local_rank_vars; i++) {
        cr_assert_str_eq(gm_local_rank_vars[i], order[i]);
        S_clear_ranks();
        char val[16];
        snprintf(val, sizeof val, "%d", 3 + i);
        setenv(order[i], val, 1);
        setenv("RANK", "11", 1);
        s = S_expand("n%l-r%r.json", 0, &st, &err);
        cr_assert_eq(st, GM_OK, "%s", err.message);
        char want[32];
        snprintf(want, sizeof want, "n%d-r11.json", 3 + i);
        cr_assert_str_eq(s, want, "from %s", order[i]);
        free(s);
    }
    for (int i = 0; i < gm_n_local_rank_vars; i++) {
        char val[16];
        snprintf(val, sizeof val, "%d", 30 + i);
        setenv(order[i], val, 1);
    }
    for (int i = 0; i < gm_n_local_rank_vars; i++) {
        s = S_expand("%l", 0, &st, &err);
        char want[16];
        snprintf(want, sizeof want, "%d", 30 + i);
        cr_assert_str_eq(s, want, "with %s the first one set", order[i]);
        free(s);
        unsetenv(order[i]);
    }
    cr_assert(gm_path_uses("a-%l", 'l'));
    cr_assert_not(gm_path_uses("a-%%l", 'l'));
    S_clear_ranks();
}

/* A rank variable is digits only and below 2^20; anything else is refused
 * with the variable's name and its value quoted safely (issue 26). */
Test(pathpat, rank_variables_validated)
{
    gm_status st;
    gm_error err;
    const char *bad[] = {"", "-1", "+1", " 1", "1 ", "1e3", "0x10", "1048576", "4294967296",
                         "99999999999999999999999", "1\n", "١"};
    const char *vars[] = {"RANK", "PALS_RANKID", "LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK"};
    for (size_t v = 0; v < sizeof vars / sizeof *vars; v++)
        for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
            S_clear_ranks();
            setenv(vars[v], bad[k], 1);
            bool local = strstr(vars[v], "LOCAL") != NULL;
            char *s = S_expand(local ? "a-%l.json" : "a-%r.json", 0, &st, &err);
            cr_assert_null(s, "%s='%s' taken: %s", vars[v], bad[k], s);
            cr_assert_eq(st, GM_ERR_VALUE);
            char want[64];
            snprintf(want, sizeof want, "%s='", vars[v]);
            gmt_assert_has(err.message, want);
            gmt_assert_has(err.message, local ? "' is not a local rank (digits only: a whole "
                                                "number from 0 to 1048575)"
                                              : "' is not a rank (digits only: a whole number "
                                                "from 0 to 1048575)");
            for (const char *c = err.message; *c; c++)
                cr_assert((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f,
                          "a raw byte 0x%02x in the message", (unsigned char)*c);
        }
    S_clear_ranks();
    setenv("RANK", "1\x1b[2J", 1);
    cr_assert_null(S_expand("%r", 0, &st, &err));
    gmt_assert_has(err.message, "RANK='1\\x1b[2J' is not a rank");
    /* the good ones, leading zeros included */
    const char *good[][2] = {{"0", "0"}, {"007", "7"}, {"1048575", "1048575"}};
    for (size_t k = 0; k < sizeof good / sizeof *good; k++) {
        setenv("RANK", good[k][0], 1);
        setenv("LOCAL_RANK", good[k][0], 1);
        char *s = S_expand("%r.%l", 0, &st, &err);
        cr_assert_eq(st, GM_OK, "%s", err.message);
        char want[32];
        snprintf(want, sizeof want, "%s.%s", good[k][1], good[k][1]);
        cr_assert_str_eq(s, want);
        free(s);
    }
    S_clear_ranks();
}

Test(pathpat, unset_rank_is_zero_and_recorded_absent)
{
    S_clear_ranks();
    gm_status st;
    gm_error err;
    char *s = S_expand("%r", 0, &st, &err);
    cr_assert_str_eq(s, "0");
    free(s);
    gm_process p = {0};
    cr_assert_eq(gm_process_identify(&p, &err), GM_OK);
    cr_assert(p.present);
    cr_assert_eq(p.rank.kind, GM_V_ABSENT);
    cr_assert_null(p.rank_var);
    cr_assert_eq(p.pid, (long long)getpid());
    cr_assert(p.host && *p.host && !strchr(p.host, '.') && !strchr(p.host, '/'));
    gm_process_free(&p);
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    cr_assert_eq(gm_process_identify(&p, &err), GM_OK);
    cr_assert_eq(p.rank.kind, GM_V_INT);
    cr_assert_eq(p.rank.i, 3);
    cr_assert_str_eq(p.rank_var, "OMPI_COMM_WORLD_RANK");
    gm_process_free(&p);
    S_clear_ranks();
}

Test(pathpat, refusals)
{
    S_clear_ranks();
    gm_status st;
    gm_error err;
    cr_assert_null(S_expand("run-%d.json", -1, &st, &err));
    cr_assert_eq(st, GM_ERR_VALUE);
    gmt_assert_has(err.message, "%d (the device) is not known");
    cr_assert_null(S_expand("run-%x.json", 0, &st, &err));
    gmt_assert_has(err.message, "%x is not a pattern");
    cr_assert_null(S_expand("run-%", 0, &st, &err));
    gmt_assert_has(err.message, "lone %");
    cr_assert_null(S_expand("", 0, &st, &err));
    gmt_assert_has(err.message, "names no file");
    setenv("SLURM_PROCID", "x1", 1);
    cr_assert_null(S_expand("%r.json", 0, &st, &err));
    gmt_assert_has(err.message, "SLURM_PROCID='x1' is not a rank");
    setenv("SLURM_PROCID", "-1", 1);
    cr_assert_null(S_expand("%r.json", 0, &st, &err));
    /* a bad variable does not matter to a pattern without %r (or %l) */
    setenv("SLURM_LOCALID", "x", 1);
    cr_assert_null(S_expand("%l.json", 0, &st, &err));
    gmt_assert_has(err.message, "SLURM_LOCALID='x' is not a local rank");
    char *s = S_expand("a.json", 0, &st, &err);
    cr_assert_str_eq(s, "a.json");
    free(s);
    S_clear_ranks();
    cr_assert(gm_path_uses("a-%d", 'd'));
    cr_assert_not(gm_path_uses("a-%%d", 'd'));
    cr_assert(gm_path_uses("a-%%%d", 'd'));
}

/* Every expansion is a safe piece of one file name: a host name of "..",
 * with a slash, a newline or ESC never climbs out of the directory, names
 * an empty component or puts a control character in a path (issue 24). */
Test(pathpat, expansions_are_safe_components)
{
    S_clear_ranks();
    struct {
        const char *host, *want;
    } cases[] = {
        {"..", "out/_/run.json"},
        {".", "out/_/run.json"},
        {"...", "out/_/run.json"},
        {"", "out/_/run.json"},
        {"../../etc", "out/.._.._etc/run.json"},
        {"a/b", "out/a_b/run.json"},
        {"node\nrm -rf", "out/node_rm_-rf/run.json"},
        {"\033[31mred\033[0m", "out/__31mred__0m/run.json"},
        {"n\xc3\xa9ud", "out/n__ud/run.json"},
        {"node-01.cluster_a", "out/node-01.cluster_a/run.json"},
        {"..x", "out/..x/run.json"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        gm_path_vars v = {cases[k].host, 0, 4242};
        char *out = NULL;
        gm_error err;
        cr_assert_eq(gm_path_expand("out/%h/run.json", &v, &out, &err), GM_OK, "%s", err.message);
        cr_assert_str_eq(out, cases[k].want, "host '%s'", cases[k].host);
        for (const char *c = out; *c; c++)
            cr_assert((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                      (*c >= '0' && *c <= '9') || strchr("._-/", *c), "'%s'", out);
        cr_assert_null(strstr(out, "//"));
        cr_assert_null(strstr(out, "/../"));
        free(out);
    }
    /* the pattern itself is the user's: its own ".." and '/' stay */
    gm_path_vars v = {"..", 0, 4242};
    char *out = NULL;
    gm_error err;
    cr_assert_eq(gm_path_expand("../r-%h.json", &v, &out, &err), GM_OK, "%s", err.message);
    cr_assert_str_eq(out, "../r-_.json");
    free(out);
    /* this machine's own name too */
    cr_assert_eq(gm_path_expand("%h", NULL, &out, &err), GM_OK, "%s", err.message);
    cr_assert(*out && strcmp(out, "..") != 0 && !strchr(out, '/'));
    free(out);
}

Test(pathpat, cli_collect_refuses_bad_pattern_before_the_gpu)
{
#ifndef GM_HAVE_CUDA
    cr_skip_test("collect is built only with the CUDA toolkit (nvcc): it refuses before the pattern");
#endif
    char *argv[] = {(char *)gmt_bin(), "collect", "--json", "r-%q.json", NULL};
    char *err = NULL;
    int rc = gmt_run(argv, NULL, NULL, &err);
    cr_assert_eq(rc, 2);
    gmt_assert_has(err, "--json 'r-%q.json': %q is not a pattern");
    free(err);
}

/* A program run checks the rank variable before the program runs (the
 * profiler in it records the rank), and a bad %l is refused there too. */
Test(pathpat, cli_program_refuses_bad_rank_before_running_it)
{
#ifndef GM_HAVE_CUDA
    cr_skip_test("a program run is built only with the CUDA toolkit (nvcc)");
#endif
    char *dir = gmt_tmpdir("ranks");
    char *mark = gmt_join(dir, "ran"), *json = gmt_join(dir, "r.json");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "touch '%s'", mark);
    char *argv[] = {(char *)gmt_bin(), "collect", "--json", json, "--", "/bin/sh", "-c", cmd,
                    NULL};
    const char *env[] = {"RANK=1 ", "PMIX_RANK", NULL};
    char *err = NULL;
    cr_assert_eq(gmt_run(argv, env, NULL, &err), 2, "%s", err);
    gmt_assert_has(err, "RANK='1 ' is not a rank");
    cr_assert_not(gmt_exists(mark), "the program ran");
    free(err);
    char *pat = gmt_join(dir, "r-%l.json");
    argv[3] = pat;
    const char *env2[] = {"RANK", "SLURM_LOCALID=-2", NULL};
    cr_assert_eq(gmt_run(argv, env2, NULL, &err), 2, "%s", err);
    gmt_assert_has(err, "--json '");
    gmt_assert_has(err, "r-%l.json': SLURM_LOCALID='-2' is not a local rank");
    cr_assert_not(gmt_exists(mark), "the program ran");
    free(err);
    free(pat);
    free(mark);
    free(json);
    gmt_rmrf(dir);
    free(dir);
}

/* ---- the GPU lock ---------------------------------------------------------- */

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int g_waits_seen;
static void S_on_wait(void *ctx, const char *path)
{
    (void)path;
    g_waits_seen++;
    /* tell the holder (second_process_waits_its_turn) that this one waits */
    if (ctx && write(*(int *)ctx, "w", 1) != 1)
        perror("devlock test: write");
}

Test(devlock, path_from_uuid)
{
    setenv("GPUMEM_REPORT_LOCK_DIR", "/some/dir", 1);
    char *p = gm_devlock_path("GPU-12ab/../x y");
    cr_assert_str_eq(p, "/some/dir/gpumem-report-GPU-12ab____x_y.lock");
    free(p);
    unsetenv("GPUMEM_REPORT_LOCK_DIR");
    p = gm_devlock_path("GPU-1");
    cr_assert_str_eq(p, "/tmp/gpumem-report-GPU-1.lock");
    free(p);
}

/* A child holds the lock until the parent, asking after the child has it, says
 * (from its wait callback) that it waits; the parent is told once that it
 * waits and gets the lock when the child lets go.  Nothing here depends on how
 * fast either process runs. */
Test(devlock, second_process_waits_its_turn)
{
    gmt_deadline(120);
    char *dir = gmt_tmpdir("lock");
    setenv("GPUMEM_REPORT_LOCK_DIR", dir, 1);
    int ready[2], waiting[2];
    cr_assert_eq(pipe(ready), 0);
    cr_assert_eq(pipe(waiting), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        gm_devlock lk = GM_DEVLOCK_INIT;
        if (gm_devlock_acquire(&lk, "GPU-test-uuid", NULL, NULL, NULL) != GM_OK)
            _exit(3);
        if (write(ready[1], "x", 1) != 1)
            _exit(4);
        char w;
        if (read(waiting[0], &w, 1) != 1)
            _exit(6);
        gm_devlock_free(&lk);
        _exit(lk.waits == 0 ? 0 : 5);
    }
    char c;
    cr_assert_eq(read(ready[0], &c, 1), 1);
    gm_devlock lk = GM_DEVLOCK_INIT;
    g_waits_seen = 0;
    double t0 = S_now();
    gm_error err;
    cr_assert_eq(gm_devlock_acquire(&lk, "GPU-test-uuid", S_on_wait, &waiting[1], &err), GM_OK,
                 "%s", err.message);
    double waited = S_now() - t0;
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    cr_assert_eq(g_waits_seen, 1);
    cr_assert_eq(lk.waits, 1);
    cr_assert_eq(lk.turns, 1);
    /* what the lock records is the time it waited, within the time this call
     * took (no bound on either: a loaded machine stretches both) */
    cr_assert_gt(lk.waited_s, 0.0, "recorded %.3f s", lk.waited_s);
    cr_assert_leq(lk.waited_s, waited + 1e-3, "recorded %.3f s, measured %.3f s", lk.waited_s,
                  waited);
    /* another device's lock is free meanwhile; this one again after release */
    gm_devlock other = GM_DEVLOCK_INIT;
    cr_assert_eq(gm_devlock_acquire(&other, "GPU-other", S_on_wait, NULL, &err), GM_OK);
    cr_assert_eq(other.waits, 0);
    gm_devlock_free(&other);
    gm_devlock_release(&lk);
    cr_assert_eq(gm_devlock_acquire(&lk, "GPU-test-uuid", S_on_wait, NULL, &err), GM_OK);
    cr_assert_eq(lk.waits, 1);
    cr_assert_eq(lk.turns, 2);
    gm_devlock_free(&lk);
    unsetenv("GPUMEM_REPORT_LOCK_DIR");
    gmt_rmrf(dir);
    free(dir);
    close(ready[0]);
    close(ready[1]);
    close(waiting[0]);
    close(waiting[1]);
}

/* The lock dies with its holder: a killed process never leaves the GPU locked. */
Test(devlock, killed_holder_releases)
{
    char *dir = gmt_tmpdir("lock");
    setenv("GPUMEM_REPORT_LOCK_DIR", dir, 1);
    int ready[2];
    cr_assert_eq(pipe(ready), 0);
    pid_t pid = fork();
    if (pid == 0) {
        gm_devlock lk = GM_DEVLOCK_INIT;
        if (gm_devlock_acquire(&lk, "GPU-k", NULL, NULL, NULL) != GM_OK)
            _exit(3);
        if (write(ready[1], "x", 1) != 1)
            _exit(4);
        pause();
        _exit(0);
    }
    char c;
    cr_assert_eq(read(ready[0], &c, 1), 1);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    gm_devlock lk = GM_DEVLOCK_INIT;
    cr_assert_eq(gm_devlock_acquire(&lk, "GPU-k", NULL, NULL, NULL), GM_OK);
    cr_assert_eq(lk.waits, 0);
    gm_devlock_free(&lk);
    unsetenv("GPUMEM_REPORT_LOCK_DIR");
    gmt_rmrf(dir);
    free(dir);
    close(ready[0]);
    close(ready[1]);
}

/* ---- one writer per output (core/claim.h) ----------------------------------- */

static const char *const S_job_vars[] = {"SLURM_JOB_ID", "SLURM_STEP_ID", "PMIX_NAMESPACE",
                                         "OMPI_MCA_ess_base_jobid", "PALS_APID",
                                         "TORCHELASTIC_RUN_ID", "MASTER_ADDR", "MASTER_PORT"};

static void S_clear_job(void)
{
    S_clear_ranks();
    for (size_t i = 0; i < sizeof S_job_vars / sizeof *S_job_vars; i++)
        unsetenv(S_job_vars[i]);
}

/* In a child process: RANK=rank (and the job, NULL: none), expand pattern
 * in dir, claim it, write it when claimed; the message goes to dir/msg-N.
 * With hold_fd >= 0, says "c" on it once claimed and waits for a byte on
 * go_fd before writing.  Exit 0 claimed and written, 1 refused. */
static pid_t S_claimer(const char *dir, const char *pattern, int rank, const char *job,
                       int hold_fd, int go_fd)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid != 0)
        return pid;
    S_clear_job();
    char val[16];
    snprintf(val, sizeof val, "%d", rank);
    setenv("RANK", val, 1);
    if (job)
        setenv("TORCHELASTIC_RUN_ID", job, 1);
    char *pat = gmt_join(dir, pattern), *path = NULL;
    gm_error err = {GM_OK, ""};
    gm_claim c = GM_CLAIM_INIT;
    int rc = 1;
    if (gm_path_expand(pat, NULL, &path, &err) == GM_OK && gm_claim_take(&c, path, &err) == GM_OK) {
        if (hold_fd >= 0) {
            char b = 0;
            if (write(hold_fd, "c", 1) != 1 || read(go_fd, &b, 1) != 1)
                _exit(3);
        }
        rc = gm_output_write(path, val, strlen(val), NULL, 0, &err) == GM_OK ? 0 : 2;
        gm_claim_release(&c);
    }
    char name[32];
    snprintf(name, sizeof name, "msg-%d", rank);
    char *mp = gmt_join(dir, name);
    FILE *f = fopen(mp, "w");
    if (f) {
        fputs(err.message, f);
        fclose(f);
    }
    _exit(rc);
}

static int S_wait_exit(pid_t pid)
{
    int st = 0;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st), "a claimer was killed");
    return WEXITSTATUS(st);
}

static char *S_msg(const char *dir, int rank)
{
    char name[32];
    snprintf(name, sizeof name, "msg-%d", rank);
    char *p = gmt_join(dir, name), *t = gmt_text(p);
    free(p);
    return t;
}

/* Two processes of one job, RANK=0 and RANK=1, one pattern without %r: the
 * second is refused while the first writes, and after it has written; the
 * same rank again (a rerun) and another job are not.  With %r both write
 * (issue 24: the second rank replaced the first one's file). */
Test(claim, two_ranks_one_path_the_second_refused)
{
    char *dir = gmt_tmpdir("claim");
    int hold[2], go[2];
    cr_assert_eq(pipe(hold), 0);
    cr_assert_eq(pipe(go), 0);
    pid_t first = S_claimer(dir, "run.json", 0, "job-1", hold[1], go[0]);
    char b = 0;
    cr_assert_eq(read(hold[0], &b, 1), 1, "rank 0 never claimed");
    /* while rank 0 holds it */
    cr_assert_eq(S_wait_exit(S_claimer(dir, "run.json", 1, "job-1", -1, -1)), 1);
    char *m = S_msg(dir, 1);
    char want[256];
    snprintf(want, sizeof want, "/run.json is being written by another process (rank 0, pid %d "
             "on ", (int)first);
    gmt_assert_has(m, want);
    gmt_assert_has(m, "put %r (the rank) or %p (the pid) in the pattern so that each process "
                      "writes its own file");
    free(m);
    /* another job is refused too while the lock is held */
    cr_assert_eq(S_wait_exit(S_claimer(dir, "run.json", 1, "job-2", -1, -1)), 1);
    cr_assert_eq(write(go[1], "g", 1), 1);
    cr_assert_eq(S_wait_exit(first), 0);
    char *out = gmt_join(dir, "run.json"), *text = gmt_text(out);
    cr_assert_str_eq(text, "0", "rank 0's file");
    free(text);
    /* after rank 0 has written: rank 1 of the same job is still refused */
    cr_assert_eq(S_wait_exit(S_claimer(dir, "run.json", 1, "job-1", -1, -1)), 1);
    m = S_msg(dir, 1);
    gmt_assert_has(m, "/run.json was claimed by another process of this job (rank 0, pid ");
    gmt_assert_has(m, "job TORCHELASTIC_RUN_ID=job-1)");
    free(m);
    text = gmt_text(out);
    cr_assert_str_eq(text, "0", "rank 0's file is kept");
    free(text);
    /* rank 0 again (a rerun of the same rank), or another job: written */
    cr_assert_eq(S_wait_exit(S_claimer(dir, "run.json", 0, "job-1", -1, -1)), 0);
    cr_assert_eq(S_wait_exit(S_claimer(dir, "run.json", 1, "job-2", -1, -1)), 0);
    text = gmt_text(out);
    cr_assert_str_eq(text, "1");
    free(text);
    /* the claim file stays while a job is named (later ranks must see it) */
    char *cl = gmt_join(dir, ".run.json.claim");
    char *rec = gmt_text(cl);
    gmt_assert_has(rec, "rank 1\njob TORCHELASTIC_RUN_ID=job-2\n");
    free(rec);

    /* with %r, both at once: each its own file */
    pid_t r0 = S_claimer(dir, "run-%r.json", 0, "job-3", hold[1], go[0]);
    cr_assert_eq(read(hold[0], &b, 1), 1);
    cr_assert_eq(S_wait_exit(S_claimer(dir, "run-%r.json", 1, "job-3", -1, -1)), 0);
    cr_assert_eq(write(go[1], "g", 1), 1);
    cr_assert_eq(S_wait_exit(r0), 0);
    for (int r = 0; r < 2; r++) {
        char name[32], v[16];
        snprintf(name, sizeof name, "run-%d.json", r);
        snprintf(v, sizeof v, "%d", r);
        char *p = gmt_join(dir, name), *t = gmt_text(p);
        cr_assert_str_eq(t, v);
        free(t);
        free(p);
    }
    for (int i = 0; i < 2; i++) {
        close(hold[i]);
        close(go[i]);
    }
    free(cl);
    free(out);
    gmt_rmrf(dir);
    free(dir);
}

/* Without a job (no launcher): the claim is removed when released, a
 * second claim of the same path in flight is refused, streams are left
 * alone, and a directory that does not exist leaves the error to the
 * write. */
Test(claim, without_a_job_nothing_is_left)
{
    S_clear_job();
    char *dir = gmt_tmpdir("claim");
    char *out = gmt_join(dir, "r.json"), *cl = gmt_join(dir, ".r.json.claim");
    gm_claim a = GM_CLAIM_INIT, b = GM_CLAIM_INIT;
    gm_error err;
    cr_assert_eq(gm_claim_take(&a, out, &err), GM_OK, "%s", err.message);
    cr_assert(gmt_exists(cl));
    char *rec = gmt_text(cl);
    gmt_assert_has(rec, "gpumem-report output claim\npid ");
    gmt_assert_lacks(rec, "rank");
    gmt_assert_lacks(rec, "job");
    free(rec);
    /* a second description of the same file is another holder */
    cr_assert_eq(gm_claim_take(&b, out, &err), GM_ERR_VALUE);
    gmt_assert_has(err.message, "is being written by another process (pid ");
    cr_assert_eq(b.fd, -1);
    /* a link to it shares the claim */
    char *link = gmt_join(dir, "link.json");
    cr_assert_eq(gm_file_create(out, "x", 1, &err), GM_OK);
    cr_assert_eq(symlink(out, link), 0);
    cr_assert_eq(gm_claim_take(&b, link, &err), GM_ERR_VALUE);
    gm_claim_release(&a);
    gm_claim_release(&a);   /* idempotent */
    cr_assert_not(gmt_exists(cl), "the claim file is removed");
    cr_assert_eq(gmt_count_entries(dir), 2);
    cr_assert_eq(gm_claim_take(&b, out, &err), GM_OK, "%s", err.message);
    gm_claim_release(&b);
    /* streams and missing directories: no claim */
    const char *none[] = {"-", "/dev/null", "/dev/stdout"};
    for (size_t k = 0; k < sizeof none / sizeof *none; k++) {
        cr_assert_eq(gm_claim_take(&a, none[k], &err), GM_OK);
        cr_assert_eq(a.fd, -1);
    }
    char *missing = gmt_join(dir, "no/such/dir/r.json");
    cr_assert_eq(gm_claim_take(&a, missing, &err), GM_OK);
    cr_assert_eq(a.fd, -1);
    /* a symlink planted as the claim file is not followed */
    char *victim = gmt_join(dir, "victim"), *o2 = gmt_join(dir, "o2.json");
    char *c2 = gmt_join(dir, ".o2.json.claim");
    cr_assert_eq(gm_file_create(victim, "keep", 4, &err), GM_OK);
    cr_assert_eq(symlink(victim, c2), 0);
    cr_assert_eq(gm_claim_take(&a, o2, &err), GM_OK);
    cr_assert_eq(a.fd, -1);
    char *v = gmt_text(victim);
    cr_assert_str_eq(v, "keep");
    free(v);
    free(victim);
    free(o2);
    free(c2);
    free(missing);
    free(link);
    free(out);
    free(cl);
    gmt_rmrf(dir);
    free(dir);
}

/* The job key: the launcher's ids, reduced to safe characters. */
Test(claim, job_key_from_the_launcher)
{
    S_clear_job();
    cr_assert_null(gm_claim_job_key());
    setenv("MASTER_PORT", "29500", 1);   /* alone: not torchrun */
    cr_assert_null(gm_claim_job_key());
    setenv("SLURM_JOB_ID", "123", 1);
    setenv("SLURM_STEP_ID", "4", 1);
    setenv("TORCHELASTIC_RUN_ID", "none\n\033x", 1);
    setenv("MASTER_ADDR", "node7", 1);
    char *k = gm_claim_job_key();
    cr_assert_str_eq(k, "SLURM_JOB_ID=123;SLURM_STEP_ID=4;TORCHELASTIC_RUN_ID=none__x;"
                        "MASTER_ADDR=node7;MASTER_PORT=29500");
    free(k);
    S_clear_job();
    char *p = gm_claim_path("a/b/run.json");
    cr_assert_str_eq(p, "a/b/.run.json.claim");
    free(p);
    p = gm_claim_path("run.json");
    cr_assert_str_eq(p, ".run.json.claim");
    free(p);
    cr_assert_null(gm_claim_path("dir/"));
    cr_assert_null(gm_claim_path(""));
}

/* `RANK=rank TORCHELASTIC_RUN_ID=job gpumem-report collect --json pattern
 * -- sh` whose program touches `started` and waits for `go` (a minute at
 * most); stdout and stderr to err_path.  Returns its pid.  The injection
 * library is a stand-in (a regular file: sh never loads CUDA), so that the
 * run needs no build of the library (make asan has none). */
static pid_t S_rank_run(int rank, const char *job, const char *pattern, const char *started,
                        const char *go, const char *err_path)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid != 0)
        return pid;
    S_clear_job();
    char val[16];
    snprintf(val, sizeof val, "%d", rank);
    setenv("RANK", val, 1);
    setenv("TORCHELASTIC_RUN_ID", job, 1);
    setenv("GPUMEM_REPORT_INJECT", gmt_src("tests/fixtures/inject-launches.json"), 1);
    int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    dup2(fd, 1);
    execl(gmt_bin(), gmt_bin(), "collect", "--json", pattern, "--", "/bin/sh", "-c",
          "touch \"$0\"; i=0; while [ ! -e \"$1\" ] && [ $i -lt 1200 ]; do sleep 0.05; "
          "i=$((i+1)); done", started, go, (char *)NULL);
    _exit(127);
}

static bool S_wait_for(const char *path)
{
    for (int i = 0; i < 600 && !gmt_exists(path); i++) {
        struct timespec nap = {0, 50 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    return gmt_exists(path);
}

/* The program: a second rank writing the same --json is refused before its
 * program starts, exit 2, naming the path and %r; the suite too, before the
 * GPU.  With %r in the pattern both run at once. */
Test(claim, cli_second_rank_refused_before_it_runs)
{
    gmt_deadline(120);
#ifndef GM_HAVE_CUDA
    cr_skip_test("a program run is built only with the CUDA toolkit (nvcc)");
#endif
    char *dir = gmt_tmpdir("claim");
    char *json = gmt_join(dir, "run.json"), *go = gmt_join(dir, "go");
    char *started[2] = {gmt_join(dir, "started-0"), gmt_join(dir, "started-1")};
    char *errs[2] = {gmt_join(dir, "rank0.err"), gmt_join(dir, "rank1.err")};
    /* rank 0 holds run.json while its program waits for "go" */
    pid_t r0 = S_rank_run(0, "cli-job", json, started[0], go, errs[0]);
    cr_assert(S_wait_for(started[0]), "rank 0's program never started");
    pid_t r1 = S_rank_run(1, "cli-job", json, started[1], go, errs[1]);
    cr_assert_eq(S_wait_exit(r1), 2);
    char *e = gmt_text(errs[1]);
    char want[4200];
    snprintf(want, sizeof want, "gpumem-report: --json %s is being written by another process "
             "(rank 0, pid %d on ", json, (int)r0);
    gmt_assert_has(e, want);
    gmt_assert_has(e, "put %r (the rank) or %p (the pid) in the pattern");
    cr_assert_not(gmt_exists(started[1]), "rank 1's program ran");
    free(e);
    /* the suite, too: refused before the GPU */
    char *html = gmt_join(dir, "r.html");
    char *argv[] = {(char *)gmt_bin(), "--quick", "--out", html, "--json", json, NULL};
    const char *env[] = {"RANK=1", "TORCHELASTIC_RUN_ID=cli-job", NULL};
    cr_assert_eq(gmt_run(argv, env, NULL, &e), 2, "%s", e);
    gmt_assert_has(e, "is being written by another process (rank 0");
    gmt_assert_lacks(e, "cannot collect here");
    free(e);
    cr_assert_eq(gm_file_create(go, "", 0, NULL), GM_OK);
    S_wait_exit(r0);
    e = gmt_text(errs[0]);
    gmt_assert_lacks(e, "being written");
    free(e);

    /* with %r: both programs run at once */
    unlink(go);
    unlink(started[0]);
    char *pat = gmt_join(dir, "run-%r.json");
    r0 = S_rank_run(0, "cli-job-2", pat, started[0], go, errs[0]);
    r1 = S_rank_run(1, "cli-job-2", pat, started[1], go, errs[1]);
    cr_assert(S_wait_for(started[0]) && S_wait_for(started[1]), "a rank's program did not run");
    cr_assert_eq(gm_file_create(go, "", 0, NULL), GM_OK);
    S_wait_exit(r0);
    S_wait_exit(r1);
    for (int r = 0; r < 2; r++) {
        e = gmt_text(errs[r]);
        gmt_assert_lacks(e, "being written");
        gmt_assert_lacks(e, "was claimed");
        free(e);
    }
    free(pat);
    free(html);
    free(json);
    free(go);
    for (int r = 0; r < 2; r++) {
        free(started[r]);
        free(errs[r]);
    }
    gmt_rmrf(dir);
    free(dir);
}

/* ---- merge ----------------------------------------------------------------- */

/* The committed program run (examples/app/run.json), recorded as rank `rank`
 * of a two-rank job: only the process record differs. */
static void S_rank_file(gm_results *r, long long rank, double waited)
{
    char *p = gmt_src("examples/app/run.json");
    gm_error err;
    cr_assert_eq(gm_results_read_file(p, r, &err), GM_OK, "%s", err.message);
    free(p);
    gm_process *pr = &r->collection.process;
    pr->present = true;
    free(pr->host);
    free(pr->rank_var);
    free(pr->device_uuid);
    pr->host = gm_xstrdup("node1");
    pr->rank = gm_vint(rank);
    pr->rank_var = gm_xstrdup("OMPI_COMM_WORLD_RANK");
    pr->pid = 100 + rank;
    pr->device_uuid = gm_xstrdup("GPU-fixture");
    pr->lock_wait_seconds = gm_vreal(waited);
    pr->lock_waits = waited > 0;
    pr->lock_turns = 5;
}

Test(merge, a_row_per_rank)
{
    gm_results in[2], out;
    S_rank_file(&in[0], 1, 0.25);   /* given in the wrong order: sorted by rank */
    S_rank_file(&in[1], 0, 0.0);
    size_t n_runs = in[0].n_runs;
    const char *names[] = {"r1.json", "r0.json"};
    gm_error err;
    cr_assert_eq(gm_results_merge(in, names, 2, false, &out, &err), GM_OK, "%s", err.message);
    cr_assert_eq(out.n_runs, 2 * n_runs);
    cr_assert_eq(out.collection.n_ranks, 2);
    cr_assert_eq(out.collection.ranks[0].rank.i, 0);
    cr_assert_eq(out.collection.ranks[1].rank.i, 1);
    cr_assert_eq(out.collection.ranks[1].lock_waits, 1);
    cr_assert_not(out.collection.process.present);
    cr_assert_eq(out.n_experiments, 1);
    /* each kernel's ranks side by side, kernels in the order they ran */
    for (size_t i = 0; i < out.n_runs; i++) {
        const gm_param *p = gm_run_param(&out.runs[i], "rank");
        cr_assert(p && p->value.kind == GM_V_INT);
        cr_assert_eq(p->value.i, (long long)(i % 2));
        if (i % 2)
            cr_assert_str_eq(out.runs[i].variant, out.runs[i - 1].variant);
    }
    /* round trip, and the report shows the ranks */
    char *json = gm_results_to_json(&out);
    gm_results back;
    cr_assert_eq(gm_results_read_string(json, "merged", &back, &err), GM_OK, "%s", err.message);
    char *json2 = gm_results_to_json(&back);
    cr_assert_str_eq(json, json2);
    gm_sections ss;
    gm_sections_build(&back, &ss);
    gm_charts charts;
    gm_charts_plan(&back, &ss, &charts);
    gm_sections_free(&ss);
    char *md = gm_render_markdown(&back, &charts, "x.charts", NULL);
    gmt_assert_has(md, "## Ranks");
    gmt_assert_has(md, "| 1 | node1 | 101 | `GPU-fixture` |");
    gmt_assert_has(md, "waited 0.250 s");
    gmt_assert_has(md, "rank=1 |");
    free(md);
    gm_charts_free(&charts);
    free(json);
    free(json2);
    gm_results_free(&back);
    gm_results_free(&out);
}

Test(merge, summed_with_least_and_most)
{
    gm_results in[2], out;
    S_rank_file(&in[0], 0, 0.0);
    S_rank_file(&in[1], 1, 0.0);
    /* rank 1's first kernel took twice as long, and counted twice the sectors */
    gm_run *r1 = &in[1].runs[0];
    double *twice = gm_xcalloc(r1->timing.n + 1, sizeof *twice);
    for (size_t i = 0; i < r1->timing.n; i++)
        twice[i] = 2 * r1->timing.samples[i];
    gm_timing_set_samples(&r1->timing, twice, r1->timing.n);
    free(twice);
    /* gated on one rank only: the sum is not; gated on both: it is */
    in[0].runs[0].timing.gated = true;
    cr_assert(in[0].n_runs >= 2 && in[0].runs[1].timing.samples);
    in[0].runs[1].timing.gated = in[1].runs[1].timing.gated = true;
    const gm_run *r0 = &in[0].runs[0];
    double t0 = gm_run_total_ms(r0), t1 = gm_run_total_ms(r1);
    size_t n0 = r0->timing.n, nruns = in[0].n_runs;
    long long c0 = -1;
    for (size_t m = 0; m < r0->n_metrics; m++)
        if (r0->metrics[m].value.kind == GM_V_INT) {
            c0 = r0->metrics[m].value.i;
            break;
        }
    const char *names[] = {"r0.json", "r1.json"};
    gm_error err;
    cr_assert_eq(gm_results_merge(in, names, 2, true, &out, &err), GM_OK, "%s", err.message);
    cr_assert_eq(out.n_runs, nruns);
    const gm_run *s = &out.runs[0];
    cr_assert_eq(s->timing.n, 2 * n0);
    cr_assert(!s->timing.gated, "samples with and without the gate");
    cr_assert(out.runs[1].timing.gated);
    cr_assert_float_eq(gm_run_total_ms(s), t0 + t1, 1e-9 * (t0 + t1));
    for (size_t m = 0; m < s->n_metrics; m++)
        if (s->metrics[m].value.kind == GM_V_INT) {
            cr_assert_eq(s->metrics[m].value.i, 2 * c0);
            break;
        }
    gmt_assert_has(s->notes[s->n_notes - 1], "summed over 2 of 2 ranks");
    gmt_assert_has(s->notes[s->n_notes - 1], "least on rank 0");
    gmt_assert_has(s->notes[s->n_notes - 1], "most on rank 1");
    gm_results_free(&out);
}

Test(merge, refusals)
{
    gm_results in[2], out;
    gm_error err;
    const char *names[] = {"a.json", "b.json"};
    S_rank_file(&in[0], 2, 0);
    S_rank_file(&in[1], 2, 0);
    in[1].collection.process.pid = 999;   /* two processes, one rank */
    cr_assert_eq(gm_results_merge(in, names, 2, false, &out, &err), GM_ERR_VALUE);
    gmt_assert_has(err.message, "a.json and b.json are both rank 2");
    gm_results_free(&in[0]);
    gm_results_free(&in[1]);

    /* CLI: an input is never the output; a missing --json is refused */
    char *src = gmt_src("examples/app/run.json");
    char *argv[] = {(char *)gmt_bin(), "merge", src, "--json", src, NULL};
    char *e = NULL;
    cr_assert_eq(gmt_run(argv, NULL, NULL, &e), 2);
    gmt_assert_has(e, "merge: --json:");
    gmt_assert_has(e, "same file");
    free(e);
    char *argv2[] = {(char *)gmt_bin(), "merge", src, NULL};
    cr_assert_eq(gmt_run(argv2, NULL, NULL, &e), 2);
    gmt_assert_has(e, "--json ALL.json is required");
    free(e);
    free(src);
}

/* Files without a recorded rank take their place on the command line. */
Test(merge, cli_positions_when_no_rank)
{
    char *dir = gmt_tmpdir("merge");
    char *a = gmt_src("examples/diff/base.json"), *b = gmt_src("examples/diff/head.json");
    char *out = gmt_join(dir, "all.json");
    char *argv[] = {(char *)gmt_bin(), "merge", a, b, "--json", out, NULL};
    char *e = NULL;
    /* two files without a process record: ranks 0 and 1 by position */
    cr_assert_eq(gmt_run(argv, NULL, NULL, &e), 0, "%s", e);
    gmt_assert_has(e, "merged:");
    gm_results r;
    gm_error err;
    cr_assert_eq(gm_results_read_file(out, &r, &err), GM_OK, "%s", err.message);
    cr_assert_eq(r.collection.n_ranks, 2);
    cr_assert_eq(r.collection.ranks[1].rank.i, 1);
    gm_results_free(&r);
    free(e);
    free(out);
    free(a);
    free(b);
    gmt_rmrf(dir);
    free(dir);
}

/* One process's file given twice is one rank, not two: the same name, a
 * second name of the same file, or a copy of it are refused, nothing
 * written (issue 24). */
Test(merge, one_file_given_twice_is_refused)
{
    char *dir = gmt_tmpdir("merge");
    char *src = gmt_src("examples/app/run.json");
    char *out = gmt_join(dir, "all.json"), *link = gmt_join(dir, "link.json");
    char *copy = gmt_join(dir, "copy.json"), *spaced = gmt_join(dir, "spaced.json");
    cr_assert_eq(symlink(src, link), 0);
    char *text = gmt_text(src);
    FILE *f = fopen(copy, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    /* the same results, written another way (spacing), are the same file */
    f = fopen(spaced, "w");
    cr_assert_not_null(f);
    for (const char *c = text; *c; c++)
        fputs(*c == '\n' ? "\n  " : (char[2]){*c, 0}, f);
    fclose(f);
    struct {
        const char *second, *says;
    } cases[] = {
        {src, "is given twice"},
        {link, "are the same file"},
        {copy, "hold the same results: one process's file given twice"},
        {spaced, "hold the same results"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char *argv[] = {(char *)gmt_bin(), "merge", src, (char *)cases[k].second, "--json", out,
                        NULL};
        char *e = NULL;
        cr_assert_eq(gmt_run(argv, NULL, NULL, &e), 2, "%s", e);
        gmt_assert_has(e, cases[k].says);
        gmt_assert_has(e, "merge gathers one file per rank");
        cr_assert_not(gmt_exists(out), "written after: %s", e);
        free(e);
    }
    /* the library too, whatever the names */
    gm_results in[2], m;
    gm_error err;
    const char *names[] = {"a.json", "b.json"};
    S_rank_file(&in[0], 3, 0);
    S_rank_file(&in[1], 3, 0);
    cr_assert_eq(gm_results_merge(in, names, 2, true, &m, &err), GM_ERR_VALUE);
    gmt_assert_has(err.message, "a.json and b.json hold the same results");
    gm_results_free(&in[0]);
    gm_results_free(&in[1]);
    free(text);
    free(src);
    free(out);
    free(link);
    free(copy);
    free(spaced);
    gmt_rmrf(dir);
    free(dir);
}

/* A recorded rank is 0 <= rank < 2^20: -1 and 2^40 are refused. */
Test(merge, rank_out_of_range_is_refused)
{
    long long bad[] = {-1, 1LL << 40, GM_RANK_LIMIT};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        gm_results in[2], out;
        gm_error err;
        const char *names[] = {"r0.json", "bad.json"};
        S_rank_file(&in[0], 0, 0);
        S_rank_file(&in[1], bad[k], 0);
        size_t runs = in[1].n_runs;
        cr_assert_eq(gm_results_merge(in, names, 2, false, &out, &err), GM_ERR_VALUE);
        char want[128];
        snprintf(want, sizeof want, "bad.json records rank %lld: a rank is a whole number from "
                 "0 to 1048575 (below 2^20)", bad[k]);
        gmt_assert_has(err.message, want);
        cr_assert_eq(in[1].n_runs, runs, "the inputs are untouched");
        cr_assert_eq(out.n_runs, 0);
        gm_results_free(&in[0]);
        gm_results_free(&in[1]);
    }
    /* the largest rank is fine */
    gm_results in[2], out;
    gm_error err;
    const char *names[] = {"r0.json", "last.json"};
    S_rank_file(&in[0], 0, 0);
    S_rank_file(&in[1], GM_RANK_LIMIT - 1, 0);
    cr_assert_eq(gm_results_merge(in, names, 2, false, &out, &err), GM_OK, "%s", err.message);
    cr_assert_eq(out.collection.ranks[1].rank.i, GM_RANK_LIMIT - 1);
    gm_results_free(&out);
}

/* A one-run file of rank `rank` whose one count is `count`. */
static void S_count_file(gm_results *r, long long rank, long long count)
{
    gm_results_init(r);
    gm_experiment *e = gm_results_add_experiment(r);
    e->id = gm_xstrdup("coalescing");
    e->title = gm_xstrdup("Coalesced vs strided reads");
    gm_run *run = gm_results_add_run(r);
    run->experiment = gm_xstrdup("coalescing");
    run->variant = gm_xstrdup("strided");
    gm_run_set_param(run, "n", gm_vint(4096));
    gm_run_set_metric(run, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", gm_vint(count),
                      "sector");
    gm_run_set_metric(run, "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
                      gm_vreal(4.0 + (double)rank), "sector/request");
    r->collection.process.present = true;
    r->collection.process.host = gm_xstrdup("node1");
    r->collection.process.rank = gm_vint(rank);
    r->collection.process.pid = 1000 + rank;
}

/* --sum adds counts exactly: 1,024 ranks of 2^43 sectors are exactly 2^53
 * (the most a results file holds), the 1,025th is refused with the metric,
 * the run and the value, and nothing moves (issue 24: 1,025 ranks of a count
 * near 2^53 overflowed a long long, and a release build wrote a negative
 * count). */
Test(merge, sum_is_exact_up_to_2_53_and_refused_past_it)
{
    enum { N = 1025 };
    gm_results *in = gm_xcalloc(N, sizeof *in);
    const char **names = gm_xcalloc(N, sizeof *names);
    char (*nb)[32] = gm_xcalloc(N, sizeof *nb);
    for (int i = 0; i < N; i++) {
        snprintf(nb[i], sizeof nb[i], "r%d.json", i);
        names[i] = nb[i];
    }
    gm_error err;
    gm_results out;
    for (int i = 0; i < N - 1; i++)
        S_count_file(&in[i], i, 1LL << 43);
    cr_assert_eq(gm_results_merge(in, names, N - 1, true, &out, &err), GM_OK, "%s", err.message);
    cr_assert_eq(out.n_runs, 1);
    const gm_metric *m = &out.runs[0].metrics[0];
    cr_assert_eq(m->value.kind, GM_V_INT);
    cr_assert_eq(m->value.i, GM_INT_LIMIT, "%lld", m->value.i);
    cr_assert_float_eq(out.runs[0].metrics[1].value.r, 4.0 + (N - 2) / 2.0, 1e-9);
    /* written and read back: the reader takes 2^53 */
    char *json = gm_results_to_json(&out);
    gm_results back;
    cr_assert_eq(gm_results_read_string(json, "sum.json", &back, &err), GM_OK, "%s", err.message);
    gm_results_free(&back);
    free(json);
    gm_results_free(&out);

    for (int i = 0; i < N; i++)
        S_count_file(&in[i], i, 1LL << 43);
    cr_assert_eq(gm_results_merge(in, names, N, true, &out, &err), GM_ERR_VALUE);
    gmt_assert_has(err.message, "--sum: l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum of run "
                                "coalescing/strided (n=4096) would add up to 9015995347763200 "
                                "with rank 1024 (r1024.json runs[0]): past 2^53 "
                                "(9007199254740992)");
    cr_assert_eq(out.n_runs, 0);
    for (int i = 0; i < N; i++) {
        cr_assert_eq(in[i].n_runs, 1, "input %d untouched", i);
        cr_assert_eq(in[i].runs[0].metrics[0].value.i, 1LL << 43);
    }
    /* without --sum each rank keeps its count */
    cr_assert_eq(gm_results_merge(in, names, N, false, &out, &err), GM_OK, "%s", err.message);
    cr_assert_eq(out.n_runs, N);
    gm_results_free(&out);

    /* in memory, where no reader stands guard: a long long's overflow is
     * caught, not wrapped */
    gm_results two[2];
    S_count_file(&two[0], 0, 9223372036854775807LL - 1);
    S_count_file(&two[1], 1, 5);
    cr_assert_eq(gm_results_merge(two, names, 2, true, &out, &err), GM_ERR_VALUE);
    gmt_assert_has(err.message, "would add up to more than 9223372036854775807 with rank 1");
    gm_results_free(&two[0]);
    gm_results_free(&two[1]);
    free(in);
    free(names);
    free(nb);
}

/* A two-rank job whose counts are `c0` and `c1`, written to dir/r0.json and
 * dir/r1.json (files[]: the caller frees). */
static void S_count_files(const char *dir, long long c0, long long c1, char *files[2])
{
    for (int i = 0; i < 2; i++) {
        gm_results r;
        S_count_file(&r, i, i ? c1 : c0);
        char name[32];
        snprintf(name, sizeof name, "r%d.json", i);
        files[i] = gmt_join(dir, name);
        gm_error err;
        cr_assert_eq(gm_results_write_file(&r, files[i], &err), GM_OK, "%s", err.message);
        gm_results_free(&r);
    }
}

/* The CLI: a sum past 2^53 is exit 2 and nothing written; 2^53 itself is
 * written and read back exactly. */
Test(merge, cli_sum_past_2_53_writes_nothing)
{
    char *dir = gmt_tmpdir("merge"), *files[2];
    char *out = gmt_join(dir, "all.json");
    S_count_files(dir, GM_INT_LIMIT - 1, GM_INT_LIMIT, files);
    char *argv[] = {(char *)gmt_bin(), "merge", files[0], files[1], "--sum", "--json", out, NULL};
    char *e = NULL;
    cr_assert_eq(gmt_run(argv, NULL, NULL, &e), 2, "%s", e);
    gmt_assert_has(e, "merge: --sum: l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum of run "
                      "coalescing/strided (n=4096) would add up to 18014398509481983 with rank "
                      "1 (");
    gmt_assert_has(e, "r1.json runs[0]): past 2^53 (9007199254740992)");
    cr_assert_not(gmt_exists(out));
    cr_assert_eq(gmt_count_entries(dir), 2, "nothing but the inputs");
    free(e);
    for (int i = 0; i < 2; i++)
        free(files[i]);

    S_count_files(dir, GM_INT_LIMIT - 1, 1, files);
    argv[2] = files[0];
    argv[3] = files[1];
    cr_assert_eq(gmt_run(argv, NULL, NULL, &e), 0, "%s", e);
    gm_results r;
    gm_error err;
    cr_assert_eq(gm_results_read_file(out, &r, &err), GM_OK, "%s", err.message);
    cr_assert_eq(r.runs[0].metrics[0].value.kind, GM_V_INT);
    cr_assert_eq(r.runs[0].metrics[0].value.i, GM_INT_LIMIT);
    gm_results_free(&r);
    free(e);
    for (int i = 0; i < 2; i++)
        free(files[i]);
    free(out);
    gmt_rmrf(dir);
    free(dir);
}

/* ---- --device N,N: one process per device ---------------------------------- */

/* Device 1 fails; device 0's results and a report are kept, and the exit
 * status says a device failed.  A stand-in (fake-collect.sh) plays the
 * per-device collect; the fan-out, the relay, the summary and the report
 * are the real ones. */
Test(fanout, a_failing_device_loses_nothing_else)
{
#ifndef GM_HAVE_CUDA
    cr_skip_test("the main job (collect) is built only with the CUDA toolkit (nvcc)");
#endif
    char *dir = gmt_tmpdir("fanout");
    char *self = gmt_fixture("fake-collect.sh");
    char *out = gmt_join(dir, "node.md");
    char setself[4096];
    snprintf(setself, sizeof setself, "GPUMEM_REPORT_SELF=%s", self);
    const char *env[] = {setself, "FAKE_FAIL_DEVICE=1", NULL};
    char *argv[] = {(char *)gmt_bin(), "--device", "0,1", "--quick", "--out", out, NULL};
    char *err = NULL;
    int rc = gmt_run(argv, env, NULL, &err);
    cr_assert_eq(rc, 2, "%s", err);
    gmt_assert_has(err, "2 devices, one process each, at the same time");
    gmt_assert_has(err, "[gpu 0] fake collect: device 0");
    gmt_assert_has(err, "[gpu 1] gpumem-report: cannot collect here: device 1 failed");
    gmt_assert_has(err, "device 1: exit 2, no results");
    gmt_assert_has(err, "device 0: exit 0,");
    char *j0 = gmt_join(dir, "node-gpu0.json");
    cr_assert(gmt_exists(j0));
    cr_assert(gmt_exists(out), "the report of the device that worked");
    char *md = gmt_text(out);
    gmt_assert_has(md, "# GPU memory report: NVIDIA H100");
    free(md);
    free(err);

    /* both work: the comparison, with each file's %d */
    char *pat = gmt_join(dir, "run-%d.json");
    const char *env2[] = {setself, NULL};
    char *argv2[] = {(char *)gmt_bin(), "--device", "0,2", "--json", pat, "--out", out, NULL};
    rc = gmt_run(argv2, env2, NULL, &err);
    cr_assert_eq(rc, 0, "%s", err);
    char *j2 = gmt_join(dir, "run-2.json");
    cr_assert(gmt_exists(j2));
    md = gmt_text(out);
    gmt_assert_has(md, "# GPU memory report: 2 devices compared");
    gmt_assert_has(md, "> **Not a measurement of H100 80GB HBM3 (A).**");
    gmt_assert_has(md, "device 2");
    free(md);
    free(err);
    free(j2);
    free(pat);
    free(j0);
    free(out);
    free(self);
    gmt_rmrf(dir);
    free(dir);
}

/* The setup table names the process and says it waited for the GPU. */
Test(merge, report_says_it_waited)
{
    gm_results r;
    S_rank_file(&r, 1, 0.25);
    gm_sections ss;
    gm_sections_build(&r, &ss);
    gm_charts charts;
    gm_charts_plan(&r, &ss, &charts);
    gm_sections_free(&ss);
    char *md = gm_render_markdown(&r, &charts, "x.charts", NULL);
    gmt_assert_has(md, "| Process | host node1, rank 1 (OMPI\\_COMM\\_WORLD\\_RANK), pid 101; GPU "
                       "`GPU-fixture` |");
    gmt_assert_has(md, "| GPU shared | another process was using this GPU: this one waited "
                       "0.250 s for its turn (1 of its 5 turns had to wait).");
    gmt_assert_lacks(md, "## Ranks");
    free(md);
    gm_charts_free(&charts);
    gm_results_free(&r);
}

/* A process record that is not one is refused with its JSON path; files
 * without one read as before. */
Test(merge, process_record_checked)
{
    gm_results r;
    S_rank_file(&r, 0, 0.0);
    char *json = gm_results_to_json(&r);
    gm_results_free(&r);
    gmt_assert_has(json, "\"process\": {");
    char *at = strstr(json, "\"rank\": 0");
    cr_assert_not_null(at);
    gm_buf bad = GM_BUF_INIT;
    gm_buf_put(&bad, json, (size_t)(at - json));
    gm_buf_puts(&bad, "\"rank\": \"zero\"");
    gm_buf_puts(&bad, at + strlen("\"rank\": 0"));
    gm_error err;
    cr_assert_eq(gm_results_read_string(bad.data, "bad.json", &r, &err), GM_ERR_FIELD);
    gmt_assert_has(err.message, "collection.process.rank");
    gm_buf_free(&bad);
    free(json);
}
