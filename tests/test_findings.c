/* test_findings.c — the findings and the explanations written from the numbers.
 *
 *   - golden text for the hand-written fixtures (tests/golden/findings-*.txt;
 *     GM_UPDATE_GOLDEN=1 rewrites them, then read the diff before committing);
 *   - a value changed in the results changes the sentence that quotes it;
 *   - each rule fires, and does not fire, on runs built here;
 *   - ranking, grouping, the Markdown list, hostile names.
 *
 * Fixtures and golden files are found under $GM_SRCDIR (default ".").
 */
#include "../reports/findings.h"

#include "../collectors/inject.h"
#include "../core/srclines.h"

#include "../core/buf.h"
#include "../core/catalog.h"
#include "../core/model.h"
#include "../core/results.h"
#include "helpers.h"

#include <criterion/criterion.h>

#include <cmark-gfm.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------------- */

/* Everything the module writes for a results file, as the golden files hold it. */
static char *S_everything(const gm_results *r, bool leads_only)
{
    gm_findings f;
    gm_findings_build(r, &f);
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "# findings (%zu%s)\n\n", f.n, leads_only ? ", one per layout and rule" : "");
    gm_findings_md(&f, NULL, 0, leads_only, &b);
    for (size_t i = 0; i < r->n_experiments; i++) {
        gm_buf_printf(&b, "# explanation %zu\n\n", i + 1);
        gm_error e = {0};
        cr_assert_eq(gm_explain_experiment(r, r->experiments[i].id, &b, &e), GM_OK, "%s",
                     e.message);
    }
    gm_findings_free(&f);
    gm_buf_puts(&b, "");
    return gm_buf_detach(&b);
}

static void S_golden(const char *fixture, const char *golden, bool leads_only)
{
    gm_results r;
    gmt_load_fixture(fixture, &r);
    char *got = S_everything(&r, leads_only);
    char *again = S_everything(&r, leads_only);
    cr_assert_str_eq(got, again, "not deterministic");
    gmt_golden(golden, got);
    free(got);
    free(again);
    gm_results_free(&r);
}

static const gm_finding *S_find(const gm_findings *f, gm_rule rule, const char *variant)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].rule == rule && (!variant || strcmp(f->v[i].variant, variant) == 0))
            return &f->v[i];
    return NULL;
}

static size_t S_count_rule(const gm_findings *f, gm_rule rule)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++)
        n += f->v[i].rule == rule;
    return n;
}

static char *S_explain(const gm_results *r, const char *id)
{
    gm_buf b = GM_BUF_INIT;
    gm_error e = {0};
    cr_assert_eq(gm_explain_experiment(r, id, &b, &e), GM_OK, "%s", e.message);
    gm_buf_puts(&b, "");
    return gm_buf_detach(&b);
}

/* ---- runs built here ---------------------------------------------------------
 *
 * A device like the fixtures' (copy bandwidth 2871.25 GB/s measured on 1 GiB),
 * one experiment "e" (bandwidth-bound unless said), and runs that each read
 * and write 256 MiB: at the copy bandwidth that is 0.187 ms. */

#define MIB (1024.0 * 1024.0)
#define N_BYTES (256 * 1024 * 1024LL)

static void S_results(gm_results *r, bool bandwidth_bound)
{
    gm_results_init(r);
    r->device.copy_bandwidth_gbs = gm_vreal(2871.25);
    r->device.copy_bandwidth_bytes = gm_vint(1LL << 30);
    r->device.global_memory_bytes = 85028896768LL;
    gm_experiment *e = gm_results_add_experiment(r);
    e->id = gm_xstrdup("e");
    e->title = gm_xstrdup("An experiment");
    e->bandwidth_bound = bandwidth_bound;
    e->sweep_param = gm_xstrdup("n");
}

/* A passed run with a median time of `ms`, params n and k. */
static gm_run *S_run(gm_results *r, const char *variant, long long n, double ms)
{
    gm_run *run = gm_results_add_run(r);
    run->experiment = gm_xstrdup("e");
    run->variant = gm_xstrdup(variant);
    gm_run_set_param(run, "n", gm_vint(n));
    run->bytes_read = gm_vint(N_BYTES);
    run->bytes_written = gm_vint(N_BYTES);
    double s[3] = {ms, ms, ms};
    gm_timing_set_samples(&run->timing, s, 3);
    run->timing.present = true;
    run->check.status = GM_CHECK_PASSED;
    run->check.checked = n;
    return run;
}

static void S_set(gm_run *run, const char *name, double v)
{
    const gm_metric_info *m = gm_catalog_find(name);
    gm_run_set_metric(run, name, v == floor(v) && fabs(v) < 9e15 ? gm_vint((long long)v) : gm_vreal(v),
                      m ? m->unit : "");
}

/* Global loads (store=false) or stores: requests, sectors per request and
 * efficiency, as ncu reports them. */
static void S_global(gm_run *run, bool store, double requests, double spr, double eff)
{
    S_set(run, store ? GM_M_ST_REQUESTS : GM_M_LD_REQUESTS, requests);
    S_set(run, store ? GM_M_ST_SECTORS : GM_M_LD_SECTORS, requests * spr);
    S_set(run, store ? GM_M_ST_SPR : GM_M_LD_SPR, spr);
    S_set(run, store ? GM_M_ST_EFF : GM_M_LD_EFF, eff);
}

/* DRAM bytes and % of peak */
static void S_dram(gm_run *run, double rd, double wr, double pct)
{
    S_set(run, GM_M_DRAM_RD, rd);
    S_set(run, GM_M_DRAM_WR, wr);
    S_set(run, GM_M_DRAM_PCT, pct);
}

/* A coalesced streaming run: 4 sectors per request, all used, DRAM moving
 * exactly what it must at `pct` % of peak. */
static void S_clean(gm_run *run, double pct)
{
    double req = (double)N_BYTES / 128.0;
    S_global(run, false, req, 4.0, 100.0);
    S_global(run, true, req, 4.0, 100.0);
    S_dram(run, (double)N_BYTES, (double)N_BYTES, pct);
}

static void S_predict(gm_run *run, const char *name, double v)
{
    gm_prediction *p = &run->prediction;
    p->present = true;
    if (!p->method)
        p->method = gm_xstrdup("address-trace");
    p->metrics = gm_xrealloc(p->metrics, (p->n_metrics + 1) * sizeof *p->metrics);
    gm_metric *m = &p->metrics[p->n_metrics++];
    m->name = gm_xstrdup(name);
    m->value = v == floor(v) ? gm_vint((long long)v) : gm_vreal(v);
    const gm_metric_info *info = gm_catalog_find(name);
    m->unit = gm_xstrdup(info ? info->unit : "");
}

/* ---- golden text -------------------------------------------------------------- */

Test(findings, golden_small) { S_golden("handwritten-small.json", "findings-small.txt", false); }
Test(findings, golden_large) { S_golden("handwritten-large.json", "findings-large.txt", true); }
Test(findings, golden_hostile) { S_golden("handwritten-hostile.json", "findings-hostile.txt", false); }

/* ---- a value changed in the results changes the sentence ------------------------ */

static gm_run *S_small_run(gm_results *r, const char *exp, const char *variant, const char *param,
                           long long value)
{
    for (size_t i = 0; i < r->n_runs; i++) {
        gm_run *run = &r->runs[i];
        const gm_param *p = gm_run_param(run, param);
        if (strcmp(run->experiment, exp) == 0 && strcmp(run->variant, variant) == 0 && p &&
            p->value.kind == GM_V_INT && p->value.i == value && run->check.status == GM_CHECK_PASSED)
            return run;
    }
    cr_assert_fail("no run %s/%s %s=%lld in the fixture", exp, variant, param, value);
    return NULL;
}

Test(findings, sectors_changed_in_results_change_the_text)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    gm_run *s32 = S_small_run(&r, "coalescing", "stride", "stride", 32);
    char *before = S_explain(&r, "coalescing");
    gmt_assert_has(before, "16,777,216 against 2,097,152");
    gmt_assert_has(before, "fetches 8.0× the global-load sectors");
    gmt_assert_has(before, "`stride` (stride=32): each warp load request touches 32.0 sectors "
                           "(1.00 KiB) for the 128 B");
    /* the model agrees with every figure described that it predicts; float4
     * has no prediction in this fixture */
    gmt_assert_has(before, "The address-trace model, replaying each warp's addresses, predicts the "
                           "same sectors per request for each run described that has a prediction "
                           "(none for `float4` (stride=1)).");

    /* 12 sectors per request instead of 32: 6,291,456 sectors, 3.0x float4's */
    S_set(s32, GM_M_LD_SECTORS, 6291456);
    S_set(s32, GM_M_LD_SPR, 12.0);
    S_set(s32, GM_M_LD_EFF, 100.0 * 4.0 / 12.0);
    char *after = S_explain(&r, "coalescing");
    gmt_assert_lacks(after, "16,777,216 against 2,097,152");
    gmt_assert_has(after,
                   "each warp load request touches 12.0 sectors (384 B), where the "
                   "address-trace model predicts 32.0, for the 128 B its threads ask for, so "
                   "33.3% of the fetched bytes are used");
    gmt_assert_has(after,
                   "Where no predicted figure is given, the address-trace model predicts the "
                   "sectors per request measured");

    gm_findings f;
    gm_findings_build(&r, &f);
    bool seen = false;
    for (size_t i = 0; i < f.n; i++)
        if (f.v[i].run == s32 && f.v[i].rule == GM_RULE_UNCOALESCED_LOAD) {
            /* the model still predicts 32 per request at 12.5 %: its ideal is 4 */
            gmt_assert_has(f.v[i].message,
                           "fetches 12.0 sectors per global load request where 4.0");
            gmt_assert_has(f.v[i].message, "4,194,304 excess sectors of 6,291,456");
            seen = true;
        }
    cr_assert(seen);
    gm_findings_free(&f);
    free(before);
    free(after);
    gm_results_free(&r);
}

