/* inject_util.c — the CPU-side pieces of profiling a program (inject.h):
 * options from the environment, the launch filter, names, the status file,
 * grouping launches into the report's runs.  No GPU, no CUDA call. */
#include "inject.h"

#include "../core/buf.h"
#include "../core/catalog.h"
#include "../core/symbol.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (abi::__cxa_demangle has C linkage). */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* ---- options ------------------------------------------------------------- */

static bool S_ll(const char *var, const char *v, long long min, long long max, long long *out,
                 char *msg, size_t cap)
{
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || errno == ERANGE || x < min || x > max) {
        snprintf(msg, cap, "%s='%.100s' is not an integer in [%lld, %lld]", var, v, min, max);
        return false;
    }
    *out = x;
    return true;
}

static char *S_dup_nonempty(const char *s)
{
    return s && *s ? gm_xstrdup(s) : NULL;
}

bool gmi_opts_parse(const char *(*get)(const char *name, void *ctx), void *ctx, gmi_opts *o,
                    char *msg, size_t cap)
{
    memset(o, 0, sizeof *o);
    o->launch_count = -1;
    o->flush_l2 = true;
    o->dir = S_dup_nonempty(get(GMI_ENV_DIR, ctx));
    o->metrics = S_dup_nonempty(get(GMI_ENV_METRICS, ctx));
    o->kernel_regex = S_dup_nonempty(get(GMI_ENV_KERNEL, ctx));
    if (!o->dir) {
        snprintf(msg, cap, "%s is not set: the library was loaded outside gpumem-report "
                           "(run `gpumem-report -- PROGRAM`)", GMI_ENV_DIR);
        return false;
    }
    const char *v = get(GMI_ENV_LAUNCH_SKIP, ctx);
    if (v && !S_ll(GMI_ENV_LAUNCH_SKIP, v, 0, 1000000000LL, &o->launch_skip, msg, cap))
        return false;
    v = get(GMI_ENV_LAUNCH_COUNT, ctx);
    if (v && !S_ll(GMI_ENV_LAUNCH_COUNT, v, 1, GMI_MAX_COUNT, &o->launch_count, msg, cap))
        return false;
    v = get(GMI_ENV_CACHE_FLUSH, ctx);
    if (v) {
        if (strcmp(v, "0") && strcmp(v, "1")) {
            snprintf(msg, cap, "%s='%.100s' is not 0 or 1", GMI_ENV_CACHE_FLUSH, v);
            return false;
        }
        o->flush_l2 = v[0] == '1';
    }
    v = get(GMI_ENV_DEBUG, ctx);
    o->debug = v && strcmp(v, "0") != 0 && *v;
    if (o->kernel_regex && !gmi_regex_check(o->kernel_regex, msg, cap))
        return false;
    v = get(GMI_ENV_REPLAY_SHARED, ctx);
    o->replay_shared = v && strcmp(v, "0") != 0 && *v;
    v = get(GMI_ENV_CAPTURE, ctx);
    o->capture = v && strcmp(v, "0") != 0 && *v;
    o->no_replay = S_dup_nonempty(get(GMI_ENV_NO_REPLAY, ctx));
    if (o->no_replay && !gmi_noreplay_check(o->no_replay, msg, cap))
        return false;
    return true;
}

void gmi_opts_free(gmi_opts *o)
{
    if (!o)
        return;
    free(o->dir);
    free(o->metrics);
    free(o->kernel_regex);
    free(o->no_replay);
    memset(o, 0, sizeof *o);
}

/* ---- the filter ---------------------------------------------------------- */

static bool S_regcomp(regex_t *re, const char *regex, char *msg, size_t cap)
{
    int rc = regcomp(re, regex, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[256];
        regerror(rc, re, why, sizeof why);
        snprintf(msg, cap, "--kernel '%.200s': %s", regex, why);
        return false;
    }
    return true;
}

bool gmi_regex_check(const char *regex, char *msg, size_t cap)
{
    regex_t re;
    if (!S_regcomp(&re, regex, msg, cap))
        return false;
    regfree(&re);
    return true;
}

bool gmi_filter_init(gmi_filter *f, const gmi_opts *o, char *msg, size_t cap)
{
    memset(f, 0, sizeof *f);
    f->skip = o->launch_skip;
    f->count_given = o->launch_count >= 0;
    f->count = f->count_given ? o->launch_count : GMI_DEFAULT_LIMIT;
    if (o->kernel_regex) {
        regex_t *re = gm_xmalloc(sizeof *re);
        if (!S_regcomp(re, o->kernel_regex, msg, cap)) {
            free(re);
            return false;
        }
        f->regex = re;
    }
    return true;
}

void gmi_filter_free(gmi_filter *f)
{
    if (f && f->regex) {
        regfree(f->regex);
        free(f->regex);
        f->regex = NULL;
    }
}

gmi_decision gmi_filter_next(gmi_filter *f, const char *name)
{
    f->seen++;
    if (f->regex && regexec(f->regex, name ? name : "", 0, NULL, 0) != 0)
        return GMI_SKIP_FILTER;
    long long k = f->matched++;
    if (k < f->skip)
        return GMI_SKIP_BEFORE;
    if (f->chosen >= f->count) {
        if (!f->count_given)
            f->limit_reached = true;
        return GMI_SKIP_DONE;
    }
    f->chosen++;
    return GMI_PROFILE;
}

/* ---- names --------------------------------------------------------------- */

char *gmi_demangle(const char *symbol)
{
    if (!symbol)
        return gm_xstrdup("?");
    if (strncmp(symbol, "_Z", 2) == 0) {
        int status = -1;
        char *d = __cxa_demangle(symbol, NULL, NULL, &status);
        if (status == 0 && d) {
            char *out = gm_xstrdup(d);
            free(d);
            return out;
        }
        free(d);
    }
    return gm_xstrdup(symbol);
}

#define S_ANON "(anonymous namespace)"

/* One step of a scan of a demangled name: steps over "(anonymous namespace)"
 * and keeps the depth of template arguments.  True when s[*i] is an ordinary
 * character outside any template argument list. */
static bool S_top_level(const char *s, size_t *i, int *depth)
{
    size_t alen = strlen(S_ANON);
    if (strncmp(s + *i, S_ANON, alen) == 0) {
        *i += alen - 1;
        return false;
    }
    if (s[*i] == '<') {
        (*depth)++;
        return false;
    }
    if (s[*i] == '>' && *depth > 0) {
        (*depth)--;
        return false;
    }
    return *depth == 0;
}

