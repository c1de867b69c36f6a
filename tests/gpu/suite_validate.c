/* suite_validate — run every selected variant of the suite on the GPU, check
 * each against its CPU reference, time it, and print one line per case:
 *
 *   experiment  variant  params  check  median ms  effective GB/s  % of copy
 *
 * then, per bandwidth-bound experiment, its best case as a fraction of the
 * device-to-device copy bandwidth measured in the same run.  Exit 0 when every
 * check passed (not-run cases are listed with their reason and do not fail),
 * 1 when a check failed or a case ended in error, 2 when it cannot run here.
 *
 *   suite_validate [--only EXP[,EXP]] [--skip EXP[,EXP]] [--variants V[,V]]
 *                  [--quick] [--full] [--repeat N] [--no-time]
 *
 * With neither --quick nor --full both size sets run (what `make test-gpu` does).
 */
#include "../../kernels/runner.h"
#include "../../core/buf.h"
#include "../../core/results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LIST 64

typedef struct {
    char *items[MAX_LIST];
    size_t n;
} S_list;

/* Split "a,b,c" into the list (the string is kept and cut in place). */
static int S_split(char *s, S_list *l, const char *opt)
{
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (l->n == MAX_LIST) {
            fprintf(stderr, "suite_validate: %s: more than %d names\n", opt, MAX_LIST);
            return -1;
        }
        l->items[l->n++] = tok;
    }
    return 0;
}

static void S_usage(FILE *f)
{
    fputs("usage: suite_validate [--only EXP[,EXP]] [--skip EXP[,EXP]] [--variants V[,V]]\n"
          "                      [--quick] [--full] [--repeat N] [--no-time]\n"
          "  --only/--skip   experiment ids (gpumem-report list shows them)\n"
          "  --variants      EXP/VARIANT or VARIANT names\n"
          "  --quick --full  size sets to run (default: both)\n"
          "  --repeat N      timed samples per case (default 20)\n"
          "  --no-time       validate only\n",
          f);
}

static void S_params(const gm_run *r, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->n_params && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s=%lld", i ? " " : "", r->params[i].name,
                         r->params[i].value.i);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* Wall time per case (setup, validation, timing; the last case of an
 * experiment also carries its teardown), from one progress call to the next. */
typedef struct {
    double *sec;
    size_t n, last;
    struct timespec t;
} S_clock;

static double S_since(struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double d = (double)(now.tv_sec - t->tv_sec) + 1e-9 * (double)(now.tv_nsec - t->tv_nsec);
    *t = now;
    return d;
}

static void S_progress(void *ctx, const char *exp, const char *variant, size_t k, size_t n)
{
    S_clock *c = ctx;
    if (!c->sec) {
        c->sec = calloc(n + 1, sizeof *c->sec);
        c->n = n;
    }
    double d = S_since(&c->t);
    if (c->last > 0 && c->last <= c->n)
        c->sec[c->last - 1] = d;
    c->last = k;
    /* A rewritten progress line on a terminal only: in a log (make test-gpu's
     * committed output) carriage returns would run every case into one line. */
    if (!isatty(STDERR_FILENO))
        return;
    fprintf(stderr, "\r[%zu/%zu] %s/%s%*s", k, n, exp, variant, 20, "");
    if (k == n)
        fputc('\n', stderr);
}

/* The slowest cases by wall time: where a size set spends its seconds. */
static void S_slowest(const gm_results *res, S_clock *c)
{
    if (!c->sec || c->n != res->n_runs)
        return;
    if (c->last > 0)
        c->sec[c->last - 1] = S_since(&c->t);
    printf("\nslowest cases (wall time: setup, validation, timing):\n");
    for (int shown = 0; shown < 8; shown++) {
        size_t best = c->n;
        for (size_t i = 0; i < c->n; i++)
            if (c->sec[i] >= 0 && (best == c->n || c->sec[i] > c->sec[best]))
                best = i;
        if (best == c->n)
            break;
        char params[256];
        S_params(&res->runs[best], params, sizeof params);
        printf("  %7.3f s  %s/%s %s\n", c->sec[best], res->runs[best].experiment,
               res->runs[best].variant, params);
        c->sec[best] = -1.0;
    }
}


