#include "srclines.h"

#include "catalog.h"
#include "symbol.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gm_sl_records_free(gm_sl_record *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].function);
        free(r[i].file);
    }
    free(r);
}

static void S_put_clean(gm_buf *b, const char *s)
{
    for (; *s; s++)
        gm_buf_putc(b, (*s == '\t' || *s == '\n' || *s == '\r') ? '?' : *s);
}

void gm_sl_record_write(gm_buf *b, const gm_sl_record *r)
{
    S_put_clean(b, r->function && *r->function ? r->function : "?");
    gm_buf_printf(b, "\t0x%llx\t", r->pc);
    S_put_clean(b, r->file && *r->file ? r->file : "-");
    gm_buf_printf(b, "\t%lld", r->line);
    for (int k = 0; k < GM_SL_N; k++)
        gm_buf_printf(b, "\t%lld", r->count[k]);
    gm_buf_putc(b, '\n');
}

static char *S_field(char **p)
{
    char *s = *p;
    if (!s)
        return NULL;
    char *t = strchr(s, '\t');
    if (t) {
        *t = '\0';
        *p = t + 1;
    } else {
        *p = NULL;
    }
    return s;
}

static bool S_ll(const char *s, int base, long long *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, base);
    if (errno || *end || v < 0)
        return false;
    *out = v;
    return true;
}

gm_status gm_sl_records_parse(const char *text, const char *name, gm_sl_record **out,
                              size_t *n, gm_error *err)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    long long lineno = 0;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        char *line = gm_xmalloc(len + 1);
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + (nl ? 1 : 0);
        if (!*line || line[0] == '#') {
            free(line);
            continue;
        }
        char *cur = line;
        char *fn = S_field(&cur), *pc = S_field(&cur), *file = S_field(&cur), *ln = S_field(&cur);
        gm_sl_record r = {0};
        long long v;
        bool ok = fn && *fn && pc && strncmp(pc, "0x", 2) == 0 && S_ll(pc + 2, 16, &v);
        r.pc = ok ? (unsigned long long)v : 0;
        const char *what = ok ? NULL : "PC (0x...)";
        if (ok && !(file && *file)) {
            ok = false;
            what = "file";
        }
        if (ok && !S_ll(ln, 10, &r.line)) {
            ok = false;
            what = "line";
        }
        for (int k = 0; ok && k < GM_SL_N; k++)
            if (!S_ll(S_field(&cur), 10, &r.count[k])) {
                ok = false;
                what = gm_sl_counter_keys[k];
            }
        if (ok && cur) {
            ok = false;
            what = "end of line (extra fields)";
        }
        if (!ok) {
            free(line);
            gm_sl_records_free(*out, *n);
            *out = NULL;
            *n = 0;
            return gm_fail(err, GM_ERR_PARSE, "%s:%lld: bad record: expected %s", name, lineno,
                           what);
        }
        r.function = gm_xstrdup(fn);
        r.file = strcmp(file, "-") == 0 ? NULL : gm_xstrdup(file);
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *out = gm_xrealloc(*out, cap * sizeof **out);
        }
        (*out)[(*n)++] = r;
        free(line);
    }
    return GM_OK;
}

static int S_strcmp0(const char *a, const char *b)
{
    if (!a || !b)
        return a ? 1 : (b ? -1 : 0);
    return strcmp(a, b);
}

static int S_line_cmp(const void *pa, const void *pb)
{
    const gm_srcline *a = pa, *b = pb;
    /* lines with line info first, by file and line; then instructions */
    if ((a->line > 0) != (b->line > 0))
        return a->line > 0 ? -1 : 1;
    int c = S_strcmp0(a->file, b->file);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    c = S_strcmp0(a->function, b->function);
    if (c)
        return c;
    return a->pc < b->pc ? -1 : (a->pc > b->pc);
}

static bool S_counts_anything(const long long *c)
{
    for (int k = 0; k < GM_SL_N; k++)
        if (c[k])
            return true;
    return false;
}

