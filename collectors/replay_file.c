/* replay_file.c — the replay manifest (replay_file.h): written by the counted
 * run, read by `gpumem-report trace-replay`. */
#include "replay_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gm_rp_write_header(gm_buf *b, int device)
{
    gm_buf_printf(b, "%s\n@device\t%d\n", GM_RP_HEADER, device);
}

void gm_rp_write_launch(gm_buf *b, const gm_rp_launch *l)
{
    gm_buf_printf(b, "@launch\t%lld\t%s\t%s\t%u,%u,%u\t%u,%u,%u\t%u\t%u,%u,%u\t%d\t%s\t%zu\n",
                  l->index, l->symbol, l->cubin, l->grid[0], l->grid[1], l->grid[2],
                  l->block[0], l->block[1], l->block[2], l->shm, l->cluster[0], l->cluster[1],
                  l->cluster[2], l->cooperative ? 1 : 0, l->args, l->args_size);
    for (size_t i = 0; i < l->n_mems; i++)
        gm_buf_printf(b, "@mem\t%llx\t%llu\t%s\n", l->mems[i].base, l->mems[i].size,
                      l->mems[i].file);
}

/* A field of ours carries no tab or newline; one from outside (a kernel's
 * name, a reason) has them turned into spaces. */
static void S_put_clean(gm_buf *b, const char *s)
{
    for (; s && *s; s++)
        gm_buf_putc(b, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

void gm_rp_write_skip(gm_buf *b, long long index, const char *kernel, const char *why)
{
    gm_buf_printf(b, "@skip\t%lld\t", index);
    S_put_clean(b, kernel ? kernel : "?");
    gm_buf_putc(b, '\t');
    S_put_clean(b, why ? why : "?");
    gm_buf_putc(b, '\n');
}

/* Split line (modified) at tabs into at most max fields; the count. */
static size_t S_fields(char *line, char **f, size_t max)
{
    size_t n = 0;
    for (char *p = line; n < max;) {
        f[n++] = p;
        char *t = strchr(p, '\t');
        if (!t)
            break;
        *t = '\0';
        p = t + 1;
    }
    return n;
}

static bool S_ll(const char *s, long long *v, int base)
{
    if (!*s)
        return false;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, base);
    if (*end || errno)
        return false;
    *v = x;
    return true;
}

static bool S_ull(const char *s, unsigned long long *v, int base)
{
    if (!*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, base);
    if (*end || errno)
        return false;
    *v = x;
    return true;
}

static bool S_u(const char *s, unsigned *v)
{
    unsigned long long x;
    if (!S_ull(s, &x, 10) || x > 0xffffffffULL)
        return false;
    *v = (unsigned)x;
    return true;
}

static bool S_u3(const char *s, unsigned v[3])
{
    char tmp[96];
    if (strlen(s) >= sizeof tmp)
        return false;
    strcpy(tmp, s);
    char *a = tmp, *b = strchr(a, ','), *c = b ? strchr(b + 1, ',') : NULL;
    if (!b || !c)
        return false;
    *b = *c = '\0';
    return S_u(a, &v[0]) && S_u(b + 1, &v[1]) && S_u(c + 1, &v[2]);
}

/* A file name of ours: no path, nothing hidden. */
static bool S_name_ok(const char *s)
{
    return *s && *s != '.' && !strchr(s, '/');
}

static void S_launch_free(gm_rp_launch *l)
{
    free(l->symbol);
    free(l->cubin);
    free(l->args);
    for (size_t i = 0; i < l->n_mems; i++)
        free(l->mems[i].file);
    free(l->mems);
}

void gm_rp_free(gm_replay *r)
{
    for (size_t i = 0; i < r->n_launches; i++)
        S_launch_free(&r->launches[i]);
    free(r->launches);
    for (size_t i = 0; i < r->n_skips; i++) {
        free(r->skips[i].kernel);
        free(r->skips[i].why);
    }
    free(r->skips);
    memset(r, 0, sizeof *r);
    r->device = -1;
}

gm_status gm_rp_parse(const char *text, const char *name, gm_replay *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    out->device = -1;
    char *copy = gm_xstrdup(text ? text : "");
    gm_status st = GM_OK;
    size_t lineno = 0;
    const char *what = NULL;
    char *save = NULL;
    bool header = false;
    for (char *line = copy; line; line = save) {
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        lineno++;
        if (!header) {
            if (strcmp(line, GM_RP_HEADER) != 0) {
                what = "not a replay manifest (its first line is not \"" GM_RP_HEADER "\")";
                break;
            }
            header = true;
            continue;
        }
        if (!*line && !save)
            break;
        char *f[12];
        size_t n = S_fields(line, f, 12);
        long long ll;
        if (strcmp(f[0], "@device") == 0) {
            if (n != 2 || !S_ll(f[1], &ll, 10) || ll < 0 || ll > 1023) {
                what = "@device: an ordinal from 0 to 1023 expected";
                break;
            }
            out->device = (int)ll;
        } else if (strcmp(f[0], "@launch") == 0) {
            gm_rp_launch l;
            memset(&l, 0, sizeof l);
            unsigned long long as;
            unsigned coop;
            if (n != 11 || !S_ll(f[1], &l.index, 10) || l.index < 0 || !*f[2] ||
                !S_name_ok(f[3]) || !S_u3(f[4], l.grid) || !S_u3(f[5], l.block) ||
                !S_u(f[6], &l.shm) || !S_u3(f[7], l.cluster) || !S_u(f[8], &coop) || coop > 1 ||
                !S_name_ok(f[9]) || !S_ull(f[10], &as, 10) || as > (1u << 20)) {
                what = "@launch: INDEX SYMBOL CUBIN GX,GY,GZ BX,BY,BZ SHM CX,CY,CZ COOP ARGS "
                       "ARGS_SIZE expected";
                break;
            }
            l.cooperative = coop;
            l.args_size = (size_t)as;
            l.symbol = gm_xstrdup(f[2]);
            l.cubin = gm_xstrdup(f[3]);
            l.args = gm_xstrdup(f[9]);
            out->launches = gm_xrealloc(out->launches, (out->n_launches + 1) *
                                                           sizeof *out->launches);
            out->launches[out->n_launches++] = l;
        } else if (strcmp(f[0], "@mem") == 0) {
            gm_rp_mem m;
            if (!out->n_launches) {
                what = "@mem before any @launch";
                break;
            }
            if (n != 4 || !S_ull(f[1], &m.base, 16) || !S_ull(f[2], &m.size, 10) || !m.size ||
                m.base + m.size < m.base || !S_name_ok(f[3])) {
                what = "@mem: BASE (hex) SIZE (bytes, above 0) FILE expected";
                break;
            }
            m.file = gm_xstrdup(f[3]);
            gm_rp_launch *l = &out->launches[out->n_launches - 1];
            l->mems = gm_xrealloc(l->mems, (l->n_mems + 1) * sizeof *l->mems);
            l->mems[l->n_mems++] = m;
        } else if (strcmp(f[0], "@skip") == 0) {
            if (n != 4 || !S_ll(f[1], &ll, 10) || ll < 0) {
                what = "@skip: INDEX KERNEL WHY expected";
                break;
            }
            out->skips = gm_xrealloc(out->skips, (out->n_skips + 1) * sizeof *out->skips);
            out->skips[out->n_skips++] = (gm_rp_skip){ll, gm_xstrdup(f[2]), gm_xstrdup(f[3])};
        } else if (f[0][0] != '#') {
            what = "a line that is neither @device, @launch, @mem, @skip nor a comment";
            break;
        }
    }
    if (!what && !header)
        what = "empty: no \"" GM_RP_HEADER "\" line";
    if (what) {
        st = gm_fail(err, GM_ERR_PARSE, "%s:%zu: %s", name, lineno, what);
        gm_rp_free(out);
    }
    free(copy);
    return st;
}

size_t gm_rp_relocate(unsigned char *args, size_t n, const gm_rp_mem *mems, size_t n_mems,
                      const unsigned long long *to)
{
    size_t moved = 0;
    for (size_t off = 0; off + 8 <= n; off += 8) {
        unsigned long long w;
        memcpy(&w, args + off, 8);
        if (!w)
            continue;
        size_t hit = n_mems;
        for (size_t i = 0; i < n_mems; i++) {
            if (w >= mems[i].base && w - mems[i].base < mems[i].size) {
                hit = i;
                break;
            }
            if (w == mems[i].base + mems[i].size && hit == n_mems)
                hit = i;   /* one past the end: unless another holds it */
        }
        if (hit == n_mems)
            continue;
        unsigned long long v = to[hit] + (w - mems[hit].base);
        memcpy(args + off, &v, 8);
        moved++;
    }
    return moved;
}
