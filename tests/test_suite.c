/* test_suite.c — the suite table is consistent, and the parts of the harness
 * and runner that need no GPU behave: expansion of sweeps into cases, byte
 * counts from every row's describe (no CUDA call), selection errors, the
 * comparison helpers, the deterministic fills, the host thread pool and the
 * shared-input registry.  Runs on CI without a GPU. */
#include <criterion/criterion.h>

#include "../kernels/runner.h"
#include "../kernels/suite.h"
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table ------------------------------------------------------------ */

static bool S_has_param(const gm_variant *v, const char *name)
{
    for (int p = 0; p < GM_MAX_PARAMS && v->params[p].name; p++)
        if (strcmp(v->params[p].name, name) == 0)
            return true;
    return false;
}

Test(suite_table, experiment_ids_are_unique_and_described)
{
    cr_assert_gt(gm_experiments_len, 0);
    for (size_t i = 0; i < gm_experiments_len; i++) {
        const gm_experiment_def *e = gm_experiments[i];
        cr_assert_not_null(e, "gm_experiments[%zu] is NULL", i);
        cr_assert(e->id && e->id[0], "experiment %zu has no id", i);
        cr_expect(e->title && e->title[0], "%s: no title", e->id);
        cr_expect(e->summary && strlen(e->summary) > 40, "%s: no real summary", e->id);
        cr_expect(e->source && e->source[0], "%s: no source", e->id);
        for (const char *p = e->id; *p; p++)
            cr_expect((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_',
                      "%s: id has '%c' (ids are used on the command line and in files)", e->id,
                      *p);
        for (size_t k = i + 1; k < gm_experiments_len; k++)
            cr_expect_str_neq(e->id, gm_experiments[k]->id, "experiment id '%s' twice", e->id);
        cr_expect_eq(gm_experiment_find(e->id), e, "gm_experiment_find(%s)", e->id);
    }
    cr_expect_null(gm_experiment_find("no-such-experiment"));
}

Test(suite_table, every_variant_belongs_to_a_listed_experiment_and_has_every_function)
{
    cr_assert_gt(gm_suite_len, 0);
    for (size_t i = 0; i < gm_suite_len; i++) {
        const gm_variant *v = &gm_suite[i];
        cr_assert_not_null(v->experiment, "row %zu has no experiment", i);
        cr_assert_not_null(v->name, "row %zu has no name", i);
        cr_expect_eq(gm_experiment_find(v->experiment->id), v->experiment,
                     "%s/%s: experiment not in gm_experiments[]", v->experiment->id, v->name);
        cr_expect(v->layout && v->layout[0], "%s/%s: no layout line", v->experiment->id, v->name);
        cr_expect_not_null(v->describe, "%s/%s: no describe", v->experiment->id, v->name);
#ifdef GM_HAVE_CUDA
        cr_expect_not_null(v->setup, "%s/%s: no setup", v->experiment->id, v->name);
        cr_expect_not_null(v->launch, "%s/%s: no launch", v->experiment->id, v->name);
        cr_expect_not_null(v->check, "%s/%s: no check", v->experiment->id, v->name);
        cr_expect_not_null(v->teardown, "%s/%s: no teardown", v->experiment->id, v->name);
        /* A kernel that overwrites its input cannot be relaunched without reset. */
        if (!v->idempotent)
            cr_expect_not_null(v->reset, "%s/%s: not idempotent and no reset", v->experiment->id,
                               v->name);
#else
        /* Without the toolkit the GPU side is not linked: the rows say so. */
        cr_expect(!v->setup && !v->launch && !v->check && !v->teardown && !v->reset,
                  "%s/%s: GPU functions in a build without CUDA", v->experiment->id, v->name);
#endif
        /* The kind names the variant in the code: one per row of an experiment. */
        for (size_t k = i + 1; k < gm_suite_len; k++)
            if (gm_suite[k].experiment == v->experiment) {
                cr_expect_str_neq(v->name, gm_suite[k].name, "%s: variant '%s' twice",
                                  v->experiment->id, v->name);
                cr_expect_neq(v->kind, gm_suite[k].kind, "%s: '%s' and '%s' have one kind",
                              v->experiment->id, v->name, gm_suite[k].name);
            }
    }
}

Test(suite_table, every_experiment_has_variants_and_its_named_params_exist)
{
    /* The table is each experiment's rows in turn, in the order of the list
     * (suite.c), and a row's kind is its place among its experiment's rows. */
    size_t k = 0;
    for (size_t e = 0; e < gm_experiments_len; e++)
        for (int kind = 0; k < gm_suite_len && gm_suite[k].experiment == gm_experiments[e];
             k++, kind++)
            cr_expect_eq(gm_suite[k].kind, kind, "%s/%s: kind %d in row %d of its experiment",
                         gm_experiments[e]->id, gm_suite[k].name, gm_suite[k].kind, kind);
    cr_expect_eq(k, gm_suite_len, "row %zu is not in its experiment's place", k);
    for (size_t e = 0; e < gm_experiments_len; e++) {
        const gm_experiment_def *x = gm_experiments[e];
        size_t rows = 0;
        bool baseline = x->baseline_variant == NULL, sweep = x->sweep_param == NULL,
             series = x->series_param == NULL;
        for (size_t i = 0; i < gm_suite_len; i++) {
            const gm_variant *v = &gm_suite[i];
            if (v->experiment != x)
                continue;
            rows++;
            if (x->baseline_variant && strcmp(v->name, x->baseline_variant) == 0)
                baseline = true;
            if (x->sweep_param && S_has_param(v, x->sweep_param))
                sweep = true;
            if (x->series_param && S_has_param(v, x->series_param))
                series = true;
        }
        cr_expect_gt(rows, 0, "%s: no variant", x->id);
        cr_expect(baseline, "%s: baseline '%s' is not one of its variants", x->id,
                  x->baseline_variant);
        cr_expect(sweep, "%s: sweep_param '%s' is no variant's parameter", x->id, x->sweep_param);
        cr_expect(series, "%s: series_param '%s' is no variant's parameter", x->id,
                  x->series_param);
    }
}

Test(suite_table, every_param_list_is_terminated_and_non_empty)
{
    for (size_t i = 0; i < gm_suite_len; i++) {
        const gm_variant *v = &gm_suite[i];
        for (int p = 0; p < GM_MAX_PARAMS && v->params[p].name; p++) {
            const gm_sweep *s = &v->params[p];
            int nf = gm_values_len(s->full);
            cr_expect_gt(nf, 0, "%s/%s: param %s: full list empty or unterminated",
                         v->experiment->id, v->name, s->name);
            const long long *q = gm_sweep_values(s, true);
            cr_expect_gt(gm_values_len(q), 0, "%s/%s: param %s: quick list unusable",
                         v->experiment->id, v->name, s->name);
            for (int k = p + 1; k < GM_MAX_PARAMS && v->params[k].name; k++)
                cr_expect_str_neq(s->name, v->params[k].name, "%s/%s: param %s twice",
                                  v->experiment->id, v->name, s->name);
        }
    }
}

/* Every case of every row, at both size sets, described without a GPU:
 * bytes declared, a kernel name, a launch shape the hardware accepts. */
static void S_check_cases(bool quick)
{
    for (size_t i = 0; i < gm_suite_len; i++) {
        const gm_variant *v = &gm_suite[i];
        if (!v->describe)
            continue;   /* reported by the test above */
        size_t n = gm_variant_cases(v, quick, NULL, 0);
        cr_expect_gt(n, 0, "%s/%s: no cases", v->experiment->id, v->name);
        cr_expect_leq(n, 64, "%s/%s: %zu cases at one size set: keep the suite quick",
                      v->experiment->id, v->name, n);
        gm_case *cases = calloc(n ? n : 1, sizeof *cases);
        cr_assert_eq(gm_variant_cases(v, quick, cases, n), n);
        for (size_t k = 0; k < n; k++) {
            gm_case *c = &cases[k];
            gm_error err = {GM_OK, ""};
            gm_status st = v->describe(c, &err);
            cr_expect_eq(st, GM_OK, "%s/%s case %zu: describe: %s", v->experiment->id, v->name,
                         k, err.message);
            if (st != GM_OK)
                continue;
            cr_expect(c->bytes_read > 0 || c->bytes_written > 0, "%s/%s case %zu: no bytes",
                      v->experiment->id, v->name, k);
            cr_expect_geq(c->bytes_read, 0);
            cr_expect_geq(c->bytes_written, 0);
            cr_expect(c->kernel[0], "%s/%s case %zu: no kernel name", v->experiment->id, v->name,
                      k);
            unsigned long long threads =
                (unsigned long long)c->launch.block[0] * c->launch.block[1] * c->launch.block[2];
            cr_expect(threads >= 1 && threads <= 1024, "%s/%s case %zu: %llu threads per block",
                      v->experiment->id, v->name, k, threads);
            cr_expect(c->launch.grid[0] >= 1 && c->launch.grid[1] >= 1 && c->launch.grid[2] >= 1,
                      "%s/%s case %zu: empty grid", v->experiment->id, v->name, k);
            cr_expect(c->launch.grid[1] <= 65535 && c->launch.grid[2] <= 65535,
                      "%s/%s case %zu: grid y/z above 65535", v->experiment->id, v->name, k);
        }
        free(cases);
    }
}

Test(suite_table, every_case_declares_bytes_kernel_and_launch_quick)
{
    S_check_cases(true);
}

Test(suite_table, every_case_declares_bytes_kernel_and_launch_full)
{
    S_check_cases(false);
}

/* ---- expanding sweeps ----------------------------------------------------- */

static gm_status S_noop_setup(gm_case *c, gm_error *e) { (void)c; (void)e; return GM_OK; }

static const gm_experiment_def S_fake_exp = {.id = "fake", .title = "t", .summary = "s"};
static const gm_variant S_fake = {
    .experiment = &S_fake_exp,
    .name = "v",
    .layout = "l",
    .params = {{"a", GM_VALUES(1, 2, 3), GM_VALUES(0, 5)},
               {.name = "b", .full = GM_VALUES(10, 20)}},   /* b: its quick list left out */
    .setup = S_noop_setup,
};

Test(suite_cases, cartesian_product_last_parameter_fastest)
{
    gm_case c[8];
    cr_assert_eq(gm_variant_cases(&S_fake, false, NULL, 0), 6);
    cr_assert_eq(gm_variant_cases(&S_fake, false, c, 8), 6);
    const long long want[6][2] = {{1, 10}, {1, 20}, {2, 10}, {2, 20}, {3, 10}, {3, 20}};
    for (int k = 0; k < 6; k++) {
        cr_expect_eq(c[k].n_params, 2);
        cr_expect_eq(c[k].variant, &S_fake);
        cr_expect_eq(gm_case_param(&c[k], "a", -1), want[k][0], "case %d a", k);
        cr_expect_eq(gm_case_param(&c[k], "b", -1), want[k][1], "case %d b", k);
        cr_expect_eq(gm_case_param(&c[k], "missing", -7), -7);
        cr_expect_eq(c[k].launch.registers, -1);
    }
    /* max cuts the expansion, the count does not lie about it. */
    cr_expect_eq(gm_variant_cases(&S_fake, false, c, 4), 4);
}

Test(suite_cases, quick_list_starting_with_zero_is_a_real_list)
{
    gm_case c[8];
    /* a: quick {0, 5}; b: quick omitted, so its full list {10, 20}. */
    cr_assert_eq(gm_variant_cases(&S_fake, true, c, 8), 4);
    cr_expect_eq(gm_case_param(&c[0], "a", -1), 0);
    cr_expect_eq(gm_case_param(&c[3], "a", -1), 5);
    cr_expect_eq(gm_case_param(&c[3], "b", -1), 20);
    cr_expect(c[0].quick);
    const gm_sweep omitted = {.name = "x", .full = GM_VALUES(7)};
    cr_expect_eq(gm_sweep_values(&omitted, true), omitted.full);
    const gm_sweep explicit_empty = {"x", GM_VALUES(7), {GM_END}};
    cr_expect_eq(gm_sweep_values(&explicit_empty, true), explicit_empty.full);
    long long unterminated[GM_MAX_VALUES];
    for (int i = 0; i < GM_MAX_VALUES; i++)
        unterminated[i] = 1;
    cr_expect_eq(gm_values_len(unterminated), -1);
}

/* ---- hand-checked byte counts ------------------------------------------------ */

static gm_case S_case(const char *exp, const char *variant, const char *p1, long long v1,
                      const char *p2, long long v2)
{
    gm_case c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < gm_suite_len; i++)
        if (strcmp(gm_suite[i].experiment->id, exp) == 0 && strcmp(gm_suite[i].name, variant) == 0)
            c.variant = &gm_suite[i];
    cr_assert_not_null(c.variant, "%s/%s not in the table", exp, variant);
    c.params[0].name = p1;
    c.params[0].value = v1;
    c.n_params = 1;
    if (p2) {
        c.params[1].name = p2;
        c.params[1].value = v2;
        c.n_params = 2;
    }
    gm_error err = {GM_OK, ""};
    cr_assert_eq(c.variant->describe(&c, &err), GM_OK, "%s", err.message);
    return c;
}