/* Where the function's qualified name lies in a demangled signature:
 * s[*start .. *open), between the return type and the parameter list. */
static void S_name_span(const char *s, size_t *start, size_t *open)
{
    size_t n = strlen(s);
    int depth = 0;
    *open = n;
    /* the parameter list: the first '(' outside template arguments that does
     * not open "(anonymous namespace)" */
    for (size_t i = 0; i < n; i++) {
        if (S_top_level(s, &i, &depth) && s[i] == '(') {
            *open = i;
            break;
        }
    }
    /* a return type before the name (templates): the last space outside <>
     * and outside "(anonymous namespace)" */
    *start = 0;
    depth = 0;
    for (size_t i = 0; i < *open; i++)
        if (S_top_level(s, &i, &depth) && s[i] == ' ')
            *start = i + 1;
    if (*start >= *open)
        *start = 0;
}

char *gmi_full_name(const char *demangled)
{
    const char *s = demangled ? demangled : "";
    size_t start, open;
    S_name_span(s, &start, &open);
    char *out = gm_xmalloc(open - start + 1);
    memcpy(out, s + start, open - start);
    out[open - start] = '\0';
    return out;
}

/* Drop the namespaces and classes before the function's own name: the text
 * after the last "::" outside template arguments. */
static const char *S_last_component(const char *s)
{
    const char *last = s;
    int depth = 0;
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) {
        if (!S_top_level(s, &i, &depth))
            continue;
        if (s[i] == ':' && s[i + 1] == ':') {
            last = s + i + 2;
            i++;
        }
    }
    return last;
}

char *gmi_short_name(const char *demangled)
{
    if (gm_symbol_is_mangled(demangled)) {   /* the demangler did not read it */
        gm_buf b = GM_BUF_INIT;
        gm_symbol_readable(demangled, &b);
        return gm_buf_detach(&b);
    }
    char *full = gmi_full_name(demangled);
    const char *base = S_last_component(full);
    if (!*base)
        base = full;
    gm_buf b = GM_BUF_INIT;
    const char *lt = strchr(base, '<');
    if (strlen(base) > GMI_SHORT_MAX && lt) {
        gm_buf_put(&b, base, (size_t)(lt - base));
        gm_buf_puts(&b, "<…>");
    } else if (strlen(base) > GMI_SHORT_MAX && !lt) {
        gm_buf_put(&b, base, GMI_SHORT_MAX);   /* a very long plain name: cut, said so */
        gm_buf_puts(&b, "…");
    } else {
        gm_buf_puts(&b, base);
    }
    free(full);
    return gm_buf_detach(&b);
}

/* ---- the status file ----------------------------------------------------------- */

#define S_MAGIC "gpumem-report-inject 1"

/* One line of text: control characters become spaces. */
static void S_line(gm_buf *b, const char *key, const char *v)
{
    gm_buf_printf(b, "%s ", key);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        gm_buf_putc(b, *p < 0x20 || *p == 0x7f ? ' ' : (char)*p);
    gm_buf_putc(b, '\n');
}

char *gmi_status_format(const gmi_status *s)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s\n", S_MAGIC);
    gm_buf_printf(&b, "pid %lld\nlaunches %lld\nmatched %lld\nprofiled %lld\nfailed %lld\n"
                      "not_profilable %lld\nruntime_only %lld\ngraph_launches %lld\n"
                      "graph_kernels %lld\ntimed %lld\ncaptured %lld\n"
                      "limit_reached %d\nlimit %lld\n",
                  s->pid, s->launches, s->matched, s->profiled, s->failed, s->not_profilable,
                  s->runtime_only, s->graph_launches, s->graph_kernels, s->timed, s->captured,
                  s->limit_reached ? 1 : 0, s->limit);
    if (s->error_kind[0])
        S_line(&b, "error_kind", s->error_kind);
    if (s->error[0])
        S_line(&b, "error", s->error);
    if (s->note[0])
        S_line(&b, "note", s->note);
    if (s->timing[0])
        S_line(&b, "timing", s->timing);
    return gm_buf_detach(&b);
}

/* Copy at most cap - 1 bytes and terminate. */
static void S_copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

