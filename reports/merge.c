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

/* t += m as --sum adds metric values: two counts (integers) exactly, with
 * checked arithmetic; anything else as reals, for the mean (*real set).  False
 * when the count would pass GM_INT_LIMIT (2^53, the largest a results file
 * holds exactly; the reader refuses more) or a long long: *sum then holds
 * the sum when it fits one, and *over says it did not; t is unchanged. */
static bool S_add_value(gm_value *t, const gm_value *m, bool *real, long long *sum, bool *over)
{
    if (!gm_value_present(m) || !gm_value_present(t))
        return true;
    if (t->kind == GM_V_INT && m->kind == GM_V_INT) {
        long long s;
        *over = __builtin_add_overflow(t->i, m->i, &s);
        if (*over || s > GM_INT_LIMIT || s < -GM_INT_LIMIT) {
            *sum = *over ? 0 : s;
            return false;
        }
        t->i = s;
        return true;
    }
    *t = gm_vreal(gm_value_num(t) + gm_value_num(m));
    *real = true;
    return true;
}

/* The metric of into[0..n) that from's metric m adds into: the last of
 * that name (NULL: none). */
static gm_metric *S_metric_named(gm_metric *into, size_t n, const char *name)
{
    gm_metric *t = NULL;
    for (size_t k = 0; k < n; k++)
        if (strcmp(into[k].name, name) == 0)
            t = &into[k];
    return t;
}

/* Add `from`'s metrics into into[0..n) (same key): counts summed, other
 * metrics accumulated for the mean (n_real, when not NULL, counts the parts
 * of each; divided at the end).  False at a count past GM_INT_LIMIT, with
 * *bad its metric in `from` (S_add_value says what *sum and *over hold);
 * the metrics before it are added. */
static bool S_add_metrics(gm_metric *into, size_t n, const gm_run *from, size_t *n_real,
                          const gm_metric **bad, long long *sum, bool *over)
{
    for (size_t i = 0; i < from->n_metrics; i++) {
        const gm_metric *m = &from->metrics[i];
        gm_metric *t = S_metric_named(into, n, m->name);
        bool real = false;
        if (!t)
            continue;
        if (!S_add_value(&t->value, &m->value, &real, sum, over)) {
            *bad = m;
            return false;
        }
        if (real && n_real)
            n_real[t - into]++;
    }
    return true;
}

/* Add `from` into `into` (same key): samples appended, metrics as
 * S_add_metrics adds them (the sums are checked first: S_sum_check). */
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
    const gm_metric *bad = NULL;
    long long sum = 0;
    bool over = false;
    (void)S_add_metrics(into->metrics, into->n_metrics, from, n_real, &bad, &sum, &over);
}

/* One run of one input, in rank order, and the first run of its key (what
 * --sum adds it into). */
typedef struct {
    gm_run *run;
    const char *name;   /* its file */
    size_t index;       /* its position in that file's runs */
    long long rank;
    size_t lead;        /* the part (index into the list) it is added into; itself if first */
} S_part;

/* Pair the runs of v[0..n) by the diff's key: a run joins the first earlier
 * run whose key matches.  *n_parts runs in all (caller frees). */
static S_part *S_pair(const S_in *v, size_t n, size_t *n_parts)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].r->n_runs;
    S_part *p = gm_xcalloc(total + 1, sizeof *p);
    size_t *leads = gm_xcalloc(total + 1, sizeof *leads);
    size_t np = 0, nl = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < v[i].r->n_runs; k++, np++) {
            p[np] = (S_part){&v[i].r->runs[k], v[i].name, k, v[i].rank, np};
            for (size_t j = 0; j < nl; j++)
                if (gm_diff_run_key_cmp(p[leads[j]].run, p[np].run) == 0) {
                    p[np].lead = leads[j];
                    break;
                }
            if (p[np].lead == np)
                leads[nl++] = np;
        }
    free(leads);
    *n_parts = np;
    return p;
}

/* --sum adds counts exactly or not at all: every sum is worked out on a
 * copy first, and one past GM_INT_LIMIT refuses the merge before anything
 * moves (GM_ERR_VALUE naming the metric, the run and the value). */
static gm_status S_sum_check(const S_part *p, size_t np, gm_error *err)
{
    gm_metric **acc = gm_xcalloc(np + 1, sizeof *acc);
    gm_status st = GM_OK;
    for (size_t k = 0; k < np && st == GM_OK; k++) {
        const gm_run *run = p[k].run;
        if (p[k].lead == k) {
            acc[k] = gm_xcalloc(run->n_metrics + 1, sizeof *acc[k]);
            if (run->n_metrics)
                memcpy(acc[k], run->metrics, run->n_metrics * sizeof *acc[k]);
            continue;
        }
        const gm_run *lead = p[p[k].lead].run;
        const gm_metric *bad = NULL;
        long long sum = 0;
        bool over = false;
        if (S_add_metrics(acc[p[k].lead], lead->n_metrics, run, NULL, &bad, &sum, &over))
            continue;
        gm_buf pb = GM_BUF_INIT, vb = GM_BUF_INIT;
        gm_diff_params_text(&pb, run);
        if (over)
            gm_buf_printf(&vb, "more than %lld", 9223372036854775807LL);
        else
            gm_buf_printf(&vb, "%lld", sum);
        st = gm_fail(err, GM_ERR_VALUE,
                     "--sum: %s of run %s/%s (%s) would add up to %s with rank %lld (%s "
                     "runs[%zu]): past 2^53 (%lld), the largest count a results file holds "
                     "exactly; merge without --sum to keep each rank's count", bad->name,
                     run->experiment ? run->experiment : "", run->variant ? run->variant : "",
                     pb.data ? pb.data : "", vb.data, p[k].rank, p[k].name, p[k].index,
                     (long long)GM_INT_LIMIT);
        gm_buf_free(&pb);
        gm_buf_free(&vb);
    }
    for (size_t k = 0; k < np; k++)
        free(acc[k]);
    free(acc);
    return st;
}

