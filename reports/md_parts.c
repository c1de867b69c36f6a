/* md_parts.c — the GitHub form of a report too long for one comment, cut
 * into parts that each fit one.
 *
 * GitHub takes at most GM_GFM_COMMENT_MAX characters in an issue or comment
 * body.  A longer document is cut at its second-level headings (never inside
 * a code fence) into parts of at most GM_GFM_PART_BYTES bytes each (bytes:
 * a character is one or more, so the count in characters is lower still).
 * Each part begins with a marker line, an HTML comment GitHub does not show,
 * "<!-- gpumem-report part K of N -->", and a line that says which part it
 * is; the first also says why the report comes in parts.  A section longer
 * than a part on its own stays whole in a part of its own, which then says
 * it is over the limit.
 */
#include "md_int.h"

#include "../core/say.h"

#include <stdlib.h>
#include <string.h>

/* Where each part may start: the offsets of the lines "## ..." outside code
 * fences, and the end.  Returns how many (the first, 0, included). */
static size_t S_cuts(const char *md, size_t **out)
{
    size_t n = 0, cap = 16;
    size_t *v = gm_xmalloc(cap * sizeof *v);
    v[n++] = 0;
    bool fence = false;
    for (const char *p = md; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len >= 3 && strncmp(p, "```", 3) == 0)
            fence = !fence;
        if (!fence && p != md && len > 3 && strncmp(p, "## ", 3) == 0) {
            if (n == cap)
                v = gm_xrealloc(v, (cap *= 2) * sizeof *v);
            v[n++] = (size_t)(p - md);
        }
        p = eol ? eol + 1 : p + len;
    }
    *out = v;
    return n;
}

/* Characters of UTF-8 text: the bytes that do not continue one. */
static size_t S_chars(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

/* The room a part's own lines take (marker and notice), generously. */
#define S_PART_LINES 600

char *md_gfm_parts(char *md)
{
    size_t total = strlen(md);
    if (total <= GM_GFM_COMMENT_MAX)
        return md;
    size_t *cut;
    size_t nc = S_cuts(md, &cut);
    /* greedy: each part takes the blocks that start at the cuts while they fit,
     * one block at least */
    size_t *start = gm_xmalloc((nc + 1) * sizeof *start);
    size_t np = 0;
    size_t budget = GM_GFM_PART_BYTES - S_PART_LINES;
    for (size_t i = 0; i < nc;) {
        size_t from = cut[i], j = i + 1;   /* the part: blocks i .. j-1 */
        while (j < nc && (j + 1 < nc ? cut[j + 1] : total) - from <= budget)
            j++;
        start[np++] = from;
        i = j;
    }
    start[np] = total;
    gm_buf b = GM_BUF_INIT;
    for (size_t k = 0; k < np; k++) {
        size_t len = start[k + 1] - start[k];
        gm_say(&b, "{}<!-- gpumem-report part {} of {} -->\n\n", GM_LIT(k ? "\n" : ""),
               GM_INT((long long)(k + 1)), GM_INT((long long)np));
        if (k == 0)
            gm_say(&b,
                   "> **Part 1 of {}.** This report is {} characters, more than the {} "
                   "characters GitHub takes in one comment, so it comes in {} parts, cut at its "
                   "sections. Paste each part as a comment of its own, in order: each starts at "
                   "a line GitHub does not show, an HTML comment with its number.\n\n",
                   GM_INT((long long)np), GM_COUNT((double)S_chars(md)),
                   GM_COUNT(GM_GFM_COMMENT_MAX), GM_INT((long long)np));
        else
            gm_say(&b,
                   "> **Part {} of {}** of this report (GitHub takes {} characters a "
                   "comment).\n\n",
                   GM_INT((long long)(k + 1)), GM_INT((long long)np),
                   GM_COUNT(GM_GFM_COMMENT_MAX));
        if (len > GM_GFM_PART_BYTES - S_PART_LINES)
            gm_buf_puts(&b, "> **Over the limit:** this part is one section, longer than a "
                            "comment on its own; render it with `--only` and its experiment "
                            "for less.\n\n");
        const char *s = md + start[k];
        /* the block without the blank lines that ended it */
        while (len && s[len - 1] == '\n')
            len--;
        gm_buf_put(&b, s, len);
        gm_buf_puts(&b, "\n");
    }
    free(start);
    free(cut);
    free(md);
    return gm_buf_detach(&b);
}
