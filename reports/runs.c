/* runs.c — the run analysis the report's text and charts share: which runs
 * passed, their median time, which of them do the same work (the comparison
 * group of a section), the parameters that vary, and the sweep of a section.
 */
#include "runs.h"

#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/say.h"
#include "../core/srclines.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers -------------------------------------------------------- */

static bool S_streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static bool S_value_eq(const gm_value *a, const gm_value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case GM_V_ABSENT: return true;
    case GM_V_INT: return a->i == b->i;
    case GM_V_REAL: return a->r == b->r;
    case GM_V_STR: return S_streq(a->s, b->s);
    }
    return false;
}

/* Order for sorting parameter values: numbers by value, then strings. */
static int S_value_cmp(const gm_value *a, const gm_value *b)
{
    bool an = a->kind == GM_V_INT || a->kind == GM_V_REAL;
    bool bn = b->kind == GM_V_INT || b->kind == GM_V_REAL;
    if (an && bn) {
        double x = gm_value_num(a), y = gm_value_num(b);
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (an != bn)
        return an ? -1 : 1;
    if (a->kind == GM_V_STR && b->kind == GM_V_STR)
        return strcmp(a->s ? a->s : "", b->s ? b->s : "");
    return (int)a->kind - (int)b->kind;
}

bool gm_run_passed(const gm_run *run)
{
    return run->check.status == GM_CHECK_PASSED || run->check.status == GM_CHECK_NO_REFERENCE;
}

bool gm_run_is_program(const gm_run *run)
{
    return run->check.status == GM_CHECK_NO_REFERENCE;
}

double gm_run_total_ms(const gm_run *run)
{
    if (!run->timing.present || !run->timing.samples || !run->timing.n)
        return NAN;
    double t = 0;
    for (size_t i = 0; i < run->timing.n; i++)
        t += run->timing.samples[i];
    return t;
}

double gm_run_launches(const gm_run *run)
{
    return gm_run_is_program(run) && run->timing.present && run->timing.n > 0
               ? (double)run->timing.n : 1.0;
}

double gm_run_dram_gbs(const gm_run *run)
{
    double rd = gm_run_metric_num(run, GM_M_DRAM_RD), wr = gm_run_metric_num(run, GM_M_DRAM_WR);
    double t = gm_run_total_ms(run) / gm_run_launches(run);
    if (!gm_run_is_program(run))
        t = gm_run_median_ms(run);
    if (!(rd >= 0) || !(wr >= 0) || !(t > 0))
        return NAN;
    return (rd + wr) / (t * 1e6);
}

bool gm_section_is_program(const gm_section *s)
{
    for (size_t i = 0; i < s->n_runs; i++)
        if (!gm_run_is_program(s->runs[i]))
            return false;
    return s->n_runs > 0;
}

double gm_run_median_ms(const gm_run *run)
{
    if (!run->timing.present || !isfinite(run->timing.median))
        return NAN;
    return run->timing.median;
}

double gm_run_shared_wpi(const gm_run *run, bool store)
{
    double waves = gm_run_metric_num(run, store ? GM_M_SH_ST_WAVES : GM_M_SH_LD_WAVES);
    double inst = gm_run_metric_num(run, store ? GM_M_SH_ST_INST : GM_M_SH_LD_INST);
    if (!(inst > 0) || isnan(waves))
        return NAN;
    return waves / inst;
}

/* ---- the address-trace model's figures ------------------------------------------ */

double gm_run_predicted(const gm_run *run, const char *name)
{
    if (!run->prediction.present)
        return NAN;
    const gm_metric *m = gm_prediction_metric(&run->prediction, name);
    return m ? gm_value_num(&m->value) : NAN;
}

bool gm_run_has_prediction(const gm_run *run)
{
    return run->prediction.present && run->prediction.n_metrics > 0;
}

bool gm_run_gpu_traced(const gm_run *run)
{
    return run->prediction.present && run->prediction.method &&
           strcmp(run->prediction.method, GM_SL_PREDICTION_METHOD) == 0;
}

double gm_run_predicted_spr(const gm_run *run, bool store)
{
    /* from the counts when both are there (the model gives both, and the
     * ratio of counts is what ncu's ratio metric is) */
    double sec = gm_run_predicted(run, store ? GM_M_ST_SECTORS : GM_M_LD_SECTORS);
    double req = gm_run_predicted(run, store ? GM_M_ST_REQUESTS : GM_M_LD_REQUESTS);
    if (sec >= 0 && req > 0)
        return sec / req;
    return gm_run_predicted(run, store ? GM_M_ST_SPR : GM_M_LD_SPR);
}

double gm_run_predicted_shared_wpi(const gm_run *run, bool store)
{
    double waves = gm_run_predicted(run, store ? GM_M_SH_ST_WAVES : GM_M_SH_LD_WAVES);
    double inst = gm_run_predicted(run, store ? GM_M_SH_ST_INST : GM_M_SH_LD_INST);
    return waves >= 0 && inst > 0 ? waves / inst : NAN;
}

/* ---- sections ------------------------------------------------------------- */

static void S_push_run(const gm_run ***v, size_t *n, const gm_run *run)
{
    *v = gm_xrealloc((void *)*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = run;
}

/* Stable merge sort of runs (equal runs keep their order), so that sorting a
 * large section costs n log n, not the n^2 of an insertion sort. */
typedef int (*S_run_cmp)(const gm_run *a, const gm_run *b, const void *ctx);

static void S_merge_sort(const gm_run **v, const gm_run **tmp, size_t n, S_run_cmp cmp,
                         const void *ctx)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    S_merge_sort(v, tmp, h, cmp, ctx);
    S_merge_sort(v + h, tmp, n - h, cmp, ctx);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp(v[j], v[i], ctx) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

static void S_sort_runs(const gm_run **v, size_t n, S_run_cmp cmp, const void *ctx)
{
    if (n < 2)
        return;
    const gm_run **tmp = gm_xmalloc(n * sizeof *tmp);
    S_merge_sort(v, tmp, n, cmp, ctx);
    free((void *)tmp);
}

bool gm_runs_same_work(const gm_run *a, const gm_run *b)
{
    return S_value_eq(&a->bytes_read, &b->bytes_read) &&
           S_value_eq(&a->bytes_written, &b->bytes_written) && S_value_eq(&a->flops, &b->flops);
}

/* A total order of values that is 0 exactly when S_value_eq holds (a value
 * the reader cannot produce, a NaN or a string without text, aside). */
static int S_value_order(const gm_value *a, const gm_value *b)
{
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    switch (a->kind) {
    case GM_V_ABSENT: return 0;
    case GM_V_INT: return a->i < b->i ? -1 : a->i > b->i;
    case GM_V_REAL: return a->r < b->r ? -1 : a->r > b->r;
    case GM_V_STR: return strcmp(a->s ? a->s : "", b->s ? b->s : "");
    }
    return 0;
}

int gm_runs_work_cmp(const gm_run *a, const gm_run *b)
{
    int c = S_value_order(&a->bytes_read, &b->bytes_read);
    if (!c)
        c = S_value_order(&a->bytes_written, &b->bytes_written);
    if (!c)
        c = S_value_order(&a->flops, &b->flops);
    return c;
}

static double S_work_bytes(const gm_run *run)
{
    double r = gm_value_num(&run->bytes_read), w = gm_value_num(&run->bytes_written);
    return (isnan(r) ? 0 : r) + (isnan(w) ? 0 : w);
}

/* A passed run and its place in the section. */
typedef struct {
    const gm_run *run;
    size_t at;
} S_placed;

static int S_placed_work_cmp(const void *pa, const void *pb)
{
    const S_placed *a = pa, *b = pb;
    int c = gm_runs_work_cmp(a->run, b->run);
    if (c)
        return c;
    return a->at < b->at ? -1 : a->at > b->at;
}

static void S_section_group(gm_section *s)
{
    /* Partition the passed runs by the work they do and keep the largest part;
     * on a tie, the one moving the most bytes, then the one whose first run
     * comes first.  Sorted by work, then place, a part is a stretch of runs
     * in section order (n log n, where comparing every pair is n^2). */
    S_placed *v = gm_xmalloc((s->n_runs ? s->n_runs : 1) * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < s->n_runs; i++)
        if (gm_run_passed(s->runs[i]))
            v[m++] = (S_placed){s->runs[i], i};
    qsort(v, m, sizeof *v, S_placed_work_cmp);
    size_t best_at = 0, best_count = 0;
    for (size_t i = 0, j; i < m; i = j) {
        for (j = i + 1; j < m && gm_runs_same_work(v[i].run, v[j].run); j++)
            ;
        if (!gm_runs_same_work(v[i].run, v[i].run))
            continue;   /* equal to no run, itself included */
        size_t count = j - i;
        double bytes = S_work_bytes(v[i].run);
        double best_bytes = best_count ? S_work_bytes(v[best_at].run) : 0;
        if (count > best_count ||
            (count == best_count && (bytes > best_bytes ||
                                     (bytes == best_bytes && v[i].at < v[best_at].at)))) {
            best_count = count;
            best_at = i;
        }
    }
    if (best_count) {
        s->group = gm_xmalloc(best_count * sizeof *s->group);
        for (size_t k = 0; k < best_count; k++)
            s->group[k] = v[best_at + k].run;
        s->n_group = best_count;
    }
    free(v);

    size_t timed = 0;
    for (size_t i = 0; i < s->n_group; i++) {
        const gm_run *run = s->group[i];
        double t = gm_run_median_ms(run);
        if (isnan(t))
            continue;
        timed++;
        if (!s->best || t < gm_run_median_ms(s->best))
            s->best = run;
        if (!s->worst || t >= gm_run_median_ms(s->worst))
            s->worst = run;
    }
    if (timed < 2)
        s->best = s->worst = NULL;
}
static void S_section_sweep(gm_section *s)
{
    const char *p = s->exp->sweep_param;
    if (!p)
        return;
    double first = NAN;
    for (size_t i = 0; i < s->n_runs; i++) {
        if (!gm_run_passed(s->runs[i]))
            continue;
        const gm_param *q = gm_run_param(s->runs[i], p);
        if (!q || (q->value.kind != GM_V_INT && q->value.kind != GM_V_REAL))
            continue;
        double x = gm_value_num(&q->value);
        if (isnan(first))
            first = x;
        else if (x != first) {
            s->has_sweep = true;
            return;
        }
    }
}

/* A program's kernels: largest GPU time (all launches) first; stable, so
 * equal times keep the file's order.  The suite's runs keep the file's order. */
static int S_time_desc(const gm_run *a, const gm_run *b, const void *ctx)
{
    (void)ctx;
    double ta = gm_run_total_ms(a), tb = gm_run_total_ms(b);
    if (!isfinite(ta) || !isfinite(tb))
        return isfinite(ta) ? -1 : isfinite(tb) ? 1 : 0;
    return ta > tb ? -1 : ta < tb;
}

static void S_sort_by_time(gm_section *s)
{
    if (gm_section_is_program(s))
        S_sort_runs(s->runs, s->n_runs, S_time_desc, NULL);
}

/* Sections by experiment id: an open-addressing table of section numbers, so
 * that finding each run's section does not search every section. */
typedef struct {
    size_t *slot;   /* section number + 1; 0 = empty */
    size_t mask;
} S_ids;

static size_t S_hash(const char *s)
{
    size_t h = 1469598103934665603u;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot of id: the one holding it, else the empty one where it goes. */
static size_t *S_ids_find(const S_ids *t, const gm_sections *ss, const char *id)
{
    for (size_t h = S_hash(id) & t->mask;; h = (h + 1) & t->mask)
        if (!t->slot[h] || strcmp(ss->v[t->slot[h] - 1].exp->id, id) == 0)
            return &t->slot[h];
}

void gm_sections_build(const gm_results *r, gm_sections *out)
{
    out->n = 0;
    out->v = gm_xcalloc(r->n_experiments + r->n_runs + 1, sizeof *out->v);
    S_ids ids;
    size_t cap = 16;
    while (cap < 2 * (r->n_experiments + r->n_runs + 1))
        cap *= 2;
    ids.slot = gm_xcalloc(cap, sizeof *ids.slot);
    ids.mask = cap - 1;
    for (size_t i = 0; i < r->n_experiments; i++) {
        const gm_experiment *e = &r->experiments[i];
        size_t *slot = NULL;
        if (e->id) {   /* an experiment without id is never matched (S_streq) */
            slot = S_ids_find(&ids, out, e->id);
            if (*slot)
                continue;
        }
        gm_section *s = &out->v[out->n++];
        s->exp = e;
        s->listed = true;
        if (slot)
            *slot = out->n;
    }
    size_t *of = gm_xmalloc((r->n_runs ? r->n_runs : 1) * sizeof *of);
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        const char *id = run->experiment ? run->experiment : "";
        size_t *slot = S_ids_find(&ids, out, id);
        if (!*slot) {
            gm_section *s = &out->v[out->n++];
            s->synth.id = (char *)id;
            s->synth.title = (char *)id;
            s->exp = &s->synth;  /* out->v is never reallocated: the pointer stays valid */
            *slot = out->n;
        }
        gm_section *s = &out->v[*slot - 1];
        of[i] = *slot - 1;
        s->n_runs++;
        switch (run->check.status) {
        case GM_CHECK_PASSED: s->n_passed++; break;
        case GM_CHECK_FAILED: s->n_failed++; break;
        case GM_CHECK_NOT_RUN: s->n_not_run++; break;
        case GM_CHECK_ERROR: s->n_error++; break;
        case GM_CHECK_NO_REFERENCE: s->n_passed++, s->n_unchecked++; break;
        }
    }
    free(ids.slot);
    for (size_t j = 0; j < out->n; j++) {
        out->v[j].runs = gm_xmalloc((out->v[j].n_runs ? out->v[j].n_runs : 1) * sizeof *out->v[j].runs);
        out->v[j].n_runs = 0;
    }
    for (size_t i = 0; i < r->n_runs; i++) {
        gm_section *s = &out->v[of[i]];
        s->runs[s->n_runs++] = &r->runs[i];
    }
    free(of);
    for (size_t j = 0; j < out->n; j++) {
        gm_section *s = &out->v[j];
        S_sort_by_time(s);
        S_section_group(s);
        S_section_sweep(s);
        gm_vary_build(s->runs, s->n_runs, &s->vary);
        gm_vary_build(s->group, s->n_group, &s->vary_group);
    }
}

void gm_sections_free(gm_sections *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free((void *)s->v[i].runs);
        free((void *)s->v[i].group);
        gm_vary_free(&s->v[i].vary);
        gm_vary_free(&s->v[i].vary_group);
    }
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

/* ---- varying parameters ---------------------------------------------------- */

/* One parameter of one run of the set: sorted by name, then by the run's
 * place in the set, each name's entries are its values in set order. */
typedef struct {
    const char *name;
    const gm_value *value;
    size_t at;
} S_entry;

static int S_entry_cmp(const void *pa, const void *pb)
{
    const S_entry *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->at < b->at ? -1 : a->at > b->at;
}

static int S_name_cmp(const void *pa, const void *pb)
{
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* A name is fixed when every run of the set has it (names are unique within
 * a run: the reader takes them from a JSON object) and each value equals the
 * first run's: a sort by name instead of a search of the set per name. */
void gm_vary_build(const gm_run *const *set, size_t n, gm_vary *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += set[i]->n_params;
    S_entry *e = gm_xmalloc((total ? total : 1) * sizeof *e);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < set[i]->n_params; k++)
            if (set[i]->params[k].name)
                e[m++] = (S_entry){set[i]->params[k].name, &set[i]->params[k].value, i};
    qsort(e, m, sizeof *e, S_entry_cmp);
    out->fixed = gm_xmalloc((m ? m : 1) * sizeof *out->fixed);
    for (size_t i = 0, j; i < m; i = j) {
        bool same = true;
        size_t runs = 0, last = SIZE_MAX;
        for (j = i; j < m && strcmp(e[j].name, e[i].name) == 0; j++) {
            runs += e[j].at != last;   /* a name twice in one run counts once */
            last = e[j].at;
            same = same && S_value_eq(e[i].value, e[j].value);
        }
        if (runs == n && same)
            out->fixed[out->n_fixed++] = e[i].name;
    }
    free(e);
}

void gm_vary_free(gm_vary *v)
{
    free((void *)v->fixed);
    memset(v, 0, sizeof *v);
}

bool gm_vary_varies(const gm_vary *v, const char *name)
{
    if (!v->n)
        return false;
    if (!name)
        return true;
    return !bsearch(&name, v->fixed, v->n_fixed, sizeof *v->fixed, S_name_cmp);
}

void gm_vary_params(const gm_vary *v, const gm_run *run, const char *skip, gm_buf *b)
{
    bool any = false;
    gm_buf_puts(b, "");
    for (size_t i = 0; i < run->n_params; i++) {
        const gm_param *p = &run->params[i];
        if (S_streq(p->name, skip) || !gm_vary_varies(v, p->name))
            continue;
        gm_buf_printf(b, "%s%s=", any ? ", " : "", p->name ? p->name : "");
        gm_fmt_value(b, &p->value);
        any = true;
    }
}

void gm_vary_case_label(const gm_vary *v, const gm_run *run, const char *skip, gm_buf *b)
{
    gm_buf_puts(b, run->variant ? run->variant : "");
    gm_buf tmp = GM_BUF_INIT;
    gm_vary_params(v, run, skip, &tmp);
    if (tmp.len)
        gm_buf_printf(b, " (%s)", tmp.data);
    gm_buf_free(&tmp);
}

void gm_vary_case_md(const gm_vary *v, const gm_run *run, const char *skip, gm_buf *b)
{
    gm_buf tmp = GM_BUF_INIT;
    gm_vary_params(v, run, skip, &tmp);
    if (tmp.len)
        gm_say(b, "{} ({})", GM_CODE(run->variant ? run->variant : ""), GM_TEXT(tmp.data));
    else
        gm_esc_md_code(b, run->variant ? run->variant : "");
    gm_buf_free(&tmp);
}

void gm_runs_params(const gm_run *const *set, size_t n, const gm_run *run, const char *skip,
                    gm_buf *b)
{
    gm_vary v;
    gm_vary_build(set, n, &v);
    gm_vary_params(&v, run, skip, b);
    gm_vary_free(&v);
}

void gm_runs_case_label(const gm_run *const *set, size_t n, const gm_run *run, const char *skip,
                        gm_buf *b)
{
    gm_vary v;
    gm_vary_build(set, n, &v);
    gm_vary_case_label(&v, run, skip, b);
    gm_vary_free(&v);
}

void gm_runs_case_md(const gm_run *const *set, size_t n, const gm_run *run, const char *skip,
                     gm_buf *b)
{
    gm_vary v;
    gm_vary_build(set, n, &v);
    gm_vary_case_md(&v, run, skip, b);
    gm_vary_free(&v);
}

void gm_section_group_label(const gm_section *s, gm_buf *b)
{
    gm_buf_puts(b, "");
    if (!s->n_group)
        return;
    const gm_run *first = s->group[0];
    bool any = false;
    for (size_t i = 0; i < first->n_params; i++) {
        const gm_param *p = &first->params[i];
        if (gm_vary_varies(&s->vary_group, p->name))
            continue;
        gm_buf_printf(b, "%s%s=", any ? ", " : "", p->name ? p->name : "");
        gm_fmt_value(b, &p->value);
        any = true;
    }
}

static int S_swept_cmp(const gm_run *a, const gm_run *b, const void *ctx)
{
    return S_value_cmp(&gm_run_param(a, ctx)->value, &gm_run_param(b, ctx)->value);
}

/* Sort a line's runs by the swept parameter (stable). */
static void S_sort_line(gm_sweep_line *l, const char *p)
{
    S_sort_runs(l->runs, l->n, S_swept_cmp, p);
}

/* Same line: same variant and the same value of every parameter but the swept one. */
static bool S_same_line(const gm_run *a, const gm_run *b, const char *sweep)
{
    if (!S_streq(a->variant, b->variant) || a->n_params != b->n_params)
        return false;
    for (size_t i = 0; i < a->n_params; i++) {
        const gm_param *p = &a->params[i];
        if (S_streq(p->name, sweep))
            continue;
        const gm_param *q = gm_run_param(b, p->name);
        if (!q || !S_value_eq(&p->value, &q->value))
            return false;
    }
    return true;
}

static bool S_numeric_param(const gm_run *run, const char *name)
{
    const gm_param *p = gm_run_param(run, name);
    return p && (p->value.kind == GM_V_INT || p->value.kind == GM_V_REAL);
}

void gm_section_sweep(const gm_section *s, gm_sweep_plan *out)
{
    memset(out, 0, sizeof *out);
    const char *p = s->exp->sweep_param;
    out->param = p;
    if (!p)
        return;
    out->lines = gm_xcalloc(s->n_runs + 1, sizeof *out->lines);
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *run = s->runs[i];
        if (!gm_run_passed(run))
            continue;
        if (!S_numeric_param(run, p)) {
            if (!gm_run_param(run, p) && out->n_flat < 4)
                S_push_run(&out->flat, &out->n_flat, run);
            continue;
        }
        size_t l = 0;
        while (l < out->n_lines && !S_same_line(out->lines[l].runs[0], run, p))
            l++;
        if (l == out->n_lines) {
            if (out->n_lines == GM_MAX_SWEEP_LINES)
                continue;
            out->n_lines++;
        }
        S_push_run(&out->lines[l].runs, &out->lines[l].n, run);
        S_push_run(&out->runs, &out->n_runs, run);
    }
    for (size_t l = 0; l < out->n_lines; l++)
        S_sort_line(&out->lines[l], p);
}

void gm_sweep_plan_free(gm_sweep_plan *p)
{
    for (size_t l = 0; l < p->n_lines; l++)
        free((void *)p->lines[l].runs);
    free(p->lines);
    free((void *)p->runs);
    free((void *)p->flat);
    memset(p, 0, sizeof *p);
}


void gm_results_ceiling(const gm_results *r, gm_ceiling *out)
{
    memset(out, 0, sizeof *out);
    double a = gm_value_num(&r->device.attainable_bandwidth_gbs);
    out->attainable = gm_value_present(&r->device.attainable_bandwidth_gbs) && a > 0;
    double c = gm_value_num(&r->device.copy_bandwidth_gbs);
    out->startup_gbs = out->attainable ? a : c > 0 ? c : NAN;
    out->gbs = out->startup_gbs;
    if (!(out->startup_gbs > 0))
        return;   /* nothing measured at startup: no ceiling to raise */
    double theory = gm_value_num(&r->device.theoretical_bandwidth_gbs);
    if (!(theory > 0))
        theory = INFINITY;
    /* the best measured: a passed run above it raises it */
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        if (!gm_run_passed(run))
            continue;
        double e = gm_run_effective_gbs(run), d = gm_run_dram_gbs(run);
        if (d > theory)
            d = NAN;   /* DRAM faster than its pins allow: counters and time do not match */
        double best = isfinite(d) && !(e >= d) ? d : e;
        if (isfinite(best) && best > out->gbs) {
            out->gbs = best;
            out->raised_by = run;
            out->by_dram = best == d;
        }
    }
}

