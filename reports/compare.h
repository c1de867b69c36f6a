/* compare.h — several results files, one per device, in one report: the
 * devices side by side (`gpumem-report render A.json B.json ... --out F`).
 *
 * Runs pair as diff pairs them (experiment, variant, parameters: diff.h's
 * gm_diff_run_key_cmp); a case that ran on some devices only is listed, not
 * dropped.  Times are compared raw, and normalised where that is fair:
 * effective bandwidth as a share of each device's own measured copy
 * bandwidth (its practical ceiling) for experiments that are bandwidth
 * bound, and each layout's time over its device's fastest layout of the same
 * work otherwise, so a device's speed does not hide or invent a contrast.
 */
#ifndef GM_COMPARE_H
#define GM_COMPARE_H

#include "charts.h"
#include "render.h"
#include "../core/gm_error.h"
#include "../core/results.h"

#include <stddef.h>

#define GM_COMPARE_MAX 16   /* devices in one comparison */

typedef struct {
    const gm_results *const *r;   /* n results, one per device (borrowed) */
    const char *const *names;     /* their files, as the user named them */
    size_t n;
} gm_compare_in;

/* GM_ERR_VALUE when fewer than 2 or more than GM_COMPARE_MAX files are given,
 * or a file has two runs that cannot be told apart (message names it). */
gm_status gm_compare_check(const gm_compare_in *in, gm_error *err);

/* The charts: per experiment, the layouts of the comparison group that ran
 * on every device, one bar series per device (share of own copy bandwidth,
 * or time over the device's fastest layout).  Pure. */
void gm_compare_charts_plan(const gm_compare_in *in, gm_charts *out);

/* The Markdown (chart_dir as gm_render_markdown takes it).  Pure: same
 * files, same bytes.  Caller frees. */
char *gm_compare_markdown(const gm_compare_in *in, const gm_charts *charts,
                          const char *chart_dir);

/* Check, plan, draw and write (Markdown + chart directory, or one HTML page)
 * as gm_render does; nothing half-written on failure. */
gm_status gm_compare_render(const gm_compare_in *in, const gm_render_opts *o, gm_error *err);

#endif
