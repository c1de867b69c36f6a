/* history_store.c — the history's SQLite file: open, schema and migrations,
 * add, counts, and the results read back in commit order (history.h; the
 * helpers the other history files share are in history_private.h).
 */
#include "history_private.h"

#include "../core/srclines.h"

#include <sqlite3.h>

#include <ctype.h>
#include <math.h>
#include <stdint.h>
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
    /* 4 -> 5: a results file's identity is also its device's UUID, the
     * process that collected (host, rank, pid; '' and -1 where not recorded)
     * and a digest of its runs, so that the two GPUs of one node, or two
     * collections of one second, are two results (then S_backfill_identity
     * fills them from the stored JSON).  SQLite changes a UNIQUE constraint
     * only by a new table: foreign keys are off while it migrates. */
    "CREATE TABLE results_v5("
    " id INTEGER PRIMARY KEY,"
    " commit_id TEXT NOT NULL, dirty INTEGER NOT NULL, commit_time INTEGER,"
    " taken_at TEXT NOT NULL, device TEXT NOT NULL, driver TEXT NOT NULL,"
    " settings TEXT NOT NULL, tool_version TEXT, source TEXT, added_at TEXT NOT NULL,"
    " json TEXT NOT NULL,"
    " device_uuid TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '',"
    " rank INTEGER NOT NULL DEFAULT -1, pid INTEGER NOT NULL DEFAULT -1,"
    " runs_digest TEXT NOT NULL DEFAULT '',"
    " UNIQUE(commit_id, dirty, taken_at, device, driver, settings, device_uuid, host, rank,"
    " pid, runs_digest));"
    "INSERT INTO results_v5(id, commit_id, dirty, commit_time, taken_at, device, driver,"
    " settings, tool_version, source, added_at, json)"
    " SELECT id, commit_id, dirty, commit_time, taken_at, device, driver, settings,"
    " tool_version, source, added_at, json FROM results;"
    "DROP TABLE results;"
    "ALTER TABLE results_v5 RENAME TO results;"
    "CREATE INDEX results_by_device ON results(device, settings, commit_time);",
    /* 5 -> 6: one identity per commit; no change to the tables (S_unify_commits
     * rewrites the ids and times stored) */
    "",
};

/* What a history database holds, at any schema version: anything else
 * (a trigger, a view, a table or index of someone else's) is refused before
 * a statement runs on it (S_check_schema). */
static const char *const S_tables[] = {"meta", "results", "runs", "samples", "metrics", "lines"};
static const char *const S_indexes[][2] = {
    {"runs_by_experiment", "CREATE INDEX runs_by_experiment ON runs(experiment, variant, params)"},
    {"results_by_device", "CREATE INDEX results_by_device ON results(device, settings, commit_time)"},
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
static gm_status S_backfill_identity(gm_history *h, gm_error *err);
static gm_status S_unify_commits(gm_history *h, gm_error *err);

/* After a table was made anew (migration 5): every row still points at
 * its parent. */
static gm_status S_foreign_keys_hold(gm_history *h, gm_error *err)
{
    sqlite3_stmt *st = NULL;
    gm_status s = gmh_prepare(h, "PRAGMA foreign_key_check", &st, err);
    if (s != GM_OK)
        return s;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        s = gm_fail(err, GM_ERR_VALUE, "%s: a row of table %s points at no row of its parent: "
                    "the database is damaged", h->path, sqlite3_column_text(st, 0)
                        ? (const char *)sqlite3_column_text(st, 0) : "?");
    else if (rc != SQLITE_DONE)
        s = gmh_fail_db(h, err, "checking foreign keys");
    sqlite3_finalize(st);
    return s;
}

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
            (v + 1 == 5 && (s = S_backfill_identity(h, err)) != GM_OK) ||
            (v + 1 == 5 && (s = S_foreign_keys_hold(h, err)) != GM_OK) ||
            (v + 1 == 6 && (s = S_unify_commits(h, err)) != GM_OK) ||
            (s = S_exec(h, pragma, err)) != GM_OK || (s = S_exec(h, "COMMIT", err)) != GM_OK) {
            S_exec(h, "ROLLBACK", NULL);
            return s;
        }
    }
}

