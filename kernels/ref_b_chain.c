/* ref_b_chain.c — experiment 14: chained matrix multiplication by dynamic
 * programming, on the CPU.  See ref_b.h for the contracts.
 *
 * m[i][j] = min over i <= k < j of m[i][k] + m[k+1][j] + dims[i-1]*dims[k]*dims[j],
 * m[i][i] = 0.  A cell depends on cells of shorter chains only, so the table
 * fills diagonal by diagonal (d = j - i = 1, 2, ... n-1); n^3/6 inner steps. */
#include "ref_b.h"

#include <limits.h>
#include <stdlib.h>

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
