#include "srclines.h"

#include "catalog.h"
#include "symbol.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
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

/* One record line (modified in place) into *r; NULL, or what was expected
 * where it is malformed. */
static const char *S_parse_record(char *line, gm_sl_record *r)
{
    char *cur = line;
    char *fn = S_field(&cur), *pc = S_field(&cur), *file = S_field(&cur), *ln = S_field(&cur);
    memset(r, 0, sizeof *r);
    long long v;
    bool ok = fn && *fn && pc && strncmp(pc, "0x", 2) == 0 && S_ll(pc + 2, 16, &v);
    r->pc = ok ? (unsigned long long)v : 0;
    if (!ok)
        return "PC (0x...)";
    if (!(file && *file))
        return "file";
    if (!S_ll(ln, 10, &r->line))
        return "line";
    for (int k = 0; k < GM_SL_N; k++)
        if (!S_ll(S_field(&cur), 10, &r->count[k]))
            return gm_sl_counter_keys[k];
    if (cur)
        return "end of line (extra fields)";
    r->function = gm_xstrdup(fn);
    r->file = strcmp(file, "-") == 0 ? NULL : gm_xstrdup(file);
    return NULL;
}

static void S_push_record(gm_sl_record **v, size_t *n, size_t *cap, const gm_sl_record *r)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *v = gm_xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = *r;
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
        gm_sl_record r;
        const char *what = S_parse_record(line, &r);
        free(line);
        if (what) {
            gm_sl_records_free(*out, *n);
            *out = NULL;
            *n = 0;
            return gm_fail(err, GM_ERR_PARSE, "%s:%lld: bad record: expected %s", name, lineno,
                           what);
        }
        S_push_record(out, n, &cap, &r);
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

/* How much a case moves (bytes it must read and write; else its threads). */
static double S_size(const gm_run *r)
{
    double b = gm_value_num(&r->bytes_read) + gm_value_num(&r->bytes_written);
    if (b > 0)
        return b;   /* NaN (absent) compares false */
    const gm_launch *l = &r->launch;
    return (double)l->grid[0] * l->grid[1] * l->grid[2] * l->block[0] * l->block[1] * l->block[2];
}

/* Whether a case's launch gives every SM at least two blocks: a real launch
 * of the layout, not a corner of it. */
static bool S_fills(const gm_run *r, int sm_count)
{
    if (!r->has_launch || sm_count <= 0)
        return false;
    const gm_launch *l = &r->launch;
    return (double)l->grid[0] * l->grid[1] * l->grid[2] >= 2.0 * sm_count;
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
        size_t best = i, small = SIZE_MAX;
        double small_size = 0;
        for (size_t j = i; j < r->n_runs; j++) {
            const gm_run *c = &r->runs[j];
            if (!S_pick_candidate(c) || !S_same_variant(c, run) || S_waste(c) < 0.98 * most)
                continue;
            best = j;
            double size = S_size(c);
            if (S_fills(c, r->device.sm_count) && (small == SIZE_MAX || size <= small_size)) {
                small = j;
                small_size = size;
            }
        }
        pick[small != SIZE_MAX ? small : best] = true;
        total++;
    }
    return total;
}

static double S_trace_cost(const gm_run *r)
{
    static const char *const inst[] = {GM_M_LD_REQUESTS, GM_M_ST_REQUESTS, GM_M_SH_LD_INST,
                                       GM_M_SH_ST_INST};
    double c = 1.0;
    for (size_t k = 0; k < sizeof inst / sizeof inst[0]; k++) {
        double v = gm_run_metric_num(r, inst[k]);
        if (v > 0)   /* NaN (absent) compares false */
            c += v;
    }
    return c;
}

