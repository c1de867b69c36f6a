#!/bin/sh
# make-history-corpus.sh — the seed corpus of tests/fuzz/fuzz_history.c: small
# history databases (512-byte pages, rollback journal, so that each file is
# the whole database) made with the program and the sqlite3 shell.
#
#   sh tests/fuzz/make-history-corpus.sh [path/to/gpumem-report]
#
# Writes tests/fuzz/corpus/history/*.sqlite: an empty history, one with the two
# GPUs of one node and a later commit, the same at schema version 1 (every
# migration runs on it), and two a history must refuse (a trigger, a view).
# Needs the sqlite3 shell (Debian package sqlite3), which the tests do not.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$here/build/gpumem-report}
out=$here/tests/fuzz/corpus/history
fx=$here/tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gm-hcorpus-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# small DB: page size 512, no WAL, vacuumed
small() {
    sqlite3 "$1" "PRAGMA journal_mode = DELETE;" >/dev/null
    sqlite3 "$1" "PRAGMA page_size = 512; VACUUM;"
}

"$bin" history add "$fx/history-node7-gpu0.json" --db "$tmp/empty.sqlite" >/dev/null
sqlite3 "$tmp/empty.sqlite" "DELETE FROM runs; DELETE FROM results;"
small "$tmp/empty.sqlite"

"$bin" history add "$fx/history-node7-gpu0.json" "$fx/history-node7-gpu1.json" \
    --db "$tmp/node7.sqlite" >/dev/null
"$bin" history add "$fx/handwritten-minimal.json" --commit-time 1767225000 \
    --db "$tmp/node7.sqlite" >/dev/null
small "$tmp/node7.sqlite"

# version 1: no indexes, no lines, no gated column, version 4's results table
cp "$tmp/node7.sqlite" "$tmp/v1.sqlite"
sqlite3 "$tmp/v1.sqlite" "PRAGMA foreign_keys = OFF; BEGIN;
CREATE TABLE r1(id INTEGER PRIMARY KEY, commit_id TEXT NOT NULL, dirty INTEGER NOT NULL,
 commit_time INTEGER, taken_at TEXT NOT NULL, device TEXT NOT NULL, driver TEXT NOT NULL,
 settings TEXT NOT NULL, tool_version TEXT, source TEXT, added_at TEXT NOT NULL,
 json TEXT NOT NULL, UNIQUE(commit_id, dirty, taken_at, device, driver, settings));
INSERT INTO r1 SELECT id, commit_id, dirty, commit_time, taken_at, device, driver, settings,
 tool_version, source, added_at, json FROM results WHERE id = (SELECT min(id) FROM results);
DELETE FROM metrics WHERE run_id IN (SELECT id FROM runs WHERE result_id NOT IN (SELECT id FROM r1));
DELETE FROM samples WHERE run_id IN (SELECT id FROM runs WHERE result_id NOT IN (SELECT id FROM r1));
DELETE FROM runs WHERE result_id NOT IN (SELECT id FROM r1);
DROP TABLE results; ALTER TABLE r1 RENAME TO results;
DROP INDEX IF EXISTS runs_by_experiment; DROP TABLE lines;
ALTER TABLE runs DROP COLUMN lines_status; ALTER TABLE runs DROP COLUMN gated;
PRAGMA user_version = 1; COMMIT;"
small "$tmp/v1.sqlite"

cp "$tmp/node7.sqlite" "$tmp/trigger.sqlite"
sqlite3 "$tmp/trigger.sqlite" "CREATE TRIGGER t AFTER INSERT ON results BEGIN
 UPDATE results SET commit_id = 'x'; END;"
cp "$tmp/node7.sqlite" "$tmp/view.sqlite"
sqlite3 "$tmp/view.sqlite" "CREATE VIEW v AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL
 SELECT i + 1 FROM n) SELECT i FROM n;"

for f in empty node7 v1 trigger view; do
    cp "$tmp/$f.sqlite" "$out/$f.sqlite"
done
ls -l "$out"
