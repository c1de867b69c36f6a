/* nvdisasm.c — the SASS text of kernels without line info (nvdisasm.h). */
#include "nvdisasm.h"

#include "children.h"

#include "../core/buf.h"
#include "../core/proc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef GM_CUDA_HOME
#define GM_CUDA_HOME "/usr/local/cuda"
#endif

/* The most of one listing read (a larger one is read this far). */
#define S_LISTING_MAX ((size_t)256 << 20)
#define S_CUBIN_MAX ((size_t)1 << 30)   /* a cubin read for its symbol table */

static bool S_executable(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *gm_nvdisasm_find(char **why)
{
    *why = NULL;
    gm_buf b = GM_BUF_INIT;
    const char *env = getenv("GPUMEM_REPORT_NVDISASM");
    if (env && strcmp(env, "none") == 0) {
        *why = gm_xstrdup("the instruction text was not asked for (GPUMEM_REPORT_NVDISASM=none)");
        return NULL;
    }
    if (env && *env) {
        if (S_executable(env))
            return gm_xstrdup(env);
        gm_buf_printf(&b, "nvdisasm was not found: GPUMEM_REPORT_NVDISASM=%s is no executable "
                          "file", env);
        *why = gm_buf_detach(&b);
        return NULL;
    }
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        gm_buf_printf(&b, "%s/bin/nvdisasm", home);
        if (S_executable(b.data))
            return gm_buf_detach(&b);
        gm_buf_free(&b);
    }
    gm_buf_printf(&b, "%s/bin/nvdisasm", GM_CUDA_HOME);
    if (S_executable(b.data))
        return gm_buf_detach(&b);
    gm_buf_free(&b);
    char *on_path = gm_proc_find("nvdisasm", NULL);
    if (on_path)
        return on_path;
    if (S_executable("/usr/local/cuda/bin/nvdisasm"))
        return gm_xstrdup("/usr/local/cuda/bin/nvdisasm");
    gm_buf_printf(&b, "nvdisasm was not found (looked at $GPUMEM_REPORT_NVDISASM, "
                      "$CUDA_HOME/bin, %s/bin, PATH and /usr/local/cuda/bin)", GM_CUDA_HOME);
    *why = gm_buf_detach(&b);
    return NULL;
}

static bool S_ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* The file's path is one a child of ours may have written. */
static bool S_ours(const char *path, const char *prefix)
{
    return strstr(path, "/../") == NULL && S_ends_with(path, ".cubin") &&
           prefix && *prefix && strncmp(path, prefix, strlen(prefix)) == 0;
}

typedef struct {
    const gm_sl_cubin *c;
    size_t n;
    const char *path;
} S_keep_ctx;

/* A function the directives name for this file. */
static bool S_keep(const char *function, void *ctx)
{
    const S_keep_ctx *k = ctx;
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->c[i].path, k->path) == 0 && strcmp(k->c[i].function, function) == 0)
            return true;
    return false;
}

static void S_problem(gm_sass_text *st, gm_buf *msg)
{
    if (!st->problem)
        st->problem = gm_buf_detach(msg);
    else
        gm_buf_free(msg);
}

/* Read at most max bytes of path; NULL when it cannot be read. */
static char *S_read_max(const char *path, size_t *len, size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    gm_buf b = GM_BUF_INIT;
    char chunk[65536];
    size_t k;
    while (b.len < max && (k = fread(chunk, 1, sizeof chunk, f)) > 0)
        gm_buf_put(&b, chunk, k);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        gm_buf_free(&b);
        return NULL;
    }
    *len = b.len;
    gm_buf_puts(&b, "");
    return gm_buf_detach(&b);
}

/* Read at most S_LISTING_MAX bytes of a listing. */
static char *S_read(const char *path, size_t *len)
{
    return S_read_max(path, len, S_LISTING_MAX);
}

/* The symbol indices of the functions c[0..n) name for path, as nvdisasm's
 * -fun takes them ("18,21"); empty when the file cannot be read or names
 * none of them (then the whole cubin is disassembled). */