size_t gm_srclines_deal(const gm_results *r, const bool *pick, size_t width, size_t *child)
{
    if (width < 1)
        width = 1;
    size_t n = r->n_runs ? r->n_runs : 1;
    size_t *first = gm_xcalloc(n, sizeof *first);   /* each experiment's first pick */
    double *cost = gm_xcalloc(n, sizeof *cost);
    size_t n_exp = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        if (!pick[i])
            continue;
        const char *e = r->runs[i].experiment ? r->runs[i].experiment : "";
        size_t k = 0;
        while (k < n_exp) {
            const char *f = r->runs[first[k]].experiment ? r->runs[first[k]].experiment : "";
            if (strcmp(f, e) == 0)
                break;
            k++;
        }
        if (k == n_exp)
            first[n_exp++] = i;
        cost[k] += S_trace_cost(&r->runs[i]);
    }
    double *load = gm_xcalloc(width, sizeof *load);
    bool *dealt = gm_xcalloc(n_exp ? n_exp : 1, sizeof *dealt);
    for (size_t round = 0; round < n_exp; round++) {
        size_t k = SIZE_MAX;   /* the costliest left; the first of equals */
        for (size_t j = 0; j < n_exp; j++)
            if (!dealt[j] && (k == SIZE_MAX || cost[j] > cost[k]))
                k = j;
        dealt[k] = true;
        size_t to = 0;
        for (size_t w = 1; w < width; w++)
            if (load[w] < load[to])
                to = w;
        load[to] += cost[k];
        const char *e = r->runs[first[k]].experiment ? r->runs[first[k]].experiment : "";
        for (size_t i = first[k]; i < r->n_runs; i++)
            if (pick[i] && strcmp(r->runs[i].experiment ? r->runs[i].experiment : "", e) == 0)
                child[i] = to;
    }
    free(first);
    free(cost);
    free(load);
    free(dealt);
    return n_exp < width ? n_exp : width;
}

/* ---- the tracer's records ------------------------------------------------------ */

void gm_sl_trace_write_header(gm_buf *b)
{
    gm_buf_printf(b, "%s\n", GM_SL_TRACE_HEADER);
}

void gm_sl_trace_write_launch(gm_buf *b, const char *label, long long index, long long n_params,
                              const char *kernel)
{
    gm_buf_puts(b, "@launch\t");
    S_put_clean(b, label && *label ? label : "-");
    gm_buf_printf(b, "\t%lld\t%lld\t", index, n_params);
    S_put_clean(b, kernel && *kernel ? kernel : "?");
    gm_buf_putc(b, '\n');
}

void gm_sl_trace_write_alloc(gm_buf *b, const gm_sl_trace_alloc *a)
{
    gm_buf_printf(b, "@alloc\t%lld\t", a->size < 0 ? -1 : a->size);
    for (size_t i = 0; i < a->n_refs; i++)
        gm_buf_printf(b, "%s%u:%u", i ? "," : "", a->refs[i].param, a->refs[i].offset);
    if (!a->n_refs)
        gm_buf_putc(b, '-');
    gm_buf_printf(b, "\t%lld\t%lld\t%lld\t%lld\t%lld\n", a->loads, a->stores, a->bytes,
                  a->sectors, a->sectors_ideal);
}

void gm_sl_trace_write_note(gm_buf *b, const char *key, const char *text)
{
    gm_buf_printf(b, "@%s\t", key);
    for (const char *p = text && *text ? text : "?"; *p; p++)
        gm_buf_putc(b, (*p == '\t' || *p == '\n' || *p == '\r') ? ' ' : *p);
    gm_buf_putc(b, '\n');
}

static void S_trace_alloc_free(gm_sl_trace_alloc *a)
{
    free(a->refs);
}

static void S_trace_launch_free(gm_sl_trace_launch *L)
{
    free(L->label);
    free(L->kernel);
    gm_sl_records_free(L->records, L->n_records);
    for (size_t i = 0; i < L->n_allocs; i++)
        S_trace_alloc_free(&L->allocs[i]);
    free(L->allocs);
}

