/* test_scale.c — the report's run analysis done in n log n gives what the
 * plain all-pairs definitions give (issue 15: large inputs).
 *
 * Each test takes a real results file (examples/h100/run.json), scrambles its
 * parameters, work and times with a fixed pseudo-random sequence (so that
 * parameters go missing, values repeat, work ties and times tie), and checks
 * the sections' groups, the varying parameters and the contrast pairs
 * against the definitions in runs.h and contrast.h written as the nested
 * loops they describe.
 */
#include "../reports/contrast.h"
#include "../reports/findings.h"
#include "../reports/runs.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a scrambled results file ------------------------------------------------ */

static unsigned long long S_state;

static unsigned S_rand(unsigned n)
{
    S_state = S_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((S_state >> 33) % n);
}

static void S_set(gm_value *v, gm_value nv)
{
    free(v->s);
    *v = nv;
}

/* Small value sets, so that values and work repeat; a parameter renamed to a
 * name of its own is one the run lacks. */
static void S_scramble(gm_results *r, unsigned long long seed)
{
    S_state = seed;
    for (size_t i = 0; i < r->n_runs; i++) {
        gm_run *run = &r->runs[i];
        for (size_t k = 0; k < run->n_params; k++) {
            gm_param *p = &run->params[k];
            switch (S_rand(6)) {
            case 0: S_set(&p->value, gm_vint(S_rand(3))); break;
            case 1: S_set(&p->value, gm_vreal(S_rand(3))); break;
            case 2: S_set(&p->value, gm_vstr(S_rand(2) ? "a" : "b")); break;
            case 3: {
                char name[48];
                snprintf(name, sizeof name, "gone_%zu_%zu", i, k);
                free(p->name);
                p->name = gm_xstrdup(name);
                break;
            }
            default: break;   /* as measured */
            }
        }
        if (S_rand(3) == 0)
            S_set(&run->bytes_read, gm_vint(S_rand(3) * 1024));
        if (S_rand(4) == 0)
            S_set(&run->bytes_written, S_rand(2) ? gm_vabsent() : gm_vreal(4096));
        if (S_rand(4) == 0)   /* the same bytes, other work: groups tie on bytes */
            S_set(&run->flops, S_rand(2) ? gm_vabsent() : gm_vint(S_rand(2)));
        if (run->timing.present && S_rand(3) == 0)
            run->timing.median = 0.001 * S_rand(4);
        if (S_rand(8) == 0)
            run->check.status = GM_CHECK_FAILED;
    }
}

/* ---- the definitions, as nested loops ------------------------------------------ */

static bool S_value_eq(const gm_value *a, const gm_value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case GM_V_ABSENT: return true;
    case GM_V_INT: return a->i == b->i;
    case GM_V_REAL: return a->r == b->r;
    case GM_V_STR: return strcmp(a->s, b->s) == 0;
    }
    return false;
}

static bool S_varies(const gm_run *const *set, size_t n, const char *name)
{
    const gm_param *first = NULL;
    for (size_t i = 0; i < n; i++) {
        const gm_param *p = gm_run_param(set[i], name);
        if (!p)
            return true;
        if (!first)
            first = p;
        else if (!S_value_eq(&first->value, &p->value))
            return true;
    }
    return false;
}

static char *S_params(const gm_run *const *set, size_t n, const gm_run *run, const char *skip)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "");
    bool any = false;
    for (size_t i = 0; i < run->n_params; i++) {
        const gm_param *p = &run->params[i];
        if ((skip && strcmp(p->name, skip) == 0) || !S_varies(set, n, p->name))
            continue;
        gm_buf_printf(&b, "%s%s=", any ? ", " : "", p->name);
        gm_fmt_value(&b, &p->value);
        any = true;
    }
    return gm_buf_detach(&b);
}

static double S_bytes(const gm_run *run)
{
    double r = gm_value_num(&run->bytes_read), w = gm_value_num(&run->bytes_written);
    return (isnan(r) ? 0 : r) + (isnan(w) ? 0 : w);
}

