/* traversal2d.c — experiment 5, row vs column mapping of a 2-D traversal: the CPU side of its
 * variants.
 *
 * The experiment as data: its description (gm_exp_traversal2d: the question, the
 * contrast that answers it, the sweep) and its rows (gm_traversal2d_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "traversal2d.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_traversal2d = {
    .id = "traversal2d",
    .title = "Row-major vs column-major thread mapping",
    .summary =
        "c = a + b over a row-major n x n matrix with the same 32x8 thread blocks; only which "
        "index the fastest thread index drives changes. Mapped along rows, a warp reads 128 "
        "contiguous bytes; mapped down columns, its 32 loads are a whole row apart and touch "
        "32 sectors for 4 useful bytes each. Neighbouring warps of a block read the "
        "neighbouring columns, so L1 and L2 recover part of the waste.",
    .source =
        "Part 17: Memory Hierarchy (CUDA course module) (2D row- vs column-major access: "
        "450 vs 90 GB/s)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "col_mapping",
    .question =
        "Over the same row-major arrays, how much does mapping a warp down a column cost "
        "against mapping it along a row?",
    .contrast_a = "col_mapping",
    .contrast_b = "row_mapping",
    .contrast_at = NULL,
    .contrast_counter = "ld_spr",
};

/* 8192^2: 256 MiB per matrix, 768 MiB moved. */
#define S_T2D_N {"n", GM_VALUES(1024, 2048, 4096, 8192), GM_VALUES(1024)}

const gm_variant gm_traversal2d_rows[] = {
    {.experiment = &gm_exp_traversal2d,
     .name = "row_mapping",
     .layout = "row-major arrays, threadIdx.x along a row: a warp reads 128 contiguous bytes",
     .params = {S_T2D_N},
     GM_FNS(traversal2d),
     .kind = GM_TRAVERSAL2D_ROW_MAPPING,
     .launch = GM_GPU(traversal2d_launch_row_mapping),
     .trace = traversal2d_trace,
     .idempotent = true},
    {.experiment = &gm_exp_traversal2d,
     .name = "col_mapping",
     .layout = "row-major arrays, threadIdx.x down a column: a warp's loads are a row apart",
     .params = {S_T2D_N},
     GM_FNS(traversal2d),
     .kind = GM_TRAVERSAL2D_COL_MAPPING,
     .launch = GM_GPU(traversal2d_launch_col_mapping),
     .trace = traversal2d_trace,
     .idempotent = true},
};
const size_t gm_traversal2d_rows_len = sizeof gm_traversal2d_rows / sizeof gm_traversal2d_rows[0];

/* ---- describe ------------------------------------------------------------- */

gm_status traversal2d_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n < 32 || n > 32768 || n % 32 != 0)
        return gm_fail(err, GM_ERR_VALUE, "traversal2d/%s: n=%lld: need a multiple of 32 in "
                       "[32, 32768]", c->variant->name, n);
    snprintf(c->kernel, sizeof c->kernel, "traversal2d_kernel_%s", c->variant->name);
    /* The same grid for both: x covers n in 32s, y covers n in 8s. */
    c->launch.grid[0] = (unsigned)(n / TRAVERSAL2D_BX);
    c->launch.grid[1] = (unsigned)((n + TRAVERSAL2D_BY - 1) / TRAVERSAL2D_BY);
    c->launch.grid[2] = 1;
    c->launch.block[0] = TRAVERSAL2D_BX;
    c->launch.block[1] = TRAVERSAL2D_BY;
    c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* a and b read once, c written once: 3 x 4n^2 bytes; one add per element. */
    c->bytes_read = 8 * n * n;
    c->bytes_written = 4 * n * n;
    c->flops = n * n;
    if (c->variant->kind == GM_TRAVERSAL2D_COL_MAPPING)
        snprintf(c->note, sizeof c->note,
                 "consecutive threads are %lld bytes apart (one row): every warp load "
                 "touches 32 sectors for 128 useful bytes",
                 4 * n);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_add(const float *a, const float *b, float *c, size_t i0, size_t i1)
{
    for (size_t i = i0; i < i1; i++)
        c[i] = a[i] + b[i];
}
