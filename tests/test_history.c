/* test_history.c — the SQLite history: adds that are idempotent and survive
 * concurrent writers, the schema's version and migration, the change points
 * (an exact counter's step attributed to its commit, no step in a noisy
 * series that does not shift), and the CLI's add, report, gate and export. */
#include "../core/catalog.h"
#include "../core/results.h"
#include "../core/srclines.h"
#include "../reports/history.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <sqlite3.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char S_dir[] = "/tmp/gm-history-XXXXXX";
static char *S_db;

static void S_setup(void)
{
    strcpy(S_dir, "/tmp/gm-history-XXXXXX");
    cr_assert(mkdtemp(S_dir));
    S_db = gmt_join(S_dir, "h.sqlite");
}

static void S_teardown(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", S_dir);
    cr_expect_eq(system(cmd), 0);
    free(S_db);
}

TestSuite(history, .init = S_setup, .fini = S_teardown);

static gm_history *S_open(void)
{
    gm_history *h = NULL;
    gm_error err;
    cr_assert_eq(gm_history_open(S_db, true, &h, &err), GM_OK, "%s", err.message);
    return h;
}

/* The fixture with another commit, time and taken_at; *json its text. */
static void S_variant_of(gm_results *r, char **json, const char *commit, int k)
{
    gmt_load_fixture("diff-base.json", r);
    free(r->commit);
    r->commit = strdup(commit);
    free(r->taken_at);
    char t[32];
    snprintf(t, sizeof t, "2026-01-01T00:%02d:%02dZ", k / 60 % 60, k % 60);
    r->taken_at = strdup(t);
    *json = gm_results_to_json(r);
}

static void S_counts(gm_history *h, long long c[4])
{
    gm_error err;
    cr_assert_eq(gm_history_counts(h, &c[0], &c[1], &c[2], &c[3], &err), GM_OK, "%s",
                 err.message);
}

Test(history, add_twice_is_a_no_op)
{
    gm_history *h = S_open();
    cr_expect_eq(gm_history_schema_version(h), GM_HISTORY_SCHEMA);
    gm_results r;
    char *json;
    S_variant_of(&r, &json, "aaaa", 0);
    gm_error err;
    bool added = false;
    cr_assert_eq(gm_history_add(h, &r, json, 100, "a.json", &added, &err), GM_OK, "%s",
                 err.message);
    cr_expect(added);
    long long c1[4];
    S_counts(h, c1);
    cr_expect_eq(c1[0], 1);
    cr_expect_eq(c1[1], (long long)r.n_runs);
    cr_expect_gt(c1[2], 0, "timing samples stored");
    cr_expect_gt(c1[3], 0, "metrics stored");
    cr_assert_eq(gm_history_add(h, &r, json, 100, "a.json", &added, &err), GM_OK);
    cr_expect_not(added, "the same run again adds nothing");
    long long c2[4];
    S_counts(h, c2);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(c1[i], c2[i]);
    gm_history_close(h);
    free(json);
    gm_results_free(&r);
}

/* Two processes, each adding many runs through its own connection: every
 * row must be there afterwards (transactions and the busy timeout). */
Test(history, two_concurrent_writers_lose_nothing)
{
    gm_history_close(S_open());   /* the schema exists before the race */
    enum { PER = 25 };
    pid_t pid[2];
    for (int w = 0; w < 2; w++) {
        pid[w] = fork();
        cr_assert_neq(pid[w], -1);
        if (pid[w] == 0) {
            gm_history *h = NULL;
            gm_error err;
            int bad = gm_history_open(S_db, true, &h, &err) != GM_OK;
            for (int k = 0; k < PER && !bad; k++) {
                gm_results r;
                char *json, commit[16];
                snprintf(commit, sizeof commit, "w%d", w);
                S_variant_of(&r, &json, commit, k);
                bool added = false;
                bad = gm_history_add(h, &r, json, k, "w.json", &added, &err) != GM_OK || !added;
                if (bad)
                    fprintf(stderr, "writer %d, add %d: %s\n", w, k, err.message);
                free(json);
                gm_results_free(&r);
            }
            gm_history_close(h);
            _exit(bad);
        }
    }
    for (int w = 0; w < 2; w++) {
        int st = 0;
        cr_assert_eq(waitpid(pid[w], &st, 0), pid[w]);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d failed", w);
    }
    gm_history *h = S_open();
    long long c[4];
    S_counts(h, c);
    gm_results r;
    gmt_load_fixture("diff-base.json", &r);
    cr_expect_eq(c[0], 2 * PER, "%lld results of %d", c[0], 2 * PER);
    cr_expect_eq(c[1], 2 * PER * (long long)r.n_runs);
    gm_results_free(&r);
    gm_history_close(h);
}

