/* symbol.c — readable names from mangled symbols (symbol.h). */
#include "symbol.h"

#include <string.h>

static bool S_digit(char c) { return c >= '0' && c <= '9'; }

static bool S_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || S_digit(c) || c == '_' ||
           c == '$' || c == '.';
}

bool gm_symbol_is_mangled(const char *s)
{
    return s && s[0] == '_' && s[1] == 'Z' && S_word(s[2]);
}

/* <source-name> ::= <length> <identifier>: the identifier at *p, which is
 * moved past it; false when the length runs past the end. */
static bool S_source_name(const char **p, const char **id, size_t *len)
{
    size_t n = 0;
    const char *s = *p;
    while (S_digit(*s)) {
        n = n * 10 + (size_t)(*s - '0');
        if (n > 4096)
            return false;
        s++;
    }
    if (n == 0 || strnlen(s, n) < n)
        return false;
    *id = s;
    *len = n;
    *p = s + n;
    return true;
}

/* The anonymous namespace is named "_GLOBAL__N_1": not part of a base name. */
static bool S_anonymous(const char *id, size_t len)
{
    return len >= 10 && strncmp(id, "_GLOBAL__N", 10) == 0;
}

/* Walk an encoding from p, which points at the 'I' of template arguments:
 * with `close`, to past the matching 'E' (NULL when the arguments cannot be
 * read); without, to the end of the symbol.  Every source name met is
 * appended to words (when not NULL), a space before each.  Enough of the
 * grammar to keep the nesting: source names are skipped by their length
 * (their letters are not codes), literals to their 'E', substitutions and
 * template parameters to their '_', and every construct that ends in 'E'
 * opens a level. */
static const char *S_walk(const char *p, bool close, gm_buf *words)
{
    int depth = 0;
    while (*p) {
        char c = *p;
        if (S_digit(c)) {
            const char *id;
            size_t len;
            if (!S_source_name(&p, &id, &len))
                return NULL;
            if (words && !S_anonymous(id, len)) {
                gm_buf_putc(words, ' ');
                gm_buf_put(words, id, len);
            }
            continue;
        }
        switch (c) {
        case 'I': case 'N': case 'Z': case 'F': case 'X': case 'J':
            depth++;
            p++;
            break;
        case 'E':
            p++;
            if (--depth == 0 && close)
                return p;
            break;
        case 'L':   /* L <type> <value> E, or L _Z <encoding> E */
            p++;
            if (p[0] == '_' && p[1] == 'Z') {
                depth++;
                p += 2;
                break;
            }
            if (S_digit(*p)) {
                const char *id;
                size_t len;
                if (!S_source_name(&p, &id, &len))
                    return NULL;
            } else if (*p) {
                p++;
            }
            while (*p && *p != 'E')
                p++;
            if (*p)
                p++;
            break;
        case 'S': case 'T':   /* S_, S3_, St, Sa...; T_, T0_ */
            p++;
            if (c == 'S' && *p >= 'a' && *p <= 'z') {
                p++;
                break;
            }
            while ((S_digit(*p) || (*p >= 'A' && *p <= 'Z')) && *p != '_')
                p++;
            if (*p != '_')
                return NULL;
            p++;
            break;
        case 'U':   /* Ul <params> E [n] _ (a lambda); Ut [n] _; a vendor's
                       extension such as nvcc's Unvdl <n> _; U <source-name> */
            p++;
            if (*p == 'l') {
                depth++;
                p++;
            } else if (*p >= 'a' && *p <= 'z') {
                while (*p >= 'a' && *p <= 'z')
                    p++;
                while (S_digit(*p))
                    p++;
                if (*p == '_')
                    p++;
            }
            break;
        case 'A':   /* A <n> _ <type> */
            p++;
            while (S_digit(*p))
                p++;
            if (*p == '_')
                p++;
            break;
        case 'D':   /* Dv <n> _ <type>; Dt/DT <expr> E; D + one code */
            p++;
            if (*p == 'v') {
                p++;
                while (S_digit(*p))
                    p++;
                if (*p == '_')
                    p++;
            } else if (*p == 't' || *p == 'T') {
                depth++;
                p++;
            } else if (*p) {
                p++;
            }
            break;
        default:    /* builtin types, qualifiers, pointers; a lambda's '_' */
            p++;
            break;
        }
    }
    return close ? NULL : p;
}

static const char *S_skip_args(const char *p) { return S_walk(p, true, NULL); }

/* A kernel's symbol is a <nested-name> of namespaces and the function
 * ("_ZN2ns6kernelIfEEvPT_") or an unscoped name ("_Z6kernelPf"); the
 * function's template arguments, if any, follow its name.  __global__
 * functions are never class members, so the last source name before the
 * template arguments or the end of the nested name is the function's; a
 * device function may be a member of a class template, whose arguments are
 * skipped to reach it. */