Test(suite_bytes, hand_checked_counts)
{
    /* Gather of 1024 floats at stride 8: 4 KiB each way; 1024/8 = 128 rows per
     * column, one 256-thread block per column, 8 columns. */
    gm_case c = S_case("coalescing", "stride", "n", 1024, "stride", 8);
    cr_expect_eq(c.bytes_read, 4096);
    cr_expect_eq(c.bytes_written, 4096);
    cr_expect_eq(c.launch.grid[0], 1);
    cr_expect_eq(c.launch.grid[1], 8);
    cr_expect_str_eq(c.kernel, "coalescing_kernel_stride");
    /* float4: 1024/4 = 256 threads, one block. */
    c = S_case("coalescing", "float4", "n", 1024, "stride", 1);
    cr_expect_eq(c.launch.grid[0], 1);
    /* Shifted copy at 100 bytes: 2 lines, 5 sectors per warp request. */
    c = S_case("alignment", "scalar", "n", 4096, "offset", 100);
    cr_expect_eq(c.bytes_read, 16384);
    cr_expect(strstr(c.note, "2 lines, 5 sectors") != NULL, "note: %s", c.note);
    c = S_case("alignment", "scalar", "n", 4096, "offset", 96);
    cr_expect(strstr(c.note, "2 lines, 4 sectors") != NULL, "note: %s", c.note);
    c = S_case("alignment", "scalar", "n", 4096, "offset", 0);
    cr_expect(strstr(c.note, "1 line, 4 sectors") != NULL, "note: %s", c.note);
    /* Energy reads vx, vy, vz, m (16 B) and writes e (4 B) per particle. */
    c = S_case("aos_soa", "aos", "n", 1000, "fields", 4);
    cr_expect_eq(c.bytes_read, 16000);
    cr_expect_eq(c.bytes_written, 4000);
    c = S_case("aos_soa", "aos_padded", "n", 1000, "fields", 7);
    cr_expect_eq(c.bytes_read, 28000);   /* the pad is not data */
    cr_expect_eq(c.bytes_written, 28000);
    /* RGB at 1x: 1,228,800 red bytes each way; 1228800/16/256 = 300 blocks. */
    c = S_case("rgb", "planar_x16", "scale", 1, "block", 256);
    cr_expect_eq(c.bytes_read, 1228800);
    cr_expect_eq(c.bytes_written, 1228800);
    cr_expect_eq(c.launch.grid[0], 300);
    c = S_case("rgb", "interleaved", "scale", 2, "block", 1024);
    cr_expect_eq(c.launch.grid[0], 2400);
    /* c = a + b, 1024^2: 8 MiB read, 4 MiB written, 1 flop per element. */
    c = S_case("traversal2d", "col_mapping", "n", 1024, NULL, 0);
    cr_expect_eq(c.bytes_read, 8ll << 20);
    cr_expect_eq(c.bytes_written, 4ll << 20);
    cr_expect_eq(c.flops, 1ll << 20);
    c = S_case("grid3d", "xmajor", "n", 128, NULL, 0);
    cr_expect_eq(c.bytes_read, 8ll << 20);
    cr_expect_eq(c.launch.grid[2], 128);
    /* y = A x, n = 1024: A and x read (4n^2 + 4n), y written (4n), 2n^2 flops. */
    c = S_case("matvec", "warp_rowmajor", "n", 1024, NULL, 0);
    cr_expect_eq(c.bytes_read, 4ll * 1024 * 1024 + 4 * 1024);
    cr_expect_eq(c.bytes_written, 4096);
    cr_expect_eq(c.flops, 2ll * 1024 * 1024);
    cr_expect_eq(c.launch.grid[0], 128);   /* 8 rows per 256-thread block */
}