Test(history, schema_is_checked_and_migrated)
{
    gm_history_close(S_open());
    /* make it a version-1 file: no indexes, user_version 1 */
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(S_db, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "DROP INDEX runs_by_experiment; DROP INDEX results_by_device;"
                                  "DROP TABLE lines; ALTER TABLE runs DROP COLUMN lines_status;"
                                  "ALTER TABLE runs DROP COLUMN gated;"
                                  "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    gm_history *h = S_open();
    cr_expect_eq(gm_history_schema_version(h), GM_HISTORY_SCHEMA, "migrated from 1");
    gm_history_close(h);
    cr_assert_eq(sqlite3_open(S_db, &db), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type='index' "
                                        "AND name='runs_by_experiment'", -1, &st, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_expect_eq(sqlite3_column_int(st, 0), 1, "the index of version 2 was made");
    sqlite3_finalize(st);
    /* a newer schema is refused, naming both versions */
    cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    gm_error err;
    cr_expect_eq(gm_history_open(S_db, true, &h, &err), GM_ERR_VALUE);
    cr_expect(strstr(err.message, "99") && strstr(err.message, "newer"), "%s", err.message);
    /* another program's database is refused */
    char *other = gmt_join(S_dir, "other.sqlite");
    cr_assert_eq(sqlite3_open(other, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    cr_expect_eq(gm_history_open(other, true, &h, &err), GM_ERR_VALUE);
    cr_expect(strstr(err.message, "not a gpumem-report history"), "%s", err.message);
    free(other);
}

Test(history, exact_steps_on_any_change)
{
    double v[] = {5, 5, NAN, 5, 7, 7, 7, 6};
    size_t at[8];
    size_t k = gm_steps_exact(v, 8, at);
    cr_assert_eq(k, 2);
    cr_expect_eq(at[0], 4);
    cr_expect_eq(at[1], 7);
}

/* Box–Muller over a fixed LCG: the same noise every run. */
static double S_gauss(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    double u1 = ((*s >> 11) + 0.5) / 9007199254740992.0;
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    double u2 = ((*s >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

Test(history, noisy_series_without_a_shift_has_no_step)
{
    enum { N = 40 };
    size_t at[N];
    for (unsigned long long seed = 1; seed <= 50; seed++) {
        unsigned long long s = seed;
        double v[N];
        for (int i = 0; i < N; i++)
            v[i] = 1.0 + 0.02 * S_gauss(&s);   /* 2 % noise around 1 ms */
        size_t k = gm_steps_noisy(v, N, 0.05, 0.0, NULL, NULL, at);
        cr_expect_eq(k, 0, "seed %llu: %zu steps, the first at %zu", seed, k, k ? at[0] : 0);
    }
}

Test(history, noisy_series_with_a_shift_has_one_step_where_it_is)
{
    enum { N = 40 };
    size_t at[N];
    for (unsigned long long seed = 1; seed <= 50; seed++) {
        unsigned long long s = seed;
        double v[N];
        for (int i = 0; i < N; i++)
            v[i] = (i < 23 ? 1.0 : 1.3) + 0.02 * S_gauss(&s);
        size_t k = gm_steps_noisy(v, N, 0.05, 0.0, NULL, NULL, at);
        cr_expect_eq(k, 1, "seed %llu: %zu steps", seed, k);
        cr_expect(k && at[0] == 23, "seed %llu: step at %zu", seed, k ? at[0] : 0);
    }
    /* a step at the newest point is seen at once */
    double v[8] = {1, 1.01, 0.99, 1, 1.02, 0.98, 1, 1.5};
    size_t k = gm_steps_noisy(v, 8, 0.05, 0.0, NULL, NULL, at);
    cr_expect(k == 1 && at[0] == 7, "%zu steps", k);
}

/* Five commits; the fourth doubles every run's load sectors: the report marks
 * the step at that commit and no other. */
Test(history, exact_counter_step_attributed_to_its_commit)
{
    gm_history *h = S_open();
    const char *commits[] = {"c1c1c1c1c1c1c1", "c2c2c2c2c2c2c2", "c3c3c3c3c3c3c3",
                             "c4c4c4c4c4c4c4", "c5c5c5c5c5c5c5"};
    for (int k = 0; k < 5; k++) {
        gm_results r;
        char *json;
        S_variant_of(&r, &json, commits[k], k);
        free(json);
        for (size_t i = 0; i < r.n_runs; i++) {
            gm_run *run = &r.runs[i];
            for (size_t m = 0; m < run->n_metrics; m++)
                if (strcmp(run->metrics[m].name, GM_M_LD_SECTORS) == 0 && k >= 3)
                    run->metrics[m].value.i *= 2;
        }
        json = gm_results_to_json(&r);
        gm_error err;
        bool added;
        cr_assert_eq(gm_history_add(h, &r, json, 1000 + k, "x.json", &added, &err), GM_OK, "%s",
                     err.message);
        free(json);
        gm_results_free(&r);
    }
    gm_history_query q = {0};
    char *md = NULL;
    gm_error err;
    cr_assert_eq(gm_history_report_md(h, &q, &md, &err), GM_OK, "%s", err.message);
    const char *row = strstr(md, "| `c4c4c4c4c4c4` | `");
    cr_assert(row, "a step at the fourth commit:\n%s", md);
    const char *eol = strchr(row, '\n');
    cr_expect(strstr(row, "ld sectors") && strstr(row, "ld sectors") < eol, "%.*s",
              (int)(eol - row), row);
    cr_expect(strstr(row, "exact count: any change") < eol);
    gmt_assert_lacks(md, "| `c2c2c2c2c2c2` | `");
    gmt_assert_lacks(md, "| `c5c5c5c5c5c5` | `");
    free(md);

    /* the export has every value, the median time as "time" */
    char *csv = NULL;
    cr_assert_eq(gm_history_csv(h, &q, &csv, &err), GM_OK, "%s", err.message);
    cr_expect_eq(strncmp(csv, "commit,dirty,commit_time,taken_at,device,", 41), 0);
    gmt_assert_has(csv, ",time,");
    gmt_assert_has(csv, "c4c4c4c4c4c4c4,0,1970-01-01T00:16:43Z,");
    free(csv);
    gm_history_close(h);
}

/* The CLI: add, the gate against the history, and a regression it fails. */
Test(history, cli_add_gate_export)
{
    char *fx = gmt_fixture("diff-base.json"), *head = gmt_fixture("diff-head.json");
    char *argv1[] = {(char *)gmt_bin(), "history", "add", fx, "--db", S_db, NULL};
    cr_expect_eq(gmt_exec(argv1, NULL, NULL, NULL), 0);
    cr_expect_eq(gmt_exec(argv1, NULL, NULL, NULL), 0, "adding again is fine");
    char *md = gmt_join(S_dir, "gate.md");
    char *argv2[] = {(char *)gmt_bin(), "history", "gate", head, "--db", S_db, "--out", md, NULL};
    cr_expect_eq(gmt_exec(argv2, NULL, NULL, NULL), 1, "the fixture's head regressed");
    char *text = gmt_slurp(md);
    cr_assert(text);
    gmt_assert_has(text, "### gpumem-report history gate: fail:");
    free(text);
    char *argv3[] = {(char *)gmt_bin(), "history", "gate", fx, "--db", S_db, "--out", md, NULL};
    cr_expect_eq(gmt_exec(argv3, NULL, NULL, NULL), 2, "nothing else in the history to compare");
    char *csv = gmt_join(S_dir, "h.csv");
    char *argv4[] = {(char *)gmt_bin(), "history", "export", "--format", "csv", "--db", S_db,
                     "--out", csv, NULL};
    cr_expect_eq(gmt_exec(argv4, NULL, NULL, NULL), 0);
    cr_expect(gmt_exists(csv));
    char *nodb = gmt_join(S_dir, "none.sqlite");
    char *argv5[] = {(char *)gmt_bin(), "history", "report", "--db", nodb, NULL};
    cr_expect_eq(gmt_exec(argv5, NULL, NULL, NULL), 2, "report does not create a database");
    free(nodb);
    free(csv);
    free(md);
    free(fx);
    free(head);
}

/* The H100's recorded per-instruction counts of transpose/tiled (the tile
 * read back with a 32-way conflict on exp_transpose.cu:65), as the per-line
 * counts of run `at` of r. */
static void S_attach_lines(gm_results *r, size_t at)
{
    char *path = gmt_fixture("sass-records-transpose-tiled.txt");
    char *text = gmt_text(path);
    gm_sl_record *rec;
    size_t n;
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_sl_records_parse(text, path, &rec, &n, &err), GM_OK, "%s", err.message);
    gm_srclines *sl = &r->runs[at].source_lines;
    gm_srclines_clear(sl);
    gm_srclines_from_records(sl, rec, n);
    sl->present = true;
    sl->status = gm_xstrdup("collected");
    gm_sl_records_free(rec, n);
    free(text);
    free(path);
}

static long long S_scalar(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* Per-line counts are stored per run, and the report names the commit at
 * which a line's excess changed (the conflict on line 65 goes away at the
 * third of four commits) and no other. */
Test(history, source_lines_stored_and_their_change_attributed)
{
    gm_history *h = S_open();
    const char *commits[] = {"d1d1d1d1d1d1d1", "d2d2d2d2d2d2d2", "d3d3d3d3d3d3d3",
                             "d4d4d4d4d4d4d4"};
    size_t nl = 0;
    long long sectors = 0;
    for (int k = 0; k < 4; k++) {
        gm_results r;
        char *json;
        S_variant_of(&r, &json, commits[k], k);
        free(json);
        S_attach_lines(&r, 4);   /* transpose tiled n=4096 */
        gm_srclines *sl = &r.runs[4].source_lines;
        nl = sl->n_lines;
        sectors = gm_srclines_total(sl, GM_SL_SECTORS);
        for (size_t i = 0; k >= 2 && i < sl->n_lines; i++)
            if (sl->lines[i].line == 65)
                sl->lines[i].count[GM_SL_WAVEFRONTS] = sl->lines[i].count[GM_SL_WAVEFRONTS_IDEAL];
        /* and coalescing stride=1, not the size the trend follows for that
         * layout (the per-line pass counts one case per layout): its line 65
         * changes at the fourth commit */
        S_attach_lines(&r, 0);
        sl = &r.runs[0].source_lines;
        for (size_t i = 0; k >= 3 && i < sl->n_lines; i++)
            if (sl->lines[i].line == 65)
                sl->lines[i].count[GM_SL_WAVEFRONTS] += 1000;
        json = gm_results_to_json(&r);
        gm_error err;
        bool added;
        cr_assert_eq(gm_history_add(h, &r, json, 2000 + k, "x.json", &added, &err), GM_OK, "%s",
                     err.message);
        free(json);
        gm_results_free(&r);
    }
    gm_history_query q = {0};
    char *md = NULL;
    gm_error err;
    cr_assert_eq(gm_history_report_md(h, &q, &md, &err), GM_OK, "%s", err.message);
    gm_history_close(h);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM lines"), 8 * (long long)nl);
    cr_expect_eq(S_scalar(S_db, "SELECT sum(sectors) FROM lines l JOIN runs r ON l.run_id = r.id "
                                "JOIN results s ON r.result_id = s.id "
                                "WHERE s.commit_id = 'd1d1d1d1d1d1d1' AND r.variant = 'tiled'"),
                 sectors,
                 "the lines add up to the recorded total");
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM runs WHERE lines_status = 'collected'"), 8);
    const char *row = strstr(md, "| `d3d3d3d3d3d3` | `tiled` `n=4096, tile=32` | "
                                 "`exp_transpose.cu:65` |");
    cr_assert(row, "line 65's change at the third commit:\n%s", md);
    const char *eol = strchr(row, '\n');
    cr_expect(strstr(row, " → 0 |") && strstr(row, " → 0 |") < eol, "%.*s", (int)(eol - row), row);
    gmt_assert_has(md, "**Per source line:** 1 change of a line's excess");
    gmt_assert_has(md, "| `d4d4d4d4d4d4` | `stride` `n=4194304, stride=1` | "
                       "`exp_transpose.cu:65` |");
    gmt_assert_lacks(md, "| `d2d2d2d2d2d2` | `tiled` | `exp_transpose");
    gmt_assert_lacks(md, "| `d4d4d4d4d4d4` | `tiled` | `exp_transpose");
    free(md);
    /* the export has each line's counts at each commit: line 65's
     * wavefronts over the four commits */
    h = S_open();
    char *csv = NULL;
    cr_assert_eq(gm_history_csv(h, &q, &csv, &err), GM_OK, "%s", err.message);
    gm_history_close(h);
    gmt_assert_has(csv, ",metric,value,unit,line\r\n");
    size_t rows65 = 0;
    for (const char *p = csv; (p = strstr(p, ",source_line.wavefronts,")) != NULL; p++) {
        const char *eol = strstr(p, "\r\n");
        rows65 += eol && eol - p > 20 && strncmp(eol - 20, ",exp_transpose.cu:65", 20) == 0;
    }
    cr_expect_eq(rows65, 8, "line 65 of two runs at four commits");
    free(csv);
}

/* A version-2 database (before per-line counts) is migrated: the table is
 * made and filled from the results files it keeps. */
Test(history, migration_to_3_fills_the_lines_of_stored_runs)
{
    gm_history *h = S_open();
    gm_results r;
    char *json;
    S_variant_of(&r, &json, "e1e1e1e1e1e1e1", 0);
    free(json);
    S_attach_lines(&r, 4);
    json = gm_results_to_json(&r);
    gm_error err;
    bool added;
    cr_assert_eq(gm_history_add(h, &r, json, 3000, "x.json", &added, &err), GM_OK, "%s",
                 err.message);
    free(json);
    size_t nl = r.runs[4].source_lines.n_lines;
    gm_results_free(&r);
    gm_history_close(h);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(S_db, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "DROP TABLE lines; ALTER TABLE runs DROP COLUMN lines_status;"
                                  "ALTER TABLE runs DROP COLUMN gated;"
                                  "PRAGMA user_version = 2", NULL, NULL, NULL), SQLITE_OK,
                 "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    h = S_open();
    cr_expect_eq(gm_history_schema_version(h), GM_HISTORY_SCHEMA, "migrated from 2");
    gm_history_close(h);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM lines"), (long long)nl);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM runs WHERE lines_status = 'collected'"), 1);
}

/* Many commits: the Markdown's per-commit table keeps the last 20 and says
 * where the rest are; a cap cuts whole sections and says so. */
Test(history, markdown_size_is_capped)
{
    gm_history *h = S_open();
    for (int k = 0; k < 26; k++) {
        gm_results r;
        char *json, c[32];
        snprintf(c, sizeof c, "f%02df%02df%02df%02d", k, k, k, k);
        S_variant_of(&r, &json, c, k);
        gm_error err;
        bool added;
        cr_assert_eq(gm_history_add(h, &r, json, 4000 + k, "x.json", &added, &err), GM_OK, "%s",
                     err.message);
        free(json);
        gm_results_free(&r);
    }
    gm_history_query q = {0};
    char *md = NULL;
    gm_error err;
    cr_assert_eq(gm_history_report_md(h, &q, &md, &err), GM_OK, "%s", err.message);
    gmt_assert_has(md, "The last 20 commits; the 6 before them, from `f00f00f00f00` to "
                       "`f05f05f05f05`");
    gmt_assert_lacks(md, "| `f05f05f05f05` |");
    gmt_assert_has(md, "| `f06f06f06f06` |");
    gmt_assert_has(md, "| `f25f25f25f25` |");
    free(md);
    q.md_commits = SIZE_MAX;
    cr_assert_eq(gm_history_report_md(h, &q, &md, &err), GM_OK, "%s", err.message);
    gmt_assert_has(md, "| `f00f00f00f00` |");
    gmt_assert_lacks(md, "The last 20 commits");
    size_t full = strlen(md);
    free(md);
    /* two sections (coalescing, transpose): a cap below the whole keeps the first */
    q.max_chars = full - 1;
    cr_assert_eq(gm_history_report_md(h, &q, &md, &err), GM_OK, "%s", err.message);
    cr_expect_lt(strlen(md), full - 1);
    gmt_assert_has(md, "### coalescing");
    gmt_assert_lacks(md, "### transpose");
    gmt_assert_has(md, "**Cut here** to stay under");
    gmt_assert_has(md, "1 more experiment section not shown");
    free(md);
    gm_history_close(h);
}

/* history gate takes diff's --threshold and --alpha, with diff's meaning:
 * the fixture's time regression (+17.9 %) is inside a 25 % threshold for
 * both, and a bad value is refused the same way. */
Test(history, gate_threshold_as_diff)
{
    char *fx = gmt_fixture("diff-base.json"), *head = gmt_fixture("diff-head.json");
    char *argv1[] = {(char *)gmt_bin(), "history", "add", fx, "--db", S_db, NULL};
    cr_assert_eq(gmt_exec(argv1, NULL, NULL, NULL), 0);
    char *out = NULL, *errs = NULL;
    char *g1[] = {(char *)gmt_bin(), "history", "gate", head, "--db", S_db, "--out", "-", NULL};
    cr_expect_eq(gmt_run(g1, NULL, &out, &errs), 1);
    gmt_assert_has(out, "history gate: fail: 3 regressions in 1 layout");
    free(out);
    free(errs);
    char *g2[] = {(char *)gmt_bin(), "history", "gate", head, "--db", S_db, "--out", "-",
                  "--threshold", "time=25%", NULL};
    cr_expect_eq(gmt_run(g2, NULL, &out, &errs), 1, "still a regression in the counters");
    gmt_assert_has(out, "history gate: fail: 2 regressions in 1 layout");
    free(out);
    free(errs);
    char *d2[] = {(char *)gmt_bin(), "diff", fx, head, "--threshold", "time=25%", NULL};
    cr_expect_eq(gmt_run(d2, NULL, &out, &errs), 1);
    gmt_assert_has(out, "diff: fail: 2 regressions in 1 layout");
    free(out);
    free(errs);
    char *g3[] = {(char *)gmt_bin(), "history", "gate", head, "--db", S_db,
                  "--threshold=time=abc", NULL};
    cr_expect_eq(gmt_run(g3, NULL, &out, &errs), 2);
    gmt_assert_has(errs, "'abc' is not a non-negative number");
    free(out);
    free(errs);
    char *g4[] = {(char *)gmt_bin(), "history", "gate", head, "--db", S_db, "--alpha", "1.5", NULL};
    cr_expect_eq(gmt_run(g4, NULL, &out, &errs), 2);
    gmt_assert_has(errs, "--alpha: '1.5' is not a number between 0 and 1");
    free(out);
    free(errs);
    /* --json as diff's: the same structure, the exit code the command gives */
    char *js = gmt_join(S_dir, "gate.json");
    char *g5[] = {(char *)gmt_bin(), "history", "gate", head, "--db", S_db, "--json", js,
                  "--out", "-", NULL};
    cr_expect_eq(gmt_run(g5, NULL, &out, &errs), 1);
    free(out);
    free(errs);
    char *jt = gmt_text(js);
    gmt_assert_has(jt, "\"schema\": \"gpumem-report/diff\"");
    gmt_assert_has(jt, "\"exit_code\": 1,");
    gmt_assert_has(jt, "\"verdict\": \"3 regressions,");
    gmt_assert_has(jt, "\"file\": \"history:4f7c2a9e1b3d\"");
    free(jt);
    char *g6[] = {(char *)gmt_bin(), "history", "gate", head, "--db", S_db, "--json", js,
                  "--out", "-", "--warn-only", NULL};
    cr_expect_eq(gmt_run(g6, NULL, &out, &errs), 0);
    free(out);
    free(errs);
    jt = gmt_text(js);
    gmt_assert_has(jt, "\"exit_code\": 0,");
    free(jt);
    free(js);
    char *r1[] = {(char *)gmt_bin(), "history", "report", "--db", S_db, "--threshold",
                  "time=5%", NULL};
    cr_expect_eq(gmt_run(r1, NULL, &out, &errs), 2, "--threshold goes with gate only");
    free(out);
    free(errs);
    free(fx);
    free(head);
}

/* Each run's times as taken behind the launch gate: 40 % lower (a kernel of a
 * few µs without the host's submission time in it), and marked so. */
static void S_gate_times(gm_results *r)
{
    for (size_t i = 0; i < r->n_runs; i++) {
        gm_timing *t = &r->runs[i].timing;
        if (!t->present || !t->samples)
            continue;
        double *x = gm_xmalloc(t->n * sizeof *x);
        for (size_t j = 0; j < t->n; j++)
            x[j] = 0.6 * t->samples[j];
        gm_timing_set_samples(t, x, t->n);
        free(x);
        t->gated = true;
    }
}

/* Commits c1..cN of the fixture; from commit first_gated on, their times are
 * gated (S_gate_times). */
static void S_add_gated_series(gm_history *h, size_t n, size_t first_gated)
{
    for (size_t k = 0; k < n; k++) {
        gm_results r;
        char *json, commit[16];
        snprintf(commit, sizeof commit, "g%zug%zug%zug%zug%zug%zug", k, k, k, k, k, k);
        S_variant_of(&r, &json, commit, (int)k);
        free(json);
        if (k >= first_gated)
            S_gate_times(&r);
        json = gm_results_to_json(&r);
        gm_error err;
        bool added;
        cr_assert_eq(gm_history_add(h, &r, json, 1000 + (long long)k, "x.json", &added, &err),
                     GM_OK, "%s", err.message);
        free(json);
        gm_results_free(&r);
    }
}

/* Times that drop where the launch gate starts: noted, not a step; the gate
 * pools only samples taken the same way as the latest commit's. */
Test(history, times_across_the_launch_gate)
{
    gm_history *h = S_open();
    S_add_gated_series(h, 5, 4);
    cr_expect_eq(S_scalar(S_db, "SELECT count(DISTINCT result_id) FROM runs WHERE gated = 1"), 1);
    gm_history_query q = {0};
    char *md = NULL;
    gm_error err;
    cr_assert_eq(gm_history_report_md(h, &q, &md, &err), GM_OK, "%s", err.message);
    gmt_assert_has(md, "**How the times were taken changed.** From `g4g4g4g4g4g4` on, behind "
                       "the launch gate: `naive` `n=4096, tile=32`, `tiled` `n=4096, tile=32`.");
    const char *step = strstr(md, "| `g4g4g4g4g4g4` | `");
    cr_expect(!step || !strstr(step, "time (median)") ||
                  strstr(step, "time (median)") > strchr(step, '\n'),
              "a time step at the gate's commit:\n%s", md);
    free(md);

    /* a head timed as the latest (gated, as fast): nothing changed, although
     * the four commits before read 1/0.6 as long */
    gm_results head;
    char *json;
    S_variant_of(&head, &json, "headheadheadhead", 30);
    free(json);
    S_gate_times(&head);
    char *gmd = NULL;
    bool fail = true;
    cr_assert_eq(gm_history_gate(h, &head, "head.json", NULL, NULL, false, &gmd, NULL, &fail,
                                 &err),
                 GM_OK, "%s", err.message);
    cr_expect(!fail, "%s", gmd);
    gmt_assert_lacks(gmd, "improved");
    free(gmd);
    gm_results_free(&head);
    gm_history_close(h);

    /* the same values with no change of method: the drop is a step */
    free(S_db);
    S_db = gmt_join(S_dir, "control.sqlite");
    h = S_open();
    S_add_gated_series(h, 5, 4);
    gm_history_close(h);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(S_db, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "UPDATE runs SET gated = 0", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    h = S_open();
    cr_assert_eq(gm_history_report_md(h, &q, &md, &err), GM_OK, "%s", err.message);
    gmt_assert_lacks(md, "How the times were taken changed");
    step = strstr(md, "| `g4g4g4g4g4g4` | `");
    cr_assert(step, "no step at the fourth commit:\n%s", md);
    cr_expect(strstr(step, "time (median)") && strstr(step, "time (median)") < strchr(step, '\n'),
              "%s", md);
    free(md);
    gm_history_close(h);
}

/* Version 3 databases get the column, filled from the stored JSON. */
Test(history, migration_to_4_marks_the_gated_runs)
{
    gm_history *h = S_open();
    S_add_gated_series(h, 2, 1);
    long long gated = S_scalar(S_db, "SELECT count(*) FROM runs WHERE gated = 1");
    cr_assert_gt(gated, 0);
    gm_history_close(h);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(S_db, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "ALTER TABLE runs DROP COLUMN gated; PRAGMA user_version = 3",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    h = S_open();
    cr_expect_eq(gm_history_schema_version(h), GM_HISTORY_SCHEMA, "migrated from 3");
    gm_history_close(h);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM runs WHERE gated = 1"), gated);
}

/* ---- nothing lost between processes (issue 24) ------------------------------ */

/* The two GPUs of one node, collected at once (collect --device all): the
 * same commit, time, device name, driver and settings, told apart by the
 * device's UUID and their runs.  The second was "already there, nothing
 * added" and its runs were never stored. */
Test(history, two_gpus_of_one_node_are_two_results)
{
    char *g0 = gmt_fixture("history-node7-gpu0.json"), *g1 = gmt_fixture("history-node7-gpu1.json");
    char *argv[] = {(char *)gmt_bin(), "history", "add", g0, g1, "--db", S_db, NULL};
    char *out = NULL, *err = NULL;
    cr_assert_eq(gmt_run(argv, NULL, &out, &err), 0, "%s", err);
    cr_expect_eq(gmt_occurrences(out, ": added ("), 2, "both added:\n%s", out);
    gmt_assert_lacks(out, "already there");
    free(out);
    free(err);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM results"), 2);
    cr_expect_eq(S_scalar(S_db, "SELECT count(DISTINCT device_uuid) FROM results"), 2);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM results WHERE host = 'node7' AND "
                                "pid = 31337 AND rank = -1"), 2);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM runs"), 4);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM samples"), 16, "every sample of both");
    /* each again: identical runs, so already there */
    cr_assert_eq(gmt_run(argv, NULL, &out, &err), 0, "%s", err);
    cr_expect_eq(gmt_occurrences(out, "already there, nothing added"), 2, "%s", out);
    free(out);
    free(err);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM results"), 2);
    /* the CSV has both GPUs' times */
    char *csv = NULL;
    char *argv2[] = {(char *)gmt_bin(), "history", "export", "--format", "csv", "--db", S_db,
                     NULL};
    cr_assert_eq(gmt_run(argv2, NULL, &csv, &err), 0, "%s", err);
    gmt_assert_has(csv, ",time,0.0515,ms,");
    gmt_assert_has(csv, ",time,0.05253,ms,");
    free(csv);
    free(err);
    /* and the report tells their rows apart by the GPU */
    char *md = NULL;
    char *argv3[] = {(char *)gmt_bin(), "history", "report", "--db", S_db, NULL};
    cr_assert_eq(gmt_run(argv3, NULL, &md, &err), 0, "%s", err);
    gmt_assert_has(md, "`0123456789ab` (GPU-5f0c2a1e) | taken 2025-01-15T12:00:00Z | 80.5 µs");
    gmt_assert_has(md, "`0123456789ab` (GPU-9e41b7d2) | taken 2025-01-15T12:00:00Z | 82.1 µs");
    free(md);
    free(err);
    free(g0);
    free(g1);
}

/* The key is every byte of the runs, and the process where recorded: a
 * change to one sample, another UUID or another pid is another results
 * file; the same runs written with other spacing are the same one. */
Test(history, identity_is_the_runs_the_device_and_the_process)
{
    gm_history *h = S_open();
    gm_results r;
    gmt_load_fixture("history-node7-gpu0.json", &r);
    char *path = gmt_fixture("history-node7-gpu0.json");
    char *text = gmt_text(path);
    gm_error err;
    bool added = false;
    cr_assert_eq(gm_history_add(h, &r, text, -1, "gpu0.json", &added, &err), GM_OK, "%s",
                 err.message);
    cr_expect(added);
    /* the writer's own text of the same results: the same file */
    char *again = gm_results_to_json(&r);
    cr_assert_eq(gm_history_add(h, &r, again, -1, "again.json", &added, &err), GM_OK, "%s",
                 err.message);
    cr_expect_not(added, "the same runs, however spaced, are there already");
    free(again);
    /* one sample changed */
    r.runs[1].timing.samples[3] += 1e-6;
    char *j = gm_results_to_json(&r);
    cr_assert_eq(gm_history_add(h, &r, j, -1, "sample.json", &added, &err), GM_OK, "%s",
                 err.message);
    cr_expect(added, "one sample differs: another results file");
    free(j);
    r.runs[1].timing.samples[3] -= 1e-6;
    /* the same runs from another process, another GPU */
    r.collection.process.pid = 31338;
    j = gm_results_to_json(&r);
    cr_assert_eq(gm_history_add(h, &r, j, -1, "pid.json", &added, &err), GM_OK, "%s", err.message);
    cr_expect(added, "another process");
    free(j);
    free(r.collection.process.device_uuid);
    r.collection.process.device_uuid = gm_xstrdup("GPU-00000000-0000-0000-0000-000000000000");
    j = gm_results_to_json(&r);
    cr_assert_eq(gm_history_add(h, &r, j, -1, "uuid.json", &added, &err), GM_OK, "%s",
                 err.message);
    cr_expect(added, "another GPU");
    free(j);
    long long c[4];
    S_counts(h, c);
    cr_expect_eq(c[0], 4);
    gm_history_close(h);
    gm_results_free(&r);
    free(text);
    free(path);
}

/* A database of version 4 (key: commit, time, device, driver, settings)
 * migrates to version 5 with each stored file's identity filled from its
 * JSON; then the second GPU of the node goes in. */
Test(history, migration_to_5_keys_results_by_their_identity)
{
    char *g0 = gmt_fixture("history-node7-gpu0.json"), *g1 = gmt_fixture("history-node7-gpu1.json");
    char *add0[] = {(char *)gmt_bin(), "history", "add", g0, "--db", S_db, NULL};
    cr_assert_eq(gmt_exec(add0, NULL, NULL, NULL), 0);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(S_db, &db), SQLITE_OK);
    /* back to version 4's results table */
    cr_assert_eq(sqlite3_exec(db,
                              "PRAGMA foreign_keys = OFF; BEGIN;"
                              "CREATE TABLE r4(id INTEGER PRIMARY KEY, commit_id TEXT NOT NULL,"
                              " dirty INTEGER NOT NULL, commit_time INTEGER, taken_at TEXT NOT NULL,"
                              " device TEXT NOT NULL, driver TEXT NOT NULL, settings TEXT NOT NULL,"
                              " tool_version TEXT, source TEXT, added_at TEXT NOT NULL,"
                              " json TEXT NOT NULL,"
                              " UNIQUE(commit_id, dirty, taken_at, device, driver, settings));"
                              "INSERT INTO r4 SELECT id, commit_id, dirty, commit_time, taken_at,"
                              " device, driver, settings, tool_version, source, added_at, json"
                              " FROM results;"
                              "DROP TABLE results; ALTER TABLE r4 RENAME TO results;"
                              "CREATE INDEX results_by_device ON results(device, settings, "
                              "commit_time);"
                              "PRAGMA user_version = 4; COMMIT;",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    char *add1[] = {(char *)gmt_bin(), "history", "add", g1, "--db", S_db, NULL};
    char *out = NULL, *err = NULL;
    cr_assert_eq(gmt_run(add1, NULL, &out, &err), 0, "%s", err);
    gmt_assert_has(out, ": added (");
    free(out);
    free(err);
    cr_expect_eq(S_scalar(S_db, "PRAGMA user_version"), GM_HISTORY_SCHEMA);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM results WHERE device_uuid LIKE 'GPU-%' "
                                "AND length(runs_digest) = 64 AND pid = 31337"), 2,
                 "the stored file's identity was filled in");
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM runs"), 4);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM runs r LEFT JOIN results s ON "
                                "r.result_id = s.id WHERE s.id IS NULL"), 0,
                 "every run still has its results file");
    /* the first again: there already, under its filled identity */
    cr_assert_eq(gmt_run(add0, NULL, &out, &err), 0, "%s", err);
    gmt_assert_has(out, "already there");
    free(out);
    free(err);
    free(g0);
    free(g1);
}

