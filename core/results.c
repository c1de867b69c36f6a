/* results.c — the results file: the in-memory model (results.h), its JSON
 * text, and the builders and queries both sides use.
 *
 * Writing is done by hand into a gm_buf rather than through jansson's dumper,
 * for three reasons: the key order is ours (schema first, then what a reader
 * wants next, not alphabetical), arrays of numbers go on one line (a run's 50
 * timing samples would otherwise take 50 lines), and reals are printed with
 * the fewest digits that read back exactly (0.1, not 0.10000000000000001).
 * Reading goes through jansson (json_loadb) and then a strict walk that names
 * the JSON path of anything missing or mistyped.
 *
 * The format is documented field by field in docs/results-format.md.
 */
#include "results.h"

#include "buf.h"
#include "output.h"
#include "stats.h"

#include <jansson.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
    free(sl->status);
    free(sl->note);
    S_value_free(&sl->seconds);
    memset(sl, 0, sizeof *sl);
}

static void S_run_init(gm_run *run)
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
    S_run_init(run);
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

static const char *const S_check_names[] = {"passed", "failed", "not-run", "error",
                                                    "no-reference"};

const char *gm_check_status_name(gm_check_status s)
{
    if ((unsigned)s < sizeof S_check_names / sizeof S_check_names[0])
        return S_check_names[s];
    return "unknown";
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

/* ---- writing ------------------------------------------------------------- */

/* A small streaming emitter.  Each open container remembers whether its
 * members go one per line (objects, arrays of objects or strings) or on one
 * line (arrays of numbers) and how many it has, so commas and indentation
 * follow without the callers thinking about them. */
typedef struct {
    bool multiline;
    size_t n;
} S_frame;

typedef struct {
    gm_buf *b;
    S_frame st[16];   /* the format nests 5 deep at most */
    int depth;
    bool after_key;
} S_em;

static void S_indent(S_em *e, int depth)
{
    for (int i = 0; i < depth; i++)
        gm_buf_put(e->b, "  ", 2);
}

static void S_item(S_em *e)
{
    if (e->after_key) {
        e->after_key = false;
        return;
    }
    if (e->depth == 0)
        return;
    S_frame *f = &e->st[e->depth - 1];
    if (f->n++ > 0)
        gm_buf_putc(e->b, ',');
    if (f->multiline) {
        gm_buf_putc(e->b, '\n');
        S_indent(e, e->depth);
    } else if (f->n > 1) {
        gm_buf_putc(e->b, ' ');
    }
}

static void S_open(S_em *e, char c, bool multiline)
{
    S_item(e);
    gm_buf_putc(e->b, c);
    e->st[e->depth].multiline = multiline;
    e->st[e->depth].n = 0;
    e->depth++;
}

static void S_close(S_em *e, char c)
{
    S_frame *f = &e->st[--e->depth];
    if (f->n > 0 && f->multiline) {
        gm_buf_putc(e->b, '\n');
        S_indent(e, e->depth);
    }
    gm_buf_putc(e->b, c);
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when s does not start
 * one: overlong forms, surrogates and code points above U+10FFFF are invalid,
 * as jansson's reader would refuse them. */
static size_t S_utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned cp, min;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* A JSON string: quote, backslash and control characters escaped; valid
 * UTF-8 passes through; an invalid byte becomes U+FFFD (JSON text cannot
 * carry it, and one bad byte in a kernel name must not lose the file). */
static void S_put_jstr(gm_buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    gm_buf_putc(b, '"');
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            gm_buf_putc(b, '\\');
            gm_buf_putc(b, (char)c);
            p++;
        } else if (c < 0x20) {
            switch (c) {
            case '\b': gm_buf_puts(b, "\\b"); break;
            case '\f': gm_buf_puts(b, "\\f"); break;
            case '\n': gm_buf_puts(b, "\\n"); break;
            case '\r': gm_buf_puts(b, "\\r"); break;
            case '\t': gm_buf_puts(b, "\\t"); break;
            default: gm_buf_printf(b, "\\u%04x", c); break;
            }
            p++;
        } else {
            size_t n = S_utf8_len(p);
            if (n == 0) {
                gm_buf_puts(b, "\\ufffd");
                p++;
            } else {
                gm_buf_put(b, (const char *)p, n);
                p += n;
            }
        }
    }
    gm_buf_putc(b, '"');
}

/* The fewest of 15, 16 or 17 significant digits that read back to the same
 * double (17 always do), with ".0" added when the text would otherwise read
 * back as an integer.  Any double printed with 15 digits that round-trips is
 * also its shortest form, since %g drops trailing zeros.  Assumes the C
 * locale for LC_NUMERIC, which the tool never changes. */
static void S_fmt_real(double x, char *out, size_t size)
{
    for (int p = 15; p <= 17; p++) {
        snprintf(out, size, "%.*g", p, x);
        if (strtod(out, NULL) == x)
            break;
    }
    if (!strpbrk(out, ".eE"))
        strncat(out, ".0", size - strlen(out) - 1);
}

static void S_key(S_em *e, const char *k)
{
    S_item(e);
    S_put_jstr(e->b, k);
    gm_buf_put(e->b, ": ", 2);
    e->after_key = true;
}

static void S_null(S_em *e)
{
    S_item(e);
    gm_buf_puts(e->b, "null");
}

static void S_bool(S_em *e, bool v)
{
    S_item(e);
    gm_buf_puts(e->b, v ? "true" : "false");
}

static void S_int(S_em *e, long long v)
{
    S_item(e);
    gm_buf_printf(e->b, "%lld", v);
}

static void S_real(S_em *e, double v)
{
    if (!isfinite(v)) {
        S_null(e);
        return;
    }
    char tmp[40];
    S_fmt_real(v, tmp, sizeof tmp);
    S_item(e);
    gm_buf_puts(e->b, tmp);
}

static void S_str(S_em *e, const char *s)
{
    if (!s) {
        S_null(e);
        return;
    }
    S_item(e);
    S_put_jstr(e->b, s);
}

static void S_val(S_em *e, const gm_value *v)
{
    switch (v->kind) {
    case GM_V_INT: S_int(e, v->i); break;
    case GM_V_REAL: S_real(e, v->r); break;
    case GM_V_STR: S_str(e, v->s); break;
    case GM_V_ABSENT: S_null(e); break;
    }
}

/* Member shorthands: key then value. */
static void S_kint(S_em *e, const char *k, long long v) { S_key(e, k); S_int(e, v); }
static void S_kreal(S_em *e, const char *k, double v) { S_key(e, k); S_real(e, v); }
static void S_kstr(S_em *e, const char *k, const char *v) { S_key(e, k); S_str(e, v); }
static void S_kbool(S_em *e, const char *k, bool v) { S_key(e, k); S_bool(e, v); }
static void S_kval(S_em *e, const char *k, const gm_value *v) { S_key(e, k); S_val(e, v); }

static void S_kint_or_null(S_em *e, const char *k, long long v, long long unknown)
{
    S_key(e, k);
    if (v == unknown)
        S_null(e);
    else
        S_int(e, v);
}

static void S_kstrv(S_em *e, const char *k, char *const *v, size_t n)
{
    S_key(e, k);
    S_open(e, '[', true);
    for (size_t i = 0; i < n; i++)
        S_str(e, v[i]);
    S_close(e, ']');
}

static void S_kmetrics(S_em *e, const char *k, const gm_metric *ms, size_t n)
{
    S_key(e, k);
    S_open(e, '{', true);
    for (size_t i = 0; i < n; i++) {
        S_key(e, ms[i].name ? ms[i].name : "");
        S_open(e, '{', true);
        S_kval(e, "value", &ms[i].value);
        S_kstr(e, "unit", ms[i].unit);
        if (gm_value_present(&ms[i].launch_min) && gm_value_present(&ms[i].launch_max)) {
            S_kval(e, "launch_min", &ms[i].launch_min);
            S_kval(e, "launch_max", &ms[i].launch_max);
        }
        S_close(e, '}');
    }
    S_close(e, '}');
}

static void S_kuint3(S_em *e, const char *k, const unsigned v[3])
{
    S_key(e, k);
    S_open(e, '[', false);
    for (int i = 0; i < 3; i++)
        S_int(e, v[i]);
    S_close(e, ']');
}