static void S_pred_put(gm_prediction *p, const char *name, gm_value v)
{
    p->metrics = gm_xrealloc(p->metrics, (p->n_metrics + 1) * sizeof *p->metrics);
    gm_metric *m = &p->metrics[p->n_metrics++];
    memset(m, 0, sizeof *m);
    const gm_metric_info *info = gm_catalog_find(name);
    m->name = gm_xstrdup(name);
    m->unit = gm_xstrdup(info && info->unit ? info->unit : "");
    m->value = v;
    m->launch_min = m->launch_max = gm_vabsent();
}

void gm_sl_trace_predict(const gm_sl_trace_launch *L, gm_prediction *out)
{
    /* [0] loads, [1] stores */
    long long sectors[2] = {0, 0}, ginst[2] = {0, 0};
    long long waves[2] = {0, 0}, ideal[2] = {0, 0}, sinst[2] = {0, 0};
    for (size_t i = 0; i < L->n_records; i++) {
        const long long *c = L->records[i].count;
        for (int d = 0; d < 2; d++) {
            if (c[d ? GM_SL_GLOBAL_ST : GM_SL_GLOBAL_LD] > 0) {
                ginst[d] += c[d ? GM_SL_GLOBAL_ST : GM_SL_GLOBAL_LD];
                sectors[d] += c[GM_SL_SECTORS];
            }
            if (c[d ? GM_SL_SHARED_ST : GM_SL_SHARED_LD] > 0) {
                sinst[d] += c[d ? GM_SL_SHARED_ST : GM_SL_SHARED_LD];
                waves[d] += c[GM_SL_WAVEFRONTS];
                ideal[d] += c[GM_SL_WAVEFRONTS_IDEAL];
            }
        }
    }
    memset(out, 0, sizeof *out);
    out->present = true;
    out->method = gm_xstrdup(GM_SL_PREDICTION_METHOD);
    static const char *const gn[2][4] = {
        {GM_M_LD_SECTORS, GM_M_LD_REQUESTS, GM_M_LD_SPR, GM_M_LD_INST},
        {GM_M_ST_SECTORS, GM_M_ST_REQUESTS, GM_M_ST_SPR, GM_M_ST_INST}};
    static const char *const sn[2][3] = {{GM_M_SH_LD_WAVES, GM_M_SH_LD_CONFL, GM_M_SH_LD_INST},
                                         {GM_M_SH_ST_WAVES, GM_M_SH_ST_CONFL, GM_M_SH_ST_INST}};
    for (int d = 0; d < 2; d++) {
        S_pred_put(out, gn[d][0], gm_vint(sectors[d]));
        S_pred_put(out, gn[d][1], gm_vint(ginst[d]));
        S_pred_put(out, gn[d][2], ginst[d] > 0 ? gm_vreal((double)sectors[d] / (double)ginst[d])
                                               : gm_vabsent());
        S_pred_put(out, gn[d][3], gm_vint(ginst[d]));
    }
    for (int d = 0; d < 2; d++) {
        S_pred_put(out, sn[d][0], gm_vint(waves[d]));
        S_pred_put(out, sn[d][1], gm_vint(waves[d] - ideal[d]));
        S_pred_put(out, sn[d][2], gm_vint(sinst[d]));
    }
    out->notes = gm_xcalloc(2, sizeof *out->notes);
    out->notes[out->n_notes++] = gm_xstrdup(
        "Counted on the GPU: the Compute Sanitizer's tracer saw every warp-level access of "
        "this launch (the per-line pass) and applied the rules of docs/model.md to its real "
        "addresses; instructions, requests, 32-byte sectors and shared-memory wavefronts are "
        "counted, not timed.");
    out->notes[out->n_notes++] = gm_xstrdup(
        "The measured shared-memory wavefronts and bank conflicts run above the addresses' "
        "count when independent blocks share an SM out of step (docs/model.md): that excess "
        "does not come from the addresses.");
}

void gm_sl_trace_free(gm_sl_trace *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_launches; i++)
        S_trace_launch_free(&t->launches[i]);
    free(t->launches);
    free(t->error);
    free(t->unavailable);
    memset(t, 0, sizeof *t);
}

