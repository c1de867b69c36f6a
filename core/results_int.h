/* results_int.h — what results.c, results_read.c and results_write.c share
 * beyond results.h.  Private to those three files: everything else includes
 * results.h only.
 */
#ifndef GM_RESULTS_INT_H
#define GM_RESULTS_INT_H

#include "results.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A run with every value absent: check status not-run until set, tolerance
 * NaN, launch registers -1 (gm_results_add_run; the reader before it fills
 * each run). */
void gm_run_init(gm_run *run);

/* The check status names of the JSON, indexed by gm_check_status
 * (gm_check_status_name; the reader looks a status up in it). */
extern const char *const gm_check_names[GM_CHECK_NO_REFERENCE + 1];

#ifdef __cplusplus
}
#endif

#endif
