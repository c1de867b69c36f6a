/* test_refs_a.c — the CPU references of experiments 1-7 against cases worked
 * by hand.  The GPU kernels are validated against these references, so these
 * tests are what makes a "passed" on the GPU mean something. */
#include "../kernels/ref.h"

/* Without the CUDA toolkit the kernel library is not built; the references
 * are plain C, so compile them into the test directly. */
#ifndef GM_HAVE_CUDA
#include "../kernels/ref_alignment.c"
#include "../kernels/ref_aos_soa.c"
#include "../kernels/ref_coalescing.c"
#include "../kernels/ref_grid3d.c"
#include "../kernels/ref_matvec.c"
#include "../kernels/ref_rgb.c"
#include "../kernels/ref_traversal2d.c"
#endif

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. coalescing ---------------------------------------------------------- */

Test(refs_a, coalescing_gather_by_hand)
{
    const float in[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    float out[8];
    /* stride 2, n/s = 4 rows: column 0 (even elements), then column 1. */
    gm_ref_coalescing(in, out, 8, 2);
    const float s2[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    cr_expect_arr_eq(out, s2, sizeof s2);
    gm_ref_coalescing(in, out, 8, 4);
    const float s4[8] = {0, 4, 1, 5, 2, 6, 3, 7};
    cr_expect_arr_eq(out, s4, sizeof s4);
    /* stride 1 and stride n are both plain copies. */
    gm_ref_coalescing(in, out, 8, 1);
    cr_expect_arr_eq(out, in, sizeof in);
    gm_ref_coalescing(in, out, 8, 8);
    cr_expect_arr_eq(out, in, sizeof in);
    cr_expect_eq(gm_ref_coalescing_index(5, 8, 2), 3);
    cr_expect_eq(gm_ref_coalescing_index(1, 8, 4), 4);
}

Test(refs_a, coalescing_is_a_permutation_and_ranges_agree)
{
    enum { N = 96 };
    const size_t strides[] = {1, 2, 3, 4, 6, 8, 32, 96};
    float in[N], whole[N], parts[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)i;
    for (size_t s = 0; s < sizeof strides / sizeof strides[0]; s++) {
        int seen[N] = {0};
        for (size_t i = 0; i < N; i++) {
            size_t j = gm_ref_coalescing_index(i, N, strides[s]);
            cr_assert_lt(j, N);
            seen[j]++;
        }
        for (int j = 0; j < N; j++)
            cr_expect_eq(seen[j], 1, "stride %zu: element %d read %d times", strides[s], j,
                         seen[j]);
        gm_ref_coalescing(in, whole, N, strides[s]);
        /* Ranges that cut columns anywhere give the same result. */
        gm_ref_coalescing_range(in, parts, N, strides[s], 0, 13);
        gm_ref_coalescing_range(in, parts, N, strides[s], 13, 50);
        gm_ref_coalescing_range(in, parts, N, strides[s], 50, N);
        cr_expect_arr_eq(parts, whole, sizeof whole, "stride %zu", strides[s]);
        for (size_t i = 0; i < N; i++)
            cr_expect_eq(whole[i], in[gm_ref_coalescing_index(i, N, strides[s])]);
    }
}

/* ---- 2. alignment ----------------------------------------------------------- */

Test(refs_a, alignment_reads_from_the_offset)
{
    const float in[10] = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
    float out[5];
    gm_ref_alignment(in, out, 5, 3);
    const float want[5] = {13, 14, 15, 16, 17};
    cr_expect_arr_eq(out, want, sizeof want);
    gm_ref_alignment(in, out, 5, 0);
    cr_expect_arr_eq(out, in, sizeof out);
}

/* ---- 3. aos_soa ------------------------------------------------------------- */

Test(refs_a, particle_energy_and_step_by_hand)
{
    /* Two particles, planes x, y, z, vx, vy, vz, m. */
    float planes[GM_P_FIELDS][2] = {
        {1, -4}, {2, 0}, {3, 8}, {1, 2}, {2, -2}, {2, 4}, {3, 2},
    };
    const float *p[GM_P_FIELDS];
    float out[GM_P_FIELDS][2];
    float *q[GM_P_FIELDS];
    for (int k = 0; k < GM_P_FIELDS; k++) {
        p[k] = planes[k];
        q[k] = out[k];
    }
    float e[2];
    gm_ref_particles_energy(p, e, 0, 2);
    /* (0.5 * 3) * (1 + 4 + 4) = 13.5;  (0.5 * 2) * (4 + 4 + 16) = 24 */
    cr_expect_eq(e[0], 13.5f);
    cr_expect_eq(e[1], 24.0f);
    /* dt = 0.5, drag = 1: particle 1 (m = 2) keeps 1 - 0.5/2 = 0.75 of its
     * velocity and moves by v/2. */
    gm_ref_particles_step(p, q, 0.5f, 1.0f, 1, 2);
    cr_expect_eq(out[GM_P_X][1], -3.0f);
    cr_expect_eq(out[GM_P_Y][1], -1.0f);
    cr_expect_eq(out[GM_P_Z][1], 10.0f);
    cr_expect_eq(out[GM_P_VX][1], 1.5f);
    cr_expect_eq(out[GM_P_VY][1], -1.5f);
    cr_expect_eq(out[GM_P_VZ][1], 3.0f);
    cr_expect_eq(out[GM_P_M][1], 2.0f);
    /* Particle 0 (m = 3): factor 1 - 0.5/3, as float arithmetic gives it. */
    gm_ref_particles_step(p, q, 0.5f, 1.0f, 0, 1);
    float f = 1.0f - 0.5f / 3.0f;
    cr_expect_eq(out[GM_P_VX][0], 1.0f * f);
    cr_expect_eq(out[GM_P_X][0], 1.5f);
    cr_expect_eq(out[GM_P_M][0], 3.0f);
}

/* ---- 4. rgb ----------------------------------------------------------------- */

Test(refs_a, rgb_inverts_only_red)
{
    unsigned char inter[9] = {10, 20, 30, 200, 1, 2, 0, 255, 7};
    gm_ref_rgb_invert_red_interleaved(inter, 0, 3);
    const unsigned char want_i[9] = {245, 20, 30, 55, 1, 2, 255, 255, 7};
    cr_expect_arr_eq(inter, want_i, sizeof want_i);
    /* Planar: the red plane first. */
    unsigned char planar[9] = {10, 200, 0, 20, 1, 255, 30, 2, 7};
    gm_ref_rgb_invert_red_planar(planar, 1, 3);   /* pixels 1 and 2 only */
    const unsigned char want_p[9] = {10, 55, 255, 20, 1, 255, 30, 2, 7};
    cr_expect_arr_eq(planar, want_p, sizeof want_p);
    /* Applying it twice gives the image back. */
    gm_ref_rgb_invert_red_interleaved(inter, 0, 3);
    const unsigned char orig[9] = {10, 20, 30, 200, 1, 2, 0, 255, 7};
    cr_expect_arr_eq(inter, orig, sizeof orig);
}

/* ---- 5. traversal2d ------------------------------------------------------- */

Test(refs_a, add_by_hand)
{
    const float a[4] = {1, 2, 3, 4}, b[4] = {0.5f, -2, 10, 0};
    float c[4] = {-1, -1, -1, -1};
    gm_ref_add(a, b, c, 1, 3);
    cr_expect_eq(c[0], -1.0f, "outside the range: untouched");
    cr_expect_eq(c[1], 0.0f);
    cr_expect_eq(c[2], 13.0f);
    cr_expect_eq(c[3], -1.0f);
}

/* ---- 6. grid3d -------------------------------------------------------------- */

Test(refs_a, dzz_by_hand_with_clamped_ends)
{
    /* One column of 4: z-major strides (sx = sy = 4, sz = 1). */
    const float in[4] = {1, 4, 9, 16};
    float out[4];
    gm_ref_grid3d_dzz(in, out, 1, 1, 4, 4, 4, 1, 0, 1);
    /* z=0: (1 + 4) - 2 = 3;  z=1: (1 + 9) - 8 = 2;  z=2: (4 + 16) - 18 = 2;
     * z=3: (9 + 16) - 32 = -7 */
    const float want[4] = {3, 2, 2, -7};
    cr_expect_arr_eq(out, want, sizeof want);
}

Test(refs_a, dzz_is_the_same_field_in_both_layouts)
{
    enum { NX = 3, NY = 2, NZ = 5, N = NX * NY * NZ };
    float zm[N], xm[N], ozm[N], oxm[N];
    for (int x = 0; x < NX; x++)
        for (int y = 0; y < NY; y++)
            for (int z = 0; z < NZ; z++) {
                float v = (float)((x * 7 + y * 13 + z * z * 3) % 17) - 8.0f;
                zm[z + NZ * (y + NY * x)] = v;
                xm[x + NX * (y + NY * z)] = v;
            }
    gm_ref_grid3d_dzz(zm, ozm, NX, NY, NZ, NY * NZ, NZ, 1, 0, NX);
    gm_ref_grid3d_dzz(xm, oxm, NX, NY, NZ, 1, NX, NX * NY, 0, NX);
    for (int x = 0; x < NX; x++)
        for (int y = 0; y < NY; y++)
            for (int z = 0; z < NZ; z++)
                cr_expect_eq(ozm[z + NZ * (y + NY * x)], oxm[x + NX * (y + NY * z)],
                             "(%d,%d,%d)", x, y, z);
}

/* ---- 7. matvec -------------------------------------------------------------- */

Test(refs_a, matvec_by_hand)
{
    const float a[6] = {1, 2, 3, 4, 5, 6}, x[3] = {1, 0, -1};
    float y[2] = {99, 99};
    gm_ref_matvec(a, x, y, 3, 1, 2);
    cr_expect_eq(y[0], 99.0f, "row 0 is outside the range");
    cr_expect_eq(y[1], -2.0f);   /* 4 - 6 */
    gm_ref_matvec(a, x, y, 3, 0, 1);
    cr_expect_eq(y[0], -2.0f);   /* 1 - 3 */
}

Test(refs_a, small_ints_cover_minus4_to_4)
{
    int count[9] = {0};
    uint64_t r = 0x12345;
    for (int i = 0; i < 9000; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        float v = gm_ref_small_int(r);
        cr_assert(v >= -4.0f && v <= 4.0f && v == (float)(int)v, "%g", v);
        count[(int)v + 4]++;
    }
    for (int k = 0; k < 9; k++)
        cr_expect_gt(count[k], 700, "value %d appears %d times in 9000", k - 4, count[k]);
}
