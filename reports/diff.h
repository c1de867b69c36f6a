/* diff.h — compare two results files (a base commit and a head commit) run by
 * run and metric by metric, and say what got better, what got worse and what
 * only moved within its noise.
 *
 *   gm_diff_compute()    pairs runs, applies thresholds and the noise test
 *   gm_diff_to_markdown() / gm_diff_to_html() / gm_diff_to_json()
 *                        pure renderers: same diff in, same bytes out
 *
 * The policy (directions, default thresholds, the statistics, exit codes) is
 * documented for users in docs/diff.md; the comments here give the reasons.
 */
#ifndef GM_DIFF_H
#define GM_DIFF_H

#include "buf.h"
#include "catalog.h"
#include "gm_error.h"
#include "results.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- the noise test ------------------------------------------------------ */

typedef enum {
    GM_MWU_NONE = 0,   /* not run: a side has no samples */
    GM_MWU_EXACT,      /* exact null distribution of U (no ties, both n < 50) */
    GM_MWU_NORMAL      /* normal approximation, tie and continuity corrected */
} gm_mwu_method;

typedef struct {
    gm_mwu_method method;
    size_t n1, n2;
    double u1;         /* U of the first sample: pairs (x, y) with x > y, ties count 1/2 */
    double u;          /* min(u1, n1*n2 - u1) */
    double z;          /* normal method only (NaN otherwise) */
    double p;          /* two-sided p-value; NaN when method is NONE */
    bool ties;         /* some value occurs more than once in the pooled samples */
} gm_mwu;

/* Two-sided Mann–Whitney U (Wilcoxon rank-sum) test of x against y.  Uses
 * the exact distribution when there are no ties and n1, n2 < 50 (the rule R's
 * wilcox.test follows), the normal approximation with tie correction and a
 * 0.5 continuity correction otherwise.  NaN samples are not allowed (the
 * results reader rejects them). */
gm_mwu gm_mann_whitney(const double *x, size_t n1, const double *y, size_t n2);

const char *gm_mwu_method_name(gm_mwu_method m);   /* "none", "exact", "normal" */

/* ---- thresholds ---------------------------------------------------------- */

typedef enum {
    GM_THR_EXACT = 0,  /* any difference counts (reals: beyond 1e-12 relative, i.e. rounding) */
    GM_THR_RELATIVE,   /* |head - base| > value * |base| */
    GM_THR_ABSOLUTE    /* |head - base| > value, in the metric's unit */
} gm_thr_kind;

typedef struct {
    gm_thr_kind kind;
    double value;      /* fraction for RELATIVE (0.05 = 5 %), unit for ABSOLUTE */
} gm_threshold;

/* The key a timing row goes by on the command line and in the JSON. */
#define GM_DIFF_TIME "time"

/* Default threshold for a metric name (GM_DIFF_TIME for the event timing).
 * Catalog metrics flagged deterministic: exact; others by unit (see diff.c). */
gm_threshold gm_diff_default_threshold(const char *metric);

/* Direction of a metric: the catalog's, lower for GM_DIFF_TIME, neither for
 * names the catalog does not know. */
gm_direction gm_diff_direction(const char *metric);

/* Parse "METRIC=5%", "METRIC=0.5" or "METRIC=exact".  METRIC is returned as
 * written (heap, caller frees); it is resolved against the files later. */
gm_status gm_threshold_parse(const char *spec, char **metric, gm_threshold *thr, gm_error *err);

/* "exact", "5 %", "0.5" — appended to a caller buffer of n bytes. */
void gm_threshold_format(const gm_threshold *t, const char *unit, char *out, size_t n);

/* ---- the comparison ------------------------------------------------------ */

/* Row statuses in order of severity: the Markdown table is sorted by it. */
typedef enum {
    GM_DIFF_REGRESSED = 0,  /* worse, beyond the threshold (and significant, for time) */
    GM_DIFF_FAILED,         /* validation failed or errored in either run */
    GM_DIFF_INCOMPARABLE,   /* cannot be judged: different collection, units, L2 flush... */
    GM_DIFF_IMPROVED,       /* better, beyond the threshold (and significant, for time) */
    GM_DIFF_CHANGED,        /* beyond the threshold, for a metric with no better direction */
    GM_DIFF_NEW,            /* only in head */
    GM_DIFF_REMOVED,        /* only in base */
    GM_DIFF_NOISE,          /* time beyond the threshold, but the samples do not differ */
    GM_DIFF_UNCHANGED,      /* within the threshold */
    GM_DIFF_N_STATUS
} gm_diff_status;

const char *gm_diff_status_name(gm_diff_status s);  /* "regressed", ..., "within noise" */

typedef struct {
    char *metric;      /* as given on the command line */
    gm_threshold thr;
} gm_diff_override;