Test(findings, time_changed_in_results_changes_the_text)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    char *before = S_explain(&r, "transpose");
    gmt_assert_has(before, "`tiled` the slowest (99.0 µs, 1.7× as long)");
    gm_run *t = S_small_run(&r, "transpose", "tiled", "n", 4096);
    double s[1] = {0.285};
    gm_timing_set_samples(&t->timing, s, 1);
    char *after = S_explain(&r, "transpose");
    gmt_assert_has(after, "`tiled` the slowest (285.0 µs, 5.0× as long)");
    gmt_assert_lacks(after, "99.0 µs");
    free(before);
    free(after);
    gm_results_free(&r);
}

Test(findings, copy_bandwidth_changed_changes_the_percentage)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    char *before = S_explain(&r, "coalescing");
    gmt_assert_has(before, "92.6% of the copy bandwidth measured on this device (2,871 GB/s)");
    r.device.copy_bandwidth_gbs = gm_vreal(2658.0 * 2);
    char *after = S_explain(&r, "coalescing");
    gmt_assert_has(after, "of the copy bandwidth measured on this device (5,316 GB/s)");
    gmt_assert_lacks(after, "92.6%");
    free(before);
    free(after);
    gm_results_free(&r);
}

Test(findings, absent_metric_drops_the_sentence_that_needs_it)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    for (size_t i = 0; i < r.n_runs; i++) {
        gm_run_set_metric(&r.runs[i], GM_M_DRAM_RD, gm_vabsent(), "byte");
        gm_run_set_metric(&r.runs[i], GM_M_DRAM_WR, gm_vabsent(), "byte");
        gm_run_set_metric(&r.runs[i], GM_M_DRAM_RATE, gm_vabsent(), "byte/second");
    }
    char *text = S_explain(&r, "coalescing");
    gmt_assert_lacks(text, "DRAM reads");
    gmt_assert_lacks(text, "DRAM moves");
    gmt_assert_has(text, "DRAM runs at 78.1% of peak; the median time is 50.5 µs");
    gmt_assert_lacks(text, "NaN");
    gmt_assert_lacks(text, "—");
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_eq(S_count_rule(&f, GM_RULE_DRAM_OVERFETCH), 0);
    for (size_t i = 0; i < f.n; i++) {
        if (f.v[i].rule != GM_RULE_VALIDATION)   /* there NaN is the kernel's output */
            gmt_assert_lacks(f.v[i].message, "NaN");
        gmt_assert_lacks(f.v[i].message, "—");
    }
    gm_findings_free(&f);
    free(text);
    gm_results_free(&r);
}

Test(findings, run_with_no_metrics_is_described_by_its_time_only)
{
    gm_results r;
    S_results(&r, true);
    S_run(&r, "a", 1, 0.25);
    char *text = S_explain(&r, "e");
    cr_assert_str_eq(text, "One passed run, reading 256 MiB and writing 256 MiB. `a`: the "
                           "median time is 250.0 µs, 2,147 GB/s of useful bytes.\n\n");
    free(text);
    gm_results_free(&r);
}

/* ---- each rule, firing and not ----------------------------------------------------- */