double gm_results_ceiling_gbs(const gm_results *r, bool *attainable)
{
    gm_ceiling c;
    gm_results_ceiling(r, &c);
    if (attainable)
        *attainable = c.attainable;
    return c.gbs;
}

const char *gm_results_ceiling_name(const gm_results *r)
{
    bool att;
    gm_results_ceiling_gbs(r, &att);
    return att ? "the attainable bandwidth" : "the copy bandwidth";
}

/* ---- runs not fully counted -------------------------------------------------------- */

static int S_uncounted_cmp(const void *pa, const void *pb)
{
    const gm_run *a = *(const gm_run *const *)pa, *b = *(const gm_run *const *)pb;
    double ta = gm_run_total_ms(a), tb = gm_run_total_ms(b);
    ta = isfinite(ta) ? ta : -1;
    tb = isfinite(tb) ? tb : -1;
    return ta > tb ? -1 : ta < tb;
}

void gm_runs_uncounted(const gm_results *r, gm_uncounted *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        double t = gm_run_total_ms(run);
        if (isfinite(t))
            out->all_ms += t;
        if (!run->not_replayed)
            continue;
        out->runs = gm_xrealloc(out->runs, (out->n + 1) * sizeof *out->runs);
        out->runs[out->n++] = run;
        if (isfinite(t))
            out->ms += t;
        else
            out->n_untimed++;
    }
    if (out->n > 1)
        qsort(out->runs, out->n, sizeof *out->runs, S_uncounted_cmp);
}

