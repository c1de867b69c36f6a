/* test_collector.c — the collector's CPU-side parts, without a GPU: metric
 * list parsing, status and error mapping (CUDA and CUPTI codes to statuses
 * and messages a user can act on), the map from profiler ranges to launches
 * and the assembly of values, small parsers (driver version, units, peak
 * bandwidth), argument checks that happen before any CUDA call, and, on a
 * machine without an NVIDIA driver, that opening a session fails cleanly.
 * The GPU side is tested by tests/gpu/collector_vs_ncu against ncu. */
#include <criterion/criterion.h>

#include "../collectors/gmc_internal.h"

/* Tests of the tables of CUDA and CUPTI constants (gmc_codes.c) and of the
 * session's argument checks (gmc_cupti.c) need the toolkit; without it each
 * is listed as skipped, with the reason. */
#ifdef GM_HAVE_CUDA
#include "../collectors/gmc_codes.h"

#include <cupti_driver_cbid.h>
#include <cupti_result.h>
#include <cupti_runtime_cbid.h>
#include <driver_types.h>
#endif
#define S_NO_TOOLKIT "needs the CUDA toolkit's headers and the collector (built only with nvcc)"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- metric lists ------------------------------------------------------------ */

Test(collector_metric_list, parses_names_and_trims_spaces)
{
    char **names = NULL;
    size_t n = 0;
    gmc_error err;
    cr_assert_eq(gmc_metric_list_parse(" dram__bytes_read.sum ,lts__t_sector_hit_rate.pct,"
                                       "gpu__time_duration.sum",
                                       &names, &n, &err),
                 GMC_OK);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(names[0], "dram__bytes_read.sum");
    cr_assert_str_eq(names[1], "lts__t_sector_hit_rate.pct");
    cr_assert_str_eq(names[2], "gpu__time_duration.sum");
    gmc_metric_list_free(names, n);
}

Test(collector_metric_list, one_name)
{
    char **names = NULL;
    size_t n = 0;
    cr_assert_eq(gmc_metric_list_parse("sm__warps_active.avg.pct_of_peak_sustained_active", &names,
                                       &n, NULL),
                 GMC_OK);
    cr_assert_eq(n, 1);
    gmc_metric_list_free(names, n);
}

static void S_bad_list(const char *list, const char *expect_in_message)
{
    char **names = (char **)1;
    size_t n = 99;
    gmc_error err = {GMC_OK, ""};
    gmc_status st = gmc_metric_list_parse(list, &names, &n, &err);
    cr_assert_eq(st, GMC_ERR_BAD_METRIC_LIST, "'%s' gave %s", list, gmc_status_name(st));
    cr_assert_eq(err.status, GMC_ERR_BAD_METRIC_LIST);
    cr_assert_null(names);
    cr_assert_eq(n, 0);
    cr_assert(strstr(err.message, expect_in_message), "'%s' not in: %s", expect_in_message,
              err.message);
}

Test(collector_metric_list, empty_fields_name_their_column)
{
    S_bad_list("", "the list is empty");
    S_bad_list("a.sum,,b.sum", "field 2 (column 7)");
    S_bad_list("a.sum, ", "field 2");
    S_bad_list(",a.sum", "field 1 (column 1)");
}

Test(collector_metric_list, bad_characters_are_named)
{
    S_bad_list("dram__bytes_read.sum,dram bytes", "'dram bytes' (field 2, column 22)");
    S_bad_list("regex:dram__.*", "regex:");
    S_bad_list("a.sum;b.sum", "';'");
}

Test(collector_metric_list, dots_at_the_ends_and_duplicates)
{
    S_bad_list(".sum", "begins or ends with '.'");
    S_bad_list("dram__bytes_read.", "begins or ends with '.'");
    S_bad_list("a.sum,b.sum,a.sum", "'a.sum' is given twice (fields 1 and 3)");
}

Test(collector_metric_list, null_arguments)
{
    char **names;
    size_t n;
    cr_assert_eq(gmc_metric_list_parse(NULL, &names, &n, NULL), GMC_ERR_ARG);
    cr_assert_eq(gmc_metric_list_parse("a.sum", NULL, &n, NULL), GMC_ERR_ARG);
    gmc_metric_list_free(NULL, 0);
}

