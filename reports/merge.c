#include "merge.h"

#include "charts.h"
#include "diff.h"
#include "../core/buf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    gm_results *r;
    const char *name;
    long long rank;
    bool recorded;   /* the rank came from the file, not its position */
} S_in;

static int S_in_cmp(const void *a, const void *b)
{
    const S_in *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static void S_move_experiments(gm_results *out, gm_results *in)
{
    for (size_t i = 0; i < in->n_experiments; i++) {
        gm_experiment *e = &in->experiments[i];
        if (gm_results_experiment(out, e->id)) {
            gm_experiment tmp = *e;
            memset(e, 0, sizeof *e);
            /* free through a one-experiment results shell */
            gm_results shell = {0};
            shell.experiments = gm_xcalloc(1, sizeof tmp);
            shell.experiments[0] = tmp;
            shell.n_experiments = 1;
            gm_results_free(&shell);
            continue;
        }
        gm_experiment *d = gm_results_add_experiment(out);
        *d = *e;
        memset(e, 0, sizeof *e);
    }
}

static void S_move_run(gm_results *out, gm_run *run)
{
    out->runs = gm_xrealloc(out->runs, (out->n_runs + 1) * sizeof *out->runs);
    out->runs[out->n_runs++] = *run;
    memset(run, 0, sizeof *run);
}

typedef struct {
    gm_run *run;
    size_t order;    /* position over all inputs, in rank order */
    size_t group;    /* order of the first run of the same case */
    long long rank;
} S_item;

static int S_item_key_sort(const void *a, const void *b)
{
    const S_item *x = a, *y = b;
    int c = gm_diff_run_key_cmp(x->run, y->run);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int S_item_group_sort(const void *a, const void *b)
{
    const S_item *x = a, *y = b;
    if (x->group != y->group)
        return (x->group > y->group) - (x->group < y->group);
    return (x->order > y->order) - (x->order < y->order);
}

static bool S_int_metric(const gm_metric *m) { return m->value.kind == GM_V_INT; }

/* Add `from` into `into` (same key): samples appended, counts summed, other
 * metrics accumulated for the mean (divided at the end). */
static void S_add_into(gm_run *into, const gm_run *from, size_t *n_real)
{
    if (from->timing.present && from->timing.samples) {
        size_t n = into->timing.n + from->timing.n;
        double *s = gm_xmalloc((n ? n : 1) * sizeof *s);
        if (into->timing.n)
            memcpy(s, into->timing.samples, into->timing.n * sizeof *s);
        memcpy(s + into->timing.n, from->timing.samples, from->timing.n * sizeof *s);
        int warm = into->timing.warmup;
        bool fl = into->timing.l2_flushed;
        /* Gated only if every part was: a mix holds samples with host time. */
        bool gated = into->timing.gated && from->timing.gated;
        gm_timing_set_samples(&into->timing, s, n);
        into->timing.warmup = warm;
        into->timing.l2_flushed = fl;
        into->timing.gated = gated;
        into->timing.present = true;
        free(s);
    }
    for (size_t i = 0; i < from->n_metrics; i++) {
        const gm_metric *m = &from->metrics[i];
        gm_metric *t = NULL;
        for (size_t k = 0; k < into->n_metrics; k++)
            if (strcmp(into->metrics[k].name, m->name) == 0)
                t = &into->metrics[k];
        if (!t || !gm_value_present(&m->value) || !gm_value_present(&t->value))
            continue;
        if (S_int_metric(m) && S_int_metric(t))
            t->value.i += m->value.i;
        else {
            t->value = gm_vreal(gm_value_num(&t->value) + gm_value_num(&m->value));
            n_real[t - into->metrics]++;
        }
    }
}

gm_status gm_results_merge(gm_results *in, const char *const *names, size_t n, bool sum,
                           gm_results *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return gm_fail(err, GM_ERR_VALUE, "nothing to merge");
    gm_results_init(out);
    S_in *v = gm_xcalloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const gm_process *p = &in[i].collection.process;
        v[i].r = &in[i];
        v[i].name = names[i];
        v[i].recorded = p->present && p->rank.kind == GM_V_INT;
        v[i].rank = v[i].recorded ? p->rank.i : (long long)i;
    }
    qsort(v, n, sizeof *v, S_in_cmp);
    gm_status st = GM_OK;
    for (size_t i = 1; i < n && st == GM_OK; i++)
        if (v[i].rank == v[i - 1].rank)
            st = gm_fail(err, GM_ERR_VALUE, "%s and %s are both rank %lld: merge gathers one "
                         "file per rank", v[i - 1].name, v[i].name, v[i].rank);
    for (size_t i = 0; i < n && st == GM_OK; i++) {
        if (in[i].collection.n_ranks)
            st = gm_fail(err, GM_ERR_VALUE, "%s is a merged file already", names[i]);
        for (size_t k = 0; k < in[i].n_runs && st == GM_OK; k++)
            if (gm_run_param(&in[i].runs[k], "rank"))
                st = gm_fail(err, GM_ERR_VALUE, "%s: runs[%zu] has a parameter 'rank' already",
                             names[i], k);
        if (st == GM_OK && sum)
            st = gm_diff_check_file(&in[i], names[i], err);
    }
    if (st != GM_OK) {
        gm_results_free(out);
        free(v);
        return st;
    }

    /* header: the lowest rank's, with every rank's process listed */
    gm_results *first = v[0].r;
    free(out->tool_version);
    out->schema_version = first->schema_version;
    out->origin = first->origin, first->origin = NULL;
    out->tool_version = first->tool_version, first->tool_version = NULL;
    out->commit = first->commit, first->commit = NULL;
    out->dirty = first->dirty;
    out->taken_at = first->taken_at, first->taken_at = NULL;
    out->device = first->device;
    memset(&first->device, 0, sizeof first->device);
    out->collection.ranks = gm_xcalloc(n, sizeof *out->collection.ranks);
    double total = NAN;
    for (size_t i = 0; i < n; i++) {
        gm_process *p = &out->collection.ranks[i];
        gm_process_copy(p, &v[i].r->collection.process);
        p->present = true;
        gm_process_free(&v[i].r->collection.process);   /* the copy's values stay */
        p->rank = gm_vint(v[i].rank);
        double t = gm_value_num(&v[i].r->collection.total_seconds);
        if (isfinite(t) && (!isfinite(total) || t > total))
            total = t;
    }
    gm_process *ranks = out->collection.ranks;
    out->collection = first->collection;   /* moved: first's collection is out's now */
    memset(&first->collection, 0, sizeof first->collection);
    out->collection.ranks = ranks;
    out->collection.n_ranks = n;
    out->collection.total_seconds = isfinite(total) ? gm_vreal(total) : gm_vabsent();

    for (size_t i = 0; i < n; i++)
        S_move_experiments(out, v[i].r);

    if (!sum) {
        /* one kernel's ranks side by side: runs ordered by the first
         * appearance of their case, then by rank */
        size_t total_runs = 0;
        for (size_t i = 0; i < n; i++)
            total_runs += v[i].r->n_runs;
        S_item *items = gm_xcalloc(total_runs + 1, sizeof *items);
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < v[i].r->n_runs; k++, m++) {
                items[m].run = &v[i].r->runs[k];
                items[m].order = m;
                items[m].rank = v[i].rank;
            }
        qsort(items, m, sizeof *items, S_item_key_sort);
        for (size_t a = 0, e; a < m; a = e) {
            size_t first = items[a].order;
            for (e = a + 1; e < m && gm_diff_run_key_cmp(items[a].run, items[e].run) == 0; e++)
                first = items[e].order < first ? items[e].order : first;
            for (size_t k = a; k < e; k++)
                items[k].group = first;
        }
        qsort(items, m, sizeof *items, S_item_group_sort);
        for (size_t k = 0; k < m; k++) {
            gm_run_set_param(items[k].run, "rank", gm_vint(items[k].rank));
            S_move_run(out, items[k].run);
        }
        free(items);
    } else {
        /* pair by the diff's key: a run of rank i joins the first output
         * run whose key matches; per pair the min/max GPU time by rank */
        typedef struct {
            size_t *n_real;
            double tmin, tmax;
            long long rmin, rmax;
            size_t ranks;
        } S_acc;
        S_acc *acc = NULL;
        for (size_t i = 0; i < n; i++) {
            for (size_t k = 0; k < v[i].r->n_runs; k++) {
                gm_run *run = &v[i].r->runs[k];
                size_t at = out->n_runs;
                for (size_t j = 0; j < out->n_runs && at == out->n_runs; j++)
                    if (gm_diff_run_key_cmp(&out->runs[j], run) == 0)
                        at = j;
                double t = gm_run_total_ms(run);
                if (at == out->n_runs) {
                    acc = gm_xrealloc(acc, (out->n_runs + 1) * sizeof *acc);
                    S_acc *a = &acc[at];
                    a->n_real = gm_xcalloc(run->n_metrics + 1, sizeof *a->n_real);
                    for (size_t m = 0; m < run->n_metrics; m++)
                        a->n_real[m] = 1;
                    a->tmin = a->tmax = t;
                    a->rmin = a->rmax = v[i].rank;
                    a->ranks = 1;
                    S_move_run(out, run);
                    continue;
                }
                S_acc *a = &acc[at];
                S_add_into(&out->runs[at], run, a->n_real);
                a->ranks++;
                if (t < a->tmin || !isfinite(a->tmin))
                    a->tmin = t, a->rmin = v[i].rank;
                if (t > a->tmax || !isfinite(a->tmax))
                    a->tmax = t, a->rmax = v[i].rank;
            }
        }
        for (size_t j = 0; j < out->n_runs; j++) {
            gm_run *run = &out->runs[j];
            for (size_t m = 0; m < run->n_metrics; m++)
                if (run->metrics[m].value.kind == GM_V_REAL && acc[j].n_real[m] > 1)
                    run->metrics[m].value.r /= (double)acc[j].n_real[m];
            if (isfinite(acc[j].tmin) && acc[j].rmin == acc[j].rmax)
                gm_run_add_note(run, "summed over %zu of %zu ranks: GPU time %.4g ms on each; "
                                "counts summed, ratios averaged", acc[j].ranks, n, acc[j].tmin);
            else if (isfinite(acc[j].tmin))
                gm_run_add_note(run, "summed over %zu of %zu ranks: GPU time least on rank %lld "
                                "(%.4g ms), most on rank %lld (%.4g ms); counts summed, ratios "
                                "averaged", acc[j].ranks, n, acc[j].rmin, acc[j].tmin,
                                acc[j].rmax, acc[j].tmax);
            else
                gm_run_add_note(run, "summed over %zu of %zu ranks; counts summed, ratios "
                                "averaged", acc[j].ranks, n);
            free(acc[j].n_real);
        }
        free(acc);
    }
    for (size_t i = 0; i < n; i++)
        gm_results_free(&in[i]);
    free(v);
    return GM_OK;
}