/* "P:O,P:O" or "-" into a->refs; false when malformed. */
static bool S_parse_refs(const char *s, gm_sl_trace_alloc *a)
{
    if (strcmp(s, "-") == 0)
        return true;
    size_t cap = 0;
    for (const char *p = s; *p;) {
        char *end;
        errno = 0;
        unsigned long prm = strtoul(p, &end, 10);
        if (end == p || *end != ':' || errno || prm > 0xffffffffUL)
            return false;
        p = end + 1;
        unsigned long off = strtoul(p, &end, 10);
        if (end == p || (*end && *end != ',') || errno || off > 0xffffffffUL)
            return false;
        if (a->n_refs == cap) {
            cap = cap ? 2 * cap : 4;
            a->refs = gm_xrealloc(a->refs, cap * sizeof *a->refs);
        }
        a->refs[a->n_refs++] = (gm_sl_argref){(unsigned)prm, (unsigned)off};
        p = *end ? end + 1 : end;
        if (*end == ',' && !*p)
            return false;
    }
    return true;
}

/* One @ line (modified in place); NULL or what was expected. */
static const char *S_parse_directive(char *line, gm_sl_trace *t)
{
    char *cur = line + 1;
    char *key = S_field(&cur);
    if (strcmp(key, "launch") == 0) {
        char *label = S_field(&cur), *idx = S_field(&cur), *np = S_field(&cur);
        char *kernel = cur;
        long long index, n_params;
        if (!label || !*label)
            return "@launch LABEL";
        if (!S_ll(idx, 10, &index))
            return "@launch INDEX";
        if (!S_ll(np, 10, &n_params))
            return "@launch NPARAMS";
        if (!kernel || !*kernel || strchr(kernel, '\t'))
            return "@launch KERNEL";
        t->launches = gm_xrealloc(t->launches, (t->n_launches + 1) * sizeof *t->launches);
        gm_sl_trace_launch *L = &t->launches[t->n_launches++];
        memset(L, 0, sizeof *L);
        L->label = strcmp(label, "-") == 0 ? NULL : gm_xstrdup(label);
        L->index = index;
        L->n_params = n_params;
        L->kernel = gm_xstrdup(kernel);
        return NULL;
    }
    if (strcmp(key, "alloc") == 0) {
        if (!t->n_launches)
            return "@launch before @alloc";
        gm_sl_trace_alloc a;
        memset(&a, 0, sizeof a);
        char *size = S_field(&cur), *refs = S_field(&cur);
        const char *what = NULL;
        if (size && strcmp(size, "-1") == 0)
            a.size = -1;
        else if (!S_ll(size, 10, &a.size))
            what = "@alloc SIZE";
        if (!what && (!refs || !S_parse_refs(refs, &a)))
            what = "@alloc REFS (PARAM:OFFSET,... or -)";
        long long *v[] = {&a.loads, &a.stores, &a.bytes, &a.sectors, &a.sectors_ideal};
        for (size_t k = 0; !what && k < sizeof v / sizeof v[0]; k++)
            if (!S_ll(S_field(&cur), 10, v[k]))
                what = "@alloc counts (loads stores bytes sectors sectors_ideal)";
        if (!what && cur)
            what = "end of line (extra fields)";
        if (what) {
            S_trace_alloc_free(&a);
            return what;
        }
        gm_sl_trace_launch *L = &t->launches[t->n_launches - 1];
        L->allocs = gm_xrealloc(L->allocs, (L->n_allocs + 1) * sizeof *L->allocs);
        L->allocs[L->n_allocs++] = a;
        return NULL;
    }
    if (strcmp(key, "error") == 0 || strcmp(key, "unavailable") == 0) {
        char **slot = key[0] == 'e' ? &t->error : &t->unavailable;
        if (!*slot)
            *slot = gm_xstrdup(cur && *cur ? cur : "no message");
        return NULL;
    }
    if (strcmp(key, "info") == 0) {
        char *k = S_field(&cur), *v = cur;
        if (!k || !v)
            return "@info KEY VALUE";
        long long n;
        if (strcmp(k, "seconds") == 0) {
            char *end;
            double d = strtod(v, &end);
            if (end != v && !*end && d >= 0)
                t->seconds = d;
        } else if (S_ll(v, 10, &n)) {
            if (strcmp(k, "launches") == 0)
                t->seen = n;
            else if (strcmp(k, "traced") == 0)
                t->traced = n;
            else if (strcmp(k, "dropped") == 0)
                t->dropped = n;
        }
        return NULL;   /* an unknown key: a newer writer */
    }
    return NULL;       /* an unknown directive: a newer writer */
}