/* ---- statuses and error messages --------------------------------------------- */

Test(collector_errors, every_status_has_its_own_name)
{
    const char *seen[GMC_ERR_ARG + 1];
    for (int s = GMC_OK; s <= GMC_ERR_ARG; s++) {
        seen[s] = gmc_status_name((gmc_status)s);
        cr_assert_str_neq(seen[s], "unknown-status");
        for (int t = 0; t < s; t++)
            cr_assert_str_neq(seen[s], seen[t]);
    }
    cr_assert_str_eq(gmc_status_name((gmc_status)1000), "unknown-status");
}

#ifdef GM_HAVE_CUDA

Test(collector_errors, cuda_codes_map_to_statuses)
{
    cr_assert_eq(gmc_status_from_cuda(cudaSuccess), GMC_OK);
    cr_assert_eq(gmc_status_from_cuda(cudaErrorInsufficientDriver), GMC_ERR_NO_DRIVER);
    cr_assert_eq(gmc_status_from_cuda(cudaErrorStubLibrary), GMC_ERR_NO_DRIVER);
    cr_assert_eq(gmc_status_from_cuda(cudaErrorNoDevice), GMC_ERR_NO_DEVICE);
    cr_assert_eq(gmc_status_from_cuda(cudaErrorInvalidDevice), GMC_ERR_NO_DEVICE);
    cr_assert_eq(gmc_status_from_cuda(cudaErrorMemoryAllocation), GMC_ERR_NOMEM);
    cr_assert_eq(gmc_status_from_cuda(cudaErrorLaunchFailure), GMC_ERR_CUDA);
}

Test(collector_errors, cuda_message_has_expression_place_and_advice)
{
    gmc_error err;
    gmc_status st = gmc_fail_cuda(&err, cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
                                  "CUDA driver version is insufficient", "cudaGetDeviceCount(&n)",
                                  "collectors/x.c", 42);
    cr_assert_eq(st, GMC_ERR_NO_DRIVER);
    cr_assert_eq(err.status, GMC_ERR_NO_DRIVER);
    cr_assert(strstr(err.message, "collectors/x.c:42: cudaGetDeviceCount(&n)"), "%s", err.message);
    cr_assert(strstr(err.message, "cudaErrorInsufficientDriver, 35"), "%s", err.message);
    cr_assert(strstr(err.message, "install"), "%s", err.message);
    /* a failure is never reported as success, whatever code it carries */
    cr_assert_eq(gmc_fail_cuda(&err, cudaSuccess, "cudaSuccess", "no error", "x", "f", 1),
                 GMC_ERR_CUDA);
}

Test(collector_errors, cupti_codes_map_to_statuses)
{
    cr_assert_eq(gmc_status_from_cupti(CUPTI_SUCCESS), GMC_OK);
    cr_assert_eq(gmc_status_from_cupti(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), GMC_ERR_PERMISSION);
    cr_assert_eq(gmc_status_from_cupti(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES),
                 GMC_ERR_PERMISSION);
    cr_assert_eq(gmc_status_from_cupti(CUPTI_ERROR_INVALID_METRIC_NAME), GMC_ERR_UNKNOWN_METRIC);
    cr_assert_eq(gmc_status_from_cupti(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED),
                 GMC_ERR_UNSUPPORTED_DEVICE);
    cr_assert_eq(gmc_status_from_cupti(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED),
                 GMC_ERR_UNSUPPORTED_DEVICE);
    cr_assert_eq(gmc_status_from_cupti(CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED),
                 GMC_ERR_UNSUPPORTED_DEVICE);
    cr_assert_eq(gmc_status_from_cupti(CUPTI_ERROR_OUT_OF_MEMORY), GMC_ERR_NOMEM);
    cr_assert_eq(gmc_status_from_cupti(CUPTI_ERROR_HARDWARE_BUSY), GMC_ERR_BUSY);
    cr_assert_eq(gmc_status_from_cupti(CUPTI_ERROR_UNKNOWN), GMC_ERR_CUPTI);
    cr_assert_eq(gmc_status_from_cupti(CUPTI_ERROR_INVALID_PARAMETER), GMC_ERR_CUPTI);
}