typedef struct {
    const char *id;     /* the function's name */
    size_t len;
    bool templated;     /* template arguments follow it */
    const char *rest;   /* what follows the name (its template arguments, its type) */
    gm_buf qual;        /* the namespaces before it, each followed by "::" */
} S_parsed;

static bool S_parse(const char *s, S_parsed *out)
{
    memset(out, 0, sizeof *out);
    if (!gm_symbol_is_mangled(s))
        return false;
    const char *p = s + 2;
    if (*p == 'L')   /* internal linkage */
        p++;
    if (*p == 'N') {
        p++;
        while (*p == 'r' || *p == 'V' || *p == 'K' || *p == 'R' || *p == 'O')
            p++;
        for (;;) {
            const char *cid;
            size_t clen;
            if (S_digit(*p)) {
                if (!S_source_name(&p, &cid, &clen))
                    break;
                if (!S_anonymous(cid, clen)) {
                    if (out->id) {
                        gm_buf_put(&out->qual, out->id, out->len);
                        gm_buf_puts(&out->qual, "::");
                    }
                    out->id = cid;
                    out->len = clen;
                    out->templated = false;
                }
                out->rest = p;
            } else if (p[0] == 'S' && p[1] == 't') {   /* std:: */
                gm_buf_puts(&out->qual, "std::");
                p += 2;
            } else if (*p == 'I') {
                /* the function's template arguments, or a class's with a
                 * member after them (a device function, not a kernel) */
                out->templated = true;
                out->rest = p;
                const char *after = S_skip_args(p);
                if (!after || *after == 'E')
                    break;
                p = after;
            } else {
                break;   /* 'E', or something no kernel's name holds */
            }
        }
    } else {
        if (p[0] == 'S' && p[1] == 't') {
            gm_buf_puts(&out->qual, "std::");
            p += 2;
        }
        if (S_digit(*p) && S_source_name(&p, &out->id, &out->len)) {
            out->templated = *p == 'I';
            out->rest = p;
        }
    }
    if (!out->id) {
        gm_buf_free(&out->qual);
        return false;
    }
    gm_buf_puts(&out->qual, "");
    return true;
}

bool gm_symbol_base(const char *s, gm_buf *b)
{
    S_parsed x;
    if (!S_parse(s, &x))
        return false;
    gm_buf name = GM_BUF_INIT;
    gm_buf_put(&name, x.id, x.len);
    gm_buf_puts(&name, "");
    gm_symbol_clip(name.data, GM_SYMBOL_MAX - (x.templated ? 5 : 0), b);
    gm_buf_free(&name);
    if (x.templated)
        gm_buf_puts(b, "<…>");
    gm_buf_free(&x.qual);
    return true;
}

bool gm_symbol_outline(const char *s, gm_buf *b)
{
    S_parsed x;
    if (!S_parse(s, &x))
        return false;
    gm_buf_put(b, x.qual.data, x.qual.len);
    gm_buf_put(b, x.id, x.len);
    gm_buf_puts(b, "<");
    gm_buf words = GM_BUF_INIT;
    gm_buf_puts(&words, "");
    if (x.rest)
        (void)S_walk(x.rest, false, &words);
    gm_buf_puts(b, words.len ? words.data + 1 : "");
    gm_buf_puts(b, ">");
    gm_buf_free(&words);
    gm_buf_free(&x.qual);
    return true;
}

void gm_symbol_clip(const char *s, size_t max, gm_buf *b)
{
    size_t n = s ? strlen(s) : 0;
    if (n <= max) {
        gm_buf_put(b, s ? s : "", n);
        return;
    }
    size_t cut = max > 3 ? max - 3 : 0;
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--;
    gm_buf_put(b, s, cut);
    gm_buf_puts(b, "…");
}

void gm_symbol_readable(const char *s, gm_buf *b)
{
    if (gm_symbol_is_mangled(s) && gm_symbol_base(s, b))
        return;
    gm_symbol_clip(s && *s ? s : "?", GM_SYMBOL_MAX, b);
}

void gm_symbol_text(const char *text, gm_buf *b)
{
    const char *p = text ? text : "";
    while (*p) {
        bool starts = (p == text || !S_word(p[-1])) && gm_symbol_is_mangled(p);
        if (!starts) {
            gm_buf_putc(b, *p++);
            continue;
        }
        size_t n = 0;
        while (S_word(p[n]))
            n++;
        gm_buf sym = GM_BUF_INIT;
        gm_buf_put(&sym, p, n);
        gm_buf_puts(&sym, "");
        gm_symbol_readable(sym.data, b);
        gm_buf_free(&sym);
        p += n;
    }
}
