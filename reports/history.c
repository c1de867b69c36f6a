/* history.c — runs kept in SQLite, trends over commits, the gate against the
 * history, CSV (history.h).
 *
 * Sections: the database (open, schema and migrations, add), change points,
 * reading series, the report (Markdown and HTML with gnuplot charts), the
 * gate, the export.
 */
#include "history.h"

#include "charts.h"

#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/output.h"
#include "../core/srclines.h"

#include <sqlite3.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gm_history {
    sqlite3 *db;
    char *path;
};

/* ======================================================================== */
/* The database                                                             */
/* ======================================================================== */

static gm_status S_fail_db(gm_history *h, gm_error *err, const char *what)
{
    return gm_fail(err, GM_ERR_IO, "%s: %s: %s (SQLite error %d)", h->path, what,
                   sqlite3_errmsg(h->db), sqlite3_extended_errcode(h->db));
}

/* Fixed SQL only (no outside text: that goes through bind parameters). */
static gm_status S_exec(gm_history *h, const char *sql, gm_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        gm_status s = gm_fail(err, GM_ERR_IO, "%s: %s (SQLite error %d, in: %.80s)", h->path,
                              msg ? msg : sqlite3_errmsg(h->db),
                              sqlite3_extended_errcode(h->db), sql);
        sqlite3_free(msg);
        return s;
    }
    return GM_OK;
}

static gm_status S_prepare(gm_history *h, const char *sql, sqlite3_stmt **st, gm_error *err)
{
    if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return S_fail_db(h, err, "preparing a statement");
    }
    return GM_OK;
}

/* Bind helpers: false on failure (the caller reports through S_fail_db). */
static bool S_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return (s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i)) ==
           SQLITE_OK;
}

static bool S_bind_int(sqlite3_stmt *st, int i, long long v)
{
    return sqlite3_bind_int64(st, i, (sqlite3_int64)v) == SQLITE_OK;
}

static bool S_bind_real(sqlite3_stmt *st, int i, double v)
{
    return (isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i)) == SQLITE_OK;
}

static bool S_bind_value(sqlite3_stmt *st, int i, const gm_value *v)
{
    switch (v->kind) {
    case GM_V_INT: return S_bind_int(st, i, v->i);
    case GM_V_REAL: return S_bind_real(st, i, v->r);
    case GM_V_STR: return S_bind_text(st, i, v->s);
    case GM_V_ABSENT: break;
    }
    return sqlite3_bind_null(st, i) == SQLITE_OK;
}

/* One statement run to completion (no rows expected). */
static gm_status S_step_done(gm_history *h, sqlite3_stmt *st, const char *what, gm_error *err)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        return S_fail_db(h, err, what);
    if (sqlite3_reset(st) != SQLITE_OK || sqlite3_clear_bindings(st) != SQLITE_OK)
        return S_fail_db(h, err, what);
    return GM_OK;
}