static void S_indices(gm_buf *fun, const char *path, const gm_sl_cubin *c, size_t n)
{
    size_t len = 0;
    char *data = S_read_max(path, &len, S_CUBIN_MAX);
    if (!data)
        return;
    const char **names = gm_xcalloc(n ? n : 1, sizeof *names);
    long *idx = gm_xcalloc(n ? n : 1, sizeof *idx);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(c[i].path, path) == 0)
            names[m++] = c[i].function;
    if (gm_elf_function_indices((const unsigned char *)data, len, names, m, idx) == m)
        for (size_t i = 0; i < m; i++)
            gm_buf_printf(fun, "%s%ld", i ? "," : "", idx[i]);
    free(idx);
    free(names);
    free(data);
}

/* nvdisasm on path (its functions fun alone when fun is not empty) into st;
 * false, with why in msg, when it did not run or listed none of them. */
static bool S_nvdisasm(gm_sass_text *st, const char *exe, const char *path, const char *fun,
                       const gm_sl_cubin *c, size_t n, gm_buf *msg)
{
    gm_buf listing = GM_BUF_INIT;
    gm_buf_printf(&listing, "%s.sass", path);
    char *const whole[] = {(char *)exe, "-c", (char *)path, NULL};
    char *const some[] = {(char *)exe, "-c", "-fun", (char *)fun, (char *)path, NULL};
    gm_proc_spec spec = {.argv = fun && *fun ? some : whole, .null_stdin = true,
                         .out = GM_PROC_FILE, .out_path = listing.data, .err = GM_PROC_CAPTURE,
                         .err_tail = 300, .own_group = true, .death_signal = SIGKILL,
                         .timeout_s = GM_NVDISASM_TIMEOUT_S};
    gm_proc_result r;
    gm_error perr = {GM_OK, ""};
    if (gm_proc_run(&spec, &r, NULL, &perr) != GM_OK) {
        gm_buf_printf(msg, "nvdisasm could not run: %s", perr.message);
    } else if (r.timed_out) {
        gm_buf_printf(msg, "nvdisasm was stopped after %.0f s", GM_NVDISASM_TIMEOUT_S);
    } else if (r.code != 0) {
        gm_buf_printf(msg, "nvdisasm failed (exit status %d)", r.code);
        const char *e = r.err.data ? r.err.data : "";
        size_t el = strlen(e);
        while (el && (e[el - 1] == '\n' || e[el - 1] == ' '))
            el--;
        if (el) {
            gm_buf_puts(msg, ": ");
            for (size_t i = 0; i < el; i++)
                gm_buf_putc(msg, e[i] == '\n' || e[i] == '\t' ? ' ' : e[i]);
        }
    } else {
        size_t len = 0;
        char *text = S_read(listing.data, &len);
        S_keep_ctx k = {c, n, path};
        if (!text)
            gm_buf_printf(msg, "nvdisasm's listing could not be read: %s", strerror(errno));
        else if (gm_sass_dis_parse(&st->dis, text, len, S_keep, &k) == 0)
            gm_buf_puts(msg, "nvdisasm listed no instruction of the kernel");
        free(text);
    }
    gm_proc_result_free(&r);
    remove(listing.data);
    gm_buf_free(&listing);
    return msg->len == 0;
}

/* Why nvdisasm gave no listing, from its child's result (gm_child_job). */
static void S_failure(gm_buf *msg, const gm_child_job *j)
{
    if (j->rc == 124)
        gm_buf_printf(msg, "nvdisasm was stopped after %.0f s", GM_NVDISASM_TIMEOUT_S);
    else if (j->rc == 127)
        gm_buf_printf(msg, "nvdisasm could not run: %s", j->err);
    else
        gm_buf_printf(msg, "nvdisasm failed (exit status %d)%s%s", j->rc, j->err[0] ? ": " : "",
                      j->err);
}