/* A database from elsewhere carries its own SQL: a trigger rewrote history
 * on add, which still said "added"; a recursive view hung report, export
 * and gate.  Such a file is refused before anything runs or is written. */
static void S_hostile(const char *sql)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(S_db, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
}

Test(history, a_trigger_in_the_database_is_refused)
{
    gmt_deadline(60);
    char *fx = gmt_fixture("diff-base.json"), *head = gmt_fixture("diff-head.json");
    char *add[] = {(char *)gmt_bin(), "history", "add", fx, "--db", S_db, NULL};
    cr_assert_eq(gmt_exec(add, NULL, NULL, NULL), 0);
    S_hostile("CREATE TRIGGER rewrite AFTER INSERT ON results BEGIN "
              "UPDATE results SET commit_id = 'rewritten', json = '{}'; END;");
    char *add2[] = {(char *)gmt_bin(), "history", "add", head, "--db", S_db, NULL};
    char *out = NULL, *err = NULL;
    cr_expect_eq(gmt_run(add2, NULL, &out, &err), 2);
    gmt_assert_lacks(out, "added");
    gmt_assert_has(err, "not a gpumem-report history database: it holds a trigger 'rewrite'");
    gmt_assert_has(err, "refused before anything ran or was written");
    free(out);
    free(err);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM results WHERE commit_id = 'rewritten'"), 0);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM results"), 1, "nothing added");
    /* in the library too, for every command */
    gm_history *h = NULL;
    gm_error e;
    cr_expect_eq(gm_history_open(S_db, false, &h, &e), GM_ERR_VALUE);
    cr_expect_null(h);
    free(fx);
    free(head);
}