Test(collector_errors, permission_message_says_how_to_fix_it)
{
    gmc_error err;
    gmc_status st = gmc_fail_cupti(&err, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
                                   "insufficient privileges", "cuptiRangeProfilerEnable(&p)",
                                   "collectors/gmc_cupti.c", 7);
    cr_assert_eq(st, GMC_ERR_PERMISSION);
    const char *needed[] = {"cuptiRangeProfilerEnable(&p)", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES",
                            "root", "CAP_SYS_ADMIN", "CAP_PERFMON",
                            "NVreg_RestrictProfilingToAdminUsers=0", "/etc/modprobe.d",
                            "update-initramfs", "reboot", "RmProfilingAdminOnly"};
    for (size_t k = 0; k < sizeof needed / sizeof needed[0]; k++)
        cr_assert(strstr(err.message, needed[k]), "'%s' missing from: %s", needed[k], err.message);
}

Test(collector_errors, unsupported_device_message_names_the_cases)
{
    gmc_error err;
    cr_assert_eq(gmc_fail_cupti(&err, CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, NULL, "x", "f", 1),
                 GMC_ERR_UNSUPPORTED_DEVICE);
    cr_assert(strstr(err.message, "MIG"), "%s", err.message);
    cr_assert(strstr(err.message, "vGPU"), "%s", err.message);
    cr_assert(strstr(err.message, "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED"), "%s", err.message);
}

#else

Test(collector_errors, cuda_codes_map_to_statuses)
{
    cr_skip_test(S_NO_TOOLKIT);
}

Test(collector_errors, cuda_message_has_expression_place_and_advice)
{
    cr_skip_test(S_NO_TOOLKIT);
}

Test(collector_errors, cupti_codes_map_to_statuses)
{
    cr_skip_test(S_NO_TOOLKIT);
}

Test(collector_errors, permission_message_says_how_to_fix_it)
{
    cr_skip_test(S_NO_TOOLKIT);
}

Test(collector_errors, unsupported_device_message_names_the_cases)
{
    cr_skip_test(S_NO_TOOLKIT);
}

#endif

Test(collector_errors, fail_without_a_record_still_returns_the_status)
{
    cr_assert_eq(gmc_fail(NULL, GMC_ERR_RANGES, "x %d", 1), GMC_ERR_RANGES);
}

/* ---- ranges to launches ------------------------------------------------------- */

static gmc_kernel_record S_rec(gmc_phase p, size_t i, const char *k)
{
    gmc_kernel_record r;
    memset(&r, 0, sizeof r);
    r.phase = p;
    r.index = i;
    strncpy(r.kernel, k, sizeof r.kernel - 1);
    return r;
}

Test(collector_ranges, each_launch_finds_its_range_among_flushes_and_restores)
{
    /* launch 0: flush, kernel; launch 1: a restore kernel, flush, kernel */
    gmc_kernel_record log[] = {
        S_rec(GMC_PHASE_FLUSH, 0, "gmc_l2_scrub"), S_rec(GMC_PHASE_LAUNCH, 0, "copy"),
        S_rec(GMC_PHASE_PREPARE, 1, "restore"),    S_rec(GMC_PHASE_FLUSH, 1, "gmc_l2_scrub"),
        S_rec(GMC_PHASE_LAUNCH, 1, "scale"),
    };
    size_t r[2];
    cr_assert_eq(gmc_map_ranges(log, 5, 2, r, NULL), GMC_OK);
    cr_assert_eq(r[0], 1);
    cr_assert_eq(r[1], 4);
}

Test(collector_ranges, two_kernels_in_one_launch_are_refused_by_name)
{
    gmc_kernel_record log[] = {S_rec(GMC_PHASE_LAUNCH, 0, "first_k"),
                               S_rec(GMC_PHASE_LAUNCH, 0, "second_k")};
    size_t r[1];
    gmc_error err;
    cr_assert_eq(gmc_map_ranges(log, 2, 1, r, &err), GMC_ERR_LAUNCH);
    cr_assert(strstr(err.message, "launch(user, 0)"), "%s", err.message);
    cr_assert(strstr(err.message, "first_k") && strstr(err.message, "second_k"), "%s",
              err.message);
}

