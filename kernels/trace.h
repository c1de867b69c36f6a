/* trace.h — address traces of the suite's kernels for the model (core/model.h).
 *
 * Each experiment has one trace function (kernels/<experiment>/trace.c,
 * plain C, no CUDA call) that replays its variants' memory instructions on
 * the CPU: for every warp-level load and store of the kernel, the address of each lane
 * and which lanes are active, under the kernel's own index arithmetic, launch
 * shape (c->launch, as describe filled it) and loop structure.  The runner
 * calls it after setup and puts gm_trace_predict's answer beside the
 * measurements; tests/test_trace.c runs it on machines without a GPU.
 *
 * What the generators mirror, and where it comes from:
 *   - one call per SASS memory instruction: vector widths (float2/float4/uint4
 *     give one 8- or 16-byte access), loads the compiler keeps once (a field
 *     read twice in the source), unrolled loops that run a per-lane remainder
 *     first (CSR rows), were read from the PTX that nvcc 13 emits for sm_90
 *     (ld/st.global, ld/st.shared, ld.const per kernel), the build machine
 *     having no cuobjdump, and checked against the SASS and the counts of an
 *     H100 run (docs/model.md, "Checked against an H100").  Where ptxas
 *     departs from the PTX the trace follows the SASS: it reads an unpadded
 *     row-major matmul tile four floats at a time (LDS.128, matmul/trace.c),
 *     and runs the CSR row loops' passes of 4 as blocks of 16, 8 and 4
 *     entries that a warp runs for any lane that needs them (spmv/trace.c,
 *     S_csr_loop: the H100 ran 8 % more csr_thread loads than the PTX loop
 *     gives, exactly what this gives).  A guarded load whose guard switches
 *     off every lane of a warp is not traced, as the PTX branches around it;
 *     the H100 agrees where it happens (matmul n = 8 with 16 x 16 blocks: 8
 *     global load instructions, as traced);
 *   - addresses are those of synthetic allocations: array k starts at
 *     GM_TRACE_ARRAY(k), far from the others and aligned to 2^40 bytes.
 *     cudaMalloc aligns to at least 256 bytes, and every count the model makes
 *     (sectors, lines, banks) depends on an address only modulo 128, so the
 *     synthetic base gives the counts of the real one;
 *   - shared-memory addresses are offsets in the block's window; a shift of a
 *     whole array changes no count of an access to it, so arrays may sit
 *     anywhere 16-byte aligned.
 *
 * Making it cheap (a full-size trace must stay within a few milliseconds):
 *   fold    blocks (and loop iterations) whose every access is the access of
 *           another block shifted by a multiple of 128 bytes touch the same
 *           number of sectors, lines and banks: one of them is replayed with a
 *           weight (gm_trace_access_repeat).  The generator states the period
 *           of this equivalence per grid dimension and per loop; the first and
 *           last `edge` blocks of a dimension are replayed on their own.  The
 *           result is exact, and tests/test_trace.c checks it against the
 *           unfolded trace.
 *   memo    identical accesses up to a 128-byte shift are counted once by the
 *           model and then weighted: the model's sort of 32 lanes costs far
 *           more than generating the addresses.  Exact by construction.
 *   sample  where addresses depend on data (sparse column indices, departure
 *           points of an advection), every k-th block is traced and the model
 *           scales the counts, or a generator picks and weights a stratified
 *           sample itself (an estimate either way; the prediction says so).
 */
#ifndef GM_TRACE_H
#define GM_TRACE_H

#include "case.h"

#include "../core/model.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The trace functions of the suite's rows (case.h: gm_variant.trace) are
 * declared in each experiment's header, kernels/<experiment>/<experiment>.h. */

/* ---- what the generators share (trace_common.c) --------------------------- */

/* Base address of synthetic array k (k = 0, 1, ...). */
#define GM_TRACE_ARRAY(k) ((uint64_t)((k) + 1) << 40)

/* Switches for tests: GM_TGEN_NO_FOLD replays every block and every loop
 * iteration, GM_TGEN_NO_SAMPLE traces every warp of data-dependent kernels,
 * GM_TGEN_NO_MEMO sends every access to the model.  Process-wide, not
 * thread-safe; 0 (the default) is what the runner uses. */
enum { GM_TGEN_NO_FOLD = 1, GM_TGEN_NO_SAMPLE = 2, GM_TGEN_NO_MEMO = 4 };
void gm_tgen_set_debug(unsigned flags);
unsigned gm_tgen_debug(void);

typedef struct gm_tmemo gm_tmemo;

/* A generator's state: the model's trace, the memo and what was replayed. */
typedef struct {
    gm_trace *t;
    gm_tmemo *memo;          /* NULL: every access goes straight to the model */
    bool fold, sample;       /* folding and sampling allowed (debug flags clear) */
    long long warps_total;   /* warps of the launch */
    long long warps_traced;  /* warps replayed (each once, whatever its weight) */
    bool sampled;            /* a sample: warps_traced of warps_total */
    bool weighted;           /* the generator weighted its sample itself (gm_tgen_access
                              * weights): declared with gm_trace_set_sampling_weighted */
} gm_tgen;