Test(history, a_view_in_the_database_is_refused)
{
    gmt_deadline(60);
    char *fx = gmt_fixture("diff-base.json"), *head = gmt_fixture("diff-head.json");
    char *add[] = {(char *)gmt_bin(), "history", "add", fx, "--db", S_db, NULL};
    cr_assert_eq(gmt_exec(add, NULL, NULL, NULL), 0);
    S_hostile("CREATE VIEW forever AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
              "SELECT i + 1 FROM n) SELECT i FROM n;");
    char *cmds[][9] = {
        {(char *)gmt_bin(), "history", "report", "--db", S_db, NULL},
        {(char *)gmt_bin(), "history", "export", "--format", "csv", "--db", S_db, NULL},
        {(char *)gmt_bin(), "history", "gate", head, "--db", S_db, NULL},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char *out = NULL, *err = NULL;
        cr_expect_eq(gmt_run(cmds[i], NULL, &out, &err), 2, "%s", cmds[i][2]);
        gmt_assert_has(err, "it holds a view 'forever'");
        free(out);
        free(err);
    }
    free(fx);
    free(head);
}

/* Only a history's own tables and indexes (as it makes them); SQLite's own
 * tables (sqlite_stat1 of ANALYZE) are fine. */
Test(history, unknown_tables_and_indexes_are_refused)
{
    gm_history *h = S_open();
    gm_history_close(h);
    S_hostile("ANALYZE");
    gm_error e;
    cr_assert_eq(gm_history_open(S_db, false, &h, &e), GM_OK, "%s", e.message);
    gm_history_close(h);
    S_hostile("CREATE TABLE annotations(x)");
    cr_expect_eq(gm_history_open(S_db, false, &h, &e), GM_ERR_VALUE);
    gmt_assert_has(e.message, "it holds a table 'annotations'");
    S_hostile("DROP TABLE annotations; DROP INDEX results_by_device;"
              "CREATE INDEX results_by_device ON results(abs(id))");
    cr_expect_eq(gm_history_open(S_db, false, &h, &e), GM_ERR_VALUE);
    gmt_assert_has(e.message, "it holds an index 'results_by_device'");
}

