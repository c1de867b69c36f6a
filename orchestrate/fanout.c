/* fanout.c — one process per GPU (fanout.h). */
#include "fanout.h"

#include "../core/buf.h"
#include "../core/pathpat.h"
#include "../core/proc.h"
#include "../core/results.h"
#include "../reports/compare.h"

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "gpumem-report: " + message, as the program's own messages read. */
static void S_say(FILE *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void S_say(FILE *log, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpumem-report: ", log);
    vfprintf(log, fmt, ap);
    fputc('\n', log);
    va_end(ap);
}

static char *S_expand(const char *opt, const char *pattern, int device, gm_error *err)
{
    gm_path_vars v = {NULL, device, 0};
    gm_error e = {GM_OK, ""};
    char *out = NULL;
    if (gm_path_expand(pattern, &v, &out, &e) != GM_OK) {
        gm_fail(err, e.status, "%s %s", opt, e.message);
        return NULL;
    }
    return out;
}

/* The results path of device `dev`: --json (or the report's .json) with %d
 * expanded; a pattern without %d gets "-gpuN" before its extension when
 * there are several devices. */
static char *S_dev_json(const char *json, const char *out_pattern, int dev, bool several,
                        gm_error *err)
{
    const char *pattern = json;
    char *beside = NULL;
    if (!pattern) {
        char *out = S_expand("--out", out_pattern, dev, err);
        if (!out)
            return NULL;
        const char *dot = strrchr(out, '.');
        const char *slash = strrchr(out, '/');
        size_t stem = (dot && (!slash || dot > slash)) ? (size_t)(dot - out) : strlen(out);
        gm_buf bb = GM_BUF_INIT;
        gm_buf_put(&bb, out, stem);
        gm_buf_puts(&bb, ".json");
        beside = gm_buf_detach(&bb);
        free(out);
        pattern = beside;
    }
    gm_buf b = GM_BUF_INIT;
    if (several && !gm_path_uses(pattern, 'd')) {
        const char *dot = strrchr(pattern, '.');
        const char *slash = strrchr(pattern, '/');
        size_t stem = (dot && (!slash || dot > slash)) ? (size_t)(dot - pattern) : strlen(pattern);
        gm_buf_put(&b, pattern, stem);
        gm_buf_puts(&b, "-gpu%d");
        gm_buf_puts(&b, pattern + stem);
    } else {
        gm_buf_puts(&b, pattern);
    }
    char *path = S_expand("--json", b.data, dev, err);
    gm_buf_free(&b);
    free(beside);
    return path;
}

gm_status gm_fan_out_paths(const char *json, const char *out, const int *devices, int n,
                           char ***paths, gm_error *err)
{
    char **p = gm_xcalloc((size_t)n + 1, sizeof *p);
    gm_status st = GM_OK;
    for (int i = 0; i < n && st == GM_OK; i++) {
        if (!(p[i] = S_dev_json(json, out, devices[i], true, err))) {
            st = err ? err->status : GM_ERR_VALUE;
            break;
        }
        for (int k = 0; k < i && st == GM_OK; k++)
            if (strcmp(p[k], p[i]) == 0)
                st = gm_fail(err, GM_ERR_VALUE, "devices %d and %d would write the same results "
                             "file %s: put %%d in --json", devices[k], devices[i], p[i]);
    }
    if (st != GM_OK) {
        for (int i = 0; i < n; i++)
            free(p[i]);
        free(p);
        p = NULL;
    }
    *paths = p;
    return st;
}

typedef struct {
    int dev;
    gm_proc proc;
    bool started;
    char *prefix;             /* "[gpu N] " */
    char **argv;
    gm_proc_spec spec;
    gm_results r;
    bool have_results;
} S_child;

/* Start device c's process: exe collect ARGS --device N --json F. */
static bool S_start(S_child *c, const gm_fan_out_spec *s, int i)
{
    size_t na = 0;
    while (s->args && s->args[na])
        na++;
    char devs[16];
    snprintf(devs, sizeof devs, "%d", c->dev);
    c->argv = gm_xcalloc(na + 7, sizeof *c->argv);
    size_t k = 0;
    c->argv[k++] = gm_xstrdup(s->exe);
    c->argv[k++] = gm_xstrdup("collect");
    for (size_t a = 0; a < na; a++)
        c->argv[k++] = gm_xstrdup(s->args[a]);
    c->argv[k++] = gm_xstrdup("--device");
    c->argv[k++] = gm_xstrdup(devs);
    c->argv[k++] = gm_xstrdup("--json");
    c->argv[k++] = gm_xstrdup(s->json[i]);
    gm_buf pre = GM_BUF_INIT;
    gm_buf_printf(&pre, "[gpu %d] ", c->dev);
    c->prefix = gm_buf_detach(&pre);
    c->spec = (gm_proc_spec){.argv = c->argv, .out = GM_PROC_RELAY, .err = GM_PROC_MERGE,
                             .relay = s->log, .relay_prefix = c->prefix,
                             .death_signal = SIGTERM};
    gm_error err = {GM_OK, ""};
    if (gm_proc_start(&c->proc, &c->spec, NULL, &err) != GM_OK) {
        S_say(s->log, "device %d: %s", c->dev, err.message);
        return false;
    }
    c->started = true;
    return true;
}

int gm_fan_out(const gm_fan_out_spec *s)
{
    double t_start = S_now();
    int n = s->n;
    S_child *c = gm_xcalloc((size_t)n, sizeof *c);
    gm_proc **running = gm_xcalloc((size_t)n + 1, sizeof *running);
    size_t nr = 0;
    if (!s->quiet)
        S_say(s->log, "%d devices, one process each, at the same time", n);
    for (int i = 0; i < n; i++) {
        c[i].dev = s->devices[i];
        if (S_start(&c[i], s, i))
            running[nr++] = &c[i].proc;
    }
    gm_proc_wait(running, nr);

    int worst = 0, n_ok = 0;
    fprintf(s->log, "gpumem-report: %d devices in %.1f s of wall time:\n", n, S_now() - t_start);
    const gm_results *rp[GM_COMPARE_MAX];
    const char *names[GM_COMPARE_MAX];
    for (int i = 0; i < n; i++) {
        const gm_proc_result *pr = &c[i].proc.res;
        int code = !c[i].started ? 1 : pr->signal ? 1 : pr->code;
        gm_error err = {GM_OK, ""};
        c[i].have_results = c[i].started && (code == 0 || code == 1) &&
                            gm_results_read_file(s->json[i], &c[i].r, &err) == GM_OK;
        fprintf(s->log, "  device %d: ", c[i].dev);
        if (c[i].started && pr->signal)
            fprintf(s->log, "killed by signal %d", pr->signal);
        else
            fprintf(s->log, "exit %d", code);
        if (c[i].have_results)
            fprintf(s->log, ", %s (%zu runs, %.1f s)\n", s->json[i], c[i].r.n_runs,
                    pr->seconds);
        else
            fprintf(s->log, ", no results (its lines above, marked [gpu %d], say why)\n",
                    c[i].dev);
        if (code > worst || (code == 0 && !c[i].have_results))
            worst = code ? code : 1;
        if (c[i].have_results && n_ok < GM_COMPARE_MAX) {
            rp[n_ok] = &c[i].r;
            names[n_ok++] = s->json[i];
        }
    }
    int rc = worst;
    if (s->render && n_ok >= 1) {
        gm_render_opts ro = *s->render;
        gm_error err = {GM_OK, ""};
        gm_status st;
        if (n_ok >= 2) {
            gm_compare_in in = {rp, names, (size_t)n_ok};
            st = gm_compare_render(&in, &ro, &err);
        } else {
            ro.results_name = names[0];
            st = gm_render(rp[0], &ro, &err);
        }
        if (st != GM_OK) {
            S_say(s->log, "%s", err.message);
            if (rc == 0)
                rc = st == GM_ERR_GNUPLOT ? 2 : 1;
        } else if (!s->quiet) {
            fprintf(s->log, "report: %s (%s)\n", ro.out_path,
                    n_ok >= 2 ? "the devices side by side" : "the one device with results");
        }
    } else if (!s->render && n_ok >= 2 && !s->quiet) {
        fprintf(s->log, "  compare them: gpumem-report render");
        for (int i = 0; i < n_ok; i++)
            fprintf(s->log, " %s", names[i]);
        fprintf(s->log, " --out compare.html\n");
    }
    for (int i = 0; i < n; i++) {
        if (c[i].have_results)
            gm_results_free(&c[i].r);
        gm_proc_result_free(&c[i].proc.res);
        for (size_t k = 0; c[i].argv && c[i].argv[k]; k++)
            free(c[i].argv[k]);
        free(c[i].argv);
        free(c[i].prefix);
    }
    free(running);
    free(c);
    return rc;
}
