/* test_results.c — the results file: reading, writing, builders, queries.
 *
 * Fixtures are found under $GM_SRCDIR/tests/fixtures (GM_SRCDIR is set by
 * `make test`; "." otherwise).  They are synthetic (see gen-fixtures.py). */
#include "../core/results.h"

#include "../core/buf.h"
#include "helpers.h"

#include <criterion/criterion.h>

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */

static char *fixture_text(const char *name)
{
    char *p = gmt_fixture(name);
    char *t = gmt_text(p);
    free(p);
    return t;
}

/* text with the first occurrence of `from` replaced by `to` (must occur) */
static char *replace1(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert_not_null(at, "test bug: \"%s\" not in the text", from);
    gm_buf b = GM_BUF_INIT;
    gm_buf_put(&b, text, (size_t)(at - text));
    gm_buf_puts(&b, to);
    gm_buf_puts(&b, at + strlen(from));
    return gm_buf_detach(&b);
}

/* Read a mutated minimal fixture and expect status `st`; returns the message. */
static void expect_error(const char *from, const char *to, gm_status st, const char *needle)
{
    char *base = fixture_text("handwritten-minimal.json");
    char *text = replace1(base, from, to);
    gm_results r;
    gm_error e = {0};
    gm_status got = gm_results_read_string(text, "mutant.json", &r, &e);
    cr_assert_eq(got, st, "status %s, expected %s; message: %s", gm_status_name(got),
                 gm_status_name(st), e.message);
    cr_assert_eq(e.status, st);
    gmt_assert_has(e.message, "mutant.json:");
    gmt_assert_has(e.message, needle);
    cr_assert_eq(r.n_runs, 0, "out must be zeroed on failure");
    cr_assert_null(r.runs);
    free(text);
    free(base);
}

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- round trips of the fixtures ----------------------------------------- */

static void roundtrip_fixture(const char *name)
{
    char *path = gmt_fixture(name);
    char *text = gmt_text(path);
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_file(path, &r, &e), GM_OK, "%s", e.message);
    char *j1 = gm_results_to_json(&r);
    /* The fixtures are written in the canonical form: a read-write keeps every byte. */
    cr_assert(strcmp(j1, text) == 0, "%s: writer output differs from the file", name);
    gm_results r2;
    cr_assert_eq(gm_results_read_string(j1, "j1", &r2, &e), GM_OK, "%s", e.message);
    char *j2 = gm_results_to_json(&r2);
    cr_assert_str_eq(j1, j2);
    cr_assert_eq(r.n_runs, r2.n_runs);
    gm_results_free(&r);
    gm_results_free(&r2);
    cr_assert_eq(r.n_runs, 0, "free leaves the structure zeroed");
    free(j1);
    free(j2);
    free(text);
    free(path);
}

Test(results_roundtrip, small) { roundtrip_fixture("handwritten-small.json"); }
Test(results_roundtrip, hostile) { roundtrip_fixture("handwritten-hostile.json"); }
Test(results_roundtrip, large) { roundtrip_fixture("handwritten-large.json"); }
Test(results_roundtrip, minimal) { roundtrip_fixture("handwritten-minimal.json"); }

Test(results_read, small_fixture_content)
{
    char *path = gmt_fixture("handwritten-small.json");
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_file(path, &r, &e), GM_OK, "%s", e.message);
    cr_assert_eq(r.schema_version, 1);
    cr_assert_str_eq(r.origin, "hand-written fixture (synthetic numbers, not a measurement)");
    cr_assert_eq(r.dirty, 0);
    cr_assert_str_eq(r.device.chip, "GH100");
    cr_assert_eq(r.device.cc_major, 9);
    cr_assert_eq(r.device.memory_bus_width_bits, 5120);
    cr_assert_eq(r.device.theoretical_bandwidth_gbs.kind, GM_V_REAL);
    cr_assert_eq(r.device.copy_bandwidth_bytes.kind, GM_V_INT);
    cr_assert_eq(r.device.copy_bandwidth_bytes.i, 1073741824LL);
    cr_assert_eq(r.n_experiments, 2);
    cr_assert_eq(r.collection.n_metrics, 24);
    cr_assert_eq(r.collection.passes, 9);

    const gm_run *first = &r.runs[0];
    cr_assert_str_eq(first->experiment, "coalescing");
    cr_assert_eq(first->timing.n, 20);
    cr_assert_not_null(first->timing.samples);
    cr_assert_eq(first->n_metrics, 24);
    const gm_metric *m = gm_run_metric(first, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    cr_assert_not_null(m);
    cr_assert_eq(m->value.kind, GM_V_INT, "a count stays an integer");
    cr_assert_str_eq(m->unit, "sector");
    cr_assert(first->prediction.present);
    cr_assert_not_null(gm_prediction_metric(&first->prediction,
                                            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));
    cr_assert_eq(gm_run_param(first, "stride")->value.i, 1);
    cr_assert_eq(first->check.status, GM_CHECK_PASSED);

    int failed = 0, not_run = 0, null_metrics = 0;
    for (size_t i = 0; i < r.n_runs; i++) {
        const gm_run *x = &r.runs[i];
        if (x->check.status == GM_CHECK_FAILED) {
            failed++;
            cr_assert(x->check.has_first_mismatch);
            cr_assert(isnan(x->check.first_value), "null value reads as NaN");
            cr_assert_eq(x->check.mismatches, 3);
            cr_assert_not_null(x->check.reason);
        }
        if (x->check.status == GM_CHECK_NOT_RUN) {
            not_run++;
            cr_assert(!x->timing.present);
            cr_assert(!x->has_launch);
            cr_assert_eq(x->n_metrics, 0);
            cr_assert(isnan(gm_run_effective_gbs(x)));
        }
        if (x->n_metrics > 0 && !gm_value_present(&x->metrics[0].value)) {
            null_metrics++;
            cr_assert(isnan(gm_run_metric_num(x, "dram__bytes_read.sum")));
        }
    }
    cr_assert_eq(failed, 1);
    cr_assert_eq(not_run, 1);
    cr_assert_eq(null_metrics, 1);
    gm_results_free(&r);
    free(path);
}

