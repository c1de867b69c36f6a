/* model.h — the address-trace model: what the memory counters should read.
 *
 * A trace generator (a variant's `trace` function, kernels/case.h) replays a
 * kernel's memory instructions on the CPU: for each warp-level load or store it
 * hands the model the address each of the 32 lanes touches and which lanes are
 * active.  The model applies the sm_70+ rules (docs/model.md gives each rule and
 * its source) and accumulates what Nsight Compute would count: instructions,
 * requests, 32-byte sectors, 128-byte lines, bytes, shared-memory wavefronts
 * and bank conflicts, constant-cache serialisation.  Nothing per access is
 * kept: a trace is a few kilobytes of counters however long the kernel runs.
 *
 *     gm_trace *t = gm_trace_new();
 *     gm_trace_set_sampling(t, warps_total, warps_traced);
 *     for each traced warp, for each memory instruction:
 *         gm_trace_access(t, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, addr, mask);
 *     gm_trace_predict(t, &run->prediction, &err);   (metrics under ncu names)
 *     gm_trace_free(t);
 *
 * Rules in one paragraph (docs/model.md has the arithmetic and the sources):
 *   global/local  one request per warp-level instruction (Volta and later do
 *                 not split 8- or 16-byte accesses into several requests);
 *                 sectors = distinct 32-byte sectors the active lanes touch;
 *                 efficiency = bytes the active lanes asked for / (sectors*32).
 *   shared        32 banks of 4 bytes.  A warp's access is served in phases:
 *                 all 32 lanes for 1-, 2- and 4-byte accesses, each half-warp
 *                 (16 lanes) for 8-byte, each quarter-warp (8 lanes) for
 *                 16-byte accesses; phases twice as wide for 8- and 16-byte
 *                 LOADS whose lane pairs (n, n^1) or (n, n^2) read equal
 *                 addresses (packed two lanes to a return slot).  A phase
 *                 takes as many wavefronts as the largest number of
 *                 DISTINCT 4-byte words any one bank holds among its active
 *                 lanes (same word: broadcast on loads, one write on
 *                 stores, no conflict).  Ideal = one wavefront per
 *                 phase that has an active lane; conflicts = wavefronts - ideal.
 *   constant      a warp access is serialised once per distinct address.
 */
#ifndef GM_MODEL_H
#define GM_MODEL_H

#include "gm_error.h"
#include "results.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GM_WARP_SIZE 32
#define GM_SECTOR_BYTES 32
#define GM_LINE_BYTES 128
#define GM_SHARED_BANKS 32
#define GM_BANK_BYTES 4

typedef enum {
    GM_SPACE_GLOBAL = 0,
    GM_SPACE_SHARED,
    GM_SPACE_CONSTANT,
    GM_SPACE_LOCAL,
    GM_SPACE_COUNT
} gm_space;

typedef enum { GM_OP_LOAD = 0, GM_OP_STORE, GM_OP_COUNT } gm_op;

const char *gm_space_name(gm_space s);   /* "global", "shared", "constant", "local" */
const char *gm_op_name(gm_op op);        /* "load", "store" */

/* Counts for one space and op: of one access (gm_access_analyze) or summed
 * over a trace (gm_trace_counts).  Fields that do not apply to a space stay 0. */
typedef struct {
    long long instructions;      /* warp-level instructions executed */
    long long requests;          /* global/local/constant: one per instruction */
    long long active_lanes;      /* sum over instructions of active lanes */
    /* global and local */
    long long sectors;           /* distinct 32-byte sectors, summed over requests */
    long long lines;             /* distinct 128-byte lines, summed over requests */
    long long bytes_requested;   /* sum over active lanes of the access size */
    long long bytes_unique;      /* distinct bytes per request, summed (broadcast counted once) */
    long long sectors_hist[GM_WARP_SIZE + 1];  /* requests with n sectors, n = 0..32 */
    /* shared */
    long long wavefronts;
    long long ideal_wavefronts;
    long long bank_conflicts;    /* wavefronts - ideal_wavefronts */
    /* instructions whose worst phase took n wavefronts (n-way), n = 0..32;
     * n = 0: no active lane */
    long long way_hist[GM_WARP_SIZE + 1];
    /* constant */
    long long distinct_addresses; /* summed over instructions: the serialisation */
} gm_access_counts;

/* Ratios derived from counts; NaN where the denominator is 0. */
typedef struct {
    gm_access_counts counts;          /* scaled to the whole kernel when sampled */
    double sectors_per_request;       /* 4 ideal for 4-byte, 8 for 8-byte, 16 for 16-byte lanes */
    double lines_per_request;
    double efficiency_pct;            /* 100 * bytes_requested / (sectors * 32), as ncu */
    double unique_efficiency_pct;     /* 100 * bytes_unique / (sectors * 32): never above 100 */
    double wavefronts_per_instruction;
    double conflicts_per_instruction;
    double serialization;             /* constant: distinct addresses per instruction */
} gm_access_stats;

/* ---- one warp-level access --------------------------------------------------
 *
 * addr[i] is the byte address lane i touches (for shared memory: the offset in
 * the block's shared window); only lanes whose bit is set in active_mask are
 * read.  size is 1, 2, 4, 8 or 16 bytes and every active address must be a
 * multiple of it (the GPU faults on a misaligned access).
 * Fills *out with the counts of this one instruction (instructions = 1). */