Test(findings, uncoalesced_load_fires_from_efficiency)
{
    gm_results r;
    S_results(&r, true);
    double req = (double)N_BYTES / 128.0;
    gm_run *a = S_run(&r, "coalesced", 1, 0.2);
    S_clean(a, 80);
    gm_run *b = S_run(&r, "strided", 1, 0.9);
    S_clean(b, 80);
    S_global(b, false, req, 32.0, 12.5);
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_eq(S_count_rule(&f, GM_RULE_UNCOALESCED_LOAD), 1);
    const gm_finding *x = S_find(&f, GM_RULE_UNCOALESCED_LOAD, "strided");
    cr_assert_not_null(x);
    cr_assert_eq(x->severity, GM_SEV_WARNING);
    /* 2,097,152 requests x 32 sectors; ideal 32 x 12.5 % = 4; excess 28 per
     * request = 58,720,256; unused = 67,108,864 x 32 B x 87.5 % = 1,879,048,192 B */
    cr_assert_str_eq(x->message,
                     "`strided` fetches 32.0 sectors per global load request where 4.0 would hold "
                     "the bytes its threads ask for (32.0 × its 12.5% efficiency): 58,720,256 "
                     "excess sectors of 67,108,864, and 1.75 GiB fetched that no thread uses. It "
                     "takes 900.0 µs, 4.5× the 200.0 µs of `coalesced`, the fastest run doing the "
                     "same work. Not moving the excess sectors would save about 654.4 µs (72.7% of "
                     "its time).");
    /* 900 µs x 58,720,256 / 67,108,864 sectors = 787.5 µs, capped by 1.75 GiB at the
     * copy bandwidth */
    cr_assert_float_eq(x->saved_ms, 58720256.0 * 32 / (gm_value_num(&r.device.copy_bandwidth_gbs) * 1e6), 1e-9);
    cr_assert_float_eq(x->cost, 67108864.0 * 32 * 0.875, 1e-3);
    cr_assert_float_eq(x->lost_ms, 0.7, 1e-9);
    cr_assert_str_eq(x->params, "");
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, uncoalesced_threshold)
{
    gm_results r;
    S_results(&r, true);
    double req = 1e6;
    /* 4.4 sectors where 4 would do: 9.1 % of the sectors in excess, under 10 % */
    gm_run *a = S_run(&r, "edge", 1, 0.2);
    S_global(a, false, req, 4.4, 100.0 * 4.0 / 4.4);
    /* 5 where 4 would do (a misaligned warp): 20 % */
    gm_run *b = S_run(&r, "misaligned", 2, 0.2);
    S_global(b, false, req, 5.0, 80.0);
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_null(S_find(&f, GM_RULE_UNCOALESCED_LOAD, "edge"));
    const gm_finding *x = S_find(&f, GM_RULE_UNCOALESCED_LOAD, "misaligned");
    cr_assert_not_null(x);
    gmt_assert_has(x->message, "5.0 sectors per global load request where 4.0 would hold");
    gmt_assert_has(x->message, "1,000,000 excess sectors of 5,000,000");
    cr_assert_str_eq(x->params, "n=2");
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, uncoalesced_ideal_from_the_prediction)
{
    gm_results r;
    S_results(&r, true);
    /* A warp of 8-byte loads, coalesced: 8 sectors per request, 100 %.  The
     * measurement says 8 at 50 % (say, half the lanes inactive in the
     * counter's view); the model knows the width: its ideal is 8, no excess. */
    gm_run *a = S_run(&r, "double", 1, 0.2);
    S_global(a, false, 1e6, 8.0, 50.0);
    S_predict(a, GM_M_LD_SECTORS, 8e6);
    S_predict(a, GM_M_LD_REQUESTS, 1e6);
    S_predict(a, GM_M_LD_EFF, 100.0);
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_eq(S_count_rule(&f, GM_RULE_UNCOALESCED_LOAD), 0);
    gm_findings_free(&f);

    /* The same measurement without the prediction: ideal 8 x 50 % = 4, fires. */
    gm_trace_prediction_clear(&a->prediction);
    gm_findings_build(&r, &f);
    const gm_finding *x = S_find(&f, GM_RULE_UNCOALESCED_LOAD, "double");
    cr_assert_not_null(x);
    gmt_assert_has(x->message, "(8.0 × its 50.0% efficiency)");
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, uncoalesced_store)
{
    gm_results r;
    S_results(&r, true);
    gm_run *a = S_run(&r, "scatter", 1, 0.2);
    S_global(a, true, 1000, 32.0, 12.5);
    S_global(a, false, 1000, 4.0, 100.0);
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_eq(S_count_rule(&f, GM_RULE_UNCOALESCED_LOAD), 0);
    const gm_finding *x = S_find(&f, GM_RULE_UNCOALESCED_STORE, "scatter");
    cr_assert_not_null(x);
    cr_assert_str_eq(x->message,
                     "`scatter` writes to 32.0 sectors per global store request where 4.0 would "
                     "hold the bytes its threads write (32.0 × its 12.5% efficiency): 28,000 "
                     "excess sectors of 32,000, and 875 KiB of sector bytes that no thread "
                     "wrote. Not moving the excess sectors would save about 312.1 ns (0.2% of its "
                     "time).");
    cr_assert_eq(x->severity, GM_SEV_INFO);
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, bank_conflicts_from_the_conflict_counter)
{
    gm_results r;
    S_results(&r, false);
    gm_run *a = S_run(&r, "padded", 1, 0.1);
    S_set(a, GM_M_SH_LD_INST, 1000);
    S_set(a, GM_M_SH_LD_WAVES, 1001);   /* the counter's small excess on conflict-free code */
    S_set(a, GM_M_SH_LD_CONFL, 1);
    gm_run *b = S_run(&r, "unpadded", 1, 0.4);
    /* `padded` moves its 512 MiB at 5,369 GB/s, above the copy bandwidth: the
     * best measured, it is the ceiling that caps the saving */
    S_set(b, GM_M_SH_LD_INST, 1000);
    S_set(b, GM_M_SH_LD_WAVES, 32000);
    S_set(b, GM_M_SH_LD_CONFL, 31000);
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_null(S_find(&f, GM_RULE_BANK_CONFLICT_LOAD, "padded"));
    const gm_finding *x = S_find(&f, GM_RULE_BANK_CONFLICT_LOAD, "unpadded");
    cr_assert_not_null(x);
    cr_assert_str_eq(x->message,
                     "`unpadded` needs 32.00 wavefronts per shared load instruction where 1.00 is "
                     "ideal (wavefronts less the measured bank conflicts): a 32-way bank conflict, "
                     "31,000 excess wavefronts over 1,000 instructions, each served after the "
                     "other. It takes 400.0 µs, 4.0× the 100.0 µs of `padded`, the fastest run "
                     "doing the same work. Not moving the excess wavefronts would save about "
                     "739.1 ns (0.2% of its time).");
    /* 31,000 x 128 B at the 2,871 GB/s copy bandwidth: 1.4 µs, under 1 % of 400 µs */
    cr_assert_eq(x->severity, GM_SEV_INFO, "a saving under the floor is information");
    cr_assert_float_eq(x->cost, 31000.0 * 128, 1e-6);
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, bank_conflicts_ideal_from_prediction_or_assumed)
{
    gm_results r;
    S_results(&r, false);
    /* float4 shared loads: 4 wavefronts per instruction is their ideal */
    gm_run *a = S_run(&r, "vec4", 1, 0.1);
    S_set(a, GM_M_SH_LD_INST, 1000);
    S_set(a, GM_M_SH_LD_WAVES, 4000);
    S_predict(a, GM_M_SH_LD_INST, 1000);
    S_predict(a, GM_M_SH_LD_WAVES, 4000);
    S_predict(a, GM_M_SH_LD_CONFL, 0);
    /* a 32-way conflict the model predicts too: its ideal is its wavefronts
     * less its conflicts (1 per instruction), not its wavefronts (32) */
    gm_run *c = S_run(&r, "column", 3, 0.1);
    S_set(c, GM_M_SH_LD_INST, 1000);
    S_set(c, GM_M_SH_LD_WAVES, 32000);
    S_predict(c, GM_M_SH_LD_INST, 1000);
    S_predict(c, GM_M_SH_LD_WAVES, 32000);
    S_predict(c, GM_M_SH_LD_CONFL, 31000);
    /* the same counts with neither a prediction nor a conflict counter: the
     * 4-byte ideal of 1 is assumed, and said */
    gm_run *b = S_run(&r, "unknown", 2, 0.1);
    S_set(b, GM_M_SH_LD_INST, 1000);
    S_set(b, GM_M_SH_LD_WAVES, 8000);
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_null(S_find(&f, GM_RULE_BANK_CONFLICT_LOAD, "vec4"));
    const gm_finding *x = S_find(&f, GM_RULE_BANK_CONFLICT_LOAD, "column");
    cr_assert_not_null(x, "a conflict the model predicts is still a conflict");
    gmt_assert_has(x->message,
                   "32.00 wavefronts per shared load instruction where 1.00 is ideal (the "
                   "address-trace model's figure): a 32-way bank conflict");
    x = S_find(&f, GM_RULE_BANK_CONFLICT_LOAD, "unknown");
    cr_assert_not_null(x);
    gmt_assert_has(x->message,
                   "8.00 wavefronts per shared load instruction where 1.00 is ideal for "
                   "4-byte accesses (no conflict counter or prediction was recorded): an "
                   "8-way bank conflict, 7,000 excess wavefronts");
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, bank_conflict_fractional_ways_and_stores)
{
    gm_results r;
    S_results(&r, false);
    gm_run *a = S_run(&r, "mixed", 1, 0.1);
    S_set(a, GM_M_SH_ST_INST, 1000);
    S_set(a, GM_M_SH_ST_WAVES, 2400);
    S_set(a, GM_M_SH_ST_CONFL, 1400);
    gm_findings f;
    gm_findings_build(&r, &f);
    const gm_finding *x = S_find(&f, GM_RULE_BANK_CONFLICT_STORE, "mixed");
    cr_assert_not_null(x);
    gmt_assert_has(x->message, "2.40 wavefronts per shared store instruction");
    gmt_assert_has(x->message, "on average a 2.4-way bank conflict");
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, dram_overfetch)
{
    gm_results r;
    S_results(&r, true);
    gm_run *a = S_run(&r, "twice", 1, 0.5);
    S_dram(a, 8.0 * N_BYTES, 1.0 * N_BYTES, 80.0);
    gm_run *b = S_run(&r, "near", 2, 0.5);
    S_dram(b, 1.2 * N_BYTES, 1.0 * N_BYTES, 80.0);
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_null(S_find(&f, GM_RULE_DRAM_OVERFETCH, "near"));
    const gm_finding *x = S_find(&f, GM_RULE_DRAM_OVERFETCH, "twice");
    cr_assert_not_null(x);
    cr_assert_str_eq(x->message, "`twice` (n=1) makes DRAM read 2.00 GiB, 8.0× the 256 MiB it "
                                 "must read, with DRAM moving 4,832 GB/s (100.0% of the copy "
                                 "bandwidth): 1.75 GiB more than the computation needs. Not moving the excess bytes would save "
                                 "about 388.9 µs (77.8% of its time).");
    /* 500 µs x 1.75 / 2.25 GiB */
    cr_assert_float_eq(x->saved_ms, 0.5 * 7.0 / 9.0, 1e-9);
    cr_assert_eq(x->severity, GM_SEV_WARNING);
    cr_assert_float_eq(x->cost, 7.0 * N_BYTES, 1e-3);
    gm_findings_free(&f);
    gm_results_free(&r);
}

/* ELLPACK's case (issue 28): coalesced loads that ask for six times the bytes
 * the computation needs, each read from DRAM once, are padding, and the
 * saving is what the layout without it measures at the same size. */
Test(findings, dram_overfetch_by_padding)
{
    gm_results r;
    S_results(&r, true);
    gm_run *lean = S_run(&r, "lean", 1, 0.4);
    S_clean(lean, 80);
    gm_run *padded = S_run(&r, "padded", 1, 1.0);
    /* 6 x the bytes asked for, in requests of 4.4 sectors where 4.0 would do */
    S_global(padded, false, 6.0 * N_BYTES / 128.0, 4.4, 100.0 / 1.1);
    S_global(padded, true, (double)N_BYTES / 128.0, 4.0, 100.0);
    S_dram(padded, 6.5 * N_BYTES, 1.0 * N_BYTES, 80.0);
    padded->layout = gm_xstrdup("every row padded to the longest");
    gm_findings f;
    gm_findings_build(&r, &f);
    const gm_finding *x = S_find(&f, GM_RULE_DRAM_OVERFETCH, "padded");
    cr_assert_not_null(x);
    gmt_assert_has(x->message, "`padded` makes DRAM read 1.63 GiB, 6.5× the 256 MiB it must read");
    gmt_assert_has(x->message, ": 1.38 GiB more than the computation needs, most of it padding");
    gmt_assert_has(x->message, "They ask for 1.50 GiB, 6.0× what it must read, in requests of "
                               "4.4 sectors where 4.0 would hold them");
    gmt_assert_has(x->message, "Not moving the excess bytes is what `lean` does with the same "
                               "work: DRAM reads 256 MiB there, and it takes 400.0 µs against "
                               "this run's 1.00 ms, 600.0 µs less (60.0% of its time).");
    gmt_assert_lacks(x->message, "would save about");
    gmt_assert_lacks(x->message, "whole sectors travel");
    gmt_assert_has(x->fix, "without the padding");
    cr_assert_float_eq(x->saved_ms, 0.6, 1e-9);
    cr_assert_eq(x->severity, GM_SEV_WARNING);
    gm_findings_free(&f);
    /* a layout that does not say it pads: padding, or data read again */
    free(padded->layout);
    padded->layout = gm_xstrdup("no padding");
    gm_findings_build(&r, &f);
    x = S_find(&f, GM_RULE_DRAM_OVERFETCH, "padded");
    gmt_assert_has(x->message, "most of it bytes its threads load themselves: padding the layout "
                               "stores, or data read from DRAM more than once.");
    gmt_assert_has(x->message, "Not moving the excess bytes is what `lean` does");
    gmt_assert_has(x->fix, "read each input from DRAM once");
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, l2_absorbs_a_misalignment)
{
    gm_results r;
    S_results(&r, true);
    double req = (double)N_BYTES / 128.0;
    gm_run *a = S_run(&r, "aligned", 1, 0.200);
    S_clean(a, 80);
    /* 5 sectors per request, but DRAM reads 1 % more than it must */
    gm_run *b = S_run(&r, "offset", 1, 0.204);
    S_clean(b, 80);
    S_global(b, false, req, 5.0, 80.0);
    S_set(b, GM_M_DRAM_RD, 1.01 * N_BYTES);
    /* the same sectors with DRAM reading 25 % more: not absorbed */
    gm_run *c = S_run(&r, "offset_cold", 1, 0.25);
    S_clean(c, 80);
    S_global(c, false, req, 5.0, 80.0);
    S_set(c, GM_M_DRAM_RD, 1.25 * N_BYTES);
    gm_findings f;
    gm_findings_build(&r, &f);
    const gm_finding *x = S_find(&f, GM_RULE_L2_ABSORBS, "offset");
    cr_assert_not_null(x);
    cr_assert_eq(x->severity, GM_SEV_INFO);
    cr_assert_str_eq(x->message,
                     "`offset` fetches 320 MiB in global-load sectors (5.0 per request where 4.0 "
                     "would do) for the 256 MiB it must read, yet DRAM reads only 259 MiB "
                     "(1.0×): the extra sectors are found in the caches, so they cost tag lookups "
                     "and L1–L2 transfers, not DRAM bytes. It takes 1.0× the time of `aligned`, "
                     "the fastest run doing the same work (204.0 µs against 200.0 µs): little or "
                     "no time is lost.");
    cr_assert_null(S_find(&f, GM_RULE_L2_ABSORBS, "offset_cold"));
    cr_assert_null(S_find(&f, GM_RULE_L2_ABSORBS, "aligned"));
    /* the sectors are still in excess: uncoalesced fires on both */
    cr_assert_not_null(S_find(&f, GM_RULE_UNCOALESCED_LOAD, "offset"));
    cr_assert_not_null(S_find(&f, GM_RULE_UNCOALESCED_LOAD, "offset_cold"));
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, dram_underused_only_where_bandwidth_is_the_point)
{
    for (int bw = 0; bw < 2; bw++) {
        gm_results r;
        S_results(&r, bw);
        double req = (double)N_BYTES / 128.0;
        /* 512 MiB in 0.5 ms = 1,074 GB/s, 37 % of the copy bandwidth, DRAM 40 %
         * busy, loads fetching 8 sectors where 4 would do */
        gm_run *a = S_run(&r, "slow", 1, 0.5);
        S_clean(a, 40);
        S_global(a, false, req, 8.0, 50.0);
        S_set(a, GM_M_DRAM_RD, (double)N_BYTES);
        /* the same, DRAM 70 % busy: DRAM is the limit, no finding */
        gm_run *b = S_run(&r, "busy", 2, 0.5);
        S_clean(b, 70);
        gm_findings f;
        gm_findings_build(&r, &f);
        cr_assert_null(S_find(&f, GM_RULE_DRAM_UNDERUSED, "busy"));
        const gm_finding *x = S_find(&f, GM_RULE_DRAM_UNDERUSED, "slow");
        if (!bw) {
            cr_assert_null(x);
        } else {
            cr_assert_not_null(x);
            cr_assert_eq(x->severity, GM_SEV_WARNING);
            cr_assert_str_eq(x->message,
                             "`slow` (n=1) moves the 512 MiB it must read and write at 1,074 "
                             "GB/s, 37.4% of the copy bandwidth measured on this device (2,871 "
                             "GB/s), while DRAM runs at 40.0% of its peak: DRAM is not what limits "
                             "it. Its global loads fetch 8.0 sectors per request where 4.0 would "
                             "do, so the load path moves 2.0× the sectors it needs.");
            /* forgone: 2871.25e9 B/s x 0.5e-3 s - 536,870,912 B */
            cr_assert_float_eq(x->cost, 2871.25e6 * 0.5 - 2.0 * N_BYTES, 1.0);
        }
        gm_findings_free(&f);
        gm_results_free(&r);
    }
}