bool gmi_status_parse(const char *text, gmi_status *s, char *msg, size_t cap)
{
    memset(s, 0, sizeof *s);
    size_t ml = strlen(S_MAGIC);
    if (!text || strncmp(text, S_MAGIC, ml) != 0 || (text[ml] != '\n' && text[ml] != '\0')) {
        snprintf(msg, cap, "not a status file of this version (expected the first line '%s')",
                 S_MAGIC);
        return false;
    }
    static const struct {
        const char *key;
        size_t off;
    } nums[] = {
        {"pid", offsetof(gmi_status, pid)},
        {"launches", offsetof(gmi_status, launches)},
        {"matched", offsetof(gmi_status, matched)},
        {"profiled", offsetof(gmi_status, profiled)},
        {"failed", offsetof(gmi_status, failed)},
        {"not_profilable", offsetof(gmi_status, not_profilable)},
        {"runtime_only", offsetof(gmi_status, runtime_only)},
        {"graph_launches", offsetof(gmi_status, graph_launches)},
        {"graph_kernels", offsetof(gmi_status, graph_kernels)},
        {"timed", offsetof(gmi_status, timed)},
        {"captured", offsetof(gmi_status, captured)},
        {"limit", offsetof(gmi_status, limit)},
    };
    s->loaded = true;
    for (const char *p = strchr(text, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        const char *line = p + 1, *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *sp = memchr(line, ' ', len);
        if (!sp)
            continue;
        size_t kl = (size_t)(sp - line), vl = len - kl - 1;
        char val[1024];
        snprintf(val, sizeof val, "%.*s", (int)(vl < sizeof val ? vl : sizeof val - 1), sp + 1);
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
            if (strlen(nums[k].key) == kl && strncmp(line, nums[k].key, kl) == 0) {
                char *end = NULL;
                long long x = strtoll(val, &end, 10);
                if (end != val && *end == '\0')
                    *(long long *)((char *)s + nums[k].off) = x;
            }
        if (kl == 13 && strncmp(line, "limit_reached", kl) == 0)
            s->limit_reached = strcmp(val, "1") == 0;
        else if (kl == 10 && strncmp(line, "error_kind", kl) == 0)
            S_copy(s->error_kind, sizeof s->error_kind, val);
        else if (kl == 5 && strncmp(line, "error", kl) == 0)
            S_copy(s->error, sizeof s->error, val);
        else if (kl == 4 && strncmp(line, "note", kl) == 0)
            S_copy(s->note, sizeof s->note, val);
        else if (kl == 6 && strncmp(line, "timing", kl) == 0)
            S_copy(s->timing, sizeof s->timing, val);
    }
    return true;
}

/* ---- messages ------------------------------------------------------------------ */

char *gmi_say(const char *prefix, const char *text)
{
    gm_buf t = GM_BUF_INIT, out = GM_BUF_INIT;
    gm_symbol_text(text ? text : "", &t);
    gm_buf_puts(&t, "");
    gm_symbol_clip(prefix ? prefix : "", GMI_LINE_MAX / 2, &out);
    size_t line = out.len;   /* bytes on the current line */
    bool start = true;       /* no word on it yet */
    for (const char *p = t.data; *p;) {
        if ((unsigned char)*p <= ' ') {
            p++;
            continue;
        }
        size_t n = 0;
        while ((unsigned char)p[n] > ' ')
            n++;
        if (!start && line + 1 + n > GMI_LINE_MAX) {
            gm_buf_puts(&out, "\n  ");
            line = 2;
            start = true;
        }
        if (!start) {
            gm_buf_putc(&out, ' ');
            line++;
        }
        gm_buf w = GM_BUF_INIT;
        gm_buf_put(&w, p, n);
        gm_buf_puts(&w, "");
        size_t before = out.len;
        gm_symbol_clip(w.data, GMI_LINE_MAX - line, &out);
        gm_buf_free(&w);
        line += out.len - before;
        start = false;
        p += n;
    }
    gm_buf_putc(&out, '\n');
    gm_buf_free(&t);
    return gm_buf_detach(&out);
}

char *gmi_message_name(const char *symbol)
{
    char *d = gmi_demangle(symbol);
    char *s = gmi_short_name(d);
    free(d);
    return s;
}

/* A field of the status, its mangled symbols named readably, cut to cap. */
static void S_readable_field(char *field, size_t cap)
{
    gm_buf b = GM_BUF_INIT;
    gm_symbol_text(field, &b);
    gm_buf_puts(&b, "");
    gm_buf c = GM_BUF_INIT;
    gm_symbol_clip(b.data, cap - 1, &c);
    gm_buf_puts(&c, "");
    S_copy(field, cap, c.data);
    gm_buf_free(&b);
    gm_buf_free(&c);
}

void gmi_status_readable(gmi_status *s)
{
    S_readable_field(s->error, sizeof s->error);
    S_readable_field(s->note, sizeof s->note);
    S_readable_field(s->timing, sizeof s->timing);
}

/* ---- grouping -------------------------------------------------------------------- */

bool gmi_metric_sums(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".sum") == 0 && !strstr(name, "pct") &&
           !strstr(name, "per_second");
}

static const char *S_range(const gm_run *run)
{
    const gm_param *p = gm_run_param(run, "range");
    return p && p->value.kind == GM_V_STR ? p->value.s : NULL;
}

static long long S_launch(const gm_run *run)
{
    const gm_param *p = gm_run_param(run, "launch");
    return p && p->value.kind == GM_V_INT ? p->value.i : -1;
}

