/* test_inject.c — the CPU side of `gpumem-report -- PROGRAM`: the injection
 * library's options, launch filter, names and status file (collectors/inject.h),
 * grouping launches into runs, and the command line run as a program against
 * tests/fixtures/fake-app.sh, a stand-in that writes what the library would
 * (exit status passed on, the program's stdout untouched, every error path).
 *
 * The helpers (collectors/inject_util.c) are plain C and tested everywhere;
 * the command's `--` needs the CUDA toolkit to be built, so without it the
 * command-line tests are listed as skipped, with the reason.
 * The binary is $GM_TEST_BIN (default build/gpumem-report), the source tree
 * $GM_SRCDIR (default ".").
 */
#include "../collectors/inject.h"
#include "../core/buf.h"
#include "../core/catalog.h"
#include "../core/results.h"
#include "../reports/render.h"
#include "../reports/runs.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- options ----------------------------------------------------------------- */

typedef struct {
    const char *k[8], *v[8];
} S_env;

static const char *S_get(const char *name, void *ctx)
{
    const S_env *e = ctx;
    for (int i = 0; i < 8 && e->k[i]; i++)
        if (strcmp(e->k[i], name) == 0)
            return e->v[i];
    return NULL;
}

Test(inject_opts, defaults)
{
    S_env e = {{GMI_ENV_DIR}, {"/tmp/x"}};
    gmi_opts o;
    char msg[256];
    cr_assert(gmi_opts_parse(S_get, &e, &o, msg, sizeof msg), "%s", msg);
    cr_assert_str_eq(o.dir, "/tmp/x");
    cr_assert_null(o.metrics);
    cr_assert_null(o.kernel_regex);
    cr_assert_eq(o.launch_skip, 0);
    cr_assert_eq(o.launch_count, -1);
    cr_assert(o.flush_l2);
    cr_assert(!o.debug);
    gmi_opts_free(&o);
}

Test(inject_opts, every_option)
{
    S_env e = {{GMI_ENV_DIR, GMI_ENV_METRICS, GMI_ENV_KERNEL, GMI_ENV_LAUNCH_SKIP,
                GMI_ENV_LAUNCH_COUNT, GMI_ENV_CACHE_FLUSH, GMI_ENV_DEBUG},
               {"/d", "a.sum,b.pct", "^scale_", "3", "7", "0", "1"}};
    gmi_opts o;
    char msg[256];
    cr_assert(gmi_opts_parse(S_get, &e, &o, msg, sizeof msg), "%s", msg);
    cr_assert_str_eq(o.metrics, "a.sum,b.pct");
    cr_assert_str_eq(o.kernel_regex, "^scale_");
    cr_assert_eq(o.launch_skip, 3);
    cr_assert_eq(o.launch_count, 7);
    cr_assert(!o.flush_l2);
    cr_assert(o.debug);
    gmi_opts_free(&o);
}

static void S_bad(S_env *e, const char *expect)
{
    gmi_opts o;
    char msg[256] = "";
    cr_assert(!gmi_opts_parse(S_get, e, &o, msg, sizeof msg));
    cr_assert(strstr(msg, expect), "message '%s' lacks '%s'", msg, expect);
    gmi_opts_free(&o);
}

Test(inject_opts, bad_values_name_the_variable)
{
    S_env none = {{NULL}, {NULL}};
    S_bad(&none, GMI_ENV_DIR);
    S_env skip = {{GMI_ENV_DIR, GMI_ENV_LAUNCH_SKIP}, {"/d", "-1"}};
    S_bad(&skip, GMI_ENV_LAUNCH_SKIP "='-1'");
    S_env count = {{GMI_ENV_DIR, GMI_ENV_LAUNCH_COUNT}, {"/d", "0"}};
    S_bad(&count, GMI_ENV_LAUNCH_COUNT "='0'");
    S_env junk = {{GMI_ENV_DIR, GMI_ENV_LAUNCH_COUNT}, {"/d", "12x"}};
    S_bad(&junk, "not an integer");
    S_env flush = {{GMI_ENV_DIR, GMI_ENV_CACHE_FLUSH}, {"/d", "yes"}};
    S_bad(&flush, "is not 0 or 1");
    S_env re = {{GMI_ENV_DIR, GMI_ENV_KERNEL}, {"/d", "(unclosed"}};
    S_bad(&re, "--kernel '(unclosed'");
}

/* ---- the launch filter -------------------------------------------------------------- */

static gmi_filter S_filter(const char *regex, long long skip, long long count)
{
    gmi_opts o;
    memset(&o, 0, sizeof o);
    o.kernel_regex = (char *)regex;
    o.launch_skip = skip;
    o.launch_count = count;
    gmi_filter f;
    char msg[256];
    cr_assert(gmi_filter_init(&f, &o, msg, sizeof msg), "%s", msg);
    return f;
}

Test(inject_filter, regex_on_the_demangled_name)
{
    gmi_filter f = S_filter("^scale_.*\\(float const\\*", 0, -1);
    cr_assert_eq(gmi_filter_next(&f, "scale_coalesced(float const*, float*, int, float)"),
                 GMI_PROFILE);
    cr_assert_eq(gmi_filter_next(&f, "transpose_padded(float const*, float*, int)"),
                 GMI_SKIP_FILTER);
    cr_assert_eq(gmi_filter_next(&f, "my_scale_x(float const*)"), GMI_SKIP_FILTER);
    cr_assert_eq(f.seen, 3);
    cr_assert_eq(f.matched, 1);
    cr_assert_eq(f.chosen, 1);
    gmi_filter_free(&f);
}

Test(inject_filter, skip_and_count_count_matching_launches_only)
{
    /* ncu's way: --launch-skip 2 --launch-count 2 over the launches that match */
    gmi_filter f = S_filter("^k", 2, 2);
    const char *seq[] = {"k1", "other", "k2", "k3", "other", "k4", "k5"};
    gmi_decision want[] = {GMI_SKIP_BEFORE, GMI_SKIP_FILTER, GMI_SKIP_BEFORE, GMI_PROFILE,
                           GMI_SKIP_FILTER, GMI_PROFILE, GMI_SKIP_DONE};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
        cr_assert_eq(gmi_filter_next(&f, seq[i]), want[i], "launch %zu (%s)", i, seq[i]);
    cr_assert(!f.limit_reached, "an explicit --launch-count is not the default limit");
    gmi_filter_free(&f);
}

Test(inject_filter, default_limit_is_reported)
{
    gmi_filter f = S_filter(NULL, 0, -1);
    cr_assert_eq(f.count, GMI_DEFAULT_LIMIT);
    for (int i = 0; i < GMI_DEFAULT_LIMIT; i++)
        cr_assert_eq(gmi_filter_next(&f, "k"), GMI_PROFILE);
    cr_assert(!f.limit_reached);
    cr_assert_eq(gmi_filter_next(&f, "k"), GMI_SKIP_DONE);
    cr_assert(f.limit_reached);
    gmi_filter_free(&f);
}

Test(inject_filter, bad_regex)
{
    gmi_opts o;
    memset(&o, 0, sizeof o);
    o.kernel_regex = "a[";
    o.launch_count = -1;
    gmi_filter f;
    char msg[256] = "";
    cr_assert(!gmi_filter_init(&f, &o, msg, sizeof msg));
    cr_assert(strstr(msg, "--kernel 'a['"), "%s", msg);
    cr_assert(!gmi_regex_check("(", msg, sizeof msg));
    cr_assert(gmi_regex_check("^(a|b)+$", msg, sizeof msg));
}

/* ---- names ------------------------------------------------------------------------ */

static void S_names(const char *sym, const char *demangled, const char *shortn)
{
    char *d = gmi_demangle(sym);
    cr_assert_str_eq(d, demangled);
    char *s = gmi_short_name(d);
    cr_assert_str_eq(s, shortn, "short name of '%s'", d);
    free(s);
    free(d);
}

Test(inject_names, demangle_and_short_name)
{
    S_names("_Z15scale_coalescedPKfPfif", "scale_coalesced(float const*, float*, int, float)",
            "scale_coalesced");
    S_names("_Z4kernILi32EEvPf", "void kern<32>(float*)", "kern<32>");
    S_names("_ZN2ns6reduceEPKfPfi", "ns::reduce(float const*, float*, int)", "reduce");
    S_names("_ZN12_GLOBAL__N_16kernelEPf", "(anonymous namespace)::kernel(float*)", "kernel");
    S_names("_ZN12_GLOBAL__N_11kILi2EEEvPf", "void (anonymous namespace)::k<2>(float*)", "k<2>");
    char *f = gmi_full_name("void (anonymous namespace)::k<2>(float*)");
    cr_assert_str_eq(f, "(anonymous namespace)::k<2>");
    free(f);
    S_names("mykernel", "mykernel", "mykernel");           /* extern "C" */
    S_names("_Znotmangled", "_Znotmangled", "_Znotmangled"); /* does not demangle: as is */
    char *q = gmi_demangle(NULL);
    cr_assert_str_eq(q, "?");
    free(q);
}

Test(inject_names, template_arguments_with_parentheses)
{
    char *s = gmi_short_name("void k<(int)3, float>(float*, int)");
    cr_assert_str_eq(s, "k<(int)3, float>");
    free(s);
}

/* A 2 KB template name (as PyTorch's reductions have) shortens to its base
 * name with the arguments folded to <…>; the full text stays the kernel's. */
Test(inject_names, long_template_is_shortened)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, ");
    while (b.len < 2048)
        gm_buf_puts(&b, "at::native::MeanOps<float, float, float, float>, ");
    gm_buf_puts(&b, "unsigned int, float, 4, 4>>(at::native::ReduceOp<float>)");
    char *s = gmi_short_name(b.data);
    cr_assert_str_eq(s, "reduce_kernel<…>");
    free(s);
    char *longc = gmi_short_name("void ns::a_rather_long_kernel_name_without_templates_at_all_x(int)");
    cr_assert(strlen(longc) <= GMI_SHORT_MAX + strlen("…"), "%s", longc);
    free(longc);
    gm_buf_free(&b);
}

/* The 5,050-byte signature of PyTorch's normal-distribution kernel in the
 * recorded run (examples/pytorch/run.json): a message names it by its short
 * name, and a message that quotes it whole still keeps every line within
 * GMI_LINE_MAX bytes. */
