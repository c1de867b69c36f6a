/* test_orchestrate.c — orchestrate/ called in process, without the binary:
 * the fan-out over devices (a stand-in plays each device's collect:
 * tests/fixtures/fake-collect.sh) and the profiled program's run (a shell
 * script plays the program). */
#include "../core/buf.h"
#include "../orchestrate/fanout.h"
#include "../orchestrate/program.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void S_free_paths(char **p, int n)
{
    for (int i = 0; i < n; i++)
        free(p[i]);
    free(p);
}

Test(fanout, each_device_gets_its_results_path)
{
    int devs[] = {0, 3};
    char **p = NULL;
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_fan_out_paths("out/run.json", NULL, devs, 2, &p, &err), GM_OK, "%s",
                 err.message);
    cr_assert_str_eq(p[0], "out/run-gpu0.json");
    cr_assert_str_eq(p[1], "out/run-gpu3.json");
    S_free_paths(p, 2);
    cr_assert_eq(gm_fan_out_paths("run-%d.json", NULL, devs, 2, &p, &err), GM_OK);
    cr_assert_str_eq(p[1], "run-3.json");
    S_free_paths(p, 2);
    /* no --json: the report's name with .json */
    cr_assert_eq(gm_fan_out_paths(NULL, "node.v1/report.html", devs, 2, &p, &err), GM_OK);
    cr_assert_str_eq(p[0], "node.v1/report-gpu0.json");
    S_free_paths(p, 2);
    /* a pattern that cannot be expanded is named */
    cr_assert_neq(gm_fan_out_paths("run-%q.json", NULL, devs, 2, &p, &err), GM_OK);
    cr_assert_null(p);
    gmt_assert_has(err.message, "--json ");
}

/* Device 1 fails: its lines are relayed and named, device 0's results kept,
 * the worst status returned; without a report, how to compare them. */
Test(fanout, relays_each_device_and_keeps_what_worked)
{
    char *dir = gmt_tmpdir("orch");
    char *self = gmt_fixture("fake-collect.sh"), *logp = gmt_join(dir, "log");
    int devs[] = {0, 1};
    char **json = NULL;
    char *pattern = gmt_join(dir, "run-%d.json");
    cr_assert_eq(gm_fan_out_paths(pattern, NULL, devs, 2, &json, NULL), GM_OK);
    char *args[] = {"--quick", NULL};
    FILE *log = fopen(logp, "w");
    cr_assert_not_null(log);
    setenv("FAKE_FAIL_DEVICE", "1", 1);
    gm_fan_out_spec s = {.devices = devs, .n = 2, .exe = self, .args = args, .json = json,
                         .log = log};
    cr_assert_eq(gm_fan_out(&s), 2);
    fclose(log);
    char *text = gmt_text(logp);
    gmt_assert_has(text, "gpumem-report: 2 devices, one process each, at the same time\n");
    gmt_assert_has(text, "[gpu 0] fake collect: device 0\n");
    gmt_assert_has(text, "[gpu 1] gpumem-report: cannot collect here: device 1 failed");
    gmt_assert_has(text, "  device 1: exit 2, no results (its lines above, marked [gpu 1], "
                         "say why)\n");
    gmt_assert_has(text, "  device 0: exit 0, ");
    cr_assert(gmt_exists(json[0]));
    cr_assert(!gmt_exists(json[1]));
    free(text);

    /* both work: exit 0 and the command that compares them */
    unsetenv("FAKE_FAIL_DEVICE");
    log = fopen(logp, "w");
    s.log = log;
    cr_assert_eq(gm_fan_out(&s), 0);
    fclose(log);
    text = gmt_text(logp);
    gm_buf want = GM_BUF_INIT;
    gm_buf_printf(&want, "  compare them: gpumem-report render %s %s --out compare.html\n",
                  json[0], json[1]);
    gmt_assert_has(text, want.data);
    gm_buf_free(&want);
    free(text);
    S_free_paths(json, 2);
    gmt_rmrf(dir);
    free(pattern);
    free(logp);
    free(self);
    free(dir);
}

