/* results.c — the results file in memory (results.h): values, the builders
 * both sides use, queries and freeing.  The JSON text is written by
 * results_write.c and read by results_read.c; what the three share beyond
 * results.h is in results_int.h.
 *
 * The format is documented field by field in docs/results-format.md.
 */
#include "results.h"
#include "results_int.h"

#include "buf.h"
#include "stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- values -------------------------------------------------------------- */

gm_value gm_vint(long long i)
{
    gm_value v = {GM_V_INT, i, 0.0, NULL};
    return v;
}

gm_value gm_vreal(double r)
{
    gm_value v = {GM_V_REAL, 0, r, NULL};
    if (!isfinite(r))
        v.kind = GM_V_ABSENT, v.r = 0.0;
    return v;
}

gm_value gm_vstr(const char *s)
{
    gm_value v = {GM_V_STR, 0, 0.0, gm_xstrdup(s)};
    if (!s)
        v.kind = GM_V_ABSENT;
    return v;
}

gm_value gm_vabsent(void)
{
    gm_value v = {GM_V_ABSENT, 0, 0.0, NULL};
    return v;
}

bool gm_value_present(const gm_value *v)
{
    return v && v->kind != GM_V_ABSENT;
}

double gm_value_num(const gm_value *v)
{
    if (!v)
        return NAN;
    if (v->kind == GM_V_INT)
        return (double)v->i;
    if (v->kind == GM_V_REAL)
        return v->r;
    return NAN;
}

static void S_value_free(gm_value *v)
{
    free(v->s);
    *v = gm_vabsent();
}

double gm_theoretical_dram_gbs(long long memory_clock_khz, int bus_width_bits)
{
    /* Double data rate: two transfers per clock, each bus_width_bits wide.
     * H100 SXM: 2 * 2619000e3 Hz * 5120 bit / 8 = 3352.32e9 B/s. */
    if (memory_clock_khz <= 0 || bus_width_bits <= 0)
        return NAN;
    return 2.0 * (double)memory_clock_khz * 1e3 * (double)bus_width_bits / 8.0 / 1e9;
}

/* ---- building ------------------------------------------------------------ */

void gm_results_init(gm_results *r)
{
    memset(r, 0, sizeof *r);
    r->schema_version = GM_SCHEMA_VERSION;
    r->tool_version = gm_xstrdup(GM_TOOL_VERSION);
    r->dirty = -1;
    r->collection.passes = -1;
}

char *gm_results_utc_now(void)
{
    time_t t = time(NULL);
    struct tm tm;
    char s[32];
    gmtime_r(&t, &tm);
    strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return gm_xstrdup(s);
}

const char *const gm_sl_counter_keys[GM_SL_N] = {
    "inst_executed", "global_ld", "global_st", "shared_ld", "shared_st",
    "sectors", "sectors_ideal", "wavefronts", "wavefronts_ideal"};

void gm_srclines_clear(gm_srclines *sl)
{
    for (size_t i = 0; i < sl->n_lines; i++) {
        free(sl->lines[i].file);
        free(sl->lines[i].function);
        free(sl->lines[i].text);
        free(sl->lines[i].sass);
    }
    free(sl->lines);
    for (size_t i = 0; i < sl->n_allocs; i++)
        free(sl->allocs[i].name);
    free(sl->allocs);
    free(sl->status);
    free(sl->note);
    free(sl->root);
    S_value_free(&sl->seconds);
    memset(sl, 0, sizeof *sl);
}

void gm_run_init(gm_run *run)
{
    memset(run, 0, sizeof *run);
    run->launch.registers = -1;
    /* Nothing has been checked until the runner says so. */
    run->check.status = GM_CHECK_NOT_RUN;
    run->check.tolerance = NAN;
}

gm_run *gm_results_add_run(gm_results *r)
{
    r->runs = gm_xrealloc(r->runs, (r->n_runs + 1) * sizeof *r->runs);
    gm_run *run = &r->runs[r->n_runs++];
    gm_run_init(run);
    return run;
}

gm_experiment *gm_results_add_experiment(gm_results *r)
{
    r->experiments = gm_xrealloc(r->experiments, (r->n_experiments + 1) * sizeof *r->experiments);
    gm_experiment *e = &r->experiments[r->n_experiments++];
    memset(e, 0, sizeof *e);
    return e;
}