static const char *const S_migrations[GM_HISTORY_SCHEMA] = {
    /* 0 -> 1 */
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE results("
    " id INTEGER PRIMARY KEY,"
    " commit_id TEXT NOT NULL, dirty INTEGER NOT NULL, commit_time INTEGER,"
    " taken_at TEXT NOT NULL, device TEXT NOT NULL, driver TEXT NOT NULL,"
    " settings TEXT NOT NULL, tool_version TEXT, source TEXT, added_at TEXT NOT NULL,"
    " json TEXT NOT NULL,"
    " UNIQUE(commit_id, dirty, taken_at, device, driver, settings));"
    "CREATE TABLE runs("
    " id INTEGER PRIMARY KEY, result_id INTEGER NOT NULL REFERENCES results(id),"
    " experiment TEXT NOT NULL, variant TEXT NOT NULL, params TEXT NOT NULL,"
    " check_status TEXT NOT NULL, median_ms REAL,"
    " UNIQUE(result_id, experiment, variant, params));"
    "CREATE TABLE samples(run_id INTEGER NOT NULL REFERENCES runs(id), i INTEGER NOT NULL,"
    " ms REAL NOT NULL, PRIMARY KEY(run_id, i));"
    "CREATE TABLE metrics(run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,"
    " value, unit TEXT, PRIMARY KEY(run_id, name));"
    "INSERT INTO meta(key, value) VALUES('schema', 'gpumem-report/history');",
    /* 1 -> 2 */
    "CREATE INDEX runs_by_experiment ON runs(experiment, variant, params);"
    "CREATE INDEX results_by_device ON results(device, settings, commit_time);",
    /* 2 -> 3 (then S_backfill fills it from the stored JSON) */
    "ALTER TABLE runs ADD COLUMN lines_status TEXT;"
    "CREATE TABLE lines(run_id INTEGER NOT NULL REFERENCES runs(id), loc TEXT NOT NULL,"
    " file TEXT, line INTEGER NOT NULL, function TEXT, pc INTEGER, text TEXT, sass TEXT,"
    " inst_executed INTEGER NOT NULL, global_ld INTEGER NOT NULL, global_st INTEGER NOT NULL,"
    " shared_ld INTEGER NOT NULL, shared_st INTEGER NOT NULL, sectors INTEGER NOT NULL,"
    " sectors_ideal INTEGER NOT NULL, wavefronts INTEGER NOT NULL,"
    " wavefronts_ideal INTEGER NOT NULL, PRIMARY KEY(run_id, loc));",
    /* 3 -> 4 (then S_backfill marks the stored runs that were gated) */
    "ALTER TABLE runs ADD COLUMN gated INTEGER NOT NULL DEFAULT 0;",
};

int gm_history_schema_version(gm_history *h)
{
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(h->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

static gm_status S_backfill(gm_history *h, int version, gm_error *err);

/* Bring the schema up to date, one step per transaction; BEGIN IMMEDIATE so
 * that two processes opening a new file do not both create the tables. */
static gm_status S_migrate(gm_history *h, gm_error *err)
{
    for (;;) {
        gm_status s = S_exec(h, "BEGIN IMMEDIATE", err);
        if (s != GM_OK)
            return s;
        int v = gm_history_schema_version(h);
        if (v < 0) {
            S_exec(h, "ROLLBACK", NULL);
            return S_fail_db(h, err, "reading the schema version");
        }
        if (v == GM_HISTORY_SCHEMA)
            return S_exec(h, "COMMIT", err);
        if (v > GM_HISTORY_SCHEMA) {
            S_exec(h, "ROLLBACK", NULL);
            return gm_fail(err, GM_ERR_VALUE,
                           "%s: history schema version %d is newer than this gpumem-report "
                           "reads (%d): use a newer gpumem-report", h->path, v,
                           GM_HISTORY_SCHEMA);
        }
        if (v == 0) {
            /* a new file has no table; an old file of something else has some */
            sqlite3_stmt *q = NULL;
            int n = -1;
            if (sqlite3_prepare_v2(h->db, "SELECT count(*) FROM sqlite_master", -1, &q, NULL) ==
                    SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
                n = sqlite3_column_int(q, 0);
            sqlite3_finalize(q);
            if (n != 0) {
                S_exec(h, "ROLLBACK", NULL);
                return n < 0 ? S_fail_db(h, err, "reading the schema")
                             : gm_fail(err, GM_ERR_VALUE,
                                       "%s: not a gpumem-report history database (it holds "
                                       "%d tables and no schema version)", h->path, n);
            }
        }
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v + 1);
        if ((s = S_exec(h, S_migrations[v], err)) != GM_OK ||
            ((v + 1 == 3 || v + 1 == 4) && (s = S_backfill(h, v + 1, err)) != GM_OK) ||
            (s = S_exec(h, pragma, err)) != GM_OK || (s = S_exec(h, "COMMIT", err)) != GM_OK) {
            S_exec(h, "ROLLBACK", NULL);
            return s;
        }
    }
}

gm_status gm_history_open(const char *path, bool create, gm_history **out, gm_error *err)
{
    *out = NULL;
    gm_history *h = gm_xcalloc(1, sizeof *h);
    h->path = gm_xstrdup(path);
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK) {
        gm_status s = h->db ? S_fail_db(h, err, "cannot open")
                            : gm_fail(err, GM_ERR_NOMEM, "%s: SQLite: out of memory", path);
        gm_history_close(h);
        return s;
    }
    gm_status s = GM_OK;
    if (sqlite3_extended_result_codes(h->db, 1) != SQLITE_OK ||
        sqlite3_busy_timeout(h->db, GM_HISTORY_BUSY_MS) != SQLITE_OK)
        s = S_fail_db(h, err, "setting up the connection");
    /* WAL: readers do not block the writer, and a crash mid-add leaves the
     * last committed state; foreign keys checked. */
    if (s == GM_OK)
        s = S_exec(h, "PRAGMA foreign_keys = ON", err);
    if (s == GM_OK) {
        sqlite3_stmt *st = NULL;
        if ((s = S_prepare(h, "PRAGMA journal_mode = WAL", &st, err)) == GM_OK &&
            sqlite3_step(st) != SQLITE_ROW)
            s = S_fail_db(h, err, "switching to WAL");
        sqlite3_finalize(st);
    }
    if (s == GM_OK)
        s = S_migrate(h, err);
    if (s != GM_OK) {
        gm_history_close(h);
        return s;
    }
    *out = h;
    return GM_OK;
}

void gm_history_close(gm_history *h)
{
    if (!h)
        return;
    sqlite3_close(h->db);   /* every statement is finalized by then */
    free(h->path);
    free(h);
}

char *gm_history_settings(const gm_results *r)
{
    const gm_collection *c = &r->collection;
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "sizes=%s; l2_flush=%s; clocks=%s; warmup=%d; repetitions=%d; metrics=",
                  c->size_set ? c->size_set : "unknown", c->cache_flush ? "on" : "off",
                  c->clock_control ? c->clock_control : "unknown", c->timing_warmup,
                  c->timing_repetitions);
    for (size_t i = 0; i < c->n_metrics; i++)
        gm_buf_printf(&b, "%s%s", i ? "," : "", c->metrics[i] ? c->metrics[i] : "");
    return gm_buf_detach(&b);
}

static char *S_now_utc(void)
{
    time_t t = time(NULL);
    struct tm tm;
    char s[32] = "unknown";
    if (gmtime_r(&t, &tm))
        strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return gm_xstrdup(s);
}

/* The per-line counts of one run, keyed by where the line is (file base
 * name and line, or function and PC): two lines of files of one base name
 * are summed (their counts still add up to the kernel's). */
static gm_status S_add_lines(gm_history *h, long long run_id, const gm_srclines *sl,
                             gm_error *err)
{
    if (!sl->present || sl->n_lines == 0)
        return GM_OK;
    sqlite3_stmt *st = NULL;
    gm_status s = S_prepare(h,
        "INSERT INTO lines(run_id, loc, file, line, function, pc, text, sass, inst_executed,"
        " global_ld, global_st, shared_ld, shared_st, sectors, sectors_ideal, wavefronts,"
        " wavefronts_ideal) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
        " ?15, ?16, ?17) ON CONFLICT(run_id, loc) DO UPDATE SET"
        " inst_executed = inst_executed + excluded.inst_executed,"
        " global_ld = global_ld + excluded.global_ld, global_st = global_st + excluded.global_st,"
        " shared_ld = shared_ld + excluded.shared_ld, shared_st = shared_st + excluded.shared_st,"
        " sectors = sectors + excluded.sectors,"
        " sectors_ideal = sectors_ideal + excluded.sectors_ideal,"
        " wavefronts = wavefronts + excluded.wavefronts,"
        " wavefronts_ideal = wavefronts_ideal + excluded.wavefronts_ideal", &st, err);
    for (size_t i = 0; i < sl->n_lines && s == GM_OK; i++) {
        const gm_srcline *l = &sl->lines[i];
        char where[512];
        gm_srcline_where(l, where, sizeof where);
        bool ok = S_bind_int(st, 1, run_id) && S_bind_text(st, 2, where) &&
                  S_bind_text(st, 3, l->file) && S_bind_int(st, 4, l->line) &&
                  S_bind_text(st, 5, l->function) &&
                  (l->line > 0 ? sqlite3_bind_null(st, 6) == SQLITE_OK
                               : S_bind_int(st, 6, l->pc)) &&
                  S_bind_text(st, 7, l->text) && S_bind_text(st, 8, l->sass);
        for (int k = 0; k < GM_SL_N && ok; k++)
            ok = S_bind_int(st, 9 + k, l->count[k]);
        s = ok ? S_step_done(h, st, "storing a source line", err)
               : S_fail_db(h, err, "binding a source line");
    }
    sqlite3_finalize(st);
    return s;
}

/* Migration 2 -> 3: the per-line counts of the runs already stored, from
 * each results file's JSON (kept whole), inside the migration's
 * transaction. */
/* What a migration adds to the rows of runs already stored, from each stored
 * results file: version 3 the per-line counts, version 4 the launch gate. */
static gm_status S_backfill(gm_history *h, int version, gm_error *err)
{
    sqlite3_stmt *js = NULL, *run = NULL, *upd = NULL;
    gm_status s;
    if ((s = S_prepare(h, "SELECT id, json FROM results ORDER BY id", &js, err)) != GM_OK ||
        (s = S_prepare(h, "SELECT id FROM runs WHERE result_id = ?1 AND experiment = ?2 AND "
                          "variant = ?3 AND params = ?4", &run, err)) != GM_OK ||
        (s = S_prepare(h, version == 3 ? "UPDATE runs SET lines_status = ?2 WHERE id = ?1"
                                       : "UPDATE runs SET gated = 1 WHERE id = ?1", &upd,
                       err)) != GM_OK)
        goto done;
    int rc = SQLITE_DONE;
    while (s == GM_OK && (rc = sqlite3_step(js)) == SQLITE_ROW) {
        long long rid = (long long)sqlite3_column_int64(js, 0);
        const unsigned char *text = sqlite3_column_text(js, 1);
        char name[600];
        snprintf(name, sizeof name, "%.500s: stored results file %lld", h->path, rid);
        gm_results r;
        if ((s = gm_results_read_string(text ? (const char *)text : "", name, &r, err)) != GM_OK)
            break;
        for (size_t i = 0; i < r.n_runs && s == GM_OK; i++) {
            const gm_run *u = &r.runs[i];
            if (version == 3 ? !u->source_lines.present : !u->timing.gated)
                continue;
            gm_buf pt = GM_BUF_INIT;
            gm_diff_params_text(&pt, u);
            bool ok = S_bind_int(run, 1, rid) &&
                      S_bind_text(run, 2, u->experiment ? u->experiment : "") &&
                      S_bind_text(run, 3, u->variant ? u->variant : "") &&
                      S_bind_text(run, 4, pt.data ? pt.data : "");
            gm_buf_free(&pt);
            if (!ok) {
                s = S_fail_db(h, err, "binding a run");
                break;
            }
            int r2 = sqlite3_step(run);
            long long run_id = r2 == SQLITE_ROW ? (long long)sqlite3_column_int64(run, 0) : -1;
            if ((r2 != SQLITE_ROW && r2 != SQLITE_DONE) || sqlite3_reset(run) != SQLITE_OK) {
                s = S_fail_db(h, err, "finding a run");
                break;
            }
            if (run_id < 0)
                continue;
            if (!S_bind_int(upd, 1, run_id) ||
                (version == 3 && !S_bind_text(upd, 2, u->source_lines.status)))
                s = S_fail_db(h, err, "binding a run");
            else
                s = S_step_done(h, upd, "marking a stored run", err);
            if (s == GM_OK && version == 3)
                s = S_add_lines(h, run_id, &u->source_lines, err);
        }
        gm_results_free(&r);
    }
    if (s == GM_OK && rc != SQLITE_DONE)
        s = S_fail_db(h, err, "reading the stored results");
done:
    sqlite3_finalize(js);
    sqlite3_finalize(run);
    sqlite3_finalize(upd);
    return s;
}

static gm_status S_add_runs(gm_history *h, const gm_results *r, long long rid, gm_error *err)
{
    sqlite3_stmt *run = NULL, *smp = NULL, *met = NULL;
    gm_status s;
    if ((s = S_prepare(h, "INSERT INTO runs(result_id, experiment, variant, params, "
                          "check_status, median_ms, lines_status, gated) "
                          "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                       &run, err)) != GM_OK ||
        (s = S_prepare(h, "INSERT INTO samples(run_id, i, ms) VALUES(?1, ?2, ?3)", &smp, err)) !=
            GM_OK ||
        (s = S_prepare(h, "INSERT INTO metrics(run_id, name, value, unit) VALUES(?1, ?2, ?3, ?4)",
                       &met, err)) != GM_OK)
        goto done;
    for (size_t i = 0; i < r->n_runs && s == GM_OK; i++) {
        const gm_run *u = &r->runs[i];
        gm_buf pt = GM_BUF_INIT;
        gm_diff_params_text(&pt, u);
        bool ok = S_bind_int(run, 1, rid) && S_bind_text(run, 2, u->experiment ? u->experiment : "") &&
                  S_bind_text(run, 3, u->variant ? u->variant : "") &&
                  S_bind_text(run, 4, pt.data ? pt.data : "") &&
                  S_bind_text(run, 5, gm_check_status_name(u->check.status)) &&
                  S_bind_real(run, 6, u->timing.present ? u->timing.median : NAN) &&
                  S_bind_text(run, 7, u->source_lines.present ? u->source_lines.status : NULL) &&
                  S_bind_int(run, 8, u->timing.present && u->timing.gated);
        gm_buf_free(&pt);
        if (!ok) {
            s = S_fail_db(h, err, "binding a run");
            break;
        }
        if ((s = S_step_done(h, run, "storing a run", err)) != GM_OK)
            break;
        long long run_id = (long long)sqlite3_last_insert_rowid(h->db);
        for (size_t k = 0; u->timing.samples && k < u->timing.n && s == GM_OK; k++) {
            if (!S_bind_int(smp, 1, run_id) || !S_bind_int(smp, 2, (long long)k) ||
                !S_bind_real(smp, 3, u->timing.samples[k]))
                s = S_fail_db(h, err, "binding a sample");
            else
                s = S_step_done(h, smp, "storing a sample", err);
        }
        for (size_t k = 0; k < u->n_metrics && s == GM_OK; k++) {
            const gm_metric *m = &u->metrics[k];
            if (!S_bind_int(met, 1, run_id) || !S_bind_text(met, 2, m->name ? m->name : "") ||
                !S_bind_value(met, 3, &m->value) || !S_bind_text(met, 4, m->unit))
                s = S_fail_db(h, err, "binding a metric");
            else
                s = S_step_done(h, met, "storing a metric", err);
        }
        if (s == GM_OK)
            s = S_add_lines(h, run_id, &u->source_lines, err);
    }
done:
    sqlite3_finalize(run);
    sqlite3_finalize(smp);
    sqlite3_finalize(met);
    return s;
}

gm_status gm_history_add(gm_history *h, const gm_results *r, const char *json,
                         long long commit_time, const char *source, bool *added, gm_error *err)
{
    *added = false;
    char *settings = gm_history_settings(r), *now = S_now_utc();
    sqlite3_stmt *st = NULL;
    gm_status s = S_exec(h, "BEGIN IMMEDIATE", err);
    if (s != GM_OK)
        goto out;
    if ((s = S_prepare(h, "INSERT INTO results(commit_id, dirty, commit_time, taken_at, device, "
                          "driver, settings, tool_version, source, added_at, json) "
                          "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
                          "ON CONFLICT DO NOTHING",
                       &st, err)) != GM_OK)
        goto rollback;
    if (!S_bind_text(st, 1, r->commit ? r->commit : "unknown") || !S_bind_int(st, 2, r->dirty) ||
        !(commit_time >= 0 ? S_bind_int(st, 3, commit_time) : sqlite3_bind_null(st, 3) == SQLITE_OK) ||
        !S_bind_text(st, 4, r->taken_at ? r->taken_at : "unknown") ||
        !S_bind_text(st, 5, r->device.name ? r->device.name : "unknown GPU") ||
        !S_bind_text(st, 6, r->device.driver_version ? r->device.driver_version : "unknown") ||
        !S_bind_text(st, 7, settings) || !S_bind_text(st, 8, r->tool_version) ||
        !S_bind_text(st, 9, source) || !S_bind_text(st, 10, now) || !S_bind_text(st, 11, json)) {
        s = S_fail_db(h, err, "binding a results file");
        goto rollback;
    }
    if ((s = S_step_done(h, st, "storing a results file", err)) != GM_OK)
        goto rollback;
    if (sqlite3_changes(h->db) == 0) {   /* there already: nothing to do */
        s = S_exec(h, "COMMIT", err);
        goto out;
    }
    long long rid = (long long)sqlite3_last_insert_rowid(h->db);
    if ((s = S_add_runs(h, r, rid, err)) != GM_OK)
        goto rollback;
    if ((s = S_exec(h, "COMMIT", err)) != GM_OK)
        goto rollback;
    *added = true;
    goto out;
rollback:
    S_exec(h, "ROLLBACK", NULL);
out:
    sqlite3_finalize(st);
    free(settings);
    free(now);
    return s;
}

static gm_status S_count(gm_history *h, const char *sql, long long *n, gm_error *err)
{
    sqlite3_stmt *st = NULL;
    gm_status s = S_prepare(h, sql, &st, err);
    if (s == GM_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            *n = (long long)sqlite3_column_int64(st, 0);
        else
            s = S_fail_db(h, err, "counting");
    }
    sqlite3_finalize(st);
    return s;
}

gm_status gm_history_counts(gm_history *h, long long *results, long long *runs,
                            long long *samples, long long *metrics, gm_error *err)
{
    gm_status s;
    if ((s = S_count(h, "SELECT count(*) FROM results", results, err)) != GM_OK ||
        (s = S_count(h, "SELECT count(*) FROM runs", runs, err)) != GM_OK ||
        (s = S_count(h, "SELECT count(*) FROM samples", samples, err)) != GM_OK)
        return s;
    return S_count(h, "SELECT count(*) FROM metrics", metrics, err);
}

/* ======================================================================== */
/* Change points                                                            */
/* ======================================================================== */

size_t gm_steps_exact(const double *v, size_t n, size_t *steps)
{
    size_t k = 0;
    double last = NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        if (!isnan(last) && v[i] != last)
            steps[k++] = i;
        last = v[i];
    }
    return k;
}

static int S_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double S_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *t = gm_xmalloc(n * sizeof *t);
    memcpy(t, v, n * sizeof *t);
    qsort(t, n, sizeof *t, S_dcmp);
    double m = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    free(t);
    return m;
}

/* How far a change at mid (segments [lo, mid) and [mid, hi) of the present
 * points x) is beyond what it must reach: >= 1 passes.  The segments'
 * medians must differ by min_rel, min_abs and GM_STEP_SIGMAS standard errors
 * of the difference of two segment levels (noise sd_abs per point); with
 * samples, a Mann–Whitney test of up to 3 points each side must give
 * p < GM_STEP_ALPHA (else 0). */
static double S_step_score(const double *x, const size_t *at, size_t lo, size_t mid, size_t hi,
                           double sd_abs, double min_rel, double min_abs,
                           const double *const *samples, const size_t *n_samples)
{
    double before = S_median(x + lo, mid - lo), after = S_median(x + mid, hi - mid);
    double diff = fabs(after - before);
    double se = sd_abs * sqrt(1.0 / (double)(mid - lo) + 1.0 / (double)(hi - mid));
    double need = fmax(fmax(min_abs, min_rel * fabs(before)), GM_STEP_SIGMAS * se);
    if (diff == 0)
        return 0;
    double score = need > 0 ? diff / need : INFINITY;
    if (score < 1.0 || !samples || !n_samples)
        return score;
    size_t nbs = 0, nas = 0;
    for (size_t p = mid - (mid - lo > 3 ? 3 : mid - lo); p < mid; p++)
        nbs += samples[at[p]] ? n_samples[at[p]] : 0;
    for (size_t p = mid; p < mid + (hi - mid > 3 ? 3 : hi - mid); p++)
        nas += samples[at[p]] ? n_samples[at[p]] : 0;
    if (!nbs || !nas)
        return score;
    double *bs = gm_xmalloc(nbs * sizeof *bs), *as = gm_xmalloc(nas * sizeof *as);
    size_t i = 0;
    for (size_t p = mid - (mid - lo > 3 ? 3 : mid - lo); p < mid; p++)
        for (size_t q = 0; samples[at[p]] && q < n_samples[at[p]]; q++)
            bs[i++] = samples[at[p]][q];
    i = 0;
    for (size_t p = mid; p < mid + (hi - mid > 3 ? 3 : hi - mid); p++)
        for (size_t q = 0; samples[at[p]] && q < n_samples[at[p]]; q++)
            as[i++] = samples[at[p]][q];
    gm_mwu t = gm_mann_whitney(bs, nbs, as, nas);
    free(bs);
    free(as);
    return t.p < GM_STEP_ALPHA ? score : 0;
}

size_t gm_steps_noisy(const double *v, size_t n, double min_rel, double min_abs,
                      const double *const *samples, const size_t *n_samples, size_t *steps)
{
    /* the present points, in order */
    size_t m = 0, *at = gm_xmalloc((n ? n : 1) * sizeof *at);
    double *x = gm_xmalloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            at[m] = i, x[m++] = v[i];
    size_t k = 0;
    if (m < 2)
        goto out;
    /* relative to the series' level, so that sigma and the penalty are too */
    double scale = fabs(S_median(x, m));
    if (!(scale > 0)) {
        for (size_t i = 0; i < m; i++)
            scale = fmax(scale, fabs(x[i]));
        if (!(scale > 0))
            goto out;   /* all zero */
    }
    double *y = gm_xmalloc(m * sizeof *y), *d = gm_xmalloc(m * sizeof *d);
    for (size_t i = 0; i < m; i++)
        y[i] = x[i] / scale;
    for (size_t i = 1; i < m; i++)
        d[i - 1] = fabs(y[i] - y[i - 1]);
    /* noise: the median absolute successive difference, which a few steps do
     * not move, times 1.4826 (normal consistency) / sqrt 2 (a difference of
     * two points has twice the variance); at least 0.1 % of the level */
    double sigma = fmax(1.4826 * S_median(d, m - 1) / sqrt(2.0), 1e-3);
    double beta = GM_STEP_PENALTY * sigma * sigma * log((double)m);

    /* optimal partitioning: F[i] = min over j of F[j] + cost(j, i) + beta,
     * segments of at least 2 points except the last (a change at the newest
     * commit is seen at once) */
    double *F = gm_xmalloc((m + 1) * sizeof *F), *s1 = gm_xmalloc((m + 1) * sizeof *s1),
           *s2 = gm_xmalloc((m + 1) * sizeof *s2);
    size_t *prev = gm_xmalloc((m + 1) * sizeof *prev);
    s1[0] = s2[0] = 0;
    for (size_t i = 0; i < m; i++)
        s1[i + 1] = s1[i] + y[i], s2[i + 1] = s2[i] + y[i] * y[i];
    F[0] = -beta;
    for (size_t i = 1; i <= m; i++) {
        F[i] = INFINITY;
        prev[i] = 0;
        for (size_t j = 0; j < i; j++) {
            if (i - j < 2 && i != m)
                continue;
            if (j > 0 && !isfinite(F[j]))
                continue;
            double len = (double)(i - j), sum = s1[i] - s1[j];
            double cost = (s2[i] - s2[j]) - sum * sum / len;
            double f = F[j] + cost + beta;
            if (f < F[i])
                F[i] = f, prev[i] = j;
        }
    }
    /* the boundaries, oldest first */
    size_t nb = 0, *b = gm_xmalloc((m + 2) * sizeof *b);
    for (size_t i = m; i > 0; i = prev[i])
        b[nb++] = i;
    b[nb++] = 0;
    for (size_t i = 0; i < nb / 2; i++) {
        size_t t = b[i];
        b[i] = b[nb - 1 - i];
        b[nb - 1 - i] = t;
    }
    /* b[0] = 0 < b[1] < ... < b[nb-1] = m: drop the weakest change that is
     * not large enough, compare its neighbours again, until all are */
    for (;;) {
        size_t worst = 0;
        double worst_score = INFINITY;
        for (size_t q = 1; q + 1 < nb; q++) {
            double sc = S_step_score(x, at, b[q - 1], b[q], b[q + 1], sigma * scale, min_rel,
                                     min_abs, samples, n_samples);
            if (sc < 1.0 && sc < worst_score)
                worst = q, worst_score = sc;
        }
        if (worst == 0)
            break;
        memmove(&b[worst], &b[worst + 1], (nb - worst - 1) * sizeof *b);
        nb--;
    }
    for (size_t q = 1; q + 1 < nb; q++)
        steps[k++] = at[b[q]];
    free(b);
    free(F);
    free(s1);
    free(s2);
    free(prev);
    free(y);
    free(d);
out:
    free(at);
    free(x);
    return k;
}

/* ======================================================================== */
/* Reading series                                                           */
/* ======================================================================== */

typedef struct {
    long long id;
    char *commit, *taken_at, *device, *driver, *settings;
    int dirty;
    long long ctime;   /* -1: unknown */
} S_res;

typedef struct {
    S_res *v;
    size_t n;
} S_resv;

static char *S_col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return gm_xstrdup(t ? (const char *)t : "");
}

