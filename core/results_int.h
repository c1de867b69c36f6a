/* results_int.h — what results.c, results_read.c, results_file.c and results_write.c share
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

/* Parse len bytes of text (not NUL-terminated) named name in messages: what
 * is not a results file is told so; a large file is read run by run
 * (results_read.c; results_file.c reads a path through it). */
gm_status gm_results_read_buffer(const char *text, size_t len, const char *name,
                                 gm_results *out, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
