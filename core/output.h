/* output.h — every file gpumem-report writes goes through here, under one rule.
 *
 * THE RULE (gm_output_*; reports, chart folders, results, diff JSON, CSV,
 * history exports):
 *   - An output that is the same file as an input (same st_dev and st_ino,
 *     whatever the path: a hard link, a symlink, /dev/stdout redirected onto
 *     it) is refused (GM_ERR_VALUE), and nothing is written.  Callers pass
 *     every file they read.
 *   - "-" is standard output.
 *   - A target that exists and is not a regular file (a FIFO, a terminal,
 *     /dev/null, /dev/full), and any path under /dev/ or /proc/, is a stream:
 *     opened and written in place, never renamed over; write errors (ENOSPC
 *     from /dev/full, EPIPE) are reported.
 *   - Anything else is a regular file, replaced atomically: the bytes go to a
 *     temporary file beside it (".NAME.tmp-XXXXXX"), then rename(): a reader
 *     sees the old file or the new one, never half of one.  A symlink to a
 *     regular file is followed: the file it points to is replaced.
 *   - A temporary file or directory is registered (gm_cleanup_*) while it
 *     exists, so a SIGINT/SIGTERM handler can remove it (a directory with
 *     the names of its files: the handler opens no folder).
 *
 *   gm_output_write         one output, in one call
 *   gm_output_open/stage/commit/close
 *                           several outputs that must all succeed: stage each
 *                           (regular files reach their temporary files), then
 *                           commit each (rename / write the stream)
 *   gm_output_write_with_dir
 *                           a file and a folder beside it as one pair (the
 *                           Markdown report and its charts), safe when two
 *                           processes write the same pair at once
 *
 * Also: Markdown to HTML through cmark-gfm (markdown.c), and the lower-level
 * helpers the rule is built on.  Every function returns a status and fills
 * err (when non-NULL) with a message naming the file; none prints or exits.
 */
#ifndef GM_OUTPUT_H
#define GM_OUTPUT_H

#include "gm_error.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the rule ------------------------------------------------------------- */

/* Refuse path when it is the same file as one of inputs[0..n_inputs) (NULL
 * entries are skipped; "-" as an input is standard input, as path standard
 * output).  A path that does not exist yet is no input.  GM_ERR_VALUE naming
 * both. */
gm_status gm_output_check(const char *path, const char *const *inputs, size_t n_inputs,
                          gm_error *err);

/* True when path is "-" or a stream (see the rule): written in place.  A
 * Markdown report to a stream has no chart folder beside it. */
bool gm_output_is_stream(const char *path);

/* path holds data afterwards (or, for a regular file, is as it was). */
gm_status gm_output_write(const char *path, const char *data, size_t len,
                          const char *const *inputs, size_t n_inputs, gm_error *err);

/* One pending output.  Fields are private. */
typedef struct {
    char *path;       /* the regular file replaced, or the stream written */
    bool stream;
    char *tmp;        /* regular: the staged temporary file */
    int cleanup;      /* its gm_cleanup slot, -1 when none */
    const char *data; /* stream: the staged bytes (borrowed) */
    size_t len;
} gm_output;

/* Check path against the inputs and decide how it is written; nothing is
 * created yet.  On failure o needs no close. */
gm_status gm_output_open(gm_output *o, const char *path, const char *const *inputs,
                         size_t n_inputs, gm_error *err);
/* Regular file: data written to the temporary file (fsync'ed).  Stream: data
 * is remembered (it must stay valid until commit). */
gm_status gm_output_stage(gm_output *o, const char *data, size_t len, gm_error *err);
/* Regular: rename over the target.  Stream: open and write. */
gm_status gm_output_commit(gm_output *o, gm_error *err);
/* Remove a staged temporary file that was not committed; free o. Always call. */
void gm_output_close(gm_output *o);

/* One file a folder holds (name: no '/'). */
typedef struct {
    const char *name;
    const char *data;
    size_t len;
} gm_output_file;

/* path holds data and dir_path holds exactly files[0..n_files), or both are as
 * they were.  The folder is built under a temporary name beside it; then,
 * holding an exclusive lock on the parent directory (flock: other writers of
 * the same pair wait; the last one wins whole, and no lock file is left), the
 * folder is swapped into place (renameat2 RENAME_EXCHANGE where the file
 * system has it), the file renamed over path, the old folder removed.  An
 * existing dir_path is replaced only when owned(name) is true for every entry
 * in it; otherwise GM_ERR_IO asks the user to remove it.  n_files == 0 leaves
 * dir_path alone (no folder is made).  path must be a regular file (not a
 * stream: GM_ERR_VALUE). */
gm_status gm_output_write_with_dir(const char *path, const char *data, size_t len,
                                   const char *dir_path, const gm_output_file *files,
                                   size_t n_files, bool (*owned)(const char *name),
                                   const char *const *inputs, size_t n_inputs, gm_error *err);

/* ---- cleanup on a signal -------------------------------------------------- */

/* A small fixed table (64 slots) of temporary paths and child processes.  The
 * CLI's SIGINT/SIGTERM/SIGHUP handler calls gm_cleanup_run(): children and
 * their process groups (a child registered here leads its own) get SIGKILL
 * (the child is reaped), files are removed, then directories: the files
 * registered with one, then the directory itself.  add returns a slot (or -1
 * when the table is full: then nothing is cleaned on a signal, the normal
 * paths still clean up). */