static void S_resv_free(S_resv *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].commit);
        free(r->v[i].taken_at);
        free(r->v[i].device);
        free(r->v[i].driver);
        free(r->v[i].settings);
    }
    free(r->v);
    r->v = NULL;
    r->n = 0;
}

/* The results, grouped by device and settings, each group in commit order
 * (commit time, else taken_at). */
static gm_status S_load_results(gm_history *h, const char *device, S_resv *out, gm_error *err)
{
    out->v = NULL;
    out->n = 0;
    sqlite3_stmt *st = NULL;
    gm_status s = S_prepare(h,
        "SELECT id, commit_id, dirty, commit_time, taken_at, device, driver, settings "
        "FROM results WHERE (?1 IS NULL OR device = ?1) ORDER BY device, settings, "
        "COALESCE(commit_time, CAST(strftime('%s', taken_at) AS INTEGER)), taken_at, id",
        &st, err);
    if (s != GM_OK)
        return s;
    if (!S_bind_text(st, 1, device)) {
        sqlite3_finalize(st);
        return S_fail_db(h, err, "binding the device");
    }
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 16;
            out->v = gm_xrealloc(out->v, cap * sizeof *out->v);
        }
        S_res *r = &out->v[out->n++];
        r->id = (long long)sqlite3_column_int64(st, 0);
        r->commit = S_col_text(st, 1);
        r->dirty = sqlite3_column_int(st, 2);
        r->ctime = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1
                                                             : (long long)sqlite3_column_int64(st, 3);
        r->taken_at = S_col_text(st, 4);
        r->device = S_col_text(st, 5);
        r->driver = S_col_text(st, 6);
        r->settings = S_col_text(st, 7);
    }
    if (rc != SQLITE_DONE)
        s = S_fail_db(h, err, "reading the results");
    sqlite3_finalize(st);
    if (s != GM_OK)
        S_resv_free(out);
    return s;
}

static bool S_same_group(const S_res *a, const S_res *b)
{
    return strcmp(a->device, b->device) == 0 && strcmp(a->settings, b->settings) == 0;
}

/* Is `exp` in the comma-separated list (NULL: every experiment)? */
static bool S_listed(const char *list, const char *exp)
{
    if (!list)
        return true;
    size_t n = strlen(exp);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, exp, n) == 0)
            return true;
        p += len + (e != NULL);
    }
    return false;
}

/* One layout of an experiment over the points of a group. */
typedef struct {
    char *variant, *params;
    long long *run;   /* per point: runs.id, or -1 */
} S_series;

typedef struct {
    char *exp;
    S_series *s;
    size_t n;
} S_exp;

static void S_exp_free(S_exp *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->s[i].variant);
        free(e->s[i].params);
        free(e->s[i].run);
    }
    free(e->s);
    free(e->exp);
}

typedef struct {
    long long id;
    size_t point;
    char *variant, *params;
    double median;
} S_row;

static int S_row_cmp(const void *a, const void *b)
{
    const S_row *x = a, *y = b;
    int c = strcmp(x->variant, y->variant);
    return c ? c : strcmp(x->params, y->params);
}

/* The layouts of one experiment over the points res[0..n): per variant, the
 * parameter set found in the most points (ties: the slowest, i.e. the
 * largest problem). */
