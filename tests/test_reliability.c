/* test_reliability.c — nothing lost, nothing hung, nothing wrong (issue 15):
 * the output rule of core/output.h run through the program (never over an
 * input, streams written in place with their errors, "-", two renders of one
 * path at once), and one regression test per defect found by the reliability
 * audit, from its inputs in tests/fixtures/reliability/ (README there).
 *
 * The binary is $GM_TEST_BIN (set by `make test`), the source tree $GM_SRCDIR.
 */
#include "../core/buf.h"
#include "../core/output.h"
#include "../core/results.h"
#include "../reports/diff.h"
#include "../reports/render.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *S_rel(const char *name)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "reliability/%s", name);
    char *f = gmt_fixture(b.data);
    gm_buf_free(&b);
    return f;
}

static int S_run(char *const *argv, char **out, char **err)
{
    return gmt_run(argv, NULL, out, err);
}

/* A gnuplot stand-in that writes a small SVG for every `set output` of its
 * script, with the script's checksum in it (so two inputs give two sets of
 * charts), fast enough to render hundreds of times. */
static char *S_fake_gnuplot(const char *dir)
{
    char *fake = gmt_join(dir, "fake-gnuplot");
    FILE *f = fopen(fake, "w");
    cr_assert_not_null(f);
    fputs("#!/bin/sh\n"
          "sum=$(cksum < \"$1\" | cut -d' ' -f1)\n"
          "sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\" | while read -r o; do\n"
          "  printf '<svg><title>t</title><!-- %s %s --></svg>\\n' \"$sum\" \"$o\" > \"$o\"\n"
          "done\n",
          f);
    fclose(f);
    chmod(fake, 0755);
    return fake;
}

/* ---- the output rule ---------------------------------------------------------- */

Test(output_rule, render_refuses_to_overwrite_its_input)
{
    char *dir = gmt_tmpdir("rel"), *in = gmt_join(dir, "run.json"),
         *lnk = gmt_join(dir, "same.md");
    char *src = gmt_fixture("handwritten-small.json"), *before = gmt_text(src);
    FILE *f = fopen(in, "w");
    fputs(before, f);
    fclose(f);
    cr_assert_eq(link(in, lnk), 0);
    char *err = NULL;
    /* the same path, and a hard link to it (same device and inode) */
    char *a1[] = {(char *)gmt_bin(), "render", in, "--out", in, "--format", "md", NULL};
    cr_assert_eq(S_run(a1, NULL, &err), 2);
    gmt_assert_has(err, "is one of the inputs");
    free(err);
    char *a2[] = {(char *)gmt_bin(), "render", in, "--out", lnk, NULL};
    cr_assert_eq(S_run(a2, NULL, &err), 2);
    gmt_assert_has(err, "same file as");
    free(err);
    char *after = gmt_text(in);
    cr_assert_str_eq(after, before, "the results were changed");
    cr_assert_eq(gmt_count_entries(dir), 2, "something was left beside the input");
    /* the diff: neither --out nor --json may be base or head */
    char *a3[] = {(char *)gmt_bin(), "diff", in, src, "--json", in, NULL};
    cr_assert_eq(S_run(a3, NULL, &err), 2);
    gmt_assert_has(err, "is one of the inputs");
    free(err);
    char *a4[] = {(char *)gmt_bin(), "diff", src, in, "--out", lnk, NULL};
    cr_assert_eq(S_run(a4, NULL, &err), 2);
    free(err);
    free(after);
    after = gmt_text(in);
    cr_assert_str_eq(after, before);
    gmt_rmrf(dir);
    free(after);
    free(before);
    free(src);
    free(lnk);
    free(in);
    free(dir);
}

Test(output_rule, streams_are_written_in_place_and_errors_reported)
{
    char *src = gmt_fixture("handwritten-small.json"), *err = NULL, *out = NULL;
    /* /dev/full: the write error is reported, the device is not replaced,
     * no chart folder is made beside it */
    char *a1[] = {(char *)gmt_bin(), "render", src, "--out", "/dev/full", "--format", "md", NULL};
    cr_assert_eq(S_run(a1, NULL, &err), 2);
    gmt_assert_has(err, "/dev/full");
    gmt_assert_has(err, "No space left on device");
    free(err);
    struct stat sb;
    cr_assert_eq(stat("/dev/full", &sb), 0);
    cr_assert(S_ISCHR(sb.st_mode), "/dev/full is no longer a device");
    cr_assert(!gmt_exists("/dev/full.charts"));
    char *a2[] = {(char *)gmt_bin(), "diff", src, src, "--out", "/dev/full", NULL};
    cr_assert_eq(S_run(a2, NULL, &err), 2);
    gmt_assert_has(err, "No space left on device");
    free(err);
    /* "-": standard output, Markdown by default, HTML when asked */
    char *a3[] = {(char *)gmt_bin(), "render", src, "--out", "-", NULL};
    cr_assert_eq(S_run(a3, &out, &err), 0, "%s", err);
    gmt_assert_has(out, "# GPU memory report");
    free(out);
    free(err);
    char *a4[] = {(char *)gmt_bin(), "render", src, "--out", "-", "--format", "html", NULL};
    cr_assert_eq(S_run(a4, &out, &err), 0, "%s", err);
    gmt_assert_has(out, "<svg");
    free(out);
    free(err);
    char *a5[] = {(char *)gmt_bin(), "diff", src, src, "--out", "-", NULL};
    int rc = S_run(a5, &out, &err);
    cr_assert(rc == 0 || rc == 1, "exit %d: %s", rc, err);   /* 1: the fixture has a failed run */
    gmt_assert_has(out, "gpumem-report diff");
    free(out);
    free(err);
    free(src);
}

