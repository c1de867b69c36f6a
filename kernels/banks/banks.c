/* banks.c — experiment 10, shared-memory bank conflicts: the CPU side of its variants.
 *
 * The experiment as data: its description (gm_exp_banks: the question, the
 * contrast that answers it, the sweep) and its rows (gm_banks_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "banks.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_banks = {
    .id = "banks",
    .title = "Shared-memory bank conflicts: stride and padding",
    .summary =
        "Each thread of a warp reads the shared-memory word lane x stride. With 32 banks of "
        "4-byte words, a stride of 2, 4, ... 32 words puts 2, 4, ... 32 different words on "
        "each bank in use, and the hardware serves one of them per wavefront. Padding the "
        "array by one word per 32 spreads every stride over all the banks. The global traffic "
        "is the same small amount in every case, so time and wavefront counts isolate the "
        "conflicts.",
    .source =
        "Part 17: Memory Hierarchy (CUDA course module) (bank-conflict scenarios, "
        "padding: 180 vs 1300 GB/s)",
    .sweep_param = "stride",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = false,
    .baseline_variant = "unpadded",
    .question =
        "At a stride of 32 words, a 32-way bank conflict, what does padding the shared "
        "array save?",
    .contrast_a = "unpadded@stride=32",
    .contrast_b = "padded@stride=32",
    .contrast_at = NULL,
    .contrast_counter = "shared_wpi",
};

/* 2^20 threads x 512 shared loads: ~70 us conflict-free, ~2 ms at 32-way. */
#define S_BK_PARAMS                                                               \
    {"threads", GM_VALUES(1 << 20), GM_VALUES(1 << 18)},                          \
        {"stride", GM_VALUES(1, 2, 4, 8, 16, 32), GM_VALUES(1, 4, 32)},           \
        {"reps", GM_VALUES(512), GM_AS_FULL}

const gm_variant gm_banks_rows[] = {
    {.experiment = &gm_exp_banks,
     .name = "unpadded",
     .layout = "lane l reads shared word l x stride: stride 2^k is a 2^k-way bank conflict",
     .params = {S_BK_PARAMS},
     GM_FNS(banks),
     .kind = GM_BANKS_UNPADDED,
     .launch = GM_GPU(banks_launch_unpadded),
     .trace = banks_trace,
     .idempotent = true},
    {.experiment = &gm_exp_banks,
     .name = "padded",
     .layout = "word w stored at w + w/32: every stride spreads over the 32 banks",
     .params = {S_BK_PARAMS},
     GM_FNS(banks),
     .kind = GM_BANKS_PADDED,
     .launch = GM_GPU(banks_launch_padded),
     .trace = banks_trace,
     .idempotent = true},
};
const size_t gm_banks_rows_len = sizeof gm_banks_rows / sizeof gm_banks_rows[0];

/* ---- describe ------------------------------------------------------------- */

gm_status banks_describe(gm_case *c, gm_error *err)
{
    long long threads = gm_case_param(c, "threads", 0);
    long long stride = gm_case_param(c, "stride", 1), reps = gm_case_param(c, "reps", 0);
    if (stride < 1 || stride > 32 || reps < 1 || reps > 1 << 20 || reps % GM_BANKS_UNROLL ||
        threads < GM_BANKS_BLOCK || threads % GM_BANKS_BLOCK || threads > 1LL << 28)
        return gm_fail(err, GM_ERR_VALUE,
                       "banks/%s: stride = %lld, reps = %lld, threads = %lld: need stride in "
                       "1..32 (lane 31 x stride must stay inside the staged words), reps a "
                       "multiple of %d up to 2^20, threads a multiple of %d up to 2^28",
                       c->variant->name, stride, reps, threads, GM_BANKS_UNROLL, GM_BANKS_BLOCK);
    long long words = GM_BANKS_WORDS;
    if (c->variant->kind == GM_BANKS_PADDED)
        words += GM_BANKS_WORDS / 32;
    else if (c->variant->kind != GM_BANKS_UNPADDED)
        return gm_fail(err, GM_ERR_VALUE, "banks: unknown variant '%s'", c->variant->name);
    gm_case_set_shape(c, (unsigned)(threads / GM_BANKS_BLOCK), 1, 1, GM_BANKS_BLOCK, 1, 1,
                      4 * words);
    snprintf(c->kernel, sizeof c->kernel, "banks_kernel_%s", c->variant->name);
    c->bytes_read = threads / GM_BANKS_BLOCK * GM_BANKS_WORDS * 4;   /* 32 B per thread */
    c->bytes_written = threads * 4;
    c->flops = threads * reps;   /* one add per shared load */
    snprintf(c->note, sizeof c->note,
             "%lld shared loads of 4 B per thread: %lld MiB of shared-memory traffic against "
             "%lld MiB of global traffic",
             reps, threads * reps * 4 >> 20, (c->bytes_read + c->bytes_written) >> 20);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_banks(const float *in, float *out, long long blocks, int stride, int reps)
{
    gm_ref_banks_range(in, out, stride, reps, 0, (size_t)blocks * GM_BANKS_BLOCK);
}

void gm_ref_banks_range(const float *in, float *out, int stride, int reps, size_t begin,
                        size_t end)
{
    for (size_t t = begin; t < end; ++t) {
        const float *s = in + t / GM_BANKS_BLOCK * GM_BANKS_WORDS;
        int lane = (int)(t % 32);
        float sum = 0.0f;   /* float, in the kernel's order: the result is exact */
        for (int r = 0; r < reps; ++r)
            sum += s[lane * stride + 32 * (r % GM_BANKS_UNROLL)];
        out[t] = sum;
    }
}
