/* orchestrate/children.h: a batch of children, a few at a time. */
#include "../core/buf.h"
#include "../orchestrate/children.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t order[16];
    size_t n;
} S_seen;

static void S_started(size_t i, void *ctx)
{
    S_seen *s = ctx;
    if (s->n < 16)
        s->order[s->n++] = i;
}

/* A shell job: argv for sh -c SCRIPT, owned by the caller's arrays. */
static char **S_sh(const char *script)
{
    char **a = calloc(4, sizeof *a);
    a[0] = "/bin/sh";
    a[1] = "-c";
    a[2] = (char *)script;
    return a;
}

/* Each job's stdout, the end of its stderr on one line, its exit code;
 * started in order, once each. */
Test(children, outputs_codes_and_order)
{
    const char *scripts[] = {"echo out-0; echo err-0 >&2; exit 0",
                             "echo out-1; printf 'e1\\nline two\\n' >&2; exit 5",
                             "echo out-2", "kill -TERM $$", "echo out-4; exit 0"};
    size_t n = sizeof scripts / sizeof scripts[0];
    gm_child_job jobs[5];
    memset(jobs, 0, sizeof jobs);
    for (size_t i = 0; i < n; i++)
        jobs[i].args = S_sh(scripts[i]);
    S_seen seen = {{0}, 0};
    gm_children_run(jobs, n, 1, 60, S_started, &seen);
    cr_assert_eq(seen.n, n);
    for (size_t i = 0; i < n; i++)
        cr_expect_eq(seen.order[i], i);
    cr_expect_str_eq(jobs[0].out.data, "out-0\n");
    cr_expect_str_eq(jobs[0].err, "err-0");
    cr_expect_eq(jobs[0].rc, 0);
    cr_expect_eq(jobs[1].rc, 5);
    cr_expect_str_eq(jobs[1].err, "e1 line two");
    cr_expect_not(jobs[1].retried, "one at a time: nothing ran beside it, so no retry");
    cr_expect_str_eq(jobs[2].out.data, "out-2\n");
    cr_expect_eq(jobs[3].rc, 128 + 15);
    cr_expect_eq(jobs[4].rc, 0);
    for (size_t i = 0; i < n; i++) {
        gm_buf_free(&jobs[i].out);
        free((void *)jobs[i].args);
    }
}

/* Beside others, a job that fails runs once more alone and keeps that
 * result; one that fails again keeps failing; the others run once. */
Test(children, a_failure_beside_others_runs_again_alone)
{
    char *dir = gmt_tmpdir("children");
    gm_buf once = GM_BUF_INIT, count = GM_BUF_INIT, always = GM_BUF_INIT;
    /* fails the first time only (a file remembers) */
    gm_buf_printf(&once, "if [ -e %s/once ]; then echo second; exit 0; fi; touch %s/once; "
                         "echo first >&2; exit 3", dir, dir);
    gm_buf_printf(&count, "echo x >> %s/count; exit 0", dir);
    gm_buf_printf(&always, "echo again >&2; exit 4");
    gm_child_job jobs[3];
    memset(jobs, 0, sizeof jobs);
    jobs[0].args = S_sh(once.data);
    jobs[1].args = S_sh(count.data);
    jobs[2].args = S_sh(always.data);
    S_seen seen = {{0}, 0};
    gm_children_run(jobs, 3, 3, 60, S_started, &seen);
    cr_expect_eq(seen.n, 3, "started is called once per job, not for a retry");
    cr_expect_eq(jobs[0].rc, 0);
    cr_expect(jobs[0].retried);
    cr_expect_str_eq(jobs[0].out.data, "second\n");
    cr_expect_eq(jobs[1].rc, 0);
    cr_expect_not(jobs[1].retried);
    char *path = gmt_join(dir, "count");
    char *c = gmt_text(path);
    cr_expect_str_eq(c, "x\n", "a job that passed ran once");
    free(c);
    free(path);
    cr_expect_eq(jobs[2].rc, 4);
    cr_expect(jobs[2].retried);
    cr_expect_str_eq(jobs[2].err, "again");
    for (size_t i = 0; i < 3; i++) {
        gm_buf_free(&jobs[i].out);
        free((void *)jobs[i].args);
    }
    gm_buf_free(&once);
    gm_buf_free(&count);
    gm_buf_free(&always);
    gmt_rmrf(dir);
    free(dir);
}

/* A program that cannot start: 127 and why; one past its time limit: 124. */
Test(children, cannot_start_and_time_limit)
{
    char *missing[] = {"/nonexistent/gpumem-child", NULL};
    char **slow = S_sh("sleep 60");
    gm_child_job jobs[2];
    memset(jobs, 0, sizeof jobs);
    jobs[0].args = missing;
    jobs[1].args = slow;
    gm_children_run(jobs, 2, 1, 1.0, NULL, NULL);
    cr_expect_eq(jobs[0].rc, 127);
    cr_expect(strstr(jobs[0].err, "/nonexistent/gpumem-child") != NULL, "%s", jobs[0].err);
    cr_expect_eq(jobs[1].rc, 124);
    cr_expect(strstr(jobs[1].err, "stopped after 1 s") != NULL, "%s", jobs[1].err);
    for (size_t i = 0; i < 2; i++)
        gm_buf_free(&jobs[i].out);
    free(slow);
}

/* GPUMEM_REPORT_JOBS: unset the default asked for (the SASS path's 4, the
 * tracer's 4), a number from 1 to 64 taken, anything else
 * refused by name (and 1). */
Test(children, width_from_the_environment)
{
    size_t w = 9;
    gm_error err = {GM_OK, ""};
    unsetenv("GPUMEM_REPORT_JOBS");
    cr_expect_eq(gm_children_width(&w, GM_CHILDREN_WIDTH_SASS, &err), GM_OK);
    cr_expect_eq(w, 4);
    cr_expect_eq(gm_children_width(&w, GM_CHILDREN_WIDTH_TRACE, &err), GM_OK);
    cr_expect_eq(w, 4);
    setenv("GPUMEM_REPORT_JOBS", "1", 1);
    cr_expect_eq(gm_children_width(&w, GM_CHILDREN_WIDTH_SASS, &err), GM_OK);
    cr_expect_eq(w, 1);
    setenv("GPUMEM_REPORT_JOBS", "7", 1);
    cr_expect_eq(gm_children_width(&w, GM_CHILDREN_WIDTH_SASS, &err), GM_OK);
    cr_expect_eq(w, 7);
    const char *bad[] = {"0", "65", "4x", "-2", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("GPUMEM_REPORT_JOBS", bad[i], 1);
        cr_expect_neq(gm_children_width(&w, GM_CHILDREN_WIDTH_SASS, &err), GM_OK, "%s", bad[i]);
        cr_expect_eq(w, 1);
        cr_expect(strstr(err.message, bad[i]) != NULL, "%s", err.message);
    }
    unsetenv("GPUMEM_REPORT_JOBS");
}