Test(inject_names, a_5_kb_signature_in_a_message)
{
    gm_results r;
    char *path = gmt_src("examples/pytorch/run.json");
    gm_error err;
    cr_assert_eq(gm_results_read_file(path, &r, &err), GM_OK, "%s", err.message);
    free(path);
    const char *sig = NULL;
    for (size_t i = 0; i < r.n_runs; i++)
        if (r.runs[i].kernel && strlen(r.runs[i].kernel) > 5000)
            sig = r.runs[i].kernel;
    cr_assert_not_null(sig, "the recorded run has a 5 KB signature");
    char *name = gmi_message_name(sig);
    cr_assert_str_eq(name, "distribution_elementwise_grid_stride_kernel<…>");
    free(name);
    char *lines = gmi_say("source lines: ", sig);
    size_t n_lines = 0;
    for (const char *p = lines; *p; n_lines++) {
        size_t n = strcspn(p, "\n");
        cr_assert_leq(n, GMI_LINE_MAX, "a line of %zu bytes", n);
        cr_assert_eq(p[n], '\n');
        p += n + 1;
    }
    cr_assert_gt(n_lines, 25, "the signature is wrapped, not cut");
    cr_assert_eq(strncmp(lines, "source lines: void at::native::", 31), 0, "%s", lines);
    free(lines);
    /* a word longer than a line is cut, and a mangled symbol is named */
    char word[400];
    memset(word, 'x', sizeof word - 1);
    word[sizeof word - 1] = '\0';
    lines = gmi_say("p: ", word);
    cr_assert_leq(strlen(lines), GMI_LINE_MAX + 1);
    gmt_assert_has(lines, "…\n");
    free(lines);
    lines = gmi_say("gpumem-report: ", "launch 3 (_Z15spmv_kernel_elliiPKiPKfS2_Pf): failed");
    cr_assert_str_eq(lines, "gpumem-report: launch 3 (spmv_kernel_ell): failed\n");
    free(lines);
    gm_results_free(&r);
}

/* ---- the status file --------------------------------------------------------------- */

/* ---- batches -------------------------------------------------------------- */

Test(inject_batch, calls_that_change_no_device_memory_keep_the_batch)
{
    static const char *const keep[] = {
        "cuCtxGetCurrent", "cuDeviceGetAttribute", "cuPointerGetAttribute",
        "cuFuncGetAttribute", "cuMemGetInfo_v2", "cuStreamQuery", "cuEventQuery",
        "cuCtxSynchronize", "cuStreamSynchronize", "cuStreamSynchronize_ptsz",
        "cuEventSynchronize", "cuEventRecord", "cuEventRecord_ptsz", "cuEventCreate",
        "cuEventDestroy_v2", "cuEventElapsedTime", "cuStreamWaitEvent_ptsz",
        "cuStreamCreate", "cuStreamIsCapturing", "cuCtxPushCurrent_v2", "cuCtxSetCurrent",
        "cuFuncSetAttribute", "cuMemcpyDtoH_v2", "cuMemcpyDtoHAsync_v2_ptsz",
        "cuMemcpyDtoH_v2_ptds", "cuMemAlloc_v2", "cuMemAllocHost_v2", "cuMemHostAlloc",
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", "cuDeviceTotalMem_v2",
        "cuLibraryLoadData", "cuModuleLoadDataEx",
    };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        cr_assert(gmi_api_keeps_batch(keep[i]), "%s should keep the batch", keep[i]);
}

Test(inject_batch, calls_that_may_change_device_memory_end_it)
{
    static const char *const end[] = {
        "cuMemcpyHtoD_v2", "cuMemcpyHtoDAsync_v2", "cuMemcpy2D_v2", "cuMemcpy3D_v2",
        "cuMemcpyPeer", "cuMemcpy", "cuMemcpyAsync_ptsz", "cuMemsetD8_v2",
        "cuMemsetD2D32_v2", "cuMemFree_v2", "cuMemFreeAsync", "cuMemAllocManaged",
        "cuMemAllocAsync", "cuLibraryUnload", "cuModuleUnload",
        "cuGraphLaunch", "cuLaunchHostFunc", "cuStreamDestroy_v2", "cuCtxDestroy_v2",
        "cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxRelease_v2", "cuMemPrefetchAsync",
        "cuSomethingNew", "", "Get", "cu", "cuMemcpyDtoD_v2",
    };
    for (size_t i = 0; i < sizeof end / sizeof end[0]; i++)
        cr_assert(!gmi_api_keeps_batch(end[i]), "%s should end the batch", end[i]);
    cr_assert(!gmi_api_keeps_batch(NULL));
}

Test(inject_batch, generic_copies_and_replayable_calls)
{
    cr_assert(gmi_api_is_generic_copy("cuMemcpy"));
    cr_assert(gmi_api_is_generic_copy("cuMemcpyAsync"));
    cr_assert(gmi_api_is_generic_copy("cuMemcpyAsync_ptsz"));
    cr_assert(gmi_api_is_generic_copy("cuMemcpy_ptds"));
    cr_assert(!gmi_api_is_generic_copy("cuMemcpyHtoD_v2"));
    cr_assert(!gmi_api_is_generic_copy("cuMemcpyPeer"));
    cr_assert(!gmi_api_is_generic_copy(NULL));

    cr_assert_eq(gmi_api_replayable("cuMemsetD8_v2"), GMI_OP_MEMSET8);
    cr_assert_eq(gmi_api_replayable("cuMemsetD8Async"), GMI_OP_MEMSET8);
    cr_assert_eq(gmi_api_replayable("cuMemsetD8Async_ptsz"), GMI_OP_MEMSET8);
    cr_assert_eq(gmi_api_replayable("cuMemsetD16_v2_ptds"), GMI_OP_MEMSET16);
    cr_assert_eq(gmi_api_replayable("cuMemsetD32Async"), GMI_OP_MEMSET32);
    cr_assert_eq(gmi_api_replayable("cuMemcpyDtoD_v2"), GMI_OP_COPY_DTOD);
    cr_assert_eq(gmi_api_replayable("cuMemcpyDtoDAsync_v2_ptsz"), GMI_OP_COPY_DTOD);
    /* 2-D memsets, copies that cross the bus and everything else are not made again */
    cr_assert_eq(gmi_api_replayable("cuMemsetD2D8_v2"), GMI_OP_NONE);
    cr_assert_eq(gmi_api_replayable("cuMemcpyHtoD_v2"), GMI_OP_NONE);
    cr_assert_eq(gmi_api_replayable("cuMemcpyDtoH_v2"), GMI_OP_NONE);
    cr_assert_eq(gmi_api_replayable("cuMemsetD8_v22"), GMI_OP_MEMSET8);
    cr_assert_eq(gmi_api_replayable("cuMemsetD8_vx"), GMI_OP_NONE);
    cr_assert_eq(gmi_api_replayable(NULL), GMI_OP_NONE);
}

Test(inject_status, round_trip)
{
    gmi_status a;
    memset(&a, 0, sizeof a);
    a.pid = 4242;
    a.launches = 250;
    a.matched = 240;
    a.profiled = 200;
    a.failed = 1;
    a.not_profilable = 3;
    a.runtime_only = 2;
    a.graph_launches = 5;
    a.limit_reached = true;
    a.limit = 200;
    snprintf(a.error_kind, sizeof a.error_kind, "permission");
    snprintf(a.error, sizeof a.error, "counters\nrestricted");   /* a newline is flattened */
    snprintf(a.note, sizeof a.note, "graphs are not profiled");
    char *text = gmi_status_format(&a);
    gmi_status b;
    char msg[128];
    cr_assert(gmi_status_parse(text, &b, msg, sizeof msg), "%s", msg);
    cr_assert(b.loaded);
    cr_assert_eq(b.pid, 4242);
    cr_assert_eq(b.launches, 250);
    cr_assert_eq(b.matched, 240);
    cr_assert_eq(b.profiled, 200);
    cr_assert_eq(b.failed, 1);
    cr_assert_eq(b.not_profilable, 3);
    cr_assert_eq(b.runtime_only, 2);
    cr_assert_eq(b.graph_launches, 5);
    cr_assert(b.limit_reached);
    cr_assert_eq(b.limit, 200);
    cr_assert_str_eq(b.error_kind, "permission");
    cr_assert_str_eq(b.error, "counters restricted");
    cr_assert_str_eq(b.note, "graphs are not profiled");
    free(text);
}

Test(inject_status, rejects_other_files_and_ignores_unknown_keys)
{
    gmi_status s;
    char msg[256] = "";
    cr_assert(!gmi_status_parse("hello\n", &s, msg, sizeof msg));
    cr_assert(strstr(msg, "gpumem-report-inject 1"), "%s", msg);
    cr_assert(!gmi_status_parse("gpumem-report-inject 10\n", &s, msg, sizeof msg));
    cr_assert(!gmi_status_parse(NULL, &s, msg, sizeof msg));
    cr_assert(gmi_status_parse("gpumem-report-inject 1\nfuture_key 9\nlaunches x\nprofiled 4\n"
                               "nospace\n",
                               &s, msg, sizeof msg));
    cr_assert_eq(s.launches, 0, "a malformed number stays 0");
    cr_assert_eq(s.profiled, 4);
}

/* ---- grouping ------------------------------------------------------------------------ */

static double gm_run_total_ms_sum(const gm_run *run)
{
    double t = 0;
    for (size_t i = 0; i < run->timing.n; i++)
        t += run->timing.samples[i];
    return t;
}

/* Take a parameter out of the grouping's sight (renamed; freed with the run). */
static void gm_run_remove_param_for_test(gm_run *run, const char *name)
{
    for (size_t i = 0; i < run->n_params; i++)
        if (strcmp(run->params[i].name, name) == 0) {
            free(run->params[i].name);
            run->params[i].name = gm_xstrdup("removed");
        }
}

static bool S_note(const gm_run *run, const char *text)
{
    for (size_t i = 0; i < run->n_notes; i++)
        if (strstr(run->notes[i], text))
            return true;
    return false;
}

Test(inject_group, metric_kinds)
{
    cr_assert(gmi_metric_sums(GM_M_LD_SECTORS));
    cr_assert(gmi_metric_sums(GM_M_DURATION));
    cr_assert(gmi_metric_sums(GM_M_DRAM_WR));
    cr_assert(!gmi_metric_sums(GM_M_DRAM_RATE), "a rate does not add up");
    cr_assert(!gmi_metric_sums(GM_M_LD_SPR));
    cr_assert(!gmi_metric_sums(GM_M_DRAM_PCT));
    cr_assert(!gmi_metric_sums("x.pct_of_peak_sustained_elapsed.sum"));
}