/* The fixtures' timing summaries are what core/stats.c computes from their
 * samples (the generator uses the same type-7 arithmetic). */
static void check_summaries(const char *name)
{
    char *path = gmt_fixture(name);
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_file(path, &r, &e), GM_OK, "%s", e.message);
    for (size_t i = 0; i < r.n_runs; i++) {
        gm_timing t = r.runs[i].timing;
        if (!t.present || !t.samples)
            continue;
        gm_timing u = {0};
        gm_timing_set_samples(&u, t.samples, t.n);
        cr_assert(same_bits(t.median, u.median) && same_bits(t.q1, u.q1) &&
                      same_bits(t.q3, u.q3) && same_bits(t.min, u.min) && same_bits(t.max, u.max),
                  "%s: runs[%zu]: summary differs from its samples", name, i);
        free(u.samples);
    }
    gm_results_free(&r);
    free(path);
}

Test(results_read, fixture_summaries_match_samples)
{
    check_summaries("handwritten-small.json");
    check_summaries("handwritten-large.json");
    check_summaries("handwritten-minimal.json");
    check_summaries("handwritten-hostile.json");
}

Test(results_read, hostile_names_survive)
{
    char *path = gmt_fixture("handwritten-hostile.json");
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_file(path, &r, &e), GM_OK, "%s", e.message);
    cr_assert_str_eq(r.experiments[0].id, "exp`touch /tmp/gm-pwned`");
    gmt_assert_has(r.experiments[0].summary, "<script>");
    gmt_assert_has(r.experiments[0].summary, "\n");
    gmt_assert_has(r.experiments[0].summary, "\xe6\xbc\xa2"); /* 漢 in UTF-8 */
    gmt_assert_has(r.experiments[1].summary, "\x01");
    cr_assert_eq(strlen(r.experiments[2].id), 326);
    cr_assert_str_eq(r.runs[0].variant, "it's \"baseline\"");
    gm_results_free(&r);
    free(path);
}

/* ---- values -------------------------------------------------------------- */

static gm_results make_values(void)
{
    gm_results r;
    gm_results_init(&r);
    gm_experiment *x = gm_results_add_experiment(&r);
    x->id = gm_xstrdup("e");
    gm_run *run = gm_results_add_run(&r);
    run->experiment = gm_xstrdup("e");
    run->variant = gm_xstrdup("v");
    gm_run_set_metric(run, "tenth", gm_vreal(0.1), "");
    gm_run_set_metric(run, "third", gm_vreal(1.0 / 3.0), "");
    gm_run_set_metric(run, "tiny", gm_vreal(1e-300), "");
    gm_run_set_metric(run, "denormal", gm_vreal(4.9406564584124654e-324), "");
    gm_run_set_metric(run, "big", gm_vreal(123456789.123456789), "");
    /* metric values are counts: the reader takes them up to 2^53 (results.h) */
    gm_run_set_metric(run, "huge", gm_vreal(9007199254740992.0), "");
    gm_run_set_metric(run, "negzero", gm_vreal(-0.0), "");
    gm_run_set_metric(run, "three_real", gm_vreal(3.0), "");
    gm_run_set_metric(run, "three_int", gm_vint(3), "");
    gm_run_set_metric(run, "e15", gm_vreal(1e15), "");
    gm_run_set_metric(run, "llmax", gm_vint(GM_INT_LIMIT), "");
    gm_run_set_metric(run, "llmin", gm_vint(0), "");
    gm_run_set_metric(run, "absent", gm_vabsent(), "byte");
    gm_run_set_metric(run, "bad1", gm_vreal(NAN), "");
    gm_run_set_metric(run, "bad2", gm_vreal(-INFINITY), "");
    run->check.status = GM_CHECK_FAILED;
    run->check.has_first_mismatch = true;
    run->check.first_value = NAN;
    run->check.first_expected = INFINITY;
    return r;
}

Test(results_values, doubles_ints_and_nulls_survive)
{
    gm_results r = make_values();
    char *j = gm_results_to_json(&r);
    cr_assert_null(strstr(j, "nan"), "NaN must never be written:\n%s", j);
    cr_assert_null(strstr(j, "inf"), "inf must never be written:\n%s", j);
    gmt_assert_has(j, "\"three_real\": {\n          \"value\": 3.0,");
    gmt_assert_has(j, "\"three_int\": {\n          \"value\": 3,");
    gmt_assert_has(j, "\"tenth\": {\n          \"value\": 0.1,");
    gmt_assert_has(j, "\"negzero\": {\n          \"value\": -0.0,");
    gmt_assert_has(j, "\"absent\": {\n          \"value\": null,");

    gm_results b;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string(j, "values", &b, &e), GM_OK, "%s", e.message);
    const gm_run *run = &b.runs[0];
    const struct {
        const char *name;
        double v;
    } reals[] = {{"tenth", 0.1},
                 {"third", 1.0 / 3.0},
                 {"tiny", 1e-300},
                 {"denormal", 4.9406564584124654e-324},
                 {"big", 123456789.123456789},
                 {"huge", 9007199254740992.0},
                 {"negzero", -0.0},
                 {"three_real", 3.0},
                 {"e15", 1e15}};
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        const gm_metric *m = gm_run_metric(run, reals[i].name);
        cr_assert_not_null(m, "%s", reals[i].name);
        cr_assert_eq(m->value.kind, GM_V_REAL, "%s must stay a real", reals[i].name);
        cr_assert(same_bits(m->value.r, reals[i].v), "%s: %.17g read back as %.17g",
                  reals[i].name, reals[i].v, m->value.r);
    }
    cr_assert(signbit(gm_run_metric(run, "negzero")->value.r));
    cr_assert_eq(gm_run_metric(run, "three_int")->value.kind, GM_V_INT);
    cr_assert_eq(gm_run_metric(run, "three_int")->value.i, 3);
    cr_assert_eq(gm_run_metric(run, "llmax")->value.i, GM_INT_LIMIT);
    cr_assert_eq(gm_run_metric(run, "llmin")->value.i, 0);
    cr_assert_eq(gm_run_metric(run, "absent")->value.kind, GM_V_ABSENT);
    cr_assert_str_eq(gm_run_metric(run, "absent")->unit, "byte");
    cr_assert_eq(gm_run_metric(run, "bad1")->value.kind, GM_V_ABSENT);
    cr_assert_eq(gm_run_metric(run, "bad2")->value.kind, GM_V_ABSENT);
    cr_assert(isnan(run->check.first_value));
    cr_assert(isnan(run->check.first_expected), "inf is written as null, read as NaN");
    cr_assert(isnan(run->check.tolerance), "unset tolerance is NaN (null), not 0");
    cr_assert_eq(run->bytes_read.kind, GM_V_ABSENT, "absent stays absent, never 0");
    cr_assert_eq(run->launch.registers, -1);

    char *j2 = gm_results_to_json(&b);
    cr_assert_str_eq(j, j2);
    free(j);
    free(j2);
    gm_results_free(&r);
    gm_results_free(&b);
}

