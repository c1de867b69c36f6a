/* test_diff.c — `gpumem-report diff`: the noise test against reference
 * values, pairing, directions, thresholds, every row status, incomparable
 * files, escaping, the renderers, and the binary's exit codes.
 *
 * Reference p-values marked "scipy" were computed with
 * scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method=...,
 * use_continuity=True), SciPy 1.10.1 (Debian 12), an implementation
 * independent of this one; exact small cases are also checked against a
 * brute-force enumeration of every split of the pooled sample.
 */
#include "../core/catalog.h"
#include "../reports/diff.h"
#include "../reports/merge.h"
#include "../core/results.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <jansson.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building results in code ------------------------------------------ */

static void S_header(gm_results *r, const char *commit)
{
    gm_results_init(r);
    r->origin = strdup("hand-written fixture (synthetic numbers, not a measurement)");
    r->commit = strdup(commit);
    r->dirty = 0;
    r->device.name = strdup("NVIDIA H100 80GB HBM3");
    r->device.chip = strdup("GH100");
    r->device.cc_major = 9;
    r->device.cc_minor = 0;
    r->device.sm_count = 132;
    r->device.memory_clock_khz = 2619000;
    r->device.memory_bus_width_bits = 5120;
    r->device.driver_version = strdup("580.65.06");
    r->device.cuda_driver_api = 13000;
    r->device.cuda_runtime = 13000;
    r->device.cupti_api = 130000;
    r->collection.range_mode = strdup("user");
    r->collection.replay_mode = strdup("user");
    r->collection.cache_flush = true;
    r->collection.clock_control = strdup("none");
    r->collection.size_set = strdup("quick");
    r->collection.timing_warmup = 3;
    r->collection.timing_repetitions = 8;
    const char *names[] = {GM_M_LD_SECTORS, GM_M_LD_REQUESTS, GM_M_DRAM_RD, GM_M_L2_HIT};
    r->collection.n_metrics = 4;
    r->collection.metrics = calloc(4, sizeof(char *));
    for (int i = 0; i < 4; i++)
        r->collection.metrics[i] = strdup(names[i]);
}

static const double S_T0[8] = {1.00, 1.01, 0.99, 1.02, 0.98, 1.005, 0.995, 1.015};

/* A passed run with time samples S_T0 * scale and four metrics. */
static gm_run *S_run(gm_results *r, const char *exp, const char *var, long long n, long long stride,
                     double scale)
{
    gm_run *run = gm_results_add_run(r);
    run->experiment = strdup(exp);
    run->variant = strdup(var);
    gm_run_set_param(run, "n", gm_vint(n));
    gm_run_set_param(run, "stride", gm_vint(stride));
    double t[8];
    for (int i = 0; i < 8; i++)
        t[i] = S_T0[i] * scale;
    gm_timing_set_samples(&run->timing, t, 8);
    run->timing.warmup = 3;
    run->timing.l2_flushed = true;
    run->check.status = GM_CHECK_PASSED;
    run->check.checked = n;
    gm_run_set_metric(run, GM_M_LD_SECTORS, gm_vint(n / 8 * stride), "sector");
    gm_run_set_metric(run, GM_M_LD_REQUESTS, gm_vint(n / 32), "request");
    gm_run_set_metric(run, GM_M_DRAM_RD, gm_vint(4 * n * stride), "byte");
    gm_run_set_metric(run, GM_M_L2_HIT, gm_vreal(50.0), "%");
    return run;
}

/* Base and head with the same three runs. */
static void S_pair(gm_results *b, gm_results *h)
{
    S_header(b, "1111111111111111111111111111111111111111");
    S_header(h, "2222222222222222222222222222222222222222");
    gm_results *both[2] = {b, h};
    for (int k = 0; k < 2; k++) {
        S_run(both[k], "coalescing", "stride", 1 << 20, 1, 1.0);
        S_run(both[k], "coalescing", "stride", 1 << 20, 8, 2.0);
        S_run(both[k], "transpose", "tiled", 1 << 12, 1, 0.5);
    }
}

static gm_run *S_find(gm_results *r, const char *var, long long stride)
{
    for (size_t i = 0; i < r->n_runs; i++)
        if (strcmp(r->runs[i].variant, var) == 0 &&
            gm_run_param(&r->runs[i], "stride")->value.i == stride)
            return &r->runs[i];
    return NULL;
}

static void S_set(gm_run *run, const char *metric, gm_value v)
{
    const gm_metric *m = gm_run_metric(run, metric);
    cr_assert(m, "metric %s missing", metric);
    char *unit = strdup(m->unit);   /* gm_run_set_metric frees the old unit */
    gm_run_set_metric(run, metric, v, unit);
    free(unit);
}

static const gm_diff_row *S_row(const gm_diff *d, const char *var, long long stride,
                                const char *metric)
{
    for (size_t i = 0; i < d->n_rows; i++) {
        const gm_diff_row *r = &d->rows[i];
        const gm_run *run = r->head ? r->head : r->base;
        if (strcmp(run->variant, var) != 0 || gm_run_param(run, "stride")->value.i != stride)
            continue;
        if ((!metric && !r->metric) || (metric && r->metric && strcmp(metric, r->metric) == 0))
            return r;
    }
    return NULL;
}

static gm_diff S_compute(const gm_results *b, const gm_results *h, const gm_diff_options *o)
{
    gm_diff d;
    gm_error err = {GM_OK, ""};
    gm_status st = gm_diff_compute(b, h, o, &d, &err);
    cr_assert_eq(st, GM_OK, "diff failed: %s", err.message);
    return d;
}

static gm_diff_status S_status(const gm_diff *d, const char *var, long long stride,
                               const char *metric)
{
    const gm_diff_row *r = S_row(d, var, stride, metric);
    cr_assert(r, "no row for %s stride %lld %s", var, stride, metric ? metric : "(run)");
    return r->status;
}

/* ---- the noise test ----------------------------------------------------- */

static void S_expect_p(const double *x, size_t n1, const double *y, size_t n2,
                       gm_mwu_method method, double u1, double p)
{
    gm_mwu t = gm_mann_whitney(x, n1, y, n2);
    cr_expect_eq(t.method, method, "method %s", gm_mwu_method_name(t.method));
    cr_expect_float_eq(t.u1, u1, 1e-12, "U1 %g, want %g", t.u1, u1);
    cr_expect_float_eq(t.p, p, 1e-12 + 1e-9 * p, "p %.17g, want %.17g", t.p, p);
}

Test(diff_mwu, exact_small_cases_match_reference)
{
    /* scipy, method='exact'.  4/70: U = 0 or 1 in 2 of the 70 splits, doubled. */
    double a[] = {1, 2, 3, 5}, b[] = {4, 6, 7, 8};
    S_expect_p(a, 4, b, 4, GM_MWU_EXACT, 1, 4.0 / 70.0);
    double c[] = {1, 2, 3, 4}, d[] = {5, 6, 7, 8};
    S_expect_p(c, 4, d, 4, GM_MWU_EXACT, 0, 2.0 / 70.0);
    /* 3 against 3 can never reach 0.05: the smallest p is 2/20. */
    double e[] = {1, 2, 3}, f[] = {4, 5, 6};
    S_expect_p(e, 3, f, 3, GM_MWU_EXACT, 0, 0.1);
    /* 5 against 5: U = 2 is the two-sided 5 % critical value of the tables. */
    double g[] = {1, 2, 3, 4, 7}, h[] = {5, 6, 8, 9, 10};
    S_expect_p(g, 5, h, 5, GM_MWU_EXACT, 2, 0.031746031746031744);
    double i[] = {1, 2, 3, 4, 8}, j[] = {5, 6, 7, 9, 10};
    S_expect_p(i, 5, j, 5, GM_MWU_EXACT, 3, 0.055555555555555552);
    /* Overlapping timings (ms). */
    double k[] = {0.101, 0.103, 0.099, 0.104, 0.100, 0.102};
    double l[] = {0.105, 0.098, 0.107, 0.106, 0.097, 0.108};
    S_expect_p(k, 6, l, 6, GM_MWU_EXACT, 12, 0.39393939393939392);
}

Test(diff_mwu, normal_with_ties_matches_reference)
{
    /* scipy, method='asymptotic', use_continuity=True (tie-corrected). */
    double a[] = {1, 2, 2, 3, 3, 3, 4}, b[] = {2, 3, 4, 4, 5, 5, 6, 6};
    S_expect_p(a, 7, b, 8, GM_MWU_NORMAL, 8.5, 0.025144761173357368);
    double c[] = {0.050, 0.051, 0.051, 0.052, 0.052, 0.053};
    double d[] = {0.052, 0.053, 0.053, 0.054, 0.055, 0.055};
    S_expect_p(c, 6, d, 6, GM_MWU_NORMAL, 3, 0.018100948739449691);
    /* 60 against 60: beyond the exact method's range. */
    double x[60], y[60];
    for (int i = 0; i < 60; i++) {
        x[i] = 1 + 0.001 * i;
        y[i] = 1.02 + 0.001 * i;
    }
    S_expect_p(x, 60, y, 60, GM_MWU_NORMAL, 800, 1.5511775890425364e-07);
}

