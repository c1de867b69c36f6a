/* test_explain.c — every explanation of the committed H100 run
 * (examples/h100/run.json, its 14 experiments) read back against the
 * numbers, as issue 28 asked:
 *
 *   - each figure a sentence quotes (a time, a ratio, sectors per request,
 *     wavefronts, a hit rate or another percentage, a bandwidth, bytes) is one
 *     of the runs that sentence names: their own values, or the ratio of two
 *     of them, formatted as the report formats them.  A sentence that names no
 *     run speaks of its paragraph's runs; a list item of its own run; the
 *     sweep's paragraph of all the experiment's runs;
 *   - a sentence that says how two figures relate ("wins by less than",
 *     "within 5%", "the time follows", "fewer sectors") says it of figures that
 *     do, wherever the same words come back, and no sentence is said twice in
 *     one explanation.
 *
 * The values are read here from the counters, independently of
 * reports/findings_util.c. */
#include "../core/buf.h"
#include "../core/catalog.h"
#include "../core/fmt.h"
#include "../core/results.h"
#include "../reports/findings.h"
#include "../reports/limits.h"
#include "../reports/runs.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the figures a run can be quoted by ----------------------------------- */

typedef enum {
    K_MS,      /* "984.0 µs" */
    K_RATIO,   /* "2.4×" */
    K_SPR,     /* sectors per request, one decimal: "4.6 sectors", "(22.7 a request)" */
    K_WPI,     /* wavefronts per instruction or request, two decimals */
    K_WAYS,    /* "a 32-way bank conflict", "on average a 2.4-way ..." */
    K_PCT,     /* "89.8%" */
    K_GBS,     /* "2,762 GB/s" */
    K_BYTES,   /* "337 MiB" */
    K_KINDS
} S_kind;

static const char *const S_kind_name[K_KINDS] = {"time", "ratio", "sectors per request",
                                                 "wavefronts", "ways", "percentage",
                                                 "bandwidth", "bytes"};

/* Each kind's formatted figures, one per line, between newlines. */
typedef struct {
    gm_buf k[K_KINDS];
} S_set;

static void S_set_init(S_set *s)
{
    for (int i = 0; i < K_KINDS; i++) {
        s->k[i] = (gm_buf)GM_BUF_INIT;
        gm_buf_puts(&s->k[i], "\n");
    }
}

static void S_set_free(S_set *s)
{
    for (int i = 0; i < K_KINDS; i++)
        gm_buf_free(&s->k[i]);
}

static bool S_has(const S_set *s, S_kind k, const char *tok)
{
    gm_buf n = GM_BUF_INIT;
    gm_buf_printf(&n, "\n%s\n", tok);
    bool has = strstr(s->k[k].data, n.data) != NULL;
    gm_buf_free(&n);
    return has;
}

static void S_add(S_set *s, S_kind k, double v)
{
    if (!isfinite(v))
        return;
    gm_buf *b = &s->k[k];
    switch (k) {
    case K_MS: gm_fmt_ms(b, v); break;
    case K_RATIO: gm_fmt_ratio(b, v); break;
    case K_SPR: gm_fmt_fixed(b, v, 1); break;
    case K_WPI: gm_fmt_fixed(b, v, 2); break;
    case K_WAYS:
        gm_fmt_count(b, round(v));
        gm_buf_puts(b, "\n");
        gm_fmt_fixed(b, v, 1);
        break;
    case K_PCT: gm_fmt_pct(b, v); break;
    case K_GBS: gm_fmt_gbs(b, v); break;
    case K_BYTES: gm_fmt_bytes(b, v); break;
    case K_KINDS: break;
    }
    gm_buf_puts(b, "\n");
}

static double S_m(const gm_run *run, const char *name) { return gm_run_metric_num(run, name); }

/* x + y, NaN only when both are */
static double S_sum(double x, double y)
{
    if (!isfinite(x) && !isfinite(y))
        return NAN;
    return (isfinite(x) ? x : 0) + (isfinite(y) ? y : 0);
}

