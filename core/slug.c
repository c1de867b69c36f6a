/* slug.c — heading anchors as GitHub makes them (slug.h). */
#include "slug.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void gm_md_slug(const char *text, gm_buf *out)
{
    gm_buf_puts(out, "");
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p;) {
        unsigned char c = *p;
        if (c < 0x80) {
            if (c >= 'A' && c <= 'Z')
                gm_buf_putc(out, (char)(c - 'A' + 'a'));
            else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
                gm_buf_putc(out, (char)c);
            else if (c == ' ')
                gm_buf_putc(out, '-');
            p++;
            continue;
        }
        /* a UTF-8 sequence: letters stay, the punctuation and symbols a title
         * may carry go */
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        unsigned cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
        size_t k = 1;
        for (; k < len && (p[k] & 0xC0) == 0x80; k++)
            cp = (cp << 6) | (p[k] & 0x3F);
        static const unsigned drop[] = {0x00B7, 0x00D7, 0x00F7, 0x2013, 0x2014, 0x2018, 0x2019,
                                        0x201C, 0x201D, 0x2026, 0x2192, 0x2264, 0x2265, 0x00B0};
        bool dropped = k != len;
        for (size_t i = 0; i < sizeof drop / sizeof drop[0] && !dropped; i++)
            dropped = cp == drop[i];
        if (!dropped)
            gm_buf_put(out, (const char *)p, k);
        p += k;
    }
}

void gm_md_slug_unique(gm_slugs *seen, const char *text, gm_buf *out)
{
    gm_buf base = GM_BUF_INIT;
    gm_md_slug(text, &base);
    gm_buf cand = GM_BUF_INIT;
    gm_buf_puts(&cand, base.data);
    for (unsigned k = 1;; k++) {
        bool taken = false;
        for (size_t i = 0; i < seen->n && !taken; i++)
            taken = strcmp(seen->v[i], cand.data) == 0;
        if (!taken)
            break;
        cand.len = 0;
        gm_buf_printf(&cand, "%s-%u", base.data, k);
    }
    seen->v = gm_xrealloc(seen->v, (seen->n + 1) * sizeof *seen->v);
    seen->v[seen->n++] = gm_xstrdup(cand.data);
    gm_buf_puts(out, cand.data);
    gm_buf_free(&cand);
    gm_buf_free(&base);
}

void gm_slugs_free(gm_slugs *seen)
{
    for (size_t i = 0; i < seen->n; i++)
        free(seen->v[i]);
    free(seen->v);
    seen->v = NULL;
    seen->n = 0;
}