Test(output_rule, a_fifo_is_written_not_replaced)
{
    char *dir = gmt_tmpdir("rel"), *fifo = gmt_join(dir, "pipe");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    char *src = gmt_fixture("handwritten-small.json");
    pid_t reader = fork();
    if (reader == 0) {
        FILE *f = fopen(fifo, "r");
        size_t n = 0;
        char buf[4096];
        size_t k;
        while (f && (k = fread(buf, 1, sizeof buf, f)) > 0)
            n += k;
        _exit(n > 1000 ? 0 : 1);
    }
    char *err = NULL;
    char *a[] = {(char *)gmt_bin(), "render", src, "--out", fifo, "--format", "html", NULL};
    cr_assert_eq(S_run(a, NULL, &err), 0, "%s", err);
    int status = 0;
    waitpid(reader, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reader got too little");
    struct stat sb;
    cr_assert_eq(lstat(fifo, &sb), 0);
    cr_assert(S_ISFIFO(sb.st_mode), "the FIFO was replaced");
    cr_assert_eq(gmt_count_entries(dir), 1);
    gmt_rmrf(dir);
    free(err);
    free(src);
    free(fifo);
    free(dir);
}

Test(output_rule, output_api_in_process)
{
    char *dir = gmt_tmpdir("rel"), *a = gmt_join(dir, "a.txt"), *b = gmt_join(dir, "b.txt");
    gm_error e = {0};
    cr_assert_eq(gm_output_write(a, "one\n", 4, NULL, 0, &e), GM_OK, "%s", e.message);
    const char *inputs[] = {NULL, a};
    cr_assert_eq(gm_output_write(a, "two\n", 4, inputs, 2, &e), GM_ERR_VALUE);
    gmt_assert_has(e.message, a);
    /* a symlink to a regular file: the file is replaced, the link stays */
    cr_assert_eq(symlink("a.txt", b), 0);
    cr_assert_eq(gm_output_write(b, "three\n", 6, NULL, 0, &e), GM_OK, "%s", e.message);
    struct stat sb;
    cr_assert_eq(lstat(b, &sb), 0);
    cr_assert(S_ISLNK(sb.st_mode));
    char *t = gmt_text(a);
    cr_assert_str_eq(t, "three\n");
    free(t);
    /* a directory is not a place for a file */
    cr_assert_neq(gm_output_write(dir, "x", 1, NULL, 0, &e), GM_OK);
    cr_assert_eq(gmt_count_entries(dir), 2, "a temporary file was left");
    gmt_rmrf(dir);
    free(a);
    free(b);
    free(dir);
}

/* The room kept free on a file system before large files are written there
 * (the kept launches of a program's per-line pass): at least 1 GiB and 5 % of
 * its size stay free, and a write that would take more is refused with the
 * free space named. */
Test(output_rule, files_leave_room_on_their_file_system)
{
    const unsigned long long G = 1ULL << 30;
    /* a 10 GiB /tmp: 1 GiB kept (5 % is less) */
    cr_assert(gm_fs_leaves_room(4 * G, 10 * G, 3 * G));
    cr_assert(!gm_fs_leaves_room(4 * G, 10 * G, 3 * G + 1));
    cr_assert(!gm_fs_leaves_room(4 * G, 10 * G, 5 * G), "more than is free");
    cr_assert(!gm_fs_leaves_room(0, 10 * G, 0), "a full disk takes nothing");
    /* a 1 TiB disk: 5 % (51.2 GiB) kept */
    cr_assert(gm_fs_leaves_room(100 * G, 1024 * G, 48 * G));
    cr_assert(!gm_fs_leaves_room(100 * G, 1024 * G, 49 * G));
    /* nothing to write on a disk with room */
    cr_assert(gm_fs_leaves_room(2 * G, 10 * G, 0));
    cr_assert(!gm_fs_leaves_room(G / 2, 10 * G, 0), "already under the reserve");

    char *dir = gmt_tmpdir("room");
    gm_error e = {0};
    cr_assert_eq(gm_fs_room(dir, 1, &e), GM_OK, "%s", e.message);
    /* more than any disk holds: refused, naming the folder and what is free */
    cr_assert_eq(gm_fs_room(dir, 1ULL << 62, &e), GM_ERR_IO);
    gmt_assert_has(e.message, dir);
    gmt_assert_has(e.message, "GiB free");
    char *gone = gmt_join(dir, "no-such-folder");
    cr_assert_eq(gm_fs_room(gone, 1, &e), GM_ERR_IO);
    gmt_assert_has(e.message, "no-such-folder");
    gmt_rmrf(dir);
    free(gone);
    free(dir);
}

/* Two processes render Markdown to one path, each many times, from two
 * different inputs: afterwards there is exactly the report and its chart
 * folder, both from the same one of the two renders, and nothing else. */
Test(output_rule, concurrent_markdown_renders_leave_one_whole_report)
{
    gmt_deadline(240);
    char *dir = gmt_tmpdir("rel"), *fake = S_fake_gnuplot(dir);
    char *work = gmt_join(dir, "w");
    cr_assert_eq(mkdir(work, 0755), 0);
    char *out = gmt_join(work, "r.md"), *charts = gmt_join(work, "r.charts");
    const char *inputs[2] = {"handwritten-small.json", "handwritten-large.json"};
    char *expect_md[2];
    int expect_n[2];
    char *first_svg[2];
    for (int k = 0; k < 2; k++) {
        char *in = gmt_fixture(inputs[k]), *err = NULL;
        char *a[] = {(char *)gmt_bin(), "render", in, "--out", out, "--gnuplot", fake, NULL};
        cr_assert_eq(S_run(a, NULL, &err), 0, "%s", err);
        expect_md[k] = gmt_text(out);
        expect_n[k] = gmt_count_entries(charts);
        char *c1 = gmt_join(charts, "chart-01.svg");
        first_svg[k] = gmt_text(c1);
        free(c1);
        free(err);
        free(in);
    }
    cr_assert_str_neq(first_svg[0], first_svg[1]);
    enum { ROUNDS = 150 };
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        char *in = gmt_fixture(inputs[k]);
        kids[k] = fork();
        if (kids[k] == 0) {
            int failed = 0;
            for (int i = 0; i < ROUNDS; i++) {
                pid_t p = fork();
                if (p == 0) {
                    freopen("/dev/null", "w", stdout);
                    execl(gmt_bin(), gmt_bin(), "render", in, "--out", out, "--gnuplot", fake,
                          (char *)NULL);
                    _exit(127);
                }
                int st = 0;
                waitpid(p, &st, 0);
                failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
            }
            _exit(failed ? 1 : 0);
        }
        free(in);
    }
    for (int k = 0; k < 2; k++) {
        int st = 0;
        waitpid(kids[k], &st, 0);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a render failed");
    }
    cr_assert_eq(gmt_count_entries(work), 2, "something besides r.md and r.charts was left");
    char *md = gmt_text(out);
    int which = strcmp(md, expect_md[0]) == 0 ? 0 : strcmp(md, expect_md[1]) == 0 ? 1 : -1;
    cr_assert_neq(which, -1, "the report is neither render's");
    cr_assert_eq(gmt_count_entries(charts), expect_n[which], "charts of the other render");
    char *c1 = gmt_join(charts, "chart-01.svg"), *svg = gmt_text(c1);
    cr_assert_str_eq(svg, first_svg[which], "the chart folder is not the report's");
    free(svg);
    free(c1);
    free(md);
    for (int k = 0; k < 2; k++) {
        free(expect_md[k]);
        free(first_svg[k]);
    }
    gmt_rmrf(dir);
    free(out);
    free(charts);
    free(work);
    free(fake);
    free(dir);
}

