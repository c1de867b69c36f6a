/* output.h — what the writers of reports share: Markdown to HTML through
 * cmark-gfm, reading a whole file, and writing files so that a failure leaves
 * nothing half-written (a temporary file beside the target, then rename).
 *
 * Used by the report (render_html.c, charts.c), the diff (diff.c, cmd_diff.c).
 * Every function returns a status and fills err (when non-NULL) with a message
 * naming the file; none prints.
 */
#ifndef GM_OUTPUT_H
#define GM_OUTPUT_H

#include "gm_error.h"

#include <stddef.h>

/* GitHub-flavoured Markdown to an HTML fragment: cmark-gfm with the table
 * extension, raw HTML and unsafe link targets left out (CMARK_OPT_DEFAULT):
 * every outside string is escaped in the Markdown already, this is a second
 * lock on the same door.  *html is the caller's to free(). */
gm_status gm_markdown_to_html(const char *md, char **html, gm_error *err);

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

/* Write data to a new temporary file beside `path` (".NAME.tmp-XXXXXX" in the
 * same directory, so a rename cannot cross file systems), with the mode a
 * plain create would give.  *tmp is its name (the caller's to free; the file
 * is the caller's to rename with gm_file_replace or to unlink). */
gm_status gm_file_write_temp(const char *path, const char *data, size_t len, char **tmp,
                             gm_error *err);

/* rename(tmp, path); on failure tmp is removed. */
gm_status gm_file_replace(const char *tmp, const char *path, gm_error *err);

/* Both: path holds data afterwards, or is as it was. */
gm_status gm_file_write_atomic(const char *path, const char *data, size_t len, gm_error *err);

#endif