/* ---- one identity per commit, warnings, per-line matching, headings ------- */

#define S_FULL "320eb68d039909071e839a996fc6c172f15ec522"
#define S_OTHER "320eb68ffff909071e839a996fc6c172f15ec522"

static gm_status S_add_commit(gm_history *h, const char *commit, int k, long long t,
                              gm_error *err)
{
    gm_results r;
    char *json;
    S_variant_of(&r, &json, commit, k);
    bool added = false;
    gm_status s = gm_history_add(h, &r, json, t, "c.json", &added, err);
    free(json);
    gm_results_free(&r);
    return s;
}

/* Issue 27: one commit was two rows (320eb68 and 320eb68d0399).  A short id
 * is stored as the full one the history holds, a full one takes the place
 * of the short ones stored before it (and gives them its time), and a short
 * id that begins two full ones is refused, naming both. */
Test(history, one_identity_per_commit)
{
    gm_history *h = S_open();
    gm_error err;
    cr_assert_eq(S_add_commit(h, "320eb68", 0, -1, &err), GM_OK, "%s", err.message);
    cr_assert_eq(S_add_commit(h, S_FULL, 1, 5000, &err), GM_OK, "%s", err.message);
    cr_assert_eq(S_add_commit(h, "320EB68D", 2, -1, &err), GM_OK, "%s", err.message);
    char *c = NULL;
    cr_assert_eq(gm_history_resolve_commit(h, "320eb68", &c, &err), GM_OK, "%s", err.message);
    cr_expect_str_eq(c, S_FULL);
    free(c);
    cr_assert_eq(gm_history_resolve_commit(h, "HEAD", &c, &err), GM_OK);
    cr_expect_str_eq(c, "HEAD", "not a commit id: as it is");
    free(c);
    cr_assert_eq(gm_history_resolve_commit(h, "abcdef1", &c, &err), GM_OK);
    cr_expect_str_eq(c, "abcdef1", "a short id the history does not know: as it is");
    free(c);
    cr_assert_eq(S_add_commit(h, S_OTHER, 3, 6000, &err), GM_OK, "%s", err.message);
    cr_expect_eq(S_add_commit(h, "320eb68", 4, -1, &err), GM_ERR_VALUE);
    gmt_assert_has(err.message, "320eb68 is ambiguous");
    gmt_assert_has(err.message, S_FULL);
    gmt_assert_has(err.message, S_OTHER);
    cr_expect_eq(S_add_commit(h, "320eb68d", 4, -1, &err), GM_OK, "%s", err.message);
    gm_history_query q = {0};
    char *md = NULL;
    cr_assert_eq(gm_history_report_md(h, &q, &md, &err), GM_OK, "%s", err.message);
    gm_history_close(h);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM results WHERE commit_id = '" S_FULL "'"), 4);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM results WHERE length(commit_id) < 40"), 0);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM results WHERE commit_id = '" S_FULL
                                "' AND commit_time = 5000"), 4, "the commit's time on each");
    gmt_assert_lacks(md, "| `320eb68` |");
    gmt_assert_has(md, "| `320eb68d0399` | 1970-01-01 01:23 UTC |");
    free(md);
}