Test(inject_group, same_kernel_range_and_config_become_one_run)
{
    gm_results r;
    gmt_load_fixture("inject-launches.json", &r);
    cr_assert_eq(r.n_runs, 7);
    gmi_group(&r, false, "lab");
    /* launches 0+1 (coalesced), 2+3 (uncoalesced); 4 and 5 differ in range; 6 in grid.
     * Ordered by GPU time over all launches: 180, 60 (launch 4), 60 (5), 50, 10 µs */
    cr_assert_eq(r.n_runs, 5);
    const char *names[] = {"uncoalesced", "shared-unpadded", "transpose_unpadded", "coalesced",
                           "scale_coalesced"};
    for (size_t i = 0; i < 5; i++) {
        cr_assert_str_eq(r.runs[i].variant, names[i]);
        cr_assert_str_eq(r.runs[i].experiment, "lab");
        cr_assert_eq(r.runs[i].n_params, 0, "launch and range go to the name and the notes");
    }
    for (size_t i = 1; i < 5; i++)
        cr_assert_geq(gm_run_total_ms_sum(&r.runs[i - 1]), gm_run_total_ms_sum(&r.runs[i]),
                      "rows by GPU time");
    cr_assert_eq(r.n_experiments, 1);
    cr_assert_str_eq(r.experiments[0].id, "lab");

    const gm_run *co = &r.runs[3];
    /* counts per launch: the group's sum over its launch count, with min and max */
    const gm_metric *sec = gm_run_metric(co, GM_M_LD_SECTORS);
    cr_assert_eq(sec->value.kind, GM_V_INT);
    cr_assert_eq(sec->value.i, 2 * 524288 / 2);
    cr_assert_eq(sec->launch_min.i, 524288);
    cr_assert_eq(sec->launch_max.i, 524288);
    const gm_metric *dur = gm_run_metric(co, GM_M_DURATION);
    cr_assert_eq(dur->value.i, (20000 + 30000) / 2);
    cr_assert_eq(dur->launch_min.i, 20000);
    cr_assert_eq(dur->launch_max.i, 30000);
    /* sectors per request from the sums; DRAM % weighted by duration:
     * (80 * 20000 + 60 * 30000) / 50000 = 68 */
    cr_assert_float_eq(gm_run_metric_num(co, GM_M_LD_SPR), 4.0, 1e-12);
    cr_assert_float_eq(gm_run_metric_num(co, GM_M_DRAM_PCT), 68.0, 1e-9);
    cr_assert_float_eq(gm_value_num(&gm_run_metric(co, GM_M_DRAM_PCT)->launch_min), 60.0, 1e-9);
    /* the time: one sample per launch */
    cr_assert_eq(co->timing.n, 2);
    cr_assert_float_eq(co->timing.median, 0.025, 1e-12);
    cr_assert_float_eq(co->timing.min, 0.020, 1e-12);
    cr_assert_float_eq(co->timing.max, 0.030, 1e-12);
    cr_assert(co->timing.l2_flushed);
    cr_assert(S_note(co, "2 launches (launches 0, 1 of the program)"));
    cr_assert(S_note(co, "NVTX range: coalesced"));
    cr_assert_eq(co->check.status, GM_CHECK_NO_REFERENCE);
    /* a nested range is named by its innermost name */
    cr_assert(S_note(&r.runs[1], "NVTX range: lab/shared-unpadded"));
    cr_assert(S_note(&r.runs[4], "launch 6 of the program"));
    /* a single launch has no min-max */
    cr_assert(!gm_value_present(&gm_run_metric(&r.runs[4], GM_M_LD_SECTORS)->launch_min));
    gm_results_free(&r);
}

/* Per-launch values equal the group's sums over its launch count, for every
 * count of every grouped run. */
Test(inject_group, per_launch_values_are_sums_over_launches)
{
    gm_results raw, r;
    gmt_load_fixture("inject-launches.json", &raw);
    gmt_load_fixture("inject-launches.json", &r);
    gmi_group(&r, false, "lab");
    size_t checked = 0;
    for (size_t i = 0; i < r.n_runs; i++) {
        const gm_run *g = &r.runs[i];
        for (size_t m = 0; m < g->n_metrics; m++) {
            if (!gmi_metric_sums(g->metrics[m].name))
                continue;
            /* the launches of this group: same kernel, same time samples */
            double sum = 0;
            size_t n = 0;
            for (size_t k = 0; k < raw.n_runs; k++) {
                const gm_run *x = &raw.runs[k];
                bool member = false;
                for (size_t t = 0; t < g->timing.n; t++)
                    member |= strcmp(x->kernel, g->kernel) == 0 &&
                              x->launch.grid[0] == g->launch.grid[0] && n < g->timing.n &&
                              fabs(x->timing.samples[0] - g->timing.samples[t]) < 1e-12;
                const gm_param *rg = gm_run_param(x, "range");
                bool in_range = (rg != NULL) == S_note(g, "NVTX range:") &&
                                (!rg || S_note(g, rg->value.s));
                if (member && in_range) {
                    sum += gm_run_metric_num(x, g->metrics[m].name);
                    n++;
                }
            }
            cr_assert_eq(n, g->timing.n, "%s: launches found", g->variant);
            cr_assert_float_eq(gm_run_metric_num(g, g->metrics[m].name), sum / (double)n, 1e-9,
                               "%s %s", g->variant, g->metrics[m].name);
            checked++;
        }
    }
    cr_assert_geq(checked, 20);
    gm_results_free(&raw);
    gm_results_free(&r);
}

/* Two templates of one base name are told apart by the words of their
 * template arguments the other lacks (issue 26: a stream benchmark's five
 * kernels read for_each_kernel<…> [1] ... [5]). */
Test(inject_group, colliding_short_names_are_told_apart)
{
    gm_results r;
    gmt_load_fixture("inject-launches.json", &r);
    /* launches 2, 3 and 6 become two different long templates of one base name */
    const char *k1 = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                     "std::array<char*, 1>>(int, at::native::FillFunctor<float>, std::array<char*, 1>)";
    const char *k2 = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
                     "std::array<char*, 3>>(int, at::native::AddFunctor<float>, std::array<char*, 3>)";
    for (size_t i = 0; i < r.n_runs; i++) {
        long long l = gm_run_param(&r.runs[i], "launch")->value.i;
        if (l == 2 || l == 3 || l == 6) {
            free(r.runs[i].kernel);
            r.runs[i].kernel = gm_xstrdup(l == 6 ? k2 : k1);
            gm_run_remove_param_for_test(&r.runs[i], "range");
        }
    }
    gmi_group(&r, false, "p");
    cr_assert_str_eq(r.runs[0].variant, "vectorized_elementwise_kernel<…FillFunctor…>");
    cr_assert_str_eq(r.runs[0].kernel, k1, "the full signature is kept");
    bool found = false;
    for (size_t i = 0; i < r.n_runs; i++)
        found |= strcmp(r.runs[i].variant, "vectorized_elementwise_kernel<…AddFunctor…>") == 0 &&
                 strcmp(r.runs[i].kernel, k2) == 0;
    cr_assert(found);
    gm_results_free(&r);
}

/* The recorded stream benchmark (tests/fixtures/stream.cu on an H200): five
 * operations of one kernel template, for_each_kernel<…>, each at five block
 * sizes.  Each operation is named by the word of its signature the others
 * lack; a block size by its launch configuration. */
Test(inject_group, recorded_stream_kernels_told_apart)
{
    gm_results r;
    gmt_load_fixture("stream-h200-launches.json", &r);
    cr_assert_eq(r.n_runs, 55);
    gmi_group(&r, false, "stream");
    cr_assert_eq(r.n_runs, 30, "6 kernels at 5 launch configurations");
    static const char *const ops[] = {"init", "copy", "mul", "add", "triad"};
    for (size_t k = 0; k < 5; k++) {
        char want[64], member[64];
        snprintf(want, sizeof want, "for_each_kernel<…%s…> ", ops[k]);
        snprintf(member, sizeof member, "::%s()::{lambda", ops[k]);
        size_t n = 0;
        for (size_t i = 0; i < r.n_runs; i++)
            if (strncmp(r.runs[i].variant, want, strlen(want)) == 0) {
                n++;
                cr_assert(strstr(r.runs[i].kernel, member), "%s: %s", r.runs[i].variant,
                          r.runs[i].kernel);
            }
        cr_assert_eq(n, 5, "%s at five block sizes", want);
    }
    for (size_t i = 0; i < r.n_runs; i++) {
        cr_assert_null(strchr(r.runs[i].variant, '['), "%s", r.runs[i].variant);
        cr_assert_lt(strlen(r.runs[i].variant), 60, "%s", r.runs[i].variant);
    }
    cr_assert_str_eq(r.runs[0].variant, "for_each_kernel<…add…> 524288x1x1/64x1x1");
    gm_results_free(&r);
    /* the same kernels by their mangled symbols (a demangler that cannot
     * read nvcc's extended lambdas leaves them so): told apart the same way */
    gmt_load_fixture("inject-launches.json", &r);
    static const char *const sym[] = {
        "_ZN6stream6detail15for_each_kernelIfLi1EZNS_6StreamIfE4copyEvEUnvdl2_MS3_FvvENS3_"
        "4copyE1_PKfPfEEvT1_m",
        "_ZN6stream6detail15for_each_kernelIfLi1EZNS_6StreamIfE5triadEvEUnvdl3_MS3_FvvENS3_"
        "5triadE1_PfPKfS8_EEvT1_m"};
    for (size_t i = 0; i < r.n_runs; i++) {
        long long l = gm_run_param(&r.runs[i], "launch")->value.i;
        if (l == 2 || l == 3 || l == 6) {
            free(r.runs[i].kernel);
            r.runs[i].kernel = gm_xstrdup(sym[l == 6]);
            gm_run_remove_param_for_test(&r.runs[i], "range");
        }
    }
    gmi_group(&r, false, "p");
    size_t told = 0;
    for (size_t i = 0; i < r.n_runs; i++)
        told += strcmp(r.runs[i].variant, "for_each_kernel<…copy…>") == 0 ||
                strcmp(r.runs[i].variant, "for_each_kernel<…triad…>") == 0;
    cr_assert_eq(told, 2);
    gm_results_free(&r);
}

Test(inject_group, efficiency_is_weighted_by_sectors)
{
    gm_results r;
    gmt_load_fixture("inject-launches.json", &r);
    /* make launch 1 a different efficiency: (100 * 524288 + 50 * 1048576) / 1572864 = 66.67 */
    gm_run_set_metric(&r.runs[1], GM_M_LD_EFF, gm_vreal(50.0), "%");
    gm_run_set_metric(&r.runs[1], GM_M_LD_SECTORS, gm_vint(1048576), "sector");
    gmi_group(&r, false, "lab");
    const gm_run *co = NULL;
    for (size_t i = 0; i < r.n_runs; i++)
        if (strcmp(r.runs[i].variant, "coalesced") == 0)
            co = &r.runs[i];
    cr_assert_not_null(co);
    cr_assert_float_eq(gm_run_metric_num(co, GM_M_LD_EFF), 200.0 / 3.0, 1e-9);
    cr_assert_float_eq(gm_run_metric_num(co, GM_M_LD_SPR), 1572864.0 / 262144.0, 1e-12);
    gm_results_free(&r);
}

Test(inject_group, each_launch_gets_a_unique_name)
{
    gm_results r;
    gmt_load_fixture("inject-launches.json", &r);
    gmi_group(&r, true, "lab");
    cr_assert_eq(r.n_runs, 7);
    /* by time: 90 (launch 2), 90 (3), 60 (4), 60 (5), 30 (1), 20 (0), 10 (6) µs */
    cr_assert_str_eq(r.runs[0].variant, "uncoalesced: scale_strided 16384x1x1/256x1x1 #2");
    cr_assert_str_eq(r.runs[1].variant, "uncoalesced: scale_strided 16384x1x1/256x1x1 #3");
    cr_assert_str_eq(r.runs[2].variant, "shared-unpadded");
    cr_assert_str_eq(r.runs[3].variant, "transpose_unpadded");
    cr_assert_str_eq(r.runs[4].variant, "coalesced: scale_coalesced 16384x1x1/256x1x1 #1");
    cr_assert_str_eq(r.runs[5].variant, "coalesced: scale_coalesced 16384x1x1/256x1x1 #0");
    cr_assert_str_eq(r.runs[6].variant, "scale_coalesced");
    for (size_t i = 0; i < r.n_runs; i++)
        for (size_t j = i + 1; j < r.n_runs; j++)
            cr_assert_str_neq(r.runs[i].variant, r.runs[j].variant);
    cr_assert_eq(gm_run_metric(&r.runs[5], GM_M_LD_SECTORS)->value.i, 524288, "not summed");
    gm_results_free(&r);
}