/* ---- defects of the audit --------------------------------------------------- */

/* Defect 5: the delta of two integers overflowed (head - base); a decrease
 * was printed as "+9223372036854251521".  The reader now refuses counts out
 * of range; the printing is exact for any two 64-bit integers. */
Test(defects, d5_integer_delta_cannot_overflow)
{
    char *base = gmt_fixture("diff-base.json"), *head = S_rel("diff-int-overflow-head.json");
    char *out = NULL, *err = NULL;
    char *a[] = {(char *)gmt_bin(), "diff", base, head, NULL};
    int rc = S_run(a, &out, &err);
    gmt_assert_lacks(out, "+9223372036854251521");
    cr_assert_eq(rc, 2, "a negative count must be refused");
    gmt_assert_has(err, "diff-int-overflow-head.json");
    gmt_assert_has(err, "runs[0].metrics[\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\"].value");
    gmt_assert_has(err, "-9223372036854775807");
    free(out);
    free(err);

    /* in memory, where no reader stands guard: the extremes */
    gm_results b, h;
    gmt_load_fixture("diff-base.json", &b);
    gmt_load_fixture("diff-base.json", &h);
    long long bv = 0;
    for (size_t r = 0; r < h.n_runs; r++)
        for (size_t m = 0; m < h.runs[r].n_metrics; m++)
            if (h.runs[r].metrics[m].value.kind == GM_V_INT) {
                bv = b.runs[r].metrics[m].value.i;
                h.runs[r].metrics[m].value.i = -9223372036854775807LL;
                r = h.n_runs;
                break;
            }
    gm_diff_options o = {0};
    gm_diff d;
    gm_error e = {0};
    cr_assert_eq(gm_diff_compute(&b, &h, &o, &d, &e), GM_OK, "%s", e.message);
    gm_diff_render ro = {0};
    char *md = gm_diff_to_markdown(&d, &ro);
    cr_assert_gt(bv, 0);
    gmt_assert_has(md, "-9.22337203685");
    gmt_assert_lacks(md, "+9223372036854");
    gmt_assert_lacks(md, "+9.22337203685");
    free(md);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
    free(base);
    free(head);
}

/* The fuzzer's input for the same overflow. */
Test(defects, d5_fuzzer_input_is_refused_or_exact)
{
    char *f = S_rel("fuzz-crash-diff-c-1201.json"), *base = gmt_fixture("diff-base.json");
    char *out = NULL, *err = NULL;
    char *a[] = {(char *)gmt_bin(), "diff", base, f, NULL};
    int rc = S_run(a, &out, &err);
    cr_assert(rc == 0 || rc == 1 || rc == 2, "exit %d", rc);
    gmt_assert_lacks(out, "+9223372036854");
    free(out);
    free(err);
    free(base);
    free(f);
}

/* Defect 7: a file with no runs; qsort was called with a NULL pointer (UBSan
 * in `make asan` traps it). */
Test(defects, d7_no_runs_diffs_and_renders)
{
    char *f = S_rel("empty-runs.json"), *out = NULL, *err = NULL;
    char *a[] = {(char *)gmt_bin(), "diff", f, f, NULL};
    int rc = S_run(a, &out, &err);
    cr_assert(rc == 0 || rc == 1, "exit %d: %s", rc, err);   /* 1: nothing paired */
    gmt_assert_has(out, "nothing to compare");
    free(out);
    free(err);
    char *b[] = {(char *)gmt_bin(), "render", f, "--out", "-", NULL};
    cr_assert_eq(S_run(b, &out, &err), 0, "%s", err);
    gmt_assert_has(out, "# GPU memory report");
    free(out);
    free(err);
    gm_results r;
    gmt_load_fixture("reliability/empty-runs.json", &r);
    gm_diff d;
    gm_diff_options o = {0};
    gm_error e = {0};
    cr_assert_eq(gm_diff_compute(&r, &r, &o, &d, &e), GM_OK, "%s", e.message);
    cr_assert_eq(d.n_rows, 0);
    gm_diff_free(&d);
    gm_results_free(&r);
    free(f);
}