Test(results_values, random_doubles_roundtrip)
{
    /* 20000 doubles of every magnitude and pattern (splitmix64 bits), each
     * through the writer and back through jansson. */
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    gm_results r;
    gm_results_init(&r);
    gm_experiment *x = gm_results_add_experiment(&r);
    x->id = gm_xstrdup("e");
    gm_run *run = gm_results_add_run(&r);
    run->experiment = gm_xstrdup("e");
    run->variant = gm_xstrdup("v");
    enum { N = 20000 };
    double *v = malloc(N * sizeof *v);
    for (size_t i = 0; i < N;) {
        uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        double d;
        memcpy(&d, &z, sizeof d);
        if (isfinite(d))
            v[i++] = fabs(d);   /* times are >= 0 (results.h) */
    }
    gm_timing_set_samples(&run->timing, v, N);
    char *j = gm_results_to_json(&r);
    gm_results b;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string(j, "random", &b, &e), GM_OK, "%s", e.message);
    cr_assert_eq(b.runs[0].timing.n, N);
    for (size_t i = 0; i < N; i++)
        cr_assert(same_bits(v[i], b.runs[0].timing.samples[i]), "sample %zu: %.17g -> %.17g", i,
                  v[i], b.runs[0].timing.samples[i]);
    free(v);
    free(j);
    gm_results_free(&r);
    gm_results_free(&b);
}

Test(results_values, invalid_utf8_becomes_replacement_character)
{
    gm_results r;
    gm_results_init(&r);
    gm_experiment *x = gm_results_add_experiment(&r);
    x->id = gm_xstrdup("e");
    gm_run *run = gm_results_add_run(&r);
    run->experiment = gm_xstrdup("e");
    run->variant = gm_xstrdup("v");
    run->kernel = gm_xstrdup("k\xff\xc0\x80x\xe2\x82");
    char *j = gm_results_to_json(&r);
    gm_results b;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string(j, "utf8", &b, &e), GM_OK, "%s", e.message);
    cr_assert_str_eq(b.runs[0].kernel, "k\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx\xef\xbf\xbd"
                                       "\xef\xbf\xbd");
    free(j);
    gm_results_free(&r);
    gm_results_free(&b);
}

/* ---- builders ------------------------------------------------------------ */

static void build_full(gm_results *r)
{
    gm_results_init(r);
    r->origin = gm_xstrdup("unit test");
    r->commit = gm_xstrdup("abc123");
    r->dirty = 1;
    r->taken_at = gm_xstrdup("2025-01-02T03:04:05Z");
    r->device.name = gm_xstrdup("Test GPU");
    r->device.cc_major = 9;
    r->device.sm_count = 132;
    r->device.memory_clock_khz = 2619000;
    r->device.memory_bus_width_bits = 5120;
    r->device.theoretical_bandwidth_gbs =
        gm_vreal(gm_theoretical_dram_gbs(r->device.memory_clock_khz, 5120));
    r->device.copy_bandwidth_gbs = gm_vreal(2871.25);
    r->device.l2_bytes = 50LL << 20;
    r->device.cupti_api = 130000;
    r->collection.metrics = gm_xcalloc(1, sizeof(char *));
    r->collection.metrics[0] = gm_xstrdup("dram__bytes_read.sum");
    r->collection.n_metrics = 1;
    r->collection.passes = 2;
    r->collection.range_mode = gm_xstrdup("user");
    r->collection.command = gm_xcalloc(2, sizeof(char *));
    r->collection.command[0] = gm_xstrdup("gpumem-report");
    r->collection.command[1] = gm_xstrdup("collect");
    r->collection.n_command = 2;
    r->collection.total_seconds = gm_vreal(1.5);

    gm_experiment *x = gm_results_add_experiment(r);
    x->id = gm_xstrdup("coalescing");
    x->title = gm_xstrdup("Coalesced");
    x->sweep_param = gm_xstrdup("stride");
    x->sweep_log2 = true;
    x->bandwidth_bound = true;

    for (int s = 1; s <= 4; s *= 2) {
        gm_run *run = gm_results_add_run(r);
        run->experiment = gm_xstrdup("coalescing");
        run->variant = gm_xstrdup("stride");
        run->kernel = gm_xstrdup("read_strided");
        gm_run_set_param(run, "n", gm_vint(1 << 20));
        gm_run_set_param(run, "stride", gm_vint(s));
        gm_run_set_param(run, "dtype", gm_vstr("f32"));
        run->has_launch = true;
        run->launch.grid[0] = 4096;
        run->launch.grid[1] = run->launch.grid[2] = 1;
        run->launch.block[0] = 256;
        run->launch.block[1] = run->launch.block[2] = 1;
        run->bytes_read = gm_vint(4LL << 20);
        run->bytes_written = gm_vint(4LL << 20);
        double samples[] = {0.02, 0.021, 0.0195, 0.022 * s};
        gm_timing_set_samples(&run->timing, samples, 4);
        run->timing.warmup = 3;
        run->timing.l2_flushed = true;
        run->timing.gated = s == 2;   /* one run gated: the key is written only then */
        gm_run_set_metric(run, "dram__bytes_read.sum", gm_vint(4LL << 20), "byte");
        gm_run_set_metric(run, "lts__t_sector_hit_rate.pct", gm_vreal(12.5), "%");
        run->check.status = GM_CHECK_PASSED;
        run->check.checked = 1 << 20;
        run->check.tolerance = 0.0;
        run->check.max_abs_error = gm_vreal(0.0);
        gm_run_add_note(run, "stride %d, %s", s, "note");
    }
    gm_run *p = &r->runs[0];
    p->prediction.present = true;
    p->prediction.method = gm_xstrdup("address-trace");
    p->prediction.warps_traced = 10;
    p->prediction.warps_total = 32768;
    p->prediction.scaled = true;
    p->prediction.metrics = gm_xcalloc(1, sizeof *p->prediction.metrics);
    p->prediction.metrics[0].name = gm_xstrdup("dram__bytes_read.sum");
    p->prediction.metrics[0].value = gm_vint(4LL << 20);
    p->prediction.metrics[0].unit = gm_xstrdup("byte");
    p->prediction.n_metrics = 1;
}