/* A version-5 history holding a commit under a short and a full id is
 * migrated to one. */
Test(history, migration_to_6_gives_each_commit_one_id)
{
    gm_history *h = S_open();
    gm_error err;
    cr_assert_eq(S_add_commit(h, S_FULL, 0, 7000, &err), GM_OK, "%s", err.message);
    cr_assert_eq(S_add_commit(h, "not-yet-short", 1, -1, &err), GM_OK, "%s", err.message);
    gm_history_close(h);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(S_db, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "UPDATE results SET commit_id = '320eb68' WHERE commit_id = "
                                  "'not-yet-short'; PRAGMA user_version = 5", NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    h = S_open();
    cr_expect_eq(gm_history_schema_version(h), GM_HISTORY_SCHEMA, "migrated from 5");
    gm_history_close(h);
    cr_expect_eq(S_scalar(S_db, "SELECT count(*) FROM results WHERE commit_id = '" S_FULL
                                "' AND commit_time = 7000"), 2);
}

/* Issue 27: a results file whose commit is not a commit id, or of a dirty
 * tree, was added silently. */
Test(history, add_warns_of_unknown_and_dirty_commits)
{
    gm_results r;
    gmt_load_fixture("diff-base.json", &r);
    char buf[512];
    cr_expect_null(gm_history_commit_warning(&r, buf, sizeof buf), "a clean full id");
    free(r.commit);
    r.commit = gm_xstrdup("HEAD");
    gmt_assert_has(gm_history_commit_warning(&r, buf, sizeof buf),
                   "its commit 'HEAD' is not a commit id");
    free(r.commit);
    r.commit = NULL;
    gmt_assert_has(gm_history_commit_warning(&r, buf, sizeof buf), "it records no commit");
    r.commit = gm_xstrdup("ab\x1b[31mcd");
    gmt_assert_has(gm_history_commit_warning(&r, buf, sizeof buf), "'ab?[31mcd'");
    free(r.commit);
    r.commit = gm_xstrdup(S_FULL);
    r.dirty = 1;
    gmt_assert_has(gm_history_commit_warning(&r, buf, sizeof buf),
                   "collected from a dirty tree of 320eb68d0399");
    gm_results_free(&r);
    /* at `history add`, on standard error; the file is added */
    char *rerun = gmt_fixture("h100-rerun-0747.json"), *head = gmt_fixture("diff-head.json"),
         *base = gmt_fixture("diff-base.json");
    char *argv[] = {(char *)gmt_bin(), "history", "add", rerun, head, base, "--db", S_db, NULL};
    char *out = NULL, *errs = NULL;
    cr_assert_eq(gmt_run(argv, NULL, &out, &errs), 0, "%s", errs);
    cr_expect_eq(gmt_occurrences(out, ": added ("), 3, "%s", out);
    gmt_assert_has(errs, "h100-rerun-0747.json: warning: its commit 'HEAD' is not a commit id");
    gmt_assert_has(errs, "diff-head.json: warning: it was collected from a dirty tree");
    gmt_assert_lacks(errs, "diff-base.json: warning");
    free(out);
    free(errs);
    free(rerun);
    free(head);
    free(base);
}

/* Issue 27: the history matched lines by their files' base names.  Two
 * commits collected in two checkouts, then one whose kernel moved (issue 23:
 * kernels/transpose/kernels.cu, relative to the source root, its lines three
 * further down) and whose tile read lost its conflict: one step, at that
 * commit, naming the line's place before and after. */
Test(history, lines_of_other_checkouts_and_moved_files_match)
{
    gm_history *h = S_open();
    const char *commits[] = {"a1a1a1a1a1a1a1", "a2a2a2a2a2a2a2", "a3a3a3a3a3a3a3"};
    for (int k = 0; k < 3; k++) {
        gm_results r;
        char *json;
        S_variant_of(&r, &json, commits[k], k);
        free(json);
        S_attach_lines(&r, 4);   /* transpose tiled n=4096 */
        gm_srclines *sl = &r.runs[4].source_lines;
        for (size_t i = 0; i < sl->n_lines; i++) {
            gm_srcline *l = &sl->lines[i];
            const char *base = l->file ? strrchr(l->file, '/') : NULL;
            if (!base || strcmp(base, "/exp_transpose.cu") != 0)
                continue;
            /* the fixture's records carry no code: each line its own */
            char p[256];
            snprintf(p, sizeof p, "    code(%lld);", l->line);
            l->text = gm_xstrdup(p);
            if (k < 2) {
                snprintf(p, sizeof p, "/ci/checkout-%d/kernels/exp_transpose.cu", k);
            } else {
                snprintf(p, sizeof p, "/ci/new/kernels/transpose/kernels.cu");
                if (l->line == 65)
                    l->count[GM_SL_WAVEFRONTS] = l->count[GM_SL_WAVEFRONTS_IDEAL];
                l->line += 3;
            }
            free(l->file);
            l->file = gm_xstrdup(p);
        }
        if (k == 2)
            gm_srclines_relate(sl, "/ci/new");
        json = gm_results_to_json(&r);
        gm_error err;
        bool added;
        cr_assert_eq(gm_history_add(h, &r, json, 2000 + k, "x.json", &added, &err), GM_OK,
                     "%s", err.message);
        free(json);
        gm_results_free(&r);
    }
    gm_history_query q = {0};
    char *md = NULL;
    gm_error err;
    cr_assert_eq(gm_history_report_md(h, &q, &md, &err), GM_OK, "%s", err.message);
    gm_history_close(h);
    gmt_assert_has(md, "**Per source line:** 1 change of a line's excess");
    gmt_assert_has(md, "| `a3a3a3a3a3a3` | `tiled` `n=4096, tile=32` | `exp_transpose.cu:65` → "
                       "`kernels/transpose/kernels.cu:68` |");
    gmt_assert_lacks(md, "| `a2a2a2a2a2a2` | `tiled`");
    free(md);
}

/* Issue 27: two collection settings of one device had two identical
 * headings.  The headings name the settings that differ; where those do
 * not tell them apart (metric lists of one length), their place too. */
Test(history, two_settings_of_one_device_are_told_apart)
{
    gm_history *h = S_open();
    for (int k = 0; k < 3; k++) {
        gm_results r;
        char *json;
        S_variant_of(&r, &json, "b1b1b1b1b1b1b1", k);
        free(json);
        if (k == 1) {
            free(r.collection.size_set);
            r.collection.size_set = gm_xstrdup("full");
        }
        if (k == 2) {
            free(r.collection.metrics[0]);
            r.collection.metrics[0] = gm_xstrdup("dram__bytes_read.sum");
        }
        json = gm_results_to_json(&r);
        gm_error err;
        bool added;
        cr_assert_eq(gm_history_add(h, &r, json, 100 + k, "x.json", &added, &err), GM_OK, "%s",
                     err.message);
        free(json);
        gm_results_free(&r);
    }
    gm_history_query q = {0};
    char *md = NULL;
    gm_error err;
    cr_assert_eq(gm_history_report_md(h, &q, &md, &err), GM_OK, "%s", err.message);
    gm_history_close(h);
    gmt_assert_has(md, "## NVIDIA H100 80GB HBM3 (sizes=full)\n");
    gmt_assert_has(md, "## NVIDIA H100 80GB HBM3 (sizes=quick; 7 metrics; settings 2 of 3)\n");
    gmt_assert_has(md, "## NVIDIA H100 80GB HBM3 (sizes=quick; 7 metrics; settings 3 of 3)\n");
    free(md);
}