Test(diff_mwu, equal_sets_give_p_one)
{
    double a[] = {1, 1, 2, 2};
    gm_mwu t = gm_mann_whitney(a, 4, a, 4);
    cr_expect_float_eq(t.p, 1.0, 1e-15);
    double same[5] = {3, 3, 3, 3, 3};
    t = gm_mann_whitney(same, 5, same, 3);
    cr_expect_float_eq(t.p, 1.0, 1e-15, "no variance at all: p = 1");
    /* Distinct values, identical sets: no ties across values? each value twice -> ties. */
    double u[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    t = gm_mann_whitney(u, 6, u, 6);
    cr_expect_eq(t.method, GM_MWU_NORMAL);
    cr_expect_gt(t.p, 0.9);
}

Test(diff_mwu, shifted_is_significant_overlapping_is_not)
{
    double x[20], y[20], z[20];
    for (int i = 0; i < 20; i++) {
        x[i] = 1.0 + 0.01 * ((i * 7) % 20);    /* 1.00 .. 1.19, shuffled */
        y[i] = 1.5 + 0.01 * ((i * 3) % 20);    /* 1.50 .. 1.69 */
        z[i] = 1.005 + 0.01 * ((i * 11) % 20); /* interleaved with x */
    }
    gm_mwu s = gm_mann_whitney(x, 20, y, 20);
    cr_expect_eq(s.method, GM_MWU_EXACT);
    cr_expect_eq(s.u, 0.0);
    cr_expect_lt(s.p, 1e-9, "p %g", s.p);
    gm_mwu o = gm_mann_whitney(x, 20, z, 20);
    cr_expect_gt(o.p, 0.05, "p %g", o.p);
    gm_mwu none = gm_mann_whitney(x, 20, NULL, 0);
    cr_expect_eq(none.method, GM_MWU_NONE);
    cr_expect(isnan(none.p));
}

#define S_REF_49_A 0.8652103571528188      /* scipy exact; asymptotic 0.86459723523365095 */
#define S_REF_49_B 0.00095957471529892072  /* scipy exact; asymptotic 0.0011090592495473241 */

Test(diff_mwu, exact_at_49_matches_reference)
{
    /* 49 + 49 samples, interleaved then shifted: the largest sizes the exact
     * method takes (no ties, both < 50), where its counts pass 1e28. */
    double x[49], y[49], y2[49];
    for (int i = 0; i < 49; i++) {
        x[i] = i;
        y[i] = i + 0.5;          /* interleaved: p near 1 */
        y2[i] = i + 10.5;        /* shifted by 10 ranks of 49 */
    }
    gm_mwu a = gm_mann_whitney(x, 49, y, 49);
    cr_expect_eq(a.method, GM_MWU_EXACT);
    cr_expect_float_eq(a.u1, 1176.0, 1e-9);
    cr_expect_float_eq(a.p, S_REF_49_A, 1e-9, "p %.17g", a.p);
    gm_mwu b = gm_mann_whitney(x, 49, y2, 49);
    cr_expect_float_eq(b.u1, 741.0, 1e-9);
    cr_expect_float_eq(b.p, S_REF_49_B, 1e-9 * S_REF_49_B + 1e-15, "p %.17g", b.p);
}

/* Exact p by enumerating every way to choose which n1 of the pooled values
 * are x's: an independent check of the recurrence. */
static double S_brute_p(const double *x, int n1, const double *y, int n2)
{
    double pool[16];
    int n = n1 + n2;
    for (int i = 0; i < n1; i++)
        pool[i] = x[i];
    for (int i = 0; i < n2; i++)
        pool[n1 + i] = y[i];
    double uobs = 0;
    for (int i = 0; i < n1; i++)
        for (int j = 0; j < n2; j++)
            uobs += x[i] > y[j];
    uobs = fmin(uobs, (double)n1 * n2 - uobs);
    long total = 0, extreme = 0;
    for (unsigned mask = 0; mask < (1u << n); mask++) {
        if (__builtin_popcount(mask) != n1)
            continue;
        double u = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if ((mask >> i & 1) && !(mask >> j & 1) && pool[i] > pool[j])
                    u++;
        total++;
        if (fmin(u, (double)n1 * n2 - u) <= uobs)
            extreme++;
    }
    return (double)extreme / (double)total;
}

Test(diff_mwu, exact_matches_enumeration)
{
    unsigned seed = 12345;
    for (int n1 = 1; n1 <= 7; n1++) {
        for (int n2 = 1; n2 <= 7; n2++) {
            double x[8], y[8];
            /* distinct values: a random permutation of 0..n-1, shifted a little */
            int n = n1 + n2, perm[16];
            for (int i = 0; i < n; i++)
                perm[i] = i;
            for (int i = n - 1; i > 0; i--) {
                seed = seed * 1103515245u + 12345u;
                int j = (int)((seed >> 16) % (unsigned)(i + 1));
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            for (int i = 0; i < n1; i++)
                x[i] = perm[i] + (i % 2 ? 0.0 : 0.5 * (n1 > n2));
            for (int i = 0; i < n2; i++)
                y[i] = perm[n1 + i];
            /* the shift may create a tie only with half-integers vs integers: none */
            gm_mwu t = gm_mann_whitney(x, (size_t)n1, y, (size_t)n2);
            cr_assert_eq(t.method, GM_MWU_EXACT);
            double ref = fmin(1.0, S_brute_p(x, n1, y, n2));
            cr_expect_float_eq(t.p, ref, 1e-12, "n1=%d n2=%d: p %.17g, enumeration %.17g", n1,
                               n2, t.p, ref);
        }
    }
}

/* ---- thresholds ----------------------------------------------------------- */

Test(diff_threshold, parse_forms)
{
    char *m = NULL;
    gm_threshold t;
    gm_error err;
    cr_assert_eq(gm_threshold_parse("time=5%", &m, &t, &err), GM_OK);
    cr_expect_str_eq(m, "time");
    cr_expect_eq(t.kind, GM_THR_RELATIVE);
    cr_expect_float_eq(t.value, 0.05, 1e-15);
    free(m);
    cr_assert_eq(gm_threshold_parse("lts__t_sector_hit_rate.pct=0.5", &m, &t, &err), GM_OK);
    cr_expect_str_eq(m, "lts__t_sector_hit_rate.pct");
    cr_expect_eq(t.kind, GM_THR_ABSOLUTE);
    cr_expect_float_eq(t.value, 0.5, 1e-15);
    free(m);
    cr_assert_eq(gm_threshold_parse("ld sectors=exact", &m, &t, &err), GM_OK);
    cr_expect_str_eq(m, "ld sectors");
    cr_expect_eq(t.kind, GM_THR_EXACT);
    free(m);
    cr_assert_eq(gm_threshold_parse("DRAM read=2.5 %", &m, &t, &err), GM_OK);
    cr_expect_float_eq(t.value, 0.025, 1e-15);
    free(m);
    const char *bad[] = {"=5%", "time=", "time", "time=-1", "time=5%%", "time=abc",
                         "time=nan", "time=inf", "time=5x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = NULL;
        cr_expect_eq(gm_threshold_parse(bad[i], &m, &t, &err), GM_ERR_VALUE, "'%s' accepted",
                     bad[i]);
        cr_expect_null(m);
        cr_expect(strstr(err.message, "--threshold"), "message: %s", err.message);
    }
}

Test(diff_threshold, parse_floors)
{
    char *m = NULL;
    gm_threshold t;
    gm_error err;
    cr_assert_eq(gm_threshold_parse("DRAM read=2%,2MiB", &m, &t, &err), GM_OK, "%s", err.message);
    cr_expect_str_eq(m, "DRAM read");
    cr_expect(t.kind == GM_THR_RELATIVE && fabs(t.value - 0.02) < 1e-15);
    cr_expect_eq(t.floor_kind, GM_FLOOR_ABSOLUTE);
    cr_expect_eq(t.floor, 2097152.0);
    free(m);
    cr_assert_eq(gm_threshold_parse("sh ld conflicts=1%, 0.05/inst", &m, &t, &err), GM_OK, "%s",
                 err.message);
    cr_expect_eq(t.floor_kind, GM_FLOOR_PER_INST);
    cr_expect_float_eq(t.floor, 0.05, 1e-15);
    free(m);
    cr_assert_eq(gm_threshold_parse(GM_M_SH_ST_WAVES "=0.5,0.1/inst", &m, &t, &err), GM_OK);
    cr_expect(t.kind == GM_THR_ABSOLUTE && t.floor_kind == GM_FLOOR_PER_INST);
    free(m);
    cr_assert_eq(gm_threshold_parse("time=5%,0.003", &m, &t, &err), GM_OK);
    cr_expect(t.floor_kind == GM_FLOOR_ABSOLUTE && t.floor == 0.003);
    free(m);
    cr_assert_eq(gm_threshold_parse("DRAM written=3 % , 512 KiB", &m, &t, &err), GM_OK, "%s",
                 err.message);
    cr_expect_eq(t.floor, 524288.0);
    free(m);
    cr_assert_eq(gm_threshold_parse("DRAM B/s=10%,1e10", &m, &t, &err), GM_OK);
    cr_expect_eq(t.floor, 1e10);
    free(m);
    cr_assert_eq(gm_threshold_parse("DRAM read=2%,0", &m, &t, &err), GM_OK);
    cr_expect_eq(t.floor_kind, GM_FLOOR_NONE, "a zero floor is no floor");
    free(m);
    const char *bad[] = {"time=exact,1", "time=5%,", "time=5%,-1", "time=5%,2MB", "time=5%,nan",
                         "DRAM read=5%,1MiB,2", "ld sectors=5%,abc", "time=5%,0.05/inst",
                         "ld sectors=1%,0.05/inst", "DRAM read=5%,1/inst"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = NULL;
        cr_expect_eq(gm_threshold_parse(bad[i], &m, &t, &err), GM_ERR_VALUE, "'%s' accepted",
                     bad[i]);
        cr_expect_null(m);
        cr_expect(strstr(err.message, bad[i]), "message names the spec: %s", err.message);
    }
    cr_expect_eq(gm_threshold_parse("time=5%,0.05/inst", &m, &t, &err), GM_ERR_VALUE);
    cr_expect(strstr(err.message, "shared-memory conflicts and wavefronts"), "%s", err.message);
}

Test(diff_threshold, format_and_equal)
{
    char out[64];
    gm_threshold t = gm_diff_default_threshold(GM_M_DRAM_RD);
    gm_threshold_format(&t, "byte", out, sizeof out);
    cr_expect_str_eq(out, "2 %, 2 MiB");
    t = gm_diff_default_threshold(GM_M_SH_LD_CONFL);
    gm_threshold_format(&t, "", out, sizeof out);
    cr_expect_str_eq(out, "1 %, 0.05/inst");
    t = gm_diff_default_threshold(GM_M_DRAM_RATE);
    gm_threshold_format(&t, "byte/second", out, sizeof out);
    cr_expect_str_eq(out, "10 %, 1e+10 byte/second");
    t = (gm_threshold){GM_THR_RELATIVE, 0.05, GM_FLOOR_ABSOLUTE, 1536.0};
    gm_threshold_format(&t, "byte", out, sizeof out);
    cr_expect_str_eq(out, "5 %, 1.5 KiB");
    t = (gm_threshold){GM_THR_ABSOLUTE, 10.0, GM_FLOOR_NONE, 0.0};
    gm_threshold_format(&t, "%", out, sizeof out);
    cr_expect_str_eq(out, "10 pp");
    char tiny[8];
    t = gm_diff_default_threshold(GM_M_DRAM_RD);
    gm_threshold_format(&t, "byte", tiny, sizeof tiny);
    cr_expect_str_eq(tiny, "2 %, 2 ", "cut to the buffer");
    t = (gm_threshold){GM_THR_RELATIVE, 0.02, GM_FLOOR_ABSOLUTE, 1e10};
    gm_threshold_format(&t, "byte", out, sizeof out);
    cr_expect_str_eq(out, "2 %, 1e+10 byte");

    gm_threshold a = gm_diff_default_threshold(GM_M_DRAM_RD), b = a;
    cr_expect(gm_threshold_equal(&a, &b));
    b.floor = 1024.0;
    cr_expect_not(gm_threshold_equal(&a, &b));
    b = a;
    b.floor_kind = GM_FLOOR_NONE;
    cr_expect_not(gm_threshold_equal(&a, &b));
    a = (gm_threshold){GM_THR_EXACT, 1.0, GM_FLOOR_NONE, 3.0};
    b = (gm_threshold){GM_THR_EXACT, 2.0, GM_FLOOR_NONE, 4.0};
    cr_expect(gm_threshold_equal(&a, &b), "exact, no floor: the values do not matter");
}

Test(diff_threshold, defaults_and_directions)
{
    gm_threshold t = gm_diff_default_threshold(GM_DIFF_TIME);
    cr_expect(t.kind == GM_THR_RELATIVE && t.value == 0.05 && t.floor_kind == GM_FLOOR_NONE);
    cr_expect_eq(gm_diff_default_threshold(GM_M_LD_SECTORS).kind, GM_THR_EXACT);
    cr_expect_eq(gm_diff_default_threshold(GM_M_SH_LD_INST).kind, GM_THR_EXACT);
    cr_expect_eq(gm_diff_default_threshold(GM_M_LD_EFF).kind, GM_THR_EXACT);
    /* Shared conflicts and wavefronts vary run to run: 1 % and 0.05 per instruction. */
    const char *shared[] = {GM_M_SH_LD_CONFL, GM_M_SH_ST_CONFL, GM_M_SH_LD_WAVES, GM_M_SH_ST_WAVES};
    for (size_t i = 0; i < 4; i++) {
        t = gm_diff_default_threshold(shared[i]);
        cr_expect(t.kind == GM_THR_RELATIVE && t.value == GM_DIFF_SHARED_REL, "%s", shared[i]);
        cr_expect(t.floor_kind == GM_FLOOR_PER_INST && t.floor == GM_DIFF_SHARED_PER_INST);
        cr_expect_not(gm_catalog_find(shared[i])->deterministic, "%s", shared[i]);
    }
    cr_expect_str_eq(gm_diff_inst_metric(GM_M_SH_LD_WAVES), GM_M_SH_LD_INST);
    cr_expect_str_eq(gm_diff_inst_metric(GM_M_SH_ST_CONFL), GM_M_SH_ST_INST);
    cr_expect_null(gm_diff_inst_metric(GM_M_LD_SECTORS));
    t = gm_diff_default_threshold(GM_M_DRAM_RD);
    cr_expect(t.kind == GM_THR_RELATIVE && t.value == 0.02);
    cr_expect(t.floor_kind == GM_FLOOR_ABSOLUTE && t.floor == 2.0 * 1024 * 1024);
    t = gm_diff_default_threshold(GM_M_DRAM_WR);
    cr_expect(t.floor_kind == GM_FLOOR_ABSOLUTE && t.floor == 2.0 * 1024 * 1024);
    t = gm_diff_default_threshold(GM_M_DRAM_RATE);
    cr_expect(t.kind == GM_THR_RELATIVE && t.value == 0.10 && t.floor == 1e10);
    t = gm_diff_default_threshold(GM_M_L2_HIT);
    cr_expect(t.kind == GM_THR_ABSOLUTE && t.value == 10.0 && t.floor_kind == GM_FLOOR_NONE);
    t = gm_diff_default_threshold(GM_M_OCCUPANCY);
    cr_expect(t.kind == GM_THR_ABSOLUTE && t.value == 5.0);
    t = gm_diff_default_threshold(GM_M_DURATION);
    cr_expect(t.kind == GM_THR_RELATIVE && t.value == 0.20);
    t = gm_diff_default_threshold("something__else.sum");
    cr_expect(t.kind == GM_THR_RELATIVE && t.value == 0.05 && t.floor_kind == GM_FLOOR_NONE);
    /* Every catalog metric the catalog calls deterministic is held exactly, and no other. */
    for (size_t i = 0; i < gm_catalog_len; i++)
        cr_expect_eq(gm_diff_default_threshold(gm_catalog[i].name).kind == GM_THR_EXACT,
                     gm_catalog[i].deterministic, "%s", gm_catalog[i].name);

    cr_expect_eq(gm_diff_direction(GM_DIFF_TIME), GM_BETTER_LOWER);
    cr_expect_eq(gm_diff_direction(GM_M_LD_SPR), GM_BETTER_LOWER);
    cr_expect_eq(gm_diff_direction(GM_M_SH_ST_CONFL), GM_BETTER_LOWER);
    cr_expect_eq(gm_diff_direction(GM_M_DRAM_WR), GM_BETTER_LOWER);
    cr_expect_eq(gm_diff_direction(GM_M_LD_EFF), GM_BETTER_HIGHER);
    cr_expect_eq(gm_diff_direction(GM_M_DRAM_RATE), GM_BETTER_HIGHER);
    cr_expect_eq(gm_diff_direction(GM_M_LD_REQUESTS), GM_BETTER_NEITHER);
    cr_expect_eq(gm_diff_direction("unknown__metric.sum"), GM_BETTER_NEITHER);
}

/* ---- pairing -------------------------------------------------------------- */

Test(diff_pair, reordered_runs_and_params_pair)
{
    gm_results b, h;
    S_pair(&b, &h);
    /* Reverse head's runs and rebuild one run's params in the other order. */
    for (size_t i = 0; i < h.n_runs / 2; i++) {
        gm_run t = h.runs[i];
        h.runs[i] = h.runs[h.n_runs - 1 - i];
        h.runs[h.n_runs - 1 - i] = t;
    }
    gm_param p = h.runs[0].params[0];
    h.runs[0].params[0] = h.runs[0].params[1];
    h.runs[0].params[1] = p;
    /* 1048576 as a real in head still pairs with the integer in base. */
    gm_run *r = S_find(&h, "stride", 8);
    gm_run_set_param(r, "n", gm_vreal(1048576.0));

    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(d.n_runs_paired, 3);
    cr_expect_eq(d.n_runs_new, 0);
    cr_expect_eq(d.n_runs_removed, 0);
    cr_expect_eq(d.counts[GM_DIFF_UNCHANGED], 15, "3 runs x (time + 4 metrics)");
    cr_expect_eq(d.n_rows, 15);
    cr_expect(d.comparable);
    cr_expect_not(gm_diff_has_regression(&d));
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_pair, new_and_removed_runs)
{
    gm_results b, h;
    S_pair(&b, &h);
    S_run(&b, "coalescing", "stride", 1 << 20, 32, 4.0);   /* only in base */
    S_run(&h, "coalescing", "stride", 1 << 20, 2, 1.2);    /* only in head */
    S_run(&h, "coalescing", "float4", 1 << 20, 1, 0.9);    /* only in head */
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(d.n_runs_paired, 3);
    cr_expect_eq(d.n_runs_new, 2);
    cr_expect_eq(d.n_runs_removed, 1);
    cr_expect_eq(S_status(&d, "stride", 32, NULL), GM_DIFF_REMOVED);
    cr_expect_eq(S_status(&d, "stride", 2, NULL), GM_DIFF_NEW);
    cr_expect_eq(S_status(&d, "float4", 1, NULL), GM_DIFF_NEW);
    cr_expect_eq(d.counts[GM_DIFF_NEW], 2);
    cr_expect_eq(d.counts[GM_DIFF_REMOVED], 1);
    cr_expect(gm_diff_has_regression(&d), "a run missing from head fails the gate");
    char *g = gm_diff_gate_line(&d);
    cr_expect_str_eq(g, "fail: 1 of 4 runs missing from head (3 runs paired, 2 new)");
    free(g);
    gm_diff_free(&d);
    gm_diff_options o = {.allow_missing = true};
    d = S_compute(&b, &h, &o);
    cr_expect_not(gm_diff_has_regression(&d), "--allow-missing accepts the removal");
    g = gm_diff_gate_line(&d);
    cr_expect_str_eq(g, "pass: 1 of 4 runs missing from head (accepted: --allow-missing) "
                        "(3 runs paired, 2 new)");
    free(g);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_pair, a_different_param_value_is_another_run)
{
    gm_results b, h;
    S_pair(&b, &h);
    gm_run_set_param(S_find(&h, "tiled", 1), "block", gm_vstr("32x8"));
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(d.n_runs_new, 1);
    cr_expect_eq(d.n_runs_removed, 1);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_pair, duplicate_runs_are_bad_input)
{
    gm_results b, h;
    S_pair(&b, &h);
    S_run(&h, "coalescing", "stride", 1 << 20, 8, 2.0);
    gm_diff d;
    gm_error err = {GM_OK, ""};
    gm_diff_options o = {.base_name = "base.json", .head_name = "head.json"};
    cr_expect_eq(gm_diff_compute(&b, &h, &o, &d, &err), GM_ERR_VALUE);
    cr_expect(strstr(err.message, "head.json: runs[1] and runs[3]"), "message: %s", err.message);
    cr_expect(strstr(err.message, "stride=8"), "message: %s", err.message);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* ---- directions and thresholds -------------------------------------------- */

Test(diff_judge, directions)
{
    gm_results b, h;
    S_pair(&b, &h);
    S_set(S_find(&h, "stride", 1), GM_M_LD_SECTORS, gm_vint((1 << 20) / 8 + 1)); /* lower better */
    S_set(S_find(&h, "stride", 8), GM_M_LD_SECTORS, gm_vint((1 << 20) / 8 * 8 - 64));
    S_set(S_find(&h, "stride", 1), GM_M_L2_HIT, gm_vreal(35.0));          /* higher better */
    S_set(S_find(&h, "stride", 8), GM_M_L2_HIT, gm_vreal(65.0));
    S_set(S_find(&h, "tiled", 1), GM_M_LD_REQUESTS, gm_vint((1 << 12) / 32 * 2)); /* neither */
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_LD_SECTORS), GM_DIFF_REGRESSED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_LD_SECTORS), GM_DIFF_IMPROVED);
    /* A rate explains: shown as changed, with the way it moved, gating nothing. */
    const gm_diff_row *r = S_row(&d, "stride", 1, GM_M_L2_HIT);
    cr_expect_eq(r->status, GM_DIFF_CHANGED);
    cr_expect_eq(r->role, GM_DIFF_ROLE_RATE);
    cr_expect_not(r->gates);
    cr_expect(strstr(r->note, "worse"), "note: %s", r->note);
    r = S_row(&d, "stride", 8, GM_M_L2_HIT);
    cr_expect_eq(r->status, GM_DIFF_CHANGED);
    cr_expect(strstr(r->note, "better"), "note: %s", r->note);
    cr_expect_eq(S_status(&d, "tiled", 1, GM_M_LD_REQUESTS), GM_DIFF_CHANGED);
    r = S_row(&d, "tiled", 1, GM_M_LD_REQUESTS);
    cr_expect_eq(r->role, GM_DIFF_ROLE_COUNT);
    cr_expect(r->gates);
    cr_expect_float_eq(r->ratio, 2.0, 1e-15);
    cr_expect_float_eq(r->delta, 128.0, 1e-15);
    cr_expect_eq(d.counts[GM_DIFF_REGRESSED], 1);
    cr_expect_eq(d.counts[GM_DIFF_IMPROVED], 1);
    cr_expect(gm_diff_has_regression(&d));
    /* Sorted by verdict, the regressed layout first; in it the time first, then
     * the counts by status (regressions first), then the rates. */
    cr_expect_str_eq(d.rows[0].metric, GM_DIFF_TIME);
    cr_expect_str_eq(d.rows[1].metric, GM_DIFF_TIME);
    cr_expect_eq(d.rows[2].status, GM_DIFF_REGRESSED);
    cr_expect_str_eq(d.rows[2].metric, GM_M_LD_SECTORS);
    cr_expect_eq(d.rows[3].status, GM_DIFF_IMPROVED);
    for (size_t i = 0; i < 10; i++)
        cr_expect_str_eq(d.rows[i].head->variant, "stride", "row %zu", i);
    char *v = gm_diff_verdict(&d);
    cr_expect_str_eq(v, "1 regression, 1 improvement, 3 changed, 10 unchanged");
    free(v);
    gm_diff_free(&d);

    /* --threshold makes a rate gate, with its direction. */
    gm_diff_override ov[] = {{"L2 hit", {GM_THR_ABSOLUTE, 10.0, GM_FLOOR_NONE, 0}}};
    gm_diff_options o = {.overrides = ov, .n_overrides = 1};
    d = S_compute(&b, &h, &o);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_L2_HIT), GM_DIFF_REGRESSED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_L2_HIT), GM_DIFF_IMPROVED);
    cr_expect(S_row(&d, "stride", 1, GM_M_L2_HIT)->gates);
    cr_expect(S_row(&d, "stride", 1, GM_M_L2_HIT)->thr_given);
    cr_expect_eq(d.counts[GM_DIFF_REGRESSED], 2);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_judge, relative_absolute_exact_thresholds)
{
    gm_results b, h;
    S_pair(&b, &h);
    long long dram = 4LL * (1 << 20);   /* stride 1 base value: 4 MiB */
    S_set(S_find(&h, "stride", 1), GM_M_DRAM_RD, gm_vint(dram + dram / 100));   /* +1 %: under 2 % */
    S_set(S_find(&h, "stride", 8), GM_M_DRAM_RD, gm_vint(8 * dram + 8 * dram / 10)); /* +10 % */
    S_set(S_find(&h, "stride", 1), GM_M_L2_HIT, gm_vreal(59.5));   /* +9.5 pp: under 10 pp */
    S_set(S_find(&h, "stride", 8), GM_M_L2_HIT, gm_vreal(38.0));   /* -12 pp */
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_DRAM_RD), GM_DIFF_UNCHANGED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_DRAM_RD), GM_DIFF_REGRESSED, "+3.2 MiB, +10 %");
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_L2_HIT), GM_DIFF_UNCHANGED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_L2_HIT), GM_DIFF_CHANGED, "a rate: explains");
    gm_diff_free(&d);

    /* Overrides: by ncu name (relative), by label (absolute), exact, last wins. */
    gm_diff_override ov[] = {
        {"dram__bytes_read.sum", {GM_THR_RELATIVE, 0.10, GM_FLOOR_NONE, 0}},
        {"dram__bytes_read.sum", {GM_THR_EXACT, 0, GM_FLOOR_NONE, 0}},   /* last one wins */
        {"L2 hit", {GM_THR_ABSOLUTE, 15.0, GM_FLOOR_NONE, 0}},
    };
    gm_diff_options o = {.overrides = ov, .n_overrides = 3};
    d = S_compute(&b, &h, &o);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_DRAM_RD), GM_DIFF_REGRESSED, "exact");
    char *md = gm_diff_to_markdown(&d, NULL);
    cr_expect(strstr(md, "Thresholds set on the command line: L2 hit 15 pp, DRAM read exact.") ||
              strstr(md, "Thresholds set on the command line: DRAM read exact, L2 hit 15 pp."),
              "overrides named:\n%s", md);
    free(md);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_L2_HIT), GM_DIFF_UNCHANGED, "15 pp");
    const gm_diff_row *r = S_row(&d, "stride", 8, GM_M_L2_HIT);
    cr_expect_eq(r->thr.kind, GM_THR_ABSOLUTE);
    cr_expect_float_eq(r->thr.value, 15.0, 1e-15);
    gm_diff_free(&d);

    /* An override replaces the default whole, floor included. */
    gm_diff_override ov2[] = {{"DRAM read", {GM_THR_RELATIVE, 0.12, GM_FLOOR_NONE, 0}}};
    gm_diff_options o2 = {.overrides = ov2, .n_overrides = 1};
    d = S_compute(&b, &h, &o2);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_DRAM_RD), GM_DIFF_UNCHANGED, "+10 % under 12 %");
    cr_expect_eq(S_row(&d, "stride", 8, GM_M_DRAM_RD)->floor, 0.0);
    gm_diff_free(&d);

    /* A relative threshold is "this much or more": 100 -> 104 at 5 % is unchanged,
     * 105 is not (a 5 % regression is one). */
    gm_run_set_metric(S_find(&b, "tiled", 1), "custom__thing.sum", gm_vint(100), "");
    gm_run_set_metric(S_find(&h, "tiled", 1), "custom__thing.sum", gm_vint(104), "");
    d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "tiled", 1, "custom__thing.sum"), GM_DIFF_UNCHANGED);
    gm_diff_free(&d);
    gm_run_set_metric(S_find(&h, "tiled", 1), "custom__thing.sum", gm_vint(105), "");
    d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "tiled", 1, "custom__thing.sum"), GM_DIFF_CHANGED,
                 "unknown metric: no direction");
    gm_diff_free(&d);

    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_judge, exact_reals_allow_rounding_only)
{
    gm_results b, h;
    S_pair(&b, &h);
    gm_run_set_metric(S_find(&b, "stride", 1), GM_M_LD_SPR, gm_vreal(4.0), "sector/request");
    gm_run_set_metric(S_find(&h, "stride", 1), GM_M_LD_SPR, gm_vreal(4.0 * (1 + 1e-15)),
                      "sector/request");
    gm_run_set_metric(S_find(&b, "stride", 8), GM_M_LD_SPR, gm_vreal(32.0), "sector/request");
    gm_run_set_metric(S_find(&h, "stride", 8), GM_M_LD_SPR, gm_vreal(32.0001),
                      "sector/request");
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_LD_SPR), GM_DIFF_UNCHANGED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_LD_SPR), GM_DIFF_CHANGED, "a ratio: explains");
    gm_diff_free(&d);
    gm_diff_override ov[] = {{"ld sectors/req", {GM_THR_EXACT, 0, GM_FLOOR_NONE, 0}}};
    gm_diff_options o = {.overrides = ov, .n_overrides = 1};
    d = S_compute(&b, &h, &o);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_LD_SPR), GM_DIFF_UNCHANGED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_LD_SPR), GM_DIFF_REGRESSED, "asked: gates");
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_judge, unknown_threshold_metric_is_an_error)
{
    gm_results b, h;
    S_pair(&b, &h);
    gm_diff_override ov[] = {{"ld sectorz", {GM_THR_EXACT, 0, GM_FLOOR_NONE, 0}}};
    gm_diff_options o = {.overrides = ov, .n_overrides = 1};
    gm_diff d;
    gm_error err = {GM_OK, ""};
    cr_expect_eq(gm_diff_compute(&b, &h, &o, &d, &err), GM_ERR_VALUE);
    cr_expect(strstr(err.message, "'ld sectorz'"), "message: %s", err.message);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* ---- floors ----------------------------------------------------------------- */

Test(diff_floor, absolute_floor_and_relative_bound_both_needed)
{
    gm_results b, h;
    S_pair(&b, &h);
    /* A kernel that writes 30 KiB: +20 KiB of write-backs is +67 %, under 2 MiB. */
    gm_run_set_metric(S_find(&b, "stride", 1), GM_M_DRAM_WR, gm_vint(30720), "byte");
    gm_run_set_metric(S_find(&h, "stride", 1), GM_M_DRAM_WR, gm_vint(51200), "byte");
    /* 32 MiB read, +3 MiB: beyond 2 % and 2 MiB. */
    long long big = 32LL << 20;
    S_set(S_find(&h, "stride", 8), GM_M_DRAM_RD, gm_vint(big + (3LL << 20)));
    /* 512 MiB read, +3 MiB: beyond the floor, but +0.6 % is under 2 %. */
    S_set(S_find(&b, "tiled", 1), GM_M_DRAM_RD, gm_vint(512LL << 20));
    S_set(S_find(&h, "tiled", 1), GM_M_DRAM_RD, gm_vint((512LL << 20) + (3LL << 20)));
    /* The floor is "more than": exactly 2 MiB more (and +4 %) is unchanged. */
    S_set(S_find(&b, "stride", 1), GM_M_DRAM_RD, gm_vint(50LL << 20));
    S_set(S_find(&h, "stride", 1), GM_M_DRAM_RD, gm_vint(52LL << 20));
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_DRAM_WR), GM_DIFF_UNCHANGED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_DRAM_RD), GM_DIFF_REGRESSED);
    cr_expect_eq(S_status(&d, "tiled", 1, GM_M_DRAM_RD), GM_DIFF_UNCHANGED);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_DRAM_RD), GM_DIFF_UNCHANGED);
    const gm_diff_row *r = S_row(&d, "stride", 8, GM_M_DRAM_RD);
    cr_expect_eq(r->floor, 2.0 * 1024 * 1024);
    cr_expect(isnan(r->per_inst));
    cr_expect_str_eq(r->note, "");
    gm_diff_free(&d);

    /* The floor given on the command line, in KiB: the write-back counts now. */
    gm_diff_override ov[] = {{"DRAM written", {GM_THR_RELATIVE, 0.02, GM_FLOOR_ABSOLUTE, 16384}}};
    gm_diff_options o = {.overrides = ov, .n_overrides = 1};
    d = S_compute(&b, &h, &o);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_DRAM_WR), GM_DIFF_REGRESSED);
    char *md = gm_diff_to_markdown(&d, NULL);
    cr_expect(strstr(md, "Thresholds set on the command line: DRAM written 2 %, 16 KiB."),
              "override named with its floor:\n%s", md);
    free(md);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* Shared load conflicts `c` and instructions `n` of a run. */