gm_status gm_sl_trace_parse(const char *text, const char *name, gm_sl_trace *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    long long lineno = 0;
    bool header = false;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        char *line = gm_xmalloc(len + 1);
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + (nl ? 1 : 0);
        const char *what = NULL;
        if (!header) {
            if (strcmp(line, GM_SL_TRACE_HEADER) == 0)
                header = true;
            else if (*line)
                what = "the header line \"" GM_SL_TRACE_HEADER "\"";
        } else if (!*line || line[0] == '#') {
            /* a comment */
        } else if (line[0] == '@') {
            what = S_parse_directive(line, out);
        } else if (!out->n_launches) {
            what = "@launch before the first record";
        } else {
            gm_sl_record r;
            what = S_parse_record(line, &r);
            if (!what) {
                gm_sl_trace_launch *L = &out->launches[out->n_launches - 1];
                if (L->n_records == 0)
                    cap = 0;
                S_push_record(&L->records, &L->n_records, &cap, &r);
            }
        }
        free(line);
        if (what) {
            gm_sl_trace_free(out);
            return gm_fail(err, GM_ERR_PARSE, "%s:%lld: bad trace record: expected %s", name,
                           lineno, what);
        }
    }
    if (!header) {
        gm_sl_trace_free(out);
        return gm_fail(err, GM_ERR_PARSE, "%s: empty: no \"%s\" line", name, GM_SL_TRACE_HEADER);
    }
    return GM_OK;
}

/* ---- which argument points into which allocation ------------------------------ */

/* The allocation holding address a (ranges sorted by base), or n when none. */
static size_t S_range_of(const gm_sl_range *r, size_t n, unsigned long long a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a < r[mid].base)
            hi = mid;
        else if (a - r[mid].base >= r[mid].size)
            lo = mid + 1;
        else
            return mid;
    }
    return n;
}

size_t gm_sl_args_match(const unsigned char *buf, size_t buf_size, const gm_sl_param *layout,
                        size_t n_params, const gm_sl_range *allocs, size_t n_allocs,
                        gm_sl_match **out)
{
    size_t n = 0, cap = 0;
    *out = NULL;
    for (size_t i = 0; buf && i < n_params; i++) {
        const gm_sl_param *p = &layout[i];
        if (p->offset > buf_size || p->size > buf_size - p->offset)
            continue;
        for (size_t off = 0; off + 8 <= p->size; off += 8) {
            unsigned long long v;
            memcpy(&v, buf + p->offset + off, sizeof v);
            size_t a = v ? S_range_of(allocs, n_allocs, v) : n_allocs;
            if (a == n_allocs)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                *out = gm_xrealloc(*out, cap * sizeof **out);
            }
            (*out)[n++] = (gm_sl_match){(unsigned)i, (unsigned)off, a};
        }
    }
    return n;
}

void gm_sl_strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static bool S_open_br(char c) { return c == '(' || c == '<' || c == '['; }
static bool S_close_br(char c) { return c == ')' || c == '>' || c == ']'; }

static char *S_trimmed(const char *s, size_t len)
{
    while (len && isspace((unsigned char)*s))
        s++, len--;
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    char *o = gm_xmalloc(len + 1);
    memcpy(o, s, len);
    o[len] = '\0';
    return o;
}