Test(results_build, builder_to_json_to_read_equals)
{
    gm_results r;
    build_full(&r);
    char *j = gm_results_to_json(&r);
    gm_results b;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string(j, "built", &b, &e), GM_OK, "%s\n%s", e.message, j);
    cr_assert_str_eq(b.origin, "unit test");
    cr_assert_str_eq(b.tool_version, GM_TOOL_VERSION);
    cr_assert_str_eq(b.commit, "abc123");
    cr_assert_eq(b.dirty, 1);
    cr_assert_eq(b.device.sm_count, 132);
    cr_assert(same_bits(b.device.theoretical_bandwidth_gbs.r, 3352.32));
    cr_assert_null(b.device.chip);
    cr_assert_eq(b.collection.passes, 2);
    cr_assert_null(b.collection.replay_mode);
    cr_assert_eq(b.collection.profile_seconds.kind, GM_V_ABSENT);
    cr_assert_eq(b.collection.n_command, 2);
    cr_assert_str_eq(b.collection.command[1], "collect");
    cr_assert_eq(b.n_runs, 3);
    cr_assert(b.experiments[0].sweep_log2);
    cr_assert_null(b.experiments[0].series_param);
    for (size_t i = 0; i < 3; i++) {
        const gm_run *x = &r.runs[i], *y = &b.runs[i];
        cr_assert_str_eq(x->variant, y->variant);
        cr_assert_null(y->layout);
        cr_assert_eq(y->n_params, 3);
        cr_assert_str_eq(y->params[0].name, "n", "params keep their order");
        cr_assert_str_eq(y->params[2].name, "dtype");
        cr_assert_eq(y->params[2].value.kind, GM_V_STR);
        cr_assert_str_eq(y->params[2].value.s, "f32");
        cr_assert_eq(gm_run_param(y, "stride")->value.i, gm_run_param(x, "stride")->value.i);
        cr_assert(y->has_launch);
        cr_assert_eq(y->launch.grid[0], 4096);
        cr_assert_eq(y->launch.registers, -1);
        cr_assert_eq(y->timing.n, 4);
        cr_assert(same_bits(y->timing.median, x->timing.median));
        cr_assert(same_bits(y->timing.q3, x->timing.q3));
        cr_assert_eq(y->timing.warmup, 3);
        cr_assert(y->timing.l2_flushed);
        cr_assert_eq(y->timing.gated, x->timing.gated);
        cr_assert_eq(y->n_metrics, 2);
        cr_assert_str_eq(y->metrics[1].unit, "%");
        cr_assert_eq(y->check.status, GM_CHECK_PASSED);
        cr_assert(!y->check.has_first_mismatch);
        cr_assert_eq(y->n_notes, 1);
        cr_assert_str_eq(y->notes[0], x->notes[0]);
    }
    cr_assert_str_eq(b.runs[0].notes[0], "stride 1, note");
    cr_assert(b.runs[0].prediction.present);
    cr_assert(!b.runs[1].prediction.present);
    cr_assert_eq(gm_prediction_metric(&b.runs[0].prediction, "dram__bytes_read.sum")->value.i,
                 4LL << 20);
    char *j2 = gm_results_to_json(&b);
    cr_assert_str_eq(j, j2);
    free(j);
    free(j2);
    gm_results_free(&r);
    gm_results_free(&b);
}

Test(results_build, deterministic_bytes)
{
    gm_results a, b;
    build_full(&a);
    build_full(&b);
    char *ja = gm_results_to_json(&a), *ja2 = gm_results_to_json(&a), *jb = gm_results_to_json(&b);
    cr_assert_str_eq(ja, ja2);
    cr_assert_str_eq(ja, jb);
    cr_assert(strncmp(ja, "{\n  \"schema\": \"gpumem-report/results\",\n  \"schema_version\": 1,\n",
                      60) == 0,
              "schema comes first: %.80s", ja);
    size_t n = strlen(ja);
    cr_assert(n > 2 && ja[n - 1] == '\n' && ja[n - 2] == '}', "one trailing newline");
    free(ja);
    free(ja2);
    free(jb);
    gm_results_free(&a);
    gm_results_free(&b);
}