static bool S_streq0(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The CUDA graph a launch ran in (param "graph", its instance's number), or -1. */
static long long S_graph(const gm_run *run)
{
    const gm_param *p = gm_run_param(run, "graph");
    return p && p->value.kind == GM_V_INT ? p->value.i : -1;
}

static bool S_same_group(const gm_run *a, const gm_run *b)
{
    /* a kernel run by a graph groups with its runs in that graph alone, and a
     * launch measured in part (not replayed) with launches measured alike */
    if (!S_streq0(a->kernel, b->kernel) || !S_streq0(S_range(a), S_range(b)) ||
        a->has_launch != b->has_launch || S_graph(a) != S_graph(b) ||
        !a->not_replayed != !b->not_replayed)
        return false;
    if (!a->has_launch)
        return true;
    return memcmp(a->launch.grid, b->launch.grid, sizeof a->launch.grid) == 0 &&
           memcmp(a->launch.block, b->launch.block, sizeof a->launch.block) == 0 &&
           a->launch.shared_bytes == b->launch.shared_bytes;
}

/* Sum of metric `name` over runs; NaN when any run lacks it. */
static double S_sum(gm_run *const *runs, size_t n, const char *name, bool *all_int)
{
    double s = 0;
    if (all_int)
        *all_int = true;
    for (size_t i = 0; i < n; i++) {
        const gm_metric *m = gm_run_metric(runs[i], name);
        if (!m || !gm_value_present(&m->value))
            return NAN;
        if (all_int && m->value.kind != GM_V_INT)
            *all_int = false;
        s += gm_value_num(&m->value);
    }
    return s;
}

/* Mean of `name` weighted by metric `weight` (NULL or absent somewhere: plain mean). */
static double S_wmean(gm_run *const *runs, size_t n, const char *name, const char *weight)
{
    double sw = 0, swx = 0, sx = 0;
    bool weighted = weight != NULL;
    for (size_t i = 0; i < n; i++) {
        double x = gm_run_metric_num(runs[i], name);
        if (isnan(x))
            return NAN;
        sx += x;
        double w = weighted ? gm_run_metric_num(runs[i], weight) : NAN;
        if (isnan(w) || w < 0)
            weighted = false;
        sw += w;
        swx += w * x;
    }
    if (weighted && sw > 0)
        return swx / sw;
    return sx / (double)n;
}

/* The group's value of one metric (docs: inject.h, gmi_group). */
static gm_value S_group_value(gm_run *const *runs, size_t n, const char *name)
{
    static const struct {
        const char *ratio, *num, *den;
    } exact[] = {
        {GM_M_LD_SPR, GM_M_LD_SECTORS, GM_M_LD_REQUESTS},
        {GM_M_ST_SPR, GM_M_ST_SECTORS, GM_M_ST_REQUESTS},
    };
    static const struct {
        const char *pct, *weight;
    } by[] = {
        {GM_M_LD_EFF, GM_M_LD_SECTORS},  /* bytes used / bytes in sectors: weight by sectors */
        {GM_M_ST_EFF, GM_M_ST_SECTORS},
    };
    if (gmi_metric_sums(name)) {   /* the mean per launch */
        bool all_int;
        double s = S_sum(runs, n, name, &all_int);
        if (isnan(s))
            return gm_vabsent();
        if (all_int && fabs(s) < 9e15 && llround(s) % (long long)n == 0)
            return gm_vint(llround(s) / (long long)n);
        return gm_vreal(s / (double)n);
    }
    for (size_t k = 0; k < sizeof exact / sizeof exact[0]; k++)
        if (strcmp(name, exact[k].ratio) == 0) {
            double a = S_sum(runs, n, exact[k].num, NULL), b = S_sum(runs, n, exact[k].den, NULL);
            if (!isnan(a) && !isnan(b))
                return b > 0 ? gm_vreal(a / b) : gm_vreal(0.0);
        }
    const char *weight = GM_M_DURATION;
    for (size_t k = 0; k < sizeof by / sizeof by[0]; k++)
        if (strcmp(name, by[k].pct) == 0)
            weight = by[k].weight;
    return gm_vreal(S_wmean(runs, n, name, weight));
}

static void S_move_run(gm_run *dst, gm_run *src)
{
    *dst = *src;
    memset(src, 0, sizeof *src);
}

/* Free a run's owned memory through a one-run results (the model has no
 * per-run free). */
static void S_run_free(gm_run *run)
{
    gm_results tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.runs = gm_xmalloc(sizeof *tmp.runs);
    S_move_run(&tmp.runs[0], run);
    tmp.n_runs = 1;
    gm_results_free(&tmp);
}

static void S_merge(gm_run *into, gm_run *const *runs, size_t n)
{
    /* metrics: the first run's names, in its order; every value computed
     * before any is replaced (into is runs[0]) */
    gm_value *v = gm_xcalloc(into->n_metrics ? into->n_metrics : 1, sizeof *v);
    gm_value *lo = gm_xcalloc(into->n_metrics ? into->n_metrics : 1, sizeof *lo);
    gm_value *hi = gm_xcalloc(into->n_metrics ? into->n_metrics : 1, sizeof *hi);
    for (size_t m = 0; m < into->n_metrics; m++) {
        const char *name = into->metrics[m].name;
        v[m] = S_group_value(runs, n, name);
        lo[m] = hi[m] = gm_vabsent();
        double mn = INFINITY, mx = -INFINITY;
        bool all_int = true, all = true;
        for (size_t i = 0; i < n && all; i++) {
            const gm_metric *x = gm_run_metric(runs[i], name);
            all = x && gm_value_present(&x->value) && x->value.kind != GM_V_STR;
            if (!all)
                break;
            double d = gm_value_num(&x->value);
            all_int &= x->value.kind == GM_V_INT;
            mn = d < mn ? d : mn;
            mx = d > mx ? d : mx;
        }
        if (all && gm_value_present(&v[m])) {
            lo[m] = all_int ? gm_vint(llround(mn)) : gm_vreal(mn);
            hi[m] = all_int ? gm_vint(llround(mx)) : gm_vreal(mx);
        }
    }
    for (size_t m = 0; m < into->n_metrics; m++) {
        gm_metric *mm = &into->metrics[m];
        if (mm->value.kind == GM_V_STR)
            free(mm->value.s);
        mm->value = v[m];
        mm->launch_min = lo[m];
        mm->launch_max = hi[m];
    }
    free(v);
    free(lo);
    free(hi);
    double *ms = gm_xcalloc(n, sizeof *ms);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < runs[i]->timing.n; j++) {
            ms = gm_xrealloc(ms, (k + 1) * sizeof *ms);
            ms[k++] = runs[i]->timing.samples[j];
        }
    if (k) {
        bool flushed = into->timing.l2_flushed;
        free(into->timing.samples);
        into->timing.samples = NULL;
        gm_timing_set_samples(&into->timing, ms, k);
        into->timing.present = true;
        into->timing.l2_flushed = flushed;
    }
    free(ms);
    gm_buf idx = GM_BUF_INIT;
    for (size_t i = 0; i < n && i < 8; i++)
        gm_buf_printf(&idx, "%s%lld", i ? ", " : "", S_launch(runs[i]));
    if (n > 8)
        gm_buf_puts(&idx, ", ...");
    gm_run_add_note(into, "%zu launches (launches %s of the program)", n, idx.data);
    gm_buf_free(&idx);
}

/* Name of a run at detail level lvl (0: range or kernel, 1: + kernel, 2: +
 * grid and block, 3: + launch index); kshort: the kernel's display name. */
static char *S_name(const gm_run *run, const char *kshort, int lvl)
{
    gm_buf b = GM_BUF_INIT;
    const char *range = S_range(run);
    if (range) {
        const char *leaf = strrchr(range, '/');
        gm_buf_puts(&b, leaf && leaf[1] ? leaf + 1 : range);
        if (lvl >= 1) {
            gm_buf_puts(&b, ": ");
            gm_buf_puts(&b, kshort);
        }
    } else {
        gm_buf_puts(&b, kshort);
    }
    if (lvl >= 2 && run->has_launch)
        gm_buf_printf(&b, " %ux%ux%u/%ux%ux%u", run->launch.grid[0], run->launch.grid[1],
                      run->launch.grid[2], run->launch.block[0], run->launch.block[1],
                      run->launch.block[2]);
    if (lvl >= 3)
        gm_buf_printf(&b, " #%lld", S_launch(run));
    gm_buf_puts(&b, "");
    return gm_buf_detach(&b);
}

/* ---- telling apart kernels of one base name ----------------------------------- */

/* Five kernels of a stream benchmark are one template, for_each_kernel<…>,
 * told apart only by their template arguments (the operation's functor or
 * lambda): each is named by the words of its signature that the others lack,
 * "for_each_kernel<…triad…>".  A word is an identifier or a number; C++
 * keywords and builtin types are taken only when nothing else tells two
 * kernels apart. */

#define S_MAX_WORDS 3      /* words in one name */
#define S_WORD_MAX 24      /* bytes of one word in a name */

typedef struct {
    const char *p;
    size_t len;
    int rank;   /* 0: a name of the program's; 1: a number; 2: a keyword or builtin type;
                   3: a single letter or a reserved name */
} S_wd;

static int S_word_rank(const char *p, size_t len)
{
    static const char *const generic[] = {
        "void", "bool", "char", "signed", "unsigned", "short", "int", "long", "float",
        "double", "const", "volatile", "std", "lambda", "anonymous", "namespace", "operator",
        "auto", "decltype", "true", "false", "nullptr", "wchar_t", "char16_t", "char32_t",
        "__int128", "ul", "ull", "u", "l", "ll"};
    if (isdigit((unsigned char)p[0]))
        return 1;
    if (len < 2 || (p[0] == '_' && isupper((unsigned char)p[1])))
        return 3;   /* a letter, or a reserved name: what a symbol's codes leave */
    for (size_t k = 0; k < sizeof generic / sizeof generic[0]; k++)
        if (strlen(generic[k]) == len && strncmp(generic[k], p, len) == 0)
            return 2;
    return 0;
}

static bool S_word_in(const S_wd *v, size_t n, const S_wd *w)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].len == w->len && memcmp(v[i].p, w->p, w->len) == 0)
            return true;
    return false;
}

