/* test_refs.c — the CPU references of the fourteen experiments (kernels/
 * <experiment>.c) against cases worked by hand.  The GPU kernels are
 * validated against these references, so these tests are what makes a
 * "passed" on the GPU mean something.  Plain C: they run without the CUDA
 * toolkit. */
#include "../kernels/coalescing/coalescing.h"
#include "../kernels/alignment/alignment.h"
#include "../kernels/aos_soa/aos_soa.h"
#include "../kernels/rgb/rgb.h"
#include "../kernels/traversal2d/traversal2d.h"
#include "../kernels/grid3d/grid3d.h"
#include "../kernels/matvec/matvec.h"
#include "../kernels/matmul/matmul.h"
#include "../kernels/transpose/transpose.h"
#include "../kernels/banks/banks.h"
#include "../kernels/spmv/spmv.h"
#include "../kernels/conv/conv.h"
#include "../kernels/texture/texture.h"
#include "../kernels/dp/dp.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. coalescing ---------------------------------------------------------- */

Test(refs, coalescing_gather_by_hand)
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

Test(refs, coalescing_is_a_permutation_and_ranges_agree)
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

Test(refs, alignment_reads_from_the_offset)
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

Test(refs, particle_energy_and_step_by_hand)
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

Test(refs, rgb_inverts_only_red)
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

Test(refs, add_by_hand)
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

Test(refs, dzz_by_hand_with_clamped_ends)
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

Test(refs, dzz_is_the_same_field_in_both_layouts)
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

Test(refs, matvec_by_hand)
{
    const float a[6] = {1, 2, 3, 4, 5, 6}, x[3] = {1, 0, -1};
    float y[2] = {99, 99};
    gm_ref_matvec(a, x, y, 3, 1, 2);
    cr_expect_eq(y[0], 99.0f, "row 0 is outside the range");
    cr_expect_eq(y[1], -2.0f);   /* 4 - 6 */
    gm_ref_matvec(a, x, y, 3, 0, 1);
    cr_expect_eq(y[0], -2.0f);   /* 1 - 3 */
}

Test(refs, small_ints_cover_minus4_to_4)
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

/* ---- 8, 9: matrix multiplication and transpose ------------------------- */

Test(refs, matmul_2x2_by_hand)
{
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    float c[4];
    gm_ref_matmul(a, b, c, 2);
    /* [1 2; 3 4][5 6; 7 8] = [19 22; 43 50] */
    cr_expect_eq(c[0], 19.0f);
    cr_expect_eq(c[1], 22.0f);
    cr_expect_eq(c[2], 43.0f);
    cr_expect_eq(c[3], 50.0f);
}

Test(refs, matmul_identity_keeps_matrix)
{
    enum { N = 5 };
    float a[N * N], id[N * N], c[N * N];
    for (int i = 0; i < N * N; ++i) {
        a[i] = (float)(i * 7 % 11) - 3.5f;
        id[i] = (i / N == i % N) ? 1.0f : 0.0f;
    }
    gm_ref_matmul(a, id, c, N);
    for (int i = 0; i < N * N; ++i)
        cr_expect_eq(c[i], a[i], "c[%d] = %g, expected %g", i, c[i], a[i]);
}

Test(refs, transpose_2x3_by_hand)
{
    const float in[6] = {1, 2, 3, 4, 5, 6};   /* [1 2 3; 4 5 6] */
    float out[6];
    gm_ref_transpose(in, out, 2, 3);
    const float want[6] = {1, 4, 2, 5, 3, 6}; /* [1 4; 2 5; 3 6] */
    for (int i = 0; i < 6; ++i)
        cr_expect_eq(out[i], want[i], "out[%d] = %g, expected %g", i, out[i], want[i]);
}