Test(inject_group, grouped_file_round_trips)
{
    gm_results r, back;
    gmt_load_fixture("inject-launches.json", &r);
    gmi_group(&r, false, "lab");
    char *json = gm_results_to_json(&r);
    gm_error err;
    cr_assert_eq(gm_results_read_string(json, "grouped", &back, &err), GM_OK, "%s", err.message);
    cr_assert_eq(back.n_runs, 5);
    cr_assert_str_eq(gm_check_status_name(back.runs[0].check.status), "no-reference");
    free(json);
    gm_results_free(&r);
    gm_results_free(&back);
}

/* ---- CUDA graphs ----------------------------------------------------------------------- */

/* deps in the CSR form gmi_graph_order takes: deps of node i at d[s[i] .. s[i+1]) */
static bool S_order(size_t n, const size_t *s, const size_t *d, size_t *out)
{
    return gmi_graph_order(n, s, d, out);
}

Test(inject_graph, a_captured_chain_keeps_its_order)
{
    /* 0 <- 1 <- 2 <- 3, listed in that order */
    size_t s[] = {0, 0, 1, 2, 3}, d[] = {0, 1, 2}, o[4];
    cr_assert(S_order(4, s, d, o));
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(o[i], i);
}

Test(inject_graph, dependencies_come_first_lowest_index_among_the_ready)
{
    /* listed out of order: node 0 waits on 3, node 1 on 0 and 2, node 2 on 3; 3 waits on nothing */
    size_t s[] = {0, 1, 3, 4, 4}, d[] = {3, 0, 2, 3}, o[4];
    cr_assert(S_order(4, s, d, o));
    size_t want[] = {3, 0, 2, 1};
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(o[i], want[i], "position %zu: %zu", i, o[i]);
    /* a diamond: 0 -> {1, 2} -> 3 */
    size_t s2[] = {0, 0, 1, 2, 4}, d2[] = {0, 0, 1, 2};
    cr_assert(S_order(4, s2, d2, o));
    cr_assert(o[0] == 0 && o[1] == 1 && o[2] == 2 && o[3] == 3);
    cr_assert(S_order(0, s2, d2, o), "an empty graph");
}

Test(inject_graph, a_cycle_or_a_stray_index_is_refused)
{
    size_t o[3];
    size_t s[] = {0, 1, 2, 3}, d[] = {2, 0, 1};   /* 0 <- 2 <- 1 <- 0 */
    cr_assert(!S_order(3, s, d, o));
    size_t s2[] = {0, 0, 1, 1}, d2[] = {7};
    cr_assert(!S_order(3, s2, d2, o), "index out of range");
    size_t s3[] = {0, 1, 1, 1}, d3[] = {0};
    cr_assert(!S_order(3, s3, d3, o), "a node on itself");
}

Test(inject_graph, which_nodes_are_replayed)
{
    gmi_node_kind ok[] = {GMI_NODE_KERNEL, GMI_NODE_MEMSET, GMI_NODE_MEMCPY, GMI_NODE_EMPTY,
                          GMI_NODE_EVENT, GMI_NODE_GRAPH};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_assert_null(gmi_node_refusal(ok[i]), "kind %d", (int)ok[i]);
    cr_assert_str_eq(gmi_node_refusal(GMI_NODE_HOST), "a host-function node");
    gmi_node_kind no[] = {GMI_NODE_SEMAPHORE, GMI_NODE_MEM_ALLOC, GMI_NODE_MEM_FREE,
                          GMI_NODE_MEMOP, GMI_NODE_CONDITIONAL, GMI_NODE_OTHER};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        const char *w = gmi_node_refusal(no[i]);
        cr_assert(w && strstr(w, "node"), "kind %d: %s", (int)no[i], w ? w : "(null)");
    }
}

Test(inject_graph, memset_nodes_made_again_when_contiguous)
{
    size_t n = 0;
    cr_assert_eq(gmi_memset_op(1, 1000, 1, 0, &n), GMI_OP_MEMSET8);
    cr_assert_eq(n, 1000);
    cr_assert_eq(gmi_memset_op(4, 256, 0, 0, &n), GMI_OP_MEMSET32, "height 0 reads as 1");
    cr_assert_eq(n, 256);
    cr_assert_eq(gmi_memset_op(2, 64, 8, 128, &n), GMI_OP_MEMSET16, "rows that touch");
    cr_assert_eq(n, 512);
    cr_assert_eq(gmi_memset_op(4, 64, 8, 512, &n), GMI_OP_NONE, "rows with gaps");
    cr_assert_eq(gmi_memset_op(8, 64, 1, 0, &n), GMI_OP_NONE, "8-byte elements");
    cr_assert_eq(gmi_memset_op(4, 0, 1, 0, &n), GMI_OP_NONE, "nothing to set");
}

Test(inject_graph, copy_nodes_made_again_when_one_run_of_bytes)
{
    gmi_copy_shape c = {false, false, 0, 0, 0, 0, 4096, 1, 1};
    cr_assert(gmi_copy_is_1d(&c));
    c.height = 0, c.depth = 0;
    cr_assert(gmi_copy_is_1d(&c), "0 rows and slices read as 1");
    c.height = 2;
    cr_assert(!gmi_copy_is_1d(&c), "2-D");
    c.height = 1, c.dst_array = true;
    cr_assert(!gmi_copy_is_1d(&c), "a CUDA array");
    c.dst_array = false, c.src_y = 3;
    cr_assert(!gmi_copy_is_1d(&c), "an offset in rows");
    c.src_y = 0, c.width = 0;
    cr_assert(!gmi_copy_is_1d(&c), "no bytes");
}

