/* diff.c — compare a head results file against a base one: gm_diff_compute
 * in its steps (the options checked, the runs paired and judged, rows of
 * files collected differently marked, the statuses counted), how the two
 * files were collected, and the lines that sum a diff up (gate, verdict).
 * Behind it, diff_int.h: pairing runs (diff_pair.c), judging a pair
 * (diff_judge.c), thresholds (diff_threshold.c).  The renderers (Markdown,
 * HTML, JSON) are in diff_render.c.
 */
#include "diff_int.h"

#include "../core/buf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* Statuses                                                                 */
/* ======================================================================== */

const char *gm_diff_status_name(gm_diff_status s)
{
    switch (s) {
    case GM_DIFF_REGRESSED: return "regressed";
    case GM_DIFF_FAILED: return "failed";
    case GM_DIFF_INCOMPARABLE: return "incomparable";
    case GM_DIFF_IMPROVED: return "improved";
    case GM_DIFF_CHANGED: return "changed";
    case GM_DIFF_NEW: return "new";
    case GM_DIFF_REMOVED: return "removed";
    case GM_DIFF_NOISE: return "within noise";
    case GM_DIFF_UNCHANGED: return "unchanged";
    case GM_DIFF_N_STATUS: break;
    }
    return "?";
}

/* Singular and plural for the verdict line. */
static const char *const S_count_word[GM_DIFF_N_STATUS][2] = {
    {"regression", "regressions"},
    {"failed run", "failed runs"},
    {"incomparable", "incomparable"},
    {"improvement", "improvements"},
    {"changed", "changed"},
    {"new", "new"},
    {"removed", "removed"},
    {"within noise", "within noise"},
    {"unchanged", "unchanged"},
};

/* ======================================================================== */
/* How the files were collected                                             */
/* ======================================================================== */

