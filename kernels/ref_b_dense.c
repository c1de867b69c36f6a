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

void gm_ref_matmul_bt_range(const float *a, const float *bt, float *c, int n, size_t begin,
                            size_t end)
{
    for (size_t e = begin; e < end; ++e) {
        const float *ra = a + e / (size_t)n * n, *rb = bt + e % (size_t)n * n;
        double s = 0.0;
        for (int k = 0; k < n; ++k)
            s += (double)ra[k] * rb[k];
        c[e] = (float)s;
    }
}

void gm_ref_transpose(const float *in, float *out, int rows, int cols)
{
    gm_ref_transpose_range(in, out, rows, cols, 0, (size_t)rows * cols);
}

void gm_ref_transpose_range(const float *in, float *out, int rows, int cols, size_t begin,
                            size_t end)
{
    for (size_t e = begin; e < end; ++e) {
        size_t q = e / (size_t)rows, r = e % (size_t)rows;   /* out is cols x rows */
        out[e] = in[r * cols + q];
    }
}

void gm_ref_banks(const float *in, float *out, long long blocks, int stride, int reps)
{
    gm_ref_banks_range(in, out, stride, reps, 0, (size_t)blocks * GM_BANKS_BLOCK);
}

void gm_ref_banks_range(const float *in, float *out, int stride, int reps, size_t begin,
                        size_t end)
{
    for (size_t t = begin; t < end; ++t) {
        const float *s = in + t / GM_BANKS_BLOCK * GM_BANKS_WORDS;
        int lane = (int)(t % 32);
        float sum = 0.0f;   /* float, in the kernel's order: the result is exact */
        for (int r = 0; r < reps; ++r)
            sum += s[lane * stride + 32 * (r % GM_BANKS_UNROLL)];
        out[t] = sum;
    }
}

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