Test(suite_bytes, describe_rejects_bad_parameters)
{
    gm_case c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < gm_suite_len; i++)
        if (strcmp(gm_suite[i].experiment->id, "coalescing") == 0 &&
            strcmp(gm_suite[i].name, "stride") == 0)
            c.variant = &gm_suite[i];
    cr_assert_not_null(c.variant);
    c.params[0].name = "n";
    c.params[0].value = 1000;
    c.params[1].name = "stride";
    c.params[1].value = 3;   /* 1000 is not a multiple of 3 */
    c.n_params = 2;
    gm_error err = {GM_OK, ""};
    cr_expect_eq(c.variant->describe(&c, &err), GM_ERR_VALUE);
    cr_expect(strstr(err.message, "stride=3") != NULL, "%s", err.message);
}

/* ---- selection ------------------------------------------------------------ */

Test(suite_select, unknown_ids_list_the_valid_ones)
{
    const char *only[] = {"coalescing", "nope"};
    gm_suite_opts o;
    memset(&o, 0, sizeof o);
    o.only = only;
    o.n_only = 2;
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_suite_select_check(&o, &err), GM_ERR_VALUE);
    cr_expect(strstr(err.message, "'nope'") != NULL, "%s", err.message);
    cr_expect(strstr(err.message, "coalescing") != NULL, "%s", err.message);
    cr_expect(strstr(err.message, "matvec") != NULL, "%s", err.message);

    const char *variants[] = {"coalescing/float8"};
    memset(&o, 0, sizeof o);
    o.variants = variants;
    o.n_variants = 1;
    cr_assert_eq(gm_suite_select_check(&o, &err), GM_ERR_VALUE);
    cr_expect(strstr(err.message, "coalescing/float4") != NULL, "%s", err.message);
}