void gm_tgen_init(gm_tgen *g, gm_trace *t);
/* Flush the memo into the model, declare the sampling (with a note on what
 * was folded or sampled), free the memo and return the trace's first error.
 * Must be called once after the last access, also after a failure. */
gm_status gm_tgen_finish(gm_tgen *g, gm_error *err);

/* One warp-level instruction counted `weight` times (weight >= 1). */
void gm_tgen_access(gm_tgen *g, gm_space space, gm_op op, unsigned size, const uint64_t addr[32],
                    uint32_t mask, long long weight);
/* Lane i at base + i * stride. */
void gm_tgen_affine(gm_tgen *g, gm_space space, gm_op op, unsigned size, uint64_t base,
                    int64_t stride, uint32_t mask, long long weight);

/* One warp as its kernel sees it. */
typedef struct {
    unsigned gdim[3], bdim[3];       /* gridDim, blockDim */
    unsigned bid[3];                 /* blockIdx */
    unsigned tid[3][GM_WARP_SIZE];   /* threadIdx.x, .y, .z of each lane */
    int warp;                        /* warp index within its block */
    uint32_t mask;                   /* lanes that are threads of the block */
    long long weight;                /* warps it stands for (1 when nothing is folded) */
} gm_twarp;

typedef void (*gm_twarp_fn)(gm_tgen *g, const gm_twarp *w, void *ctx);

/* How the blocks of a launch fold, per grid dimension (x, y, z): blocks whose
 * indices differ by a multiple of period[d] are equivalent, except the first
 * and the last edge[d] blocks, which are replayed one by one.  period 0 means
 * "do not fold this dimension".  gm_tperiod gives the period of one access
 * from the bytes its address moves per block. */
typedef struct {
    long long period[3];
    long long edge[3];
} gm_tfold;

/* The smallest p >= 1 with p * shift_bytes a multiple of 128: after p steps
 * of shift_bytes an access is a 128-byte translation of the first. */
long long gm_tperiod(long long shift_bytes);
long long gm_tlcm(long long a, long long b);

/* Replay every block of c->launch, folded by f (NULL: all blocks), calling fn
 * for each warp of each replayed block.  GM_ERR_VALUE when the case has no
 * launch shape (describe has not run). */
gm_status gm_tgen_grid(gm_tgen *g, const gm_case *c, const gm_tfold *f, gm_twarp_fn fn,
                       void *ctx, gm_error *err);
/* Trace about warp_budget warps of c->launch: every k-th block counted back
 * from the last one (so the last, possibly partial, block is in), k coprime
 * with the grid's x extent so that the sample walks every column of a 2D grid
 * evenly.  All blocks when they fit the budget; the model scales otherwise. */
gm_status gm_tgen_grid_sample(gm_tgen *g, const gm_case *c, long long warp_budget,
                              gm_twarp_fn fn, void *ctx, gm_error *err);

/* Replay one warp of c->launch, warp `warp` of the block with linear index
 * `block` (x fastest), counted `weight` times: for generators that choose
 * and weight their own sample.  The caller declares the sampling: it sets
 * g->warps_total, and g->sampled and g->weighted when it traced a sample. */
void gm_tgen_one_warp(gm_tgen *g, const gm_case *c, long long block, int warp, long long weight,
                      gm_twarp_fn fn, void *ctx);

/* A loop of n iterations whose iteration k + period repeats iteration k up to
 * a 128-byte shift of every address: replay iterations 0 .. gm_tloop(g, n,
 * period) - 1, iteration k weighted gm_tloop_weight(n, reps, k) times (reps:
 * the value gm_tloop returned).  Without folding it returns n and every
 * weight is 1. */
long long gm_tloop(const gm_tgen *g, long long n, long long period);
long long gm_tloop_weight(long long n, long long reps, long long k);

/* A loop that lane l runs trips[l] times (lanes of `mask`), as nvcc compiles
 * it when the trip count differs between lanes and the loop is unrolled U
 * times: with the remainder first (the PTX of the float4 matrix-vector
 * kernel; the CSR kernels follow their SASS instead, spmv/trace.c), a loop
 * of trips mod U iterations, then trips / U
 * passes of U bodies; or with the passes first and the remainder after them
 * (the JDS kernel).  Calls body once per warp-level execution of the loop
 * body, iter[l] being the iteration lane l is at and `active` the lanes
 * executing it.  With trips 5 and 8 in one warp, U = 4, remainder first: the
 * first lane runs iteration 0 alone, then both run a pass of 4 bodies (the
 * first lane at iterations 1..4, the second at 0..3), then the second alone
 * runs 4..7. */
typedef void (*gm_tbody_fn)(gm_tgen *g, const long long iter[GM_WARP_SIZE], uint32_t active,
                            long long weight, void *ctx);
void gm_tloop_unrolled(gm_tgen *g, const long long trips[GM_WARP_SIZE], uint32_t mask, int unroll,
                       bool remainder_first, long long weight, gm_tbody_fn body, void *ctx);

/* For tests (spmv/trace.c): the sorted columns of row r of the sparse matrix
 * of `rows` rows as the trace draws them, into out (at least 256 ints);
 * returns the row's length. */
int gm_trace_spmv_row(int rows, int r, int *out);

/* Fail unless c->launch holds a shape (describe filled it). */
gm_status gm_tgen_need_launch(const gm_case *c, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