/* SQLite's defences for a database file of unknown origin
 * (https://sqlite.org/security.html): defensive mode (no writable_schema,
 * no direct writes to the schema or shadow tables), an untrusted schema
 * (functions with side effects may not run from it), triggers and views
 * off, page sizes checked as they are read, no memory mapping. */
static gm_status S_defensive(gm_history *h, gm_error *err)
{
    int on = -1;
    if (sqlite3_db_config(h->db, SQLITE_DBCONFIG_DEFENSIVE, 1, &on) != SQLITE_OK || on != 1 ||
        sqlite3_db_config(h->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &on) != SQLITE_OK ||
        on != 0 ||
        sqlite3_db_config(h->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &on) != SQLITE_OK ||
        on != 0 ||
        sqlite3_db_config(h->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, &on) != SQLITE_OK || on != 0)
        return gmh_fail_db(h, err, "setting SQLite's defensive options");
    gm_status s = S_exec(h, "PRAGMA trusted_schema = OFF", err);
    if (s == GM_OK)
        s = S_exec(h, "PRAGMA cell_size_check = ON", err);
    if (s == GM_OK)
        s = S_exec(h, "PRAGMA mmap_size = 0", err);
    return s;
}

/* Every object of the schema is one a history has (S_tables, S_indexes,
 * SQLite's own): a trigger could rewrite what is stored, a view could hang
 * a query, and neither is ever part of a history; an unknown table or
 * index means the file is something else's. */
static gm_status S_check_schema(gm_history *h, gm_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h->db, "SELECT type, name, sql FROM sqlite_master ORDER BY rowid", -1,
                           &st, NULL) != SQLITE_OK)
        return gmh_fail_db(h, err, "reading the schema");
    gm_status s = GM_OK;
    int rc = SQLITE_DONE;
    while (s == GM_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *sql = (const char *)sqlite3_column_text(st, 2);
        type = type ? type : "";
        name = name ? name : "";
        bool known = false;
        if (strcmp(type, "table") == 0) {
            /* a table of its name, not a virtual table of some module */
            for (size_t i = 0; i < sizeof S_tables / sizeof *S_tables && !known; i++)
                known = strcmp(name, S_tables[i]) == 0 && sql &&
                        strncmp(sql, "CREATE TABLE ", 13) == 0;
            /* sqlite_sequence, sqlite_stat1..4: SQLite's own */
            known = known || strncmp(name, "sqlite_", 7) == 0;
        } else if (strcmp(type, "index") == 0) {
            for (size_t i = 0; i < sizeof S_indexes / sizeof *S_indexes && !known; i++)
                known = strcmp(name, S_indexes[i][0]) == 0 && sql &&
                        strcmp(sql, S_indexes[i][1]) == 0;
            /* the indexes of PRIMARY KEY and UNIQUE constraints */
            known = known || (strncmp(name, "sqlite_autoindex_", 17) == 0 && !sql);
        }
        if (known)
            continue;
        const char *kind = strcmp(type, "table") == 0     ? "a table"
                           : strcmp(type, "index") == 0   ? "an index"
                           : strcmp(type, "trigger") == 0 ? "a trigger"
                           : strcmp(type, "view") == 0    ? "a view"
                                                          : "an object";
        gm_buf what = GM_BUF_INIT;
        for (size_t i = 0; name[i] && i < 64; i++)
            gm_buf_putc(&what, (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i]);
        s = gm_fail(err, GM_ERR_VALUE,
                    "%s: not a gpumem-report history database: it holds %s '%s'%s; refused "
                    "before anything ran or was written (a history holds only its own tables "
                    "and indexes: docs/history.md)", h->path, kind, what.data ? what.data : "",
                    strcmp(type, "trigger") == 0 ? ", which would run on every add"
                    : strcmp(type, "view") == 0 ? ", which would run in the queries" : "");
        gm_buf_free(&what);
    }
    if (s == GM_OK && rc != SQLITE_DONE)
        s = gmh_fail_db(h, err, "reading the schema");
    sqlite3_finalize(st);
    return s;
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
    /* A history file may come from elsewhere (a CI artefact): nothing in it
     * runs (no trigger, no view, no function with side effects from its
     * schema), its schema cannot be written around SQLite, and it holds only
     * what a history holds (S_check_schema), checked before anything is
     * written to it. */
    if (s == GM_OK)
        s = S_defensive(h, err);
    if (s == GM_OK)
        s = S_check_schema(h, err);
    /* WAL: readers do not block the writer, and a crash mid-add leaves the
     * last committed state. */
    if (s == GM_OK) {
        sqlite3_stmt *st = NULL;
        if ((s = gmh_prepare(h, "PRAGMA journal_mode = WAL", &st, err)) == GM_OK &&
            sqlite3_step(st) != SQLITE_ROW)
            s = gmh_fail_db(h, err, "switching to WAL");
        sqlite3_finalize(st);
    }
    /* foreign keys off while the schema migrates (a table made anew), then
     * checked on every write */
    if (s == GM_OK)
        s = S_exec(h, "PRAGMA foreign_keys = OFF", err);
    if (s == GM_OK)
        s = S_migrate(h, err);
    if (s == GM_OK)
        s = S_exec(h, "PRAGMA foreign_keys = ON", err);
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