static void S_emit_device(S_em *e, const gm_device *d)
{
    S_key(e, "device");
    S_open(e, '{', true);
    S_kint(e, "ordinal", d->ordinal);
    S_kstr(e, "name", d->name);
    S_kstr(e, "chip", d->chip);
    S_key(e, "compute_capability");
    S_open(e, '{', true);
    S_kint(e, "major", d->cc_major);
    S_kint(e, "minor", d->cc_minor);
    S_close(e, '}');
    S_kint(e, "sm_count", d->sm_count);
    S_kint(e, "memory_clock_khz", d->memory_clock_khz);
    S_kint(e, "memory_bus_width_bits", d->memory_bus_width_bits);
    S_kval(e, "theoretical_bandwidth_gbs", &d->theoretical_bandwidth_gbs);
    S_kval(e, "copy_bandwidth_gbs", &d->copy_bandwidth_gbs);
    S_kval(e, "copy_bandwidth_bytes", &d->copy_bandwidth_bytes);
    if (gm_value_present(&d->attainable_bandwidth_gbs) || d->attainable_kernel) {
        S_kval(e, "attainable_bandwidth_gbs", &d->attainable_bandwidth_gbs);
        S_kstr(e, "attainable_kernel", d->attainable_kernel);
    }
    S_kint(e, "l2_bytes", d->l2_bytes);
    S_kint(e, "global_memory_bytes", d->global_memory_bytes);
    S_kstr(e, "driver_version", d->driver_version);
    S_kint(e, "cuda_driver_api", d->cuda_driver_api);
    S_kint(e, "cuda_runtime", d->cuda_runtime);
    S_kint(e, "cupti_api", d->cupti_api);
    S_close(e, '}');
}

static void S_emit_process(S_em *e, const gm_process *p)
{
    S_open(e, '{', true);
    S_kstr(e, "host", p->host);
    S_kval(e, "rank", &p->rank);
    S_kstr(e, "rank_var", p->rank_var);
    S_kint(e, "pid", p->pid);
    S_kstr(e, "device_uuid", p->device_uuid);
    S_kval(e, "lock_wait_seconds", &p->lock_wait_seconds);
    S_kint(e, "lock_waits", p->lock_waits);
    S_kint(e, "lock_turns", p->lock_turns);
    S_close(e, '}');
}

static void S_emit_collection(S_em *e, const gm_collection *c)
{
    S_key(e, "collection");
    S_open(e, '{', true);
    S_kstrv(e, "metrics", c->metrics, c->n_metrics);
    S_kint_or_null(e, "passes", c->passes, -1);
    S_kstr(e, "range_mode", c->range_mode);
    S_kstr(e, "replay_mode", c->replay_mode);
    S_kbool(e, "cache_flush", c->cache_flush);
    S_kstr(e, "clock_control", c->clock_control);
    S_kstr(e, "size_set", c->size_set);
    S_kint(e, "timing_warmup", c->timing_warmup);
    S_kint(e, "timing_repetitions", c->timing_repetitions);
    S_kval(e, "profile_seconds", &c->profile_seconds);
    S_kval(e, "total_seconds", &c->total_seconds);
    if (c->source_lines) {
        S_kval(e, "source_lines_seconds", &c->source_lines_seconds);
        S_kint(e, "source_lines_launches", c->source_lines_launches);
    }
    S_kstrv(e, "command", c->command, c->n_command);
    /* optional: files without them stay byte for byte as they were */
    if (c->partial)
        S_kstr(e, "partial", c->partial);
    if (c->process.present) {
        S_key(e, "process");
        S_emit_process(e, &c->process);
    }
    if (c->n_ranks) {
        S_key(e, "ranks");
        S_open(e, '[', true);
        for (size_t i = 0; i < c->n_ranks; i++)
            S_emit_process(e, &c->ranks[i]);
        S_close(e, ']');
    }
    S_close(e, '}');
}

static void S_emit_experiment(S_em *e, const gm_experiment *x)
{
    S_open(e, '{', true);
    S_kstr(e, "id", x->id);
    S_kstr(e, "title", x->title);
    S_kstr(e, "summary", x->summary);
    S_kstr(e, "source", x->source);
    S_kstr(e, "sweep_param", x->sweep_param);
    S_kbool(e, "sweep_log2", x->sweep_log2);
    S_kstr(e, "series_param", x->series_param);
    S_kbool(e, "bandwidth_bound", x->bandwidth_bound);
    S_kstr(e, "baseline_variant", x->baseline_variant);
    if (x->question || x->contrast_a) {
        S_key(e, "contrast");
        S_open(e, '{', true);
        S_kstr(e, "question", x->question);
        S_kstr(e, "a", x->contrast_a);
        S_kstr(e, "b", x->contrast_b);
        S_kstr(e, "at", x->contrast_at);
        S_kstr(e, "counter", x->contrast_counter);
        S_close(e, '}');
    }
    S_close(e, '}');
}

static void S_emit_timing(S_em *e, const gm_timing *t)
{
    S_key(e, "timing");
    if (!t->present) {
        S_null(e);
        return;
    }
    S_open(e, '{', true);
    S_kint(e, "warmup", t->warmup);
    S_kbool(e, "l2_flushed", t->l2_flushed);
    if (t->gated)   /* optional: absent means false, as in files before it */
        S_kbool(e, "gated", true);
    S_kint(e, "n", (long long)t->n);
    S_kreal(e, "min", t->min);
    S_kreal(e, "q1", t->q1);
    S_kreal(e, "median", t->median);
    S_kreal(e, "q3", t->q3);
    S_kreal(e, "max", t->max);
    S_key(e, "samples");
    if (!t->samples) {
        S_null(e);
    } else {
        S_open(e, '[', false);
        for (size_t i = 0; i < t->n; i++)
            S_real(e, t->samples[i]);
        S_close(e, ']');
    }
    S_close(e, '}');
}

static void S_emit_prediction(S_em *e, const gm_prediction *p)
{
    S_key(e, "prediction");
    if (!p->present) {
        S_null(e);
        return;
    }
    S_open(e, '{', true);
    S_kstr(e, "method", p->method);
    S_kint(e, "warps_traced", p->warps_traced);
    S_kint(e, "warps_total", p->warps_total);
    S_kbool(e, "scaled", p->scaled);
    S_kmetrics(e, "metrics", p->metrics, p->n_metrics);
    S_kstrv(e, "notes", p->notes, p->n_notes);
    S_close(e, '}');
}

static void S_emit_check(S_em *e, const gm_check *c)
{
    S_key(e, "check");
    S_open(e, '{', true);
    S_kstr(e, "status", gm_check_status_name(c->status));
    S_kint(e, "checked", c->checked);
    S_kint(e, "mismatches", c->mismatches);
    S_kreal(e, "tolerance", c->tolerance);
    S_kval(e, "max_abs_error", &c->max_abs_error);
    S_key(e, "first_mismatch");
    if (!c->has_first_mismatch) {
        S_null(e);
    } else {
        S_open(e, '{', true);
        S_kint(e, "index", c->first_index);
        S_kreal(e, "value", c->first_value);
        S_kreal(e, "expected", c->first_expected);
        S_close(e, '}');
    }
    S_kstr(e, "reason", c->reason);
    S_close(e, '}');
}

/* "source_lines" is written only when present, so files from before issue 14
 * stay byte-identical when read and written again. */
static void S_emit_srclines(S_em *e, const gm_srclines *sl)
{
    S_key(e, "source_lines");
    S_open(e, '{', true);
    S_kstr(e, "status", sl->status);
    S_kstr(e, "note", sl->note);
    S_kval(e, "seconds", &sl->seconds);
    S_kbool(e, "line_info", sl->line_info);
    S_key(e, "lines");
    S_open(e, '[', true);
    for (size_t i = 0; i < sl->n_lines; i++) {
        const gm_srcline *l = &sl->lines[i];
        S_open(e, '{', false);
        S_kstr(e, "file", l->file);
        S_kint(e, "line", l->line);
        S_kint_or_null(e, "pc", l->pc, -1);
        S_kstr(e, "function", l->function);
        S_kstr(e, "text", l->text);
        S_kstr(e, "sass", l->sass);
        for (int k = 0; k < GM_SL_N; k++)
            S_kint(e, gm_sl_counter_keys[k], l->count[k]);
        S_close(e, '}');
    }
    S_close(e, ']');
    S_close(e, '}');
}

