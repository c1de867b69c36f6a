/* trace_mode.c — build/libgpumem-trace.so: per-line counts for every chosen
 * kernel of a program in one run (issue 25), through the Compute Sanitizer
 * tracer (gmc_trace.h).  Loaded with dlopen (trace_mode.h says by whom and
 * why); its three entry points are the only symbols it exports.
 *
 * The tracer runs with GMC_TRACE_PATCH_PER_LAUNCH: the pass is open from
 * the start; at each launch S_select decides (the counter run's filter and
 * the first launch of each kernel, or the suite child's label); a chosen
 * launch is traced in place, with its module patched for it alone, read
 * back when it ends (the program waits for it there), and written to the
 * records file at once (S_on_flush), so a program that dies later keeps
 * what was traced before, and the table holds one launch at a time.  What
 * a launch did to each allocation comes with the argument words that point
 * into it (gm_sl_args_match), so the report can name the array.
 *
 * Nothing here prints: a failure is written to the file as "@error" (the
 * first one) or, when the tracer cannot start, "@unavailable".
 */
#include "gmc_trace.h"
#include "inject.h"
#include "trace_mode.h"

#include "../core/buf.h"
#include "../core/sassdis.h"
#include "../core/srclines.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define S_EXPORT __attribute__((visibility("default")))

/* Table slots in this mode: one launch at a time (8 MiB of 128-byte entries
 * read back per traced launch; a launch that needs more counts what did not
 * fit as dropped, which the file reports). */
#define S_SLOTS ((size_t)1 << 16)

typedef struct {
    unsigned long long grid;
    long long index;
    char *kernel;              /* demangled */
    char *label;               /* labelled mode; NULL otherwise */
} S_pending;