static double S_spr(const gm_run *run, bool store)
{
    double s = S_m(run, store ? GM_M_ST_SECTORS : GM_M_LD_SECTORS);
    double q = S_m(run, store ? GM_M_ST_REQUESTS : GM_M_LD_REQUESTS);
    return s >= 0 && q > 0 ? s / q : S_m(run, store ? GM_M_ST_SPR : GM_M_LD_SPR);
}

static double S_wpi(const gm_run *run, bool store)
{
    double w = S_m(run, store ? GM_M_SH_ST_WAVES : GM_M_SH_LD_WAVES);
    double i = S_m(run, store ? GM_M_SH_ST_INST : GM_M_SH_LD_INST);
    return w >= 0 && i > 0 ? w / i : NAN;
}

/* The ratios of two runs' figures, both ways. */
static void S_add_ratio(S_set *s, double a, double b)
{
    if (a > 0 && b > 0) {
        S_add(s, K_RATIO, a / b);
        S_add(s, K_RATIO, b / a);
    }
}

/* Everything one run can be quoted by. */
static void S_run_figures(S_set *s, const gm_results *r, const gm_ceiling *c, const gm_run *run)
{
    gm_limits l;
    gm_limits_of(run, c, r->device.sm_count, &l);
    S_add(s, K_MS, gm_run_median_ms(run));
    for (int st = 0; st < 2; st++) {
        double spr = S_spr(run, st), eff = S_m(run, st ? GM_M_ST_EFF : GM_M_LD_EFF);
        S_add(s, K_SPR, spr);
        S_add(s, K_SPR, gm_run_predicted_spr(run, st));
        S_add(s, K_BYTES, spr * 32.0);
        S_add(s, K_BYTES, spr * 32.0 * eff / 100.0);
        S_add(s, K_PCT, eff);
        S_add(s, K_PCT, fmin(eff, 100.0));
        /* shared: per instruction, per request made, and each ideal */
        double wpi = S_wpi(run, st);
        double waves = S_m(run, st ? GM_M_SH_ST_WAVES : GM_M_SH_LD_WAVES);
        double inst = S_m(run, st ? GM_M_SH_ST_INST : GM_M_SH_LD_INST);
        double confl = S_m(run, st ? GM_M_SH_ST_CONFL : GM_M_SH_LD_CONFL);
        const char *nw = st ? GM_M_SH_ST_WAVES : GM_M_SH_LD_WAVES;
        const char *nc = st ? GM_M_SH_ST_CONFL : GM_M_SH_LD_CONFL;
        const char *ni = st ? GM_M_SH_ST_INST : GM_M_SH_LD_INST;
        double pw = gm_run_predicted(run, nw), pc = gm_run_predicted(run, nc);
        double pi = gm_run_predicted(run, ni);
        double ideals[3] = {pw - pc > 0 && pi > 0 ? (pw - pc) / pi : NAN,
                            confl >= 0 && waves - confl > 0 && inst > 0 ? (waves - confl) / inst
                                                                        : NAN,
                            1.0};
        S_add(s, K_WPI, wpi);
        S_add(s, K_WPI, gm_run_predicted_shared_wpi(run, st));
        for (int k = 0; k < 3; k++) {
            if (!isfinite(wpi) || !isfinite(ideals[k]))
                continue;
            S_add(s, K_WPI, ideals[k]);
            S_add(s, K_WAYS, wpi / ideals[k]);
            S_add(s, K_WPI, waves / (inst * ideals[k]));   /* per request made */
        }
    }
    double rd = S_m(run, GM_M_DRAM_RD), wr = S_m(run, GM_M_DRAM_WR);
    S_add(s, K_BYTES, rd);
    S_add(s, K_BYTES, wr);
    S_add(s, K_BYTES, S_sum(rd, wr));
    S_add(s, K_BYTES, gm_value_num(&run->bytes_read));
    S_add(s, K_BYTES, gm_value_num(&run->bytes_written));
    S_add(s, K_GBS, S_m(run, GM_M_DRAM_RATE) / 1e9);
    S_add(s, K_GBS, gm_run_dram_gbs(run));
    S_add(s, K_GBS, gm_run_effective_gbs(run));
    S_add(s, K_GBS, c->gbs);
    S_add(s, K_PCT, S_m(run, GM_M_DRAM_PCT));
    S_add(s, K_PCT, l.l1_hit);
    S_add(s, K_PCT, l.l2_hit);
    S_add(s, K_PCT, l.occupancy);
    S_add(s, K_PCT, l.dram_pct);
    S_add(s, K_PCT, l.efficiency);
    S_add(s, K_PCT, 100.0 * gm_run_effective_gbs(run) / c->gbs);
    S_add(s, K_SPR, l.spr);
    S_add(s, K_WPI, l.shared_wpi);
    S_add(s, K_MS, l.ms);
    if (l.useful > 0)
        S_add(s, K_RATIO, l.dram_bytes / l.useful);
}

