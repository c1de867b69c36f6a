/* ref_rgb.c — CPU reference of experiment 4 (exp_rgb.cu). */
#include "ref.h"

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
