/* dp.c — experiment 14, chained matrix multiplication by dynamic programming: the CPU side of its
 * variants.
 *
 * The experiment as data: its description (gm_exp_dp: the question, the
 * contrast that answers it, the sweep) and its rows (gm_dp_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "dp.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_dp = {
    .id = "dp",
    .title = "Chained matrix multiplication by dynamic programming: table by diagonals",
    .summary =
        "The cost table of a matrix chain fills one diagonal at a time and the cells of a "
        "diagonal are independent, so one block gives each cell a thread and waits at a "
        "barrier between diagonals. With the table row-major, the cells neighbouring threads "
        "read are a row apart; stored diagonal after diagonal they are adjacent, and each "
        "warp read is coalesced. The serial CPU version shows the chain length where the GPU "
        "starts to win.",
    .source =
        "Optimizing Memory Access Efficiency in CUDA Kernel via Data Layout Technique "
        "(row-major vs diagonal table, CPU/GPU break-even)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = false,
    .baseline_variant = "rowmajor",
    .question =
        "Does storing the DP table by diagonals make the GPU kernel faster than a "
        "row-major table, and from which n does the GPU beat one CPU thread?",
    .contrast_a = "rowmajor",
    .contrast_b = "diagonal",
    .contrast_at = "n=1024",
    .contrast_counter = "ld_spr",
};

/* The chain lengths of seed 002's break-even and layout figures; one
 * block holds n <= 1024 threads.  At 1024 the CPU version took 0.38 s and each GPU
 * version ~0.1 s on the H100 machine (one block on one SM: a long launch). */
#define S_DP_N {"n", GM_VALUES(64, 128, 256, 512, 1024), GM_VALUES(64, 256)}

/* The kernels read cells they wrote earlier in the launch. */
const gm_variant gm_dp_rows[] = {
    {.experiment = &gm_exp_dp,
     .name = "cpu_serial",
     .layout = "host, one thread: the textbook loop, row-major table, m[k+1][j] walks a column",
     .params = {S_DP_N},
     GM_FNS(dp),
     .kind = GM_DP_CPU_SERIAL,
     .launch = GM_GPU(dp_launch_cpu_serial),
     .on_host = true},
    {.experiment = &gm_exp_dp,
     .name = "rowmajor",
     .layout = "one block, a thread per cell of the diagonal; row-major table: neighbouring "
               "threads read a row plus one apart",
     .params = {S_DP_N},
     GM_FNS(dp),
     .kind = GM_DP_ROWMAJOR,
     .launch = GM_GPU(dp_launch_rowmajor),
     .trace = dp_trace},
    {.experiment = &gm_exp_dp,
     .name = "diagonal",
     .layout = "one block, a thread per cell of the diagonal; table stored by diagonals: "
               "neighbouring threads read adjacent words",
     .params = {S_DP_N},
     GM_FNS(dp),
     .kind = GM_DP_DIAGONAL,
     .launch = GM_GPU(dp_launch_diagonal),
     .trace = dp_trace},
};
const size_t gm_dp_rows_len = sizeof gm_dp_rows / sizeof gm_dp_rows[0];

/* ---- describe ------------------------------------------------------------- */

gm_status dp_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n < 2 || n > 8192)
        return gm_fail(err, GM_ERR_VALUE, "dp/%s: n = %lld is outside 2..8192", c->variant->name,
                       n);
    bool host = c->variant->kind == GM_DP_CPU_SERIAL;
    if (!host && c->variant->kind != GM_DP_ROWMAJOR && c->variant->kind != GM_DP_DIAGONAL)
        return gm_fail(err, GM_ERR_VALUE, "dp: unknown variant '%s'", c->variant->name);
    c->bytes_read = 8 * (n + 1);              /* the dimensions once */
    c->bytes_written = 8 * n * (n + 1) / 2;   /* every filled cell once */
    c->flops = -1;                            /* integer work: n^3/6 multiply-add-min steps */
    if (host) {
        gm_case_set_shape(c, 1, 1, 1, 1, 1, 1, 0);
        snprintf(c->kernel, sizeof c->kernel, "gm_ref_chain_serial");
        snprintf(c->note, sizeof c->note,
                 "the serial CPU version on one host thread, timed by a host clock");
        return GM_OK;
    }
    unsigned threads = (unsigned)((n + 31) / 32 * 32);
    gm_case_set_shape(c, 1, 1, 1, threads > DP_MAX_GPU_N ? DP_MAX_GPU_N : threads, 1, 1, 0);
    snprintf(c->kernel, sizeof c->kernel, "dp_kernel_%s", c->variant->name);
    snprintf(c->note, sizeof c->note,
             "one block of %u threads, a barrier after each of the %lld diagonals; kernel time "
             "only (seed 002's GPU times also counted the host-device copies)",
             threads, n);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_chain_serial(int n, const long long *dims, long long *m)
{
    size_t w = (size_t)n + 1;
    for (int i = 1; i <= n; ++i)
        m[i * w + i] = 0;
    for (int d = 1; d < n; ++d)
        for (int i = 1; i <= n - d; ++i) {
            int j = i + d;
            long long best = LLONG_MAX;
            for (int k = i; k < j; ++k) {
                /* m[k+1][j] walks down a column: one cache line per step */
                long long cost = m[i * w + k] + m[(k + 1) * w + j] + dims[i - 1] * dims[k] * dims[j];
                if (cost < best)
                    best = cost;
            }
            m[i * w + j] = best;
        }
}

gm_status gm_ref_chain_fast(int n, const long long *dims, long long *m)
{
    size_t w = (size_t)n + 1;
    /* mt[j][i] = m[i][j]: column j of m as a contiguous row */
    long long *mt = malloc(w * w * sizeof *mt);
    if (!mt)
        return GM_ERR_NOMEM;
    for (int i = 1; i <= n; ++i)
        m[i * w + i] = mt[i * w + i] = 0;
    for (int len = 2; len <= n; ++len)
        for (int i = 1; i + len - 1 <= n; ++i) {
            int j = i + len - 1;
            const long long *row = m + i * w;    /* m[i][k],   k = i..j-1 */
            const long long *colj = mt + j * w;  /* m[k+1][j], k = i..j-1 */
            long long pij = dims[i - 1] * dims[j];
            long long best = LLONG_MAX;
            for (int k = i; k < j; ++k) {
                long long cost = row[k] + colj[k + 1] + pij * dims[k];
                best = cost < best ? cost : best;
            }
            m[i * w + j] = mt[j * w + i] = best;
        }
    free(mt);
    return GM_OK;
}

void gm_ref_chain_pack(int n, const long long *m, long long *packed)
{
    size_t w = (size_t)n + 1;
    for (int d = 0; d < n; ++d)
        for (int i = 1; i <= n - d; ++i)
            packed[gm_chain_diag_index(n, i, i + d)] = m[i * w + i + d];
}
