/* sassdis.c — see sassdis.h. */
#include "sassdis.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* As gm_srclines_read_text keeps a source line. */
#define S_TEXT_MAX 240

static void S_put_clean(gm_buf *b, const char *s)
{
    for (; *s; s++)
        gm_buf_putc(b, (*s == '\t' || *s == '\n' || *s == '\r') ? '?' : *s);
}

void gm_sl_cubin_write(gm_buf *b, const char *function, const char *path)
{
    gm_buf_puts(b, GM_SL_CUBIN_DIRECTIVE);
    S_put_clean(b, function && *function ? function : "?");
    gm_buf_putc(b, '\t');
    S_put_clean(b, path && *path ? path : "?");
    gm_buf_putc(b, '\n');
}

void gm_sl_cubins_free(gm_sl_cubin *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].function);
        free(c[i].path);
    }
    free(c);
}

size_t gm_sl_cubins_parse(const char *text, gm_sl_cubin **out)
{
    *out = NULL;
    size_t n = 0, cap = 0;
    const size_t dl = strlen(GM_SL_CUBIN_DIRECTIVE);
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *line = p;
        p = nl ? nl + 1 : NULL;
        if (len <= dl || strncmp(line, GM_SL_CUBIN_DIRECTIVE, dl) != 0)
            continue;
        const char *fn = line + dl, *end = line + len;
        const char *tab = memchr(fn, '\t', (size_t)(end - fn));
        if (!tab || tab == fn || tab + 1 >= end || memchr(tab + 1, '\t', (size_t)(end - tab - 1)))
            continue;
        size_t fl = (size_t)(tab - fn), pl = (size_t)(end - tab - 1);
        if (tab[1 + pl - 1] == '\r')
            pl--;
        if (!pl)
            continue;
        bool seen = false;
        for (size_t i = 0; i < n && !seen; i++)
            seen = strlen((*out)[i].function) == fl && memcmp((*out)[i].function, fn, fl) == 0;
        if (seen)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            *out = gm_xrealloc(*out, cap * sizeof **out);
        }
        gm_sl_cubin *c = &(*out)[n++];
        c->function = gm_xmalloc(fl + 1);
        memcpy(c->function, fn, fl);
        c->function[fl] = '\0';
        c->path = gm_xmalloc(pl + 1);
        memcpy(c->path, tab + 1, pl);
        c->path[pl] = '\0';
    }
    return n;
}

/* ---- nvdisasm's text ------------------------------------------------------------ */

static bool S_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The function a ".text.NAME:" line opens (its name in [*s, *s + *n)). */
static bool S_label(const char *p, const char *end, const char **s, size_t *n)
{
    while (p < end && S_blank(*p))
        p++;
    while (end > p && S_blank(end[-1]))
        end--;
    if ((size_t)(end - p) < 8 || strncmp(p, ".text.", 6) != 0 || end[-1] != ':')
        return false;
    *s = p + 6;
    *n = (size_t)(end - 1 - *s);
    for (const char *q = *s; q < end - 1; q++)
        if (S_blank(*q) || *q == ',' || *q == '"')
            return false;
    return *n > 0;
}

/* An instruction line: its offset and its text in b (cleaned). */
static bool S_inst(const char *p, const char *end, unsigned long long *pc, gm_buf *b)
{
    while (p < end && S_blank(*p))
        p++;
    if (end - p < 5 || p[0] != '/' || p[1] != '*')
        return false;
    p += 2;
    unsigned long long v = 0;
    size_t digits = 0;
    for (; p < end && isxdigit((unsigned char)*p); p++, digits++) {
        if (digits >= 16)
            return false;
        int d = isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10;
        v = v * 16 + (unsigned long long)d;
    }
    if (!digits || end - p < 2 || p[0] != '*' || p[1] != '/')
        return false;
    p += 2;
    /* a comment after the instruction (older versions print the encoding) */
    for (const char *q = p; q + 1 < end; q++)
        if (q[0] == '/' && q[1] == '*') {
            end = q;
            break;
        }
    while (p < end && (S_blank(*p) || *p == '{'))
        p++;
    while (end > p && (S_blank(end[-1]) || end[-1] == ';' || end[-1] == '}'))
        end--;
    if (p == end)
        return false;
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
    for (; p < end && b->len < S_TEXT_MAX; p++) {
        char c = (*p >= 0 && *p < 32) || *p == 127 ? ' ' : *p;
        if (c == ' ' && b->len && b->data[b->len - 1] == ' ')
            continue;
        gm_buf_putc(b, c);
    }
    while (b->len && b->data[b->len - 1] == ' ')
        b->data[--b->len] = '\0';
    *pc = v;
    return b->len > 0;
}