static void S_shared(gm_run *run, long long c, long long n)
{
    gm_run_set_metric(run, GM_M_SH_LD_CONFL, gm_vint(c), "");
    gm_run_set_metric(run, GM_M_SH_LD_INST, gm_vint(n), "inst");
}

Test(diff_floor, per_instruction_floor)
{
    gm_results b, h;
    S_pair(&b, &h);
    /* stride 1: 0.11 conflicts per load (the padded tile's level); +6000 of 131072
     * loads is +41 % but 0.046 per load: under 0.05. */
    S_shared(S_find(&b, "stride", 1), 14759, 131072);
    S_shared(S_find(&h, "stride", 1), 14759 + 6000, 131072);
    /* stride 8: +7000 is 0.053 per load: beyond both. */
    S_shared(S_find(&b, "stride", 8), 14759, 131072);
    S_shared(S_find(&h, "stride", 8), 14759 + 7000, 131072);
    /* tiled: 31.4 per load; +50000 is 0.38 per load but +1.2 % ... */
    S_shared(S_find(&b, "tiled", 1), 4109948, 131072);
    S_shared(S_find(&h, "tiled", 1), 4109948 + 50000, 131072);
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_SH_LD_CONFL), GM_DIFF_UNCHANGED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_SH_LD_CONFL), GM_DIFF_REGRESSED);
    cr_expect_eq(S_status(&d, "tiled", 1, GM_M_SH_LD_CONFL), GM_DIFF_REGRESSED);
    const gm_diff_row *r = S_row(&d, "stride", 8, GM_M_SH_LD_CONFL);
    cr_expect_float_eq(r->floor, 0.05 * 131072, 1e-9);
    cr_expect_float_eq(r->per_inst, 7000.0 / 131072, 1e-12);
    char *md = gm_diff_to_markdown(&d, NULL);
    cr_expect(strstr(md, "+7,000 (+47.4%, +0.0534/inst)"), "delta per instruction:\n%s", md);
    free(md);
    gm_diff_render ro = {0};
    char *js = gm_diff_to_json(&d, &ro, 1);
    json_error_t je;
    json_t *o = json_loads(js, 0, &je);
    cr_assert(o, "%s", je.text);
    bool seen = false;
    json_t *rows = json_object_get(o, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        const char *m = json_string_value(json_object_get(row, "metric"));
        if (!m || strcmp(m, GM_M_SH_LD_CONFL) != 0 ||
            json_integer_value(json_object_get(row, "head")) != 14759 + 7000)
            continue;
        seen = true;
        json_t *f = json_object_get(json_object_get(row, "threshold"), "floor");
        cr_expect_str_eq(json_string_value(json_object_get(f, "kind")), "per_instruction");
        cr_expect_float_eq(json_real_value(json_object_get(f, "value")), 0.05, 1e-15);
        cr_expect_float_eq(json_real_value(json_object_get(f, "applied")), 6553.6, 1e-9);
        cr_expect_float_eq(json_real_value(json_object_get(row, "delta_per_instruction")),
                           7000.0 / 131072, 1e-12);
    }
    cr_expect(seen);
    json_decref(o);
    free(js);
    gm_diff_free(&d);

    /* ... while +7000 on 31.4 per load is 0.17 %: under 1 %. */
    S_shared(S_find(&h, "tiled", 1), 4109948 + 7000, 131072);
    /* The floor scales with the larger instruction count: 9000 conflicts more
     * over 100000 -> 200000 loads is 0.045 per load of head's: unchanged (the
     * instruction row says the count changed). */
    S_shared(S_find(&b, "stride", 8), 0, 100000);
    S_shared(S_find(&h, "stride", 8), 9000, 200000);
    d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "tiled", 1, GM_M_SH_LD_CONFL), GM_DIFF_UNCHANGED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_SH_LD_CONFL), GM_DIFF_UNCHANGED);
    cr_expect_float_eq(S_row(&d, "stride", 8, GM_M_SH_LD_CONFL)->floor, 10000.0, 1e-9);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_SH_LD_INST), GM_DIFF_CHANGED);
    gm_diff_free(&d);

    /* Overrides: exact counts every conflict; a wider floor hides stride 8's. */
    S_shared(S_find(&h, "stride", 1), 14760, 131072);
    S_shared(S_find(&b, "stride", 8), 14759, 131072);
    S_shared(S_find(&h, "stride", 8), 14759 + 7000, 131072);
    gm_diff_override ov[] = {
        {"sh ld conflicts", {GM_THR_EXACT, 0, GM_FLOOR_NONE, 0}},
    };
    gm_diff_options opt = {.overrides = ov, .n_overrides = 1};
    d = S_compute(&b, &h, &opt);
    cr_expect_eq(S_status(&d, "stride", 1, GM_M_SH_LD_CONFL), GM_DIFF_REGRESSED, "+1, exact");
    gm_diff_free(&d);
    ov[0].thr = (gm_threshold){GM_THR_RELATIVE, 0.01, GM_FLOOR_PER_INST, 0.1};
    d = S_compute(&b, &h, &opt);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_SH_LD_CONFL), GM_DIFF_UNCHANGED, "0.053 < 0.1");
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_floor, per_instruction_floor_without_counts)
{
    gm_results b, h;
    S_pair(&b, &h);
    /* Store wavefronts with no shared store instruction count in either file:
     * the threshold (1 %) alone decides, and the row says so. */
    gm_run_set_metric(S_find(&b, "tiled", 1), GM_M_SH_ST_WAVES, gm_vint(10000), "");
    gm_run_set_metric(S_find(&h, "tiled", 1), GM_M_SH_ST_WAVES, gm_vint(10200), "");
    /* A load instruction count is not the store one. */
    gm_run_set_metric(S_find(&b, "tiled", 1), GM_M_SH_LD_INST, gm_vint(1 << 20), "inst");
    gm_run_set_metric(S_find(&h, "tiled", 1), GM_M_SH_LD_INST, gm_vint(1 << 20), "inst");
    gm_diff d = S_compute(&b, &h, NULL);
    const gm_diff_row *r = S_row(&d, "tiled", 1, GM_M_SH_ST_WAVES);
    cr_assert(r);
    cr_expect_eq(r->status, GM_DIFF_REGRESSED, "+2 %% with no floor to apply");
    cr_expect(isnan(r->floor));
    cr_expect(strstr(r->note, "no shared instruction count"), "note: %s", r->note);
    gm_diff_free(&d);
    /* Only one side has the count: that one scales the floor (0.05 x 8192 = 409.6). */
    gm_run_set_metric(S_find(&h, "tiled", 1), GM_M_SH_ST_INST, gm_vint(8192), "inst");
    d = S_compute(&b, &h, NULL);
    r = S_row(&d, "tiled", 1, GM_M_SH_ST_WAVES);
    cr_expect_float_eq(r->floor, 409.6, 1e-9);
    cr_expect_eq(r->status, GM_DIFF_UNCHANGED);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_floor, time_floor_in_ms)
{
    gm_results b, h;
    S_pair(&b, &h);
    double slow[8];
    for (int i = 0; i < 8; i++)
        slow[i] = S_T0[i] * 1.10;   /* +0.1 ms on 1 ms, p = 2/12870 */
    gm_timing_set_samples(&S_find(&h, "stride", 1)->timing, slow, 8);
    S_find(&h, "stride", 1)->timing.l2_flushed = true;
    /* with a count that moved the same way (time alone: S_time_alone_floor) */
    S_set(S_find(&h, "stride", 1), GM_M_LD_SECTORS, gm_vint((1 << 20) / 8 + 32));
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "stride", 1, GM_DIFF_TIME), GM_DIFF_REGRESSED);
    gm_diff_free(&d);
    char *m = NULL;
    gm_threshold t;
    gm_error err;
    cr_assert_eq(gm_threshold_parse("time=5%,0.2", &m, &t, &err), GM_OK);
    gm_diff_override ov[] = {{m, t}};
    gm_diff_options o = {.overrides = ov, .n_overrides = 1};
    d = S_compute(&b, &h, &o);
    const gm_diff_row *r = S_row(&d, "stride", 1, GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_UNCHANGED, "+0.1 ms under a 0.2 ms floor");
    cr_expect_float_eq(r->floor, 0.2, 1e-15);
    gm_diff_free(&d);
    free(m);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* ---- time and noise ------------------------------------------------------- */