Test(inject_graph, calls_that_make_or_change_an_instance)
{
    const struct {
        const char *name;
        gmi_graph_call want;
    } cases[] = {
        {"cuGraphInstantiate", GMI_GRAPH_CALL_INSTANTIATE},
        {"cuGraphInstantiate_v2", GMI_GRAPH_CALL_INSTANTIATE},
        {"cuGraphInstantiateWithFlags", GMI_GRAPH_CALL_INSTANTIATE},
        {"cuGraphInstantiateWithParams_ptsz", GMI_GRAPH_CALL_INSTANTIATE},
        {"cuGraphExecUpdate_v2", GMI_GRAPH_CALL_UPDATE},
        {"cuGraphExecKernelNodeSetParams_v2", GMI_GRAPH_CALL_KERNEL_PARAMS},
        {"cuGraphExecMemsetNodeSetParams", GMI_GRAPH_CALL_CHANGE},
        {"cuGraphExecChildGraphNodeSetParams", GMI_GRAPH_CALL_CHANGE},
        {"cuGraphExecNodeSetParams", GMI_GRAPH_CALL_CHANGE},
        {"cuGraphNodeSetEnabled", GMI_GRAPH_CALL_CHANGE},
        {"cuGraphExecEventRecordNodeSetEvent", GMI_GRAPH_CALL_NONE},
        {"cuGraphExecDestroy", GMI_GRAPH_CALL_DESTROY},
        {"cuGraphLaunch", GMI_GRAPH_CALL_NONE},
        {"cuGraphKernelNodeSetParams_v2", GMI_GRAPH_CALL_NONE},   /* the graph, not an instance */
        {"cuLaunchKernel", GMI_GRAPH_CALL_NONE},
        {NULL, GMI_GRAPH_CALL_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(gmi_api_graph_call(cases[i].name), cases[i].want, "%s",
                     cases[i].name ? cases[i].name : "(null)");
}

/* ---- kernels that cannot be replayed --------------------------------------------------- */

Test(inject_noreplay, collectives_by_name)
{
    gmi_noreplay nr;
    char msg[256];
    cr_assert(gmi_noreplay_init(&nr, NULL, msg, sizeof msg), "%s", msg);
    const char *nccl[] = {
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
        "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
        "void ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
        "ncclAllReduceRingLLKernel_sum_f32(ncclColl)",
    };
    for (size_t i = 0; i < sizeof nccl / sizeof nccl[0]; i++) {
        const char *w = gmi_noreplay_match(&nr, nccl[i]);
        cr_assert(w && strcmp(w, "an NCCL collective") == 0, "%s: %s", nccl[i], w ? w : "-");
    }
    cr_assert_str_eq(gmi_noreplay_match(&nr, "void nvshmemi_barrier_all_kernel()"),
                     "an NVSHMEM kernel");
    cr_assert_str_eq(gmi_noreplay_match(&nr, "void c10d::symmetric_memory::one_shot_all_reduce_"
                                             "kernel<float, 16, 2>(float**, unsigned long)"),
                     "a PyTorch symmetric-memory kernel");
    cr_assert_str_eq(gmi_noreplay_match(&nr, "void vllm::cross_device_reduce_1stage<float, 2>()"),
                     "a custom all-reduce kernel");
    const char *plain[] = {"scale_coalesced(float const*, float*, int, float)",
                           "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)",
                           "my_ncclish_thing(int)", "allreduce_in_a_block(float*)", ""};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        cr_assert_null(gmi_noreplay_match(&nr, plain[i]), "%s", plain[i]);
    cr_assert_null(gmi_noreplay_match(&nr, NULL));
    gmi_noreplay_free(&nr);
}

Test(inject_noreplay, user_regex)
{
    gmi_noreplay nr;
    char msg[256] = "";
    cr_assert(gmi_noreplay_init(&nr, "^(spin_wait|my_barrier)", msg, sizeof msg), "%s", msg);
    cr_assert_str_eq(gmi_noreplay_match(&nr, "spin_wait(int volatile*)"),
                     "it matches --no-replay");
    cr_assert_null(gmi_noreplay_match(&nr, "void spin_wait<1>(int*)"), "anchored");
    cr_assert_str_eq(gmi_noreplay_match(&nr, "ncclDevKernel_Generic()"), "an NCCL collective",
                     "the built-in list too");
    gmi_noreplay_free(&nr);
    cr_assert(!gmi_noreplay_init(&nr, "a(", msg, sizeof msg));
    cr_assert(strstr(msg, "--no-replay 'a('"), "%s", msg);
    cr_assert(!gmi_noreplay_check("[z-a]", msg, sizeof msg));
    cr_assert(gmi_noreplay_check("nccl", msg, sizeof msg));
    gmi_noreplay_free(&nr);   /* safe after a failed init */
}

Test(inject_noreplay, option_from_the_environment)
{
    S_env e = {{GMI_ENV_DIR, GMI_ENV_NO_REPLAY}, {"/d", "^spin"}};
    gmi_opts o;
    char msg[256];
    cr_assert(gmi_opts_parse(S_get, &e, &o, msg, sizeof msg), "%s", msg);
    cr_assert_str_eq(o.no_replay, "^spin");
    gmi_opts_free(&o);
    S_env bad = {{GMI_ENV_DIR, GMI_ENV_NO_REPLAY}, {"/d", "(("}};
    cr_assert(!gmi_opts_parse(S_get, &bad, &o, msg, sizeof msg));
    cr_assert(strstr(msg, "--no-replay"), "%s", msg);
    gmi_opts_free(&o);
    S_env none = {{GMI_ENV_DIR}, {"/d"}};
    cr_assert(gmi_opts_parse(S_get, &none, &o, msg, sizeof msg), "%s", msg);
    cr_assert_null(o.no_replay);
    gmi_opts_free(&o);
}

Test(inject_noreplay, status_counts_graphs_and_timed_launches)
{
    gmi_status s;
    memset(&s, 0, sizeof s);
    s.launches = 12, s.graph_launches = 2, s.graph_kernels = 4, s.timed = 3, s.captured = 2;
    char *text = gmi_status_format(&s);
    gmi_status t;
    char msg[128];
    cr_assert(gmi_status_parse(text, &t, msg, sizeof msg), "%s", msg);
    cr_assert_eq(t.graph_kernels, 4);
    cr_assert_eq(t.timed, 3);
    cr_assert_eq(t.captured, 2);
    free(text);
    /* a status file from before the counts: they read as 0 */
    cr_assert(gmi_status_parse("gpumem-report-inject 1\nlaunches 3\ngraph_launches 1\n", &t, msg,
                               sizeof msg));
    cr_assert(t.launches == 3 && t.graph_launches == 1 && t.graph_kernels == 0 && t.timed == 0);
}

Test(inject_noreplay, calls_that_share_memory_with_other_processes)
{
    cr_assert_str_eq(gmi_api_shares_memory("cuMemExportToShareableHandle"),
                     "cuMemExportToShareableHandle");
    cr_assert_str_eq(gmi_api_shares_memory("cuIpcOpenMemHandle_v2"), "cuIpcOpenMemHandle");
    cr_assert_str_eq(gmi_api_shares_memory("cuIpcGetMemHandle"), "cuIpcGetMemHandle");
    cr_assert_str_eq(gmi_api_shares_memory("cuMemGetHandleForAddressRange"),
                     "cuMemGetHandleForAddressRange");
    const char *no[] = {"cuMemCreate", "cuMemMap", "cuMemAlloc_v2", "cuIpcGetEventHandle",
                        "cuLaunchKernel", "cudaIpcGetMemHandle", "", NULL};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        cr_assert_null(gmi_api_shares_memory(no[i]), "%s", no[i] ? no[i] : "(null)");
    /* the diagnosis switch that keeps replaying */
    S_env e = {{GMI_ENV_DIR, GMI_ENV_REPLAY_SHARED}, {"/d", "1"}};
    gmi_opts o;
    char msg[256];
    cr_assert(gmi_opts_parse(S_get, &e, &o, msg, sizeof msg), "%s", msg);
    cr_assert(o.replay_shared);
    gmi_opts_free(&o);
    S_env d = {{GMI_ENV_DIR}, {"/d"}};
    cr_assert(gmi_opts_parse(S_get, &d, &o, msg, sizeof msg), "%s", msg);
    cr_assert(!o.replay_shared);
    gmi_opts_free(&o);
}

/* Kernel nodes of a graph group with their own runs in that graph, launches
 * measured in part with their own kind. */
Test(inject_noreplay, grouping_keeps_graph_and_timed_runs_apart)
{
    gm_results r;
    gmt_load_fixture("inject-collective.json", &r);
    cr_assert_eq(r.n_runs, 11);
    gmi_group(&r, false, "prog");
    size_t timed = 0, graph = 0;
    for (size_t i = 0; i < r.n_runs; i++) {
        const gm_run *run = &r.runs[i];
        if (run->not_replayed) {
            timed++;
            cr_assert_eq(run->timing.n, 2);
            cr_assert(!gm_value_present(&gm_run_metric(run, GM_M_LD_SECTORS)->value),
                      "no counter read");
            cr_assert_float_eq(gm_run_metric_num(run, GM_M_DURATION), 400000.0, 1e-6);
        }
        for (size_t k = 0; k < run->n_notes; k++)
            graph += strstr(run->notes[k], "in a CUDA graph (graph 1") != NULL;
        cr_assert_null(gm_run_param(run, "graph"), "params are dropped after grouping");
    }
    cr_assert_eq(timed, 1);
    cr_assert_eq(graph, 1, "the graph's two launches are one run of their own");
    /* the collective takes the most time: first */
    cr_assert_not_null(r.runs[0].not_replayed);
    gm_results_free(&r);
}

/* The top line, from the runs alone (reports/runs.c) */
Test(inject_noreplay, top_line_names_them_and_their_share)
{
    gm_results r;
    gmt_load_fixture("inject-collective.json", &r);
    gmi_group(&r, false, "prog");
    gm_uncounted u;
    gm_runs_uncounted(&r, &u);
    cr_assert_eq(u.n, 1);
    cr_assert_float_eq(u.ms, 0.8, 1e-9);
    cr_assert_float_eq(u.all_ms, 1.2, 1e-9);
    gm_uncounted_free(&u);
    gm_buf b = GM_BUF_INIT;
    gm_runs_uncounted_md(&b, &r);
    gmt_assert_has(b.data, "> **Not fully counted: 1 kernel, 66.7% of the GPU time.** It could "
                           "not be replayed: it ran once, as the program made it, and only its "
                           "duration was measured; no counter was read. An NCCL collective: "
                           "`ncclDevKernel_AllReduce_Sum_f32_RING_LL` (66.7%). The counts in "
                           "this report cover the other 33.3% of the GPU time.\n\n");
    gm_buf_free(&b);
    gm_charts none = {0};
    char *md = gm_render_markdown(&r, &none, "c", NULL);
    const char *top = strstr(md, "> **Not fully counted");
    cr_assert(top && top < strstr(md, "## Summary"), "%s", md);
    free(md);
    gm_results_free(&r);
    /* every run counted in full: nothing */
    gmt_load_fixture("inject-launches.json", &r);
    gm_buf none_b = GM_BUF_INIT;
    gm_runs_uncounted_md(&none_b, &r);
    cr_assert_eq(none_b.len, 0);
    gm_buf_free(&none_b);
    gm_results_free(&r);
}

#ifdef GM_HAVE_CUDA

/* ---- the command line, against a stand-in program -------------------------------- */

typedef struct {
    int rc;
    char *out, *err;
} S_result;

/* Run `sh -c` with a shell line in dir; stdout and stderr captured. */
static S_result S_sh(const char *dir, const char *line)
{
    gm_buf cmd = GM_BUF_INIT;
    gm_buf_printf(&cmd, "cd '%s' && %s > out.txt 2> err.txt", dir, line);
    int ws = system(cmd.data);
    gm_buf_free(&cmd);
    S_result r;
    r.rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    gm_buf p = GM_BUF_INIT;
    gm_buf_printf(&p, "%s/out.txt", dir);
    r.out = gmt_slurp(p.data);
    p.len = 0;
    gm_buf_printf(&p, "%s/err.txt", dir);
    r.err = gmt_slurp(p.data);
    gm_buf_free(&p);
    if (!r.out)
        r.out = gm_xstrdup("");
    if (!r.err)
        r.err = gm_xstrdup("");
    return r;
}

static void S_free(S_result *r)
{
    free(r->out);
    free(r->err);
}

static void S_rm(const char *dir)
{
    cr_assert(gmt_rmrf(dir), "cannot remove %s", dir);
}

/* gpumem-report OPTS -- fake-app.sh ARGS with the stand-in's mode and exit
 * status; the library path points at a regular file (the stand-in ignores it). */
static S_result S_app(const char *dir, const char *env, const char *opts, const char *args)
{
    char *app = gmt_src("tests/fixtures/fake-app.sh");
    char *lib = gmt_src("tests/fixtures/inject-launches.json");
    gm_buf line = GM_BUF_INIT;
    gm_buf_printf(&line, "env %s GPUMEM_REPORT_INJECT='%s' '%s' %s -- '%s' %s", env, lib,
                  gmt_bin(), opts, app, args);
    S_result r = S_sh(dir, line.data);
    gm_buf_free(&line);
    free(app);
    free(lib);
    return r;
}

static bool S_exists(const char *dir, const char *name)
{
    char *p = gmt_join(dir, name);
    bool ok = gmt_exists(p);
    free(p);
    return ok;
}

/* No gpumem-report.* directory is left in TMPDIR. */
static void S_no_leftovers(const char *tmp)
{
    DIR *d = opendir(tmp);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d));)
        cr_assert(strncmp(e->d_name, "gpumem-report.", 14) != 0, "left behind: %s", e->d_name);
    closedir(d);
}

Test(inject_cli, report_from_a_program)
{
    char *d = gmt_tmpdir("inject-test");
    gm_buf env = GM_BUF_INIT;
    gm_buf_printf(&env, "TMPDIR='%s'", d);
    S_result r = S_app(d, env.data, "--out report.md", "one 'two words'");
    cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
    cr_assert_str_eq(r.out, "fake app: one two words\n", "the program's stdout is its own");
    cr_assert(S_exists(d, "report.md") && S_exists(d, "report.json"), "%s", r.err);
    gm_buf p = GM_BUF_INIT;
    gm_buf_printf(&p, "%s/report.json", d);
    gm_results res;
    gm_error err;
    cr_assert_eq(gm_results_read_file(p.data, &res, &err), GM_OK, "%s", err.message);
    cr_assert_eq(res.n_runs, 5);
    cr_assert_str_eq(res.experiments[0].id, "fake-app.sh");
    cr_assert(strstr(res.experiments[0].summary, "default limit of 200"),
              "the limit is said: %s", res.experiments[0].summary);
    cr_assert(strstr(res.experiments[0].summary, "graphs are not profiled"));
    cr_assert_str_eq(res.collection.command[res.collection.n_command - 1], "two words");
    gm_results_free(&res);
    p.len = 0;
    gm_buf_printf(&p, "%s/report.md", d);
    char *md = gmt_slurp(p.data);
    cr_assert_not_null(md);
    cr_assert(strstr(md, "Share of GPU time"), "the program table has a time share");
    cr_assert(strstr(md, "share of the GPU time"), "and a chart of it");
    cr_assert(!strstr(md, "passed runs do the same work"), "kernels are not layouts");
    cr_assert(strstr(md, "without a reference"));
    cr_assert(!strstr(md, "FAILED") && !strstr(md, "**ERROR**"), "no run is called a failure");
    free(md);
    S_no_leftovers(d);
    gm_buf_free(&p);
    gm_buf_free(&env);
    S_free(&r);
    S_rm(d);
    free(d);
}

/* Issue 26: stderr printed kernel signatures in lines of up to 5,093
 * characters.  Every line the CLI writes about the run is at most
 * GMI_LINE_MAX bytes, and no mangled symbol reaches stderr or the report. */