void gm_sass_text_load(gm_sass_text *st, const gm_sl_cubin *c, size_t n, const char *prefix)
{
    char *exe = NULL, *why = NULL;
    bool looked = false;
    /* the files to read: each once, ours, readable */
    const char **paths = gm_xcalloc(n ? n : 1, sizeof *paths);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *path = c[i].path;
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(c[j].path, path) != 0;
        if (!first || !S_ours(path, prefix))
            continue;
        st->n_files++;
        if (!looked) {
            exe = gm_nvdisasm_find(&why);
            looked = true;
            if (!exe) {
                gm_buf e = GM_BUF_INIT;
                gm_buf_puts(&e, why);
                S_problem(st, &e);
            }
        }
        if (exe && access(path, R_OK) != 0) {
            gm_buf e = GM_BUF_INIT;
            gm_buf_printf(&e, "the kernel's cubin %s cannot be read: %s", path, strerror(errno));
            S_problem(st, &e);
        } else if (exe) {
            paths[m++] = path;
        }
    }
    /* nvdisasm on all of them at once, each for the functions named for it
     * alone (a library's cubin holds thousands, and all of them take nvdisasm
     * seconds), on as many cores as there are files, up to 8 */
    gm_buf *fun = gm_xcalloc(m ? m : 1, sizeof *fun);
    char *(*args)[6] = gm_xcalloc(m ? m : 1, sizeof *args);
    gm_child_job *jobs = gm_xcalloc(m ? m : 1, sizeof *jobs);
    for (size_t k = 0; k < m; k++) {
        S_indices(&fun[k], paths[k], c, n);
        char **a = args[k];
        size_t at = 0;
        a[at++] = exe;
        a[at++] = "-c";
        if (fun[k].len) {
            a[at++] = "-fun";
            a[at++] = fun[k].data;
        }
        a[at++] = (char *)paths[k];
        a[at] = NULL;
        jobs[k].args = a;
    }
    if (m)
        gm_children_run(jobs, m, m < 8 ? m : 8, GM_NVDISASM_TIMEOUT_S, NULL, NULL);
    for (size_t k = 0; k < m; k++) {
        S_keep_ctx keep = {c, n, paths[k]};
        gm_buf e = GM_BUF_INIT;
        bool got = jobs[k].rc == 0 &&
                   gm_sass_dis_parse(&st->dis, jobs[k].out.data ? jobs[k].out.data : "",
                                     jobs[k].out.len, S_keep, &keep) > 0;
        if (!got && fun[k].len) {
            /* an nvdisasm that refuses -fun, or listed none of them: the
             * whole cubin, alone */
            S_nvdisasm(st, exe, paths[k], NULL, c, n, &e);
        } else if (!got && jobs[k].rc == 0) {
            gm_buf_puts(&e, "nvdisasm listed no instruction of the kernel");
        } else if (!got) {
            S_failure(&e, &jobs[k]);
        }
        if (e.len)
            S_problem(st, &e);
        gm_buf_free(&e);
        gm_buf_free(&jobs[k].out);
        gm_buf_free(&fun[k]);
    }
    for (size_t k = 0; k < m; k++)
        remove(paths[k]);
    for (size_t i = 0; i < n; i++)   /* the unreadable ones too */
        if (S_ours(c[i].path, prefix))
            remove(c[i].path);
    free(jobs);
    free(args);
    free(fun);
    free(paths);
    free(exe);
    free(why);
}

void gm_sass_cubins_remove(const gm_sl_cubin *c, size_t n, const char *prefix)
{
    for (size_t i = 0; i < n; i++)
        if (S_ours(c[i].path, prefix))
            remove(c[i].path);
}

void gm_sass_cubins_sweep(const char *dir)
{
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d)
        return;
    struct dirent *e;
    gm_buf p = GM_BUF_INIT;
    while ((e = readdir(d)) != NULL) {
        if (!S_ends_with(e->d_name, ".cubin") && !S_ends_with(e->d_name, ".cubin.sass"))
            continue;
        p.len = 0;
        gm_buf_printf(&p, "%s/%s", dir, e->d_name);
        remove(p.data);
    }
    gm_buf_free(&p);
    closedir(d);
}

void gm_sass_text_apply(const gm_sass_text *st, gm_srclines *sl)
{
    size_t filled = gm_srclines_fill_sass(sl, &st->dis);
    if (!sl->status || strcmp(sl->status, "collected") != 0 || sl->line_info)
        return;
    gm_buf b = GM_BUF_INIT;
    if (sl->note)
        gm_buf_printf(&b, "%s; ", sl->note);
    if (filled)
        gm_buf_puts(&b, "the instruction text is from nvdisasm");
    else if (st->problem)
        gm_buf_printf(&b, "no instruction text: %s", st->problem);
    else if (!st->n_files)
        gm_buf_puts(&b, "no instruction text: no cubin of the kernel was recorded");
    else
        gm_buf_puts(&b, "no instruction text: nvdisasm listed none of its instructions");
    free(sl->note);
    sl->note = gm_buf_detach(&b);
}

void gm_sass_text_free(gm_sass_text *st)
{
    gm_sass_dis_free(&st->dis);
    free(st->problem);
    st->problem = NULL;
    st->n_files = 0;
}