/* Split s[from, to) at commas outside brackets: *out (caller frees). */
static size_t S_split_top(const char *s, size_t from, size_t to, char ***out)
{
    size_t n = 0, start = from;
    int depth = 0;
    *out = NULL;
    for (size_t i = from; i <= to; i++) {
        if (i < to && S_open_br(s[i]))
            depth++;
        else if (i < to && S_close_br(s[i]) && depth > 0)
            depth--;
        if (i == to || (s[i] == ',' && depth == 0)) {
            *out = gm_xrealloc(*out, (n + 1) * sizeof **out);
            (*out)[n++] = S_trimmed(s + start, i - start);
            start = i + 1;
        }
    }
    return n;
}

/* The bounds of the last top-level parenthesized list of a demangled name
 * (what follows "name" in "name(...)"; a trailing " const" of a method
 * allowed): false when there is none. */
static bool S_param_list(const char *d, size_t *open, size_t *close)
{
    size_t len = strlen(d);
    while (len && d[len - 1] != ')')
        len--;
    if (!len)
        return false;
    int depth = 0;
    for (size_t i = len; i-- > 0;) {
        if (S_close_br(d[i]))
            depth++;
        else if (S_open_br(d[i]) && --depth == 0) {
            if (d[i] != '(')
                return false;
            *open = i;
            *close = len - 1;
            return true;
        }
    }
    return false;
}

size_t gm_sl_param_types(const char *demangled, char ***out)
{
    size_t open, close;
    *out = NULL;
    if (!demangled || !S_param_list(demangled, &open, &close))
        return 0;
    char **v;
    size_t n = S_split_top(demangled, open + 1, close, &v);
    if (n == 1 && (!*v[0] || strcmp(v[0], "void") == 0)) {
        gm_sl_strv_free(v, n);
        return 0;
    }
    *out = v;
    return n;
}

char *gm_sl_base_name(const char *demangled)
{
    if (!demangled)
        return gm_xstrdup("?");
    size_t open, close, end = strlen(demangled);
    if (S_param_list(demangled, &open, &close))
        end = open;
    /* template arguments at the end */
    while (end && isspace((unsigned char)demangled[end - 1]))
        end--;
    if (end && demangled[end - 1] == '>') {
        int depth = 0;
        for (size_t i = end; i-- > 0;) {
            if (demangled[i] == '>')
                depth++;
            else if (demangled[i] == '<' && --depth == 0) {
                end = i;
                break;
            }
        }
    }
    size_t start = end;
    while (start && (isalnum((unsigned char)demangled[start - 1]) || demangled[start - 1] == '_'))
        start--;
    if (start == end)
        return gm_xstrdup(demangled);
    char *o = gm_xmalloc(end - start + 1);
    memcpy(o, demangled + start, end - start);
    o[end - start] = '\0';
    return o;
}

static bool S_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The name a parameter declaration gives ("const float *__restrict__ in"
 * -> "in"), or NULL ("float*", "int"). */
static char *S_decl_name(const char *decl)
{
    size_t len = strlen(decl);
    const char *eq = strchr(decl, '=');   /* a default argument */
    if (eq)
        len = (size_t)(eq - decl);
    for (;;) {   /* trailing blanks and array declarators: float a[4] */
        while (len && isspace((unsigned char)decl[len - 1]))
            len--;
        if (!len || decl[len - 1] != ']')
            break;
        while (len && decl[len - 1] != '[')
            len--;
        if (len)
            len--;
    }
    size_t end = len;
    while (len && S_ident_char(decl[len - 1]))
        len--;
    if (len == end || isdigit((unsigned char)decl[len]))
        return NULL;
    /* something before the name: a type (a lone word is a type, not a name) */
    size_t before = len;
    while (before && isspace((unsigned char)decl[before - 1]))
        before--;
    if (!before)
        return NULL;
    static const char *const not_names[] = {"__restrict__", "__restrict", "restrict", "const",
                                            "volatile", "int", "float", "double", "char",
                                            "long", "short", "unsigned", "signed", "bool"};
    for (size_t k = 0; k < sizeof not_names / sizeof not_names[0]; k++)
        if (strlen(not_names[k]) == end - len && strncmp(decl + len, not_names[k], end - len) == 0)
            return NULL;
    char *o = gm_xmalloc(end - len + 1);
    memcpy(o, decl + len, end - len);
    o[end - len] = '\0';
    return o;
}