typedef struct {
    const gm_diff_override *overrides;
    size_t n_overrides;
    double alpha;      /* significance level of the noise test; 0 means 0.05 */
    bool force;        /* judge rows even when the files were collected differently */
    const char *base_name;   /* names for error messages ("base", "head" when NULL) */
    const char *head_name;
} gm_diff_options;

typedef struct {
    gm_diff_status status;
    const gm_run *base;        /* NULL for a new run */
    const gm_run *head;        /* NULL for a removed run */
    const char *metric;        /* ncu name, GM_DIFF_TIME, or NULL for a whole-run row */
    const gm_metric_info *info;   /* catalog entry or NULL */
    const char *unit;          /* "ms" for time; NULL for a whole-run row */
    gm_direction better;
    gm_value vbase, vhead;     /* ABSENT where a side has none; time: median in ms */
    double delta;              /* head - base; NaN when either is absent */
    double ratio;              /* head / base; NaN when undefined (base 0, absent) */
    gm_threshold thr;
    gm_mwu test;               /* time rows only; method NONE otherwise */
    double magnitude;          /* |ln ratio| (inf when from or to 0): sort key within a status */
    char note[160];            /* why failed / incomparable / how judged; "" if nothing */
    size_t order;              /* pairing order: the last sort key, for stable output */
} gm_diff_row;

typedef struct {
    const gm_results *base, *head;   /* borrowed: must outlive the diff */
    double alpha;
    bool comparable;           /* the files were collected the same way */
    bool forced;               /* comparable is false and rows were judged anyway */
    char **reasons;            /* what makes them incomparable, one per item */
    size_t n_reasons;
    char **notes;              /* differences that do not prevent comparison */
    size_t n_notes;
    gm_diff_row *rows;         /* sorted by status, then magnitude (largest first), then names */
    size_t n_rows;
    size_t counts[GM_DIFF_N_STATUS];
    size_t n_runs_paired, n_runs_new, n_runs_removed;
} gm_diff;

/* Compare head against base.  Fails (GM_ERR_VALUE, message naming the runs)
 * when a file holds two runs with the same experiment, variant and
 * parameters, or when an override names a metric that is neither GM_DIFF_TIME,
 * a catalog name or label, nor a metric found in either file.  On success
 * *out owns its rows (free with gm_diff_free) and borrows base and head. */
gm_status gm_diff_compute(const gm_results *base, const gm_results *head,
                          const gm_diff_options *opts, gm_diff *out, gm_error *err);

void gm_diff_free(gm_diff *d);

/* The test gm_diff_compute makes of each file alone: GM_ERR_VALUE (message
 * naming `name` and the runs) when two runs have the same experiment, variant
 * and parameters.  For a caller that must refuse a baseline before it spends
 * time producing the other file. */
gm_status gm_diff_check_file(const gm_results *r, const char *name, gm_error *err);

/* True when the diff should fail a gate: a regressed row, or a run whose
 * validation failed or errored in head.  (Incomparable files are the
 * caller's decision: the CLI exits 2 unless --force.) */
bool gm_diff_has_regression(const gm_diff *d);

/* "2 regressions, 1 improvement, 140 unchanged" and the other non-zero
 * counts, in severity order.  Caller frees. */
char *gm_diff_verdict(const gm_diff *d);

/* ---- rendering ----------------------------------------------------------- */

typedef struct {
    const char *base_name;     /* file names shown in the header (may be NULL) */
    const char *head_name;
    bool only_changed;         /* leave out unchanged and within-noise rows */
    size_t max_rows;           /* 0: all */
    bool in_report;            /* a section of the report: say so where options are named */
} gm_diff_render;

/* GitHub-flavoured Markdown: verdict, header (commits, devices), banner when
 * incomparable, the table, and how the rows were judged.  Caller frees. */
char *gm_diff_to_markdown(const gm_diff *d, const gm_diff_render *ro);

/* The diff as a section of the report (`gpumem-report render --baseline`):
 * "## Changes since `<base commit>`", the verdict, the header table and the
 * banner when the files were collected differently, then the table of the
 * rows that changed (only_changed and in_report forced on) and how rows are
 * judged.  Appended to b (escaped Markdown, ending with a blank line). */
void gm_diff_md_section(gm_buf *b, const gm_diff *d, const gm_diff_render *ro);

/* A self-contained HTML page: the same Markdown through cmark-gfm (table
 * extension, raw HTML off), CSS inside, an inline SVG bar chart of the
 * largest changes; no script, no external link.  NULL with err on failure. */
char *gm_diff_to_html(const gm_diff *d, const gm_diff_render *ro, gm_error *err);

/* The diff for machines (structure in docs/diff.md).  `exit_code` is written
 * into it as given.  Caller frees. */
char *gm_diff_to_json(const gm_diff *d, const gm_diff_render *ro, int exit_code);

#endif