/* The _range forms, run in pieces, give what the plain forms give. */
Test(refs, range_forms_assemble_the_whole)
{
    enum { N = 7, W = 11, H = 9 };
    uint64_t st = 99;
    float a[N * N], b[N * N], bt[N * N], c0[N * N], c1[N * N];
    for (int i = 0; i < N * N; ++i) {
        a[i] = gm_rand_uniform_f32(&st, -1, 1);
        b[i] = gm_rand_uniform_f32(&st, -1, 1);
    }
    gm_ref_transpose(b, bt, N, N);
    gm_ref_matmul(a, b, c0, N);
    gm_ref_matmul_bt_range(a, bt, c1, N, 0, 20);
    gm_ref_matmul_bt_range(a, bt, c1, N, 20, N * N);
    for (int i = 0; i < N * N; ++i)
        cr_expect_eq(c1[i], c0[i], "C[%d] = %g, expected %g", i, c1[i], c0[i]);

    float img[W * H], f[49], o0[W * H], o1[W * H], u[W * H], v[W * H], t0[W * H], t1[W * H];
    for (int i = 0; i < W * H; ++i) {
        img[i] = gm_rand_uniform_f32(&st, 0, 1);
        u[i] = gm_rand_uniform_f32(&st, -3, 3);
        v[i] = gm_rand_uniform_f32(&st, -3, 3);
    }
    for (int i = 0; i < 49; ++i)
        f[i] = gm_rand_uniform_f32(&st, -0.2f, 0.2f);
    gm_ref_conv7(img, o0, W, H, f);
    gm_ref_conv7_range(img, o1, W, H, f, 0, 50);
    gm_ref_conv7_range(img, o1, W, H, f, 50, W * H);
    gm_ref_transpose(img, t0, H, W);
    gm_ref_transpose_range(img, t1, H, W, 0, 33);
    gm_ref_transpose_range(img, t1, H, W, 33, W * H);
    for (int i = 0; i < W * H; ++i) {
        cr_expect_eq(o1[i], o0[i], "conv[%d]", i);
        cr_expect_eq(t1[i], t0[i], "transpose[%d]", i);
    }
    gm_ref_advect(img, u, v, o0, W, H, 0.7f);
    gm_ref_advect_range(img, u, v, o1, W, H, 0.7f, 0, 61);
    gm_ref_advect_range(img, u, v, o1, W, H, 0.7f, 61, W * H);
    for (int i = 0; i < W * H; ++i)
        cr_expect_eq(o1[i], o0[i], "advect[%d]", i);
}

/* ---- 10: bank-conflict sums ---------------------------------------------- */

Test(refs, banks_sums_by_hand)
{
    float *in = malloc(2 * GM_BANKS_WORDS * sizeof *in);
    float *out = malloc(2 * GM_BANKS_BLOCK * sizeof *out);
    cr_assert(in && out);
    for (int w = 0; w < 2 * GM_BANKS_WORDS; ++w)
        in[w] = (float)w;

    gm_ref_banks(in, out, 2, 1, 3);
    cr_expect_eq(out[0], 0.0f + 32 + 64);              /* lane 0: words 0, 32, 64 */
    cr_expect_eq(out[31], 31.0f + 63 + 95);            /* lane 31: 31 + one row, two rows */
    cr_expect_eq(out[32], out[0]);                     /* lane 0 of warp 1 reads the same */
    /* block 1 reads its own words from 2048 on */
    cr_expect_eq(out[GM_BANKS_BLOCK], 2048.0f + 2080 + 2112);

    gm_ref_banks(in, out, 1, 32, 3);
    cr_expect_eq(out[0], 0.0f + 32 + 64);              /* stride 32: lane 0 starts at 0 */
    cr_expect_eq(out[31], 992.0f + 1024 + 1056);       /* lane 31 starts at 31 x 32 */

    gm_ref_banks(in, out, 1, 1, 34);                   /* the row offset wraps after 32 steps */
    cr_expect_eq(out[0], 32.0f * (31 * 32 / 2) + 0 + 32);

    gm_ref_banks_range(in, out, 4, 2, 300, 301);       /* block 1, thread 44: lane 12 */
    cr_expect_eq(out[300], (2048.0f + 48) + (2048 + 48 + 32));
    free(in);
    free(out);
}

