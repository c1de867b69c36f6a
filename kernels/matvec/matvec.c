/* matvec.c — experiment 7, matrix-vector product, thread or warp per row: the CPU side of its
 * variants.
 *
 * The experiment as data: its description (gm_exp_matvec: the question, the
 * contrast that answers it, the sweep) and its rows (gm_matvec_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "matvec.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_matvec = {
    .id = "matvec",
    .title = "Matrix-vector product: layout against thread mapping",
    .summary =
        "y = A x with a thread per row or a warp per row, over row-major or column-major A. A "
        "thread per row coalesces only with column-major A (a warp reads a column slice); a "
        "warp per row coalesces with row-major A (a warp reads a row slice). But a thread per "
        "row leaves only n threads, too few to keep enough loads in flight on a large GPU "
        "whatever the layout, and with row-major A the 31 other floats of each line a thread "
        "touches are still in L1 on its next steps: coalescing alone does not decide between "
        "the two. A warp per row with 16-byte loads is the layout-and-mapping pair that "
        "streams A at memory speed.",
    .source =
        "an untitled article on memory coalescing (row- vs column-major matrix-vector "
        "products, thread vs warp per row)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "thread_rowmajor",
    .question =
        "With a thread per row, does a column-major matrix beat a row-major one?",
    .contrast_a = "thread_rowmajor",
    .contrast_b = "thread_colmajor",
    .contrast_at = NULL,
    .contrast_counter = "ld_spr",
};

/* 8192^2 floats: A is 256 MiB. */
#define S_MV_N {"n", GM_VALUES(2048, 4096, 8192), GM_VALUES(1024)}

const gm_variant gm_matvec_rows[] = {
    {.experiment = &gm_exp_matvec,
     .name = "thread_rowmajor",
     .layout = "thread per row, row-major A: a warp's loads are a row (4n bytes) apart",
     .params = {S_MV_N},
     GM_FNS(matvec),
     .kind = GM_MATVEC_THREAD_ROWMAJOR,
     .launch = GM_GPU(matvec_launch_thread_rowmajor),
     .trace = matvec_trace,
     .idempotent = true},
    {.experiment = &gm_exp_matvec,
     .name = "thread_colmajor",
     .layout = "thread per row, column-major A: a warp reads 128 contiguous bytes of a column",
     .params = {S_MV_N},
     GM_FNS(matvec),
     .kind = GM_MATVEC_THREAD_COLMAJOR,
     .launch = GM_GPU(matvec_launch_thread_colmajor),
     .trace = matvec_trace,
     .idempotent = true},
    {.experiment = &gm_exp_matvec,
     .name = "warp_rowmajor",
     .layout = "warp per row, row-major A: a warp reads 128 contiguous bytes of a row per step",
     .params = {S_MV_N},
     GM_FNS(matvec),
     .kind = GM_MATVEC_WARP_ROWMAJOR,
     .launch = GM_GPU(matvec_launch_warp_rowmajor),
     .trace = matvec_trace,
     .idempotent = true},
    {.experiment = &gm_exp_matvec,
     .name = "warp_rowmajor_vec4",
     .layout = "warp per row, row-major A, 16-byte loads: 512 contiguous bytes per step",
     .params = {S_MV_N},
     GM_FNS(matvec),
     .kind = GM_MATVEC_WARP_ROWMAJOR_VEC4,
     .launch = GM_GPU(matvec_launch_warp_rowmajor_vec4),
     .trace = matvec_trace,
     .idempotent = true},
};
const size_t gm_matvec_rows_len = sizeof gm_matvec_rows / sizeof gm_matvec_rows[0];

/* ---- describe ------------------------------------------------------------- */

gm_status matvec_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n < 64 || n > 32768 || n % 64 != 0)
        return gm_fail(err, GM_ERR_VALUE, "matvec/%s: n=%lld: need a multiple of 64 in [64, 32768]",
                       c->variant->name, n);
    snprintf(c->kernel, sizeof c->kernel, "matvec_kernel_%s", c->variant->name);
    if (gm_matvec_warp(c)) {
        c->launch.grid[0] = (unsigned)(n / (MATVEC_WARP_BLOCK / 32));
        c->launch.block[0] = MATVEC_WARP_BLOCK;
    } else {
        c->launch.grid[0] = (unsigned)(n / MATVEC_THREAD_BLOCK);
        c->launch.block[0] = MATVEC_THREAD_BLOCK;
    }
    c->launch.grid[1] = c->launch.grid[2] = 1;
    c->launch.block[1] = c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* A and x read once, y written once; a multiply and an add per element of A. */
    c->bytes_read = 4 * n * n + 4 * n;
    c->bytes_written = 4 * n;
    c->flops = 2 * n * n;
    if (!gm_matvec_warp(c))
        snprintf(c->note, sizeof c->note,
                 "a thread per row: %lld threads, %lld warps in the whole grid", n, n / 32);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_matvec(const float *a, const float *x, float *y, size_t cols, size_t r0, size_t r1)
{
    for (size_t i = r0; i < r1; i++) {
        const float *row = a + i * cols;
        double s = 0.0;
        for (size_t k = 0; k < cols; k++)
            s += (double)row[k] * (double)x[k];
        y[i] = (float)s;
    }
}

/* |a| <= 4, |x| <= 4: a row of up to 2^20 columns sums to at most 2^24 in
 * magnitude, where every integer is a float. */
float gm_ref_small_int(uint64_t r)
{
    return (float)((int)(r % 9) - 4);
}