static void S_samples(gm_run *run, const double *t, size_t n)
{
    gm_timing_set_samples(&run->timing, t, n);
    run->timing.l2_flushed = true;
}

Test(diff_time, regression_noise_and_unchanged)
{
    gm_results b, h;
    S_pair(&b, &h);
    /* stride 1: every head sample 10 % slower: beyond 5 % and U = 0 (p = 2/12870),
     * with more sectors (a time that moves alone: S_time_alone_floor). */
    double slow[8];
    for (int i = 0; i < 8; i++)
        slow[i] = S_T0[i] * 1.10;
    S_samples(S_find(&h, "stride", 1), slow, 8);
    S_set(S_find(&h, "stride", 1), GM_M_LD_SECTORS, gm_vint((1 << 20) / 8 + 32));
    S_set(S_find(&h, "stride", 8), GM_M_LD_REQUESTS, gm_vint((1 << 20) / 32 + 1));
    /* stride 8: median +6 % but the sets overlap: within noise. */
    double wide_b[8] = {1.6, 2.4, 1.7, 2.3, 1.8, 2.2, 1.9, 2.1};
    double wide_h[8] = {1.7, 2.5, 1.8, 2.4, 2.0, 2.3, 2.05, 2.2};
    S_samples(S_find(&b, "stride", 8), wide_b, 8);
    S_samples(S_find(&h, "stride", 8), wide_h, 8);
    /* tiled: 2 % faster with no overlap: significant but under 5 %: unchanged. */
    double fast[8];
    for (int i = 0; i < 8; i++)
        fast[i] = S_T0[i] * 0.5 * 0.98;
    S_samples(S_find(&h, "tiled", 1), fast, 8);

    gm_diff d = S_compute(&b, &h, NULL);
    const gm_diff_row *r = S_row(&d, "stride", 1, GM_DIFF_TIME);
    cr_assert(r);
    cr_expect_eq(r->status, GM_DIFF_REGRESSED);
    cr_expect_eq(r->test.method, GM_MWU_EXACT);
    cr_expect_float_eq(r->test.p, 2.0 / 12870.0, 1e-15, "p %g", r->test.p);
    cr_expect_float_eq(r->ratio, 1.10, 1e-12);

    r = S_row(&d, "stride", 8, GM_DIFF_TIME);
    cr_expect_float_eq(r->ratio, 2.1 / 1.95 * 1.0, 0.05);
    cr_expect_gt(r->ratio, 1.05);
    cr_expect_gt(r->test.p, 0.05);
    cr_expect_eq(r->status, GM_DIFF_NOISE, "status %s", gm_diff_status_name(r->status));
    cr_expect(strstr(r->note, "would be regressed"), "note: %s", r->note);

    r = S_row(&d, "tiled", 1, GM_DIFF_TIME);
    cr_expect_lt(r->test.p, 0.05);
    cr_expect_eq(r->status, GM_DIFF_UNCHANGED);
    cr_expect_eq(d.counts[GM_DIFF_REGRESSED], 2, "the time and the sectors");
    gm_diff_free(&d);

    /* --alpha 0.5 makes the overlapping sets count. */
    gm_diff_options o = {.alpha = 0.5};
    d = S_compute(&b, &h, &o);
    cr_expect_eq(S_status(&d, "stride", 8, GM_DIFF_TIME), GM_DIFF_REGRESSED);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_time, summary_only_and_l2_flush_mismatch)
{
    gm_results b, h;
    S_pair(&b, &h);
    gm_run *rb = S_find(&b, "stride", 1), *rh = S_find(&h, "stride", 1);
    double slow[8];
    for (int i = 0; i < 8; i++)
        slow[i] = S_T0[i] * 1.2;
    S_samples(rh, slow, 8);
    S_set(rh, GM_M_LD_SECTORS, gm_vint((1 << 20) / 8 + 32));
    free(rb->timing.samples);   /* summary only: no test possible */
    rb->timing.samples = NULL;
    S_find(&h, "stride", 8)->timing.l2_flushed = false;
    gm_diff d = S_compute(&b, &h, NULL);
    const gm_diff_row *r = S_row(&d, "stride", 1, GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_REGRESSED);
    cr_expect_eq(r->test.method, GM_MWU_NONE);
    cr_expect(strstr(r->note, "threshold only"), "note: %s", r->note);
    r = S_row(&d, "stride", 8, GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_INCOMPARABLE);
    cr_expect(strstr(r->note, "L2"), "note: %s", r->note);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* A time taken with the launch gate holds no host time; one taken without may
 * (a few µs on a short kernel): the two are not compared. */
Test(diff_time, launch_gate_on_one_side_only)
{
    gm_results b, h;
    S_pair(&b, &h);
    double fast[8];
    for (int i = 0; i < 8; i++)
        fast[i] = S_T0[i] * 0.5;
    S_samples(S_find(&h, "stride", 1), fast, 8);
    S_find(&h, "stride", 1)->timing.gated = true;
    S_find(&b, "stride", 8)->timing.gated = true;
    S_find(&h, "stride", 8)->timing.gated = true;
    gm_diff d = S_compute(&b, &h, NULL);
    const gm_diff_row *r = S_row(&d, "stride", 1, GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_INCOMPARABLE, "halved, but gated in head only");
    cr_expect(strstr(r->note, "gated") && strstr(r->note, "head only"), "note: %s", r->note);
    r = S_row(&d, "stride", 8, GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_UNCHANGED, "gated on both sides: compared");
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* ---- every other row status ----------------------------------------------- */

Test(diff_status, failed_not_run_new_removed_metrics_units)
{
    gm_results b, h;
    S_pair(&b, &h);
    S_run(&b, "coalescing", "stride", 1 << 20, 4, 1.5);
    S_run(&h, "coalescing", "stride", 1 << 20, 4, 1.5);
    S_run(&b, "coalescing", "stride", 1 << 20, 16, 1.5);
    S_run(&h, "coalescing", "stride", 1 << 20, 16, 1.5);
    S_run(&b, "coalescing", "stride", 1 << 20, 64, 1.5);
    S_run(&h, "coalescing", "stride", 1 << 20, 64, 1.5);

    gm_run *f = S_find(&h, "stride", 1);            /* head fails validation */
    f->check.status = GM_CHECK_FAILED;
    f->check.mismatches = 3;
    S_find(&b, "stride", 8)->check.status = GM_CHECK_ERROR;   /* base errored */
    S_find(&h, "stride", 4)->check.status = GM_CHECK_NOT_RUN; /* head could not run */
    S_find(&b, "stride", 16)->check.status = GM_CHECK_NOT_RUN;
    S_find(&h, "stride", 16)->check.status = GM_CHECK_NOT_RUN;
    gm_run *t = S_find(&h, "tiled", 1);
    gm_run_set_metric(t, GM_M_SH_LD_CONFL, gm_vint(0), "");          /* new metric */
    gm_run_set_metric(t, GM_M_L2_HIT, gm_vabsent(), "%");            /* removed (now null) */
    gm_run_set_metric(S_find(&h, "stride", 64), GM_M_DRAM_RD, gm_vint(1), "kbyte"); /* units */

    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "stride", 1, NULL), GM_DIFF_FAILED);
    cr_expect_eq(S_status(&d, "stride", 8, NULL), GM_DIFF_FAILED);
    cr_expect_eq(S_status(&d, "stride", 4, NULL), GM_DIFF_INCOMPARABLE);
    cr_expect_eq(S_status(&d, "stride", 16, NULL), GM_DIFF_UNCHANGED);
    cr_expect_null(S_row(&d, "stride", 1, GM_DIFF_TIME), "no metric rows for a failed run");
    cr_expect_eq(S_status(&d, "tiled", 1, GM_M_SH_LD_CONFL), GM_DIFF_NEW);
    cr_expect_eq(S_status(&d, "tiled", 1, GM_M_L2_HIT), GM_DIFF_REMOVED);
    cr_expect_eq(S_status(&d, "stride", 64, GM_M_DRAM_RD), GM_DIFF_INCOMPARABLE);
    cr_expect(strstr(S_row(&d, "stride", 64, GM_M_DRAM_RD)->note, "units"));
    cr_expect_eq(d.counts[GM_DIFF_FAILED], 2);
    cr_expect(gm_diff_has_regression(&d), "head failed validation: gate");
    gm_diff_free(&d);

    /* Only base failed (head fixed it): reported, but no gate. */
    f->check.status = GM_CHECK_PASSED;
    d = S_compute(&b, &h, NULL);
    cr_expect_eq(d.counts[GM_DIFF_FAILED], 1);
    cr_expect_not(gm_diff_has_regression(&d));
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* ---- incomparable files --------------------------------------------------- */

static void S_expect_incomparable(gm_results *b, gm_results *h, const char *what)
{
    gm_diff d = S_compute(b, h, NULL);
    cr_expect_not(d.comparable, "%s: comparable", what);
    cr_expect_geq(d.n_reasons, 1);
    bool named = false;
    for (size_t i = 0; i < d.n_reasons; i++)
        named |= strstr(d.reasons[i], what) != NULL;
    cr_expect(named, "no reason names '%s' (first: %s)", what, d.n_reasons ? d.reasons[0] : "");
    cr_expect_eq(d.counts[GM_DIFF_INCOMPARABLE], d.n_rows, "%s: every row incomparable", what);
    cr_expect_eq(d.counts[GM_DIFF_REGRESSED], 0);
    gm_diff_free(&d);
    gm_diff_options o = {.force = true};
    d = S_compute(b, h, &o);
    cr_expect(d.forced);
    cr_expect_eq(d.counts[GM_DIFF_INCOMPARABLE], 0, "%s: --force judges", what);
    gm_diff_free(&d);
}

#define S_CASE(name, edit, what)                                                             \
    Test(diff_incomparable, name)                                                            \
    {                                                                                        \
        gm_results b, h;                                                                     \
        S_pair(&b, &h);                                                                      \
        edit;                                                                                \
        S_expect_incomparable(&b, &h, what);                                                 \
        gm_results_free(&b);                                                                 \
        gm_results_free(&h);                                                                 \
    }

S_CASE(device_name, (free(h.device.name), h.device.name = strdup("NVIDIA A100-SXM4-80GB")),
       "GPU")
S_CASE(driver, (free(h.device.driver_version), h.device.driver_version = strdup("575.57.08")),
       "driver")
S_CASE(cupti, h.device.cupti_api = 120000, "CUPTI")
S_CASE(metric_set, (free(h.collection.metrics[3]), h.collection.n_metrics = 3), "metrics")
S_CASE(cache_flush, h.collection.cache_flush = false, "L2 flush")
S_CASE(clock_control, (free(h.collection.clock_control), h.collection.clock_control = strdup("base")),
       "clock")
S_CASE(size_set, (free(h.collection.size_set), h.collection.size_set = strdup("full")), "size set")
S_CASE(schema, h.schema_version = 2, "schema")

Test(diff_incomparable, metric_set_order_does_not_matter)
{
    gm_results b, h;
    S_pair(&b, &h);
    char *t = h.collection.metrics[0];
    h.collection.metrics[0] = h.collection.metrics[3];
    h.collection.metrics[3] = t;
    h.collection.timing_repetitions = 20;   /* a note, not a reason */
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect(d.comparable);
    cr_expect_geq(d.n_notes, 1);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* ---- rendering ------------------------------------------------------------ */

/* Count the cell separators of a GFM table line: `|` not escaped by `\`. */
static int S_pipes(const char *line, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        if (line[i] == '|' && (i == 0 || line[i - 1] != '\\'))
            n++;
    return n;
}

/* Number of '<' that Markdown could read as the start of raw HTML: outside
 * code spans and not backslash-escaped.  A code span opens with a run of n
 * backquotes and closes at the next run of exactly n. */
static int S_raw_lt(const char *md)
{
    int raw = 0;
    for (const char *p = md; *p;) {
        if (*p == '\\' && p[1]) {
            p += 2;
        } else if (*p == '`') {
            size_t n = strspn(p, "`");
            const char *q = p + n, *close = NULL;
            while ((q = strchr(q, '`'))) {
                size_t m = strspn(q, "`");
                if (m == n) {
                    close = q;
                    break;
                }
                q += m;
            }
            p = close ? close + n : p + n;
        } else {
            raw += *p == '<';
            p++;
        }
    }
    return raw;
}

Test(diff_render, markdown_escapes_hostile_names)
{
    gm_results b, h;
    S_header(&b, "aaaaaaaaaaaabbbbbbbbbbbbbbbb");
    S_header(&h, "`$(touch x)`|<b>");
    h.dirty = 1;
    const char *exp = "exp|with`ticks`<script>alert(1)</script>";
    const char *var = "var``|*bold*_\n<img src=x onerror=y>";
    S_run(&b, exp, var, 1024, 1, 1.0);
    /* slower too, so that the chart has two changes to compare */
    gm_run *r = S_run(&h, exp, var, 1024, 1, 1.5);
    gm_run_set_metric(r, GM_M_LD_SECTORS, gm_vint(1024 / 8 + 7), "sector");
    gm_run_set_metric(&b.runs[0], "evil|metric`<i>", gm_vint(1), "un|it<");
    gm_run_set_metric(r, "evil|metric`<i>", gm_vint(2), "un|it<");
    gm_diff d = S_compute(&b, &h, NULL);
    gm_diff_render ro = {.base_name = "base|<x>.json", .head_name = "head`.json", .all = true};
    char *md = gm_diff_to_markdown(&d, &ro);
    cr_expect_eq(S_raw_lt(md), 0, "a '<' outside code spans, unescaped:\n%s", md);
    cr_expect(strstr(md, "<script>"), "the name is kept, inside a code span");
    cr_expect(strstr(md, "**(dirty)**"));
    cr_expect(strstr(md, "`` `$(touch x)` ``"), "short commit in a code span:\n%s", md);
    /* Every table line keeps its number of cells. */
    int tables = 0;
    for (const char *p = md; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0 && p[0] == '|') {
            int k = S_pipes(p, len);
            bool main_table = strncmp(p, "| Change", 8) == 0 || strncmp(p, "| **", 4) == 0 ||
                              strncmp(p, "| changed", 9) == 0 || strncmp(p, "|---|---|---|---|", 17) == 0 ||
                              strncmp(p, "| unchanged", 11) == 0 || strncmp(p, "| regressed", 11) == 0;
            if (main_table) {
                cr_expect_eq(k, 8, "line has %d cell separators: %.*s", k, (int)len, p);
                tables++;
            } else {
                cr_expect_eq(k, 4, "header line has %d separators: %.*s", k, (int)len, p);
            }
        }
        p += len + (e ? 1 : 0);
    }
    cr_expect_geq(tables, 4);

    /* Through cmark-gfm, the names come out as text, never as tags. */
    gm_error err;
    char *html = gm_diff_to_html(&d, &ro, &err);
    cr_assert(html, "%s", err.message);
    cr_expect_null(strstr(html, "<script"));
    cr_expect_null(strstr(html, "<img"));
    cr_expect_null(strstr(html, "<i>"));
    cr_expect(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"), "escaped name missing");
    cr_expect(strstr(html, "<table>"));
    cr_expect(strstr(html, "<svg"), "chart of the changes");
    cr_expect_null(strstr(html, "http://"), "no external link");
    cr_expect_null(strstr(html, "https://"), "no external link");
    cr_expect_null(strstr(html, "src=\""), "nothing loaded");
    free(html);
    free(md);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_render, markdown_layout_verdict_only_changed_and_max_rows)
{
    gm_results b, h;
    S_pair(&b, &h);
    S_set(S_find(&h, "stride", 1), GM_M_LD_SECTORS, gm_vint((1 << 20) / 8 * 2));
    S_set(S_find(&h, "stride", 8), GM_M_L2_HIT, gm_vreal(80.0));
    gm_diff d = S_compute(&b, &h, NULL);
    gm_diff_render ro = {.base_name = "base.json", .head_name = "head.json"};
    char *md = gm_diff_to_markdown(&d, &ro);
    const char *first = "### gpumem-report diff: fail: 1 regression in 1 layout (3 runs "
                        "paired)\n\nRows: 1 regression, 1 changed, 13 unchanged.\n";
    cr_expect_eq(strncmp(md, first, strlen(first)), 0, "first lines: %.160s", md);
    cr_expect(strstr(md, "| Commit | `111111111111` (clean) | `222222222222` (clean) |"),
              "short ids:\n%s", md);
    /* one verdict per layout: what moved, the time, the rates beside them */
    cr_expect(strstr(md, "**regressed** `coalescing` `stride`: ld sectors +100% (sectors/request "
                         "4 → 8), time unchanged; beside them: L2 hit +30.0pp\n"),
              "verdict line:\n%s", md);
    cr_expect(strstr(md, "| Change | Run | Metric | Base | Head | Δ | Ratio |"));
    cr_expect(strstr(md, "| **regressed** | `n=1048576, stride=1` | ld sectors | 131,072 sector | "
                         "262,144 sector | +131,072 sector (+100%) | 2.00× |"),
              "regressed row:\n%s", md);
    const char *reg = strstr(md, "| **regressed**"), *chg = strstr(md, "| changed");
    cr_expect(reg && chg && reg < chg, "counts before the rates they explain");
    const char *t = strstr(md, "| time (median)");
    cr_expect(t && t < reg, "time first");
    cr_expect(strstr(md, "+30.0 pp"), "percentage points for %% metrics");
    cr_expect(strstr(md, "`transpose`"), "--all: every layout");
    free(md);

    ro.only_changed = true;
    md = gm_diff_to_markdown(&d, &ro);
    cr_expect_null(strstr(md, "`transpose`"), "only layouts that changed");
    cr_expect(strstr(md, "<details><summary>4 rows: time (2), ld sectors (1), L2 hit (1)"
                         "</summary>"), "rows folded under the verdict:\n%s", md);
    cr_expect_eq(gmt_occurrences(md, "| unchanged |"), 2, "only the time of its runs");
    cr_expect(strstr(md, "Not shown: 11 unchanged (`--all` lists every row)."), "%s", md);
    free(md);

    ro.only_changed = false;
    ro.max_rows = 1;
    md = gm_diff_to_markdown(&d, &ro);
    cr_expect_null(strstr(md, "| changed"));
    cr_expect(strstr(md, "14 more rows not shown"), "%s", md);
    free(md);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_render, json_structure)
{
    gm_results b, h;
    S_pair(&b, &h);
    S_set(S_find(&h, "stride", 1), GM_M_LD_SECTORS, gm_vint((1 << 20) / 8 * 2));
    gm_diff d = S_compute(&b, &h, NULL);
    gm_diff_render ro = {.base_name = "base.json", .head_name = "head.json", .only_changed = true, .max_rows = 1};
    char *js = gm_diff_to_json(&d, &ro, 1);
    json_error_t je;
    json_t *o = json_loads(js, 0, &je);
    cr_assert(o, "JSON does not parse: %s (line %d)", je.text, je.line);
    cr_expect_str_eq(json_string_value(json_object_get(o, "schema")), "gpumem-report/diff");
    cr_expect_eq(json_integer_value(json_object_get(o, "exit_code")), 1);
    cr_expect(json_is_true(json_object_get(o, "comparable")));
    json_t *rows = json_object_get(o, "rows");
    cr_expect_eq(json_array_size(rows), 15, "all rows, whatever the table shows");
    /* rows in verdict order: the regressed layout's times, then its sectors */
    json_t *verdicts = json_object_get(o, "verdicts");
    cr_expect_eq(json_array_size(verdicts), 2);
    json_t *v0 = json_array_get(verdicts, 0);
    cr_expect_str_eq(json_string_value(json_object_get(v0, "status")), "regressed");
    cr_expect_str_eq(json_string_value(json_object_get(v0, "variant")), "stride");
    cr_expect_eq(json_integer_value(json_object_get(v0, "runs")), 2);
    cr_expect_str_eq(json_string_value(json_object_get(v0, "summary")),
                     "ld sectors +100% (sectors/request 4 → 8), time unchanged");
    cr_expect_eq(json_array_size(json_object_get(v0, "rows")), 10);
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(v0, "rows"), 2)), 2);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(rows, 0), "role")), "time");
    json_t *r0 = json_array_get(rows, 2);
    cr_expect_str_eq(json_string_value(json_object_get(r0, "role")), "count");
    cr_expect(json_is_true(json_object_get(r0, "gates")));
    cr_expect_str_eq(json_string_value(json_object_get(r0, "status")), "regressed");
    cr_expect_str_eq(json_string_value(json_object_get(r0, "metric")), GM_M_LD_SECTORS);
    cr_expect_eq(json_integer_value(json_object_get(r0, "base")), 131072);
    cr_expect_eq(json_integer_value(json_object_get(r0, "head")), 262144);
    cr_expect_str_eq(json_string_value(json_object_get(r0, "better")), "lower");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r0, "threshold"), "kind")),
                     "exact");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(r0, "params"), "stride")), 1);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(o, "counts"), "unchanged")), 14);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(o, "head"), "commit")),
                     "2222222222222222222222222222222222222222");
    bool time_test = false;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *t = json_object_get(json_array_get(rows, i), "test");
        if (t) {
            time_test = true;
            cr_expect_str_eq(json_string_value(json_object_get(t, "method")), "normal",
                             "identical samples tie");
            json_t *n = json_object_get(json_array_get(rows, i), "noise");
            cr_expect_str_eq(json_string_value(json_object_get(n, "samples")), "rank_test");
            cr_expect(json_is_null(json_object_get(n, "time_alone")));
        }
    }
    cr_expect(time_test);
    json_decref(o);
    free(js);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* ---- the binary ------------------------------------------------------------ */

