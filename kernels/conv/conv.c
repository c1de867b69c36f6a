/* conv.c — experiment 12, 7x7 convolution: global, constant, shared: the CPU side of its variants.
 *
 * The experiment as data: its description (gm_exp_conv: the question, the
 * contrast that answers it, the sweep) and its rows (gm_conv_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "conv.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_conv = {
    .id = "conv",
    .title = "Constant-memory broadcast: a 7x7 convolution",
    .summary =
        "All threads of a warp read the same filter coefficient at the same step. From "
        "constant memory that uniform read is one broadcast, and the coefficient can be an "
        "operand of the multiply-add itself; from global memory it is a load instruction per "
        "coefficient. The 7x7 neighbourhoods of adjacent pixels overlap: a shared-memory tile "
        "with its halo loads each pixel from global memory about twice instead of through 49 "
        "cached loads.",
    .source =
        "an untitled article on memory coalescing (constant-memory broadcast and "
        "shared-memory tiling in a convolution)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = false,
    .baseline_variant = "global",
    .question =
        "Does a constant-memory broadcast of the 7x7 filter beat reading it from global "
        "memory?",
    .contrast_a = "global",
    .contrast_b = "constant",
    .contrast_at = NULL,
    .contrast_counter = "ld_requests",
};

/* 4096^2 floats: 64 MiB per field. */
#define S_CV_N {"n", GM_VALUES(1024, 2048, 4096), GM_VALUES(1024)}

/* reset loads the filter into __constant__ memory; it is the same filter in
 * every case. */
const gm_variant gm_conv_rows[] = {
    {.experiment = &gm_exp_conv,
     .name = "global",
     .layout = "filter coefficients by global loads (one address per warp), image through L1",
     .params = {S_CV_N},
     GM_FNS(conv),
     .kind = GM_CONV_GLOBAL,
     .launch = GM_GPU(conv_launch_global),
     .trace = conv_trace,
     .idempotent = true},
    {.experiment = &gm_exp_conv,
     .name = "constant",
     .layout = "filter in __constant__ memory (a broadcast per coefficient), image through L1",
     .params = {S_CV_N},
     GM_FNS(conv),
     .kind = GM_CONV_CONSTANT,
     .launch = GM_GPU(conv_launch_constant),
     .trace = conv_trace,
     .idempotent = true},
    {.experiment = &gm_exp_conv,
     .name = "shared",
     .layout = "filter in __constant__ memory, 38x14 image tile with its halo in shared memory",
     .params = {S_CV_N},
     GM_FNS(conv),
     .kind = GM_CONV_SHARED,
     .launch = GM_GPU(conv_launch_shared),
     .trace = conv_trace,
     .idempotent = true},
};
const size_t gm_conv_rows_len = sizeof gm_conv_rows / sizeof gm_conv_rows[0];

/* ---- describe ------------------------------------------------------------- */

gm_status conv_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n < 1 || n > 32768)
        return gm_fail(err, GM_ERR_VALUE, "conv/%s: n = %lld is outside 1..32768",
                       c->variant->name, n);
    long long shared = 0;
    if (c->variant->kind == GM_CONV_SHARED)
        shared = 4 * CONV_TH * CONV_TW;
    else if (c->variant->kind != GM_CONV_GLOBAL && c->variant->kind != GM_CONV_CONSTANT)
        return gm_fail(err, GM_ERR_VALUE, "conv: unknown variant '%s'", c->variant->name);
    gm_case_set_shape(c, (unsigned)((n + CONV_BX - 1) / CONV_BX),
                      (unsigned)((n + CONV_BY - 1) / CONV_BY), 1, CONV_BX, CONV_BY, 1, shared);
    snprintf(c->kernel, sizeof c->kernel, "conv_kernel_%s", c->variant->name);
    c->bytes_read = 4 * n * n + 4 * GM_CONV_TAPS * GM_CONV_TAPS;   /* image and filter once */
    c->bytes_written = 4 * n * n;
    c->flops = 2LL * GM_CONV_TAPS * GM_CONV_TAPS * n * n;   /* border taps counted in full */
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_conv7(const float *in, float *out, int w, int h, const float *filt)
{
    gm_ref_conv7_range(in, out, w, h, filt, 0, (size_t)w * h);
}

void gm_ref_conv7_range(const float *in, float *out, int w, int h, const float *filt,
                        size_t begin, size_t end)
{
    for (size_t e = begin; e < end; ++e) {
        int y = (int)(e / (size_t)w), x = (int)(e % (size_t)w);
        double s = 0.0;
        for (int dy = -GM_CONV_R; dy <= GM_CONV_R; ++dy) {
            int yy = y + dy;
            if (yy < 0 || yy >= h)
                continue;
            for (int dx = -GM_CONV_R; dx <= GM_CONV_R; ++dx) {
                int xx = x + dx;
                if (xx < 0 || xx >= w)
                    continue;
                s += (double)filt[(dy + GM_CONV_R) * GM_CONV_TAPS + dx + GM_CONV_R] *
                     in[(size_t)yy * w + xx];
            }
        }
        out[e] = (float)s;
    }
}