static struct {
    pthread_mutex_t lock;
    gmc_trace *t;
    bool started, finished;
    int fd;
    bool labelled;
    gmi_filter filter;
    char *label, *label_kernel;
    bool label_used;
    char **traced;             /* program mode: kernels traced already (demangled) */
    size_t n_traced;
    S_pending *pending;        /* chosen, not yet read back */
    size_t n_pending;
    long long seen, written, dropped, untraced;
    char error[1024];
    char *out;                 /* the records file */
    unsigned long long *cubins; /* CRCs of the cubins written beside it */
    size_t n_cubins;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static void S_write(const gm_buf *b)
{
    if (g.fd < 0 || !b->len)
        return;
    /* one write per block: a process killed later leaves whole launches */
    ssize_t w = write(g.fd, b->data, b->len);
    if ((w < 0 || (size_t)w != b->len) && !g.error[0])
        snprintf(g.error, sizeof g.error, "writing the records: %s",
                 w < 0 ? strerror(errno) : "short write");
}

static bool S_was_traced(const char *name)
{
    for (size_t i = 0; i < g.n_traced; i++)
        if (strcmp(g.traced[i], name) == 0)
            return true;
    return false;
}

static bool S_select(void *user, const char *function, unsigned long long grid)
{
    (void)user;
    pthread_mutex_lock(&g.lock);
    long long index = g.seen++;
    bool take = false;
    char *name = NULL, *label = NULL;
    if (g.labelled) {
        if (g.label && !g.label_used && gm_sl_symbol_is(function, g.label_kernel)) {
            take = true;
            g.label_used = true;
            label = gm_xstrdup(g.label);
            name = gmi_demangle(function);
        }
    } else {
        name = gmi_demangle(function);
        if (gmi_filter_next(&g.filter, name) == GMI_PROFILE && !S_was_traced(name)) {
            take = true;
            g.traced = gm_xrealloc(g.traced, (g.n_traced + 1) * sizeof *g.traced);
            g.traced[g.n_traced++] = gm_xstrdup(name);
        }
    }
    if (take) {
        g.pending = gm_xrealloc(g.pending, (g.n_pending + 1) * sizeof *g.pending);
        g.pending[g.n_pending++] = (S_pending){grid, index, name, label};
    } else {
        free(name);
    }
    pthread_mutex_unlock(&g.lock);
    return take;
}

/* What one launch did to each allocation: its per-allocation rows added up,
 * and the argument words that point into each.  g.lock held. */
static void S_write_allocs(gm_buf *b, const gmc_trace_launch *L, const gmc_trace_pass *p)
{
    size_t na = p->n_allocs;
    gm_sl_trace_alloc *a = gm_xcalloc(na + 1, sizeof *a);   /* [na]: no known allocation */
    bool *touched = gm_xcalloc(na + 1, sizeof *touched);
    for (size_t i = 0; i < L->n_rows; i++) {
        const gmc_trace_row *r = &L->rows[i];
        if (r->alloc == GMC_TRACE_ALL || r->alloc >= (int)na)
            continue;
        size_t k = r->alloc == GMC_TRACE_NO_ALLOC ? na : (size_t)r->alloc;
        touched[k] = true;
        a[k].loads += r->c[GMT_GLOBAL_LD];
        a[k].stores += r->c[GMT_GLOBAL_ST];
        a[k].bytes += r->c[GMT_BYTES];
        a[k].sectors += r->c[GMT_SECTORS];
        a[k].sectors_ideal += r->c[GMT_SECTORS_IDEAL];
    }
    gm_sl_range *ranges = gm_xcalloc(na ? na : 1, sizeof *ranges);
    for (size_t i = 0; i < na; i++)
        ranges[i] = (gm_sl_range){p->allocs[i].base, p->allocs[i].size};
    gm_sl_match *m = NULL;
    size_t nm = gm_sl_args_match(L->params, L->params_size, L->layout, L->n_params, ranges, na,
                                 &m);
    for (size_t k = 0; k <= na; k++) {
        if (!touched[k])
            continue;
        a[k].size = k < na ? (long long)p->allocs[k].size : -1;
        for (size_t j = 0; j < nm; j++)
            if (m[j].alloc == k) {
                a[k].refs = gm_xrealloc(a[k].refs, (a[k].n_refs + 1) * sizeof *a[k].refs);
                a[k].refs[a[k].n_refs++] = (gm_sl_argref){m[j].param, m[j].offset};
            }
        gm_sl_trace_write_alloc(b, &a[k]);
        free(a[k].refs);
    }
    free(m);
    free(ranges);
    free(touched);
    free(a);
}

/* For a launch with records without line info: its module's cubin written
 * once beside the records file ("OUT.CRC.cubin") and a directive that names
 * it (core/sassdis.h), for the CLI to disassemble.  A cubin that cannot be
 * written only loses the instructions' text.  g.lock held. */
static void S_write_cubin(gm_buf *b, const gmc_trace_launch *L)
{
    bool need = false;
    for (size_t r = 0; r < L->n_records && !need; r++)
        need = L->records[r].line == 0;
    if (!need || !L->cubin_crc || !g.out)
        return;
    bool have = false;
    for (size_t i = 0; i < g.n_cubins && !have; i++)
        have = g.cubins[i] == L->cubin_crc;
    gm_buf path = GM_BUF_INIT;
    gm_buf_printf(&path, "%s.%016llx.cubin", g.out, (unsigned long long)L->cubin_crc);
    if (!have && L->cubin) {
        int fd = open(path.data, O_WRONLY | O_CREAT | O_EXCL, 0600);
        bool ok = fd >= 0;
        for (size_t at = 0; ok && at < L->cubin_size;) {
            ssize_t w = write(fd, (const char *)L->cubin + at, L->cubin_size - at);
            if (w < 0 && errno == EINTR)
                continue;
            ok = w > 0;
            at += ok ? (size_t)w : 0;
        }
        if (fd >= 0)
            ok = close(fd) == 0 && ok;
        if (ok) {
            g.cubins = gm_xrealloc(g.cubins, (g.n_cubins + 1) * sizeof *g.cubins);
            g.cubins[g.n_cubins++] = L->cubin_crc;
            have = true;
        } else if (fd >= 0) {
            remove(path.data);
        }
    }
    if (have)
        gm_sl_cubin_write(b, L->function, path.data);
    gm_buf_free(&path);
}

/* Write a pass's launches.  g.lock held. */
static void S_write_pass(const gmc_trace_pass *p)
{
    for (size_t i = 0; i < p->n_launches; i++) {
        const gmc_trace_launch *L = &p->launches[i];
        S_pending *pe = NULL;
        for (size_t j = 0; j < g.n_pending && !pe; j++)
            if (g.pending[j].grid == L->grid_id)
                pe = &g.pending[j];
        char *kernel = pe ? NULL : gmi_demangle(L->function);
        gm_buf b = GM_BUF_INIT;
        gm_sl_trace_write_launch(&b, pe ? pe->label : NULL, pe ? pe->index : -1,
                                 (long long)L->n_params, pe ? pe->kernel : kernel);
        S_write_cubin(&b, L);
        for (size_t r = 0; r < L->n_records; r++)
            gm_sl_record_write(&b, &L->records[r]);
        S_write_allocs(&b, L, p);
        S_write(&b);
        gm_buf_free(&b);
        free(kernel);
        if (pe) {
            free(pe->kernel);
            free(pe->label);
            *pe = g.pending[--g.n_pending];
        }
        g.written++;
    }
    g.dropped += p->dropped;
    g.untraced += (long long)p->launches_untraced;
}

static void S_on_flush(void *user, const gmc_trace_pass *p)
{
    (void)user;
    pthread_mutex_lock(&g.lock);
    S_write_pass(p);
    pthread_mutex_unlock(&g.lock);
}

S_EXPORT int gpumem_trace_finish(void)
{
    pthread_mutex_lock(&g.lock);
    bool go = g.started && !g.finished;
    g.finished = true;
    pthread_mutex_unlock(&g.lock);
    if (!go)
        return 0;
    /* the tracer's lock is taken outside ours: its callbacks take them in
     * that order */
    gmc_trace_pass p;
    gmc_error e = {GMC_OK, ""};
    gmc_status st = gmc_trace_end(g.t, &p, &e);
    pthread_mutex_lock(&g.lock);
    if (st == GMC_OK) {
        S_write_pass(&p);
        gmc_trace_pass_free(&p);
    } else if (!g.error[0]) {
        snprintf(g.error, sizeof g.error, "%s", e.message);
    }
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "@info\tlaunches\t%lld\n@info\ttraced\t%lld\n@info\tdropped\t%lld\n"
                      "@info\tuntraced\t%lld\n",
                  g.seen, g.written, g.dropped, g.untraced);
    for (size_t j = 0; j < g.n_pending; j++)   /* chosen, never read back */
        gm_buf_printf(&b, "# chosen but not traced: launch %lld\n", g.pending[j].index);
    if (g.error[0])
        gm_sl_trace_write_note(&b, "error", g.error);
    S_write(&b);
    gm_buf_free(&b);
    int rc = close(g.fd) == 0 ? 0 : -1;
    g.fd = -1;
    pthread_mutex_unlock(&g.lock);
    return rc;
}