static void S_push(char ***list, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void S_push(char ***list, size_t *n, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    *list = gm_xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[(*n)++] = gm_xstrdup(tmp);
}

#define S_S(x) ((x) ? (x) : "(unknown)")

static bool S_in_list(char **l, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (gm_diff_str_cmp(l[i], s) == 0)
            return true;
    return false;
}

static void S_metric_set_diff(gm_diff *d, const gm_collection *b, const gm_collection *h)
{
    gm_buf only_b = GM_BUF_INIT, only_h = GM_BUF_INIT;
    size_t nb = 0, nh = 0;
    for (size_t i = 0; i < b->n_metrics; i++)
        if (!S_in_list(h->metrics, h->n_metrics, b->metrics[i])) {
            gm_buf_printf(&only_b, "%s%s", nb++ ? ", " : "", S_S(b->metrics[i]));
        }
    for (size_t i = 0; i < h->n_metrics; i++)
        if (!S_in_list(b->metrics, b->n_metrics, h->metrics[i])) {
            gm_buf_printf(&only_h, "%s%s", nh++ ? ", " : "", S_S(h->metrics[i]));
        }
    if (nb || nh)
        S_push(&d->reasons, &d->n_reasons,
               "metrics requested differ: %zu only in base%s%.200s%s, %zu only in head%s%.200s%s",
               nb, nb ? " (" : "", nb ? only_b.data : "", nb ? ")" : "",
               nh, nh ? " (" : "", nh ? only_h.data : "", nh ? ")" : "");
    gm_buf_free(&only_b);
    gm_buf_free(&only_h);
}

static void S_compare_files(gm_diff *d)
{
    const gm_results *b = d->base, *h = d->head;
    char ***R = &d->reasons, ***N = &d->notes;
    size_t *nr = &d->n_reasons, *nn = &d->n_notes;
    const gm_device *db = &b->device, *dh = &h->device;
    const gm_collection *cb = &b->collection, *ch = &h->collection;

    if (b->schema_version != h->schema_version)
        S_push(R, nr, "results schema: version %d vs %d", b->schema_version, h->schema_version);
    if (gm_diff_str_cmp(db->name, dh->name))
        S_push(R, nr, "GPU: '%s' vs '%s'", S_S(db->name), S_S(dh->name));
    if (gm_diff_str_cmp(db->chip, dh->chip))
        S_push(R, nr, "GPU chip: '%s' vs '%s'", S_S(db->chip), S_S(dh->chip));
    if (db->cc_major != dh->cc_major || db->cc_minor != dh->cc_minor)
        S_push(R, nr, "compute capability: %d.%d vs %d.%d", db->cc_major, db->cc_minor,
               dh->cc_major, dh->cc_minor);
    if (db->sm_count != dh->sm_count)
        S_push(R, nr, "SM count: %d vs %d", db->sm_count, dh->sm_count);
    if (db->memory_clock_khz != dh->memory_clock_khz)
        S_push(R, nr, "memory clock: %lld kHz vs %lld kHz", db->memory_clock_khz,
               dh->memory_clock_khz);
    if (db->memory_bus_width_bits != dh->memory_bus_width_bits)
        S_push(R, nr, "memory bus: %d bits vs %d bits", db->memory_bus_width_bits,
               dh->memory_bus_width_bits);
    if (gm_diff_str_cmp(db->driver_version, dh->driver_version))
        S_push(R, nr, "driver: %s vs %s", S_S(db->driver_version), S_S(dh->driver_version));
    if (db->cuda_driver_api != dh->cuda_driver_api)
        S_push(R, nr, "CUDA driver API: %d vs %d", db->cuda_driver_api, dh->cuda_driver_api);
    if (db->cupti_api != dh->cupti_api)
        S_push(R, nr, "CUPTI API: %lld vs %lld", db->cupti_api, dh->cupti_api);

    S_metric_set_diff(d, cb, ch);
    if (cb->cache_flush != ch->cache_flush)
        S_push(R, nr, "L2 flush before each profiled pass: %s vs %s",
               cb->cache_flush ? "yes" : "no", ch->cache_flush ? "yes" : "no");
    if (gm_diff_str_cmp(cb->clock_control, ch->clock_control))
        S_push(R, nr, "clock control: %s vs %s", S_S(cb->clock_control), S_S(ch->clock_control));
    if (gm_diff_str_cmp(cb->size_set, ch->size_set))
        S_push(R, nr, "size set: %s vs %s", S_S(cb->size_set), S_S(ch->size_set));
    if (gm_diff_str_cmp(cb->replay_mode, ch->replay_mode))
        S_push(R, nr, "replay mode: %s vs %s", S_S(cb->replay_mode), S_S(ch->replay_mode));
    if (gm_diff_str_cmp(cb->range_mode, ch->range_mode))
        S_push(R, nr, "range mode: %s vs %s", S_S(cb->range_mode), S_S(ch->range_mode));

    /* Differences that change how much the samples say, not what they measure. */
    if (db->cuda_runtime != dh->cuda_runtime)
        S_push(N, nn, "CUDA runtime: %d vs %d", db->cuda_runtime, dh->cuda_runtime);
    if (cb->timing_warmup != ch->timing_warmup)
        S_push(N, nn, "timing warm-up launches: %d vs %d", cb->timing_warmup, ch->timing_warmup);
    if (cb->timing_repetitions != ch->timing_repetitions)
        S_push(N, nn, "timed repetitions: %d vs %d", cb->timing_repetitions,
               ch->timing_repetitions);
    if (b->origin && strcmp(b->origin, "measured") != 0)
        S_push(N, nn, "base origin: %s", b->origin);
    if (h->origin && strcmp(h->origin, "measured") != 0)
        S_push(N, nn, "head origin: %s", h->origin);
    if (b->commit && h->commit && strcmp(b->commit, h->commit) == 0)
        S_push(N, nn, "base and head are the same commit");
}

/* ======================================================================== */
/* The comparison                                                           */
/* ======================================================================== */

static bool S_metric_known(const gm_results *r, const char *name)
{
    for (size_t i = 0; i < r->n_runs; i++)
        if (gm_run_metric(&r->runs[i], name))
            return true;
    for (size_t i = 0; i < r->collection.n_metrics; i++)
        if (gm_diff_str_cmp(r->collection.metrics[i], name) == 0)
            return true;
    return false;
}

static bool S_judged(gm_diff_status s)
{
    return s == GM_DIFF_REGRESSED || s == GM_DIFF_IMPROVED || s == GM_DIFF_CHANGED ||
           s == GM_DIFF_NOISE || s == GM_DIFF_UNCHANGED;
}

/* Every --threshold names a metric one of the files or the catalog knows, and
 * every --pair rule has both sides. */
static gm_status S_check_options(const gm_results *base, const gm_results *head,
                                 const gm_diff_options *opts, gm_error *err)
{
    for (size_t i = 0; i < opts->n_overrides; i++) {
        const char *m = opts->overrides[i].metric;
        bool known = strcmp(m, GM_DIFF_TIME) == 0 || gm_catalog_find(m) ||
                     S_metric_known(base, m) || S_metric_known(head, m);
        for (size_t k = 0; !known && k < gm_catalog_len; k++)
            known = strcmp(gm_catalog[k].label, m) == 0;
        if (!known)
            return gm_fail(err, GM_ERR_VALUE,
                           "--threshold: no metric '%s': give 'time', an ncu metric name "
                           "or a catalog label (gpumem-report list --metrics)", m);
    }

    for (size_t i = 0; i < opts->n_pairs; i++) {
        const gm_diff_pair *p = &opts->pairs[i];
        if (!p->from || !p->to || !*p->from || !*p->to)
            return gm_fail(err, GM_ERR_VALUE, "--pair: rule %zu is empty", i + 1);
    }
    return GM_OK;
}

/* Files collected differently, without --force: every judged row says what
 * it would be and is incomparable. */
static void S_mark_incomparable(gm_diff *d)
{
    for (size_t r = 0; r < d->n_rows; r++) {
        gm_diff_row *row = &d->rows[r];
        if (!S_judged(row->status))
            continue;
        snprintf(row->note, sizeof row->note, "collected differently; would be %s",
                 gm_diff_status_name(row->status));
        row->status = GM_DIFF_INCOMPARABLE;
    }
}

gm_status gm_diff_compute(const gm_results *base, const gm_results *head,
                          const gm_diff_options *opts, gm_diff *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    gm_diff_options none = {0};
    if (!opts)
        opts = &none;
    const char *bname = opts->base_name ? opts->base_name : "base";
    const char *hname = opts->head_name ? opts->head_name : "head";

    gm_diff_key *kb = NULL, *kh = NULL;
    gm_status st = S_check_options(base, head, opts, err);
    if (st == GM_OK)
        st = gm_diff_keys_checked(base, head, opts, bname, hname, &kb, &kh, err);
    if (st != GM_OK)
        return st;

    gm_diff *d = out;
    d->base = base;
    d->head = head;
    d->alpha = opts->alpha > 0.0 ? opts->alpha : 0.05;
    d->allow_missing = opts->allow_missing;
    d->n_pairs = opts->n_pairs;
    S_compare_files(d);
    d->comparable = d->n_reasons == 0;
    d->forced = !d->comparable && opts->force;

    gm_diff_ctx c = {d, 0, opts};
    gm_diff_pair_keys(&c, kb, base->n_runs, kh, head->n_runs);
    gm_diff_keys_free(kb, base->n_runs);
    gm_diff_keys_free(kh, head->n_runs);

    if (!d->comparable && !opts->force)
        S_mark_incomparable(d);
    gm_diff_sort_rows(d);
    for (size_t r = 0; r < d->n_rows; r++)
        d->counts[d->rows[r].status]++;
    return GM_OK;
}

void gm_diff_free(gm_diff *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_reasons; i++)
        free(d->reasons[i]);
    for (size_t i = 0; i < d->n_notes; i++)
        free(d->notes[i]);
    free(d->reasons);
    free(d->notes);
    free(d->rows);
    memset(d, 0, sizeof *d);
}