/* The main job: one report of the devices side by side. */
Test(fanout, renders_the_devices_side_by_side)
{
    char *dir = gmt_tmpdir("orch");
    char *self = gmt_fixture("fake-collect.sh"), *logp = gmt_join(dir, "log");
    char *out = gmt_join(dir, "node.md");
    int devs[] = {0, 2};
    char **json = NULL;
    cr_assert_eq(gm_fan_out_paths(NULL, out, devs, 2, &json, NULL), GM_OK);
    FILE *log = fopen(logp, "w");
    char *tmpl = gmt_src("templates/report.html");
    gm_render_opts ro = {.out_path = out, .format = GM_FORMAT_MD, .template_path = tmpl};
    gm_fan_out_spec s = {.devices = devs, .n = 2, .exe = self, .json = json, .log = log,
                         .render = &ro};
    int rc = gm_fan_out(&s);
    fclose(log);
    char *text = gmt_text(logp);
    cr_assert_eq(rc, 0, "%s", text);
    gm_buf want = GM_BUF_INIT;
    gm_buf_printf(&want, "report: %s (the devices side by side)\n", out);
    gmt_assert_has(text, want.data);
    char *md = gmt_text(out);
    gmt_assert_has(md, "# GPU memory report: 2 devices compared");
    gm_buf_free(&want);
    free(md);
    free(text);
    free(tmpl);
    S_free_paths(json, 2);
    gmt_rmrf(dir);
    free(out);
    free(logp);
    free(self);
    free(dir);
}

/* The program gets the library's settings in its environment (and nothing
 * left over from ours), its exit status is passed on, a signal that ends it
 * is named, one that cannot run is said. */
Test(program, runs_with_the_library_settings)
{
    char *dir = gmt_tmpdir("orch");
    char *envf = gmt_join(dir, "env");
    char *script = gmt_join(dir, "prog.sh");
    FILE *f = fopen(script, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/sh\n"
               "echo \"$0|$1|$CUDA_INJECTION64_PATH|$GPUMEM_REPORT_DIR|$GPUMEM_REPORT_KERNEL|"
               "${GPUMEM_REPORT_METRICS-unset}|$GPUMEM_REPORT_LAUNCH_SKIP|"
               "${GPUMEM_REPORT_LAUNCH_COUNT-unset}|$GPUMEM_REPORT_CACHE_FLUSH\" > %s\n"
               "exit 7\n", envf);
    fclose(f);
    chmod(script, 0755);
    setenv("GPUMEM_REPORT_METRICS", "left-over", 1);
    char *argv[] = {"prog-as-typed", "arg1", NULL};
    gm_program_spec s = {.prog = script, .argv = argv, .lib = "/lib/inject.so", .dir = dir,
                         .kernel = "k.*", .launch_skip = 2, .launch_count = -1,
                         .no_cache_flush = true};
    int sig = -1;
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_program_run(&s, &sig, &err), 7, "%s", err.message);
    cr_assert_eq(sig, 0);
    unsetenv("GPUMEM_REPORT_METRICS");
    char *got = gmt_text(envf);
    gm_buf want = GM_BUF_INIT;
    gm_buf_printf(&want, "%s|arg1|/lib/inject.so|%s|k.*|unset|2|unset|0\n", script, dir);
    cr_assert_str_eq(got, want.data);
    gm_buf_free(&want);
    free(got);

    /* ended by a signal: 128 + the signal, and which */
    f = fopen(script, "w");
    fputs("#!/bin/sh\nkill -TERM $$\n", f);
    fclose(f);
    cr_assert_eq(gm_program_run(&s, &sig, &err), 128 + SIGTERM);
    cr_assert_eq(sig, SIGTERM);

    /* cannot run: -1 and why */
    char *missing = gmt_join(dir, "no-such-program");
    s.prog = missing;
    cr_assert_eq(gm_program_run(&s, &sig, &err), -1);
    gmt_assert_has(err.message, "cannot run '");
    gmt_assert_has(err.message, "No such file or directory");
    free(missing);
    gmt_rmrf(dir);
    free(script);
    free(envf);
    free(dir);
}
