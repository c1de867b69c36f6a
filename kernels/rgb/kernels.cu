/* rgb/kernels.cu — experiment 4: invert the red channel of an RGB image, stored
 * interleaved (RGBRGB...) or planar (RRR...GGG...BBB...), in place.
 *
 * The lab report of seed 003 timed this at 960x1280 pixels, 1x, 2x and 4x, with
 * 64..1024 threads per block.  We run those sizes and a 64x image (78.6
 * Mpixel, 236 MB) where launch overhead no longer hides the memory system.
 * Every variant must read the P red bytes once and write them once: 2P bytes.
 * The kernels work in place, so reset restores the image from a pristine
 * device copy before every launch (outside the timed region).
 *
 * Run: build/tests/gpu/suite_validate --only rgb   (build/gpumem-report collect --only rgb)
 *
 * variants:
 *   interleaved  thread i inverts byte 3i (the seed's "uncoalesced" kernel): a
 *                warp's 32 one-byte loads span 96 bytes, and DRAM moves the
 *                green and blue bytes between them too
 *   planar       thread i inverts byte i of the red plane (the seed's
 *                "coalesced" kernel): 32 contiguous bytes, one sector per warp
 *   planar_x16   thread i inverts bytes 16i..16i+15 of the red plane with one
 *                16-byte load and store (255 - b is ~b on bytes): 512 contiguous
 *                bytes per warp, 16 times fewer threads and instructions
 *
 * Napkin math (64x: P = 78.6 M pixels): 2P = 157 MB must move, ~0.05 ms at
 * 3 TB/s.  Interleaved, every sector of the image holds red bytes, so the whole
 * 236 MB image is read and written: 3x the bytes.  With one byte per thread,
 * P threads (and at 64 threads per block 1.2 M blocks) cost time of their own.
 *
 * CPU reference: gm_ref_rgb_invert_red_interleaved, gm_ref_rgb_invert_red_planar
 * (rgb.c); address trace: trace.c.
 */
#include "rgb.h"
#include "../harness.h"

#include "../../core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels -------------------------------------------------------------- */

__global__ void rgb_kernel_interleaved(unsigned char *img, size_t pixels)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pixels)
        img[3 * i] = (unsigned char)(255 - img[3 * i]);
}

__global__ void rgb_kernel_planar(unsigned char *red, size_t pixels)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pixels)
        red[i] = (unsigned char)(255 - red[i]);
}

__global__ void rgb_kernel_planar_x16(uint4 *red, size_t n16)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n16) {
        uint4 v = red[i];
        red[i] = make_uint4(~v.x, ~v.y, ~v.z, ~v.w);
    }
}

/* ---- the image, shared by the cases of one layout and size ---------------- */

/* One layout of the image at one scale, shared by its cases (every block size,
 * and planar with planar_x16): the pristine image and the reference on the host,
 * the pristine copy and the working image on the device.  Sharing the working
 * image is safe because every launch is preceded by a reset that restores it. */
typedef struct {
    bool planar;
    size_t pixels;
    unsigned char *h_ref;   /* host: expected image after one launch */
    unsigned char *d_orig;  /* device: pristine */
    unsigned char *d_img;   /* device: what the kernel inverts */
} S_image;

typedef struct {
    bool planar;
    size_t pixels;
    unsigned char *img;   /* host image in the layout; becomes the reference */
    const unsigned char *rgb;
} S_build_job;

/* Lay the interleaved source out (planar: deinterleave), then apply the CPU
 * reference in place. */
static void S_build_chunk(void *ctx, size_t p0, size_t p1)
{
    S_build_job *j = (S_build_job *)ctx;
    if (j->planar) {
        for (size_t i = p0; i < p1; i++)
            for (int ch = 0; ch < 3; ch++)
                j->img[(size_t)ch * j->pixels + i] = j->rgb[3 * i + (size_t)ch];
    } else {
        memcpy(j->img + 3 * p0, j->rgb + 3 * p0, 3 * (p1 - p0));
    }
}

static void S_ref_chunk(void *ctx, size_t p0, size_t p1)
{
    S_build_job *j = (S_build_job *)ctx;
    if (j->planar)
        gm_ref_rgb_invert_red_planar(j->img, p0, p1);
    else
        gm_ref_rgb_invert_red_interleaved(j->img, p0, p1);
}