Test(suite_select, variants_by_full_or_bare_name_and_skip)
{
    const char *variants[] = {"coalescing/float4", "planar"};
    const char *skip[] = {"alignment"};
    gm_suite_opts o;
    memset(&o, 0, sizeof o);
    o.variants = variants;
    o.n_variants = 2;
    o.skip = skip;
    o.n_skip = 1;
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_suite_select_check(&o, &err), GM_OK, "%s", err.message);
    size_t picked = 0;
    for (size_t i = 0; i < gm_suite_len; i++) {
        const gm_variant *v = &gm_suite[i];
        if (!gm_suite_selects_variant(&o, v))
            continue;
        picked++;
        cr_expect(strcmp(v->name, "float4") == 0 || strcmp(v->name, "planar") == 0,
                  "picked %s/%s", v->experiment->id, v->name);
        cr_expect_str_neq(v->experiment->id, "alignment");
    }
    cr_expect_eq(picked, 2);   /* coalescing/float4 and rgb/planar; alignment/float4 skipped */

    const char *only[] = {"coalescing"};
    const char *none[] = {"planar"};
    memset(&o, 0, sizeof o);
    o.only = only;
    o.n_only = 1;
    o.variants = none;
    o.n_variants = 1;
    cr_expect_eq(gm_suite_select_check(&o, &err), GM_ERR_VALUE, "an empty selection is an error");
}