/* The ratios two runs' figures make: times, load sectors (and with the
 * stores), DRAM bytes, shared wavefronts per load instruction, useful
 * bandwidth. */
static void S_pair_figures(S_set *s, const gm_run *a, const gm_run *b)
{
    S_add_ratio(s, gm_run_median_ms(a), gm_run_median_ms(b));
    S_add_ratio(s, S_m(a, GM_M_LD_SECTORS), S_m(b, GM_M_LD_SECTORS));
    S_add_ratio(s, S_sum(S_m(a, GM_M_LD_SECTORS), S_m(a, GM_M_ST_SECTORS)),
                S_sum(S_m(b, GM_M_LD_SECTORS), S_m(b, GM_M_ST_SECTORS)));
    S_add_ratio(s, S_sum(S_m(a, GM_M_DRAM_RD), S_m(a, GM_M_DRAM_WR)),
                S_sum(S_m(b, GM_M_DRAM_RD), S_m(b, GM_M_DRAM_WR)));
    S_add_ratio(s, S_wpi(a, false), S_wpi(b, false));
    S_add_ratio(s, gm_run_effective_gbs(a), gm_run_effective_gbs(b));
}

static void S_scope_figures(S_set *s, const gm_results *r, const gm_ceiling *c,
                            const gm_run *const *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        S_run_figures(s, r, c, runs[i]);
        for (size_t j = 0; j < n; j++)
            S_pair_figures(s, runs[i], runs[j]);
    }
}

/* ---- reading the text back ----------------------------------------------- */

/* The runs of the group whose names (as the explanation writes them) occur
 * in text[0..len). */
static size_t S_named(const gm_section *sec, const char *text, size_t len, const gm_run **out)
{
    size_t n = 0;
    char *t = strndup(text, len);
    for (size_t i = 0; i < sec->n_group; i++) {
        gm_buf name = GM_BUF_INIT;
        gm_vary_case_md(&sec->vary_group, sec->group[i], NULL, &name);
        gm_buf_puts(&name, "");
        /* a name ends with its backquote or its parameters' parenthesis, so
         * one is never the start of another */
        if (strstr(t, name.data))
            out[n++] = sec->group[i];
        gm_buf_free(&name);
    }
    free(t);
    return n;
}

/* A number token: digits with thousands commas and a decimal part. */
static size_t S_number(const char *p)
{
    size_t n = 0;
    while ((p[n] >= '0' && p[n] <= '9') || (p[n] == ',' && p[n + 1] >= '0' && p[n + 1] <= '9') ||
           (p[n] == '.' && p[n + 1] >= '0' && p[n + 1] <= '9'))
        n++;
    return n;
}

static bool S_starts(const char *p, const char *s) { return strncmp(p, s, strlen(s)) == 0; }

/* What a number at p (n characters) quotes, from the words around it;
 * K_KINDS when it is none of the figures checked (a count, a parameter). */