static void S_emit_run(S_em *e, const gm_run *run)
{
    S_open(e, '{', true);
    S_kstr(e, "experiment", run->experiment);
    S_kstr(e, "variant", run->variant);
    S_kstr(e, "layout", run->layout);
    S_kstr(e, "kernel", run->kernel);
    S_key(e, "params");
    S_open(e, '{', true);
    for (size_t i = 0; i < run->n_params; i++)
        S_kval(e, run->params[i].name ? run->params[i].name : "", &run->params[i].value);
    S_close(e, '}');
    S_key(e, "launch");
    if (!run->has_launch) {
        S_null(e);
    } else {
        S_open(e, '{', true);
        S_kuint3(e, "grid", run->launch.grid);
        S_kuint3(e, "block", run->launch.block);
        S_kint(e, "shared_bytes", run->launch.shared_bytes);
        S_kint_or_null(e, "registers", run->launch.registers, -1);
        S_close(e, '}');
    }
    S_kval(e, "bytes_read", &run->bytes_read);
    S_kval(e, "bytes_written", &run->bytes_written);
    S_kval(e, "flops", &run->flops);
    S_emit_timing(e, &run->timing);
    S_kmetrics(e, "metrics", run->metrics, run->n_metrics);
    S_emit_prediction(e, &run->prediction);
    S_emit_check(e, &run->check);
    S_kstrv(e, "notes", run->notes, run->n_notes);
    if (run->source_lines.present)
        S_emit_srclines(e, &run->source_lines);
    S_close(e, '}');
}

char *gm_results_to_json(const gm_results *r)
{
    gm_buf b = GM_BUF_INIT;
    S_em e = {&b, {{false, 0}}, 0, false};
    S_open(&e, '{', true);
    S_kstr(&e, "schema", GM_SCHEMA_NAME);
    S_kint(&e, "schema_version", r->schema_version);
    S_kstr(&e, "origin", r->origin);
    S_kstr(&e, "tool_version", r->tool_version);
    S_kstr(&e, "commit", r->commit);
    S_key(&e, "dirty");
    if (r->dirty == 0 || r->dirty == 1)
        S_bool(&e, r->dirty == 1);
    else
        S_null(&e);
    S_kstr(&e, "taken_at", r->taken_at);
    S_emit_device(&e, &r->device);
    S_emit_collection(&e, &r->collection);
    S_key(&e, "experiments");
    S_open(&e, '[', true);
    for (size_t i = 0; i < r->n_experiments; i++)
        S_emit_experiment(&e, &r->experiments[i]);
    S_close(&e, ']');
    S_key(&e, "runs");
    S_open(&e, '[', true);
    for (size_t i = 0; i < r->n_runs; i++)
        S_emit_run(&e, &r->runs[i]);
    S_close(&e, ']');
    S_close(&e, '}');
    gm_buf_putc(&b, '\n');
    return gm_buf_detach(&b);
}

/* ---- writing a file atomically ------------------------------------------- */

gm_status gm_results_write_file(const gm_results *r, const char *path, gm_error *err)
{
    /* output.h: a regular file is replaced atomically (temporary file beside
     * it, fsync, rename): readers see the old file or the new one, never half
     * of one; "-" and other streams are written in place. */
    char *json = gm_results_to_json(r);
    gm_status st = gm_output_write(path, json, strlen(json), NULL, 0, err);
    free(json);
    return st;
}

/* ---- reading ------------------------------------------------------------- */

/* The reader walks the parsed document keeping the JSON path of where it is
 * ("runs[3].timing.samples[2]") so that every error can name it. */
typedef struct {
    const char *file;
    gm_error *err;
    char path[512];
    size_t len;
} S_rd;

/* Copy s into out (size n) for a message: control characters become '?'
 * and long text is cut with "...". */
static const char *S_clip(const char *s, char *out, size_t n)
{
    size_t i = 0;
    for (; s[i] && i + 4 < n; i++)
        out[i] = ((unsigned char)s[i] < 0x20) ? '?' : s[i];
    if (s[i]) {
        memcpy(out + i, "...", 3);
        i += 3;
    }
    out[i] = '\0';
    return out;
}