/* ---- 11: sparse matrices -------------------------------------------------- */

/* [1 0 2 0]
 * [0 0 0 0]
 * [3 4 0 5]
 * [0 6 0 0] */
static const int k_row_ptr[5] = {0, 2, 2, 5, 6};
static const int k_col[6] = {0, 2, 0, 1, 3, 1};
static const float k_val[6] = {1, 2, 3, 4, 5, 6};
static const float k_x[4] = {1, 10, 100, 1000};
static const float k_y[4] = {201, 0, 5043, 60};

Test(refs, csr_spmv_by_hand)
{
    float y[4];
    gm_ref_spmv_csr(4, k_row_ptr, k_col, k_val, k_x, y);
    for (int r = 0; r < 4; ++r)
        cr_expect_eq(y[r], k_y[r], "y[%d] = %g, expected %g", r, y[r], k_y[r]);
}

Test(refs, ell_layout_by_hand)
{
    int ell_col[12];
    float ell_val[12], y[4];
    gm_ref_csr_to_ell(4, k_row_ptr, k_col, k_val, 3, ell_col, ell_val);
    /* column-major: entry k of every row, then entry k+1; padding is (0, 0) */
    const int want_col[12] = {0, 0, 0, 1, 2, 0, 1, 0, 0, 0, 3, 0};
    const float want_val[12] = {1, 0, 3, 6, 2, 0, 4, 0, 0, 0, 5, 0};
    for (int i = 0; i < 12; ++i) {
        cr_expect_eq(ell_col[i], want_col[i], "ell_col[%d] = %d, expected %d", i, ell_col[i],
                     want_col[i]);
        cr_expect_eq(ell_val[i], want_val[i], "ell_val[%d] = %g, expected %g", i, ell_val[i],
                     want_val[i]);
    }
    gm_ref_spmv_ell(4, 3, ell_col, ell_val, k_x, y);
    for (int r = 0; r < 4; ++r)
        cr_expect_eq(y[r], k_y[r], "y[%d] = %g, expected %g", r, y[r], k_y[r]);
}

Test(refs, jds_layout_by_hand)
{
    int perm[4], jd_ptr[4], jd_col[6];
    float jd_val[6], y[4];
    cr_assert_eq(gm_ref_csr_to_jds(4, k_row_ptr, k_col, k_val, 3, perm, jd_ptr, jd_col, jd_val),
                 GM_OK);
    /* lengths 2, 0, 3, 1 -> sorted rows 2 (3), 0 (2), 3 (1), 1 (0) */
    const int want_perm[4] = {2, 0, 3, 1};
    const int want_ptr[4] = {0, 3, 5, 6};         /* diagonals of 3, 2 and 1 entries */
    const int want_col[6] = {0, 0, 1, 1, 2, 3};
    const float want_val[6] = {3, 1, 6, 4, 2, 5};
    for (int i = 0; i < 4; ++i) {
        cr_expect_eq(perm[i], want_perm[i], "perm[%d] = %d, expected %d", i, perm[i], want_perm[i]);
        cr_expect_eq(jd_ptr[i], want_ptr[i], "jd_ptr[%d] = %d, expected %d", i, jd_ptr[i],
                     want_ptr[i]);
    }
    for (int i = 0; i < 6; ++i) {
        cr_expect_eq(jd_col[i], want_col[i], "jd_col[%d] = %d, expected %d", i, jd_col[i],
                     want_col[i]);
        cr_expect_eq(jd_val[i], want_val[i], "jd_val[%d] = %g, expected %g", i, jd_val[i],
                     want_val[i]);
    }
    gm_ref_spmv_jds(4, 3, perm, jd_ptr, jd_col, jd_val, k_x, y);
    for (int r = 0; r < 4; ++r)
        cr_expect_eq(y[r], k_y[r], "y[%d] = %g, expected %g", r, y[r], k_y[r]);
}