void gm_uncounted_free(gm_uncounted *u)
{
    free(u->runs);
    memset(u, 0, sizeof *u);
}

/* The reason of a not_replayed text: up to its first ": " outside parentheses. */
static void S_reason(const char *why, gm_buf *b)
{
    int depth = 0;
    size_t n = 0;
    for (; why[n]; n++) {
        depth += why[n] == '(' ? 1 : why[n] == ')' && depth > 0 ? -1 : 0;
        if (depth == 0 && why[n] == ':' && why[n + 1] == ' ')
            break;
    }
    gm_buf_put(b, why, n);
    gm_buf_puts(b, "");
}

#define S_UNCOUNTED_NAMED 4    /* kernels named per reason */
#define S_UNCOUNTED_REASONS 4  /* reasons given */

/* One reason runs were not replayed, and those runs (indices into u.runs). */
typedef struct {
    char *why;
    size_t *runs, n;
    double ms;
    size_t first;
} S_reason_group;

static int S_reason_cmp(const void *pa, const void *pb)
{
    const S_reason_group *a = pa, *b = pb;
    if (a->ms != b->ms)
        return a->ms > b->ms ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* A kernel's name in the line: its variant, its rank in a merged file, its share. */
static void S_uncounted_name(gm_buf *b, const gm_run *run, double all_ms)
{
    const gm_param *rank = gm_run_param(run, "rank");   /* a merged file */
    if (rank && rank->value.kind == GM_V_INT)
        gm_say(b, "{} on rank {}", GM_CODE(run->variant ? run->variant : "?"),
               GM_INT(rank->value.i));
    else
        gm_esc_md_code(b, run->variant ? run->variant : "?");
    double t = gm_run_total_ms(run);
    if (all_ms > 0 && isfinite(t)) {
        gm_say(b, " ({})", GM_PCT(100.0 * t / all_ms));
    } else if (!isfinite(t)) {
        gm_buf_puts(b, " (duration unknown)");
    }
}

void gm_runs_uncounted_md(gm_buf *b, const gm_results *r)
{
    gm_uncounted u;
    gm_runs_uncounted(r, &u);
    if (!u.n) {
        gm_uncounted_free(&u);
        return;
    }
    bool share = u.all_ms > 0, one = u.n == 1;
    gm_say(b, "> **Not fully counted: {} {}", GM_INT((long long)u.n),
           GM_LIT(one ? "kernel" : "kernels"));
    if (share)
        gm_say(b, ", {} of the GPU time", GM_PCT(100.0 * u.ms / u.all_ms));
    gm_buf_puts(b, one ? ".** It could not be replayed: it ran once, as the program made it, and "
                         "only its duration was measured; no counter was read."
                       : ".** They could not be replayed: they ran once, as the program made "
                         "them, and only their duration was measured; no counter was read.");
    /* the runs by reason, the reason of most time first */
    S_reason_group *g = gm_xcalloc(u.n, sizeof *g);
    size_t ng = 0;
    for (size_t i = 0; i < u.n; i++) {
        gm_buf w = GM_BUF_INIT;
        S_reason(u.runs[i]->not_replayed, &w);
        size_t k = 0;
        while (k < ng && strcmp(g[k].why, w.data) != 0)
            k++;
        if (k == ng) {
            g[ng].why = gm_buf_detach(&w);
            g[ng].runs = gm_xcalloc(u.n, sizeof *g[ng].runs);
            g[ng++].first = i;
        } else {
            gm_buf_free(&w);
        }
        g[k].runs[g[k].n++] = i;
        double t = gm_run_total_ms(u.runs[i]);
        if (isfinite(t))
            g[k].ms += t;
    }
    qsort(g, ng, sizeof *g, S_reason_cmp);
    for (size_t k = 0; k < ng; k++) {
        if (k == S_UNCOUNTED_REASONS) {
            size_t rest = 0;
            for (size_t j = k; j < ng; j++)
                rest += g[j].n;
            gm_say(b, " For other reasons: {} more.", GM_INT((long long)rest));
            break;
        }
        /* "an NCCL collective" -> "An NCCL collective: ..." */
        if (g[k].why[0] >= 'a' && g[k].why[0] <= 'z')
            g[k].why[0] = (char)(g[k].why[0] - 'a' + 'A');
        gm_buf names = GM_BUF_INIT;
        for (size_t j = 0; j < g[k].n && j < S_UNCOUNTED_NAMED; j++) {
            if (j)
                gm_buf_puts(&names, j + 1 == g[k].n ? " and " : ", ");
            S_uncounted_name(&names, u.runs[g[k].runs[j]], u.all_ms);
        }
        if (g[k].n > S_UNCOUNTED_NAMED)
            gm_say(&names, " and {} more", GM_INT((long long)(g[k].n - S_UNCOUNTED_NAMED)));
        gm_say(b, " {}: {}.", GM_TEXT(g[k].why), GM_BUF(&names));
        gm_buf_free(&names);
    }
    for (size_t k = 0; k < ng; k++) {
        free(g[k].why);
        free(g[k].runs);
    }
    free(g);
    double rest = share ? 100.0 * (u.all_ms - u.ms) / u.all_ms : 0;
    if (rest >= 0.05) {
        gm_say(b, " The counts in this report cover the other {} of the GPU time.", GM_PCT(rest));
    } else if (rest > 0) {
        gm_buf_puts(b, " The counts in this report cover less than 0.1% of the GPU time.");
    }
    gm_buf_puts(b, "\n\n");
    gm_uncounted_free(&u);
}
