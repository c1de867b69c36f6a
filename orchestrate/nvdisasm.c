/* nvdisasm.c — the SASS text of kernels without line info (nvdisasm.h). */
#include "nvdisasm.h"

#include "children.h"

#include "../core/buf.h"
#include "../core/proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef GM_CUDA_HOME
#define GM_CUDA_HOME "/usr/local/cuda"
#endif

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
    gm_buf b = GM_BUF_INIT;
    if (!gm_buf_read_file(&b, path, max)) {
        gm_buf_free(&b);
        return NULL;
    }
    *len = b.len;
    gm_buf_puts(&b, "");
    return gm_buf_detach(&b);
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
    /* nvdisasm on all of them at once (on as many cores as there are files,
     * up to 8), each for the functions named for it alone (a library's cubin
     * holds thousands, and all of them take nvdisasm seconds); then, for a
     * file where that failed or listed none of them (an nvdisasm without
     * -fun), the whole cubin */
    gm_buf *fun = gm_xcalloc(m ? m : 1, sizeof *fun);
    for (size_t k = 0; k < m; k++)
        S_indices(&fun[k], paths[k], c, n);
    bool *done = gm_xcalloc(m ? m : 1, sizeof *done);
    for (int round = 0; round < 2; round++) {
        char *(*args)[6] = gm_xcalloc(m ? m : 1, sizeof *args);
        gm_child_job *jobs = gm_xcalloc(m ? m : 1, sizeof *jobs);
        size_t *of = gm_xcalloc(m ? m : 1, sizeof *of), nj = 0;
        for (size_t k = 0; k < m; k++) {
            bool some = round == 0 && fun[k].len;
            if (done[k] || (round == 1 && !fun[k].len))
                continue;   /* listed, or asked for whole already */
            char **a = args[nj];
            size_t at = 0;
            a[at++] = exe;
            a[at++] = "-c";
            if (some) {
                a[at++] = "-fun";
                a[at++] = fun[k].data;
            }
            a[at++] = (char *)paths[k];
            a[at] = NULL;
            jobs[nj].args = a;
            of[nj++] = k;
        }
        if (nj)
            gm_children_run(jobs, nj, nj < 8 ? nj : 8, GM_NVDISASM_TIMEOUT_S, NULL, NULL);
        for (size_t q = 0; q < nj; q++) {
            size_t k = of[q];
            S_keep_ctx keep = {c, n, paths[k]};
            gm_child_job *j = &jobs[q];
            done[k] = j->rc == 0 && gm_sass_dis_parse(&st->dis, j->out.data ? j->out.data : "",
                                                      j->out.len, S_keep, &keep) > 0;
            /* said when this was the last try: the whole cubin, or no -fun */
            if (!done[k] && (round == 1 || !fun[k].len)) {
                gm_buf e = GM_BUF_INIT;
                if (j->rc == 0)
                    gm_buf_puts(&e, "nvdisasm listed no instruction of the kernel");
                else
                    S_failure(&e, j);
                S_problem(st, &e);
            }
            gm_buf_free(&j->out);
        }
        free(of);
        free(jobs);
        free(args);
    }
    for (size_t k = 0; k < m; k++)
        gm_buf_free(&fun[k]);
    free(done);
    free(fun);
    for (size_t k = 0; k < m; k++)
        remove(paths[k]);
    for (size_t i = 0; i < n; i++)   /* the unreadable ones too */
        if (S_ours(c[i].path, prefix))
            remove(c[i].path);
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