Test(collector_ranges, a_launch_without_a_kernel_is_refused)
{
    gmc_kernel_record log[] = {S_rec(GMC_PHASE_LAUNCH, 0, "k"), S_rec(GMC_PHASE_FLUSH, 1, "f")};
    size_t r[2];
    gmc_error err;
    cr_assert_eq(gmc_map_ranges(log, 2, 2, r, &err), GMC_ERR_LAUNCH);
    cr_assert(strstr(err.message, "launch(user, 1) enqueued no kernel"), "%s", err.message);
}

Test(collector_ranges, an_index_outside_the_batch_is_a_range_error)
{
    gmc_kernel_record log[] = {S_rec(GMC_PHASE_LAUNCH, 3, "k")};
    size_t r[1];
    cr_assert_eq(gmc_map_ranges(log, 1, 1, r, NULL), GMC_ERR_RANGES);
}

Test(collector_ranges, by_count_follows_the_flush_pattern)
{
    size_t r[3];
    cr_assert_eq(gmc_map_ranges_by_count(6, 3, 1, r, NULL), GMC_OK);
    cr_assert_eq(r[0], 1);
    cr_assert_eq(r[1], 3);
    cr_assert_eq(r[2], 5);
    cr_assert_eq(gmc_map_ranges_by_count(9, 3, 2, r, NULL), GMC_OK);
    cr_assert_eq(r[2], 8);
    cr_assert_eq(gmc_map_ranges_by_count(3, 3, 0, r, NULL), GMC_OK);
    cr_assert_eq(r[1], 1);
}

Test(collector_ranges, by_count_refuses_a_wrong_count)
{
    size_t r[3];
    gmc_error err;
    cr_assert_eq(gmc_map_ranges_by_count(7, 3, 1, r, &err), GMC_ERR_RANGES);
    cr_assert(strstr(err.message, "7 ranges for 3 launches; expected 6"), "%s", err.message);
}

Test(collector_ranges, assemble_copies_the_launch_rows)
{
    /* 3 ranges x 2 metrics; launches are ranges 2 and 0 */
    const double rv[] = {1, 2, 3, 4, 5, 6};
    const size_t map[] = {2, 0};
    double out[4];
    gmc_assemble(rv, 3, 2, map, 2, out);
    cr_assert_eq(out[0], 5);
    cr_assert_eq(out[1], 6);
    cr_assert_eq(out[2], 1);
    cr_assert_eq(out[3], 2);
    const size_t bad[] = {3};
    gmc_assemble(rv, 3, 2, bad, 1, out);
    cr_assert(isnan(out[0]) && isnan(out[1]));
}

/* ---- launch callbacks ---------------------------------------------------------- */

#ifdef GM_HAVE_CUDA