/* ---- harness helpers that need no GPU --------------------------------------- */

Test(harness, fills_are_random_access_and_deterministic)
{
    uint64_t st = 42;
    for (uint64_t i = 0; i < 100; i++)
        cr_expect_eq(gm_rand_next(&st), gm_rand_at(42, i), "element %llu",
                     (unsigned long long)i);
    enum { N = 100000 };
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    gm_fill_uniform_f32(a, N, 7, -2.0f, 3.0f);
    gm_fill_uniform_f32(b, N, 7, -2.0f, 3.0f);
    cr_expect_eq(memcmp(a, b, N * sizeof *a), 0);
    size_t zeros = 0;
    double lo = 1e9, hi = -1e9;
    for (size_t i = 0; i < N; i++) {
        cr_assert_eq(a[i], gm_uniform_f32_at(7, i, -2.0f, 3.0f));
        zeros += a[i] == 0.0f;
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    cr_expect_lt(zeros, 10);
    cr_expect_geq(lo, -2.0);
    cr_expect_lt(hi, 3.0);
    cr_expect_lt(lo, -1.9);   /* the range is covered */
    cr_expect_gt(hi, 2.9);
    gm_fill_uniform_f32(b, N, 8, -2.0f, 3.0f);
    cr_expect_neq(memcmp(a, b, N * sizeof *a), 0, "another seed, other data");
    free(a);
    free(b);

    unsigned char bytes[1000], again[1000];
    gm_fill_bytes(bytes, sizeof bytes, 9);
    gm_fill_bytes(again, sizeof again, 9);
    cr_expect_eq(memcmp(bytes, again, sizeof bytes), 0);
    uint64_t z = gm_rand_at(9, 3);   /* bytes 24..31 are output 3, little-endian */
    for (int k = 0; k < 8; k++)
        cr_expect_eq(bytes[24 + k], (unsigned char)(z >> (8 * k)));
}

Test(harness, compare_f32_reports_first_mismatches_and_nan)
{
    enum { N = 200000 };
    float *ref = malloc(N * sizeof *ref), *got = malloc(N * sizeof *got);
    for (size_t i = 0; i < N; i++)
        ref[i] = got[i] = (float)i * 0.5f + 1.0f;
    gm_check chk;
    memset(&chk, 0, sizeof chk);
    gm_compare_f32(got, ref, N, 0.0, 0.0, &chk);
    cr_expect_eq(chk.status, GM_CHECK_PASSED);
    cr_expect_eq(chk.checked, N);
    cr_expect_eq(chk.mismatches, 0);
    cr_expect_null(chk.reason);

    got[150001] = 7.0f;
    got[3] = NAN;
    got[99999] += 0.0078125f;   /* 2 ulp at 5e4: within rtol 1e-6 * 5e4 = 0.05 */
    memset(&chk, 0, sizeof chk);
    gm_compare_f32(got, ref, N, 0.0, 1e-6, &chk);
    cr_expect_eq(chk.status, GM_CHECK_FAILED);
    cr_expect_eq(chk.mismatches, 2);
    cr_expect(chk.has_first_mismatch);
    cr_expect_eq(chk.first_index, 3, "the first mismatch by index, across host threads");
    cr_expect_eq(chk.first_expected, 2.5);
    cr_expect_not_null(chk.reason);
    cr_expect(strstr(chk.reason, "[150001] got 7") != NULL, "%s", chk.reason);
    cr_expect(strstr(chk.reason, "NaN") != NULL, "%s", chk.reason);
    cr_expect_eq(chk.max_abs_error.kind, GM_V_ABSENT, "a NaN leaves no max error");
    free(chk.reason);
    free(ref);
    free(got);
}

Test(harness, compare_exact_types)
{
    unsigned char a[100], b[100];
    for (int i = 0; i < 100; i++)
        a[i] = b[i] = (unsigned char)(i * 7);
    gm_check chk;
    memset(&chk, 0, sizeof chk);
    gm_compare_u8(a, b, 100, &chk);
    cr_expect_eq(chk.status, GM_CHECK_PASSED);
    cr_expect(isnan(chk.tolerance));
    b[40] = 3;
    memset(&chk, 0, sizeof chk);
    gm_compare_u8(a, b, 100, &chk);
    cr_expect_eq(chk.status, GM_CHECK_FAILED);
    cr_expect_eq(chk.first_index, 40);
    cr_expect_eq(chk.first_value, 280 % 256);
    cr_expect_eq(chk.first_expected, 3);
    cr_expect_eq(chk.max_abs_error.i, 21);
    free(chk.reason);

    long long x[3] = {LLONG_MAX, 0, -5}, y[3] = {LLONG_MIN, 0, -5};
    memset(&chk, 0, sizeof chk);
    gm_compare_i64(x, y, 3, &chk);
    cr_expect_eq(chk.mismatches, 1);
    cr_expect_eq(chk.max_abs_error.i, LLONG_MAX, "overflowing difference saturates");
    free(chk.reason);

    int p[2] = {1, 2}, q[2] = {1, 2};
    memset(&chk, 0, sizeof chk);
    gm_compare_i32(p, q, 2, &chk);
    cr_expect_eq(chk.status, GM_CHECK_PASSED);
}

static void S_mark(void *ctx, size_t b, size_t e)
{
    unsigned char *seen = ctx;
    for (size_t i = b; i < e; i++)
        seen[i]++;
}

Test(harness, parallel_for_covers_every_index_once)
{
    size_t sizes[] = {0, 1, 7, 100, 65536, 1000003};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        unsigned char *seen = calloc(n + 1, 1);
        gm_parallel_for(n, 1, S_mark, seen);
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(seen[i], 1, "n=%zu: index %zu seen %d times", n, i, seen[i]);
        cr_expect_eq(seen[n], 0);
        free(seen);
    }
}