int gm_cleanup_add_path(const char *path, bool is_dir);
/* A directory (is_dir) with the names of the files that may be in it
 * (names[0..n_names), borrowed until the slot is removed or given new ones). */
int gm_cleanup_add_dir_files(const char *path, bool is_dir, char *const *names, size_t n_names);
/* The slot's directory has these files now (the old list may be freed after). */
void gm_cleanup_set_names(int slot, char *const *names, size_t n_names);
int gm_cleanup_add_pid(pid_t pid);
void gm_cleanup_remove(int slot);
/* Usable from a signal handler: kill, waitpid, unlink and rmdir on paths
 * composed on the stack; no folder is opened and nothing allocated. */
void gm_cleanup_run(void);
/* Remove a directory and the plain files in it (not recursive). */
void gm_remove_dir(const char *path);

/* ---- private temporary folders ---------------------------------------------- */

/* A folder of this process's own under $TMPDIR (default /tmp), "PREFIX-XXXXXX",
 * mode 0700.  While it exists this process holds it: an flock(2) on it, which
 * the kernel drops when the process ends however it ends, and a file ".held"
 * in it saying that it was held.  It is in the cleanup table with the names
 * of the files expected in it, so a signal handler removes it without
 * opening it.  A process killed by SIGKILL runs no handler: its folder stays
 * until the next gm_tmpdir_make of the same prefix (the next render with
 * charts), which first removes every PREFIX-* folder of this user that
 * nobody holds and that is marked held or has not changed for a minute
 * (gm_tmpdir_sweep). */
typedef struct {
    char *path;     /* the folder; NULL when none */
    int fd;         /* open on it, holding its lock */
    int slot;       /* its cleanup slot */
    char **names;   /* the files expected in it, for the signal handler */
    size_t n_names;
} gm_tmpdir;

gm_status gm_tmpdir_make(gm_tmpdir *t, const char *prefix, gm_error *err);
/* A file that will be written in the folder (name: no '/'). */
void gm_tmpdir_expect(gm_tmpdir *t, const char *name);
/* Remove the folder and its files, release the hold, free t.  Safe on a t
 * that gm_tmpdir_make failed to make. */
void gm_tmpdir_remove(gm_tmpdir *t);
/* Remove the $TMPDIR/PREFIX-* folders whose holder is gone; how many. */
size_t gm_tmpdir_sweep(const char *prefix);

/* ---- Markdown to HTML (markdown.c) ----------------------------------------- */

/* GitHub-flavoured Markdown to an HTML fragment: cmark-gfm with the table
 * extension, raw HTML and unsafe link targets left out (CMARK_OPT_DEFAULT):
 * every outside string is escaped in the Markdown already, this is a second
 * lock on the same door.  *html is the caller's to free(). */
gm_status gm_markdown_to_html(const char *md, char **html, gm_error *err);

/* ---- lower level ----------------------------------------------------------- */

/* "dir/name" (caller frees). */
char *gm_path_join(const char *dir, const char *name);

/* The whole file, NUL-terminated (*out is the caller's to free). */
gm_status gm_file_read(const char *path, char **out, gm_error *err);

/* Write len bytes to an open descriptor, resuming after EINTR; `name` is the
 * file named in a message. */
gm_status gm_fd_write_all(int fd, const char *name, const char *data, size_t len, gm_error *err);

/* A new file (it must not exist) holding data, with the mode a plain create
 * gives (0666 less the umask). */
gm_status gm_file_create(const char *path, const char *data, size_t len, gm_error *err);

/* Room on the file system holding dir for `want` more bytes: what the
 * writes would leave free must stay at least GM_FS_RESERVE_MIN and
 * GM_FS_RESERVE_PCT % of the file system's size, so that a tool keeping large
 * files (the kept launches of a program's per-line pass) does not fill a
 * small /tmp under the programs beside it.  gm_fs_leaves_room is the rule on
 * numbers (avail: bytes an unprivileged writer may still use; size: the file
 * system's bytes); gm_fs_room reads them with statvfs and, when there is no
 * room, says how much is free and what is kept back in err (GM_ERR_IO). */
#define GM_FS_RESERVE_MIN ((unsigned long long)1 << 30)
#define GM_FS_RESERVE_PCT 5
bool gm_fs_leaves_room(unsigned long long avail, unsigned long long size,
                       unsigned long long want);
gm_status gm_fs_room(const char *dir, unsigned long long want, gm_error *err);

/* Write data to a new temporary file beside `path` (".NAME.tmp-XXXXXX" in the
 * same directory, so a rename cannot cross file systems), with the mode a
 * plain create would give.  *tmp is its name (the caller's to free; the file
 * is the caller's to rename with gm_file_replace or to unlink). */
gm_status gm_file_write_temp(const char *path, const char *data, size_t len, char **tmp,
                             gm_error *err);

/* rename(tmp, path); on failure tmp is removed. */
gm_status gm_file_replace(const char *tmp, const char *path, gm_error *err);

/* Temporary file + rename, without the checks of the rule: prefer
 * gm_output_write. */
gm_status gm_file_write_atomic(const char *path, const char *data, size_t len, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif
