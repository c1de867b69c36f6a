/* conv.c — experiment 12, 7x7 convolution: global, constant, shared: the CPU side of its variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "conv.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
