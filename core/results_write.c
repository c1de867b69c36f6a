/* results_write.c — the results file's JSON text (results.h:
 * gm_results_to_json, gm_results_write_file).
 *
 * Writing is done by hand into a gm_buf rather than through jansson's dumper,
 * for three reasons: the key order is ours (schema first, then what a reader
 * wants next, not alphabetical), arrays of numbers go on one line (a run's 50
 * timing samples would otherwise take 50 lines), and reals are printed with
 * the fewest digits that read back exactly (0.1, not 0.10000000000000001).
 *
 * The format is documented field by field in docs/results-format.md.
 */
#include "results.h"

#include "buf.h"
#include "output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        /* optional: files without them stay byte for byte as they were */
        if (c->source_lines_method)
            S_kstr(e, "source_lines_method", c->source_lines_method);
        if (c->source_lines_fallback)
            S_kstr(e, "source_lines_fallback", c->source_lines_fallback);
        if (c->source_lines_processes > 0)
            S_kint(e, "source_lines_processes", c->source_lines_processes);
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
    if (sl->root)   /* optional: written only when known */
        S_kstr(e, "root", sl->root);
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
    if (sl->n_allocs) {   /* optional: only the tracer gives them */
        S_key(e, "allocations");
        S_open(e, '[', true);
        for (size_t i = 0; i < sl->n_allocs; i++) {
            const gm_sl_alloc *a = &sl->allocs[i];
            S_open(e, '{', false);
            S_kstr(e, "name", a->name);
            S_kint_or_null(e, "size", a->size, -1);
            S_kint(e, "loads", a->loads);
            S_kint(e, "stores", a->stores);
            S_kint(e, "bytes", a->bytes);
            S_kint(e, "sectors", a->sectors);
            S_kint(e, "sectors_ideal", a->sectors_ideal);
            S_close(e, '}');
        }
        S_close(e, ']');
    }
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
        if (run->launch.theoretical_occupancy > 0)
            S_kreal(e, "theoretical_occupancy", run->launch.theoretical_occupancy);
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
    if (run->not_replayed)   /* optional: written only when set */
        S_kstr(e, "not_replayed", run->not_replayed);
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