void gm_srclines_from_records(gm_srclines *sl, const gm_sl_record *r, size_t n)
{
    for (size_t i = 0; i < sl->n_lines; i++) {
        free(sl->lines[i].file);
        free(sl->lines[i].function);
        free(sl->lines[i].text);
        free(sl->lines[i].sass);
    }
    free(sl->lines);
    sl->lines = NULL;
    sl->n_lines = 0;
    sl->line_info = false;
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        if (!S_counts_anything(r[i].count))
            continue;
        bool has_line = r[i].line > 0 && r[i].file;
        sl->line_info |= has_line;
        gm_srcline *l = NULL;
        for (size_t j = 0; j < sl->n_lines && !l; j++) {
            gm_srcline *c = &sl->lines[j];
            if (has_line ? (c->line == r[i].line && S_strcmp0(c->file, r[i].file) == 0)
                         : (c->line == 0 && c->pc == (long long)r[i].pc &&
                            S_strcmp0(c->function, r[i].function) == 0))
                l = c;
        }
        if (!l) {
            if (sl->n_lines == cap) {
                cap = cap ? 2 * cap : 32;
                sl->lines = gm_xrealloc(sl->lines, cap * sizeof *sl->lines);
            }
            l = &sl->lines[sl->n_lines++];
            memset(l, 0, sizeof *l);
            l->file = has_line ? gm_xstrdup(r[i].file) : NULL;
            l->line = has_line ? r[i].line : 0;
            l->pc = has_line ? -1 : (long long)r[i].pc;
            l->function = r[i].function ? gm_xstrdup(r[i].function) : NULL;
        }
        for (int k = 0; k < GM_SL_N; k++)
            l->count[k] += r[i].count[k];
    }
    if (sl->n_lines > 1)
        qsort(sl->lines, sl->n_lines, sizeof *sl->lines, S_line_cmp);
    static const struct { gm_sl_counter k; const char *op; } ops[] = {
        {GM_SL_GLOBAL_LD, "LDG"}, {GM_SL_GLOBAL_ST, "STG"},
        {GM_SL_SHARED_LD, "LDS"}, {GM_SL_SHARED_ST, "STS"}};
    for (size_t j = 0; j < sl->n_lines; j++) {
        gm_buf b = GM_BUF_INIT;
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            if (sl->lines[j].count[ops[o].k]) {
                if (b.len)
                    gm_buf_putc(&b, ' ');
                gm_buf_puts(&b, ops[o].op);
            }
        sl->lines[j].sass = b.len ? gm_buf_detach(&b) : NULL;
        gm_buf_free(&b);
    }
}

static char *S_line_of(const char *path, long long want)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    long long at = 1;
    int ch;
    while (at < want && (ch = getc(f)) != EOF)
        if (ch == '\n')
            at++;
    if (at != want) {
        fclose(f);
        return NULL;
    }
    gm_buf b = GM_BUF_INIT;
    while ((ch = getc(f)) != EOF && ch != '\n')
        if (b.len < 240)
            gm_buf_putc(&b, (ch == '\t' || (ch >= 0 && ch < 32) || ch == 127) ? ' ' : (char)ch);
    bool got = !(ch == EOF && b.len == 0 && ferror(f));
    fclose(f);
    while (b.len && b.data[b.len - 1] == ' ')
        b.data[--b.len] = '\0';
    if (!got) {
        gm_buf_free(&b);
        return NULL;
    }
    return gm_buf_detach(&b);
}

void gm_srclines_read_text(gm_srclines *sl)
{
    for (size_t i = 0; i < sl->n_lines; i++) {
        gm_srcline *l = &sl->lines[i];
        if (l->text || l->line <= 0 || !l->file)
            continue;
        l->text = S_line_of(l->file, l->line);
    }
}

long long gm_srclines_total(const gm_srclines *sl, gm_sl_counter k)
{
    long long t = 0;
    for (size_t i = 0; i < sl->n_lines; i++)
        t += sl->lines[i].count[k];
    return t;
}

long long gm_srcline_excess_sectors(const gm_srcline *l)
{
    long long d = l->count[GM_SL_SECTORS] - l->count[GM_SL_SECTORS_IDEAL];
    return d > 0 ? d : 0;
}

long long gm_srcline_excess_wavefronts(const gm_srcline *l)
{
    long long d = l->count[GM_SL_WAVEFRONTS] - l->count[GM_SL_WAVEFRONTS_IDEAL];
    return d > 0 ? d : 0;
}

size_t gm_srclines_rank(const gm_srclines *sl, bool shared, size_t *idx, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < sl->n_lines; i++) {
        long long e = shared ? gm_srcline_excess_wavefronts(&sl->lines[i])
                             : gm_srcline_excess_sectors(&sl->lines[i]);
        if (e <= 0)
            continue;
        /* insertion into the top list, stable for ties */
        size_t at = k < max ? k : max;
        while (at > 0) {
            const gm_srcline *p = &sl->lines[idx[at - 1]];
            long long pe = shared ? gm_srcline_excess_wavefronts(p) : gm_srcline_excess_sectors(p);
            if (pe >= e)
                break;
            at--;
        }
        if (at >= max)
            continue;
        size_t last = k < max ? k : max - 1;
        for (size_t j = last; j > at; j--)
            idx[j] = idx[j - 1];
        idx[at] = i;
        if (k < max)
            k++;
    }
    return k;
}