void gm_run_set_param(gm_run *run, const char *name, gm_value v)
{
    for (size_t i = 0; i < run->n_params; i++) {
        if (strcmp(run->params[i].name, name) == 0) {
            S_value_free(&run->params[i].value);
            run->params[i].value = v;
            return;
        }
    }
    run->params = gm_xrealloc(run->params, (run->n_params + 1) * sizeof *run->params);
    run->params[run->n_params].name = gm_xstrdup(name);
    run->params[run->n_params].value = v;
    run->n_params++;
}

static void S_metric_set(gm_metric **ms, size_t *n, const char *name, gm_value v,
                         const char *unit)
{
    for (size_t i = 0; i < *n; i++) {
        gm_metric *m = &(*ms)[i];
        if (strcmp(m->name, name) == 0) {
            S_value_free(&m->value);
            m->value = v;
            free(m->unit);
            m->unit = gm_xstrdup(unit);
            return;
        }
    }
    *ms = gm_xrealloc(*ms, (*n + 1) * sizeof **ms);
    (*ms)[*n].name = gm_xstrdup(name);
    (*ms)[*n].value = v;
    (*ms)[*n].unit = gm_xstrdup(unit);
    (*ms)[*n].launch_min = (*ms)[*n].launch_max = gm_vabsent();
    (*n)++;
}

void gm_run_set_metric(gm_run *run, const char *name, gm_value v, const char *unit)
{
    S_metric_set(&run->metrics, &run->n_metrics, name, v, unit);
}

void gm_run_add_note(gm_run *run, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    char *s;
    if (len < 0) {
        s = gm_xstrdup("");
    } else if ((size_t)len < sizeof small) {
        s = gm_xstrdup(small);
    } else {
        s = gm_xmalloc((size_t)len + 1);
        va_start(ap, fmt);
        vsnprintf(s, (size_t)len + 1, fmt, ap);
        va_end(ap);
    }
    run->notes = gm_xrealloc(run->notes, (run->n_notes + 1) * sizeof *run->notes);
    run->notes[run->n_notes++] = s;
}

void gm_timing_set_samples(gm_timing *t, const double *ms, size_t n)
{
    free(t->samples);
    t->samples = NULL;
    if (n > 0) {
        t->samples = gm_xmalloc(n * sizeof *t->samples);
        memcpy(t->samples, ms, n * sizeof *t->samples);
    }
    gm_summary s = gm_summarize(ms, n);
    t->present = true;
    t->n = n;
    t->median = s.median;
    t->min = s.min;
    t->max = s.max;
    t->q1 = s.q1;
    t->q3 = s.q3;
}

/* ---- queries ------------------------------------------------------------- */

static const gm_metric *S_metric_find(const gm_metric *ms, size_t n, const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(ms[i].name, name) == 0)
            return &ms[i];
    return NULL;
}

const gm_metric *gm_run_metric(const gm_run *run, const char *name)
{
    return S_metric_find(run->metrics, run->n_metrics, name);
}

double gm_run_metric_num(const gm_run *run, const char *name)
{
    const gm_metric *m = gm_run_metric(run, name);
    return m ? gm_value_num(&m->value) : NAN;
}

const gm_param *gm_run_param(const gm_run *run, const char *name)
{
    for (size_t i = 0; name && i < run->n_params; i++)
        if (strcmp(run->params[i].name, name) == 0)
            return &run->params[i];
    return NULL;
}

const char *gm_run_nvtx_range(const gm_run *run)
{
    static const char head[] = GM_NOTE_NVTX_RANGE;
    for (size_t i = 0; i < run->n_notes; i++)
        if (run->notes[i] && strncmp(run->notes[i], head, sizeof head - 1) == 0)
            return run->notes[i] + sizeof head - 1;
    return NULL;
}

const gm_experiment *gm_results_experiment(const gm_results *r, const char *id)
{
    for (size_t i = 0; id && i < r->n_experiments; i++)
        if (r->experiments[i].id && strcmp(r->experiments[i].id, id) == 0)
            return &r->experiments[i];
    return NULL;
}

const gm_metric *gm_prediction_metric(const gm_prediction *p, const char *name)
{
    if (!p->present)
        return NULL;
    return S_metric_find(p->metrics, p->n_metrics, name);
}

double gm_run_effective_gbs(const gm_run *run)
{
    /* GB/s = bytes / (median_ms * 1e-3 s) / 1e9 = bytes / (median_ms * 1e6) */
    double rd = gm_value_num(&run->bytes_read), wr = gm_value_num(&run->bytes_written);
    if (!run->timing.present || isnan(rd) || isnan(wr))
        return NAN;
    double ms = run->timing.median;
    if (!isfinite(ms) || ms <= 0.0)
        return NAN;
    return (rd + wr) / (ms * 1e6);
}