Test(results_build, empty_results_roundtrip)
{
    gm_results r;
    gm_results_init(&r);
    char *j = gm_results_to_json(&r);
    gmt_assert_has(j, "\"experiments\": [],\n  \"runs\": []\n}\n");
    gmt_assert_has(j, "\"dirty\": null");
    gmt_assert_has(j, "\"passes\": null");
    gm_results b;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string(j, "empty", &b, &e), GM_OK, "%s", e.message);
    cr_assert_eq(b.dirty, -1);
    cr_assert_eq(b.collection.passes, -1);
    free(j);
    gm_results_free(&r);
    gm_results_free(&b);
}

Test(results_build, set_param_and_metric_replace)
{
    gm_results r;
    gm_results_init(&r);
    gm_run *run = gm_results_add_run(&r);
    cr_assert_eq(run->check.status, GM_CHECK_NOT_RUN, "unset check is not-run, not passed");
    gm_run_set_param(run, "n", gm_vstr("first"));
    gm_run_set_param(run, "n", gm_vint(7));
    cr_assert_eq(run->n_params, 1);
    cr_assert_eq(gm_run_param(run, "n")->value.kind, GM_V_INT);
    cr_assert_null(gm_run_param(run, "m"));
    gm_run_set_metric(run, "a", gm_vint(1), "x");
    gm_run_set_metric(run, "a", gm_vreal(2.5), "y");
    cr_assert_eq(run->n_metrics, 1);
    cr_assert_float_eq(gm_run_metric_num(run, "a"), 2.5, 0);
    cr_assert_str_eq(gm_run_metric(run, "a")->unit, "y");
    cr_assert(isnan(gm_run_metric_num(run, "b")));
    cr_assert_null(gm_prediction_metric(&run->prediction, "a"));
    char longer[1000];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    gm_run_add_note(run, "short %d", 1);
    gm_run_add_note(run, "%s|%d", longer, 42);
    cr_assert_eq(run->n_notes, 2);
    cr_assert_str_eq(run->notes[0], "short 1");
    cr_assert_eq(strlen(run->notes[1]), 999 + 3);
    cr_assert_str_eq(run->notes[1] + 999, "|42");
    gm_results_free(&r);
}

/* ---- queries ------------------------------------------------------------- */

Test(results_query, timing_summary_and_effective_bandwidth)
{
    gm_results r;
    gm_results_init(&r);
    gm_run *run = gm_results_add_run(&r);
    double s[] = {4.0, 1.0, 3.0, 2.0};
    gm_timing_set_samples(&run->timing, s, 4);
    cr_assert(run->timing.present);
    cr_assert_eq(run->timing.n, 4);
    cr_assert_float_eq(run->timing.samples[0], 4.0, 0, "samples stay in measurement order");
    cr_assert_float_eq(run->timing.min, 1.0, 0);
    cr_assert_float_eq(run->timing.max, 4.0, 0);
    cr_assert_float_eq(run->timing.median, 2.5, 1e-15);
    /* type 7: q1 at h = 3 * 0.25 = 0.75 -> 1 + 0.75 * (2 - 1) */
    cr_assert_float_eq(run->timing.q1, 1.75, 1e-15);
    cr_assert_float_eq(run->timing.q3, 3.25, 1e-15);

    cr_assert(isnan(gm_run_effective_gbs(run)), "bytes unknown -> NaN");
    run->bytes_read = gm_vint(1000000000);
    cr_assert(isnan(gm_run_effective_gbs(run)), "bytes_written unknown -> NaN");
    run->bytes_written = gm_vint(1000000000);
    /* 2e9 B / 2.5 ms = 8e11 B/s = 800 GB/s */
    cr_assert_float_eq(gm_run_effective_gbs(run), 800.0, 1e-9);
    gm_timing_set_samples(&run->timing, NULL, 0);
    cr_assert(isnan(run->timing.median));
    cr_assert(isnan(gm_run_effective_gbs(run)), "no samples -> NaN");
    run->timing.present = false;
    cr_assert(isnan(gm_run_effective_gbs(run)));
    gm_results_free(&r);
}

Test(results_query, names_and_lookups)
{
    cr_assert_str_eq(gm_check_status_name(GM_CHECK_PASSED), "passed");
    cr_assert_str_eq(gm_check_status_name(GM_CHECK_FAILED), "failed");
    cr_assert_str_eq(gm_check_status_name(GM_CHECK_NOT_RUN), "not-run");
    cr_assert_str_eq(gm_check_status_name(GM_CHECK_ERROR), "error");
    cr_assert_float_eq(gm_theoretical_dram_gbs(2619000, 5120), 3352.32, 1e-9);
    cr_assert(isnan(gm_theoretical_dram_gbs(0, 5120)));
    cr_assert(gm_value_present(&(gm_value){GM_V_INT, 0, 0, NULL}), "0 is a value");
    gm_value a = gm_vstr(NULL);
    cr_assert(!gm_value_present(&a));
    cr_assert(isnan(gm_value_num(&a)));
    gm_value s = gm_vstr("x");
    cr_assert(isnan(gm_value_num(&s)));
    free(s.s);

    gm_results r;
    build_full(&r);
    cr_assert_not_null(gm_results_experiment(&r, "coalescing"));
    cr_assert_null(gm_results_experiment(&r, "nope"));
    cr_assert_null(gm_results_experiment(&r, NULL));
    gm_results_free(&r);
}

/* ---- error paths --------------------------------------------------------- */

static void expect_file_error(const char *name, gm_status st, const char *n1, const char *n2)
{
    char *path = gmt_fixture(name);
    gm_results r;
    gm_error e = {0};
    gm_status got = gm_results_read_file(path, &r, &e);
    cr_assert_eq(got, st, "%s: status %s; message: %s", name, gm_status_name(got), e.message);
    gmt_assert_has(e.message, path);
    gmt_assert_has(e.message, n1);
    if (n2)
        gmt_assert_has(e.message, n2);
    cr_assert_eq(r.n_runs, 0);
    cr_assert_null(r.origin);
    free(path);
}

Test(results_errors, malformed_names_line_and_column)
{
    expect_file_error("handwritten-broken-malformed.json", GM_ERR_PARSE,
                      "handwritten-broken-malformed.json:5:16: ", "expected");
}