gm_status gm_access_analyze(gm_space space, gm_op op, unsigned size, const uint64_t addr[32],
                            uint32_t active_mask, gm_access_counts *out, gm_error *err);

/* ---- the accumulator ------------------------------------------------------- */

typedef struct gm_trace gm_trace;

gm_trace *gm_trace_new(void);            /* aborts on out of memory, as gm_xmalloc */
void gm_trace_free(gm_trace *t);         /* NULL is fine */
void gm_trace_reset(gm_trace *t);        /* back to the state of gm_trace_new */

/* Add one warp-level access.  On bad input (size, alignment, NULL addresses)
 * nothing is counted, the status is returned and the first such error is kept:
 * gm_trace_status and gm_trace_predict report it, so a generator may check
 * once at the end instead of after every call. */
gm_status gm_trace_access(gm_trace *t, gm_space space, gm_op op, unsigned size,
                          const uint64_t addr[32], uint32_t active_mask);

/* The same access counted `repeat` times (repeat >= 0): for loops whose
 * iterations touch sectors and banks the same way (e.g. a base advancing by a
 * multiple of 128 bytes).  The caller vouches for the equivalence. */
gm_status gm_trace_access_repeat(gm_trace *t, gm_space space, gm_op op, unsigned size,
                                 const uint64_t addr[32], uint32_t active_mask,
                                 long long repeat);

/* Lane i touches base + i * stride_bytes (stride may be 0 or negative). */
gm_status gm_trace_access_affine(gm_trace *t, gm_space space, gm_op op, unsigned size,
                                 uint64_t base, int64_t stride_bytes, uint32_t active_mask);

/* Active-lane mask of a warp whose first thread is `first_thread` in a block
 * (or grid) of `n_threads` threads: lanes past the end are inactive. */
uint32_t gm_warp_mask(long long first_thread, long long n_threads);

/* ---- sampling ----------------------------------------------------------------
 *
 * For big kernels trace a deterministic sample: every step-th warp, step =
 * gm_sample_step(warps_total, budget), warps 0, step, 2*step, ...; that is
 * gm_sample_count(warps_total, step) warps.  Then declare it: counts are
 * multiplied by warps_total / warps_traced when predicted and the prediction
 * says it was scaled.  Exact when the untraced warps access memory as the
 * traced ones do; edge warps and data-dependent gathers make it an estimate
 * (the prediction's notes say so).  A generator that traces every warp still
 * declares it (warps_traced == warps_total), so the prediction can name it. */
gm_status gm_trace_set_sampling(gm_trace *t, long long warps_total, long long warps_traced);
/* The same declaration for a generator that weighted the warps it traced
 * itself (gm_trace_access_repeat: each traced warp counted once for every
 * warp it stands for, e.g. all of a few heavy blocks and one block per
 * stratum of the rest), so the counts already stand for the whole kernel:
 * nothing is multiplied, and the prediction is still marked scaled (an
 * estimate) with warps_traced of warps_total. */
gm_status gm_trace_set_sampling_weighted(gm_trace *t, long long warps_total,
                                         long long warps_traced);
long long gm_sample_step(long long warps_total, long long budget);   /* >= 1 */
long long gm_sample_count(long long warps_total, long long step);    /* ceil(total / step) */

/* A space the generator does not model (e.g. a kernel whose shared-memory part
 * is not traced): its metrics are left absent, not predicted as 0, and `why`
 * becomes a note.  Without this, a space with no traced access is predicted
 * to have none. */
void gm_trace_exclude(gm_trace *t, gm_space space, const char *why);

/* A note for the prediction, from the generator (e.g. "the last block is
 * partial: 40 of its 256 threads are active").  At most 16 are kept. */
void gm_trace_note(gm_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- results ---------------------------------------------------------------- */

/* First error recorded by an access or set_sampling call (GM_OK if none). */
gm_status gm_trace_status(const gm_trace *t, gm_error *err);

/* Raw (unscaled) counts of what was traced. */
const gm_access_counts *gm_trace_counts(const gm_trace *t, gm_space space, gm_op op);

/* Counts scaled to the whole kernel, with their ratios. */
void gm_trace_stats(const gm_trace *t, gm_space space, gm_op op, gm_access_stats *out);

/* Fill *out (which must not hold anything: zeroed or freshly cleared) with the
 * prediction: method "address-trace", warps traced and total, scaled, the
 * metrics under the exact ncu names (GM_M_LD_SECTORS ... GM_M_SH_ST_INST, units
 * as in the catalog; ratios absent when nothing was requested; local-memory
 * sectors and requests too when the trace has local accesses) and notes on
 * what the model leaves out.  Returns the trace's first error, if any, and
 * then fills nothing.  Strings and arrays are heap-allocated (gm_xmalloc) and
 * owned by *out: gm_results_free frees them with the run;
 * gm_trace_prediction_clear frees a prediction that is not part of a results
 * structure and zeroes it. */
gm_status gm_trace_predict(const gm_trace *t, gm_prediction *out, gm_error *err);

void gm_trace_prediction_clear(gm_prediction *p);

#ifdef __cplusplus
}
#endif

#endif
