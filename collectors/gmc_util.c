/* gmc_util.c — CPU-side parts of the collector: status names, error mapping,
 * metric-list parsing, the range-to-launch map and small parsers.  Nothing
 * here calls CUDA or CUPTI (only their headers' constants), so the unit tests
 * run it on machines without a GPU.
 */
#include "gmc_internal.h"

#include <cupti_driver_cbid.h>
#include <cupti_result.h>
#include <cupti_runtime_cbid.h>
#include <driver_types.h>

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gmc_status gmc_fail(gmc_error *err, gmc_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return status;
}

const char *gmc_status_name(gmc_status s)
{
    switch (s) {
    case GMC_OK: return "ok";
    case GMC_ERR_NO_DRIVER: return "no-driver";
    case GMC_ERR_NO_DEVICE: return "no-device";
    case GMC_ERR_UNSUPPORTED_DEVICE: return "unsupported-device";
    case GMC_ERR_PERMISSION: return "permission";
    case GMC_ERR_UNKNOWN_METRIC: return "unknown-metric";
    case GMC_ERR_BAD_METRIC_LIST: return "bad-metric-list";
    case GMC_ERR_CUDA: return "cuda";
    case GMC_ERR_CUPTI: return "cupti";
    case GMC_ERR_LAUNCH: return "launch";
    case GMC_ERR_RANGES: return "ranges";
    case GMC_ERR_NOMEM: return "nomem";
    case GMC_ERR_ARG: return "arg";
    }
    return "unknown-status";
}

/* ---- error mapping ------------------------------------------------------ */

const char gmc_permission_help[] =
    "GPU performance counters are restricted to administrators on this machine "
    "(driver setting RmProfilingAdminOnly). Either run as root or with CAP_SYS_ADMIN "
    "(CAP_PERFMON is enough from driver R565), or allow all users: add the line "
    "'options nvidia NVreg_RestrictProfilingToAdminUsers=0' to a file in /etc/modprobe.d/, "
    "run 'update-initramfs -u' and reboot. Check the setting with "
    "'grep RmProfilingAdminOnly /proc/driver/nvidia/params' (1 = admin only).";

gmc_status gmc_status_from_cuda(int e)
{
    switch (e) {
    case cudaSuccess: return GMC_OK;
    case cudaErrorInsufficientDriver:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorStubLibrary:
        return GMC_ERR_NO_DRIVER;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorDeviceUninitialized:
        return GMC_ERR_NO_DEVICE;
    case cudaErrorMemoryAllocation:
        return GMC_ERR_NOMEM;
    default:
        return GMC_ERR_CUDA;
    }
}

gmc_status gmc_status_from_cupti(int r)
{
    switch (r) {
    case CUPTI_SUCCESS: return GMC_OK;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return GMC_ERR_PERMISSION;
    case CUPTI_ERROR_INVALID_METRIC_NAME:
        return GMC_ERR_UNKNOWN_METRIC;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
        return GMC_ERR_UNSUPPORTED_DEVICE;
    case CUPTI_ERROR_OUT_OF_MEMORY:
        return GMC_ERR_NOMEM;
    default:
        return GMC_ERR_CUPTI;
    }
}

gmc_status gmc_fail_cuda(gmc_error *err, int cuda_error, const char *code_name,
                         const char *description, const char *expr, const char *file, int line)
{
    gmc_status st = gmc_status_from_cuda(cuda_error);
    if (st == GMC_OK)
        st = GMC_ERR_CUDA;   /* called on failure only; never report success */
    const char *hint = "";
    if (st == GMC_ERR_NO_DRIVER)
        hint = " -- no usable NVIDIA driver: install one that supports CUDA 13 (R580 or newer)"
               " or run where a GPU is available";
    else if (st == GMC_ERR_NO_DEVICE)
        hint = " -- no usable CUDA device: check nvidia-smi and CUDA_VISIBLE_DEVICES";
    return gmc_fail(err, st, "%s:%d: %s: %s (%s, %d)%s", file, line, expr,
                    description ? description : "?", code_name ? code_name : "?", cuda_error, hint);
}