/* A 64-bit FNV-1a hash of a string. */
static unsigned long long S_hash(const char *s)
{
    unsigned long long h = 14695981039346656037ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

typedef struct {
    unsigned long long h;
    size_t i;
} S_hashed;

static int S_hashed_cmp(const void *a, const void *b)
{
    const S_hashed *x = a, *y = b;
    if (x->h != y->h)
        return (x->h > y->h) - (x->h < y->h);
    return (x->i > y->i) - (x->i < y->i);
}

/* Two inputs with the same results (whatever their names, spacing or key
 * order) are one process's file given twice: refused, not counted twice. */
static gm_status S_same_content(const gm_results *in, const char *const *names, size_t n,
                                gm_error *err)
{
    S_hashed *hs = gm_xcalloc(n + 1, sizeof *hs);
    for (size_t i = 0; i < n; i++) {
        char *j = gm_results_to_json(&in[i]);
        hs[i] = (S_hashed){S_hash(j), i};
        free(j);
    }
    qsort(hs, n, sizeof *hs, S_hashed_cmp);
    gm_status st = GM_OK;
    for (size_t a = 0, e; a < n && st == GM_OK; a = e) {
        for (e = a + 1; e < n && hs[e].h == hs[a].h; e++)
            ;
        /* equal hashes: compare the texts, every pair of the group */
        for (size_t x = a; x < e && st == GM_OK; x++)
            for (size_t y = x + 1; y < e && st == GM_OK; y++) {
                char *jx = gm_results_to_json(&in[hs[x].i]), *jy = gm_results_to_json(&in[hs[y].i]);
                if (strcmp(jx, jy) == 0)
                    st = gm_fail(err, GM_ERR_VALUE, "%s and %s hold the same results: one "
                                 "process's file given twice (merge gathers one file per rank)",
                                 names[hs[x].i], names[hs[y].i]);
                free(jx);
                free(jy);
            }
    }
    free(hs);
    return st;
}

gm_status gm_results_merge(gm_results *in, const char *const *names, size_t n, bool sum,
                           gm_results *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return gm_fail(err, GM_ERR_VALUE, "nothing to merge");
    if (n > (size_t)GM_RANK_LIMIT)
        return gm_fail(err, GM_ERR_VALUE, "%zu files: a job has at most %lld ranks (2^20)", n,
                       (long long)GM_RANK_LIMIT);
    gm_status st = S_same_content(in, names, n, err);
    if (st != GM_OK)
        return st;
    gm_results_init(out);
    S_in *v = gm_xcalloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const gm_process *p = &in[i].collection.process;
        v[i].r = &in[i];
        v[i].name = names[i];
        v[i].recorded = p->present && p->rank.kind == GM_V_INT;
        v[i].rank = v[i].recorded ? p->rank.i : (long long)i;
        if (st == GM_OK && (v[i].rank < 0 || v[i].rank >= GM_RANK_LIMIT))
            st = gm_fail(err, GM_ERR_VALUE, "%s records rank %lld: a rank is a whole number "
                         "from 0 to %lld (below 2^20)", names[i], v[i].rank,
                         (long long)GM_RANK_LIMIT - 1);
    }
    qsort(v, n, sizeof *v, S_in_cmp);
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
    /* --sum: how runs pair, and every count summed, before anything moves */
    S_part *parts = NULL;
    size_t n_parts = 0;
    if (st == GM_OK && sum) {
        parts = S_pair(v, n, &n_parts);
        st = S_sum_check(parts, n_parts, err);
    }
    if (st != GM_OK) {
        gm_results_free(out);
        free(parts);
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
        /* the pairs of S_pair: a run joins the output run of the first
         * run of its key; per pair the min/max GPU time by rank */
        typedef struct {
            size_t *n_real;
            double tmin, tmax;
            long long rmin, rmax;
            size_t ranks;
        } S_acc;
        S_acc *acc = NULL;
        size_t *at_of = gm_xcalloc(n_parts + 1, sizeof *at_of);   /* a lead's output run */
        for (size_t k = 0; k < n_parts; k++) {
            gm_run *run = parts[k].run;
            long long rank = parts[k].rank;
            double t = gm_run_total_ms(run);
            if (parts[k].lead == k) {
                size_t at = out->n_runs;
                at_of[k] = at;
                acc = gm_xrealloc(acc, (out->n_runs + 1) * sizeof *acc);
                S_acc *a = &acc[at];
                a->n_real = gm_xcalloc(run->n_metrics + 1, sizeof *a->n_real);
                for (size_t m = 0; m < run->n_metrics; m++)
                    a->n_real[m] = 1;
                a->tmin = a->tmax = t;
                a->rmin = a->rmax = rank;
                a->ranks = 1;
                S_move_run(out, run);
                continue;
            }
            size_t at = at_of[parts[k].lead];
            S_acc *a = &acc[at];
            S_add_into(&out->runs[at], run, a->n_real);
            a->ranks++;
            if (t < a->tmin || !isfinite(a->tmin))
                a->tmin = t, a->rmin = rank;
            if (t > a->tmax || !isfinite(a->tmax))
                a->tmax = t, a->rmax = rank;
        }
        free(at_of);
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
    free(parts);
    free(v);
    return GM_OK;
}