static char *S_tmpdir;

static void S_mkdtemp(void)
{
    S_tmpdir = gmt_tmpdir("diff-test");
}

static void S_rmdir(void)
{
    gmt_rmrf(S_tmpdir);
    free(S_tmpdir);
}

static int S_files_in_tmpdir(void)
{
    DIR *dir = opendir(S_tmpdir);
    int n = 0;
    struct dirent *e;
    while (dir && (e = readdir(dir)))
        n += e->d_name[0] != '.';
    if (dir)
        closedir(dir);
    return n;
}

/* Run the binary with args (NULL-terminated; "@/" prefixes the source dir,
 * "%/" the temp dir); stdout and stderr to files in the temp dir. */
static int S_exec(const char *const *args)
{
    char *argv[32];
    char storage[32][512];
    int n = 0;
    argv[n++] = (char *)gmt_bin();
    for (; *args && n < 31; args++, n++) {
        if (strncmp(*args, "@/", 2) == 0)
            snprintf(storage[n], sizeof storage[n], "%s/%s", gmt_srcdir(), *args + 2);
        else if (strncmp(*args, "%/", 2) == 0)
            snprintf(storage[n], sizeof storage[n], "%s/%s", S_tmpdir, *args + 2);
        else
            snprintf(storage[n], sizeof storage[n], "%s", *args);
        argv[n] = storage[n];
    }
    argv[n] = NULL;
    char *out = gmt_join(S_tmpdir, ".stdout"), *err = gmt_join(S_tmpdir, ".stderr");
    int rc = gmt_exec(argv, NULL, out, err);
    free(out);
    free(err);
    return rc;
}

/* A file in the temp dir, or NULL. */
static char *S_slurp(const char *name)
{
    char *p = gmt_join(S_tmpdir, name);
    char *s = gmt_slurp(p);
    free(p);
    return s;
}

#define S_RUN(...) S_exec((const char *const[]){__VA_ARGS__, NULL})
#define FX(name) "@/tests/fixtures/" name

TestSuite(diff_cli, .init = S_mkdtemp, .fini = S_rmdir);

Test(diff_cli, same_file_exits_0)
{
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-base.json")), 0);
    char *out = S_slurp(".stdout");
    cr_assert(out);
    cr_expect(strstr(out, "### gpumem-report diff: pass: no regressions"), "stdout:\n%s", out);
    free(out);
}

Test(diff_cli, regression_exits_1_warn_only_0)
{
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-head.json")), 1);
    char *out = S_slurp(".stdout");
    cr_assert(out);
    cr_expect(strstr(out, "**regressed**"), "stdout:\n%s", out);
    free(out);
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-head.json"), "--warn-only"), 0);
    /* Loosen the thresholds of what regressed in the fixture: no regression left. */
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-head.json"),
                       "--threshold", "ld sectors=1000%", "--threshold", "time=1000%",
                       "--threshold", "ld sectors/req=1000%",
                       "--threshold", "DRAM read=1000%",
                       "--threshold", "ld efficiency=100", "--allow-missing"), 0);
    /* ... but the run missing from head fails the gate until it is accepted */
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-head.json"),
                       "--threshold", "ld sectors=1000%", "--threshold", "time=1000%",
                       "--threshold", "ld sectors/req=1000%",
                       "--threshold", "DRAM read=1000%",
                       "--threshold", "ld efficiency=100"), 1);
}