static const char *S_cupti_code_name(int r)
{
    switch (r) {
    case CUPTI_ERROR_INVALID_PARAMETER: return "CUPTI_ERROR_INVALID_PARAMETER";
    case CUPTI_ERROR_INVALID_DEVICE: return "CUPTI_ERROR_INVALID_DEVICE";
    case CUPTI_ERROR_INVALID_CONTEXT: return "CUPTI_ERROR_INVALID_CONTEXT";
    case CUPTI_ERROR_INVALID_OPERATION: return "CUPTI_ERROR_INVALID_OPERATION";
    case CUPTI_ERROR_OUT_OF_MEMORY: return "CUPTI_ERROR_OUT_OF_MEMORY";
    case CUPTI_ERROR_NOT_INITIALIZED: return "CUPTI_ERROR_NOT_INITIALIZED";
    case CUPTI_ERROR_INVALID_METRIC_NAME: return "CUPTI_ERROR_INVALID_METRIC_NAME";
    case CUPTI_ERROR_NOT_SUPPORTED: return "CUPTI_ERROR_NOT_SUPPORTED";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: return "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: return "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES: return "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED: return "CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_INVALID_CHIP_NAME: return "CUPTI_ERROR_INVALID_CHIP_NAME";
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED: return "CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED";
    case CUPTI_ERROR_UNKNOWN: return "CUPTI_ERROR_UNKNOWN";
    default: return "CUPTI error";
    }
}

gmc_status gmc_fail_cupti(gmc_error *err, int cupti_result, const char *description,
                          const char *expr, const char *file, int line)
{
    gmc_status st = gmc_status_from_cupti(cupti_result);
    if (st == GMC_OK)
        st = GMC_ERR_CUPTI;
    const char *hint = "";
    if (st == GMC_ERR_PERMISSION)
        hint = gmc_permission_help;
    else if (st == GMC_ERR_UNSUPPORTED_DEVICE)
        hint = "The CUPTI profiler does not support this device or configuration "
               "(vGPU without profiling enabled, a MIG instance, a CMP board, SLI, WSL, "
               "confidential computing, or a GPU older than Volta).";
    return gmc_fail(err, st, "%s:%d: %s: %s (%s, %d)%s%s", file, line, expr,
                    description ? description : "?", S_cupti_code_name(cupti_result),
                    cupti_result, *hint ? ". " : "", hint);
}

/* ---- metric lists ------------------------------------------------------ */

