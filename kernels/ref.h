/* ref.h — CPU references of experiments 1-7 (kernels/ref_*.c): plain C, no
 * CUDA, unit-tested on hand-checked cases in tests/test_refs_a.c.  Each
 * computes exactly what the GPU variants of its experiment compute, in the
 * same floating-point operation order where the result must match exactly.
 * (Experiments 8-14 declare theirs in ref_b.h.)
 */
#ifndef GM_REF_H
#define GM_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1. coalescing: out[i] = in[(i mod (n/s)) * s + i div (n/s)], i < n; n % s == 0.
 * A permutation: every input element is read once.  s = 1 is a copy. */
size_t gm_ref_coalescing_index(size_t i, size_t n, size_t stride);
void gm_ref_coalescing(const float *in, float *out, size_t n, size_t stride);
/* The same for out[i0..i1) only (setup splits the work over host threads). */
void gm_ref_coalescing_range(const float *in, float *out, size_t n, size_t stride, size_t i0,
                             size_t i1);

/* 2. alignment: out[i] = in[k + i], i < n (in holds n + k floats). */
void gm_ref_alignment(const float *in, float *out, size_t n, size_t offset_floats);

/* 3. aos_soa: particles as planes (structure of arrays) in this field order. */
enum { GM_P_X, GM_P_Y, GM_P_Z, GM_P_VX, GM_P_VY, GM_P_VZ, GM_P_M, GM_P_FIELDS };
/* e[i] = (0.5 m) * ((vx*vx + vy*vy) + vz*vz), for i in [i0, i1): reads 4 fields. */
void gm_ref_particles_energy(const float *const p[GM_P_FIELDS], float *e, size_t i0, size_t i1);
/* One explicit step with linear drag, reading all 7 fields and writing all 7:
 * x' = x + vx*dt (y, z alike); v' = v * (1 - (drag*dt)/m); m' = m. */
void gm_ref_particles_step(const float *const p[GM_P_FIELDS], float *const q[GM_P_FIELDS],
                           float dt, float drag, size_t i0, size_t i1);

/* 4. rgb, in place, pixels [p0, p1): byte r becomes 255 - r.
 * Interleaved: the red byte of pixel i is img[3i].  Planar: the red plane comes
 * first, red byte of pixel i is img[i]; green and blue are never touched. */
void gm_ref_rgb_invert_red_interleaved(unsigned char *img, size_t p0, size_t p1);
void gm_ref_rgb_invert_red_planar(unsigned char *img, size_t p0, size_t p1);

/* 5. traversal2d: c[i] = a[i] + b[i] for i in [i0, i1). */
void gm_ref_add(const float *a, const float *b, float *c, size_t i0, size_t i1);

/* 6. grid3d: second difference along z with clamped ends,
 *   out(x,y,z) = (in(x,y,z-1) + in(x,y,z+1)) - 2 in(x,y,z),  z-1 and z+1 clamped
 *   to [0, nz-1], for x in [x0, x1), all y and z.  Element (x,y,z) of either
 *   array is at x*sx + y*sy + z*sz (strides in floats: the layout). */
void gm_ref_grid3d_dzz(const float *in, float *out, size_t nx, size_t ny, size_t nz, size_t sx,
                       size_t sy, size_t sz, size_t x0, size_t x1);

/* 7. matvec: y[i] = sum_k a[i*cols + k] * x[k] for rows i in [r0, r1), summed
 * in double (the suite's matrices hold small integers, for which every order
 * of summation is exact in float too). */
void gm_ref_matvec(const float *a, const float *x, float *y, size_t cols, size_t r0, size_t r1);
/* The small-integer values the matrix and vector hold: a 64-bit random
 * number (gm_rand_at) mapped to an integer in [-4, 4]. */
float gm_ref_small_int(uint64_t r);

#ifdef __cplusplus
}
#endif

#endif
