/* buf.h — a growing byte buffer that renderers append into (cmark's strbuf idea).
 *
 * Out of memory aborts with a tagged message (as cmark does): every renderer is a
 * pure function that appends, and checking each append would bury the logic.
 */
#ifndef GM_BUF_H
#define GM_BUF_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char *data;   /* always NUL-terminated once anything was appended */
    size_t len;
    size_t cap;
} gm_buf;

#define GM_BUF_INIT {NULL, 0, 0}

void gm_buf_put(gm_buf *b, const char *s, size_t n);
void gm_buf_puts(gm_buf *b, const char *s);
void gm_buf_putc(gm_buf *b, char c);
void gm_buf_printf(gm_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Make room for n more bytes (and the NUL) at once: an append of a known size
 * then needs no regrowth. */
void gm_buf_reserve(gm_buf *b, size_t n);
/* Append the bytes of the file at path to b, at most max of them (0: all).
 * false when it cannot be opened (errno says why) or a read fails; what was
 * read before a failure stays in b. */
bool gm_buf_read_file(gm_buf *b, const char *path, size_t max);
/* Hand the contents to the caller (who frees them); the buffer is left empty. */
char *gm_buf_detach(gm_buf *b);
void gm_buf_free(gm_buf *b);

/* malloc/realloc/strdup that abort with "gpumem-report: out of memory" */
void *gm_xmalloc(size_t n);
void *gm_xcalloc(size_t n, size_t size);
void *gm_xrealloc(void *p, size_t n);
char *gm_xstrdup(const char *s);   /* NULL in, NULL out */

#ifdef __cplusplus
}
#endif

#endif