static int S_built, S_destroyed;

static gm_status S_build(void *obj, void *ctx, gm_error *err)
{
    (void)err;
    S_built++;
    *(int *)obj = *(int *)ctx;
    return *(int *)ctx < 0 ? gm_fail(err, GM_ERR_VALUE, "negative") : GM_OK;
}

static void S_destroy(void *obj)
{
    (void)obj;
    S_destroyed++;
}

Test(harness, shared_inputs_are_built_once_and_freed_by_the_last_release)
{
    S_built = S_destroyed = 0;
    int v = 5, w = 6;
    void *a = NULL, *b = NULL, *c = NULL;
    cr_assert_eq(gm_shared_get("k1", sizeof(int), S_build, S_destroy, &v, &a, NULL), GM_OK);
    cr_assert_eq(gm_shared_get("k1", sizeof(int), S_build, S_destroy, &w, &b, NULL), GM_OK);
    cr_assert_eq(gm_shared_get("k2", sizeof(int), S_build, S_destroy, &w, &c, NULL), GM_OK);
    cr_expect_eq(a, b);
    cr_expect_neq(a, c);
    cr_expect_eq(*(int *)a, 5);
    cr_expect_eq(*(int *)c, 6);
    cr_expect_eq(S_built, 2);
    gm_shared_release(a);
    cr_expect_eq(S_destroyed, 0);
    gm_shared_release(b);
    cr_expect_eq(S_destroyed, 1);
    gm_shared_release(c);
    cr_expect_eq(S_destroyed, 2);
    /* Released keys are built again; a failed build is destroyed at once. */
    cr_assert_eq(gm_shared_get("k1", sizeof(int), S_build, S_destroy, &w, &a, NULL), GM_OK);
    cr_expect_eq(*(int *)a, 6);
    gm_shared_release(a);
    int bad = -1;
    gm_error err = {GM_OK, ""};
    cr_expect_eq(gm_shared_get("k3", sizeof(int), S_build, S_destroy, &bad, &a, &err),
                 GM_ERR_VALUE);
    cr_expect_null(a);
    cr_expect_eq(S_destroyed, 4);
    gm_shared_release(NULL);
}