/* ---- a renderer that survives gnuplot ---------------------------------------- */

/* Is any process's command line holding `needle` (a path of this test)? */
static bool S_process_with(const char *needle)
{
    DIR *d = opendir("/proc");
    bool found = false;
    struct dirent *e;
    while (d && !found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        char buf[4096];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        buf[n] = '\0';
        found = strstr(buf, needle) != NULL;
    }
    if (d)
        closedir(d);
    return found;
}

/* The same, given up to 2 s to go away (a process killed with SIGKILL takes a
 * moment to leave). */
/* Whether a process with needle in its command line is still there after a
 * generous wait (it is expected to go at once; the wait only absorbs a
 * loaded machine's delay, it does not measure anything). */
static bool S_process_stays(const char *needle)
{
    for (int i = 0; i < 1500; i++) {
        if (!S_process_with(needle))
            return false;
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    return true;
}

static char *S_script(const char *dir, const char *name, const char *body)
{
    char *p = gmt_join(dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs(body, f);
    fclose(f);
    chmod(p, 0755);
    return p;
}

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A gnuplot that hangs: the render ends within its limit, says so, and leaves
 * no child (the sleep the script started included) and no temporary dir. */
Test(gnuplot, a_hanging_gnuplot_is_stopped_at_its_timeout)
{
    gmt_deadline(120);
    char *dir = gmt_tmpdir("rel"), *tmp = gmt_join(dir, "tmp");
    cr_assert_eq(mkdir(tmp, 0700), 0);
    /* the sleep's argument is unique to this test, to find it among processes */
    char *fake = S_script(dir, "hang-gnuplot", "#!/bin/sh\nsleep 47.123\n");
    char *out = gmt_join(dir, "r.md"), *src = gmt_fixture("handwritten-small.json");
    gm_buf envtmp = GM_BUF_INIT;
    gm_buf_printf(&envtmp, "TMPDIR=%s", tmp);
    const char *env[] = {envtmp.data, NULL};
    char *argv[] = {(char *)gmt_bin(), "render", src, "--out", out, "--gnuplot", fake,
                    "--gnuplot-timeout", "1", NULL};
    char *err = NULL;
    /* the render ends (the test's gmt_deadline is the bound on a hang; no
     * time is asserted: a loaded machine stretches any figure) */
    int rc = gmt_run(argv, env, NULL, &err);
    cr_assert_eq(rc, 2, "%s", err);
    gmt_assert_has(err, "did not finish within 1 s");
    gmt_assert_has(err, "--gnuplot-timeout");
    cr_assert(!S_process_stays("sleep 47.123"), "gnuplot's child is still running");
    cr_assert_eq(gmt_count_entries(tmp), 0, "a temporary directory was left");
    cr_assert(!gmt_exists(out));
    cr_assert_eq(gmt_count_entries(dir), 2, "something was left beside the report");
    free(err);
    /* a bad value is named */
    char *bad[] = {(char *)gmt_bin(), "render", src, "--out", out, "--gnuplot-timeout", "soon",
                   NULL};
    cr_assert_eq(gmt_run(bad, NULL, NULL, &err), 2);
    gmt_assert_has(err, "'soon'");
    free(err);
    gmt_rmrf(dir);
    gm_buf_free(&envtmp);
    free(src);
    free(out);
    free(fake);
    free(tmp);
    free(dir);
}

/* SIGTERM and SIGINT while gnuplot runs: gnuplot (and what it started) is
 * killed, the temporary directory removed, nothing written. */
Test(gnuplot, a_signal_kills_gnuplot_and_removes_temporaries)
{
    gmt_deadline(240);
    int sigs[] = {SIGTERM, SIGINT};
    for (int k = 0; k < 2; k++) {
        char *dir = gmt_tmpdir("rel"), *tmp = gmt_join(dir, "tmp");
        cr_assert_eq(mkdir(tmp, 0700), 0);
        char *fake = S_script(dir, "hang-gnuplot", "#!/bin/sh\nsleep 48.321\n");
        char *out = gmt_join(dir, "r.html"), *src = gmt_fixture("handwritten-small.json");
        pid_t p = fork();
        if (p == 0) {
            setenv("TMPDIR", tmp, 1);
            freopen("/dev/null", "w", stderr);
            execl(gmt_bin(), gmt_bin(), "render", src, "--out", out, "--gnuplot", fake,
                  (char *)NULL);
            _exit(127);
        }
        double t0 = S_now();
        while (!S_process_with("sleep 48.321") && S_now() - t0 < 45) {
            struct timespec nap = {0, 20 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
        cr_assert(S_process_with("sleep 48.321"), "gnuplot never started");
        kill(p, sigs[k]);
        int st = 0;
        waitpid(p, &st, 0);
        cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == sigs[k], "ended with status %d", st);
        cr_assert(!S_process_stays("sleep 48.321"), "gnuplot's child is still running (signal %d)", sigs[k]);
        cr_assert_eq(gmt_count_entries(tmp), 0, "a temporary directory was left");
        cr_assert(!gmt_exists(out));
        gmt_rmrf(dir);
        free(src);
        free(out);
        free(fake);
        free(tmp);
        free(dir);
    }
}

/* SIGKILL while gnuplot runs: no handler can run.  gnuplot goes with the
 * render all the same (its death signal, core/proc.h), and the private folder
 * the render leaves is removed by the next render that draws charts
 * (core/output.h: gm_tmpdir).  The stand-in is gnuplot itself (exec): what a
 * gnuplot script starts is killed as a group on every other path, but no
 * process is left to do that after a SIGKILL. */
Test(gnuplot, sigkill_takes_gnuplot_and_the_next_render_the_folder)
{
    gmt_deadline(240);
    char *dir = gmt_tmpdir("rel"), *tmp = gmt_join(dir, "tmp");
    cr_assert_eq(mkdir(tmp, 0700), 0);
    char *fake = S_script(dir, "hang-gnuplot", "#!/bin/sh\nexec sleep 49.753\n");
    char *out = gmt_join(dir, "r.html"), *src = gmt_fixture("handwritten-small.json");
    pid_t p = fork();
    if (p == 0) {
        setenv("TMPDIR", tmp, 1);
        freopen("/dev/null", "w", stderr);
        execl(gmt_bin(), gmt_bin(), "render", src, "--out", out, "--gnuplot", fake,
              (char *)NULL);
        _exit(127);
    }
    double t0 = S_now();
    while (!S_process_with("sleep 49.753") && S_now() - t0 < 45) {
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    cr_assert(S_process_with("sleep 49.753"), "gnuplot never started");
    kill(p, SIGKILL);
    int st = 0;
    waitpid(p, &st, 0);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "ended with status %d", st);
    cr_assert(!S_process_stays("sleep 49.753"), "gnuplot outlived the render killed by SIGKILL");
    cr_assert_eq(gmt_count_entries(tmp), 1, "the killed render's folder");
    cr_assert(!gmt_exists(out));
    /* the next render (another output, a gnuplot that works) removes it */
    char *good = S_fake_gnuplot(dir), *out2 = gmt_join(dir, "r2.html");
    gm_buf envtmp = GM_BUF_INIT;
    gm_buf_printf(&envtmp, "TMPDIR=%s", tmp);
    const char *env[] = {envtmp.data, NULL};
    char *argv[] = {(char *)gmt_bin(), "render", src, "--out", out2, "--gnuplot", good, NULL};
    char *err = NULL;
    cr_assert_eq(gmt_run(argv, env, NULL, &err), 0, "%s", err);
    cr_assert_eq(gmt_count_entries(tmp), 0, "the killed render's folder is still there");
    free(err);
    gm_buf_free(&envtmp);
    gmt_rmrf(dir);
    free(out2);
    free(good);
    free(src);
    free(out);
    free(fake);
    free(tmp);
    free(dir);
}

/* One chart gnuplot cannot draw: a note in the report naming it, the other
 * charts drawn, the report written, stderr says so, exit 1. */
Test(gnuplot, a_chart_gnuplot_cannot_draw_becomes_a_note)
{
    char *dir = gmt_tmpdir("rel");
    char *fake = S_script(dir, "picky-gnuplot",
                          "#!/bin/sh\n"
                          "if grep -q \"set output 'chart-02.svg'\" \"$1\"; then\n"
                          "  echo \"\\\"$1\\\" line 9: all points y value undefined!\" >&2; exit 1\n"
                          "fi\n"
                          "sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\" | while read -r o; do\n"
                          "  printf '<svg><title>t</title></svg>\\n' > \"$o\"\n"
                          "done\n");
    char *src = gmt_fixture("handwritten-small.json");
    const char *fmts[] = {"r.md", "r.html"};
    for (int k = 0; k < 2; k++) {
        char *out = gmt_join(dir, fmts[k]), *err = NULL;
        char *argv[] = {(char *)gmt_bin(), "render", src, "--out", out, "--gnuplot", fake, NULL};
        cr_assert_eq(gmt_run(argv, NULL, NULL, &err), 1, "%s", err);
        gmt_assert_has(err, "written, but incomplete");
        gmt_assert_has(err, "chart-02");
        gmt_assert_has(err, "all points y value undefined");
        char *text = gmt_text(out);
        gmt_assert_has(text, "Chart not drawn:");
        gmt_assert_has(text, "all points y value undefined");
        if (k == 0) {
            char *c1 = gmt_join(dir, "r.charts/chart-01.svg"),
                 *c2 = gmt_join(dir, "r.charts/chart-02.svg");
            cr_assert(gmt_exists(c1), "the other charts are drawn");
            cr_assert(!gmt_exists(c2));
            free(c1);
            free(c2);
        } else {
            cr_assert_geq(gmt_occurrences(text, "<svg"), 1);
        }
        free(text);
        free(err);
        free(out);
    }
    gmt_rmrf(dir);
    free(dir);
    free(src);
    free(fake);
}

/* ---- range checks in the reader ------------------------------------------------ */

static void S_refused(const char *file, const char *path, const char *value)
{
    char *f = S_rel(file), *out = NULL, *err = NULL;
    char *a[] = {(char *)gmt_bin(), "render", f, "--out", "-", NULL};
    cr_assert_eq(S_run(a, &out, &err), 2, "%s", file);
    gmt_assert_has(err, file);
    gmt_assert_has(err, path);
    gmt_assert_has(err, value);
    gmt_assert_lacks(err, "gnuplot");
    cr_assert_str_eq(out, "", "nothing is written");
    free(out);
    free(err);
    free(f);
}

Test(ranges, audit_inputs_are_refused_naming_file_path_and_value)
{
    S_refused("negative-median-all.json", "runs[0].timing.median", "-1 ms");
    S_refused("negative-metrics.json", "runs[0].metrics[", "-5");
    S_refused("fuzz-crash-diff-c-1201.json", "runs[1].timing.samples[2]", "-0.5");
}

static gm_status S_read_edit(const char *from, const char *to, gm_error *e)
{
    char *path = gmt_fixture("handwritten-small.json"), *text = gmt_text(path);
    char *hit = strstr(text, from);
    cr_assert_not_null(hit, "no %s in the fixture", from);
    gm_buf b = GM_BUF_INIT;
    gm_buf_put(&b, text, (size_t)(hit - text));
    gm_buf_puts(&b, to);
    gm_buf_puts(&b, hit + strlen(from));
    gm_results r;
    gm_status st = gm_results_read_string(b.data, "edited.json", &r, e);
    if (st == GM_OK)
        gm_results_free(&r);
    gm_buf_free(&b);
    free(text);
    free(path);
    return st;
}

Test(ranges, order_bounds_bom_and_nul)
{
    gm_error e = {0};
    /* the fixture's first timing summary, with the median above q3 */
    char *path = gmt_fixture("handwritten-small.json"), *text = gmt_text(path);
    const char *med = strstr(text, "\"median\": ");
    cr_assert_not_null(med);
    char from[64];
    snprintf(from, sizeof from, "%.*s", (int)strcspn(med, ",\n"), med);
    cr_assert_eq(S_read_edit(from, "\"median\": 1e9", &e), GM_ERR_VALUE);
    gmt_assert_has(e.message, "edited.json: runs[");
    gmt_assert_has(e.message, "min <= q1 <= median <= q3 <= max");
    free(text);
    free(path);
    /* a BOM is skipped */
    char *p2 = gmt_fixture("handwritten-small.json"), *t2 = gmt_text(p2);
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "\xEF\xBB\xBF");
    gm_buf_puts(&b, t2);
    gm_results r;
    cr_assert_eq(gm_results_read_string(b.data, "bom.json", &r, &e), GM_OK, "%s", e.message);
    gm_results_free(&r);
    gm_buf_free(&b);
    free(t2);
    free(p2);
    /* \u0000: said in words, not by jansson's flag */
    cr_assert_eq(gm_results_read_string("{\"schema\": \"a\\u0000b\"}", "nul.json", &r, &e),
                 GM_ERR_PARSE);
    gmt_assert_has(e.message, "nul.json:1:");
    gmt_assert_has(e.message, "NUL character");
    gmt_assert_lacks(e.message, "JSON_ALLOW_NUL");
}

Test(ranges, count_past_2_53_is_refused)
{
    gm_error e = {0};
    char *path = gmt_fixture("handwritten-small.json"), *text = gmt_text(path);
    const char *br = strstr(text, "\"bytes_read\": ");
    cr_assert_not_null(br);
    char from[64];
    snprintf(from, sizeof from, "%.*s", (int)strcspn(br, ",\n"), br);
    cr_assert_eq(S_read_edit(from, "\"bytes_read\": 9007199254740993", &e), GM_ERR_VALUE);
    gmt_assert_has(e.message, ".bytes_read: 9007199254740993 is out of range");
    free(text);
    free(path);
}

Test(ranges, input_size_limit)
{
    /* /dev/zero would never end: its first NUL byte ends it */
    char *out = NULL, *err = NULL;
    char *a[] = {(char *)gmt_bin(), "render", "/dev/zero", "--out", "-", NULL};
    cr_assert_eq(gmt_run(a, NULL, &out, &err), 2);
    gmt_assert_has(err, "/dev/zero: a character device, not a results file");
    free(out);
    free(err);
    /* an endless pipe of text: refused at the limit, named */
    gm_buf cmd = GM_BUF_INIT;
    gm_buf_printf(&cmd, "yes | '%s' render /dev/stdin --out -", gmt_bin());
    const char *env[] = {"GPUMEM_REPORT_MAX_INPUT=1M", NULL};
    char *sh[] = {"/bin/sh", "-c", cmd.data, NULL};
    cr_assert_eq(gmt_run(sh, env, &out, &err), 2);
    gmt_assert_has(err, "/dev/stdin: input too large");
    gmt_assert_has(err, "1048576 bytes");
    gm_buf_free(&cmd);
    free(out);
    free(err);
    /* a regular file over the limit, before it is read */
    char *f = gmt_fixture("handwritten-large.json");
    const char *env2[] = {"GPUMEM_REPORT_MAX_INPUT=1000", NULL};
    char *b[] = {(char *)gmt_bin(), "render", f, "--out", "-", NULL};
    cr_assert_eq(gmt_run(b, env2, &out, &err), 2);
    gmt_assert_has(err, "input too large");
    gmt_assert_has(err, "GPUMEM_REPORT_MAX_INPUT");
    free(out);
    free(err);
    const char *env3[] = {"GPUMEM_REPORT_MAX_INPUT=lots", NULL};
    cr_assert_eq(gmt_run(b, env3, &out, &err), 2);
    gmt_assert_has(err, "GPUMEM_REPORT_MAX_INPUT");
    gmt_assert_has(err, "'lots'");
    free(out);
    free(err);
    free(f);
}

/* ---- partial results -------------------------------------------------------- */

/* A collection that stopped midway keeps its completed runs, says so in the
 * results file (collection.partial) and in the report. */
Test(partial, a_stopped_collection_is_written_and_said_partial)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    r.collection.partial = strdup("cudaMemcpy: an illegal memory access was encountered");
    char *j = gm_results_to_json(&r);
    gmt_assert_has(j, "\"partial\": \"cudaMemcpy: an illegal memory access");
    gm_results b;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string(j, "p.json", &b, &e), GM_OK, "%s", e.message);
    cr_assert_str_eq(b.collection.partial, r.collection.partial);
    char *md = gm_render_markdown(&b, NULL, NULL, NULL);
    gmt_assert_has(md, "**Partial results.**");
    gmt_assert_has(md, "illegal memory access");
    free(md);
    gm_results_free(&b);
    /* absent: the file is as before, byte for byte */
    free(r.collection.partial);
    r.collection.partial = NULL;
    char *j0 = gm_results_to_json(&r);
    gmt_assert_lacks(j0, "\"partial\"");
    free(j0);
    free(j);
    gm_results_free(&r);
}

