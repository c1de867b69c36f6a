#include "cli.h"

#include "../core/buf.h"
#include "../core/pathpat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool gm_cli_int(const char *opt, const char *val, long long min, long long max, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = val ? strtoll(val, &end, 10) : 0;
    if (!val || !*val || *end || errno == ERANGE || v < min || v > max) {
        gm_cli_error("%s: '%s' is not an integer in [%lld, %lld]", opt, val ? val : "", min, max);
        return false;
    }
    *out = v;
    return true;
}

bool gm_cli_seconds(const char *opt, const char *val, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = val ? strtod(val, &end) : 0;
    if (!val || !*val || *end || errno == ERANGE || !(v >= 0) || v > 1e6) {
        gm_cli_error("%s: '%s' is not a number of seconds in [0, 1000000] (0: no limit)", opt,
                     val ? val : "");
        return false;
    }
    *out = v == 0 ? -1.0 : v;
    return true;
}

bool gm_cli_child_times_on(void)
{
    const char *v = getenv("GPUMEM_REPORT_CHILD_TIMES");
    return v && (strcmp(v, "1") == 0 || v[0] == '/');
}

void gm_cli_child_times(const char *fmt, ...)
{
    const char *v = getenv("GPUMEM_REPORT_CHILD_TIMES");
    if (!gm_cli_child_times_on())
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (v[0] != '/') {
        fwrite(line, 1, len, stderr);
        return;
    }
    int fd = open(v, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;   /* a benchmark's aid: nothing to say where it cannot write */
    ssize_t w = write(fd, line, len);
    (void)w;
    close(fd);
}

void gm_cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpumem-report: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

char *gm_cli_exe_path(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return strdup(buf);
}

char *gm_cli_json_beside(const char *out)
{
    const char *dot = strrchr(out, '.');
    const char *slash = strrchr(out, '/');
    size_t stem = (dot && (!slash || dot > slash)) ? (size_t)(dot - out) : strlen(out);
    gm_buf b = GM_BUF_INIT;
    gm_buf_put(&b, out, stem);
    gm_buf_puts(&b, ".json");
    return gm_buf_detach(&b);
}

bool gm_cli_out_is_dir(const char *cmd, const char *out)
{
    struct stat sb;
    if (!out || strcmp(out, "-") == 0 || stat(out, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return false;
    gm_cli_error("%s%s--out %s is a directory: name a file (report.html or report.md)",
                 cmd ? cmd : "", cmd ? ": " : "", out);
    return true;
}

bool gm_cli_report_opts(gm_render_opts *ro, const char *out, const char *format,
                        const char *json_path, char **template_path)
{
    if (gm_cli_out_is_dir(NULL, out))
        return false;
    ro->out_path = out;
    ro->format = format ? (strcmp(format, "md") == 0 ? GM_FORMAT_MD : GM_FORMAT_HTML)
                        : gm_format_from_path(out);
    if (ro->format == GM_FORMAT_AUTO) {
        gm_cli_error("--out %s: cannot tell the format from the extension; "
                     "use .html or .md, or --format", out);
        return false;
    }
    gm_error err = {GM_OK, ""};
    if (ro->format == GM_FORMAT_HTML && gm_template_find(ro, template_path, &err) != GM_OK) {
        gm_cli_error("%s", err.message);
        return false;
    }
    ro->template_path = *template_path;
    if (strcmp(json_path, out) == 0) {
        gm_cli_error("--json and --out name the same file '%s'", out);
        return false;
    }
    return true;
}

bool gm_cli_claim(const char *opt, const char *path, gm_claim *c)
{
    gm_error err = {GM_OK, ""};
    if (gm_claim_take(c, path, &err) == GM_OK)
        return true;
    gm_cli_error("%s %s", opt, err.message);
    return false;
}

char *gm_cli_expand(const char *opt, const char *pattern, int device)
{
    gm_path_vars v = {NULL, device, 0};
    gm_error err = {GM_OK, ""};
    char *out = NULL;
    if (gm_path_expand(pattern, &v, &out, &err) != GM_OK) {
        gm_cli_error("%s %s", opt, err.message);
        return NULL;
    }
    return out;
}
