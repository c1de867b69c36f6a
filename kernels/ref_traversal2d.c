/* ref_traversal2d.c — CPU reference of experiment 5 (exp_traversal2d.cu). */
#include "ref.h"

void gm_ref_add(const float *a, const float *b, float *c, size_t i0, size_t i1)
{
    for (size_t i = i0; i < i1; i++)
        c[i] = a[i] + b[i];
}