/* The largest part of passed runs doing the same work; on a tie the one moving
 * the most bytes, then the first. */
static size_t S_group(const gm_section *s, const gm_run **out)
{
    const gm_run *rep = NULL;
    size_t best = 0;
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *a = s->runs[i];
        if (!gm_run_passed(a))
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = gm_run_passed(s->runs[j]) && gm_runs_same_work(s->runs[j], a);
        if (seen)
            continue;
        size_t count = 0;
        for (size_t j = i; j < s->n_runs; j++)
            count += gm_run_passed(s->runs[j]) && gm_runs_same_work(s->runs[j], a);
        if (count > best || (count == best && rep && S_bytes(a) > S_bytes(rep))) {
            best = count;
            rep = a;
        }
    }
    size_t n = 0;
    for (size_t i = 0; rep && i < s->n_runs; i++)
        if (gm_run_passed(s->runs[i]) && gm_runs_same_work(s->runs[i], rep))
            out[n++] = s->runs[i];
    return n;
}

static bool S_names(const char *sel, const char *name)
{
    const char *s = sel ? strchr(sel, '@') : NULL;
    size_t nl = strlen(name);
    while (s) {
        s++;
        if (strncmp(s, name, nl) == 0 && s[nl] == '=')
            return true;
        s = strchr(s, ',');
    }
    return false;
}

static bool S_same_text(const gm_value *a, const gm_value *b)
{
    gm_buf x = GM_BUF_INIT, y = GM_BUF_INIT;
    gm_fmt_value(&x, a);
    gm_fmt_value(&y, b);
    bool eq = strcmp(x.data, y.data) == 0;
    gm_buf_free(&x);
    gm_buf_free(&y);
    return eq;
}

static bool S_matched(const gm_run *a, const gm_run *b, const char *sa, const char *sb)
{
    for (size_t i = 0; i < a->n_params; i++) {
        const gm_param *p = &a->params[i];
        if (S_names(sa, p->name) || S_names(sb, p->name))
            continue;
        const gm_param *q = gm_run_param(b, p->name);
        if (!q || !S_same_text(&p->value, &q->value))
            return false;
    }
    for (size_t i = 0; i < b->n_params; i++) {
        const gm_param *q = &b->params[i];
        if (!S_names(sa, q->name) && !S_names(sb, q->name) && !gm_run_param(a, q->name))
            return false;
    }
    return true;
}

static bool S_pairable(const gm_run *run)
{
    return gm_run_passed(run) && isfinite(gm_run_median_ms(run));
}

/* ---- the tests ------------------------------------------------------------------ */

static void S_load(gm_results *r, unsigned long long seed)
{
    char *path = gmt_src("examples/h100/run.json");
    gm_error err = {0};
    cr_assert_eq(gm_results_read_file(path, r, &err), GM_OK, "%s", err.message);
    free(path);
    if (seed)
        S_scramble(r, seed);
}

Test(scale, varying_parameters_as_defined)
{
    for (unsigned long long seed = 0; seed < 6; seed++) {
        gm_results r;
        S_load(&r, seed);
        gm_sections ss;
        gm_sections_build(&r, &ss);
        size_t checked = 0;
        for (size_t i = 0; i < ss.n; i++) {
            const gm_section *s = &ss.v[i];
            for (size_t k = 0; k < s->n_runs; k++) {
                const gm_run *run = s->runs[k];
                const char *skip = run->n_params ? run->params[0].name : NULL;
                for (int w = 0; w < 3; w++) {
                    const gm_run *const *set = w == 1 ? s->group : s->runs;
                    size_t n = w == 1 ? s->n_group : s->n_runs;
                    const gm_vary *v = w == 1 ? &s->vary_group : &s->vary;
                    char *want = S_params(set, n, run, w == 2 ? skip : NULL);
                    gm_buf got = GM_BUF_INIT;
                    gm_vary_params(v, run, w == 2 ? skip : NULL, &got);
                    cr_assert_str_eq(got.data, want, "seed %llu, %s run %zu, set %d", seed,
                                     s->exp->id, k, w);
                    gm_buf_free(&got);
                    free(want);
                    checked++;
                }
            }
        }
        cr_assert_gt(checked, 700);
        gm_sections_free(&ss);
        gm_results_free(&r);
    }
}

