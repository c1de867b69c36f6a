/* dp.c — experiment 14, chained matrix multiplication by dynamic programming: the CPU side of its
 * variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "dp.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
