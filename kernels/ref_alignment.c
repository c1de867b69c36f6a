/* ref_alignment.c — CPU reference of experiment 2 (exp_alignment.cu). */
#include "ref.h"

#include <string.h>

void gm_ref_alignment(const float *in, float *out, size_t n, size_t offset_floats)
{
    memcpy(out, in + offset_floats, n * sizeof *out);
}