Test(scale, comparison_group_as_defined)
{
    size_t differ = 0;
    for (unsigned long long seed = 0; seed < 12; seed++) {
        gm_results r;
        S_load(&r, seed);
        gm_sections ss;
        gm_sections_build(&r, &ss);
        for (size_t i = 0; i < ss.n; i++) {
            const gm_section *s = &ss.v[i];
            const gm_run **want = calloc(s->n_runs + 1, sizeof *want);
            size_t n = S_group(s, want);
            cr_assert_eq(s->n_group, n, "seed %llu, %s: group of %zu, want %zu", seed, s->exp->id,
                         s->n_group, n);
            for (size_t k = 0; k < n; k++)
                cr_assert_eq(s->group[k], want[k], "seed %llu, %s: group[%zu]", seed,
                             s->exp->id, k);
            differ += n != s->n_passed;
            free(want);
        }
        gm_sections_free(&ss);
        gm_results_free(&r);
    }
    cr_assert_gt(differ, 10, "the scrambling splits groups");
}

Test(scale, contrast_pairs_as_defined)
{
    size_t pairs = 0;
    for (unsigned long long seed = 0; seed < 12; seed++) {
        gm_results r;
        S_load(&r, seed);
        gm_sections ss;
        gm_sections_build(&r, &ss);
        for (size_t i = 0; i < ss.n; i++) {
            const gm_section *s = &ss.v[i];
            const char *sa = s->exp->contrast_a, *sb = s->exp->contrast_b;
            if (!sa || !sb)
                continue;
            gm_pair *p;
            size_t n = gm_pairs(s, sa, sb, NULL, &p), k = 0;
            for (size_t x = 0; x < s->n_runs; x++) {
                const gm_run *a = s->runs[x];
                if (!S_pairable(a) || !gm_sel_match(a, sa))
                    continue;
                for (size_t y = 0; y < s->n_runs; y++) {
                    const gm_run *b = s->runs[y];
                    if (b == a || !S_pairable(b) || !gm_sel_match(b, sb) ||
                        !S_matched(a, b, sa, sb))
                        continue;
                    cr_assert_lt(k, n, "seed %llu, %s: more pairs than %zu", seed, s->exp->id, n);
                    cr_assert(p[k].a == a && p[k].b == b, "seed %llu, %s: pair %zu", seed,
                              s->exp->id, k);
                    k++;
                    break;
                }
            }
            cr_assert_eq(k, n, "seed %llu, %s", seed, s->exp->id);
            pairs += n;
            free(p);
        }
        gm_sections_free(&ss);
        gm_results_free(&r);
    }
    cr_assert_gt(pairs, 20);
}

/* A finding's group: the same rule, experiment and variant; its lead the
 * first of them in rank order. */
Test(scale, finding_groups_as_defined)
{
    for (unsigned long long seed = 0; seed < 4; seed++) {
        gm_results r;
        S_load(&r, seed);
        gm_findings f;
        gm_findings_build(&r, &f);
        cr_assert_gt(f.n, 10);
        for (size_t i = 0; i < f.n; i++) {
            size_t n = 0, first = i;
            for (size_t j = 0; j < f.n; j++) {
                const gm_finding *a = &f.v[i], *b = &f.v[j];
                bool same = a->rule == b->rule &&
                            (a->experiment && b->experiment
                                 ? strcmp(a->experiment, b->experiment) == 0
                                 : a->experiment == b->experiment) &&
                            (a->variant && b->variant ? strcmp(a->variant, b->variant) == 0
                                                      : a->variant == b->variant);
                if (same && n++ == 0)
                    first = j;
            }
            cr_assert_eq(f.v[i].similar, n, "seed %llu, finding %zu", seed, i);
            cr_assert_eq(f.v[i].lead, first == i, "seed %llu, finding %zu", seed, i);
        }
        gm_findings_free(&f);
        gm_results_free(&r);
    }
}