static bool S_fail(S_rd *rd, gm_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool S_fail(S_rd *rd, gm_status st, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gm_fail(rd->err, st, "%s: %s: %s", rd->file, rd->len ? rd->path : "(top level)", msg);
    return false;
}

static bool S_is_ident(const char *k)
{
    if (!*k)
        return false;
    for (const char *p = k; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return false;
    return true;
}

static size_t S_push_key(S_rd *rd, const char *key)
{
    size_t mark = rd->len;
    size_t room = sizeof rd->path - rd->len;
    int n;
    if (S_is_ident(key)) {
        n = snprintf(rd->path + rd->len, room, "%s%s", rd->len ? "." : "", key);
    } else {
        /* Metric names and user parameter names: ["dram__bytes_read.sum"] */
        char clip[96];
        n = snprintf(rd->path + rd->len, room, "[\"%s\"]", S_clip(key, clip, sizeof clip));
    }
    if (n > 0)
        rd->len += (size_t)n < room ? (size_t)n : room - 1;
    return mark;
}

static size_t S_push_index(S_rd *rd, size_t i)
{
    size_t mark = rd->len;
    size_t room = sizeof rd->path - rd->len;
    int n = snprintf(rd->path + rd->len, room, "[%zu]", i);
    if (n > 0)
        rd->len += (size_t)n < room ? (size_t)n : room - 1;
    return mark;
}

static void S_pop(S_rd *rd, size_t mark)
{
    rd->len = mark;
    rd->path[mark] = '\0';
}

static const char *S_type(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "something unknown";
}

static bool S_mistyped(S_rd *rd, const json_t *j, const char *expected)
{
    return S_fail(rd, GM_ERR_FIELD, "expected %s, found %s", expected, S_type(j));
}

/* ---- conversions of the value at the current path ---- */

static bool S_as_str(S_rd *rd, json_t *j, bool nullable, char **out)
{
    if (nullable && json_is_null(j)) {
        *out = NULL;
        return true;
    }
    if (!json_is_string(j))
        return S_mistyped(rd, j, nullable ? "a string or null" : "a string");
    *out = gm_xstrdup(json_string_value(j));
    return true;
}

static bool S_as_int(S_rd *rd, json_t *j, long long lo, long long hi, long long *out)
{
    if (!json_is_integer(j))
        return S_mistyped(rd, j, "an integer");
    long long v = json_integer_value(j);
    if (v < lo || v > hi)
        return S_fail(rd, GM_ERR_VALUE, "%lld is out of range [%lld, %lld]", v, lo, hi);
    *out = v;
    return true;
}

/* A real; an integer is accepted and converted; null reads as NaN when allowed. */
static bool S_as_real(S_rd *rd, json_t *j, bool nullable, double *out)
{
    if (nullable && json_is_null(j)) {
        *out = NAN;
        return true;
    }
    if (!json_is_number(j))
        return S_mistyped(rd, j, nullable ? "a number or null" : "a number");
    *out = json_number_value(j);
    return true;
}

static bool S_as_value(S_rd *rd, json_t *j, bool allow_str, gm_value *out)
{
    switch (json_typeof(j)) {
    case JSON_INTEGER: *out = gm_vint(json_integer_value(j)); return true;
    case JSON_REAL: *out = gm_vreal(json_real_value(j)); return true;
    case JSON_NULL: *out = gm_vabsent(); return true;
    case JSON_STRING:
        if (allow_str) {
            *out = gm_vstr(json_string_value(j));
            return true;
        }
        break;
    default: break;
    }
    return S_mistyped(rd, j, allow_str ? "a number, a string or null" : "a number or null");
}

/* ---- members: look the key up (missing is an error), convert, pop ---- */

static json_t *S_enter(S_rd *rd, json_t *obj, const char *key, size_t *mark)
{
    *mark = S_push_key(rd, key);
    json_t *j = json_object_get(obj, key);
    if (!j)
        S_fail(rd, GM_ERR_FIELD, "required field is missing");
    return j;
}

static bool S_get_str(S_rd *rd, json_t *obj, const char *key, bool nullable, char **out)
{
    size_t m;
    json_t *j = S_enter(rd, obj, key, &m);
    bool ok = j && S_as_str(rd, j, nullable, out);
    S_pop(rd, m);
    return ok;
}

static bool S_get_ll(S_rd *rd, json_t *obj, const char *key, long long *out)
{
    size_t m;
    json_t *j = S_enter(rd, obj, key, &m);
    bool ok = j && S_as_int(rd, j, LLONG_MIN, LLONG_MAX, out);
    S_pop(rd, m);
    return ok;
}

/* An integer that may be null; null reads as `unknown`. */
static bool S_get_ll_or_null(S_rd *rd, json_t *obj, const char *key, long long unknown,
                             long long *out)
{
    size_t m;
    json_t *j = S_enter(rd, obj, key, &m);
    bool ok = false;
    if (j && json_is_null(j)) {
        *out = unknown;
        ok = true;
    } else if (j && json_is_integer(j)) {
        ok = S_as_int(rd, j, LLONG_MIN, LLONG_MAX, out);
    } else if (j) {
        S_mistyped(rd, j, "an integer or null");
    }
    S_pop(rd, m);
    return ok;
}

static bool S_get_int(S_rd *rd, json_t *obj, const char *key, int *out)
{
    size_t m;
    long long v = 0;
    json_t *j = S_enter(rd, obj, key, &m);
    bool ok = j && S_as_int(rd, j, INT_MIN, INT_MAX, &v);
    S_pop(rd, m);
    if (ok)
        *out = (int)v;
    return ok;
}

static bool S_get_real(S_rd *rd, json_t *obj, const char *key, bool nullable, double *out)
{
    size_t m;
    json_t *j = S_enter(rd, obj, key, &m);
    bool ok = j && S_as_real(rd, j, nullable, out);
    S_pop(rd, m);
    return ok;
}

static bool S_get_bool(S_rd *rd, json_t *obj, const char *key, bool *out)
{
    size_t m;
    json_t *j = S_enter(rd, obj, key, &m);
    bool ok = false;
    if (j && json_is_boolean(j)) {
        *out = json_is_true(j);
        ok = true;
    } else if (j) {
        S_mistyped(rd, j, "true or false");
    }
    S_pop(rd, m);
    return ok;
}

static bool S_get_value(S_rd *rd, json_t *obj, const char *key, gm_value *out)
{
    size_t m;
    json_t *j = S_enter(rd, obj, key, &m);
    bool ok = j && S_as_value(rd, j, false, out);
    S_pop(rd, m);
    return ok;
}

/* The member must be an object (or null when nullable: *out = NULL).  On
 * success the path stays pushed; the caller pops with *mark. */
static bool S_open_obj(S_rd *rd, json_t *obj, const char *key, bool nullable, json_t **out,
                       size_t *mark)
{
    json_t *j = S_enter(rd, obj, key, mark);
    if (j && nullable && json_is_null(j)) {
        *out = NULL;
        return true;
    }
    if (j && json_is_object(j)) {
        *out = j;
        return true;
    }
    if (j)
        S_mistyped(rd, j, nullable ? "an object or null" : "an object");
    S_pop(rd, *mark);
    return false;
}

static bool S_open_arr(S_rd *rd, json_t *obj, const char *key, bool nullable, json_t **out,
                       size_t *mark)
{
    json_t *j = S_enter(rd, obj, key, mark);
    if (j && nullable && json_is_null(j)) {
        *out = NULL;
        return true;
    }
    if (j && json_is_array(j)) {
        *out = j;
        return true;
    }
    if (j)
        S_mistyped(rd, j, nullable ? "an array or null" : "an array");
    S_pop(rd, *mark);
    return false;
}

static bool S_get_strv(S_rd *rd, json_t *obj, const char *key, char ***out, size_t *n)
{
    size_t m;
    json_t *a;
    if (!S_open_arr(rd, obj, key, false, &a, &m))
        return false;
    size_t len = json_array_size(a);
    *out = gm_xcalloc(len ? len : 1, sizeof **out);
    *n = len;
    bool ok = true;
    for (size_t i = 0; ok && i < len; i++) {
        size_t mi = S_push_index(rd, i);
        ok = S_as_str(rd, json_array_get(a, i), false, &(*out)[i]);
        S_pop(rd, mi);
    }
    S_pop(rd, m);
    return ok;
}

/* {"NAME": {"value": number|null, "unit": string|null}, ...} in file order. */
static bool S_get_metrics(S_rd *rd, json_t *obj, const char *key, gm_metric **out, size_t *n)
{
    size_t m;
    json_t *o;
    if (!S_open_obj(rd, obj, key, false, &o, &m))
        return false;
    size_t len = json_object_size(o);
    *out = gm_xcalloc(len ? len : 1, sizeof **out);
    *n = 0;
    bool ok = true;
    const char *name;
    json_t *mv;
    json_object_foreach(o, name, mv) {
        gm_metric *x = &(*out)[(*n)++];
        x->name = gm_xstrdup(name);
        size_t mi = S_push_key(rd, name);
        if (!json_is_object(mv))
            ok = S_mistyped(rd, mv, "an object {\"value\": ..., \"unit\": ...}");
        else
            ok = S_get_value(rd, mv, "value", &x->value) &&
                 S_get_str(rd, mv, "unit", true, &x->unit);
        x->launch_min = x->launch_max = gm_vabsent();
        if (ok && json_is_object(mv) && json_object_get(mv, "launch_min"))
            ok = S_get_value(rd, mv, "launch_min", &x->launch_min) &&
                 S_get_value(rd, mv, "launch_max", &x->launch_max);
        S_pop(rd, mi);
        if (!ok)
            break;
    }
    S_pop(rd, m);
    return ok;
}

/* "attainable_bandwidth_gbs" and "attainable_kernel": optional (older files). */
static bool S_read_attainable(S_rd *rd, json_t *o, gm_device *d)
{
    if (!json_object_get(o, "attainable_bandwidth_gbs"))
        return true;
    return S_get_value(rd, o, "attainable_bandwidth_gbs", &d->attainable_bandwidth_gbs) &&
           (!json_object_get(o, "attainable_kernel") ||
            S_get_str(rd, o, "attainable_kernel", true, &d->attainable_kernel));
}

static bool S_read_device(S_rd *rd, json_t *root, gm_device *d)
{
    size_t m, mc;
    json_t *o, *cc;
    if (!S_open_obj(rd, root, "device", false, &o, &m))
        return false;
    bool ok = S_get_int(rd, o, "ordinal", &d->ordinal) &&
              S_get_str(rd, o, "name", true, &d->name) &&
              S_get_str(rd, o, "chip", true, &d->chip);
    if (ok && (ok = S_open_obj(rd, o, "compute_capability", false, &cc, &mc))) {
        ok = S_get_int(rd, cc, "major", &d->cc_major) && S_get_int(rd, cc, "minor", &d->cc_minor);
        S_pop(rd, mc);
    }
    ok = ok && S_get_int(rd, o, "sm_count", &d->sm_count) &&
         S_get_ll(rd, o, "memory_clock_khz", &d->memory_clock_khz) &&
         S_get_int(rd, o, "memory_bus_width_bits", &d->memory_bus_width_bits) &&
         S_get_value(rd, o, "theoretical_bandwidth_gbs", &d->theoretical_bandwidth_gbs) &&
         S_get_value(rd, o, "copy_bandwidth_gbs", &d->copy_bandwidth_gbs) &&
         S_get_value(rd, o, "copy_bandwidth_bytes", &d->copy_bandwidth_bytes) &&
         S_read_attainable(rd, o, d) && S_get_ll(rd, o, "l2_bytes", &d->l2_bytes) &&
         S_get_ll(rd, o, "global_memory_bytes", &d->global_memory_bytes) &&
         S_get_str(rd, o, "driver_version", true, &d->driver_version) &&
         S_get_int(rd, o, "cuda_driver_api", &d->cuda_driver_api) &&
         S_get_int(rd, o, "cuda_runtime", &d->cuda_runtime) &&
         S_get_ll(rd, o, "cupti_api", &d->cupti_api);
    S_pop(rd, m);
    return ok;
}

static bool S_read_process(S_rd *rd, json_t *o, gm_process *p)
{
    if (!json_is_object(o))
        return S_mistyped(rd, o, "an object");
    p->present = true;
    bool ok = S_get_str(rd, o, "host", true, &p->host) && S_get_value(rd, o, "rank", &p->rank) &&
              S_get_str(rd, o, "rank_var", true, &p->rank_var) &&
              S_get_ll(rd, o, "pid", &p->pid) &&
              S_get_str(rd, o, "device_uuid", true, &p->device_uuid) &&
              S_get_value(rd, o, "lock_wait_seconds", &p->lock_wait_seconds) &&
              S_get_ll(rd, o, "lock_waits", &p->lock_waits) &&
              S_get_ll(rd, o, "lock_turns", &p->lock_turns);
    if (ok && p->rank.kind != GM_V_ABSENT && p->rank.kind != GM_V_INT) {
        size_t mk = S_push_key(rd, "rank");
        ok = S_fail(rd, GM_ERR_FIELD, "expected an integer or null");
        S_pop(rd, mk);
    }
    return ok;
}

/* Optional members of the collection: absent in older files. */
static bool S_read_collection_opt(S_rd *rd, json_t *o, gm_collection *c)
{
    json_t *j = json_object_get(o, "partial");
    if (j && !S_get_str(rd, o, "partial", true, &c->partial))
        return false;
    j = json_object_get(o, "process");
    if (j && !json_is_null(j)) {
        size_t m = S_push_key(rd, "process");
        bool ok = S_read_process(rd, j, &c->process);
        S_pop(rd, m);
        if (!ok)
            return false;
    }
    j = json_object_get(o, "ranks");
    if (j && !json_is_null(j)) {
        size_t m = S_push_key(rd, "ranks");
        if (!json_is_array(j)) {
            bool ok = S_mistyped(rd, j, "an array");
            S_pop(rd, m);
            return ok;
        }
        size_t n = json_array_size(j);
        c->ranks = gm_xcalloc(n ? n : 1, sizeof *c->ranks);
        bool ok = true;
        for (size_t i = 0; ok && i < n; i++) {
            size_t mi = S_push_index(rd, i);
            ok = S_read_process(rd, json_array_get(j, i), &c->ranks[i]);
            c->n_ranks = i + 1;
            S_pop(rd, mi);
        }
        S_pop(rd, m);
        if (!ok)
            return false;
    }
    return true;
}

static bool S_read_collection(S_rd *rd, json_t *root, gm_collection *c)
{
    size_t m;
    json_t *o;
    if (!S_open_obj(rd, root, "collection", false, &o, &m))
        return false;
    long long passes = -1;
    bool ok = S_get_strv(rd, o, "metrics", &c->metrics, &c->n_metrics) &&
              S_get_ll_or_null(rd, o, "passes", -1, &passes) &&
              S_get_str(rd, o, "range_mode", true, &c->range_mode) &&
              S_get_str(rd, o, "replay_mode", true, &c->replay_mode) &&
              S_get_bool(rd, o, "cache_flush", &c->cache_flush) &&
              S_get_str(rd, o, "clock_control", true, &c->clock_control) &&
              S_get_str(rd, o, "size_set", true, &c->size_set) &&
              S_get_int(rd, o, "timing_warmup", &c->timing_warmup) &&
              S_get_int(rd, o, "timing_repetitions", &c->timing_repetitions) &&
              S_get_value(rd, o, "profile_seconds", &c->profile_seconds) &&
              S_get_value(rd, o, "total_seconds", &c->total_seconds) &&
              S_get_strv(rd, o, "command", &c->command, &c->n_command) &&
              S_read_collection_opt(rd, o, c);
    if (ok && json_object_get(o, "source_lines_seconds")) {
        c->source_lines = true;
        ok = S_get_value(rd, o, "source_lines_seconds", &c->source_lines_seconds) &&
             S_get_ll(rd, o, "source_lines_launches", &c->source_lines_launches);
    }
    if (ok && (passes < -1 || passes > INT_MAX)) {
        size_t mp = S_push_key(rd, "passes");
        ok = S_fail(rd, GM_ERR_VALUE, "%lld is out of range [0, %d]", passes, INT_MAX);
        S_pop(rd, mp);
    }
    c->passes = (int)passes;
    S_pop(rd, m);
    return ok;
}

/* "contrast": optional (files written before it have none), null or an object. */
static bool S_read_contrast(S_rd *rd, json_t *o, gm_experiment *x)
{
    json_t *c = json_object_get(o, "contrast");
    if (!c || json_is_null(c))
        return true;
    size_t m = S_push_key(rd, "contrast");
    bool ok = json_is_object(c) ? S_get_str(rd, c, "question", true, &x->question) &&
                                      S_get_str(rd, c, "a", false, &x->contrast_a) &&
                                      S_get_str(rd, c, "b", false, &x->contrast_b) &&
                                      S_get_str(rd, c, "at", true, &x->contrast_at) &&
                                      S_get_str(rd, c, "counter", true, &x->contrast_counter)
                                : S_mistyped(rd, c, "an object or null");
    S_pop(rd, m);
    return ok;
}

static bool S_read_experiment(S_rd *rd, json_t *o, gm_experiment *x)
{
    if (!json_is_object(o))
        return S_mistyped(rd, o, "an object");
    return S_get_str(rd, o, "id", false, &x->id) && S_get_str(rd, o, "title", true, &x->title) &&
           S_get_str(rd, o, "summary", true, &x->summary) &&
           S_get_str(rd, o, "source", true, &x->source) &&
           S_get_str(rd, o, "sweep_param", true, &x->sweep_param) &&
           S_get_bool(rd, o, "sweep_log2", &x->sweep_log2) &&
           S_get_str(rd, o, "series_param", true, &x->series_param) &&
           S_get_bool(rd, o, "bandwidth_bound", &x->bandwidth_bound) &&
           S_get_str(rd, o, "baseline_variant", true, &x->baseline_variant) &&
           S_read_contrast(rd, o, x);
}

static bool S_read_uint3(S_rd *rd, json_t *obj, const char *key, unsigned out[3])
{
    size_t m;
    json_t *a;
    if (!S_open_arr(rd, obj, key, false, &a, &m))
        return false;
    bool ok = true;
    if (json_array_size(a) != 3)
        ok = S_fail(rd, GM_ERR_FIELD, "expected 3 integers (x, y, z), found %zu elements",
                    json_array_size(a));
    for (size_t i = 0; ok && i < 3; i++) {
        size_t mi = S_push_index(rd, i);
        long long v = 0;
        ok = S_as_int(rd, json_array_get(a, i), 0, UINT_MAX, &v);
        out[i] = (unsigned)v;
        S_pop(rd, mi);
    }
    S_pop(rd, m);
    return ok;
}

static bool S_read_launch(S_rd *rd, json_t *o, gm_run *run)
{
    size_t m;
    json_t *l;
    if (!S_open_obj(rd, o, "launch", true, &l, &m))
        return false;
    bool ok = true;
    if (l) {
        run->has_launch = true;
        ok = S_read_uint3(rd, l, "grid", run->launch.grid) &&
             S_read_uint3(rd, l, "block", run->launch.block) &&
             S_get_ll(rd, l, "shared_bytes", &run->launch.shared_bytes) &&
             S_get_ll_or_null(rd, l, "registers", -1, &run->launch.registers);
    }
    S_pop(rd, m);
    return ok;
}

static bool S_read_timing(S_rd *rd, json_t *o, gm_timing *t)
{
    size_t m;
    json_t *tj;
    if (!S_open_obj(rd, o, "timing", true, &tj, &m))
        return false;
    bool ok = true;
    if (tj) {
        long long n = 0;
        t->present = true;
        ok = S_get_int(rd, tj, "warmup", &t->warmup) &&
             S_get_bool(rd, tj, "l2_flushed", &t->l2_flushed) &&
             S_get_ll(rd, tj, "n", &n) && S_get_real(rd, tj, "min", true, &t->min) &&
             S_get_real(rd, tj, "q1", true, &t->q1) &&
             S_get_real(rd, tj, "median", true, &t->median) &&
             S_get_real(rd, tj, "q3", true, &t->q3) && S_get_real(rd, tj, "max", true, &t->max);
        if (ok && json_object_get(tj, "gated"))
            ok = S_get_bool(rd, tj, "gated", &t->gated);
        if (ok && n < 0) {
            size_t mn = S_push_key(rd, "n");
            ok = S_fail(rd, GM_ERR_VALUE, "%lld samples: a count cannot be negative", n);
            S_pop(rd, mn);
        }
        t->n = ok ? (size_t)n : 0;
        size_t ms;
        json_t *a;
        if (ok && (ok = S_open_arr(rd, tj, "samples", true, &a, &ms))) {
            if (a && json_array_size(a) != t->n) {
                ok = S_fail(rd, GM_ERR_VALUE, "%zu samples, but \"n\" says %zu",
                            json_array_size(a), t->n);
            } else if (a && t->n > 0) {
                t->samples = gm_xmalloc(t->n * sizeof *t->samples);
                for (size_t i = 0; ok && i < t->n; i++) {
                    size_t mi = S_push_index(rd, i);
                    ok = S_as_real(rd, json_array_get(a, i), false, &t->samples[i]);
                    S_pop(rd, mi);
                }
            }
            S_pop(rd, ms);
        }
    }
    S_pop(rd, m);
    return ok;
}

static bool S_read_prediction(S_rd *rd, json_t *o, gm_prediction *p)
{
    size_t m;
    json_t *pj;
    if (!S_open_obj(rd, o, "prediction", true, &pj, &m))
        return false;
    bool ok = true;
    if (pj) {
        p->present = true;
        ok = S_get_str(rd, pj, "method", true, &p->method) &&
             S_get_ll(rd, pj, "warps_traced", &p->warps_traced) &&
             S_get_ll(rd, pj, "warps_total", &p->warps_total) &&
             S_get_bool(rd, pj, "scaled", &p->scaled) &&
             S_get_metrics(rd, pj, "metrics", &p->metrics, &p->n_metrics) &&
             S_get_strv(rd, pj, "notes", &p->notes, &p->n_notes);
    }
    S_pop(rd, m);
    return ok;
}

static bool S_read_check(S_rd *rd, json_t *o, gm_check *c)
{
    size_t m;
    json_t *cj;
    if (!S_open_obj(rd, o, "check", false, &cj, &m))
        return false;
    char *status = NULL;
    bool ok = S_get_str(rd, cj, "status", false, &status);
    if (ok) {
        size_t i, n = sizeof S_check_names / sizeof S_check_names[0];
        for (i = 0; i < n && strcmp(status, S_check_names[i]) != 0; i++)
            ;
        if (i == n) {
            char clip[64];
            size_t ms = S_push_key(rd, "status");
            ok = S_fail(rd, GM_ERR_VALUE,
                        "unknown status \"%s\" (expected passed, failed, not-run, error or "
                        "no-reference)",
                        S_clip(status, clip, sizeof clip));
            S_pop(rd, ms);
        }
        c->status = (gm_check_status)i;
    }
    free(status);
    ok = ok && S_get_ll(rd, cj, "checked", &c->checked) &&
         S_get_ll(rd, cj, "mismatches", &c->mismatches) &&
         S_get_real(rd, cj, "tolerance", true, &c->tolerance) &&
         S_get_value(rd, cj, "max_abs_error", &c->max_abs_error);
    size_t mf;
    json_t *fj;
    if (ok && (ok = S_open_obj(rd, cj, "first_mismatch", true, &fj, &mf))) {
        if (fj) {
            c->has_first_mismatch = true;
            ok = S_get_ll(rd, fj, "index", &c->first_index) &&
                 S_get_real(rd, fj, "value", true, &c->first_value) &&
                 S_get_real(rd, fj, "expected", true, &c->first_expected);
        }
        S_pop(rd, mf);
    }
    ok = ok && S_get_str(rd, cj, "reason", true, &c->reason);
    S_pop(rd, m);
    return ok;
}

static bool S_read_params(S_rd *rd, json_t *o, gm_run *run)
{
    size_t m;
    json_t *pj;
    if (!S_open_obj(rd, o, "params", false, &pj, &m))
        return false;
    size_t len = json_object_size(pj);
    run->params = gm_xcalloc(len ? len : 1, sizeof *run->params);
    bool ok = true;
    const char *name;
    json_t *v;
    json_object_foreach(pj, name, v) {
        gm_param *p = &run->params[run->n_params++];
        p->name = gm_xstrdup(name);
        size_t mi = S_push_key(rd, name);
        ok = S_as_value(rd, v, true, &p->value);
        S_pop(rd, mi);
        if (!ok)
            break;
    }
    S_pop(rd, m);
    return ok;
}

/* Optional: files written before issue 14 have no "source_lines". */
static bool S_read_srclines(S_rd *rd, json_t *o, gm_srclines *sl)
{
    if (!json_object_get(o, "source_lines"))
        return true;
    size_t m;
    json_t *sj;
    if (!S_open_obj(rd, o, "source_lines", true, &sj, &m))
        return false;
    bool ok = true;
    if (sj) {
        sl->present = true;
        size_t ma;
        json_t *arr;
        ok = S_get_str(rd, sj, "status", false, &sl->status) &&
             S_get_str(rd, sj, "note", true, &sl->note) &&
             S_get_value(rd, sj, "seconds", &sl->seconds) &&
             S_get_bool(rd, sj, "line_info", &sl->line_info) &&
             S_open_arr(rd, sj, "lines", false, &arr, &ma);
        if (ok) {
            size_t n = json_array_size(arr);
            sl->lines = gm_xcalloc(n ? n : 1, sizeof *sl->lines);
            for (size_t i = 0; i < n && ok; i++) {
                size_t mi = S_push_index(rd, i);
                json_t *lj = json_array_get(arr, i);
                gm_srcline *l = &sl->lines[sl->n_lines++];
                l->pc = -1;
                if (!json_is_object(lj)) {
                    ok = S_mistyped(rd, lj, "an object");
                } else {
                    ok = S_get_str(rd, lj, "file", true, &l->file) &&
                         S_get_ll(rd, lj, "line", &l->line) &&
                         S_get_ll_or_null(rd, lj, "pc", -1, &l->pc) &&
                         S_get_str(rd, lj, "function", true, &l->function) &&
                         S_get_str(rd, lj, "text", true, &l->text) &&
                         S_get_str(rd, lj, "sass", true, &l->sass);
                    for (int k = 0; ok && k < GM_SL_N; k++) {
                        ok = S_get_ll(rd, lj, gm_sl_counter_keys[k], &l->count[k]);
                        if (ok && l->count[k] < 0) {
                            size_t mk = S_push_key(rd, gm_sl_counter_keys[k]);
                            ok = S_fail(rd, GM_ERR_VALUE, "%lld is negative", l->count[k]);
                            S_pop(rd, mk);
                        }
                    }
                    if (ok && l->line < 0) {
                        size_t mk = S_push_key(rd, "line");
                        ok = S_fail(rd, GM_ERR_VALUE, "%lld is negative", l->line);
                        S_pop(rd, mk);
                    }
                }
                S_pop(rd, mi);
            }
            S_pop(rd, ma);
        }
    }
    S_pop(rd, m);
    return ok;
}

static bool S_read_run(S_rd *rd, json_t *o, gm_run *run)
{
    if (!json_is_object(o))
        return S_mistyped(rd, o, "an object");
    return S_get_str(rd, o, "experiment", false, &run->experiment) &&
           S_get_str(rd, o, "variant", false, &run->variant) &&
           S_get_str(rd, o, "layout", true, &run->layout) &&
           S_get_str(rd, o, "kernel", true, &run->kernel) && S_read_params(rd, o, run) &&
           S_read_launch(rd, o, run) && S_get_value(rd, o, "bytes_read", &run->bytes_read) &&
           S_get_value(rd, o, "bytes_written", &run->bytes_written) &&
           S_get_value(rd, o, "flops", &run->flops) && S_read_timing(rd, o, &run->timing) &&
           S_get_metrics(rd, o, "metrics", &run->metrics, &run->n_metrics) &&
           S_read_prediction(rd, o, &run->prediction) && S_read_check(rd, o, &run->check) &&
           S_get_strv(rd, o, "notes", &run->notes, &run->n_notes) &&
           S_read_srclines(rd, o, &run->source_lines);
}

static bool S_schema_fail(S_rd *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool S_schema_fail(S_rd *rd, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gm_fail(rd->err, GM_ERR_SCHEMA, "%s: %s", rd->file, msg);
    return false;
}

static bool S_read_schema(S_rd *rd, json_t *root, gm_results *r)
{
    char clip[96];
    if (!json_is_object(root))
        return S_schema_fail(rd, "not a %s file: the top level is %s, expected an object",
                             GM_SCHEMA_NAME, S_type(root));
    json_t *s = json_object_get(root, "schema");
    if (!s || !json_is_string(s))
        return S_schema_fail(rd, "not a %s file: \"schema\" is %s, expected \"%s\"",
                             GM_SCHEMA_NAME, s ? S_type(s) : "missing", GM_SCHEMA_NAME);
    if (strcmp(json_string_value(s), GM_SCHEMA_NAME) != 0)
        return S_schema_fail(rd, "not a %s file: schema is \"%s\", expected \"%s\"",
                             GM_SCHEMA_NAME, S_clip(json_string_value(s), clip, sizeof clip),
                             GM_SCHEMA_NAME);
    json_t *v = json_object_get(root, "schema_version");
    if (!v || !json_is_integer(v))
        return S_schema_fail(rd, "\"schema_version\" is %s, expected the integer %d",
                             v ? S_type(v) : "missing", GM_SCHEMA_VERSION);
    long long found = json_integer_value(v);
    if (found != GM_SCHEMA_VERSION)
        return S_schema_fail(rd, "schema version %lld is not supported: gpumem-report %s reads "
                                 "version %d%s",
                             found, GM_TOOL_VERSION, GM_SCHEMA_VERSION,
                             found > GM_SCHEMA_VERSION
                                 ? " (the file was written by a newer gpumem-report)"
                                 : "");
    r->schema_version = GM_SCHEMA_VERSION;
    return true;
}

/* Cross-references the renderer relies on: experiment ids are unique, and
 * every run names an experiment of the file. */
static bool S_read_links(S_rd *rd, gm_results *r)
{
    char clip[96];
    for (size_t i = 0; i < r->n_experiments; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(r->experiments[i].id, r->experiments[j].id) == 0) {
                size_t m = S_push_key(rd, "experiments");
                S_push_index(rd, i);
                S_push_key(rd, "id");
                S_fail(rd, GM_ERR_VALUE, "\"%s\" is already the id of experiments[%zu]",
                       S_clip(r->experiments[i].id, clip, sizeof clip), j);
                S_pop(rd, m);
                return false;
            }
        }
    }
    for (size_t i = 0; i < r->n_runs; i++) {
        if (!gm_results_experiment(r, r->runs[i].experiment)) {
            size_t m = S_push_key(rd, "runs");
            S_push_index(rd, i);
            S_push_key(rd, "experiment");
            S_fail(rd, GM_ERR_VALUE, "\"%s\" is not the id of any entry of \"experiments\"",
                   S_clip(r->runs[i].experiment, clip, sizeof clip));
            S_pop(rd, m);
            return false;
        }
    }
    return true;
}

/* Where the runs come from: the parsed document's "runs" array, or each
 * element's own text in the file (S_read_split). */
typedef struct {
    const char *text;   /* NULL: the document's array */
    const size_t *at;   /* where each element starts in text */
    const size_t *to;   /* and where it ends (one past its last byte) */
    size_t n;
} S_runs_src;

static bool S_read_doc(S_rd *rd, json_t *root, gm_results *r, const S_runs_src *src)
{
    if (!S_read_schema(rd, root, r))
        return false;
    long long dirty_ll = -1;
    bool ok = S_get_str(rd, root, "origin", true, &r->origin) &&
              S_get_str(rd, root, "tool_version", true, &r->tool_version) &&
              S_get_str(rd, root, "commit", true, &r->commit);
    if (ok) {
        size_t m;
        json_t *d = S_enter(rd, root, "dirty", &m);
        if (!d)
            ok = false;
        else if (json_is_boolean(d))
            dirty_ll = json_is_true(d);
        else if (!json_is_null(d))
            ok = S_mistyped(rd, d, "true, false or null");
        S_pop(rd, m);
    }
    r->dirty = (int)dirty_ll;
    ok = ok && S_get_str(rd, root, "taken_at", true, &r->taken_at) &&
         S_read_device(rd, root, &r->device) && S_read_collection(rd, root, &r->collection);
    if (!ok)
        return false;

    size_t m;
    json_t *a;
    if (!S_open_arr(rd, root, "experiments", false, &a, &m))
        return false;
    size_t n = json_array_size(a);
    r->experiments = gm_xcalloc(n ? n : 1, sizeof *r->experiments);
    r->n_experiments = n;
    for (size_t i = 0; ok && i < n; i++) {
        size_t mi = S_push_index(rd, i);
        ok = S_read_experiment(rd, json_array_get(a, i), &r->experiments[i]);
        S_pop(rd, mi);
    }
    S_pop(rd, m);
    if (!ok || !S_open_arr(rd, root, "runs", false, &a, &m))
        return false;
    n = src ? src->n : json_array_size(a);
    r->runs = gm_xcalloc(n ? n : 1, sizeof *r->runs);
    r->n_runs = n;
    for (size_t i = 0; i < n; i++)
        S_run_init(&r->runs[i]);
    for (size_t i = 0; ok && i < n; i++) {
        size_t mi = S_push_index(rd, i);
        if (!src) {
            ok = S_read_run(rd, json_array_get(a, i), &r->runs[i]);
        } else {
            /* one run's tree at a time: parsed, read, freed */
            json_error_t je;
            size_t at = src->at[i];
            json_t *o = json_loadb(src->text + at, src->to[i] - at,
                                   JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &je);
            ok = o && at + (size_t)je.position == src->to[i]
                     ? S_read_run(rd, o, &r->runs[i])
                     : S_fail(rd, GM_ERR_PARSE, "not one run");
            json_decref(o);
        }
        S_pop(rd, mi);
    }
    S_pop(rd, m);
    return ok && S_read_links(rd, r);
}

/* ---- ranges: what every consumer may assume of a results file read ---- */

static bool S_range_fail(S_rd *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool S_range_fail(S_rd *rd, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return S_fail(rd, GM_ERR_VALUE, "%s", msg);
}

/* A count, byte count or flop count: an integer in [0, GM_INT_LIMIT] or a
 * finite real >= 0 (null: not measured). */
static bool S_check_count(S_rd *rd, const char *key, const gm_value *v)
{
    size_t m = S_push_key(rd, key);
    bool ok = true;
    if (v->kind == GM_V_INT && (v->i < 0 || v->i > GM_INT_LIMIT))
        ok = S_range_fail(rd, "%lld is out of range: a count is between 0 and %lld (2^53)",
                          v->i, (long long)GM_INT_LIMIT);
    else if (v->kind == GM_V_REAL && !(v->r >= 0 && v->r <= (double)GM_INT_LIMIT))
        ok = S_range_fail(rd, "%.17g is out of range: a count is between 0 and %lld (2^53)",
                          v->r, (long long)GM_INT_LIMIT);
    S_pop(rd, m);
    return ok;
}

static bool S_check_metrics(S_rd *rd, const char *key, const gm_metric *ms, size_t n)
{
    size_t m = S_push_key(rd, key);
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        size_t mi = S_push_key(rd, ms[i].name);
        ok = S_check_count(rd, "value", &ms[i].value) &&
             S_check_count(rd, "launch_min", &ms[i].launch_min) &&
             S_check_count(rd, "launch_max", &ms[i].launch_max);
        S_pop(rd, mi);
    }
    S_pop(rd, m);
    return ok;
}

/* Times: finite, >= 0, and min <= q1 <= median <= q3 <= max among those given. */
static bool S_check_timing(S_rd *rd, const gm_timing *t)
{
    if (!t->present)
        return true;
    size_t m = S_push_key(rd, "timing");
    const char *names[] = {"min", "q1", "median", "q3", "max"};
    double v[] = {t->min, t->q1, t->median, t->q3, t->max};
    bool ok = true;
    int prev = -1;
    for (int k = 0; ok && k < 5; k++) {
        if (isnan(v[k]))
            continue;   /* null: not measured */
        size_t mk = S_push_key(rd, names[k]);
        if (!(v[k] >= 0) || isinf(v[k]))
            ok = S_range_fail(rd, "%.17g ms: a time is a finite number >= 0", v[k]);
        else if (prev >= 0 && v[k] < v[prev])
            ok = S_range_fail(rd, "%.17g ms is less than %s (%.17g ms): the summary must hold "
                              "min <= q1 <= median <= q3 <= max", v[k], names[prev], v[prev]);
        S_pop(rd, mk);
        prev = k;
    }
    if (ok && t->n > (size_t)GM_INT_LIMIT)
        ok = S_range_fail(rd, "n = %zu samples is out of range", t->n);
    for (size_t i = 0; ok && t->samples && i < t->n; i++) {
        if (t->samples[i] >= 0 && !isinf(t->samples[i]))
            continue;
        size_t ms = S_push_key(rd, "samples");
        size_t mi = S_push_index(rd, i);
        ok = S_range_fail(rd, "%.17g ms: a time is a finite number >= 0", t->samples[i]);
        S_pop(rd, mi);
        S_pop(rd, ms);
    }
    S_pop(rd, m);
    return ok;
}

static bool S_check_run(S_rd *rd, const gm_run *run)
{
    bool ok = S_check_count(rd, "bytes_read", &run->bytes_read) &&
              S_check_count(rd, "bytes_written", &run->bytes_written) &&
              S_check_count(rd, "flops", &run->flops) && S_check_timing(rd, &run->timing) &&
              S_check_metrics(rd, "metrics", run->metrics, run->n_metrics);
    if (ok && run->prediction.present) {
        size_t m = S_push_key(rd, "prediction");
        const gm_prediction *p = &run->prediction;
        gm_value wt = gm_vint(p->warps_traced), wa = gm_vint(p->warps_total);
        ok = S_check_count(rd, "warps_traced", &wt) && S_check_count(rd, "warps_total", &wa) &&
             S_check_metrics(rd, "metrics", p->metrics, p->n_metrics);
        S_pop(rd, m);
    }
    return ok;
}

static bool S_check_ranges(S_rd *rd, const gm_results *r)
{
    size_t m = S_push_key(rd, "runs");
    bool ok = true;
    for (size_t i = 0; ok && i < r->n_runs; i++) {
        size_t mi = S_push_index(rd, i);
        ok = S_check_run(rd, &r->runs[i]);
        S_pop(rd, mi);
    }
    S_pop(rd, m);
    return ok;
}

/* jansson's message, told in terms of the problem (not of its flags). */
static const char *S_parse_text(const json_error_t *je)
{
    if (strstr(je->text, "JSON_ALLOW_NUL"))
        return "a string holds \\u0000 (a NUL character), which a results file may not contain";
    return je->text;
}

/* ---- a large file, its runs one at a time ---------------------------------------
 *
 * The parsed tree of a whole results file takes about five times the file's
 * size (jansson: a node per value, a hash table per object), and most of a
 * large file is runs.  So the file is split without parsing: the top-level
 * object with its "runs" array left empty is parsed as the document, and each
 * run is parsed from its own text, read and freed before the next.  Anything
 * unexpected (not an object, a second "runs", a value that does not end
 * where it should) gives up the split: the whole file is then read as one
 * tree, as it always was, which names the error by line and column. */

static size_t S_ws(const char *t, size_t len, size_t i)
{
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

/* One past the string starting at t[i] == '"'; 0 when it does not end. */
static size_t S_skip_str(const char *t, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        if (t[i] == '\\')
            i++;
        else if (t[i] == '"')
            return i + 1;
    }
    return 0;
}

/* One past the value starting at t[i]; 0 when it does not end.  Only its
 * extent: jansson checks the rest. */
static size_t S_skip_value(const char *t, size_t len, size_t i)
{
    if (i >= len)
        return 0;
    if (t[i] == '"')
        return S_skip_str(t, len, i);
    if (t[i] == '{' || t[i] == '[') {
        size_t depth = 0;
        for (; i < len; i++) {
            char c = t[i];
            if (c == '"') {
                size_t e = S_skip_str(t, len, i);
                if (!e)
                    return 0;
                i = e - 1;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                return i + 1;
            }
        }
        return 0;
    }
    while (i < len && !strchr(",}] \t\r\n", t[i]))
        i++;
    return i;
}

/* The extent [*from, *to) of the top-level "runs" array and where each of its
 * elements starts and ends (caller frees *at and *end); false when the text
 * is not laid out so. */
static bool S_split_runs(const char *t, size_t len, size_t *from, size_t *to, size_t **at,
                         size_t **end, size_t *n)
{
    *at = *end = NULL;
    *n = 0;
    bool found = false;
    size_t i = S_ws(t, len, 0);
    if (i >= len || t[i] != '{')
        return false;
    i = S_ws(t, len, i + 1);
    while (i < len && t[i] == '"') {
        size_t ke = S_skip_str(t, len, i);
        if (!ke)
            return false;
        bool runs = ke - i == 6 && memcmp(t + i, "\"runs\"", 6) == 0;
        i = S_ws(t, len, ke);
        if (i >= len || t[i] != ':')
            return false;
        i = S_ws(t, len, i + 1);
        size_t ve = S_skip_value(t, len, i);
        if (!ve)
            return false;
        if (runs) {
            if (found || t[i] != '[')
                return false;
            found = true;
            *from = i;
            *to = ve;
        }
        i = S_ws(t, len, ve);
        if (i < len && t[i] == ',')
            i = S_ws(t, len, i + 1);
        else
            break;
    }
    if (!found || i >= len || t[i] != '}')
        return false;
    /* the elements */
    size_t cap = 0;
    i = S_ws(t, len, *from + 1);
    while (i < *to - 1) {
        size_t e = S_skip_value(t, len, i);
        if (!e || e > *to - 1)
            break;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *at = gm_xrealloc(*at, cap * sizeof **at);
            *end = gm_xrealloc(*end, cap * sizeof **end);
        }
        (*at)[*n] = i;
        (*end)[(*n)++] = e;
        i = S_ws(t, len, e);
        if (i < *to - 1 && t[i] == ',')
            i = S_ws(t, len, i + 1);
        else
            break;
    }
    if (i == *to - 1)
        return true;
    free(*at);
    free(*end);
    *at = *end = NULL;
    return false;
}