static size_t S_head_failed(const gm_diff *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_rows; i++)
        if (d->rows[i].status == GM_DIFF_FAILED && d->rows[i].head &&
            gm_diff_check_bad(d->rows[i].head))
            n++;
    return n;
}

bool gm_diff_has_regression(const gm_diff *d)
{
    return d->counts[GM_DIFF_REGRESSED] || S_head_failed(d) ||
           (d->n_runs_removed && !d->allow_missing) || d->n_runs_paired == 0;
}

char *gm_diff_gate_line(const gm_diff *d)
{
    gm_buf b = GM_BUF_INIT;
    size_t reg = d->counts[GM_DIFF_REGRESSED], bad = S_head_failed(d);
    bool fail = gm_diff_has_regression(d);
    if (!d->comparable && !d->forced)
        gm_buf_puts(&b, "not judged: base and head were collected differently");
    else
        gm_buf_puts(&b, fail ? "fail: " : "pass: ");
    if (d->comparable || d->forced) {
        size_t k = 0;
        if (reg) {
            gm_diff_group *g;
            size_t ng = gm_diff_groups(d, &g), nl = 0;
            bool layouts = false;
            for (size_t i = 0; i < ng; i++)
                if (g[i].status == GM_DIFF_REGRESSED) {
                    nl++;
                    layouts |= !g[i].program;
                }
            gm_diff_groups_free(g, ng);
            gm_buf_printf(&b, "%s%zu %s in %zu %s%s", k++ ? ", " : "", reg,
                          reg == 1 ? "regression" : "regressions", nl,
                          layouts ? "layout" : "kernel", nl == 1 ? "" : "s");
        }
        if (bad)
            gm_buf_printf(&b, "%s%zu %s in head", k++ ? ", " : "", bad,
                          bad == 1 ? "run failed validation" : "runs failed validation");
        if (d->n_runs_paired == 0)
            gm_buf_printf(&b, "%snothing paired (%zu runs in base, %zu in head)", k++ ? ", " : "",
                          d->base->n_runs, d->head->n_runs);
        if (d->n_runs_removed && d->n_runs_paired)
            gm_buf_printf(&b, "%s%zu of %zu runs missing from head%s", k++ ? ", " : "",
                          d->n_runs_removed, d->base->n_runs,
                          d->allow_missing ? " (accepted: --allow-missing)" : "");
        if (!fail && !d->n_runs_removed)
            gm_buf_printf(&b, "%sno regressions", k++ ? ", " : "");
        if (d->counts[GM_DIFF_IMPROVED])
            gm_buf_printf(&b, ", %zu %s", d->counts[GM_DIFF_IMPROVED],
                          d->counts[GM_DIFF_IMPROVED] == 1 ? "improvement" : "improvements");
        gm_buf_printf(&b, " (%zu runs paired", d->n_runs_paired);
        if (d->n_runs_new)
            gm_buf_printf(&b, ", %zu new", d->n_runs_new);
        gm_buf_putc(&b, ')');
    }
    return gm_buf_detach(&b);
}

char *gm_diff_verdict(const gm_diff *d)
{
    gm_buf b = GM_BUF_INIT;
    if (d->counts[GM_DIFF_REGRESSED] == 0)
        gm_buf_puts(&b, "no regressions");
    for (int s = 0; s < GM_DIFF_N_STATUS; s++) {
        size_t n = d->counts[s];
        if (n == 0)
            continue;
        if (b.len)
            gm_buf_puts(&b, ", ");
        gm_buf_printf(&b, "%zu %s", n, S_count_word[s][n != 1]);
    }
    if (d->n_rows == 0)
        gm_buf_puts(&b, ", nothing to compare");
    return gm_buf_detach(&b);
}