Test(findings, not_memory_bound)
{
    for (int bw = 0; bw < 2; bw++) {
        gm_results r;
        S_results(&r, bw);
        gm_run *a = S_run(&r, "compute", 1, 2.0);   /* 10.7x the 0.187 ms at copy bandwidth */
        S_clean(a, 10);
        S_set(a, GM_M_L2_HIT, 20.0);
        a->flops = gm_vint(4000000000LL);
        gm_findings f;
        gm_findings_build(&r, &f);
        const gm_finding *x = S_find(&f, GM_RULE_NOT_MEMORY_BOUND, "compute");
        cr_assert_not_null(x);
        cr_assert_eq(x->severity, bw ? GM_SEV_WARNING : GM_SEV_INFO);
        cr_assert_str_eq(x->message,
                         "`compute` is limited by something other than memory: DRAM runs at 10.0% "
                         "of its peak, its global loads fetch 4.0 sectors per request against an "
                         "ideal of 4.0, yet it takes 2.00 ms, 10.7× the 187.0 µs its 512 MiB "
                         "would take at the copy bandwidth (2,871 GB/s). It performs 4.0 GFLOP at "
                         "2.0 TFLOP/s. The time goes to arithmetic, latency or synchronisation "
                         "rather than to moving bytes.");
        /* it does not also fire as under-used DRAM */
        cr_assert_eq(S_count_rule(&f, GM_RULE_DRAM_UNDERUSED), 0);
        gm_findings_free(&f);
        gm_results_free(&r);
    }
}

Test(findings, not_memory_bound_needs_clean_access_and_idle_dram)
{
    gm_results r;
    S_results(&r, true);
    double req = (double)N_BYTES / 128.0;
    gm_run *a = S_run(&r, "strided", 1, 2.0);
    S_clean(a, 10);
    S_global(a, false, req, 32.0, 12.5);
    gm_run *b = S_run(&r, "busy", 2, 2.0);
    S_clean(b, 35);
    gm_run *c = S_run(&r, "fast", 3, 0.25);   /* 2,147 GB/s: 75 % of the copy bandwidth */
    S_clean(c, 10);
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_eq(S_count_rule(&f, GM_RULE_NOT_MEMORY_BOUND), 0);
    /* the strided one is reported as under-used DRAM with its sectors */
    cr_assert_not_null(S_find(&f, GM_RULE_DRAM_UNDERUSED, "strided"));
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, small_kernel_is_said_to_be_small)
{
    gm_results r;
    S_results(&r, true);
    gm_run *a = S_run(&r, "tiny", 1, 0.005);
    a->bytes_read = gm_vint(1 << 20);
    a->bytes_written = gm_vint(1 << 20);
    S_set(a, GM_M_DRAM_PCT, 12.0);
    gm_findings f;
    gm_findings_build(&r, &f);
    const gm_finding *x = S_find(&f, GM_RULE_NOT_MEMORY_BOUND, "tiny");
    cr_assert_not_null(x);
    cr_assert_eq(x->severity, GM_SEV_INFO, "size explains it: info, not a warning");
    gmt_assert_has(x->message, "It moves only 2.00 MiB in 5.0 µs, where the copy bandwidth was "
                               "measured moving 1.00 GiB");
    gm_findings_free(&f);
    gm_results_free(&r);
}

/* The model's own note, from a real trace: ties the parser to its wording. */
static void S_constant_trace(gm_run *run, int distinct)
{
    gm_trace *t = gm_trace_new();
    uint64_t addr[32];
    for (int w = 0; w < 10; w++) {
        for (int i = 0; i < 32; i++)
            addr[i] = 4 * (uint64_t)(i % distinct);
        cr_assert_eq(gm_trace_access(t, GM_SPACE_CONSTANT, GM_OP_LOAD, 4, addr, 0xffffffffu),
                     GM_OK);
    }
    cr_assert_eq(gm_trace_set_sampling(t, 10, 10), GM_OK);
    gm_error e = {0};
    cr_assert_eq(gm_trace_predict(t, &run->prediction, &e), GM_OK, "%s", e.message);
    gm_trace_free(t);
}

