/* banks.h — experiment 10, shared-memory bank conflicts: what its files share.
 *
 *   kernels.cu  the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   banks.c     the description and the rows of the suite table, describe and
 *               the CPU reference (plain C, no CUDA)
 *   trace.c     the address trace for the model (plain C)
 *
 * Each row (banks.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_BANKS_H
#define GM_BANKS_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_BANKS_UNPADDED,
    GM_BANKS_PADDED,
};

/* ---- CPU side: banks.c, trace.c ---------------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_banks;
extern const gm_variant gm_banks_rows[];
extern const size_t gm_banks_rows_len;

gm_status banks_describe(gm_case *c, gm_error *err);
gm_status banks_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * ---- 10: the bank-conflict kernel's sums, in the kernel's order ---------
 * Blocks of GM_BANKS_BLOCK threads; block b stages in[b*GM_BANKS_WORDS ..]
 * (GM_BANKS_WORDS words) in shared memory; thread t of the block (lane =
 * t % 32) then adds, for r = 0..reps-1, the staged word lane*stride +
 * 32*(r % GM_BANKS_UNROLL) (a float sum in that order) and writes it to
 * out[b*GM_BANKS_BLOCK + t].  Stepping by whole 32-word rows keeps every
 * lane on its bank, so the conflict degree is that of lane*stride, and lets
 * the kernel address each step with a constant offset.  Padding moves words
 * in shared memory, not the values read, so one reference serves both
 * layouts.  reps is a multiple of GM_BANKS_UNROLL; in has
 * blocks*GM_BANKS_WORDS floats, out blocks*GM_BANKS_BLOCK; the _range form
 * computes out[begin..end). */
#define GM_BANKS_BLOCK 256
#define GM_BANKS_UNROLL 32
#define GM_BANKS_WORDS 2048   /* lane 31 x stride 32 = 992, + 31 rows of 32 = 1984 < 2048 */
void gm_ref_banks(const float *in, float *out, long long blocks, int stride, int reps);
void gm_ref_banks_range(const float *in, float *out, int stride, int reps, size_t begin,
                        size_t end);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status banks_setup(gm_case *c, gm_error *err);
gm_status banks_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status banks_check(gm_case *c, gm_check *out, gm_error *err);
void banks_teardown(gm_case *c);
gm_status banks_launch_unpadded(gm_case *c, gm_stream s, gm_error *err);
gm_status banks_launch_padded(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
