/* test_claims.c — each experiment answers its own question, and every claim
 * of the source documents gets a verdict, on the committed H100 run
 * (examples/h100/run.json) rendered as a user renders it. */
#include "../core/escape.h"
#include "../core/results.h"
#include "../reports/claims.h"
#include "../reports/contrast.h"
#include "helpers.h"

#include "../kernels/suite.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The Markdown report of the committed H100 run. */
static char *S_h100_md(void)
{
    char *json = gmt_src("examples/h100/run.json");
    char *t = gmt_tmpdir("claims");
    char *out = gmt_join(t, "report.md");
    char *argv[] = {(char *)gmt_bin(), "render", json, "--out", out, NULL};
    char *msg = NULL;
    int rc = gmt_run(argv, NULL, NULL, &msg);
    cr_assert_eq(rc, 0, "render: exit %d: %s", rc, msg);
    char *md = gmt_text(out);
    gmt_rmrf(t);
    free(msg);
    free(out);
    free(t);
    free(json);
    return md;
}

/* The line of text that starts with `prefix` (a copy; caller frees). */
static char *S_line(const char *text, const char *prefix)
{
    const char *p = strstr(text, prefix);
    cr_assert_not_null(p, "no line starting %s", prefix);
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char *l = malloc(n + 1);
    memcpy(l, p, n);
    l[n] = '\0';
    return l;
}

/* The Markdown table row of a claim in the "Claims checked" section. */
static char *S_claim_row(const char *section, const gm_claim *c)
{
    gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, "| ");
    gm_esc_md(&want, c->claim);
    gm_buf_puts(&want, " |");
    char *row = S_line(section, want.data);
    gm_buf_free(&want);
    return row;
}

Test(claims, rgb_headline_is_interleaved_against_planar_at_one_block_size)
{
    char *md = S_h100_md();
    char *h = S_line(md, "4. **Interleaved vs planar RGB");
    cr_assert(strstr(h, "`interleaved`") && strstr(h, "`planar`"), "%s", h);
    cr_assert_null(strstr(h, "planar_x16"), "a secondary contrast in the headline: %s", h);
    cr_assert_eq(gmt_occurrences(h, "block="), 1, "one block size for both sides: %s", h);
    /* the summary row too */
    char *row = S_line(md, "| [4. Interleaved vs planar RGB");
    cr_assert(strstr(row, "| `interleaved` against `planar` |"), "%s", row);
    cr_assert_eq(gmt_occurrences(row, "block=256"), 1, "%s", row);
    free(row);
    free(h);
    free(md);
}

Test(claims, alignment_headline_compares_offsets_at_one_access_width)
{
    char *md = S_h100_md();
    char *h = S_line(md, "2. **Misaligned reads");
    cr_assert(strstr(h, "`scalar` (offset=100)") && strstr(h, "`scalar` (offset=0)"), "%s", h);
    cr_assert_null(strstr(h, "float4"), "two access widths compared: %s", h);
    /* the answer gives the sector counts the contrast is about */
    char *a = S_line(strstr(md, "## 2. Misaligned reads"), "**The answer**");
    cr_assert(strstr(a, "ld sectors/request 5.0 against 4.0"), "%s", a);
    free(a);
    free(h);
    free(md);
}

Test(claims, summary_has_a_row_per_experiment)
{
    char *md = S_h100_md();
    const char *p = strstr(md, "| Experiment | Compared at |");
    cr_assert_not_null(p);
    size_t rows = 0;
    for (const char *l = strchr(p, '\n') + 1; (l = strchr(l, '\n')) && l[1] == '|'; l++) {
        if (l[2] == '-')
            continue;
        rows++;
    }
    cr_assert_geq(rows, 14, "one summary row per experiment: %zu", rows);
    free(md);
}