static gm_status S_load_exp(gm_history *h, const S_res *res, size_t n, const char *exp,
                            S_exp *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    out->exp = gm_xstrdup(exp);
    sqlite3_stmt *st = NULL;
    gm_status s = S_prepare(h, "SELECT id, variant, params, median_ms FROM runs "
                               "WHERE result_id = ?1 AND experiment = ?2", &st, err);
    if (s != GM_OK)
        return s;
    S_row *rows = NULL;
    size_t nr = 0, cap = 0;
    for (size_t p = 0; p < n && s == GM_OK; p++) {
        if (!S_bind_int(st, 1, res[p].id) || !S_bind_text(st, 2, exp)) {
            s = S_fail_db(h, err, "binding an experiment");
            break;
        }
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            if (nr == cap) {
                cap = cap ? 2 * cap : 64;
                rows = gm_xrealloc(rows, cap * sizeof *rows);
            }
            S_row *r = &rows[nr++];
            r->id = (long long)sqlite3_column_int64(st, 0);
            r->point = p;
            r->variant = S_col_text(st, 1);
            r->params = S_col_text(st, 2);
            r->median = sqlite3_column_type(st, 3) == SQLITE_NULL ? NAN
                                                                  : sqlite3_column_double(st, 3);
        }
        if (rc != SQLITE_DONE || sqlite3_reset(st) != SQLITE_OK)
            s = S_fail_db(h, err, "reading runs");
    }
    sqlite3_finalize(st);
    if (nr)
        qsort(rows, nr, sizeof *rows, S_row_cmp);
    /* runs of one variant are adjacent, and within it those of one params */
    for (size_t i = 0; s == GM_OK && i < nr;) {
        size_t j = i;
        while (j < nr && strcmp(rows[j].variant, rows[i].variant) == 0)
            j++;
        size_t best = i, best_n = 0;
        double best_med = -1;
        for (size_t a = i; a < j;) {
            size_t b = a;
            double med = -1;
            while (b < j && strcmp(rows[b].params, rows[a].params) == 0) {
                if (isfinite(rows[b].median) && rows[b].median > med)
                    med = rows[b].median;
                b++;
            }
            if (b - a > best_n || (b - a == best_n && med > best_med))
                best = a, best_n = b - a, best_med = med;
            a = b;
        }
        out->s = gm_xrealloc(out->s, (out->n + 1) * sizeof *out->s);
        S_series *se = &out->s[out->n++];
        se->variant = gm_xstrdup(rows[best].variant);
        se->params = gm_xstrdup(rows[best].params);
        se->run = gm_xmalloc((n ? n : 1) * sizeof *se->run);
        for (size_t p = 0; p < n; p++)
            se->run[p] = -1;
        for (size_t a = i; a < j; a++)
            if (strcmp(rows[a].params, se->params) == 0)
                se->run[rows[a].point] = rows[a].id;
        i = j;
    }
    for (size_t i = 0; i < nr; i++) {
        free(rows[i].variant);
        free(rows[i].params);
    }
    free(rows);
    return s;
}

/* A metric of a run (NaN when absent); "time": the median in ms. */
static gm_status S_value(gm_history *h, sqlite3_stmt *met, sqlite3_stmt *med, long long run,
                         const char *metric, double *v, gm_error *err)
{
    *v = NAN;
    if (run < 0)
        return GM_OK;
    bool time = strcmp(metric, GM_DIFF_TIME) == 0;
    sqlite3_stmt *st = time ? med : met;
    if (!S_bind_int(st, 1, run) || (!time && !S_bind_text(st, 2, metric)))
        return S_fail_db(h, err, "binding a metric");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        *v = sqlite3_column_double(st, 0);
    if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || sqlite3_reset(st) != SQLITE_OK)
        return S_fail_db(h, err, "reading a metric");
    return GM_OK;
}

/* Whether a run's times were taken behind the launch gate: 1 or 0; -1 for no run. */
static gm_status S_gated(gm_history *h, sqlite3_stmt *st, long long run, int *g, gm_error *err)
{
    *g = -1;
    if (run < 0)
        return GM_OK;
    if (!S_bind_int(st, 1, run))
        return S_fail_db(h, err, "binding a run");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *g = sqlite3_column_int(st, 0) != 0;
    if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || sqlite3_reset(st) != SQLITE_OK)
        return S_fail_db(h, err, "reading a run");
    return GM_OK;
}

static gm_status S_samples(gm_history *h, sqlite3_stmt *st, long long run, double **out,
                           size_t *n, gm_error *err)
{
    *out = NULL;
    *n = 0;
    if (run < 0)
        return GM_OK;
    if (!S_bind_int(st, 1, run))
        return S_fail_db(h, err, "binding a run");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 32;
            *out = gm_xrealloc(*out, cap * sizeof **out);
        }
        (*out)[(*n)++] = sqlite3_column_double(st, 0);
    }
    if (rc != SQLITE_DONE || sqlite3_reset(st) != SQLITE_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
        return S_fail_db(h, err, "reading samples");
    }
    return GM_OK;
}

/* ======================================================================== */
/* The report                                                               */
/* ======================================================================== */

/* The key counters of the trend report, after the median time. */
static const char *const S_key_metrics[] = {
    GM_DIFF_TIME, GM_M_LD_SECTORS, GM_M_ST_SECTORS, GM_M_LD_REQUESTS, GM_M_ST_REQUESTS,
    GM_M_SH_LD_CONFL, GM_M_SH_ST_CONFL, GM_M_DRAM_RD,
};
#define S_NKEY (sizeof S_key_metrics / sizeof S_key_metrics[0])

static const char *S_mlabel(const char *m)
{
    if (strcmp(m, GM_DIFF_TIME) == 0)
        return "time (median)";
    const gm_metric_info *i = gm_catalog_find(m);
    return i ? i->label : m;
}

static const char *S_munit(const char *m)
{
    if (strcmp(m, GM_DIFF_TIME) == 0)
        return "ms";
    const gm_metric_info *i = gm_catalog_find(m);
    return i ? i->unit : "";
}

static bool S_mexact(const char *m)
{
    const gm_metric_info *i = gm_catalog_find(m);
    return i && i->deterministic;
}

typedef struct {
    size_t series, metric, point;
    double before, after;
    bool exact;
} S_step;

/* A source line whose excess changed between two consecutive commits with
 * per-line counts (of one layout). */
typedef struct {
    size_t series, point, prev;   /* the commit, and the one it is compared with */
    char *params;                 /* of the run with per-line counts (may differ from the series') */
    char *loc, *text;
    long long xs[2], xw[2];       /* excess sectors, excess wavefronts: before, after */
} S_lstep;

/* One experiment of one group: its values per series, metric and point, and
 * the steps found in them. */
typedef struct {
    S_exp e;
    double *v;          /* [series][metric][point] */
    bool used[S_NKEY];  /* a metric with some non-zero value */
    S_step *steps;
    size_t n_steps;
    S_lstep *lsteps;    /* source lines whose excess changed, by commit */
    size_t n_lsteps;
    size_t n_lpoints;   /* (series, commit) pairs with per-line counts */
    S_step *gates;      /* where a layout's times start or stop being taken behind the
                           launch gate (series, point; after: 1 gated from here, 0 not) */
    size_t n_gates;
} S_table;

#define S_V(t, s, m, p, n) ((t)->v[((s) * S_NKEY + (m)) * (n) + (p)])

static void S_table_free(S_table *t)
{
    S_exp_free(&t->e);
    free(t->v);
    free(t->steps);
    free(t->gates);
    for (size_t i = 0; i < t->n_lsteps; i++) {
        free(t->lsteps[i].loc);
        free(t->lsteps[i].text);
        free(t->lsteps[i].params);
    }
    free(t->lsteps);
}

/* The per-line excess of one run, sorted by where the line is. */
typedef struct {
    char *loc, *text;
    long long xs, xw;
} S_lrow;

typedef struct {
    S_lrow *v;
    size_t n;
    bool have;   /* the run's per-line counts were collected */
} S_lines;

static void S_lines_free(S_lines *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].loc);
        free(l->v[i].text);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

static gm_status S_lines_load(gm_history *h, sqlite3_stmt *stat, sqlite3_stmt *lines,
                              long long run, S_lines *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    if (run < 0)
        return GM_OK;
    if (!S_bind_int(stat, 1, run))
        return S_fail_db(h, err, "binding a run");
    int rc = sqlite3_step(stat);
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(stat, 0);
        out->have = t && strcmp((const char *)t, "collected") == 0;
    }
    if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || sqlite3_reset(stat) != SQLITE_OK)
        return S_fail_db(h, err, "reading a run");
    if (!out->have)
        return GM_OK;
    if (!S_bind_int(lines, 1, run))
        return S_fail_db(h, err, "binding a run");
    size_t cap = 0;
    while ((rc = sqlite3_step(lines)) == SQLITE_ROW) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 32;
            out->v = gm_xrealloc(out->v, cap * sizeof *out->v);
        }
        S_lrow *r = &out->v[out->n++];
        r->loc = S_col_text(lines, 0);
        r->text = sqlite3_column_type(lines, 1) == SQLITE_NULL ? NULL : S_col_text(lines, 1);
        long long d = (long long)sqlite3_column_int64(lines, 2) -
                      (long long)sqlite3_column_int64(lines, 3);
        r->xs = d > 0 ? d : 0;
        d = (long long)sqlite3_column_int64(lines, 4) - (long long)sqlite3_column_int64(lines, 5);
        r->xw = d > 0 ? d : 0;
    }
    if (rc != SQLITE_DONE || sqlite3_reset(lines) != SQLITE_OK) {
        S_lines_free(out);
        return S_fail_db(h, err, "reading source lines");
    }
    return GM_OK;
}

/* The lines whose excess differs between a (commit prev) and b (commit
 * point), appended to t; both sorted by loc (SQLite's BINARY order, which is
 * strcmp's). */
static void S_lines_compare(S_table *t, size_t series, size_t prev, size_t point,
                            const char *params, const S_lines *a, const S_lines *b)
{
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        int c = i >= a->n ? 1 : j >= b->n ? -1 : strcmp(a->v[i].loc, b->v[j].loc);
        const S_lrow *x = c <= 0 ? &a->v[i] : NULL, *y = c >= 0 ? &b->v[j] : NULL;
        long long xs0 = x ? x->xs : 0, xw0 = x ? x->xw : 0;
        long long xs1 = y ? y->xs : 0, xw1 = y ? y->xw : 0;
        if (xs0 != xs1 || xw0 != xw1) {
            t->lsteps = gm_xrealloc(t->lsteps, (t->n_lsteps + 1) * sizeof *t->lsteps);
            const S_lrow *any = y ? y : x;
            t->lsteps[t->n_lsteps++] = (S_lstep){series, point, prev, gm_xstrdup(params),
                                                 gm_xstrdup(any->loc),
                                                 any->text ? gm_xstrdup(any->text) : NULL,
                                                 {xs0, xs1}, {xw0, xw1}};
        }
        if (c <= 0)
            i++;
        if (c >= 0)
            j++;
    }
}

/* Per layout, the lines whose excess changed from each commit with per-line
 * counts to the next one with them.  The per-line pass counts one case per
 * layout, not necessarily the series' size: the run of the layout with
 * collected per-line counts is used (the series' parameters when they have
 * them), and two commits are compared only when that run has the same
 * parameters in both. */
static gm_status S_table_lines(gm_history *h, S_table *t, const S_res *res, size_t n,
                               gm_error *err)
{
    sqlite3_stmt *stat = NULL, *lines = NULL, *pick = NULL;
    gm_status s;
    if ((s = S_prepare(h, "SELECT id, params FROM runs WHERE result_id = ?1 AND "
                          "experiment = ?2 AND variant = ?3 AND lines_status = 'collected' "
                          "ORDER BY params = ?4 DESC, params LIMIT 1", &pick, err)) != GM_OK ||
        (s = S_prepare(h, "SELECT lines_status FROM runs WHERE id = ?1", &stat, err)) != GM_OK ||
        (s = S_prepare(h, "SELECT loc, text, sectors, sectors_ideal, wavefronts, "
                          "wavefronts_ideal FROM lines WHERE run_id = ?1 ORDER BY loc",
                       &lines, err)) != GM_OK)
        goto done;
    for (size_t si = 0; si < t->e.n && s == GM_OK; si++) {
        const S_series *se = &t->e.s[si];
        S_lines last = {0};
        size_t last_p = 0;
        char *last_params = NULL;
        for (size_t p = 0; p < n && s == GM_OK; p++) {
            if (!S_bind_int(pick, 1, res[p].id) || !S_bind_text(pick, 2, t->e.exp) ||
                !S_bind_text(pick, 3, se->variant) || !S_bind_text(pick, 4, se->params)) {
                s = S_fail_db(h, err, "binding a run");
                break;
            }
            int rc = sqlite3_step(pick);
            long long run = rc == SQLITE_ROW ? (long long)sqlite3_column_int64(pick, 0) : -1;
            char *params = rc == SQLITE_ROW ? S_col_text(pick, 1) : NULL;
            if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || sqlite3_reset(pick) != SQLITE_OK) {
                free(params);
                s = S_fail_db(h, err, "finding a run with per-line counts");
                break;
            }
            S_lines cur;
            if ((s = S_lines_load(h, stat, lines, run, &cur, err)) != GM_OK || !cur.have) {
                free(params);
                continue;
            }
            t->n_lpoints++;
            if (last.have && strcmp(last_params, params) == 0)
                S_lines_compare(t, si, last_p, p, params, &last, &cur);
            S_lines_free(&last);
            free(last_params);
            last = cur;
            last_params = params;
            last_p = p;
        }
        S_lines_free(&last);
        free(last_params);
    }
