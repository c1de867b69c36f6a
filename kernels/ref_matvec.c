/* ref_matvec.c — CPU reference of experiment 7 (exp_matvec.cu). */
#include "ref.h"

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