#ifdef GM_HAVE_CUDA

/* Without a GPU the runner says so before touching anything; with one, a
 * validate-only run of one small variant passes. */
Test(suite_runner, no_gpu_is_a_clear_status)
{
    const char *only[] = {"coalescing"}, *variants[] = {"coalescing/float4"};
    gm_suite_opts o;
    memset(&o, 0, sizeof o);
    o.only = only;
    o.n_only = 1;
    o.variants = variants;
    o.n_variants = 1;
    o.quick = true;
    o.validate_only = true;
    gm_results r;
    gm_results_init(&r);
    gm_error err = {GM_OK, ""};
    gm_status st = gm_suite_run(&o, &r, &err);
    cr_expect(st == GM_OK || st == GM_ERR_NO_DEVICE, "%s: %s", gm_status_name(st), err.message);
    if (st == GM_OK) {
        cr_expect_eq(r.n_runs, 1);
        cr_expect_eq(r.runs[0].check.status, GM_CHECK_PASSED);
        cr_expect(r.runs[0].has_launch && r.runs[0].launch.registers > 0,
                  "setup asks the runtime for the kernel's registers");
        cr_expect_eq(r.runs[0].bytes_read.i, 4ll << 22);
    } else {
        cr_expect(strstr(err.message, "no usable CUDA device") != NULL, "%s", err.message);
        cr_expect_eq(r.n_runs, 0);
    }
    gm_results_free(&r);
}

