/* rgb.c — experiment 4, interleaved vs planar colour channels: the CPU side of its variants.
 *
 * The experiment as data: its description (gm_exp_rgb: the question, the
 * contrast that answers it, the sweep) and its rows (gm_rgb_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "rgb.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_rgb = {
    .id = "rgb",
    .title = "Interleaved vs planar RGB: inverting the red channel",
    .summary =
        "The lab report's experiment: invert the red byte of every pixel in place, with the "
        "image stored interleaved (RGBRGB...) or as three planes, for 64 to 1024 threads per "
        "block at 1, 2 and 4 times 960x1280 pixels, and at 64 times where the image (236 MB) "
        "is far larger than L2 and launch overhead no longer dominates. Interleaved, a warp's "
        "32 one-byte accesses span 96 bytes, so the green and blue bytes move too; planar, "
        "they are 32 contiguous bytes. With one byte per thread, though, both kernels need a "
        "thread (and small blocks many blocks) per byte, which can cost more than the bytes "
        "themselves; planar with 16 bytes per thread shows what the layout gives when each "
        "thread moves a full 16-byte word.",
    .source =
        "Lab 4, Geavanceerde Computerarchitectuur (KU Leuven), part 1 (tables 1-3)",
    .sweep_param = "block",
    .sweep_log2 = true,
    .series_param = "scale",
    .bandwidth_bound = true,
    .baseline_variant = "interleaved",
    .question =
        "Is inverting the red channel of an interleaved (RGBRGB...) image slower than of "
        "a planar one, at the same block size and image size?",
    .contrast_a = "interleaved",
    .contrast_b = "planar",
    .contrast_at = "scale=64,block=256",
    .contrast_counter = "ld_spr",
};

/* Pixel count multiples of 960x1280 (the seed's 1x, 2x, 4x and our 64x). */
#define S_RGB_SCALE {"scale", GM_VALUES(1, 2, 4, 64), GM_VALUES(1)}
#define S_RGB_BLOCK {"block", GM_VALUES(64, 128, 256, 512, 1024), GM_VALUES(128, 256)}

/* In place: reset restores the image before every launch. */
const gm_variant gm_rgb_rows[] = {
    {.experiment = &gm_exp_rgb,
     .name = "interleaved",
     .layout = "RGBRGB...: thread i inverts byte 3i, a warp's accesses 3 bytes apart",
     .params = {S_RGB_SCALE, S_RGB_BLOCK},
     GM_FNS(rgb),
     .kind = GM_RGB_INTERLEAVED,
     .launch = GM_GPU(rgb_launch_interleaved),
     .trace = rgb_trace},
    {.experiment = &gm_exp_rgb,
     .name = "planar",
     .layout = "RRR...GGG...BBB...: thread i inverts red byte i, a warp's accesses contiguous",
     .params = {S_RGB_SCALE, S_RGB_BLOCK},
     GM_FNS(rgb),
     .kind = GM_RGB_PLANAR,
     .launch = GM_GPU(rgb_launch_planar),
     .trace = rgb_trace},
    {.experiment = &gm_exp_rgb,
     .name = "planar_x16",
     .layout = "planar, thread i inverts red bytes 16i..16i+15 with one 16-byte load and store",
     .params = {S_RGB_SCALE, {"block", GM_VALUES(256), GM_AS_FULL}},
     GM_FNS(rgb),
     .kind = GM_RGB_PLANAR_X16,
     .launch = GM_GPU(rgb_launch_planar_x16),
     .trace = rgb_trace},
};
const size_t gm_rgb_rows_len = sizeof gm_rgb_rows / sizeof gm_rgb_rows[0];

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
