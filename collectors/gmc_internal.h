/* gmc_internal.h — the collector's CPU-side pieces (gmc_util.c): error
 * mapping, the range-to-launch map, small parsers.  They touch no GPU, so
 * tests/test_collector.c exercises them on CI without a driver.
 */
#ifndef GMC_INTERNAL_H
#define GMC_INTERNAL_H

#include "gm_collector.h"

#include <cupti_callbacks.h>

#include <stdbool.h>
#include <stddef.h>

/* Fill err (when non-NULL) and return status. */
gmc_status gmc_fail(gmc_error *err, gmc_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Status for a cudaError_t / CUptiResult value (passed as int so the tests
 * need no CUDA call). */
gmc_status gmc_status_from_cuda(int cuda_error);
gmc_status gmc_status_from_cupti(int cupti_result);

/* Failure of CUDA call `expr` at file:line: maps the code to a status and
 * writes a message with the expression, the code's name and description, and
 * what to do about it where there is something to do. */
gmc_status gmc_fail_cuda(gmc_error *err, int cuda_error, const char *code_name,
                         const char *description, const char *expr, const char *file, int line);
gmc_status gmc_fail_cupti(gmc_error *err, int cupti_result, const char *description,
                          const char *expr, const char *file, int line);

/* The fix for CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, as one paragraph. */
extern const char gmc_permission_help[];

/* ---- mapping ranges to launches ------------------------------------------ */

typedef enum {
    GMC_PHASE_NONE = 0,   /* outside a batch: not logged */
    GMC_PHASE_PREPARE,    /* inside prepare(user, i) */
    GMC_PHASE_FLUSH,      /* the collector's L2 flush before launch i */
    GMC_PHASE_LAUNCH      /* inside launch(user, i) */
} gmc_phase;

const char *gmc_phase_name(gmc_phase p);

/* One kernel launch seen during a pass, in launch order.  In auto-range mode
 * the k-th kernel of a pass is the k-th range of the counter data. */
typedef struct {
    gmc_phase phase;
    size_t index;         /* which launch of the batch it belongs to */
    char kernel[96];      /* symbol name as the driver saw it (truncated) */
} gmc_kernel_record;

/* From the log of one pass, find the range of each launch: range_of_launch[i]
 * = position of the one LAUNCH record with index i.  GMC_ERR_LAUNCH when a
 * launch enqueued no kernel or more than one (the message names the launch
 * and the kernels). */
gmc_status gmc_map_ranges(const gmc_kernel_record *log, size_t n_log, size_t n_launches,
                          size_t *range_of_launch, gmc_error *err);

/* Without launch tracking: ranges are flush_kernels flush ranges, then the
 * launch, for each launch.  Checks n_ranges against that pattern
 * (GMC_ERR_RANGES otherwise). */
gmc_status gmc_map_ranges_by_count(size_t n_ranges, size_t n_launches, unsigned flush_kernels,
                                   size_t *range_of_launch, gmc_error *err);

/* Copy the evaluated values of the launches' ranges into out (n_launches rows
 * of n_metrics), row-major.  range_values holds n_ranges rows. */
void gmc_assemble(const double *range_values, size_t n_ranges, size_t n_metrics,
                  const size_t *range_of_launch, size_t n_launches, double *out);

/* ---- kernel launches, as CUPTI's callbacks see them ---------------------- */

typedef struct {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId cbid;
} gmc_callback;

/* The API functions that launch one kernel: cuLaunchKernel and its kin
 * (Ex, Cooperative, the per-thread-stream _ptsz forms, the old cuLaunch and
 * cuLaunchGrid) in the driver domain, then cudaLaunchKernel and its kin in
 * the runtime domain.  Graph launches are not among them.  The collector and
 * the injection library both subscribe to these. */
extern const gmc_callback gmc_launch_callbacks[];
extern const size_t gmc_n_launch_callbacks;

/* Is (domain, cbid) one of gmc_launch_callbacks? */
bool gmc_is_launch_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/* ---- small parsers ---------------------------------------------------- */

/* 2 * clock (kHz * 1000) * bus width / 8 bytes per second, in GB/s (1e9);
 * 0 when either input is not positive. */
double gmc_theoretical_gbs(long long mem_clock_khz, int bus_width_bits);

/* Kernel driver version ("580.159.04") from the text of
 * /proc/driver/nvidia/version: the first token of the NVRM line made of
 * digits and at least one dot.  false (out = "") when there is none. */
bool gmc_parse_driver_version(const char *proc_text, char *out, size_t cap);

/* ncu's spelling (with --print-units base) of a unit CUPTI reports as a
 * dimension ("sectors" -> "sector", "percent" -> "%"); unknown units are
 * passed through.  Writes into buf and returns it. */
const char *gmc_unit_ncu(const char *cupti_dim_unit, char *buf, size_t cap);

/* Levenshtein distance, for "did you mean". */
size_t gmc_edit_distance(const char *a, const char *b);

/* Index of the candidate nearest to name's base (the part before the first
 * '.'), or n when there are none. */
size_t gmc_nearest_metric(const char *name, const char *const *base_names, size_t n);

#endif