Test(findings, constant_serialisation_from_the_model)
{
    gm_results r;
    S_results(&r, false);
    gm_run *a = S_run(&r, "broadcast", 1, 0.1);
    S_constant_trace(a, 1);
    gm_run *b = S_run(&r, "per_lane", 1, 0.8);
    S_constant_trace(b, 8);
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_null(S_find(&f, GM_RULE_CONSTANT_SERIAL, "broadcast"));
    const gm_finding *x = S_find(&f, GM_RULE_CONSTANT_SERIAL, "per_lane");
    cr_assert_not_null(x, "the model's note was not recognised");
    cr_assert_str_eq(x->message,
                     "`per_lane` reads constant memory at 8.00 distinct addresses per warp load "
                     "on average, so the constant cache serves each load in 8.00 passes where one "
                     "broadcast would do. No hardware counter measures this: the figure is the "
                     "address-trace model's, from 10 traced warp loads. It takes 800.0 µs, 8.0× "
                     "the 100.0 µs of `broadcast`, the fastest run doing the same work.");
    cr_assert_float_eq(x->cost, 7.0 * 10 * 128, 1e-9);
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, model_mismatch)
{
    gm_results r;
    S_results(&r, true);
    gm_run *a = S_run(&r, "off", 1, 0.2);
    S_global(a, false, 1000, 5.0, 80.0);
    S_predict(a, GM_M_LD_SECTORS, 4000);   /* measured 5,000: +25 % */
    S_predict(a, GM_M_LD_REQUESTS, 1000);  /* equal */
    gm_run *b = S_run(&r, "close", 2, 0.2);
    S_global(b, false, 1000, 4.0, 100.0);
    S_predict(b, GM_M_LD_SECTORS, 3930);   /* measured 4,000: +1.8 %, within 2 % */
    gm_run *c = S_run(&r, "sampled", 3, 0.2);
    S_global(c, false, 1000, 4.0, 100.0);
    S_predict(c, GM_M_LD_SECTORS, 3850);   /* +3.9 %: beyond 2 %, within 5 % when sampled */
    c->prediction.scaled = true;
    c->prediction.warps_traced = 100;
    c->prediction.warps_total = 1000;
    gm_run *d = S_run(&r, "unsampled", 4, 0.2);
    S_global(d, false, 1000, 4.0, 100.0);
    S_predict(d, GM_M_LD_SECTORS, 3850);
    gm_findings f;
    gm_findings_build(&r, &f);
    const gm_finding *x = S_find(&f, GM_RULE_MODEL_MISMATCH, "off");
    cr_assert_not_null(x);
    cr_assert_str_eq(x->message,
                     "`off` (n=1): the counters and the address-trace model differ by more than "
                     "2.0%: ld sectors 5,000 measured against 4,000 predicted (+25.0%). Either the "
                     "kernel does not access memory as its trace says, or the hardware counts "
                     "something the model leaves out.");
    cr_assert_float_eq(x->cost, 1000.0 * 32, 1e-9);
    cr_assert_null(S_find(&f, GM_RULE_MODEL_MISMATCH, "close"));
    cr_assert_null(S_find(&f, GM_RULE_MODEL_MISMATCH, "sampled"));
    cr_assert_not_null(S_find(&f, GM_RULE_MODEL_MISMATCH, "unsampled"));
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, validation_failure_is_a_problem_and_nothing_else)
{
    gm_results r;
    S_results(&r, true);
    double req = (double)N_BYTES / 128.0;
    gm_run *ok = S_run(&r, "ok", 1, 0.5);
    S_clean(ok, 80);
    S_global(ok, false, req, 32.0, 12.5);   /* a large warning cost */
    /* a failed run that is "faster" and has awful counters */
    gm_run *bad = S_run(&r, "wrong", 1, 0.01);
    S_clean(bad, 10);
    S_global(bad, false, req, 32.0, 12.5);
    bad->check.status = GM_CHECK_FAILED;
    bad->check.checked = 100;
    bad->check.mismatches = 3;
    bad->check.has_first_mismatch = true;
    bad->check.first_index = 97;
    bad->check.first_value = NAN;
    bad->check.first_expected = 0.5;
    gm_run *err = S_run(&r, "crashed", 1, 0.01);
    err->check.status = GM_CHECK_ERROR;
    err->check.reason = gm_xstrdup("cudaErrorIllegalAddress: an illegal memory access.");
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_geq(f.n, 3);
    cr_assert_eq(f.v[0].severity, GM_SEV_PROBLEM);
    cr_assert_eq(f.v[1].severity, GM_SEV_PROBLEM);
    cr_assert_eq(f.v[0].rule, GM_RULE_VALIDATION);
    /* (run pointers from gm_results_add_run move with the next add: use indices) */
    cr_assert_eq(f.v[0].run_index, 1, "problems tie at cost 0: file order");
    cr_assert_str_eq(f.v[0].message,
                     "`wrong` failed its check against the CPU reference: 3 of 100 elements "
                     "differ, the first at index 97 (NaN where 0.5 was expected). Its time and "
                     "counters are left out of every comparison and finding.");
    cr_assert_str_eq(f.v[1].message, "`crashed` stopped with an error: cudaErrorIllegalAddress: "
                                     "an illegal memory access. No time or counter of it is used.");
    for (size_t i = 2; i < f.n; i++) {
        cr_assert_eq(f.v[i].run_index, 0, "only the passed run gets other findings");
        gmt_assert_lacks(f.v[i].message, "`wrong`"); /* never the fastest peer */
    }
    char *text = S_explain(&r, "e");
    /* the failed and the errored run are counted out, never described */
    gmt_assert_has(text, "The 2 runs that failed their check or stopped with an error are left out "
                         "of all of this.");
    gmt_assert_lacks(text, "`wrong`");
    gmt_assert_lacks(text, "`crashed`");
    gmt_assert_lacks(text, "10.0 µs");
    free(text);
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, not_run_info_or_warning)
{
    gm_results r;
    S_results(&r, true);
    S_run(&r, "a", 1024, 0.1);
    S_run(&r, "b", 1024, 0.1);
    S_run(&r, "b", 2048, 0.2);
    gm_run *x1 = S_run(&r, "a", 2048, 0.2);   /* b ran at n=2048: should have fitted */
    x1->check.status = GM_CHECK_NOT_RUN;
    x1->check.reason = gm_xstrdup("not enough shared memory.");
    gm_run *x2 = S_run(&r, "a", 1LL << 40, 0.2);   /* nothing ran there */
    x2->bytes_read = gm_vint(1LL << 40);
    x2->bytes_written = gm_vint(1LL << 40);
    x2->check.status = GM_CHECK_NOT_RUN;
    x2->check.reason = gm_xstrdup("needs 2.2 TB");
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_eq(S_count_rule(&f, GM_RULE_NOT_RUN), 2);
    const gm_finding *w = NULL, *i = NULL;
    for (size_t k = 0; k < f.n; k++) {
        if (f.v[k].run_index == 3)   /* x1 */
            w = &f.v[k];
        if (f.v[k].run_index == 4)   /* x2 */
            i = &f.v[k];
    }
    cr_assert(w && i);
    cr_assert_eq(w->severity, GM_SEV_WARNING);
    cr_assert_str_eq(w->message, "`a` (n=2048) did not run: not enough shared memory. With the "
                                 "same parameters, `b` ran. The largest `n` at which `a` ran is "
                                 "1024.");
    cr_assert_eq(i->severity, GM_SEV_INFO);
    cr_assert_str_eq(i->message, "`a` (n=1099511627776) did not run: needs 2.2 TB. Its inputs "
                                 "and outputs alone take 2.00 TiB, more than the 79.2 GiB of device "
                                 "memory. The largest `n` at which `a` ran is 1024.");
    gm_findings_free(&f);
    gm_results_free(&r);
}

/* ---- ranking, groups, lists ---------------------------------------------------------- */

Test(findings, ranked_by_severity_then_cost)
{
    gm_results r;
    S_results(&r, true);
    double req = (double)N_BYTES / 128.0;
    gm_run *a = S_run(&r, "a", 1, 0.3);
    S_global(a, false, req, 8.0, 50.0);
    gm_run *b = S_run(&r, "b", 1, 0.9);
    S_global(b, false, req, 32.0, 12.5);
    gm_run *c = S_run(&r, "c", 1, 0.2);
    S_global(c, false, req, 5.0, 80.0);
    S_set(c, GM_M_DRAM_RD, (double)N_BYTES);   /* l2-absorbs: info */
    gm_findings f;
    gm_findings_build(&r, &f);
    for (size_t i = 1; i < f.n; i++) {
        cr_assert_geq(f.v[i - 1].severity, f.v[i].severity);
        if (f.v[i - 1].severity == f.v[i].severity)
            cr_assert_geq(f.v[i - 1].cost, f.v[i].cost);
    }
    cr_assert_eq(f.v[0].run, &r.runs[1], "b, the costliest");
    cr_assert_eq(f.v[f.n - 1].rule, GM_RULE_L2_ABSORBS);
    gm_findings_free(&f);
    gm_results_free(&r);
}

Test(findings, leads_and_the_markdown_list)
{
    gm_results r;
    S_results(&r, true);
    double req = 1e6;
    for (int k = 0; k < 3; k++) {
        gm_run *x = S_run(&r, "strided", 1 << k, 0.2);
        S_global(x, false, req * (k + 1), 32.0, 12.5);
    }
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_eq(f.n, 3);
    cr_assert(f.v[0].lead);
    cr_assert(!f.v[1].lead && !f.v[2].lead);
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(f.v[i].similar, 3);
    cr_assert_str_eq(f.v[0].params, "n=4", "the costliest first");
    gm_buf b = GM_BUF_INIT;
    gm_findings_md(&f, "e", 0, true, &b);
    cr_assert_str_eq(b.data, "- **Warning** (uncoalesced-load): `strided` (n=4) fetches 32.0 "
                             "sectors per global load request where 4.0 would hold the bytes its "
                             "threads ask for (32.0 × its 12.5% efficiency): 84,000,000 excess "
                             "sectors of 96,000,000, and 2.50 GiB fetched that no thread uses. Not "
                             "moving the excess sectors would save about 175.0 µs (87.5% of its "
                             "time). The same rule fires on 2 more runs of `strided`. What to "
                             "change: make consecutive threads read consecutive addresses "
                             "(`threadIdx.x` on the fastest-varying index), or read through a "
                             "shared-memory tile where the pattern is a transpose.\n\n");
    gm_buf_free(&b);
    gm_findings_md(&f, NULL, 2, false, &b);
    static const char head[] = "- **Warning** (uncoalesced-load): in `e`, `strided` (n=4)";
    cr_assert_eq(strncmp(b.data, head, strlen(head)), 0, "%s", b.data);
    size_t items = 0;
    for (const char *s = b.data; (s = strstr(s, "\n- ")) != NULL; s++)
        items++;
    cr_assert_eq(items + 1, 2, "max = 2");
    gm_buf_free(&b);
    gm_findings_md(&f, "other", 0, false, &b);
    cr_assert_eq(b.len, 0, "nothing at all when nothing is selected");
    gm_buf_free(&b);

    gm_finding_list l = gm_findings_for_experiment(&f, "e");
    cr_assert_eq(l.n, 3);
    cr_assert_eq(l.v[0], &f.v[0]);
    free(l.v);
    l = gm_findings_for_experiment(&f, "nope");
    cr_assert_eq(l.n, 0);
    free(l.v);
    gm_findings_free(&f);
    cr_assert_eq(f.n, 0);
    gm_findings_free(&f);   /* twice is fine */
    gm_results_free(&r);
}