Test(refs, power_law_rows_are_deterministic_and_heavy_tailed)
{
    enum { R = 100000 };
    int *a = malloc(R * sizeof *a), *b = malloc(R * sizeof *b);
    cr_assert(a && b);
    int longest = gm_ref_spmv_row_lengths(R, 4, 64, 2.0, 42, a);
    gm_ref_spmv_row_lengths(R, 4, 64, 2.0, 42, b);
    int over8 = 0, at_cap = 0, real_longest = 0;
    for (int r = 0; r < R; ++r) {
        cr_assert_eq(a[r], b[r], "row %d: %d then %d from the same seed", r, a[r], b[r]);
        cr_assert(a[r] >= 4 && a[r] <= 64, "row %d has length %d", r, a[r]);
        over8 += a[r] >= 8;
        at_cap += a[r] == 64;
        if (a[r] > real_longest)
            real_longest = a[r];
    }
    cr_expect_eq(longest, real_longest);
    long long sum = 0;
    for (int r = 0; r < R; ++r)
        sum += a[r];
    int counted_longest = 0;
    cr_expect_eq(gm_ref_spmv_count(R, 4, 64, 2.0, 42, &counted_longest), sum);
    cr_expect_eq(counted_longest, real_longest);
    /* Pareto(4, alpha 2): P(len >= 8) = (4/8)^2 = 1/4, P(len >= 64) = 1/256 */
    cr_expect(over8 > 0.23 * R && over8 < 0.27 * R, "%d of %d rows have 8 or more", over8, R);
    cr_expect(at_cap > R / 400 && at_cap < R / 160, "%d of %d rows reach the cap", at_cap, R);
    free(a);
    free(b);
}

/* The range forms (kernels/spmv/kernels.cu builds the matrix on host threads with them)
 * start the stream anywhere: any split must give what one walk of the stream
 * gives, drawn here the plain way, call after call from the seed. */
Test(refs, spmv_range_forms_match_one_walk_of_the_stream)
{
    enum { R = 5000, C = 3001 };
    int len[R], whole[R], row_ptr[R + 1];
    uint64_t st = 99;
    for (int r = 0; r < R; ++r) {   /* floor(4 u^(-1/1.5)) capped at 64, u in (0, 1] */
        double u = (double)((gm_rand_next(&st) >> 11) + 1) * (1.0 / 9007199254740992.0);
        double l = floor(4.0 * pow(u, -1.0 / 1.5));
        whole[r] = l > 64.0 ? 64 : (int)l;
    }
    static const int cuts[] = {0, 1, 17, 2500, 4999, R};
    for (size_t i = 0; i + 1 < sizeof cuts / sizeof *cuts; ++i)
        gm_ref_spmv_row_lengths_range(4, 64, 1.5, 99, cuts[i], cuts[i + 1], len);
    for (int r = 0; r < R; ++r)
        cr_assert_eq(len[r], whole[r], "row %d: length %d, one walk %d", r, len[r], whole[r]);

    row_ptr[0] = 0;
    for (int r = 0; r < R; ++r)
        row_ptr[r + 1] = row_ptr[r] + len[r];
    int nnz = row_ptr[R];
    int *col = malloc(nnz * sizeof *col), *col1 = malloc(nnz * sizeof *col1);
    float *val = malloc(nnz * sizeof *val), *val1 = malloc(nnz * sizeof *val1);
    cr_assert(col && col1 && val && val1);
    st = 5;
    for (int k = 0; k < nnz; ++k) {   /* column, then value, entry after entry */
        col1[k] = (int)(gm_rand_next(&st) % C);
        val1[k] = gm_rand_uniform_f32(&st, 0.5f, 1.5f);
    }
    for (int r = 0; r < R; ++r)   /* each row's columns sorted (values stay put) */
        for (int a = row_ptr[r] + 1; a < row_ptr[r + 1]; ++a)
            for (int b = a; b > row_ptr[r] && col1[b - 1] > col1[b]; --b) {
                int t = col1[b];
                col1[b] = col1[b - 1];
                col1[b - 1] = t;
            }
    for (size_t i = 0; i + 1 < sizeof cuts / sizeof *cuts; ++i)
        gm_ref_csr_fill_range(C, row_ptr, 5, cuts[i], cuts[i + 1], col, val);
    for (int k = 0; k < nnz; ++k) {
        cr_assert_eq(col[k], col1[k], "entry %d: column %d, one walk %d", k, col[k], col1[k]);
        cr_assert_eq(val[k], val1[k], "entry %d: value %g, one walk %g", k, val[k], val1[k]);
    }

    float x[C], y[R], y1[R];
    for (int i = 0; i < C; ++i)
        x[i] = (float)(i % 7) + 0.5f;
    gm_ref_spmv_csr(R, row_ptr, col, val, x, y1);
    for (size_t i = 0; i + 1 < sizeof cuts / sizeof *cuts; ++i)
        gm_ref_spmv_csr_range(row_ptr, col, val, x, y, cuts[i], cuts[i + 1]);
    for (int r = 0; r < R; ++r)
        cr_expect_eq(y[r], y1[r], "y[%d] = %g in pieces, %g whole", r, y[r], y1[r]);
    free(col);
    free(col1);
    free(val);
    free(val1);
}