/* ---- the reader: a large file's runs parsed one at a time -------------------------- */

/* The text with its top-level "runs" key spelled with an escape: the same
 * document, but one the reader cannot split, so it is read as one tree. */
static char *S_unsplittable(const char *text)
{
    const char *k = strstr(text, "\n  \"runs\":");
    cr_assert(k, "a top-level \"runs\" key");
    gm_buf b = GM_BUF_INIT;
    gm_buf_put(&b, text, (size_t)(k - text));
    gm_buf_puts(&b, "\n  \"\\u0072uns\":");
    gm_buf_puts(&b, k + strlen("\n  \"runs\":"));
    return gm_buf_detach(&b);
}

Test(scale, runs_read_one_at_a_time_as_the_whole_tree)
{
    const char *files[] = {"examples/h100/run.json", "examples/app/run.json",
                           "examples/pytorch/run.json", "tests/fixtures/handwritten-large.json",
                           "tests/fixtures/handwritten-hostile.json"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char *path = gmt_src(files[f]);
        char *text = gmt_text(path);
        char *whole = S_unsplittable(text);
        gm_results a, b;
        gm_error ea = {0}, eb = {0};
        cr_assert_eq(gm_results_read_string(text, files[f], &a, &ea), GM_OK, "%s", ea.message);
        cr_assert_eq(gm_results_read_string(whole, files[f], &b, &eb), GM_OK, "%s", eb.message);
        cr_assert_gt(a.n_runs, 0);
        char *ja = gm_results_to_json(&a), *jb = gm_results_to_json(&b);
        cr_assert_str_eq(ja, jb, "%s", files[f]);
        free(ja);
        free(jb);
        gm_results_free(&a);
        gm_results_free(&b);
        free(whole);
        free(text);
        free(path);
    }
}

/* An error inside a run is named as before: by the line and column in the
 * whole file, or by the run's JSON path. */
Test(scale, an_error_in_a_run_names_the_file_line_and_path)
{
    char *path = gmt_fixture("handwritten-small.json");
    char *text = gmt_text(path);
    const char *runs = strstr(text, "\n  \"runs\":");
    cr_assert(runs);
    /* a syntax error in the second run: a missing comma after a value */
    const char *v = strstr(runs, "\"variant\":");
    v = strstr(v + 1, "\"variant\":");
    cr_assert(v);
    const char *comma = strchr(v, ',');
    size_t line = 1;
    for (const char *p = text; p < comma; p++)
        line += *p == '\n';
    gm_buf b = GM_BUF_INIT;
    gm_buf_put(&b, text, (size_t)(comma - text));
    gm_buf_puts(&b, comma + 1);
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_string(b.data, "small.json", &r, &e), GM_ERR_PARSE);
    char want[64];
    snprintf(want, sizeof want, "small.json:%zu:", line + 1);
    gmt_assert_has(e.message, want);
    gm_buf_free(&b);
    /* a value of the wrong type in the third run */
    const char *m = strstr(runs, "\"kernel\":");
    m = strstr(m + 1, "\"kernel\":");
    m = strstr(m + 1, "\"kernel\":");
    cr_assert(m);
    gm_buf_put(&b, text, (size_t)(m - text));
    gm_buf_puts(&b, "\"kernel\": 7, \"_was\":");
    gm_buf_puts(&b, m + strlen("\"kernel\":"));
    cr_assert_neq(gm_results_read_string(b.data, "small.json", &r, &e), GM_OK);
    gmt_assert_has(e.message, "small.json: runs[2].kernel: expected a string");
    gm_buf_free(&b);
    free(text);
    free(path);
}
