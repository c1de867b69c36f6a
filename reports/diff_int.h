/* diff_int.h — private to the diff's analysis: diff.c and the files behind it,
 * one job each under the one public header diff.h (as jq's jv_parse.c and
 * jv_print.c sit under jv.h).  Other files use diff.h.
 *
 *   diff.c            gm_diff_compute in its steps; how the two files were
 *                     collected; the gate line and the verdict line
 *   diff_pair.c       pairing runs: keys, --pair rules, a program's kernels by
 *                     kernel and NVTX range, the walk over both files
 *   diff_judge.c      judging a pair: the time row and its noise floors, the
 *                     metric rows and their roles, the rank test
 *   diff_threshold.c  thresholds and directions: defaults, roles, --threshold
 *
 * diff_verdict.c and diff_render.c read a computed gm_diff through diff.h.
 */
#ifndef GM_DIFF_INT_H
#define GM_DIFF_INT_H

#include "diff.h"

#include "../core/results.h"

#include <stdbool.h>
#include <stddef.h>

/* What judging appends rows to: the diff, the capacity of its rows, the
 * options (thresholds given). */
typedef struct {
    gm_diff *d;
    size_t cap;
    const gm_diff_options *opts;
} gm_diff_ctx;

/* ---- diff_pair.c ---------------------------------------------------------- */

/* A run and the key it pairs by; only diff_pair.c looks inside. */
typedef struct gm_diff_key gm_diff_key;

int gm_diff_str_cmp(const char *a, const char *b);   /* strcmp, NULL as "" */

/* Both files' keys, the --pair rules applied and checked; on GM_OK the
 * caller frees *kb and *kh with gm_diff_keys_free. */
gm_status gm_diff_keys_checked(const gm_results *base, const gm_results *head,
                               const gm_diff_options *opts, const char *bname,
                               const char *hname, gm_diff_key **kb_out, gm_diff_key **kh_out,
                               gm_error *err);
void gm_diff_keys_free(gm_diff_key *k, size_t n);

/* Pairs the runs of both files in key order and judges each pair (rows
 * appended to c->d). */
void gm_diff_pair_keys(gm_diff_ctx *c, const gm_diff_key *kb, size_t nb, const gm_diff_key *kh,
                       size_t nh);

/* ---- diff_judge.c --------------------------------------------------------- */

bool gm_diff_check_bad(const gm_run *r);   /* its check failed or stopped with an error */

/* The rows of two paired runs: their checks, then time and every metric. */
void gm_diff_judge_pair(gm_diff_ctx *c, const gm_run *b, const gm_run *h);

/* The row of a run on one side only (is_head: new, else removed). */
void gm_diff_judge_single(gm_diff_ctx *c, const gm_run *run, bool is_head);

#endif
