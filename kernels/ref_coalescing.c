/* ref_coalescing.c — CPU reference of experiment 1 (exp_coalescing.cu). */
#include "ref.h"

/* Column-major reading of an (n/s x s) row-major view: consecutive i walk down
 * a column, s elements apart; after n/s of them the next column starts. */
size_t gm_ref_coalescing_index(size_t i, size_t n, size_t stride)
{
    size_t m = n / stride;
    return (i % m) * stride + i / m;
}

/* The same permutation written as two loops (i = c*m + r), with no division
 * per element. */
void gm_ref_coalescing(const float *in, float *out, size_t n, size_t stride)
{
    size_t m = n / stride;
    for (size_t c = 0; c < stride; c++)
        for (size_t r = 0; r < m; r++)
            out[c * m + r] = in[r * stride + c];
}
