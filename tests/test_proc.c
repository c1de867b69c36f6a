/* test_proc.c — child processes (core/proc.h) and private temporary folders
 * (core/output.h: gm_tmpdir), in process: what a child gets, what it gives
 * back, and what is left when it or its parent is killed. */
#include "../core/buf.h"
#include "../core/output.h"
#include "../core/proc.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void S_nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000 * 1000};
    nanosleep(&t, NULL);
}

/* Is pid gone (or a zombie nobody reaped yet)?  Waited for up to 30 s: a
 * process killed by a signal takes a moment to go on a loaded machine; the
 * wait measures nothing. */
static bool S_gone(pid_t pid)
{
    for (int i = 0; i < 1500; i++) {
        char path[64], buf[512] = "";
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return true;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *rp = strrchr(buf, ')');
        if (rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'))
            return true;
        S_nap_ms(20);
    }
    return false;
}

Test(proc, captures_stdout_and_the_tail_of_stderr)
{
    char *argv[] = {"/bin/sh", "-c",
                    "printf 'out1\\nout2'; printf '0123456789abcdef' >&2; exit 3", NULL};
    gm_proc_spec s = {.argv = argv, .out = GM_PROC_CAPTURE, .err = GM_PROC_CAPTURE,
                      .err_tail = 6};
    gm_proc_result r;
    gm_error e = {GM_OK, ""};
    cr_assert_eq(gm_proc_run(&s, &r, NULL, &e), GM_OK, "%s", e.message);
    cr_assert_eq(r.code, 3);
    cr_assert_eq(r.signal, 0);
    cr_assert(!r.timed_out);
    cr_assert_str_eq(r.out.data, "out1\nout2");
    cr_assert_str_eq(r.err.data, "abcdef");
    gm_proc_result_free(&r);
}

Test(proc, the_environment_is_changed_or_replaced)
{
    setenv("GMT_PROC_KEEP", "kept", 1);
    setenv("GMT_PROC_GONE", "here", 1);
    char *argv[] = {"sh", "-c", "echo \"$GMT_PROC_KEEP,${GMT_PROC_GONE-unset},$GMT_PROC_NEW\"",
                    NULL};
    const char *changes[] = {"GMT_PROC_GONE", "GMT_PROC_NEW=new", NULL};
    gm_proc_spec s = {.argv = argv, .env = changes, .out = GM_PROC_CAPTURE};
    gm_proc_result r;
    cr_assert_eq(gm_proc_run(&s, &r, NULL, NULL), GM_OK);
    cr_assert_str_eq(r.out.data, "kept,unset,new\n");
    gm_proc_result_free(&r);
    /* this process's own environment is untouched */
    cr_assert_str_eq(getenv("GMT_PROC_GONE"), "here");
    cr_assert_null(getenv("GMT_PROC_NEW"));
    /* a whole environment given: nothing else */
    char *envp[] = {"PATH=/bin:/usr/bin", "ONLY=this", NULL};
    char *argv2[] = {"/bin/sh", "-c", "echo \"${GMT_PROC_KEEP-none} $ONLY\"", NULL};
    gm_proc_spec s2 = {.argv = argv2, .envp = envp, .out = GM_PROC_CAPTURE};
    cr_assert_eq(gm_proc_run(&s2, &r, NULL, NULL), GM_OK);
    cr_assert_str_eq(r.out.data, "none this\n");
    gm_proc_result_free(&r);
}

Test(proc, relays_lines_after_a_prefix_and_files_and_cwd)
{
    char *dir = gmt_tmpdir("proc");
    char *log = gmt_join(dir, "relay.txt");
    FILE *f = fopen(log, "w+");
    cr_assert_not_null(f);
    char *argv[] = {"/bin/sh", "-c", "echo one; echo two >&2; printf 'last'; pwd > where", NULL};
    gm_proc_spec s = {.argv = argv, .cwd = dir, .out = GM_PROC_RELAY, .err = GM_PROC_MERGE,
                      .relay = f, .relay_prefix = "[gpu 3] "};
    gm_proc_result r;
    cr_assert_eq(gm_proc_run(&s, &r, NULL, NULL), GM_OK);
    cr_assert_eq(r.code, 0);
    fclose(f);
    char *text = gmt_text(log);
    cr_assert_str_eq(text, "[gpu 3] one\n[gpu 3] two\n[gpu 3] last\n");
    char *where = gmt_join(dir, "where");
    char *w = gmt_text(where);
    gmt_assert_has(w, dir + 4);   /* /tmp may be a link: the folder's own name */
    gm_proc_result_free(&r);
    /* a file for stderr, named relative to the child's directory */
    char *argv2[] = {"/bin/sh", "-c", "echo to-the-log >&2", NULL};
    gm_proc_spec s2 = {.argv = argv2, .cwd = dir, .out = GM_PROC_NULL, .err = GM_PROC_FILE,
                       .err_path = "child.log"};
    cr_assert_eq(gm_proc_run(&s2, &r, NULL, NULL), GM_OK);
    char *clog = gmt_join(dir, "child.log");
    char *ct = gmt_text(clog);
    cr_assert_str_eq(ct, "to-the-log\n");
    gm_proc_result_free(&r);
    gmt_rmrf(dir);
    free(ct);
    free(clog);
    free(w);
    free(where);
    free(text);
    free(log);
    free(dir);
}

Test(proc, a_program_that_cannot_run_is_said_at_the_start)
{
    char *argv[] = {"gmt-no-such-program-4711", NULL};
    gm_proc_spec s = {.argv = argv};
    gm_proc_result r;
    int e = 0;
    gm_error err = {GM_OK, ""};
    cr_assert_neq(gm_proc_run(&s, &r, &e, &err), GM_OK);
    cr_assert_eq(e, ENOENT);
    gmt_assert_has(err.message, "gmt-no-such-program-4711");
    char *argv2[] = {"/nonexistent/gmt-prog", NULL};
    gm_proc_spec s2 = {.argv = argv2};
    cr_assert_neq(gm_proc_run(&s2, &r, &e, &err), GM_OK);
    cr_assert_eq(e, ENOENT);
    char *argv3[] = {"/tmp", NULL};
    gm_proc_spec s3 = {.argv = argv3};
    cr_assert_neq(gm_proc_run(&s3, &r, &e, &err), GM_OK);
    cr_assert_eq(e, EACCES);
    /* a directory the child cannot enter */
    char *argv4[] = {"/bin/true", NULL};
    gm_proc_spec s4 = {.argv = argv4, .cwd = "/nonexistent-gmt-dir"};
    cr_assert_neq(gm_proc_run(&s4, &r, &e, &err), GM_OK);
    cr_assert_eq(e, ENOENT);
}

/* The processes a test orphans (a killed shell's child, a killed parent's
 * child) come to the test, which reaps them, rather than to whoever is the
 * subreaper of the test run. */
static void S_adopt_orphans(void)
{
    cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
}

static void S_reap(pid_t pid)
{
    (void)waitpid(pid, NULL, 0);
}

Test(proc, the_time_limit_kills_the_group)
{
    S_adopt_orphans();
    char *dir = gmt_tmpdir("proc");
    char *pidfile = gmt_join(dir, "grandchild");
    gm_buf cmd = GM_BUF_INIT;
    gm_buf_printf(&cmd, "sleep 51.5 & echo $! > %s; wait", pidfile);
    char *argv[] = {"/bin/sh", "-c", cmd.data, NULL};
    gm_proc_spec s = {.argv = argv, .own_group = true, .timeout_s = 0.5,
                      .out = GM_PROC_CAPTURE};
    gm_proc_result r;
    cr_assert_eq(gm_proc_run(&s, &r, NULL, NULL), GM_OK);
    cr_assert(r.timed_out);
    cr_assert_eq(r.signal, SIGKILL);
    cr_assert_eq(r.code, 128 + SIGKILL);
    char *pid = gmt_text(pidfile);
    cr_assert(S_gone((pid_t)atoi(pid)), "the child's child (%s) still runs", pid);
    S_reap((pid_t)atoi(pid));
    gm_proc_result_free(&r);
    gmt_rmrf(dir);
    free(pid);
    free(pidfile);
    gm_buf_free(&cmd);
    free(dir);
}

Test(proc, children_run_at_the_same_time)
{
    char *a[] = {"/bin/sh", "-c", "sleep 0.3; echo a", NULL};
    char *b[] = {"/bin/sh", "-c", "sleep 0.3; echo b; exit 4", NULL};
    gm_proc_spec sa = {.argv = a, .out = GM_PROC_CAPTURE};
    gm_proc_spec sb = {.argv = b, .out = GM_PROC_CAPTURE};
    gm_proc pa, pb;
    cr_assert_eq(gm_proc_start(&pa, &sa, NULL, NULL), GM_OK);
    cr_assert_eq(gm_proc_start(&pb, &sb, NULL, NULL), GM_OK);
    gm_proc *ps[] = {&pa, &pb};
    gm_proc_wait(ps, 2);
    cr_assert_str_eq(pa.res.out.data, "a\n");
    cr_assert_str_eq(pb.res.out.data, "b\n");
    cr_assert_eq(pa.res.code, 0);
    cr_assert_eq(pb.res.code, 4);
    gm_proc_result_free(&pa.res);
    gm_proc_result_free(&pb.res);
}

/* The death signal: a parent killed outright (SIGKILL, no handler runs) takes
 * its child with it. */
Test(proc, a_child_dies_with_its_parent)
{
    S_adopt_orphans();
    int pfd[2];
    cr_assert_eq(pipe(pfd), 0);
    pid_t mid = fork();
    if (mid == 0) {
        close(pfd[0]);
        char *argv[] = {"sleep", "52.25", NULL};
        gm_proc_spec s = {.argv = argv, .own_group = true, .death_signal = SIGKILL};
        gm_proc p;
        if (gm_proc_start(&p, &s, NULL, NULL) != GM_OK)
            _exit(1);
        ssize_t w = write(pfd[1], &p.pid, sizeof p.pid);
        (void)w;
        raise(SIGKILL);
        _exit(2);
    }
    close(pfd[1]);
    pid_t child = 0;
    cr_assert_eq(read(pfd[0], &child, sizeof child), (ssize_t)sizeof child);
    close(pfd[0]);
    int st = 0;
    waitpid(mid, &st, 0);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    cr_assert(S_gone(child), "the child %d outlived its parent", (int)child);
    S_reap(child);
}

/* ---- private temporary folders ----------------------------------------------- */

/* The folders of this test's own prefix under dir. */
static int S_count_prefix(const char *dir, const char *prefix)
{
    int n = 0;
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

Test(tmpdir, a_folder_whose_holder_was_killed_goes_at_the_next_make)
{
    char *base = gmt_tmpdir("tmpdir");
    setenv("TMPDIR", base, 1);
    /* a holder that ends without its cleanup (as one killed by SIGKILL): its
     * folder stays, with a file in it */
    pid_t k = fork();
    if (k == 0) {
        gm_tmpdir t;
        if (gm_tmpdir_make(&t, "gmt-held", NULL) != GM_OK)
            _exit(1);
        char *f = gm_path_join(t.path, "chart-01.svg");
        gm_file_create(f, "<svg/>", 6, NULL);
        _exit(0);   /* as SIGKILL would: no cleanup runs, the kernel drops the hold */
    }
    int st = 0;
    waitpid(k, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    cr_assert_eq(S_count_prefix(base, "gmt-held-"), 1);
    /* a live holder's folder is left alone */
    gm_tmpdir live;
    int pfd[2], qfd[2];
    cr_assert_eq(pipe(pfd), 0);
    cr_assert_eq(pipe(qfd), 0);
    pid_t h = fork();
    if (h == 0) {
        char c = 0;
        if (gm_tmpdir_make(&live, "gmt-live", NULL) != GM_OK)
            _exit(1);
        ssize_t w = write(pfd[1], "x", 1);
        (void)w;
        ssize_t r = read(qfd[0], &c, 1);   /* held until the test says */
        (void)r;
        gm_tmpdir_remove(&live);
        _exit(0);
    }
    char c;
    cr_assert_eq(read(pfd[0], &c, 1), 1);
    cr_assert_eq(gm_tmpdir_sweep("gmt-live"), 0);
    cr_assert_eq(S_count_prefix(base, "gmt-live-"), 1);
    cr_assert_eq(write(qfd[1], "y", 1), 1);
    waitpid(h, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    cr_assert_eq(S_count_prefix(base, "gmt-live-"), 0);
    /* the next make of the killed one's prefix removes its folder */
    gm_tmpdir t;
    cr_assert_eq(gm_tmpdir_make(&t, "gmt-held", NULL), GM_OK);
    cr_assert_eq(S_count_prefix(base, "gmt-held-"), 1, "only the new folder");
    gm_tmpdir_remove(&t);
    cr_assert_eq(gmt_count_entries(base), 0);
    unsetenv("TMPDIR");
    gmt_rmrf(base);
    free(base);
}

/* What the signal handler does (gm_cleanup_run) with a folder: its expected
 * files and itself removed, nothing opened; an unexpected file leaves it to
 * the next sweep. */
Test(tmpdir, the_handler_removes_the_expected_files)
{
    char *base = gmt_tmpdir("tmpdir");
    setenv("TMPDIR", base, 1);
    gm_tmpdir t;
    cr_assert_eq(gm_tmpdir_make(&t, "gmt-sig", NULL), GM_OK);
    gm_tmpdir_expect(&t, "a.svg");
    gm_tmpdir_expect(&t, "gnuplot.log");
    char *a = gm_path_join(t.path, "a.svg"), *l = gm_path_join(t.path, "gnuplot.log");
    gm_file_create(a, "x", 1, NULL);
    gm_file_create(l, "y", 1, NULL);
    gm_cleanup_run();
    cr_assert(!gmt_exists(t.path), "the folder is left");
    gm_tmpdir_remove(&t);
    /* an unexpected file: the folder stays for the sweep */
    cr_assert_eq(gm_tmpdir_make(&t, "gmt-sig", NULL), GM_OK);
    char *u = gm_path_join(t.path, "unexpected");
    gm_file_create(u, "z", 1, NULL);
    char *kept = gm_xstrdup(t.path);
    gm_cleanup_run();
    cr_assert(gmt_exists(kept));
    close(t.fd);   /* as the end of the process would */
    t.fd = -1;
    /* its marker went with the files the handler knew of: it is stale once it
     * has not changed for a minute */
    cr_assert_eq(gm_tmpdir_sweep("gmt-sig"), 0);
    struct timespec old[2] = {{time(NULL) - 120, 0}, {time(NULL) - 120, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, kept, old, 0), 0);
    cr_assert_eq(gm_tmpdir_sweep("gmt-sig"), 1);
    cr_assert(!gmt_exists(kept));
    gm_tmpdir_remove(&t);
    cr_assert_eq(gmt_count_entries(base), 0);
    unsetenv("TMPDIR");
    gmt_rmrf(base);
    free(kept);
    free(u);
    free(a);
    free(l);
    free(base);
}

/* gm_buf_read_file: a file's bytes appended, NULs and all, at most max of
 * them; a missing file is false with errno, and b keeps what it held. */
Test(buf, read_file_appends_at_most_max_bytes)
{
    char *dir = gmt_tmpdir("buf-read");
    char *path = gmt_join(dir, "data");
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    for (int i = 0; i < 200000; i++)
        fputc(i % 251, f);
    cr_assert_eq(fclose(f), 0);
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "head");
    cr_assert(gm_buf_read_file(&b, path, 0));
    cr_assert_eq(b.len, 4 + 200000);
    cr_assert_eq((unsigned char)b.data[4 + 251], 0);
    cr_assert_eq((unsigned char)b.data[4 + 199999], 199999 % 251);
    gm_buf_free(&b);
    cr_assert(gm_buf_read_file(&b, path, 70000));
    cr_assert_eq(b.len, 70000);
    gm_buf_free(&b);
    gm_buf_puts(&b, "kept");
    errno = 0;
    cr_assert_not(gm_buf_read_file(&b, "/nonexistent/file", 0));
    cr_assert_eq(errno, ENOENT);
    cr_assert_str_eq(b.data, "kept");
    gm_buf_free(&b);
    gmt_rmrf(dir);
    free(path);
    free(dir);
}