Test(results_errors, wrong_schema_version_says_found_and_expected)
{
    expect_file_error("handwritten-broken-version.json", GM_ERR_SCHEMA, "schema version 2",
                      "reads version 1");
}

Test(results_errors, wrong_schema_name_says_found_and_expected)
{
    expect_file_error("handwritten-broken-schema.json", GM_ERR_SCHEMA,
                      "schema is \"someone-else/results\"", "expected \"gpumem-report/results\"");
}

Test(results_errors, missing_field_names_path)
{
    expect_file_error("handwritten-broken-missing.json", GM_ERR_FIELD,
                      ": runs[1].variant: required field is missing", NULL);
}

Test(results_errors, mistyped_field_names_path_and_types)
{
    expect_file_error("handwritten-broken-mistyped.json", GM_ERR_FIELD,
                      ": runs[1].timing.samples[2]: expected a number, found a string", NULL);
}

Test(results_errors, sample_count_mismatch)
{
    expect_file_error("handwritten-broken-count.json", GM_ERR_VALUE, "runs[0].timing.samples: ",
                      "4 samples, but \"n\" says 5");
}

Test(results_errors, missing_file)
{
    gm_results r;
    gm_error e = {0};
    const char *p = "/nonexistent-gm-dir/results.json";
    cr_assert_eq(gm_results_read_file(p, &r, &e), GM_ERR_IO);
    gmt_assert_has(e.message, p);
    gmt_assert_has(e.message, strerror(ENOENT));
}

Test(results_errors, directory_is_unreadable)
{
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_file("/", &r, &e), GM_ERR_IO, "%s", e.message);
    gmt_assert_has(e.message, "/: a directory, not a results file");
}

Test(results_errors, empty_and_non_object)
{
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string("", "empty.json", &r, &e), GM_ERR_PARSE);
    gmt_assert_has(e.message, "empty.json: not a results file: it is empty");
    cr_assert_eq(gm_results_read_string("\"text\"", "str.json", &r, &e), GM_ERR_PARSE);
    gmt_assert_has(e.message, "str.json: not a results file: it begins with \"\"text\"\"");
    cr_assert_eq(gm_results_read_string("[1, 2]", "arr.json", &r, &e), GM_ERR_SCHEMA);
    gmt_assert_has(e.message, "the top level is an array");
    cr_assert_eq(gm_results_read_string("{\"a\": 1}", "obj.json", &r, &e), GM_ERR_SCHEMA);
    gmt_assert_has(e.message, "\"schema\" is missing");
    cr_assert_eq(gm_results_read_string("{\"schema\": \"gpumem-report/results\", "
                                        "\"schema_version\": \"1\"}",
                                        "v.json", &r, &e),
                 GM_ERR_SCHEMA);
    gmt_assert_has(e.message, "\"schema_version\" is a string, expected the integer 1");
    /* NULL err is allowed */
    cr_assert_eq(gm_results_read_string("{", "x", &r, NULL), GM_ERR_PARSE);
}

Test(results_errors, mutations_name_the_field)
{
    expect_error("\"sm_count\": 132", "\"sm_count\": 132.0", GM_ERR_FIELD,
                 "device.sm_count: expected an integer, found a real number");
    expect_error("\"sm_count\": 132", "\"sm_count\": 3000000000", GM_ERR_VALUE,
                 "device.sm_count: 3000000000 is out of range");
    expect_error("\"major\": 9", "\"major\": null", GM_ERR_FIELD,
                 "device.compute_capability.major: expected an integer, found null");
    expect_error("\"value\": 2097152", "\"value\": \"2097152\"", GM_ERR_FIELD,
                 "runs[0].metrics[\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\"].value: "
                 "expected a number or null, found a string");
    expect_error("\"status\": \"passed\"", "\"status\": \"pass\"", GM_ERR_VALUE,
                 "runs[0].check.status: unknown status \"pass\"");
    expect_error("\"cache_flush\": true", "\"cache_flush\": 1", GM_ERR_FIELD,
                 "collection.cache_flush: expected true or false, found an integer");
    expect_error("\"l2_flushed\": true,", "\"l2_flushed\": true, \"gated\": \"yes\",",
                 GM_ERR_FIELD, "runs[0].timing.gated: expected true or false, found a string");
    expect_error("\"dirty\": false", "\"dirty\": \"no\"", GM_ERR_FIELD,
                 "dirty: expected true, false or null, found a string");
    expect_error("\"block\": [256, 1, 1]", "\"block\": [256, 1]", GM_ERR_FIELD,
                 "runs[0].launch.block: expected 3 integers");
    expect_error("\"block\": [256, 1, 1]", "\"block\": [256, -1, 1]", GM_ERR_VALUE,
                 "runs[0].launch.block[1]: -1 is out of range");
    expect_error("\"experiment\": \"coalescing\"", "\"experiment\": \"nope\"", GM_ERR_VALUE,
                 "runs[0].experiment: \"nope\" is not the id of any entry");
    expect_error("\"runs\": [", "\"runs\": {\"a\": 1}, \"x\": [", GM_ERR_FIELD,
                 "runs: expected an array, found an object");
    expect_error("\"stride\": 1", "\"stride\": [1]", GM_ERR_FIELD,
                 "runs[0].params.stride: expected a number, a string or null, found an array");
    expect_error("\"taken_at\": \"2025-01-15T12:00:00Z\",", "", GM_ERR_FIELD,
                 "taken_at: required field is missing");
    expect_error("\"command\": [\n      \"gpumem-report\"", "\"command\": [\n      7", GM_ERR_FIELD,
                 "collection.command[0]: expected a string, found an integer");
    expect_error("\"block\": [256, 1, 1]", "\"block\": [256, 1, 1], \"theoretical_occupancy\": 120",
                 GM_ERR_VALUE, "runs[0].launch.theoretical_occupancy: 120 is out of range");
    expect_error("\"block\": [256, 1, 1]", "\"block\": [256, 1, 1], \"theoretical_occupancy\": 0",
                 GM_ERR_VALUE, "runs[0].launch.theoretical_occupancy: 0 is out of range");
    expect_error("\"block\": [256, 1, 1]",
                 "\"block\": [256, 1, 1], \"theoretical_occupancy\": \"full\"", GM_ERR_FIELD,
                 "runs[0].launch.theoretical_occupancy: expected a number");
    /* the path of a key that is not an identifier is quoted */
    expect_error("\"stride\": 1", "\"str\\nide\": [1]", GM_ERR_FIELD,
                 "runs[0].params[\"str?ide\"]");
}

