/* history.h — every run kept in an SQLite database, and what it shows over
 * commits: trends of the key counters and times, the commit that moved each,
 * a gate of a new run against the history, and CSV for spreadsheets.
 *
 *   gm_history_open()      open or create the file, check and migrate its schema
 *   gm_history_add()       store a results file (a no-op when it is there already)
 *   gm_history_series()    the values of one experiment over commit order
 *   gm_steps_exact() / gm_steps_noisy()
 *                          where a series changes: on any change (exact counters),
 *                          by a change-point fit (times, noisy counters)
 *   gm_history_report_md() / gm_history_report_html()
 *   gm_history_gate()      a new run against the history of its device and settings
 *   gm_history_csv()       every stored value, one per line
 *
 * The statistics and their assumptions are documented for users in
 * docs/history.md.  Every SQL statement takes outside text through bind
 * parameters only; every sqlite3 call is checked and a failure named.
 *
 * Behind this header: history_store.c (the SQLite file: open, migrate, add,
 * load), history_series.c (change points, the series, the gate) and
 * history_page.c (the trend report and its charts, the CSV export);
 * history_private.h holds what they share.
 */
#ifndef GM_HISTORY_H
#define GM_HISTORY_H

#include "../core/buf.h"
#include "../core/gm_error.h"
#include "../core/results.h"
#include "diff.h"

#include <stdbool.h>
#include <stddef.h>

/* The schema this code writes.  Version 1: results, runs, samples, metrics;
 * version 2 adds the indexes the report and the gate look runs up by;
 * version 3 the per-source-line counts (table lines, runs.lines_status),
 * filled for the results already stored from their kept JSON; version 4
 * runs.gated; version 5 a results file's identity beyond its commit, time,
 * device name, driver and settings: the device's UUID, the process (host,
 * rank, pid) and a digest of its runs, filled the same way; version 6 one
 * identity per commit: a short commit id stored where the history holds one
 * full id it begins, that full id (and a commit's time, where one of its
 * results has it, on every results file of it). */
#define GM_HISTORY_SCHEMA 6
/* How long a writer waits for another one's transaction (parallel CI jobs). */
#define GM_HISTORY_BUSY_MS 60000

typedef struct gm_history gm_history;

/* Open path (created when missing and `create`), wait up to
 * GM_HISTORY_BUSY_MS for locks, and bring its schema to GM_HISTORY_SCHEMA
 * (one transaction per step).  The file is opened as one from elsewhere:
 * SQLite's defensive mode, an untrusted schema, triggers and views off, and
 * a file holding anything but a history's own tables and indexes (a
 * trigger, a view, a table of something else) refused before anything runs
 * on it or is written.  GM_ERR_VALUE when the file is not a history
 * database or was written by a newer schema; GM_ERR_IO when SQLite fails. */
gm_status gm_history_open(const char *path, bool create, gm_history **out, gm_error *err);
void gm_history_close(gm_history *h);
int gm_history_schema_version(gm_history *h);   /* -1 when it cannot be read */

/* The collection settings a run is compared under, as one string: size set,
 * L2 flush, clock control, timing warm-up and repetitions, the metric list. */
char *gm_history_settings(const gm_results *r);

/* The commit id the history keeps for commit (NULL: "unknown"): a short hex
 * id (4 to 39 digits) of which the database holds one full id (40 or 64
 * digits) that begins with it, that full id; anything else as it is.
 * GM_ERR_VALUE, naming both, when it begins two full ids.  *out: caller
 * frees. */
gm_status gm_history_resolve_commit(gm_history *h, const char *commit, char **out,
                                    gm_error *err);

/* What `history add` warns of r's commit, as one sentence into buf (and
 * returned), or NULL when nothing: no commit recorded, a commit that is not
 * a hex id ("HEAD", a branch name: it names no fixed commit), a tree that
 * was dirty (its code is not the commit's). */
const char *gm_history_commit_warning(const gm_results *r, char *buf, size_t cap);

/* Store r (json: its text, kept whole for the gate) in one transaction, keyed
 * by commit, taken_at, device, driver, settings, the device's UUID, the
 * process that collected (host, rank, pid, where r records them) and a
 * digest of its runs: *added is false only when a results file of that key,
 * the same runs, is there already (nothing written).  The commit is stored
 * as gm_history_resolve_commit gives it (an error when a short id is
 * ambiguous); a full id takes the place of the short ids of it stored
 * before.  commit_time: seconds since the epoch of the commit (its order in
 * the history), or -1 for unknown (then the time another results file of the
 * commit has, else taken_at, orders it); given, it is also the time of the
 * commit's results stored without one.  source: the file name, shown in
 * listings. */
gm_status gm_history_add(gm_history *h, const gm_results *r, const char *json,
                         long long commit_time, const char *source, bool *added,
                         gm_error *err);

/* Counts of what the database holds (tests, the CLI's summary line). */
gm_status gm_history_counts(gm_history *h, long long *results, long long *runs,
                            long long *samples, long long *metrics, gm_error *err);