void gmc_metric_list_free(char **names, size_t n)
{
    if (!names)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static bool S_metric_char(int c)
{
    return isalnum(c) || c == '_' || c == '.';
}

gmc_status gmc_metric_list_parse(const char *list, char ***names_out, size_t *n_out,
                                 gmc_error *err)
{
    if (!list || !names_out || !n_out)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_metric_list_parse: NULL argument");
    *names_out = NULL;
    *n_out = 0;

    size_t cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    char **names = calloc(cap, sizeof *names);
    if (!names)
        return gmc_fail(err, GMC_ERR_NOMEM, "out of memory parsing the metric list");
    size_t n = 0;
    gmc_status st = GMC_OK;

    const char *p = list;
    for (size_t field = 1;; field++) {
        const char *start = p;
        while (*p && *p != ',')
            p++;
        const char *a = start, *b = p;
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        size_t col = (size_t)(a - list) + 1;
        if (a == b) {
            st = gmc_fail(err, GMC_ERR_BAD_METRIC_LIST,
                          "metric list: empty name in field %zu (column %zu)%s", field, col,
                          *list ? "" : ": the list is empty");
            goto fail;
        }
        for (const char *q = a; q < b; q++) {
            if (!S_metric_char((unsigned char)*q)) {
                st = gmc_fail(err, GMC_ERR_BAD_METRIC_LIST,
                              "metric list: '%.*s' (field %zu, column %zu) has the character "
                              "'%c' at column %zu; metric names are letters, digits, '_' and '.'"
                              "%s",
                              (int)(b - a), a, field, col, isprint((unsigned char)*q) ? *q : '?',
                              (size_t)(q - list) + 1,
                              *q == ':' ? " (ncu's regex:/group: forms are not supported)" : "");
                goto fail;
            }
        }
        if (*a == '.' || b[-1] == '.') {
            st = gmc_fail(err, GMC_ERR_BAD_METRIC_LIST,
                          "metric list: '%.*s' (field %zu, column %zu) begins or ends with '.'",
                          (int)(b - a), a, field, col);
            goto fail;
        }
        size_t len = (size_t)(b - a);
        for (size_t k = 0; k < n; k++) {
            if (strlen(names[k]) == len && memcmp(names[k], a, len) == 0) {
                st = gmc_fail(err, GMC_ERR_BAD_METRIC_LIST,
                              "metric list: '%.*s' is given twice (fields %zu and %zu)",
                              (int)len, a, k + 1, field);
                goto fail;
            }
        }
        names[n] = malloc(len + 1);
        if (!names[n]) {
            st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory parsing the metric list");
            goto fail;
        }
        memcpy(names[n], a, len);
        names[n][len] = '\0';
        n++;
        if (!*p)
            break;
        p++;   /* past the comma */
    }
    *names_out = names;
    *n_out = n;
    return GMC_OK;
fail:
    gmc_metric_list_free(names, n);
    return st;
}

/* ---- ranges ---------------------------------------------------------------- */

const char *gmc_phase_name(gmc_phase p)
{
    switch (p) {
    case GMC_PHASE_NONE: return "outside";
    case GMC_PHASE_PREPARE: return "prepare";
    case GMC_PHASE_FLUSH: return "flush";
    case GMC_PHASE_LAUNCH: return "launch";
    }
    return "?";
}

gmc_status gmc_map_ranges(const gmc_kernel_record *log, size_t n_log, size_t n_launches,
                          size_t *range_of_launch, gmc_error *err)
{
    const size_t none = (size_t)-1;
    for (size_t i = 0; i < n_launches; i++)
        range_of_launch[i] = none;
    for (size_t k = 0; k < n_log; k++) {
        if (log[k].phase != GMC_PHASE_LAUNCH)
            continue;
        size_t i = log[k].index;
        if (i >= n_launches)
            return gmc_fail(err, GMC_ERR_RANGES,
                            "kernel %zu of the pass (%s) is logged for launch %zu of a batch of %zu",
                            k, log[k].kernel, i, n_launches);
        if (range_of_launch[i] != none)
            return gmc_fail(err, GMC_ERR_LAUNCH,
                            "launch(user, %zu) enqueued more than one kernel (%s, then %s); "
                            "it must enqueue exactly one, since each kernel is its own range",
                            i, log[range_of_launch[i]].kernel, log[k].kernel);
        range_of_launch[i] = k;
    }
    for (size_t i = 0; i < n_launches; i++)
        if (range_of_launch[i] == none)
            return gmc_fail(err, GMC_ERR_LAUNCH,
                            "launch(user, %zu) enqueued no kernel; it must enqueue exactly one", i);
    return GMC_OK;
}

gmc_status gmc_map_ranges_by_count(size_t n_ranges, size_t n_launches, unsigned flush_kernels,
                                   size_t *range_of_launch, gmc_error *err)
{
    size_t per = 1 + (size_t)flush_kernels;
    if (n_ranges != n_launches * per)
        return gmc_fail(err, GMC_ERR_RANGES,
                        "CUPTI recorded %zu ranges for %zu launches; expected %zu (%u L2-flush "
                        "kernel%s and the launch, each). Without launch tracking, prepare() must "
                        "launch no kernel and launch() exactly one",
                        n_ranges, n_launches, n_launches * per, flush_kernels,
                        flush_kernels == 1 ? "" : "s");
    for (size_t i = 0; i < n_launches; i++)
        range_of_launch[i] = i * per + (per - 1);
    return GMC_OK;
}

void gmc_assemble(const double *range_values, size_t n_ranges, size_t n_metrics,
                  const size_t *range_of_launch, size_t n_launches, double *out)
{
    for (size_t i = 0; i < n_launches; i++) {
        size_t r = range_of_launch[i];
        for (size_t m = 0; m < n_metrics; m++)
            out[i * n_metrics + m] = r < n_ranges ? range_values[r * n_metrics + m] : NAN;
    }
}

/* ---- kernel launches ------------------------------------------------------ */

const gmc_callback gmc_launch_callbacks[] = {
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunch},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000},
};
const size_t gmc_n_launch_callbacks = sizeof gmc_launch_callbacks / sizeof gmc_launch_callbacks[0];

bool gmc_is_launch_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    for (size_t i = 0; i < gmc_n_launch_callbacks; i++)
        if (gmc_launch_callbacks[i].domain == domain && gmc_launch_callbacks[i].cbid == cbid)
            return true;
    return false;
}

