/* transpose.c — experiment 9, transpose through a shared-memory tile: the CPU side of its variants.
 *
 * The experiment as data: its description (gm_exp_transpose: the question, the
 * contrast that answers it, the sweep) and its rows (gm_transpose_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "transpose.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_transpose = {
    .id = "transpose",
    .title = "Matrix transpose: naive, shared tile, padded tile",
    .summary =
        "A transpose reads rows and writes columns, so done directly one side walks memory a "
        "whole row apart and every warp store touches 32 sectors. Staging a 32x32 tile in "
        "shared memory makes both global sides row-wise; reading the tile down a column then "
        "puts the whole warp on one bank, a 32-way conflict, until each tile row is padded to "
        "33 words.",
    .source =
        "Part 17: Memory Hierarchy (CUDA course module) (shared-memory tiling and "
        "conflict-free padding); an untitled article on memory coalescing "
        "(shared-memory tiles)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "naive",
    .question =
        "Does padding the shared tile of a transpose (32x33 instead of 32x32) remove its "
        "bank conflicts, and what does that save?",
    .contrast_a = "tiled",
    .contrast_b = "padded",
    .contrast_at = NULL,
    .contrast_counter = "shared_wpi",
};

/* 8192^2 floats: 256 MiB each way (above L2 from 4096 up). */
#define S_TR_N {"n", GM_VALUES(1024, 2048, 4096, 8192), GM_VALUES(2048)}

const gm_variant gm_transpose_rows[] = {
    {.experiment = &gm_exp_transpose,
     .name = "naive",
     .layout = "read rows, write columns: each warp store touches 32 sectors, 4n bytes apart",
     .params = {S_TR_N},
     GM_FNS(transpose),
     .kind = GM_TRANSPOSE_NAIVE,
     .launch = GM_GPU(transpose_launch_naive),
     .trace = transpose_trace,
     .idempotent = true},
    {.experiment = &gm_exp_transpose,
     .name = "tiled",
     .layout = "32x32 shared tile: rows in, rows out; the tile is read down a column, all 32 "
               "lanes on one bank",
     .params = {S_TR_N},
     GM_FNS(transpose),
     .kind = GM_TRANSPOSE_TILED,
     .launch = GM_GPU(transpose_launch_tiled),
     .trace = transpose_trace,
     .idempotent = true},
    {.experiment = &gm_exp_transpose,
     .name = "padded",
     .layout = "32x33 shared tile: the column read strides 33 words, one lane per bank",
     .params = {S_TR_N},
     GM_FNS(transpose),
     .kind = GM_TRANSPOSE_PADDED,
     .launch = GM_GPU(transpose_launch_padded),
     .trace = transpose_trace,
     .idempotent = true},
};
const size_t gm_transpose_rows_len = sizeof gm_transpose_rows / sizeof gm_transpose_rows[0];

/* ---- describe ------------------------------------------------------------- */

gm_status transpose_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n < 1 || n > 32768)
        return gm_fail(err, GM_ERR_VALUE, "transpose/%s: n = %lld is outside 1..32768",
                       c->variant->name, n);
    long long words;
    if (c->variant->kind == GM_TRANSPOSE_NAIVE)
        words = 0;
    else if (c->variant->kind == GM_TRANSPOSE_TILED)
        words = TR_TILE * TR_TILE;
    else if (c->variant->kind == GM_TRANSPOSE_PADDED)
        words = TR_TILE * (TR_TILE + 1);
    else
        return gm_fail(err, GM_ERR_VALUE, "transpose: unknown variant '%s'", c->variant->name);
    unsigned g = (unsigned)((n + TR_TILE - 1) / TR_TILE);
    gm_case_set_shape(c, g, g, 1, TR_TILE, TR_ROWS, 1, 4 * words);
    snprintf(c->kernel, sizeof c->kernel, "transpose_kernel_%s", c->variant->name);
    c->bytes_read = 4 * n * n;
    c->bytes_written = 4 * n * n;
    c->flops = -1;
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_transpose(const float *in, float *out, int rows, int cols)
{
    gm_ref_transpose_range(in, out, rows, cols, 0, (size_t)rows * cols);
}

void gm_ref_transpose_range(const float *in, float *out, int rows, int cols, size_t begin,
                            size_t end)
{
    for (size_t e = begin; e < end; ++e) {
        size_t q = e / (size_t)rows, r = e % (size_t)rows;   /* out is cols x rows */
        out[e] = in[r * cols + q];
    }
}