const char *const gm_check_names[] = {"passed", "failed", "not-run", "error",
                                      "no-reference"};

const char *gm_check_status_name(gm_check_status s)
{
    if ((unsigned)s < sizeof gm_check_names / sizeof gm_check_names[0])
        return gm_check_names[s];
    return "unknown";
}

size_t gm_results_count_gated(const gm_results *r, size_t *timed)
{
    size_t t = 0, g = 0;
    for (size_t i = 0; i < r->n_runs; i++)
        if (r->runs[i].timing.present) {
            t++;
            g += r->runs[i].timing.gated;
        }
    if (timed)
        *timed = t;
    return g;
}

/* ---- freeing ------------------------------------------------------------- */

static void S_strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void S_metrics_free(gm_metric *ms, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(ms[i].name);
        free(ms[i].unit);
        S_value_free(&ms[i].value);
    }
    free(ms);
}

static void S_run_free(gm_run *run)
{
    free(run->experiment);
    free(run->variant);
    free(run->layout);
    free(run->kernel);
    for (size_t i = 0; i < run->n_params; i++) {
        free(run->params[i].name);
        S_value_free(&run->params[i].value);
    }
    free(run->params);
    S_value_free(&run->bytes_read);
    S_value_free(&run->bytes_written);
    S_value_free(&run->flops);
    free(run->timing.samples);
    S_metrics_free(run->metrics, run->n_metrics);
    free(run->prediction.method);
    S_metrics_free(run->prediction.metrics, run->prediction.n_metrics);
    S_strv_free(run->prediction.notes, run->prediction.n_notes);
    S_value_free(&run->check.max_abs_error);
    free(run->check.reason);
    S_strv_free(run->notes, run->n_notes);
    gm_srclines_clear(&run->source_lines);
    free(run->not_replayed);
}

static void S_experiment_free(gm_experiment *e)
{
    free(e->id);
    free(e->title);
    free(e->summary);
    free(e->source);
    free(e->sweep_param);
    free(e->series_param);
    free(e->baseline_variant);
    free(e->question);
    free(e->contrast_a);
    free(e->contrast_b);
    free(e->contrast_at);
    free(e->contrast_counter);
}

void gm_process_free(gm_process *p)
{
    free(p->host);
    free(p->rank_var);
    free(p->device_uuid);
    S_value_free(&p->rank);
    S_value_free(&p->lock_wait_seconds);
    memset(p, 0, sizeof *p);
}

void gm_process_copy(gm_process *dst, const gm_process *src)
{
    *dst = *src;
    dst->host = gm_xstrdup(src->host);
    dst->rank_var = gm_xstrdup(src->rank_var);
    dst->device_uuid = gm_xstrdup(src->device_uuid);
    dst->rank = src->rank.kind == GM_V_STR ? gm_vstr(src->rank.s) : src->rank;
    dst->lock_wait_seconds = src->lock_wait_seconds.kind == GM_V_STR
                                 ? gm_vstr(src->lock_wait_seconds.s)
                                 : src->lock_wait_seconds;
}

void gm_results_free(gm_results *r)
{
    if (!r)
        return;
    free(r->origin);
    free(r->tool_version);
    free(r->commit);
    free(r->taken_at);
    free(r->device.name);
    free(r->device.chip);
    free(r->device.driver_version);
    S_value_free(&r->device.theoretical_bandwidth_gbs);
    S_value_free(&r->device.copy_bandwidth_gbs);
    S_value_free(&r->device.copy_bandwidth_bytes);
    S_value_free(&r->device.attainable_bandwidth_gbs);
    free(r->device.attainable_kernel);
    S_strv_free(r->collection.metrics, r->collection.n_metrics);
    free(r->collection.range_mode);
    free(r->collection.replay_mode);
    free(r->collection.clock_control);
    free(r->collection.size_set);
    free(r->collection.partial);
    free(r->collection.source_lines_method);
    free(r->collection.source_lines_fallback);
    S_value_free(&r->collection.profile_seconds);
    S_value_free(&r->collection.total_seconds);
    S_strv_free(r->collection.command, r->collection.n_command);
    gm_process_free(&r->collection.process);
    for (size_t i = 0; i < r->collection.n_ranks; i++)
        gm_process_free(&r->collection.ranks[i]);
    free(r->collection.ranks);
    for (size_t i = 0; i < r->n_experiments; i++)
        S_experiment_free(&r->experiments[i]);
    free(r->experiments);
    for (size_t i = 0; i < r->n_runs; i++)
        S_run_free(&r->runs[i]);
    free(r->runs);
    memset(r, 0, sizeof *r);
}