/* ---- change points ------------------------------------------------------- */

/* Indexes i (1..n-1) where v[i] differs from the last present value before it
 * (NaN is absent and skipped).  Returns the count; steps has room for n. */
size_t gm_steps_exact(const double *v, size_t n, size_t *steps);

/* Change points of a noisy series by optimal partitioning: the piecewise
 * constant fit of v (relative to its median) that minimises the squared error
 * plus a penalty of GM_STEP_PENALTY * sigma^2 * ln(n) per change, sigma the
 * noise estimated from the median absolute successive difference; a change
 * is kept only when the segments' medians differ by at least min_rel
 * (relative), min_abs (in the series' unit) and GM_STEP_SIGMAS standard errors
 * of the difference of the two segments' levels — and, when samples are given (samples[i], n_samples[i] per
 * point; NULL for none), when a two-sided Mann–Whitney test of the samples of
 * up to 3 points on each side gives p < GM_STEP_ALPHA.  NaN points are
 * skipped.  Returns the count; steps has room for n. */
#define GM_STEP_PENALTY 3.0
#define GM_STEP_SIGMAS 4.0
#define GM_STEP_ALPHA 0.01
size_t gm_steps_noisy(const double *v, size_t n, double min_rel, double min_abs,
                      const double *const *samples, const size_t *n_samples, size_t *steps);

/* ---- what the report, the gate and the export read ----------------------- */

typedef struct {
    const char *only;     /* experiment ids, comma-separated; NULL: all */
    const char *device;   /* device name (exact) or NULL: every device */
    size_t last;          /* the last N results per device; 0: all */
    const char *gnuplot;  /* program for the HTML charts; NULL: "gnuplot" */
    const char *db_name;  /* the file named in the text; may be NULL */
    /* Markdown only (the HTML page shows everything): */
    size_t md_commits;    /* the per-commit table: the last N commits; 0: GM_HISTORY_MD_COMMITS,
                             SIZE_MAX: all */
    size_t max_chars;     /* cut whole experiment sections beyond this; 0: GM_HISTORY_MD_MAX_CHARS */
    bool all;             /* every commit in the tables, no cut */
} gm_history_query;

/* The Markdown trend fits a pull-request comment by default (GitHub refuses
 * comments over 65,536 characters): the per-commit table of each experiment
 * lists the last GM_HISTORY_MD_COMMITS commits (the rest counted, named and
 * pointed to), and sections beyond GM_HISTORY_MD_MAX_CHARS are cut with a
 * line saying so.  Rows of source lines whose excess changed, per
 * experiment. */
#define GM_HISTORY_MD_COMMITS 20
#define GM_HISTORY_MD_MAX_CHARS 60000
#define GM_HISTORY_LINE_ROWS 20

/* The trend report: per device and experiment, a table of the key counters
 * and median times of each layout over commit order, each step marked with
 * the commit that made it, and the source lines whose excess (count − ideal)
 * changed between consecutive commits with per-line counts.  Markdown (caller frees) or a self-contained HTML
 * page with gnuplot charts (NULL with err on failure). */
gm_status gm_history_report_md(gm_history *h, const gm_history_query *q, char **out,
                               gm_error *err);
gm_status gm_history_report_html(gm_history *h, const gm_history_query *q, char **out,
                                 gm_error *err);

/* Every stored value as CSV (RFC 4180, header line): commit, dirty,
 * commit_time, taken_at, device, driver, settings (less the metric list),
 * experiment, variant, params, check, metric, value, unit, line; the median
 * time as metric "time" in ms; each per-line count as metric
 * "source_line.<counter>" with the line ("kernels/rgb/kernels.cu:58") in the last column,
 * empty on the other rows. */
gm_status gm_history_csv(gm_history *h, const gm_history_query *q, char **out, gm_error *err);

/* Judge head against the history of its device and settings: base is the
 * latest stored results of them (by commit order; head itself left out when it
 * was added, and so are dirty trees when clean ones are there), its counters as stored, and each run's timing samples pooled
 * from the last GM_GATE_POOL results that hold the run timed as the latest
 * timed it (with or without the launch gate: runs.gated), then the diff's
 * pairing, thresholds and noise test (gm_diff_compute with opts: --threshold
 * and --alpha as for diff).  *md: the Markdown verdict (caller frees), as
 * gm_diff_to_markdown renders it with render (NULL: the changed rows, capped;
 * the file names are set here); *json (when json is non-NULL; caller frees):
 * the diff for machines (gm_diff_to_json) with the exit code the command
 * gives (1 on a failed gate unless warn_only, else 0); *fail: what the gate
 * says.  GM_ERR_VALUE
 * when the history holds nothing of that device and settings. */
#define GM_GATE_POOL 5
gm_status gm_history_gate(gm_history *h, const gm_results *head, const char *head_name,
                          const gm_diff_options *opts, const gm_diff_render *render,
                          bool warn_only, char **md, char **json, bool *fail, gm_error *err);

#endif
