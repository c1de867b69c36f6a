/* texture.c — experiment 13, semi-Lagrangian advection through global, read-only and texture
 * loads: the CPU side of its variants.
 *
 * The experiment as data: its description (gm_exp_texture: the question, the
 * contrast that answers it, the sweep) and its rows (gm_texture_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "texture.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_texture = {
    .id = "texture",
    .title = "Texture path: semi-Lagrangian advection",
    .summary =
        "Each cell traces back along a swirling velocity and interpolates the field "
        "bilinearly at the departure point, clamped at the edges. Neighbouring threads sample "
        "near each other but not in a row: scattered reads with 2D locality. The texture "
        "unit reads a block-linear array and filters and clamps in hardware; the plain "
        "versions issue four loads (ordinary or read-only) and do the arithmetic. Texture "
        "weights have 8 fractional bits, so its results differ from the others by a bounded "
        "amount.",
    .source =
        "an untitled article on memory coalescing (texture memory for semi-Lagrangian "
        "advection)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "global",
    .question =
        "For scattered reads with spatial locality, does the texture path beat plain "
        "global loads?",
    .contrast_a = "global",
    .contrast_b = "texture",
    .contrast_at = NULL,
    .contrast_counter = "dram_bytes",
};

/* 4096^2 floats: 64 MiB per field. */
#define S_TX_N {"n", GM_VALUES(1024, 2048, 4096), GM_VALUES(1024)}

const gm_variant gm_texture_rows[] = {
    {.experiment = &gm_exp_texture,
     .name = "global",
     .layout = "four corner loads from the row-major field, bilinear weights and clamping in "
               "the kernel",
     .params = {S_TX_N},
     GM_FNS(texture),
     .kind = GM_TEXTURE_GLOBAL,
     .launch = GM_GPU(texture_launch_global),
     .trace = texture_trace,
     .idempotent = true},
    {.experiment = &gm_exp_texture,
     .name = "readonly",
     .layout = "the same four loads through the read-only data path (__ldg)",
     .params = {S_TX_N},
     GM_FNS(texture),
     .kind = GM_TEXTURE_READONLY,
     .launch = GM_GPU(texture_launch_readonly),
     .trace = texture_trace,
     .idempotent = true},
    {.experiment = &gm_exp_texture,
     .name = "texture",
     .layout = "one tex2D on a block-linear cudaArray: hardware bilinear filter and clamp",
     .params = {S_TX_N},
     GM_FNS(texture),
     .kind = GM_TEXTURE_TEXTURE,
     .launch = GM_GPU(texture_launch_texture),
     .trace = texture_trace,
     .idempotent = true},
};
const size_t gm_texture_rows_len = sizeof gm_texture_rows / sizeof gm_texture_rows[0];

/* ---- describe ------------------------------------------------------------- */

gm_status texture_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0);
    if (n < 2 || n > 16384)
        return gm_fail(err, GM_ERR_VALUE, "texture/%s: n = %lld is outside 2..16384",
                       c->variant->name, n);
    if (c->variant->kind != GM_TEXTURE_GLOBAL && c->variant->kind != GM_TEXTURE_READONLY &&
        c->variant->kind != GM_TEXTURE_TEXTURE)
        return gm_fail(err, GM_ERR_VALUE, "texture: unknown variant '%s'", c->variant->name);
    gm_case_set_shape(c, (unsigned)((n + ADV_BX - 1) / ADV_BX),
                      (unsigned)((n + ADV_BY * ADV_CELLS - 1) / (ADV_BY * ADV_CELLS)), 1, ADV_BX,
                      ADV_BY, 1, 0);
    snprintf(c->kernel, sizeof c->kernel, "texture_kernel_%s", c->variant->name);
    c->bytes_read = 3 * 4 * n * n;   /* q, u, v once */
    c->bytes_written = 4 * n * n;
    c->flops = -1;
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

static int S_clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void gm_ref_advect(const float *q, const float *u, const float *v, float *out, int w, int h,
                   float dt)
{
    gm_ref_advect_range(q, u, v, out, w, h, dt, 0, (size_t)w * h);
}

void gm_ref_advect_range(const float *q, const float *u, const float *v, float *out, int w,
                         int h, float dt, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; ++i) {
        int y = (int)(i / (size_t)w), x = (int)(i % (size_t)w);
        /* the product is rounded before the subtraction, as the kernels do it
         * (separate statements: no contraction into a fused multiply-add) */
        float sx = dt * u[i], sy = dt * v[i];
        float px = (float)x - sx;
        float py = (float)y - sy;
        /* far outside the image every tap clamps to the edge: bound the
         * coordinate first so floorf's result fits an int */
        px = fminf(fmaxf(px, -2.0f), (float)w + 1.0f);
        py = fminf(fmaxf(py, -2.0f), (float)h + 1.0f);
        float fx = floorf(px), fy = floorf(py);
        double a = px - fx, b = py - fy;
        int x0 = S_clampi((int)fx, 0, w - 1), x1 = S_clampi((int)fx + 1, 0, w - 1);
        int y0 = S_clampi((int)fy, 0, h - 1), y1 = S_clampi((int)fy + 1, 0, h - 1);
        double t00 = q[(size_t)y0 * w + x0], t10 = q[(size_t)y0 * w + x1];
        double t01 = q[(size_t)y1 * w + x0], t11 = q[(size_t)y1 * w + x1];
        out[i] = (float)((1 - b) * ((1 - a) * t00 + a * t10) + b * ((1 - a) * t01 + a * t11));
    }
}
