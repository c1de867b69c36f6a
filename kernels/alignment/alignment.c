/* alignment.c — experiment 2, a coalesced read shifted off alignment: the CPU side of its variants.
 *
 * The experiment as data: its description (gm_exp_alignment: the question, the
 * contrast that answers it, the sweep) and its rows (gm_alignment_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "alignment.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_alignment = {
    .id = "alignment",
    .title = "Misaligned reads",
    .summary =
        "A contiguous copy whose source starts 0 to 128 bytes past a line boundary. A warp's "
        "128-byte request then straddles two 128-byte lines unless the offset is a multiple of "
        "128, and five 32-byte sectors instead of four unless it is a multiple of 32: at 96 "
        "bytes it costs a second line but no extra bytes, at 100 bytes both. Neighbouring "
        "warps share the straddled lines, so caches absorb much of the cost; the sector "
        "counts show what remains. 16-byte loads need 16-byte-aligned addresses and run only "
        "at those offsets.",
    .source =
        "untitled notes on cache lines and sectors (offsets 0, 96 and 100 bytes: cross "
        "a line, pay in time; cross a sector, pay in bytes)",
    .sweep_param = "offset",
    .sweep_log2 = false,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "scalar",
    .question =
        "At one access width (4-byte loads), what does starting 100 bytes past a line "
        "cost against an aligned start, and 96 bytes (a line crossed, no sector wasted)?",
    .contrast_a = "scalar@offset=100",
    .contrast_b = "scalar@offset=0",
    .contrast_at = NULL,
    .contrast_counter = "ld_spr",
};

/* The same N for the shifted copy: 33 offsets of 256 MiB of traffic. */
#define S_ALIGN_N {"n", GM_VALUES(1 << 25), GM_VALUES(1 << 22)}
#define S_ALIGN_OFFSETS                                                           \
    GM_VALUES(0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 68, 72, 76, 80,  \
              84, 88, 92, 96, 100, 104, 108, 112, 116, 120, 124, 128)

const gm_variant gm_alignment_rows[] = {
    {.experiment = &gm_exp_alignment,
     .name = "scalar",
     .layout = "out[i] = in[offset/4 + i]: each warp reads 128 contiguous bytes starting "
               "offset bytes past a 512-byte-aligned base",
     .params = {S_ALIGN_N, {"offset", S_ALIGN_OFFSETS, GM_VALUES(0, 4, 32, 96, 100, 128)}},
     GM_FNS(alignment),
     .kind = GM_ALIGNMENT_SCALAR,
     .launch = GM_GPU(alignment_launch_scalar),
     .trace = alignment_trace,
     .idempotent = true},
    {.experiment = &gm_exp_alignment,
     .name = "float4",
     .layout = "the same copy with 16-byte loads: each warp reads 512 contiguous bytes; "
               "needs a 16-byte-aligned source",
     .params = {S_ALIGN_N,
                {"offset", GM_VALUES(0, 16, 32, 48, 64, 80, 96, 100, 112, 128),
                 GM_VALUES(0, 96, 100)}},
     GM_FNS(alignment),
     .kind = GM_ALIGNMENT_FLOAT4,
     .launch = GM_GPU(alignment_launch_float4),
     .trace = alignment_trace,
     .idempotent = true},
};
const size_t gm_alignment_rows_len = sizeof gm_alignment_rows / sizeof gm_alignment_rows[0];

/* ---- describe ------------------------------------------------------------- */

gm_status alignment_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0), off = gm_case_param(c, "offset", 0);
    int w = gm_alignment_width(c);
    if (n <= 0 || n % 4 != 0 || n > (1ll << 32) || off < 0 || off > 4 * ALIGNMENT_PAD ||
        off % 4 != 0)
        return gm_fail(err, GM_ERR_VALUE,
                       "alignment/%s: n=%lld, offset=%lld: need n a positive multiple of 4 "
                       "(at most 2^32) and offset a multiple of 4 bytes in [0, %d]",
                       c->variant->name, n, off, 4 * ALIGNMENT_PAD);
    snprintf(c->kernel, sizeof c->kernel, "alignment_kernel_%s", c->variant->name);
    c->launch.grid[0] = (unsigned)((n / w + ALIGNMENT_BLOCK - 1) / ALIGNMENT_BLOCK);
    c->launch.grid[1] = c->launch.grid[2] = 1;
    c->launch.block[0] = ALIGNMENT_BLOCK;
    c->launch.block[1] = c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* Each source float read once, each output float written once. */
    c->bytes_read = 4 * n;
    c->bytes_written = 4 * n;
    c->flops = -1;
    /* A warp request covers 32*4*w bytes from `off` (mod 128; the base is
     * 512-byte aligned): lines and sectors it touches. */
    long long span = 128ll * w, b = off % 128;
    long long lines = (b + span + 127) / 128, sectors = (b % 32 + span + 31) / 32;
    snprintf(c->note, sizeof c->note,
             "each warp request: %lld bytes starting %lld bytes into a 128-byte line: "
             "%lld line%s, %lld sectors of 32 B (%lld needed)",
             span, b, lines, lines == 1 ? "" : "s", sectors, span / 32);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

#include <string.h>

void gm_ref_alignment(const float *in, float *out, size_t n, size_t offset_floats)
{
    memcpy(out, in + offset_floats, n * sizeof *out);
}