Test(collector_launches, the_table_the_collector_and_injection_share)
{
    cr_assert(gmc_is_launch_callback(CUPTI_CB_DOMAIN_DRIVER_API,
                                     CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    cr_assert(gmc_is_launch_callback(CUPTI_CB_DOMAIN_DRIVER_API,
                                     CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz));
    cr_assert(gmc_is_launch_callback(CUPTI_CB_DOMAIN_RUNTIME_API,
                                     CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
    cr_assert(gmc_is_launch_callback(CUPTI_CB_DOMAIN_RUNTIME_API,
                                     CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000));
    /* graph launches are counted by the injection library, not profiled */
    cr_assert_not(gmc_is_launch_callback(CUPTI_CB_DOMAIN_DRIVER_API,
                                         CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch));
    /* the id is read in its domain: cuLaunchKernel's driver id (307) is no
     * runtime launch (those are 211, 214, 269, 270, 430, 431, 505, 506) */
    cr_assert_not(gmc_is_launch_callback(CUPTI_CB_DOMAIN_RUNTIME_API,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    cr_assert_not(gmc_is_launch_callback(CUPTI_CB_DOMAIN_RESOURCE,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    /* 9 driver functions, then 8 runtime ones, none twice */
    cr_assert_eq(gmc_n_launch_callbacks, 17);
    for (size_t i = 0; i < gmc_n_launch_callbacks; i++) {
        cr_assert_eq(gmc_launch_callbacks[i].domain,
                     i < 9 ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API);
        for (size_t j = 0; j < i; j++)
            cr_assert(gmc_launch_callbacks[j].domain != gmc_launch_callbacks[i].domain ||
                          gmc_launch_callbacks[j].cbid != gmc_launch_callbacks[i].cbid,
                      "entry %zu repeats entry %zu", i, j);
    }
}

#else

Test(collector_launches, the_table_the_collector_and_injection_share)
{
    cr_skip_test(S_NO_TOOLKIT);
}

#endif

/* ---- small parsers ------------------------------------------------------------ */

Test(collector_parsers, theoretical_bandwidth_of_an_h100)
{
    /* 2619 MHz HBM3, 5120-bit bus: 2 * 2.619e9 * 640 B = 3352.32 GB/s */
    cr_assert_float_eq(gmc_theoretical_gbs(2619000, 5120), 3352.32, 1e-9);
    cr_assert_eq(gmc_theoretical_gbs(0, 5120), 0.0);
    cr_assert_eq(gmc_theoretical_gbs(2619000, -1), 0.0);
}

Test(collector_parsers, driver_version_from_proc)
{
    char v[64];
    cr_assert(gmc_parse_driver_version(
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
        "(nixbld@)  \nGCC version:  gcc version 12.2.0\n",
        v, sizeof v));
    cr_assert_str_eq(v, "580.159.04");
    cr_assert(gmc_parse_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.54  "
                                       "Tue Jun  6 22:20:39 UTC 2023\n",
                                       v, sizeof v));
    cr_assert_str_eq(v, "535.54");
    cr_assert_not(gmc_parse_driver_version("no version here x86_64\n", v, sizeof v));
    cr_assert_str_eq(v, "");
    cr_assert_not(gmc_parse_driver_version(NULL, v, sizeof v));
}

Test(collector_parsers, units_as_ncu_prints_them)
{
    /* CUPTI 13.0's dimension units on GH100 -> ncu 2025.3 --print-units base */
    const char *pairs[][2] = {
        {"l2_sector", "sector"},  {"l1tex_request", ""},          {"l2_sector/l1tex_request", "sector"},
        {"percent", "%"},         {"instruction", "inst"},        {"l1data_bank_conflict", ""},
        {"l1tex_wavefront", ""},  {"byte", "byte"},               {"byte/second", "byte/s"},
        {"nanosecond", "ns"},     {"cycle", "cycle"},             {"", ""},
    };
    char buf[64];
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        cr_assert_str_eq(gmc_unit_ncu(pairs[k][0], buf, sizeof buf), pairs[k][1], "%s",
                         pairs[k][0]);
    cr_assert_str_eq(gmc_unit_ncu(NULL, buf, sizeof buf), "");
}

Test(collector_parsers, nearest_metric_for_a_misspelt_name)
{
    cr_assert_eq(gmc_edit_distance("sector", "sectors"), 1);
    cr_assert_eq(gmc_edit_distance("", "abc"), 3);
    cr_assert_eq(gmc_edit_distance("kitten", "sitting"), 3);
    const char *base[] = {"dram__bytes_read", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld",
                          "l1tex__t_requests_pipe_lsu_mem_global_op_ld"};
    cr_assert_eq(gmc_nearest_metric("l1tex__t_sector_pipe_lsu_mem_global_op_ld.sum", base, 3), 1);
    cr_assert_eq(gmc_nearest_metric("dram_bytes_read.sum", base, 3), 0);
    cr_assert_eq(gmc_nearest_metric("x.sum", base, 0), 0);
}

/* ---- checks before any CUDA call ------------------------------------------------- */

Test(collector_api, defaults)
{
    gmc_config c = gmc_config_default();
    cr_assert_eq(c.device, 0);
    cr_assert(c.flush_l2);
    cr_assert_eq(c.flush_method, GMC_FLUSH_EVICT);
    cr_assert_eq(c.max_launches, 64);
    cr_assert_eq(c.prepare_kernels, 0);
    cr_assert_null(c.metrics);
}

Test(collector_api, bad_configurations_are_refused_before_touching_the_gpu)
{
    gmc_error err;
    cr_assert_eq(gmc_config_check(NULL, &err), GMC_ERR_ARG);
    gmc_config c = gmc_config_default();
    cr_assert_eq(gmc_config_check(&c, &err), GMC_ERR_BAD_METRIC_LIST);
    const char *twice[] = {"dram__bytes_read.sum", "dram__bytes_read.sum"};
    c.metrics = twice;
    c.n_metrics = 2;
    cr_assert_eq(gmc_config_check(&c, &err), GMC_ERR_BAD_METRIC_LIST);
    cr_assert(strstr(err.message, "positions 1 and 2"), "%s", err.message);
    const char *one[] = {"dram__bytes_read.sum"};
    c.metrics = one;
    c.n_metrics = 1;
    c.max_launches = 0;
    cr_assert_eq(gmc_config_check(&c, &err), GMC_ERR_ARG);
    c.max_launches = 5000;   /* x 2 ranges > 4096 */
    cr_assert_eq(gmc_config_check(&c, &err), GMC_ERR_ARG);
    cr_assert(strstr(err.message, "4096"), "%s", err.message);
    c.max_launches = 8;
    c.flush_method = (gmc_flush_method)7;
    cr_assert_eq(gmc_config_check(&c, &err), GMC_ERR_ARG);
    c.flush_method = GMC_FLUSH_EVICT;
    cr_assert_eq(gmc_config_check(&c, &err), GMC_OK);
}

#ifdef GM_HAVE_CUDA

Test(collector_api, null_sessions)
{
    double v[1];
    gmc_error err;
    /* open applies gmc_config_check and leaves no session behind */
    gmc_session *s = (gmc_session *)1;
    cr_assert_eq(gmc_session_open(NULL, &s, &err), GMC_ERR_ARG);
    cr_assert_null(s);
    gmc_config c = gmc_config_default();
    s = (gmc_session *)1;
    cr_assert_eq(gmc_session_open(&c, &s, &err), GMC_ERR_BAD_METRIC_LIST);
    cr_assert_null(s);
    cr_assert_eq(gmc_profile_batch(NULL, 1, NULL, NULL, NULL, v, &err), GMC_ERR_ARG);
    gmc_session_close(NULL);
    cr_assert_eq(gmc_session_passes(NULL), -1);
    cr_assert_eq(gmc_session_n_metrics(NULL), 0);
    cr_assert_null(gmc_session_metric_name(NULL, 0));
    cr_assert_null(gmc_session_metric_unit(NULL, 0));
    cr_assert_null(gmc_session_kernel_name(NULL, 0));
    gmc_session_info info;
    gmc_session_info_get(NULL, &info);
    cr_assert_eq(info.range_capacity, 0);
    cr_assert_eq(gmc_device_info_get(0, NULL, &err), GMC_ERR_ARG);
}

/* Where there is no NVIDIA driver (CI), the collector links, starts and says
 * so with its own status; where there is one, this test has nothing to show. */
Test(collector_api, without_a_driver_open_fails_cleanly)
{
    if (access("/dev/nvidiactl", F_OK) == 0)
        cr_skip_test("an NVIDIA driver is present: tests/gpu/collector_vs_ncu covers this machine");
    const char *one[] = {"dram__bytes_read.sum"};
    gmc_config c = gmc_config_default();
    c.metrics = one;
    c.n_metrics = 1;
    gmc_session *s = (gmc_session *)1;
    gmc_error err;
    gmc_status st = gmc_session_open(&c, &s, &err);
    cr_assert(st == GMC_ERR_NO_DRIVER || st == GMC_ERR_NO_DEVICE, "%s: %s", gmc_status_name(st),
              err.message);
    cr_assert_null(s);
    cr_assert_str_neq(err.message, "");
    gmc_device_info info;
    st = gmc_device_info_get(0, &info, &err);
    cr_assert(st == GMC_ERR_NO_DRIVER || st == GMC_ERR_NO_DEVICE, "%s", gmc_status_name(st));
}

#else

Test(collector_api, null_sessions)
{
    cr_skip_test(S_NO_TOOLKIT);
}

Test(collector_api, without_a_driver_open_fails_cleanly)
{
    cr_skip_test(S_NO_TOOLKIT);
}

#endif
