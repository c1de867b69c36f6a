/* svg.c — gnuplot's SVG made smaller without changing what it draws.
 *
 * gnuplot writes every tick, label and line in a group of its own with the
 * full set of stroke attributes, coordinates to 1/100 of a pixel, empty
 * groups for style changes and the same dozen marker definitions in every
 * file: a third of an 800x480 chart's bytes.  gm_svg_compact keeps the
 * drawing and drops the rest:
 *   - the XML declaration, comments and <desc>;
 *   - white space between tags, runs of white space inside tags;
 *   - numbers inside tags rounded to 0.1 (a tenth of a pixel on an 800-px
 *     canvas; text is never touched);
 *   - colours rgb(r,g,b) as #rrggbb, xlink:href as SVG 2's href;
 *   - attributes equal to SVG's defaults (stroke-linecap butt, stroke-linejoin
 *     miter), and gnuplot's "sans" font, which no browser knows, for
 *     sans-serif set once on <svg>;
 *   - groups left empty, and marker definitions nothing refers to.
 * Each element ends a line, so gm_svg_inline (line by line) still finds the
 * title.
 */
#include "svg.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool S_starts(const char *p, const char *s) { return strncmp(p, s, strlen(s)) == 0; }
static bool S_digit(char c) { return c >= '0' && c <= '9'; }
static bool S_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool S_word(char c)
{
    return S_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* One tag, [p, end] with *end == '>', written compactly. */
static void S_tag(gm_buf *b, const char *p, const char *end)
{
    static const char *const drop[] = {
        " stroke-linecap=\"butt\"", " stroke-linejoin=\"miter\"", " font-family=\"sans\"",
        " font-size=\"15\"",
    };
    size_t start = b->len;
    char quote = 0;
    for (const char *c = p; c <= end; c++) {
        if (S_space(*c)) {
            while (c + 1 <= end && S_space(c[1]))
                c++;
            char prev = b->len > start ? b->data[b->len - 1] : 0;
            char next = c[1];
            /* no space after "(" or ",", none before ")", the closing quote or ">" */
            if (prev == '(' || prev == ',' || prev == ' ' || next == ')' || next == '>' ||
                next == '/' || (quote && next == quote))
                continue;
            gm_buf_putc(b, ' ');
            continue;
        }
        if (*c == '"' || *c == '\'') {
            quote = quote == *c ? 0 : quote ? quote : *c;
            gm_buf_putc(b, *c);
            continue;
        }
        /* d.dd... -> d.d, d.0 -> d (numbers only, never part of a name) */
        if (quote && S_digit(*c) &&
            (c == p || !S_word(c[-1]) || (c - 1 > p && !S_word(c[-2]) && !S_digit(c[-1])))) {
            const char *q = c;
            while (S_digit(*q))
                q++;
            const char *e = q;
            if (*q == '.' && S_digit(q[1]))
                for (e = q + 1; S_digit(*e);)
                    e++;
            char num[64], out[64];
            size_t n = (size_t)(e - c);
            if (e > q && !S_word(*e) && *e != '.' && n < sizeof num) {
                memcpy(num, c, n);
                num[n] = '\0';
                snprintf(out, sizeof out, "%.1f", strtod(num, NULL));
                size_t ol = strlen(out);
                if (ol > 2 && strcmp(out + ol - 2, ".0") == 0)
                    out[ol - 2] = '\0';
                gm_buf_puts(b, out);
            } else {
                gm_buf_put(b, c, n);
            }
            c = e - 1;
            continue;
        }
        gm_buf_putc(b, *c);
    }
    b->data[b->len] = '\0';
    /* rgb(r,g,b) -> #rrggbb; xlink:href -> href (SVG 2, every browser) */
    for (char *hit = strstr(b->data + start, "rgb("); hit; hit = strstr(hit + 1, "rgb(")) {
        int r, g, bl, n = 0;
        if (sscanf(hit, "rgb(%d,%d,%d)%n", &r, &g, &bl, &n) != 3 || n == 0 || r < 0 || r > 255 ||
            g < 0 || g > 255 || bl < 0 || bl > 255)
            continue;
        char hex[8];
        snprintf(hex, sizeof hex, "#%02x%02x%02x", r, g, bl);
        memcpy(hit, hex, 7);
        memmove(hit + 7, hit + n, (size_t)(b->data + b->len - (hit + n)) + 1);
        b->len -= (size_t)n - 7;
    }
    for (char *hit; (hit = strstr(b->data + start, "xlink:href=")) != NULL;) {
        memmove(hit, hit + 6, (size_t)(b->data + b->len - (hit + 6)) + 1);
        b->len -= 6;
    }
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++) {
        char *hit;
        size_t dl = strlen(drop[i]);
        while ((hit = strstr(b->data + start, drop[i])) != NULL) {
            memmove(hit, hit + dl, (size_t)(b->data + b->len - (hit + dl)) + 1);
            b->len -= dl;
        }
    }
}