static S_kind S_kind_of(const char *start, const char *p, size_t n)
{
    const char *a = p + n;
    bool dec = memchr(p, '.', n) != NULL;
    if (S_starts(a, " µs") || S_starts(a, " ms") || S_starts(a, " ns") ||
        (S_starts(a, " s") && !((a[2] >= 'a' && a[2] <= 'z'))))
        return K_MS;
    if (S_starts(a, "×"))
        return K_RATIO;
    if (S_starts(a, "%"))
        return dec ? K_PCT : K_KINDS;   /* "within 5%": words, not a figure */
    if (S_starts(a, " GB/s"))
        return K_GBS;
    if ((S_starts(a, " B") && !(a[2] >= 'a' && a[2] <= 'z')) || S_starts(a, " KiB") ||
        S_starts(a, " MiB") || S_starts(a, " GiB") || S_starts(a, " TiB"))
        return K_BYTES;
    if (S_starts(a, "-way"))
        return K_WAYS;
    if (dec && (S_starts(a, " sectors") || S_starts(a, " a request)")))
        return K_SPR;
    if (dec && (S_starts(a, " wavefronts") || S_starts(a, " shared wavefronts")))
        return K_WPI;
    /* "(ideal 1.00)", "predicts 28.0", "go from 32.0 to 4.0", "against 1.07 for" */
    size_t back = (size_t)(p - start);
    if (dec && back >= 7 && S_starts(p - 7, "(ideal "))
        return K_WPI;
    if (dec && back >= 9 && S_starts(p - 9, "predicts "))
        return n >= 4 && p[n - 3] == '.' ? K_WPI : K_SPR;
    if (dec && back >= 5 && strstr(start, "sectors per request go from ") &&
        (S_starts(p - 5, "from ") || S_starts(p - 3, "to ")))
        return K_SPR;
    if (dec && back >= 8 && S_starts(p - 8, "against ") && S_starts(a, " for "))
        return K_WPI;
    return K_KINDS;
}

/* Each figure of text[0..len) must be in the set; a complaint per one that
 * is not, into errs. */