static const gm_sass_dis *S_sort_dis;

static int S_inst_cmp(const void *pa, const void *pb)
{
    const gm_sass_inst *a = pa, *b = pb;
    int c = strcmp(S_sort_dis->functions[a->function], S_sort_dis->functions[b->function]);
    if (c)
        return c;
    if (a->pc != b->pc)
        return a->pc < b->pc ? -1 : 1;
    return (a->function > b->function) - (a->function < b->function);
}

size_t gm_sass_dis_parse(gm_sass_dis *d, const char *text, size_t len,
                         bool (*keep)(const char *function, void *ctx), void *ctx)
{
    size_t added = 0;
    bool in_fn = false;
    size_t fn = 0;
    gm_buf b = GM_BUF_INIT;
    const char *p = text, *end = text ? text + len : NULL;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *line = p;
        p = nl ? nl + 1 : end;
        if ((size_t)(le - line) > GM_SASS_DIS_MAX_LINE)
            continue;
        const char *name;
        size_t nlen;
        if (S_label(line, le, &name, &nlen)) {
            char *f = gm_xmalloc(nlen + 1);
            memcpy(f, name, nlen);
            f[nlen] = '\0';
            in_fn = !keep || keep(f, ctx);
            if (!in_fn) {
                free(f);
                continue;
            }
            d->functions = gm_xrealloc(d->functions, (d->n_functions + 1) * sizeof *d->functions);
            fn = d->n_functions;
            d->functions[d->n_functions++] = f;
            continue;
        }
        unsigned long long pc;
        if (!in_fn || !S_inst(line, le, &pc, &b))
            continue;
        if (d->n_insts >= GM_SASS_DIS_MAX_INSTS) {
            d->truncated = true;
            break;
        }
        if (d->n_insts == d->cap_insts) {
            d->cap_insts = d->cap_insts ? 2 * d->cap_insts : 256;
            d->insts = gm_xrealloc(d->insts, d->cap_insts * sizeof *d->insts);
        }
        d->insts[d->n_insts++] = (gm_sass_inst){fn, pc, gm_xstrdup(b.data)};
        added++;
    }
    gm_buf_free(&b);
    if (added) {
        S_sort_dis = d;
        qsort(d->insts, d->n_insts, sizeof *d->insts, S_inst_cmp);
        S_sort_dis = NULL;
    }
    return added;
}

const char *gm_sass_dis_find(const gm_sass_dis *d, const char *function, unsigned long long pc)
{
    if (!d || !function)
        return NULL;
    size_t lo = 0, hi = d->n_insts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const gm_sass_inst *m = &d->insts[mid];
        int c = strcmp(d->functions[m->function], function);
        if (c < 0 || (c == 0 && m->pc < pc))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < d->n_insts && d->insts[lo].pc == pc &&
        strcmp(d->functions[d->insts[lo].function], function) == 0)
        return d->insts[lo].text;
    return NULL;
}

void gm_sass_dis_free(gm_sass_dis *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_functions; i++)
        free(d->functions[i]);
    for (size_t i = 0; i < d->n_insts; i++)
        free(d->insts[i].text);
    free(d->functions);
    free(d->insts);
    *d = (gm_sass_dis)GM_SASS_DIS_INIT;
}

