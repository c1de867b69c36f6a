/* slug.h — the anchors of headings: the Markdown report links its sections
 * (reports/render_md.c) and the claims their documents (reports/claims.c) by
 * them, and the HTML page gives its headings these ids (reports/render_html.c).
 */
#ifndef GM_SLUG_H
#define GM_SLUG_H

#include "buf.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Heading anchors as GitHub makes them, so that one link (#slug) works on
 * GitHub and in the HTML page: the text lower-cased, punctuation dropped,
 * each space a hyphen; a slug met before gets -1, -2, ... */
typedef struct {
    char **v;
    size_t n;
} gm_slugs;
void gm_md_slug(const char *text, gm_buf *out);
void gm_md_slug_unique(gm_slugs *seen, const char *text, gm_buf *out);
void gm_slugs_free(gm_slugs *seen);

#ifdef __cplusplus
}
#endif

#endif