Test(refs, generated_formats_agree)
{
    enum { R = 3000, C = 2000 };
    int len[R], row_ptr[R + 1];
    int width = gm_ref_spmv_row_lengths(R, 2, 40, 1.5, 7, len);
    long long nnz = 0;
    for (int r = 0; r < R; ++r)
        nnz += len[r];
    int *col = malloc(nnz * sizeof *col), *perm = malloc(R * sizeof *perm);
    float *val = malloc(nnz * sizeof *val);
    int *ell_col = malloc((size_t)width * R * sizeof *ell_col);
    float *ell_val = malloc((size_t)width * R * sizeof *ell_val);
    int *jd_ptr = malloc((width + 1) * sizeof *jd_ptr), *jd_col = malloc(nnz * sizeof *jd_col);
    float *jd_val = malloc(nnz * sizeof *jd_val);
    float x[C], y0[R], y1[R], y2[R];
    cr_assert(col && perm && val && ell_col && ell_val && jd_ptr && jd_col && jd_val);

    gm_ref_csr_fill(R, C, len, 8, row_ptr, col, val);
    cr_expect_eq(row_ptr[R], nnz);
    for (int r = 0; r < R; ++r)
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
            cr_assert(col[k] >= 0 && col[k] < C);
            cr_assert(k == row_ptr[r] || col[k - 1] <= col[k], "row %d not sorted", r);
            cr_assert(val[k] >= 0.5f && val[k] < 1.5f);
        }
    for (int i = 0; i < C; ++i)
        x[i] = (float)(i % 13) * 0.25f + 0.5f;
    gm_ref_csr_to_ell(R, row_ptr, col, val, width, ell_col, ell_val);
    cr_assert_eq(gm_ref_csr_to_jds(R, row_ptr, col, val, width, perm, jd_ptr, jd_col, jd_val),
                 GM_OK);
    cr_expect_eq(jd_ptr[width], nnz);
    gm_ref_spmv_csr(R, row_ptr, col, val, x, y0);
    gm_ref_spmv_ell(R, width, ell_col, ell_val, x, y1);
    gm_ref_spmv_jds(R, width, perm, jd_ptr, jd_col, jd_val, x, y2);
    for (int r = 0; r < R; ++r) {
        /* same products, same order (padding adds exact zeros): identical */
        cr_expect_eq(y1[r], y0[r], "ELL y[%d] = %g, CSR %g", r, y1[r], y0[r]);
        cr_expect_eq(y2[r], y0[r], "JDS y[%d] = %g, CSR %g", r, y2[r], y0[r]);
    }
    free(col); free(perm); free(val); free(ell_col); free(ell_val);
    free(jd_ptr); free(jd_col); free(jd_val);
}