/* ---- one input rule for every reader (issue 24) -------------------------------- */

/* The input rule of results.h, the same for every command that reads a
 * results file: render, diff, merge, history add and gate. */
static void S_input_refused(const char *input, const char *expect)
{
    char *dir = gmt_tmpdir("input-db"), *db = gmt_join(dir, "h.sqlite");
    char *good = gmt_fixture("handwritten-small.json");
    char *add[] = {(char *)gmt_bin(), "history", "add", good, "--db", db, NULL};
    cr_assert_eq(gmt_run(add, NULL, NULL, NULL), 0);
    char *cmds[][8] = {
        {(char *)gmt_bin(), "render", (char *)input, "--out", "-", NULL},
        {(char *)gmt_bin(), "diff", good, (char *)input, NULL},
        {(char *)gmt_bin(), "merge", (char *)input, "--json", "-", NULL},
        {(char *)gmt_bin(), "history", "add", (char *)input, "--db", db, NULL},
        {(char *)gmt_bin(), "history", "gate", (char *)input, "--db", db, NULL},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char *out = NULL, *err = NULL;
        int rc = gmt_run(cmds[i], NULL, &out, &err);
        cr_expect_eq(rc, 2, "%s %s: exit %d: %s", cmds[i][1], input, rc, err);
        cr_expect(strstr(err, expect) != NULL, "%s %s: expected \"%s\" in:\n%s", cmds[i][1],
                  input, expect, err);
        free(out);
        free(err);
    }
    free(db);
    free(good);
    gmt_rmrf(dir);
    free(dir);
}