done:
    sqlite3_finalize(pick);
    sqlite3_finalize(stat);
    sqlite3_finalize(lines);
    return s;
}

static gm_status S_table_load(gm_history *h, const S_res *res, size_t n, const char *exp,
                              S_table *t, gm_error *err)
{
    memset(t, 0, sizeof *t);
    gm_status s = S_load_exp(h, res, n, exp, &t->e, err);
    if (s != GM_OK)
        return s;
    sqlite3_stmt *met = NULL, *med = NULL, *smp = NULL, *gat = NULL;
    size_t gcap = 0;
    if ((s = S_prepare(h, "SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2", &met,
                       err)) != GM_OK ||
        (s = S_prepare(h, "SELECT median_ms FROM runs WHERE id = ?1", &med, err)) != GM_OK ||
        (s = S_prepare(h, "SELECT gated FROM runs WHERE id = ?1", &gat, err)) != GM_OK ||
        (s = S_prepare(h, "SELECT ms FROM samples WHERE run_id = ?1 ORDER BY i", &smp, err)) !=
            GM_OK)
        goto done;
    t->v = gm_xmalloc((t->e.n * S_NKEY * n + 1) * sizeof *t->v);
    size_t cap = 0;
    for (size_t si = 0; si < t->e.n && s == GM_OK; si++) {
        const S_series *se = &t->e.s[si];
        for (size_t m = 0; m < S_NKEY && s == GM_OK; m++) {
            for (size_t p = 0; p < n && s == GM_OK; p++) {
                s = S_value(h, met, med, se->run[p], S_key_metrics[m], &S_V(t, si, m, p, n), err);
                double x = S_V(t, si, m, p, n);
                if (isfinite(x) && x != 0)
                    t->used[m] = true;
            }
            if (s != GM_OK)
                break;
            const double *v = &S_V(t, si, m, 0, n);
            size_t *at = gm_xmalloc((n ? n : 1) * sizeof *at), k;
            bool exact = S_mexact(S_key_metrics[m]);
            if (exact) {
                k = gm_steps_exact(v, n, at);
            } else if (strcmp(S_key_metrics[m], GM_DIFF_TIME) == 0) {
                double **sm = gm_xcalloc(n ? n : 1, sizeof *sm);
                size_t *sn = gm_xcalloc(n ? n : 1, sizeof *sn);
                for (size_t p = 0; p < n && s == GM_OK; p++)
                    s = S_samples(h, smp, se->run[p], &sm[p], &sn[p], err);
                k = s == GM_OK ? gm_steps_noisy(v, n, GM_DIFF_TIME_REL, 0.0,
                                                (const double *const *)sm, sn, at)
                               : 0;
                for (size_t p = 0; p < n; p++)
                    free(sm[p]);
                free(sm);
                free(sn);
                /* Where the times start (or stop) being taken behind the launch
                 * gate, a change is the method's: noted, not called a step. */
                int prev = -1;
                for (size_t p = 0; p < n && s == GM_OK; p++) {
                    int g = -1;
                    s = S_gated(h, gat, se->run[p], &g, err);
                    if (s != GM_OK || g < 0 || !isfinite(v[p]))
                        continue;
                    if (prev >= 0 && g != prev) {
                        if (t->n_gates == gcap) {
                            gcap = gcap ? 2 * gcap : 8;
                            t->gates = gm_xrealloc(t->gates, gcap * sizeof *t->gates);
                        }
                        t->gates[t->n_gates++] = (S_step){si, m, p, prev, g, false};
                        size_t kept = 0;
                        for (size_t i = 0; i < k; i++)
                            if (at[i] != p)
                                at[kept++] = at[i];
                        k = kept;
                    }
                    prev = g;
                }
            } else {
                /* the diff's bounds: shared conflicts per shared instruction,
                 * DRAM bytes 2 % and 2 MiB, others 5 % */
                gm_threshold thr = gm_diff_default_threshold(S_key_metrics[m]);
                double floor = thr.floor_kind == GM_FLOOR_ABSOLUTE ? thr.floor : 0.0;
                const char *im = gm_diff_inst_metric(S_key_metrics[m]);
                if (thr.floor_kind == GM_FLOOR_PER_INST && im) {
                    double inst = NAN;
                    for (size_t p = n; p-- > 0 && isnan(inst) && s == GM_OK;)
                        s = S_value(h, met, med, se->run[p], im, &inst, err);
                    floor = isfinite(inst) ? thr.floor * inst : 0.0;
                }
                k = gm_steps_noisy(v, n, thr.kind == GM_THR_RELATIVE ? thr.value : 0.05, floor,
                                   NULL, NULL, at);
            }
            for (size_t i = 0; i < k; i++) {
                if (t->n_steps == cap) {
                    cap = cap ? 2 * cap : 16;
                    t->steps = gm_xrealloc(t->steps, cap * sizeof *t->steps);
                }
                size_t q = at[i];
                double before = NAN;
                for (size_t b = q; b-- > 0 && isnan(before);)
                    before = v[b];
                t->steps[t->n_steps++] = (S_step){si, m, q, before, v[q], exact};
            }
            free(at);
        }
    }
    if (s == GM_OK)
        s = S_table_lines(h, t, res, n, err);
done:
    sqlite3_finalize(met);
    sqlite3_finalize(med);
    sqlite3_finalize(smp);
    sqlite3_finalize(gat);
    return s;
}

static void S_short(gm_buf *b, const S_res *r)
{
    char id[13];
    snprintf(id, sizeof id, "%s", r->commit);
    gm_esc_md_code(b, id);
    if (r->dirty == 1)
        gm_buf_puts(b, " (dirty)");
}

static void S_when(gm_buf *b, const S_res *r)
{
    if (r->ctime >= 0) {
        time_t t = (time_t)r->ctime;
        struct tm tm;
        char s[32];
        if (gmtime_r(&t, &tm) && strftime(s, sizeof s, "%Y-%m-%d %H:%M UTC", &tm)) {
            gm_buf_puts(b, s);
            return;
        }
    }
    gm_buf_puts(b, "taken ");
    gm_esc_md(b, r->taken_at);
}

static void S_layout(gm_buf *b, const S_series *s)
{
    gm_esc_md_code(b, s->variant);
    if (*s->params) {
        gm_buf_putc(b, ' ');
        gm_esc_md_code(b, s->params);
    }
}

static int S_step_cmp(const void *a, const void *b)
{
    const S_step *x = a, *y = b;
    if (x->point != y->point)
        return (x->point > y->point) - (x->point < y->point);
    if (x->series != y->series)
        return (x->series > y->series) - (x->series < y->series);
    return (x->metric > y->metric) - (x->metric < y->metric);
}

static int S_lstep_cmp(const void *a, const void *b)
{
    const S_lstep *x = a, *y = b;
    if (x->point != y->point)
        return (x->point > y->point) - (x->point < y->point);
    if (x->series != y->series)
        return (x->series > y->series) - (x->series < y->series);
    long long dx = llabs(x->xs[1] - x->xs[0]) + llabs(x->xw[1] - x->xw[0]);
    long long dy = llabs(y->xs[1] - y->xs[0]) + llabs(y->xw[1] - y->xw[0]);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return strcmp(x->loc, y->loc);
}

static void S_excess_cell(gm_buf *b, const long long x[2])
{
    if (x[0] == x[1]) {
        gm_fmt_count(b, (double)x[1]);
        return;
    }
    gm_fmt_count(b, (double)x[0]);
    gm_buf_puts(b, " → ");
    gm_fmt_count(b, (double)x[1]);
}

/* The source lines whose excess changed from one commit to the next (of
 * those with per-line counts), at most GM_HISTORY_LINE_ROWS rows. */
static void S_lines_md(gm_buf *b, const S_table *t, const S_res *res)
{
    if (t->n_lpoints == 0)
        return;
    if (t->n_lsteps == 0) {
        gm_buf_printf(b, "**Per source line:** no line's excess changed between consecutive "
                         "commits (%zu runs of these layouts with per-line counts).\n\n",
                      t->n_lpoints);
        return;
    }
    gm_buf_printf(b, "**Per source line:** %zu change%s of a line's excess (count − ideal, one "
                     "launch) from one commit with per-line counts to the next, largest first "
                     "at each commit. Lines are matched by file name and line number: an edit "
                     "that moves a line shows as one line losing its excess and another "
                     "gaining it.\n\n",
                  t->n_lsteps, t->n_lsteps == 1 ? "" : "s");
    gm_buf_puts(b, "| Commit | Layout | Line | Code | Excess global sectors | "
                   "Excess shared wavefronts |\n|---|---|---|---|--:|--:|\n");
    size_t shown = t->n_lsteps < GM_HISTORY_LINE_ROWS ? t->n_lsteps : GM_HISTORY_LINE_ROWS;
    for (size_t i = 0; i < shown; i++) {
        const S_lstep *l = &t->lsteps[i];
        gm_buf_puts(b, "| ");
        S_short(b, &res[l->point]);
        gm_buf_puts(b, " | ");
        gm_esc_md_code(b, t->e.s[l->series].variant);
        if (l->params && *l->params) {
            gm_buf_putc(b, ' ');
            gm_esc_md_code(b, l->params);
        }
        gm_buf_puts(b, " | ");
        gm_esc_md_code(b, l->loc);
        gm_buf_puts(b, " | ");
        const char *code = l->text;
        while (code && *code == ' ')
            code++;
        if (code && *code)
            gm_esc_md_code(b, code);
        else
            gm_buf_puts(b, "—");
        gm_buf_puts(b, " | ");
        S_excess_cell(b, l->xs);
        gm_buf_puts(b, " | ");
        S_excess_cell(b, l->xw);
        gm_buf_puts(b, " |\n");
    }
    if (t->n_lsteps > shown)
        gm_buf_printf(b, "\n%zu more line changes (the per-line counts of every run are in the "
                         "database's `lines` table).\n", t->n_lsteps - shown);
    gm_buf_putc(b, '\n');
}

/* The Markdown of one experiment: the steps, the source lines that moved,
 * then the values per commit (the last `rows` commits; 0: all). */
