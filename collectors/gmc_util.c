/* gmc_util.c — CPU-side parts of the collector: status names, the default
 * configuration, metric-list parsing, the range-to-launch map and small
 * parsers.  Plain C: no CUDA or CUPTI header, so the unit tests run it on
 * machines without the toolkit.  What needs the toolkit's constants (error
 * codes, launch callbacks) is gmc_codes.c.
 */
#include "gmc_internal.h"

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
    case GMC_ERR_BUSY: return "busy";
    case GMC_ERR_LAUNCH: return "launch";
    case GMC_ERR_RANGES: return "ranges";
    case GMC_ERR_NOMEM: return "nomem";
    case GMC_ERR_ARG: return "arg";
    }
    return "unknown-status";
}

/* ---- configuration ------------------------------------------------------- */

gmc_config gmc_config_default(void)
{
    gmc_config c;
    memset(&c, 0, sizeof c);
    c.device = 0;
    c.flush_l2 = true;
    c.flush_method = GMC_FLUSH_EVICT;
    c.max_launches = 64;
    c.prepare_kernels = 0;
    return c;
}

/* What gmc_session_open refuses before any CUDA call: a missing or empty
 * metric list, a metric named twice, no launches, an unknown flush method,
 * more ranges per batch than CUPTI's counter image takes. */
gmc_status gmc_config_check(const gmc_config *cfg, gmc_error *err)
{
    if (!cfg)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_session_open: NULL argument");
    if (!cfg->metrics || cfg->n_metrics == 0)
        return gmc_fail(err, GMC_ERR_BAD_METRIC_LIST, "no metrics to collect");
    if (cfg->max_launches == 0)
        return gmc_fail(err, GMC_ERR_ARG, "max_launches must be at least 1");
    /* CUPTI's counter image stops accepting a few thousand ranges; past 4096
     * a caller should split its launches into batches. */
    if (cfg->flush_l2 && cfg->flush_method != GMC_FLUSH_INVALIDATE &&
        cfg->flush_method != GMC_FLUSH_EVICT && cfg->flush_method != GMC_FLUSH_ASIDE)
        return gmc_fail(err, GMC_ERR_ARG, "unknown flush_method %d", (int)cfg->flush_method);
    /* Ranges per launch, at most: the launch, the flush kernels, prepare's. */
    size_t per_launch = 1 + (cfg->flush_l2 ? 2 : 0) + cfg->prepare_kernels;
    if (cfg->max_launches > 4096 / per_launch)
        return gmc_fail(err, GMC_ERR_ARG,
                        "max_launches %zu x %zu ranges per launch exceeds 4096 ranges per batch; "
                        "profile in smaller batches", cfg->max_launches, per_launch);
    for (size_t i = 0; i < cfg->n_metrics; i++)
        if (!cfg->metrics[i] || !cfg->metrics[i][0])
            return gmc_fail(err, GMC_ERR_BAD_METRIC_LIST, "metric %zu is empty", i + 1);
        else
            for (size_t j = 0; j < i; j++)
                if (strcmp(cfg->metrics[i], cfg->metrics[j]) == 0)
                    return gmc_fail(err, GMC_ERR_BAD_METRIC_LIST,
                                    "metric '%s' is given twice (positions %zu and %zu)",
                                    cfg->metrics[i], j + 1, i + 1);
    return GMC_OK;
}

/* ---- error mapping ------------------------------------------------------ */

const char gmc_permission_help[] =
    "GPU performance counters are restricted to administrators on this machine "
    "(driver setting RmProfilingAdminOnly). Either run as root or with CAP_SYS_ADMIN "
    "(CAP_PERFMON is enough from driver R565), or allow all users: add the line "
    "'options nvidia NVreg_RestrictProfilingToAdminUsers=0' to a file in /etc/modprobe.d/, "
    "run 'update-initramfs -u' and reboot. Check the setting with "
    "'grep RmProfilingAdminOnly /proc/driver/nvidia/params' (1 = admin only).";

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