Test(diff_cli, real_pair_exits_1_and_floors_on_the_command_line)
{
    cr_expect_eq(S_RUN("diff", FX("h100-transpose-pad-base.json"),
                       FX("h100-transpose-pad-head.json"), "--out", "%/d.md"), 1);
    char *md = S_slurp("d.md");
    cr_assert(md);
    cr_expect(strstr(md, "### gpumem-report diff: fail: 12 regressions in 1 layout (24 runs "
                         "paired)\n\nRows: 12 regressions, 12 changed, 576 unchanged.\n"),
              "%.200s", md);
    cr_expect(strstr(md, "+1,015,808 (+31.0/inst)"), "padded n=1024 conflicts per load");
    /* one verdict for the padded layout, its rows folded under it */
    cr_expect_eq(gmt_occurrences(md, "**regressed** `"), 1, "%s", md);
    cr_expect(strstr(md, "**regressed** `transpose` `padded`: 1\\..1.1 → 32-way shared load "
                         "conflict, +55..93% time in all 4 runs; beside them: DRAM B/s "
                         "-39..51%\n"), "%s", md);
    free(md);
    /* --threshold gates a rate when asked */
    cr_expect_eq(S_RUN("diff", FX("h100-transpose-pad-base.json"),
                       FX("h100-transpose-pad-head.json"), "--out", "%/d.md",
                       "--threshold", "DRAM B/s=10%,1e10"), 1);
    md = S_slurp("d.md");
    cr_assert(md);
    cr_expect(strstr(md, "fail: 16 regressions in 1 layout"), "%.200s", md);
    cr_expect(strstr(md, "| **regressed** | `n=2048` | DRAM B/s |"), "%s", md);
    free(md);
    /* The padded regressions without time and the rates: counters alone. */
    cr_expect_eq(S_RUN("diff", FX("h100-transpose-pad-base.json"),
                       FX("h100-transpose-pad-head.json"), "--out", "%/d.md",
                       "--threshold", "sh ld conflicts=1%,40/inst",
                       "--threshold", "sh ld wavefronts=1%, 40/inst", "--threshold", "time=1000%",
                       "--threshold", "duration=1000%", "--threshold", "DRAM % peak=100",
                       "--threshold", "DRAM B/s=1000%,1e10"), 0);
    md = S_slurp("d.md");
    cr_assert(md);
    cr_expect(strstr(md, "sh ld conflicts 1 %, 40/inst"), "override named:\n%s", md);
    free(md);
}

Test(diff_cli, outputs_written_whole)
{
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-head.json"), "--out", "%/d.html",
                       "--json", "%/d.json", "--warn-only"), 0);
    char *html = S_slurp("d.html"), *js = S_slurp("d.json"), *out = S_slurp(".stdout");
    cr_assert(html && js && out);
    cr_expect_eq(strncmp(html, "<!DOCTYPE html>", 15), 0);
    cr_expect(strstr(html, "</html>\n"));
    cr_expect(strstr(html, "<svg"));
    cr_expect_null(strstr(html, "<script"));
    json_error_t je;
    json_t *o = json_loads(js, 0, &je);
    cr_expect(o, "JSON: %s", je.text);
    cr_expect_eq(json_integer_value(json_object_get(o, "exit_code")), 0);
    json_decref(o);
    cr_expect(strstr(out, "-> "), "a one-line verdict: %s", out);
    cr_expect_eq(S_files_in_tmpdir(), 2, "no temporary files left");
    free(html);
    free(js);
    free(out);
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-head.json"), "--out", "%/d.md",
                       "--only-changed"), 1);
    char *md = S_slurp("d.md");
    cr_assert(md);
    cr_expect(strstr(md, "| Change | Run |"));
    /* what did not change is left out, but for the time of a run that did */
    for (const char *u = strstr(md, "| unchanged |"); u; u = strstr(u + 1, "| unchanged |"))
        cr_expect_eq(strncmp(strchr(u + 14, '|'), "| time (median) |", 17), 0, "%.80s", u);
    free(md);
}

Test(diff_cli, incomparable_exits_2_force_judges)
{
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-head-othergpu.json"), "--out",
                       "%/d.md"), 2);
    char *md = S_slurp("d.md"), *err = S_slurp(".stderr");
    cr_assert(md && err);
    cr_expect(strstr(md, "**Incomparable"), "banner:\n%s", md);
    cr_expect(strstr(md, "NVIDIA A100"), "names the other GPU");
    cr_expect_null(strstr(md, "**regressed**"));
    cr_expect(strstr(err, "collected differently"), "stderr: %s", err);
    free(md);
    free(err);
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-head-othergpu.json"), "--force"), 1);
    char *out = S_slurp(".stdout");
    cr_expect(strstr(out, "compared anyway"));
    free(out);
}