static void S_table_md(gm_buf *b, const S_table *t, const S_res *res, size_t n, size_t rows,
                       bool html)
{
    gm_buf_puts(b, "### ");
    gm_esc_md(b, t->e.exp);
    gm_buf_puts(b, "\n\nLayouts, each at the size run most often: ");
    for (size_t i = 0; i < t->e.n; i++) {
        gm_buf_puts(b, i ? ", " : "");
        S_layout(b, &t->e.s[i]);
    }
    gm_buf_puts(b, ".\n\n");
    if (t->n_steps == 0) {
        gm_buf_puts(b, "No step: no exact counter changed and no time or noisy counter moved "
                       "beyond its bound.\n\n");
    } else {
        gm_buf_printf(b, "%zu step%s, each at the commit that introduced it:\n\n", t->n_steps,
                      t->n_steps == 1 ? "" : "s");
        gm_buf_puts(b, "| Commit | Layout | Metric | Before | After | Change | Found by |\n"
                       "|---|---|---|--:|--:|--:|---|\n");
        for (size_t i = 0; i < t->n_steps; i++) {
            const S_step *s = &t->steps[i];
            const char *m = S_key_metrics[s->metric], *u = S_munit(m);
            gm_buf_puts(b, "| ");
            S_short(b, &res[s->point]);
            gm_buf_puts(b, " | ");
            S_layout(b, &t->e.s[s->series]);
            gm_buf_puts(b, " | ");
            gm_esc_md(b, S_mlabel(m));
            gm_buf_puts(b, " | ");
            gm_fmt_quantity(b, s->before, u, false);
            gm_buf_puts(b, " | ");
            gm_fmt_quantity(b, s->after, u, false);
            gm_buf_puts(b, " | ");
            if (s->before != 0)
                gm_fmt_pct_change(b, (s->after / s->before - 1.0) * 100.0);
            else
                gm_fmt_quantity(b, s->after - s->before, u, true);
            gm_buf_puts(b, s->exact ? " | exact count: any change |\n"
                                    : " | change point beyond the diff's bound |\n");
        }
        gm_buf_putc(b, '\n');
    }
    if (t->n_gates) {
        /* one sentence per commit and direction, the layouts listed in it */
        gm_buf_puts(b, "**How the times were taken changed.**");
        for (size_t i = 0; i < t->n_gates; i++) {
            const S_step *g = &t->gates[i];
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++)
                seen = t->gates[j].point == g->point && t->gates[j].after == g->after;
            if (seen)
                continue;
            gm_buf_puts(b, " From ");
            S_short(b, &res[g->point]);
            gm_buf_puts(b, g->after ? " on, behind the launch gate: " : " on, without the launch "
                                                                        "gate: ");
            size_t k = 0;
            for (size_t j = i; j < t->n_gates; j++)
                if (t->gates[j].point == g->point && t->gates[j].after == g->after) {
                    gm_buf_puts(b, k++ ? ", " : "");
                    S_layout(b, &t->e.s[t->gates[j].series]);
                }
            gm_buf_puts(b, ".");
        }
        gm_buf_puts(b, " The gate enqueues repetitions under 2 ms and releases them together, "
                       "so a sample holds no host time to submit a launch; a time that changes "
                       "at such a commit changed with the method, and is not called a step.\n\n");
    }
    S_lines_md(b, t, res);
    /* the median time of each layout at each commit */
    size_t from = rows && n > rows ? n - rows : 0;
    /* the page renders Markdown without raw HTML: a heading line there */
    gm_buf_puts(b, html ? "**Median time of each layout at each commit:**\n\n"
                        : "<details><summary>Median time of each layout at each commit</summary>"
                          "\n\n");
    if (from) {
        gm_buf_printf(b, "The last %zu commits; the %zu before them, from ", n - from, from);
        S_short(b, &res[0]);
        gm_buf_puts(b, " to ");
        S_short(b, &res[from - 1]);
        gm_buf_puts(b, ", are in the HTML page and the CSV export (`history report --out "
                       "trend.html`, `history export --format csv`; `--md-commits 0` lists them "
                       "here).\n\n");
    }
    gm_buf_puts(b, "| Commit | Date |");
    for (size_t i = 0; i < t->e.n; i++) {
        gm_buf_putc(b, ' ');
        gm_esc_md_code(b, t->e.s[i].variant);
        gm_buf_puts(b, " |");
    }
    gm_buf_puts(b, "\n|---|---|");
    for (size_t i = 0; i < t->e.n; i++)
        gm_buf_puts(b, "--:|");
    gm_buf_putc(b, '\n');
    for (size_t p = from; p < n; p++) {
        gm_buf_puts(b, "| ");
        S_short(b, &res[p]);
        gm_buf_puts(b, " | ");
        S_when(b, &res[p]);
        gm_buf_puts(b, " |");
        for (size_t i = 0; i < t->e.n; i++) {
            gm_buf_putc(b, ' ');
            gm_fmt_quantity(b, S_V(t, i, 0, p, n), "ms", false);
            for (size_t k = 0; k < t->n_steps; k++)
                if (t->steps[k].series == i && t->steps[k].point == p && t->steps[k].metric == 0)
                    gm_buf_puts(b, " **step**");
            gm_buf_puts(b, " |");
        }
        gm_buf_putc(b, '\n');
    }
    gm_buf_puts(b, html ? "\n" : "\n</details>\n\n");
}

/* A gnuplot chart of one metric of one experiment: a line per layout over
 * the commits, a dashed line at each step. */
static void S_chart(gm_charts *c, const S_table *t, size_t m, const S_res *res, size_t n,
                    const char *device)
{
    const char *metric = S_key_metrics[m], *unit = S_munit(metric);
    double mx = 0, mn = INFINITY;
    for (size_t i = 0; i < t->e.n; i++)
        for (size_t p = 0; p < n; p++)
            if (isfinite(S_V(t, i, m, p, n))) {
                mx = fmax(mx, fabs(S_V(t, i, m, p, n)));
                mn = fmin(mn, S_V(t, i, m, p, n));
            }
    /* layouts a decade or more apart (a 74 µs kernel beside a 2.1 ms one):
     * a log axis, or the small one's step is a flat line at the bottom */
    bool logy = mn > 0 && isfinite(mn) && mx / mn >= 10.0;
    double scale = 1;
    const char *ylabel = unit;
    char ybuf[64];
    int dec;
    if (strcmp(unit, "ms") == 0)
        ylabel = gm_fmt_ms_unit(mx, &scale, &dec);
    else if (strcmp(unit, "byte") == 0)
        scale = 1.0 / (1024.0 * 1024.0), ylabel = "MiB";
    snprintf(ybuf, sizeof ybuf, "%s%s%s%s", S_mlabel(metric), *ylabel ? ", " : "", ylabel,
             logy ? " (log scale)" : "");

    gm_buf s = GM_BUF_INIT;
    size_t id = c->n + 1;
    gm_buf_puts(&s, "reset\nset grid ytics lc rgb '#dddddd'\nset key below noenhanced\n");
    gm_buf_puts(&s, "set title ");
    gm_buf title = GM_BUF_INIT;
    gm_buf_printf(&title, "%s: %s on %s", t->e.exp, S_mlabel(metric), device);
    gm_esc_gnuplot(&s, title.data);
    gm_buf_puts(&s, " noenhanced\nset ylabel ");
    gm_esc_gnuplot(&s, ybuf);
    /* counts with SI prefixes (65.9M); times and MiB as plain numbers */
    gm_buf_printf(&s, " noenhanced\nset format y '%s'\n%s\n",
                  strcmp(unit, "ms") == 0 || strcmp(unit, "byte") == 0 ? "%g" : "%.1s%c",
                  logy ? "set logscale y 10\nset yrange [*:*]" : "set yrange [0:*]");
    gm_buf_printf(&s, "set xrange [0.5:%zu.5]\nset xtics rotate by -45 noenhanced (", n);
    for (size_t p = 0; p < n; p++) {
        char sid[16];
        snprintf(sid, sizeof sid, "%.7s%s", res[p].commit, res[p].dirty == 1 ? "+" : "");
        gm_buf_puts(&s, p ? ", " : "");
        gm_esc_gnuplot(&s, sid);
        gm_buf_printf(&s, " %zu", p + 1);
    }
    gm_buf_puts(&s, ")\n");
    for (size_t k = 0; k < t->n_steps; k++) {
        if (t->steps[k].metric != m)
            continue;
        gm_buf_printf(&s, "set arrow from %zu, graph 0 to %zu, graph 1 nohead dt 2 lw 1.5 "
                          "lc rgb '#c0392b' back\n", t->steps[k].point + 1,
                      t->steps[k].point + 1);
    }
    gm_buf_printf(&s, "$h%zu << EOD\n", id);
    for (size_t p = 0; p < n; p++) {
        gm_buf_printf(&s, "%zu", p + 1);
        for (size_t i = 0; i < t->e.n; i++) {
            double v = S_V(t, i, m, p, n) * scale;
            if (isfinite(v))
                gm_buf_printf(&s, " %.17g", v);
            else
                gm_buf_puts(&s, " NaN");
        }
        gm_buf_putc(&s, '\n');
    }
    gm_buf_puts(&s, "EOD\nplot");
    for (size_t i = 0; i < t->e.n; i++) {
        gm_buf l = GM_BUF_INIT;
        gm_buf_printf(&l, "%s %s", t->e.s[i].variant, t->e.s[i].params);
        gm_buf_printf(&s, "%s $h%zu using 1:%zu with linespoints lt %zu title ", i ? "," : "", id,
                      i + 2, i % 8 + 1);
        gm_esc_gnuplot(&s, l.data);
        gm_buf_free(&l);
    }
    gm_buf_putc(&s, '\n');
    c->v = gm_xrealloc(c->v, (c->n + 1) * sizeof *c->v);
    gm_chart *ch = &c->v[c->n++];
    memset(ch, 0, sizeof *ch);
    char name[32];
    snprintf(name, sizeof name, "trend-%02zu", id);
    ch->name = gm_xstrdup(name);
    ch->title = gm_buf_detach(&title);
    ch->script = gm_buf_detach(&s);
}

typedef struct {
    char *md;
    size_t chart_from, chart_to;
} S_block;

/* The report as blocks of Markdown, each followed by its charts (when
 * charts is non-NULL). */
