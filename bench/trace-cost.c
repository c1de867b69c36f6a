/* bench/trace-cost.c — CPU time of the address traces of the whole suite at
 * the full size (kernels/trace_*.c, model in core/model.c).
 *
 *   make build/bench/trace-cost && build/bench/trace-cost [repetitions]
 *   sh bench/trace-cost.sh            (builds it, runs it, prints the table)
 *
 * Every row with a trace, every full-size case: describe, trace, predict;
 * the CPU time of trace + predict per case (CLOCK_PROCESS_CPUTIME_ID).  Prints
 * the total of each repetition, their median, and the slowest case.  The
 * budget is 5,000 ms of CPU in all (the main job's budget is 30 s and the
 * traces must be a small part of it); the output says whether it is met.
 * This is a benchmark, not a test: a loaded machine reads slower, so the
 * budget is checked here, with the output committed under bench/results/,
 * never by an assertion in the unit suite. */
#include "../kernels/trace.h"
#include "../kernels/suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUDGET_MS 5000.0

static double S_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int S_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One pass over the suite; returns the CPU ms of all traces, or -1. */
static double S_pass(size_t *cases_traced, char *worst, size_t worst_len, double *worst_ms)
{
    gm_trace *t = gm_trace_new();
    if (!t)
        return -1.0;
    double total = 0.0;
    *cases_traced = 0;
    *worst_ms = 0.0;
    for (size_t r = 0; r < gm_suite_len; r++) {
        const gm_variant *v = &gm_suite[r];
        if (!v->trace)
            continue;
        size_t n = gm_variant_cases(v, false, NULL, 0);
        gm_case *cases = calloc(n ? n : 1, sizeof *cases);
        if (!cases) {
            gm_trace_free(t);
            return -1.0;
        }
        gm_variant_cases(v, false, cases, n);
        for (size_t k = 0; k < n; k++) {
            gm_error e = {GM_OK, ""};
            if (v->describe(&cases[k], &e) != GM_OK) {
                fprintf(stderr, "trace-cost: %s/%s: describe: %s\n", v->experiment->id,
                        v->name, e.message);
                free(cases);
                gm_trace_free(t);
                return -1.0;
            }
            gm_trace_reset(t);
            double t0 = S_cpu_ms();
            gm_status st = v->trace(&cases[k], t, &e);
            gm_prediction p;
            memset(&p, 0, sizeof p);
            if (st == GM_OK)
                st = gm_trace_predict(t, &p, &e);
            double ms = S_cpu_ms() - t0;
            gm_trace_prediction_clear(&p);
            if (st == GM_ERR_UNSUPPORTED)
                continue; /* a case the variant cannot run (said by the test suite) */
            if (st != GM_OK) {
                fprintf(stderr, "trace-cost: %s/%s: %s\n", v->experiment->id, v->name,
                        e.message);
                free(cases);
                gm_trace_free(t);
                return -1.0;
            }
            total += ms;
            (*cases_traced)++;
            if (ms > *worst_ms) {
                *worst_ms = ms;
                snprintf(worst, worst_len, "%s/%s", v->experiment->id, v->name);
            }
        }
        free(cases);
    }
    gm_trace_free(t);
    return total;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    if (reps < 1 || reps > 1000) {
        fprintf(stderr, "trace-cost: repetitions must be 1..1000, not '%s'\n", argv[1]);
        return 2;
    }
    double *tot = calloc((size_t)reps, sizeof *tot);
    if (!tot)
        return 2;
    size_t cases = 0;
    char worst[160] = "";
    double worst_ms = 0.0;
    for (int i = 0; i < reps; i++) {
        tot[i] = S_pass(&cases, worst, sizeof worst, &worst_ms);
        if (tot[i] < 0) {
            free(tot);
            return 2;
        }
        printf("repetition %d: %zu full-size cases traced in %.0f ms of CPU time "
               "(slowest %s, %.1f ms)\n", i + 1, cases, tot[i], worst, worst_ms);
    }
    qsort(tot, (size_t)reps, sizeof *tot, S_cmp);
    double med = reps % 2 ? tot[reps / 2] : 0.5 * (tot[reps / 2 - 1] + tot[reps / 2]);
    printf("median of %d: %.0f ms of CPU time (min %.0f, max %.0f); budget %.0f ms: %s\n", reps,
           med, tot[0], tot[reps - 1], BUDGET_MS, med <= BUDGET_MS ? "met" : "NOT met");
    free(tot);
    return med <= BUDGET_MS ? 0 : 1;
}
