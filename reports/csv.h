/* csv.h — a results file as CSV, for a spreadsheet or pandas
 * (`gpumem-report render RUN.json --format csv`). */
#ifndef GM_CSV_H
#define GM_CSV_H

#include "../core/results.h"

/* One line per run and metric (RFC 4180, CRLF, a header line): commit,
 * device, experiment, variant, params, check, metric, value, unit; each
 * run's median time first, as metric "time" in ms, then its timing sample
 * count as "time_samples".  Numbers as they read back, empty when absent.
 * Caller frees. */
char *gm_results_csv(const gm_results *r);

#endif