size_t gm_srclines_fill_sass(gm_srclines *sl, const gm_sass_dis *d)
{
    size_t filled = 0;
    for (size_t i = 0; sl && i < sl->n_lines; i++) {
        gm_srcline *l = &sl->lines[i];
        if (l->line != 0 || l->pc < 0 || l->text || !l->function)
            continue;
        const char *t = gm_sass_dis_find(d, l->function, (unsigned long long)l->pc);
        if (t) {
            l->text = gm_xstrdup(t);
            filled++;
        }
    }
    return filled;
}

/* ---- which symbols of a cubin ---------------------------------------------------- */

/* Little-endian fields of an ELF64 file, read inside data[0..len) only. */
static bool S_u16(const unsigned char *d, size_t len, size_t at, unsigned *v)
{
    if (at > len || len - at < 2)
        return false;
    *v = (unsigned)d[at] | (unsigned)d[at + 1] << 8;
    return true;
}

static bool S_u32(const unsigned char *d, size_t len, size_t at, unsigned long *v)
{
    if (at > len || len - at < 4)
        return false;
    *v = (unsigned long)d[at] | (unsigned long)d[at + 1] << 8 | (unsigned long)d[at + 2] << 16 |
         (unsigned long)d[at + 3] << 24;
    return true;
}

static bool S_u64(const unsigned char *d, size_t len, size_t at, unsigned long long *v)
{
    unsigned long lo, hi;
    if (!S_u32(d, len, at, &lo) || !S_u32(d, len, at + 4, &hi))
        return false;
    *v = (unsigned long long)lo | (unsigned long long)hi << 32;
    return true;
}

size_t gm_elf_function_indices(const unsigned char *data, size_t len, const char *const *names,
                               size_t n, long *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = -1;
    /* the header: magic, ELFCLASS64, ELFDATA2LSB; section headers */
    if (len < 64 || memcmp(data, "\177ELF", 4) != 0 || data[4] != 2 || data[5] != 1)
        return 0;
    unsigned long long shoff;
    unsigned shentsize, shnum;
    if (!S_u64(data, len, 0x28, &shoff) || !S_u16(data, len, 0x3a, &shentsize) ||
        !S_u16(data, len, 0x3c, &shnum) || shentsize < 64 || shoff > len)
        return 0;
    size_t found = 0;
    for (unsigned s = 0; s < shnum; s++) {
        size_t sh = (size_t)shoff + (size_t)s * shentsize;
        unsigned long type, link;
        unsigned long long off, size, entsize;
        if (!S_u32(data, len, sh + 4, &type) || type != 2 /* SHT_SYMTAB */ ||
            !S_u64(data, len, sh + 0x18, &off) || !S_u64(data, len, sh + 0x20, &size) ||
            !S_u32(data, len, sh + 0x28, &link) || !S_u64(data, len, sh + 0x38, &entsize) ||
            entsize < 24 || off > len || size > len - off || link >= shnum)
            continue;
        /* its string table */
        size_t lsh = (size_t)shoff + (size_t)link * shentsize;
        unsigned long long stroff, strsize;
        if (!S_u64(data, len, lsh + 0x18, &stroff) || !S_u64(data, len, lsh + 0x20, &strsize) ||
            stroff > len || strsize > len - stroff)
            continue;
        for (unsigned long long k = 0; k < size / entsize; k++) {
            size_t sym = (size_t)(off + k * entsize);
            unsigned long name;
            if (!S_u32(data, len, sym, &name) || name >= strsize ||
                (data[sym + 4] & 0xf) != 2 /* STT_FUNC */)
                continue;
            const char *nm = (const char *)data + stroff + name;
            size_t room = (size_t)(strsize - name);
            for (size_t i = 0; i < n; i++)
                if (out[i] < 0 && names[i] && strnlen(nm, room) < room &&
                    strcmp(nm, names[i]) == 0) {
                    out[i] = (long)k;
                    found++;
                }
        }
    }
    return found;
}