/* The words of s[from .. to), each once, in order of first appearance.
 * Caller frees *out. */
static size_t S_words(const char *s, size_t from, size_t to, S_wd **out)
{
    S_wd *v = NULL;
    size_t n = 0;
    for (size_t i = from; i < to;) {
        unsigned char c = (unsigned char)s[i];
        size_t j = i;
        if (isalpha(c) || c == '_') {
            while (j < to && (isalnum((unsigned char)s[j]) || s[j] == '_'))
                j++;
        } else if (isdigit(c)) {
            while (j < to && isdigit((unsigned char)s[j]))
                j++;
        } else {
            i++;
            continue;
        }
        S_wd w = {s + i, j - i, S_word_rank(s + i, j - i)};
        if (!S_word_in(v, n, &w)) {
            v = gm_xrealloc(v, (n + 1) * sizeof *v);
            v[n++] = w;
        }
        i = j;
    }
    *out = v;
    return n;
}

/* Where kernels are told apart, in order of preference: the function's
 * template arguments, the namespaces before its name, its parameters. */
typedef enum { S_IN_TARGS = 0, S_IN_QUAL, S_IN_PARAMS, S_N_REGIONS } S_region;

static void S_region_span(const char *d, S_region r, size_t *from, size_t *to)
{
    size_t start, open;
    S_name_span(d, &start, &open);
    size_t base = start, lt = open;
    int depth = 0;
    for (size_t i = start; i < open; i++) {
        if (!S_top_level(d, &i, &depth))
            continue;
        if (d[i] == ':' && d[i + 1] == ':') {
            base = i + 2;
            i++;
        }
    }
    for (size_t i = base; i < open; i++)
        if (d[i] == '<') {
            lt = i;
            break;
        }
    switch (r) {
    case S_IN_TARGS: *from = lt, *to = open; break;
    case S_IN_QUAL: *from = start, *to = base; break;
    default: *from = open, *to = strlen(d); break;
    }
}

/* Up to S_MAX_WORDS of kernel i's words that together tell it apart from
 * every other kernel of the group (each other kernel lacks one of them):
 * greedily the word the most of the others not yet told apart lack, the
 * program's own names before numbers before keywords, the first on a tie.
 * pick[] gets their indices in order of appearance.  0 when they cannot. */
static size_t S_pick(S_wd *const *w, const size_t *nw, size_t n, size_t i, size_t *pick)
{
    bool *left = gm_xcalloc(n, sizeof *left);
    size_t nleft = 0, k = 0;
    for (size_t j = 0; j < n; j++)
        if (j != i)
            left[j] = true, nleft++;
    while (nleft && k < S_MAX_WORDS) {
        size_t best = 0, best_cov = 0;
        for (size_t t = 0; t < nw[i]; t++) {
            bool taken = false;
            for (size_t q = 0; q < k && !taken; q++)
                taken = pick[q] == t;
            if (taken)
                continue;
            size_t cov = 0;
            for (size_t j = 0; j < n; j++)
                cov += left[j] && !S_word_in(w[j], nw[j], &w[i][t]);
            if (cov > best_cov || (cov && cov == best_cov && w[i][t].rank < w[i][best].rank))
                best = t, best_cov = cov;
        }
        if (!best_cov)
            break;
        pick[k++] = best;
        for (size_t j = 0; j < n; j++)
            if (left[j] && !S_word_in(w[j], nw[j], &w[i][best]))
                left[j] = false, nleft--;
    }
    free(left);
    if (nleft)
        return 0;
    for (size_t a = 1; a < k; a++)   /* in order of appearance */
        for (size_t b = a; b > 0 && pick[b - 1] > pick[b]; b--) {
            size_t t = pick[b];
            pick[b] = pick[b - 1];
            pick[b - 1] = t;
        }
    return k;
}

static void S_put_word(gm_buf *b, const S_wd *w)
{
    gm_buf t = GM_BUF_INIT;
    gm_buf_put(&t, w->p, w->len);
    gm_buf_puts(&t, "");
    gm_symbol_clip(t.data, S_WORD_MAX, b);
    gm_buf_free(&t);
}

/* The name of kernel i of a group sharing the short name sh, told apart in
 * region r by words[pick[0..k)]. */
static char *S_told_apart(const char *sh, S_region r, const S_wd *words, const size_t *pick,
                          size_t k)
{
    gm_buf b = GM_BUF_INIT;
    size_t sl = strlen(sh), el = strlen("<…>");
    bool shortened = sl > el && strcmp(sh + sl - el, "<…>") == 0;
    if (r == S_IN_QUAL) {
        for (size_t q = 0; q < k; q++) {
            S_put_word(&b, &words[pick[q]]);
            gm_buf_puts(&b, "::");
        }
        gm_buf_puts(&b, sh);
        return gm_buf_detach(&b);
    }
    if (r == S_IN_TARGS && shortened)
        gm_buf_put(&b, sh, sl - el);
    else
        gm_buf_puts(&b, sh);
    gm_buf_puts(&b, r == S_IN_TARGS ? "<…" : "(…");
    for (size_t q = 0; q < k; q++) {
        S_put_word(&b, &words[pick[q]]);
        gm_buf_puts(&b, "…");
    }
    gm_buf_puts(&b, r == S_IN_TARGS ? ">" : ")");
    return gm_buf_detach(&b);
}

/* Names for n different kernels (demangled signatures) that share the short
 * name sh: each told apart by the first region whose words do it; those
 * that no words tell apart get " [k]" (k counts them in the given order). */
static void S_tell_apart(const char *const *kernels, size_t n, const char *sh, char **names)
{
    S_wd **w = gm_xcalloc(n, sizeof *w);
    size_t *nw = gm_xcalloc(n, sizeof *nw), *pick = gm_xcalloc(S_MAX_WORDS, sizeof *pick);
    for (S_region r = S_IN_TARGS; r < S_N_REGIONS; r++) {
        for (size_t i = 0; i < n; i++) {
            size_t from, to;
            S_region_span(kernels[i], r, &from, &to);
            free(w[i]);
            nw[i] = S_words(kernels[i], from, to, &w[i]);
        }
        for (size_t i = 0; i < n; i++) {
            if (names[i])
                continue;
            size_t k = S_pick(w, nw, n, i, pick);
            if (k)
                names[i] = S_told_apart(sh, r, w[i], pick, k);
        }
    }
    size_t alike = 0;
    for (size_t i = 0; i < n; i++) {
        if (names[i])
            continue;
        gm_buf b = GM_BUF_INIT;
        gm_buf_printf(&b, "%s [%zu]", sh, ++alike);
        names[i] = gm_buf_detach(&b);
    }
    for (size_t i = 0; i < n; i++)
        free(w[i]);
    free(w);
    free(nw);
    free(pick);
}

