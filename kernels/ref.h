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

#ifdef __cplusplus
}
#endif

#endif
