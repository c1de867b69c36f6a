/* markdown.c — Markdown to HTML through cmark-gfm (declared in output.h; kept
 * apart from the file writing so that the injection library, which writes
 * results files by the same rules, does not link cmark-gfm). */
#include "output.h"

#include "buf.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <string.h>

gm_status gm_markdown_to_html(const char *md, char **html, gm_error *err)
{
    *html = NULL;
    cmark_gfm_core_extensions_ensure_registered();
    cmark_syntax_extension *table = cmark_find_syntax_extension("table");
    if (!table)
        return gm_fail(err, GM_ERR_UNSUPPORTED, "cmark-gfm has no table extension");
    cmark_parser *p = cmark_parser_new(CMARK_OPT_DEFAULT);
    cmark_parser_attach_syntax_extension(p, table);
    cmark_parser_feed(p, md, strlen(md));
    cmark_node *doc = cmark_parser_finish(p);
    char *h = cmark_render_html(doc, CMARK_OPT_DEFAULT, cmark_parser_get_syntax_extensions(p));
    cmark_node_free(doc);
    cmark_parser_free(p);
    if (!h)
        return gm_fail(err, GM_ERR_NOMEM, "cmark-gfm could not render the Markdown");
    /* ours to free() whatever allocator cmark was built with */
    *html = gm_xstrdup(h);
    cmark_get_default_mem_allocator()->free(h);
    return GM_OK;
}