static gm_status S_report(gm_history *h, const gm_history_query *q, gm_charts *charts,
                          S_block **blocks, size_t *nb, gm_error *err)
{
    *blocks = NULL;
    *nb = 0;
    S_resv all;
    gm_status s = S_load_results(h, q->device, &all, err);
    if (s != GM_OK)
        return s;
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "# gpumem-report history\n\n");
    if (q->db_name) {
        gm_buf_puts(&b, "From ");
        gm_esc_md_code(&b, q->db_name);
        gm_buf_puts(&b, ": ");
    }
    gm_buf_printf(&b, "%zu results file%s", all.n, all.n == 1 ? "" : "s");
    if (q->device) {
        gm_buf_puts(&b, " of ");
        gm_esc_md(&b, q->device);
    }
    gm_buf_puts(&b, ", in commit order (the commit's time as given to `history add "
                    "--commit-time`, else when the run was taken). One history per device and "
                    "collection settings. Exact counters (sectors, requests, instructions) are "
                    "flagged on any change; times and noisy counters (shared bank conflicts, "
                    "DRAM bytes) by a change-point fit whose steps must also pass the bound "
                    "`gpumem-report diff` uses (docs/history.md says how). A step is marked at "
                    "the first commit that shows it.\n\n");
    if (all.n == 0)
        gm_buf_puts(&b, "The history holds nothing yet (`gpumem-report history add RUN.json`).\n\n");
    for (size_t g = 0; g < all.n && s == GM_OK;) {
        size_t e = g;
        while (e < all.n && S_same_group(&all.v[g], &all.v[e]))
            e++;
        size_t from = g;
        if (q->last && e - g > q->last)
            from = e - q->last;
        const S_res *res = &all.v[from];
        size_t n = e - from;
        gm_buf_puts(&b, "## ");
        gm_esc_md(&b, res[0].device);
        gm_buf_printf(&b, "\n\n%zu results from ", n);
        S_short(&b, &res[0]);
        gm_buf_puts(&b, " (");
        S_when(&b, &res[0]);
        gm_buf_puts(&b, ") to ");
        S_short(&b, &res[n - 1]);
        gm_buf_puts(&b, " (");
        S_when(&b, &res[n - 1]);
        gm_buf_puts(&b, "); driver ");
        gm_esc_md(&b, res[n - 1].driver);
        gm_buf_puts(&b, "; settings: ");
        /* the metric list is long: its count says enough here (the CSV has it) */
        const char *ml = strstr(res[0].settings, "metrics=");
        gm_buf sb = GM_BUF_INIT;
        if (ml) {
            size_t nm = ml[8] ? 1 : 0;
            for (const char *c = ml + 8; *c; c++)
                nm += *c == ',';
            gm_buf_put(&sb, res[0].settings, (size_t)(ml - res[0].settings));
            gm_buf_printf(&sb, "%zu metrics", nm);
        } else {
            gm_buf_puts(&sb, res[0].settings);
        }
        gm_esc_md_code(&b, sb.data);
        gm_buf_free(&sb);
        gm_buf_puts(&b, ".\n\n");

        /* the experiments of the group */
        sqlite3_stmt *st = NULL;
        s = S_prepare(h, "SELECT DISTINCT ru.experiment FROM runs ru JOIN results r "
                         "ON ru.result_id = r.id WHERE r.device = ?1 AND r.settings = ?2 "
                         "ORDER BY 1", &st, err);
        char **exps = NULL;
        size_t ne = 0;
        if (s == GM_OK && (!S_bind_text(st, 1, res[0].device) ||
                           !S_bind_text(st, 2, res[0].settings)))
            s = S_fail_db(h, err, "binding a device");
        int rc = SQLITE_DONE;
        while (s == GM_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            char *x = S_col_text(st, 0);
            if (!S_listed(q->only, x)) {
                free(x);
                continue;
            }
            exps = gm_xrealloc(exps, (ne + 1) * sizeof *exps);
            exps[ne++] = x;
        }
        if (s == GM_OK && rc != SQLITE_DONE)
            s = S_fail_db(h, err, "reading experiments");
        sqlite3_finalize(st);
        for (size_t x = 0; x < ne && s == GM_OK; x++) {
            S_table t;
            s = S_table_load(h, res, n, exps[x], &t, err);
            if (s == GM_OK) {
                if (t.n_steps)
                    qsort(t.steps, t.n_steps, sizeof *t.steps, S_step_cmp);
                if (t.n_lsteps)
                    qsort(t.lsteps, t.n_lsteps, sizeof *t.lsteps, S_lstep_cmp);
                S_table_md(&b, &t, res, n,
                           charts || q->all ? 0
                                            : q->md_commits ? q->md_commits
                                                            : GM_HISTORY_MD_COMMITS,
                           charts != NULL);
                *blocks = gm_xrealloc(*blocks, (*nb + 1) * sizeof **blocks);
                S_block *bl = &(*blocks)[(*nb)++];
                bl->md = gm_buf_detach(&b);
                bl->chart_from = bl->chart_to = charts ? charts->n : 0;
                /* the time, and each counter that stepped: a flat line says
                 * no more than the table's "no step" */
                for (size_t m = 0; charts && m < S_NKEY; m++) {
                    bool stepped = false;
                    for (size_t k = 0; k < t.n_steps; k++)
                        stepped |= t.steps[k].metric == m;
                    if (t.used[m] && (m == 0 || stepped))
                        S_chart(charts, &t, m, res, n, res[0].device);
                }
                bl->chart_to = charts ? charts->n : 0;
            }
            S_table_free(&t);
        }
        for (size_t x = 0; x < ne; x++)
            free(exps[x]);
        free(exps);
        g = e;
    }
    if (b.len || *nb == 0) {
        *blocks = gm_xrealloc(*blocks, (*nb + 1) * sizeof **blocks);
        S_block *bl = &(*blocks)[(*nb)++];
        bl->md = gm_buf_detach(&b);
        if (!bl->md)
            bl->md = gm_xstrdup("");
        bl->chart_from = bl->chart_to = charts ? charts->n : 0;
    }
    gm_buf_free(&b);
    S_resv_free(&all);
    return s;
}

static void S_blocks_free(S_block *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(b[i].md);
    free(b);
}

gm_status gm_history_report_md(gm_history *h, const gm_history_query *q, char **out,
                               gm_error *err)
{
    *out = NULL;
    S_block *bl;
    size_t nb;
    gm_status s = S_report(h, q, NULL, &bl, &nb, err);
    if (s == GM_OK) {
        /* a pull-request comment: whole experiments up to the cap, then a
         * line naming what was cut and where it is */
        size_t cap = q->all ? 0 : q->max_chars ? q->max_chars : GM_HISTORY_MD_MAX_CHARS;
        gm_buf b = GM_BUF_INIT;
        size_t i = 0;
        for (; i < nb; i++) {
            size_t len = strlen(bl[i].md);
            /* room for the cut line unless this is the last section */
            size_t room = i + 1 < nb && cap > 400 ? cap - 400 : cap;
            if (cap && i > 0 && b.len + len > room)
                break;
            gm_buf_puts(&b, bl[i].md);
        }
        if (i < nb) {
            gm_buf_printf(&b, "**Cut here** to stay under %zu characters (GitHub refuses longer "
                              "comments): %zu more experiment section%s not shown. The full "
                              "report: `gpumem-report history report --all`, or `--out "
                              "trend.html`.\n", cap, nb - i, nb - i == 1 ? "" : "s");
        }
        *out = gm_buf_detach(&b);
        if (!*out)
            *out = gm_xstrdup("");
    }
    S_blocks_free(bl, nb);
    return s;
}

static const char S_css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#222;"
    "background:#fff}main{max-width:1180px;margin:0 auto;padding:1.5rem}"
    "table{border-collapse:collapse;margin:0.8rem 0;font-size:0.9rem}"
    "th,td{border:1px solid #ccc;padding:0.25rem 0.5rem}th{background:#f3f3f3}"
    "code{font-size:0.88em}"
    ".charts{display:flex;flex-wrap:wrap;gap:0.5rem}.charts figure{margin:0;flex:1 1 560px;"
    "max-width:580px}.charts svg{width:100%;height:auto}h2{border-bottom:2px solid #ddd;"
    "padding-bottom:0.2rem;margin-top:2rem}\n";

gm_status gm_history_report_html(gm_history *h, const gm_history_query *q, char **out,
                                 gm_error *err)
{
    *out = NULL;
    gm_charts c = {NULL, 0};
    S_block *bl = NULL;
    size_t nb = 0;
    gm_status s = S_report(h, q, &c, &bl, &nb, err);
    if (s == GM_OK)
        s = gm_charts_draw(&c, q->gnuplot, err);
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<title>gpumem-report history</title>\n<style>\n");
    gm_buf_puts(&b, S_css);
    gm_buf_puts(&b, "</style>\n</head>\n<body>\n<main>\n");
    for (size_t i = 0; i < nb && s == GM_OK; i++) {
        char *html = NULL;
        if ((s = gm_markdown_to_html(bl[i].md, &html, err)) != GM_OK)
            break;
        gm_buf_puts(&b, html);
        free(html);
        if (bl[i].chart_to > bl[i].chart_from) {
            gm_buf_puts(&b, "<div class=\"charts\">\n");
            for (size_t k = bl[i].chart_from; k < bl[i].chart_to; k++) {
                gm_buf_puts(&b, "<figure>\n");
                gm_svg_inline(&b, c.v[k].svg ? c.v[k].svg : "", c.v[k].name, c.v[k].title);
                gm_buf_puts(&b, "</figure>\n");
            }
            gm_buf_puts(&b, "</div>\n");
        }
    }
    gm_buf_puts(&b, "</main>\n</body>\n</html>\n");
    S_blocks_free(bl, nb);
    gm_charts_free(&c);
    if (s != GM_OK) {
        gm_buf_free(&b);
        return s;
    }
    *out = gm_buf_detach(&b);
    return GM_OK;
}

/* ======================================================================== */
/* The gate                                                                 */
/* ======================================================================== */