/* ---- 12: 7x7 convolution -------------------------------------------------- */

Test(refs, conv_impulse_gives_flipped_filter)
{
    enum { W = 9, H = 9 };
    float f[49], in[W * H] = {0}, out[W * H];
    for (int i = 0; i < 49; ++i)
        f[i] = (float)(i + 1);
    in[4 * W + 4] = 1.0f;
    gm_ref_conv7(in, out, W, H, f);
    /* out(x,y) = sum f(dy,dx) in(y+dy, x+dx): the impulse lands at x = 4-dx */
    for (int dy = -3; dy <= 3; ++dy)
        for (int dx = -3; dx <= 3; ++dx)
            cr_expect_eq(out[(4 - dy) * W + 4 - dx], f[(dy + 3) * 7 + dx + 3]);
    cr_expect_eq(out[0], 0.0f);                 /* (0,0) is 4 away: no tap reaches */
}

Test(refs, conv_zero_outside_the_image)
{
    enum { W = 8, H = 6 };
    float f[49], in[W * H], out[W * H];
    for (int i = 0; i < 49; ++i)
        f[i] = 1.0f;
    for (int i = 0; i < W * H; ++i)
        in[i] = 1.0f;
    gm_ref_conv7(in, out, W, H, f);
    cr_expect_eq(out[0], 16.0f);                /* corner: 4 x 4 taps inside */
    cr_expect_eq(out[2 * W + 3], 42.0f);        /* (3,2): 7 columns x rows 0..5 = 6 */
}

/* ---- 13: advection -------------------------------------------------------- */

Test(refs, advect_by_hand)
{
    enum { W = 4, H = 3 };
    float q[W * H], u[W * H], v[W * H], out[W * H];
    for (int i = 0; i < W * H; ++i) {
        q[i] = (float)(i * i % 7) + 0.5f;
        u[i] = 1.0f;
        v[i] = 0.0f;
    }
    gm_ref_advect(q, u, v, out, W, H, 0.0f);    /* no motion: a copy */
    for (int i = 0; i < W * H; ++i)
        cr_expect_eq(out[i], q[i]);

    gm_ref_advect(q, u, v, out, W, H, 0.5f);    /* half a cell to the left */
    for (int y = 0; y < H; ++y) {
        cr_expect_eq(out[y * W], q[y * W]);      /* x = -0.5 clamps to column 0 */
        for (int x = 1; x < W; ++x)
            cr_expect_float_eq(out[y * W + x], 0.5f * (q[y * W + x - 1] + q[y * W + x]), 1e-6f);
    }

    for (int i = 0; i < W * H; ++i)
        v[i] = -1.0f;                            /* and a quarter cell down */
    gm_ref_advect(q, u, v, out, W, H, 0.25f);
    /* (2,1) samples (1.75, 1.25): weights 0.25/0.75 across x, 0.75/0.25 down y */
    float want = 0.25f * 0.75f * q[1 * W + 1] + 0.75f * 0.75f * q[1 * W + 2] +
                 0.25f * 0.25f * q[2 * W + 1] + 0.75f * 0.25f * q[2 * W + 2];
    cr_expect_float_eq(out[1 * W + 2], want, 1e-6f);

    for (int i = 0; i < W * H; ++i)
        u[i] = 1e9f;                             /* far outside: the edge column */
    gm_ref_advect(q, u, v, out, W, H, 1.0f);
    cr_expect_eq(out[0], q[1 * W]);          /* (0,0) samples (-1e9, 1): q(0,1) */
}

/* ---- 14: chained matrix multiplication ------------------------------------ */