/* Each run's kernel display name: the short name; where different kernels
 * share it, told apart by the words of their signatures (S_tell_apart). */
static char **S_kernel_names(const gm_results *r)
{
    size_t n = r->n_runs;
    char **sh = gm_xcalloc(n ? n : 1, sizeof *sh);
    char **out = gm_xcalloc(n ? n : 1, sizeof *out);
    const char **kern = gm_xcalloc(n ? n : 1, sizeof *kern);
    char **outline = gm_xcalloc(n ? n : 1, sizeof *outline);
    for (size_t i = 0; i < n; i++) {
        kern[i] = r->runs[i].kernel ? r->runs[i].kernel : "?";
        sh[i] = gmi_short_name(kern[i]);
        /* a symbol the demangler could not read (nvcc's extended lambdas)
         * is told apart by the names it holds (core/symbol.h) */
        gm_buf b = GM_BUF_INIT;
        if (gm_symbol_is_mangled(kern[i]) && gm_symbol_outline(kern[i], &b))
            kern[i] = outline[i] = gm_buf_detach(&b);
        gm_buf_free(&b);
    }
    const char **group = gm_xcalloc(n ? n : 1, sizeof *group);
    char **names = gm_xcalloc(n ? n : 1, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        if (out[i])
            continue;
        /* the different kernels of this short name, in run order (by time) */
        size_t g = 0;
        for (size_t j = i; j < n; j++) {
            if (strcmp(sh[j], sh[i]) != 0)
                continue;
            bool seen = false;
            for (size_t q = 0; q < g && !seen; q++)
                seen = strcmp(group[q], kern[j]) == 0;
            if (!seen)
                group[g++] = kern[j];
        }
        memset(names, 0, g * sizeof *names);
        if (g > 1)
            S_tell_apart(group, g, sh[i], names);
        else
            names[0] = gm_xstrdup(sh[i]);
        for (size_t j = i; j < n; j++) {
            if (strcmp(sh[j], sh[i]) != 0)
                continue;
            for (size_t q = 0; q < g; q++)
                if (strcmp(group[q], kern[j]) == 0)
                    out[j] = gm_xstrdup(names[q]);
        }
        for (size_t q = 0; q < g; q++)
            free(names[q]);
    }
    for (size_t i = 0; i < n; i++) {
        free(sh[i]);
        free(outline[i]);
    }
    free(sh);
    free(outline);
    free(names);
    free((void *)group);
    free((void *)kern);
    return out;
}

static void S_name_variants(gm_results *r)
{
    size_t n = r->n_runs;
    int *lvl = gm_xcalloc(n ? n : 1, sizeof *lvl);
    char **names = gm_xcalloc(n ? n : 1, sizeof *names);
    char **kn = S_kernel_names(r);
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < n; i++) {
            free(names[i]);
            names[i] = S_name(&r->runs[i], kn[i], lvl[i]);
        }
        for (size_t i = 0; i < n; i++) {
            bool dup = false;
            for (size_t j = 0; j < n; j++)
                if (j != i && strcmp(names[i], names[j]) == 0)
                    dup = true;
            if (dup && lvl[i] < 3) {
                lvl[i]++;
                again = true;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        free(r->runs[i].variant);
        r->runs[i].variant = names[i];
        free(kn[i]);
    }
    free(kn);
    free(names);
    free(lvl);
}

static double S_total_ms(const gm_run *run)
{
    double t = 0;
    for (size_t i = 0; i < run->timing.n && run->timing.samples; i++)
        t += run->timing.samples[i];
    return t;
}

/* Largest GPU time first; ties keep the program's order (first launch). */
static int S_time_cmp(const void *pa, const void *pb)
{
    const gm_run *a = pa, *b = pb;
    double ta = S_total_ms(a), tb = S_total_ms(b);
    if (ta != tb)
        return ta > tb ? -1 : 1;
    long long la = S_launch(a), lb = S_launch(b);
    return la < lb ? -1 : la > lb;
}

void gmi_group(gm_results *r, bool each, const char *exp_id)
{
    if (!each && r->n_runs > 1) {
        size_t n = r->n_runs, kept = 0;
        bool *used = gm_xcalloc(n, sizeof *used);
        gm_run **members = gm_xcalloc(n, sizeof *members);
        gm_run *out = gm_xcalloc(n, sizeof *out);
        for (size_t i = 0; i < n; i++) {
            if (used[i])
                continue;
            size_t m = 0;
            for (size_t j = i; j < n; j++)
                if (!used[j] && S_same_group(&r->runs[i], &r->runs[j])) {
                    used[j] = true;
                    members[m++] = &r->runs[j];
                }
            S_move_run(&out[kept], &r->runs[i]);
            members[0] = &out[kept];
            if (m > 1)
                S_merge(&out[kept], members, m);
            for (size_t k = 1; k < m; k++)
                S_run_free(members[k]);
            kept++;
        }
        free(r->runs);
        r->runs = out;
        r->n_runs = kept;
        free(used);
        free(members);
    }
    for (size_t i = 0; i < r->n_runs; i++) {
        free(r->runs[i].experiment);
        r->runs[i].experiment = gm_xstrdup(exp_id);
    }
    /* one experiment, the program; the caller writes its title and summary */
    for (size_t i = 0; i < r->n_experiments; i++) {
        gm_experiment *e = &r->experiments[i];
        free(e->id);
        free(e->title);
        free(e->summary);
        free(e->source);
        free(e->sweep_param);
        free(e->series_param);
        free(e->baseline_variant);
    }
    free(r->experiments);
    r->experiments = NULL;
    r->n_experiments = 0;
    gm_experiment *e = gm_results_add_experiment(r);
    e->id = gm_xstrdup(exp_id);
    e->title = gm_xstrdup(exp_id);
    if (r->n_runs > 1)
        qsort(r->runs, r->n_runs, sizeof *r->runs, S_time_cmp);
    S_name_variants(r);
    /* The launch index and the range are in the variant's name and the notes;
     * as parameters they would differ from run to run and every label would
     * repeat them. */
    for (size_t i = 0; i < r->n_runs; i++) {
        gm_run *run = &r->runs[i];
        const char *range = S_range(run);
        if (range)
            gm_run_add_note(run, GM_NOTE_NVTX_RANGE "%s", range);
        if (run->timing.n <= 1 && S_launch(run) >= 0)
            gm_run_add_note(run, "launch %lld of the program", S_launch(run));
        for (size_t k = 0; k < run->n_params; k++) {
            free(run->params[k].name);
            if (run->params[k].value.kind == GM_V_STR)
                free(run->params[k].value.s);
        }
        free(run->params);
        run->params = NULL;
        run->n_params = 0;
    }
}