Test(results_errors, duplicate_keys_are_a_parse_error)
{
    expect_error("\"sm_count\": 132", "\"sm_count\": 132, \"sm_count\": 133", GM_ERR_PARSE,
                 "mutant.json:");
}

Test(results_errors, duplicate_experiment_id)
{
    char *base = fixture_text("handwritten-minimal.json");
    /* duplicate the single experiment object */
    const char *start = strstr(base, "\"experiments\": [\n") + strlen("\"experiments\": [\n");
    const char *end = strstr(start, "\n  ],\n  \"runs\"");
    gm_buf b = GM_BUF_INIT;
    gm_buf_put(&b, base, (size_t)(end - base));
    gm_buf_puts(&b, ",\n");
    gm_buf_put(&b, start, (size_t)(end - start));
    gm_buf_puts(&b, end);
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string(b.data, "dup.json", &r, &e), GM_ERR_VALUE, "%s",
                 e.message);
    gmt_assert_has(e.message,
                   "experiments[1].id: \"coalescing\" is already the id of experiments[0]");
    gm_buf_free(&b);
    free(base);
}

Test(results_errors, unknown_keys_are_ignored)
{
    char *base = fixture_text("handwritten-minimal.json");
    char *t1 = replace1(base, "\"sm_count\": 132", "\"future_field\": {\"x\": [1]}, \"sm_count\": 132");
    char *t2 = replace1(t1, "\"notes\": []", "\"notes\": [], \"new_thing\": null");
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string(t2, "grown.json", &r, &e), GM_OK, "%s", e.message);
    char *j = gm_results_to_json(&r);
    cr_assert_str_eq(j, base, "unknown keys are dropped on rewrite");
    free(j);
    gm_results_free(&r);
    free(t1);
    free(t2);
    free(base);
}

/* ---- atomic write -------------------------------------------------------- */

Test(results_write, replaces_existing_file_and_leaves_no_temp)
{
    char *dir = gmt_tmpdir("test-results");
    gm_buf p = GM_BUF_INIT;
    gm_buf_printf(&p, "%s/results.json", dir);
    FILE *f = fopen(p.data, "w");
    fputs("old contents", f);
    fclose(f);

    gm_results r;
    build_full(&r);
    gm_error e = {0};
    mode_t old = umask(022);
    cr_assert_eq(gm_results_write_file(&r, p.data, &e), GM_OK, "%s", e.message);
    umask(old);
    char *text = gmt_text(p.data);
    char *j = gm_results_to_json(&r);
    cr_assert_str_eq(text, j);
    cr_assert_eq(gmt_count_entries(dir), 1, "only the results file, no temporary left");
    struct stat st;
    cr_assert_eq(stat(p.data, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0644, "mode %o", st.st_mode & 0777);
    gm_results b;
    cr_assert_eq(gm_results_read_file(p.data, &b, &e), GM_OK, "%s", e.message);
    cr_assert_eq(b.n_runs, r.n_runs);
    gm_results_free(&b);
    gm_results_free(&r);
    free(j);
    free(text);
    gm_buf_free(&p);
    gmt_rmrf(dir);
    free(dir);
}

Test(results_write, bare_file_name_in_current_directory)
{
    char *dir = gmt_tmpdir("test-results");
    char cwd[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(dir), 0);
    gm_results r;
    gm_results_init(&r);
    gm_error e = {0};
    cr_assert_eq(gm_results_write_file(&r, "plain.json", &e), GM_OK, "%s", e.message);
    cr_assert_eq(access("plain.json", F_OK), 0);
    cr_assert_eq(gmt_count_entries("."), 1);
    cr_assert_eq(chdir(cwd), 0);
    gm_results_free(&r);
    gmt_rmrf(dir);
    free(dir);
}

Test(results_write, missing_directory_fails_and_leaves_nothing)
{
    char *dir = gmt_tmpdir("test-results");
    gm_buf p = GM_BUF_INIT;
    gm_buf_printf(&p, "%s/no/such/dir/results.json", dir);
    gm_results r;
    build_full(&r);
    gm_error e = {0};
    cr_assert_eq(gm_results_write_file(&r, p.data, &e), GM_ERR_IO);
    gmt_assert_has(e.message, p.data);
    gmt_assert_has(e.message, strerror(ENOENT));
    cr_assert_eq(gmt_count_entries(dir), 0);
    gm_results_free(&r);
    gm_buf_free(&p);
    gmt_rmrf(dir);
    free(dir);
}

Test(results_write, rename_failure_removes_the_temporary)
{
    /* The target is a non-empty directory: refused before anything is
     * written, and the directory left alone. */
    char *dir = gmt_tmpdir("test-results");
    gm_buf p = GM_BUF_INIT;
    gm_buf_printf(&p, "%s/target", dir);
    cr_assert_eq(mkdir(p.data, 0755), 0);
    gm_buf inner = GM_BUF_INIT;
    gm_buf_printf(&inner, "%s/keep", p.data);
    FILE *f = fopen(inner.data, "w");
    fclose(f);
    gm_results r;
    build_full(&r);
    gm_error e = {0};
    cr_assert_eq(gm_results_write_file(&r, p.data, &e), GM_ERR_IO);
    gmt_assert_has(e.message, "is a directory");
    cr_assert_eq(gmt_count_entries(dir), 1, "only the directory, no temporary");
    cr_assert_eq(gmt_count_entries(p.data), 1);
    gm_results_free(&r);
    gm_buf_free(&p);
    gm_buf_free(&inner);
    gmt_rmrf(dir);
    free(dir);
}

/* ---- the documentation --------------------------------------------------- */

static char *doc_text(void)
{
    char *p = gmt_src("docs/results-format.md");
    char *t = gmt_text(p);
    free(p);
    return t;
}

Test(results_doc, example_is_valid_and_canonical)
{
    char *doc = doc_text();
    const char *head = "## A complete example";
    const char *at = strstr(doc, head);
    cr_assert_not_null(at);
    const char *start = strstr(at, "```json\n");
    cr_assert_not_null(start);
    start += strlen("```json\n");
    const char *end = strstr(start, "\n```");
    cr_assert_not_null(end);
    char *json = strndup(start, (size_t)(end - start) + 1); /* keep the newline */
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string(json, "docs example", &r, &e), GM_OK, "%s", e.message);
    char *j = gm_results_to_json(&r);
    cr_assert_str_eq(j, json, "the example must be in the writer's canonical form");
    free(j);
    gm_results_free(&r);
    free(json);
    free(doc);
}