Test(claims, dp_rows_give_measured_speedup_and_break_even_with_a_verdict)
{
    char *md = S_h100_md();
    const char *sec = strstr(md, "## Claims checked on this GPU");
    cr_assert_not_null(sec);
    for (size_t i = 0; i < gm_claims_len; i++) {
        const gm_claim *c = &gm_claims[i];
        if (!c->experiment || strcmp(c->experiment, "dp") || c->kind == GM_CLAIM_NONE)
            continue;
        char *row = S_claim_row(sec, c);
        if (c->kind == GM_CLAIM_BREAKEVEN)
            cr_assert(strstr(row, "| n ≈ ") || strstr(row, "| below n=") ||
                          strstr(row, "| none up to n="),
                      "break-even measured: %s", row);
        else
            cr_assert(strstr(row, "× ("), "speedup measured: %s", row);
        cr_assert_null(strstr(row, "not tested here"), "%s", row);
        cr_assert(strstr(row, "| holds |") || strstr(row, "| holds in direction, not size |") ||
                      strstr(row, "| does not hold |"),
                  "a verdict: %s", row);
        free(row);
    }
    free(md);
}

Test(claims, every_claim_appears_with_a_verdict)
{
    char *md = S_h100_md();
    const char *sec = strstr(md, "## Claims checked on this GPU");
    cr_assert_not_null(sec);
    const char *end = strstr(sec, "\n## ");
    cr_assert_not_null(end);
    static const char *const verdicts[] = {"| holds |", "| holds in direction, not size |",
                                           "| does not hold |", "| not tested here |"};
    for (size_t i = 0; i < gm_claims_len; i++) {
        char *row = S_claim_row(sec, &gm_claims[i]);
        cr_assert_lt((size_t)(strstr(sec, row) - sec), (size_t)(end - sec),
                     "claim %s outside its section", gm_claims[i].id);
        size_t k = 0;
        for (size_t v = 0; v < 4; v++)
            k += strstr(row, verdicts[v]) != NULL;
        cr_assert_eq(k, 1, "claim %s: one verdict: %s", gm_claims[i].id, row);
        /* tested claims name the figure measured here */
        if (gm_claims[i].kind != GM_CLAIM_NONE)
            cr_assert_null(strstr(row, "| — | not tested here |"),
                           "claim %s has runs in the H100 file: %s", gm_claims[i].id, row);
        free(row);
    }
    free(md);
}

Test(claims, claims_are_complete_data)
{
    for (size_t i = 0; i < gm_claims_len; i++) {
        const gm_claim *c = &gm_claims[i];
        cr_assert(c->id && c->source && c->claim && c->claimed && c->hardware, "%zu", i);
        /* titles, never the internal ids of the seed files */
        cr_assert(strncmp(c->source, "00", 2) != 0, "%s: %s", c->id, c->source);
        if (c->kind == GM_CLAIM_NONE) {
            cr_assert_not_null(c->untested, "%s", c->id);
            continue;
        }
        cr_assert(c->experiment && c->a, "%s", c->id);
        cr_assert(!isnan(c->lo) && !isnan(c->hi) && c->lo <= c->hi, "%s", c->id);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(c->id, gm_claims[j].id);
    }
}

/* A selector of a claim or a contrast names a variant of the experiment and
 * parameters that variant has, with values it takes. */
static void S_check_sel(const char *exp, const char *sel, const char *what)
{
    const char *at = strchr(sel, '@');
    size_t vl = at ? (size_t)(at - sel) : strlen(sel);
    const gm_variant *v = NULL;
    for (size_t i = 0; i < gm_suite_len && !v; i++)
        if (!strcmp(gm_suite[i].experiment->id, exp) && strlen(gm_suite[i].name) == vl &&
            !strncmp(gm_suite[i].name, sel, vl))
            v = &gm_suite[i];
    cr_assert_not_null(v, "%s: no variant %s in experiment %s", what, sel, exp);
    for (const char *s = at; s; s = strchr(s + 1, ',')) {
        const char *name = s + 1, *eq = strchr(name, '=');
        cr_assert_not_null(eq, "%s: %s", what, sel);
        long long val = strtoll(eq + 1, NULL, 10);
        bool found = false;
        for (int k = 0; k < GM_MAX_PARAMS && v->params[k].name; k++) {
            if (strncmp(v->params[k].name, name, (size_t)(eq - name)) ||
                v->params[k].name[eq - name])
                continue;
            const long long *vals = gm_sweep_values(&v->params[k], false);
            for (int j = 0; vals[j] != GM_END; j++)
                found |= vals[j] == val;
        }
        cr_assert(found, "%s: %s takes no value %lld in %s", what, sel, val, exp);
    }
}