Test(input_rule, empty_markdown_and_text_are_not_results_files)
{
    char *dir = gmt_tmpdir("input");
    const char *what[][2] = {
        {"empty.json", ""},
        {"blank.json", "  \n\t\n"},
        {"report.md", "# gpumem-report\n\nA report, not results.\n"},
        {"notes.txt", "collected on node 7\n"},
        {"table.csv", "experiment,variant\ncoalescing,stride\n"},
    };
    const char *expect[] = {"not a results file: it is empty", "not a results file: it is empty",
                            "not a results file: it begins with \"# gpumem-report\"",
                            "not a results file: it begins with \"collected on node 7\"",
                            "not a results file: it begins with \"experiment,variant\""};
    for (size_t i = 0; i < sizeof what / sizeof *what; i++) {
        char *f = gmt_join(dir, what[i][0]);
        FILE *fp = fopen(f, "w");
        cr_assert_not_null(fp);
        fputs(what[i][1], fp);
        fclose(fp);
        S_input_refused(f, expect[i]);
        /* never the JSON parser's words */
        char *out = NULL, *err = NULL;
        char *a[] = {(char *)gmt_bin(), "render", f, "--out", "-", NULL};
        gmt_run(a, NULL, &out, &err);
        gmt_assert_lacks(err, "expected near");
        free(out);
        free(err);
        free(f);
    }
    /* binary data is not quoted */
    char *bin = gmt_join(dir, "random.json");
    FILE *fp = fopen(bin, "wb");
    cr_assert_not_null(fp);
    fputs("\x89PNG\r\n\x1a\xff\xfe", fp);
    fclose(fp);
    S_input_refused(bin, "not a results file: it begins with binary data");
    free(bin);
    gmt_rmrf(dir);
    free(dir);
}