Test(inject_cli, stderr_lines_are_short_and_name_kernels_readably)
{
    char *d = gmt_tmpdir("inject-test");
    gm_buf env = GM_BUF_INIT;
    gm_buf_printf(&env, "TMPDIR='%s' FAKE_MODE=mangled", d);
    S_result r = S_app(d, env.data, "--out report.md", "");
    cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
    gmt_assert_has(r.err, "launch 3 (elementwise_kernel<…>): CUPTI_ERROR_OUT_OF_MEMORY");
    gmt_assert_has(r.err, "profiling: 7 launches: session open");
    gmt_assert_lacks(r.err, "_ZN");
    for (const char *p = r.err; *p;) {
        size_t n = strcspn(p, "\n");
        cr_assert_leq(n, GMI_LINE_MAX, "a line of %zu bytes: %.*s", n, (int)n, p);
        p += n + (p[n] == '\n');
    }
    gm_buf p = GM_BUF_INIT;
    gm_buf_printf(&p, "%s/report.md", d);
    char *md = gmt_text(p.data);
    gmt_assert_has(md, "(launch 3 (elementwise\\_kernel\\<…\\>): CUPTI\\_ERROR");
    gmt_assert_lacks(md, "_ZN");
    free(md);
    gm_buf_free(&p);
    gm_buf_free(&env);
    S_free(&r);
    S_rm(d);
    free(d);
}

Test(inject_cli, exit_status_is_passed_on)
{
    char *d = gmt_tmpdir("inject-test");
    S_result r = S_app(d, "FAKE_EXIT=7", "collect --json run.json", "");
    cr_assert_eq(r.rc, 7, "stderr: %s", r.err);
    cr_assert(S_exists(d, "run.json"), "the results are still written");
    S_free(&r);
    r = S_app(d, "FAKE_EXIT=7 FAKE_MODE=none", "collect --json run2.json", "");
    cr_assert_eq(r.rc, 7, "stderr: %s", r.err);
    S_free(&r);
    S_rm(d);
    free(d);
}

/* A program that dies midway: what was profiled before is written whole,
 * the report says partial, the program's status is passed on. */
Test(inject_cli, a_program_killed_midway_leaves_partial_results)
{
    char *d = gmt_tmpdir("inject-test");
    gm_buf env = GM_BUF_INIT;
    gm_buf_printf(&env, "TMPDIR='%s' FAKE_MODE=crash", d);
    S_result r = S_app(d, env.data, "--out report.md", "");
    cr_assert_eq(r.rc, 128 + 11, "killed by SIGSEGV: 139; stderr: %s", r.err);
    cr_assert(strstr(r.err, "partial results: the program was killed by signal 11"), "%s", r.err);
    char *p = gmt_join(d, "report.json");
    gm_results res;
    gm_error err;
    cr_assert_eq(gm_results_read_file(p, &res, &err), GM_OK, "%s", err.message);
    cr_assert_eq(res.n_runs, 5, "the 7 launches written, grouped as ever");
    cr_assert_not_null(res.collection.partial);
    gmt_assert_has(res.collection.partial, "killed by signal 11 (");
    gmt_assert_has(res.collection.partial, "after 9 profiled launches; the last 2 of them had "
                                           "not been written");
    gm_results_free(&res);
    free(p);
    p = gmt_join(d, "report.md");
    char *md = gmt_text(p);
    gmt_assert_has(md, "**Partial results.**");
    gmt_assert_has(md, "killed by signal 11");
    free(md);
    free(p);
    S_no_leftovers(d);
    S_free(&r);

    /* ended without its exit handlers, status 0: partial, and 1 */
    env.len = 0;
    gm_buf_printf(&env, "TMPDIR='%s' FAKE_MODE=noexit", d);
    r = S_app(d, env.data, "collect --json run.json", "");
    cr_assert_eq(r.rc, 1, "stderr: %s", r.err);
    p = gmt_join(d, "run.json");
    cr_assert_eq(gm_results_read_file(p, &res, &err), GM_OK, "%s", err.message);
    cr_assert_not_null(res.collection.partial);
    gmt_assert_has(res.collection.partial, "ended without running its exit handlers after 9 "
                                           "profiled launches; the last 2");
    gm_results_free(&res);
    free(p);
    S_free(&r);

    /* a program that ran to its end is not partial */
    r = S_app(d, "", "collect --json whole.json", "");
    cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
    p = gmt_join(d, "whole.json");
    cr_assert_eq(gm_results_read_file(p, &res, &err), GM_OK, "%s", err.message);
    cr_assert_null(res.collection.partial);
    gm_results_free(&res);
    free(p);
    S_free(&r);
    gm_buf_free(&env);
    S_rm(d);
    free(d);
}

Test(inject_cli, launches_each_keeps_every_launch)
{
    char *d = gmt_tmpdir("inject-test");
    S_result r = S_app(d, "", "collect --launches each --json run.json", "");
    cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
    gm_buf p = GM_BUF_INIT;
    gm_buf_printf(&p, "%s/run.json", d);
    gm_results res;
    gm_error err;
    cr_assert_eq(gm_results_read_file(p.data, &res, &err), GM_OK, "%s", err.message);
    cr_assert_eq(res.n_runs, 7);
    gm_results_free(&res);
    gm_buf_free(&p);
    S_free(&r);
    S_rm(d);
    free(d);
}

static void S_fails(const char *env, const char *opts, const char *prog_line, int rc,
                    const char *expect)
{
    char *d = gmt_tmpdir("inject-test");
    S_result r;
    if (prog_line) {
        gm_buf line = GM_BUF_INIT;
        gm_buf_printf(&line, "env %s '%s' %s %s", env, gmt_bin(), opts, prog_line);
        r = S_sh(d, line.data);
        gm_buf_free(&line);
    } else {
        r = S_app(d, env, opts, "");
    }
    cr_assert_eq(r.rc, rc, "%s %s: exit %d, stderr: %s", opts, prog_line ? prog_line : "", r.rc,
                 r.err);
    cr_assert(strstr(r.err, expect), "stderr lacks '%s': %s", expect, r.err);
    cr_assert(!S_exists(d, "report.html") && !S_exists(d, "run.json"), "nothing written");
    S_free(&r);
    S_rm(d);
    free(d);
}

Test(inject_cli, errors)
{
    /* the library never ran: the program uses no CUDA */
    S_fails("FAKE_MODE=none", "--out report.html", NULL, 2, "does not seem to use CUDA");
    /* counters refused: said, exit 2 */
    S_fails("FAKE_MODE=permission", "--out report.html", NULL, 2,
            "restricted to administrators");
    /* loaded, no kernel */
    S_fails("FAKE_MODE=nolaunch", "collect --json run.json", NULL, 1, "launched no kernel");
    /* no such program, not executable, a directory */
    S_fails("", "--out report.html", "-- ./no-such-program", 2, "cannot run './no-such-program'");
    S_fails("", "--out report.html", "-- no-such-program-on-path-xyz", 2, "no such program on PATH");
    char *plain = gmt_src("tests/fixtures/inject-launches.json");
    gm_buf line = GM_BUF_INIT;
    gm_buf_printf(&line, "-- '%s'", plain);
    S_fails("", "--out report.html", line.data, 2, "not executable");
    gm_buf_free(&line);
    free(plain);
    S_fails("", "--out report.html", "-- /tmp", 2, "is a directory");
    /* options, checked before the program runs */
    S_fails("", "--kernel '(' --out r.html", "-- true", 2, "--kernel '('");
    S_fails("", "--launches some --out r.html", "-- true", 2, "not grouped or each");
    S_fails("", "--launch-count 0", "-- true", 2, "--launch-count");
    S_fails("", "--metrics 'a,,b'", "-- true", 2, "--metrics");
    S_fails("", "--out r.html --quick", "-- true", 2, "do not apply to a program");
    S_fails("", "--out r.txt", "-- true", 2, "cannot tell the format from the extension");
    S_fails("", "--out r.md --json r.md", "-- true", 2, "--json and --out name the same file");
    S_fails("", "--out r.html", "--", 2, "no program after --");
    S_fails("", "collect", "-- true", 2, "--json FILE is required");
    S_fails("GPUMEM_REPORT_INJECT=/nonexistent.so", "--out r.html", "-- true", 2,
            "GPUMEM_REPORT_INJECT=/nonexistent.so");
}

/* The report's options, shared by collect's main job and a program run
 * (gm_cli_report_opts), are refused before any GPU work: here, on a machine
 * that may have no GPU at all, the message is about the option. */
