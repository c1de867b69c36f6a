#include "pathpat.h"

#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* torchrun, Slurm, Open MPI, MPICH (Hydra), PMIx, MVAPICH2, Cray PALS */
const char *const gm_rank_vars[] = {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                    "PMIX_RANK", "MV2_COMM_WORLD_RANK", "PALS_RANKID"};
const int gm_n_rank_vars = (int)(sizeof gm_rank_vars / sizeof gm_rank_vars[0]);
const char *const gm_local_rank_vars[] = {"LOCAL_RANK", "SLURM_LOCALID",
                                          "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                          "PALS_LOCAL_RANKID", "MV2_COMM_WORLD_LOCAL_RANK"};
const int gm_n_local_rank_vars = (int)(sizeof gm_local_rank_vars / sizeof gm_local_rank_vars[0]);

/* The value as a message may quote it: printable ASCII kept, any other byte
 * as \xNN, at most 40 bytes of it. */
static void S_quote(gm_buf *b, const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++) {
        if (n == 40) {
            gm_buf_puts(b, "...");
            break;
        }
        if (*p >= 0x20 && *p < 0x7f && *p != '\\')
            gm_buf_putc(b, (char)*p);
        else
            gm_buf_printf(b, "\\x%02x", *p);
    }
}

/* The first of vars[0..n) that is set: digits only, below GM_RANK_LIMIT. */
static bool S_rank_from(const char *const *vars, int n, const char *what, long long *rank,
                        const char **var, gm_status *st, gm_error *err)
{
    *rank = 0;
    *st = GM_OK;
    if (var)
        *var = NULL;
    for (int i = 0; i < n; i++) {
        const char *s = getenv(vars[i]);
        if (!s)
            continue;
        if (var)
            *var = vars[i];
        long long v = 0;
        bool ok = *s != '\0';
        for (const char *p = s; ok && *p; p++) {
            ok = *p >= '0' && *p <= '9' && p - s < 16;
            v = ok ? v * 10 + (*p - '0') : v;
        }
        if (!ok || v >= GM_RANK_LIMIT) {
            gm_buf q = GM_BUF_INIT;
            S_quote(&q, s);
            *st = gm_fail(err, GM_ERR_VALUE, "%s='%s' is not a %s (digits only: a whole number "
                          "from 0 to %lld)", vars[i], q.data ? q.data : "", what,
                          (long long)GM_RANK_LIMIT - 1);
            gm_buf_free(&q);
            return false;
        }
        *rank = v;
        return true;
    }
    return false;
}

bool gm_rank_from_env(long long *rank, const char **var, gm_status *st, gm_error *err)
{
    return S_rank_from(gm_rank_vars, gm_n_rank_vars, "rank", rank, var, st, err);
}

bool gm_local_rank_from_env(long long *rank, const char **var, gm_status *st, gm_error *err)
{
    return S_rank_from(gm_local_rank_vars, gm_n_local_rank_vars, "local rank", rank, var, st,
                       err);
}

char *gm_host_short(void)
{
    char h[256];
    if (gethostname(h, sizeof h) != 0 || !h[0])
        return gm_xstrdup("unknown-host");
    h[sizeof h - 1] = '\0';
    char *dot = strchr(h, '.');
    if (dot && dot != h)
        *dot = '\0';
    for (char *p = h; *p; p++)
        if (*p == '/')
            *p = '_';
    return gm_xstrdup(h);
}

bool gm_path_uses(const char *pattern, char c)
{
    for (const char *p = pattern; p && *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == c)
            return true;
        if (p[1])
            p++;   /* skip the character after %, so "%%d" is not %d */
    }
    return false;
}

/* A value put into a path as one safe piece of a file name: letters, digits,
 * '.', '_' and '-' kept, anything else ('/', a newline, ESC, a space, bytes
 * of UTF-8) becomes '_'; an empty value or one of dots only ("..") becomes
 * "_", so that no expansion climbs out of a directory or names none. */
static void S_put_safe(gm_buf *b, const char *value)
{
    bool dots = true;
    for (const char *p = value; *p; p++)
        dots = dots && *p == '.';
    if (dots) {
        gm_buf_putc(b, '_');
        return;
    }
    for (const char *p = value; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        gm_buf_putc(b, ok ? c : '_');
    }
}

gm_status gm_path_expand(const char *pattern, const gm_path_vars *v, char **out, gm_error *err)
{
    *out = NULL;
    gm_path_vars none = {NULL, -1, 0};
    if (!v)
        v = &none;
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "");
    gm_status st = GM_OK;
    char *host = NULL;
    for (const char *p = pattern; *p && st == GM_OK; p++) {
        if (*p != '%') {
            gm_buf_putc(&b, *p);
            continue;
        }
        char c = *++p;
        long long rank;
        char num[32];
        switch (c) {
        case '%': gm_buf_putc(&b, '%'); break;
        case 'h':
            if (!v->host && !host)
                host = gm_host_short();
            S_put_safe(&b, v->host ? v->host : host);
            break;
        case 'd':
            if (v->device < 0) {
                st = gm_fail(err, GM_ERR_VALUE, "'%s': %%d (the device) is not known here",
                             pattern);
                break;
            }
            snprintf(num, sizeof num, "%d", v->device);
            S_put_safe(&b, num);
            break;
        case 'r':
        case 'l': {
            gm_error re = {GM_OK, ""};
            if (c == 'r')
                gm_rank_from_env(&rank, NULL, &st, &re);
            else
                gm_local_rank_from_env(&rank, NULL, &st, &re);
            if (st != GM_OK) {
                gm_fail(err, st, "'%s': %s", pattern, re.message);
                break;
            }
            snprintf(num, sizeof num, "%lld", rank);
            S_put_safe(&b, num);
            break;
        }
        case 'p':
            snprintf(num, sizeof num, "%lld", v->pid > 0 ? v->pid : (long long)getpid());
            S_put_safe(&b, num);
            break;
        case '\0':
            st = gm_fail(err, GM_ERR_VALUE, "'%s' ends in a lone %%: write %%%% for a percent sign",
                         pattern);
            p--;   /* stay on the NUL */
            break;
        default:
            st = gm_fail(err, GM_ERR_VALUE,
                         "'%s': %%%c is not a pattern (%%h host, %%d device, %%r rank, %%l local "
                         "rank, %%p pid, %%%% percent sign)", pattern, c);
        }
    }
    free(host);
    if (st == GM_OK && b.len == 0)
        st = gm_fail(err, GM_ERR_VALUE, "'%s' names no file", pattern);
    if (st != GM_OK) {
        gm_buf_free(&b);
        return st;
    }
    *out = gm_buf_detach(&b);
    return GM_OK;
}

gm_status gm_process_identify(gm_process *p, gm_error *err)
{
    long long rank;
    const char *var = NULL;
    gm_status st = GM_OK;
    bool have = gm_rank_from_env(&rank, &var, &st, err);
    if (st != GM_OK)
        return st;
    p->present = true;
    p->host = gm_host_short();
    p->rank = have ? gm_vint(rank) : gm_vabsent();
    p->rank_var = have ? gm_xstrdup(var) : NULL;
    p->pid = (long long)getpid();
    return GM_OK;
}