/* ---- batches ------------------------------------------------------------- */

/* name without a trailing "_v2"/"_v3"... and "_ptds"/"_ptsz" suffixes into buf */
static const char *S_api_base(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", name);
    char *us;
    while ((us = strrchr(buf, '_')) != NULL) {
        const char *suf = us + 1;
        bool version = suf[0] == 'v' && suf[1] && strspn(suf + 1, "0123456789") == strlen(suf + 1);
        if (!version && strcmp(suf, "ptds") != 0 && strcmp(suf, "ptsz") != 0)
            break;
        *us = '\0';
    }
    return buf;
}

bool gmi_api_is_generic_copy(const char *name)
{
    if (!name)
        return false;
    char b[128];
    S_api_base(name, b, sizeof b);
    return strcmp(b, "cuMemcpy") == 0 || strcmp(b, "cuMemcpyAsync") == 0;
}

bool gmi_api_keeps_batch(const char *name)
{
    if (!name || strncmp(name, "cu", 2) != 0)
        return false;
    char b[128];
    S_api_base(name, b, sizeof b);
    /* Functions that read state and nothing else. */
    static const char *const reads[] = {"Get", "Query", "Synchronize", "IsCapturing",
                                        "ElapsedTime", "CanAccessPeer", "Occupancy"};
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++)
        if (strstr(b, reads[i]))
            return true;
    static const char *const exact[] = {
        "cuInit", "cuDriverGetVersion", "cuDevicePrimaryCtxRetain", "cuDeviceTotalMem",
        "cuDeviceComputeCapability",
        "cuCtxSetCurrent", "cuCtxPushCurrent", "cuCtxPopCurrent",
        "cuEventCreate", "cuEventDestroy", "cuEventRecord", "cuEventRecordWithFlags",
        "cuStreamCreate", "cuStreamCreateWithPriority", "cuStreamWaitEvent",
        "cuFuncSetAttribute", "cuFuncSetCacheConfig", "cuFuncSetSharedMemConfig",
        "cuKernelSetAttribute", "cuKernelSetCacheConfig", "cuCtxSetCacheConfig",
        "cuMemcpyDtoH", "cuMemcpyDtoHAsync", "cuProfilerStart", "cuProfilerStop",
        /* a new allocation changes no memory the batch's launches had; the
         * replays find in it what the last pass left (a launch that reads
         * memory no one wrote reads undefined values with or without us) */
        "cuMemAlloc", "cuMemAllocPitch", "cuMemAllocHost", "cuMemHostAlloc",
        "cuMemHostRegister",
        /* loading code (the runtime loads libraries lazily, at their first
         * use) writes only the new module's own globals, which no launch
         * before it can have touched */
        "cuModuleLoad", "cuModuleLoadData", "cuModuleLoadDataEx", "cuModuleLoadFatBinary",
        "cuLibraryLoadData", "cuLibraryLoadFromFile",
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(b, exact[i]) == 0)
            return true;
    return false;
}

gmi_op_kind gmi_api_replayable(const char *name)
{
    if (!name)
        return GMI_OP_NONE;
    char b[128];
    S_api_base(name, b, sizeof b);
    static const struct {
        const char *name;
        gmi_op_kind kind;
    } ops[] = {
        {"cuMemsetD8", GMI_OP_MEMSET8},        {"cuMemsetD8Async", GMI_OP_MEMSET8},
        {"cuMemsetD16", GMI_OP_MEMSET16},      {"cuMemsetD16Async", GMI_OP_MEMSET16},
        {"cuMemsetD32", GMI_OP_MEMSET32},      {"cuMemsetD32Async", GMI_OP_MEMSET32},
        {"cuMemcpyDtoD", GMI_OP_COPY_DTOD},    {"cuMemcpyDtoDAsync", GMI_OP_COPY_DTOD},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(b, ops[i].name) == 0)
            return ops[i].kind;
    return GMI_OP_NONE;
}

/* ---- CUDA graphs --------------------------------------------------------- */

const char *gmi_node_refusal(gmi_node_kind k)
{
    switch (k) {
    case GMI_NODE_KERNEL:
    case GMI_NODE_MEMSET:
    case GMI_NODE_MEMCPY:
    case GMI_NODE_EMPTY:
    case GMI_NODE_EVENT:
    case GMI_NODE_GRAPH:
        return NULL;
    case GMI_NODE_HOST: return "a host-function node";
    case GMI_NODE_SEMAPHORE: return "an external-semaphore node";
    case GMI_NODE_MEM_ALLOC: return "a memory-allocation node";
    case GMI_NODE_MEM_FREE: return "a memory-free node";
    case GMI_NODE_MEMOP: return "a stream memory-operation node (a wait on a value)";
    case GMI_NODE_CONDITIONAL: return "a conditional node";
    default: return "a node of a kind the tool does not replay";
    }
}

bool gmi_graph_order(size_t n, const size_t *dep_start, const size_t *deps, size_t *order)
{
    if (n == 0)
        return true;
    size_t *left = gm_xcalloc(n, sizeof *left);     /* dependencies not yet placed */
    bool *placed = gm_xcalloc(n, sizeof *placed);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        left[i] = dep_start[i + 1] - dep_start[i];
        for (size_t k = dep_start[i]; k < dep_start[i + 1] && ok; k++)
            ok = deps[k] < n && deps[k] != i;
    }
    for (size_t at = 0; at < n && ok; at++) {
        size_t next = n;
        for (size_t i = 0; i < n && next == n; i++)
            if (!placed[i] && left[i] == 0)
                next = i;
        if (next == n) {
            ok = false;   /* every node left waits on another: a cycle */
            break;
        }
        placed[next] = true;
        order[at] = next;
        for (size_t i = 0; i < n; i++)
            for (size_t k = dep_start[i]; k < dep_start[i + 1]; k++)
                if (deps[k] == next)
                    left[i]--;
    }
    free(left);
    free(placed);
    return ok;
}