/* ---- a results file's identity ------------------------------------------- */

/* SHA-256 (FIPS 180-4) of n bytes, as 64 hex digits into hex[65]: the digest
 * of a results file's runs. */
static uint32_t S_ror(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void S_sha256_block(uint32_t st[8], const unsigned char *p)
{
    static const uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++)
        w[i] = w[i - 16] + (S_ror(w[i - 15], 7) ^ S_ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
               w[i - 7] + (S_ror(w[i - 2], 17) ^ S_ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
    uint32_t a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6],
             hh = st[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (S_ror(e, 6) ^ S_ror(e, 11) ^ S_ror(e, 25)) + ((e & f) ^ (~e & g)) +
                      k[i] + w[i];
        uint32_t t2 = (S_ror(a, 2) ^ S_ror(a, 13) ^ S_ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    st[0] += a, st[1] += b, st[2] += c, st[3] += d;
    st[4] += e, st[5] += f, st[6] += g, st[7] += hh;
}

static void S_sha256_hex(const void *data, size_t n, char hex[65])
{
    uint32_t st[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    size_t left = n;
    for (; left >= 64; p += 64, left -= 64)
        S_sha256_block(st, p);
    unsigned char tail[128] = {0};
    memcpy(tail, p, left);
    tail[left] = 0x80;
    size_t tn = left < 56 ? 64 : 128;
    unsigned long long bits = (unsigned long long)n * 8;
    for (int i = 0; i < 8; i++)
        tail[tn - 1 - i] = (unsigned char)(bits >> (8 * i));
    S_sha256_block(st, tail);
    if (tn == 128)
        S_sha256_block(st, tail + 64);
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", (unsigned)st[i]);
}

/* What tells one results file from another of the same commit, time,
 * device name, driver and settings: the device's UUID and the process that
 * collected (as the file records them: '' and -1 where it does not), and the
 * digest of its runs written as the writer writes them (so two files of the
 * same runs are one, however their text is spaced). */
typedef struct {
    const char *device_uuid, *host;
    long long rank, pid;
    char runs_digest[65];
} S_ident;

static void S_identity(const gm_results *r, S_ident *id)
{
    const gm_process *p = &r->collection.process;
    id->device_uuid = p->present && p->device_uuid ? p->device_uuid : "";
    id->host = p->present && p->host ? p->host : "";
    id->rank = p->present && p->rank.kind == GM_V_INT ? p->rank.i : -1;
    id->pid = p->present ? p->pid : -1;
    gm_results runs;
    memset(&runs, 0, sizeof runs);
    runs.runs = r->runs;   /* borrowed: only written, never freed */
    runs.n_runs = r->n_runs;
    char *json = gm_results_to_json(&runs);
    S_sha256_hex(json, strlen(json), id->runs_digest);
    free(json);
}

static bool S_bind_identity(sqlite3_stmt *st, int first, const S_ident *id)
{
    return gmh_bind_text(st, first, id->device_uuid) && gmh_bind_text(st, first + 1, id->host) &&
           gmh_bind_int(st, first + 2, id->rank) && gmh_bind_int(st, first + 3, id->pid) &&
           gmh_bind_text(st, first + 4, id->runs_digest);
}

/* Migration 4 -> 5: the identity of each stored results file, from its JSON. */
static gm_status S_backfill_identity(gm_history *h, gm_error *err)
{
    sqlite3_stmt *js = NULL, *upd = NULL;
    gm_status s;
    if ((s = gmh_prepare(h, "SELECT id, json FROM results ORDER BY id", &js, err)) != GM_OK ||
        (s = gmh_prepare(h, "UPDATE results SET device_uuid = ?2, host = ?3, rank = ?4, "
                            "pid = ?5, runs_digest = ?6 WHERE id = ?1", &upd, err)) != GM_OK)
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
        S_ident id;
        S_identity(&r, &id);
        if (!gmh_bind_int(upd, 1, rid) || !S_bind_identity(upd, 2, &id))
            s = gmh_fail_db(h, err, "binding a results file");
        else
            s = S_step_done(h, upd, "storing a results file's identity", err);
        gm_results_free(&r);
    }
    if (s == GM_OK && rc != SQLITE_DONE)
        s = gmh_fail_db(h, err, "reading the stored results");
done:
    sqlite3_finalize(js);
    sqlite3_finalize(upd);
    return s;
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

/* ---- one identity per commit ----------------------------------------------- */

/* A commit id git could have written: hex digits, at least 4. */
static bool S_hex_id(const char *c)
{
    size_t n = 0;
    for (; c && c[n]; n++)
        if (!isxdigit((unsigned char)c[n]))
            return false;
    return n >= 4;
}

/* A full commit id: SHA-1 (40 digits) or SHA-256 (64). */
static bool S_full_id(const char *c)
{
    return S_hex_id(c) && (strlen(c) == 40 || strlen(c) == 64);
}

/* The stored full ids that begin with the short id c (case aside): the
 * first two in got (caller frees), their count (at most 2) in *n. */
static gm_status S_full_ids_of(gm_history *h, const char *c, char *got[2], size_t *n,
                               gm_error *err)
{
    *n = 0;
    got[0] = got[1] = NULL;
    sqlite3_stmt *st = NULL;
    gm_status s = gmh_prepare(h, "SELECT DISTINCT commit_id FROM results WHERE "
                                 "length(commit_id) IN (40, 64) AND "
                                 "NOT commit_id GLOB '*[^0-9a-fA-F]*' AND "
                                 "lower(substr(commit_id, 1, length(?1))) = lower(?1) "
                                 "ORDER BY commit_id LIMIT 2", &st, err);
    if (s != GM_OK)
        return s;
    if (!gmh_bind_text(st, 1, c)) {
        sqlite3_finalize(st);
        return gmh_fail_db(h, err, "binding a commit");
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < 2)
        got[(*n)++] = gmh_col_text(st, 0);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        free(got[0]);
        free(got[1]);
        got[0] = got[1] = NULL;
        *n = 0;
        s = gmh_fail_db(h, err, "reading the stored commits");
    }
    sqlite3_finalize(st);
    return s;
}

gm_status gm_history_resolve_commit(gm_history *h, const char *commit, char **out,
                                    gm_error *err)
{
    *out = NULL;
    if (!commit || !*commit) {
        *out = gm_xstrdup("unknown");
        return GM_OK;
    }
    if (!S_hex_id(commit) || S_full_id(commit) || strlen(commit) > 64) {
        *out = gm_xstrdup(commit);
        return GM_OK;
    }
    char *got[2];
    size_t n;
    gm_status s = S_full_ids_of(h, commit, got, &n, err);
    if (s != GM_OK)
        return s;
    if (n == 2)
        s = gm_fail(err, GM_ERR_VALUE, "%s: commit %s is ambiguous: the history holds %s and %s, "
                    "which both begin with it; name the commit by its full id in the results file "
                    "(git rev-parse %s gives it)", h->path,
                    commit, got[0], got[1], commit);
    else
        *out = gm_xstrdup(n == 1 ? got[0] : commit);
    free(got[0]);
    free(got[1]);
    return s;
}

const char *gm_history_commit_warning(const gm_results *r, char *buf, size_t cap)
{
    /* the commit as text from outside: printable, and not too long */
    char c[48];
    size_t k = 0;
    for (const char *p = r->commit; p && *p && k + 4 < sizeof c; p++)
        c[k++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
    if (r->commit && strlen(r->commit) > k)
        c[k++] = '.', c[k++] = '.', c[k++] = '.';
    c[k] = '\0';
    if (!r->commit || !*r->commit)
        snprintf(buf, cap, "it records no commit: stored as commit 'unknown', ordered by when it "
                 "was taken, and not told apart from other files without one");
    else if (!S_hex_id(r->commit))
        snprintf(buf, cap, "its commit '%s' is not a commit id (hex digits): it names no fixed "
                 "commit, so its place among the commits is a guess (build with the commit "
                 "recorded: make GIT_COMMIT=<id>)", c);
    else if (r->dirty == 1)
        snprintf(buf, cap, "it was collected from a dirty tree of %.12s: its code is not that "
                 "commit's as committed (the gate compares with clean trees where the "
                 "history has some)", c);
    else
        return NULL;
    return buf;
}

/* One identity per commit: each short hex id stored that begins exactly one
 * full id stored becomes that id (a results file the same but for its
 * commit's spelling stays as it was); then each results file of a hex commit
 * without a commit time takes the one the first of that commit's files with
 * a time has. */
static gm_status S_unify_commits(gm_history *h, gm_error *err)
{
    sqlite3_stmt *ids = NULL, *upd = NULL;
    char **shorts = NULL;
    size_t ns = 0;
    gm_status s = gmh_prepare(h, "SELECT DISTINCT commit_id FROM results", &ids, err);
    if (s == GM_OK)
        s = gmh_prepare(h, "UPDATE OR IGNORE results SET commit_id = ?1 WHERE commit_id = ?2",
                        &upd, err);
    int rc = SQLITE_DONE;
    while (s == GM_OK && (rc = sqlite3_step(ids)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(ids, 0);
        if (!c || !S_hex_id(c) || S_full_id(c) || strlen(c) > 64)
            continue;
        shorts = gm_xrealloc(shorts, (ns + 1) * sizeof *shorts);
        shorts[ns++] = gm_xstrdup(c);
    }
    if (s == GM_OK && rc != SQLITE_DONE)
        s = gmh_fail_db(h, err, "reading the stored commits");
    for (size_t i = 0; i < ns && s == GM_OK; i++) {
        char *got[2];
        size_t n;
        if ((s = S_full_ids_of(h, shorts[i], got, &n, err)) != GM_OK)
            break;
        if (n == 1) {
            if (!gmh_bind_text(upd, 1, got[0]) || !gmh_bind_text(upd, 2, shorts[i]))
                s = gmh_fail_db(h, err, "binding a commit");
            else
                s = S_step_done(h, upd, "storing a commit's full id", err);
        }
        free(got[0]);
        free(got[1]);
    }
    for (size_t i = 0; i < ns; i++)
        free(shorts[i]);
    free(shorts);
    sqlite3_finalize(ids);
    sqlite3_finalize(upd);
    if (s == GM_OK)
        s = S_exec(h, "UPDATE results SET commit_time = (SELECT o.commit_time FROM results o "
                      "WHERE o.commit_id = results.commit_id AND o.commit_time IS NOT NULL "
                      "ORDER BY o.id LIMIT 1) WHERE commit_time IS NULL AND "
                      "length(commit_id) >= 4 AND NOT commit_id GLOB '*[^0-9a-fA-F]*'", err);
    return s;
}

gm_status gm_history_add(gm_history *h, const gm_results *r, const char *json,
                         long long commit_time, const char *source, bool *added, gm_error *err)
{
    *added = false;
    char *settings = gm_history_settings(r), *now = S_now_utc(), *commit = NULL;
    sqlite3_stmt *st = NULL;
    gm_status s = S_exec(h, "BEGIN IMMEDIATE", err);
    if (s != GM_OK)
        goto out;
    if ((s = gm_history_resolve_commit(h, r->commit, &commit, err)) != GM_OK)
        goto rollback;
    if ((s = gmh_prepare(h, "INSERT INTO results(commit_id, dirty, commit_time, taken_at, device, "
                            "driver, settings, tool_version, source, added_at, json, device_uuid, "
                            "host, rank, pid, runs_digest) "
                            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                            "?15, ?16) ON CONFLICT DO NOTHING",
                         &st, err)) != GM_OK)
        goto rollback;
    S_ident id;
    S_identity(r, &id);
    if (!gmh_bind_text(st, 1, commit) ||
        !gmh_bind_int(st, 2, r->dirty) ||
        !(commit_time >= 0 ? gmh_bind_int(st, 3, commit_time)
                           : sqlite3_bind_null(st, 3) == SQLITE_OK) ||
        !gmh_bind_text(st, 4, r->taken_at ? r->taken_at : "unknown") ||
        !gmh_bind_text(st, 5, r->device.name ? r->device.name : "unknown GPU") ||
        !gmh_bind_text(st, 6, r->device.driver_version ? r->device.driver_version : "unknown") ||
        !gmh_bind_text(st, 7, settings) || !gmh_bind_text(st, 8, r->tool_version) ||
        !gmh_bind_text(st, 9, source) || !gmh_bind_text(st, 10, now) ||
        !gmh_bind_text(st, 11, json) || !S_bind_identity(st, 12, &id)) {
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
    if ((s = S_add_runs(h, r, rid, err)) != GM_OK || (s = S_unify_commits(h, err)) != GM_OK)
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
    free(commit);
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
        free(r->v[i].twin);
    }
    free(r->v);
    r->v = NULL;
    r->n = 0;
}

/* Keep r->twin only on results that share their group (device, settings),
 * commit, dirty flag and taken_at with another: the rows of the two GPUs of
 * one node would otherwise read the same.  The loaded order puts a group's
 * results of one commit time and taken_at next to each other. */
static void S_mark_twins(gmh_resv *out)
{
    bool *keep = gm_xcalloc(out->n ? out->n : 1, sizeof *keep);
    for (size_t i = 0; i + 1 < out->n; i++) {
        const gmh_res *a = &out->v[i], *b = &out->v[i + 1];
        if (strcmp(a->device, b->device) == 0 && strcmp(a->settings, b->settings) == 0 &&
            strcmp(a->commit, b->commit) == 0 && a->dirty == b->dirty &&
            strcmp(a->taken_at, b->taken_at) == 0)
            keep[i] = keep[i + 1] = true;
    }
    for (size_t i = 0; i < out->n; i++)
        if (!keep[i]) {
            free(out->v[i].twin);
            out->v[i].twin = NULL;
        }
    free(keep);
}

/* The results, grouped by device and settings, each group in commit order
 * (commit time, else taken_at). */
gm_status gmh_load_results(gm_history *h, const char *device, gmh_resv *out, gm_error *err)
{
    out->v = NULL;
    out->n = 0;
    sqlite3_stmt *st = NULL;
    gm_status s = gmh_prepare(h,
        "SELECT id, commit_id, dirty, commit_time, taken_at, device, driver, settings, "
        "device_uuid, pid FROM results WHERE (?1 IS NULL OR device = ?1) ORDER BY device, settings, "
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
        r->twin = NULL;
        char *uuid = gmh_col_text(st, 8);
        long long pid = (long long)sqlite3_column_int64(st, 9);
        char label[64];
        if (uuid[0])
            snprintf(label, sizeof label, "%.12s", uuid);
        else if (pid >= 0)
            snprintf(label, sizeof label, "pid %lld", pid);
        else
            snprintf(label, sizeof label, "result %lld", r->id);
        free(uuid);
        r->twin = gm_xstrdup(label);   /* kept below only where it tells twins apart */
    }
    if (rc != SQLITE_DONE)
        s = gmh_fail_db(h, err, "reading the results");
    sqlite3_finalize(st);
    if (s != GM_OK) {
        gmh_resv_free(out);
        return s;
    }
    S_mark_twins(out);
    return s;
}