/* The file read run by run (see above); false when it cannot be split or
 * anything in it is wrong (*out then freed). */
static bool S_read_split(const char *text, size_t len, const char *name, gm_results *out)
{
    size_t from = 0, to = 0, *at, *end, n;
    if (!S_split_runs(text, len, &from, &to, &at, &end, &n))
        return false;
    /* the document without its runs: "runs": [] */
    gm_buf doc = GM_BUF_INIT;
    gm_buf_put(&doc, text, from);
    gm_buf_puts(&doc, "[]");
    gm_buf_put(&doc, text + to, len - to);
    json_error_t je;
    json_t *root = json_loadb(doc.data, doc.len, JSON_REJECT_DUPLICATES, &je);
    gm_buf_free(&doc);
    bool ok = false;
    if (root) {
        gm_error local;
        S_rd rd = {name, &local, {0}, 0};
        S_runs_src src = {text, at, end, n};
        ok = S_read_doc(&rd, root, out, &src) && S_check_ranges(&rd, out);
        json_decref(root);
    }
    free(at);
    free(end);
    if (!ok) {
        gm_results_free(out);
        memset(out, 0, sizeof *out);
    }
    return ok;
}

static gm_status S_read_buffer(const char *text, size_t len, const char *name, gm_results *out,
                               gm_error *err)
{
    memset(out, 0, sizeof *out);
    /* a UTF-8 byte order mark, as some editors write, is skipped */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    if (S_read_split(text, len, name, out))
        return GM_OK;
    json_error_t je;
    /* Duplicate keys are refused: which of two "median"s would be meant? */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return gm_fail(err, GM_ERR_PARSE, "%s:%d:%d: %s", name, je.line, je.column,
                       S_parse_text(&je));
    S_rd rd = {name, err, {0}, 0};
    gm_error local;
    if (!rd.err)
        rd.err = &local;
    bool ok = S_read_doc(&rd, root, out, NULL) && S_check_ranges(&rd, out);
    json_decref(root);
    if (!ok) {
        gm_results_free(out);
        return rd.err->status;
    }
    return GM_OK;
}

