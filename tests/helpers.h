/* helpers.h — small helpers the Criterion tests share (tests/test_helpers.c).
 *
 * Where the tests find things:
 *   $GM_SRCDIR    the source tree (fixtures, goldens, templates); default "."
 *   $GM_TEST_BIN  the gpumem-report program for black-box runs;
 *                 default "build/gpumem-report"
 * `make test` sets both.
 *
 * These run inside a test: on a failure they cr_assert and end the test, so
 * they return only what worked.  Strings returned as `char *` are the
 * caller's to free(); `const char *` ones are not.
 */
#ifndef GM_TESTS_HELPERS_H
#define GM_TESTS_HELPERS_H

#include "../core/results.h"

#include <stdbool.h>
#include <stddef.h>

/* `needle` is in `text` (or not); the message shows the whole text. */
#define gmt_assert_has(text, needle) \
    cr_assert(strstr((text), (needle)) != NULL, "expected \"%s\" in:\n%s", (needle), (text))
#define gmt_assert_lacks(text, needle) \
    cr_assert(strstr((text), (needle)) == NULL, "did not expect \"%s\" in:\n%s", (needle), (text))

/* ---- places ---------------------------------------------------------------- */

/* The program under test: $GM_TEST_BIN, else "build/gpumem-report".  Not owned. */
const char *gmt_bin(void);
/* The source tree: $GM_SRCDIR, else ".".  Not owned. */
const char *gmt_srcdir(void);
/* "<source tree>/<rel>".  Caller frees. */
char *gmt_src(const char *rel);
/* "<source tree>/tests/fixtures/<name>".  Caller frees. */
char *gmt_fixture(const char *name);
/* "<dir>/<name>".  Caller frees. */
char *gmt_join(const char *dir, const char *name);

/* ---- files ----------------------------------------------------------------- */

/* The whole file, NUL-terminated ("" for an empty one); NULL when it cannot
 * be opened (a test may expect that).  Caller frees. */
char *gmt_slurp(const char *path);
/* The same, but a file that cannot be read fails the test.  Caller frees. */
char *gmt_text(const char *path);
/* Does anything (file, directory, link) stand at path? */
bool gmt_exists(const char *path);
/* Read tests/fixtures/<name> into *r (caller frees with gm_results_free);
 * a read error fails the test with the file and the message. */
void gmt_load_fixture(const char *name, gm_results *r);
/* Compare `got` with tests/golden/<name>: a difference fails the test and
 * names its line and byte, with the text around it.  With GM_UPDATE_GOLDEN=1
 * the golden file is rewritten from `got` first (then review the git diff). */
void gmt_golden(const char *name, const char *got);

/* ---- directories ----------------------------------------------------------- */

/* A new empty directory /tmp/gm-<tag>-XXXXXX.  Caller frees the name and
 * removes the directory (gmt_rmrf). */
char *gmt_tmpdir(const char *tag);
/* A bound on a hang: SIGALRM ends this test's process after `seconds` (the
 * test then fails as a crash).  In place of Criterion's .timeout, whose
 * watchdog (BoxFort's) can leak a request under load, which LeakSanitizer
 * reports and `make asan` fails on. */
void gmt_deadline(unsigned seconds);
/* Remove path and, when it is a directory, everything below it (links are
 * removed, never followed).  True when nothing stands at path afterwards. */
bool gmt_rmrf(const char *path);
/* Entries in a directory, . and .. not counted; a directory that cannot be
 * opened fails the test. */
int gmt_count_entries(const char *dir);

/* ---- text ------------------------------------------------------------------ */

/* How many times `needle` starts in `text` (overlapping ones counted). */
size_t gmt_occurrences(const char *text, const char *needle);

/* ---- child processes ------------------------------------------------------- */

/* Run argv[0] (a path, not looked up on PATH) with argv and this process's
 * environment changed by env (NULL-terminated; "NAME=value" sets NAME,
 * a bare "NAME" removes it; env may be NULL).  The child's stdout goes to
 * the file out_path and its stderr to err_path (created or truncated; NULL:
 * /dev/null).  The test fails when the child is killed by a signal or cannot
 * be executed (exit 127).  Returns the child's exit status. */
int gmt_exec(char *const *argv, const char *const *env, const char *out_path,
             const char *err_path);
/* gmt_exec with the child's stdout returned in *out and its stderr in *err
 * (each "" when empty; caller frees; NULL: that stream is discarded). */
int gmt_run(char *const *argv, const char *const *env, char **out, char **err);

#endif
