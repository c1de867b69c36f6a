#include "escape.h"

#include <stdbool.h>
#include <string.h>

void gm_esc_html(gm_buf *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': gm_buf_puts(b, "&amp;"); break;
        case '<': gm_buf_puts(b, "&lt;"); break;
        case '>': gm_buf_puts(b, "&gt;"); break;
        case '"': gm_buf_puts(b, "&quot;"); break;
        case '\'': gm_buf_puts(b, "&#39;"); break;
        default:
            if (c < 0x20 && c != '\n' && c != '\t')
                break;
            if (c == 0x7f)
                break;
            gm_buf_putc(b, (char)c);
        }
    }
}

void gm_esc_md(gm_buf *b, const char *s)
{
    /* Characters with an inline meaning anywhere in a line: escapes, code
     * spans, emphasis, links, autolinks and raw HTML, entities, table cells,
     * strikethrough.  Punctuation that matters only at the start of a line
     * (headings, lists, blockquotes, setext underlines) is escaped there. */
    static const char inline_punct[] = "\\`*_[]<>|~&";
    if (!s)
        return;
    const char *p = s;
    if (strchr("#+-=", *p) && *p) {
        gm_buf_putc(b, '\\');
    } else if (*p >= '0' && *p <= '9') {
        const char *q = p;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q == '.' || *q == ')') {      /* "1." or "1)" would open a list */
            gm_buf_put(b, p, (size_t)(q - p));
            gm_buf_putc(b, '\\');
            p = q;
        }
    }
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == 0x7f) {
            gm_buf_putc(b, ' ');
        } else if (strchr(inline_punct, c)) {
            gm_buf_putc(b, '\\');
            gm_buf_putc(b, (char)c);
        } else {
            gm_buf_putc(b, (char)c);
        }
    }
}

void gm_esc_md_code(gm_buf *b, const char *s)
{
    if (!s)
        s = "";
    size_t longest = 0, run = 0;
    for (const char *p = s; *p; p++) {
        run = (*p == '`') ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t fence = longest + 1;
    size_t n = strlen(s);
    int pad = n == 0 || s[0] == '`' || s[n - 1] == '`' || s[0] == ' ' || s[n - 1] == ' ';
    for (size_t i = 0; i < fence; i++)
        gm_buf_putc(b, '`');
    if (pad)
        gm_buf_putc(b, ' ');
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '|')
            gm_buf_puts(b, "\\|");
        else if (c < 0x20 || c == 0x7f)
            gm_buf_putc(b, ' ');
        else
            gm_buf_putc(b, (char)c);
    }
    if (pad)
        gm_buf_putc(b, ' ');
    for (size_t i = 0; i < fence; i++)
        gm_buf_putc(b, '`');
}

void gm_esc_md_spans(gm_buf *b, const char *s)
{
    if (!s)
        return;
    gm_buf part = GM_BUF_INIT;
    while (*s) {
        const char *open = strchr(s, '`');
        const char *close = open ? strchr(open + 1, '`') : NULL;
        if (!close || close == open + 1) {   /* no pair (or an empty one) left: text */
            const char *upto = close ? close + 1 : s + strlen(s);
            part.len = 0;
            gm_buf_put(&part, s, (size_t)(upto - s));
            gm_esc_md(b, part.data);
            s = upto;
            continue;
        }
        part.len = 0;
        gm_buf_put(&part, s, (size_t)(open - s));
        gm_esc_md(b, part.data);
        part.len = 0;
        gm_buf_put(&part, open + 1, (size_t)(close - open - 1));
        gm_esc_md_code(b, part.data);
        s = close + 1;
    }
    gm_buf_free(&part);
}

void gm_esc_gnuplot(gm_buf *b, const char *s)
{
    gm_buf_putc(b, '\'');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'')
            gm_buf_puts(b, "''");
        else if (c < 0x20 || c == 0x7f)
            gm_buf_putc(b, ' ');
        else
            gm_buf_putc(b, (char)c);
    }
    gm_buf_putc(b, '\'');
}

void gm_esc_csv(gm_buf *b, const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s);
    bool formula = n && strchr("=+-@\t\r", s[0]) != NULL;
    bool quote = formula || strpbrk(s, ",\"\r\n") != NULL || (n && (s[0] == ' ' || s[n - 1] == ' '));
    if (quote)
        gm_buf_putc(b, '"');
    if (formula)
        gm_buf_putc(b, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            gm_buf_putc(b, '"');
        gm_buf_putc(b, *p);
    }
    if (quote)
        gm_buf_putc(b, '"');
}