static void S_check_figures(const char *exp, const char *text, size_t len, const S_set *s,
                            gm_buf *errs)
{
    char *t = strndup(text, len);
    bool code = false;
    for (const char *p = t; *p;) {
        if (*p == '`') {
            code = !code;
            p++;
            continue;
        }
        size_t n = S_number(p);
        /* part of a word, a parameter's value or a name */
        bool part = p > t && ((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                              p[-1] == '=' || p[-1] == '_' || p[-1] == '.');
        if (!n || code || part) {
            p += n ? n : 1;
            continue;
        }
        S_kind k = S_kind_of(t, p, n);
        if (k != K_KINDS) {
            gm_buf full = GM_BUF_INIT;
            gm_buf_put(&full, p, n);
            const char *a = p + n;
            /* the unit, as the formatters write it: " µs", " GB/s", " MiB" */
            if (k == K_MS || k == K_GBS || k == K_BYTES)
                gm_buf_put(&full, a, 1 + strcspn(a + 1, " ,;:.)"));
            else if (k == K_RATIO)
                gm_buf_puts(&full, "×");
            else if (k == K_PCT)
                gm_buf_puts(&full, "%");
            if (!S_has(s, k, full.data))
                gm_buf_printf(errs, "%s: %s %s is no figure of the runs it speaks of, in: %s\n",
                              exp, S_kind_name[k], full.data, t);
            gm_buf_free(&full);
        }
        p += n;
    }
    free(t);
}

/* ---- how two figures relate ----------------------------------------------- */

/* The number after the first occurrence of `after` in s, in the unit given
 * (ms for a time, else as written); NaN when absent. */
static double S_after(const char *s, const char *after)
{
    const char *p = strstr(s, after);
    if (!p)
        return NAN;
    p += strlen(after);
    char num[64];
    size_t n = 0;
    for (; *p && n < sizeof num - 1 && ((*p >= '0' && *p <= '9') || *p == '.' || *p == ','); p++)
        if (*p != ',')
            num[n++] = *p;
    num[n] = '\0';
    if (!n)
        return NAN;
    double v = strtod(num, NULL);
    if (S_starts(p, " µs"))
        v /= 1e3;
    else if (S_starts(p, " ns"))
        v /= 1e6;
    else if (S_starts(p, " s") && !(p[2] >= 'a' && p[2] <= 'z'))
        v *= 1e3;
    return v;
}

/* The relative display precision of the number after `after` in s: half a
 * unit of its last printed digit over its value ("4.1" 0.012, "4.37" 0.0011). */
static double S_prec(const char *s, const char *after)
{
    const char *p = strstr(s, after);
    if (!p)
        return 0;
    p += strlen(after);
    double v = 0, unit = 1;
    bool point = false;
    for (; (*p >= '0' && *p <= '9') || *p == '.' || *p == ','; p++) {
        if (*p == '.')
            point = true;
        else if (*p != ',') {
            v = 10 * v + (*p - '0');
            if (point)
                unit /= 10;
        }
    }
    v *= unit;
    return v > 0 ? 0.5 * unit / v : 0;
}

/* Does sentence s say how two figures relate, and is that so?  A complaint
 * into errs when not. */
static size_t S_check_relation(const char *exp, const char *s, gm_buf *errs)
{
    size_t checked = 0;
#define S_REL(cond, what)                                                                \
    do {                                                                                 \
        checked++;                                                                       \
        if (!(cond))                                                                     \
            gm_buf_printf(errs, "%s: \"%s\" is not so in: %s\n", exp, what, s);          \
    } while (0)
    /* display precision: a ratio of one decimal is within 0.05 of its value */
    const double slack = 0.05;
    if (strstr(s, " wins by ") && strstr(s, ", less than the ")) {
        double x = S_after(s, " wins by "), y = S_after(s, ", less than the ");
        S_REL(x < y + slack, "wins by less than");
    }
    if (strstr(s, "The time follows ") && strstr(s, " the time for ")) {
        double x = S_after(s, ": "), y = S_after(s, " the time for ");
        S_REL(x <= (y + slack) * 1.25 + slack && x + slack >= (y - slack) / 1.25,
              "the time follows");
    }
    if (strstr(s, " loses more time (")) {
        double x = S_after(s, " loses more time ("), y = S_after(s, " grows (");
        S_REL(x + slack > y, "loses more time than the counter grows");
    }
    if (strstr(s, "within 5% of each other") && strstr(s, " take between ")) {
        double x = S_after(s, " take between "), y = S_after(s, " and ");
        S_REL(y <= x * 1.05 * 1.01, "within 5% of each other");
    }
    if (strstr(s, " fetches fewer global-load sectors than ")) {
        const char *q = strchr(strstr(s, " fetches fewer"), '(');
        double x = S_after(q, "("), y = S_after(q, " against ");
        S_REL(x < y, "fewer global-load sectors");
    }
    if (strstr(s, " fetch about the same global-load sectors (")) {
        const char *q = strstr(s, " fetch about the same global-load sectors (");
        double x = S_after(q, "sectors ("), y = S_after(q, " and ");
        S_REL(fabs(x - y) <= 0.1 * fmax(x, y), "about the same global-load sectors");
    }
    if (strstr(s, " is the fastest (") && strstr(s, " the slowest (")) {
        double x = S_after(s, " is the fastest ("), y = S_after(s, " the slowest (");
        double q = S_after(strstr(s, " the slowest ("), ", ");
        S_REL(y >= x && fabs(y / x - q) <= slack + 0.01 * q, "the fastest, the slowest, as long");
    }
    if (strstr(s, ", close to what its memory delivers")) {
        double p = S_after(s, "GB/s, ");
        S_REL(p >= 80.0, "close to what its memory delivers");
    }
    if (strstr(s, "DRAM-bound at ")) {
        double p = S_after(s, "DRAM-bound at ");
        S_REL(p >= GM_LIMIT_DRAM_PCT, "DRAM-bound");
    }
    if (strstr(s, "latency-bound: ")) {
        double p = S_after(s, "latency-bound: ");
        S_REL(p < GM_LIMIT_OCCUPANCY, "latency-bound");
    }
    if (strstr(s, "limited by its sectors, not by DRAM (")) {
        double p = S_after(s, "not by DRAM ("), e = S_after(s, " use ");
        S_REL(p < GM_LIMIT_DRAM_PCT && e <= GM_LIMIT_EFFICIENCY, "limited by its sectors");
    }
#undef S_REL
    return checked;
}

/* Each clause of the sweep: "x goes from A at p=1 to B at p=2 (R× higher)". */
static size_t S_check_sweep(const char *exp, const char *para, gm_buf *errs)
{
    size_t checked = 0;
    for (const char *c = strstr(para, " from "); c; c = strstr(c + 1, " from ")) {
        if (S_starts(c - 5, "sectors per request go") || !strstr(c, " to "))
            continue;
        double a = S_after(c, " from "), b = S_after(strstr(c, " to "), " to ");
        const char *paren = strstr(c, " at ");
        paren = paren ? strchr(strstr(paren + 1, " to "), '(') : NULL;
        const char *next = strstr(c + 1, " from ");
        if (!paren || (next && paren > next) || !isfinite(a) || !isfinite(b))
            continue;
        checked++;
        double q = b >= a ? b / a : a / b;
        bool up = S_starts(paren, "(") && (strstr(paren, " higher)") == strchr(paren, ' ') ||
                                            strstr(paren, " longer)") == strchr(paren, ' '));
        if (S_starts(paren, "(within 5%)")) {
            if (!(q < 1.05 * 1.01))
                gm_buf_printf(errs, "%s: \"within 5%%\" of %g and %g\n", exp, a, b);
        } else {
            double r = S_after(paren, "(");
            /* both figures are rounded for display: their ratio is known
             * to within the sum of their relative precisions */
            double pa = S_prec(c, " from "), pb = S_prec(strstr(c, " to "), " to ");
            if (!(fabs(r - q) <= 0.05 + (0.01 + pa + pb) * q) || up != (b > a))
                gm_buf_printf(errs, "%s: sweep ratio %g (%s) of %g to %g\n", exp, r,
                              up ? "up" : "down", a, b);
        }
    }
    return checked;
}

/* ---- the test --------------------------------------------------------------- */

/* The sentences of a paragraph: split after ". " before a capital or a name. */
static size_t S_sentence_end(const char *p, const char *end)
{
    for (const char *c = p; c + 1 < end; c++)
        if (c[0] == '.' && c[1] == ' ' && c + 2 < end &&
            ((c[2] >= 'A' && c[2] <= 'Z') || c[2] == '`'))
            return (size_t)(c + 1 - p);
    return (size_t)(end - p);
}

Test(explain, every_figure_is_the_runs_own_and_every_relation_holds)
{
    char *path = gmt_src("examples/h100/run.json");
    gm_results r;
    gm_error e = {0};
    cr_assert_eq(gm_results_read_file(path, &r, &e), GM_OK, "%s: %s", path, e.message);
    free(path);
    gm_ceiling ceiling;
    gm_results_ceiling(&r, &ceiling);
    gm_sections ss;
    gm_sections_build(&r, &ss);
    cr_assert_eq(ss.n, 14, "the run's 14 experiments");
    gm_buf errs = GM_BUF_INIT;
    gm_buf_puts(&errs, "");
    size_t figures = 0, relations = 0;
    for (size_t i = 0; i < ss.n; i++) {
        const gm_section *sec = &ss.v[i];
        const char *id = sec->exp->id;
        gm_buf b = GM_BUF_INIT;
        gm_explain_section(&r, sec, &b);
        gm_buf_puts(&b, "");
        cr_assert_gt(b.len, 100, "%s: an explanation", id);
        const gm_run **para_runs = gm_xcalloc(sec->n_runs + 1, sizeof *para_runs);
        const gm_run **unit_runs = gm_xcalloc(sec->n_runs + 1, sizeof *unit_runs);
        gm_buf said = GM_BUF_INIT;
        gm_buf_puts(&said, "\n");
        for (const char *p = b.data; *p;) {
            const char *pe = strstr(p, "\n\n");
            size_t plen = pe ? (size_t)(pe - p) : strlen(p);
            bool sweep = S_starts(p, "Along ");
            size_t np = sweep ? 0 : S_named(sec, p, plen, para_runs);
            if (sweep) {
                char *para = strndup(p, plen);
                relations += S_check_sweep(id, para, &errs);
                free(para);
                np = sec->n_runs;
                for (size_t k = 0; k < np; k++)
                    para_runs[k] = sec->runs[k];
            }
            if (!np) {
                np = sec->n_group;
                for (size_t k = 0; k < np; k++)
                    para_runs[k] = sec->group[k];
            }
            /* units: a list's items, a paragraph's sentences */
            bool list = S_starts(p, "- ");
            for (const char *u = p; u < p + plen;) {
                size_t ulen;
                if (list) {
                    const char *nl = memchr(u, '\n', (size_t)(p + plen - u));
                    ulen = nl ? (size_t)(nl - u) : (size_t)(p + plen - u);
                } else {
                    ulen = S_sentence_end(u, p + plen);
                }
                size_t nu = sweep ? 0 : S_named(sec, u, ulen, unit_runs);
                /* a figure of the runs the unit names, or of its paragraph's;
                 * a ratio of any two of them */
                S_set set;
                S_set_init(&set);
                if (nu)
                    S_scope_figures(&set, &r, &ceiling, unit_runs, nu);
                else
                    S_scope_figures(&set, &r, &ceiling, para_runs, np);
                if (nu) {
                    /* a ratio between this unit's runs and its paragraph's */
                    for (size_t a = 0; a < nu; a++)
                        for (size_t k = 0; k < np; k++)
                            S_pair_figures(&set, unit_runs[a], para_runs[k]);
                    for (size_t a = 0; a < np; a++)
                        for (size_t k = 0; k < np; k++)
                            S_pair_figures(&set, para_runs[a], para_runs[k]);
                }
                S_check_figures(id, u, ulen, &set, &errs);
                S_set_free(&set);
                char *unit = strndup(u, ulen);
                for (const char *c = unit; *c; c++)
                    figures += *c >= '0' && *c <= '9' &&
                               (c == unit || !(c[-1] >= '0' && c[-1] <= '9'));
                relations += S_check_relation(id, unit, &errs);
                /* no sentence twice in one explanation */
                gm_buf key = GM_BUF_INIT;
                gm_buf_printf(&key, "\n%s\n", unit);
                if (ulen > 20 && strstr(said.data, key.data))
                    gm_buf_printf(&errs, "%s: said twice: %s\n", id, unit);
                gm_buf_put(&said, key.data + 1, key.len - 1);
                gm_buf_free(&key);
                free(unit);
                u += ulen;
                while (u < p + plen && (*u == ' ' || *u == '\n'))
                    u++;
            }
            p += plen;
            while (*p == '\n')
                p++;
        }
        gm_buf_free(&said);
        free((void *)para_runs);
        free((void *)unit_runs);
        gm_buf_free(&b);
    }
    cr_assert_eq(errs.len, 0, "%s", errs.data);
    cr_assert_gt(figures, 300, "only %zu figures read", figures);
    cr_assert_gt(relations, 20, "only %zu relations read", relations);
    gm_buf_free(&errs);
    gm_sections_free(&ss);
    gm_results_free(&r);
}