Test(input_rule, directories_devices_and_fifos_are_named)
{
    char *dir = gmt_tmpdir("input");
    S_input_refused(dir, ": a directory, not a results file");
    S_input_refused("/dev/zero", "/dev/zero: a character device, not a results file");
    S_input_refused("/dev/null", "/dev/null: a character device, not a results file");
    char *fifo = gmt_join(dir, "pipe.json");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    /* no writer: refused at once, not waited on */
    S_input_refused(fifo, "pipe.json: a FIFO (named pipe), not a results file");
    free(fifo);
    /* a NUL byte in a file: named with its offset */
    char *nul = gmt_join(dir, "nul.json");
    FILE *fp = fopen(nul, "wb");
    cr_assert_not_null(fp);
    fwrite("{\"schema\"\0", 1, 10, fp);
    fclose(fp);
    S_input_refused(nul, "not a results file: a NUL byte at offset 9");
    free(nul);
    gmt_rmrf(dir);
    free(dir);
}

/* history add read its files whole with no bound (issue 24): /dev/zero grew
 * memory until the process was killed, and a 1.1 GiB file took 80 s and
 * 1.13 GB; now the reader's size limit holds for it as for render. */
Test(input_rule, history_add_has_the_size_limit)
{
    char *dir = gmt_tmpdir("input");
    char *db = gmt_join(dir, "h.sqlite");
    char *f = gmt_fixture("handwritten-large.json");
    char *out = NULL, *err = NULL;
    const char *env[] = {"GPUMEM_REPORT_MAX_INPUT=1000", NULL};
    char *a[] = {(char *)gmt_bin(), "history", "add", f, "--db", db, NULL};
    cr_assert_eq(gmt_run(a, env, &out, &err), 2, "%s", err);
    gmt_assert_has(err, "input too large");
    gmt_assert_has(err, "1000 bytes");
    free(out);
    free(err);
    /* an endless pipe: cut at the limit */
    gm_buf cmd = GM_BUF_INIT;
    gm_buf_printf(&cmd, "yes | '%s' history add /dev/stdin --db '%s'", gmt_bin(), db);
    const char *env2[] = {"GPUMEM_REPORT_MAX_INPUT=1M", NULL};
    char *sh[] = {"/bin/sh", "-c", cmd.data, NULL};
    cr_assert_eq(gmt_run(sh, env2, &out, &err), 2);
    gmt_assert_has(err, "/dev/stdin: input too large");
    gm_buf_free(&cmd);
    free(out);
    free(err);
    /* and within the limit it is read and stored as before */
    char *b[] = {(char *)gmt_bin(), "history", "add", f, "--db", db, NULL};
    cr_assert_eq(gmt_run(b, NULL, &out, &err), 0, "%s", err);
    gmt_assert_has(out, ": added (");
    free(out);
    free(err);
    free(f);
    free(db);
    gmt_rmrf(dir);
    free(dir);
}

