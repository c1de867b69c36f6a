/* rgb.c — experiment 4, interleaved vs planar colour channels: the CPU side of its variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "rgb.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describe ------------------------------------------------------------- */

gm_status rgb_describe(gm_case *c, gm_error *err)
{
    long long scale = gm_case_param(c, "scale", 1), block = gm_case_param(c, "block", 256);
    if (scale <= 0 || scale > 256 || block <= 0 || block > 1024 || block % 32 != 0)
        return gm_fail(err, GM_ERR_VALUE,
                       "rgb/%s: scale=%lld, block=%lld: need scale in [1, 256] and block a "
                       "multiple of 32 in [32, 1024]",
                       c->variant->name, scale, block);
    long long pixels = RGB_BASE_PIXELS * scale;   /* a multiple of 16: 960*1280 = 16 * 76800 */
    int w = gm_rgb_bytes_per_thread(c);
    snprintf(c->kernel, sizeof c->kernel, "rgb_kernel_%s", c->variant->name);
    c->launch.grid[0] = (unsigned)((pixels / w + block - 1) / block);
    c->launch.grid[1] = c->launch.grid[2] = 1;
    c->launch.block[0] = (unsigned)block;
    c->launch.block[1] = c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* The red channel read once and written once; green and blue are not needed. */
    c->bytes_read = pixels;
    c->bytes_written = pixels;
    c->flops = -1;
    if (!gm_rgb_planar(c))
        snprintf(c->note, sizeof c->note,
                 "a warp's 32 one-byte loads span 96 bytes (3-4 sectors) for 32 useful "
                 "bytes; %lld pixels (%lld x 960x1280), %.1f MB interleaved",
                 pixels, scale, 3.0 * (double)pixels / 1e6);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_rgb_invert_red_interleaved(unsigned char *img, size_t p0, size_t p1)
{
    for (size_t i = p0; i < p1; i++)
        img[3 * i] = (unsigned char)(255 - img[3 * i]);
}

void gm_ref_rgb_invert_red_planar(unsigned char *img, size_t p0, size_t p1)
{
    for (size_t i = p0; i < p1; i++)
        img[i] = (unsigned char)(255 - img[i]);
}
