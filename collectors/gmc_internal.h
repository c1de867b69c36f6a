/* gmc_internal.h — the collector's CPU-side pieces (gmc_util.c): status
 * names, the range-to-launch map, small parsers.  No CUDA or CUPTI header:
 * tests/test_collector.c exercises them on machines without the toolkit.
 * The tables of CUDA and CUPTI constants are in gmc_codes.h.
 */
#ifndef GMC_INTERNAL_H
#define GMC_INTERNAL_H

#include "gm_collector.h"

#include <stdbool.h>
#include <stddef.h>

/* Fill err (when non-NULL) and return status. */
gmc_status gmc_fail(gmc_error *err, gmc_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The checks gmc_session_open makes on a configuration before any CUDA call
 * (GMC_ERR_ARG or GMC_ERR_BAD_METRIC_LIST with a message; GMC_OK). */
gmc_status gmc_config_check(const gmc_config *cfg, gmc_error *err);

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