/* ---- small parsers ------------------------------------------------------ */

double gmc_theoretical_gbs(long long mem_clock_khz, int bus_width_bits)
{
    if (mem_clock_khz <= 0 || bus_width_bits <= 0)
        return 0.0;
    /* double data rate: two transfers per clock, bus_width/8 bytes each */
    return 2.0 * (double)mem_clock_khz * 1000.0 * ((double)bus_width_bits / 8.0) / 1e9;
}

bool gmc_parse_driver_version(const char *text, char *out, size_t cap)
{
    if (cap)
        out[0] = '\0';
    if (!text || cap == 0)
        return false;
    const char *line = strstr(text, "NVRM version:");
    const char *p = line ? line : text;
    const char *eol = strchr(p, '\n');
    if (!eol)
        eol = p + strlen(p);
    while (p < eol) {
        while (p < eol && isspace((unsigned char)*p))
            p++;
        const char *t = p;
        while (p < eol && !isspace((unsigned char)*p))
            p++;
        size_t len = (size_t)(p - t), dots = 0;
        bool ok = len > 0 && isdigit((unsigned char)t[0]) && isdigit((unsigned char)t[len - 1]);
        for (size_t k = 0; ok && k < len; k++) {
            if (t[k] == '.')
                dots++;
            else if (!isdigit((unsigned char)t[k]))
                ok = false;
        }
        if (ok && dots > 0 && len < cap) {
            memcpy(out, t, len);
            out[len] = '\0';
            return true;
        }
    }
    return false;
}

/* One component of a CUPTI dimension ("l2_sector") as ncu prints it. */
static void S_unit_part(const char *p, size_t len, char *out, size_t cap)
{
    /* CUPTI names the hardware unit before the noun; ncu drops it. */
    static const char *const prefixes[] = {"l1tex_", "l1data_", "l2_", "lts_", "dram_", "smsp_",
                                           "sm_", "gpc_", "gpu_"};
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
        size_t pl = strlen(prefixes[k]);
        if (len > pl && strncmp(p, prefixes[k], pl) == 0) {
            p += pl;
            len -= pl;
            break;
        }
    }
    /* Measured on GH100 (CUPTI 13.0 vs ncu 2025.3.1 --print-units base):
     * requests, wavefronts and bank conflicts print as dimensionless. */
    static const struct { const char *cupti, *ncu; } map[] = {
        {"sector", "sector"}, {"request", ""},       {"wavefront", ""}, {"bank_conflict", ""},
        {"instruction", "inst"}, {"nanosecond", "ns"}, {"second", "s"}, {"byte", "byte"},
        {"%", "%"}, {"percent", "%"},
    };
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
        if (strlen(map[k].cupti) == len && strncmp(p, map[k].cupti, len) == 0) {
            snprintf(out, cap, "%s", map[k].ncu);
            return;
        }
    }
    snprintf(out, cap, "%.*s", (int)len, p);
}

const char *gmc_unit_ncu(const char *dim, char *buf, size_t cap)
{
    if (cap == 0)
        return buf;
    const char *in = dim ? dim : "";
    const char *slash = strchr(in, '/');
    char num[64], den[64] = "";
    S_unit_part(in, slash ? (size_t)(slash - in) : strlen(in), num, sizeof num);
    if (slash)
        S_unit_part(slash + 1, strlen(slash + 1), den, sizeof den);
    if (*num && *den)
        snprintf(buf, cap, "%s/%s", num, den);
    else
        snprintf(buf, cap, "%s", num);
    return buf;
}

size_t gmc_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = malloc((lb + 1) * sizeof *row);
    if (!row)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    free(row);
    return d;
}

size_t gmc_nearest_metric(const char *name, const char *const *base_names, size_t n)
{
    char base[256];
    size_t len = strcspn(name, ".");
    if (len >= sizeof base)
        len = sizeof base - 1;
    memcpy(base, name, len);
    base[len] = '\0';
    size_t best = n, best_d = (size_t)-1;
    for (size_t k = 0; k < n; k++) {
        if (!base_names[k])
            continue;
        size_t d = gmc_edit_distance(base, base_names[k]);
        if (d < best_d) {
            best_d = d;
            best = k;
        }
    }
    return best;
}
