#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
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