Test(findings, explain_unknown_and_empty_experiments)
{
    gm_results r;
    S_results(&r, true);
    gm_buf b = GM_BUF_INIT;
    gm_error e = {0};
    cr_assert_eq(gm_explain_experiment(&r, "e", &b, &e), GM_OK, "listed, no runs");
    cr_assert_eq(b.len, 0);
    cr_assert_eq(gm_explain_experiment(&r, "zz", &b, &e), GM_ERR_VALUE);
    gmt_assert_has(e.message, "\"zz\"");
    cr_assert_eq(gm_explain_experiment(&r, "zz", &b, NULL), GM_ERR_VALUE);
    cr_assert_eq(b.len, 0);
    /* a run whose experiment is not listed is still explained */
    gm_run *x = S_run(&r, "v", 1, 0.3);
    free(x->experiment);
    x->experiment = gm_xstrdup("zz");
    cr_assert_eq(gm_explain_experiment(&r, "zz", &b, &e), GM_OK);
    gmt_assert_has(b.data, "One passed run");
    gm_buf_free(&b);
    gm_results_free(&r);
}

Test(findings, explanation_says_why_the_gap_is_smaller_than_the_sectors)
{
    gm_results r;
    S_results(&r, true);
    double req = (double)N_BYTES / 128.0;
    gm_run *a = S_run(&r, "aligned", 1, 0.25);
    S_clean(a, 40);   /* the fast one is not DRAM-bound */
    S_set(a, GM_M_DRAM_RATE, 2.0 * N_BYTES / 0.25e-3);
    gm_run *b = S_run(&r, "strided", 1, 0.40);
    S_clean(b, 60);
    S_global(b, false, req, 32.0, 12.5);   /* 8x the load sectors */
    S_set(b, GM_M_DRAM_RD, 2.0 * N_BYTES); /* DRAM reads only 2x: caches absorb the rest */
    S_set(b, GM_M_DRAM_RATE, 3.0 * N_BYTES / 0.40e-3);
    char *t = S_explain(&r, "e");
    gmt_assert_has(t,
                   "`strided` fetches 8.0× the global-load sectors of `aligned` (67,108,864 "
                   "against 8,388,608), 4.5× once store sectors are counted, and DRAM moves 1.5× "
                   "the bytes (768 MiB against 512 MiB). ");
    gmt_assert_has(t, "The time follows the DRAM traffic: 1.6× the time for 1.5× the bytes.");
    free(t);

    /* not bandwidth-bound: the sectors are the reference, and the gap is smaller */
    r.experiments[0].bandwidth_bound = false;
    t = S_explain(&r, "e");
    gmt_assert_has(
        t, "`aligned` wins by 1.6×, less than the 4.5× of the sectors suggests: the time follows "
           "the DRAM traffic instead, 1.5× the bytes, and what limits each layout. `aligned` is "
           "DRAM-bound at 74.8% of the copy bandwidth. `strided` is DRAM-bound at 70.1% of the "
           "copy bandwidth, moving 1.5× the bytes the computation needs.");
    free(t);
    gm_results_free(&r);
}

Test(findings, explanation_with_the_same_time)
{
    gm_results r;
    S_results(&r, false);
    gm_run *a = S_run(&r, "x", 1, 0.30);
    S_clean(a, 70);
    gm_run *b = S_run(&r, "y", 1, 0.30);
    S_clean(b, 70);
    S_global(b, false, (double)N_BYTES / 128.0, 12.0, 100.0 / 3.0);
    char *t = S_explain(&r, "e");
    gmt_assert_has(t,
                   "Both take 300.0 µs, within 5% of each other: here the layout does not change "
                   "the time. `y` fetches 3.0× the global-load sectors of `x`");
    gmt_assert_has(t, "The time does not follow the 2.0× of the sectors: it follows the DRAM "
                      "traffic, 1.0× the bytes, and what limits each layout. `x` is DRAM-bound "
                      "at 62.3% of the copy bandwidth. `y` is DRAM-bound at 62.3% of the copy "
                      "bandwidth.");
    free(t);
    gm_results_free(&r);
}

/* ---- formatting ---------------------------------------------------------------------- */

Test(findings, rule_names)
{
    for (int i = 0; i < GM_RULE_COUNT; i++) {
        cr_assert_str_neq(gm_rule_id((gm_rule)i), "unknown");
        cr_assert_str_neq(gm_rule_title((gm_rule)i), "Unknown rule");
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(gm_rule_id((gm_rule)i), gm_rule_id((gm_rule)j));
    }
    cr_assert_str_eq(gm_rule_id(GM_RULE_COUNT), "unknown");
    cr_assert_str_eq(gm_severity_name(GM_SEV_PROBLEM), "problem");
    cr_assert_str_eq(gm_severity_name(GM_SEV_WARNING), "warning");
    cr_assert_str_eq(gm_severity_name(GM_SEV_INFO), "info");
}

Test(findings, text_does_not_depend_on_the_locale)
{
    static const char *const loc[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
    const char *got = NULL;
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    char *c_text = S_everything(&r, false);
    for (size_t i = 0; i < sizeof loc / sizeof loc[0] && !got; i++)
        got = setlocale(LC_ALL, loc[i]);
    if (!got) {
        free(c_text);
        gm_results_free(&r);
        cr_skip_test("no locale with a decimal comma is installed here");
    }
    char *other = S_everything(&r, false);
    setlocale(LC_ALL, "C");
    cr_assert_str_eq(other, c_text);
    free(other);
    free(c_text);
    gm_results_free(&r);
}

/* ---- hostile names -------------------------------------------------------------------- */

Test(findings, hostile_names_stay_text)
{
    gm_results r;
    gmt_load_fixture("handwritten-hostile.json", &r);
    char *md = S_everything(&r, false);
    /* Rendered with raw HTML allowed: only the escaping keeps tags out. */
    char *html = cmark_markdown_to_html(md, strlen(md), CMARK_OPT_UNSAFE);
    gmt_assert_lacks(html, "<script");
    gmt_assert_lacks(html, "<b>");
    gmt_assert_lacks(html, "<a ");
    gmt_assert_lacks(html, "</td>");
    gmt_assert_lacks(html, "<x>");
    /* every finding is one list item on one line */
    gm_findings f;
    gm_findings_build(&r, &f);
    for (size_t i = 0; i < f.n; i++) {
        gmt_assert_lacks(f.v[i].message, "\n");
        gmt_assert_lacks(f.v[i].message, "\r");
    }
    /* (the explanations list runs as items too: count the findings' part) */
    const char *end = strstr(html, "<h1>explanation");
    cr_assert_not_null(end);
    size_t items = 0;
    for (const char *s = html; (s = strstr(s, "<li>")) != NULL && s < end; s++)
        items++;
    cr_assert_eq(items, f.n);
    gm_findings_free(&f);
    free(html);
    free(md);
    gm_results_free(&r);
}

/* ---- a program's kernels: weighed by cost, never compared ------------------------- */

/* A kernel of a program: no reference, no useful bytes known, `launches`
 * launches of `ms` each (counts per launch, results.h). */
static gm_run *S_prog_run(gm_results *r, const char *variant, int launches, double ms)
{
    gm_run *run = gm_results_add_run(r);
    run->experiment = gm_xstrdup("e");
    run->variant = gm_xstrdup(variant);
    double s[8];
    for (int i = 0; i < launches && i < 8; i++)
        s[i] = ms;
    gm_timing_set_samples(&run->timing, s, (size_t)launches);
    run->timing.present = true;
    run->check.status = GM_CHECK_NO_REFERENCE;
    return run;
}

/* The PyTorch run of issue 18: "2 excess sectors of 2, and 56 B" was a
 * warning.  Moving 56 B takes picoseconds at any bandwidth of the device. */
Test(findings, a_56_byte_excess_is_not_a_warning)
{
    gm_results r;
    S_results(&r, false);
    gm_run *big = S_prog_run(&r, "gemm", 4, 0.5);
    S_global(big, false, 1e6, 4.0, 100.0);
    gm_run *tiny = S_prog_run(&r, "reduce_kernel<…>", 1, 0.01);
    S_set(tiny, GM_M_LD_REQUESTS, 1);
    S_set(tiny, GM_M_LD_SECTORS, 2);
    S_set(tiny, GM_M_LD_SPR, 2.0);
    S_set(tiny, GM_M_LD_EFF, 12.5);   /* 8 of 64 bytes used: 56 B unused */
    gm_findings f;
    gm_findings_build(&r, &f);
    const gm_finding *x = S_find(&f, GM_RULE_UNCOALESCED_LOAD, "reduce_kernel<…>");
    cr_assert_not_null(x);
    cr_assert_eq(x->severity, GM_SEV_INFO, "%s", x->message);
    cr_assert_float_eq(x->cost, 56.0, 1e-9);
    cr_assert_lt(x->saved_ms, 1e-6);
    gmt_assert_has(x->message, "of the program's profiled GPU time");
    cr_assert_null(strstr(x->message, "fastest"), "%s", x->message);
    for (size_t i = 0; i < f.n; i++)
        cr_assert_neq(f.v[i].severity, GM_SEV_WARNING, "%s", f.v[i].message);
    gm_findings_free(&f);
    gm_results_free(&r);
}

/* A real conflict in a program: the saving over all launches, as a share of
 * all the program's profiled time, and a warning. */
Test(findings, program_finding_weighed_by_the_programs_time)
{
    gm_results r;
    S_results(&r, false);
    gm_run *other = S_prog_run(&r, "other", 2, 0.1);
    S_global(other, false, 1e6, 4.0, 100.0);
    gm_run *t = S_prog_run(&r, "transpose", 2, 0.024);
    S_set(t, GM_M_SH_LD_INST, 262144);
    S_set(t, GM_M_SH_LD_WAVES, 262144.0 * 32);
    S_set(t, GM_M_SH_LD_CONFL, 262144.0 * 31);
    gm_findings f;
    gm_findings_build(&r, &f);
    const gm_finding *x = S_find(&f, GM_RULE_BANK_CONFLICT_LOAD, "transpose");
    cr_assert_not_null(x);
    cr_assert_eq(x->severity, GM_SEV_WARNING);
    /* per launch 24 µs x 31/32; two launches; of 2 x 100 + 2 x 24 µs */
    cr_assert_float_eq(x->saved_ms, 2 * 0.024 * 31.0 / 32.0, 1e-9);
    cr_assert_float_eq(x->saved_share, 2 * 0.024 * 31.0 / 32.0 / 0.248, 1e-9);
    cr_assert_null(strstr(x->message, "fastest"), "%s", x->message);
    gm_findings_free(&f);
    gm_results_free(&r);
}

/* ---- programs as they are really run (issue 26) ------------------------------------ */

static const gm_finding *S_find_rule_of(const gm_findings *f, gm_rule rule, const char *prefix)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].rule == rule && f->v[i].variant &&
            strncmp(f->v[i].variant, prefix, strlen(prefix)) == 0)
            return &f->v[i];
    return NULL;
}