/* The id an element of <defs> defines ("" when none): its id='...' value. */
static size_t S_def_id(const char *el, const char *el_end, char *id, size_t cap)
{
    const char *hit = NULL;
    for (const char *c = el; c + 4 < el_end; c++)
        if (c[-1] == ' ' && (S_starts(c, "id='") || S_starts(c, "id=\""))) {
            hit = c;
            break;
        }
    id[0] = '\0';
    if (!hit)
        return 0;
    char q = hit[3];
    const char *v = hit + 4, *e = strchr(v, q);
    if (!e || e > el_end || (size_t)(e - v) + 1 > cap)
        return 0;
    memcpy(id, v, (size_t)(e - v));
    id[e - v] = '\0';
    return (size_t)(e - v);
}

/* A reference to #id in [p, end): href='#id', href="#id" or url(#id). */
static bool S_refers(const char *p, const char *end, const char *id)
{
    size_t n = strlen(id);
    for (const char *c = p; c < end; c++) {
        if (*c != '#' || (size_t)(end - c) < n + 2)
            continue;
        if (strncmp(c + 1, id, n) == 0 && (c[n + 1] == '\'' || c[n + 1] == '"' || c[n + 1] == ')'))
            return true;
    }
    return false;
}

/* The marker and filter definitions nothing outside <defs> (or a kept
 * definition) refers to are dropped; an empty <defs> with them. */
static char *S_prune_defs(char *svg)
{
    char *open = strstr(svg, "<defs>");
    char *close = open ? strstr(open, "</defs>") : NULL;
    if (!open || !close)
        return svg;
    enum { MAX = 64 };
    const char *el[MAX], *el_end[MAX];
    char ids[MAX][64];
    bool keep[MAX];
    size_t n = 0;
    const char *c = open + 6;
    while (c < close && n < MAX) {
        while (c < close && *c != '<')
            c++;
        if (c >= close)
            break;
        const char *gt = strchr(c, '>');
        if (!gt || gt > close)
            break;
        const char *e = gt + 1;
        if (gt[-1] != '/') {
            /* a container (<filter>): up to its closing tag */
            char name[32] = "";
            size_t k = 0;
            for (const char *t = c + 1; S_word(*t) && k + 1 < sizeof name; t++)
                name[k++] = *t;
            name[k] = '\0';
            char ct[40];
            snprintf(ct, sizeof ct, "</%s>", name);
            const char *ce = strstr(gt, ct);
            if (!ce || ce > close)
                break;
            e = ce + strlen(ct);
        }
        el[n] = c;
        el_end[n] = e;
        S_def_id(c, e, ids[n], sizeof ids[n]);
        keep[n] = false;
        n++;
        c = e;
    }
    if (c < close && n >= MAX)
        return svg;     /* more than we track: leave them all */
    const char *after = close + 7;
    const char *svg_end = svg + strlen(svg);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < n; i++) {
            if (keep[i])
                continue;
            if (!ids[i][0] || S_refers(svg, open, ids[i]) || S_refers(after, svg_end, ids[i]))
                keep[i] = true;
            for (size_t j = 0; j < n && !keep[i]; j++)
                if (keep[j] && S_refers(el[j], el_end[j], ids[i]))
                    keep[i] = true;
            changed |= keep[i];
        }
    }
    gm_buf b = GM_BUF_INIT;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        kept += keep[i];
    if (kept) {
        gm_buf_put(&b, svg, (size_t)(open - svg) + 6);
        gm_buf_putc(&b, '\n');
        for (size_t i = 0; i < n; i++)
            if (keep[i]) {
                gm_buf_put(&b, el[i], (size_t)(el_end[i] - el[i]));
                gm_buf_putc(&b, '\n');
            }
        gm_buf_puts(&b, close);
    } else {
        gm_buf_put(&b, svg, (size_t)(open - svg));
        while (*after == '\n')
            after++;
        gm_buf_puts(&b, after);
    }
    free(svg);
    return gm_buf_detach(&b);
}