void gm_srclines_relate(gm_srclines *sl, const char *root)
{
    free(sl->root);
    sl->root = NULL;
    if (!root || root[0] != '/')
        return;
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    bool any = false;
    for (size_t i = 0; i < sl->n_lines; i++) {
        char *f = sl->lines[i].file;
        if (!f || strncmp(f, root, n) != 0 || f[n] != '/' || !f[n + 1])
            continue;
        memmove(f, f + n + 1, strlen(f + n + 1) + 1);
        any = true;
    }
    if (any) {
        sl->root = gm_xmalloc(n + 1);
        memcpy(sl->root, root, n);
        sl->root[n] = '\0';
    }
}

void gm_srcline_where(const gm_srcline *l, char *out, size_t cap)
{
    if (l->line > 0 && l->file) {
        /* a relative path is relative to the source root: all of it says
         * where; a path recorded whole, by its base name */
        const char *base = l->file[0] == '/' ? strrchr(l->file, '/') + 1 : l->file;
        snprintf(out, cap, "%s:%lld", base, l->line);
    } else {
        /* the function as a person reads it (symbol.h): CUPTI gives the
         * mangled symbol */
        gm_buf fn = GM_BUF_INIT;
        gm_symbol_readable(l->function, &fn);
        snprintf(out, cap, "%s+0x%llx", fn.data, (unsigned long long)(l->pc < 0 ? 0 : l->pc));
        gm_buf_free(&fn);
    }
}

/* ---- which line of one run is which of another ----------------------------- */

/* Whole path components two paths share at their ends ("a/b/c.cu" and
 * "x/b/c.cu": 2). */
static size_t S_common_tail(const char *a, const char *b)
{
    size_t i = strlen(a), j = strlen(b), k = 0;
    for (;;) {
        size_t si = i, sj = j;
        while (si > 0 && a[si - 1] != '/')
            si--;
        while (sj > 0 && b[sj - 1] != '/')
            sj--;
        if (i - si != j - sj || i == si || memcmp(a + si, b + sj, i - si) != 0)
            return k;
        k++;
        if (si == 0 || sj == 0)
            return k;
        i = si - 1;
        j = sj - 1;
    }
}

static size_t S_components(const char *p)
{
    size_t k = 1;
    for (; *p; p++)
        k += *p == '/';
    return k;
}

/* How well file a of one side stands for file b of the other: 0 not at all;
 * more for a longer common tail; the most for the same path. */
static size_t S_file_score(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return (size_t)-1;
    bool ra = a[0] != '/', rb = b[0] != '/';
    if (ra && rb)
        return 0;   /* both relative to their source roots: not the same file */
    size_t k = S_common_tail(a, b);
    /* a path relative to its root is all of the other's tail, or another file */
    if ((ra && k < S_components(a)) || (rb && k < S_components(b)))
        return 0;
    return k;
}

typedef struct {
    const char **v;
    size_t n;
} S_files;

/* The index of file f in fs, added when new. */
static size_t S_file_at(S_files *fs, const char *f)
{
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->v[i], f) == 0)
            return i;
    fs->v = gm_xrealloc(fs->v, (fs->n + 1) * sizeof *fs->v);
    fs->v[fs->n] = f;
    return fs->n++;
}

/* The line's code without its indentation; NULL when unknown or blank. */
static const char *S_code(const gm_srcline *l)
{
    const char *t = l->text;
    while (t && *t == ' ')
        t++;
    return t && *t ? t : NULL;
}

/* Same code, trailing blanks aside (read_text cuts them; stored text may not). */
static bool S_same_code(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    while (na && a[na - 1] == ' ')
        na--;
    while (nb && b[nb - 1] == ' ')
        nb--;
    return na == nb && memcmp(a, b, na) == 0;
}