Test(results_doc, every_written_key_is_documented)
{
    /* Each key the writer emits for a fully populated run appears in the
     * document's tables as `key`. */
    char *doc = doc_text();
    gm_results r;
    build_full(&r);
    r.runs[0].check.has_first_mismatch = true;
    char *j = gm_results_to_json(&r);
    for (const char *p = j; (p = strstr(p, "\": ")) != NULL; p += 3) {
        const char *q = p;
        while (q > j && q[-1] != '"')
            q--;
        char *name = strndup(q, (size_t)(p - q));
        gm_buf code = GM_BUF_INIT, quoted = GM_BUF_INIT;
        gm_buf_printf(&code, "`%s`", name);          /* a table row */
        gm_buf_printf(&quoted, "\"%s\":", name);    /* inside a documented object */
        /* metric names and this run's parameters are data, not format keys */
        bool data = strstr(name, "__") || !strcmp(name, "stride") || !strcmp(name, "dtype");
        if (!data && !strstr(doc, code.data) && !strstr(doc, quoted.data))
            cr_assert_fail("key \"%s\" is written but not documented", name);
        gm_buf_free(&code);
        gm_buf_free(&quoted);
        free(name);
    }
    free(j);
    gm_results_free(&r);
    free(doc);
}

/* "not_replayed" (a program's launch measured in part): written only when
 * set, read back as written; a file without it reads as before. */
Test(results_roundtrip, not_replayed_is_optional)
{
    gm_results r;
    gmt_load_fixture("inject-collective.json", &r);
    size_t marked = 0;
    for (size_t i = 0; i < r.n_runs; i++)
        marked += r.runs[i].not_replayed != NULL;
    cr_assert_eq(marked, 2);
    char *j = gm_results_to_json(&r);
    gm_results back;
    gm_error err;
    cr_assert_eq(gm_results_read_string(j, "back", &back, &err), GM_OK, "%s", err.message);
    for (size_t i = 0; i < r.n_runs; i++) {
        if (!r.runs[i].not_replayed)
            cr_assert_null(back.runs[i].not_replayed);
        else
            cr_assert_str_eq(back.runs[i].not_replayed, r.runs[i].not_replayed);
    }
    char *j2 = gm_results_to_json(&back);
    cr_assert_str_eq(j, j2, "byte-identical");
    free(j2);
    free(j);
    gm_results_free(&back);
    gm_results_free(&r);
    /* an older file: no key, none written */
    gmt_load_fixture("inject-launches.json", &r);
    for (size_t i = 0; i < r.n_runs; i++)
        cr_assert_null(r.runs[i].not_replayed);
    j = gm_results_to_json(&r);
    cr_assert_null(strstr(j, "not_replayed"));
    free(j);
    gm_results_free(&r);
    /* mistyped: named */
    char *path = gmt_fixture("inject-collective.json");
    char *doc = gmt_text(path);
    char *at = strstr(doc, "\"not_replayed\": \"");
    cr_assert_not_null(at);
    char *end = strchr(at + 17, '"');   /* the string's closing quote */
    cr_assert_not_null(end);
    memset(at + 16, ' ', (size_t)(end - at - 15));
    at[16] = '7';                       /* "not_replayed": 7      ... */
    gm_status st = gm_results_read_string(doc, "bad", &back, &err);
    cr_assert_neq(st, GM_OK);
    cr_assert(strstr(err.message, "not_replayed"), "%s", err.message);
    free(doc);
    free(path);
}

/* A launch's theoretical occupancy: written when known, read back the same,
 * absent (0, not written) in a file that lacks it. */
Test(results_roundtrip, theoretical_occupancy_is_optional)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    gm_run *run = NULL;
    for (size_t i = 0; i < r.n_runs && !run; i++)
        if (r.runs[i].has_launch)
            run = &r.runs[i];
    cr_assert_not_null(run);
    cr_assert_eq(run->launch.theoretical_occupancy, 0);
    char *j = gm_results_to_json(&r);
    cr_assert_null(strstr(j, "theoretical_occupancy"));
    free(j);
    run->launch.theoretical_occupancy = 62.5;
    j = gm_results_to_json(&r);
    cr_assert_not_null(strstr(j, "\"theoretical_occupancy\": 62.5"), "%s", j);
    gm_results back;
    gm_error err;
    cr_assert_eq(gm_results_read_string(j, "back", &back, &err), GM_OK, "%s", err.message);
    size_t k = (size_t)(run - r.runs);
    cr_assert_float_eq(back.runs[k].launch.theoretical_occupancy, 62.5, 1e-12);
    char *j2 = gm_results_to_json(&back);
    cr_assert_str_eq(j, j2, "byte-identical");
    free(j2);
    free(j);
    gm_results_free(&back);
    gm_results_free(&r);
}