gm_status gm_results_read_string(const char *json, const char *name, gm_results *out,
                                 gm_error *err)
{
    return S_read_buffer(json, strlen(json), name ? name : "(string)", out, err);
}

static size_t S_size_limit = GM_RESULTS_SIZE_LIMIT;

void gm_results_set_size_limit(size_t bytes)
{
    S_size_limit = bytes ? bytes : GM_RESULTS_SIZE_LIMIT;
}

size_t gm_results_size_limit(void)
{
    return S_size_limit;
}

gm_status gm_results_read_file(const char *path, gm_results *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gm_fail(err, GM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    gm_buf b = GM_BUF_INIT;
    struct stat sb;
    bool too_large = false;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode)) {
        if ((unsigned long long)sb.st_size > S_size_limit)
            too_large = true;
        else
            gm_buf_reserve(&b, (size_t)sb.st_size + 1);   /* one allocation, no regrowth */
    }
    char chunk[65536];
    size_t n;
    while (!too_large && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        const char *nul = memchr(chunk, '\0', n);
        if (nul) {
            /* no JSON text holds a raw NUL byte: a binary file, or /dev/zero */
            size_t at = b.len + (size_t)(nul - chunk);
            fclose(f);
            gm_buf_free(&b);
            return gm_fail(err, GM_ERR_PARSE, "%s: not a JSON text: a NUL byte at offset %zu",
                           path, at);
        }
        gm_buf_put(&b, chunk, n);
        too_large = b.len > S_size_limit;   /* a pipe or a device that goes on and on */
    }
    if (too_large) {
        fclose(f);
        gm_buf_free(&b);
        return gm_fail(err, GM_ERR_VALUE,
                       "%s: input too large: more than the limit of %zu bytes for a results "
                       "file; raise it with GPUMEM_REPORT_MAX_INPUT=BYTES (K, M, G suffixes)",
                       path, S_size_limit);
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        gm_buf_free(&b);
        return gm_fail(err, GM_ERR_IO, "%s: cannot read: %s", path, strerror(e));
    }
    fclose(f);
    gm_status st = S_read_buffer(b.data ? b.data : "", b.len, path, out, err);
    gm_buf_free(&b);
    return st;
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