char *gm_svg_compact(const char *svg)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "");
    /* open tags: where each began in b, where its content began, whether a <g> */
    size_t cap = 64, depth = 0;
    size_t *tag_at = malloc(cap * sizeof *tag_at), *body_at = malloc(cap * sizeof *body_at);
    bool *is_g = malloc(cap * sizeof *is_g);
    if (!tag_at || !body_at || !is_g) {
        free(tag_at), free(body_at), free(is_g);
        return gm_xstrdup(svg);
    }
    char **open_tag = calloc(cap, sizeof *open_tag);
    if (!open_tag) {
        free(tag_at), free(body_at), free(is_g);
        return gm_xstrdup(svg);
    }
    /* the group closed last, when nothing has been written since: a sibling
     * opened with the same tag joins it */
    char *closed_tag = NULL;
    size_t closed_at = 0, closed_end = 0, closed_tag_at = 0;
    bool root_done = false;
    const char *p = svg;
    while (*p) {
        if (S_starts(p, "<?") || S_starts(p, "<!--") || S_starts(p, "<desc>")) {
            const char *endm = S_starts(p, "<?") ? "?>" : S_starts(p, "<!--") ? "-->" : "</desc>";
            const char *e = strstr(p, endm);
            p = e ? e + strlen(endm) : p + strlen(p);
            continue;
        }
        if (*p != '<') {
            /* text: kept as written, unless only white space */
            const char *e = strchr(p, '<');
            if (!e)
                e = p + strlen(p);
            bool blank = true;
            for (const char *c = p; c < e && blank; c++)
                blank = S_space(*c);
            if (!blank)
                gm_buf_put(&b, p, (size_t)(e - p));
            p = e;
            continue;
        }
        const char *gt = strchr(p, '>');
        if (!gt)
            break;
        /* <g attrs><text>words</text></g> -> <text attrs>words</text> */
        if (S_starts(p, "<g ") && gt[-1] != '/') {
            const char *t = gt + 1;
            while (S_space(*t))
                t++;
            const char *te = S_starts(t, "<text>") ? strstr(t, "</text>") : NULL;
            const char *u = te ? te + 7 : NULL;
            while (u && S_space(*u))
                u++;
            if (te && S_starts(u, "</g>") && !memchr(t + 6, '<', (size_t)(te - (t + 6)))) {
                gm_buf tag = GM_BUF_INIT;
                gm_buf_puts(&tag, "<text");
                gm_buf_put(&tag, p + 2, (size_t)(gt - (p + 2)) + 1);
                S_tag(&b, tag.data, tag.data + tag.len - 1);
                gm_buf_free(&tag);
                gm_buf_put(&b, t + 6, (size_t)(te - (t + 6)));
                gm_buf_puts(&b, "</text>\n");
                p = u + 4;
                continue;
            }
        }
        if (p[1] == '/') {
            bool g = S_starts(p, "</g>");
            free(closed_tag);
            closed_tag = NULL;
            if (depth && g && is_g[depth - 1] && b.len == body_at[depth - 1]) {
                b.len = tag_at[depth - 1];   /* an empty group: never written */
                b.data[b.len] = '\0';
                depth--;
                free(open_tag[depth]);
            } else if (depth) {
                depth--;
                closed_at = b.len;
                S_tag(&b, p, gt);
                gm_buf_putc(&b, '\n');
                closed_end = b.len;
                closed_tag = g ? open_tag[depth] : NULL;
                closed_tag_at = tag_at[depth];
                if (!g)
                    free(open_tag[depth]);
            } else {
                S_tag(&b, p, gt);
                gm_buf_putc(&b, '\n');
            }
            p = gt + 1;
            continue;
        }
        size_t at = b.len;
        S_tag(&b, p, gt);
        bool self_closing = gt[-1] == '/';
        if (!self_closing && closed_tag && closed_end == at && strcmp(b.data + at, closed_tag) == 0) {
            /* </g><g same> : one group */
            b.len = closed_at;
            b.data[b.len] = '\0';
            at = closed_tag_at;
        } else if (closed_tag) {
            free(closed_tag);
            closed_tag = NULL;
        }
        if (self_closing) {
            gm_buf_putc(&b, '\n');
        } else {
            if (!root_done && S_starts(p, "<svg")) {
                /* one font for the whole chart; each namespace declaration on a
                 * line of its own, where gm_svg_inline drops it */
                b.len--;   /* the '>' */
                b.data[b.len] = '\0';
                gm_buf ns = GM_BUF_INIT, rest = GM_BUF_INIT;
                gm_buf_puts(&ns, "");
                for (const char *c = b.data + at; *c;) {
                    const char *sp = strchr(c + 1, ' ');
                    /* attributes hold no space but inside quotes: find the value's end */
                    const char *eq = strchr(c, '=');
                    if (c != b.data + at && eq && (eq[1] == '"' || eq[1] == '\'')) {
                        const char *qe = strchr(eq + 2, eq[1]);
                        sp = qe ? qe + 1 : NULL;
                    }
                    size_t len = sp ? (size_t)(sp - c) : strlen(c);
                    if (strncmp(c, " xmlns", 6) == 0) {
                        gm_buf_putc(&ns, '\n');
                        gm_buf_put(&ns, c + 1, len - 1);
                    } else {
                        gm_buf_put(&rest, c, len);
                    }
                    c += len;
                }
                b.len = at;
                gm_buf_put(&b, rest.data, rest.len);
                gm_buf_puts(&b, " font-family=\"sans-serif\" font-size=\"15\"");
                gm_buf_put(&b, ns.data, ns.len);
                gm_buf_puts(&b, "\n>\n");
                gm_buf_free(&ns);
                gm_buf_free(&rest);
                root_done = true;
            }
            if (depth == cap) {
                cap *= 2;
                size_t *t1 = realloc(tag_at, cap * sizeof *tag_at);
                size_t *t2 = t1 ? realloc(body_at, cap * sizeof *body_at) : NULL;
                bool *t3 = t2 ? realloc(is_g, cap * sizeof *is_g) : NULL;
                char **t4 = t3 ? realloc(open_tag, cap * sizeof *open_tag) : NULL;
                if (!t1 || !t2 || !t3 || !t4) {
                    fprintf(stderr, "gpumem-report: out of memory\n");
                    abort();
                }
                tag_at = t1, body_at = t2, is_g = t3, open_tag = t4;
            }
            if (closed_tag && at == closed_tag_at) {
                open_tag[depth] = closed_tag;   /* the joined group goes on */
                closed_tag = NULL;
                tag_at[depth] = at;
                body_at[depth] = b.len + 1;     /* not empty: it has content */
                is_g[depth] = true;
                depth++;
                p = gt + 1;
                continue;
            }
            open_tag[depth] = gm_xstrdup(b.data + at);
            tag_at[depth] = at;
            body_at[depth] = b.len;
            is_g[depth] = S_starts(p, "<g ") || S_starts(p, "<g>") || S_starts(p, "<g\n") ||
                          S_starts(p, "<g\t");
            depth++;
        }
        p = gt + 1;
    }
    while (depth)
        free(open_tag[--depth]);
    free(closed_tag);
    free(open_tag);
    free(tag_at);
    free(body_at);
    free(is_g);
    return S_prune_defs(gm_buf_detach(&b));
}