Test(refs, chain_four_matrices_by_hand)
{
    /* A 20x2, B 2x30, C 30x12, D 12x8: A((BC)D) costs 1232, the least */
    const long long dims[5] = {20, 2, 30, 12, 8};
    long long m[25], f[25];
    gm_ref_chain_serial(4, dims, m);
    cr_assert_eq(gm_ref_chain_fast(4, dims, f), GM_OK);
    cr_expect_eq(m[1 * 5 + 2], 1200);   /* AB: 20*2*30 */
    cr_expect_eq(m[2 * 5 + 3], 720);    /* BC: 2*30*12 */
    cr_expect_eq(m[3 * 5 + 4], 2880);   /* CD: 30*12*8 */
    cr_expect_eq(m[1 * 5 + 3], 1200);   /* A(BC) = 720 + 480 beats (AB)C = 1200 + 7200 */
    cr_expect_eq(m[2 * 5 + 4], 912);    /* (BC)D = 720 + 192 beats B(CD) = 2880 + 480 */
    cr_expect_eq(m[1 * 5 + 4], 1232);   /* A((BC)D) = 912 + 320 */
    for (int i = 1; i <= 4; ++i)
        for (int j = i; j <= 4; ++j)
            cr_expect_eq(f[i * 5 + j], m[i * 5 + j], "cell (%d,%d)", i, j);
}

Test(refs, chain_costs_need_64_bits)
{
    /* 200 square 256x256 matrices: every order costs 199 * 256^3 = 3338665984 > 2^31 */
    enum { N = 200 };
    long long dims[N + 1];
    long long *m = malloc((N + 1) * (N + 1) * sizeof *m);
    cr_assert(m);
    for (int i = 0; i <= N; ++i)
        dims[i] = 256;
    gm_ref_chain_serial(N, dims, m);
    cr_expect_eq(m[1 * (N + 1) + N], 3338665984LL);
    free(m);
}

Test(refs, chain_serial_and_fast_agree)
{
    enum { N = 97 };
    long long dims[N + 1];
    uint64_t st = 5;
    for (int i = 0; i <= N; ++i)
        dims[i] = 2 + (long long)(gm_rand_next(&st) % 255);
    long long *a = malloc((N + 1) * (N + 1) * sizeof *a);
    long long *b = malloc((N + 1) * (N + 1) * sizeof *b);
    cr_assert(a && b);
    gm_ref_chain_serial(N, dims, a);
    cr_assert_eq(gm_ref_chain_fast(N, dims, b), GM_OK);
    for (int i = 1; i <= N; ++i)
        for (int j = i; j <= N; ++j)
            cr_assert_eq(a[i * (N + 1) + j], b[i * (N + 1) + j], "cell (%d,%d)", i, j);
    free(a);
    free(b);
}

Test(refs, chain_diagonal_layout)
{
    /* n = 4: diagonals of 4, 3, 2, 1 cells at offsets 0, 4, 7, 9 */
    cr_expect_eq(gm_chain_diag_index(4, 1, 1), 0);
    cr_expect_eq(gm_chain_diag_index(4, 4, 4), 3);
    cr_expect_eq(gm_chain_diag_index(4, 1, 2), 4);
    cr_expect_eq(gm_chain_diag_index(4, 3, 4), 6);
    cr_expect_eq(gm_chain_diag_index(4, 1, 3), 7);
    cr_expect_eq(gm_chain_diag_index(4, 2, 4), 8);
    cr_expect_eq(gm_chain_diag_index(4, 1, 4), 9);

    const long long dims[5] = {20, 2, 30, 12, 8};
    long long m[25], packed[10];
    gm_ref_chain_serial(4, dims, m);
    gm_ref_chain_pack(4, m, packed);
    const long long want[10] = {0, 0, 0, 0, 1200, 720, 2880, 1200, 912, 1232};
    for (int i = 0; i < 10; ++i)
        cr_expect_eq(packed[i], want[i], "packed[%d] = %lld, expected %lld", i, packed[i],
                     want[i]);
}
