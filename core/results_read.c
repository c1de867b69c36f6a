/* results_read.c — reading a results file (results.h: gm_results_read_file,
 * gm_results_read_string, the size limit).
 *
 * Reading goes through jansson (json_loadb) and then a strict walk that names
 * the JSON path of anything missing or mistyped, then the range checks every
 * consumer may rely on.  A large file is read one run at a time.
 *
 * The format is documented field by field in docs/results-format.md.
 */
#include "results.h"
#include "results_int.h"

#include "buf.h"

#include <jansson.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
             S_get_ll(rd, o, "source_lines_launches", &c->source_lines_launches) &&
             (!json_object_get(o, "source_lines_method") ||
              S_get_str(rd, o, "source_lines_method", true, &c->source_lines_method)) &&
             (!json_object_get(o, "source_lines_fallback") ||
              S_get_str(rd, o, "source_lines_fallback", true, &c->source_lines_fallback)) &&
             (!json_object_get(o, "source_lines_processes") ||
              S_get_ll(rd, o, "source_lines_processes", &c->source_lines_processes));
    }
    if (ok && c->source_lines && json_object_get(o, "source_lines_processes") &&
        (c->source_lines_processes < 1 || c->source_lines_processes > 1024)) {
        size_t mp = S_push_key(rd, "source_lines_processes");
        ok = S_fail(rd, GM_ERR_VALUE, "%lld is out of range [1, 1024]", c->source_lines_processes);
        S_pop(rd, mp);
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
        if (ok && json_object_get(l, "theoretical_occupancy")) {
            double v = 0;
            ok = S_get_real(rd, l, "theoretical_occupancy", false, &v);
            if (ok && !(v > 0 && v <= 100)) {
                size_t mt = S_push_key(rd, "theoretical_occupancy");
                ok = S_fail(rd, GM_ERR_VALUE, "%.17g is out of range: a percentage above 0 and "
                            "at most 100", v);
                S_pop(rd, mt);
            }
            run->launch.theoretical_occupancy = ok ? v : 0;
        }
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
        size_t i, n = sizeof gm_check_names / sizeof gm_check_names[0];
        for (i = 0; i < n && strcmp(status, gm_check_names[i]) != 0; i++)
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

/* source_lines.allocations: optional (the tracer's; older files and the
 * SASS path have none). */
static bool S_read_sl_allocs(S_rd *rd, json_t *sj, gm_srclines *sl)
{
    if (!json_object_get(sj, "allocations"))
        return true;
    size_t ma;
    json_t *arr;
    if (!S_open_arr(rd, sj, "allocations", false, &arr, &ma))
        return false;
    bool ok = true;
    size_t n = json_array_size(arr);
    sl->allocs = gm_xcalloc(n ? n : 1, sizeof *sl->allocs);
    static const char *const keys[] = {"loads", "stores", "bytes", "sectors", "sectors_ideal"};
    for (size_t i = 0; i < n && ok; i++) {
        size_t mi = S_push_index(rd, i);
        json_t *aj = json_array_get(arr, i);
        gm_sl_alloc *a = &sl->allocs[sl->n_allocs++];
        long long *v[] = {&a->loads, &a->stores, &a->bytes, &a->sectors, &a->sectors_ideal};
        if (!json_is_object(aj)) {
            ok = S_mistyped(rd, aj, "an object");
        } else {
            ok = S_get_str(rd, aj, "name", true, &a->name) &&
                 S_get_ll_or_null(rd, aj, "size", -1, &a->size);
            for (size_t k = 0; ok && k < sizeof keys / sizeof keys[0]; k++) {
                ok = S_get_ll(rd, aj, keys[k], v[k]);
                if (ok && *v[k] < 0) {
                    size_t mk = S_push_key(rd, keys[k]);
                    ok = S_fail(rd, GM_ERR_VALUE, "%lld is negative", *v[k]);
                    S_pop(rd, mk);
                }
            }
            if (ok && a->size < -1) {
                size_t mk = S_push_key(rd, "size");
                ok = S_fail(rd, GM_ERR_VALUE, "%lld is negative", a->size);
                S_pop(rd, mk);
            }
        }
        S_pop(rd, mi);
    }
    S_pop(rd, ma);
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
             (!json_object_get(sj, "root") ||   /* optional: newer files */
              S_get_str(rd, sj, "root", true, &sl->root)) &&
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
        if (ok)
            ok = S_read_sl_allocs(rd, sj, sl);
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
           S_read_srclines(rd, o, &run->source_lines) &&
           (!json_object_get(o, "not_replayed") ||   /* optional: newer files */
            S_get_str(rd, o, "not_replayed", true, &run->not_replayed));
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
        gm_run_init(&r->runs[i]);
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

/* The first line of t (up to 64 bytes) is UTF-8 text, so that a message may
 * quote it. */
static bool S_utf8_head(const char *t, size_t len)
{
    const unsigned char *u = (const unsigned char *)t;
    size_t end = len < 64 ? len : 64;
    for (size_t i = 0; i < end && u[i] != '\n';) {
        size_t n = u[i] < 0x80 ? 1 : (u[i] & 0xE0) == 0xC0 ? 2 : (u[i] & 0xF0) == 0xE0 ? 3
                 : (u[i] & 0xF8) == 0xF0 ? 4 : 0;
        if (n == 0 || (n == 2 && u[i] < 0xC2))
            return false;
        if (i + n > len)
            return false;
        for (size_t k = 1; k < n; k++)
            if ((u[i + k] & 0xC0) != 0x80)
                return false;
        i += n;
    }
    return true;
}

gm_status gm_results_read_buffer(const char *text, size_t len, const char *name,
                                 gm_results *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    /* a UTF-8 byte order mark, as some editors write, is skipped */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    /* what is not a results file is told so, not in the JSON parser's words */
    size_t first = S_ws(text, len, 0);
    if (first == len)
        return gm_fail(err, GM_ERR_PARSE, "%s: not a results file: it is empty%s", name,
                       len ? " (white space only)" : "");
    if (text[first] != '{' && text[first] != '[') {   /* an array: the schema check names it */
        if (!S_utf8_head(text + first, len - first))
            return gm_fail(err, GM_ERR_PARSE,
                           "%s: not a results file: it begins with binary data (not UTF-8 "
                           "text)", name);
        char head[48];
        size_t k = 0;
        size_t i = first;
        for (; i < len && text[i] != '\n' && k + 4 < sizeof head; i++) {
            /* whole characters only: stop before a UTF-8 sequence that does not fit */
            unsigned char c = (unsigned char)text[i];
            size_t n = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            if (n > 1 && k + n + 4 > sizeof head)
                break;
            head[k++] = c < 0x20 || c == 0x7f ? '?' : text[i];
        }
        if (i < len && text[i] != '\n') {
            memcpy(head + k, "...", 3);
            k += 3;
        }
        head[k] = '\0';
        return gm_fail(err, GM_ERR_PARSE,
                       "%s: not a results file: it begins with \"%s\" where a results file "
                       "begins with '{' (the JSON object gpumem-report collect --json writes)",
                       name, head);
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
    return gm_results_read_buffer(json, strlen(json), name ? name : "(string)", out, err);
}