#else

Test(suite_runner, no_gpu_is_a_clear_status)
{
    cr_skip_test("the runner launches kernels: built only with the CUDA toolkit (nvcc)");
}

#endif

/* The per-line pass's children find their case by experiment, variant and
 * NAME=VALUE words: every case of every variant at both size sets finds
 * itself; a wrong value, an unknown name, a value that is not a whole number
 * and an unknown variant are refused by name. */
Test(suite_cases, a_child_finds_its_case_by_name_and_parameters)
{
    for (int q = 0; q < 2; q++) {
        for (size_t r = 0; r < gm_suite_len; r++) {
            const gm_variant *v = &gm_suite[r];
            size_t nc = gm_variant_cases(v, q, NULL, 0);
            gm_case *all = calloc(nc ? nc : 1, sizeof *all);
            gm_variant_cases(v, q, all, nc);
            for (size_t k = 0; k < nc; k++) {
                char words[GM_MAX_PARAMS][64];
                char *args[GM_MAX_PARAMS];
                for (int p = 0; p < all[k].n_params; p++) {
                    snprintf(words[p], sizeof words[p], "%s=%lld", all[k].params[p].name,
                             all[k].params[p].value);
                    args[p] = words[p];
                }
                gm_case *cases, *c;
                gm_error err = {GM_OK, ""};
                cr_assert_eq(gm_suite_find_case(v->experiment->id, v->name, args,
                                                all[k].n_params, q, &cases, &c, &err),
                             GM_OK, "%s", err.message);
                for (int p = 0; p < all[k].n_params; p++)
                    cr_expect_eq(c->params[p].value, all[k].params[p].value);
                free(cases);
            }
            free(all);
        }
    }
    gm_case *cases, *c;
    gm_error err = {GM_OK, ""};
    char *bad[][1] = {{"n=12345"}, {"size=2048"}, {"n=2048x"}};
    for (size_t i = 0; i < 3; i++) {
        cr_expect_eq(gm_suite_find_case("transpose", "naive", bad[i], 1, true, &cases, &c, &err),
                     GM_ERR_VALUE, "%s", bad[i][0]);
        gmt_assert_has(err.message, "transpose/naive has no case with those parameters");
        free(cases);
    }
    cr_expect_eq(gm_suite_find_case("transpose", "diagonal", NULL, 0, true, &cases, &c, &err),
                 GM_ERR_VALUE);
    gmt_assert_has(err.message, "no variant transpose/diagonal");
    free(cases);
}