size_t gm_sl_param_names(const char *source, const char *base, size_t n_params, char ***out)
{
    *out = NULL;
    size_t bl = base ? strlen(base) : 0;
    if (!source || !bl)
        return 0;
    for (const char *g = strstr(source, "__global__"); g; g = strstr(g + 10, "__global__")) {
        /* the declaration's name: the identifier before its first '(' that is
         * not an attribute's (__launch_bounds__(256)) */
        const char *semi = strpbrk(g, ";{"), *par = g, *q = NULL, *b = g, *e = g;
        for (;;) {
            par = strchr(par, '(');
            if (!par || (semi && semi < par))
                break;
            e = par;
            while (e > g && isspace((unsigned char)e[-1]))
                e--;
            b = e;
            while (b > g && S_ident_char(b[-1]))
                b--;
            /* its parenthesized list */
            int depth = 0;
            for (q = par; *q; q++) {
                if (S_open_br(*q))
                    depth++;
                else if (S_close_br(*q) && --depth == 0)
                    break;
            }
            if (!*q)
                return 0;
            bool attr = (e - b == 17 && strncmp(b, "__launch_bounds__", 17) == 0) ||
                        (e - b == 13 && strncmp(b, "__attribute__", 13) == 0);
            if (!attr)
                break;
            par = q + 1;
        }
        if (!par || (semi && semi < par) || (size_t)(e - b) != bl || strncmp(b, base, bl) != 0)
            continue;
        char **decls;
        size_t n = S_split_top(source, (size_t)(par + 1 - source), (size_t)(q - source), &decls);
        if (n == 1 && (!*decls[0] || strcmp(decls[0], "void") == 0)) {
            gm_sl_strv_free(decls, n);
            n = 0;
        }
        if (n != n_params) {
            gm_sl_strv_free(decls, n);
            continue;   /* an overload, or a guess that does not fit */
        }
        char **names = gm_xcalloc(n ? n : 1, sizeof *names);
        for (size_t i = 0; i < n; i++)
            names[i] = S_decl_name(decls[i]);
        gm_sl_strv_free(decls, n);
        *out = names;
        return n;
    }
    return 0;
}

/* Longest parameter type kept whole in an allocation's name. */
#define S_TYPE_MAX 40

char *gm_sl_alloc_name(const gm_sl_trace_alloc *a, const char *kernel, char *const *names,
                       size_t n_names)
{
    if (!a->n_refs)
        return NULL;
    char **types = NULL;
    size_t nt = gm_sl_param_types(kernel, &types);
    gm_buf b = GM_BUF_INIT;
    for (size_t i = 0; i < a->n_refs; i++) {
        const gm_sl_argref *r = &a->refs[i];
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = a->refs[j].param == r->param && a->refs[j].offset == r->offset;
        if (dup)
            continue;
        if (b.len)
            gm_buf_puts(&b, ", ");
        if (r->param < n_names && names[r->param])
            gm_buf_puts(&b, names[r->param]);
        else
            gm_buf_printf(&b, "arg %u", r->param);
        if (r->offset)
            gm_buf_printf(&b, " +%u", r->offset);
        if (!(r->param < n_names && names[r->param]) && r->param < nt) {
            /* a library's template type can be kilobytes: its arguments go */
            const char *ty = types[r->param];
            size_t lt = strcspn(ty, "<");
            if (strlen(ty) > S_TYPE_MAX && ty[lt])
                gm_buf_printf(&b, " (%.*s<…>)", (int)lt, ty);
            else
                gm_buf_printf(&b, " (%s)", ty);
        }
    }
    gm_sl_strv_free(types, nt);
    return gm_buf_detach(&b);
}