void gm_srclines_match(const gm_srcline *a, size_t na, const gm_srcline *b, size_t nb,
                       size_t *match)
{
    for (size_t i = 0; i < na; i++)
        match[i] = GM_SL_NONE;
    bool *used = gm_xcalloc(nb ? nb : 1, sizeof *used);
    /* lines without line info: by function and PC */
    for (size_t i = 0; i < na; i++) {
        if (a[i].line > 0 && a[i].file)
            continue;
        for (size_t j = 0; j < nb && match[i] == GM_SL_NONE; j++)
            if (!used[j] && !(b[j].line > 0 && b[j].file) && a[i].pc == b[j].pc &&
                a[i].function && b[j].function && strcmp(a[i].function, b[j].function) == 0) {
                match[i] = j;
                used[j] = true;
            }
    }
    /* the files of each side, and which of b's each of a's is */
    S_files fa = {NULL, 0}, fb = {NULL, 0};
    size_t *ia = gm_xmalloc((na ? na : 1) * sizeof *ia), *ib = gm_xmalloc((nb ? nb : 1) * sizeof *ib);
    for (size_t i = 0; i < na; i++)
        ia[i] = a[i].line > 0 && a[i].file ? S_file_at(&fa, a[i].file) : GM_SL_NONE;
    for (size_t j = 0; j < nb; j++)
        ib[j] = b[j].line > 0 && b[j].file ? S_file_at(&fb, b[j].file) : GM_SL_NONE;
    size_t *pair = gm_xmalloc((fa.n ? fa.n : 1) * sizeof *pair);
    bool *taken = gm_xcalloc(fb.n ? fb.n : 1, sizeof *taken);
    for (size_t x = 0; x < fa.n; x++)
        pair[x] = GM_SL_NONE;
    for (;;) {   /* the best-scoring pair of unpaired files first */
        size_t best = 0, bx = 0, by = 0;
        for (size_t x = 0; x < fa.n; x++)
            for (size_t y = 0; y < fb.n && pair[x] == GM_SL_NONE; y++) {
                size_t sc = taken[y] ? 0 : S_file_score(fa.v[x], fb.v[y]);
                if (sc > best)
                    best = sc, bx = x, by = y;
            }
        if (!best)
            break;
        pair[bx] = by;
        taken[by] = true;
    }
    for (int round = 1; round <= 3; round++)
        for (size_t i = 0; i < na; i++) {
            if (ia[i] == GM_SL_NONE || match[i] != GM_SL_NONE)
                continue;
            const char *code = S_code(&a[i]);
            if (round == 2 && !code)
                continue;
            size_t pf = pair[ia[i]], best = GM_SL_NONE;
            long long best_d = 0;
            for (size_t j = 0; j < nb; j++) {
                if (used[j] || ib[j] == GM_SL_NONE)
                    continue;
                const char *cj = S_code(&b[j]);
                bool here = ib[j] == pf;
                if (round != 2) {
                    if (!here || b[j].line != a[i].line ||
                        (round == 1 && code && cj && !S_same_code(code, cj)))
                        continue;
                    best = j;
                    break;
                }
                if (!cj || !S_same_code(code, cj))
                    continue;
                /* the nearest in the same file, else the first elsewhere */
                long long d = here ? llabs(b[j].line - a[i].line) : LLONG_MAX;
                if (best == GM_SL_NONE || d < best_d)
                    best = j, best_d = d;
            }
            if (best != GM_SL_NONE) {
                match[i] = best;
                used[best] = true;
            }
        }
    free(pair);
    free(taken);
    free(fa.v);
    free(fb.v);
    free(ia);
    free(ib);
    free(used);
}

/* ---- which runs the per-line pass measures --------------------------------- */

static bool S_pick_candidate(const gm_run *r)
{
    return r->n_metrics > 0 && r->kernel && r->experiment && r->variant &&
           r->check.status == GM_CHECK_PASSED;
}

static bool S_same_variant(const gm_run *a, const gm_run *b)
{
    return strcmp(a->experiment, b->experiment) == 0 && strcmp(a->variant, b->variant) == 0;
}

static double S_ratio(const gm_run *r, const char *num, const char *den)
{
    double n = gm_run_metric_num(r, num), d = gm_run_metric_num(r, den);
    return d > 0 && n >= 0 ? n / d : 0;   /* NaN compares false: 0 */
}

static double S_waste(const gm_run *r)
{
    return S_ratio(r, GM_M_LD_SECTORS, GM_M_LD_REQUESTS) +
           S_ratio(r, GM_M_ST_SECTORS, GM_M_ST_REQUESTS) +
           S_ratio(r, GM_M_SH_LD_WAVES, GM_M_SH_LD_INST) +
           S_ratio(r, GM_M_SH_ST_WAVES, GM_M_SH_ST_INST);
}

size_t gm_srclines_pick(const gm_results *r, bool *pick)
{
    size_t total = 0;
    for (size_t i = 0; i < r->n_runs; i++)
        pick[i] = false;
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        if (!S_pick_candidate(run))
            continue;
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !(S_pick_candidate(&r->runs[j]) && S_same_variant(&r->runs[j], run));
        if (!first)
            continue;
        double most = 0;
        for (size_t j = i; j < r->n_runs; j++)
            if (S_pick_candidate(&r->runs[j]) && S_same_variant(&r->runs[j], run) &&
                S_waste(&r->runs[j]) > most)
                most = S_waste(&r->runs[j]);
        size_t best = i;
        for (size_t j = i; j < r->n_runs; j++)
            if (S_pick_candidate(&r->runs[j]) && S_same_variant(&r->runs[j], run) &&
                S_waste(&r->runs[j]) >= 0.98 * most)
                best = j;
        pick[best] = true;
        total++;
    }
    return total;
}
