/* harness.h — the device half of the harness (harness.cu): what the
 * experiments' .cu files and the runner need to launch, check and time
 * kernels.  Needs the CUDA toolkit; the host half is declared in case.h.
 */
#ifndef GM_HARNESS_H
#define GM_HARNESS_H

#include "case.h"

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Check a CUDA runtime call inside a function that returns gm_status and has
 * `gm_error *err` in scope; the message carries the expression, file and line. */
#define GM_CUDA(call)                                                             \
    do {                                                                          \
        cudaError_t gm_cuda_rc_ = (call);                                         \
        if (gm_cuda_rc_ != cudaSuccess)                                           \
            return gm_fail(err, GM_ERR_CUDA, "%s:%d: %s: %s (%s)", __FILE__,      \
                           __LINE__, #call, cudaGetErrorString(gm_cuda_rc_),      \
                           cudaGetErrorName(gm_cuda_rc_));                        \
    } while (0)

/* After a kernel launch: check cudaGetLastError(). */
#define GM_CUDA_LAUNCHED() GM_CUDA(cudaGetLastError())

/* Poison a device buffer (0xFF bytes: NaN for floats, -1 for ints). */
gm_status gm_poison(void *dev, size_t bytes, cudaStream_t s, gm_error *err);

/* For setup: registers per thread and static shared memory of the case's
 * __global__ function as compiled (cudaFuncGetAttributes); sets
 * c->launch.registers and c->launch.shared_bytes (no suite kernel asks for
 * dynamic shared memory).  kernel: (const void *)my_kernel.  The one
 * attribute query of the suite. */
gm_status gm_case_query_kernel(gm_case *c, const void *kernel, gm_error *err);

/* Copy `bytes` of device memory into a pinned host buffer that the harness
 * keeps and grows (pageable copies of hundreds of MiB into fresh memory cost
 * more in page faults than the whole suite's kernels).  *host is valid until
 * the next gm_copy_back or gm_harness_release; not thread-safe. */
gm_status gm_copy_back(const void *dev, size_t bytes, void **host, gm_error *err);
/* Free what the harness keeps between cases (the pinned buffer); the runner
 * calls it at the end of a run.  Safe to call at any time. */
void gm_harness_release(void);

/* Copy n floats device->host (gm_copy_back) then compare: the usual end of a check(). */
gm_status gm_check_f32(const float *dev, const float *ref, size_t n, double atol, double rtol,
                       gm_check *out, gm_error *err);

/* ---- timing (harness.cu) -------------------------------------------------- */

/* A buffer larger than L2 (2x its size) that is written to evict L2 between
 * timed repetitions when the point is DRAM traffic. */
typedef struct {
    void *buf;
    size_t bytes;
} gm_l2flush;

gm_status gm_l2flush_init(gm_l2flush *f, int device, gm_error *err);
gm_status gm_l2flush_run(const gm_l2flush *f, cudaStream_t s, gm_error *err);
void gm_l2flush_free(gm_l2flush *f);

/* The host's monotonic clock, in ms. */
double gm_host_ms(void);

/* Time a case with device events around each launch alone: `warmup` launches
 * discarded, then `reps` samples in ms.  reset() runs before every launch when
 * the variant is not idempotent, and L2 is flushed before every launch when
 * flush is non-NULL; both outside the events.  Repetitions shorter than 2 ms
 * are enqueued in chunks behind a gate kernel and released together, so no
 * sample holds the host's time to submit its launch; *gated (may be NULL) says
 * whether they were (false for long repetitions, or when a gate timed out and
 * the case was timed again without). */
gm_status gm_time_case(gm_case *c, cudaStream_t s, int warmup, int reps,
                       const gm_l2flush *flush, double *samples_ms, bool *gated, gm_error *err);

/* Device-to-device cudaMemcpy bandwidth: GB/s (1e9 B/s) counting bytes read
 * plus bytes written, median of reps, on a buffer of `bytes`. */
gm_status gm_measure_copy_bandwidth(size_t bytes, int reps, double *median_gbs,
                                    gm_error *err);

/* The attainable ceiling: the best median bandwidth of plain copy kernels
 * (4-, 8- and 16-byte accesses; a thread per element or a grid-stride loop
 * at 2, 4 and 8 blocks of 256 per SM) and a read-only kernel (16-byte loads),
 * on buffers of `bytes`, `reps` samples each after two warm-up launches.
 * Useful bytes per second, GB/s (copy: read + written; read: read).  `which`
 * says which kernel gave it ("copy, 16-byte accesses, 4 x 256-thread blocks
 * per SM, grid-stride"). */
gm_status gm_measure_attainable_bandwidth(size_t bytes, int reps, double *best_gbs, char *which,
                                          size_t which_cap, gm_error *err);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* For launches: the grid and block describe put in c->launch. */
static inline dim3 gm_case_grid(const gm_case *c)
{
    return dim3(c->launch.grid[0], c->launch.grid[1], c->launch.grid[2]);
}

static inline dim3 gm_case_block(const gm_case *c)
{
    return dim3(c->launch.block[0], c->launch.block[1], c->launch.block[2]);
}
#endif

#endif