long long gm_sl_alloc_excess(const gm_sl_alloc *a)
{
    long long d = a->sectors - a->sectors_ideal;
    return d > 0 ? d : 0;
}

/* Most excess first, then most bytes, then the larger allocation. */
static int S_alloc_cmp(const void *pa, const void *pb)
{
    const gm_sl_alloc *a = pa, *b = pb;
    long long xa = gm_sl_alloc_excess(a), xb = gm_sl_alloc_excess(b);
    if (xa != xb)
        return xa > xb ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    return S_strcmp0(a->name, b->name);
}

/* The whole of a source file, up to 4 MiB; NULL when unreadable. */
static char *S_slurp(const char *path)
{
    gm_buf b = GM_BUF_INIT;
    if (!gm_buf_read_file(&b, path, (size_t)4 << 20)) {
        gm_buf_free(&b);
        return NULL;
    }
    gm_buf_puts(&b, "");
    return gm_buf_detach(&b);
}

void gm_srclines_from_trace(gm_srclines *sl, const gm_sl_trace_launch *L)
{
    gm_srclines_from_records(sl, L->records, L->n_records);
    gm_srclines_read_text(sl);
    for (size_t i = 0; i < sl->n_allocs; i++)
        free(sl->allocs[i].name);
    free(sl->allocs);
    sl->allocs = NULL;
    sl->n_allocs = 0;
    /* the parameter names, from the first source file of the kernel's lines
     * that declares it */
    char **names = NULL;
    size_t nn = 0;
    char *base = gm_sl_base_name(L->kernel);
    for (size_t i = 0; i < sl->n_lines && !nn && L->n_allocs && L->n_params > 0; i++) {
        const gm_srcline *l = &sl->lines[i];
        bool tried = false;
        for (size_t j = 0; j < i && !tried; j++)
            tried = S_strcmp0(sl->lines[j].file, l->file) == 0;
        if (!l->file || tried)
            continue;
        char *src = S_slurp(l->file);
        nn = gm_sl_param_names(src, base, (size_t)L->n_params, &names);
        free(src);
    }
    free(base);
    if (L->n_allocs)
        sl->allocs = gm_xcalloc(L->n_allocs, sizeof *sl->allocs);
    for (size_t i = 0; i < L->n_allocs; i++) {
        const gm_sl_trace_alloc *t = &L->allocs[i];
        gm_sl_alloc *a = &sl->allocs[sl->n_allocs++];
        a->name = gm_sl_alloc_name(t, L->kernel, names, nn);
        a->size = t->size < 0 ? -1 : t->size;
        a->loads = t->loads;
        a->stores = t->stores;
        a->bytes = t->bytes;
        a->sectors = t->sectors;
        a->sectors_ideal = t->sectors_ideal;
    }
    gm_sl_strv_free(names, nn);
    if (sl->n_allocs > 1)
        qsort(sl->allocs, sl->n_allocs, sizeof *sl->allocs, S_alloc_cmp);
}

bool gm_sl_symbol_is(const char *symbol, const char *kernel)
{
    if (!symbol || !kernel || !*kernel)
        return false;
    size_t len = strcspn(kernel, "<(");
    if (strncmp(symbol, "_Z", 2) != 0)
        return strncmp(symbol, kernel, len) == 0 && symbol[len] == '\0';
    char want[160];
    snprintf(want, sizeof want, "%zu%.*s", len, (int)len, kernel);
    /* the digits must start there: "12k" must not match inside "112k" */
    for (const char *p = strstr(symbol, want); p; p = strstr(p + 1, want))
        if (!isdigit((unsigned char)p[-1]))
            return true;
    return false;
}
