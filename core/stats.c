#include "stats.h"

#include "buf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int S_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gm_quantile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (h - (double)lo) * (sorted[hi] - sorted[lo]);
}

gm_summary gm_summarize(const double *samples, size_t n)
{
    gm_summary s = {n, NAN, NAN, NAN, NAN, NAN, NAN};
    if (n == 0)
        return s;
    double *v = gm_xmalloc(n * sizeof *v);
    memcpy(v, samples, n * sizeof *v);
    qsort(v, n, sizeof *v, S_cmp);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    s.min = v[0];
    s.max = v[n - 1];
    s.q1 = gm_quantile_sorted(v, n, 0.25);
    s.median = gm_quantile_sorted(v, n, 0.5);
    s.q3 = gm_quantile_sorted(v, n, 0.75);
    s.mean = sum / (double)n;
    free(v);
    return s;
}