/* The recorded PyTorch run (tests/fixtures/pytorch-h100-3dd71d4.json, an
 * H100, examples/pytorch's run until 3026573): scaled
 * with its excess sectors, the saving of add-transposed would have the
 * kernel move its DRAM bytes at 4.3 TB/s, above the device's 3.35 TB/s.
 * Every saving leaves the DRAM bytes the kernel would still move the time
 * they take at the theoretical bandwidth, and says so where that caps it. */
Test(findings, recorded_savings_never_beyond_the_peak)
{
    gm_results r;
    char *path = gmt_src("tests/fixtures/pytorch-h100-3dd71d4.json");
    gm_error err;
    cr_assert_eq(gm_results_read_file(path, &r, &err), GM_OK, "%s", err.message);
    free(path);
    gm_findings f;
    gm_findings_build(&r, &f);
    double peak = gm_value_num(&r.device.theoretical_bandwidth_gbs);
    size_t capped = 0;
    for (size_t i = 0; i < f.n; i++) {
        const gm_finding *x = &f.v[i];
        if (!isfinite(x->saved_ms))
            continue;
        cr_assert(x->rule == GM_RULE_UNCOALESCED_LOAD || x->rule == GM_RULE_UNCOALESCED_STORE);
        bool st = x->rule == GM_RULE_UNCOALESCED_STORE;
        const gm_run *run = x->run;
        double n = (double)run->timing.n, t = gm_run_total_ms(run) / n;
        double rd = gm_run_metric_num(run, GM_M_DRAM_RD), wr = gm_run_metric_num(run, GM_M_DRAM_WR);
        /* the DRAM bytes that not fetching the excess sectors could spare:
         * at most what DRAM moved beyond the sectors the threads need */
        double sectors = gm_run_metric_num(run, st ? GM_M_ST_SECTORS : GM_M_LD_SECTORS);
        double eff = gm_run_metric_num(run, st ? GM_M_ST_EFF : GM_M_LD_EFF);
        double need = sectors * 32.0 * fmin(eff, 100.0) / 100.0;
        double spared = fmin(sectors * 32.0 - need, fmax(0.0, (st ? wr : rd) - need));
        double left = t - (rd + wr - spared) / (peak * 1e6);
        cr_assert_leq(x->saved_ms / n, left * (1 + 1e-9), "%s", x->message);
        if (strstr(x->message, "capped"))
            cr_assert_float_eq(x->saved_ms / n, left, 1e-9 * t, "%s", x->message);
        capped += strstr(x->message, "That is capped by the device's theoretical DRAM "
                                     "bandwidth") != NULL;
    }
    cr_assert_geq(capped, 2);
    const gm_finding *add = S_find_rule_of(&f, GM_RULE_UNCOALESCED_LOAD, "add-transposed");
    cr_assert_not_null(add);
    gmt_assert_has(add->message, "a launch would still move 182 MiB through DRAM, 56.8 µs of "
                                 "the 147.5 µs a launch takes on average, at 3,352 GB/s; the "
                                 "929.2 µs that the excess's share of the traffic suggests "
                                 "would need 4,305 GB/s.");
    gmt_assert_has(add->message, "would save about 816.0 µs (20.3% of the program's profiled "
                                 "GPU time)");
    /* the gather reads 8 times the bytes it uses from DRAM: those are spared
     * too, the saving fits the peak */
    const gm_finding *gather = S_find_rule_of(&f, GM_RULE_UNCOALESCED_LOAD, "gather-stride8");
    cr_assert_not_null(gather);
    gmt_assert_lacks(gather->message, "capped");
    gm_findings_free(&f);
    gm_results_free(&r);
}

/* The same run: 2 of its 5 findings save under 1 % of the GPU time (0.2 %
 * and under 0.1 %, 9.9 µs and 357 ns): folded out of the top list, kept in
 * the experiment's section; what each says to change. */
Test(findings, minor_savings_folded_out_of_the_top_list)
{
    gm_results r;
    char *path = gmt_src("tests/fixtures/pytorch-h100-3dd71d4.json");
    gm_error err;
    cr_assert_eq(gm_results_read_file(path, &r, &err), GM_OK, "%s", err.message);
    free(path);
    gm_findings f;
    gm_findings_build(&r, &f);
    cr_assert_eq(f.n, 5);
    cr_assert_eq(gm_findings_count_minor(&f, 0), 2);
    cr_assert_eq(gm_findings_count(&f, NULL, true, 0), 3);
    cr_assert_eq(gm_findings_count(&f, "layouts.py", true, 0), 5);
    gm_buf top = GM_BUF_INIT, section = GM_BUF_INIT;
    gm_findings_md(&f, NULL, 0, true, &top);
    gm_findings_md(&f, "layouts.py", 0, true, &section);
    gmt_assert_lacks(top.data, "`sum-rows`");
    gmt_assert_lacks(top.data, "`sum-cols`");
    gmt_assert_has(section.data, "`sum-rows` writes to 1.0 sectors per global store request");
    gmt_assert_has(section.data, "What to change: gather the results in shared memory (or "
                                 "across the warp with shuffles) and write them from "
                                 "consecutive threads");
    gmt_assert_has(top.data, "What to change: make consecutive threads read consecutive "
                             "addresses (`threadIdx.x` on the fastest-varying index)");
    for (size_t i = 0; i < f.n; i++) {
        const gm_finding *x = &f.v[i];
        cr_assert_eq(x->minor, x->saved_ms < GM_FIND_SAVE_MIN_MS ||
                                   x->saved_share < GM_FIND_SAVE_MIN_SHARE, "%s", x->message);
        cr_assert_eq(x->severity, x->minor ? GM_SEV_INFO : GM_SEV_WARNING, "%s", x->message);
    }
    gm_buf_free(&top);
    gm_buf_free(&section);
    gm_findings_free(&f);
    gm_results_free(&r);
}

/* Every rule says what to change, in one sentence. */
Test(findings, every_finding_says_what_to_change_in_one_sentence)
{
    static const char *const fixtures[] = {"handwritten-small.json", "handwritten-large.json",
                                           "handwritten-hostile.json", "h100-rerun-0747.json"};
    bool seen[GM_RULE_COUNT] = {false};
    for (size_t k = 0; k < sizeof fixtures / sizeof fixtures[0]; k++) {
        gm_results r;
        gmt_load_fixture(fixtures[k], &r);
        gm_findings f;
        gm_findings_build(&r, &f);
        for (size_t i = 0; i < f.n; i++) {
            const char *fix = f.v[i].fix;
            cr_assert_not_null(fix, "%s", f.v[i].message);
            size_t n = strlen(fix);
            cr_assert(n > 20 && fix[n - 1] == '.', "%s", fix);
            cr_assert(fix[0] >= 'a' && fix[0] <= 'z', "continues \"What to change: \": %s", fix);
            for (const char *p = fix; (p = strstr(p, ". ")) != NULL; p++)
                cr_assert(!(p[2] >= 'A' && p[2] <= 'Z'), "one sentence: %s", fix);
            seen[f.v[i].rule] = true;
        }
        gm_findings_free(&f);
        gm_results_free(&r);
    }
    size_t rules = 0;
    for (size_t i = 0; i < GM_RULE_COUNT; i++)
        rules += seen[i];
    cr_assert_geq(rules, 8, "the fixtures fire most rules");
}

/* Bank conflicts in code whose shared instructions mostly run with every
 * thread predicated off (issue 26: "0.75 wavefronts per shared load
 * instruction where 0.19 is ideal ... a 3.9-way conflict", beside a chart
 * whose ideal is 1): stated per request made, against an ideal of 1. */