/* Prints the table of one size set; returns the number of failed or errored runs. */
static int S_report(const gm_results *res, const char *set)
{
    double copy = gm_value_num(&res->device.copy_bandwidth_gbs);
    int bad = 0;
    printf("\n== size set: %s\n", set);
    printf("%-14s %-16s %-34s %-8s %10s %10s %7s\n", "experiment", "variant", "params", "check",
           "median ms", "GB/s", "% copy");
    for (size_t i = 0; i < res->n_runs; i++) {
        const gm_run *r = &res->runs[i];
        char params[256];
        S_params(r, params, sizeof params);
        double gbs = gm_run_effective_gbs(r);
        printf("%-14s %-16s %-34s %-8s", r->experiment, r->variant, params,
               gm_check_status_name(r->check.status));
        if (r->timing.present)
            printf(" %10.4f", r->timing.median);
        else
            printf(" %10s", "-");
        if (isfinite(gbs))
            printf(" %10.1f", gbs);
        else
            printf(" %10s", "-");
        if (isfinite(gbs) && isfinite(copy) && copy > 0)
            printf(" %6.1f%%", 100.0 * gbs / copy);
        else
            printf(" %7s", "-");
        putchar('\n');
        if (r->check.status == GM_CHECK_FAILED || r->check.status == GM_CHECK_ERROR)
            bad++;
        if (r->check.status != GM_CHECK_PASSED && r->check.reason)
            printf("    %s: %s\n", gm_check_status_name(r->check.status), r->check.reason);
    }

    /* Best case of every bandwidth-bound experiment against the copy. */
    if (isfinite(copy) && copy > 0) {
        printf("\nbest effective bandwidth per bandwidth-bound experiment "
               "(copy: %.1f GB/s, read+write)\n", copy);
        for (size_t e = 0; e < res->n_experiments; e++) {
            const gm_experiment *x = &res->experiments[e];
            if (!x->bandwidth_bound)
                continue;
            const gm_run *best = NULL;
            double bg = -1.0;
            for (size_t i = 0; i < res->n_runs; i++) {
                const gm_run *r = &res->runs[i];
                double g = gm_run_effective_gbs(r);
                if (strcmp(r->experiment, x->id) == 0 && r->check.status == GM_CHECK_PASSED &&
                    isfinite(g) && g > bg) {
                    bg = g;
                    best = r;
                }
            }
            if (!best)
                continue;
            char params[256];
            S_params(best, params, sizeof params);
            printf("  %-14s %-16s %-34s %8.1f GB/s %6.1f%% of copy%s\n", x->id, best->variant,
                   params, bg, 100.0 * bg / copy, bg >= 0.9 * copy ? "" : "  (< 90%)");
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    S_list only = {{0}, 0}, skip = {{0}, 0}, variants = {{0}, 0};
    bool quick = false, full = false, no_time = false;
    long repeat = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        if (strcmp(a, "--only") == 0 && has_val) {
            if (S_split(argv[++i], &only, a) != 0)
                return 2;
        } else if (strcmp(a, "--skip") == 0 && has_val) {
            if (S_split(argv[++i], &skip, a) != 0)
                return 2;
        } else if (strcmp(a, "--variants") == 0 && has_val) {
            if (S_split(argv[++i], &variants, a) != 0)
                return 2;
        } else if (strcmp(a, "--repeat") == 0 && has_val) {
            char *end;
            errno = 0;
            repeat = strtol(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || repeat < 1 || repeat > 100000) {
                fprintf(stderr, "suite_validate: --repeat: '%s' is not an integer in [1, 100000]\n",
                        argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--quick") == 0) {
            quick = true;
        } else if (strcmp(a, "--full") == 0) {
            full = true;
        } else if (strcmp(a, "--no-time") == 0) {
            no_time = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            S_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "suite_validate: unknown option or missing value: '%s'\n", a);
            S_usage(stderr);
            return 2;
        }
    }
    if (!quick && !full)
        quick = full = true;

    gm_suite_opts o;
    memset(&o, 0, sizeof o);
    o.only = (const char *const *)only.items;
    o.n_only = only.n;
    o.skip = (const char *const *)skip.items;
    o.n_skip = skip.n;
    o.variants = (const char *const *)variants.items;
    o.n_variants = variants.n;
    o.warmup = -1;
    o.repeat = (int)repeat;
    o.time_l2_flush = true;
    o.validate_only = no_time;
    o.progress = S_progress;
    S_clock clk;

    gm_error err = {GM_OK, ""};
    if (gm_suite_select_check(&o, &err) != GM_OK) {
        fprintf(stderr, "suite_validate: %s\n", err.message);
        return 2;
    }

    int bad = 0, printed_device = 0;
    for (int pass = 0; pass < 2; pass++) {
        if ((pass == 0 && !quick) || (pass == 1 && !full))
            continue;
        o.quick = pass == 0;
        gm_results res;
        gm_results_init(&res);
        memset(&clk, 0, sizeof clk);
        clock_gettime(CLOCK_MONOTONIC, &clk.t);
        o.progress_ctx = &clk;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        gm_status st = gm_suite_run(&o, &res, &err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (!printed_device && res.device.name) {
            char date[32];
            time_t now = time(NULL);
            strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
            printf("device: %s (cc %d.%d, %d SMs, L2 %lld KiB, %.1f GB/s theoretical)\n",
                   res.device.name, res.device.cc_major, res.device.cc_minor, res.device.sm_count,
                   res.device.l2_bytes >> 10, gm_value_num(&res.device.theoretical_bandwidth_gbs));
            printf("driver: %s, CUDA driver API %d, runtime %d\n",
                   res.device.driver_version ? res.device.driver_version : "unknown",
                   res.device.cuda_driver_api, res.device.cuda_runtime);
            printf("date: %s\n", date);
            printed_device = 1;
        }
        if (gm_value_present(&res.device.copy_bandwidth_gbs))
            printf("device-to-device copy (%lld MiB): %.1f GB/s\n",
                   res.device.copy_bandwidth_bytes.i >> 20,
                   gm_value_num(&res.device.copy_bandwidth_gbs));
        if (res.n_runs == 0) {
            gm_results_free(&res);
            fprintf(stderr, "suite_validate: %s: %s\n", gm_status_name(st), err.message);
            return st == GM_ERR_NO_DEVICE ? 2 : 1;
        }
        bad += S_report(&res, o.quick ? "quick" : "full");
        S_slowest(&res, &clk);
        free(clk.sec);
        printf("%s: %zu runs in %.2f s\n", o.quick ? "quick" : "full", res.n_runs,
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        gm_results_free(&res);
        if (st != GM_OK) {
            fprintf(stderr, "suite_validate: %s: %s\n", gm_status_name(st), err.message);
            return st == GM_ERR_NO_DEVICE ? 2 : 1;
        }
    }
    printf("\n%s\n", bad ? "FAILED: some checks failed or ended in error" : "all checks passed");
    return bad ? 1 : 0;
}
