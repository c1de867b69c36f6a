/* stats.h — order statistics over timing samples. */
#ifndef GM_STATS_H
#define GM_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t n;
    double min, q1, median, q3, max, mean;
} gm_summary;

/* Summarise n samples (n may be 0: every field NaN but n).  Quantiles by linear
 * interpolation between order statistics (type 7, as R and NumPy default). */
gm_summary gm_summarize(const double *samples, size_t n);

/* Quantile p in [0,1] of already sorted values. */
double gm_quantile_sorted(const double *sorted, size_t n, double p);

#ifdef __cplusplus
}
#endif

#endif