gmi_op_kind gmi_memset_op(unsigned element_size, size_t width, size_t height, size_t pitch,
                          size_t *n)
{
    gmi_op_kind k = element_size == 1   ? GMI_OP_MEMSET8
                    : element_size == 2 ? GMI_OP_MEMSET16
                    : element_size == 4 ? GMI_OP_MEMSET32
                                        : GMI_OP_NONE;
    if (k == GMI_OP_NONE || width == 0)
        return GMI_OP_NONE;
    if (height > 1 && pitch != width * element_size)
        return GMI_OP_NONE;   /* rows with gaps between them */
    size_t rows = height ? height : 1;
    if (width > SIZE_MAX / rows)
        return GMI_OP_NONE;
    *n = width * rows;
    return k;
}

bool gmi_copy_is_1d(const gmi_copy_shape *c)
{
    return !c->src_array && !c->dst_array && c->width > 0 && c->height <= 1 && c->depth <= 1 &&
           c->src_y == 0 && c->src_z == 0 && c->dst_y == 0 && c->dst_z == 0;
}

gmi_graph_call gmi_api_graph_call(const char *name)
{
    if (!name || strncmp(name, "cuGraph", 7) != 0)
        return GMI_GRAPH_CALL_NONE;
    char b[128];
    S_api_base(name, b, sizeof b);
    if (strncmp(b, "cuGraphInstantiate", 18) == 0)
        return GMI_GRAPH_CALL_INSTANTIATE;
    if (strcmp(b, "cuGraphExecUpdate") == 0)
        return GMI_GRAPH_CALL_UPDATE;
    if (strcmp(b, "cuGraphExecKernelNodeSetParams") == 0)
        return GMI_GRAPH_CALL_KERNEL_PARAMS;
    if (strcmp(b, "cuGraphExecDestroy") == 0)
        return GMI_GRAPH_CALL_DESTROY;
    /* events change nothing a replay makes again; the rest changes nodes */
    if (strcmp(b, "cuGraphExecEventRecordNodeSetEvent") == 0 ||
        strcmp(b, "cuGraphExecEventWaitNodeSetEvent") == 0 ||
        strcmp(b, "cuGraphExecGetFlags") == 0 || strcmp(b, "cuGraphExecGetId") == 0)
        return GMI_GRAPH_CALL_NONE;
    if ((strncmp(b, "cuGraphExec", 11) == 0 && strstr(b, "SetParams")) ||
        strcmp(b, "cuGraphNodeSetEnabled") == 0)
        return GMI_GRAPH_CALL_CHANGE;
    return GMI_GRAPH_CALL_NONE;
}

/* ---- kernels that cannot be replayed --------------------------------------- */

static const struct {
    const char *regex, *why;
} S_noreplay[] = {
    {"(^|[^A-Za-z0-9_])nccl[A-Za-z0-9_]*Kernel", "an NCCL collective"},
    {"(^|[^A-Za-z0-9_])nvshmem", "an NVSHMEM kernel"},
    {"symmetric_memory::", "a PyTorch symmetric-memory kernel"},
    {"(^|[^A-Za-z0-9_])cross_device_reduce", "a custom all-reduce kernel"},
    {"(^|[^A-Za-z0-9_])mscclpp", "an MSCCL++ kernel"},
    {"(^|[^A-Za-z0-9_])deep_ep::", "a DeepEP kernel"},
};
#define S_N_NOREPLAY (sizeof S_noreplay / sizeof S_noreplay[0])

static bool S_noreplay_comp(regex_t *re, const char *regex, char *msg, size_t cap)
{
    int rc = regcomp(re, regex, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[256];
        regerror(rc, re, why, sizeof why);
        snprintf(msg, cap, "--no-replay '%.200s': %s", regex, why);
        return false;
    }
    return true;
}

bool gmi_noreplay_check(const char *regex, char *msg, size_t cap)
{
    regex_t re;
    if (!S_noreplay_comp(&re, regex, msg, cap))
        return false;
    regfree(&re);
    return true;
}

bool gmi_noreplay_init(gmi_noreplay *nr, const char *user_regex, char *msg, size_t cap)
{
    memset(nr, 0, sizeof *nr);
    regex_t *b = gm_xcalloc(S_N_NOREPLAY, sizeof *b);
    for (size_t i = 0; i < S_N_NOREPLAY; i++)
        if (regcomp(&b[i], S_noreplay[i].regex, REG_EXTENDED | REG_NOSUB) != 0) {
            snprintf(msg, cap, "built-in pattern '%s' does not compile", S_noreplay[i].regex);
            for (size_t k = 0; k < i; k++)
                regfree(&b[k]);
            free(b);
            return false;
        }
    nr->builtin = b;
    if (user_regex && *user_regex) {
        regex_t *u = gm_xmalloc(sizeof *u);
        if (!S_noreplay_comp(u, user_regex, msg, cap)) {
            free(u);
            gmi_noreplay_free(nr);
            return false;
        }
        nr->user = u;
    }
    return true;
}

void gmi_noreplay_free(gmi_noreplay *nr)
{
    if (!nr)
        return;
    regex_t *b = nr->builtin;
    for (size_t i = 0; b && i < S_N_NOREPLAY; i++)
        regfree(&b[i]);
    free(b);
    if (nr->user) {
        regfree(nr->user);
        free(nr->user);
    }
    memset(nr, 0, sizeof *nr);
}

const char *gmi_noreplay_match(const gmi_noreplay *nr, const char *name)
{
    if (!nr || !name)
        return NULL;
    const regex_t *b = nr->builtin;
    for (size_t i = 0; b && i < S_N_NOREPLAY; i++)
        if (regexec(&b[i], name, 0, NULL, 0) == 0)
            return S_noreplay[i].why;
    if (nr->user && regexec(nr->user, name, 0, NULL, 0) == 0)
        return "it matches --no-replay";
    return NULL;
}

/* ---- memory shared with other processes -------------------------------------- */

const char *gmi_api_shares_memory(const char *name)
{
    if (!name || strncmp(name, "cu", 2) != 0)
        return NULL;
    char b[128];
    S_api_base(name, b, sizeof b);
    static const char *const calls[] = {
        "cuIpcGetMemHandle", "cuIpcOpenMemHandle", "cuMemExportToShareableHandle",
        "cuMemImportFromShareableHandle", "cuMemPoolExportToShareableHandle",
        "cuMemPoolImportFromShareableHandle", "cuMemPoolExportPointer",
        "cuMemPoolImportPointer", "cuMemGetHandleForAddressRange",
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (strcmp(b, calls[i]) == 0)
            return calls[i];
    return NULL;
}