Test(findings, conflicts_per_request_made_not_per_predicated_instruction)
{
    gm_results r;
    S_results(&r, false);
    gm_run *run = S_prog_run(&r, "reduce", 2, 0.05);
    S_set(run, GM_M_SH_LD_INST, 400000);
    S_set(run, GM_M_SH_LD_WAVES, 300000);   /* 0.75 per instruction */
    S_set(run, GM_M_SH_LD_CONFL, 224000);   /* ideal 76,000: 0.19 per instruction */
    gm_findings f;
    gm_findings_build(&r, &f);
    const gm_finding *x = S_find(&f, GM_RULE_BANK_CONFLICT_LOAD, "reduce");
    cr_assert_not_null(x);
    gmt_assert_has(x->message, "`reduce` needs 3.95 wavefronts per shared load request where 1 "
                               "would do: on average a 3.9-way bank conflict, 224,000 excess "
                               "wavefronts over the 76,000 requests it made");
    gmt_assert_has(x->message, "of its 400,000 shared load instructions the others ran with "
                               "every thread predicated off");
    gmt_assert_lacks(x->message, "0.19");
    gmt_assert_lacks(x->message, "0.75");
    gm_findings_free(&f);
    /* with every instruction making its request, per instruction as before */
    S_set(run, GM_M_SH_LD_INST, 76000);
    gm_findings_build(&r, &f);
    x = S_find(&f, GM_RULE_BANK_CONFLICT_LOAD, "reduce");
    cr_assert_not_null(x);
    gmt_assert_has(x->message, "`reduce` needs 3.95 wavefronts per shared load instruction "
                               "where 1.00 is ideal");
    gm_findings_free(&f);
    gm_results_free(&r);
}

/* The recorded stream benchmark (tests/fixtures/stream.cu on an H200:
 * tests/fixtures/stream-h200-launches.json, the launches as the injection
 * library wrote them, and the per-line records of dot_kernel's first launch)
 * grouped as `gpumem-report -- PROGRAM` groups them. */
static void S_stream(gm_results *r)
{
    gmt_load_fixture("stream-h200-launches.json", r);
    gmi_group(r, false, "stream");
    char *path = gmt_fixture("sass-records-stream-dot.txt");
    char *text = gmt_text(path);
    gm_sl_record *rec;
    size_t n;
    gm_error err;
    cr_assert_eq(gm_sl_records_parse(text, path, &rec, &n, &err), GM_OK, "%s", err.message);
    for (size_t i = 0; i < r->n_runs; i++)
        if (strstr(r->runs[i].kernel, "dot_kernel")) {   /* the kernel's first run */
            gm_srclines *sl = &r->runs[i].source_lines;
            sl->present = true;
            gm_srclines_from_records(sl, rec, n);
            sl->status = gm_xstrdup("collected");
            break;
        }
    gm_sl_records_free(rec, n);
    free(text);
    free(path);
}

/* One kernel at five block sizes gave five identical warnings: one finding
 * per kernel and rule, listing the other configurations, its saving the sum;
 * the line named is the one with the largest excess, with its share of the
 * excess; names as a person reads them, never a mangled symbol. */
Test(findings, recorded_stream_one_finding_per_kernel_across_configurations)
{
    gm_results r;
    S_stream(&r);
    gm_findings f;
    gm_findings_build(&r, &f);
    size_t dot_ld = 0;
    const gm_finding *x = NULL;
    for (size_t i = 0; i < f.n; i++) {
        gmt_assert_lacks(f.v[i].message, "_Z");
        if (f.v[i].rule == GM_RULE_BANK_CONFLICT_LOAD) {
            dot_ld++;
            x = &f.v[i];
        }
    }
    cr_assert_eq(dot_ld, 1, "one finding for dot_kernel's five configurations");
    cr_assert_eq(x->configs, 5);
    cr_assert_eq(strncmp(x->variant, "dot_kernel<float> 1024x1x1/", 27), 0, "%s", x->variant);
    gmt_assert_has(x->message, " The same rule fires on its 4 other launch configurations (");
    for (int block = 64; block <= 1024; block *= 2) {
        char cfg[64];
        snprintf(cfg, sizeof cfg, "1024x1x1/%dx1x1", block);
        gmt_assert_has(x->message, cfg);
    }
    gmt_assert_has(x->message, "; over all 5, not moving the excess would save about ");
    /* the sum of the five configurations' savings, each on its own */
    double sum = 0;
    for (size_t i = 0; i < r.n_runs; i++) {
        if (!strstr(r.runs[i].kernel, "dot_kernel"))
            continue;
        /* the configuration with every run that is not dot_kernel, so that the
         * attainable ceiling (the best measured run) is the whole file's */
        gm_results one;
        gm_results_init(&one);
        one.device = r.device;
        for (size_t j = 0; j < r.n_runs; j++)
            if (j == i || !strstr(r.runs[j].kernel, "dot_kernel"))
                *gm_results_add_run(&one) = r.runs[j];
        gm_findings g;
        gm_findings_build(&one, &g);
        for (size_t k = 0; k < g.n; k++)
            if (g.v[k].rule == GM_RULE_BANK_CONFLICT_LOAD)
                sum += g.v[k].saved_ms;
        gm_findings_free(&g);
        /* the runs are r's: only the array is one's own */
        free(one.runs);
        one.runs = NULL;
        one.n_runs = 0;
        memset(&one.device, 0, sizeof one.device);
        gm_results_free(&one);
    }
    cr_assert_float_eq(x->saved_ms, sum, 1e-9);
    /* per request made (most of the reduction's instructions run predicated off) */
    gmt_assert_has(x->message, "wavefronts per shared load request where 1 would do");
    /* the instruction with the largest excess, its share of the excess */
    gmt_assert_has(x->message, "The instruction: `dot_kernel<…>+0x360` (5,120 excess "
                               "wavefronts, 50.0% of the excess of its shared loads, in one "
                               "launch of 1024x1x1/64x1x1)");
    gm_findings_free(&f);
    gm_results_free(&r);
}

/* A program's finding names the instruction that holds the excess only from
 * per-line counts of its own kernel in its own NVTX range.  In layouts.py
 * (H100, f07246d) PyTorch's copy kernel serves `copy-transposed` and
 * `gather-stride8`; the tracer counted its first launch, the transpose's: the
 * gather's finding must not cite the transpose's instruction and its share,
 * while the transpose's own finding cites it. */
Test(findings, program_lines_only_from_the_same_nvtx_range)
{
    gm_results r;
    gmt_load_fixture("pytorch-h100-f07246d.json", &r);
    gm_findings f;
    gm_findings_build(&r, &f);
    bool gather = false, transpose = false;
    for (size_t i = 0; i < f.n; i++) {
        const gm_finding *x = &f.v[i];
        if (x->rule != GM_RULE_UNCOALESCED_LOAD || !x->run || !x->message)
            continue;
        if (strcmp(x->run->variant, "gather-stride8") == 0) {
            gather = true;
            cr_expect_null(strstr(x->message, "The instruction"), "%s", x->message);
        } else if (strcmp(x->run->variant, "copy-transposed") == 0) {
            transpose = true;
            gmt_assert_has(x->message, "The instruction: `elementwise_kernel<…>+0x");
        }
    }
    cr_expect(gather && transpose, "gather %d transpose %d", gather, transpose);
    gm_findings_free(&f);
    gm_results_free(&r);
}

/* A traced program launch's model mismatch says which differences the
 * hardware adds: in layouts.py (H100, f07246d) the column sum's shared load
 * instructions read 58,112 counted against 14,432 traced (its tree
 * reduction issues them with every thread predicated off) and its shared
 * store wavefronts 5.6 % above the trace: information, and the sentences name
 * both causes.  A global sector more than the trace is the tool's fault: a
 * warning. */
Test(findings, traced_mismatch_names_what_the_hardware_adds)
{
    gm_results r;
    gmt_load_fixture("pytorch-h100-f07246d.json", &r);
    gm_findings f;
    gm_findings_build(&r, &f);
    const gm_finding *x = NULL;
    for (size_t i = 0; i < f.n && !x; i++)
        if (f.v[i].rule == GM_RULE_MODEL_MISMATCH && f.v[i].run &&
            strcmp(f.v[i].run->variant, "sum-cols") == 0)
            x = &f.v[i];
    cr_assert_not_null(x);
    cr_expect_eq(x->severity, GM_SEV_INFO);
    gmt_assert_has(x->message, "sh ld inst 58,112 measured against 14,432 predicted");
    gmt_assert_has(x->message, "also with every thread predicated off");
    gmt_assert_has(x->message, "when blocks share an SM out of step");
    gmt_assert_lacks(x->message, "the tool's fault");
    gm_findings_free(&f);
    /* one global-load sector more than the trace */
    gm_run *run = NULL;
    for (size_t i = 0; i < r.n_runs && !run; i++)
        if (strcmp(r.runs[i].variant, "sum-cols") == 0)
            run = &r.runs[i];
    double s = gm_run_metric_num(run, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    cr_assert(s > 0);
    gm_run_set_metric(run, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", gm_vint((long long)(s * 1.5)),
                      "sector");
    gm_findings_build(&r, &f);
    x = NULL;
    for (size_t i = 0; i < f.n && !x; i++)
        if (f.v[i].rule == GM_RULE_MODEL_MISMATCH && f.v[i].run == run)
            x = &f.v[i];
    cr_assert_not_null(x);
    cr_expect_eq(x->severity, GM_SEV_WARNING);
    gmt_assert_has(x->message, "the other differences are the tool's fault");
    gm_findings_free(&f);
    gm_results_free(&r);
}