Test(inject_cli, report_options_of_the_suite_run)
{
    char *d = gmt_tmpdir("inject-test");
    const char *cases[][2] = {
        {"--out r.txt", "--out r.txt: cannot tell the format from the extension"},
        {"--out r.json", "--out r.json: cannot tell the format from the extension"},
        {"--out r.html --json r.html", "--json and --out name the same file 'r.html'"},
        {"--out r.html --template /nonexistent/t.html", "/nonexistent/t.html"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gm_buf line = GM_BUF_INIT;
        gm_buf_printf(&line, "'%s' %s", gmt_bin(), cases[i][0]);
        S_result r = S_sh(d, line.data);
        gm_buf_free(&line);
        cr_assert_eq(r.rc, 2, "%s: exit %d, stderr: %s", cases[i][0], r.rc, r.err);
        cr_assert(strstr(r.err, cases[i][1]), "%s: stderr lacks '%s': %s", cases[i][0],
                  cases[i][1], r.err);
        S_free(&r);
    }
    cr_assert(!S_exists(d, "r.html") && !S_exists(d, "r.json"), "nothing written");
    S_rm(d);
    free(d);
}

/* A program with collectives and a CUDA graph (the stand-in writes what the
 * library writes): the collectives keep their own rows, marked, and the top
 * of the report names them with their share of the GPU time. */
Test(inject_cli, collectives_are_named_at_the_top)
{
    char *d = gmt_tmpdir("inject-test");
    gm_buf env = GM_BUF_INIT;
    gm_buf_printf(&env, "TMPDIR='%s' FAKE_MODE=collective", d);
    S_result r = S_app(d, env.data, "--out report.md --no-replay '^my_barrier'", "");
    cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
    gm_buf p = GM_BUF_INIT;
    gm_buf_printf(&p, "%s/report.json", d);
    gm_results res;
    gm_error err;
    cr_assert_eq(gm_results_read_file(p.data, &res, &err), GM_OK, "%s", err.message);
    size_t marked = 0;
    for (size_t i = 0; i < res.n_runs; i++)
        if (res.runs[i].not_replayed) {
            marked++;
            cr_assert(strstr(res.runs[i].kernel, "ncclDevKernel_AllReduce"));
            cr_assert_eq(res.runs[i].timing.n, 2, "the two all-reduces are one row");
        }
    cr_assert_eq(marked, 1);
    cr_assert(strstr(res.experiments[0].summary, "It launched CUDA graphs 2 times, which ran 2 "
                     "kernel nodes"), "%s", res.experiments[0].summary);
    cr_assert(strstr(res.experiments[0].summary, "2 launches could not be replayed"), "%s",
              res.experiments[0].summary);
    gm_results_free(&res);
    p.len = 0;
    gm_buf_printf(&p, "%s/report.md", d);
    char *md = gmt_slurp(p.data);
    cr_assert_not_null(md);
    /* 0.8 ms of 1.2 ms */
    const char *top = strstr(md, "> **Not fully counted: 1 kernel, 66.7% of the GPU time.** It "
                                 "could not be replayed");
    cr_assert_not_null(top, "%s", md);
    cr_assert(top < strstr(md, "## Summary"), "at the top, before the summary");
    cr_assert(strstr(top, "An NCCL collective: `ncclDevKernel_AllReduce_Sum_f32_RING_LL` "
                          "(66.7%)."), "%s", top);
    cr_assert(strstr(md, "The counts in this report cover the other 33.3% of the GPU time."));
    free(md);
    S_no_leftovers(d);
    gm_buf_free(&p);
    gm_buf_free(&env);
    S_free(&r);
    S_rm(d);
    free(d);
}

Test(inject_cli, no_replay_regex_is_checked_before_the_program_runs)
{
    char *d = gmt_tmpdir("inject-test");
    S_result r = S_app(d, "", "--out report.md --no-replay 'a('", "");
    cr_assert_eq(r.rc, 2, "stderr: %s", r.err);
    cr_assert(strstr(r.err, "--no-replay 'a('"), "%s", r.err);
    cr_assert(!strstr(r.out, "fake app"), "the program did not run");
    S_free(&r);
    S_rm(d);
    free(d);
}

/* No directory of the per-line pass is left in TMPDIR. */
static void S_no_trace_leftovers(const char *tmp)
{
    DIR *dd = opendir(tmp);
    cr_assert_not_null(dd);
    for (struct dirent *e; (e = readdir(dd));)
        cr_assert(strncmp(e->d_name, "gpumem-trace.", 13) != 0, "left behind: %s", e->d_name);
    closedir(dd);
}

static void S_read_results(const char *dir, const char *name, gm_results *res)
{
    gm_buf p = GM_BUF_INIT;
    gm_buf_printf(&p, "%s/%s", dir, name);
    gm_error err;
    cr_assert_eq(gm_results_read_file(p.data, res, &err), GM_OK, "%s", err.message);
    gm_buf_free(&p);
}

/* The per-line counts of a program by default: one more run in trace mode
 * (the stand-in writes the tracer's records), every kernel's lines and arrays
 * from it. */
Test(inject_cli, per_line_counts_through_the_tracer)
{
    char *d = gmt_tmpdir("inject-test");
    char *tlib = gmt_src("tests/fixtures/inject-launches.json");   /* any readable file */
    gm_buf env = GM_BUF_INIT;
    gm_buf_printf(&env, "TMPDIR='%s' GPUMEM_REPORT_TRACE_LIB='%s'", d, tlib);
    S_result r = S_app(d, env.data, "--out report.md", "");
    cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
    gmt_assert_has(r.err, "the program runs once more, its kernels traced");
    gmt_assert_lacks(r.err, "SASS");
    gm_results res;
    S_read_results(d, "report.json", &res);
    cr_assert_str_eq(res.collection.source_lines_method, "trace");
    /* the stand-in keeps no launch (FAKE_CAPTURE unset): the rerun says why */
    gmt_assert_has(res.collection.source_lines_fallback,
                   "the counted run kept no launch to make again");
    cr_assert_eq(res.collection.source_lines_launches, 4);
    size_t with = 0;
    for (size_t i = 0; i < res.n_runs; i++) {
        const gm_srclines *sl = &res.runs[i].source_lines;
        if (!sl->present)
            continue;
        with++;
        cr_assert_str_eq(sl->status, "collected", "%s", sl->note ? sl->note : "");
        if (strncmp(res.runs[i].kernel, "scale_strided", 13) == 0)
            cr_assert_str_eq(sl->allocs[0].name, "in");
    }
    cr_assert_eq(with, 3, "the first run of each of the 3 kernels");
    gm_results_free(&res);
    char *md = gmt_join(d, "report.md");
    char *text = gmt_text(md);
    gmt_assert_has(text, "**The array that wastes the most**");
    gmt_assert_has(text, "| `uncoalesced` | `in` | 16.0 MiB | read | 3,670,016 sectors |");
    gmt_assert_has(text, "traced in place with the Compute Sanitizer's tracer");
    free(text);
    free(md);
    S_free(&r);
    S_no_leftovers(d);
    S_no_trace_leftovers(d);
    gm_buf_free(&env);
    free(tlib);
    S_rm(d);
    free(d);
}

/* The per-line pass of a program first makes the launches the counted run
 * kept again (collectors/replay_file.h); where it cannot (here: a launch no
 * GPU runs, or none kept because its memory was too large) the program runs
 * once more in trace mode, and the results and the report say why.  No file
 * is left in TMPDIR. */
Test(inject_cli, per_line_counts_rerun_the_program_when_the_kept_launches_cannot_run)
{
    gmt_deadline(120);
    char *d = gmt_tmpdir("inject-test");
    char *tlib = gmt_src("tests/fixtures/inject-launches.json");   /* not a library */
    const struct {
        const char *capture, *why;
    } cases[] = {
        {"kept", "no kept launch could be made again and traced"},
        {"skipped", "the counted run kept no launch to make again: the memory its arguments "
                    "point into is larger than the 2 GiB kept for a launch"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gm_buf env = GM_BUF_INIT, opts = GM_BUF_INIT, name = GM_BUF_INIT;
        gm_buf_printf(&env, "TMPDIR='%s' GPUMEM_REPORT_TRACE_LIB='%s' FAKE_CAPTURE=%s", d, tlib,
                      cases[i].capture);
        gm_buf_printf(&name, "c%zu", i);
        gm_buf_printf(&opts, "--out %s.md", name.data);
        S_result r = S_app(d, env.data, opts.data, "");
        cr_assert_eq(r.rc, 0, "case %zu: stderr: %s", i, r.err);
        gmt_assert_has(r.err, "source lines: the kept launches were not made again");
        gmt_assert_has(r.err, cases[i].why);
        gmt_assert_has(r.err, "the program runs once more, its kernels traced");
        gm_results res;
        gm_buf_puts(&name, ".json");
        S_read_results(d, name.data, &res);
        cr_assert_str_eq(res.collection.source_lines_method, "trace", "case %zu", i);
        gmt_assert_has(res.collection.source_lines_fallback, cases[i].why);
        size_t got = 0;
        for (size_t k = 0; k < res.n_runs; k++)
            got += res.runs[k].source_lines.present &&
                   strcmp(res.runs[k].source_lines.status, "collected") == 0;
        cr_assert_eq(got, 3, "case %zu: the rerun counted the 3 kernels", i);
        gm_results_free(&res);
        gm_buf md = GM_BUF_INIT;
        gm_buf_printf(&md, "%s/c%zu.md", d, i);
        char *text = gmt_text(md.data);
        gmt_assert_has(text, "were not made again");
        free(text);
        gm_buf_free(&md);
        S_free(&r);
        gm_buf_free(&env);
        gm_buf_free(&opts);
        gm_buf_free(&name);
    }
    S_no_leftovers(d);
    S_no_trace_leftovers(d);
    free(tlib);
    S_rm(d);
    free(d);
}

/* Kernels without line info (issue 25), on both paths: the stand-in writes
 * records without lines and a cubin beside them; the CLI runs nvdisasm (a
 * stand-in printing nvdisasm-lab-sm90.txt) on it and each row gets its
 * instruction as text, the counts as they were; a failing nvdisasm leaves
 * the text out and the note says why.  No file is left in TMPDIR. */
Test(inject_cli, per_line_rows_without_line_info_get_their_instruction)
{
    gmt_deadline(120);
    char *d = gmt_tmpdir("inject-test");
    char *tlib = gmt_src("tests/fixtures/inject-launches.json");
    char *nvd = gmt_src("tests/fixtures/fake-nvdisasm.sh");
    const struct {
        const char *env, *opts, *method;
        bool text;
    } cases[] = {
        {"FAKE_TRACE=nolineinfo", "", "trace", true},
        {"FAKE_SASS=nolineinfo", "--source-lines sass", "sass", true},
        {"FAKE_TRACE=nolineinfo FAKE_NVDISASM=fail", "", "trace", false},
        {"FAKE_SASS=nolineinfo FAKE_NVDISASM=fail", "--source-lines sass", "sass", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gm_buf env = GM_BUF_INIT, opts = GM_BUF_INIT, name = GM_BUF_INIT;
        gm_buf_printf(&env, "TMPDIR='%s' GPUMEM_REPORT_TRACE_LIB='%s' GPUMEM_REPORT_NVDISASM='%s' %s",
                      d, tlib, nvd, cases[i].env);
        gm_buf_printf(&name, "r%zu", i);
        gm_buf_printf(&opts, "--out %s.md %s", name.data, cases[i].opts);
        S_result r = S_app(d, env.data, opts.data, "");
        cr_assert_eq(r.rc, 0, "case %zu: stderr: %s", i, r.err);
        gm_results res;
        gm_buf_puts(&name, ".json");
        S_read_results(d, name.data, &res);
        cr_assert_str_eq(res.collection.source_lines_method, cases[i].method, "case %zu", i);
        const gm_srclines *strided = NULL;
        for (size_t k = 0; k < res.n_runs && !strided; k++)
            if (res.runs[k].source_lines.present &&
                strncmp(res.runs[k].kernel, "scale_strided", 13) == 0)
                strided = &res.runs[k].source_lines;
        cr_assert_not_null(strided, "case %zu", i);
        cr_assert_str_eq(strided->status, "collected", "case %zu: %s", i,
                         strided->note ? strided->note : "");
        cr_assert_not(strided->line_info);
        cr_assert_eq(strided->n_lines, 2, "case %zu", i);
        const gm_srcline *ld = &strided->lines[0], *st = &strided->lines[1];
        cr_assert_eq(ld->line, 0);
        cr_assert_eq(ld->pc, 0x160);
        cr_assert_null(ld->file);
        cr_assert_eq(ld->count[GM_SL_SECTORS], 1048576, "counts as recorded");
        cr_assert_eq(st->pc, 0x190);
        if (cases[i].text) {
            cr_assert_str_eq(ld->text, "LDG.E R2, desc[UR4][R2.64]", "case %zu", i);
            cr_assert_str_eq(st->text, "STG.E desc[UR4][R4.64], R7");
            gmt_assert_has(strided->note, "; the instruction text is from nvdisasm");
        } else {
            cr_assert_null(ld->text);
            gmt_assert_has(strided->note, "; no instruction text: nvdisasm failed (exit status "
                                          "1): nvdisasm fatal");
        }
        gm_results_free(&res);
        char *md = gmt_join(d, "r0.md");
        if (i == 0) {
            char *text = gmt_text(md);
            gmt_assert_has(text, "| `scale_strided+0x160` | `LDG.E R2, desc[UR4][R2.64]` |");
            gmt_assert_lacks(text, "_Z13scale_strided");
            free(text);
        }
        free(md);
        S_free(&r);
        gm_buf_free(&env);
        gm_buf_free(&opts);
        gm_buf_free(&name);
    }
    S_no_leftovers(d);
    S_no_trace_leftovers(d);
    DIR *dd = opendir(d);
    cr_assert_not_null(dd);
    for (struct dirent *e; (e = readdir(dd));)
        cr_assert(strncmp(e->d_name, "gpumem-sass.", 12) != 0 && !strstr(e->d_name, ".cubin"),
                  "left behind: %s", e->d_name);
    closedir(dd);
    free(nvd);
    free(tlib);
    S_rm(d);
    free(d);
}

/* A traced run that never ends is stopped at its limit
 * (GPUMEM_REPORT_TRACE_TIMEOUT here; ten times the counted run, at least
 * 120 s, by default): the tool ends, what was traced by then is kept, and the
 * kernels it did not reach say why. */
Test(inject_cli, a_traced_run_that_never_ends_is_stopped)
{
    gmt_deadline(60);
    char *d = gmt_tmpdir("inject-test");
    char *tlib = gmt_src("tests/fixtures/inject-launches.json");
    gm_buf env = GM_BUF_INIT;
    gm_buf_printf(&env, "TMPDIR='%s' GPUMEM_REPORT_TRACE_LIB='%s' FAKE_TRACE=hang "
                        "GPUMEM_REPORT_TRACE_TIMEOUT=2", d, tlib);
    S_result r = S_app(d, env.data, "--out r.md", "");
    cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
    gm_results res;
    S_read_results(d, "r.json", &res);
    size_t collected = 0, stopped = 0;
    for (size_t k = 0; k < res.n_runs; k++) {
        const gm_srclines *sl = &res.runs[k].source_lines;
        if (!sl->present)
            continue;
        if (strcmp(sl->status, "collected") == 0) {
            collected++;
            cr_assert(strncmp(res.runs[k].kernel, "scale_coalesced", 15) == 0);
        } else {
            stopped++;
            gmt_assert_has(sl->note, "exit status 124: stopped after 2 s");
        }
    }
    cr_assert_eq(collected, 1);
    cr_assert_geq(stopped, 2);
    gm_results_free(&res);
    S_free(&r);
    gm_buf_free(&env);
    S_no_leftovers(d);
    S_no_trace_leftovers(d);
    free(tlib);
    S_rm(d);
    free(d);
}

/* Where the tracer cannot count, the SASS path does, and stderr and the
 * results say why; --source-lines sass asks for it; a bad value is refused. */
Test(inject_cli, per_line_counts_fall_back_to_sass)
{
    char *d = gmt_tmpdir("inject-test");
    char *tlib = gmt_src("tests/fixtures/inject-launches.json");
    const char *sass = "counting each kernel in a run of its own under CUPTI's SASS metrics "
                       "instead";
    struct {
        const char *env;
        bool lib;   /* GPUMEM_REPORT_TRACE_LIB names a readable file */
        const char *opts, *says, *fallback;
    } cases[] = {
        {"FAKE_TRACE=unavailable", true, "",
         "the Compute Sanitizer tracer is unavailable: cannot load libgpumem-trace.so: "
         "libsanitizer-public.so: cannot open shared object file", "unavailable"},
        {"FAKE_TRACE=none", true, "", "the traced run wrote no records", "wrote no records"},
        {"FAKE_TRACE=failed", true, "", "the Compute Sanitizer tracer failed: Compute Sanitizer "
         "API: sanitizerMemcpyDeviceToHost failed", "tracer failed"},
        {"GPUMEM_REPORT_TRACE_LIB=", false, "", "the tracer's library libgpumem-trace.so is "
         "not installed", "not installed"},
        {"", true, "--source-lines sass", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gm_buf env = GM_BUF_INIT, opts = GM_BUF_INIT;
        gm_buf_printf(&env, "TMPDIR='%s' %s", d, cases[i].env);
        if (cases[i].lib)
            gm_buf_printf(&env, " GPUMEM_REPORT_TRACE_LIB='%s'", tlib);
        gm_buf_printf(&opts, "collect --json r%zu.json %s", i, cases[i].opts);
        S_result r = S_app(d, env.data, opts.data, "");
        cr_assert_eq(r.rc, 0, "case %zu: stderr: %s", i, r.err);
        gm_results res;
        gm_buf name = GM_BUF_INIT;
        gm_buf_printf(&name, "r%zu.json", i);
        S_read_results(d, name.data, &res);
        cr_assert_str_eq(res.collection.source_lines_method, "sass");
        if (cases[i].says) {
            /* stderr wraps long lines (a continuation starts "\n  "): read it whole */
            gm_buf whole = GM_BUF_INIT;
            for (const char *q = r.err; *q; q++) {
                if (q[0] == '\n' && q[1] == ' ' && q[2] == ' ') {
                    gm_buf_putc(&whole, ' ');
                    q += 2;
                } else {
                    gm_buf_putc(&whole, *q);
                }
            }
            gmt_assert_has(whole.data, cases[i].says);
            gmt_assert_has(whole.data, sass);
            gm_buf_free(&whole);
            gmt_assert_has(res.collection.source_lines_fallback, cases[i].fallback);
        } else {
            gmt_assert_lacks(r.err, "traced");
            gmt_assert_lacks(r.err, "instead");
            cr_assert_null(res.collection.source_lines_fallback);
        }
        gm_results_free(&res);
        gm_buf_free(&name);
        S_free(&r);
        gm_buf_free(&env);
        gm_buf_free(&opts);
    }
    S_no_trace_leftovers(d);
    S_result r = S_app(d, "", "collect --json x.json --source-lines ptx", "");
    cr_assert_eq(r.rc, 2);
    gmt_assert_has(r.err, "--source-lines: 'ptx' is not trace or sass");
    S_free(&r);
    free(tlib);
    S_rm(d);
    free(d);
}

#else

Test(inject_cli, collectives_are_named_at_the_top)
{
    cr_skip_test("`gpumem-report -- PROGRAM` is built only with the CUDA toolkit (nvcc)");
}

Test(inject_cli, per_line_counts_through_the_tracer)
{
    cr_skip_test("`gpumem-report -- PROGRAM` is built only with the CUDA toolkit (nvcc)");
}

Test(inject_cli, no_replay_regex_is_checked_before_the_program_runs)
{
    cr_skip_test("`gpumem-report -- PROGRAM` is built only with the CUDA toolkit (nvcc)");
}

Test(inject_cli, per_line_counts_fall_back_to_sass)
{
    cr_skip_test("`gpumem-report -- PROGRAM` is built only with the CUDA toolkit (nvcc)");
}

Test(inject_cli, report_from_a_program)
{
    cr_skip_test("`gpumem-report -- PROGRAM` is built only with the CUDA toolkit (nvcc)");
}

Test(inject_cli, exit_status_is_passed_on)
{
    cr_skip_test("`gpumem-report -- PROGRAM` is built only with the CUDA toolkit (nvcc)");
}

Test(inject_cli, a_program_killed_midway_leaves_partial_results)
{
    cr_skip_test("`gpumem-report -- PROGRAM` is built only with the CUDA toolkit (nvcc)");
}

Test(inject_cli, launches_each_keeps_every_launch)
{
    cr_skip_test("`gpumem-report -- PROGRAM` is built only with the CUDA toolkit (nvcc)");
}

Test(inject_cli, errors)
{
    cr_skip_test("`gpumem-report -- PROGRAM` is built only with the CUDA toolkit (nvcc)");
}

Test(inject_cli, report_options_of_the_suite_run)
{
    cr_skip_test("`gpumem-report -- PROGRAM` is built only with the CUDA toolkit (nvcc)");
}

#endif

/* ---- the program's report ------------------------------------------------------------ */

#include "../core/escape.h"
#include "../reports/render.h"

/* The fixture with launch 2 and 3's kernel a 2 KB template, grouped as the
 * CLI groups it. */
static char *S_long_kernel(gm_results *r)
{
    gmt_load_fixture("inject-launches.json", r);
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, ");
    while (b.len < 2048)
        gm_buf_puts(&b, "at::native::MeanOps<float, float, float, float>, ");
    gm_buf_puts(&b, "unsigned int, float, 4, 4>>(at::native::ReduceOp<float>)");
    for (size_t i = 0; i < r->n_runs; i++) {
        long long l = gm_run_param(&r->runs[i], "launch")->value.i;
        if (l == 2 || l == 3) {
            free(r->runs[i].kernel);
            r->runs[i].kernel = gm_xstrdup(b.data);
            gm_run_remove_param_for_test(&r->runs[i], "range");
        }
    }
    gmi_group(r, false, "prog");
    return gm_buf_detach(&b);
}

static size_t S_count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

Test(inject_report, long_template_is_short_with_the_signature_folded_once)
{
    gm_results r;
    char *full = S_long_kernel(&r);
    cr_assert_geq(strlen(full), 2048);
    gm_charts none = {0};
    char *md = gm_render_markdown(&r, &none, "c", NULL);
    /* the row, the summary and the findings say the short name */
    cr_assert(strstr(md, "| `reduce_kernel<…>` |"), "%s", md);
    /* the full signature: once, in the list after the table */
    gm_buf esc = GM_BUF_INIT;
    gm_esc_md_code(&esc, full);
    cr_assert_eq(S_count(md, esc.data), 1, "the full signature once in the Markdown");
    cr_assert(strstr(md, "Full signatures of the"), "%s", md);
    /* no line of the document holds the 2 KB name more than once, and the table's
     * rows are short */
    for (const char *line = md; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (line[0] == '|')
            cr_assert_lt(len, 600, "a table row of %zu bytes", len);
        line = eol ? eol + 1 : NULL;
    }
    char *html = NULL;
    gm_error err;
    cr_assert_eq(gm_render_html(&r, &none, "<html>{{body}}</html>", NULL, &html, &err), GM_OK,
                 "%s", err.message);
    cr_assert_eq(S_count(html, "<details class=\"signatures\">"), 1);
    /* (the table's second half, the other counters, is folded too) */
    const char *d = strstr(html, "<details class=\"signatures\">");
    const char *sig = d ? strstr(d, "at::native::MeanOps") : NULL;
    cr_assert(d && sig && sig < strstr(d, "</details>"), "the signature is inside the fold");
    cr_assert_null(strstr(html, "gm-details"), "no placeholder left");
    free(html);
    gm_buf_free(&esc);
    free(md);
    free(full);
    gm_results_free(&r);
}

Test(inject_report, rows_by_time_share_and_per_launch_columns)
{
    gm_results r;
    char *full = S_long_kernel(&r);
    /* the file order reversed: the report orders by time all the same */
    for (size_t i = 0; i < r.n_runs / 2; i++) {
        gm_run t = r.runs[i];
        r.runs[i] = r.runs[r.n_runs - 1 - i];
        r.runs[r.n_runs - 1 - i] = t;
    }
    gm_charts none = {0};
    char *md = gm_render_markdown(&r, &none, "c", NULL);
    const char *tab = strstr(md, "| Variant | Launches |");
    cr_assert_not_null(tab, "%s", md);
    cr_assert(strstr(tab, "GPU time, all launches"));
    /* 180, 60, (60: equal times keep the file's order), 50, 10 µs */
    const char *order[] = {"| `reduce_kernel<…>` |", "| `shared-unpadded` |", "| `coalesced` |",
                           "| `scale_coalesced` |"};
    const char *prev = tab;
    for (size_t i = 0; i < 4; i++) {
        const char *at = strstr(tab, order[i]);
        cr_assert(at && at > prev, "row %s in time order", order[i]);
        prev = at;
    }
    /* the summary: the kernels that make up 95 % of the time, the rest folded */
    cr_assert(strstr(md, "`reduce_kernel<…>` (50.0%)"), "%s", md);
    cr_assert(strstr(md, "1 more kernel takes the other 2.8%"), "%s", md);
    free(md);
    free(full);
    gm_results_free(&r);
}
