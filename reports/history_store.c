/* history_store.c — the history's SQLite file: open, schema and migrations,
 * add, counts, and the results read back in commit order (history.h; the
 * helpers the other history files share are in history_private.h).
 */
#include "history_private.h"

#include "../core/srclines.h"

#include <sqlite3.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ======================================================================== */
/* The database                                                             */
/* ======================================================================== */

gm_status gmh_fail_db(gm_history *h, gm_error *err, const char *what)
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

gm_status gmh_prepare(gm_history *h, const char *sql, sqlite3_stmt **st, gm_error *err)
{
    if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return gmh_fail_db(h, err, "preparing a statement");
    }
    return GM_OK;
}

/* Bind helpers: false on failure (the caller reports through gmh_fail_db). */
bool gmh_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return (s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i)) ==
           SQLITE_OK;
}

bool gmh_bind_int(sqlite3_stmt *st, int i, long long v)
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
    case GM_V_INT: return gmh_bind_int(st, i, v->i);
    case GM_V_REAL: return S_bind_real(st, i, v->r);
    case GM_V_STR: return gmh_bind_text(st, i, v->s);
    case GM_V_ABSENT: break;
    }
    return sqlite3_bind_null(st, i) == SQLITE_OK;
}

/* One statement run to completion (no rows expected). */
static gm_status S_step_done(gm_history *h, sqlite3_stmt *st, const char *what, gm_error *err)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        return gmh_fail_db(h, err, what);
    if (sqlite3_reset(st) != SQLITE_OK || sqlite3_clear_bindings(st) != SQLITE_OK)
        return gmh_fail_db(h, err, what);
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
            return gmh_fail_db(h, err, "reading the schema version");
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
                return n < 0 ? gmh_fail_db(h, err, "reading the schema")
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
        gm_status s = h->db ? gmh_fail_db(h, err, "cannot open")
                            : gm_fail(err, GM_ERR_NOMEM, "%s: SQLite: out of memory", path);
        gm_history_close(h);
        return s;
    }
    gm_status s = GM_OK;
    if (sqlite3_extended_result_codes(h->db, 1) != SQLITE_OK ||
        sqlite3_busy_timeout(h->db, GM_HISTORY_BUSY_MS) != SQLITE_OK)
        s = gmh_fail_db(h, err, "setting up the connection");
    /* WAL: readers do not block the writer, and a crash mid-add leaves the
     * last committed state; foreign keys checked. */
    if (s == GM_OK)
        s = S_exec(h, "PRAGMA foreign_keys = ON", err);
    if (s == GM_OK) {
        sqlite3_stmt *st = NULL;
        if ((s = gmh_prepare(h, "PRAGMA journal_mode = WAL", &st, err)) == GM_OK &&
            sqlite3_step(st) != SQLITE_ROW)
            s = gmh_fail_db(h, err, "switching to WAL");
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
    gm_status s = gmh_prepare(h,
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
        bool ok = gmh_bind_int(st, 1, run_id) && gmh_bind_text(st, 2, where) &&
                  gmh_bind_text(st, 3, l->file) && gmh_bind_int(st, 4, l->line) &&
                  gmh_bind_text(st, 5, l->function) &&
                  (l->line > 0 ? sqlite3_bind_null(st, 6) == SQLITE_OK
                               : gmh_bind_int(st, 6, l->pc)) &&
                  gmh_bind_text(st, 7, l->text) && gmh_bind_text(st, 8, l->sass);
        for (int k = 0; k < GM_SL_N && ok; k++)
            ok = gmh_bind_int(st, 9 + k, l->count[k]);
        s = ok ? S_step_done(h, st, "storing a source line", err)
               : gmh_fail_db(h, err, "binding a source line");
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
    if ((s = gmh_prepare(h, "SELECT id, json FROM results ORDER BY id", &js, err)) != GM_OK ||
        (s = gmh_prepare(h, "SELECT id FROM runs WHERE result_id = ?1 AND experiment = ?2 AND "
                            "variant = ?3 AND params = ?4", &run, err)) != GM_OK ||
        (s = gmh_prepare(h, version == 3 ? "UPDATE runs SET lines_status = ?2 WHERE id = ?1"
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
            bool ok = gmh_bind_int(run, 1, rid) &&
                      gmh_bind_text(run, 2, u->experiment ? u->experiment : "") &&
                      gmh_bind_text(run, 3, u->variant ? u->variant : "") &&
                      gmh_bind_text(run, 4, pt.data ? pt.data : "");
            gm_buf_free(&pt);
            if (!ok) {
                s = gmh_fail_db(h, err, "binding a run");
                break;
            }
            int r2 = sqlite3_step(run);
            long long run_id = r2 == SQLITE_ROW ? (long long)sqlite3_column_int64(run, 0) : -1;
            if ((r2 != SQLITE_ROW && r2 != SQLITE_DONE) || sqlite3_reset(run) != SQLITE_OK) {
                s = gmh_fail_db(h, err, "finding a run");
                break;
            }
            if (run_id < 0)
                continue;
            if (!gmh_bind_int(upd, 1, run_id) ||
                (version == 3 && !gmh_bind_text(upd, 2, u->source_lines.status)))
                s = gmh_fail_db(h, err, "binding a run");
            else
                s = S_step_done(h, upd, "marking a stored run", err);
            if (s == GM_OK && version == 3)
                s = S_add_lines(h, run_id, &u->source_lines, err);
        }
        gm_results_free(&r);
    }
    if (s == GM_OK && rc != SQLITE_DONE)
        s = gmh_fail_db(h, err, "reading the stored results");
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
    if ((s = gmh_prepare(h, "INSERT INTO runs(result_id, experiment, variant, params, "
                            "check_status, median_ms, lines_status, gated) "
                            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                         &run, err)) != GM_OK ||
        (s = gmh_prepare(h, "INSERT INTO samples(run_id, i, ms) VALUES(?1, ?2, ?3)", &smp, err)) !=
            GM_OK ||
        (s = gmh_prepare(h, "INSERT INTO metrics(run_id, name, value, unit) VALUES(?1, ?2, ?3, ?4)",
                         &met, err)) != GM_OK)
        goto done;
    for (size_t i = 0; i < r->n_runs && s == GM_OK; i++) {
        const gm_run *u = &r->runs[i];
        gm_buf pt = GM_BUF_INIT;
        gm_diff_params_text(&pt, u);
        bool ok = gmh_bind_int(run, 1, rid) &&
                  gmh_bind_text(run, 2, u->experiment ? u->experiment : "") &&
                  gmh_bind_text(run, 3, u->variant ? u->variant : "") &&
                  gmh_bind_text(run, 4, pt.data ? pt.data : "") &&
                  gmh_bind_text(run, 5, gm_check_status_name(u->check.status)) &&
                  S_bind_real(run, 6, u->timing.present ? u->timing.median : NAN) &&
                  gmh_bind_text(run, 7, u->source_lines.present ? u->source_lines.status : NULL) &&
                  gmh_bind_int(run, 8, u->timing.present && u->timing.gated);
        gm_buf_free(&pt);
        if (!ok) {
            s = gmh_fail_db(h, err, "binding a run");
            break;
        }
        if ((s = S_step_done(h, run, "storing a run", err)) != GM_OK)
            break;
        long long run_id = (long long)sqlite3_last_insert_rowid(h->db);
        for (size_t k = 0; u->timing.samples && k < u->timing.n && s == GM_OK; k++) {
            if (!gmh_bind_int(smp, 1, run_id) || !gmh_bind_int(smp, 2, (long long)k) ||
                !S_bind_real(smp, 3, u->timing.samples[k]))
                s = gmh_fail_db(h, err, "binding a sample");
            else
                s = S_step_done(h, smp, "storing a sample", err);
        }
        for (size_t k = 0; k < u->n_metrics && s == GM_OK; k++) {
            const gm_metric *m = &u->metrics[k];
            if (!gmh_bind_int(met, 1, run_id) || !gmh_bind_text(met, 2, m->name ? m->name : "") ||
                !S_bind_value(met, 3, &m->value) || !gmh_bind_text(met, 4, m->unit))
                s = gmh_fail_db(h, err, "binding a metric");
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
    if ((s = gmh_prepare(h, "INSERT INTO results(commit_id, dirty, commit_time, taken_at, device, "
                            "driver, settings, tool_version, source, added_at, json) "
                            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
                            "ON CONFLICT DO NOTHING",
                         &st, err)) != GM_OK)
        goto rollback;
    if (!gmh_bind_text(st, 1, r->commit ? r->commit : "unknown") ||
        !gmh_bind_int(st, 2, r->dirty) ||
        !(commit_time >= 0 ? gmh_bind_int(st, 3, commit_time)
                           : sqlite3_bind_null(st, 3) == SQLITE_OK) ||
        !gmh_bind_text(st, 4, r->taken_at ? r->taken_at : "unknown") ||
        !gmh_bind_text(st, 5, r->device.name ? r->device.name : "unknown GPU") ||
        !gmh_bind_text(st, 6, r->device.driver_version ? r->device.driver_version : "unknown") ||
        !gmh_bind_text(st, 7, settings) || !gmh_bind_text(st, 8, r->tool_version) ||
        !gmh_bind_text(st, 9, source) || !gmh_bind_text(st, 10, now) ||
        !gmh_bind_text(st, 11, json)) {
        s = gmh_fail_db(h, err, "binding a results file");
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
    gm_status s = gmh_prepare(h, sql, &st, err);
    if (s == GM_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            *n = (long long)sqlite3_column_int64(st, 0);
        else
            s = gmh_fail_db(h, err, "counting");
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
/* Reading the results back                                                 */
/* ======================================================================== */

char *gmh_col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return gm_xstrdup(t ? (const char *)t : "");
}

void gmh_resv_free(gmh_resv *r)
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
gm_status gmh_load_results(gm_history *h, const char *device, gmh_resv *out, gm_error *err)
{
    out->v = NULL;
    out->n = 0;
    sqlite3_stmt *st = NULL;
    gm_status s = gmh_prepare(h,
        "SELECT id, commit_id, dirty, commit_time, taken_at, device, driver, settings "
        "FROM results WHERE (?1 IS NULL OR device = ?1) ORDER BY device, settings, "
        "COALESCE(commit_time, CAST(strftime('%s', taken_at) AS INTEGER)), taken_at, id",
        &st, err);
    if (s != GM_OK)
        return s;
    if (!gmh_bind_text(st, 1, device)) {
        sqlite3_finalize(st);
        return gmh_fail_db(h, err, "binding the device");
    }
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 16;
            out->v = gm_xrealloc(out->v, cap * sizeof *out->v);
        }
        gmh_res *r = &out->v[out->n++];
        r->id = (long long)sqlite3_column_int64(st, 0);
        r->commit = gmh_col_text(st, 1);
        r->dirty = sqlite3_column_int(st, 2);
        r->ctime = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1
                                                             : (long long)sqlite3_column_int64(st, 3);
        r->taken_at = gmh_col_text(st, 4);
        r->device = gmh_col_text(st, 5);
        r->driver = gmh_col_text(st, 6);
        r->settings = gmh_col_text(st, 7);
    }
    if (rc != SQLITE_DONE)
        s = gmh_fail_db(h, err, "reading the results");
    sqlite3_finalize(st);
    if (s != GM_OK)
        gmh_resv_free(out);
    return s;
}