static void S_at_exit(void)
{
    (void)gpumem_trace_finish();
}

S_EXPORT void gpumem_trace_label(const char *label, const char *kernel)
{
    pthread_mutex_lock(&g.lock);
    free(g.label);
    free(g.label_kernel);
    g.label = label ? gm_xstrdup(label) : NULL;
    g.label_kernel = label && kernel ? gm_xstrdup(kernel) : NULL;
    g.label_used = false;
    pthread_mutex_unlock(&g.lock);
}

S_EXPORT int gpumem_trace_start(const gpumem_trace_opts *o, char *msg, size_t cap)
{
    if (g.started || !o || !o->out) {
        snprintf(msg, cap, "gpumem_trace_start: started already, or no records file");
        return -1;
    }
    /* the first CUDA process of the program's tree traces; later ones find
     * the file made and leave it alone */
    g.fd = open(o->out, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0600);
    if (g.fd < 0)
        return errno == EEXIST ? 0 : (snprintf(msg, cap, "cannot create %s: %s", o->out,
                                               strerror(errno)), -1);
    g.out = gm_xstrdup(o->out);
    gm_buf b = GM_BUF_INIT;
    gm_sl_trace_write_header(&b);
    S_write(&b);
    gm_buf_free(&b);
    g.labelled = o->labelled;
    gmi_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.kernel_regex = o->kernel_regex ? gm_xstrdup(o->kernel_regex) : NULL;
    fo.launch_skip = o->skip > 0 ? o->skip : 0;
    fo.launch_count = o->count;
    bool ok = g.labelled || gmi_filter_init(&g.filter, &fo, msg, cap);
    gmi_opts_free(&fo);
    gmc_error e = {GMC_OK, ""};
    if (ok) {
        gmc_trace_config cfg = gmc_trace_config_default();
        cfg.patching = GMC_TRACE_PATCH_PER_LAUNCH;
        cfg.table_slots = S_SLOTS;
        cfg.max_launches = 64;
        cfg.select = S_select;
        cfg.on_flush = S_on_flush;
        cfg.arguments = true;
        ok = gmc_trace_open(&cfg, &g.t, &e) == GMC_OK && gmc_trace_begin(g.t, &e) == GMC_OK;
        if (!ok)
            snprintf(msg, cap, "%s", e.message);
    }
    if (!ok) {
        gm_buf n = GM_BUF_INIT;
        gm_sl_trace_write_note(&n, "unavailable", msg);
        S_write(&n);
        gm_buf_free(&n);
        gmc_trace_close(g.t);
        g.t = NULL;
        close(g.fd);
        g.fd = -1;
        return -1;
    }
    g.started = true;
    if (atexit(S_at_exit) != 0 && !g.error[0])
        snprintf(g.error, sizeof g.error, "atexit failed: the totals may be missing");
    return 0;
}