/* A directory as --out was told about file extensions. */
Test(input_rule, a_directory_as_out_is_named)
{
    char *dir = gmt_tmpdir("input");
    char *f = gmt_fixture("handwritten-small.json");
    char *out = NULL, *err = NULL;
    char *a[] = {(char *)gmt_bin(), "render", f, "--out", dir, NULL};
    cr_assert_eq(gmt_run(a, NULL, &out, &err), 2);
    gmt_assert_has(err, "is a directory: name a file");
    gmt_assert_lacks(err, "extension");
    gmt_assert_lacks(err, "cannot tell the format");
    free(out);
    free(err);
    cr_expect_eq(gmt_count_entries(dir), 0, "nothing written into the directory");
    free(f);
    gmt_rmrf(dir);
    free(dir);
}

/* "(history add creates it)" only where no file is: a damaged database is
 * not made anew by add, and the hint would mislead. */
Test(input_rule, history_hint_only_for_a_missing_database)
{
    char *dir = gmt_tmpdir("input");
    char *missing = gmt_join(dir, "none.sqlite"), *junk = gmt_join(dir, "junk.sqlite");
    char *out = NULL, *err = NULL;
    char *a[] = {(char *)gmt_bin(), "history", "report", "--db", missing, NULL};
    cr_assert_eq(gmt_run(a, NULL, &out, &err), 2);
    gmt_assert_has(err, "(history add creates it)");
    free(out);
    free(err);
    FILE *fp = fopen(junk, "w");
    cr_assert_not_null(fp);
    fputs("not a database, but long enough to be read as one by SQLite: ", fp);
    for (int i = 0; i < 200; i++)
        fputs("0123456789", fp);
    fclose(fp);
    char *b[] = {(char *)gmt_bin(), "history", "report", "--db", junk, NULL};
    cr_assert_eq(gmt_run(b, NULL, &out, &err), 2);
    gmt_assert_has(err, "file is not a database");
    gmt_assert_lacks(err, "history add creates it");
    free(out);
    free(err);
    free(missing);
    free(junk);
    gmt_rmrf(dir);
    free(dir);
}

/* ---- the CPU half without the CUDA toolkit (issue 24) ------------------------ */

/* A binary built with the toolkit exited 127 where the toolkit's directory
 * was absent (libcupti.so.13 not found), even for --version and render.
 * tests/no-cuda.sh hides every /usr/local/cuda* (and $GM_CUDA_HOME) in a mount
 * namespace and runs --version, list --metrics, render, diff, merge and
 * history, and collect, which must say what is missing. */
Test(no_cuda, cpu_commands_run_without_the_toolkit)
{
    gmt_deadline(120);
    char *script = gmt_src("tests/no-cuda.sh");
    char *argv[] = {"/bin/sh", script, (char *)gmt_bin(), (char *)gmt_srcdir(), NULL};
    char *out = NULL, *err = NULL;
    int rc = gmt_run(argv, NULL, &out, &err);
    if (rc == 77) {
        char why[512];
        snprintf(why, sizeof why, "cannot hide the CUDA toolkit here: %.400s", out);
        free(out);
        free(err);
        free(script);
        cr_skip_test("%s", why);
    }
    cr_expect_eq(rc, 0, "%s%s", out, err);
    free(out);
    free(err);
    free(script);
}

#ifdef GM_HAVE_CUDA
#include "../collectors/gmc_cupti_load.h"
#include <cupti_result.h>
#include <cupti_version.h>

/* With the toolkit there, the CUPTI the program did not link is opened on
 * first use and its functions answer as the library's own (no GPU needed). */
Test(no_cuda, cupti_is_opened_when_first_called)
{
    uint32_t v = 0;
    cr_assert_eq(cuptiGetVersion(&v), CUPTI_SUCCESS);
    cr_expect_eq(v, (uint32_t)CUPTI_API_VERSION);
    char why[256] = "";
    cr_expect(gmc_cupti_load(why, sizeof why), "%s", why);
    const char *s = NULL;
    cr_expect_eq(cuptiGetResultString(CUPTI_ERROR_INVALID_PARAMETER, &s), CUPTI_SUCCESS);
    cr_expect(s && strstr(s, "PARAMETER"), "%s", s ? s : "(null)");
    cr_expect(strncmp(gmc_cupti_soname(), "libcupti.so.", 12) == 0, "%s", gmc_cupti_soname());
}
#endif