static gm_status S_image_build(void *obj, void *ctx, gm_error *err)
{
    S_image *im = (S_image *)obj;
    const S_image *want = (const S_image *)ctx;
    im->planar = want->planar;
    im->pixels = want->pixels;
    size_t bytes = 3 * im->pixels;
    /* The same picture for both layouts: bytes of pixel i are R, G, B = rgb[3i..3i+2]. */
    unsigned char *rgb = (unsigned char *)gm_xmalloc(bytes);
    gm_fill_bytes(rgb, bytes, 0x5EED0003ull ^ im->pixels);
    im->h_ref = (unsigned char *)gm_xmalloc(bytes);
    S_build_job job = {im->planar, im->pixels, im->h_ref, rgb};
    gm_parallel_for(im->pixels, GM_PAR_ELEMS, S_build_chunk, &job);
    free(rgb);
    cudaError_t e = cudaMalloc(&im->d_orig, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(im->d_orig, im->h_ref, bytes, cudaMemcpyHostToDevice);
    GM_CUDA(e);
    GM_CUDA(cudaMalloc(&im->d_img, bytes));
    /* CPU reference call: the host copy becomes the expected image. */
    gm_parallel_for(im->pixels, GM_PAR_ELEMS, S_ref_chunk, &job);
    return GM_OK;
}

static void S_image_destroy(void *obj)
{
    S_image *im = (S_image *)obj;
    if (im->d_orig)
        cudaFree(im->d_orig);
    if (im->d_img)
        cudaFree(im->d_img);
    free(im->h_ref);
}

typedef struct {
    size_t pixels;
    S_image *img;
} S_state;

/* ---- launchers ------------------------------------------------------------ */

gm_status rgb_launch_interleaved(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    rgb_kernel_interleaved<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(st->img->d_img,
                                                                          st->pixels);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status rgb_launch_planar(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    rgb_kernel_planar<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(st->img->d_img, st->pixels);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

gm_status rgb_launch_planar_x16(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    rgb_kernel_planar_x16<<<c->launch.grid[0], c->launch.block[0], 0, s>>>(
        (uint4 *)st->img->d_img, st->pixels / 16);
    GM_CUDA_LAUNCHED();
    return GM_OK;
}

/* ---- setup / reset / check / teardown ------------------------------------- */

static const void *S_kernel(const gm_case *c)
{
    if (!gm_rgb_planar(c))
        return (const void *)rgb_kernel_interleaved;
    return gm_rgb_bytes_per_thread(c) == 16 ? (const void *)rgb_kernel_planar_x16
                                       : (const void *)rgb_kernel_planar;
}

gm_status rgb_setup(gm_case *c, gm_error *err)
{
    gm_status rc = gm_case_query_kernel(c, S_kernel(c), err);
    if (rc != GM_OK)
        return rc;
    S_state *st = (S_state *)gm_xcalloc(1, sizeof *st);
    c->state = st;
    st->pixels = (size_t)(RGB_BASE_PIXELS * gm_case_param(c, "scale", 1));
    S_image want;
    memset(&want, 0, sizeof want);
    want.planar = gm_rgb_planar(c);
    want.pixels = st->pixels;
    char key[64];
    snprintf(key, sizeof key, "rgb/%s/%zu", want.planar ? "planar" : "interleaved", st->pixels);
    return gm_shared_get(key, sizeof(S_image), S_image_build, S_image_destroy, &want,
                         (void **)&st->img, err);
}

/* In place: the input is the output, so reset restores the pristine image
 * (no poison needed: 255 - r == r has no byte solution, so an untouched red
 * byte always fails the check). */
gm_status rgb_reset(gm_case *c, cudaStream_t s, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    GM_CUDA(cudaMemcpyAsync(st->img->d_img, st->img->d_orig, 3 * st->pixels,
                            cudaMemcpyDeviceToDevice, s));
    return GM_OK;
}

/* The whole image is compared, so a write into green or blue fails too. */
gm_status rgb_check(gm_case *c, gm_check *out, gm_error *err)
{
    S_state *st = (S_state *)c->state;
    size_t bytes = 3 * st->pixels;
    void *got = NULL;
    gm_status rc = gm_copy_back(st->img->d_img, bytes, &got, err);
    if (rc != GM_OK)
        return rc;
    gm_compare_u8((const unsigned char *)got, st->img->h_ref, bytes, out);
    return GM_OK;
}

void rgb_teardown(gm_case *c)
{
    S_state *st = (S_state *)c->state;
    if (!st)
        return;
    gm_shared_release(st->img);
    free(st);
    c->state = NULL;
}
