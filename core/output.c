/* output.c — Markdown to HTML, and files read and written whole (output.h). */
#include "output.h"

#include "buf.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gm_status gm_markdown_to_html(const char *md, char **html, gm_error *err)
{
    *html = NULL;
    cmark_gfm_core_extensions_ensure_registered();
    cmark_syntax_extension *table = cmark_find_syntax_extension("table");
    if (!table)
        return gm_fail(err, GM_ERR_UNSUPPORTED, "cmark-gfm has no table extension");
    cmark_parser *p = cmark_parser_new(CMARK_OPT_DEFAULT);
    cmark_parser_attach_syntax_extension(p, table);
    cmark_parser_feed(p, md, strlen(md));
    cmark_node *doc = cmark_parser_finish(p);
    char *h = cmark_render_html(doc, CMARK_OPT_DEFAULT, cmark_parser_get_syntax_extensions(p));
    cmark_node_free(doc);
    cmark_parser_free(p);
    if (!h)
        return gm_fail(err, GM_ERR_NOMEM, "cmark-gfm could not render the Markdown");
    /* ours to free() whatever allocator cmark was built with */
    *html = gm_xstrdup(h);
    cmark_get_default_mem_allocator()->free(h);
    return GM_OK;
}

char *gm_path_join(const char *dir, const char *name)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s/%s", dir, name);
    return gm_buf_detach(&b);
}

gm_status gm_file_read(const char *path, char **out, gm_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gm_fail(err, GM_ERR_IO, "%s: %s", path, strerror(errno));
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "");
    char chunk[16384];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        gm_buf_put(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        gm_buf_free(&b);
        return gm_fail(err, GM_ERR_IO, "%s: read error", path);
    }
    *out = gm_buf_detach(&b);
    return GM_OK;
}

gm_status gm_fd_write_all(int fd, const char *name, const char *data, size_t len, gm_error *err)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return gm_fail(err, GM_ERR_IO, "%s: %s", name, w < 0 ? strerror(errno) : "short write");
        off += (size_t)w;
    }
    return GM_OK;
}

gm_status gm_file_create(const char *path, const char *data, size_t len, gm_error *err)
{
    /* open() applies the umask to 0666 itself */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0)
        return gm_fail(err, GM_ERR_IO, "%s: %s", path, strerror(errno));
    gm_status st = gm_fd_write_all(fd, path, data, len, err);
    if (close(fd) != 0 && st == GM_OK)
        st = gm_fail(err, GM_ERR_IO, "%s: %s", path, strerror(errno));
    if (st != GM_OK)
        unlink(path);
    return st;
}

/* The mode a new file would get: 0666 less the umask (mkstemp gives 0600). */
static mode_t S_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

gm_status gm_file_write_temp(const char *path, const char *data, size_t len, char **tmp,
                             gm_error *err)
{
    *tmp = NULL;
    const char *slash = strrchr(path, '/');
    gm_buf t = GM_BUF_INIT;
    if (slash)
        gm_buf_printf(&t, "%.*s/.%s.tmp-XXXXXX", (int)(slash - path), path, slash + 1);
    else
        gm_buf_printf(&t, ".%s.tmp-XXXXXX", path);
    char *name = gm_buf_detach(&t);
    int fd = mkstemp(name);
    if (fd < 0) {
        gm_status st = gm_fail(err, GM_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        free(name);
        return st;
    }
    gm_status st = gm_fd_write_all(fd, name, data, len, err);
    if (st == GM_OK && fchmod(fd, S_file_mode()) != 0)
        st = gm_fail(err, GM_ERR_IO, "%s: %s", name, strerror(errno));
    if (close(fd) != 0 && st == GM_OK)
        st = gm_fail(err, GM_ERR_IO, "%s: %s", name, strerror(errno));
    if (st != GM_OK) {
        unlink(name);
        free(name);
        return st;
    }
    *tmp = name;
    return GM_OK;
}

gm_status gm_file_replace(const char *tmp, const char *path, gm_error *err)
{
    if (rename(tmp, path) == 0)
        return GM_OK;
    gm_status st = gm_fail(err, GM_ERR_IO, "cannot rename %s to %s: %s", tmp, path,
                           strerror(errno));
    unlink(tmp);
    return st;
}

gm_status gm_file_write_atomic(const char *path, const char *data, size_t len, gm_error *err)
{
    char *tmp = NULL;
    gm_status st = gm_file_write_temp(path, data, len, &tmp, err);
    if (st == GM_OK)
        st = gm_file_replace(tmp, path, err);
    free(tmp);
    return st;
}
