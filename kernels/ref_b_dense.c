/* ref_b_dense.c — CPU references for the dense experiments: matrix
 * multiplication (8), transpose (9), bank-conflict sums (10), 7x7 convolution
 * (12) and semi-Lagrangian advection (13).  See ref_b.h for the contracts. */
#include "ref_b.h"

#include <math.h>

uint64_t gm_ref_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

float gm_ref_uniform(uint64_t *state, float lo, float hi)
{
    /* 24 random bits: every value is a float in [0, 1) exactly */
    float u = (float)(gm_ref_rand(state) >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

void gm_ref_matmul(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k)
                s += (double)a[(size_t)i * n + k] * b[(size_t)k * n + j];
            c[(size_t)i * n + j] = (float)s;
        }
}

void gm_ref_transpose(const float *in, float *out, int rows, int cols)
{
    for (int r = 0; r < rows; ++r)
        for (int q = 0; q < cols; ++q)
            out[(size_t)q * rows + r] = in[(size_t)r * cols + q];
}

void gm_ref_banks(const float *in, float *out, long long blocks, int stride, int reps)
{
    for (long long b = 0; b < blocks; ++b) {
        const float *s = in + b * GM_BANKS_WORDS;
        for (int t = 0; t < GM_BANKS_BLOCK; ++t) {
            int lane = t % 32;
            float sum = 0.0f;   /* float, in the kernel's order: the result is exact */
            for (int r = 0; r < reps; ++r)
                sum += s[((lane + r) % 32) * stride];
            out[b * GM_BANKS_BLOCK + t] = sum;
        }
    }
}

void gm_ref_conv7(const float *in, float *out, int w, int h, const float *filt)
{
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
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
            out[(size_t)y * w + x] = (float)s;
        }
}

static int S_clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void gm_ref_advect(const float *q, const float *u, const float *v, float *out, int w, int h,
                   float dt)
{
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            size_t i = (size_t)y * w + x;
            float px = (float)x - dt * u[i];
            float py = (float)y - dt * v[i];
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
