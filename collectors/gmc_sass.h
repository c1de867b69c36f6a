/* gmc_sass.h — per-instruction memory counters of one kernel through CUPTI's
 * SASS metrics API (cupti_sass_metrics.h), each instruction's PC offset mapped
 * to file and line with cuptiGetSassToSourceCorrelation on the module's cubin,
 * captured when the module loads (issue 14).
 *
 * What CUPTI 13.0 does on the H100 (bench/results/sass-probe-*.txt):
 *  - Only the first kernel function launched after cuptiSassMetricsEnable in a
 *    process is instrumented: later functions, in the same enable, in a later
 *    enable, with eager patching, with a flush between launches, or in a new
 *    context, give no records.  cuptiSassMetricsUnsetConfig followed by
 *    SetConfig fails with CUPTI_ERROR_OUT_OF_MEMORY.  A function launched
 *    before Enable is never instrumented either.
 *  - Launches of that one function inside the enable accumulate.
 *  - With lazy patching, a function loaded before the enable (launched, or
 *    queried with cudaFuncGetAttributes) is never instrumented; with eager
 *    patching it is, when its module is loaded at the enable.
 *  - What works (the lab program and every suite kernel, bench/results/
 *    srclines-vs-ncu-*.txt): subscribe before the first CUDA call, and enable
 *    (lazy) inside the driver's launch callback of the kernel's own launch,
 *    on that callback's context; collect when the launch call returns.
 *    Enabling from the host thread before setup or after it (lazy or eager)
 *    gave no records for the suite's kernels.
 *  So the tool counts each kernel in a process of its own (`gpumem-report
 *  sass-child` for the suite, the program run once more per kernel for a
 *  program), through gmc_sass_inject_start.
 *
 * Counters (GPU-level, summed over every SM): see gm_sl_counter in
 * core/results.h.  Library code: returns a status, never prints or exits.
 */
#ifndef GMC_SASS_H
#define GMC_SASS_H

#include "gm_collector.h"

#include "../core/srclines.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmc_sass gmc_sass;

/* Start instrumenting on the current context.  lazy: a function is patched at
 * its first launch, and only one that was not loaded before (a function that
 * cudaFuncGetAttributes or a launch loaded before the enable is never
 * patched); !lazy: every function of the modules loaded now is patched at once
 * (so the function must be loaded: launched or queried before).  Either way
 * only the first function launched afterwards gives records. */
gmc_status gmc_sass_enable(gmc_sass *s, bool lazy, gmc_error *err);

/* Flush, map every instruction to file:line, disable.  *recs (n of them) are
 * owned by the caller (gm_sl_records_free).  *line_info says whether the
 * correlation found lines. */
gmc_status gmc_sass_collect(gmc_sass *s, gm_sl_record **recs, size_t *n, gmc_error *err);

void gmc_sass_close(gmc_sass *s);

/* Inside someone else's program (the injection library, when the CLI asks for
 * one kernel's lines): subscribe to module loads and launches; at the first
 * launch of a function for which match(symbol, target) is true, configure and
 * enable; when that launch call returns, wait for it, collect and write the
 * records (core/srclines.h format; a "# error: ..." line when it failed) to
 * out_path through a temporary file.  Every other launch runs untouched.
 * false when CUPTI could not be subscribed to. */
bool gmc_sass_inject_start(const char *target, const char *out_path,
                           bool (*match)(const char *symbol, const char *target));

#ifdef __cplusplus
}
#endif

#endif
