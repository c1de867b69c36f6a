/* history_private.h — what the files behind history.h share; for them only.
 *
 *   history_store.c    the SQLite file: open, schema and migrations, add,
 *                      counts; the statement helpers; the results read back
 *                      in commit order
 *   history_series.c   change points; the layouts of an experiment over
 *                      commit order and the steps found in them; the gate
 *   history_page.c     the trend report (Markdown, HTML with gnuplot
 *                      charts) and the CSV export
 */
#ifndef GM_HISTORY_PRIVATE_H
#define GM_HISTORY_PRIVATE_H

#include "history.h"

#include "../core/buf.h"

#include <sqlite3.h>

#include <stdbool.h>
#include <stddef.h>

struct gm_history {
    sqlite3 *db;
    char *path;
};

/* ---- statements (history_store.c) ---------------------------------------- */

/* A failed SQLite call on h, named (GM_ERR_IO). */
gm_status gmh_fail_db(gm_history *h, gm_error *err, const char *what);
/* Prepare fixed SQL (outside text goes through bind parameters); *st NULL on failure. */
gm_status gmh_prepare(gm_history *h, const char *sql, sqlite3_stmt **st, gm_error *err);
/* Bind helpers: false on failure (the caller reports through gmh_fail_db). */
bool gmh_bind_text(sqlite3_stmt *st, int i, const char *s);
bool gmh_bind_int(sqlite3_stmt *st, int i, long long v);
/* Column i as a copy ("" for NULL; caller frees). */
char *gmh_col_text(sqlite3_stmt *st, int i);

/* ---- the results in commit order (history_store.c) ----------------------- */

typedef struct {
    long long id;
    char *commit, *taken_at, *device, *driver, *settings;
    int dirty;
    long long ctime;   /* -1: unknown */
    /* When another results file of the group has the same commit, dirty
     * flag and taken_at (the GPUs of one node, collected at once): what
     * tells this one apart, its device's UUID cut to "GPU-" and 8 digits,
     * else its process ("pid N"), else its row; NULL otherwise. */
    char *twin;
} gmh_res;

typedef struct {
    gmh_res *v;
    size_t n;
} gmh_resv;

/* The results of device (NULL: every device), grouped by device and
 * settings, each group in commit order (commit time, else taken_at). */
gm_status gmh_load_results(gm_history *h, const char *device, gmh_resv *out,
                               gm_error *err);
void gmh_resv_free(gmh_resv *r);

/* ---- one experiment over commit order (history_series.c) ----------------- */

/* The key counters of the trend report, after the median time (GM_DIFF_TIME). */
#define GMH_NKEY ((size_t)8)
extern const char *const gmh_key_metrics[GMH_NKEY];

/* One layout of an experiment over the points of a group. */
typedef struct {
    char *variant, *params;
    long long *run;   /* per point: runs.id, or -1 */
} gmh_series;

typedef struct {
    char *exp;
    gmh_series *s;
    size_t n;
} gmh_exp;

typedef struct {
    size_t series, metric, point;
    double before, after;
    bool exact;
} gmh_step;

/* A source line whose excess changed between two consecutive commits with
 * per-line counts (of one layout). */
typedef struct {
    size_t series, point, prev;   /* the commit, and the one it is compared with */
    char *params;                 /* of the run with per-line counts (may differ from the series') */
    char *loc, *text;
    char *from;                   /* where the line was before, when it is labelled otherwise
                                     there (it moved); NULL else */
    long long xs[2], xw[2];       /* excess sectors, excess wavefronts: before, after */
} gmh_lstep;

/* One experiment of one group: its values per series, metric and point, and
 * the steps found in them. */
typedef struct {
    gmh_exp e;
    double *v;                    /* [series][metric][point] */
    bool used[GMH_NKEY];      /* a metric with some non-zero value */
    gmh_step *steps;
    size_t n_steps;
    gmh_lstep *lsteps;        /* source lines whose excess changed, by commit */
    size_t n_lsteps;
    size_t n_lpoints;             /* (series, commit) pairs with per-line counts */
    gmh_step *gates;          /* where a layout's times start or stop being taken behind
                                     the launch gate (series, point; after: 1 gated from
                                     here, 0 not) */
    size_t n_gates;
} gmh_table;

#define GMH_V(t, s, m, p, n) ((t)->v[((s) * GMH_NKEY + (m)) * (n) + (p)])

/* Experiment exp over the points res[0..n) of one group: its layouts, their
 * key values, the steps and launch-gate changes in them, the source lines
 * whose excess changed (steps unsorted).  Free t with gmh_table_free,
 * also on failure. */
gm_status gmh_table_load(gm_history *h, const gmh_res *res, size_t n, const char *exp,
                             gmh_table *t, gm_error *err);
void gmh_table_free(gmh_table *t);

/* ---- Markdown the gate shares with the report (history_page.c) ----------- */

/* A commit: its first 12 characters as code, " (dirty)" for a dirty tree. */
void gmh_md_commit(gm_buf *b, const gmh_res *r);
/* When: the commit's time in UTC, else "taken" and when the run was taken. */
void gmh_md_when(gm_buf *b, const gmh_res *r);

#endif
