#include "buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void S_oom(void)
{
    fputs("gpumem-report: out of memory\n", stderr);
    abort();
}

void *gm_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        S_oom();
    return p;
}

void *gm_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        S_oom();
    return p;
}

void *gm_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        S_oom();
    return q;
}

char *gm_xstrdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = gm_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

static void S_grow(gm_buf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    b->data = gm_xrealloc(b->data, cap);
    b->cap = cap;
}

void gm_buf_reserve(gm_buf *b, size_t n)
{
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return;
    b->data = gm_xrealloc(b->data, need);
    b->cap = need;
}

void gm_buf_put(gm_buf *b, const char *s, size_t n)
{
    S_grow(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void gm_buf_puts(gm_buf *b, const char *s) { gm_buf_put(b, s, strlen(s)); }

void gm_buf_putc(gm_buf *b, char c) { gm_buf_put(b, &c, 1); }

void gm_buf_printf(gm_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    S_grow(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}

char *gm_buf_detach(gm_buf *b)
{
    if (!b->data)
        S_grow(b, 0), b->data[0] = '\0';
    char *d = b->data;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

void gm_buf_free(gm_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

bool gm_buf_read_file(gm_buf *b, const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char chunk[65536];
    size_t got = 0, k;
    while ((!max || got < max) && (k = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (max && k > max - got)
            k = max - got;
        gm_buf_put(b, chunk, k);
        got += k;
    }
    bool bad = ferror(f) != 0;
    int e = errno;
    fclose(f);
    errno = e;
    return !bad;
}