Test(diff_cli, bad_input_exits_2_and_writes_nothing)
{
    struct {
        const char *const *args;
        const char *message;
    } cases[] = {
        {(const char *const[]){"diff", FX("diff-base.json"), FX("diff-malformed.json"), "--out",
                               "%/d.md", "--json", "%/d.json", NULL}, "diff-malformed.json"},
        {(const char *const[]){"diff", FX("diff-base.json"), "%/missing.json", "--out", "%/d.md",
                               NULL}, "missing.json"},
        {(const char *const[]){"diff", FX("diff-base.json"), "--out", "%/d.md", NULL},
         "two results files"},
        {(const char *const[]){"diff", FX("diff-base.json"), FX("diff-head.json"), "--bogus",
                               NULL}, "--bogus"},
        {(const char *const[]){"diff", FX("diff-base.json"), FX("diff-head.json"), "--threshold",
                               "time=fast", "--out", "%/d.md", NULL}, "time=fast"},
        {(const char *const[]){"diff", FX("diff-base.json"), FX("diff-head.json"), "--threshold",
                               "nosuch=5%", "--out", "%/d.md", NULL}, "nosuch"},
        {(const char *const[]){"diff", FX("diff-base.json"), FX("diff-head.json"), "--threshold",
                               "time=5%,0.05/inst", "--out", "%/d.md", NULL}, "/inst"},
        {(const char *const[]){"diff", FX("diff-base.json"), FX("diff-head.json"), "--threshold",
                               "DRAM read=2%,1MB", "--out", "%/d.md", NULL}, "1MB"},
        {(const char *const[]){"diff", FX("diff-base.json"), FX("diff-head.json"), "--alpha", "2",
                               NULL}, "--alpha"},
        {(const char *const[]){"diff", FX("diff-base.json"), FX("diff-head.json"), "--out", NULL},
         "--out needs a value"},
        {(const char *const[]){"diff", FX("diff-base.json"), FX("diff-duplicate.json"), "--out",
                               "%/d.md", NULL}, "same experiment"},
        {(const char *const[]){"diff", FX("diff-base.json"), "@/tests/fixtures/handwritten-broken-schema.json",
                               "--out", "%/d.md", NULL}, "schema"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = S_exec(cases[i].args);
        char *err = S_slurp(".stderr");
        cr_expect_eq(rc, 2, "case %zu: exit %d, stderr: %s", i, rc, err ? err : "");
        cr_expect(err && strstr(err, cases[i].message), "case %zu: stderr lacks '%s': %s", i,
                  cases[i].message, err ? err : "");
        cr_expect_eq(S_files_in_tmpdir(), 0, "case %zu left a file behind", i);
        free(err);
    }
}

Test(diff_cli, help_lists_every_option_with_default)
{
    cr_expect_eq(S_RUN("diff", "--help"), 0);
    char *out = S_slurp(".stdout");
    cr_assert(out);
    const char *opts[] = {"--out", "--format", "--json", "--threshold", "--alpha", "--only-changed",
                          "--max-rows", "--force", "--warn-only", "--help"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        cr_expect(strstr(out, opts[i]), "--help lacks %s", opts[i]);
    /* Each option line but --help's says its default. */
    int defaults = 0;
    for (const char *p = out; (p = strstr(p, "(default")); p++)
        defaults++;
    cr_expect_geq(defaults, 9, "only %d defaults named", defaults);
    cr_expect(strstr(out, "0.05"));
    cr_expect(strstr(out, "exit status"));
    /* what gates, what explains, and the floors of time */
    cr_expect(strstr(out, "Counts gate,\nrates explain"), "%s", out);
    cr_expect(strstr(out, "(one a side: 10%)"));
    cr_expect(strstr(out, "beyond 10 us too"));
    cr_expect(strstr(out, "by kernel and NVTX range"));
    cr_expect(strstr(out, "docs/ci.md"));
    free(out);
}

/* ---- real H100 runs ------------------------------------------------------- */

/* tests/fixtures/h100-*.json are measurements, not hand-written (NVIDIA H100
 * 80GB HBM3, driver 580.159.04, 2026-11-22; bench/gpu-evidence.sh made the
 * transpose pair, the main job the two full-suite runs).  The pad pair differ
 * by one real change: head built the transpose's `padded` variant with
 * transpose_tile_body<0> (tile[32][32]) instead of <1> (tile[32][33]). */
static void S_load(const char *name, gm_results *r)
{
    gmt_load_fixture(name, r);
    cr_assert_str_eq(r->origin, "measured", "%s is a measurement", name);
}

static const char *S_label(const gm_diff_row *r)
{
    return !r->metric ? "(run)" : r->info ? r->info->label : r->metric;
}

/* Every row the change should regress, and nothing else: any baseline of the
 * same kernels gives the same verdict, one for the padded layout. */
static void S_expect_padding_regressions(const char *base_name)
{
    gm_results b, h;
    S_load(base_name, &b);
    S_load("h100-transpose-pad-head.json", &h);
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect(d.comparable, "%s", base_name);
    cr_expect(gm_diff_has_regression(&d));
    for (size_t i = 0; i < d.n_rows; i++) {
        const gm_diff_row *r = &d.rows[i];
        const gm_run *run = r->head ? r->head : r->base;
        bool padded = strcmp(run->experiment, "transpose") == 0 &&
                      strcmp(run->variant, "padded") == 0;
        if (r->status == GM_DIFF_REGRESSED)
            cr_expect(padded, "%s: %s/%s n=%lld %s regressed", base_name, run->experiment,
                      run->variant, gm_run_param(run, "n") ? gm_run_param(run, "n")->value.i : -1,
                      S_label(r));
        /* the rates of the padded tile moved with it: shown, not gated */
        bool rate = padded && r->role == GM_DIFF_ROLE_RATE && r->status == GM_DIFF_CHANGED;
        cr_expect(rate || (r->status != GM_DIFF_IMPROVED && r->status != GM_DIFF_CHANGED &&
                           r->status != GM_DIFF_NOISE && r->status != GM_DIFF_INCOMPARABLE &&
                           r->status != GM_DIFF_FAILED),
                  "%s: %s/%s %s is %s", base_name, run->experiment, run->variant, S_label(r),
                  gm_diff_status_name(r->status));
        if (strcmp(run->experiment, "banks") == 0)
            cr_expect_neq(r->status, GM_DIFF_REGRESSED, "banks regressed");
        /* The store side of the tile is row-wise with or without the pad. */
        if (padded && r->metric && (strcmp(r->metric, GM_M_SH_ST_CONFL) == 0 ||
                                    strcmp(r->metric, GM_M_SH_ST_WAVES) == 0))
            cr_expect_eq(r->status, GM_DIFF_UNCHANGED, "%s: padded %s", base_name, S_label(r));
    }
    const char *must[] = {GM_M_SH_LD_CONFL, GM_M_SH_LD_WAVES, GM_DIFF_TIME};
    for (long long n = 1024; n <= 8192; n *= 2) {
        for (size_t k = 0; k < 3; k++) {
            const gm_diff_row *hit = NULL;
            for (size_t i = 0; i < d.n_rows && !hit; i++) {
                const gm_diff_row *r = &d.rows[i];
                if (r->metric && strcmp(r->metric, must[k]) == 0 && r->head &&
                    strcmp(r->head->variant, "padded") == 0 &&
                    strcmp(r->head->experiment, "transpose") == 0 &&
                    gm_run_param(r->head, "n")->value.i == n)
                    hit = r;
            }
            cr_assert(hit, "%s: no row for padded n=%lld %s", base_name, n, must[k]);
            cr_expect_eq(hit->status, GM_DIFF_REGRESSED, "%s: padded n=%lld %s is %s", base_name,
                         n, must[k], gm_diff_status_name(hit->status));
            /* A 32-way conflict: +31 wavefronts per load, whatever the size. */
            if (k < 2)
                cr_expect(hit->per_inst > 30.9 && hit->per_inst < 31.5, "%s n=%lld: %g/inst",
                          base_name, n, hit->per_inst);
        }
    }
    /* One verdict: the padded layout, its time first, then its counts. */
    gm_diff_group *g;
    size_t ng = gm_diff_groups(&d, &g), failing = 0;
    for (size_t i = 0; i < ng; i++)
        failing += g[i].status == GM_DIFF_REGRESSED;
    cr_expect_eq(failing, 1, "%s: %zu verdicts fail", base_name, failing);
    cr_assert_gt(ng, 0);
    cr_expect_str_eq(g[0].experiment, "transpose");
    cr_expect_str_eq(g[0].variant, "padded");
    cr_expect_eq(g[0].n_runs, 4);
    cr_expect(strstr(g[0].summary, "→ 32-way shared load conflict, +"), "%s", g[0].summary);
    cr_expect(strstr(g[0].summary, "% time in all 4 runs"), "%s", g[0].summary);
    const gm_diff_row *first = &d.rows[g[0].rows[0]];
    cr_expect_str_eq(first->metric, GM_DIFF_TIME, "time first");
    gm_diff_groups_free(g, ng);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_real, h100_padding_removed_regresses_padded_only)
{
    S_expect_padding_regressions("h100-transpose-pad-base.json");
}

Test(diff_real, h100_padding_removed_against_other_baselines)
{
    /* The same kernels run twice more, ten minutes apart and just before. */
    S_expect_padding_regressions("h100-rerun-0747.json");
    S_expect_padding_regressions("h100-rerun-0757.json");
}

Test(diff_real, h100_base_alone_counts_like_before)
{
    /* The verdict the old policy (shared counts exact, DRAM bytes 2 % alone)
     * gave this pair: 66 regressions, 42 improvements.  Restore it by
     * overrides to show that the overrides still reach every row. */
    gm_results b, h;
    S_load("h100-transpose-pad-base.json", &b);
    S_load("h100-transpose-pad-head.json", &h);
    gm_diff_override ov[] = {
        {GM_M_SH_LD_CONFL, {GM_THR_EXACT, 0, GM_FLOOR_NONE, 0}},
        {GM_M_SH_ST_CONFL, {GM_THR_EXACT, 0, GM_FLOOR_NONE, 0}},
        {GM_M_SH_LD_WAVES, {GM_THR_EXACT, 0, GM_FLOOR_NONE, 0}},
        {GM_M_SH_ST_WAVES, {GM_THR_EXACT, 0, GM_FLOOR_NONE, 0}},
        {GM_M_DRAM_RD, {GM_THR_RELATIVE, 0.02, GM_FLOOR_NONE, 0}},
        {GM_M_DRAM_WR, {GM_THR_RELATIVE, 0.02, GM_FLOOR_NONE, 0}},
        {GM_M_DRAM_RATE, {GM_THR_RELATIVE, 0.10, GM_FLOOR_NONE, 0}},
        {GM_M_DRAM_PCT, {GM_THR_ABSOLUTE, 2.0, GM_FLOOR_NONE, 0}},
        {GM_M_L1_HIT, {GM_THR_ABSOLUTE, 2.0, GM_FLOOR_NONE, 0}},
        {GM_M_L2_HIT, {GM_THR_ABSOLUTE, 2.0, GM_FLOOR_NONE, 0}},
        {GM_M_OCCUPANCY, {GM_THR_ABSOLUTE, 2.0, GM_FLOOR_NONE, 0}},
        {GM_M_DURATION, {GM_THR_RELATIVE, 0.10, GM_FLOOR_NONE, 0}},
    };
    gm_diff_options o = {.overrides = ov, .n_overrides = sizeof ov / sizeof ov[0]};
    gm_diff d = S_compute(&b, &h, &o);
    char *v = gm_diff_verdict(&d);
    cr_expect_str_eq(v, "66 regressions, 42 improvements, 492 unchanged");
    free(v);
    gm_diff_free(&d);
    /* The defaults: the counts and the time of the padded tile; its rates beside them. */
    d = S_compute(&b, &h, NULL);
    v = gm_diff_verdict(&d);
    cr_expect_str_eq(v, "12 regressions, 12 changed, 576 unchanged");
    free(v);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_real, h100_rerun_of_the_same_kernels)
{
    /* Two full-suite runs ten minutes apart, the same kernels (every global
     * count agrees); the second one's runner no longer profiles launches over
     * 20 ms, so four dp runs lost their counters (removed rows).  With the
     * defaults the gate passes: no count moved; the times that moved between
     * the sessions (matmul up to n = 96, 6-18 us, by up to 5.6 us) are within
     * the noise between sessions, the host loop's (dp/cpu_serial, no counter)
     * is shown and not gated, and the L2 hit rate that read 118 % is a rate. */
    gm_results b, h;
    S_load("h100-rerun-0747.json", &b);
    S_load("h100-rerun-0757.json", &h);
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect(d.comparable);
    cr_expect_not(gm_diff_has_regression(&d));
    cr_expect_eq(d.counts[GM_DIFF_REGRESSED], 0);
    cr_expect_eq(d.counts[GM_DIFF_IMPROVED], 0);
    size_t counters = 0, l2 = 0, alone = 0, host = 0;
    for (size_t i = 0; i < d.n_rows; i++) {
        const gm_diff_row *r = &d.rows[i];
        if (!r->metric)
            continue;
        if (strcmp(r->metric, GM_DIFF_TIME) == 0) {
            const gm_param *n = gm_run_param(r->head, "n");
            if (r->status == GM_DIFF_CHANGED) {
                cr_expect_str_eq(r->head->variant, "cpu_serial");
                cr_expect_not(r->gates);
                host++;
            } else if (r->alone && r->status == GM_DIFF_NOISE) {
                bool small = strcmp(r->head->experiment, "matmul") == 0 && n && n->value.i <= 96;
                cr_expect(small, "time of %s/%s n=%lld within the session noise",
                          r->head->experiment, r->head->variant, n ? n->value.i : -1);
                cr_expect(strstr(r->note, "no count moved"), "%s", r->note);
                alone++;
            }
            continue;
        }
        counters += r->status == GM_DIFF_UNCHANGED;
        if (r->status != GM_DIFF_CHANGED)
            continue;
        /* The one counter row over its threshold: an L2 hit rate that read 118 %. */
        bool l2_out_of_range = strcmp(r->metric, GM_M_L2_HIT) == 0 &&
                               (gm_value_num(&r->vbase) > 100.0 || gm_value_num(&r->vhead) > 100.0);
        l2 += l2_out_of_range;
        cr_expect(l2_out_of_range, "%s/%s %s is %s (%g -> %g)", r->head->experiment,
                  r->head->variant, S_label(r), gm_diff_status_name(r->status),
                  gm_value_num(&r->vbase), gm_value_num(&r->vhead));
    }
    cr_expect_gt(counters, 5000, "%zu counter rows unchanged", counters);
    cr_expect_eq(l2, 1);
    cr_expect_eq(host, 5, "dp/cpu_serial at 5 sizes");
    cr_expect_geq(alone, 20, "%zu times within the noise between sessions", alone);
    char *g = gm_diff_gate_line(&d);
    cr_expect(strncmp(g, "pass: ", 6) == 0, "%s", g);
    free(g);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* ---- time: few samples, time alone, nothing profiled (issue 27) -------------- */

/* stride 1's samples in head: n copies of S_T0 (base's) scaled */
static void S_head_time(gm_results *h, long long stride, double scale)
{
    double t[8];
    for (int i = 0; i < 8; i++)
        t[i] = S_T0[i] * scale;
    S_samples(S_find(h, "stride", stride), t, 8);
}

Test(diff_time, time_alone_against_the_noise_between_sessions)
{
    gm_results b, h;
    S_pair(&b, &h);
    /* stride 1 a short kernel: 50 us, +12 % (+6 us), p = 2/12870, no count moved:
     * within the 10 us of noise between sessions */
    double t[8];
    for (int i = 0; i < 8; i++)
        t[i] = S_T0[i] * 0.05;
    S_samples(S_find(&b, "stride", 1), t, 8);
    S_head_time(&h, 1, 0.05 * 1.12);
    S_head_time(&h, 8, 2.10);   /* 2 ms, +5 % (+0.1 ms): 5 % or more and beyond 10 us */
    gm_diff d = S_compute(&b, &h, NULL);
    const gm_diff_row *r = S_row(&d, "stride", 1, GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_NOISE);
    cr_expect(r->alone);
    cr_expect(strstr(r->note, "no count moved") && strstr(r->note, "between sessions"), "%s",
              r->note);
    r = S_row(&d, "stride", 8, GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_REGRESSED, "a time alone still gates beyond the floor");
    cr_expect(r->alone);
    cr_expect(gm_diff_has_regression(&d));
    gm_diff_free(&d);

    /* a count that moved the other way does not corroborate a slower time */
    S_set(S_find(&h, "stride", 1), GM_M_LD_SECTORS, gm_vint((1 << 20) / 8 - 32));
    d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "stride", 1, GM_DIFF_TIME), GM_DIFF_NOISE);
    gm_diff_free(&d);
    /* one that moved the same way does */
    S_set(S_find(&h, "stride", 1), GM_M_LD_SECTORS, gm_vint((1 << 20) / 8 + 32));
    d = S_compute(&b, &h, NULL);
    cr_expect_eq(S_status(&d, "stride", 1, GM_DIFF_TIME), GM_DIFF_REGRESSED);
    cr_expect_not(S_row(&d, "stride", 1, GM_DIFF_TIME)->alone);
    gm_diff_free(&d);

    /* --threshold for time judges it by that alone, floor or not */
    S_set(S_find(&h, "stride", 1), GM_M_LD_SECTORS, gm_vint((1 << 20) / 8));
    gm_diff_override ov[] = {{"time", {GM_THR_RELATIVE, 0.05, GM_FLOOR_NONE, 0}}};
    gm_diff_options o = {.overrides = ov, .n_overrides = 1};
    d = S_compute(&b, &h, &o);
    cr_expect_eq(S_status(&d, "stride", 1, GM_DIFF_TIME), GM_DIFF_REGRESSED);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_time, a_run_with_no_counter_shows_its_time)
{
    /* A loop on the host (dp/cpu_serial), timed by a host clock: +48 %. */
    gm_results b, h;
    S_header(&b, "1111111111111111111111111111111111111111");
    S_header(&h, "2222222222222222222222222222222222222222");
    double tb[8], th[8];
    for (int i = 0; i < 8; i++)
        tb[i] = S_T0[i] * 0.074, th[i] = S_T0[i] * 0.074 * 1.48;
    gm_results *both[2] = {&b, &h};
    for (int k = 0; k < 2; k++) {
        gm_run *run = gm_results_add_run(both[k]);
        run->experiment = strdup("dp");
        run->variant = strdup("cpu_serial");
        gm_run_set_param(run, "n", gm_vint(64));
        S_samples(run, k ? th : tb, 8);
        run->check.status = GM_CHECK_PASSED;
    }
    gm_diff d = S_compute(&b, &h, NULL);
    cr_assert_eq(d.n_rows, 1);
    cr_expect_eq(d.rows[0].status, GM_DIFF_CHANGED);
    cr_expect_not(d.rows[0].gates);
    cr_expect(strstr(d.rows[0].note, "not profiled"), "%s", d.rows[0].note);
    cr_expect_not(gm_diff_has_regression(&d));
    gm_diff_group *g;
    size_t ng = gm_diff_groups(&d, &g);
    cr_assert_eq(ng, 1);
    cr_expect_str_eq(g[0].summary, "+48% time (not profiled: not gated)");
    gm_diff_groups_free(g, ng);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* A program's file: kernels with no reference, their launches' profiled
 * durations as the samples, named as the injection library names them. */
static void S_prog_header(gm_results *r, const char *commit)
{
    S_header(r, commit);
    free(r->collection.size_set);
    r->collection.size_set = strdup("app");
}

static gm_run *S_prog(gm_results *r, const char *var, const char *kernel, const char *range,
                      unsigned grid, const double *t, size_t n, long long first)
{
    gm_run *run = gm_results_add_run(r);
    run->experiment = strdup("app");
    run->variant = strdup(var);
    run->kernel = strdup(kernel);
    run->has_launch = true;
    run->launch.grid[0] = grid, run->launch.grid[1] = run->launch.grid[2] = 1;
    run->launch.block[0] = 256, run->launch.block[1] = run->launch.block[2] = 1;
    S_samples(run, t, n);
    run->check.status = GM_CHECK_NO_REFERENCE;
    if (range)
        gm_run_add_note(run, "NVTX range: %s", range);
    if (n == 1)
        gm_run_add_note(run, "launch %lld of the program", first);
    else
        gm_run_add_note(run, "%zu launches (launches %lld, ... of the program)", n, first);
    gm_run_set_metric(run, GM_M_LD_SECTORS, gm_vint(4096 * grid), "sector");
    gm_run_set_metric(run, GM_M_LD_REQUESTS, gm_vint(1024 * grid), "request");
    gm_run_set_metric(run, GM_M_L2_HIT, gm_vreal(60.0), "%");
    return run;
}

static const gm_diff_row *S_prog_row(const gm_diff *d, const char *kernel, const char *metric)
{
    for (size_t i = 0; i < d->n_rows; i++) {
        const gm_diff_row *r = &d->rows[i];
        const gm_run *run = r->head ? r->head : r->base;
        if (strcmp(run->kernel, kernel) == 0 &&
            ((!metric && !r->metric) || (metric && r->metric && strcmp(r->metric, metric) == 0)))
            return r;
    }
    return NULL;
}

Test(diff_program, kernels_pair_by_kernel_and_range_not_launch_configuration)
{
    static const double t1[2] = {0.050, 0.051};
    gm_results b, h;
    S_prog_header(&b, "1111111111111111111111111111111111111111");
    S_prog_header(&h, "2222222222222222222222222222222222222222");
    /* a changed grid (the name the injection library gives changed with it) */
    S_prog(&b, "step: scale 64x1x1/256x1x1", "scale(float*, int)", "step", 64, t1, 2, 0);
    S_prog(&b, "step: scale 128x1x1/256x1x1", "scale(float*, int)", "step", 128, t1, 2, 2);
    S_prog(&h, "step: scale 64x1x1/256x1x1", "scale(float*, int)", "step", 64, t1, 2, 0);
    S_prog(&h, "step: scale 512x1x1/256x1x1", "scale(float*, int)", "step", 512, t1, 2, 2);
    /* the same kernel outside the range is another kernel */
    S_prog(&b, "scale", "scale(float*, int)", NULL, 64, t1, 2, 4);
    S_prog(&h, "scale", "scale(float*, int)", NULL, 64, t1, 2, 4);
    /* a kernel only in head */
    S_prog(&h, "copy", "copy(float*)", NULL, 64, t1, 2, 6);
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(d.n_runs_paired, 3, "64 with 64, 128 with 512 (the one left), scale alone");
    cr_expect_eq(d.n_runs_new, 1);
    cr_expect_eq(d.n_runs_removed, 0);
    size_t moved = 0;
    for (size_t i = 0; i < d.n_rows; i++) {
        const gm_diff_row *r = &d.rows[i];
        cr_expect(r->program);
        if (r->base && r->head && r->base->launch.grid[0] != r->head->launch.grid[0]) {
            cr_expect_eq(r->base->launch.grid[0], 128);
            cr_expect_eq(r->head->launch.grid[0], 512);
            moved += r->metric && strcmp(r->metric, GM_M_LD_SECTORS) == 0;
        }
    }
    cr_expect_eq(moved, 1);
    cr_assert(S_prog_row(&d, "copy(float*)", NULL));
    cr_expect_eq(S_prog_row(&d, "copy(float*)", NULL)->status, GM_DIFF_NEW);
    /* the configuration is shown beside the row */
    gm_diff_render ro = {.only_changed = true};
    char *md = gm_diff_to_markdown(&d, &ro);
    cr_expect(strstr(md, "| `128x1x1/256x1x1 → 512x1x1/256x1x1` | ld sectors |"), "%s", md);
    free(md);
    char *js = gm_diff_to_json(&d, &ro, 1);
    cr_expect(strstr(js, "\"launch\": {"), "launch configurations in the JSON");
    free(js);
    gm_diff_free(&d);

    /* one --pair rule covers every configuration of a renamed kernel */
    gm_results h2;
    S_prog_header(&h2, "3333333333333333333333333333333333333333");
    S_prog(&h2, "step: scale2 64x1x1/256x1x1", "scale2(float*, int)", "step", 64, t1, 2, 0);
    S_prog(&h2, "step: scale2 128x1x1/256x1x1", "scale2(float*, int)", "step", 128, t1, 2, 2);
    S_prog(&h2, "scale", "scale(float*, int)", NULL, 64, t1, 2, 4);
    d = S_compute(&b, &h2, NULL);
    cr_expect_eq(d.n_runs_paired, 1, "a renamed kernel is another kernel");
    gm_diff_free(&d);
    gm_diff_pair p;
    gm_error err;
    cr_assert_eq(gm_diff_pair_parse("step: scale=step: scale2", &p, &err), GM_OK, "%s",
                 err.message);
    gm_diff_options o = {.pairs = &p, .n_pairs = 1};
    d = S_compute(&b, &h2, &o);
    cr_expect_eq(d.n_runs_paired, 3, "one rule, both configurations");
    cr_expect_eq(d.n_runs_removed + d.n_runs_new, 0);
    cr_expect_not(gm_diff_has_regression(&d));
    gm_diff_free(&d);
    free(p.from);
    free(p.to);
    gm_results_free(&h2);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* The committed program runs: the lab and a PyTorch script pair with
 * themselves kernel by kernel, and still when a kernel's grid changed and
 * the injection library's name for it with it. */
Test(diff_program, committed_program_runs_pair_across_a_changed_grid)
{
    const char *files[] = {"examples/app/run.json", "examples/pytorch/run.json"};
    for (size_t f = 0; f < 2; f++) {
        gm_results b, h;
        gm_error err;
        char *p = gmt_src(files[f]);
        cr_assert_eq(gm_results_read_file(p, &b, &err), GM_OK, "%s", err.message);
        cr_assert_eq(gm_results_read_file(p, &h, &err), GM_OK, "%s", err.message);
        free(p);
        gm_diff d = S_compute(&b, &h, NULL);
        cr_expect_eq(d.n_runs_paired, b.n_runs, "%s", files[f]);
        cr_expect_not(gm_diff_has_regression(&d), "%s", files[f]);
        for (size_t i = 0; i < d.n_rows; i++)
            cr_expect(d.rows[i].program, "%s: a program's kernel", files[f]);
        gm_diff_free(&d);
        /* head launched its first kernel with twice the blocks: a new name */
        gm_run *run = &h.runs[0];
        run->launch.grid[0] *= 2;
        char name[512];
        snprintf(name, sizeof name, "%s %ux%ux%u/%ux%ux%u", run->variant, run->launch.grid[0],
                 run->launch.grid[1], run->launch.grid[2], run->launch.block[0],
                 run->launch.block[1], run->launch.block[2]);
        free(run->variant);
        run->variant = strdup(name);
        d = S_compute(&b, &h, NULL);
        cr_expect_eq(d.n_runs_paired, b.n_runs, "%s: paired across the grid", files[f]);
        cr_expect_eq(d.n_runs_new + d.n_runs_removed, 0, "%s", files[f]);
        cr_expect_not(gm_diff_has_regression(&d), "%s", files[f]);
        gm_diff_free(&d);
        gm_results_free(&b);
        gm_results_free(&h);
    }
    /* the ranks of a merged program run pair rank with rank */
    const char *names[] = {"examples/h100-vs-h200/app-0.json", "examples/h100-vs-h200/app-1.json"};
    gm_results m[2];
    for (int k = 0; k < 2; k++) {
        gm_results in[2];
        gm_error err;
        for (int i = 0; i < 2; i++) {
            char *p = gmt_src(names[i]);
            cr_assert_eq(gm_results_read_file(p, &in[i], &err), GM_OK, "%s", err.message);
            free(p);
        }
        cr_assert_eq(gm_results_merge(in, names, 2, false, &m[k], &err), GM_OK, "%s",
                     err.message);
    }
    gm_diff d = S_compute(&m[0], &m[1], NULL);
    cr_expect_eq(d.n_runs_paired, m[0].n_runs);
    for (size_t i = 0; i < d.n_rows; i++) {
        const gm_diff_row *r = &d.rows[i];
        cr_expect(r->program);
        cr_expect_eq(gm_run_param(r->base, "rank")->value.i,
                     gm_run_param(r->head, "rank")->value.i);
    }
    gm_diff_free(&d);
    gm_results_free(&m[0]);
    gm_results_free(&m[1]);
}

Test(diff_program, one_launch_is_judged_against_a_stated_floor)
{
    gm_results b, h;
    S_prog_header(&b, "1111111111111111111111111111111111111111");
    S_prog_header(&h, "2222222222222222222222222222222222222222");
    double one[1] = {0.050}, twice[1] = {0.100}, plus12[1] = {0.056}, plus8[1] = {0.054};
    S_prog(&b, "a", "a(float*)", NULL, 64, one, 1, 0);
    S_prog(&h, "a", "a(float*)", NULL, 64, twice, 1, 0);   /* doubled, no count moved */
    S_prog(&b, "b", "b(float*)", NULL, 64, one, 1, 1);
    S_prog(&h, "b", "b(float*)", NULL, 64, plus12, 1, 1);
    S_prog(&b, "c", "c(float*)", NULL, 64, one, 1, 2);
    S_prog(&h, "c", "c(float*)", NULL, 64, plus8, 1, 2);
    /* b and c read more sectors: the time is the code's */
    gm_run_set_metric(&h.runs[1], GM_M_LD_SECTORS, gm_vint(4096 * 64 + 32), "sector");
    gm_run_set_metric(&h.runs[2], GM_M_LD_SECTORS, gm_vint(4096 * 64 + 32), "sector");
    gm_diff d = S_compute(&b, &h, NULL);
    const gm_diff_row *r = S_prog_row(&d, "a(float*)", GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_REGRESSED, "doubled: %s", r->note);
    cr_expect_eq(r->noise, GM_NOISE_ONE_SAMPLE);
    cr_expect_float_eq(r->noise_floor, GM_DIFF_ONE_SAMPLE_REL, 1e-15);
    cr_expect(strstr(r->note, "one launch a side") && strstr(r->note, "10 %"), "%s", r->note);
    r = S_prog_row(&d, "b(float*)", GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_REGRESSED, "+12 %%: %s", r->note);
    r = S_prog_row(&d, "c(float*)", GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_NOISE, "+8 %%: %s", r->note);
    cr_expect(strstr(r->note, "floor for one sample (10 %)"), "%s", r->note);
    gm_diff_render ro = {.only_changed = true};
    char *md = gm_diff_to_markdown(&d, &ro);
    cr_expect(strstr(md, "+50.0 µs (+100%), one launch a side |"), "%s", md);
    free(md);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_program, few_launches_are_judged_against_their_spread)
{
    gm_results b, h;
    S_prog_header(&b, "1111111111111111111111111111111111111111");
    S_prog_header(&h, "2222222222222222222222222222222222222222");
    /* 3 launches a side (the rank test cannot reach 0.05): base spread 20 % */
    double tb[3] = {0.045, 0.050, 0.055}, in[3] = {0.056, 0.057, 0.058},
           out[3] = {0.064, 0.065, 0.066};
    S_prog(&b, "a", "a(float*)", NULL, 64, tb, 3, 0);
    S_prog(&h, "a", "a(float*)", NULL, 64, in, 3, 0);    /* +14 % */
    S_prog(&b, "b", "b(float*)", NULL, 64, tb, 3, 3);
    S_prog(&h, "b", "b(float*)", NULL, 64, out, 3, 3);   /* +30 % */
    for (int i = 0; i < 2; i++)
        gm_run_set_metric(&h.runs[i], GM_M_LD_SECTORS, gm_vint(4096 * 64 + 32), "sector");
    gm_diff d = S_compute(&b, &h, NULL);
    const gm_diff_row *r = S_prog_row(&d, "a(float*)", GM_DIFF_TIME);
    cr_expect_eq(r->noise, GM_NOISE_SPREAD);
    cr_expect_float_eq(r->noise_floor, 0.2, 1e-12);
    cr_expect_eq(r->status, GM_DIFF_NOISE, "+14 %% inside a 20 %% spread: %s", r->note);
    cr_expect(strstr(r->note, "spread of its 3 and 3 launches (20 %)"), "%s", r->note);
    r = S_prog_row(&d, "b(float*)", GM_DIFF_TIME);
    cr_expect_eq(r->status, GM_DIFF_REGRESSED, "+30 %%: %s", r->note);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* The layer-norm of the issue: 8.1 x faster, sectors per request 19.6 -> 4.0,
 * its L1 and L2 hit rates lower because it re-reads less. */
Test(diff_gate, faster_kernel_with_lower_hit_rates_passes)
{
    gm_results b, h;
    S_pair(&b, &h);
    gm_run *run = S_find(&h, "stride", 8);
    long long req = (1 << 20) / 32;
    S_set(S_find(&b, "stride", 8), GM_M_LD_SECTORS, gm_vint(req * 196 / 10));
    S_set(run, GM_M_LD_SECTORS, gm_vint(req * 4));
    S_set(run, GM_M_L2_HIT, gm_vreal(39.4));
    gm_run_set_metric(S_find(&b, "stride", 8), GM_M_L1_HIT, gm_vreal(85.0), "%");
    gm_run_set_metric(run, GM_M_L1_HIT, gm_vreal(12.0), "%");
    S_head_time(&h, 8, 2.0 / 8.1);
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_not(gm_diff_has_regression(&d));
    cr_expect_eq(S_status(&d, "stride", 8, GM_DIFF_TIME), GM_DIFF_IMPROVED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_LD_SECTORS), GM_DIFF_IMPROVED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_L1_HIT), GM_DIFF_CHANGED);
    cr_expect_eq(S_status(&d, "stride", 8, GM_M_L2_HIT), GM_DIFF_CHANGED);
    gm_diff_group *g;
    size_t ng = gm_diff_groups(&d, &g);
    cr_assert_gt(ng, 0);
    cr_expect_eq(g[0].status, GM_DIFF_IMPROVED);
    cr_expect_str_eq(g[0].summary, "ld sectors -80% (sectors/request 19.6 → 4), -88% time in 1 "
                                   "of 2 runs; beside them: L1 hit -73.0pp, L2 hit -10.6pp");
    gm_diff_groups_free(g, ng);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* ---- the gate (issue 13) ------------------------------------------------- */

Test(diff_gate, pair_pairs_a_renamed_kernel)
{
    gm_results b, h;
    S_pair(&b, &h);
    free(h.runs[2].variant);
    h.runs[2].variant = strdup("smem_tile");   /* transpose/tiled renamed in head */
    gm_diff d = S_compute(&b, &h, NULL);
    cr_expect_eq(d.n_runs_removed, 1);
    cr_expect_eq(d.n_runs_new, 1);
    cr_expect(gm_diff_has_regression(&d), "the renamed run is missing from head");
    gm_diff_free(&d);

    gm_diff_pair p;
    gm_error err;
    cr_assert_eq(gm_diff_pair_parse("transpose/tiled=transpose/smem_tile", &p, &err), GM_OK,
                 "%s", err.message);
    gm_diff_options o = {.pairs = &p, .n_pairs = 1};
    d = S_compute(&b, &h, &o);
    cr_expect_eq(d.n_runs_paired, 3);
    cr_expect_eq(d.n_runs_removed, 0);
    cr_expect_eq(d.n_runs_new, 0);
    cr_expect_not(gm_diff_has_regression(&d));
    gm_diff_free(&d);
    free(p.from);
    free(p.to);

    /* the pattern form, on the variant alone */
    cr_assert_eq(gm_diff_pair_parse("t*d=smem_t*", &p, &err), GM_OK, "%s", err.message);
    o.pairs = &p;
    d = S_compute(&b, &h, &o);
    cr_expect_eq(d.n_runs_paired, 3, "tiled -> smem_tile through the '*' ('ile')");
    gm_diff_free(&d);
    free(p.from);
    free(p.to);

    /* a rule that matches nothing is an error naming it */
    cr_assert_eq(gm_diff_pair_parse("nosuch=other", &p, &err), GM_OK);
    o.pairs = &p;
    gm_diff d2;
    cr_expect_eq(gm_diff_compute(&b, &h, &o, &d2, &err), GM_ERR_VALUE);
    cr_expect(strstr(err.message, "nosuch"), "%s", err.message);
    free(p.from);
    free(p.to);
    gm_results_free(&b);
    gm_results_free(&h);
}

Test(diff_gate, pair_refuses_malformed_rules)
{
    gm_diff_pair p;
    gm_error err;
    const char *bad[] = {"", "a", "=b", "a=", "a*b*=c", "a=b*", "x/a=b", "a=b=c"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(gm_diff_pair_parse(bad[i], &p, &err), GM_ERR_VALUE, "'%s' accepted", bad[i]);
}

Test(diff_gate, nothing_paired_fails)
{
    gm_results b, h;
    S_header(&b, "1111111111111111111111111111111111111111");
    S_header(&h, "2222222222222222222222222222222222222222");
    S_run(&b, "coalescing", "stride", 1 << 20, 1, 1.0);
    S_run(&h, "coalescing", "float4", 1 << 20, 1, 1.0);
    gm_diff_options o = {.allow_missing = true};
    gm_diff d = S_compute(&b, &h, &o);
    cr_expect(gm_diff_has_regression(&d), "nothing compared is no pass, even with --allow-missing");
    char *g = gm_diff_gate_line(&d);
    cr_expect(strstr(g, "fail: nothing paired"), "%s", g);
    free(g);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
}

/* The default Markdown of a real diff must fit a pull-request comment. */
static size_t S_md_chars(const char *base, const char *head, bool regress_all, bool *cut)
{
    gm_results b, h;
    gm_error err;
    char *pb = gmt_src(base), *ph = gmt_src(head);
    cr_assert_eq(gm_results_read_file(pb, &b, &err), GM_OK, "%s", err.message);
    cr_assert_eq(gm_results_read_file(ph, &h, &err), GM_OK, "%s", err.message);
    if (regress_all)   /* every run reads twice the sectors: a regression in every run */
        for (size_t i = 0; i < h.n_runs; i++)
            for (size_t k = 0; k < h.runs[i].n_metrics; k++)
                if (h.runs[i].metrics[k].value.kind == GM_V_INT)
                    h.runs[i].metrics[k].value.i = h.runs[i].metrics[k].value.i * 2 + 1;
    gm_diff d = S_compute(&b, &h, NULL);
    gm_diff_render ro = {.base_name = base, .head_name = head, .only_changed = true};
    char *md = gm_diff_to_markdown(&d, &ro);
    /* characters as GitHub counts them: UTF-8 code points */
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)md; *p; p++)
        n += (*p & 0xC0) != 0x80;
    *cut = strstr(md, "**Cut:**") != NULL;
    if (regress_all)
        cr_expect(strstr(md, "### gpumem-report diff: fail: "), "%.200s", md);
    free(md);
    gm_diff_free(&d);
    gm_results_free(&b);
    gm_results_free(&h);
    free(pb);
    free(ph);
    return n;
}

Test(diff_gate, default_markdown_fits_a_pull_request_comment)
{
    bool cut;
    size_t n = S_md_chars("examples/diff/base.json", "examples/diff/head.json", false, &cut);
    cr_expect_lt(n, 65536, "committed pair: %zu characters", n);
    cr_expect_not(cut);
    n = S_md_chars("examples/h100/run.json", "examples/h100/run.json", false, &cut);
    cr_expect_lt(n, 65536, "two identical full runs: %zu characters", n);
    cr_expect_not(cut);
    n = S_md_chars("examples/h100/run.json", "examples/h100/run.json", true, &cut);
    cr_expect_lt(n, 65536, "every counter of every run changed: %zu characters", n);
    cr_expect(cut, "thousands of changed rows are cut, and the text says so");
}

Test(diff_cli, allow_missing_and_pair_on_the_command_line)
{
    /* head keeps 3 of the 6 runs of the fixture's base: exit 1, then 0 */
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-base.json"), "--pair",
                       "nosuch=other"), 2);
    char *e = S_slurp(".stderr");
    cr_expect(e && strstr(e, "--pair nosuch=other"), "%s", e ? e : "");
    free(e);
    cr_expect_eq(S_RUN("diff", FX("diff-base.json"), FX("diff-base.json"), "--out", "-",
                       "--format", "csv"), 0);
    char *csv = S_slurp(".stdout");
    cr_assert(csv);
    cr_expect_eq(strncmp(csv, "status,experiment,variant,params,metric,unit,base,head,", 55), 0);
    cr_expect(strstr(csv, "\r\nunchanged,"), "every row, unchanged ones too");
    free(csv);
}

Test(diff_cli, render_csv_to_standard_output)
{
    cr_expect_eq(S_RUN("render", FX("diff-base.json"), "--format", "csv", "--out", "-"), 0);
    char *csv = S_slurp(".stdout");
    cr_assert(csv);
    cr_expect_eq(strncmp(csv, "commit,device,experiment,variant,params,check,metric,value,unit\r\n",
                         65), 0, "%.120s", csv);
    cr_expect(strstr(csv, ",time,"), "the median time of each run");
    cr_expect(strstr(csv, ",l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"), "its metrics");
    free(csv);
}
