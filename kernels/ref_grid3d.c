/* ref_grid3d.c — CPU reference of experiment 6 (exp_grid3d.cu).  The kernel
 * evaluates the same expression in the same order with round-to-nearest
 * intrinsics, so results agree to the bit. */
#include "ref.h"

void gm_ref_grid3d_dzz(const float *in, float *out, size_t nx, size_t ny, size_t nz, size_t sx,
                       size_t sy, size_t sz, size_t x0, size_t x1)
{
    (void)nx;
    for (size_t x = x0; x < x1; x++)
        for (size_t y = 0; y < ny; y++) {
            const float *p = in + x * sx + y * sy;
            float *q = out + x * sx + y * sy;
            for (size_t z = 0; z < nz; z++) {
                size_t zm = z > 0 ? z - 1 : 0, zp = z + 1 < nz ? z + 1 : nz - 1;
                q[z * sz] = (p[zm * sz] + p[zp * sz]) - 2.0f * p[z * sz];
            }
        }
}