Test(claims, selectors_name_the_suite)
{
    for (size_t i = 0; i < gm_claims_len; i++) {
        const gm_claim *c = &gm_claims[i];
        if (c->kind == GM_CLAIM_NONE)
            continue;
        cr_assert_not_null(gm_experiment_find(c->experiment), "%s", c->id);
        S_check_sel(c->experiment, c->a, c->id);
        if (c->b)
            S_check_sel(c->experiment, c->b, c->id);
    }
    for (size_t i = 0; i < gm_experiments_len; i++) {
        const gm_experiment_def *d = gm_experiments[i];
        cr_assert(d->question && d->contrast_a && d->contrast_b && d->contrast_counter,
                  "%s has no question", d->id);
        S_check_sel(d->id, d->contrast_a, d->id);
        S_check_sel(d->id, d->contrast_b, d->id);
        cr_assert(strncmp(d->source, "00", 2) != 0, "%s cites an internal id", d->id);
    }
}

Test(claims, question_and_ceiling_travel_through_the_results_file)
{
    gm_results r;
    gmt_load_fixture("handwritten-small.json", &r);
    cr_assert_null(r.experiments[0].contrast_a, "the fixture predates questions");
    cr_assert(!gm_value_present(&r.device.attainable_bandwidth_gbs));
    gm_experiment *e = &r.experiments[0];
    e->question = strdup("Is \"strided\" slower?");
    e->contrast_a = strdup("stride@stride=32");
    e->contrast_b = strdup("stride@stride=1");
    e->contrast_counter = strdup("ld_spr");
    r.device.attainable_bandwidth_gbs = gm_vreal(3100.5);
    r.device.attainable_kernel = strdup("read, 16-byte loads");
    char *json = gm_results_to_json(&r);
    gm_results back;
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_results_read_string(json, "round trip", &back, &err), GM_OK, "%s", err.message);
    const gm_experiment *b = &back.experiments[0];
    cr_assert_str_eq(b->question, "Is \"strided\" slower?");
    cr_assert_str_eq(b->contrast_a, "stride@stride=32");
    cr_assert_str_eq(b->contrast_b, "stride@stride=1");
    cr_assert_null(b->contrast_at);
    cr_assert_str_eq(b->contrast_counter, "ld_spr");
    cr_assert_eq(gm_value_num(&back.device.attainable_bandwidth_gbs), 3100.5);
    cr_assert_str_eq(back.device.attainable_kernel, "read, 16-byte loads");
    /* the ceiling the report uses is the attainable one */
    bool att = false;
    cr_assert_eq(gm_results_ceiling_gbs(&back, &att), 3100.5);
    cr_assert(att);
    cr_assert_eq(gm_results_ceiling_gbs(&r, NULL), 3100.5);
    /* a contrast that is not an object is refused with its path */
    const char *k = strstr(json, "\"contrast\": {");
    cr_assert_not_null(k, "%s", json);
    const char *close = strchr(k, '}');
    gm_buf bb = GM_BUF_INIT;
    gm_buf_printf(&bb, "%.*s\"contrast\": 7%s", (int)(k - json), json, close + 1);
    char *bad = gm_buf_detach(&bb);
    gm_results none;
    cr_assert_neq(gm_results_read_string(bad, "bad", &none, &err), GM_OK);
    cr_assert_not_null(strstr(err.message, "contrast"), "%s", err.message);
    free(bad);
    free(json);
    gm_results_free(&back);
    gm_results_free(&r);
}
