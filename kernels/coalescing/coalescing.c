/* coalescing.c — experiment 1, coalesced vs strided reads: the CPU side of its variants.
 *
 * The experiment as data: its description (gm_exp_coalescing: the question, the
 * contrast that answers it, the sweep) and its rows (gm_coalescing_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "coalescing.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_coalescing = {
    .id = "coalescing",
    .title = "Coalesced vs strided reads",
    .summary =
        "Every variant gathers the same N floats into a contiguous output, each input "
        "element read once, so the useful work is identical; only the order in which a "
        "warp's 32 threads touch memory changes. With a stride of s elements the 32 "
        "4-byte loads of a warp land in min(32, 4s) different 32-byte sectors instead of "
        "4, so DRAM and L2 move up to 8 times the bytes the kernel uses. The float2 and "
        "float4 variants read the same array contiguously with 8- and 16-byte loads: "
        "fewer instructions and more bytes in flight per thread.",
    .source =
        "untitled notes on cache lines and sectors (sectors per request); Part 17: "
        "Memory Hierarchy (CUDA course module) (strided vs coalesced access)",
    .sweep_param = "stride",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "stride",
    .question =
        "How much longer does a strided read take than a coalesced one, when every "
        "element is still read exactly once?",
    .contrast_a = "stride@stride=32",
    .contrast_b = "stride@stride=1",
    .contrast_at = NULL,
    .contrast_counter = "ld_spr",
};

/* Sizes: N = 2^25 floats (128 MiB read, 128 MiB written per launch, about
 * 0.1 ms at H100 copy bandwidth); --quick N = 2^22. */
#define S_COAL_N {"n", GM_VALUES(1 << 25), GM_VALUES(1 << 22)}

const gm_variant gm_coalescing_rows[] = {
    {.experiment = &gm_exp_coalescing,
     .name = "stride",
     .layout = "thread i reads float in[(i mod (N/s))*s + i div (N/s)]: a warp's 32 4-byte "
               "loads are s*4 bytes apart; the grid still reads every element once",
     .params = {S_COAL_N, {"stride", GM_VALUES(1, 2, 4, 8, 16, 32), GM_VALUES(1, 4, 32)}},
     GM_FNS(coalescing),
     .kind = GM_COALESCING_STRIDE,
     .launch = GM_GPU(coalescing_launch_stride),
     .trace = coalescing_trace,
     .idempotent = true},
    {.experiment = &gm_exp_coalescing,
     .name = "float2",
     .layout = "thread i reads float2 in[2i..2i+1]: a warp reads 256 contiguous bytes with "
               "8-byte loads",
     .params = {S_COAL_N, {"stride", GM_VALUES(1), GM_AS_FULL}},
     GM_FNS(coalescing),
     .kind = GM_COALESCING_FLOAT2,
     .launch = GM_GPU(coalescing_launch_float2),
     .trace = coalescing_trace,
     .idempotent = true},
    {.experiment = &gm_exp_coalescing,
     .name = "float4",
     .layout = "thread i reads float4 in[4i..4i+3]: a warp reads 512 contiguous bytes with "
               "16-byte loads",
     .params = {S_COAL_N, {"stride", GM_VALUES(1), GM_AS_FULL}},
     GM_FNS(coalescing),
     .kind = GM_COALESCING_FLOAT4,
     .launch = GM_GPU(coalescing_launch_float4),
     .trace = coalescing_trace,
     .idempotent = true},
};
const size_t gm_coalescing_rows_len = sizeof gm_coalescing_rows / sizeof gm_coalescing_rows[0];

/* ---- describe ------------------------------------------------------------- */

gm_status coalescing_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0), s = gm_case_param(c, "stride", 1);
    int w = gm_coalescing_width(c);
    if (n <= 0 || n > (1ll << 31) || s <= 0 || s > 65535 || n % (s * w) != 0)
        return gm_fail(err, GM_ERR_VALUE,
                       "coalescing/%s: n=%lld, stride=%lld: need 0 < n <= 2^31, "
                       "0 < stride <= 65535, n a multiple of stride*%d",
                       c->variant->name, n, s, w);
    if (w > 1 && s != 1)
        return gm_fail(err, GM_ERR_VALUE, "coalescing/%s: stride must be 1 (got %lld)",
                       c->variant->name, s);
    snprintf(c->kernel, sizeof c->kernel, "coalescing_kernel_%s", c->variant->name);
    /* One thread per load: N/s rows x s columns, or N/w vector loads. */
    long long threads = (w == 1) ? n / s : n / w;
    c->launch.grid[0] = (unsigned)((threads + COALESCING_BLOCK - 1) / COALESCING_BLOCK);
    c->launch.grid[1] = (w == 1) ? (unsigned)s : 1;
    c->launch.grid[2] = 1;
    c->launch.block[0] = COALESCING_BLOCK;
    c->launch.block[1] = c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* Each input read once, each output written once: 4N bytes each way. */
    c->bytes_read = 4 * n;
    c->bytes_written = 4 * n;
    c->flops = -1;
    if (w == 1 && s > 1)
        snprintf(c->note, sizeof c->note,
                 "a warp's loads span %lld bytes: %lld sectors of 32 B for 128 useful bytes",
                 31 * s * 4 + 4, s >= 8 ? 32 : 4 * s);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

/* Column-major reading of an (n/s x s) row-major view: consecutive i walk down
 * a column, s elements apart; after n/s of them the next column starts. */
size_t gm_ref_coalescing_index(size_t i, size_t n, size_t stride)
{
    size_t m = n / stride;
    return (i % m) * stride + i / m;
}

/* i = c*m + r reads in[r*s + c]: one division per column, not per element. */
void gm_ref_coalescing_range(const float *in, float *out, size_t n, size_t stride, size_t i0,
                             size_t i1)
{
    size_t m = n / stride;
    size_t i = i0;
    while (i < i1) {
        size_t c = i / m, r = i % m;
        size_t stop = (c + 1) * m < i1 ? (c + 1) * m : i1;
        for (; i < stop; i++, r++)
            out[i] = in[r * stride + c];
    }
}

void gm_ref_coalescing(const float *in, float *out, size_t n, size_t stride)
{
    gm_ref_coalescing_range(in, out, n, stride, 0, n);
}
