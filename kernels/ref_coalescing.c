/* ref_coalescing.c — CPU reference of experiment 1 (exp_coalescing.cu). */
#include "ref.h"

/* Column-major reading of an (n/s x s) row-major view: consecutive i walk down
 * a column, s elements apart; after n/s of them the next column starts. */
size_t gm_ref_coalescing_index(size_t i, size_t n, size_t stride)
{
    size_t m = n / stride;
    return (i % m) * stride + i / m;
}

/* i = c*m + r reads in[r*s + c]: one division per column, not per element. */
void gm_ref_coalescing_range(const float *in, float *out, size_t n, size_t stride, size_t i0,
                             size_t i1)
{
    size_t m = n / stride;
    size_t i = i0;
    while (i < i1) {
        size_t c = i / m, r = i % m;
        size_t stop = (c + 1) * m < i1 ? (c + 1) * m : i1;
        for (; i < stop; i++, r++)
            out[i] = in[r * stride + c];
    }
}

void gm_ref_coalescing(const float *in, float *out, size_t n, size_t stride)
{
    gm_ref_coalescing_range(in, out, n, stride, 0, n);
}