gm_status gm_history_gate(gm_history *h, const gm_results *head, const char *head_name,
                          const gm_diff_options *opts, const gm_diff_render *render,
                          bool warn_only, char **md, char **json, bool *fail, gm_error *err)
{
    *md = NULL;
    if (json)
        *json = NULL;
    *fail = true;
    char *settings = gm_history_settings(head);
    const char *dev = head->device.name ? head->device.name : "unknown GPU";
    S_resv all;
    gm_status s = S_load_results(h, dev, &all, err);
    if (s != GM_OK) {
        free(settings);
        return s;
    }
    /* the group of head's settings, less head itself and trees with
     * uncommitted changes (no commit anyone can check out) when there are
     * clean ones */
    size_t *idx = gm_xmalloc((all.n ? all.n : 1) * sizeof *idx), n = 0;
    bool any_clean = false;
    for (size_t i = 0; i < all.n; i++)
        any_clean |= strcmp(all.v[i].settings, settings) == 0 && all.v[i].dirty == 0;
    for (size_t i = 0; i < all.n; i++) {
        const S_res *r = &all.v[i];
        if (strcmp(r->settings, settings) != 0 || (any_clean && r->dirty != 0))
            continue;
        if (strcmp(r->commit, head->commit ? head->commit : "unknown") == 0 &&
            r->dirty == head->dirty &&
            strcmp(r->taken_at, head->taken_at ? head->taken_at : "unknown") == 0)
            continue;
        idx[n++] = i;
    }
    gm_results base;
    bool have_base = false;
    gm_diff d;
    bool have_diff = false;
    sqlite3_stmt *js = NULL, *smp = NULL;
    if (n == 0) {
        s = gm_fail(err, GM_ERR_VALUE,
                    "%s: the history holds no run of %s collected with these settings (%s): "
                    "add some with `gpumem-report history add`", h->path, dev, settings);
        goto out;
    }
    const S_res *latest = &all.v[idx[n - 1]];
    if ((s = S_prepare(h, "SELECT json FROM results WHERE id = ?1", &js, err)) != GM_OK)
        goto out;
    if (!S_bind_int(js, 1, latest->id)) {
        s = S_fail_db(h, err, "binding a result");
        goto out;
    }
    if (sqlite3_step(js) != SQLITE_ROW) {
        s = S_fail_db(h, err, "reading a stored results file");
        goto out;
    }
    char name[96];
    snprintf(name, sizeof name, "history:%.12s", latest->commit);
    const unsigned char *text = sqlite3_column_text(js, 0);
    if ((s = gm_results_read_string(text ? (const char *)text : "", name, &base, err)) != GM_OK)
        goto out;
    have_base = true;
    /* each run's samples, pooled from the last GM_GATE_POOL results */
    /* only samples taken as the latest's were (with or without the launch
     * gate): a pool across the change would mix the host's time into it */
    if ((s = S_prepare(h, "SELECT s.ms FROM samples s JOIN runs ru ON s.run_id = ru.id "
                          "WHERE ru.result_id = ?1 AND ru.experiment = ?2 AND ru.variant = ?3 "
                          "AND ru.params = ?4 AND ru.gated = ?5 ORDER BY s.i", &smp, err)) !=
        GM_OK)
        goto out;
    size_t pool_from = n > GM_GATE_POOL ? n - GM_GATE_POOL : 0;
    for (size_t i = 0; i < base.n_runs && s == GM_OK; i++) {
        gm_run *run = &base.runs[i];
        if (!run->timing.present)
            continue;
        gm_buf pt = GM_BUF_INIT;
        gm_diff_params_text(&pt, run);
        double *pool = NULL;
        size_t np = 0, cap = 0;
        for (size_t k = pool_from; k < n && s == GM_OK; k++) {
            if (!S_bind_int(smp, 1, all.v[idx[k]].id) ||
                !S_bind_text(smp, 2, run->experiment ? run->experiment : "") ||
                !S_bind_text(smp, 3, run->variant ? run->variant : "") ||
                !S_bind_text(smp, 4, pt.data ? pt.data : "") ||
                !S_bind_int(smp, 5, run->timing.gated)) {
                s = S_fail_db(h, err, "binding a run");
                break;
            }
            int rc;
            while ((rc = sqlite3_step(smp)) == SQLITE_ROW) {
                if (np == cap) {
                    cap = cap ? 2 * cap : 64;
                    pool = gm_xrealloc(pool, cap * sizeof *pool);
                }
                pool[np++] = sqlite3_column_double(smp, 0);
            }
            if (rc != SQLITE_DONE || sqlite3_reset(smp) != SQLITE_OK)
                s = S_fail_db(h, err, "reading samples");
        }
        if (np)
            gm_timing_set_samples(&run->timing, pool, np);
        free(pool);
        gm_buf_free(&pt);
    }
    if (s != GM_OK)
        goto out;
    gm_diff_options o = opts ? *opts : (gm_diff_options){0};
    o.base_name = name;
    o.head_name = head_name;
    if ((s = gm_diff_compute(&base, head, &o, &d, err)) != GM_OK)
        goto out;
    have_diff = true;
    /* a time beyond the pooled samples but inside the range the medians of
     * those commits already took is the history's noise, not a change (the
     * medians of 7 µs kernels wandered from 5.8 to 11.2 µs over the committed
     * example's commits with no change to their code) */
    sqlite3_finalize(smp);
    smp = NULL;
    if ((s = S_prepare(h, "SELECT median_ms FROM runs WHERE result_id = ?1 AND experiment = ?2 "
                          "AND variant = ?3 AND params = ?4 AND gated = ?5", &smp, err)) != GM_OK)
        goto out;
    for (size_t i = 0; i < d.n_rows && s == GM_OK; i++) {
        gm_diff_row *r = &d.rows[i];
        if (!r->metric || strcmp(r->metric, GM_DIFF_TIME) != 0 || !r->base || !r->head ||
            (r->status != GM_DIFF_REGRESSED && r->status != GM_DIFF_IMPROVED))
            continue;
        gm_buf pt = GM_BUF_INIT;
        gm_diff_params_text(&pt, r->base);
        double lo = INFINITY, hi = -INFINITY;
        for (size_t k = pool_from; k < n && s == GM_OK; k++) {
            if (!S_bind_int(smp, 1, all.v[idx[k]].id) ||
                !S_bind_text(smp, 2, r->base->experiment ? r->base->experiment : "") ||
                !S_bind_text(smp, 3, r->base->variant ? r->base->variant : "") ||
                !S_bind_text(smp, 4, pt.data ? pt.data : "") ||
                !S_bind_int(smp, 5, r->base->timing.gated)) {
                s = S_fail_db(h, err, "binding a run");
                break;
            }
            int rc = sqlite3_step(smp);
            if (rc == SQLITE_ROW && sqlite3_column_type(smp, 0) != SQLITE_NULL) {
                double m = sqlite3_column_double(smp, 0);
                lo = fmin(lo, m);
                hi = fmax(hi, m);
            }
            if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || sqlite3_reset(smp) != SQLITE_OK)
                s = S_fail_db(h, err, "reading medians");
        }
        gm_buf_free(&pt);
        double v = gm_value_num(&r->vhead), t = r->thr.kind == GM_THR_RELATIVE ? r->thr.value : 0;
        bool inside = r->status == GM_DIFF_REGRESSED ? v <= hi * (1 + t) : v >= lo * (1 - t);
        if (isfinite(lo) && inside) {
            d.counts[r->status]--;
            d.counts[GM_DIFF_NOISE]++;
            r->status = GM_DIFF_NOISE;
            gm_buf nb = GM_BUF_INIT;
            gm_buf_puts(&nb, "inside the medians of the last commits, ");
            gm_fmt_quantity(&nb, lo, "ms", false);
            gm_buf_puts(&nb, " to ");
            gm_fmt_quantity(&nb, hi, "ms", false);
            snprintf(r->note, sizeof r->note, "%s", nb.data);
            gm_buf_free(&nb);
        }
    }
    if (s != GM_OK)
        goto out;
    *fail = gm_diff_has_regression(&d) || (!d.comparable && !o.force);

    gm_buf b = GM_BUF_INIT;
    char *g = gm_diff_gate_line(&d);
    gm_buf_puts(&b, "### gpumem-report history gate: ");
    gm_esc_md(&b, g);
    free(g);
    gm_buf_puts(&b, "\n\n");
    gm_esc_md_code(&b, head_name ? head_name : "head");
    gm_buf_puts(&b, " against the history of ");
    gm_esc_md(&b, dev);
    gm_buf_printf(&b, " with the same collection settings (%zu results%s): counters against the "
                      "latest, ", n, any_clean ? ", clean trees only" : "");
    S_short(&b, latest);
    gm_buf_puts(&b, " (");
    S_when(&b, latest);
    gm_buf_printf(&b, "); times against the samples of the last %zu (", n - pool_from);
    for (size_t k = pool_from; k < n; k++) {
        gm_buf_puts(&b, k > pool_from ? ", " : "");
        S_short(&b, &all.v[idx[k]]);
    }
    gm_buf_puts(&b, ") pooled, with the diff's thresholds and noise test; a time inside the "
                    "range of those commits' medians (widened by its threshold) is within "
                    "noise.\n\n");
    gm_diff_render ro = {.only_changed = true};
    if (render)
        ro = *render;
    ro.base_name = name;
    ro.head_name = head_name;
    char *dm = gm_diff_to_markdown(&d, &ro);
    /* the diff's own heading and row counts stay: they say what was compared */
    gm_buf_puts(&b, dm);
    free(dm);
    *md = gm_buf_detach(&b);
    if (json)
        *json = gm_diff_to_json(&d, &ro, *fail && !warn_only ? 1 : 0);
out:
    sqlite3_finalize(js);
    sqlite3_finalize(smp);
    if (have_diff)
        gm_diff_free(&d);
    if (have_base)
        gm_results_free(&base);
    free(idx);
    free(settings);
    S_resv_free(&all);
    return s;
}

/* ======================================================================== */
/* CSV                                                                      */
/* ======================================================================== */

/* One per-line counter as rows of the export (fixed SQL: column names only). */
#define S_LINE_COL(col, unit)                                                            \
    "  UNION ALL SELECT run_id, 'source_line." col "', " col ", '" unit "', 2, loc FROM lines"

gm_status gm_history_csv(gm_history *h, const gm_history_query *q, char **out, gm_error *err)
{
    *out = NULL;
    sqlite3_stmt *st = NULL;
    gm_status s = S_prepare(h,
        "SELECT r.commit_id, r.dirty, r.commit_time, r.taken_at, r.device, r.driver, r.settings,"
        " ru.experiment, ru.variant, ru.params, ru.check_status, x.name, x.value, x.unit,"
        " x.line "
        "FROM results r JOIN runs ru ON ru.result_id = r.id JOIN ("
        "  SELECT run_id, name, value, unit, 1 AS k, NULL AS line FROM metrics"
        "  UNION ALL SELECT id, 'time', median_ms, 'ms', 0, NULL FROM runs"
        S_LINE_COL("inst_executed", "instruction") S_LINE_COL("global_ld", "instruction")
        S_LINE_COL("global_st", "instruction") S_LINE_COL("shared_ld", "instruction")
        S_LINE_COL("shared_st", "instruction") S_LINE_COL("sectors", "sector")
        S_LINE_COL("sectors_ideal", "sector") S_LINE_COL("wavefronts", "wavefront")
        S_LINE_COL("wavefronts_ideal", "wavefront")
        ") x ON x.run_id = ru.id "
        "WHERE (?1 IS NULL OR r.device = ?1) "
        "ORDER BY r.device, r.settings, "
        "COALESCE(r.commit_time, CAST(strftime('%s', r.taken_at) AS INTEGER)), r.taken_at, r.id,"
        " ru.experiment, ru.variant, ru.params, x.k, x.line, x.name", &st, err);
    if (s != GM_OK)
        return s;
    if (!S_bind_text(st, 1, q ? q->device : NULL)) {
        sqlite3_finalize(st);
        return S_fail_db(h, err, "binding the device");
    }
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "commit,dirty,commit_time,taken_at,device,driver,settings,experiment,variant,"
                    "params,check,metric,value,unit,line\r\n");
    /* the settings less their metric list (every row names its metric) */
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *exp = (const char *)sqlite3_column_text(st, 7);
        if (q && !S_listed(q->only, exp ? exp : ""))
            continue;
        for (int c = 0; c < 15; c++) {
            if (c)
                gm_buf_putc(&b, ',');
            int ty = sqlite3_column_type(st, c);
            if (c == 2 && ty == SQLITE_INTEGER) {
                time_t t = (time_t)sqlite3_column_int64(st, c);
                struct tm tm;
                char ts[32];
                if (gmtime_r(&t, &tm) && strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm))
                    gm_buf_puts(&b, ts);
            } else if (ty == SQLITE_INTEGER) {
                gm_buf_printf(&b, "%lld", (long long)sqlite3_column_int64(st, c));
            } else if (ty == SQLITE_FLOAT) {
                gm_value v = gm_vreal(sqlite3_column_double(st, c));
                gm_fmt_value(&b, &v);
            } else if (ty == SQLITE_TEXT && c == 6) {
                const char *t = (const char *)sqlite3_column_text(st, c);
                const char *ml = t ? strstr(t, "; metrics=") : NULL;
                char *cut = gm_xstrdup(t ? t : "");
                if (ml)
                    cut[ml - t] = '\0';
                gm_esc_csv(&b, cut);
                free(cut);
            } else if (ty == SQLITE_TEXT) {
                gm_esc_csv(&b, (const char *)sqlite3_column_text(st, c));
            }
        }
        gm_buf_puts(&b, "\r\n");
    }
    if (rc != SQLITE_DONE) {
        s = S_fail_db(h, err, "reading the history");
        gm_buf_free(&b);
    } else {
        *out = gm_buf_detach(&b);
    }
    sqlite3_finalize(st);
    return s;
}
